/* elementwise.c — the public elementwise operations, jax.numpy style
 * (api layer).
 *
 * Each cj_* here promotes its operands by JAX's lattice, broadcasts them
 * NumPy-style (api_elementwise) and binds one strict primitive of
 * src/prim/elementwise.c; where jax.numpy differs from lax it is done here,
 * before binding: float-only functions of ints compute in f32 (jnp.sin of
 * an int array), true division and atan2 of ints give floats, + and * of
 * bools are `or` and `and`, floor/ceil/round of ints and bools and abs of
 * bools return them unchanged. The purely elementwise composites (relu,
 * sigmoid, gelu, clip, square) are written in terms of those operations, so
 * every transformation applies to them for free; where jax.nn gives one a
 * custom derivative (relu), a stop_gradient in the composite reproduces it. */
#include <math.h>

#include "api.h"

/* ---- helpers ---- */

static cj_val bind1(prim_id prim, cj_val x) {
    prim_params p = prim_params_zero();
    return core_bind(x.ctx, prim, &p, 1, &x);
}

/* x at the promoted type (dt, weak). Only a different dtype needs a
 * convert: an operand that differs in weakness alone goes in as it is,
 * because a primitive's result is weak only when all its operands are,
 * and a strong operand of the promoted dtype already makes the promoted
 * type strong. So `x_f32 * 2.0` stays one mul with a literal. */
static cj_val to_promoted(cj_val x, cj_dtype dt, int weak) {
    const rt_aval *a = api_aval(x, "convert_element_type");
    if (!a) return api_err(x.ctx);
    return a->dtype == dt ? x : api_convert(x, dt, weak);
}

/* The type in[first..n) promote to by JAX's lattice. With `inexact`, an
 * integer or bool result becomes a float by jnp's to_inexact_dtype (i64 →
 * f64, i32 and bool → f32), keeping weakness (jnp's true_divide and
 * arctan2 promote_args_inexact). -1 with
 * the error recorded when an operand is not a live value. */
static int promoted_type(prim_id prim, int n, const cj_val *in, int first, int inexact, cj_dtype *dt,
                         int *weak) {
    rt_aval avals[3];
    for (int i = first; i < n; i++) {
        const rt_aval *a = api_aval(in[i], prim_names[prim]);
        if (!a) return -1;
        avals[i - first] = *a;
    }
    api_result_type(n - first, avals, dt, weak);
    if (inexact) *dt = api_inexact_dtype(*dt);
    return 0;
}

/* Promotes in[first..n) in place (select_n's predicate, operand 0, takes
 * no part). 0, or -1 with the error recorded. */
static int promote(prim_id prim, int n, cj_val *in, int first, int inexact) {
    cj_dtype dt;
    int weak;
    if (promoted_type(prim, n, in, first, inexact, &dt, &weak) != 0) return -1;
    for (int i = first; i < n; i++) in[i] = to_promoted(in[i], dt, weak);
    return 0;
}

/* Promote, broadcast NumPy-style (api_elementwise), bind. */
static cj_val nary(prim_id prim, int n, cj_val *in, int first, int inexact) {
    cj_ctx *ctx = api_ctx_of(n, in);
    if (!ctx) return api_no_ctx(prim_names[prim], API_NO_OPERAND_CTX);
    if (ctx->err) return api_err(ctx);
    if (promote(prim, n, in, first, inexact) != 0) return api_err(ctx);
    return api_elementwise(prim, n, in, 0);
}

static cj_val binary(prim_id prim, cj_val a, cj_val b) { return nary(prim, 2, (cj_val[]){a, b}, 0, 0); }

/* jnp's "inexact" binary operations (true_divide, arctan2). */
static cj_val binary_inexact(prim_id prim, cj_val a, cj_val b) {
    return nary(prim, 2, (cj_val[]){a, b}, 0, 1);
}

/* api.h: a weak constant at dt's precision. */
cj_val api_weak_constant(cj_ctx *ctx, double c, cj_dtype dt) {
    if (!ctx) return api_err(NULL);
    if (ctx->err) return api_err(ctx);
    rt_aval a = rt_aval_make(dt, 0, NULL);
    a.weak = 1;
    rt_array *arr = rt_array_new(ctx->mem, &a);
    if (!arr) {
        core_oom(ctx, "constant");
        return api_err(ctx);
    }
    rt_set_f64(dt, arr->data, 0, c);
    return core_wrap_array(ctx, arr);
}

