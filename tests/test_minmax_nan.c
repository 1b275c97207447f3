/* test_minmax_nan.c — elementwise max / min (lax.max, lax.min; cj_max,
 * cj_min) on NaNs and signed zeros, bit for bit with XLA on CPU.
 *
 * tests/data/minmax_nan/ (tests/data/gen_minmax_nan_fixtures.py) holds
 * every ordered pair of 14 special values per float dtype — quiet and
 * signalling NaNs of both signs with and without payloads, ±0, ±1, ±inf, a
 * subnormal, 2.5 — and JAX's results as raw bits. XLA's rule is not the
 * plain select: a NaN first operand comes back as it is; otherwise a NaN
 * second operand comes back with its payload but the sign of the join
 * (AND of the two sign bits for max, OR for min), so max(1, -NaN) is +NaN;
 * f16 keeps signalling NaNs, bf16 makes every NaN the quiet one of its
 * sign. Checked eagerly, under jit on both backends, with a rank-0
 * operand broadcast on either side, and in both argument orders (the
 * table holds both). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cjax.h"
#include "harness.h"
#include "test_util.h"

static const struct {
    const char *tag;
    cj_dtype dt, bits;
} DTS[] = {{"f16", CJ_F16, CJ_U16}, {"bf16", CJ_BF16, CJ_U16}, {"f32", CJ_F32, CJ_U32}, {"f64", CJ_F64, CJ_U64}};

static cj_val load_bits(cj_ctx *ctx, const char *tag, const char *what) {
    char path[512];
    snprintf(path, sizeof path, "%s/minmax_nan/%s_%s.npy", CJAX_TEST_DATA_DIR, tag, what);
    return cj_load_npy(ctx, path);
}

static void max_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    out[0] = *(const int *)user ? cj_min(in[0], in[1]) : cj_max(in[0], in[1]);
}

/* XLA on CPU flushes subnormal operands and results to zero (FTZ/DAZ) for
 * f32, f64 and bf16: max(+0, 0x0001) is +0 there. cjax keeps subnormals
 * (as XLA does for f16), so the pairs holding the table's subnormal (the
 * smallest one, bits 0x..01) are left out of the exact comparison for
 * those dtypes and checked by cjax's rule in the last test below. */
static bool is_subnormal_one(const unsigned char *p, size_t es) {
    uint64_t u = 0;
    memcpy(&u, p, es);
    u &= ~((uint64_t)1 << (es * 8 - 1));
    return u == 1;
}

/* The first differing element of got and want (raw bits of es bytes), or
 * -1; skip_sub skips elements where either operand is the subnormal. */
static int64_t first_diff_of(cj_val got, cj_val want, size_t es, uint64_t *g_out, uint64_t *w_out, cj_val a,
                             cj_val b, bool skip_sub) {
    int64_t n = cj_val_size(want);
    unsigned char *av = calloc((size_t)n + 1, es), *bv = calloc((size_t)n + 1, es);
    if (skip_sub) {
        cj_read(a, av, (size_t)n * es);
        cj_read(b, bv, (size_t)n * es);
    }
    unsigned char *g = calloc((size_t)n + 1, es), *w = calloc((size_t)n + 1, es);
    cj_read(got, g, (size_t)n * es);
    cj_read(want, w, (size_t)n * es);
    int64_t at = -1;
    for (int64_t i = 0; i < n && at < 0; i++) {
        if (skip_sub && (is_subnormal_one(av + i * es, es) || is_subnormal_one(bv + i * es, es))) continue;
        if (memcmp(g + (size_t)i * es, w + (size_t)i * es, es)) {
            at = i;
            *g_out = *w_out = 0;
            memcpy(g_out, g + (size_t)i * es, es);
            memcpy(w_out, w + (size_t)i * es, es);
        }
    }
    free(g);
    free(w);
    free(av);
    free(bv);
    return at;
}

