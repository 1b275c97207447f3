/* test_control_ad.c — autodiff through control flow: reverse mode of scan
 * (an RNN, against the unrolled program and finite differences), cond and
 * switch (piecewise functions), fori_loop; forward mode of while_loop
 * (Newton's sqrt against the closed form) and its reverse-mode error;
 * scan(checkpoint(step)) keeping only the carries; jit of all of it. */
#include <math.h>
#include <stdlib.h>

#include "ad_check.h"
#include "control/control.h" /* the count of records made, for the reuse test */
#include "harness.h"
#include "test_util.h"

static double at(cj_val v, int64_t i) {
    double buf[1024];
    if (cj_val_size(v) > 1024 || cj_read_as(v, CJ_F64, buf, sizeof(double) * (size_t)cj_val_size(v)) != CJ_OK)
        return NAN;
    return buf[i];
}

/* ---- an RNN: h' = tanh(W h + x_t), y_t = sum(sin h'); loss = |h_T|^2 + sum y ---- */
#define T_STEPS 6
#define H 4

typedef struct rnn {
    cj_func *cell;
    cj_val W; /* set by the loss: the cell closes over it */
} rnn;

static void rnn_cell(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    rnn *r = u;
    (void)ctx;
    cj_val h = cj_tanh(cj_add(cj_matmul(r->W, in[0]), in[1]));
    out[0] = h;
    out[1] = cj_sum(cj_sin(h), 0, NULL, 0);
}

static void rnn_loss(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    rnn *r = u;
    (void)ctx;
    r->W = in[0];
    cj_val hT, ys;
    cj_scan(r->cell, 1, &in[1], 1, &in[2], NULL, &hT, &ys);
    out[0] = cj_add(cj_sum(cj_mul(hT, hT), 0, NULL, 0), cj_sum(ys, 0, NULL, 0));
}

static void rnn_loss_unrolled(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    cj_val h = in[1], acc = cj_scalar_typed(ctx, 0, CJ_F64);
    for (int t = 0; t < T_STEPS; t++) {
        int64_t ax = 0;
        cj_val xt = cj_squeeze(cj_slice(in[2], (int64_t[]){t, 0}, (int64_t[]){t + 1, H}, NULL), 1, &ax);
        h = cj_tanh(cj_add(cj_matmul(in[0], h), xt));
        acc = cj_add(acc, cj_sum(cj_sin(h), 0, NULL, 0));
    }
    out[0] = cj_add(cj_sum(cj_mul(h, h), 0, NULL, 0), acc);
}

static void rnn_inputs(cj_ctx *ctx, cj_val *in, uint64_t seed) {
    in[0] = adc_uniform(ctx, 2, (int64_t[]){H, H}, -0.6, 0.6, &seed);
    in[1] = adc_uniform(ctx, 1, (int64_t[]){H}, -0.5, 0.5, &seed);
    in[2] = adc_uniform(ctx, 2, (int64_t[]){T_STEPS, H}, -1, 1, &seed);
}

TEST(cf_ad_scan_rnn_gradient) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    static rnn r;
    r.cell = cj_func_new(ctx, "cell", rnn_cell, 2, 2, &r);
    cj_func *loss = cj_func_new(ctx, "rnn", rnn_loss, 3, 1, &r);
    cj_func *unrolled = cj_func_new(ctx, "unrolled", rnn_loss_unrolled, 3, 1, NULL);
    int argnums[3] = {0, 1, 2};
    cj_grad_opts go = {3, argnums, 0};
    cj_val in[3], g[3], gu[3], gj[3];
    rnn_inputs(ctx, in, 17);
    CHECK(cj_call(cj_grad(loss, &go), in, g) == CJ_OK);
    CHECK(cj_call(cj_grad(unrolled, &go), in, gu) == CJ_OK);
    CHECK(cj_call(cj_jit(cj_grad(loss, &go), NULL), in, gj) == CJ_OK);
    for (int k = 0; k < 3; k++)
        for (int64_t i = 0; i < cj_val_size(in[k]); i++) {
            CHECK_NEAR(at(g[k], i), at(gu[k], i), 1e-12, 1e-13);
            CHECK_NEAR(at(gj[k], i), at(gu[k], i), 1e-12, 1e-13);
        }
    /* and against central differences, element by element of W */
    double w[H * H];
    CHECK(cj_read(in[0], w, sizeof w) == CJ_OK);
    for (int i = 0; i < H * H; i++) {
        double h = 1e-6, fp, fm;
        cj_val args[3] = {in[0], in[1], in[2]}, y;
        w[i] += h;
        args[0] = cj_array(ctx, CJ_F64, 2, (int64_t[]){H, H}, w);
        cj_call(loss, args, &y);
        cj_item(y, &fp);
        w[i] -= 2 * h;
        args[0] = cj_array(ctx, CJ_F64, 2, (int64_t[]){H, H}, w);
        cj_call(loss, args, &y);
        cj_item(y, &fm);
        w[i] += h;
        CHECK_NEAR(at(g[0], i), (fp - fm) / (2 * h), 1e-6, 1e-8);
    }
    cj_ctx_free(ctx);
}

