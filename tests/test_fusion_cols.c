/* test_fusion_cols.c — reductions over leading axes (column sums, a batch
 * mean) fused into the loop that computes their operand: COLS kernels
 * (fusion.c: fuse_is_col_reduce; interp.c: run_cols; codegen.c:
 * emit_cols_head).
 *
 * Checks: sum(x*y, axis=0) is one fused kernel with no temporary, on both
 * backends, at shapes with one block of rows and many, columns under and
 * over a tile, three dimensions reduced over two leading axes; values
 * against plain double loops; the interpreter and generated C bit for
 * bit, and both bit for bit with the eager kernel at sizes it runs on one
 * thread (the same blocks of rows); a batch mean is one kernel and the
 * variance two (the second pass); max/min/prod, NaN and signed zeros; an
 * integer column sum (on the interpreter's units); and the result's bytes
 * with CJAX_NUM_THREADS=1, 2 and 4 (child processes of this binary). */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "test_util.h"

static void f_colsum(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    int64_t ax[2] = {0, 1};
    int q = *(const int *)u;
    out[0] = cj_sum(cj_mul(in[0], in[1]), q, ax, 0);
}

static void f_mean0(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    int64_t ax = 0;
    out[0] = cj_mean(in[0], 1, &ax, 0);
}

static void f_var0(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    int64_t ax = 0;
    cj_val m = cj_mean(in[0], 1, &ax, 0);
    cj_val d = cj_sub(in[0], m);
    out[0] = cj_mean(cj_mul(d, d), 1, &ax, 0);
}

static void f_folds0(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    int64_t ax = 0;
    cj_val x = in[0];
    out[0] = cj_reduce_max(cj_mul(x, cj_scalar(ctx, 3.0)), 1, &ax, 0);
    out[1] = cj_reduce_min(cj_sub(cj_mul(x, x), cj_scalar(ctx, 1.0)), 1, &ax, 0);
    out[2] = cj_prod(cj_add(cj_mul(x, cj_scalar(ctx, 1e-3)), cj_scalar(ctx, 1.0)), 1, &ax, 0);
}

static double *make_x(int64_t n, unsigned seed) {
    double *x = malloc(sizeof(double) * (size_t)n);
    unsigned s = seed;
    for (int64_t i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        x[i] = (double)(s >> 8) / (double)(1u << 24) * 4.0 - 2.0;
    }
    return x;
}

static cj_val make_input(cj_ctx *ctx, cj_dtype dt, const double *x, int rank, const int64_t *dims) {
    int64_t n = 1;
    for (int i = 0; i < rank; i++) n *= dims[i];
    size_t es = dt == CJ_F64 ? 8 : 4;
    void *b = malloc(es * (size_t)n);
    for (int64_t i = 0; i < n; i++) {
        if (dt == CJ_F64) ((double *)b)[i] = x[i];
        else ((float *)b)[i] = (float)x[i];
    }
    cj_val v = cj_array(ctx, dt, rank, dims, b);
    free(b);
    return v;
}

static cj_func *jit(cj_ctx *ctx, const char *name, cj_fn fn, int n_in, int n_out, cj_backend be, void *user) {
    cj_jit_opts o = {0, NULL, 0, NULL, be};
    return cj_jit(cj_func_new(ctx, name, fn, n_in, n_out, user), &o);
}

static double *read_all(cj_val v, int64_t n) {
    double *d = calloc((size_t)n, sizeof(double));
    if (cj_read_as(v, CJ_F64, d, sizeof(double) * (size_t)n) != CJ_OK)
        for (int64_t i = 0; i < n; i++) d[i] = NAN;
    return d;
}

static int count(const char *s, const char *what) {
    int n = 0;
    for (const char *p = s; (p = strstr(p, what)); p++) n++;
    return n;
}

/* shapes: rows, columns (and a middle axis reduced too when q == 2) */
typedef struct col_case {
    int rank, q;
    int64_t dims[3];
} col_case;

