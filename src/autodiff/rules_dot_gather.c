/* rules_dot_gather.c — jvp and transpose rules of dot_general, gather and
 * scatter_add (prim layer with the other rules, tools/layers.txt;
 * parameters as in src/prim/dot.c and src/prim/gather.c).
 *
 * dot_general is bilinear: d(a·b) = ta·b + a·tb, and with one operand
 * fixed it is linear in the other, whose transpose is another dot_general
 * of the cotangent with the fixed operand followed by a transpose into the
 * operand's axis order (JAX's _dot_general_transpose_lhs/rhs).
 *
 * gather is linear in its operand and scatter_add in its operand and its
 * updates; indices are never linear (they get no tangent). The transposes
 * must mirror the out-of-range rules of gather.c exactly: a gather CLAMPS
 * (after one negative wrap), so its transpose scatters the cotangent at
 * the clamped positions — a plain scatter_add would DROP those; a
 * scatter_add drops out-of-range updates, so its transpose gathers the
 * cotangent and zeroes the dropped entries — a plain gather would clamp
 * and hand them a value. */
#include "ad_rules.h"

enum { FORM_TAKE = 0, FORM_ALONG = 1 };

static int is_float_val(cj_val v) {
    const rt_aval *a = ad_aval(v);
    return a && rt_is_float(a->dtype);
}

/* ---- dot_general -------------------------------------------------------- */

static int dot_jvp(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in, const cj_val *tin,
                   cj_val out, cj_val *tout) {
    (void)prim, (void)n_in;
    *tout = ad_zero(ctx);
    if (!is_float_val(out)) return 0;
    cj_val t = ad_zero(ctx);
    if (!ad_is_zero(tin[0])) {
        t = core_bind(ctx, PRIM_DOT_GENERAL, p, 2, (cj_val[]){tin[0], in[1]});
        if (!t.slot) return -1;
    }
    if (!ad_is_zero(tin[1])) {
        cj_val rhs_part = core_bind(ctx, PRIM_DOT_GENERAL, p, 2, (cj_val[]){in[0], tin[1]});
        if (!rhs_part.slot) return -1;
        t = ad_add(ctx, t, rhs_part);
        if (!t.slot) return -1;
    }
    *tout = t;
    return 0;
}

/* Axes of an operand of the given rank that are neither contracting nor
 * batch, in order. */
static int free_axes(int rank, const prim_ivec *contract, const prim_ivec *batch, int64_t *out) {
    int n = 0;
    for (int d = 0; d < rank; d++) {
        int used = 0;
        for (int i = 0; i < contract->n; i++) used |= contract->v[i] == d;
        for (int i = 0; i < batch->n; i++) used |= batch->v[i] == d;
        if (!used) out[n++] = d;
    }
    return n;
}

/* The cotangent of operand x (`x_is_rhs` says which side) given the
 * other operand y. ct's axes are batch, lhs free, rhs free; contracting
 * ct's y-free axes with y's free axes (batching the batch axes) leaves
 * batch, x free, then y's contracting axes in increasing order — x's
 * contracting axes in the order of their y partners — which a transpose
 * puts back in x's order. */
static cj_val dot_cotangent_in(cj_ctx *ctx, const prim_params *p, int x_is_rhs, const rt_aval *x_aval,
                               const rt_aval *y_aval, cj_val y, cj_val ct);

/* With a preferred_element_type wider than the operands (bf16 · bf16 →
 * f32) the cotangent is of the wider dtype: y is converted up to it, the
 * product taken in it, and the result converted back to x's dtype (JAX's
 * _dot_general_transpose_lhs ends in the same convert_element_type). */
static cj_val dot_cotangent(cj_ctx *ctx, const prim_params *p, int x_is_rhs, const rt_aval *x_aval,
                            const rt_aval *y_aval, cj_val y, cj_val ct) {
    if (y_aval->dtype != p->dtype) y = bind_convert(y, p->dtype);
    cj_val r = dot_cotangent_in(ctx, p, x_is_rhs, x_aval, y_aval, y, ct);
    if (r.slot && x_aval->dtype != p->dtype) r = bind_convert(r, x_aval->dtype);
    return r;
}

