/* reduce.c — the public reductions and scans, and the composites built on
 * them (api layer): cj_sum, cj_prod, cj_reduce_max, cj_reduce_min,
 * cj_reduce_and, cj_reduce_or, cj_reduce_xor,
 * cj_argmax, cj_argmin, cj_cumsum, cj_cumprod, cj_cummax, cj_mean, cj_var,
 * cj_logsumexp, cj_softmax, cj_log_softmax.
 *
 * These do what jax.numpy does before it reaches lax: normalise the axes
 * (negative ones count from the end; NULL axes or n_axes < 0 mean all of
 * them; a repeated axis is an error), sum and multiply bools and narrow
 * integers in the default int (i32, u32 for unsigned) and f16/bf16 in f32, keep
 * reduced axes as size 1 with a reshape after the primitive (keepdims), and
 * compute means, variances and softmaxes in floating point (ints and bools
 * become f32, the default float). Errors about the user's axes are
 * reported here with the operand's type; everything about what reaches a
 * primitive is checked by its abstract_eval (src/prim/reduce.c), so eager
 * and traced calls say the same thing. */
#include <string.h>

#include "api.h"

/* Copies x's aval into *a; 0, or -1 when x is an error value or the
 * context already holds an error (recording why, if not yet recorded). */
static int operand(cj_val x, const char *op, rt_aval *a) {
    if (!x.ctx) return core_error(NULL, CJ_ERR_ARG, "%s: " API_NO_VALUE_CTX, op);
    if (x.ctx->err) return -1;
    const rt_aval *p = api_aval(x, op);
    if (!p) return -1;
    *a = *p;
    return 0;
}

static int axis_error(cj_ctx *ctx, const char *op, const char *what, int64_t axis, const rt_aval *a) {
    char t[128];
    rt_aval_str(a, t, sizeof t);
    core_error(ctx, CJ_ERR_AXIS, "%s: axis %lld %s for %s", op, (long long)axis, what, t);
    return -1;
}

/* One axis of a (negative counts from the end) into *out; 0 or -1. */
static int normalize_axis(cj_ctx *ctx, const char *op, int64_t axis, const rt_aval *a, int64_t *out) {
    if (axis < -a->rank || axis >= a->rank) return axis_error(ctx, op, "is out of range", axis, a);
    *out = axis < 0 ? axis + a->rank : axis;
    return 0;
}

/* The axes a reduction of a covers, sorted, into out: every axis when axes
 * is NULL or n < 0. Returns their number, or -1 after recording why. */
static int normalize_axes(cj_ctx *ctx, const char *op, int n, const int64_t *axes, const rt_aval *a,
                          int64_t *out) {
    if (n < 0 || !axes) {
        for (int d = 0; d < a->rank; d++) out[d] = d;
        return a->rank;
    }
    unsigned seen = 0;
    for (int i = 0; i < n; i++) {
        int64_t ax;
        if (normalize_axis(ctx, op, axes[i], a, &ax) != 0) return -1;
        if (seen & (1u << ax)) return axis_error(ctx, op, "is repeated", axes[i], a);
        seen |= 1u << ax;
    }
    int k = 0;
    for (int d = 0; d < a->rank; d++)
        if (seen & (1u << d)) out[k++] = d;
    return k;
}

/* r (a reduction of an operand of type a over axes) with the reduced axes
 * put back as size 1. */
static cj_val keep_dims(cj_val r, const rt_aval *a, int n, const int64_t *axes) {
    if (n == 0) return r;
    int64_t shape[CJ_MAX_RANK];
    memcpy(shape, a->dims, sizeof(int64_t) * (size_t)a->rank);
    for (int i = 0; i < n; i++) shape[axes[i]] = 1;
    return cj_reshape(r, a->rank, shape);
}

/* The dtype jnp.sum and jnp.prod count in (x64 off): bools and integers
 * narrower than the default int promote to it (i32; unsigned ones to
 * u32); others keep theirs. */
