/* test_dtypes_dot.c — dot_general and conv_general_dilated on the dtypes
 * added after f64 (issue 17, stage 2) against JAX on CPU, eagerly, under
 * jit (interpreter and generated C), under vmap and grad.
 *
 * Fixtures: tests/data/dtype_dot/ (tests/data/gen_dtype_dot_fixtures.py).
 * What must match:
 *   - integer products (i8 … u64, wrapping; i8 × i8 → i32) bit for bit;
 *   - bf16/f16 results within one unit in the last place of the narrow type:
 *     both sum in f32 and round once, but XLA's (Eigen's) order of the f32
 *     sums is not cjax's, which moves a rounding now and then (the test
 *     counts how many differ at all and requires most to be equal);
 *   - preferred_element_type=f32 results within a bound of the f32 sums'
 *     order: |got - jax| <= 2^-20 · Σ|a||b| per element;
 *   - inside cjax, exactly: a bf16/f16 product is the f32 product of the
 *     widened operands, rounded once (the widening GEMM packs to f32 and runs
 *     sgemm's tiles), and the preferred=f32 result is that f32 product.
 * XLA flushes subnormals (FTZ/DAZ); the operands here have none. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "compiler/program.h"
#include "harness.h"
#include "runtime/gemm.h"
#include "runtime/half.h"
#include "runtime/runtime.h"
#include "test_util.h"

static cj_val load(cj_ctx *ctx, const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/dtype_dot/%s.npy", CJAX_TEST_DATA_DIR, name);
    return cj_load_npy(ctx, path);
}

static int ordered16(uint16_t h) { return h & 0x8000 ? -(int)(h & 0x7fff) : (int)h; }

/* Counts elements of narrow-float got/want more than `ulps` apart (and how
 * many differ at all, into *differ). */
static int narrow_far(cj_val got, cj_val want, int ulps, int64_t *differ) {
    int64_t n = cj_val_size(want);
    if (cj_val_dtype(got) != cj_val_dtype(want) || cj_val_size(got) != n) return -1;
    uint16_t *g = malloc(2 * (size_t)n + 2), *w = malloc(2 * (size_t)n + 2);
    cj_read(got, g, 2 * (size_t)n);
    cj_read(want, w, 2 * (size_t)n);
    int far = 0;
    *differ = 0;
    for (int64_t i = 0; i < n; i++) {
        if (g[i] == w[i]) continue;
        ++*differ;
        if (abs(ordered16(g[i]) - ordered16(w[i])) > ulps) far++;
    }
    free(g);
    free(w);
    return far;
}

/* Plain-loop bound Σ_k |a[i,k]| |b[k,j]| of a 2-D product in f64. */
static double *abs_bound(cj_val a, cj_val b) {
    double *A = tu_read_f64(cj_abs(cj_astype(a, CJ_F64))), *B = tu_read_f64(cj_abs(cj_astype(b, CJ_F64)));
    int64_t m = cj_val_dim(a, 0), k = cj_val_dim(a, 1), n = cj_val_dim(b, 1);
    double *s = calloc((size_t)(m * n), sizeof(double));
    for (int64_t i = 0; i < m; i++)
        for (int64_t p = 0; p < k; p++)
            for (int64_t j = 0; j < n; j++) s[i * n + j] += A[i * k + p] * B[p * n + j];
    free(A);
    free(B);
    return s;
}

