/* shape.c — the public shape operations (api layer): cj_broadcast_in_dim,
 * cj_broadcast_to, cj_reshape, cj_transpose, cj_squeeze, cj_expand_dims,
 * cj_slice, cj_dynamic_slice, cj_dynamic_update_slice, cj_concatenate,
 * cj_pad and cj_rev (cj_iota lives with the other creators in create.c).
 *
 * These do what jax.numpy does before it reaches lax: normalise negative
 * axes, infer a -1 reshape size, pick defaults (reverse the axes, squeeze
 * every size-1 axis), promote dtypes across concatenated arrays and convert
 * update and padding values to the operand's dtype. Every check of shapes
 * against parameters is left to the primitive's abstract_eval
 * (src/prim/shape.c), so one message serves eager and traced calls. An
 * operation that would change nothing (a reshape to the same shape, an
 * identity transpose, squeezing no axis) returns its operand, as JAX does. */
#include <stdio.h>
#include <string.h>

#include "api.h"

/* The aval of x, or NULL when x is an error value or the context already
 * holds an error (recording why, if not yet recorded). */
static const rt_aval *operand(cj_val x, const char *op) {
    if (!x.ctx) {
        core_error(NULL, CJ_ERR_ARG, "%s: %s", op, API_NO_VALUE_CTX);
        return NULL;
    }
    if (x.ctx->err) return NULL;
    return api_aval(x, op);
}

/* The aval of a further operand of an operation on ctx, or NULL after
 * recording why (also when v has no context at all). */
static const rt_aval *other_operand(cj_ctx *ctx, cj_val v, const char *op, const char *what) {
    if (v.ctx != ctx) {
        core_error(ctx, CJ_ERR_ARG, "%s: %s belongs to another context (or is an error value without one)", op, what);
        return NULL;
    }
    return api_aval(v, op);
}

