/* test_plan_pool_in_place.c — a windowed reduction's result written over
 * its operand's buffer (issue 15/17: a CNN's peak at or under XLA's).
 *
 * The planner lets a SINGLE reduce_window kernel write its result from the
 * start of its dying operand's block when the primitive says an in-order
 * run is safe (prim_lowering.overwrites_operand0: no low padding, no base
 * dilation, no axis longer in the result; src/prim/reduce_window.c), and
 * then keeps only the result's size of the block, so the next kernel's
 * result fits beside it (src/compiler/plan.c). The kernel, given the same
 * buffer for both, runs its rows in order and stores each piece of a row
 * after that piece's reads (src/runtime/reduce_window.c).
 * Checked:
 *   - the memory analysis against closed forms: conv → bias → relu →
 *     pool → conv keeps one temporary block, the first convolution's
 *     output, for max 2x2/2, sum 3x3/1 (overlapping windows) and min with
 *     high padding only; SAME padding with a low pad keeps both;
 *   - the values of every case, jit on the interpreter and on generated C,
 *     bit for bit against eager (where nothing is shared);
 *   - rows longer than the kernel's piece, with a strided window along
 *     them, in place, against eager bit for bit. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "test_util.h"

enum { B = 4, H = 12, C0 = 3, C1 = 8, C2 = 5 };

typedef struct pool_case {
    cj_window_reduction kind;
    int64_t win, stride;
    cj_padding pad_type;
    const int64_t *padding; /* 4 (lo, hi) pairs, or NULL for pad_type */
    int in_place;           /* expected */
    int64_t out_hw;         /* the pooled height and width */
} pool_case;

/* in: x [B,H,H,C0], w1 [3,3,C0,C1], b1 [C1], w2 [3,3,C1,C2] */
static void f_net(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx;
    const pool_case *pc = u;
    cj_conv_opts o = {.pad_type = CJ_PAD_SAME, .lhs_spec = "NHWC", .rhs_spec = "HWIO", .out_spec = "NHWC"};
    cj_val y = cj_relu(cj_add(cj_conv_general_dilated(in[0], in[1], &o), in[2]));
    int64_t win[4] = {1, pc->win, pc->win, 1}, st[4] = {1, pc->stride, pc->stride, 1};
    cj_window_opts wo = {.window_strides = st, .padding = pc->padding, .pad_type = pc->pad_type};
    cj_val p = cj_reduce_window(y, pc->kind, win, &wo);
    out[0] = cj_conv_general_dilated(p, in[3], &o);
}

static cj_val waves(cj_ctx *ctx, int rank, const int64_t *dims, double scale, uint64_t seed) {
    int64_t n = 1;
    for (int a = 0; a < rank; a++) n *= dims[a];
    float *v = malloc(sizeof(float) * (size_t)n);
    uint64_t s = seed;
    for (int64_t i = 0; i < n; i++) v[i] = (float)(th_rand_uniform(&s, -1, 1) * scale);
    cj_val r = cj_array(ctx, CJ_F32, rank, dims, v);
    free(v);
    return r;
}

static cj_func *jit_on(cj_ctx *ctx, cj_fn fn, int n_in, void *u, cj_backend be) {
    cj_jit_opts o = {0, NULL, 0, NULL, be};
    return cj_jit(cj_func_new(ctx, "net", fn, n_in, 1, u), &o);
}

