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

/* ---- svd ---------------------------------------------------------------- */

enum { SV_RANDOM, SV_REPEATED, SV_GRADED, SV_RANK_DEFICIENT, SV_COUNT };
static const char *const sv_name[] = {"random", "repeated", "graded", "rank-deficient"};

/* An m×n matrix: random, or U diag(σ) Vᵀ from the eigenvectors of two
 * random symmetric matrices (computed by the kernel under test's sibling,
 * eigh, whose own tests stand apart) with chosen σ. */
static void make_rect(double *a, int64_t m, int64_t n, int kind, uint64_t *seed) {
    if (kind == SV_RANDOM) {
        for (int64_t i = 0; i < m * n; i++) a[i] = dp_rand(seed);
        return;
    }
    int64_t r = m < n ? m : n;
    double *qm = malloc(sizeof(double) * (size_t)(m * m)), *qn = malloc(sizeof(double) * (size_t)(n * n));
    double *d = malloc(sizeof(double) * (size_t)(m > n ? m : n)), *sg = malloc(sizeof(double) * (size_t)r);
    for (int64_t i = 0; i < (m > n ? m : n); i++) d[i] = (double)i + 1; /* spectrum irrelevant: only Q is used */
    make_sym(qm, m, K_RANDOM, seed), make_sym(qn, n, K_RANDOM, seed);
    double *sm = malloc(sizeof(double) * (size_t)(m * m)), *sn = malloc(sizeof(double) * (size_t)(n * n));
    memcpy(sm, qm, sizeof(double) * (size_t)(m * m)), memcpy(sn, qn, sizeof(double) * (size_t)(n * n));
    double *w = malloc(sizeof(double) * (size_t)(m > n ? m : n));
    double *work = malloc(sizeof(double) * (size_t)rt_eigh_work(m > n ? m : n));
    rt_eigh_f64(1, m, sm, qm, w, work), rt_eigh_f64(1, n, sn, qn, w, work);
    for (int64_t t = 0; t < r; t++)
        sg[t] = kind == SV_REPEATED ? (double)(1 + t % 3)
                : kind == SV_GRADED ? pow(10, -12 * (double)t / (double)r)
                                    : (t < r / 2 ? 1 + (double)t : 0);
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            long double s = 0;
            for (int64_t t = 0; t < r; t++) s += (long double)qm[i * m + t] * sg[t] * qn[j * n + t];
            a[i * n + j] = (double)s;
        }
    free(qm), free(qn), free(d), free(sg), free(sm), free(sn), free(w), free(work);
}

/* max |A - U S Vt| / ‖A‖ and max of |UᵀU - I|, |Vt Vtᵀ - I|, long double;
 * -1 when s is not descending and non-negative. */
static void svd_errors(const double *a, int64_t m, int64_t n, int full, const double *u, const double *s,
                       const double *vt, double *rec, double *orth) {
    int64_t r = m < n ? m : n, uc = full ? m : r, vr = full ? n : r;
    double norm = 1e-300;
    for (int64_t i = 0; i < m * n; i++) norm = fmax(norm, fabs(a[i]));
    *rec = *orth = 0;
    for (int64_t t = 0; t < r; t++)
        if (s[t] < 0 || (t && s[t] > s[t - 1])) *rec = *orth = -1;
    if (*rec < 0) return;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            long double x = 0;
            for (int64_t t = 0; t < r; t++) x += (long double)u[i * uc + t] * s[t] * vt[t * n + j];
            *rec = fmax(*rec, (double)fabsl(x - a[i * n + j]) / norm);
        }
    for (int64_t i = 0; i < uc; i++)
        for (int64_t j = 0; j < uc; j++) {
            long double x = 0;
            for (int64_t p = 0; p < m; p++) x += (long double)u[p * uc + i] * u[p * uc + j];
            *orth = fmax(*orth, (double)fabsl(x - (i == j)));
        }
    for (int64_t i = 0; i < vr; i++)
        for (int64_t j = 0; j < vr; j++) {
            long double x = 0;
            for (int64_t p = 0; p < n; p++) x += (long double)vt[i * n + p] * vt[j * n + p];
            *orth = fmax(*orth, (double)fabsl(x - (i == j)));
        }
}

