/* bench_report.h — what `make bench` shows and keeps: the table (one row
 * per workload, printed as it is measured), the footnotes under it, and the
 * JSON record in bench/results (its fields: bench/results/README.md).
 *
 * A row holds what bench_rounds.h measured: per series (cjax's three
 * modes, NumPy, JAX) the per-round medians and their medians, the ratios,
 * the check's differences, cjax's and XLA's memory analyses; the fraction
 * of the relevant limit comes from bench_limits.h's figures. This file
 * only formats. Header-only: CMake makes one program per .c file in bench/. */
#ifndef CJ_BENCH_REPORT_H
#define CJ_BENCH_REPORT_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjax.h>

#include "bench_check.h"
#include "bench_ctrl.h"
#include "bench_json.h"
#include "bench_limits.h"
#include "bench_peers.h"
#include "bench_work.h"

/* The series of a row: cjax's three ways to run it (the columns eager,
 * jit-int, jit-cc), then the peers. */
enum { EAGER, INTERP, CC, NUMPY, JAX, N_SERIES };
#define N_MODES 3 /* cjax's */
static const char *mode_names[N_SERIES] = {"eager", "jit interp", "jit cc", "numpy", "jax"};

#define MAX_REPS 31   /* calls per series and round, at most */
#define MAX_ROUNDS 15
#define JAX_MEM_PARTS 6
#define ROW_MAX_IN 40 /* the 16-layer MLP: x, y and 32 parameters */
#define ROW_MAX_OUT 40

/* One workload: what it is (set in bench_main.c's table) and what was
 * measured (bench_rounds.h). */
typedef struct row {
    const char *key, *name;
    cj_func *(*make)(cj_ctx *ctx, cj_val *in); /* inputs and the plain function */
    void (*run)(cj_func *f, const cj_val *in); /* NULL: one call of f */
    double read_bytes, write_bytes;            /* least memory traffic */
    double flops;                              /* for dot-heavy rows */
    int first_call;                            /* time a cold first call */
    double limit;                              /* the check's limit (0: 1e-3) */
    /* results */
    cj_func *fn, *f[N_MODES];
    cj_val in[ROW_MAX_IN];
    cj_func *jit_cc; /* the jit-cc function, kept for the extras */
    double wall[N_SERIES][MAX_ROUNDS], cpu[N_SERIES][MAX_ROUNDS]; /* per round, median per call */
    double ms[N_SERIES], cpu_ms[N_SERIES];  /* medians over rounds */
    double over[2], over_cpu[2];            /* jit-cc / NumPy, / JAX: medians of the rounds' ratios */
    double copy_gbs[MAX_ROUNDS];            /* bandwidth rows: the copy measured in each round */
    double copy_frac;                       /* jit-cc's bytes/s over that copy's: median over rounds */
    double compile[MAX_REPS], compile_ms;   /* first-call rows: the C compiler's wall time */
    int n_compile;
    int native;         /* the jit-cc column ran generated C */
    char cc_error[160]; /* why generated C is not in use, "" if it is or none was needed */
    int n_kernels;
    int have_mem;
    cj_memory_analysis mem;
    double jax_mem[JAX_MEM_PARTS]; /* jax_mem_parts, NaN when absent */
    double rec[N_MODES][CHECK_MAX]; /* cjax's check records per mode (bench_check.h) */
    int n_rec[N_MODES];             /* numbers in each; 0 not run, -1 failed */
    double diff[2];     /* the worst check difference over cjax's modes from NumPy, JAX; NaN: none */
    int check_failed;
    int skipped;
} row;

/* The extras: the RNN against plain C, vmap's chunked form. */
typedef struct extras {
    double rnn_scan_ms, rnn_c_ms, rnn_max_diff;
    double vmap_whole_ms, vmap_chunked_ms;
    size_t vmap_whole_bytes, vmap_chunked_bytes;
} extras;

