/* test_linalg_lstsq.c — cj_linalg_lstsq (src/api/linalg_lstsq.c).
 *
 * Against JAX's results on the same inputs (tests/data/linalg/lstsq_*,
 * listed in LSTSQ_CASES, written by JAX 0.10 through
 * tests/data/gen_linalg_fixtures.py --lstsq): x, resid, rank, s, and the
 * gradients of a loss seeing x and resid with respect to a and b, within
 * tolerances from the stored condition number; against the normal
 * equations Aᵀ(b - A x) = 0 with plain loops on random full-rank tall
 * problems (and A x = b, x in A's row space, for wide ones); jit and vmap
 * against eager; the errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjax.h"
#include "ad_check.h"
#include "harness.h"
#include "test_util.h"

/* max |g - w| / max(max |w|, floor) */
static double rel(cj_val got, cj_val want, double floor) {
    double *g = tu_read_f64(got), *w = tu_read_f64(want), num = 0, den = floor;
    int64_t n = cj_val_size(want);
    if (!g || !w || cj_val_size(got) != n) {
        free(g), free(w);
        return INFINITY;
    }
    for (int64_t i = 0; i < n; i++) {
        double e = fabs(g[i] - w[i]);
        if (!(e <= num)) num = e;
        if (fabs(w[i]) > den) den = fabs(w[i]);
    }
    free(g), free(w);
    return num / den;
}

typedef struct {
    cj_val wx;
    double rcond;
} lq_weights;

static void f_loss(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    lq_weights *k = user;
    cj_val x, res, rank, s;
    cj_linalg_lstsq(in[0], in[1], k->rcond, &x, &res, &rank, &s);
    out[0] = cj_add(cj_sum(cj_mul(k->wx, x), -1, NULL, 0), cj_sum(res, -1, NULL, 0));
}

TEST(linalg_lstsq_fixtures_match_jax) {
    char path[512];
    snprintf(path, sizeof path, "%s/linalg/LSTSQ_CASES", CJAX_TEST_DATA_DIR);
    FILE *fp = fopen(path, "r");
    CHECK_MSG(fp, "cannot open %s", path);
    char name[128];
    int n_cases = 0;
    while (fscanf(fp, "%127s", name) == 1) {
        cj_ctx *ctx = cj_ctx_new(NULL);
        cj_val a = tu_load_linalg(ctx, name, "a"), b = tu_load_linalg(ctx, name, "b"), x, res, rank, s;
        double rcond, cond;
        CHECK_MSG(cj_read(tu_load_linalg(ctx, name, "rcond"), &rcond, sizeof rcond) == CJ_OK &&
                      cj_read(tu_load_linalg(ctx, name, "cond"), &cond, sizeof cond) == CJ_OK,
                  "%s: %s", name, cj_error_message(ctx));
        int64_t m = cj_val_dim(a, -2), n = cj_val_dim(a, -1);
        double eps = cj_val_dtype(a) == CJ_F32 ? 1.2e-7 : 2.3e-16, tol = 20 * (double)(m > n ? m : n) * eps;
        /* a batched case JAX vmapped; cjax takes the batch directly */
        CHECK(cj_linalg_lstsq(a, b, rcond, &x, &res, &rank, &s) == 0);
        CHECK_MSG(cj_val_rank(x) == cj_val_rank(tu_load_linalg(ctx, name, "x")) && cj_val_size(res) == cj_val_size(tu_load_linalg(ctx, name, "resid")),
                  "%s: shapes", name);
        double ex = rel(x, tu_load_linalg(ctx, name, "x"), 1e-300), es = rel(s, tu_load_linalg(ctx, name, "s"), 1e-300);
        double *bb = tu_read_f64(b), bnorm2 = 0;
        for (int64_t i = 0; i < cj_val_size(b); i++) bnorm2 += bb[i] * bb[i];
        free(bb);
        double er = rel(res, tu_load_linalg(ctx, name, "resid"), bnorm2);
        CHECK_MSG(ex <= tol * cond * cond && es <= tol && er <= tol * cond * cond, "%s: x %g s %g resid %g (tol %g, cond %g)",
                  name, ex, es, er, tol, cond);
        int32_t rk[8] = {0}, rj[8] = {0};
        CHECK(cj_val_dtype(rank) == CJ_I32 && cj_val_size(rank) <= 8);
        CHECK(cj_read(rank, rk, sizeof(int32_t) * (size_t)cj_val_size(rank)) == CJ_OK);
        CHECK(cj_read(tu_load_linalg(ctx, name, "rank"), rj, sizeof(int32_t) * (size_t)cj_val_size(rank)) == CJ_OK);
        for (int64_t i = 0; i < cj_val_size(rank); i++) CHECK_MSG(rk[i] == rj[i], "%s: rank %d, JAX %d", name, rk[i], rj[i]);
        char wpath[512];
        snprintf(wpath, sizeof wpath, "%s/linalg/%s_wx.npy", CJAX_TEST_DATA_DIR, name);
        FILE *wf = fopen(wpath, "rb");
        if (wf) { /* the full-rank tall and square cases carry gradients */
            fclose(wf);
            lq_weights w = {tu_load_linalg(ctx, name, "wx"), rcond};
            cj_val in[2] = {a, b}, g[2];
            CHECK(cj_call(cj_grad(cj_func_new(ctx, "loss", f_loss, 2, 1, &w), &(cj_grad_opts){.argnums = (int[]){0, 1}, .n_argnums = 2}), in, g) == CJ_OK);
            double ga = rel(g[0], tu_load_linalg(ctx, name, "grad_a"), 1e-300), gb = rel(g[1], tu_load_linalg(ctx, name, "grad_b"), 1e-300);
            CHECK_MSG(ga <= tol * cond * cond * cond && gb <= tol * cond * cond * cond, "%s: grad a %g b %g", name, ga, gb);
        }
        CHECK_MSG(!cj_error(ctx), "%s: %s", name, cj_error_message(ctx));
        cj_ctx_free(ctx);
        n_cases++;
    }
    fclose(fp);
    CHECK_EQ_INT(n_cases, 12);
}

