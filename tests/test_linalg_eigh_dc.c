/* test_linalg_eigh_dc.c — the tridiagonal divide-and-conquer eigensolver
 * (src/runtime/linalg_tridiag_dc_impl.h, taken by eigh from
 * rt_eigh_dc_min() up) against the QL + inverse-iteration path on the same
 * matrices (rt_eigh_set_dc_min(huge)), closed forms, and the two
 * properties that matter, f32 and f64: ‖AV − VΛ‖/‖A‖ and ‖VᵀV − I‖ within
 * C·n·eps (LAPACK's bound for stedc), both computed in long double with
 * plain loops.
 *
 * Sizes put the leaves (32 rows) and merges at every depth: 33 (one merge
 * of 16 + 17), 64, 100 (uneven halves), 257. Spectra: random dense; the
 * 1-2-1 Toeplitz tridiagonal (λ_k = 2 + 2cos(kπ/(n+1)), little
 * deflation); Q diag(λ) Qᵀ with λ clustered (groups of eight 1e-9·‖A‖
 * apart: the Gu–Eisenstat z is what keeps their vectors orthogonal),
 * graded (λ_i = 10^(-12 i/n) with alternating signs), repeated (four
 * values, each many times: nearly everything deflates by rotation);
 * Wilkinson's W⁺ (tridiagonal, pairs agreeing to many digits); a
 * tridiagonal with zero off-diagonals (split into blocks first); the zero
 * matrix. That the setting reaches the kernel is seen in the vectors'
 * bits: the two paths round differently. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "runtime/linalg_kernels.h"

static double dc_rand(uint64_t *s) {
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) / 9007199254740992.0 * 2 - 1;
}

enum { DC_RANDOM, DC_TOEPLITZ, DC_CLUSTERED, DC_GRADED, DC_REPEATED, DC_WILKINSON, DC_SPLIT, DC_ZERO, DC_KINDS };
static const char *const dc_name[] = {"random", "1-2-1", "clustered", "graded", "repeated", "wilkinson", "split", "zero"};

/* Q diag(lam) Qᵀ into a, Q three random reflections (long double). */
static void dc_rotate(double *a, const double *lam, int64_t n, uint64_t *seed) {
    long double *q = malloc(sizeof(long double) * (size_t)(n * n));
    double *u = malloc(sizeof(double) * (size_t)n);
    for (int64_t i = 0; i < n * n; i++) q[i] = i / n == i % n;
    for (int r = 0; r < 3; r++) {
        long double uu = 0;
        for (int64_t i = 0; i < n; i++) u[i] = dc_rand(seed), uu += (long double)u[i] * u[i];
        for (int64_t i = 0; i < n; i++) {
            long double s = 0;
            for (int64_t j = 0; j < n; j++) s += q[i * n + j] * u[j];
            for (int64_t j = 0; j < n; j++) q[i * n + j] -= 2 * s * u[j] / uu;
        }
    }
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j <= i; j++) {
            long double s = 0;
            for (int64_t p = 0; p < n; p++) s += q[i * n + p] * lam[p] * q[j * n + p];
            a[i * n + j] = a[j * n + i] = (double)s;
        }
    free(q), free(u);
}

