/* test_fusion_reduce_passes.c — a long reduction folds inside the element
 * loop that computes its operand (codegen.c: "folds inside the element
 * loop", the row fold as C text from reduce.c: prim_fold_c), so
 * variance is two passes over x with nothing stored between an element's
 * computation and its fold.
 *
 * Checks: the generated C of variance has its folds inline (no fold call,
 * no tile array) in two long-rows kernels; sum, max, min and prod of f32
 * and f64 over rows whose last tile is a whole tile, a long tail (the
 * lane-0 path) or a short one (the one-chain path), values against plain
 * double loops and the interpreter's row folds bit for bit (NaN and
 * signed zeros in max/min included); two dtypes in one kernel (the second
 * lane count stays a call); the result bit for bit with
 * CJAX_NUM_THREADS=1 and 2 (child processes of this binary); and a
 * full reduction fused into its producers' loop at every size, 1,000 to
 * 10^6 elements, one kernel each. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "test_util.h"

static void f_variance(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    cj_val d = cj_sub(in[0], cj_mean(in[0], 0, NULL, 0));
    out[0] = cj_mean(cj_mul(d, d), 0, NULL, 0);
}

/* the four folds, each of an elementwise chain over x */
static void f_folds(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    cj_val x = in[0];
    out[0] = cj_sum(cj_mul(cj_sub(x, cj_scalar(ctx, 0.5)), x), 0, NULL, 0);
    out[1] = cj_reduce_max(cj_mul(x, cj_scalar(ctx, 3.0)), 0, NULL, 0);
    out[2] = cj_reduce_min(cj_sub(cj_mul(x, x), cj_scalar(ctx, 1.0)), 0, NULL, 0);
    out[3] = cj_prod(cj_add(cj_mul(x, cj_scalar(ctx, 1e-5)), cj_scalar(ctx, 1.0)), 0, NULL, 0);
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

static cj_func *jit(cj_ctx *ctx, const char *name, cj_fn fn, int n_in, int n_out, cj_backend be) {
    cj_jit_opts o = {0, NULL, 0, NULL, be};
    return cj_jit(cj_func_new(ctx, name, fn, n_in, n_out, NULL), &o);
}

static double read1(cj_val v) { /* NaN when unreadable, which fails the comparisons */
    double d = 0;
    return cj_read_as(v, CJ_F64, &d, sizeof d) == CJ_OK ? d : NAN;
}

static int count(const char *s, const char *what) {
    int n = 0;
    for (const char *p = s; (p = strstr(p, what)); p++) n++;
    return n;
}

TEST(reduce_passes_variance_folds_inline) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t n = 1000000;
    cj_dtype dts[2] = {CJ_F32, CJ_F64};
    for (int d = 0; d < 2; d++) {
        cj_val x = cj_linspace(ctx, -3, 3, n, dts[d]);
        cj_func *f = jit(ctx, "var", f_variance, 1, 1, CJ_BACKEND_CC);
        cj_val out;
        CHECK(cj_call(f, &x, &out) == CJ_OK);
        cj_program_info info;
        CHECK(cj_jit_program_info(f, &x, &info) == CJ_OK);
        CHECK(info.native);
        CHECK_EQ_INT(info.n_kernels, 2);
        char *src = cj_jit_dump(f, &x, "c");
        CHECK(src != NULL);
        /* both passes fold in their loops: no call per tile, no tile array */
        CHECK_EQ_INT(count(src, "(cjk_fold)"), 0);
        CHECK_EQ_INT(count(src, "[TILE];"), 0);
        CHECK_EQ_INT(count(src, d ? "double fa" : "float fa"), 2);
        cj_string_free(ctx, src);
        /* the variance of n evenly spaced points on [-3, 3]: 9 (n+1) / (3 (n-1)) */
        double want = 9.0 * (double)(n + 1) / (3.0 * (double)(n - 1));
        CHECK_NEAR(read1(out), want, d ? 1e-12 : 2e-5, 0);
    }
    cj_ctx_free(ctx);
}

/* an integer sum stays a call per tile (generated code declares no
 * fixed-width integer types) */
