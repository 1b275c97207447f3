/* test_dtypes_ad_control.c — autodiff and control flow on the narrow
 * floats and the new integer types (issue 17, stage 2).
 *
 * Against JAX (tests/data/gen_dtype_ad_fixtures.py → tests/data/dtype_ad/,
 * jitted JAX on CPU): jvp and vjp of two elementwise programs in f16 and
 * bf16 (tangents and cotangents stay in the narrow dtype, as JAX), grad
 * through a scan whose carry is an f16/bf16 scalar, a while loop counting
 * in u8, a fori loop with a wrapping u8 accumulator, and cond on narrow
 * operands — eagerly and under cj_jit on both backends. The limit is the
 * one measured: every op rounds to the narrow type, as XLA's CPU backend
 * does, so most values are bit for bit; the rest within ULP_LIMIT narrow
 * ulps (XLA and cjax round transcendentals differently in the last bit,
 * and a chain carries that bit). Integer inputs get zero cotangents of
 * their own dtype from cj_vjp (JAX: float0). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cjax.h"
#include "harness.h"
#include "test_util.h"

#define ULP_LIMIT 2

static cj_val load(cj_ctx *ctx, const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/dtype_ad/%s.npy", CJAX_TEST_DATA_DIR, name);
    return cj_load_npy(ctx, path);
}

static const char *TAGS[2] = {"f16", "bf16"};

static void check_close(cj_val got, cj_ctx *ctx, const char *name, const char *mode) {
    char why[200];
    int64_t worst = 0;
    CHECK_MSG(tu_match_ulp(got, load(ctx, name), ULP_LIMIT, why, sizeof why, &worst), "%s %s: %s (%s)", mode, name,
              why, cj_error_message(ctx));
}

/* ---- the programs, as the generator's ---- */

static cj_val c_of(cj_val like, double v) { return cj_scalar_typed(like.ctx, v, cj_val_dtype(like)); }

static void f_ew(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    cj_val x = in[0], y = in[1];
    cj_val a = cj_add(cj_mul(cj_sin(x), y), cj_exp(cj_div(x, c_of(x, 2))));
    a = cj_sub(a, cj_tanh(y));
    cj_val sel = cj_where(cj_gt(x, y), cj_mul(x, x), cj_div(y, cj_add(c_of(x, 1), cj_mul(x, x))));
    out[0] = cj_add(a, sel);
}

static void f_ew2(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    cj_val x = in[0], xx = cj_mul(x, x);
    cj_val a = cj_mul(cj_sqrt(cj_add(xx, c_of(x, 1))), cj_log1p(xx));
    out[0] = cj_sub(cj_add(a, cj_sigmoid(x)), cj_max(x, c_of(x, 0.5)));
}

/* jvp(f_ew) with tangents (t, reversed t); vjp with cotangent t. */
static void ew_jvp(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    cj_func *f = cj_func_new(ctx, "f_ew", f_ew, 2, 1, NULL);
    cj_val tan[2] = {in[2], cj_rev(in[2], 1, (const int64_t[]){0})};
    cj_jvp(f, in, tan, &out[0], &out[1]);
    cj_func_free(f);
}
static void ew_vjp(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    cj_func *f = cj_func_new(ctx, "f_ew", f_ew, 2, 1, NULL);
    cj_val po;
    cj_func *pb = cj_vjp(f, in, &po);
    if (pb) cj_call(pb, &in[2], out);
    cj_func_free(pb);
    cj_func_free(f);
}
static void ew2_jvp(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    cj_func *f = cj_func_new(ctx, "f_ew2", f_ew2, 1, 1, NULL);
    cj_jvp(f, in, &in[1], &out[0], &out[1]);
    cj_func_free(f);
}
static void ew2_vjp(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    cj_func *f = cj_func_new(ctx, "f_ew2", f_ew2, 1, 1, NULL);
    cj_val po;
    cj_func *pb = cj_vjp(f, in, &po);
    if (pb) cj_call(pb, &in[1], out);
    cj_func_free(pb);
    cj_func_free(f);
}

/* scan: c = c * 0.9 + sin(x) * c + x; ys = c * x; the final carry. */
static void scan_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    cj_val c = in[0], x = in[1];
    cj_val n = cj_add(cj_add(cj_mul(c, c_of(c, 0.9)), cj_mul(cj_sin(x), c)), x);
    out[0] = n;
    out[1] = cj_mul(n, x);
}
static void scan_f(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    cj_func *b = cj_func_new(ctx, "scan_body", scan_body, 2, 2, NULL);
    cj_val ys;
    cj_scan(b, 1, &in[0], 1, &in[1], NULL, &out[0], &ys);
    cj_func_free(b);
}

