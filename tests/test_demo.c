/* test_demo.c — the demo's training code (examples/demo/spirals.c), small:
 * it learns the spirals (test accuracy well above chance 0.5), its DP-SGD
 * per-example gradients (vmap(grad(loss))) equal a C loop of grad over
 * single examples, clipping bounds each example's norm, the noise has the
 * asked-for scale, and its Adam is optax.adam's formula. */
#include <stdlib.h>

#include "../examples/demo/spirals.h"
#include "harness.h"

#define P SPIRALS_N_PARAMS

static spirals_config small_config(void) {
    spirals_config c = spirals_default_config();
    c.n_points = 2000;
    c.hidden = 64;
    c.epochs = 30;
    c.batch = 64;
    c.dp_epochs = 2;
    /* the interpreter: the generated C's own tests are elsewhere, and a
     * test should not wait for the C compiler */
    c.backend = CJ_BACKEND_INTERP;
    return c;
}

/* Reads a float array into a malloc'd buffer of doubles (NULL on error). */
static double *read_f64(cj_val v) {
    int64_t n = cj_val_size(v);
    double *buf = n > 0 ? malloc(sizeof(double) * (size_t)n) : NULL;
    if (buf && cj_read_as(v, CJ_F64, buf, sizeof(double) * (size_t)n) != CJ_OK) {
        free(buf);
        buf = NULL;
    }
    return buf;
}

TEST(demo_spirals_learns) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    spirals_config c = small_config();
    spirals *s = spirals_new(ctx, &c);
    CHECK_MSG(s, "spirals_new: %s", cj_error_message(ctx));
    CHECK_EQ_INT(s->n_train + s->n_test, 2000);
    CHECK_EQ_INT(s->n_test, 500);
    /* balanced classes: labels are 0 or 1, half of all points each */
    cj_val all_y = cj_concatenate(2, (cj_val[]){s->y_train, s->y_test}, 0);
    int64_t ones = -1;
    CHECK(cj_item_int(cj_sum(all_y, -1, NULL, 0), &ones) == CJ_OK);
    CHECK_EQ_INT(ones, 1000);

    spirals_result r;
    CHECK_MSG(spirals_train(s, 0, NULL, NULL, &r, NULL) == CJ_OK, "%s", cj_error_message(ctx));
    CHECK_EQ_INT(r.steps, 30 * (1500 / 64));
    CHECK_MSG(r.test_acc >= 0.9, "test accuracy %.4f < 0.9", r.test_acc);
    CHECK_MSG(r.train_acc >= 0.9, "train accuracy %.4f < 0.9", r.train_acc);
    /* the step and Adam were traced once and then served from the cache */
    cj_jit_stats st;
    cj_jit_stats_get(s->step, &st);
    CHECK_EQ_INT(st.traces, 1);
    CHECK_EQ_INT(st.hits, r.steps - 1);
    cj_jit_stats_get(s->adam, &st);
    CHECK_EQ_INT(st.traces, 1);
    spirals_free(s);
    cj_ctx_free(ctx);
}

/* Per-example gradients by a C loop of grad(loss) on single examples, the
 * reference for vmap(grad(loss)): g[e][k] is example e's gradient, all
 * parameters flattened one after the other. */
static int loop_grads(spirals *s, const cj_val *params, int n_ex, double **g, int64_t *n_coords) {
    int argnums[P] = {0, 1, 2, 3, 4, 5};
    cj_grad_opts by_params = {P, argnums, 1};
    cj_func *grad = cj_grad(s->loss, &by_params);
    *n_coords = 0;
    for (int i = 0; i < P; i++) *n_coords += cj_val_size(params[i]);
    for (int e = 0; e < n_ex; e++) {
        int64_t two = 2, ax = 0;
        cj_val in[P + 2], out[P + 1];
        for (int i = 0; i < P; i++) in[i] = params[i];
        in[P] = cj_reshape(cj_slice(s->x_train, (int64_t[]){e, 0}, (int64_t[]){e + 1, 2}, NULL), 1, &two);
        in[P + 1] = cj_squeeze(cj_slice(s->y_train, (int64_t[]){e}, (int64_t[]){e + 1}, NULL), 1, &ax);
        if (cj_call(grad, in, out) != CJ_OK) return 0;
        g[e] = malloc(sizeof(double) * (size_t)*n_coords);
        if (!g[e]) return 0;
        int64_t at = 0;
        for (int i = 0; i < P; i++) {
            double *part = read_f64(out[i]);
            if (!part) return 0;
            for (int64_t k = 0; k < cj_val_size(out[i]); k++) g[e][at + k] = part[k];
            at += cj_val_size(out[i]);
            free(part);
        }
    }
    return 1;
}

/* Row e of a [B, ...] array, flattened, appended at dst. */
static int64_t append_row(double *dst, const double *all, int64_t e, int64_t row) {
    for (int64_t k = 0; k < row; k++) dst[k] = all[e * row + k];
    return row;
}

