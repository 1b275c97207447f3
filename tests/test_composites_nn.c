/* test_composites_nn.c — jax.nn's activations and helpers (src/api/nn.c):
 * values and gradients against JAX on a grid through every kink (0, ±1,
 * ±3, 6) and far tails (tests/data/numpy/, tests/data/gen_numpy_fixtures.py);
 * jit on both backends and vmap against single calls; jvp against finite
 * differences in f64 away from the kinks; glu, standardize and one_hot
 * over any axis; errors. */
#include <math.h>
#include <stdlib.h>

#include "composite_check.h"
#include "harness.h"

#define L(...) ((const int64_t[]){__VA_ARGS__})
#define FX(name) cc_fixture(ctx, name)

static cj_val elu2(cj_val x) { return cj_elu(x, 2.0); }
static cj_val elu1(cj_val x) { return cj_elu(x, 1.0); }
static cj_val celu1(cj_val x) { return cj_celu(x, 1.0); }
static cj_val celu05(cj_val x) { return cj_celu(x, 0.5); }
static cj_val leaky(cj_val x) { return cj_leaky_relu(x, 0.01); }
static cj_val leaky02(cj_val x) { return cj_leaky_relu(x, 0.2); }
static cj_val squareplus4(cj_val x) { return cj_squareplus(x, 4); }

typedef struct unary {
    const char *name;
    cj_val (*f)(cj_val);
    double rtol, atol; /* against JAX: its exp/log/tanh/erf are XLA's, not cjax's */
} unary;

static const unary UNARY[] = {
    {"silu", cj_silu, 4e-6, 1e-6},
    {"softplus", cj_softplus, 4e-6, 1e-6},
    {"log_sigmoid", cj_log_sigmoid, 4e-6, 1e-6},
    {"mish", cj_mish, 4e-6, 1e-6},
    {"elu", elu1, 4e-6, 1e-6},
    {"elu_a2", elu2, 4e-6, 1e-6},
    {"celu", celu1, 4e-6, 1e-6},
    {"celu_a05", celu05, 4e-6, 1e-6},
    {"selu", cj_selu, 4e-6, 1e-6},
    {"leaky_relu", leaky, 0, 0},
    {"leaky_relu_02", leaky02, 0, 0},
    {"gelu_exact", cj_gelu_exact, 4e-6, 2e-7},
    {"relu6", cj_relu6, 0, 0},
    {"hard_sigmoid", cj_hard_sigmoid, 2e-7, 0}, /* XLA divides by 6 as a multiply by 1/6 */
    {"hard_silu", cj_hard_silu, 2e-7, 0},
    {"hard_tanh", cj_hard_tanh, 0, 0},
    {"sparse_plus", cj_sparse_plus, 0, 0},
    {"sparse_sigmoid", cj_sparse_sigmoid, 0, 0},
    {"soft_sign", cj_soft_sign, 0, 0},
    {"squareplus", squareplus4, 2e-7, 0},
};
#define N_UNARY (int)(sizeof UNARY / sizeof UNARY[0])

static void f_unary(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    out[0] = ((const unary *)user)->f(in[0]);
}

static void f_unary_sum(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    out[0] = cj_sum(((const unary *)user)->f(in[0]), -1, NULL, 0);
}

TEST(composites_nn_values_and_gradients_match_jax) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val g = FX("g");
    char name[64];
    for (int k = 0; k < N_UNARY; k++) {
        const unary *u = &UNARY[k];
        snprintf(name, sizeof name, "nn_%s", u->name);
        CHECK(cc_close(u->f(g), FX(name), u->rtol, u->atol, name));
        /* d sum f / dx elementwise = f'(x), at the kinks too */
        cj_val d;
        CHECK(cj_call(cj_grad(cj_func_new(ctx, u->name, f_unary_sum, 1, 1, (void *)u), NULL), &g, &d) == CJ_OK);
        snprintf(name, sizeof name, "nn_grad_%s", u->name);
        CHECK(cc_close(d, FX(name), 1e-5, 1e-6, name));
    }
    cj_ctx_free(ctx);
}

