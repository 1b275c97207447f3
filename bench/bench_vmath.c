/* bench_vmath.c — times the vm_* elementwise math against plain libm loops.
 *
 * Standalone: for each function, 10^7 elements (float32 by default; pass
 * "f64" for float64, "all" for both, then optionally function names to
 * run only those), buffers touched beforehand and reused, REPS runs of
 * each with vmath and libm alternating. Prints the median ns/element for
 * vmath and for a scalar libm loop, their ratio, the best runs, and a copy
 * loop as the memory-bandwidth floor. "sincos" times vm_sincos against a
 * loop calling sin and cos.
 *
 * Built by CMake as bench_vmath, or by hand:
 *   gcc -O3 -march=native -fno-math-errno -fno-trapping-math -std=c11 \
 *       bench/bench_vmath.c src/runtime/vmath.c -lm
 * Run on an idle machine: the figures are compute-bound where the CPU is
 * shared or throttled (compare the copy line and the libm column). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#endif
#include "runtime/vmath.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench_util.h"

#define N 10000000
#define REPS 9

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static double uniform(double lo, double hi) {
    rng ^= rng >> 12, rng ^= rng << 25, rng ^= rng >> 27;
    return lo + (hi - lo) * (double)((rng * 0x2545F4914F6CDD1Dull) >> 11) * 0x1p-53;
}

/* scalar libm loops, kept out of line so the compiler sees one call each */
#define LIBM_LOOP(T, name, expr)                                          \
    static void __attribute__((noinline)) name(const T *x, T *y, int64_t n) { \
        for (int64_t i = 0; i < n; i++) {                                 \
            T v = x[i];                                                   \
            y[i] = expr;                                                  \
        }                                                                 \
    }
#define LIBM_LOOP2(T, name, expr)                                         \
    static void __attribute__((noinline)) name(const T *a, const T *b, T *y, int64_t n) { \
        for (int64_t i = 0; i < n; i++) {                                 \
            T u = a[i], v = b[i];                                         \
            y[i] = expr;                                                  \
        }                                                                 \
    }

LIBM_LOOP(float, l_exp_f, expf(v))
LIBM_LOOP(float, l_exp2_f, exp2f(v))
LIBM_LOOP(float, l_log_f, logf(v))
LIBM_LOOP(float, l_log1p_f, log1pf(v))
LIBM_LOOP(float, l_expm1_f, expm1f(v))
LIBM_LOOP(float, l_sin_f, sinf(v))
LIBM_LOOP(float, l_cos_f, cosf(v))
LIBM_LOOP(float, l_tan_f, tanf(v))
LIBM_LOOP(float, l_asin_f, asinf(v))
LIBM_LOOP(float, l_acos_f, acosf(v))
LIBM_LOOP(float, l_atan_f, atanf(v))
LIBM_LOOP(float, l_sinh_f, sinhf(v))
LIBM_LOOP(float, l_cosh_f, coshf(v))
LIBM_LOOP(float, l_tanh_f, tanhf(v))
LIBM_LOOP(float, l_logistic_f, 1.0f / (1.0f + expf(-v)))
LIBM_LOOP(float, l_erf_f, erff(v))
LIBM_LOOP(float, l_cbrt_f, cbrtf(v))
LIBM_LOOP(float, l_copy_f, v)
LIBM_LOOP2(float, l_pow_f, powf(u, v))
/* sin and cos of one argument into two outputs */
#define LIBM_SINCOS(T, name, s_expr, c_expr)                               \
    static void __attribute__((noinline)) name(const T *x, T *s, T *c, int64_t n) { \
        for (int64_t i = 0; i < n; i++) {                                 \
            T v = x[i];                                                   \
            s[i] = s_expr;                                                \
            c[i] = c_expr;                                                \
        }                                                                 \
    }
LIBM_SINCOS(float, l_sincos_f, sinf(v), cosf(v))
LIBM_SINCOS(double, l_sincos_d, sin(v), cos(v))
LIBM_LOOP2(float, l_atan2_f, atan2f(u, v))

