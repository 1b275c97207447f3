/* test_bits.c — shift_left, shift_right_logical, shift_right_arithmetic,
 * population_count and bitcast_convert_type: against JAX on CPU for every
 * integer dtype (tests/data/bits, tests/data/gen_bits_fixtures.py; the shift
 * amounts include negative ones, the width and beyond), eager, under jit
 * (interpreter and generated C, bit for bit equal), under vmap, their zero
 * tangents, their printed names, and the dtype errors. bitcast's reference
 * is the bytes themselves (memcpy). */
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "harness.h"
#include "runtime/runtime.h"
#include "test_util.h"

static const cj_dtype ints[] = {CJ_I8, CJ_I16, CJ_I32, CJ_I64, CJ_U8, CJ_U16, CJ_U32, CJ_U64};
#define N_INTS ((int)(sizeof ints / sizeof ints[0]))
static const char *const op_names[4] = {"shift_left", "shift_right_logical", "shift_right_arithmetic",
                                        "population_count"};

static cj_val load(cj_ctx *ctx, cj_dtype dt, const char *what) {
    char path[512];
    snprintf(path, sizeof path, "%s/bits/%s_%s.npy", CJAX_TEST_DATA_DIR, cj_dtype_name(dt), what);
    return cj_load_npy(ctx, path);
}

static cj_val apply(int k, cj_val a, cj_val b) {
    switch (k) {
    case 0: return cj_shift_left(a, b);
    case 1: return cj_shift_right_logical(a, b);
    case 2: return cj_shift_right_arithmetic(a, b);
    default: return cj_population_count(a);
    }
}

static void four_ops(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    for (int k = 0; k < 4; k++) out[k] = apply(k, in[0], in[1]);
}

TEST(bits_against_jax_eager_and_jit) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int checked = 0;
    for (int d = 0; d < N_INTS; d++) {
        cj_dtype dt = ints[d];
        const char *dn = cj_dtype_name(dt);
        cj_val in[2] = {load(ctx, dt, "a"), load(ctx, dt, "b")};
        CHECK_MSG(!cj_is_error(in[0]) && !cj_is_error(in[1]), "%s: %s", dn, cj_error_message(ctx));
        CHECK(cj_val_dtype(in[0]) == dt && cj_val_dtype(in[1]) == dt);
        cj_func *f = cj_func_new(ctx, "bits", four_ops, 2, 4, NULL);
        cj_jit_opts interp = {0, NULL, 0, NULL, CJ_BACKEND_INTERP}, cc = {0, NULL, 0, NULL, CJ_BACKEND_CC};
        cj_val ye[4], yi[4], yc[4];
        cj_func *jcc = cj_jit(f, &cc);
        CHECK(cj_call(f, in, ye) == CJ_OK);
        CHECK(cj_call(cj_jit(f, &interp), in, yi) == CJ_OK);
        CHECK(cj_call(jcc, in, yc) == CJ_OK);
        /* generated C writes them inline (prim_c_shift, prim_c_popcount), not as table calls */
        char *src = cj_jit_dump(jcc, in, "c");
        CHECK_MSG(src && strstr(src, " << ") && strstr(src, " >> ") && strstr(src, "__builtin_popcountll"), "%s: %s",
                  dn, src ? "shifts or popcount not inline" : cj_error_message(ctx));
        if (src) cj_string_free(ctx, src);
        CHECK_MSG(cj_error(ctx) == CJ_OK, "%s: %s", dn, cj_error_message(ctx));
        if (cj_error(ctx) != CJ_OK) break;
        for (int k = 0; k < 4; k++) {
            cj_val want = load(ctx, dt, op_names[k]);
            CHECK_MSG(!cj_is_error(want), "%s", cj_error_message(ctx));
            CHECK_MSG(tu_same_bits(ye[k], want), "%s %s: eager differs from JAX", op_names[k], dn);
            CHECK_MSG(tu_same_bits(yi[k], want), "%s %s: jit interpreter differs from JAX", op_names[k], dn);
            CHECK_MSG(tu_same_bits(yc[k], want), "%s %s: generated C differs from JAX", op_names[k], dn);
            checked++;
        }
    }
    CHECK(checked == 4 * N_INTS);
    cj_ctx_free(ctx);
}

/* A rank-0 amount (stride 0) and vmap over the amounts, against the
 * element-by-element eager results. */
static void sra_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_shift_right_arithmetic(in[0], in[1]);
}

