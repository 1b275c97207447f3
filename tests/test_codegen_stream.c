/* test_codegen_stream.c — how generated C streams long arrays
 * (src/backend/codegen.c, issue 15): the structure of the C text, which
 * decides the speed the bench measures (tests never time), and the values
 * of the kernels that structure writes.
 *   - every unit asks gcc for the machine's full vector width where it
 *     has AVX-512 (gcc's own tuning picks 256 bits there);
 *   - a long row's fold loop prefetches each streamed input one cache
 *     line per line consumed, two tiles ahead (f32: two lines per group of
 *     32 lanes; f64: two per 16), under the guard that keeps the address
 *     inside the row, and no kernel asks for a tile's lines in one burst;
 *   - a plain elementwise loop prefetches nothing (the hardware
 *     prefetcher does best there);
 *   - a long row streamed right after another pass over the same buffer
 *     walks its tiles backwards (and prefetches behind), so a third pass
 *     runs forward again, with the interpreter's bits;
 *   - the values those kernels give: sum(tanh(a*x+b)*c+d) and the
 *     variance of f32 and f64 rows that end in a partial tile and a
 *     partial group, on the generated C, against the interpreter bit for
 *     bit and against double loops (the order of tiles and lanes is the
 *     row fold's; bits across thread counts: test_long_reduce.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "test_util.h"

enum { N_ROW = 100003 }; /* a long row (over 65,536) ending in a partial tile */

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

static void f_axb(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    out[0] = cj_add(cj_mul(in[0], cj_scalar(ctx, 1.5)), cj_scalar(ctx, 0.25));
}

static cj_func *jit_on(cj_ctx *ctx, const char *name, cj_fn fn, cj_backend be) {
    cj_jit_opts o = {0, NULL, 0, NULL, be};
    return cj_jit(cj_func_new(ctx, name, fn, 1, 1, NULL), &o);
}

/* occurrences of s in text */
static int count_of(const char *text, const char *s) {
    int n = 0;
    for (const char *p = text; p && (p = strstr(p, s)); p += strlen(s)) n++;
    return n;
}

/* x[i] in [-3, 3), a smooth pseudo-random sequence */
static cj_val row_input(cj_ctx *ctx, cj_dtype dt, int64_t n, double *x) {
    size_t es = dt == CJ_F64 ? 8 : 4;
    char *b = malloc(es * (size_t)n);
    unsigned s = 7;
    for (int64_t i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        double v = (double)(s >> 8) / (double)(1u << 24) * 6.0 - 3.0;
        if (dt == CJ_F64) ((double *)b)[i] = v, x[i] = v;
        else ((float *)b)[i] = (float)v, x[i] = (float)v;
    }
    cj_val r = cj_array(ctx, dt, 1, &n, b);
    free(b);
    return r;
}

static char *c_text(cj_func *jf, cj_val x) { return cj_jit_dump(jf, &x, "c"); }

TEST(codegen_units_prefer_full_width_vectors) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t n = 1000;
    cj_val x = cj_zeros(ctx, CJ_F32, 1, &n);
    char *c = c_text(jit_on(ctx, "axb", f_axb, CJ_BACKEND_CC), x);
    CHECK(c != NULL);
    CHECK(strstr(c, "#if defined(__GNUC__) && !defined(__clang__) && defined(__AVX512F__)\n"
                    "#pragma GCC target(\"prefer-vector-width=512\")\n#endif\n") != NULL);
    cj_string_free(ctx, c);
    cj_ctx_free(ctx);
}

TEST(codegen_fold_loop_prefetches_a_line_at_a_time) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t n = N_ROW;
    for (int d = 0; d < 2; d++) {
        cj_dtype dt = d ? CJ_F64 : CJ_F32;
        cj_val x = cj_zeros(ctx, dt, 1, &n);
        for (int f = 0; f < 2; f++) {
            cj_func *jf = jit_on(ctx, f ? "var" : "ts", f ? f_variance : f_tanh_sum, CJ_BACKEND_CC);
            char *c = c_text(jf, x);
            CHECK(c != NULL);
            /* the guard, once per tile of each kernel; the variance's
             * second pass walks its tiles backwards and prefetches behind */
            CHECK_EQ_INT(count_of(c, "const int pf = t + 3 * TILE <= end;"), 1);
            CHECK_EQ_INT(count_of(c, "const int pf = t - 2 * TILE >= begin;"), f ? 1 : 0);
            CHECK_EQ_INT(count_of(c, "for (i64 tt = (end - begin + TILE - 1) / TILE - 1; tt >= 0; tt--) {\n"
                                     "    const i64 t = begin + tt * TILE;"),
                         f ? 1 : 0);
            /* two lines per group: 32 floats or 16 doubles are 128 bytes */
            CHECK_EQ_INT(count_of(c, "if (pf) __builtin_prefetch(p0 + jj + 2 * TILE + 0);"), 1);
            CHECK_EQ_INT(count_of(c, d ? "if (pf) __builtin_prefetch(p0 + jj + 2 * TILE + 8);"
                                       : "if (pf) __builtin_prefetch(p0 + jj + 2 * TILE + 16);"),
                         1);
            CHECK_EQ_INT(count_of(c, "if (pf) __builtin_prefetch(p0 + jj - 2 * TILE + 0);"), f ? 1 : 0);
            CHECK_EQ_INT(count_of(c, d ? "if (pf) __builtin_prefetch(p0 + jj - 2 * TILE + 8);"
                                       : "if (pf) __builtin_prefetch(p0 + jj - 2 * TILE + 16);"),
                         f ? 1 : 0);
            CHECK_EQ_INT(count_of(c, "__builtin_prefetch"), f ? 4 : 2);
            CHECK(strstr(c, "q < 3 * TILE") == NULL); /* no burst of a tile's lines */
            cj_string_free(ctx, c);
        }
    }
    cj_ctx_free(ctx);
}

