/* test_long_reduce.c — whole-array reductions of more than 65,536 elements
 * fused into the loop that produces their operand (fusion.c:
 * fuse_is_long_rows; interp.c: run_long_rows; codegen.c: the tiles as a
 * loop function). Checks the kernel form (one kernel for
 * sum(tanh(a*x+b)*c+d), two for the variance, no temporary the size of
 * the input), the values against plain double (or exact integer) loops,
 * the interpreter and generated C bit for bit, and the result bit for bit
 * across thread counts: child processes of this binary run with
 * CJAX_NUM_THREADS=1, 2 and 4 and write their bytes to a file. Also a
 * long reduction inside a fori_loop body, and several long rows
 * (f64[3, 100003] reduced over its rows). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compiler/program.h"
#include "core/func.h"
#include "harness.h"
#include "test_util.h"

enum { N_ODD = 200003 }; /* over 65,536 and no multiple of a tile */

static void f_tanh_sum(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    cj_val t = cj_tanh(cj_add(cj_mul(in[0], cj_scalar(ctx, 1.5)), cj_scalar(ctx, 0.25)));
    out[0] = cj_sum(cj_sub(cj_mul(t, cj_scalar(ctx, 2.0)), cj_scalar(ctx, 0.5)), 0, NULL, 0);
}

static void f_variance(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    cj_val d = cj_sub(in[0], cj_mean(in[0], 0, NULL, 0));
    out[0] = cj_mean(cj_mul(d, d), 0, NULL, 0);
}

/* several reductions of one row, one materialised row value, and a
 * per-row value computed from two reductions */
static void f_several(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    cj_val s = cj_sin(in[0]);
    out[0] = s;
    out[1] = cj_reduce_max(s, 0, NULL, 0);
    out[2] = cj_add(cj_sum(cj_mul(in[0], in[0]), 0, NULL, 0), cj_mul(cj_sum(s, 0, NULL, 0), cj_scalar(ctx, 3.0)));
}

/* x[i] = a smooth pseudo-random value in [-2, 2) */
static double *make_x(int64_t n, unsigned seed) {
    double *x = malloc(sizeof(double) * (size_t)n);
    unsigned s = seed;
    for (int64_t i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        x[i] = (double)(s >> 8) / (double)(1u << 24) * 4.0 - 2.0;
    }
    return x;
}

static cj_val make_input(cj_ctx *ctx, cj_dtype dt, const double *x, int64_t n) {
    size_t es = dt == CJ_F64 ? 8 : 4;
    void *b = malloc(es * (size_t)n);
    for (int64_t i = 0; i < n; i++) {
        if (dt == CJ_F64) ((double *)b)[i] = x[i];
        else ((float *)b)[i] = (float)x[i];
    }
    cj_val v = cj_array(ctx, dt, 1, &n, b);
    free(b);
    return v;
}

static cj_func *jit(cj_ctx *ctx, const char *name, cj_fn fn, int n_out, cj_backend be) {
    cj_jit_opts o = {0, NULL, 0, NULL, be};
    return cj_jit(cj_func_new(ctx, name, fn, 1, n_out, NULL), &o);
}

/* The kernels jit makes of fn at f32[n]: how many, and how many are
 * SINGLE (a reduction of its own). */
static int kernels_of(cj_ctx *ctx, cj_fn fn, int n_out, int64_t n, int *singles, int *long_rows) {
    rt_aval a = rt_aval_make(CJ_F32, 1, &n);
    cj_func *f = cj_func_new(ctx, "k", fn, 1, n_out, NULL);
    ir_func *ir = func_trace_to_ir(f, &a, NULL, "long reduce test");
    compiled *c = ir ? compile_ir(ctx, ir) : NULL;
    int nk = c ? c->n_kernels : -1;
    *singles = *long_rows = 0;
    for (int k = 0; c && k < c->n_kernels; k++) {
        *singles += c->kernels[k].kind == KERNEL_SINGLE;
        *long_rows += fuse_is_long_rows(&c->kernels[k]);
    }
    if (c) compiled_free(ctx, c);
    if (ir) ir_free(ir);
    cj_func_free(f);
    return nk;
}

static double read1(cj_val v) { /* NaN when unreadable, which fails the comparisons */
    double d = 0;
    return cj_read_as(v, CJ_F64, &d, sizeof d) == CJ_OK ? d : NAN;
}