TEST(dtypes_dot_bf16_f16_matmul_against_jax) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    const char *dts[2] = {"bf16", "f16"};
    const char *cases[2] = {"mm", "big"};
    for (int d = 0; d < 2; d++)
        for (int c = 0; c < 2; c++) {
            char name[64];
            snprintf(name, sizeof name, "%s_%s_a", cases[c], dts[d]);
            cj_val a = load(ctx, name);
            snprintf(name, sizeof name, "%s_%s_b", cases[c], dts[d]);
            cj_val b = load(ctx, name);
            snprintf(name, sizeof name, "%s_%s_out", cases[c], dts[d]);
            cj_val want = load(ctx, name);
            snprintf(name, sizeof name, "%s_%s_f32", cases[c], dts[d]);
            cj_val want32 = load(ctx, name);
            cj_dtype dt = d == 0 ? CJ_BF16 : CJ_F16;
            CHECK(cj_val_dtype(a) == dt);
            cj_val y = cj_matmul(a, b);
            cj_val y32 = cj_matmul_preferred(a, b, CJ_F32);
            CHECK_MSG(cj_error(ctx) == CJ_OK, "%s: %s", name, cj_error_message(ctx));
            if (cj_error(ctx) != CJ_OK) break;
            CHECK(cj_val_dtype(y) == dt && cj_val_dtype(y32) == CJ_F32);

            /* against JAX: narrow within 1 ulp, mostly equal */
            int64_t differ = 0;
            int far = narrow_far(y, want, 1, &differ);
            CHECK_MSG(far == 0, "%s %s: %d elements more than 1 ulp from JAX", cases[c], dts[d], far);
            CHECK_MSG(differ * 20 <= cj_val_size(want), "%s %s: %lld of %lld differ from JAX", cases[c], dts[d],
                      (long long)differ, (long long)cj_val_size(want));
            /* preferred f32 within the order bound */
            double *g = tu_read_f64(y32), *w = tu_read_f64(want32), *s = abs_bound(a, b);
            int bad = 0;
            for (int64_t i = 0; i < cj_val_size(want32); i++)
                if (fabs(g[i] - w[i]) > ldexp(s[i], -20)) bad++;
            CHECK_MSG(bad == 0, "%s %s f32: %d elements off", cases[c], dts[d], bad);
            free(g), free(w), free(s);

            /* inside cjax: the f32 product of the widened operands, rounded once */
            cj_val ref32 = cj_matmul(cj_astype(a, CJ_F32), cj_astype(b, CJ_F32));
            CHECK_MSG(tu_same_bits(y32, ref32), "%s %s: preferred f32 differs from sgemm of the widened operands",
                      cases[c], dts[d]);
            CHECK_MSG(tu_same_bits(y, cj_astype(ref32, dt)), "%s %s: not the f32 product rounded once", cases[c],
                      dts[d]);
        }
    cj_ctx_free(ctx);
}

TEST(dtypes_dot_general_batched_transposed_against_jax) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    const char *dts[2] = {"bf16", "f16"};
    for (int d = 0; d < 2; d++) {
        char name[64];
        snprintf(name, sizeof name, "bt_%s_a", dts[d]);
        cj_val a = load(ctx, name);
        snprintf(name, sizeof name, "bt_%s_b", dts[d]);
        cj_val b = load(ctx, name);
        snprintf(name, sizeof name, "bt_%s_out", dts[d]);
        cj_val want = load(ctx, name);
        int64_t c2[1] = {2}, b0[1] = {0};
        cj_val y = cj_dot_general(a, b, 1, c2, c2, 1, b0, b0);
        CHECK_MSG(cj_error(ctx) == CJ_OK, "%s", cj_error_message(ctx));
        int64_t differ = 0;
        CHECK_MSG(narrow_far(y, want, 1, &differ) == 0, "bt %s: more than 1 ulp from JAX", dts[d]);
        cj_val ref = cj_dot_general(cj_astype(a, CJ_F32), cj_astype(b, CJ_F32), 1, c2, c2, 1, b0, b0);
        CHECK(tu_same_bits(y, cj_astype(ref, cj_val_dtype(a))));
    }
    cj_ctx_free(ctx);
}

