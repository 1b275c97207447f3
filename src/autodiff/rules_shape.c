/* rules_shape.c — jvp and transpose rules of the shape and data-movement
 * primitives (prim layer with the other rules; tools/layers.txt):
 * broadcast_in_dim, reshape, transpose,
 * squeeze, expand_dims, slice, dynamic_slice, dynamic_update_slice,
 * concatenate, pad, rev and iota (src/prim/shape.c says what every
 * parameter means).
 *
 * Every one of them only moves elements, so its tangent is the same
 * primitive applied to the tangents (ad_jvp_linear) — except that the start
 * indices of the dynamic ones are integers, never linear: they are passed
 * through as primals. iota has no operands and a zero tangent. A transpose
 * rule sends each cotangent element back to where it came from: the
 * adjoint of a copy is a copy the other way, of a duplication (broadcast)
 * a sum, of a window (slice) a zero-padded embedding, of padding a crop.
 * Rules bind primitives directly (core_bind) so the parameters are exactly
 * the ones meant, with no promotion or axis normalisation in between. */
#include <string.h>

#include "ad_rules.h"

/* ---- small builders ---- */

static cj_val bind1(cj_ctx *ctx, prim_id prim, const prim_params *p, cj_val x) {
    return core_bind(ctx, prim, p, 1, &x);
}

/* x reshaped to want's dims (x itself when they already agree). */
static cj_val reshape_to(cj_ctx *ctx, cj_val x, const rt_aval *want) {
    const rt_aval *have = ad_aval(x);
    if (!have) return core_err_val(ctx);
    if (rt_aval_same_shape(have, want))
        return x;
    prim_params p = prim_params_zero();
    p.shape.n = want->rank;
    memcpy(p.shape.v, want->dims, sizeof(int64_t) * (size_t)want->rank);
    return bind1(ctx, PRIM_RESHAPE, &p, x);
}

/* pad(x, 0) with the given configuration (interior NULL: none). */
static cj_val pad_zeros(cj_ctx *ctx, cj_val x, int rank, const int64_t *lo, const int64_t *hi,
                        const int64_t *interior) {
    const rt_aval *a = ad_aval(x);
    if (!a) return core_err_val(ctx);
    prim_params p = prim_params_zero();
    p.lo.n = p.hi.n = rank;
    memcpy(p.lo.v, lo, sizeof(int64_t) * (size_t)rank);
    memcpy(p.hi.v, hi, sizeof(int64_t) * (size_t)rank);
    if (interior) {
        p.step.n = rank;
        memcpy(p.step.v, interior, sizeof(int64_t) * (size_t)rank);
    }
    cj_val args[2] = {x, bind_scalar(ctx, 0, a->dtype, 0)};
    return core_bind(ctx, PRIM_PAD, &p, 2, args);
}

/* The sum of every element of x, as a rank-0 value. */
static cj_val sum_all(cj_ctx *ctx, cj_val x) {
    const rt_aval *a = ad_aval(x);
    if (!a) return core_err_val(ctx);
    if (a->rank == 0) return x;
    prim_params p = prim_params_zero();
    p.axes.n = a->rank;
    for (int d = 0; d < a->rank; d++) p.axes.v[d] = d;
    return bind1(ctx, PRIM_REDUCE_SUM, &p, x);
}

/* ---- jvp rules ---- */

/* dynamic_slice(x, *starts): the tangent is the same window of x's
 * tangent, at the same (primal, integer) starts. */
static int dynamic_slice_jvp(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                             const cj_val *tin, cj_val out, cj_val *tout) {
    (void)out;
    if (ad_is_zero(tin[0])) return *tout = ad_zero(ctx), 0;
    cj_val args[64];
    args[0] = tin[0];
    for (int i = 1; i < n_in; i++) args[i] = in[i];
    return ad_set(core_bind(ctx, prim, p, n_in, args), tout);
}

