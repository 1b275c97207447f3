/* bench_ctrl.h — the control rows of `make bench` (issue 14): a small-state
 * ODE by scan (forward, gradient, vmapped), vmap(hessian), and an eager
 * gradient of a 3-carry scan (the programs: bench_ctrl_work.h), measured
 * against JAX in alternating rounds and checked against references.
 *
 * JAX (bench/peers_ctrl.py) runs beside the bench as a co-process
 * (bench_coproc.h) and is timed in the same rounds as cjax, the order
 * swapped every round, so both see the same load. Each round takes the
 * median per call over about 40 ms of calls (at least one), in wall-clock and
 * in process CPU time (all threads: with CJAX_NUM_THREADS=1, which the
 * bench also imposes on XLA by pinning itself and its peers to one CPU, it
 * is one thread's time, which load on a shared machine barely moves). A figure is the median over rounds; a
 * ratio is the median of the rounds' ratios. The ODE's forward rows also
 * time the same arithmetic as a plain C loop (the target:
 * cjax <= 1.5x plain C).
 *
 * Before timing, every row's result is compared with a reference that
 * does not use cjax (plain C in f32, central differences in f64, a closed
 * form) and with JAX's: the largest difference relative to the reference's
 * largest magnitude. One beyond its row's limit is printed as CHECK FAILED
 * and makes the bench exit with status 1. Header-only: CMake makes one
 * program per .c file in bench/. */
#ifndef CJ_BENCH_CTRL_H
#define CJ_BENCH_CTRL_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjax.h>

#include "bench_coproc.h"
#include "bench_ctrl_work.h"
#include "bench_json.h"
#include "bench_util.h"
#include "runtime/threads.h"

#define CTRL_MAX_ROUNDS 15
#define CTRL_ROUND_MS 40.0 /* per row and round: calls until this much is spent ... */
#define CTRL_MIN_CALLS 1   /* ... within these bounds (rounds repeat the slow rows) */
#define CTRL_MAX_CALLS 400
#define CTRL_MAX_OUT (HESS_POINTS * HESS_DIM * HESS_DIM)

enum { ODE_FWD, ODE_GRAD, ODE_GRAD_REMAT, ODE_VMAP, HESS_VMAP, SCAN3_GRAD, CTRL_N_ROWS };

typedef struct ctrl_row {
    int id;
    const char *key, *name;
    int eager;     /* timed without jit */
    double limit;  /* the largest relative difference that passes */
    const char *ref_name;
    /* set up by ctrl_make */
    cj_func *fn;
    cj_val in[4];
    int n_outs, n_out; /* outputs, and their elements in all */
    void (*c_run)(void); /* the plain C loop, NULL if none */
    /* per round */
    double wall[CTRL_MAX_ROUNDS], cpu[CTRL_MAX_ROUNDS], jwall[CTRL_MAX_ROUNDS], jcpu[CTRL_MAX_ROUNDS];
    double cwall[CTRL_MAX_ROUNDS], ccpu[CTRL_MAX_ROUNDS];
    /* results (NaN when not measured) */
    double ms_wall, ms_cpu, jax_wall, jax_cpu, c_wall, c_cpu;
    double over_jax_wall, over_jax_cpu, over_c_wall, over_c_cpu;
    double diff_ref, diff_jax;
    int native;
    char cc_error[160];
    char error[200]; /* cjax's error when the row could not run */
    int skipped, failed;
} ctrl_row;

typedef struct ctrl_run {
    ctrl_row *rows;
    int n_rows, rounds, ran, threads;
    char jax[96]; /* JAX's version, or "missing", "failed: ...", "skipped" */
    int check_failed;
} ctrl_run;

static ctrl_row ctrl_rows[CTRL_N_ROWS] = {
    {ODE_FWD, "ode_fwd", "RK4 cart-pendulum, 1000 st", .limit = 1e-3, .ref_name = "C f32"},
    {ODE_GRAD, "ode_grad", "  its grad, no checkpoint", .limit = 1e-3, .ref_name = "f64 diff"},
    {ODE_GRAD_REMAT, "ode_grad_remat", "  same, checkpointed step", .limit = 1e-3, .ref_name = "f64 diff"},
    {ODE_VMAP, "ode_vmap", "  vmap over 256 states", .limit = 1e-3, .ref_name = "C f32"},
    {HESS_VMAP, "hess_vmap", "vmap(hessian) 8-d, 1000 pt", .limit = 1e-3, .ref_name = "closed"},
    {SCAN3_GRAD, "scan3_grad", "eager grad, 3-carry scan", .eager = 1, .limit = 1e-3, .ref_name = "f64 diff"},
};

