/* bench_main.c — `make bench`: cjax side by side with NumPy and JAX on CPU,
 * and with this machine's limits, all measured in one run.
 *
 * For each workload (bench_work.h; the same ones in bench/peers.py) one
 * table row: the median time of cjax eager, cjax jit on the interpreter
 * (CJ_BACKEND_INTERP), cjax jit with generated C (CJ_BACKEND_CC), NumPy,
 * and jax.jit on CPU; the ratios jit-cc / NumPy and jit-cc / JAX; the
 * fraction of the relevant limit cjax's jit-cc reaches (memory bandwidth for
 * elementwise and row work, peak FLOP/s for dot-heavy work; bench_limits.h
 * measures both, and the sgemm rate); and peak memory, cjax's
 * cj_jit_memory_analysis next to XLA's memory_analysis. The first-call rows
 * time a cold start instead: a fresh context and an empty disk cache (the
 * whole run uses a temporary CJAX_CACHE_DIR, so the C compiler is never
 * hidden by an earlier run). Peers that are not installed show as
 * "missing"; without python3 only cjax's columns and the limits appear.
 *
 * The run is also written to bench/results/<name>.json (the fields are
 * described in bench/results/README.md). Then the control rows (issue 14:
 * a small-state ODE by scan, vmap(hessian), an eager grad of a scan;
 * bench_ctrl.h), timed against JAX in alternating rounds and checked
 * against references; a failed check makes the exit status 1.
 * Options: --name NAME (default: the date and time), --only KEY[,KEY...]
 * (workloads whose key contains one; the control rows' keys are
 * ctrl_<row>, so `--only ctrl` runs just them), --no-peers, --reps N,
 * --rounds N (the control rows' rounds). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjax.h>

#include "bench_limits.h"
#include "bench_peers.h"
#include "bench_report.h"
#include "bench_util.h"
#include "bench_work.h"

/* OpenBLAS, when cjax is linked with it, is asked to use the same number of
 * threads as cjax's pool (weak: absent without OpenBLAS). */
extern int openblas_get_num_threads(void) __attribute__((weak));
extern void openblas_set_num_threads(int n) __attribute__((weak));

#define MAX_REPS 31
#define FIRST_REPS 5
#define BUDGET_MS 2000.0 /* stop repeating after this much (at least 3 runs) */

/* The table's rows: each workload's least memory traffic or its flops. */
#define N_ELEMS ((double)WORK_N)
#define F32 4.0
#define MLP_FWD_FLOPS (2.0 * MLP_B * (MLP_I * MLP_H + MLP_H * MLP_O))
/* forward, then the two weight gradients and the hidden layer's gradient */
#define MLP_STEP_FLOPS (MLP_FWD_FLOPS + 2.0 * MLP_B * (MLP_I * MLP_H + 2.0 * MLP_H * MLP_O))
#define PEX_PARAMS ((double)PEX_I * PEX_H + PEX_H + PEX_H * PEX_O + PEX_O)

