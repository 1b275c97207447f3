/* test_cost_control.c — cj_jit_cost_analysis of control flow (analysis.c):
 * a scan counts its body once per step, a while loop its condition and
 * body once (the trip count is not known before it runs, as XLA's
 * HloCostAnalysis counts it), a cond the most any branch costs, figure by
 * figure (XLA's rule). Each against a hand count from the cost classes: a
 * flop per element of add, mul and compare, a transcendental per tanh
 * element and no flop; bytes: each kernel's buffers read and written once
 * (rank-0 constants included). */
#include "harness.h"
#include "test_util.h"

/* (h, x) -> (tanh(h*x + 0.5), 2 tanh(h*x + 0.5)) over f32[8] */
static void scan_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    out[0] = cj_tanh(cj_add(cj_mul(in[0], in[1]), cj_scalar(ctx, 0.5)));
    out[1] = cj_mul(out[0], cj_scalar(ctx, 2.0));
}

static void f_scan(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx;
    cj_scan(u, 1, &in[0], 1, &in[1], NULL, &out[0], &out[1]);
}

TEST(cost_analysis_counts_a_scan_body_per_step) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *body = cj_func_new(ctx, "body", scan_body, 2, 2, NULL);
    cj_func *jf = cj_jit(cj_func_new(ctx, "scan", f_scan, 2, 2, body), NULL);
    cj_val in[2] = {tu_ramp(ctx, 8, 0.1f, 0), cj_reshape(tu_ramp(ctx, 800, 1e-3f, 0), 2, (int64_t[]){100, 8})};
    cj_cost_analysis c;
    CHECK_MSG(cj_jit_cost_analysis(jf, in, &c) == CJ_OK, "%s", cj_error_message(ctx));
    /* per step: mul, add, mul by 2 over 8 elements = 24 flops, 8 tanh;
     * 100 steps */
    CHECK_NEAR(c.flops, 100 * 24, 0, 0);
    CHECK_NEAR(c.transcendentals, 100 * 8, 0, 0);
    /* the scan's kernel: h0 (32 B), xs (3200), the final h (32), ys
     * (3200); per step the body's one loop kernel reads h, x (32 each) and
     * the constants 0.5 and 2 (4 each) and writes h' and y (32 each): 136 */
    CHECK_NEAR(c.bytes_accessed, 32 + 3200 + 32 + 3200 + 100 * 136, 0, 0);
    cj_ctx_free(ctx);
}

/* while i < 10: (i + 1, 1.5 h) */
static void w_cond(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    out[0] = cj_lt(in[0], cj_scalar_int(ctx, 10));
}
static void w_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    out[0] = cj_add(in[0], cj_scalar_int(ctx, 1));
    out[1] = cj_mul(in[1], cj_scalar(ctx, 1.5));
}
static cj_func *w_fns[2];
static void f_while(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    cj_while_loop(w_fns[0], w_fns[1], 2, in, out);
}

TEST(cost_analysis_counts_a_while_body_once) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    w_fns[0] = cj_func_new(ctx, "cond", w_cond, 2, 1, NULL);
    w_fns[1] = cj_func_new(ctx, "body", w_body, 2, 2, NULL);
    cj_func *jf = cj_jit(cj_func_new(ctx, "while", f_while, 2, 2, NULL), NULL);
    cj_val in[2] = {cj_scalar_typed(ctx, 0, CJ_I32), tu_ramp(ctx, 8, 0.1f, 0)};
    cj_cost_analysis c;
    CHECK_MSG(cj_jit_cost_analysis(jf, in, &c) == CJ_OK, "%s", cj_error_message(ctx));
    /* once, although it runs ten times: the compare (1), i + 1 (1), 1.5 h (8) */
    CHECK_NEAR(c.flops, 1 + 1 + 8, 0, 0);
    CHECK_NEAR(c.transcendentals, 0, 0, 0);
    /* the loop's kernel: i and h in and out (4 + 32, twice); the
     * condition reads i and 10 and writes a bool (4 + 4 + 1); the body
     * reads i, 1, h, 1.5 and writes i', h' (4 + 4 + 32 + 4 + 4 + 32) */
    CHECK_NEAR(c.bytes_accessed, 2 * 36 + 9 + 80, 0, 0);
    /* and it does run ten times */
    cj_val out[2];
    CHECK(cj_call(jf, in, out) == CJ_OK);
    double i;
    CHECK(cj_item(out[0], &i) == CJ_OK);
    CHECK_NEAR(i, 10, 0, 0);
    cj_ctx_free(ctx);
}

static void c_true(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_tanh(in[0]);
}
static void c_false(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_add(cj_mul(in[0], in[0]), in[0]);
}
static cj_func *c_fns[2];
static void f_cond(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    cj_cond(in[0], c_fns[0], c_fns[1], 1, &in[1], out);
}

TEST(cost_analysis_counts_the_costliest_cond_branch_per_figure) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    c_fns[0] = cj_func_new(ctx, "tanh", c_true, 1, 1, NULL);
    c_fns[1] = cj_func_new(ctx, "poly", c_false, 1, 1, NULL);
    cj_func *jf = cj_jit(cj_func_new(ctx, "cond", f_cond, 2, 1, NULL), NULL);
    cj_val in[2] = {cj_scalar_typed(ctx, 1, CJ_BOOL), tu_ramp(ctx, 8, 0.1f, 0)};
    cj_cost_analysis c;
    CHECK_MSG(cj_jit_cost_analysis(jf, in, &c) == CJ_OK, "%s", cj_error_message(ctx));
    /* flops from the polynomial branch (16), transcendentals from tanh's (8) */
    CHECK_NEAR(c.flops, 16, 0, 0);
    CHECK_NEAR(c.transcendentals, 8, 0, 0);
    /* the cond's kernel: the predicate (1), x and the result (32 each);
     * each branch one loop kernel reading x and writing its result: 64 */
    CHECK_NEAR(c.bytes_accessed, 1 + 32 + 32 + 64, 0, 0);
    cj_ctx_free(ctx);
}

/* A scan inside a scan: the inner body's cost times both lengths. */
static void inner_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    out[0] = cj_mul(in[0], cj_scalar(ctx, 1.5)); /* 8 flops */
}
static void outer_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    cj_scan_opts o = {3, 1, 0};
    cj_val h;
    cj_scan(u, 1, &in[0], 0, NULL, &o, &h, NULL);
    out[0] = cj_add(h, cj_scalar(ctx, 1.0)); /* 8 flops */
}
static void f_nested(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx;
    cj_scan_opts o = {5, 1, 0};
    cj_scan(u, 1, &in[0], 0, NULL, &o, &out[0], NULL);
}

TEST(cost_analysis_multiplies_nested_scan_lengths) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *inner = cj_func_new(ctx, "inner", inner_body, 1, 1, NULL);
    cj_func *outer = cj_func_new(ctx, "outer", outer_body, 1, 1, inner);
    cj_func *jf = cj_jit(cj_func_new(ctx, "nested", f_nested, 1, 1, outer), NULL);
    cj_val x = tu_ramp(ctx, 8, 0.1f, 0);
    cj_cost_analysis c;
    CHECK_MSG(cj_jit_cost_analysis(jf, &x, &c) == CJ_OK, "%s", cj_error_message(ctx));
    CHECK_NEAR(c.flops, 5 * (3 * 8 + 8), 0, 0);
    cj_ctx_free(ctx);
}
