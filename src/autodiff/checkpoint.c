/* checkpoint.c — jax.checkpoint with policies, checkpoint_name, and the
 * saved-residuals report (autodiff layer).
 *
 * Calling a checkpointed function while a program is being staged opens a
 * region in it (ir.h): every equation traced during the call is tagged
 * with it. Nothing else changes until the program is differentiated:
 * partial evaluation then asks ad_policy_saves whether each value a
 * region makes may be kept as a residual, and recomputes the others in the
 * backward pass (partial_eval.c, transpose.c). */
#include <stdio.h>
#include <string.h>

#include "ad.h"

int ad_policy_saves(const void *policy, const ir_eqn *e) {
    const ad_policy *p = policy;
    if (!p) return 1;
    switch ((cj_remat_policy)p->kind) {
    case CJ_SAVE_NOTHING:
        return 0;
    case CJ_SAVE_EVERYTHING:
        return 1;
    case CJ_SAVE_DOTS:
        return e->prim == PRIM_DOT_GENERAL;
    case CJ_SAVE_DOTS_NO_BATCH:
        return e->prim == PRIM_DOT_GENERAL && e->params.lhs_batch.n == 0;
    case CJ_SAVE_NAMED:
    case CJ_SAVE_ALL_BUT_NAMED: {
        if (e->prim != PRIM_NAME) return 0;
        int listed = 0;
        for (int i = 0; i < p->n_names; i++) listed |= p->names[i] == e->params.flag;
        return p->kind == CJ_SAVE_NAMED ? listed : !listed;
    }
    }
    return 0;
}

/* ---- the checkpoint function object ---- */
static int checkpoint_call(cj_func *c, const cj_val *in, cj_val *out) {
    ir_func *ir = func_staging_ir(c->ctx);
    if (!ir) return cj_call(c->inner, in, out) == CJ_OK ? 0 : -1; /* nothing to mark: plain f */
    int saved = ir->cur_region;
    int region = ir_add_region(ir, saved, c->state);
    if (region < 0) return core_oom(c->ctx, c->name);
    ir->cur_region = region;
    int status = cj_call(c->inner, in, out) == CJ_OK ? 0 : -1;
    ir->cur_region = saved;
    return status;
}

static void checkpoint_free_state(cj_func *c) {
    if (c->state) rt_free(c->ctx->mem, c->state, sizeof(ad_policy));
    c->state = NULL;
}

static const func_ops checkpoint_ops = {"checkpoint", checkpoint_call, checkpoint_free_state};

cj_func *cj_checkpoint(cj_func *f, const cj_checkpoint_opts *opts) {
    if (!func_check(NULL, f, "cj_checkpoint", "f")) return NULL; /* NULL, freed, or of a freed context */
    cj_ctx *ctx = f->ctx;
    if (opts && opts->n_names > 0 && !opts->names)
        return core_error(ctx, CJ_ERR_ARG, "cj_checkpoint(%s): names is NULL for %d names", f->name, opts->n_names), NULL;
    ad_policy *p = rt_calloc(ctx->mem, sizeof *p);
    if (!p) {
        core_oom(ctx, "cj_checkpoint");
        return NULL;
    }
    if (opts) {
        int bad = opts->policy < CJ_SAVE_NOTHING || opts->policy > CJ_SAVE_ALL_BUT_NAMED || opts->n_names < 0 ||
                  opts->n_names > 32 || (opts->n_names && !opts->names);
        for (int i = 0; !bad && i < opts->n_names; i++) {
            p->names[i] = prim_name_id(opts->names[i]);
            bad = p->names[i] < 0;
        }
        if (bad) {
            core_error(ctx, CJ_ERR_ARG, "cj_checkpoint(%s): a policy of 0..%d and at most 32 names of 1..63 characters",
                       f->name, (int)CJ_SAVE_ALL_BUT_NAMED);
            rt_free(ctx->mem, p, sizeof *p);
            return NULL;
        }
        p->kind = (int)opts->policy;
        p->n_names = opts->n_names;
    }
    char name[256];
    snprintf(name, sizeof name, "checkpoint(%s)", f->name);
    cj_func *c = func_new(ctx, name, &checkpoint_ops, f->n_in, f->n_out);
    if (!c) {
        rt_free(ctx->mem, p, sizeof *p);
        return NULL;
    }
    c->inner = func_retain(f);
    c->state = p;
    return c;
}

