/* core.h — the core layer's internal interface: the context, values and
 * scopes, the sticky error, the trace stack and primitive binding, the IR,
 * and function objects.
 *
 * Values are slots in per-context pages addressed by (slot, generation), so
 * a stale handle — a value freed by its scope, or a tracer that outlived its
 * trace — is detected and reported, never dereferenced. */
#ifndef CJ_CORE_H
#define CJ_CORE_H

#include <stdarg.h>
#include <stdatomic.h>

#include "../prim/prim.h"
#include "../runtime/runtime.h"

/* ---- values ---- */
typedef enum value_kind { VALUE_FREE = 0, VALUE_ARRAY, VALUE_TRACER } value_kind;

typedef struct core_value {
    uint32_t gen;
    uint8_t kind;       /* value_kind */
    uint8_t was_tracer; /* for the message when a freed slot is used */
    uint8_t was_donated; /* ... and when it was consumed by a donation */
    int scope;          /* depth of the owning scope */
    uint32_t prev, next; /* the owning scope's list; the free list */
    rt_aval aval;
    rt_array *arr;      /* VALUE_ARRAY */
    int level;          /* VALUE_TRACER: its trace's level */
    uint64_t trace_id;  /* ...and that trace's unique id */
    int var;            /* staging traces: the IR variable */
    cj_val sub[2];      /* other traces' payload (primal/tangent, batched value) */
    int64_t tag;        /* other traces' payload (batch axis, ...) */
} core_value;

#define VALUE_PAGE_BITS 10
#define VALUE_PAGE_SIZE (1u << VALUE_PAGE_BITS)
#define MAX_TRACES 64

/* ---- traces ---- */
typedef struct core_trace core_trace;
#define CORE_TRACE_AXES 4
typedef struct trace_ops {
    const char *name; /* "eval", "jit", ... (used in messages) */
    /* Applies prim to inputs, some of which may belong to lower levels and
     * must be lifted. Writes the single output value. Returns 0 or -1 with
     * the error recorded. */
    int (*process)(cj_ctx *ctx, core_trace *t, prim_id prim, const prim_params *p, int n_in,
                   const cj_val *in, cj_val *out);
    /* The same for a primitive with several results (multiple_results):
     * writes all n_out of them. */
    int (*process_multi)(cj_ctx *ctx, core_trace *t, prim_id prim, const prim_params *p, int n_in,
                         const cj_val *in, int n_out, cj_val *out);
} trace_ops;

struct core_trace {
    int level;
    uint64_t id;
    const trace_ops *ops;
    void *state;
    const char *what; /* what is being traced, for messages ("jit of 'f'") */
    /* The named axes this trace binds (a cj_vmap with axis_name binds one;
     * a shard_map would bind its mesh's): name ids (prim_name_id) and
     * sizes. Collectives find them through core_axis_find only. */
    int n_axes;
    int axis_name[CORE_TRACE_AXES];
    int64_t axis_size[CORE_TRACE_AXES];
};

typedef struct scope_rec {
    uint32_t head; /* first value slot of this scope's list (0: none) */
} scope_rec;

typedef struct cj_func cj_func;

struct cj_ctx {
    rt_mem *mem;
    cj_status err;
    char msg[1024]; /* preallocated: recording an error never allocates */

    /* One thread at a time (core_enter): the thread inside the API with
     * this context (0: none), how deeply; a refused thread's message. */
    _Atomic uintptr_t owner;
    int owner_depth;
    _Atomic int conflict; /* 0 none, 1 being written, 2 conflict_msg ready */
    char conflict_msg[256];

    core_value **pages;
    uint32_t n_pages, n_slots, free_head;
    /* The page table grows by doubling and its earlier copies are kept
     * until the context ends: a thread refused by core_enter may already
     * be reading a slot through an old copy, which must stay valid. */
    uint32_t cap_pages;
    core_value **old_pages[32];
    int n_old_pages;

    scope_rec *scopes;
    int n_scopes, cap_scopes;
    int scope_floor; /* scopes at or below this depth belong to a trace */

