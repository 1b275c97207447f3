/* test_linalg_svd_f64.c — the f64 svd kernel (src/runtime/linalg_svd.c):
 * bidiagonalisation and implicit QR on the bidiagonal
 * (linalg_svd_qr_impl.h) above Jacobi's range, Jacobi within it.
 *
 * References independent of the code under test: matrices built as
 * Q_m diag(σ) Q_nᵀ in long double from the orthogonal factors of QR
 * (another kernel, tested apart) with chosen σ — random, graded to
 * cond 10¹⁴, rank-deficient (half the σ exactly zero) — so s is checked
 * against σ itself (Weyl: within ‖ΔA‖₂), and A = U S Vᵀ, UᵀU = I,
 * V Vᵀ = I in long double; exactly bidiagonal inputs with zero diagonal
 * entries (which the reduction leaves as they are), whose singular values
 * are those of BᵀB by eigh; and the LAPACK path (gesdd) when the build
 * has one: values to C·n·eps, vectors to C·n·eps over the relative gap
 * after fixing signs the same way on both sides. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjax.h"
#include "harness.h"
#include "runtime/linalg_kernels.h"
#include "test_util.h"

static double sv_rand(uint64_t *s) {
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) / 9007199254740992.0 * 2 - 1;
}

/* A random orthogonal n × n matrix: QR's Q of a random matrix. */
static void random_orthogonal(double *q, int64_t n, uint64_t *seed) {
    double *a = malloc(sizeof(double) * (size_t)(n * n)), *r = malloc(sizeof(double) * (size_t)(n * n));
    for (int64_t i = 0; i < n * n; i++) a[i] = sv_rand(seed);
    int64_t wn = rt_qr_work(n, n);
    double *w = wn ? malloc(sizeof(double) * (size_t)wn) : NULL;
    rt_qr_f64(1, n, n, 1, a, q, r, w);
    free(a), free(r), free(w);
}

enum { K_RANDOM, K_GRADED, K_RANK, K_COUNT };
static const char *const k_name[] = {"random", "graded 1e14", "rank-deficient"};

/* a (m × n) = Q_m diag(sg) Q_nᵀ with sg by kind (descending). */
static void build(double *a, double *sg, int64_t m, int64_t n, int kind, uint64_t *seed) {
    int64_t r = m < n ? m : n;
    double *qm = malloc(sizeof(double) * (size_t)(m * m)), *qn = malloc(sizeof(double) * (size_t)(n * n));
    random_orthogonal(qm, m, seed), random_orthogonal(qn, n, seed);
    for (int64_t t = 0; t < r; t++)
        sg[t] = kind == K_RANDOM  ? 1 + 3 * ((double)(r - t) - 0.15 * (1 + sv_rand(seed))) / (double)r
                : kind == K_GRADED ? pow(10, -14 * (double)t / (double)(r > 1 ? r - 1 : 1))
                                   : (t < (r + 1) / 2 ? 2 - (double)t / (double)r : 0);
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            long double s = 0;
            for (int64_t t = 0; t < r; t++) s += (long double)qm[i * m + t] * sg[t] * qn[j * n + t];
            a[i * n + j] = (double)s;
        }
    free(qm), free(qn);
}

/* rec: max |A - U S Vt| / max |A|; orth: max of |UᵀU - I|, |Vt Vtᵀ - I|;
 * both -1 when s is not descending and non-negative. */
static void errors(const double *a, int64_t m, int64_t n, int full, const double *u, const double *s,
                   const double *vt, double *rec, double *orth) {
    int64_t r = m < n ? m : n, uc = full ? m : r, vr = full ? n : r;
    double norm = 1e-300;
    for (int64_t i = 0; i < m * n; i++) norm = fmax(norm, fabs(a[i]));
    *rec = *orth = 0;
    for (int64_t t = 0; t < r; t++)
        if (!(s[t] >= 0) || (t && s[t] > s[t - 1])) *rec = *orth = -1;
    if (*rec < 0) return;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            long double x = 0;
            for (int64_t t = 0; t < r; t++) x += (long double)u[i * uc + t] * s[t] * vt[t * n + j];
            *rec = fmax(*rec, (double)fabsl(x - a[i * n + j]) / norm);
        }
    for (int64_t i = 0; i < uc; i++)
        for (int64_t j = i; j < uc; j++) {
            long double x = 0;
            for (int64_t p = 0; p < m; p++) x += (long double)u[p * uc + i] * u[p * uc + j];
            *orth = fmax(*orth, (double)fabsl(x - (i == j)));
        }
    for (int64_t i = 0; i < vr; i++)
        for (int64_t j = i; j < vr; j++) {
            long double x = 0;
            for (int64_t p = 0; p < n; p++) x += (long double)vt[i * n + p] * vt[j * n + p];
            *orth = fmax(*orth, (double)fabsl(x - (i == j)));
        }
}

