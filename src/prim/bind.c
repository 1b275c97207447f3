/* bind.c — the strict helpers rules bind primitives through (prim layer;
 * contract in bind.h). Each is one core_bind with the parameters filled
 * in; no dtype promotion, no implicit broadcasting, no axis normalisation
 * (those belong to the public operations in src/api/, above this layer). */
#include <string.h>

#include "bind.h"

static void set_ivec(prim_ivec *v, int n, const int64_t *values) {
    v->n = n;
    for (int i = 0; i < n; i++) v->v[i] = values ? values[i] : 0;
}

/* The type of an operand; NULL for an error value (whose error is already
 * recorded) or when the context holds an error. */
static const rt_aval *aval_of(cj_val x) {
    if (!x.ctx || x.ctx->err) return NULL;
    core_value *cv = core_peek(x);
    return cv ? &cv->aval : NULL;
}

cj_val bind_scalar(cj_ctx *ctx, double c, cj_dtype dtype, int weak) {
    if (!ctx || ctx->err) return core_err_val(ctx);
    rt_aval a = rt_aval_make(dtype, 0, NULL);
    a.weak = weak != 0;
    rt_array *arr = rt_array_new(ctx->mem, &a);
    if (!arr) {
        core_oom(ctx, "a rule's constant");
        return core_err_val(ctx);
    }
    rt_set_f64(dtype, arr->data, 0, c);
    return core_wrap_array(ctx, arr);
}

cj_val bind_full(cj_ctx *ctx, double c, cj_dtype dtype, int rank, const int64_t *dims) {
    cj_val s = bind_scalar(ctx, c, dtype, 0);
    if (rank == 0) return s;
    return bind_broadcast_in_dim(s, rank, dims, NULL);
}

cj_val bind_iota(cj_ctx *ctx, cj_dtype dtype, int rank, const int64_t *dims, int64_t axis) {
    prim_params p = prim_params_zero();
    if (rt_is_narrow_float(dtype)) { /* the iota primitive takes no f16/bf16: an f32 one, rounded */
        cj_val i = bind_iota(ctx, CJ_F32, rank, dims, axis);
        return bind_convert(i, dtype);
    }
    p.dtype = dtype;
    set_ivec(&p.shape, rank, dims);
    p.axes.n = 1;
    p.axes.v[0] = axis;
    return core_bind(ctx, PRIM_IOTA, &p, 0, NULL);
}

cj_val bind_unary(prim_id prim, cj_val x) {
    prim_params p = prim_params_zero();
    return core_bind(x.ctx, prim, &p, 1, &x);
}

cj_val bind_binary(prim_id prim, cj_val a, cj_val b) {
    prim_params p = prim_params_zero();
    return core_bind(a.ctx, prim, &p, 2, (cj_val[]){a, b});
}

cj_val bind_select(cj_val pred, cj_val on_false, cj_val on_true) {
    prim_params p = prim_params_zero();
    return core_bind(pred.ctx, PRIM_SELECT, &p, 3, (cj_val[]){pred, on_false, on_true});
}

cj_val bind_where(cj_val pred, cj_val on_true, cj_val on_false) { return bind_select(pred, on_false, on_true); }

cj_val bind_clamp(cj_val lo, cj_val x, cj_val hi) {
    prim_params p = prim_params_zero();
    return core_bind(x.ctx, PRIM_CLAMP, &p, 3, (cj_val[]){lo, x, hi});
}

cj_val bind_convert(cj_val x, cj_dtype dtype) {
    const rt_aval *a = aval_of(x);
    if (!a) return core_err_val(x.ctx);
    if (a->dtype == dtype && !a->weak) return x;
    prim_params p = prim_params_zero();
    p.dtype = dtype;
    return core_bind(x.ctx, PRIM_CONVERT, &p, 1, &x);
}

