/* transpose.c — reverse mode: running a linear program backwards
 * (autodiff layer).
 *
 * The linear program from partial evaluation reads residuals (constants as
 * far as the tangents go) and tangents. Its equations are linear when they
 * depend on a tangent; the others only depend on residuals (recomputation,
 * e.g. under checkpoint) and are evaluated forward, on demand, as the
 * backward walk first needs them. The walk visits the linear equations in
 * reverse order and hands each output's accumulated cotangent to the
 * primitive's transpose rule, which returns the cotangents of its linear
 * operands; cotangents reaching the same value are summed. */
#include <stdio.h>
#include <string.h>

#include "ad.h"

typedef struct tstate {
    cj_ctx *ctx;
    const ir_func *lin;
    const char *what;
    uint8_t *linear;  /* per variable: depends on a tangent input */
    int *def;         /* per variable: defining equation or -1 */
    cj_val *env;      /* values of non-linear variables, as computed */
    cj_val *ct;       /* cotangents of linear variables (slot 0: zero) */
    uint8_t *mark;    /* scratch for on-demand forward evaluation */
    uint8_t *fenced;  /* per variable: its value already passed a barrier */
    uint8_t *is_const; /* per variable: a constant of lin */
    int fence;        /* staging: recomputations get optimization barriers */
    /* per-operand tables of one equation, sized by the program's widest
     * (a construct may have hundreds of operands): its operands and their
     * cotangents, which are linear, their types (transpose_eqn); the
     * operands of a forward recomputation (value_of) */
    int max_in;
    cj_val *args, *cts, *fwd;
    int *lin_flags;
    rt_aval *avals;
} tstate;

/* When the program is being staged for the compiler, a recomputation
 * must neither be merged with the forward pass's identical computation
 * (CSE would keep the forward value alive, undoing checkpoint) nor be
 * scheduled before the backward pass reaches it. An equation that starts
 * a recomputation (reads only residuals and constants) therefore reads its
 * smallest residual through optimization_barrier(residual, cotangent being
 * transposed); everything recomputed from it follows. */
static void fence_root(tstate *s, const ir_eqn *e, const int *ins, cj_val after) {
    int pick = -1;
    size_t best = 0;
    for (int i = 0; i < e->n_in; i++) {
        if (s->def[ins[i]] >= 0) return; /* reads a recomputed value: already behind a barrier */
        if (s->fenced[ins[i]]) return;
        if (s->is_const[ins[i]]) continue;
        size_t bytes = rt_aval_nbytes(&s->lin->vars[ins[i]]);
        if (pick < 0 || bytes < best) pick = ins[i], best = bytes;
    }
    if (pick < 0) return;
    prim_params p = prim_params_zero();
    cj_val fenced = core_bind(s->ctx, PRIM_OPT_BARRIER, &p, 2, (cj_val[]){s->env[pick], after});
    if (!fenced.slot) return;
    s->env[pick] = fenced;
    s->fenced[pick] = 1;
}

/* The value of a non-linear variable, evaluating first the equations it
 * depends on that have not run yet (the program is in order, so one
 * backward marking sweep and one forward evaluation sweep suffice). */
static cj_val value_of(tstate *s, int var, cj_val after) {
    cj_ctx *ctx = s->ctx;
    if (s->env[var].slot) return s->env[var];
    int last = s->def[var];
    if (last < 0) {
        core_error(ctx, CJ_ERR_INTERNAL, "%s: transpose found no value for a residual", s->what);
        return core_err_val(ctx);
    }
    uint8_t *mark = s->mark;
    mark[var] = 1;
    for (int k = last; k >= 0; k--) {
        const ir_eqn *e = &s->lin->eqns[k];
        int marked = 0;
        for (int j = 0; j < e->n_out; j++) marked |= mark[e->out + j];
        if (!marked) continue;
        for (int j = 0; j < e->n_out; j++) mark[e->out + j] = 1; /* evaluated together */
        const int *ins = ir_eqn_inputs(s->lin, e);
        for (int i = 0; i < e->n_in; i++)
            if (!s->env[ins[i]].slot) mark[ins[i]] = 1;
    }
    for (int k = 0; k <= last; k++) {
        const ir_eqn *e = &s->lin->eqns[k];
        if (!mark[e->out]) continue;
        for (int j = 0; j < e->n_out; j++) mark[e->out + j] = 0;
        if (ctx->err) continue;
        const int *ins = ir_eqn_inputs(s->lin, e);
        if (s->fence) fence_root(s, e, ins, after);
        cj_val *args = s->fwd;
        for (int i = 0; i < e->n_in; i++) args[i] = s->env[ins[i]];
        core_bind_multi(ctx, e->prim, &e->params, e->n_in, args, e->n_out, s->env + e->out);
    }
    return ctx->err ? core_err_val(ctx) : s->env[var];
}

