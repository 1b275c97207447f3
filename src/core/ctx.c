/* ctx.c — contexts, the sticky error and growable text (core layer).
 *
 * The error message buffer lives inside the context, so recording an error
 * (out of memory included) never allocates. The first error wins: later
 * failures are consequences and are not recorded over it. Errors with no
 * context to go to are kept per thread. The one-thread-at-a-time check
 * (core_enter / core_leave, contract in core.h) lives here too, since a
 * refusal ends in the error state. */
#include <stdio.h>
#include <string.h>

#include "core.h"
#include "func.h"

/* The public cj_ctx_new (src/init.c, above every layer) registers the
 * rules first; contexts made inside the library (the native backend's
 * build context) come after one made by the user, so the table is full. */
cj_ctx *core_ctx_new(const cj_allocator *alloc) {
    rt_mem *mem = rt_mem_new(alloc);
    if (!mem) return NULL;
    cj_ctx *ctx = rt_calloc(mem, sizeof *ctx);
    if (!ctx) {
        rt_mem_delete(mem);
        return NULL;
    }
    ctx->mem = mem;
    ctx->next_trace_id = 1;
    if (core_values_init(ctx) != 0 || core_traces_init(ctx) != 0) {
        cj_ctx_free(ctx);
        return NULL;
    }
    return ctx;
}

void cj_ctx_free(cj_ctx *ctx) {
    if (!ctx) return;
    rt_mem *mem = ctx->mem;
    func_free_all(ctx);
    core_values_fini(ctx);
    core_traces_fini(ctx);
    rt_free(mem, ctx, sizeof *ctx);
    rt_mem_delete(mem);
}

void cj_mem_stats_get(cj_ctx *ctx, cj_mem_stats *out) {
    if (!out) {
        core_error(ctx, CJ_ERR_ARG, "cj_mem_stats_get: out is NULL");
        return;
    }
    memset(out, 0, sizeof *out);
    if (ctx) rt_mem_stats(ctx->mem, out);
    else core_error(NULL, CJ_ERR_ARG, "cj_mem_stats_get: ctx is NULL");
}

void cj_mem_trim(cj_ctx *ctx) {
    if (ctx) rt_mem_trim(ctx->mem);
}

/* Errors with no context to go to (a NULL ctx, only error values without
 * one, cj_concatenate of nothing): the calling thread's first such error,
 * read back with cj_error(NULL) / cj_error_message(NULL). */
static _Thread_local cj_status orphan_err;
static _Thread_local char orphan_msg[512];

/* ---- one thread at a time (core.h) ---- */
static _Thread_local char thread_token; /* its address names the thread */

static void promote_conflict(cj_ctx *ctx) {
    if (atomic_load_explicit(&ctx->conflict, memory_order_acquire) == 2 && !ctx->err)
        core_error(ctx, CJ_ERR_ARG, "%s", ctx->conflict_msg);
}

int core_enter(cj_ctx *ctx, const char *op) {
    uintptr_t me = (uintptr_t)&thread_token, none = 0;
    if (atomic_load_explicit(&ctx->owner, memory_order_relaxed) == me) {
        ctx->owner_depth++;
        return 0;
    }
    if (atomic_compare_exchange_strong_explicit(&ctx->owner, &none, me, memory_order_acquire, memory_order_relaxed)) {
        ctx->owner_depth = 1;
        promote_conflict(ctx);
        return 0;
    }
    int expect = 0; /* the first refused thread writes the message */
    if (atomic_compare_exchange_strong_explicit(&ctx->conflict, &expect, 1, memory_order_acquire, memory_order_relaxed)) {
        snprintf(ctx->conflict_msg, sizeof ctx->conflict_msg,
                 "%s: the context is in use by another thread at the same time (a context is used by one thread at "
                 "a time: give each thread its own)",
                 op);
        atomic_store_explicit(&ctx->conflict, 2, memory_order_release);
    }
    return -1;
}

void core_leave(cj_ctx *ctx) {
    if (--ctx->owner_depth > 0) return;
    promote_conflict(ctx);
    atomic_store_explicit(&ctx->owner, 0, memory_order_release);
}

cj_status cj_error(cj_ctx *ctx) {
    if (!ctx) return CJ_ERR_ARG;
    /* a refused thread reads only what was published for it */
    if (atomic_load_explicit(&ctx->conflict, memory_order_acquire) == 2) return CJ_ERR_ARG;
    return ctx->err;
}