cj_val bind_broadcast_in_dim(cj_val x, int rank, const int64_t *dims, const int64_t *bdims) {
    const rt_aval *a = aval_of(x);
    if (!a) return core_err_val(x.ctx);
    prim_params p = prim_params_zero();
    set_ivec(&p.shape, rank, dims);
    set_ivec(&p.axes, a->rank, bdims);
    return core_bind(x.ctx, PRIM_BROADCAST_IN_DIM, &p, 1, &x);
}

cj_val bind_expand(cj_val x, int rank, const int64_t *dims) {
    const rt_aval *a = aval_of(x);
    if (!a) return core_err_val(x.ctx);
    if (a->rank == rank && memcmp(a->dims, dims, sizeof(int64_t) * (size_t)rank) == 0) return x;
    /* the axes that grow are squeezed away first, so broadcast_in_dim maps
     * only axes that keep their size (its rule); a rank mismatch or an
     * axis that is neither 1 nor its target is left to those primitives'
     * checks */
    prim_params sq = prim_params_zero(), p = prim_params_zero();
    set_ivec(&p.shape, rank, dims);
    for (int d = 0; d < a->rank; d++) {
        if (d < rank && a->dims[d] != dims[d] && a->dims[d] == 1) sq.axes.v[sq.axes.n++] = d;
        else p.axes.v[p.axes.n++] = d;
    }
    cj_val src = x;
    if (sq.axes.n) src = core_bind(x.ctx, PRIM_SQUEEZE, &sq, 1, &x);
    return core_bind(x.ctx, PRIM_BROADCAST_IN_DIM, &p, 1, &src);
}

cj_val bind_reshape(cj_val x, int rank, const int64_t *dims) {
    const rt_aval *a = aval_of(x);
    if (!a) return core_err_val(x.ctx);
    if (a->rank == rank && memcmp(a->dims, dims, sizeof(int64_t) * (size_t)rank) == 0) return x;
    prim_params p = prim_params_zero();
    set_ivec(&p.shape, rank, dims);
    return core_bind(x.ctx, PRIM_RESHAPE, &p, 1, &x);
}

cj_val bind_transpose(cj_val x, const int64_t *perm) {
    const rt_aval *a = aval_of(x);
    if (!a) return core_err_val(x.ctx);
    int identity = 1;
    for (int d = 0; d < a->rank; d++) identity &= perm[d] == d;
    if (identity) return x;
    prim_params p = prim_params_zero();
    set_ivec(&p.axes, a->rank, perm);
    return core_bind(x.ctx, PRIM_TRANSPOSE, &p, 1, &x);
}

cj_val bind_pad(cj_val x, cj_val value, const int64_t *lo, const int64_t *hi, const int64_t *interior) {
    const rt_aval *a = aval_of(x);
    if (!a) return core_err_val(x.ctx);
    prim_params p = prim_params_zero();
    set_ivec(&p.lo, a->rank, lo);
    set_ivec(&p.hi, a->rank, hi);
    set_ivec(&p.step, a->rank, interior); /* NULL: zeros, as cj_pad writes them */
    return core_bind(x.ctx, PRIM_PAD, &p, 2, (cj_val[]){x, value});
}

cj_val bind_reduce(prim_id prim, cj_val x, int n, const int64_t *axes) {
    prim_params p = prim_params_zero();
    set_ivec(&p.axes, n, axes);
    return core_bind(x.ctx, prim, &p, 1, &x);
}

cj_val bind_cumulative(prim_id prim, cj_val x, int64_t axis, int reverse) {
    prim_params p = prim_params_zero();
    p.axes.n = 1;
    p.axes.v[0] = axis;
    p.flag = reverse != 0;
    return core_bind(x.ctx, prim, &p, 1, &x);
}

cj_val bind_take_along(cj_val x, cj_val idx, int64_t axis) {
    prim_params p = prim_params_zero();
    p.axes.n = 1;
    p.axes.v[0] = axis;
    p.flag = 1;
    return core_bind(x.ctx, PRIM_GATHER, &p, 2, (cj_val[]){x, idx});
}