/* forward mode through the scan agrees with reverse mode */
TEST(cf_ad_scan_jvp_vjp_consistency) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    static rnn r;
    r.cell = cj_func_new(ctx, "cell", rnn_cell, 2, 2, &r);
    cj_func *loss = cj_func_new(ctx, "rnn", rnn_loss, 3, 1, &r);
    cj_val in[3], v[3], y, t, y2, ct[3];
    rnn_inputs(ctx, in, 3);
    rnn_inputs(ctx, v, 4);
    CHECK(cj_jvp(loss, in, v, &y, &t) == CJ_OK);
    cj_func *pb = cj_vjp(loss, in, &y2);
    CHECK(pb != NULL);
    CHECK(cj_call(pb, (cj_val[]){cj_scalar_typed(ctx, 1, CJ_F64)}, ct) == CJ_OK);
    double lhs = cj_item_or_nan(t), rhs = 0;
    for (int k = 0; k < 3; k++) rhs += adc_dot(ct[k], v[k]);
    CHECK_NEAR(lhs, rhs, 1e-12, 1e-13);
    cj_func_free(pb);
    cj_ctx_free(ctx);
}

/* ---- cond and switch: piecewise functions ---- */
static void br_sin(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_sin(in[0]);
}
static void br_sq(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_mul(in[0], in[0]);
}
static void br_exp(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_exp(in[0]);
}

typedef struct pw {
    cj_func *br[3];
} pw;

/* x > 0 ? sin x : x^2 */
static void f_cond(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    pw *p = u;
    cj_cond(cj_gt(in[0], cj_scalar(ctx, 0.0)), p->br[0], p->br[1], 1, in, out);
}
/* switch on floor(x) + 1 (clamped into 0..2): x^2, sin x, exp x */
static void f_switch(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    pw *p = u;
    cj_val idx = cj_astype(cj_add(cj_floor(in[0]), cj_scalar(ctx, 1.0)), CJ_I32);
    cj_func *order[3] = {p->br[1], p->br[0], p->br[2]};
    cj_switch(idx, 3, order, 1, in, out);
}

