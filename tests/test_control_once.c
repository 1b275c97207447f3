/* test_control_once.c — a construct is one equation of all its outputs,
 * holding its bodies by reference: it runs once however many outputs are
 * read (counted by cf_runs_for_testing), eagerly, under grad and under
 * jit; cj_make_jaxpr shows its bodies inline; its records live exactly as
 * long as what refers to them. */
#include <math.h>
#include <string.h>

#include "backend/control_run.h"
#include "control/control.h"
#include "harness.h"
#include "test_util.h"

static double item(cj_val v) {
    double x = NAN;
    if (cj_read_as(v, CJ_F64, &x, sizeof x) != CJ_OK) return NAN;
    return x;
}

#define T 5

/* the step: (a, b, c, x) → (a + 0.1 b, b x, c + a b; y = a b) */
static void step3(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    cj_val a = in[0], b = in[1], c = in[2], x = in[3];
    out[0] = cj_add(a, cj_mul(cj_scalar_typed(ctx, 0.1, CJ_F64), b));
    out[1] = cj_mul(b, x);
    out[2] = cj_add(c, cj_mul(a, b));
    out[3] = cj_mul(a, b);
}

typedef struct case3 {
    cj_func *step;
    int unrolled;
} case3;

/* loss(a0, b0, c0, xs) = a_T + b_T^2 + c_T + sum(ys), by scan or unrolled */
static void loss3(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    case3 *c = u;
    cj_val carry[3] = {in[0], in[1], in[2]}, ys;
    if (c->unrolled) {
        cj_val acc = cj_scalar_typed(ctx, 0, CJ_F64);
        for (int t = 0; t < T; t++) {
            int64_t ax = 0;
            cj_val xt = cj_squeeze(cj_slice(in[3], (int64_t[]){t}, (int64_t[]){t + 1}, NULL), 1, &ax), o[4];
            step3(ctx, (cj_val[]){carry[0], carry[1], carry[2], xt}, o, NULL);
            carry[0] = o[0], carry[1] = o[1], carry[2] = o[2];
            acc = cj_add(acc, o[3]);
        }
        ys = acc;
    } else {
        cj_val all;
        cj_scan(c->step, 3, carry, 1, &in[3], NULL, carry, &all);
        ys = cj_sum(all, 0, NULL, 0);
    }
    out[0] = cj_add(cj_add(carry[0], cj_mul(carry[1], carry[1])), cj_add(carry[2], ys));
}

static void inputs3(cj_ctx *ctx, cj_val *in) {
    double xs[T] = {0.9, 1.1, -0.7, 1.3, 0.8};
    in[0] = cj_scalar_typed(ctx, 0.5, CJ_F64);
    in[1] = cj_scalar_typed(ctx, -1.25, CJ_F64);
    in[2] = cj_scalar_typed(ctx, 2.0, CJ_F64);
    in[3] = cj_array(ctx, CJ_F64, 1, (int64_t[]){T}, xs);
}

static void scan_outputs(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    case3 *c = u;
    (void)ctx;
    cj_scan(c->step, 3, in, 1, &in[3], NULL, out, &out[3]);
}

/* Eagerly, a scan of 3 carries and a y runs once for its 4 outputs. */
TEST(cf_once_eager_scan_runs_once) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    case3 c = {cj_func_new(ctx, "step3", step3, 4, 4, NULL), 0};
    cj_func *f = cj_func_new(ctx, "scan3", scan_outputs, 4, 4, &c);
    cj_val in[4], out[4];
    inputs3(ctx, in);
    long before = cf_runs_for_testing();
    CHECK(cj_call(f, in, out) == CJ_OK);
    CHECK_EQ_INT(cf_runs_for_testing() - before, 1);
    /* the values, against the loop in C */
    double a = 0.5, b = -1.25, cc = 2.0, xs[T] = {0.9, 1.1, -0.7, 1.3, 0.8}, ys[T];
    for (int t = 0; t < T; t++) {
        double a2 = a + 0.1 * b, b2 = b * xs[t], c2 = cc + a * b;
        ys[t] = a * b;
        a = a2, b = b2, cc = c2;
    }
    CHECK_NEAR(item(out[0]), a, 1e-15, 0);
    CHECK_NEAR(item(out[1]), b, 1e-15, 0);
    CHECK_NEAR(item(out[2]), cc, 1e-15, 0);
    double got[T];
    CHECK(cj_read_as(out[3], CJ_F64, got, sizeof got) == CJ_OK);
    for (int t = 0; t < T; t++) CHECK_NEAR(got[t], ys[t], 1e-15, 0);
    cj_ctx_free(ctx);
}

