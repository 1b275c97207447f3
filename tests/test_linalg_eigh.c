/* test_linalg_eigh.c — the eigh primitive (src/prim/linalg_eigh.c), its
 * Jacobi kernel (src/runtime/linalg_eigh.c), its jvp
 * (src/autodiff/rules_linalg.c) and cj_linalg_eigh / _eigvalsh.
 *
 * References independent of the code under test: A V = V Λ, Vᵀ V = I and
 * ascending order with plain loops; closed-form eigenvalues (a 2×2, a
 * diagonal matrix, a matrix built from chosen eigenvalues); jvp against
 * central differences in f64 (on matrices with well-separated
 * eigenvalues: at a repeated one the eigenvectors' derivative does not
 * exist) and against the vjp; vmap against a loop; jit against eager on
 * both backends. */
#include <math.h>
#include <stdlib.h>

#include "ad_check.h"
#include "harness.h"
#include "prim/linalg_bind.h"
#include "test_util.h"

/* A random symmetric matrix (batch), f64. */
static cj_val sym(cj_ctx *ctx, int rank, const int64_t *dims, uint64_t *seed) {
    cj_val m = adc_uniform(ctx, rank, dims, -1, 1, seed);
    return cj_add(m, lb_mT(m));
}

TEST(linalg_eigh_reconstructs_batched_f32_f64) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 41;
    static const int64_t shapes[][2] = {{3, 6}, {1, 1}, {2, 2}, {1, 33}, {1, 64}};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
        for (int dt = 0; dt < 2; dt++) {
            int64_t B = shapes[s][0], n = shapes[s][1];
            cj_val a = sym(ctx, DIMS(B, n, n), &seed), v, w;
            if (dt) a = cj_astype(a, CJ_F32);
            CHECK(cj_linalg_eigh(a, &v, &w) == 0);
            CHECK_EQ_INT(cj_val_dtype(v), dt ? CJ_F32 : CJ_F64);
            CHECK_EQ_INT(cj_val_rank(w), 2);
            double *A = tu_read_f64(a), *V = tu_read_f64(v), *W = tu_read_f64(w), rec = 0, orth = 0, norm = 0;
            CHECK(A && V && W);
            for (int64_t i = 0; i < B * n * n; i++) norm = fmax(norm, fabs(A[i]));
            for (int64_t b = 0; b < B; b++) {
                const double *ab = A + b * n * n, *vb = V + b * n * n, *wb = W + b * n;
                for (int64_t j = 1; j < n; j++) CHECK(wb[j - 1] <= wb[j]);
                for (int64_t i = 0; i < n; i++)
                    for (int64_t j = 0; j < n; j++) {
                        double av = 0, vv = 0;
                        for (int64_t p = 0; p < n; p++) av += ab[i * n + p] * vb[p * n + j], vv += vb[p * n + i] * vb[p * n + j];
                        rec = fmax(rec, fabs(av - vb[i * n + j] * wb[j]));
                        orth = fmax(orth, fabs(vv - (i == j)));
                    }
            }
            double eps = dt ? 1.2e-7 : 2.3e-16, tol = 8 * (double)n * eps;
            CHECK_MSG(rec <= tol * norm * (double)n && orth <= tol, "n %lld dt %d: |AV - VΛ| %g |VᵀV - I| %g", (long long)n, dt,
                      rec, orth);
            free(A), free(V), free(W);
        }
    cj_ctx_free(ctx);
}

/* Closed forms: [[2, 1], [1, 2]] has 1 and 3 with (1, -1)/√2, (1, 1)/√2;
 * Q diag(d) Qᵀ for an orthogonal Q (from qr) gives back d, sorted; only the
 * lower triangle counts at the primitive, the symmetric part at the API. */
