/* sort.c — the public sorting operations (api layer): cj_sort,
 * cj_sort_multi, cj_argsort, cj_top_k, cj_searchsorted, cj_quantile,
 * cj_median.
 *
 * They do what jax.numpy does before it reaches lax: normalise axes, pick
 * the index dtype (i32, as JAX without x64 and cjax's argmax), promote to
 * floats for quantiles; then bind the sort or top_k primitive
 * (src/prim/sort.c), which checks everything about its operands. argsort
 * sorts an iota beside the values; a stable descending argsort reverses
 * both first, as jnp.argsort does, so equal values keep their order.
 * searchsorted is JAX's method='sort': the rank of each query among the
 * sorted values and the queries together, less its rank among the
 * queries. quantile follows jnp.quantile without weights (any NaN along
 * the axes makes the result NaN), its dtypes included: positions in q's
 * float dtype, the result in x's (f16 stays f16). */
#include <math.h>
#include <string.h>

#include "api.h"

static const rt_aval *operand(cj_val x, const char *op) {
    if (!x.ctx) {
        core_error(NULL, CJ_ERR_ARG, "%s: " API_NO_VALUE_CTX, op);
        return NULL;
    }
    if (x.ctx->err) return NULL;
    return api_aval(x, op);
}

static int sort_bind(cj_ctx *ctx, int n, const cj_val *in, int64_t axis, int num_keys, int is_stable, cj_val *out) {
    prim_params p = prim_params_zero();
    p.axes.n = 1;
    p.axes.v[0] = axis;
    p.flag = is_stable != 0;
    p.count = num_keys;
    return core_bind_multi(ctx, PRIM_SORT, &p, n, in, n, out);
}

static cj_status fail_all(cj_ctx *ctx, int n, cj_val *out) {
    for (int i = 0; i < n && out; i++) out[i] = api_err(ctx);
    return ctx && ctx->err ? ctx->err : CJ_ERR_ARG;
}

cj_status cj_sort_multi(int n, const cj_val *operands, int64_t axis, int num_keys, int is_stable, cj_val *out) {
    if (n < 1 || n > PRIM_MAX_OPERANDS || !operands || !out) {
        cj_ctx *ctx = n >= 1 && operands ? api_ctx_of(n, operands) : NULL;
        core_error(ctx, CJ_ERR_ARG, "cj_sort_multi: %s",
                   !out ? "out is NULL" : !operands ? "operands is NULL" : "needs 1 to 256 operands");
        return fail_all(ctx, n > 0 && n <= PRIM_MAX_OPERANDS ? n : 0, out);
    }
    cj_ctx *ctx = api_ctx_of(n, operands);
    if (!ctx) {
        core_error(NULL, CJ_ERR_ARG, "cj_sort_multi: " API_NO_OPERAND_CTX);
        return fail_all(NULL, n, out);
    }
    const rt_aval *a = operand(operands[0], "cj_sort_multi");
    int64_t ax;
    if (!a || api_axis(ctx, "sort", axis, a->rank, &ax) != 0) return fail_all(ctx, n, out);
    if (sort_bind(ctx, n, operands, ax, num_keys, is_stable, out) != 0) return fail_all(ctx, n, out);
    return CJ_OK;
}

cj_val cj_sort(cj_val x, int64_t axis) {
    cj_val out;
    cj_sort_multi(1, &x, axis, 1, 1, &out);
    return out;
}

cj_val cj_argsort(cj_val x, int64_t axis, int stable, int descending) {
    const rt_aval *a = operand(x, "cj_argsort");
    if (!a) return api_err(x.ctx);
    cj_ctx *ctx = x.ctx;
    int64_t ax;
    if (api_axis(ctx, "argsort", axis, a->rank, &ax) != 0) return api_err(ctx);
    cj_val in[2] = {x, cj_iota(ctx, CJ_I32, a->rank, a->dims, ax)}, out[2];
    if (descending && stable) {
        in[0] = cj_rev(in[0], 1, &ax);
        in[1] = cj_rev(in[1], 1, &ax);
    }
    if (sort_bind(ctx, 2, in, ax, 1, stable, out) != 0) return api_err(ctx);
    return descending ? cj_rev(out[1], 1, &ax) : out[1];
}

