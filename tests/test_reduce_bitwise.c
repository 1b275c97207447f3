/* test_reduce_bitwise.c — lax.reduce_and / reduce_or / reduce_xor
 * (cj_reduce_and, _or, _xor) and jnp.any / jnp.all of integers, on bool and
 * every integer dtype.
 *
 * Against JAX on CPU (tests/data/reduce_bitwise/, written by
 * tests/data/gen_reduce_bitwise_fixtures.py): every op over six axis sets of
 * a (3, 4, 5) operand, bit for bit, eagerly and under jit on both backends;
 * an empty reduction gives lax's identity. Long rows (a ROWS kernel fusing
 * an elementwise producer, and one longer than a tile) against a plain loop
 * written here; vmap against a loop of single calls; the printed program;
 * errors (a float operand, a bad axis); and a jvp through reduce_or of a
 * comparison (the integer result carries no tangent). */
#include <stdlib.h>
#include <string.h>

#include "cjax.h"
#include "harness.h"
#include "test_util.h"

typedef struct dt_tag {
    const char *tag;
    cj_dtype dt;
} dt_tag;
static const dt_tag DTS[] = {{"bool", CJ_BOOL}, {"i8", CJ_I8},   {"i16", CJ_I16}, {"i32", CJ_I32}, {"i64", CJ_I64},
                             {"u8", CJ_U8},     {"u16", CJ_U16}, {"u32", CJ_U32}, {"u64", CJ_U64}};
#define N_DTS ((int)(sizeof DTS / sizeof DTS[0]))

static const char *OPS[3] = {"and", "or", "xor"};
typedef cj_val (*reduce_fn)(cj_val, int, const int64_t *, int);
static const reduce_fn FNS[3] = {cj_reduce_and, cj_reduce_or, cj_reduce_xor};

static const struct {
    int n;
    int64_t v[3];
    const char *name;
} AXES[] = {{1, {0}, "0"}, {1, {1}, "1"}, {1, {2}, "2"}, {2, {0, 2}, "02"}, {2, {1, 2}, "12"}, {3, {0, 1, 2}, "012"}};
#define N_AXES ((int)(sizeof AXES / sizeof AXES[0]))

static cj_val load(cj_ctx *ctx, const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/reduce_bitwise/%s.npy", CJAX_TEST_DATA_DIR, name);
    return cj_load_npy(ctx, path);
}

/* The function jit runs: op over the axes in *user (an index into AXES,
 * times 3, plus the op). */
static void reduce_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    int which = *(const int *)user, op = which % 3, ax = which / 3;
    out[0] = FNS[op](in[0], AXES[ax].n, AXES[ax].v, 0);
}

static const char *MODES[3] = {"eager", "jit interp", "jit cc"};

static cj_status run_mode(cj_ctx *ctx, int mode, cj_fn body, void *user, int n_in, const cj_val *in, cj_val *out) {
    cj_func *f = cj_func_new(ctx, "reduce_body", body, n_in, 1, user);
    if (mode == 0) {
        cj_status s = cj_call(f, in, out);
        cj_func_free(f);
        return s;
    }
    cj_jit_opts o = {.backend = mode == 1 ? CJ_BACKEND_INTERP : CJ_BACKEND_CC};
    cj_func *jf = cj_jit(f, &o);
    cj_status s = cj_call(jf, in, out);
    cj_func_free(jf);
    return s;
}

