/* mlp_grad_memory.c — prints cj_jit_memory_analysis for the programs issue
 * 15 compares with XLA's memory_analysis() (tools/mlp_grad_memory.py
 * prints XLA's for the same programs). Not part of make test.
 *
 *   deep       jit(grad(loss)) of a 16-layer tanh MLP, width 512, batch 256,
 *              by every weight and bias (bench_ad.c's program)
 *   deep_ck    the same with each layer checkpointed
 *   mlp_fwd    relu MLP forward 256x784 > 512 > 512 > 10: the logits
 *   mlp_grad   jit(grad) of -mean(onehot * log_softmax(logits)) by every
 *              weight and bias;  mlp_grad_ck: each hidden layer checkpointed
 *
 * Build: cc -O2 -Iinclude tools/mlp_grad_memory.c build/libcjax.a -lm -lpthread -ldl
 * Run:   ./a.out [name]   (CJAX_DUMP=plan shows each plan) */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cjax.h>

#define LAYERS 16
#define WIDTH 512
#define BATCH 256

static cj_func *layer_fn;

static void layer_tanh(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_tanh(cj_add(cj_matmul(in[0], in[1]), in[2]));
}

/* loss(x, y, W1, b1, ..., W16, b16) = mean((mlp(x) - y)^2) */
static void deep_loss(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    cj_val h = in[0];
    for (int l = 0; l < LAYERS; l++) cj_call(layer_fn, (cj_val[]){h, in[2 + 2 * l], in[3 + 2 * l]}, &h);
    cj_val r = cj_sub(h, in[1]);
    out[0] = cj_mean(cj_mul(r, r), 0, NULL, 0);
}

/* (h, W, b) -> relu(h W + b), the hidden layers; checkpointed for mlp_grad_ck */
static cj_func *relu_layer;
static void layer_relu(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_relu(cj_add(cj_matmul(in[0], in[1]), in[2]));
}

/* logits(x, onehot, W1, b1, W2, b2, W3, b3) = relu(relu(x W1 + b1) W2 + b2) W3 + b3 */
static cj_val logits_of(const cj_val *in) {
    cj_val h;
    cj_call(relu_layer, (cj_val[]){in[0], in[2], in[3]}, &h);
    cj_call(relu_layer, (cj_val[]){h, in[4], in[5]}, &h);
    return cj_add(cj_matmul(h, in[6]), in[7]);
}
static void mlp_logits(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = logits_of(in);
}
/* loss = -mean(onehot * log_softmax(logits)) */
static void mlp_loss(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_neg(cj_mean(cj_mul(in[1], cj_log_softmax(logits_of(in), 1)), 0, NULL, 0));
}

static void report(const char *name, cj_func *f, const cj_val *in) {
    cj_memory_analysis m;
    if (cj_jit_memory_analysis(f, in, &m) != CJ_OK) {
        fprintf(stderr, "%s: %s\n", name, cj_error_message(in[0].ctx));
        return;
    }
    printf("%-10s arguments %9zu  outputs %9zu  temporaries %9zu  aliased %zu  constants %zu  peak %9zu\n", name,
           m.argument_bytes, m.output_bytes, m.temp_bytes, m.alias_bytes, m.constant_bytes, m.peak_bytes);
}

static cj_val ramp(cj_ctx *ctx, double a, double b, int64_t rows, int64_t cols, double scale) {
    int64_t d[2] = {rows, cols};
    cj_val r = cj_mul(cj_sin(cj_linspace(ctx, a, b, rows * (cols ? cols : 1), CJ_F32)), cj_scalar(ctx, scale));
    return cols ? cj_reshape(r, 2, d) : r;
}

