/* reduce_window.c — cj_reduce_window and the pooling composites (api
 * layer).
 *
 * cj_reduce_window is lax.reduce_window for the monoids lax names (sum,
 * max, min: jax.lax.reduce_window with lax.add / lax.max / lax.min and
 * their identities): defaults for the lists, padding names into (lo, hi)
 * pairs as lax.padtype_to_pads computes them over the dilated window, then
 * the strict primitive (src/prim/reduce_window.c). The pooling functions
 * are flax.linen's (flax/linen/pooling.py): inputs (batch, spatial...,
 * features), or (spatial..., features) without a batch; the window and
 * strides over the spatial axes only; avg_pool divides by the window size
 * (count_include_pad, flax's default) or by the count of real elements
 * each window covers. */
#include <string.h>

#include "../prim/reduce_window.h"
#include "api.h"

static const char *OP = "reduce_window";

static int copy_list(cj_ctx *ctx, const char *op, const char *what, const int64_t *src, int n, int64_t dflt,
                     prim_ivec *dst) {
    dst->n = n;
    for (int i = 0; i < n; i++) {
        dst->v[i] = src ? src[i] : dflt;
        if (dst->v[i] < 1 || dst->v[i] > ((int64_t)1 << 40))
            return core_error(ctx, CJ_ERR_ARG, "%s: %s must be positive (and below 2^40), got %lld on axis %d", op,
                              what, (long long)dst->v[i], i);
    }
    return 0;
}

static cj_val reduce_window(const char *op, cj_val x, cj_window_reduction kind, const int64_t *window_dimensions,
                            const cj_window_opts *opts) {
    cj_ctx *ctx = api_ctx_of(1, &x);
    if (!ctx) return api_no_ctx("cj_reduce_window", API_NO_OPERAND_CTX);
    if (ctx->err) return api_err(ctx);
    const rt_aval *xa = api_aval(x, op);
    if (!xa) return api_err(ctx);
    cj_window_opts o;
    memset(&o, 0, sizeof o);
    if (opts) o = *opts;
    if (kind != CJ_WINDOW_SUM && kind != CJ_WINDOW_MAX && kind != CJ_WINDOW_MIN) {
        core_error(ctx, CJ_ERR_ARG, "%s: unknown reduction %d (CJ_WINDOW_SUM, _MAX or _MIN)", op, (int)kind);
        return api_err(ctx);
    }
    if (xa->rank > 0 && !window_dimensions) {
        core_error(ctx, CJ_ERR_ARG, "%s: window_dimensions is NULL for an operand of rank %d", op, xa->rank);
        return api_err(ctx);
    }
    int r = xa->rank;
    prim_params p = prim_params_zero();
    if (copy_list(ctx, op, "window_dimensions", window_dimensions, r, 1, &RW_WINDOW(&p)) != 0 ||
        copy_list(ctx, op, "window_strides", o.window_strides, r, 1, &RW_STRIDES(&p)) != 0 ||
        copy_list(ctx, op, "base_dilation", o.base_dilation, r, 1, &RW_BASE_DIL(&p)) != 0 ||
        copy_list(ctx, op, "window_dilation", o.window_dilation, r, 1, &RW_WIN_DIL(&p)) != 0)
        return api_err(ctx);
    p.lo.n = p.hi.n = r;
    if (o.padding) {
        for (int a = 0; a < r; a++) {
            p.lo.v[a] = o.padding[2 * a], p.hi.v[a] = o.padding[2 * a + 1];
            if (p.lo.v[a] < -((int64_t)1 << 40) || p.lo.v[a] > ((int64_t)1 << 40) ||
                p.hi.v[a] < -((int64_t)1 << 40) || p.hi.v[a] > ((int64_t)1 << 40)) {
                core_error(ctx, CJ_ERR_ARG, "%s: padding (%lld, %lld) of axis %d is out of range", op,
                           (long long)p.lo.v[a], (long long)p.hi.v[a], a);
                return api_err(ctx);
            }
        }
    } else {
        int64_t win[CJ_MAX_RANK], pads[2 * CJ_MAX_RANK];
        for (int a = 0; a < r; a++) win[a] = rw_dilate(RW_WINDOW(&p).v[a], RW_WIN_DIL(&p).v[a]);
        if (cj_padtype_to_pads(r, xa->dims, win, RW_STRIDES(&p).v, o.pad_type, pads) != 0) {
            core_error(ctx, CJ_ERR_ARG, "%s: unknown padding type %d", op, (int)o.pad_type);
            return api_err(ctx);
        }
        for (int a = 0; a < r; a++) p.lo.v[a] = pads[2 * a], p.hi.v[a] = pads[2 * a + 1];
    }
    prim_id prim = kind == CJ_WINDOW_SUM ? PRIM_REDUCE_WINDOW_SUM
                   : kind == CJ_WINDOW_MAX ? PRIM_REDUCE_WINDOW_MAX
                                           : PRIM_REDUCE_WINDOW_MIN;
    return core_bind(ctx, prim, &p, 1, &x);
}

