/* rules_reduce.c — jvp and transpose rules of the reductions and scans
 * (prim layer with the other rules; tools/layers.txt):
 * reduce_sum/prod/max/min, argmax/argmin and reduce_and/or/xor (zero),
 * cumsum/cumprod/cummax
 * (parameters as in src/prim/reduce.c).
 *
 * reduce_sum and cumsum are linear: their tangent is the primitive applied
 * to the tangent, and their transposes are a broadcast back over the
 * reduced axes and a cumsum in the other direction. The non-linear ones
 * follow JAX's conventions and stay linear in the tangent by computing a
 * coefficient from the primals only:
 *   - reduce_prod: d out = sum(t * product of the other elements), the
 *     "others" product built from exclusive cumulative products from both
 *     ends, never by dividing by x, so zeros in x are exact;
 *   - reduce_max/min: the tangent is split evenly among the elements equal
 *     to the result (JAX's location indicators / counts);
 *   - cumprod and cummax: their derivatives are themselves scans, run as
 *     Hillis–Steele prefix scans (log2 n rounds of shift-and-combine, the
 *     parallel prefix JAX differentiates too) whose combining coefficients
 *     come from the primals. cumprod's carries (product, tangent) pairs:
 *     out_k = x_k out_{k-1}, so d_k = x_k d_{k-1} + t_k out_{k-1}, an
 *     affine recurrence; cummax carries (max, count, tangent sum) and
 *     splits ties evenly, as reduce_max does on each prefix;
 *   - argmax/argmin have integer results and zero tangents.
 * Integer results never have tangents (the jvp driver skips them; the
 * rules return zero too so they are safe to call directly). */
#include <math.h>

#include "ad_rules.h"

/* ---- shared helpers --------------------------------------------------- */

static int is_float_val(cj_val v) {
    const rt_aval *a = ad_aval(v);
    return a && rt_is_float(a->dtype);
}

/* 1 at every element, x's dtype and shape (strongly typed). */
static cj_val ones_like(cj_val x) {
    const rt_aval *a = ad_aval(x);
    if (!a) return core_err_val(x.ctx);
    return bind_full(x.ctx, 1.0, a->dtype, a->rank, a->dims);
}

/* bool → 0/1 in the dtype of `like`. */
static cj_val as_weight(cj_val mask, cj_val like) {
    const rt_aval *a = ad_aval(like);
    if (!a) return core_err_val(mask.ctx);
    return bind_convert(mask, a->dtype);
}

/* The reduction's result broadcast back to the operand's shape (the
 * reduced axes re-inserted as size-1 and stretched). */
static cj_val unreduce(cj_val r, const prim_params *p, const rt_aval *operand) {
    int64_t kept[CJ_MAX_RANK];
    int nk = 0;
    for (int d = 0, i = 0; d < operand->rank; d++) {
        if (i < p->axes.n && p->axes.v[i] == d) i++;
        else kept[nk++] = d;
    }
    return bind_broadcast_in_dim(r, operand->rank, operand->dims, kept);
}

/* Σ over the reduced axes of t · w, w computed from the primals: the
 * tangent of every non-linear reduction. */
static int weighted_reduction(cj_ctx *ctx, const prim_params *p, cj_val t, cj_val w, cj_val *tout) {
    cj_val tw = bind_binary(PRIM_MUL, t, w);
    return ad_set(core_bind(ctx, PRIM_REDUCE_SUM, p, 1, &tw), tout);
}

/* v shifted by s places along `axis`, towards the end (or, reversed,
 * towards the start), the vacated places filled with `fill`. */
static cj_val shift_along(cj_val v, int64_t axis, int reverse, int64_t s, double fill) {
    const rt_aval *a = ad_aval(v);
    if (!a) return core_err_val(v.ctx);
    int64_t lo[CJ_MAX_RANK] = {0}, hi[CJ_MAX_RANK] = {0};
    lo[axis] = reverse ? -s : s;
    hi[axis] = reverse ? s : -s;
    /* the fill has v's dtype and weak type, so the result keeps v's */
    return bind_pad(v, bind_scalar(v.ctx, fill, a->dtype, a->weak), lo, hi, NULL);
}

/* ---- reduce_sum, cumsum: linear --------------------------------------- */

