/* rules_elementwise.c — jvp and transpose rules of the elementwise primitives
 * (prim layer with the other rules; tools/layers.txt).
 *
 * Every row of prims.def's elementwise block gets a jvp rule here, and the
 * ones that can be linear (neg, add, sub, mul, div, float→float convert,
 * select_n) a transpose rule. The rules bind the strict primitives
 * directly (core_bind), never the promoting cj_* operations, so tangents
 * and cotangents keep exactly their primal's dtype. Like the primitives,
 * they let a rank-0 operand stand for every element: a tangent built only
 * from rank-0 operands is broadcast to the result's shape at the end, and
 * the cotangent of a rank-0 operand is the sum of the result's cotangent.
 *
 * One jvp entry point (ew_jvp) handles what every rule shares — a result
 * that is not float, or all tangents zero, gives a symbolic zero — and
 * calls the primitive's tangent builder. Builders are linear in the
 * tangents: each tangent is scaled by a coefficient computed from primals
 * only, negated, selected, or summed. The derivative conventions are
 * JAX's (jax/_src/lax/lax.py): abs'(0) = 1, max/min split ties 0.5/0.5,
 * pow's dx is 0 where y == 0 and its dy 0 where x == 0, clamp passes x's
 * tangent only strictly inside (lo, hi). */
#include "ad_rules.h"

/* ---- binding the strict primitives ---- */

static cj_val bind1(prim_id prim, cj_val x) {
    prim_params p = prim_params_zero();
    return core_bind(x.ctx, prim, &p, 1, &x);
}

static cj_val bind2(prim_id prim, cj_val a, cj_val b) {
    prim_params p = prim_params_zero();
    return core_bind(a.ctx, prim, &p, 2, (cj_val[]){a, b});
}

static cj_val neg(cj_val x) { return bind1(PRIM_NEG, x); }
static cj_val add(cj_val a, cj_val b) { return bind2(PRIM_ADD, a, b); }
static cj_val sub(cj_val a, cj_val b) { return bind2(PRIM_SUB, a, b); }
static cj_val mul(cj_val a, cj_val b) { return bind2(PRIM_MUL, a, b); }
static cj_val divide(cj_val a, cj_val b) { return bind2(PRIM_DIV, a, b); }
static cj_val konst(cj_val like, double c) { return ad_const_like(like, c); }

/* select_n(pred, on_false, on_true). */
static cj_val select2(cj_val pred, cj_val on_false, cj_val on_true) {
    prim_params p = prim_params_zero();
    return core_bind(pred.ctx, PRIM_SELECT, &p, 3, (cj_val[]){pred, on_false, on_true});
}

/* t * coef, or zero when t is. */
static cj_val scale(cj_val t, cj_val coef) { return ad_is_zero(t) ? t : mul(t, coef); }

/* ---- shapes: rank-0 operands ---- */

/* A tangent at the result's shape: only a rank-0 one needs broadcasting
 * (every operand is rank 0 or has the result's shape). */
static cj_val to_shape_of(cj_val t, cj_val out) {
    const rt_aval *ta = ad_aval(t), *oa = ad_aval(out);
    if (!ta || !oa || ta->rank == oa->rank) return t;
    prim_params p = prim_params_zero();
    p.shape.n = oa->rank;
    for (int d = 0; d < oa->rank; d++) p.shape.v[d] = oa->dims[d];
    return core_bind(t.ctx, PRIM_BROADCAST_IN_DIM, &p, 1, &t);
}

/* The cotangent of an operand of type `a` from the result's cotangent: a
 * rank-0 operand was used at every element, so its cotangent is the sum. */
static cj_val unbroadcast(cj_val ct, const rt_aval *a) {
    const rt_aval *c = ad_aval(ct);
    if (!c || c->rank == a->rank) return ct;
    prim_params p = prim_params_zero();
    p.axes.n = c->rank;
    for (int d = 0; d < c->rank; d++) p.axes.v[d] = d;
    return core_bind(ct.ctx, PRIM_REDUCE_SUM, &p, 1, &ct);
}

