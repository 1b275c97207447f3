/* test_epilogue.c — epilogue fusion after dot_general (src/compiler/
 * epilogue.c, src/backend/dot_epilogue.c).
 *
 * relu(x@W + b), x@Wᵀ·scale and friends become one DOT_EPILOGUE kernel run
 * block by block; the tests check which programs fuse (and which must
 * not), results over many shapes — with the block size turned down so
 * products split into many blocks, rows not a multiple of the block — on
 * both backends (always bit for bit the same) against eager execution and
 * against plain loops, that the raw product loses its full-size buffer
 * (temp_bytes before and after the pass), the dump, the GEMM property the
 * blocking relies on, and allocation failure at every site.
 *
 * Against eager the results are bit for bit the same when the product is
 * one block, or when rt_gemm is the built-in GEMM, whose results do not
 * depend on how the rows are split (each element's K products are summed
 * in an order fixed by K alone). OpenBLAS's do: the rows of a call are
 * partitioned over its threads and into register tiles whose edge rows
 * take other kernels, so a row computed in a block of its own can round
 * differently from the same row in the whole call (by a few ulp). There
 * the tests hold fused results to the plain loops' error bound instead. */
#include <stdlib.h>

#include "compiler/passes.h"
#include "compiler/program.h"
#include "core/func.h"
#include "harness.h"
#include "runtime/gemm.h"
#include "test_util.h"

/* ---- programs ---- */

static void f_relu_bias(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_relu(cj_add(cj_matmul(in[0], in[1]), in[2]));
}

/* x·Wᵀ·0.37, W stored [N, K] */
static void f_scaled_xwt(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    int64_t lc = cj_val_rank(in[0]) - 1, rc = 1;
    out[0] = cj_mul(cj_dot_general(in[0], in[1], 1, &lc, &rc, 0, NULL, NULL), cj_scalar(ctx, 0.37));
}

/* the raw product is an output too */
static void f_also_raw(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    cj_val d = cj_matmul(in[0], in[1]);
    out[0] = cj_relu(cj_add(d, in[2]));
    out[1] = d;
}

/* the raw product is read again by a later kernel (column sums) */
/* (a cumulative sum: a column sum would join the epilogue's loop as a
 * COLS kernel, reading the product there) */
static void f_read_later(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    cj_val d = cj_matmul(in[0], in[1]);
    out[0] = cj_relu(cj_add(d, in[2]));
    out[1] = cj_cumsum(d, 0, 0);
}

/* the product read at transposed indices: not at the iteration index */
static void f_transposed_reader(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    cj_val d = cj_matmul(in[0], in[1]);
    out[0] = cj_add(d, cj_transpose(d, NULL));
}

/* ---- helpers ---- */

static cj_val random_array(cj_ctx *ctx, cj_dtype dt, int rank, const int64_t *dims, uint64_t *rng) {
    int64_t n = 1;
    for (int d = 0; d < rank; d++) n *= dims[d];
    size_t es = dt == CJ_F64 ? 8 : 4;
    void *v = malloc(es * (size_t)(n ? n : 1));
    for (int64_t i = 0; i < n; i++) {
        double x = th_rand_uniform(rng, -1, 1);
        if (dt == CJ_F64) ((double *)v)[i] = x;
        else ((float *)v)[i] = (float)x;
    }
    cj_val a = cj_array(ctx, dt, rank, dims, v);
    free(v);
    return a;
}

/* Reads v as doubles into a fresh malloc'd array. */
static double *read_doubles(cj_val v) {
    int64_t n = cj_val_size(v);
    size_t es = cj_val_dtype(v) == CJ_F64 ? 8 : 4;
    void *raw = malloc(es * (size_t)(n ? n : 1));
    double *d = malloc(sizeof(double) * (size_t)(n ? n : 1));
    cj_read(v, raw, es * (size_t)n);
    for (int64_t i = 0; i < n; i++) d[i] = es == 8 ? ((double *)raw)[i] : ((float *)raw)[i];
    free(raw);
    return d;
}

/* Are two values the same bytes? */
static bool same_bytes(cj_val a, cj_val b) {
    if (cj_val_size(a) != cj_val_size(b) || cj_val_dtype(a) != cj_val_dtype(b)) return false;
    size_t bytes = (size_t)cj_val_size(a) * (cj_val_dtype(a) == CJ_F64 ? 8 : 4);
    char *x = malloc(bytes + 1), *y = malloc(bytes + 1);
    cj_read(a, x, bytes);
    cj_read(b, y, bytes);
    bool same = memcmp(x, y, bytes) == 0;
    free(x);
    free(y);
    return same;
}

