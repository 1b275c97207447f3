/* spirals.c — the demo's data, model, loss, optimiser and training loop
 * (interface and overview in spirals.h).
 *
 * Written as a JAX user would write it: the model and the loss are plain
 * functions over cjax values; transformations make the rest (value_and_grad
 * for the step, vmap of grad for per-example gradients, jit around all of
 * it). The C code between calls only moves values and reads a few scalars
 * for the progress bar. Random numbers come from cjax's jax.random: one
 * root key, with a stream folded in per purpose (data, initialisation,
 * shuffling, DP noise), so a seed fixes the whole run. */
#include "spirals.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define PI 3.14159265358979323846

/* Key streams folded into the root key. */
enum { STREAM_DATA = 0, STREAM_INIT = 1, STREAM_SHUFFLE = 10, STREAM_DP_NOISE = 20 };

/* optax.adam's defaults besides the learning rate. */
#define ADAM_B1 0.9
#define ADAM_B2 0.999
#define ADAM_EPS 1e-8

spirals_config spirals_default_config(void) {
    spirals_config c = {
        .n_points = 4000,
        .test_fraction = 0.25,
        .noise = 0.03,
        .turns = 1.5,
        .hidden = 64,
        .epochs = 60,
        .batch = 128,
        .lr = 0.01,
        .seed = 0,
        .dp_epochs = 15,
        .dp_clip = 1.0,
        .dp_noise = 0.5,
        .dp_lr = 0.01,
        .backend = CJ_BACKEND_DEFAULT,
    };
    return c;
}

/* ---- keys ---- */
static cj_val stream_key(spirals *s, int64_t stream) {
    return cj_random_fold_in(s->key, cj_scalar_int(s->ctx, stream));
}

/* Row i of an i32[n,2] batch of keys, as a key. */
static cj_val key_row(cj_val keys, int64_t i) {
    int64_t start[2] = {i, 0}, limit[2] = {i + 1, 2}, two = 2;
    return cj_reshape(cj_slice(keys, start, limit, NULL), 1, &two);
}

/* ---- shuffling ---- */
/* jax.random.permutation ranks by random keys with a sort; cjax has no sort
 * primitive (its permutation is O(n^2)), so the draws come from cjax and
 * the ranking is done here with qsort. */
typedef struct ranked {
    float u;
    int32_t i;
} ranked;

