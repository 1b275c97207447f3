/* hoist.c — the hoist pass: work a loop need not repeat per step, moved
 * before it (compiler layer; after inline, before simplify).
 *
 * A construct whose primitive has a hoist rule (prim_rule.hoist; the
 * scan's is src/control/scan_hoist.c) may offer a program to run in its
 * equation's place: for a scan, the carry-independent part of every step
 * computed at once over the stacked xs (one matrix product instead of one
 * matrix-vector product per step), then a scan over a smaller body that
 * reads those results as extra x slices. This pass splices each offered
 * program in, mapping its inputs to the equation's operands and its
 * outputs to the equation's results; simplify then cleans what it brought
 * (the moves of batch axes vmap leaves). The rules keep what they offer,
 * so a construct compiled again is rewritten the same way. A construct's
 * body is a program of its own, compiled by this pipeline when the
 * construct is prepared, so nested loops are hoisted there, innermost
 * last. CJAX_SCAN_HOIST_MAX_MB (0) switches the scan's rule off. */
#include "passes.h"

/* Appends the replacement r with its inputs bound to `args`, writing the
 * variables in dst of its outputs to `res`. 0 or -1 (recorded). */
static int splice(cj_ctx *ctx, ir_func *dst, const ir_func *r, const int *args, int *res) {
    int *map = rt_alloc(ctx->mem, sizeof(int) * ((size_t)r->n_vars + 1));
    if (!map) return core_oom(ctx, "jit: hoist");
    int ok = 1;
    for (int i = 0; i < r->n_in; i++) map[r->in[i]] = args[i];
    for (int c = 0; ok && c < r->n_consts; c++) ok = (map[r->consts[c].var] = ir_add_const(dst, r->consts[c].val)) >= 0;
    if (!ok) core_oom(ctx, "jit: hoist");
    for (int k = 0; ok && k < r->n_eqns; k++) {
        const ir_eqn *e = &r->eqns[k];
        const int *ins = ir_eqn_inputs(r, e);
        int a_s[PRIM_SMALL_OPERANDS];
        int *a = core_table(ctx, a_s, PRIM_SMALL_OPERANDS, e->n_in, sizeof *a, "jit: hoist");
        if (!a) {
            ok = 0;
            break;
        }
        for (int i = 0; i < e->n_in; i++) a[i] = map[ins[i]];
        int v = ir_add_eqn_multi(dst, e->prim, &e->params, e->n_in, a, e->n_out, &r->vars[e->out]);
        core_table_free(ctx, a, a_s, e->n_in, sizeof *a);
        if (v < 0) ok = 0, core_oom(ctx, "jit: hoist");
        for (int j = 0; ok && j < e->n_out; j++) map[e->out + j] = v + j;
    }
    for (int j = 0; ok && j < r->n_out; j++) res[j] = map[r->out[j]];
    rt_free(ctx->mem, map, sizeof(int) * ((size_t)r->n_vars + 1));
    return ok ? 0 : -1;
}

int pass_hoist(cj_ctx *ctx, ir_func **ir) {
    const ir_func *src = *ir;
    /* what each equation's rule offers (borrowed: the records keep it) */
    const ir_func **repl = rt_calloc(ctx->mem, sizeof *repl * (size_t)(src->n_eqns + 1));
    if (!repl) return core_oom(ctx, "jit: hoist");
    int any = 0, status = 0;
    for (int k = 0; k < src->n_eqns && status == 0; k++) {
        const ir_eqn *e = &src->eqns[k];
        if (!prim_rules[e->prim].hoist) continue;
        const int *ins = ir_eqn_inputs(src, e);
        rt_aval in_s[PRIM_SMALL_OPERANDS];
        rt_aval *in = core_table(ctx, in_s, PRIM_SMALL_OPERANDS, e->n_in, sizeof *in, "jit: hoist");
        if (!in) {
            status = -1;
            break;
        }
        for (int i = 0; i < e->n_in; i++) in[i] = src->vars[ins[i]];
        status = prim_rules[e->prim].hoist(ctx, e->prim, &e->params, e->n_in, in, &repl[k]);
        core_table_free(ctx, in, in_s, e->n_in, sizeof *in);
        if (repl[k] && (repl[k]->n_in != e->n_in || repl[k]->n_out != e->n_out)) repl[k] = NULL; /* never offered */
        any |= repl[k] != NULL;
    }
    if (status != 0 || !any) {
        rt_free(ctx->mem, repl, sizeof *repl * (size_t)(src->n_eqns + 1));
        return status;
    }
    ir_func *dst = ir_new(src->mem);
    int *map = rt_alloc(ctx->mem, sizeof(int) * ((size_t)src->n_vars + 1));
    int ok = dst && map;
    /* inputs first, in order: the calling convention */
    for (int i = 0; ok && i < src->n_in; i++) ok = (map[src->in[i]] = ir_add_input(dst, &src->vars[src->in[i]])) >= 0;
    for (int c = 0; ok && c < src->n_consts; c++)
        ok = (map[src->consts[c].var] = ir_add_const(dst, src->consts[c].val)) >= 0;
    if (!ok) core_oom(ctx, "jit: hoist");
    for (int k = 0; ok && k < src->n_eqns; k++) {
        const ir_eqn *e = &src->eqns[k];
        const int *ins = ir_eqn_inputs(src, e);
        int a_s[PRIM_SMALL_OPERANDS];
        int *a = core_table(ctx, a_s, PRIM_SMALL_OPERANDS, e->n_in, sizeof *a, "jit: hoist");
        if (!a) {
            ok = 0;
            break;
        }
        for (int i = 0; i < e->n_in; i++) a[i] = map[ins[i]];
        if (repl[k]) {
            ok = splice(ctx, dst, repl[k], a, map + e->out) == 0;
        } else {
            int v = ir_add_eqn_multi(dst, e->prim, &e->params, e->n_in, a, e->n_out, &src->vars[e->out]);
            if (v < 0) ok = 0, core_oom(ctx, "jit: hoist");
            for (int j = 0; ok && j < e->n_out; j++) map[e->out + j] = v + j;
        }
        core_table_free(ctx, a, a_s, e->n_in, sizeof *a);
    }
    for (int j = 0; ok && j < src->n_out; j++)
        if (ir_add_output(dst, map[src->out[j]]) != 0) ok = 0, core_oom(ctx, "jit: hoist");
    if (map) rt_free(ctx->mem, map, sizeof(int) * ((size_t)src->n_vars + 1));
    rt_free(ctx->mem, repl, sizeof *repl * (size_t)(src->n_eqns + 1));
    if (!ok) {
        if (dst) ir_free(dst);
        return -1;
    }
    ir_free(*ir);
    *ir = dst;
    return 0;
}