static cj_val fail(cj_ctx *ctx, cj_status code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static cj_val fail(cj_ctx *ctx, cj_status code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    core_verror(ctx, code, fmt, ap);
    va_end(ap);
    return api_err(ctx);
}

static int check_rank(cj_ctx *ctx, const char *op, int rank, const int64_t *shape) {
    if (rank < 0 || rank > CJ_MAX_RANK)
        return core_error(ctx, CJ_ERR_SHAPE, "%s: rank %d is outside 0..%d", op, rank, CJ_MAX_RANK);
    if (rank && !shape) return core_error(ctx, CJ_ERR_ARG, "%s: shape is NULL for rank %d", op, rank);
    return 0;
}

static void set_ivec(prim_ivec *v, int n, const int64_t *values) {
    v->n = n;
    for (int i = 0; i < n; i++) v->v[i] = values ? values[i] : 0;
}

cj_val cj_broadcast_in_dim(cj_val x, int rank, const int64_t *shape, const int64_t *dims) {
    const rt_aval *a = operand(x, "cj_broadcast_in_dim");
    if (!a) return api_err(x.ctx);
    if (check_rank(x.ctx, "cj_broadcast_in_dim", rank, shape) != 0) return api_err(x.ctx);
    if (a->rank && !dims)
        return fail(x.ctx, CJ_ERR_ARG, "cj_broadcast_in_dim: dims is NULL for an operand of rank %d", a->rank);
    prim_params p = prim_params_zero();
    set_ivec(&p.shape, rank, shape);
    set_ivec(&p.axes, a->rank, dims);
    return core_bind(x.ctx, PRIM_BROADCAST_IN_DIM, &p, 1, &x);
}

cj_val cj_broadcast_to(cj_val x, int rank, const int64_t *shape) {
    const rt_aval *a = operand(x, "cj_broadcast_to");
    if (!a) return api_err(x.ctx);
    if (check_rank(x.ctx, "cj_broadcast_to", rank, shape) != 0) return api_err(x.ctx);
    return api_broadcast_to(x, rank, shape);
}

cj_val cj_reshape(cj_val x, int rank, const int64_t *shape) {
    const rt_aval *a = operand(x, "cj_reshape");
    if (!a) return api_err(x.ctx);
    if (check_rank(x.ctx, "cj_reshape", rank, shape) != 0) return api_err(x.ctx);
    char t[96], s[160];
    rt_aval_str(a, t, sizeof t);
    rt_dims_str(rank, shape, s, sizeof s);
    prim_params p = prim_params_zero();
    set_ivec(&p.shape, rank, shape);
    int inferred = -1;
    int64_t known = 1;
    for (int i = 0; i < rank; i++) {
        if (shape[i] == -1) {
            if (inferred >= 0) return fail(x.ctx, CJ_ERR_SHAPE, "cj_reshape: more than one -1 in the new shape %s", s);
            inferred = i;
        } else if (shape[i] < 0) {
            return fail(x.ctx, CJ_ERR_SHAPE, "cj_reshape: negative size in the new shape %s", s);
        } else if (shape[i] && known > INT64_MAX / 16 / shape[i]) {
            return fail(x.ctx, CJ_ERR_SHAPE, "cj_reshape: the new shape %s is too large", s);
        } else {
            known *= shape[i];
        }
    }
    int64_t size = rt_aval_size(a);
    if (inferred >= 0) {
        /* numpy: a -1 next to a zero size is ambiguous, so an error */
        if (known == 0 || size % known != 0)
            return fail(x.ctx, CJ_ERR_SHAPE, "cj_reshape: cannot reshape %s (%lld elements) to %s", t,
                        (long long)size, s);
        p.shape.v[inferred] = size / known;
    }
    if (a->rank == rank && memcmp(a->dims, p.shape.v, sizeof(int64_t) * (size_t)rank) == 0) return x;
    return core_bind(x.ctx, PRIM_RESHAPE, &p, 1, &x);
}

cj_val cj_transpose(cj_val x, const int64_t *perm) {
    const rt_aval *a = operand(x, "cj_transpose");
    if (!a) return api_err(x.ctx);
    int r = a->rank, identity = 1;
    unsigned seen = 0;
    prim_params p = prim_params_zero();
    p.axes.n = r;
    for (int i = 0; i < r; i++) {
        int64_t ax = r - 1 - i;
        if (perm && api_axis(x.ctx, "cj_transpose", perm[i], r, &ax) != 0) return api_err(x.ctx);
        if (seen & (1u << ax)) {
            char s[160];
            rt_dims_str(r, perm, s, sizeof s);
            return fail(x.ctx, CJ_ERR_AXIS, "cj_transpose: %s is not a permutation: axis %lld is repeated", s,
                        (long long)ax);
        }
        seen |= 1u << ax;
        p.axes.v[i] = ax;
        identity &= ax == i;
    }
    if (identity) return x;
    return core_bind(x.ctx, PRIM_TRANSPOSE, &p, 1, &x);
}

cj_val cj_squeeze(cj_val x, int n_axes, const int64_t *axes) {
    const rt_aval *a = operand(x, "cj_squeeze");
    if (!a) return api_err(x.ctx);
    prim_params p = prim_params_zero();
    if (n_axes < 0 || !axes) {
        for (int i = 0; i < a->rank; i++)
            if (a->dims[i] == 1) p.axes.v[p.axes.n++] = i;
    } else {
        int k = api_axes(x.ctx, "cj_squeeze", n_axes, axes, a->rank, p.axes.v);
        if (k < 0) return api_err(x.ctx);
        p.axes.n = k;
        for (int i = 0; i < k; i++)
            if (a->dims[p.axes.v[i]] != 1) {
                char t[96];
                rt_aval_str(a, t, sizeof t);
                return fail(x.ctx, CJ_ERR_SHAPE, "cj_squeeze: cannot squeeze axis %lld of %s: its size is %lld, not 1",
                            (long long)p.axes.v[i], t, (long long)a->dims[p.axes.v[i]]);
            }
    }
    if (p.axes.n == 0) return x;
    return core_bind(x.ctx, PRIM_SQUEEZE, &p, 1, &x);
}

cj_val cj_expand_dims(cj_val x, int64_t axis) {
    const rt_aval *a = operand(x, "cj_expand_dims");
    if (!a) return api_err(x.ctx);
    char t[96];
    rt_aval_str(a, t, sizeof t);
    if (a->rank == CJ_MAX_RANK)
        return fail(x.ctx, CJ_ERR_SHAPE, "cj_expand_dims: %s already has the maximum rank %d", t, CJ_MAX_RANK);
    /* numpy: a negative axis counts in the result, whose rank is one more */
    int out_rank = a->rank + 1;
    if (axis < -out_rank || axis >= out_rank)
        return fail(x.ctx, CJ_ERR_AXIS, "cj_expand_dims: axis %lld is out of range for %s (result rank %d)",
                    (long long)axis, t, out_rank);
    prim_params p = prim_params_zero();
    p.axes.n = 1;
    p.axes.v[0] = axis < 0 ? axis + out_rank : axis;
    return core_bind(x.ctx, PRIM_EXPAND_DIMS, &p, 1, &x);
}

cj_val cj_slice(cj_val x, const int64_t *start, const int64_t *limit, const int64_t *strides) {
    const rt_aval *a = operand(x, "cj_slice");
    if (!a) return api_err(x.ctx);
    if (a->rank && (!start || !limit))
        return fail(x.ctx, CJ_ERR_ARG, "cj_slice: %s is NULL for an operand of rank %d", !start ? "start" : "limit",
                    a->rank);
    /* lax.slice: no negative indices, no clipping; the primitive checks
     * 0 <= start <= limit <= size and names the axis that fails */
    prim_params p = prim_params_zero();
    set_ivec(&p.lo, a->rank, start);
    set_ivec(&p.hi, a->rank, limit);
    if (strides) set_ivec(&p.step, a->rank, strides);
    return core_bind(x.ctx, PRIM_SLICE, &p, 1, &x);
}

/* lax's allow_negative_indices (the default of lax.dynamic_slice and
 * dynamic_update_slice): a negative start counts from the end of its axis,
 * start + dim, before the primitive clamps the window into the operand as
 * XLA does; so dynamic_slice(arange(5), -1, 2) is [3, 4]. Written with
 * operations, as jax's _dynamic_slice_indices does, so a traced or batched
 * start gets it in every backend and transformation; the primitive keeps
 * XLA's clamp-only meaning for the rules that bind it directly. A start
 * that is not a live rank-0 integer of ctx goes on unchanged: the
 * primitive's check names what is wrong with it. */
static cj_val start_from_end(cj_ctx *ctx, cj_val s, int64_t dim, const char *op) {
    if (s.ctx != ctx || cj_is_error(s)) return s;
    const rt_aval *a = api_aval(s, op);
    if (!a) return api_err(ctx);
    if (a->rank != 0 || !rt_is_int(a->dtype)) return s;
    /* an i32 start of an axis longer than i32 can count computes in i64 */
    cj_dtype dt = a->dtype == CJ_I32 && dim > INT32_MAX ? CJ_I64 : a->dtype;
    if (dt != a->dtype) s = api_convert(s, dt, 0);
    cj_val neg = cj_lt(s, cj_scalar_typed(ctx, 0, dt));
    return cj_where(neg, cj_add(s, cj_scalar_typed(ctx, (double)dim, dt)), s);
}

cj_val cj_dynamic_slice(cj_val x, const cj_val *start, const int64_t *sizes) {
    const rt_aval *a = operand(x, "cj_dynamic_slice");
    if (!a) return api_err(x.ctx);
    if (a->rank && (!start || !sizes))
        return fail(x.ctx, CJ_ERR_ARG, "cj_dynamic_slice: %s is NULL for an operand of rank %d",
                    !start ? "start" : "sizes", a->rank);
    prim_params p = prim_params_zero();
    set_ivec(&p.shape, a->rank, sizes);
    cj_val in[1 + CJ_MAX_RANK];
    in[0] = x;
    int64_t dims[CJ_MAX_RANK];
    memcpy(dims, a->dims, sizeof(int64_t) * (size_t)a->rank);
    for (int d = 0; d < a->rank; d++) in[1 + d] = start_from_end(x.ctx, start[d], dims[d], "cj_dynamic_slice");
    return core_bind(x.ctx, PRIM_DYNAMIC_SLICE, &p, 1 + a->rank, in);
}

cj_val cj_dynamic_update_slice(cj_val x, cj_val update, const cj_val *start) {
    const rt_aval *a = operand(x, "cj_dynamic_update_slice");
    if (!a) return api_err(x.ctx);
    if (a->rank && !start)
        return fail(x.ctx, CJ_ERR_ARG, "cj_dynamic_update_slice: start is NULL for an operand of rank %d", a->rank);
    if (!other_operand(x.ctx, update, "cj_dynamic_update_slice", "the update")) return api_err(x.ctx);
    int rank = a->rank;
    /* as x.at[...].set(update): the update takes x's dtype and weak type */
    cj_val in[2 + CJ_MAX_RANK];
    in[0] = x;
    in[1] = api_convert(update, a->dtype, a->weak);
    int64_t dims[CJ_MAX_RANK];
    memcpy(dims, a->dims, sizeof(int64_t) * (size_t)rank);
    for (int d = 0; d < rank; d++) in[2 + d] = start_from_end(x.ctx, start[d], dims[d], "cj_dynamic_update_slice");
    prim_params p = prim_params_zero();
    return core_bind(x.ctx, PRIM_DYNAMIC_UPDATE_SLICE, &p, 2 + rank, in);
}

/* Binds concatenate over xs (already one dtype), in groups when there are
 * more operands than one equation takes. */
static cj_val concat_converted(cj_ctx *ctx, int n, const cj_val *xs, int64_t axis) {
    enum { MAX_OPERANDS = 64 };
    prim_params p = prim_params_zero();
    p.axes.n = 1;
    p.axes.v[0] = axis;
    if (n <= MAX_OPERANDS) return core_bind(ctx, PRIM_CONCATENATE, &p, n, xs);
    cj_val parts[MAX_OPERANDS];
    int per = (n + MAX_OPERANDS - 1) / MAX_OPERANDS, k = 0;
    for (int at = 0; at < n; at += per) parts[k++] = concat_converted(ctx, n - at < per ? n - at : per, xs + at, axis);
    return core_bind(ctx, PRIM_CONCATENATE, &p, k, parts);
}

cj_val cj_concatenate(int n, const cj_val *xs, int64_t axis) {
    /* with nothing to concatenate there is no context to record in */
    if (n <= 0) return api_no_ctx("cj_concatenate", "needs at least one value (n = 0)");
    if (!xs) return api_no_ctx("cj_concatenate", "xs is NULL");
    cj_ctx *ctx = api_ctx_of(n, xs);
    if (!ctx) return api_no_ctx("cj_concatenate", API_NO_OPERAND_CTX);
    if (ctx->err) return api_err(ctx);
    const rt_aval *first = other_operand(ctx, xs[0], "cj_concatenate", "operand 0");
    if (!first) return api_err(ctx);
    if (first->rank == 0) return fail(ctx, CJ_ERR_SHAPE, "cj_concatenate: rank-0 arrays cannot be concatenated");
    int64_t ax;
    if (api_axis(ctx, "cj_concatenate", axis, first->rank, &ax) != 0) return api_err(ctx);
    cj_dtype dt = first->dtype;
    int weak = first->weak;
    for (int i = 1; i < n; i++) {
        char what[32];
        snprintf(what, sizeof what, "operand %d", i);
        const rt_aval *a = other_operand(ctx, xs[i], "cj_concatenate", what);
        if (!a) return api_err(ctx);
        api_join_types(dt, weak, a->dtype, a->weak, &dt, &weak);
    }
    if (n == 1) return xs[0];
    /* convert in the caller's scope: the values are ordinary intermediates */
    cj_val *conv = rt_alloc(ctx->mem, sizeof(cj_val) * (size_t)n);
    if (!conv) {
        core_oom(ctx, "cj_concatenate");
        return api_err(ctx);
    }
    for (int i = 0; i < n; i++) conv[i] = api_convert(xs[i], dt, weak);
    cj_val r = concat_converted(ctx, n, conv, ax);
    rt_free(ctx->mem, conv, sizeof(cj_val) * (size_t)n);
    return r;
}

cj_val cj_pad(cj_val x, cj_val pad_value, const int64_t *lo, const int64_t *hi, const int64_t *interior) {
    const rt_aval *a = operand(x, "cj_pad");
    if (!a) return api_err(x.ctx);
    if (a->rank && (!lo || !hi))
        return fail(x.ctx, CJ_ERR_ARG, "cj_pad: %s is NULL for an operand of rank %d", !lo ? "lo" : "hi", a->rank);
    const rt_aval *v = other_operand(x.ctx, pad_value, "cj_pad", "the padding value");
    if (!v) return api_err(x.ctx);
    if (v->rank != 0) {
        char t[96];
        rt_aval_str(v, t, sizeof t);
        return fail(x.ctx, CJ_ERR_SHAPE, "cj_pad: the padding value must be a scalar, got %s", t);
    }
    prim_params p = prim_params_zero();
    set_ivec(&p.lo, a->rank, lo);
    set_ivec(&p.hi, a->rank, hi);
    set_ivec(&p.step, a->rank, interior); /* NULL: zeros */
    /* as jnp.pad: the value takes x's dtype and weak type */
    cj_val in[2] = {x, api_convert(pad_value, a->dtype, a->weak)};
    return core_bind(x.ctx, PRIM_PAD, &p, 2, in);
}

cj_val cj_rev(cj_val x, int n_axes, const int64_t *axes) {
    const rt_aval *a = operand(x, "cj_rev");
    if (!a) return api_err(x.ctx);
    prim_params p = prim_params_zero();
    int k = api_axes(x.ctx, "cj_rev", n_axes, axes, a->rank, p.axes.v);
    if (k < 0) return api_err(x.ctx);
    if (k == 0) return x;
    p.axes.n = k;
    return core_bind(x.ctx, PRIM_REV, &p, 1, &x);
}
