/* test_compiler.c — the jit compiler's fusion and buffer plan, pinned on
 * small programs (golden dumps), memory analysis figures computed by hand,
 * and results of compiled programs against eager ones. */
#include <stdlib.h>

#include "compiler/program.h"
#include "harness.h"
#include "test_util.h"

static void f_sincos(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    cj_val x = in[0];
    cj_val s = cj_sin(x), c = cj_cos(x);
    cj_val sc = cj_mul(s, c), xx = cj_mul(x, x);
    out[0] = cj_add(sc, xx);
}

TEST(compiler_sincos_is_one_kernel_without_temporaries) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *jf = cj_jit(cj_func_new(ctx, "f", f_sincos, 1, 1, NULL), NULL);
    cj_val x = tu_ramp(ctx, 1000, 0.01f, -5);
    cj_program_info info;
    CHECK(cj_jit_program_info(jf, &x, &info) == CJ_OK);
    CHECK_EQ_INT(info.n_kernels, 1);
    CHECK_EQ_INT(info.n_fused_kernels, 1);
    cj_memory_analysis m;
    CHECK(cj_jit_memory_analysis(jf, &x, &m) == CJ_OK);
    CHECK_EQ_INT(m.temp_bytes, 0);
    CHECK_EQ_INT(m.argument_bytes, 4000);
    CHECK_EQ_INT(m.output_bytes, 4000);
    CHECK_EQ_INT(m.peak_bytes, 8000);
    cj_cost_analysis cost;
    CHECK(cj_jit_cost_analysis(jf, &x, &cost) == CJ_OK);
    CHECK_NEAR(cost.transcendentals, 2000, 0, 0);
    CHECK_NEAR(cost.flops, 3000, 0, 0);
    CHECK_NEAR(cost.bytes_accessed, 8000, 0, 0);
    /* and it computes the right thing */
    cj_val y;
    CHECK(cj_call(jf, &x, &y) == CJ_OK);
    float out[1000];
    cj_read(y, out, sizeof out);
    for (int i = 0; i < 1000; i++) {
        double xi = i * 0.01f - 5;
        CHECK_NEAR(out[i], sin(xi) * cos(xi) + xi * xi, 2e-6, 2e-6);
    }
    cj_ctx_free(ctx);
}

/* A chain of 20 elementwise operations. */
static void f_chain20(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    cj_val v = in[0];
    for (int i = 0; i < 10; i++) {
        v = cj_mul(v, cj_scalar(ctx, 0.5 + 0.1 * i));
        v = cj_add(v, in[1]);
    }
    out[0] = v;
}

TEST(compiler_chain_of_20_ops_is_one_kernel) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *jf = cj_jit(cj_func_new(ctx, "chain", f_chain20, 2, 1, NULL), NULL);
    cj_val in[2] = {tu_ramp(ctx, 5000, 0.001f, 0), tu_ramp(ctx, 5000, -0.002f, 1)};
    cj_program_info info;
    CHECK(cj_jit_program_info(jf, in, &info) == CJ_OK);
    CHECK_EQ_INT(info.n_kernels, 1);
    cj_memory_analysis m;
    CHECK(cj_jit_memory_analysis(jf, in, &m) == CJ_OK);
    CHECK_EQ_INT(m.temp_bytes, 0);
    cj_val y, ye;
    cj_func *f = cj_func_new(ctx, "chain", f_chain20, 2, 1, NULL);
    CHECK(cj_call(jf, in, &y) == CJ_OK);
    CHECK(cj_call(f, in, &ye) == CJ_OK);
    float a[5000], b[5000];
    cj_read(y, a, sizeof a);
    cj_read(ye, b, sizeof b);
    CHECK(memcmp(a, b, sizeof a) == 0);
    cj_ctx_free(ctx);
}

/* Broadcast rows, a reduction, and a data-movement leaf. */
static void f_rows(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u, (void)ctx;
    int64_t ax = 1;
    cj_val centred = cj_sub(in[0], cj_mean(in[0], 1, &ax, 1)); /* [R,C] - [R,1] */
    cj_val t = cj_transpose(centred, NULL);                    /* [C,R] */
    out[0] = cj_add(cj_exp(t), in[1]);                         /* + [R] broadcast */
}

