/* func.c — function objects, calling them, and tracing them into IR
 * (core layer).
 *
 * Calling a user function opens a scope around it, so its intermediates are
 * freed when it returns and only its outputs survive. Tracing pushes a
 * staging trace whose `process` appends an equation per primitive instead
 * of computing it; arrays from outside the trace become IR constants.
 *
 * It also keeps the process-wide registry of live function objects, so an
 * entry point handed a pointer to a freed one (or to one of a freed
 * context) can tell without reading the memory it points to. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "func.h"

/* ---- the registry of live function objects ----
 * A hash set of pointers chained through the objects themselves
 * (live_next), so it allocates nothing: buckets in static shards, each
 * shard behind its own mutex (contexts on different threads rarely meet
 * on one). Membership is decided by comparing pointers along a chain of
 * live objects, never by reading the object asked about. A pointer whose
 * memory now holds a newer function object is that object: a stale
 * pointer into another context is still caught by the caller check. */
#define LIVE_SHARDS 64
#define LIVE_BUCKETS 64 /* per shard */

typedef struct live_shard {
    pthread_mutex_t lock;
    cj_func *heads[LIVE_BUCKETS];
} live_shard;

static live_shard live[LIVE_SHARDS];
static pthread_once_t live_once = PTHREAD_ONCE_INIT;

static void live_init(void) {
    for (int i = 0; i < LIVE_SHARDS; i++) pthread_mutex_init(&live[i].lock, NULL);
}

static uint64_t live_hash(const cj_func *f) {
    return ((uint64_t)(uintptr_t)f >> 4) * 0x9E3779B97F4A7C15ull;
}
static live_shard *shard_of(const cj_func *f) { return &live[live_hash(f) >> 58]; }
static cj_func **bucket_of(live_shard *s, const cj_func *f) { return &s->heads[(live_hash(f) >> 52) & 63]; }

static void live_add(cj_func *f) {
    pthread_once(&live_once, live_init);
    live_shard *s = shard_of(f);
    pthread_mutex_lock(&s->lock);
    cj_func **b = bucket_of(s, f);
    f->live_next = *b;
    *b = f;
    pthread_mutex_unlock(&s->lock);
}

static void live_remove(cj_func *f) {
    live_shard *s = shard_of(f);
    pthread_mutex_lock(&s->lock);
    for (cj_func **p = bucket_of(s, f); *p; p = &(*p)->live_next)
        if (*p == f) {
            *p = f->live_next;
            break;
        }
    pthread_mutex_unlock(&s->lock);
}

/* f's context when f is live, else NULL; with name, its name copied
 * there (while it cannot be freed: only messages need it). */
static cj_ctx *live_ctx(const cj_func *f, char *name, size_t n) {
    pthread_once(&live_once, live_init);
    live_shard *s = shard_of(f);
    cj_ctx *ctx = NULL;
    pthread_mutex_lock(&s->lock);
    for (cj_func *g = *bucket_of(s, f); g; g = g->live_next)
        if (g == f) {
            ctx = f->ctx;
            if (name) snprintf(name, n, "%s", f->name);
            break;
        }
    pthread_mutex_unlock(&s->lock);
    return ctx;
}

cj_func *func_check(cj_ctx *caller, cj_func *f, const char *op, const char *what) {
    if (!f) {
        core_error(caller, CJ_ERR_ARG, "%s: %s is NULL", op, what);
        return NULL;
    }
    cj_ctx *ctx = live_ctx(f, NULL, 0);
    if (!ctx) {
        core_error(caller, CJ_ERR_ARG, "%s: %s is not a live function object (it was freed, or its context was)", op,
                   what);
        return NULL;
    }
    if (caller && ctx != caller) {
        char name[64] = "";
        live_ctx(f, name, sizeof name);
        core_error(caller, CJ_ERR_ARG, "%s: %s ('%s') belongs to another context", op, what, name);
        return NULL;
    }
    return f;
}

/* ---- function objects ---- */
static int call_user_fn(cj_func *f, const cj_val *in, cj_val *out);
static const func_ops fn_ops = {"fn", call_user_fn, NULL};

