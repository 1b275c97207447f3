/* test_linalg.c — the linear-algebra primitives (src/prim/linalg.c), their
 * rules (src/autodiff/rules_linalg.c) and the public composites
 * (src/api/linalg_solve.c).
 *
 * References are independent of the code under test: reconstruction
 * identities computed here with plain loops (L Lᵀ = A, A[perm] = L U,
 * A x = b), closed forms (2×2 and 3×3 determinants, d det = det·tr(A⁻¹dA)),
 * central finite differences in f64 for every jvp, the dot-product test
 * for transposes and vjps, a loop of single calls for vmap, and eager for
 * jit on both backends. JAX's own results on the same inputs are compared
 * in test_linalg_fixtures.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ad_check.h"
#include "harness.h"
#include "prim/linalg_bind.h"
#include "test_util.h"

/* ---- helpers ------------------------------------------------------------ */

static double *read_f64(cj_val v) {
    int64_t n = cj_val_size(v);
    double *b = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    if (cj_read_as(v, CJ_F64, b, sizeof(double) * (size_t)n) != CJ_OK) {
        free(b);
        return NULL;
    }
    return b;
}

/* A random f64 SPD matrix (or batch) of shape dims: M Mᵀ / n + I. */
static cj_val spd(cj_ctx *ctx, int rank, const int64_t *dims, uint64_t *seed) {
    cj_val m = adc_uniform(ctx, rank, dims, -1, 1, seed);
    int64_t n = dims[rank - 1];
    cj_val mmt = cj_matmul(m, cj_transpose(m, rank == 2 ? (int64_t[]){1, 0} : (int64_t[]){0, 2, 1}));
    return cj_add(cj_div(mmt, cj_scalar(ctx, (double)n)), cj_eye(ctx, n, n, 0, CJ_F64));
}

/* max over elements of |jvp - fd| / (1 + |fd|) for f (one output) at `in`,
 * random tangents on every input, central differences with step h. */
static double jvp_fd_error(cj_ctx *ctx, cj_func *f, int n_in, const cj_val *in, double h, uint64_t *seed) {
    cj_val t[4], plus[4], minus[4], y, ty, yp, ym;
    for (int i = 0; i < n_in; i++) {
        int64_t dims[CJ_MAX_RANK];
        int r = cj_val_shape(in[i], dims);
        t[i] = adc_uniform(ctx, r, dims, -1, 1, seed);
        plus[i] = cj_add(in[i], cj_mul(t[i], cj_scalar(ctx, h)));
        minus[i] = cj_sub(in[i], cj_mul(t[i], cj_scalar(ctx, h)));
    }
    if (cj_jvp(f, in, t, &y, &ty) != CJ_OK || cj_call(f, plus, &yp) != CJ_OK || cj_call(f, minus, &ym) != CJ_OK)
        return -1;
    double *a = read_f64(ty), *p = read_f64(yp), *m = read_f64(ym), worst = 0;
    if (!a || !p || !m) return -1;
    for (int64_t i = 0; i < cj_val_size(ty); i++) {
        double fd = (p[i] - m[i]) / (2 * h), e = fabs(a[i] - fd) / (1 + fabs(fd));
        if (!(e <= worst)) worst = e;
    }
    free(a), free(p), free(m);
    return worst;
}

/* |<u, J v> - <Jᵀ u, v>| / (1 + |<u, J v>|) through cj_jvp and cj_vjp. */
static double jvp_vjp_error(cj_ctx *ctx, cj_func *f, int n_in, const cj_val *in, uint64_t *seed) {
    cj_val v[4], y, jv, ct[4];
    for (int i = 0; i < n_in; i++) {
        int64_t dims[CJ_MAX_RANK];
        int r = cj_val_shape(in[i], dims);
        v[i] = adc_uniform(ctx, r, dims, -1, 1, seed);
    }
    if (cj_jvp(f, in, v, &y, &jv) != CJ_OK) return -1;
    int64_t dims[CJ_MAX_RANK];
    int r = cj_val_shape(y, dims);
    cj_val u = adc_uniform(ctx, r, dims, -1, 1, seed), y2;
    cj_func *pb = cj_vjp(f, in, &y2);
    if (!pb || cj_call(pb, &u, ct) != CJ_OK) return -1;
    double lhs = adc_dot(u, jv), rhs = 0;
    for (int i = 0; i < n_in; i++) rhs += adc_dot(ct[i], v[i]);
    cj_func_free(pb);
    return fabs(lhs - rhs) / (1 + fabs(lhs));
}

