/* test_plan_scratch.c — outputs (and donated inputs) as scratch in the
 * buffer planner (plan.c): a temporary dead before an output is written
 * lives in that output's buffer, and in a donated input's only after the
 * input's last read. Small programs with their placements and arena sizes
 * counted by hand in the comments; the verifier catches a temporary placed
 * in an output it outlives, outside an output, or in a donated buffer
 * before the input's last read; a deep MLP's gradient keeps its forward
 * activations in the weight gradients' buffers, and its values on both
 * backends (twice: the second call on kept buffers) match plain loops,
 * with and without checkpointed layers; donated programs match plain
 * loops whether the donation is used or not; an optimization_barrier of
 * an argument shares its buffer, and a donation is refused when the
 * output's kernel reads such a barrier's result. */
#include <math.h>
#include <stdlib.h>

#include "backend/backend.h"
#include "compiler/program.h"
#include "core/func.h"
#include "harness.h"
#include "test_util.h"

#define N 1024 /* f32[1024]: 4096 bytes */

/* a = cumsum x (kernel 0) → s = sin a (loop, 1) → b = cumsum s (2) →
 * y = 2b (loop, 3; the output). */
static void f_four(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    cj_val b = cj_cumsum(cj_sin(cj_cumsum(in[0], 0, 0)), 0, 0);
    out[0] = cj_mul(b, cj_scalar(ctx, 2.0));
}

/* a = cumsum x (0) → s = sin a (1) → b = cumsum s (2) → c = cumsum b (3)
 * → y = 2c (4; the output, of x's type, so x may be donated to it). */
static void f_five(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    cj_val c = cj_cumsum(cj_cumsum(cj_sin(cj_cumsum(in[0], 0, 0)), 0, 0), 0, 0);
    out[0] = cj_mul(c, cj_scalar(ctx, 2.0));
}

/* The same in double, plain loops. */
static void ref_chain(const float *x, int cumsums_after_sin, double *y) {
    double a = 0, *s = malloc(sizeof(double) * N);
    for (int i = 0; i < N; i++) {
        a += x[i];
        s[i] = sin(a);
    }
    for (int r = 0; r < cumsums_after_sin; r++)
        for (int i = 1; i < N; i++) s[i] += s[i - 1];
    for (int i = 0; i < N; i++) y[i] = 2 * s[i];
    free(s);
}

static compiled *compile_fn(cj_ctx *ctx, cj_fn fn, const uint8_t *donated, ir_func **ir_out) {
    cj_func *f = cj_func_new(ctx, "scratch", fn, 1, 1, NULL);
    rt_aval av = rt_aval_make(CJ_F32, 1, (int64_t[]){N});
    ir_func *ir = f ? func_trace_to_ir(f, &av, NULL, "plan scratch test") : NULL;
    *ir_out = ir;
    return ir ? compile_ir_until(ctx, ir, NULL, &(compile_options){.donated = donated, .verify = true}) : NULL;
}

/* The variable kernel k writes (each kernel here writes one). */
static int written_by(const compiled *c, int k) { return c->kernels[k].out[0]; }

