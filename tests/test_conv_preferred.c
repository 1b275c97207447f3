/* test_conv_preferred.c — conv_general_dilated with preferred_element_type
 * f32 on f16 / bf16 operands, against JAX.
 *
 * The fixtures (tests/data/conv_preferred/conv_preferred.npz, written by
 * tests/data/gen_conv_preferred_fixtures.py with jax 0.10.2; not run here)
 * hold per case the narrow operands, the f32 result, an f32 cotangent w and
 * the gradients of sum(w * conv(lhs, rhs)) in the operands' dtype. The
 * result is checked eagerly and under jit with both backends (within f32
 * summation-order roundoff: XLA sums the same exact products in another
 * order), against cjax's own f32 convolution of the widened operands bit
 * for bit (which is what the kernel computes), and the gradients (eager
 * and under jit) within 2 narrow ulps of JAX's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cjax.h"
#include "harness.h"
#include "test_util.h"

typedef struct pcase {
    const char *name;
    const char *specs[3];
    int64_t strides[2];
    cj_padding pad;
    int64_t groups;
} pcase;

static const pcase CASES[3] = {
    {"nchw_same", {"NCHW", "OIHW", "NCHW"}, {1, 1}, CJ_PAD_SAME, 1},
    {"nhwc_stride2", {"NHWC", "HWIO", "NHWC"}, {2, 2}, CJ_PAD_VALID, 1},
    {"groups", {"NCHW", "OIHW", "NCHW"}, {1, 2}, CJ_PAD_SAME, 2},
};

static cj_val member(cj_ctx *ctx, const pcase *c, const char *dt, const char *what) {
    char path[512], name[128];
    snprintf(path, sizeof path, "%s/conv_preferred/conv_preferred.npz", CJAX_TEST_DATA_DIR);
    snprintf(name, sizeof name, "%s_%s_%s", c->name, dt, what);
    return cj_load_npz_member(ctx, path, name);
}

static cj_conv_opts opts_of(const pcase *c, cj_dtype preferred) {
    return (cj_conv_opts){.window_strides = c->strides, .pad_type = c->pad, .lhs_spec = c->specs[0],
                          .rhs_spec = c->specs[1], .out_spec = c->specs[2], .feature_group_count = c->groups,
                          .preferred_element_type = preferred};
}

static void f_conv(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    cj_conv_opts o = opts_of(user, CJ_F32);
    out[0] = cj_conv_general_dilated(in[0], in[1], &o);
}

/* in: lhs, rhs, w */
static void f_loss(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    cj_conv_opts o = opts_of(user, CJ_F32);
    out[0] = cj_sum(cj_mul(in[2], cj_conv_general_dilated(in[0], in[1], &o)), 0, NULL, 0);
}

/* |got - want| <= 1e-5 * (1 + |want|) everywhere, same dtype and size */
static int close_f32(cj_val got, cj_val want, double *worst) {
    if (cj_val_dtype(got) != CJ_F32 || cj_val_dtype(want) != CJ_F32 || cj_val_size(got) != cj_val_size(want)) return 0;
    double *g = tu_read_f64(got), *w = tu_read_f64(want);
    int ok = g && w;
    *worst = 0;
    for (int64_t i = 0; ok && i < cj_val_size(want); i++) {
        double d = fabs(g[i] - w[i]) / (1 + fabs(w[i]));
        if (d > *worst) *worst = d;
    }
    free(g), free(w);
    return ok && *worst <= 1e-5;
}

