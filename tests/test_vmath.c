/* test_vmath.c — accuracy and special values of src/runtime/vmath.
 *
 * Every function is compared with libm on random points over wide ranges
 * plus edge cases: float32 against the double libm function, float64
 * against the long double one. Errors are measured in ulps of the result
 * type at the reference value (subnormal results: ulps of the smallest
 * subnormal). Where the reference is exactly 0, +-inf or NaN the result must
 * match exactly, including the sign of zero. float32 sin/cos/tan are also
 * swept over the float grid (every 1021st float, every 13th in [-2pi, 2pi],
 * the floats next to multiples of pi/2 and to the kernels' range limits),
 * and sincos is held to sin and cos bit for bit. Set VMATH_VERBOSE=1 to
 * print the largest error seen per function. */
#include "harness.h"
#include "runtime/vmath.h"
#include "runtime/vmath_dispatch.h"

#include <float.h>
#include <stdlib.h>

typedef void (*un_f32)(const float *, float *, int64_t);
typedef void (*un_f64)(const double *, double *, int64_t);
typedef void (*bin_f32)(const float *, const float *, float *, int64_t);
typedef void (*bin_f64)(const double *, const double *, double *, int64_t);
typedef double (*ref_d)(double);
typedef long double (*ref_ld)(long double);
typedef double (*ref2_d)(double, double);
typedef long double (*ref2_ld)(long double, long double);

/* Input distributions. U: uniform on [lo, hi]. M: +-2^u, u uniform on
 * [lo, hi] (random sign). P: as M, positive only. */
enum { U, M, P };
typedef struct {
    int kind;
    double lo, hi;
} vr_range;

#ifndef N_RANDOM /* -DN_RANDOM=... for a longer soak */
#define N_RANDOM 24000 /* per function and dtype, spread over its ranges */
#endif

static double draw(const vr_range *r, uint64_t *st) {
    double u = th_rand_uniform(st, r->lo, r->hi);
    if (r->kind == U) return u;
    double v = exp2(u);
    if (r->kind == M && (th_rand_u64(st) & 1)) v = -v;
    return v;
}

static int verbose(void) {
    const char *v = getenv("VMATH_VERBOSE");
    return v && v[0] == '1';
}

/* ulp of the type at |v| (v finite), never below the smallest subnormal */
static double ulp_f32_at(double v) {
    int e;
    v = fabs(v);
    if (v < FLT_MIN) return ldexp(1.0, -149);
    if (v >= FLT_MAX) return ldexp(1.0, 104);
    frexp(v, &e);
    return ldexp(1.0, e - 24);
}
static long double ulp_f64_at(long double v) {
    int e;
    v = fabsl(v);
    if (v < DBL_MIN) return ldexpl(1.0L, -1074);
    if (v >= DBL_MAX) return ldexpl(1.0L, 971);
    frexpl(v, &e);
    return ldexpl(1.0L, e - 53);
}

/* Error of y against ref in ulps; exact cases return 0 or INFINITY. */
static double err_f32(float y, double ref) {
    if (isnan(ref)) return isnan(y) ? 0.0 : INFINITY;
    if (isnan(y)) return INFINITY;
    if (isinf(ref) || ref == 0.0)
        return (y == ref && !signbit(y) == !signbit(ref)) ? 0.0 : INFINITY;
    if (isinf(y)) return isinf((float)ref) && y == (float)ref ? 0.0 : INFINITY;
    return fabs((double)y - ref) / ulp_f32_at(ref);
}
static double err_f64(double y, long double ref) {
    if (isnan(ref)) return isnan(y) ? 0.0 : INFINITY;
    if (isnan(y)) return INFINITY;
    if (isinf(ref) || ref == 0.0L)
        return (y == ref && !signbit(y) == !signbit(ref)) ? 0.0 : INFINITY;
    if (isinf(y)) return isinf((double)ref) && y == (double)ref ? 0.0 : INFINITY;
    return (double)(fabsl((long double)y - ref) / ulp_f64_at(ref));
}

/* Edge inputs tried for every unary function. */
static const double EDGE_F64[] = {
    0.0, -0.0, INFINITY, -INFINITY, NAN, -NAN, 1.0, -1.0, 0.5, -0.5, 2.0,
    -2.0, DBL_MIN, -DBL_MIN, DBL_TRUE_MIN, -DBL_TRUE_MIN, 3 * DBL_TRUE_MIN,
    0x1p-1030, -0x1p-1030, DBL_MAX, -DBL_MAX, 1e300, -1e300, 1e-300, -1e-300,
    0x1p-60, -0x1p-60, 0x1p-30, -0x1p-30, 1e6, -1e6, 0x1p20, 0x1.fffffp19,
    1e22, -1e22, 709.782712893384, 709.79, 710.0, 710.475860073943,
    710.4759, 711.0, -708.39641853226408, -708.4, -744.44007192138122,
    -745.1332191019412, -745.2, -746.0, 1023.0, 1024.0, -1022.0, -1074.0,
    -1075.0, -1076.0, 0.99999999999999989, -0.99999999999999989,
    1.0000000000000002, -1.0000000000000002, 3.0, -3.0, 5.9, 6.0, 7.0, 22.0,
    40.0, -40.0, 1.5707963267948966, -1.5707963267948966,
    3.1415926535897931, 0.78539816339744828, 2.3561944901923448};