/* ---- unary: tangent = t * coefficient(x, out) ---- */

typedef cj_val (*coef_fn)(cj_val x, cj_val out);

static cj_val exp_coef(cj_val x, cj_val out) { return (void)x, out; }
static cj_val exp2_coef(cj_val x, cj_val out) { return mul(out, konst(x, 0.69314718055994530942)); }
static cj_val log_coef(cj_val x, cj_val out) { return (void)out, divide(konst(x, 1), x); }
static cj_val log1p_coef(cj_val x, cj_val out) { return (void)out, divide(konst(x, 1), add(x, konst(x, 1))); }
static cj_val expm1_coef(cj_val x, cj_val out) { return add(out, konst(x, 1)); }
static cj_val sqrt_coef(cj_val x, cj_val out) { return divide(konst(x, 0.5), out); }
static cj_val rsqrt_coef(cj_val x, cj_val out) { return mul(konst(x, -0.5), divide(out, x)); }
static cj_val cbrt_coef(cj_val x, cj_val out) { return divide(konst(x, 1.0 / 3.0), mul(out, out)); }
static cj_val sin_coef(cj_val x, cj_val out) { return (void)out, bind1(PRIM_COS, x); }
static cj_val cos_coef(cj_val x, cj_val out) { return (void)out, neg(bind1(PRIM_SIN, x)); }
static cj_val tan_coef(cj_val x, cj_val out) { return add(konst(x, 1), mul(out, out)); }
static cj_val one_minus_square(cj_val x) { return sub(konst(x, 1), mul(x, x)); }
static cj_val asin_coef(cj_val x, cj_val out) { return (void)out, bind1(PRIM_RSQRT, one_minus_square(x)); }
static cj_val acos_coef(cj_val x, cj_val out) { return (void)out, neg(bind1(PRIM_RSQRT, one_minus_square(x))); }
static cj_val atan_coef(cj_val x, cj_val out) { return (void)out, divide(konst(x, 1), add(konst(x, 1), mul(x, x))); }
static cj_val sinh_coef(cj_val x, cj_val out) { return (void)out, bind1(PRIM_COSH, x); }
static cj_val cosh_coef(cj_val x, cj_val out) { return (void)out, bind1(PRIM_SINH, x); }
static cj_val tanh_coef(cj_val x, cj_val out) { return (void)x, one_minus_square(out); }
static cj_val logistic_coef(cj_val x, cj_val out) { return mul(out, sub(konst(x, 1), out)); }
static cj_val erf_coef(cj_val x, cj_val out) {
    (void)out;
    return mul(konst(x, 1.12837916709551257390 /* 2/sqrt(pi) */), bind1(PRIM_EXP, neg(mul(x, x))));
}

/* The special functions, as lax differentiates them: lgamma' = digamma,
 * digamma' = polygamma(1, ·), erfc' = -2/√π e^(-x²), erf_inv' =
 * √π/2 e^(out²), asinh' = rsqrt(x² + 1), acosh' = rsqrt((x-1)(x+1))
 * (JAX's factored form), atanh' = 1/(1 - x²). */
static cj_val lgamma_coef(cj_val x, cj_val out) { return (void)out, bind1(PRIM_DIGAMMA, x); }
static cj_val digamma_coef(cj_val x, cj_val out) { return (void)out, bind2(PRIM_POLYGAMMA, konst(x, 1), x); }
static cj_val erfc_coef(cj_val x, cj_val out) {
    (void)out;
    return mul(konst(x, -1.12837916709551257390), bind1(PRIM_EXP, neg(mul(x, x))));
}
static cj_val erf_inv_coef(cj_val x, cj_val out) {
    return mul(konst(x, 0.88622692545275801365 /* √π/2 */), bind1(PRIM_EXP, mul(out, out)));
}
static cj_val asinh_coef(cj_val x, cj_val out) { return (void)out, bind1(PRIM_RSQRT, add(mul(x, x), konst(x, 1))); }
static cj_val acosh_coef(cj_val x, cj_val out) {
    (void)out;
    return bind1(PRIM_RSQRT, mul(sub(x, konst(x, 1)), add(x, konst(x, 1))));
}
static cj_val atanh_coef(cj_val x, cj_val out) { return (void)out, divide(konst(x, 1), one_minus_square(x)); }