/* while c[0] < 200: (c[0] + 23, c[1] * 1.5 - 0.25), c[0] a u8 from 3. */
static void wl_cond(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    out[0] = cj_lt(in[0], cj_scalar_typed(ctx, 200, CJ_U8));
}
static void wl_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    out[0] = cj_add(in[0], cj_scalar_typed(ctx, 23, CJ_U8));
    out[1] = cj_sub(cj_mul(in[1], c_of(in[1], 1.5)), c_of(in[1], 0.25));
}
static void wl_f(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    cj_func *c = cj_func_new(ctx, "wl_cond", wl_cond, 2, 1, NULL), *b = cj_func_new(ctx, "wl_body", wl_body, 2, 2, NULL);
    cj_val init[2] = {cj_scalar_typed(ctx, 3, CJ_U8), in[0]};
    cj_while_loop(c, b, 2, init, out);
    cj_func_free(c), cj_func_free(b);
}

/* fori k in [0, 9): (a * 3 + u8(k), cos(v) + v), a a u8 from 7 (wraps). */
static void fl_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    out[0] = cj_add(cj_mul(in[1], cj_scalar_typed(ctx, 3, CJ_U8)), cj_astype(in[0], CJ_U8));
    out[1] = cj_add(cj_cos(in[2]), in[2]);
}
static void fl_f(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    cj_func *b = cj_func_new(ctx, "fl_body", fl_body, 3, 2, NULL);
    cj_val init[2] = {cj_scalar_typed(ctx, 7, CJ_U8), in[0]};
    cj_fori_loop(0, 9, b, 2, init, out);
    cj_func_free(b);
}

static void br_true(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_add(cj_mul(in[0], in[1]), c_of(in[0], 1));
}
static void br_false(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_sub(in[0], cj_exp(in[1]));
}
static void cond_f(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    cj_func *t = cj_func_new(ctx, "t", br_true, 2, 1, NULL), *f = cj_func_new(ctx, "f", br_false, 2, 1, NULL);
    cj_cond(in[2], t, f, 2, in, out);
    cj_func_free(t), cj_func_free(f);
}

/* Runs body eagerly (mode 0), under jit interp (1) and jit cc (2). */
static cj_status run(cj_ctx *ctx, int mode, const char *name, cj_fn body, int n_in, int n_out, const cj_val *in,
                     cj_val *out) {
    cj_func *f = cj_func_new(ctx, name, body, n_in, n_out, NULL);
    if (mode == 0) return cj_call(f, in, out);
    cj_jit_opts o = {.backend = mode == 1 ? CJ_BACKEND_INTERP : CJ_BACKEND_CC};
    return cj_call(cj_jit(f, &o), in, out);
}

static const char *MODES[3] = {"eager", "jit interp", "jit cc"};

TEST(dtype_ad_elementwise_jvp_vjp_match_jax) {
    for (int mode = 0; mode < 3; mode++)
        for (int t = 0; t < 2; t++) {
            cj_ctx *ctx = cj_ctx_new(NULL);
            const char *tag = TAGS[t];
            char n[64], n2[64];
            snprintf(n, sizeof n, "in_x_%s", tag);
            cj_val x = load(ctx, n);
            snprintf(n, sizeof n, "in_y_%s", tag);
            cj_val y = load(ctx, n);
            snprintf(n, sizeof n, "in_t_%s", tag);
            cj_val tv = load(ctx, n);
            cj_val in3[3] = {x, y, tv}, out[2];
            CHECK_MSG(run(ctx, mode, "ew_jvp", ew_jvp, 3, 2, in3, out) == CJ_OK, "%s", cj_error_message(ctx));
            snprintf(n, sizeof n, "ew_%s_out", tag);
            check_close(out[0], ctx, n, MODES[mode]);
            snprintf(n, sizeof n, "ew_%s_jvp", tag);
            check_close(out[1], ctx, n, MODES[mode]);
            CHECK_MSG(run(ctx, mode, "ew_vjp", ew_vjp, 3, 2, in3, out) == CJ_OK, "%s", cj_error_message(ctx));
            snprintf(n, sizeof n, "ew_%s_vjp_x", tag);
            snprintf(n2, sizeof n2, "ew_%s_vjp_y", tag);
            check_close(out[0], ctx, n, MODES[mode]);
            check_close(out[1], ctx, n2, MODES[mode]);
            cj_val in2[2] = {x, tv};
            CHECK_MSG(run(ctx, mode, "ew2_jvp", ew2_jvp, 2, 2, in2, out) == CJ_OK, "%s", cj_error_message(ctx));
            snprintf(n, sizeof n, "ew2_%s_out", tag);
            check_close(out[0], ctx, n, MODES[mode]);
            snprintf(n, sizeof n, "ew2_%s_jvp", tag);
            check_close(out[1], ctx, n, MODES[mode]);
            CHECK_MSG(run(ctx, mode, "ew2_vjp", ew2_vjp, 2, 1, in2, out) == CJ_OK, "%s", cj_error_message(ctx));
            snprintf(n, sizeof n, "ew2_%s_vjp", tag);
            check_close(out[0], ctx, n, MODES[mode]);
            CHECK(cj_error(ctx) == CJ_OK);
            cj_ctx_free(ctx);
        }
}

