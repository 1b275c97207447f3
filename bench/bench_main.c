/* bench_main.c — `make bench`: cjax side by side with NumPy and JAX on CPU,
 * and with this machine's limits, all measured in one run.
 *
 * For each workload (bench_work.h, bench_work_deep.h; the same ones in
 * bench/peers.py) one table row: cjax eager, cjax jit on the interpreter
 * (CJ_BACKEND_INTERP), cjax jit with generated C (CJ_BACKEND_CC), NumPy,
 * and jax.jit on CPU, timed in alternating rounds with the peers running
 * beside the bench (bench_rounds.h), in wall clock and process CPU time;
 * the ratios jit-cc / NumPy and jit-cc / JAX; the fraction of the relevant
 * limit cjax's jit-cc reaches (memory bandwidth for elementwise and row
 * work, peak FLOP/s for dot-heavy work; bench_limits.h measures both, and
 * the sgemm rate); peak and temporary memory, cjax's
 * cj_jit_memory_analysis next to XLA's memory_analysis; and the check of
 * every mode's result against NumPy's and JAX's (bench_check.h). The
 * first-call rows time a cold start instead: a fresh context and an empty
 * disk cache (the whole run uses a temporary CJAX_CACHE_DIR, so the C
 * compiler is never hidden by an earlier run). Peers that are not
 * installed show as "missing"; without python3 only cjax's columns and the
 * limits appear.
 *
 * The run is also written to bench/results/<name>.json (the fields are
 * described in bench/results/README.md). Then the control rows (issue 14:
 * a small-state ODE by scan, vmap(hessian), an eager grad of a scan;
 * bench_ctrl.h), timed against JAX in alternating rounds and checked
 * against references. A failed check anywhere makes the exit status 1.
 * Options: --name NAME (default: the date and time), --only KEY[,KEY...]
 * (workloads whose key contains one; the control rows' keys are
 * ctrl_<row>, so `--only ctrl` runs just them), --no-peers, --reps N,
 * --rounds N, --one-thread (CJAX_NUM_THREADS=1, and the bench pinned to one
 * CPU with its peers, which is what keeps XLA 0.10 on one thread). */
#define _GNU_SOURCE /* sched_setaffinity, sched_getcpu */
#include <dirent.h>
#include <math.h>
#include <sched.h>
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
#include "bench_rounds.h"
#include "bench_util.h"
#include "bench_work.h"
#include "bench_work_deep.h"
#include "bench_work_linalg.h"
#include "bench_work_gn.h"
#include "bench_work_composites.h"
#include "bench_work_cnn.h"
#include "bench_work_hlo.h"

/* OpenBLAS, when cjax is linked with it, is asked to use the same number of
 * threads as cjax's pool (weak: absent without OpenBLAS). */
