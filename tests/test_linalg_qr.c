/* test_linalg_qr.c — the qr primitive (src/prim/linalg_qr.c), its kernel
 * (src/runtime/linalg_qr.c), its jvp (src/autodiff/rules_linalg.c) and
 * cj_linalg_qr (src/api/linalg_decomp.c).
 *
 * References are independent of the code under test: Q R = A, Qᵀ Q = I and
 * R upper triangular checked with plain loops; R's diagonal against the
 * closed form of a 2×2 (LAPACK's sign convention); jvp against central
 * differences in f64 and against the vjp (dot-product test); vmap against
 * a loop of single calls; jit against eager on both backends. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ad_check.h"
#include "harness.h"
#include "prim/linalg_bind.h"
#include "test_util.h"

/* max |Q R - A|, max |Qᵀ Q - I| and max |R below its diagonal| over a batch
 * of B matrices m×n, q m×qc, r qc×n. */
static void qr_residuals(const double *A, const double *Q, const double *R, int64_t B, int64_t m, int64_t n,
                         int64_t qc, double *rec, double *orth, double *low) {
    *rec = *orth = *low = 0;
    for (int64_t b = 0; b < B; b++) {
        const double *a = A + b * m * n, *q = Q + b * m * qc, *r = R + b * qc * n;
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                double s = 0;
                for (int64_t p = 0; p < qc; p++) s += q[i * qc + p] * r[p * n + j];
                *rec = fmax(*rec, fabs(s - a[i * n + j]));
            }
        for (int64_t i = 0; i < qc; i++)
            for (int64_t j = 0; j < qc; j++) {
                double s = 0;
                for (int64_t p = 0; p < m; p++) s += q[p * qc + i] * q[p * qc + j];
                *orth = fmax(*orth, fabs(s - (i == j)));
            }
        for (int64_t i = 0; i < qc; i++)
            for (int64_t j = 0; j < i && j < n; j++) *low = fmax(*low, fabs(r[i * n + j]));
    }
}

TEST(linalg_qr_reconstructs_every_shape_mode_dtype) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 31;
    static const int64_t shapes[][3] = {{2, 5, 3}, {3, 3, 5}, {2, 4, 4}, {1, 1, 3}, {1, 3, 1}, {1, 70, 40}};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
        for (int dt = 0; dt < 2; dt++)
            for (int full = 0; full < 2; full++) {
                int64_t B = shapes[s][0], m = shapes[s][1], n = shapes[s][2], k = m < n ? m : n, qc = full ? m : k;
                cj_val a = adc_uniform(ctx, DIMS(B, m, n), -1, 1, &seed), q, r;
                if (dt) a = cj_astype(a, CJ_F32);
                CHECK(cj_linalg_qr(a, full ? "complete" : "reduced", &q, &r) == 0);
                CHECK_EQ_INT(cj_val_dtype(q), dt ? CJ_F32 : CJ_F64);
                CHECK_EQ_INT(cj_val_dim(q, -1), qc);
                CHECK_EQ_INT(cj_val_dim(r, -2), qc);
                CHECK_EQ_INT(cj_val_dim(r, -1), n);
                double *A = tu_read_f64(a), *Q = tu_read_f64(q), *R = tu_read_f64(r), rec, orth, low;
                CHECK(A && Q && R);
                qr_residuals(A, Q, R, B, m, n, qc, &rec, &orth, &low);
                double tol = (dt ? 1e-6 : 1e-15) * 4 * (double)(m + n);
                CHECK_MSG(rec < tol && orth < tol && low == 0, "%lldx%lld dt %d full %d: %g %g %g", (long long)m,
                          (long long)n, dt, full, rec, orth, low);
                free(A), free(Q), free(R);
            }
    cj_ctx_free(ctx);
}

/* n = 256 (the size the issue names), one matrix: residuals of a few ulps·n. */
TEST(linalg_qr_large_square) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 32;
    int64_t n = 256;
    cj_val a = adc_uniform(ctx, DIMS(n, n), -1, 1, &seed), q, r;
    CHECK(cj_linalg_qr(a, NULL, &q, &r) == 0);
    double *A = tu_read_f64(a), *Q = tu_read_f64(q), *R = tu_read_f64(r), rec, orth, low;
    CHECK(A && Q && R);
    qr_residuals(A, Q, R, 1, n, n, n, &rec, &orth, &low);
    CHECK_MSG(rec < 4 * n * 2.2e-16 * 16 && orth < 4 * n * 2.2e-16 && low == 0, "%g %g %g", rec, orth, low);
    free(A), free(Q), free(R);
    cj_ctx_free(ctx);
}

/* A 2×2 in closed form: r00 = -sign(a00)·‖a[:,0]‖ (LAPACK's convention, so
 * JAX's), |det R| = |det A|; a zero column is not reflected; mode "r". */