/* One path in f64 and f32 (errors[0..1], [2..3]); s of the f64 run kept. */
static void run_svd(const double *a, int64_t m, int64_t n, int full, double *s64, double *errs) {
    int64_t r = m < n ? m : n, uc = full ? m : r, vr = full ? n : r;
    size_t mn = (size_t)(m * n);
    double *u = malloc(sizeof(double) * (size_t)(m * uc)), *vt = malloc(sizeof(double) * (size_t)(vr * n));
    double *work = malloc(sizeof(double) * (size_t)rt_svd_work(m, n));
    rt_svd_f64(1, m, n, full, a, s64, u, vt, work);
    svd_errors(a, m, n, full, u, s64, vt, &errs[0], &errs[1]);
    float *af = malloc(sizeof(float) * mn), *uf = malloc(sizeof(float) * (size_t)(m * uc));
    float *vf = malloc(sizeof(float) * (size_t)(vr * n)), *sf = malloc(sizeof(float) * (size_t)r);
    float *wf = malloc(sizeof(float) * (size_t)rt_svd_work(m, n));
    double *ar = malloc(sizeof(double) * mn), *sr = malloc(sizeof(double) * (size_t)r);
    for (size_t i = 0; i < mn; i++) af[i] = (float)a[i], ar[i] = af[i];
    rt_svd_f32(1, m, n, full, af, sf, uf, vf, wf);
    for (int64_t i = 0; i < m * uc; i++) u[i] = uf[i];
    for (int64_t i = 0; i < vr * n; i++) vt[i] = vf[i];
    for (int64_t i = 0; i < r; i++) sr[i] = sf[i];
    svd_errors(ar, m, n, full, u, sr, vt, &errs[2], &errs[3]);
    free(u), free(vt), free(work), free(af), free(uf), free(vf), free(sf), free(wf), free(ar), free(sr);
}

