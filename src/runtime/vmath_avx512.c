/* vmath_avx512.c — vmath.c compiled again for AVX-512 (-mavx512f -mavx512cd -mavx512bw -mavx512dq -mavx512vl, with AVX2 and FMA)
 * (runtime layer; see vmath_isa.h). CMake gives this file its flags and
 * defines CJAX_ISA_VARIANTS when the compiler can build them for x86-64;
 * otherwise it is empty and vmath_dispatch.c never names its functions.
 * vmath_dispatch.c calls these only when rt_cpu_isa() says the CPU runs
 * them. */
#ifdef CJAX_ISA_VARIANTS
#define VM_ISA avx512
#include "vmath.c"
#else
typedef int vmath_avx512_is_not_built; /* ISO C wants a declaration in every unit */
#endif