TEST(dtypes_dot_integers_wrap_as_jax) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    const char *dts[6] = {"i8", "i16", "u8", "u16", "u32", "u64"};
    for (int d = 0; d < 6; d++) {
        char name[64];
        snprintf(name, sizeof name, "int_%s_a", dts[d]);
        cj_val a = load(ctx, name);
        snprintf(name, sizeof name, "int_%s_b", dts[d]);
        cj_val b = load(ctx, name);
        snprintf(name, sizeof name, "int_%s_out", dts[d]);
        cj_val want = load(ctx, name);
        cj_val y = cj_matmul(a, b);
        CHECK_MSG(cj_error(ctx) == CJ_OK, "%s: %s", dts[d], cj_error_message(ctx));
        CHECK_MSG(tu_same_bits(y, want), "int %s: differs from JAX", dts[d]);
        /* and transposed in memory (the kernel reads a copy) */
        cj_val yt = cj_transpose(cj_matmul(cj_transpose(b, NULL), cj_transpose(a, NULL)), NULL);
        CHECK_MSG(tu_same_bits(yt, want), "int %s transposed: differs from JAX", dts[d]);
    }
    /* 8- and 16-bit operands into 32-bit sums (a kernel of their own, no
     * converted copies), against a plain loop in 64 bits wrapped to 32 */
    for (int d = 0; d < 4; d++) {
        char name[64];
        snprintf(name, sizeof name, "int_%s_a", dts[d]);
        cj_val a = load(ctx, name);
        snprintf(name, sizeof name, "int_%s_b", dts[d]);
        cj_val b = load(ctx, name);
        int64_t m = cj_val_dim(a, 0), k = cj_val_dim(a, 1), n = cj_val_dim(b, 1);
        int64_t *A = malloc(sizeof(int64_t) * (size_t)(m * k)), *B = malloc(sizeof(int64_t) * (size_t)(k * n));
        cj_read_as(a, CJ_I64, A, sizeof(int64_t) * (size_t)(m * k));
        cj_read_as(b, CJ_I64, B, sizeof(int64_t) * (size_t)(k * n));
        for (int o = 0; o < 2; o++) {
            cj_dtype od = o ? CJ_U32 : CJ_I32;
            cj_val y = cj_matmul_preferred(a, b, od);
            uint32_t *got = malloc(sizeof(uint32_t) * (size_t)(m * n));
            CHECK(cj_val_dtype(y) == od && cj_read(y, got, sizeof(uint32_t) * (size_t)(m * n)) == CJ_OK);
            int bad = 0;
            for (int64_t i = 0; i < m; i++)
                for (int64_t j = 0; j < n; j++) {
                    uint64_t sum = 0;
                    for (int64_t p = 0; p < k; p++) sum += (uint64_t)(A[i * k + p] * B[p * n + j]);
                    bad += got[i * n + j] != (uint32_t)sum;
                }
            CHECK_MSG(bad == 0, "%s -> %s: %d elements differ from the loop", dts[d], cj_dtype_name(od), bad);
            free(got);
        }
        free(A), free(B);
    }
    cj_val a = load(ctx, "int_i8_a"), b = load(ctx, "int_i8_b");
    cj_val y = cj_matmul_preferred(a, b, CJ_I32);
    CHECK(cj_val_dtype(y) == CJ_I32);
    CHECK_MSG(tu_same_bits(y, load(ctx, "int_i8_i32")), "i8 x i8 -> i32 differs from JAX");
    /* exact: the i32 product of the widened operands */
    CHECK(tu_same_bits(y, cj_matmul(cj_astype(a, CJ_I32), cj_astype(b, CJ_I32))));
    CHECK(cj_error(ctx) == CJ_OK);
    cj_ctx_free(ctx);
}

/* out = tanh(a @ b) + c, and the preferred f32 product: under jit the first
 * is a dot with an elementwise epilogue. */
static void dot_epi(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_add(cj_tanh(cj_matmul(in[0], in[1])), in[2]);
    out[1] = cj_tanh(cj_matmul_preferred(in[0], in[1], CJ_F32));
    out[2] = cj_matmul(in[0], in[1]);
}

static void int_dot(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    cj_val y = cj_matmul(in[0], in[1]);
    out[0] = cj_mul(y, y);
    out[1] = cj_matmul_preferred(in[0], in[1], CJ_I32);
}

/* Whole products, then (block bytes 1) the fused epilogue kernels' rows in
 * as many blocks as the compiler allows: each block is a product of bf16
 * rows, whose offset is counted in the operand's element size. */
