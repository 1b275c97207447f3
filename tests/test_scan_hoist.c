/* test_scan_hoist.c — the hoist pass (src/compiler/hoist.c) and the scan's
 * hoist rule (src/control/scan_hoist.c): a scan's carry-independent work
 * done for every step before the loop.
 *
 * Each scenario runs jitted on generated C and on the interpreter with the
 * rule on and off (cf_hoist_set_limit_for_testing(0)), on fresh function
 * objects per setting (a construct's record, with its compiled bodies, is
 * kept by the function object that made it), and compares against a
 * plain C loop in double precision: an RNN cell h' = tanh(W h + U x + b)
 * (forwards and backwards), a body with several xs, a reduction and a y
 * that is a hoisted value itself, a scan nested in a scan, vmap of a scan,
 * grad of a scan against finite differences, a scan whose stacked values
 * would be too large (left alone), lengths 0 and 1. The IR after the
 * pass shows what moved: the scan's body has fewer equations and more x
 * slices, and the product sits before the loop in the dump. */
#include <stdlib.h>
#include <unistd.h>

#include "backend/program_impl.h"
#include "compiler/program.h"
#include "control/control.h"
#include "harness.h"
#include "test_util.h"

/* ---- helpers ---- */
static char cache_dir[128];

static void use_private_cache(void) {
    if (!cache_dir[0]) snprintf(cache_dir, sizeof cache_dir, "/tmp/cjax_scan_hoist_test_%d", (int)getpid());
    cc_build_options o = {NULL, NULL, cache_dir, 0};
    native_set_build_options_for_testing(&o);
}

static cj_val f64_array(cj_ctx *ctx, int rank, const int64_t *dims, const double *v) {
    return cj_array(ctx, CJ_F64, rank, dims, v);
}

static double *values(cj_val v) {
    int64_t n = cj_val_size(v);
    double *d = malloc(sizeof(double) * (size_t)(n + 1));
    if (d && cj_read_as(v, CJ_F64, d, sizeof(double) * (size_t)n) != CJ_OK) {
        free(d);
        return NULL;
    }
    return d;
}

/* Largest |a - ref| / (1 + |ref|) over v's elements (inf on a failure). */
static double max_err(cj_val v, const double *ref, int64_t n) {
    double *d = values(v);
    if (!d || cj_val_size(v) != n) {
        free(d);
        return INFINITY;
    }
    double e = 0;
    for (int64_t i = 0; i < n; i++) {
        double r = fabs(d[i] - ref[i]) / (1 + fabs(ref[i]));
        if (!(r <= e)) e = r;
    }
    free(d);
    return e;
}

static void fill(double *v, int64_t n, uint64_t seed, double scale) {
    for (int64_t i = 0; i < n; i++) v[i] = th_rand_uniform(&seed, -scale, scale);
}

/* The scans of a program after the hoist pass: the first scan's body
 * equations and x slices (-1 when there is none), the x slices of every
 * scan, and (inner_n_xs) the first scan's in the first scan's body after
 * the pass compiles that body; the IR's text after the pass (malloc'd,
 * when text is given). */
typedef struct scan_shape {
    int body_eqns, n_xs, n_scans, total_xs, inner_n_xs;
} scan_shape;

static scan_shape shape_of_ir(cj_ctx *ctx, const ir_func *ir, char **text, int depth) {
    scan_shape s = {-1, -1, 0, 0, -1};
    strbuf sb;
    sb_init(&sb, ctx->mem);
    compiled *c = compile_ir_until(ctx, ir, "hoist", &(compile_options){.dump = "hoist", .dump_to = &sb});
    for (int e = 0; c && e < c->ir->n_eqns; e++) {
        if (c->ir->eqns[e].prim != PRIM_SCAN) continue;
        const cf_record *rec = cf_of(&c->ir->eqns[e].params);
        s.n_scans++;
        s.total_xs += rec->n_xs;
        if (s.n_scans > 1) continue;
        s.body_eqns = rec->progs[0]->n_eqns;
        s.n_xs = rec->n_xs;
        if (depth == 0) s.inner_n_xs = shape_of_ir(ctx, rec->progs[0], NULL, 1).n_xs;
    }
    if (text) *text = sb.data ? strdup(sb.data) : NULL;
    sb_free(&sb);
    compiled_free(ctx, c);
    return s;
}

/* The same for f's program for these inputs. */
static scan_shape shape_after_hoist(cj_ctx *ctx, cj_func *f, int n_in, const cj_val *in, char **text) {
    rt_aval avals[16];
    for (int i = 0; i < n_in; i++) {
        cj_spec sp = cj_spec_of(in[i]);
        avals[i] = rt_aval_make(sp.dtype, sp.rank, sp.dims);
        avals[i].weak = sp.weak;
    }
    ir_func *ir = func_trace_to_ir(f, avals, NULL, "test");
    scan_shape s = {-1, -1, 0, 0, -1};
    if (ir) s = shape_of_ir(ctx, ir, text, 0);
    if (ir) ir_free(ir);
    return s;
}