/* Does splitting a product's rows into blocks leave its bytes alone? */
static bool gemm_rows_exact(void) { return strcmp(rt_gemm_backend(), "built-in") == 0; }

/* Runs f jitted on the interpreter and on generated C, which must give the
 * same bytes, and eagerly, which must too when `exact` (see the opening
 * paragraph). Fills the jitted outputs. */
static int run_three_ways(cj_ctx *ctx, cj_func *f, const cj_val *in, int n_out, bool exact, cj_val *jitted,
                          char *msg, size_t msg_len) {
    cj_jit_opts interp = {0, NULL, 0, NULL, CJ_BACKEND_INTERP}, cc = {0, NULL, 0, NULL, CJ_BACKEND_CC};
    cj_val ye[2], yc[2];
    if (cj_call(f, in, ye) != CJ_OK || cj_call(cj_jit(f, &interp), in, jitted) != CJ_OK ||
        cj_call(cj_jit(f, &cc), in, yc) != CJ_OK) {
        snprintf(msg, msg_len, "%s", cj_error_message(ctx));
        return 0;
    }
    for (int o = 0; o < n_out; o++) {
        bool sc = same_bytes(jitted[o], yc[o]), se = !exact || same_bytes(jitted[o], ye[o]);
        if (!sc || !se) {
            snprintf(msg, msg_len, "output %d: cc %s interp, eager %s interp", o, sc ? "equals" : "differs from",
                     se ? "equals" : "differs from");
            return 0;
        }
    }
    return 1;
}

/* f traced at the types of `in` (owned by the caller). */
static ir_func *trace(cj_func *f, const cj_val *in, int n_in) {
    rt_aval avals[8];
    for (int i = 0; i < n_in; i++) {
        int64_t dims[CJ_MAX_RANK];
        int rank = cj_val_shape(in[i], dims);
        avals[i] = rt_aval_make(cj_val_dtype(in[i]), rank, dims);
    }
    return func_trace_to_ir(f, avals, NULL, "epilogue test");
}

/* The compiled form jit makes for f at these inputs (owned by the
 * caller). */
static compiled *compile_for(cj_ctx *ctx, cj_func *f, const cj_val *in, int n_in) {
    ir_func *ir = trace(f, in, n_in);
    if (!ir) return NULL;
    compiled *c = compile_ir(ctx, ir);
    ir_free(ir);
    return c;
}

/* The same pipeline without the epilogue pass: the plan before it. */
static compiled *compile_unfused(cj_ctx *ctx, cj_func *f, const cj_val *in, int n_in) {
    compiled *c = rt_calloc(ctx->mem, sizeof *c);
    if (!c) return NULL;
    c->ir = trace(f, in, n_in);
    if (!c->ir || pass_simplify(ctx, &c->ir) != 0 || fuse_kernels(ctx, c) != 0 || schedule_kernels(ctx, c) != 0 ||
        plan_buffers(ctx, c) != 0 || analyse_program(ctx, c) != 0) {
        compiled_free(ctx, c);
        return NULL;
    }
    return c;
}

/* Is every equation in exactly one kernel, named by kernel_of, and does
 * every kernel read only values made before it? */
static bool schedule_is_valid(const compiled *c) {
    int *seen = calloc((size_t)c->ir->n_eqns + 1, sizeof(int));
    bool ok = true;
    for (int k = 0; k < c->n_kernels; k++) {
        const kernel *K = &c->kernels[k];
        for (int j = 0; j < K->n_eqns; j++) {
            seen[K->eqns[j]]++;
            ok &= c->kernel_of[c->ir->eqns[K->eqns[j]].out] == k;
        }
        for (int i = 0; i < K->n_in; i++) ok &= c->kernel_of[K->in[i]] < k;
    }
    for (int e = 0; e < c->ir->n_eqns; e++) ok &= seen[e] == 1;
    free(seen);
    return ok;
}

static int count_kind(const compiled *c, kernel_kind kind) {
    int n = 0;
    for (int k = 0; k < c->n_kernels; k++) n += c->kernels[k].kind == kind;
    return n;
}

/* relu(x@W + b) by plain loops in double, for x [M,K], W [K,N], b [N]. */
static double reference_relu_bias(const double *x, const double *w, const double *b, int64_t K, int64_t N,
                                  int64_t i, int64_t j, double *mag) {
    double s = 0, m = 0;
    for (int64_t p = 0; p < K; p++) {
        s += x[i * K + p] * w[p * N + j];
        m += fabs(x[i * K + p] * w[p * N + j]);
    }
    *mag = m + fabs(b[j]);
    s += b[j];
    return s > 0 ? s : 0;
}

