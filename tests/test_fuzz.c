/* test_fuzz.c — differential tests over random programs (fuzz_gen.h).
 *
 * Every program of a fixed-seed corpus runs eagerly (the reference) and is
 * checked against:
 *   fuzz_jit_interp  cj_jit on the interpreter (CJ_BACKEND_INTERP), a first
 *                    call and a second on new inputs (one trace);
 *   fuzz_jit_cc      cj_jit on generated C (CJ_BACKEND_CC), for every
 *                    FZ_CC_EVERY-th program only (C compiles are slow; the
 *                    disk cache makes reruns fast) — also checks the C
 *                    compiled;
 *   fuzz_vmap        cj_vmap with random in_axes (some inputs unmapped)
 *                    over a batch of FZ_BATCH against a C loop of eager
 *                    calls;
 *   fuzz_grad_jvp    cj_grad of sum(output) against cj_jvp: <g, v> must
 *                    equal the jvp along a random v; and jit(grad)
 *                    against grad;
 *   fuzz_grad_fd     cj_grad of the program computed in f64 throughout
 *                    against central finite differences on a few
 *                    coordinates.
 * Each eager result is also checked to have the type the generator
 * predicted and finite values. A disagreement prints the program (its node
 * list, constructs with their bodies, and cj_make_jaxpr with each
 * construct's sub-programs), the seed and the command that reruns just it.
 *
 * Extended programs (fuzz_gen.h: cond, switch, scan, fori_loop, while_loop,
 * nested and closing over outer values; random draws; dynamic slices and
 * updates at a loop's index) go through the same checks, with the
 * exceptions JAX has too:
 * - reverse mode of a while loop a tangent reaches is an error by design:
 *   grad must then fail with exactly that message (CJ_ERR_UNSUPPORTED,
 *   FZ_WHILE_REVERSE_ERROR) and jit(grad) too; a program whose while loop
 *   no tangent reaches is differentiated and checked as any other. Either
 *   way, fuzz_grad_fd checks every while program's forward mode: its jvp
 *   along a random direction against central differences. Some while
 *   programs must have been refused in a corpus of 1,000 or more.
 * - random bits are integers: the program reads them as floats
 *   (astype(bits) * 2^-31), which carry no derivative; draws take part in
 *   every check as constants (their keys come from seeds, fold_in of
 *   constants, loop indices or data), so grad with respect to the inputs
 *   goes through them as JAX's does.
 *
 * Tolerances (why they are what they are):
 * - jit and vmap against eager: the generator estimates, per node, the
 *   absolute rounding error (in units of the unit roundoff u: 2^-24 when any
 *   node is f32, else 2^-53) by which two correct evaluations may differ:
 *   fused kernels may sum in another order or use other transcendental
 *   code. Allowed: 16 u (err_estimate + bound + 1). (Measured: jit agrees
 *   with eager bit for bit on every corpus program; vmap's worst difference
 *   is 1/80 of its tolerance, 1/60000 on extended programs.) A wrong result
 *   is off by O(bound).
 * - grad against jvp, and jit(grad) against grad: the same derivative by
 *   different routes, in the program's dtypes: |<g,v> - jvp| <=
 *   FZ_AD_ULPS u (1 + sum |g_i v_i|), elementwise |jit - eager| <=
 *   FZ_AD_ULPS u (1 + max |g|). (Measured worst: 1/20 of it; extended
 *   programs 1/60, jit(grad) bit for bit.)
 * - grad against finite differences (f64 throughout): h = 1e-5, then
 *   h = 1e-7 if that fails (a kink of abs/max/clip/where crossed by the
 *   larger step, a branch or trip count that the step changes, or a large
 *   third derivative); passes when either agrees within
 *   1e-6 (1 + |g|) + 1e-15 S / h, S a bound on |sum(output)|; the same
 *   for a jvp along v. (Measured worst with h = 1e-5: 1/30 of it; extended
 *   programs 1/350, a while program's jvp along v 1/3.)
 *
 * The new dtypes (fuzz_gen.h's families): a bf16/f16 program's roundoff u
 * is its narrowest float's (2^-8, 2^-11), and grad against jvp allows
 * FZ_AD_ULPS_NARROW of it (1000 bf16 ulps would be no check); its f64 form
 * is differentiated by finite differences as any other. An integer
 * program's results must be equal (u = 0): wrapping arithmetic, division
 * by zero and shifts past the width are defined, so every correct path
 * gives the same integers; it has no derivative, so the two grad tests
 * count it as not run.
 *
 * Corpus: FZ_DEFAULT_COUNT seeds (40000 in Release builds, 3000 in Debug
 * and sanitizer builds). Every basic program runs; an extended one (a
 * quarter of the seeds, about 9 times the cost of a basic one) runs when
 * its index is a multiple of FZ_EXTENDED_EVERY, so a Release `make test`
 * checks 30,000 basic and 1,250 extended programs (about 100 in Debug).
 * Measured on 2 cores, `cjax_tests fuzz_` with the disk cache warm: 29 to
 * 35 s, against 29 to 33 s before extended programs existed; fuzz_jit_cc's
 * 357 programs from a cold disk cache about 37 s, as before.
 *
 * Long mode: CJAX_FUZZ_COUNT=N CJAX_FUZZ_SEED=S run N programs with seeds
 * S, S+1, ... (defaults: FZ_DEFAULT_COUNT programs from FZ_DEFAULT_SEED),
 * every extended one included, e.g. CJAX_FUZZ_COUNT=1000000
 * CJAX_FUZZ_SEED=$RANDOM cjax_tests fuzz_. Program seeds are independent,
 * so CJAX_FUZZ_SEED=<a failing program's seed> CJAX_FUZZ_COUNT=1 reruns
 * exactly that program (it counts as index 0, so the cc check includes
 * it). CJAX_FUZZ_CC_EVERY=K sends every K-th program (default
 * FZ_CC_EVERY) through generated C in fuzz_jit_cc. */
#include <stdarg.h>
#include <stdlib.h>

#include "backend/program_impl.h"
#include "fuzz_gen.h"
#include "harness.h"

#define FZ_DEFAULT_SEED 20240601u
/* Sized to the time budget (about 40 s for all five tests of a Release
 * build on 2 cores; cold C compiles for fuzz_jit_cc once per machine).
 * Debug and sanitizer builds run 10x slower: a smaller corpus there. */
#ifdef NDEBUG
#define FZ_DEFAULT_COUNT 40000
#else
#define FZ_DEFAULT_COUNT 3000
#endif
/* Extended programs (control flow, random numbers: FZ_EXTENDED_SHARE of
 * the seeds) cost about 9 times a basic one; the default corpus runs one
 * in FZ_EXTENDED_EVERY of them (by index), and every basic one. */