static cj_func *func_new_held(cj_ctx *ctx, const char *name, const func_ops *ops, int n_in, int n_out);

cj_func *func_new(cj_ctx *ctx, const char *name, const func_ops *ops, int n_in, int n_out) {
    if (core_enter(ctx, "function object") != 0) return NULL;
    cj_func *f = func_new_held(ctx, name, ops, n_in, n_out);
    core_leave(ctx);
    return f;
}

static cj_func *func_new_held(cj_ctx *ctx, const char *name, const func_ops *ops, int n_in, int n_out) {
    cj_func *f = rt_calloc(ctx->mem, sizeof *f);
    if (!f) {
        core_oom(ctx, "function object");
        return NULL;
    }
    f->name = rt_strdup(ctx->mem, name ? name : "f");
    if (!f->name) {
        rt_free(ctx->mem, f, sizeof *f);
        core_oom(ctx, "function object");
        return NULL;
    }
    f->ctx = ctx;
    f->ops = ops;
    f->refs = 1; /* the creator's */
    f->n_in = n_in;
    f->n_out = n_out;
    f->next = ctx->funcs;
    ctx->funcs = f;
    live_add(f);
    return f;
}

void func_memo_add(cj_func *f, prim_ref *r) {
    prim_ref *old = f->memo[f->next_memo];
    f->memo[f->next_memo] = prim_ref_retain(r);
    f->next_memo = (f->next_memo + 1) % FUNC_MEMO;
    prim_ref_release(old);
}

static void memo_clear(cj_func *f) {
    for (int i = 0; i < FUNC_MEMO; i++) {
        prim_ref *r = f->memo[i];
        f->memo[i] = NULL;
        prim_ref_release(r);
    }
}

void func_free_all(cj_ctx *ctx) {
    /* every object goes, whoever holds it: states first, while every object
     * still exists (their releases then do nothing), then the objects (the
     * loop's own free_state call then finds no state) */
    for (cj_func *g = ctx->funcs; g; g = g->next) g->closing = 1;
    for (cj_func *g = ctx->funcs; g; g = g->next) {
        if (g->ops->free_state) g->ops->free_state(g);
        memo_clear(g);
    }
    cj_func *f = ctx->funcs;
    while (f) {
        cj_func *next = f->next;
        live_remove(f);
        if (f->ops->free_state) f->ops->free_state(f);
        rt_strfree(ctx->mem, f->name);
        rt_free(ctx->mem, f, sizeof *f);
        f = next;
    }
    ctx->funcs = NULL;
}

void cj_func_free(cj_func *f) {
    if (!f || !func_check(NULL, f, "cj_func_free", "the function")) return; /* freed already: nothing to do */
    if (f->released) return; /* the creator's reference is gone already; holders keep theirs */
    f->released = 1;
    func_release(f);
}

cj_func *func_retain(cj_func *f) {
    if (f) f->refs++;
    return f;
}

void func_release(cj_func *f) {
    if (!f || f->closing || --f->refs > 0) return;
    cj_ctx *ctx = f->ctx;
    for (cj_func **p = &ctx->funcs; *p; p = &(*p)->next) {
        if (*p != f) continue;
        *p = f->next;
        live_remove(f);
        if (f->ops->free_state) f->ops->free_state(f);
        memo_clear(f);
        cj_func *inner = f->inner;
        rt_strfree(ctx->mem, f->name);
        rt_free(ctx->mem, f, sizeof *f);
        func_release(inner); /* after f is gone: a wrapper frees before what it wraps */
        return;
    }
}