/* Random full-rank problems in f64: tall ones satisfy the normal
 * equations Aᵀ(b - A x) = 0 (the residual orthogonal to A's columns), and
 * resid is ‖b - A x‖²; wide ones solve A x = b exactly with x = Aᵀ y in
 * A's row space (the minimum-norm solution: y from (A Aᵀ) y = A x by
 * plain Gaussian elimination here). Plain loops, long double. */
TEST(linalg_lstsq_normal_equations_and_minimum_norm) {
    static const int64_t shapes[][3] = {{8, 3, 1}, {40, 17, 3}, {300, 100, 2}, {3, 8, 1}, {17, 40, 2}};
    uint64_t seed = 5;
    for (size_t c = 0; c < sizeof shapes / sizeof *shapes; c++) {
        cj_ctx *ctx = cj_ctx_new(NULL);
        int64_t m = shapes[c][0], n = shapes[c][1], k = shapes[c][2];
        cj_val a = cj_add(adc_uniform(ctx, DIMS(m, n), -1, 1, &seed), cj_mul(cj_eye(ctx, m, n, 0, CJ_F64), cj_scalar(ctx, 3)));
        cj_val b = adc_uniform(ctx, DIMS(m, k), -1, 1, &seed), x, res, rank, s;
        CHECK(cj_linalg_lstsq(a, b, -1, &x, &res, &rank, &s) == 0);
        double *A = tu_read_f64(a), *B = tu_read_f64(b), *X = tu_read_f64(x), *R = tu_read_f64(res), worst = 0, scale = 0;
        int32_t rk = -1;
        CHECK(A && B && X && R && cj_read(rank, &rk, sizeof rk) == CJ_OK);
        CHECK_EQ_INT(rk, (int)(m < n ? m : n));
        for (int64_t i = 0; i < m * n; i++) scale = fmax(scale, fabs(A[i]));
        long double *r = malloc(sizeof(long double) * (size_t)(m * k));
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < k; j++) {
                long double t = B[i * k + j];
                for (int64_t p = 0; p < n; p++) t -= (long double)A[i * n + p] * X[p * k + j];
                r[i * k + j] = t;
            }
        for (int64_t j = 0; j < k; j++) {
            long double rr = 0;
            for (int64_t i = 0; i < m; i++) rr += r[i * k + j] * r[i * k + j];
            CHECK_MSG(fabs((double)rr - R[j]) <= 1e-12 * (1 + (double)rr), "%lldx%lld resid %g vs %g", (long long)m,
                      (long long)n, R[j], (double)rr);
        }
        double tol = 50 * (double)(m > n ? m : n) * 2.2e-16 * scale * scale * 4;
        if (m >= n) {
            for (int64_t p = 0; p < n; p++) /* Aᵀ r */
                for (int64_t j = 0; j < k; j++) {
                    long double t = 0;
                    for (int64_t i = 0; i < m; i++) t += (long double)A[i * n + p] * r[i * k + j];
                    worst = fmax(worst, fabs((double)t));
                }
            CHECK_MSG(worst <= tol * (double)m, "%lldx%lld: |Aᵀ(b - Ax)| %g", (long long)m, (long long)n, worst);
        } else {
            for (int64_t i = 0; i < m * k; i++) worst = fmax(worst, fabs((double)r[i]));
            CHECK_MSG(worst <= tol, "%lldx%lld: |b - Ax| %g", (long long)m, (long long)n, worst);
            /* x = Aᵀ y: y from (A Aᵀ) y = A x, then |x - Aᵀ y| */
            long double *g = malloc(sizeof(long double) * (size_t)(m * (m + k)));
            for (int64_t i = 0; i < m; i++) {
                for (int64_t j = 0; j < m; j++) {
                    long double t = 0;
                    for (int64_t p = 0; p < n; p++) t += (long double)A[i * n + p] * A[j * n + p];
                    g[i * (m + k) + j] = t;
                }
                for (int64_t j = 0; j < k; j++) {
                    long double t = 0;
                    for (int64_t p = 0; p < n; p++) t += (long double)A[i * n + p] * X[p * k + j];
                    g[i * (m + k) + m + j] = t;
                }
            }
            for (int64_t p = 0; p < m; p++) /* SPD: no pivoting */
                for (int64_t i = p + 1; i < m; i++) {
                    long double l = g[i * (m + k) + p] / g[p * (m + k) + p];
                    for (int64_t j = p; j < m + k; j++) g[i * (m + k) + j] -= l * g[p * (m + k) + j];
                }
            for (int64_t j = 0; j < k; j++) {
                long double *y = malloc(sizeof(long double) * (size_t)m);
                for (int64_t i = m - 1; i >= 0; i--) {
                    long double t = g[i * (m + k) + m + j];
                    for (int64_t p = i + 1; p < m; p++) t -= g[i * (m + k) + p] * y[p];
                    y[i] = t / g[i * (m + k) + i];
                }
                double dx = 0;
                for (int64_t p = 0; p < n; p++) {
                    long double t = 0;
                    for (int64_t i = 0; i < m; i++) t += (long double)A[i * n + p] * y[i];
                    dx = fmax(dx, fabs((double)(t - X[p * k + j])));
                }
                CHECK_MSG(dx <= tol, "%lldx%lld: x is not in A's row space: %g", (long long)m, (long long)n, dx);
                free(y);
            }
            free(g);
        }
        free(A), free(B), free(X), free(R), free(r);
        CHECK_MSG(!cj_error(ctx), "%s", cj_error_message(ctx));
        cj_ctx_free(ctx);
    }
}