/* ---- fusion and results over shapes ---- */

typedef struct shape3 {
    int64_t m, k, n;
} shape3;

static void relu_bias_over_shapes(cj_dtype dt) {
    /* blocks as small as the floors allow: at least 16 rows and 2^18
     * multiply-adds, so several of these split, most unevenly */
    static const shape3 shapes[] = {{1, 1, 1},     {1, 7, 5},     {2, 3, 4},      {5, 16, 3},   {37, 64, 48},
                                    {301, 64, 64}, {1001, 33, 70}, {515, 17, 300}, {200, 800, 40}};
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t rng = 11;
    int split = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        const shape3 *sh = &shapes[s];
        cj_val in[3] = {random_array(ctx, dt, 2, (int64_t[]){sh->m, sh->k}, &rng),
                        random_array(ctx, dt, 2, (int64_t[]){sh->k, sh->n}, &rng),
                        random_array(ctx, dt, 1, &sh->n, &rng)};
        cj_func *f = cj_func_new(ctx, "relu_bias", f_relu_bias, 3, 1, NULL);
        compiled *c = compile_for(ctx, f, in, 3);
        CHECK_MSG(c, "%s", cj_error_message(ctx));
        int fused = c->n_kernels == 1 && c->kernels[0].kind == KERNEL_DOT_EPILOGUE && schedule_is_valid(c);
        int64_t blocks = c->kernels[0].n_blocks;
        /* the plan's rule, by hand: rows per block at least 16 and 2^18
         * multiply-adds, the rows split evenly */
        int64_t per = ((int64_t)1 << 18) / (sh->k * sh->n) + (((int64_t)1 << 18) % (sh->k * sh->n) != 0);
        if (per < 16) per = 16;
        int64_t want_blocks = sh->m / per > 1 ? sh->m / per : 1;
        compiled_free(ctx, c);
        CHECK_MSG(fused, "%lldx%lldx%lld did not fuse into one kernel", (long long)sh->m, (long long)sh->k,
                  (long long)sh->n);
        CHECK_EQ_INT(blocks, want_blocks);
        split += blocks > 1 && sh->m % blocks != 0;

        cj_val y;
        char msg[200];
        CHECK_MSG(run_three_ways(ctx, f, in, 1, blocks == 1 || gemm_rows_exact(), &y, msg, sizeof msg),
                  "%lldx%lldx%lld: %s", (long long)sh->m,
                  (long long)sh->k, (long long)sh->n, msg);
        double *x = read_doubles(in[0]), *w = read_doubles(in[1]), *b = read_doubles(in[2]), *got = read_doubles(y);
        int64_t bad = -1;
        double eps = dt == CJ_F64 ? 2.3e-16 : 1.2e-7;
        for (int64_t i = 0; i < sh->m && bad < 0; i++)
            for (int64_t j = 0; j < sh->n && bad < 0; j++) {
                double mag, want = reference_relu_bias(x, w, b, sh->k, sh->n, i, j, &mag);
                if (fabs(got[i * sh->n + j] - want) > 2 * (double)(sh->k + 1) * eps * mag + 1e-300) bad = i * sh->n + j;
            }
        free(x);
        free(w);
        free(b);
        free(got);
        CHECK_MSG(bad < 0, "%lldx%lldx%lld: element %lld off the plain loops", (long long)sh->m, (long long)sh->k,
                  (long long)sh->n, (long long)bad);
    }
    CHECK_MSG(split >= 3, "only %d shapes split into uneven blocks", split);
    cj_ctx_free(ctx);
}

TEST(epilogue_relu_bias_f32_matches_eager_and_loops_over_shapes) {
    fuse_set_dot_block_bytes_for_testing(1);
    relu_bias_over_shapes(CJ_F32);
    fuse_set_dot_block_bytes_for_testing(0);
}

TEST(epilogue_relu_bias_f64_matches_eager_and_loops_over_shapes) {
    fuse_set_dot_block_bytes_for_testing(1);
    relu_bias_over_shapes(CJ_F64);
    fuse_set_dot_block_bytes_for_testing(0);
}

/* x·Wᵀ·scale, including the layouts the dot kernel reads specially (one
 * output column, depth 1), a rank-3 lhs whose leading axes are rows, and
 * f64. */