int main(int argc, char **argv) {
    const char *only = argc > 1 ? argv[1] : NULL;
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_jit_opts wait = {0, NULL, 0, NULL, CJ_BACKEND_CC};
    if (!only || !strncmp(only, "deep", 4)) {
        cj_val in[2 + 2 * LAYERS];
        in[0] = ramp(ctx, -1, 1, BATCH, WIDTH, 1.0);
        in[1] = ramp(ctx, 0.5, -0.5, BATCH, WIDTH, 1.0);
        for (int l = 0; l < LAYERS; l++) {
            in[2 + 2 * l] = ramp(ctx, l, l + 997.0, WIDTH, WIDTH, 1.0 / sqrt((double)WIDTH));
            in[3 + 2 * l] = cj_mul(cj_cos(cj_linspace(ctx, l, l + 10, WIDTH, CJ_F32)), cj_scalar(ctx, 0.1));
        }
        int argnums[2 * LAYERS];
        for (int i = 0; i < 2 * LAYERS; i++) argnums[i] = 2 + i;
        cj_grad_opts go = {2 * LAYERS, argnums, 0};
        cj_func *loss = cj_func_new(ctx, "loss", deep_loss, 2 + 2 * LAYERS, 1, NULL);
        cj_func *plain = cj_func_new(ctx, "layer", layer_tanh, 3, 1, NULL);
        cj_func *ck = cj_checkpoint(cj_func_new(ctx, "layer", layer_tanh, 3, 1, NULL), NULL);
        if (!only || !strcmp(only, "deep")) {
            layer_fn = plain;
            report("deep", cj_jit(cj_grad(loss, &go), &wait), in);
        }
        if (!only || !strcmp(only, "deep_ck")) {
            layer_fn = ck;
            cj_func *loss2 = cj_func_new(ctx, "loss_ck", deep_loss, 2 + 2 * LAYERS, 1, NULL);
            report("deep_ck", cj_jit(cj_grad(loss2, &go), &wait), in);
        }
    }
    if (!only || !strncmp(only, "mlp", 3)) {
        cj_val in[8];
        in[0] = ramp(ctx, -1, 1, 256, 784, 1.0);
        in[1] = cj_one_hot(cj_rem(cj_arange(ctx, 0, 256, 1, CJ_I32), cj_scalar(ctx, 10)), 10, CJ_F32);
        in[2] = ramp(ctx, 0, 300, 784, 512, 0.05);
        in[3] = ramp(ctx, 0, 3, 512, 0, 0.1);
        in[4] = ramp(ctx, 1, 301, 512, 512, 0.05);
        in[5] = ramp(ctx, 1, 4, 512, 0, 0.1);
        in[6] = ramp(ctx, 2, 302, 512, 10, 0.05);
        in[7] = ramp(ctx, 2, 5, 10, 0, 0.1);
        relu_layer = cj_func_new(ctx, "layer", layer_relu, 3, 1, NULL);
        cj_func *loss = cj_func_new(ctx, "mlp", mlp_loss, 8, 1, NULL);
        cj_func *fwd = cj_func_new(ctx, "mlp_fwd", mlp_logits, 8, 1, NULL);
        if (!only || !strcmp(only, "mlp_fwd")) report("mlp_fwd", cj_jit(fwd, &wait), in);
        int argnums[6] = {2, 3, 4, 5, 6, 7};
        cj_grad_opts go = {6, argnums, 0};
        if (!only || !strcmp(only, "mlp_grad")) report("mlp_grad", cj_jit(cj_grad(loss, &go), &wait), in);
        if (!only || !strcmp(only, "mlp_grad_ck")) {
            relu_layer = cj_checkpoint(cj_func_new(ctx, "layer", layer_relu, 3, 1, NULL), NULL);
            cj_func *loss_ck = cj_func_new(ctx, "mlp_ck", mlp_loss, 8, 1, NULL);
            report("mlp_grad_ck", cj_jit(cj_grad(loss_ck, &go), &wait), in);
        }
    }
    if (cj_error(ctx)) fprintf(stderr, "error: %s\n", cj_error_message(ctx));
    cj_ctx_free(ctx);
    return 0;
}
