/* test_threads.c — thread safety: what holds when a program uses cjax from
 * several threads, each with its own context (contexts are single-threaded;
 * include/cjax.h). Process-wide state is the worker pool, the configuration,
 * the GEMM scratch, the C backend's compiler table, in-flight builds and disk
 * cache; these tests run real work through all of it at once and compare
 * every result with a plain C reference, and `make tsan` runs them under
 * ThreadSanitizer. Threads never CHECK (the harness is single-threaded):
 * each records its first problem and the main thread reports it. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/cc_build.h"
#include "backend/program_impl.h"
#include "harness.h"
#include "runtime/threads.h"

#define MAX_WORKERS 8

typedef struct worker {
    int id;
    pthread_barrier_t *start;
    int started;
    char problem[512]; /* the first mismatch or cjax error; "" when all held */
    char message[512]; /* thread_failing_compiler_...: the error each got */
    int native, from_disk_cache;
    const char *compiler; /* thread_failing_compiler_...: the fake compiler */
    const char *cache_dir;
    pthread_t owner;           /* the thread using the context ... */
    atomic_long foreign_calls; /* ... and allocator calls made from others */
} worker;

__attribute__((format(printf, 2, 3))) static void note(worker *w, const char *fmt, ...) {
    if (w->problem[0]) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->problem, sizeof w->problem, fmt, ap);
    va_end(ap);
}

/* Records a cjax error (if any) and says whether there was one. */
static int failed(worker *w, cj_ctx *ctx, const char *step) {
    if (cj_error(ctx) == CJ_OK) return 0;
    note(w, "thread %d, %s: %s", w->id, step, cj_error_message(ctx));
    return 1;
}

/* |got - want| within rtol of `scale`: the size of the terms that made
 * want (a sum near zero is only as exact as its terms are large). */
static int close_enough(double got, double want, double scale, double rtol) {
    return fabs(got - want) <= rtol * scale;
}

static void run_workers(worker *w, int n, void *(*main_fn)(void *)) {
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, (unsigned)n);
    pthread_t t[MAX_WORKERS];
    for (int i = 0; i < n; i++) {
        w[i].id = i;
        w[i].start = &start;
        w[i].started = pthread_create(&t[i], NULL, main_fn, &w[i]) == 0;
        if (!w[i].started) { /* stand in at the barrier, so the others go on */
            snprintf(w[i].problem, sizeof w[i].problem, "thread %d: pthread_create failed", i);
            pthread_barrier_wait(&start);
        }
    }
    for (int i = 0; i < n; i++)
        if (w[i].started) pthread_join(t[i], NULL);
    pthread_barrier_destroy(&start);
}

/* ---- a fresh cache directory, so the C compiler really runs ---- */

typedef struct private_cache {
    char dir[64];
} private_cache;

static int cache_open(private_cache *c) {
    snprintf(c->dir, sizeof c->dir, "/tmp/cjax-threads-XXXXXX");
    if (!mkdtemp(c->dir)) {
        th_fail(__FILE__, __LINE__, "mkdtemp: %s", strerror(errno));
        return 0;
    }
    cc_build_options o = {NULL, NULL, c->dir, 0};
    native_set_build_options_for_testing(&o);
    return 1;
}

static void cache_close(private_cache *c) {
    native_set_build_options_for_testing(NULL);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", c->dir);
    if (system(cmd) != 0) printf("    (could not remove %s)\n", c->dir);
}

static int compiler_available(void) {
    char why[512];
    if (cc_compiler_identity(NULL, why, sizeof why) == 0) return 1;
    printf("    (no C compiler, the compile-once check is skipped: %s)\n", why);
    return 0;
}

/* ---- many threads, one jitted function, first use at once ---- */

enum { ROWS = 24, COLS = 100 };

/* y = tanh(x)*x + x*x/4, and each row's sum: one LOOP and one ROWS kernel. */
static void f_shared(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    cj_val x = in[0];
    cj_val y = cj_add(cj_mul(cj_tanh(x), x), cj_mul(cj_scalar(ctx, 0.25), cj_mul(x, x)));
    out[0] = y;
    out[1] = cj_sum(y, 1, (int64_t[]){1}, 0);
}