cj_status cj_top_k(cj_val x, int64_t k, cj_val *values, cj_val *indices) {
    cj_ctx *ctx = x.ctx;
    if (!values || !indices) {
        core_error(ctx, CJ_ERR_ARG, "cj_top_k: %s is NULL", !values ? "values" : "indices");
        if (values) *values = api_err(ctx);
        if (indices) *indices = api_err(ctx);
        return ctx && ctx->err ? ctx->err : CJ_ERR_ARG;
    }
    cj_val out[2];
    prim_params p = prim_params_zero();
    p.count = k;
    if (!operand(x, "cj_top_k") || core_bind_multi(ctx, PRIM_TOP_K, &p, 1, &x, 2, out) != 0) {
        *values = *indices = api_err(ctx);
        return ctx && ctx->err ? ctx->err : CJ_ERR_ARG;
    }
    *values = out[0];
    *indices = out[1];
    return CJ_OK;
}

/* ---- searchsorted ---------------------------------------------------------- */

/* The rank of every element of a 1-D x in its stable sorted order (the
 * inverse of argsort), i32. */
static cj_val ranks(cj_val x, int64_t n) {
    cj_ctx *ctx = x.ctx;
    cj_val iota = cj_iota(ctx, CJ_I32, 1, &n, 0);
    return cj_index_add(cj_zeros(ctx, CJ_I32, 1, &n), 0, cj_argsort(x, 0, 1, 0), iota);
}

cj_val cj_searchsorted(cj_val sorted, cj_val v, const char *side) {
    const rt_aval *a = operand(sorted, "cj_searchsorted");
    const rt_aval *q = a ? operand(v, "cj_searchsorted") : NULL;
    if (!q) return api_err(sorted.ctx ? sorted.ctx : v.ctx);
    cj_ctx *ctx = sorted.ctx;
    int right = side && strcmp(side, "right") == 0;
    if (side && !right && strcmp(side, "left") != 0) {
        core_error(ctx, CJ_ERR_ARG, "searchsorted: side must be \"left\" or \"right\", got \"%s\"", side);
        return api_err(ctx);
    }
    if (a->rank != 1) {
        char t[96];
        rt_aval_str(a, t, sizeof t);
        core_error(ctx, CJ_ERR_SHAPE, "searchsorted: the sorted array must be 1-D, got %s", t);
        return api_err(ctx);
    }
    if (a->dims[0] > INT32_MAX / 2 || rt_aval_size(q) > INT32_MAX / 2) {
        core_error(ctx, CJ_ERR_UNSUPPORTED, "searchsorted: more than 2^30 values");
        return api_err(ctx);
    }
    rt_aval both[2] = {*a, *q};
    cj_dtype dt;
    int weak;
    api_result_type(2, both, &dt, &weak);
    int64_t n = a->dims[0], m = rt_aval_size(q), nm = n + m;
    int q_rank = q->rank;
    int64_t q_dims[CJ_MAX_RANK];
    memcpy(q_dims, q->dims, sizeof q_dims);
    cj_val s = api_convert(sorted, dt, 0), flat = cj_reshape(api_convert(v, dt, 0), 1, &m);
    /* left: queries first, so each precedes the sorted values equal to it */
    cj_val parts[2] = {right ? s : flat, right ? flat : s};
    cj_val r = ranks(cj_concatenate(2, parts, 0), nm);
    int64_t lo = right ? n : 0, hi = lo + m;
    cj_val mine = cj_slice(r, &lo, &hi, NULL);
    return cj_reshape(cj_sub(mine, ranks(flat, m)), q_rank, q_dims);
}