/* dynamic_update_slice(x, update, *starts): linear in (x, update)
 * together; the starts stay primal. */
static int dynamic_update_slice_jvp(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                                    const cj_val *tin, cj_val out, cj_val *tout) {
    (void)out;
    if (ad_is_zero(tin[0]) && ad_is_zero(tin[1])) return *tout = ad_zero(ctx), 0;
    cj_val args[64];
    for (int i = 0; i < 2; i++) {
        args[i] = ad_is_zero(tin[i]) ? ad_zeros(ctx, ad_aval(in[i])) : tin[i];
        if (!args[i].slot) return -1;
    }
    for (int i = 2; i < n_in; i++) args[i] = in[i];
    return ad_set(core_bind(ctx, prim, p, n_in, args), tout);
}

/* ---- transpose rules ---- */

/* broadcast_in_dim: every output element copies one operand element, so
 * the operand's cotangent sums the cotangent over the output axes the
 * operand does not map to and over those a size-1 operand axis is
 * stretched along; a reshape then restores the kept size-1 axes. */
static int broadcast_in_dim_transpose(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                                      const int *linear, const rt_aval *in_avals, cj_val ct, cj_val *ct_in) {
    (void)prim, (void)n_in, (void)in;
    if (!linear[0]) return 0;
    const rt_aval *x = &in_avals[0];
    unsigned mapped = 0; /* output axes that copy an operand axis one to one */
    for (int i = 0; i < x->rank; i++)
        if (x->dims[i] == p->shape.v[p->axes.v[i]]) mapped |= 1u << p->axes.v[i];
    prim_params sum = prim_params_zero();
    for (int d = 0; d < p->shape.n; d++)
        if (!(mapped & (1u << d))) sum.axes.v[sum.axes.n++] = d;
    cj_val r = sum.axes.n ? bind1(ctx, PRIM_REDUCE_SUM, &sum, ct) : ct;
    return ad_set(reshape_to(ctx, r, x), &ct_in[0]);
}

/* reshape, squeeze and expand_dims keep the elements in order: the
 * cotangent is the output cotangent in the operand's shape. */
static int same_order_transpose(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                                const int *linear, const rt_aval *in_avals, cj_val ct, cj_val *ct_in) {
    (void)prim, (void)p, (void)n_in, (void)in;
    if (!linear[0]) return 0;
    return ad_set(reshape_to(ctx, ct, &in_avals[0]), &ct_in[0]);
}

/* transpose by perm: back by the inverse permutation. */
static int transpose_transpose(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                               const int *linear, const rt_aval *in_avals, cj_val ct, cj_val *ct_in) {
    (void)n_in, (void)in, (void)in_avals;
    if (!linear[0]) return 0;
    prim_params inv = prim_params_zero();
    inv.axes.n = p->axes.n;
    for (int i = 0; i < p->axes.n; i++) inv.axes.v[p->axes.v[i]] = i;
    return ad_set(bind1(ctx, prim, &inv, ct), &ct_in[0]);
}

/* rev is its own inverse. */
static int rev_transpose(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                         const int *linear, const rt_aval *in_avals, cj_val ct, cj_val *ct_in) {
    (void)n_in, (void)in, (void)in_avals;
    if (!linear[0]) return 0;
    return ad_set(bind1(ctx, prim, p, ct), &ct_in[0]);
}

/* slice: the cotangent lands back on the elements the window read — a pad
 * with zeros: low = start, interior = stride - 1, high = whatever remains
 * after the last element read (lax's real limit, start when the window is
 * empty). */