#define FZ_EXTENDED_EVERY 8
#define FZ_CC_EVERY 100
#define FZ_BATCH 3
#define FZ_AD_ULPS 1000  /* grad vs jvp, jit(grad) vs grad: units of roundoff */
/* The same in bf16/f16 programs, whose roundoff is 2^16 / 2^13 times
 * f32's: 1000 of it would be no check at all. */
#define FZ_AD_ULPS_NARROW 64
#define FZ_MAX_REPORTS 5 /* programs printed per test before going quiet */

/* Bugs the fuzzer found are fixed and pinned by regression tests, not
 * excluded here: vmap of a dynamic slice/update of a rank-0 operand and of
 * an empty dynamic update at batched starts (test_vmap.c,
 * vmap_regression_*), constructs of 65..128 operands under a trace
 * (test_control.c, cf_regression_*), a pad leaf in generated row kernels
 * (fuzz_regression_pad_into_row_reduction_cc below). */

typedef struct corpus {
    uint64_t seed;
    int count;
    int extended_every; /* run the extended program of index i when i % this == 0 */
    int cc_every;       /* fuzz_jit_cc runs program i when i % this == 0 */
} corpus;

static corpus corpus_get(void) {
    corpus c = {FZ_DEFAULT_SEED, FZ_DEFAULT_COUNT, FZ_EXTENDED_EVERY, FZ_CC_EVERY};
    const char *n = getenv("CJAX_FUZZ_COUNT"), *s = getenv("CJAX_FUZZ_SEED");
    const char *cc = getenv("CJAX_FUZZ_CC_EVERY");
    if (n && *n) c.count = atoi(n), c.extended_every = 1; /* a chosen count runs every program */
    if (s && *s) c.seed = strtoull(s, NULL, 10);
    if (cc && atoi(cc) > 0) c.cc_every = atoi(cc); /* long runs may weight generated C heavier */
    return c;
}

/* ---- a program with concrete inputs ---- */
typedef struct instance {
    const fz_program *p;
    cj_ctx *ctx;
    cj_func *f;                    /* the program */
    double *data[FZ_MAX_INPUTS];   /* host copies of the inputs (exact) */
    cj_val in[FZ_MAX_INPUTS];
} instance;

static cj_val array_from(cj_ctx *ctx, cj_dtype dt, int rank, const int64_t *dims, const double *data, int64_t n) {
    return fz_array_from(ctx, dt, rank, dims, data, n);
}

/* Host data of type t (fz_random_element: uniform floats, integers mostly
 * small), exactly representable in t's dtype so the host copy is exactly
 * the array. */
static double *random_data(const fz_type *t, uint64_t *rng) {
    int64_t n = fz_type_size(t);
    double *d = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    for (int64_t i = 0; i < n; i++) d[i] = fz_random_element(t->dtype, rng);
    return d;
}

static void instance_init(instance *x, const fz_program *p, uint64_t salt) {
    memset(x, 0, sizeof *x);
    x->p = p;
    x->ctx = cj_ctx_new(NULL);
    x->f = cj_func_new(x->ctx, "fuzz", fz_fn, p->n_inputs, 1, (void *)p);
    uint64_t rng = p->seed * 0x9E3779B97F4A7C15ull + salt;
    for (int i = 0; i < p->n_inputs; i++) {
        const fz_type *t = fz_input_type(p, i);
        x->data[i] = random_data(t, &rng);
        x->in[i] = array_from(x->ctx, t->dtype, t->rank, t->dims, x->data[i], fz_type_size(t));
    }
}

static void instance_free(instance *x) {
    for (int i = 0; i < x->p->n_inputs; i++) free(x->data[i]);
    cj_ctx_free(x->ctx);
}

/* The whole array as f64 (malloc'd; NULL on an error). */
static double *read_all(cj_val v) {
    int64_t n = cj_val_size(v);
    if (n < 0) return NULL;
    double *d = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    if (n > 0 && cj_read_as(v, CJ_F64, d, sizeof(double) * (size_t)n) != CJ_OK) {
        free(d);
        return NULL;
    }
    return d;
}

static double max_d(double a, double b) { return a > b ? a : b; }
/* 0 for an integer program: every path must give the same integers. */
static double program_eps(const fz_program *p) { return fz_program_eps(p); }

static double result_tol(const fz_program *p) {
    const fz_type *t = fz_output_type(p);
    return 16 * program_eps(p) * (t->err + t->bound + 1);
}

/* Prints why a program failed a check, the program, its jaxpr and how to
 * rerun it; returns 0 (the check's result). */
static int report(instance *x, const char *check, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int printed; /* failures printed by the running test */
static int report(instance *x, const char *check, const char *fmt, ...) {
    if (printed++ >= FZ_MAX_REPORTS) return 0;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "\nfuzz: %s: program seed %llu: ", check, (unsigned long long)x->p->seed);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    if (cj_error(x->ctx)) fprintf(stderr, "\n  cjax error: %s", cj_error_message(x->ctx));
    fprintf(stderr, "\n");
    fz_print(x->p, stderr);
    cj_error_clear(x->ctx);
    cj_spec specs[FZ_MAX_INPUTS];
    for (int i = 0; i < x->p->n_inputs; i++) {
        const fz_type *t = fz_input_type(x->p, i);
        specs[i] = cj_spec_make(t->dtype, t->rank, t->dims);
    }
    char *text = cj_make_jaxpr(x->f, x->p->n_inputs, specs);
    if (text) fprintf(stderr, "%s\n", text);
    cj_string_free(x->ctx, text);
    cj_error_clear(x->ctx);
    fprintf(stderr, "rerun: CJAX_FUZZ_SEED=%llu CJAX_FUZZ_COUNT=1 cjax_tests %s\n", (unsigned long long)x->p->seed,
            check);
    return 0;
}

/* Does v have exactly type t (dtype, shape), with an extra leading axis of
 * size `batch` when batch > 0? */
static int has_type(cj_val v, const fz_type *t, int64_t batch) {
    int64_t dims[CJ_MAX_RANK];
    int rank = cj_val_shape(v, dims), off = batch > 0;
    if (cj_val_dtype(v) != t->dtype || rank != t->rank + off) return 0;
    if (off && dims[0] != batch) return 0;
    for (int i = 0; i < t->rank; i++)
        if (dims[off + i] != t->dims[i]) return 0;
    return 1;
}

/* The eager result of the program on in (host copy in *out); 0 after
 * reporting when it fails, has the wrong type or is not finite. */
static int eager_result(instance *x, const char *check, const cj_val *in, double **out) {
    cj_val y;
    const fz_type *t = fz_output_type(x->p);
    if (cj_call(x->f, in, &y) != CJ_OK) return report(x, check, "the eager call failed");
    if (!has_type(y, t, 0)) {
        char buf[64];
        return report(x, check, "eager result has type %s, not the generator's", cj_val_type_str(y, buf, sizeof buf));
    }
    double *d = read_all(y);
    if (!d) return report(x, check, "reading the eager result failed");
    for (int64_t i = 0; i < fz_type_size(t); i++)
        if (!isfinite(d[i])) {
            free(d);
            return report(x, check, "eager result element %lld is not finite", (long long)i);
        }
    *out = d;
    return 1;
}

