/* bind.h — the small strict helpers rules bind primitives through (prim
 * layer).
 *
 * The vmap rules (src/prim/), the jvp and transpose rules (src/autodiff/
 * rules_*.c, ad_util.c) build their results from primitives. They call
 * these, never the public cj_* operations above them (src/api/), which
 * promote dtypes, broadcast NumPy-style and normalise axes: a rule knows
 * the exact types it makes, so each helper binds exactly one primitive
 * (two for bind_expand) with the operands it is given. Nothing is
 * converted or broadcast behind the rule's back: the primitive's
 * abstract_eval checks dtypes and shapes, and a mismatch is an error that
 * names the primitive, a bug in the rule rather than a silent promotion.
 * Elementwise primitives take rank-0 operands beside shaped ones (that is
 * the primitive's own rule, not broadcasting).
 *
 * Like every operation, each returns an error value (slot 0) when an
 * operand is one or the context holds an error. As the public operations
 * do, a reshape to the same shape, an identity transpose and a convert to
 * the dtype a value already has return the operand itself. */
#ifndef CJ_PRIM_BIND_H
#define CJ_PRIM_BIND_H

#include "../core/core.h"

/* A concrete rank-0 array of `dtype` holding c (a constant once staged),
 * weakly typed when `weak`. */
cj_val bind_scalar(cj_ctx *ctx, double c, cj_dtype dtype, int weak);
/* c at every element of a strongly typed dtype[dims]: the scalar broadcast
 * (the scalar itself at rank 0). */
cj_val bind_full(cj_ctx *ctx, double c, cj_dtype dtype, int rank, const int64_t *dims);
/* iota: dtype[dims] counting along `axis` (0 <= axis < rank). */
cj_val bind_iota(cj_ctx *ctx, cj_dtype dtype, int rank, const int64_t *dims, int64_t axis);

/* Primitives of one or two operands and no parameters: the elementwise
 * ones (neg, add, mul, lt, and, ...; not convert) and stop_gradient. */
cj_val bind_unary(prim_id prim, cj_val x);
cj_val bind_binary(prim_id prim, cj_val a, cj_val b);
/* select_n: on_true where pred (bool), on_false elsewhere; bind_where is
 * the same with the cases in where's order. */
cj_val bind_select(cj_val pred, cj_val on_false, cj_val on_true);
cj_val bind_where(cj_val pred, cj_val on_true, cj_val on_false);
/* clamp(lo, x, hi), lo and hi rank 0 or x's shape. */
cj_val bind_clamp(cj_val lo, cj_val x, cj_val hi);
/* convert_element_type to a strongly typed dtype (x when it is one). */
cj_val bind_convert(cj_val x, cj_dtype dtype);

/* broadcast_in_dim: x's axis i becomes axis bdims[i] of dtype[dims]. */
cj_val bind_broadcast_in_dim(cj_val x, int rank, const int64_t *dims, const int64_t *bdims);
/* x, of the same rank as dims, with its size-1 axes stretched to dims
 * (x itself when the shapes are equal): a squeeze of those axes, then
 * broadcast_in_dim. Every other axis must already have its size. */
cj_val bind_expand(cj_val x, int rank, const int64_t *dims);
/* reshape to dims (same element count; x when the shape is the same). */
cj_val bind_reshape(cj_val x, int rank, const int64_t *dims);
/* transpose by a permutation of x's axes (x when it is the identity). */
cj_val bind_transpose(cj_val x, const int64_t *perm);
/* pad: lo/hi per axis (negative crops), interior NULL for none; value a
 * scalar of x's dtype. */
cj_val bind_pad(cj_val x, cj_val value, const int64_t *lo, const int64_t *hi, const int64_t *interior);
/* reduce_sum / reduce_prod / reduce_max / reduce_min over n distinct
 * axes of x, given in increasing order (the reduced axes are dropped). */
cj_val bind_reduce(prim_id prim, cj_val x, int n, const int64_t *axes);
/* cumsum / cumprod / cummax along axis (reverse: from the end). */
cj_val bind_cumulative(prim_id prim, cj_val x, int64_t axis, int reverse);
/* gather in its along-axis form: out[..., i, ...] = x[..., idx[..., i,
 * ...], ...] along `axis`, idx of x's shape but for that axis (indices
 * clamped into range, as the primitive does). */
cj_val bind_take_along(cj_val x, cj_val idx, int64_t axis);

#endif