TEST(dtype_ad_grad_through_scan_with_narrow_carry_matches_jax) {
    for (int mode = 0; mode < 3; mode++)
        for (int t = 0; t < 2; t++) {
            cj_ctx *ctx = cj_ctx_new(NULL);
            const char *tag = TAGS[t];
            char n[64];
            cj_dtype dt = t ? CJ_BF16 : CJ_F16;
            snprintf(n, sizeof n, "in_xs_%s", tag);
            cj_val in[2] = {cj_astype(cj_scalar(ctx, 0.5), dt), load(ctx, n)}, out[2];
            CHECK_MSG(run(ctx, mode, "scan_f", scan_f, 2, 1, in, out) == CJ_OK, "%s", cj_error_message(ctx));
            snprintf(n, sizeof n, "scan_%s_out", tag);
            check_close(out[0], ctx, n, MODES[mode]);
            cj_grad_opts go = {.n_argnums = 2, .argnums = (const int[]){0, 1}};
            cj_func *g = cj_grad(cj_func_new(ctx, "scan_f", scan_f, 2, 1, NULL), &go);
            if (mode) {
                cj_jit_opts o = {.backend = mode == 1 ? CJ_BACKEND_INTERP : CJ_BACKEND_CC};
                g = cj_jit(g, &o);
            }
            CHECK_MSG(cj_call(g, in, out) == CJ_OK, "%s", cj_error_message(ctx));
            snprintf(n, sizeof n, "scan_%s_grad_c", tag);
            check_close(out[0], ctx, n, MODES[mode]);
            snprintf(n, sizeof n, "scan_%s_grad_xs", tag);
            check_close(out[1], ctx, n, MODES[mode]);
            CHECK(cj_error(ctx) == CJ_OK);
            cj_ctx_free(ctx);
        }
}

TEST(dtype_control_while_fori_cond_carry_new_dtypes) {
    for (int mode = 0; mode < 3; mode++)
        for (int t = 0; t < 2; t++) {
            cj_ctx *ctx = cj_ctx_new(NULL);
            const char *tag = TAGS[t];
            char n[64];
            snprintf(n, sizeof n, "in_x_%s", tag);
            cj_val x = load(ctx, n), out[2];
            CHECK_MSG(run(ctx, mode, "wl_f", wl_f, 1, 2, &x, out) == CJ_OK, "%s", cj_error_message(ctx));
            snprintf(n, sizeof n, "while_%s_i", tag);
            check_close(out[0], ctx, n, MODES[mode]);
            snprintf(n, sizeof n, "while_%s_v", tag);
            check_close(out[1], ctx, n, MODES[mode]);
            CHECK_MSG(run(ctx, mode, "fl_f", fl_f, 1, 2, &x, out) == CJ_OK, "%s", cj_error_message(ctx));
            snprintf(n, sizeof n, "fori_%s_a", tag);
            check_close(out[0], ctx, n, MODES[mode]);
            snprintf(n, sizeof n, "fori_%s_v", tag);
            check_close(out[1], ctx, n, MODES[mode]);
            snprintf(n, sizeof n, "in_y_%s", tag);
            cj_val y = load(ctx, n);
            for (int p = 0; p < 2; p++) {
                /* the predicate a u8 value: nonzero is true */
                cj_val in[3] = {x, y, cj_scalar_typed(ctx, p ? 5 : 0, CJ_U8)};
                CHECK_MSG(run(ctx, mode, "cond_f", cond_f, 3, 1, in, out) == CJ_OK, "%s", cj_error_message(ctx));
                snprintf(n, sizeof n, "cond%d_%s", p, tag);
                check_close(out[0], ctx, n, MODES[mode]);
            }
            CHECK(cj_error(ctx) == CJ_OK);
            cj_ctx_free(ctx);
        }
}

