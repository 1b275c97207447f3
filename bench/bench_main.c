/* bench_main.c — `make bench`: cjax next to NumPy / JAX and next to this
 * machine's limits, all measured in the same run, as ratios.
 *
 * Workloads (10^7 float32 unless stated): eager add, eager sin,
 * sin(x)*cos(x)+x*x eager and jitted, 1024x1024 matmul, and a 1,000-step
 * RNN scan under jit next to the same loop written in plain C. Limits: copy
 * bandwidth (a STREAM-style copy of the same size) and the GEMM rate of the
 * dot backend (OpenBLAS when linked, else cjax's built-in). Peers come from
 * bench/peers.py when python3 can import them; otherwise "missing".
 * Results are also written to bench/results/latest.json. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjax.h>

#include "bench_util.h"

#include "runtime/gemm.h"
#include "runtime/threads.h"

#define N 10000000
#define REPS 9

typedef void (*work_fn)(void *arg);

/* Median over REPS runs after one warm-up run. */
static double median_ms(work_fn fn, void *arg) {
    double t[REPS];
    fn(arg);
    for (int i = 0; i < REPS; i++) {
        double t0 = now_ms();
        fn(arg);
        t[i] = now_ms() - t0;
    }
    qsort(t, REPS, sizeof t[0], cmp_double);
    return t[REPS / 2];
}

/* ---- limits ---- */
typedef struct copy_arg {
    float *src, *dst;
} copy_arg;
static void copy_range(void *p, int64_t b, int64_t e) {
    copy_arg *a = p;
    memcpy(a->dst + b, a->src + b, sizeof(float) * (size_t)(e - b));
}
/* The copy runs on the same thread pool as cjax's kernels, so the limit is
 * the machine's with all its cores, as the kernels use them. */
static void do_copy(void *p) { rt_parallel_for(N, N / 64, copy_range, p); }

typedef struct gemm_arg {
    float *a, *b, *c;
} gemm_arg;
static void do_gemm(void *p) {
    gemm_arg *g = p;
    rt_gemm_f32(1024, 1024, 1024, g->a, 1024, 0, g->b, 1024, 0, g->c, 1024, 0);
}

/* ---- cjax workloads ---- */
typedef struct cj_arg {
    cj_ctx *ctx;
    cj_val x, y, a, b, m, tiny;
    cj_func *jf, *jaxb, *jsoftmax, *jmlp_vmap, *jmlp_one, *jdots_vmap, *jdots_hand;
    cj_val mlp_in[5], mlp_rows[256], pairs[2];
    struct rnn_arg *rnn;
} cj_arg;

static void sincos_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_add(cj_mul(cj_sin(in[0]), cj_cos(in[0])), cj_mul(in[0], in[0]));
}

#define SCOPED(body)               \
    do {                           \
        cj_scope_begin(c->ctx);    \
        body;                      \
        cj_scope_end(c->ctx, 0, NULL); \
    } while (0)

static void w_add(void *p) { cj_arg *c = p; SCOPED(cj_add(c->x, c->y)); }
static void w_sin(void *p) { cj_arg *c = p; SCOPED(cj_sin(c->x)); }
static void w_sincos_eager(void *p) {
    cj_arg *c = p;
    SCOPED(cj_val o; sincos_fn(c->ctx, &c->x, &o, NULL));
}
static void w_sincos_jit(void *p) {
    cj_arg *c = p;
    SCOPED(cj_val o; cj_call(c->jf, &c->x, &o));
}
static void w_matmul(void *p) { cj_arg *c = p; SCOPED(cj_matmul(c->a, c->b)); }

static void axb_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    out[0] = cj_add(cj_mul(in[0], cj_scalar(ctx, 1.5)), cj_scalar(ctx, 0.25));
}
static void w_axb_jit(void *p) {
    cj_arg *c = p;
    SCOPED(cj_val o; cj_call(c->jaxb, &c->x, &o));
}
static void softmax_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user, (void)ctx;
    out[0] = cj_softmax(in[0], -1);
}
static void w_softmax_eager(void *p) {
    cj_arg *c = p;
    SCOPED(cj_val o; softmax_fn(c->ctx, &c->m, &o, NULL));
}
static void w_softmax_jit(void *p) {
    cj_arg *c = p;
    SCOPED(cj_val o; cj_call(c->jsoftmax, &c->m, &o));
}
/* A 10-operation function, jitted afresh each time: the first call's
 * latency with the tiered start (trace, compile passes, generate C, start
 * the background build, run on the interpreter). */
