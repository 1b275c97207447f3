/* rules_markers.c — the public stop_gradient and the autodiff rules of
 * the marker primitives of src/prim/ad_prims.c (prim layer
 * with the other rules; tools/layers.txt). */
#include "ad_rules.h"

cj_val cj_stop_gradient(cj_val x) {
    if (!x.ctx) return x;
    if (x.ctx->err) return core_err_val(x.ctx);
    prim_params p = prim_params_zero();
    return core_bind(x.ctx, PRIM_STOP_GRADIENT, &p, 1, &x);
}

/* The barrier passes x's tangent through its own barrier (ordered after
 * the same operand), so differentiating a recomputation keeps it in
 * place; it is linear in x. */
static int barrier_jvp(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                       const cj_val *tin, cj_val out, cj_val *tout) {
    (void)n_in, (void)out;
    if (ad_is_zero(tin[0])) return *tout = ad_zero(ctx), 0;
    return ad_set(core_bind(ctx, prim, p, 2, (cj_val[]){tin[0], in[1]}), tout);
}

static int barrier_transpose(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                             const int *linear, const rt_aval *in_avals, cj_val ct, cj_val *ct_in) {
    (void)ctx, (void)prim, (void)p, (void)n_in, (void)in, (void)in_avals;
    if (linear[0]) ct_in[0] = ct;
    return 0;
}

/* A name marks the primal value only; the tangent is the operand's. */
static int name_jvp(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in, const cj_val *tin,
                    cj_val out, cj_val *tout) {
    (void)ctx, (void)prim, (void)p, (void)n_in, (void)in, (void)out;
    *tout = tin[0];
    return 0;
}

void ad_register_markers(void) {
    prim_rules[PRIM_NAME].jvp = name_jvp;
    prim_rules[PRIM_STOP_GRADIENT].jvp = ad_jvp_zero;
    prim_rules[PRIM_OPT_BARRIER].jvp = barrier_jvp;
    prim_rules[PRIM_OPT_BARRIER].transpose = barrier_transpose;
}