TEST(linalg_eigh_closed_forms) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    double a[] = {2, 1, 1, 2};
    cj_val v, w;
    CHECK(cj_linalg_eigh(cj_array(ctx, CJ_F64, DIMS(2, 2), a), &v, &w) == 0);
    double W[2], V[4];
    CHECK(cj_read(w, W, sizeof W) == CJ_OK && cj_read(v, V, sizeof V) == CJ_OK);
    CHECK_NEAR(W[0], 1, 1e-15, 0);
    CHECK_NEAR(W[1], 3, 1e-15, 0);
    CHECK_NEAR(fabs(V[0]), sqrt(0.5), 1e-15, 0);
    CHECK_NEAR(V[0] * V[2], -0.5, 1e-15, 0); /* (1, -1)/√2 up to sign */
    uint64_t seed = 42;
    cj_val q, r;
    CHECK(cj_linalg_qr(adc_uniform(ctx, DIMS(7, 7), -1, 1, &seed), NULL, &q, &r) == 0);
    double d[] = {3, -1e-3, 2, 1e3, 0, -5, 1e-8}, sorted[] = {-5, -1e-3, 0, 1e-8, 2, 3, 1e3};
    cj_val m = cj_matmul(cj_mul(q, cj_array(ctx, CJ_F64, DIMS(7), d)), lb_mT(q));
    double got[7];
    CHECK(cj_read(cj_linalg_eigvalsh(m), got, sizeof got) == CJ_OK);
    for (int i = 0; i < 7; i++) CHECK_NEAR(got[i], sorted[i], 0, 1e3 * 7 * 1e-15);
    /* the primitive reads the lower triangle only */
    double lo[] = {1, 99, 2, 3}; /* lower: [[1, 2], [2, 3]] */
    cj_val f[2];
    CHECK(lb_eigh(cj_array(ctx, CJ_F64, DIMS(2, 2), lo), f) == 0);
    CHECK(cj_read(f[1], W, sizeof W) == CJ_OK);
    CHECK_NEAR(W[0], 2 - sqrt(5), 1e-15, 1e-15);
    CHECK_NEAR(W[1], 2 + sqrt(5), 1e-15, 1e-15);
    /* integers promote to f32 */
    int32_t ia[] = {2, 1, 1, 2};
    CHECK_EQ_INT(cj_val_dtype(cj_linalg_eigvalsh(cj_array(ctx, CJ_I32, DIMS(2, 2), ia))), CJ_F32);
    cj_ctx_free(ctx);
}

TEST(linalg_eigh_errors) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val v, w, f[2];
    CHECK(cj_linalg_eigh(cj_zeros(ctx, CJ_F32, DIMS(3, 4)), &v, &w) != 0);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "linalg_eigh: a must be a square matrix (or a batch of them), got f32[3,4]");
    CHECK(cj_is_error(v) && cj_is_error(w));
    cj_error_clear(ctx);
    CHECK(cj_is_error(cj_linalg_eigvalsh(cj_zeros(ctx, CJ_F64, DIMS(5)))));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "linalg_eigvalsh: a must be a square matrix");
    cj_error_clear(ctx);
    CHECK(lb_eigh(cj_zeros(ctx, CJ_I32, DIMS(3, 3)), f) != 0);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "eigh: the operand must be f32 or f64, got i32[3,3]");
    cj_error_clear(ctx);
    CHECK(lb_eigh(cj_zeros(ctx, CJ_F32, DIMS(2, 3)), f) != 0);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "eigh: the operand must be a square matrix (or a batch of them), got f32[2,3]");
    cj_error_clear(ctx);
    cj_ctx_free(ctx);
}

static void fn_v(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    cj_val v, w;
    cj_linalg_eigh(in[0], &v, &w);
    out[0] = v;
}
static void fn_w(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_linalg_eigvalsh(in[0]);
}

static void fn_wsum(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_sum(cj_linalg_eigvalsh(in[0]), -1, NULL, 0);
}