typedef struct {
    double *u, *s, *vt, *work;
} sv_out;

static sv_out run(const double *a, int64_t m, int64_t n, int full) {
    int64_t r = m < n ? m : n, uc = full ? m : r, vr = full ? n : r;
    sv_out o = {malloc(sizeof(double) * (size_t)(m * uc)), malloc(sizeof(double) * (size_t)r),
                malloc(sizeof(double) * (size_t)(vr * n)), malloc(sizeof(double) * (size_t)rt_svd_work(m, n))};
    for (int64_t i = 0; i < m * uc; i++) o.u[i] = -7; /* the kernel must write every entry */
    for (int64_t i = 0; i < vr * n; i++) o.vt[i] = -7;
    rt_svd_f64(1, m, n, full, a, o.s, o.u, o.vt, o.work);
    return o;
}
static void sv_free(sv_out o) { free(o.u), free(o.s), free(o.vt), free(o.work); }

TEST(linalg_svd_f64_sizes_and_hard_spectra) {
    static const int64_t shapes[][3] = {{1, 1, 0}, {2, 2, 1}, {7, 7, 0}, {64, 64, 1}, {200, 200, 0},
                                        {90, 40, 1}, {40, 90, 0}, {40, 90, 1}, {3, 11, 0}, {64, 9, 0}};
    uint64_t seed = 1601;
    rt_linalg_set_path(RT_LINALG_BUILTIN);
    for (size_t c = 0; c < sizeof shapes / sizeof *shapes; c++)
        for (int kind = 0; kind < K_COUNT; kind++) {
            int64_t m = shapes[c][0], n = shapes[c][1], r = m < n ? m : n, big = m > n ? m : n;
            int full = (int)shapes[c][2];
            double *a = malloc(sizeof(double) * (size_t)(m * n)), *sg = malloc(sizeof(double) * (size_t)r);
            build(a, sg, m, n, kind, &seed);
            sv_out o = run(a, m, n, full);
            double rec, orth, ds = 0, tol = 8 * (double)big * 2.2e-16;
            errors(a, m, n, full, o.u, o.s, o.vt, &rec, &orth);
            for (int64_t t = 0; t < r; t++) ds = fmax(ds, fabs(o.s[t] - sg[t]));
            if (getenv("CJAX_TEST_VERBOSE"))
                printf("svd f64 %-14s %3lldx%-3lld full %d: rec %.1f orth %.1f |s-σ| %.1f (units of tol)\n",
                       k_name[kind], (long long)m, (long long)n, full, rec / tol, orth / tol, ds / (tol * sg[0]));
            CHECK_MSG(rec >= 0 && rec <= tol && orth <= tol && ds <= tol * sg[0],
                      "%s %lldx%lld full %d: |A-USVt|/|A| %g, orth %g, |s-σ| %g (tol %g)", k_name[kind], (long long)m,
                      (long long)n, full, rec, orth, ds, tol);
            sv_free(o);
            free(a), free(sg);
        }
    rt_linalg_set_path(RT_LINALG_AUTO);
}

/* Exactly upper bidiagonal inputs with zero diagonal entries — in the
 * middle, first and last, and a zero block — reach the QR iteration
 * unchanged (the reduction's reflections are all identities): the zero
 * rows and columns rotated out. s² against BᵀB's eigenvalues by eigh. */
