/* special.c — the rest of jax.numpy's elementwise vocabulary and the
 * special functions of jax.scipy.special (api layer).
 *
 * lax's own primitives here (lgamma, digamma, polygamma, erfc, erf_inv,
 * asinh, acosh, atanh, nextafter, integer_pow) are bound after jnp's
 * promotion (ints and bools to float, as promote_args_inexact). Everything
 * else is a composite of existing operations written as jax.numpy writes
 * it (log2, log10, logaddexp, hypot, remainder, floor_divide, copysign,
 * heaviside, sinc, trunc, ...), so every transformation applies for free.
 * signbit is a primitive here because cjax has no bitcast_convert_type to
 * write it with. Where JAX attaches a custom_jvp (logaddexp, xlogy,
 * xlog1py, sinc at 0), the composite is arranged so that its ordinary
 * derivative is JAX's rule; docs/API.md lists the corner points where the
 * two still differ. */
#include <math.h>

#include "api.h"

/* ---- helpers ---- */

static cj_val bind1(prim_id prim, cj_val x) {
    prim_params p = prim_params_zero();
    return core_bind(x.ctx, prim, &p, 1, &x);
}

/* x as jnp's float functions see it: ints and bools at the float dtype
 * they promote to, keeping weakness. */
static cj_val to_inexact(cj_val x, const char *op) {
    const rt_aval *a = api_aval(x, op);
    if (!a) return api_err(x.ctx);
    return rt_is_float(a->dtype) ? x : api_convert(x, api_inexact_dtype(a->dtype), a->weak);
}

/* Promotes a and b together (to a float with `inexact`); 0, or -1 with the
 * error recorded. */
static int promote2(const char *op, cj_val *a, cj_val *b, int inexact, cj_dtype *dt_out) {
    cj_val in[2] = {*a, *b};
    cj_ctx *ctx = api_ctx_of(2, in);
    if (!ctx) return -1;
    if (ctx->err) return -1;
    rt_aval avals[2];
    for (int i = 0; i < 2; i++) {
        const rt_aval *v = api_aval(in[i], op);
        if (!v) return -1;
        avals[i] = *v;
    }
    cj_dtype dt;
    int weak;
    api_result_type(2, avals, &dt, &weak);
    if (inexact) dt = api_inexact_dtype(dt);
    if (avals[0].dtype != dt) *a = api_convert(*a, dt, weak);
    if (avals[1].dtype != dt) *b = api_convert(*b, dt, weak);
    if (dt_out) *dt_out = dt;
    return ctx->err ? -1 : 0;
}

static cj_val err2(cj_val a, cj_val b, const char *op) {
    cj_ctx *ctx = api_ctx_of(2, (cj_val[]){a, b});
    return ctx ? api_err(ctx) : api_no_ctx(op, API_NO_OPERAND_CTX);
}

static cj_dtype dtype_of(cj_val x) {
    const rt_aval *a = x.ctx && !x.ctx->err ? api_aval(x, "special") : NULL;
    return a ? a->dtype : CJ_F32;
}

static cj_val like(cj_val x, double c) { return api_weak_constant(x.ctx, c, dtype_of(x)); }

/* A strict binary primitive after jnp's inexact promotion and broadcasting. */
static cj_val float_binary(prim_id prim, cj_val a, cj_val b) {
    if (promote2(prim_names[prim], &a, &b, 1, NULL) != 0) return err2(a, b, prim_names[prim]);
    return api_elementwise(prim, 2, (cj_val[]){a, b}, 0);
}

/* ---- lax's primitives ---- */

cj_val cj_lgamma(cj_val x) { return api_float_unary(PRIM_LGAMMA, x); }
cj_val cj_digamma(cj_val x) { return api_float_unary(PRIM_DIGAMMA, x); }
cj_val cj_erfc(cj_val x) { return api_float_unary(PRIM_ERFC, x); }
cj_val cj_erfinv(cj_val x) { return api_float_unary(PRIM_ERF_INV, x); }
cj_val cj_asinh(cj_val x) { return api_float_unary(PRIM_ASINH, x); }
cj_val cj_acosh(cj_val x) { return api_float_unary(PRIM_ACOSH, x); }
cj_val cj_atanh(cj_val x) { return api_float_unary(PRIM_ATANH, x); }
cj_val cj_nextafter(cj_val a, cj_val b) { return float_binary(PRIM_NEXTAFTER, a, b); }
cj_val cj_polygamma(cj_val m, cj_val x) { return float_binary(PRIM_POLYGAMMA, m, x); }