TEST(plan_scratch_temporary_in_a_late_output) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    ir_func *ir;
    compiled *c = compile_fn(ctx, f_four, NULL, &ir);
    CHECK_MSG(c, "%s", cj_error_message(ctx));
    CHECK_EQ_INT(c->n_kernels, 4);
    int a = written_by(c, 0), s = written_by(c, 1), b = written_by(c, 2), y = c->ir->out[0];
    CHECK_EQ_INT(c->kernel_of[y], 3);
    /* a dies at s's loop, which takes its block in place; s dies at b's
     * cumsum (kernel 2), before y's kernel 3: a and s at 0 in y's buffer.
     * b is read by y's kernel: the arena, at 0. Arena 4096 (all in the
     * arena: a@0, s in place, b@4096: 8192). */
    CHECK_EQ_INT(plan_host(c, a), y);
    CHECK_EQ_INT(plan_host(c, s), y);
    CHECK_EQ_INT(plan_in_place_of(c, s), a);
    CHECK_EQ_INT(c->offset[a], 0);
    CHECK_EQ_INT(plan_host(c, b), -1);
    CHECK_EQ_INT(c->offset[b], 0);
    CHECK_EQ_INT(c->arena_bytes, 4096);
    CHECK_EQ_INT(c->mem.temp_bytes, 4096);
    CHECK_EQ_INT(c->mem.peak_bytes, 4096 + 4096 + 4096 + 4); /* x, y, arena, the constant 2 */
    strbuf sb;
    sb_init(&sb, ctx->mem);
    compiled_dump(c, "plan", &sb);
    CHECK(sb.data && strstr(sb.data, "(in output ") != NULL);
    sb_free(&sb);
    compiled_free(ctx, c);
    ir_free(ir);
    /* kept in the arena, the same program needs 8192 */
    cj_func *f = cj_func_new(ctx, "scratch", f_four, 1, 1, NULL);
    rt_aval av = rt_aval_make(CJ_F32, 1, (int64_t[]){N});
    ir = func_trace_to_ir(f, &av, NULL, "plan scratch test");
    c = compile_ir_until(ctx, ir, NULL, &(compile_options){.no_output_scratch = true, .verify = true});
    CHECK(c);
    CHECK_EQ_INT(c->arena_bytes, 8192);
    for (int v = 0; v < c->ir->n_vars; v++) CHECK_EQ_INT(plan_host(c, v), -1);
    compiled_free(ctx, c);
    ir_free(ir);
    cj_ctx_free(ctx);
}

static const uint8_t donate_x[2] = {1, 0}; /* (a second entry for f_five_z) */

TEST(plan_scratch_donated_input_only_after_its_last_read) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    ir_func *ir;
    compiled *c = compile_fn(ctx, f_five, donate_x, &ir);
    CHECK_MSG(c, "%s", cj_error_message(ctx));
    CHECK_EQ_INT(c->n_kernels, 5);
    int a = written_by(c, 0), s = written_by(c, 1), b = written_by(c, 2), cc = written_by(c, 3), y = c->ir->out[0];
    CHECK_EQ_INT(c->donor[y], 0); /* y is written into x's buffer */
    CHECK_EQ_INT(c->last_use[c->ir->in[0]], 0);
    /* x is last read by kernel 0, which writes a: a may not be in y's
     * (= x's) buffer, so the arena @0, and s in place of it. b (kernels
     * 2..3) is written after x's last read and read before y's kernel 4:
     * in y's buffer. c (3..4) is read by y's kernel: the arena, in a's
     * block, dead since kernel 2. Arena 4096. */
    CHECK_EQ_INT(plan_host(c, a), -1);
    CHECK_EQ_INT(plan_host(c, s), -1);
    CHECK_EQ_INT(plan_in_place_of(c, s), a);
    CHECK_EQ_INT(plan_host(c, b), y);
    CHECK_EQ_INT(plan_host(c, cc), -1);
    CHECK_EQ_INT(c->offset[cc], 0);
    CHECK_EQ_INT(c->arena_bytes, 4096);
    compiled_free(ctx, c);
    ir_free(ir);
    /* without the donation: a's chain (a, then s in place) ends at kernel
     * 2, before y's: a and s in y's buffer, which is then full when b is
     * placed at kernel 2 (s is still live there); b@0 and c@4096 in the
     * arena: 8192. The greedy order does not look ahead. */
    c = compile_fn(ctx, f_five, NULL, &ir);
    CHECK(c);
    CHECK_EQ_INT(plan_host(c, written_by(c, 0)), c->ir->out[0]);
    CHECK_EQ_INT(plan_host(c, written_by(c, 2)), -1);
    CHECK_EQ_INT(c->arena_bytes, 8192);
    compiled_free(ctx, c);
    ir_free(ir);
    cj_ctx_free(ctx);
}

/* f_five plus a second input: y = 2c + z. Passing x as both arguments
 * makes the donation of x unusable (passed twice): y is then a fresh
 * array, and b lives in it. */
static void f_five_z(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    cj_val c = cj_cumsum(cj_cumsum(cj_sin(cj_cumsum(in[0], 0, 0)), 0, 0), 0, 0);
    out[0] = cj_add(cj_mul(c, cj_scalar(ctx, 2.0)), in[1]);
}

