/* test_linalg_svd.c — the svd primitive (src/prim/linalg_svd.c), its
 * one-sided Jacobi kernel (src/runtime/linalg_svd.c), its jvp
 * (src/autodiff/rules_linalg.c) and cj_linalg_svd / _svdvals.
 *
 * References independent of the code under test: U diag(s) Vᵀ = A, Uᵀ U =
 * I, V Vᵀ = I and descending order with plain loops; s² against the
 * eigenvalues of AᵀA by eigh (another algorithm); closed forms (a diagonal
 * matrix, a rank-one one); jvp against central differences in f64 for s,
 * U∘U and Vᵀ∘Vᵀ (sign-free), the jvp of U diag(s) Vᵀ being dA itself, and
 * against the vjp; vmap against a loop; jit against eager on both
 * backends. */
#include <math.h>
#include <stdlib.h>

#include "ad_check.h"
#include "harness.h"
#include "prim/linalg_bind.h"
#include "test_util.h"

/* max |Aᵀ A - I| over the columns of the batch of rows×cols matrices. */
static double orth_cols(const double *q, int64_t B, int64_t rows, int64_t cols) {
    double e = 0;
    for (int64_t b = 0; b < B; b++)
        for (int64_t i = 0; i < cols; i++)
            for (int64_t j = 0; j < cols; j++) {
                double s = 0;
                for (int64_t p = 0; p < rows; p++) s += q[b * rows * cols + p * cols + i] * q[b * rows * cols + p * cols + j];
                e = fmax(e, fabs(s - (i == j)));
            }
    return e;
}

TEST(linalg_svd_reconstructs_every_shape) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 51;
    static const int64_t shapes[][3] = {{2, 5, 3}, {3, 3, 5}, {2, 4, 4}, {1, 1, 3}, {1, 4, 1}, {1, 40, 30}};
    for (size_t c = 0; c < sizeof shapes / sizeof *shapes; c++)
        for (int dt = 0; dt < 2; dt++)
            for (int full = 0; full < 2; full++) {
                int64_t B = shapes[c][0], m = shapes[c][1], n = shapes[c][2], k = m < n ? m : n;
                int64_t uc = full ? m : k, vr = full ? n : k;
                cj_val a = adc_uniform(ctx, DIMS(B, m, n), -1, 1, &seed), u, s, vt;
                if (dt) a = cj_astype(a, CJ_F32);
                CHECK(cj_linalg_svd(a, full, &u, &s, &vt) == 0);
                CHECK_EQ_INT(cj_val_dtype(u), dt ? CJ_F32 : CJ_F64);
                CHECK_EQ_INT(cj_val_dim(u, -1), uc);
                CHECK_EQ_INT(cj_val_dim(vt, -2), vr);
                CHECK_EQ_INT(cj_val_dim(s, -1), k);
                double *A = tu_read_f64(a), *U = tu_read_f64(u), *S = tu_read_f64(s), *VT = tu_read_f64(vt), rec = 0;
                CHECK(A && U && S && VT);
                for (int64_t b = 0; b < B; b++) {
                    for (int64_t j = 1; j < k; j++) CHECK(S[b * k + j - 1] >= S[b * k + j]);
                    for (int64_t i = 0; i < m; i++)
                        for (int64_t j = 0; j < n; j++) {
                            double acc = 0;
                            for (int64_t p = 0; p < k; p++)
                                acc += U[b * m * uc + i * uc + p] * S[b * k + p] * VT[b * vr * n + p * n + j];
                            rec = fmax(rec, fabs(acc - A[b * m * n + i * n + j]));
                        }
                }
                /* V Vᵀ = I: vt's rows orthonormal = vtᵀ's columns */
                cj_val v = lb_mT(vt);
                double *V = tu_read_f64(v);
                double tol = (dt ? 1.2e-7 : 2.3e-16) * 8 * (double)(m + n);
                double ou = orth_cols(U, B, m, uc), ov = orth_cols(V, B, n, vr);
                CHECK_MSG(rec < tol * 4 && ou < tol && ov < tol, "%lldx%lld dt %d full %d: %g %g %g", (long long)m,
                          (long long)n, dt, full, rec, ou, ov);
                free(A), free(U), free(S), free(VT), free(V);
            }
    cj_ctx_free(ctx);
}

