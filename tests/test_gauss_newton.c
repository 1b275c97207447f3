/* test_gauss_newton.c — the Gauss–Newton example's model and step
 * (examples/gauss_newton/gn_model.h, which examples/gauss_newton.c and the
 * bench's gn_step row use): jacfwd of the residuals equals the Jacobian
 * written out by hand, one jitted step equals the same step computed in
 * double by plain C loops (hand Jacobian, normal equations, Gaussian
 * elimination), the generated C's step equals the interpreter's, and
 * repeated steps converge to the parameters the data were made from. */
#include <math.h>
#include <stdlib.h>

#include "../examples/gauss_newton/gn_model.h"
#include "harness.h"

static int read_f64(cj_val v, double *buf, int64_t n) {
    return cj_val_size(v) == n && cj_read_as(v, CJ_F64, buf, sizeof(double) * (size_t)n) == CJ_OK;
}

/* J[i][k] = sin(w_k t_i), J[i][K+k] = a_k t_i cos(w_k t_i); r = model - y */
static void hand_jacobian(const double *p, const double *t, const double *y, double *jac, double *r) {
    for (int i = 0; i < GN_M; i++) {
        r[i] = -y[i];
        for (int k = 0; k < GN_K; k++) {
            double ph = p[GN_K + k] * t[i];
            jac[i * GN_P + k] = sin(ph);
            jac[i * GN_P + GN_K + k] = p[k] * t[i] * cos(ph);
            r[i] += p[k] * sin(ph);
        }
    }
}

/* p - (JᵀJ + λI)⁻¹ Jᵀr in double: Gaussian elimination with partial
 * pivoting on the augmented normal equations */
static int reference_step(const double *p, const double *t, const double *y, double *next) {
    double *jac = malloc(sizeof(double) * GN_M * GN_P), *r = malloc(sizeof(double) * GN_M);
    double(*aug)[GN_P + 1] = malloc(sizeof(double) * GN_P * (GN_P + 1));
    if (!jac || !r || !aug) return free(jac), free(r), free(aug), 0;
    hand_jacobian(p, t, y, jac, r);
    for (int a = 0; a < GN_P; a++) {
        for (int b = 0; b <= GN_P; b++) {
            double s = 0;
            for (int i = 0; i < GN_M; i++) s += jac[i * GN_P + a] * (b < GN_P ? jac[i * GN_P + b] : r[i]);
            aug[a][b] = s + (a == b ? GN_LAMBDA : 0);
        }
    }
    for (int c = 0; c < GN_P; c++) {
        int piv = c;
        for (int i = c + 1; i < GN_P; i++)
            if (fabs(aug[i][c]) > fabs(aug[piv][c])) piv = i;
        for (int b = 0; b <= GN_P; b++) {
            double tmp = aug[c][b];
            aug[c][b] = aug[piv][b], aug[piv][b] = tmp;
        }
        for (int i = c + 1; i < GN_P; i++) {
            double f = aug[i][c] / aug[c][c];
            for (int b = c; b <= GN_P; b++) aug[i][b] -= f * aug[c][b];
        }
    }
    for (int c = GN_P - 1; c >= 0; c--) {
        double s = aug[c][GN_P];
        for (int b = c + 1; b < GN_P; b++) s -= aug[c][b] * next[b];
        next[c] = s / aug[c][c];
    }
    for (int c = 0; c < GN_P; c++) next[c] = p[c] - next[c];
    free(jac), free(r), free(aug);
    return 1;
}

static double max_rel_diff(const double *a, const double *b, int n) {
    double d = 0, scale = 0;
    for (int i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i])), scale = fmax(scale, fabs(b[i]));
    return d / scale;
}