static void scaled_xwt_cases(void) {
    static const struct {
        cj_dtype dt;
        int rank;
        int64_t lhs[3], n;
    } cases[] = {
        {CJ_F32, 2, {300, 40}, 50}, {CJ_F32, 2, {300, 40}, 1}, {CJ_F32, 2, {700, 1}, 400},
        {CJ_F32, 3, {6, 50, 64}, 70}, {CJ_F64, 2, {257, 31, 0}, 90}, {CJ_F64, 3, {3, 1, 5}, 4},
    };
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t rng = 5;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int r = cases[i].rank;
        int64_t depth = cases[i].lhs[r - 1];
        cj_val in[2] = {random_array(ctx, cases[i].dt, r, cases[i].lhs, &rng),
                        random_array(ctx, cases[i].dt, 2, (int64_t[]){cases[i].n, depth}, &rng)};
        cj_func *f = cj_func_new(ctx, "xwt", f_scaled_xwt, 2, 1, NULL);
        compiled *c = compile_for(ctx, f, in, 2);
        CHECK_MSG(c, "%s", cj_error_message(ctx));
        int fused = c->n_kernels == 1 && c->kernels[0].kind == KERNEL_DOT_EPILOGUE;
        int64_t blocks = c->kernels[0].n_blocks;
        compiled_free(ctx, c);
        CHECK_MSG(fused, "case %zu did not fuse", i);
        cj_val y;
        char msg[200];
        CHECK_MSG(run_three_ways(ctx, f, in, 1, blocks == 1 || gemm_rows_exact(), &y, msg, sizeof msg),
                  "case %zu: %s", i, msg);
        /* against plain loops: row i of the flattened lhs times row j of W */
        double *x = read_doubles(in[0]), *w = read_doubles(in[1]), *got = read_doubles(y);
        int64_t rows = cj_val_size(in[0]) / depth, bad = -1;
        for (int64_t a = 0; a < rows && bad < 0; a++)
            for (int64_t j = 0; j < cases[i].n && bad < 0; j++) {
                double s = 0;
                for (int64_t p = 0; p < depth; p++) s += x[a * depth + p] * w[j * depth + p];
                if (!th_close(got[a * cases[i].n + j], s * 0.37, 1e-5, 1e-5)) bad = a * cases[i].n + j;
            }
        free(x);
        free(w);
        free(got);
        CHECK_MSG(bad < 0, "case %zu: element %lld off the plain loops", i, (long long)bad);
    }
    cj_ctx_free(ctx);
}

TEST(epilogue_scaled_transposed_product_matches_eager) {
    fuse_set_dot_block_bytes_for_testing(1);
    scaled_xwt_cases();
    fuse_set_dot_block_bytes_for_testing(0);
}

/* ---- when the raw product stays materialised ---- */

TEST(epilogue_raw_product_that_is_an_output_stays_materialised) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t rng = 3;
    int64_t M = 600, K = 48, N = 40;
    cj_val in[3] = {random_array(ctx, CJ_F32, 2, (int64_t[]){M, K}, &rng),
                    random_array(ctx, CJ_F32, 2, (int64_t[]){K, N}, &rng), random_array(ctx, CJ_F32, 1, &N, &rng)};
    cj_func *f = cj_func_new(ctx, "also_raw", f_also_raw, 3, 2, NULL);
    fuse_set_dot_block_bytes_for_testing(1);
    compiled *c = compile_for(ctx, f, in, 3);
    fuse_set_dot_block_bytes_for_testing(0);
    CHECK_MSG(c, "%s", cj_error_message(ctx));
    /* one kernel still (locality), writing the product straight into its
     * output array: no block scratch, no temporary */
    int d = c->ir->out[1];
    bool ok = c->n_kernels == 1 && c->kernels[0].kind == KERNEL_DOT_EPILOGUE && c->kernels[0].n_blocks > 1 &&
              c->home[d] == HOME_OUTPUT && c->dot_block_bytes == 0 && c->mem.temp_bytes == 0;
    compiled_free(ctx, c);
    CHECK(ok);
    cj_val y[2];
    char msg[200];
    fuse_set_dot_block_bytes_for_testing(1);
    int same = run_three_ways(ctx, f, in, 2, gemm_rows_exact(), y, msg, sizeof msg);
    fuse_set_dot_block_bytes_for_testing(0);
    CHECK_MSG(same, "%s", msg);
    cj_ctx_free(ctx);
}