TEST(cf_ad_cond_switch_piecewise) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    static pw p;
    p.br[0] = cj_func_new(ctx, "sin", br_sin, 1, 1, NULL);
    p.br[1] = cj_func_new(ctx, "sq", br_sq, 1, 1, NULL);
    p.br[2] = cj_func_new(ctx, "exp", br_exp, 1, 1, NULL);
    cj_func *gc = cj_grad(cj_func_new(ctx, "cond", f_cond, 1, 1, &p), NULL);
    cj_func *gs = cj_grad(cj_func_new(ctx, "switch", f_switch, 1, 1, &p), NULL);
    cj_func *jgc = cj_jit(gc, NULL), *jgs = cj_jit(gs, NULL);
    double xs[6] = {-2.5, -0.5, 0.25, 0.75, 1.5, 3.0};
    for (int i = 0; i < 6; i++) {
        double x = xs[i];
        cj_val xv = cj_scalar_typed(ctx, x, CJ_F64), d1, d2, d3, d4;
        CHECK(cj_call(gc, &xv, &d1) == CJ_OK);
        CHECK(cj_call(jgc, &xv, &d2) == CJ_OK);
        CHECK(cj_call(gs, &xv, &d3) == CJ_OK);
        CHECK(cj_call(jgs, &xv, &d4) == CJ_OK);
        double want_c = x > 0 ? cos(x) : 2 * x;
        int b = (int)floor(x) + 1;
        b = b < 0 ? 0 : b > 2 ? 2 : b;
        double want_s = b == 0 ? 2 * x : b == 1 ? cos(x) : exp(x);
        CHECK_NEAR(cj_item_or_nan(d1), want_c, 1e-15, 0);
        CHECK_NEAR(cj_item_or_nan(d2), want_c, 1e-15, 0);
        CHECK_NEAR(cj_item_or_nan(d3), want_s, 1e-15, 0);
        CHECK_NEAR(cj_item_or_nan(d4), want_s, 1e-15, 0);
    }
    /* second derivative through the cond: x > 0 ? -sin x : 2 */
    cj_val xv = cj_scalar_typed(ctx, 0.5, CJ_F64), d2;
    CHECK(cj_call(cj_grad(gc, NULL), &xv, &d2) == CJ_OK);
    CHECK_NEAR(cj_item_or_nan(d2), -sin(0.5), 1e-15, 0);
    cj_ctx_free(ctx);
}

/* ---- fori_loop: x -> x^8 by three squarings ---- */
static void sq_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_mul(in[1], in[1]); /* in[0] is the index */
}
static void f_pow8(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx;
    cj_fori_loop(0, 3, u, 1, in, out);
}

TEST(cf_ad_fori_loop_gradient) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *body = cj_func_new(ctx, "square", sq_body, 2, 1, NULL);
    cj_func *g = cj_grad(cj_func_new(ctx, "pow8", f_pow8, 1, 1, body), NULL);
    cj_val x = cj_scalar_typed(ctx, 1.1, CJ_F64), d, dj;
    CHECK(cj_call(g, &x, &d) == CJ_OK);
    CHECK(cj_call(cj_jit(g, NULL), &x, &dj) == CJ_OK);
    CHECK_NEAR(cj_item_or_nan(d), 8 * pow(1.1, 7), 1e-14, 0);
    CHECK_NEAR(cj_item_or_nan(dj), 8 * pow(1.1, 7), 1e-14, 0);
    cj_ctx_free(ctx);
}

/* ---- while_loop: Newton's sqrt; forward mode only ---- */
static void newton_cond(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    out[0] = cj_gt(cj_abs(cj_sub(cj_mul(in[0], in[0]), in[1])), cj_scalar(ctx, 1e-14));
}
static void newton_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    out[0] = cj_mul(cj_scalar(ctx, 0.5), cj_add(in[0], cj_div(in[1], in[0])));
    out[1] = in[1];
}
typedef struct newton {
    cj_func *cond, *body;
} newton;
static void f_sqrt(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    newton *n = u;
    cj_val init[2] = {cj_ones_like(in[0]), in[0]}, res[2];
    (void)ctx;
    cj_while_loop(n->cond, n->body, 2, init, res);
    out[0] = res[0];
}

TEST(cf_ad_while_jvp_and_reverse_error) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    static newton n;
    n.cond = cj_func_new(ctx, "cond", newton_cond, 2, 1, NULL);
    n.body = cj_func_new(ctx, "body", newton_body, 2, 2, NULL);
    cj_func *f = cj_func_new(ctx, "sqrt", f_sqrt, 1, 1, &n);
    cj_val a = cj_scalar_typed(ctx, 2.0, CJ_F64), t = cj_scalar_typed(ctx, 1.0, CJ_F64), y, dy;
    CHECK(cj_jvp(f, &a, &t, &y, &dy) == CJ_OK);
    CHECK_NEAR(cj_item_or_nan(y), sqrt(2.0), 1e-15, 0);
    /* Newton converged: the derivative of its fixed point, 1 / (2 sqrt a) */
    CHECK_NEAR(cj_item_or_nan(dy), 0.5 / sqrt(2.0), 1e-12, 0);
    cj_val d;
    CHECK_MSG(cj_call(cj_grad(f, NULL), &a, &d) == CJ_ERR_UNSUPPORTED, "%s", cj_error_message(ctx));
    CHECK(strstr(cj_error_message(ctx), "fori_loop") != NULL);
    cj_ctx_free(ctx);
}