/* The float dtype jnp computes x in (to_inexact_dtype). */
static cj_dtype inexact_dtype(const rt_aval *a) { return api_inexact_dtype(a->dtype); }

/* ---- unary ---- */

cj_val cj_neg(cj_val x) { return bind1(PRIM_NEG, x); }
cj_val cj_sign(cj_val x) { return bind1(PRIM_SIGN, x); }
cj_val cj_not(cj_val x) { return bind1(PRIM_NOT, x); }

cj_val cj_abs(cj_val x) {
    const rt_aval *a = api_aval(x, "abs");
    if (!a) return api_err(x.ctx);
    /* jnp.abs of bools and unsigned integers is the identity (lax.abs
     * refuses unsigned ones; the fuzzer found cj_abs passing them on) */
    if (a->dtype == CJ_BOOL || rt_is_unsigned(a->dtype)) return x;
    return bind1(PRIM_ABS, x);
}

/* floor, ceil and round of integers and bools are the values themselves,
 * as in jax.numpy. */
static cj_val rounding(prim_id prim, cj_val x) {
    const rt_aval *a = api_aval(x, prim_names[prim]);
    if (!a) return api_err(x.ctx);
    if (!rt_is_float(a->dtype)) return x;
    return bind1(prim, x);
}

cj_val cj_floor(cj_val x) { return rounding(PRIM_FLOOR, x); }
cj_val cj_ceil(cj_val x) { return rounding(PRIM_CEIL, x); }
cj_val cj_round(cj_val x) { return rounding(PRIM_ROUND, x); }

cj_val cj_exp(cj_val x) { return api_float_unary(PRIM_EXP, x); }
cj_val cj_exp2(cj_val x) { return api_float_unary(PRIM_EXP2, x); }
cj_val cj_log(cj_val x) { return api_float_unary(PRIM_LOG, x); }
cj_val cj_log1p(cj_val x) { return api_float_unary(PRIM_LOG1P, x); }
cj_val cj_expm1(cj_val x) { return api_float_unary(PRIM_EXPM1, x); }
cj_val cj_sqrt(cj_val x) { return api_float_unary(PRIM_SQRT, x); }
cj_val cj_rsqrt(cj_val x) { return api_float_unary(PRIM_RSQRT, x); }
cj_val cj_cbrt(cj_val x) { return api_float_unary(PRIM_CBRT, x); }
cj_val cj_sin(cj_val x) { return api_float_unary(PRIM_SIN, x); }
cj_val cj_cos(cj_val x) { return api_float_unary(PRIM_COS, x); }
cj_val cj_tan(cj_val x) { return api_float_unary(PRIM_TAN, x); }
cj_val cj_asin(cj_val x) { return api_float_unary(PRIM_ASIN, x); }
cj_val cj_acos(cj_val x) { return api_float_unary(PRIM_ACOS, x); }
cj_val cj_atan(cj_val x) { return api_float_unary(PRIM_ATAN, x); }
cj_val cj_sinh(cj_val x) { return api_float_unary(PRIM_SINH, x); }
cj_val cj_cosh(cj_val x) { return api_float_unary(PRIM_COSH, x); }
cj_val cj_tanh(cj_val x) { return api_float_unary(PRIM_TANH, x); }
cj_val cj_logistic(cj_val x) { return api_float_unary(PRIM_LOGISTIC, x); }
cj_val cj_erf(cj_val x) { return api_float_unary(PRIM_ERF, x); }

/* Integers and bools are always finite (jnp.isfinite): x == x is true for
 * every element and keeps x's shape, traced or not. */
cj_val cj_is_finite(cj_val x) {
    const rt_aval *a = api_aval(x, "is_finite");
    if (!a) return api_err(x.ctx);
    if (!rt_is_float(a->dtype)) return cj_eq(x, x);
    return bind1(PRIM_IS_FINITE, x);
}

/* ---- binary ---- */