/* The run as a whole, for the JSON record. */
typedef struct run_info {
    const char *name;
    bench_machine machine;
    bench_limits limits;
    int blas_threads; /* -1: no OpenBLAS in cjax */
    int reps, rounds;
    int pinned_cpu;   /* the CPU the one-thread mode pinned the bench and its peers to, -1 none */
    const char *peers_info; /* peers.py's ready line, NULL without */
} run_info;

#define ROUND_MS 200.0 /* per series and round: calls until this much is spent (bench_rounds.h) */

/* ---- limits per row ---- */
/* "peak" is XLA's peak_memory_in_bytes, kept in the JSON only: on CPU it can
 * be below the temporaries alone (7.0 vs 33.0 MiB for the transformer block's
 * value_and_grad), so the table compares argument + output + temp */
static const char *jax_mem_parts[JAX_MEM_PARTS] = {"argument", "output", "temp", "alias", "code", "peak"};

/* argument + output + temp, NaN when XLA did not say */
static double jax_mem_total(const row *r) { return r->jax_mem[0] + r->jax_mem[1] + r->jax_mem[2]; }


/* The fraction of its limit cjax's jit-cc reaches, and which limit: FMA
 * peak for rows with flops, else memory bandwidth, with each written byte
 * counted twice on both sides (a store first reads its cache line, in the
 * copy the limit comes from as in the workload: the copy moves 1.5x its
 * STREAM-counted bytes). NaN when the row has neither. */
static double limit_fraction(const row *r, const bench_limits *l, const char **what) {
    double t = r->ms[CC];
    *what = NULL;
    if (r->flops > 0) {
        *what = "fma";
        return r->flops / (t * 1e6) / l->fma_gflops;
    }
    if (r->read_bytes + r->write_bytes > 0) {
        *what = "bw";
        return (r->read_bytes + 2 * r->write_bytes) / (1.5 * l->copy_gbs * 1e6) / t;
    }
    return NAN;
}

/* Does the row's jit-cc bandwidth get compared with a copy in each round?
 * Rows with byte counts and no flops (fused elementwise work and
 * reductions), not cold first calls. */
static int row_is_bandwidth(const row *r) {
    return !r->first_call && r->flops <= 0 && r->read_bytes + r->write_bytes > 0;
}

/* ---- the table ---- */
static const char *fmt_ms(char *b, size_t n, double v, const char *absent) {
    if (!isfinite(v))
        snprintf(b, n, "%s", absent);
    else
        snprintf(b, n, v < 1 ? "%.3f" : "%.2f", v);
    return b;
}
static const char *fmt_x(char *b, size_t n, double v) {
    if (isfinite(v))
        snprintf(b, n, "%.2fx", v);
    else
        snprintf(b, n, "-");
    return b;
}
static const char *fmt_mib(char *b, size_t n, double bytes) {
    if (isfinite(bytes))
        snprintf(b, n, "%.1f", bytes / 1048576.0);
    else
        snprintf(b, n, "-");
    return b;
}
/* the check column: the worst difference from a peer, FAIL, or - (no reference) */
static const char *fmt_check(char *b, size_t n, const row *r) {
    double d = fmax(isfinite(r->diff[0]) ? r->diff[0] : -1, isfinite(r->diff[1]) ? r->diff[1] : -1);
    if (r->check_failed)
        snprintf(b, n, "FAIL");
    else if (d >= 0)
        snprintf(b, n, "%.0e", d);
    else
        snprintf(b, n, "-");
    return b;
}

static void print_header(void) {
    printf("%-27s %8s %8s %8s %8s %8s | %6s %6s | %6s %6s | %8s | %5s | %6s %6s %6s %6s | %s\n", "workload (ms, medians)",
           "eager", "jit-int", "jit-cc", "numpy", "jax", "cc/np", "cc/jax", "cc/np", "cc/jax", "of limit", "copy",
           "cj pk", "jax pk", "cj tmp", "jax tm", "check");
    printf("%-27s %44s | %13s | %13s | %8s | %5s | %27s |\n", "", "wall clock", "wall", "CPU time", "", "", "MiB");
}