static void check(cj_dtype dt) {
    const char *tag = dt == CJ_F16 ? "f16" : "bf16";
    cj_ctx *ctx = cj_ctx_new(NULL);
    for (int ci = 0; ci < 3; ci++) {
        const pcase *c = &CASES[ci];
        cj_val l = member(ctx, c, tag, "lhs"), r = member(ctx, c, tag, "rhs"), w = member(ctx, c, tag, "w");
        cj_val want = member(ctx, c, tag, "out");
        CHECK_MSG(cj_error(ctx) == CJ_OK && cj_val_dtype(l) == dt, "%s: %s", c->name, cj_error_message(ctx));
        /* the f32 convolution of the widened operands is exactly the result */
        cj_conv_opts o32 = opts_of(c, 0);
        cj_val ref = cj_conv_general_dilated(cj_astype(l, CJ_F32), cj_astype(r, CJ_F32), &o32);
        for (int mode = 0; mode < 3; mode++) {
            cj_func *f = cj_func_new(ctx, "conv", f_conv, 2, 1, (void *)c);
            cj_jit_opts jo = {.backend = mode == 1 ? CJ_BACKEND_INTERP : CJ_BACKEND_CC};
            if (mode) f = cj_jit(f, &jo);
            cj_val got;
            CHECK_MSG(cj_call(f, (cj_val[]){l, r}, &got) == CJ_OK, "%s: %s", c->name, cj_error_message(ctx));
            double worst = 0;
            char ty[96];
            CHECK_MSG(close_f32(got, want, &worst), "%s %s mode %d: %s vs JAX, worst relative %g", c->name, tag, mode,
                      cj_val_type_str(got, ty, sizeof ty), worst);
            CHECK_MSG(tu_same_bits(got, ref), "%s %s mode %d: not the f32 convolution of the widened operands", c->name,
                      tag, mode);
            cj_func_free(f);
        }
        for (int mode = 0; mode < 3; mode++) {
            cj_grad_opts both = {.n_argnums = 2, .argnums = (int[]){0, 1}};
            cj_func *g = cj_grad(cj_func_new(ctx, "loss", f_loss, 3, 1, (void *)c), &both);
            cj_jit_opts jo = {.backend = mode == 1 ? CJ_BACKEND_INTERP : CJ_BACKEND_CC};
            if (mode) g = cj_jit(g, &jo);
            cj_val gr[2];
            CHECK_MSG(cj_call(g, (cj_val[]){l, r, w}, gr) == CJ_OK, "%s grad: %s", c->name, cj_error_message(ctx));
            char why[160];
            CHECK_MSG(tu_match_ulp(gr[0], member(ctx, c, tag, "grad_lhs"), 2, why, sizeof why, NULL),
                      "%s %s mode %d grad lhs: %s", c->name, tag, mode, why);
            CHECK_MSG(tu_match_ulp(gr[1], member(ctx, c, tag, "grad_rhs"), 2, why, sizeof why, NULL),
                      "%s %s mode %d grad rhs: %s", c->name, tag, mode, why);
            cj_func_free(g);
        }
    }
    CHECK_MSG(cj_error(ctx) == CJ_OK, "%s", cj_error_message(ctx));
    cj_ctx_free(ctx);
}

TEST(conv_preferred_f32_of_f16_matches_jax) { check(CJ_F16); }
TEST(conv_preferred_f32_of_bf16_matches_jax) { check(CJ_BF16); }

TEST(conv_preferred_rejects_what_lax_rejects) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t ld[4] = {1, 2, 4, 4}, rd[4] = {3, 2, 2, 2};
    cj_val l = cj_zeros(ctx, CJ_F32, 4, ld), r = cj_zeros(ctx, CJ_F32, 4, rd);
    cj_conv_opts o = {.preferred_element_type = CJ_F16};
    cj_val v = cj_conv_general_dilated(l, r, &o);
    CHECK(cj_is_error(v) && cj_error(ctx) == CJ_ERR_DTYPE);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "conv_general_dilated: preferred_element_type f16 is not taken for operands f32[1,2,4,4]");
    cj_error_clear(ctx);
    o.preferred_element_type = CJ_F32;
    v = cj_conv_general_dilated(cj_astype(l, CJ_BF16), cj_astype(r, CJ_BF16), &o);
    CHECK_MSG(cj_error(ctx) == CJ_OK && cj_val_dtype(v) == CJ_F32, "%s", cj_error_message(ctx));
    cj_ctx_free(ctx);
}
