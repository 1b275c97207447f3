/* indexing.c — integer-array indexing along one axis: take,
 * take_along_axis, index_add (x.at[idx].add) and one_hot (api layer).
 *
 * take and take_along_axis bind the gather primitive, index_add binds
 * scatter_add (src/prim/gather.c); one_hot is a composite, as in jax.nn:
 * (indices[..., None] == iota(num_classes)) converted to the dtype. This
 * file normalises axes and does what NumPy/JAX do before the strict
 * primitives: broadcasting the operand and indices of take_along_axis
 * against each other outside the axis, and casting and broadcasting the
 * updates of index_add to the shape being indexed. Out-of-range indices:
 * take clamps, index_add drops (JAX's defaults; see gather.c). */
#include <string.h>

#include "api.h"

static cj_val bind_index(prim_id prim, int form, int64_t axis, int n, const cj_val *in) {
    prim_params p = prim_params_zero();
    p.axes.n = 1;
    p.axes.v[0] = axis;
    p.flag = form;
    return core_bind(in[0].ctx, prim, &p, n, in);
}

cj_val cj_take(cj_val x, cj_val indices, int64_t axis) {
    cj_val in[2] = {x, indices};
    cj_ctx *ctx = api_ctx_of(2, in);
    if (!ctx) return api_no_ctx("cj_take", API_NO_OPERAND_CTX);
    if (ctx->err) return api_err(ctx);
    const rt_aval *xa = api_aval(x, "take");
    if (!xa || !api_aval(indices, "take")) return api_err(ctx);
    int64_t ax;
    if (api_axis(ctx, "take", axis, xa->rank, &ax) != 0) return api_err(ctx);
    return bind_index(PRIM_GATHER, 0, ax, 2, in);
}

cj_val cj_take_along_axis(cj_val x, cj_val indices, int64_t axis) {
    cj_val in[2] = {x, indices};
    cj_ctx *ctx = api_ctx_of(2, in);
    if (!ctx) return api_no_ctx("cj_take_along_axis", API_NO_OPERAND_CTX);
    if (ctx->err) return api_err(ctx);
    const rt_aval *xp = api_aval(x, "take_along_axis"), *ip = api_aval(indices, "take_along_axis");
    if (!xp || !ip) return api_err(ctx);
    rt_aval xa = *xp, ia = *ip;
    char xt[96], it[96];
    rt_aval_str(&xa, xt, sizeof xt);
    rt_aval_str(&ia, it, sizeof it);
    if (ia.rank != xa.rank) {
        core_error(ctx, CJ_ERR_SHAPE, "take_along_axis: indices %s must have the rank of the array %s", it,
                   xt);
        return api_err(ctx);
    }
    int64_t ax;
    if (api_axis(ctx, "take_along_axis", axis, xa.rank, &ax) != 0) return api_err(ctx);
    /* Broadcast outside the axis; along it each keeps its own size. */
    int64_t xs[CJ_MAX_RANK], is[CJ_MAX_RANK];
    for (int d = 0; d < xa.rank; d++) {
        int64_t a = xa.dims[d], b = ia.dims[d];
        if (d != ax && a != b && a != 1 && b != 1) {
            core_error(ctx, CJ_ERR_SHAPE,
                       "take_along_axis: array %s and indices %s do not broadcast outside axis %lld", xt,
                       it, (long long)ax);
            return api_err(ctx);
        }
        int64_t common = a == 1 ? b : a;
        xs[d] = d == ax ? a : common;
        is[d] = d == ax ? b : common;
    }
    in[0] = api_broadcast_to(x, xa.rank, xs);
    in[1] = api_broadcast_to(indices, ia.rank, is);
    return bind_index(PRIM_GATHER, 1, ax, 2, in);
}

cj_val cj_index_add(cj_val x, int64_t axis, cj_val indices, cj_val updates) {
    cj_val in[3] = {x, indices, updates};
    cj_ctx *ctx = api_ctx_of(3, in);
    if (!ctx) return api_no_ctx("cj_index_add", API_NO_OPERAND_CTX);
    if (ctx->err) return api_err(ctx);
    const rt_aval *xp = api_aval(x, "index_add"), *ip = api_aval(indices, "index_add"),
                  *up = api_aval(updates, "index_add");
    if (!xp || !ip || !up) return api_err(ctx);
    rt_aval xa = *xp, ia = *ip, ua = *up;
    int64_t ax;
    if (api_axis(ctx, "index_add", axis, xa.rank, &ax) != 0) return api_err(ctx);
    /* The shape take(x, indices, axis) would have: updates broadcast to it
     * (a too-large rank is left for scatter_add to report). */
    int rank = xa.rank - 1 + ia.rank;
    int64_t shape[2 * CJ_MAX_RANK];
    int n = 0;
    for (int d = 0; d < ax; d++) shape[n++] = xa.dims[d];
    for (int d = 0; d < ia.rank; d++) shape[n++] = ia.dims[d];
    for (int d = (int)ax + 1; d < xa.rank; d++) shape[n++] = xa.dims[d];
    if (rank <= CJ_MAX_RANK) {
        int fits = ua.rank <= rank;
        for (int d = 0; fits && d < ua.rank; d++) {
            int64_t s = ua.dims[ua.rank - 1 - d];
            fits = s == 1 || s == shape[rank - 1 - d];
        }
        if (!fits) {
            char ut[96], st[160];
            rt_aval_str(&ua, ut, sizeof ut);
            rt_dims_str(rank, shape, st, sizeof st);
            core_error(ctx, CJ_ERR_SHAPE, "index_add: updates %s do not broadcast to the indexed shape %s",
                       ut, st);
            return api_err(ctx);
        }
    }
    /* As x.at[idx].add(y): y takes x's type. */
    in[2] = api_convert(updates, xa.dtype, xa.weak);
    if (rank <= CJ_MAX_RANK) in[2] = api_broadcast_to(in[2], rank, shape);
    return bind_index(PRIM_SCATTER_ADD, 0, ax, 3, in);
}

cj_val cj_one_hot(cj_val indices, int64_t num_classes, cj_dtype dtype) {
    cj_ctx *ctx = indices.ctx;
    if (!ctx) return api_no_ctx("cj_one_hot", API_NO_OPERAND_CTX);
    if (ctx->err) return api_err(ctx);
    const rt_aval *ip = api_aval(indices, "one_hot");
    if (!ip) return api_err(ctx);
    if (num_classes < 0) {
        core_error(ctx, CJ_ERR_ARG, "one_hot: num_classes must be >= 0, got %lld", (long long)num_classes);
        return api_err(ctx);
    }
    if (!rt_dtype_valid((int)dtype)) {
        core_error(ctx, CJ_ERR_DTYPE, "one_hot: %d is not a dtype", (int)dtype);
        return api_err(ctx);
    }
    /* The class numbers in the indices' own dtype (as jax.nn.one_hot), so
     * the comparison needs no conversion of the indices. */
    cj_dtype class_dt = ip->dtype == CJ_BOOL ? CJ_I32 : ip->dtype;
    cj_val classes = cj_iota(ctx, class_dt, 1, &num_classes, 0);
    cj_val hit = cj_eq(cj_expand_dims(indices, -1), classes);
    return cj_astype(hit, dtype);
}