/* (p, x, y) → cond(p, (x+y, x-y, x*y), (x*y, x+y, x-y)) */
static void br_a(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_add(in[0], in[1]), out[1] = cj_sub(in[0], in[1]), out[2] = cj_mul(in[0], in[1]);
}
static void br_b(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_mul(in[0], in[1]), out[1] = cj_add(in[0], in[1]), out[2] = cj_sub(in[0], in[1]);
}
/* while (i < 7) { i += 1; x *= 1.5 } */
static void w_cond(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    out[0] = cj_lt(in[0], cj_scalar_typed(ctx, 7, CJ_I32));
}
static void w_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    out[0] = cj_add(in[0], cj_scalar_typed(ctx, 1, CJ_I32));
    out[1] = cj_mul(in[1], cj_scalar(ctx, 1.5));
}

TEST(cf_once_eager_cond_and_while_run_once) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *ta = cj_func_new(ctx, "a", br_a, 2, 3, NULL), *tb = cj_func_new(ctx, "b", br_b, 2, 3, NULL);
    cj_val x = cj_scalar_typed(ctx, 3.0, CJ_F64), y = cj_scalar_typed(ctx, 2.0, CJ_F64), out[3];
    long before = cf_runs_for_testing();
    CHECK(cj_cond(cj_scalar_typed(ctx, 1, CJ_BOOL), ta, tb, 2, (cj_val[]){x, y}, out) == CJ_OK);
    CHECK_EQ_INT(cf_runs_for_testing() - before, 1);
    CHECK_NEAR(item(out[0]), 5.0, 0, 0);
    CHECK_NEAR(item(out[1]), 1.0, 0, 0);
    CHECK_NEAR(item(out[2]), 6.0, 0, 0);
    cj_func *wc = cj_func_new(ctx, "wc", w_cond, 2, 1, NULL), *wb = cj_func_new(ctx, "wb", w_body, 2, 2, NULL);
    cj_val init[2] = {cj_scalar_typed(ctx, 0, CJ_I32), cj_scalar_typed(ctx, 1.0, CJ_F64)}, res[2];
    before = cf_runs_for_testing();
    CHECK(cj_while_loop(wc, wb, 2, init, res) == CJ_OK);
    CHECK_EQ_INT(cf_runs_for_testing() - before, 1);
    CHECK_NEAR(item(res[0]), 7.0, 0, 0);
    CHECK_NEAR(item(res[1]), pow(1.5, 7), 1e-15, 0);
    cj_ctx_free(ctx);
}

/* (i, x) through the while loop above: the loop as a function object. */
typedef struct wloop {
    cj_func *cond, *body, *loop;
} wloop;
static void w_loop(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx;
    const wloop *w = u;
    cj_while_loop(w->cond, w->body, 2, in, out);
}
/* jvp of the loop inside a function, so it can be jitted: (i, x, dx) →
 * (x_out, dx_out) */
static void w_jvp(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    const wloop *w = u;
    cj_val po[2], to[2];
    cj_val t[2] = {cj_scalar_typed(ctx, 0, CJ_I32), in[2]};
    cj_jvp(w->loop, in, t, po, to);
    out[0] = po[1], out[1] = to[1];
}

/* Forward mode of a while loop runs ONE loop, over (primal, tangent)
 * carries, as JAX's does: eagerly and under jit on both backends (it ran
 * the primal loop beside the jvp loop, two runs). Under cj_linearize the
 * known side still has its own primal loop (JAX's partial evaluation of
 * while also runs a known loop beside the whole one): one run to make the
 * linear map, one each time it is applied. x_out = 1.5^7 x, dx_out =
 * 1.5^7 dx. */