extern int openblas_get_num_threads(void) __attribute__((weak));
extern void openblas_set_num_threads(int n) __attribute__((weak));

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
    BW("variance", "mean((x-mean(x))^2), 1e7", make_variance, F32 * N_ELEMS, 0),
    /* narrow floats: XLA computes the fused chain in f32 and rounds once,
     * cjax rounds after each primitive (each stored narrow): 1-2 ulp apart */
    {.key = "axb_y_bf16", .name = "(1.5x+0.25)*y, bf16, 1e7", .make = make_axb_y_bf16, .read_bytes = 4.0 * N_ELEMS,
     .write_bytes = 2.0 * N_ELEMS, .limit = 2e-2},
    {.key = "axb_y_f16", .name = "(1.5x+0.25)*y, f16, 1e7", .make = make_axb_y_f16, .read_bytes = 4.0 * N_ELEMS,
     .write_bytes = 2.0 * N_ELEMS, .limit = 4e-3},
    BW("softmax", "softmax rows, 4096x4096", make_softmax, F32 * SM_ROWS * SM_COLS, F32 * SM_ROWS * SM_COLS),
    BW("colsum", "sum(x*x, axis=0), 4096x4096", make_colsum, F32 * SM_ROWS * SM_COLS, F32 * SM_COLS),
    BW("colmean", "mean(relu(x), axis=0), 4096^2", make_colmean, F32 * SM_ROWS * SM_COLS, F32 * SM_COLS),
    /* x - mean cancels: a row spans 7e-4 around values up to 3, so f32 keeps
     * about 3 digits of it (NumPy and JAX differ by 1.2e-4 here) */
    {.key = "layernorm", .name = "layer-norm rows, 8192x1024", .make = make_layernorm,
     .read_bytes = F32 * LN_ROWS * LN_COLS, .write_bytes = F32 * LN_ROWS * LN_COLS, .limit = 1e-2},
    DOTS_ROW("matmul", "matmul 1024^3", make_matmul, 2.0 * MM * MM * MM),
    DOTS_ROW("matmul_bf16", "matmul 1024^3, bf16 in, f32 out", make_matmul_bf16, 2.0 * MM * MM * MM),
    DOTS_ROW("matmul_bias_relu", "relu(matmul+bias), 1024", make_matmul_bias_relu, 2.0 * MM * MM * MM),
    DOTS_ROW("mlp_fwd", "MLP fwd 256x784>512>10", make_mlp_fwd, MLP_FWD_FLOPS),
    DOTS_ROW("mlp_fwd_vmap", "  same, vmap of 1 example", make_mlp_fwd_vmap, MLP_FWD_FLOPS),
    {.key = "mlp_fwd_loop", .name = "  same, 256 calls of 1", .make = make_mlp_fwd_loop, .run = run_mlp_loop,
     .flops = MLP_FWD_FLOPS},
    /* the biases start at 0, so their updates are bare gradients: sums over
     * the batch that cancel (NumPy and JAX differ by 9.9e-4 on b1) */
    {.key = "train_step", .name = "MLP train step (v&g+SGD)", .make = make_train_step, .flops = MLP_STEP_FLOPS,
     .limit = 1e-2},
    BW("per_example_grads", "per-example grads, 256", make_per_example_grads,
       F32 * (PEX_PARAMS + PEX_B * (PEX_I + PEX_O)), F32 * PEX_B * PEX_PARAMS),
    /* issue 15's memory rows (bench_work_deep.h); the gradients' limit is
     * 1e-2: f32 rounding through 16 layers (NumPy and JAX differ by up to
     * 9.1e-4 on one bias gradient) */
    DOTS_ROW("mlp16_fwd", "16-layer tanh MLP loss", make_mlp16_fwd, DEEP_FWD_FLOPS),
    {.key = "mlp16_grad", .name = "16-layer tanh MLP grad", .make = make_mlp16_grad, .flops = DEEP_GRAD_FLOPS,
     .limit = 1e-2},
    {.key = "mlp16_grad_ck", .name = "  same, checkpoint/layer", .make = make_mlp16_grad_ck,
     .flops = DEEP_GRAD_FLOPS * 4 / 3, .limit = 1e-2},
    DOTS_ROW("transformer_fwd", "transformer block fwd", make_transformer_fwd, TB_FWD_FLOPS),
    {.key = "transformer_vg", .name = "  its value_and_grad", .make = make_transformer_vg, .flops = 3 * TB_FWD_FLOPS,
     .limit = 1e-2},
    /* issue 19: the same block as JAX exported it, imported from StableHLO
     * (bench_work_hlo.h) */
    DOTS_ROW("hlo_transformer_fwd", "  imported StableHLO", make_hlo_transformer_fwd, TB_FWD_FLOPS),
    {.key = "hlo_transformer_vg", .name = "  imported v&g", .make = make_hlo_transformer_vg,
     .flops = 3 * TB_FWD_FLOPS, .limit = 1e-2},
    /* issue 17's small CNN (bench_work_cnn.h): conv, relu, max_pool twice,
     * dense, logsumexp loss; f32 rounding through two convolutions */
    {.key = "cnn_fwd", .name = "CNN loss, 64x32x32x3", .make = make_cnn_fwd, .flops = CNN_FWD_FLOPS, .limit = 1e-3},
    {.key = "cnn_vg", .name = "  its value_and_grad", .make = make_cnn_vg, .flops = 3 * CNN_FWD_FLOPS, .limit = 1e-2},
    BW("dots_vmap", "1e6 dots of 16, vmap", make_dots_vmap, 2 * F32 * DOTS * DOT_LEN, F32 * DOTS),
    BW("dots_hand", "1e6 dots of 16, by hand", make_dots_hand, 2 * F32 * DOTS * DOT_LEN, F32 * DOTS),
    DOTS_ROW("rnn_scan", "RNN scan, 1000 steps", make_rnn_scan,
             2.0 * RNN_STEPS * (RNN_HID * RNN_HID + RNN_HID * RNN_INP)),
    /* sorting (issue 16): the limit is one read and one write of the data */
    BW("sort", "sort, 1e7 f32", make_sort, F32 * SORT_N, F32 * SORT_N),
    /* issue 17: an associative scan (the limit is one read and one write) */
    BW("cumlogsumexp", "cumlogsumexp rows, 8192x1024", make_cumlogsumexp, F32 * LN_ROWS * LN_COLS,
       F32 * LN_ROWS * LN_COLS),
    BW("top_k", "top_k 16 of 16 rows of 1e6", make_top_k, F32 * TOPK_ROWS * TOPK_LEN, 8.0 * TOPK_ROWS * TOPK_K),
    /* issue 16's linear-algebra rows (bench_work_linalg.h) */
    DOTS_ROW("chol_64", "cholesky, n=64", make_chol_64, LA_CHOL_FLOPS(64)),
    DOTS_ROW("chol_256", "cholesky, n=256", make_chol_256, LA_CHOL_FLOPS(256)),
    DOTS_ROW("chol_1024", "cholesky, n=1024", make_chol_1024, LA_CHOL_FLOPS(1024)),
    DOTS_ROW("solve_64", "solve, n=64", make_solve_64, LA_SOLVE_FLOPS(64, 1)),
    DOTS_ROW("solve_256", "solve, n=256", make_solve_256, LA_SOLVE_FLOPS(256, 1)),
    DOTS_ROW("solve_1024", "solve, n=1024", make_solve_1024, LA_SOLVE_FLOPS(1024, 1)),
    DOTS_ROW("chol_batch8", "cholesky, 10000 x 8x8", make_chol_batch8, LA_BATCH * LA_CHOL_FLOPS(8)),
    DOTS_ROW("solve_batch8", "solve, 10000 x 8x8", make_solve_batch8, LA_BATCH * LA_SOLVE_FLOPS(8, 1)),
    /* eigenvectors and singular vectors squared: f32 directions of close
     * eigenvalues agree to about eps·‖a‖/gap */
    {.key = "eigh_64", .name = "eigh, n=64", .make = make_eigh_64, .flops = LA_EIGH_FLOPS(64), .limit = 1e-2},
    {.key = "eigh_256", .name = "eigh, n=256", .make = make_eigh_256, .flops = LA_EIGH_FLOPS(256), .limit = 1e-2},
    {.key = "eigh_1024", .name = "eigh, n=1024", .make = make_eigh_1024, .flops = LA_EIGH_FLOPS(1024), .limit = 1e-2},
    {.key = "svd_64", .name = "svd, n=64", .make = make_svd_64, .flops = LA_SVD_FLOPS(64), .limit = 1e-2},
    {.key = "svd_256", .name = "svd, n=256", .make = make_svd_256, .flops = LA_SVD_FLOPS(256), .limit = 1e-2},
    {.key = "svd_1024", .name = "svd, n=1024", .make = make_svd_1024, .flops = LA_SVD_FLOPS(1024), .limit = 1e-2},
    /* f64: the squared vectors of G's closest singular values differ from
     * the peers' by 1.3e-6 at n = 1024 (eps·‖a‖/gap) */
    {.key = "svd64_256", .name = "svd f64, n=256", .make = make_svd64_256, .flops = LA_SVD_FLOPS(256), .limit = 1e-4},
    {.key = "svd64_1024", .name = "svd f64, n=1024", .make = make_svd64_1024, .flops = LA_SVD_FLOPS(1024),
     .limit = 1e-4},
    DOTS_ROW("qr_64", "qr, n=64", make_qr_64, LA_QR_FLOPS(64)),
    DOTS_ROW("qr_256", "qr, n=256", make_qr_256, LA_QR_FLOPS(256)),
    DOTS_ROW("qr_1024", "qr, n=1024", make_qr_1024, LA_QR_FLOPS(1024)),
    /* issue 16's Gauss–Newton step (bench_work_gn.h): jacfwd + solve of a
     * 100-parameter, 400-residual fit */
    DOTS_ROW("gn_step", "Gauss-Newton step, 100 params", make_gn_step, GN_FLOPS),
    {.key = "cached_call", .name = "cached call x1000, f32[4]", .make = make_cached_call, .run = run_cached_calls},
    {.key = "first_call_small", .name = "first call: 10 ops, cold", .make = make_first_call_small, .first_call = 1},
    {.key = "first_call_step", .name = "first call: MLP step, cold", .make = make_train_step, .first_call = 1,
     .limit = 1e-2},
};
#define N_ROWS ((int)(sizeof rows / sizeof rows[0]))