TEST(bits_scalar_amount_and_vmap) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t n = 5;
    const int16_t x[5] = {-32768, -3, 0, 7, 32767};
    const int16_t s[5] = {0, 1, 15, 16, -1};
    cj_val xv = cj_array(ctx, CJ_I16, 1, &n, x);
    for (int j = 0; j < 5; j++) {
        cj_val y = cj_shift_right_arithmetic(xv, cj_scalar_typed(ctx, (double)s[j], CJ_I16));
        int16_t g[5];
        CHECK(cj_read(y, g, sizeof g) == CJ_OK);
        for (int i = 0; i < 5; i++) {
            /* the sign fill for amounts outside [0, 16) */
            int16_t w = s[j] < 0 || s[j] >= 16 ? (int16_t)(x[i] < 0 ? -1 : 0) : (int16_t)(x[i] >> s[j]);
            CHECK_MSG(g[i] == w, "x=%d s=%d: %d, want %d", x[i], s[j], g[i], w);
        }
    }
    /* vmap over the amounts: x mapped too (axis 0 of [5,5]) */
    int64_t d2[2] = {5, 5};
    int16_t xx[25], ss[25];
    for (int i = 0; i < 25; i++) xx[i] = x[i % 5], ss[i] = s[i / 5];
    cj_val in[2] = {cj_array(ctx, CJ_I16, 2, d2, xx), cj_array(ctx, CJ_I16, 2, d2, ss)};
    cj_func *f = cj_func_new(ctx, "sra", sra_fn, 2, 1, NULL);
    cj_val yv, ye;
    CHECK(cj_call(cj_vmap(f, NULL), in, &yv) == CJ_OK);
    CHECK(cj_call(f, in, &ye) == CJ_OK);
    CHECK_MSG(cj_error(ctx) == CJ_OK, "%s", cj_error_message(ctx));
    CHECK(tu_same_bits(yv, ye));
    cj_ctx_free(ctx);
}

/* bitcast_convert_type between dtypes of one width: the bytes unchanged,
 * eager and under jit on both backends; never weak. */
static cj_dtype bitcast_to;
static void bitcast_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_bitcast_convert_type(in[0], bitcast_to);
}

TEST(bits_bitcast_same_width) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    static const cj_dtype pairs[][2] = {
        {CJ_F32, CJ_I32}, {CJ_I32, CJ_F32}, {CJ_F32, CJ_U32}, {CJ_U32, CJ_F32}, {CJ_F64, CJ_I64},
        {CJ_I64, CJ_F64}, {CJ_F64, CJ_U64}, {CJ_U64, CJ_I64}, {CJ_F16, CJ_I16}, {CJ_BF16, CJ_U16},
        {CJ_U16, CJ_F16}, {CJ_F16, CJ_BF16}, {CJ_I8, CJ_U8},  {CJ_U8, CJ_I8},   {CJ_I32, CJ_I32},
    };
    uint64_t st = 9;
    unsigned char bytes[6 * 8];
    for (size_t i = 0; i < sizeof bytes; i += 8) {
        uint64_t r = th_rand_u64(&st);
        memcpy(bytes + i, &r, 8);
    }
    int64_t n = 6;
    for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
        cj_dtype from = pairs[p][0], to = pairs[p][1];
        size_t es = cj_dtype_size(from);
        cj_val x = cj_array(ctx, from, 1, &n, bytes);
        bitcast_to = to;
        cj_func *f = cj_func_new(ctx, "bitcast", bitcast_fn, 1, 1, NULL);
        cj_jit_opts interp = {0, NULL, 0, NULL, CJ_BACKEND_INTERP}, cc = {0, NULL, 0, NULL, CJ_BACKEND_CC};
        cj_val y[3];
        CHECK(cj_call(f, &x, &y[0]) == CJ_OK);
        CHECK(cj_call(cj_jit(f, &interp), &x, &y[1]) == CJ_OK);
        CHECK(cj_call(cj_jit(f, &cc), &x, &y[2]) == CJ_OK);
        CHECK_MSG(cj_error(ctx) == CJ_OK, "%s -> %s: %s", cj_dtype_name(from), cj_dtype_name(to),
                  cj_error_message(ctx));
        if (cj_error(ctx) != CJ_OK) break;
        for (int k = 0; k < 3; k++) {
            unsigned char got[6 * 8];
            CHECK(cj_val_dtype(y[k]) == to && !cj_val_weak(y[k]) && cj_val_size(y[k]) == 6);
            CHECK(cj_read(y[k], got, es * 6) == CJ_OK);
            CHECK_MSG(!memcmp(got, bytes, es * 6), "%s -> %s (%d): bits changed", cj_dtype_name(from),
                      cj_dtype_name(to), k);
        }
    }
    /* a weak input gives a strong result */
    cj_val w = cj_bitcast_convert_type(cj_scalar(ctx, 1.0), CJ_I32);
    int32_t wi = 0;
    CHECK(!cj_val_weak(w) && cj_read(w, &wi, sizeof wi) == CJ_OK && wi == 0x3f800000);
    cj_ctx_free(ctx);
}