static coef_fn unary_coef(prim_id prim) {
    switch (prim) {
    case PRIM_EXP: return exp_coef;
    case PRIM_EXP2: return exp2_coef;
    case PRIM_LOG: return log_coef;
    case PRIM_LOG1P: return log1p_coef;
    case PRIM_EXPM1: return expm1_coef;
    case PRIM_SQRT: return sqrt_coef;
    case PRIM_RSQRT: return rsqrt_coef;
    case PRIM_CBRT: return cbrt_coef;
    case PRIM_SIN: return sin_coef;
    case PRIM_COS: return cos_coef;
    case PRIM_TAN: return tan_coef;
    case PRIM_ASIN: return asin_coef;
    case PRIM_ACOS: return acos_coef;
    case PRIM_ATAN: return atan_coef;
    case PRIM_SINH: return sinh_coef;
    case PRIM_COSH: return cosh_coef;
    case PRIM_TANH: return tanh_coef;
    case PRIM_LOGISTIC: return logistic_coef;
    case PRIM_ERF: return erf_coef;
    case PRIM_LGAMMA: return lgamma_coef;
    case PRIM_DIGAMMA: return digamma_coef;
    case PRIM_ERFC: return erfc_coef;
    case PRIM_ERF_INV: return erf_inv_coef;
    case PRIM_ASINH: return asinh_coef;
    case PRIM_ACOSH: return acosh_coef;
    case PRIM_ATANH: return atanh_coef;
    default: return NULL;
    }
}

/* ---- tangent builders: the tangent of the result, or an error value ---- */

typedef cj_val (*tangent_fn)(prim_id prim, const prim_params *p, const cj_val *in, const cj_val *tin, cj_val out);

/* log, log1p and atan: JAX divides the tangent by x, x + 1, 1 + x²
 * (one rounding) where t * (1 / d) would round twice — a difference that
 * shows in f16/bf16. */
static cj_val unary_divisor(prim_id prim, cj_val x) {
    switch (prim) {
    case PRIM_LOG: return x;
    case PRIM_LOG1P: return add(x, konst(x, 1));
    case PRIM_ATAN: return add(konst(x, 1), mul(x, x));
    default: return (cj_val){0};
    }
}

static cj_val unary_tangent(prim_id prim, const prim_params *p, const cj_val *in, const cj_val *tin, cj_val out) {
    (void)p;
    cj_val d = unary_divisor(prim, in[0]);
    if (d.ctx) return divide(tin[0], d);
    return mul(tin[0], unary_coef(prim)(in[0], out));
}

static cj_val neg_tangent(prim_id prim, const prim_params *p, const cj_val *in, const cj_val *tin, cj_val out) {
    (void)prim, (void)p, (void)in, (void)out;
    return neg(tin[0]);
}

/* JAX: select(x >= 0, t, -t), so abs'(0) = 1. */
static cj_val abs_tangent(prim_id prim, const prim_params *p, const cj_val *in, const cj_val *tin, cj_val out) {
    (void)prim, (void)p, (void)out;
    return select2(bind2(PRIM_GE, in[0], konst(in[0], 0)), neg(tin[0]), tin[0]);
}

/* Only float → float carries a tangent (the result being float is checked
 * by ew_jvp; an integer operand has no tangent). */
static cj_val convert_tangent(prim_id prim, const prim_params *p, const cj_val *in, const cj_val *tin, cj_val out) {
    (void)in, (void)out;
    return core_bind(tin[0].ctx, prim, p, 1, tin);
}

