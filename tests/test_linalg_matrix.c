/* test_linalg_matrix.c — the matrix helpers of src/api/linalg_matrix.c
 * (diagonal, trace, diag, tril, triu, outer, cross, kron, matrix_power)
 * against plain loops written here, with numpy's index conventions; plus
 * the gradient of trace (the identity), a vmap of diagonal against a loop
 * and jit against eager. */
#include <math.h>
#include <stdlib.h>

#include "ad_check.h"
#include "harness.h"
#include "test_util.h"

TEST(linalg_matrix_diagonal_trace_any_axes) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 1;
    cj_val x = adc_uniform(ctx, DIMS(2, 3, 4), -1, 1, &seed);
    double *X = tu_read_f64(x);
    static const int64_t offsets[] = {-3, -2, -1, 0, 1, 3, 4, 6};
    for (size_t oi = 0; oi < sizeof offsets / sizeof *offsets; oi++) {
        int64_t k = offsets[oi];
        /* axes (1, 2): d[b, i] = x[b, i, i + k] */
        cj_val d = cj_diagonal(x, k, 1, 2), t = cj_trace(x, k, -2, -1);
        CHECK_MSG(!cj_is_error(d), "offset %lld: %s", (long long)k, cj_error_message(ctx));
        int64_t len = 0;
        for (int64_t i = 0; i < 3; i++) len += i + k >= 0 && i + k < 4;
        CHECK_EQ_INT(cj_val_dim(d, -1), len);
        double *D = tu_read_f64(d), *T = tu_read_f64(t);
        for (int64_t b = 0; b < 2; b++) {
            int64_t c = 0;
            double s = 0;
            for (int64_t i = 0; i < 3; i++)
                if (i + k >= 0 && i + k < 4) {
                    CHECK(D[b * len + c] == X[b * 12 + i * 4 + i + k]);
                    s += X[b * 12 + i * 4 + i + k];
                    c++;
                }
            CHECK_NEAR(T[b], s, 1e-15, 1e-15);
        }
        free(D), free(T);
    }
    /* axes (2, 0), offset 1: d[j, i] = x[i + 1, j, i] (axis1 = 2 takes i, axis2 = 0 takes i + 1) */
    cj_val d = cj_diagonal(x, 1, 2, 0);
    CHECK_EQ_INT(cj_val_dim(d, 0), 3);
    CHECK_EQ_INT(cj_val_dim(d, 1), 1);
    double *D = tu_read_f64(d);
    for (int64_t j = 0; j < 3; j++) CHECK(D[j] == X[1 * 12 + j * 4 + 0]); /* x[0 + 1, j, 0] */
    free(D), free(X);
    CHECK(cj_is_error(cj_diagonal(x, 0, 1, -2)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "diagonal: axis1 and axis2 must differ");
    cj_error_clear(ctx);
    cj_ctx_free(ctx);
}

TEST(linalg_matrix_diag_tril_triu) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 2;
    cj_val v = adc_uniform(ctx, DIMS(3), -1, 1, &seed);
    double *V = tu_read_f64(v);
    for (int64_t k = -2; k <= 2; k++) {
        cj_val m = cj_diag(v, k);
        int64_t n = 3 + (k < 0 ? -k : k);
        CHECK_EQ_INT(cj_val_dim(m, 0), n);
        double *M = tu_read_f64(m);
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < n; j++) {
                int64_t idx = k >= 0 ? i : j; /* v index on the diagonal */
                double want = j - i == k ? V[idx] : 0;
                CHECK(M[i * n + j] == want);
            }
        /* and back */
        CHECK(tu_same_bits(cj_diag(m, k), v));
        free(M);
    }
    free(V);
    cj_val x = adc_uniform(ctx, DIMS(2, 3, 4), -1, 1, &seed);
    double *X = tu_read_f64(x);
    for (int64_t k = -1; k <= 2; k++) {
        double *L = tu_read_f64(cj_tril(x, k)), *U = tu_read_f64(cj_triu(x, k));
        for (int64_t e = 0; e < 24; e++) {
            int64_t i = (e / 4) % 3, j = e % 4;
            CHECK(L[e] == (j - i <= k ? X[e] : 0));
            CHECK(U[e] == (j - i >= k ? X[e] : 0));
        }
        free(L), free(U);
    }
    free(X);
    CHECK(cj_is_error(cj_tril(v, 0)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "tril: x must have at least 2 dimensions, got f64[3]");
    cj_error_clear(ctx);
    cj_ctx_free(ctx);
}

