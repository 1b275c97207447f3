/* value.c — value slots, scopes and the value queries (core layer).
 *
 * A cj_val is (ctx, slot, gen). Slots live in fixed pages (never moved, so
 * pointers to a slot stay valid while pages are added). Each scope keeps
 * its values on a doubly linked list threaded through the slots; ending a
 * scope walks that list. A freed slot bumps its generation, so old handles
 * to it are recognised as stale. */
#include <string.h>

#include "core.h"

int core_values_init(cj_ctx *ctx) {
    ctx->cap_scopes = 16;
    ctx->scopes = rt_calloc(ctx->mem, sizeof(scope_rec) * (size_t)ctx->cap_scopes);
    if (!ctx->scopes) return -1;
    ctx->n_scopes = 1; /* the root scope, ended by cj_ctx_free */
    core_value *unused;
    cj_val v = core_new_value(ctx, &unused); /* claims slot 0: the error value */
    if (v.slot != 0 || !unused) return -1;
    /* slot 0 stays out of every list and is never handed out */
    ctx->scopes[0].head = 0;
    unused->kind = VALUE_FREE;
    unused->gen = 0xFFFFFFFFu;
    return 0;
}

void core_values_fini(cj_ctx *ctx) {
    for (uint32_t s = 1; s < ctx->n_slots; s++) {
        core_value *v = core_slot(ctx, s);
        if (v->kind != VALUE_FREE) rt_array_unref(v->arr);
    }
    for (uint32_t p = 0; p < ctx->n_pages; p++)
        rt_free(ctx->mem, ctx->pages[p], sizeof(core_value) * VALUE_PAGE_SIZE);
    if (ctx->pages) rt_free(ctx->mem, ctx->pages, sizeof(core_value *) * ctx->cap_pages);
    for (int i = 0; i < ctx->n_old_pages; i++) /* the copies had 8, 16, 32, ... entries */
        rt_free(ctx->mem, ctx->old_pages[i], sizeof(core_value *) * ((size_t)8 << i));
    ctx->n_old_pages = 0;
    if (ctx->scopes) rt_free(ctx->mem, ctx->scopes, sizeof(scope_rec) * (size_t)ctx->cap_scopes);
    ctx->pages = NULL;
    ctx->scopes = NULL;
}

static int add_page(cj_ctx *ctx) {
    core_value *page = rt_calloc(ctx->mem, sizeof(core_value) * VALUE_PAGE_SIZE);
    if (!page) return -1;
    if (ctx->n_pages == ctx->cap_pages) {
        uint32_t cap = ctx->cap_pages ? ctx->cap_pages * 2 : 8;
        core_value **pages = ctx->n_old_pages < 32 ? rt_alloc(ctx->mem, sizeof(core_value *) * cap) : NULL;
        if (!pages) {
            rt_free(ctx->mem, page, sizeof(core_value) * VALUE_PAGE_SIZE);
            return -1;
        }
        if (ctx->n_pages) memcpy(pages, ctx->pages, sizeof(core_value *) * ctx->n_pages);
        if (ctx->pages) ctx->old_pages[ctx->n_old_pages++] = ctx->pages;
        ctx->pages = pages;
        ctx->cap_pages = cap;
    }
    ctx->pages[ctx->n_pages++] = page;
    return 0;
}

static void scope_link(cj_ctx *ctx, uint32_t slot, int depth) {
    core_value *v = core_slot(ctx, slot);
    v->scope = depth;
    v->prev = 0;
    v->next = ctx->scopes[depth].head;
    if (v->next) core_slot(ctx, v->next)->prev = slot;
    ctx->scopes[depth].head = slot;
}

static void scope_unlink(cj_ctx *ctx, uint32_t slot) {
    core_value *v = core_slot(ctx, slot);
    if (v->prev) core_slot(ctx, v->prev)->next = v->next;
    else ctx->scopes[v->scope].head = v->next;
    if (v->next) core_slot(ctx, v->next)->prev = v->prev;
    v->prev = v->next = 0;
}

cj_val core_new_value(cj_ctx *ctx, core_value **out) {
    *out = NULL;
    uint32_t slot;
    if (ctx->free_head) {
        slot = ctx->free_head;
        ctx->free_head = core_slot(ctx, slot)->next;
    } else {
        if (ctx->n_slots == ctx->n_pages * VALUE_PAGE_SIZE && add_page(ctx) != 0) {
            core_oom(ctx, "new value");
            return core_err_val(ctx);
        }
        slot = ctx->n_slots++;
    }
    core_value *v = core_slot(ctx, slot);
    uint32_t gen = v->gen + 1;
    if (gen == 0) gen = 1;
    memset(v, 0, sizeof *v);
    v->gen = gen;
    if (slot != 0) scope_link(ctx, slot, ctx->n_scopes - 1);
    *out = v;
    cj_val h = {ctx, slot, gen};
    return h;
}

