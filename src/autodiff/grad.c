/* grad.c — the reverse- and forward-mode transformations: jvp, vjp,
 * linearize, grad and value_and_grad (autodiff layer).
 *
 * Each traces the function for its input types, then jvp.c,
 * partial_eval.c and transpose.c do the work, binding through whatever
 * traces are current (so jit(grad(f)) is one program and vmap(grad(f))
 * gives per-example gradients). grad keeps its linearized programs per
 * input signature, as jit keeps programs, so repeated eager calls do not
 * trace again. */
#include <stdio.h>
#include <string.h>

#include "ad.h"

/* ---- shared helpers ---- */
static int avals_of(cj_ctx *ctx, int n, const cj_val *in, rt_aval *avals) {
    for (int i = 0; i < n; i++) {
        core_value *v = core_peek(in[i]);
        if (!v) return core_error(ctx, CJ_ERR_ARG, "argument %d is not a valid value", i);
        avals[i] = v->aval;
    }
    return 0;
}


/* Ends the scope opened at `depth`, keeping n values (all when the call
 * succeeded; none otherwise). */
static int finish(cj_ctx *ctx, int n, cj_val *out) {
    core_scope_end(ctx, ctx->err ? 0 : n, out);
    return ctx->err ? -1 : 0;
}

/* ---- grad and value_and_grad ---- */
typedef struct grad_state {
    int n_argnums;
    int argnums[64];
    int has_aux, with_value;
    uint8_t diff[64];
    ad_cache cache;
} grad_state;

static int grad_call(cj_func *g, const cj_val *in, cj_val *out);
static void grad_free_state(cj_func *g) {
    grad_state *st = g->state;
    if (!st) return;
    ad_cache_clear(&st->cache);
    rt_free(g->ctx->mem, st, sizeof *st);
    g->state = NULL;
}
static const func_ops grad_ops = {"grad", grad_call, grad_free_state};

static cj_func *make_grad(cj_func *f, const cj_grad_opts *opts, int with_value) {
    if (!func_check(NULL, f, with_value ? "cj_value_and_grad" : "cj_grad", "f")) return NULL; /* NULL or freed */
    cj_ctx *ctx = f->ctx;
    const char *kind = with_value ? "cj_value_and_grad" : "cj_grad";
    if (opts && opts->n_argnums > 0 && !opts->argnums)
        return core_error(ctx, CJ_ERR_ARG, "%s(%s): argnums is NULL for %d argnums", kind, f->name, opts->n_argnums), NULL;
    int n_arg = opts && opts->n_argnums > 0 ? opts->n_argnums : 1;
    int has_aux = opts && opts->has_aux;
    if (n_arg > f->n_in || n_arg > 64) {
        core_error(ctx, CJ_ERR_ARG, "%s(%s): %d argnums for a function of %d inputs", kind, f->name, n_arg, f->n_in);
        return NULL;
    }
    if (has_aux && f->n_out < 2) {
        core_error(ctx, CJ_ERR_ARG, "%s(%s): has_aux needs a function with an auxiliary output after the value",
                   kind, f->name);
        return NULL;
    }
    if (!has_aux && f->n_out != 1) {
        core_error(ctx, CJ_ERR_ARG, "%s(%s): the function has %d outputs; grad needs one scalar output (or has_aux)",
                   kind, f->name, f->n_out);
        return NULL;
    }
    grad_state *st = rt_calloc(ctx->mem, sizeof *st);
    if (!st) {
        core_oom(ctx, kind);
        return NULL;
    }
    st->n_argnums = n_arg;
    st->has_aux = has_aux;
    st->with_value = with_value;
    for (int k = 0; k < n_arg; k++) {
        int a = opts && opts->n_argnums > 0 ? opts->argnums[k] : 0;
        if (a < 0) a += f->n_in;
        if (a < 0 || a >= f->n_in || st->diff[a]) {
            core_error(ctx, CJ_ERR_ARG, "%s(%s): argnums[%d] = %d is out of range or repeated (the function has %d inputs)",
                       kind, f->name, k, opts->argnums[k], f->n_in);
            rt_free(ctx->mem, st, sizeof *st);
            return NULL;
        }
        st->argnums[k] = a;
        st->diff[a] = 1;
    }
    char name[256];
    snprintf(name, sizeof name, "%s(%s)", with_value ? "value_and_grad" : "grad", f->name);
    int n_aux = has_aux ? f->n_out - 1 : 0;
    cj_func *g = func_new(ctx, name, &grad_ops, f->n_in, n_arg + n_aux + (with_value ? 1 : 0));
    if (!g) {
        rt_free(ctx->mem, st, sizeof *st);
        return NULL;
    }
    g->inner = func_retain(f);
    g->state = st;
    return g;
}

