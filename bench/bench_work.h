/* bench_work.h — the workloads of `make bench`, written with cjax as a user
 * would: each `make_*` builds its inputs in a context and returns the plain
 * (untransformed) function; bench_main.c calls it eagerly, jits it on the
 * interpreter and with generated C, and times each (bench_rounds.h). The
 * same workloads, with the same shapes and input formulas, are in
 * bench/peers.py for NumPy and JAX; the deep-model rows are in
 * bench_work_deep.h.
 *
 * A make_* function may be called again in a fresh context (the first-call
 * rows build everything anew each time, so nothing is cached). Those that
 * keep data outside the context (the RNN's plain C copy, the MLP's rows)
 * are called once, in the bench's main context. Header-only: CMake makes
 * one program per .c file in bench/. */
#ifndef CJ_BENCH_WORK_H
#define CJ_BENCH_WORK_H
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjax.h>

#define WORK_N 10000000 /* elementwise chains */
#define SM_ROWS 4096    /* row softmax: SM_ROWS x SM_COLS */
#define SM_COLS 4096
#define LN_ROWS 8192    /* layer-norm rows */
#define LN_COLS 1024
#define MM 1024         /* matmul */
#define MLP_B 256       /* MLP: batch, in, hidden, out */
#define MLP_I 784
#define MLP_H 512
#define MLP_O 10
#define PEX_B 256       /* per-example gradients: batch, in, hidden, out */
#define PEX_I 64
#define PEX_H 128
#define PEX_O 10
#define DOTS 1000000    /* per-example dot products of DOT_LEN vectors */
#define DOT_LEN 16
#define RNN_STEPS 1000  /* h' = tanh(W h + U x_t + b) */
#define RNN_HID 256
#define RNN_INP 64
#define SGD_LR 0.01

static cj_val ramp(cj_ctx *ctx, double lo, double hi, int rows, int64_t r, int64_t c) {
    cj_val v = cj_linspace(ctx, lo, hi, rows == 1 ? r : r * c, CJ_F32);
    return rows == 1 ? v : cj_reshape(v, 2, (int64_t[]){r, c});
}
static cj_val scaled(cj_val v, double k) { return cj_mul(v, cj_scalar(v.ctx, k)); }

/* ---- elementwise chains on 10^7 float32 ---- */
static void add_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_add(in[0], in[1]);
}
static void sin_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_sin(in[0]);
}
static void axb_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    out[0] = cj_add(cj_mul(in[0], cj_scalar(ctx, 1.5)), cj_scalar(ctx, 0.25));
}
static void sincos_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_add(cj_mul(cj_sin(in[0]), cj_cos(in[0])), cj_mul(in[0], in[0]));
}
/* sum(tanh(a*x + b)*c + d) with a, b, c, d constants */
static void tanh_sum_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    cj_val t = cj_tanh(cj_add(cj_mul(in[0], cj_scalar(ctx, 1.5)), cj_scalar(ctx, 0.25)));
    out[0] = cj_sum(cj_sub(cj_mul(t, cj_scalar(ctx, 2.0)), cj_scalar(ctx, 0.5)), -1, NULL, 0);
}

/* mean((x - mean(x))^2), written out (not cj_var): the two passes a user
 * writes, for the compiler to fuse */
static void variance_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    cj_val d = cj_sub(in[0], cj_mean(in[0], -1, NULL, 0));
    out[0] = cj_mean(cj_mul(d, d), -1, NULL, 0);
}

static cj_func *make_add(cj_ctx *ctx, cj_val *in) {
    in[0] = cj_linspace(ctx, -3, 3, WORK_N, CJ_F32);
    in[1] = cj_linspace(ctx, 0, 1, WORK_N, CJ_F32);
    return cj_func_new(ctx, "add", add_fn, 2, 1, NULL);
}
#define MAKE_UNARY(name)                                               \
    static cj_func *make_##name(cj_ctx *ctx, cj_val *in) {             \
        in[0] = cj_linspace(ctx, -3, 3, WORK_N, CJ_F32);               \
        return cj_func_new(ctx, #name, name##_fn, 1, 1, NULL);         \
    }
MAKE_UNARY(sin)
MAKE_UNARY(axb)
MAKE_UNARY(sincos)
MAKE_UNARY(tanh_sum)
MAKE_UNARY(variance)

/* ---- rows ---- */
static void softmax_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_softmax(in[0], -1);
}
/* column reductions over the 4096x4096 matrix: sum(m*m, axis=0) and the
 * batch-norm style mean over axis 0 of relu(x) (COLS kernels; the ramp's
 * plain column means cancel to 1e-3 from values of 3) */