/* x[i] of a batch (axis 0 dropped). */
static cj_val take(cj_val x, int64_t i) {
    int r = cj_val_rank(x);
    int64_t lo[CJ_MAX_RANK] = {0}, hi[CJ_MAX_RANK];
    for (int d = 0; d < r; d++) hi[d] = cj_val_dim(x, d);
    lo[0] = i, hi[0] = i + 1;
    return cj_squeeze(cj_slice(x, lo, hi, NULL), 1, (int64_t[]){0});
}

static void f_lstsq(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    cj_linalg_lstsq(in[0], in[1], -1, &out[0], &out[1], &out[2], &out[3]);
}

/* jit (both backends) gives eager's results; vmap over a batch gives a
 * loop of single calls; a batch given directly gives the same again; a
 * 1-D b is shared by the batch. */
TEST(linalg_lstsq_jit_vmap_batch) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 8;
    enum { B = 4, M = 7, N = 5, K = 2 };
    cj_val a = adc_uniform(ctx, DIMS(B, M, N), -1, 1, &seed), b = adc_uniform(ctx, DIMS(B, M, K), -1, 1, &seed);
    cj_func *f = cj_func_new(ctx, "lstsq", f_lstsq, 2, 4, NULL);
    cj_val in[2] = {a, b}, direct[4], mapped[4];
    CHECK(cj_call(f, in, direct) == CJ_OK);
    CHECK(cj_call(cj_vmap(f, NULL), in, mapped) == CJ_OK);
    for (int o = 0; o < 4; o++) CHECK_MSG(rel(mapped[o], direct[o], 1e-300) <= 1e-13, "vmap output %d", o);
    for (int64_t i = 0; i < B; i++) {
        cj_val one[2] = {take(a, i), take(b, i)}, single[4];
        CHECK(cj_call(f, one, single) == CJ_OK);
        for (int o = 0; o < 4; o++) CHECK_MSG(rel(take(direct[o], i), single[o], 1e-300) <= 1e-13, "batch %lld output %d", (long long)i, o);
    }
    for (int be = 0; be < 2; be++) {
        cj_jit_opts jo = {.backend = be ? CJ_BACKEND_CC : CJ_BACKEND_INTERP};
        cj_val jitted[4];
        CHECK(cj_call(cj_jit(f, &jo), in, jitted) == CJ_OK);
        for (int o = 0; o < 4; o++) CHECK_MSG(rel(jitted[o], direct[o], 1e-300) <= 1e-13, "jit %d output %d", be, o);
    }
    /* a vector b, shared: the same as each column alone */
    cj_val bv = adc_uniform(ctx, DIMS(M), -1, 1, &seed), x, res, rank, s;
    CHECK(cj_linalg_lstsq(a, bv, -1, &x, &res, &rank, &s) == 0);
    CHECK(cj_val_rank(x) == 2 && cj_val_dim(x, 0) == B && cj_val_dim(x, 1) == N);
    CHECK(cj_val_rank(res) == 2 && cj_val_dim(res, 1) == 1 && cj_val_rank(rank) == 1);
    cj_val x0, r0, k0, s0;
    CHECK(cj_linalg_lstsq(take(a, 2), bv, -1, &x0, &r0, &k0, &s0) == 0);
    CHECK(rel(take(x, 2), x0, 1e-300) <= 1e-13);
    CHECK_MSG(!cj_error(ctx), "%s", cj_error_message(ctx));
    cj_ctx_free(ctx);
}

