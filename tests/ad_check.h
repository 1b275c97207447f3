/* ad_check.h — checks for autodiff rules shared by the test files:
 * a primitive's jvp rule against central finite differences, and a linear
 * primitive's transpose rule by the dot-product test
 * <u, P v> = <P^T u, v> on random vectors. Inputs are concrete f64 arrays
 * (the checks compute in f64). */
#ifndef CJ_TEST_AD_CHECK_H
#define CJ_TEST_AD_CHECK_H
#include "../src/core/core.h"
#include "cjax.h"

/* f64 array, entries uniform in [lo, hi); *seed advances. */
cj_val adc_uniform(cj_ctx *ctx, int rank, const int64_t *dims, double lo, double hi, uint64_t *seed);
/* Largest |jvp - fd| / (1 + |fd|) over the elements and 3 random
 * directions; the operands with diff[i] set get random tangents, the others
 * zero (symbolic). For outputs that are not float the rule must return a
 * zero tangent: 0 when it does, 1e30 when not. Negative on an error. */
double adc_prim_jvp_error(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                          const int *diff, uint64_t seed);
/* For a primitive linear in the operands with lin[i] set (the others fixed
 * at in[i]): |<u, P v> - sum_i <ct_i, v_i>| / (1 + |<u, P v>|) for random
 * u, v, where ct = the transpose rule applied to u and P v the primitive's
 * change from zero linear operands to v (so add(v, c) counts as v).
 * Negative on an error. */
double adc_prim_transpose_error(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                                const int *lin, uint64_t seed);
/* sum(a * b) over all elements, in f64. */
double adc_dot(cj_val a, cj_val b);
/* End to end through the public AD API, for the primitive bound on `in`:
 * |<u, J v> - <J^T u, v>| / (1 + |<u, J v>|) with J v from cj_jvp and
 * J^T u from cj_vjp, for random v on the float operands and random u.
 * Negative on an error. */
double adc_prim_jvp_vjp_error(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                              uint64_t *seed);

/* A primitive with its parameters, for the end-to-end check below. */
typedef struct adc_op {
    prim_id prim;
    prim_params p;
    int n_in;
} adc_op;
/* In a test: fails unless adc_prim_jvp_vjp_error of op on the n values
 * given is below tol. */
#define ADC_CHECK_E2E(ctx, op, tol, seed, n, ...)                                                          \
    do {                                                                                                   \
        cj_val adc_in_[] = {__VA_ARGS__};                                                                  \
        double adc_e_ = adc_prim_jvp_vjp_error(ctx, (op).prim, &(op).p, n, adc_in_, seed);                 \
        CHECK_MSG(adc_e_ >= 0 && adc_e_ < (tol), "%s: <u, Jv> vs <J^T u, v> mismatch %g (%s)",            \
                  prim_names[(op).prim], adc_e_, cj_error(ctx) ? cj_error_message(ctx) : "no error");      \
    } while (0)

/* Parameter lists for the rule tests: IV(0, 2) is the ivec (0, 2), IV0 the
 * empty one; DIMS(2, 3) expands to a rank and a dims array. */
prim_ivec adc_ivec(int n, const int64_t *v);
#define IV(...) adc_ivec((int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), (int64_t[]){__VA_ARGS__})
#define IV0 adc_ivec(0, NULL)
#define DIMS(...) (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), (int64_t[]) { __VA_ARGS__ }

#endif