static cj_dtype sum_dtype(cj_dtype dt) {
    switch (dt) {
    case CJ_BOOL:
    case CJ_I8:
    case CJ_I16: return CJ_I32;
    case CJ_U8:
    case CJ_U16: return CJ_U32;
    default: return dt;
    }
}

/* Binds a reduction over already normalised axes of x (type a). Sums and
 * products promote as jnp's (sum_dtype), and those of f16/bf16 are
 * computed in f32 and rounded once at the end, as jnp upcasts them
 * (`_upcast_f16_for_computation`); max and min keep the dtype. */
static cj_val reduce_axes(prim_id prim, cj_val x, const rt_aval *a, int n, const int64_t *axes,
                          int keepdims) {
    bool counts = prim == PRIM_REDUCE_SUM || prim == PRIM_REDUCE_PROD;
    bool upcast = counts && rt_is_narrow_float(a->dtype);
    if (upcast) x = api_convert(x, CJ_F32, 0);
    else if (counts && sum_dtype(a->dtype) != a->dtype) x = api_convert(x, sum_dtype(a->dtype), 0);
    prim_params p = prim_params_zero();
    p.axes.n = n;
    memcpy(p.axes.v, axes, sizeof(int64_t) * (size_t)n);
    cj_val r = core_bind(x.ctx, prim, &p, 1, &x);
    if (upcast) r = api_convert(r, a->dtype, a->weak);
    return keepdims ? keep_dims(r, a, n, axes) : r;
}

static cj_val reduction(const char *op, prim_id prim, cj_val x, int n_axes, const int64_t *axes,
                        int keepdims) {
    rt_aval a;
    int64_t ax[CJ_MAX_RANK];
    if (operand(x, op, &a) != 0) return api_err(x.ctx);
    int n = normalize_axes(x.ctx, op, n_axes, axes, &a, ax);
    if (n < 0) return api_err(x.ctx);
    return reduce_axes(prim, x, &a, n, ax, keepdims);
}

cj_val cj_sum(cj_val x, int n_axes, const int64_t *axes, int keepdims) {
    return reduction("cj_sum", PRIM_REDUCE_SUM, x, n_axes, axes, keepdims);
}

cj_val cj_prod(cj_val x, int n_axes, const int64_t *axes, int keepdims) {
    return reduction("cj_prod", PRIM_REDUCE_PROD, x, n_axes, axes, keepdims);
}

cj_val cj_reduce_max(cj_val x, int n_axes, const int64_t *axes, int keepdims) {
    return reduction("cj_reduce_max", PRIM_REDUCE_MAX, x, n_axes, axes, keepdims);
}

cj_val cj_reduce_min(cj_val x, int n_axes, const int64_t *axes, int keepdims) {
    return reduction("cj_reduce_min", PRIM_REDUCE_MIN, x, n_axes, axes, keepdims);
}

/* lax.reduce_and / reduce_or / reduce_xor (jnp.bitwise_and.reduce, ...):
 * bitwise over bool or an integer dtype, which they keep (no promotion);
 * a float operand is refused by the primitive, naming it. */
cj_val cj_reduce_and(cj_val x, int n_axes, const int64_t *axes, int keepdims) {
    return reduction("cj_reduce_and", PRIM_REDUCE_AND, x, n_axes, axes, keepdims);
}

cj_val cj_reduce_or(cj_val x, int n_axes, const int64_t *axes, int keepdims) {
    return reduction("cj_reduce_or", PRIM_REDUCE_OR, x, n_axes, axes, keepdims);
}

cj_val cj_reduce_xor(cj_val x, int n_axes, const int64_t *axes, int keepdims) {
    return reduction("cj_reduce_xor", PRIM_REDUCE_XOR, x, n_axes, axes, keepdims);
}

/* ---- arg-reductions and scans ---- */

