/* reduce_stats.c — jax.numpy's further reductions, made of the reduction
 * primitives (api layer): cj_var_ddof, cj_std, cj_any, cj_all, cj_nansum,
 * cj_nanprod, cj_nanmax, cj_nanmin, cj_nanmean,
 * cj_nanvar, cj_nanstd, cj_nanargmax, cj_nanargmin, cj_average,
 * cj_average_weighted, cj_ptp, cj_count_nonzero, cj_cummin,
 * cj_cumlogsumexp.
 *
 * Each is jnp's definition: any/all reduce the operand's truth values
 * (x != 0, so NaN is true) with reduce_or/reduce_and on bools, as jnp's
 * programs do; the nan-reductions replace NaNs by the reduction's identity first
 * (and nanmax/nanmin give NaN where every value is NaN); cummin is cummax
 * of the order-reversing map (-x for floats, ~x for integers, !x for
 * bools); cumlogsumexp is an associative scan of a stable logaddexp, as
 * XLA's CPU lowering of lax.cumlogsumexp. Axes are checked here, naming
 * the function and the operand's type (compose.h). */
#include <math.h>
#include <string.h>

#include "compose.h"

/* The normalised axes of x (n_axes < 0 or axes NULL: all) into ax and the
 * aval into *a; their number, or -1. */
static int axes_of(cj_val x, const char *op, int n_axes, const int64_t *axes, rt_aval *a, int64_t *ax) {
    if (compose_operand(x, op, a) != 0) return -1;
    return compose_axes(x.ctx, op, n_axes, axes, a, ax);
}

/* jnp.var(x, axes, ddof): Σ(x - mean)² / (N - ddof), in x's inexact dtype
 * (N - ddof <= 0 gives inf or NaN, as JAX); f16/bf16 computed in f32 and
 * rounded once at the end, as jnp does. */
cj_val cj_var_ddof(cj_val x, int n_axes, const int64_t *axes, int64_t ddof, int keepdims) {
    rt_aval a;
    int64_t ax[CJ_MAX_RANK];
    int n = axes_of(x, "cj_var_ddof", n_axes, axes, &a, ax);
    if (n < 0) return api_err(x.ctx);
    x = compose_inexact(x, &a);
    cj_dtype dt = a.dtype;
    if (rt_is_narrow_float(dt)) {
        x = api_convert(x, CJ_F32, 0);
        a.dtype = CJ_F32;
    }
    cj_val c = cj_sub(x, cj_mean(x, n, ax, 1));
    cj_val s = cj_sum(cj_mul(c, c), n, ax, keepdims);
    cj_val r = cj_div(s, cj_scalar_typed(x.ctx, (double)(compose_count(&a, n, ax) - ddof), a.dtype));
    return dt == a.dtype ? r : api_convert(r, dt, a.weak);
}

cj_val cj_std(cj_val x, int n_axes, const int64_t *axes, int64_t ddof, int keepdims) {
    if (x.ctx && !x.ctx->err && !cj_is_error(x)) {
        rt_aval a;
        int64_t ax[CJ_MAX_RANK];
        if (axes_of(x, "cj_std", n_axes, axes, &a, ax) < 0) return api_err(x.ctx);
    }
    return cj_sqrt(cj_var_ddof(x, n_axes, axes, ddof, keepdims));
}

/* x's truth values (bool x as it is). */
static cj_val truth(cj_val x, const rt_aval *a) {
    return a->dtype == CJ_BOOL ? x : cj_ne(x, compose_const(x.ctx, 0, a->dtype));
}

static cj_val logical(const char *op, cj_val x, int n_axes, const int64_t *axes, int keepdims, int is_all) {
    rt_aval a;
    int64_t ax[CJ_MAX_RANK];
    int n = axes_of(x, op, n_axes, axes, &a, ax);
    if (n < 0) return api_err(x.ctx);
    cj_val t = truth(x, &a);
    return is_all ? cj_reduce_and(t, n, ax, keepdims) : cj_reduce_or(t, n, ax, keepdims);
}

cj_val cj_any(cj_val x, int n_axes, const int64_t *axes, int keepdims) {
    return logical("cj_any", x, n_axes, axes, keepdims, 0);
}

cj_val cj_all(cj_val x, int n_axes, const int64_t *axes, int keepdims) {
    return logical("cj_all", x, n_axes, axes, keepdims, 1);
}

