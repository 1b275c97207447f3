/* shape_compose.c — jax.numpy's shape functions made of the shape
 * operations (api layer): cj_stack, cj_hstack, cj_vstack, cj_dstack,
 * cj_column_stack, cj_tile, cj_repeat, cj_repeat_each, cj_roll,
 * cj_roll_dynamic, cj_flip,
 * cj_moveaxis, cj_swapaxes, cj_atleast_1d/2d/3d, cj_broadcast_arrays.
 *
 * Each follows jnp's definition in terms of lax operations (expand_dims +
 * concatenate for stack; reshape + broadcast + reshape for tile and a
 * scalar repeat; slices + concatenate for roll; a transpose for moveaxis),
 * so every transformation and both jit backends get them from the
 * primitives underneath. Checks of the user's axes and counts are made
 * here, naming the function and the operand's type; everything else is
 * the primitives' (src/prim/shape.c). */
#include <string.h>

#include "compose.h"

/* ---- stacking ---- */

/* xs[i] through `each` into a fresh array of n values (the caller frees
 * it with rt_free, n entries); NULL after recording why. */
static cj_val *map_values(cj_ctx *ctx, const char *op, int n, const cj_val *xs, cj_val (*each)(cj_val)) {
    cj_val *ys = rt_alloc(ctx->mem, sizeof(cj_val) * (size_t)n);
    if (!ys) {
        core_oom(ctx, op);
        return NULL;
    }
    for (int i = 0; i < n; i++) ys[i] = each(xs[i]);
    return ys;
}

/* The context of n values, or NULL after recording why (n <= 0, xs NULL,
 * no operand with a context, an error already held). */
static cj_ctx *values_ctx(const char *op, int n, const cj_val *xs) {
    if (n <= 0) {
        core_error(NULL, CJ_ERR_ARG, "%s: needs at least one value (n = %d)", op, n);
        return NULL;
    }
    if (!xs) {
        core_error(NULL, CJ_ERR_ARG, "%s: xs is NULL", op);
        return NULL;
    }
    cj_ctx *ctx = api_ctx_of(n, xs);
    if (!ctx) {
        core_error(NULL, CJ_ERR_ARG, "%s: " API_NO_OPERAND_CTX, op);
        return NULL;
    }
    return ctx->err ? NULL : ctx;
}

static cj_val concat_mapped(const char *op, int n, const cj_val *xs, cj_val (*each)(cj_val), int64_t axis) {
    cj_ctx *ctx = values_ctx(op, n, xs);
    if (!ctx) return api_err(api_ctx_of(n > 0 && xs ? n : 0, xs));
    cj_val *ys = map_values(ctx, op, n, xs, each);
    if (!ys) return api_err(ctx);
    cj_val r = cj_concatenate(n, ys, axis);
    rt_free(ctx->mem, ys, sizeof(cj_val) * (size_t)n);
    return r;
}

/* jnp.stack: every array of one shape, joined along a new axis (counted in
 * the result's rank), dtypes promoted together as concatenate does. */
cj_val cj_stack(int n, const cj_val *xs, int64_t axis) {
    cj_ctx *ctx = values_ctx("cj_stack", n, xs);
    if (!ctx) return api_err(api_ctx_of(n > 0 && xs ? n : 0, xs));
    rt_aval first, a;
    if (compose_other(ctx, xs[0], "cj_stack", "operand 0", &first) != 0) return api_err(ctx);
    for (int i = 1; i < n; i++) {
        char what[32];
        snprintf(what, sizeof what, "operand %d", i);
        if (compose_other(ctx, xs[i], "cj_stack", what, &a) != 0) return api_err(ctx);
        if (a.rank != first.rank || memcmp(a.dims, first.dims, sizeof(int64_t) * (size_t)a.rank) != 0) {
            char t0[96], t1[96];
            rt_aval_str(&first, t0, sizeof t0);
            rt_aval_str(&a, t1, sizeof t1);
            return compose_fail(ctx, CJ_ERR_SHAPE, "cj_stack: every array must have the same shape: operand 0 is %s, operand %d %s",
                                t0, i, t1);
        }
    }
    if (first.rank == CJ_MAX_RANK)
        return compose_fail(ctx, CJ_ERR_SHAPE, "cj_stack: the operands already have the maximum rank %d", CJ_MAX_RANK);
    int64_t ax;
    if (compose_axis(ctx, "cj_stack", axis, first.rank + 1, &first, &ax) != 0) return api_err(ctx);
    cj_val *ys = rt_alloc(ctx->mem, sizeof(cj_val) * (size_t)n);
    if (!ys) {
        core_oom(ctx, "cj_stack");
        return api_err(ctx);
    }
    for (int i = 0; i < n; i++) ys[i] = cj_expand_dims(xs[i], ax);
    cj_val r = cj_concatenate(n, ys, ax);
    rt_free(ctx->mem, ys, sizeof(cj_val) * (size_t)n);
    return r;
}