static cj_val add_tangent(prim_id prim, const prim_params *p, const cj_val *in, const cj_val *tin, cj_val out) {
    (void)prim, (void)p, (void)in;
    return ad_add(out.ctx, tin[0], tin[1]);
}

static cj_val sub_tangent(prim_id prim, const prim_params *p, const cj_val *in, const cj_val *tin, cj_val out) {
    (void)prim, (void)p, (void)in, (void)out;
    if (ad_is_zero(tin[1])) return tin[0];
    if (ad_is_zero(tin[0])) return neg(tin[1]);
    return sub(tin[0], tin[1]);
}

static cj_val mul_tangent(prim_id prim, const prim_params *p, const cj_val *in, const cj_val *tin, cj_val out) {
    (void)prim, (void)p;
    return ad_add(out.ctx, scale(tin[0], in[1]), scale(tin[1], in[0]));
}

/* d(a/b) = ta / b - tb * (out / b). */
static cj_val div_tangent(prim_id prim, const prim_params *p, const cj_val *in, const cj_val *tin, cj_val out) {
    (void)prim, (void)p;
    cj_val ta = ad_is_zero(tin[0]) ? tin[0] : divide(tin[0], in[1]);
    cj_val tb = ad_is_zero(tin[1]) ? tin[1] : mul(tin[1], neg(divide(out, in[1])));
    return ad_add(out.ctx, ta, tb);
}

/* rem(a, b) = a - b * trunc(a / b): d = ta - tb * trunc(a / b), with
 * trunc(q) = sign(q) * floor(|q|) as JAX writes it. */
static cj_val rem_tangent(prim_id prim, const prim_params *p, const cj_val *in, const cj_val *tin, cj_val out) {
    (void)prim, (void)p;
    cj_val tb = tin[1];
    if (!ad_is_zero(tb)) {
        cj_val q = divide(in[0], in[1]);
        cj_val trunc_q = mul(bind1(PRIM_SIGN, q), bind1(PRIM_FLOOR, bind1(PRIM_ABS, q)));
        tb = mul(tb, neg(trunc_q));
    }
    return ad_add(out.ctx, tin[0], tb);
}

/* x^y: dx = y * x^(y-1), with the exponent 1 where y == 0 so that dx is 0
 * there even at x == 0; dy = log(x) * out, with log(1) where x == 0 so
 * that dy is 0 there. */
static cj_val pow_tangent(prim_id prim, const prim_params *p, const cj_val *in, const cj_val *tin, cj_val out) {
    (void)prim, (void)p;
    cj_val x = in[0], y = in[1], tx = tin[0], ty = tin[1];
    if (!ad_is_zero(tx)) {
        cj_val exponent = select2(bind2(PRIM_EQ, y, konst(y, 0)), sub(y, konst(y, 1)), konst(y, 1));
        tx = mul(tx, mul(y, bind2(PRIM_POW, x, exponent)));
    }
    if (!ad_is_zero(ty)) {
        cj_val x_or_one = select2(bind2(PRIM_EQ, x, konst(x, 0)), x, konst(x, 1));
        ty = mul(ty, mul(bind1(PRIM_LOG, x_or_one), out));
    }
    return ad_add(out.ctx, tx, ty);
}

/* JAX's balanced rule for max and min: operand `a` gets 1 where it equals
 * the result, halved where the other operand equals it too (a tie). */
static cj_val tie_share(cj_val a, cj_val other, cj_val out) {
    cj_val picked = select2(bind2(PRIM_EQ, a, out), konst(out, 0), konst(out, 1));
    cj_val ways = select2(bind2(PRIM_EQ, other, out), konst(out, 1), konst(out, 2));
    return divide(picked, ways);
}

static cj_val minmax_tangent(prim_id prim, const prim_params *p, const cj_val *in, const cj_val *tin, cj_val out) {
    (void)prim, (void)p;
    cj_val ta = ad_is_zero(tin[0]) ? tin[0] : mul(tin[0], tie_share(in[0], in[1], out));
    cj_val tb = ad_is_zero(tin[1]) ? tin[1] : mul(tin[1], tie_share(in[1], in[0], out));
    return ad_add(out.ctx, ta, tb);
}