TEST(dtypes_dot_jit_matches_eager) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_jit_opts interp = {0, NULL, 0, NULL, CJ_BACKEND_INTERP}, cc = {0, NULL, 0, NULL, CJ_BACKEND_CC};
    const char *cases[4] = {"mm_bf16", "big_bf16", "mm_f16", "big_f16"};
    for (int blocks = 0; blocks < 2; blocks++)
    for (int c = 0; c < 4; c++) {
        fuse_set_dot_block_bytes_for_testing(blocks ? 1 : 0);
        cj_func *f = cj_func_new(ctx, "dot_epi", dot_epi, 3, 3, NULL);
        cj_func *ji = cj_jit(f, &interp), *jc = cj_jit(f, &cc);
        char name[64];
        snprintf(name, sizeof name, "%s_a", cases[c]);
        cj_val in[3];
        in[0] = load(ctx, name);
        snprintf(name, sizeof name, "%s_b", cases[c]);
        in[1] = load(ctx, name);
        snprintf(name, sizeof name, "%s_out", cases[c]);
        in[2] = load(ctx, name);
        cj_val ye[3], yi[3], yc[3];
        CHECK(cj_call(f, in, ye) == CJ_OK);
        CHECK(cj_call(ji, in, yi) == CJ_OK);
        CHECK(cj_call(jc, in, yc) == CJ_OK);
        CHECK_MSG(cj_error(ctx) == CJ_OK, "%s: %s", cases[c], cj_error_message(ctx));
        if (cj_error(ctx) != CJ_OK) break;
        for (int k = 0; k < 3; k++) {
            CHECK_MSG(tu_same_bits(ye[k], yi[k]), "%s out %d blocks %d: interpreter differs from eager", cases[c], k,
                      blocks);
            CHECK_MSG(tu_same_bits(ye[k], yc[k]), "%s out %d blocks %d: generated C differs from eager", cases[c], k,
                      blocks);
        }
        cj_func_free(jc);
        cj_func_free(ji);
        cj_func_free(f);
    }
    fuse_set_dot_block_bytes_for_testing(0);
    cj_func *g = cj_func_new(ctx, "int_dot", int_dot, 2, 2, NULL);
    cj_func *gi = cj_jit(g, &interp), *gc = cj_jit(g, &cc);
    cj_val a = load(ctx, "int_i8_a"), b = cj_transpose(load(ctx, "int_i8_a"), NULL);
    cj_val in[2] = {a, b}, ye[2], yi[2], yc[2];
    CHECK(cj_call(g, in, ye) == CJ_OK && cj_call(gi, in, yi) == CJ_OK && cj_call(gc, in, yc) == CJ_OK);
    for (int k = 0; k < 2; k++) CHECK(tu_same_bits(ye[k], yi[k]) && tu_same_bits(ye[k], yc[k]));
    CHECK(cj_val_dtype(ye[1]) == CJ_I32);
    cj_ctx_free(ctx);
}

/* x[i] for a rank-3 x (slice and squeeze). */
static cj_val index0(cj_val x, int64_t i) {
    int64_t start[3] = {i, 0, 0}, limit[3] = {i + 1, cj_val_dim(x, 1), cj_val_dim(x, 2)};
    return cj_squeeze(cj_slice(x, start, limit, NULL), 1, (int64_t[]){0});
}

static void mm(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    int pref = *(const int *)user;
    out[0] = pref ? cj_matmul_preferred(in[0], in[1], CJ_F32) : cj_matmul(in[0], in[1]);
}

/* vmap of a bf16 product (one operand batched, then both) against a loop
 * of single products: bit for bit (each slice is a product of its own). */
TEST(dtypes_dot_vmap_matches_loop) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val a = load(ctx, "bt_bf16_a"), b = load(ctx, "bt_bf16_b"); /* [4,16,24], [4,20,24] */
    cj_val bt = cj_transpose(b, (int64_t[]){0, 2, 1});                /* [4,24,20] */
    for (int pref = 0; pref < 2; pref++) {
        cj_func *f = cj_func_new(ctx, "mm", mm, 2, 1, &pref);
        int64_t axes_both[2] = {0, 0}, axes_one[2] = {0, CJ_NOT_MAPPED};
        cj_vmap_opts both = {axes_both, NULL, 0, 0, 0}, one = {axes_one, NULL, 0, 0, 0};
        cj_func *vb = cj_vmap(f, &both), *vo = cj_vmap(f, &one);
        cj_val yb, yo, b0 = index0(bt, 0);
        CHECK(cj_call(vb, (cj_val[]){a, bt}, &yb) == CJ_OK);
        CHECK(cj_call(vo, (cj_val[]){a, b0}, &yo) == CJ_OK);
        CHECK_MSG(cj_error(ctx) == CJ_OK, "%s", cj_error_message(ctx));
        for (int64_t i = 0; i < 4; i++) {
            cj_val s, t;
            CHECK(cj_call(f, (cj_val[]){index0(a, i), index0(bt, i)}, &s) == CJ_OK);
            CHECK(cj_call(f, (cj_val[]){index0(a, i), b0}, &t) == CJ_OK);
            CHECK_MSG(tu_same_bits(index0(yb, i), s), "pref %d both batched: slice %lld", pref, (long long)i);
            CHECK_MSG(tu_same_bits(index0(yo, i), t), "pref %d one batched: slice %lld", pref, (long long)i);
        }
        CHECK(cj_val_dtype(yb) == (pref ? CJ_F32 : CJ_BF16));
    }
    cj_ctx_free(ctx);
}