static void print_row(const row *r, const bench_limits *l, const char *np_absent, const char *jax_absent) {
    char e[16], i[16], c[16], n[100], j[100], rn[16], rj[16], cn[16], cj[16], lim[16], cm[16], jm[16], ct[16], jt[16],
        chk[16], cp[16] = "-";
    const char *what;
    double frac = limit_fraction(r, l, &what);
    if (r->first_call && r->compile_ms > 0)
        snprintf(lim, sizeof lim, "cc %.0fms", r->compile_ms);
    else if (isfinite(frac))
        snprintf(lim, sizeof lim, "%.0f%% %s", 100 * frac, what);
    else
        snprintf(lim, sizeof lim, "-");
    if (isfinite(r->copy_frac)) snprintf(cp, sizeof cp, "%.0f%%", 100 * r->copy_frac);
    fmt_ms(c, sizeof c, r->ms[CC], "error");
    if (isfinite(r->ms[CC]) && r->cc_error[0]) strncat(c, "*", sizeof c - strlen(c) - 1);
    printf("%-27s %8s %8s %8s %8s %8s | %6s %6s | %6s %6s | %8s | %5s | %6s %6s %6s %6s | %s\n", r->name,
           fmt_ms(e, sizeof e, r->ms[EAGER], r->first_call ? "-" : "error"),
           fmt_ms(i, sizeof i, r->ms[INTERP], "error"), c, fmt_ms(n, sizeof n, r->ms[NUMPY], np_absent),
           fmt_ms(j, sizeof j, r->ms[JAX], jax_absent), fmt_x(rn, sizeof rn, r->over[0]),
           fmt_x(rj, sizeof rj, r->over[1]), fmt_x(cn, sizeof cn, r->over_cpu[0]), fmt_x(cj, sizeof cj, r->over_cpu[1]),
           lim, cp, fmt_mib(cm, sizeof cm, r->have_mem ? (double)r->mem.peak_bytes : NAN),
           fmt_mib(jm, sizeof jm, jax_mem_total(r)), fmt_mib(ct, sizeof ct, r->have_mem ? (double)r->mem.temp_bytes : NAN),
           fmt_mib(jt, sizeof jt, r->jax_mem[2]), fmt_check(chk, sizeof chk, r));
    fflush(stdout);
}

