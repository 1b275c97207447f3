/* test_control_codegen.c — control-flow constructs whose loop or branch is
 * generated C (src/backend/codegen_control.c): under CJ_BACKEND_CC a scan
 * (forwards and backwards, lengths 0, 1 and many, carries kept, copied,
 * swapped and updated in place, ys written and copied), fori_loop,
 * while_loop, cond and switch (indices out of range clamp), a scan nested
 * in a scan, an RNN cell with a matrix product (alone and fused with its
 * epilogue, block by block) and a large carry changed one slice per step
 * by dynamic_update_slice. Each result equals the interpreter's bit for
 * bit and a plain C loop; the generated source holds the loop; a run makes
 * no allocator call per step; one build serves every trip count;
 * allocation failures are clean; a failing compiler falls back to the
 * runtime's loop; tiered programs switch over without a change in the
 * bits. Builds go to a private cache directory. */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "backend/program_impl.h"
#include "harness.h"
#include "test_util.h"

/* ---- helpers ---- */

static char cache_dir[128];

static void use_private_cache(const char *compiler) {
    if (!cache_dir[0]) snprintf(cache_dir, sizeof cache_dir, "/tmp/cjax_control_codegen_test_%d", (int)getpid());
    cc_build_options o = {compiler, NULL, cache_dir, 0};
    native_set_build_options_for_testing(&o);
}

/* The elements of v as doubles (malloc'd; NULL on failure). */
static double *values(cj_val v) {
    int64_t n = cj_val_size(v);
    double *d = malloc(sizeof(double) * (size_t)(n + 1));
    if (d && cj_read_as(v, CJ_F64, d, sizeof(double) * (size_t)n) != CJ_OK) {
        free(d);
        return NULL;
    }
    return d;
}

/* Is every element of v within rtol of ref[]? */
static int near_all(cj_val v, const double *ref, int64_t n, double rtol) {
    double *d = values(v);
    int ok = d && cj_val_size(v) == n;
    for (int64_t i = 0; ok && i < n; i++) ok = th_close(d[i], ref[i], rtol, rtol);
    free(d);
    return ok;
}

enum { CC, INTERP };

/* Calls f jitted on generated C and on the interpreter (fresh jits: a
 * body's user data may change between calls): both succeed, agree bit for
 * bit, and the generated program ran its constructs itself. out[CC][j],
 * out[INTERP][j]. */
#define RUN_BOTH(f, in, n_out, out)                                                                         \
    do {                                                                                                  \
        long runs_ = native_construct_runs_for_testing();                                                 \
        cj_jit_opts cc_ = {0, NULL, 0, NULL, CJ_BACKEND_CC}, interp_ = {0, NULL, 0, NULL, CJ_BACKEND_INTERP}; \
        CHECK_MSG(cj_call(cj_jit((f), &cc_), (in), (out)[CC]) == CJ_OK, "cc: %s", cj_error_message(ctx));    \
        CHECK_MSG(native_construct_runs_for_testing() > runs_, "the construct did not run as generated C");  \
        CHECK_MSG(cj_call(cj_jit((f), &interp_), (in), (out)[INTERP]) == CJ_OK, "interp: %s",                \
                  cj_error_message(ctx));                                                                 \
        for (int j_ = 0; j_ < (n_out); j_++)                                                              \
            CHECK_MSG(tu_same_bits((out)[CC][j_], (out)[INTERP][j_]), "output %d: generated C and interpreter differ", \
                      j_);                                                                                \
    } while (0)

/* The generated C of f jitted on cc for inputs in (owned by ctx). */
static char *generated_c(cj_func *f, const cj_val *in) {
    cj_jit_opts cc = {0, NULL, 0, NULL, CJ_BACKEND_CC};
    return cj_jit_dump(cj_jit(f, &cc), in, "c");
}

static int count(const char *text, const char *needle) {
    int n = 0;
    for (const char *p = text; p && (p = strstr(p, needle)); p += strlen(needle)) n++;
    return n;
}

static cj_val f64_vec(cj_ctx *ctx, int64_t n, const double *v) { return cj_array(ctx, CJ_F64, 1, &n, v); }

/* ---- scan: every way a carry and a y can move ---- */
/* carries (c f64[3], k f64, z f32[2], q f64[3]), xs (x f64[T,3], w f64[T]):
 *   c' = c * 0.5 + x * w     (swapped or in place: a fresh value)
 *   k' = k + w
 *   z' = z                   (kept)
 *   q' = x                   (copied from the x slice)
 *   ys: c' (copied from the carry), x * k (written into its slice) */
static void many_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    cj_val c = in[0], k = in[1], z = in[2], x = in[4], w = in[5];
    out[0] = cj_add(cj_mul(c, cj_scalar(ctx, 0.5)), cj_mul(x, w));
    out[1] = cj_add(k, w);
    out[2] = z;
    out[3] = x;
    out[4] = out[0];
    out[5] = cj_mul(x, k);
}

typedef struct scan_case {
    cj_func *body;
    int reverse, only_carries;
} scan_case;

static void many_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    scan_case *sc = u;
    (void)ctx;
    cj_scan_opts o = {0, 0, sc->reverse};
    cj_val ys[2];
    cj_scan(sc->body, 4, in, 2, in + 4, &o, out, ys);
    if (sc->only_carries) return; /* the ys are unused: the program drops them */
    out[4] = ys[0], out[5] = ys[1];
}

