/* test_inplace_update.c — a dynamic_update_slice of a value that dies
 * there writes only the update: in the buffer plan (an arena temporary)
 * and through donation (a donated argument, as a loop carry is donated to
 * its body program), with results equal to the copying path. */
#include "harness.h"
#include "test_util.h"

static void f_scaled_update(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    cj_val start = cj_scalar_int(ctx, 3);
    cj_val updated = cj_dynamic_update_slice(cj_mul(in[0], cj_scalar(ctx, 2.0)), in[1], &start);
    out[0] = cj_add(updated, cj_scalar(ctx, 1.0)); /* so the update is a temporary, not the output */
}
static void f_update(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    cj_val start = cj_scalar_int(ctx, 5);
    out[0] = cj_dynamic_update_slice(in[0], in[1], &start);
}

TEST(inplace_dynamic_update_slice_plan_and_donation) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val x = tu_ramp(ctx, 64, 1, 0), u = tu_ramp(ctx, 4, -1, -1);
    /* the doubled x dies at the update: the update takes its block */
    cj_func *j = cj_jit(cj_func_new(ctx, "scaled", f_scaled_update, 2, 1, NULL), NULL);
    char *plan = cj_jit_dump(j, (cj_val[]){x, u}, "plan");
    CHECK(plan != NULL);
    CHECK_MSG(strstr(plan, "in place of") != NULL, "%s", plan);
    cj_string_free(ctx, plan);
    cj_val y;
    CHECK(cj_call(j, (cj_val[]){x, u}, &y) == CJ_OK);
    float got[64];
    CHECK(cj_read(y, got, sizeof got) == CJ_OK);
    for (int i = 0; i < 64; i++) CHECK_NEAR(got[i], 1.0 + (i >= 3 && i < 7 ? -1.0 - (i - 3) : 2.0 * i), 0, 0);
    /* a donated argument updated in one slice keeps its buffer */
    int donate = 0;
    cj_jit_opts o = {0, NULL, 1, &donate, CJ_BACKEND_INTERP};
    cj_func *jd = cj_jit(cj_func_new(ctx, "update", f_update, 2, 1, NULL), &o);
    cj_val x2 = tu_ramp(ctx, 64, 1, 0), y2;
    CHECK(cj_call(jd, (cj_val[]){x2, u}, &y2) == CJ_OK);
    CHECK_MSG(strstr(cj_jit_last_donation(jd), "holds an output") != NULL, "%s", cj_jit_last_donation(jd));
    CHECK(cj_read(y2, got, sizeof got) == CJ_OK);
    for (int i = 0; i < 64; i++) CHECK_NEAR(got[i], i >= 5 && i < 9 ? -1.0 - (i - 5) : (double)i, 0, 0);
    cj_ctx_free(ctx);
}