static double fd_error(cj_ctx *ctx, cj_func *f, cj_val x, uint64_t *seed) {
    int64_t dims[CJ_MAX_RANK];
    int rk = cj_val_shape(x, dims);
    double h = 1e-6;
    cj_val t = adc_uniform(ctx, rk, dims, -1, 1, seed), y, ty, yp, ym;
    cj_val xp = cj_add(x, cj_mul(t, cj_scalar(ctx, h))), xm = cj_sub(x, cj_mul(t, cj_scalar(ctx, h)));
    if (cj_jvp(f, &x, &t, &y, &ty) != CJ_OK || cj_call(f, &xp, &yp) != CJ_OK || cj_call(f, &xm, &ym) != CJ_OK)
        return -1;
    double *a = tu_read_f64(ty), *p = tu_read_f64(yp), *m = tu_read_f64(ym), *y0 = tu_read_f64(y), worst = 0;
    if (!a || !p || !m || !y0) return -1;
    int64_t n = cj_val_dim(y, -1), size = cj_val_size(ty);
    int is_v = cj_val_rank(y) == cj_val_rank(x);
    for (int64_t i = 0; i < size; i++) {
        /* an eigenvector column may flip sign between the three evaluations: align each with y */
        double sp = 1, sm = 1;
        if (is_v) {
            int64_t base = i - (i % (n * n)), col = i % n;
            double dp = 0, dm = 0;
            for (int64_t r = 0; r < n; r++)
                dp += p[base + r * n + col] * y0[base + r * n + col], dm += m[base + r * n + col] * y0[base + r * n + col];
            sp = dp < 0 ? -1 : 1, sm = dm < 0 ? -1 : 1;
        }
        double fd = (sp * p[i] - sm * m[i]) / (2 * h), e = fabs(a[i] - fd) / (1 + fabs(fd));
        if (!(e <= worst)) worst = e;
    }
    free(a), free(p), free(m), free(y0);
    return worst;
}

static double vjp_error(cj_ctx *ctx, cj_func *f, cj_val x, uint64_t *seed) {
    int64_t dims[CJ_MAX_RANK];
    int rk = cj_val_shape(x, dims);
    cj_val v = adc_uniform(ctx, rk, dims, -1, 1, seed), y, jv, ct, y2;
    if (cj_jvp(f, &x, &v, &y, &jv) != CJ_OK) return -1;
    rk = cj_val_shape(y, dims);
    cj_val u = adc_uniform(ctx, rk, dims, -1, 1, seed);
    cj_func *pb = cj_vjp(f, &x, &y2);
    if (!pb || cj_call(pb, &u, &ct) != CJ_OK) return -1;
    double lhs = adc_dot(u, jv), rhs = adc_dot(ct, v);
    cj_func_free(pb);
    return fabs(lhs - rhs) / (1 + fabs(lhs));
}

TEST(linalg_eigh_jvp_matches_finite_differences_and_vjp) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 43;
    /* well-separated eigenvalues: Q diag(1, 2, .., 5) Qᵀ per matrix, plus a random symmetric one */
    cj_val q, r;
    CHECK(cj_linalg_qr(adc_uniform(ctx, DIMS(2, 5, 5), -1, 1, &seed), NULL, &q, &r) == 0);
    double d[] = {1, 2, 3, 4, 5};
    cj_val a = cj_matmul(cj_mul(q, cj_array(ctx, CJ_F64, DIMS(5), d)), lb_mT(q));
    cj_val s = sym(ctx, DIMS(4, 4), &seed);
    cj_val xs[] = {a, s};
    for (int c = 0; c < 2; c++) {
        cj_func *fv = cj_func_new(ctx, "v", fn_v, 1, 1, NULL), *fw = cj_func_new(ctx, "w", fn_w, 1, 1, NULL);
        double e = fd_error(ctx, fw, xs[c], &seed);
        CHECK_MSG(e >= 0 && e < 1e-7, "case %d w: jvp vs fd %g (%s)", c, e, cj_error(ctx) ? cj_error_message(ctx) : "");
        e = fd_error(ctx, fv, xs[c], &seed);
        CHECK_MSG(e >= 0 && e < 1e-6, "case %d v: jvp vs fd %g (%s)", c, e, cj_error(ctx) ? cj_error_message(ctx) : "");
        e = vjp_error(ctx, fw, xs[c], &seed);
        CHECK_MSG(e >= 0 && e < 1e-12, "case %d w: jvp vs vjp %g", c, e);
        e = vjp_error(ctx, fv, xs[c], &seed);
        CHECK_MSG(e >= 0 && e < 1e-12, "case %d v: jvp vs vjp %g", c, e);
    }
    /* the sum of the eigenvalues is the trace: its gradient is I */
    cj_val g;
    CHECK(cj_call(cj_grad(cj_func_new(ctx, "sum w", fn_wsum, 1, 1, NULL), NULL), &s, &g) == CJ_OK);
    double *G = tu_read_f64(g);
    for (int i = 0; i < 16; i++) CHECK_NEAR(G[i], i % 5 == 0, 1e-13, 1e-13);
    free(G);
    cj_ctx_free(ctx);
}