static void check_many(int64_t T, int reverse, int only_carries) {
    use_private_cache(NULL);
    cj_ctx *ctx = cj_ctx_new(NULL);
    static scan_case sc;
    sc.body = cj_func_new(ctx, "many_body", many_body, 6, 6, NULL);
    sc.reverse = reverse, sc.only_carries = only_carries;
    int n_out = only_carries ? 4 : 6;
    cj_func *f = cj_func_new(ctx, "many", many_fn, 6, n_out, &sc);
    double *xv = malloc(sizeof(double) * (size_t)(3 * T + 1)), *wv = malloc(sizeof(double) * (size_t)(T + 1));
    uint64_t rng = 11 + (uint64_t)T;
    for (int64_t i = 0; i < 3 * T; i++) xv[i] = th_rand_uniform(&rng, -2, 2);
    for (int64_t i = 0; i < T; i++) wv[i] = th_rand_uniform(&rng, -1, 1);
    int64_t dx[2] = {T, 3}, d2 = 2;
    cj_val in[6] = {f64_vec(ctx, 3, (double[]){1, -2, 0.25}), cj_scalar_typed(ctx, 0.5, CJ_F64),
                    cj_array(ctx, CJ_F32, 1, &d2, (float[]){3, 4}), f64_vec(ctx, 3, (double[]){7, 8, 9}),
                    cj_array(ctx, CJ_F64, 2, dx, xv), cj_array(ctx, CJ_F64, 1, &T, wv)};
    cj_val init[4] = {f64_vec(ctx, 3, (double[]){1, -2, 0.25}), cj_scalar_typed(ctx, 0.5, CJ_F64),
                      cj_array(ctx, CJ_F32, 1, &d2, (float[]){3, 4}), f64_vec(ctx, 3, (double[]){7, 8, 9})};
    cj_val out[2][6];
    RUN_BOTH(f, in, n_out, out);
    for (int i = 0; i < 4; i++) CHECK_MSG(tu_same_bits(in[i], init[i]), "carry %d's operand was written", i);
    /* the plain loop */
    double c[3] = {1, -2, 0.25}, k = 0.5, q[3] = {7, 8, 9};
    double *y0 = malloc(sizeof(double) * (size_t)(3 * T + 1)), *y1 = malloc(sizeof(double) * (size_t)(3 * T + 1));
    for (int64_t s = 0; s < T; s++) {
        int64_t t = reverse ? T - 1 - s : s;
        const double *x = xv + 3 * t;
        for (int i = 0; i < 3; i++) {
            y1[3 * t + i] = x[i] * k;
            c[i] = c[i] * 0.5 + x[i] * wv[t];
            y0[3 * t + i] = c[i];
            q[i] = x[i];
        }
        k += wv[t];
    }
    CHECK(near_all(out[CC][0], c, 3, 1e-14));
    CHECK(near_all(out[CC][1], &k, 1, 1e-14));
    CHECK(near_all(out[CC][2], (double[]){3, 4}, 2, 0));
    CHECK(near_all(out[CC][3], q, 3, 0));
    if (!only_carries) {
        CHECK(near_all(out[CC][4], y0, 3 * T, 1e-14));
        CHECK(near_all(out[CC][5], y1, 3 * T, 1e-14));
    }
    char *src = generated_c(f, in);
    CHECK_STR_CONTAINS(src, "control flow: scan");
    CHECK_STR_CONTAINS(src, "for (i64 step = 0; step < length; step++)");
    CHECK_STR_CONTAINS(src, "carry 2 unchanged");
    CHECK_STR_CONTAINS(src, "carry 3 copied");
    CHECK_STR_CONTAINS(src, reverse ? "const i64 t = length - 1 - step;" : "const i64 t = step;");
    cj_string_free(ctx, src);
    free(xv), free(wv), free(y0), free(y1);
    CHECK_MSG(cj_error(ctx) == CJ_OK, "%s", cj_error_message(ctx));
    cj_ctx_free(ctx);
}

TEST(cfgen_scan_forward_lengths_0_1_many) {
    check_many(0, 0, 0);
    check_many(1, 0, 0);
    check_many(37, 0, 0);
}

TEST(cfgen_scan_reverse_lengths_0_1_many) {
    check_many(0, 1, 0);
    check_many(1, 1, 0);
    check_many(38, 1, 0);
}

TEST(cfgen_scan_unused_ys_and_odd_even_swaps) {
    check_many(5, 0, 1);
    check_many(6, 1, 1);
}

/* ---- fori_loop ---- */
/* (i, x f64[4], s i32) → (x * 0.5 + i, s + i*i) */
static void fori_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    out[0] = cj_add(cj_mul(in[1], cj_scalar(ctx, 0.5)), cj_astype(in[0], CJ_F64));
    out[1] = cj_add(in[2], cj_mul(in[0], in[0]));
}

typedef struct fori_case {
    cj_func *body;
    int64_t lower, upper;
} fori_case;

static void fori_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    fori_case *fc = u;
    (void)ctx;
    cj_fori_loop(fc->lower, fc->upper, fc->body, 2, in, out);
}

