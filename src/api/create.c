/* create.c — making arrays: from C buffers, constants, ranges (api layer).
 *
 * Constant-filled and range arrays are built from primitives (a broadcast
 * scalar, iota), so inside a traced function they are staged like any
 * other operation instead of becoming large IR constants. */
#include <math.h>
#include <string.h>

#include "api.h"

static cj_val array_held(cj_ctx *ctx, cj_dtype dtype, int rank, const int64_t *dims, const void *data);

cj_val cj_array(cj_ctx *ctx, cj_dtype dtype, int rank, const int64_t *dims, const void *data) {
    if (!ctx) return api_no_ctx("cj_array", "ctx is NULL");
    if (core_enter(ctx, "cj_array") != 0) return api_err(ctx);
    cj_val v = array_held(ctx, dtype, rank, dims, data);
    core_leave(ctx);
    return v;
}

static cj_val array_held(cj_ctx *ctx, cj_dtype dtype, int rank, const int64_t *dims, const void *data) {
    if (ctx->err || api_check_shape(ctx, "cj_array", dtype, rank, dims) != 0) return api_err(ctx);
    rt_aval a = rt_aval_make(dtype, rank, dims);
    if (!data && rt_aval_size(&a) > 0) {
        core_error(ctx, CJ_ERR_ARG, "cj_array: data is NULL");
        return api_err(ctx);
    }
    rt_array *arr = rt_array_new(ctx->mem, &a);
    if (!arr) {
        char t[96];
        rt_aval_str(&a, t, sizeof t);
        core_error(ctx, CJ_ERR_OOM, "cj_array: out of memory allocating %s", t);
        return api_err(ctx);
    }
    if (rt_aval_nbytes(&a)) memcpy(arr->data, data, rt_aval_nbytes(&a));
    if (dtype == CJ_BOOL) { /* kernels rely on bools being 0 or 1 */
        uint8_t *b = arr->data;
        for (int64_t i = 0; i < arr->size; i++) b[i] = b[i] != 0;
    }
    return core_wrap_array(ctx, arr);
}

static cj_val scalar_held(cj_ctx *ctx, double x, cj_dtype dtype, int weak);

static cj_val scalar(cj_ctx *ctx, double x, cj_dtype dtype, int weak) {
    if (!ctx) return api_no_ctx("cj_scalar", "ctx is NULL");
    if (core_enter(ctx, "cj_scalar") != 0) return api_err(ctx);
    cj_val v = scalar_held(ctx, x, dtype, weak);
    core_leave(ctx);
    return v;
}

static cj_val scalar_held(cj_ctx *ctx, double x, cj_dtype dtype, int weak) {
    if (ctx->err) return api_err(ctx);
    if (!rt_dtype_valid((int)dtype)) {
        core_error(ctx, CJ_ERR_DTYPE, "cj_scalar: %d is not a dtype", (int)dtype);
        return api_err(ctx);
    }
    rt_aval a = rt_aval_make(dtype, 0, NULL);
    a.weak = weak;
    rt_array *arr = rt_array_new(ctx->mem, &a);
    if (!arr) {
        core_oom(ctx, "cj_scalar");
        return api_err(ctx);
    }
    rt_set_f64(dtype, arr->data, 0, x);
    return core_wrap_array(ctx, arr);
}

cj_val cj_scalar(cj_ctx *ctx, double x) { return scalar(ctx, x, CJ_F32, 1); }
cj_val cj_scalar_typed(cj_ctx *ctx, double x, cj_dtype dtype) {
    if (!ctx) return api_no_ctx("cj_scalar_typed", "ctx is NULL");
    return scalar(ctx, x, dtype, 0);
}

cj_val cj_scalar_int(cj_ctx *ctx, int64_t x) {
    if (!ctx) return api_no_ctx("cj_scalar_int", "ctx is NULL");
    cj_val v = scalar(ctx, 0, CJ_I32, 1);
    core_value *cv = core_peek(v);
    if (cv) ((int32_t *)cv->arr->data)[0] = (int32_t)x;
    return v;
}

static cj_val full(cj_ctx *ctx, const char *op, double x, cj_dtype dtype, int rank, const int64_t *dims) {
    if (!ctx) return api_no_ctx(op, "ctx is NULL");
    if (ctx->err || api_check_shape(ctx, op, dtype, rank, dims) != 0) return api_err(ctx);
    cj_val s = scalar(ctx, x, dtype, 0);
    if (rank == 0) return s;
    return api_broadcast_to(s, rank, dims);
}

cj_val cj_full(cj_ctx *ctx, double x, cj_dtype dtype, int rank, const int64_t *dims) {
    return full(ctx, "cj_full", x, dtype, rank, dims);
}

cj_val cj_zeros(cj_ctx *ctx, cj_dtype dtype, int rank, const int64_t *dims) {
    return full(ctx, "cj_zeros", 0.0, dtype, rank, dims);
}

