/* demo.c — `make demo`: the foundation's tour. An MLP classifier's forward
 * pass and loss, written once as a C function over cjax values, run eagerly,
 * then jitted: the IR it traces to, the cache at work (a hit, then a miss
 * explained), the same numbers from both paths, and what it cost in time
 * and memory. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cjax.h>

#define BATCH 256
#define IN 784
#define HIDDEN 512
#define CLASSES 10

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Deterministic pseudo-random fill (xorshift), uniform in [-scale, scale]. */
static cj_val random_array(cj_ctx *ctx, int rank, const int64_t *dims, float scale, uint64_t seed) {
    int64_t n = 1;
    for (int i = 0; i < rank; i++) n *= dims[i];
    float *buf = malloc(sizeof(float) * (size_t)n);
    if (!buf) return cj_scalar(ctx, NAN);
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
    for (int64_t i = 0; i < n; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        buf[i] = scale * (float)((double)(s >> 11) / 9007199254740992.0 * 2 - 1);
    }
    cj_val v = cj_array(ctx, CJ_F32, rank, dims, buf);
    free(buf);
    return v;
}

/* The model: inputs x, labels (one-hot), w1, b1, w2, b2 → mean cross-entropy
 * loss and accuracy. Ordinary C over cjax values: no loops, no frees. */
static void mlp_loss(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    cj_val x = in[0], labels = in[1], w1 = in[2], b1 = in[3], w2 = in[4], b2 = in[5];
    cj_val h = cj_relu(cj_add(cj_matmul(x, w1), b1));
    cj_val logits = cj_add(cj_matmul(h, w2), b2);
    cj_val logp = cj_log_softmax(logits, -1);
    int64_t last = -1;
    cj_val nll = cj_neg(cj_sum(cj_mul(logp, labels), 1, &last, 0));
    out[0] = cj_mean(nll, -1, NULL, 0);
    cj_val hit = cj_eq(cj_argmax(logits, -1, 0), cj_argmax(labels, -1, 0));
    out[1] = cj_mean(cj_astype(hit, CJ_F32), -1, NULL, 0);
}

static int check(cj_ctx *ctx, const char *where) {
    if (cj_error(ctx) == CJ_OK) return 0;
    fprintf(stderr, "demo: %s failed: %s\n", where, cj_error_message(ctx));
    return 1;
}