/* ---- quantile and median ----------------------------------------------------- */

/* x with the axes in `red` (sorted, n_red of them) merged into one last
 * axis, the other axes first in order: *kept gets their rank. */
static cj_val axes_last(cj_val x, const rt_aval *a, int n_red, const int64_t *red, int *kept) {
    int64_t perm[CJ_MAX_RANK], dims[CJ_MAX_RANK];
    int k = 0, in_red[CJ_MAX_RANK] = {0};
    for (int i = 0; i < n_red; i++) in_red[red[i]] = 1;
    int64_t m = 1;
    for (int d = 0; d < a->rank; d++)
        if (!in_red[d]) {
            dims[k] = a->dims[d];
            perm[k++] = d;
        } else m *= a->dims[d];
    *kept = k;
    for (int i = 0; i < n_red; i++) perm[k + i] = red[i];
    dims[k] = m;
    return cj_reshape(cj_transpose(x, perm), k + 1, dims);
}

/* v rounded to dtype dt (as a constant of dt would hold it). */
static double in_dtype(double v, cj_dtype dt) {
    char e[8];
    rt_convert(CJ_F64, &v, dt, e, 1);
    return rt_get_f64(dt, e, 0);
}

typedef enum { Q_LINEAR, Q_LOWER, Q_HIGHER, Q_MIDPOINT, Q_NEAREST } q_method;

static int parse_method(cj_ctx *ctx, const char *method, q_method *m) {
    static const char *const names[] = {"linear", "lower", "higher", "midpoint", "nearest"};
    if (!method) method = "linear";
    for (int i = 0; i < 5; i++)
        if (strcmp(method, names[i]) == 0) return *m = (q_method)i, 0;
    return core_error(ctx, CJ_ERR_ARG,
                      "quantile: method must be \"linear\", \"lower\", \"higher\", \"midpoint\" or \"nearest\", "
                      "got \"%s\"",
                      method);
}