static int cmp_ranked(const void *a, const void *b) {
    const ranked *x = a, *y = b;
    if (x->u != y->u) return x->u < y->u ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* i32[n]: a random order of 0..n-1 drawn from key. */
static cj_val random_order(cj_ctx *ctx, cj_val key, int64_t n) {
    float *u = malloc(sizeof(float) * (size_t)n);
    ranked *r = malloc(sizeof(ranked) * (size_t)n);
    int32_t *idx = malloc(sizeof(int32_t) * (size_t)n);
    cj_val out = {ctx, 0, 0}; /* an error value unless replaced */
    cj_val draws = cj_random_uniform(key, CJ_F32, 1, &n, 0.0, 1.0);
    if (u && r && idx && cj_read(draws, u, sizeof(float) * (size_t)n) == CJ_OK) {
        for (int64_t i = 0; i < n; i++) r[i] = (ranked){u[i], (int32_t)i};
        qsort(r, (size_t)n, sizeof r[0], cmp_ranked);
        for (int64_t i = 0; i < n; i++) idx[i] = r[i].i;
        out = cj_array(ctx, CJ_I32, 1, &n, idx);
    } else if (!cj_error(ctx)) {
        fprintf(stderr, "spirals: out of memory shuffling %lld points\n", (long long)n);
    }
    free(u), free(r), free(idx);
    return out;
}

/* ---- data ---- */
/* Two spirals of n/2 points each: radius s = sqrt(u) (even density over
 * the disc), angle s * turns * 2pi, the second arm turned by pi, plus
 * Gaussian noise; then shuffled and split into train and test. */
static void make_data(spirals *s) {
    cj_ctx *ctx = s->ctx;
    int64_t n = s->cfg.n_points, half = n / 2, n2[2] = {n, 2}, col[2] = {n, 1};
    cj_val keys = cj_random_split(stream_key(s, STREAM_DATA), 3);
    cj_val r = cj_sqrt(cj_random_uniform(key_row(keys, 0), CJ_F32, 1, &n, 0.0, 1.0));
    cj_val label = cj_astype(cj_ge(cj_arange(ctx, 0, (double)n, 1, CJ_I32), cj_scalar_int(ctx, half)), CJ_I32);
    cj_val angle = cj_add(cj_mul(r, cj_scalar(ctx, s->cfg.turns * 2 * PI)),
                          cj_mul(cj_astype(label, CJ_F32), cj_scalar(ctx, PI)));
    cj_val xy[2] = {cj_reshape(cj_mul(r, cj_cos(angle)), 2, col), cj_reshape(cj_mul(r, cj_sin(angle)), 2, col)};
    cj_val x = cj_concatenate(2, xy, 1);
    x = cj_add(x, cj_mul(cj_random_normal(key_row(keys, 1), CJ_F32, 2, n2), cj_scalar(ctx, s->cfg.noise)));
    cj_val order = random_order(ctx, key_row(keys, 2), n);
    x = cj_take(x, order, 0);
    label = cj_take(label, order, 0);
    s->n_test = (int64_t)llround((double)n * s->cfg.test_fraction);
    s->n_train = n - s->n_test;
    s->x_train = cj_slice(x, (int64_t[]){0, 0}, (int64_t[]){s->n_train, 2}, NULL);
    s->y_train = cj_slice(label, (int64_t[]){0}, (int64_t[]){s->n_train}, NULL);
    s->x_test = cj_slice(x, (int64_t[]){s->n_train, 0}, (int64_t[]){n, 2}, NULL);
    s->y_test = cj_slice(label, (int64_t[]){s->n_train}, (int64_t[]){n}, NULL);
}

/* ---- model and loss ---- */
/* (W1, b1, W2, b2, W3, b3, x, y) → (mean cross-entropy, accuracy). x is
 * f32[..., 2] and y i32[...]: the same function serves a batch and, under
 * vmap, a single example. */
static void loss_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    const cj_val *p = in, x = in[SPIRALS_N_PARAMS], y = in[SPIRALS_N_PARAMS + 1];
    cj_val h = cj_tanh(cj_add(cj_matmul(x, p[0]), p[1]));
    h = cj_tanh(cj_add(cj_matmul(h, p[2]), p[3]));
    cj_val logits = cj_add(cj_matmul(h, p[4]), p[5]);
    int64_t last = -1;
    cj_val nll = cj_neg(cj_sum(cj_mul(cj_log_softmax(logits, -1), cj_one_hot(y, 2, CJ_F32)), 1, &last, 0));
    out[0] = cj_mean(nll, -1, NULL, 0);
    out[1] = cj_mean(cj_astype(cj_eq(cj_argmax(logits, -1, 0), y), CJ_F32), -1, NULL, 0);
}

cj_status spirals_init_params(spirals *s, int stream, cj_val *params) {
    int64_t width[4] = {2, s->cfg.hidden, s->cfg.hidden, 2};
    cj_val keys = cj_random_split(stream_key(s, STREAM_INIT + stream), 3);
    for (int l = 0; l < 3; l++) {
        int64_t dw[2] = {width[l], width[l + 1]};
        /* LeCun normal: variance 1/fan_in keeps tanh's inputs near unit scale */
        params[2 * l] = cj_mul(cj_random_normal(key_row(keys, l), CJ_F32, 2, dw),
                               cj_scalar(s->ctx, 1.0 / sqrt((double)width[l])));
        params[2 * l + 1] = cj_zeros(s->ctx, CJ_F32, 1, &width[l + 1]);
    }
    return cj_error(s->ctx);
}

/* ---- Adam ---- */
/* (params, m, v, grads, t, lr) → (params, m, v), as optax.adam with
 * bias-corrected moments: m_hat = m / (1 - b1^t), v_hat = v / (1 - b2^t),
 * p -= lr * m_hat / (sqrt(v_hat) + eps). t and lr are inputs, so every step
 * of both runs reuses one compiled program. */
static void adam_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    const int P = SPIRALS_N_PARAMS;
    cj_val t = in[4 * P], lr = in[4 * P + 1];
    cj_val b1 = cj_scalar(ctx, ADAM_B1), b2 = cj_scalar(ctx, ADAM_B2), one = cj_scalar(ctx, 1.0);
    cj_val bc1 = cj_sub(one, cj_pow(b1, t)), bc2 = cj_sub(one, cj_pow(b2, t));
    for (int i = 0; i < P; i++) {
        cj_val p = in[i], m = in[P + i], v = in[2 * P + i], g = in[3 * P + i];
        m = cj_add(cj_mul(b1, m), cj_mul(cj_scalar(ctx, 1 - ADAM_B1), g));
        v = cj_add(cj_mul(b2, v), cj_mul(cj_scalar(ctx, 1 - ADAM_B2), cj_mul(g, g)));
        cj_val update = cj_div(cj_div(m, bc1), cj_add(cj_sqrt(cj_div(v, bc2)), cj_scalar(ctx, ADAM_EPS)));
        out[i] = cj_sub(p, cj_mul(lr, update));
        out[P + i] = m;
        out[2 * P + i] = v;
    }
}