/* ---- scan(checkpoint(step)): only carries are saved ---- */
static void sin_cell(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    rnn *r = u;
    (void)ctx;
    /* sin(cos(W h + x)): its tangent needs values made inside the step */
    out[0] = cj_sin(cj_cos(cj_add(cj_matmul(r->W, in[0]), in[1])));
}
static void scan_final(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    rnn *r = u;
    (void)ctx;
    r->W = in[0];
    cj_val hT;
    cj_scan(r->cell, 1, &in[1], 1, &in[2], NULL, &hT, NULL);
    out[0] = cj_sum(hT, 0, NULL, 0);
}

TEST(cf_ad_scan_checkpoint_saves_carries) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    static rnn plain, ck;
    plain.cell = cj_func_new(ctx, "cell", sin_cell, 2, 1, &plain);
    ck.cell = cj_checkpoint(cj_func_new(ctx, "cell", sin_cell, 2, 1, &ck), NULL);
    cj_func *f1 = cj_func_new(ctx, "scan", scan_final, 3, 1, &plain);
    cj_func *f2 = cj_func_new(ctx, "scan_ck", scan_final, 3, 1, &ck);
    cj_spec spec[3] = {cj_spec_make(CJ_F64, 2, (int64_t[]){H, H}), cj_spec_make(CJ_F64, 1, (int64_t[]){H}),
                       cj_spec_make(CJ_F64, 2, (int64_t[]){T_STEPS, H})};
    size_t b1, b2;
    char *r1 = cj_saved_residuals(f1, NULL, 3, spec, &b1), *r2 = cj_saved_residuals(f2, NULL, 3, spec, &b2);
    CHECK(r1 && r2);
    /* checkpointed: per step only the carry (T_STEPS x H) besides the
     * arguments; plain: more per-step values */
    CHECK_MSG(b2 < b1, "checkpointed %zu bytes vs %zu:\n%s\n%s", b2, b1, r2, r1);
    CHECK(strstr(r2, "f64[6,4]") != NULL);
    cj_val in[3], g1, g2;
    rnn_inputs(ctx, in, 9);
    CHECK(cj_call(cj_grad(f1, NULL), in, &g1) == CJ_OK);
    CHECK(cj_call(cj_grad(f2, NULL), in, &g2) == CJ_OK);
    for (int i = 0; i < H * H; i++) CHECK_NEAR(at(g1, i), at(g2, i), 0, 0);
    cj_string_free(ctx, r1);
    cj_string_free(ctx, r2);
    cj_ctx_free(ctx);
}

/* ---- composition: per-example gradients through a scan ---- */
TEST(cf_ad_vmap_of_grad_of_scan) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    static rnn r;
    r.cell = cj_func_new(ctx, "cell", rnn_cell, 2, 2, &r);
    cj_func *loss = cj_func_new(ctx, "rnn", rnn_loss, 3, 1, &r);
    cj_func *g = cj_grad(loss, NULL); /* d loss / d W */
    enum { B = 3 };
    uint64_t seed = 31;
    cj_val in[3];
    rnn_inputs(ctx, in, 5);
    cj_val xs_b = adc_uniform(ctx, 3, (int64_t[]){B, T_STEPS, H}, -1, 1, &seed);
    int64_t axes[3] = {CJ_NOT_MAPPED, CJ_NOT_MAPPED, 0};
    cj_vmap_opts vo = {axes, NULL, 0, 0, 0};
    cj_val per, per_jit;
    CHECK(cj_call(cj_vmap(g, &vo), (cj_val[]){in[0], in[1], xs_b}, &per) == CJ_OK);
    CHECK(cj_call(cj_jit(cj_vmap(g, &vo), NULL), (cj_val[]){in[0], in[1], xs_b}, &per_jit) == CJ_OK);
    CHECK_EQ_INT(cj_val_dim(per, 0), B);
    for (int64_t b = 0; b < B; b++) {
        int64_t ax = 0;
        cj_val xb = cj_squeeze(cj_slice(xs_b, (int64_t[]){b, 0, 0}, (int64_t[]){b + 1, T_STEPS, H}, NULL), 1, &ax), d;
        CHECK(cj_call(g, (cj_val[]){in[0], in[1], xb}, &d) == CJ_OK);
        for (int i = 0; i < H * H; i++) {
            CHECK_NEAR(at(per, b * H * H + i), at(d, i), 1e-12, 1e-13);
            CHECK_NEAR(at(per_jit, b * H * H + i), at(d, i), 1e-12, 1e-13);
        }
    }
    cj_ctx_free(ctx);
}