static void colsum_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    int64_t ax = 0;
    out[0] = cj_sum(cj_mul(in[0], in[0]), 1, &ax, 0);
}
static cj_func *make_colsum(cj_ctx *ctx, cj_val *in) {
    in[0] = ramp(ctx, -3, 3, 2, SM_ROWS, SM_COLS);
    return cj_func_new(ctx, "colsum", colsum_fn, 1, 1, NULL);
}
static void colmean_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    int64_t ax = 0;
    out[0] = cj_mean(cj_relu(in[0]), 1, &ax, 0); /* a batch statistic of an activation */
}
static cj_func *make_colmean(cj_ctx *ctx, cj_val *in) {
    in[0] = ramp(ctx, -3, 3, 2, SM_ROWS, SM_COLS);
    return cj_func_new(ctx, "colmean", colmean_fn, 1, 1, NULL);
}
static cj_func *make_softmax(cj_ctx *ctx, cj_val *in) {
    in[0] = ramp(ctx, -3, 3, 2, SM_ROWS, SM_COLS);
    return cj_func_new(ctx, "softmax", softmax_fn, 1, 1, NULL);
}

/* (x - mean) / sqrt(var + 1e-5) * g + b over each row */
static void layernorm_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    int64_t last = -1;
    cj_val mu = cj_mean(in[0], 1, &last, 1), var = cj_var(in[0], 1, &last, 1);
    cj_val norm = cj_mul(cj_sub(in[0], mu), cj_rsqrt(cj_add(var, cj_scalar(ctx, 1e-5))));
    out[0] = cj_add(cj_mul(norm, in[1]), in[2]);
}
static cj_func *make_layernorm(cj_ctx *ctx, cj_val *in) {
    in[0] = ramp(ctx, -3, 3, 2, LN_ROWS, LN_COLS);
    in[1] = cj_linspace(ctx, 0.5, 1.5, LN_COLS, CJ_F32);
    in[2] = cj_linspace(ctx, -0.1, 0.1, LN_COLS, CJ_F32);
    return cj_func_new(ctx, "layernorm", layernorm_fn, 3, 1, NULL);
}

/* ---- matrix products ---- */
static void matmul_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_matmul(in[0], in[1]);
}
static void matmul_bias_relu_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_relu(cj_add(cj_matmul(in[0], in[1]), in[2]));
}
static void matmul_inputs(cj_ctx *ctx, cj_val *in) {
    in[0] = cj_reshape(scaled(cj_sin(cj_linspace(ctx, 0, 50, MM * MM, CJ_F32)), 0.1), 2, (int64_t[]){MM, MM});
    in[1] = cj_reshape(scaled(cj_cos(cj_linspace(ctx, 0, 70, MM * MM, CJ_F32)), 0.1), 2, (int64_t[]){MM, MM});
    in[2] = cj_linspace(ctx, -0.5, 0.5, MM, CJ_F32);
}
static cj_func *make_matmul(cj_ctx *ctx, cj_val *in) {
    matmul_inputs(ctx, in);
    return cj_func_new(ctx, "matmul", matmul_fn, 2, 1, NULL);
}
/* bf16 operands (the same values rounded), f32 result: the widening GEMM */
static void matmul_bf16_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_matmul_preferred(in[0], in[1], CJ_F32);
}
static cj_func *make_matmul_bf16(cj_ctx *ctx, cj_val *in) {
    matmul_inputs(ctx, in);
    in[0] = cj_astype(in[0], CJ_BF16);
    in[1] = cj_astype(in[1], CJ_BF16);
    return cj_func_new(ctx, "matmul_bf16", matmul_bf16_fn, 2, 1, NULL);
}
/* (1.5 x + 0.25) * y on 10^7 bf16 / f16: elementwise work whose cost is
 * the narrow loads and stores (widened to f32 and rounded back in every
 * kernel), the chain half_convert.h vectorises */