TEST(codegen_plain_loop_prefetches_nothing) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t n = N_ROW;
    cj_val x = cj_zeros(ctx, CJ_F32, 1, &n);
    char *c = c_text(jit_on(ctx, "axb", f_axb, CJ_BACKEND_CC), x);
    CHECK(c != NULL);
    CHECK(strstr(c, "void cjk_kernel_0") != NULL);
    CHECK_EQ_INT(count_of(c, "__builtin_prefetch"), 0);
    cj_string_free(ctx, c);
    cj_ctx_free(ctx);
}

/* three passes over x, each needing the last one's result: forward,
 * backward, forward */
static void f_three(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    cj_val d = cj_sub(in[0], cj_mean(in[0], 0, NULL, 0));
    cj_val v = cj_mean(cj_mul(d, d), 0, NULL, 0);
    out[0] = cj_sum(cj_abs(cj_sub(in[0], v)), 0, NULL, 0);
}

TEST(codegen_passes_over_one_buffer_alternate_direction) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t n = N_ROW;
    double *x = malloc(sizeof(double) * (size_t)n);
    cj_val in = row_input(ctx, CJ_F32, n, x);
    char *c = c_text(jit_on(ctx, "three", f_three, CJ_BACKEND_CC), in);
    CHECK(c != NULL);
    const char *k[3] = {c ? strstr(c, "void cjk_kernel_0") : NULL, c ? strstr(c, "void cjk_kernel_1") : NULL,
                        c ? strstr(c, "void cjk_kernel_2") : NULL};
    CHECK(k[0] && k[1] && k[2] && k[0] < k[1] && k[1] < k[2] && !strstr(c, "void cjk_kernel_3"));
    if (k[0] && k[1] && k[2]) {
        const char *rev = "for (i64 tt = (end - begin + TILE - 1) / TILE - 1; tt >= 0; tt--)";
        const char *fwd = "for (i64 t = begin; t < end; t += TILE)";
        const char *r = strstr(c, rev), *f0 = strstr(k[0], fwd), *f2 = strstr(k[2], fwd);
        CHECK(f0 && f0 < k[1]);               /* the mean: forward */
        CHECK(r && r > k[1] && r < k[2]);     /* the centred squares: backward */
        CHECK(!strstr(k[2], rev) && f2);      /* the third: forward again */
        CHECK(!strstr(k[1], fwd) || strstr(k[1], fwd) > k[2]);
    }
    cj_string_free(ctx, c);
    /* the same bits as the interpreter, which walks every row forward */
    double got[2];
    for (int b = 0; b < 2; b++) {
        cj_val out;
        CHECK(cj_call(jit_on(ctx, "three", f_three, b ? CJ_BACKEND_CC : CJ_BACKEND_INTERP), &in, &out) == CJ_OK);
        got[b] = NAN;
        CHECK(cj_read_as(out, CJ_F64, &got[b], sizeof got[b]) == CJ_OK);
    }
    CHECK(memcmp(&got[0], &got[1], sizeof got[0]) == 0);
    double mean = 0, var = 0, want = 0;
    for (int64_t i = 0; i < n; i++) mean += x[i];
    mean /= (double)n;
    for (int64_t i = 0; i < n; i++) var += (x[i] - mean) * (x[i] - mean);
    var /= (double)n;
    for (int64_t i = 0; i < n; i++) want += fabs(x[i] - var);
    CHECK(fabs(got[1] - want) <= 2e-5 * want);
    free(x);
    cj_ctx_free(ctx);
}

/* The kernels written that way give the row fold's bits and the right
 * values: generated C against the interpreter exactly, and against
 * double loops within f32 / f64 rounding of a sum of 1e5 terms. */
TEST(codegen_streamed_folds_values) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t n = N_ROW;
    double *x = malloc(sizeof(double) * (size_t)n);
    for (int d = 0; d < 2; d++) {
        cj_dtype dt = d ? CJ_F64 : CJ_F32;
        cj_val in = row_input(ctx, dt, n, x);
        double ts = 0, mean = 0, var = 0;
        for (int64_t i = 0; i < n; i++) ts += tanh(x[i] * 1.5 + 0.25) * 2.0 - 0.5, mean += x[i];
        mean /= (double)n;
        for (int64_t i = 0; i < n; i++) var += (x[i] - mean) * (x[i] - mean);
        var /= (double)n;
        for (int f = 0; f < 2; f++) {
            double got[2];
            for (int b = 0; b < 2; b++) {
                cj_func *jf = jit_on(ctx, f ? "var" : "ts", f ? f_variance : f_tanh_sum,
                                     b ? CJ_BACKEND_CC : CJ_BACKEND_INTERP);
                cj_val out;
                CHECK(cj_call(jf, &in, &out) == CJ_OK);
                if (b) { /* the generated code ran, not a fallback */
                    cj_program_info pi;
                    CHECK(cj_jit_program_info(jf, &in, &pi) == CJ_OK && pi.native);
                }
                got[b] = NAN;
                CHECK(cj_read_as(out, CJ_F64, &got[b], sizeof got[b]) == CJ_OK);
            }
            CHECK(memcmp(&got[0], &got[1], sizeof got[0]) == 0);
            double want = f ? var : ts, tol = d ? 1e-12 : 2e-5;
            CHECK(fabs(got[1] - want) <= tol * fabs(want));
        }
    }
    free(x);
    cj_ctx_free(ctx);
}
