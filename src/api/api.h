/* api.h — helpers shared by the public operations (api layer).
 *
 * The public cj_* operations follow jax.numpy: they promote dtypes by JAX's
 * lattice (with weak types), broadcast NumPy-style, then bind strict
 * lax-style primitives (equal dtypes; equal shapes, except that rank-0
 * operands of elementwise primitives broadcast for free). */
#ifndef CJ_API_H
#define CJ_API_H

#include "../core/core.h"

/* The context of the first operand that has one; NULL if none. An operand
 * without a context beside one with is recorded there as an error. */
cj_ctx *api_ctx_of(int n, const cj_val *v);
/* An error value for the context of v (also when v is itself an error). */
static inline cj_val api_err(cj_ctx *ctx) { return core_err_val(ctx); }

/* A NULL context (or only operands without one): nothing to record in, so
 * the calling thread's record of such errors gets "op: what" (read with
 * cj_error(NULL) / cj_error_message(NULL)); returns an error value. */
static inline cj_val api_no_ctx(const char *op, const char *what) {
    core_error(NULL, CJ_ERR_ARG, "%s: %s", op, what);
    return core_err_val(NULL);
}
#define API_NO_OPERAND_CTX "no context (every operand is an error value without one)"
#define API_NO_VALUE_CTX "the value has no context (an error value made without one)"

/* JAX's type promotion over the operands' dtypes and weak types. */
void api_result_type(int n, const rt_aval *avals, cj_dtype *dtype, int *weak);
/* Joins two (dtype, weak) pairs by the lattice. */
void api_join_types(cj_dtype a, int a_weak, cj_dtype b, int b_weak, cj_dtype *dt, int *weak);
/* x converted to dtype (and weak flag); x itself when already so. */
cj_val api_convert(cj_val x, cj_dtype dtype, int weak);
/* NumPy broadcasting of shapes; error names `op`. 0 or -1. */
int api_broadcast_shapes(cj_ctx *ctx, const char *op, int n, const rt_aval *avals, int *rank,
                         int64_t *dims);
/* x broadcast to (rank, dims) NumPy-style (a no-op when already so). */
cj_val api_broadcast_to(cj_val x, int rank, const int64_t *dims);
/* Arrays over caller memory (borrow.c). The checks of a new shape as
 * cj_array makes them (dtype, rank, dims, size); 0 or -1 recorded. */
int api_check_shape(cj_ctx *ctx, const char *op, cj_dtype dtype, int rank, const int64_t *dims);
/* The largest power of two (up to 1 MiB) that divides the address. */
size_t api_pointer_alignment(const void *p);
/* Caller memory for an array of type a: non-NULL when it has bytes, size
 * at least its bytes, aligned to its element size. `what` names the
 * buffer in the message ("data", "output 1's buffer"). 0 or -1 recorded. */
int api_check_buffer(cj_ctx *ctx, const char *op, const char *what, const rt_aval *a, const void *data,
                     size_t size);
/* A borrowed array value over data (api_check_buffer, and bools 0/1);
 * release runs exactly once: at the last reference, or before returning
 * an error value. */
cj_val api_borrow(cj_ctx *ctx, const char *op, const rt_aval *a, const void *data, size_t size,
                  cj_release_fn release, void *user);

/* .npy pieces for .npz members (npy.c). The version 1.0 header of a's
 * type into head (640 bytes room); returns its length, a multiple of 64. */
size_t npy_header_write(const rt_array *a, unsigned char *head);
/* One .npy read from f's position to its end (an in-memory stream for a
 * member); errors are "<where>: <what is wrong>", CJ_ERR_FORMAT. */
cj_val npy_read_stream(cj_ctx *ctx, FILE *f, const char *where);
/* Tests only (npz.c): write zip64 records even for small archives, so
 * the >4 GiB path is exercised without 4 GiB. */
extern int npz_force_zip64;

/* The aval of a live value, or NULL after recording why. */
const rt_aval *api_aval(cj_val v, const char *op);

/* Elementwise n-ary primitive NumPy-style: promote the operands together
 * (when promote is set), broadcast to a common shape (rank-0 operands are
 * left as scalars), bind. */
cj_val api_elementwise(prim_id prim, int n, const cj_val *in, int promote);
/* The float dtype jnp computes a dtype in (to_inexact_dtype): floats
 * themselves, i64 → f64, i32 and bool → f32. */
cj_dtype api_inexact_dtype(cj_dtype dt);
/* Unary primitive on floats only: ints and bools promote by
 * api_inexact_dtype, as jnp.sin(int_array) does. */
cj_val api_float_unary(prim_id prim, cj_val x);
/* A weakly typed rank-0 constant held at dt's precision (cj_scalar rounds
 * to f32, which would lose digits of an f64 computation's constants): it
 * joins an operand of dtype dt without changing its type, and under tracing
 * it is a constant, not an equation. */
cj_val api_weak_constant(cj_ctx *ctx, double c, cj_dtype dt);

/* Normalises an axis against rank (negative counts from the end); -1 with
 * an error naming op when out of range. */
int api_axis(cj_ctx *ctx, const char *op, int64_t axis, int rank, int64_t *out);
/* Normalises a list of axes (n < 0 with axes NULL: all); rejects repeats.
 * Writes a sorted list and returns its length, or -1. */
int api_axes(cj_ctx *ctx, const char *op, int n, const int64_t *axes, int rank, int64_t *out);

#endif