/* Compares got with ref elementwise within tol; 0 after reporting. */
static int compare(instance *x, const char *check, const char *what, const double *got, const double *ref, int64_t n,
                   double tol) {
    for (int64_t i = 0; i < n; i++)
        if (!(fabs(got[i] - ref[i]) <= tol))
            return report(x, check, "%s element %lld: %.17g, eager %.17g (|diff| %.3g > tol %.3g)", what,
                          (long long)i, got[i], ref[i], fabs(got[i] - ref[i]), tol);
    return 1;
}

/* ---- the checks: each returns 1 when the program passes ---- */
static int n_native; /* programs fuzz_jit_cc ran as generated C */

/* One call of the jitted program on in against the eager result. */
static int jit_call_agrees(instance *x, cj_func *jf, const cj_val *in, const char *check, const char *what) {
    double *ref = NULL, *got = NULL;
    if (!eager_result(x, check, in, &ref)) return 0;
    cj_val y;
    int ok = 1;
    if (cj_call(jf, in, &y) != CJ_OK)
        ok = report(x, check, "the jitted call failed");
    else if (!has_type(y, fz_output_type(x->p), 0))
        ok = report(x, check, "the jitted result has the wrong type");
    else if (!(got = read_all(y)))
        ok = report(x, check, "reading the jitted result failed");
    else
        ok = compare(x, check, what, got, ref, fz_type_size(fz_output_type(x->p)), result_tol(x->p));
    free(ref);
    free(got);
    return ok;
}

/* The jitted program's first call (trace, compile, run) and a second one
 * on other inputs of the same types (the cached program, its tables kept
 * between runs). */
static int check_jit(instance *x, cj_backend backend, const char *check) {
    cj_jit_opts o = {0};
    o.backend = backend;
    cj_func *jf = cj_jit(x->f, &o);
    int ok = jit_call_agrees(x, jf, x->in, check, "jit (first call)");
    if (ok) {
        uint64_t rng = x->p->seed ^ 0x3c6ef372u;
        cj_val in2[FZ_MAX_INPUTS];
        for (int i = 0; i < x->p->n_inputs; i++) in2[i] = fz_random_input(x->ctx, fz_input_type(x->p, i), &rng);
        ok = jit_call_agrees(x, jf, in2, check, "jit (second call, new inputs)");
    }
    cj_jit_stats st;
    cj_jit_stats_get(jf, &st);
    if (ok && st.traces != 1) ok = report(x, check, "traced %llu times for one input signature", (unsigned long long)st.traces);
    if (ok && backend == CJ_BACKEND_CC) {
        cj_program_info info;
        /* a program with no kernel to generate (all copies, fills and
         * library calls) runs without C: only a failed compile is wrong */
        if (cj_jit_program_info(jf, x->in, &info) != CJ_OK)
            ok = report(x, check, "cj_jit_program_info failed");
        else if (info.compile_error && *info.compile_error)
            ok = report(x, check, "the generated C failed to compile: %s", info.compile_error);
        else
            n_native += info.native;
    }
    return ok;
}

/* in_axes per input: mostly 0 or another valid axis, sometimes unmapped
 * (at least one input is mapped). */
static void random_in_axes(const fz_program *p, uint64_t *rng, int64_t *axes) {
    int mapped = 0;
    for (int i = 0; i < p->n_inputs; i++) {
        int r = (int)(fz_rand_u64(rng) % 10), rank = fz_input_type(p, i)->rank;
        axes[i] = r < 2 ? CJ_NOT_MAPPED : r < 6 ? 0 : (int64_t)(fz_rand_u64(rng) % (uint64_t)(rank + 1));
        if (r >= 6 && (fz_rand_u64(rng) & 1)) axes[i] -= rank + 1; /* the same axis, negative */
        mapped += axes[i] != CJ_NOT_MAPPED;
    }
    if (!mapped) axes[0] = 0;
}

/* Stacks FZ_BATCH host arrays of type t along axis ax into one array. */
static cj_val stack_along(cj_ctx *ctx, const fz_type *t, int64_t ax, double *const *ex) {
    int64_t dims[CJ_MAX_RANK], outer = 1, inner = 1;
    for (int d = 0; d < t->rank; d++) {
        if (d < ax)
            outer *= t->dims[d];
        else
            inner *= t->dims[d];
    }
    for (int d = 0, k = 0; d <= t->rank; d++) dims[d] = d == ax ? FZ_BATCH : t->dims[k++];
    int64_t n = outer * FZ_BATCH * inner;
    double *buf = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    for (int64_t o = 0; o < outer; o++)
        for (int b = 0; b < FZ_BATCH; b++)
            memcpy(buf + (o * FZ_BATCH + b) * inner, ex[b] + o * inner, sizeof(double) * (size_t)inner);
    cj_val v = array_from(ctx, t->dtype, t->rank + 1, dims, buf, n);
    free(buf);
    return v;
}

static int check_vmap(instance *x) {
    const fz_program *p = x->p;
    const char *check = "fuzz_vmap";
    uint64_t rng = p->seed ^ 0x5bd1e995u;
    int64_t in_axes[FZ_MAX_INPUTS];
    random_in_axes(p, &rng, in_axes);
    /* per example inputs: mapped inputs differ per example */
    double *ex[FZ_MAX_INPUTS][FZ_BATCH];
    cj_val batched[FZ_MAX_INPUTS];
    for (int i = 0; i < p->n_inputs; i++) {
        const fz_type *t = fz_input_type(p, i);
        for (int b = 0; b < FZ_BATCH; b++)
            ex[i][b] = in_axes[i] == CJ_NOT_MAPPED ? x->data[i] : random_data(t, &rng);
        int64_t ax = in_axes[i] < 0 && in_axes[i] != CJ_NOT_MAPPED ? in_axes[i] + t->rank + 1 : in_axes[i];
        batched[i] = in_axes[i] == CJ_NOT_MAPPED ? x->in[i] : stack_along(x->ctx, t, ax, ex[i]);
    }
    cj_vmap_opts o = {in_axes, NULL, 0, 0, 0};
    cj_val y;
    int ok = 1;
    double *got = NULL;
    const fz_type *t = fz_output_type(p);
    int64_t n = fz_type_size(t);
    if (cj_call(cj_vmap(x->f, &o), batched, &y) != CJ_OK)
        ok = report(x, check, "the vmapped call failed");
    else if (!has_type(y, t, FZ_BATCH))
        ok = report(x, check, "the vmapped result has the wrong type");
    else if (!(got = read_all(y)))
        ok = report(x, check, "reading the vmapped result failed");
    for (int b = 0; ok && b < FZ_BATCH; b++) {
        cj_val in[FZ_MAX_INPUTS];
        for (int i = 0; i < p->n_inputs; i++) {
            const fz_type *ti = fz_input_type(p, i);
            in[i] = in_axes[i] == CJ_NOT_MAPPED
                        ? x->in[i]
                        : array_from(x->ctx, ti->dtype, ti->rank, ti->dims, ex[i][b], fz_type_size(ti));
        }
        double *ref = NULL;
        ok = eager_result(x, check, in, &ref);
        if (ok) {
            char what[32];
            snprintf(what, sizeof what, "vmap example %d", b);
            ok = compare(x, check, what, got + b * n, ref, n, result_tol(p));
        }
        free(ref);
    }
    if (!ok) {
        fprintf(stderr, "in_axes:");
        for (int i = 0; i < p->n_inputs; i++)
            if (in_axes[i] == CJ_NOT_MAPPED)
                fprintf(stderr, " none");
            else
                fprintf(stderr, " %lld", (long long)in_axes[i]);
        fprintf(stderr, "\n");
    }
    for (int i = 0; i < p->n_inputs; i++)
        if (in_axes[i] != CJ_NOT_MAPPED)
            for (int b = 0; b < FZ_BATCH; b++) free(ex[i][b]);
    free(got);
    return ok;
}

