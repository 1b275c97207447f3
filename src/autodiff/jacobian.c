/* jacobian.c — jacfwd, jacrev and hessian (autodiff layer).
 *
 * As in JAX, a Jacobian is a vmap over a basis: jacfwd pushes every unit
 * tangent of an input forward (vmap of a jvp), jacrev pulls every unit
 * cotangent of an output back (vmap of a vjp). The primal inputs are not
 * mapped, so the forward pass inside runs once, unbatched; only the
 * derivative part is batched. Each Jacobian comes out shaped
 * output.shape + input.shape. */
#include <stdio.h>
#include <string.h>

#include "ad.h"

/* ---- the per-basis-vector functions that get vmapped ---- */
/* pushforward(a): (f's inputs..., t) → J_a t for every output of f.
 * pullback(j): (f's inputs..., u) → u^T J for every argnum. */
typedef struct basis_state {
    int index; /* the argnum (pushforward) or the output (pullback) */
    const int *argnums;
    int n_argnums;
    uint8_t diff[64];
    ad_cache cache; /* pullback */
} basis_state;

static void basis_free_state(cj_func *b) {
    basis_state *st = b->state;
    if (!st) return;
    ad_cache_clear(&st->cache);
    rt_free(b->ctx->mem, st, sizeof *st);
    b->state = NULL;
}

static int pushforward_call(cj_func *b, const cj_val *in, cj_val *out) {
    cj_ctx *ctx = b->ctx;
    basis_state *st = b->state;
    cj_func *f = b->inner;
    rt_aval avals[64];
    for (int i = 0; i < f->n_in; i++) avals[i] = core_peek(in[i])->aval;
    if (cj_scope_begin(ctx) < 0) return -1;
    ir_func *ir = func_trace_to_ir(f, avals, NULL, b->name);
    cj_val tin[64], prim_out[64];
    for (int i = 0; i < f->n_in; i++) tin[i] = i == st->index ? in[f->n_in] : ad_zero(ctx);
    if (ir && ad_jvp_eval(ctx, ir, in, tin, prim_out, out, b->name) == 0)
        for (int j = 0; j < f->n_out; j++)
            if (ad_is_zero(out[j])) out[j] = ad_zeros(ctx, &ir->vars[ir->out[j]]);
    if (ir) ir_free(ir);
    core_scope_end(ctx, ctx->err ? 0 : b->n_out, out);
    return ctx->err ? -1 : 0;
}

static int pullback_call(cj_func *b, const cj_val *in, cj_val *out) {
    cj_ctx *ctx = b->ctx;
    basis_state *st = b->state;
    cj_func *f = b->inner;
    rt_aval avals[64];
    for (int i = 0; i < f->n_in; i++) avals[i] = core_peek(in[i])->aval;
    if (cj_scope_begin(ctx) < 0) return -1;
    const ad_linear *L = ad_cache_get(f, &st->cache, avals, st->diff, b->name);
    cj_val kout[320], ct[64], ct_in[64];
    if (L && L->known->n_out > 320) core_error(ctx, CJ_ERR_UNSUPPORTED, "%s: more than 256 residuals", b->name);
    if (L && !ctx->err && ir_eval_values(ctx, L->known, in, kout) == 0) {
        for (int j = 0; j < f->n_out; j++) ct[j] = j == st->index ? in[f->n_in] : ad_zero(ctx);
        if (ad_transpose_eval(ctx, L->lin, L->n_res, kout + f->n_out, ct, ct_in, b->name) == 0) {
            int pos[64], n = 0;
            for (int i = 0; i < f->n_in; i++) pos[i] = L->diff[i] ? n++ : -1;
            for (int k = 0; k < st->n_argnums; k++) out[k] = ct_in[pos[st->argnums[k]]];
        }
    }
    core_scope_end(ctx, ctx->err ? 0 : b->n_out, out);
    return ctx->err ? -1 : 0;
}

static const func_ops pushforward_ops = {"pushforward", pushforward_call, basis_free_state};
static const func_ops pullback_ops = {"pullback", pullback_call, basis_free_state};

/* ---- the Jacobian function objects ---- */
typedef struct jac_state {
    int n_argnums;
    int argnums[64];
    int forward;
    cj_func *mapped[64]; /* vmapped pushforward per argnum / pullback per output */
} jac_state;

static int jac_call(cj_func *g, const cj_val *in, cj_val *out);
static void jac_free_state(cj_func *g) {
    jac_state *st = g->state;
    if (!st) return;
    for (int k = 0; k < 64; k++) func_release(st->mapped[k]); /* made for g alone */
    rt_free(g->ctx->mem, st, sizeof *st);
    g->state = NULL;
}
static const func_ops jac_ops = {"jacobian", jac_call, jac_free_state};