TEST(composites_nn_jit_vmap_jvp) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t s = 21;
    float xf[24];
    double xd[24];
    /* random points, none within 1e-3 of a kink, for the finite differences */
    for (int i = 0; i < 24; i++) {
        double v;
        int near;
        do {
            v = th_rand_uniform(&s, -8, 8);
            near = 0;
            static const double kinks[] = {0, 1, -1, 3, -3, 6};
            for (int j = 0; j < 6; j++) near |= fabs(v - kinks[j]) < 1e-3;
        } while (near);
        xd[i] = v, xf[i] = (float)v;
    }
    cj_val x = cj_array(ctx, CJ_F32, 2, L(4, 6), xf), xv = cj_array(ctx, CJ_F64, 2, L(4, 6), xd);
    for (int k = 0; k < N_UNARY; k++) {
        CHECK(cc_modes(ctx, UNARY[k].name, f_unary, (void *)&UNARY[k], 1, 1, &x, 2e-6));
        CHECK(cc_jvp_fd(ctx, UNARY[k].name, f_unary, (void *)&UNARY[k], 1, xv, 1e-6));
        CHECK(cc_vjp_jvp(ctx, UNARY[k].name, f_unary, (void *)&UNARY[k], 1, xv, 1e-12));
    }
    cj_ctx_free(ctx);
}

/* softplus's second derivative is sigmoid'(x) = σ(1-σ), smooth through 0,
 * and nothing overflows on the branch not taken far out. */
static void f_softplus_grad(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    cj_val d;
    cj_call(cj_grad(cj_func_new(ctx, "sp", f_unary_sum, 1, 1, (void *)&UNARY[1]), NULL), in, &d);
    out[0] = cj_sum(d, -1, NULL, 0);
}

TEST(composites_nn_softplus_second_derivative) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    double xs[5] = {0, -0.0, 2, -500, 500}, h[5];
    cj_val x = cj_array(ctx, CJ_F64, 1, L(5), xs), d2;
    CHECK(cj_call(cj_grad(cj_func_new(ctx, "sp2", f_softplus_grad, 1, 1, NULL), NULL), &x, &d2) == CJ_OK);
    CHECK(cj_read(d2, h, sizeof h) == CJ_OK);
    for (int i = 0; i < 5; i++) {
        double e = exp(-fabs(xs[i])); /* σ(1-σ) without cancellation */
        CHECK_NEAR(h[i], e / ((1 + e) * (1 + e)), 1e-14, 1e-300);
    }
    cj_ctx_free(ctx);
}

static void f_log1mexp_sum(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_sum(cj_log1mexp(in[0]), -1, NULL, 0);
}

static void f_log1mexp(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_log1mexp(in[0]);
}

/* on x > 0 only: log1mexp is undefined below 0 */
TEST(composites_nn_log1mexp_match_jax) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val gp = FX("gp"), d;
    CHECK(cc_close(cj_log1mexp(gp), FX("nn_log1mexp"), 4e-6, 1e-6, "log1mexp"));
    CHECK(cj_call(cj_grad(cj_func_new(ctx, "l1me", f_log1mexp_sum, 1, 1, NULL), NULL), &gp, &d) == CJ_OK);
    CHECK(cc_close(d, FX("nn_grad_log1mexp"), 1e-5, 1e-6, "grad log1mexp"));
    cj_val x = cj_array(ctx, CJ_F32, 1, L(4), (float[]){0.1f, 0.6f, 0.8f, 3});
    CHECK(cc_modes(ctx, "log1mexp", f_log1mexp, NULL, 1, 1, &x, 2e-6));
    CHECK(cc_jvp_fd(ctx, "log1mexp", f_log1mexp, NULL, 1, cj_array(ctx, CJ_F64, 1, L(4), (double[]){0.1, 0.6, 0.8, 3}), 1e-6));
    cj_ctx_free(ctx);
}

