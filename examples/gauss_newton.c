/* gauss_newton.c — an end-to-end nonlinear least-squares fit with cjax:
 * 50 sinusoids' amplitudes and frequencies (100 parameters) fitted to 400
 * samples by damped Gauss–Newton steps, each step one jitted program
 * (jacfwd of the residuals, JᵀJ + λI, cj_linalg_solve; the model is in
 * gauss_newton/gn_model.h). Prints the residual norm and the distance to
 * the known parameters after every step; exits 1 if the fit does not
 * converge. Run: ./build/gauss_newton [steps] (default 8). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <cjax.h>

#include "gauss_newton/gn_model.h"

/* |r|₂ of the residuals at p */
static double residual_norm(cj_ctx *ctx, cj_val p, cj_val t, cj_val y) {
    cj_val in[3] = {p, t, y}, r;
    gn_residuals_fn(ctx, in, &r, NULL);
    return sqrt(cj_item_or_nan(cj_sum(cj_mul(r, r), -1, NULL, 0)));
}
static double max_abs_diff(cj_val a, cj_val b) {
    return cj_item_or_nan(cj_reduce_max(cj_abs(cj_sub(a, b)), -1, NULL, 0));
}

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 8;
    cj_ctx *ctx = cj_ctx_new(NULL);
    if (!ctx) return 1;
    cj_val t = gn_times(ctx), y = gn_data(ctx, t), truth = gn_true_params(ctx);
    cj_val p = gn_start_params(ctx);
    /* the generated C: the first call waits for the compiler, later steps
     * reuse the program */
    cj_jit_opts opts = {0, NULL, 0, NULL, CJ_BACKEND_CC};
    cj_func *step = cj_jit(gn_step_new(ctx), &opts);
    printf("step  |r|          max|p - p_true|\n");
    printf("%4d  %.6e  %.3e\n", 0, residual_norm(ctx, p, t, y), max_abs_diff(p, truth));
    for (int s = 1; s <= steps && !cj_error(ctx); s++) {
        cj_val in[3] = {p, t, y};
        if (cj_call(step, in, &p) != CJ_OK) break;
        printf("%4d  %.6e  %.3e\n", s, residual_norm(ctx, p, t, y), max_abs_diff(p, truth));
    }
    int ok = !cj_error(ctx) && max_abs_diff(p, truth) < 1e-3;
    if (cj_error(ctx)) fprintf(stderr, "gauss_newton: %s\n", cj_error_message(ctx));
    else printf(ok ? "converged to the known parameters\n" : "did not converge\n");
    cj_ctx_free(ctx);
    return ok ? 0 : 1;
}