static float shared_input(int id, int i) { return (float)sin(0.37 * i + id) * 2.5f; }

static void *jit_same_main(void *arg) {
    worker *w = arg;
    cj_ctx *ctx = cj_ctx_new(NULL);
    static float x[MAX_WORKERS][ROWS * COLS], y[MAX_WORKERS][ROWS * COLS], s[MAX_WORKERS][ROWS];
    for (int i = 0; i < ROWS * COLS; i++) x[w->id][i] = shared_input(w->id, i);
    cj_val xv = cj_array(ctx, CJ_F32, 2, (int64_t[]){ROWS, COLS}, x[w->id]);
    cj_jit_opts o = {0, NULL, 0, NULL, CJ_BACKEND_CC};
    cj_func *jf = cj_jit(cj_func_new(ctx, "shared", f_shared, 1, 2, NULL), &o);
    pthread_barrier_wait(w->start); /* trace, compile and run all at once */
    for (int rep = 0; rep < 2 && !failed(w, ctx, "setup"); rep++) {
        cj_val out[2] = {{0}, {0}};
        cj_call(jf, &xv, out);
        cj_read(out[0], y[w->id], sizeof y[0]);
        cj_read(out[1], s[w->id], sizeof s[0]);
        if (failed(w, ctx, "call")) break;
        for (int r = 0; r < ROWS; r++) {
            double sum = 0, size = 1e-30;
            for (int c = 0; c < COLS; c++) {
                double v = x[w->id][r * COLS + c];
                double want = tanh(v) * v + 0.25 * v * v;
                sum += want;
                size += fabs(want);
                if (!close_enough(y[w->id][r * COLS + c], want, fabs(want) + 1e-30, 1e-5))
                    note(w, "thread %d: y[%d,%d] = %.9g, want %.9g", w->id, r, c, y[w->id][r * COLS + c], want);
            }
            if (!close_enough(s[w->id][r], sum, size, 1e-5))
                note(w, "thread %d: sum of row %d = %.9g, want %.9g", w->id, r, s[w->id][r], sum);
        }
    }
    cj_program_info info;
    memset(&info, 0, sizeof info);
    if (cj_jit_program_info(jf, &xv, &info) == CJ_OK) {
        w->native = info.native;
        w->from_disk_cache = info.from_disk_cache;
        if (!info.native) note(w, "thread %d: not on generated C: %s", w->id, info.compile_error);
    }
    failed(w, ctx, "program info");
    cj_ctx_free(ctx);
    return NULL;
}

TEST(thread_same_jit_first_use_compiles_once) {
    if (!compiler_available()) return;
    private_cache cache;
    if (!cache_open(&cache)) return;
    worker w[MAX_WORKERS];
    memset(w, 0, sizeof w);
    long before = cc_build_compiles();
    run_workers(w, MAX_WORKERS, jit_same_main);
    long compiles = cc_build_compiles() - before;
    cache_close(&cache);
    int compiled_here = 0;
    for (int i = 0; i < MAX_WORKERS; i++) {
        CHECK_MSG(!w[i].problem[0], "%s", w[i].problem);
        CHECK(w[i].native);
        compiled_here += !w[i].from_disk_cache;
    }
    CHECK_EQ_INT(compiles, 1);
    CHECK_EQ_INT(compiled_here, 1); /* the others loaded its file */
}

/* ---- a failing compiler: one run, every waiter gets its error ---- */

static void *build_fails_main(void *arg) {
    worker *w = arg;
    cj_ctx *ctx = cj_ctx_new(NULL);
    cc_build_options o = {w->compiler, NULL, w->cache_dir, 0};
    pthread_barrier_wait(w->start);
    cc_module *m = cc_build_with(ctx, "int threads_fail(void) { return 1; }\n", &o, NULL);
    if (m) note(w, "thread %d: a failing compiler built a module", w->id);
    else if (cj_error(ctx) != CJ_ERR_UNSUPPORTED) note(w, "thread %d: %s", w->id, cj_error_message(ctx));
    snprintf(w->message, sizeof w->message, "%s", cj_error_message(ctx));
    cc_module_free(ctx, m);
    cj_ctx_free(ctx);
    return NULL;
}

