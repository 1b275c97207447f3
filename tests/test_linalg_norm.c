/* test_linalg_norm.c — cj_linalg_norm, cj_linalg_cond and cj_linalg_pinv
 * (src/api/linalg_norm.c).
 *
 * References: every vector and matrix order computed here with plain loops
 * (row and column sums, sums of powers), the singular-value ones against
 * a diagonal matrix's closed form and against an orthogonal transform of
 * it (Q D, whose singular values are |d|); pinv by the Penrose conditions
 * and, for a full-column-rank matrix, against (AᵀA)⁻¹Aᵀ by solve; pinv's
 * and the nuclear norm's jvp against central differences. */
#include <math.h>
#include <stdlib.h>

#include "ad_check.h"
#include "harness.h"
#include "prim/linalg_bind.h"

static double one(cj_val v) {
    double d = NAN;
    cj_read_as(v, CJ_F64, &d, sizeof d);
    return d;
}

TEST(linalg_norm_vector_orders_against_loops) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    double x[] = {3, -4, 0, 1.5, -0.5};
    cj_val v = cj_array(ctx, CJ_F64, DIMS(5), x);
    double l1 = 0, l2 = 0, l3 = 0, mx = 0, mn = INFINITY, nz = 0;
    for (int i = 0; i < 5; i++) {
        double a = fabs(x[i]);
        l1 += a, l2 += a * a, l3 += a * a * a, mx = fmax(mx, a), mn = fmin(mn, a), nz += x[i] != 0;
    }
    CHECK_NEAR(one(cj_linalg_norm(v, NULL, 0, NULL)), sqrt(l2), 1e-15, 0);
    CHECK_NEAR(one(cj_linalg_norm(v, "1", 0, NULL)), l1, 1e-15, 0);
    CHECK_NEAR(one(cj_linalg_norm(v, "3", 0, NULL)), cbrt(l3), 1e-14, 0);
    CHECK(one(cj_linalg_norm(v, "inf", 0, NULL)) == mx);
    CHECK(one(cj_linalg_norm(v, "-inf", 0, NULL)) == mn);
    CHECK(one(cj_linalg_norm(v, "0", 0, NULL)) == nz);
    /* along an axis of a matrix: row norms */
    double m[] = {1, 2, 2, 3, 0, 4};
    double rows[2];
    CHECK(cj_read(cj_linalg_norm(cj_array(ctx, CJ_F64, DIMS(2, 3), m), NULL, 1, (int64_t[]){-1}), rows, sizeof rows) == CJ_OK);
    CHECK_NEAR(rows[0], 3, 1e-15, 0);
    CHECK_NEAR(rows[1], 5, 1e-15, 0);
    cj_ctx_free(ctx);
}

TEST(linalg_norm_matrix_orders_cond_against_closed_forms) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 61;
    double a[] = {1, -2, 3, 4, 5, -6}; /* 2×3 */
    cj_val A = cj_array(ctx, CJ_F64, DIMS(2, 3), a);
    double fro = 0, r0 = 1 + 2 + 3, r1 = 4 + 5 + 6, c[3] = {5, 7, 9};
    for (int i = 0; i < 6; i++) fro += a[i] * a[i];
    CHECK_NEAR(one(cj_linalg_norm(A, NULL, 0, NULL)), sqrt(fro), 1e-15, 0);
    CHECK_NEAR(one(cj_linalg_norm(A, "fro", 0, NULL)), sqrt(fro), 1e-15, 0);
    CHECK(one(cj_linalg_norm(A, "inf", 0, NULL)) == fmax(r0, r1));
    CHECK(one(cj_linalg_norm(A, "-inf", 0, NULL)) == fmin(r0, r1));
    CHECK(one(cj_linalg_norm(A, "1", 0, NULL)) == 9);
    CHECK(one(cj_linalg_norm(A, "-1", 0, NULL)) == c[0]);
    /* singular-value orders: Q D with Q orthogonal has singular values |d| */
    cj_val q, r;
    CHECK(cj_linalg_qr(adc_uniform(ctx, DIMS(4, 4), -1, 1, &seed), NULL, &q, &r) == 0);
    double d[] = {2, -0.5, 3, 1};
    cj_val M = cj_mul(q, cj_array(ctx, CJ_F64, DIMS(4), d));
    CHECK_NEAR(one(cj_linalg_norm(M, "2", 0, NULL)), 3, 1e-14, 0);
    CHECK_NEAR(one(cj_linalg_norm(M, "-2", 0, NULL)), 0.5, 1e-14, 0);
    CHECK_NEAR(one(cj_linalg_norm(M, "nuc", 0, NULL)), 6.5, 1e-14, 0);
    CHECK_NEAR(one(cj_linalg_cond(M)), 6, 1e-13, 0);
    /* a matrix norm over axes (0, 2) of a 3-D array: that of the transposed slices */
    cj_val B = adc_uniform(ctx, DIMS(3, 2, 4), -1, 1, &seed);
    double got[2], want[2];
    CHECK(cj_read(cj_linalg_norm(B, "1", 2, (int64_t[]){0, 2}), got, sizeof got) == CJ_OK);
    CHECK(cj_read(cj_linalg_norm(cj_transpose(B, (int64_t[]){1, 0, 2}), "1", 2, (int64_t[]){1, 2}), want, sizeof want) == CJ_OK);
    CHECK(got[0] == want[0] && got[1] == want[1]);
    cj_ctx_free(ctx);
}