/* lax.integer_pow: no promotion; integers with a negative exponent are an
 * error (abstract_eval says so). */
cj_val cj_integer_pow(cj_val x, int64_t y) {
    if (!x.ctx) return api_err(NULL);
    prim_params p = prim_params_zero();
    p.count = y;
    return core_bind(x.ctx, PRIM_INTEGER_POW, &p, 1, &x);
}

/* jnp.signbit: the sign bit of floats (also of -0.0 and NaN), x < 0 for
 * integers, false for bools. */
cj_val cj_signbit(cj_val x) {
    const rt_aval *a = api_aval(x, "signbit");
    if (!a) return api_err(x.ctx);
    if (a->dtype == CJ_BOOL) return cj_ne(x, x);
    if (!rt_is_float(a->dtype)) return cj_lt(x, cj_scalar_int(x.ctx, 0));
    return bind1(PRIM_SIGNBIT, x);
}

/* ---- logarithms and exponentials ---- */

/* jnp.log2 / log10: log(x) / log(base), the constant at x's precision. */
cj_val cj_log2(cj_val x) {
    x = to_inexact(x, "log2");
    return cj_div(cj_log(x), like(x, 0.69314718055994530942));
}
cj_val cj_log10(cj_val x) {
    x = to_inexact(x, "log10");
    return cj_div(cj_log(x), like(x, 2.30258509299404568402));
}

/* jnp.logaddexp: max + log1p(exp(-|a - b|)), a + b where a - b is NaN (a
 * NaN, or infinities of one sign). Written with min - max in place of
 * -|a - b| (the same bits): at a tie max and min each take half of either
 * tangent, so the derivative is ½, ½ as JAX's custom rule gives, where
 * |a - b|'s would cancel max's. */
static cj_val logaddexp_base(cj_val a, cj_val b, int base2) {
    const char *op = base2 ? "logaddexp2" : "logaddexp";
    if (promote2(op, &a, &b, 1, NULL) != 0) return err2(a, b, op);
    cj_val hi = cj_max(a, b), lo = cj_min(a, b);
    cj_val d = cj_sub(lo, hi);
    cj_val r = base2 ? cj_add(hi, cj_mul(like(a, 1.44269504088896340736 /* 1/ln 2 */), cj_log1p(cj_exp2(d))))
                     : cj_add(hi, cj_log1p(cj_exp(d)));
    cj_val delta = cj_sub(a, b);
    return cj_where(cj_ne(delta, delta), cj_add(a, b), r);
}
cj_val cj_logaddexp(cj_val a, cj_val b) { return logaddexp_base(a, b, 0); }
cj_val cj_logaddexp2(cj_val a, cj_val b) { return logaddexp_base(a, b, 1); }

/* jax.scipy.special.xlogy / xlog1py: x·log(y), 0 where x == 0 (unless y
 * is NaN). JAX's rule differentiates x·log(y) everywhere; at x == 0 the
 * zero branch is x·stop_gradient(log(y)) + 0, which is +0 and carries
 * that tangent in x (log(y) itself where it is finite). */
