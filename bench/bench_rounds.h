/* bench_rounds.h — how `make bench` measures a main-table row: cjax (eager,
 * jit on the interpreter, jit with generated C) and the peers (NumPy and
 * JAX, bench/peers.py kept running beside the bench as a co-process,
 * bench_coproc.h) in alternating rounds, after checking every result.
 *
 * Per row: peers.py's "prepare" (the peers' warm-up and compile, their
 * check records and XLA's memory_analysis), cjax's warm-up call in each
 * mode, whose results are checked against both peers' (bench_check.h; a
 * failed check makes the bench exit with status 1), then `rounds` rounds.
 * In each round every series (3 cjax modes, 2 peers) calls its workload
 * until ROUND_MS is spent or --reps calls are made (at least one) and keeps
 * the median per call in wall-clock and in process CPU time (all threads,
 * and waited-for children: the C compiler of a cold start); the peers go
 * first in odd rounds, cjax in even ones, so both see the same load. A
 * figure is the median over rounds; a ratio is the median of the rounds'
 * ratios. A bandwidth row (byte counts, no flops) also times a copy in
 * each round right after cjax's calls (limits_round_copy_gbs), and its
 * "copy" figure is the median of the rounds' jit-cc bytes/s over that
 * copy's. Nothing runs at the same time as anything timed: the peers wait
 * for their next request while cjax runs, and cjax waits for the answer.
 * Header-only: CMake makes one program per .c file in bench/. */
#ifndef CJ_BENCH_ROUNDS_H
#define CJ_BENCH_ROUNDS_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <cjax.h>

#include "bench_check.h"
#include "bench_coproc.h"
#include "bench_report.h"
#include "bench_util.h"

/* ---- the peers' co-process ---- */
typedef struct main_peers {
    coproc cp;
    int up;       /* the ready line came */
    char *info;   /* the ready line (versions, thread settings), kept */
    char numpy[96], jax[96]; /* "installed" (see info), "missing", "failed", "skipped" */
} main_peers;

static void peer_state_of(const char *info, const char *name, char *state, size_t size) {
    char key[32], v[96];
    snprintf(key, sizeof key, "info.%s", name);
    peers_str(info, key, v, sizeof v);
    snprintf(state, size, "%s", !v[0] || !strcmp(v, "missing") ? "missing"
                                : !strncmp(v, "failed", 6)    ? "failed"
                                                              : "installed");
}

/* Starts peers.py and waits until it has imported its peers and made the
 * inputs (before the limits are measured, so nothing overlaps them). */
static void peers_open(main_peers *p, int use, int reps) {
    memset(p, 0, sizeof *p);
    snprintf(p->numpy, sizeof p->numpy, "%s", use ? "missing" : "skipped");
    snprintf(p->jax, sizeof p->jax, "%s", use ? "missing" : "skipped");
    if (!use) return;
    char cmd[256];
    snprintf(cmd, sizeof cmd,
             "command -v python3 >/dev/null 2>&1 && exec python3 bench/peers.py serve --reps %d --round-ms %g",
             reps, ROUND_MS);
    fflush(stdout);
    fprintf(stderr, "bench: starting NumPy and JAX (python3 bench/peers.py serve)...\n");
    if (coproc_start(&p->cp, cmd) != 0) return;
    const char *ready = coproc_read(&p->cp);
    if (!ready) return;
    p->info = strdup(ready);
    p->up = p->info != NULL;
    peer_state_of(p->info, "numpy", p->numpy, sizeof p->numpy);
    peer_state_of(p->info, "jax", p->jax, sizeof p->jax);
}

static void peers_close(main_peers *p) {
    coproc_stop(&p->cp);
    free(p->info);
    p->info = NULL, p->up = 0;
}

/* ---- timing ---- */
/* Process CPU time (all threads) plus that of waited-for children. */
static double bench_cpu_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    struct rusage ru;
    double kids = 0;
    if (getrusage(RUSAGE_CHILDREN, &ru) == 0)
        kids = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6 + kids;
}