TEST(epilogue_raw_product_read_by_a_later_kernel_stays_in_the_arena) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t rng = 4;
    int64_t M = 300, K = 20, N = 64;
    cj_val in[3] = {random_array(ctx, CJ_F32, 2, (int64_t[]){M, K}, &rng),
                    random_array(ctx, CJ_F32, 2, (int64_t[]){K, N}, &rng), random_array(ctx, CJ_F32, 1, &N, &rng)};
    cj_func *f = cj_func_new(ctx, "read_later", f_read_later, 3, 2, NULL);
    compiled *c = compile_for(ctx, f, in, 3);
    CHECK_MSG(c, "%s", cj_error_message(ctx));
    int k = c->kernel_of[c->ir->out[0]];
    const ir_eqn *dot = &c->ir->eqns[c->kernels[k].eqns[0]];
    bool ok = schedule_is_valid(c) && c->kernels[k].kind == KERNEL_DOT_EPILOGUE && c->home[dot->out] == HOME_ARENA &&
              c->mem.temp_bytes >= (size_t)(M * N * 4) && c->dot_block_bytes == 0;
    compiled_free(ctx, c);
    CHECK(ok);
    cj_val y[2];
    char msg[200];
    CHECK_MSG(run_three_ways(ctx, f, in, 2, true, y, msg, sizeof msg), "%s", msg); /* one block */
    cj_ctx_free(ctx);
}

/* relu(x@W1 + b1)@W2 + b2: each layer's product fuses with its epilogue;
 * the hidden layer crosses kernels, so it is the one temporary. */
static void f_mlp(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    cj_val h = cj_relu(cj_add(cj_matmul(in[0], in[1]), in[2]));
    out[0] = cj_add(cj_matmul(h, in[3]), in[4]);
}

TEST(epilogue_two_layer_mlp_fuses_both_layers) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t rng = 6;
    int64_t B = 64, D = 96, H = 80, O = 10;
    cj_val in[5] = {random_array(ctx, CJ_F32, 2, (int64_t[]){B, D}, &rng),
                    random_array(ctx, CJ_F32, 2, (int64_t[]){D, H}, &rng), random_array(ctx, CJ_F32, 1, &H, &rng),
                    random_array(ctx, CJ_F32, 2, (int64_t[]){H, O}, &rng), random_array(ctx, CJ_F32, 1, &O, &rng)};
    cj_func *f = cj_func_new(ctx, "mlp", f_mlp, 5, 1, NULL);
    compiled *c = compile_for(ctx, f, in, 5);
    CHECK_MSG(c, "%s", cj_error_message(ctx));
    bool ok = schedule_is_valid(c) && c->n_kernels == 2 && count_kind(c, KERNEL_DOT_EPILOGUE) == 2 &&
              c->mem.temp_bytes == (size_t)(B * H * 4);
    compiled_free(ctx, c);
    CHECK(ok);
    cj_val y;
    char msg[200];
    CHECK_MSG(run_three_ways(ctx, f, in, 1, true, &y, msg, sizeof msg), "%s", msg); /* one block each */
    cj_ctx_free(ctx);
}

/* ---- what does not fuse ---- */

TEST(epilogue_batch_dot_and_transposed_reader_are_not_fused) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t rng = 8;
    /* a batch product: [4,30,20] @ [4,20,10] + b */
    int64_t N = 10;
    cj_val bin[3] = {random_array(ctx, CJ_F32, 3, (int64_t[]){4, 30, 20}, &rng),
                     random_array(ctx, CJ_F32, 3, (int64_t[]){4, 20, 10}, &rng), random_array(ctx, CJ_F32, 1, &N, &rng)};
    cj_func *fb = cj_func_new(ctx, "batch", f_relu_bias, 3, 1, NULL);
    compiled *c = compile_for(ctx, fb, bin, 3);
    CHECK_MSG(c, "%s", cj_error_message(ctx));
    int singles = count_kind(c, KERNEL_SINGLE), fused = count_kind(c, KERNEL_DOT_EPILOGUE), loops = count_kind(c, KERNEL_LOOP);
    compiled_free(ctx, c);
    CHECK(singles == 1 && loops == 1 && fused == 0);
    cj_val y;
    char msg[200];
    CHECK_MSG(run_three_ways(ctx, fb, bin, 1, true, &y, msg, sizeof msg), "%s", msg);

    /* d + dᵀ reads the product at another row: it needs the whole of it */
    cj_val tin[2] = {random_array(ctx, CJ_F32, 2, (int64_t[]){40, 7}, &rng),
                     random_array(ctx, CJ_F32, 2, (int64_t[]){7, 40}, &rng)};
    cj_func *ft = cj_func_new(ctx, "transposed", f_transposed_reader, 2, 1, NULL);
    c = compile_for(ctx, ft, tin, 2);
    CHECK_MSG(c, "%s", cj_error_message(ctx));
    fused = count_kind(c, KERNEL_DOT_EPILOGUE);
    compiled_free(ctx, c);
    CHECK_EQ_INT(fused, 0);
    CHECK_MSG(run_three_ways(ctx, ft, tin, 1, true, &y, msg, sizeof msg), "%s", msg);
    cj_ctx_free(ctx);
}