TEST(long_reduce_kernel_form) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int singles, lr;
    /* one pass: the reduction joins its producers' loop */
    CHECK_EQ_INT(kernels_of(ctx, f_tanh_sum, 1, 10000000, &singles, &lr), 1);
    CHECK_EQ_INT(singles, 0);
    CHECK_EQ_INT(lr, 1);
    /* the variance: two passes (the mean, then (x - mean)^2 summed) */
    CHECK_EQ_INT(kernels_of(ctx, f_variance, 1, 10000000, &singles, &lr), 2);
    CHECK_EQ_INT(singles, 0);
    CHECK_EQ_INT(lr, 2);
    /* no temporary the size of the input */
    int64_t n = 10000000;
    cj_val x = cj_zeros(ctx, CJ_F32, 1, &n);
    cj_func *fs[2] = {jit(ctx, "ts", f_tanh_sum, 1, CJ_BACKEND_INTERP), jit(ctx, "var", f_variance, 1, CJ_BACKEND_INTERP)};
    for (int i = 0; i < 2; i++) {
        cj_memory_analysis m;
        memset(&m, 0, sizeof m);
        CHECK(cj_jit_memory_analysis(fs[i], &x, &m) == CJ_OK);
        CHECK(m.temp_bytes < 1024);
    }
    cj_ctx_free(ctx);
}

/* values against double loops; interpreter and generated C bit for bit */
TEST(long_reduce_values_and_backends) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t n = N_ODD;
    double *x = make_x(n, 7);
    double ref_ts = 0, mean = 0, var = 0, sq = 0, ssum = 0, smax = -INFINITY;
    for (int64_t i = 0; i < n; i++) ref_ts += tanh(x[i] * 1.5 + 0.25) * 2.0 - 0.5;
    for (int64_t i = 0; i < n; i++) mean += x[i];
    mean /= (double)n;
    for (int64_t i = 0; i < n; i++) var += (x[i] - mean) * (x[i] - mean);
    var /= (double)n;
    for (int64_t i = 0; i < n; i++) sq += x[i] * x[i], ssum += sin(x[i]), smax = fmax(smax, sin(x[i]));
    cj_dtype dts[2] = {CJ_F32, CJ_F64};
    for (int d = 0; d < 2; d++) {
        cj_val in = make_input(ctx, dts[d], x, n);
        double tol = dts[d] == CJ_F32 ? 2e-4 : 1e-10; /* relative, of sums of 2e5 terms */
        cj_val out[2][3];
        for (int b = 0; b < 2; b++) {
            cj_backend be = b ? CJ_BACKEND_CC : CJ_BACKEND_INTERP;
            cj_func *ts = jit(ctx, "ts", f_tanh_sum, 1, be), *va = jit(ctx, "var", f_variance, 1, be),
                    *sv = jit(ctx, "several", f_several, 3, be);
            cj_val o3[3];
            CHECK(cj_call(ts, &in, &out[b][0]) == CJ_OK);
            CHECK(cj_call(va, &in, &out[b][1]) == CJ_OK);
            CHECK(cj_call(sv, &in, o3) == CJ_OK);
            out[b][2] = o3[2];
            CHECK(fabs(read1(out[b][0]) - ref_ts) <= tol * fabs(ref_ts) + 1e-3);
            CHECK(fabs(read1(out[b][1]) - var) <= tol * var);
            CHECK(fabs(read1(o3[1]) - smax) <= 1e-6);
            CHECK(fabs(read1(o3[2]) - (sq + 3.0 * ssum)) <= tol * (sq + 3 * fabs(ssum)));
            double *row = malloc(sizeof(double) * (size_t)n); /* the materialised sin row */
            CHECK(cj_read_as(o3[0], CJ_F64, row, sizeof(double) * (size_t)n) == CJ_OK);
            double worst = 0;
            for (int64_t i = 0; i < n; i++) worst = fmax(worst, fabs(row[i] - sin(x[i])));
            CHECK(worst <= (dts[d] == CJ_F32 ? 1e-6 : 1e-15));
            free(row);
        }
        for (int i = 0; i < 3; i++) CHECK(tu_same_bits(out[0][i], out[1][i]));
    }
    free(x);
    cj_ctx_free(ctx);
}

/* integer sums are exact; max/min of a long row with a NaN propagate it */
static void f_isum(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    cj_val y = cj_add(cj_mul(in[0], cj_scalar_int(ctx, 3)), cj_scalar_int(ctx, 1));
    out[0] = cj_sum(y, 0, NULL, 0);
    out[1] = cj_reduce_max(y, 0, NULL, 0);
}

static void f_fmin(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_reduce_min(cj_exp(in[0]), 0, NULL, 0);
}