/* jnp.hstack: 1-D arrays end to end, others along axis 1 (rank-0 ones as
 * 1-D), decided by the first operand as jnp does. */
cj_val cj_hstack(int n, const cj_val *xs) {
    cj_ctx *ctx = values_ctx("cj_hstack", n, xs);
    if (!ctx) return api_err(api_ctx_of(n > 0 && xs ? n : 0, xs));
    rt_aval a;
    if (compose_other(ctx, xs[0], "cj_hstack", "operand 0", &a) != 0) return api_err(ctx);
    return concat_mapped("cj_hstack", n, xs, cj_atleast_1d, a.rank <= 1 ? 0 : 1);
}

cj_val cj_vstack(int n, const cj_val *xs) { return concat_mapped("cj_vstack", n, xs, cj_atleast_2d, 0); }

cj_val cj_dstack(int n, const cj_val *xs) { return concat_mapped("cj_dstack", n, xs, cj_atleast_3d, 2); }

/* jnp.column_stack: arrays of rank < 2 become columns (atleast_2d, then
 * transposed), then everything joins along axis 1. */
static cj_val as_column(cj_val x) {
    if (cj_is_error(x) || cj_val_rank(x) >= 2) return x;
    return cj_transpose(cj_atleast_2d(x), NULL);
}

cj_val cj_column_stack(int n, const cj_val *xs) { return concat_mapped("cj_column_stack", n, xs, as_column, 1); }

/* ---- atleast_*d ---- */

cj_val cj_atleast_1d(cj_val x) {
    rt_aval a;
    if (compose_operand(x, "cj_atleast_1d", &a) != 0) return api_err(x.ctx);
    return a.rank >= 1 ? x : cj_reshape(x, 1, (int64_t[]){1});
}

cj_val cj_atleast_2d(cj_val x) {
    rt_aval a;
    if (compose_operand(x, "cj_atleast_2d", &a) != 0) return api_err(x.ctx);
    if (a.rank >= 2) return x;
    return cj_reshape(x, 2, (int64_t[]){1, a.rank ? a.dims[0] : 1});
}

/* jnp.atleast_3d: a scalar is [1,1,1], [n] is [1,n,1], [m,n] is [m,n,1]. */
cj_val cj_atleast_3d(cj_val x) {
    rt_aval a;
    if (compose_operand(x, "cj_atleast_3d", &a) != 0) return api_err(x.ctx);
    if (a.rank >= 3) return x;
    if (a.rank == 2) return cj_reshape(x, 3, (int64_t[]){a.dims[0], a.dims[1], 1});
    return cj_reshape(x, 3, (int64_t[]){1, a.rank ? a.dims[0] : 1, 1});
}

/* ---- tile and repeat ---- */

/* x repeated r times along axis ax (as whole blocks: [a b] → [a b a b])
 * or element by element (each: [a a b b]): a size-1 axis inserted before
 * (or after) ax, broadcast to r, merged back; the rank-8 case, which has
 * no room for the extra axis, concatenates (blocks) or gathers. */
