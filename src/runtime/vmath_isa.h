/* vmath_isa.h — the prologue vmath.c starts with: under which names this
 * compilation of it defines its entry points (runtime layer).
 *
 * vmath.c is compiled once for each instruction-set level: as itself for
 * the library's baseline, and through vmath_avx2.c and vmath_avx512.c
 * (which define VM_ISA and include it) under -mavx2 -mfma or AVX-512
 * flags. Each compilation's vm_* functions get the level's suffix
 * (vm_exp_f32 becomes vm_exp_f32_avx2), and vmath_dispatch.c defines the
 * vm_* names of vmath.h, forwarding to the level rt_cpu_isa() picked. An
 * entry point added to vmath.h needs a line here and one in
 * vmath_dispatch.c's list; a missing one fails the link (a duplicate or an
 * undefined symbol), never silently. Include only from vmath.c. */
#ifndef CJ_RUNTIME_VMATH_ISA_H
#define CJ_RUNTIME_VMATH_ISA_H

#ifndef VM_ISA
#define VM_ISA base
#endif
/* Whether the polynomials use fused multiply-adds: this compilation's
 * __FMA__. The exporter (src/export/export_vmath.c) emits vmath.c's
 * kernels as source with its own VM_FMA, so exported code can match
 * the compilation this CPU runs. */
#ifndef VM_FMA
#if defined(__FMA__)
#define VM_FMA 1
#else
#define VM_FMA 0
#endif
#endif
#define VM_ISA_CAT_(a, b) a##_##b
#define VM_ISA_CAT(a, b) VM_ISA_CAT_(a, b)
#define VM_ISA_NAME(f) VM_ISA_CAT(f, VM_ISA)

#define vm_exp_f32 VM_ISA_NAME(vm_exp_f32)
#define vm_exp_f64 VM_ISA_NAME(vm_exp_f64)
#define vm_exp2_f32 VM_ISA_NAME(vm_exp2_f32)
#define vm_exp2_f64 VM_ISA_NAME(vm_exp2_f64)
#define vm_log_f32 VM_ISA_NAME(vm_log_f32)
#define vm_log_f64 VM_ISA_NAME(vm_log_f64)
#define vm_log1p_f32 VM_ISA_NAME(vm_log1p_f32)
#define vm_log1p_f64 VM_ISA_NAME(vm_log1p_f64)
#define vm_expm1_f32 VM_ISA_NAME(vm_expm1_f32)
#define vm_expm1_f64 VM_ISA_NAME(vm_expm1_f64)
#define vm_sin_f32 VM_ISA_NAME(vm_sin_f32)
#define vm_sin_f64 VM_ISA_NAME(vm_sin_f64)
#define vm_cos_f32 VM_ISA_NAME(vm_cos_f32)
#define vm_cos_f64 VM_ISA_NAME(vm_cos_f64)
#define vm_tan_f32 VM_ISA_NAME(vm_tan_f32)
#define vm_tan_f64 VM_ISA_NAME(vm_tan_f64)
#define vm_sincos_f32 VM_ISA_NAME(vm_sincos_f32)
#define vm_sincos_f64 VM_ISA_NAME(vm_sincos_f64)
#define vm_asin_f32 VM_ISA_NAME(vm_asin_f32)
#define vm_asin_f64 VM_ISA_NAME(vm_asin_f64)
#define vm_acos_f32 VM_ISA_NAME(vm_acos_f32)
#define vm_acos_f64 VM_ISA_NAME(vm_acos_f64)
#define vm_atan_f32 VM_ISA_NAME(vm_atan_f32)
#define vm_atan_f64 VM_ISA_NAME(vm_atan_f64)
#define vm_sinh_f32 VM_ISA_NAME(vm_sinh_f32)
#define vm_sinh_f64 VM_ISA_NAME(vm_sinh_f64)
#define vm_cosh_f32 VM_ISA_NAME(vm_cosh_f32)
#define vm_cosh_f64 VM_ISA_NAME(vm_cosh_f64)
#define vm_tanh_f32 VM_ISA_NAME(vm_tanh_f32)
#define vm_tanh_f64 VM_ISA_NAME(vm_tanh_f64)
#define vm_logistic_f32 VM_ISA_NAME(vm_logistic_f32)
#define vm_logistic_f64 VM_ISA_NAME(vm_logistic_f64)
#define vm_erf_f32 VM_ISA_NAME(vm_erf_f32)
#define vm_erf_f64 VM_ISA_NAME(vm_erf_f64)
#define vm_cbrt_f32 VM_ISA_NAME(vm_cbrt_f32)
#define vm_cbrt_f64 VM_ISA_NAME(vm_cbrt_f64)
#define vm_pow_f32 VM_ISA_NAME(vm_pow_f32)
#define vm_pow_f64 VM_ISA_NAME(vm_pow_f64)
#define vm_atan2_f32 VM_ISA_NAME(vm_atan2_f32)
#define vm_atan2_f64 VM_ISA_NAME(vm_atan2_f64)

/* The generated C's float32 tanh (vmath_tanhf.h's text with this level's
 * fused multiply-add or none), so an inline tanh in generated code has the
 * bits of this compilation's vm_tanh_f32. */
#include "vmath_tanhf.h"
const char *VM_ISA_NAME(vm_tanhf_text)(void);
const char *VM_ISA_NAME(vm_tanhf_text)(void) { return VM_TANHF_TEXT; }

#endif