/* grad of sum(program) with respect to every input. */
static cj_func *grad_all(cj_func *fsum, int n_inputs) {
    int argnums[FZ_MAX_INPUTS];
    for (int i = 0; i < n_inputs; i++) argnums[i] = i;
    cj_grad_opts go = {n_inputs, argnums, 0}; /* cj_grad copies the options */
    return cj_grad(fsum, &go);
}

/* What reverse mode of a while loop reached by a tangent says (as JAX,
 * it has no transpose: the trip count depends on the data). */
#define FZ_WHILE_REVERSE_ERROR                                                                          \
    "while_loop: reverse-mode differentiation (grad, vjp, jacrev) of a loop whose trip count depends " \
    "on the data is not supported"

/* What gradients() found. */
enum { GRAD_FAILED = 0, GRAD_OK = 1, GRAD_REFUSED = 2, GRAD_KNOWN_BUG = 3 };
#define FZ_SKIPPED (-1) /* a check's result: the program met a known bug */
/* A grad check's result for an integer program: integers carry no
 * derivative (JAX's grad refuses them), so there is nothing to compare. */
#define FZ_NO_DERIVATIVE (-2)

/* Calls a gradient function; host copies of the gradients in g[i] (all
 * NULL'ed first, free_all them). GRAD_OK, or GRAD_FAILED after reporting;
 * a program with a while loop may be refused reverse mode: GRAD_REFUSED
 * when it is, with exactly that error; GRAD_KNOWN_BUG for a known bug's
 * failure (both errors cleared). */
static int gradients(instance *x, cj_func *grad, const cj_val *in, const char *check, double **g) {
    const fz_program *p = x->p;
    cj_val grads[FZ_MAX_INPUTS];
    for (int i = 0; i < p->n_inputs; i++) g[i] = NULL;
    if (cj_call(grad, in, grads) != CJ_OK) {
        int refused = fz_count_kind(p, FZ_WHILE) && cj_error(x->ctx) == CJ_ERR_UNSUPPORTED &&
                      strstr(cj_error_message(x->ctx), FZ_WHILE_REVERSE_ERROR);
        if (!refused) return report(x, check, "cj_grad failed");
        cj_error_clear(x->ctx);
        return refused ? GRAD_REFUSED : GRAD_KNOWN_BUG;
    }
    for (int i = 0; i < p->n_inputs; i++) {
        if (cj_val_dtype(grads[i]) != cj_val_dtype(in[i]) || cj_val_size(grads[i]) != cj_val_size(in[i]))
            return report(x, check, "gradient %d has the wrong type", i);
        if (!(g[i] = read_all(grads[i]))) return report(x, check, "reading gradient %d failed", i);
    }
    return 1;
}

static void free_all(double **d, int n) {
    for (int i = 0; i < n; i++) free(d[i]);
}

/* Largest |g_i| over every input (the scale of gradient tolerances). */
static double grad_scale(const fz_program *p, double *const *g) {
    double m = 0;
    for (int i = 0; i < p->n_inputs; i++)
        for (int64_t k = 0; k < fz_type_size(fz_input_type(p, i)); k++) m = max_d(m, fabs(g[i][k]));
    return m;
}

static int n_refused; /* while programs refused reverse mode, by the running test */

/* grad against jvp (<g, v> = J v), and jit(grad) against grad. A program
 * whose while loop refused reverse mode (the clear error) must be refused
 * by jit(grad) too; its forward mode is checked by fuzz_grad_fd. */
static int check_grad_jvp(instance *x) {
    const fz_program *p = x->p;
    const char *check = "fuzz_grad_jvp";
    cj_func *fsum = cj_func_new(x->ctx, "fuzz_sum", fz_fn_sum, p->n_inputs, 1, (void *)p);
    cj_func *grad = grad_all(fsum, p->n_inputs);
    double *g[FZ_MAX_INPUTS], *gj[FZ_MAX_INPUTS] = {0}, *v[FZ_MAX_INPUTS] = {0};
    if (p->family == FZ_FAMILY_INT) return FZ_NO_DERIVATIVE;
    double rtol = (p->family == FZ_FAMILY_NARROW ? FZ_AD_ULPS_NARROW : FZ_AD_ULPS) * program_eps(p);
    cj_jit_opts jo = {0};
    jo.backend = CJ_BACKEND_INTERP;
    int ok = gradients(x, grad, x->in, check, g);
    if (ok == GRAD_KNOWN_BUG) return FZ_SKIPPED;
    if (ok == GRAD_REFUSED) {
        n_refused++;
        ok = gradients(x, cj_jit(grad, &jo), x->in, check, gj);
        free_all(gj, p->n_inputs);
        if (ok == GRAD_KNOWN_BUG) return FZ_SKIPPED;
        return ok == GRAD_REFUSED ||
               (ok == GRAD_OK && report(x, check, "jit(grad) ran where grad refused reverse mode"));
    }
    uint64_t rng = p->seed ^ 0x7f4a7c15u;
    cj_val tangents[FZ_MAX_INPUTS], y, t;
    double dot = 0, scale = 0, jv = NAN;
    for (int i = 0; ok && i < p->n_inputs; i++) {
        const fz_type *ti = fz_input_type(p, i);
        v[i] = random_data(ti, &rng);
        tangents[i] = array_from(x->ctx, ti->dtype, ti->rank, ti->dims, v[i], fz_type_size(ti));
        for (int64_t k = 0; k < fz_type_size(ti); k++) dot += g[i][k] * v[i][k], scale += fabs(g[i][k] * v[i][k]);
    }
    if (ok && (cj_jvp(fsum, x->in, tangents, &y, &t) != CJ_OK || cj_item(t, &jv) != CJ_OK))
        ok = report(x, check, "cj_jvp failed");
    if (ok && !(fabs(dot - jv) <= rtol * (1 + scale)))
        ok = report(x, check, "<grad, v> = %.17g but jvp = %.17g (|diff| %.3g > %.3g)", dot, jv, fabs(dot - jv),
                    rtol * (1 + scale));
    if (ok) {
        ok = gradients(x, cj_jit(grad, &jo), x->in, check, gj);
        if (ok == GRAD_REFUSED) ok = report(x, check, "jit(grad) refused reverse mode where grad ran");
        if (ok == GRAD_KNOWN_BUG) ok = FZ_SKIPPED;
        double tol = rtol * (1 + grad_scale(p, g));
        for (int i = 0; ok == GRAD_OK && i < p->n_inputs; i++)
            for (int64_t k = 0; ok == GRAD_OK && k < fz_type_size(fz_input_type(p, i)); k++)
                if (!(fabs(gj[i][k] - g[i][k]) <= tol))
                    ok = report(x, check, "jit(grad) input %d [%lld]: %.17g, grad %.17g (tol %.3g)", i, (long long)k,
                                gj[i][k], g[i][k], tol);
    }
    free_all(g, p->n_inputs);
    free_all(gj, p->n_inputs);
    free_all(v, p->n_inputs);
    return ok;
}