enum { CC, INTERP };

/* f jitted on both backends: 0 or the failing status. */
static int run_jit(cj_func *f, cj_backend b, const cj_val *in, cj_val *out) {
    cj_jit_opts o = {0, NULL, 0, NULL, b};
    return cj_call(cj_jit(f, &o), in, out);
}

/* ---- the RNN cell: h' = tanh(W h + U x + b), y = h' ---- */
typedef struct rnn_case {
    cj_func *cell;
    cj_val W, U, b;
    int reverse;
    int64_t T;
} rnn_case;

static void rnn_cell(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    rnn_case *r = user;
    (void)ctx;
    out[0] = cj_tanh(cj_add(cj_add(cj_matmul(r->W, in[0]), cj_matmul(r->U, in[1])), r->b));
    out[1] = out[0];
}

/* (W, U, b, h0, xs) → (h_T, hs) */
static void rnn_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    rnn_case *r = user;
    (void)ctx;
    r->W = in[0], r->U = in[1], r->b = in[2];
    cj_scan_opts o = {r->T, 1, r->reverse};
    cj_scan(r->cell, 1, &in[3], 1, &in[4], &o, &out[0], &out[1]);
}

enum { HID = 12, INP = 5 };

/* The plain loop: hT[HID], hs[T*HID]. */
static void rnn_ref(const double *W, const double *U, const double *b, const double *h0, const double *xs, int64_t T,
                    int reverse, double *hT, double *hs) {
    double h[HID], hn[HID];
    memcpy(h, h0, sizeof h);
    for (int64_t s = 0; s < T; s++) {
        int64_t t = reverse ? T - 1 - s : s;
        for (int i = 0; i < HID; i++) {
            double a = 0, u = 0;
            for (int j = 0; j < HID; j++) a += W[i * HID + j] * h[j];
            for (int j = 0; j < INP; j++) u += U[i * INP + j] * xs[t * INP + j];
            hn[i] = tanh(a + u + b[i]);
        }
        memcpy(h, hn, sizeof h);
        memcpy(hs + t * HID, h, sizeof h);
    }
    memcpy(hT, h, sizeof h);
}

typedef struct rnn_data {
    double W[HID * HID], U[HID * INP], b[HID], h0[HID];
    double *xs;
    int64_t T;
} rnn_data;

static void rnn_data_make(rnn_data *d, int64_t T) {
    fill(d->W, HID * HID, 1, 0.3);
    fill(d->U, HID * INP, 2, 0.5);
    fill(d->b, HID, 3, 0.1);
    fill(d->h0, HID, 4, 0.5);
    d->T = T;
    d->xs = malloc(sizeof(double) * (size_t)(T * INP + 1));
    fill(d->xs, T * INP, 5, 1.0);
}

static void rnn_inputs(cj_ctx *ctx, const rnn_data *d, cj_val *in) {
    int64_t dw[2] = {HID, HID}, du[2] = {HID, INP}, dh = HID, dx[2] = {d->T, INP};
    in[0] = f64_array(ctx, 2, dw, d->W);
    in[1] = f64_array(ctx, 2, du, d->U);
    in[2] = f64_array(ctx, 1, &dh, d->b);
    in[3] = f64_array(ctx, 1, &dh, d->h0);
    in[4] = f64_array(ctx, 2, dx, d->xs);
}

/* The RNN forwards or backwards, T steps, hoisted and not, both backends,
 * against the loop; the hoisted body lost U x's product. */
