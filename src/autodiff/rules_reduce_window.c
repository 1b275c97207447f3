/* rules_reduce_window.c — jvp and transpose rules of the windowed
 * reductions (prim layer with the other rules, tools/layers.txt;
 * parameters as in src/prim/reduce_window.h).
 *
 * The facts of JAX's windowed_reductions.py:
 *   reduce_window_sum is linear. Its transpose spreads each cotangent
 *     element back over the inputs its window read: the cotangent, its
 *     elements `stride` apart (interior padding stride - 1) and padded so
 *     that every input position sees exactly the windows that read it
 *     (convolution's lhs-transpose padding), summed again by windows of
 *     the same size and window dilation, moving by the base dilation.
 *   reduce_window_max / _min: the tangent of each result element is the
 *     tangent at the element its window selects, select_and_gather_add.
 *   select_and_gather_add is linear in its tangents (the operand only
 *     chooses; its own tangent does not matter): transpose
 *     select_and_scatter_add, and the other way round. */
#include "../prim/reduce_window.h"
#include "ad_rules.h"

static prim_id partner(prim_id prim) {
    return prim == PRIM_SELECT_AND_GATHER_ADD ? PRIM_SELECT_AND_SCATTER_ADD : PRIM_SELECT_AND_GATHER_ADD;
}

static int sum_jvp(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in, const cj_val *tin,
                   cj_val out, cj_val *tout) {
    (void)n_in, (void)in, (void)out;
    if (ad_is_zero(tin[0])) return *tout = ad_zero(ctx), 0;
    return ad_set(core_bind(ctx, prim, p, 1, tin), tout);
}

static int sum_transpose(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                         const int *linear, const rt_aval *in_avals, cj_val ct, cj_val *ct_in) {
    (void)n_in, (void)in;
    if (!linear[0]) return 0;
    const rt_aval *x = &in_avals[0], *ca = ad_aval(ct);
    if (!ca) return -1;
    int r = x->rank;
    int64_t lo[CJ_MAX_RANK], hi[CJ_MAX_RANK], interior[CJ_MAX_RANK];
    prim_params q = *p;
    for (int a = 0; a < r; a++) {
        int64_t in_d = rw_dilate(x->dims[a], RW_BASE_DIL(p).v[a]);
        int64_t win = rw_dilate(RW_WINDOW(p).v[a], RW_WIN_DIL(p).v[a]);
        int64_t out_d = rw_dilate(ca->dims[a], RW_STRIDES(p).v[a]);
        lo[a] = win - p->lo.v[a] - 1;
        hi[a] = in_d + win - 1 - out_d - lo[a];
        interior[a] = RW_STRIDES(p).v[a] - 1;
        RW_STRIDES(&q).v[a] = RW_BASE_DIL(p).v[a];
        RW_BASE_DIL(&q).v[a] = 1;
        q.lo.v[a] = q.hi.v[a] = 0;
    }
    cj_val zero = bind_scalar(ctx, 0, ca->dtype, 0);
    cj_val padded = bind_pad(ct, zero, lo, hi, interior);
    return ad_set(core_bind(ctx, prim, &q, 1, &padded), &ct_in[0]);
}

/* max / min: the tangent at the selected element. */
static int chooser_jvp(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                       const cj_val *tin, cj_val out, cj_val *tout) {
    (void)n_in, (void)out;
    if (ad_is_zero(tin[0])) return *tout = ad_zero(ctx), 0;
    prim_params q = *p;
    RW_SELECT_MIN(&q) = prim == PRIM_REDUCE_WINDOW_MIN;
    return ad_set(core_bind(ctx, PRIM_SELECT_AND_GATHER_ADD, &q, 2, (cj_val[]){tin[0], in[0]}), tout);
}

/* select_and_*: linear in operand 0 whatever the operand's tangent. */
static int select_jvp(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                      const cj_val *tin, cj_val out, cj_val *tout) {
    (void)n_in, (void)out;
    if (ad_is_zero(tin[0])) return *tout = ad_zero(ctx), 0;
    return ad_set(core_bind(ctx, prim, p, 2, (cj_val[]){tin[0], in[1]}), tout);
}

static int select_transpose(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                            const int *linear, const rt_aval *in_avals, cj_val ct, cj_val *ct_in) {
    (void)n_in, (void)in_avals;
    if (linear[1])
        return core_error(ctx, CJ_ERR_INTERNAL, "%s: transpose with the operand linear (it is not)",
                          prim_names[prim]);
    if (!linear[0]) return 0;
    return ad_set(core_bind(ctx, partner(prim), p, 2, (cj_val[]){ct, in[1]}), &ct_in[0]);
}

void ad_register_reduce_window(void) {
    prim_rules[PRIM_REDUCE_WINDOW_SUM].jvp = sum_jvp;
    prim_rules[PRIM_REDUCE_WINDOW_SUM].transpose = sum_transpose;
    prim_rules[PRIM_REDUCE_WINDOW_MAX].jvp = chooser_jvp;
    prim_rules[PRIM_REDUCE_WINDOW_MIN].jvp = chooser_jvp;
    prim_rules[PRIM_SELECT_AND_GATHER_ADD].jvp = select_jvp;
    prim_rules[PRIM_SELECT_AND_GATHER_ADD].transpose = select_transpose;
    prim_rules[PRIM_SELECT_AND_SCATTER_ADD].jvp = select_jvp;
    prim_rules[PRIM_SELECT_AND_SCATTER_ADD].transpose = select_transpose;
}