/* grad of a vmapped scan: the gradient of the batch's summed loss */
static void f_sum_vmapped(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    cj_val per;
    (void)ctx;
    cj_call(u, in, &per);
    out[0] = cj_sum(per, 0, NULL, 0);
}

TEST(cf_ad_grad_of_vmap_of_scan) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    static rnn r;
    r.cell = cj_func_new(ctx, "cell", rnn_cell, 2, 2, &r);
    cj_func *loss = cj_func_new(ctx, "rnn", rnn_loss, 3, 1, &r);
    enum { B = 2 };
    uint64_t seed = 8;
    cj_val in[3];
    rnn_inputs(ctx, in, 6);
    cj_val xs_b = adc_uniform(ctx, 3, (int64_t[]){B, T_STEPS, H}, -1, 1, &seed);
    int64_t axes[3] = {CJ_NOT_MAPPED, CJ_NOT_MAPPED, 0};
    cj_vmap_opts vo = {axes, NULL, 0, 0, 0};
    cj_func *summed = cj_func_new(ctx, "summed", f_sum_vmapped, 3, 1, cj_vmap(loss, &vo));
    cj_val dW, want = cj_zeros(ctx, CJ_F64, 2, (int64_t[]){H, H});
    CHECK(cj_call(cj_grad(summed, NULL), (cj_val[]){in[0], in[1], xs_b}, &dW) == CJ_OK);
    for (int64_t b = 0; b < B; b++) {
        int64_t ax = 0;
        cj_val xb = cj_squeeze(cj_slice(xs_b, (int64_t[]){b, 0, 0}, (int64_t[]){b + 1, T_STEPS, H}, NULL), 1, &ax), d;
        CHECK(cj_call(cj_grad(loss, NULL), (cj_val[]){in[0], in[1], xb}, &d) == CJ_OK);
        want = cj_add(want, d);
    }
    for (int i = 0; i < H * H; i++) CHECK_NEAR(at(dW, i), at(want, i), 1e-12, 1e-13);
    cj_ctx_free(ctx);
}

/* ---- a construct run again keeps its record and compiled bodies ---- */
TEST(cf_records_reused_across_calls) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    static rnn r;
    r.cell = cj_func_new(ctx, "cell", rnn_cell, 2, 2, &r);
    cj_func *loss = cj_func_new(ctx, "rnn", rnn_loss, 3, 1, &r);
    cj_val in[3], y;
    rnn_inputs(ctx, in, 2);
    CHECK(cj_call(loss, in, &y) == CJ_OK);
    long after_first = cf_records_made_for_testing();
    long live_after_first = cf_records_live_for_testing();
    double first = cj_item_or_nan(y);
    for (int i = 0; i < 20; i++) {
        /* new weights each time: read from outside the body, so not baked in */
        cj_scope_begin(ctx);
        cj_val w2 = cj_mul(in[0], cj_scalar_typed(ctx, 1.0 + i * 0.01, CJ_F64)), y2;
        CHECK(cj_call(loss, (cj_val[]){w2, in[1], in[2]}, &y2) == CJ_OK);
        if (i == 0) CHECK_NEAR(cj_item_or_nan(y2), first, 0, 0);
        if (i == 5) CHECK(fabs(cj_item_or_nan(y2) - first) > 1e-6);
        cj_scope_end(ctx, 0, NULL);
    }
    /* each call traces a record and finds it equal to the one the cell
     * remembers: that one (its bodies compiled) runs, the new one is dropped */
    CHECK_EQ_INT(cf_records_live_for_testing(), live_after_first);
    CHECK(cf_records_made_for_testing() > after_first);
    cj_ctx_free(ctx);
}