static void fn_cholesky(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_linalg_cholesky(in[0]);
}
static void fn_solve(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_linalg_solve(in[0], in[1]);
}
static void fn_lu_factors(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    cj_val f[3];
    cj_linalg_lu(in[0], f);
    out[0] = f[0];
}
static void fn_det(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_linalg_det(in[0]);
}
static void fn_logabsdet(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    cj_val s;
    cj_linalg_slogdet(in[0], &s, &out[0]);
}
static void fn_inv(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_linalg_inv(in[0]);
}
static void fn_cho_solve(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_linalg_cho_solve(cj_linalg_cholesky(in[0]), in[1], 1);
}
/* triangular_solve with the flags in user (an int) */
static void fn_trsm(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    out[0] = lb_trsm(in[0], in[1], *(const int *)user);
}

/* ---- eager values ------------------------------------------------------- */

TEST(linalg_cholesky_reconstructs_batched_f32_f64) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 1;
    for (int dt = 0; dt < 2; dt++) {
        cj_val a = spd(ctx, DIMS(3, 6, 6), &seed);
        if (dt) a = cj_astype(a, CJ_F32);
        cj_val l = cj_linalg_cholesky(a);
        CHECK(!cj_is_error(l));
        CHECK_EQ_INT(cj_val_dtype(l), dt ? CJ_F32 : CJ_F64);
        double *L = read_f64(l), *A = read_f64(a);
        CHECK(L && A);
        for (int b = 0; b < 3; b++)
            for (int i = 0; i < 6; i++)
                for (int j = 0; j < 6; j++) {
                    const double *Lb = L + b * 36;
                    if (j > i) CHECK(Lb[i * 6 + j] == 0);
                    double s = 0;
                    for (int p = 0; p < 6; p++) s += Lb[i * 6 + p] * Lb[j * 6 + p];
                    CHECK_NEAR(s, A[b * 36 + i * 6 + j], dt ? 1e-5 : 1e-13, dt ? 1e-5 : 1e-13);
                }
        free(L), free(A);
    }
    cj_ctx_free(ctx);
}

TEST(linalg_cholesky_not_positive_definite_is_nan) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    double a[] = {1, 2, 2, 1}; /* eigenvalues 3 and -1 */
    cj_val l = cj_linalg_cholesky(cj_array(ctx, CJ_F64, DIMS(2, 2), a));
    CHECK(!cj_is_error(l));
    double *L = read_f64(l);
    for (int i = 0; i < 4; i++) CHECK(isnan(L[i]));
    free(L);
    cj_ctx_free(ctx);
}

TEST(linalg_lu_reconstructs_and_pivots) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 2;
    static const int64_t shapes[][3] = {{2, 5, 5}, {1, 6, 4}, {1, 3, 7}};
    for (int s = 0; s < 3; s++) {
        int64_t B = shapes[s][0], m = shapes[s][1], n = shapes[s][2], k = m < n ? m : n;
        cj_val a = adc_uniform(ctx, DIMS(B, m, n), -1, 1, &seed), f[3];
        CHECK(cj_linalg_lu(a, f) == 0);
        CHECK_EQ_INT(cj_val_dtype(f[1]), CJ_I32);
        CHECK_EQ_INT(cj_val_dim(f[1], -1), k);
        CHECK_EQ_INT(cj_val_dim(f[2], -1), m);
        double *A = read_f64(a), *LU = read_f64(f[0]);
        int32_t *perm = malloc(sizeof(int32_t) * (size_t)(B * m));
        CHECK(cj_read(f[2], perm, sizeof(int32_t) * (size_t)(B * m)) == CJ_OK);
        for (int64_t b = 0; b < B; b++)
            for (int64_t i = 0; i < m; i++)
                for (int64_t j = 0; j < n; j++) {
                    const double *lu = LU + b * m * n;
                    double acc = 0;
                    for (int64_t q = 0; q < k && q <= i && q <= j; q++)
                        acc += (q == i ? 1 : lu[i * n + q]) * lu[q * n + j];
                    CHECK_NEAR(acc, A[b * m * n + perm[b * m + i] * n + j], 1e-13, 1e-13);
                }
        free(A), free(LU), free(perm);
    }
    cj_ctx_free(ctx);
}

