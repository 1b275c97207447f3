/* demo.c — `make demo`: the main job. Trains a classifier on two
 * interleaved spirals the way a JAX user would, entirely in C with cjax
 * (the training code is examples/demo/spirals.c):
 *   - data, initialisation, shuffling and DP noise from cjax's jax.random;
 *   - the step is jit(value_and_grad(loss)), followed by a jitted Adam;
 *   - then a shorter DP-SGD run: per-example gradients by vmap(grad(loss)),
 *     clipped and noised, inside jit;
 * with a progress bar per epoch, the test accuracy, and a report of what
 * the compiler made of it (compile time, caches, kernels, memory) plus two
 * pictures of the training step: its memory timeline (SVG) and its fused
 * program (Graphviz dot). This file holds the options, the progress bar
 * and the report. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <cjax.h>

#include "demo/spirals.h"

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* ---- options ---- */
typedef struct options {
    spirals_config cfg;
    char out_dir[4096];
} options;

static void usage(FILE *f, const char *argv0, const spirals_config *d) {
    fprintf(f,
            "usage: %s [--epochs N] [--hidden N] [--seed N] [--out DIR]\n"
            "Trains an MLP (2 -> hidden -> hidden -> 2, tanh) on two interleaved spirals with cjax:\n"
            "jit(value_and_grad(loss)) and Adam, then a shorter DP-SGD run (vmap(grad(loss)),\n"
            "per-example clipping and noise), and reports what the compiler made of it.\n\n"
            "  --epochs N   epochs of the normal run (default %d; the DP-SGD run has %d)\n"
            "  --hidden N   width of both hidden layers, at most 512 (default %d)\n"
            "  --seed N     seed of every random number: data, weights, shuffling (default %lld)\n"
            "  --out DIR    where the pictures go (default: the directory of this program)\n"
            "  --help       this text\n",
            argv0, d->epochs, d->dp_epochs, d->hidden, (long long)d->seed);
}

static int parse_int(const char *opt, const char *s, long long lo, long long hi, long long *out) {
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) {
        fprintf(stderr, "demo: %s wants an integer in [%lld, %lld], got \"%s\"\n", opt, lo, hi, s);
        return 0;
    }
    *out = v;
    return 1;
}

/* 0: run; 1: stop with success (--help); 2: bad usage. */
static int parse_options(int argc, char **argv, options *o) {
    o->cfg = spirals_default_config();
    /* default output: the directory holding this program (build/ for make demo) */
    const char *slash = strrchr(argv[0], '/');
    if (slash) snprintf(o->out_dir, sizeof o->out_dir, "%.*s", (int)(slash - argv[0]), argv[0]);
    else snprintf(o->out_dir, sizeof o->out_dir, ".");
    if (!o->out_dir[0]) snprintf(o->out_dir, sizeof o->out_dir, "/");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = NULL;
        char name[32];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout, argv[0], &o->cfg);
            return 1;
        }
        const char *eq = strchr(a, '=');
        if (eq && eq - a < (long)sizeof name) { /* --name=value */
            snprintf(name, sizeof name, "%.*s", (int)(eq - a), a);
            val = eq + 1;
        } else {
            snprintf(name, sizeof name, "%s", a);
            if (i + 1 < argc) val = argv[++i];
        }
        long long v;
        if (!strcmp(name, "--epochs") || !strcmp(name, "--hidden") || !strcmp(name, "--seed") ||
            !strcmp(name, "--out")) {
            if (!val) {
                fprintf(stderr, "demo: %s wants a value\n", name);
                return 2;
            }
        } else {
            fprintf(stderr, "demo: unknown option \"%s\"\n", a);
            usage(stderr, argv[0], &o->cfg);
            return 2;
        }
        if (!strcmp(name, "--epochs")) {
            if (!parse_int(name, val, 0, 100000, &v)) return 2;
            o->cfg.epochs = (int)v;
        } else if (!strcmp(name, "--hidden")) {
            /* DP-SGD holds a batch of per-example gradients: 128 x hidden^2 floats */
            if (!parse_int(name, val, 1, 512, &v)) return 2;
            o->cfg.hidden = (int)v;
        } else if (!strcmp(name, "--seed")) {
            if (!parse_int(name, val, INT64_MIN, INT64_MAX, &v)) return 2;
            o->cfg.seed = v;
        } else {
            snprintf(o->out_dir, sizeof o->out_dir, "%s", val);
        }
    }
    return 0;
}