/* ---- the programs, as timed ---- */
static ode_arg ctrl_ode[ODE_VMAP + 1];
static scan3_arg ctrl_scan3;
static float ctrl_c_out[ODE_BATCH * 4];

static void ctrl_c_fwd(void) { ode_c_f32(ode_s0, ode_p, ctrl_c_out); }
static void ctrl_c_batch(void) {
    static float s0[ODE_BATCH * 4];
    for (int b = 0; b < ODE_BATCH; b++)
        for (int i = 0; i < 4; i++) s0[b * 4 + i] = ode_batch_s0(b, i);
    for (int b = 0; b < ODE_BATCH; b++) ode_c_f32(s0 + 4 * b, ode_p, ctrl_c_out + 4 * b);
}

static cj_val ctrl_array(cj_ctx *ctx, const float *data, int rank, const int64_t *dims) {
    return cj_array(ctx, CJ_F32, rank, dims, data);
}

/* The row's inputs and the function timed: jit with generated C, or the
 * plain transformation for the eager row. */
static void ctrl_make(cj_ctx *ctx, ctrl_row *r) {
    int k = r->id;
    static const cj_jit_opts cc = {0, NULL, 0, NULL, CJ_BACKEND_CC};
    int64_t four = 4;
    cj_func *f = NULL;
    r->n_outs = 1;
    if (k <= ODE_VMAP) { /* the ODE rows: (s0, p) */
        ode_arg *a = &ctrl_ode[k];
        a->step = cj_func_new(ctx, "rk4_step", ode_step_fn, 1, 1, a);
        if (k == ODE_GRAD_REMAT) a->step = cj_checkpoint(a->step, NULL); /* saves nothing: recomputes the step */
        r->in[0] = ctrl_array(ctx, ode_s0, 1, &four);
        r->in[1] = ctrl_array(ctx, ode_p, 1, &four);
    }
    if (k == ODE_FWD) {
        f = cj_func_new(ctx, "ode_fwd", ode_fwd_fn, 2, 1, &ctrl_ode[0]);
        r->n_out = 4, r->c_run = ctrl_c_fwd;
    } else if (k == ODE_GRAD || k == ODE_GRAD_REMAT) {
        static const int argnums[2] = {0, 1};
        cj_grad_opts go = {2, argnums, 0};
        f = cj_grad(cj_func_new(ctx, "ode_loss", ode_loss_fn, 2, 1, &ctrl_ode[k]), &go);
        r->n_outs = 2, r->n_out = 8;
    } else if (k == ODE_VMAP) {
        static float s0[ODE_BATCH * 4];
        for (int b = 0; b < ODE_BATCH; b++)
            for (int i = 0; i < 4; i++) s0[b * 4 + i] = ode_batch_s0(b, i);
        r->in[0] = ctrl_array(ctx, s0, 2, (int64_t[]){ODE_BATCH, 4});
        static const int64_t axes[2] = {0, CJ_NOT_MAPPED};
        cj_vmap_opts vo = {axes, NULL, 0, 0, 0};
        f = cj_vmap(cj_func_new(ctx, "ode_fwd", ode_fwd_fn, 2, 1, &ctrl_ode[k]), &vo);
        r->n_out = ODE_BATCH * 4, r->c_run = ctrl_c_batch;
    } else if (k == HESS_VMAP) {
        static float pts[HESS_POINTS * HESS_DIM];
        for (int p = 0; p < HESS_POINTS; p++)
            for (int j = 0; j < HESS_DIM; j++) pts[p * HESS_DIM + j] = hess_point(p, j);
        r->in[0] = ctrl_array(ctx, pts, 2, (int64_t[]){HESS_POINTS, HESS_DIM});
        f = cj_vmap(cj_hessian(cj_func_new(ctx, "rosen", rosen_fn, 1, 1, NULL), NULL), NULL);
        r->n_out = HESS_POINTS * HESS_DIM * HESS_DIM;
    } else {
        float h0[SCAN3_N], v0[SCAN3_N], w[SCAN3_N], xs[SCAN3_STEPS * SCAN3_N];
        for (int j = 0; j < SCAN3_N; j++) h0[j] = scan3_h0(j), v0[j] = scan3_v0(j), w[j] = scan3_w(j);
        for (int t = 0; t < SCAN3_STEPS; t++)
            for (int j = 0; j < SCAN3_N; j++) xs[t * SCAN3_N + j] = scan3_x(t, j);
        int64_t n = SCAN3_N;
        r->in[0] = ctrl_array(ctx, h0, 1, &n);
        r->in[1] = ctrl_array(ctx, v0, 1, &n);
        r->in[2] = ctrl_array(ctx, w, 1, &n);
        r->in[3] = ctrl_array(ctx, xs, 2, (int64_t[]){SCAN3_STEPS, SCAN3_N});
        ctrl_scan3.body = cj_func_new(ctx, "scan3_body", scan3_body_fn, 4, 3, &ctrl_scan3);
        static const int argnums[3] = {0, 1, 2};
        cj_grad_opts go = {3, argnums, 0};
        f = cj_grad(cj_func_new(ctx, "scan3_loss", scan3_loss_fn, 4, 1, &ctrl_scan3), &go);
        r->n_outs = 3, r->n_out = 3 * SCAN3_N;
    }
    r->fn = r->eager ? f : cj_jit(f, &cc);
}

