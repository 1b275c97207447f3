/* bench_work_gn.h — issue 16's Gauss–Newton row of `make bench`: one
 * damped step p - solve(JᵀJ + λI, Jᵀr) of a 100-parameter, 400-residual
 * fit of 50 sinusoids, J by jacfwd of the residuals, traced into one
 * program. The model, the data and the start are
 * examples/gauss_newton/gn_model.h's (the example program fits with the
 * same step); bench/peers.py builds the same arrays and the same step in
 * NumPy (the Jacobian written out by hand) and in JAX (jax.jit of
 * jax.jacfwd and jnp.linalg.solve). Inputs are built once, outside the
 * timed function. */
#ifndef CJ_BENCH_WORK_GN_H
#define CJ_BENCH_WORK_GN_H
#include <cjax.h>

#include "../examples/gauss_newton/gn_model.h"

static cj_func *make_gn_step(cj_ctx *ctx, cj_val *in) {
    in[0] = gn_start_params(ctx);
    in[1] = gn_times(ctx);
    in[2] = gn_data(ctx, in[1]);
    return gn_step_new(ctx);
}

/* the work a step needs: the Jacobian's 400×100 entries from the sines and
 * cosines of 400×50 phases (counted as the residuals' 2·M·K per tangent
 * would be, the way jacfwd pushes each forward), JᵀJ (2·M·P²), Jᵀr, and
 * the solve (2P³/3 + 2P²) */
#define GN_FLOPS (2.0 * GN_M * GN_K * GN_P + 2.0 * GN_M * GN_P * GN_P + 2.0 * GN_M * GN_P + \
                  2.0 * GN_P * GN_P * GN_P / 3 + 2.0 * GN_P * GN_P)

#endif
