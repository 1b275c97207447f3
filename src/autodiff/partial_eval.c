/* partial_eval.c — linearize: trace the jvp of a program and split it by
 * partial evaluation (autodiff layer).
 *
 * The jvp program's inputs are the primals (known) and the tangents
 * (unknown). An equation is unknown when any operand is. The known
 * equations form the `known` program, which also returns the residuals:
 * the known values that unknown equations read. The unknown equations form
 * the linear program, which reads those residuals as inputs. Because every
 * jvp rule is linear in the tangents, the linear program is too, and it can
 * be transposed.
 *
 * Under checkpoint, a value made inside a region is a residual only when
 * the region's policy saves it; otherwise the equations that make it are
 * copied to the linear side as well (they read residuals only, so they
 * are not linear: the transpose recomputes them forward when it first
 * needs them). */
#include <stdio.h>
#include <string.h>

#include "ad.h"

typedef struct jvp_job {
    const ir_func *ir;
    const uint8_t *diff;
    const char *what;
} jvp_job;

/* The body of the jvp program: inputs are the primals, then one tangent
 * per differentiated input; outputs the primal outputs, then their
 * tangents (zero ones materialised). */
static int jvp_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    jvp_job *job = user;
    const ir_func *ir = job->ir;
    /* the inputs' tangents, then the outputs' (any number of each) */
    cj_val *tin = rt_alloc(ctx->mem, sizeof(cj_val) * (size_t)(ir->n_in + ir->n_out + 1)), *tout = tin + ir->n_in;
    if (!tin) return core_oom(ctx, job->what);
    for (int i = 0, k = ir->n_in; i < ir->n_in; i++) tin[i] = job->diff[i] ? in[k++] : ad_zero(ctx);
    int status = ad_jvp_eval(ctx, ir, in, tin, out, tout, job->what);
    for (int j = 0; j < ir->n_out && status == 0; j++) {
        out[ir->n_out + j] = ad_is_zero(tout[j]) ? ad_zeros(ctx, &ir->vars[ir->out[j]]) : tout[j];
        if (!out[ir->n_out + j].slot) status = -1;
    }
    rt_free(ctx->mem, tin, sizeof(cj_val) * (size_t)(ir->n_in + ir->n_out + 1));
    return status;
}

/* Whether any result of e is flagged. */
static int any_flagged(const uint8_t *flag, const ir_eqn *e) {
    for (int j = 0; j < e->n_out; j++)
        if (flag[e->out + j]) return 1;
    return 0;
}

/* A new program made of some of src's equations: `inputs` become its
 * inputs, the equations flagged in `take` that the outputs need are copied
 * in order, constants are shared. NULL with the error recorded. */