/* ---- memory ---- */

TEST(epilogue_temp_bytes_before_and_after) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t rng = 9;
    /* the product is f32[4096,256]: 4 MiB. Before the pass it is a
     * temporary; after it, a block of 2048 rows (2 MiB, the default block
     * size over 1 KiB rows) is scratch and nothing is temporary. */
    int64_t M = 4096, K = 64, N = 256;
    cj_val in[3] = {random_array(ctx, CJ_F32, 2, (int64_t[]){M, K}, &rng),
                    random_array(ctx, CJ_F32, 2, (int64_t[]){K, N}, &rng), random_array(ctx, CJ_F32, 1, &N, &rng)};
    cj_func *f = cj_func_new(ctx, "relu_bias", f_relu_bias, 3, 1, NULL);
    compiled *before = compile_unfused(ctx, f, in, 3);
    compiled *after = compile_for(ctx, f, in, 3);
    CHECK_MSG(before && after, "%s", cj_error_message(ctx));
    size_t temp_before = before->mem.temp_bytes, temp_after = after->mem.temp_bytes;
    size_t peak_before = before->mem.peak_bytes, peak_after = after->mem.peak_bytes;
    size_t block = after->dot_block_bytes;
    int64_t blocks = after->kernels[0].n_blocks;
    compiled_free(ctx, before);
    compiled_free(ctx, after);
    CHECK_EQ_INT(temp_before, M * N * 4);
    CHECK_EQ_INT(temp_after, 0);
    CHECK_EQ_INT(peak_before - peak_after, M * N * 4);
    CHECK_EQ_INT(blocks, 2);
    CHECK_EQ_INT(block, 2048 * N * 4);
    /* the public analysis agrees */
    cj_jit_opts interp = {0, NULL, 0, NULL, CJ_BACKEND_INTERP};
    cj_func *jf = cj_jit(f, &interp);
    cj_memory_analysis m;
    CHECK(cj_jit_memory_analysis(jf, in, &m) == CJ_OK);
    CHECK_EQ_INT(m.temp_bytes, 0);
    CHECK_EQ_INT(m.argument_bytes, (M * K + K * N + N) * 4);
    CHECK_EQ_INT(m.output_bytes, M * N * 4);
    CHECK_EQ_INT(m.peak_bytes, m.argument_bytes + m.output_bytes + m.constant_bytes);
    cj_ctx_free(ctx);
}

TEST(epilogue_fuse_dump_shows_the_dot_and_its_epilogue_in_one_kernel) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t rng = 10;
    int64_t N = 5;
    cj_val in[3] = {random_array(ctx, CJ_F32, 2, (int64_t[]){8, 3}, &rng),
                    random_array(ctx, CJ_F32, 2, (int64_t[]){3, 5}, &rng), random_array(ctx, CJ_F32, 1, &N, &rng)};
    cj_func *jf = cj_jit(cj_func_new(ctx, "relu_bias", f_relu_bias, 3, 1, NULL), NULL);
    char *text = cj_jit_dump(jf, in, "fuse,plan");
    CHECK_MSG(text, "%s", cj_error_message(ctx));
    /* dot_general, the bias broadcast, add and relu (max, and the select
     * that gives relu jax.nn's derivative) under one kernel header; the
     * product has no buffer in the plan */
    const char *k0 = strstr(text, "kernel 0 dot+epilogue f32[8,5], 6 equations");
    const char *dot = k0 ? strstr(k0, "= dot_general") : NULL;
    const char *bc = dot ? strstr(dot, "= broadcast_in_dim") : NULL;
    const char *add = bc ? strstr(bc, "= add") : NULL;
    const char *max = add ? strstr(add, "= max") : NULL;
    const char *sel = max ? strstr(max, "= select_n") : NULL;
    bool ok = strstr(text, "kernels (1)") && sel && !strstr(text, "temporary") &&
              strstr(text, "temporaries 0");
    CHECK_MSG(ok, "%s", text);
    cj_string_free(ctx, text);
    cj_ctx_free(ctx);
}

/* ---- the GEMM property blocks rely on ---- */