static void loss(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    int pref = *(const int *)user;
    cj_val y = pref ? cj_matmul_preferred(in[0], in[1], CJ_F32) : cj_astype(cj_matmul(in[0], in[1]), CJ_F32);
    out[0] = cj_sum(cj_mul(y, y), -1, NULL, 0);
}

/* grad of a bf16 matmul loss: cotangents in bf16 (as JAX), within 1 ulp of
 * JAX's, for the bf16 product and for preferred_element_type=f32. */
TEST(dtypes_dot_grad_bf16_against_jax) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val x = load(ctx, "grad_bf16_x"), w = load(ctx, "grad_bf16_w");
    const char *names[2][2] = {{"grad_bf16_dx", "grad_bf16_dw"}, {"gradp_bf16_dx", "gradp_bf16_dw"}};
    for (int pref = 0; pref < 2; pref++) {
        cj_func *f = cj_func_new(ctx, "loss", loss, 2, 1, &pref);
        int argnums[2] = {0, 1};
        cj_grad_opts go = {2, argnums, 0};
        cj_func *g = cj_grad(f, &go);
        cj_jit_opts cc = {0, NULL, 0, NULL, CJ_BACKEND_CC};
        cj_func *jg = cj_jit(g, &cc);
        cj_val d[2], dj[2];
        CHECK(cj_call(g, (cj_val[]){x, w}, d) == CJ_OK);
        CHECK(cj_call(jg, (cj_val[]){x, w}, dj) == CJ_OK);
        CHECK_MSG(cj_error(ctx) == CJ_OK, "%s", cj_error_message(ctx));
        if (cj_error(ctx) != CJ_OK) break;
        for (int k = 0; k < 2; k++) {
            cj_val want = load(ctx, names[pref][k]);
            CHECK(cj_val_dtype(d[k]) == CJ_BF16);
            int64_t differ = 0;
            int far = narrow_far(d[k], want, 1, &differ);
            CHECK_MSG(far == 0, "%s: %d elements more than 1 ulp from JAX (%lld differ)", names[pref][k], far,
                      (long long)differ);
            CHECK_MSG(tu_same_bits(d[k], dj[k]), "%s: jit differs from eager", names[pref][k]);
        }
    }
    cj_ctx_free(ctx);
}

TEST(dtypes_conv_bf16_f16_against_jax) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    const char *dts[2] = {"bf16", "f16"};
    for (int d = 0; d < 2; d++) {
        char name[64];
        snprintf(name, sizeof name, "conv_%s_a", dts[d]);
        cj_val l = load(ctx, name);
        snprintf(name, sizeof name, "conv_%s_b", dts[d]);
        cj_val r = load(ctx, name);
        snprintf(name, sizeof name, "conv_%s_out", dts[d]);
        cj_val want = load(ctx, name);
        int64_t strides[2] = {1, 2};
        cj_val y = cj_conv(l, r, strides, CJ_PAD_SAME);
        CHECK_MSG(cj_error(ctx) == CJ_OK, "%s: %s", dts[d], cj_error_message(ctx));
        if (cj_error(ctx) != CJ_OK) break;
        int64_t differ = 0;
        int far = narrow_far(y, want, 1, &differ);
        CHECK_MSG(far == 0, "conv %s: %d elements more than 1 ulp from JAX", dts[d], far);
        cj_val ref = cj_conv(cj_astype(l, CJ_F32), cj_astype(r, CJ_F32), strides, CJ_PAD_SAME);
        CHECK_MSG(tu_same_bits(y, cj_astype(ref, cj_val_dtype(l))), "conv %s: not the f32 convolution rounded once",
                  dts[d]);
    }
    cj_ctx_free(ctx);
}