static cj_val repeat_axis(cj_val x, const rt_aval *a, int64_t ax, int64_t r, int each) {
    if (r == 1) return x;
    int rank = a->rank;
    int64_t merged[CJ_MAX_RANK];
    memcpy(merged, a->dims, sizeof merged);
    merged[ax] *= r;
    if (rank == CJ_MAX_RANK) {
        if (!each) {
            cj_val *parts = rt_alloc(x.ctx->mem, sizeof(cj_val) * (size_t)(r ? r : 1));
            if (!parts) {
                core_oom(x.ctx, "cj_tile");
                return api_err(x.ctx);
            }
            for (int64_t i = 0; i < r; i++) parts[i] = x;
            cj_val out = r ? cj_concatenate((int)r, parts, ax) : cj_zeros(x.ctx, a->dtype, rank, merged);
            rt_free(x.ctx->mem, parts, sizeof(cj_val) * (size_t)(r ? r : 1));
            return out;
        }
        int64_t total = merged[ax];
        cj_val idx = cj_div(cj_iota(x.ctx, CJ_I64, 1, &total, 0), compose_const(x.ctx, (double)r, CJ_I64));
        return cj_take(x, cj_astype(cj_floor(idx), CJ_I64), ax);
    }
    int64_t split[CJ_MAX_RANK], bshape[CJ_MAX_RANK];
    int64_t at = each ? ax + 1 : ax; /* where the new axis goes */
    for (int d = 0, k = 0; d <= rank; d++) {
        if (d == at) {
            split[d] = 1;
            bshape[d] = r;
        } else {
            split[d] = bshape[d] = a->dims[k++];
        }
    }
    cj_val y = cj_broadcast_to(cj_reshape(x, rank + 1, split), rank + 1, bshape);
    return cj_reshape(y, rank, merged);
}

/* jnp.tile: reps shorter than x's rank repeat its last axes; longer ones
 * first give x leading size-1 axes. */
cj_val cj_tile(cj_val x, int n_reps, const int64_t *reps) {
    rt_aval a;
    if (compose_operand(x, "cj_tile", &a) != 0) return api_err(x.ctx);
    if (n_reps < 0 || n_reps > CJ_MAX_RANK || (n_reps && !reps))
        return compose_fail(x.ctx, CJ_ERR_ARG, "cj_tile: %s", !reps && n_reps > 0 ? "reps is NULL"
                                                                               : "reps must have 0 to 8 entries");
    for (int i = 0; i < n_reps; i++)
        if (reps[i] < 0) {
            char t[96];
            rt_aval_str(&a, t, sizeof t);
            return compose_fail(x.ctx, CJ_ERR_ARG, "cj_tile: reps[%d] is %lld for %s; repetitions must be >= 0", i,
                                (long long)reps[i], t);
        }
    if (n_reps > a.rank) {
        int64_t shape[CJ_MAX_RANK];
        int lead = n_reps - a.rank;
        for (int d = 0; d < n_reps; d++) shape[d] = d < lead ? 1 : a.dims[d - lead];
        x = cj_reshape(x, n_reps, shape);
        a.rank = n_reps;
        memcpy(a.dims, shape, sizeof shape);
    }
    int lead = a.rank - n_reps;
    for (int d = lead; d < a.rank; d++) {
        x = repeat_axis(x, &a, d, reps[d - lead], 0);
        a.dims[d] *= reps[d - lead];
    }
    return x;
}

/* The axis a repeat works on: axis, or the flattened x's 0 for
 * CJ_AXIS_NONE (x and *a are replaced). 0 or -1. */
static int repeat_target(const char *op, cj_val *x, rt_aval *a, int64_t axis, int64_t *ax) {
    if (axis == CJ_AXIS_NONE) {
        int64_t n = rt_aval_size(a);
        *x = cj_reshape(*x, 1, &n);
        a->rank = 1;
        a->dims[0] = n;
        *ax = 0;
        return 0;
    }
    return compose_axis(x->ctx, op, axis, a->rank, a, ax);
}

/* jnp.repeat(x, repeats, axis) with one repeat count for every element. */
cj_val cj_repeat(cj_val x, int64_t repeats, int64_t axis) {
    rt_aval a;
    int64_t ax;
    if (compose_operand(x, "cj_repeat", &a) != 0) return api_err(x.ctx);
    if (repeats < 0) return compose_fail(x.ctx, CJ_ERR_ARG, "cj_repeat: repeats must be >= 0, got %lld", (long long)repeats);
    if (repeat_target("cj_repeat", &x, &a, axis, &ax) != 0) return api_err(x.ctx);
    return repeat_axis(x, &a, ax, repeats, 1);
}

/* jnp.repeat with per-element repeats and total_repeat_length: output
 * position j takes element i, the number of elements whose running total
 * of repeats is at most j (searchsorted to the right over the cumulative
 * sums), clamped to the last element, which is what jnp's scatter-and-
 * cumsum construction gives: a total beyond the sum repeats the last
 * element, a shorter one cuts the tail. Works with traced repeats. */