int main(void) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    if (!ctx) return 1;
    printf("cjax demo: an MLP (%d -> %d -> %d) on a batch of %d, eager and jitted\n\n", IN, HIDDEN,
           CLASSES, BATCH);

    int64_t dx[2] = {BATCH, IN}, dw1[2] = {IN, HIDDEN}, db1[1] = {HIDDEN}, dw2[2] = {HIDDEN, CLASSES},
            db2[1] = {CLASSES};
    cj_val x = random_array(ctx, 2, dx, 1.0f, 1);
    cj_val classes = cj_argmax(random_array(ctx, 2, (int64_t[]){BATCH, CLASSES}, 1.0f, 2), -1, 0);
    cj_val labels = cj_one_hot(classes, CLASSES, CJ_F32);
    cj_val params[4] = {
        random_array(ctx, 2, dw1, 1.0f / sqrtf(IN), 3), cj_zeros(ctx, CJ_F32, 1, db1),
        random_array(ctx, 2, dw2, 1.0f / sqrtf(HIDDEN), 4), cj_zeros(ctx, CJ_F32, 1, db2)};
    cj_val in[6] = {x, labels, params[0], params[1], params[2], params[3]};
    if (check(ctx, "making the data")) return 1;

    cj_func *f = cj_func_new(ctx, "mlp_loss", mlp_loss, 6, 2, NULL);
    cj_func *jf = cj_jit(f, NULL);

    /* 1. eager */
    cj_val eager[2];
    double t0 = now_ms();
    cj_call(f, in, eager);
    double t_eager = now_ms() - t0;
    if (check(ctx, "the eager call")) return 1;

    /* 2. the IR jit traces to */
    printf("The IR of mlp_loss (cj_print_ir, as jax.make_jaxpr prints it):\n");
    cj_print_ir(f, 6, in, stdout);

    /* 3. jit: the first call traces and prepares, the next ones hit the cache */
    cj_val jitted[2];
    t0 = now_ms();
    cj_call(jf, in, jitted);
    double t_first = now_ms() - t0;
    int reps = 20;
    t0 = now_ms();
    for (int i = 0; i < reps; i++) {
        cj_scope_begin(ctx);
        cj_val o[2];
        cj_call(jf, in, o);
        cj_scope_end(ctx, 0, NULL);
    }
    double t_cached = (now_ms() - t0) / reps;
    if (check(ctx, "the jitted calls")) return 1;

    double le, ae, lj, aj;
    cj_item(eager[0], &le);
    cj_item(eager[1], &ae);
    cj_item(jitted[0], &lj);
    cj_item(jitted[1], &aj);
    printf("\n%-28s %12s %12s\n", "", "loss", "accuracy");
    printf("%-28s %12.6f %12.4f\n", "eager", le, ae);
    printf("%-28s %12.6f %12.4f\n", "jit", lj, aj);
    printf("(an untrained model: loss near log(10) = %.4f, accuracy near 0.1)\n\n", log(10.0));

    printf("%-28s %9.2f ms\n", "eager call", t_eager);
    printf("%-28s %9.2f ms  (trace + prepare + run)\n", "jit, first call", t_first);
    printf("%-28s %9.2f ms  (mean of %d, from the cache)\n", "jit, cached call", t_cached, reps);

    /* 4. a new batch size misses the cache, and says why */
    cj_val half = cj_slice(x, (int64_t[]){0, 0}, (int64_t[]){BATCH / 2, IN}, NULL);
    cj_val half_labels = cj_slice(labels, (int64_t[]){0, 0}, (int64_t[]){BATCH / 2, CLASSES}, NULL);
    cj_val in2[6] = {half, half_labels, params[0], params[1], params[2], params[3]};
    cj_val o2[2];
    cj_call(jf, in2, o2);
    if (check(ctx, "the half-batch call")) return 1;
    cj_jit_stats st;
    cj_jit_stats_get(jf, &st);
    printf("\njit cache: %llu traces, %llu hits, %llu misses; last miss: %s\n",
           (unsigned long long)st.traces, (unsigned long long)st.hits, (unsigned long long)st.misses,
           cj_jit_last_miss(jf));

    cj_program_info info;
    cj_memory_analysis ma;
    cj_cost_analysis ca;
    if (cj_jit_program_info(jf, in, &info) == CJ_OK && cj_jit_memory_analysis(jf, in, &ma) == CJ_OK &&
        cj_jit_cost_analysis(jf, in, &ca) == CJ_OK) {
        printf("compiled: %d equations in %d kernels (%d fused), generated C %s\n", info.n_equations,
               info.n_kernels, info.n_fused_kernels,
               info.native ? "in use" : info.native_pending ? "still compiling" : "not used");
        printf("memory analysis: arguments %.2f MiB, outputs %zu B, temporaries %.2f MiB, peak %.2f MiB\n",
               ma.argument_bytes / 1048576.0, ma.output_bytes, ma.temp_bytes / 1048576.0,
               ma.peak_bytes / 1048576.0);
        printf("cost analysis: %.1f MFLOP, %.0f transcendentals, %.1f MB accessed\n", ca.flops / 1e6,
               ca.transcendentals, ca.bytes_accessed / 1e6);
    }
    cj_mem_stats ms;
    cj_mem_stats_get(ctx, &ms);
    printf("memory: %.1f MiB held now, %.1f MiB at peak, %llu allocator calls, %llu buffers reused from the pool\n",
           ms.bytes_live / 1048576.0, ms.bytes_peak / 1048576.0, (unsigned long long)ms.n_allocs,
           (unsigned long long)ms.n_pool_hits);
    int ok = fabs(le - lj) <= 1e-4 * fabs(le) && ae == aj;
    printf("\neager and jit agree: %s\n", ok ? "yes" : "NO");
    cj_ctx_free(ctx);
    return ok ? 0 : 1;
}