static void axb_y_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    out[0] = cj_mul(cj_add(cj_mul(in[0], cj_scalar(ctx, 1.5)), cj_scalar(ctx, 0.25)), in[1]);
}
static cj_func *make_axb_y_narrow(cj_ctx *ctx, cj_val *in, cj_dtype dt) {
    in[0] = cj_astype(cj_linspace(ctx, -3, 3, WORK_N, CJ_F32), dt);
    in[1] = cj_astype(cj_linspace(ctx, 0, 1, WORK_N, CJ_F32), dt);
    return cj_func_new(ctx, dt == CJ_BF16 ? "axb_y_bf16" : "axb_y_f16", axb_y_fn, 2, 1, NULL);
}
static cj_func *make_axb_y_bf16(cj_ctx *ctx, cj_val *in) { return make_axb_y_narrow(ctx, in, CJ_BF16); }
static cj_func *make_axb_y_f16(cj_ctx *ctx, cj_val *in) { return make_axb_y_narrow(ctx, in, CJ_F16); }
static cj_func *make_matmul_bias_relu(cj_ctx *ctx, cj_val *in) {
    matmul_inputs(ctx, in);
    return cj_func_new(ctx, "matmul_bias_relu", matmul_bias_relu_fn, 3, 1, NULL);
}

/* ---- the MLP 784 -> 512 -> 10 ---- */
/* mlp(x, W1, b1, W2, b2) = relu(x W1 + b1) W2 + b2: x is one example or a
 * batch (matmul batches itself) */
static void mlp_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    cj_val h = cj_relu(cj_add(cj_matmul(in[0], in[1]), in[2]));
    out[0] = cj_add(cj_matmul(h, in[3]), in[4]);
}
/* W1, b1, W2, b2 into p[0..4) for an in -> hid -> out MLP, deterministic
 * and well scaled */
static void mlp_params(cj_ctx *ctx, cj_val *p, int64_t ni, int64_t nh, int64_t no) {
    p[0] = scaled(ramp(ctx, -1, 1, 2, ni, nh), 0.05);
    p[1] = cj_zeros(ctx, CJ_F32, 1, &nh);
    p[2] = scaled(ramp(ctx, -1, 1, 2, nh, no), 0.05);
    p[3] = cj_zeros(ctx, CJ_F32, 1, &no);
}
/* one-hot labels i % classes for examples 0..n */
static cj_val labels(cj_ctx *ctx, int64_t n, int64_t classes) {
    cj_val idx = cj_rem(cj_arange(ctx, 0, (double)n, 1, CJ_I32), cj_scalar_int(ctx, classes));
    return cj_one_hot(idx, classes, CJ_F32);
}
static cj_func *make_mlp_fwd(cj_ctx *ctx, cj_val *in) {
    in[0] = ramp(ctx, -1, 1, 2, MLP_B, MLP_I);
    mlp_params(ctx, in + 1, MLP_I, MLP_H, MLP_O);
    return cj_func_new(ctx, "mlp", mlp_fn, 5, 1, NULL);
}
static cj_func *make_mlp_fwd_vmap(cj_ctx *ctx, cj_val *in) {
    static const int64_t axes[5] = {0, CJ_NOT_MAPPED, CJ_NOT_MAPPED, CJ_NOT_MAPPED, CJ_NOT_MAPPED};
    cj_vmap_opts vo = {axes, NULL, 0, 0, 0};
    return cj_vmap(make_mlp_fwd(ctx, in), &vo);
}
/* The loop row: in[0] is example 0; run_mlp_loop substitutes each row. */
static cj_val mlp_rows[MLP_B];
static cj_func *make_mlp_fwd_loop(cj_ctx *ctx, cj_val *in) {
    cj_func *f = make_mlp_fwd(ctx, in);
    for (int64_t b = 0; b < MLP_B; b++)
        mlp_rows[b] = cj_reshape(cj_slice(in[0], (int64_t[]){b, 0}, (int64_t[]){b + 1, MLP_I}, NULL), 1,
                                 (int64_t[]){MLP_I});
    in[0] = mlp_rows[0];
    return f;
}
static void run_mlp_loop(cj_func *f, const cj_val *in) {
    cj_val args[5] = {in[0], in[1], in[2], in[3], in[4]}, o;
    for (int b = 0; b < MLP_B; b++) {
        args[0] = mlp_rows[b];
        cj_call(f, args, &o);
    }
}

/* loss(W1, b1, W2, b2, x, y) = mean over the batch of -sum(y log softmax(mlp(x))) */
static void xent_loss_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    cj_val logits;
    cj_val args[5] = {in[4], in[0], in[1], in[2], in[3]};
    mlp_fn(ctx, args, &logits, NULL);
    int64_t last = -1;
    cj_val nll = cj_neg(cj_sum(cj_mul(in[5], cj_log_softmax(logits, -1)), 1, &last, 0));
    out[0] = cj_val_rank(nll) == 0 ? nll : cj_mean(nll, -1, NULL, 0);
}
/* step(W1, b1, W2, b2, x, y) = loss, then each parameter - lr * its
 * gradient: jit(value_and_grad) and the SGD update in one function */