TEST(reduce_bitwise_matches_jax_every_integer_dtype_and_mode) {
    for (int d = 0; d < N_DTS; d++) {
        cj_ctx *ctx = cj_ctx_new(NULL);
        char name[96];
        snprintf(name, sizeof name, "in_%s", DTS[d].tag);
        cj_val x = load(ctx, name);
        CHECK_MSG(cj_val_dtype(x) == DTS[d].dt, "%s: %s", name, cj_error_message(ctx));
        for (int op = 0; op < 3; op++)
            for (int a = 0; a < N_AXES; a++) {
                snprintf(name, sizeof name, "%s_%s_%s", OPS[op], DTS[d].tag, AXES[a].name);
                cj_val want = load(ctx, name);
                int which = a * 3 + op;
                for (int mode = 0; mode < 3; mode++) {
                    cj_val got;
                    CHECK_MSG(run_mode(ctx, mode, reduce_body, &which, 1, &x, &got) == CJ_OK, "%s %s: %s", name,
                              MODES[mode], cj_error_message(ctx));
                    CHECK_MSG(tu_same_bits(got, want), "%s %s", name, MODES[mode]);
                }
            }
        CHECK_MSG(cj_error(ctx) == CJ_OK, "%s", cj_error_message(ctx));
        cj_ctx_free(ctx);
    }
}

/* An empty axis reduces to lax's identity: all ones for and (true for
 * bool), 0 for or and xor; keepdims keeps the axis as size 1. */
TEST(reduce_bitwise_empty_axis_gives_the_identity) {
    for (int d = 0; d < N_DTS; d++) {
        cj_ctx *ctx = cj_ctx_new(NULL);
        int64_t shape[2] = {2, 0}, one = 1;
        cj_val x = cj_zeros(ctx, DTS[d].dt, 2, shape);
        for (int op = 0; op < 3; op++) {
            char name[96];
            snprintf(name, sizeof name, "empty_%s_%s", OPS[op], DTS[d].tag);
            cj_val got = FNS[op](x, 1, &one, 0);
            CHECK_MSG(tu_same_bits(got, load(ctx, name)), "%s: %s", name, cj_error_message(ctx));
            cj_val kept = FNS[op](x, 1, &one, 1);
            CHECK(cj_val_rank(kept) == 2 && cj_val_dim(kept, 0) == 2 && cj_val_dim(kept, 1) == 1);
        }
        CHECK(cj_error(ctx) == CJ_OK);
        cj_ctx_free(ctx);
    }
}

/* jnp.any / jnp.all of integers reduce x != 0 to bools, as JAX. */
TEST(reduce_bitwise_any_all_of_integers_match_jax) {
    for (int d = 0; d < N_DTS; d++) {
        cj_ctx *ctx = cj_ctx_new(NULL);
        char name[96];
        snprintf(name, sizeof name, "in_%s", DTS[d].tag);
        cj_val x = load(ctx, name);
        for (int a = 0; a < N_AXES; a++) {
            snprintf(name, sizeof name, "any_%s_%s", DTS[d].tag, AXES[a].name);
            CHECK_MSG(tu_same_bits(cj_any(x, AXES[a].n, AXES[a].v, 0), load(ctx, name)), "%s", name);
            snprintf(name, sizeof name, "all_%s_%s", DTS[d].tag, AXES[a].name);
            CHECK_MSG(tu_same_bits(cj_all(x, AXES[a].n, AXES[a].v, 0), load(ctx, name)), "%s", name);
        }
        CHECK_MSG(cj_error(ctx) == CJ_OK, "%s", cj_error_message(ctx));
        cj_ctx_free(ctx);
    }
}

/* A deterministic u32 pattern with long runs of set bits, so and/or/xor
 * all have work: element i of row r. */
static uint32_t pattern(int64_t r, int64_t i) {
    uint32_t v = (uint32_t)(i * 2654435761u + (uint64_t)r * 40503u);
    return (i % 7 == 3) ? v : (v | 0xfff0f0ffu);
}

/* reduce_op(x & mask) along the last axis: under jit the and fuses into
 * the reduction's ROWS kernel (rows of 300) and, for rows of 20000, a
 * long-rows kernel folded tile by tile. */
static void masked_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    int op = *(const int *)user;
    int64_t last = 1;
    out[0] = FNS[op](cj_and(in[0], in[1]), 1, &last, 0);
}

