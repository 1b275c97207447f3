/* test_control.c — the control-flow constructs themselves (cond, switch,
 * while_loop, fori_loop, scan), run eagerly and under jit on both
 * backends: Newton's sqrt against the closed form, scan against cumsum
 * (forward, reverse, several carries / xs / ys, zero length), piecewise
 * functions through cond and switch, fori_loop against a C loop, bodies
 * closing over values of the enclosing jitted function, the error
 * messages, an IR whose size does not depend on the trip count, no
 * allocator traffic per step of a jitted scan, and allocation failures.
 * Their vmap and autodiff rules are tested in test_control_vmap.c and
 * test_control_ad.c. */
#include <stdlib.h>

#include "harness.h"
#include "test_util.h"

/* ---- helpers ---- */
#define MAX_OUT 8

/* The three ways every construct is checked: eagerly, and jitted on the
 * interpreter and on generated C. */
enum { MODE_EAGER, MODE_INTERP, MODE_CC, N_MODES };
static const char *const mode_name[N_MODES] = {"eager", "jit interp", "jit cc"};

static cj_status call_mode(cj_func *f, int mode, const cj_val *in, cj_val *out) {
    if (mode == MODE_EAGER) return cj_call(f, in, out);
    cj_jit_opts o = {0, NULL, 0, NULL, mode == MODE_INTERP ? CJ_BACKEND_INTERP : CJ_BACKEND_CC};
    return cj_call(cj_jit(f, &o), in, out);
}

static double at(cj_val v, int64_t i) {
    double buf[4096];
    if (cj_val_size(v) > 4096 || cj_read_as(v, CJ_F64, buf, sizeof(double) * (size_t)cj_val_size(v)) != CJ_OK)
        return NAN;
    return buf[i];
}

/* Calls f in every mode (a fresh jit each time, so a body's user data may
 * change between calls); checks each succeeds and that the jitted results
 * equal the eager ones bit for bit. out[mode][j]; needs `ctx` in scope. */
#define CHECK_ALL_MODES(f, in, n_out, out)                                                                       \
    do {                                                                                                       \
        for (int m_ = 0; m_ < N_MODES; m_++) {                                                                 \
            cj_status st_ = call_mode((f), m_, (in), (out)[m_]);                                                \
            CHECK_MSG(st_ == CJ_OK, "%s: %s", mode_name[m_], cj_error_message(ctx)); \
            for (int j_ = 0; j_ < (n_out) && m_ > 0; j_++)                                                     \
                CHECK_MSG(tu_same_bits((out)[m_][j_], (out)[0][j_]), "%s: output %d differs from eager", mode_name[m_], \
                          j_);                                                                                 \
        }                                                                                                      \
    } while (0)

static cj_val f64_vec(cj_ctx *ctx, int64_t n, const double *v) { return cj_array(ctx, CJ_F64, 1, &n, v); }

/* ---- while_loop: Newton's method for sqrt ---- */
typedef struct newton {
    cj_func *cond, *body;
} newton;

/* carries (x, a, iterations): go on while some |x^2 - a| / a > 1e-15 */
static void newton_cond(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    cj_val rel = cj_reduce_max(cj_div(cj_abs(cj_sub(cj_mul(in[0], in[0]), in[1])), in[1]), -1, NULL, 0);
    out[0] = cj_and(cj_gt(rel, cj_scalar(ctx, 1e-15)), cj_lt(in[2], cj_scalar_int(ctx, 60)));
}

static void newton_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    out[0] = cj_mul(cj_scalar(ctx, 0.5), cj_add(in[0], cj_div(in[1], in[0])));
    out[1] = in[1];
    out[2] = cj_add(in[2], cj_scalar_int(ctx, 1));
}

/* sqrt(a) = newton(a): x0 = a + 1 (above the root: convergence is monotone) */
static void newton_sqrt(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    newton *nw = u;
    cj_val init[3] = {cj_add(in[0], cj_scalar(ctx, 1)), in[0], cj_scalar_typed(ctx, 0, CJ_I32)}, res[3];
    cj_while_loop(nw->cond, nw->body, 3, init, res);
    out[0] = res[0];
    out[1] = res[2];
}

TEST(cf_while_newton_sqrt_matches_closed_form) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    static newton nw;
    nw.cond = cj_func_new(ctx, "newton_cond", newton_cond, 3, 1, NULL);
    nw.body = cj_func_new(ctx, "newton_body", newton_body, 3, 3, NULL);
    cj_func *f = cj_func_new(ctx, "newton_sqrt", newton_sqrt, 1, 2, &nw);
    static const double a[5] = {0.25, 2, 9, 1e6, 1e-4};
    cj_val x = f64_vec(ctx, 5, a), out[N_MODES][MAX_OUT];
    CHECK_ALL_MODES(f, &x, 2, out);
    /* the same iteration in C: the same count */
    double cx[5];
    int iters = 0;
    for (int i = 0; i < 5; i++) cx[i] = a[i] + 1;
    for (;;) {
        double rel = 0;
        for (int i = 0; i < 5; i++) rel = fmax(rel, fabs(cx[i] * cx[i] - a[i]) / a[i]);
        if (!(rel > 1e-15 && iters < 60)) break;
        for (int i = 0; i < 5; i++) cx[i] = 0.5 * (cx[i] + a[i] / cx[i]);
        iters++;
    }
    CHECK(iters < 60);
    CHECK_EQ_INT(cj_val_dtype(out[0][1]), CJ_I32);
    CHECK_EQ_INT((int64_t)at(out[0][1], 0), iters);
    for (int i = 0; i < 5; i++) CHECK_NEAR(at(out[0][0], i), sqrt(a[i]), 4.5e-16, 0);
    CHECK(cj_error(ctx) == CJ_OK);
    cj_ctx_free(ctx);
}

/* A while loop that never runs its body returns the initial carries. */
static void never(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    out[0] = cj_lt(cj_sum(in[0], -1, NULL, 0), cj_scalar(ctx, -1));
}
static void doubling(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    out[0] = cj_mul(in[0], cj_scalar(ctx, 2));
}
static void while_never(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx;
    cj_func **fs = u;
    cj_while_loop(fs[0], fs[1], 1, in, out);
}

TEST(cf_while_zero_iterations_returns_init) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    static cj_func *fs[2];
    fs[0] = cj_func_new(ctx, "never", never, 1, 1, NULL);
    fs[1] = cj_func_new(ctx, "doubling", doubling, 1, 1, NULL);
    cj_func *f = cj_func_new(ctx, "while_never", while_never, 1, 1, fs);
    cj_val x = f64_vec(ctx, 3, (double[]){1, 2, 3}), out[N_MODES][MAX_OUT];
    CHECK_ALL_MODES(f, &x, 1, out);
    CHECK(tu_same_bits(out[0][0], x));
    cj_ctx_free(ctx);
}

/* ---- scan: running sums against cumsum ---- */
/* carries (ca f64[3], cb f32, n i32), xs (xa f64[T,3], xb f32[T]);
 * ys (ca', cb', the step count before the step) */
static void sums_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    out[0] = cj_add(in[0], in[3]);
    out[1] = cj_add(in[1], in[4]);
    out[2] = cj_add(in[2], cj_scalar_int(ctx, 1));
    out[3] = out[0];
    out[4] = out[1];
    out[5] = in[2];
}

typedef struct sums {
    cj_func *body;
    int reverse;
} sums;

/* (ca, cb, n, xa, xb) → (carries..., ys...) */
static void running_sums(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    sums *s = u;
    (void)ctx;
    cj_scan_opts o = {0, 0, s->reverse};
    cj_scan(s->body, 3, in, 2, in + 3, &o, out, out + 3);
}

/* Integer-valued data: every sum is exact, whatever the order. */
static void sums_inputs(cj_ctx *ctx, int64_t T, cj_val *in, uint64_t seed) {
    double *xa = malloc(sizeof(double) * (size_t)(3 * T + 1));
    float *xb = malloc(sizeof(float) * (size_t)(T + 1));
    for (int64_t i = 0; i < 3 * T; i++) xa[i] = floor(th_rand_uniform(&seed, -50, 50));
    for (int64_t i = 0; i < T; i++) xb[i] = (float)floor(th_rand_uniform(&seed, -50, 50));
    in[0] = f64_vec(ctx, 3, (double[]){1, -2, 3});
    in[1] = cj_scalar_typed(ctx, 10, CJ_F32);
    in[2] = cj_scalar_typed(ctx, 100, CJ_I32);
    in[3] = cj_array(ctx, CJ_F64, 2, (int64_t[]){T, 3}, xa);
    in[4] = cj_array(ctx, CJ_F32, 1, &T, xb);
    free(xa), free(xb);
}