/* r = rev x (loop 0, reading x at mirrored indices) → a = cumsum r (1)
 * → y = 2a (loop 2; of x's type). */
static void f_rev(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    int64_t ax = 0;
    out[0] = cj_mul(cj_cumsum(cj_rev(in[0], 1, &ax), 0, 0), cj_scalar(ctx, 2.0));
}

TEST(plan_scratch_donated_input_not_before_its_last_read) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    ir_func *ir;
    /* without a donation r (kernels 0..1) lives in y's buffer; a (1..2)
     * is read by y's kernel: the arena. Arena 4096. */
    compiled *c = compile_fn(ctx, f_rev, NULL, &ir);
    CHECK_MSG(c, "%s", cj_error_message(ctx));
    CHECK_EQ_INT(c->n_kernels, 3);
    int r = written_by(c, 0), y = c->ir->out[0];
    CHECK_EQ_INT(plan_host(c, r), y);
    CHECK_EQ_INT(c->arena_bytes, 4096);
    compiled_free(ctx, c);
    ir_free(ir);
    /* x donated to y: r is written while kernel 0 still reads x (at the
     * mirrored index: a tile of r over x would clobber what later tiles
     * read), so not in y's buffer: r@0, a@4096. Arena 8192. */
    c = compile_fn(ctx, f_rev, donate_x, &ir);
    CHECK_MSG(c, "%s", cj_error_message(ctx));
    CHECK_EQ_INT(c->donor[y], 0);
    CHECK_EQ_INT(plan_host(c, r), -1);
    CHECK_EQ_INT(c->arena_bytes, 8192);
    compiled_free(ctx, c);
    ir_free(ir);
    /* the values, donation used, on both backends, twice */
    cj_backend backends[2] = {CJ_BACKEND_INTERP, CJ_BACKEND_CC};
    for (int bi = 0; bi < 2; bi++) {
        int donated = 0;
        cj_jit_opts o = {0, NULL, 1, &donated, backends[bi]};
        cj_func *jf = cj_jit(cj_func_new(ctx, "rev", f_rev, 1, 1, NULL), &o);
        for (int rep = 0; rep < 2; rep++) {
            cj_val x = tu_ramp(ctx, N, 1e-3f, (float)rep), yv;
            float xf[N], got[N];
            CHECK(cj_read(x, xf, sizeof xf) == CJ_OK);
            CHECK_MSG(cj_call(jf, &x, &yv) == CJ_OK, "%s", cj_error_message(ctx));
            CHECK_STR_CONTAINS(cj_jit_last_donation(jf), "holds an output");
            CHECK(cj_read(yv, got, sizeof got) == CJ_OK);
            double a = 0;
            int bad = -1;
            for (int i = 0; i < N && bad < 0; i++) {
                a += xf[N - 1 - i];
                if (!th_close(got[i], 2 * a, 1e-5, 1e-4)) bad = i;
            }
            CHECK_MSG(bad < 0, "backend %d call %d: y[%d] = %g", bi, rep, bad, bad >= 0 ? got[bad] : 0.0);
        }
    }
    cj_ctx_free(ctx);
}

/* jit of fn on `backend` (x donated when fn is f_five_z; `twice`: x is
 * passed as z too), called twice (the second call on the kept arena and
 * pooled outputs), each against plain loops. */