cj_func *cj_grad(cj_func *f, const cj_grad_opts *opts) { return make_grad(f, opts, 0); }
cj_func *cj_value_and_grad(cj_func *f, const cj_grad_opts *opts) { return make_grad(f, opts, 1); }

static int check_grad_inputs(cj_func *g, const rt_aval *avals) {
    grad_state *st = g->state;
    for (int k = 0; k < st->n_argnums; k++) {
        const rt_aval *a = &avals[st->argnums[k]];
        if (!rt_is_float(a->dtype)) {
            char t[96];
            rt_aval_str(a, t, sizeof t);
            return core_error(g->ctx, CJ_ERR_DTYPE,
                              "%s: argument %d has type %s; grad needs float inputs (cj_vjp gives integer inputs a zero "
                              "cotangent)",
                              g->name, st->argnums[k], t);
        }
    }
    return 0;
}

static int grad_call(cj_func *g, const cj_val *in, cj_val *out) {
    cj_ctx *ctx = g->ctx;
    grad_state *st = g->state;
    cj_func *f = g->inner;
    rt_aval avals[64];
    if (avals_of(ctx, f->n_in, in, avals) != 0 || check_grad_inputs(g, avals) != 0) return -1;
    if (cj_scope_begin(ctx) < 0) return -1;
    const ad_linear *L = ad_cache_get(f, &st->cache, avals, st->diff, g->name);
    if (!L) return finish(ctx, 0, out);
    const rt_aval *y = &L->known->vars[L->known->out[0]];
    if (y->rank != 0 || !rt_is_float(y->dtype)) {
        char t[96];
        rt_aval_str(y, t, sizeof t);
        core_error(ctx, CJ_ERR_SHAPE,
                   "%s: the function's output must be a float scalar, got %s (use cj_vjp or cj_jacrev for others)",
                   g->name, t);
        return finish(ctx, 0, out);
    }
    /* the outputs and the residuals, however many (a scan whose step saves
     * hundreds has as many) */
    cj_val kout_s[64], ct[64], ct_in[64];
    int n_known_out = L->known->n_out;
    cj_val *kout = core_table(ctx, kout_s, 64, n_known_out, sizeof *kout, g->name);
    if (!kout) return finish(ctx, 0, out);
    int ok = ir_eval_values(ctx, L->known, in, kout) == 0;
    if (ok) {
        ct[0] = cj_ones(ctx, y->dtype, 0, NULL);
        for (int j = 1; j < f->n_out; j++) ct[j] = ad_zero(ctx);
        ok = ad_transpose_eval(ctx, L->lin, L->n_res, kout + f->n_out, ct, ct_in, g->name) == 0;
    }
    if (!ok) {
        core_table_free(ctx, kout, kout_s, n_known_out, sizeof *kout);
        return finish(ctx, 0, out);
    }
    /* ct_in is in input order over the differentiated inputs */
    int pos[64], n = 0;
    for (int i = 0; i < f->n_in; i++) pos[i] = L->diff[i] ? n++ : -1;
    int o = 0;
    if (st->with_value) out[o++] = kout[0];
    if (st->with_value && st->has_aux)
        for (int j = 1; j < f->n_out; j++) out[o++] = kout[j];
    for (int k = 0; k < st->n_argnums; k++) out[o++] = ct_in[pos[st->argnums[k]]];
    if (!st->with_value && st->has_aux)
        for (int j = 1; j < f->n_out; j++) out[o++] = kout[j];
    core_table_free(ctx, kout, kout_s, n_known_out, sizeof *kout);
    return finish(ctx, g->n_out, out);
}

