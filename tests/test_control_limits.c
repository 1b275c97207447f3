/* test_control_limits.c — no fixed limit on what a construct's bodies
 * save or read: a scan whose step's linearization keeps about 600
 * residuals (more than any per-equation table once held: 256 operands,
 * 128 results) differentiates eagerly and under jit on both backends, and
 * its gradient matches central differences of the same loss in plain C.
 * The known scan then has ~600 stacked outputs, the linear and
 * transposed scans ~600 xs. */
#include <math.h>

#include "harness.h"
#include "test_util.h"

#define MANY_INNER 600 /* nonlinear updates per step: one residual each */
#define MANY_STEPS 4
#define MANY_N 3

static double at(cj_val v, int64_t i) {
    double x[MANY_N] = {NAN, NAN, NAN};
    if (cj_read_as(v, CJ_F64, x, sizeof x) != CJ_OK) return NAN;
    return x[i];
}

static double coef(int k) { return 0.0002 * (1 + k % 3); }

/* carries (s, p): s ← p · (s after s += c_k s², k < MANY_INNER); p
 * unchanged. Each square's jvp keeps s_k: MANY_INNER residuals (products
 * only, so the generated C stays quick to compile). */
static void many_step(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    cj_val s = in[0];
    for (int k = 0; k < MANY_INNER; k++) s = cj_add(s, cj_mul(cj_scalar_typed(ctx, coef(k), CJ_F64), cj_mul(s, s)));
    out[0] = cj_mul(in[1], s);
    out[1] = in[1];
}

static void many_loss(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx;
    cj_func *step = u;
    cj_val carry[2];
    cj_scan_opts so = {.length = MANY_STEPS, .has_length = 1};
    cj_scan(step, 2, in, 0, NULL, &so, carry, NULL);
    out[0] = cj_sum(cj_mul(carry[0], carry[0]), 0, NULL, 0);
}

static double many_loss_c(const double *s0, const double *p) {
    double s[MANY_N];
    for (int i = 0; i < MANY_N; i++) s[i] = s0[i];
    for (int n = 0; n < MANY_STEPS; n++)
        for (int i = 0; i < MANY_N; i++) {
            for (int k = 0; k < MANY_INNER; k++) s[i] += coef(k) * s[i] * s[i];
            s[i] *= p[i];
        }
    double l = 0;
    for (int i = 0; i < MANY_N; i++) l += s[i] * s[i];
    return l;
}

TEST(cf_limits_scan_step_saving_600_residuals_matches_finite_differences) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *step = cj_func_new(ctx, "many_step", many_step, 2, 2, NULL);
    cj_func *loss = cj_func_new(ctx, "many_loss", many_loss, 2, 1, step);
    double s0[MANY_N] = {0.3, -0.5, 1.1}, p[MANY_N] = {0.9, 1.05, 0.8};
    cj_val in[2] = {cj_array(ctx, CJ_F64, 1, (int64_t[]){MANY_N}, s0), cj_array(ctx, CJ_F64, 1, (int64_t[]){MANY_N}, p)};
    int argnums[2] = {0, 1};
    cj_grad_opts go = {2, argnums, 0};
    cj_jit_opts interp = {.backend = CJ_BACKEND_INTERP}, cc = {.backend = CJ_BACKEND_CC};
    cj_func *modes[3] = {cj_grad(loss, &go), cj_jit(cj_grad(loss, &go), &interp), cj_jit(cj_grad(loss, &go), &cc)};
    const char *names[3] = {"eager", "jit interp", "jit cc"};
    for (int m = 0; m < 3; m++) {
        cj_val g[2];
        CHECK_MSG(cj_call(modes[m], in, g) == CJ_OK, "%s: %s", names[m], cj_error_message(ctx));
        for (int a = 0; a < 2; a++)
            for (int i = 0; i < MANY_N; i++) {
                double sp[MANY_N], pp[MANY_N], sm[MANY_N], pm[MANY_N], h = 1e-6;
                for (int q = 0; q < MANY_N; q++) sp[q] = sm[q] = s0[q], pp[q] = pm[q] = p[q];
                (a == 0 ? sp : pp)[i] += h;
                (a == 0 ? sm : pm)[i] -= h;
                double fd = (many_loss_c(sp, pp) - many_loss_c(sm, pm)) / (2 * h);
                CHECK_MSG(fabs(at(g[a], i) - fd) <= 1e-6 * (1 + fabs(fd)), "%s: d/d%s[%d] %.12g vs %.12g", names[m],
                          a ? "p" : "s0", i, at(g[a], i), fd);
            }
        cj_error_clear(ctx);
    }
    cj_ctx_free(ctx);
}