/* ---- DP-SGD ---- */
/* (params..., x[B,2], y[B]) → (each example's gradient scaled to norm at
 * most clip: [B, ...] per parameter..., the norms before clipping [B]).
 * The per-example gradients are vmap(grad(loss)), one batched program. */
static void clipped_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    spirals *s = user;
    const int P = SPIRALS_N_PARAMS;
    (void)ctx;
    cj_val g[SPIRALS_N_PARAMS + 1]; /* gradients, then each example's accuracy */
    cj_call(s->per_example, in, g);
    cj_val sq = cj_scalar(s->ctx, 0.0);
    for (int i = 0; i < P; i++) {
        int64_t axes[CJ_MAX_RANK];
        int rank = cj_val_rank(g[i]);
        for (int a = 1; a < rank; a++) axes[a - 1] = a;
        sq = cj_add(sq, cj_sum(cj_mul(g[i], g[i]), rank - 1, axes, 0));
    }
    cj_val norm = cj_sqrt(sq), clip = cj_scalar(s->ctx, s->cfg.dp_clip);
    cj_val scale = cj_div(clip, cj_max(norm, clip)); /* min(1, clip / norm), safe at 0 */
    for (int i = 0; i < P; i++) {
        int64_t shape[CJ_MAX_RANK];
        int rank = cj_val_shape(g[i], shape);
        for (int a = 1; a < rank; a++) shape[a] = 1;
        out[i] = cj_mul(g[i], cj_reshape(scale, rank, shape));
    }
    out[P] = norm;
}

/* (params..., x, y, key) → (loss, accuracy, privatised gradient..., norms
 * before clipping [B]): the clipped per-example gradients summed, plus
 * Gaussian noise of std dp_noise * clip, over B. Same layout as the
 * normal step's outputs, so the same Adam follows. */
static void dp_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    spirals *s = user;
    const int P = SPIRALS_N_PARAMS;
    cj_val c[SPIRALS_N_PARAMS + 1];
    cj_call(s->clipped, in, c);
    cj_call(s->loss, in, out); /* the batch's loss and accuracy, for the progress bar */
    cj_val keys = cj_random_split(in[P + 2], P);
    double batch = (double)cj_val_dim(in[P], 0);
    int64_t zero = 0;
    for (int i = 0; i < P; i++) {
        int64_t shape[CJ_MAX_RANK];
        int rank = cj_val_shape(c[i], shape) - 1;
        cj_val noise = cj_mul(cj_random_normal(key_row(keys, i), CJ_F32, rank, shape + 1),
                              cj_scalar(ctx, s->cfg.dp_noise * s->cfg.dp_clip));
        out[2 + i] = cj_div(cj_add(cj_sum(c[i], 1, &zero, 0), noise), cj_scalar(ctx, batch));
    }
    out[2 + P] = c[P];
}

/* ---- setting up ---- */
static int config_ok(const spirals_config *c) {
    const char *bad = NULL;
    if (c->n_points < 8 || c->n_points % 2) bad = "n_points must be even and at least 8";
    else if (!(c->test_fraction > 0 && c->test_fraction < 1)) bad = "test_fraction must be in (0, 1)";
    else if (c->hidden < 1 || c->hidden > 4096) bad = "hidden must be in [1, 4096]";
    else if (c->epochs < 0 || c->dp_epochs < 0) bad = "epochs must not be negative";
    else if (c->batch < 1 || c->batch > c->n_points - llround((double)c->n_points * c->test_fraction))
        bad = "batch must be in [1, number of training points]";
    else if (!(c->lr > 0) || !(c->dp_lr > 0) || !(c->dp_clip > 0) || !(c->dp_noise >= 0) || !(c->noise >= 0))
        bad = "lr, dp_lr and dp_clip must be positive, noise and dp_noise not negative";
    if (bad) fprintf(stderr, "spirals: %s\n", bad);
    return bad == NULL;
}

