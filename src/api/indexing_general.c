/* indexing_general.c — lax.gather / lax.scatter with dimension numbers and
 * jnp's x.at[idx].set/add/multiply/min/max (api layer).
 *
 * cj_gather and cj_scatter copy the public dimension numbers into the
 * primitives' parameters (src/prim/gather_general.h) and bind
 * gather_general / scatter_general, which check everything else; a chosen
 * index_vector_dim is brought to lax's form (the last axis) first. The .at
 * forms build the dimension numbers of one integer-array index on one axis,
 * as jnp's indexing does: negative indices wrapped once, updates broadcast
 * to the indexed shape in x's dtype, mode FILL_OR_DROP. */
#include <string.h>

#include "../prim/gather_general.h"
#include "api.h"

static int copy_list(cj_ctx *ctx, const char *op, const char *name, const cj_axis_list *l, prim_ivec *v) {
    if (l->n < 0 || l->n > CJ_MAX_RANK)
        return core_error(ctx, CJ_ERR_ARG, "%s: %s has %d entries (0 to %d)", op, name, l->n, CJ_MAX_RANK);
    v->n = l->n;
    memcpy(v->v, l->v, sizeof(int64_t) * (size_t)l->n);
    return 0;
}

static int mode_flag(cj_ctx *ctx, const char *op, cj_index_mode mode, int *flag) {
    switch (mode) {
    case CJ_INDEX_FILL_OR_DROP: *flag = GG_MODE_FILL; return 0;
    case CJ_INDEX_CLIP: *flag = GG_MODE_CLIP; return 0;
    case CJ_INDEX_PROMISE_IN_BOUNDS: *flag = GG_MODE_PROMISE; return 0;
    }
    return core_error(ctx, CJ_ERR_ARG, "%s: unknown mode %d", op, (int)mode);
}

/* Indices as the primitives take them: any integer dtype. */
static int check_indices(cj_ctx *ctx, const char *op, cj_val idx) {
    const rt_aval *a = api_aval(idx, op);
    if (!a) return -1;
    if (!rt_is_int(a->dtype)) {
        char t[96];
        rt_aval_str(a, t, sizeof t);
        return core_error(ctx, CJ_ERR_DTYPE, "%s: indices must have an integer dtype (i8 ... i64, u8 ... u64), got %s",
                          op, t);
    }
    return 0;
}

/* XLA's index_vector_dim as lax's: the index vector moved to the last
 * axis (a transpose), or a unit last axis appended for scalar indices
 * (ivd = the rank); the indices batching dims renumbered to match. The
 * primitives then see only lax's form, so every rule serves. */
static int index_vector_last(cj_ctx *ctx, const char *op, const char *batch_name, int64_t ivd, cj_val *idx,
                             prim_ivec *batch) {
    const rt_aval *a = api_aval(*idx, op);
    if (!a) return -1;
    char t[96];
    rt_aval_str(a, t, sizeof t);
    if (ivd < 0 || ivd > a->rank)
        return core_error(ctx, CJ_ERR_AXIS, "%s: index_vector_dim %lld is out of range for indices %s (0 to %d)", op,
                          (long long)ivd, t, a->rank);
    for (int i = 0; i < batch->n; i++)
        if (batch->v[i] == ivd)
            return core_error(ctx, CJ_ERR_ARG, "%s: %s contains index_vector_dim %lld (indices %s)", op, batch_name,
                              (long long)ivd, t);
    if (ivd == a->rank) {
        if (a->rank == CJ_MAX_RANK)
            return core_error(ctx, CJ_ERR_SHAPE, "%s: scalar indices %s of rank %d: their index vector axis would make "
                              "rank %d (at most %d)", op, t, a->rank, a->rank + 1, CJ_MAX_RANK);
        *idx = cj_expand_dims(*idx, a->rank);
        return 0;
    }
    if (ivd == a->rank - 1) return 0;
    int64_t perm[CJ_MAX_RANK];
    for (int d = 0, k = 0; d < a->rank; d++)
        if (d != ivd) perm[k++] = d;
    perm[a->rank - 1] = ivd;
    for (int i = 0; i < batch->n; i++)
        if (batch->v[i] > ivd && batch->v[i] < a->rank) batch->v[i]--;
    *idx = cj_transpose(*idx, perm);
    return 0;
}