static cj_val xlog_base(cj_val x, cj_val y, int plus1) {
    const char *op = plus1 ? "xlog1py" : "xlogy";
    if (promote2(op, &x, &y, 1, NULL) != 0) return err2(x, y, op);
    cj_val zero = like(x, 0), inf = like(x, INFINITY);
    cj_val logy = plus1 ? cj_log1p(y) : cj_log(y);
    cj_val finite_y = plus1 ? cj_and(cj_gt(y, like(y, -1)), cj_lt(y, inf)) : cj_and(cj_gt(y, zero), cj_lt(y, inf));
    cj_val safe_y = cj_where(finite_y, y, plus1 ? zero : like(y, 1));
    cj_val safe_log = cj_stop_gradient(plus1 ? cj_log1p(safe_y) : cj_log(safe_y));
    cj_val at_zero = cj_add(cj_mul(x, safe_log), zero);
    cj_val ok = cj_or(cj_ne(x, zero), cj_ne(y, y));
    return cj_where(ok, cj_mul(x, logy), at_zero);
}
cj_val cj_xlogy(cj_val x, cj_val y) { return xlog_base(x, y, 0); }
cj_val cj_xlog1py(cj_val x, cj_val y) { return xlog_base(x, y, 1); }

/* ---- the rest of jnp's elementwise functions ---- */

/* jnp.hypot, JAX's formula: hi·sqrt(1 + (lo/hi)²) on the absolute values,
 * 0 where both are 0, inf where either is (even beside a NaN). */
cj_val cj_hypot(cj_val a, cj_val b) {
    if (promote2("hypot", &a, &b, 1, NULL) != 0) return err2(a, b, "hypot");
    a = cj_abs(a), b = cj_abs(b);
    cj_val inf = like(a, INFINITY), zero = like(a, 0);
    cj_val any_inf = cj_or(cj_eq(a, inf), cj_eq(b, inf));
    cj_val hi = cj_max(a, b), lo = cj_min(a, b);
    cj_val hi_zero = cj_eq(hi, zero);
    cj_val safe = cj_where(hi_zero, like(a, 1), hi);
    cj_val q = cj_div(lo, safe);
    cj_val r = cj_where(hi_zero, hi, cj_mul(hi, cj_sqrt(cj_add(like(a, 1), cj_mul(q, q)))));
    return cj_where(any_inf, inf, r);
}

/* isnan/isinf/isposinf/isneginf: false everywhere for ints and bools. */
static cj_val float_test(cj_val x, const char *op, int which) {
    const rt_aval *a = api_aval(x, op);
    if (!a) return api_err(x.ctx);
    if (!rt_is_float(a->dtype)) return cj_ne(x, x);
    switch (which) {
    case 0: return cj_ne(x, x);
    case 1: return cj_eq(cj_abs(x), like(x, INFINITY));
    case 2: return cj_eq(x, like(x, INFINITY));
    default: return cj_eq(x, like(x, -INFINITY));
    }
}
cj_val cj_isnan(cj_val x) { return float_test(x, "isnan", 0); }
cj_val cj_isinf(cj_val x) { return float_test(x, "isinf", 1); }
cj_val cj_isposinf(cj_val x) { return float_test(x, "isposinf", 2); }
cj_val cj_isneginf(cj_val x) { return float_test(x, "isneginf", 3); }

/* lax.div and lax.rem at the promoted type (cj_div is true division). */
static cj_val lax_div(cj_val a, cj_val b) { return api_elementwise(PRIM_DIV, 2, (cj_val[]){a, b}, 0); }

/* jnp.remainder: lax.rem's result moved to the divisor's sign; an integer
 * divisor of 0 counts as 1 (so x % 0 = 0, as JAX). */
cj_val cj_remainder(cj_val a, cj_val b) {
    cj_dtype dt;
    if (promote2("remainder", &a, &b, 0, &dt) != 0) return err2(a, b, "remainder");
    cj_val zero = like(a, 0);
    if (!rt_is_float(dt)) b = cj_where(cj_eq(b, zero), like(b, 1), b);
    cj_val t = cj_rem(a, b);
    cj_val plus = cj_and(cj_ne(cj_lt(t, zero), cj_lt(b, zero)), cj_ne(t, zero));
    return cj_where(plus, cj_add(t, b), t);
}
cj_val cj_mod(cj_val a, cj_val b) { return cj_remainder(a, b); }

/* jnp.floor_divide. Integers: lax.div (toward zero; x / 0 = -1, as XLA),
 * one less where the signs differ and the division is inexact. Floats:
 * CPython's float_divmod, as JAX writes it. */