static void check_sums(int reverse) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    static sums s;
    s.body = cj_func_new(ctx, "sums_body", sums_body, 5, 6, NULL);
    s.reverse = reverse;
    cj_func *f = cj_func_new(ctx, "running_sums", running_sums, 5, 6, &s);
    const int64_t T = 7;
    cj_val in[5], out[N_MODES][MAX_OUT];
    sums_inputs(ctx, T, in, 5 + (uint64_t)reverse);
    CHECK_ALL_MODES(f, in, 6, out);
    cj_val ya = cj_add(in[0], cj_cumsum(in[3], 0, reverse)), yb = cj_add(in[1], cj_cumsum(in[4], 0, reverse));
    CHECK(tu_same_bits(out[0][3], ya));
    CHECK(tu_same_bits(out[0][4], yb));
    int64_t first = reverse ? T - 1 : 0;
    int64_t ax = 0;
    CHECK(tu_same_bits(out[0][0], cj_squeeze(cj_slice(ya, (int64_t[]){reverse ? 0 : T - 1, 0},
                                                    (int64_t[]){reverse ? 1 : T, 3}, NULL), 1, &ax)));
    CHECK_NEAR(at(out[0][1], 0), at(yb, reverse ? 0 : T - 1), 0, 0);
    CHECK_EQ_INT(cj_val_dtype(out[0][2]), CJ_I32);
    CHECK_EQ_INT((int64_t)at(out[0][2], 0), 100 + T);
    /* ys[t] holds the count at step t: a reverse scan meets t = T-1 first */
    for (int64_t t = 0; t < T; t++) CHECK_EQ_INT((int64_t)at(out[0][5], t), 100 + (reverse ? T - 1 - t : t));
    CHECK_EQ_INT((int64_t)at(out[0][5], first), 100);
    CHECK_EQ_INT(cj_val_dtype(out[0][4]), CJ_F32);
    cj_ctx_free(ctx);
}

TEST(cf_scan_matches_cumsum_forward) { check_sums(0); }
TEST(cf_scan_matches_cumsum_reverse) { check_sums(1); }

TEST(cf_scan_zero_length) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    for (int reverse = 0; reverse < 2; reverse++) {
        static sums s;
        s.body = cj_func_new(ctx, "sums_body", sums_body, 5, 6, NULL);
        s.reverse = reverse;
        cj_func *f = cj_func_new(ctx, "running_sums", running_sums, 5, 6, &s);
        cj_val in[5], out[N_MODES][MAX_OUT];
        sums_inputs(ctx, 0, in, 3);
        CHECK_ALL_MODES(f, in, 6, out);
        for (int i = 0; i < 3; i++) CHECK(tu_same_bits(out[0][i], in[i])); /* carries untouched */
        int64_t d[CJ_MAX_RANK];
        CHECK_EQ_INT(cj_val_shape(out[0][3], d), 2);
        CHECK(d[0] == 0 && d[1] == 3);
        CHECK_EQ_INT(cj_val_shape(out[0][4], d), 1);
        CHECK_EQ_INT(d[0], 0);
        CHECK_EQ_INT(cj_val_dtype(out[0][5]), CJ_I32);
        CHECK_EQ_INT(cj_val_size(out[0][5]), 0);
    }
    /* no xs at all: the length says how often */
    cj_val c = cj_scalar_typed(ctx, 4, CJ_F64), out;
    cj_scan_opts o = {0, 1, 0};
    CHECK(cj_scan(cj_func_new(ctx, "doubling", doubling, 1, 1, NULL), 1, &c, 0, NULL, &o, &out, NULL) == CJ_OK);
    CHECK(tu_same_bits(out, c));
    o.length = 5;
    CHECK(cj_scan(cj_func_new(ctx, "doubling", doubling, 1, 1, NULL), 1, &c, 0, NULL, &o, &out, NULL) == CJ_OK);
    CHECK_NEAR(at(out, 0), 128, 0, 0);
    cj_ctx_free(ctx);
}

/* ---- cond and switch: piecewise functions ---- */
static void square(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_mul(in[0], in[0]);
}
static void negate(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_neg(in[0]);
}
static void plus_one(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    out[0] = cj_add(in[0], cj_scalar(ctx, 1));
}
static void twice(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    out[0] = cj_mul(in[0], cj_scalar(ctx, 2));
}

typedef struct branches {
    cj_func *f[4];
    int n;
} branches;

/* (pred, x) → cond(pred, f[0], f[1], x): f[0] when true */
static void cond_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    branches *b = u;
    (void)ctx;
    cj_cond(in[0], b->f[0], b->f[1], 1, &in[1], out);
}
/* (index, x) → switch(index, f, x) */
static void switch_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    branches *b = u;
    (void)ctx;
    cj_switch(in[0], b->n, b->f, 1, &in[1], out);
}
/* x → x^2 where x > 0, else -x: the predicate is computed inside */
static void piecewise(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    branches *b = u;
    cj_cond(cj_gt(in[0], cj_scalar(ctx, 0)), b->f[0], b->f[1], 1, in, out);
}

TEST(cf_cond_piecewise_bool_and_int_predicates) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    static branches b;
    b.f[0] = cj_func_new(ctx, "square", square, 1, 1, NULL);
    b.f[1] = cj_func_new(ctx, "negate", negate, 1, 1, NULL);
    b.n = 2;
    cj_func *f = cj_func_new(ctx, "cond_fn", cond_fn, 2, 1, &b);
    cj_val x = f64_vec(ctx, 3, (double[]){1.5, -2, 3});
    /* a bool predicate, and integers as lax.cond takes them: nonzero is true */
    struct {
        double p;
        cj_dtype dt;
        int truth;
    } preds[] = {{1, CJ_BOOL, 1}, {0, CJ_BOOL, 0}, {1, CJ_I32, 1}, {0, CJ_I32, 0},
                 {7, CJ_I32, 1},  {-3, CJ_I32, 1}, {-1, CJ_I64, 1}, {0, CJ_I64, 0}};
    for (size_t k = 0; k < sizeof preds / sizeof preds[0]; k++) {
        cj_val in[2] = {cj_scalar_typed(ctx, preds[k].p, preds[k].dt), x}, out[N_MODES][MAX_OUT];
        CHECK_ALL_MODES(f, in, 1, out);
        for (int i = 0; i < 3; i++) {
            double v = at(x, i);
            CHECK_MSG(at(out[0][0], i) == (preds[k].truth ? v * v : -v), "pred %g (%s): element %d is %g", preds[k].p,
                      cj_dtype_name(preds[k].dt), i, at(out[0][0], i));
        }
    }
    /* a weakly typed C scalar predicate works too */
    cj_val out;
    CHECK(cj_cond(cj_scalar_int(ctx, 2), b.f[0], b.f[1], 1, &x, &out) == CJ_OK);
    CHECK_NEAR(at(out, 1), 4, 0, 0);
    /* piecewise, the predicate from the data */
    cj_func *pw = cj_func_new(ctx, "piecewise", piecewise, 1, 1, &b);
    static const double pts[6] = {-2.5, -1, -1e-9, 0, 1e-9, 3};
    for (int i = 0; i < 6; i++) {
        cj_val xi = cj_scalar_typed(ctx, pts[i], CJ_F64), o[N_MODES][MAX_OUT];
        CHECK_ALL_MODES(pw, &xi, 1, o);
        CHECK(at(o[0][0], 0) == (pts[i] > 0 ? pts[i] * pts[i] : -pts[i]));
    }
    CHECK(cj_error(ctx) == CJ_OK);
    cj_ctx_free(ctx);
}

TEST(cf_switch_piecewise_clamps_the_index) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    static branches b;
    b.f[0] = cj_func_new(ctx, "plus_one", plus_one, 1, 1, NULL);
    b.f[1] = cj_func_new(ctx, "twice", twice, 1, 1, NULL);
    b.f[2] = cj_func_new(ctx, "negate", negate, 1, 1, NULL);
    b.n = 3;
    cj_func *f = cj_func_new(ctx, "switch_fn", switch_fn, 2, 1, &b);
    cj_val x = f64_vec(ctx, 2, (double[]){1.25, -4});
    /* lax.switch clamps: below 0 is branch 0, past the end the last */
    static const int64_t idx[] = {-100, -1, 0, 1, 2, 3, 1000};
    for (int dt = 0; dt < 2; dt++)
        for (size_t k = 0; k < sizeof idx / sizeof idx[0]; k++) {
            cj_val in[2] = {cj_scalar_typed(ctx, (double)idx[k], dt ? CJ_I64 : CJ_I32), x}, out[N_MODES][MAX_OUT];
            CHECK_ALL_MODES(f, in, 1, out);
            int64_t br = idx[k] < 0 ? 0 : idx[k] > 2 ? 2 : idx[k];
            for (int i = 0; i < 2; i++) {
                double v = at(x, i), want = br == 0 ? v + 1 : br == 1 ? 2 * v : -v;
                CHECK_MSG(at(out[0][0], i) == want, "index %lld: element %d is %g, want %g", (long long)idx[k], i,
                          at(out[0][0], i), want);
            }
        }
    /* a single branch takes every index */
    cj_val out;
    CHECK(cj_switch(cj_scalar_typed(ctx, 5, CJ_I32), 1, b.f + 1, 1, &x, &out) == CJ_OK);
    CHECK_NEAR(at(out, 1), -8, 0, 0);
    /* two branches with an integer index are a switch, clamped (not cond's nonzero test) */
    CHECK(cj_switch(cj_scalar_typed(ctx, -3, CJ_I32), 2, b.f, 1, &x, &out) == CJ_OK);
    CHECK_NEAR(at(out, 0), 2.25, 0, 0);
    CHECK(cj_error(ctx) == CJ_OK);
    cj_ctx_free(ctx);
}