static void check_rnn(int64_t T, int reverse) {
    use_private_cache();
    rnn_data d;
    rnn_data_make(&d, T);
    double hT[HID], *hs = calloc((size_t)(T * HID + 1), sizeof(double));
    rnn_ref(d.W, d.U, d.b, d.h0, d.xs, T, reverse, hT, hs);
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val in[5];
    rnn_inputs(ctx, &d, in);
    static rnn_case rc[2]; /* [0] hoisted, [1] not */
    scan_shape shape[2];
    for (int h = 0; h < 2; h++) {
        cf_hoist_set_limit_for_testing(h == 0 ? -1 : 0);
        rc[h] = (rnn_case){.reverse = reverse, .T = T};
        rc[h].cell = cj_func_new(ctx, "rnn_cell", rnn_cell, 2, 2, &rc[h]);
        cj_func *f = cj_func_new(ctx, "rnn", rnn_fn, 5, 2, &rc[h]);
        shape[h] = shape_after_hoist(ctx, f, 5, in, NULL);
        for (int b = CC; b <= INTERP; b++) {
            cj_val out[2];
            CHECK_MSG(run_jit(f, b == CC ? CJ_BACKEND_CC : CJ_BACKEND_INTERP, in, out) == CJ_OK, "%s",
                      cj_error_message(ctx));
            double e0 = max_err(out[0], hT, HID), e1 = max_err(out[1], hs, T * HID);
            CHECK_MSG(e0 < 1e-12 && e1 < 1e-12, "T=%lld reverse=%d hoist=%d backend=%d: errors %g %g", (long long)T,
                      reverse, h == 0, b, e0, e1);
        }
    }
    cf_hoist_set_limit_for_testing(-1);
    if (T >= 2) {
        /* the product U x and nothing else left the loop: one equation
         * fewer, one more x slice */
        CHECK_EQ_INT(shape[1].n_xs, 1);
        CHECK_EQ_INT(shape[0].n_xs, 2);
        CHECK_EQ_INT(shape[0].body_eqns, shape[1].body_eqns - 1);
    } else {
        CHECK_EQ_INT(shape[0].body_eqns, shape[1].body_eqns); /* nothing to gain */
    }
    free(hs);
    free(d.xs);
    cj_ctx_free(ctx);
}

TEST(hoist_rnn_forwards_matches_the_loop_and_the_unhoisted_scan) { check_rnn(37, 0); }
TEST(hoist_rnn_reverse_matches_the_loop_and_the_unhoisted_scan) { check_rnn(37, 1); }
TEST(hoist_zero_and_one_step_scans_are_left_alone_and_run) {
    check_rnn(0, 0);
    check_rnn(1, 1);
}

TEST(hoist_dump_shows_the_product_before_the_loop) {
    rnn_data d;
    rnn_data_make(&d, 9);
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val in[5];
    rnn_inputs(ctx, &d, in);
    static rnn_case rc;
    rc = (rnn_case){.T = 9};
    rc.cell = cj_func_new(ctx, "rnn_cell", rnn_cell, 2, 2, &rc);
    cj_func *f = cj_func_new(ctx, "rnn", rnn_fn, 5, 2, &rc);
    char *text = NULL;
    scan_shape s = shape_after_hoist(ctx, f, 5, in, &text);
    CHECK(text);
    CHECK_STR_CONTAINS(text, "cjax: after hoist:");
    /* the stacked product f64[9,12] is made before the scan, which now
     * reads two x slices */
    const char *scan = strstr(text, "= scan[");
    const char *dot = strstr(text, "dot_general");
    CHECK(scan && dot && dot < scan);
    CHECK_STR_CONTAINS(text, "f64[9,12] = dot_general");
    CHECK_STR_CONTAINS(text, "xs=2");
    CHECK_EQ_INT(s.n_xs, 2);
    free(text);
    free(d.xs);
    cj_ctx_free(ctx);
}

/* ---- too large to hoist: the limit and the growth factor ---- */
TEST(hoist_stacked_values_over_the_limit_stay_in_the_loop) {
    rnn_data d;
    rnn_data_make(&d, 20);
    double hT[HID], hs[20 * HID];
    rnn_ref(d.W, d.U, d.b, d.h0, d.xs, 20, 0, hT, hs);
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val in[5];
    rnn_inputs(ctx, &d, in);
    static rnn_case rc;
    rc = (rnn_case){.T = 20};
    rc.cell = cj_func_new(ctx, "rnn_cell", rnn_cell, 2, 2, &rc);
    cj_func *f = cj_func_new(ctx, "rnn", rnn_fn, 5, 2, &rc);
    /* the stacked product is 20 * 12 * 8 = 1920 bytes */
    cf_hoist_set_limit_for_testing(1919);
    scan_shape s = shape_after_hoist(ctx, f, 5, in, NULL);
    CHECK_EQ_INT(s.n_xs, 1);
    cj_val out[2];
    CHECK(run_jit(f, CJ_BACKEND_INTERP, in, out) == CJ_OK);
    CHECK(max_err(out[0], hT, HID) < 1e-12 && max_err(out[1], hs, 20 * HID) < 1e-12);
    /* exactly at the limit it moves (the same record, now hoisted) */
    cf_hoist_set_limit_for_testing(1920);
    s = shape_after_hoist(ctx, f, 5, in, NULL);
    CHECK_EQ_INT(s.n_xs, 2);
    cf_hoist_set_limit_for_testing(-1);
    free(d.xs);
    cj_ctx_free(ctx);
}

/* h' = tanh(0.01 (x xᵀ) h + c): x xᵀ reads only the x slice, but its
 * stacked form is T·n² against xs' T·n (n = 40: 40 times, over the
 * factor of 8), so it stays in the loop. */