/* atan2(a, b): da = b / (a² + b²), db = -a / (a² + b²). */
static cj_val atan2_tangent(prim_id prim, const prim_params *p, const cj_val *in, const cj_val *tin, cj_val out) {
    (void)prim, (void)p;
    cj_val a = in[0], b = in[1];
    cj_val r2 = add(mul(a, a), mul(b, b));
    cj_val ta = ad_is_zero(tin[0]) ? tin[0] : mul(tin[0], divide(b, r2));
    cj_val tb = ad_is_zero(tin[1]) ? tin[1] : mul(tin[1], neg(divide(a, r2)));
    return ad_add(out.ctx, ta, tb);
}

/* select_n is linear in its cases: the same selection over the tangents,
 * with a rank-0 zero standing for a case without one. */
static cj_val select_tangent(prim_id prim, const prim_params *p, const cj_val *in, const cj_val *tin, cj_val out) {
    (void)prim, (void)p;
    cj_val args[3] = {in[0], tin[1], tin[2]};
    for (int i = 1; i < 3; i++)
        if (ad_is_zero(args[i])) args[i] = konst(out, 0);
    prim_params q = prim_params_zero();
    return core_bind(out.ctx, PRIM_SELECT, &q, 3, args);
}

/* lax.clamp's rule: lo's tangent where lo > x (and lo < hi), x's strictly
 * inside (lo, hi), hi's where hi < x; at a bound no operand gets one. */
static cj_val clamp_tangent(prim_id prim, const prim_params *p, const cj_val *in, const cj_val *tin, cj_val out) {
    (void)prim, (void)p;
    cj_val lo = in[0], x = in[1], hi = in[2], zero = konst(out, 0);
    cj_val t = ad_zero(out.ctx);
    if (!ad_is_zero(tin[0])) {
        cj_val active = bind2(PRIM_AND, bind2(PRIM_GT, lo, x), bind2(PRIM_LT, lo, hi));
        t = ad_add(out.ctx, t, select2(active, zero, tin[0]));
    }
    if (!ad_is_zero(tin[1])) {
        cj_val inside = bind2(PRIM_AND, bind2(PRIM_GT, x, lo), bind2(PRIM_LT, x, hi));
        t = ad_add(out.ctx, t, select2(inside, zero, tin[1]));
    }
    if (!ad_is_zero(tin[2])) t = ad_add(out.ctx, t, select2(bind2(PRIM_LT, hi, x), zero, tin[2]));
    return t;
}

/* lax.integer_pow's rule: t · y · x^(y-1), zero for y = 0. */
static cj_val integer_pow_tangent(prim_id prim, const prim_params *p, const cj_val *in, const cj_val *tin,
                                  cj_val out) {
    if (p->count == 0) return ad_zero(out.ctx);
    cj_val lower = in[0];
    if (p->count != 1) {
        prim_params q = prim_params_zero();
        q.count = p->count - 1;
        lower = core_bind(in[0].ctx, prim, &q, 1, in);
    }
    return mul(tin[0], mul(konst(in[0], (double)p->count), lower));
}

/* polygamma(m, x): d/dx = polygamma(m + 1, x); the order has no
 * derivative (JAX raises for one), so a tangent of m is an error. */
static cj_val polygamma_tangent(prim_id prim, const prim_params *p, const cj_val *in, const cj_val *tin,
                                cj_val out) {
    (void)p;
    if (!ad_is_zero(tin[0])) {
        prim_error(out.ctx, CJ_ERR_UNSUPPORTED, prim, "jvp: no derivative with respect to the order m");
        return ad_zero(out.ctx);
    }
    return mul(tin[1], bind2(prim, add(in[0], konst(in[0], 1)), in[1]));
}

