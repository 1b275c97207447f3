/* scan_assoc.c — jax.lax.associative_scan (api layer): cj_associative_scan
 * with a user's combining function, and compose_associative_scan, the same
 * algorithm for a C combiner inside cjax (cj_cumlogsumexp).
 *
 * The algorithm is JAX's parallel prefix (Blelloch-style, as in
 * jax/_src/lax/control_flow/loops.py): combine adjacent pairs (the slices
 * at even and odd positions along the axis), scan those pairs recursively,
 * combine the results with the remaining even slices, and interleave
 * evens and odds — pad each with interior zeros and add them (or them, for
 * bools), as JAX does. The combiner is called O(log n) times on whole
 * slices, so the result is one traced program of slices, pads and the
 * combiner's operations: jit, vmap and grad apply as to any composite.
 * reverse scans the reversed arrays and reverses the results. */
#include <string.h>

#include "compose.h"

enum { MAX_ELEMS = 32 };

typedef struct scan_state {
    cj_ctx *ctx;
    const char *op;
    compose_combine_fn f;
    void *user;
    int n;
    int64_t axis;
    rt_aval type[MAX_ELEMS]; /* each array's dtype and rank (its shape along axis changes) */
} scan_state;

/* Slices x[start:limit:stride] along the axis. */
static cj_val slice_axis(const scan_state *s, cj_val x, int64_t start, int64_t limit, int64_t stride) {
    int64_t lo[CJ_MAX_RANK] = {0}, hi[CJ_MAX_RANK], st[CJ_MAX_RANK];
    int r = cj_val_shape(x, hi);
    for (int d = 0; d < r; d++) st[d] = 1;
    lo[s->axis] = start;
    hi[s->axis] = limit > start ? limit : start;
    st[s->axis] = stride;
    return cj_slice(x, lo, hi, st);
}

/* The combiner on a and b, with its outputs checked: each must have the
 * dtype and shape of its a. 0 or -1. */
static int combine(const scan_state *s, const cj_val *a, const cj_val *b, cj_val *out) {
    if (s->f(s->user, s->n, a, b, out) != 0 || s->ctx->err) return -1;
    for (int i = 0; i < s->n; i++) {
        rt_aval want, got;
        if (compose_other(s->ctx, a[i], s->op, "an operand", &want) != 0) return -1;
        if (compose_other(s->ctx, out[i], s->op, "the combining function's output", &got) != 0) return -1;
        if (got.dtype != want.dtype || got.rank != want.rank ||
            memcmp(got.dims, want.dims, sizeof(int64_t) * (size_t)got.rank) != 0) {
            char t[96], u[96];
            rt_aval_str(&got, t, sizeof t);
            rt_aval_str(&want, u, sizeof u);
            return core_error(s->ctx, CJ_ERR_SHAPE,
                              "%s: the combining function's output %d is %s, its inputs are %s (it must keep dtype and shape)",
                              s->op, i, t, u);
        }
    }
    return 0;
}

/* a and b interleaved along the axis (a[0], b[0], a[1], ...); a has as
 * many slices as b or one more. */
static cj_val interleave(const scan_state *s, cj_val a, cj_val b) {
    int64_t na = cj_val_dim(a, (int)s->axis), nb = cj_val_dim(b, (int)s->axis);
    int64_t alo[CJ_MAX_RANK] = {0}, ahi[CJ_MAX_RANK] = {0}, blo[CJ_MAX_RANK] = {0}, bhi[CJ_MAX_RANK] = {0},
            in[CJ_MAX_RANK] = {0};
    ahi[s->axis] = na == nb ? 1 : 0;
    blo[s->axis] = 1;
    bhi[s->axis] = na == nb ? 0 : 1;
    in[s->axis] = 1;
    cj_dtype dt = cj_val_dtype(a);
    cj_val zero = cj_scalar_typed(s->ctx, 0, dt);
    cj_val pa = cj_pad(a, zero, alo, ahi, in), pb = cj_pad(b, zero, blo, bhi, in);
    return dt == CJ_BOOL ? cj_or(pa, pb) : cj_add(pa, pb);
}

/* The inclusive scan of elems (length len along the axis) into out. */
static int scan_rec(const scan_state *s, const cj_val *elems, int64_t len, cj_val *out) {
    int n = s->n;
    if (len < 2) {
        memcpy(out, elems, sizeof(cj_val) * (size_t)n);
        return 0;
    }
    cj_val evens[MAX_ELEMS], odds[MAX_ELEMS], reduced[MAX_ELEMS], odd_scan[MAX_ELEMS], even_scan[MAX_ELEMS];
    for (int i = 0; i < n; i++) {
        evens[i] = slice_axis(s, elems[i], 0, len - 1, 2);
        odds[i] = slice_axis(s, elems[i], 1, len, 2);
    }
    if (combine(s, evens, odds, reduced) != 0) return -1;
    if (scan_rec(s, reduced, len / 2, odd_scan) != 0) return -1;
    cj_val left[MAX_ELEMS], right[MAX_ELEMS];
    for (int i = 0; i < n; i++) {
        left[i] = len % 2 == 0 ? slice_axis(s, odd_scan[i], 0, len / 2 - 1, 1) : odd_scan[i];
        right[i] = slice_axis(s, elems[i], 2, len, 2);
    }
    if (len > 2) {
        if (combine(s, left, right, even_scan) != 0) return -1;
    }
    for (int i = 0; i < n; i++) {
        cj_val first = slice_axis(s, elems[i], 0, 1, 1);
        cj_val e = len > 2 ? cj_concatenate(2, (cj_val[]){first, even_scan[i]}, s->axis) : first;
        out[i] = interleave(s, e, odd_scan[i]);
    }
    return s->ctx->err ? -1 : 0;
}