cj_val cj_gather(cj_val x, cj_val indices, const cj_gather_dnums *dn, const int64_t *slice_sizes, cj_index_mode mode,
                 const double *fill) {
    cj_val in[2] = {x, indices};
    cj_ctx *ctx = api_ctx_of(2, in);
    if (!ctx) return api_no_ctx("cj_gather", API_NO_OPERAND_CTX);
    if (ctx->err) return api_err(ctx);
    const rt_aval *xa = api_aval(x, "gather_general");
    if (!xa || check_indices(ctx, "gather_general", indices)) return api_err(ctx);
    if (!dn || !slice_sizes) {
        core_error(ctx, CJ_ERR_ARG, "gather_general: %s is NULL", dn ? "slice_sizes" : "dnums");
        return api_err(ctx);
    }
    prim_params p = prim_params_zero();
    const char *op = "gather_general";
    if (copy_list(ctx, op, "offset_dims", &dn->offset_dims, &GG_OFFSET_DIMS(&p)) ||
        copy_list(ctx, op, "collapsed_slice_dims", &dn->collapsed_slice_dims, &GG_COLLAPSED(&p)) ||
        copy_list(ctx, op, "start_index_map", &dn->start_index_map, &GG_START_MAP(&p)) ||
        copy_list(ctx, op, "operand_batching_dims", &dn->operand_batching_dims, &GG_OPERAND_BATCH(&p)) ||
        copy_list(ctx, op, "start_indices_batching_dims", &dn->start_indices_batching_dims, &GG_INDICES_BATCH(&p)) ||
        mode_flag(ctx, op, mode, &p.flag))
        return api_err(ctx);
    GG_SLICE_SIZES(&p).n = xa->rank;
    memcpy(GG_SLICE_SIZES(&p).v, slice_sizes, sizeof(int64_t) * (size_t)xa->rank);
    if (dn->indices_are_sorted) p.flag |= GG_SORTED;
    if (dn->unique_indices) p.flag |= GG_UNIQUE;
    if (fill) gg_set_fill_value(&p, *fill);
    if (dn->has_index_vector_dim &&
        index_vector_last(ctx, op, "start_indices_batching_dims", dn->index_vector_dim, &in[1], &GG_INDICES_BATCH(&p)))
        return api_err(ctx);
    return core_bind(ctx, PRIM_GATHER_GENERAL, &p, 2, in);
}

cj_val cj_scatter(cj_val x, cj_val indices, cj_val updates, const cj_scatter_dnums *dn, cj_scatter_kind kind,
                  cj_index_mode mode) {
    cj_val in[3] = {x, indices, updates};
    cj_ctx *ctx = api_ctx_of(3, in);
    if (!ctx) return api_no_ctx("cj_scatter", API_NO_OPERAND_CTX);
    if (ctx->err) return api_err(ctx);
    const char *op = "scatter_general";
    const rt_aval *xa = api_aval(x, op);
    if (!xa || !api_aval(updates, op) || check_indices(ctx, op, indices)) return api_err(ctx);
    if (!dn) {
        core_error(ctx, CJ_ERR_ARG, "scatter_general: dnums is NULL");
        return api_err(ctx);
    }
    if ((int)kind < CJ_SCATTER_SET || (int)kind > CJ_SCATTER_MAX) {
        core_error(ctx, CJ_ERR_ARG, "scatter_general: unknown kind %d", (int)kind);
        return api_err(ctx);
    }
    prim_params p = prim_params_zero();
    if (copy_list(ctx, op, "update_window_dims", &dn->update_window_dims, &GG_OFFSET_DIMS(&p)) ||
        copy_list(ctx, op, "inserted_window_dims", &dn->inserted_window_dims, &GG_COLLAPSED(&p)) ||
        copy_list(ctx, op, "scatter_dims_to_operand_dims", &dn->scatter_dims_to_operand_dims, &GG_START_MAP(&p)) ||
        copy_list(ctx, op, "operand_batching_dims", &dn->operand_batching_dims, &GG_OPERAND_BATCH(&p)) ||
        copy_list(ctx, op, "scatter_indices_batching_dims", &dn->scatter_indices_batching_dims,
                  &GG_INDICES_BATCH(&p)) ||
        mode_flag(ctx, op, mode, &p.flag))
        return api_err(ctx);
    if (dn->indices_are_sorted) p.flag |= GG_SORTED;
    if (dn->unique_indices) p.flag |= GG_UNIQUE;
    p.count = (int64_t)kind;
    in[2] = api_convert(updates, xa->dtype, xa->weak);
    if (dn->has_index_vector_dim && index_vector_last(ctx, op, "scatter_indices_batching_dims", dn->index_vector_dim,
                                                      &in[1], &GG_INDICES_BATCH(&p)))
        return api_err(ctx);
    return core_bind(ctx, PRIM_SCATTER_GENERAL, &p, 3, in);
}