/* The row's outputs, concatenated, as doubles; 0 or -1 (error reported). */
static int ctrl_outputs(cj_ctx *ctx, ctrl_row *r, double *out) {
    static float buf[CTRL_MAX_OUT];
    cj_val o[4];
    cj_scope_begin(ctx);
    int n = 0, ok = cj_call(r->fn, r->in, o) == CJ_OK;
    for (int i = 0; ok && i < r->n_outs; i++) {
        int len = r->n_out / r->n_outs;
        ok = cj_read(o[i], buf + n, sizeof(float) * (size_t)len) == CJ_OK;
        n += len;
    }
    cj_scope_end(ctx, 0, NULL);
    if (!ok) {
        snprintf(r->error, sizeof r->error, "%s", cj_error_message(ctx));
        fprintf(stderr, "bench: %s: %s\n", r->key, r->error);
        cj_error_clear(ctx);
        return -1;
    }
    for (int i = 0; i < n; i++) out[i] = buf[i];
    return 0;
}

/* max |got - ref| / max |ref| over n values */
static double ctrl_rel_diff(const double *got, const double *ref, int n) {
    double worst = 0, scale = 0;
    for (int i = 0; i < n; i++) scale = fmax(scale, fabs(ref[i]));
    for (int i = 0; i < n; i++) worst = fmax(worst, fabs(got[i] - ref[i]));
    if (!(worst == worst)) return NAN;
    return scale > 0 ? worst / scale : worst;
}

/* The reference that does not use cjax, into ref (r->n_out values). */
static void ctrl_reference(int k, double *ref) {
    if (k == ODE_FWD || k == ODE_VMAP) {
        if (k == ODE_FWD) ctrl_c_fwd(); else ctrl_c_batch();
        for (int i = 0; i < (k == ODE_FWD ? 4 : ODE_BATCH * 4); i++) ref[i] = ctrl_c_out[i];
    } else if (k == ODE_GRAD || k == ODE_GRAD_REMAT) {
        ode_grad_fd(ref);
    } else if (k == HESS_VMAP) {
        for (int p = 0; p < HESS_POINTS; p++) {
            float x[HESS_DIM];
            for (int j = 0; j < HESS_DIM; j++) x[j] = hess_point(p, j);
            rosen_hessian(x, ref + p * HESS_DIM * HESS_DIM);
        }
    } else {
        scan3_grad_fd(ref);
    }
}