    core_trace *traces[MAX_TRACES];
    int n_traces;      /* traces[0] is the eval trace */
    int dynamic_level; /* innermost staging trace (0: none) */
    /* the level of the trace whose program ad_linearize will split by
     * partial evaluation (0: none): a jvp rule whose equation lands there
     * may need to bind its primal apart, known to the split (while_loop) */
    int linearize_level;
    uint64_t next_trace_id;

    cj_func *funcs; /* every function object, freed with the context */

    /* The planned working memory of the SINGLE kernel running now (set by
     * the interpreter's run_single from the plan, NULL outside one), handed
     * out once by core_workspace; how often core_workspace had to allocate
     * instead (tests read it). */
    void *workspace;
    size_t workspace_bytes;
    uint64_t workspace_allocs;
};

/* ---- one thread at a time ----
 * A context is used by one thread at a time. The entry points that make,
 * use or free values (core_bind, cj_call, creation, scopes, reads) take it
 * with core_enter and give it back with core_leave; the same thread may
 * re-enter (a user function calling operations inside cj_call). Another
 * thread arriving while it is held is refused without touching the
 * context's state: core_enter returns -1 and the caller returns an error
 * value or status at once. The refusal is recorded apart (conflict_msg,
 * published atomically): cj_error / cj_error_message read it from any
 * thread, and the holder turns it into the sticky error when it next
 * enters or leaves. Cost: a thread-local address, a compare and, on the
 * outermost entry, one atomic exchange. */
int core_enter(cj_ctx *ctx, const char *op);
void core_leave(cj_ctx *ctx);

/* A new context (NULL when out of memory). cj_ctx_new (src/init.c) is
 * this after the one init that fills the rule table; the library's own
 * contexts (a background build's) use this directly. */
cj_ctx *core_ctx_new(const cj_allocator *alloc);

/* ---- errors ---- */
/* Records the first error (later ones are dropped: the first is the cause).
 * Returns -1 so callers can `return core_error(...)`. */