TEST(demo_dp_clipping_matches_per_example_grads) {
    enum { N_EX = 16 };
    cj_ctx *ctx = cj_ctx_new(NULL);
    spirals_config c = small_config();
    c.dp_clip = 3.0; /* at the initial weights, norms are 1.8 to 4.5 */
    c.dp_noise = 0.0;
    spirals *s = spirals_new(ctx, &c);
    CHECK_MSG(s, "spirals_new: %s", cj_error_message(ctx));
    cj_val params[P];
    CHECK(spirals_init_params(s, 0, params) == CJ_OK);

    double *g[N_EX] = {0};
    int64_t n_coords = 0;
    int ok = loop_grads(s, params, N_EX, g, &n_coords);
    CHECK_MSG(ok, "grad per example: %s", cj_error_message(ctx));

    /* the same examples through the demo's vmap(grad) + clipping, eagerly */
    cj_val in[P + 3], clipped[P + 1];
    for (int i = 0; i < P; i++) in[i] = params[i];
    in[P] = cj_slice(s->x_train, (int64_t[]){0, 0}, (int64_t[]){N_EX, 2}, NULL);
    in[P + 1] = cj_slice(s->y_train, (int64_t[]){0}, (int64_t[]){N_EX}, NULL);
    in[P + 2] = cj_random_key(ctx, 7);
    CHECK_MSG(cj_call(s->clipped, in, clipped) == CJ_OK, "%s", cj_error_message(ctx));
    double *norms = read_f64(clipped[P]), *rows = malloc(sizeof(double) * (size_t)(n_coords * N_EX));
    double *parts[P];
    for (int i = 0; i < P; i++) parts[i] = read_f64(clipped[i]);
    int n_clipped = 0;
    double *mean_clipped = calloc((size_t)n_coords, sizeof(double));
    for (int e = 0; e < N_EX && norms && rows && mean_clipped; e++) {
        double *row = rows + e * n_coords;
        int64_t at = 0;
        for (int i = 0; i < P; i++) {
            CHECK(parts[i]);
            at += append_row(row + at, parts[i], e, cj_val_size(clipped[i]) / N_EX);
        }
        CHECK_EQ_INT(at, n_coords);
        double norm = 0, clipped_norm = 0;
        for (int64_t k = 0; k < n_coords; k++) norm += g[e][k] * g[e][k], clipped_norm += row[k] * row[k];
        norm = sqrt(norm), clipped_norm = sqrt(clipped_norm);
        CHECK_NEAR(norms[e], norm, 1e-4, 1e-7);               /* vmap's norm = the loop's */
        CHECK_MSG(clipped_norm <= c.dp_clip * (1 + 1e-5), "example %d: clipped norm %g > bound %g", e,
                  clipped_norm, c.dp_clip);
        double scale = norm > c.dp_clip ? c.dp_clip / norm : 1.0;
        n_clipped += norm > c.dp_clip;
        for (int64_t k = 0; k < n_coords; k++) {
            CHECK_NEAR(row[k], g[e][k] * scale, 1e-4, 1e-7); /* clipped = g * min(1, C/|g|) */
            mean_clipped[k] += row[k] / N_EX;
        }
    }
    CHECK(norms && rows && mean_clipped);
    CHECK_MSG(n_clipped > 0 && n_clipped < N_EX, "%d of %d examples clipped: the check needs both kinds", n_clipped,
              N_EX);

    /* the jitted DP step without noise: the mean of the clipped rows, and
     * the same norms */
    cj_val dp_out[P + 3];
    CHECK_MSG(cj_call(s->dp_step, in, dp_out) == CJ_OK, "%s", cj_error_message(ctx));
    double *dp_norms = read_f64(dp_out[2 + P]);
    CHECK(dp_norms);
    for (int e = 0; e < N_EX; e++) CHECK_NEAR(dp_norms[e], norms[e], 1e-4, 1e-7);
    int64_t at = 0;
    for (int i = 0; i < P; i++) {
        double *gi = read_f64(dp_out[2 + i]);
        CHECK(gi);
        for (int64_t k = 0; k < cj_val_size(dp_out[2 + i]); k++) CHECK_NEAR(gi[k], mean_clipped[at + k], 1e-4, 1e-7);
        at += cj_val_size(dp_out[2 + i]);
        free(gi);
    }
    free(dp_norms);
    for (int i = 0; i < P; i++) free(parts[i]);
    for (int e = 0; e < N_EX; e++) free(g[e]);
    free(norms), free(rows), free(mean_clipped);
    spirals_free(s);
    cj_ctx_free(ctx);
}

/* With noise: (noisy - noise-free) * B / (noise * clip) is standard normal
 * over every coordinate. */
