/* bench_work_cnn.h — the small CNN rows of `make bench` (issue 17),
 * written with cjax as a user would, like bench_work_deep.h's:
 *
 *   cnn_fwd  loss of a small CNN on NHWC 64x32x32x3: conv 3x3 (SAME, 16
 *            channels) + bias -> relu -> max_pool 2x2 -> conv 3x3 (SAME,
 *            32) + bias -> relu -> max_pool 2x2 -> flatten -> dense 10 ->
 *            mean(logsumexp(logits) - logits[label]), label = example % 10;
 *   cnn_vg   value_and_grad of that loss by the six parameters.
 * The same program and input formulas are in bench/peers.py (JAX only:
 * NumPy has no convolution). Header-only: CMake makes one program per .c
 * file in bench/. Uses bench_work_deep.h's wave(). */
#ifndef CJ_BENCH_WORK_CNN_H
#define CJ_BENCH_WORK_CNN_H
#include <math.h>

#include <cjax.h>

#include "bench_work_deep.h"

#define CNN_B 64
#define CNN_HW 32
#define CNN_C0 3
#define CNN_C1 16
#define CNN_C2 32
#define CNN_O 10
#define CNN_FLAT ((CNN_HW / 4) * (CNN_HW / 4) * CNN_C2)
#define CNN_PARAMS 6

static cj_val cnn_conv_relu_pool(cj_val h, cj_val w, cj_val b) {
    cj_conv_opts o = {.pad_type = CJ_PAD_SAME, .lhs_spec = "NHWC", .rhs_spec = "HWIO", .out_spec = "NHWC"};
    cj_val y = cj_relu(cj_add(cj_conv_general_dilated(h, w, &o), b));
    cj_pool_opts po = {.strides = (int64_t[]){2, 2}};
    return cj_max_pool(y, 2, (int64_t[]){2, 2}, &po);
}
/* in: x, labels (one-hot), w1, b1, w2, b2, wd, bd */
static void cnn_loss_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    cj_val h = cnn_conv_relu_pool(in[0], in[2], in[3]);
    h = cnn_conv_relu_pool(h, in[4], in[5]);
    h = cj_reshape(h, 2, (int64_t[]){CNN_B, CNN_FLAT});
    cj_val logits = cj_add(cj_matmul(h, in[6]), in[7]);
    int64_t last = -1;
    cj_val nll = cj_sub(cj_logsumexp(logits, 1, &last, 0), cj_sum(cj_mul(logits, in[1]), 1, &last, 0));
    out[0] = cj_mean(nll, -1, NULL, 0);
}
static void cnn_inputs(cj_ctx *ctx, cj_val *in) {
    const int64_t x[4] = {CNN_B, CNN_HW, CNN_HW, CNN_C0}, w1[4] = {3, 3, CNN_C0, CNN_C1},
                  w2[4] = {3, 3, CNN_C1, CNN_C2}, wd[2] = {CNN_FLAT, CNN_O}, c1 = CNN_C1, c2 = CNN_C2, o = CNN_O;
    in[0] = wave(ctx, cj_sin, 0, 300, 4, x, 1.0);
    in[1] = cj_one_hot(cj_remainder(cj_arange(ctx, 0, CNN_B, 1, CJ_I32), cj_scalar_int(ctx, CNN_O)), CNN_O, CJ_F32);
    in[2] = wave(ctx, cj_sin, 1, 31, 4, w1, 1 / sqrt(9.0 * CNN_C0));
    in[3] = wave(ctx, cj_cos, 0, 3, 1, &c1, 0.1);
    in[4] = wave(ctx, cj_sin, 2, 52, 4, w2, 1 / sqrt(9.0 * CNN_C1));
    in[5] = wave(ctx, cj_cos, 1, 4, 1, &c2, 0.1);
    in[6] = wave(ctx, cj_sin, 3, 53, 2, wd, 1 / sqrt((double)CNN_FLAT));
    in[7] = wave(ctx, cj_cos, 2, 5, 1, &o, 0.1);
}
static cj_func *make_cnn_fwd(cj_ctx *ctx, cj_val *in) {
    cnn_inputs(ctx, in);
    return cj_func_new(ctx, "cnn_loss", cnn_loss_fn, 2 + CNN_PARAMS, 1, NULL);
}
static cj_func *make_cnn_vg(cj_ctx *ctx, cj_val *in) {
    cnn_inputs(ctx, in);
    static int argnums[CNN_PARAMS];
    for (int i = 0; i < CNN_PARAMS; i++) argnums[i] = 2 + i;
    cj_grad_opts go = {CNN_PARAMS, argnums, 0};
    return cj_value_and_grad(cj_func_new(ctx, "cnn_loss", cnn_loss_fn, 2 + CNN_PARAMS, 1, NULL), &go);
}
/* the two convolutions (2·9·Cin·Cout per output position) and the dense */
#define CNN_FWD_FLOPS                                                                                        \
    (2.0 * CNN_B *                                                                                           \
     (9.0 * CNN_C0 * CNN_C1 * CNN_HW * CNN_HW + 9.0 * CNN_C1 * CNN_C2 * (CNN_HW / 2) * (CNN_HW / 2) +        \
      (double)CNN_FLAT * CNN_O))
#endif