LIBM_LOOP(double, l_exp_d, exp(v))
LIBM_LOOP(double, l_exp2_d, exp2(v))
LIBM_LOOP(double, l_log_d, log(v))
LIBM_LOOP(double, l_log1p_d, log1p(v))
LIBM_LOOP(double, l_expm1_d, expm1(v))
LIBM_LOOP(double, l_sin_d, sin(v))
LIBM_LOOP(double, l_cos_d, cos(v))
LIBM_LOOP(double, l_tan_d, tan(v))
LIBM_LOOP(double, l_asin_d, asin(v))
LIBM_LOOP(double, l_acos_d, acos(v))
LIBM_LOOP(double, l_atan_d, atan(v))
LIBM_LOOP(double, l_sinh_d, sinh(v))
LIBM_LOOP(double, l_cosh_d, cosh(v))
LIBM_LOOP(double, l_tanh_d, tanh(v))
LIBM_LOOP(double, l_logistic_d, 1.0 / (1.0 + exp(-v)))
LIBM_LOOP(double, l_erf_d, erf(v))
LIBM_LOOP(double, l_cbrt_d, cbrt(v))
LIBM_LOOP(double, l_copy_d, v)
LIBM_LOOP2(double, l_pow_d, pow(u, v))
LIBM_LOOP2(double, l_atan2_d, atan2(u, v))

typedef void (*un_f)(const float *, float *, int64_t);
typedef void (*un_d)(const double *, double *, int64_t);
typedef void (*bin_f)(const float *, const float *, float *, int64_t);
typedef void (*bin_d)(const double *, const double *, double *, int64_t);
typedef void (*sc_f)(const float *, float *, float *, int64_t);
typedef void (*sc_d)(const double *, double *, double *, int64_t);

typedef struct {
    const char *name;
    un_f vf, lf;
    un_d vd, ld;
    bin_f vf2, lf2;
    bin_d vd2, ld2;
    double lo, hi, lo2, hi2; /* input ranges (second operand for binaries) */
    sc_f vf3, lf3;           /* two outputs (sincos) */
    sc_d vd3, ld3;
} bench_case;