static void conv_loss(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    int64_t strides[2] = {1, 2};
    cj_val y = cj_astype(cj_conv(in[0], in[1], strides, CJ_PAD_SAME), CJ_F32);
    out[0] = cj_sum(cj_mul(y, y), -1, NULL, 0);
}

/* The convolution's transposes are convolutions of the operands' dtype:
 * the bf16 gradients are the f32 gradients' (of the same widened values,
 * with the same bf16 roundings) within a few bf16 ulps, and jit agrees. */
TEST(dtypes_conv_grad_keeps_bf16) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val l = load(ctx, "conv_bf16_a"), r = load(ctx, "conv_bf16_b");
    cj_func *f = cj_func_new(ctx, "conv_loss", conv_loss, 2, 1, NULL);
    int argnums[2] = {0, 1};
    cj_grad_opts go = {2, argnums, 0};
    cj_func *g = cj_grad(f, &go);
    cj_func *jg = cj_jit(g, NULL);
    cj_val d[2], dj[2], d32[2];
    CHECK(cj_call(g, (cj_val[]){l, r}, d) == CJ_OK);
    CHECK(cj_call(jg, (cj_val[]){l, r}, dj) == CJ_OK);
    CHECK(cj_call(g, (cj_val[]){cj_astype(l, CJ_F32), cj_astype(r, CJ_F32)}, d32) == CJ_OK);
    CHECK_MSG(cj_error(ctx) == CJ_OK, "%s", cj_error_message(ctx));
    for (int k = 0; k < 2 && cj_error(ctx) == CJ_OK; k++) {
        CHECK(cj_val_dtype(d[k]) == CJ_BF16);
        CHECK(tu_same_bits(d[k], dj[k]));
        double *a = tu_read_f64(d[k]), *b = tu_read_f64(d32[k]);
        double scale = 0;
        for (int64_t i = 0; i < cj_val_size(d32[k]); i++) scale = fmax(scale, fabs(b[i]));
        int bad = 0;
        for (int64_t i = 0; i < cj_val_size(d32[k]); i++)
            if (fabs(a[i] - b[i]) > 0.02 * scale) bad++;
        CHECK_MSG(bad == 0, "operand %d: %d gradient elements far from the f32 gradient", k, bad);
        free(a), free(b);
    }
    cj_ctx_free(ctx);
}

static void pref_dot(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_matmul_preferred(in[0], in[1], CJ_F32);
}

/* The jaxpr names the preferred type and the f32 result; dtypes lax
 * refuses are errors naming dot_general. */
TEST(dtypes_dot_preferred_printed_and_checked) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *f = cj_func_new(ctx, "pref_dot", pref_dot, 2, 1, NULL);
    cj_spec s[2] = {cj_spec_make(CJ_BF16, 2, (int64_t[]){2, 3}), cj_spec_make(CJ_BF16, 2, (int64_t[]){3, 4})};
    char *text = cj_make_jaxpr(f, 2, s);
    CHECK(text != NULL);
    if (text) {
        CHECK_MSG(strstr(text, "f32[2,4] = dot_general") != NULL, "%s", text);
        CHECK_MSG(strstr(text, "preferred_element_type=f32") != NULL, "%s", text);
        cj_string_free(ctx, text);
    }
    uint16_t bits[6] = {0x3f80, 0x4000, 0x4040, 0x3f80, 0x4000, 0x4040};
    cj_val a = cj_array(ctx, CJ_BF16, 2, (int64_t[]){2, 3}, bits);
    cj_val bad = cj_matmul_preferred(a, cj_transpose(a, NULL), CJ_I32);
    CHECK(cj_is_error(bad) && cj_error(ctx) == CJ_ERR_DTYPE);
    CHECK_MSG(strstr(cj_error_message(ctx), "dot_general") && strstr(cj_error_message(ctx), "i32"), "%s",
              cj_error_message(ctx));
    cj_error_clear(ctx);
    int16_t iv[6] = {1, 2, 3, 4, 5, 6};
    cj_val ia = cj_array(ctx, CJ_I16, 2, (int64_t[]){2, 3}, iv);
    bad = cj_matmul_preferred(ia, cj_transpose(ia, NULL), CJ_I8);
    CHECK(cj_is_error(bad) && cj_error(ctx) == CJ_ERR_DTYPE);
    cj_error_clear(ctx);
    /* bf16 · bf16 with values: [1 2 3]·[1 2 3] = 14 */
    cj_val y = cj_matmul_preferred(a, cj_transpose(a, NULL), CJ_F32);
    float got[4];
    CHECK(cj_read(y, got, sizeof got) == CJ_OK);
    CHECK(got[0] == 14.0f && got[3] == 14.0f);
    cj_ctx_free(ctx);
}