static int slice_transpose(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                           const int *linear, const rt_aval *in_avals, cj_val ct, cj_val *ct_in) {
    (void)prim, (void)n_in, (void)in;
    if (!linear[0]) return 0;
    const rt_aval *x = &in_avals[0], *o = ad_aval(ct);
    if (!o) return -1;
    int64_t lo[CJ_MAX_RANK], hi[CJ_MAX_RANK], interior[CJ_MAX_RANK];
    for (int d = 0; d < x->rank; d++) {
        int64_t stride = p->step.n ? p->step.v[d] : 1;
        int64_t real_limit = o->dims[d] ? p->lo.v[d] + (o->dims[d] - 1) * stride + 1 : p->lo.v[d];
        lo[d] = p->lo.v[d];
        hi[d] = x->dims[d] - real_limit;
        interior[d] = stride - 1;
    }
    return ad_set(pad_zeros(ctx, ct, x->rank, lo, hi, p->step.n ? interior : NULL), &ct_in[0]);
}

/* dynamic_slice: the window's cotangent written into zeros at the same
 * starts (both primitives clamp starts alike, so it lands where the
 * window was read). */
static int dynamic_slice_transpose(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                                   const int *linear, const rt_aval *in_avals, cj_val ct, cj_val *ct_in) {
    (void)prim, (void)p;
    if (!linear[0]) return 0;
    cj_val args[65];
    args[0] = ad_zeros(ctx, &in_avals[0]);
    if (!args[0].slot) return -1;
    args[1] = ct;
    for (int i = 1; i < n_in; i++) args[i + 1] = in[i];
    prim_params q = prim_params_zero();
    return ad_set(core_bind(ctx, PRIM_DYNAMIC_UPDATE_SLICE, &q, n_in + 1, args), &ct_in[0]);
}

/* dynamic_update_slice: the operand receives the cotangent outside the
 * window (the window overwrote it: zeros there), the update the window
 * itself. */
static int dynamic_update_slice_transpose(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in,
                                          const cj_val *in, const int *linear, const rt_aval *in_avals, cj_val ct,
                                          cj_val *ct_in) {
    (void)p;
    const rt_aval *u = &in_avals[1];
    cj_val args[64];
    for (int i = 2; i < n_in; i++) args[i] = in[i];
    if (linear[0]) {
        args[0] = ct;
        args[1] = ad_zeros(ctx, u);
        if (!args[1].slot) return -1;
        prim_params q = prim_params_zero();
        if (ad_set(core_bind(ctx, prim, &q, n_in, args), &ct_in[0]) != 0) return -1;
    }
    if (linear[1]) {
        prim_params q = prim_params_zero();
        q.shape.n = u->rank;
        memcpy(q.shape.v, u->dims, sizeof(int64_t) * (size_t)u->rank);
        args[1] = ct; /* dynamic_slice(ct, *starts): operand then the starts */
        if (ad_set(core_bind(ctx, PRIM_DYNAMIC_SLICE, &q, n_in - 1, args + 1), &ct_in[1]) != 0) return -1;
    }
    return 0;
}

/* concatenate: each linear operand gets its stretch of the cotangent
 * along the axis. */
static int concatenate_transpose(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                                 const int *linear, const rt_aval *in_avals, cj_val ct, cj_val *ct_in) {
    (void)prim, (void)in;
    int64_t axis = p->axes.v[0], at = 0;
    for (int i = 0; i < n_in; i++) {
        const rt_aval *x = &in_avals[i];
        if (linear[i]) {
            prim_params s = prim_params_zero();
            s.lo.n = s.hi.n = x->rank;
            memcpy(s.hi.v, x->dims, sizeof(int64_t) * (size_t)x->rank);
            s.lo.v[axis] = at;
            s.hi.v[axis] = at + x->dims[axis];
            if (ad_set(bind1(ctx, PRIM_SLICE, &s, ct), &ct_in[i]) != 0) return -1;
        }
        at += x->dims[axis];
    }
    return 0;
}

/* pad: the operand's cotangent is read back from where its elements
 * landed (lax's rule): first zeros are put back where negative padding
 * cropped elements away, then a strided slice skips the padding. The
 * padding value was copied to every other position, so its cotangent is
 * the total of the cotangent less the operand's share. */