TEST(linalg_eigh_vmap_matches_a_loop) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 44;
    cj_val a = cj_transpose(sym(ctx, DIMS(3, 4, 4), &seed), (int64_t[]){1, 0, 2}), v;
    cj_func *vv = cj_vmap(cj_func_new(ctx, "v", fn_v, 1, 1, NULL), &(cj_vmap_opts){.in_axes = (int64_t[]){1}});
    CHECK(cj_call(vv, &a, &v) == CJ_OK);
    for (int64_t i = 0; i < 3; i++) {
        cj_val ai = cj_squeeze(cj_slice(a, (int64_t[]){0, i, 0}, (int64_t[]){4, i + 1, 4}, NULL), 1, (int64_t[]){1});
        cj_val vi = cj_squeeze(cj_slice(v, (int64_t[]){i, 0, 0}, (int64_t[]){i + 1, 4, 4}, NULL), 1, (int64_t[]){0});
        cj_val wv, ww;
        CHECK(cj_linalg_eigh(ai, &wv, &ww) == 0);
        CHECK(tu_same_bits(vi, wv));
    }
    cj_ctx_free(ctx);
}

static void fn_pipeline(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    cj_linalg_eigh(cj_tanh(in[0]), &out[0], &out[1]);
    out[1] = cj_exp(out[1]);
}

TEST(linalg_eigh_jit_matches_eager_both_backends) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 45;
    for (int dt = 0; dt < 2; dt++) {
        cj_val a = sym(ctx, DIMS(3, 5, 5), &seed);
        if (dt) a = cj_astype(a, CJ_F32);
        cj_func *f = cj_func_new(ctx, "pipeline", fn_pipeline, 1, 2, NULL);
        cj_val want[2];
        CHECK(cj_call(f, &a, want) == CJ_OK);
        cj_backend backends[] = {CJ_BACKEND_INTERP, CJ_BACKEND_CC};
        for (int k = 0; k < 2; k++) {
            cj_val got[2];
            CHECK(cj_call(cj_jit(f, &(cj_jit_opts){.backend = backends[k]}), &a, got) == CJ_OK);
            for (int i = 0; i < 2; i++) {
                double *g = tu_read_f64(got[i]), *w = tu_read_f64(want[i]);
                CHECK(g && w);
                for (int64_t j = 0; j < cj_val_size(got[i]); j++)
                    CHECK_MSG(th_close(g[j], w[j], dt ? 1e-5 : 1e-13, dt ? 1e-5 : 1e-13), "dt %d backend %d out %d [%lld]: %g vs %g",
                              dt, k, i, (long long)j, g[j], w[j]);
                free(g), free(w);
            }
        }
    }
    cj_spec s = {CJ_F32, 2, {4, 4}, 0};
    char *t = cj_make_jaxpr(cj_func_new(ctx, "p", fn_pipeline, 1, 2, NULL), 1, &s);
    CHECK(t);
    CHECK_STR_CONTAINS(t, "eigh[lower=True sort_eigenvalues=True subset_by_index=None]");
    cj_string_free(ctx, t);
    cj_ctx_free(ctx);
}