cj_val cj_ones(cj_ctx *ctx, cj_dtype dtype, int rank, const int64_t *dims) {
    return full(ctx, "cj_ones", 1.0, dtype, rank, dims);
}

static cj_val full_like(cj_val v, double x) {
    const rt_aval *a = api_aval(v, "cj_zeros_like");
    if (!a) return api_err(v.ctx);
    return cj_full(v.ctx, x, a->dtype, a->rank, a->dims);
}

cj_val cj_zeros_like(cj_val v) { return full_like(v, 0.0); }
cj_val cj_ones_like(cj_val v) { return full_like(v, 1.0); }

cj_val cj_iota(cj_ctx *ctx, cj_dtype dtype, int rank, const int64_t *shape, int64_t axis) {
    if (!ctx) return api_no_ctx("cj_iota", "ctx is NULL");
    if (ctx->err || api_check_shape(ctx, "cj_iota", dtype, rank, shape) != 0) return api_err(ctx);
    int64_t ax;
    if (api_axis(ctx, "cj_iota", axis, rank, &ax) != 0) return api_err(ctx);
    prim_params p = prim_params_zero();
    p.dtype = dtype;
    p.shape.n = rank;
    memcpy(p.shape.v, shape, sizeof(int64_t) * (size_t)rank);
    p.axes.n = 1;
    p.axes.v[0] = ax;
    if (rt_is_narrow_float(dtype)) { /* lax.iota of f16/bf16: the index rounded (an f32 iota, converted) */
        p.dtype = CJ_F32;
        return api_convert(core_bind(ctx, PRIM_IOTA, &p, 0, NULL), dtype, 0);
    }
    return core_bind(ctx, PRIM_IOTA, &p, 0, NULL);
}

cj_val cj_arange(cj_ctx *ctx, double start, double stop, double step, cj_dtype dtype) {
    if (!ctx) return api_no_ctx("cj_arange", "ctx is NULL");
    if (ctx->err) return api_err(ctx);
    if (step == 0 || isnan(step) || isnan(start) || isnan(stop)) {
        core_error(ctx, CJ_ERR_ARG, "cj_arange: step must be nonzero and bounds finite (got start %g stop %g step %g)",
                   start, stop, step);
        return api_err(ctx);
    }
    double len = ceil((stop - start) / step);
    int64_t n = len > 0 ? (int64_t)len : 0;
    /* integers: iota in the dtype, exact; floats: start + i*step */
    cj_val i = cj_iota(ctx, rt_is_float(dtype) ? dtype : dtype == CJ_BOOL ? CJ_I32 : dtype, 1, &n, 0);
    if (start == 0 && step == 1 && dtype != CJ_BOOL) return i;
    cj_val r = cj_add(cj_mul(i, cj_scalar_typed(ctx, step, rt_is_float(dtype) ? dtype : CJ_F64)),
                      cj_scalar_typed(ctx, start, rt_is_float(dtype) ? dtype : CJ_F64));
    return api_convert(r, dtype, 0);
}

cj_val cj_linspace(cj_ctx *ctx, double start, double stop, int64_t num, cj_dtype dtype) {
    if (!ctx) return api_no_ctx("cj_linspace", "ctx is NULL");
    if (ctx->err) return api_err(ctx);
    if (num < 0) {
        core_error(ctx, CJ_ERR_ARG, "cj_linspace: num must be >= 0, got %lld", (long long)num);
        return api_err(ctx);
    }
    cj_dtype ft = dtype == CJ_F32 ? CJ_F32 : CJ_F64;
    cj_val i = cj_iota(ctx, ft, 1, &num, 0);
    double step = num > 1 ? (stop - start) / (double)(num - 1) : 0.0;
    cj_val r = cj_add(cj_mul(i, cj_scalar_typed(ctx, step, ft)), cj_scalar_typed(ctx, start, ft));
    if (num > 1) { /* the endpoint exactly, as numpy */
        cj_val last = cj_eq(i, cj_scalar_typed(ctx, (double)(num - 1), ft));
        r = cj_where(last, cj_scalar_typed(ctx, stop, ft), r);
    }
    return api_convert(r, dtype, 0);
}

cj_val cj_eye(cj_ctx *ctx, int64_t n, int64_t m, int64_t k, cj_dtype dtype) {
    if (!ctx) return api_no_ctx("cj_eye", "ctx is NULL");
    if (m < 0) m = n;
    int64_t shape[2] = {n, m};
    cj_val rows = cj_iota(ctx, CJ_I64, 2, shape, 0);
    cj_val cols = cj_iota(ctx, CJ_I64, 2, shape, 1);
    cj_val on = cj_eq(cj_add(rows, cj_scalar_typed(ctx, (double)k, CJ_I64)), cols);
    return api_convert(on, dtype, 0);
}