TEST(linalg_solve_det_slogdet_inv_values) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    double a[] = {2, -1, 0.5, 1, 3, -2, 0, 1, 4}, b[] = {1, 2, 3};
    cj_val A = cj_array(ctx, CJ_F64, DIMS(3, 3), a), B = cj_array(ctx, CJ_F64, DIMS(3), b);
    cj_val x = cj_linalg_solve(A, B);
    CHECK_EQ_INT(cj_val_rank(x), 1);
    double *X = read_f64(x);
    for (int i = 0; i < 3; i++) CHECK_NEAR(a[i * 3] * X[0] + a[i * 3 + 1] * X[1] + a[i * 3 + 2] * X[2], b[i], 1e-14, 1e-14);
    free(X);
    /* the 3×3 determinant by the rule of Sarrus */
    double det = a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) + a[2] * (a[3] * a[7] - a[4] * a[6]);
    double got;
    CHECK(cj_read(cj_linalg_det(A), &got, sizeof got) == CJ_OK);
    CHECK_NEAR(got, det, 1e-14, 0);
    cj_val sg, la;
    CHECK(cj_linalg_slogdet(cj_neg(A), &sg, &la) == 0);
    double s, l;
    CHECK(cj_read(sg, &s, sizeof s) == CJ_OK && cj_read(la, &l, sizeof l) == CJ_OK);
    CHECK(s == (det > 0 ? -1 : 1)); /* det(-A) = -det(A) for 3×3 */
    CHECK_NEAR(l, log(fabs(det)), 1e-14, 1e-14);
    /* a singular matrix: sign 0, log|det| -inf */
    double sing[] = {1, 2, 2, 4};
    CHECK(cj_linalg_slogdet(cj_array(ctx, CJ_F64, DIMS(2, 2), sing), &sg, &la) == 0);
    CHECK(cj_read(sg, &s, sizeof s) == CJ_OK && cj_read(la, &l, sizeof l) == CJ_OK);
    CHECK(s == 0 && isinf(l) && l < 0);
    /* inv: A · inv(A) = I */
    double *I = read_f64(cj_matmul(A, cj_linalg_inv(A)));
    for (int i = 0; i < 9; i++) CHECK_NEAR(I[i], i % 4 == 0, 1e-14, 1e-14);
    free(I);
    /* integer operands promote to f32, as jnp */
    int32_t ia[] = {2, 1, 1, 3}, ib[] = {3, 5};
    cj_val xi = cj_linalg_solve(cj_array(ctx, CJ_I32, DIMS(2, 2), ia), cj_array(ctx, CJ_I32, DIMS(2), ib));
    CHECK_EQ_INT(cj_val_dtype(xi), CJ_F32);
    float xf[2];
    CHECK(cj_read(xi, xf, sizeof xf) == CJ_OK);
    CHECK_NEAR(xf[0], 0.8, 1e-6, 0);
    CHECK_NEAR(xf[1], 1.4, 1e-6, 0);
    cj_ctx_free(ctx);
}

TEST(linalg_triangular_and_cho_solve_values) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 4;
    cj_val a = spd(ctx, DIMS(5, 5), &seed), b = adc_uniform(ctx, DIMS(5, 3), -1, 1, &seed);
    cj_val c = cj_linalg_cholesky(a);
    /* cho_solve: a x = b */
    double *r = read_f64(cj_sub(cj_matmul(a, cj_linalg_cho_solve(c, b, 1)), b));
    for (int i = 0; i < 15; i++) CHECK_NEAR(r[i], 0, 0, 1e-13);
    free(r);
    /* upper factor cᵀ with lower = 0 gives the same */
    r = read_f64(cj_sub(cj_matmul(a, cj_linalg_cho_solve(cj_transpose(c, (int64_t[]){1, 0}), b, 0)), b));
    for (int i = 0; i < 15; i++) CHECK_NEAR(r[i], 0, 0, 1e-13);
    free(r);
    /* solve_triangular with trans = 1: cᵀ x = b */
    r = read_f64(cj_sub(cj_matmul(cj_transpose(c, (int64_t[]){1, 0}), cj_linalg_triangular_solve(c, b, 1, 1, 0)), b));
    for (int i = 0; i < 15; i++) CHECK_NEAR(r[i], 0, 0, 1e-13);
    free(r);
    cj_ctx_free(ctx);
}

