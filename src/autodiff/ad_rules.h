/* ad_rules.h — what the primitives' jvp and transpose rules share (prim
 * layer in tools/layers.txt: they are rules of the primitives).
 *
 * Rules bind primitives through core_bind and the strict helpers of
 * src/prim/bind.h (never the public, promoting cj_* operations), so
 * whatever trace is current — the staging trace that builds a jvp program,
 * a batch trace, the eager one — records or computes them. A tangent or
 * cotangent handle with slot 0 is a symbolic zero: rules skip work for it
 * and return zero when every input tangent is zero. */
#ifndef CJ_AD_RULES_H
#define CJ_AD_RULES_H

#include "../core/core.h"
#include "../prim/bind.h"
#include "cjax.h"

static inline int ad_is_zero(cj_val t) { return t.slot == 0; }
static inline cj_val ad_zero(cj_ctx *ctx) {
    cj_val z = {ctx, 0, 0};
    return z;
}
/* a + b where either may be a symbolic zero. */
cj_val ad_add(cj_ctx *ctx, cj_val a, cj_val b);
/* A materialised zero array of the given type (for outputs and operands
 * that need a real value). */
cj_val ad_zeros(cj_ctx *ctx, const rt_aval *aval);
/* A rank-0 constant of x's dtype (strongly typed), for scaling tangents. */
cj_val ad_const_like(cj_val x, double c);
/* The type of a value. */
const rt_aval *ad_aval(cj_val v);
/* The result of a rule; -1 when `v` is an error value (the error is
 * already recorded). */
static inline int ad_set(cj_val v, cj_val *out) {
    *out = v;
    return v.slot ? 0 : -1;
}
/* Checks a rule's result (slot 0: zero, always fine) against the type it
 * must have; a mismatch is a bug in the rule, reported as an internal
 * error ("jvp(f): the jvp rule of 'sin' made a tangent of type f32[3] for
 * the result of type f64[3]") rather than propagated into wrong shapes.
 * `place` names where the value goes ("the result", "operand 1"). */
int ad_check_rule_result(cj_ctx *ctx, const char *what, prim_id prim, const char *kind, const char *place, cj_val v,
                         const rt_aval *want);
/* A jvp rule for primitives whose output does not depend differentiably
 * on the inputs (comparisons, floor, sign, argmax, iota, integer ops):
 * the tangent is zero. */
int ad_jvp_zero(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in, const cj_val *tin,
                cj_val out, cj_val *tout);
/* A jvp rule for primitives linear in all their operands (add, neg,
 * reshape, slice, ...; every operand a float value — not for index
 * operands): the tangent is the primitive applied to the
 * tangents (zeros materialised for the operands that have none). */
int ad_jvp_linear(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in, const cj_val *tin,
                  cj_val out, cj_val *tout);

#endif