/* + and * of bools are logical or / and, as in jax.numpy. */
static cj_val add_or_mul(prim_id prim, prim_id bool_prim, cj_val a, cj_val b) {
    cj_val in[2] = {a, b};
    cj_ctx *ctx = api_ctx_of(2, in);
    if (!ctx) return api_no_ctx(prim_names[prim], API_NO_OPERAND_CTX);
    if (ctx->err) return api_err(ctx);
    cj_dtype dt;
    int weak;
    if (promoted_type(prim, 2, in, 0, 0, &dt, &weak) != 0) return api_err(ctx);
    return binary(dt == CJ_BOOL ? bool_prim : prim, a, b);
}

cj_val cj_add(cj_val a, cj_val b) { return add_or_mul(PRIM_ADD, PRIM_OR, a, b); }
cj_val cj_mul(cj_val a, cj_val b) { return add_or_mul(PRIM_MUL, PRIM_AND, a, b); }
cj_val cj_sub(cj_val a, cj_val b) { return binary(PRIM_SUB, a, b); }
cj_val cj_div(cj_val a, cj_val b) { return binary_inexact(PRIM_DIV, a, b); }
cj_val cj_rem(cj_val a, cj_val b) { return binary(PRIM_REM, a, b); }
cj_val cj_pow(cj_val a, cj_val b) { return binary(PRIM_POW, a, b); }
cj_val cj_max(cj_val a, cj_val b) { return binary(PRIM_MAX, a, b); }
cj_val cj_min(cj_val a, cj_val b) { return binary(PRIM_MIN, a, b); }
cj_val cj_atan2(cj_val a, cj_val b) { return binary_inexact(PRIM_ATAN2, a, b); }
cj_val cj_eq(cj_val a, cj_val b) { return binary(PRIM_EQ, a, b); }
cj_val cj_ne(cj_val a, cj_val b) { return binary(PRIM_NE, a, b); }
cj_val cj_lt(cj_val a, cj_val b) { return binary(PRIM_LT, a, b); }
cj_val cj_le(cj_val a, cj_val b) { return binary(PRIM_LE, a, b); }
cj_val cj_gt(cj_val a, cj_val b) { return binary(PRIM_GT, a, b); }
cj_val cj_ge(cj_val a, cj_val b) { return binary(PRIM_GE, a, b); }
cj_val cj_and(cj_val a, cj_val b) { return binary(PRIM_AND, a, b); }
cj_val cj_or(cj_val a, cj_val b) { return binary(PRIM_OR, a, b); }
cj_val cj_xor(cj_val a, cj_val b) { return binary(PRIM_XOR, a, b); }
cj_val cj_shift_left(cj_val a, cj_val b) { return binary(PRIM_SHIFT_LEFT, a, b); }
cj_val cj_shift_right_logical(cj_val a, cj_val b) { return binary(PRIM_SHIFT_RIGHT_LOGICAL, a, b); }
cj_val cj_shift_right_arithmetic(cj_val a, cj_val b) { return binary(PRIM_SHIFT_RIGHT_ARITHMETIC, a, b); }
cj_val cj_population_count(cj_val x) { return bind1(PRIM_POPULATION_COUNT, x); }

static cj_val bitcast_same(cj_val x, cj_dtype dtype) {
    prim_params p = prim_params_zero();
    p.dtype = dtype;
    return core_bind(x.ctx, PRIM_BITCAST_CONVERT_TYPE, &p, 1, &x);
}

/* The unsigned integer type of a width in bytes. */
static cj_dtype uint_of(size_t width) {
    return width == 1 ? CJ_U8 : width == 2 ? CJ_U16 : width == 4 ? CJ_U32 : CJ_U64;
}

/* lax.bitcast_convert_type across widths, over the same-width primitive:
 * wide → narrow splits each element into r = wide/narrow pieces on a new
 * last axis, lowest bits first (the order of the bytes in memory on the
 * little-endian CPUs cjax runs on, so it is lax's on CPU); narrow → wide
 * joins a last axis of exactly r pieces. Shifts and conversions of the
 * unsigned types of each width, so it jits and vmaps as they do. */