/* ---- the "safe function" pattern under vmap: the untaken branch gets no
 * gradient (JAX's batched cond passes each branch its operands behind a
 * stop_gradient where the example takes another branch, jax#1052) ---- */
typedef struct safe_fn {
    cj_func *br[3];
    cj_val x; /* the branches read x from their closure */
    int via_operand; /* or take it as their operand */
    int n_branches;
} safe_fn;

static cj_val safe_x(const safe_fn *s, const cj_val *in) { return s->via_operand ? in[0] : s->x; }
static void br_small(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)in, (void)u;
    out[0] = cj_scalar_typed(ctx, 1e-3, CJ_F32);
}
static void br_root(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx;
    out[0] = cj_sqrt(safe_x(u, in));
}
static void br_log(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx;
    out[0] = cj_log(safe_x(u, in));
}
/* cond(x < 1e-3, 1e-3, sqrt x); with three branches
 * switch(x < 1e-3 ? 0 : x < 1 ? 1 : 2, [1e-3, sqrt x, log x]) */
static void f_safe(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    safe_fn *s = u;
    s->x = in[0];
    int n = s->via_operand;
    cj_val small = cj_lt(in[0], cj_scalar(ctx, 1e-3));
    if (s->n_branches == 2) {
        /* cj_cond(pred, true_f, false_f) */
        cj_cond(small, s->br[0], s->br[1], n, in, out);
        return;
    }
    cj_val idx = cj_where(small, cj_scalar_typed(ctx, 0, CJ_I32),
                          cj_where(cj_lt(in[0], cj_scalar(ctx, 1)), cj_scalar_typed(ctx, 1, CJ_I32),
                                   cj_scalar_typed(ctx, 2, CJ_I32)));
    cj_func *order[3] = {s->br[0], s->br[1], s->br[2]};
    cj_switch(idx, 3, order, n, in, out);
}

TEST(cf_ad_vmap_cond_untaken_branch_gets_no_gradient) {
    /* jax.grad(lambda v: jnp.sum(jax.vmap(f)(v)))(x) with JAX 0.10.2, the
     * same with jax.jit around the grad or around the vmap: for x = 0, 0.5,
     * 4, 1e-4: [0, 0.70710677, 0.25, 0], for the cond and the switch alike
     * (the switch's log branch is taken by no example: 1/x, its derivative,
     * is inf at 0) */
    const float xs[4] = {0.0f, 0.5f, 4.0f, 1e-4f};
    const float want[4] = {0.0f, 0.70710677f, 0.25f, 0.0f};
    for (int nb = 2; nb <= 3; nb++)
        for (int via = 0; via < 2; via++)
            for (int mode = 0; mode < 3; mode++) {
                cj_ctx *ctx = cj_ctx_new(NULL);
                static safe_fn s;
                s.via_operand = via;
                s.n_branches = nb;
                s.br[0] = cj_func_new(ctx, "small", br_small, via, 1, &s);
                s.br[1] = cj_func_new(ctx, "root", br_root, via, 1, &s);
                s.br[2] = cj_func_new(ctx, "log", br_log, via, 1, &s);
                cj_func *f = cj_vmap(cj_func_new(ctx, "safe", f_safe, 1, 1, &s), NULL);
                if (mode == 2) f = cj_jit(f, NULL); /* grad of a jitted vmap */
                cj_func *g = cj_grad(cj_func_new(ctx, "summed", f_sum_vmapped, 1, 1, f), NULL);
                if (mode == 1) g = cj_jit(g, NULL); /* jit of the grad */
                cj_val x = tu_f32(ctx, 1, (int64_t[]){4}, xs), d;
                CHECK_MSG(cj_call(g, &x, &d) == CJ_OK, "%s", cj_error_message(ctx));
                for (int i = 0; i < 4; i++)
                    CHECK_MSG(fabs(at(d, i) - want[i]) <= 1e-7 * want[i], "%d branches, %s, mode %d, x = %g: %g, JAX %g",
                              nb, via ? "operand" : "closure", mode, xs[i], at(d, i), want[i]);
                cj_ctx_free(ctx);
            }
}