static double median_of(double *v, int n) {
    double s[MAX_REPS > MAX_ROUNDS ? MAX_REPS : MAX_ROUNDS];
    int m = 0;
    for (int i = 0; i < n; i++)
        if (isfinite(v[i])) s[m++] = v[i];
    if (!m) return NAN;
    qsort(s, (size_t)m, sizeof s[0], cmp_double);
    return s[m / 2];
}

/* Reports and clears a cjax error; returns 1 if there was one. */
static int row_failed(cj_ctx *ctx, const row *r, const char *what) {
    if (!cj_error(ctx)) return 0;
    fprintf(stderr, "bench: %s (%s): %s\n", r->key, what, cj_error_message(ctx));
    cj_error_clear(ctx);
    return 1;
}

/* A call of the row's function as timed: in a scope of its own (freeing
 * the results is timed too, as NumPy's and JAX's are freed when dropped).
 * Not inlined, so callgrind can count the steady state alone
 * (--toggle-collect=row_call_once). */
__attribute__((noinline)) static void row_call_once(cj_ctx *ctx, const row *r, cj_func *f) {
    cj_val out[ROW_MAX_OUT];
    cj_scope_begin(ctx);
    if (r->run)
        r->run(f, r->in);
    else
        cj_call(f, r->in, out);
    cj_scope_end(ctx, 0, NULL);
}

/* A cold first call: a fresh context and an empty disk cache, jit and call
 * timed together (on the interpreter trace + prepare + run; with generated
 * C also the C compile, kept in compile_ms). The first one of each mode
 * also records the result for the checks. */
static void cache_dir_empty(void); /* bench_main.c's: empties the run's CJAX_CACHE_DIR */
static double first_call_once(row *r, int mode, double *cpu) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    *cpu = NAN;
    if (!ctx) return NAN;
    cj_val in[ROW_MAX_IN], out[ROW_MAX_OUT];
    cj_func *f = r->make(ctx, in);
    cache_dir_empty();
    cj_jit_opts opts = {0, NULL, 0, NULL, mode == CC ? CJ_BACKEND_CC : CJ_BACKEND_INTERP};
    double t0 = now_ms(), c0 = bench_cpu_ms();
    cj_func *jf = cj_jit(f, &opts);
    cj_call(jf, in, out);
    double dt = now_ms() - t0;
    *cpu = bench_cpu_ms() - c0;
    if (row_failed(ctx, r, "first call")) {
        cj_ctx_free(ctx);
        return *cpu = NAN;
    }
    if (r->n_rec[mode] == 0)
        r->n_rec[mode] = check_record(out, cj_func_n_out(jf), r->rec[mode], CHECK_MAX);
    cj_program_info info; /* of the program just made: no second compile */
    if (mode == CC && cj_jit_program_info(jf, in, &info) == CJ_OK) {
        r->compile[r->n_compile++ % MAX_REPS] = info.compile_ms, r->native = info.native;
        r->n_kernels = info.n_kernels;
        snprintf(r->cc_error, sizeof r->cc_error, "%s", info.compile_error ? info.compile_error : "");
        r->have_mem = cj_jit_memory_analysis(jf, in, &r->mem) == CJ_OK;
    }
    row_failed(ctx, r, "program info");
    cj_ctx_free(ctx);
    return dt;
}

/* One round of one cjax mode: medians per call into wall, cpu. */
static void round_cjax(cj_ctx *ctx, row *r, int mode, int reps, double *wall, double *cpu) {
    double w[MAX_REPS], c[MAX_REPS], spent = 0;
    int n = 0;
    *wall = *cpu = NAN;
    if (r->first_call && mode == EAGER) return;
    if (!r->first_call && !r->f[mode]) return;
    while (n < reps && (n == 0 || spent < ROUND_MS)) {
        if (r->first_call) {
            w[n] = first_call_once(r, mode, &c[n]);
            if (!isfinite(w[n])) return;
        } else {
            double t0 = now_ms(), c0 = bench_cpu_ms();
            row_call_once(ctx, r, r->f[mode]);
            w[n] = now_ms() - t0, c[n] = bench_cpu_ms() - c0;
            if (row_failed(ctx, r, mode_names[mode])) return;
        }
        spent += w[n++];
    }
    *wall = median_of(w, n), *cpu = median_of(c, n);
}

