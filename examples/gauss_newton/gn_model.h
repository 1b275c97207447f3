/* gn_model.h — the Gauss–Newton problem shared by examples/gauss_newton.c,
 * its test (tests/test_gauss_newton.c) and the bench row (bench/bench_work_gn.h):
 * fit y(t) = Σ_k a_k sin(w_k t), K = 50 amplitudes and 50 frequencies
 * (100 parameters), to M = 400 samples. A step is what a user writes in JAX:
 *     r = residuals(p);  J = jacfwd(residuals)(p);
 *     p - solve(JᵀJ + λI, Jᵀr)
 * traced once under cj_jit into one program (the Jacobian by forward mode,
 * the solve by cj_linalg_solve). The data are the model at known parameters
 * (a_k = 1 + 0.5 cos(7k/49), w_k = 1 + k for k = 0..49, t in [0, 10]), so
 * the fit's answer is known; the start is 20% off in amplitude and up to
 * 0.02 off in frequency, inside the basin the frequencies' local fit has
 * (the sines are 1 apart, the resolution of a 10-long window 2π/10).
 * bench/peers.py builds the same arrays in NumPy. Header-only: the example,
 * the test and the bench each compile it. */
#ifndef CJ_GN_MODEL_H
#define CJ_GN_MODEL_H
#include <cjax.h>

#define GN_K 50             /* sinusoids: parameters are 2·GN_K */
#define GN_P (2 * GN_K)
#define GN_M 400            /* residuals */
#define GN_T_END 10.0
#define GN_LAMBDA 1e-2      /* Levenberg damping: JᵀJ's diagonal is 10²..10⁴ */

/* residuals(p, t, y) = Σ_k a_k sin(w_k t) - y, p = [a; w] */
static void gn_residuals_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    cj_val a = cj_slice(in[0], (int64_t[]){0}, (int64_t[]){GN_K}, NULL);
    cj_val w = cj_slice(in[0], (int64_t[]){GN_K}, (int64_t[]){GN_P}, NULL);
    cj_val phase = cj_mul(cj_reshape(in[1], 2, (int64_t[]){GN_M, 1}), cj_reshape(w, 2, (int64_t[]){1, GN_K}));
    out[0] = cj_sub(cj_matmul(cj_sin(phase), a), in[2]);
}

/* step(p, t, y) = p - solve(JᵀJ + λI, Jᵀr); u is jacfwd(residuals) */
static void gn_step_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    cj_val r, jac;
    gn_residuals_fn(ctx, in, &r, NULL);
    cj_call((cj_func *)u, in, &jac); /* [GN_M, GN_P] */
    cj_val jt = cj_transpose(jac, (int64_t[]){1, 0});
    cj_val normal = cj_add(cj_matmul(jt, jac),
                           cj_mul(cj_eye(ctx, GN_P, GN_P, 0, CJ_F32), cj_scalar(ctx, GN_LAMBDA)));
    out[0] = cj_sub(in[0], cj_linalg_solve(normal, cj_matmul(jt, r)));
}

/* The step as a function object (not jitted): inputs p [GN_P], t [GN_M],
 * y [GN_M]; output the next p. Owned by ctx. */
static cj_func *gn_step_new(cj_ctx *ctx) {
    cj_grad_opts by_p = {0, NULL, 0};
    cj_func *jac = cj_jacfwd(cj_func_new(ctx, "residuals", gn_residuals_fn, 3, 1, NULL), &by_p);
    return cj_func_new(ctx, "gauss_newton_step", gn_step_fn, 3, 1, jac);
}

/* The known parameters [a; w], the start p0, t, and y = the model at the
 * known parameters (eager). */
static cj_val gn_true_params(cj_ctx *ctx) {
    cj_val a = cj_add(cj_mul(cj_cos(cj_linspace(ctx, 0, 7, GN_K, CJ_F32)), cj_scalar(ctx, 0.5)), cj_scalar(ctx, 1));
    return cj_concatenate(2, (cj_val[]){a, cj_linspace(ctx, 1, GN_K, GN_K, CJ_F32)}, 0);
}
static cj_val gn_start_params(cj_ctx *ctx) {
    cj_val truth = gn_true_params(ctx);
    cj_val a = cj_slice(truth, (int64_t[]){0}, (int64_t[]){GN_K}, NULL);
    cj_val w = cj_slice(truth, (int64_t[]){GN_K}, (int64_t[]){GN_P}, NULL);
    cj_val dw = cj_mul(cj_sin(cj_linspace(ctx, 0, 20, GN_K, CJ_F32)), cj_scalar(ctx, 0.02));
    return cj_concatenate(2, (cj_val[]){cj_mul(a, cj_scalar(ctx, 0.8)), cj_add(w, dw)}, 0);
}
static cj_val gn_times(cj_ctx *ctx) { return cj_linspace(ctx, 0, GN_T_END, GN_M, CJ_F32); }
static cj_val gn_data(cj_ctx *ctx, cj_val t) {
    cj_val in[3] = {gn_true_params(ctx), t, cj_zeros(ctx, CJ_F32, 1, (int64_t[]){GN_M})}, y;
    gn_residuals_fn(ctx, in, &y, NULL);
    return y;
}

#endif