static void check_values(cj_ctx *ctx, cj_fn fn, int cumsums, cj_backend backend, int twice) {
    bool with_z = fn == f_five_z;
    int donated = 0;
    cj_jit_opts o = {0, NULL, with_z, with_z ? &donated : NULL, backend};
    cj_func *jf = cj_jit(cj_func_new(ctx, "scratch", fn, with_z ? 2 : 1, 1, NULL), &o);
    for (int rep = 0; rep < 2; rep++) {
        cj_val in[2] = {tu_ramp(ctx, N, 3e-3f, -1.0f + 0.5f * (float)rep), cj_zeros(ctx, CJ_F32, 1, (int64_t[]){N})};
        float xf[N], got[N];
        CHECK(cj_read(in[0], xf, sizeof xf) == CJ_OK);
        if (twice) in[1] = in[0];
        cj_val y;
        CHECK_MSG(cj_call(jf, in, &y) == CJ_OK, "%s", cj_error_message(ctx));
        if (with_z)
            CHECK_MSG(strstr(cj_jit_last_donation(jf), twice ? "not used" : "holds an output") != NULL, "%s",
                      cj_jit_last_donation(jf));
        CHECK(cj_read(y, got, sizeof got) == CJ_OK);
        /* bit for bit what eager computes (single kernels are its kernels) */
        cj_val ye;
        float eager[N];
        CHECK(cj_call(cj_func_new(ctx, "eager", fn, with_z ? 2 : 1, 1, NULL),
                      (cj_val[]){tu_ramp(ctx, N, 3e-3f, -1.0f + 0.5f * (float)rep),
                                 twice ? tu_ramp(ctx, N, 3e-3f, -1.0f + 0.5f * (float)rep)
                                       : cj_zeros(ctx, CJ_F32, 1, (int64_t[]){N})},
                      &ye) == CJ_OK);
        CHECK(cj_read(ye, eager, sizeof eager) == CJ_OK);
        CHECK_MSG(!memcmp(got, eager, sizeof got), "backend %d z %d twice %d call %d differs from eager", (int)backend,
                  with_z, twice, rep);
        /* and plain loops in double, within float rounding of sums of a
         * thousand terms of size up to a thousand (x cumsum twice) */
        double want[N];
        ref_chain(xf, cumsums, want);
        for (int i = 0; i < N && twice; i++) want[i] += xf[i];
        int bad = -1;
        for (int i = 0; i < N && bad < 0; i++)
            if (!th_close(got[i], want[i], 1e-4, cumsums > 1 ? 5e-2 : 1e-3)) bad = i;
        CHECK_MSG(bad < 0, "backend %d z %d twice %d call %d: y[%d] = %g, plain loops %g", (int)backend, with_z, twice,
                  rep, bad, bad >= 0 ? got[bad] : 0.0, bad >= 0 ? want[bad] : 0.0);
    }
}

TEST(plan_scratch_programs_match_plain_loops_on_both_backends) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_backend backends[2] = {CJ_BACKEND_INTERP, CJ_BACKEND_CC};
    for (int i = 0; i < 2; i++) {
        check_values(ctx, f_four, 1, backends[i], 0);
        check_values(ctx, f_five, 2, backends[i], 0);
        check_values(ctx, f_five_z, 2, backends[i], 0); /* x's buffer holds b, then y */
        check_values(ctx, f_five_z, 2, backends[i], 1); /* unusable: y is a fresh array, b in it */
    }
    CHECK_MSG(!cj_error(ctx), "%s", cj_error_message(ctx));
    cj_ctx_free(ctx);
}

/* the plan of f_five_z with x donated puts b in y's buffer, as f_five's */
TEST(plan_scratch_donated_program_with_a_second_input) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *f = cj_func_new(ctx, "scratch", f_five_z, 2, 1, NULL);
    rt_aval av[2] = {rt_aval_make(CJ_F32, 1, (int64_t[]){N}), rt_aval_make(CJ_F32, 1, (int64_t[]){N})};
    ir_func *ir = func_trace_to_ir(f, av, NULL, "plan scratch test");
    compiled *c = compile_ir_until(ctx, ir, NULL, &(compile_options){.donated = donate_x, .verify = true});
    CHECK_MSG(c, "%s", cj_error_message(ctx));
    CHECK_EQ_INT(c->n_kernels, 5);
    CHECK_EQ_INT(c->donor[c->ir->out[0]], 0);
    CHECK_EQ_INT(plan_host(c, written_by(c, 0)), -1);
    CHECK_EQ_INT(plan_host(c, written_by(c, 2)), c->ir->out[0]);
    CHECK_EQ_INT(c->arena_bytes, 4096);
    compiled_free(ctx, c);
    ir_free(ir);
    cj_ctx_free(ctx);
}

/* ---- the verifier ---- */

typedef struct breaker {
    const char *after;
    void (*breaks)(compiled *c);
    int hit;
} breaker;

static int break_after(cj_ctx *ctx, compiled *c, const char *pass, void *arg) {
    (void)ctx;
    breaker *b = arg;
    if (!strcmp(pass, b->after)) {
        b->breaks(c);
        b->hit = 1;
    }
    return 0;
}