spirals *spirals_new(cj_ctx *ctx, const spirals_config *cfg) {
    if (!ctx || !cfg || !config_ok(cfg)) return NULL;
    spirals *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    const int P = SPIRALS_N_PARAMS;
    s->ctx = ctx;
    s->cfg = *cfg;
    s->key = cj_random_key(ctx, cfg->seed);
    make_data(s);

    int argnums[SPIRALS_N_PARAMS];
    for (int i = 0; i < P; i++) argnums[i] = i;
    cj_grad_opts by_params = {P, argnums, 1};
    s->loss = cj_func_new(ctx, "loss", loss_fn, P + 2, 2, NULL);
    cj_jit_opts jit_opts = {0, NULL, 0, NULL, cfg->backend};
    s->step = cj_jit(cj_value_and_grad(s->loss, &by_params), &jit_opts);
    s->evaluate = cj_jit(s->loss, &jit_opts);

    /* Adam's parameters and moments are donated: the new ones are written
     * over the old, as optax users get with jit(donate_argnums=...). */
    int donate[3 * SPIRALS_N_PARAMS];
    for (int i = 0; i < 3 * P; i++) donate[i] = i;
    cj_jit_opts adam_opts = {0, NULL, 3 * P, donate, cfg->backend};
    s->adam = cj_jit(cj_func_new(ctx, "adam", adam_fn, 4 * P + 2, 3 * P, NULL), &adam_opts);

    /* params shared by the batch (None), x and y mapped on axis 0 */
    int64_t in_axes[SPIRALS_N_PARAMS + 2];
    for (int i = 0; i < P; i++) in_axes[i] = CJ_NOT_MAPPED;
    in_axes[P] = in_axes[P + 1] = 0;
    cj_vmap_opts per_example = {in_axes, NULL, 0, 0, 0};
    s->per_example = cj_vmap(cj_grad(s->loss, &by_params), &per_example);
    s->clipped = cj_func_new(ctx, "clipped_grads", clipped_fn, P + 2, P + 1, s);
    s->dp_step = cj_jit(cj_func_new(ctx, "dp_step", dp_fn, P + 3, P + 3, s), &jit_opts);
    if (cj_error(ctx)) {
        free(s);
        return NULL;
    }
    return s;
}

void spirals_free(spirals *s) { free(s); }

cj_status spirals_example_step_inputs(spirals *s, cj_val *in) {
    spirals_init_params(s, 0, in);
    int64_t b = s->cfg.batch;
    in[SPIRALS_N_PARAMS] = cj_slice(s->x_train, (int64_t[]){0, 0}, (int64_t[]){b, 2}, NULL);
    in[SPIRALS_N_PARAMS + 1] = cj_slice(s->y_train, (int64_t[]){0}, &b, NULL);
    return cj_error(s->ctx);
}

/* ---- training ---- */
static double item(cj_val v) {
    double d = NAN;
    cj_item(v, &d);
    return d;
}