TEST(linalg_matrix_outer_cross_kron) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 3;
    cj_val a = adc_uniform(ctx, DIMS(3), -1, 1, &seed), b = adc_uniform(ctx, DIMS(2, 2), -1, 1, &seed);
    double *A = tu_read_f64(a), *B = tu_read_f64(b), *O = tu_read_f64(cj_outer(a, b));
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) CHECK(O[i * 4 + j] == A[i] * B[j]);
    free(A), free(B), free(O);
    /* cross: a batch of 4 against one vector */
    cj_val p = adc_uniform(ctx, DIMS(4, 3), -1, 1, &seed), q = adc_uniform(ctx, DIMS(3), -1, 1, &seed);
    double *P = tu_read_f64(p), *Q = tu_read_f64(q), *C = tu_read_f64(cj_cross(p, q));
    for (int r = 0; r < 4; r++) {
        const double *u = P + 3 * r;
        double want[3] = {u[1] * Q[2] - u[2] * Q[1], u[2] * Q[0] - u[0] * Q[2], u[0] * Q[1] - u[1] * Q[0]};
        for (int i = 0; i < 3; i++) CHECK_NEAR(C[3 * r + i], want[i], 1e-15, 1e-15);
    }
    free(P), free(Q), free(C);
    CHECK(cj_is_error(cj_cross(a, cj_zeros(ctx, CJ_F64, DIMS(2)))));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cross: both operands must have 3 entries");
    cj_error_clear(ctx);
    /* kron of [2,3] and [3,2]: out[i*3 + k, j*2 + l] = x[i,j] y[k,l]; and of [2] with [2,2] */
    cj_val x = adc_uniform(ctx, DIMS(2, 3), -1, 1, &seed), y = adc_uniform(ctx, DIMS(3, 2), -1, 1, &seed);
    cj_val kr = cj_kron(x, y);
    CHECK_EQ_INT(cj_val_dim(kr, 0), 6);
    CHECK_EQ_INT(cj_val_dim(kr, 1), 6);
    double *X = tu_read_f64(x), *Y = tu_read_f64(y), *K = tu_read_f64(kr);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++)
                for (int l = 0; l < 2; l++) CHECK(K[(i * 3 + k) * 6 + j * 2 + l] == X[i * 3 + j] * Y[k * 2 + l]);
    free(K);
    K = tu_read_f64(cj_kron(cj_reshape(x, 1, (int64_t[]){6}), y)); /* [6] with [3,2]: [1,6] ⊗ [3,2] = [3,12] */
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < 6; j++)
            for (int l = 0; l < 2; l++) CHECK(K[k * 12 + j * 2 + l] == X[j] * Y[k * 2 + l]);
    free(X), free(Y), free(K);
    cj_ctx_free(ctx);
}

TEST(linalg_matrix_power_against_repeated_products) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 4;
    cj_val a = cj_add(adc_uniform(ctx, DIMS(2, 3, 3), -0.5, 0.5, &seed), cj_eye(ctx, 3, 3, 0, CJ_F64));
    double *A = tu_read_f64(a);
    for (int n = 0; n <= 6; n++) {
        double *P = tu_read_f64(cj_matrix_power(a, n));
        for (int b = 0; b < 2; b++) {
            double r[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, t[9];
            for (int s = 0; s < n; s++) {
                for (int i = 0; i < 3; i++)
                    for (int j = 0; j < 3; j++) {
                        t[i * 3 + j] = 0;
                        for (int p = 0; p < 3; p++) t[i * 3 + j] += r[i * 3 + p] * A[b * 9 + p * 3 + j];
                    }
                for (int i = 0; i < 9; i++) r[i] = t[i];
            }
            for (int i = 0; i < 9; i++) CHECK_NEAR(P[b * 9 + i], r[i], 1e-13, 1e-13);
        }
        free(P);
    }
    /* a⁻² · a² = I */
    double *I = tu_read_f64(cj_matmul(cj_matrix_power(a, -2), cj_matrix_power(a, 2)));
    for (int i = 0; i < 18; i++) CHECK_NEAR(I[i], (i % 9) % 4 == 0, 1e-13, 1e-13);
    free(I), free(A);
    cj_ctx_free(ctx);
}

static void f_trace(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_trace(in[0], 0, 0, 1);
}
static void f_diag_tril(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_diagonal(cj_tril(in[0], 0), 1, -1, -2);
    out[1] = cj_kron(cj_triu(in[0], 1), in[0]);
}

TEST(linalg_matrix_grad_vmap_jit) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 5;
    cj_val x = adc_uniform(ctx, DIMS(3, 3), -1, 1, &seed), g;
    CHECK(cj_call(cj_grad(cj_func_new(ctx, "trace", f_trace, 1, 1, NULL), NULL), &x, &g) == CJ_OK);
    double *G = tu_read_f64(g);
    for (int i = 0; i < 9; i++) CHECK(G[i] == (i % 4 == 0));
    free(G);
    cj_func *f = cj_func_new(ctx, "diag_tril", f_diag_tril, 1, 2, NULL);
    cj_val xs = adc_uniform(ctx, DIMS(4, 3, 3), -1, 1, &seed), vo[2], jo[2];
    CHECK(cj_call(cj_vmap(f, NULL), &xs, vo) == CJ_OK);
    CHECK(cj_call(cj_jit(cj_vmap(f, NULL), &(cj_jit_opts){.backend = CJ_BACKEND_CC}), &xs, jo) == CJ_OK);
    CHECK(tu_same_bits(vo[0], jo[0]) && tu_same_bits(vo[1], jo[1]));
    for (int64_t i = 0; i < 4; i++) {
        cj_val xi = cj_squeeze(cj_slice(xs, (int64_t[]){i, 0, 0}, (int64_t[]){i + 1, 3, 3}, NULL), 1, (int64_t[]){0}), o[2];
        CHECK(cj_call(f, &xi, o) == CJ_OK);
        cj_val v0 = cj_squeeze(cj_slice(vo[0], (int64_t[]){i, 0}, (int64_t[]){i + 1, 2}, NULL), 1, (int64_t[]){0});
        CHECK(tu_same_bits(v0, o[0]));
    }
    cj_ctx_free(ctx);
}
