/* eval.c — evaluating IR (core layer).
 *
 * ir_eval_arrays runs a function on concrete arrays with the primitives'
 * eager kernels, dropping every intermediate after its last use; it is the
 * plain interpreter the `interp` backend starts from. ir_eval_values
 * re-binds each equation through the current traces instead, so a jitted
 * function called under another transformation needs no re-trace. */
#include <string.h>

#include "func.h"
#include "ir.h"

int ir_eval_arrays(cj_ctx *ctx, const ir_func *f, rt_array *const *in, rt_array **out) {
    size_t nv = (size_t)f->n_vars;
    rt_array **env = rt_calloc(ctx->mem, sizeof(rt_array *) * (nv + 1));
    int *last_use = rt_alloc(ctx->mem, sizeof(int) * (nv + 1));
    if (!env || !last_use) {
        if (env) rt_free(ctx->mem, env, sizeof(rt_array *) * (nv + 1));
        if (last_use) rt_free(ctx->mem, last_use, sizeof(int) * (nv + 1));
        return core_oom(ctx, "jit (interpreter)");
    }
    /* last_use[v]: index of the last equation reading v; outputs live on */
    for (size_t v = 0; v < nv; v++) last_use[v] = -1;
    for (int k = 0; k < f->n_eqns; k++) {
        const int *ins = ir_eqn_inputs(f, &f->eqns[k]);
        for (int i = 0; i < f->eqns[k].n_in; i++) last_use[ins[i]] = k;
    }
    for (int i = 0; i < f->n_out; i++) last_use[f->out[i]] = f->n_eqns;
    /* an equation's results are made together: the first lives as long as
     * the last use of any (a dead result is dropped at once) */

    for (int i = 0; i < f->n_in; i++) env[f->in[i]] = rt_array_ref(in[i]);
    for (int i = 0; i < f->n_consts; i++) env[f->consts[i].var] = rt_array_ref(f->consts[i].val);
    int status = 0;
    for (int k = 0; k < f->n_eqns && status == 0; k++) {
        const ir_eqn *e = &f->eqns[k];
        const int *ins = ir_eqn_inputs(f, e);
        rt_array *args_s[PRIM_SMALL_OPERANDS];
        rt_array **args = core_table(ctx, args_s, PRIM_SMALL_OPERANDS, e->n_in, sizeof *args, prim_names[e->prim]);
        if (!args) {
            status = -1;
            break;
        }
        for (int i = 0; i < e->n_in; i++) args[i] = env[ins[i]];
        status = core_apply_impl_multi(ctx, e->prim, &e->params, e->n_in, args, e->n_out, &f->vars[e->out],
                                       env + e->out);
        core_table_free(ctx, args, args_s, e->n_in, sizeof *args);
        if (status != 0) break;
        for (int i = 0; i < e->n_in; i++) {
            if (last_use[ins[i]] == k && env[ins[i]]) {
                rt_array_unref(env[ins[i]]);
                env[ins[i]] = NULL;
            }
        }
        for (int j = 0; j < e->n_out; j++)
            if (last_use[e->out + j] < 0) { /* dead result */
                rt_array_unref(env[e->out + j]);
                env[e->out + j] = NULL;
            }
    }
    if (status == 0)
        for (int i = 0; i < f->n_out; i++) out[i] = rt_array_ref(env[f->out[i]]);
    for (size_t v = 0; v < nv; v++) rt_array_unref(env[v]);
    rt_free(ctx->mem, env, sizeof(rt_array *) * (nv + 1));
    rt_free(ctx->mem, last_use, sizeof(int) * (nv + 1));
    return status;
}

int ir_eval_values(cj_ctx *ctx, const ir_func *f, const cj_val *in, cj_val *out) {
    size_t nv = (size_t)f->n_vars;
    cj_val *env = rt_calloc(ctx->mem, sizeof(cj_val) * (nv + 1));
    if (!env) return core_oom(ctx, "jit (re-binding)");
    for (int i = 0; i < f->n_in; i++) env[f->in[i]] = in[i];
    int status = 0;
    for (int i = 0; i < f->n_consts && status == 0; i++) {
        env[f->consts[i].var] = core_wrap_array(ctx, rt_array_ref(f->consts[i].val));
        if (!env[f->consts[i].var].slot) status = -1;
    }
    region_rebind rb;
    region_rebind_begin(ctx, &rb, f);
    for (int k = 0; k < f->n_eqns && status == 0; k++) {
        const ir_eqn *e = &f->eqns[k];
        const int *ins = ir_eqn_inputs(f, e);
        cj_val args_s[PRIM_SMALL_OPERANDS];
        cj_val *args = core_table(ctx, args_s, PRIM_SMALL_OPERANDS, e->n_in, sizeof *args, prim_names[e->prim]);
        if (!args) {
            status = -1;
            break;
        }
        for (int i = 0; i < e->n_in; i++) args[i] = env[ins[i]];
        region_rebind_eqn(&rb, e);
        status = core_bind_multi(ctx, e->prim, &e->params, e->n_in, args, e->n_out, env + e->out);
        core_table_free(ctx, args, args_s, e->n_in, sizeof *args);
    }
    region_rebind_end(ctx, &rb);
    if (status == 0)
        for (int i = 0; i < f->n_out; i++) out[i] = env[f->out[i]];
    rt_free(ctx->mem, env, sizeof(cj_val) * (nv + 1));
    return status;
}