TEST(compiler_golden_fusion_of_rows_program) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *jf = cj_jit(cj_func_new(ctx, "rows", f_rows, 2, 1, NULL), NULL);
    int64_t d[2] = {4, 3}, r = 4;
    float xv[12], bv[4];
    for (int i = 0; i < 12; i++) xv[i] = (float)i * 0.25f;
    for (int i = 0; i < 4; i++) bv[i] = (float)i;
    cj_val in[2] = {cj_array(ctx, CJ_F32, 2, d, xv), cj_array(ctx, CJ_F32, 1, &r, bv)};
    char *text = cj_jit_dump(jf, in, "fuse");
    CHECK_MSG(text, "%s", cj_error_message(ctx));
    /* the row mean and the centring (reduce, divide, broadcast back, sub)
     * are one ROWS kernel; the transpose reads the centred buffer and fuses
     * with exp, the broadcast of b and the add in one loop kernel */
    CHECK_MSG(strstr(text, "kernels (2)") && strstr(text, "kernel 0 rows f32[4,3], 6 equations") &&
                  strstr(text, "kernel 1 loop f32[3,4], 4 equations"),
              "%s", text);
    cj_string_free(ctx, text);
    cj_val y, ye;
    CHECK(cj_call(jf, in, &y) == CJ_OK);
    CHECK(cj_call(cj_func_new(ctx, "rows", f_rows, 2, 1, NULL), in, &ye) == CJ_OK);
    float a[12], b[12];
    cj_read(y, a, sizeof a);
    cj_read(ye, b, sizeof b);
    for (int i = 0; i < 12; i++) CHECK(a[i] == b[i]);
    /* reference */
    for (int c = 0; c < 3; c++)
        for (int rr = 0; rr < 4; rr++) {
            double m = (xv[rr * 3] + xv[rr * 3 + 1] + xv[rr * 3 + 2]) / 3.0;
            CHECK_NEAR(a[c * 4 + rr], exp(xv[rr * 3 + c] - m) + bv[rr], 1e-6, 1e-6);
        }
    cj_ctx_free(ctx);
}

/* ---- the planner on synthetic programs ---- */

/* x → a=exp(x) [SINGLE-free chain broken by reductions]:
 * s1 = sum(x*x) ; t = x - s1 ; s2 = sum(t) ; out = t * s2
 * Buffers crossing kernels: x*x (kernel 0 → 1), s1, t, s2. */
static void f_plan(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u, (void)ctx;
    cj_val sq = cj_mul(in[0], in[0]);
    cj_val s1 = cj_sum(sq, -1, NULL, 0);
    cj_val t = cj_sub(in[0], s1);
    cj_val s2 = cj_sum(t, -1, NULL, 0);
    out[0] = cj_mul(t, s2);
}

TEST(compiler_whole_array_reductions_fuse_into_one_row) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *jf = cj_jit(cj_func_new(ctx, "plan", f_plan, 1, 1, NULL), NULL);
    int64_t n = 1000;
    cj_val x = tu_ramp(ctx, n, 0.001f, 0);
    char *text = cj_jit_dump(jf, &x, "fuse,plan");
    CHECK(text);
    cj_memory_analysis m;
    CHECK(cj_jit_memory_analysis(jf, &x, &m) == CJ_OK);
    /* whole-array reductions are one row: everything, sums and their
     * rank-0 results included, runs in one ROWS kernel with no temporary */
    CHECK_MSG(m.temp_bytes == 0 && strstr(text, "kernels (1)"), "temp %zu\n%s", m.temp_bytes, text);
    CHECK_EQ_INT(m.output_bytes, 4000);
    cj_string_free(ctx, text);
    /* run twice: the second run reuses the arena and must give the same */
    cj_val y1, y2;
    CHECK(cj_call(jf, &x, &y1) == CJ_OK);
    CHECK(cj_call(jf, &x, &y2) == CJ_OK);
    float a[1000], b[1000];
    cj_read(y1, a, sizeof a);
    cj_read(y2, b, sizeof b);
    double s1 = 0;
    for (int i = 0; i < n; i++) s1 += (double)(i * 0.001f) * (i * 0.001f);
    double s2 = 0;
    for (int i = 0; i < n; i++) s2 += i * 0.001f - s1;
    for (int i = 0; i < n; i++) {
        CHECK(a[i] == b[i]);
        CHECK_NEAR(a[i], (i * 0.001f - s1) * s2, 1e-4, 1e-3);
    }
    cj_ctx_free(ctx);
}