/* ---- errors ------------------------------------------------------------- */

TEST(linalg_errors_name_the_operation_and_shapes) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val r = cj_linalg_cholesky(cj_zeros(ctx, CJ_F32, DIMS(3, 4)));
    CHECK(cj_is_error(r));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "linalg_cholesky: a must be a square matrix");
    CHECK_STR_CONTAINS(cj_error_message(ctx), "f32[3,4]");
    cj_error_clear(ctx);
    r = cj_linalg_solve(cj_zeros(ctx, CJ_F32, DIMS(3, 3)), cj_zeros(ctx, CJ_F32, DIMS(4)));
    CHECK(cj_is_error(r));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "linalg_solve: a f32[3,3] and b f32[4]: b's length must have size 3");
    cj_error_clear(ctx);
    r = cj_linalg_solve(cj_zeros(ctx, CJ_F32, DIMS(2, 3, 3)), cj_zeros(ctx, CJ_F32, DIMS(4, 3, 1)));
    CHECK(cj_is_error(r));
    cj_error_clear(ctx);
    /* the primitives are strict: integers are refused, naming the primitive */
    r = lb_cholesky(cj_zeros(ctx, CJ_I32, DIMS(3, 3)));
    CHECK(cj_is_error(r));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cholesky: the operand must be f32 or f64, got i32[3,3]");
    cj_error_clear(ctx);
    r = lb_trsm(cj_zeros(ctx, CJ_F32, DIMS(3, 3)), cj_zeros(ctx, CJ_F32, DIMS(2, 4)), LB_LEFT);
    CHECK(cj_is_error(r));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "triangular_solve: with left_side=True, b's dimension 0 must match");
    cj_error_clear(ctx);
    r = lb_trsm(cj_zeros(ctx, CJ_F32, DIMS(3, 3)), cj_zeros(ctx, CJ_F64, DIMS(3, 4)), LB_LEFT);
    CHECK(cj_is_error(r));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "same dtype");
    cj_error_clear(ctx);
    cj_val f[3];
    CHECK(cj_linalg_lu(cj_zeros(ctx, CJ_F32, DIMS(4)), f) != 0);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "lu: the operand must have at least 2 dimensions, got f32[4]");
    cj_error_clear(ctx);
    CHECK(cj_is_error(cj_linalg_lu_solve(cj_zeros(ctx, CJ_F32, DIMS(3, 3)), cj_zeros(ctx, CJ_F32, DIMS(3)),
                                          cj_zeros(ctx, CJ_F32, DIMS(3)))));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "the permutation must be i32");
    cj_error_clear(ctx);
    CHECK(cj_is_error(cj_linalg_cholesky((cj_val){0})));
    cj_error_clear(NULL);
    cj_ctx_free(ctx);
}

/* ---- derivatives -------------------------------------------------------- */

TEST(linalg_triangular_solve_rules_every_option) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 7;
    for (int flags = 0; flags < 32; flags++) {
        if (flags & LB_CONJUGATE) continue; /* means nothing for reals */
        int left = flags & LB_LEFT;
        cj_val a = cj_add(adc_uniform(ctx, DIMS(4, 4), -1, 1, &seed), cj_mul(cj_eye(ctx, 4, 4, 0, CJ_F64), cj_scalar(ctx, 4)));
        cj_val b = left ? adc_uniform(ctx, DIMS(4, 3), -1, 1, &seed) : adc_uniform(ctx, DIMS(3, 4), -1, 1, &seed);
        prim_params p = prim_params_zero();
        p.flag = flags;
        double e = adc_prim_jvp_error(ctx, PRIM_TRIANGULAR_SOLVE, &p, 2, (cj_val[]){a, b}, (int[]){1, 1}, seed);
        CHECK_MSG(e >= 0 && e < 1e-6, "flags %d: jvp vs fd %g (%s)", flags, e, cj_error(ctx) ? cj_error_message(ctx) : "");
        e = adc_prim_transpose_error(ctx, PRIM_TRIANGULAR_SOLVE, &p, 2, (cj_val[]){a, b}, (int[]){0, 1}, seed);
        CHECK_MSG(e >= 0 && e < 1e-12, "flags %d: transpose %g", flags, e);
        cj_func *f = cj_func_new(ctx, "trsm", fn_trsm, 2, 1, &flags);
        e = jvp_vjp_error(ctx, f, 2, (cj_val[]){a, b}, &seed);
        CHECK_MSG(e >= 0 && e < 1e-12, "flags %d: jvp vs vjp %g", flags, e);
    }
    cj_ctx_free(ctx);
}