static cj_func *make_basis(cj_func *f, const jac_state *js, int index) {
    cj_ctx *ctx = f->ctx;
    basis_state *st = rt_calloc(ctx->mem, sizeof *st);
    if (!st) {
        core_oom(ctx, "jacobian");
        return NULL;
    }
    st->index = index;
    st->argnums = js->argnums;
    st->n_argnums = js->n_argnums;
    for (int k = 0; k < js->n_argnums; k++) st->diff[js->argnums[k]] = 1;
    char name[300];
    snprintf(name, sizeof name, "%s(%s, %d)", js->forward ? "pushforward" : "pullback", f->name, index);
    cj_func *b = func_new(ctx, name, js->forward ? &pushforward_ops : &pullback_ops, f->n_in + 1,
                          js->forward ? f->n_out : js->n_argnums);
    if (!b) {
        rt_free(ctx->mem, st, sizeof *st);
        return NULL;
    }
    b->inner = func_retain(f);
    b->state = st;
    int64_t in_axes[65], out_axes[64];
    for (int i = 0; i < f->n_in; i++) in_axes[i] = CJ_NOT_MAPPED;
    in_axes[f->n_in] = 0;
    for (int j = 0; j < b->n_out; j++) out_axes[j] = 0;
    cj_vmap_opts vo = {in_axes, out_axes, 0, 0, 0};
    cj_func *mapped = cj_vmap(b, &vo);
    cj_func_free(b); /* the vmapped function holds it now (or it goes) */
    return mapped;
}

static cj_func *make_jac(cj_func *f, const cj_grad_opts *opts, int forward, const char *kind) {
    char api[32];
    snprintf(api, sizeof api, "cj_%s", kind);
    if (!func_check(NULL, f, api, "f")) return NULL; /* NULL, freed, or of a freed context */
    cj_ctx *ctx = f->ctx;
    if (opts && opts->n_argnums > 0 && !opts->argnums)
        return core_error(ctx, CJ_ERR_ARG, "cj_%s(%s): argnums is NULL for %d argnums", kind, f->name, opts->n_argnums), NULL;
    int n_arg = opts && opts->n_argnums > 0 ? opts->n_argnums : 1;
    if (n_arg > f->n_in || n_arg * f->n_out > 64) {
        core_error(ctx, CJ_ERR_ARG, "%s(%s): %d argnums for a function of %d inputs and %d outputs (at most 64 Jacobians)",
                   kind, f->name, n_arg, f->n_in, f->n_out);
        return NULL;
    }
    if (opts && opts->has_aux) {
        core_error(ctx, CJ_ERR_UNSUPPORTED, "%s(%s): has_aux is not supported for Jacobians", kind, f->name);
        return NULL;
    }
    jac_state *st = rt_calloc(ctx->mem, sizeof *st);
    if (!st) {
        core_oom(ctx, kind);
        return NULL;
    }
    st->n_argnums = n_arg;
    st->forward = forward;
    uint8_t seen[64] = {0};
    for (int k = 0; k < n_arg; k++) {
        int a = opts && opts->n_argnums > 0 ? opts->argnums[k] : 0;
        if (a < 0) a += f->n_in;
        if (a < 0 || a >= f->n_in || seen[a]) {
            core_error(ctx, CJ_ERR_ARG, "%s(%s): argnums[%d] is out of range or repeated (the function has %d inputs)",
                       kind, f->name, k, f->n_in);
            rt_free(ctx->mem, st, sizeof *st);
            return NULL;
        }
        seen[a] = 1;
        st->argnums[k] = a;
    }
    char name[256];
    snprintf(name, sizeof name, "%s(%s)", kind, f->name);
    cj_func *g = func_new(ctx, name, &jac_ops, f->n_in, f->n_out * n_arg);
    if (!g) {
        rt_free(ctx->mem, st, sizeof *st);
        return NULL;
    }
    g->inner = func_retain(f);
    g->state = st;
    int n_mapped = forward ? n_arg : f->n_out;
    for (int k = 0; k < n_mapped; k++) {
        st->mapped[k] = make_basis(f, st, forward ? st->argnums[k] : k);
        if (!st->mapped[k]) {
            cj_func_free(g); /* with the ones made so far */
            return NULL;
        }
    }
    return g;
}

cj_func *cj_jacfwd(cj_func *f, const cj_grad_opts *opts) { return make_jac(f, opts, 1, "jacfwd"); }
cj_func *cj_jacrev(cj_func *f, const cj_grad_opts *opts) { return make_jac(f, opts, 0, "jacrev"); }
cj_func *cj_hessian(cj_func *f, const cj_grad_opts *opts) {
    if (!f) return core_error(NULL, CJ_ERR_ARG, "cj_hessian: f is NULL"), NULL;
    if (opts && opts->n_argnums > 0 && !opts->argnums)
        return core_error(f->ctx, CJ_ERR_ARG, "cj_hessian(%s): argnums is NULL for %d argnums", f->name, opts->n_argnums), NULL;
    cj_func *inner = cj_jacrev(f, opts);
    cj_func *h = inner ? make_jac(inner, opts, 1, "hessian") : NULL;
    cj_func_free(inner); /* the hessian holds it (or it goes) */
    return h;
}