enum { OUTER_N = 40, OUTER_T = 6 };
static void outer_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    int64_t col[2] = {OUTER_N, 1}, row[2] = {1, OUTER_N};
    cj_val m = cj_matmul(cj_reshape(in[1], 2, col), cj_reshape(in[1], 2, row));
    out[0] = cj_tanh(cj_add(cj_mul(cj_matmul(m, in[0]), cj_scalar_typed(ctx, 0.01, CJ_F64)),
                              cj_scalar_typed(ctx, 0.1, CJ_F64)));
}
/* h' = tanh(0.01 sum(x xᵀ) h + 0.1): only a scalar per step leaves the
 * product, but making it stacked takes T·n² all the same */
static void outer_sum_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    int64_t col[2] = {OUTER_N, 1}, row[2] = {1, OUTER_N};
    cj_val m = cj_matmul(cj_reshape(in[1], 2, col), cj_reshape(in[1], 2, row));
    out[0] = cj_tanh(cj_add(cj_mul(cj_mul(cj_sum(m, 0, NULL, 0), in[0]), cj_scalar_typed(ctx, 0.01, CJ_F64)),
                            cj_scalar_typed(ctx, 0.1, CJ_F64)));
}
static void outer_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx;
    cj_scan(u, 1, &in[0], 1, &in[1], NULL, &out[0], NULL);
}

TEST(hoist_work_that_would_grow_past_the_xs_factor_stays_in_the_loop) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    double h0[OUTER_N], xs[OUTER_T * OUTER_N], h[OUTER_N], hn[OUTER_N];
    fill(h0, OUTER_N, 7, 0.5);
    fill(xs, OUTER_T * OUTER_N, 8, 1.0);
    memcpy(h, h0, sizeof h);
    for (int t = 0; t < OUTER_T; t++) {
        const double *x = xs + t * OUTER_N;
        for (int i = 0; i < OUTER_N; i++) {
            double a = 0;
            for (int j = 0; j < OUTER_N; j++) a += x[i] * x[j] * h[j];
            hn[i] = tanh(a * 0.01 + 0.1);
        }
        memcpy(h, hn, sizeof h);
    }
    int64_t dn = OUTER_N, dx[2] = {OUTER_T, OUTER_N};
    cj_val in[2] = {f64_array(ctx, 1, &dn, h0), f64_array(ctx, 2, dx, xs)};
    cj_func *body = cj_func_new(ctx, "outer_body", outer_body, 2, 1, NULL);
    cj_func *f = cj_func_new(ctx, "outer", outer_fn, 2, 1, body);
    scan_shape s = shape_after_hoist(ctx, f, 2, in, NULL);
    CHECK_EQ_INT(s.n_xs, 1);
    cj_val out;
    CHECK(run_jit(f, CJ_BACKEND_INTERP, in, &out) == CJ_OK);
    CHECK_MSG(max_err(out, h, OUTER_N) < 1e-12, "%g", max_err(out, h, OUTER_N));
    /* the summed form: the same limit on what is made on the way */
    memcpy(h, h0, sizeof h);
    for (int t = 0; t < OUTER_T; t++) {
        const double *x = xs + t * OUTER_N;
        double sum = 0;
        for (int i = 0; i < OUTER_N; i++)
            for (int j = 0; j < OUTER_N; j++) sum += x[i] * x[j];
        for (int i = 0; i < OUTER_N; i++) h[i] = tanh(sum * h[i] * 0.01 + 0.1);
    }
    body = cj_func_new(ctx, "outer_sum_body", outer_sum_body, 2, 1, NULL);
    f = cj_func_new(ctx, "outer_sum", outer_fn, 2, 1, body);
    s = shape_after_hoist(ctx, f, 2, in, NULL);
    CHECK_EQ_INT(s.n_xs, 1);
    CHECK(run_jit(f, CJ_BACKEND_INTERP, in, &out) == CJ_OK);
    CHECK_MSG(max_err(out, h, OUTER_N) < 1e-10, "%g", max_err(out, h, OUTER_N));
    cj_ctx_free(ctx);
}

/* ---- mixed work: several xs, a reduction, a y that is hoisted itself ----
 * carries (h f64[HID], acc f64), xs (x f64[T,INP], z f64[T,HID]):
 *   m = sum(x); u = U x; v = u * m + z        (no carry: all hoisted)
 *   h' = tanh(W h + v); acc' = acc + sum(h')
 *   ys: u, h' * m */
typedef struct mixed_case {
    cj_val W, U;
    cj_func *body;
    int reverse;
} mixed_case;