/* ---- the progress bar ---- */
/* One line, redrawn in place after every batch on a terminal: the bar is
 * the whole run's progress, the numbers the current epoch's. A line stays
 * every `keep_every` epochs and at the last (about ten lines a run); off a
 * terminal only those lines are printed. Kept under 80 columns, since \r
 * cannot redraw a wrapped line. */
typedef struct bar {
    int tty;
    const char *name; /* "train" or "dp-sgd" */
    int keep_every;
    double last_test; /* the last epoch's test accuracy (NaN before) */
} bar;

static void on_progress(const spirals_progress *p, void *user) {
    bar *b = user;
    int epoch_done = !isnan(p->test_acc);
    if (epoch_done) b->last_test = p->test_acc;
    int keep = epoch_done && (p->epoch % b->keep_every == 0 || p->epoch == p->n_epochs);
    if (!b->tty && !keep) return;
    enum { WIDTH = 12 };
    double done = ((p->epoch - 1) * (double)p->n_batches + p->batch) / ((double)p->n_epochs * p->n_batches);
    char fill[WIDTH + 1];
    for (int i = 0; i < WIDTH; i++) fill[i] = i < (int)(done * WIDTH + 1e-9) ? '#' : '.';
    fill[WIDTH] = 0;
    char test[16] = "  -  ", dp[32] = "";
    if (!isnan(b->last_test)) snprintf(test, sizeof test, "%.3f", b->last_test);
    if (p->dp) snprintf(dp, sizeof dp, "  |g| %.2f/%.1f", p->dp_mean_norm, p->dp_max_norm);
    if (b->tty) printf("\r\033[K"); /* back to the line's start, and clear it */
    printf("%-6s %3d/%-3d [%s] loss %.3f acc %.3f test %s%s", b->name, p->epoch, p->n_epochs, fill, p->loss,
           p->acc, test, dp);
    if (keep) putchar('\n');
    fflush(stdout);
}

