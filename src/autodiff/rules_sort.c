/* rules_sort.c — the jvp rules of sort and top_k (prim layer: rules of
 * the primitives in src/prim/sort.c).
 *
 * Both reorder their operands, so a tangent is reordered the same way: a
 * gather of the input tangent along the sorted axis by the permutation.
 * sort learns its permutation as lax.sort's jvp does, by sorting an i32
 * iota beside the operands (one more operand that is never a key, so the
 * order and the primal results are unchanged); top_k's indices are its
 * second result. The gathers are linear, so reverse mode transposes them
 * into scatter-adds: the cotangents are permuted back. Neither primitive
 * is linear, so there is no transpose rule. */
#include "../prim/prim.h"
#include "ad_rules.h"

static int sort_jvp(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in, const cj_val *tin,
                    int n_out, cj_val *primal, cj_val *tout) {
    if (n_in + 1 > PRIM_MAX_OPERANDS)
        return prim_error(ctx, CJ_ERR_UNSUPPORTED, prim, "jvp: %d operands and the permutation exceed %d", n_in,
                          PRIM_MAX_OPERANDS);
    const rt_aval *a = ad_aval(in[0]);
    if (!a) return -1;
    int64_t axis = p->axes.v[0];
    cj_val args[PRIM_MAX_OPERANDS], res[PRIM_MAX_OPERANDS];
    for (int i = 0; i < n_in; i++) args[i] = in[i];
    args[n_in] = bind_iota(ctx, CJ_I32, a->rank, a->dims, axis);
    if (core_bind_multi(ctx, prim, p, n_in + 1, args, n_in + 1, res) != 0) return -1;
    cj_val perm = res[n_in];
    for (int i = 0; i < n_out; i++) {
        primal[i] = res[i];
        tout[i] = ad_is_zero(tin[i]) ? ad_zero(ctx) : bind_take_along(tin[i], perm, axis);
        if (!ad_is_zero(tin[i]) && !tout[i].slot) return -1;
    }
    return 0;
}

static int top_k_jvp(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in, const cj_val *tin,
                     int n_out, cj_val *primal, cj_val *tout) {
    if (core_bind_multi(ctx, prim, p, n_in, in, n_out, primal) != 0) return -1;
    const rt_aval *a = ad_aval(in[0]);
    if (!a) return -1;
    tout[1] = ad_zero(ctx); /* the indices are integers */
    if (ad_is_zero(tin[0])) {
        tout[0] = ad_zero(ctx);
        return 0;
    }
    return ad_set(bind_take_along(tin[0], primal[1], a->rank - 1), &tout[0]);
}

void ad_register_sort(void) {
    prim_rules[PRIM_SORT].jvp_multi = sort_jvp;
    prim_rules[PRIM_TOP_K].jvp_multi = top_k_jvp;
}