/* nextafter has no derivative rule in lax either. */
static cj_val nextafter_tangent(prim_id prim, const prim_params *p, const cj_val *in, const cj_val *tin,
                                cj_val out) {
    (void)p, (void)in, (void)tin;
    prim_error(out.ctx, CJ_ERR_UNSUPPORTED, prim, "jvp: not differentiable (lax defines no rule)");
    return ad_zero(out.ctx);
}

static tangent_fn tangent_builder(prim_id prim) {
    if (unary_coef(prim)) return unary_tangent;
    switch (prim) {
    case PRIM_NEG: return neg_tangent;
    case PRIM_ABS: return abs_tangent;
    case PRIM_CONVERT: return convert_tangent;
    case PRIM_ADD: return add_tangent;
    case PRIM_SUB: return sub_tangent;
    case PRIM_MUL: return mul_tangent;
    case PRIM_DIV: return div_tangent;
    case PRIM_REM: return rem_tangent;
    case PRIM_POW: return pow_tangent;
    case PRIM_MAX: case PRIM_MIN: return minmax_tangent;
    case PRIM_ATAN2: return atan2_tangent;
    case PRIM_SELECT: return select_tangent;
    case PRIM_CLAMP: return clamp_tangent;
    case PRIM_INTEGER_POW: return integer_pow_tangent;
    case PRIM_POLYGAMMA: return polygamma_tangent;
    case PRIM_NEXTAFTER: return nextafter_tangent;
    default: return NULL;
    }
}

/* What every differentiable elementwise rule shares: a result that is not
 * float, or no tangent at all, gives a symbolic zero; the tangent comes
 * back at the result's shape. */
static int ew_jvp(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in, const cj_val *tin,
                  cj_val out, cj_val *tout) {
    *tout = ad_zero(ctx);
    const rt_aval *oa = ad_aval(out);
    if (!oa) return core_error(ctx, CJ_ERR_INTERNAL, "jvp of '%s': the primal result is not a live value",
                               prim_names[prim]);
    int any = 0;
    for (int i = 0; i < n_in; i++) any |= !ad_is_zero(tin[i]);
    if (!any || !rt_is_float(oa->dtype)) return 0;
    cj_val t = to_shape_of(tangent_builder(prim)(prim, p, in, tin, out), out);
    if (ctx->err) return -1;
    *tout = t;
    return 0;
}

/* ---- transpose rules ---- */

static int not_linear(cj_ctx *ctx, prim_id prim, const char *why) {
    return prim_error(ctx, CJ_ERR_INTERNAL, prim, "transpose: %s", why);
}

static int finish_transpose(cj_ctx *ctx) { return ctx->err ? -1 : 0; }

static int neg_transpose(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                         const int *linear, const rt_aval *in_avals, cj_val ct, cj_val *ct_in) {
    (void)prim, (void)p, (void)n_in, (void)in, (void)in_avals;
    if (linear[0]) ct_in[0] = neg(ct);
    return finish_transpose(ctx);
}

static int add_transpose(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                         const int *linear, const rt_aval *in_avals, cj_val ct, cj_val *ct_in) {
    (void)prim, (void)p, (void)n_in, (void)in;
    for (int i = 0; i < 2; i++)
        if (linear[i]) ct_in[i] = unbroadcast(ct, &in_avals[i]);
    return finish_transpose(ctx);
}

static int sub_transpose(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                         const int *linear, const rt_aval *in_avals, cj_val ct, cj_val *ct_in) {
    (void)prim, (void)p, (void)n_in, (void)in;
    if (linear[0]) ct_in[0] = unbroadcast(ct, &in_avals[0]);
    if (linear[1]) ct_in[1] = unbroadcast(neg(ct), &in_avals[1]);
    return finish_transpose(ctx);
}

/* Linear in exactly one operand; the other is the known factor. */
static int mul_transpose(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                         const int *linear, const rt_aval *in_avals, cj_val ct, cj_val *ct_in) {
    (void)p, (void)n_in;
    if (linear[0] && linear[1]) return not_linear(ctx, prim, "both operands are linear (a product of tangents)");
    for (int i = 0; i < 2; i++)
        if (linear[i]) ct_in[i] = unbroadcast(mul(ct, in[1 - i]), &in_avals[i]);
    return finish_transpose(ctx);
}

