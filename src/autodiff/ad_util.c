/* ad_util.c — helpers shared by the jvp and transpose rules (prim layer,
 * with the rules; tools/layers.txt). */
#include "ad_rules.h"

const rt_aval *ad_aval(cj_val v) {
    core_value *cv = core_peek(v);
    return cv ? &cv->aval : NULL;
}

cj_val ad_add(cj_ctx *ctx, cj_val a, cj_val b) {
    if (ad_is_zero(a)) return b;
    if (ad_is_zero(b)) return a;
    prim_params p = prim_params_zero();
    return core_bind(ctx, PRIM_ADD, &p, 2, (cj_val[]){a, b});
}

cj_val ad_zeros(cj_ctx *ctx, const rt_aval *aval) {
    return bind_full(ctx, 0.0, aval->dtype, aval->rank, aval->dims);
}

cj_val ad_const_like(cj_val x, double c) {
    const rt_aval *a = ad_aval(x);
    if (!a) return core_err_val(x.ctx);
    return bind_scalar(x.ctx, c, a->dtype, 0);
}

int ad_check_rule_result(cj_ctx *ctx, const char *what, prim_id prim, const char *kind, const char *place, cj_val v,
                         const rt_aval *want) {
    if (ad_is_zero(v)) return 0;
    const rt_aval *got = ad_aval(v);
    if (!got) return -1;
    if (rt_aval_same_type(got, want)) return 0;
    char sg[96], sw[96];
    rt_aval_str(got, sg, sizeof sg);
    rt_aval_str(want, sw, sizeof sw);
    return core_error(ctx, CJ_ERR_INTERNAL, "%s: the %s rule of '%s' made a %s of type %s for %s of type %s", what,
                      kind, prim_names[prim], kind[0] == 'j' ? "tangent" : "cotangent", sg, place, sw);
}

int ad_jvp_zero(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in, const cj_val *tin,
                cj_val out, cj_val *tout) {
    (void)prim, (void)p, (void)n_in, (void)in, (void)tin, (void)out;
    *tout = ad_zero(ctx);
    return 0;
}

int ad_jvp_linear(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in, const cj_val *tin,
                  cj_val out, cj_val *tout) {
    (void)out;
    int any = 0;
    for (int i = 0; i < n_in; i++) any |= !ad_is_zero(tin[i]);
    if (!any) {
        *tout = ad_zero(ctx);
        return 0;
    }
    cj_val args[PRIM_MAX_OPERANDS];
    for (int i = 0; i < n_in; i++) {
        args[i] = ad_is_zero(tin[i]) ? ad_zeros(ctx, ad_aval(in[i])) : tin[i];
        if (!args[i].slot) return -1;
    }
    return ad_set(core_bind(ctx, prim, p, n_in, args), tout);
}