cj_val cj_repeat_each(cj_val x, cj_val repeats, int64_t axis, int64_t total_repeat_length) {
    rt_aval a, r;
    int64_t ax;
    if (compose_operand(x, "cj_repeat_each", &a) != 0) return api_err(x.ctx);
    cj_ctx *ctx = x.ctx;
    if (compose_other(ctx, repeats, "cj_repeat_each", "repeats", &r) != 0) return api_err(ctx);
    if (!rt_is_int(r.dtype) || r.rank > 1) {
        char t[96];
        rt_aval_str(&r, t, sizeof t);
        return compose_fail(ctx, CJ_ERR_DTYPE, "cj_repeat_each: repeats must be an integer scalar or 1-D array, got %s", t);
    }
    if (repeat_target("cj_repeat_each", &x, &a, axis, &ax) != 0) return api_err(ctx);
    int64_t n = a.dims[ax], nr = r.rank ? r.dims[0] : 1;
    if (nr != n && nr != 1) {
        char t[96], u[96];
        rt_aval_str(&a, t, sizeof t);
        rt_aval_str(&r, u, sizeof u);
        return compose_fail(ctx, CJ_ERR_SHAPE, "cj_repeat_each: repeats %s must have 1 or %lld elements (axis %lld of %s)",
                            u, (long long)n, (long long)ax, t);
    }
    cj_val reps = cj_broadcast_to(cj_reshape(repeats, 1, (int64_t[]){nr}), 1, &n);
    if (total_repeat_length < 0) {
        /* as jnp without total_repeat_length: the repeats must be known */
        if (cj_val_is_traced(repeats))
            return compose_fail(ctx, CJ_ERR_CONCRETIZATION,
                                "cj_repeat_each: traced repeats need a total_repeat_length (>= 0)");
        int64_t *h = rt_alloc(ctx->mem, sizeof(int64_t) * (size_t)(n ? n : 1));
        if (!h) {
            core_oom(ctx, "cj_repeat_each");
            return api_err(ctx);
        }
        int bad = cj_read_as(reps, CJ_I64, h, sizeof(int64_t) * (size_t)n) != CJ_OK;
        int64_t total = 0, neg = -1;
        for (int64_t i = 0; !bad && i < n; i++) {
            if (h[i] < 0 && neg < 0) neg = i;
            total += h[i];
        }
        int64_t hv = neg >= 0 ? h[neg] : 0;
        rt_free(ctx->mem, h, sizeof(int64_t) * (size_t)(n ? n : 1));
        if (bad) return api_err(ctx);
        if (neg >= 0)
            return compose_fail(ctx, CJ_ERR_ARG, "cj_repeat_each: repeats must be >= 0, got %lld at %lld", (long long)hv,
                                (long long)neg);
        total_repeat_length = total;
    }
    int64_t out_dims[CJ_MAX_RANK];
    memcpy(out_dims, a.dims, sizeof out_dims);
    out_dims[ax] = total_repeat_length;
    if (total_repeat_length == 0 || rt_aval_size(&a) == 0) {
        if (n == 0 && total_repeat_length > 0)
            return compose_fail(ctx, CJ_ERR_SHAPE, "cj_repeat_each: an empty axis cannot be repeated to length %lld",
                                (long long)total_repeat_length);
        return cj_zeros(ctx, a.dtype, a.rank, out_dims);
    }
    cj_dtype it = r.dtype;
    cj_val ends = cj_cumsum(reps, 0, 0);
    cj_val pos = cj_iota(ctx, it, 1, &total_repeat_length, 0);
    cj_val idx = cj_min(cj_searchsorted(ends, pos, "right"), compose_const(ctx, (double)(n - 1), CJ_I32));
    return cj_take(x, idx, ax);
}

/* ---- roll, flip, moveaxis, swapaxes ---- */

/* x rolled by s along ax (size n > 0): the last s elements first. */
static cj_val roll_axis(cj_val x, const rt_aval *a, int64_t ax, int64_t s) {
    int64_t n = a->dims[ax];
    if (n == 0) return x;
    int64_t i = ((-s) % n + n) % n;
    if (i == 0) return x;
    int64_t lo[CJ_MAX_RANK] = {0}, hi[CJ_MAX_RANK];
    memcpy(hi, a->dims, sizeof hi);
    lo[ax] = i;
    cj_val tail = cj_slice(x, lo, hi, NULL);
    lo[ax] = 0;
    hi[ax] = i;
    cj_val head = cj_slice(x, lo, hi, NULL);
    return cj_concatenate(2, (cj_val[]){tail, head}, ax);
}

