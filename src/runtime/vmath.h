/* vmath.h — vectorisable elementwise math over contiguous arrays (runtime layer).
 *
 * The eager kernels and the generated code call these for transcendental
 * elementwise primitives. Each entry point applies one function to n
 * contiguous elements; the loops inside are branch-free polynomial / rational
 * approximations with range reduction that the compiler auto-vectorises, with
 * no libm call per element. A few rare inputs (sin/cos/tan of arguments too
 * large for the fast reduction) are recomputed afterwards with a slower
 * kernel or, beyond it, with libm.
 *
 * Accuracy: float32 results within 4 ulp of the correctly rounded value
 * (most within 1–2); float64 within about 4 ulp (relative error <= 1e-15).
 * Special values follow C99 Annex F (NaN propagates, overflow -> inf,
 * underflow -> 0, log(0) = -inf, log(<0) = NaN, sin(inf) = NaN, ...);
 * subnormal results are produced but may be off by a few subnormal ulps.
 *
 * Aliasing: y may equal an input pointer exactly (in-place); otherwise the
 * arrays must not overlap. n <= 0 does nothing.
 *
 * Build: the library compiles this with -O3 -fno-math-errno
 * -fno-trapping-math, for the baseline and again for AVX2+FMA and AVX-512
 * (vmath_isa.h, vmath_dispatch.c: these names forward to the compilation
 * this CPU runs); the code is correct without those flags too, only
 * slower. */
#ifndef CJ_RUNTIME_VMATH_H
#define CJ_RUNTIME_VMATH_H
#include <stdint.h>

/* y[i] = f(x[i]) */
/* e^x */
void vm_exp_f32(const float *x, float *y, int64_t n);
void vm_exp_f64(const double *x, double *y, int64_t n);
/* 2^x */
void vm_exp2_f32(const float *x, float *y, int64_t n);
void vm_exp2_f64(const double *x, double *y, int64_t n);
/* natural logarithm */
void vm_log_f32(const float *x, float *y, int64_t n);
void vm_log_f64(const double *x, double *y, int64_t n);
/* log(1+x), accurate near 0 */
void vm_log1p_f32(const float *x, float *y, int64_t n);
void vm_log1p_f64(const double *x, double *y, int64_t n);
/* e^x - 1, accurate near 0 */
void vm_expm1_f32(const float *x, float *y, int64_t n);
void vm_expm1_f64(const double *x, double *y, int64_t n);
void vm_sin_f32(const float *x, float *y, int64_t n);
void vm_sin_f64(const double *x, double *y, int64_t n);
void vm_cos_f32(const float *x, float *y, int64_t n);
void vm_cos_f64(const double *x, double *y, int64_t n);
void vm_tan_f32(const float *x, float *y, int64_t n);
void vm_tan_f64(const double *x, double *y, int64_t n);
/* s[i] = sin(x[i]), c[i] = cos(x[i]) from one range reduction, as accurate
 * as vm_sin/vm_cos. s or c may equal x exactly; s and c must not overlap. */
void vm_sincos_f32(const float *x, float *s, float *c, int64_t n);
void vm_sincos_f64(const double *x, double *s, double *c, int64_t n);
void vm_asin_f32(const float *x, float *y, int64_t n);
void vm_asin_f64(const double *x, double *y, int64_t n);
void vm_acos_f32(const float *x, float *y, int64_t n);
void vm_acos_f64(const double *x, double *y, int64_t n);
void vm_atan_f32(const float *x, float *y, int64_t n);
void vm_atan_f64(const double *x, double *y, int64_t n);
void vm_sinh_f32(const float *x, float *y, int64_t n);
void vm_sinh_f64(const double *x, double *y, int64_t n);
void vm_cosh_f32(const float *x, float *y, int64_t n);
void vm_cosh_f64(const double *x, double *y, int64_t n);
void vm_tanh_f32(const float *x, float *y, int64_t n);
void vm_tanh_f64(const double *x, double *y, int64_t n);
/* 1/(1+e^-x) */
void vm_logistic_f32(const float *x, float *y, int64_t n);
void vm_logistic_f64(const double *x, double *y, int64_t n);
void vm_erf_f32(const float *x, float *y, int64_t n);
void vm_erf_f64(const double *x, double *y, int64_t n);
/* cube root */
void vm_cbrt_f32(const float *x, float *y, int64_t n);
void vm_cbrt_f64(const double *x, double *y, int64_t n);

/* y[i] = a[i]^b[i] (C99 pow semantics). */
void vm_pow_f32(const float *a, const float *b, float *y, int64_t n);
void vm_pow_f64(const double *a, const double *b, double *y, int64_t n);

/* y[i] = atan2(a[i], b[i]): a is the y coordinate, b the x coordinate. */
void vm_atan2_f32(const float *a, const float *b, float *y, int64_t n);
void vm_atan2_f64(const double *a, const double *b, double *y, int64_t n);

#endif
