/* jvp.c — forward mode over a program (autodiff layer).
 *
 * ad_jvp_eval walks an IR once: each equation's primal is re-bound as it
 * is, and when any operand carries a tangent the primitive's jvp rule binds
 * the tangent of its result next to it. Zero tangents stay symbolic (slot-0
 * handles), so paths that do not depend on the differentiated inputs cost
 * nothing; integer and boolean values never carry tangents. */
#include <stdio.h>
#include <string.h>

#include "ad.h"

int ad_jvp_eval(cj_ctx *ctx, const ir_func *ir, const cj_val *in, const cj_val *tin, cj_val *out, cj_val *tout,
                const char *what) {
    size_t nv = (size_t)ir->n_vars + 1;
    /* the operands of one equation and their tangents, sized by the widest
     * (a construct may have hundreds of operands), after the environments */
    int max_in = 1;
    for (int k = 0; k < ir->n_eqns; k++)
        if (ir->eqns[k].n_in > max_in) max_in = ir->eqns[k].n_in;
    size_t n_vals = nv * 2 + 2 * (size_t)max_in;
    cj_val *env = rt_calloc(ctx->mem, sizeof(cj_val) * n_vals);
    if (!env) return core_oom(ctx, what);
    cj_val *tenv = env + nv; /* zero-filled: every tangent starts as a symbolic zero */
    cj_val *args = env + 2 * nv, *targs = args + max_in;
    int status = 0;
    for (int i = 0; i < ir->n_in; i++) {
        env[ir->in[i]] = in[i];
        if (rt_is_float(ir->vars[ir->in[i]].dtype)) tenv[ir->in[i]] = tin[i];
    }
    for (int i = 0; i < ir->n_consts && status == 0; i++) {
        env[ir->consts[i].var] = core_wrap_array(ctx, rt_array_ref(ir->consts[i].val));
        if (!env[ir->consts[i].var].slot) status = -1;
    }
    region_rebind rb; /* the jvp of a region's equations stays in the region */
    region_rebind_begin(ctx, &rb, ir);
    for (int k = 0; k < ir->n_eqns && status == 0; k++) {
        const ir_eqn *e = &ir->eqns[k];
        region_rebind_eqn(&rb, e);
        const int *ins = ir_eqn_inputs(ir, e);
        int any = 0;
        for (int i = 0; i < e->n_in; i++) {
            args[i] = env[ins[i]];
            targs[i] = tenv[ins[i]];
            any |= !ad_is_zero(targs[i]);
        }
        if (prim_rules[e->prim].multiple_results) { /* every result at once */
            int nr = e->n_out;
            if (!any) {
                status = core_bind_multi(ctx, e->prim, &e->params, e->n_in, args, nr, env + e->out);
                continue;
            }
            if (!prim_rules[e->prim].jvp_multi) {
                status = core_error(ctx, CJ_ERR_UNSUPPORTED, "%s: '%s' has no differentiation rule", what,
                                    prim_names[e->prim]);
                break;
            }
            for (int j = 0; j < nr; j++) env[e->out + j] = tenv[e->out + j] = ad_zero(ctx);
            status = prim_rules[e->prim].jvp_multi(ctx, e->prim, &e->params, e->n_in, args, targs, nr, env + e->out,
                                                   tenv + e->out);
            for (int j = 0; j < nr && status == 0; j++) {
                if (!env[e->out + j].slot) status = -1;
                else if (!rt_is_float(ir->vars[e->out + j].dtype)) tenv[e->out + j] = ad_zero(ctx);
                else
                    status = ad_check_rule_result(ctx, what, e->prim, "jvp", "a result", tenv[e->out + j],
                                                  ad_aval(env[e->out + j]));
            }
            if (status != 0 && !ctx->err)
                core_error(ctx, CJ_ERR_INTERNAL, "%s: the jvp rule of '%s' failed", what, prim_names[e->prim]);
            continue;
        }
        cj_val r = core_bind(ctx, e->prim, &e->params, e->n_in, args);
        if (!r.slot) {
            status = -1;
            break;
        }
        env[e->out] = r;
        if (!any || !rt_is_float(ir->vars[e->out].dtype)) continue;
        if (!prim_rules[e->prim].jvp) {
            status = core_error(ctx, CJ_ERR_UNSUPPORTED, "%s: '%s' has no differentiation rule", what,
                                prim_names[e->prim]);
            break;
        }
        cj_val t = ad_zero(ctx);
        if (prim_rules[e->prim].jvp(ctx, e->prim, &e->params, e->n_in, args, targs, r, &t) != 0 || ctx->err) {
            if (!ctx->err) core_error(ctx, CJ_ERR_INTERNAL, "%s: the jvp rule of '%s' failed", what, prim_names[e->prim]);
            status = -1;
            break;
        }
        status = ad_check_rule_result(ctx, what, e->prim, "jvp", "the result", t, ad_aval(r));
        tenv[e->out] = t;
    }
    region_rebind_end(ctx, &rb);
    if (status == 0)
        for (int i = 0; i < ir->n_out; i++) {
            out[i] = env[ir->out[i]];
            tout[i] = tenv[ir->out[i]];
        }
    rt_free(ctx->mem, env, sizeof(cj_val) * n_vals);
    return status;
}
