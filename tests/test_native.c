/* test_native.c — the generated-C backend through jit: tiered start
 * switching to compiled code, waiting mode, bit-identical results with the
 * interpreter across dtypes, and the fallbacks when the C compiler is
 * missing or fails; cj_ctx_free cancelling a slow background compile, and
 * cache entries without their kernels or replaced by a FIFO. Builds go to
 * a private cache directory. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend/program_impl.h"
#include "harness.h"
#include "test_util.h"

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TSAN_BUILD 1
#endif
#endif
#if !defined(TSAN_BUILD) && defined(__SANITIZE_THREAD__)
#define TSAN_BUILD 1
#endif
#ifndef TSAN_BUILD
#define TSAN_BUILD 0
#endif

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

/* A compiler that records its pid and sleeps for half a minute (as that
 * process: exec), standing in for a slow build. */
static const char *slow_compiler(char *pidfile, size_t size) {
    static char path[160];
    snprintf(path, sizeof path, "/tmp/cjax_native_slow_cc_%d.sh", (int)getpid());
    snprintf(pidfile, size, "/tmp/cjax_native_slow_cc_%d.pid", (int)getpid());
    unlink(pidfile);
    FILE *fp = fopen(path, "w");
    if (!fp) return NULL;
    fprintf(fp, "#!/bin/sh\ncase \"$1\" in --version) echo slow-cc 1.0; exit 0;; esac\necho $$ > %s\nexec sleep 30\n",
            pidfile);
    fclose(fp);
    chmod(path, 0755);
    return path;
}

static double wall_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

TEST(native_ctx_free_cancels_a_slow_background_compile) {
    char pidfile[160];
    const char *cc = slow_compiler(pidfile, sizeof pidfile);
    CHECK(cc);
    use_private_cache(cc);
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_jit_opts o = {0, NULL, 0, NULL, CJ_BACKEND_TIERED};
    cj_func *jf = cj_jit(cj_func_new(ctx, "axb", f_axb, 1, 1, NULL), &o);
    cj_val x = tu_ramp(ctx, 100, 1, 0), y;
    CHECK(cj_call(jf, &x, &y) == CJ_OK); /* on the interpreter, the compile in the background */
    float got[100];
    CHECK(cj_read(y, got, sizeof got) == CJ_OK);
    for (int i = 0; i < 100; i++) CHECK(got[i] == (float)i * 3.0f + 1.0f);
    long pid = -1;
    for (int i = 0; i < 1000 && pid <= 0; i++) { /* the compiler has started */
        FILE *fp = fopen(pidfile, "r");
        if (fp) {
            if (fscanf(fp, "%ld", &pid) != 1) pid = -1;
            fclose(fp);
        }
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    CHECK(pid > 0);
    double t0 = wall_ms();
    cj_ctx_free(ctx);
    double took = wall_ms() - t0;
    CHECK_MSG(took < 2000, "cj_ctx_free waited %.0f ms for a compile nobody needs", took);
    if (pid > 0) {
        CHECK_MSG(kill((pid_t)pid, 0) != 0, "the compiler (pid %ld) still runs", pid);
        kill((pid_t)pid, SIGKILL);
    }
    unlink(cc);
    unlink(pidfile);
    native_set_build_options_for_testing(NULL);
}

/* Replaces the cache entry at `path` (sealed for hex key `key`) with a
 * well-formed entry whose object exports none of the program's kernels. */
static int plant_kernelless_entry(const char *path, const char *key) {
    char dir[sizeof cache_dir + 8];
    snprintf(dir, sizeof dir, "%s_forge", cache_dir);
    cc_build_options o = {NULL, NULL, dir, 0};
    cc_build_info info;
    cj_ctx *ctx = cj_ctx_new(NULL);
    cc_module *m = cc_build_with(ctx, "int cjax_not_a_kernel(void) { return 7; }\n", &o, &info);
    cc_module_free(ctx, m);
    cj_ctx_free(ctx);
    if (!m) return 0;
    size_t n = info.so_bytes;
    unsigned char *bytes = malloc(n + 80);
    FILE *in = fopen(info.so_path, "rb");
    int ok = bytes && in && fread(bytes, 1, n, in) == n;
    if (in) fclose(in);
    if (ok) {
        memcpy(bytes + n, "CJAXSO1\n", 8);
        for (int i = 0; i < 8; i++) bytes[n + 8 + i] = (unsigned char)((uint64_t)n >> (8 * i));
        for (int i = 0; i < 32; i++) {
            unsigned v = 0;
            sscanf(key + 2 * i, "%2x", &v);
            bytes[n + 16 + i] = (unsigned char)v;
        }
        cc_sha256(bytes, n, bytes + n + 48);
        unlink(path);
        FILE *out = fopen(path, "wb");
        ok = out && fwrite(bytes, 1, n + 80, out) == n + 80;
        if (out) ok = fclose(out) == 0 && ok;
        chmod(path, 0600);
    }
    free(bytes);
    return ok;
}

TEST(native_cached_entry_lacking_its_kernels_is_replaced) {
    use_private_cache(NULL);
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_jit_opts cc = {0, NULL, 0, NULL, CJ_BACKEND_CC};
    cj_val x = tu_ramp(ctx, 100, 1, 0);
    char *text = cj_jit_dump(cj_jit(cj_func_new(ctx, "axb", f_axb, 1, 1, NULL), &cc), &x, "c");
    CHECK(text);
    /* The same source through cc_build with the same options finds the
     * program's entry (and, with no compiler, the test has nothing to do). */
    cc_build_options o = {NULL, NULL, cache_dir, 0};
    cc_build_info where;
    cc_module *m = cc_build_with(ctx, text, &o, &where);
    cj_string_free(ctx, text);
    if (!m) {
        printf("    (no C compiler: %s)\n", cj_error_message(ctx));
        cj_ctx_free(ctx);
        return;
    }
    cc_module_free(ctx, m);
    CHECK(where.from_disk_cache);
    CHECK(plant_kernelless_entry(where.so_path, where.key));
    cj_ctx_free(ctx);

    for (int run = 0; run < 2; run++) { /* a fresh process's view, twice */
        ctx = cj_ctx_new(NULL);
        cj_func *jf = cj_jit(cj_func_new(ctx, "axb", f_axb, 1, 1, NULL), &cc);
        x = tu_ramp(ctx, 100, 1, 0);
        cj_val y;
        CHECK(cj_call(jf, &x, &y) == CJ_OK);
        cj_program_info info;
        CHECK(cj_jit_program_info(jf, &x, &info) == CJ_OK);
        CHECK_MSG(info.native, "run %d: %s", run, info.compile_error);
        /* rebuilt the first time (the entry without kernels removed), a
         * hit the second */
        CHECK_EQ_INT(info.from_disk_cache, run);
        float got[100];
        CHECK(cj_read(y, got, sizeof got) == CJ_OK);
        for (int i = 0; i < 100; i++) CHECK(got[i] == (float)i * 3.0f + 1.0f);
        cj_ctx_free(ctx);
    }
}

/* The cache path of the program f_axb compiles to (via its generated
 * source through cc_build with the same options), into path; 0 without a
 * compiler. */
static int axb_entry_path(char *path, size_t size) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_jit_opts cc = {0, NULL, 0, NULL, CJ_BACKEND_CC};
    cj_val x = tu_ramp(ctx, 100, 1, 0);
    char *text = cj_jit_dump(cj_jit(cj_func_new(ctx, "axb", f_axb, 1, 1, NULL), &cc), &x, "c");
    cc_build_options o = {NULL, NULL, cache_dir, 0};
    cc_build_info where;
    cc_module *m = text ? cc_build_with(ctx, text, &o, &where) : NULL;
    if (m) snprintf(path, size, "%s", where.so_path);
    cc_module_free(ctx, m);
    if (text) cj_string_free(ctx, text);
    cj_ctx_free(ctx);
    return m != NULL;
}