cj_val core_wrap_array(cj_ctx *ctx, rt_array *arr) {
    core_value *v;
    cj_val h = core_new_value(ctx, &v);
    if (!v) {
        rt_array_unref(arr);
        return h;
    }
    v->kind = VALUE_ARRAY;
    v->arr = arr;
    v->aval = arr->aval;
    return h;
}

void core_release(cj_ctx *ctx, uint32_t slot) {
    core_value *v = core_slot(ctx, slot);
    if (v->kind == VALUE_FREE) return;
    scope_unlink(ctx, slot);
    rt_array_unref(v->arr);
    v->was_tracer = v->kind == VALUE_TRACER;
    v->was_donated = 0;
    v->kind = VALUE_FREE;
    v->arr = NULL;
    v->gen++;
    if (v->gen == 0) v->gen = 1;
    v->next = ctx->free_head;
    ctx->free_head = slot;
}

core_value *core_peek(cj_val h) {
    cj_ctx *ctx = h.ctx;
    if (!ctx || h.slot == 0 || h.slot >= ctx->n_slots) return NULL;
    core_value *v = core_slot(ctx, h.slot);
    if (v->kind == VALUE_FREE || v->gen != h.gen) return NULL;
    if (v->kind == VALUE_TRACER &&
        (v->level >= ctx->n_traces || ctx->traces[v->level]->id != v->trace_id))
        return NULL;
    return v;
}

core_value *core_get(cj_val h, const char *op) {
    cj_ctx *ctx = h.ctx;
    if (!ctx) { /* nothing to record in but the thread's record (ctx.c) */
        core_error(NULL, CJ_ERR_ARG, "%s: no context (the value is an error value made without one)", op);
        return NULL;
    }
    core_value *v = core_peek(h);
    if (v) return v;
    if (h.slot == 0) {
        core_error(ctx, CJ_ERR_ARG, "%s: argument is an error value (the result of an earlier failed operation)",
                   op);
        return NULL;
    }
    if (h.slot >= ctx->n_slots) {
        core_error(ctx, CJ_ERR_ARG, "%s: argument is not a value of this context", op);
        return NULL;
    }
    core_value *s = core_slot(ctx, h.slot);
    if (s->kind == VALUE_FREE && s->was_donated && s->gen == h.gen + 1) {
        core_error(ctx, CJ_ERR_LEAKED,
                   "%s: the value was donated to a jitted function (donate_argnums) and its buffer now "
                   "holds that call's output; a donated value cannot be used again",
                   op);
        return NULL;
    }
    if (s->kind == VALUE_TRACER || (s->kind == VALUE_FREE && s->was_tracer) ||
        (s->gen != h.gen && s->was_tracer))
        core_error(ctx, CJ_ERR_LEAKED,
                   "%s: a traced value was used after its trace ended (a leaked tracer): values made "
                   "while tracing a function exist only inside it; return them as outputs instead",
                   op);
    else
        core_error(ctx, CJ_ERR_LEAKED,
                   "%s: a value was used after it was freed (its scope ended or cj_val_free was "
                   "called); keep it with cj_scope_end's keep list",
                   op);
    return NULL;
}

static int scope_begin_held(cj_ctx *ctx);

int cj_scope_begin(cj_ctx *ctx) {
    if (!ctx) return core_error(NULL, CJ_ERR_ARG, "cj_scope_begin: ctx is NULL");
    if (core_enter(ctx, "cj_scope_begin") != 0) return -1;
    int depth = scope_begin_held(ctx);
    core_leave(ctx);
    return depth;
}

static int scope_begin_held(cj_ctx *ctx) {
    if (ctx->n_scopes == ctx->cap_scopes) {
        scope_rec *s = rt_realloc(ctx->mem, ctx->scopes, sizeof(scope_rec) * (size_t)ctx->cap_scopes,
                                  sizeof(scope_rec) * (size_t)ctx->cap_scopes * 2);
        if (!s) {
            core_oom(ctx, "cj_scope_begin");
            return -1;
        }
        ctx->scopes = s;
        ctx->cap_scopes *= 2;
    }
    ctx->scopes[ctx->n_scopes].head = 0;
    return ctx->n_scopes++;
}

/* Moves a kept value to the enclosing scope, and with it the values a
 * tracer wraps (a vmap tracer's batched value), which must live as long. */
static void keep_value(cj_ctx *ctx, cj_val h, int depth) {
    core_value *v = core_peek(h);
    if (!v || v->scope != depth) return;
    scope_unlink(ctx, h.slot);
    scope_link(ctx, h.slot, depth - 1);
    if (v->kind == VALUE_TRACER)
        for (int i = 0; i < 2; i++)
            if (v->sub[i].slot) keep_value(ctx, v->sub[i], depth);
}