TEST(linalg_composite_jvps_match_finite_differences) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 9;
    cj_val s = spd(ctx, DIMS(2, 4, 4), &seed);
    cj_val g = cj_add(adc_uniform(ctx, DIMS(2, 4, 4), -1, 1, &seed), cj_mul(cj_eye(ctx, 4, 4, 0, CJ_F64), cj_scalar(ctx, 3)));
    cj_val b = adc_uniform(ctx, DIMS(2, 4, 2), -1, 1, &seed);
    cj_val tall = adc_uniform(ctx, DIMS(6, 4), -1, 1, &seed), wide = adc_uniform(ctx, DIMS(2, 4, 6), -1, 1, &seed);
    struct {
        const char *name;
        cj_fn fn;
        int n_in;
        cj_val in[2];
    } cases[] = {
        {"cholesky", fn_cholesky, 1, {s}},   {"solve", fn_solve, 2, {g, b}}, {"lu", fn_lu_factors, 1, {g}},
        {"det", fn_det, 1, {g}},             {"slogdet", fn_logabsdet, 1, {g}}, {"inv", fn_inv, 1, {g}},
        {"cho_solve", fn_cho_solve, 2, {s, b}},
        {"lu tall", fn_lu_factors, 1, {tall}}, {"lu wide", fn_lu_factors, 1, {wide}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        cj_func *f = cj_func_new(ctx, cases[c].name, cases[c].fn, cases[c].n_in, 1, NULL);
        double e = jvp_fd_error(ctx, f, cases[c].n_in, cases[c].in, 1e-6, &seed);
        CHECK_MSG(e >= 0 && e < 1e-7, "%s: jvp vs fd %g (%s)", cases[c].name, e, cj_error(ctx) ? cj_error_message(ctx) : "");
        e = jvp_vjp_error(ctx, f, cases[c].n_in, cases[c].in, &seed);
        CHECK_MSG(e >= 0 && e < 1e-12, "%s: jvp vs vjp %g (%s)", cases[c].name, e, cj_error(ctx) ? cj_error_message(ctx) : "");
    }
    cj_ctx_free(ctx);
}

/* d det(A) = det(A) · tr(A⁻¹ dA): grad det = det · A⁻ᵀ (a closed form). */
TEST(linalg_grad_det_closed_form) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    double a[] = {3, 1, 2, 5}; /* det 13, A⁻¹ = [[5, -1], [-2, 3]] / 13 */
    cj_func *gd = cj_grad(cj_func_new(ctx, "det", fn_det, 1, 1, NULL), NULL);
    cj_val g;
    CHECK(cj_call(gd, (cj_val[]){cj_array(ctx, CJ_F64, DIMS(2, 2), a)}, &g) == CJ_OK);
    double *G = read_f64(g), want[] = {5, -2, -1, 3};
    for (int i = 0; i < 4; i++) CHECK_NEAR(G[i], want[i], 1e-14, 1e-14);
    free(G);
    cj_ctx_free(ctx);
}

/* ---- vmap and jit ------------------------------------------------------- */

