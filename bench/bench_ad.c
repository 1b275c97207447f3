/* bench_ad.c — the autodiff part of `make bench`: a 16-layer MLP (width
 * 512, batch 256, float32) trained one step at a time, next to JAX on
 * this machine, and what checkpoint saves.
 *
 *   forward      jit(loss)
 *   train step   jit(value_and_grad(loss)) by every weight and bias
 *   target       step <= 1.5 x 3 x forward
 *   memory       jit(grad(loss)) temporaries, each layer checkpointed
 *                (save nothing) vs not, from the compiler's memory
 *                analysis; the gradients must be identical
 * The activation is tanh (one residual per layer besides its input) and,
 * as a second row, GELU (several). The same MLP next to JAX and NumPy, timed
 * in alternating rounds with its memory beside XLA's, is in bench_main's
 * table (mlp16_fwd, mlp16_grad, mlp16_grad_ck); this program compares cjax
 * with itself.
 *
 * Then the gradient of a 1,000-step scan (an RNN, hidden 256, input 64):
 * what it saves for the backward pass with the plain step and with
 * scan(checkpoint(step)), from the residual report and the compiler's
 * memory analysis. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjax.h>

#include "bench_util.h"

#define LAYERS 16
#define WIDTH 512
#define BATCH 256
#define REPS 7

/* Median of REPS calls after a warm-up call. */
static double median_call_ms(cj_func *f, const cj_val *in, int n_out) {
    double t[REPS];
    cj_ctx *ctx = NULL;
    for (int r = -1; r < REPS; r++) {
        cj_val out[2 * LAYERS + 1];
        ctx = in[0].ctx;
        cj_scope_begin(ctx);
        double t0 = now_ms();
        cj_call(f, in, out);
        if (r >= 0) t[r] = now_ms() - t0;
        cj_scope_end(ctx, 0, NULL);
    }
    (void)n_out;
    qsort(t, REPS, sizeof t[0], cmp_double);
    return cj_error(ctx) ? NAN : t[REPS / 2];
}

typedef struct model {
    cj_func *layer; /* (h, W, b) -> act(h W + b) */
} model;

static void layer_tanh(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_tanh(cj_add(cj_matmul(in[0], in[1]), in[2]));
}
static void layer_gelu(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_gelu(cj_add(cj_matmul(in[0], in[1]), in[2]));
}

/* loss(x, y, W1, b1, ..., W16, b16) = mean((mlp(x) - y)^2) */
static void loss_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    model *m = u;
    cj_val h = in[0];
    for (int l = 0; l < LAYERS; l++) cj_call(m->layer, (cj_val[]){h, in[2 + 2 * l], in[3 + 2 * l]}, &h);
    cj_val r = cj_sub(h, in[1]);
    (void)ctx;
    out[0] = cj_mean(cj_mul(r, r), 0, NULL, 0);
}

static void make_inputs(cj_ctx *ctx, cj_val *in) {
    int64_t dx[2] = {BATCH, WIDTH}, dw[2] = {WIDTH, WIDTH}, db = WIDTH;
    in[0] = cj_reshape(cj_linspace(ctx, -1, 1, BATCH * WIDTH, CJ_F32), 2, dx);
    in[1] = cj_reshape(cj_linspace(ctx, 0.5, -0.5, BATCH * WIDTH, CJ_F32), 2, dx);
    for (int l = 0; l < LAYERS; l++) {
        /* a deterministic, well-scaled weight: sin of a ramp / sqrt(width) */
        cj_val ramp = cj_linspace(ctx, (double)l, (double)l + 997.0, WIDTH * WIDTH, CJ_F32);
        in[2 + 2 * l] = cj_reshape(cj_mul(cj_sin(ramp), cj_scalar(ctx, 1.0 / sqrt((double)WIDTH))), 2, dw);
        in[3 + 2 * l] = cj_mul(cj_cos(cj_linspace(ctx, (double)l, (double)l + 10, WIDTH, CJ_F32)), cj_scalar(ctx, 0.1));
    }
    (void)db;
}