static int reduce_sum_transpose(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                                const int *linear, const rt_aval *in_avals, cj_val ct, cj_val *ct_in) {
    (void)ctx, (void)prim, (void)n_in, (void)in;
    if (linear[0]) ct_in[0] = unreduce(ct, p, &in_avals[0]);
    return ct_in[0].slot || !linear[0] ? 0 : -1;
}

/* The transpose of a running sum is the running sum the other way. */
static int cumsum_transpose(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                            const int *linear, const rt_aval *in_avals, cj_val ct, cj_val *ct_in) {
    (void)n_in, (void)in, (void)in_avals;
    if (!linear[0]) return 0;
    prim_params q = *p;
    q.flag = !p->flag;
    return ad_set(core_bind(ctx, prim, &q, 1, &ct), &ct_in[0]);
}

/* ---- reduce_prod ------------------------------------------------------- */

/* For every element of x, the product of the other elements of its
 * reduction group, shaped like x. The reduced axes are moved last and
 * merged into one axis of length n; the product of the others at position
 * i is (x_0 ⋯ x_{i-1}) · (x_{i+1} ⋯ x_{n-1}), both exclusive cumulative
 * products (shift an inclusive one by one place, filling with 1). */
static cj_val product_of_others(cj_val x, const prim_params *p) {
    const rt_aval *a = ad_aval(x);
    if (p->axes.n == 0) return ones_like(x); /* nothing reduced: no others */
    int64_t perm[CJ_MAX_RANK], inv[CJ_MAX_RANK], moved[CJ_MAX_RANK], merged[CJ_MAX_RANK];
    int k = 0;
    for (int d = 0, i = 0; d < a->rank; d++) {
        if (i < p->axes.n && p->axes.v[i] == d) i++;
        else perm[k++] = d;
    }
    int n_kept = k;
    int64_t n = 1;
    for (int i = 0; i < p->axes.n; i++) {
        perm[k++] = p->axes.v[i];
        n *= a->dims[p->axes.v[i]];
    }
    for (int d = 0; d < a->rank; d++) {
        inv[perm[d]] = d;
        moved[d] = a->dims[perm[d]];
        if (d < n_kept) merged[d] = moved[d];
    }
    merged[n_kept] = n;
    cj_val rows = bind_reshape(bind_transpose(x, perm), n_kept + 1, merged);
    cj_val before = shift_along(bind_cumulative(PRIM_CUMPROD, rows, n_kept, 0), n_kept, 0, 1, 1.0);
    cj_val after = shift_along(bind_cumulative(PRIM_CUMPROD, rows, n_kept, 1), n_kept, 1, 1, 1.0);
    cj_val others = bind_reshape(bind_binary(PRIM_MUL, before, after), a->rank, moved);
    return bind_transpose(others, inv);
}

static int reduce_prod_jvp(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                           const cj_val *tin, cj_val out, cj_val *tout) {
    (void)prim, (void)n_in;
    *tout = ad_zero(ctx);
    if (ad_is_zero(tin[0]) || !is_float_val(out)) return 0;
    const rt_aval *a = ad_aval(in[0]);
    int64_t n = 1;
    for (int i = 0; i < p->axes.n; i++) n *= a->dims[p->axes.v[i]];
    if (n == 0) return 0; /* empty products are the constant 1 */
    return weighted_reduction(ctx, p, tin[0], product_of_others(in[0], p), tout);
}

/* ---- reduce_max, reduce_min ------------------------------------------- */

/* JAX's chooser rule: the elements equal to the result share the tangent
 * evenly (location indicators divided by their count). */
static int reduce_chooser_jvp(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                              const cj_val *tin, cj_val out, cj_val *tout) {
    (void)prim, (void)n_in;
    *tout = ad_zero(ctx);
    if (ad_is_zero(tin[0]) || !is_float_val(out)) return 0;
    const rt_aval *a = ad_aval(in[0]);
    cj_val at_result = as_weight(bind_binary(PRIM_EQ, in[0], unreduce(out, p, a)), in[0]);
    cj_val count = core_bind(ctx, PRIM_REDUCE_SUM, p, 1, &at_result);
    cj_val share = bind_binary(PRIM_DIV, at_result, unreduce(count, p, a));
    return weighted_reduction(ctx, p, tin[0], share, tout);
}

/* ---- cumprod ------------------------------------------------------------ */