TEST(plan_pool_writes_over_its_input_block) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    const int64_t xd[4] = {B, H, H, C0}, w1d[4] = {3, 3, C0, C1}, b1d[1] = {C1}, w2d[4] = {3, 3, C1, C2};
    cj_val in[4] = {waves(ctx, 4, xd, 1.0, 1), waves(ctx, 4, w1d, 0.3, 2), waves(ctx, 1, b1d, 0.1, 3),
                    waves(ctx, 4, w2d, 0.2, 4)};
    static const int64_t high_only[8] = {0, 0, 0, 1, 0, 1, 0, 0};
    pool_case cases[4] = {
        {CJ_WINDOW_MAX, 2, 2, CJ_PAD_VALID, NULL, 1, H / 2},
        {CJ_WINDOW_SUM, 3, 1, CJ_PAD_VALID, NULL, 1, H - 2},
        {CJ_WINDOW_MIN, 2, 1, CJ_PAD_VALID, high_only, 1, H},
        {CJ_WINDOW_MAX, 3, 1, CJ_PAD_SAME, NULL, 0, H}, /* a low pad: windows start before their position */
    };
    const size_t conv1 = sizeof(float) * B * H * H * C1;
    for (int i = 0; i < 4; i++) {
        const pool_case *pc = &cases[i];
        size_t pooled = sizeof(float) * B * (size_t)(pc->out_hw * pc->out_hw) * C1;
        cj_func *jf = jit_on(ctx, f_net, 4, (void *)pc, CJ_BACKEND_INTERP);
        cj_memory_analysis m;
        memset(&m, 0, sizeof m);
        CHECK(cj_jit_memory_analysis(jf, in, &m) == CJ_OK);
        /* conv1, then bias + relu in its place, then the pool in its place
         * (or beside it), then the second convolution, the output */
        CHECK_EQ_INT((long long)m.temp_bytes, (long long)(pc->in_place ? conv1 : conv1 + pooled));
        CHECK_EQ_INT((long long)m.output_bytes, (long long)(sizeof(float) * B * (size_t)(pc->out_hw * pc->out_hw) * C2));
        cj_val want, got[2];
        CHECK(cj_call(cj_func_new(ctx, "net", f_net, 4, 1, (void *)pc), in, &want) == CJ_OK);
        for (int b = 0; b < 2; b++) {
            cj_func *j = b ? jit_on(ctx, f_net, 4, (void *)pc, CJ_BACKEND_CC) : jf;
            CHECK(cj_call(j, in, &got[b]) == CJ_OK);
            CHECK(tu_same_bits(got[b], want));
        }
    }
    cj_ctx_free(ctx);
}

/* exp(x) [64, 1000] pooled along its rows by windows of 3 at stride 2
 * (499 a row: more than one piece of the in-place kernel), doubled */
static void f_rows(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    const cj_window_reduction *kind = u;
    int64_t win[2] = {1, 3}, st[2] = {1, 2};
    cj_window_opts wo = {.window_strides = st};
    out[0] = cj_mul(cj_reduce_window(cj_exp(in[0]), *kind, win, &wo), cj_scalar(ctx, 2.0));
}

TEST(plan_pool_in_place_long_rows) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    const int64_t xd[2] = {64, 1000};
    cj_val x = waves(ctx, 2, xd, 2.0, 9);
    cj_window_reduction kinds[3] = {CJ_WINDOW_SUM, CJ_WINDOW_MAX, CJ_WINDOW_MIN};
    for (int i = 0; i < 3; i++) {
        cj_val want;
        CHECK(cj_call(cj_func_new(ctx, "rows", f_rows, 1, 1, &kinds[i]), &x, &want) == CJ_OK);
        for (int b = 0; b < 2; b++) {
            cj_func *jf = jit_on(ctx, f_rows, 1, &kinds[i], b ? CJ_BACKEND_CC : CJ_BACKEND_INTERP);
            cj_memory_analysis m;
            memset(&m, 0, sizeof m);
            CHECK(cj_jit_memory_analysis(jf, &x, &m) == CJ_OK);
            CHECK_EQ_INT((long long)m.temp_bytes, (long long)(sizeof(float) * 64 * 1000)); /* exp(x) alone */
            cj_val got;
            CHECK(cj_call(jf, &x, &got) == CJ_OK);
            CHECK(tu_same_bits(got, want));
        }
    }
    cj_ctx_free(ctx);
}