static void ctrl_check(cj_ctx *ctx, ctrl_run *cr, ctrl_row *r, const char *ready) {
    int k = r->id;
    static double got[CTRL_MAX_OUT], ref[CTRL_MAX_OUT], jx[CTRL_MAX_OUT];
    if (ctrl_outputs(ctx, r, got) != 0) {
        r->failed = 1;
        return;
    }
    ctrl_reference(k, ref);
    r->diff_ref = ctrl_rel_diff(got, ref, r->n_out);
    char key[64];
    snprintf(key, sizeof key, "jax.%s.value", r->key);
    int n = coproc_array(ready, key, jx, CTRL_MAX_OUT);
    if (k == HESS_VMAP && n > 0) { /* JAX sends every HESS_SAMPLE-th point's Hessian */
        const int per = HESS_DIM * HESS_DIM, sample = 63;
        static double sub[CTRL_MAX_OUT];
        int m = 0;
        for (int p = 0; p < HESS_POINTS && (m + 1) * per <= n; p += sample, m++)
            memcpy(sub + m * per, got + p * per, sizeof(double) * per);
        r->diff_jax = m * per == n ? ctrl_rel_diff(sub, jx, n) : NAN;
    } else if (n > 0) {
        r->diff_jax = n == r->n_out ? ctrl_rel_diff(got, jx, n) : NAN;
    }
    const char *bad = !(r->diff_ref <= r->limit) ? r->ref_name
                      : n > 0 && !(r->diff_jax <= r->limit) ? "JAX" : NULL;
    if (bad) {
        fprintf(stderr, "bench: CHECK FAILED: %s: cjax against %s differs by %.3g (relative to the largest "
                        "value; limit %.0e)\n", r->key, bad, !strcmp(bad, "JAX") ? r->diff_jax : r->diff_ref,
                r->limit);
        cr->check_failed = 1;
    }
}

/* ---- timing ---- */
static double cpu_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
static double ctrl_median(double *v, int n) {
    double s[CTRL_MAX_CALLS > CTRL_MAX_ROUNDS ? CTRL_MAX_CALLS : CTRL_MAX_ROUNDS];
    int m = 0;
    for (int i = 0; i < n; i++)
        if (isfinite(v[i])) s[m++] = v[i];
    if (!m) return NAN;
    qsort(s, (size_t)m, sizeof s[0], cmp_double);
    return s[m / 2];
}

/* One timed call of a cjax row. Not inlined, so that a profile of the
 * steady state alone can be taken with
 * `valgrind --tool=callgrind --toggle-collect=ctrl_call_once` (the
 * warm-up and the checks call cj_call directly; bench/results/README.md). */
__attribute__((noinline)) static void ctrl_call_once(cj_ctx *ctx, ctrl_row *r) {
    cj_val o[4];
    cj_scope_begin(ctx);
    cj_call(r->fn, r->in, o);
    cj_scope_end(ctx, 0, NULL);
}

/* One round of a cjax row (or of its plain C loop): medians per call. */
static void ctrl_time(cj_ctx *ctx, ctrl_row *r, int plain_c, double *wall, double *cpu) {
    double w[CTRL_MAX_CALLS], c[CTRL_MAX_CALLS], spent = 0;
    int n = 0;
    while (n < CTRL_MAX_CALLS && (n < CTRL_MIN_CALLS || spent < CTRL_ROUND_MS)) {
        double t0 = now_ms(), c0 = cpu_ms();
        if (plain_c)
            r->c_run();
        else
            ctrl_call_once(ctx, r);
        w[n] = now_ms() - t0, c[n] = cpu_ms() - c0;
        spent += w[n++];
    }
    if (cj_error(ctx)) {
        fprintf(stderr, "bench: %s: %s\n", r->key, cj_error_message(ctx));
        cj_error_clear(ctx);
        *wall = *cpu = NAN;
        return;
    }
    *wall = ctrl_median(w, n), *cpu = ctrl_median(c, n);
}

static double ctrl_ratio_median(const double *a, const double *b, int n) {
    double q[CTRL_MAX_ROUNDS];
    for (int i = 0; i < n; i++) q[i] = b[i] > 0 ? a[i] / b[i] : NAN;
    return ctrl_median(q, n);
}

/* Builds, checks and times the selected rows. selected(key) says whether
 * --only picks "ctrl_<key>"; use_jax 0 leaves JAX out ("skipped"). */
/* Did the JAX co-process send a value for at least one selected row? (It
 * computes only the rows asked for, so no single row's key will do.) */
static int ctrl_jax_has_values(const char *ready) {
    char key[96];
    for (int k = 0; k < CTRL_N_ROWS; k++) {
        if (ctrl_rows[k].skipped) continue;
        snprintf(key, sizeof key, "jax.%s.value", ctrl_rows[k].key);
        if (peers_find(ready, key)) return 1;
    }
    return 0;
}

