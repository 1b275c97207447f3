/* inline.c — the first compiler pass: custom-derivative calls replaced by
 * the functions they call (compiler layer).
 *
 * A custom_jvp_call / custom_vjp_call equation only matters to autodiff,
 * which has run by the time a program is compiled; what the program
 * computes is the recorded function (core_custom.primal). Splicing its
 * equations in lets fusion and the buffer plan see through the call.
 * Nested calls are spliced as they are met (the spliced equations are
 * scanned again). */
#include "passes.h"

static int is_custom_call(prim_id p) { return prim_lower(p)->kind == LOWER_CALL; }

/* Appends g's equations to dst with g's inputs bound to `args`; its output
 * variable in dst is returned (-1 on failure). */
static int splice(cj_ctx *ctx, ir_func *dst, const ir_func *g, const int *args, int depth);

/* Copies one equation of src (whose operands are already mapped), splicing
 * custom calls. */
static int copy_eqn(cj_ctx *ctx, ir_func *dst, const ir_func *src, const ir_eqn *e, const int *map, int depth) {
    const int *ins = ir_eqn_inputs(src, e);
    /* a construct may have hundreds of operands: a table of its size */
    int args_s[PRIM_SMALL_OPERANDS];
    int *args = core_table(ctx, args_s, PRIM_SMALL_OPERANDS, e->n_in, sizeof *args, "jit: inline");
    if (!args) return -1;
    for (int i = 0; i < e->n_in; i++) args[i] = map[ins[i]];
    int v;
    if (is_custom_call(e->prim)) {
        const core_custom *rec = core_custom_of(&e->params);
        v = depth > 64 ? core_error(ctx, CJ_ERR_UNSUPPORTED, "jit: custom calls nested more than 64 deep")
                       : splice(ctx, dst, rec->primal, args, depth + 1);
    } else {
        v = ir_add_eqn_multi(dst, e->prim, &e->params, e->n_in, args, e->n_out, &src->vars[e->out]);
        if (v < 0) v = core_oom(ctx, "jit: inline");
    }
    core_table_free(ctx, args, args_s, e->n_in, sizeof *args);
    return v;
}

/* copy_eqn, mapping every result of e (consecutive in dst as in src). */
static int copy_mapped(cj_ctx *ctx, ir_func *dst, const ir_func *src, const ir_eqn *e, int *map, int depth) {
    int v = copy_eqn(ctx, dst, src, e, map, depth);
    if (v < 0) return -1;
    for (int j = 0; j < e->n_out; j++) map[e->out + j] = v + j;
    return 0;
}

static int splice(cj_ctx *ctx, ir_func *dst, const ir_func *g, const int *args, int depth) {
    int *map = rt_alloc(ctx->mem, sizeof(int) * (size_t)(g->n_vars + 1));
    if (!map) return core_oom(ctx, "jit: inline");
    int result = -1;
    for (int i = 0; i < g->n_in; i++) map[g->in[i]] = args[i];
    for (int c = 0; c < g->n_consts; c++) {
        map[g->consts[c].var] = ir_add_const(dst, g->consts[c].val);
        if (map[g->consts[c].var] < 0) {
            core_oom(ctx, "jit: inline");
            goto done;
        }
    }
    for (int k = 0; k < g->n_eqns; k++) {
        if (copy_mapped(ctx, dst, g, &g->eqns[k], map, depth) != 0) goto done;
    }
    result = map[g->out[0]];
done:
    rt_free(ctx->mem, map, sizeof(int) * (size_t)(g->n_vars + 1));
    return result;
}

int pass_inline_custom(cj_ctx *ctx, ir_func **ir) {
    const ir_func *src = *ir;
    int any = 0;
    for (int k = 0; k < src->n_eqns && !any; k++) any = is_custom_call(src->eqns[k].prim);
    if (!any) return 0;
    ir_func *dst = ir_new(src->mem);
    int *map = rt_alloc(ctx->mem, sizeof(int) * (size_t)(src->n_vars + 1));
    int ok = dst && map;
    /* inputs first, in order: the calling convention */
    for (int i = 0; ok && i < src->n_in; i++) ok = (map[src->in[i]] = ir_add_input(dst, &src->vars[src->in[i]])) >= 0;
    for (int c = 0; ok && c < src->n_consts; c++)
        ok = (map[src->consts[c].var] = ir_add_const(dst, src->consts[c].val)) >= 0;
    if (!ok) core_oom(ctx, "jit: inline");
    for (int k = 0; ok && k < src->n_eqns; k++)
        ok = copy_mapped(ctx, dst, src, &src->eqns[k], map, 0) == 0;
    for (int j = 0; ok && j < src->n_out; j++)
        if (ir_add_output(dst, map[src->out[j]]) != 0) ok = 0, core_oom(ctx, "jit: inline");
    if (map) rt_free(ctx->mem, map, sizeof(int) * (size_t)(src->n_vars + 1));
    if (!ok) {
        if (dst) ir_free(dst);
        return -1;
    }
    ir_free(*ir);
    *ir = dst;
    return 0;
}