cj_val cj_count_nonzero(cj_val x, int n_axes, const int64_t *axes, int keepdims) {
    rt_aval a;
    int64_t ax[CJ_MAX_RANK];
    int n = axes_of(x, "cj_count_nonzero", n_axes, axes, &a, ax);
    if (n < 0) return api_err(x.ctx);
    return cj_sum(truth(x, &a), n, ax, keepdims); /* bools sum as i32, as jnp's int_ */
}

cj_val cj_ptp(cj_val x, int n_axes, const int64_t *axes, int keepdims) {
    rt_aval a;
    int64_t ax[CJ_MAX_RANK];
    int n = axes_of(x, "cj_ptp", n_axes, axes, &a, ax);
    if (n < 0) return api_err(x.ctx);
    return cj_sub(cj_reduce_max(x, n, ax, keepdims), cj_reduce_min(x, n, ax, keepdims));
}

/* ---- NaN-ignoring reductions (jnp's _nan_reduction) ---- */

typedef enum { NAN_SUM, NAN_PROD, NAN_MAX, NAN_MIN } nan_kind;

static cj_val nan_reduction(const char *op, nan_kind k, cj_val x, int n_axes, const int64_t *axes, int keepdims) {
    rt_aval a;
    int64_t ax[CJ_MAX_RANK];
    int n = axes_of(x, op, n_axes, axes, &a, ax);
    if (n < 0) return api_err(x.ctx);
    cj_val (*reduce)(cj_val, int, const int64_t *, int) =
        k == NAN_SUM ? cj_sum : k == NAN_PROD ? cj_prod : k == NAN_MAX ? cj_reduce_max : cj_reduce_min;
    if (!rt_is_float(a.dtype)) return reduce(x, n, ax, keepdims);
    static const double init[] = {0.0, 1.0, -INFINITY, INFINITY};
    cj_val nan_mask = cj_ne(x, x);
    cj_val out = reduce(cj_where(nan_mask, compose_const(x.ctx, init[k], a.dtype), x), n, ax, keepdims);
    if (k == NAN_SUM || k == NAN_PROD) return out;
    cj_val all_nan = cj_reduce_min(nan_mask, n, ax, keepdims);
    return cj_where(all_nan, compose_const(x.ctx, NAN, a.dtype), out);
}

cj_val cj_nansum(cj_val x, int n_axes, const int64_t *axes, int keepdims) {
    return nan_reduction("cj_nansum", NAN_SUM, x, n_axes, axes, keepdims);
}
cj_val cj_nanprod(cj_val x, int n_axes, const int64_t *axes, int keepdims) {
    return nan_reduction("cj_nanprod", NAN_PROD, x, n_axes, axes, keepdims);
}
cj_val cj_nanmax(cj_val x, int n_axes, const int64_t *axes, int keepdims) {
    return nan_reduction("cj_nanmax", NAN_MAX, x, n_axes, axes, keepdims);
}
cj_val cj_nanmin(cj_val x, int n_axes, const int64_t *axes, int keepdims) {
    return nan_reduction("cj_nanmin", NAN_MIN, x, n_axes, axes, keepdims);
}

/* jnp.nanmean: the NaN-free sum over the number of values that are not
 * NaN (0/0 = NaN where all are); integers and bools are cj_mean's. */
cj_val cj_nanmean(cj_val x, int n_axes, const int64_t *axes, int keepdims) {
    rt_aval a;
    int64_t ax[CJ_MAX_RANK];
    int n = axes_of(x, "cj_nanmean", n_axes, axes, &a, ax);
    if (n < 0) return api_err(x.ctx);
    if (!rt_is_float(a.dtype)) return cj_mean(x, n, ax, keepdims);
    cj_val count = api_convert(cj_sum(cj_eq(x, x), n, ax, keepdims), a.dtype, 0);
    return cj_div(cj_nansum(x, n, ax, keepdims), count);
}

/* ---- average ---- */

/* jnp.average without weights: the mean; *sum_of_weights (when asked)
 * the count, of the mean's dtype and shape. */
cj_val cj_average(cj_val x, int n_axes, const int64_t *axes, int keepdims, cj_val *sum_of_weights) {
    rt_aval a;
    int64_t ax[CJ_MAX_RANK];
    int n = axes_of(x, "cj_average", n_axes, axes, &a, ax);
    if (n < 0) {
        if (sum_of_weights) *sum_of_weights = api_err(x.ctx);
        return api_err(x.ctx);
    }
    cj_val avg = cj_mean(x, n, ax, keepdims);
    if (sum_of_weights) {
        int64_t dims[CJ_MAX_RANK];
        int r = cj_val_shape(avg, dims);
        *sum_of_weights = r < 0 ? api_err(x.ctx)
                                : cj_full(x.ctx, (double)compose_count(&a, n, ax), cj_val_dtype(avg), r, dims);
    }
    return avg;
}