#define UN(n, lo, hi) \
    {#n, vm_##n##_f32, l_##n##_f, vm_##n##_f64, l_##n##_d, 0, 0, 0, 0, lo, hi, 0, 0, 0, 0, 0, 0}
#define BIN(n, lo, hi, lo2, hi2) \
    {#n, 0, 0, 0, 0, vm_##n##_f32, l_##n##_f, vm_##n##_f64, l_##n##_d, lo, hi, lo2, hi2, 0, 0, 0, 0}
#define SC(n, lo, hi) \
    {#n, 0, 0, 0, 0, 0, 0, 0, 0, lo, hi, 0, 0, vm_##n##_f32, l_##n##_f, vm_##n##_f64, l_##n##_d}

static const bench_case CASES[] = {
    UN(exp, -80, 80),      UN(exp2, -120, 120),   UN(log, 1e-30, 1e30),
    UN(log1p, -0.9, 100),  UN(expm1, -10, 10),    UN(sin, -100, 100),
    UN(cos, -100, 100),    UN(tan, -100, 100),    SC(sincos, -100, 100),
    UN(asin, -1, 1),
    UN(acos, -1, 1),       UN(atan, -50, 50),     UN(sinh, -20, 20),
    UN(cosh, -20, 20),     UN(tanh, -10, 10),     UN(logistic, -20, 20),
    UN(erf, -4, 4),        UN(cbrt, -1e6, 1e6),   BIN(pow, 0.01, 10, -8, 8),
    BIN(atan2, -10, 10, -10, 10),
};

static double best_time(void (*run)(void *), void *arg) {
    double best = 1e30;
    for (int r = 0; r < REPS; r++) {
        double t0 = now();
        run(arg);
        double t = now() - t0;
        if (t < best) best = t;
    }
    return best;
}

static float *xa_f, *xb_f, *y_f;
static double *xa_d, *xb_d, *y_d;
static const bench_case *cur;
static int use_vm;

/* sincos writes its second output over xb, which it does not read */
static void run_f32(void *unused) {
    (void)unused;
    if (cur->vf) (use_vm ? cur->vf : cur->lf)(xa_f, y_f, N);
    else if (cur->vf2) (use_vm ? cur->vf2 : cur->lf2)(xa_f, xb_f, y_f, N);
    else (use_vm ? cur->vf3 : cur->lf3)(xa_f, y_f, xb_f, N);
}
static void run_f64(void *unused) {
    (void)unused;
    if (cur->vd) (use_vm ? cur->vd : cur->ld)(xa_d, y_d, N);
    else if (cur->vd2) (use_vm ? cur->vd2 : cur->ld2)(xa_d, xb_d, y_d, N);
    else (use_vm ? cur->vd3 : cur->ld3)(xa_d, y_d, xb_d, N);
}
static void copy_f32(void *u) { (void)u; l_copy_f(xa_f, y_f, N); }
static void copy_f64(void *u) { (void)u; l_copy_d(xa_d, y_d, N); }

static void fill(int f64, const bench_case *c) {
    for (int64_t i = 0; i < N; i++) {
        double a = c->lo > 0 ? exp(uniform(log(c->lo), log(c->hi))) : uniform(c->lo, c->hi);
        double b = uniform(c->lo2, c->hi2);
        if (f64) xa_d[i] = a, xb_d[i] = b;
        else xa_f[i] = (float)a, xb_f[i] = (float)b;
    }
}

static int n_only;
static char **only;

static int selected(const char *name) {
    if (n_only == 0) return 1;
    for (int i = 0; i < n_only; i++)
        if (strcmp(only[i], name) == 0) return 1;
    return 0;
}

static void bench(int f64) {
    printf("%s, %d elements, %d runs each, vmath and libm alternating\n",
           f64 ? "float64" : "float32", N, REPS);
    double tc = best_time(f64 ? copy_f64 : copy_f32, 0);
    printf("  %-9s %8.3f ns/elem  (copy loop: read + write, the bandwidth floor)\n", "copy",
           tc / N * 1e9);
    printf("  %-9s %8s %8s %8s   %s\n", "function", "vmath", "libm", "speedup",
           "(medians, ns/elem; best vmath, libm)");
    for (size_t k = 0; k < sizeof CASES / sizeof CASES[0]; k++) {
        cur = &CASES[k];
        if (!selected(cur->name)) continue;
        fill(f64, cur);
        double tv[REPS], tl[REPS];
        for (int r = 0; r < REPS; r++) {
            use_vm = 1;
            double t0 = now();
            (f64 ? run_f64 : run_f32)(0);
            tv[r] = now() - t0;
            use_vm = 0;
            t0 = now();
            (f64 ? run_f64 : run_f32)(0);
            tl[r] = now() - t0;
        }
        qsort(tv, REPS, sizeof tv[0], cmp_double);
        qsort(tl, REPS, sizeof tl[0], cmp_double);
        double mv = tv[REPS / 2], ml = tl[REPS / 2];
        printf("  %-9s %8.3f %8.3f %7.1fx   (%.3f, %.3f)\n", cur->name, mv / N * 1e9,
               ml / N * 1e9, ml / mv, tv[0] / N * 1e9, tl[0] / N * 1e9);
        fflush(stdout);
    }
}

int main(int argc, char **argv) {
    int do32 = 1, do64 = 0;
    if (argc > 1 && strcmp(argv[1], "f64") == 0) do32 = 0, do64 = 1;
    if (argc > 1 && strcmp(argv[1], "all") == 0) do64 = 1;
    if (argc > 2) n_only = argc - 2, only = argv + 2;
    xa_f = malloc(N * sizeof *xa_f), xb_f = malloc(N * sizeof *xb_f), y_f = malloc(N * sizeof *y_f);
    xa_d = malloc(N * sizeof *xa_d), xb_d = malloc(N * sizeof *xb_d), y_d = malloc(N * sizeof *y_d);
    if (!xa_f || !xb_f || !y_f || !xa_d || !xb_d || !y_d) return 1;
    memset(y_f, 0, N * sizeof *y_f), memset(y_d, 0, N * sizeof *y_d); /* first touch */
    memset(xa_f, 0, N * sizeof *xa_f), memset(xa_d, 0, N * sizeof *xa_d);
    if (do32) bench(0);
    if (do64) bench(1);
    return 0;
}