TEST(demo_dp_noise_scale) {
    enum { N_EX = 16 };
    cj_ctx *ctx = cj_ctx_new(NULL);
    spirals_config c = small_config(), quiet;
    c.dp_clip = 0.5;
    c.dp_noise = 2.0;
    quiet = c;
    quiet.dp_noise = 0.0;
    spirals *s = spirals_new(ctx, &c), *q = spirals_new(ctx, &quiet);
    CHECK(s && q);
    cj_val in[P + 3], noisy[P + 3], clean[P + 3];
    CHECK(spirals_init_params(s, 0, in) == CJ_OK);
    in[P] = cj_slice(s->x_train, (int64_t[]){0, 0}, (int64_t[]){N_EX, 2}, NULL);
    in[P + 1] = cj_slice(s->y_train, (int64_t[]){0}, (int64_t[]){N_EX}, NULL);
    in[P + 2] = cj_random_key(ctx, 3);
    CHECK(cj_call(s->dp_step, in, noisy) == CJ_OK);
    CHECK(cj_call(q->dp_step, in, clean) == CJ_OK);
    double sum = 0, sum2 = 0;
    int64_t n = 0;
    for (int i = 0; i < P; i++) {
        double *a = read_f64(noisy[2 + i]), *b = read_f64(clean[2 + i]);
        CHECK(a && b);
        for (int64_t k = 0; k < cj_val_size(noisy[2 + i]); k++, n++) {
            double z = (a[k] - b[k]) * N_EX / (c.dp_noise * c.dp_clip);
            sum += z, sum2 += z * z;
        }
        free(a), free(b);
    }
    double mean = sum / (double)n, sd = sqrt(sum2 / (double)n - mean * mean);
    /* n = 4,482 coordinates: mean within 4 standard errors, sd within 5 % */
    CHECK_EQ_INT(n, 2 * 64 + 64 + 64 * 64 + 64 + 64 * 2 + 2);
    CHECK_MSG(fabs(mean) < 0.06 && sd > 0.95 && sd < 1.05, "noise mean %g sd %g, want 0 and 1", mean, sd);
    spirals_free(s), spirals_free(q);
    cj_ctx_free(ctx);
}

/* One step of the jitted Adam against optax.adam's formula in C. */
TEST(demo_adam_matches_optax_formula) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    spirals_config c = small_config();
    spirals *s = spirals_new(ctx, &c);
    CHECK(s);
    const double b1 = 0.9, b2 = 0.999, eps = 1e-8, lr = 0.03, t = 3;
    cj_val in[4 * P + 2], out[3 * P];
    CHECK(spirals_init_params(s, 0, in) == CJ_OK);
    for (int j = 1; j < 4; j++) /* m, v (made >= 0), g: normal draws shaped like the params */
        for (int i = 0; i < P; i++) {
            int64_t shape[CJ_MAX_RANK];
            int rank = cj_val_shape(in[i], shape);
            in[j * P + i] = cj_random_normal(cj_random_key(ctx, 10 * j + i), CJ_F32, rank, shape);
        }
    for (int i = 0; i < P; i++) in[2 * P + i] = cj_abs(in[2 * P + i]);
    in[4 * P] = cj_scalar_typed(ctx, t, CJ_F32);
    in[4 * P + 1] = cj_scalar_typed(ctx, lr, CJ_F32);
    double *host[4][P];
    for (int j = 0; j < 4; j++)
        for (int i = 0; i < P; i++) host[j][i] = read_f64(in[j * P + i]);
    int64_t size[P];
    for (int i = 0; i < P; i++) size[i] = cj_val_size(in[i]);
    CHECK_MSG(cj_call(s->adam, in, out) == CJ_OK, "%s", cj_error_message(ctx)); /* donates p, m, v */
    for (int i = 0; i < P; i++) {
        double *np = read_f64(out[i]), *nm = read_f64(out[P + i]), *nv = read_f64(out[2 * P + i]);
        CHECK(np && nm && nv && host[0][i] && host[1][i] && host[2][i] && host[3][i]);
        for (int64_t k = 0; k < size[i]; k++) {
            double g = host[3][i][k];
            double m = b1 * host[1][i][k] + (1 - b1) * g, v = b2 * host[2][i][k] + (1 - b2) * g * g;
            double p = host[0][i][k] - lr * (m / (1 - pow(b1, t))) / (sqrt(v / (1 - pow(b2, t))) + eps);
            CHECK_NEAR(nm[k], m, 1e-5, 1e-7);
            CHECK_NEAR(nv[k], v, 1e-5, 1e-9);
            CHECK_NEAR(np[k], p, 1e-5, 1e-6);
        }
        free(np), free(nm), free(nv);
    }
    for (int j = 0; j < 4; j++)
        for (int i = 0; i < P; i++) free(host[j][i]);
    spirals_free(s);
    cj_ctx_free(ctx);
}
