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

/* The scans of f's program for these inputs after the hoist pass: the
 * first scan's body equations and x slices (-1 when there is none), and
 * the IR's text after the pass (malloc'd, when text is given). */
typedef struct scan_shape {
    int body_eqns, n_xs, top_eqns;
} scan_shape;

static scan_shape shape_after_hoist(cj_ctx *ctx, cj_func *f, int n_in, const cj_val *in, char **text) {
    scan_shape s = {-1, -1, -1};
    rt_aval avals[16];
    for (int i = 0; i < n_in; i++) {
        cj_spec sp = cj_spec_of(in[i]);
        avals[i] = rt_aval_make(sp.dtype, sp.rank, sp.dims);
        avals[i].weak = sp.weak;
    }
    ir_func *ir = func_trace_to_ir(f, avals, NULL, "test");
    if (!ir) return s;
    strbuf sb;
    sb_init(&sb, ctx->mem);
    compiled *c = compile_ir_until(ctx, ir, "hoist", &(compile_options){.dump = "hoist", .dump_to = &sb});
    if (c) {
        s.top_eqns = c->ir->n_eqns;
        for (int e = 0; e < c->ir->n_eqns; e++)
            if (c->ir->eqns[e].prim == PRIM_SCAN) {
                const cf_record *rec = cf_of(&c->ir->eqns[e].params);
                s.body_eqns = rec->progs[0]->n_eqns;
                s.n_xs = rec->n_xs;
                break;
            }
    }
    if (text) *text = sb.data ? strdup(sb.data) : NULL;
    sb_free(&sb);
    compiled_free(ctx, c);
    ir_free(ir);
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
    double hT[HID], *hs = malloc(sizeof(double) * (size_t)(T * HID + 1));
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