TEST(long_reduce_integers_and_nan) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t n = N_ODD;
    int32_t *xi = malloc(sizeof(int32_t) * (size_t)n);
    int32_t sum = 0, mx = INT32_MIN;
    for (int64_t i = 0; i < n; i++) {
        xi[i] = (int32_t)((i * 7919) % 2001) - 1000;
        int32_t y = xi[i] * 3 + 1;
        sum = (int32_t)((uint32_t)sum + (uint32_t)y);
        if (y > mx) mx = y;
    }
    cj_val in = cj_array(ctx, CJ_I32, 1, &n, xi);
    float *xf = malloc(sizeof(float) * (size_t)n);
    for (int64_t i = 0; i < n; i++) xf[i] = (float)((i % 1000) - 500) * 0.01f;
    xf[123457] = NAN;
    cj_val inf = cj_array(ctx, CJ_F32, 1, &n, xf);
    for (int b = 0; b < 2; b++) {
        cj_backend be = b ? CJ_BACKEND_CC : CJ_BACKEND_INTERP;
        cj_jit_opts o = {0, NULL, 0, NULL, be};
        cj_func *fi = cj_jit(cj_func_new(ctx, "isum", f_isum, 1, 2, NULL), &o);
        cj_func *fm = cj_jit(cj_func_new(ctx, "fmin", f_fmin, 1, 1, NULL), &o);
        cj_val out[2], m;
        CHECK(cj_call(fi, &in, out) == CJ_OK);
        int32_t got[2];
        CHECK(cj_read(out[0], &got[0], 4) == CJ_OK && cj_read(out[1], &got[1], 4) == CJ_OK);
        CHECK_EQ_INT(got[0], sum);
        CHECK_EQ_INT(got[1], mx);
        CHECK(cj_call(fm, &inf, &m) == CJ_OK);
        float mv = 0;
        CHECK(cj_read(m, &mv, sizeof mv) == CJ_OK && isnan(mv));
    }
    free(xi);
    free(xf);
    cj_ctx_free(ctx);
}

/* ---- the same bits for any thread count ---- */

#define CHILD_ENV "CJAX_TEST_LONG_REDUCE_OUT"

/* In a child: the results' bytes to the file CHILD_ENV names. */
TEST(long_reduce_thread_child) {
    const char *path = getenv(CHILD_ENV);
    if (!path) return; /* only in the children the next test starts */
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t n = 3000017;
    double *x = make_x(n, 11);
    cj_val in = make_input(ctx, CJ_F32, x, n);
    FILE *fp = fopen(path, "wb");
    CHECK(fp != NULL);
    for (int b = 0; b < 2 && fp; b++) {
        cj_backend be = b ? CJ_BACKEND_CC : CJ_BACKEND_INTERP;
        cj_func *fs[3] = {jit(ctx, "ts", f_tanh_sum, 1, be), jit(ctx, "var", f_variance, 1, be),
                          jit(ctx, "several", f_several, 3, be)};
        for (int i = 0; i < 3; i++) {
            cj_val out[3];
            CHECK(cj_call(fs[i], &in, out) == CJ_OK);
            float v = 0;
            CHECK(cj_read(out[i == 2 ? 2 : 0], &v, sizeof v) == CJ_OK);
            fwrite(&v, sizeof v, 1, fp);
        }
    }
    if (fp) fclose(fp);
    free(x);
    cj_ctx_free(ctx);
}

TEST(long_reduce_same_bits_for_any_thread_count) {
    if (getenv(CHILD_ENV)) return;
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    CHECK(len > 0);
    if (len <= 0) return;
    self[len] = 0;
    char dir[] = "/tmp/cjax_long_reduce_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    float got[3][6];
    int counts[3] = {1, 2, 4};
    for (int i = 0; i < 3; i++) {
        char path[256];
        snprintf(path, sizeof path, "%s/t%d", dir, counts[i]);
        CHECK_EQ_INT(tu_run_child(self, "long_reduce_thread_child", CHILD_ENV, path, counts[i]), 0);
        FILE *fp = fopen(path, "rb");
        CHECK(fp != NULL);
        memset(got[i], 0, sizeof got[i]);
        if (fp) {
            CHECK_EQ_INT((int)fread(got[i], sizeof(float), 6, fp), 6);
            fclose(fp);
        }
        unlink(path);
    }
    rmdir(dir);
    /* every thread count, and both backends, the same bytes */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 6; j++) CHECK(memcmp(&got[i][j], &got[0][j % 3], sizeof(float)) == 0);
}

/* ---- inside a loop body ---- */

/* carries (x, s): x = x * 0.5 + 1, s = s + sum(tanh(x)) */
static void f_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    out[0] = cj_add(cj_mul(in[1], cj_scalar(ctx, 0.5)), cj_scalar(ctx, 1.0));
    out[1] = cj_add(in[2], cj_sum(cj_tanh(out[0]), 0, NULL, 0));
}