TEST(cfgen_fori_loop_matches_c_loop) {
    use_private_cache(NULL);
    cj_ctx *ctx = cj_ctx_new(NULL);
    static fori_case fc;
    fc.body = cj_func_new(ctx, "fori_body", fori_body, 3, 2, NULL);
    fc.lower = 3, fc.upper = 40;
    cj_func *f = cj_func_new(ctx, "fori", fori_fn, 2, 2, &fc);
    cj_val in[2] = {f64_vec(ctx, 4, (double[]){1, 2, 3, -4}), cj_scalar_typed(ctx, 5, CJ_I32)};
    cj_val out[2][2];
    RUN_BOTH(f, in, 2, out);
    double x[4] = {1, 2, 3, -4};
    int64_t s = 5;
    for (int64_t i = fc.lower; i < fc.upper; i++) {
        for (int q = 0; q < 4; q++) x[q] = x[q] * 0.5 + (double)i;
        s += i * i;
    }
    CHECK(near_all(out[CC][0], x, 4, 0)); /* halving and adding an integer: exact */
    CHECK(near_all(out[CC][1], (double[]){(double)s}, 1, 0));
    char *src = generated_c(f, in);
    CHECK_STR_CONTAINS(src, "control flow: scan");
    CHECK_STR_CONTAINS(src, "for (");
    cj_string_free(ctx, src);
    cj_ctx_free(ctx);
}

/* ---- while_loop: Newton's method for sqrt ---- */
/* carries (x f64[3], a f64[3], n i32): while max |x² - a| > 1e-12 */
static void newton_cond(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    cj_val err = cj_reduce_max(cj_abs(cj_sub(cj_mul(in[0], in[0]), in[1])), -1, NULL, 0);
    out[0] = cj_gt(err, cj_scalar(ctx, 1e-12));
}
static void newton_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    out[0] = cj_mul(cj_add(in[0], cj_div(in[1], in[0])), cj_scalar(ctx, 0.5));
    out[1] = in[1];
    out[2] = cj_add(in[2], cj_scalar_int(ctx, 1));
}

typedef struct newton {
    cj_func *cond, *body;
} newton;

static void newton_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    newton *nw = u;
    (void)ctx;
    cj_while_loop(nw->cond, nw->body, 3, in, out);
}

TEST(cfgen_while_newton_matches_closed_form) {
    use_private_cache(NULL);
    cj_ctx *ctx = cj_ctx_new(NULL);
    static newton nw;
    nw.cond = cj_func_new(ctx, "newton_cond", newton_cond, 3, 1, NULL);
    nw.body = cj_func_new(ctx, "newton_body", newton_body, 3, 3, NULL);
    cj_func *f = cj_func_new(ctx, "newton", newton_fn, 3, 3, &nw);
    double a[3] = {2, 9, 0.25};
    cj_val in[3] = {f64_vec(ctx, 3, (double[]){1, 1, 1}), f64_vec(ctx, 3, a), cj_scalar_typed(ctx, 0, CJ_I32)};
    cj_val out[2][3];
    RUN_BOTH(f, in, 3, out);
    double root[3] = {sqrt(2), 3, 0.5};
    CHECK(near_all(out[CC][0], root, 3, 1e-12));
    CHECK(near_all(out[CC][1], a, 3, 0));
    CHECK(cj_item_or_nan(out[CC][2]) > 3);
    /* already converged: no iteration, the carries come back as they went in */
    cj_val done[3] = {f64_vec(ctx, 3, root), f64_vec(ctx, 3, (double[]){2, 9, 0.25}), cj_scalar_typed(ctx, 7, CJ_I32)};
    RUN_BOTH(f, done, 3, out);
    CHECK(tu_same_bits(out[CC][0], done[0]));
    CHECK(near_all(out[CC][2], (double[]){7}, 1, 0));
    char *src = generated_c(f, in);
    CHECK_STR_CONTAINS(src, "control flow: while_loop");
    CHECK_STR_CONTAINS(src, "while (go)");
    CHECK_STR_CONTAINS(src, "carry 1 unchanged");
    cj_string_free(ctx, src);
    cj_ctx_free(ctx);
}

/* ---- cond and switch ---- */
/* operands (x f64[4], y f64):
 *   branch 0: (x * 2, y)       y passed through: copied
 *   branch 1: (x + y, y * y)
 *   branch 2: (x, y + 1)       x passed through: copied */
static void br0(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    out[0] = cj_mul(in[0], cj_scalar(ctx, 2));
    out[1] = in[1];
}
static void br1(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u, (void)ctx;
    out[0] = cj_add(in[0], in[1]);
    out[1] = cj_mul(in[1], in[1]);
}
static void br2(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    out[0] = in[0];
    out[1] = cj_add(in[1], cj_scalar(ctx, 1));
}

typedef struct branches {
    cj_func *b[3];
    int only_first; /* return output 0 only: the program drops output 1 */
} branches;

static void switch_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    branches *br = u;
    (void)ctx;
    cj_val res[2];
    cj_switch(in[0], 3, br->b, 2, in + 1, res);
    out[0] = res[0];
    if (!br->only_first) out[1] = res[1];
}

static void cond_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    branches *br = u;
    (void)ctx;
    cj_cond(in[0], br->b[1], br->b[0], 2, in + 1, out); /* true: branch 1, false: branch 0 */
}

