/* bench_report.h — what `make bench` shows and keeps: the table (one row
 * per workload, printed as it is measured), the footnotes under it, and the
 * JSON record in bench/results (its fields: bench/results/README.md).
 *
 * A row holds cjax's medians per mode; NumPy's and JAX's figures are looked
 * up in peers.py's output when printed; the fraction of the relevant limit
 * comes from bench_limits.h's figures. bench_main.c measures; this file
 * only formats. Header-only: CMake makes one program per .c file in bench/. */
#ifndef CJ_BENCH_REPORT_H
#define CJ_BENCH_REPORT_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjax.h>

#include "bench_ctrl.h"
#include "bench_json.h"
#include "bench_limits.h"
#include "bench_peers.h"
#include "bench_work.h"

/* cjax's three ways to run a workload: the columns eager, jit-int, jit-cc */
enum { EAGER, INTERP, CC, N_MODES };

/* One workload: what it is (set in bench_main.c's table) and what was
 * measured. */
typedef struct row {
    const char *key, *name;
    cj_func *(*make)(cj_ctx *ctx, cj_val *in); /* inputs and the plain function */
    void (*run)(cj_func *f, const cj_val *in); /* NULL: one call of f */
    double read_bytes, write_bytes;            /* least memory traffic */
    double flops;                              /* for dot-heavy rows */
    int first_call;                            /* time a cold first call */
    /* results */
    cj_func *fn;
    cj_val in[8];
    cj_func *jit_cc; /* the jit-cc function, kept for the extras */
    double ms[N_MODES];
    double compile_ms; /* first-call rows: the C compiler's wall time */
    int native;        /* the jit-cc column ran generated C */
    char cc_error[160]; /* why generated C is not in use, "" if it is or none was needed */
    int n_kernels;
    int have_mem;
    cj_memory_analysis mem;
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
    int reps, first_call_reps;
} run_info;

/* ---- peers and limits per row ---- */
static const char *jax_mem_parts[5] = {"argument", "output", "temp", "alias", "code"};

typedef struct peer_figs {
    double numpy, jax;   /* ms, NaN when absent */
    double jax_mem[5];   /* jax_mem_parts, NaN when absent */
    double jax_mem_total; /* argument + output + temp */
} peer_figs;

static void peer_figures(const char *peers, const row *r, peer_figs *p) {
    p->numpy = p->jax = p->jax_mem_total = NAN;
    peers_num(peers, "numpy", r->key, "ms", &p->numpy);
    peers_num(peers, "jax", r->key, "ms", &p->jax);
    for (int i = 0; i < 5; i++) {
        char part[32];
        snprintf(part, sizeof part, "mem.%s", jax_mem_parts[i]);
        p->jax_mem[i] = NAN;
        peers_num(peers, "jax", r->key, part, &p->jax_mem[i]);
    }
    if (isfinite(p->jax_mem[0]) && isfinite(p->jax_mem[1]) && isfinite(p->jax_mem[2]))
        p->jax_mem_total = p->jax_mem[0] + p->jax_mem[1] + p->jax_mem[2];
}

/* "installed", "missing" or "failed: ..." for "numpy" / "jax". */
static const char *peer_state(const char *peers, const char *name, char *buf, size_t size) {
    char key[32];
    snprintf(key, sizeof key, "info.%s", name);
    peers_str(peers, key, buf, size);
    if (!buf[0] || !strcmp(buf, "missing")) return "missing";
    if (!strncmp(buf, "failed", 6)) return "failed";
    return "installed";
}

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