/* ---- fori_loop against a C loop ---- */
typedef struct fori {
    cj_func *body;
    int64_t lower, upper;
    int index_dtype; /* seen by the body while traced */
} fori;

/* (i, x, acc[2]) → (x/2 + i, acc + [i, i*i]) */
static void fori_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    fori *fo = u;
    fo->index_dtype = cj_val_dtype(in[0]);
    cj_val i = cj_astype(in[0], CJ_F64);
    out[0] = cj_add(cj_mul(in[1], cj_scalar(ctx, 0.5)), i);
    out[1] = cj_add(in[2], cj_concatenate(2, (cj_val[]){cj_reshape(i, 1, (int64_t[]){1}),
                                                       cj_reshape(cj_mul(i, i), 1, (int64_t[]){1})},
                                          0));
}

static void fori_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    fori *fo = u;
    (void)ctx;
    cj_fori_loop(fo->lower, fo->upper, fo->body, 2, in, out);
}

TEST(cf_fori_loop_matches_c_loop) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    static fori fo;
    fo.body = cj_func_new(ctx, "fori_body", fori_body, 3, 2, &fo);
    cj_func *f = cj_func_new(ctx, "fori_fn", fori_fn, 2, 2, &fo);
    static const int64_t bounds[][2] = {{0, 10}, {-3, 17}, {5, 5}, {9, 2}, {1000, 1003}};
    for (size_t k = 0; k < sizeof bounds / sizeof bounds[0]; k++) {
        fo.lower = bounds[k][0], fo.upper = bounds[k][1];
        cj_val in[2] = {cj_scalar_typed(ctx, 3.75, CJ_F64), f64_vec(ctx, 2, (double[]){0.5, -1})};
        cj_val out[N_MODES][MAX_OUT];
        CHECK_ALL_MODES(f, in, 2, out);
        CHECK_EQ_INT(fo.index_dtype, CJ_I32);
        double x = 3.75, acc[2] = {0.5, -1};
        for (int64_t i = fo.lower; i < fo.upper; i++) {
            x = x * 0.5 + (double)i;
            acc[0] += (double)i;
            acc[1] += (double)i * (double)i;
        }
        CHECK_MSG(at(out[0][0], 0) == x, "[%lld, %lld): %.17g vs %.17g", (long long)fo.lower, (long long)fo.upper,
                  at(out[0][0], 0), x);
        CHECK(at(out[0][1], 0) == acc[0] && at(out[0][1], 1) == acc[1]);
    }
    cj_ctx_free(ctx);
}

/* ---- closures: bodies reading values of the enclosing function ---- */
#define RNN_T 6
#define RNN_H 4
#define RNN_I 3

typedef struct rnn {
    cj_func *cell;
    cj_val W, U, b; /* set by rnn_fn while it runs: the cell closes over them */
} rnn;

/* h' = tanh(W h + U x + b); y = h' */
static void rnn_cell(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    rnn *r = u;
    (void)ctx;
    out[0] = cj_tanh(cj_add(cj_add(cj_matmul(r->W, in[0]), cj_matmul(r->U, in[1])), r->b));
    out[1] = out[0];
}

/* (W, U, b, h0, xs) → (h_T, hs) */
static void rnn_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    rnn *r = u;
    (void)ctx;
    r->W = in[0], r->U = in[1], r->b = in[2];
    cj_scan(r->cell, 1, &in[3], 1, &in[4], NULL, &out[0], &out[1]);
}

TEST(cf_scan_closure_rnn_weights) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    static rnn r;
    r.cell = cj_func_new(ctx, "rnn_cell", rnn_cell, 2, 2, &r);
    cj_func *f = cj_func_new(ctx, "rnn", rnn_fn, 5, 2, &r);
    uint64_t seed = 42;
    double W[RNN_H * RNN_H], U[RNN_H * RNN_I], b[RNN_H], h[RNN_H], xs[RNN_T * RNN_I];
    for (int i = 0; i < RNN_H * RNN_H; i++) W[i] = th_rand_uniform(&seed, -0.7, 0.7);
    for (int i = 0; i < RNN_H * RNN_I; i++) U[i] = th_rand_uniform(&seed, -0.7, 0.7);
    for (int i = 0; i < RNN_H; i++) b[i] = th_rand_uniform(&seed, -0.2, 0.2), h[i] = th_rand_uniform(&seed, -1, 1);
    for (int i = 0; i < RNN_T * RNN_I; i++) xs[i] = th_rand_uniform(&seed, -1, 1);
    cj_val in[5] = {cj_array(ctx, CJ_F64, 2, (int64_t[]){RNN_H, RNN_H}, W),
                    cj_array(ctx, CJ_F64, 2, (int64_t[]){RNN_H, RNN_I}, U), f64_vec(ctx, RNN_H, b),
                    f64_vec(ctx, RNN_H, h), cj_array(ctx, CJ_F64, 2, (int64_t[]){RNN_T, RNN_I}, xs)};
    cj_val out[N_MODES][MAX_OUT];
    for (int m = 0; m < N_MODES; m++) CHECK_MSG(call_mode(f, m, in, out[m]) == CJ_OK, "%s", cj_error_message(ctx));
    /* the same recurrence in C */
    double hs[RNN_T][RNN_H];
    for (int t = 0; t < RNN_T; t++) {
        double next[RNN_H];
        for (int i = 0; i < RNN_H; i++) {
            double s = b[i];
            for (int j = 0; j < RNN_H; j++) s += W[i * RNN_H + j] * h[j];
            for (int j = 0; j < RNN_I; j++) s += U[i * RNN_I + j] * xs[t * RNN_I + j];
            next[i] = tanh(s);
        }
        memcpy(h, next, sizeof h);
        memcpy(hs[t], next, sizeof next);
    }
    for (int m = 0; m < N_MODES; m++) {
        for (int i = 0; i < RNN_H; i++) CHECK_NEAR(at(out[m][0], i), h[i], 1e-13, 1e-14);
        for (int t = 0; t < RNN_T; t++)
            for (int i = 0; i < RNN_H; i++) CHECK_NEAR(at(out[m][1], t * RNN_H + i), hs[t][i], 1e-13, 1e-14);
    }
    /* a jitted call again, with other weights: the closure is an operand, not a constant */
    cj_val in2[5] = {cj_mul(in[0], cj_scalar(ctx, 0.5)), in[1], in[2], in[3], in[4]}, o1[2], o2[2];
    cj_func *jf = cj_jit(f, NULL);
    CHECK(cj_call(jf, in, o1) == CJ_OK && cj_call(jf, in2, o2) == CJ_OK);
    CHECK(tu_same_bits(o1[0], out[0][0]));
    CHECK(!tu_same_bits(o2[0], o1[0]));
    cj_jit_stats js;
    cj_jit_stats_get(jf, &js);
    CHECK_EQ_INT(js.traces, 1);
    cj_ctx_free(ctx);
}

/* A scan whose body holds a cond whose branch reads a value two levels
 * out: c' = s - lim when s = c + x exceeds lim, else s. */
typedef struct clip {
    cj_func *body, *over, *keep;
    cj_val lim;
} clip;

static void clip_over(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    clip *c = u;
    (void)ctx;
    out[0] = cj_sub(in[0], c->lim);
}
static void clip_keep(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = in[0];
}
static void clip_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    clip *c = u;
    (void)ctx;
    cj_val s = cj_add(in[0], in[1]);
    cj_cond(cj_gt(s, c->lim), c->over, c->keep, 1, &s, out);
    out[1] = out[0];
}
/* (lim, c0, xs) → (c_T, cs) */
static void clip_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    clip *c = u;
    (void)ctx;
    c->lim = in[0];
    cj_scan(c->body, 1, &in[1], 1, &in[2], NULL, &out[0], &out[1]);
}

/* while x < limit: x = 2 x + step, limit and step from outside */
typedef struct grow {
    cj_func *cond, *body;
    cj_val limit, step;
} grow;
static void grow_cond(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    grow *g = u;
    (void)ctx;
    out[0] = cj_lt(in[0], g->limit);
}
static void grow_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    grow *g = u;
    out[0] = cj_add(cj_mul(in[0], cj_scalar(ctx, 2)), g->step);
}
static void grow_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    grow *g = u;
    (void)ctx;
    g->limit = in[1], g->step = in[2];
    cj_while_loop(g->cond, g->body, 1, in, out);
}