/* ---- the report ---- */
static void sleep_ms(int ms) {
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* The generated C is built in the background while the interpreter runs
 * the first calls; for the report, give the compiler up to `limit_ms` to
 * finish, so its time can be shown (the process would wait for it on exit
 * anyway). Returns the milliseconds waited. */
static double wait_for_native(cj_func *jitted, const cj_val *in, double limit_ms) {
    double t0 = now_ms();
    cj_program_info pi;
    while (cj_jit_program_info(jitted, in, &pi) == CJ_OK && pi.native_pending && now_ms() - t0 < limit_ms)
        sleep_ms(20);
    return now_ms() - t0;
}

/* One row of the programs table; returns the milliseconds spent waiting
 * for the C compiler. */
static double program_row(const char *what, cj_func *jitted, const cj_val *in, const cj_jit_stats *st) {
    cj_program_info pi;
    double waited = wait_for_native(jitted, in, 20000);
    if (cj_jit_program_info(jitted, in, &pi) != CJ_OK) return waited;
    char native[32];
    if (pi.native && pi.from_disk_cache) snprintf(native, sizeof native, "disk cache");
    else if (pi.native) snprintf(native, sizeof native, "%.0f ms", pi.compile_ms);
    else snprintf(native, sizeof native, "%s", pi.native_pending ? "compiling" : "not used");
    printf("  %-34s %7d %6d %11s %7llu %7llu %7llu\n", what, pi.n_kernels, pi.n_fused_kernels, native,
           (unsigned long long)st->traces, (unsigned long long)st->hits, (unsigned long long)st->misses);
    if (!pi.native && !pi.native_pending && pi.compile_error && pi.compile_error[0])
        printf("    (generated C not used: %s)\n", pi.compile_error);
    return waited;
}

/* Writes one picture into dir; says where, or why not (the error is
 * cleared so the report can finish). Returns 1 when written. */
typedef cj_status (*picture_fn)(cj_func *jitted, const cj_val *in, const char *path);
static int picture(const char *what, picture_fn write_picture, cj_func *jitted, const cj_val *in, const char *dir,
                   const char *file, const char *hint) {
    cj_ctx *ctx = in[0].ctx;
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    if (write_picture(jitted, in, path) == CJ_OK) {
        printf("  %-17s %s%s\n", what, path, hint);
        return 1;
    }
    printf("  %-17s not written: %s\n", what, cj_error_message(ctx));
    cj_error_clear(ctx);
    return 0;
}

/* Returns 0 when a picture could not be written. */
static int report(spirals *s, const char *out_dir) {
    cj_ctx *ctx = s->ctx;
    const int P = SPIRALS_N_PARAMS;
    /* the caches' counts first: the analyses below look programs up too */
    cj_jit_stats st_step, st_adam, st_eval, st_dp;
    cj_jit_stats_get(s->step, &st_step);
    cj_jit_stats_get(s->adam, &st_adam);
    cj_jit_stats_get(s->evaluate, &st_eval);
    cj_jit_stats_get(s->dp_step, &st_dp);

    /* inputs of the types training used */
    cj_val step_in[SPIRALS_N_PARAMS + 2];
    if (spirals_example_step_inputs(s, step_in) != CJ_OK) return 1; /* the error is reported by main */
    cj_val adam_in[4 * SPIRALS_N_PARAMS + 2], eval_in[SPIRALS_N_PARAMS + 2], dp_in[SPIRALS_N_PARAMS + 3];
    for (int i = 0; i < P; i++) {
        adam_in[i] = step_in[i];
        adam_in[P + i] = adam_in[2 * P + i] = adam_in[3 * P + i] = cj_zeros_like(step_in[i]);
        eval_in[i] = dp_in[i] = step_in[i];
    }
    adam_in[4 * P] = cj_scalar_typed(ctx, 1, CJ_F32), adam_in[4 * P + 1] = cj_scalar_typed(ctx, 0.01, CJ_F32);
    eval_in[P] = s->x_test, eval_in[P + 1] = s->y_test;
    dp_in[P] = step_in[P], dp_in[P + 1] = step_in[P + 1], dp_in[P + 2] = cj_random_key(ctx, 0);

    printf("\nWhat the compiler made of it\n");
    printf("  %-34s %7s %6s %11s %7s %7s %7s\n", "jitted function", "kernels", "fused", "C compile", "traces",
           "hits", "misses");
    double waited = program_row("step = jit(value_and_grad(loss))", s->step, step_in, &st_step);
    waited += program_row("adam = jit(adam_update)", s->adam, adam_in, &st_adam);
    waited += program_row("evaluate = jit(loss)", s->evaluate, eval_in, &st_eval);
    if (s->cfg.dp_epochs > 0)
        waited += program_row("dp_step = jit(vmap(grad(loss))...)", s->dp_step, dp_in, &st_dp);
    printf("  (each is traced once and then served from its cache, Adam's one program for both runs; the\n"
           "   first calls run on the interpreter while the generated C compiles in the background;\n"
           "   \"disk cache\": that C was compiled by an earlier run)\n");
    if (waited > 100)
        printf("  (the report waited %.1f s for the background compiler to finish)\n", waited / 1e3);

    cj_memory_analysis ma;
    if (cj_jit_memory_analysis(s->step, step_in, &ma) == CJ_OK) {
        printf("\nMemory analysis of the training step (batch %d, hidden %d)\n", s->cfg.batch, s->cfg.hidden);
        printf("  arguments %.1f KiB, outputs %.1f KiB, temporaries %.1f KiB, peak %.1f KiB\n",
               ma.argument_bytes / 1024.0, ma.output_bytes / 1024.0, ma.temp_bytes / 1024.0,
               ma.peak_bytes / 1024.0);
    }
    cj_mem_stats ms;
    cj_mem_stats_get(ctx, &ms);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("\nMemory of the process\n");
    printf("  peak resident set %.1f MiB (getrusage); cjax's allocator: peak %.1f MiB, %llu buffers\n"
           "  reused from its pool, %llu allocations\n",
           ru.ru_maxrss / 1024.0, ms.bytes_peak / 1048576.0, (unsigned long long)ms.n_pool_hits,
           (unsigned long long)ms.n_allocs);

    printf("\nPictures of the training step\n");
    int ok = picture("memory timeline:", cj_jit_memory_svg, s->step, step_in, out_dir, "demo_step_memory.svg", "");
    ok &= picture("fused program:", cj_jit_program_dot, s->step, step_in, out_dir, "demo_step.dot",
                  "  (dot -Tsvg to draw it)");
    return ok;
}

int main(int argc, char **argv) {
    options o;
    int parsed = parse_options(argc, argv, &o);
    if (parsed) return parsed == 1 ? 0 : 2;
    const spirals_config *c = &o.cfg;

    cj_ctx *ctx = cj_ctx_new(NULL);
    if (!ctx) {
        fprintf(stderr, "demo: out of memory\n");
        return 1;
    }
    double t0 = now_ms();
    spirals *s = spirals_new(ctx, c);
    if (!s) {
        fprintf(stderr, "demo: setting up failed: %s\n", cj_error(ctx) ? cj_error_message(ctx) : "bad options");
        cj_ctx_free(ctx);
        return 1;
    }
    printf("cjax demo: two interleaved spirals (%lld train / %lld test points, seed %lld),\n"
           "an MLP 2 -> %d -> %d -> 2 (tanh), Adam (lr %g), batches of %d\n\n",
           (long long)s->n_train, (long long)s->n_test, (long long)c->seed, c->hidden, c->hidden, c->lr, c->batch);

    printf("(loss, acc: running means over the epoch; test: accuracy on held-out points)\n");
    bar b = {isatty(STDOUT_FILENO), "train", c->epochs > 10 ? c->epochs / 10 : 1, NAN};
    spirals_result train, dp = {0};
    double t1 = now_ms();
    cj_status st = spirals_train(s, 0, on_progress, &b, &train, NULL);
    double t_train = now_ms() - t1;
    if (st == CJ_OK)
        printf("final test accuracy %.4f (chance 0.5) after %d steps in %.1f s\n\n", train.test_acc, train.steps,
               t_train / 1e3);

    if (st == CJ_OK && c->dp_epochs > 0) {
        printf("DP-SGD: per-example gradients by vmap(grad(loss)), each clipped to norm %g, summed,\n"
               "Gaussian noise of std %g x %g added, then Adam (lr %g); fresh weights\n",
               c->dp_clip, c->dp_noise, c->dp_clip, c->dp_lr);
        printf("(|g|: per-example gradient norms before clipping, mean/max over the epoch)\n");
        b = (bar){b.tty, "dp-sgd", c->dp_epochs > 10 ? c->dp_epochs / 10 : 1, NAN};
        t1 = now_ms();
        st = spirals_train(s, 1, on_progress, &b, &dp, NULL);
        double t_dp = now_ms() - t1;
        if (st == CJ_OK)
            printf("DP-SGD test accuracy %.4f after %d steps in %.1f s; per-example gradient norm before\n"
                   "clipping: mean %.3f, max %.3f (clip bound %g)\n",
                   dp.test_acc, dp.steps, t_dp / 1e3, dp.mean_norm, dp.max_norm, c->dp_clip);
    }
    int pictures_ok = st == CJ_OK ? report(s, o.out_dir) : 1;
    if (st == CJ_OK && cj_error(ctx) == CJ_OK) printf("\ntotal %.1f s\n", (now_ms() - t0) / 1e3);
    int rc = pictures_ok ? 0 : 1;
    if (cj_error(ctx)) {
        fprintf(stderr, "demo: %s\n", cj_error_message(ctx));
        rc = 1;
    }
    spirals_free(s);
    cj_ctx_free(ctx);
    return rc;
}