TEST(cf_once_jvp_of_while_runs_one_loop) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    wloop w = {cj_func_new(ctx, "wc", w_cond, 2, 1, NULL), cj_func_new(ctx, "wb", w_body, 2, 2, NULL), NULL};
    w.loop = cj_func_new(ctx, "wloop", w_loop, 2, 2, &w);
    cj_func *jv = cj_func_new(ctx, "wjvp", w_jvp, 3, 2, &w);
    cj_jit_opts interp = {0, NULL, 0, NULL, CJ_BACKEND_INTERP}, cc = {0, NULL, 0, NULL, CJ_BACKEND_CC};
    cj_func *jj[2] = {cj_jit(jv, &interp), cj_jit(jv, &cc)};
    const double k = pow(1.5, 7);
    cj_val in[3] = {cj_scalar_typed(ctx, 0, CJ_I32), cj_scalar_typed(ctx, 2.0, CJ_F64), cj_scalar_typed(ctx, 0.25, CJ_F64)};
    cj_val po[2], to[2], got[2];
    long before = cf_runs_for_testing();
    CHECK(cj_jvp(w.loop, in, (cj_val[]){cj_scalar_typed(ctx, 0, CJ_I32), in[2]}, po, to) == CJ_OK);
    CHECK_EQ_INT(cf_runs_for_testing() - before, 1);
    CHECK_NEAR(item(po[0]), 7.0, 0, 0);
    CHECK_NEAR(item(po[1]), 2.0 * k, 1e-13, 0);
    CHECK_NEAR(item(to[1]), 0.25 * k, 1e-13, 0);
    for (int b = 0; b < 2; b++)
        for (int call = 0; call < 2; call++) {
            before = cf_runs_for_testing();
            CHECK_MSG(cj_call(jj[b], in, got) == CJ_OK, "%s", cj_error_message(ctx));
            CHECK_EQ_INT(cf_runs_for_testing() - before, 1);
            CHECK_NEAR(item(got[0]), 2.0 * k, 1e-13, 0);
            CHECK_NEAR(item(got[1]), 0.25 * k, 1e-13, 0);
        }
    before = cf_runs_for_testing();
    cj_func *lin = cj_linearize(w.loop, in, po);
    CHECK_MSG(lin != NULL, "%s", cj_error_message(ctx));
    CHECK_EQ_INT(cf_runs_for_testing() - before, 1);
    CHECK_NEAR(item(po[1]), 2.0 * k, 1e-13, 0);
    before = cf_runs_for_testing();
    CHECK(lin && cj_call(lin, (cj_val[]){cj_scalar_typed(ctx, 0, CJ_I32), in[2]}, to) == CJ_OK);
    CHECK_EQ_INT(cf_runs_for_testing() - before, 1);
    CHECK_NEAR(item(to[1]), 0.25 * k, 1e-13, 0);
    cj_ctx_free(ctx);
}

/* Reverse mode of the 3-carry scan: the known scan (primal outputs and
 * residuals) runs once forward, the transposed scan once backward: two
 * runs, eagerly (was 24: each of the 4 output equations ran the whole
 * construct, for each construct the jvp bound) and under jit (was 4). The
 * gradient agrees with the unrolled program's, which has no construct. */
TEST(cf_once_grad_of_3_carry_scan_runs_two_scans) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    case3 c = {cj_func_new(ctx, "step3", step3, 4, 4, NULL), 0}, u = {NULL, 1};
    cj_func *loss = cj_func_new(ctx, "loss3", loss3, 4, 1, &c), *ref = cj_func_new(ctx, "loss3_unrolled", loss3, 4, 1, &u);
    cj_grad_opts go = {3, (int[]){0, 1, 2}, 0};
    cj_func *g = cj_grad(loss, &go), *gref = cj_grad(ref, &go);
    cj_jit_opts interp = {0, NULL, 0, NULL, CJ_BACKEND_INTERP}, cc = {0, NULL, 0, NULL, CJ_BACKEND_CC};
    cj_func *jg[2] = {cj_jit(g, &interp), cj_jit(g, &cc)};
    cj_val in[4], want[3], got[3];
    inputs3(ctx, in);
    long before = cf_runs_for_testing();
    CHECK(cj_call(gref, in, want) == CJ_OK);
    CHECK_EQ_INT(cf_runs_for_testing() - before, 0);
    for (int call = 0; call < 2; call++) { /* the first call traces and linearizes, the second reuses */
        before = cf_runs_for_testing();
        CHECK(cj_call(g, in, got) == CJ_OK);
        CHECK_EQ_INT(cf_runs_for_testing() - before, 2);
        for (int i = 0; i < 3; i++) CHECK_NEAR(item(got[i]), item(want[i]), 1e-13, 1e-14);
    }
    for (int b = 0; b < 2; b++)
        for (int call = 0; call < 2; call++) {
            before = cf_runs_for_testing();
            CHECK_MSG(cj_call(jg[b], in, got) == CJ_OK, "%s", cj_error_message(ctx));
            CHECK_EQ_INT(cf_runs_for_testing() - before, 2);
            for (int i = 0; i < 3; i++) CHECK_NEAR(item(got[i]), item(want[i]), 1e-13, 1e-14);
        }
    cj_ctx_free(ctx);
}

