/* spirals.h — the demo's training code, reusable (examples/demo.c drives it
 * for `make demo`; tests/test_demo.c runs it small and checks it learns).
 *
 * Two interleaved spirals, made with cjax's random numbers, classified by an
 * MLP 2 → hidden → hidden → 2 (tanh), trained the way a JAX user would:
 *   step      = jit(value_and_grad(loss, argnums=params, has_aux=True))
 *   adam      = jit(adam_update)   (optax.adam: bias-corrected moments)
 *   per-example gradients for DP-SGD = vmap(grad(loss)) over (x, y), each
 *   clipped to a norm bound, summed, noised, inside jit.
 * Everything lives in the context given to spirals_new: one cj_ctx_free
 * releases it all (spirals_free releases the trainer struct only). */
#ifndef CJAX_DEMO_SPIRALS_H
#define CJAX_DEMO_SPIRALS_H

#include <cjax.h>

#define SPIRALS_N_PARAMS 6 /* W1, b1, W2, b2, W3, b3 */

typedef struct spirals_config {
    int64_t n_points;     /* total points, half per class */
    double test_fraction; /* share of the points held out for testing */
    double noise;         /* std of the Gaussian noise added to each point */
    double turns;         /* how many turns each spiral arm makes */
    int hidden;           /* width of both hidden layers */
    int epochs;           /* normal training */
    int batch;            /* mini-batch size (the last partial batch is dropped) */
    double lr;            /* Adam learning rate */
    int64_t seed;         /* one seed for data, initialisation and shuffling */
    /* DP-SGD: per-example gradients clipped to dp_clip, Gaussian noise of
     * std dp_noise * dp_clip added to their sum, then Adam with dp_lr. */
    int dp_epochs;        /* 0: no DP-SGD run */
    double dp_clip;
    double dp_noise;
    double dp_lr;
    cj_backend backend;   /* for every jitted function (0: the default) */
} spirals_config;

/* The demo's defaults: 4,000 points (a quarter held out), 1.5 turns,
 * hidden 64, 60 epochs of batches of 128 with Adam at 0.01, then a
 * 15-epoch DP-SGD run (clip 1, noise multiplier 0.5). */
spirals_config spirals_default_config(void);

/* Reported to the progress callback after every batch (test_acc NaN) and at
 * the end of every epoch (test_acc set). loss and acc are running means
 * over the epoch's batches so far. */
typedef struct spirals_progress {
    int dp;               /* 0: normal run, 1: DP-SGD run */
    int epoch, n_epochs;  /* 1-based */
    int batch, n_batches; /* 1-based, batches done in this epoch */
    double loss, acc;
    double test_acc;
    double dp_mean_norm, dp_max_norm; /* DP run: per-example gradient norms
                                         before clipping, over the epoch so far */
} spirals_progress;
typedef void (*spirals_progress_fn)(const spirals_progress *p, void *user);

typedef struct spirals_result {
    double train_loss, train_acc; /* last epoch's means */
    double test_acc;
    int steps;                    /* optimiser steps taken */
    double mean_norm, max_norm;   /* DP run: per-example gradient norms before
                                     clipping, over the whole run */
} spirals_result;

typedef struct spirals {
    cj_ctx *ctx;
    spirals_config cfg;
    cj_val x_train, y_train, x_test, y_test; /* f32[n,2], i32[n] */
    int64_t n_train, n_test;
    cj_func *loss;        /* (params..., x, y) → (mean cross-entropy, accuracy) */
    cj_func *step;        /* jit(value_and_grad(loss)): (loss, acc, grads...) */
    cj_func *adam;        /* jit: (params, m, v, grads, t) → (params, m, v) */
    cj_func *evaluate;    /* jit(loss) */
    cj_func *per_example; /* vmap(grad(loss)) over (x, y): (grads [B,...]..., acc [B]) */
    cj_func *clipped;     /* vmap(grad(loss)) then clipping: (params..., x, y) →
                             (clipped per-example grads [B,...]..., norms [B]) */
    cj_func *dp_step;     /* jit: (params..., x, y, key) → (noisy mean of the
                             clipped grads..., norms [B] before clipping) */
    cj_val key;           /* the run's root key */
} spirals;

/* Makes the data sets and the functions. NULL on error (see cj_error(ctx))
 * or when cfg is out of range (a message on stderr). */
spirals *spirals_new(cj_ctx *ctx, const spirals_config *cfg);
void spirals_free(spirals *s);

/* Fresh parameters from the key's stream number `stream` (LeCun-normal
 * weights, zero biases); out gets SPIRALS_N_PARAMS values. */
cj_status spirals_init_params(spirals *s, int stream, cj_val *params);

/* The normal run (dp = 0: jit(value_and_grad) + Adam) or the DP-SGD run
 * (dp = 1: jit(vmap(grad)) with clipping and noise + Adam), each from fresh
 * parameters. progress may be NULL. Final parameters go to params_out when
 * not NULL. */
cj_status spirals_train(spirals *s, int dp, spirals_progress_fn progress, void *user,
                        spirals_result *result, cj_val *params_out);

/* One batch of training inputs for the step, in the step's input order
 * (params..., x, y), for the report's analyses. in has SPIRALS_N_PARAMS + 2
 * entries. */
cj_status spirals_example_step_inputs(spirals *s, cj_val *in);

#endif