TEST(thread_failing_compiler_runs_once_for_all_waiters) {
    char root[] = "/tmp/cjax-threads-cc-XXXXXX";
    CHECK(mkdtemp(root) != NULL);
    char script[128], cache[128];
    snprintf(script, sizeof script, "%s/slow_failing_cc", root);
    snprintf(cache, sizeof cache, "%s/cache", root);
    FILE *fp = fopen(script, "w");
    CHECK(fp != NULL);
    /* Slow enough that every thread joins the build in flight. */
    fprintf(fp, "#!/bin/sh\n[ \"$1\" = --version ] && { echo slow-failing-cc 1.0; exit 0; }\n"
                "sleep 0.5\necho 'source.c:1: error: no such thing' >&2\nexit 1\n");
    fclose(fp);
    CHECK(chmod(script, 0755) == 0);
    enum { N = 6 };
    worker w[N];
    memset(w, 0, sizeof w);
    for (int i = 0; i < N; i++) w[i].compiler = script, w[i].cache_dir = cache;
    long before = cc_build_compiles();
    run_workers(w, N, build_fails_main);
    long compiles = cc_build_compiles() - before;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK(system(cmd) == 0);
    for (int i = 0; i < N; i++) {
        CHECK_MSG(!w[i].problem[0], "%s", w[i].problem);
        CHECK_STR_CONTAINS(w[i].message, "failed (exit status 1)");
        CHECK_STR_CONTAINS(w[i].message, "no such thing");
    }
    /* one build: the compile and its retry without -march=native */
    CHECK_EQ_INT(compiles, 2);
}

/* ---- separate contexts doing everything at once ---- */

enum { BIG = 1 << 16, M = 72, K = 80, NN = 64, B = 16, L = 40, STEPS = 20 };

static void f_row_energy(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_sum(cj_mul(cj_sin(in[0]), in[0]), -1, NULL, 0); /* sum(sin(x) * x) */
}

static void f_halving_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u; /* in: i, c, x → c/2 + x, x */
    out[0] = cj_add(cj_mul(in[1], cj_scalar(ctx, 0.5)), in[2]);
    out[1] = in[2];
}

static void f_halving(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx;
    cj_val init[2] = {cj_zeros_like(in[0]), in[0]}, res[2];
    cj_fori_loop(0, STEPS, (cj_func *)u, 2, init, res);
    out[0] = res[0];
}

static void f_tiered(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    out[0] = cj_sub(cj_mul(in[0], in[0]), cj_mul(cj_scalar(ctx, 3.0), in[0]));
}

static double *doubles(int64_t n, int id, double scale) {
    double *v = malloc(sizeof(double) * (size_t)n);
    for (int64_t i = 0; i < n; i++) v[i] = sin(0.013 * (double)i + 0.7 * id) * scale;
    return v;
}

static void eager_work(worker *w, cj_ctx *ctx) {
    /* a large elementwise + reduction (the pool), and a product (GEMM scratch) */
    double *x = doubles(BIG, w->id, 1.0), *a = doubles(M * K, w->id + 10, 1.0),
           *b = doubles(K * NN, w->id + 20, 1.0), *c = malloc(sizeof(double) * M * NN);
    int64_t n = BIG;
    cj_val xv = cj_array(ctx, CJ_F64, 1, &n, x);
    double got = cj_item_or_nan(cj_sum(cj_add(cj_mul(xv, xv), cj_scalar(ctx, 1.0)), -1, NULL, 0));
    double want = 0;
    for (int i = 0; i < BIG; i++) want += x[i] * x[i] + 1;
    if (!failed(w, ctx, "eager sum") && !close_enough(got, want, want, 1e-12))
        note(w, "thread %d: eager sum %.17g, want %.17g", w->id, got, want);
    cj_val p = cj_matmul(cj_array(ctx, CJ_F64, 2, (int64_t[]){M, K}, a), cj_array(ctx, CJ_F64, 2, (int64_t[]){K, NN}, b));
    cj_read(p, c, sizeof(double) * M * NN);
    for (int ij = 0; ij < M * NN && !failed(w, ctx, "matmul") && !w->problem[0]; ij++) {
        int i = ij / NN, j = ij % NN;
        double s = 0, size = 0;
        for (int k = 0; k < K; k++) {
            s += a[i * K + k] * b[k * NN + j];
            size += fabs(a[i * K + k] * b[k * NN + j]);
        }
        if (!close_enough(c[ij], s, size, 1e-12))
            note(w, "thread %d: matmul[%d,%d] = %.17g, want %.17g", w->id, i, j, c[ij], s);
    }
    free(x);
    free(a);
    free(b);
    free(c);
}