TEST(cf_closures_in_cond_and_while) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    static clip c;
    c.body = cj_func_new(ctx, "clip_body", clip_body, 2, 2, &c);
    c.over = cj_func_new(ctx, "clip_over", clip_over, 1, 1, &c);
    c.keep = cj_func_new(ctx, "clip_keep", clip_keep, 1, 1, &c);
    cj_func *f = cj_func_new(ctx, "clip", clip_fn, 3, 2, &c);
    static const double xs[8] = {0.75, 2.5, -1, 0.5, 3, 0.25, -0.5, 1};
    cj_val in[3] = {cj_scalar_typed(ctx, 2, CJ_F64), cj_scalar_typed(ctx, 0.5, CJ_F64), f64_vec(ctx, 8, xs)};
    cj_val out[N_MODES][MAX_OUT];
    CHECK_ALL_MODES(f, in, 2, out);
    double acc = 0.5;
    for (int t = 0; t < 8; t++) {
        double s = acc + xs[t];
        acc = s > 2 ? s - 2 : s;
        CHECK_NEAR(at(out[0][1], t), acc, 0, 0);
    }
    CHECK_NEAR(at(out[0][0], 0), acc, 0, 0);

    static grow g;
    g.cond = cj_func_new(ctx, "grow_cond", grow_cond, 1, 1, &g);
    g.body = cj_func_new(ctx, "grow_body", grow_body, 1, 1, &g);
    cj_func *gf = cj_func_new(ctx, "grow", grow_fn, 3, 1, &g);
    cj_val gin[3] = {cj_scalar_typed(ctx, 1, CJ_F64), cj_scalar_typed(ctx, 1000, CJ_F64),
                     cj_scalar_typed(ctx, 0.5, CJ_F64)};
    CHECK_ALL_MODES(gf, gin, 1, out);
    double x = 1;
    while (x < 1000) x = 2 * x + 0.5;
    CHECK_NEAR(at(out[0][0], 0), x, 0, 0);
    cj_ctx_free(ctx);
}

/* ---- a nested construct equal to the enclosing one's first branches ---- */
typedef struct nest {
    cj_func *keep, *inner_switch, *outer_true;
} nest;

static void keep_operand(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = in[0];
}
/* switch(1, [keep], x) * 2: the index is clamped to the one branch */
static void inner_switch_twice(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    nest *n = u;
    cj_val s;
    cj_switch(cj_scalar_typed(ctx, 1, CJ_I32), 1, &n->keep, 1, in, &s);
    out[0] = cj_mul(s, cj_scalar(ctx, 2));
}
/* x → cond(sum(x) > 0, inner_switch_twice, keep, x) */
static void nested_same_branch(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    nest *n = u;
    cj_val s = cj_sum(in[0], 0, NULL, 0);
    cj_cond(cj_gt(s, cj_scalar(ctx, 0)), n->outer_true, n->keep, 1, in, out);
    out[0] = cj_sum(out[0], 0, NULL, 0);
}

/* Found by the fuzzer (program seeds 3141657170, 8675412976, 8675424110):
 * while the cond's true branch (its branch 1) is traced, the cond's
 * record already holds branch 0, `keep`, and has the cond's operand
 * layout and output types; the inner one-branch switch over `keep` equals
 * that half-built record, so the deduplication of records made it the
 * cond's own record: the cond's branch 1 then called the cond itself,
 * and grad recursed until "transformations nested more than 64 deep"
 * (running it would recurse the same way, the clamped index 1 taking
 * branch 1 again). Records are matched only once finished. */
TEST(cf_nested_switch_equal_to_enclosing_branch_gets_its_own_record) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    static nest n;
    n.keep = cj_func_new(ctx, "keep", keep_operand, 1, 1, NULL);
    n.outer_true = cj_func_new(ctx, "inner_switch_twice", inner_switch_twice, 1, 1, &n);
    cj_func *f = cj_func_new(ctx, "nested_same_branch", nested_same_branch, 1, 1, &n);
    cj_func *g = cj_grad(f, NULL);
    static const double pos[3] = {1, 2, -0.5}, neg[3] = {-1, 0.25, -0.5};
    for (int k = 0; k < 2; k++) {
        cj_val x = f64_vec(ctx, 3, k ? neg : pos), dx, out[N_MODES][MAX_OUT];
        double want = k ? -1.25 : 5, dwant = k ? 1 : 2;
        /* grad first: before the fix it failed cleanly, running recursed */
        CHECK_MSG(cj_call(g, &x, &dx) == CJ_OK, "grad: %s", cj_error_message(ctx));
        for (int i = 0; i < 3; i++) CHECK_NEAR(at(dx, i), dwant, 0, 0);
        CHECK_MSG(cj_call(cj_jit(g, NULL), &x, &dx) == CJ_OK, "jit(grad): %s", cj_error_message(ctx));
        for (int i = 0; i < 3; i++) CHECK_NEAR(at(dx, i), dwant, 0, 0);
        CHECK_ALL_MODES(f, &x, 1, out);
        CHECK_NEAR(at(out[0][0], 0), want, 0, 0);
    }
    CHECK(cj_error(ctx) == CJ_OK);
    cj_ctx_free(ctx);
}

/* ---- errors: a clear message, error values out, nothing crashes ---- */
static void to_f32(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_astype(in[0], CJ_F32);
}
static void first_two(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    int64_t lo = 0, hi = 2;
    out[0] = cj_slice(in[0], &lo, &hi, NULL);
}
static void identity(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = in[0];
}
static void add2(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_add(in[0], in[1]);
}
static void positive(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    out[0] = cj_gt(in[0], cj_scalar(ctx, 0));
}
static void sum_all(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_sum(in[0], -1, NULL, 0);
}

/* The call failed with `code`, the message says `what`, the outputs are
 * error values, a later operation on them fails without a crash, and
 * clearing the error makes the context usable again. */
#define CHECK_FAILS(call, code, what, n_out, out)                                                       \
    do {                                                                                               \
        for (int j_ = 0; j_ < (n_out); j_++) (out)[j_] = cj_scalar(ctx, 123);                          \
        cj_status st_ = (call);                                                                        \
        CHECK_MSG(st_ == (code), "%s: got %s (%s)", #call, cj_status_name(st_), cj_error_message(ctx)); \
        CHECK_EQ_INT(cj_error(ctx), (code));                                                           \
        CHECK_STR_CONTAINS(cj_error_message(ctx), what);                                               \
        for (int j_ = 0; j_ < (n_out); j_++) {                                                         \
            CHECK_MSG(cj_is_error((out)[j_]), "%s: output %d is not an error value", #call, j_);       \
            CHECK(cj_is_error(cj_add((out)[j_], (out)[j_])));                                          \
        }                                                                                              \
        cj_error_clear(ctx);                                                                           \
        CHECK(!cj_is_error(cj_add(cj_scalar(ctx, 1), cj_scalar(ctx, 2))));                            \
    } while (0)

TEST(cf_error_branch_types_differ) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *id = cj_func_new(ctx, "identity", identity, 1, 1, NULL);
    cj_func *f32 = cj_func_new(ctx, "to_f32", to_f32, 1, 1, NULL);
    cj_func *two = cj_func_new(ctx, "first_two", first_two, 1, 1, NULL);
    cj_val x = f64_vec(ctx, 3, (double[]){1, 2, 3}), t = cj_scalar_typed(ctx, 1, CJ_BOOL), out[2];
    CHECK_FAILS(cj_cond(t, f32, id, 1, &x, out), CJ_ERR_SHAPE,
                "cond: output 0 of branch 1 (to_f32) has type f32[3], branch 0 (identity) gives f64[3]", 1, out);
    CHECK_FAILS(cj_cond(t, id, two, 1, &x, out), CJ_ERR_SHAPE, "branch 0 (first_two) gives f64[2]", 1, out);
    cj_func *three[3] = {id, id, two};
    CHECK_FAILS(cj_switch(cj_scalar_typed(ctx, 0, CJ_I32), 3, three, 1, &x, out), CJ_ERR_SHAPE,
                "switch: output 0 of branch 2 (first_two) has type f64[2]", 1, out);
    /* the same under jit: the trace fails, the call returns the error */
    static branches b;
    b.f[0] = f32, b.f[1] = id, b.n = 2;
    cj_func *jf = cj_jit(cj_func_new(ctx, "cond_fn", cond_fn, 2, 1, &b), NULL);
    CHECK_FAILS(cj_call(jf, (cj_val[]){t, x}, out), CJ_ERR_SHAPE, "has type f32[3], branch 0 (identity) gives f64[3]",
                0, out);
    cj_ctx_free(ctx);
}

TEST(cf_error_predicates_and_indices) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *id = cj_func_new(ctx, "identity", identity, 1, 1, NULL);
    cj_func *three[3] = {id, id, id};
    cj_val x = f64_vec(ctx, 2, (double[]){1, 2}), out[1];
    CHECK_FAILS(cj_cond(cj_scalar_typed(ctx, 1, CJ_F32), id, id, 1, &x, out), CJ_ERR_DTYPE,
                "cond: the predicate must be a bool or integer scalar, got f32[]", 1, out);
    CHECK_FAILS(cj_cond(cj_array(ctx, CJ_BOOL, 1, (int64_t[]){2}, (uint8_t[]){1, 0}), id, id, 1, &x, out),
                CJ_ERR_DTYPE, "got bool[2]", 1, out);
    CHECK_FAILS(cj_switch(cj_scalar_typed(ctx, 1, CJ_BOOL), 3, three, 1, &x, out), CJ_ERR_DTYPE,
                "switch: the index must be a integer scalar, got bool[]", 1, out);
    CHECK_FAILS(cj_switch(cj_scalar_typed(ctx, 0.5, CJ_F64), 3, three, 1, &x, out), CJ_ERR_DTYPE, "got f64[]", 1,
                out);
    cj_ctx_free(ctx);
}