TEST(cfgen_switch_and_cond_clamp_and_select) {
    use_private_cache(NULL);
    cj_ctx *ctx = cj_ctx_new(NULL);
    static branches br;
    br.b[0] = cj_func_new(ctx, "br0", br0, 2, 2, NULL);
    br.b[1] = cj_func_new(ctx, "br1", br1, 2, 2, NULL);
    br.b[2] = cj_func_new(ctx, "br2", br2, 2, 2, NULL);
    double xv[4] = {1, -2, 3.5, 0.125}, y = 1.5;
    for (int only = 0; only < 2; only++) {
        br.only_first = only;
        cj_func *sw = cj_func_new(ctx, "switch", switch_fn, 3, only ? 1 : 2, &br);
        int64_t idx[] = {-5, 0, 1, 2, 9};
        cj_dtype dts[] = {CJ_I32, CJ_I64};
        for (int d = 0; d < 2; d++)
            for (int q = 0; q < 5; q++) {
                cj_val in[3] = {cj_scalar_typed(ctx, (double)idx[q], dts[d]), f64_vec(ctx, 4, xv),
                                cj_scalar_typed(ctx, y, CJ_F64)};
                cj_val out[2][2];
                RUN_BOTH(sw, in, only ? 1 : 2, out);
                int b = idx[q] < 0 ? 0 : idx[q] > 2 ? 2 : (int)idx[q];
                double x0[4], y0 = b == 0 ? y : b == 1 ? y * y : y + 1;
                for (int i = 0; i < 4; i++) x0[i] = b == 0 ? xv[i] * 2 : b == 1 ? xv[i] + y : xv[i];
                CHECK_MSG(near_all(out[CC][0], x0, 4, 0), "index %lld", (long long)idx[q]);
                if (!only) CHECK_MSG(near_all(out[CC][1], &y0, 1, 0), "index %lld", (long long)idx[q]);
            }
        if (only) continue;
        cj_val in[3] = {cj_scalar_typed(ctx, 1, CJ_I32), f64_vec(ctx, 4, xv), cj_scalar_typed(ctx, y, CJ_F64)};
        char *src = generated_c(sw, in);
        CHECK_STR_CONTAINS(src, "control flow: switch");
        CHECK_STR_CONTAINS(src, "switch (branch)");
        CHECK_STR_CONTAINS(src, "index < 0 ? 0 : index >= 3 ? 2 : (int)index");
        cj_string_free(ctx, src);
    }
    /* cond: a bool predicate, and an integer one read as != 0 */
    cj_func *cf = cj_func_new(ctx, "cond", cond_fn, 3, 2, &br);
    double preds[] = {0, 1, -3};
    cj_dtype pdt[] = {CJ_BOOL, CJ_BOOL, CJ_I32};
    for (int q = 0; q < 3; q++) {
        cj_val in[3] = {cj_scalar_typed(ctx, preds[q], pdt[q]), f64_vec(ctx, 4, xv), cj_scalar_typed(ctx, y, CJ_F64)};
        cj_val out[2][2];
        RUN_BOTH(cf, in, 2, out);
        double y0 = preds[q] != 0 ? y * y : y;
        CHECK(near_all(out[CC][1], &y0, 1, 0));
    }
    cj_ctx_free(ctx);
}

/* ---- a scan in a scan ---- */
/* outer: carry c f64, xs X f64[T, M]; per row the inner scan runs
 * acc' = acc * 0.5 + x over the row (acc from c), giving its final acc and
 * the accs; the outer carry becomes c + final, its y the inner ys */
static void inner_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    out[0] = cj_add(cj_mul(in[0], cj_scalar(ctx, 0.5)), in[1]);
    out[1] = out[0];
}

typedef struct nest {
    cj_func *inner, *outer;
} nest;

static void outer_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    nest *ns = u;
    (void)ctx;
    cj_val fin, accs;
    cj_scan(ns->inner, 1, &in[0], 1, &in[1], NULL, &fin, &accs);
    out[0] = cj_add(in[0], fin);
    out[1] = accs;
}

static void nest_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    nest *ns = u;
    (void)ctx;
    cj_scan(ns->outer, 1, &in[0], 1, &in[1], NULL, &out[0], &out[1]);
}

TEST(cfgen_nested_scan_in_scan) {
    use_private_cache(NULL);
    cj_ctx *ctx = cj_ctx_new(NULL);
    static nest ns;
    ns.inner = cj_func_new(ctx, "inner_body", inner_body, 2, 2, NULL);
    ns.outer = cj_func_new(ctx, "outer_body", outer_body, 2, 2, &ns);
    cj_func *f = cj_func_new(ctx, "nest", nest_fn, 2, 2, &ns);
    enum { T = 9, M = 5 };
    double X[T * M];
    for (int i = 0; i < T * M; i++) X[i] = (i % 7) - 3 + 0.25 * i;
    int64_t dx[2] = {T, M};
    cj_val in[2] = {cj_scalar_typed(ctx, 1, CJ_F64), cj_array(ctx, CJ_F64, 2, dx, X)};
    cj_val out[2][2];
    RUN_BOTH(f, in, 2, out);
    double c = 1, ys[T * M];
    for (int t = 0; t < T; t++) {
        double acc = c;
        for (int m = 0; m < M; m++) ys[t * M + m] = acc = acc * 0.5 + X[t * M + m];
        c += acc;
    }
    CHECK(near_all(out[CC][0], &c, 1, 1e-14));
    CHECK(near_all(out[CC][1], ys, T * M, 1e-14));
    char *src = generated_c(f, in);
    CHECK_EQ_INT(count(src, "control flow: scan"), 2);
    CHECK_STR_CONTAINS(src, "static int cjk_construct_0_0_"); /* the inner loop, called from the outer one */
    cj_string_free(ctx, src);
    cj_ctx_free(ctx);
}

/* ---- an RNN cell: a matrix product in the body ---- */
typedef struct rnn {
    cj_func *cell;
    cj_val W; /* the enclosing function's input, closed over */
    int batched, keep_product;
} rnn;

/* h' = tanh(W h + x) for h f32[H]; batched: h' = tanh(h W + x) for
 * h f32[B, H] (a product with its epilogue fused, run block by block);
 * keep_product adds the raw product as a y (it keeps a buffer) */
