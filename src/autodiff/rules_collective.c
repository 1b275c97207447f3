/* rules_collective.c — jvp and transpose rules of the collectives of
 * src/prim/collective.c (prim layer with the other rules;
 * tools/layers.txt).
 *
 * psum, all_gather, reduce_scatter, ppermute and all_to_all are linear:
 * the tangent is the same collective of the tangent. Their transposes are
 * JAX's: psum's is psum (every member's cotangent reaches every member's
 * operand), all_gather's is reduce_scatter along the gathered axis and
 * back, ppermute's is the inverse permutation, all_to_all's swaps
 * split_axis and concat_axis. pmax and pmin have no derivative in JAX
 * ("Differentiation rule for 'pmax' not implemented") and none here;
 * axis_index is an integer. */
#include "../prim/collective.h"
#include "ad_rules.h"

static int no_jvp(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in, const cj_val *tin,
                  cj_val out, cj_val *tout) {
    (void)p, (void)n_in, (void)in, (void)out, (void)tout;
    if (ad_is_zero(tin[0])) return *tout = ad_zero(ctx), 0;
    return prim_error(ctx, CJ_ERR_UNSUPPORTED, prim, "Differentiation rule for '%s' not implemented (as in JAX)",
                      prim_names[prim]);
}

static int coll_transpose(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                          const int *linear, const rt_aval *in_avals, cj_val ct, cj_val *ct_in) {
    (void)n_in, (void)in, (void)in_avals;
    if (!linear[0]) return 0;
    prim_params q = *p;
    prim_id t = prim;
    coll_perm *inv = NULL;
    switch (prim) {
    case PRIM_PSUM: break;
    case PRIM_ALL_GATHER: t = PRIM_PSUM_SCATTER; break;
    case PRIM_PSUM_SCATTER: t = PRIM_ALL_GATHER; break;
    case PRIM_ALL_TO_ALL:
        q.axes.v[0] = p->axes.v[1];
        q.axes.v[1] = p->axes.v[0];
        break;
    case PRIM_PPERMUTE: {
        const coll_perm *c = coll_perm_of(p);
        if (!(inv = coll_perm_new(ctx, c->size, c->n_pairs, c->pairs, 1))) return -1;
        q.ref = &inv->ref;
        break;
    }
    default: return prim_error(ctx, CJ_ERR_INTERNAL, prim, "is not linear");
    }
    ct_in[0] = core_bind(ctx, t, &q, 1, &ct);
    if (inv) prim_ref_release(&inv->ref); /* a staged equation holds its own */
    return ct_in[0].slot ? 0 : -1;
}

void ad_register_collective(void) {
    for (int id = PRIM_PSUM; id <= PRIM_ALL_TO_ALL; id++) {
        prim_rules[id].jvp = ad_jvp_linear;
        prim_rules[id].transpose = coll_transpose;
    }
    prim_rules[PRIM_PMAX].jvp = prim_rules[PRIM_PMIN].jvp = no_jvp;
    prim_rules[PRIM_PMAX].transpose = prim_rules[PRIM_PMIN].transpose = NULL;
    prim_rules[PRIM_AXIS_INDEX].jvp = ad_jvp_zero;
}