static const float EDGE_F32[] = {
    0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, 1.0f, -1.0f, 0.5f, -0.5f,
    2.0f, -2.0f, FLT_MIN, -FLT_MIN, FLT_TRUE_MIN, -FLT_TRUE_MIN,
    3 * FLT_TRUE_MIN, 0x1p-140f, -0x1p-140f, FLT_MAX, -FLT_MAX, 1e30f,
    -1e30f, 1e-30f, -1e-30f, 0x1p-30f, -0x1p-30f, 0x1p-13f, -0x1p-13f,
    1e6f, -1e6f, 0x1p24f, 0x1.fffffep23f, 1e22f, -1e22f, 88.7228f,
    88.72284f, 89.0f, 89.4159f, 89.416f, 90.0f, -87.33654f, -87.34f,
    -103.2789f, -103.9721f, -104.0f, -105.0f, 127.0f, 128.0f, -126.0f,
    -149.0f, -150.0f, -151.0f, 0.99999994f, -0.99999994f, 1.0000001f,
    -1.0000001f, 3.0f, -3.0f, 3.9f, 4.0f, 9.0f, 9.1f, 10.0f, -10.0f, 20.0f,
    1.5707964f, -1.5707964f, 3.1415927f, 0.78539819f, 2.3561945f};
#define N_EDGE_F64 ((int)(sizeof EDGE_F64 / sizeof EDGE_F64[0]))
#define N_EDGE_F32 ((int)(sizeof EDGE_F32 / sizeof EDGE_F32[0]))

/* Runs fn on the random points and edge cases, in place and out of place,
 * and checks the error bound. */
static void check_f32(const char *name, un_f32 fn, ref_d ref, double bound,
                      const vr_range *rs, int nr) {
    int64_t n = N_RANDOM + N_EDGE_F32;
    float *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
    float *z = malloc((size_t)n * sizeof *z);
    uint64_t st = 0x1234567 + (uint64_t)strlen(name) * 7919 + (uint64_t)name[0];
    for (int64_t i = 0; i < N_RANDOM; i++) x[i] = (float)draw(&rs[i % nr], &st);
    for (int i = 0; i < N_EDGE_F32; i++) x[N_RANDOM + i] = EDGE_F32[i];
    fn(x, y, n);
    memcpy(z, x, (size_t)n * sizeof *z);
    fn(z, z, n); /* in place */
    double worst = 0;
    float wx = 0;
    int ok = 1;
    for (int64_t i = 0; i < n; i++) {
        double e = err_f32(y[i], ref((double)x[i]));
        if (!(e <= worst)) worst = e, wx = x[i];
        if (memcmp(&y[i], &z[i], sizeof y[i]) != 0 && !(isnan(y[i]) && isnan(z[i]))) ok = 0;
    }
    if (verbose()) printf("    %-10s f32 max %.3f ulp at %a\n", name, worst, (double)wx);
    free(x), free(y), free(z);
    CHECK_MSG(ok, "%s_f32: in-place result differs", name);
    CHECK_MSG(worst <= bound, "%s_f32: %.3g ulp at x = %a (%.9g), bound %g", name,
              worst, (double)wx, (double)wx, bound);
}

static void check_f64(const char *name, un_f64 fn, ref_ld ref, double bound,
                      const vr_range *rs, int nr) {
    int64_t n = N_RANDOM + N_EDGE_F64;
    double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
    double *z = malloc((size_t)n * sizeof *z);
    uint64_t st = 0x7654321 + (uint64_t)strlen(name) * 7919 + (uint64_t)name[0];
    for (int64_t i = 0; i < N_RANDOM; i++) x[i] = draw(&rs[i % nr], &st);
    for (int i = 0; i < N_EDGE_F64; i++) x[N_RANDOM + i] = EDGE_F64[i];
    fn(x, y, n);
    memcpy(z, x, (size_t)n * sizeof *z);
    fn(z, z, n);
    double worst = 0, wx = 0;
    int ok = 1;
    for (int64_t i = 0; i < n; i++) {
        double e = err_f64(y[i], ref((long double)x[i]));
        if (!(e <= worst)) worst = e, wx = x[i];
        if (memcmp(&y[i], &z[i], sizeof y[i]) != 0 && !(isnan(y[i]) && isnan(z[i]))) ok = 0;
    }
    if (verbose()) printf("    %-10s f64 max %.3f ulp at %a\n", name, worst, wx);
    free(x), free(y), free(z);
    CHECK_MSG(ok, "%s_f64: in-place result differs", name);
    CHECK_MSG(worst <= bound, "%s_f64: %.3g ulp at x = %a (%.17g), bound %g", name,
              worst, wx, wx, bound);
}

/* References that libm lacks. */
static double ref_logistic(double x) { return 1.0 / (1.0 + exp(-x)); }
static long double ref_logisticl(long double x) { return 1.0L / (1.0L + expl(-x)); }

#define R(...) __VA_ARGS__
#define ACC_TESTS(fn, bound32, bound64, ranges32, ranges64)                 \
    TEST(vmath_##fn##_f32_accuracy) {                                     \
        static const vr_range rs[] = {ranges32};                         \
        check_f32(#fn, vm_##fn##_f32, fn, bound32, rs,                    \
                  (int)(sizeof rs / sizeof rs[0]));                       \
    }                                                                     \
    TEST(vmath_##fn##_f64_accuracy) {                                     \
        static const vr_range rs[] = {ranges64};                         \
        check_f64(#fn, vm_##fn##_f64, fn##l, bound64, rs,                 \
                  (int)(sizeof rs / sizeof rs[0]));                       \
    }