/* Integer inputs of the new types get zero cotangents of their own
 * dtype; float tangents of an f16 program are f16 (JAX's rule). */
static void mixed(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_mul(in[0], cj_astype(in[1], CJ_F16));
}
TEST(dtype_ad_integer_inputs_get_zero_cotangents_of_their_dtype) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t three = 3;
    cj_val x = cj_astype(tu_ramp(ctx, 3, 0.5f, 1.0f), CJ_F16);
    uint8_t nb[3] = {2, 250, 7};
    cj_val nv = cj_array(ctx, CJ_U8, 1, &three, nb);
    cj_val in[2] = {x, nv}, po, ct[2];
    cj_func *pb = cj_vjp(cj_func_new(ctx, "mixed", mixed, 2, 1, NULL), in, &po);
    CHECK(pb != NULL);
    cj_val ones = cj_astype(cj_ones(ctx, CJ_F32, 1, &three), CJ_F16);
    CHECK_MSG(cj_call(pb, &ones, ct) == CJ_OK, "%s", cj_error_message(ctx));
    CHECK(cj_val_dtype(ct[0]) == CJ_F16);
    CHECK(cj_val_dtype(ct[1]) == CJ_U8);
    float g[3];
    uint8_t z[3] = {9, 9, 9};
    CHECK(cj_read_as(ct[0], CJ_F32, g, sizeof g) == CJ_OK);
    CHECK(cj_read(ct[1], z, sizeof z) == CJ_OK);
    for (int i = 0; i < 3; i++) {
        CHECK_NEAR(g[i], (float)nb[i], 0, 0); /* d(x * n)/dx = n, exact in f16 */
        CHECK_EQ_INT(z[i], 0);
    }
    cj_val tan[2] = {ones, nv}, to;
    CHECK(cj_jvp(cj_func_new(ctx, "mixed", mixed, 2, 1, NULL), in, tan, &po, &to) == CJ_OK);
    CHECK(cj_val_dtype(to) == CJ_F16);
    CHECK(cj_error(ctx) == CJ_OK);
    cj_ctx_free(ctx);
}

/* ---- bitcast_convert_type across widths, floor_divide / remainder ---- */

static void bitcast_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    out[0] = cj_bitcast_convert_type(in[0], *(const cj_dtype *)user);
}

/* x bitcast to dtype eagerly, under jit (both backends) and, for rank >= 1
 * inputs, under vmap over the leading axis: each must equal want. */
static void check_bitcast(cj_ctx *ctx, cj_val x, cj_dtype dtype, cj_val want, const char *what) {
    for (int mode = 0; mode < 4; mode++) {
        cj_dtype dt = dtype;
        cj_func *f = cj_func_new(ctx, "bitcast", bitcast_body, 1, 1, &dt);
        if (mode == 3) f = cj_vmap(f, NULL);
        if (mode == 1 || mode == 2) {
            cj_jit_opts o = {.backend = mode == 1 ? CJ_BACKEND_INTERP : CJ_BACKEND_CC};
            f = cj_jit(f, &o);
        }
        cj_val got;
        CHECK_MSG(cj_call(f, &x, &got) == CJ_OK, "%s: %s", what, cj_error_message(ctx));
        CHECK_MSG(tu_same_bits(got, want), "%s (mode %d): not JAX's bits", what, mode);
    }
}