static ir_func *extract(cj_ctx *ctx, const ir_func *src, int n_inputs, const int *inputs, const uint8_t *take,
                        int n_outputs, const int *outputs, const char *what) {
    size_t nv = (size_t)src->n_vars + 1;
    int *map = rt_alloc(ctx->mem, sizeof(int) * nv * 2);
    uint8_t *need = rt_calloc(ctx->mem, nv);
    ir_func *dst = ir_new(ctx->mem);
    if (!map || !need || !dst) goto oom;
    int *def = map + nv; /* def[v]: the equation defining v, -1 for none */
    for (size_t v = 0; v < nv; v++) map[v] = def[v] = -1;
    for (int k = 0; k < src->n_eqns; k++)
        for (int j = 0; j < src->eqns[k].n_out; j++) def[src->eqns[k].out + j] = k;
    for (int r = 1; r <= src->n_regions; r++)
        if (ir_add_region(dst, src->regions[r].parent, src->regions[r].policy) != r) goto oom;
    for (int i = 0; i < n_inputs; i++) {
        map[inputs[i]] = ir_add_input(dst, &src->vars[inputs[i]]);
        if (map[inputs[i]] < 0) goto oom;
    }
    /* what the outputs need, walking back over the taken equations */
    for (int j = 0; j < n_outputs; j++) need[outputs[j]] = 1;
    for (int k = src->n_eqns - 1; k >= 0; k--) {
        const ir_eqn *e = &src->eqns[k];
        if (!any_flagged(need, e) || !take[k] || map[e->out] >= 0) continue;
        const int *ins = ir_eqn_inputs(src, e);
        for (int i = 0; i < e->n_in; i++) need[ins[i]] = 1;
    }
    for (int c = 0; c < src->n_consts; c++) {
        int v = src->consts[c].var;
        if (!need[v] || map[v] >= 0) continue;
        map[v] = ir_add_const(dst, src->consts[c].val);
        if (map[v] < 0) goto oom;
    }
    for (int k = 0; k < src->n_eqns; k++) {
        const ir_eqn *e = &src->eqns[k];
        if (!any_flagged(need, e) || !take[k] || map[e->out] >= 0) continue;
        const int *ins = ir_eqn_inputs(src, e);
        int args_s[PRIM_SMALL_OPERANDS];
        int *args = core_table(ctx, args_s, PRIM_SMALL_OPERANDS, e->n_in, sizeof *args, what);
        if (!args) goto fail;
        for (int i = 0; i < e->n_in; i++) {
            args[i] = map[ins[i]];
            if (args[i] < 0) {
                core_table_free(ctx, args, args_s, e->n_in, sizeof *args);
                core_error(ctx, CJ_ERR_INTERNAL, "%s: partial evaluation lost operand %d of '%s'", what, i,
                           prim_names[e->prim]);
                goto fail;
            }
        }
        dst->cur_region = e->region;
        int v = ir_add_eqn_multi(dst, e->prim, &e->params, e->n_in, args, e->n_out, &src->vars[e->out]);
        core_table_free(ctx, args, args_s, e->n_in, sizeof *args);
        if (v < 0) goto oom;
        for (int j = 0; j < e->n_out; j++) map[e->out + j] = v + j;
    }
    dst->cur_region = 0;
    for (int j = 0; j < n_outputs; j++) {
        if (map[outputs[j]] < 0) {
            core_error(ctx, CJ_ERR_INTERNAL, "%s: partial evaluation lost output %d", what, j);
            goto fail;
        }
        if (ir_add_output(dst, map[outputs[j]]) != 0) goto oom;
    }
    rt_free(ctx->mem, map, sizeof(int) * nv * 2);
    rt_free(ctx->mem, need, nv);
    return dst;
oom:
    core_oom(ctx, what);
fail:
    if (map) rt_free(ctx->mem, map, sizeof(int) * nv * 2);
    if (need) rt_free(ctx->mem, need, nv);
    if (dst) ir_free(dst);
    return NULL;
}

/* Whether value v, read by an equation of region `reader`, is recomputed
 * rather than saved. As with JAX's checkpoint, only values internal to a
 * region are: v must be made inside a region that encloses the reader
 * (values crossing into or out of a region — its inputs and outputs —
 * are saved), and that region's policy must not save it. */
static int recomputable(const ir_func *J, const int *def, int v, int reader) {
    if (def[v] < 0) return 0;
    const ir_eqn *d = &J->eqns[def[v]];
    if (!d->region || ad_policy_saves(J->regions[d->region].policy, d)) return 0;
    for (int r = reader; r; r = J->regions[r].parent)
        if (r == d->region) return 1;
    return 0;
}

/* Splits the jvp program J (n_in primal inputs then tangents; n_out primal
 * outputs then n_out tangent outputs) into out->known and out->lin. */