TEST(gauss_newton_jacobian_is_the_hand_written_one) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val t = gn_times(ctx), in[3] = {gn_start_params(ctx), t, gn_data(ctx, t)}, jac;
    cj_grad_opts by_p = {0, NULL, 0};
    cj_func *jf = cj_jit(cj_jacfwd(cj_func_new(ctx, "residuals", gn_residuals_fn, 3, 1, NULL), &by_p),
                         &(cj_jit_opts){.backend = CJ_BACKEND_INTERP});
    CHECK_MSG(cj_call(jf, in, &jac) == CJ_OK, "%s", cj_error_message(ctx));
    double *got = malloc(sizeof(double) * GN_M * GN_P), *want = malloc(sizeof(double) * GN_M * GN_P);
    double p[GN_P], tt[GN_M], y[GN_M], r[GN_M];
    CHECK(got && want);
    CHECK(read_f64(jac, got, GN_M * GN_P) && read_f64(in[0], p, GN_P) && read_f64(t, tt, GN_M) &&
          read_f64(in[2], y, GN_M));
    hand_jacobian(p, tt, y, want, r);
    /* f32 phases up to 500 carry ~3e-5 absolute error (1.4e-5 measured);
     * scaling one column block by 1 + 1e-4 gives 1e-4 */
    double d = max_rel_diff(got, want, GN_M * GN_P);
    CHECK_MSG(d < 5e-5, "jacfwd vs hand Jacobian: %.3g", d);
    free(got), free(want);
    cj_ctx_free(ctx);
}

TEST(gauss_newton_step_matches_a_double_reference) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val t = gn_times(ctx), in[3] = {gn_start_params(ctx), t, gn_data(ctx, t)}, out[2];
    cj_func *step = gn_step_new(ctx);
    cj_func *interp = cj_jit(step, &(cj_jit_opts){.backend = CJ_BACKEND_INTERP});
    cj_func *cc = cj_jit(step, &(cj_jit_opts){.backend = CJ_BACKEND_CC});
    CHECK_MSG(cj_call(interp, in, &out[0]) == CJ_OK, "%s", cj_error_message(ctx));
    CHECK_MSG(cj_call(cc, in, &out[1]) == CJ_OK, "%s", cj_error_message(ctx));
    double p[GN_P], tt[GN_M], y[GN_M], want[GN_P], got[2][GN_P];
    CHECK(read_f64(in[0], p, GN_P) && read_f64(t, tt, GN_M) && read_f64(in[2], y, GN_M));
    CHECK(read_f64(out[0], got[0], GN_P) && read_f64(out[1], got[1], GN_P));
    CHECK(reference_step(p, tt, y, want));
    /* compare the updates p_next - p, not p_next (p's 50s would hide them) */
    for (int i = 0; i < GN_P; i++) want[i] -= p[i], got[0][i] -= p[i], got[1][i] -= p[i];
    for (int m = 0; m < 2; m++) {
        double d = max_rel_diff(got[m], want, GN_P);
        /* 1.5e-5 measured; tripling λ moves it to 1.2e-4 */
        CHECK_MSG(d < 1e-4, "%s step vs double reference: %.3g", m ? "cc" : "interp", d);
    }
    double d = max_rel_diff(got[1], got[0], GN_P);
    CHECK_MSG(d < 1e-5, "cc vs interp step: %.3g", d);
    cj_ctx_free(ctx);
}

TEST(gauss_newton_converges_to_the_known_parameters) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val t = gn_times(ctx), y = gn_data(ctx, t), p = gn_start_params(ctx);
    cj_func *step = cj_jit(gn_step_new(ctx), &(cj_jit_opts){.backend = CJ_BACKEND_INTERP});
    double truth[GN_P], got[GN_P], prev_norm = INFINITY;
    CHECK(read_f64(gn_true_params(ctx), truth, GN_P));
    for (int s = 0; s < 6; s++) {
        cj_val in[3] = {p, t, y}, r;
        gn_residuals_fn(ctx, in, &r, NULL);
        double norm = sqrt(cj_item_or_nan(cj_sum(cj_mul(r, r), -1, NULL, 0)));
        /* each step shrinks the residual until f32's floor (~1e-5 here) */
        CHECK_MSG(norm < prev_norm || norm < 1e-4, "step %d: |r| %.3g after %.3g", s, norm, prev_norm);
        prev_norm = norm;
        CHECK_MSG(cj_call(step, in, &p) == CJ_OK, "%s", cj_error_message(ctx));
    }
    CHECK(read_f64(p, got, GN_P));
    double worst = 0;
    for (int i = 0; i < GN_P; i++) worst = fmax(worst, fabs(got[i] - truth[i]));
    CHECK_MSG(worst < 1e-4, "max |p - p_true| = %.3g after 6 steps", worst);
    cj_jit_stats st;
    cj_jit_stats_get(step, &st);
    CHECK_EQ_INT(st.traces, 1);
    cj_ctx_free(ctx);
}
