/* func.h — function objects (core layer).
 *
 * A cj_func is anything callable on values: a user's C function or the
 * result of a transformation (jit here; vmap, grad, ... later). Each kind
 * supplies `call`; transformations hold the function they wrap in `inner`
 * and their own state in `state`, freed through `free_state`. Every
 * function belongs to its context and is freed with it. */
#ifndef CJ_FUNC_H
#define CJ_FUNC_H

#include "core.h"
#include "ir.h"

typedef struct func_ops {
    const char *kind; /* "fn", "jit", ... */
    int (*call)(cj_func *f, const cj_val *in, cj_val *out);
    void (*free_state)(cj_func *f);
} func_ops;

#define FUNC_MEMO 8

struct cj_func {
    cj_ctx *ctx;
    char *name;
    int n_in, n_out;
    int refs;     /* the creator's reference (until cj_func_free) + each holder's */
    int released; /* cj_func_free dropped the creator's reference */
    int closing;  /* func_free_all is freeing every object: releases do nothing */
    const func_ops *ops;
    cj_fn fn; /* kind "fn" */
    void *user;
    cj_func *inner; /* transformations: the wrapped function */
    void *state;
    cj_func *next; /* the context's list */
    /* Objects derived from this function that a later call may reuse (the
     * control-flow records traced from it: cf_record_dedupe), one
     * reference each, dropped when the function is freed. */
    prim_ref *memo[FUNC_MEMO];
    int next_memo; /* round-robin replacement */
    cj_func *live_next; /* the registry of live function objects (func.c) */
};

/* Lifetimes: a function object starts with one reference, its creator's
 * (the user's, for what the API returns), dropped by cj_func_free. Whatever
 * else keeps a pointer to it takes a reference: a transformation its inner
 * function (retained when set; released by the generic free after the
 * wrapper's free_state), a state the functions it calls (released in its
 * free_state), a custom-derivative record the functions it names (for the
 * context's life). The object is freed when the last reference goes, so
 * freeing f while jit(f) lives leaves f to jit(f). func_retain returns f
 * (NULL-safe). */
cj_func *func_retain(cj_func *f);
void func_release(cj_func *f);
/* Remembers r in f->memo (taking a reference), replacing the oldest. */
void func_memo_add(cj_func *f, prim_ref *r);

/* f when it is a live function object — made by cj_func_new or a
 * transformation, not freed, its context not freed — else NULL. It never
 * reads *f unless f is live (a process-wide registry of live objects is
 * consulted first), so a stale pointer is an error, not a use after free.
 * With `caller`, f must also belong to it. A failure is CJ_ERR_ARG naming
 * `op` and `what`, recorded in caller when given (a freed context has no
 * error to record into: then only NULL says it). */
cj_func *func_check(cj_ctx *caller, cj_func *f, const char *op, const char *what);

/* A new function object of the given kind, linked into ctx's list. */
cj_func *func_new(cj_ctx *ctx, const char *name, const func_ops *ops, int n_in, int n_out);
void func_free_all(cj_ctx *ctx);

/* Traces f for the given input types into a new IR. static_vals[i] (when
 * static_vals and static_vals[i].ctx are set) is passed as the concrete
 * value of input i instead of a tracer, and becomes no IR input. `what`
 * names the trace in messages. Returns NULL with the error recorded. */
ir_func *func_trace_to_ir(cj_func *f, const rt_aval *in_avals, const cj_val *static_vals,
                          const char *what);

/* The program the innermost staging trace is recording (where equations
 * bound now land, whatever traces sit above it), or NULL when nothing is
 * being staged. Markers such as checkpoint set its cur_region. */
ir_func *func_staging_ir(cj_ctx *ctx);

/* Re-binding a program's equations (a jitted function under another
 * trace, the jvp of a traced function) keeps their regions: begin, then
 * region_rebind_eqn before binding each equation, then end. No-ops when
 * nothing is staged or the program has no regions. */
typedef struct region_rebind {
    ir_func *dst;
    const ir_func *src;
    int saved;
    int *map;
} region_rebind;
void region_rebind_begin(cj_ctx *ctx, region_rebind *rb, const ir_func *src);
void region_rebind_eqn(region_rebind *rb, const ir_eqn *e);
void region_rebind_end(cj_ctx *ctx, region_rebind *rb);

/* Closure conversion: values from outside the traced function that it
 * reads — traced values of enclosing transformations (a loop body using the
 * weights of the jitted function around it) and arrays made before the
 * trace began — become extra inputs of the IR, after the declared ones, in
 * the order met; vals[i] is the outer value behind input n_in + i. So the
 * IR depends only on types, and the same body traced again is the same
 * program. */
#define FUNC_MAX_CLOSURE 64
typedef struct func_closure {
    int n;
    cj_val vals[FUNC_MAX_CLOSURE];
    int vars[FUNC_MAX_CLOSURE];
} func_closure;

/* The general form: traces body(ctx, in, out, user), which reads n_in
 * values and writes n_out (at most 128 each), returning 0 or -1. `fname`
 * names the traced function in messages. With `closure`, outer tracers are
 * converted as above; without, reading one is an error. */
typedef int (*func_body_fn)(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user);
ir_func *func_trace_body(cj_ctx *ctx, int n_in, const rt_aval *in_avals, const cj_val *static_vals, int n_out,
                         func_body_fn body, void *user, const char *fname, const char *what, func_closure *closure);
/* func_trace_to_ir with closure conversion (control-flow bodies). */
ir_func *func_trace_closed(cj_func *f, const rt_aval *in_avals, const char *what, func_closure *closure);

#endif