TEST(cf_error_body_changes_a_carry_type) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *f32 = cj_func_new(ctx, "to_f32", to_f32, 1, 1, NULL);
    cj_func *two = cj_func_new(ctx, "first_two", first_two, 1, 1, NULL);
    cj_func *pos = cj_func_new(ctx, "positive", positive, 1, 1, NULL);
    cj_func *sum = cj_func_new(ctx, "sum_all", sum_all, 1, 1, NULL);
    cj_val s = cj_scalar_typed(ctx, 1, CJ_F64), v = f64_vec(ctx, 3, (double[]){1, 2, 3}), out[1];
    CHECK_FAILS(cj_while_loop(pos, f32, 1, &s, out), CJ_ERR_SHAPE,
                "while_loop: 'to_f32' must return its carries unchanged in type: carry 0 enters as f64[] and "
                "leaves as f32[]",
                1, out);
    CHECK_FAILS(cj_while_loop(cj_func_new(ctx, "any", sum_all, 1, 1, NULL), two, 1, &v, out), CJ_ERR_DTYPE,
                "while_loop: 'any' must return a bool scalar, got f64[]", 1, out);
    CHECK_FAILS(cj_while_loop(pos, two, 1, &v, out), CJ_ERR_DTYPE, "'positive' must return a bool scalar, got bool[3]",
                1, out);
    cj_scan_opts len3 = {3, 1, 0};
    CHECK_FAILS(cj_scan(two, 1, &v, 0, NULL, &len3, out, NULL), CJ_ERR_SHAPE,
                "scan: 'first_two' must return its carries unchanged in type: carry 0 enters as f64[3] and leaves "
                "as f64[2]",
                1, out);
    CHECK_FAILS(cj_scan(sum, 1, &v, 0, NULL, &len3, out, NULL), CJ_ERR_SHAPE, "leaves as f64[]", 1, out);
    /* a weakly typed initial carry may become strong: not an error */
    cj_val w = cj_scalar(ctx, 2.0), o;
    CHECK(cj_scan(cj_func_new(ctx, "doubling", doubling, 1, 1, NULL), 1, &w, 0, NULL, &len3, &o, NULL) == CJ_OK);
    CHECK_NEAR(at(o, 0), 16, 0, 0);
    cj_ctx_free(ctx);
}

static void fori_to_f32(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_astype(cj_add(in[1], in[0]), CJ_F32);
}

TEST(cf_error_scan_lengths_and_arities) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *id = cj_func_new(ctx, "identity", identity, 1, 1, NULL);
    cj_func *plus = cj_func_new(ctx, "add2", add2, 2, 1, NULL);
    cj_func *sum3 = cj_func_new(ctx, "sums_body", sums_body, 5, 6, NULL);
    cj_val c = cj_scalar_typed(ctx, 0, CJ_F64), out[6];
    cj_val xa = cj_zeros(ctx, CJ_F64, 2, (int64_t[]){5, 3}), xb = cj_zeros(ctx, CJ_F32, 1, (int64_t[]){4});
    cj_val init[3] = {f64_vec(ctx, 3, (double[]){0, 0, 0}), cj_scalar_typed(ctx, 0, CJ_F32),
                      cj_scalar_typed(ctx, 0, CJ_I32)};
    CHECK_FAILS(cj_scan(sum3, 3, init, 2, (cj_val[]){xa, xb}, NULL, out, out + 3), CJ_ERR_SHAPE,
                "scan: xs 1 has type f32[4]; every xs needs a leading axis of the length 5", 6, out);
    cj_scan_opts len4 = {4, 1, 0};
    CHECK_FAILS(cj_scan(sum3, 3, init, 2, (cj_val[]){xa, xb}, &len4, out, out + 3), CJ_ERR_SHAPE,
                "xs 0 has type f64[5,3]", 6, out);
    CHECK_FAILS(cj_scan(plus, 1, &c, 1, (cj_val[]){c}, NULL, out, NULL), CJ_ERR_SHAPE, "xs 0 has type f64[]", 1, out);
    CHECK_FAILS(cj_scan(id, 1, &c, 0, NULL, NULL, out, NULL), CJ_ERR_ARG,
                "scan: with no xs the length must be given", 1, out);
    cj_scan_opts neg = {-1, 1, 0};
    CHECK_FAILS(cj_scan(id, 1, &c, 0, NULL, &neg, out, NULL), CJ_ERR_ARG, "the length must be given", 1, out);
    /* arities */
    CHECK_FAILS(cj_scan(id, 1, &c, 1, &xb, NULL, out, NULL), CJ_ERR_ARG,
                "scan: the body takes the 1 carries and 1 x slices", 1, out);
    CHECK_FAILS(cj_scan(sum3, 3, init, 2, (cj_val[]){xa, xa}, NULL, out, NULL), CJ_ERR_ARG,
                "returns the carries then its y slices", 3, out);
    CHECK_FAILS(cj_scan(plus, 2, (cj_val[]){c, c}, 0, NULL, &len4, out, NULL), CJ_ERR_ARG, "scan: the body takes", 2,
                out);
    CHECK_FAILS(cj_cond(cj_scalar_typed(ctx, 1, CJ_BOOL), id, plus, 1, &c, out), CJ_ERR_ARG,
                "cond: branch 0 must take the 1 operands and return 1 outputs as branch 0", 1, out);
    CHECK_FAILS(cj_cond(cj_scalar_typed(ctx, 1, CJ_BOOL), id, NULL, 1, &c, out), CJ_ERR_ARG, "cj_cond: false_f is NULL", 1,
                out);
    CHECK_FAILS(cj_switch(cj_scalar_typed(ctx, 1, CJ_I32), 0, NULL, 1, &c, out), CJ_ERR_ARG,
                "switch: 1..16 branches", 0, out); /* no branch says how many outputs */
    CHECK_FAILS(cj_while_loop(id, plus, 1, &c, out), CJ_ERR_ARG,
                "while_loop: cond_f takes the 1 carries and returns 1 value, body_f takes and returns the 1 carries",
                1, out);
    CHECK_FAILS(cj_while_loop(plus, id, 1, &c, out), CJ_ERR_ARG, "while_loop: cond_f takes", 1, out);
    CHECK_FAILS(cj_fori_loop(0, 3, id, 1, &c, out), CJ_ERR_ARG,
                "fori_loop: the body takes the index and the 1 carries and returns the carries", 1, out);
    CHECK_FAILS(cj_fori_loop(0, (int64_t)1 << 40, plus, 1, &c, out), CJ_ERR_ARG, "bounds must fit int32", 1, out);
    CHECK_FAILS(cj_fori_loop((int64_t)1 << 40, 0, plus, 1, &c, out), CJ_ERR_ARG, "bounds must fit int32", 1, out);
    CHECK_FAILS(cj_fori_loop(0, 3, cj_func_new(ctx, "fori_to_f32", fori_to_f32, 2, 1, NULL), 1, &c, out),
                CJ_ERR_SHAPE, "fori_loop: 'fori_to_f32' must return its carries unchanged in type: carry 0 enters as f64[]", 1, out);
    /* NULL functions: the carries' context records it */
    cj_error_clear(NULL);
    CHECK_FAILS(cj_while_loop(NULL, id, 1, &c, out), CJ_ERR_ARG, "cj_while_loop: cond_f is NULL", 1, out);
    CHECK_FAILS(cj_scan(NULL, 1, &c, 0, NULL, &len4, out, NULL), CJ_ERR_ARG, "cj_scan: body is NULL", 1, out);
    CHECK_FAILS(cj_fori_loop(0, 1, NULL, 1, &c, out), CJ_ERR_ARG, "cj_fori_loop: body is NULL", 1, out);
    /* with no values either, nothing says which context: the thread's record */
    CHECK(cj_fori_loop(0, 1, NULL, 0, NULL, out) == CJ_ERR_ARG);
    CHECK(cj_error(ctx) == CJ_OK);
    CHECK_STR_CONTAINS(cj_error_message(NULL), "cj_fori_loop: body is NULL");
    cj_error_clear(NULL);
    /* a sticky error stops the next construct before any work */
    cj_val bad = cj_add(f64_vec(ctx, 2, (double[]){1, 2}), f64_vec(ctx, 3, (double[]){1, 2, 3}));
    CHECK(cj_is_error(bad));
    CHECK_FAILS(cj_fori_loop(0, 3, plus, 1, &c, out), CJ_ERR_SHAPE, "add", 1, out);
    cj_ctx_free(ctx);
}

/* ---- the program does not grow with the trip count ---- */
static int count_equations(const char *text) {
    int n = 0;
    for (const char *p = text; p && (p = strstr(p, " = ")); p += 3) n++;
    return n;
}