int core_error(cj_ctx *ctx, cj_status code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int core_verror(cj_ctx *ctx, cj_status code, const char *fmt, va_list ap);
int core_oom(cj_ctx *ctx, const char *where);
static inline cj_val core_err_val(cj_ctx *ctx) {
    cj_val v = {ctx, 0, 0};
    return v;
}

/* ---- an eager kernel's working memory ----
 * `bytes` for the kernel now running: the block its plan reserved, when
 * it runs under jit and the block is that large (*owned = 0), else from
 * the context's allocator (*owned = 1; NULL after the out-of-memory error,
 * naming `what`). Give it back with core_workspace_done. */
void *core_workspace(cj_ctx *ctx, size_t bytes, int *owned, const char *what);
void core_workspace_done(cj_ctx *ctx, void *w, size_t bytes, int owned);

/* ---- per-equation tables ----
 * An equation has no fixed limit on its operands or results (a construct
 * whose body's linearization saves hundreds of residuals has hundreds of
 * each). A path that needs a table per operand or result passes a small
 * one of its own (on the stack, PRIM_SMALL_OPERANDS or
 * PRIM_SMALL_RESULTS entries, enough for nearly every equation):
 * core_table returns it when n fits, else a block of n elements from the
 * context's allocator (NULL with the out-of-memory error recorded, naming
 * `what`). core_table_free gives a block back and leaves `small` alone. */
static inline void *core_table(cj_ctx *ctx, void *small, int n_small, int n, size_t elem, const char *what) {
    if (n <= n_small) return small;
    void *t = rt_alloc(ctx->mem, elem * (size_t)n);
    if (!t) core_oom(ctx, what);
    return t;
}
static inline void core_table_free(cj_ctx *ctx, void *t, void *small, int n, size_t elem) {
    if (t && t != small) rt_free(ctx->mem, t, elem * (size_t)n);
}

/* A rule's or a runtime loop's tables, sized by its construct: each
 * core_tables_get is a zeroed block of n elements (at least one) from the
 * context's allocator, NULL with the out-of-memory error recorded (and
 * t->failed set); core_tables_free gives back every block. */
#define CORE_TABLES_MAX 24
typedef struct core_tables {
    cj_ctx *ctx;
    int n, failed;
    void *block[CORE_TABLES_MAX];
    size_t bytes[CORE_TABLES_MAX];
} core_tables;
static inline void *core_tables_get(core_tables *t, int n, size_t elem, const char *what) {
    if (t->failed) return NULL;
    size_t bytes = elem * (size_t)(n > 0 ? n : 1);
    void *b = t->n < CORE_TABLES_MAX ? rt_calloc(t->ctx->mem, bytes) : NULL;
    if (!b) {
        t->failed = 1;
        if (t->n < CORE_TABLES_MAX) core_oom(t->ctx, what);
        else core_error(t->ctx, CJ_ERR_INTERNAL, "%s: more than %d tables", what, CORE_TABLES_MAX);
        return NULL;
    }
    t->block[t->n] = b;
    t->bytes[t->n++] = bytes;
    return b;
}
static inline void core_tables_free(core_tables *t) {
    for (int i = 0; i < t->n; i++) rt_free(t->ctx->mem, t->block[i], t->bytes[i]);
    t->n = 0;
}

/* ---- values and scopes ---- */
static inline core_value *core_slot(cj_ctx *ctx, uint32_t slot) {
    return &ctx->pages[slot >> VALUE_PAGE_BITS][slot & (VALUE_PAGE_SIZE - 1)];
}
/* The live value behind a handle, or NULL after recording why (error value,
 * stale handle, foreign context). `op` names the operation for messages. */
core_value *core_get(cj_val v, const char *op);
/* Looks up without recording anything. */
core_value *core_peek(cj_val v);
/* New value in the current scope (kind still VALUE_FREE for the caller to
 * fill); returns the handle or an error value on out of memory. */
cj_val core_new_value(cj_ctx *ctx, core_value **out);
/* The type a spec describes, after the central shape check (an invalid
 * dtype, rank or shape is CJ_ERR_SHAPE / CJ_ERR_DTYPE naming `op` and
 * spec i; cj_spec_make marks a rank it cannot hold with rank -1). */
int core_spec_aval(cj_ctx *ctx, const char *op, int i, const cj_spec *s, rt_aval *out);
/* Wraps an array (takes the reference). On failure unrefs it. */
cj_val core_wrap_array(cj_ctx *ctx, rt_array *arr);
void core_release(cj_ctx *ctx, uint32_t slot);
/* Ends the innermost scope regardless of the trace floor (tracing uses it). */
void core_scope_end(cj_ctx *ctx, int n_keep, const cj_val *keep);
int core_values_init(cj_ctx *ctx);
void core_values_fini(cj_ctx *ctx);
int core_traces_init(cj_ctx *ctx);
void core_traces_fini(cj_ctx *ctx);

/* ---- the trace stack and binding ---- */
/* Applies a primitive through the current traces: the innermost trace among
 * the inputs' and the dynamic (staging) one processes it. */
cj_val core_bind(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in);
/* The same for a primitive with several results: writes all n_out of them
 * (which must be how many its abstract_eval_multi gives). 0, or -1 with the
 * error recorded and error values in out. */
int core_bind_multi(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in, int n_out,
                    cj_val *out);
/* Pushes a trace at the next level; returns it or NULL (error recorded). */
core_trace *core_push_trace(cj_ctx *ctx, const trace_ops *ops, void *state, const char *what);
void core_pop_trace(cj_ctx *ctx, core_trace *t);
/* ---- the axis environment ----
 * The one lookup of a named axis (docs/COLLECTIVES.md): the innermost
 * live trace that binds name id `name` (an inner binding shadows an outer
 * one, as in JAX). Returns its level and writes the axis size, or -1 when
 * no trace binds it. core_bind routes a collective primitive through it
 * (a collective is processed by at least the trace of each axis it names);
 * the public collectives read sizes through it. */
int core_axis_find(const cj_ctx *ctx, int name, int64_t *size);
/* Axis names as ids (axis_names.c, one table per process): the id of a
 * name (added when new), -1 for NULL, "", a name longer than
 * CORE_AXIS_NAME_MAX or a full table; and the text of an id. */
#define CORE_AXIS_NAME_MAX 63
int core_axis_name_id(const char *name);
const char *core_axis_name_str(int id);
/* The names every live trace binds, innermost first, as "'i', 'j'" (or
 * "none"), for messages. */
void core_axis_names(const cj_ctx *ctx, char *buf, size_t size);
/* The trace owning a value (traces[0] for arrays). */
core_trace *core_value_trace(cj_ctx *ctx, const core_value *v);
/* Validates inputs for the eval trace and checks dtypes/shapes. */
int core_eval_process(cj_ctx *ctx, core_trace *t, prim_id prim, const prim_params *p, int n_in,
                      const cj_val *in, cj_val *out);
int core_eval_process_multi(cj_ctx *ctx, core_trace *t, prim_id prim, const prim_params *p, int n_in,
                            const cj_val *in, int n_out, cj_val *out);
/* Result types of any primitive: one (*n_out = 1) through abstract_eval, or
 * several through abstract_eval_multi (out has room for `room`; a rule of
 * more results is an error), each passing the central check. */
int core_abstract_eval_multi(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const rt_aval *in,
                             int room, int *n_out, rt_aval *out);
/* Runs any primitive eagerly: allocates its n_out results and calls impl
 * (or impl_multi). 0, or -1 with the error recorded (out[] then NULL). */
int core_apply_impl_multi(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, rt_array *const *in,
                          int n_out, const rt_aval *out_avals, rt_array **out);
/* Runs abstract_eval for a primitive (checks arity first). */
int core_abstract_eval(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const rt_aval *in,
                       rt_aval *out);
/* The central check of a result type (rt_shape_check) that
 * core_abstract_eval applies to every primitive's result: 0, or -1 with a
 * CJ_ERR_SHAPE naming the primitive, the result and the operands. */
int core_check_result(cj_ctx *ctx, prim_id prim, int n_in, const rt_aval *in, const rt_aval *out);
/* Runs a primitive eagerly on arrays: allocates the output and calls impl. */
rt_array *core_apply_impl(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in,
                          rt_array *const *in, const rt_aval *out_aval);

/* ---- custom-derivative calls ---- */
/* One call of a function with a user-written derivative (cj_custom_jvp /
 * cj_custom_vjp) traced into a program: the program holds a primitive
 * whose params.ref is the record, by reference (as a construct holds its
 * bodies). The record keeps the function traced for the call's input
 * types (so the compiler can inline it and eager evaluation can run it)
 * and the rule functions autodiff calls, a reference to each; it is freed
 * with the last equation naming it. */
typedef enum core_custom_kind { CUSTOM_JVP, CUSTOM_VJP } core_custom_kind;
typedef struct core_custom {
    prim_ref ref; /* first: params.ref points here */
    cj_ctx *ctx;
    core_custom_kind kind;
    cj_func *f, *jvp_rule, *fwd, *bwd;
    struct ir_func *primal; /* f for this call's input types (owned) */
    rt_aval out;            /* its one output's type */
} core_custom;
/* A new record like `init` (taking its primal program and a reference to
 * each of its functions), with one reference, the caller's; NULL on out of
 * memory (the program is then freed). */
core_custom *core_custom_new(cj_ctx *ctx, const core_custom *init);
/* The record an equation's parameters hold. */
static inline const core_custom *core_custom_of(const prim_params *p) { return (const core_custom *)p->ref; }

/* ---- growable text ---- */
typedef struct strbuf {
    rt_mem *mem;
    char *data;
    size_t len, cap;
    int failed; /* an allocation failed: the text is truncated */
} strbuf;
void sb_init(strbuf *sb, rt_mem *mem);
void sb_printf(strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_free(strbuf *sb);

#endif
