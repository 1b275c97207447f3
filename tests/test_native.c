/* test_native.c — the generated-C backend through jit: tiered start
 * switching to compiled code, waiting mode, bit-identical results with the
 * interpreter across dtypes, and the fallbacks when the C compiler is
 * missing or fails. Builds go to a private cache directory. */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "backend/program_impl.h"
#include "harness.h"
#include "test_util.h"

static char cache_dir[128];

static void use_private_cache(const char *compiler) {
    if (!cache_dir[0]) snprintf(cache_dir, sizeof cache_dir, "/tmp/cjax_native_test_%d", (int)getpid());
    cc_build_options o = {compiler, NULL, cache_dir, 0};
    native_set_build_options_for_testing(&o);
}

/* Integer, bool, f64 and f32 operations, inline and through the table. */
static void f_mixed(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    cj_val i = in[0], x = in[1];                                 /* i32[n], f64[n] */
    cj_val a = cj_add(cj_mul(i, cj_scalar_int(ctx, 3)), cj_scalar_int(ctx, -7));
    cj_val big = cj_gt(a, cj_scalar_int(ctx, 5));
    cj_val q = cj_where(big, cj_neg(a), cj_xor(a, i));
    cj_val y = cj_add(cj_mul(x, cj_astype(q, CJ_F64)), cj_sqrt(cj_abs(x)));
    cj_val z = cj_where(cj_and(big, cj_lt(x, cj_scalar(ctx, 0.5))), cj_exp(x), cj_div(y, cj_scalar(ctx, 3.0)));
    out[0] = z;
    out[1] = cj_not(big);
    out[2] = cj_astype(cj_tanh(cj_astype(x, CJ_F32)), CJ_F32);
}

static void run_mixed(cj_ctx *ctx, cj_backend backend, double *z, uint8_t *nb, float *t, int n,
                      cj_program_info *info) {
    int64_t d = n;
    int32_t *iv = malloc(sizeof(int32_t) * (size_t)n);
    double *xv = malloc(sizeof(double) * (size_t)n);
    for (int k = 0; k < n; k++) {
        iv[k] = (k * 37) % 23 - 11;
        xv[k] = (k % 17) * 0.125 - 1.0;
    }
    cj_val in[2] = {cj_array(ctx, CJ_I32, 1, &d, iv), cj_array(ctx, CJ_F64, 1, &d, xv)};
    cj_jit_opts o = {0, NULL, 0, NULL, backend};
    cj_func *jf = cj_jit(cj_func_new(ctx, "mixed", f_mixed, 2, 3, NULL), &o);
    cj_val y[3] = {{0}, {0}, {0}}; /* cj_jit may have failed: no outputs set */
    cj_call(jf, in, y);
    cj_read(y[0], z, sizeof(double) * (size_t)n);
    cj_read(y[1], nb, (size_t)n);
    cj_read(y[2], t, sizeof(float) * (size_t)n);
    cj_jit_program_info(jf, in, info);
    free(iv);
    free(xv);
}

TEST(native_matches_interp_bit_for_bit) {
    use_private_cache(NULL);
    enum { N = 5000 };
    static double z1[N], z2[N];
    static uint8_t b1[N], b2[N];
    static float t1[N], t2[N];
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_program_info i1, i2;
    run_mixed(ctx, CJ_BACKEND_INTERP, z1, b1, t1, N, &i1);
    run_mixed(ctx, CJ_BACKEND_CC, z2, b2, t2, N, &i2);
    CHECK_MSG(cj_error(ctx) == CJ_OK, "%s", cj_error_message(ctx));
    CHECK(!i1.native);
    if (!i2.native) { /* no C compiler on this machine: the fallback is tested below */
        printf("    (no C compiler: %s)\n", i2.compile_error);
        cj_ctx_free(ctx);
        return;
    }
    CHECK(memcmp(z1, z2, sizeof z1) == 0);
    CHECK(memcmp(b1, b2, sizeof b1) == 0);
    CHECK(memcmp(t1, t2, sizeof t1) == 0);
    /* and against a plain loop */
    for (int k = 0; k < N; k++) {
        int32_t i = (k * 37) % 23 - 11;
        double x = (k % 17) * 0.125 - 1.0;
        int32_t a = i * 3 - 7;
        int big = a > 5;
        int32_t q = big ? -a : (a ^ i);
        double y = x * q + sqrt(fabs(x));
        double z = big && x < 0.5 ? exp(x) : y / 3.0;
        CHECK_NEAR(z1[k], z, 1e-15, 1e-15);
        CHECK(b1[k] == !big);
    }
    cj_ctx_free(ctx);
}