/* s² are the eigenvalues of AᵀA (by eigh, reversed); closed forms. */
TEST(linalg_svd_values_against_eigh_and_closed_forms) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 52;
    cj_val a = adc_uniform(ctx, DIMS(7, 4), -1, 1, &seed);
    double *S = tu_read_f64(cj_linalg_svdvals(a)), *E = tu_read_f64(cj_linalg_eigvalsh(lb_matmul(a, a, 1, 0)));
    CHECK(S && E);
    for (int i = 0; i < 4; i++) CHECK_NEAR(S[i] * S[i], E[3 - i], 1e-13, 1e-13);
    free(S), free(E);
    double d[] = {0, 0, 0, 0, -3, 0, 2, 0, 0}; /* singular values 3, 2, 0 */
    S = tu_read_f64(cj_linalg_svdvals(cj_array(ctx, CJ_F64, DIMS(3, 3), d)));
    CHECK(S && S[0] == 3 && S[1] == 2 && S[2] == 0);
    free(S);
    /* rank one: x yᵀ has ‖x‖‖y‖ and zeros; U and V still complete and orthonormal */
    double r1[] = {1, 2, 2, 4, 3, 6};
    cj_val u, s, vt;
    CHECK(cj_linalg_svd(cj_array(ctx, CJ_F64, DIMS(3, 2), r1), 1, &u, &s, &vt) == 0);
    S = tu_read_f64(s);
    double *U = tu_read_f64(u);
    CHECK_NEAR(S[0], sqrt(14) * sqrt(5), 1e-14, 0);
    CHECK_NEAR(S[1], 0, 0, 1e-14);
    CHECK(orth_cols(U, 1, 3, 3) < 1e-14);
    free(S), free(U);
    int32_t ia[] = {1, 2, 3, 4};
    CHECK_EQ_INT(cj_val_dtype(cj_linalg_svdvals(cj_array(ctx, CJ_I32, DIMS(2, 2), ia))), CJ_F32);
    cj_ctx_free(ctx);
}

TEST(linalg_svd_errors) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val u, s, vt, f[3];
    CHECK(cj_linalg_svd(cj_zeros(ctx, CJ_F32, DIMS(4)), 0, &u, &s, &vt) != 0);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "linalg_svd: a must have at least 2 dimensions, got f32[4]");
    CHECK(cj_is_error(u) && cj_is_error(s) && cj_is_error(vt));
    cj_error_clear(ctx);
    CHECK(cj_is_error(cj_linalg_svdvals(cj_zeros(ctx, CJ_F64, DIMS(2)))));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "linalg_svdvals: a must have at least 2 dimensions");
    cj_error_clear(ctx);
    CHECK(lb_svd(cj_zeros(ctx, CJ_I32, DIMS(3, 3)), 0, 1, f) != 0);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "svd: the operand must be f32 or f64, got i32[3,3]");
    cj_error_clear(ctx);
    cj_ctx_free(ctx);
}

static void fn_s(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_linalg_svdvals(in[0]);
}
static void fn_u2(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    cj_val u, s, vt;
    cj_linalg_svd(in[0], 0, &u, &s, &vt);
    out[0] = cj_mul(u, u);
}
static void fn_vt2(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    cj_val u, s, vt;
    cj_linalg_svd(in[0], 0, &u, &s, &vt);
    out[0] = cj_mul(vt, vt);
}
/* U diag(s) Vᵀ: A again, whose jvp must be the tangent itself */
static void fn_usv(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    cj_val u, s, vt;
    cj_linalg_svd(in[0], 0, &u, &s, &vt);
    out[0] = cj_matmul(cj_mul(u, cj_expand_dims(s, -2)), vt);
}

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