static const col_case cases[] = {
    {2, 1, {300, 1000, 0}},  /* 5 blocks, the last short; one column tile */
    {2, 1, {130, 2500, 0}},  /* 3 blocks; three column tiles, a tail */
    {2, 1, {64, 77, 0}},     /* exactly one block */
    {2, 1, {2, 5, 0}},       /* two rows */
    {3, 2, {6, 50, 33}},     /* [6, 50] reduced: 300 rows of 33 */
    {3, 1, {70, 4, 9}},      /* one leading axis, 36 columns over two axes */
};

TEST(cols_sum_of_product_one_kernel_no_temporary) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_dtype dts[2] = {CJ_F32, CJ_F64};
    for (size_t ci = 0; ci < sizeof cases / sizeof *cases; ci++) {
        const col_case *cs = &cases[ci];
        int64_t n = 1, R = 1;
        for (int i = 0; i < cs->rank; i++) n *= cs->dims[i];
        for (int i = 0; i < cs->q; i++) R *= cs->dims[i];
        int64_t C = n / R;
        double *x = make_x(n, 5 + (unsigned)ci), *y = make_x(n, 77 + (unsigned)ci);
        for (int d = 0; d < 2; d++) {
            cj_val in[2] = {make_input(ctx, dts[d], x, cs->rank, cs->dims), make_input(ctx, dts[d], y, cs->rank, cs->dims)};
            cj_val out[2];
            for (int b = 0; b < 2; b++) {
                cj_func *f = jit(ctx, "colsum", f_colsum, 2, 1, b ? CJ_BACKEND_CC : CJ_BACKEND_INTERP, (void *)&cs->q);
                CHECK(cj_call(f, in, &out[b]) == CJ_OK);
                cj_program_info info;
                CHECK(cj_jit_program_info(f, in, &info) == CJ_OK);
                CHECK_MSG(info.n_kernels == 1 && info.n_fused_kernels == 1, "case %zu: %d kernels, %d fused", ci,
                          info.n_kernels, info.n_fused_kernels);
                if (b) CHECK_MSG(info.native, "case %zu: not generated", ci);
                cj_memory_analysis m;
                memset(&m, 0, sizeof m);
                CHECK(cj_jit_memory_analysis(f, in, &m) == CJ_OK);
                CHECK_EQ_INT((int)m.temp_bytes, 0); /* x*y is never stored */
                char *dump = cj_jit_dump(f, in, "fuse");
                CHECK(dump && strstr(dump, "cols") != NULL);
                if (dump) cj_string_free(ctx, dump);
                double *got = read_all(out[b], C);
                for (int64_t j = 0; j < C; j++) {
                    double want = 0;
                    for (int64_t r = 0; r < R; r++) {
                        double a = d ? x[r * C + j] : (double)(float)x[r * C + j];
                        double e = d ? y[r * C + j] : (double)(float)y[r * C + j];
                        want += d ? a * e : (double)((float)a * (float)e);
                    }
                    CHECK_NEAR(got[j], want, d ? 1e-12 : 2e-5, d ? 1e-12 : 1e-4);
                }
                free(got);
            }
            CHECK_MSG(tu_same_bits(out[0], out[1]), "case %zu %s: interpreter and generated C differ", ci,
                      d ? "f64" : "f32");
            /* the eager kernel sums the same blocks of rows when it runs
             * on one thread (below the pool's threshold) */
            if (n < 32768) {
                int64_t ax[2] = {0, 1};
                cj_val eager = cj_sum(cj_mul(in[0], in[1]), cs->q, ax, 0);
                CHECK_MSG(tu_same_bits(eager, out[0]), "case %zu %s: eager and jit differ", ci, d ? "f64" : "f32");
            }
        }
        free(x);
        free(y);
    }
    cj_ctx_free(ctx);
}

