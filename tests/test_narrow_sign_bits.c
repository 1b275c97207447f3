/* test_narrow_sign_bits.c — f16 neg and abs are sign-bit operations in
 * every mode, as XLA's CPU backend emits them (fneg / fabs on half).
 *
 * Over all 65,536 f16 bit patterns, eagerly, under jit with the
 * interpreter and with generated C (where they are inline bit expressions):
 * neg(x) = x ^ 0x8000 and abs(x) = x & 0x7fff exactly, so signalling NaNs
 * keep their payload (checked against jax 0.10.2 when written: jnp.negative
 * and jnp.abs of every f16 pattern give these bits), and neg(neg(x)) is x
 * whether or not the simplifier removes the pair. bf16 goes through f32 in
 * XLA and here (its signalling NaNs come back quiet): every mode must agree
 * with eager, and every non-NaN pattern is the sign-bit result. */
#include <stdlib.h>
#include <string.h>

#include "cjax.h"
#include "harness.h"

#define N 65536

static void ops(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_neg(in[0]);
    out[1] = cj_abs(in[0]);
    out[2] = cj_neg(cj_neg(in[0]));
    out[3] = cj_abs(cj_neg(in[0]));
}

static int is_nan(uint16_t b, cj_dtype dt) {
    uint16_t e = dt == CJ_F16 ? 0x7C00 : 0x7F80;
    return (b & e) == e && (b & (uint16_t)~(e | 0x8000)) != 0;
}

static void check(cj_dtype dt) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint16_t *bits = malloc(sizeof(uint16_t) * N), *got = malloc(sizeof(uint16_t) * N * 4),
             *eager = malloc(sizeof(uint16_t) * N * 4);
    CHECK(bits && got && eager);
    for (int i = 0; i < N; i++) bits[i] = (uint16_t)i;
    int64_t n = N;
    cj_val x = cj_array(ctx, dt, 1, &n, bits);
    for (int mode = 0; mode < 3; mode++) {
        cj_func *f = cj_func_new(ctx, "signs", ops, 1, 4, NULL);
        cj_jit_opts jo = {.backend = mode == 1 ? CJ_BACKEND_INTERP : CJ_BACKEND_CC};
        if (mode) f = cj_jit(f, &jo);
        cj_val out[4];
        CHECK_MSG(cj_call(f, &x, out) == CJ_OK, "%s", cj_error_message(ctx));
        for (int k = 0; k < 4; k++) CHECK(cj_read(out[k], got + (size_t)k * N, sizeof(uint16_t) * N) == CJ_OK);
        if (mode == 0) memcpy(eager, got, sizeof(uint16_t) * N * 4);
        for (int i = 0; i < N; i++) {
            uint16_t b = bits[i];
            uint16_t want[4] = {(uint16_t)(b ^ 0x8000u), (uint16_t)(b & 0x7fffu), b, (uint16_t)(b & 0x7fffu)};
            for (int k = 0; k < 4; k++) {
                uint16_t g = got[(size_t)k * N + i];
                if (dt == CJ_F16 || !is_nan(b, dt))
                    CHECK_MSG(g == want[k], "%s mode %d op %d of 0x%04x: 0x%04x, want 0x%04x", cj_dtype_name(dt), mode,
                              k, b, g, want[k]);
                else if (k != 2) /* neg(neg) of a bf16 NaN: quiet, or x where the pair is removed */
                    CHECK_MSG(g == eager[(size_t)k * N + i] && is_nan(g, dt), "%s mode %d op %d of 0x%04x: 0x%04x",
                              cj_dtype_name(dt), mode, k, b, g);
            }
        }
        cj_func_free(f);
    }
    free(bits), free(got), free(eager);
    CHECK(cj_error(ctx) == CJ_OK);
    cj_ctx_free(ctx);
}

TEST(narrow_f16_neg_abs_are_sign_bit_operations) { check(CJ_F16); }
TEST(narrow_bf16_neg_abs_agree_in_every_mode) { check(CJ_BF16); }