/* Planner alone: a hand-built program where the peak is known. Leading-
 * axis reductions of one column are SINGLE kernels (a COLS kernel needs
 * two columns: fusion.c), so the plan is easy to follow. */
TEST(compiler_plan_peak_matches_hand_computation) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    /* x:f32[256,1] → a = reduce_sum[axes=(0,)] x : f32[1] (SINGLE)
     * → b = mul x x : f32[256,1] (LOOP) → c = reduce_max[axes=(0,)] b (SINGLE)
     * → d = add c a : f32[1] (LOOP, output).
     * Arena: a (4 B → 64) at 0; b (1024 B) at 64; c (64) is placed while b
     * is still read by its own kernel, so after b: 64 + 1024 = 1088; then
     * b dies. Arena = 1152 bytes. */
    rt_aval x = rt_aval_make(CJ_F32, 2, (int64_t[]){256, 1});
    rt_aval r = rt_aval_make(CJ_F32, 1, (int64_t[]){1});
    ir_func *ir = ir_new(ctx->mem);
    int vx = ir_add_input(ir, &x);
    prim_params p = prim_params_zero();
    p.axes.n = 1;
    int va = ir_add_eqn(ir, PRIM_REDUCE_SUM, &p, 1, &vx, &r);
    prim_params z = prim_params_zero();
    int vb = ir_add_eqn(ir, PRIM_MUL, &z, 2, (int[]){vx, vx}, &x);
    int vc = ir_add_eqn(ir, PRIM_REDUCE_MAX, &p, 1, &vb, &r);
    int vd = ir_add_eqn(ir, PRIM_ADD, &z, 2, (int[]){vc, va}, &r);
    ir_add_output(ir, vd);
    CHECK(ir_verify(ctx, ir) == 0);
    compiled *c = compile_ir(ctx, ir);
    CHECK_MSG(c, "%s", cj_error_message(ctx));
    CHECK_EQ_INT(c->n_kernels, 4);
    CHECK(c->home[vd] == HOME_OUTPUT);
    CHECK(c->home[va] == HOME_ARENA && c->home[vb] == HOME_ARENA && c->home[vc] == HOME_ARENA);
    CHECK_EQ_INT(c->offset[va], 0);
    CHECK_EQ_INT(c->offset[vb], 64);
    CHECK_EQ_INT(c->offset[vc], 1088);
    CHECK_EQ_INT(c->arena_bytes, 1152);
    compiled_free(ctx, c);
    ir_free(ir);
    cj_ctx_free(ctx);
}

TEST(compiler_analysis_errors_are_clean) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *f = cj_func_new(ctx, "f", f_sincos, 1, 1, NULL);
    cj_val x = tu_ramp(ctx, 10, 1, 0);
    cj_memory_analysis m;
    CHECK(cj_jit_memory_analysis(f, &x, &m) == CJ_ERR_ARG);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "not a jitted function");
    cj_ctx_free(ctx);
}

/* Every data-movement leaf read through an index map inside a loop kernel,
 * on a rank-3 array, against the eager result. */
static void f_leaves(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u, (void)ctx;
    cj_val x = in[0];                                              /* [5,6,7] */
    cj_val t = cj_transpose(x, (int64_t[]){2, 0, 1});              /* [7,5,6] */
    cj_val s = cj_slice(x, (int64_t[]){1, 0, 2}, (int64_t[]){5, 6, 7}, (int64_t[]){2, 3, 1}); /* [2,2,5] */
    cj_val r = cj_rev(x, 2, (int64_t[]){0, 2});
    cj_val b = cj_broadcast_to(in[1], 3, (int64_t[]){7, 5, 6});    /* [6] → [7,5,6] */
    cj_val sum1 = cj_add(cj_mul(t, b), cj_exp(cj_neg(t)));
    cj_val rr = cj_reshape(r, 3, (int64_t[]){7, 5, 6});
    out[0] = cj_add(sum1, rr);
    out[1] = cj_sin(cj_expand_dims(s, 0));
}