ACC_TESTS(exp, 4, 4,
          R({U, -105, 90}, {U, -1, 1}, {M, -40, 3}),
          R({U, -750, 712}, {U, -1, 1}, {M, -80, 3}))
ACC_TESTS(exp2, 4, 4,
          R({U, -155, 130}, {U, -1, 1}, {M, -40, 3}),
          R({U, -1080, 1030}, {U, -1, 1}, {M, -80, 3}))
ACC_TESTS(expm1, 4, 4,
          R({U, -30, 90}, {U, -1, 1}, {M, -140, 3}),
          R({U, -50, 712}, {U, -1, 1}, {M, -1000, 3}))
ACC_TESTS(log, 4, 4,
          R({P, -149, 128}, {U, 0.5, 2}, {U, 0.9, 1.1}, {M, -10, 10}),
          R({P, -1074, 1024}, {U, 0.5, 2}, {U, 0.9, 1.1}, {M, -10, 10}))
ACC_TESTS(log1p, 4, 4,
          R({U, -1, 1}, {M, -149, 0}, {P, -10, 128}, {U, -1, -0.5}),
          R({U, -1, 1}, {M, -1074, 0}, {P, -10, 1024}, {U, -1, -0.5}))
ACC_TESTS(sin, 4, 4,
          R({U, -10, 10}, {U, -1e6, 1e6}, {M, -149, 24}, {M, 20, 80}),
          R({U, -10, 10}, {U, -1e6, 1e6}, {M, -1074, 20}, {M, 18, 100}))
ACC_TESTS(cos, 4, 4,
          R({U, -10, 10}, {U, -1e6, 1e6}, {M, -149, 24}, {M, 20, 80}),
          R({U, -10, 10}, {U, -1e6, 1e6}, {M, -1074, 20}, {M, 18, 100}))
ACC_TESTS(tan, 4, 4,
          R({U, -10, 10}, {U, -1e6, 1e6}, {M, -149, 24}, {M, 20, 80}),
          R({U, -10, 10}, {U, -1e6, 1e6}, {M, -1074, 20}, {M, 18, 100}))
ACC_TESTS(asin, 4, 4,
          R({U, -1, 1}, {M, -149, 0}, {U, 0.99, 1}, {U, -1.5, 1.5}),
          R({U, -1, 1}, {M, -1074, 0}, {U, 0.99, 1}, {U, -1.5, 1.5}))
ACC_TESTS(acos, 4, 4,
          R({U, -1, 1}, {M, -149, 0}, {U, 0.99, 1}, {U, -1.5, 1.5}),
          R({U, -1, 1}, {M, -1074, 0}, {U, 0.99, 1}, {U, -1.5, 1.5}))
ACC_TESTS(atan, 4, 4,
          R({U, -3, 3}, {M, -149, 128}, {U, 0.4, 2.5}),
          R({U, -3, 3}, {M, -1074, 1024}, {U, 0.4, 2.5}))
ACC_TESTS(sinh, 4, 4,
          R({U, -90, 90}, {U, -2, 2}, {M, -149, 7}),
          R({U, -712, 712}, {U, -2, 2}, {M, -1074, 10}))
ACC_TESTS(cosh, 4, 4,
          R({U, -90, 90}, {U, -2, 2}, {M, -149, 7}),
          R({U, -712, 712}, {U, -2, 2}, {M, -1074, 10}))
/* float32 tanh is XLA's kind of rational function (runtime/vmath_tanhf.h):
 * 4.88 ulp at most with FMA */
#define TANH_F32_BOUND (vm_active()->fma ? 5 : 8) /* the compilation of vmath.c this CPU runs */
ACC_TESTS(tanh, TANH_F32_BOUND, 4,
          R({U, -12, 12}, {U, -1, 1}, {M, -149, 7}),
          R({U, -25, 25}, {U, -1, 1}, {M, -1074, 10}))
ACC_TESTS(erf, 4, 4,
          R({U, -5, 5}, {U, -1.5, 1.5}, {M, -149, 3}),
          R({U, -7, 7}, {U, -1.5, 1.5}, {M, -1074, 3}))
ACC_TESTS(cbrt, 4, 4,
          R({M, -149, 128}, {U, -10, 10}),
          R({M, -1074, 1024}, {U, -10, 10}))

TEST(vmath_logistic_f32_accuracy) {
    static const vr_range rs[] = {{U, -110, 110}, {U, -10, 10}, {M, -149, 7}};
    check_f32("logistic", vm_logistic_f32, ref_logistic, 4, rs, 3);
}
TEST(vmath_logistic_f64_accuracy) {
    static const vr_range rs[] = {{U, -750, 750}, {U, -10, 10}, {M, -1074, 10}};
    check_f64("logistic", vm_logistic_f64, ref_logisticl, 4, rs, 3);
}

/* ---- binary functions ---- */

/* pow inputs: random a with b chosen so that a^b is finite and not tiny,
 * plus plain ranges, negative bases with integer exponents, and a near 1
 * with large exponents. */