/* a row limited by memory bandwidth, and one by FLOP/s */
#define BW(k, n, mk, rd, wr) {.key = k, .name = n, .make = mk, .read_bytes = rd, .write_bytes = wr}
#define DOTS_ROW(k, n, mk, fl) {.key = k, .name = n, .make = mk, .flops = fl}
static row rows[] = {
    BW("add", "add, 1e7", make_add, 2 * F32 * N_ELEMS, F32 * N_ELEMS),
    BW("sin", "sin, 1e7", make_sin, F32 * N_ELEMS, F32 * N_ELEMS),
    BW("axb", "a*x+b, 1e7", make_axb, F32 * N_ELEMS, F32 * N_ELEMS),
    BW("sincos", "sin*cos+x*x, 1e7", make_sincos, F32 * N_ELEMS, F32 * N_ELEMS),
    BW("tanh_sum", "sum(tanh(a*x+b)*c+d), 1e7", make_tanh_sum, F32 * N_ELEMS, 0),
    BW("softmax", "softmax rows, 4096x4096", make_softmax, F32 * SM_ROWS * SM_COLS, F32 * SM_ROWS * SM_COLS),
    BW("layernorm", "layer-norm rows, 8192x1024", make_layernorm, F32 * LN_ROWS * LN_COLS, F32 * LN_ROWS * LN_COLS),
    DOTS_ROW("matmul", "matmul 1024^3", make_matmul, 2.0 * MM * MM * MM),
    DOTS_ROW("matmul_bias_relu", "relu(matmul+bias), 1024", make_matmul_bias_relu, 2.0 * MM * MM * MM),
    DOTS_ROW("mlp_fwd", "MLP fwd 256x784>512>10", make_mlp_fwd, MLP_FWD_FLOPS),
    DOTS_ROW("mlp_fwd_vmap", "  same, vmap of 1 example", make_mlp_fwd_vmap, MLP_FWD_FLOPS),
    {.key = "mlp_fwd_loop", .name = "  same, 256 calls of 1", .make = make_mlp_fwd_loop, .run = run_mlp_loop,
     .flops = MLP_FWD_FLOPS},
    DOTS_ROW("train_step", "MLP train step (v&g+SGD)", make_train_step, MLP_STEP_FLOPS),
    BW("per_example_grads", "per-example grads, 256", make_per_example_grads,
       F32 * (PEX_PARAMS + PEX_B * (PEX_I + PEX_O)), F32 * PEX_B * PEX_PARAMS),
    BW("dots_vmap", "1e6 dots of 16, vmap", make_dots_vmap, 2 * F32 * DOTS * DOT_LEN, F32 * DOTS),
    BW("dots_hand", "1e6 dots of 16, by hand", make_dots_hand, 2 * F32 * DOTS * DOT_LEN, F32 * DOTS),
    DOTS_ROW("rnn_scan", "RNN scan, 1000 steps", make_rnn_scan,
             2.0 * RNN_STEPS * (RNN_HID * RNN_HID + RNN_HID * RNN_INP)),
    {.key = "cached_call", .name = "cached call x1000, f32[4]", .make = make_cached_call, .run = run_cached_calls},
    {.key = "first_call_small", .name = "first call: 10 ops, cold", .make = make_first_call_small, .first_call = 1},
    {.key = "first_call_step", .name = "first call: MLP step, cold", .make = make_train_step, .first_call = 1},
};
#define N_ROWS ((int)(sizeof rows / sizeof rows[0]))

static int reps = 9;
static int rounds = 3; /* the control rows' alternating rounds */

/* ---- the temporary disk cache ---- */
static char cache_dir[512];

static void cache_dir_empty(void) {
    DIR *d = opendir(cache_dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", cache_dir, e->d_name);
        unlink(path);
    }
    if (d) closedir(d);
}