cj_val cj_floor_divide(cj_val a, cj_val b) {
    cj_dtype dt;
    if (promote2("floor_divide", &a, &b, 0, &dt) != 0) return err2(a, b, "floor_divide");
    cj_val zero = like(a, 0), one = like(a, 1);
    /* unsigned: truncation is already the floor (jnp uses lax.div, so
     * x // 0 is all ones) */
    if (rt_is_unsigned(dt)) return lax_div(a, b);
    if (!rt_is_float(dt)) {
        cj_val q = lax_div(a, b);
        cj_val fix = cj_and(cj_ne(cj_sign(a), cj_sign(b)), cj_ne(cj_rem(a, b), zero));
        return cj_where(fix, cj_sub(q, one), q);
    }
    cj_val mod = cj_rem(a, b);
    cj_val num = cj_where(cj_eq(b, zero), a, cj_sub(a, mod));
    cj_val div = lax_div(num, b);
    cj_val ind = cj_and(cj_ne(mod, zero), cj_ne(cj_sign(b), cj_sign(mod)));
    return cj_round(cj_where(ind, cj_sub(div, one), div));
}

/* jnp.copysign: |a| with b's sign bit (so -0.0 and -NaN count as negative). */
cj_val cj_copysign(cj_val a, cj_val b) {
    if (promote2("copysign", &a, &b, 1, NULL) != 0) return err2(a, b, "copysign");
    cj_val m = cj_abs(a);
    return cj_where(cj_signbit(b), cj_neg(m), m);
}

/* jnp.heaviside: 0 below 0, 1 above, x2 at 0, NaN where x1 is NaN. */
cj_val cj_heaviside(cj_val x1, cj_val x2) {
    if (promote2("heaviside", &x1, &x2, 1, NULL) != 0) return err2(x1, x2, "heaviside");
    cj_val zero = like(x1, 0);
    cj_val at0 = cj_where(cj_ne(x1, x1), x1, x2);
    return cj_where(cj_lt(x1, zero), zero, cj_where(cj_gt(x1, zero), like(x1, 1), at0));
}

/* jnp.sinc: sin(πx)/(πx), 1 at 0. JAX gives the value at 0 a custom jvp
 * (the Maclaurin series' derivatives); here the branch at 0 is that
 * series itself, 1 - (πx)²/6 + (πx)⁴/120 - (πx)⁶/5040, whose derivatives
 * at 0 are JAX's up to the seventh. */
cj_val cj_sinc(cj_val x) {
    x = to_inexact(x, "sinc");
    cj_val zero = like(x, 0);
    cj_val is0 = cj_eq(x, zero);
    cj_val px = cj_mul(like(x, 3.14159265358979323846), x);
    cj_val safe = cj_where(is0, like(x, 1), px);
    cj_val p2 = cj_mul(px, px);
    cj_val series = cj_add(like(x, 1), cj_mul(p2, cj_add(like(x, -1.0 / 6),
                                 cj_mul(p2, cj_add(like(x, 1.0 / 120), cj_mul(p2, like(x, -1.0 / 5040)))))));
    return cj_where(is0, series, cj_div(cj_sin(safe), safe));
}

/* jnp.reciprocal: integer_pow(x, -1) on the float x promotes to. */
cj_val cj_reciprocal(cj_val x) { return cj_integer_pow(to_inexact(x, "reciprocal"), -1); }

/* jnp.trunc: toward zero; ints and bools unchanged. */
cj_val cj_trunc(cj_val x) {
    const rt_aval *a = api_aval(x, "trunc");
    if (!a) return api_err(x.ctx);
    if (!rt_is_float(a->dtype)) return x;
    return cj_where(cj_lt(x, like(x, 0)), cj_ceil(x), cj_floor(x));
}

cj_val cj_deg2rad(cj_val x) {
    x = to_inexact(x, "deg2rad");
    return cj_mul(x, like(x, 3.14159265358979323846 / 180));
}
cj_val cj_rad2deg(cj_val x) {
    x = to_inexact(x, "rad2deg");
    return cj_mul(x, like(x, 180 / 3.14159265358979323846));
}
