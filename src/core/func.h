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

struct cj_func {
    cj_ctx *ctx;
    char *name;
    int n_in, n_out;
    const func_ops *ops;
    cj_fn fn; /* kind "fn" */
    void *user;
    cj_func *inner; /* transformations: the wrapped function */
    void *state;
    cj_func *next; /* the context's list */
};

/* A new function object of the given kind, linked into ctx's list. */
cj_func *func_new(cj_ctx *ctx, const char *name, const func_ops *ops, int n_in, int n_out);
void func_free_all(cj_ctx *ctx);

/* Traces f for the given input types into a new IR. static_vals[i] (when
 * static_vals and static_vals[i].ctx are set) is passed as the concrete
 * value of input i instead of a tracer, and becomes no IR input. `what`
 * names the trace in messages. Returns NULL with the error recorded. */
ir_func *func_trace_to_ir(cj_func *f, const rt_aval *in_avals, const cj_val *static_vals,
                          const char *what);

#endif
