/* rules_gather_general.c — jvp and transpose rules of gather_general and
 * scatter_general (prim layer with the other rules, tools/layers.txt;
 * parameters in src/prim/gather_general.h). JAX's rules from
 * jax/_src/lax/slicing.py, carried over:
 *
 *   gather       linear in the operand; its transpose a scatter-add of the
 *                cotangent where the gather read (the mode paired so that
 *                clamped reads add back at the clamped place and filled
 *                slices add nothing: gg_scatter_of_gather).
 *   scatter add  linear in operand and updates; the updates' cotangent is
 *                the gather of the cotangent (0 for dropped updates).
 *   scatter set  tangent: the tangents scattered the same way (the kernel
 *                applies duplicates in a fixed order, so the same update
 *                wins in both). Transpose: the operand's cotangent with the
 *                written places zeroed; each update gets the cotangent where
 *                it landed only if it is the one that won there (found by
 *                scattering update ids, JAX's trick for non-unique indices).
 *   scatter mul  linear in the operand (scatter-mul of the tangent by the
 *                same updates); with respect to the updates, as JAX, only
 *                for unique_indices: x · scatter-add(0, t_updates).
 *   scatter min/max  JAX's _scatter_extremal_jvp: where several values tie
 *                for the result (updates and the retained operand), the
 *                tangent is their average. */
#include "../prim/gather_general.h"
#include "ad_rules.h"

static int is_float_val(cj_val v) {
    const rt_aval *a = ad_aval(v);
    return a && rt_is_float(a->dtype);
}

static cj_val full_like(cj_ctx *ctx, const rt_aval *a, double c, cj_dtype dt) {
    return bind_full(ctx, c, dt, a->rank, a->dims);
}

static cj_val zeros_or(cj_ctx *ctx, cj_val t, const rt_aval *a) { return ad_is_zero(t) ? ad_zeros(ctx, a) : t; }

static cj_val gather_bind(const prim_params *q, cj_val x, cj_val idx) {
    return core_bind(x.ctx, PRIM_GATHER_GENERAL, q, 2, (cj_val[]){x, idx});
}
static cj_val scatter_bind(const prim_params *p, int kind, cj_val x, cj_val idx, cj_val u) {
    prim_params q = *p;
    q.count = kind;
    return core_bind(x.ctx, PRIM_SCATTER_GENERAL, &q, 3, (cj_val[]){x, idx, u});
}

/* ---- gather ---------------------------------------------------------------- */

static int gather_general_jvp(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                              const cj_val *tin, cj_val out, cj_val *tout) {
    (void)prim, (void)n_in;
    *tout = ad_zero(ctx);
    if (ad_is_zero(tin[0]) || !is_float_val(out)) return 0;
    prim_params q = *p;
    gg_set_fill_value(&q, 0.0); /* a filled slice does not move */
    return ad_set(gather_bind(&q, tin[0], in[1]), tout);
}

static int gather_general_transpose(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                                    const int *linear, const rt_aval *in_avals, cj_val ct, cj_val *ct_in) {
    (void)prim, (void)n_in;
    if (linear[1]) return core_error(ctx, CJ_ERR_INTERNAL, "gather_general: indices cannot be linear");
    if (!linear[0]) return 0;
    prim_params q = gg_scatter_of_gather(p, GG_KIND_ADD);
    return ad_set(scatter_bind(&q, GG_KIND_ADD, ad_zeros(ctx, &in_avals[0]), in[1], ct), &ct_in[0]);
}

/* ---- scatter: jvp ---------------------------------------------------------- */

/* min / max: JAX's averaging rule over the values that tie for each result. */
static int extremal_jvp(cj_ctx *ctx, const prim_params *p, const cj_val *in, const cj_val *tin, cj_val out,
                        cj_val *tout) {
    cj_val x = in[0], idx = in[1], u = in[2];
    const rt_aval *xa = ad_aval(x), *ua = ad_aval(u);
    cj_dtype dt = ua->dtype;
    cj_val gx = zeros_or(ctx, tin[0], xa), gu = zeros_or(ctx, tin[2], ua);
    prim_params g = gg_gather_of_scatter(p, xa, ua);
    cj_val initial = gather_bind(&g, x, idx), target = gather_bind(&g, out, idx);
    cj_val won = bind_binary(PRIM_EQ, u, target);       /* this update is the result there */
    cj_val retained = bind_binary(PRIM_EQ, initial, target); /* so is the operand's value */
    cj_val one_u = full_like(ctx, ua, 1, dt), zero_u = full_like(ctx, ua, 0, dt);
    cj_val zx = ad_zeros(ctx, xa);
    cj_val n_won = gather_bind(&g, scatter_bind(p, GG_KIND_ADD, zx, idx, bind_where(won, one_u, zero_u)), idx);
    cj_val n_refs = gather_bind(&g, scatter_bind(p, GG_KIND_ADD, zx, idx, one_u), idx);
    /* dropped updates read n_refs = 0: their coefficients are 0, not 1/0 */
    cj_val landed = bind_binary(PRIM_GT, n_refs, zero_u);
    cj_val safe_refs = bind_where(landed, n_refs, one_u);
    cj_val inv_plus = bind_binary(PRIM_DIV, one_u, bind_binary(PRIM_ADD, n_won, one_u));
    cj_val inv_won = bind_binary(PRIM_DIV, one_u, bind_where(bind_binary(PRIM_GT, n_won, zero_u), n_won, one_u));
    cj_val upd_norm = bind_where(retained, inv_plus, inv_won);
    cj_val upd_coef = bind_where(bind_binary(PRIM_AND, won, landed), upd_norm, zero_u);
    cj_val op_norm = bind_where(retained, inv_plus, zero_u);
    cj_val op_coef = bind_where(landed, bind_binary(PRIM_DIV, bind_binary(PRIM_SUB, op_norm, one_u), safe_refs), zero_u);
    cj_val t_target = gather_bind(&g, gx, idx);
    cj_val t_upd = bind_binary(PRIM_ADD, bind_binary(PRIM_MUL, t_target, op_coef), bind_binary(PRIM_MUL, gu, upd_coef));
    return ad_set(scatter_bind(p, GG_KIND_ADD, gx, idx, t_upd), tout);
}