static void ten_ops(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    cj_val v = in[0];
    for (int i = 0; i < 5; i++) v = cj_add(cj_mul(v, cj_scalar(ctx, 0.9)), cj_scalar(ctx, 0.1 * i));
    out[0] = v;
}
static void w_first_call(void *p) {
    cj_arg *c = p;
    cj_func *jf = cj_jit(cj_func_new(c->ctx, "ten_ops", ten_ops, 1, 1, NULL), NULL);
    SCOPED(cj_val o; cj_call(jf, &c->tiny, &o));
}

/* Per-example MLP forward (784 → 512 → 10): vmapped and jitted, next to
 * the hand-batched jitted version and a C loop of per-example jit calls. */
static void mlp_one(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user, (void)ctx;
    cj_val h = cj_relu(cj_add(cj_matmul(in[0], in[1]), in[2]));
    out[0] = cj_add(cj_matmul(h, in[3]), in[4]);
}
static void w_mlp_vmap(void *p) {
    cj_arg *c = p;
    SCOPED(cj_val o; cj_call(c->jmlp_vmap, c->mlp_in, &o));
}
static void w_mlp_hand(void *p) {
    cj_arg *c = p;
    SCOPED(cj_val o; cj_call(c->jmlp_one, c->mlp_in, &o)); /* matmul batches itself */
}
static void w_mlp_loop(void *p) {
    cj_arg *c = p;
    cj_scope_begin(c->ctx);
    for (int64_t b = 0; b < 256; b++) {
        cj_val args[5] = {c->mlp_rows[b], c->mlp_in[1], c->mlp_in[2], c->mlp_in[3], c->mlp_in[4]}, o;
        cj_call(c->jmlp_one, args, &o);
    }
    cj_scope_end(c->ctx, 0, NULL);
}
/* 10^6 per-example dot products of 16-vectors: vmap against hand-batched. */
static void dot_one(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user, (void)ctx;
    out[0] = cj_dot_general(in[0], in[1], 1, (int64_t[]){0}, (int64_t[]){0}, 0, NULL, NULL);
}
static void dot_hand(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user, (void)ctx;
    int64_t ax = 1;
    out[0] = cj_sum(cj_mul(in[0], in[1]), 1, &ax, 0);
}
static void w_dots_vmap(void *p) {
    cj_arg *c = p;
    SCOPED(cj_val o; cj_call(c->jdots_vmap, c->pairs, &o));
}
static void w_dots_hand(void *p) {
    cj_arg *c = p;
    SCOPED(cj_val o; cj_call(c->jdots_hand, c->pairs, &o));
}

/* vmap's chunked form: per example an outer product 512 x 512 (1 MiB)
 * reduced to a row; 128 examples at once hold 128 of them, chunks of 8
 * hold 8. Each form runs in a fresh context so its allocator peak is its
 * own. Returns the peak bytes above the inputs, and the time. */
static void outer_rowsum(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    cj_val o = cj_sin(cj_mul(cj_expand_dims(in[0], 1), cj_expand_dims(in[0], 0)));
    int64_t ax = 1;
    (void)ctx;
    out[0] = cj_sum(o, 1, &ax, 0);
}
static size_t vmap_peak_bytes(int64_t chunk, double *ms) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    if (!ctx) return 0;
    int64_t d[2] = {128, 512};
    cj_val x = cj_reshape(cj_linspace(ctx, -1, 1, 128 * 512, CJ_F32), 2, d);
    cj_vmap_opts vo = {NULL, NULL, 0, 0, chunk};
    cj_func *f = cj_vmap(cj_func_new(ctx, "outer_rowsum", outer_rowsum, 1, 1, NULL), &vo);
    cj_mem_trim(ctx);
    cj_mem_stats before, after;
    cj_mem_stats_get(ctx, &before);
    double t0 = now_ms();
    cj_val y;
    cj_call(f, &x, &y);
    *ms = now_ms() - t0;
    cj_mem_stats_get(ctx, &after);
    size_t peak = cj_error(ctx) ? 0 : after.bytes_peak - before.bytes_live;
    cj_ctx_free(ctx);
    return peak;
}

/* ---- a 1,000-step RNN scan: h' = tanh(W h + U x_t + b), f32 ---- */
#define RNN_STEPS 1000
#define RNN_HID 256
#define RNN_INP 64