/* The identity of a value's size, shaped [n, *shape]: the basis vmapped
 * over. */
static cj_val basis_for(cj_ctx *ctx, const rt_aval *a) {
    int64_t n = rt_aval_size(a), dims[CJ_MAX_RANK + 1];
    dims[0] = n;
    memcpy(dims + 1, a->dims, sizeof(int64_t) * (size_t)a->rank);
    return cj_reshape(cj_eye(ctx, n, n, 0, a->dtype), a->rank + 1, dims);
}

/* A batched result [n, *a_shape] (n = size of b) → a_shape + b_shape
 * (forward: move the basis axis to the end, then split it into b's
 * shape); [n, *b_shape] with n = size of a → a_shape + b_shape (reverse:
 * just split). */
static cj_val shape_jacobian(cj_val batched, const rt_aval *out_aval, const rt_aval *in_aval, int forward) {
    int64_t dims[2 * CJ_MAX_RANK];
    int rank = out_aval->rank + in_aval->rank;
    if (rank > CJ_MAX_RANK) {
        core_error(batched.ctx, CJ_ERR_SHAPE, "jacobian: rank %d + %d is above the maximum rank %d", out_aval->rank,
                   in_aval->rank, CJ_MAX_RANK);
        return core_err_val(batched.ctx);
    }
    memcpy(dims, out_aval->dims, sizeof(int64_t) * (size_t)out_aval->rank);
    memcpy(dims + out_aval->rank, in_aval->dims, sizeof(int64_t) * (size_t)in_aval->rank);
    cj_val x = batched;
    if (forward) {
        int r = cj_val_rank(batched);
        int64_t perm[CJ_MAX_RANK];
        for (int d = 0; d < r - 1; d++) perm[d] = d + 1;
        perm[r - 1] = 0;
        x = cj_transpose(batched, perm);
    }
    return cj_reshape(x, rank, dims);
}

static int jac_call(cj_func *g, const cj_val *in, cj_val *out) {
    cj_ctx *ctx = g->ctx;
    jac_state *st = g->state;
    cj_func *f = g->inner;
    if (cj_scope_begin(ctx) < 0) return -1;
    cj_val args[65], res[64];
    for (int i = 0; i < f->n_in; i++) args[i] = in[i];
    for (int k = 0; k < st->n_argnums && !ctx->err; k++) {
        const rt_aval *a = &core_peek(in[st->argnums[k]])->aval;
        if (!rt_is_float(a->dtype)) {
            char t[96];
            rt_aval_str(a, t, sizeof t);
            core_error(ctx, CJ_ERR_DTYPE, "%s: argument %d has type %s; Jacobians need float inputs", g->name,
                       st->argnums[k], t);
        }
    }
    if (st->forward) {
        for (int k = 0; k < st->n_argnums && !ctx->err; k++) {
            const rt_aval *a = &core_peek(in[st->argnums[k]])->aval;
            args[f->n_in] = basis_for(ctx, a);
            if (cj_call(st->mapped[k], args, res) != CJ_OK) break;
            for (int j = 0; j < f->n_out; j++) {
                /* res[j] is [n, *out_shape] */
                rt_aval y = core_peek(res[j])->aval;
                y.rank--;
                memmove(y.dims, y.dims + 1, sizeof(int64_t) * (size_t)y.rank);
                out[j * st->n_argnums + k] = shape_jacobian(res[j], &y, a, 1);
            }
        }
    } else {
        for (int j = 0; j < f->n_out && !ctx->err; j++) {
            /* the output's type: from the pullback's own trace (cached) */
            rt_aval avals[64];
            for (int i = 0; i < f->n_in; i++) avals[i] = core_peek(in[i])->aval;
            basis_state *bs = st->mapped[j]->inner->state;
            const ad_linear *L = ad_cache_get(f, &bs->cache, avals, bs->diff, g->name);
            if (!L) break;
            rt_aval y = L->known->vars[L->known->out[j]];
            if (!rt_is_float(y.dtype)) {
                char t[96];
                rt_aval_str(&y, t, sizeof t);
                core_error(ctx, CJ_ERR_DTYPE, "%s: output %d has type %s; Jacobians need float outputs", g->name, j, t);
                break;
            }
            args[f->n_in] = basis_for(ctx, &y);
            if (cj_call(st->mapped[j], args, res) != CJ_OK) break;
            for (int k = 0; k < st->n_argnums; k++)
                out[j * st->n_argnums + k] = shape_jacobian(res[k], &y, &core_peek(in[st->argnums[k]])->aval, 0);
        }
    }
    core_scope_end(ctx, ctx->err ? 0 : g->n_out, out);
    return ctx->err ? -1 : 0;
}