static void mixed_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    mixed_case *m = user;
    (void)ctx;
    cj_val s = cj_sum(in[2], 0, NULL, 0), u = cj_matmul(m->U, in[2]);
    cj_val v = cj_add(cj_mul(u, s), in[3]);
    out[0] = cj_tanh(cj_add(cj_matmul(m->W, in[0]), v));
    out[1] = cj_add(in[1], cj_sum(out[0], 0, NULL, 0));
    out[2] = u;
    out[3] = cj_mul(out[0], s);
}
/* (W, U, h0, acc0, xs, zs) → (h_T, acc_T, us, hms) */
static void mixed_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    mixed_case *m = user;
    (void)ctx;
    m->W = in[0], m->U = in[1];
    cj_scan_opts o = {0, 0, m->reverse};
    cj_scan(m->body, 2, &in[2], 2, &in[4], &o, &out[0], &out[2]);
}

TEST(hoist_mixed_work_matches_the_loop_and_the_unhoisted_scan) {
    use_private_cache();
    enum { T = 17 };
    double W[HID * HID], U[HID * INP], h0[HID], xs[T * INP], zs[T * HID];
    fill(W, HID * HID, 11, 0.3), fill(U, HID * INP, 12, 0.5), fill(h0, HID, 13, 0.5);
    fill(xs, T * INP, 14, 1.0), fill(zs, T * HID, 15, 0.2);
    for (int reverse = 0; reverse < 2; reverse++) {
        double h[HID], hn[HID], acc = 0.25, us[T * HID], hms[T * HID];
        memcpy(h, h0, sizeof h);
        for (int step = 0; step < T; step++) {
            int t = reverse ? T - 1 - step : step;
            const double *x = xs + t * INP;
            double s = 0;
            for (int j = 0; j < INP; j++) s += x[j];
            for (int i = 0; i < HID; i++) {
                double u = 0, a = 0;
                for (int j = 0; j < INP; j++) u += U[i * INP + j] * x[j];
                for (int j = 0; j < HID; j++) a += W[i * HID + j] * h[j];
                us[t * HID + i] = u;
                hn[i] = tanh(a + u * s + zs[t * HID + i]);
            }
            memcpy(h, hn, sizeof h);
            for (int i = 0; i < HID; i++) acc += h[i], hms[t * HID + i] = h[i] * s;
        }
        cj_ctx *ctx = cj_ctx_new(NULL);
        int64_t dw[2] = {HID, HID}, du[2] = {HID, INP}, dh = HID, dx[2] = {T, INP}, dz[2] = {T, HID};
        cj_val in[6] = {f64_array(ctx, 2, dw, W), f64_array(ctx, 2, du, U), f64_array(ctx, 1, &dh, h0),
                        cj_scalar_typed(ctx, 0.25, CJ_F64), f64_array(ctx, 2, dx, xs), f64_array(ctx, 2, dz, zs)};
        static mixed_case mc[2];
        scan_shape shape[2];
        for (int hoist = 0; hoist < 2; hoist++) {
            cf_hoist_set_limit_for_testing(hoist ? -1 : 0);
            mc[hoist] = (mixed_case){.reverse = reverse};
            mc[hoist].body = cj_func_new(ctx, "mixed_body", mixed_body, 4, 4, &mc[hoist]);
            cj_func *f = cj_func_new(ctx, "mixed", mixed_fn, 6, 4, &mc[hoist]);
            shape[hoist] = shape_after_hoist(ctx, f, 6, in, NULL);
            for (int b = CC; b <= INTERP; b++) {
                cj_val out[4];
                CHECK_MSG(run_jit(f, b == CC ? CJ_BACKEND_CC : CJ_BACKEND_INTERP, in, out) == CJ_OK, "%s",
                          cj_error_message(ctx));
                double e[4] = {max_err(out[0], h, HID), max_err(out[1], &acc, 1), max_err(out[2], us, T * HID),
                               max_err(out[3], hms, T * HID)};
                for (int j = 0; j < 4; j++)
                    CHECK_MSG(e[j] < 1e-12, "reverse=%d hoist=%d backend=%d output %d: error %g", reverse, hoist, b, j,
                              e[j]);
            }
        }
        cf_hoist_set_limit_for_testing(-1);
        /* the sum, the product, the multiply and the add left the loop;
         * the loop reads u (a y as well), v and the sum as x slices */
        CHECK_EQ_INT(shape[0].n_xs, 2);
        CHECK_EQ_INT(shape[1].n_xs, 5);
        CHECK_MSG(shape[1].body_eqns <= shape[0].body_eqns - 4, "body equations %d unhoisted, %d hoisted",
                  shape[0].body_eqns, shape[1].body_eqns);
        cj_ctx_free(ctx);
    }
}

/* ---- a scan nested in a scan ----
 * outer carry h, outer xs X f64[T,S,INP]; the outer body:
 *   a = U2 · sum(x_o, axis 0)                  (no carry: hoisted here)
 *   h_i = scan over the rows x_s of x_o: h ← tanh(W h + U x_s)
 *                                              (U x_s: hoisted in the inner scan)
 *   h' = h_i + 0.125 a */