/* b (read by y's own kernel) moved into y's buffer */
static void outlives_its_host(compiled *c) {
    int b = written_by(c, 2);
    c->host[b] = c->ir->out[0];
    c->offset[b] = 0;
}

/* s moved past the end of y's buffer */
static void outside_its_host(compiled *c) { c->offset[written_by(c, 1)] = 64; }

/* a (written by x's last reader) moved into y's buffer, which is x's */
static void before_the_donors_last_read(compiled *c) {
    int a = written_by(c, 0), s = written_by(c, 1);
    c->host[a] = c->host[s] = c->ir->out[0];
    c->offset[a] = c->offset[s] = 0;
}

/* a temporary in an output's buffer in a program that keeps them in the arena */
static void hosted_in_a_body(compiled *c) {
    c->no_output_scratch = true;
}

TEST(plan_scratch_verifier_catches_bad_placements) {
    static const struct {
        cj_fn fn;
        const uint8_t *donated;
        breaker b;
        const char *says;
    } cases[] = {
        {f_four, NULL, {"plan", outlives_its_host, 0}, "which kernel 3 writes"},
        {f_four, NULL, {"analyse", outside_its_host, 0}, "lies outside output"},
        {f_five, donate_x, {"donate", before_the_donors_last_read, 0}, "donated input 0's, which is read until kernel 0"},
        {f_four, NULL, {"plan", hosted_in_a_body, 0}, "keeps its temporaries in the arena"},
    };
    cj_ctx *ctx = cj_ctx_new(NULL);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cj_func *f = cj_func_new(ctx, "scratch", cases[i].fn, 1, 1, NULL);
        rt_aval av = rt_aval_make(CJ_F32, 1, (int64_t[]){N});
        ir_func *ir = func_trace_to_ir(f, &av, NULL, "plan scratch test");
        CHECK(ir);
        breaker b = cases[i].b;
        compile_options o = {.donated = cases[i].donated, .verify = true, .after_pass = break_after, .arg = &b};
        compiled *c = compile_ir_until(ctx, ir, NULL, &o);
        CHECK(b.hit);
        CHECK_MSG(!c, "case %zu (%s) went unseen", i, cases[i].says);
        CHECK_EQ_INT(cj_error(ctx), CJ_ERR_INTERNAL);
        CHECK_STR_CONTAINS(cj_error_message(ctx), cases[i].says);
        cj_error_clear(ctx);
        compiled_free(ctx, c);
        ir_free(ir);
    }
    cj_ctx_free(ctx);
}

/* ---- a deep MLP's gradient ---- */

#define L 4
#define B 16
#define W 32

static cj_func *mlp_layer;

static void layer_tanh(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_tanh(cj_add(cj_matmul(in[0], in[1]), in[2]));
}

/* loss(x, y, W1, b1, ..., WL, bL) = mean((mlp(x) - y)^2) */
static void mlp_loss(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    cj_val h = in[0];
    for (int l = 0; l < L; l++) cj_call(mlp_layer, (cj_val[]){h, in[2 + 2 * l], in[3 + 2 * l]}, &h);
    cj_val r = cj_sub(h, in[1]);
    out[0] = cj_mean(cj_mul(r, r), 0, NULL, 0);
}

/* The gradient by plain loops in double: forward h_l = tanh(h_{l-1} W_l +
 * b_l); g = 2 (h_L - y) / (B W); for l = L..1: d = g (1 - h_l^2), dW_l =
 * h_{l-1}^T d, db_l = column sums of d, g = d W_l^T. */