/* The largest |a - b| over all gradients. */
static double max_diff(const cj_val *a, const cj_val *b, int n) {
    double worst = 0;
    for (int i = 0; i < n; i++) {
        double d;
        if (cj_item(cj_reduce_max(cj_abs(cj_sub(a[i], b[i])), 0, NULL, 0), &d) != CJ_OK) return NAN;
        if (d > worst) worst = d;
    }
    return worst;
}

/* ---- the scan ---- */
#define STEPS 1000
#define HID 256
#define INP 64

typedef struct rnn {
    cj_func *cell;
    cj_val W, U, b; /* the cell closes over them */
} rnn;

/* h' = tanh(W2 tanh(W h + U x + b)) — two layers per step, so the step
 * makes values its tangent needs besides its input */
static void rnn_cell(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    rnn *r = u;
    (void)ctx;
    cj_val a = cj_tanh(cj_add(cj_add(cj_matmul(in[0], r->W), cj_matmul(in[1], r->U)), r->b));
    out[0] = cj_tanh(cj_matmul(a, r->W));
}

/* loss(W, U, b, h0, xs) = sum(h_T^2) */
static void rnn_loss(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    rnn *r = u;
    (void)ctx;
    r->W = in[0], r->U = in[1], r->b = in[2];
    cj_val hT;
    cj_scan(r->cell, 1, &in[3], 1, &in[4], NULL, &hT, NULL);
    out[0] = cj_sum(cj_mul(hT, hT), 0, NULL, 0);
}

static void scan_memory(cj_ctx *ctx, const cj_jit_opts *wait) {
    cj_val in[5];
    int64_t dw[2] = {HID, HID}, du[2] = {INP, HID}, dx[2] = {STEPS, INP};
    in[0] = cj_reshape(cj_mul(cj_sin(cj_linspace(ctx, 0, 300, HID * HID, CJ_F32)), cj_scalar(ctx, 0.06)), 2, dw);
    in[1] = cj_reshape(cj_mul(cj_cos(cj_linspace(ctx, 0, 100, INP * HID, CJ_F32)), cj_scalar(ctx, 0.1)), 2, du);
    in[2] = cj_zeros(ctx, CJ_F32, 1, (int64_t[]){HID});
    in[3] = cj_zeros(ctx, CJ_F32, 1, (int64_t[]){HID});
    in[4] = cj_reshape(cj_sin(cj_linspace(ctx, 0, 50, STEPS * INP, CJ_F32)), 2, dx);
    int argnums[3] = {0, 1, 2};
    cj_grad_opts go = {3, argnums, 0};
    cj_spec spec[5];
    for (int i = 0; i < 5; i++) spec[i] = cj_spec_of(in[i]);
    static rnn plain, ck;
    plain.cell = cj_func_new(ctx, "cell", rnn_cell, 2, 1, &plain);
    ck.cell = cj_checkpoint(cj_func_new(ctx, "cell", rnn_cell, 2, 1, &ck), NULL);
    printf("\n%-30s %14s %14s %10s %14s\n", "grad of a 1000-step scan", "residual bytes", "temp bytes", "ms",
           "max |g - g_ck|");
    cj_val g[2][3];
    for (int k = 0; k < 2; k++) {
        cj_func *loss = cj_func_new(ctx, "rnn", rnn_loss, 5, 1, k ? (void *)&ck : (void *)&plain);
        size_t res = 0;
        char *rep = cj_saved_residuals(loss, &go, 5, spec, &res);
        cj_string_free(ctx, rep);
        cj_func *jg = cj_jit(cj_grad(loss, &go), wait);
        cj_memory_analysis m;
        if (cj_jit_memory_analysis(jg, in, &m) != CJ_OK) return;
        double t = median_call_ms(jg, in, 3);
        if (cj_call(jg, in, g[k]) != CJ_OK) return;
        char diff[32] = "-";
        if (k) snprintf(diff, sizeof diff, "%.3g", max_diff(g[0], g[1], 3));
        printf("%-30s %14zu %14zu %10.2f %14s\n", k ? "scan(checkpoint(step))" : "scan(step)", res, m.temp_bytes, t,
               diff);
    }
}