/* x.at[(:,) * axis + (indices,)].<kind>(updates). */
static cj_val at_update(const char *name, cj_val x, int64_t axis, cj_val indices, cj_val updates, cj_scatter_kind kind) {
    cj_val in[3] = {x, indices, updates};
    cj_ctx *ctx = api_ctx_of(3, in);
    if (!ctx) return api_no_ctx(name, API_NO_OPERAND_CTX);
    if (ctx->err) return api_err(ctx);
    const rt_aval *xp = api_aval(x, name + 3), *ip = api_aval(indices, name + 3), *up = api_aval(updates, name + 3);
    if (!xp || !ip || !up || check_indices(ctx, name + 3, indices)) return api_err(ctx);
    rt_aval xa = *xp, ia = *ip, ua = *up;
    int64_t ax;
    if (api_axis(ctx, name + 3, axis, xa.rank, &ax) != 0) return api_err(ctx);
    int rank = xa.rank - 1 + ia.rank;
    if (rank > CJ_MAX_RANK || ia.rank + 1 > CJ_MAX_RANK) {
        core_error(ctx, CJ_ERR_SHAPE, "%s: indexing axis %lld of rank %d with indices of rank %d gives rank %d (at most %d)",
                   name + 3, (long long)ax, xa.rank, ia.rank, rank, CJ_MAX_RANK);
        return api_err(ctx);
    }
    int64_t shape[CJ_MAX_RANK];
    int n = 0;
    for (int d = 0; d < ax; d++) shape[n++] = xa.dims[d];
    for (int d = 0; d < ia.rank; d++) shape[n++] = ia.dims[d];
    for (int d = (int)ax + 1; d < xa.rank; d++) shape[n++] = xa.dims[d];
    int fits = ua.rank <= rank;
    for (int d = 0; fits && d < ua.rank; d++) {
        int64_t s = ua.dims[ua.rank - 1 - d];
        fits = s == 1 || s == shape[rank - 1 - d];
    }
    if (!fits) {
        char ut[96], st[160];
        rt_aval_str(&ua, ut, sizeof ut);
        rt_dims_str(rank, shape, st, sizeof st);
        core_error(ctx, CJ_ERR_SHAPE, "%s: updates %s do not broadcast to the indexed shape %s", name + 3, ut, st);
        return api_err(ctx);
    }
    /* jnp wraps negative indices once; what is still out of range drops.
     * Indices narrower than 32 bits are widened first, so that the axis
     * size they wrap by is representable. */
    if (rt_dtypes[ia.dtype].size < 4) {
        indices = cj_astype(indices, CJ_I32);
        ia.dtype = CJ_I32;
    }
    cj_val dim = cj_scalar_typed(ctx, (double)xa.dims[ax], ia.dtype);
    cj_val zero = cj_scalar_typed(ctx, 0, ia.dtype);
    cj_val wrapped = cj_where(cj_lt(indices, zero), cj_add(indices, dim), indices);
    cj_val idx = cj_expand_dims(wrapped, -1);
    cj_val u = api_broadcast_to(api_convert(updates, xa.dtype, xa.weak), rank, shape);
    cj_scatter_dnums dn;
    memset(&dn, 0, sizeof dn);
    for (int d = 0; d < xa.rank; d++)
        if (d != ax) dn.update_window_dims.v[dn.update_window_dims.n++] = d < ax ? d : d - 1 + ia.rank;
    dn.inserted_window_dims.n = dn.scatter_dims_to_operand_dims.n = 1;
    dn.inserted_window_dims.v[0] = dn.scatter_dims_to_operand_dims.v[0] = ax;
    return cj_scatter(x, idx, u, &dn, kind, CJ_INDEX_FILL_OR_DROP);
}

cj_val cj_at_set(cj_val x, int64_t axis, cj_val indices, cj_val updates) {
    return at_update("cj_at_set", x, axis, indices, updates, CJ_SCATTER_SET);
}
cj_val cj_at_add(cj_val x, int64_t axis, cj_val indices, cj_val updates) {
    return at_update("cj_at_add", x, axis, indices, updates, CJ_SCATTER_ADD);
}
cj_val cj_at_mul(cj_val x, int64_t axis, cj_val indices, cj_val updates) {
    return at_update("cj_at_mul", x, axis, indices, updates, CJ_SCATTER_MUL);
}
cj_val cj_at_min(cj_val x, int64_t axis, cj_val indices, cj_val updates) {
    return at_update("cj_at_min", x, axis, indices, updates, CJ_SCATTER_MIN);
}
cj_val cj_at_max(cj_val x, int64_t axis, cj_val indices, cj_val updates) {
    return at_update("cj_at_max", x, axis, indices, updates, CJ_SCATTER_MAX);
}