static void mlp_grad_ref(const float *x, const float *y, float (*w)[W * W], float (*b)[W], double (*dw)[W * W],
                         double (*db)[W]) {
    static double h[L + 1][B * W], g[B * W], d[B * W];
    for (int i = 0; i < B * W; i++) h[0][i] = x[i];
    for (int l = 1; l <= L; l++)
        for (int r = 0; r < B; r++)
            for (int j = 0; j < W; j++) {
                double z = b[l - 1][j];
                for (int k = 0; k < W; k++) z += h[l - 1][r * W + k] * w[l - 1][k * W + j];
                h[l][r * W + j] = tanh(z);
            }
    for (int i = 0; i < B * W; i++) g[i] = 2 * (h[L][i] - y[i]) / (B * W);
    for (int l = L; l >= 1; l--) {
        for (int i = 0; i < B * W; i++) d[i] = g[i] * (1 - h[l][i] * h[l][i]);
        for (int k = 0; k < W; k++)
            for (int j = 0; j < W; j++) {
                double s = 0;
                for (int r = 0; r < B; r++) s += h[l - 1][r * W + k] * d[r * W + j];
                dw[l - 1][k * W + j] = s;
            }
        for (int j = 0; j < W; j++) {
            double s = 0;
            for (int r = 0; r < B; r++) s += d[r * W + j];
            db[l - 1][j] = s;
        }
        for (int r = 0; r < B; r++)
            for (int k = 0; k < W; k++) {
                double s = 0;
                for (int j = 0; j < W; j++) s += d[r * W + j] * w[l - 1][k * W + j];
                g[r * W + k] = s;
            }
    }
}

TEST(plan_scratch_mlp_grad_keeps_activations_in_weight_gradients) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    static float x[B * W], y[B * W], w[L][W * W], b[L][W];
    uint64_t rng = 15;
    for (int i = 0; i < B * W; i++) x[i] = (float)th_rand_uniform(&rng, -1, 1), y[i] = (float)th_rand_uniform(&rng, -1, 1);
    for (int l = 0; l < L; l++) {
        for (int i = 0; i < W * W; i++) w[l][i] = (float)th_rand_uniform(&rng, -0.3, 0.3);
        for (int i = 0; i < W; i++) b[l][i] = (float)th_rand_uniform(&rng, -0.1, 0.1);
    }
    cj_val in[2 + 2 * L];
    int64_t dx[2] = {B, W}, dwd[2] = {W, W}, dbd[1] = {W};
    in[0] = cj_array(ctx, CJ_F32, 2, dx, x);
    in[1] = cj_array(ctx, CJ_F32, 2, dx, y);
    for (int l = 0; l < L; l++) {
        in[2 + 2 * l] = cj_array(ctx, CJ_F32, 2, dwd, w[l]);
        in[3 + 2 * l] = cj_array(ctx, CJ_F32, 1, dbd, b[l]);
    }
    static double want_w[L][W * W], want_b[L][W];
    mlp_grad_ref(x, y, w, b, want_w, want_b);
    int argnums[2 * L];
    for (int i = 0; i < 2 * L; i++) argnums[i] = 2 + i;
    cj_grad_opts go = {2 * L, argnums, 0};
    cj_backend backends[2] = {CJ_BACKEND_INTERP, CJ_BACKEND_CC};
    for (int run = 0; run < 4; run++) {
        int bi = run % 2, ck = run / 2;
        /* checkpointed layers save only their inputs and recompute the
         * rest behind optimization barriers; a barrier of an argument (a
         * bias, x) shares the argument's buffer instead of copying it */
        mlp_layer = ck ? cj_checkpoint(cj_func_new(ctx, "layer", layer_tanh, 3, 1, NULL), NULL)
                       : cj_func_new(ctx, "layer", layer_tanh, 3, 1, NULL);
        cj_func *loss = cj_func_new(ctx, ck ? "loss_ck" : "loss", mlp_loss, 2 + 2 * L, 1, NULL);
        cj_jit_opts o = {0, NULL, 0, NULL, backends[bi]};
        cj_func *jg = cj_jit(cj_grad(loss, &go), &o);
        /* Layers 1..L-1 each save two f32[B,W] values (B*W*4 = 2048 bytes)
         * that the backward pass reads until just before their weight
         * gradient dW_l (f32[W,W], 4096 bytes: W = 2B) is written: both fit
         * in dW_l's buffer. The last layer's values are used at once. Each
         * cotangent d_l (2048 bytes) is made by the COLS kernel that also
         * sums db_l (fusion.c), and lives until g = d_l W_l^T is made; g
         * dies there, before the next weight gradient is written, so it
         * lives in that gradient's buffer: one cotangent in the arena at a
         * time, 2048 (before column sums fused, d_l was the epilogue of
         * g's product and two cotangents alternated: 2 * 2048). All in the
         * arena it would be 2 * (L - 1) * 2048 more. */
        cj_memory_analysis m;
        CHECK_MSG(cj_jit_memory_analysis(jg, in, &m) == CJ_OK, "%s", cj_error_message(ctx));
        CHECK_EQ_INT(m.output_bytes, L * (W * W + W) * 4);
        char *plan = cj_jit_dump(jg, in, "plan");
        int hosted = 0, shared = 0;
        for (const char *p = plan ? strstr(plan, "(in output ") : NULL; p; p = strstr(p + 1, "(in output ")) hosted++;
        for (const char *p = plan ? strstr(plan, "(shares ") : NULL; p; p = strstr(p + 1, "(shares ")) shared++;
        if (!ck) {
            CHECK_EQ_INT(m.temp_bytes, B * W * 4);
            /* and the L products read by a COLS kernel (the last layer's
             * pre-activation, each g): no longer epilogues, each dies
             * before a weight gradient is written */
            CHECK_MSG(hosted == 2 * (L - 1) + L && shared == 0, "%d in outputs' buffers, %d sharing\n%s", hosted, shared,
                      plan ? plan : "");
        } else {
            /* no more than without checkpoints (recomputed values live in
             * the weight gradients' buffers too), and no barrier copied */
            CHECK_MSG(m.temp_bytes <= 2 * B * W * 4 && hosted > 0 && shared > 0, "temp %zu, %d hosted, %d shared\n%s",
                      m.temp_bytes, hosted, shared, plan ? plan : "");
        }
        cj_string_free(ctx, plan);
        for (int rep = 0; rep < 2; rep++) {
            cj_val g[2 * L];
            CHECK_MSG(cj_call(jg, in, g) == CJ_OK, "%s", cj_error_message(ctx));
            for (int l = 0; l < L; l++) {
                static float gw[W * W], gb[W];
                CHECK(cj_read(g[2 * l], gw, sizeof gw) == CJ_OK && cj_read(g[2 * l + 1], gb, sizeof gb) == CJ_OK);
                int bad = -1;
                for (int i = 0; i < W * W && bad < 0; i++)
                    if (!th_close(gw[i], want_w[l][i], 1e-3, 1e-6)) bad = i;
                CHECK_MSG(bad < 0, "backend %d ck %d call %d dW%d[%d] = %g, plain loops %g", bi, ck, rep, l + 1, bad,
                          bad >= 0 ? gw[bad] : 0.0, bad >= 0 ? want_w[l][bad] : 0.0);
                for (int i = 0; i < W && bad < 0; i++)
                    if (!th_close(gb[i], want_b[l][i], 1e-3, 1e-6)) bad = i;
                CHECK_MSG(bad < 0, "backend %d ck %d call %d db%d[%d]", bi, ck, rep, l + 1, bad);
            }
        }
    }
    cj_ctx_free(ctx);
}