TEST(linalg_qr_closed_form_and_modes) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    double a[] = {3, 1, 4, 2}, z[] = {0, 1, 0, 2};
    cj_val q, r;
    CHECK(cj_linalg_qr(cj_array(ctx, CJ_F64, DIMS(2, 2), a), "r", NULL, &r) == 0);
    double R[4];
    CHECK(cj_read(r, R, sizeof R) == CJ_OK);
    CHECK_NEAR(R[0], -5, 1e-15, 0);
    CHECK(R[2] == 0);
    CHECK_NEAR(fabs(R[0] * R[3]), 2, 1e-14, 0);
    CHECK(cj_linalg_qr(cj_array(ctx, CJ_F64, DIMS(2, 2), z), "reduced", &q, &r) == 0);
    double Q[4];
    CHECK(cj_read(q, Q, sizeof Q) == CJ_OK && cj_read(r, R, sizeof R) == CJ_OK);
    /* the zero column is not reflected, nor is the last 1-row one: Q = I */
    CHECK(Q[0] == 1 && Q[1] == 0 && Q[2] == 0 && Q[3] == 1);
    CHECK(R[0] == 0 && R[1] == 1 && R[2] == 0 && R[3] == 2);
    /* integers promote to f32 */
    int32_t ia[] = {1, 2, 3, 4, 5, 6};
    CHECK(cj_linalg_qr(cj_array(ctx, CJ_I32, DIMS(3, 2), ia), "reduced", &q, &r) == 0);
    CHECK_EQ_INT(cj_val_dtype(q), CJ_F32);
    cj_ctx_free(ctx);
}

TEST(linalg_qr_errors) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val q, r, f[2];
    CHECK(cj_linalg_qr(cj_zeros(ctx, CJ_F32, DIMS(4)), "reduced", &q, &r) != 0);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "linalg_qr: a must have at least 2 dimensions, got f32[4]");
    CHECK(cj_is_error(q) && cj_is_error(r));
    cj_error_clear(ctx);
    CHECK(cj_linalg_qr(cj_zeros(ctx, CJ_F32, DIMS(2, 2)), "full", &q, &r) != 0);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "linalg_qr: mode must be \"reduced\", \"complete\" or \"r\", got \"full\"");
    cj_error_clear(ctx);
    CHECK(cj_linalg_qr(cj_zeros(ctx, CJ_F32, DIMS(2, 2)), "reduced", NULL, &r) != 0);
    cj_error_clear(ctx);
    CHECK(lb_qr(cj_zeros(ctx, CJ_I32, DIMS(3, 3)), 0, f) != 0);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "qr: the operand must be f32 or f64, got i32[3,3]");
    cj_error_clear(ctx);
    cj_ctx_free(ctx);
}

static void fn_q(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    cj_val r;
    cj_linalg_qr(in[0], user ? "complete" : "reduced", &out[0], &r);
}
static void fn_r(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    cj_val q;
    cj_linalg_qr(in[0], user ? "complete" : "reduced", &q, &out[0]);
}

/* max |jvp - fd| / (1 + |fd|), central differences with step h. */
static double fd_error(cj_ctx *ctx, cj_func *f, cj_val x, uint64_t *seed) {
    int64_t dims[CJ_MAX_RANK];
    int rk = cj_val_shape(x, dims);
    double h = 1e-6;
    cj_val t = adc_uniform(ctx, rk, dims, -1, 1, seed), y, ty, yp, ym;
    cj_val xp = cj_add(x, cj_mul(t, cj_scalar(ctx, h))), xm = cj_sub(x, cj_mul(t, cj_scalar(ctx, h)));
    if (cj_jvp(f, &x, &t, &y, &ty) != CJ_OK || cj_call(f, &xp, &yp) != CJ_OK || cj_call(f, &xm, &ym) != CJ_OK)
        return -1;
    double *a = tu_read_f64(ty), *p = tu_read_f64(yp), *m = tu_read_f64(ym), worst = 0;
    if (!a || !p || !m) return -1;
    for (int64_t i = 0; i < cj_val_size(ty); i++) {
        double fd = (p[i] - m[i]) / (2 * h), e = fabs(a[i] - fd) / (1 + fabs(fd));
        if (!(e <= worst)) worst = e;
    }
    free(a), free(p), free(m);
    return worst;
}

/* <u, J v> against <Jᵀ u, v>. */
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