static cj_val bitcast_widths(cj_val x, const rt_aval *a, cj_dtype dtype) {
    cj_ctx *ctx = x.ctx;
    size_t wi = rt_dtypes[a->dtype].size, wo = rt_dtypes[dtype].size;
    char t[96];
    rt_aval_str(a, t, sizeof t);
    if (a->dtype == CJ_BOOL || dtype == CJ_BOOL) {
        core_error(ctx, CJ_ERR_DTYPE, "bitcast_convert_type: bool converts only to bool, got %s to %s", t,
                   cj_dtype_name(dtype));
        return api_err(ctx);
    }
    cj_dtype ui = uint_of(wi), uo = uint_of(wo);
    cj_val u = a->dtype == ui ? x : bitcast_same(x, ui);
    if (wi > wo) {
        int64_t r = (int64_t)(wi / wo);
        if (a->rank + 1 > CJ_MAX_RANK) {
            core_error(ctx, CJ_ERR_SHAPE, "bitcast_convert_type: %s to %s needs rank %d (at most %d)", t,
                       cj_dtype_name(dtype), a->rank + 1, CJ_MAX_RANK);
            return api_err(ctx);
        }
        cj_val parts[8];
        for (int64_t k = 0; k < r; k++) {
            cj_val sh = cj_shift_right_logical(u, cj_scalar_typed(ctx, (double)(8 * wo * (size_t)k), ui));
            parts[k] = cj_astype(sh, uo); /* an unsigned conversion keeps the low bits */
        }
        cj_val out = cj_stack((int)r, parts, a->rank);
        return dtype == uo ? out : bitcast_same(out, dtype);
    }
    int64_t r = (int64_t)(wo / wi);
    if (a->rank < 1 || a->dims[a->rank - 1] != r) {
        core_error(ctx, CJ_ERR_SHAPE,
                   "bitcast_convert_type: %s to %s needs a last axis of %lld (the width ratio), as lax", t,
                   cj_dtype_name(dtype), (long long)r);
        return api_err(ctx);
    }
    cj_val acc = {0};
    for (int64_t k = 0; k < r; k++) {
        int64_t lo[CJ_MAX_RANK] = {0}, hi[CJ_MAX_RANK];
        for (int d = 0; d < a->rank; d++) hi[d] = a->dims[d];
        lo[a->rank - 1] = k;
        hi[a->rank - 1] = k + 1;
        cj_val piece = cj_astype(cj_reshape(cj_slice(u, lo, hi, NULL), a->rank - 1, a->dims), uo);
        piece = cj_shift_left(piece, cj_scalar_typed(ctx, (double)(8 * wi * (size_t)k), uo));
        acc = k == 0 ? piece : cj_or(acc, piece);
    }
    return dtype == uo ? acc : bitcast_same(acc, dtype);
}

cj_val cj_bitcast_convert_type(cj_val x, cj_dtype dtype) {
    const rt_aval *a = api_aval(x, "bitcast_convert_type");
    if (!a) return api_err(x.ctx);
    if (rt_dtype_valid((int)dtype) && rt_dtype_valid((int)a->dtype) && rt_dtypes[dtype].size != rt_dtypes[a->dtype].size)
        return bitcast_widths(x, a, dtype);
    return bitcast_same(x, dtype);
}

/* ---- ternary ---- */

/* select_n takes (pred, on_false, on_true): where's cases swap. */
cj_val cj_where(cj_val cond, cj_val a, cj_val b) {
    cj_ctx *ctx = api_ctx_of(3, (cj_val[]){cond, a, b});
    if (!ctx) return api_no_ctx("cj_where", API_NO_OPERAND_CTX);
    if (ctx->err) return api_err(ctx);
    const rt_aval *c = api_aval(cond, "where");
    if (!c) return api_err(ctx);
    if (c->dtype != CJ_BOOL) cond = cj_ne(cond, cj_scalar_int(ctx, 0));
    return nary(PRIM_SELECT, 3, (cj_val[]){cond, b, a}, 1, 0);
}

/* lax.clamp wants x at the result's shape and lo/hi rank 0 or the same;
 * here all three promote and broadcast together first (jnp.clip). */
