/* test_linalg_kernels.c — tests for the factorisation kernels (runtime
 * layer, src/runtime/linalg_kernels.c).
 *
 * Each kernel is checked by the identity it must satisfy, computed here in
 * long double with plain loops: L Lᵀ = A for Cholesky, op(A) X = B (or
 * X op(A) = B) for the triangular solve, A[perm] = L U for LU, with its
 * pivots replaying into its permutation. Sizes cover the unblocked loops,
 * the blocked kernels (n >= 2·RT_LINALG_BLOCK) with partial edge blocks,
 * and batches. When the build has LAPACK, the built-in and LAPACK paths
 * are run on the same inputs and compared with each other too. Tolerances
 * scale with n·eps and the size of the entries (the inputs are well
 * conditioned: diagonally dominant or SPD with a shifted spectrum). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "runtime/linalg_kernels.h"

static double lk_rand(uint64_t *s) {
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) / 9007199254740992.0 * 2 - 1;
}

/* A random SPD n×n matrix: M Mᵀ / n + I. */
static void spd(double *a, int64_t n, uint64_t *seed) {
    double *m = malloc(sizeof(double) * (size_t)(n * n));
    for (int64_t i = 0; i < n * n; i++) m[i] = lk_rand(seed);
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) {
            long double s = 0;
            for (int64_t p = 0; p < n; p++) s += (long double)m[i * n + p] * m[j * n + p];
            a[i * n + j] = (double)(s / n) + (i == j);
        }
    free(m);
}

/* max |L Lᵀ - A| over the matrix, and whether the strict upper part is 0. */
static double chol_residual(const double *l, const double *a, int64_t n, int *upper_zero) {
    double worst = 0;
    *upper_zero = 1;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) {
            if (j > i && l[i * n + j] != 0) *upper_zero = 0;
            long double s = 0;
            for (int64_t p = 0; p <= (i < j ? i : j); p++) s += (long double)l[i * n + p] * l[j * n + p];
            double e = fabs((double)(s - a[i * n + j]));
            if (e > worst) worst = e;
        }
    return worst;
}

static const rt_linalg_path paths[] = {RT_LINALG_BUILTIN, RT_LINALG_LAPACK};

TEST(linalg_kernel_cholesky_f64_identity_and_paths) {
    static const int64_t sizes[] = {1, 2, 3, 8, 33, 64, 130, 200};
    uint64_t seed = 11;
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        int64_t n = sizes[si];
        double *a = malloc(sizeof(double) * (size_t)(n * n)), *l[2];
        spd(a, n, &seed);
        for (int pi = 0; pi < 2; pi++) {
            l[pi] = malloc(sizeof(double) * (size_t)(n * n));
            memcpy(l[pi], a, sizeof(double) * (size_t)(n * n));
            for (int64_t i = 0; i < n; i++) /* garbage above the diagonal: never read */
                for (int64_t j = i + 1; j < n; j++) l[pi][i * n + j] = 1e300;
            rt_linalg_set_path(paths[pi]);
            rt_cholesky_f64(1, n, l[pi]);
            int upper_zero;
            double r = chol_residual(l[pi], a, n, &upper_zero);
            CHECK_MSG(upper_zero, "n=%lld path %d: upper triangle not zero", (long long)n, pi);
            CHECK_MSG(r < 1e-13 * (double)n, "n=%lld path %d: |L L^T - A| = %g", (long long)n, pi, r);
        }
        for (int64_t i = 0; i < n * n; i++)
            CHECK_MSG(fabs(l[0][i] - l[1][i]) < 1e-12 * (double)n, "n=%lld: builtin vs lapack at %lld: %g vs %g",
                      (long long)n, (long long)i, l[0][i], l[1][i]);
        free(a), free(l[0]), free(l[1]);
    }
    rt_linalg_set_path(RT_LINALG_AUTO);
}