/* ---- checks ---- */
/* The peers' check records in reply into ref[NUMPY - NUMPY], ref[JAX - NUMPY]. */
static void peer_records(const char *reply, const char *key, double (*ref)[CHECK_MAX], int *n_ref) {
    for (int s = NUMPY; s <= JAX; s++) {
        char k[96];
        snprintf(k, sizeof k, "%s.%s.check", s == NUMPY ? "numpy" : "jax", key);
        n_ref[s - NUMPY] = coproc_array(reply, k, ref[s - NUMPY], CHECK_MAX);
    }
}

/* Compares every cjax mode's record with each peer's; a difference beyond
 * the row's limit is a failed check. */
static void row_check(row *r, double (*ref)[CHECK_MAX], const int *n_ref) {
    for (int s = NUMPY; s <= JAX; s++) {
        double worst = NAN;
        for (int m = 0; n_ref[s - NUMPY] > 0 && m < N_MODES; m++) {
            if (r->n_rec[m] == 0) continue; /* mode not run (first calls have no eager) */
            double d = r->n_rec[m] < 0 ? INFINITY : check_diff(r->rec[m], r->n_rec[m], ref[s - NUMPY], n_ref[s - NUMPY]);
            if (!(d <= r->limit)) {
                fprintf(stderr, "bench: CHECK FAILED: %s: cjax %s against %s differs by %.3g (limit %.0e)\n", r->key,
                        mode_names[m], s == NUMPY ? "NumPy" : "JAX", d, r->limit);
                r->check_failed = 1;
            }
            if (isnan(d)) d = INFINITY; /* NaN results count as the worst */
            worst = isnan(worst) ? d : fmax(worst, d);
        }
        r->diff[s - NUMPY] = worst;
    }
}

/* ---- one row ---- */
static void peer_times(const char *line, row *r, int round) {
    for (int s = NUMPY; s <= JAX; s++) {
        const char *who = s == NUMPY ? "numpy" : "jax";
        r->wall[s][round] = r->cpu[s][round] = NAN;
        peers_num(line, who, r->key, "wall_ms", &r->wall[s][round]);
        peers_num(line, who, r->key, "cpu_ms", &r->cpu[s][round]);
    }
}

static double ratio_median(const double *a, const double *b, int n) {
    double q[MAX_ROUNDS];
    for (int i = 0; i < n; i++) q[i] = b[i] > 0 ? a[i] / b[i] : NAN;
    return median_of(q, n);
}

/* Everything about row r: the peers' preparation, cjax's functions and
 * warm-up, the checks, the rounds, the medians. */
