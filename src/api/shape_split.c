/* shape_split.c — jax.numpy's functions that cut an array into pieces or
 * build grids (api layer): cj_split, cj_array_split, cj_split_indices,
 * cj_meshgrid, cj_tri.
 *
 * split and array_split are slices along one axis at boundaries computed
 * here from the sections or indices (as jnp's _split); meshgrid is one
 * broadcast_in_dim per input; tri compares two iotas, as jnp.tri. All
 * made of primitives, so they trace, batch and differentiate as those. */
#include <string.h>

#include "compose.h"

/* out[0..n) = error values; returns the status to give back. */
static cj_status fail_outs(cj_ctx *ctx, int n, cj_val *out) {
    for (int i = 0; out && i < n; i++) out[i] = api_err(ctx);
    return ctx && ctx->err ? ctx->err : CJ_ERR_ARG;
}

/* The pieces of x between the n + 1 boundaries along ax (each in 0..size,
 * non-decreasing). */
static cj_status cut(cj_val x, const rt_aval *a, int64_t ax, int n, const int64_t *bounds, cj_val *out) {
    int64_t lo[CJ_MAX_RANK] = {0}, hi[CJ_MAX_RANK];
    memcpy(hi, a->dims, sizeof hi);
    for (int i = 0; i < n; i++) {
        lo[ax] = bounds[i];
        hi[ax] = bounds[i + 1];
        out[i] = cj_slice(x, lo, hi, NULL);
    }
    return x.ctx->err ? fail_outs(x.ctx, n, out) : CJ_OK;
}

/* Checks common to the three splits; 0 or -1 (outs set to errors). */
static int split_start(cj_val x, const char *op, int64_t axis, cj_val *out, rt_aval *a, int64_t *ax) {
    if (!out) {
        core_error(x.ctx, CJ_ERR_ARG, "%s: out is NULL", op);
        return -1;
    }
    if (compose_operand(x, op, a) != 0) return -1;
    return compose_axis(x.ctx, op, axis, a->rank, a, ax);
}

static cj_status split_sections(const char *op, cj_val x, int64_t sections, int64_t axis, int equal, cj_val *out) {
    rt_aval a;
    int64_t ax;
    if (sections <= 0 || sections > INT32_MAX) {
        core_error(x.ctx, CJ_ERR_ARG, "%s: sections must be in 1..2^31-1, got %lld", op, (long long)sections);
        return x.ctx ? x.ctx->err : CJ_ERR_ARG;
    }
    if (split_start(x, op, axis, out, &a, &ax) != 0) return fail_outs(x.ctx, out ? (int)sections : 0, out);
    int n = (int)sections;
    int64_t size = a.dims[ax], part = size / n, rest = size % n;
    if (equal && rest != 0) {
        char t[96];
        rt_aval_str(&a, t, sizeof t);
        core_error(x.ctx, CJ_ERR_SHAPE, "%s: axis %lld of %s (size %lld) does not split into %d equal sections", op,
                   (long long)ax, t, (long long)size, n);
        return fail_outs(x.ctx, n, out);
    }
    int64_t *b = rt_alloc(x.ctx->mem, sizeof(int64_t) * (size_t)(n + 1));
    if (!b) {
        core_oom(x.ctx, op);
        return fail_outs(x.ctx, n, out);
    }
    /* array_split: the first size % n pieces one longer */
    b[0] = 0;
    for (int i = 0; i < n; i++) b[i + 1] = b[i] + part + (i < rest);
    cj_status st = cut(x, &a, ax, n, b, out);
    rt_free(x.ctx->mem, b, sizeof(int64_t) * (size_t)(n + 1));
    return st;
}

cj_status cj_split(cj_val x, int64_t sections, int64_t axis, cj_val *out) {
    return split_sections("cj_split", x, sections, axis, 1, out);
}

cj_status cj_array_split(cj_val x, int64_t sections, int64_t axis, cj_val *out) {
    return split_sections("cj_array_split", x, sections, axis, 0, out);
}

/* jnp.split(x, indices, axis): n + 1 pieces, x[:i0], x[i0:i1], ...,
 * x[i_{n-1}:]. As in JAX (whose lax.split takes the piece sizes), the
 * indices must be non-decreasing within 0..size: a negative or
 * decreasing one is an error, where NumPy would give empty pieces. */