static void ctrl_measure(ctrl_run *cr, cj_ctx *ctx, int (*selected)(const char *), int use_jax, int rounds) {
    cr->rows = ctrl_rows, cr->n_rows = CTRL_N_ROWS, cr->check_failed = 0, cr->ran = 0;
    cr->rounds = rounds < 1 ? 1 : rounds > CTRL_MAX_ROUNDS ? CTRL_MAX_ROUNDS : rounds;
    cr->threads = rt_num_threads();
    snprintf(cr->jax, sizeof cr->jax, "%s", use_jax ? "missing" : "skipped");
    int any = 0;
    for (int k = 0; k < CTRL_N_ROWS; k++) {
        ctrl_row *r = &ctrl_rows[k];
        char full[64];
        snprintf(full, sizeof full, "ctrl_%s", r->key);
        r->skipped = !selected(full);
        r->ms_wall = r->ms_cpu = r->jax_wall = r->jax_cpu = r->c_wall = r->c_cpu = NAN;
        r->over_jax_wall = r->over_jax_cpu = r->over_c_wall = r->over_c_cpu = NAN;
        r->diff_ref = r->diff_jax = NAN;
        r->failed = 0, r->error[0] = 0, r->native = 0, r->cc_error[0] = 0;
        for (int i = 0; i < CTRL_MAX_ROUNDS; i++)
            r->wall[i] = r->cpu[i] = r->jwall[i] = r->jcpu[i] = r->cwall[i] = r->ccpu[i] = NAN;
        any |= !r->skipped;
    }
    if (!any) return;
    cr->ran = 1;

    /* JAX starts (imports, compiles) while cjax traces and compiles */
    coproc jax;
    memset(&jax, 0, sizeof jax);
    int started = 0;
    if (use_jax) {
        fflush(stdout);
        fprintf(stderr, "bench: starting JAX for the control rows (python3 bench/peers_ctrl.py)...\n");
        char cmd[512] = "command -v python3 >/dev/null 2>&1 && exec python3 bench/peers_ctrl.py";
        for (int k = 0; k < CTRL_N_ROWS; k++) /* only the selected rows */
            if (!ctrl_rows[k].skipped) strncat(cmd, " ", sizeof cmd - strlen(cmd) - 1),
                                       strncat(cmd, ctrl_rows[k].key, sizeof cmd - strlen(cmd) - 1);
        started = coproc_start(&jax, cmd) == 0;
    }
    for (int k = 0; k < CTRL_N_ROWS; k++) {
        ctrl_row *r = &ctrl_rows[k];
        if (r->skipped) continue;
        ctrl_make(ctx, r);
        cj_val o[4];
        cj_scope_begin(ctx);
        if (r->fn) cj_call(r->fn, r->in, o); /* the warm-up: traces, compiles */
        cj_scope_end(ctx, 0, NULL);
        if (!r->fn || cj_error(ctx)) {
            snprintf(r->error, sizeof r->error, "%s", cj_error(ctx) ? cj_error_message(ctx) : "no function");
            fprintf(stderr, "bench: %s: %s\n", r->key, r->error);
            cj_error_clear(ctx);
            r->failed = 1;
            continue;
        }
        cj_program_info info;
        if (!r->eager && cj_jit_program_info(r->fn, r->in, &info) == CJ_OK) {
            r->native = info.native;
            snprintf(r->cc_error, sizeof r->cc_error, "%s", info.compile_error ? info.compile_error : "");
            if (r->cc_error[0]) fprintf(stderr, "bench: %s: generated C not in use: %s\n", r->key, r->cc_error);
        }
        cj_error_clear(ctx);
    }

    const char *ready = started ? coproc_read(&jax) : NULL;
    if (use_jax) {
        char v[96];
        peers_str(ready, "info.jax", v, sizeof v);
        snprintf(cr->jax, sizeof cr->jax, "%s", v[0] ? v : "missing");
        if (strncmp(cr->jax, "failed", 6) && strcmp(cr->jax, "missing") && !ctrl_jax_has_values(ready))
            snprintf(cr->jax, sizeof cr->jax, "failed");
    }
    /* ready is getline's buffer: keep a copy for the checks */
    char *values = ready ? strdup(ready) : NULL;
    int have_jax = values && ctrl_jax_has_values(values);

    for (int k = 0; k < CTRL_N_ROWS; k++)
        if (!ctrl_rows[k].skipped && !ctrl_rows[k].failed) ctrl_check(ctx, cr, &ctrl_rows[k], have_jax ? values : NULL);

    for (int round = 0; round < cr->rounds; round++) {
        const char *line = NULL;
        /* JAX first in odd rounds, so neither side always follows the other */
        if (have_jax && round % 2) line = coproc_ask(&jax, "round");
        for (int k = 0; k < CTRL_N_ROWS; k++) {
            ctrl_row *r = &ctrl_rows[k];
            if (r->skipped || r->failed) continue;
            ctrl_time(ctx, r, 0, &r->wall[round], &r->cpu[round]);
            if (r->c_run) ctrl_time(ctx, r, 1, &r->cwall[round], &r->ccpu[round]);
        }
        if (have_jax && !(round % 2)) line = coproc_ask(&jax, "round");
        for (int k = 0; k < CTRL_N_ROWS; k++) {
            ctrl_row *r = &ctrl_rows[k];
            r->jwall[round] = r->jcpu[round] = NAN;
            peers_num(line, "jax", r->key, "wall_ms", &r->jwall[round]);
            peers_num(line, "jax", r->key, "cpu_ms", &r->jcpu[round]);
        }
    }
    coproc_stop(&jax);
    free(values);

    for (int k = 0; k < CTRL_N_ROWS; k++) {
        ctrl_row *r = &ctrl_rows[k];
        if (r->skipped) continue; /* a failed row keeps JAX's figures */
        int n = cr->rounds;
        r->ms_wall = ctrl_median(r->wall, n), r->ms_cpu = ctrl_median(r->cpu, n);
        r->jax_wall = ctrl_median(r->jwall, n), r->jax_cpu = ctrl_median(r->jcpu, n);
        r->over_jax_wall = ctrl_ratio_median(r->wall, r->jwall, n);
        r->over_jax_cpu = ctrl_ratio_median(r->cpu, r->jcpu, n);
        if (r->c_run) {
            r->c_wall = ctrl_median(r->cwall, n), r->c_cpu = ctrl_median(r->ccpu, n);
            r->over_c_wall = ctrl_ratio_median(r->wall, r->cwall, n);
            r->over_c_cpu = ctrl_ratio_median(r->cpu, r->ccpu, n);
        }
    }
}