static void f_isum(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    out[0] = cj_sum(cj_add(in[0], cj_scalar_int(ctx, 1)), 0, NULL, 0);
}

TEST(reduce_passes_integer_fold_is_a_call) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t n = 100003;
    int32_t *v = malloc(sizeof(int32_t) * (size_t)n);
    int32_t want = 0;
    for (int64_t i = 0; i < n; i++) v[i] = (int32_t)(i % 17) - 8, want += v[i] + 1;
    cj_val x = cj_array(ctx, CJ_I32, 1, &n, v);
    cj_func *f = jit(ctx, "isum", f_isum, 1, 1, CJ_BACKEND_CC);
    cj_val out;
    CHECK(cj_call(f, &x, &out) == CJ_OK);
    int32_t got = 0;
    CHECK(cj_read(out, &got, sizeof got) == CJ_OK);
    CHECK_EQ_INT(got, want);
    char *src = cj_jit_dump(f, &x, "c");
    CHECK(src != NULL);
    CHECK_EQ_INT(count(src, "(cjk_fold)"), 1);
    cj_string_free(ctx, src);
    free(v);
    cj_ctx_free(ctx);
}

/* Rows of n elements: n % 1024 == 0 (whole tiles), 195 (a tail into
 * lane 0), 6 (a last tile shorter than two lanes' worth: one chain). */
static const int64_t sizes[3] = {131072, 200003, 66566};

TEST(reduce_passes_every_fold_every_tail) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_dtype dts[2] = {CJ_F32, CJ_F64};
    for (int si = 0; si < 3; si++) {
        int64_t n = sizes[si];
        double *x = make_x(n, 3 + (unsigned)si);
        for (int d = 0; d < 2; d++) {
            /* in double over the elements as the dtype rounds them */
            double want[4] = {0, -INFINITY, INFINITY, 1};
            for (int64_t i = 0; i < n; i++) {
                double v = d ? x[i] : (double)(float)x[i];
                /* cj_scalar is a weak f32: 1e-5f, also next to f64 */
                double term = d ? v * (double)1e-5f + 1.0 : (double)((float)((float)v * 1e-5f) + 1.0f);
                want[0] += (v - 0.5) * v;
                want[1] = fmax(want[1], v * 3.0);
                want[2] = fmin(want[2], v * v - 1.0);
                want[3] *= term;
            }
            cj_val in = make_input(ctx, dts[d], x, n);
            cj_val out[2][4];
            for (int b = 0; b < 2; b++) {
                cj_func *f = jit(ctx, "folds", f_folds, 1, 4, b ? CJ_BACKEND_CC : CJ_BACKEND_INTERP);
                CHECK(cj_call(f, &in, out[b]) == CJ_OK);
                if (b) {
                    cj_program_info info;
                    CHECK(cj_jit_program_info(f, &in, &info) == CJ_OK && info.native);
                    char *src = cj_jit_dump(f, &in, "c");
                    CHECK(src != NULL);
                    CHECK_EQ_INT(count(src, "(cjk_fold)"), 0);
                    cj_string_free(ctx, src);
                }
                double rt = d ? 1e-11 : 3e-4; /* relative, of folds of 2e5 terms */
                CHECK_NEAR(read1(out[b][0]), want[0], rt, 0);
                CHECK_NEAR(read1(out[b][1]), want[1], d ? 1e-15 : 1e-7, 0);
                CHECK_NEAR(read1(out[b][2]), want[2], d ? 1e-15 : 1e-6, 1e-6);
                /* an f32 product of 1e5 factors within 2e-5 of 1 drops each
                 * step's second-order term (below half an ulp), the same
                 * sign every time: 1e-3 in all, serial or by lanes */
                CHECK_NEAR(read1(out[b][3]), want[3], d ? 1e-12 : 3e-3, 0);
            }
            for (int i = 0; i < 4; i++) CHECK_MSG(tu_same_bits(out[0][i], out[1][i]), "fold %d, n %lld, %s", i,
                                                  (long long)n, d ? "f64" : "f32");
        }
        free(x);
    }
    cj_ctx_free(ctx);
}