static void rnn_cell(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    rnn *r = u;
    (void)ctx;
    cj_val p = r->batched ? cj_matmul(in[0], r->W) : cj_matmul(r->W, in[0]);
    out[0] = cj_tanh(cj_add(p, in[1]));
    out[1] = r->keep_product ? p : out[0];
}

static void rnn_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    rnn *r = u;
    (void)ctx;
    r->W = in[0];
    cj_scan(r->cell, 1, &in[1], 1, &in[2], NULL, &out[0], &out[1]);
}

/* The plain loop: hs[t] = h after step t (or the product). */
static void rnn_reference(const float *W, const float *h0, const float *xs, int T, int B, int H, int batched,
                          int keep_product, double *h_out, double *ys) {
    float *h = malloc(sizeof(float) * (size_t)(B * H)), *p = malloc(sizeof(float) * (size_t)(B * H));
    memcpy(h, h0, sizeof(float) * (size_t)(B * H));
    for (int t = 0; t < T; t++) {
        for (int b = 0; b < B; b++)
            for (int i = 0; i < H; i++) {
                double s = 0;
                for (int j = 0; j < H; j++) s += batched ? (double)h[b * H + j] * W[j * H + i] : (double)W[i * H + j] * h[j];
                p[b * H + i] = (float)s;
            }
        for (int q = 0; q < B * H; q++) {
            h[q] = tanhf(p[q] + xs[(size_t)t * B * H + q]);
            ys[(size_t)t * B * H + q] = keep_product ? p[q] : h[q];
        }
    }
    for (int q = 0; q < B * H; q++) h_out[q] = h[q];
    free(h), free(p);
}

static void check_rnn(int batched, int keep_product, int T, int B, int H) {
    use_private_cache(NULL);
    cj_ctx *ctx = cj_ctx_new(NULL);
    static rnn r;
    r.batched = batched, r.keep_product = keep_product;
    r.cell = cj_func_new(ctx, "rnn_cell", rnn_cell, 2, 2, &r);
    cj_func *f = cj_func_new(ctx, "rnn", rnn_fn, 3, 2, &r);
    size_t n_h = (size_t)(B * H), n_x = (size_t)T * n_h;
    float *W = malloc(sizeof(float) * (size_t)(H * H)), *h0 = malloc(sizeof(float) * n_h),
          *xs = malloc(sizeof(float) * n_x);
    uint64_t rng = 3;
    for (int i = 0; i < H * H; i++) W[i] = (float)th_rand_uniform(&rng, -1.5 / H, 1.5 / H) * 4;
    for (size_t i = 0; i < n_h; i++) h0[i] = (float)th_rand_uniform(&rng, -1, 1);
    for (size_t i = 0; i < n_x; i++) xs[i] = (float)th_rand_uniform(&rng, -0.5, 0.5);
    int64_t dw[2] = {H, H}, dh[2] = {B, H}, dx[3] = {T, B, H};
    cj_val in[3] = {cj_array(ctx, CJ_F32, 2, dw, W), batched ? cj_array(ctx, CJ_F32, 2, dh, h0)
                                                              : cj_array(ctx, CJ_F32, 1, dh + 1, h0),
                    batched ? cj_array(ctx, CJ_F32, 3, dx, xs) : cj_array(ctx, CJ_F32, 2, (int64_t[]){T, H}, xs)};
    cj_val out[2][2];
    RUN_BOTH(f, in, 2, out);
    double *h = malloc(sizeof(double) * n_h), *ys = malloc(sizeof(double) * n_x);
    rnn_reference(W, h0, xs, T, B, H, batched, keep_product, h, ys);
    CHECK(near_all(out[CC][0], h, (int64_t)n_h, 1e-4));
    CHECK(near_all(out[CC][1], ys, (int64_t)n_x, 1e-4));
    char *src = generated_c(f, in);
    CHECK_STR_CONTAINS(src, "control flow: scan");
    /* W·h as the runtime's matrix-vector product called from the loop */
    CHECK_STR_CONTAINS(src, batched ? "dot+epilogue kernel" : "/* dot_general: matrix-vector */");
    cj_string_free(ctx, src);
    free(W), free(h0), free(xs), free(h), free(ys);
    cj_ctx_free(ctx);
}

TEST(cfgen_rnn_scan_with_matrix_product) {
    check_rnn(0, 0, 25, 1, 16);
    check_rnn(0, 1, 7, 1, 37);  /* rows not a multiple of 4, a masked tail; the product as a y */
    check_rnn(0, 0, 5, 1, 128); /* 64 KiB of weights: the product prefetches the next rows */
}

/* float64: h' = W h · 0.5 + x_t, the matrix-vector call's double form */
static cj_val mv_W;
static void mv64_cell(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_add(cj_mul(cj_matmul(mv_W, in[0]), cj_scalar_typed(ctx, 0.5, CJ_F64)), in[1]);
}
static void mv64_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx;
    mv_W = in[0];
    cj_scan(u, 1, &in[1], 1, &in[2], NULL, &out[0], NULL);
}

