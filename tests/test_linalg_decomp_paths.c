/* test_linalg_decomp_paths.c — the decomposition kernels' paths against
 * each other and against the identities they must satisfy (runtime layer:
 * src/runtime/linalg_eigh.c with linalg_tridiag_impl.h, linalg_svd.c,
 * linalg_qr.c).
 *
 * eigh has two built-in paths (cyclic Jacobi for small n, Householder
 * tridiagonalisation + QL + inverse iteration above; rt_eigh_set_jacobi_max
 * forces either) and LAPACK's syevd when the build has it (rt_linalg_set_path
 * forces it). Every path must give A V = V Λ and Vᵀ V = I to a few n·eps,
 * computed here in long double with plain loops, and eigenvalues that agree
 * across paths to n·eps·‖A‖ (Weyl: eigenvalues are perfectly conditioned,
 * whatever the gaps). The matrices are the hard cases of a tridiagonal
 * solver as well as random ones: repeated and clustered eigenvalues (the
 * inverse iteration's orthogonalisation), a diagonal matrix (every
 * off-diagonal negligible: blocks of one), the zero matrix, graded
 * eigenvalues over 12 decades, and Wilkinson's W21+ (pairs equal to 15
 * digits). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "runtime/linalg_kernels.h"

static double dp_rand(uint64_t *s) {
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) / 9007199254740992.0 * 2 - 1;
}

/* Q diag(d) Qᵀ with Q a product of three random reflections. */
static void from_spectrum(double *a, const double *d, int64_t n, uint64_t *seed) {
    double *q = malloc(sizeof(double) * (size_t)(n * n)), *u = malloc(sizeof(double) * (size_t)n);
    for (int64_t i = 0; i < n * n; i++) q[i] = i / n == i % n;
    for (int r = 0; r < 3; r++) {
        double uu = 0;
        for (int64_t i = 0; i < n; i++) u[i] = dp_rand(seed), uu += u[i] * u[i];
        for (int64_t i = 0; i < n; i++) { /* q = q (I - 2 u uᵀ / uᵀu) */
            double s = 0;
            for (int64_t j = 0; j < n; j++) s += q[i * n + j] * u[j];
            for (int64_t j = 0; j < n; j++) q[i * n + j] -= 2 * s * u[j] / uu;
        }
    }
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) {
            long double s = 0;
            for (int64_t p = 0; p < n; p++) s += (long double)q[i * n + p] * d[p] * q[j * n + p];
            a[i * n + j] = (double)s;
        }
    for (int64_t i = 0; i < n; i++) /* exactly symmetric */
        for (int64_t j = 0; j < i; j++) a[j * n + i] = a[i * n + j];
    free(q), free(u);
}

enum { K_RANDOM, K_REPEATED, K_DIAGONAL, K_ZERO, K_GRADED, K_WILKINSON, K_COUNT };
static const char *const kind_name[] = {"random", "repeated", "diagonal", "zero", "graded", "wilkinson"};

static void make_sym(double *a, int64_t n, int kind, uint64_t *seed) {
    double *d = malloc(sizeof(double) * (size_t)n);
    memset(a, 0, sizeof(double) * (size_t)(n * n));
    switch (kind) {
    case K_RANDOM:
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j <= i; j++) a[i * n + j] = a[j * n + i] = dp_rand(seed);
        break;
    case K_REPEATED: /* three values, each many times, and a tight cluster */
        for (int64_t i = 0; i < n; i++) d[i] = i % 4 == 3 ? 2 + 1e-9 * (double)i : (double)(i % 3) - 1;
        from_spectrum(a, d, n, seed);
        break;
    case K_DIAGONAL:
        for (int64_t i = 0; i < n; i++) a[i * n + i] = dp_rand(seed) * 4;
        break;
    case K_ZERO:
        break;
    case K_GRADED:
        for (int64_t i = 0; i < n; i++) d[i] = pow(10, -12 * (double)i / (double)n) * (i % 2 ? -1 : 1);
        from_spectrum(a, d, n, seed);
        break;
    case K_WILKINSON: /* W+: diagonal |i - m|, off-diagonal ones */
        for (int64_t i = 0; i < n; i++) {
            a[i * n + i] = fabs((double)i - (double)(n - 1) / 2);
            if (i + 1 < n) a[i * n + i + 1] = a[(i + 1) * n + i] = 1;
        }
        break;
    }
    free(d);
}

/* max |A V - V Λ| / ‖A‖ and max |Vᵀ V - I| in long double; -1 when w is
 * not ascending. */
static void eigh_errors(const double *a, const double *v, const double *w, int64_t n, double *rec, double *orth) {
    double norm = 1e-300;
    for (int64_t i = 0; i < n * n; i++) norm = fmax(norm, fabs(a[i]));
    *rec = *orth = 0;
    for (int64_t j = 1; j < n; j++)
        if (w[j - 1] > w[j]) *rec = *orth = -1;
    if (*rec < 0) return;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) {
            long double av = 0, vv = 0;
            for (int64_t p = 0; p < n; p++)
                av += (long double)a[i * n + p] * v[p * n + j], vv += (long double)v[p * n + i] * v[p * n + j];
            *rec = fmax(*rec, (double)fabsl(av - (long double)v[i * n + j] * w[j]) / norm);
            *orth = fmax(*orth, (double)fabsl(vv - (i == j)));
        }
}