static int reps = 9;
static int rounds = 5; /* alternating rounds, cjax and the peers */

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
            "usage: %s [--name NAME] [--only KEY[,KEY...]] [--no-peers] [--reps N] [--rounds N] [--one-thread]\n"
            "  run from the repository root (bench/peers.py, bench/results/).\n"
            "  --name NAME   write bench/results/NAME.json (default: the date and time)\n"
            "  --only KEYS   only workloads whose key contains one of KEYS (`ctrl`: the control rows)\n"
            "  --no-peers    skip NumPy and JAX\n"
            "  --reps N      calls per series and round, at most (default 9; each stops after %.0f ms)\n"
            "  --rounds N    rounds, cjax and the peers alternating (default 5, at most %d; medians)\n"
            "  --one-thread  CJAX_NUM_THREADS=1, OpenBLAS/OMP/MKL on 1 thread, and the bench and its peers\n"
            "                pinned to one CPU (XLA sizes its pool by the CPUs it may use); also\n"
            "                implied by CJAX_NUM_THREADS=1 in the environment\n",
            prog, ROUND_MS, MAX_ROUNDS);
    return rc;
}

/* One-thread mode: this process (and so every peer it starts) may run on
 * the CPU it is on now only. XLA 0.10's CPU client sizes its thread pool by
 * the CPUs it may run on and ignores the older
 * XLA_FLAGS=--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1
 * (measured: two of its threads still did the work). Returns the CPU, or -1. */