/* sum(program) in f64 on inputs where input i's element k is moved by h. */
static double f64_sum_at(instance *x, cj_func *fsum, int i, int64_t k, double h) {
    const fz_type *t = fz_input_type(x->p, i);
    double keep = x->data[i][k];
    x->data[i][k] = keep + h;
    cj_val in[FZ_MAX_INPUTS], y;
    memcpy(in, x->in, sizeof in);
    in[i] = cj_array(x->ctx, CJ_F64, t->rank, t->dims, x->data[i]);
    x->data[i][k] = keep;
    double out = NAN;
    if (cj_call(fsum, in, &y) != CJ_OK || cj_item(y, &out) != CJ_OK) return NAN;
    return out;
}

/* sum(program) in f64 on inputs moved by h along v. */
static double f64_sum_along(instance *x, cj_func *fsum, double *const *v, double h) {
    const fz_program *p = x->p;
    cj_val in[FZ_MAX_INPUTS], y;
    for (int i = 0; i < p->n_inputs; i++) {
        const fz_type *t = fz_input_type(p, i);
        int64_t n = fz_type_size(t);
        double *d = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
        for (int64_t k = 0; k < n; k++) d[k] = x->data[i][k] + h * v[i][k];
        in[i] = cj_array(x->ctx, CJ_F64, t->rank, t->dims, d);
        free(d);
    }
    double out = NAN;
    if (cj_call(fsum, in, &y) != CJ_OK || cj_item(y, &out) != CJ_OK) return NAN;
    return out;
}

/* Forward mode against central differences (f64) along a random
 * direction v: the jvp of sum(program). Where reverse mode is refused (a
 * while loop) this is what shows the derivatives right. s: a bound on
 * |sum(output)| (the rounding term of the differences). */
static int check_jvp_fd(instance *x, cj_func *fsum, double s, const char *check) {
    const fz_program *p = x->p;
    uint64_t rng = p->seed ^ 0x1b873593u;
    double *v[FZ_MAX_INPUTS] = {0}, jv = NAN, fd[2] = {NAN, NAN}, hs[2] = {1e-5, 1e-7};
    cj_val tangents[FZ_MAX_INPUTS], y, t;
    for (int i = 0; i < p->n_inputs; i++) {
        const fz_type *ti = fz_input_type(p, i);
        v[i] = random_data(ti, &rng);
        tangents[i] = cj_array(x->ctx, CJ_F64, ti->rank, ti->dims, v[i]);
    }
    int ok = cj_jvp(fsum, x->in, tangents, &y, &t) == CJ_OK && cj_item(t, &jv) == CJ_OK;
    if (!ok) ok = report(x, check, "cj_jvp failed");
    int agrees = 0;
    for (int j = 0; ok && j < 2 && !agrees; j++) {
        double h = hs[j];
        fd[j] = (f64_sum_along(x, fsum, v, h) - f64_sum_along(x, fsum, v, -h)) / (2 * h);
        agrees = fabs(fd[j] - jv) <= 1e-6 * (1 + fabs(jv)) + 1e-15 * s / h;
    }
    if (ok && !agrees)
        ok = report(x, check, "jvp along v: %.17g, finite differences %.17g (h=1e-5), %.17g (h=1e-7)", jv, fd[0],
                    fd[1]);
    free_all(v, p->n_inputs);
    return ok;
}

#define FZ_FD_COORDS 3

static int check_grad_fd(instance *x) {
    const fz_program *p = x->p;
    const char *check = "fuzz_grad_fd";
    if (p->family == FZ_FAMILY_INT) return FZ_NO_DERIVATIVE;
    cj_func *fsum = cj_func_new(x->ctx, "fuzz_sum_f64", fz_fn_sum, p->n_inputs, 1, (void *)p);
    double *g[FZ_MAX_INPUTS];
    const fz_type *to = fz_output_type(p);
    double s = (double)(fz_type_size(to) > 0 ? fz_type_size(to) : 1) * (to->bound + 1);
    int got = gradients(x, grad_all(fsum, p->n_inputs), x->in, check, g);
    if (got == GRAD_REFUSED) n_refused++;
    if (got != GRAD_OK) free_all(g, p->n_inputs);
    if (got == GRAD_FAILED) return 0;
    if (got == GRAD_KNOWN_BUG) return FZ_SKIPPED;
    /* a while program: forward mode against differences, refused or not */
    if (fz_count_kind(p, FZ_WHILE) && !check_jvp_fd(x, fsum, s, check)) {
        if (got == GRAD_OK) free_all(g, p->n_inputs);
        return 0;
    }
    if (got == GRAD_REFUSED) return 1;
    uint64_t rng = p->seed ^ 0x2545f491u;
    int ok = 1;
    for (int c = 0; ok && c < FZ_FD_COORDS; c++) {
        int i = (int)(fz_rand_u64(&rng) % (uint64_t)p->n_inputs);
        int64_t n = fz_type_size(fz_input_type(p, i));
        if (n == 0) continue;
        int64_t k = (int64_t)(fz_rand_u64(&rng) % (uint64_t)n);
        double fd[2], hs[2] = {1e-5, 1e-7};
        int agrees = 0;
        for (int j = 0; j < 2 && !agrees; j++) {
            double h = hs[j];
            fd[j] = (f64_sum_at(x, fsum, i, k, h) - f64_sum_at(x, fsum, i, k, -h)) / (2 * h);
            agrees = fabs(fd[j] - g[i][k]) <= 1e-6 * (1 + fabs(g[i][k])) + 1e-15 * s / h;
        }
        if (!agrees)
            ok = report(x, check, "d sum / d input %d [%lld]: grad %.17g, finite differences %.17g (h=1e-5), %.17g "
                        "(h=1e-7)", i, (long long)k, g[i][k], fd[0], fd[1]);
    }
    free_all(g, p->n_inputs);
    return ok;
}