enum { NEST_T = 7, NEST_S = 5 };
typedef struct nest_case {
    cj_val W, U, U2;
    cj_func *inner, *outer;
} nest_case;

static void nest_inner(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    nest_case *n = user;
    (void)ctx;
    out[0] = cj_tanh(cj_add(cj_matmul(n->W, in[0]), cj_matmul(n->U, in[1])));
}
static void nest_outer(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    nest_case *n = user;
    int64_t axis0 = 0;
    cj_val a = cj_matmul(n->U2, cj_sum(in[1], 1, &axis0, 0)), hi;
    cj_scan(n->inner, 1, &in[0], 1, &in[1], NULL, &hi, NULL);
    out[0] = cj_add(hi, cj_mul(a, cj_scalar_typed(ctx, 0.125, CJ_F64)));
}
/* (W, U, U2, h0, X) → h_T */
static void nest_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    nest_case *n = user;
    (void)ctx;
    n->W = in[0], n->U = in[1], n->U2 = in[2];
    cj_scan(n->outer, 1, &in[3], 1, &in[4], NULL, &out[0], NULL);
}

TEST(hoist_nested_scans_hoist_at_both_levels) {
    use_private_cache();
    double W[HID * HID], U[HID * INP], U2[HID * INP], h0[HID], X[NEST_T * NEST_S * INP];
    fill(W, HID * HID, 21, 0.3), fill(U, HID * INP, 22, 0.5), fill(U2, HID * INP, 23, 0.2);
    fill(h0, HID, 24, 0.5), fill(X, NEST_T * NEST_S * INP, 25, 1.0);
    double h[HID], hn[HID];
    memcpy(h, h0, sizeof h);
    for (int t = 0; t < NEST_T; t++) {
        const double *xo = X + t * NEST_S * INP;
        double a[HID], sx[INP] = {0};
        for (int r = 0; r < NEST_S; r++)
            for (int j = 0; j < INP; j++) sx[j] += xo[r * INP + j];
        for (int i = 0; i < HID; i++) {
            a[i] = 0;
            for (int j = 0; j < INP; j++) a[i] += U2[i * INP + j] * sx[j];
        }
        for (int r = 0; r < NEST_S; r++) {
            for (int i = 0; i < HID; i++) {
                double v = 0;
                for (int j = 0; j < HID; j++) v += W[i * HID + j] * h[j];
                for (int j = 0; j < INP; j++) v += U[i * INP + j] * xo[r * INP + j];
                hn[i] = tanh(v);
            }
            memcpy(h, hn, sizeof h);
        }
        for (int i = 0; i < HID; i++) h[i] += 0.125 * a[i];
    }
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t dw[2] = {HID, HID}, du[2] = {HID, INP}, dh = HID, dx[3] = {NEST_T, NEST_S, INP};
    cj_val in[5] = {f64_array(ctx, 2, dw, W), f64_array(ctx, 2, du, U), f64_array(ctx, 2, du, U2),
                    f64_array(ctx, 1, &dh, h0), f64_array(ctx, 3, dx, X)};
    static nest_case nc[2];
    scan_shape shape[2];
    for (int hoist = 0; hoist < 2; hoist++) {
        cf_hoist_set_limit_for_testing(hoist ? -1 : 0);
        nc[hoist].inner = cj_func_new(ctx, "nest_inner", nest_inner, 2, 1, &nc[hoist]);
        nc[hoist].outer = cj_func_new(ctx, "nest_outer", nest_outer, 2, 1, &nc[hoist]);
        cj_func *f = cj_func_new(ctx, "nest", nest_fn, 5, 1, &nc[hoist]);
        shape[hoist] = shape_after_hoist(ctx, f, 5, in, NULL);
        for (int b = CC; b <= INTERP; b++) {
            cj_val out;
            CHECK_MSG(run_jit(f, b == CC ? CJ_BACKEND_CC : CJ_BACKEND_INTERP, in, &out) == CJ_OK, "%s",
                      cj_error_message(ctx));
            CHECK_MSG(max_err(out, h, HID) < 1e-12, "hoist=%d backend=%d: error %g", hoist, b, max_err(out, h, HID));
        }
    }
    cf_hoist_set_limit_for_testing(-1);
    /* outer: a moved out (one more x slice); inner: U x_s moved out when
     * the outer body is compiled */
    CHECK_EQ_INT(shape[0].n_xs, 1);
    CHECK_EQ_INT(shape[0].inner_n_xs, 1);
    CHECK_EQ_INT(shape[1].n_xs, 2);
    CHECK_EQ_INT(shape[1].inner_n_xs, 2);
    cj_ctx_free(ctx);
}