static void print_footnotes(const row *rows, int n_rows, const bench_limits *l, const run_info *ri, const extras *x) {
    printf("\njit-int: CJ_BACKEND_INTERP; jit-cc: CJ_BACKEND_CC (* = generated C not in use: see stderr); "
           "jax: jax.jit on CPU.\n"
           "%d rounds, cjax and the peers alternating; in each, every series calls until %.0f ms are spent (at most %d "
           "calls)\nand keeps the median per call; figures are medians over rounds, ratios the medians of the rounds' "
           "ratios (< 1: cjax's\njit-cc is faster). CPU time: the process's, all threads (with CJAX_NUM_THREADS=1 one "
           "core's: the stable ratios\non a loaded machine). of limit: jit-cc against %.1f GB/s copy (bw; writes count "
           "twice) or %.0f GFLOP/s\nFMA peak (fma). copy: jit-cc's bytes read + written per second over those of a STREAM-scale "
           "copy of 10^7 floats\nmeasured in the same round, right after cjax's calls (median over rounds; target >= 85%%). MiB: pk = cj_jit_memory_analysis peak / XLA's argument + output + "
           "temp; tmp = temporaries.\ncheck: the largest relative difference of any cjax mode's results from NumPy's "
           "or JAX's (FAIL: beyond the\nrow's limit, exit status 1; -: no peer to compare with).\n",
           ri->rounds, ROUND_MS, ri->reps, l->copy_gbs, l->fma_gflops);
    for (int k = 0; k < n_rows; k++) {
        const row *r = &rows[k];
        if (r->skipped) continue;
        char jx[32] = "missing";
        if (isfinite(r->ms[JAX])) snprintf(jx, sizeof jx, "%.1f ms", r->ms[JAX]);
        if (r->first_call)
            printf("%s: trace + prepare + run on the interpreter %.3g ms; with generated C %.4g ms, of which the C "
                   "compiler %.4g ms; JAX trace + compile + run %s\n",
                   r->name, r->ms[INTERP], r->ms[CC], r->compile_ms, jx);
        else if (!strcmp(r->key, "cached_call")) {
            char np[32] = "missing";
            if (isfinite(r->ms[NUMPY])) snprintf(np, sizeof np, "%.2f us", r->ms[NUMPY]);
            if (isfinite(r->ms[JAX])) snprintf(jx, sizeof jx, "%.2f us", r->ms[JAX]);
            printf("cached call: %.2f us eager, %.2f us jit-int, %.2f us jit-cc, NumPy %s, JAX %s per call\n",
                   r->ms[EAGER], r->ms[INTERP], r->ms[CC], np, jx);
        }
        else if (!strcmp(r->key, "sincos") && r->have_mem)
            printf("sin*cos+x*x under jit-cc: %d kernel(s), temporaries %zu bytes\n", r->n_kernels, r->mem.temp_bytes);
    }
    if (isfinite(x->rnn_c_ms))
        printf("RNN scan (1000 steps, hidden %d, input %d, f32, jit cc): %.2f ms = %.1f us/step; plain C loop %.2f ms; "
               "scan/C %.2fx (target <= 1.3x); max |h_scan - h_C| %.2g\n",
               RNN_HID, RNN_INP, x->rnn_scan_ms, 1e3 * x->rnn_scan_ms / RNN_STEPS, x->rnn_c_ms,
               x->rnn_scan_ms / x->rnn_c_ms, x->rnn_max_diff);
    if (isfinite(x->vmap_whole_ms))
        printf("vmap of a 512x512 outer product per example, 128 examples (eager): peak %.1f MiB in %.1f ms at once, "
               "%.1f MiB in %.1f ms in chunks of 8 (%.2fx the memory)\n",
               x->vmap_whole_bytes / 1048576.0, x->vmap_whole_ms, x->vmap_chunked_bytes / 1048576.0,
               x->vmap_chunked_ms, (double)x->vmap_chunked_bytes / (double)x->vmap_whole_bytes);
}