/* The widening GEMM itself: for shapes on every path (small products,
 * the packed blocks with edges, matrix-vector, several depth blocks), every
 * transpose, every tile (AVX-512, AVX2, plain C) and with the packing
 * buffers failing (the unpacked loops), rt_gemm_bf16/f16 give exactly what
 * rt_gemm_f32 gives for the widened operands. */
static void widen(cj_dtype dt, const uint16_t *h, float *f, int64_t n) {
    for (int64_t i = 0; i < n; i++) f[i] = dt == CJ_BF16 ? rt_bf16_to_f32(h[i]) : rt_f16_to_f32(h[i]);
}

TEST(dtypes_widening_gemm_is_sgemm_of_widened) {
    const int64_t shapes[][3] = {{37, 29, 53}, {150, 170, 200}, {1, 300, 400}, {300, 1, 400},
                                 {64, 140, 900}, {7, 5, 3}, {130, 260, 40}};
    uint32_t seed = 12345;
    for (int d = 0; d < 2; d++) {
        cj_dtype dt = d ? CJ_F16 : CJ_BF16;
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            int64_t m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
            uint16_t *A = malloc(sizeof(uint16_t) * (size_t)(m * k)), *B = malloc(sizeof(uint16_t) * (size_t)(k * n));
            float *Af = malloc(sizeof(float) * (size_t)(m * k)), *Bf = malloc(sizeof(float) * (size_t)(k * n));
            float *C = malloc(sizeof(float) * (size_t)(m * n)), *R = malloc(sizeof(float) * (size_t)(m * n));
            for (int64_t i = 0; i < m * k; i++) {
                seed = seed * 1664525u + 1013904223u;
                float v = (float)((int)(seed >> 20) - 2048) / 1024.0f;
                A[i] = dt == CJ_BF16 ? rt_f32_to_bf16(v) : rt_f32_to_f16(v);
            }
            for (int64_t i = 0; i < k * n; i++) {
                seed = seed * 1664525u + 1013904223u;
                float v = (float)((int)(seed >> 20) - 2048) / 1024.0f;
                B[i] = dt == CJ_BF16 ? rt_f32_to_bf16(v) : rt_f32_to_f16(v);
            }
            widen(dt, A, Af, m * k);
            widen(dt, B, Bf, k * n);
            for (int isa = 0; isa <= 3; isa++)
                for (int fail = 0; fail < 2; fail++)
                    for (int t = 0; t < 4; t++) {
                        int ta = t & 1, tb = t >> 1;
                        int64_t lda = ta ? m : k, ldb = tb ? k : n;
                        rt_gemm_testing_isa(isa);
                        rt_gemm_testing_fail_alloc(fail ? 3 : 0);
                        /* both under the same tile and the same failure */
                        (dt == CJ_BF16 ? rt_gemm_bf16 : rt_gemm_f16)(m, n, k, A, lda, ta, B, ldb, tb, C, n, 0);
                        rt_gemm_f32(m, n, k, Af, lda, ta, Bf, ldb, tb, R, n, 0);
                        rt_gemm_testing_fail_alloc(0);
                        rt_gemm_testing_isa(0);
                        CHECK_MSG(!memcmp(C, R, sizeof(float) * (size_t)(m * n)),
                                  "%s %lldx%lldx%lld ta %d tb %d isa %d fail %d: differs from sgemm",
                                  cj_dtype_name(dt), (long long)m, (long long)n, (long long)k, ta, tb, isa, fail);
                    }
            free(A), free(B), free(Af), free(Bf), free(C), free(R);
        }
    }
}