static int transpose_eqn(tstate *s, const ir_eqn *e) {
    cj_ctx *ctx = s->ctx;
    cj_val c = s->ct[e->out];
    int multi = prim_rules[e->prim].multiple_results, any = !ad_is_zero(c);
    for (int j = 1; j < e->n_out; j++) any |= !ad_is_zero(s->ct[e->out + j]);
    if (!any) return 0;
    if (multi) { /* the barrier of a recomputation orders it after any result's cotangent */
        for (int j = 0; j < e->n_out && ad_is_zero(c); j++) c = s->ct[e->out + j];
    }
    if (multi ? !prim_rules[e->prim].transpose_multi : !prim_rules[e->prim].transpose)
        return core_error(ctx, CJ_ERR_UNSUPPORTED, "%s: '%s' is not linear in its tangent operands (no transpose rule)",
                          s->what, prim_names[e->prim]);
    const int *ins = ir_eqn_inputs(s->lin, e);
    cj_val *args = s->args, *cts = s->cts;
    int *lin_flags = s->lin_flags;
    rt_aval *avals = s->avals;
    for (int i = 0; i < e->n_in; i++) {
        lin_flags[i] = s->linear[ins[i]];
        avals[i] = s->lin->vars[ins[i]];
        args[i] = lin_flags[i] ? ad_zero(ctx) : value_of(s, ins[i], c);
        cts[i] = ad_zero(ctx);
        if (!lin_flags[i] && !args[i].slot) return -1;
    }
    int st = multi ? prim_rules[e->prim].transpose_multi(ctx, e->prim, &e->params, e->n_in, args, lin_flags, avals,
                                                         e->n_out, s->ct + e->out, cts)
                   : prim_rules[e->prim].transpose(ctx, e->prim, &e->params, e->n_in, args, lin_flags, avals, c, cts);
    if (st != 0 || ctx->err) {
        if (!ctx->err) core_error(ctx, CJ_ERR_INTERNAL, "%s: the transpose rule of '%s' failed", s->what, prim_names[e->prim]);
        return -1;
    }
    for (int i = 0; i < e->n_in; i++) {
        if (!lin_flags[i]) continue;
        char place[32];
        snprintf(place, sizeof place, "operand %d", i);
        if (ad_check_rule_result(ctx, s->what, e->prim, "transpose", place, cts[i], &avals[i]) != 0) return -1;
        s->ct[ins[i]] = ad_add(ctx, s->ct[ins[i]], cts[i]);
        if (!ad_is_zero(cts[i]) && !s->ct[ins[i]].slot) return -1;
    }
    return 0;
}

int ad_transpose_eval(cj_ctx *ctx, const ir_func *lin, int n_res, const cj_val *res, const cj_val *ct,
                      cj_val *ct_in, const char *what) {
    size_t nv = (size_t)lin->n_vars + 1;
    tstate s = {.ctx = ctx, .lin = lin, .what = what, .fence = ctx->dynamic_level > 0};
    s.linear = rt_calloc(ctx->mem, nv * 4);
    s.def = rt_alloc(ctx->mem, sizeof(int) * nv);
    s.env = rt_calloc(ctx->mem, sizeof(cj_val) * nv * 2);
    s.max_in = 1;
    for (int k = 0; k < lin->n_eqns; k++)
        if (lin->eqns[k].n_in > s.max_in) s.max_in = lin->eqns[k].n_in;
    size_t per_in = 3 * sizeof(cj_val) + sizeof(int) + sizeof(rt_aval), tables = per_in * (size_t)s.max_in;
    char *table = rt_alloc(ctx->mem, tables);
    if (table) {
        s.avals = (rt_aval *)table;
        s.args = (cj_val *)(s.avals + s.max_in);
        s.cts = s.args + s.max_in;
        s.fwd = s.cts + s.max_in;
        s.lin_flags = (int *)(s.fwd + s.max_in);
    }
    int status = -1;
    if (!s.linear || !s.def || !s.env || !table) {
        core_oom(ctx, what);
        goto done;
    }
    s.mark = s.linear + nv;
    s.fenced = s.linear + 2 * nv;
    s.is_const = s.linear + 3 * nv;
    s.ct = s.env + nv;
    for (size_t v = 0; v < nv; v++) s.def[v] = -1;
    for (int i = 0; i < n_res; i++) s.env[lin->in[i]] = res[i];
    for (int i = n_res; i < lin->n_in; i++) s.linear[lin->in[i]] = 1;
    for (int c = 0; c < lin->n_consts; c++) {
        s.is_const[lin->consts[c].var] = 1;
        s.env[lin->consts[c].var] = core_wrap_array(ctx, rt_array_ref(lin->consts[c].val));
        if (!s.env[lin->consts[c].var].slot) goto done;
    }
    for (int k = 0; k < lin->n_eqns; k++) {
        const ir_eqn *e = &lin->eqns[k];
        const int *ins = ir_eqn_inputs(lin, e);
        for (int i = 0; i < e->n_in; i++) s.linear[e->out] |= s.linear[ins[i]];
        for (int j = 0; j < e->n_out; j++) {
            s.def[e->out + j] = k;
            s.linear[e->out + j] = s.linear[e->out];
        }
    }
    for (int j = 0; j < lin->n_out; j++) {
        if (!s.linear[lin->out[j]] || ad_is_zero(ct[j])) continue;
        s.ct[lin->out[j]] = ad_add(ctx, s.ct[lin->out[j]], ct[j]);
        if (!s.ct[lin->out[j]].slot) goto done;
    }
    for (int k = lin->n_eqns - 1; k >= 0; k--)
        if (s.linear[lin->eqns[k].out] && transpose_eqn(&s, &lin->eqns[k]) != 0) goto done;
    for (int i = n_res; i < lin->n_in; i++) {
        int v = lin->in[i];
        ct_in[i - n_res] = ad_is_zero(s.ct[v]) ? ad_zeros(ctx, &lin->vars[v]) : s.ct[v];
        if (!ct_in[i - n_res].slot) goto done;
    }
    status = ctx->err ? -1 : 0;
done:
    if (s.linear) rt_free(ctx->mem, s.linear, nv * 4);
    if (s.def) rt_free(ctx->mem, s.def, sizeof(int) * nv);
    if (s.env) rt_free(ctx->mem, s.env, sizeof(cj_val) * nv * 2);
    if (table) rt_free(ctx->mem, table, tables);
    return status;
}