static void transform_work(worker *w, cj_ctx *ctx, cj_func *energy, cj_func *halving, cj_func *tiered) {
    double *x = doubles(B * L, w->id, 2.0);
    cj_val xv = cj_array(ctx, CJ_F64, 2, (int64_t[]){B, L}, x);
    double got[B * L];
    /* vmap: each row's energy */
    cj_val e;
    cj_call(cj_vmap(energy, NULL), &xv, &e);
    cj_read(e, got, sizeof(double) * B);
    for (int r = 0; r < B && !failed(w, ctx, "vmap"); r++) {
        double want = 0, size = 0;
        for (int i = 0; i < L; i++) {
            want += sin(x[r * L + i]) * x[r * L + i];
            size += fabs(sin(x[r * L + i]) * x[r * L + i]);
        }
        if (!close_enough(got[r], want, size, 1e-12)) note(w, "thread %d: vmap row %d = %.17g, want %.17g", w->id, r, got[r], want);
    }
    /* grad: d/dx sum(sin(x) x) = cos(x) x + sin(x) */
    cj_val g;
    cj_call(cj_grad(energy, NULL), &xv, &g);
    cj_read(g, got, sizeof got);
    for (int i = 0; i < B * L && !failed(w, ctx, "grad"); i++) {
        double want = cos(x[i]) * x[i] + sin(x[i]);
        if (!close_enough(got[i], want, fabs(cos(x[i]) * x[i]) + fabs(sin(x[i])), 1e-12)) {
            note(w, "thread %d: grad[%d] = %.17g, want %.17g", w->id, i, got[i], want);
            break;
        }
    }
    /* control flow under jit: STEPS of c = c/2 + x from 0 is 2x(1 - 2^-STEPS) */
    cj_val h;
    cj_jit_opts interp = {0, NULL, 0, NULL, CJ_BACKEND_INTERP};
    cj_call(cj_jit(halving, &interp), &xv, &h);
    cj_read(h, got, sizeof got);
    for (int i = 0; i < B * L && !failed(w, ctx, "fori_loop"); i++) {
        double want = 2 * x[i] * (1 - ldexp(1, -STEPS));
        if (!close_enough(got[i], want, fabs(x[i]), 1e-14)) {
            note(w, "thread %d: fori_loop[%d] = %.17g, want %.17g", w->id, i, got[i], want);
            break;
        }
    }
    /* tiered jit: the interpreter, then generated C once the background
     * build (shared by all threads) lands; the same results either way */
    for (int rep = 0; rep < 4; rep++) {
        cj_val t;
        cj_call(tiered, &xv, &t);
        cj_read(t, got, sizeof got);
        for (int i = 0; i < B * L && !failed(w, ctx, "tiered jit"); i++) {
            double want = x[i] * x[i] - 3.0 * x[i]; /* may be contracted to an fma */
            if (!close_enough(got[i], want, x[i] * x[i] + fabs(3.0 * x[i]), 1e-15)) {
                note(w, "thread %d: tiered[%d] = %.17g, want %.17g", w->id, i, got[i], want);
                break;
            }
        }
    }
    free(x);
}

/* The context's allocator: counts calls from any thread but its owner (the
 * pool's workers and background builds must never call it). */