static void measure(cj_ctx *ctx, row *r, main_peers *p, int rounds, int reps) {
    static double ref[2][CHECK_MAX];
    int n_ref[2] = {0, 0};
    for (int s = 0; s < N_SERIES; s++) {
        r->ms[s] = r->cpu_ms[s] = NAN;
        for (int i = 0; i < MAX_ROUNDS; i++) r->wall[s][i] = r->cpu[s][i] = NAN;
    }
    r->diff[0] = r->diff[1] = NAN;
    r->copy_frac = NAN;
    r->n_rec[EAGER] = r->n_rec[INTERP] = r->n_rec[CC] = 0, r->n_compile = 0, r->check_failed = 0;
    for (int i = 0; i < JAX_MEM_PARTS; i++) r->jax_mem[i] = NAN;
    if (r->limit <= 0) r->limit = 1e-3;
    char cmd[96];
    if (p->up) { /* the peers first: their compiles do not overlap cjax's */
        snprintf(cmd, sizeof cmd, "prepare %s", r->key);
        const char *reply = coproc_ask(&p->cp, cmd);
        if (!reply) p->up = 0, fprintf(stderr, "bench: peers.py stopped answering (at %s)\n", r->key);
        peer_records(reply, r->key, ref, n_ref);
        for (int i = 0; i < JAX_MEM_PARTS; i++) {
            char part[32];
            snprintf(part, sizeof part, "mem.%s", jax_mem_parts[i]);
            peers_num(reply, "jax", r->key, part, &r->jax_mem[i]);
        }
    }
    if (!r->first_call) {
        static const cj_jit_opts interp = {0, NULL, 0, NULL, CJ_BACKEND_INTERP}, cc = {0, NULL, 0, NULL, CJ_BACKEND_CC};
        r->fn = r->make(ctx, r->in);
        if (!r->fn || row_failed(ctx, r, "inputs")) {
            r->skipped = 1;
            return;
        }
        if (cj_func_n_in(r->fn) > ROW_MAX_IN || cj_func_n_out(r->fn) > ROW_MAX_OUT) {
            fprintf(stderr, "bench: %s: %d inputs, %d outputs: more than ROW_MAX_IN %d / ROW_MAX_OUT %d\n", r->key,
                    cj_func_n_in(r->fn), cj_func_n_out(r->fn), ROW_MAX_IN, ROW_MAX_OUT);
            r->skipped = 1;
            return;
        }
        r->f[EAGER] = r->fn, r->f[INTERP] = cj_jit(r->fn, &interp), r->f[CC] = r->jit_cc = cj_jit(r->fn, &cc);
        for (int m = 0; m < N_MODES; m++) { /* the warm-up call (traces, compiles) is the checked one */
            cj_val out[ROW_MAX_OUT];
            cj_scope_begin(ctx);
            cj_call(r->f[m], r->in, out);
            r->n_rec[m] = cj_error(ctx) ? -1 : check_record(out, cj_func_n_out(r->f[m]), r->rec[m], CHECK_MAX);
            cj_scope_end(ctx, 0, NULL);
            if (row_failed(ctx, r, mode_names[m]) || r->n_rec[m] < 0) r->f[m] = NULL, r->n_rec[m] = -1;
        }
        cj_program_info info;
        if (r->jit_cc && cj_jit_program_info(r->jit_cc, r->in, &info) == CJ_OK) {
            r->native = info.native, r->n_kernels = info.n_kernels;
            snprintf(r->cc_error, sizeof r->cc_error, "%s", info.compile_error ? info.compile_error : "");
            if (r->cc_error[0]) fprintf(stderr, "bench: %s: generated C not in use: %s\n", r->key, r->cc_error);
        }
        r->have_mem = r->jit_cc && cj_jit_memory_analysis(r->jit_cc, r->in, &r->mem) == CJ_OK;
        row_failed(ctx, r, "program info");
    }

    for (int round = 0; round < rounds; round++) {
        snprintf(cmd, sizeof cmd, "round %s %d", r->key, round);
        if (p->up && round % 2) peer_times(coproc_ask(&p->cp, cmd), r, round);
        for (int m = 0; m < N_MODES; m++) round_cjax(ctx, r, m, reps, &r->wall[m][round], &r->cpu[m][round]);
        r->copy_gbs[round] = row_is_bandwidth(r) ? limits_round_copy_gbs() : NAN;
        if (p->up && !(round % 2)) peer_times(coproc_ask(&p->cp, cmd), r, round);
    }
    if (r->first_call) {
        r->n_rec[EAGER] = 0;
        r->compile_ms = median_of(r->compile, r->n_compile < MAX_REPS ? r->n_compile : MAX_REPS);
    }
    row_check(r, ref, n_ref);
    for (int s = 0; s < N_SERIES; s++) r->ms[s] = median_of(r->wall[s], rounds), r->cpu_ms[s] = median_of(r->cpu[s], rounds);
    for (int s = NUMPY; s <= JAX; s++) {
        r->over[s - NUMPY] = ratio_median(r->wall[CC], r->wall[s], rounds);
        r->over_cpu[s - NUMPY] = ratio_median(r->cpu[CC], r->cpu[s], rounds);
    }
    if (row_is_bandwidth(r)) { /* bytes/s of each round's jit-cc over that round's copy */
        double q[MAX_ROUNDS];
        for (int i = 0; i < rounds; i++)
            q[i] = (r->read_bytes + r->write_bytes) / (r->wall[CC][i] * 1e6) / r->copy_gbs[i];
        r->copy_frac = median_of(q, rounds);
    }
}

#endif