TEST(linalg_svd_paths_agree_on_hard_spectra) {
    static const int64_t shapes[][2] = {{9, 9}, {20, 12}, {12, 20}, {64, 64}, {65, 70}, {130, 100}, {200, 200}};
    uint64_t seed = 11;
    int n_paths = rt_linalg_have_lapack() ? 3 : 2;
    int64_t fb0 = rt_svd_testing_fallbacks(), random_fb = 0;
    for (size_t sh = 0; sh < sizeof shapes / sizeof *shapes; sh++)
        for (int kind = 0; kind < SV_COUNT; kind++) {
            int64_t m = shapes[sh][0], n = shapes[sh][1], r = m < n ? m : n, big = m > n ? m : n;
            if (big >= 200 && kind != SV_RANDOM) continue; /* the long-double checks are cubic */
            double *a = malloc(sizeof(double) * (size_t)(m * n)), *s[3];
            make_rect(a, m, n, kind, &seed);
            for (int p = 0; p < n_paths; p++) {
                s[p] = malloc(sizeof(double) * (size_t)r);
                rt_svd_set_jacobi_max(p == 0 ? 1 << 30 : 2);
                rt_linalg_set_path(p == 2 ? RT_LINALG_LAPACK : RT_LINALG_BUILTIN);
                int full = (int)(sh % 2);
                double e[4];
                run_svd(a, m, n, full, s[p], e);
                if (p == 1 && kind == SV_RANDOM) { /* the f32 run alone, for the count */
                    int64_t fb = rt_svd_testing_fallbacks();
                    float *af = malloc(sizeof(float) * (size_t)(m * n)), *sf = malloc(sizeof(float) * (size_t)r);
                    float *uf = malloc(sizeof(float) * (size_t)(m * m)), *vf = malloc(sizeof(float) * (size_t)(n * n));
                    float *wf = malloc(sizeof(float) * (size_t)rt_svd_work(m, n));
                    for (int64_t i = 0; i < m * n; i++) af[i] = (float)a[i];
                    rt_svd_f32(1, m, n, 0, af, sf, uf, vf, wf);
                    random_fb += rt_svd_testing_fallbacks() - fb;
                    free(af), free(sf), free(uf), free(vf), free(wf);
                }
                double tol64 = 16 * (double)big * 2.2e-16, tol32 = 16 * (double)big * 1.2e-7;
                if (getenv("CJAX_TEST_VERBOSE"))
                    printf("svd path %d %-14s %lldx%lld full %d  f64 %.1e %.1e  f32 %.1e %.1e\n", p, sv_name[kind],
                           (long long)m, (long long)n, full, e[0] / tol64, e[1] / tol64, e[2] / tol32, e[3] / tol32);
                CHECK_MSG(e[0] >= 0 && e[0] <= tol64 && e[1] <= tol64 && e[2] >= 0 && e[2] <= tol32 && e[3] <= tol32,
                          "svd path %d %s %lldx%lld full %d: f64 |A-USVt|/|A| %g orth %g; f32 %g %g", p, sv_name[kind],
                          (long long)m, (long long)n, full, e[0], e[1], e[2], e[3]);
                if (p > 0) {
                    double ds = 0;
                    for (int64_t i = 0; i < r; i++) ds = fmax(ds, fabs(s[p][i] - s[0][i]));
                    CHECK_MSG(ds <= 16 * (double)big * 2.2e-16 * s[0][0], "svd path %d vs Jacobi, %s %lldx%lld: |Δs| %g",
                              p, sv_name[kind], (long long)m, (long long)n, ds);
                }
            }
            rt_svd_set_jacobi_max(-1);
            rt_linalg_set_path(RT_LINALG_AUTO);
            for (int p = 0; p < n_paths; p++) free(s[p]);
            free(a);
        }
    /* random f32 matrices are well separated: the Golub–Kahan vectors
     * served them. An f32 matrix with exactly zero singular values (a
     * diagonal one: the reduction leaves it as it is) hands its vectors to
     * implicit QR instead, and still reconstructs. */
    CHECK_MSG(random_fb == 0, "%lld random f32 matrices left the Golub–Kahan vectors", (long long)random_fb);
    (void)fb0;
    rt_linalg_set_path(RT_LINALG_BUILTIN);
    for (int full = 0; full < 2; full++) {
        int64_t m = 20, n = 12, uc = full ? m : n, before = rt_svd_testing_fallbacks();
        float af[20 * 12] = {0}, sf[12], uf[20 * 20], vf[12 * 12], *wf = malloc(sizeof(float) * (size_t)rt_svd_work(m, n));
        double a[20 * 12], u[20 * 20], vt[12 * 12], sd[12], e[2];
        for (int64_t i = 0; i < n; i++) af[i * n + i] = i % 3 ? (float)(i + 1) : 0;
        rt_svd_f32(1, m, n, full, af, sf, uf, vf, wf);
        for (int64_t i = 0; i < m * n; i++) a[i] = af[i];
        for (int64_t i = 0; i < m * uc; i++) u[i] = uf[i];
        for (int64_t i = 0; i < n * n; i++) vt[i] = vf[i];
        for (int64_t i = 0; i < n; i++) sd[i] = sf[i];
        svd_errors(a, m, n, full, u, sd, vt, &e[0], &e[1]);
        CHECK_MSG(e[0] >= 0 && e[0] <= 16 * 20 * 1.2e-7 && e[1] <= 16 * 20 * 1.2e-7, "f32 diagonal, full %d: %g %g",
                  full, e[0], e[1]);
        CHECK_MSG(rt_svd_testing_fallbacks() > before, "f32 diagonal with zeros kept the Golub–Kahan vectors");
        free(wf);
    }
    rt_linalg_set_path(RT_LINALG_AUTO);
}

/* ---- qr ------------------------------------------------------------------ */

/* max |Q R - A| / ‖A‖, max |QᵀQ - I|, and whether R is upper triangular. */
static void qr_errors(const double *a, const double *q, const double *r, int64_t m, int64_t n, int complete,
                      double *rec, double *orth, int *upper) {
    int64_t k = m < n ? m : n, qc = complete ? m : k;
    double norm = 1e-300;
    for (int64_t i = 0; i < m * n; i++) norm = fmax(norm, fabs(a[i]));
    *rec = *orth = 0, *upper = 1;
    for (int64_t i = 0; i < qc; i++)
        for (int64_t j = 0; j < n && j < i; j++) *upper &= r[i * n + j] == 0;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            long double x = 0;
            for (int64_t t = 0; t < qc; t++) x += (long double)q[i * qc + t] * r[t * n + j];
            *rec = fmax(*rec, (double)fabsl(x - a[i * n + j]) / norm);
        }
    for (int64_t i = 0; i < qc; i++)
        for (int64_t j = 0; j < qc; j++) {
            long double x = 0;
            for (int64_t p = 0; p < m; p++) x += (long double)q[p * qc + i] * q[p * qc + j];
            *orth = fmax(*orth, (double)fabsl(x - (i == j)));
        }
}