TEST(linalg_kernel_cholesky_f32_batch_and_not_pd) {
    /* a batch of 500 8×8 SPD matrices, then one that is not positive
     * definite in the middle: that one alone becomes NaN */
    const int64_t n = 8, B = 500;
    uint64_t seed = 5;
    double *a = malloc(sizeof(double) * (size_t)(B * n * n));
    float *f = malloc(sizeof(float) * (size_t)(B * n * n));
    for (int64_t b = 0; b < B; b++) spd(a + b * n * n, n, &seed);
    a[7 * n * n + 3 * n + 3] = -5; /* matrix 7: a negative diagonal entry */
    for (int64_t i = 0; i < B * n * n; i++) f[i] = (float)a[i];
    rt_cholesky_f32(B, n, f);
    for (int64_t b = 0; b < B; b++) {
        const float *l = f + b * n * n;
        if (b == 7) {
            for (int64_t i = 0; i < n * n; i++) CHECK_MSG(isnan(l[i]), "not-PD matrix: element %lld", (long long)i);
            continue;
        }
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j <= i; j++) {
                double s = 0;
                for (int64_t p = 0; p <= j; p++) s += (double)l[i * n + p] * l[j * n + p];
                CHECK_MSG(fabs(s - a[b * n * n + i * n + j]) < 2e-5, "batch %lld (%lld,%lld): %g vs %g", (long long)b,
                          (long long)i, (long long)j, s, a[b * n * n + i * n + j]);
            }
    }
    free(a), free(f);
}

/* A random triangular-friendly m×m matrix: entries in [-1, 1), diagonal
 * m + 1 (so every triangle is well conditioned). */
static void dominant(double *a, int64_t m, uint64_t *seed) {
    for (int64_t i = 0; i < m * m; i++) a[i] = lk_rand(seed);
    for (int64_t i = 0; i < m; i++) a[i * m + i] = (double)m + 1;
}

/* op(A)(i, j) of the triangle the options name (the other entries 0,
 * the diagonal 1 when unit). */
static double op_entry(const double *a, int64_t m, rt_trsm_opts o, int64_t i, int64_t j) {
    int64_t r = o.transpose_a ? j : i, c = o.transpose_a ? i : j;
    if (r == c) return o.unit_diag ? 1 : a[r * m + c];
    if (o.lower ? c > r : c < r) return 0;
    return a[r * m + c];
}

TEST(linalg_kernel_trsm_every_option) {
    static const int64_t ms[][2] = {{1, 1}, {4, 3}, {7, 1}, {150, 20}, {200, 9}};
    uint64_t seed = 3;
    for (size_t si = 0; si < sizeof ms / sizeof *ms; si++) {
        int64_t m = ms[si][0], k = ms[si][1];
        double *a = malloc(sizeof(double) * (size_t)(m * m)), *b = malloc(sizeof(double) * (size_t)(m * k)),
               *x = malloc(sizeof(double) * (size_t)(m * k));
        dominant(a, m, &seed);
        for (int64_t i = 0; i < m * k; i++) b[i] = lk_rand(&seed) * 10;
        for (int flags = 0; flags < 16; flags++) {
            rt_trsm_opts o = {flags & 1, (flags >> 1) & 1, (flags >> 2) & 1, (flags >> 3) & 1};
            memcpy(x, b, sizeof(double) * (size_t)(m * k));
            rt_trsm_f64(1, m, k, a, x, o);
            /* left: X is m×k and op(A) X = B; right: X is k×m and X op(A) = B */
            double worst = 0;
            for (int64_t r = 0; r < (o.left_side ? m : k); r++)
                for (int64_t c = 0; c < (o.left_side ? k : m); c++) {
                    long double s = 0, mag = 0;
                    for (int64_t p = 0; p < m; p++) {
                        long double t = o.left_side ? (long double)op_entry(a, m, o, r, p) * x[p * k + c]
                                                    : (long double)x[r * m + p] * op_entry(a, m, o, p, c);
                        s += t;
                        mag += fabsl(t);
                    }
                    /* the backward-error bound: relative to sum |op(A)| |X| (a unit
                     * triangle with O(1) entries has a huge X) */
                    double e = fabs((double)(s - b[r * (o.left_side ? k : m) + c])) / (double)(1 + mag);
                    if (e > worst) worst = e;
                }
            double tol = 1e-15 * (double)m * 10;
            CHECK_MSG(worst < tol, "m=%lld k=%lld left=%d lower=%d trans=%d unit=%d: residual %g", (long long)m,
                      (long long)k, o.left_side, o.lower, o.transpose_a, o.unit_diag, worst);
        }
        free(a), free(b), free(x);
    }
}

/* Checks A[perm] = L U and that the pivots replay into perm. */
static double lu_residual(const double *a, const double *lu, const int32_t *piv, const int32_t *perm, int64_t m,
                          int64_t n, int *perm_ok) {
    int64_t k = m < n ? m : n;
    int32_t *p = malloc(sizeof(int32_t) * (size_t)m);
    for (int64_t i = 0; i < m; i++) p[i] = (int32_t)i;
    for (int64_t i = 0; i < k; i++) {
        int32_t t = p[i];
        p[i] = p[piv[i]];
        p[piv[i]] = t;
    }
    *perm_ok = 1;
    for (int64_t i = 0; i < m; i++) *perm_ok &= p[i] == perm[i];
    free(p);
    double worst = 0;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            long double s = 0;
            for (int64_t q = 0; q < k && q <= i && q <= j; q++)
                s += (long double)(q == i ? 1 : lu[i * n + q]) * lu[q * n + j];
            double e = fabs((double)(s - a[perm[i] * n + j]));
            if (e > worst) worst = e;
        }
    return worst;
}