/* d_k = x_k d_{k-1} + t_k out_{k-1} (out_{-1} = 1) as a prefix scan of the
 * affine maps d ↦ A d + B: combining the span ending s places earlier,
 * (A, B) ← (A · A', A · B' + B). A only depends on the primals. */
static int cumprod_jvp(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                       const cj_val *tin, cj_val out, cj_val *tout) {
    (void)prim, (void)n_in;
    *tout = ad_zero(ctx);
    if (ad_is_zero(tin[0]) || !is_float_val(out)) return 0;
    int64_t axis = p->axes.v[0];
    int rev = p->flag;
    int64_t n = ad_aval(in[0])->dims[axis];
    cj_val A = in[0];
    cj_val B = bind_binary(PRIM_MUL, tin[0], shift_along(out, axis, rev, 1, 1.0));
    for (int64_t s = 1; s < n; s *= 2) {
        B = bind_binary(PRIM_ADD, B, bind_binary(PRIM_MUL, A, shift_along(B, axis, rev, s, 0.0)));
        if (2 * s < n) A = bind_binary(PRIM_MUL, A, shift_along(A, axis, rev, s, 1.0));
    }
    return ad_set(B, tout);
}

/* ---- cummax ------------------------------------------------------------- */

/* Each prefix's maximum gets the mean tangent of the elements that reach
 * it (reduce_max's convention on every prefix). The scan carries, per
 * position, the running maximum M, how many elements attain it C, and the
 * sum of their tangents S; joining the span s places earlier keeps the
 * side(s) whose maximum is the larger (both on a tie). M and C, and so the
 * weights, come from the primals. */
static int cummax_jvp(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                      const cj_val *tin, cj_val out, cj_val *tout) {
    (void)prim, (void)n_in;
    *tout = ad_zero(ctx);
    if (ad_is_zero(tin[0]) || !is_float_val(out)) return 0;
    int64_t axis = p->axes.v[0];
    int rev = p->flag;
    int64_t n = ad_aval(in[0])->dims[axis];
    cj_val M = in[0], C = ones_like(in[0]), S = tin[0];
    for (int64_t s = 1; s < n; s *= 2) {
        cj_val m_prev = shift_along(M, axis, rev, s, -INFINITY);
        cj_val w_prev = as_weight(bind_binary(PRIM_GE, m_prev, M), M), w_here = as_weight(bind_binary(PRIM_GE, M, m_prev), M);
        S = bind_binary(PRIM_ADD, bind_binary(PRIM_MUL, w_prev, shift_along(S, axis, rev, s, 0.0)), bind_binary(PRIM_MUL, w_here, S));
        C = bind_binary(PRIM_ADD, bind_binary(PRIM_MUL, w_prev, shift_along(C, axis, rev, s, 0.0)), bind_binary(PRIM_MUL, w_here, C));
        M = bind_binary(PRIM_MAX, M, m_prev);
    }
    return ad_set(bind_binary(PRIM_DIV, S, C), tout);
}

void ad_register_reduce(void) {
    prim_rules[PRIM_REDUCE_SUM].jvp = ad_jvp_linear;
    prim_rules[PRIM_REDUCE_SUM].transpose = reduce_sum_transpose;
    prim_rules[PRIM_REDUCE_PROD].jvp = reduce_prod_jvp;
    prim_rules[PRIM_REDUCE_MAX].jvp = reduce_chooser_jvp;
    prim_rules[PRIM_REDUCE_MIN].jvp = reduce_chooser_jvp;
    prim_rules[PRIM_ARGMAX].jvp = ad_jvp_zero;
    prim_rules[PRIM_ARGMIN].jvp = ad_jvp_zero;
    /* bool and integer results: no tangent, as JAX (which gives them no jvp
     * rule: their float0 tangents are symbolic zeros) */
    prim_rules[PRIM_REDUCE_AND].jvp = ad_jvp_zero;
    prim_rules[PRIM_REDUCE_OR].jvp = ad_jvp_zero;
    prim_rules[PRIM_REDUCE_XOR].jvp = ad_jvp_zero;
    prim_rules[PRIM_CUMSUM].jvp = ad_jvp_linear;
    prim_rules[PRIM_CUMSUM].transpose = cumsum_transpose;
    prim_rules[PRIM_CUMPROD].jvp = cumprod_jvp;
    prim_rules[PRIM_CUMMAX].jvp = cummax_jvp;
}