/* jnp.average(x, axes, weights): Σ x·w / Σ w in the promoted inexact
 * dtype. weights of x's shape, or 1-D along the single axis given. */
cj_val cj_average_weighted(cj_val x, cj_val weights, int n_axes, const int64_t *axes, int keepdims,
                           cj_val *sum_of_weights) {
    if (sum_of_weights) *sum_of_weights = api_err(x.ctx);
    rt_aval a, w;
    int64_t ax[CJ_MAX_RANK];
    int n = axes_of(x, "cj_average_weighted", n_axes, axes, &a, ax);
    if (n < 0 || compose_other(x.ctx, weights, "cj_average_weighted", "the weights", &w) != 0) return api_err(x.ctx);
    cj_ctx *ctx = x.ctx;
    int same = a.rank == w.rank && memcmp(a.dims, w.dims, sizeof(int64_t) * (size_t)a.rank) == 0;
    if (!same) {
        char t[96], u[96];
        rt_aval_str(&a, t, sizeof t);
        rt_aval_str(&w, u, sizeof u);
        const char *why = w.rank != 1 ? "weights of another shape than x must be 1-D"
                        : n_axes != 1 || !axes ? "weights of another shape than x need one axis"
                        : w.dims[0] != a.dims[ax[0]] ? "the weights' length must be that of the axis" : NULL;
        if (why) return compose_fail(ctx, CJ_ERR_SHAPE, "cj_average_weighted: %s (x %s, weights %s)", why, t, u);
        int64_t shape[CJ_MAX_RANK];
        for (int d = 0; d < a.rank; d++) shape[d] = d == ax[0] ? a.dims[d] : 1;
        weights = cj_reshape(weights, a.rank, shape);
    }
    rt_aval both[2] = {a, w};
    cj_dtype dt;
    int weak;
    api_result_type(2, both, &dt, &weak);
    dt = api_inexact_dtype(dt);
    x = api_convert(x, dt, 0);
    weights = api_convert(weights, dt, 0);
    cj_val wsum = cj_sum(weights, n, ax, keepdims);
    cj_val avg = cj_div(cj_sum(cj_mul(x, weights), n, ax, keepdims), wsum);
    if (sum_of_weights) {
        int64_t dims[CJ_MAX_RANK];
        int r = cj_val_shape(avg, dims);
        *sum_of_weights = r < 0 ? api_err(ctx) : cj_broadcast_to(wsum, r, dims);
    }
    return avg;
}

/* ---- cumulative ---- */

/* jnp's cummin = cummax of the order-reversed values, reversed back: -x
 * is exact for floats (NaN stays NaN; -0.0 and 0.0 swap, as min's and
 * max's zero orders do), ~x = -x - 1 for integers never overflows, and
 * !x for bools. */
cj_val cj_cummin(cj_val x, int64_t axis, int reverse) {
    rt_aval a;
    int64_t ax;
    if (compose_operand(x, "cj_cummin", &a) != 0 || compose_axis(x.ctx, "cj_cummin", axis, a.rank, &a, &ax) != 0)
        return api_err(x.ctx);
    if (rt_is_float(a.dtype)) return cj_neg(cj_cummax(cj_neg(x), ax, reverse));
    return cj_not(cj_cummax(cj_not(x), ax, reverse));
}

/* logaddexp(a, b) = max + log1p(exp(-|a - b|)), with a + b where a - b is
 * NaN (both infinite of one sign, or a NaN), as jnp.logaddexp. The
 * branch not taken sees delta 0 there, so no NaN reaches a gradient
 * through it (JAX has a custom jvp instead); the derivative is then
 * exp(a - out) as JAX's, ½ each at a tie. */
static cj_val logaddexp(cj_val a, cj_val b) {
    cj_val amax = cj_max(a, b), delta = cj_sub(a, b);
    cj_val bad = cj_ne(delta, delta);
    cj_val safe = cj_where(bad, cj_zeros_like(delta), delta);
    /* -|safe| as min(safe, -safe): the same value, and at a tie min's
     * balanced rule gives it derivative 0 where abs's would give 1 */
    cj_val finite = cj_add(amax, cj_log1p(cj_exp(cj_min(safe, cj_neg(safe)))));
    return cj_where(bad, cj_add(a, b), finite);
}