TEST(reduce_bitwise_long_rows_under_jit_match_a_loop) {
    const int64_t lens[2] = {300, 20000};
    for (int li = 0; li < 2; li++)
        for (int dsel = 0; dsel < 3; dsel++) { /* u32, i8 (narrowed), bool (low bit) */
            cj_ctx *ctx = cj_ctx_new(NULL);
            int64_t rows = 5, len = lens[li], shape[2] = {rows, len};
            cj_dtype dt = dsel == 0 ? CJ_U32 : dsel == 1 ? CJ_I8 : CJ_BOOL;
            size_t es = cj_dtype_size(dt);
            unsigned char *buf = malloc((size_t)(rows * len) * es);
            for (int64_t r = 0; r < rows; r++)
                for (int64_t i = 0; i < len; i++) {
                    uint32_t v = pattern(r, i);
                    if (r == 2 && i == len - 1) v = 0; /* one zero at the very end of a row */
                    if (dt == CJ_U32) memcpy(buf + (size_t)(r * len + i) * 4, &v, 4);
                    else if (dt == CJ_I8) buf[r * len + i] = (unsigned char)v;
                    else buf[r * len + i] = (unsigned char)((v >> 3) & 1 || r == 1);
                }
            cj_val x = cj_array(ctx, dt, 2, shape, buf);
            cj_val mask = dt == CJ_BOOL ? cj_full(ctx, 1.0, CJ_BOOL, 0, NULL) : cj_scalar_typed(ctx, -1, dt);
            if (dt == CJ_U32) mask = cj_astype(cj_scalar_typed(ctx, 0xfffffffe, CJ_U32), CJ_U32);
            cj_val in[2] = {x, mask};
            for (int op = 0; op < 3; op++) {
                /* the reference: a plain loop */
                uint64_t want[5];
                for (int64_t r = 0; r < rows; r++) {
                    uint64_t acc = op == 0 ? ~(uint64_t)0 : 0;
                    for (int64_t i = 0; i < len; i++) {
                        uint64_t v;
                        if (dt == CJ_U32) {
                            uint32_t u;
                            memcpy(&u, buf + (size_t)(r * len + i) * 4, 4);
                            v = u & 0xfffffffeu;
                        } else {
                            v = buf[r * len + i];
                        }
                        acc = op == 0 ? acc & v : op == 1 ? acc | v : acc ^ v;
                    }
                    want[r] = acc & (dt == CJ_U32 ? 0xffffffffu : dt == CJ_I8 ? 0xffu : 1u);
                }
                for (int mode = 0; mode < 3; mode++) {
                    cj_val got;
                    CHECK_MSG(run_mode(ctx, mode, masked_body, &op, 2, in, &got) == CJ_OK, "%s", cj_error_message(ctx));
                    unsigned char g[5 * 4] = {0};
                    CHECK(cj_val_dtype(got) == dt && cj_val_size(got) == rows);
                    cj_read(got, g, (size_t)rows * es);
                    for (int64_t r = 0; r < rows; r++) {
                        uint64_t v = 0;
                        memcpy(&v, g + (size_t)r * es, es);
                        CHECK_MSG(v == want[r], "%s %s rows of %lld, row %lld: got 0x%llx, want 0x%llx", OPS[op],
                                  MODES[mode], (long long)len, (long long)r, (unsigned long long)v,
                                  (unsigned long long)want[r]);
                    }
                }
            }
            free(buf);
            CHECK(cj_error(ctx) == CJ_OK);
            cj_ctx_free(ctx);
        }
}

static void xor_rows(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    int64_t ax = 0;
    out[0] = cj_reduce_xor(in[0], 1, &ax, 0);
}

/* vmap over axis 1 of a (3, 4, 5) operand of reduce_xor over (the slice's)
 * axis 0 equals the loop of single calls; and the printed program names
 * the primitive with lax's parameter text. */
