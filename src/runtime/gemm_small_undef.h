/* gemm_small_undef.h — ends one instantiation of gemm_small_kern.h by
 * undefining the vocabulary gemm_small.c defined for it (runtime layer). */
#undef T
#undef KS
#undef KTARGET
#undef VT
#undef VL
#undef MT
#undef VZERO
#undef VLOAD
#undef VLOADM
#undef VSTORE
#undef VSTOREM
#undef VSET1
#undef VFMA
#undef VMUL
#undef VADD
#undef VMASK
#undef VHSUM
#undef VHSUM4