/* jnp.roll with static shifts: shift k along axes[k]; axes NULL rolls the
 * flattened array by every shift, then restores the shape. An axis may
 * repeat (its shifts add up), as in jnp. */
cj_val cj_roll(cj_val x, int n, const int64_t *shifts, const int64_t *axes) {
    rt_aval a;
    if (compose_operand(x, "cj_roll", &a) != 0) return api_err(x.ctx);
    if (n < 0 || (n && !shifts)) return compose_fail(x.ctx, CJ_ERR_ARG, "cj_roll: %s", n < 0 ? "n must be >= 0" : "shifts is NULL");
    if (!axes) {
        rt_aval flat = a;
        flat.rank = 1;
        flat.dims[0] = rt_aval_size(&a);
        cj_val y = cj_reshape(x, 1, flat.dims);
        for (int k = 0; k < n; k++) y = roll_axis(y, &flat, 0, shifts[k]);
        return cj_reshape(y, a.rank, a.dims);
    }
    for (int k = 0; k < n; k++) {
        int64_t ax;
        if (compose_axis(x.ctx, "cj_roll", axes[k], a.rank, &a, &ax) != 0) return api_err(x.ctx);
        x = roll_axis(x, &a, ax, shifts[k]);
    }
    return x;
}

/* jnp.flip: lax.rev over the axes (n_axes < 0 or axes NULL: all). */
cj_val cj_flip(cj_val x, int n_axes, const int64_t *axes) {
    rt_aval a;
    int64_t ax[CJ_MAX_RANK];
    if (compose_operand(x, "cj_flip", &a) != 0) return api_err(x.ctx);
    int k = compose_axes(x.ctx, "cj_flip", n_axes, axes, &a, ax);
    if (k < 0) return api_err(x.ctx);
    return cj_rev(x, k, ax);
}

/* jnp.moveaxis: the source axes go to the destination positions, the
 * others keep their order (the permutation jnp builds: the remaining axes,
 * then each source inserted at its destination in destination order). */
cj_val cj_moveaxis(cj_val x, int n, const int64_t *source, const int64_t *destination) {
    rt_aval a;
    if (compose_operand(x, "cj_moveaxis", &a) != 0) return api_err(x.ctx);
    if (n < 0 || n > a.rank || (n && (!source || !destination))) {
        char t[96];
        rt_aval_str(&a, t, sizeof t);
        return compose_fail(x.ctx, CJ_ERR_ARG, "cj_moveaxis: %s for %s",
                            n < 0 || n > a.rank ? "more axes than the rank (or n < 0)" : "source or destination is NULL", t);
    }
    int64_t src[CJ_MAX_RANK], dst[CJ_MAX_RANK];
    unsigned seen_s = 0, seen_d = 0;
    for (int i = 0; i < n; i++) {
        if (compose_axis(x.ctx, "cj_moveaxis", source[i], a.rank, &a, &src[i]) != 0 ||
            compose_axis(x.ctx, "cj_moveaxis", destination[i], a.rank, &a, &dst[i]) != 0)
            return api_err(x.ctx);
        if ((seen_s & (1u << src[i])) || (seen_d & (1u << dst[i]))) {
            char t[96];
            rt_aval_str(&a, t, sizeof t);
            return compose_fail(x.ctx, CJ_ERR_AXIS, "cj_moveaxis: repeated %s axis %lld for %s",
                                (seen_s & (1u << src[i])) ? "source" : "destination",
                                (long long)((seen_s & (1u << src[i])) ? source[i] : destination[i]), t);
        }
        seen_s |= 1u << src[i];
        seen_d |= 1u << dst[i];
    }
    int64_t perm[CJ_MAX_RANK];
    int k = 0;
    for (int d = 0; d < a.rank; d++)
        if (!(seen_s & (1u << d))) perm[k++] = d;
    /* insert in increasing destination order */
    for (int done = 0; done < n; done++) {
        int best = -1;
        for (int i = 0; i < n; i++)
            if (dst[i] >= 0 && (best < 0 || dst[i] < dst[best])) best = i;
        for (int j = k; j > dst[best]; j--) perm[j] = perm[j - 1];
        perm[dst[best]] = src[best];
        k++;
        dst[best] = -1;
    }
    return cj_transpose(x, perm);
}