static void *owner_alloc(void *user, size_t size, size_t align) {
    worker *w = user;
    if (!pthread_equal(pthread_self(), w->owner)) atomic_fetch_add(&w->foreign_calls, 1);
    void *p = NULL;
    return posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size ? size : 1) == 0 ? p : NULL;
}

static void owner_free(void *user, void *p, size_t size) {
    worker *w = user;
    (void)size;
    if (!pthread_equal(pthread_self(), w->owner)) atomic_fetch_add(&w->foreign_calls, 1);
    free(p);
}

static void *everything_main(void *arg) {
    worker *w = arg;
    w->owner = pthread_self();
    cj_allocator al = {owner_alloc, owner_free, w};
    cj_ctx *ctx = cj_ctx_new(&al);
    cj_func *energy = cj_func_new(ctx, "energy", f_row_energy, 1, 1, NULL);
    cj_func *body = cj_func_new(ctx, "halving_body", f_halving_body, 3, 2, NULL);
    cj_func *halving = cj_func_new(ctx, "halving", f_halving, 1, 1, body);
    cj_jit_opts tiered_opts = {0, NULL, 0, NULL, CJ_BACKEND_TIERED};
    cj_func *tiered = cj_jit(cj_func_new(ctx, "tiered", f_tiered, 1, 1, NULL), &tiered_opts);
    pthread_barrier_wait(w->start);
    for (int round = 0; round < 3 && !w->problem[0]; round++) {
        cj_scope_begin(ctx);
        eager_work(w, ctx);
        transform_work(w, ctx, energy, halving, tiered);
        cj_scope_end(ctx, 0, NULL);
    }
    failed(w, ctx, "the end");
    cj_ctx_free(ctx);
    return NULL;
}

TEST(thread_contexts_run_eager_vmap_grad_control_flow_concurrently) {
    private_cache cache; /* the tiered builds compile into a private cache */
    if (!cache_open(&cache)) return;
    enum { N = 4 };
    worker w[N];
    memset(w, 0, sizeof w);
    run_workers(w, N, everything_main);
    cache_close(&cache);
    for (int i = 0; i < N; i++) {
        CHECK_MSG(!w[i].problem[0], "%s", w[i].problem);
        CHECK_EQ_INT(atomic_load(&w[i].foreign_calls), 0);
    }
}

/* ---- the worker pool from several threads at once ---- */

enum { POOL_N = 20000, POOL_GRAIN = 700, POOL_REPS = 30 };

typedef struct pool_job {
    unsigned char *hits;
    int nested; /* each range runs another parallel loop inside (serially) */
} pool_job;

static void mark_inner(void *arg, int64_t begin, int64_t end) {
    unsigned char *hits = arg;
    for (int64_t i = begin; i < end; i++) hits[i]++;
}

static void mark(void *arg, int64_t begin, int64_t end) {
    pool_job *j = arg;
    if (j->nested)
        rt_parallel_for(end - begin, 64, mark_inner, j->hits + begin);
    else
        mark_inner(j->hits, begin, end);
}

static void *pool_main(void *arg) {
    worker *w = arg;
    static unsigned char hits[MAX_WORKERS][POOL_N];
    pthread_barrier_wait(w->start);
    for (int rep = 0; rep < POOL_REPS && !w->problem[0]; rep++) {
        memset(hits[w->id], 0, POOL_N);
        pool_job j = {hits[w->id], rep % 2};
        rt_parallel_for(POOL_N, POOL_GRAIN, mark, &j);
        for (int i = 0; i < POOL_N; i++)
            if (hits[w->id][i] != 1) {
                note(w, "thread %d, rep %d: element %d visited %d times", w->id, rep, i, hits[w->id][i]);
                break;
            }
    }
    return NULL;
}

TEST(thread_pool_shared_by_several_callers) {
    CHECK(rt_num_threads() >= 1);
    enum { N = 4 };
    worker w[N];
    memset(w, 0, sizeof w);
    run_workers(w, N, pool_main);
    for (int i = 0; i < N; i++) CHECK_MSG(!w[i].problem[0], "%s", w[i].problem);
}