static cj_val unpad(cj_ctx *ctx, const prim_params *p, const rt_aval *x, cj_val ct) {
    const rt_aval *o = ad_aval(ct);
    if (!o) return core_err_val(ctx);
    int64_t lo[CJ_MAX_RANK], hi[CJ_MAX_RANK];
    int cropped = 0;
    prim_params s = prim_params_zero();
    s.lo.n = s.hi.n = s.step.n = x->rank;
    for (int d = 0; d < x->rank; d++) {
        lo[d] = p->lo.v[d] < 0 ? -p->lo.v[d] : 0;
        hi[d] = p->hi.v[d] < 0 ? -p->hi.v[d] : 0;
        cropped |= lo[d] || hi[d];
        /* in the restored cotangent, element i of x sits at start + i*pitch */
        s.lo.v[d] = p->lo.v[d] > 0 ? p->lo.v[d] : 0;
        s.hi.v[d] = o->dims[d] + lo[d] + hi[d] - (p->hi.v[d] > 0 ? p->hi.v[d] : 0);
        s.step.v[d] = 1 + (p->step.n ? p->step.v[d] : 0);
    }
    cj_val full = cropped ? pad_zeros(ctx, ct, x->rank, lo, hi, NULL) : ct;
    return bind1(ctx, PRIM_SLICE, &s, full);
}

static int pad_transpose(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                         const int *linear, const rt_aval *in_avals, cj_val ct, cj_val *ct_in) {
    (void)prim, (void)n_in, (void)in;
    cj_val ct_x = unpad(ctx, p, &in_avals[0], ct);
    if (!ct_x.slot) return -1;
    if (linear[0]) ct_in[0] = ct_x;
    if (linear[1]) {
        prim_params q = prim_params_zero();
        cj_val parts[2] = {sum_all(ctx, ct), sum_all(ctx, ct_x)};
        if (ad_set(core_bind(ctx, PRIM_SUB, &q, 2, parts), &ct_in[1]) != 0) return -1;
    }
    return 0;
}

void ad_register_shape(void) {
    static const prim_id moved_as_is[] = {PRIM_BROADCAST_IN_DIM, PRIM_RESHAPE, PRIM_TRANSPOSE, PRIM_SQUEEZE,
                                          PRIM_EXPAND_DIMS,      PRIM_SLICE,   PRIM_CONCATENATE, PRIM_PAD,
                                          PRIM_REV};
    for (size_t i = 0; i < sizeof moved_as_is / sizeof moved_as_is[0]; i++)
        prim_rules[moved_as_is[i]].jvp = ad_jvp_linear;
    prim_rules[PRIM_DYNAMIC_SLICE].jvp = dynamic_slice_jvp;
    prim_rules[PRIM_DYNAMIC_UPDATE_SLICE].jvp = dynamic_update_slice_jvp;
    prim_rules[PRIM_IOTA].jvp = ad_jvp_zero;

    prim_rules[PRIM_BROADCAST_IN_DIM].transpose = broadcast_in_dim_transpose;
    prim_rules[PRIM_RESHAPE].transpose = same_order_transpose;
    prim_rules[PRIM_SQUEEZE].transpose = same_order_transpose;
    prim_rules[PRIM_EXPAND_DIMS].transpose = same_order_transpose;
    prim_rules[PRIM_TRANSPOSE].transpose = transpose_transpose;
    prim_rules[PRIM_REV].transpose = rev_transpose;
    prim_rules[PRIM_SLICE].transpose = slice_transpose;
    prim_rules[PRIM_DYNAMIC_SLICE].transpose = dynamic_slice_transpose;
    prim_rules[PRIM_DYNAMIC_UPDATE_SLICE].transpose = dynamic_update_slice_transpose;
    prim_rules[PRIM_CONCATENATE].transpose = concatenate_transpose;
    prim_rules[PRIM_PAD].transpose = pad_transpose;
}
