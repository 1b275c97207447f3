/* test_bind.c — the strict helpers rules bind primitives through
 * (src/prim/bind.h): no promotion, no implicit broadcasting; a mismatch is
 * the primitive's own error; the shapes and values they make match plain
 * loops. */
#include "../src/core/core.h"
#include "../src/prim/bind.h"
#include "harness.h"

static const rt_aval *aval(cj_val v) { return &core_peek(v)->aval; }

TEST(bind_binary_does_not_promote_dtypes) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    float xf[3] = {1, 2, 3};
    double xd[3] = {1, 2, 3};
    cj_val a = cj_array(ctx, CJ_F32, 1, (int64_t[]){3}, xf), b = cj_array(ctx, CJ_F64, 1, (int64_t[]){3}, xd);
    cj_val r = bind_binary(PRIM_ADD, a, b);
    CHECK(r.slot == 0);
    CHECK(cj_error(ctx) == CJ_ERR_DTYPE);
    CHECK_MSG(strstr(cj_error_message(ctx), "add: operands must have equal dtypes") != NULL, "%s",
              cj_error_message(ctx));
    cj_ctx_free(ctx);
}

TEST(bind_binary_does_not_broadcast_shapes) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    float x[6] = {0};
    cj_val a = cj_array(ctx, CJ_F32, 2, (int64_t[]){3, 2}, x), b = cj_array(ctx, CJ_F32, 2, (int64_t[]){1, 2}, x);
    CHECK(bind_binary(PRIM_MUL, a, b).slot == 0);
    CHECK(cj_error(ctx) == CJ_ERR_SHAPE);
    CHECK_MSG(strstr(cj_error_message(ctx), "mul: shapes") != NULL, "%s", cj_error_message(ctx));
    cj_ctx_free(ctx);
}

TEST(bind_helpers_match_plain_loops) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    /* expand: [3,1] stretched to [3,4] */
    float col[3] = {1, 2, 3};
    cj_val c = cj_array(ctx, CJ_F32, 2, (int64_t[]){3, 1}, col);
    cj_val e = bind_expand(c, 2, (int64_t[]){3, 4});
    float got[12];
    CHECK(cj_read(e, got, sizeof got) == CJ_OK);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) CHECK(got[i * 4 + j] == col[i]);
    /* iota along axis 1, where, clamp, take_along */
    cj_val io = bind_iota(ctx, CJ_I32, 2, (int64_t[]){3, 4}, 1);
    cj_val lo = bind_scalar(ctx, 1, CJ_I32, 0), hi = bind_scalar(ctx, 2, CJ_I32, 0);
    cj_val cl = bind_clamp(lo, io, hi);
    cj_val pick = bind_where(bind_binary(PRIM_LT, io, hi), bind_full(ctx, 7, CJ_I32, 2, (int64_t[]){3, 4}), io);
    int32_t gc[12], gp[12];
    CHECK(cj_read(cl, gc, sizeof gc) == CJ_OK && cj_read(pick, gp, sizeof gp) == CJ_OK);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) {
            CHECK(gc[i * 4 + j] == (j < 1 ? 1 : j > 2 ? 2 : j));
            CHECK(gp[i * 4 + j] == (j < 2 ? 7 : j));
        }
    cj_val t = bind_take_along(e, cl, 1); /* every row of e is constant */
    CHECK(cj_read(t, got, sizeof got) == CJ_OK);
    for (int i = 0; i < 12; i++) CHECK(got[i] == col[i / 4]);
    /* transpose, reshape, pad with a negative crop, cumulative product */
    float m[6] = {1, 2, 3, 4, 5, 6};
    cj_val x = cj_array(ctx, CJ_F32, 2, (int64_t[]){2, 3}, m);
    cj_val tr = bind_reshape(bind_transpose(x, (int64_t[]){1, 0}), 1, (int64_t[]){6});
    float gt[6];
    CHECK(cj_read(tr, gt, sizeof gt) == CJ_OK);
    for (int k = 0; k < 6; k++) CHECK(gt[k] == m[(k % 2) * 3 + k / 2]);
    cj_val sh = bind_pad(tr, bind_scalar(ctx, -1, CJ_F32, 0), (int64_t[]){1}, (int64_t[]){-1}, NULL);
    CHECK(cj_read(sh, gt, sizeof gt) == CJ_OK);
    CHECK(gt[0] == -1);
    for (int k = 1; k < 6; k++) CHECK(gt[k] == m[((k - 1) % 2) * 3 + (k - 1) / 2]);
    cj_val cp = bind_cumulative(PRIM_CUMPROD, x, 1, 1);
    CHECK(cj_read(cp, gt, sizeof gt) == CJ_OK);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++) {
            float want = 1;
            for (int k = j; k < 3; k++) want *= m[i * 3 + k];
            CHECK(gt[i * 3 + j] == want);
        }
    CHECK(cj_error(ctx) == CJ_OK);
    cj_ctx_free(ctx);
}