/* cj_make_jaxpr shows the body inside the equation's brackets, and the
 * construct as one equation of its four results. */
TEST(cf_once_jaxpr_shows_bodies_inline) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    case3 c = {cj_func_new(ctx, "step3", step3, 4, 4, NULL), 0};
    cj_func *f = cj_func_new(ctx, "scan3", scan_outputs, 4, 4, &c);
    cj_spec s[4] = {cj_spec_make(CJ_F64, 0, NULL), cj_spec_make(CJ_F64, 0, NULL), cj_spec_make(CJ_F64, 0, NULL),
                    cj_spec_make(CJ_F64, 1, (int64_t[]){T})};
    char *text = cj_make_jaxpr(f, 4, s);
    CHECK_MSG(text != NULL, "%s", cj_error_message(ctx));
    if (text) {
        CHECK_STR_CONTAINS(text, "    e:f64[] f:f64[] g:f64[] h:f64[5] = scan[length=5 reverse=False carries=3 xs=1 "
                                 "closure=0\n        jaxpr={ lambda ; a:f64[] b:f64[] c:f64[] d:f64[]. let\n");
        CHECK_STR_CONTAINS(text, "\n          in (f, g, i, j) }\n    ] a b c d\n  in (e, f, g, h) }\n");
        CHECK(!strstr(text, "construct"));
        cj_string_free(ctx, text);
    }
    cj_ctx_free(ctx);
}

/* Records go with what refers to them: a jitted function's program holds
 * its construct's record; freeing the function (and the body that
 * remembers the record) frees it, before the context ends. */
TEST(cf_once_records_freed_with_their_holders) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    long live = cf_records_live_for_testing();
    case3 c = {cj_func_new(ctx, "step3", step3, 4, 4, NULL), 0};
    cj_func *f = cj_func_new(ctx, "loss3", loss3, 4, 1, &c);
    cj_grad_opts go = {1, (int[]){0}, 0};
    cj_func *g = cj_grad(f, &go), *jg = cj_jit(g, NULL);
    cj_val in[4], out;
    inputs3(ctx, in);
    CHECK(cj_call(jg, in, &out) == CJ_OK);
    CHECK(cf_records_live_for_testing() > live);
    cj_func_free(jg);
    cj_func_free(g);
    cj_func_free(f);
    cj_func_free(c.step);
    CHECK_EQ_INT(cf_records_live_for_testing(), live);
    cj_ctx_free(ctx);
}

/* vmap of the scan, eagerly: the batched construct (one record, made once
 * and kept by the original) runs once per call for all its outputs; each
 * example agrees with the unbatched scan. */