/* ---- the JSON record ---- */
static void json_row(FILE *f, const row *r, const bench_limits *l, int rounds) {
    const char *what;
    double frac = limit_fraction(r, l, &what);
    fputs("    {", f);
    json_text(f, "key", r->key, 1);
    json_text(f, "name", r->name, 0);
    json_num(f, "eager_ms", r->ms[EAGER], 0);
    json_num(f, "interp_ms", r->ms[INTERP], 0);
    json_num(f, "cc_ms", r->ms[CC], 0);
    json_num(f, "numpy_ms", r->ms[NUMPY], 0);
    json_num(f, "jax_ms", r->ms[JAX], 0);
    json_num(f, "eager_cpu_ms", r->cpu_ms[EAGER], 0);
    json_num(f, "interp_cpu_ms", r->cpu_ms[INTERP], 0);
    json_num(f, "cc_cpu_ms", r->cpu_ms[CC], 0);
    json_num(f, "numpy_cpu_ms", r->cpu_ms[NUMPY], 0);
    json_num(f, "jax_cpu_ms", r->cpu_ms[JAX], 0);
    json_num(f, "cc_over_numpy", r->over[0], 0);
    json_num(f, "cc_over_jax", r->over[1], 0);
    json_num(f, "cc_over_numpy_cpu", r->over_cpu[0], 0);
    json_num(f, "cc_over_jax_cpu", r->over_cpu[1], 0);
    json_num(f, "eager_over_numpy", r->ms[NUMPY] > 0 ? r->ms[EAGER] / r->ms[NUMPY] : NAN, 0);
    json_key(f, "limit", 0);
    if (what)
        json_str(f, !strcmp(what, "fma") ? "flops" : "bandwidth");
    else
        fputs("null", f);
    json_num(f, "limit_fraction", frac, 0);
    json_num(f, "sgemm_fraction", r->flops > 0 ? r->flops / (r->ms[CC] * 1e6) / l->sgemm_gflops : NAN, 0);
    json_num(f, "copy_fraction", r->copy_frac, 0);
    json_key(f, "round_copy_gbs", 0);
    fputc('[', f);
    for (int i = 0; i < rounds; i++) {
        fputs(i ? ", " : "", f);
        if (row_is_bandwidth(r) && isfinite(r->copy_gbs[i])) fprintf(f, "%.4g", r->copy_gbs[i]);
        else fputs("null", f);
    }
    fputc(']', f);
    json_num(f, "read_bytes", r->read_bytes, 0);
    json_num(f, "write_bytes", r->write_bytes, 0);
    json_num(f, "flops", r->flops, 0);
    json_key(f, "cc_native", 0);
    fputs(r->native ? "true" : "false", f);
    json_text(f, "cc_error", r->cc_error, 0);
    json_num(f, "kernels", r->n_kernels, 0);
    json_num(f, "compile_ms", r->first_call ? r->compile_ms : NAN, 0);
    json_num(f, "max_rel_diff_numpy", r->diff[0], 0);
    json_num(f, "max_rel_diff_jax", r->diff[1], 0);
    json_num(f, "check_limit", r->limit, 0);
    json_key(f, "check_failed", 0);
    fputs(r->check_failed ? "true" : "false", f);
    json_key(f, "rounds", 0); /* per series: [wall, cpu] per round, null when not run */
    for (int s = 0; s < N_SERIES; s++) {
        static const char *names[N_SERIES] = {"eager", "interp", "cc", "numpy", "jax"};
        fputs(s ? ", " : "{", f);
        json_str(f, names[s]);
        fputs(": [", f);
        for (int i = 0; i < rounds; i++) {
            fputs(i ? ", " : "", f);
            if (isfinite(r->wall[s][i]) && isfinite(r->cpu[s][i]))
                fprintf(f, "[%.6g, %.6g]", r->wall[s][i], r->cpu[s][i]);
            else
                fputs("null", f);
        }
        fputs("]", f);
    }
    fputs("}", f);
    json_key(f, "cjax_memory", 0);
    if (r->have_mem) {
        fputc('{', f);
        json_num(f, "peak", (double)r->mem.peak_bytes, 1);
        json_num(f, "argument", (double)r->mem.argument_bytes, 0);
        json_num(f, "output", (double)r->mem.output_bytes, 0);
        json_num(f, "temp", (double)r->mem.temp_bytes, 0);
        json_num(f, "alias", (double)r->mem.alias_bytes, 0);
        json_num(f, "constant", (double)r->mem.constant_bytes, 0);
        json_num(f, "code", (double)r->mem.generated_code_bytes, 0);
        fputc('}', f);
    } else {
        fputs("null", f);
    }
    json_key(f, "jax_memory", 0);
    if (isfinite(jax_mem_total(r))) {
        fputc('{', f);
        for (int i = 0; i < JAX_MEM_PARTS; i++) json_num(f, jax_mem_parts[i], r->jax_mem[i], i == 0);
        json_num(f, "total", jax_mem_total(r), 0);
        fputc('}', f);
    } else {
        fputs("null", f);
    }
    fputc('}', f);
}