static int split(cj_ctx *ctx, const ir_func *J, int n_in, int n_out, ad_linear *out, const char *what) {
    size_t nv = (size_t)J->n_vars + 1;
    uint8_t *unknown = rt_calloc(ctx->mem, nv * 3);
    int *list = rt_alloc(ctx->mem, sizeof(int) * (2 * nv + (size_t)J->n_in + (size_t)J->n_out));
    if (!unknown || !list) {
        if (unknown) rt_free(ctx->mem, unknown, nv * 3);
        if (list) rt_free(ctx->mem, list, sizeof(int) * (2 * nv + (size_t)J->n_in + (size_t)J->n_out));
        return core_oom(ctx, what);
    }
    uint8_t *is_const = unknown + nv, *take = unknown + 2 * nv; /* take: per equation (n_eqns <= n_vars) */
    for (int c = 0; c < J->n_consts; c++) is_const[J->consts[c].var] = 1;
    for (int i = n_in; i < J->n_in; i++) unknown[J->in[i]] = 1;
    for (int k = 0; k < J->n_eqns; k++) {
        const ir_eqn *e = &J->eqns[k];
        const int *ins = ir_eqn_inputs(J, e);
        for (int i = 0; i < e->n_in; i++) unknown[e->out] |= unknown[ins[i]];
        for (int j = 1; j < e->n_out; j++) unknown[e->out + j] = unknown[e->out]; /* results are known together */
    }
    /* residuals: known, non-constant values the unknown side reads, in
     * variable order (deterministic) — except values made inside a
     * checkpoint region whose policy does not save them: their equations
     * are recomputed on the linear side instead, and what they read is
     * considered in turn */
    uint8_t *is_res = rt_calloc(ctx->mem, nv * 2);
    size_t n_def = nv + nv + (size_t)J->n_operands; /* def, then the work stack */
    int *def = rt_alloc(ctx->mem, sizeof(int) * n_def);
    if (!is_res || !def) {
        if (is_res) rt_free(ctx->mem, is_res, nv * 2);
        if (def) rt_free(ctx->mem, def, sizeof(int) * n_def);
        rt_free(ctx->mem, unknown, nv * 3);
        rt_free(ctx->mem, list, sizeof(int) * (2 * nv + (size_t)J->n_in + (size_t)J->n_out));
        return core_oom(ctx, what);
    }
    int *stack = def + nv, top = 0;
    for (size_t v = 0; v < nv; v++) def[v] = -1;
    for (int k = 0; k < J->n_eqns; k++)
        for (int j = 0; j < J->eqns[k].n_out; j++) def[J->eqns[k].out + j] = k;
    memset(take, 0, nv);
    /* Which known equations are recomputed (take) and which values are
     * saved (is_res): start from what the unknown equations read, follow
     * recomputable values back. A value some reader must have saved (it
     * crosses a region boundary) is saved for every reader; when that
     * turns out for a value already chosen for recomputation, start over
     * with it saved (is_res only grows, so this ends). */
    for (int round = 0;; round++) {
        memset(take, 0, nv);
        for (int k = 0; k < J->n_eqns; k++) {
            const ir_eqn *e = &J->eqns[k];
            if (!unknown[e->out]) continue;
            const int *ins = ir_eqn_inputs(J, e);
            for (int i = 0; i < e->n_in; i++) {
                int v = ins[i];
                if (unknown[v] || is_const[v] || is_res[v]) continue;
                if (recomputable(J, def, v, e->region))
                    stack[top++] = v;
                else
                    is_res[v] = 1;
            }
            while (top > 0) {
                int d = def[stack[--top]];
                if (take[d]) continue;
                take[d] = 1;
                const ir_eqn *de = &J->eqns[d];
                const int *dins = ir_eqn_inputs(J, de);
                for (int q = 0; q < de->n_in; q++) {
                    int u = dins[q];
                    if (is_const[u] || is_res[u]) continue;
                    if (recomputable(J, def, u, de->region))
                        stack[top++] = u;
                    else
                        is_res[u] = 1;
                }
            }
        }
        int conflict = 0;
        for (size_t v = 0; v < nv && !conflict; v++) conflict = is_res[v] && def[v] >= 0 && take[def[v]];
        if (!conflict || round > J->n_eqns) break;
    }
    /* the residuals: what the linear side reads and does not recompute */
    memset(is_res, 0, nv);
    for (int k = 0; k < J->n_eqns; k++) {
        const ir_eqn *e = &J->eqns[k];
        if (!unknown[e->out] && !take[k]) continue;
        const int *ins = ir_eqn_inputs(J, e);
        for (int i = 0; i < e->n_in; i++) {
            int v = ins[i];
            if (!unknown[v] && !is_const[v] && !(def[v] >= 0 && take[def[v]])) is_res[v] = 1;
        }
    }
    for (int j = n_out; j < 2 * n_out; j++)
        if (!unknown[J->out[j]] && !is_const[J->out[j]]) is_res[J->out[j]] = 1;
    uint8_t *recompute = is_res + nv; /* per equation */
    memcpy(recompute, take, nv);
    rt_free(ctx->mem, def, sizeof(int) * n_def);
    int n_res = 0;
    for (size_t v = 0; v < nv; v++)
        if (is_res[v]) list[n_res++] = (int)v;

    /* known: primal inputs → primal outputs, residuals */
    int *kout = list + n_res; /* room for n_out + n_res more */
    for (int j = 0; j < n_out; j++) kout[j] = J->out[j];
    memcpy(kout + n_out, list, sizeof(int) * (size_t)n_res);
    for (int k = 0; k < J->n_eqns; k++) take[k] = !unknown[J->eqns[k].out];
    out->known = extract(ctx, J, n_in, J->in, take, n_out + n_res, kout, what);
    /* linear: residuals, tangents → tangent outputs */
    int *lin_in = kout; /* reuse: residuals then tangent inputs */
    memcpy(lin_in, list, sizeof(int) * (size_t)n_res);
    for (int i = n_in; i < J->n_in; i++) lin_in[n_res + i - n_in] = J->in[i];
    for (int k = 0; k < J->n_eqns; k++) take[k] = unknown[J->eqns[k].out] || recompute[k];
    if (out->known)
        out->lin = extract(ctx, J, n_res + J->n_in - n_in, lin_in, take, n_out, J->out + n_out, what);
    out->n_res = n_res;
    rt_free(ctx->mem, is_res, nv * 2);
    rt_free(ctx->mem, unknown, nv * 3);
    rt_free(ctx->mem, list, sizeof(int) * (2 * nv + (size_t)J->n_in + (size_t)J->n_out));
    return out->known && out->lin ? 0 : -1;
}