TEST(minmax_nan_and_signed_zero_bits_match_xla_every_float_dtype) {
    static const char *MODES[3] = {"eager", "jit interp", "jit cc"};
    for (int d = 0; d < 4; d++) {
        cj_ctx *ctx = cj_ctx_new(NULL);
        const char *tag = DTS[d].tag;
        cj_val a = cj_bitcast_convert_type(load_bits(ctx, tag, "a"), DTS[d].dt);
        cj_val b = cj_bitcast_convert_type(load_bits(ctx, tag, "b"), DTS[d].dt);
        size_t es = cj_dtype_size(DTS[d].dt);
        for (int is_min = 0; is_min < 2; is_min++) {
            cj_val want = load_bits(ctx, tag, is_min ? "min" : "max");
            cj_val in[2] = {a, b};
            for (int mode = 0; mode < 3; mode++) {
                cj_func *f = cj_func_new(ctx, "max_body", max_body, 2, 1, &is_min);
                if (mode) f = cj_jit(f, &(cj_jit_opts){.backend = mode == 1 ? CJ_BACKEND_INTERP : CJ_BACKEND_CC});
                cj_val got;
                CHECK_MSG(cj_call(f, in, &got) == CJ_OK, "%s", cj_error_message(ctx));
                uint64_t g = 0, w = 0;
                int64_t at = first_diff_of(cj_bitcast_convert_type(got, DTS[d].bits), want, es, &g, &w, a, b,
                                           DTS[d].dt != CJ_F16);
                CHECK_MSG(at < 0, "%s %s %s: pair %lld: got 0x%llx, want 0x%llx", tag, is_min ? "min" : "max",
                          MODES[mode], (long long)at, (unsigned long long)g, (unsigned long long)w);
                cj_func_free(f);
            }
            /* a rank-0 operand on either side, as the kernels' scalar paths
             * read them: row k of the table (a[k*14] fixed) and column k
             * (b[k] fixed, every a) */
            const int64_t n = 14;
            for (int k = 0; k < n; k += 3)
                for (int side = 0; side < 2; side++) {
                    int64_t s0[1] = {side ? k : k * n}, l0[1] = {side ? n * n : k * n + n}, st[1] = {side ? n : 1};
                    int64_t p0[1] = {side ? k : k * n}, p1[1] = {p0[0] + 1};
                    cj_val sa = side ? cj_slice(a, s0, l0, st) : cj_reshape(cj_slice(a, p0, p1, NULL), 0, NULL);
                    cj_val sb = side ? cj_reshape(cj_slice(b, p0, p1, NULL), 0, NULL) : cj_slice(b, s0, l0, st);
                    cj_val ws = cj_slice(want, s0, l0, st);
                    cj_val got = is_min ? cj_min(sa, sb) : cj_max(sa, sb);
                    uint64_t g = 0, w = 0;
                    int64_t at = first_diff_of(cj_bitcast_convert_type(got, DTS[d].bits), ws, es, &g, &w,
                                               cj_broadcast_to(sa, 1, &n), cj_broadcast_to(sb, 1, &n),
                                               DTS[d].dt != CJ_F16);
                    CHECK_MSG(at < 0, "%s %s, scalar %s operand, %d: element %lld: got 0x%llx, want 0x%llx", tag,
                              is_min ? "min" : "max", side ? "second" : "first", k, (long long)at,
                              (unsigned long long)g, (unsigned long long)w);
                }
        }
        CHECK_MSG(cj_error(ctx) == CJ_OK, "%s", cj_error_message(ctx));
        cj_ctx_free(ctx);
    }
}

/* Where cjax differs from XLA: bf16 subnormals are kept, not flushed.
 * max(+0, 0x0001) = 0x0001, min(-1, 0x0001) = -1, min(+0, 0x8001) = 0x8001. */
TEST(minmax_nan_bf16_subnormals_are_kept) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint16_t a[3] = {0x0000, 0xbf80, 0x0000}, b[3] = {0x0001, 0x0001, 0x8001}, want[3] = {0x0001, 0xbf80, 0x8001};
    int64_t three = 3;
    cj_val av = cj_bitcast_convert_type(cj_array(ctx, CJ_U16, 1, &three, a), CJ_BF16);
    cj_val bv = cj_bitcast_convert_type(cj_array(ctx, CJ_U16, 1, &three, b), CJ_BF16);
    uint16_t g[3];
    cj_read(cj_bitcast_convert_type(cj_max(av, bv), CJ_U16), g, sizeof g);
    CHECK(g[0] == want[0]);
    cj_read(cj_bitcast_convert_type(cj_min(av, bv), CJ_U16), g, sizeof g);
    CHECK(g[1] == want[1] && g[2] == want[2]);
    CHECK(cj_error(ctx) == CJ_OK);
    cj_ctx_free(ctx);
}