cj_func *cj_func_new(cj_ctx *ctx, const char *name, cj_fn fn, int n_in, int n_out, void *user) {
    if (!ctx) return core_error(NULL, CJ_ERR_ARG, "cj_func_new: ctx is NULL"), NULL;
    if (!fn) return core_error(ctx, CJ_ERR_ARG, "cj_func_new: fn is NULL"), NULL;
    if (n_in < 0 || n_out < 1 || n_in > 64 || n_out > 64) {
        core_error(ctx, CJ_ERR_ARG, "cj_func_new: needs a function, 0..64 inputs and 1..64 outputs (got %d, %d)",
                   n_in, n_out);
        return NULL;
    }
    cj_func *f = func_new(ctx, name, &fn_ops, n_in, n_out);
    if (f) {
        f->fn = fn;
        f->user = user;
    }
    return f;
}

int cj_func_n_in(const cj_func *f) { return f && func_check(NULL, (cj_func *)f, "cj_func_n_in", "f") ? f->n_in : -1; }
int cj_func_n_out(const cj_func *f) { return f && func_check(NULL, (cj_func *)f, "cj_func_n_out", "f") ? f->n_out : -1; }
const char *cj_func_name(const cj_func *f) {
    return f && func_check(NULL, (cj_func *)f, "cj_func_name", "f") ? f->name : "";
}

static void set_error_outputs(cj_func *f, cj_val *out) {
    for (int i = 0; i < f->n_out; i++) out[i] = core_err_val(f->ctx);
}

static cj_status call_held(cj_func *f, const cj_val *in, cj_val *out);

cj_status cj_call(cj_func *f, const cj_val *in, cj_val *out) {
    /* a freed function (or one of a freed context) has no context to
     * record the error in: the status (and the thread's record) says it */
    if (!func_check(NULL, f, "cj_call", "f")) return CJ_ERR_ARG;
    /* another thread inside the context: refused before anything is read */
    if (core_enter(f->ctx, "cj_call") != 0) return CJ_ERR_ARG;
    cj_status st = call_held(f, in, out);
    core_leave(f->ctx);
    return st;
}

static cj_status call_held(cj_func *f, const cj_val *in, cj_val *out) {
    cj_ctx *ctx = f->ctx;
    if (!out || (f->n_in && !in)) {
        core_error(ctx, CJ_ERR_ARG, "cj_call(%s): %s is NULL", f->name, !out ? "out" : "in");
        return ctx->err;
    }
    if (ctx->err) {
        set_error_outputs(f, out);
        return ctx->err;
    }
    for (int i = 0; i < f->n_in; i++) {
        /* the common case first, with no message made: a cached jit call of
         * a small function spent a quarter of its time in this snprintf */
        if (in[i].ctx == ctx && core_peek(in[i])) continue;
        char what[160];
        snprintf(what, sizeof what, "%s (input %d)", f->name, i);
        if (in[i].ctx != ctx) {
            core_error(ctx, CJ_ERR_ARG, "%s: %s", what,
                       in[i].ctx ? "belongs to another context"
                                 : "is an error value without a context (made by a call that had none to record its "
                                   "error in: see cj_error_message(NULL))");
            set_error_outputs(f, out);
            return ctx->err;
        }
        if (!core_get(in[i], what)) {
            set_error_outputs(f, out);
            return ctx->err;
        }
    }
    if (f->ops->call(f, in, out) != 0 || ctx->err) {
        set_error_outputs(f, out);
        if (!ctx->err) core_error(ctx, CJ_ERR_INTERNAL, "%s: failed without a message", f->name);
        return ctx->err;
    }
    return CJ_OK;
}

static int call_user_fn(cj_func *f, const cj_val *in, cj_val *out) {
    cj_ctx *ctx = f->ctx;
    if (cj_scope_begin(ctx) < 0) return -1;
    for (int i = 0; i < f->n_out; i++) out[i] = core_err_val(ctx);
    f->fn(ctx, in, out, f->user);
    if (!ctx->err) {
        for (int i = 0; i < f->n_out; i++) {
            if (out[i].ctx != ctx || !core_peek(out[i])) {
                char what[160];
                snprintf(what, sizeof what, "%s: output %d", f->name, i);
                if (out[i].slot == 0 && !out[i].ctx)
                    core_error(ctx, CJ_ERR_ARG,
                               "%s is an error value without a context (made by a call that had none to record its "
                               "error in: see cj_error_message(NULL))",
                               what);
                else if (out[i].ctx != ctx)
                    core_error(ctx, CJ_ERR_ARG, "%s belongs to another context", what);
                else if (out[i].slot == 0)
                    core_error(ctx, CJ_ERR_ARG, "%s was not set by the function", what);
                else
                    core_get(out[i], what);
                break;
            }
        }
    }
    core_scope_end(ctx, ctx->err ? 0 : f->n_out, out);
    return ctx->err ? -1 : 0;
}