static void train_step_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    cj_val vg[5];
    cj_call((cj_func *)u, in, vg);
    out[0] = vg[0];
    for (int i = 0; i < 4; i++) out[1 + i] = cj_sub(in[i], cj_mul(vg[1 + i], cj_scalar(ctx, SGD_LR)));
}
static const int params_argnums[4] = {0, 1, 2, 3};
static cj_func *make_train_step(cj_ctx *ctx, cj_val *in) {
    mlp_params(ctx, in, MLP_I, MLP_H, MLP_O);
    in[4] = ramp(ctx, -1, 1, 2, MLP_B, MLP_I);
    in[5] = labels(ctx, MLP_B, MLP_O);
    cj_grad_opts go = {4, params_argnums, 0};
    cj_func *vg = cj_value_and_grad(cj_func_new(ctx, "loss", xent_loss_fn, 6, 1, NULL), &go);
    return cj_func_new(ctx, "train_step", train_step_fn, 6, 5, vg);
}

/* vmap(grad(loss)) over 256 examples of a 64 -> 128 -> 10 MLP: each
 * example's own gradient of every parameter (DP-SGD's first step) */
static cj_func *make_per_example_grads(cj_ctx *ctx, cj_val *in) {
    int64_t nh = PEX_H, no = PEX_O;
    in[0] = cj_reshape(scaled(cj_sin(cj_linspace(ctx, 0, 40, PEX_I * PEX_H, CJ_F32)), 0.1), 2,
                       (int64_t[]){PEX_I, PEX_H});
    in[1] = cj_zeros(ctx, CJ_F32, 1, &nh);
    in[2] = cj_reshape(scaled(cj_cos(cj_linspace(ctx, 0, 30, PEX_H * PEX_O, CJ_F32)), 0.1), 2,
                       (int64_t[]){PEX_H, PEX_O});
    in[3] = cj_zeros(ctx, CJ_F32, 1, &no);
    in[4] = ramp(ctx, -1, 1, 2, PEX_B, PEX_I);
    in[5] = labels(ctx, PEX_B, PEX_O);
    cj_grad_opts go = {4, params_argnums, 0};
    static const int64_t axes[6] = {CJ_NOT_MAPPED, CJ_NOT_MAPPED, CJ_NOT_MAPPED, CJ_NOT_MAPPED, 0, 0};
    cj_vmap_opts vo = {axes, NULL, 0, 0, 0};
    return cj_vmap(cj_grad(cj_func_new(ctx, "loss_one", xent_loss_fn, 6, 1, NULL), &go), &vo);
}

/* ---- 10^6 dot products of 16-vectors: vmap against hand-batched ---- */
static void dot_one_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_dot_general(in[0], in[1], 1, (int64_t[]){0}, (int64_t[]){0}, 0, NULL, NULL);
}
static void dots_hand_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    int64_t ax = 1;
    out[0] = cj_sum(cj_mul(in[0], in[1]), 1, &ax, 0);
}
static void dots_inputs(cj_ctx *ctx, cj_val *in) {
    in[0] = ramp(ctx, -1, 1, 2, DOTS, DOT_LEN);
    in[1] = ramp(ctx, 1, -1, 2, DOTS, DOT_LEN);
}
static cj_func *make_dots_vmap(cj_ctx *ctx, cj_val *in) {
    dots_inputs(ctx, in);
    return cj_vmap(cj_func_new(ctx, "dot", dot_one_fn, 2, 1, NULL), NULL);
}
static cj_func *make_dots_hand(cj_ctx *ctx, cj_val *in) {
    dots_inputs(ctx, in);
    return cj_func_new(ctx, "dots", dots_hand_fn, 2, 1, NULL);
}

/* ---- a 1,000-step RNN scan: h' = tanh(W h + U x_t + b), f32 ---- */
typedef struct rnn_arg {
    cj_func *cell;
    cj_val W, U, b; /* set while rnn_fn is traced: the cell closes over them */
    cj_val in[5];   /* W, U, b, h0, xs */
    /* the plain C version's data (the same values) */
    float *WT, *UT, *bias, *h0, *xs, *h, *hn;
} rnn_arg;
static rnn_arg the_rnn;