TEST(dtype_bitcast_across_widths_matches_jax) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    float fv[6] = {1.0f, -2.5f, 3.0e-39f, INFINITY, NAN, 65504.0f};
    int64_t six = 6;
    cj_val f = cj_array(ctx, CJ_F32, 1, &six, fv);
    check_bitcast(ctx, f, CJ_U8, load(ctx, "bitcast_f32_u8"), "f32 -> u8");
    check_bitcast(ctx, f, CJ_I16, load(ctx, "bitcast_f32_i16"), "f32 -> i16");
    check_bitcast(ctx, f, CJ_BF16, load(ctx, "bitcast_f32_bf16"), "f32 -> bf16");
    cj_val b = load(ctx, "bitcast_in_u8");
    check_bitcast(ctx, b, CJ_F32, load(ctx, "bitcast_u8_f32"), "u8[..,4] -> f32");
    check_bitcast(ctx, b, CJ_I32, load(ctx, "bitcast_u8_i32"), "u8[..,4] -> i32");
    check_bitcast(ctx, cj_reshape(b, 3, (const int64_t[]){2, 6, 2}), CJ_F16, load(ctx, "bitcast_u8x2_f16"),
                  "u8[..,2] -> f16");
    cj_val h = cj_astype(cj_array(ctx, CJ_F32, 1, (const int64_t[]){4}, (const float[]){0.5f, -1.0f, 3.25f, 1000.0f}),
                         CJ_F16);
    check_bitcast(ctx, h, CJ_I8, load(ctx, "bitcast_f16_i8"), "f16 -> i8");
    /* 64-bit widths against the bytes in memory (the reference on a
     * little-endian CPU, which is what lax gives there) */
    double dv[3] = {1.0 / 3.0, -0.0, 6.02e23};
    int64_t three = 3;
    cj_val d = cj_array(ctx, CJ_F64, 1, &three, dv);
    int64_t d38[2] = {3, 8}, d34[2] = {3, 4};
    check_bitcast(ctx, d, CJ_U8, cj_array(ctx, CJ_U8, 2, d38, dv), "f64 -> u8");
    check_bitcast(ctx, d, CJ_F16, cj_array(ctx, CJ_F16, 2, d34, dv), "f64 -> f16");
    check_bitcast(ctx, cj_array(ctx, CJ_U16, 2, d34, dv), CJ_F64, d, "u16[..,4] -> f64");
    check_bitcast(ctx, cj_array(ctx, CJ_I32, 2, (const int64_t[]){3, 2}, dv), CJ_U64,
                  cj_array(ctx, CJ_U64, 1, &three, dv), "i32[..,2] -> u64");
    /* round trips: f64 -> u8[.., 8] -> f64 */
    CHECK(tu_same_bits(cj_bitcast_convert_type(cj_bitcast_convert_type(d, CJ_U8), CJ_F64), d));
    /* errors, as lax: a wrong last axis, bool, too high a rank */
    cj_val y = cj_bitcast_convert_type(cj_zeros(ctx, CJ_U8, 2, (const int64_t[]){2, 3}), CJ_F32);
    CHECK(cj_is_error(y) && cj_error(ctx) == CJ_ERR_SHAPE);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "needs a last axis of 4");
    cj_error_clear(ctx);
    y = cj_bitcast_convert_type(cj_zeros(ctx, CJ_U8, 0, NULL), CJ_U16);
    CHECK(cj_is_error(y) && cj_error(ctx) == CJ_ERR_SHAPE);
    cj_error_clear(ctx);
    y = cj_bitcast_convert_type(cj_zeros(ctx, CJ_BOOL, 1, (const int64_t[]){4}), CJ_F32);
    CHECK(cj_is_error(y) && cj_error(ctx) == CJ_ERR_DTYPE);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "bool");
    cj_error_clear(ctx);
    cj_ctx_free(ctx);
}

static void intdiv_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_floor_divide(in[0], in[1]);
    out[1] = cj_remainder(in[0], in[1]);
}

/* jnp.floor_divide / remainder: NumPy's signs (the quotient rounds down,
 * the remainder takes the divisor's sign), x // 0 and x % 0 as XLA gives
 * them on CPU; eager and jit on both backends. */
TEST(dtype_floor_divide_remainder_new_ints_match_jax) {
    static const char *const tags[5] = {"i8", "i16", "u8", "u16", "u32"};
    for (int mode = 0; mode < 3; mode++) {
        cj_ctx *ctx = cj_ctx_new(NULL);
        for (int t = 0; t < 5; t++) {
            char n[64];
            snprintf(n, sizeof n, "intdiv_%s_a", tags[t]);
            cj_val in[2] = {load(ctx, n), {0}}, out[2];
            snprintf(n, sizeof n, "intdiv_%s_b", tags[t]);
            in[1] = load(ctx, n);
            CHECK_MSG(run(ctx, mode, "intdiv", intdiv_body, 2, 2, in, out) == CJ_OK, "%s", cj_error_message(ctx));
            snprintf(n, sizeof n, "floordiv_%s", tags[t]);
            CHECK_MSG(tu_same_bits(out[0], load(ctx, n)), "%s %s", MODES[mode], n);
            snprintf(n, sizeof n, "remainder_%s", tags[t]);
            CHECK_MSG(tu_same_bits(out[1], load(ctx, n)), "%s %s", MODES[mode], n);
        }
        CHECK(cj_error(ctx) == CJ_OK);
        cj_ctx_free(ctx);
    }
}