static cj_val dot_cotangent_in(cj_ctx *ctx, const prim_params *p, int x_is_rhs, const rt_aval *x_aval,
                               const rt_aval *y_aval, cj_val y, cj_val ct) {
    const prim_ivec *xc = x_is_rhs ? &p->rhs_contract : &p->lhs_contract;
    const prim_ivec *yc = x_is_rhs ? &p->lhs_contract : &p->rhs_contract;
    const prim_ivec *xb = x_is_rhs ? &p->rhs_batch : &p->lhs_batch;
    const prim_ivec *yb = x_is_rhs ? &p->lhs_batch : &p->rhs_batch;
    int64_t x_free[CJ_MAX_RANK], y_free[CJ_MAX_RANK];
    int nx = free_axes(x_aval->rank, xc, xb, x_free), ny = free_axes(y_aval->rank, yc, yb, y_free);
    int nb = xb->n;
    int64_t ct_y_first = x_is_rhs ? nb : nb + nx; /* where y's free axes sit in ct */

    prim_params q = prim_params_zero();
    q.dtype = p->dtype;
    q.lhs_batch.n = q.rhs_batch.n = nb;
    for (int i = 0; i < nb; i++) {
        q.lhs_batch.v[i] = i;
        q.rhs_batch.v[i] = yb->v[i];
    }
    q.lhs_contract.n = q.rhs_contract.n = ny;
    for (int i = 0; i < ny; i++) {
        q.lhs_contract.v[i] = ct_y_first + i;
        q.rhs_contract.v[i] = y_free[i];
    }
    /* x's axis at each position of dot_general(ct, y): batch, free, then
     * contracting ordered by the y axis each pairs with. */
    int64_t ct_first[CJ_MAX_RANK], y_first[CJ_MAX_RANK];
    int k = 0;
    for (int i = 0; i < nb; i++) ct_first[k++] = xb->v[i];
    for (int i = 0; i < nx; i++) ct_first[k++] = x_free[i];
    for (int d = 0; d < y_aval->rank; d++)
        for (int i = 0; i < yc->n; i++)
            if (yc->v[i] == d) ct_first[k++] = xc->v[i];
    /* The operands the other way round, dot_general(y, ct), leave batch,
     * x's contracting axes (in the order of their y partners), then x's
     * free axes. */
    k = 0;
    for (int i = 0; i < nb; i++) y_first[k++] = xb->v[i];
    for (int d = 0; d < y_aval->rank; d++)
        for (int i = 0; i < yc->n; i++)
            if (yc->v[i] == d) y_first[k++] = xc->v[i];
    for (int i = 0; i < nx; i++) y_first[k++] = x_free[i];
    int ct_first_id = 1, y_first_id = 1;
    for (int j = 0; j < k; j++) {
        ct_first_id &= ct_first[j] == j;
        y_first_id &= y_first[j] == j;
    }
    /* Whichever order is already x's needs no transpose, which the
     * compiler cannot fold into the dot. When both are (x has no free
     * axes: a vector against a matrix, h's cotangent in h·W), ct goes
     * first: under vmap the cotangent is the batched operand, and as the
     * lhs its batch axis stays the outermost axis of the result — the
     * other order leaves it innermost ([128, batch] for a layer of 128),
     * so every consumer reads it strided or a transpose copies it. When
     * only the other order is x's (a weight's gradient, hᵀ·g) it is used. */
    if (y_first_id && !ct_first_id) {
        prim_params q2 = q;
        for (int i = 0; i < nb; i++) {
            q2.lhs_batch.v[i] = yb->v[i];
            q2.rhs_batch.v[i] = i;
        }
        for (int i = 0; i < ny; i++) {
            q2.lhs_contract.v[i] = y_free[i];
            q2.rhs_contract.v[i] = ct_y_first + i;
        }
        return core_bind(ctx, PRIM_DOT_GENERAL, &q2, 2, (cj_val[]){y, ct});
    }
    cj_val r = core_bind(ctx, PRIM_DOT_GENERAL, &q, 2, (cj_val[]){ct, y});
    if (ct_first_id) return r;
    int64_t perm[CJ_MAX_RANK];
    for (int j = 0; j < k; j++) perm[ct_first[j]] = j;
    return bind_transpose(r, perm);
}

static int dot_transpose(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                         const int *linear, const rt_aval *in_avals, cj_val ct, cj_val *ct_in) {
    (void)prim, (void)n_in;
    if (linear[0] && linear[1])
        return core_error(ctx, CJ_ERR_INTERNAL, "dot_general: transpose with both operands linear");
    for (int x = 0; x < 2; x++) {
        if (!linear[x]) continue;
        ct_in[x] = dot_cotangent(ctx, p, x, &in_avals[x], &in_avals[1 - x], in[1 - x], ct);
        if (!ct_in[x].slot) return -1;
    }
    return 0;
}

/* ---- gather and scatter_add: positions as the kernels see them ----------- */

/* An index-dtype constant. */
static cj_val index_const(cj_val idx, int64_t c) {
    const rt_aval *a = ad_aval(idx);
    if (!a) return core_err_val(idx.ctx);
    return bind_scalar(idx.ctx, (double)c, a->dtype, 0);
}