TEST(linalg_pinv_penrose_and_least_squares) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 62;
    cj_val a = adc_uniform(ctx, DIMS(2, 6, 4), -1, 1, &seed);
    cj_val p = cj_linalg_pinv(a, -1);
    CHECK_EQ_INT(cj_val_dim(p, -2), 4);
    /* full column rank: pinv = (AᵀA)⁻¹Aᵀ */
    cj_val want = cj_linalg_solve(lb_matmul(a, a, 1, 0), lb_mT(a));
    double *P = malloc(sizeof(double) * 48), *W = malloc(sizeof(double) * 48);
    CHECK(cj_read(p, P, 48 * sizeof(double)) == CJ_OK && cj_read(want, W, 48 * sizeof(double)) == CJ_OK);
    for (int i = 0; i < 48; i++) CHECK_NEAR(P[i], W[i], 1e-12, 1e-12);
    /* rank deficient (rank 1): A A⁺ A = A and A⁺ A A⁺ = A⁺ */
    double r1[] = {1, 2, 2, 4, 3, 6};
    cj_val R = cj_array(ctx, CJ_F64, DIMS(3, 2), r1), Rp = cj_linalg_pinv(R, -1);
    double x[6], y[6];
    CHECK(cj_read(cj_matmul(cj_matmul(R, Rp), R), x, sizeof x) == CJ_OK);
    for (int i = 0; i < 6; i++) CHECK_NEAR(x[i], r1[i], 1e-14, 1e-14);
    CHECK(cj_read(cj_matmul(cj_matmul(Rp, R), Rp), x, sizeof x) == CJ_OK && cj_read(Rp, y, sizeof y) == CJ_OK);
    for (int i = 0; i < 6; i++) CHECK_NEAR(x[i], y[i], 1e-14, 1e-14);
    free(P), free(W);
    cj_ctx_free(ctx);
}

TEST(linalg_norm_errors) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val x = cj_zeros(ctx, CJ_F32, DIMS(2, 3, 4));
    CHECK(cj_is_error(cj_linalg_norm(x, "nuc", 0, NULL)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "linalg_norm: ord \"nuc\" needs axes (or a 1-D or 2-D x), got f32[2,3,4]");
    cj_error_clear(ctx);
    CHECK(cj_is_error(cj_linalg_norm(x, "abc", 1, (int64_t[]){0})));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "ord must be \"fro\", \"nuc\", \"inf\", \"-inf\" or a number, got \"abc\"");
    cj_error_clear(ctx);
    CHECK(cj_is_error(cj_linalg_norm(x, "3", 2, (int64_t[]){0, 1})));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "a matrix norm's ord must be");
    cj_error_clear(ctx);
    CHECK(cj_is_error(cj_linalg_norm(x, NULL, 2, (int64_t[]){1, -2})));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "the two axes must differ");
    cj_error_clear(ctx);
    CHECK(cj_is_error(cj_linalg_norm(x, NULL, 1, (int64_t[]){3})));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "axis 3 is out of range for f32[2,3,4]");
    cj_error_clear(ctx);
    CHECK(cj_is_error(cj_linalg_pinv(cj_zeros(ctx, CJ_F32, DIMS(3)), -1)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "linalg_pinv: a must have at least 2 dimensions, got f32[3]");
    cj_error_clear(ctx);
    cj_ctx_free(ctx);
}

static void fn_pinv(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_linalg_pinv(in[0], -1);
}
static void fn_nuc(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_linalg_norm(in[0], "nuc", 0, NULL);
}

TEST(linalg_pinv_and_nuclear_norm_jvp_match_finite_differences) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 63;
    cj_val a = adc_uniform(ctx, DIMS(5, 3), -1, 1, &seed), t = adc_uniform(ctx, DIMS(5, 3), -1, 1, &seed);
    cj_fn fns[] = {fn_pinv, fn_nuc};
    for (int k = 0; k < 2; k++) {
        cj_func *f = cj_func_new(ctx, "f", fns[k], 1, 1, NULL);
        double h = 1e-6;
        cj_val y, ty, yp, ym;
        CHECK(cj_jvp(f, &a, &t, &y, &ty) == CJ_OK);
        CHECK(cj_call(f, (cj_val[]){cj_add(a, cj_mul(t, cj_scalar(ctx, h)))}, &yp) == CJ_OK);
        CHECK(cj_call(f, (cj_val[]){cj_sub(a, cj_mul(t, cj_scalar(ctx, h)))}, &ym) == CJ_OK);
        int64_t n = cj_val_size(ty);
        double *T = malloc(sizeof(double) * (size_t)n), *P = malloc(sizeof(double) * (size_t)n), *M = malloc(sizeof(double) * (size_t)n);
        CHECK(cj_read_as(ty, CJ_F64, T, sizeof(double) * (size_t)n) == CJ_OK);
        CHECK(cj_read_as(yp, CJ_F64, P, sizeof(double) * (size_t)n) == CJ_OK && cj_read_as(ym, CJ_F64, M, sizeof(double) * (size_t)n) == CJ_OK);
        for (int64_t i = 0; i < n; i++) CHECK_NEAR(T[i], (P[i] - M[i]) / (2 * h), 1e-7, 1e-7);
        free(T), free(P), free(M);
    }
    cj_ctx_free(ctx);
}