const char *cj_error_message(cj_ctx *ctx) {
    if (!ctx) return orphan_err ? orphan_msg : "no context (NULL)";
    if (atomic_load_explicit(&ctx->conflict, memory_order_acquire) == 2) return ctx->conflict_msg;
    return ctx->err ? ctx->msg : "";
}

void cj_error_clear(cj_ctx *ctx) {
    if (!ctx) {
        orphan_err = CJ_OK;
        orphan_msg[0] = 0;
        return;
    }
    if (core_enter(ctx, "cj_error_clear") != 0) return;
    atomic_store_explicit(&ctx->conflict, 0, memory_order_relaxed);
    ctx->err = CJ_OK;
    ctx->msg[0] = 0;
    core_leave(ctx);
}

const char *cj_status_name(cj_status s) {
    switch (s) {
    case CJ_OK: return "CJ_OK";
    case CJ_ERR_SHAPE: return "CJ_ERR_SHAPE";
    case CJ_ERR_DTYPE: return "CJ_ERR_DTYPE";
    case CJ_ERR_AXIS: return "CJ_ERR_AXIS";
    case CJ_ERR_ARG: return "CJ_ERR_ARG";
    case CJ_ERR_CONCRETIZATION: return "CJ_ERR_CONCRETIZATION";
    case CJ_ERR_LEAKED: return "CJ_ERR_LEAKED";
    case CJ_ERR_OOM: return "CJ_ERR_OOM";
    case CJ_ERR_IO: return "CJ_ERR_IO";
    case CJ_ERR_FORMAT: return "CJ_ERR_FORMAT";
    case CJ_ERR_UNSUPPORTED: return "CJ_ERR_UNSUPPORTED";
    case CJ_ERR_INTERNAL: return "CJ_ERR_INTERNAL";
    }
    return "CJ_ERR_?";
}

int core_verror(cj_ctx *ctx, cj_status code, const char *fmt, va_list ap) {
    if (!ctx) {
        if (!orphan_err) {
            orphan_err = code;
            vsnprintf(orphan_msg, sizeof orphan_msg, fmt, ap);
        }
        return -1;
    }
    if (ctx->err) return -1;
    ctx->err = code;
    vsnprintf(ctx->msg, sizeof ctx->msg, fmt, ap);
    return -1;
}

int core_error(cj_ctx *ctx, cj_status code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    core_verror(ctx, code, fmt, ap);
    va_end(ap);
    return -1;
}

int core_oom(cj_ctx *ctx, const char *where) {
    return core_error(ctx, CJ_ERR_OOM, "%s: out of memory", where);
}

/* ---- an eager kernel's working memory ---- */
void *core_workspace(cj_ctx *ctx, size_t bytes, int *owned, const char *what) {
    if (ctx->workspace && ctx->workspace_bytes >= bytes) {
        void *w = ctx->workspace;
        ctx->workspace = NULL; /* once: nothing the kernel calls may take it again */
        *owned = 0;
        return w;
    }
    *owned = 1;
    ctx->workspace_allocs++;
    void *w = rt_alloc(ctx->mem, bytes ? bytes : 1);
    if (!w) core_oom(ctx, what);
    return w;
}

void core_workspace_done(cj_ctx *ctx, void *w, size_t bytes, int owned) {
    if (owned && w) rt_free(ctx->mem, w, bytes ? bytes : 1);
}

/* ---- strbuf ---- */
void sb_init(strbuf *sb, rt_mem *mem) {
    memset(sb, 0, sizeof *sb);
    sb->mem = mem;
}

void sb_printf(strbuf *sb, const char *fmt, ...) {
    if (sb->failed) return;
    va_list ap;
    va_start(ap, fmt);
    char tmp[256];
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    size_t need = sb->len + (size_t)n + 1;
    if (need > sb->cap) {
        size_t cap = sb->cap ? sb->cap : 256;
        while (cap < need) cap *= 2;
        char *d = rt_realloc(sb->mem, sb->data, sb->cap, cap);
        if (!d) {
            sb->failed = 1;
            return;
        }
        sb->data = d;
        sb->cap = cap;
    }
    if ((size_t)n < sizeof tmp) {
        memcpy(sb->data + sb->len, tmp, (size_t)n + 1);
    } else {
        va_start(ap, fmt);
        vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    sb->len += (size_t)n;
}

void sb_free(strbuf *sb) {
    if (sb->data) rt_free(sb->mem, sb->data, sb->cap);
    memset(sb, 0, sizeof *sb);
}