TEST(linalg_svd_jvp_matches_finite_differences_and_vjp) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 53;
    cj_val xs[] = {adc_uniform(ctx, DIMS(2, 6, 4), -1, 1, &seed), adc_uniform(ctx, DIMS(4, 4), -1, 1, &seed),
                   adc_uniform(ctx, DIMS(3, 5), -1, 1, &seed)};
    cj_fn fns[] = {fn_s, fn_u2, fn_vt2, fn_usv};
    const char *names[] = {"s", "u∘u", "vt∘vt", "u s vt"};
    for (int c = 0; c < 3; c++)
        for (int k = 0; k < 4; k++) {
            cj_func *f = cj_func_new(ctx, names[k], fns[k], 1, 1, NULL);
            double e = fd_error(ctx, f, xs[c], &seed);
            CHECK_MSG(e >= 0 && e < 1e-6, "case %d %s: jvp vs fd %g (%s)", c, names[k], e, cj_error(ctx) ? cj_error_message(ctx) : "");
            e = vjp_error(ctx, f, xs[c], &seed);
            CHECK_MSG(e >= 0 && e < 1e-12, "case %d %s: jvp vs vjp %g", c, names[k], e);
        }
    /* the jvp of U diag(s) Vᵀ is the tangent, to rounding */
    cj_val t = adc_uniform(ctx, DIMS(2, 6, 4), -1, 1, &seed), y, ty;
    CHECK(cj_jvp(cj_func_new(ctx, "usv", fn_usv, 1, 1, NULL), &xs[0], &t, &y, &ty) == CJ_OK);
    double *T = tu_read_f64(t), *TY = tu_read_f64(ty);
    for (int i = 0; i < 48; i++) CHECK_NEAR(TY[i], T[i], 1e-12, 1e-12);
    free(T), free(TY);
    cj_ctx_free(ctx);
}

TEST(linalg_svd_vmap_and_jit) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 54;
    cj_val a = adc_uniform(ctx, DIMS(5, 3, 4), -1, 1, &seed), s; /* mapped on axis 1 */
    cj_func *vs = cj_vmap(cj_func_new(ctx, "s", fn_s, 1, 1, NULL), &(cj_vmap_opts){.in_axes = (int64_t[]){1}});
    CHECK(cj_call(vs, &a, &s) == CJ_OK);
    for (int64_t i = 0; i < 3; i++) {
        cj_val ai = cj_squeeze(cj_slice(a, (int64_t[]){0, i, 0}, (int64_t[]){5, i + 1, 4}, NULL), 1, (int64_t[]){1});
        cj_val si = cj_squeeze(cj_slice(s, (int64_t[]){i, 0}, (int64_t[]){i + 1, 4}, NULL), 1, (int64_t[]){0});
        CHECK(tu_same_bits(si, cj_linalg_svdvals(ai)));
    }
    for (int dt = 0; dt < 2; dt++) {
        cj_val x = adc_uniform(ctx, DIMS(3, 6, 4), -1, 1, &seed);
        if (dt) x = cj_astype(x, CJ_F32);
        cj_func *f = cj_func_new(ctx, "usv", fn_usv, 1, 1, NULL);
        cj_val want;
        CHECK(cj_call(f, &x, &want) == CJ_OK);
        cj_backend backends[] = {CJ_BACKEND_INTERP, CJ_BACKEND_CC};
        for (int k = 0; k < 2; k++) {
            cj_val got;
            CHECK(cj_call(cj_jit(f, &(cj_jit_opts){.backend = backends[k]}), &x, &got) == CJ_OK);
            double *g = tu_read_f64(got), *w = tu_read_f64(want);
            for (int64_t j = 0; j < cj_val_size(got); j++)
                CHECK_MSG(th_close(g[j], w[j], dt ? 1e-5 : 1e-13, dt ? 1e-5 : 1e-13), "dt %d backend %d [%lld]", dt, k, (long long)j);
            free(g), free(w);
        }
    }
    cj_spec sp = {CJ_F32, 2, {4, 3}, 0};
    char *t = cj_make_jaxpr(cj_func_new(ctx, "s", fn_s, 1, 1, NULL), 1, &sp);
    CHECK(t);
    CHECK_STR_CONTAINS(t, "svd[algorithm=None compute_uv=False full_matrices=False subset_by_index=None]");
    cj_string_free(ctx, t);
    cj_ctx_free(ctx);
}