int ad_linearize(cj_ctx *ctx, const ir_func *ir, const uint8_t *diff, ad_linear *out, const char *what) {
    memset(out, 0, sizeof *out);
    out->n_in = ir->n_in;
    out->n_out = ir->n_out;
    out->mem = ctx->mem;
    /* any number of inputs and outputs (a construct's body reads its
     * carries, xs and closure values): the tables are the program's size */
    out->diff = rt_calloc(ctx->mem, (size_t)ir->n_in + 1);
    size_t avals_bytes = sizeof(rt_aval) * (size_t)(2 * ir->n_in + 1);
    rt_aval *avals = out->diff ? rt_alloc(ctx->mem, avals_bytes) : NULL;
    if (!avals) {
        ad_linear_free(out);
        return core_oom(ctx, what);
    }
    int n = 0;
    for (int i = 0; i < ir->n_in; i++) avals[n++] = ir->vars[ir->in[i]];
    for (int i = 0; i < ir->n_in; i++) {
        out->diff[i] = diff[i] && rt_is_float(ir->vars[ir->in[i]].dtype);
        if (out->diff[i]) avals[n++] = ir->vars[ir->in[i]];
    }
    jvp_job job = {ir, out->diff, what};
    /* the jvp program's trace will be the next one pushed */
    int saved_level = ctx->linearize_level;
    ctx->linearize_level = ctx->n_traces;
    ir_func *J = func_trace_body(ctx, n, avals, NULL, 2 * ir->n_out, jvp_body, &job, what, what, NULL);
    ctx->linearize_level = saved_level;
    rt_free(ctx->mem, avals, avals_bytes);
    if (!J) {
        ad_linear_free(out);
        return -1;
    }
    int status = split(ctx, J, ir->n_in, ir->n_out, out, what);
    ir_free(J);
    if (status != 0) ad_linear_free(out);
    return status;
}

void ad_linear_free(ad_linear *l) {
    if (l->known) ir_free(l->known);
    if (l->lin) ir_free(l->lin);
    l->known = l->lin = NULL;
    if (l->diff) rt_free(l->mem, l->diff, (size_t)l->n_in + 1);
    l->diff = NULL;
}