TEST(compiler_leaf_maps_match_eager) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t d[3] = {5, 6, 7}, d6 = 6;
    float xv[210], bv[6];
    uint64_t rng = 7;
    for (int i = 0; i < 210; i++) xv[i] = (float)th_rand_uniform(&rng, -1, 1);
    for (int i = 0; i < 6; i++) bv[i] = (float)i - 2;
    cj_val in[2] = {cj_array(ctx, CJ_F32, 3, d, xv), cj_array(ctx, CJ_F32, 1, &d6, bv)};
    cj_func *f = cj_func_new(ctx, "leaves", f_leaves, 2, 2, NULL);
    cj_jit_opts interp = {0, NULL, 0, NULL, CJ_BACKEND_INTERP}, cc = {0, NULL, 0, NULL, CJ_BACKEND_CC};
    cj_func *ji = cj_jit(f, &interp), *jc = cj_jit(f, &cc);
    cj_val ye[2], yi[2], yc[2];
    CHECK(cj_call(f, in, ye) == CJ_OK);
    CHECK(cj_call(ji, in, yi) == CJ_OK);
    CHECK(cj_call(jc, in, yc) == CJ_OK);
    for (int o = 0; o < 2; o++) {
        float a[210], b[210], c[210];
        size_t n = (size_t)cj_val_size(ye[o]);
        cj_read(ye[o], a, sizeof a);
        cj_read(yi[o], b, sizeof b);
        cj_read(yc[o], c, sizeof c);
        for (size_t i = 0; i < n; i++) CHECK_MSG(a[i] == b[i] && a[i] == c[i], "output %d[%zu]: %g %g %g", o, i, a[i], b[i], c[i]);
    }
    cj_program_info info;
    CHECK(cj_jit_program_info(ji, in, &info) == CJ_OK);
    char *text = cj_jit_dump(ji, in, "fuse");
    /* leaves read buffers, so a leaf of a leaf (reshape of rev, expand_dims
     * of slice) materialises the inner one: at most 5 kernels today */
    CHECK_MSG(info.n_kernels <= 5, "%d kernels:\n%s", info.n_kernels, text);
    cj_string_free(ctx, text);
    cj_ctx_free(ctx);
}

/* ---- donated inputs ---- */
static void f_update(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    /* an optimiser-style update: params - 0.1 * grads */
    out[0] = cj_sub(in[0], cj_mul(in[1], cj_scalar(ctx, 0.1)));
}

TEST(compiler_donated_input_becomes_the_output) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int donate[1] = {0};
    cj_jit_opts o = {0, NULL, 1, donate, CJ_BACKEND_DEFAULT};
    cj_func *jf = cj_jit(cj_func_new(ctx, "update", f_update, 2, 1, NULL), &o);
    cj_val w = tu_ramp(ctx, 1000, 1, 0), g = tu_ramp(ctx, 1000, 0, 1);
    cj_memory_analysis m;
    cj_val in[2] = {w, g};
    CHECK(cj_jit_memory_analysis(jf, in, &m) == CJ_OK);
    CHECK_EQ_INT(m.alias_bytes, 4000);
    CHECK_EQ_INT(m.output_bytes, 0);
    /* a first call with another array sets up the program's scratch */
    cj_val warm[2] = {tu_ramp(ctx, 1000, 1, 0), g}, ignored;
    CHECK(cj_call(jf, warm, &ignored) == CJ_OK);
    cj_mem_stats before, after;
    cj_mem_stats_get(ctx, &before);
    cj_val w2;
    CHECK(cj_call(jf, in, &w2) == CJ_OK);
    cj_mem_stats_get(ctx, &after);
    CHECK_STR_CONTAINS(cj_jit_last_donation(jf), "argument 0 donated: its buffer holds an output");
    /* no new data buffer: the output lives in w's */
    CHECK_EQ_INT(after.bytes_in_arrays, before.bytes_in_arrays);
    float out[1000];
    cj_read(w2, out, sizeof out);
    for (int i = 0; i < 1000; i++) CHECK_NEAR(out[i], i - 0.1f, 1e-6, 1e-6);
    /* w was consumed: a clear error, not stale data */
    CHECK(cj_read(w, out, sizeof out) == CJ_ERR_LEAKED);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "donated");
    cj_error_clear(ctx);
    /* the same array passed twice cannot be donated: reported, not silent */
    cj_val both[2] = {w2, w2}, w3;
    CHECK(cj_call(jf, both, &w3) == CJ_OK);
    CHECK_STR_CONTAINS(cj_jit_last_donation(jf), "argument 0 donated but not used");
    cj_read(w3, out, sizeof out);
    CHECK_NEAR(out[10], (10 - 0.1f) * 0.9f, 1e-5, 1e-5);
    CHECK(!cj_is_error(w2)); /* still valid */
    cj_ctx_free(ctx);
}