static void rnn_cell(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    rnn_arg *r = user;
    (void)ctx;
    out[0] = cj_tanh(cj_add(cj_add(cj_matmul(r->W, in[0]), cj_matmul(r->U, in[1])), r->b));
}
/* rnn(W, U, b, h0, xs) = h_T */
static void rnn_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    rnn_arg *r = user;
    (void)ctx;
    r->W = in[0], r->U = in[1], r->b = in[2];
    cj_scan(r->cell, 1, &in[3], 1, &in[4], NULL, &out[0], NULL);
}

/* The same computation as a straightforward C loop, single-threaded like
 * the scan's body at this size. Not deliberately slow: the weights are
 * kept transposed so each matvec is a sequence of axpys over contiguous
 * columns, which the compiler vectorizes (-O3 -march=native) without
 * reassociating any sum; tanhf is libm's. */
static void rnn_c_loop(rnn_arg *r) {
    float *h = r->h, *hn = r->hn;
    memcpy(h, r->h0, sizeof(float) * RNN_HID);
    for (int t = 0; t < RNN_STEPS; t++) {
        const float *x = r->xs + (size_t)t * RNN_INP;
        memcpy(hn, r->bias, sizeof(float) * RNN_HID);
        for (int j = 0; j < RNN_HID; j++) {
            const float *col = r->WT + (size_t)j * RNN_HID;
            for (int i = 0; i < RNN_HID; i++) hn[i] += col[i] * h[j];
        }
        for (int j = 0; j < RNN_INP; j++) {
            const float *col = r->UT + (size_t)j * RNN_HID;
            for (int i = 0; i < RNN_HID; i++) hn[i] += col[i] * x[j];
        }
        for (int i = 0; i < RNN_HID; i++) hn[i] = tanhf(hn[i]);
        float *tmp = h;
        h = hn, hn = tmp;
    }
    if (h != r->h) memcpy(r->h, h, sizeof(float) * RNN_HID);
}

static void rnn_free(rnn_arg *r) {
    free(r->WT), free(r->UT), free(r->bias), free(r->h0), free(r->h), free(r->hn), free(r->xs);
    memset(r, 0, sizeof *r);
}

/* Builds the inputs (weights scaled so h stays away from saturation), the
 * scan and the C side's copies. NULL when memory runs out. */
static cj_func *make_rnn_scan(cj_ctx *ctx, cj_val *in) {
    rnn_arg *r = &the_rnn;
    rnn_free(r);
    int64_t dh = RNN_HID;
    in[0] = cj_reshape(scaled(cj_sin(cj_linspace(ctx, 0, 300, RNN_HID * RNN_HID, CJ_F32)), 0.06), 2,
                       (int64_t[]){RNN_HID, RNN_HID});
    in[1] = cj_reshape(scaled(cj_cos(cj_linspace(ctx, 0, 100, RNN_HID * RNN_INP, CJ_F32)), 0.1), 2,
                       (int64_t[]){RNN_HID, RNN_INP});
    in[2] = scaled(cj_sin(cj_linspace(ctx, 0, 7, RNN_HID, CJ_F32)), 0.1);
    in[3] = cj_zeros(ctx, CJ_F32, 1, &dh);
    in[4] = cj_reshape(cj_sin(cj_linspace(ctx, 0, 50, RNN_STEPS * RNN_INP, CJ_F32)), 2,
                       (int64_t[]){RNN_STEPS, RNN_INP});
    memcpy(r->in, in, sizeof r->in);
    r->cell = cj_func_new(ctx, "rnn_cell", rnn_cell, 2, 1, r);
    float *W = malloc(sizeof(float) * RNN_HID * RNN_HID), *U = malloc(sizeof(float) * RNN_HID * RNN_INP);
    r->WT = malloc(sizeof(float) * RNN_HID * RNN_HID);
    r->UT = malloc(sizeof(float) * RNN_HID * RNN_INP);
    r->bias = malloc(sizeof(float) * RNN_HID);
    r->h0 = malloc(sizeof(float) * RNN_HID);
    r->h = malloc(sizeof(float) * RNN_HID);
    r->hn = malloc(sizeof(float) * RNN_HID);
    r->xs = malloc(sizeof(float) * RNN_STEPS * RNN_INP);
    int ok = W && U && r->WT && r->UT && r->bias && r->h0 && r->h && r->hn && r->xs &&
             cj_read(in[0], W, sizeof(float) * RNN_HID * RNN_HID) == CJ_OK &&
             cj_read(in[1], U, sizeof(float) * RNN_HID * RNN_INP) == CJ_OK &&
             cj_read(in[2], r->bias, sizeof(float) * RNN_HID) == CJ_OK &&
             cj_read(in[3], r->h0, sizeof(float) * RNN_HID) == CJ_OK &&
             cj_read(in[4], r->xs, sizeof(float) * RNN_STEPS * RNN_INP) == CJ_OK;
    if (ok) {
        for (int i = 0; i < RNN_HID; i++) {
            for (int j = 0; j < RNN_HID; j++) r->WT[j * RNN_HID + i] = W[i * RNN_HID + j];
            for (int j = 0; j < RNN_INP; j++) r->UT[j * RNN_HID + i] = U[i * RNN_INP + j];
        }
    }
    free(W), free(U);
    if (!ok) {
        rnn_free(r);
        return NULL;
    }
    return cj_func_new(ctx, "rnn", rnn_fn, 5, 1, r);
}