TEST(cfgen_f64_matrix_vector_scan_matches_c_loop) {
    use_private_cache(NULL);
    cj_ctx *ctx = cj_ctx_new(NULL);
    enum { T = 6, H = 9 };
    double W[H * H], h[H], xs[T * H], p[H];
    uint64_t rng = 11;
    for (int i = 0; i < H * H; i++) W[i] = th_rand_uniform(&rng, -1, 1);
    for (int i = 0; i < H; i++) h[i] = th_rand_uniform(&rng, -1, 1);
    for (int i = 0; i < T * H; i++) xs[i] = th_rand_uniform(&rng, -1, 1);
    cj_func *cell = cj_func_new(ctx, "mv64_cell", mv64_cell, 2, 1, NULL);
    cj_func *f = cj_func_new(ctx, "mv64", mv64_fn, 3, 1, cell);
    cj_val in[3] = {cj_array(ctx, CJ_F64, 2, (int64_t[]){H, H}, W), f64_vec(ctx, H, h),
                    cj_array(ctx, CJ_F64, 2, (int64_t[]){T, H}, xs)};
    cj_val out[2][1];
    RUN_BOTH(f, in, 1, out);
    for (int t = 0; t < T; t++) { /* the plain loop */
        for (int i = 0; i < H; i++) {
            double s = 0;
            for (int j = 0; j < H; j++) s += W[i * H + j] * h[j];
            p[i] = s * 0.5 + xs[t * H + i];
        }
        memcpy(h, p, sizeof h);
    }
    CHECK(near_all(out[CC][0], h, H, 1e-12));
    char *src = generated_c(f, in);
    CHECK_STR_CONTAINS(src, "cf->matvec(1, 9, 9,");
    cj_string_free(ctx, src);
    cj_ctx_free(ctx);
}

TEST(cfgen_batched_rnn_product_with_epilogue_in_blocks) {
    fuse_set_dot_block_bytes_for_testing(1); /* several blocks of rows per step */
    check_rnn(1, 0, 4, 200, 64);             /* the product only in a kept block */
    check_rnn(1, 1, 4, 200, 64);             /* the product in its own buffer (a y) */
    fuse_set_dot_block_bytes_for_testing(0);
}

/* ---- a large carry changed in one slice per step ---- */
/* carries (big f32[N], acc f32[N], t i32), xs (u f32[T, 8]):
 *   big' = dynamic_update_slice(big, u_t, 8 t)   (in place: only the slice)
 *   acc' = acc * 0.5 + 1                           (a large loop kernel, spread on the pool)
 *   t'   = t + 1 */
enum { BIG_N = 40000 };

static void dus_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    cj_val start = cj_mul(in[2], cj_scalar_int(ctx, 8));
    out[0] = cj_dynamic_update_slice(in[0], in[3], &start);
    out[1] = cj_add(cj_mul(in[1], cj_scalar(ctx, 0.5)), cj_scalar(ctx, 1));
    out[2] = cj_add(in[2], cj_scalar_int(ctx, 1));
}

static void dus_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx;
    cj_scan((cj_func *)u, 3, in, 1, in + 3, NULL, out, NULL);
}

TEST(cfgen_dynamic_update_slice_of_a_large_carry) {
    use_private_cache(NULL);
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *body = cj_func_new(ctx, "dus_body", dus_body, 4, 3, NULL);
    cj_func *f = cj_func_new(ctx, "dus", dus_fn, 4, 3, body);
    enum { T = 50 };
    float *big = malloc(sizeof(float) * BIG_N), *acc = malloc(sizeof(float) * BIG_N), u[T * 8];
    for (int i = 0; i < BIG_N; i++) big[i] = (float)(i % 13), acc[i] = (float)(i % 5);
    for (int i = 0; i < T * 8; i++) u[i] = -1.0f - (float)i;
    int64_t n = BIG_N, du[2] = {T, 8};
    cj_val in[4] = {cj_array(ctx, CJ_F32, 1, &n, big), cj_array(ctx, CJ_F32, 1, &n, acc),
                    cj_scalar_typed(ctx, 0, CJ_I32), cj_array(ctx, CJ_F32, 2, du, u)};
    cj_val before = cj_array(ctx, CJ_F32, 1, &n, big);
    cj_val out[2][3];
    RUN_BOTH(f, in, 3, out);
    CHECK(tu_same_bits(in[0], before)); /* the operand itself is never written */
    for (int t = 0; t < T; t++) memcpy(big + 8 * t, u + 8 * t, sizeof(float) * 8);
    for (int t = 0; t < T; t++)
        for (int i = 0; i < BIG_N; i++) acc[i] = acc[i] * 0.5f + 1.0f;
    double *want = malloc(sizeof(double) * BIG_N);
    for (int i = 0; i < BIG_N; i++) want[i] = big[i];
    CHECK(near_all(out[CC][0], want, BIG_N, 0));
    for (int i = 0; i < BIG_N; i++) want[i] = acc[i];
    CHECK(near_all(out[CC][1], want, BIG_N, 0));
    char *src = generated_c(f, in);
    CHECK_STR_CONTAINS(src, "carry 0 in place");
    CHECK_STR_CONTAINS(src, "/* dynamic_update_slice */");
    CHECK_STR_CONTAINS(src, "cf->spread(");
    cj_string_free(ctx, src);
    free(big), free(acc), free(want);
    cj_ctx_free(ctx);
}

/* ---- no allocator call per step ---- */
typedef struct step_alloc {
    cj_func *cell, *sw[2];
    cj_val W;
} step_alloc;

/* h' = tanh(W h + x), negated when its sum is not positive (a cond) */
static void alloc_cell(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    step_alloc *s = u;
    cj_val h = cj_tanh(cj_add(cj_matmul(s->W, in[0]), in[1]));
    cj_cond(cj_gt(cj_sum(h, -1, NULL, 0), cj_scalar(ctx, 0)), s->sw[1], s->sw[0], 1, &h, out);
    out[1] = out[0];
}
static void neg_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u, (void)ctx;
    out[0] = cj_neg(in[0]);
}
static void same_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u, (void)ctx;
    out[0] = in[0];
}
static void alloc_rnn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    step_alloc *s = u;
    (void)ctx;
    s->W = in[0];
    cj_scan(s->cell, 1, &in[1], 1, &in[2], NULL, &out[0], &out[1]);
}