static void pow_inputs(double *a, double *b, int64_t n, int f32, uint64_t *st) {
    double emax = f32 ? 127 : 1023, lmax = f32 ? 88 : 709, lmin = f32 ? -103 : -744;
    for (int64_t i = 0; i < n; i++) {
        double av, bv;
        switch (i % 5) {
        case 0: /* any positive a, result in range */
            av = exp2(th_rand_uniform(st, -emax, emax));
            bv = th_rand_uniform(st, lmin, lmax) / log(av);
            break;
        case 1:
            av = th_rand_uniform(st, 0, 10);
            bv = th_rand_uniform(st, -30, 30);
            break;
        case 2: /* negative base, integer exponent */
            av = -th_rand_uniform(st, 0.1, 10);
            bv = floor(th_rand_uniform(st, -40, 40));
            break;
        case 3: /* near 1, large exponent */
            av = 1 + th_rand_uniform(st, -1e-3, 1e-3);
            bv = th_rand_uniform(st, -1e4, 1e4);
            break;
        default: /* small exponents */
            av = exp2(th_rand_uniform(st, -emax, emax));
            bv = th_rand_uniform(st, -1, 1);
            break;
        }
        a[i] = f32 ? (double)(float)av : av;
        b[i] = f32 ? (double)(float)bv : bv;
    }
}

/* atan2 inputs: magnitudes over the whole range, both signs, and pairs of
 * similar size. */
static void atan2_inputs(double *a, double *b, int64_t n, int f32, uint64_t *st) {
    double emax = f32 ? 127 : 1023, emin = f32 ? -149 : -1074;
    for (int64_t i = 0; i < n; i++) {
        double av, bv;
        if (i % 4 == 3) { /* a few ulps of the smallest subnormal */
            double tiny = f32 ? 0x1p-149 : 0x1p-1074;
            av = tiny * (double)(th_rand_u64(st) % 16);
            bv = tiny * (double)(th_rand_u64(st) % 16);
        } else if (i % 3 == 0) {
            av = th_rand_uniform(st, -5, 5);
            bv = th_rand_uniform(st, -5, 5);
        } else if (i % 3 == 1) {
            av = exp2(th_rand_uniform(st, emin, emax));
            bv = exp2(th_rand_uniform(st, emin, emax));
        } else {
            av = exp2(th_rand_uniform(st, emin + 60, emax));
            bv = av * th_rand_uniform(st, 0.3, 3);
        }
        if (th_rand_u64(st) & 1) av = -av;
        if (th_rand_u64(st) & 1) bv = -bv;
        a[i] = f32 ? (double)(float)av : av;
        b[i] = f32 ? (double)(float)bv : bv;
    }
}

/* Special operands crossed with each other (C99 Annex F cases). */
static const double SPECIAL2[] = {
    0.0, -0.0, INFINITY, -INFINITY, NAN, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0,
    3.0, -3.0, 1.5, -1.5, 0x1p-1074, -0x1p-1074, 0x1p60, -0x1p60, 1e300,
    -1e300, 0x1p53, -0x1p53, 0x1p53 + 2, 0x1p52 + 1, -(0x1p52 + 1), 1e-300,
    DBL_MAX, -DBL_MAX, 0.999, 1.001, 1023.5, -1074.5, 0x1p-149, 0x1p24 + 1,
    0x1p23 + 1, -(0x1p23 + 1), 127.5, 128.0, -150.0, FLT_MAX,
    0x1p-1073, 0x1.8p-1073, -0x1.4p-1072, 0x1p-148, 0x1.8p-148, -0x1.4p-147};
#define N_SPECIAL2 ((int)(sizeof SPECIAL2 / sizeof SPECIAL2[0]))

static void check2_f32(const char *name, bin_f32 fn, ref2_d ref, double bound,
                       void (*gen)(double *, double *, int64_t, int, uint64_t *)) {
    int64_t nr = N_RANDOM, n = nr + N_SPECIAL2 * N_SPECIAL2;
    double *ad = malloc((size_t)n * sizeof *ad), *bd = malloc((size_t)n * sizeof *bd);
    float *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
    float *y = malloc((size_t)n * sizeof *y), *z = malloc((size_t)n * sizeof *z);
    uint64_t st = 99 + (uint64_t)name[0];
    gen(ad, bd, nr, 1, &st);
    for (int i = 0; i < N_SPECIAL2; i++)
        for (int j = 0; j < N_SPECIAL2; j++)
            ad[nr + i * N_SPECIAL2 + j] = SPECIAL2[i], bd[nr + i * N_SPECIAL2 + j] = SPECIAL2[j];
    for (int64_t i = 0; i < n; i++) a[i] = (float)ad[i], b[i] = (float)bd[i];
    fn(a, b, y, n);
    memcpy(z, a, (size_t)n * sizeof *z);
    fn(z, b, z, n); /* in place over the first operand */
    double worst = 0;
    float wa = 0, wb = 0;
    int ok = 1;
    for (int64_t i = 0; i < n; i++) {
        double e = err_f32(y[i], ref((double)a[i], (double)b[i]));
        if (!(e <= worst)) worst = e, wa = a[i], wb = b[i];
        if (memcmp(&y[i], &z[i], sizeof y[i]) != 0 && !(isnan(y[i]) && isnan(z[i]))) ok = 0;
    }
    if (verbose())
        printf("    %-10s f32 max %.3f ulp at (%a, %a)\n", name, worst, (double)wa, (double)wb);
    free(ad), free(bd), free(a), free(b), free(y), free(z);
    CHECK_MSG(ok, "%s_f32: in-place result differs", name);
    CHECK_MSG(worst <= bound, "%s_f32: %.3g ulp at (%a, %a), bound %g", name, worst,
              (double)wa, (double)wb, bound);
}