TEST(linalg_lstsq_errors) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val x, res, rank, s;
    cj_val a = cj_zeros(ctx, CJ_F32, DIMS(4, 3)), b = cj_zeros(ctx, CJ_F32, DIMS(5));
    CHECK(cj_linalg_lstsq(a, b, -1, &x, &res, &rank, &s) == -1);
    CHECK_MSG(strstr(cj_error_message(ctx), "linalg_lstsq") && strstr(cj_error_message(ctx), "f32[4,3]") &&
                  strstr(cj_error_message(ctx), "length"),
              "%s", cj_error_message(ctx));
    CHECK(cj_is_error(x) && cj_is_error(s));
    cj_error_clear(ctx);
    CHECK(cj_linalg_lstsq(cj_zeros(ctx, CJ_F32, DIMS(4)), b, -1, &x, &res, &rank, &s) == -1);
    CHECK(strstr(cj_error_message(ctx), "at least 2 dimensions"));
    cj_error_clear(ctx);
    CHECK(cj_linalg_lstsq(cj_zeros(ctx, CJ_F32, DIMS(2, 4, 3)), cj_zeros(ctx, CJ_F32, DIMS(3, 4, 1)), -1, &x, &res,
                          &rank, &s) == -1);
    CHECK(strstr(cj_error_message(ctx), "batch axes"));
    cj_error_clear(ctx);
    CHECK(cj_linalg_lstsq(a, cj_zeros(ctx, CJ_F32, DIMS(4)), -1, &x, NULL, &rank, &s) == -1);
    CHECK(strstr(cj_error_message(ctx), "must not be NULL"));
    cj_error_clear(ctx);
    /* integers promote (to f32, as jnp), and work */
    CHECK(cj_linalg_lstsq(cj_astype(cj_eye(ctx, 4, 3, 0, CJ_F32), CJ_I32), cj_astype(cj_ones(ctx, CJ_F32, DIMS(4)), CJ_I32),
                          -1, &x, &res, &rank, &s) == 0);
    CHECK(cj_val_dtype(x) == CJ_F32);
    float xv[3];
    CHECK(cj_read(x, xv, sizeof xv) == CJ_OK && xv[0] == 1 && xv[1] == 1 && xv[2] == 1);
    cj_ctx_free(ctx);
}