TEST(cfgen_scan_makes_no_allocator_calls_per_step) {
    use_private_cache(NULL);
    cj_ctx *ctx = cj_ctx_new(NULL);
    static step_alloc s;
    s.cell = cj_func_new(ctx, "alloc_cell", alloc_cell, 2, 2, &s);
    s.sw[0] = cj_func_new(ctx, "neg", neg_fn, 1, 1, NULL);
    s.sw[1] = cj_func_new(ctx, "same", same_fn, 1, 1, NULL);
    cj_jit_opts o = {0, NULL, 0, NULL, CJ_BACKEND_CC};
    cj_func *jf = cj_jit(cj_func_new(ctx, "alloc_rnn", alloc_rnn, 3, 2, &s), &o);
    int64_t steps[2] = {100, 1000};
    uint64_t n[2];
    long runs = native_construct_runs_for_testing();
    for (int k = 0; k < 2; k++) {
        int64_t d[2] = {steps[k], 16};
        cj_val in[3] = {cj_mul(cj_eye(ctx, 16, 16, 1, CJ_F32), cj_scalar(ctx, 0.7)), cj_zeros(ctx, CJ_F32, 1, d + 1),
                        cj_mul(cj_ones(ctx, CJ_F32, 2, d), cj_scalar(ctx, 0.1))};
        n[k] = tu_allocs_per_call(ctx, jf, in);
    }
    CHECK_MSG(cj_error(ctx) == CJ_OK, "%s", cj_error_message(ctx));
    CHECK(native_construct_runs_for_testing() >= runs + 6);
    CHECK_MSG(n[1] == n[0], "%llu allocator calls for 100 steps, %llu for 1000", (unsigned long long)n[0],
              (unsigned long long)n[1]);
    cj_ctx_free(ctx);
}

/* ---- one build for every trip count ---- */
static void halve_plus_i(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    out[0] = cj_add(cj_mul(in[1], cj_scalar(ctx, 0.5)), cj_astype(in[0], CJ_F64));
}
static void fori1_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    fori_case *fc = u;
    (void)ctx;
    cj_fori_loop(fc->lower, fc->upper, fc->body, 1, in, out);
}

TEST(cfgen_trip_count_is_not_in_the_source) {
    use_private_cache(NULL);
    cj_ctx *ctx = cj_ctx_new(NULL);
    static fori_case fc;
    fc.body = cj_func_new(ctx, "halve_plus_i", halve_plus_i, 2, 1, NULL);
    cj_func *f = cj_func_new(ctx, "fori1", fori1_fn, 1, 1, &fc);
    int64_t trips[2] = {10, 10000};
    char *src[2];
    long compiles = 0;
    for (int k = 0; k < 2; k++) {
        fc.lower = 0, fc.upper = trips[k];
        cj_jit_opts cc = {0, NULL, 0, NULL, CJ_BACKEND_CC};
        cj_func *jf = cj_jit(f, &cc);
        cj_val x = cj_scalar_typed(ctx, 1, CJ_F64), y;
        long before = cc_build_compiles();
        src[k] = cj_jit_dump(jf, &x, "c");
        if (k == 1) compiles = cc_build_compiles() - before;
        CHECK_MSG(src[k], "%s", cj_error_message(ctx));
        CHECK(cj_call(jf, &x, &y) == CJ_OK);
        double c = 1;
        for (int64_t i = 0; i < trips[k]; i++) c = c * 0.5 + (double)i;
        CHECK_NEAR(cj_item_or_nan(y), c, 0, 0);
    }
    CHECK_MSG(!strcmp(src[0], src[1]), "the source depends on the trip count");
    CHECK_EQ_INT(compiles, 0); /* the second program found the first one's build */
    cj_string_free(ctx, src[0]);
    cj_string_free(ctx, src[1]);
    cj_ctx_free(ctx);
}

/* ---- faults ---- */
/* A jitted scan on generated C whose body holds a cond, a while loop and
 * a matrix product: the final carry plus the sum of the ys. */
typedef struct mixed {
    cj_func *body, *br[2], *cond, *grow;
    cj_val W;
} mixed;

static void below_two(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    out[0] = cj_lt(cj_sum(cj_abs(in[0]), -1, NULL, 0), cj_scalar(ctx, 2));
}
static void doubling(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    out[0] = cj_add(cj_mul(in[0], cj_scalar(ctx, 2)), cj_scalar(ctx, 0.125));
}
static void mixed_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    mixed *m = u;
    cj_val s = cj_add(cj_matmul(m->W, in[0]), in[1]), w, c;
    cj_cond(cj_gt(cj_sum(s, -1, NULL, 0), cj_scalar(ctx, 0)), m->br[1], m->br[0], 1, &s, &c);
    cj_while_loop(m->cond, m->grow, 1, &c, &w);
    out[0] = cj_mul(w, cj_scalar(ctx, 0.25));
    out[1] = cj_sub(w, c);
}
static void mixed_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    mixed *m = u;
    (void)ctx;
    m->W = in[0];
    cj_scan(m->body, 1, &in[1], 1, &in[2], NULL, &out[0], &out[1]);
}