static void check2_f64(const char *name, bin_f64 fn, ref2_ld ref, double bound,
                       void (*gen)(double *, double *, int64_t, int, uint64_t *)) {
    int64_t nr = N_RANDOM, n = nr + N_SPECIAL2 * N_SPECIAL2;
    double *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
    double *y = malloc((size_t)n * sizeof *y), *z = malloc((size_t)n * sizeof *z);
    uint64_t st = 77 + (uint64_t)name[0];
    gen(a, b, nr, 0, &st);
    for (int i = 0; i < N_SPECIAL2; i++)
        for (int j = 0; j < N_SPECIAL2; j++)
            a[nr + i * N_SPECIAL2 + j] = SPECIAL2[i], b[nr + i * N_SPECIAL2 + j] = SPECIAL2[j];
    fn(a, b, y, n);
    memcpy(z, b, (size_t)n * sizeof *z);
    fn(a, z, z, n); /* in place over the second operand */
    double worst = 0, wa = 0, wb = 0;
    int ok = 1;
    for (int64_t i = 0; i < n; i++) {
        double e = err_f64(y[i], ref((long double)a[i], (long double)b[i]));
        if (!(e <= worst)) worst = e, wa = a[i], wb = b[i];
        if (memcmp(&y[i], &z[i], sizeof y[i]) != 0 && !(isnan(y[i]) && isnan(z[i]))) ok = 0;
    }
    if (verbose()) printf("    %-10s f64 max %.3f ulp at (%a, %a)\n", name, worst, wa, wb);
    free(a), free(b), free(y), free(z);
    CHECK_MSG(ok, "%s_f64: in-place result differs", name);
    CHECK_MSG(worst <= bound, "%s_f64: %.3g ulp at (%a, %a), bound %g", name, worst, wa,
              wb, bound);
}

TEST(vmath_pow_f32_accuracy) { check2_f32("pow", vm_pow_f32, pow, 4, pow_inputs); }
TEST(vmath_pow_f64_accuracy) { check2_f64("pow", vm_pow_f64, powl, 4, pow_inputs); }
TEST(vmath_atan2_f32_accuracy) {
    check2_f32("atan2", vm_atan2_f32, atan2, 4, atan2_inputs);
}
TEST(vmath_atan2_f64_accuracy) {
    check2_f64("atan2", vm_atan2_f64, atan2l, 4, atan2_inputs);
}

/* ---- targeted checks ---- */

/* Arguments next to multiples of pi/2, where the reduction cancels most. */
TEST(vmath_trig_near_pio2_multiples) {
    enum { N = 4000 };
    static double x[N], s[N], c[N], t[N];
    static float xf[N], sf[N], cf[N], tf[N];
    uint64_t st = 5;
    for (int i = 0; i < N; i++) {
        double k = floor(th_rand_uniform(&st, 1, i < N / 2 ? 2000 : 600000));
        double v = k * 1.5707963267948966192L;
        x[i] = nextafter(v, (i & 1) ? INFINITY : -INFINITY);
        if (i % 4 == 0) x[i] = v;
        xf[i] = (float)(k * 1.5707963267948966192L);
    }
    vm_sin_f64(x, s, N), vm_cos_f64(x, c, N), vm_tan_f64(x, t, N);
    vm_sin_f32(xf, sf, N), vm_cos_f32(xf, cf, N), vm_tan_f32(xf, tf, N);
    for (int i = 0; i < N; i++) {
        long double xl = x[i];
        CHECK_MSG(err_f64(s[i], sinl(xl)) <= 4, "sin(%a) = %a", x[i], s[i]);
        CHECK_MSG(err_f64(c[i], cosl(xl)) <= 4, "cos(%a) = %a", x[i], c[i]);
        CHECK_MSG(err_f64(t[i], tanl(xl)) <= 4, "tan(%a) = %a", x[i], t[i]);
        CHECK_MSG(err_f32(sf[i], sin(xf[i])) <= 4, "sinf(%a) = %a", (double)xf[i], (double)sf[i]);
        CHECK_MSG(err_f32(cf[i], cos(xf[i])) <= 4, "cosf(%a) = %a", (double)xf[i], (double)cf[i]);
        CHECK_MSG(err_f32(tf[i], tan(xf[i])) <= 4, "tanf(%a) = %a", (double)xf[i], (double)tf[i]);
    }
}

/* Huge arguments go through the libm fix-up; neighbours stay vectorised. */
TEST(vmath_trig_huge_fixup) {
    double x[1100], y[1100];
    float xf[1100], yf[1100];
    for (int i = 0; i < 1100; i++) {
        x[i] = (i % 7 == 3) ? 1e15 + i : 0.001 * i;
        xf[i] = (i % 7 == 3) ? 1e30f : 0.001f * (float)i;
    }
    vm_sin_f64(x, y, 1100);
    vm_cos_f32(xf, yf, 1100);
    for (int i = 0; i < 1100; i++) {
        CHECK_MSG(err_f64(y[i], sinl(x[i])) <= 4, "sin(%a)", x[i]);
        CHECK_MSG(err_f32(yf[i], cos(xf[i])) <= 4, "cosf(%a)", (double)xf[i]);
    }
    vm_tan_f64(x, x, 1100); /* in place with fix-ups */
    CHECK_NEAR(x[3], tan(1e15 + 3), 1e-15, 0);
}