TEST(native_tiered_start_switches_to_generated_code) {
    use_private_cache(NULL);
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_jit_opts o = {0, NULL, 0, NULL, CJ_BACKEND_TIERED};
    cj_func *jf = cj_jit(cj_func_new(ctx, "mixed", f_mixed, 2, 3, NULL), &o);
    int64_t d = 64;
    int32_t iv[64];
    double xv[64];
    for (int k = 0; k < 64; k++) iv[k] = k - 30, xv[k] = k * 0.01;
    cj_val in[2] = {cj_array(ctx, CJ_I32, 1, &d, iv), cj_array(ctx, CJ_F64, 1, &d, xv)}, y[3];
    CHECK(cj_call(jf, in, y) == CJ_OK); /* never waits for the compiler */
    double first[64], later[64];
    cj_read(y[0], first, sizeof first);
    cj_program_info info = {0};
    for (int tries = 0; tries < 600; tries++) { /* up to a minute on a loaded machine */
        cj_jit_program_info(jf, in, &info);
        if (info.native || info.compile_error[0]) break;
        struct timespec ts = {0, 100 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    if (info.compile_error[0]) {
        printf("    (no C compiler: %s)\n", info.compile_error);
        cj_ctx_free(ctx);
        return;
    }
    CHECK(info.native);
    CHECK(cj_call(jf, in, y) == CJ_OK);
    cj_read(y[0], later, sizeof later);
    CHECK(memcmp(first, later, sizeof first) == 0);
    cj_ctx_free(ctx);
}

TEST(native_missing_compiler_falls_back_to_interp) {
    use_private_cache("/nonexistent/bin/cc");
    tu_alloc st = {0};
    cj_allocator al = tu_allocator(&st);
    cj_ctx *ctx = cj_ctx_new(&al);
    enum { N = 300 };
    double z[N], zi[N];
    uint8_t b[N], bi[N];
    float t[N], ti[N];
    cj_program_info info, info_i;
    run_mixed(ctx, CJ_BACKEND_CC, z, b, t, N, &info);
    CHECK_MSG(cj_error(ctx) == CJ_OK, "the fallback must not be an error: %s", cj_error_message(ctx));
    CHECK(!info.native);
    CHECK_STR_CONTAINS(info.compile_error, "/nonexistent/bin/cc");
    run_mixed(ctx, CJ_BACKEND_INTERP, zi, bi, ti, N, &info_i);
    CHECK(memcmp(z, zi, sizeof z) == 0);
    cj_ctx_free(ctx);
    CHECK_EQ_INT(st.live, 0);
    native_set_build_options_for_testing(NULL);
}

TEST(native_failing_compiler_falls_back_with_its_message) {
    use_private_cache("false");
    cj_ctx *ctx = cj_ctx_new(NULL);
    enum { N = 100 };
    double z[N];
    uint8_t b[N];
    float t[N];
    cj_program_info info;
    run_mixed(ctx, CJ_BACKEND_CC, z, b, t, N, &info);
    CHECK(cj_error(ctx) == CJ_OK);
    CHECK(!info.native);
    CHECK(info.compile_error[0] != 0);
    cj_ctx_free(ctx);
    native_set_build_options_for_testing(NULL);
}

/* Allocation failure while preparing a program with generated code:
 * clean OOM or success, nothing leaked (the build thread has its own
 * context, covered by the cc_build tests). */
TEST(native_allocation_failure_is_clean) {
    use_private_cache(NULL);
    int covered = 0;
    for (long long n = 1; n < 5000 && !covered; n++) {
        tu_alloc st = {0};
        st.fail_at = n;
        cj_allocator al = tu_allocator(&st);
        cj_ctx *ctx = cj_ctx_new(&al);
        if (ctx) {
            enum { N = 50 };
            double z[N];
            uint8_t b[N];
            float t[N];
            cj_program_info info;
            memset(&info, 0, sizeof info);
            run_mixed(ctx, CJ_BACKEND_CC, z, b, t, N, &info);
            int rc = cj_error(ctx);
            CHECK_MSG(rc == CJ_OK || rc == CJ_ERR_OOM, "allocation %lld: %s", n, cj_error_message(ctx));
            if (!st.failed) covered = 1;
            cj_ctx_free(ctx);
        }
        CHECK_MSG(st.live == 0, "allocation %lld failing leaked %lld blocks", n, st.live);
    }
    CHECK(covered);
    native_set_build_options_for_testing(NULL);
}

static void f_axb(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    out[0] = cj_add(cj_mul(in[0], cj_scalar(ctx, 3.0)), cj_scalar(ctx, 1.0));
}

TEST(native_memory_analysis_counts_generated_code) {
    use_private_cache(NULL);
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_jit_opts o = {0, NULL, 0, NULL, CJ_BACKEND_CC};
    cj_func *jf = cj_jit(cj_func_new(ctx, "axb", f_axb, 1, 1, NULL), &o);
    cj_val x = tu_ramp(ctx, 100, 1, 0);
    cj_program_info info;
    cj_memory_analysis m;
    CHECK(cj_jit_program_info(jf, &x, &info) == CJ_OK);
    CHECK(cj_jit_memory_analysis(jf, &x, &m) == CJ_OK);
    if (info.native) CHECK(m.generated_code_bytes > 1000 && m.generated_code_bytes == info.code_bytes);
    else CHECK(m.generated_code_bytes == 0);
    cj_ctx_free(ctx);
}

TEST(native_generated_source_is_available_as_text) {
    use_private_cache(NULL);
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_jit_opts cc = {0, NULL, 0, NULL, CJ_BACKEND_CC}, interp = {0, NULL, 0, NULL, CJ_BACKEND_INTERP};
    cj_func *f = cj_func_new(ctx, "axb", f_axb, 1, 1, NULL);
    cj_val x = tu_ramp(ctx, 100, 1, 0);
    char *text = cj_jit_dump(cj_jit(f, &cc), &x, "c");
    CHECK(text);
    CHECK_STR_CONTAINS(text, "void cjk_kernel_0(const cjk_rt *rt, char *const *buf, i64 begin, i64 end)");
    CHECK(!strstr(text, "kernels (")); /* only what was asked for */
    cj_string_free(ctx, text);
    text = cj_jit_dump(cj_jit(f, &interp), &x, "c");
    CHECK(text);
    CHECK_STR_CONTAINS(text, "no generated C");
    cj_string_free(ctx, text);
    cj_ctx_free(ctx);
}