TEST(reduce_bitwise_vmap_matches_a_loop_and_prints_as_lax) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val x = load(ctx, "in_u16");
    int64_t ax1 = 1;
    cj_func *vf = cj_vmap(cj_func_new(ctx, "xor_rows", xor_rows, 1, 1, NULL), &(cj_vmap_opts){.in_axes = &ax1});
    cj_val got;
    CHECK_MSG(cj_call(vf, &x, &got) == CJ_OK, "%s", cj_error_message(ctx));
    CHECK(cj_val_rank(got) == 2 && cj_val_dim(got, 0) == 4 && cj_val_dim(got, 1) == 5);
    for (int64_t b = 0; b < 4; b++) {
        int64_t start[3] = {0, b, 0}, limit[3] = {3, b + 1, 5};
        cj_val slice = cj_squeeze(cj_slice(x, start, limit, NULL), 1, &ax1);
        int64_t ax0 = 0, bs[2] = {b, 0}, bl[2] = {b + 1, 5};
        CHECK_MSG(tu_same_bits(cj_slice(got, bs, bl, NULL), cj_expand_dims(cj_reduce_xor(slice, 1, &ax0, 0), 0)),
                  "batch %lld", (long long)b);
    }
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cj_func *jf = cj_jit(cj_func_new(ctx, "xor_rows", xor_rows, 1, 1, NULL), NULL);
    CHECK(cj_print_ir(jf, 1, &x, f) == CJ_OK);
    fclose(f);
    CHECK_STR_CONTAINS(text, "u16[4,5] = reduce_xor[axes=(0,)] a");
    free(text);
    CHECK(cj_error(ctx) == CJ_OK);
    cj_ctx_free(ctx);
}

TEST(reduce_bitwise_errors_name_the_operation_and_operand) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t three = 3, bad = 2;
    cj_val f = cj_ones(ctx, CJ_F32, 1, &three);
    cj_val r = cj_reduce_and(f, -1, NULL, 0);
    CHECK(cj_is_error(r) && cj_error(ctx) == CJ_ERR_DTYPE);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "reduce_and");
    CHECK_STR_CONTAINS(cj_error_message(ctx), "bool or an integer dtype, got f32 (operand f32[3])");
    cj_error_clear(ctx);
    cj_val h = cj_astype(f, CJ_BF16);
    CHECK(cj_is_error(cj_reduce_xor(h, -1, NULL, 0)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "reduce_xor");
    CHECK_STR_CONTAINS(cj_error_message(ctx), "got bf16");
    cj_error_clear(ctx);
    cj_val u = cj_ones(ctx, CJ_U8, 1, &three);
    CHECK(cj_is_error(cj_reduce_or(u, 1, &bad, 0)));
    CHECK(cj_error(ctx) == CJ_ERR_AXIS);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_reduce_or");
    cj_error_clear(ctx);
    cj_ctx_free(ctx);
}

/* f(x) = x * float(any(x > 1)): the reduction's bool result has no
 * tangent, so the gradient is float(any(x > 1)) per element, eagerly and
 * under jit (JAX: reduce_or has no jvp rule; its float0 tangent is zero). */
static void gated(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    cj_val any = cj_reduce_or(cj_gt(in[0], cj_scalar(ctx, 1.0)), -1, NULL, 0);
    out[0] = cj_sum(cj_mul(in[0], cj_astype(any, CJ_F32)), -1, NULL, 0);
}

TEST(reduce_bitwise_integer_result_carries_no_tangent) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    for (int hi = 0; hi < 2; hi++) {
        float v[3] = {0.5f, hi ? 2.0f : 0.25f, -1.0f};
        int64_t three = 3;
        cj_val x = cj_array(ctx, CJ_F32, 1, &three, v);
        for (int jit = 0; jit < 2; jit++) {
            cj_func *g = cj_grad(cj_func_new(ctx, "gated", gated, 1, 1, NULL), NULL);
            if (jit) g = cj_jit(g, NULL);
            cj_val dx;
            CHECK_MSG(cj_call(g, &x, &dx) == CJ_OK, "%s", cj_error_message(ctx));
            float d[3] = {-1, -1, -1};
            cj_read(dx, d, sizeof d);
            for (int i = 0; i < 3; i++) CHECK_MSG(d[i] == (hi ? 1.0f : 0.0f), "jit %d element %d: %g", jit, i, d[i]);
            cj_func_free(g);
        }
    }
    CHECK(cj_error(ctx) == CJ_OK);
    cj_ctx_free(ctx);
}