/* ---- a barrier of an argument shares its buffer ---- */

/* x, z:f32[1024] → a = cumsum z (kernel 0) → b = optimization_barrier(x,
 * a) (1) → then either y = 2 rev(b) (loop 2: reads b at mirrored indices)
 * or c = cumsum b (2) → y = 2c (3). */
static ir_func *build_barrier(cj_ctx *ctx, int late) {
    ir_func *ir = ir_new(ctx->mem);
    rt_aval av = rt_aval_make(CJ_F32, 1, (int64_t[]){N}), s = rt_aval_make(CJ_F32, 0, NULL);
    int x = ir_add_input(ir, &av), z = ir_add_input(ir, &av);
    prim_params q = prim_params_zero();
    q.axes.n = 1;
    q.axes.v[0] = 0;
    int a = ir_add_eqn(ir, PRIM_CUMSUM, &q, 1, &z, &av);
    prim_params none = prim_params_zero();
    int b = ir_add_eqn(ir, PRIM_OPT_BARRIER, &none, 2, (int[]){x, a}, &av);
    int t = late ? ir_add_eqn(ir, PRIM_CUMSUM, &q, 1, &b, &av) : ir_add_eqn(ir, PRIM_REV, &q, 1, &b, &av);
    rt_array *two = rt_array_new(ctx->mem, &s);
    *(float *)two->data = 2;
    int k = ir_add_const(ir, two);
    rt_array_unref(two);
    int y = ir_add_eqn(ir, PRIM_MUL, &none, 2, (int[]){t, k}, &av);
    ir_add_output(ir, y);
    return ir;
}