TEST(composites_nn_glu_standardize_one_hot_match_jax) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val h = FX("h"), idx = FX("oh_idx");
    CHECK(cc_close(cj_glu(h, -1), FX("nn_glu"), 4e-6, 1e-6, "glu"));
    CHECK(cc_close(cj_glu(cj_slice(h, L(0, 0), L(2, 6), NULL), 0), FX("nn_glu_ax0"), 4e-6, 1e-6, "glu axis 0"));
    CHECK(cc_close(cj_standardize(h, 1, L(-1), 1e-5), FX("nn_standardize"), 1e-5, 1e-6, "standardize"));
    CHECK(cc_close(cj_standardize(h, 1, L(0), 1e-3), FX("nn_standardize_ax0"), 1e-5, 1e-6, "standardize axis 0"));
    cj_val shifted = cj_add(cj_mul(h, cj_scalar(ctx, 100)), cj_scalar(ctx, 1000));
    CHECK(cc_close(cj_standardize_with(shifted, 1, L(-1), NULL, NULL, 1e-5, "stable"), FX("nn_standardize_stable"), 1e-5,
                   1e-5, "standardize stable"));
    cj_val m = cj_scalar_typed(ctx, 0.5, CJ_F32), v = cj_var(h, 1, L(0), 0);
    CHECK(cc_close(cj_standardize_with(h, 1, L(0), &m, &v, 1e-5, NULL), FX("nn_standardize_given"), 1e-5, 1e-6,
                   "standardize given mean and variance"));
    CHECK(cj_is_error(cj_standardize_with(h, 1, L(0), NULL, NULL, 1e-5, "exact")));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_standardize_with: algorithm must be \"fast\" or \"stable\", got \"exact\"");
    cj_error_clear(ctx);
    CHECK(cc_close(cj_one_hot_axis(idx, 4, CJ_F32, 0), FX("nn_one_hot_ax0"), 0, 0, "one_hot axis 0"));
    CHECK(cc_close(cj_one_hot_axis(idx, 4, CJ_F32, 1), FX("nn_one_hot_ax1"), 0, 0, "one_hot axis 1"));
    CHECK(cc_close(cj_one_hot_axis(idx, 4, CJ_F32, -1), FX("nn_one_hot_m1"), 0, 0, "one_hot axis -1"));
    CHECK(cc_close(cj_one_hot(idx, 4, CJ_F32), FX("nn_one_hot_m1"), 0, 0, "one_hot (old API)"));
    cj_ctx_free(ctx);
}

static void f_nn_axes(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_glu(in[0], 0);
    out[1] = cj_standardize(in[0], 2, L(0, 1), 1e-5);
    out[2] = cj_one_hot_axis(cj_astype(cj_abs(in[0]), CJ_I32), 3, CJ_F32, 1);
}

TEST(composites_nn_axes_jit_vmap_jvp) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t s = 5;
    float xf[12];
    double xd[12];
    for (int i = 0; i < 12; i++) xd[i] = th_rand_uniform(&s, -2.9, 2.9), xf[i] = (float)xd[i];
    cj_val x = cj_array(ctx, CJ_F32, 2, L(4, 3), xf);
    CHECK(cc_modes(ctx, "nn axes", f_nn_axes, NULL, 1, 3, &x, 2e-6));
    CHECK(cc_jvp_fd(ctx, "nn axes", f_nn_axes, NULL, 3, cj_array(ctx, CJ_F64, 2, L(4, 3), xd), 1e-6));
    CHECK(cc_vjp_jvp(ctx, "nn axes", f_nn_axes, NULL, 3, cj_array(ctx, CJ_F64, 2, L(4, 3), xd), 1e-12));
    cj_ctx_free(ctx);
}

TEST(composites_nn_errors_name_the_function) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val a = cj_zeros(ctx, CJ_F32, 2, L(2, 3));
    CHECK(cj_is_error(cj_glu(a, 1)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_glu: axis 1 of f32[2,3] must have an even size");
    cj_error_clear(ctx);
    CHECK(cj_is_error(cj_glu(a, 2)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_glu: axis 2 is out of range for f32[2,3]");
    cj_error_clear(ctx);
    CHECK(cj_is_error(cj_one_hot_axis(cj_zeros(ctx, CJ_I32, 1, L(3)), 4, CJ_F32, 2)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_one_hot_axis: axis 2 is out of range for i32[3] (result rank 2)");
    cj_error_clear(ctx);
    CHECK(cj_is_error(cj_one_hot_axis(cj_zeros(ctx, CJ_I32, 1, L(3)), -1, CJ_F32, 0)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_one_hot_axis: num_classes must be >= 0, got -1");
    cj_error_clear(ctx);
    CHECK(cj_is_error(cj_standardize(a, 1, L(3), 1e-5)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_standardize: axis 3 is out of range for f32[2,3]");
    cj_error_clear(ctx);
    /* integers become the default float, as jax.nn does */
    CHECK(cj_val_dtype(cj_silu(cj_zeros(ctx, CJ_I32, 1, L(2)))) == CJ_F32);
    CHECK(cj_val_dtype(cj_softplus(cj_zeros(ctx, CJ_F64, 1, L(2)))) == CJ_F64);
    cj_ctx_free(ctx);
}