/* Negative indices wrapped once (+dim), as both kernels do first. */
static cj_val wrap_once(cj_val idx, int64_t dim) {
    return bind_where(bind_binary(PRIM_LT, idx, index_const(idx, 0)), bind_binary(PRIM_ADD, idx, index_const(idx, dim)), idx);
}

/* The positions a gather reads: wrapped, then clamped to [0, dim-1]. */
static cj_val gather_positions(cj_val idx, int64_t dim) {
    return bind_clamp(index_const(idx, 0), wrap_once(idx, dim), index_const(idx, dim - 1));
}

/* Which updates a scatter_add keeps (the others are dropped), as a bool
 * array shaped like the updates. */
static cj_val scatter_kept(cj_val idx, const prim_params *p, int64_t dim, const rt_aval *upd) {
    cj_val w = wrap_once(idx, dim);
    cj_val kept = bind_binary(PRIM_AND, bind_binary(PRIM_GE, w, index_const(idx, 0)), bind_binary(PRIM_LT, w, index_const(idx, dim)));
    if (p->flag == FORM_ALONG) return kept;
    int64_t at[CJ_MAX_RANK];
    int r = ad_aval(idx)->rank;
    for (int i = 0; i < r; i++) at[i] = p->axes.v[0] + i;
    return bind_broadcast_in_dim(kept, upd->rank, upd->dims, at);
}

/* ---- gather ------------------------------------------------------------- */

static int gather_jvp(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                      const cj_val *tin, cj_val out, cj_val *tout) {
    (void)n_in;
    *tout = ad_zero(ctx);
    if (ad_is_zero(tin[0]) || !is_float_val(out)) return 0;
    return ad_set(core_bind(ctx, prim, p, 2, (cj_val[]){tin[0], in[1]}), tout);
}

/* Every output element copied x at its clamped position, so the cotangent
 * adds back there; duplicates accumulate. */
static int gather_transpose(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                            const int *linear, const rt_aval *in_avals, cj_val ct, cj_val *ct_in) {
    (void)prim, (void)n_in;
    if (!linear[0]) return 0;
    int64_t dim = in_avals[0].dims[p->axes.v[0]];
    cj_val zeros = ad_zeros(ctx, &in_avals[0]);
    if (dim == 0) return ad_set(zeros, &ct_in[0]); /* nothing was read */
    cj_val args[3] = {zeros, gather_positions(in[1], dim), ct};
    return ad_set(core_bind(ctx, PRIM_SCATTER_ADD, p, 3, args), &ct_in[0]);
}

/* ---- scatter_add ---------------------------------------------------------- */

static int scatter_add_jvp(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                           const cj_val *tin, cj_val out, cj_val *tout) {
    (void)n_in;
    *tout = ad_zero(ctx);
    if (!is_float_val(out)) return 0;
    if (ad_is_zero(tin[2])) { /* the updates are fixed: out moves with x */
        *tout = tin[0];
        return 0;
    }
    cj_val base = ad_is_zero(tin[0]) ? ad_zeros(ctx, ad_aval(in[0])) : tin[0];
    return ad_set(core_bind(ctx, prim, p, 3, (cj_val[]){base, in[1], tin[2]}), tout);
}

/* x passes straight through; each kept update was added at its position,
 * so it reads the cotangent there, and a dropped one gets zero. */
static int scatter_add_transpose(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                                 const int *linear, const rt_aval *in_avals, cj_val ct, cj_val *ct_in) {
    (void)prim, (void)n_in;
    if (linear[1]) return core_error(ctx, CJ_ERR_INTERNAL, "scatter_add: indices cannot be linear");
    if (linear[0]) ct_in[0] = ct;
    if (!linear[2]) return 0;
    const rt_aval *upd = &in_avals[2];
    int64_t dim = in_avals[0].dims[p->axes.v[0]];
    cj_val zeros = ad_zeros(ctx, upd);
    if (dim == 0) return ad_set(zeros, &ct_in[2]); /* every update was dropped */
    cj_val read = core_bind(ctx, PRIM_GATHER, p, 2, (cj_val[]){ct, in[1]});
    return ad_set(bind_where(scatter_kept(in[1], p, dim, upd), read, zeros), &ct_in[2]);
}

void ad_register_dot_gather(void) {
    prim_rules[PRIM_DOT_GENERAL].jvp = dot_jvp;
    prim_rules[PRIM_DOT_GENERAL].transpose = dot_transpose;
    prim_rules[PRIM_GATHER].jvp = gather_jvp;
    prim_rules[PRIM_GATHER].transpose = gather_transpose;
    prim_rules[PRIM_SCATTER_ADD].jvp = scatter_add_jvp;
    prim_rules[PRIM_SCATTER_ADD].transpose = scatter_add_transpose;
}