static int pin_to_one_cpu(void) {
    int cpu = sched_getcpu();
    if (cpu < 0) return -1;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set) == 0 ? cpu : -1;
}

int main(int argc, char **argv) {
    const char *name = NULL;
    int use_peers = 1, one_thread = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--name") && i + 1 < argc)
            name = argv[++i];
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else if (!strcmp(argv[i], "--no-peers"))
            use_peers = 0;
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--one-thread"))
            one_thread = 1;
        else
            return usage(argv[0], strcmp(argv[i], "--help") && strcmp(argv[i], "-h") ? 2 : 0);
    }
    if (reps < 1 || reps > MAX_REPS) reps = reps < 1 ? 1 : MAX_REPS;
    if (rounds < 1 || rounds > MAX_ROUNDS) rounds = rounds < 1 ? 1 : MAX_ROUNDS;
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
     * all get the same count, and say so. Before cjax reads its
     * configuration (on first use). */
    if (one_thread) setenv("CJAX_NUM_THREADS", "1", 1);
    const char *nt = getenv("CJAX_NUM_THREADS");
    run_info ri;
    memset(&ri, 0, sizeof ri);
    ri.name = name, ri.blas_threads = -1, ri.reps = reps, ri.rounds = rounds, ri.pinned_cpu = -1;
    if (nt && atoi(nt) == 1) ri.pinned_cpu = pin_to_one_cpu();
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
    char pin[48] = "not pinned";
    if (ri.pinned_cpu >= 0) snprintf(pin, sizeof pin, "all pinned to CPU %d", ri.pinned_cpu);
    printf("threads: cjax pool %d, OpenBLAS in cjax %s%s; peers OPENBLAS_NUM_THREADS=%s OMP_NUM_THREADS=%s, XLA %s; %s\n",
           threads, ri.blas_threads >= 0 ? "" : "none", ri.blas_threads >= 0 ? tn : "", getenv("OPENBLAS_NUM_THREADS"),
           getenv("OMP_NUM_THREADS"), ri.pinned_cpu >= 0 ? "1 thread" : "default (all cores)", pin);
    if (threads == 1 && ri.pinned_cpu < 0) printf("  (could not pin to one CPU: XLA may use several threads)\n");
    if (ri.blas_threads >= 0 && ri.blas_threads != threads)
        printf("  (OpenBLAS kept %d threads)\n", ri.blas_threads);
    printf("cold-start cache: CJAX_CACHE_DIR=%s (removed at the end)\n", cache_dir);

    /* The limits and the peers serve the main table only: `--only ctrl`
     * skips them, so the control rows re-measure in seconds. */
    int main_rows = selected("vmap_chunk");
    for (int k = 0; k < N_ROWS; k++) main_rows |= selected(rows[k].key);
    main_peers peers;
    peers_open(&peers, use_peers && main_rows, reps);
    ri.peers_info = peers.info;
    if (!main_rows) {
        ri.limits.copy_gbs = ri.limits.fma_gflops = ri.limits.sgemm_gflops = NAN;
        ri.limits.fma_how = "not measured (no row of the main table selected)";
        ri.limits.threads = threads;
    } else if (limits_measure(&ri.limits, reps) != 0) {
        fprintf(stderr, "bench: out of memory measuring the limits\n");
        peers_close(&peers);
        rmdir(cache_dir);
        return 1;
    }
    if (main_rows) printf("limits: copy %.1f GB/s (STREAM scale, %d threads), FMA peak %.0f GFLOP/s (%s), sgemm 1024 %.0f "
           "GFLOP/s (%s, %.0f%% of peak)\n",
           ri.limits.copy_gbs, threads, ri.limits.fma_gflops, ri.limits.fma_how, ri.limits.sgemm_gflops,
           rt_gemm_backend(), 100 * ri.limits.sgemm_gflops / ri.limits.fma_gflops);

    char py[32], npv[64], jv[64];
    if (main_rows)
        printf("peers: python %s, numpy %s, jax %s\n\n",
               !use_peers ? "skipped (--no-peers)" : peers.up ? peers_str(peers.info, "info.python", py, sizeof py) : "missing",
               strcmp(peers.numpy, "installed") ? peers.numpy : peers_str(peers.info, "info.numpy", npv, sizeof npv),
               strcmp(peers.jax, "installed") ? peers.jax : peers_str(peers.info, "info.jax", jv, sizeof jv));
    const char *np_absent = strcmp(peers.numpy, "installed") ? peers.numpy : "-";
    const char *jax_absent = strcmp(peers.jax, "installed") ? peers.jax : "-";

    cj_ctx *ctx = cj_ctx_new(NULL);
    if (!ctx) {
        fprintf(stderr, "bench: out of memory\n");
        peers_close(&peers);
        rmdir(cache_dir);
        return 1;
    }
    extras x = {NAN, NAN, NAN, NAN, NAN, 0, 0};
    int check_failed = 0;
    if (main_rows) print_header();
    for (int k = 0; k < N_ROWS; k++) {
        row *r = &rows[k];
        for (int s = 0; s < N_SERIES; s++) r->ms[s] = NAN;
        if (!selected(r->key)) {
            r->skipped = 1;
            continue;
        }
        measure(ctx, r, &peers, rounds, reps);
        if (r->skipped) continue;
        check_failed |= r->check_failed;
        if (r->make == make_rnn_scan && r->jit_cc) {
            x.rnn_scan_ms = r->ms[CC];
            x.rnn_c_ms = limits_median_ms(rnn_c_run, &the_rnn, reps);
            x.rnn_max_diff = rnn_max_diff(r->jit_cc);
            row_failed(ctx, r, "rnn check");
        }
        print_row(r, &ri.limits, np_absent, jax_absent);
    }
    if (selected("vmap_chunk")) {
        x.vmap_whole_bytes = vmap_peak_bytes(0, &x.vmap_whole_ms);
        x.vmap_chunked_bytes = vmap_peak_bytes(8, &x.vmap_chunked_ms);
    }
    if (main_rows) print_footnotes(rows, N_ROWS, &ri.limits, &ri, &x);
    if (main_rows && !peers.up && use_peers)
        printf("\n(NumPy and JAX missing: no python3, or neither installed; `pip install numpy jax` to compare)\n");
    if (check_failed) printf("CHECK FAILED: see stderr\n");

    ctrl_run ctrl;
    ctrl_measure(&ctrl, ctx, selected, use_peers, rounds);
    ctrl_print(&ctrl);

    char path[600];
    snprintf(path, sizeof path, "bench/results/%s.json", name);
    if (write_json(path, &ri, rows, N_ROWS, &x, &ctrl) == 0)
        printf("\nwritten: %s\n", path);
    else
        fprintf(stderr, "bench: could not write %s (run from the repository root)\n", path);

    peers_close(&peers);
    rnn_free(&the_rnn);
    cj_ctx_free(ctx);
    cache_dir_empty();
    rmdir(cache_dir);
    return check_failed || ctrl.check_failed ? 1 : 0;
}