TEST(linalg_svd_f64_zero_diagonal_entries) {
    static const int64_t zeros[][3] = {{5, -1, -1}, {0, 11, -1}, {19, -1, -1}, {6, 7, 8}};
    int64_t n = 20;
    uint64_t seed = 1602;
    for (size_t c = 0; c < sizeof zeros / sizeof *zeros; c++) {
        double *b = calloc((size_t)(n * n), sizeof(double)), *btb = malloc(sizeof(double) * (size_t)(n * n));
        for (int64_t i = 0; i < n; i++) {
            b[i * n + i] = 1 + sv_rand(&seed) * 0.5;
            if (i + 1 < n) b[i * n + i + 1] = 0.7 + sv_rand(&seed) * 0.5;
        }
        for (int z = 0; z < 3; z++)
            if (zeros[c][z] >= 0) b[zeros[c][z] * n + zeros[c][z]] = 0;
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < n; j++) {
                double x = 0;
                for (int64_t p = 0; p < n; p++) x += b[p * n + i] * b[p * n + j];
                btb[i * n + j] = x;
            }
        double *v = malloc(sizeof(double) * (size_t)(n * n)), *w = malloc(sizeof(double) * (size_t)n);
        double *ew = malloc(sizeof(double) * (size_t)rt_eigh_work(n));
        rt_eigh_f64(1, n, btb, v, w, ew);
        for (int full = 0; full < 2; full++) {
            sv_out o = run(b, n, n, full);
            double rec, orth, tol = 8 * (double)n * 2.2e-16, ds = 0;
            errors(b, n, n, full, o.u, o.s, o.vt, &rec, &orth);
            for (int64_t t = 0; t < n; t++) ds = fmax(ds, fabs(o.s[t] * o.s[t] - w[n - 1 - t]));
            CHECK_MSG(rec >= 0 && rec <= tol && orth <= tol && ds <= 4 * tol * w[n - 1],
                      "zeros at %lld %lld %lld: rec %g orth %g |s²-λ| %g", (long long)zeros[c][0],
                      (long long)zeros[c][1], (long long)zeros[c][2], rec, orth, ds);
            int64_t nz = 0;
            for (int64_t t = 0; t < n; t++) nz += o.s[t] <= tol * o.s[0];
            CHECK_MSG(nz >= 1, "zeros at %lld: no zero singular value", (long long)zeros[c][0]);
            sv_free(o);
        }
        free(b), free(btb), free(v), free(w), free(ew);
    }
}

/* sign-fix each (u column, vt row) pair by u's column's largest entry */
static void fix_signs(double *u, double *vt, int64_t m, int64_t n, int64_t uc, int64_t k) {
    for (int64_t j = 0; j < k; j++) {
        double big = 0;
        for (int64_t i = 0; i < m; i++)
            if (fabs(u[i * uc + j]) > fabs(big)) big = u[i * uc + j];
        if (big >= 0) continue;
        for (int64_t i = 0; i < m; i++) u[i * uc + j] = -u[i * uc + j];
        for (int64_t c = 0; c < n; c++) vt[j * n + c] = -vt[j * n + c];
    }
}

/* The built-in kernels against LAPACK's gesdd on the same matrices. */
TEST(linalg_svd_f64_builtin_matches_lapack) {
    if (!rt_linalg_have_lapack()) {
        printf("  (no LAPACK in this build: the built-in path is checked by the identities alone)\n");
        return;
    }
    static const int64_t shapes[][2] = {{64, 64}, {120, 80}, {80, 120}, {200, 200}};
    uint64_t seed = 1603;
    for (size_t c = 0; c < sizeof shapes / sizeof *shapes; c++) {
        int64_t m = shapes[c][0], n = shapes[c][1], r = m < n ? m : n, big = m > n ? m : n;
        double *a = malloc(sizeof(double) * (size_t)(m * n)), *sg = malloc(sizeof(double) * (size_t)r);
        build(a, sg, m, n, K_RANDOM, &seed);
        rt_linalg_set_path(RT_LINALG_BUILTIN);
        sv_out b = run(a, m, n, 0);
        rt_linalg_set_path(RT_LINALG_LAPACK);
        sv_out l = run(a, m, n, 0);
        rt_linalg_set_path(RT_LINALG_AUTO);
        double tol = 8 * (double)big * 2.2e-16, ds = 0, gap = 1;
        for (int64_t t = 0; t < r; t++) ds = fmax(ds, fabs(b.s[t] - l.s[t]));
        for (int64_t t = 0; t + 1 < r; t++) gap = fmin(gap, (l.s[t] - l.s[t + 1]) / l.s[0]);
        CHECK_MSG(ds <= tol * l.s[0], "%lldx%lld: |s_builtin - s_lapack| %g", (long long)m, (long long)n, ds);
        fix_signs(b.u, b.vt, m, n, r, r), fix_signs(l.u, l.vt, m, n, r, r);
        double du = 0, dv = 0;
        for (int64_t i = 0; i < m * r; i++) du = fmax(du, fabs(b.u[i] - l.u[i]));
        for (int64_t i = 0; i < r * n; i++) dv = fmax(dv, fabs(b.vt[i] - l.vt[i]));
        CHECK_MSG(du <= tol / gap && dv <= tol / gap, "%lldx%lld: vectors differ by %g, %g (tol %g, gap %g)",
                  (long long)m, (long long)n, du, dv, tol / gap, gap);
        sv_free(b), sv_free(l);
        free(a), free(sg);
    }
}