static int logaddexp_combine(void *user, int n, const cj_val *a, const cj_val *b, cj_val *out) {
    (void)user, (void)n;
    out[0] = logaddexp(a[0], b[0]);
    return 0;
}

/* lax.cumlogsumexp(x, axis, reverse): log Σ_{j<=i} exp x_j, by the
 * associative scan of logaddexp (floats; integers promote as jnp). */
cj_val cj_cumlogsumexp(cj_val x, int64_t axis, int reverse) {
    rt_aval a;
    int64_t ax;
    if (compose_operand(x, "cj_cumlogsumexp", &a) != 0 ||
        compose_axis(x.ctx, "cj_cumlogsumexp", axis, a.rank, &a, &ax) != 0)
        return api_err(x.ctx);
    x = compose_inexact(x, &a);
    cj_val out;
    if (compose_associative_scan(x.ctx, "cj_cumlogsumexp", logaddexp_combine, NULL, 1, &x, ax, reverse, &out) != 0)
        return api_err(x.ctx);
    return out;
}

/* jnp.nanvar(x, axes, ddof): Σ over the non-NaN values of (x - nanmean)²
 * divided by their count less ddof, NaN where that is <= 0 (as JAX, the
 * NaNs are replaced before squaring, so no NaN reaches a gradient).
 * Integers and bools are cj_var_ddof's. */
cj_val cj_nanvar(cj_val x, int n_axes, const int64_t *axes, int64_t ddof, int keepdims) {
    rt_aval a;
    int64_t ax[CJ_MAX_RANK];
    int n = axes_of(x, "cj_nanvar", n_axes, axes, &a, ax);
    if (n < 0) return api_err(x.ctx);
    if (!rt_is_float(a.dtype)) return cj_var_ddof(x, n, ax, ddof, keepdims);
    cj_val nan_mask = cj_ne(x, x);
    cj_val centered = cj_where(nan_mask, compose_const(x.ctx, 0, a.dtype), cj_sub(x, cj_nanmean(x, n, ax, 1)));
    cj_val sum = cj_sum(cj_mul(centered, centered), n, ax, keepdims);
    cj_val count = cj_sub(cj_sum(cj_not(nan_mask), n, ax, keepdims), cj_scalar_int(x.ctx, ddof));
    cj_val empty = cj_le(count, cj_scalar_int(x.ctx, 0));
    cj_val divisor = api_convert(cj_where(empty, cj_scalar_int(x.ctx, 1), count), a.dtype, 0);
    return cj_where(empty, compose_const(x.ctx, NAN, a.dtype), cj_div(sum, divisor));
}

cj_val cj_nanstd(cj_val x, int n_axes, const int64_t *axes, int64_t ddof, int keepdims) {
    rt_aval a;
    int64_t ax[CJ_MAX_RANK];
    int n = axes_of(x, "cj_nanstd", n_axes, axes, &a, ax);
    if (n < 0) return api_err(x.ctx);
    return cj_sqrt(cj_nanvar(x, n, ax, ddof, keepdims));
}

/* jnp.nanargmax / nanargmin: the arg-reduction with NaNs as -inf (+inf),
 * -1 where every value is NaN. */
static cj_val nan_arg(const char *op, cj_val x, int64_t axis, int keepdims, int is_max) {
    rt_aval a;
    int64_t ax;
    if (compose_operand(x, op, &a) != 0 || compose_axis(x.ctx, op, axis, a.rank, &a, &ax) != 0)
        return api_err(x.ctx);
    if (!rt_is_float(a.dtype)) return is_max ? cj_argmax(x, ax, keepdims) : cj_argmin(x, ax, keepdims);
    cj_val nan_mask = cj_ne(x, x);
    cj_val filled = cj_where(nan_mask, compose_const(x.ctx, is_max ? -INFINITY : INFINITY, a.dtype), x);
    cj_val r = is_max ? cj_argmax(filled, ax, keepdims) : cj_argmin(filled, ax, keepdims);
    return cj_where(cj_reduce_min(nan_mask, 1, &ax, keepdims), cj_scalar_int(x.ctx, -1), r);
}

cj_val cj_nanargmax(cj_val x, int64_t axis, int keepdims) { return nan_arg("cj_nanargmax", x, axis, keepdims, 1); }
cj_val cj_nanargmin(cj_val x, int64_t axis, int keepdims) { return nan_arg("cj_nanargmin", x, axis, keepdims, 0); }