/* ---- the staging trace ---- */
typedef struct stage_state {
    ir_func *ir;
    core_trace *trace;
    const char *fname;
    func_closure *closure; /* NULL: closing over outer tracers is an error */
    int scope_depth;       /* values of shallower scopes were made outside the trace */
} stage_state;

/* Closure conversion: a value from outside the traced body becomes an
 * extra input of the IR (once per value). */
static int close_over(cj_ctx *ctx, stage_state *st, cj_val h, const core_value *v, const char *op) {
    func_closure *c = st->closure;
    for (int i = 0; i < c->n; i++)
        if (c->vals[i].slot == h.slot && c->vals[i].gen == h.gen) return c->vars[i];
    if (c->n == FUNC_MAX_CLOSURE)
        return core_error(ctx, CJ_ERR_UNSUPPORTED, "%s: '%s' reads more than %d values from outside it", op, st->fname,
                          FUNC_MAX_CLOSURE);
    int var = ir_add_input(st->ir, &v->aval);
    if (var < 0) return core_oom(ctx, op);
    c->vals[c->n] = h;
    c->vars[c->n++] = var;
    return var;
}

/* The IR variable for an input of an equation being staged: its own tracer,
 * or a constant for a concrete array (deduplicated by identity). */
static int stage_var(cj_ctx *ctx, stage_state *st, cj_val h, const char *op) {
    core_value *v = core_peek(h);
    if (v->kind == VALUE_TRACER && v->level == st->trace->level) return v->var;
    if (v->kind == VALUE_ARRAY && st->closure && v->scope < st->scope_depth)
        return close_over(ctx, st, h, v, op); /* an array from outside the body: an operand, not baked in */
    if (v->kind == VALUE_ARRAY) {
        for (int i = 0; i < st->ir->n_consts; i++)
            if (st->ir->consts[i].val == v->arr) return st->ir->consts[i].var;
        int var = ir_add_const(st->ir, v->arr);
        if (var < 0) core_oom(ctx, op);
        return var;
    }
    if (v->kind == VALUE_TRACER && v->level < st->trace->level && st->closure) return close_over(ctx, st, h, v, op);
    return core_error(ctx, CJ_ERR_UNSUPPORTED,
                      "%s: while tracing '%s', an operand is a traced value of an enclosing "
                      "transformation (%s); closing over it is not supported yet: pass it as an input",
                      op, st->fname, ctx->traces[v->level]->what);
}

static cj_val stage_tracer(cj_ctx *ctx, stage_state *st, int var) {
    core_value *v;
    cj_val h = core_new_value(ctx, &v);
    if (!v) return h;
    v->kind = VALUE_TRACER;
    v->level = st->trace->level;
    v->trace_id = st->trace->id;
    v->var = var;
    v->aval = st->ir->vars[var];
    return h;
}

static int stage_process(cj_ctx *ctx, core_trace *t, prim_id prim, const prim_params *p, int n_in,
                         const cj_val *in, cj_val *out) {
    stage_state *st = t->state;
    int vars[PRIM_MAX_OPERANDS];
    rt_aval avals[PRIM_MAX_OPERANDS], out_aval;
    for (int i = 0; i < n_in; i++) {
        vars[i] = stage_var(ctx, st, in[i], prim_names[prim]);
        if (vars[i] < 0) return -1;
        avals[i] = st->ir->vars[vars[i]];
    }
    if (core_abstract_eval(ctx, prim, p, n_in, avals, &out_aval) != 0) return -1;
    int var = ir_add_eqn(st->ir, prim, p, n_in, vars, &out_aval);
    if (var < 0) return core_oom(ctx, prim_names[prim]);
    *out = stage_tracer(ctx, st, var);
    return out->slot ? 0 : -1;
}