static void f_no_match(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u, (void)ctx;
    out[0] = cj_sum(in[0], -1, NULL, 0);
}

TEST(compiler_unusable_donation_is_reported) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int donate[1] = {0};
    cj_jit_opts o = {0, NULL, 1, donate, CJ_BACKEND_DEFAULT};
    cj_func *jf = cj_jit(cj_func_new(ctx, "sum", f_no_match, 1, 1, NULL), &o);
    cj_val x = tu_ramp(ctx, 100, 1, 0), y;
    CHECK(cj_call(jf, &x, &y) == CJ_OK);
    CHECK_STR_CONTAINS(cj_jit_last_donation(jf), "no output has its dtype and shape");
    CHECK(!cj_is_error(x)); /* not consumed */
    cj_ctx_free(ctx);
}

/* pad inside a loop kernel: low, high, negative (crop) and interior padding */
static void f_pad(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    cj_val pv = cj_scalar_typed(ctx, -1.5, CJ_F32);
    cj_val p = cj_pad(in[0], pv, (int64_t[]){2, -1}, (int64_t[]){1, 3}, (int64_t[]){1, 2});
    out[0] = cj_add(cj_exp(p), cj_scalar(ctx, 1.0));
}

TEST(compiler_pad_fuses_as_a_leaf) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t d[2] = {4, 5};
    float xv[20];
    for (int i = 0; i < 20; i++) xv[i] = (float)i * 0.1f;
    cj_val x = cj_array(ctx, CJ_F32, 2, d, xv);
    cj_func *f = cj_func_new(ctx, "pad", f_pad, 1, 1, NULL);
    cj_jit_opts oi = {0, NULL, 0, NULL, CJ_BACKEND_INTERP}, oc = {0, NULL, 0, NULL, CJ_BACKEND_CC};
    cj_func *ji = cj_jit(f, &oi), *jc = cj_jit(f, &oc);
    cj_val ye, yi, yc;
    CHECK(cj_call(f, &x, &ye) == CJ_OK);
    CHECK(cj_call(ji, &x, &yi) == CJ_OK);
    CHECK(cj_call(jc, &x, &yc) == CJ_OK);
    int64_t n = cj_val_size(ye);
    CHECK_EQ_INT(cj_val_dim(ye, 0), 2 + 1 + 4 + 3 * 1); /* lo + hi + in + (in-1)*interior */
    CHECK_EQ_INT(cj_val_dim(ye, 1), -1 + 3 + 5 + 4 * 2);
    float a[200], b[200], c[200];
    cj_read(ye, a, sizeof a);
    cj_read(yi, b, sizeof b);
    cj_read(yc, c, sizeof c);
    for (int64_t i = 0; i < n; i++) CHECK_MSG(a[i] == b[i] && a[i] == c[i], "[%lld] %g %g %g", (long long)i, a[i], b[i], c[i]);
    cj_program_info info;
    CHECK(cj_jit_program_info(ji, &x, &info) == CJ_OK);
    CHECK_EQ_INT(info.n_kernels, 1);
    cj_ctx_free(ctx);
}

/* Golden: the simplified IR, the kernels and the buffer plan of a small
 * program, pinned as text. A change in fusion or planning shows up here. */
static void f_golden(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    cj_val h = cj_max(cj_add(in[0], in[1]), cj_scalar_int(ctx, 0)); /* relu's value, [8,16] + [16] */
    int64_t ax = 1;
    cj_val s = cj_sum(h, 1, &ax, 0); /* [8] */
    out[0] = cj_mul(s, cj_scalar(ctx, 0.5));
    out[1] = cj_transpose(h, NULL); /* [16,8] */
}