/* Ends the innermost scope whatever the trace floor: used by tracing. */
void core_scope_end(cj_ctx *ctx, int n_keep, const cj_val *keep) {
    int depth = ctx->n_scopes - 1;
    if (depth <= 0) return;
    for (int i = 0; i < n_keep; i++) keep_value(ctx, keep[i], depth);
    while (ctx->scopes[depth].head) core_release(ctx, ctx->scopes[depth].head);
    ctx->n_scopes--;
}

void cj_scope_end(cj_ctx *ctx, int n_keep, const cj_val *keep) {
    if (!ctx) {
        core_error(NULL, CJ_ERR_ARG, "cj_scope_end: ctx is NULL");
        return;
    }
    if (core_enter(ctx, "cj_scope_end") != 0) return;
    if (n_keep < 0 || (n_keep > 0 && !keep))
        core_error(ctx, CJ_ERR_ARG, "cj_scope_end: keep is NULL for %d values (or n_keep is negative)", n_keep);
    else if (ctx->n_scopes - 1 <= ctx->scope_floor)
        core_error(ctx, CJ_ERR_ARG,
                   "cj_scope_end: no scope is open%s (each cj_scope_end needs a cj_scope_begin)",
                   ctx->scope_floor ? " inside the function being traced" : "");
    else
        core_scope_end(ctx, n_keep, keep);
    core_leave(ctx);
}

void cj_val_free(cj_val h) {
    if (!h.ctx || core_enter(h.ctx, "cj_val_free") != 0) return;
    if (core_peek(h)) core_release(h.ctx, h.slot);
    core_leave(h.ctx);
}

/* ---- queries ---- */
int cj_is_error(cj_val h) { return core_peek(h) == NULL; }

static const rt_aval *aval_of(cj_val h, const char *op) {
    core_value *v = core_get(h, op);
    return v ? &v->aval : NULL;
}

cj_dtype cj_val_dtype(cj_val h) {
    const rt_aval *a = aval_of(h, "cj_val_dtype");
    return a ? a->dtype : CJ_F32;
}

int cj_val_rank(cj_val h) {
    const rt_aval *a = aval_of(h, "cj_val_rank");
    return a ? a->rank : -1;
}

int64_t cj_val_dim(cj_val h, int axis) {
    const rt_aval *a = aval_of(h, "cj_val_dim");
    if (!a) return -1;
    if (axis < 0) axis += a->rank;
    if (axis < 0 || axis >= a->rank) {
        char t[96];
        rt_aval_str(a, t, sizeof t);
        core_error(h.ctx, CJ_ERR_AXIS, "cj_val_dim: axis %d out of range for %s", axis, t);
        return -1;
    }
    return a->dims[axis];
}

int64_t cj_val_size(cj_val h) {
    const rt_aval *a = aval_of(h, "cj_val_size");
    return a ? rt_aval_size(a) : -1;
}

int cj_val_weak(cj_val h) {
    const rt_aval *a = aval_of(h, "cj_val_weak");
    return a ? a->weak : 0;
}

int cj_val_is_traced(cj_val h) {
    core_value *v = core_get(h, "cj_val_is_traced");
    return v && v->kind == VALUE_TRACER;
}

int cj_val_shape(cj_val h, int64_t *dims) {
    const rt_aval *a = aval_of(h, "cj_val_shape");
    if (!a) return -1;
    if (!dims) return core_error(h.ctx, CJ_ERR_ARG, "cj_val_shape: dims is NULL");
    for (int i = 0; i < a->rank; i++) dims[i] = a->dims[i];
    return a->rank;
}

char *cj_val_type_str(cj_val h, char *buf, size_t size) {
    if (!buf) {
        core_error(h.ctx, CJ_ERR_ARG, "cj_val_type_str: buf is NULL");
        return NULL;
    }
    if (!size) return buf;
    core_value *v = core_peek(h);
    if (!v) snprintf(buf, size, "<error>");
    else rt_aval_str(&v->aval, buf, size);
    return buf;
}

int core_spec_aval(cj_ctx *ctx, const char *op, int i, const cj_spec *s, rt_aval *out) {
    if (!rt_dtype_valid((int)s->dtype))
        return core_error(ctx, CJ_ERR_DTYPE, "%s: spec %d has dtype %d, which is not a dtype", op, i, (int)s->dtype);
    if (s->rank < 0 || s->rank > CJ_MAX_RANK)
        return core_error(ctx, CJ_ERR_SHAPE, "%s: spec %d has rank %d, outside 0..%d (cj_spec_make marks a rank it cannot hold, or dims NULL, with -1)",
                          op, i, s->rank, CJ_MAX_RANK);
    rt_shape_status st = rt_shape_check(s->rank, s->dims);
    if (st != RT_SHAPE_OK) {
        char t[200];
        rt_dims_str(s->rank, s->dims, t, sizeof t);
        return core_error(ctx, CJ_ERR_SHAPE, "%s: spec %d of shape %s %s", op, i, t, rt_shape_status_text(st));
    }
    *out = rt_aval_make(s->dtype, s->rank, s->dims);
    out->weak = s->weak != 0;
    return 0;
}