/* Rows [r0, r1) of op(A)·op(B) by one rt_gemm call on those rows. */
static void gemm_rows(cj_dtype dt, int64_t r0, int64_t r1, int64_t n, int64_t k, const void *a, const void *b,
                      int tb, void *c) {
    int64_t ldb = tb ? k : n;
    if (dt == CJ_F32)
        rt_gemm_f32(r1 - r0, n, k, (const float *)a + r0 * k, k, 0, b, ldb, tb, (float *)c + r0 * n, n, 0);
    else
        rt_gemm_f64(r1 - r0, n, k, (const double *)a + r0 * k, k, 0, b, ldb, tb, (double *)c + r0 * n, n, 0);
}

/* Splitting the rows of a product into blocks of at least 16 rows and
 * 2^18 multiply-adds gives the bytes of one call with the built-in GEMM
 * (with OpenBLAS, results within rounding of one call): depths across the
 * GEMMs' depth blocks, both rhs layouts, both dtypes. */
TEST(epilogue_gemm_row_blocks_equal_one_call) {
    static const shape3 shapes[] = {{300, 64, 64},  {260, 385, 48},  {96, 770, 40},  {200, 1031, 17},
                                    {64, 4097, 16}, {1100, 100, 33}, {97, 300, 257}, {40, 12000, 3}};
    uint64_t rng = 12;
    for (int dtn = 0; dtn < 2; dtn++) {
        cj_dtype dt = dtn ? CJ_F64 : CJ_F32;
        size_t es = dtn ? 8 : 4;
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            int64_t m = shapes[s].m, k = shapes[s].k, n = shapes[s].n;
            char *a = malloc(es * (size_t)(m * k)), *b = malloc(es * (size_t)(k * n));
            char *whole = malloc(es * (size_t)(m * n)), *parts = malloc(es * (size_t)(m * n));
            for (int64_t i = 0; i < m * k; i++) {
                double v = th_rand_uniform(&rng, -1, 1);
                if (dtn) ((double *)a)[i] = v;
                else ((float *)a)[i] = (float)v;
            }
            for (int64_t i = 0; i < k * n; i++) {
                double v = th_rand_uniform(&rng, -1, 1);
                if (dtn) ((double *)b)[i] = v;
                else ((float *)b)[i] = (float)v;
            }
            int64_t per = ((int64_t)1 << 18) / (k * n) + 1;
            if (per < 16) per = 16;
            int64_t nb = m / per > 1 ? m / per : 1;
            bool same = true;
            double eps = dtn ? 2.3e-16 : 1.2e-7;
            for (int tb = 0; tb < 2; tb++) {
                gemm_rows(dt, 0, m, n, k, a, b, tb, whole);
                for (int64_t q = 0; q < nb; q++) gemm_rows(dt, q * m / nb, (q + 1) * m / nb, n, k, a, b, tb, parts);
                if (gemm_rows_exact()) {
                    same &= memcmp(whole, parts, es * (size_t)(m * n)) == 0;
                    continue;
                }
                /* each within 2·k·eps·Σ|a||b| of the other (|a|, |b| <= 1) */
                for (int64_t i = 0; i < m * n; i++) {
                    double x = dtn ? ((double *)whole)[i] : ((float *)whole)[i];
                    double y = dtn ? ((double *)parts)[i] : ((float *)parts)[i];
                    same &= fabs(x - y) <= 4 * (double)k * (double)k * eps;
                }
            }
            free(a);
            free(b);
            free(whole);
            free(parts);
            CHECK_MSG(same && nb > 1, "%s %lldx%lldx%lld in %lld blocks", dtn ? "f64" : "f32", (long long)m,
                      (long long)k, (long long)n, (long long)nb);
        }
    }
}

/* ---- edges ---- */

TEST(epilogue_empty_rows_and_zero_depth) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t rng = 13;
    static const shape3 shapes[] = {{0, 4, 3}, {6, 0, 3}, {6, 4, 0}};
    for (size_t s = 0; s < 3; s++) {
        const shape3 *sh = &shapes[s];
        cj_val in[3] = {random_array(ctx, CJ_F32, 2, (int64_t[]){sh->m, sh->k}, &rng),
                        random_array(ctx, CJ_F32, 2, (int64_t[]){sh->k, sh->n}, &rng),
                        random_array(ctx, CJ_F32, 1, &sh->n, &rng)};
        cj_func *f = cj_func_new(ctx, "relu_bias", f_relu_bias, 3, 1, NULL);
        cj_val y;
        char msg[200];
        CHECK_MSG(run_three_ways(ctx, f, in, 1, true, &y, msg, sizeof msg), "shape %zu: %s", s, msg);
        /* depth 0: relu(b) on every row */
        if (sh->k == 0) {
            double *b = read_doubles(in[2]), *got = read_doubles(y);
            bool ok = true;
            for (int64_t i = 0; i < sh->m * sh->n; i++) ok &= got[i] == (b[i % sh->n] > 0 ? b[i % sh->n] : 0);
            free(b);
            free(got);
            CHECK(ok);
        }
    }
    cj_ctx_free(ctx);
}

