/* compose.h — helpers shared by the composite operations of the api layer
 * that issue 17 added (shape_compose.c, shape_split.c, reduce_stats.c,
 * scan_assoc.c, nn.c): operand checks whose messages carry the operand's
 * type, and axis normalisation that names the function and the shape.
 * Internal names start with compose_ (the library exports only cj_*). */
#ifndef CJ_API_COMPOSE_H
#define CJ_API_COMPOSE_H

#include "api.h"

/* The aval of x copied into *a; 0, or -1 when x is an error value or the
 * context holds an error (recording why when not yet recorded). */
int compose_operand(cj_val x, const char *op, rt_aval *a);
/* The aval of a further operand v of an operation on ctx into *a; 0, or
 * -1 after recording why (v of another context, or an error value). */
int compose_other(cj_ctx *ctx, cj_val v, const char *op, const char *what, rt_aval *a);
/* Records "op: axis A is out of range for T" (T the type of a, or "rank
 * R" when a is NULL) unless -rank <= axis < rank; writes the normalised
 * axis. 0 or -1. */
int compose_axis(cj_ctx *ctx, const char *op, int64_t axis, int rank, const rt_aval *a, int64_t *out);
/* Normalises n axes (n < 0 or axes NULL: all of a's), rejecting repeats
 * with a message naming op and a's type; writes them sorted into out and
 * returns their number, or -1. */
int compose_axes(cj_ctx *ctx, const char *op, int n, const int64_t *axes, const rt_aval *a, int64_t *out);
/* Records an error (printf-style) and returns an error value of ctx. */
cj_val compose_fail(cj_ctx *ctx, cj_status code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A scalar constant of dtype dt, weakly typed, so it never promotes x. */
cj_val compose_const(cj_ctx *ctx, double v, cj_dtype dt);
/* x in its inexact dtype (jnp's to_inexact_dtype), keeping its weak flag;
 * a->dtype follows. */
cj_val compose_inexact(cj_val x, rt_aval *a);
/* The product of a's sizes over the n axes. */
int64_t compose_count(const rt_aval *a, int n, const int64_t *axes);
/* lax.stop_gradient. */
cj_val compose_stop_gradient(cj_val x);

/* The combining function of an associative scan: out[i] from the n
 * values a[i] and b[i] (a before b). 0, or -1 with the error recorded. */
typedef int (*compose_combine_fn)(void *user, int n, const cj_val *a, const cj_val *b, cj_val *out);
/* lax.associative_scan of n arrays along a normalised axis (scan_assoc.c);
 * op names the caller in errors. 0, or -1 (out set to error values). */
int compose_associative_scan(cj_ctx *ctx, const char *op, compose_combine_fn f, void *user, int n,
                             const cj_val *elems, int64_t axis, int reverse, cj_val *out);

#endif