TEST(bind_no_ops_return_the_operand_and_types_are_exact) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    float m[6] = {1, 2, 3, 4, 5, 6};
    cj_val x = cj_array(ctx, CJ_F32, 2, (int64_t[]){2, 3}, m);
    cj_val same[4] = {bind_reshape(x, 2, (int64_t[]){2, 3}), bind_transpose(x, (int64_t[]){0, 1}),
                      bind_convert(x, CJ_F32), bind_expand(x, 2, (int64_t[]){2, 3})};
    for (int i = 0; i < 4; i++) CHECK(same[i].slot == x.slot && same[i].gen == x.gen);
    /* a weak value converts to the strong type; constants are as asked */
    cj_val w = cj_scalar(ctx, 2.0); /* weak f32 */
    CHECK(aval(w)->weak);
    cj_val s = bind_convert(w, CJ_F32);
    CHECK(s.slot != w.slot && !aval(s)->weak && aval(s)->dtype == CJ_F32);
    CHECK(aval(bind_scalar(ctx, 1, CJ_F64, 1))->weak && aval(bind_scalar(ctx, 1, CJ_F64, 1))->dtype == CJ_F64);
    CHECK(!aval(bind_full(ctx, 1, CJ_I64, 1, (int64_t[]){5}))->weak);
    /* an error value in is an error value out, with no new error */
    cj_val bad = bind_binary(PRIM_ADD, x, cj_array(ctx, CJ_F64, 1, (int64_t[]){1}, (double[]){0}));
    CHECK(bad.slot == 0 && cj_error(ctx) == CJ_ERR_DTYPE);
    char first[256];
    snprintf(first, sizeof first, "%s", cj_error_message(ctx));
    CHECK(bind_reshape(bad, 1, (int64_t[]){6}).slot == 0 && bind_scalar(ctx, 0, CJ_F32, 0).slot == 0);
    CHECK(strcmp(first, cj_error_message(ctx)) == 0);
    cj_ctx_free(ctx);
}

TEST(bind_reduce_matches_plain_loops_and_keeps_the_dtype) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int32_t m[6] = {3, -1, 7, 2, 9, -4};
    cj_val x = cj_array(ctx, CJ_I32, 2, (int64_t[]){2, 3}, m);
    cj_val mx = bind_reduce(PRIM_REDUCE_MAX, x, 1, (int64_t[]){0});
    cj_val sm = bind_reduce(PRIM_REDUCE_SUM, x, 2, (int64_t[]){0, 1});
    CHECK(aval(mx)->dtype == CJ_I32 && aval(mx)->rank == 1 && aval(mx)->dims[0] == 3);
    CHECK(aval(sm)->dtype == CJ_I32 && aval(sm)->rank == 0);
    int32_t got[3], total;
    CHECK(cj_read(mx, got, sizeof got) == CJ_OK && cj_read(sm, &total, sizeof total) == CJ_OK);
    int32_t want_total = 0;
    for (int j = 0; j < 3; j++) {
        int32_t w = m[j] > m[3 + j] ? m[j] : m[3 + j];
        CHECK_EQ_INT(got[j], w);
    }
    for (int i = 0; i < 6; i++) want_total += m[i];
    CHECK_EQ_INT(total, want_total);
    /* an axis out of range is the primitive's own error */
    CHECK(bind_reduce(PRIM_REDUCE_MAX, x, 1, (int64_t[]){2}).slot == 0);
    CHECK_MSG(strstr(cj_error_message(ctx), "reduce_max") != NULL, "%s", cj_error_message(ctx));
    cj_ctx_free(ctx);
}