static void f_loop(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    cj_val init[2] = {in[0], cj_scalar_typed(ctx, 0.0, CJ_F64)};
    cj_fori_loop(0, 3, cj_func_new(ctx, "body", f_body, 3, 2, NULL), 2, init, out);
}

TEST(long_reduce_in_a_loop_body) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t n = N_ODD;
    double *x = make_x(n, 5);
    cj_val in = make_input(ctx, CJ_F64, x, n);
    double ref = 0;
    for (int it = 0; it < 3; it++)
        for (int64_t i = 0; i < n; i++) {
            x[i] = x[i] * 0.5 + 1.0;
            ref += tanh(x[i]);
        }
    cj_val out[2][2];
    for (int b = 0; b < 2; b++) {
        cj_jit_opts o = {0, NULL, 0, NULL, b ? CJ_BACKEND_CC : CJ_BACKEND_INTERP};
        cj_func *jf = cj_jit(cj_func_new(ctx, "loop", f_loop, 1, 2, NULL), &o);
        CHECK(cj_call(jf, &in, out[b]) == CJ_OK);
        CHECK(fabs(read1(out[b][1]) - ref) <= 1e-9 * fabs(ref));
    }
    CHECK(tu_same_bits(out[0][1], out[1][1]));
    CHECK(tu_same_bits(out[0][0], out[1][0]));
    free(x);
    cj_ctx_free(ctx);
}

/* ---- several long rows ---- */

/* per row of f[3, 100003]: mean(tanh(x) * 2), max(x), and the rows' sum
 * of squares plus 1 */
static void f_rows(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    int64_t ax = 1;
    out[0] = cj_mean(cj_mul(cj_tanh(in[0]), cj_scalar(ctx, 2.0)), 1, &ax, 0);
    out[1] = cj_reduce_max(in[0], 1, &ax, 0);
    out[2] = cj_add(cj_sum(cj_mul(in[0], in[0]), 1, &ax, 0), cj_scalar(ctx, 1.0));
}

TEST(long_reduce_several_rows) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t R = 3, C = 100003, n = R * C, dims[2] = {R, C};
    double *x = make_x(n, 3);
    cj_val flat = make_input(ctx, CJ_F64, x, n), in = cj_reshape(flat, 2, dims);
    /* the kernels: one long-rows kernel, no SINGLE reduction */
    rt_aval a = rt_aval_make(CJ_F64, 2, dims);
    cj_func *f = cj_func_new(ctx, "rows", f_rows, 1, 3, NULL);
    ir_func *ir = func_trace_to_ir(f, &a, NULL, "long rows test");
    compiled *c = ir ? compile_ir(ctx, ir) : NULL;
    CHECK(c != NULL);
    int singles = 0, lr = 0;
    for (int k = 0; c && k < c->n_kernels; k++) {
        singles += c->kernels[k].kind == KERNEL_SINGLE;
        lr += fuse_is_long_rows(&c->kernels[k]);
    }
    CHECK_EQ_INT(singles, 0);
    CHECK_EQ_INT(lr, 1);
    if (c) compiled_free(ctx, c);
    if (ir) ir_free(ir);
    cj_val out[2][3];
    for (int b = 0; b < 2; b++) {
        cj_jit_opts o = {0, NULL, 0, NULL, b ? CJ_BACKEND_CC : CJ_BACKEND_INTERP};
        cj_func *jf = cj_jit(cj_func_new(ctx, "rows", f_rows, 1, 3, NULL), &o);
        CHECK(cj_call(jf, &in, out[b]) == CJ_OK);
        double got[3][3];
        for (int i = 0; i < 3; i++) CHECK(cj_read_as(out[b][i], CJ_F64, got[i], sizeof got[i]) == CJ_OK);
        for (int64_t r = 0; r < R; r++) {
            double m = 0, mx = -INFINITY, sq = 0;
            for (int64_t i = 0; i < C; i++) {
                double v = x[r * C + i];
                m += tanh(v) * 2.0, mx = fmax(mx, v), sq += v * v;
            }
            m /= (double)C;
            CHECK(fabs(got[0][r] - m) <= 1e-12);
            CHECK(got[1][r] == mx);
            CHECK(fabs(got[2][r] - (sq + 1.0)) <= 1e-10 * sq);
        }
    }
    for (int i = 0; i < 3; i++) CHECK(tu_same_bits(out[0][i], out[1][i]));
    free(x);
    cj_ctx_free(ctx);
}