static int dc_cmp(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* a (n × n) of the kind; lam its eigenvalues ascending when known (1). */
static int dc_matrix(double *a, double *lam, int64_t n, int kind, uint64_t *seed) {
    memset(a, 0, sizeof(double) * (size_t)(n * n));
    switch (kind) {
    case DC_RANDOM:
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j <= i; j++) a[i * n + j] = a[j * n + i] = dc_rand(seed);
        return 0;
    case DC_TOEPLITZ:
        for (int64_t i = 0; i < n; i++) {
            a[i * n + i] = 2;
            if (i + 1 < n) a[i * n + i + 1] = a[(i + 1) * n + i] = 1;
        }
        for (int64_t k = 0; k < n; k++) lam[k] = 2 + 2 * cos((double)(n - k) * 3.14159265358979323846 / (double)(n + 1));
        return 1;
    case DC_WILKINSON: /* W⁺: d_i = |i - (n-1)/2|, e = 1 */
        for (int64_t i = 0; i < n; i++) {
            a[i * n + i] = fabs((double)i - (double)(n - 1) / 2);
            if (i + 1 < n) a[i * n + i + 1] = a[(i + 1) * n + i] = 1;
        }
        return 0;
    case DC_SPLIT: /* tridiagonal, every 7th off-diagonal zero */
        for (int64_t i = 0; i < n; i++) {
            a[i * n + i] = dc_rand(seed);
            if (i + 1 < n && i % 7 != 6) a[i * n + i + 1] = a[(i + 1) * n + i] = dc_rand(seed);
        }
        return 0;
    case DC_ZERO:
        for (int64_t i = 0; i < n; i++) lam[i] = 0;
        return 1;
    default:
        break;
    }
    for (int64_t i = 0; i < n; i++) {
        if (kind == DC_CLUSTERED) lam[i] = -1 + 2 * (double)(i / 8) / (double)(n / 8 + 1) + 1e-9 * (double)(i % 8);
        else if (kind == DC_GRADED) lam[i] = (i % 2 ? -1 : 1) * pow(10, -12 * (double)i / (double)n);
        else lam[i] = (double)(i % 4) - 1.5; /* repeated */
    }
    qsort(lam, (size_t)n, sizeof(double), dc_cmp);
    dc_rotate(a, lam, n, seed);
    return 1;
}

typedef struct {
    double *v, *w;
    uint32_t bits;
} dc_out;

/* eigh of a (f32 or f64) with divide and conquer on or off. */
static dc_out dc_run(const double *a, int64_t n, int f64, int dc) {
    size_t nn = (size_t)(n * n), es = f64 ? sizeof(double) : sizeof(float);
    dc_out o = {malloc(sizeof(double) * nn), malloc(sizeof(double) * (size_t)n), 2166136261u};
    void *ax = malloc(es * nn), *vx = malloc(es * nn), *wx = malloc(es * (size_t)n);
    rt_eigh_set_dc_min(dc ? 0 : INT64_MAX);
    void *work = malloc(es * (size_t)rt_eigh_work(n));
    for (size_t i = 0; i < nn; i++)
        if (f64) ((double *)ax)[i] = a[i];
        else ((float *)ax)[i] = (float)a[i];
    if (f64) rt_eigh_f64(1, n, ax, vx, wx, work);
    else rt_eigh_f32(1, n, ax, vx, wx, work);
    rt_eigh_set_dc_min(-1);
    const unsigned char *b = vx;
    for (size_t i = 0; i < es * nn; i++) o.bits = (o.bits ^ b[i]) * 16777619u;
    for (size_t i = 0; i < nn; i++) o.v[i] = f64 ? ((double *)vx)[i] : ((float *)vx)[i];
    for (int64_t i = 0; i < n; i++) o.w[i] = f64 ? ((double *)wx)[i] : ((float *)wx)[i];
    free(ax), free(vx), free(wx), free(work);
    return o;
}

/* max |A V − V Λ| / ‖A‖ and max |VᵀV − I| in long double. */
static void dc_errors(const double *a, int64_t n, dc_out o, double *rec, double *orth) {
    double norm = 1e-300;
    for (int64_t i = 0; i < n * n; i++) norm = fmax(norm, fabs(a[i]));
    *rec = *orth = 0;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) {
            long double av = 0, vv = 0;
            for (int64_t p = 0; p < n; p++)
                av += (long double)a[i * n + p] * o.v[p * n + j], vv += (long double)o.v[p * n + i] * o.v[p * n + j];
            *rec = fmax(*rec, (double)fabsl(av - (long double)o.v[i * n + j] * o.w[j]) / norm);
            *orth = fmax(*orth, (double)fabsl(vv - (i == j)));
        }
}