/* ---- jvp ---- */
cj_status cj_jvp(cj_func *f, const cj_val *primals, const cj_val *tangents, cj_val *primals_out,
                 cj_val *tangents_out) {
    if (!func_check(NULL, f, "cj_jvp", "f")) return CJ_ERR_ARG; /* NULL or freed */
    cj_ctx *ctx = f->ctx;
    if (ctx->err) return ctx->err;
    if (!primals || !tangents || !primals_out || !tangents_out)
        return core_error(ctx, CJ_ERR_ARG, "cj_jvp(%s): %s is NULL", f->name,
                          !primals ? "primals" : !tangents ? "tangents" : !primals_out ? "primals_out" : "tangents_out"),
               ctx->err;
    rt_aval avals[64];
    char what[300];
    snprintf(what, sizeof what, "jvp(%s)", f->name);
    if (avals_of(ctx, f->n_in, primals, avals) != 0) return ctx->err;
    for (int i = 0; i < f->n_in; i++) {
        const core_value *t = core_get(tangents[i], what);
        if (!t) return ctx->err;
        if (!rt_aval_same_type(&t->aval, &avals[i])) {
            char sp[96], st[96];
            rt_aval_str(&avals[i], sp, sizeof sp);
            rt_aval_str(&t->aval, st, sizeof st);
            core_error(ctx, CJ_ERR_SHAPE, "%s: primal and tangent of argument %d must have the same type: %s vs %s",
                       what, i, sp, st);
            return ctx->err;
        }
    }
    if (cj_scope_begin(ctx) < 0) return ctx->err;
    ir_func *ir = func_trace_to_ir(f, avals, NULL, what);
    cj_val res[128];
    if (ir && ad_jvp_eval(ctx, ir, primals, tangents, res, res + f->n_out, what) == 0) {
        for (int j = 0; j < f->n_out; j++)
            if (ad_is_zero(res[f->n_out + j])) res[f->n_out + j] = ad_zeros(ctx, &ir->vars[ir->out[j]]);
    }
    if (ir) ir_free(ir);
    finish(ctx, 2 * f->n_out, res);
    for (int j = 0; j < f->n_out; j++) {
        primals_out[j] = ctx->err ? core_err_val(ctx) : res[j];
        tangents_out[j] = ctx->err ? core_err_val(ctx) : res[f->n_out + j];
    }
    return ctx->err;
}

/* ---- vjp and linearize: functions holding residuals ---- */
typedef struct held_state {
    ad_linear lin;
    int n_res;
    cj_val res[256];
    rt_aval in_avals[64], out_avals[64];
} held_state;

static void held_free_state(cj_func *h) {
    held_state *st = h->state;
    if (!st) return;
    ad_linear_free(&st->lin);
    rt_free(h->ctx->mem, st, sizeof *st);
    h->state = NULL;
}

static int check_args(cj_func *h, const cj_val *in, const rt_aval *want, const char *noun) {
    for (int i = 0; i < h->n_in; i++) {
        const core_value *v = core_get(in[i], h->name);
        if (!v) return -1;
        if (!rt_aval_same_type(&v->aval, &want[i])) {
            char sw[96], sg[96];
            rt_aval_str(&want[i], sw, sizeof sw);
            rt_aval_str(&v->aval, sg, sizeof sg);
            return core_error(h->ctx, CJ_ERR_SHAPE, "%s: %s %d has type %s, expected %s", h->name, noun, i, sg, sw);
        }
    }
    return 0;
}

static int vjp_call(cj_func *h, const cj_val *in, cj_val *out) {
    cj_ctx *ctx = h->ctx;
    held_state *st = h->state;
    if (check_args(h, in, st->out_avals, "cotangent") != 0) return -1;
    for (int i = 0; i < st->n_res; i++)
        if (!core_get(st->res[i], h->name)) return -1; /* a residual's scope has ended */
    if (cj_scope_begin(ctx) < 0) return -1;
    cj_val ct_in[64];
    if (ad_transpose_eval(ctx, st->lin.lin, st->n_res, st->res, in, ct_in, h->name) == 0) {
        for (int i = 0, k = 0; i < h->n_out; i++)
            out[i] = st->lin.diff[i] ? ct_in[k++] : ad_zeros(ctx, &st->in_avals[i]);
    }
    return finish(ctx, h->n_out, out);
}