typedef struct rnn_arg {
    cj_ctx *ctx;
    cj_func *cell, *jrnn;
    cj_val W, U, b;   /* set while rnn_fn is traced: the cell closes over them */
    cj_val in[5];     /* W, U, b, h0, xs */
    /* the plain C version's data (the same values) */
    float *WT, *UT, *bias, *h0, *xs, *h, *hn;
} rnn_arg;

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

static void w_rnn_scan(void *p) {
    rnn_arg *r = ((cj_arg *)p)->rnn;
    cj_scope_begin(r->ctx);
    cj_val o;
    cj_call(r->jrnn, r->in, &o);
    cj_scope_end(r->ctx, 0, NULL);
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
static void w_rnn_c(void *p) { rnn_c_loop(((cj_arg *)p)->rnn); }

/* Builds the inputs (weights scaled so h stays away from saturation), the
 * jitted scan and the C side's copies. Returns 0 or -1. */
static int rnn_setup(cj_ctx *ctx, rnn_arg *r, const cj_jit_opts *wait) {
    memset(r, 0, sizeof *r);
    r->ctx = ctx;
    int64_t dw[2] = {RNN_HID, RNN_HID}, du[2] = {RNN_HID, RNN_INP}, dx[2] = {RNN_STEPS, RNN_INP}, dh = RNN_HID;
    r->in[0] = cj_reshape(cj_mul(cj_sin(cj_linspace(ctx, 0, 300, RNN_HID * RNN_HID, CJ_F32)), cj_scalar(ctx, 0.06)),
                          2, dw);
    r->in[1] = cj_reshape(cj_mul(cj_cos(cj_linspace(ctx, 0, 100, RNN_HID * RNN_INP, CJ_F32)), cj_scalar(ctx, 0.1)),
                          2, du);
    r->in[2] = cj_mul(cj_sin(cj_linspace(ctx, 0, 7, RNN_HID, CJ_F32)), cj_scalar(ctx, 0.1));
    r->in[3] = cj_zeros(ctx, CJ_F32, 1, &dh);
    r->in[4] = cj_reshape(cj_sin(cj_linspace(ctx, 0, 50, RNN_STEPS * RNN_INP, CJ_F32)), 2, dx);
    r->cell = cj_func_new(ctx, "rnn_cell", rnn_cell, 2, 1, r);
    r->jrnn = cj_jit(cj_func_new(ctx, "rnn", rnn_fn, 5, 1, r), wait);
    float *W = malloc(sizeof(float) * RNN_HID * RNN_HID), *U = malloc(sizeof(float) * RNN_HID * RNN_INP);
    r->WT = malloc(sizeof(float) * RNN_HID * RNN_HID);
    r->UT = malloc(sizeof(float) * RNN_HID * RNN_INP);
    r->bias = malloc(sizeof(float) * RNN_HID);
    r->h0 = malloc(sizeof(float) * RNN_HID);
    r->h = malloc(sizeof(float) * RNN_HID);
    r->hn = malloc(sizeof(float) * RNN_HID);
    r->xs = malloc(sizeof(float) * RNN_STEPS * RNN_INP);
    int ok = W && U && r->WT && r->UT && r->bias && r->h0 && r->h && r->hn && r->xs &&
             cj_read(r->in[0], W, sizeof(float) * RNN_HID * RNN_HID) == CJ_OK &&
             cj_read(r->in[1], U, sizeof(float) * RNN_HID * RNN_INP) == CJ_OK &&
             cj_read(r->in[2], r->bias, sizeof(float) * RNN_HID) == CJ_OK &&
             cj_read(r->in[3], r->h0, sizeof(float) * RNN_HID) == CJ_OK &&
             cj_read(r->in[4], r->xs, sizeof(float) * RNN_STEPS * RNN_INP) == CJ_OK;
    if (ok) {
        for (int i = 0; i < RNN_HID; i++) {
            for (int j = 0; j < RNN_HID; j++) r->WT[j * RNN_HID + i] = W[i * RNN_HID + j];
            for (int j = 0; j < RNN_INP; j++) r->UT[j * RNN_HID + i] = U[i * RNN_INP + j];
        }
    }
    free(W), free(U);
    return ok ? 0 : -1;
}

static void rnn_free(rnn_arg *r) {
    free(r->WT), free(r->UT), free(r->bias), free(r->h0), free(r->h), free(r->hn), free(r->xs);
}

/* The scan's result against the C loop's (they should agree to rounding). */
static double rnn_max_diff(rnn_arg *r) {
    float got[RNN_HID];
    cj_val o;
    if (cj_call(r->jrnn, r->in, &o) != CJ_OK || cj_read(o, got, sizeof got) != CJ_OK) return NAN;
    rnn_c_loop(r);
    double worst = 0;
    for (int i = 0; i < RNN_HID; i++) worst = fmax(worst, fabs((double)got[i] - r->h[i]));
    return worst;
}

static void w_tiny_jit(void *p) { /* 1000 cached calls on a 4-element array */
    cj_arg *c = p;
    for (int i = 0; i < 1000; i++) SCOPED(cj_val o; cj_call(c->jaxb, &c->tiny, &o));
}

/* ---- peers ---- */
static int peer_ms(const char *json, const char *peer, const char *key, double *out) {
    if (!json) return 0;
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\": {", peer);
    const char *p = strstr(json, pat);
    if (!p) return 0;
    const char *end = strchr(p, '}');
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    const char *k = strstr(p, pat);
    if (!k || (end && k > end)) return 0;
    *out = atof(k + strlen(pat));
    return 1;
}

