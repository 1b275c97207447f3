/* rules_conv.c — jvp and transpose rules of conv_general_dilated (prim
 * layer with the other rules, tools/layers.txt; parameters as in
 * src/prim/conv.h).
 *
 * The convolution is bilinear: d conv(a, b) = conv(ta, b) + conv(a, tb).
 * With one operand fixed it is linear in the other, and both transposes
 * are convolutions again (the facts of JAX's
 * _conv_general_dilated_transpose_lhs / _rhs):
 *   lhs: the cotangent convolved with the spatially reversed kernel, its
 *     in/out feature roles swapped; strides and lhs dilation trade places,
 *     the padding is what puts every cotangent element back over the input
 *     positions it read. Groups move from the kernel's output features
 *     into its input features (a batch group becomes a feature group, and
 *     the result's features fold back into the batch).
 *   rhs: lhs convolved with the cotangent as the kernel, batch and feature
 *     axes swapped in every spec; strides and rhs dilation trade places;
 *     feature groups become batch groups and the other way round. */
#include "../prim/conv.h"
#include "ad_rules.h"

static int conv_jvp(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in, const cj_val *tin,
                    cj_val out, cj_val *tout) {
    (void)n_in, (void)out;
    cj_val t = ad_zero(ctx);
    if (!ad_is_zero(tin[0])) {
        t = core_bind(ctx, prim, p, 2, (cj_val[]){tin[0], in[1]});
        if (!t.slot) return -1;
    }
    if (!ad_is_zero(tin[1])) {
        cj_val part = core_bind(ctx, prim, p, 2, (cj_val[]){in[0], tin[1]});
        if (!part.slot) return -1;
        t = ad_add(ctx, t, part);
        if (!t.slot) return -1;
    }
    *tout = t;
    return 0;
}

/* A spec with its first two entries swapped (lax's _conv_spec_transpose). */
static prim_ivec spec_swap(const prim_ivec *s) {
    prim_ivec t = *s;
    t.v[0] = s->v[1];
    t.v[1] = s->v[0];
    return t;
}

static cj_val lhs_cotangent(cj_ctx *ctx, prim_id prim, const prim_params *p, const rt_aval *lhs_aval,
                            const rt_aval *rhs_aval, cj_val rhs, cj_val ct) {
    const prim_ivec *ls = &CONV_LHS_SPEC(p), *rs = &CONV_RHS_SPEC(p), *os = &CONV_OUT_SPEC(p);
    int64_t G = CONV_GROUPS(p), B = CONV_BATCH_GROUPS(p), groups = G > 1 ? G : B;
    if (groups > 1) { /* the groups of the output features into the input features */
        rhs = conv_axis_out_of(rhs, rs->v[0], groups);
        rhs = conv_axis_into(rhs, rs->v[0], rs->v[1]);
    }
    const rt_aval *ca = ad_aval(ct);
    if (!ca) return core_err_val(ctx);
    int nsp = lhs_aval->rank - 2;
    prim_params q = *p;
    CONV_LHS_SPEC(&q) = *os;
    CONV_RHS_SPEC(&q) = spec_swap(rs);
    CONV_OUT_SPEC(&q) = *ls;
    CONV_STRIDES(&q) = CONV_LHS_DIL(p);
    CONV_LHS_DIL(&q) = CONV_STRIDES(p);
    CONV_GROUPS(&q) = groups;
    CONV_BATCH_GROUPS(&q) = 1;
    prim_params rev = prim_params_zero();
    rev.axes.n = nsp;
    for (int k = 0; k < nsp; k++) {
        int64_t in_d = conv_dilate(lhs_aval->dims[ls->v[2 + k]], CONV_LHS_DIL(p).v[k]);
        int64_t win = conv_dilate(rhs_aval->dims[rs->v[2 + k]], CONV_RHS_DIL(p).v[k]);
        int64_t out_d = conv_dilate(ca->dims[os->v[2 + k]], CONV_STRIDES(p).v[k]);
        q.lo.v[k] = win - p->lo.v[k] - 1;
        q.hi.v[k] = in_d + win - 1 - out_d - q.lo.v[k];
        rev.axes.v[k] = rs->v[2 + k];
    }
    cj_val flipped = core_bind(ctx, PRIM_REV, &rev, 1, &rhs);
    /* a wider cotangent (preferred_element_type f32 of f16/bf16 operands):
     * the kernel converted up, the result back to lhs's dtype, as JAX's
     * _conv_general_dilated_transpose_lhs */
    if (ca->dtype != rhs_aval->dtype) flipped = bind_convert(flipped, ca->dtype);
    q.dtype = ca->dtype;
    cj_val r = core_bind(ctx, prim, &q, 2, (cj_val[]){ct, flipped});
    if (ca->dtype != lhs_aval->dtype) r = bind_convert(r, lhs_aval->dtype);
    if (B > 1) { /* the batch groups back from the features into the batch */
        r = conv_axis_out_of(r, ls->v[1], B);
        r = conv_axis_into(r, ls->v[1], ls->v[0]);
    }
    return r;
}