cj_status spirals_train(spirals *s, int dp, spirals_progress_fn progress, void *user, spirals_result *result,
                        cj_val *params_out) {
    cj_ctx *ctx = s->ctx;
    const int P = SPIRALS_N_PARAMS;
    const int64_t B = s->cfg.batch, n_batches = s->n_train / B;
    const int epochs = dp ? s->cfg.dp_epochs : s->cfg.epochs;
    spirals_result res = {NAN, NAN, NAN, 0, NAN, NAN};
    spirals_progress pr = {dp, 0, epochs, 0, (int)n_batches, NAN, NAN, NAN, NAN, NAN};
    float *norms = dp ? malloc(sizeof(float) * (size_t)B) : NULL;
    if (dp && !norms) return CJ_ERR_OOM;
    double norm_sum = 0, norm_max = 0;
    int64_t norm_count = 0;

    cj_scope_begin(ctx);
    /* state: params, Adam's first and second moments */
    cj_val state[3 * SPIRALS_N_PARAMS];
    spirals_init_params(s, dp, state);
    for (int i = 0; i < P; i++) state[P + i] = cj_zeros_like(state[i]), state[2 * P + i] = cj_zeros_like(state[i]);
    cj_val shuffle_key = stream_key(s, STREAM_SHUFFLE + dp), noise_key = stream_key(s, STREAM_DP_NOISE);
    cj_val lr = cj_scalar_typed(ctx, dp ? s->cfg.dp_lr : s->cfg.lr, CJ_F32);

    for (int epoch = 1; epoch <= epochs && !cj_error(ctx); epoch++) {
        cj_scope_begin(ctx);
        cj_val order = random_order(ctx, cj_random_fold_in(shuffle_key, cj_scalar_int(ctx, epoch)), s->n_train);
        cj_val xs = cj_take(s->x_train, order, 0), ys = cj_take(s->y_train, order, 0);
        double loss_sum = 0, acc_sum = 0, ep_norm_sum = 0, ep_norm_max = 0;
        pr.epoch = epoch;
        pr.test_acc = pr.dp_mean_norm = pr.dp_max_norm = NAN;
        for (int64_t b = 0; b < n_batches && !cj_error(ctx); b++) {
            cj_scope_begin(ctx);
            cj_val in[SPIRALS_N_PARAMS + 3], out[SPIRALS_N_PARAMS + 3];
            for (int i = 0; i < P; i++) in[i] = state[i];
            in[P] = cj_slice(xs, (int64_t[]){b * B, 0}, (int64_t[]){(b + 1) * B, 2}, NULL);
            in[P + 1] = cj_slice(ys, (int64_t[]){b * B}, (int64_t[]){(b + 1) * B}, NULL);
            if (dp) {
                in[P + 2] = cj_random_fold_in(noise_key, cj_scalar_int(ctx, res.steps));
                cj_call(s->dp_step, in, out);
                if (cj_read(out[2 + P], norms, sizeof(float) * (size_t)B) == CJ_OK) {
                    for (int64_t e = 0; e < B; e++) {
                        ep_norm_sum += norms[e];
                        if (norms[e] > ep_norm_max) ep_norm_max = norms[e];
                    }
                }
            } else {
                cj_call(s->step, in, out);
            }
            loss_sum += item(out[0]);
            acc_sum += item(out[1]);
            res.steps++;

            cj_val adam_in[4 * SPIRALS_N_PARAMS + 2], next[3 * SPIRALS_N_PARAMS];
            for (int i = 0; i < 3 * P; i++) adam_in[i] = state[i];
            for (int i = 0; i < P; i++) adam_in[3 * P + i] = out[2 + i];
            adam_in[4 * P] = cj_scalar_typed(ctx, (double)res.steps, CJ_F32);
            adam_in[4 * P + 1] = lr;
            cj_call(s->adam, adam_in, next);
            cj_scope_end(ctx, 3 * P, next);
            /* the old state was donated (its buffers now hold `next`); free
             * whatever handles were not consumed */
            for (int i = 0; i < 3 * P; i++) cj_val_free(state[i]), state[i] = next[i];

            pr.batch = (int)b + 1;
            pr.loss = loss_sum / (double)pr.batch;
            pr.acc = acc_sum / (double)pr.batch;
            if (dp) {
                pr.dp_mean_norm = ep_norm_sum / (double)(pr.batch * B);
                pr.dp_max_norm = ep_norm_max;
            }
            if (progress && !cj_error(ctx)) progress(&pr, user);
        }
        norm_sum += ep_norm_sum, norm_count += n_batches * B;
        if (ep_norm_max > norm_max) norm_max = ep_norm_max;

        cj_val eval_in[SPIRALS_N_PARAMS + 2], eval_out[2];
        for (int i = 0; i < P; i++) eval_in[i] = state[i];
        eval_in[P] = s->x_test, eval_in[P + 1] = s->y_test;
        cj_call(s->evaluate, eval_in, eval_out);
        pr.test_acc = item(eval_out[1]);
        res.train_loss = pr.loss, res.train_acc = pr.acc, res.test_acc = pr.test_acc;
        cj_scope_end(ctx, 3 * P, state);
        if (progress && !cj_error(ctx)) progress(&pr, user);
    }
    if (epochs == 0) { /* untrained: still say where it stands */
        cj_val eval_in[SPIRALS_N_PARAMS + 2], eval_out[2];
        for (int i = 0; i < P; i++) eval_in[i] = state[i];
        eval_in[P] = s->x_test, eval_in[P + 1] = s->y_test;
        cj_call(s->evaluate, eval_in, eval_out);
        res.test_acc = item(eval_out[1]);
    }
    if (dp && norm_count) res.mean_norm = norm_sum / (double)norm_count, res.max_norm = norm_max;
    free(norms);
    cj_status st = cj_error(ctx);
    if (params_out && st == CJ_OK) {
        for (int i = 0; i < P; i++) params_out[i] = state[i];
        cj_scope_end(ctx, P, params_out);
    } else {
        cj_scope_end(ctx, 0, NULL);
    }
    if (result) *result = res;
    return st;
}