TEST(linalg_vmap_matches_a_loop) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 12;
    cj_val a = cj_add(adc_uniform(ctx, DIMS(5, 3, 3), -1, 1, &seed), cj_eye(ctx, 3, 3, 0, CJ_F64));
    cj_val b = adc_uniform(ctx, DIMS(3, 2), -1, 1, &seed);
    /* a mapped, b shared */
    cj_func *vs = cj_vmap(cj_func_new(ctx, "solve", fn_solve, 2, 1, NULL),
                          &(cj_vmap_opts){.in_axes = (int64_t[]){0, CJ_NOT_MAPPED}});
    cj_val x;
    CHECK(cj_call(vs, (cj_val[]){a, b}, &x) == CJ_OK);
    for (int64_t i = 0; i < 5; i++) {
        cj_val ai = cj_squeeze(cj_slice(a, (int64_t[]){i, 0, 0}, (int64_t[]){i + 1, 3, 3}, NULL), 1, (int64_t[]){0});
        cj_val xi = cj_squeeze(cj_slice(x, (int64_t[]){i, 0, 0}, (int64_t[]){i + 1, 3, 2}, NULL), 1, (int64_t[]){0});
        CHECK(tu_same_bits(xi, cj_linalg_solve(ai, b)));
    }
    /* lu (three results) and cholesky under vmap, mapped on axis 1 */
    cj_val s = cj_transpose(spd(ctx, DIMS(4, 3, 3), &seed), (int64_t[]){1, 0, 2});
    cj_func *vc = cj_vmap(cj_func_new(ctx, "chol", fn_cholesky, 1, 1, NULL), &(cj_vmap_opts){.in_axes = (int64_t[]){1}});
    cj_func *vl = cj_vmap(cj_func_new(ctx, "lu", fn_lu_factors, 1, 1, NULL), &(cj_vmap_opts){.in_axes = (int64_t[]){1}});
    cj_val l, f;
    CHECK(cj_call(vc, &s, &l) == CJ_OK && cj_call(vl, &s, &f) == CJ_OK);
    for (int64_t i = 0; i < 4; i++) {
        cj_val si = cj_squeeze(cj_slice(s, (int64_t[]){0, i, 0}, (int64_t[]){3, i + 1, 3}, NULL), 1, (int64_t[]){1});
        cj_val li = cj_squeeze(cj_slice(l, (int64_t[]){i, 0, 0}, (int64_t[]){i + 1, 3, 3}, NULL), 1, (int64_t[]){0});
        cj_val fi = cj_squeeze(cj_slice(f, (int64_t[]){i, 0, 0}, (int64_t[]){i + 1, 3, 3}, NULL), 1, (int64_t[]){0});
        cj_val g[3];
        CHECK(cj_linalg_lu(si, g) == 0);
        CHECK(tu_same_bits(li, cj_linalg_cholesky(si)));
        CHECK(tu_same_bits(fi, g[0]));
    }
    cj_ctx_free(ctx);
}

static void fn_pipeline(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    /* a factorisation fed by fused elementwise work and feeding more */
    cj_val a = cj_add(in[0], cj_mul(cj_eye(ctx, 6, 6, 0, CJ_F32), cj_scalar(ctx, 2)));
    cj_val s;
    out[0] = cj_tanh(cj_linalg_solve(a, cj_exp(in[1])));
    out[1] = cj_linalg_cholesky(cj_matmul(a, cj_transpose(a, (int64_t[]){0, 2, 1})));
    cj_linalg_slogdet(a, &s, &out[2]);
    out[3] = s;
}

TEST(linalg_jit_matches_eager_both_backends) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 13;
    cj_val a = cj_astype(adc_uniform(ctx, DIMS(3, 6, 6), -1, 1, &seed), CJ_F32);
    cj_val b = cj_astype(adc_uniform(ctx, DIMS(3, 6, 2), -1, 1, &seed), CJ_F32);
    cj_func *f = cj_func_new(ctx, "pipeline", fn_pipeline, 2, 4, NULL);
    cj_val want[4];
    CHECK(cj_call(f, (cj_val[]){a, b}, want) == CJ_OK);
    cj_backend backends[] = {CJ_BACKEND_INTERP, CJ_BACKEND_CC};
    for (int k = 0; k < 2; k++) {
        cj_func *jf = cj_jit(f, &(cj_jit_opts){.backend = backends[k]});
        cj_val got[4];
        CHECK(cj_call(jf, (cj_val[]){a, b}, got) == CJ_OK);
        for (int i = 0; i < 4; i++) {
            double *g = read_f64(got[i]), *w = read_f64(want[i]);
            for (int64_t j = 0; j < cj_val_size(got[i]); j++)
                CHECK_MSG(th_close(g[j], w[j], 1e-5, 1e-5), "backend %d output %d [%lld]: %g vs %g", k, i, (long long)j, g[j], w[j]);
            free(g), free(w);
        }
    }
    cj_ctx_free(ctx);
}