/* ---- the table ---- */
static const char *fmt_ms(char *b, size_t n, double v, const char *absent) {
    if (!isfinite(v))
        snprintf(b, n, "%s", absent);
    else
        snprintf(b, n, v < 1 ? "%.3f" : "%.2f", v);
    return b;
}
static const char *fmt_ratio(char *b, size_t n, double num, double den) {
    if (isfinite(num) && isfinite(den) && den > 0)
        snprintf(b, n, "%.2fx", num / den);
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

static void print_header(void) {
    printf("%-27s %8s %8s %8s %8s %8s %7s %7s %9s %7s %7s\n", "workload (ms, medians)", "eager", "jit-int", "jit-cc",
           "numpy", "jax", "cc/np", "cc/jax", "of limit", "cj MiB", "jax MiB");
}

static void print_row(const row *r, const bench_limits *l, const char *peers, const char *np_absent,
                      const char *jax_absent) {
    peer_figs p;
    peer_figures(peers, r, &p);
    char e[16], i[16], c[16], n[16], j[16], rn[16], rj[16], lim[16], cm[16], jm[16];
    const char *what;
    double frac = limit_fraction(r, l, &what);
    if (r->first_call && r->compile_ms > 0)
        snprintf(lim, sizeof lim, "cc %.0fms", r->compile_ms);
    else if (isfinite(frac))
        snprintf(lim, sizeof lim, "%.0f%% %s", 100 * frac, what);
    else
        snprintf(lim, sizeof lim, "-");
    fmt_ms(c, sizeof c, r->ms[CC], "error");
    if (isfinite(r->ms[CC]) && r->cc_error[0]) strncat(c, "*", sizeof c - strlen(c) - 1);
    printf("%-27s %8s %8s %8s %8s %8s %7s %7s %9s %7s %7s\n", r->name,
           fmt_ms(e, sizeof e, r->ms[EAGER], r->first_call ? "-" : "error"), fmt_ms(i, sizeof i, r->ms[INTERP], "error"),
           c, fmt_ms(n, sizeof n, p.numpy, np_absent), fmt_ms(j, sizeof j, p.jax, jax_absent),
           fmt_ratio(rn, sizeof rn, r->ms[CC], p.numpy), fmt_ratio(rj, sizeof rj, r->ms[CC], p.jax), lim,
           fmt_mib(cm, sizeof cm, r->have_mem ? (double)r->mem.peak_bytes : NAN), fmt_mib(jm, sizeof jm, p.jax_mem_total));
    fflush(stdout);
}

static void print_footnotes(const row *rows, int n_rows, const bench_limits *l, const char *peers, const extras *x) {
    printf("\njit-int: CJ_BACKEND_INTERP; jit-cc: CJ_BACKEND_CC (* = generated C not in use: see stderr); "
           "jax: jax.jit on CPU.\n"
           "cc/np, cc/jax < 1: cjax's jit-cc is faster. of limit: jit-cc against %.1f GB/s copy (bw; writes count "
           "twice)\nor %.0f GFLOP/s FMA peak (fma). cj MiB: cj_jit_memory_analysis peak; jax MiB: XLA's "
           "argument + output + temp.\n",
           l->copy_gbs, l->fma_gflops);
    for (int k = 0; k < n_rows; k++) {
        const row *r = &rows[k];
        if (r->skipped) continue;
        peer_figs p;
        peer_figures(peers, r, &p);
        char jx[32] = "missing";
        if (isfinite(p.jax)) snprintf(jx, sizeof jx, "%.1f ms", p.jax);
        if (r->first_call)
            printf("%s: trace + prepare + run on the interpreter %.3g ms; with generated C %.4g ms, of which the C "
                   "compiler %.4g ms; JAX trace + compile + run %s\n",
                   r->name, r->ms[INTERP], r->ms[CC], r->compile_ms, jx);
        else if (!strcmp(r->key, "cached_call")) {
            char np[32] = "missing";
            if (isfinite(p.numpy)) snprintf(np, sizeof np, "%.2f us", p.numpy);
            if (isfinite(p.jax)) snprintf(jx, sizeof jx, "%.2f us", p.jax);
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
static void json_row(FILE *f, const row *r, const bench_limits *l, const char *peers) {
    peer_figs p;
    peer_figures(peers, r, &p);
    const char *what;
    double frac = limit_fraction(r, l, &what);
    fputs("    {", f);
    json_text(f, "key", r->key, 1);
    json_text(f, "name", r->name, 0);
    json_num(f, "eager_ms", r->ms[EAGER], 0);
    json_num(f, "interp_ms", r->ms[INTERP], 0);
    json_num(f, "cc_ms", r->ms[CC], 0);
    json_num(f, "numpy_ms", p.numpy, 0);
    json_num(f, "jax_ms", p.jax, 0);
    json_num(f, "cc_over_numpy", p.numpy > 0 ? r->ms[CC] / p.numpy : NAN, 0);
    json_num(f, "cc_over_jax", p.jax > 0 ? r->ms[CC] / p.jax : NAN, 0);
    json_num(f, "eager_over_numpy", p.numpy > 0 ? r->ms[EAGER] / p.numpy : NAN, 0);
    json_key(f, "limit", 0);
    if (what)
        json_str(f, !strcmp(what, "fma") ? "flops" : "bandwidth");
    else
        fputs("null", f);
    json_num(f, "limit_fraction", frac, 0);
    json_num(f, "sgemm_fraction", r->flops > 0 ? r->flops / (r->ms[CC] * 1e6) / l->sgemm_gflops : NAN, 0);
    json_num(f, "read_bytes", r->read_bytes, 0);
    json_num(f, "write_bytes", r->write_bytes, 0);
    json_num(f, "flops", r->flops, 0);
    json_key(f, "cc_native", 0);
    fputs(r->native ? "true" : "false", f);
    json_text(f, "cc_error", r->cc_error, 0);
    json_num(f, "kernels", r->n_kernels, 0);
    json_num(f, "compile_ms", r->first_call ? r->compile_ms : NAN, 0);
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
    if (isfinite(p.jax_mem_total)) {
        fputc('{', f);
        for (int i = 0; i < 5; i++) json_num(f, jax_mem_parts[i], p.jax_mem[i], i == 0);
        json_num(f, "total", p.jax_mem_total, 0);
        fputc('}', f);
    } else {
        fputs("null", f);
    }
    fputc('}', f);
}

static int write_json(const char *path, const run_info *ri, const row *rows, int n_rows, const char *peers,
                      const extras *x, const ctrl_run *ctrl) {
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    const bench_machine *m = &ri->machine;
    const bench_limits *l = &ri->limits;
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
    fputs("},\n ", f);
    json_num(f, "reps", ri->reps, 1);
    json_num(f, "first_call_reps", ri->first_call_reps, 0);
    fputs(",\n ", f);
    json_key(f, "workloads", 1);
    fputs("[\n", f);
    int first = 1;
    for (int k = 0; k < n_rows; k++) {
        if (rows[k].skipped) continue;
        if (!first) fputs(",\n", f);
        json_row(f, &rows[k], l, peers);
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