static cj_val rhs_cotangent(cj_ctx *ctx, prim_id prim, const prim_params *p, const rt_aval *lhs_aval,
                            const rt_aval *rhs_aval, cj_val lhs, cj_val ct) {
    const prim_ivec *ls = &CONV_LHS_SPEC(p), *rs = &CONV_RHS_SPEC(p), *os = &CONV_OUT_SPEC(p);
    const rt_aval *ca = ad_aval(ct);
    if (!ca) return core_err_val(ctx);
    if (rt_aval_size(ca) == 0) return ad_zeros(ctx, rhs_aval);
    int nsp = lhs_aval->rank - 2;
    prim_params q = *p;
    CONV_LHS_SPEC(&q) = spec_swap(ls);
    CONV_RHS_SPEC(&q) = spec_swap(os);
    CONV_OUT_SPEC(&q) = spec_swap(rs);
    CONV_STRIDES(&q) = CONV_RHS_DIL(p);
    CONV_RHS_DIL(&q) = CONV_STRIDES(p);
    CONV_GROUPS(&q) = CONV_BATCH_GROUPS(p);
    CONV_BATCH_GROUPS(&q) = (int)CONV_GROUPS(p);
    for (int k = 0; k < nsp; k++) {
        int64_t in_d = conv_dilate(lhs_aval->dims[ls->v[2 + k]], CONV_LHS_DIL(p).v[k]);
        int64_t win = conv_dilate(rhs_aval->dims[rs->v[2 + k]], CONV_RHS_DIL(p).v[k]);
        int64_t out_d = conv_dilate(ca->dims[os->v[2 + k]], CONV_STRIDES(p).v[k]);
        q.hi.v[k] = (out_d - in_d) + (win - p->lo.v[k] - 1);
    }
    /* as lhs_cotangent: a wider cotangent convolves lhs converted up, and
     * the result comes back in rhs's dtype */
    if (ca->dtype != lhs_aval->dtype) lhs = bind_convert(lhs, ca->dtype);
    q.dtype = ca->dtype;
    cj_val r = core_bind(ctx, prim, &q, 2, (cj_val[]){lhs, ct});
    return ca->dtype != rhs_aval->dtype ? bind_convert(r, rhs_aval->dtype) : r;
}

static int conv_transpose(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                          const int *linear, const rt_aval *in_avals, cj_val ct, cj_val *ct_in) {
    (void)n_in;
    if (linear[0] && linear[1])
        return core_error(ctx, CJ_ERR_INTERNAL, "conv_general_dilated: transpose with both operands linear");
    if (linear[0] && ad_set(lhs_cotangent(ctx, prim, p, &in_avals[0], &in_avals[1], in[1], ct), &ct_in[0]) != 0)
        return -1;
    if (linear[1] && ad_set(rhs_cotangent(ctx, prim, p, &in_avals[0], &in_avals[1], in[0], ct), &ct_in[1]) != 0)
        return -1;
    return 0;
}

void ad_register_conv(void) {
    prim_rules[PRIM_CONV_GENERAL_DILATED].jvp = conv_jvp;
    prim_rules[PRIM_CONV_GENERAL_DILATED].transpose = conv_transpose;
}