/* Saturation and exact special values named in the interface contract. */
TEST(vmath_special_values) {
    double d[4] = {INFINITY, -INFINITY, 1e4, -1e4}, r[4];
    float f[4] = {INFINITY, -INFINITY, 1e4f, -1e4f}, rf[4];
    vm_logistic_f64(d, r, 4);
    CHECK(r[0] == 1 && r[1] == 0 && r[2] == 1 && r[3] == 0);
    vm_logistic_f32(f, rf, 4);
    CHECK(rf[0] == 1 && rf[1] == 0 && rf[2] == 1 && rf[3] == 0);
    vm_tanh_f64(d, r, 4);
    CHECK(r[0] == 1 && r[1] == -1 && r[2] == 1 && r[3] == -1);
    vm_tanh_f32(f, rf, 4);
    CHECK(rf[0] == 1 && rf[1] == -1 && rf[2] == 1 && rf[3] == -1);
    vm_exp_f64(d, r, 4);
    CHECK(r[0] == INFINITY && r[1] == 0 && r[2] == INFINITY && r[3] == 0);
    vm_exp_f32(f, rf, 4);
    CHECK(rf[0] == INFINITY && rf[1] == 0 && rf[2] == INFINITY && rf[3] == 0);
    vm_erf_f64(d, r, 4);
    CHECK(r[0] == 1 && r[1] == -1 && r[2] == 1 && r[3] == -1);
    vm_sin_f64(d, r, 2);
    CHECK(isnan(r[0]) && isnan(r[1]));
    vm_cos_f32(f, rf, 2);
    CHECK(isnan(rf[0]) && isnan(rf[1]));
    double z[3] = {0.0, -0.0, -1.0};
    vm_log_f64(z, r, 3);
    CHECK(r[0] == -INFINITY && r[1] == -INFINITY && isnan(r[2]));
    vm_log1p_f64(z, r, 3);
    CHECK(r[0] == 0 && !signbit(r[0]) && r[1] == 0 && signbit(r[1]) && r[2] == -INFINITY);
    /* n = 0 and negative n touch nothing */
    r[0] = 42;
    vm_exp_f64(d, r, 0);
    vm_exp_f64(d, r, -5);
    CHECK(r[0] == 42);
}

/* ---- float32 trig: sweeps over the float grid, sincos ---- */

/* Runs sin, cos, tan and sincos on the floats whose bit patterns run from
 * lo to hi (inclusive) in steps of stride, with sign bit sign, and folds
 * into acc the worst errors in ulps against the double libm functions (and
 * where they were seen) and the count of sincos results that differ from
 * sin and cos; trig_sweep_check then holds them to 4 ulp and 0. */
typedef struct {
    double worst[3]; /* sin, cos, tan */
    float at[3];
    int64_t count, sincos_mismatch;
} trig_sweep;

static void trig_sweep_run(trig_sweep *acc, uint32_t lo, uint32_t hi, uint32_t stride,
                           uint32_t sign) {
    enum { CH = 4096 };
    static float x[CH], s[CH], c[CH], t[CH], s2[CH], c2[CH];
    uint64_t b = lo;
    while (b <= hi) {
        int m = 0;
        for (; m < CH && b <= hi; m++, b += stride) {
            uint32_t u = (uint32_t)b | sign;
            memcpy(&x[m], &u, sizeof u);
        }
        vm_sin_f32(x, s, m), vm_cos_f32(x, c, m), vm_tan_f32(x, t, m);
        vm_sincos_f32(x, s2, c2, m);
        for (int i = 0; i < m; i++) {
            double xd = x[i];
            double e[3] = {err_f32(s[i], sin(xd)), err_f32(c[i], cos(xd)),
                           err_f32(t[i], tan(xd))};
            for (int f = 0; f < 3; f++)
                if (!(e[f] <= acc->worst[f])) acc->worst[f] = e[f], acc->at[f] = x[i];
            if (memcmp(&s[i], &s2[i], sizeof s[i]) || memcmp(&c[i], &c2[i], sizeof c[i]))
                acc->sincos_mismatch++;
        }
        acc->count += m;
    }
}

static int trig_sweep_check(const trig_sweep *acc, const char *what) {
    static const char *names[3] = {"sin", "cos", "tan"};
    if (verbose())
        printf("    %s: %lld floats, max %.3f / %.3f / %.3f ulp (sin/cos/tan)\n", what,
               (long long)acc->count, acc->worst[0], acc->worst[1], acc->worst[2]);
    for (int f = 0; f < 3; f++)
        if (!(acc->worst[f] <= 4)) {
            th_fail(__FILE__, __LINE__, "%s_f32 (%s): %.3g ulp at x = %a", names[f], what,
                    acc->worst[f], (double)acc->at[f]);
            return 0;
        }
    if (acc->sincos_mismatch) {
        th_fail(__FILE__, __LINE__, "sincos_f32 (%s): %lld results differ from sin/cos", what,
                (long long)acc->sincos_mismatch);
        return 0;
    }
    return 1;
}

