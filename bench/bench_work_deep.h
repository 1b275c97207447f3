/* bench_work_deep.h — the deep-model rows of `make bench` (issue 15's
 * memory targets), written with cjax as a user would, like bench_work.h's:
 *
 *   mlp16_fwd      loss = mean((mlp(x) - y)^2) for a 16-layer tanh MLP,
 *                  width 512, batch 256;
 *   mlp16_grad     grad(loss) by every weight and bias;
 *   mlp16_grad_ck  the same with each layer under cj_checkpoint (saving
 *                  nothing: the backward pass recomputes each layer);
 *   transformer_fwd  one pre-norm transformer block, batch 8, sequence 128,
 *                  model width 256, 4 heads of 64, feed-forward 1024 with
 *                  GELU (tanh form), no mask:
 *                    h = LN1(x); q, k, v = h Wq, h Wk, h Wv (split in heads)
 *                    x1 = x + softmax(q k^T / 8) v Wo
 *                    y = x1 + gelu(LN2(x1) W1 + b1) W2 + b2;
 *   transformer_vg value_and_grad of mean(y^2) by the block's 12 parameters.
 * The same programs and input formulas are in bench/peers.py (JAX, and
 * NumPy with hand-written backward passes where it has one).
 * Header-only: CMake makes one program per .c file in bench/. */
#ifndef CJ_BENCH_WORK_DEEP_H
#define CJ_BENCH_WORK_DEEP_H
#include <math.h>

#include <cjax.h>

#define DEEP_LAYERS 16
#define DEEP_WIDTH 512
#define DEEP_BATCH 256
#define TB_B 8    /* transformer block: batch, sequence, width, heads, feed-forward */
#define TB_S 128
#define TB_D 256
#define TB_H 4
#define TB_F 1024
#define TB_PARAMS 12

/* fn(linspace(lo, hi, n)) * k in f32, shaped: peers.py's wave() */
static cj_val wave(cj_ctx *ctx, cj_val (*fn)(cj_val), double lo, double hi, int rank, const int64_t *dims, double k) {
    int64_t n = 1;
    for (int i = 0; i < rank; i++) n *= dims[i];
    cj_val v = cj_mul(fn(cj_linspace(ctx, lo, hi, n, CJ_F32)), cj_scalar(ctx, k));
    return cj_reshape(v, rank, dims);
}

/* ---- the 16-layer MLP ---- */
typedef struct deep_model {
    cj_func *layer; /* (h, W, b) -> tanh(h W + b), checkpointed or not */
} deep_model;
static deep_model deep_plain, deep_ck;

static void deep_layer_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_tanh(cj_add(cj_matmul(in[0], in[1]), in[2]));
}
/* loss(x, y, W1, b1, ..., W16, b16) = mean((mlp(x) - y)^2) */
static void deep_loss_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    const deep_model *m = u;
    (void)ctx;
    cj_val h = in[0];
    for (int l = 0; l < DEEP_LAYERS; l++) cj_call(m->layer, (cj_val[]){h, in[2 + 2 * l], in[3 + 2 * l]}, &h);
    cj_val r = cj_sub(h, in[1]);
    out[0] = cj_mean(cj_mul(r, r), -1, NULL, 0);
}
/* The inputs, the layer, and loss itself (what the grads differentiate) */
static cj_func *make_deep_loss(cj_ctx *ctx, cj_val *in, deep_model *m, int checkpointed) {
    int64_t dx[2] = {DEEP_BATCH, DEEP_WIDTH}, dw[2] = {DEEP_WIDTH, DEEP_WIDTH}, db = DEEP_WIDTH;
    in[0] = cj_reshape(cj_linspace(ctx, -1, 1, DEEP_BATCH * DEEP_WIDTH, CJ_F32), 2, dx);
    in[1] = cj_reshape(cj_linspace(ctx, 0.5, -0.5, DEEP_BATCH * DEEP_WIDTH, CJ_F32), 2, dx);
    for (int l = 0; l < DEEP_LAYERS; l++) {
        in[2 + 2 * l] = wave(ctx, cj_sin, l, l + 50, 2, dw, 1 / sqrt(DEEP_WIDTH));
        in[3 + 2 * l] = wave(ctx, cj_cos, l, l + 10, 1, &db, 0.1);
    }
    cj_func *layer = cj_func_new(ctx, "tanh_layer", deep_layer_fn, 3, 1, NULL);
    m->layer = checkpointed ? cj_checkpoint(layer, NULL) : layer;
    return cj_func_new(ctx, "deep_loss", deep_loss_fn, 2 + 2 * DEEP_LAYERS, 1, m);
}
static cj_func *make_deep_grad(cj_ctx *ctx, cj_val *in, deep_model *m, int checkpointed) {
    static int argnums[2 * DEEP_LAYERS];
    for (int i = 0; i < 2 * DEEP_LAYERS; i++) argnums[i] = 2 + i;
    cj_grad_opts go = {2 * DEEP_LAYERS, argnums, 0};
    return cj_grad(make_deep_loss(ctx, in, m, checkpointed), &go);
}
static cj_func *make_mlp16_fwd(cj_ctx *ctx, cj_val *in) { return make_deep_loss(ctx, in, &deep_plain, 0); }
static cj_func *make_mlp16_grad(cj_ctx *ctx, cj_val *in) { return make_deep_grad(ctx, in, &deep_plain, 0); }
static cj_func *make_mlp16_grad_ck(cj_ctx *ctx, cj_val *in) { return make_deep_grad(ctx, in, &deep_ck, 1); }
/* forward 2 B W^2 per layer; the backward twice that (input and weight gradients) */
#define DEEP_FWD_FLOPS (2.0 * DEEP_BATCH * DEEP_WIDTH * DEEP_WIDTH * DEEP_LAYERS)
#define DEEP_GRAD_FLOPS (3 * DEEP_FWD_FLOPS)