static int mixed_scenario(cj_ctx *ctx, cj_backend backend, double *result) {
    static mixed m;
    m.body = cj_func_new(ctx, "mixed_body", mixed_body, 2, 2, &m);
    m.br[0] = cj_func_new(ctx, "neg", neg_fn, 1, 1, NULL);
    m.br[1] = cj_func_new(ctx, "same", same_fn, 1, 1, NULL);
    m.cond = cj_func_new(ctx, "below_two", below_two, 1, 1, NULL);
    m.grow = cj_func_new(ctx, "doubling", doubling, 1, 1, NULL);
    int64_t dw[2] = {4, 4}, dx[2] = {6, 4};
    float W[16], X[24];
    for (int i = 0; i < 16; i++) W[i] = (float)((i * 5) % 7 - 3) * 0.25f;
    for (int i = 0; i < 24; i++) X[i] = (float)((i * 3) % 11 - 5) * 0.125f;
    cj_val in[3] = {cj_array(ctx, CJ_F32, 2, dw, W), cj_zeros(ctx, CJ_F32, 1, dw), cj_array(ctx, CJ_F32, 2, dx, X)};
    cj_jit_opts o = {0, NULL, 0, NULL, backend};
    cj_val out[2] = {cj_scalar(ctx, 0), cj_scalar(ctx, 0)}; /* cj_call(NULL, ...) leaves them */
    cj_call(cj_jit(cj_func_new(ctx, "mixed", mixed_fn, 3, 2, &m), &o), in, out);
    *result = cj_item_or_nan(cj_add(cj_sum(out[0], -1, NULL, 0), cj_sum(out[1], -1, NULL, 0)));
    return cj_error(ctx);
}

TEST(cfgen_allocation_failure_at_every_site_is_clean) {
    use_private_cache(NULL);
    double want;
    cj_ctx *ref = cj_ctx_new(NULL);
    CHECK(mixed_scenario(ref, CJ_BACKEND_INTERP, &want) == CJ_OK);
    cj_ctx_free(ref);
    CHECK(isfinite(want));
    long runs = native_construct_runs_for_testing();
    int covered = 0;
    long long n;
    for (n = 1; n < 100000 && !covered; n++) {
        tu_alloc st = {0};
        st.fail_at = n;
        cj_allocator a = tu_allocator(&st);
        cj_ctx *ctx = cj_ctx_new(&a);
        if (ctx) {
            double result;
            int rc = mixed_scenario(ctx, CJ_BACKEND_CC, &result);
            CHECK_MSG(rc == CJ_OK || rc == CJ_ERR_OOM, "allocation %lld: expected CJ_ERR_OOM, got %s: %s", n,
                      cj_status_name((cj_status)rc), cj_error_message(ctx));
            if (!st.failed) {
                CHECK(rc == CJ_OK);
                CHECK_NEAR(result, want, 0, 0);
                covered = 1;
            }
            cj_ctx_free(ctx);
        }
        CHECK_MSG(st.live == 0, "allocation %lld failing leaked %lld blocks", n, st.live);
    }
    CHECK(covered);
    CHECK(n > 100);
    CHECK(native_construct_runs_for_testing() > runs); /* the generated loops ran */
}

TEST(cfgen_failing_compiler_falls_back_to_the_runtime_loop) {
    use_private_cache("false");
    cj_ctx *ctx = cj_ctx_new(NULL);
    long runs = native_construct_runs_for_testing();
    double got, want;
    CHECK(mixed_scenario(ctx, CJ_BACKEND_CC, &got) == CJ_OK);
    CHECK(mixed_scenario(ctx, CJ_BACKEND_INTERP, &want) == CJ_OK);
    CHECK_NEAR(got, want, 0, 0);
    CHECK_EQ_INT(native_construct_runs_for_testing(), runs);
    cj_ctx_free(ctx);
    native_set_build_options_for_testing(NULL);
}

/* Tiered: the runtime's loop first, generated C once built; the bits
 * never change. */
TEST(cfgen_tiered_switches_over_without_changing_bits) {
    use_private_cache(NULL);
    cj_ctx *ctx = cj_ctx_new(NULL);
    static fori_case fc;
    fc.body = cj_func_new(ctx, "fori_body", fori_body, 3, 2, NULL);
    fc.lower = 0, fc.upper = 300;
    cj_jit_opts tiered = {0, NULL, 0, NULL, CJ_BACKEND_TIERED}, interp = {0, NULL, 0, NULL, CJ_BACKEND_INTERP};
    cj_func *f = cj_func_new(ctx, "fori", fori_fn, 2, 2, &fc);
    cj_val in[2] = {f64_vec(ctx, 4, (double[]){0.3, 2, -1, 5}), cj_scalar_typed(ctx, 1, CJ_I32)}, want[2], got[2];
    CHECK(cj_call(cj_jit(f, &interp), in, want) == CJ_OK);
    cj_func *jf = cj_jit(f, &tiered);
    long runs = native_construct_runs_for_testing();
    cj_program_info info = {0};
    for (int i = 0; i < 400 && !(info.native && native_construct_runs_for_testing() > runs); i++) {
        cj_scope_begin(ctx);
        CHECK(cj_call(jf, in, got) == CJ_OK);
        CHECK(tu_same_bits(got[0], want[0]) && tu_same_bits(got[1], want[1]));
        cj_scope_end(ctx, 0, NULL);
        CHECK(cj_jit_program_info(jf, in, &info) == CJ_OK);
        if (!info.native) nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
    }
    CHECK_MSG(info.native, "the generated C was not installed: %s", info.compile_error);
    CHECK(cj_call(jf, in, got) == CJ_OK);
    CHECK(tu_same_bits(got[0], want[0]) && tu_same_bits(got[1], want[1]));
    CHECK(native_construct_runs_for_testing() > runs);
    cj_ctx_free(ctx);
}