static uint32_t f32_bits(float v) {
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

/* Every float of either sign, at a stride of 1021 bit patterns (the float
 * kernel, the double fix-up beyond 2^19, libm beyond 2^24, inf). */
TEST(vmath_trig_f32_sweep_all) {
    trig_sweep acc = {{0}, {0}, 0, 0};
    trig_sweep_run(&acc, 0, 0x7f800000u, 1021, 0);
    trig_sweep_run(&acc, 0, 0x7f800000u, 1021, 0x80000000u);
    trig_sweep_run(&acc, 0x7f800000u, 0x7f800000u, 1, 0); /* inf itself */
    trig_sweep_run(&acc, 0x7f800000u, 0x7f800000u, 1, 0x80000000u);
    trig_sweep_check(&acc, "all floats / 1021");
}

/* Dense: every 13th float with 2^-4 <= |x| <= 2 pi (below 2^-4 the
 * results are x or 1 to within the polynomials' first terms), and every
 * float within 2^12 ulps of the kernel-range boundaries 2^19 and 2^24. */
TEST(vmath_trig_f32_sweep_dense) {
    trig_sweep acc = {{0}, {0}, 0, 0};
    uint32_t lo = f32_bits(0x1p-4f), hi = f32_bits(6.2831855f);
    trig_sweep_run(&acc, lo, hi, 13, 0);
    trig_sweep_run(&acc, lo, hi, 13, 0x80000000u);
    static const float edges[] = {0x1p19f, 0x1p24f};
    for (int i = 0; i < 2; i++) {
        uint32_t e = f32_bits(edges[i]);
        trig_sweep_run(&acc, e - 4096, e + 4096, 1, 0);
        trig_sweep_run(&acc, e - 4096, e + 4096, 1, 0x80000000u);
    }
    trig_sweep_check(&acc, "dense [-2pi, 2pi] / 13, range edges");
}

/* The floats nearest k pi/2 and their neighbours, where the reduction
 * cancels most: every k up to 2^14, then random k up to 2^24 2/pi. */
TEST(vmath_trig_f32_near_pio2) {
    enum { NK = 16384, NR = 16384, W = 2 };
    trig_sweep acc = {{0}, {0}, 0, 0};
    uint64_t st = 17;
    for (int i = 1; i <= NK + NR; i++) {
        double k = i <= NK ? i : floor(th_rand_uniform(&st, NK, 0x1p24 / 1.5707963267948966));
        float v = (float)(k * 1.5707963267948966192L);
        uint32_t b = f32_bits(v);
        trig_sweep_run(&acc, b - W, b + W, 1, 0);
    }
    trig_sweep_check(&acc, "near k pi/2");
}

/* A lane's result depends on its own argument only: small arguments give
 * the same bits whether or not their block also holds arguments that take
 * the fix-up paths (beyond 2^19, beyond 2^24, inf). */
TEST(vmath_trig_f32_fixup_independent) {
    enum { N = 1500 };
    static float mixed[N], alone[N], ym[N], ya[N], sm[N], cm[N];
    static const float big[] = {1e6f, -3e5f, 1e30f, INFINITY, 0x1.8p19f, -1e8f};
    uint64_t st = 23;
    for (int i = 0; i < N; i++) {
        alone[i] = (float)th_rand_uniform(&st, -20, 20);
        mixed[i] = (i % 7 == 3) ? big[i % 6] : alone[i];
    }
    un_f32 fns[3] = {vm_sin_f32, vm_cos_f32, vm_tan_f32};
    for (int f = 0; f < 3; f++) {
        fns[f](mixed, ym, N), fns[f](alone, ya, N);
        for (int i = 0; i < N; i++) {
            if (i % 7 == 3) continue;
            CHECK_MSG(memcmp(&ym[i], &ya[i], sizeof ym[i]) == 0,
                      "function %d at x = %a: %a next to big arguments, %a without", f,
                      (double)alone[i], (double)ym[i], (double)ya[i]);
        }
    }
    vm_sincos_f32(mixed, sm, cm, N);
    vm_sin_f32(alone, ya, N);
    for (int i = 0; i < N; i++)
        if (i % 7 != 3) CHECK(memcmp(&sm[i], &ya[i], sizeof sm[i]) == 0);
    for (int i = 0; i < N; i++) /* and the big lanes are right */
        if (i % 7 == 3) {
            CHECK_MSG(err_f32(sm[i], sin((double)mixed[i])) <= 4, "sin(%a)", (double)mixed[i]);
            CHECK_MSG(err_f32(cm[i], cos((double)mixed[i])) <= 4, "cos(%a)", (double)mixed[i]);
        }
}

/* sincos: special values (sin keeps the sign of zero), in place over
 * either output, and bit-for-bit agreement with sin and cos. */
TEST(vmath_sincos_special) {
    static const float xf[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN,
                               FLT_TRUE_MIN, -FLT_TRUE_MIN, FLT_MIN, 0x1p-20f,
                               -0x1p-20f, 1.0f, -2.5f, 0x1p19f, 0x1p24f,
                               1e30f, FLT_MAX, -FLT_MAX, 1.5707964f};
    static const double xd[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, -NAN,
                                DBL_TRUE_MIN, -DBL_TRUE_MIN, 0x1p-40, 1.0,
                                -2.5, 0x1p20, 0x1p20 + 1, 1e300, DBL_MAX,
                                1.5707963267948966};
    enum { NF = sizeof xf / sizeof xf[0], ND = sizeof xd / sizeof xd[0] };
    float sf[NF], cf[NF], rf[NF], inpl[NF];
    double sd[ND], cd[ND], rd[ND], inpd[ND];

    vm_sincos_f32(xf, sf, cf, NF);
    CHECK(sf[0] == 0 && !signbit(sf[0]) && sf[1] == 0 && signbit(sf[1]));
    CHECK(cf[0] == 1 && cf[1] == 1);
    for (int i = 2; i < 6; i++) CHECK(isnan(sf[i]) && isnan(cf[i]));
    CHECK(sf[6] == FLT_TRUE_MIN && sf[7] == -FLT_TRUE_MIN && cf[6] == 1);
    vm_sin_f32(xf, rf, NF);
    for (int i = 0; i < NF; i++)
        CHECK_MSG(memcmp(&rf[i], &sf[i], sizeof rf[i]) == 0 || (isnan(rf[i]) && isnan(sf[i])),
                  "sincos_f32 sin(%a)", (double)xf[i]);
    vm_cos_f32(xf, rf, NF);
    for (int i = 0; i < NF; i++)
        CHECK_MSG(memcmp(&rf[i], &cf[i], sizeof rf[i]) == 0 || (isnan(rf[i]) && isnan(cf[i])),
                  "sincos_f32 cos(%a)", (double)xf[i]);
    for (int i = 0; i < NF; i++) {
        CHECK_MSG(err_f32(sf[i], sin((double)xf[i])) <= 4, "sin(%a)", (double)xf[i]);
        CHECK_MSG(err_f32(cf[i], cos((double)xf[i])) <= 4, "cos(%a)", (double)xf[i]);
    }
    memcpy(inpl, xf, sizeof inpl);
    vm_sincos_f32(inpl, inpl, rf, NF); /* s == x */
    for (int i = 0; i < NF; i++)
        CHECK((memcmp(&inpl[i], &sf[i], 4) == 0 && memcmp(&rf[i], &cf[i], 4) == 0) ||
              isnan(xf[i]) || isinf(xf[i]));
    memcpy(inpl, xf, sizeof inpl);
    vm_sincos_f32(inpl, rf, inpl, NF); /* c == x */
    for (int i = 0; i < NF; i++)
        CHECK((memcmp(&rf[i], &sf[i], 4) == 0 && memcmp(&inpl[i], &cf[i], 4) == 0) ||
              isnan(xf[i]) || isinf(xf[i]));

    vm_sincos_f64(xd, sd, cd, ND);
    CHECK(sd[0] == 0 && !signbit(sd[0]) && sd[1] == 0 && signbit(sd[1]));
    CHECK(cd[0] == 1 && cd[1] == 1);
    for (int i = 2; i < 6; i++) CHECK(isnan(sd[i]) && isnan(cd[i]));
    CHECK(sd[6] == DBL_TRUE_MIN && sd[7] == -DBL_TRUE_MIN);
    vm_sin_f64(xd, rd, ND);
    for (int i = 0; i < ND; i++)
        CHECK(memcmp(&rd[i], &sd[i], sizeof rd[i]) == 0 || (isnan(rd[i]) && isnan(sd[i])));
    vm_cos_f64(xd, rd, ND);
    for (int i = 0; i < ND; i++)
        CHECK(memcmp(&rd[i], &cd[i], sizeof rd[i]) == 0 || (isnan(rd[i]) && isnan(cd[i])));
    for (int i = 0; i < ND; i++) {
        CHECK_MSG(err_f64(sd[i], sinl((long double)xd[i])) <= 4, "sin(%a)", xd[i]);
        CHECK_MSG(err_f64(cd[i], cosl((long double)xd[i])) <= 4, "cos(%a)", xd[i]);
    }
    memcpy(inpd, xd, sizeof inpd);
    vm_sincos_f64(inpd, rd, inpd, ND); /* c == x */
    for (int i = 0; i < ND; i++)
        CHECK((memcmp(&rd[i], &sd[i], 8) == 0 && memcmp(&inpd[i], &cd[i], 8) == 0) ||
              isnan(xd[i]) || isinf(xd[i]));

    sf[0] = 42, cf[0] = 43; /* n <= 0 touches nothing */
    vm_sincos_f32(xf, sf, cf, 0);
    vm_sincos_f32(xf, sf, cf, -3);
    CHECK(sf[0] == 42 && cf[0] == 43);
}

/* sincos_f64 on random arguments over the kernel's range and beyond
 * (libm fix-up), against long double references. */
TEST(vmath_sincos_f64_accuracy) {
    enum { N = 6000 };
    static double x[N], s[N], c[N];
    uint64_t st = 31;
    for (int i = 0; i < N; i++) {
        int kind = i % 3;
        x[i] = kind == 0 ? th_rand_uniform(&st, -10, 10)
             : kind == 1 ? th_rand_uniform(&st, -2e6, 2e6)
                         : exp2(th_rand_uniform(&st, -60, 80)) * ((i & 8) ? -1 : 1);
    }
    vm_sincos_f64(x, s, c, N);
    for (int i = 0; i < N; i++) {
        CHECK_MSG(err_f64(s[i], sinl((long double)x[i])) <= 4, "sin(%a) = %a", x[i], s[i]);
        CHECK_MSG(err_f64(c[i], cosl((long double)x[i])) <= 4, "cos(%a) = %a", x[i], c[i]);
    }
}