TEST(cf_once_eager_vmap_of_scan_runs_once) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    case3 c = {cj_func_new(ctx, "step3", step3, 4, 4, NULL), 0};
    cj_func *f = cj_func_new(ctx, "scan3", scan_outputs, 4, 4, &c);
    int64_t axes[4] = {0, CJ_NOT_MAPPED, 0, CJ_NOT_MAPPED};
    cj_vmap_opts vo = {axes, NULL, 0, 0, 0};
    cj_func *vf = cj_vmap(f, &vo);
    double a0[3] = {0.5, -0.25, 1.5}, c0[3] = {2.0, 0.0, -1.0};
    cj_val in[4];
    inputs3(ctx, in);
    cj_val bin[4] = {cj_array(ctx, CJ_F64, 1, (int64_t[]){3}, a0), in[1], cj_array(ctx, CJ_F64, 1, (int64_t[]){3}, c0),
                     in[3]};
    cj_val out[4];
    for (int call = 0; call < 2; call++) {
        long before = cf_runs_for_testing(), made = cf_records_made_for_testing();
        CHECK_MSG(cj_call(vf, bin, out) == CJ_OK, "%s", cj_error_message(ctx));
        CHECK_EQ_INT(cf_runs_for_testing() - before, 1);
        /* the second call traces the scan again (deduplicated into the
         * first record) and reuses its batched form: one record made, dropped */
        if (call == 1) CHECK_EQ_INT(cf_records_made_for_testing() - made, 1);
    }
    for (int b = 0; b < 3; b++) {
        cj_val one[4] = {cj_scalar_typed(ctx, a0[b], CJ_F64), in[1], cj_scalar_typed(ctx, c0[b], CJ_F64), in[3]}, want[4];
        CHECK(cj_call(f, one, want) == CJ_OK);
        double got[3], ys[3 * T], wys[T];
        CHECK(cj_read_as(out[0], CJ_F64, got, sizeof got) == CJ_OK);
        CHECK_NEAR(got[b], item(want[0]), 1e-15, 0);
        CHECK(cj_read_as(out[2], CJ_F64, got, sizeof got) == CJ_OK);
        CHECK_NEAR(got[b], item(want[2]), 1e-15, 0);
        CHECK(cj_read_as(out[3], CJ_F64, ys, sizeof ys) == CJ_OK); /* ys: f64[3, T] (out_axes 0) */
        CHECK(cj_read_as(want[3], CJ_F64, wys, sizeof wys) == CJ_OK);
        for (int t = 0; t < T; t++) CHECK_NEAR(ys[b * T + t], wys[t], 1e-15, 0);
    }
    cj_ctx_free(ctx);
}

/* The same construct twice on the same operands, one output read from each:
 * CSE makes them one equation (equal parameters: the same record, deduplicated
 * when traced again), DCE keeps it whole for the outputs read, and the
 * jitted program runs one scan. */
static void scan_twice(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    case3 *c = u;
    (void)ctx;
    cj_val r1[4], r2[4];
    cj_scan(c->step, 3, in, 1, &in[3], NULL, r1, &r1[3]);
    cj_scan(c->step, 3, in, 1, &in[3], NULL, r2, &r2[3]);
    out[0] = cj_add(r1[0], r2[2]);
}

TEST(cf_once_cse_merges_equal_constructs) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    case3 c = {cj_func_new(ctx, "step3", step3, 4, 4, NULL), 0};
    cj_func *f = cj_func_new(ctx, "scan_twice", scan_twice, 4, 1, &c), *one = cj_func_new(ctx, "scan3", scan_outputs, 4, 4, &c);
    cj_jit_opts interp = {0, NULL, 0, NULL, CJ_BACKEND_INTERP};
    cj_func *jf = cj_jit(f, &interp);
    cj_val in[4], y, want[4];
    inputs3(ctx, in);
    char *text = cj_make_jaxpr(f, 4, (cj_spec[]){cj_spec_make(CJ_F64, 0, NULL), cj_spec_make(CJ_F64, 0, NULL),
                                                 cj_spec_make(CJ_F64, 0, NULL), cj_spec_make(CJ_F64, 1, (int64_t[]){T})});
    int traced = 0;
    for (const char *p = text; p && (p = strstr(p, " = scan[")); p++) traced++;
    CHECK_EQ_INT(traced, 2); /* as traced: two equations naming one record */
    cj_string_free(ctx, text);
    char *dump = cj_jit_dump(jf, in, "simplify");
    CHECK_MSG(dump != NULL, "%s", cj_error_message(ctx));
    int kept = 0;
    for (const char *p = dump; p && (p = strstr(p, " = scan[")); p++) kept++;
    CHECK_MSG(kept == 1, "%d scans after simplify:\n%s", kept, dump);
    cj_string_free(ctx, dump);
    long before = cf_runs_for_testing();
    CHECK(cj_call(jf, in, &y) == CJ_OK);
    CHECK_EQ_INT(cf_runs_for_testing() - before, 1);
    CHECK(cj_call(one, in, want) == CJ_OK);
    CHECK_NEAR(item(y), item(want[0]) + item(want[2]), 1e-15, 0);
    cj_ctx_free(ctx);
}