/* ---- the table and the JSON record ---- */
static const char *ctrl_fmt(char *b, size_t n, double v, const char *absent, int ratio) {
    if (!isfinite(v))
        snprintf(b, n, "%s", absent);
    else
        snprintf(b, n, ratio ? (v < 0.01 ? "%.1gx" : v < 0.1 ? "%.2gx" : "%.2fx") : v < 1 ? "%.3f" : "%.2f", v);
    return b;
}

static void ctrl_print(const ctrl_run *cr) {
    if (!cr->ran) return;
    const char *absent = !strcmp(cr->jax, "skipped")        ? "skipped"
                         : !strncmp(cr->jax, "failed", 6) ? "failed"
                         : !strcmp(cr->jax, "missing")    ? "missing"
                                                          : "-";
    printf("\ncontrol rows: cjax jit-cc (the eager row: no jit) and JAX %s (jax.jit; the eager row: jax.grad), "
           "%d alternating rounds;\nmedians per call, wall clock and process CPU time (cjax pool %d thread%s); "
           "ratios are medians of the rounds' ratios\n",
           cr->jax, cr->rounds, cr->threads, cr->threads == 1 ? "" : "s");
    printf("%-27s %8s %8s %7s | %8s %8s %7s | %8s %7s %7s | %s\n", "workload (ms)", "cjax", "jax", "cj/jax",
           "cpu cjax", "cpu jax", "cj/jax", "plain C", "cj/C", "cpu", "max rel diff: reference, JAX");
    for (int k = 0; k < cr->n_rows; k++) {
        const ctrl_row *r = &cr->rows[k];
        if (r->skipped) continue;
        char a[16], b[16], c[16], d[16], e[16], f[16], g[16], h[16], cw[16];
        ctrl_fmt(a, sizeof a, r->ms_wall, "error", 0);
        if (isfinite(r->ms_wall) && r->cc_error[0]) strncat(a, "*", sizeof a - strlen(a) - 1);
        /* the checks: against the reference, against JAX */
        char chk[96];
        if (r->failed)
            snprintf(chk, sizeof chk, "not run: cjax error (below)");
        else if (isfinite(r->diff_jax))
            snprintf(chk, sizeof chk, "%s %.1e, JAX %.1e", r->ref_name, r->diff_ref, r->diff_jax);
        else
            snprintf(chk, sizeof chk, "%s %.1e, JAX %s", r->ref_name, r->diff_ref, absent);
        printf("%-27s %8s %8s %7s | %8s %8s %7s | %8s %7s %7s | %s\n", r->name, a,
               ctrl_fmt(b, sizeof b, r->jax_wall, absent, 0), ctrl_fmt(c, sizeof c, r->over_jax_wall, "-", 1),
               ctrl_fmt(d, sizeof d, r->ms_cpu, "error", 0), ctrl_fmt(e, sizeof e, r->jax_cpu, absent, 0),
               ctrl_fmt(f, sizeof f, r->over_jax_cpu, "-", 1), ctrl_fmt(cw, sizeof cw, r->c_wall, "-", 0),
               ctrl_fmt(g, sizeof g, r->over_c_wall, "-", 1), ctrl_fmt(h, sizeof h, r->over_c_cpu, "-", 1), chk);
    }
    printf("RK4: 4 states (cart position and velocity, pole angle and rate), 4 parameters, dt 0.01, f32; the forward "
           "returns the final state.\ncj/C: against the same arithmetic as a plain C loop (target <= 1.5x). "
           "reference: C f32 loop, f64 central differences, or closed form.\n");
    for (int k = 0; k < cr->n_rows; k++)
        if (!cr->rows[k].skipped && cr->rows[k].failed)
            printf("%s: cjax error: %s\n", cr->rows[k].key, cr->rows[k].error[0] ? cr->rows[k].error : "(see stderr)");
    if (cr->check_failed) printf("CHECK FAILED: see stderr\n");
}