static char *run_peers(void) {
    FILE *pp = popen("python3 bench/peers.py 2>/dev/null", "r");
    if (!pp) return NULL;
    char *buf = calloc(1, 8192);
    size_t n = buf ? fread(buf, 1, 8191, pp) : 0;
    pclose(pp);
    if (!n) {
        free(buf);
        return NULL;
    }
    return buf;
}

int main(void) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    float *src = malloc(sizeof(float) * N), *dst = malloc(sizeof(float) * N);
    float *ga = malloc(sizeof(float) << 20), *gb = malloc(sizeof(float) << 20), *gc = malloc(sizeof(float) << 20);
    if (!ctx || !src || !dst || !ga || !gb || !gc) return 1;
    for (int64_t i = 0; i < N; i++) src[i] = (float)i;
    for (int i = 0; i < 1 << 20; i++) ga[i] = gb[i] = (float)(i % 17) * 0.1f;

    printf("cjax bench — medians of %d runs; limits and peers measured in this same run\n", REPS);
    copy_arg ca = {src, dst};
    double t_copy = median_ms(do_copy, &ca);
    double bw = 2.0 * sizeof(float) * N / (t_copy * 1e6); /* GB/s, read + write */
    gemm_arg g = {ga, gb, gc};
    double t_gemm = median_ms(do_gemm, &g);
    double gflops = 2.0 * 1024 * 1024 * 1024 / (t_gemm * 1e6);
    printf("limits: copy %.1f GB/s (40 MB memcpy on %d threads), sgemm 1024 %.1f GFLOP/s (%s)\n\n", bw,
           rt_num_threads(), gflops, rt_gemm_backend());

    cj_arg c;
    memset(&c, 0, sizeof c);
    c.ctx = ctx;
    c.x = cj_linspace(ctx, -3, 3, N, CJ_F32);
    c.y = cj_linspace(ctx, 0, 1, N, CJ_F32);
    int64_t d[2] = {1024, 1024};
    c.a = cj_array(ctx, CJ_F32, 2, d, ga);
    c.b = cj_array(ctx, CJ_F32, 2, d, gb);
    /* jit with the C backend, waiting for the compile (bench the code, not
     * the tiered start) */
    cj_jit_opts wait = {0, NULL, 0, NULL, CJ_BACKEND_CC};
    c.jf = cj_jit(cj_func_new(ctx, "sincos", sincos_fn, 1, 1, NULL), &wait);
    c.jaxb = cj_jit(cj_func_new(ctx, "axb", axb_fn, 1, 1, NULL), &wait);
    c.jsoftmax = cj_jit(cj_func_new(ctx, "softmax", softmax_fn, 1, 1, NULL), &wait);
    int64_t dm[2] = {4096, 4096}, d4 = 4;
    c.m = cj_reshape(cj_linspace(ctx, -3, 3, 4096 * 4096, CJ_F32), 2, dm);
    c.tiny = cj_linspace(ctx, 0, 1, d4, CJ_F32);
    int64_t dx[2] = {256, 784}, dw1[2] = {784, 512}, db1 = 512, dw2[2] = {512, 10}, db2 = 10;
    c.mlp_in[0] = cj_reshape(cj_linspace(ctx, -1, 1, 256 * 784, CJ_F32), 2, dx);
    c.mlp_in[1] = cj_mul(cj_reshape(cj_linspace(ctx, -1, 1, 784 * 512, CJ_F32), 2, dw1), cj_scalar(ctx, 0.05));
    c.mlp_in[2] = cj_zeros(ctx, CJ_F32, 1, &db1);
    c.mlp_in[3] = cj_mul(cj_reshape(cj_linspace(ctx, -1, 1, 512 * 10, CJ_F32), 2, dw2), cj_scalar(ctx, 0.05));
    c.mlp_in[4] = cj_zeros(ctx, CJ_F32, 1, &db2);
    for (int64_t b = 0; b < 256; b++)
        c.mlp_rows[b] = cj_reshape(cj_slice(c.mlp_in[0], (int64_t[]){b, 0}, (int64_t[]){b + 1, 784}, NULL), 1,
                                   (int64_t[]){784});
    int64_t mlp_axes[5] = {0, CJ_NOT_MAPPED, CJ_NOT_MAPPED, CJ_NOT_MAPPED, CJ_NOT_MAPPED};
    cj_vmap_opts mv = {mlp_axes, NULL, 0, 0, 0};
    cj_func *one = cj_func_new(ctx, "mlp", mlp_one, 5, 1, NULL);
    c.jmlp_vmap = cj_jit(cj_vmap(one, &mv), &wait);
    c.jmlp_one = cj_jit(one, &wait);
    int64_t dp[2] = {1000000, 16};
    c.pairs[0] = cj_reshape(cj_linspace(ctx, -1, 1, 16000000, CJ_F32), 2, dp);
    c.pairs[1] = cj_reshape(cj_linspace(ctx, 1, -1, 16000000, CJ_F32), 2, dp);
    c.jdots_vmap = cj_jit(cj_vmap(cj_func_new(ctx, "dot", dot_one, 2, 1, NULL), NULL), &wait);
    c.jdots_hand = cj_jit(cj_func_new(ctx, "dots", dot_hand, 2, 1, NULL), &wait);
    rnn_arg rnn;
    c.rnn = &rnn;
    if (rnn_setup(ctx, &rnn, &wait) != 0 || cj_error(ctx)) {
        fprintf(stderr, "bench: %s\n", cj_error(ctx) ? cj_error_message(ctx) : "out of memory");
        return 1;
    }

    char *peers = run_peers();
    struct {
        const char *name, *key;
        work_fn fn;
        double bytes;    /* minimum memory traffic, for the bandwidth fraction */
        double flops;    /* for the GEMM fraction */
        const char *jax_key;
    } rows[] = {
        {"add (eager)", "add", w_add, 3.0 * 4 * N, 0, NULL},
        {"sin (eager)", "sin", w_sin, 2.0 * 4 * N, 0, NULL},
        {"sin*cos+x*x (eager)", "sincos_eager", w_sincos_eager, 2.0 * 4 * N, 0, NULL},
        {"sin*cos+x*x (jit)", "sincos_eager", w_sincos_jit, 2.0 * 4 * N, 0, "sincos_jit"},
        {"matmul 1024 (eager)", "matmul_1024", w_matmul, 0, 2.0 * 1024 * 1024 * 1024, "matmul_1024"},
        {"a*x+b (jit)", "axb", w_axb_jit, 2.0 * 4 * N, 0, "axb_jit"},
        {"softmax 4096^2 (eager)", "softmax", w_softmax_eager, 2.0 * 4 * 4096 * 4096, 0, NULL},
        {"softmax 4096^2 (jit)", "softmax", w_softmax_jit, 2.0 * 4 * 4096 * 4096, 0, "softmax_jit"},
        {"1000 tiny jit calls", "tiny_calls", w_tiny_jit, 0, 0, "tiny_calls"},
        {"first call, 10 ops", "first_call", w_first_call, 0, 0, "first_call"},
        {"MLP fwd jit(vmap)", "mlp_vmap", w_mlp_vmap, 0, 0, NULL},
        {"MLP fwd hand-batched jit", "mlp_hand", w_mlp_hand, 0, 0, NULL},
        {"MLP fwd loop of 256 jit", "mlp_loop", w_mlp_loop, 0, 0, NULL},
        {"1e6 dots jit(vmap)", "dots_vmap", w_dots_vmap, 2.0 * 4 * 16e6, 0, NULL},
        {"1e6 dots hand-batched", "dots_hand", w_dots_hand, 2.0 * 4 * 16e6, 0, NULL},
        {"RNN 1000-step scan jit", "rnn_scan", w_rnn_scan, 0, 0, "rnn_scan_jit"},
        {"RNN 1000 steps plain C", "rnn_c", w_rnn_c, 0, 0, NULL},
    };
    double t_rnn_scan = 0, t_rnn_c = 0;
    printf("%-22s %10s %12s %10s %10s %10s %10s\n", "workload", "cjax ms", "of limit", "numpy ms",
           "cjax/np", "jax ms", "cjax/jax");
    FILE *js = fopen("bench/results/latest.json", "w");
    if (js) fprintf(js, "{\"copy_gbs\": %.2f, \"sgemm_gflops\": %.2f, \"rows\": [\n", bw, gflops);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        double t = median_ms(rows[i].fn, &c);
        if (rows[i].fn == w_rnn_scan) t_rnn_scan = t;
        if (rows[i].fn == w_rnn_c) t_rnn_c = t;
        char limit[32], np_s[16] = "missing", npr[16] = "-", jx_s[16] = "missing", jxr[16] = "-";
        if (rows[i].bytes > 0)
            snprintf(limit, sizeof limit, "%.0f%% bw", 100.0 * rows[i].bytes / (t * 1e6) / bw);
        else if (rows[i].flops == 0 && rows[i].fn == w_tiny_jit)
            snprintf(limit, sizeof limit, "%.2f us/call", t);
        else if (rows[i].flops == 0)
            snprintf(limit, sizeof limit, "-");
        else
            snprintf(limit, sizeof limit, "%.0f%% gemm", 100.0 * rows[i].flops / (t * 1e6) / gflops);
        double p;
        if (peer_ms(peers, "numpy", rows[i].key, &p)) {
            snprintf(np_s, sizeof np_s, "%.2f", p);
            snprintf(npr, sizeof npr, "%.2fx", t / p);
        }
        if (rows[i].jax_key && peer_ms(peers, "jax", rows[i].jax_key, &p)) {
            snprintf(jx_s, sizeof jx_s, "%.2f", p);
            snprintf(jxr, sizeof jxr, "%.2fx", t / p);
        } else if (!rows[i].jax_key) {
            snprintf(jx_s, sizeof jx_s, "-");
        }
        printf("%-22s %10.2f %12s %10s %10s %10s %10s\n", rows[i].name, t, limit, np_s, npr, jx_s, jxr);
        if (js)
            fprintf(js, "  {\"workload\": \"%s\", \"cjax_ms\": %.4f}%s\n", rows[i].name, t,
                    i + 1 < sizeof rows / sizeof rows[0] ? "," : "");
    }
    if (js) {
        fprintf(js, "], \"peers\": %s}\n", peers ? peers : "{}");
        fclose(js);
    }
    if (!peers) printf("\n(peers missing: `pip install numpy jax` to compare)\n");
    printf("\nRNN scan (1000 steps, hidden %d, input %d, f32, jit cc): %.2f ms = %.1f us/step; plain C loop %.2f ms; "
           "scan/C %.2fx (target <= 1.3x); max |h_scan - h_C| %.2g\n",
           RNN_HID, RNN_INP, t_rnn_scan, 1e3 * t_rnn_scan / RNN_STEPS, t_rnn_c, t_rnn_scan / t_rnn_c,
           rnn_max_diff(&rnn));
    double t_whole, t_chunked;
    size_t p_whole = vmap_peak_bytes(0, &t_whole), p_chunked = vmap_peak_bytes(8, &t_chunked);
    printf("\nvmap of a 512x512 outer product per example, 128 examples (eager): peak %.1f MiB in %.1f ms at once, "
           "%.1f MiB in %.1f ms in chunks of 8 (%.2fx the memory)\n",
           p_whole / 1048576.0, t_whole, p_chunked / 1048576.0, t_chunked, (double)p_chunked / (double)p_whole);
    cj_program_info info;
    cj_memory_analysis mem;
    if (cj_jit_program_info(c.jf, &c.x, &info) == CJ_OK && cj_jit_memory_analysis(c.jf, &c.x, &mem) == CJ_OK)
        printf("\nsin*cos+x*x under jit: %d kernel(s), temporaries %zu bytes, generated C %s (%.0f ms compile%s)%s%s\n",
               info.n_kernels, mem.temp_bytes, info.native ? "in use" : "not in use", info.compile_ms,
               info.from_disk_cache ? ", from the disk cache" : "", info.compile_error[0] ? ": " : "",
               info.compile_error);
    printf("\ncjax/peer < 1 means cjax is faster. Ratios are within this run; the machine is noisy.\n");
    free(peers);
    rnn_free(&rnn);
    free(src), free(dst), free(ga), free(gb), free(gc);
    cj_ctx_free(ctx);
    return 0;
}