/* Several results: one equation defining them all. */
static int stage_process_multi(cj_ctx *ctx, core_trace *t, prim_id prim, const prim_params *p, int n_in,
                               const cj_val *in, int n_out, cj_val *out) {
    stage_state *st = t->state;
    /* tables sized by the equation (a construct may have hundreds of
     * operands and results) */
    int vars_s[PRIM_SMALL_OPERANDS], n = 0, status = -1;
    rt_aval avals_s[PRIM_SMALL_OPERANDS], out_s[PRIM_SMALL_RESULTS];
    const char *what = prim_names[prim];
    int *vars = core_table(ctx, vars_s, PRIM_SMALL_OPERANDS, n_in, sizeof *vars, what);
    rt_aval *avals = core_table(ctx, avals_s, PRIM_SMALL_OPERANDS, n_in, sizeof *avals, what);
    rt_aval *out_avals = core_table(ctx, out_s, PRIM_SMALL_RESULTS, n_out, sizeof *out_avals, what);
    if (!vars || !avals || !out_avals) goto done;
    for (int i = 0; i < n_in; i++) {
        vars[i] = stage_var(ctx, st, in[i], what);
        if (vars[i] < 0) goto done;
        avals[i] = st->ir->vars[vars[i]];
    }
    if (core_abstract_eval_multi(ctx, prim, p, n_in, avals, n_out, &n, out_avals) != 0) goto done;
    if (n != n_out) {
        prim_error(ctx, CJ_ERR_INTERNAL, prim, "bound for %d results, it has %d", n_out, n);
        goto done;
    }
    int var = ir_add_eqn_multi(st->ir, prim, p, n_in, vars, n, out_avals);
    if (var < 0) {
        core_oom(ctx, what);
        goto done;
    }
    status = 0;
    for (int j = 0; j < n && status == 0; j++) {
        out[j] = stage_tracer(ctx, st, var + j);
        if (!out[j].slot) status = -1;
    }
done:
    core_table_free(ctx, vars, vars_s, n_in, sizeof *vars);
    core_table_free(ctx, avals, avals_s, n_in, sizeof *avals);
    core_table_free(ctx, out_avals, out_s, n_out, sizeof *out_avals);
    return status;
}

static const trace_ops stage_ops = {"jit", stage_process, stage_process_multi};

ir_func *func_staging_ir(cj_ctx *ctx) {
    if (ctx->dynamic_level <= 0 || ctx->dynamic_level >= ctx->n_traces) return NULL;
    core_trace *t = ctx->traces[ctx->dynamic_level];
    return t->ops == &stage_ops ? ((stage_state *)t->state)->ir : NULL;
}

/* ---- carrying regions over when a program is re-bound ---- */
void region_rebind_begin(cj_ctx *ctx, region_rebind *rb, const ir_func *src) {
    memset(rb, 0, sizeof *rb);
    rb->src = src;
    rb->dst = src->n_regions ? func_staging_ir(ctx) : NULL;
    if (!rb->dst) return;
    rb->saved = rb->dst->cur_region;
    rb->map = rt_calloc(ctx->mem, sizeof(int) * (size_t)(src->n_regions + 1));
    if (!rb->map) {
        core_oom(ctx, "region");
        rb->dst = NULL;
    }
}

static int map_region(region_rebind *rb, int r) {
    if (r == 0) return rb->saved;
    if (rb->map[r] == 0) {
        int parent = map_region(rb, rb->src->regions[r].parent);
        int id = ir_add_region(rb->dst, parent, rb->src->regions[r].policy);
        rb->map[r] = id > 0 ? id : parent;
    }
    return rb->map[r];
}

void region_rebind_eqn(region_rebind *rb, const ir_eqn *e) {
    if (rb->dst) rb->dst->cur_region = map_region(rb, e->region);
}