/* Each run of digits becomes one '#' (record ids, the trip count). */
static void mask_digits(char *s) {
    char *w = s;
    for (const char *r = s; *r; r++) {
        int digit = *r >= '0' && *r <= '9';
        if (!digit) *w++ = *r;
        else if (w == s || w[-1] != '#') *w++ = '#';
    }
    *w = 0;
}

/* (i, x) → x / 2 + i */
static void halve_plus_i(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    out[0] = cj_add(cj_mul(in[1], cj_scalar(ctx, 0.5)), cj_astype(in[0], CJ_F64));
}

static void fori1_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    fori *fo = u;
    (void)ctx;
    cj_fori_loop(fo->lower, fo->upper, fo->body, 1, in, out);
}

TEST(cf_fori_ir_does_not_depend_on_trip_count) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    static fori fo;
    fo.body = cj_func_new(ctx, "halve_plus_i", halve_plus_i, 2, 1, &fo);
    cj_func *f = cj_func_new(ctx, "fori1_fn", fori1_fn, 1, 1, &fo);
    cj_spec spec = cj_spec_make(CJ_F64, 0, NULL);
    int64_t trips[2] = {10, 10000};
    int n_eq[2], n_kernels[2], n_prog_eq[2];
    size_t code_bytes[2];
    char *text[2];
    for (int k = 0; k < 2; k++) {
        fo.lower = 0, fo.upper = trips[k];
        text[k] = cj_make_jaxpr(f, 1, &spec);
        CHECK_MSG(text[k] != NULL, "%s", cj_error_message(ctx));
        n_eq[k] = count_equations(text[k]);
        cj_jit_opts cc = {0, NULL, 0, NULL, CJ_BACKEND_CC};
        cj_func *jf = cj_jit(f, &cc);
        cj_val x = cj_scalar_typed(ctx, 1, CJ_F64), y;
        cj_program_info info;
        CHECK(cj_jit_program_info(jf, &x, &info) == CJ_OK);
        n_kernels[k] = info.n_kernels;
        n_prog_eq[k] = info.n_equations;
        code_bytes[k] = info.code_bytes;
        CHECK(cj_call(jf, &x, &y) == CJ_OK);
        double c = 1;
        for (int64_t i = 0; i < trips[k]; i++) c = c * 0.5 + (double)i;
        CHECK_NEAR(at(y, 0), c, 0, 0);
    }
    CHECK(n_eq[0] > 0);
    CHECK_MSG(n_eq[0] == n_eq[1], "%d vs %d equations:\n%s\n%s", n_eq[0], n_eq[1], text[0], text[1]);
    /* one equation per output (the counter and the carry), and the body's
     * few once, however many times it runs */
    CHECK_MSG(n_eq[0] < 12, "%d equations:\n%s", n_eq[0], text[0]);
    CHECK(!strstr(text[1], "length=") || strstr(text[1], "length=10000")); /* when the printer shows it */
    mask_digits(text[0]), mask_digits(text[1]);
    CHECK_MSG(!strcmp(text[0], text[1]), "%s\nvs\n%s", text[0], text[1]); /* the same but for numbers */
    CHECK(code_bytes[0] == code_bytes[1]);
    CHECK_EQ_INT(n_kernels[0], n_kernels[1]);
    CHECK_EQ_INT(n_prog_eq[0], n_prog_eq[1]);
    cj_string_free(ctx, text[0]);
    cj_string_free(ctx, text[1]);
    cj_ctx_free(ctx);
}

/* ---- no allocator traffic per step ---- */
/* carries (h f32[16]), xs f32[T,16]: h' = tanh(h * 0.5 + x), y = h' */
static void step16(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    out[0] = cj_tanh(cj_add(cj_mul(in[0], cj_scalar(ctx, 0.5)), in[1]));
    out[1] = out[0];
}
static void scan16(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx;
    cj_scan((cj_func *)u, 1, in, 1, in + 1, NULL, out, out + 1);
}


/* The fair claim: the step count does not change how often the allocator
 * is called (buffers coming back from the pool are fine; they are not
 * allocator calls). Compared between two compiled shapes of one function,
 * each measured in steady state. */
TEST(cf_scan_jit_makes_no_allocator_calls_per_step) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *body = cj_func_new(ctx, "step16", step16, 2, 2, NULL);
    uint64_t n[2][2]; /* [backend][100 or 1000 steps] */
    for (int b = 0; b < 2; b++) {
        cj_jit_opts o = {0, NULL, 0, NULL, b == 0 ? CJ_BACKEND_INTERP : CJ_BACKEND_CC};
        cj_func *jf = cj_jit(cj_func_new(ctx, "scan16", scan16, 2, 2, body), &o);
        int64_t steps[2] = {100, 1000};
        for (int k = 0; k < 2; k++) {
            int64_t d[2] = {steps[k], 16};
            cj_val in[2] = {cj_zeros(ctx, CJ_F32, 1, d + 1), cj_ones(ctx, CJ_F32, 2, d)};
            n[b][k] = tu_allocs_per_call(ctx, jf, in);
        }
    }
    cj_status st = cj_error(ctx);
    cj_ctx_free(ctx);
    CHECK(st == CJ_OK);
    /* a call may allocate (its outputs, once the pool is drained), but
     * 900 more steps must not cost one allocation more */
    for (int b = 0; b < 2; b++)
        CHECK_MSG(n[b][1] == n[b][0], "%s: %llu allocator calls for 100 steps, %llu for 1000", mode_name[MODE_INTERP + b],
                  (unsigned long long)n[b][0], (unsigned long long)n[b][1]);
}

/* ---- allocation failures ---- */
/* A scan whose body holds a cond and a while loop, jitted on the
 * interpreter, and each construct once eagerly. */
typedef struct mixed {
    cj_func *body, *over, *keep, *cond, *grow;
    clip c;
} mixed;

static void mixed_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    mixed *m = u;
    cj_val s = cj_add(in[0], in[1]), w;
    cj_cond(cj_gt(s, m->c.lim), m->over, m->keep, 1, &s, out);
    cj_while_loop(m->cond, m->grow, 1, &s, &w); /* doubles s until it is not below 2 */
    out[1] = cj_sub(w, out[0]);
    (void)ctx;
}
static void mixed_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    mixed *m = u;
    (void)ctx;
    m->c.lim = in[0];
    cj_scan(m->body, 1, &in[1], 1, &in[2], NULL, &out[0], &out[1]);
}
static void below_two(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    out[0] = cj_and(cj_lt(in[0], cj_scalar(ctx, 2)), cj_gt(in[0], cj_scalar(ctx, 0)));
}

/* Returns the status; *result gets the jitted scan's final carry plus
 * the sum of its ys, and the eager scan's likewise (each 1.25 + 6.75). */
static int cf_scenario(cj_ctx *ctx, double *result) {
    static mixed m;
    m.body = cj_func_new(ctx, "mixed_body", mixed_body, 2, 2, &m);
    m.over = cj_func_new(ctx, "clip_over", clip_over, 1, 1, &m.c);
    m.keep = cj_func_new(ctx, "clip_keep", clip_keep, 1, 1, &m.c);
    m.cond = cj_func_new(ctx, "below_two", below_two, 1, 1, NULL);
    m.grow = cj_func_new(ctx, "doubling", doubling, 1, 1, NULL);
    cj_val in[3] = {cj_scalar_typed(ctx, 2, CJ_F64), cj_scalar_typed(ctx, 0.5, CJ_F64),
                    f64_vec(ctx, 4, (double[]){0.75, 2.5, -1, 0.5})};
    cj_jit_opts interp = {0, NULL, 0, NULL, CJ_BACKEND_INTERP};
    /* cj_call(NULL, ...) (cj_jit out of memory) leaves its outputs alone */
    cj_val out[2] = {cj_scalar(ctx, 0), cj_scalar(ctx, 0)};
    cj_call(cj_jit(cj_func_new(ctx, "mixed", mixed_fn, 3, 2, &m), &interp), in, out);
    result[0] = cj_item_or_nan(cj_add(out[0], cj_sum(out[1], -1, NULL, 0)));
    /* eagerly: each construct on its own */
    cj_val s = in[1], w;
    m.c.lim = in[0]; /* the branches and the body read it */
    cj_while_loop(m.cond, m.grow, 1, &s, &w);
    cj_cond(cj_scalar_typed(ctx, 1, CJ_BOOL), m.over, m.keep, 1, &s, &w);
    cj_scan(m.body, 1, &in[1], 1, &in[2], NULL, &out[0], &out[1]);
    result[1] = cj_item_or_nan(cj_add(out[0], cj_sum(out[1], -1, NULL, 0)));
    return cj_error(ctx);
}

TEST(cf_allocation_failure_at_every_site_is_clean) {
    int covered = 0;
    long long n;
    for (n = 1; n < 50000 && !covered; n++) {
        tu_alloc st = {0};
        st.fail_at = n;
        cj_allocator a = tu_allocator(&st);
        cj_ctx *ctx = cj_ctx_new(&a);
        if (ctx) {
            double result[2];
            int rc = cf_scenario(ctx, result);
            CHECK_MSG(rc == CJ_OK || rc == CJ_ERR_OOM, "allocation %lld: expected CJ_ERR_OOM, got %s: %s", n,
                      cj_status_name((cj_status)rc), cj_error_message(ctx));
            if (!st.failed) {
                CHECK(rc == CJ_OK);
                CHECK_NEAR(result[0], 8, 0, 0);
                CHECK_NEAR(result[1], 8, 0, 0);
                covered = 1;
            }
            cj_ctx_free(ctx);
        }
        CHECK_MSG(st.live == 0, "allocation %lld failing leaked %lld blocks", n, st.live);
    }
    CHECK(covered);
    CHECK(n > 100); /* the scenario did allocate */
}