int main(void) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val in[2 + 2 * LAYERS];
    make_inputs(ctx, in);
    int argnums[2 * LAYERS];
    for (int i = 0; i < 2 * LAYERS; i++) argnums[i] = 2 + i;
    cj_grad_opts go = {2 * LAYERS, argnums, 0};
    cj_jit_opts wait = {0, NULL, 0, NULL, CJ_BACKEND_CC};

    printf("cjax autodiff bench — %d-layer MLP, width %d, batch %d, float32; medians of %d runs\n\n", LAYERS, WIDTH,
           BATCH, REPS);
    printf("%-26s %10s %12s\n", "workload", "cjax ms", "step/fwd");
    static model tanh_m, gelu_m;
    tanh_m.layer = cj_func_new(ctx, "layer", layer_tanh, 3, 1, NULL);
    gelu_m.layer = cj_func_new(ctx, "layer", layer_gelu, 3, 1, NULL);
    cj_func *loss = cj_func_new(ctx, "loss", loss_fn, 2 + 2 * LAYERS, 1, &tanh_m);
    cj_func *fwd = cj_jit(loss, &wait);
    cj_func *step = cj_jit(cj_value_and_grad(loss, &go), &wait);
    double t_fwd = median_call_ms(fwd, in, 1), t_step = median_call_ms(step, in, 1 + 2 * LAYERS);
    printf("%-26s %10.2f %12s\n", "forward jit(loss)", t_fwd, "-");
    printf("%-26s %10.2f %11.2fx\n", "step jit(value_and_grad)", t_step, t_step / t_fwd);
    printf("target: step <= 4.5x forward (1.5 x 3): %s\n(next to JAX and NumPy: `build/bench_main --only mlp16`)\n\n",
           t_step <= 4.5 * t_fwd ? "met" : "NOT met");

    printf("%-26s %14s %14s %8s %14s\n", "jit(grad(loss)) memory", "temp bytes", "checkpointed", "ratio",
           "max |g - g_ck|");
    const model *models[2] = {&tanh_m, &gelu_m};
    const char *names[2] = {"tanh layers", "GELU layers"};
    for (int k = 0; k < 2; k++) {
        static model ck[2];
        ck[k].layer = cj_checkpoint(models[k]->layer, NULL);
        cj_func *g = cj_jit(cj_grad(cj_func_new(ctx, "loss", loss_fn, 2 + 2 * LAYERS, 1, (void *)models[k]), &go), &wait);
        cj_func *gc = cj_jit(cj_grad(cj_func_new(ctx, "loss_ck", loss_fn, 2 + 2 * LAYERS, 1, &ck[k]), &go), &wait);
        cj_memory_analysis m1, m2;
        cj_val g1[2 * LAYERS], g2[2 * LAYERS];
        if (cj_jit_memory_analysis(g, in, &m1) != CJ_OK || cj_jit_memory_analysis(gc, in, &m2) != CJ_OK ||
            cj_call(g, in, g1) != CJ_OK || cj_call(gc, in, g2) != CJ_OK)
            break;
        printf("%-26s %14zu %14zu %8.2f %14.3g\n", names[k], m1.temp_bytes, m2.temp_bytes,
               (double)m2.temp_bytes / (double)m1.temp_bytes, max_diff(g1, g2, 2 * LAYERS));
    }
    scan_memory(ctx, &wait);
    if (cj_error(ctx)) {
        fprintf(stderr, "bench_ad: %s\n", cj_error_message(ctx));
        return 1;
    }
    cj_ctx_free(ctx);
    return 0;
}