/* Zero tangents (as JAX), the printed names and params. */
static void grad_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    cj_val i = cj_bitcast_convert_type(in[0], CJ_I32);
    cj_val j = cj_shift_left(cj_population_count(i), cj_scalar_typed(in[0].ctx, 1, CJ_I32));
    out[0] = cj_add(cj_bitcast_convert_type(cj_shift_right_logical(i, j), CJ_F32),
                    cj_bitcast_convert_type(cj_shift_right_arithmetic(i, j), CJ_F32));
}

TEST(bits_zero_tangent_and_printing) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *f = cj_func_new(ctx, "g", grad_fn, 1, 1, NULL);
    cj_val x = cj_scalar_typed(ctx, 1.5, CJ_F32), t = cj_scalar_typed(ctx, 1.0, CJ_F32), y, ty;
    CHECK(cj_jvp(f, &x, &t, &y, &ty) == CJ_OK);
    float tv = -1;
    CHECK(cj_read(ty, &tv, sizeof tv) == CJ_OK && tv == 0.0f);
    cj_spec sp = cj_spec_make(CJ_F32, 0, NULL);
    char *text = cj_make_jaxpr(f, 1, &sp);
    CHECK_MSG(text != NULL, "%s", cj_error_message(ctx));
    if (text) {
        CHECK_MSG(strstr(text, "bitcast_convert_type[new_dtype=i32]") && strstr(text, "population_count") &&
                      strstr(text, "shift_left") && strstr(text, "shift_right_logical") &&
                      strstr(text, "shift_right_arithmetic"),
                  "%s", text);
        cj_string_free(ctx, text);
    }
    cj_ctx_free(ctx);
}

/* Bad dtypes: named errors, no crash. */
TEST(bits_errors) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val f = cj_scalar_typed(ctx, 1.0, CJ_F32), b = cj_scalar_typed(ctx, 1.0, CJ_BOOL);
    cj_val y = cj_shift_left(f, f);
    CHECK(cj_is_error(y) && cj_error(ctx) == CJ_ERR_DTYPE && strstr(cj_error_message(ctx), "shift_left"));
    cj_error_clear(ctx);
    y = cj_population_count(b);
    CHECK(cj_is_error(y) && cj_error(ctx) == CJ_ERR_DTYPE && strstr(cj_error_message(ctx), "population_count"));
    cj_error_clear(ctx);
    y = cj_shift_right_arithmetic(cj_scalar_typed(ctx, 1.0, CJ_F16), cj_scalar_typed(ctx, 1.0, CJ_F16));
    CHECK(cj_is_error(y) && cj_error(ctx) == CJ_ERR_DTYPE);
    cj_error_clear(ctx);
    int64_t n = 3;
    /* across widths the narrow side's last axis must be the ratio, as lax */
    y = cj_bitcast_convert_type(cj_zeros(ctx, CJ_F32, 1, &n), CJ_I64);
    CHECK(cj_is_error(y) && cj_error(ctx) == CJ_ERR_SHAPE);
    const char *m = cj_error_message(ctx);
    CHECK_MSG(strstr(m, "bitcast_convert_type") && strstr(m, "f32[3]") && strstr(m, "i64"), "%s", m);
    cj_error_clear(ctx);
    y = cj_bitcast_convert_type(cj_zeros(ctx, CJ_BOOL, 1, &n), CJ_U8); /* lax refuses bool <-> others */
    CHECK(cj_is_error(y) && cj_error(ctx) == CJ_ERR_DTYPE && strstr(cj_error_message(ctx), "bool[3]"));
    cj_error_clear(ctx);
    y = cj_bitcast_convert_type(cj_zeros(ctx, CJ_I8, 1, &n), CJ_BOOL);
    CHECK(cj_is_error(y) && cj_error(ctx) == CJ_ERR_DTYPE);
    cj_error_clear(ctx);
    y = cj_bitcast_convert_type(f, (cj_dtype)99);
    CHECK(cj_is_error(y) && cj_error(ctx) == CJ_ERR_DTYPE);
    cj_error_clear(ctx);
    cj_ctx_free(ctx);
}