/* The scan's result (f on the RNN's inputs) against the C loop's: they
 * should agree to rounding. */
static double rnn_max_diff(cj_func *f) {
    rnn_arg *r = &the_rnn;
    float got[RNN_HID];
    cj_val o;
    if (!r->WT || cj_call(f, r->in, &o) != CJ_OK || cj_read(o, got, sizeof got) != CJ_OK) return NAN;
    rnn_c_loop(r);
    double worst = 0;
    for (int i = 0; i < RNN_HID; i++) worst = fmax(worst, fabs((double)got[i] - r->h[i]));
    return worst;
}

/* ---- call overhead and first calls ---- */
static cj_func *make_cached_call(cj_ctx *ctx, cj_val *in) {
    in[0] = cj_linspace(ctx, 0, 1, 4, CJ_F32);
    return cj_func_new(ctx, "axb", axb_fn, 1, 1, NULL);
}
static void run_cached_calls(cj_func *f, const cj_val *in) { /* 1000 calls */
    cj_val o;
    for (int i = 0; i < 1000; i++) {
        cj_scope_begin(in[0].ctx);
        cj_call(f, in, &o);
        cj_scope_end(in[0].ctx, 0, NULL);
    }
}

/* A 10-operation function on f32[4]. */
static void ten_ops_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    cj_val v = in[0];
    for (int i = 0; i < 5; i++) v = cj_add(cj_mul(v, cj_scalar(ctx, 0.9)), cj_scalar(ctx, 0.1 * i));
    out[0] = v;
}
static cj_func *make_first_call_small(cj_ctx *ctx, cj_val *in) {
    in[0] = cj_linspace(ctx, 0, 1, 4, CJ_F32);
    return cj_func_new(ctx, "ten_ops", ten_ops_fn, 1, 1, NULL);
}

/* ---- sorting (issue 16): sort of SORT_N f32, top_k(TOPK_K) of TOPK_ROWS
 * rows of TOPK_LEN. The values are distinct integers in scrambled order,
 * (i * 7919) mod p - p/2 for the prime p = 16000057 > every i, exact in f32
 * (below 2^23 in magnitude) and computed exactly in NumPy too, so the
 * peers sort the same bits and ties cannot reorder indices. ---- */
#define SORT_N 10000000
#define TOPK_ROWS 16
#define TOPK_LEN 1000000
#define TOPK_K 16
static cj_val scrambled(cj_ctx *ctx, int64_t n) {
    cj_val i = cj_iota(ctx, CJ_I64, 1, &n, 0);
    cj_val m = cj_rem(cj_mul(i, cj_scalar_int(ctx, 7919)), cj_scalar_int(ctx, 16000057));
    return cj_astype(cj_sub(m, cj_scalar_int(ctx, 8000028)), CJ_F32);
}
static void sort_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_sort(in[0], -1);
}
static void top_k_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    cj_val idx;
    cj_top_k(in[0], TOPK_K, &out[0], &idx);
    out[1] = cj_astype(idx, CJ_F32); /* the bench's checks read f32 (exact below 2^24) */
}
static cj_func *make_sort(cj_ctx *ctx, cj_val *in) {
    in[0] = scrambled(ctx, SORT_N);
    return cj_func_new(ctx, "sort", sort_fn, 1, 1, NULL);
}
static cj_func *make_top_k(cj_ctx *ctx, cj_val *in) {
    in[0] = cj_reshape(scrambled(ctx, (int64_t)TOPK_ROWS * TOPK_LEN), 2, (int64_t[]){TOPK_ROWS, TOPK_LEN});
    return cj_func_new(ctx, "top_k", top_k_fn, 1, 2, NULL);
}

#endif