/* linear_solve: both orientations solve a x = b / aᵀ x = b from one LU,
 * and its transpose (in b) passes the dot-product test. */
TEST(linalg_linear_solve_both_orientations_and_transpose) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 17;
    cj_val a = cj_add(adc_uniform(ctx, DIMS(2, 5, 5), -1, 1, &seed), cj_eye(ctx, 5, 5, 0, CJ_F64));
    cj_val b = adc_uniform(ctx, DIMS(2, 5, 3), -1, 1, &seed), f[3];
    CHECK(lb_lu(a, f) == 0);
    for (int t = 0; t < 2; t++) {
        cj_val x = lb_linear_solve(f[0], f[2], a, b, t);
        double *r = read_f64(cj_sub(t ? lb_matmul(a, x, 1, 0) : cj_matmul(a, x), b));
        CHECK(r);
        for (int i = 0; i < 30; i++) CHECK_NEAR(r[i], 0, 0, 1e-13);
        free(r);
        prim_params p = prim_params_zero();
        p.flag = t ? LB_TRANSPOSE : 0;
        double e = adc_prim_transpose_error(ctx, PRIM_LINEAR_SOLVE, &p, 4, (cj_val[]){f[0], f[2], a, b},
                                            (int[]){0, 0, 0, 1}, seed);
        CHECK_MSG(e >= 0 && e < 1e-12, "transpose %d: %g", t, e);
    }
    CHECK(cj_is_error(lb_linear_solve(f[0], cj_zeros(ctx, CJ_I32, DIMS(2, 4)), a, b, 0)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "linear_solve: the permutation must be i32 of lu's shape");
    cj_error_clear(ctx);
    cj_ctx_free(ctx);
}

/* The IR names the primitives and their parameters as JAX's jaxprs do. */
TEST(linalg_jaxpr_text) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_spec s[2] = {{CJ_F32, 2, {4, 4}, 0}, {CJ_F32, 1, {4}, 0}};
    char *t = cj_make_jaxpr(cj_func_new(ctx, "solve", fn_solve, 2, 1, NULL), 2, s);
    CHECK(t);
    CHECK_STR_CONTAINS(t, "= lu ");
    CHECK_STR_CONTAINS(t, "linear_solve[transpose_a=False]");
    cj_string_free(ctx, t);
    t = cj_make_jaxpr(cj_func_new(ctx, "cho", fn_cho_solve, 2, 1, NULL), 2, s);
    CHECK(t);
    CHECK_STR_CONTAINS(t, "cholesky[symmetrize_input=True]");
    CHECK_STR_CONTAINS(t, "triangular_solve[conjugate_a=False left_side=True lower=True transpose_a=False "
                          "unit_diagonal=False]");
    cj_string_free(ctx, t);
    cj_ctx_free(ctx);
}

/* lu_solve from cj_linalg_lu's factors: a x = b for vector and matrix b. */
TEST(linalg_lu_solve_from_factors) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 19;
    cj_val a = cj_add(adc_uniform(ctx, DIMS(3, 4, 4), -1, 1, &seed), cj_eye(ctx, 4, 4, 0, CJ_F64));
    cj_val bm = adc_uniform(ctx, DIMS(3, 4, 2), -1, 1, &seed), bv = adc_uniform(ctx, DIMS(4), -1, 1, &seed), f[3];
    CHECK(cj_linalg_lu(a, f) == 0);
    double *r = read_f64(cj_sub(cj_matmul(a, cj_linalg_lu_solve(f[0], f[2], bm)), bm));
    for (int i = 0; i < 24; i++) CHECK_NEAR(r[i], 0, 0, 1e-13);
    free(r);
    cj_val xv = cj_linalg_lu_solve(f[0], f[2], bv);
    CHECK_EQ_INT(cj_val_rank(xv), 2); /* the batch of 3 broadcast against one vector */
    r = read_f64(cj_sub(cj_matmul(a, cj_expand_dims(xv, -1)), cj_broadcast_to(cj_expand_dims(bv, -1), 3, (int64_t[]){3, 4, 1})));
    for (int i = 0; i < 12; i++) CHECK_NEAR(r[i], 0, 0, 1e-13);
    free(r);
    cj_ctx_free(ctx);
}