/* The blocked QR (panels of 64 applied by GEMM; rt_qr_set_blocked_min
 * forces it or the unblocked loop) against the identities in f64 and f32,
 * and against the unblocked kernel in f64: the same reflectors, so the
 * same Q and R (LAPACK's signs) to rounding, on well-conditioned matrices
 * (random plus 3 on the diagonal), tall, square, wide, reduced and
 * complete, with partial last panels. */
TEST(linalg_qr_blocked_matches_unblocked_and_identities) {
    static const int64_t shapes[][3] = {{130, 130, 0}, {300, 140, 0}, {140, 300, 0}, {200, 150, 1}, {257, 129, 1}};
    uint64_t seed = 21;
    for (size_t c = 0; c < sizeof shapes / sizeof *shapes; c++) {
        int64_t m = shapes[c][0], n = shapes[c][1], k = m < n ? m : n, big = m > n ? m : n;
        int complete = (int)shapes[c][2];
        int64_t qc = complete ? m : k;
        double *a = malloc(sizeof(double) * (size_t)(m * n)), *q[2], *r[2];
        for (int64_t i = 0; i < m * n; i++) a[i] = dp_rand(&seed) + 3.0 * (i / n == i % n);
        for (int path = 0; path < 2; path++) { /* 0 unblocked, 1 blocked */
            rt_qr_set_blocked_min(path ? 1 : 1 << 30);
            q[path] = malloc(sizeof(double) * (size_t)(m * qc)), r[path] = malloc(sizeof(double) * (size_t)(qc * n));
            double *work = malloc(sizeof(double) * (size_t)(rt_qr_work(m, n) + 1));
            rt_qr_f64(1, m, n, complete, a, q[path], r[path], work);
            double rec, orth;
            int upper;
            qr_errors(a, q[path], r[path], m, n, complete, &rec, &orth, &upper);
            double tol64 = 16 * (double)big * 2.2e-16;
            CHECK_MSG(upper && rec <= tol64 && orth <= tol64, "qr path %d %lldx%lld complete %d f64: |QR-A| %g |QᵀQ-I| %g",
                      path, (long long)m, (long long)n, complete, rec, orth);
            /* f32 */
            float *af = malloc(sizeof(float) * (size_t)(m * n)), *qf = malloc(sizeof(float) * (size_t)(m * qc));
            float *rf = malloc(sizeof(float) * (size_t)(qc * n)), *wf = malloc(sizeof(float) * (size_t)(rt_qr_work(m, n) + 1));
            double *ar = malloc(sizeof(double) * (size_t)(m * n)), *qd = malloc(sizeof(double) * (size_t)(m * qc));
            double *rd2 = malloc(sizeof(double) * (size_t)(qc * n));
            for (int64_t i = 0; i < m * n; i++) af[i] = (float)a[i], ar[i] = af[i];
            rt_qr_f32(1, m, n, complete, af, qf, rf, wf);
            for (int64_t i = 0; i < m * qc; i++) qd[i] = qf[i];
            for (int64_t i = 0; i < qc * n; i++) rd2[i] = rf[i];
            qr_errors(ar, qd, rd2, m, n, complete, &rec, &orth, &upper);
            double tol32 = 16 * (double)big * 1.2e-7;
            CHECK_MSG(upper && rec <= tol32 && orth <= tol32, "qr path %d %lldx%lld complete %d f32: |QR-A| %g |QᵀQ-I| %g",
                      path, (long long)m, (long long)n, complete, rec, orth);
            free(work), free(af), free(qf), free(rf), free(wf), free(ar), free(qd), free(rd2);
        }
        double dq = 0, dr = 0;
        for (int64_t i = 0; i < m * qc; i++) dq = fmax(dq, fabs(q[0][i] - q[1][i]));
        for (int64_t i = 0; i < qc * n; i++) dr = fmax(dr, fabs(r[0][i] - r[1][i]));
        CHECK_MSG(dq <= 1e-12 && dr <= 1e-12 * (double)big, "qr %lldx%lld: blocked vs unblocked |ΔQ| %g |ΔR| %g",
                  (long long)m, (long long)n, dq, dr);
        rt_qr_set_blocked_min(-1);
        free(a), free(q[0]), free(q[1]), free(r[0]), free(r[1]);
    }
}