/* ---- vmap of a scan ---- */
TEST(hoist_vmap_of_a_scan_matches_single_calls) {
    use_private_cache();
    enum { B = 3, T = 11 };
    rnn_data d;
    rnn_data_make(&d, B * T); /* example e's xs: rows [e*T, (e+1)*T) */
    double h0s[B * HID], hT[B * HID], hs[B * T * HID];
    fill(h0s, B * HID, 31, 0.5);
    for (int e = 0; e < B; e++) rnn_ref(d.W, d.U, d.b, h0s + e * HID, d.xs + e * T * INP, T, 0, hT + e * HID, hs + e * T * HID);
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t dw[2] = {HID, HID}, du[2] = {HID, INP}, dh = HID, dh0[2] = {B, HID}, dx[3] = {B, T, INP};
    cj_val in[5] = {f64_array(ctx, 2, dw, d.W), f64_array(ctx, 2, du, d.U), f64_array(ctx, 1, &dh, d.b),
                    f64_array(ctx, 2, dh0, h0s), f64_array(ctx, 3, dx, d.xs)};
    static rnn_case rc[2];
    scan_shape shape[2];
    int64_t axes[5] = {CJ_NOT_MAPPED, CJ_NOT_MAPPED, CJ_NOT_MAPPED, 0, 0};
    cj_vmap_opts vo = {axes, NULL, 0, 0, 0};
    for (int hoist = 0; hoist < 2; hoist++) {
        cf_hoist_set_limit_for_testing(hoist ? -1 : 0);
        rc[hoist] = (rnn_case){.T = T};
        rc[hoist].cell = cj_func_new(ctx, "rnn_cell", rnn_cell, 2, 2, &rc[hoist]);
        cj_func *f = cj_vmap(cj_func_new(ctx, "rnn", rnn_fn, 5, 2, &rc[hoist]), &vo);
        shape[hoist] = shape_after_hoist(ctx, f, 5, in, NULL);
        for (int b = CC; b <= INTERP; b++) {
            cj_val out[2];
            CHECK_MSG(run_jit(f, b == CC ? CJ_BACKEND_CC : CJ_BACKEND_INTERP, in, out) == CJ_OK, "%s",
                      cj_error_message(ctx));
            double e0 = max_err(out[0], hT, B * HID), e1 = max_err(out[1], hs, B * T * HID);
            CHECK_MSG(e0 < 1e-12 && e1 < 1e-12, "hoist=%d backend=%d: errors %g %g", hoist, b, e0, e1);
        }
    }
    cf_hoist_set_limit_for_testing(-1);
    CHECK_EQ_INT(shape[0].n_xs, 1);
    CHECK_EQ_INT(shape[1].n_xs, 2); /* the batched product, [T,B,HID], before the loop */
    CHECK_EQ_INT(shape[1].body_eqns, shape[0].body_eqns - 1);
    free(d.xs);
    cj_ctx_free(ctx);
}

/* ---- grad of a scan, against finite differences ---- */
/* loss = sum(hs) + sum(h_T · h_T) */
static double rnn_loss_ref(const rnn_data *d) {
    double hT[HID], *hs = malloc(sizeof(double) * (size_t)(d->T * HID));
    rnn_ref(d->W, d->U, d->b, d->h0, d->xs, d->T, 0, hT, hs);
    double l = 0;
    for (int64_t i = 0; i < d->T * HID; i++) l += hs[i];
    for (int i = 0; i < HID; i++) l += hT[i] * hT[i];
    free(hs);
    return l;
}

typedef struct loss_case {
    rnn_case rc;
    cj_func *rnn;
} loss_case;

static void loss_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    loss_case *l = user;
    (void)ctx;
    cj_val r[2];
    cj_call(l->rnn, in, r);
    out[0] = cj_add(cj_sum(r[1], 0, NULL, 0), cj_sum(cj_mul(r[0], r[0]), 0, NULL, 0));
}