int compose_associative_scan(cj_ctx *ctx, const char *op, compose_combine_fn f, void *user, int n,
                             const cj_val *elems, int64_t axis, int reverse, cj_val *out) {
    for (int i = 0; i < n; i++) out[i] = api_err(ctx);
    if (n < 1 || n > MAX_ELEMS) return core_error(ctx, CJ_ERR_ARG, "%s: needs 1 to %d arrays, got %d", op, MAX_ELEMS, n);
    scan_state s = {.ctx = ctx, .op = op, .f = f, .user = user, .n = n};
    int64_t len = -1, ax = 0;
    for (int i = 0; i < n; i++) {
        char what[32];
        snprintf(what, sizeof what, "array %d", i);
        rt_aval *a = &s.type[i];
        if (compose_other(ctx, elems[i], op, what, a) != 0) return -1;
        if (a->rank == 0) return core_error(ctx, CJ_ERR_SHAPE, "%s: array %d is a scalar; the scan needs an axis", op, i);
        /* as JAX: the axis is normalised against the first array */
        if (i == 0 && compose_axis(ctx, op, axis, a->rank, a, &ax) != 0) return -1;
        if (i == 0) len = a->dims[ax];
        if (ax >= a->rank || a->dims[ax] != len) {
            char t0[96], t1[96];
            rt_aval_str(&s.type[0], t0, sizeof t0);
            rt_aval_str(a, t1, sizeof t1);
            return core_error(ctx, CJ_ERR_SHAPE, "%s: every array must have the same length along axis %lld: array 0 is %s, array %d %s",
                              op, (long long)axis, t0, i, t1);
        }
    }
    s.axis = ax;
    cj_val in[MAX_ELEMS], res[MAX_ELEMS];
    for (int i = 0; i < n; i++) in[i] = reverse ? cj_rev(elems[i], 1, &ax) : elems[i];
    if (scan_rec(&s, in, len, res) != 0) {
        for (int i = 0; i < n; i++) out[i] = api_err(ctx);
        return -1;
    }
    for (int i = 0; i < n; i++) out[i] = reverse ? cj_rev(res[i], 1, &ax) : res[i];
    return ctx->err ? -1 : 0;
}

/* The user's cj_func as a combiner: inputs a[0..n) then b[0..n). */
static int call_func(void *user, int n, const cj_val *a, const cj_val *b, cj_val *out) {
    cj_val in[2 * MAX_ELEMS];
    memcpy(in, a, sizeof(cj_val) * (size_t)n);
    memcpy(in + n, b, sizeof(cj_val) * (size_t)n);
    return cj_call((cj_func *)user, in, out) == CJ_OK ? 0 : -1;
}

cj_status cj_associative_scan(cj_func *fn, int n, const cj_val *elems, int64_t axis, int reverse, cj_val *out) {
    cj_ctx *ctx = n > 0 && elems ? api_ctx_of(n, elems) : NULL;
    if (!out || !elems || !fn || n < 1) {
        core_error(ctx, CJ_ERR_ARG, "cj_associative_scan: %s",
                   !fn ? "fn is NULL" : !out ? "out is NULL" : !elems ? "elems is NULL" : "needs at least one array");
        for (int i = 0; out && i < n; i++) out[i] = api_err(ctx);
        return ctx && ctx->err ? ctx->err : CJ_ERR_ARG;
    }
    if (!ctx) {
        core_error(NULL, CJ_ERR_ARG, "cj_associative_scan: " API_NO_OPERAND_CTX);
        for (int i = 0; i < n; i++) out[i] = api_err(NULL);
        return CJ_ERR_ARG;
    }
    if (ctx->err) {
        for (int i = 0; i < n; i++) out[i] = api_err(ctx);
        return ctx->err;
    }
    if (n <= MAX_ELEMS && (cj_func_n_in(fn) != 2 * n || cj_func_n_out(fn) != n)) {
        core_error(ctx, CJ_ERR_ARG, "cj_associative_scan: fn '%s' has %d inputs and %d outputs; a scan of %d arrays needs %d and %d",
                   cj_func_name(fn), cj_func_n_in(fn), cj_func_n_out(fn), n, 2 * n, n);
        for (int i = 0; i < n; i++) out[i] = api_err(ctx);
        return ctx->err;
    }
    compose_associative_scan(ctx, "cj_associative_scan", call_func, fn, n, elems, axis, reverse, out);
    return ctx->err;
}