/* ---- the tests ---- */
typedef int (*check_fn)(instance *x, int index);

static int run_cc(instance *x, int index);
static int run_interp(instance *x, int index) { return (void)index, check_jit(x, CJ_BACKEND_INTERP, "fuzz_jit_interp"); }
static int run_cc(instance *x, int index) { return (void)index, check_jit(x, CJ_BACKEND_CC, "fuzz_jit_cc"); }
static int run_vmap(instance *x, int index) { return (void)index, check_vmap(x); }
static int run_grad_jvp(instance *x, int index) { return (void)index, check_grad_jvp(x); }

/* A construct run eagerly prepares its bodies with the default backend,
 * tiered: each body's generated C is built in the background. Every
 * program of the corpus brings new bodies, so the eager references would
 * run the C compiler tens of thousands of times (an hour and gigabytes of
 * disk cache, cold). So every check but fuzz_jit_cc runs with a compiler
 * that does not exist: each such build fails at once and the bodies stay
 * on the interpreter, as CJ_BACKEND_INTERP would run them. fuzz_jit_cc
 * (every FZ_CC_EVERY-th program) keeps the real compiler. Switched only
 * between programs: no build is in flight then (freeing a context joins
 * its builds). */
static void use_real_compiler(int real) {
    static const cc_build_options none = {"", NULL, NULL, 0}; /* empty: refused before any process runs */
    native_set_build_options_for_testing(real ? NULL : &none);
}

/* Runs `check` over the corpus (each check returns 1 when the program
 * passes, 0 when it fails, FZ_SKIPPED when it met a known bug); returns
 * the number of failing programs. */
static int run_corpus(const char *name, check_fn check, int f64) {
    corpus c = corpus_get();
    int failed = 0, n_run = 0, n_cf = 0, n_random = 0, n_while = 0, n_skipped = 0, n_narrow = 0, n_int = 0;
    int n_no_derivative = 0;
    printed = 0;
    n_refused = 0;
    use_real_compiler(check == run_cc);
    for (int i = 0; i < c.count; i++) {
        fz_program p, p64;
        if (fz_seed_is_extended(c.seed + (uint64_t)i) && i % c.extended_every) continue; /* not drawn */
        fz_generate(&p, c.seed + (uint64_t)i);
        if (check == run_cc && i % c.cc_every) continue; /* the C compiles: a sample */
        if (f64) fz_to_f64(&p, &p64);
        instance x;
        instance_init(&x, f64 ? &p64 : &p, 0);
        int result = check(&x, i);
        instance_free(&x);
        failed += result == 0;
        if (result == FZ_NO_DERIVATIVE) {
            n_no_derivative++;
            continue;
        }
        if (result == FZ_SKIPPED) {
            n_skipped++;
            continue;
        }
        n_run++;
        n_cf += fz_has_control_flow(&p);
        n_random += fz_count_kind(&p, FZ_RANDOM) > 0;
        n_while += fz_count_kind(&p, FZ_WHILE) > 0;
        n_narrow += p.family == FZ_FAMILY_NARROW;
        n_int += p.family == FZ_FAMILY_INT;
    }
    use_real_compiler(1);
    fprintf(stderr,
            "%s: %d programs from seed %llu run (%d with control flow, %d with while loops, %d with random numbers; "
            "extended programs 1 in %d; %d of bf16/f16, %d of the integer dtypes), %d integer ones not run (no "
            "derivative), %d skipped (known bugs), "
            "%d failed\n",
            name, n_run, (unsigned long long)c.seed, n_cf, n_while, n_random, c.extended_every, n_narrow, n_int,
            n_no_derivative, n_skipped, failed);
    return failed;
}

/* The grad tests: every while program either ran reverse mode (checked as
 * any other) or was refused with the clear error; in a corpus of some
 * size, some must have been refused (or that path went untested). */
static void check_refusals(const char *name) {
    fprintf(stderr, "%s: %d while programs refused reverse mode (as JAX)\n", name, n_refused);
    CHECK_MSG(corpus_get().count < 1000 || n_refused > 0, "no while program met reverse mode's refusal");
}

static int run_grad_fd(instance *x, int index) { return (void)index, check_grad_fd(x); }

TEST(fuzz_jit_interp) {
    int failed = run_corpus("fuzz_jit_interp", run_interp, 0);
    CHECK_MSG(failed == 0, "%d programs disagree (printed above)", failed);
}

TEST(fuzz_jit_cc) {
    n_native = 0;
    int failed = run_corpus("fuzz_jit_cc", run_cc, 0);
    fprintf(stderr, "fuzz_jit_cc: %d programs ran as generated C\n", n_native);
    CHECK_MSG(failed == 0, "%d programs disagree (printed above)", failed);
}

TEST(fuzz_vmap) {
    int failed = run_corpus("fuzz_vmap", run_vmap, 0);
    CHECK_MSG(failed == 0, "%d programs disagree (printed above)", failed);
}

TEST(fuzz_grad_jvp) {
    int failed = run_corpus("fuzz_grad_jvp", run_grad_jvp, 0);
    CHECK_MSG(failed == 0, "%d programs disagree (printed above)", failed);
    check_refusals("fuzz_grad_jvp");
}

TEST(fuzz_grad_fd) {
    int failed = run_corpus("fuzz_grad_fd", run_grad_fd, 1);
    CHECK_MSG(failed == 0, "%d programs disagree (printed above)", failed);
    check_refusals("fuzz_grad_fd");
}

/* ---- the printed form ---- */
static char *printed_program(const fz_program *p) {
    FILE *f = tmpfile();
    if (!f) return NULL;
    fz_print(p, f);
    long n = ftell(f);
    char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
    rewind(f);
    if (text && fread(text, 1, (size_t)n, f) != (size_t)n) n = 0;
    if (text) text[n] = 0;
    fclose(f);
    return text;
}

/* A failing program is printed as its node list: that list must show the
 * constructs, their bodies and every other extended kind. For the first
 * corpus program holding each kind: its line, a line for every node, and a
 * header for every body. */