/* ---- a cond's residual slots are shared by type between branches ----
 * Only one branch runs, so (as JAX's _merge_branch_residuals) branch b's
 * k-th residual of a type shares a slot with the other branches' k-th of
 * that type. Four branches of 20 sines have 20 f64[3] residuals each: 80
 * slots of their own, more than the 64 values a cond's known half
 * returns, so grad refused it; shared, 20. */
#define SINES 20
static void br_sines(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    cj_val x = in[0];
    for (int k = 0; k < SINES; k++) x = cj_sin(x);
    out[0] = cj_mul(x, cj_scalar_typed(ctx, (double)(intptr_t)u, CJ_F64));
}
static void f_switch_sines(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    cj_val idx = cj_astype(cj_sum(in[1], 0, NULL, 0), CJ_I32), y;
    (void)ctx;
    cj_switch(idx, 4, u, 1, in, &y);
    out[0] = cj_sum(y, 0, NULL, 0);
}

TEST(cf_ad_cond_branches_share_residual_slots) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *br[4];
    for (intptr_t b = 0; b < 4; b++) br[b] = cj_func_new(ctx, "sines", br_sines, 1, 1, (void *)(b + 1));
    cj_func *f = cj_func_new(ctx, "switch_sines", f_switch_sines, 2, 1, br);
    cj_func *g = cj_grad(f, NULL), *jg = cj_jit(g, NULL);
    const double xs[3] = {0.3, -1.1, 2.0};
    for (int b = 0; b < 4; b++) {
        cj_val in[2] = {cj_array(ctx, CJ_F64, 1, (int64_t[]){3}, xs), cj_scalar_typed(ctx, b, CJ_F64)}, d, dj;
        CHECK_MSG(cj_call(g, in, &d) == CJ_OK, "%s", cj_error_message(ctx));
        CHECK_MSG(cj_call(jg, in, &dj) == CJ_OK, "%s", cj_error_message(ctx));
        for (int i = 0; i < 3; i++) {
            double x = xs[i], want = b + 1;
            for (int k = 0; k < SINES; k++) want *= cos(x), x = sin(x);
            CHECK_NEAR(at(d, i), want, 1e-13, 1e-15);
            CHECK_NEAR(at(dj, i), want, 1e-13, 1e-15);
        }
    }
    cj_ctx_free(ctx);
}

/* ---- an RK4 integrator by scan, written as a control user writes it: the
 * state's components as slices, the derivative stacked back with
 * concatenate. Its step's linearization keeps more than 64 residuals,
 * which reverse mode once refused (bench row ode_grad). ---- */
#define RK4_STEPS 25

static cj_val rk4_part(cj_val s, int64_t i) {
    int64_t ax = 0;
    return cj_squeeze(cj_slice(s, (int64_t[]){i}, (int64_t[]){i + 1}, NULL), 1, &ax);
}

/* A damped pendulum on a cart: s = (x, v, th, w), p = (k, c, g, b). */
static cj_val rk4_deriv(cj_val s, cj_val p) {
    cj_val v = rk4_part(s, 1), th = rk4_part(s, 2), w = rk4_part(s, 3);
    cj_val acc = cj_sub(cj_mul(rk4_part(p, 0), cj_sin(th)), cj_mul(rk4_part(p, 1), v));
    cj_val alpha = cj_sub(cj_neg(cj_mul(rk4_part(p, 2), cj_sin(th))),
                          cj_add(cj_mul(rk4_part(p, 3), w), cj_mul(acc, cj_cos(th))));
    cj_val d[4] = {cj_expand_dims(v, 0), cj_expand_dims(acc, 0), cj_expand_dims(w, 0), cj_expand_dims(alpha, 0)};
    return cj_concatenate(4, d, 0);
}

static void rk4_step(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    cj_val s = in[0], p = in[1], h = cj_scalar_typed(ctx, 0.05, CJ_F64), half = cj_scalar_typed(ctx, 0.025, CJ_F64);
    cj_val k1 = rk4_deriv(s, p);
    cj_val k2 = rk4_deriv(cj_add(s, cj_mul(half, k1)), p);
    cj_val k3 = rk4_deriv(cj_add(s, cj_mul(half, k2)), p);
    cj_val k4 = rk4_deriv(cj_add(s, cj_mul(h, k3)), p);
    cj_val sum = cj_add(cj_add(k1, k4), cj_mul(cj_scalar_typed(ctx, 2, CJ_F64), cj_add(k2, k3)));
    out[0] = cj_add(s, cj_mul(cj_scalar_typed(ctx, 0.05 / 6, CJ_F64), sum));
    out[1] = p;
}