TEST(plan_scratch_barrier_of_an_argument_shares_its_buffer) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    for (int late = 0; late < 2; late++) {
        ir_func *ir = build_barrier(ctx, late);
        CHECK_MSG(ir && ir_verify(ctx, ir) == 0, "%s", cj_error_message(ctx));
        compiled *c = compile_ir_until(ctx, ir, NULL, &(compile_options){.donated = donate_x, .verify = true});
        CHECK_MSG(c, "%s", cj_error_message(ctx));
        int x = c->ir->in[0], b = written_by(c, 1), y = c->ir->out[0];
        /* b is x's own bytes: no copy, nothing in the arena for it; x
         * counts as read until b's last reader */
        CHECK_EQ_INT(plan_host(c, b), x);
        CHECK(plan_shares_read_only(c, b));
        CHECK_EQ_INT(c->last_use[x], c->last_use[b]);
        if (!late) {
            /* y's loop reads b (x's bytes) at mirrored indices: x may not
             * be donated to y. a (kernels 0..1) lives in y's buffer before
             * y is written: the arena is empty. */
            CHECK_EQ_INT(c->donor[y], -1);
            CHECK_STR_CONTAINS(c->donation_note, "barrier's result that shares its buffer");
            CHECK_EQ_INT(plan_host(c, written_by(c, 0)), y);
            CHECK_EQ_INT(c->arena_bytes, 0);
        } else {
            /* b's last reader is c's cumsum (kernel 2), before y's kernel
             * 3: x is donated to y. a (0..1) is written while x is still
             * live (read until 2): the arena @0; c (2..3, read by y's
             * kernel): the arena, a's dead block. Arena 4096. */
            CHECK_EQ_INT(c->donor[y], 0);
            CHECK_EQ_INT(plan_host(c, written_by(c, 0)), -1);
            CHECK_EQ_INT(c->arena_bytes, 4096);
        }
        strbuf sb;
        sb_init(&sb, ctx->mem);
        compiled_dump(c, "plan", &sb);
        CHECK(sb.data && strstr(sb.data, "(shares ") != NULL);
        sb_free(&sb);
        compiled_free(ctx, c);
        /* the values on both backends, x donated (used when late), twice */
        for (int bi = 0; bi < 2; bi++) {
            program *p = backend_prepare(ctx, ir, bi ? CJ_BACKEND_CC : CJ_BACKEND_INTERP, donate_x);
            CHECK_MSG(p, "%s", cj_error_message(ctx));
            for (int rep = 0; rep < 2 && p; rep++) {
                rt_aval av = rt_aval_make(CJ_F32, 1, (int64_t[]){N});
                rt_array *in[2] = {rt_array_new(ctx->mem, &av), rt_array_new(ctx->mem, &av)}, *out = NULL;
                float *xv = (float *)in[0]->data, *zv = (float *)in[1]->data, xs[N];
                for (int i = 0; i < N; i++) xv[i] = xs[i] = (float)(i % 37) - 18.0f + (float)rep, zv[i] = 1;
                uint8_t used[2] = {0, 0};
                CHECK_MSG(program_run(ctx, p, in, &out, used) == 0, "%s", cj_error_message(ctx));
                CHECK_EQ_INT(used[0], late);
                double acc = 0;
                int bad = -1;
                for (int i = 0; i < N && bad < 0 && out; i++) {
                    acc += xs[i];
                    double want = late ? 2 * acc : 2.0 * xs[N - 1 - i];
                    if (!th_close(((float *)out->data)[i], want, 1e-6, 1e-3)) bad = i;
                }
                CHECK_MSG(out && bad < 0, "late %d backend %d call %d: y[%d]", late, bi, rep, bad);
                rt_array_unref(out);
                rt_array_unref(in[0]);
                rt_array_unref(in[1]);
            }
            program_free(ctx, p);
        }
        ir_free(ir);
    }
    cj_ctx_free(ctx);
}