/* ---- found by the fuzzer: constructs of 65..128 operands ---- */
#define WIDE_CARRIES 10
#define WIDE_CLOSED 60
#define WIDE_STEPS 3

typedef struct wide {
    cj_func *step;
    cj_val v[WIDE_CLOSED]; /* 60 values of the enclosing function */
    int n_closed;          /* how many of them the step reads */
} wide;

/* c_j = c_j / 2 + Σ_{i ≡ j (mod 10)} v_i: 10 carries + 60 closed-over values = 70 operands */
static void wide_step(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    wide *w = u;
    (void)ctx;
    for (int j = 0; j < WIDE_CARRIES; j++) {
        cj_val c = cj_mul(in[j], cj_scalar(ctx, 0.5));
        for (int i = j; i < w->n_closed; i += WIDE_CARRIES) c = cj_add(c, w->v[i]);
        out[j] = c;
    }
}

/* x f32[60] → Σ_j c_j after WIDE_STEPS steps from zero */
static void wide_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    wide *w = u;
    for (int i = 0; i < WIDE_CLOSED; i++) {
        int64_t lo = i, hi = i + 1, ax = 0;
        w->v[i] = cj_squeeze(cj_slice(in[0], &lo, &hi, NULL), 1, &ax);
    }
    cj_val init[WIDE_CARRIES], fin[WIDE_CARRIES];
    for (int j = 0; j < WIDE_CARRIES; j++) init[j] = cj_zeros(ctx, CJ_F32, 0, NULL);
    cj_scan_opts o = {WIDE_STEPS, 1, 0};
    cj_scan(w->step, WIDE_CARRIES, init, 0, NULL, &o, fin, NULL);
    cj_val s = fin[0];
    for (int j = 1; j < WIDE_CARRIES; j++) s = cj_add(s, fin[j]);
    out[0] = s;
}

/* Binding a construct under a trace took at most 64 operands while control
 * flow takes 128: this ran eagerly and failed under jit and grad (found
 * linearizing nested constructs). Each step halves the carries and adds
 * the closed-over values, so Σ c = Σ x · (1 + 1/2 + 1/4) and every
 * gradient entry is 1.75. */
TEST(cf_regression_seventy_operands_under_jit_and_grad) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    wide w;
    w.n_closed = WIDE_CLOSED;
    w.step = cj_func_new(ctx, "wide_step", wide_step, WIDE_CARRIES, WIDE_CARRIES, &w);
    cj_func *f = cj_func_new(ctx, "wide", wide_fn, 1, 1, &w);
    float xs[WIDE_CLOSED];
    double total = 0;
    for (int i = 0; i < WIDE_CLOSED; i++) xs[i] = (float)(i % 7) - 2.5f, total += xs[i];
    cj_val x = cj_array(ctx, CJ_F32, 1, (int64_t[]){WIDE_CLOSED}, xs);
    for (int mode = 0; mode < N_MODES; mode++) {
        cj_val y;
        CHECK_MSG(call_mode(f, mode, &x, &y) == CJ_OK, "%s: %s", mode_name[mode], cj_error_message(ctx));
        CHECK_NEAR(at(y, 0), total * 1.75, 1e-5, 1e-5);
        cj_error_clear(ctx);
    }
    /* Reverse mode linearizes the step, a program of 70 inputs (once
     * refused: linearization took at most 64): every gradient entry is
     * 1.75; with 50 closed-over values, 1.75 for those and 0 beyond. */
    cj_val g;
    CHECK_MSG(cj_call(cj_jit(cj_grad(f, NULL), NULL), &x, &g) == CJ_OK, "%s", cj_error_message(ctx));
    for (int i = 0; i < WIDE_CLOSED; i++) CHECK_NEAR(at(g, i), 1.75, 1e-6, 1e-6);
    w.n_closed = 50;
    CHECK_MSG(cj_call(cj_jit(cj_grad(f, NULL), NULL), &x, &g) == CJ_OK, "%s", cj_error_message(ctx));
    for (int i = 0; i < WIDE_CLOSED; i++) CHECK_NEAR(at(g, i), i < 50 ? 1.75 : 0.0, 1e-6, 1e-6);
    cj_ctx_free(ctx);
}

/* ---- a weakly typed initial carry takes the body's type ----
 * JAX's _promote_weak_typed_input: a carry that enters weakly typed (a C
 * constant) and leaves as another dtype of its shape is converted to the
 * join of the two, strongly typed, and the body traced again; figures from
 * JAX 0.10.2 (lax.fori_loop(0, 3, lambda i, c: c + f32(1.5), 0) is
 * float32 4.5, weak_type False, ...). */
typedef struct weak_loop {
    cj_func *fori, *cond, *body, *scan;
    cj_val y; /* what the bodies add, squared: read from their closure */
    int rule;
} weak_loop;

static cj_val weak_step(cj_ctx *ctx, const weak_loop *w, cj_val c) {
    switch (w->rule) {
    case 1: return cj_add(c, cj_scalar(ctx, 1.5));                   /* weak i32 + f*: f32 */
    case 2: return cj_add(c, cj_scalar_typed(ctx, 1.5, CJ_F64));     /* f* + f64: f64 */
    case 3: return cj_add(c, cj_scalar_typed(ctx, 2, CJ_I64));       /* i* + i64: i64 */
    case 4: return cj_add(c, cj_scalar_typed(ctx, 2, CJ_I32));       /* f* + i32: stays f* */
    case 5: return cj_add(c, cj_ones(ctx, CJ_F32, 1, (int64_t[]){3})); /* a new shape: an error */
    default: return cj_add(c, cj_mul(w->y, w->y));
    }
}
static void weak_fori_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    out[0] = weak_step(ctx, u, in[1]);
}
static void weak_while_cond(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    out[0] = cj_lt(in[0], cj_scalar(ctx, 3));
}
static void weak_while_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    out[0] = weak_step(ctx, u, in[0]);
}
static void weak_scan_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    out[0] = weak_step(ctx, u, in[0]);
    out[1] = cj_mul(in[0], cj_scalar(ctx, 2)); /* y: the carry as it entered, doubled */
}
/* kind 0: fori_loop(0, 3), 1: while c < 3, 2: scan of length 3 (carry,
 * ys); the initial carry is cj_scalar_int(ctx, 0) */
static void weak_loop_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u, int kind) {
    weak_loop *w = u;
    w->y = in[0];
    cj_val init = cj_scalar_int(ctx, 0);
    cj_scan_opts len3 = {3, 1, 0};
    if (kind == 0) cj_fori_loop(0, 3, w->fori, 1, &init, out);
    else if (kind == 1) cj_while_loop(w->cond, w->body, 1, &init, out);
    else cj_scan(w->scan, 1, &init, 0, NULL, &len3, &out[0], &out[1]);
}
static void weak_fori_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) { weak_loop_fn(ctx, in, out, u, 0); }
static void weak_while_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) { weak_loop_fn(ctx, in, out, u, 1); }
static void weak_scan_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) { weak_loop_fn(ctx, in, out, u, 2); }

static void weak_two_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    int chain = *(int *)u;
    out[0] = cj_add(in[1], cj_scalar_typed(ctx, 1.5, CJ_F32));
    /* chain: the second carry follows the first, which the first pass
     * promotes, so it changes in the second pass: an error in JAX too */
    out[1] = chain ? cj_add(in[1], cj_scalar_int(ctx, 1)) : cj_mul(in[2], cj_scalar_int(ctx, 2));
}

