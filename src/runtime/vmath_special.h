/* vmath_special.h — special functions over contiguous arrays (runtime layer).
 *
 * The eager kernels of the special-function primitives (lgamma, digamma,
 * polygamma, erfc, erf_inv, asinh, acosh, atanh, nextafter) and, through
 * the runtime table, the code generated for them call these; vmath.h holds
 * the elementary functions. Conventions as in vmath.h: y[i] = f(x[i]) over
 * n contiguous elements, y may equal an input exactly, n <= 0 does nothing.
 *
 * Method: float32 is computed in double and rounded once, so f32 results
 * are within 1 ulp of the correctly rounded value. erfc, asinh, acosh and
 * atanh run branch-free loops over tiles with the vectorised exp/log/log1p
 * of vmath; lgamma, digamma, polygamma and erf_inv need per-element branches
 * (reflection, recurrences, series near zeros, Halley iterations) and run a
 * scalar routine per element.
 *
 * Accuracy in float64 (the bounds tests/test_special.c checks against mpmath
 * on its fixtures):
 *   erfc             within 24 ulp for x < 26.5 (the tail's two vmath
 *                    exps; then it underflows, and f64 subnormal results
 *                    lose relative precision);
 *   asinh/acosh/atanh within 4 ulp;
 *   erf_inv          within 4 ulp (Halley's iteration on erf or erfc);
 *   lgamma           within 4 ulp for x > 0; for x < 0 absolute error
 *                    below 1e-15 · max(1, |lgamma(x)|) (near its zeros
 *                    between the poles the relative error grows);
 *   digamma          within 12 ulp for x > 0 (a Taylor series at its
 *                    positive root); for x < 0 absolute error below 1e-14 ·
 *                    max(1, |digamma(x)|);
 *   polygamma(m, x)  for integer m >= 1: relative error below 1e-14 for
 *                    x > 0 and m <= 20.
 * Special values are JAX's (XLA's) where they are defined: lgamma is +inf at
 * the poles (0, negative integers, ±inf); digamma is NaN at 0, at the
 * negative integers and at -inf; erf_inv(±1) = ±inf, NaN outside [-1, 1];
 * polygamma is NaN for a non-integer or negative order. */
#ifndef CJ_RUNTIME_VMATH_SPECIAL_H
#define CJ_RUNTIME_VMATH_SPECIAL_H
#include <stdint.h>

/* log|Γ(x)| */
void vm_lgamma_f32(const float *x, float *y, int64_t n);
void vm_lgamma_f64(const double *x, double *y, int64_t n);
/* ψ(x) = Γ'(x)/Γ(x) */
void vm_digamma_f32(const float *x, float *y, int64_t n);
void vm_digamma_f64(const double *x, double *y, int64_t n);
/* y[i] = ψ^(m[i])(x[i]), the m-th derivative of digamma */
void vm_polygamma_f32(const float *m, const float *x, float *y, int64_t n);
void vm_polygamma_f64(const double *m, const double *x, double *y, int64_t n);
/* 1 - erf(x), accurate where it is small */
void vm_erfc_f32(const float *x, float *y, int64_t n);
void vm_erfc_f64(const double *x, double *y, int64_t n);
/* the inverse of erf on [-1, 1] */
void vm_erfinv_f32(const float *x, float *y, int64_t n);
void vm_erfinv_f64(const double *x, double *y, int64_t n);
void vm_asinh_f32(const float *x, float *y, int64_t n);
void vm_asinh_f64(const double *x, double *y, int64_t n);
void vm_acosh_f32(const float *x, float *y, int64_t n);
void vm_acosh_f64(const double *x, double *y, int64_t n);
void vm_atanh_f32(const float *x, float *y, int64_t n);
void vm_atanh_f64(const double *x, double *y, int64_t n);
/* the next representable number after a[i] towards b[i] (C99 nextafter:
 * NaN if either is NaN, b if a == b; subnormals are produced) */
void vm_nextafter_f32(const float *a, const float *b, float *y, int64_t n);
void vm_nextafter_f64(const double *a, const double *b, double *y, int64_t n);

#endif