static int scatter_general_jvp(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                               const cj_val *tin, cj_val out, cj_val *tout) {
    (void)prim, (void)n_in;
    *tout = ad_zero(ctx);
    if (!is_float_val(out) || (ad_is_zero(tin[0]) && ad_is_zero(tin[2]))) return 0;
    const rt_aval *xa = ad_aval(in[0]), *ua = ad_aval(in[2]);
    switch ((int)p->count) {
    case GG_KIND_ADD:
    case GG_KIND_SET: /* the same scatter of the tangents */
        if (p->count == GG_KIND_ADD && ad_is_zero(tin[2])) return ad_set(tin[0], tout);
        return ad_set(scatter_bind(p, (int)p->count, zeros_or(ctx, tin[0], xa), in[1], zeros_or(ctx, tin[2], ua)),
                      tout);
    case GG_KIND_MUL: {
        cj_val t = ad_zero(ctx);
        if (!ad_is_zero(tin[0])) {
            t = scatter_bind(p, GG_KIND_MUL, tin[0], in[1], in[2]);
            if (!t.slot) return -1;
        }
        if (!ad_is_zero(tin[2])) {
            if (!(p->flag & GG_UNIQUE))
                return core_error(ctx, CJ_ERR_UNSUPPORTED,
                                  "scatter_general: the derivative of kind mul with respect to the updates is only "
                                  "implemented with unique_indices (as in JAX)");
            cj_val s = scatter_bind(p, GG_KIND_ADD, ad_zeros(ctx, xa), in[1], tin[2]);
            t = ad_add(ctx, t, bind_binary(PRIM_MUL, in[0], s));
            if (!t.slot) return -1;
        }
        *tout = t;
        return 0;
    }
    default: return extremal_jvp(ctx, p, in, tin, out, tout);
    }
}

/* ---- scatter: transpose ---------------------------------------------------- */

/* Which updates won the place they landed on (a bool array shaped like the
 * updates): each update scatters its own id; reading the ids back, an
 * update sees its own only where it was the last applied. Dropped updates
 * read -1. */
static cj_val winners(cj_ctx *ctx, const prim_params *p, cj_val idx, const rt_aval *xa, const rt_aval *ua) {
    int64_t n = rt_aval_size(ua);
    cj_dtype it = n < INT32_MAX ? CJ_I32 : CJ_I64;
    cj_val ids = bind_reshape(bind_iota(ctx, it, 1, &n, 0), ua->rank, ua->dims);
    cj_val placed = scatter_bind(p, GG_KIND_SET, full_like(ctx, xa, -1, it), idx, ids);
    prim_params g = gg_gather_of_scatter(p, xa, ua);
    gg_set_fill_value(&g, -1.0);
    return bind_binary(PRIM_EQ, gather_bind(&g, placed, idx), ids);
}

static int scatter_general_transpose(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                                     const int *linear, const rt_aval *in_avals, cj_val ct, cj_val *ct_in) {
    (void)prim, (void)n_in;
    if (linear[1]) return core_error(ctx, CJ_ERR_INTERNAL, "scatter_general: indices cannot be linear");
    const rt_aval *xa = &in_avals[0], *ua = &in_avals[2];
    prim_params g = gg_gather_of_scatter(p, xa, ua);
    switch ((int)p->count) {
    case GG_KIND_ADD:
        if (linear[0]) ct_in[0] = ct;
        if (linear[2] && ad_set(gather_bind(&g, ct, in[1]), &ct_in[2]) != 0) return -1;
        return 0;
    case GG_KIND_SET:
        if (linear[0] && ad_set(scatter_bind(p, GG_KIND_SET, ct, in[1], ad_zeros(ctx, ua)), &ct_in[0]) != 0)
            return -1;
        if (linear[2]) {
            cj_val read = gather_bind(&g, ct, in[1]);
            if (ad_set(bind_where(winners(ctx, p, in[1], xa, ua), read, ad_zeros(ctx, ua)), &ct_in[2]) != 0)
                return -1;
        }
        return 0;
    case GG_KIND_MUL:
        if (linear[2])
            return core_error(ctx, CJ_ERR_INTERNAL, "scatter_general: kind mul is not linear in its updates");
        if (linear[0]) return ad_set(scatter_bind(p, GG_KIND_MUL, ct, in[1], in[2]), &ct_in[0]);
        return 0;
    default:
        return core_error(ctx, CJ_ERR_INTERNAL, "scatter_general: kind %s is not linear",
                          p->count == GG_KIND_MIN ? "min" : "max");
    }
}

void ad_register_gather_general(void) {
    prim_rules[PRIM_GATHER_GENERAL].jvp = gather_general_jvp;
    prim_rules[PRIM_GATHER_GENERAL].transpose = gather_general_transpose;
    prim_rules[PRIM_SCATTER_GENERAL].jvp = scatter_general_jvp;
    prim_rules[PRIM_SCATTER_GENERAL].transpose = scatter_general_transpose;
}