void region_rebind_end(cj_ctx *ctx, region_rebind *rb) {
    if (!rb->dst) return;
    rb->dst->cur_region = rb->saved;
    rt_free(ctx->mem, rb->map, sizeof(int) * (size_t)(rb->src->n_regions + 1));
    rb->dst = NULL;
}

/* Runs body under a new staging trace with a tracer per non-static input
 * and records its outputs: the common part of tracing a function object
 * and of the transformations that build programs (autodiff). */
ir_func *func_trace_body(cj_ctx *ctx, int n_in, const rt_aval *in_avals, const cj_val *static_vals, int n_out,
                         func_body_fn body, void *user, const char *fname, const char *what, func_closure *closure) {
    stage_state st = {ir_new(ctx->mem), NULL, fname, closure, 0};
    if (closure) closure->n = 0;
    if (!st.ir) {
        core_oom(ctx, what);
        return NULL;
    }
    int saved_dynamic = ctx->dynamic_level, saved_floor = ctx->scope_floor;
    int depth = cj_scope_begin(ctx);
    st.scope_depth = depth;
    st.trace = depth >= 0 ? core_push_trace(ctx, &stage_ops, &st, what) : NULL;
    if (!st.trace) {
        if (depth >= 0) core_scope_end(ctx, 0, NULL);
        ir_free(st.ir);
        return NULL;
    }
    ctx->dynamic_level = st.trace->level;
    ctx->scope_floor = depth;

    /* the body's inputs and outputs, however many (a construct's derived
     * bodies read and make hundreds of residuals) */
    cj_val args_s[PRIM_SMALL_OPERANDS], outs_s[PRIM_SMALL_OPERANDS];
    cj_val *args = core_table(ctx, args_s, PRIM_SMALL_OPERANDS, n_in, sizeof *args, what);
    cj_val *outs = core_table(ctx, outs_s, PRIM_SMALL_OPERANDS, n_out, sizeof *outs, what);
    int ok = args && outs;
    for (int i = 0; i < n_in && ok; i++) {
        if (static_vals && static_vals[i].ctx) {
            args[i] = static_vals[i];
            continue;
        }
        int var = ir_add_input(st.ir, &in_avals[i]);
        if (var < 0) {
            core_oom(ctx, what);
            ok = 0;
            break;
        }
        args[i] = stage_tracer(ctx, &st, var);
        ok = args[i].slot != 0;
    }
    if (ok && body(ctx, args, outs, user) == 0 && !ctx->err) {
        for (int i = 0; i < n_out && ok; i++) {
            int var = stage_var(ctx, &st, outs[i], what);
            ok = var >= 0 && ir_add_output(st.ir, var) == 0;
            if (var >= 0 && !ok) core_oom(ctx, what);
        }
    } else {
        ok = 0;
    }
    ctx->dynamic_level = saved_dynamic;
    ctx->scope_floor = saved_floor;
    /* end the tracer's scope while its trace is still on the stack (the
     * values are tracers of it), then pop the trace */
    while (ctx->n_scopes > depth) core_scope_end(ctx, 0, NULL);
    core_pop_trace(ctx, st.trace);
    core_table_free(ctx, args, args_s, n_in, sizeof *args);
    core_table_free(ctx, outs, outs_s, n_out, sizeof *outs);
    if (!ok || ctx->err) {
        ir_free(st.ir);
        return NULL;
    }
    return st.ir;
}

static int call_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    return cj_call(user, in, out) == CJ_OK ? 0 : -1;
}

ir_func *func_trace_to_ir(cj_func *f, const rt_aval *in_avals, const cj_val *static_vals, const char *what) {
    return func_trace_body(f->ctx, f->n_in, in_avals, static_vals, f->n_out, call_body, f, f->name, what, NULL);
}

ir_func *func_trace_closed(cj_func *f, const rt_aval *in_avals, const char *what, func_closure *closure) {
    return func_trace_body(f->ctx, f->n_in, in_avals, NULL, f->n_out, call_body, f, f->name, what, closure);
}