cj_val cj_checkpoint_name(cj_val x, const char *name) {
    if (!x.ctx) return x;
    cj_ctx *ctx = x.ctx;
    if (ctx->err) return core_err_val(ctx);
    int id = prim_name_id(name);
    if (id < 0) {
        core_error(ctx, CJ_ERR_ARG, "checkpoint_name: a name of 1..63 characters is needed (got %s)",
                   name ? "a longer or empty one" : "NULL");
        return core_err_val(ctx);
    }
    const core_value *v = core_get(x, "checkpoint_name");
    if (!v) return core_err_val(ctx);
    if (v->kind == VALUE_ARRAY) return x; /* nothing is traced: the name has no effect */
    prim_params p = prim_params_zero();
    p.flag = id;
    return core_bind(ctx, PRIM_NAME, &p, 1, &x);
}

/* ---- the report ---- */
static void describe(const ir_func *K, int var, strbuf *sb) {
    for (int i = 0; i < K->n_in; i++)
        if (K->in[i] == var) {
            sb_printf(sb, "argument %d", i);
            return;
        }
    for (int k = 0; k < K->n_eqns; k++) {
        const ir_eqn *e = &K->eqns[k];
        if (!ir_eqn_defines(e, var)) continue;
        if (e->prim == PRIM_NAME)
            sb_printf(sb, "named '%s'", prim_name_str(e->params.flag));
        else
            sb_printf(sb, "output of %s", prim_names[e->prim]);
        if (e->region) sb_printf(sb, " (inside a checkpoint, saved by its policy)");
        return;
    }
    sb_printf(sb, "a constant");
}

char *cj_saved_residuals(cj_func *f, const cj_grad_opts *opts, int n_in, const cj_spec *in, size_t *total_bytes) {
    if (!func_check(NULL, f, "cj_saved_residuals", "f")) return NULL; /* NULL, freed, or of a freed context */
    cj_ctx *ctx = f->ctx;
    if (total_bytes) *total_bytes = 0;
    if (ctx->err) return NULL;
    if (!in) return core_error(ctx, CJ_ERR_ARG, "cj_saved_residuals(%s): in is NULL", f->name), NULL;
    if (opts && opts->n_argnums > 0 && !opts->argnums)
        return core_error(ctx, CJ_ERR_ARG, "cj_saved_residuals(%s): argnums is NULL for %d argnums", f->name,
                          opts->n_argnums),
               NULL;
    if (n_in != f->n_in) {
        core_error(ctx, CJ_ERR_ARG, "cj_saved_residuals(%s): %d input types for a function of %d inputs", f->name, n_in,
                   f->n_in);
        return NULL;
    }
    rt_aval avals[64];
    uint8_t diff[64] = {0};
    for (int i = 0; i < n_in; i++)
        if (core_spec_aval(ctx, "cj_saved_residuals", i, &in[i], &avals[i]) != 0) return NULL;
    int n_arg = opts && opts->n_argnums > 0 ? opts->n_argnums : 1;
    for (int k = 0; k < n_arg; k++) {
        int a = opts && opts->n_argnums > 0 ? opts->argnums[k] : 0;
        if (a < 0) a += n_in;
        if (a < 0 || a >= n_in) {
            core_error(ctx, CJ_ERR_ARG, "cj_saved_residuals(%s): argnums[%d] is out of range", f->name, k);
            return NULL;
        }
        diff[a] = 1;
    }
    char what[300];
    snprintf(what, sizeof what, "saved residuals of %s", f->name);
    ir_func *ir = func_trace_to_ir(f, avals, NULL, what);
    ad_linear L;
    if (!ir || ad_linearize(ctx, ir, diff, &L, what) != 0) {
        if (ir) ir_free(ir);
        return NULL;
    }
    ir_free(ir);
    strbuf sb;
    sb_init(&sb, ctx->mem);
    size_t total = 0;
    for (int r = 0; r < L.n_res; r++) {
        int var = L.known->out[L.n_out + r];
        const rt_aval *a = &L.known->vars[var];
        char t[96];
        rt_aval_str(a, t, sizeof t);
        size_t bytes = rt_aval_nbytes(a);
        total += bytes;
        sb_printf(&sb, "%-24s %10zu bytes  ", t, bytes);
        describe(L.known, var, &sb);
        sb_printf(&sb, "\n");
    }
    sb_printf(&sb, "%d residuals, %zu bytes\n", L.n_res, total);
    ad_linear_free(&L);
    if (total_bytes) *total_bytes = total;
    if (sb.failed) {
        sb_free(&sb);
        core_oom(ctx, what);
        return NULL;
    }
    return sb.data;
}