static int linearize_call(cj_func *h, const cj_val *in, cj_val *out) {
    cj_ctx *ctx = h->ctx;
    held_state *st = h->state;
    if (check_args(h, in, st->in_avals, "tangent") != 0) return -1;
    cj_val args[320];
    for (int i = 0; i < st->n_res; i++) args[i] = st->res[i];
    for (int i = 0, k = st->n_res; i < h->n_in; i++)
        if (st->lin.diff[i]) args[k++] = in[i];
    if (cj_scope_begin(ctx) < 0) return -1;
    ir_eval_values(ctx, st->lin.lin, args, out);
    return finish(ctx, h->n_out, out);
}

static const func_ops vjp_ops = {"vjp", vjp_call, held_free_state};
static const func_ops linearize_ops = {"linearize", linearize_call, held_free_state};

/* Linearizes f at primals, runs the known part now and returns a function
 * object holding the residuals. */
static cj_func *hold(cj_func *f, const cj_val *primals, cj_val *primals_out, int is_vjp) {
    if (!func_check(NULL, f, is_vjp ? "cj_vjp" : "cj_linearize", "f")) return NULL; /* NULL or freed */
    cj_ctx *ctx = f->ctx;
    const char *kind = is_vjp ? "vjp" : "linearize";
    char name[300];
    snprintf(name, sizeof name, "%s(%s)", kind, f->name);
    if (ctx->err) return NULL;
    if (!primals || !primals_out) {
        core_error(ctx, CJ_ERR_ARG, "cj_%s(%s): %s is NULL", kind, f->name, !primals ? "primals" : "primals_out");
        return NULL;
    }
    held_state *st = rt_calloc(ctx->mem, sizeof *st);
    if (!st) {
        core_oom(ctx, name);
        return NULL;
    }
    uint8_t diff[64];
    memset(diff, 1, sizeof diff);
    ir_func *ir = NULL;
    if (avals_of(ctx, f->n_in, primals, st->in_avals) == 0) ir = func_trace_to_ir(f, st->in_avals, NULL, name);
    int ok = ir && ad_linearize(ctx, ir, diff, &st->lin, name) == 0;
    if (ir) ir_free(ir);
    if (ok && st->lin.n_res > 256) {
        core_error(ctx, CJ_ERR_UNSUPPORTED, "%s: more than 256 residuals", name);
        ok = 0;
    }
    cj_val kout[320];
    if (ok) ok = ir_eval_values(ctx, st->lin.known, primals, kout) == 0;
    cj_func *h = ok ? func_new(ctx, name, is_vjp ? &vjp_ops : &linearize_ops, is_vjp ? f->n_out : f->n_in,
                               is_vjp ? f->n_in : f->n_out)
                    : NULL;
    if (!h) {
        ad_linear_free(&st->lin);
        rt_free(ctx->mem, st, sizeof *st);
        for (int j = 0; j < f->n_out; j++) primals_out[j] = core_err_val(ctx);
        return NULL;
    }
    st->n_res = st->lin.n_res;
    for (int i = 0; i < st->n_res; i++) st->res[i] = kout[f->n_out + i];
    for (int j = 0; j < f->n_out; j++) {
        primals_out[j] = kout[j];
        st->out_avals[j] = st->lin.known->vars[st->lin.known->out[j]];
    }
    h->inner = func_retain(f);
    h->state = st;
    return h;
}

cj_func *cj_vjp(cj_func *f, const cj_val *primals, cj_val *primals_out) { return hold(f, primals, primals_out, 1); }
cj_func *cj_linearize(cj_func *f, const cj_val *primals, cj_val *primals_out) {
    return hold(f, primals, primals_out, 0);
}