TEST(cols_generated_folds_in_the_element_loop) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t dims[2] = {300, 1000};
    double *x = make_x(300000, 3);
    cj_val in[2] = {make_input(ctx, CJ_F32, x, 2, dims), make_input(ctx, CJ_F32, x, 2, dims)};
    int q = 1;
    cj_func *f = jit(ctx, "colsum", f_colsum, 2, 1, CJ_BACKEND_CC, &q);
    cj_val out;
    CHECK(cj_call(f, in, &out) == CJ_OK);
    char *src = cj_jit_dump(f, in, "c");
    CHECK(src != NULL);
    if (src) {
        CHECK_EQ_INT(count(src, "[TILE];"), 0);    /* x*y a loop local */
        CHECK_EQ_INT(count(src, "(cjk_fold)"), 0); /* no fold call */
        CHECK(count(src, "pa") > 0 && strstr(src, "for (i64 r = cb * 64LL") != NULL);
        cj_string_free(ctx, src);
    }
    free(x);
    cj_ctx_free(ctx);
}

TEST(cols_batch_mean_one_kernel_variance_two) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t N = 1000, C = 70, dims[2] = {N, C};
    double *x = make_x(N * C, 11);
    cj_val in = make_input(ctx, CJ_F32, x, 2, dims);
    for (int b = 0; b < 2; b++) {
        cj_func *fm = jit(ctx, "mean0", f_mean0, 1, 1, b ? CJ_BACKEND_CC : CJ_BACKEND_INTERP, NULL);
        cj_func *fv = jit(ctx, "var0", f_var0, 1, 1, b ? CJ_BACKEND_CC : CJ_BACKEND_INTERP, NULL);
        cj_val m, v;
        CHECK(cj_call(fm, &in, &m) == CJ_OK);
        CHECK(cj_call(fv, &in, &v) == CJ_OK);
        cj_program_info im, iv;
        CHECK(cj_jit_program_info(fm, &in, &im) == CJ_OK && cj_jit_program_info(fv, &in, &iv) == CJ_OK);
        CHECK_EQ_INT(im.n_kernels, 1); /* the sum and the division per column */
        CHECK_EQ_INT(iv.n_kernels, 2); /* the mean, then (x - m)² folded: two passes */
        cj_memory_analysis mv;
        memset(&mv, 0, sizeof mv);
        CHECK(cj_jit_memory_analysis(fv, &in, &mv) == CJ_OK);
        CHECK((int64_t)mv.temp_bytes <= C * 4 + 64); /* the mean only */
        double *gm = read_all(m, C), *gv = read_all(v, C);
        for (int64_t j = 0; j < C; j++) {
            double s = 0, ss = 0;
            for (int64_t r = 0; r < N; r++) s += (double)(float)x[r * C + j];
            s /= (double)N;
            for (int64_t r = 0; r < N; r++) ss += ((double)(float)x[r * C + j] - s) * ((double)(float)x[r * C + j] - s);
            CHECK_NEAR(gm[j], s, 1e-4, 1e-5);
            CHECK_NEAR(gv[j], ss / (double)N, 1e-4, 1e-5);
        }
        free(gm);
        free(gv);
    }
    free(x);
    cj_ctx_free(ctx);
}