TEST(cf_weak_initial_carry_promotes_to_body_type) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    static weak_loop w;
    w.rule = 0;
    w.fori = cj_func_new(ctx, "add_fori", weak_fori_body, 2, 1, &w);
    w.cond = cj_func_new(ctx, "below_3", weak_while_cond, 1, 1, &w);
    w.body = cj_func_new(ctx, "add", weak_while_body, 1, 1, &w);
    w.scan = cj_func_new(ctx, "add_scan", weak_scan_body, 1, 2, &w);
    cj_func *fs[3] = {cj_func_new(ctx, "fori", weak_fori_fn, 1, 1, &w),
                      cj_func_new(ctx, "while", weak_while_fn, 1, 1, &w),
                      cj_func_new(ctx, "scan", weak_scan_fn, 1, 2, &w)};
    /* y = 1.5: the carry 0 → 2.25 → 4.5 (→ 6.75): JAX gives float32, strong */
    const double want[3] = {6.75, 4.5, 6.75}, want_ys[3] = {0, 4.5, 9};
    cj_val y = cj_scalar_typed(ctx, 1.5, CJ_F32), out[N_MODES][MAX_OUT];
    for (int k = 0; k < 3; k++) {
        CHECK_ALL_MODES(fs[k], &y, k == 2 ? 2 : 1, out);
        CHECK_EQ_INT(cj_val_dtype(out[0][0]), CJ_F32);
        CHECK_EQ_INT(cj_val_weak(out[0][0]), 0);
        CHECK_NEAR(at(out[0][0], 0), want[k], 0, 0);
        for (int i = 0; i < 3 && k == 2; i++) CHECK_NEAR(at(out[0][1], i), want_ys[i], 0, 0);
    }
    /* vmap over y = [1, 2]: fori and scan 3 y², while (a batched
     * predicate) [3, 4]; grad of fori and scan: d(3 y²)/dy = 6y = 18 at 3 */
    cj_val ys = tu_f32(ctx, 1, (int64_t[]){2}, (float[]){1, 2}), three = cj_scalar_typed(ctx, 3, CJ_F32);
    const double want_v[3][2] = {{3, 12}, {3, 4}, {3, 12}};
    for (int k = 0; k < 3; k++) {
        cj_val v[2], vj[2], g[2], gj[2];
        CHECK_MSG(cj_call(cj_vmap(fs[k], NULL), &ys, v) == CJ_OK, "%s", cj_error_message(ctx));
        CHECK_MSG(cj_call(cj_jit(cj_vmap(fs[k], NULL), NULL), &ys, vj) == CJ_OK, "%s", cj_error_message(ctx));
        CHECK_EQ_INT(cj_val_dtype(v[0]), CJ_F32);
        for (int i = 0; i < 2; i++) {
            CHECK_NEAR(at(v[0], i), want_v[k][i], 0, 0);
            CHECK_NEAR(at(vj[0], i), want_v[k][i], 0, 0);
        }
        if (k == 1) continue; /* reverse mode of a while loop is an error, as in JAX */
        cj_grad_opts go = {0, NULL, k == 2};
        CHECK_MSG(cj_call(cj_grad(fs[k], &go), &three, g) == CJ_OK, "%s", cj_error_message(ctx));
        CHECK(cj_call(cj_jit(cj_grad(fs[k], &go), NULL), &three, gj) == CJ_OK);
        CHECK_NEAR(at(g[0], 0), 18, 0, 0);
        CHECK_NEAR(at(gj[0], 0), 18, 0, 0);
    }
    /* the join of the two types, as JAX's result_type */
    struct {
        int rule;
        int init_float;
        cj_dtype dt;
        int weak;
        double value;
    } rules[] = {
        {1, 0, CJ_F32, 0, 4.5}, /* 0 + 1.5 (both weak): f32, strong */
        {2, 1, CJ_F64, 0, 4.5}, /* 0.0 + f64: f64 */
        {3, 0, CJ_I64, 0, 6},   /* 0 + i64: i64 */
        {4, 1, CJ_F32, 1, 6},   /* 0.0 + i32 is f*: nothing changes, still weak */
    };
    for (size_t r = 0; r < sizeof rules / sizeof rules[0]; r++) {
        w.rule = rules[r].rule;
        cj_val init = rules[r].init_float ? cj_scalar(ctx, 0.0) : cj_scalar_int(ctx, 0), o;
        CHECK_MSG(cj_fori_loop(0, 3, w.fori, 1, &init, &o) == CJ_OK, "rule %d: %s", w.rule, cj_error_message(ctx));
        CHECK_EQ_INT(cj_val_dtype(o), rules[r].dt);
        CHECK_EQ_INT(cj_val_weak(o), rules[r].weak);
        CHECK_NEAR(at(o, 0), rules[r].value, 0, 0);
    }
    /* what JAX refuses: a new shape, a strongly typed carry, a second change */
    cj_val o[2];
    w.rule = 5;
    cj_val zero = cj_scalar_int(ctx, 0);
    CHECK_FAILS(cj_fori_loop(0, 3, w.fori, 1, &zero, o), CJ_ERR_SHAPE, "carry 0 enters as i32[] and leaves as f32[3]",
                1, o);
    w.rule = 0;
    w.y = cj_scalar_typed(ctx, 1, CJ_F32);
    cj_val strong = cj_scalar_typed(ctx, 0, CJ_I32);
    CHECK_FAILS(cj_fori_loop(0, 3, w.fori, 1, &strong, o), CJ_ERR_SHAPE, "carry 0 enters as i32[] and leaves as f32[]",
                1, o);
    static int chain;
    cj_func *two = cj_func_new(ctx, "two", weak_two_body, 3, 2, &chain);
    cj_val init2[2] = {cj_scalar_int(ctx, 0), cj_scalar_int(ctx, 1)};
    chain = 0;
    CHECK(cj_fori_loop(0, 3, two, 2, init2, o) == CJ_OK);
    CHECK_EQ_INT(cj_val_dtype(o[0]), CJ_F32);
    CHECK_EQ_INT(cj_val_weak(o[0]), 0);
    CHECK_NEAR(at(o[0], 0), 4.5, 0, 0);
    CHECK_EQ_INT(cj_val_dtype(o[1]), CJ_I32);
    CHECK_EQ_INT(cj_val_weak(o[1]), 1);
    CHECK_NEAR(at(o[1], 0), 8, 0, 0);
    chain = 1;
    CHECK_FAILS(cj_fori_loop(0, 3, two, 2, init2, o), CJ_ERR_SHAPE, "carry 1 enters as i32[] and leaves as f32[]", 2,
                o);
    cj_ctx_free(ctx);
}

/* ---- bodies of another context ----
 * A construct whose function objects belong to another context returned
 * CJ_OK with its outputs unset and the error recorded in the other context
 * (and read freed memory once that context was freed): now CJ_ERR_ARG in
 * the caller's context, error values in every output, the other context
 * untouched. */
TEST(cf_bodies_of_another_context_are_refused) {
    cj_ctx *ctx = cj_ctx_new(NULL), *other = cj_ctx_new(NULL);
    cj_func *id2 = cj_func_new(other, "identity", identity, 1, 1, NULL);
    cj_func *pos2 = cj_func_new(other, "positive", positive, 1, 1, NULL);
    cj_func *plus2 = cj_func_new(other, "add2", add2, 2, 1, NULL);
    cj_func *id = cj_func_new(ctx, "identity", identity, 1, 1, NULL);
    cj_func *pos = cj_func_new(ctx, "positive", positive, 1, 1, NULL);
    cj_val c = cj_scalar_typed(ctx, 1, CJ_F64), t = cj_scalar_typed(ctx, 1, CJ_BOOL), out[2];
    cj_scan_opts len3 = {3, 1, 0};
    for (int round = 0; round < 2; round++) {
        /* round 1: the other context is freed, its functions stale */
        const char *why = round ? "is not a live function object" : "belongs to another context";
        CHECK_FAILS(cj_cond(t, id, id2, 1, &c, out), CJ_ERR_ARG, "cond: branch 0", 1, out);
        CHECK_FAILS(cj_cond(t, id2, id, 1, &c, out), CJ_ERR_ARG, why, 1, out);
        cj_func *three[3] = {id, id, id2};
        CHECK_FAILS(cj_switch(cj_scalar_typed(ctx, 0, CJ_I32), 3, three, 1, &c, out), CJ_ERR_ARG, "switch: branch 2",
                    1, out);
        CHECK_FAILS(cj_while_loop(pos2, id, 1, &c, out), CJ_ERR_ARG, "while_loop: cond_f", 1, out);
        CHECK_FAILS(cj_while_loop(pos, id2, 1, &c, out), CJ_ERR_ARG, "while_loop: body_f", 1, out);
        CHECK_FAILS(cj_fori_loop(0, 3, plus2, 1, &c, out), CJ_ERR_ARG, "fori_loop: the body", 1, out);
        CHECK_FAILS(cj_scan(id2, 1, &c, 0, NULL, &len3, out, NULL), CJ_ERR_ARG, why, 1, out);
        if (!round) {
            CHECK(cj_error(other) == CJ_OK);
            cj_ctx_free(other);
        }
    }
    /* values of another context are refused the same way */
    cj_ctx *third = cj_ctx_new(NULL);
    cj_val c3 = cj_scalar_typed(third, 1, CJ_F64);
    CHECK_FAILS(cj_cond(t, id, id, 1, &c3, out), CJ_ERR_ARG, "cond (value 0): belongs to another context", 1, out);
    /* a loop runs in its carries' context: there the body is the stranger */
    CHECK(cj_fori_loop(0, 3, cj_func_new(ctx, "add2", add2, 2, 1, NULL), 1, &c3, out) == CJ_ERR_ARG);
    CHECK_STR_CONTAINS(cj_error_message(third), "fori_loop: the body ('add2') belongs to another context");
    CHECK(cj_is_error(out[0]) && cj_error(ctx) == CJ_OK);
    cj_ctx_free(third);
    /* and the right ones still work */
    CHECK(cj_cond(t, id, id, 1, &c, out) == CJ_OK);
    CHECK_NEAR(at(out[0], 0), 1, 0, 0);
    cj_ctx_free(ctx);
}