static cj_val quantile(const char *op, cj_val x, cj_val q, int n_axes, const int64_t *axes, const char *method,
                       int keepdims) {
    const rt_aval *xa = operand(x, op);
    const rt_aval *qa = xa ? operand(q, op) : NULL;
    if (!qa) return api_err(x.ctx ? x.ctx : q.ctx);
    cj_ctx *ctx = x.ctx;
    rt_aval a = *xa, qv = *qa;
    q_method how = Q_LINEAR;
    if (parse_method(ctx, method, &how) != 0) return api_err(ctx);
    if (qv.rank > 1) {
        char t[96];
        rt_aval_str(&qv, t, sizeof t);
        core_error(ctx, CJ_ERR_SHAPE, "%s: q must have rank <= 1, got %s", op, t);
        return api_err(ctx);
    }
    int64_t red[CJ_MAX_RANK];
    int n_red = api_axes(ctx, op, n_axes, axes, a.rank, red);
    if (n_red < 0) return api_err(ctx);
    if (n_red == 0 && a.rank > 0) {
        core_error(ctx, CJ_ERR_AXIS, "%s: at least one axis to take the quantile over", op);
        return api_err(ctx);
    }
    /* as jnp.quantile: x becomes inexact on its own (dt); the positions and
     * the linear method's weights are computed in q's dtype (qt: a weak q,
     * a C double, is f32, or f64 beside an f64 x), and the result is x's.
     * So an f16 x with a weak q interpolates in f32 and rounds once. */
    cj_dtype dt = api_inexact_dtype(a.dtype);
    cj_dtype qt = qv.weak ? (dt == CJ_F64 || qv.dtype == CJ_F64 ? CJ_F64 : CJ_F32) : api_inexact_dtype(qv.dtype);
    x = api_convert(x, dt, 0);
    q = api_convert(q, qt, 0);
    int kept;
    cj_val s = axes_last(x, &a, n_red, red, &kept);
    int64_t last = kept, n = 1;
    for (int i = 0; i < n_red; i++) n *= a.dims[red[i]];
    if (n == 0) {
        core_error(ctx, CJ_ERR_SHAPE, "%s: the quantile of no values (the axes have size 0)", op);
        return api_err(ctx);
    }
    /* any NaN along the axes makes every quantile NaN */
    cj_val has_nan = cj_reduce_max(cj_astype(cj_ne(s, s), CJ_I32), 1, &last, 1);
    s = cj_where(cj_gt(has_nan, cj_scalar_int(ctx, 0)), cj_scalar_typed(ctx, NAN, dt), s);
    s = cj_sort(s, last);
    /* n - 1 as jnp computes it: n converted to qt, less one in qt */
    double nm1 = in_dtype(in_dtype((double)n, qt) - 1, qt);
    cj_val pos = cj_mul(q, cj_scalar_typed(ctx, nm1, qt));
    cj_val low = cj_floor(pos), high = cj_ceil(pos);
    cj_val hw = cj_sub(pos, low), lw = cj_sub(cj_scalar_typed(ctx, 1, qt), hw);
    low = cj_astype(cj_clip(low, 0, nm1), CJ_I32);
    high = cj_astype(cj_clip(high, 0, nm1), CJ_I32);
    /* take along the last axis: kept shape (+ [m] when q is 1-D), then q's
     * axis to the front, and weights shaped to broadcast over the rest */
    cj_val lv = cj_take(s, low, last), hv = cj_take(s, high, last);
    if (qv.rank == 1) {
        int64_t perm[CJ_MAX_RANK];
        perm[0] = kept;
        for (int d = 0; d < kept; d++) perm[d + 1] = d;
        lv = cj_transpose(lv, perm);
        hv = cj_transpose(hv, perm);
        int64_t wd[CJ_MAX_RANK];
        wd[0] = qv.dims[0];
        for (int d = 0; d < kept; d++) wd[d + 1] = 1;
        lw = cj_reshape(lw, kept + 1, wd);
        hw = cj_reshape(hw, kept + 1, wd);
    }
    cj_val r;
    switch (how) {
    case Q_LOWER: r = lv; break;
    case Q_HIGHER: r = hv; break;
    case Q_MIDPOINT: r = cj_mul(cj_add(lv, hv), cj_scalar_typed(ctx, 0.5, dt)); break;
    case Q_NEAREST: r = cj_where(cj_le(hw, cj_scalar_typed(ctx, 0.5, qt)), lv, hv); break;
    default:
        r = cj_add(cj_mul(api_convert(lv, qt, 0), lw), cj_mul(api_convert(hv, qt, 0), hw));
        r = api_convert(r, dt, 0);
        break;
    }
    if (!keepdims) return r;
    int64_t dims[CJ_MAX_RANK + 1];
    int rank = 0;
    if (qv.rank == 1) dims[rank++] = qv.dims[0];
    int in_red[CJ_MAX_RANK] = {0};
    for (int i = 0; i < n_red; i++) in_red[red[i]] = 1;
    for (int d = 0; d < a.rank; d++) dims[rank++] = in_red[d] ? 1 : a.dims[d];
    if (rank > CJ_MAX_RANK) {
        core_error(ctx, CJ_ERR_SHAPE, "%s: keepdims with a 1-D q needs rank %d (at most %d)", op, rank, CJ_MAX_RANK);
        return api_err(ctx);
    }
    return cj_reshape(r, rank, dims);
}

cj_val cj_quantile(cj_val x, cj_val q, int n_axes, const int64_t *axes, const char *method, int keepdims) {
    return quantile("cj_quantile", x, q, n_axes, axes, method, keepdims);
}

cj_val cj_median(cj_val x, int n_axes, const int64_t *axes, int keepdims) {
    if (!x.ctx) return api_no_ctx("cj_median", API_NO_VALUE_CTX);
    return quantile("cj_median", x, cj_scalar(x.ctx, 0.5), n_axes, axes, "midpoint", keepdims);
}