TEST(cols_max_min_prod_nan_and_signed_zeros) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t R = 200, C = 1500, dims[2] = {R, C};
    double *x = make_x(R * C, 17);
    /* column 7 holds a NaN; column 9 only zeros of both signs */
    x[123 * C + 7] = NAN;
    for (int64_t r = 0; r < R; r++) x[r * C + 9] = r % 3 ? 0.0 : -0.0;
    cj_dtype dts[2] = {CJ_F32, CJ_F64};
    for (int d = 0; d < 2; d++) {
        cj_val in = make_input(ctx, dts[d], x, 2, dims);
        cj_val out[2][3];
        for (int b = 0; b < 2; b++) {
            cj_func *f = jit(ctx, "folds0", f_folds0, 1, 3, b ? CJ_BACKEND_CC : CJ_BACKEND_INTERP, NULL);
            CHECK(cj_call(f, &in, out[b]) == CJ_OK);
            cj_program_info info;
            CHECK(cj_jit_program_info(f, &in, &info) == CJ_OK);
            CHECK_EQ_INT(info.n_kernels, 1); /* three reductions in one kernel */
            double *mx = read_all(out[b][0], C), *mn = read_all(out[b][1], C), *pr = read_all(out[b][2], C);
            for (int64_t j = 0; j < C; j++) {
                double wmx = -INFINITY, wmn = INFINITY, wpr = 1;
                bool nan = false;
                for (int64_t r = 0; r < R; r++) {
                    double v = d ? x[r * C + j] : (double)(float)x[r * C + j];
                    nan |= isnan(v);
                    wmx = fmax(wmx, v * 3.0);
                    wmn = fmin(wmn, v * v - 1.0);
                    wpr *= d ? v * (double)1e-3f + 1.0 : (double)((float)((float)v * 1e-3f) + 1.0f);
                }
                if (nan) {
                    CHECK(isnan(mx[j]) && isnan(mn[j]) && isnan(pr[j]));
                    continue;
                }
                CHECK_NEAR(mx[j], wmx, d ? 1e-15 : 1e-7, 0);
                CHECK_NEAR(mn[j], wmn, d ? 1e-15 : 1e-6, 1e-6);
                CHECK_NEAR(pr[j], wpr, d ? 1e-13 : 1e-5, 0);
            }
            CHECK(mx[9] == 0 && !signbit(mx[9])); /* max of ±0 is +0 */
            free(mx);
            free(mn);
            free(pr);
        }
        for (int i = 0; i < 3; i++) CHECK_MSG(tu_same_bits(out[0][i], out[1][i]), "fold %d %s", i, d ? "f64" : "f32");
    }
    free(x);
    cj_ctx_free(ctx);
}

static void f_isum0(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    int64_t ax = 0;
    out[0] = cj_sum(cj_add(in[0], cj_scalar_int(ctx, 1)), 1, &ax, 0);
}

TEST(cols_integer_sum_on_the_interpreters_units) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t R = 333, C = 1100, dims[2] = {R, C};
    int32_t *v = malloc(sizeof(int32_t) * (size_t)(R * C));
    for (int64_t i = 0; i < R * C; i++) v[i] = (int32_t)(i % 23) - 11;
    cj_val x = cj_array(ctx, CJ_I32, 2, dims, v);
    cj_val out[2];
    for (int b = 0; b < 2; b++) {
        cj_func *f = jit(ctx, "isum0", f_isum0, 1, 1, b ? CJ_BACKEND_CC : CJ_BACKEND_INTERP, NULL);
        CHECK(cj_call(f, &x, &out[b]) == CJ_OK);
        cj_program_info info;
        CHECK(cj_jit_program_info(f, &x, &info) == CJ_OK);
        CHECK_EQ_INT(info.n_kernels, 1);
        int32_t *got = malloc(sizeof(int32_t) * (size_t)C);
        CHECK(cj_read(out[b], got, sizeof(int32_t) * (size_t)C) == CJ_OK);
        for (int64_t j = 0; j < C; j++) {
            int32_t want = 0;
            for (int64_t r = 0; r < R; r++) want += v[r * C + j] + 1;
            CHECK_EQ_INT(got[j], want);
        }
        free(got);
    }
    CHECK(tu_same_bits(out[0], out[1]));
    free(v);
    cj_ctx_free(ctx);
}

/* ---- the same bytes with 1, 2 and 4 threads ---- */

#define CHILD_ENV "CJAX_TEST_COLS_OUT"
enum { T_R = 1500, T_C = 3001 };