static void ctrl_json(FILE *f, const ctrl_run *cr) {
    fputs("{", f);
    json_num(f, "rounds", cr->ran ? cr->rounds : NAN, 1);
    json_num(f, "cjax_threads", cr->threads, 0);
    json_text(f, "jax", cr->jax, 0);
    json_key(f, "check_failed", 0);
    fputs(cr->check_failed ? "true" : "false", f);
    json_key(f, "rows", 0);
    fputs("[", f);
    int first = 1;
    for (int k = 0; cr->ran && k < cr->n_rows; k++) {
        const ctrl_row *r = &cr->rows[k];
        if (r->skipped) continue;
        fputs(first ? "\n    {" : ",\n    {", f);
        first = 0;
        json_text(f, "key", r->key, 1);
        json_text(f, "name", r->name, 0);
        json_key(f, "eager", 0);
        fputs(r->eager ? "true" : "false", f);
        json_num(f, "cjax_ms", r->ms_wall, 0);
        json_num(f, "cjax_cpu_ms", r->ms_cpu, 0);
        json_num(f, "jax_ms", r->jax_wall, 0);
        json_num(f, "jax_cpu_ms", r->jax_cpu, 0);
        json_num(f, "over_jax", r->over_jax_wall, 0);
        json_num(f, "over_jax_cpu", r->over_jax_cpu, 0);
        json_num(f, "plain_c_ms", r->c_wall, 0);
        json_num(f, "plain_c_cpu_ms", r->c_cpu, 0);
        json_num(f, "over_c", r->over_c_wall, 0);
        json_num(f, "over_c_cpu", r->over_c_cpu, 0);
        json_text(f, "reference", r->ref_name, 0);
        json_num(f, "max_rel_diff_reference", r->diff_ref, 0);
        json_num(f, "max_rel_diff_jax", r->diff_jax, 0);
        json_num(f, "limit", r->limit, 0);
        json_key(f, "cc_native", 0);
        fputs(r->native ? "true" : "false", f);
        json_text(f, "cc_error", r->cc_error, 0);
        json_text(f, "error", r->error, 0);
        fputc('}', f);
    }
    fputs("]}", f);
}

#endif