static int tiered_axb_and_free(void) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_jit_opts o = {0, NULL, 0, NULL, CJ_BACKEND_TIERED};
    cj_func *jf = cj_jit(cj_func_new(ctx, "axb", f_axb, 1, 1, NULL), &o);
    cj_val x = tu_ramp(ctx, 100, 1, 0), y;
    int ok = cj_call(jf, &x, &y) == CJ_OK;
    float got[100];
    ok = ok && cj_read(y, got, sizeof got) == CJ_OK && got[7] == 22.0f;
    cj_program_info info = {0};
    for (int i = 0; i < 2000 && ok && !info.native && !(info.compile_error && info.compile_error[0]); i++) {
        cj_jit_program_info(jf, &x, &info); /* the background build gets past the FIFO */
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    ok = ok && info.native;
    cj_ctx_free(ctx);
    return ok;
}

TEST(native_fifo_at_the_entry_hangs_neither_the_call_nor_ctx_free) {
    use_private_cache(NULL);
    char path[512];
    if (!axb_entry_path(path, sizeof path)) {
        printf("    (no C compiler)\n");
        return;
    }
    CHECK(unlink(path) == 0 && mkfifo(path, 0600) == 0);
#if TSAN_BUILD
    /* ThreadSanitizer cannot start threads in a child forked from a
     * threaded process; the fork only guards against a hang, so the
     * scenario runs here (the other builds keep the guard) */
    CHECK(tiered_axb_and_free());
    struct stat st0;
    CHECK(lstat(path, &st0) == 0 && S_ISREG(st0.st_mode));
    return;
#endif
    fflush(stdout);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        alarm(30);
        _exit(tiered_axb_and_free() ? 0 : 1);
    }
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child %s (status %d)",
              WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM ? "hung" : "failed", status);
    struct stat st;
    CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode)); /* the FIFO replaced by a rebuild */
}