static void dc_case(int64_t n, int kind, int f64, uint64_t *seed) {
    double *a = malloc(sizeof(double) * (size_t)(n * n)), *lam = malloc(sizeof(double) * (size_t)n);
    int known = dc_matrix(a, lam, n, kind, seed);
    if (!f64)
        for (int64_t i = 0; i < n * n; i++) a[i] = (float)a[i];
    double eps = f64 ? 2.220446049250313e-16 : 1.1920929e-07, tol = 8 * (double)n * eps, norm = 0;
    for (int64_t i = 0; i < n * n; i++) norm = fmax(norm, fabs(a[i]));
    dc_out d = dc_run(a, n, f64, 1), q = dc_run(a, n, f64, 0);
    double rec, orth, rec_q, orth_q, dw = 0, dl = 0;
    dc_errors(a, n, d, &rec, &orth);
    dc_errors(a, n, q, &rec_q, &orth_q);
    int asc = 1;
    for (int64_t i = 0; i < n; i++) {
        dw = fmax(dw, fabs(d.w[i] - q.w[i]));
        if (known) dl = fmax(dl, fabs(d.w[i] - lam[i]));
        if (i > 0) asc &= d.w[i] >= d.w[i - 1];
    }
    /* Weyl: both paths are backward stable, their eigenvalues agree to tol·‖A‖ */
    int differ = kind == DC_ZERO || d.bits != q.bits; /* zero: V = I either way */
    int ok = asc && rec <= tol && orth <= tol && dw <= tol * fmax(norm, 1e-300) && dl <= tol * fmax(norm, 1e-300) &&
             differ;
    CHECK_MSG(ok,
              "eigh d&c %s n=%lld %s: |AV-VΛ|/|A| %.2g (QL %.2g) |VᵀV-I| %.2g (QL %.2g) |Δw|/|A| %.2g |w-λ|/|A| %.2g "
              "(tol %.2g) ascending %d bits differ %d",
              f64 ? "f64" : "f32", (long long)n, dc_name[kind], rec, rec_q, orth, orth_q, dw / norm, dl / norm, tol, asc,
              differ);
    free(d.v), free(d.w), free(q.v), free(q.w), free(a), free(lam);
}

TEST(linalg_eigh_dc_matches_ql_and_closed_forms) {
    uint64_t seed = 0x5eed16u;
    const int64_t ns[] = {33, 64, 100};
    for (int f64 = 0; f64 < 2; f64++)
        for (size_t s = 0; s < sizeof ns / sizeof ns[0]; s++)
            for (int kind = 0; kind < DC_KINDS; kind++) {
                dc_case(ns[s], kind, f64, &seed);
                if (th_failed_now()) return;
            }
}

/* Three merge levels above the leaves, the hard spectra. */
TEST(linalg_eigh_dc_hard_spectra_n257) {
    uint64_t seed = 257;
    const int kinds[] = {DC_RANDOM, DC_CLUSTERED, DC_GRADED, DC_REPEATED, DC_WILKINSON};
    for (int f64 = 0; f64 < 2; f64++)
        for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
            dc_case(257, kinds[k], f64, &seed);
            if (th_failed_now()) return;
        }
}

/* The default takes divide and conquer above a measured size; the
 * setting's negative value restores it; the work size follows it. */
TEST(linalg_eigh_dc_setting) {
    rt_eigh_set_dc_min(-1);
    int64_t def = rt_eigh_dc_min();
    CHECK(def > rt_eigh_jacobi_max() && def <= 256);
    int64_t with = rt_eigh_work(300);
    rt_eigh_set_dc_min(INT64_MAX);
    int64_t without = rt_eigh_work(300);
    rt_eigh_set_dc_min(-1);
    CHECK_MSG(rt_linalg_use_lapack(300) || with >= without + 2 * 300 * 300, "work %lld with d&c, %lld without",
              (long long)with, (long long)without);
    CHECK(rt_eigh_dc_min() == def);
}