/* max/min of a row with a NaN in it are NaN; of signed zeros, +0 and -0 */
static void f_maxmin(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_reduce_max(in[0], 0, NULL, 0);
    out[1] = cj_reduce_min(in[0], 0, NULL, 0);
}

TEST(reduce_passes_nan_and_signed_zeros) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t n = 200003;
    float *z = malloc(sizeof(float) * (size_t)n);
    for (int64_t i = 0; i < n; i++) z[i] = i % 3 ? 0.0f : -0.0f;
    cj_val zeros = cj_array(ctx, CJ_F32, 1, &n, z);
    z[150001] = NAN;
    cj_val nan = cj_array(ctx, CJ_F32, 1, &n, z);
    for (int b = 0; b < 2; b++) {
        cj_func *f = jit(ctx, "maxmin", f_maxmin, 1, 2, b ? CJ_BACKEND_CC : CJ_BACKEND_INTERP);
        cj_val o[2];
        float mx = 1, mn = 1;
        CHECK(cj_call(f, &zeros, o) == CJ_OK);
        CHECK(cj_read(o[0], &mx, sizeof mx) == CJ_OK && cj_read(o[1], &mn, sizeof mn) == CJ_OK);
        CHECK(mx == 0 && !signbit(mx));
        CHECK(mn == 0 && signbit(mn));
        CHECK(cj_call(f, &nan, o) == CJ_OK);
        CHECK(cj_read(o[0], &mx, sizeof mx) == CJ_OK && cj_read(o[1], &mn, sizeof mn) == CJ_OK);
        CHECK(isnan(mx) && isnan(mn));
    }
    free(z);
    cj_ctx_free(ctx);
}

/* an f32 and an f64 fold in one loop: lanes 32 and 16, so the second is
 * a call per tile; both agree with the interpreter */
static void f_mixed(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    cj_val y = cj_mul(in[0], cj_scalar(ctx, 2.0));
    out[0] = cj_sum(y, 0, NULL, 0);
    out[1] = cj_sum(cj_astype(y, CJ_F64), 0, NULL, 0);
}

TEST(reduce_passes_two_dtypes_in_one_loop) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t n = 200003;
    double *x = make_x(n, 9);
    cj_val in = make_input(ctx, CJ_F32, x, n);
    double want = 0;
    for (int64_t i = 0; i < n; i++) want += (double)((float)x[i] * 2.0f);
    cj_val out[2][2];
    for (int b = 0; b < 2; b++) {
        cj_func *f = jit(ctx, "mixed", f_mixed, 1, 2, b ? CJ_BACKEND_CC : CJ_BACKEND_INTERP);
        CHECK(cj_call(f, &in, out[b]) == CJ_OK);
        CHECK_NEAR(read1(out[b][0]), want, 1e-4, 1e-2);
        CHECK_NEAR(read1(out[b][1]), want, 1e-12, 1e-9);
        if (b) {
            char *src = cj_jit_dump(f, &in, "c");
            CHECK(src != NULL);
            CHECK_EQ_INT(count(src, "float fa"), 1);
            CHECK_EQ_INT(count(src, "(cjk_fold)"), 1);
            cj_string_free(ctx, src);
        }
    }
    for (int i = 0; i < 2; i++) CHECK(tu_same_bits(out[0][i], out[1][i]));
    free(x);
    cj_ctx_free(ctx);
}

/* ---- the same bits with one thread and two ---- */

#define CHILD_ENV "CJAX_TEST_REDUCE_PASSES_OUT"
enum { N_THREADED = 3000017, N_RESULTS = 10 };

/* In a child: variance and the four folds of f32 and of f64 (generated
 * C), as doubles, to the file CHILD_ENV names. */
TEST(reduce_passes_thread_child) {
    const char *path = getenv(CHILD_ENV);
    if (!path) return; /* only in the children the next test starts */
    cj_ctx *ctx = cj_ctx_new(NULL);
    double *x = make_x(N_THREADED, 21);
    FILE *fp = fopen(path, "wb");
    CHECK(fp != NULL);
    for (int d = 0; d < 2 && fp; d++) {
        cj_val in = make_input(ctx, d ? CJ_F64 : CJ_F32, x, N_THREADED);
        cj_func *fv = jit(ctx, "var", f_variance, 1, 1, CJ_BACKEND_CC),
                *ff = jit(ctx, "folds", f_folds, 1, 4, CJ_BACKEND_CC);
        cj_val o[5];
        CHECK(cj_call(fv, &in, &o[0]) == CJ_OK);
        CHECK(cj_call(ff, &in, &o[1]) == CJ_OK);
        for (int i = 0; i < 5; i++) {
            double v = read1(o[i]);
            fwrite(&v, sizeof v, 1, fp);
        }
    }
    if (fp) fclose(fp);
    free(x);
    cj_ctx_free(ctx);
}