/* ---- the transformer block ---- */
/* (v - mean) / sqrt(var + 1e-5) * g + b over the last axis */
static cj_val tb_layernorm(cj_val v, cj_val g, cj_val b) {
    int64_t last = -1;
    cj_val mu = cj_mean(v, 1, &last, 1), var = cj_var(v, 1, &last, 1);
    return cj_add(cj_mul(cj_mul(cj_sub(v, mu), cj_rsqrt(cj_add(var, cj_scalar(v.ctx, 1e-5)))), g), b);
}
/* in: x, then g1, b1, Wq, Wk, Wv, Wo, g2, b2, W1, bf1, W2, bf2 */
static cj_val tb_block(cj_ctx *ctx, const cj_val *in) {
    const cj_val x = in[0], *p = in + 1;
    const int64_t dh = TB_D / TB_H, split[4] = {TB_B, TB_S, TB_H, dh}, whole[3] = {TB_B, TB_S, TB_D};
    cj_val h = tb_layernorm(x, p[0], p[1]);
    cj_val q = cj_reshape(cj_matmul(h, p[2]), 4, split), k = cj_reshape(cj_matmul(h, p[3]), 4, split);
    cj_val v = cj_reshape(cj_matmul(h, p[4]), 4, split);
    /* scores[b, h, s, t] = q[b, s, h, :] . k[b, t, h, :] */
    cj_val sc = cj_dot_general(q, k, 1, (int64_t[]){3}, (int64_t[]){3}, 2, (int64_t[]){0, 2}, (int64_t[]){0, 2});
    cj_val att = cj_softmax(cj_mul(sc, cj_scalar(ctx, 1 / sqrt((double)dh))), -1);
    /* a[b, h, s, :] = sum_t att[b, h, s, t] v[b, t, h, :] */
    cj_val a = cj_dot_general(att, v, 1, (int64_t[]){3}, (int64_t[]){1}, 2, (int64_t[]){0, 1}, (int64_t[]){0, 2});
    a = cj_reshape(cj_transpose(a, (int64_t[]){0, 2, 1, 3}), 3, whole);
    cj_val x1 = cj_add(x, cj_matmul(a, p[5]));
    cj_val f = cj_gelu(cj_add(cj_matmul(tb_layernorm(x1, p[6], p[7]), p[8]), p[9]));
    return cj_add(cj_add(x1, cj_matmul(f, p[10])), p[11]);
}
static void tb_fwd_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    out[0] = tb_block(ctx, in);
}
/* mean(block(x)^2), by the parameters in[1..13) */
static void tb_loss_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    cj_val y = tb_block(ctx, in);
    out[0] = cj_mean(cj_mul(y, y), -1, NULL, 0);
}
static void tb_inputs(cj_ctx *ctx, cj_val *in) {
    const int64_t x[3] = {TB_B, TB_S, TB_D}, d = TB_D, f = TB_F, dd[2] = {TB_D, TB_D}, df[2] = {TB_D, TB_F},
                  fd[2] = {TB_F, TB_D};
    const double sd = 1 / sqrt((double)TB_D), sf = 1 / sqrt((double)TB_F);
    cj_val one = cj_scalar(ctx, 1);
    in[0] = wave(ctx, cj_sin, 0, 40, 3, x, 1.0);
    in[1] = cj_add(wave(ctx, cj_cos, 0, 3, 1, &d, 0.1), one), in[2] = wave(ctx, cj_sin, 1, 4, 1, &d, 0.1);
    for (int i = 0; i < 4; i++) in[3 + i] = wave(ctx, cj_sin, 2 + i, 52 + i, 2, dd, sd); /* Wq, Wk, Wv, Wo */
    in[7] = cj_add(wave(ctx, cj_cos, 6, 9, 1, &d, 0.1), one), in[8] = wave(ctx, cj_sin, 7, 10, 1, &d, 0.1);
    in[9] = wave(ctx, cj_sin, 8, 58, 2, df, sd), in[10] = wave(ctx, cj_cos, 9, 12, 1, &f, 0.1);
    in[11] = wave(ctx, cj_sin, 10, 60, 2, fd, sf), in[12] = wave(ctx, cj_cos, 11, 14, 1, &d, 0.1);
}
static cj_func *make_transformer_fwd(cj_ctx *ctx, cj_val *in) {
    tb_inputs(ctx, in);
    return cj_func_new(ctx, "transformer_block", tb_fwd_fn, 1 + TB_PARAMS, 1, NULL);
}
static cj_func *make_transformer_vg(cj_ctx *ctx, cj_val *in) {
    tb_inputs(ctx, in);
    static int argnums[TB_PARAMS];
    for (int i = 0; i < TB_PARAMS; i++) argnums[i] = 1 + i;
    cj_grad_opts go = {TB_PARAMS, argnums, 0};
    return cj_value_and_grad(cj_func_new(ctx, "transformer_loss", tb_loss_fn, 1 + TB_PARAMS, 1, NULL), &go);
}
/* the four projections, the two attention products, the feed-forward pair */
#define TB_FWD_FLOPS                                                                                       \
    (2.0 * TB_B * TB_S * (4.0 * TB_D * TB_D + 2.0 * TB_D * TB_F) + 2.0 * 2.0 * TB_B * TB_S * TB_S * TB_D)
#endif