/* ---- faults ---- */

/* relu(x@W + b) for x f32[300,64], W f32[64,64] (four blocks at the
 * smallest block size) jitted on the interpreter in ctx; its result into
 * out. The status of the call. */
static cj_status run_fault_case(cj_ctx *ctx, float *out) {
    uint64_t rng = 14;
    int64_t N = 64;
    cj_val in[3] = {random_array(ctx, CJ_F32, 2, (int64_t[]){300, 64}, &rng),
                    random_array(ctx, CJ_F32, 2, (int64_t[]){64, 64}, &rng), random_array(ctx, CJ_F32, 1, &N, &rng)};
    cj_jit_opts interp = {0, NULL, 0, NULL, CJ_BACKEND_INTERP};
    cj_val y;
    cj_status st = cj_call(cj_jit(cj_func_new(ctx, "relu_bias", f_relu_bias, 3, 1, NULL), &interp), in, &y);
    return st == CJ_OK ? cj_read(y, out, sizeof(float) * 300 * 64) : st;
}

/* Compiles and runs the case with allocation N failing, for N = 1, 2, ...
 * until nothing fails: each run ends with the result of a run without
 * failures or a clean CJ_ERR_OOM, and leaks nothing. */
static void allocation_failures(float *want, float *got) {
    cj_ctx *ref = cj_ctx_new(NULL);
    CHECK(run_fault_case(ref, want) == CJ_OK);
    cj_ctx_free(ref);
    int covered = 0;
    for (long long n = 1; n < 20000 && !covered; n++) {
        tu_alloc st = {0};
        st.fail_at = n;
        cj_allocator al = tu_allocator(&st);
        cj_ctx *ctx = cj_ctx_new(&al);
        if (ctx) {
            if (run_fault_case(ctx, got) == CJ_OK) {
                CHECK_MSG(memcmp(got, want, sizeof(float) * 300 * 64) == 0, "allocation %lld: wrong result", n);
                covered = !st.failed;
            } else {
                CHECK_MSG(cj_error(ctx) == CJ_ERR_OOM, "allocation %lld: %s", n, cj_error_message(ctx));
            }
            cj_ctx_free(ctx);
        }
        CHECK_MSG(st.live == 0, "allocation %lld failing leaked %lld blocks", n, st.live);
    }
    CHECK(covered);
}

TEST(epilogue_allocation_failure_is_clean) {
    float *want = malloc(sizeof(float) * 300 * 64), *got = malloc(sizeof(float) * 300 * 64);
    fuse_set_dot_block_bytes_for_testing(1);
    allocation_failures(want, got);
    fuse_set_dot_block_bytes_for_testing(0);
    free(want);
    free(got);
}

/* ---- generated code ---- */

/* A program whose one kernel is a DOT_EPILOGUE kernel gets generated code
 * for its epilogue, run block by block over the product's rows. */
TEST(epilogue_generated_code_runs_the_epilogue) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t rng = 15;
    int64_t N = 64;
    cj_val in[3] = {random_array(ctx, CJ_F32, 2, (int64_t[]){300, 64}, &rng),
                    random_array(ctx, CJ_F32, 2, (int64_t[]){64, 64}, &rng), random_array(ctx, CJ_F32, 1, &N, &rng)};
    cj_jit_opts cc = {0, NULL, 0, NULL, CJ_BACKEND_CC};
    fuse_set_dot_block_bytes_for_testing(1);
    cj_func *jf = cj_jit(cj_func_new(ctx, "relu_bias", f_relu_bias, 3, 1, NULL), &cc);
    cj_val y;
    cj_status st = cj_call(jf, in, &y);
    fuse_set_dot_block_bytes_for_testing(0);
    CHECK_MSG(st == CJ_OK, "%s", cj_error_message(ctx));
    cj_program_info info;
    CHECK(cj_jit_program_info(jf, in, &info) == CJ_OK);
    CHECK_EQ_INT(info.n_kernels, 1);
    CHECK_MSG(info.native, "no generated code: %s", info.compile_error);
    cj_ctx_free(ctx);
}