TEST(compiler_golden_dump) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t dx[2] = {8, 16}, db = 16;
    cj_val in[2] = {cj_zeros(ctx, CJ_F32, 2, dx), cj_zeros(ctx, CJ_F32, 1, &db)};
    cj_jit_opts o = {0, NULL, 0, NULL, CJ_BACKEND_INTERP};
    cj_func *jf = cj_jit(cj_func_new(ctx, "golden", f_golden, 2, 2, NULL), &o);
    char *text = cj_jit_dump(jf, in, "simplify,fuse,plan");
    CHECK(text);
    const char *expect =
        "{ lambda ; a:f32[8,16] b:f32[16]. let\n"
        "    c:f32[8,16] = broadcast_in_dim[shape=(8, 16) broadcast_dimensions=(1,)] b\n"
        "    d:f32[8,16] = add a c\n"
        "    e:f32[8,16] = max d 0:f32[]\n"
        "    f:f32[8] = reduce_sum[axes=(1,)] e\n"
        "    g:f32[8] = mul f 0.5:f32[]\n"
        "    h:f32[16,8] = transpose[permutation=(1, 0)] e\n"
        "  in (g, h) }\n"
        "kernels (2), schedule: fusion order:\n"
        "  kernel 0 rows f32[8,16], 5 equations\n"
        "    reads: b a 0 0.5\n"
        "    writes: e g\n"
        "    c:f32[8,16] = broadcast_in_dim b\n"
        "    d:f32[8,16] = add a c\n"
        "    e:f32[8,16] = max d 0\n"
        "    f:f32[8] = reduce_sum e\n"
        "    g:f32[8] = mul f 0.5\n"
        "  kernel 1 loop f32[16,8], 1 equation\n"
        "    reads: e\n"
        "    writes: h\n"
        "    h:f32[16,8] = transpose e\n"
        "buffers (arena 512 bytes):\n"
        "  a:f32[8,16]              argument         512 bytes  live kernels 0..0\n"
        "  b:f32[16]                argument          64 bytes  live kernels 0..0\n"
        "  0.5:f32[]                constant           4 bytes  live kernels 0..0\n"
        "  0:f32[]                  constant           4 bytes  live kernels 0..0\n"
        "  e:f32[8,16]              temporary        512 bytes @ 0  live kernels 0..1\n"
        "  g:f32[8]                 output            32 bytes  live kernels 0..0\n"
        "  h:f32[16,8]              output           512 bytes  live kernels 1..1\n"
        "memory: arguments 576, outputs 544, temporaries 512, constants 8, peak 1640 bytes\n";
    CHECK_MSG(strcmp(text, expect) == 0, "got:\n%s", text);
    cj_string_free(ctx, text);
    cj_ctx_free(ctx);
}

/* The row length of a reduction over the trailing axes is a checked
 * product: f32[8, 2^61+1] (built directly as IR, past the shape check)
 * wrapped to a row of 8 and was fused as one; f32[2^40,2^40] overflowed. */
TEST(compiler_row_length_of_huge_shape_does_not_overflow) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t shapes[2][2] = {{8, ((int64_t)1 << 61) + 1}, {(int64_t)1 << 40, (int64_t)1 << 40}};
    for (int k = 0; k < 2; k++) {
        rt_aval x = rt_aval_make(CJ_F32, 2, shapes[k]);
        rt_aval r = rt_aval_make(CJ_F32, 0, NULL);
        ir_func *ir = ir_new(ctx->mem);
        CHECK(ir);
        int vx = ir_add_input(ir, &x);
        prim_params p = prim_params_zero();
        p.axes.n = 2;
        p.axes.v[0] = 0;
        p.axes.v[1] = 1;
        int vs = ir_add_eqn(ir, PRIM_REDUCE_SUM, &p, 1, &vx, &r);
        int outer = -1;
        int64_t len = -1;
        CHECK(!fuse_is_row_reduce(ir, &ir->eqns[ir->n_eqns - 1], &outer, &len));
        CHECK(vs >= 0 && len == -1);
        /* and the verifier refuses such a program by the central check */
        ir_add_output(ir, vs);
        CHECK(ir_verify(ctx, ir) != 0);
        CHECK_STR_CONTAINS(cj_error_message(ctx), "ir verify: input 0's type is too large");
        cj_error_clear(ctx);
        ir_free(ir);
    }
    cj_ctx_free(ctx);
}