/* Must run before cjax reads its configuration (on first use). */
static int cache_dir_make(void) {
    const char *tmp = getenv("TMPDIR");
    snprintf(cache_dir, sizeof cache_dir, "%s/cjax-bench-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(cache_dir)) return -1;
    return setenv("CJAX_CACHE_DIR", cache_dir, 1);
}

/* ---- timing ---- */
/* Reports and clears a cjax error; returns 1 if there was one. */
static int failed(cj_ctx *ctx, const row *r, const char *what) {
    if (!cj_error(ctx)) return 0;
    fprintf(stderr, "bench: %s (%s): %s\n", r->key, what, cj_error_message(ctx));
    cj_error_clear(ctx);
    return 1;
}

/* Median ms of calls of f on the row's inputs, after one warm-up call;
 * each call in a scope of its own (freeing the results is timed too, as
 * NumPy's and JAX's results are freed when dropped). NaN on error. */
static double median_call_ms(cj_ctx *ctx, row *r, cj_func *f, const char *what) {
    double t[MAX_REPS], spent = 0;
    int n = 0;
    cj_val out[8];
    for (int i = -1; i < reps; i++) {
        double t0 = now_ms();
        cj_scope_begin(ctx);
        if (r->run)
            r->run(f, r->in);
        else
            cj_call(f, r->in, out);
        cj_scope_end(ctx, 0, NULL);
        double dt = now_ms() - t0;
        if (failed(ctx, r, what)) return NAN;
        if (i < 0) continue;
        t[n++] = dt, spent += dt;
        if (n >= 3 && spent > BUDGET_MS) break;
    }
    qsort(t, (size_t)n, sizeof t[0], cmp_double);
    return t[n / 2];
}

static void measure_row(cj_ctx *ctx, row *r) {
    static const cj_jit_opts interp = {0, NULL, 0, NULL, CJ_BACKEND_INTERP}, cc = {0, NULL, 0, NULL, CJ_BACKEND_CC};
    r->ms[EAGER] = median_call_ms(ctx, r, r->fn, "eager");
    r->ms[INTERP] = median_call_ms(ctx, r, cj_jit(r->fn, &interp), "jit interp");
    cj_func *jc = r->jit_cc = cj_jit(r->fn, &cc);
    r->ms[CC] = median_call_ms(ctx, r, jc, "jit cc");
    cj_program_info info;
    if (cj_jit_program_info(jc, r->in, &info) == CJ_OK) {
        r->native = info.native, r->n_kernels = info.n_kernels;
        snprintf(r->cc_error, sizeof r->cc_error, "%s", info.compile_error ? info.compile_error : "");
        if (r->cc_error[0]) fprintf(stderr, "bench: %s: generated C not in use: %s\n", r->key, r->cc_error);
    }
    r->have_mem = cj_jit_memory_analysis(jc, r->in, &r->mem) == CJ_OK;
    failed(ctx, r, "program info");
}

/* Cold first calls: each in a fresh context with the disk cache emptied,
 * jit and call timed together; on the interpreter that is trace + prepare
 * + run, with generated C it adds the C compile (also kept on its own). */
static void measure_first_call(row *r) {
    r->ms[EAGER] = NAN;
    for (int mode = INTERP; mode <= CC; mode++) {
        double t[FIRST_REPS], c[FIRST_REPS];
        int n = 0, nc = 0;
        for (int rep = 0; rep < FIRST_REPS; rep++) {
            cj_ctx *ctx = cj_ctx_new(NULL);
            if (!ctx) break;
            cj_val in[8], out[8];
            cj_func *f = r->make(ctx, in);
            cache_dir_empty();
            cj_jit_opts opts = {0, NULL, 0, NULL, mode == CC ? CJ_BACKEND_CC : CJ_BACKEND_INTERP};
            double t0 = now_ms();
            cj_func *jf = cj_jit(f, &opts);
            cj_call(jf, in, out);
            double dt = now_ms() - t0;
            if (failed(ctx, r, "first call")) {
                cj_ctx_free(ctx);
                break;
            }
            cj_program_info info; /* of the program just made: no second compile */
            if (mode == CC && cj_jit_program_info(jf, in, &info) == CJ_OK) {
                c[nc++] = info.compile_ms, r->native = info.native, r->n_kernels = info.n_kernels;
                snprintf(r->cc_error, sizeof r->cc_error, "%s", info.compile_error ? info.compile_error : "");
                r->have_mem = cj_jit_memory_analysis(jf, in, &r->mem) == CJ_OK;
            }
            failed(ctx, r, "program info");
            t[n++] = dt;
            cj_ctx_free(ctx);
        }
        qsort(t, (size_t)n, sizeof t[0], cmp_double);
        r->ms[mode] = n ? t[n / 2] : NAN;
        if (mode == CC) {
            qsort(c, (size_t)nc, sizeof c[0], cmp_double);
            r->compile_ms = nc ? c[nc / 2] : NAN;
        }
    }
}

/* ---- extras: the RNN against plain C, vmap's chunked form ---- */

static void rnn_c_run(void *p) { rnn_c_loop(p); }

/* vmap's chunked form: per example an outer product 512 x 512 (1 MiB)
 * reduced to a row; 128 examples at once hold 128 of them, chunks of 8
 * hold 8. Each form runs in a fresh context so its allocator peak is its
 * own. Returns the peak bytes above the inputs, and the time. */
static void outer_rowsum(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user, (void)ctx;
    cj_val o = cj_sin(cj_mul(cj_expand_dims(in[0], 1), cj_expand_dims(in[0], 0)));
    int64_t ax = 1;
    out[0] = cj_sum(o, 1, &ax, 0);
}
static size_t vmap_peak_bytes(int64_t chunk, double *ms) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    *ms = NAN;
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

/* ---- main ---- */
static const char *only;

/* Whether --only (comma list of substrings) selects this key. */
static int selected(const char *key) {
    if (!only) return 1;
    const char *p = only;
    while (*p) {
        size_t n = strcspn(p, ",");
        char part[64];
        snprintf(part, sizeof part, "%.*s", (int)(n < 63 ? n : 63), p);
        if (n && strstr(key, part)) return 1;
        p += n + (p[n] == ',');
    }
    return 0;
}

static int usage(const char *prog, int rc) {
    fprintf(rc ? stderr : stdout,
            "usage: %s [--name NAME] [--only KEY[,KEY...]] [--no-peers] [--reps N] [--rounds N]\n"
            "  run from the repository root (bench/peers.py, bench/results/).\n"
            "  --name NAME   write bench/results/NAME.json (default: the date and time)\n"
            "  --only KEYS   only workloads whose key contains one of KEYS (`ctrl`: the control rows)\n"
            "  --no-peers    skip NumPy and JAX\n"
            "  --reps N      timed runs per figure (default 9; medians)\n"
            "  --rounds N    the control rows' rounds, cjax and JAX alternating (default 3, at most %d)\n",
            prog, CTRL_MAX_ROUNDS);
    return rc;
}

int main(int argc, char **argv) {
    const char *name = NULL;
    int use_peers = 1, use_peers_main = 1; /* peers at all; peers.py for the main table */
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--name") && i + 1 < argc)
            name = argv[++i];
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else if (!strcmp(argv[i], "--no-peers"))
            use_peers = use_peers_main = 0;
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else
            return usage(argv[0], strcmp(argv[i], "--help") && strcmp(argv[i], "-h") ? 2 : 0);
    }
    if (reps < 1 || reps > MAX_REPS) reps = reps < 1 ? 1 : MAX_REPS;
    char stamp[32];
    if (!name) {
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
        name = stamp;
    }
    if (!name[0] || name[0] == '.' || strchr(name, '/')) {
        fprintf(stderr, "bench: --name \"%s\": a file name is needed (no '/', not starting with '.')\n", name);
        return 2;
    }
    if (cache_dir_make() != 0) {
        fprintf(stderr, "bench: cannot make a temporary CJAX_CACHE_DIR under $TMPDIR or /tmp\n");
        return 1;
    }

    /* Threads: cjax's pool, OpenBLAS inside cjax and the peers' libraries
     * all get the same count, and say so. */
    run_info ri;
    memset(&ri, 0, sizeof ri);
    ri.name = name, ri.blas_threads = -1, ri.reps = reps, ri.first_call_reps = FIRST_REPS;
    int threads = rt_num_threads();
    if (openblas_get_num_threads && openblas_set_num_threads) {
        if (openblas_get_num_threads() != threads) openblas_set_num_threads(threads);
        ri.blas_threads = openblas_get_num_threads();
    }
    char tn[16];
    snprintf(tn, sizeof tn, "%d", threads);
    setenv("OPENBLAS_NUM_THREADS", tn, 0), setenv("OMP_NUM_THREADS", tn, 0), setenv("MKL_NUM_THREADS", tn, 0);
    if (threads == 1) setenv("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1", 0);
    machine_describe(&ri.machine);
    printf("cjax bench \"%s\" — %s, %d cores, %s; %s\n", name, ri.machine.cpu, ri.machine.cores, ri.machine.compiler,
           ri.machine.date);
    printf("threads: cjax pool %d, OpenBLAS in cjax %s%s; peers OPENBLAS_NUM_THREADS=%s OMP_NUM_THREADS=%s, XLA %s\n",
           threads, ri.blas_threads >= 0 ? "" : "none", ri.blas_threads >= 0 ? tn : "", getenv("OPENBLAS_NUM_THREADS"),
           getenv("OMP_NUM_THREADS"), getenv("XLA_FLAGS") ? getenv("XLA_FLAGS") : "default (all cores)");
    if (ri.blas_threads >= 0 && ri.blas_threads != threads)
        printf("  (OpenBLAS kept %d threads)\n", ri.blas_threads);
    printf("cold-start cache: CJAX_CACHE_DIR=%s (removed at the end)\n", cache_dir);

    /* The limits and peers.py serve the main table only: `--only ctrl`
     * skips them, so the control rows re-measure in seconds. */
    int main_rows = selected("vmap_chunk");
    for (int k = 0; k < N_ROWS; k++) main_rows |= selected(rows[k].key);
    if (!main_rows) {
        ri.limits.copy_gbs = ri.limits.fma_gflops = ri.limits.sgemm_gflops = NAN;
        ri.limits.fma_how = "not measured (no row of the main table selected)";
        ri.limits.threads = threads;
        use_peers_main = 0;
    } else if (limits_measure(&ri.limits, reps) != 0) {
        fprintf(stderr, "bench: out of memory measuring the limits\n");
        rmdir(cache_dir);
        return 1;
    }
    if (main_rows) printf("limits: copy %.1f GB/s (STREAM scale, %d threads), FMA peak %.0f GFLOP/s (%s), sgemm 1024 %.0f "
           "GFLOP/s (%s, %.0f%% of peak)\n",
           ri.limits.copy_gbs, threads, ri.limits.fma_gflops, ri.limits.fma_how, ri.limits.sgemm_gflops,
           rt_gemm_backend(), 100 * ri.limits.sgemm_gflops / ri.limits.fma_gflops);

    char *peers = NULL;
    if (use_peers_main) {
        fflush(stdout);
        fprintf(stderr, "bench: running NumPy and JAX (python3 bench/peers.py)...\n");
        peers = peers_run();
    }
    char vbuf[128], state_np[16], state_jax[16];
    snprintf(state_np, sizeof state_np, "%s", use_peers_main ? peer_state(peers, "numpy", vbuf, sizeof vbuf) : "skipped");
    snprintf(state_jax, sizeof state_jax, "%s", use_peers_main ? peer_state(peers, "jax", vbuf, sizeof vbuf) : "skipped");
    char py[32], npv[64], jv[64];
    if (main_rows)
        printf("peers: python %s, numpy %s, jax %s\n\n",
           !use_peers ? "skipped (--no-peers)" : peers ? peers_str(peers, "info.python", py, sizeof py) : "missing",
           strcmp(state_np, "installed") ? state_np : peers_str(peers, "info.numpy", npv, sizeof npv),
           strcmp(state_jax, "installed") ? state_jax : peers_str(peers, "info.jax", jv, sizeof jv));
    const char *np_absent = strcmp(state_np, "installed") ? state_np : "-";
    const char *jax_absent = strcmp(state_jax, "installed") ? state_jax : "-";

    cj_ctx *ctx = cj_ctx_new(NULL);
    if (!ctx) {
        fprintf(stderr, "bench: out of memory\n");
        free(peers);
        rmdir(cache_dir);
        return 1;
    }
    extras x = {NAN, NAN, NAN, NAN, NAN, 0, 0};
    if (main_rows) print_header();
    for (int k = 0; k < N_ROWS; k++) {
        row *r = &rows[k];
        r->ms[EAGER] = r->ms[INTERP] = r->ms[CC] = NAN;
        if (!selected(r->key)) {
            r->skipped = 1;
            continue;
        }
        if (r->first_call) {
            measure_first_call(r);
        } else {
            r->fn = r->make(ctx, r->in);
            if (!r->fn || failed(ctx, r, "inputs")) {
                r->skipped = 1;
                continue;
            }
            measure_row(ctx, r);
            if (r->make == make_rnn_scan && r->jit_cc) {
                x.rnn_scan_ms = r->ms[CC];
                x.rnn_c_ms = limits_median_ms(rnn_c_run, &the_rnn, reps);
                x.rnn_max_diff = rnn_max_diff(r->jit_cc);
                failed(ctx, r, "rnn check");
            }
        }
        print_row(r, &ri.limits, peers, np_absent, jax_absent);
    }
    if (selected("vmap_chunk")) {
        x.vmap_whole_bytes = vmap_peak_bytes(0, &x.vmap_whole_ms);
        x.vmap_chunked_bytes = vmap_peak_bytes(8, &x.vmap_chunked_ms);
    }
    if (main_rows) print_footnotes(rows, N_ROWS, &ri.limits, peers, &x);
    if (main_rows && !peers && use_peers)
        printf("\n(NumPy and JAX missing: no python3, or neither installed; `pip install numpy jax` to compare)\n");

    ctrl_run ctrl;
    ctrl_measure(&ctrl, ctx, selected, use_peers, rounds);
    ctrl_print(&ctrl);

    char path[600];
    snprintf(path, sizeof path, "bench/results/%s.json", name);
    if (write_json(path, &ri, rows, N_ROWS, peers, &x, &ctrl) == 0)
        printf("\nwritten: %s\n", path);
    else
        fprintf(stderr, "bench: could not write %s (run from the repository root)\n", path);

    free(peers);
    rnn_free(&the_rnn);
    cj_ctx_free(ctx);
    cache_dir_empty();
    rmdir(cache_dir);
    return ctrl.check_failed ? 1 : 0;
}