cj_val cj_reduce_window(cj_val x, cj_window_reduction kind, const int64_t *window_dimensions,
                        const cj_window_opts *opts) {
    return reduce_window(OP, x, kind, window_dimensions, opts);
}

/* flax's pool(): the window and strides of the spatial axes, 1 on the
 * batch and feature axes; explicit pads likewise (0, 0) there. */
static cj_val pool(const char *op, cj_val x, cj_window_reduction kind, int n_window, const int64_t *window_shape,
                   const cj_pool_opts *opts, int *batched) {
    cj_ctx *ctx = api_ctx_of(1, &x);
    if (!ctx) return api_no_ctx(op, API_NO_OPERAND_CTX);
    if (ctx->err) return api_err(ctx);
    const rt_aval *xa = api_aval(x, op);
    if (!xa) return api_err(ctx);
    char xt[96];
    rt_aval_str(xa, xt, sizeof xt);
    if (n_window < 0 || n_window > CJ_MAX_RANK - 2 || (n_window > 0 && !window_shape)) {
        core_error(ctx, CJ_ERR_ARG, "%s: %d window dimensions (need 0 to %d and a window_shape)", op, n_window,
                   CJ_MAX_RANK - 2);
        return api_err(ctx);
    }
    if (xa->rank != n_window + 2 && xa->rank != n_window + 1) {
        core_error(ctx, CJ_ERR_SHAPE,
                   "%s: input %s must have rank %d (batch, %d spatial, features) or %d (no batch) for a window of "
                   "%d dimensions",
                   op, xt, n_window + 2, n_window, n_window + 1, n_window);
        return api_err(ctx);
    }
    cj_pool_opts o;
    memset(&o, 0, sizeof o);
    if (opts) o = *opts;
    *batched = xa->rank == n_window + 2;
    if (!*batched) x = cj_expand_dims(x, 0);
    int r = n_window + 2;
    int64_t win[CJ_MAX_RANK], st[CJ_MAX_RANK], pads[2 * CJ_MAX_RANK];
    for (int a = 0; a < r; a++) {
        int s = a - 1; /* the spatial axis */
        int spatial = a > 0 && a < r - 1;
        win[a] = spatial ? window_shape[s] : 1;
        st[a] = spatial && o.strides ? o.strides[s] : 1;
        pads[2 * a] = spatial && o.padding ? o.padding[2 * s] : 0;
        pads[2 * a + 1] = spatial && o.padding ? o.padding[2 * s + 1] : 0;
    }
    cj_window_opts wo;
    memset(&wo, 0, sizeof wo);
    wo.window_strides = st;
    wo.padding = o.padding ? pads : NULL;
    wo.pad_type = o.pad_type;
    return reduce_window(op, x, kind, win, &wo);
}

static cj_val unbatch(cj_val y, int batched) { return batched ? y : cj_squeeze(y, 1, (int64_t[]){0}); }

cj_val cj_max_pool(cj_val x, int n_window, const int64_t *window_shape, const cj_pool_opts *opts) {
    int batched = 1;
    cj_val y = pool("max_pool", x, CJ_WINDOW_MAX, n_window, window_shape, opts, &batched);
    return unbatch(y, batched);
}

cj_val cj_min_pool(cj_val x, int n_window, const int64_t *window_shape, const cj_pool_opts *opts) {
    int batched = 1;
    cj_val y = pool("min_pool", x, CJ_WINDOW_MIN, n_window, window_shape, opts, &batched);
    return unbatch(y, batched);
}

cj_val cj_avg_pool(cj_val x, int n_window, const int64_t *window_shape, const cj_pool_opts *opts) {
    int batched = 1;
    cj_val y = pool("avg_pool", x, CJ_WINDOW_SUM, n_window, window_shape, opts, &batched);
    if (cj_is_error(y)) return y;
    cj_ctx *ctx = api_ctx_of(1, &y);
    const rt_aval *ya = api_aval(y, "avg_pool");
    if (!ya) return api_err(ctx);
    if (!opts || !opts->count_exclude_pad) {
        double size = 1;
        for (int k = 0; k < n_window; k++) size *= (double)window_shape[k];
        return unbatch(cj_div(y, api_weak_constant(ctx, size, ya->dtype)), batched);
    }
    /* flax: the window sums of ones of the input's shape with batch and
     * features 1, so padding counts nothing */
    const rt_aval *xa = api_aval(x, "avg_pool");
    if (!xa) return api_err(ctx);
    int64_t dims[CJ_MAX_RANK];
    int r = n_window + 2;
    dims[0] = 1;
    dims[r - 1] = 1;
    for (int k = 0; k < n_window; k++) dims[1 + k] = xa->dims[xa->rank - 1 - n_window + k];
    int unused;
    cj_val count = pool("avg_pool", cj_ones(ctx, ya->dtype, r, dims), CJ_WINDOW_SUM, n_window, window_shape, opts,
                        &unused);
    return unbatch(cj_div(y, count), batched);
}