TEST(reduce_passes_same_bits_one_and_two_threads) {
    if (getenv(CHILD_ENV)) return;
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    CHECK(len > 0);
    if (len <= 0) return;
    self[len] = 0;
    char dir[] = "/tmp/cjax_reduce_passes_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    double got[2][N_RESULTS];
    for (int i = 0; i < 2; i++) {
        char path[256];
        snprintf(path, sizeof path, "%s/t%d", dir, i + 1);
        CHECK_EQ_INT(tu_run_child(self, "reduce_passes_thread_child", CHILD_ENV, path, i + 1), 0);
        FILE *fp = fopen(path, "rb");
        CHECK(fp != NULL);
        memset(got[i], 0, sizeof got[i]);
        if (fp) {
            CHECK_EQ_INT((int)fread(got[i], sizeof(double), N_RESULTS, fp), N_RESULTS);
            fclose(fp);
        }
        unlink(path);
    }
    rmdir(dir);
    for (int j = 0; j < N_RESULTS; j++) CHECK_MSG(memcmp(&got[0][j], &got[1][j], sizeof(double)) == 0, "result %d", j);
    /* and the values: the variance against a double two-pass loop */
    double *x = make_x(N_THREADED, 21), mean = 0, var = 0;
    for (int64_t i = 0; i < N_THREADED; i++) mean += x[i];
    mean /= (double)N_THREADED;
    for (int64_t i = 0; i < N_THREADED; i++) var += (x[i] - mean) * (x[i] - mean);
    var /= (double)N_THREADED;
    free(x);
    CHECK_NEAR(got[0][0], var, 1e-4, 0);
    CHECK_NEAR(got[0][5], var, 1e-12, 0);
}

/* ---- a full reduction in its producers' loop at every size ---- */

static void f_tanh_sum(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    cj_val t = cj_tanh(cj_add(cj_mul(in[0], cj_scalar(ctx, 1.5)), cj_scalar(ctx, 0.25)));
    out[0] = cj_sum(cj_sub(cj_mul(t, cj_scalar(ctx, 2.0)), cj_scalar(ctx, 0.5)), 0, NULL, 0);
}

TEST(reduce_passes_full_reduction_one_kernel_every_size) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    const int64_t ns[] = {1000, 65536, 65537, 1000000};
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) {
        int64_t n = ns[i];
        double *x = make_x(n, 13), want = 0;
        for (int64_t j = 0; j < n; j++) want += tanh(x[j] * 1.5 + 0.25) * 2.0 - 0.5;
        cj_val in = make_input(ctx, CJ_F32, x, n);
        for (int b = 0; b < 2; b++) {
            cj_func *f = jit(ctx, "ts", f_tanh_sum, 1, 1, b ? CJ_BACKEND_CC : CJ_BACKEND_INTERP);
            cj_val out;
            CHECK(cj_call(f, &in, &out) == CJ_OK);
            cj_program_info info;
            CHECK(cj_jit_program_info(f, &in, &info) == CJ_OK);
            CHECK_MSG(info.n_kernels == 1 && info.n_fused_kernels == 1, "n %lld: %d kernels, %d fused", (long long)n,
                      info.n_kernels, info.n_fused_kernels);
            cj_memory_analysis m;
            memset(&m, 0, sizeof m);
            CHECK(cj_jit_memory_analysis(f, &in, &m) == CJ_OK);
            CHECK(m.temp_bytes < 1024); /* no temporary the size of the input */
            CHECK_NEAR(read1(out), want, 2e-4, 1e-3);
        }
        free(x);
    }
    cj_ctx_free(ctx);
}