cj_status cj_split_indices(cj_val x, int n, const int64_t *indices, int64_t axis, cj_val *out) {
    rt_aval a;
    int64_t ax;
    if (n < 0 || (n && !indices)) {
        core_error(x.ctx, CJ_ERR_ARG, "cj_split_indices: %s", n < 0 ? "n must be >= 0" : "indices is NULL");
        return fail_outs(x.ctx, 0, out);
    }
    if (split_start(x, "cj_split_indices", axis, out, &a, &ax) != 0) return fail_outs(x.ctx, out ? n + 1 : 0, out);
    int64_t *b = rt_alloc(x.ctx->mem, sizeof(int64_t) * (size_t)(n + 2));
    if (!b) {
        core_oom(x.ctx, "cj_split_indices");
        return fail_outs(x.ctx, n + 1, out);
    }
    int64_t size = a.dims[ax];
    b[0] = 0;
    b[n + 1] = size;
    for (int i = 0; i < n; i++) {
        b[i + 1] = indices[i];
        if (indices[i] < b[i] || indices[i] > size) {
            char t[96];
            rt_aval_str(&a, t, sizeof t);
            core_error(x.ctx, CJ_ERR_ARG,
                       "cj_split_indices: indices must be non-decreasing within 0..%lld (axis %lld of %s); index %d is %lld",
                       (long long)size, (long long)ax, t, i, (long long)indices[i]);
            rt_free(x.ctx->mem, b, sizeof(int64_t) * (size_t)(n + 2));
            return fail_outs(x.ctx, n + 1, out);
        }
    }
    cj_status st = cut(x, &a, ax, n + 1, b, out);
    rt_free(x.ctx->mem, b, sizeof(int64_t) * (size_t)(n + 2));
    return st;
}

/* jnp.meshgrid(*xs, indexing, sparse): n 1-D arrays; output i has xs[i]
 * along axis i ("ij") — with "xy" (NULL too) the first two axes swap
 * roles, so for two inputs of lengths (a, b) the outputs are [b, a].
 * sparse keeps size 1 on the other axes. Dtypes are kept. */
cj_status cj_meshgrid(int n, const cj_val *xs, const char *indexing, int sparse, cj_val *out) {
    if (n <= 0 || n > CJ_MAX_RANK || !xs || !out) {
        cj_ctx *c = n > 0 && xs ? api_ctx_of(n, xs) : NULL;
        core_error(c, CJ_ERR_ARG, "cj_meshgrid: %s",
                   !out ? "out is NULL" : !xs ? "xs is NULL" : "needs 1 to 8 arrays");
        return fail_outs(c, out && n > 0 && n <= CJ_MAX_RANK ? n : 0, out);
    }
    cj_ctx *ctx = api_ctx_of(n, xs);
    if (!ctx) {
        core_error(NULL, CJ_ERR_ARG, "cj_meshgrid: " API_NO_OPERAND_CTX);
        return fail_outs(NULL, n, out);
    }
    int xy = !indexing || strcmp(indexing, "xy") == 0;
    if (!xy && strcmp(indexing, "ij") != 0) {
        core_error(ctx, CJ_ERR_ARG, "cj_meshgrid: indexing must be \"xy\" or \"ij\", got \"%s\"", indexing);
        return fail_outs(ctx, n, out);
    }
    int64_t len[CJ_MAX_RANK];
    for (int i = 0; i < n; i++) {
        rt_aval a;
        char what[32];
        snprintf(what, sizeof what, "array %d", i);
        if (compose_other(ctx, xs[i], "cj_meshgrid", what, &a) != 0) return fail_outs(ctx, n, out);
        if (a.rank != 1) {
            char t[96];
            rt_aval_str(&a, t, sizeof t);
            core_error(ctx, CJ_ERR_SHAPE, "cj_meshgrid: every array must be 1-D, array %d is %s", i, t);
            return fail_outs(ctx, n, out);
        }
        len[i] = a.dims[0];
    }
    /* the axis each input lies along */
    int64_t along[CJ_MAX_RANK], shape[CJ_MAX_RANK];
    for (int i = 0; i < n; i++) along[i] = i;
    if (xy && n >= 2) along[0] = 1, along[1] = 0;
    for (int i = 0; i < n; i++) shape[along[i]] = len[i];
    for (int i = 0; i < n; i++) {
        int64_t s[CJ_MAX_RANK];
        for (int d = 0; d < n; d++) s[d] = sparse ? 1 : shape[d];
        s[along[i]] = len[i];
        out[i] = cj_broadcast_in_dim(xs[i], n, s, &along[i]);
    }
    if (ctx->err) return fail_outs(ctx, n, out);
    return CJ_OK;
}

/* jnp.tri(n, m, k): ones at and below diagonal k of an n×m matrix (m < 0
 * means m = n), zeros above. */
cj_val cj_tri(cj_ctx *ctx, int64_t n, int64_t m, int64_t k, cj_dtype dtype) {
    if (!ctx) return api_no_ctx("cj_tri", "ctx is NULL");
    if (ctx->err) return api_err(ctx);
    if (m < 0) m = n;
    if (n < 0) return compose_fail(ctx, CJ_ERR_SHAPE, "cj_tri: n must be >= 0, got %lld", (long long)n);
    if (!rt_dtype_valid((int)dtype)) return compose_fail(ctx, CJ_ERR_DTYPE, "cj_tri: %d is not a dtype", (int)dtype);
    int64_t shape[2] = {n, m};
    cj_val rows = cj_iota(ctx, CJ_I64, 2, shape, 0);
    cj_val cols = cj_iota(ctx, CJ_I64, 2, shape, 1);
    cj_val on = cj_ge(cj_add(rows, cj_scalar_typed(ctx, (double)k, CJ_I64)), cols);
    return api_convert(on, dtype, 0);
}