TEST(linalg_kernel_lu_identity_and_paths) {
    static const int64_t shapes[][2] = {{1, 1}, {4, 4}, {5, 3}, {3, 5}, {64, 64}, {150, 150}, {200, 130}, {130, 200}};
    uint64_t seed = 21;
    for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++) {
        int64_t m = shapes[si][0], n = shapes[si][1], k = m < n ? m : n;
        double *a = malloc(sizeof(double) * (size_t)(m * n)), *lu[2];
        int32_t *piv[2], *perm[2];
        for (int64_t i = 0; i < m * n; i++) a[i] = lk_rand(&seed);
        for (int pi = 0; pi < 2; pi++) {
            lu[pi] = malloc(sizeof(double) * (size_t)(m * n));
            piv[pi] = malloc(sizeof(int32_t) * (size_t)k);
            perm[pi] = malloc(sizeof(int32_t) * (size_t)m);
            memcpy(lu[pi], a, sizeof(double) * (size_t)(m * n));
            rt_linalg_set_path(paths[pi]);
            rt_lu_f64(1, m, n, lu[pi], piv[pi], perm[pi]);
            int perm_ok;
            double r = lu_residual(a, lu[pi], piv[pi], perm[pi], m, n, &perm_ok);
            CHECK_MSG(perm_ok, "%lldx%lld path %d: pivots do not replay into perm", (long long)m, (long long)n, pi);
            CHECK_MSG(r < 1e-13 * (double)m, "%lldx%lld path %d: |A[perm] - L U| = %g", (long long)m, (long long)n,
                      pi, r);
            /* partial pivoting: every multiplier at most 1 in size */
            for (int64_t i = 0; i < m; i++)
                for (int64_t j = 0; j < (i < k ? i : k); j++) CHECK(fabs(lu[pi][i * n + j]) <= 1);
        }
        /* both paths choose the same pivots (the first largest) */
        for (int64_t i = 0; i < k; i++) CHECK_EQ_INT(piv[0][i], piv[1][i]);
        for (int64_t i = 0; i < m * n; i++) CHECK(fabs(lu[0][i] - lu[1][i]) < 1e-11);
        for (int pi = 0; pi < 2; pi++) free(lu[pi]), free(piv[pi]), free(perm[pi]);
        free(a);
    }
    rt_linalg_set_path(RT_LINALG_AUTO);
}

TEST(linalg_kernel_lu_f32_batch_singular) {
    /* 300 4×4 matrices; matrix 2 has two equal rows: LU still completes,
     * with a zero on U's diagonal, and the identity holds */
    const int64_t B = 300, n = 4;
    uint64_t seed = 8;
    float *f = malloc(sizeof(float) * (size_t)(B * n * n));
    double *a = malloc(sizeof(double) * (size_t)(B * n * n)), *lu = malloc(sizeof(double) * (size_t)(n * n));
    int32_t *piv = malloc(sizeof(int32_t) * (size_t)(B * n)), *perm = malloc(sizeof(int32_t) * (size_t)(B * n));
    for (int64_t i = 0; i < B * n * n; i++) a[i] = (double)(float)lk_rand(&seed);
    for (int64_t j = 0; j < n; j++) a[2 * n * n + 1 * n + j] = a[2 * n * n + 3 * n + j];
    for (int64_t i = 0; i < B * n * n; i++) f[i] = (float)a[i];
    rt_lu_f32(B, n, n, f, piv, perm);
    for (int64_t b = 0; b < B; b++) {
        for (int64_t i = 0; i < n * n; i++) lu[i] = f[b * n * n + i];
        int perm_ok;
        double r = lu_residual(a + b * n * n, lu, piv + b * n, perm + b * n, n, n, &perm_ok);
        CHECK(perm_ok);
        CHECK_MSG(r < 1e-5, "batch %lld: residual %g", (long long)b, r);
    }
    CHECK(fabs(f[2 * n * n + 3 * n + 3]) < 1e-6); /* U singular */
    free(f), free(a), free(lu), free(piv), free(perm);
}