cj_val cj_swapaxes(cj_val x, int64_t axis1, int64_t axis2) {
    rt_aval a;
    int64_t a1, a2;
    if (compose_operand(x, "cj_swapaxes", &a) != 0) return api_err(x.ctx);
    if (compose_axis(x.ctx, "cj_swapaxes", axis1, a.rank, &a, &a1) != 0 ||
        compose_axis(x.ctx, "cj_swapaxes", axis2, a.rank, &a, &a2) != 0)
        return api_err(x.ctx);
    int64_t perm[CJ_MAX_RANK];
    for (int d = 0; d < a.rank; d++) perm[d] = d;
    perm[a1] = a2;
    perm[a2] = a1;
    return cj_transpose(x, perm);
}

/* ---- broadcast_arrays ---- */

/* jnp.broadcast_arrays: every value broadcast to the shapes' common
 * NumPy broadcast; dtypes unchanged. */
cj_status cj_broadcast_arrays(int n, const cj_val *xs, cj_val *out) {
    cj_ctx *ctx = values_ctx("cj_broadcast_arrays", n, xs);
    if (!out) {
        core_error(ctx, CJ_ERR_ARG, "cj_broadcast_arrays: out is NULL");
        return ctx ? ctx->err : CJ_ERR_ARG;
    }
    if (!ctx) {
        for (int i = 0; i < n; i++) out[i] = api_err(NULL);
        cj_ctx *c = n > 0 && xs ? api_ctx_of(n, xs) : NULL;
        return c && c->err ? c->err : CJ_ERR_ARG;
    }
    rt_aval *avals = rt_alloc(ctx->mem, sizeof(rt_aval) * (size_t)n);
    if (!avals) {
        core_oom(ctx, "cj_broadcast_arrays");
        for (int i = 0; i < n; i++) out[i] = api_err(ctx);
        return ctx->err;
    }
    int bad = 0, rank = 0;
    int64_t dims[CJ_MAX_RANK];
    for (int i = 0; i < n && !bad; i++) {
        char what[32];
        snprintf(what, sizeof what, "operand %d", i);
        bad = compose_other(ctx, xs[i], "cj_broadcast_arrays", what, &avals[i]) != 0;
    }
    if (!bad) bad = api_broadcast_shapes(ctx, "cj_broadcast_arrays", n, avals, &rank, dims) != 0;
    rt_free(ctx->mem, avals, sizeof(rt_aval) * (size_t)n);
    for (int i = 0; i < n; i++) out[i] = bad ? api_err(ctx) : api_broadcast_to(xs[i], rank, dims);
    return ctx->err;
}

/* jnp.roll with a traced shift along one axis (jnp's _roll_dynamic): the
 * window of length n at n - (shift mod n) of x concatenated with itself. */
cj_val cj_roll_dynamic(cj_val x, cj_val shift, int64_t axis) {
    rt_aval a, s;
    int64_t ax;
    if (compose_operand(x, "cj_roll_dynamic", &a) != 0) return api_err(x.ctx);
    if (compose_other(x.ctx, shift, "cj_roll_dynamic", "the shift", &s) != 0) return api_err(x.ctx);
    if (s.rank != 0 || !rt_is_int(s.dtype)) {
        char t[96];
        rt_aval_str(&s, t, sizeof t);
        return compose_fail(x.ctx, CJ_ERR_DTYPE, "cj_roll_dynamic: the shift must be an integer scalar, got %s", t);
    }
    if (compose_axis(x.ctx, "cj_roll_dynamic", axis, a.rank, &a, &ax) != 0) return api_err(x.ctx);
    int64_t n = a.dims[ax];
    if (n == 0) return x;
    cj_dtype dt = s.dtype == CJ_I32 && n > INT32_MAX / 2 ? CJ_I64 : s.dtype;
    cj_val sh = api_convert(shift, dt, 0), len = cj_scalar_typed(x.ctx, (double)n, dt);
    /* shift mod n in [0, n): C's remainder takes the dividend's sign */
    cj_val m = cj_rem(sh, len);
    m = cj_where(cj_lt(m, cj_scalar_typed(x.ctx, 0, dt)), cj_add(m, len), m);
    cj_val doubled = cj_concatenate(2, (cj_val[]){x, x}, ax);
    cj_val start[CJ_MAX_RANK];
    for (int d = 0; d < a.rank; d++) start[d] = d == ax ? cj_sub(len, m) : cj_scalar_typed(x.ctx, 0, dt);
    return cj_dynamic_slice(doubled, start, a.dims);
}