static cj_val arg_reduction(const char *op, prim_id prim, cj_val x, int64_t axis, int keepdims) {
    rt_aval a;
    int64_t ax;
    if (operand(x, op, &a) != 0 || normalize_axis(x.ctx, op, axis, &a, &ax) != 0) return api_err(x.ctx);
    prim_params p = prim_params_zero();
    p.axes.n = 1;
    p.axes.v[0] = ax;
    p.dtype = CJ_I32;
    cj_val r = core_bind(x.ctx, prim, &p, 1, &x);
    return keepdims ? keep_dims(r, &a, 1, &ax) : r;
}

cj_val cj_argmax(cj_val x, int64_t axis, int keepdims) {
    return arg_reduction("cj_argmax", PRIM_ARGMAX, x, axis, keepdims);
}

cj_val cj_argmin(cj_val x, int64_t axis, int keepdims) {
    return arg_reduction("cj_argmin", PRIM_ARGMIN, x, axis, keepdims);
}

static cj_val cumulative(const char *op, prim_id prim, cj_val x, int64_t axis, int reverse) {
    rt_aval a;
    int64_t ax;
    if (operand(x, op, &a) != 0 || normalize_axis(x.ctx, op, axis, &a, &ax) != 0) return api_err(x.ctx);
    if (a.dtype == CJ_BOOL && prim != PRIM_CUMMAX) x = api_convert(x, CJ_I32, 0);
    prim_params p = prim_params_zero();
    p.axes.n = 1;
    p.axes.v[0] = ax;
    p.flag = reverse != 0;
    return core_bind(x.ctx, prim, &p, 1, &x);
}

cj_val cj_cumsum(cj_val x, int64_t axis, int reverse) {
    return cumulative("cj_cumsum", PRIM_CUMSUM, x, axis, reverse);
}

cj_val cj_cumprod(cj_val x, int64_t axis, int reverse) {
    return cumulative("cj_cumprod", PRIM_CUMPROD, x, axis, reverse);
}

cj_val cj_cummax(cj_val x, int64_t axis, int reverse) {
    return cumulative("cj_cummax", PRIM_CUMMAX, x, axis, reverse);
}

/* ---- composites ---- */

/* lax.stop_gradient. jax.nn.logsumexp, softmax and log_softmax shift by
 * the maximum under a stop_gradient: the shift cancels in the value, and
 * without it the derivative would go through reduce_max too (ties shared
 * out, a cancellation that is exact only in exact arithmetic). */
static cj_val stop_gradient(cj_val x) {
    prim_params p = prim_params_zero();
    return core_bind(x.ctx, PRIM_STOP_GRADIENT, &p, 1, &x);
}

/* x in floating point by jnp's to_inexact_dtype (i64 → f64, i32 and
 * bools → f32); the aval follows. */
static cj_val to_inexact(cj_val x, rt_aval *a) {
    if (rt_is_float(a->dtype)) return x;
    a->dtype = api_inexact_dtype(a->dtype);
    return api_convert(x, a->dtype, a->weak);
}

/* f16/bf16 x as f32, for jnp.mean and jnp.var, which compute in f32 and
 * round once at the end; the aval follows. */
static cj_val upcast_narrow(cj_val x, rt_aval *a) {
    if (!rt_is_narrow_float(a->dtype)) return x;
    a->dtype = CJ_F32;
    return api_convert(x, CJ_F32, 0);
}

/* The mean of float x over normalised axes: the sum divided by the count,
 * a strongly typed scalar of x's dtype (as jnp.mean's normaliser). */
static cj_val mean_axes(cj_val x, const rt_aval *a, int n, const int64_t *axes, int keepdims) {
    int64_t count = 1;
    for (int i = 0; i < n; i++) count *= a->dims[axes[i]];
    cj_val s = reduce_axes(PRIM_REDUCE_SUM, x, a, n, axes, keepdims);
    return cj_div(s, cj_scalar_typed(x.ctx, (double)count, a->dtype));
}