/* Against JAX (LAPACK's gesdd underneath) on the same f64 inputs
 * (tests/data/linalg/svd64_*, SVD64_CASES, written by JAX 0.10 through
 * tests/data/gen_linalg_fixtures.py --svd64): s to C·n·eps of the
 * largest; each pair of vectors, after the same sign fix on both sides,
 * to C·n·eps over its own gap (gaps.npy, relative to the largest value:
 * the ill-conditioned cases' smallest pairs are not determined at all,
 * and the bound says so); and the identities, whatever the gaps. */
TEST(linalg_svd_f64_fixtures_match_jax) {
    char path[512];
    snprintf(path, sizeof path, "%s/linalg/SVD64_CASES", CJAX_TEST_DATA_DIR);
    FILE *fp = fopen(path, "r");
    CHECK_MSG(fp, "cannot open %s", path);
    if (!fp) return;
    char name[128];
    int n_cases = 0;
    while (fscanf(fp, "%127s", name) == 1) {
        cj_ctx *ctx = cj_ctx_new(NULL);
        cj_val a = tu_load_linalg(ctx, name, "a"), u, s, vt;
        CHECK_MSG(!cj_is_error(a) && cj_val_dtype(a) == CJ_F64, "%s: %s", name, cj_error_message(ctx));
        int64_t m = cj_val_dim(a, -2), n = cj_val_dim(a, -1), k = m < n ? m : n, big = m > n ? m : n;
        CHECK(cj_linalg_svd(a, 0, &u, &s, &vt) == 0);
        double *A = tu_read_f64(a), *S = tu_read_f64(s), *U = tu_read_f64(u), *V = tu_read_f64(vt);
        double *SJ = tu_read_f64(tu_load_linalg(ctx, name, "s")), *UJ = tu_read_f64(tu_load_linalg(ctx, name, "u"));
        double *VJ = tu_read_f64(tu_load_linalg(ctx, name, "vt")), *G = tu_read_f64(tu_load_linalg(ctx, name, "gaps"));
        CHECK(A && S && U && V && SJ && UJ && VJ && G);
        double tol = 20 * (double)big * 2.2e-16, es = 0, rec, orth;
        for (int64_t t = 0; t < k; t++) es = fmax(es, fabs(S[t] - SJ[t]));
        CHECK_MSG(es <= tol * SJ[0], "%s s: %g > %g", name, es, tol * SJ[0]);
        fix_signs(U, V, m, n, k, k), fix_signs(UJ, VJ, m, n, k, k);
        for (int64_t t = 0; t < k; t++) {
            double du = 0, dv = 0;
            for (int64_t i = 0; i < m; i++) du = fmax(du, fabs(U[i * k + t] - UJ[i * k + t]));
            for (int64_t c = 0; c < n; c++) dv = fmax(dv, fabs(V[t * n + c] - VJ[t * n + c]));
            CHECK_MSG(du <= tol / G[t] && dv <= tol / G[t], "%s pair %lld: u %g vt %g > %g (gap %g)", name,
                      (long long)t, du, dv, tol / G[t], G[t]);
        }
        errors(A, m, n, 0, U, S, V, &rec, &orth);
        CHECK_MSG(rec >= 0 && rec <= tol && orth <= tol, "%s: |A-USVt|/|A| %g orth %g", name, rec, orth);
        free(A), free(S), free(U), free(V), free(SJ), free(UJ), free(VJ), free(G);
        CHECK_MSG(!cj_error(ctx), "%s: %s", name, cj_error_message(ctx));
        cj_ctx_free(ctx);
        n_cases++;
    }
    fclose(fp);
    CHECK_EQ_INT(n_cases, 4);
}