cj_val cj_clamp(cj_val lo, cj_val x, cj_val hi) {
    cj_val in[3] = {lo, x, hi};
    cj_ctx *ctx = api_ctx_of(3, in);
    if (!ctx) return api_no_ctx("cj_clamp", API_NO_OPERAND_CTX);
    if (ctx->err) return api_err(ctx);
    if (promote(PRIM_CLAMP, 3, in, 0, 0) != 0) return api_err(ctx);
    rt_aval avals[3];
    for (int i = 0; i < 3; i++) {
        const rt_aval *a = api_aval(in[i], "clamp");
        if (!a) return api_err(ctx);
        avals[i] = *a;
    }
    int rank;
    int64_t dims[CJ_MAX_RANK];
    if (api_broadcast_shapes(ctx, "clamp", 3, avals, &rank, dims) != 0) return api_err(ctx);
    for (int i = 0; i < 3; i++)
        if (i == 1 || avals[i].rank != 0) in[i] = api_broadcast_to(in[i], rank, dims);
    prim_params p = prim_params_zero();
    return core_bind(ctx, PRIM_CLAMP, &p, 3, in);
}

cj_val cj_astype(cj_val x, cj_dtype dtype) {
    if (!x.ctx) return api_err(NULL);
    if (x.ctx->err) return api_err(x.ctx);
    if (!rt_dtype_valid((int)dtype)) {
        core_error(x.ctx, CJ_ERR_DTYPE, "astype: %d is not a dtype", (int)dtype);
        return api_err(x.ctx);
    }
    return api_convert(x, dtype, 0);
}

/* ---- composites ---- */

/* jax.nn.relu is max(x, 0) with a custom jvp, g where x > 0 and 0
 * elsewhere: its derivative at 0 is 0, where max's balanced rule would
 * give 0.5 at the tie. The select carries that rule as a composite: x
 * where x > 0 (derivative 1), elsewhere the value of max(x, 0) with no
 * derivative (+0 for x <= 0, NaN for NaN), which is max(x, 0) everywhere;
 * its second derivative is 0, as JAX's. */
cj_val cj_relu(cj_val x) {
    cj_val zero = cj_scalar_int(x.ctx, 0);
    cj_val rest = bind1(PRIM_STOP_GRADIENT, cj_max(x, zero));
    return cj_where(cj_gt(x, zero), x, rest);
}
cj_val cj_sigmoid(cj_val x) { return cj_logistic(x); }
cj_val cj_square(cj_val x) { return cj_mul(x, x); }

/* jax.nn.gelu(approximate=True): x·½(1 + tanh(√(2/π)(x + 0.044715x³))). */
cj_val cj_gelu(cj_val x) {
    const rt_aval *a = api_aval(x, "gelu");
    if (!a) return api_err(x.ctx);
    cj_ctx *ctx = x.ctx;
    cj_dtype dt = inexact_dtype(a);
    x = api_convert(x, dt, a->weak);
    cj_val cube = cj_mul(cj_mul(x, x), x);
    cj_val inner = cj_mul(api_weak_constant(ctx, 0.79788456080286535588 /* √(2/π) */, dt),
                          cj_add(x, cj_mul(api_weak_constant(ctx, 0.044715, dt), cube)));
    cj_val cdf = cj_mul(api_weak_constant(ctx, 0.5, dt),
                        cj_add(api_weak_constant(ctx, 1.0, dt), cj_tanh(inner)));
    return cj_mul(x, cdf);
}

/* jnp.clip(x, lo, hi) = min(max(x, lo), hi). C has one number type for
 * the bounds, so integral bounds of an integer x are taken as Python ints
 * would be (the result stays integer; bounds beyond the dtype's range
 * saturate to it, which clips the same), any other bounds as Python
 * floats (an integer x then promotes to a weak f32). */
cj_val cj_clip(cj_val x, double lo, double hi) {
    const rt_aval *a = api_aval(x, "clip");
    if (!a) return api_err(x.ctx);
    cj_ctx *ctx = x.ctx;
    cj_dtype bound_dt = inexact_dtype(a);
    if (!rt_is_float(a->dtype) && lo == floor(lo) && hi == floor(hi)) {
        bound_dt = a->dtype == CJ_I64 ? CJ_I64 : CJ_I32;
        double lim = bound_dt == CJ_I64 ? 9.2233720368547758e18 : 2147483647.0;
        lo = fmax(fmin(lo, lim), -lim - 1);
        hi = fmax(fmin(hi, lim), -lim - 1);
    }
    return cj_min(cj_max(x, api_weak_constant(ctx, lo, bound_dt)), api_weak_constant(ctx, hi, bound_dt));
}