TEST(fuzz_print_shows_constructs_and_bodies) {
    static const struct {
        fz_kind kind;
        const char *text;
    } want[] = {
        {FZ_COND, "= cond(sum(v"},
        {FZ_SWITCH, "= switch(index "},
        {FZ_SCAN, "= scan(carries v"},
        {FZ_FORI, "= fori_loop("},
        {FZ_WHILE, "-> (counter + 1, v"},
        {FZ_PARAM, "= param 0 "},
        {FZ_OUTPUT, "= output "},
        {FZ_INT_TO_FLOAT, ") * "},
        {FZ_RANDOM, "= random_"},
        {FZ_DYNAMIC_SLICE, "= dynamic_slice(v"},
        {FZ_DYNAMIC_UPDATE, "= dynamic_update_slice(v"},
    };
    enum { N_WANT = sizeof want / sizeof want[0] };
    int seen[N_WANT] = {0}, left = N_WANT;
    for (uint64_t seed = FZ_DEFAULT_SEED; left > 0 && seed < FZ_DEFAULT_SEED + 2000; seed++) {
        fz_program p;
        fz_generate(&p, seed);
        for (int k = 0; k < N_WANT; k++) {
            if (seen[k] || !fz_count_kind(&p, want[k].kind)) continue;
            char *text = printed_program(&p), line[48];
            CHECK(text != NULL);
            CHECK_STR_CONTAINS(text, want[k].text);
            for (int i = 0; i < p.n_nodes; i++) {
                snprintf(line, sizeof line, " v%d = ", i);
                CHECK_STR_CONTAINS(text, line);
                const fz_node *n = &p.nodes[i];
                for (int b = 0; b < n->n_bodies; b++) {
                    snprintf(line, sizeof line, "body %d of v%d {", b, i);
                    CHECK_STR_CONTAINS(text, line);
                }
            }
            CHECK_MSG(!strstr(text, "= ?"), "a node printed as '?':\n%s", text);
            free(text);
            seen[k] = 1, left--;
        }
    }
    CHECK_MSG(left == 0, "%d extended kinds missing from the first 2000 corpus programs", left);
}

/* ---- minimal reproducers of bugs the fuzzer found ---- */
static void pad_then_sum(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    int64_t lo = 0, hi = 1;
    out[0] = cj_sum(cj_pad(in[0], cj_scalar(ctx, 0.5), &lo, &hi, NULL), -1, NULL, 0);
}

/* Found as program seeds 20241501, 20247301, 20272701 (fuzz_jit_cc): a pad
 * feeding a reduction in a rows kernel of generated C read the operand's
 * element 0 for every position (codegen.c leaf_layout took pad, whose
 * leaf map is left empty as not affine, for a stride-0 "repeated" leaf);
 * the interpreter gathers it correctly. */
TEST(fuzz_regression_pad_into_row_reduction_cc) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t n = 3;
    const double x[3] = {1, 2, 4};
    cj_val in = cj_array(ctx, CJ_F64, 1, &n, x), eager, jitted;
    cj_func *f = cj_func_new(ctx, "pad_then_sum", pad_then_sum, 1, 1, NULL);
    cj_jit_opts o = {0};
    o.backend = CJ_BACKEND_CC;
    CHECK(cj_call(f, &in, &eager) == CJ_OK);
    CHECK(cj_call(cj_jit(f, &o), &in, &jitted) == CJ_OK);
    CHECK_NEAR(cj_item_or_nan(eager), 7.5, 0, 0);
    CHECK_NEAR(cj_item_or_nan(jitted), 7.5, 0, 0); /* was 4: x[0] four times */
    cj_ctx_free(ctx);
}

/* Program seed 65557 (found with CJAX_FUZZ_COUNT=1, never run by CI): a
 * switch of four branches, two with nested constructs, needed 66 residual
 * slots and 2 outputs (each branch had slots of its own then): reverse
 * mode refused it ("cond: more than 64 outputs and residuals", the
 * linearized body's 64-value limit). Branches now share slots, and the
 * generator draws no program grad refuses (it asks cjax); the seed's
 * being extended or not, and its neighbours' programs, are unchanged. */
/* The gradient of seed's program (its f64 form with `f64`) runs, or
 * refuses only as JAX does (a while loop reached by a tangent), and never
 * with `refusal`, the 64-value limit's message. */
static void check_grad_of_seed_not_refused(uint64_t seed, int f64, const char *refusal) {
    fz_program p, p64;
    fz_generate(&p, seed);
    fz_to_f64(&p, &p64);
    const fz_program *q = f64 ? &p64 : &p;
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *fsum = cj_func_new(ctx, "fuzz_sum", fz_fn_sum, q->n_inputs, 1, (void *)q);
    uint64_t rng = seed;
    cj_val in[FZ_MAX_INPUTS], g[FZ_MAX_INPUTS];
    for (int i = 0; i < q->n_inputs; i++) in[i] = fz_random_input(ctx, fz_input_type(q, i), &rng);
    cj_status st = cj_call(grad_all(fsum, q->n_inputs), in, g);
    CHECK_MSG(st == CJ_OK || strstr(cj_error_message(ctx), FZ_WHILE_REVERSE_ERROR), "%s", cj_error_message(ctx));
    CHECK(!strstr(cj_error_message(ctx), refusal));
    cj_ctx_free(ctx);
}

TEST(fuzz_generator_draws_no_program_grad_refuses) {
    fz_program p;
    fz_generate(&p, 65557);
    CHECK(p.extended && fz_seed_is_extended(65557));
    check_grad_of_seed_not_refused(65557, 0, "outputs and residuals");
}

/* Program seed 2026485320 (a 30-minute `make fuzz` run): a scan whose
 * step's linearization needed more than 64 outputs, which reverse mode
 * refuses (the same 64-value limit); the generator asked cjax about large
 * conds only. It now asks about large scans and fori_loops too. */
TEST(fuzz_generator_draws_no_scan_grad_refuses) {
    check_grad_of_seed_not_refused(2026485320, 0, "a step whose linearization needs more than");
}

/* Program seeds 3141657170, 8675412976 and 8675424110 (found with fresh
 * seeds, CJAX_FUZZ_COUNT=1): a cond whose branch 1 holds a switch whose
 * branches return an operand as the cond's branch 0 does. The switch's
 * record was deduplicated into the cond's half-built one, so the cond
 * called itself and grad failed with "transformations nested more than 64
 * deep"; the hand-written reproducer is
 * cf_nested_switch_equal_to_enclosing_branch_gets_its_own_record. Each
 * seed's program runs here through the checks it failed (as the corpus
 * runs them: grad_fd in f64). */