/* grad of the RNN's loss, its step checkpointed or not */
static void check_grad(int checkpointed) {
    use_private_cache();
    enum { T = 15 };
    rnn_data d;
    rnn_data_make(&d, T);
    /* central differences in W and U */
    double gW[HID * HID], gU[HID * INP], eps = 1e-6;
    for (int k = 0; k < HID * HID + HID * INP; k++) {
        double *p = k < HID * HID ? &d.W[k] : &d.U[k - HID * HID], keep = *p;
        *p = keep + eps;
        double up = rnn_loss_ref(&d);
        *p = keep - eps;
        double down = rnn_loss_ref(&d);
        *p = keep;
        *(k < HID * HID ? &gW[k] : &gU[k - HID * HID]) = (up - down) / (2 * eps);
    }
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val in[5];
    rnn_inputs(ctx, &d, in);
    static loss_case lc[2];
    scan_shape shape[2];
    double *got[2][2] = {{0}};
    int argnums[2] = {0, 1};
    cj_grad_opts go = {2, argnums, 0};
    for (int hoist = 0; hoist < 2; hoist++) {
        cf_hoist_set_limit_for_testing(hoist ? -1 : 0);
        lc[hoist].rc = (rnn_case){.T = T};
        lc[hoist].rc.cell = cj_func_new(ctx, "rnn_cell", rnn_cell, 2, 2, &lc[hoist].rc);
        if (checkpointed) lc[hoist].rc.cell = cj_checkpoint(lc[hoist].rc.cell, NULL);
        lc[hoist].rnn = cj_func_new(ctx, "rnn", rnn_fn, 5, 2, &lc[hoist].rc);
        cj_func *g = cj_grad(cj_func_new(ctx, "loss", loss_fn, 5, 1, &lc[hoist]), &go);
        shape[hoist] = shape_after_hoist(ctx, g, 5, in, NULL);
        for (int b = CC; b <= INTERP; b++) {
            cj_val out[2];
            CHECK_MSG(run_jit(g, b == CC ? CJ_BACKEND_CC : CJ_BACKEND_INTERP, in, out) == CJ_OK, "%s",
                      cj_error_message(ctx));
            double e0 = max_err(out[0], gW, HID * HID), e1 = max_err(out[1], gU, HID * INP);
            CHECK_MSG(e0 < 1e-6 && e1 < 1e-6, "hoist=%d backend=%d: errors %g %g", hoist, b, e0, e1);
            if (b == INTERP) got[hoist][0] = values(out[0]), got[hoist][1] = values(out[1]);
        }
    }
    cf_hoist_set_limit_for_testing(-1);
    /* hoisted and not agree to rounding */
    for (int k = 0; k < HID * HID; k++) CHECK_NEAR(got[1][0][k], got[0][0][k], 1e-12, 1e-12);
    for (int k = 0; k < HID * INP; k++) CHECK_NEAR(got[1][1][k], got[0][1][k], 1e-12, 1e-12);
    for (int i = 0; i < 2; i++) free(got[i][0]), free(got[i][1]);
    /* the forward scan and the backward one; the forward one reads U x as
     * an x slice. The backward step's own products all read the carried
     * cotangent; a checkpointed step's recomputation there sits behind an
     * optimization_barrier with the cotangent (so it runs per step, as the
     * checkpoint asks: stacking it would save what the checkpoint does not
     * want saved), so nothing of it moves either. */
    CHECK_EQ_INT(shape[0].n_scans, 2);
    CHECK_EQ_INT(shape[1].n_scans, 2);
    CHECK_MSG(shape[1].n_xs == shape[0].n_xs + 1, "forward scan: %d x slices hoisted, %d not", shape[1].n_xs,
              shape[0].n_xs);
    CHECK_EQ_INT(shape[1].total_xs, shape[0].total_xs + 1);
    free(d.xs);
    cj_ctx_free(ctx);
}

TEST(hoist_grad_of_a_scan_matches_finite_differences) { check_grad(0); }
TEST(hoist_grad_of_a_checkpointed_scan_matches_finite_differences) { check_grad(1); }

/* ---- out of memory anywhere while hoisting is clean ---- */
static cj_status fault_scenario(cj_ctx *ctx, double *result) {
    rnn_data d;
    rnn_data_make(&d, 6);
    cj_val in[5];
    rnn_inputs(ctx, &d, in);
    free(d.xs);
    static rnn_case rc;
    rc = (rnn_case){.T = 6};
    rc.cell = cj_func_new(ctx, "rnn_cell", rnn_cell, 2, 2, &rc);
    cj_func *f = cj_func_new(ctx, "rnn", rnn_fn, 5, 2, &rc);
    cj_val out[2];
    if (run_jit(f, CJ_BACKEND_INTERP, in, out) != CJ_OK) return cj_error(ctx);
    *result = cj_item_or_nan(cj_add(cj_sum(out[0], 0, NULL, 0), cj_sum(out[1], 0, NULL, 0)));
    return cj_error(ctx);
}

TEST(hoist_allocation_failure_at_every_site_is_clean) {
    double want;
    cj_ctx *ref = cj_ctx_new(NULL);
    CHECK(fault_scenario(ref, &want) == CJ_OK && isfinite(want));
    cj_ctx_free(ref);
    int covered = 0;
    long long n;
    for (n = 1; n < 100000 && !covered; n++) {
        tu_alloc st = {0};
        st.fail_at = n;
        cj_allocator a = tu_allocator(&st);
        cj_ctx *ctx = cj_ctx_new(&a);
        if (ctx) {
            double result;
            cj_status rc = fault_scenario(ctx, &result);
            CHECK_MSG(rc == CJ_OK || rc == CJ_ERR_OOM, "allocation %lld: expected CJ_ERR_OOM, got %s: %s", n,
                      cj_status_name(rc), cj_error_message(ctx));
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
}