TEST(linalg_qr_jvp_matches_finite_differences_and_vjp) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 33;
    cj_val tall = adc_uniform(ctx, DIMS(2, 6, 4), -1, 1, &seed), sq = adc_uniform(ctx, DIMS(4, 4), -1, 1, &seed);
    int one = 1;
    struct {
        const char *name;
        cj_fn fn;
        void *user;
        cj_val x;
    } cases[] = {{"q tall", fn_q, NULL, tall}, {"r tall", fn_r, NULL, tall}, {"q square", fn_q, NULL, sq},
                 {"r square complete", fn_r, &one, sq}, {"q square complete", fn_q, &one, sq}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        cj_func *f = cj_func_new(ctx, cases[c].name, cases[c].fn, 1, 1, cases[c].user);
        double e = fd_error(ctx, f, cases[c].x, &seed);
        CHECK_MSG(e >= 0 && e < 1e-7, "%s: jvp vs fd %g (%s)", cases[c].name, e, cj_error(ctx) ? cj_error_message(ctx) : "");
        e = vjp_error(ctx, f, cases[c].x, &seed);
        CHECK_MSG(e >= 0 && e < 1e-12, "%s: jvp vs vjp %g", cases[c].name, e);
    }
    /* wide, or complete and tall: refused, naming the case */
    cj_val y, ty, wide = adc_uniform(ctx, DIMS(3, 5), -1, 1, &seed);
    cj_func *fq = cj_func_new(ctx, "q", fn_q, 1, 1, NULL);
    CHECK(cj_jvp(fq, &wide, &wide, &y, &ty) != CJ_OK);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "qr: jvp: the derivative is defined for m >= n");
    CHECK_STR_CONTAINS(cj_error_message(ctx), "f64[3,5]");
    cj_error_clear(ctx);
    cj_func *fc = cj_func_new(ctx, "qc", fn_q, 1, 1, &one);
    CHECK(cj_jvp(fc, &tall, &tall, &y, &ty) != CJ_OK);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "full_matrices=True");
    cj_error_clear(ctx);
    cj_ctx_free(ctx);
}

TEST(linalg_qr_vmap_matches_a_loop) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 34;
    cj_val a = adc_uniform(ctx, DIMS(5, 4, 3), -1, 1, &seed), q; /* mapped on axis 1: 4 matrices 5×3 */
    cj_func *vq = cj_vmap(cj_func_new(ctx, "q", fn_q, 1, 1, NULL), &(cj_vmap_opts){.in_axes = (int64_t[]){1}});
    CHECK(cj_call(vq, &a, &q) == CJ_OK);
    for (int64_t i = 0; i < 4; i++) {
        cj_val ai = cj_squeeze(cj_slice(a, (int64_t[]){0, i, 0}, (int64_t[]){5, i + 1, 3}, NULL), 1, (int64_t[]){1});
        cj_val qi = cj_squeeze(cj_slice(q, (int64_t[]){i, 0, 0}, (int64_t[]){i + 1, 5, 3}, NULL), 1, (int64_t[]){0});
        cj_val wq, wr;
        CHECK(cj_linalg_qr(ai, "reduced", &wq, &wr) == 0);
        CHECK(tu_same_bits(qi, wq));
    }
    cj_ctx_free(ctx);
}

static void fn_pipeline(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    cj_val q, r;
    cj_linalg_qr(cj_tanh(in[0]), "complete", &q, &r);
    out[0] = cj_exp(q);
    out[1] = cj_mul(r, r);
}

TEST(linalg_qr_jit_matches_eager_both_backends) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 35;
    for (int dt = 0; dt < 2; dt++) {
        cj_val a = adc_uniform(ctx, DIMS(3, 6, 4), -1, 1, &seed);
        if (dt) a = cj_astype(a, CJ_F32);
        cj_func *f = cj_func_new(ctx, "pipeline", fn_pipeline, 1, 2, NULL);
        cj_val want[2];
        CHECK(cj_call(f, &a, want) == CJ_OK);
        cj_backend backends[] = {CJ_BACKEND_INTERP, CJ_BACKEND_CC};
        for (int k = 0; k < 2; k++) {
            cj_func *jf = cj_jit(f, &(cj_jit_opts){.backend = backends[k]});
            cj_val got[2];
            CHECK(cj_call(jf, &a, got) == CJ_OK);
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
    cj_ctx_free(ctx);
}

static void fn_qr_both(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    cj_linalg_qr(in[0], "reduced", &out[0], &out[1]);
}

TEST(linalg_qr_jaxpr_text) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_spec s = {CJ_F32, 2, {5, 3}, 0};
    char *t = cj_make_jaxpr(cj_func_new(ctx, "qr", fn_qr_both, 1, 2, NULL), 1, &s);
    CHECK(t);
    CHECK_STR_CONTAINS(t, "qr[full_matrices=False pivoting=False use_magma=None]");
    CHECK_STR_CONTAINS(t, "f32[5,3]");
    CHECK_STR_CONTAINS(t, "f32[3,3]");
    cj_string_free(ctx, t);
    cj_ctx_free(ctx);
}