/* Linear in the numerator only. */
static int div_transpose(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                         const int *linear, const rt_aval *in_avals, cj_val ct, cj_val *ct_in) {
    (void)p, (void)n_in;
    if (linear[1]) return not_linear(ctx, prim, "the denominator is linear");
    if (linear[0]) ct_in[0] = unbroadcast(divide(ct, in[1]), &in_avals[0]);
    return finish_transpose(ctx);
}

/* float → float: the cotangent converts back to the operand's type. */
static int convert_transpose(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                             const int *linear, const rt_aval *in_avals, cj_val ct, cj_val *ct_in) {
    (void)n_in, (void)in;
    if (!linear[0]) return 0;
    if (!rt_is_float(in_avals[0].dtype) || !rt_is_float(p->dtype))
        return not_linear(ctx, prim, "only a float to float conversion is linear");
    prim_params back = prim_params_zero();
    back.dtype = in_avals[0].dtype;
    back.weak = in_avals[0].weak;
    ct_in[0] = core_bind(ctx, prim, &back, 1, &ct);
    return finish_transpose(ctx);
}

/* Each linear case gets the cotangent where it was selected, zero
 * elsewhere; the predicate is never linear. select_n has two cases
 * (prims.def gives it three operands). */
static int select_transpose(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                            const int *linear, const rt_aval *in_avals, cj_val ct, cj_val *ct_in) {
    (void)p;
    if (linear[0]) return not_linear(ctx, prim, "the predicate is linear");
    (void)n_in;
    cj_val zero = konst(ct, 0);
    for (int i = 1; i < 3; i++) {
        if (!linear[i]) continue;
        cj_val args[3] = {in[0], zero, zero};
        args[i] = ct;
        prim_params q = prim_params_zero();
        ct_in[i] = unbroadcast(core_bind(ctx, PRIM_SELECT, &q, 3, args), &in_avals[i]);
    }
    return finish_transpose(ctx);
}

/* ---- registration ---- */

/* Comparisons, rounding, sign, logical and bit operations: piecewise
 * constant or not float, so their tangent is zero. */
static int has_zero_derivative(prim_id prim) {
    switch (prim) {
    case PRIM_SIGN: case PRIM_FLOOR: case PRIM_CEIL: case PRIM_ROUND: case PRIM_NOT: case PRIM_IS_FINITE:
    case PRIM_SIGNBIT:
    case PRIM_EQ: case PRIM_NE: case PRIM_LT: case PRIM_LE: case PRIM_GT: case PRIM_GE:
    case PRIM_AND: case PRIM_OR: case PRIM_XOR:
    case PRIM_SHIFT_LEFT: case PRIM_SHIFT_RIGHT_LOGICAL: case PRIM_SHIFT_RIGHT_ARITHMETIC:
    case PRIM_POPULATION_COUNT: case PRIM_BITCAST_CONVERT_TYPE: /* JAX: a zero tangent */
        return 1;
    default:
        return 0;
    }
}

void ad_register_elementwise(void) {
    for (int i = 0; i < PRIM_COUNT; i++) {
        if (prim_families[i] != FAMILY_ELEMENTWISE) continue;
        if (has_zero_derivative((prim_id)i)) prim_rules[i].jvp = ad_jvp_zero;
        else if (tangent_builder((prim_id)i)) prim_rules[i].jvp = ew_jvp;
    }
    prim_rules[PRIM_NEG].transpose = neg_transpose;
    prim_rules[PRIM_ADD].transpose = add_transpose;
    prim_rules[PRIM_SUB].transpose = sub_transpose;
    prim_rules[PRIM_MUL].transpose = mul_transpose;
    prim_rules[PRIM_DIV].transpose = div_transpose;
    prim_rules[PRIM_CONVERT].transpose = convert_transpose;
    prim_rules[PRIM_SELECT].transpose = select_transpose;
}