TEST(cols_thread_child) {
    const char *path = getenv(CHILD_ENV);
    if (!path) return; /* only in the children the next test starts */
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t dims[2] = {T_R, T_C};
    double *x = make_x(T_R * T_C, 31), *y = make_x(T_R * T_C, 32);
    FILE *fp = fopen(path, "wb");
    CHECK(fp != NULL);
    int q = 1;
    for (int d = 0; d < 2 && fp; d++) {
        cj_val in[2] = {make_input(ctx, d ? CJ_F64 : CJ_F32, x, 2, dims), make_input(ctx, d ? CJ_F64 : CJ_F32, y, 2, dims)};
        for (int b = 0; b < 2; b++) {
            cj_func *f = jit(ctx, "colsum", f_colsum, 2, 1, b ? CJ_BACKEND_CC : CJ_BACKEND_INTERP, &q);
            cj_func *fv = jit(ctx, "var0", f_var0, 1, 1, b ? CJ_BACKEND_CC : CJ_BACKEND_INTERP, NULL);
            cj_val o[2];
            CHECK(cj_call(f, in, &o[0]) == CJ_OK);
            CHECK(cj_call(fv, in, &o[1]) == CJ_OK);
            for (int i = 0; i < 2; i++) {
                double *v = read_all(o[i], T_C);
                fwrite(v, sizeof(double), T_C, fp);
                free(v);
            }
        }
        /* eager: reduce.c's kernel, whose leading-axis blocks are the COLS units' */
        cj_val e[2];
        f_colsum(ctx, in, &e[0], &q);
        f_var0(ctx, in, &e[1], NULL);
        for (int i = 0; i < 2; i++) {
            CHECK_MSG(cj_error(ctx) == CJ_OK, "%s", cj_error_message(ctx));
            double *v = read_all(e[i], T_C);
            fwrite(v, sizeof(double), T_C, fp);
            free(v);
        }
    }
    if (fp) fclose(fp);
    free(x);
    free(y);
    cj_ctx_free(ctx);
}

TEST(cols_same_bits_one_two_four_threads) {
    if (getenv(CHILD_ENV)) return;
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    CHECK(len > 0);
    if (len <= 0) return;
    self[len] = 0;
    char dir[] = "/tmp/cjax_cols_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    enum { N = 12 * T_C }; /* per dtype: interp, cc, eager; each a column sum and a variance */
    double *got[3];
    const int threads[3] = {1, 2, 4};
    for (int i = 0; i < 3; i++) {
        char path[256];
        snprintf(path, sizeof path, "%s/t%d", dir, threads[i]);
        got[i] = calloc(N, sizeof(double));
        CHECK_EQ_INT(tu_run_child(self, "cols_thread_child", CHILD_ENV, path, threads[i]), 0);
        FILE *fp = fopen(path, "rb");
        CHECK(fp != NULL);
        if (fp) {
            CHECK_EQ_INT((int)fread(got[i], sizeof(double), N, fp), N);
            fclose(fp);
        }
        unlink(path);
    }
    rmdir(dir);
    for (int i = 1; i < 3; i++)
        CHECK_MSG(memcmp(got[0], got[i], sizeof(double) * N) == 0, "1 and %d threads differ", threads[i]);
    /* interpreter, generated C and eager, per dtype, bit for bit too (the
     * eager kernel splits 1,500 rows over threads in the same 64-row blocks) */
    for (int d = 0; d < 2; d++) {
        CHECK(memcmp(got[0] + (6 * d) * T_C, got[0] + (6 * d + 2) * T_C, sizeof(double) * 2 * T_C) == 0);
        CHECK_MSG(memcmp(got[0] + (6 * d) * T_C, got[0] + (6 * d + 4) * T_C, sizeof(double) * 2 * T_C) == 0,
                  "eager and jit differ (%s)", d ? "f64" : "f32");
    }
    /* the f64 column sums against a double loop */
    double *x = make_x(T_R * T_C, 31), *y = make_x(T_R * T_C, 32);
    for (int64_t j = 0; j < T_C; j += 97) {
        double want = 0;
        for (int64_t r = 0; r < T_R; r++) want += x[r * T_C + j] * y[r * T_C + j];
        CHECK_NEAR(got[0][6 * T_C + j], want, 1e-12, 1e-12);
    }
    free(x);
    free(y);
    for (int i = 0; i < 3; i++) free(got[i]);
}