/* One path on a in f64 and f32: errors against the identities, the
 * eigenvalues into w64 (f64 run) for the comparison across paths. */
static void run_eigh(const double *a, int64_t n, double *w64, double *errs) {
    size_t nn = (size_t)(n * n);
    double *v = malloc(sizeof(double) * nn), *work = malloc(sizeof(double) * (size_t)rt_eigh_work(n));
    rt_eigh_f64(1, n, a, v, w64, work);
    eigh_errors(a, v, w64, n, &errs[0], &errs[1]);
    float *af = malloc(sizeof(float) * nn), *vf = malloc(sizeof(float) * nn), *wf = malloc(sizeof(float) * (size_t)n);
    float *workf = malloc(sizeof(float) * (size_t)rt_eigh_work(n));
    double *ar = malloc(sizeof(double) * nn), *wr = malloc(sizeof(double) * (size_t)n);
    for (size_t i = 0; i < nn; i++) af[i] = (float)a[i], ar[i] = af[i];
    rt_eigh_f32(1, n, af, vf, wf, workf);
    for (size_t i = 0; i < nn; i++) v[i] = vf[i];
    for (int64_t i = 0; i < n; i++) wr[i] = wf[i];
    eigh_errors(ar, v, wr, n, &errs[2], &errs[3]);
    free(v), free(work), free(af), free(vf), free(wf), free(workf), free(ar), free(wr);
}

TEST(linalg_eigh_paths_agree_on_hard_spectra) {
    static const int64_t sizes[] = {9, 21, 64, 65, 130, 300};
    uint64_t seed = 7;
    /* paths: 0 Jacobi, 1 tridiagonal, 2 LAPACK (when built with it) */
    int n_paths = rt_linalg_have_lapack() ? 3 : 2;
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (int kind = 0; kind < K_COUNT; kind++) {
            int64_t n = sizes[s];
            if (n == 300 && kind != K_RANDOM && kind != K_REPEATED) continue; /* the long-double checks are n³ */
            double *a = malloc(sizeof(double) * (size_t)(n * n)), *w[3];
            make_sym(a, n, kind, &seed);
            for (int p = 0; p < n_paths; p++) {
                w[p] = malloc(sizeof(double) * (size_t)n);
                rt_eigh_set_jacobi_max(p == 0 ? 1 << 30 : 2);
                rt_linalg_set_path(p == 2 ? RT_LINALG_LAPACK : RT_LINALG_BUILTIN);
                double e[4];
                run_eigh(a, n, w[p], e);
                double tol64 = 16 * (double)n * 2.2e-16, tol32 = 16 * (double)n * 1.2e-7;
                CHECK_MSG(e[0] >= 0 && e[0] <= tol64 && e[1] <= tol64 && e[2] >= 0 && e[2] <= tol32 && e[3] <= tol32,
                          "eigh path %d %s n=%lld: f64 |AV-VΛ|/|A| %g |VᵀV-I| %g; f32 %g %g", p, kind_name[kind],
                          (long long)n, e[0], e[1], e[2], e[3]);
                if (getenv("CJAX_TEST_VERBOSE"))
                    printf("path %d %-9s n=%3lld  f64 %.1e %.1e  f32 %.1e %.1e\n", p, kind_name[kind], (long long)n,
                           e[0] / tol64, e[1] / tol64, e[2] / tol32, e[3] / tol32);
                if (p > 0) {
                    double dw = 0, wn = 1e-300;
                    for (int64_t i = 0; i < n; i++) wn = fmax(wn, fabs(w[0][i]));
                    for (int64_t i = 0; i < n; i++) dw = fmax(dw, fabs(w[p][i] - w[0][i]));
                    CHECK_MSG(dw <= 16 * (double)n * 2.2e-16 * wn, "eigh path %d vs Jacobi, %s n=%lld: |Δw| %g", p,
                              kind_name[kind], (long long)n, dw);
                }
            }
            rt_eigh_set_jacobi_max(-1);
            rt_linalg_set_path(RT_LINALG_AUTO);
            for (int p = 0; p < n_paths; p++) free(w[p]);
            free(a);
        }
}

/* A batch mixes nothing: each matrix of a batch of 40 × 12 gives what it
 * gives alone (the batch runs over the pool, a matrix at a time). */
TEST(linalg_eigh_tridiagonal_batch_matches_single) {
    enum { B = 40, N = 12 };
    uint64_t seed = 99;
    double *a = malloc(sizeof(double) * B * N * N), *v = malloc(sizeof(double) * B * N * N);
    double *w = malloc(sizeof(double) * B * N), *work = malloc(sizeof(double) * B * (size_t)rt_eigh_work(N));
    double v1[N * N], w1[N];
    for (int b = 0; b < B; b++) make_sym(a + b * N * N, N, K_RANDOM, &seed);
    rt_eigh_set_jacobi_max(2);
    rt_eigh_f64(B, N, a, v, w, work);
    for (int b = 0; b < B; b++) {
        rt_eigh_f64(1, N, a + b * N * N, v1, w1, work);
        CHECK(memcmp(v1, v + b * N * N, sizeof v1) == 0 && memcmp(w1, w + b * N, sizeof w1) == 0);
    }
    rt_eigh_set_jacobi_max(-1);
    free(a), free(v), free(w), free(work);
}