static int write_json(const char *path, const run_info *ri, const row *rows, int n_rows, const extras *x,
                      const ctrl_run *ctrl) {
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    const bench_machine *m = &ri->machine;
    const bench_limits *l = &ri->limits;
    const char *peers = ri->peers_info;
    char buf[256];
    fputc('{', f);
    json_text(f, "run", ri->name, 1);
    json_text(f, "date", m->date, 0);
    json_key(f, "machine", 0);
    fputc('{', f);
    json_text(f, "cpu", m->cpu, 1);
    json_num(f, "cores", m->cores, 0);
    json_text(f, "compiler", m->compiler, 0);
    json_text(f, "generated_c_compiler", m->cc, 0);
    json_text(f, "os", m->os, 0);
    fputs("},\n ", f);
    json_key(f, "threads", 1);
    fputc('{', f);
    json_num(f, "cjax_pool", l->threads, 1);
    json_num(f, "openblas_in_cjax", ri->blas_threads >= 0 ? ri->blas_threads : NAN, 0);
    json_num(f, "pinned_cpu", ri->pinned_cpu >= 0 ? ri->pinned_cpu : NAN, 0);
    static const char *vars[4] = {"OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "XLA_FLAGS"};
    for (int i = 0; i < 4; i++) {
        const char *v = getenv(vars[i]);
        json_text(f, vars[i], v ? v : "", 0);
    }
    fputs("},\n ", f);
    json_key(f, "limits", 1);
    fputc('{', f);
    json_num(f, "copy_gbs", l->copy_gbs, 1);
    json_num(f, "fma_gflops", l->fma_gflops, 0);
    json_text(f, "fma_how", l->fma_how, 0);
    json_num(f, "sgemm_gflops", l->sgemm_gflops, 0);
    json_text(f, "gemm_backend", rt_gemm_backend(), 0);
    fputs("},\n ", f);
    json_key(f, "peers", 1);
    fputc('{', f);
    static const char *info[5] = {"python", "numpy", "jax", "jax_devices", "numpy_blas_threads"};
    for (int i = 0; i < 5; i++) {
        char key[48];
        snprintf(key, sizeof key, "info.%s", info[i]);
        json_key(f, info[i], i == 0);
        if (peers_str(peers, key, buf, sizeof buf)[0])
            json_str(f, buf);
        else
            fputs("null", f);
    }
    double cpus = NAN;
    const char *pc = peers_find(peers, "info.cpus");
    if (pc) cpus = strtod(pc, NULL);
    json_num(f, "cpus", cpus, 0);
    fputs("},\n ", f);
    json_num(f, "reps", ri->reps, 1);
    json_num(f, "rounds", ri->rounds, 0);
    json_num(f, "round_ms", ROUND_MS, 0);
    fputs(",\n ", f);
    json_key(f, "workloads", 1);
    fputs("[\n", f);
    int first = 1;
    for (int k = 0; k < n_rows; k++) {
        if (rows[k].skipped) continue;
        if (!first) fputs(",\n", f);
        json_row(f, &rows[k], l, ri->rounds);
        first = 0;
    }
    fputs("\n ],\n ", f);
    json_key(f, "extra", 1);
    fputs("{\"rnn\": {", f);
    json_num(f, "scan_cc_ms", x->rnn_scan_ms, 1);
    json_num(f, "plain_c_ms", x->rnn_c_ms, 0);
    json_num(f, "scan_over_c", x->rnn_scan_ms / x->rnn_c_ms, 0);
    json_num(f, "max_abs_diff", x->rnn_max_diff, 0);
    fputs("}, \"vmap_chunk\": {", f);
    json_num(f, "whole_ms", x->vmap_whole_ms, 1);
    json_num(f, "whole_peak_bytes", isfinite(x->vmap_whole_ms) ? (double)x->vmap_whole_bytes : NAN, 0);
    json_num(f, "chunked_ms", x->vmap_chunked_ms, 0);
    json_num(f, "chunked_peak_bytes", isfinite(x->vmap_chunked_ms) ? (double)x->vmap_chunked_bytes : NAN, 0);
    fputs("},\n  \"control\": ", f);
    ctrl_json(f, ctrl);
    fputs("}\n}\n", f);
    return fclose(f) == 0 ? 0 : -1;
}

#endif