cj_val cj_mean(cj_val x, int n_axes, const int64_t *axes, int keepdims) {
    rt_aval a;
    int64_t ax[CJ_MAX_RANK];
    if (operand(x, "cj_mean", &a) != 0) return api_err(x.ctx);
    int n = normalize_axes(x.ctx, "cj_mean", n_axes, axes, &a, ax);
    if (n < 0) return api_err(x.ctx);
    x = to_inexact(x, &a);
    cj_dtype dt = a.dtype;
    x = upcast_narrow(x, &a);
    cj_val r = mean_axes(x, &a, n, ax, keepdims);
    return dt == a.dtype ? r : api_convert(r, dt, a.weak);
}

/* Population variance (ddof = 0): the mean of squared deviations from the
 * mean, as jnp.var. */
cj_val cj_var(cj_val x, int n_axes, const int64_t *axes, int keepdims) {
    rt_aval a;
    int64_t ax[CJ_MAX_RANK];
    if (operand(x, "cj_var", &a) != 0) return api_err(x.ctx);
    int n = normalize_axes(x.ctx, "cj_var", n_axes, axes, &a, ax);
    if (n < 0) return api_err(x.ctx);
    x = to_inexact(x, &a);
    cj_dtype dt = a.dtype;
    x = upcast_narrow(x, &a);
    cj_val centered = cj_sub(x, mean_axes(x, &a, n, ax, 1));
    cj_val r = mean_axes(cj_mul(centered, centered), &a, n, ax, keepdims);
    return dt == a.dtype ? r : api_convert(r, dt, a.weak);
}

/* log Σ exp x, shifted by the maximum so that nothing overflows: a row
 * whose maximum is not finite is shifted by 0 instead, so all -inf gives
 * log 0 = -inf and a +inf gives +inf (jax.nn.logsumexp). */
cj_val cj_logsumexp(cj_val x, int n_axes, const int64_t *axes, int keepdims) {
    rt_aval a;
    int64_t ax[CJ_MAX_RANK];
    if (operand(x, "cj_logsumexp", &a) != 0) return api_err(x.ctx);
    int n = normalize_axes(x.ctx, "cj_logsumexp", n_axes, axes, &a, ax);
    if (n < 0) return api_err(x.ctx);
    x = to_inexact(x, &a);
    cj_val m = reduce_axes(PRIM_REDUCE_MAX, x, &a, n, ax, 0);
    m = stop_gradient(cj_where(cj_is_finite(m), m, cj_scalar(x.ctx, 0.0)));
    cj_val m_kept = keep_dims(m, &a, n, ax);
    cj_val s = reduce_axes(PRIM_REDUCE_SUM, cj_exp(cj_sub(x, m_kept)), &a, n, ax, keepdims);
    return cj_add(cj_log(s), keepdims ? m_kept : m);
}

/* x minus its maximum along `axis` (the stable form both softmaxes start
 * from) into *shifted, with x's float type in *a and the normalised axis in
 * *ax. 0, or -1 after recording why. */
static int shift_by_max(const char *op, cj_val x, rt_aval *a, int64_t axis, int64_t *ax, cj_val *shifted) {
    if (operand(x, op, a) != 0 || normalize_axis(x.ctx, op, axis, a, ax) != 0) return -1;
    x = to_inexact(x, a);
    *shifted = cj_sub(x, stop_gradient(reduce_axes(PRIM_REDUCE_MAX, x, a, 1, ax, 1)));
    return 0;
}

cj_val cj_softmax(cj_val x, int64_t axis) {
    rt_aval a;
    int64_t ax;
    cj_val shifted;
    if (shift_by_max("cj_softmax", x, &a, axis, &ax, &shifted) != 0) return api_err(x.ctx);
    cj_val e = cj_exp(shifted);
    return cj_div(e, reduce_axes(PRIM_REDUCE_SUM, e, &a, 1, &ax, 1));
}

cj_val cj_log_softmax(cj_val x, int64_t axis) {
    rt_aval a;
    int64_t ax;
    cj_val shifted;
    if (shift_by_max("cj_log_softmax", x, &a, axis, &ax, &shifted) != 0) return api_err(x.ctx);
    cj_val lse = cj_log(reduce_axes(PRIM_REDUCE_SUM, cj_exp(shifted), &a, 1, &ax, 1));
    return cj_sub(shifted, lse);
}