TEST(fuzz_regression_nested_construct_deduplicated_into_its_enclosing_one) {
    static const uint64_t seeds[3] = {3141657170u, 8675412976u, 8675424110u};
    for (int s = 0; s < 3; s++) {
        fz_program p, p64;
        fz_generate(&p, seeds[s]);
        fz_to_f64(&p, &p64);
        static const check_fn checks[4] = {run_interp, run_vmap, run_grad_jvp, run_grad_fd};
        static const char *const names[4] = {"fuzz_jit_interp", "fuzz_vmap", "fuzz_grad_jvp", "fuzz_grad_fd"};
        use_real_compiler(0);
        for (int k = 0; k < 4; k++) {
            instance x;
            instance_init(&x, k == 3 ? &p64 : &p, 0);
            int result = checks[k](&x, 0);
            instance_free(&x);
            if (result != 1) use_real_compiler(1);
            CHECK_MSG(result == 1, "seed %llu: %s %s", (unsigned long long)seeds[s], names[k],
                      result == FZ_SKIPPED ? "skipped (a known bug)" : "failed (printed above)");
        }
        use_real_compiler(1);
    }
}

/* Program seed 7770038254 (a 30-minute `make fuzz` run): a switch whose
 * known half fit the 64-value limit in f32 but not in the f64 form the
 * finite-difference check runs. The generator now asks about both. */
TEST(fuzz_generator_draws_no_f64_program_grad_refuses) {
    check_grad_of_seed_not_refused(7770038254u, 1, "outputs and residuals");
}

/* ---- bugs the new dtypes' programs found ---- */

static void softmax_lse_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    int64_t ax = 1;
    out[0] = cj_add(cj_softmax(in[0], 1), cj_logsumexp(in[0], 1, &ax, 1));
}
static void softmax_lse_sum_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    softmax_lse_fn(ctx, in, out, user);
    out[0] = cj_sum(out[0], -1, NULL, 0);
}

/* Program seeds 1004, 1036, 1117 (the first narrow-float programs drawn):
 * cj_softmax and cj_logsumexp of bf16/f16 failed ("stop_gradient: dtype
 * bf16 is not supported yet"): the autodiff marker primitives did not
 * declare the new dtypes, though they only move bytes. Eager, jit and
 * grad against the same computed in f32 from the same (exact) values. */
TEST(fuzz_regression_softmax_logsumexp_of_narrow_floats) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t dims[2] = {3, 5};
    float x[15];
    for (int i = 0; i < 15; i++) x[i] = (float)((i * 7 % 11) * 0.25 - 1.25); /* exact in bf16 and f16 */
    cj_val x32 = cj_array(ctx, CJ_F32, 2, dims, x);
    cj_func *f = cj_func_new(ctx, "softmax_lse", softmax_lse_fn, 1, 1, NULL);
    cj_val want;
    CHECK(cj_call(f, &x32, &want) == CJ_OK);
    double w[15];
    CHECK(cj_read_as(want, CJ_F64, w, sizeof w) == CJ_OK);
    static const cj_dtype dts[2] = {CJ_BF16, CJ_F16};
    for (int k = 0; k < 2; k++) {
        double tol = k == 0 ? 0x1p-6 : 0x1p-9; /* 4 ulps of 1..4 */
        cj_val xn = cj_astype(x32, dts[k]), got[2], g;
        CHECK_MSG(cj_call(f, &xn, &got[0]) == CJ_OK, "%s: %s", cj_dtype_name(dts[k]), cj_error_message(ctx));
        CHECK(cj_call(cj_jit(f, NULL), &xn, &got[1]) == CJ_OK);
        for (int m = 0; m < 2; m++) {
            double r[15];
            CHECK(cj_val_dtype(got[m]) == dts[k]);
            CHECK(cj_read_as(got[m], CJ_F64, r, sizeof r) == CJ_OK);
            for (int i = 0; i < 15; i++) CHECK_NEAR(r[i], w[i], 0, tol * 4);
        }
        /* d/dx sum(softmax + lse): softmax sums to 1 along a row (no gradient); lse is added to each of
         * the row's 5 elements, and its gradient is softmax: 5 softmax */
        int argnum = 0;
        cj_grad_opts go = {1, &argnum, 0};
        cj_func *fs = cj_func_new(ctx, "softmax_lse_sum", softmax_lse_sum_fn, 1, 1, NULL);
        CHECK_MSG(cj_call(cj_grad(fs, &go), &xn, &g) == CJ_OK, "%s grad: %s", cj_dtype_name(dts[k]),
                  cj_error_message(ctx));
        CHECK(cj_val_dtype(g) == dts[k]);
        double gr[15];
        CHECK(cj_read_as(g, CJ_F64, gr, sizeof gr) == CJ_OK);
        for (int row = 0; row < 3; row++) {
            double mx = -1e9, z = 0;
            for (int j = 0; j < 5; j++) mx = x[row * 5 + j] > mx ? x[row * 5 + j] : mx;
            for (int j = 0; j < 5; j++) z += exp(x[row * 5 + j] - mx);
            for (int j = 0; j < 5; j++) CHECK_NEAR(gr[row * 5 + j], 5 * exp(x[row * 5 + j] - mx) / z, 0, tol * 8);
        }
    }
    cj_ctx_free(ctx);
}

static void abs_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_abs(in[0]);
}

/* Program seeds 1006 and 1014 (the first integer programs drawn): cj_abs
 * of u32 / u64 failed ("abs: dtype u32 is not supported"): jnp.abs of an
 * unsigned integer is the value itself (lax.abs refuses it). Eager, jit on
 * both backends and vmap, on every unsigned dtype's extremes. */
TEST(fuzz_regression_abs_of_unsigned_is_identity) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    static const cj_dtype dts[4] = {CJ_U8, CJ_U16, CJ_U32, CJ_U64};
    int64_t n = 4;
    for (int k = 0; k < 4; k++) {
        int bits = (int)cj_dtype_size(dts[k]) * 8;
        double top = bits == 64 ? 0x1p52 : ldexp(1, bits) - 1, v[4] = {0, 1, top - 1, top};
        cj_val x = fz_array_from(ctx, dts[k], 1, &n, v, 4), y[4];
        cj_func *f = cj_func_new(ctx, "abs", abs_fn, 1, 1, NULL);
        cj_jit_opts cc = {0};
        cc.backend = CJ_BACKEND_CC;
        CHECK_MSG(cj_call(f, &x, &y[0]) == CJ_OK, "%s: %s", cj_dtype_name(dts[k]), cj_error_message(ctx));
        CHECK(cj_call(cj_jit(f, NULL), &x, &y[1]) == CJ_OK);
        CHECK(cj_call(cj_jit(f, &cc), &x, &y[2]) == CJ_OK);
        CHECK(cj_call(cj_vmap(f, NULL), &x, &y[3]) == CJ_OK);
        for (int m = 0; m < 4; m++) {
            double r[4];
            CHECK(cj_val_dtype(y[m]) == dts[k]);
            CHECK(cj_read_as(y[m], CJ_F64, r, sizeof r) == CJ_OK);
            for (int i = 0; i < 4; i++) CHECK_NEAR(r[i], v[i], 0, 0);
        }
    }
    cj_ctx_free(ctx);
}