static void rk4_loss(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx;
    cj_func *step = u;
    cj_val carry[2];
    cj_scan_opts so = {.length = RK4_STEPS, .has_length = 1};
    cj_scan(step, 2, in, 0, NULL, &so, carry, NULL);
    out[0] = cj_sum(cj_mul(carry[0], carry[0]), 0, NULL, 0);
}

/* The same loss on plain doubles, for central differences. */
static void rk4_deriv_c(const double *s, const double *p, double *d) {
    double acc = p[0] * sin(s[2]) - p[1] * s[1];
    d[0] = s[1], d[1] = acc, d[2] = s[3];
    d[3] = -(p[2] * sin(s[2])) - (p[3] * s[3] + acc * cos(s[2]));
}

static double rk4_loss_c(const double *s0, const double *p) {
    double s[4], k[4][4], t[4];
    for (int i = 0; i < 4; i++) s[i] = s0[i];
    for (int n = 0; n < RK4_STEPS; n++) {
        rk4_deriv_c(s, p, k[0]);
        for (int i = 0; i < 4; i++) t[i] = s[i] + 0.025 * k[0][i];
        rk4_deriv_c(t, p, k[1]);
        for (int i = 0; i < 4; i++) t[i] = s[i] + 0.025 * k[1][i];
        rk4_deriv_c(t, p, k[2]);
        for (int i = 0; i < 4; i++) t[i] = s[i] + 0.05 * k[2][i];
        rk4_deriv_c(t, p, k[3]);
        for (int i = 0; i < 4; i++) s[i] += 0.05 / 6 * (k[0][i] + k[3][i] + 2 * (k[1][i] + k[2][i]));
    }
    return s[0] * s[0] + s[1] * s[1] + s[2] * s[2] + s[3] * s[3];
}

TEST(cf_ad_scan_rk4_many_residuals_matches_finite_differences) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *step = cj_func_new(ctx, "rk4_step", rk4_step, 2, 2, NULL);
    cj_func *loss = cj_func_new(ctx, "rk4_loss", rk4_loss, 2, 1, step);
    double s0[4] = {0.1, -0.2, 0.8, 0.3}, p[4] = {0.7, 0.2, 9.8, 0.1};
    cj_val in[2] = {cj_array(ctx, CJ_F64, 1, (int64_t[]){4}, s0), cj_array(ctx, CJ_F64, 1, (int64_t[]){4}, p)};
    int argnums[2] = {0, 1};
    cj_grad_opts go = {2, argnums, 0};
    cj_jit_opts interp = {.backend = CJ_BACKEND_INTERP}, cc = {.backend = CJ_BACKEND_CC};
    cj_func *modes[3] = {cj_grad(loss, &go), cj_jit(cj_grad(loss, &go), &interp), cj_jit(cj_grad(loss, &go), &cc)};
    const char *names[3] = {"eager", "jit interp", "jit cc"};
    for (int m = 0; m < 3; m++) {
        cj_val g[2];
        CHECK_MSG(cj_call(modes[m], in, g) == CJ_OK, "%s: %s", names[m], cj_error_message(ctx));
        for (int a = 0; a < 2; a++)
            for (int i = 0; i < 4; i++) {
                double sp[4], pp[4], sm[4], pm[4], h = 1e-6;
                for (int q = 0; q < 4; q++) sp[q] = sm[q] = s0[q], pp[q] = pm[q] = p[q];
                (a == 0 ? sp : pp)[i] += h;
                (a == 0 ? sm : pm)[i] -= h;
                double fd = (rk4_loss_c(sp, pp) - rk4_loss_c(sm, pm)) / (2 * h);
                CHECK_MSG(fabs(at(g[a], i) - fd) <= 1e-6 * (1 + fabs(fd)), "%s: d/d%s[%d] %.12g vs %.12g", names[m],
                          a ? "p" : "s0", i, at(g[a], i), fd);
            }
    }
    cj_ctx_free(ctx);
}
