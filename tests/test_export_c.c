/* test_export_c.c — cj_export_c round trips: a table of programs is
 * exported, the C compiled inside the test with
 * cc -std=c99 -O2 -Wall -Wextra -Werror (-fno-math-errno, and -mfma when
 * the library's vector math uses FMA, as the header says; clang too
 * when installed), its object's undefined symbols checked against the
 * allowed ones, loaded with dlopen and run with a workspace of exactly
 * name_work_bytes() bytes between canaries, and its results compared
 * with the jit's (generated C) bit for bit — or, for programs with matrix
 * products, whose sums round differently, within 1e-5 relative. Without
 * a C compiler the compiling tests say so and pass vacuously. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "../src/backend/cc_build.h"
#include "cjax.h"
#include "harness.h"
#include "test_util.h"

static int have_cc(void) {
    static int known = -1;
    if (known < 0) {
        char why[512];
        known = cc_compiler_identity(NULL, why, sizeof why) == 0;
        if (!known) printf("    (no C compiler: export round trips pass vacuously: %s)\n", why);
    }
    return known;
}

typedef struct exported {
    char dir[128];
    void *so;
    int (*entry)(void);
    size_t (*work_bytes)(void);
    cj_export_info info;
} exported;

static void rm_dir(const char *dir) {
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", dir);
}

/* Set by the CBLAS test: extra flags for the exported unit's build, and
 * whether cblas_sgemm / cblas_dgemm may (and cblas_sgemm must) be named. */
static const char *g_cflags = "", *g_libs = "";
static int g_cblas;

/* Every undefined symbol of obj is in the allowed list. */
static int symbols_allowed(const char *obj, int libm, char *bad, size_t n) {
    static const char *ok[] = {"memcpy", "memset", "memmove", "__stack_chk_fail", NULL};
    static const char *ok_libm[] = {"sinf", "cosf", "tanf", "sin", "cos", "tan", "powf", "pow",
                                    "fmodf", "fmod", "sqrt", "sqrtf", "fma", "fmaf", NULL};
    char cmd[300];
    snprintf(cmd, sizeof cmd, "nm -u '%s'", obj);
    FILE *p = popen(cmd, "r");
    if (!p) return 0;
    char line[256];
    int good = 1;
    bad[0] = 0;
    while (fgets(line, sizeof line, p)) {
        char sym[200];
        if (sscanf(line, " U %199s", sym) != 1) continue;
        int allowed = 0;
        for (int i = 0; ok[i]; i++) allowed |= !strcmp(sym, ok[i]);
        for (int i = 0; libm && ok_libm[i]; i++) allowed |= !strcmp(sym, ok_libm[i]);
        if (g_cblas && (!strcmp(sym, "cblas_sgemm") || !strcmp(sym, "cblas_dgemm"))) allowed = 1, g_cblas = 2;
        if (!allowed) {
            good = 0;
            snprintf(bad + strlen(bad), n - strlen(bad), "%s ", sym);
        }
    }
    pclose(p);
    return good;
}

/* Exports f for the inputs, builds the C and loads it. 0 on success. */
static int export_build(cj_ctx *ctx, cj_func *f, int n_in, const cj_val *in, const char *name, const cj_export_opts *o,
                        exported *x) {
    memset(x, 0, sizeof *x);
    snprintf(x->dir, sizeof x->dir, "/tmp/cjax-export-test-XXXXXX");
    if (!mkdtemp(x->dir)) return th_fail(__FILE__, __LINE__, "mkdtemp: %s", strerror(errno)), -1;
    cj_spec specs[16];
    for (int i = 0; i < n_in; i++) specs[i] = cj_spec_of(in[i]);
    cj_export_opts opts = o ? *o : (cj_export_opts){0};
    opts.dir = x->dir;
    if (cj_export_c(f, n_in, specs, name, &opts, &x->info) != CJ_OK)
        return th_fail(__FILE__, __LINE__, "cj_export_c: %s", cj_error_message(ctx)), -1;
    char cmd[1200], obj[256], so[256];
    snprintf(obj, sizeof obj, "%s/%s.o", x->dir, name);
    snprintf(so, sizeof so, "%s/%s.so", x->dir, name);
    snprintf(cmd, sizeof cmd,
             "cd '%s' && cc -std=c99 -O2 -Wall -Wextra -Werror -fno-math-errno %s %s -fPIC -c %s.c -o %s.o 2> cc.log"
             " && cc -shared %s.o -o %s.so %s %s 2>> cc.log",
             x->dir, x->info.fma ? "-mfma" : "", g_cflags, name, name, name, name,
             x->info.uses_libm ? "-lm" : "", g_libs);
    if (system(cmd) != 0) {
        char log[300];
        snprintf(log, sizeof log, "cat '%s/cc.log' >&2", x->dir);
        if (system(log) != 0) fprintf(stderr, "(no log)\n");
        return th_fail(__FILE__, __LINE__, "the exported C of %s does not compile (in %s)", name, x->dir), -1;
    }
    /* clang too, where installed: the same flags, warnings as errors */
    snprintf(cmd, sizeof cmd,
             "cd '%s' && if command -v clang >/dev/null 2>&1; then clang -std=c99 -O2 -Wall -Wextra -Werror "
             "-fno-math-errno %s -c %s.c -o %s.clang.o 2> clang.log; fi",
             x->dir, x->info.fma ? "-mfma" : "", name, name);
    if (system(cmd) != 0) {
        char log[300];
        snprintf(log, sizeof log, "cat '%s/clang.log' >&2", x->dir);
        if (system(log) != 0) fprintf(stderr, "(no log)\n");
        return th_fail(__FILE__, __LINE__, "the exported C of %s does not compile with clang (in %s)", name, x->dir), -1;
    }
    char bad[512];
    if (!symbols_allowed(obj, x->info.uses_libm, bad, sizeof bad))
        return th_fail(__FILE__, __LINE__, "%s.o needs symbols beyond memcpy/memset: %s", name, bad), -1;
    x->so = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (!x->so) return th_fail(__FILE__, __LINE__, "dlopen: %s", dlerror()), -1;
    char sym[100];
    *(void **)&x->entry = dlsym(x->so, name);
    snprintf(sym, sizeof sym, "%s_work_bytes", name);
    *(void **)&x->work_bytes = dlsym(x->so, sym);
    if (!x->entry || !x->work_bytes) return th_fail(__FILE__, __LINE__, "dlsym: %s", name), -1;
    return 0;
}

static void export_close(exported *x) {
    if (x->so) dlclose(x->so);
    if (x->dir[0]) rm_dir(x->dir);
}

/* Calls the entry point with n pointers (all its parameters are). */
static int call_entry(exported *x, void **p, int n) {
    typedef void *P;
    switch (n) {
    case 2: return ((int (*)(P, P))(void (*)(void))x->entry)(p[0], p[1]);
    case 3: return ((int (*)(P, P, P))(void (*)(void))x->entry)(p[0], p[1], p[2]);
    case 4: return ((int (*)(P, P, P, P))(void (*)(void))x->entry)(p[0], p[1], p[2], p[3]);
    case 5: return ((int (*)(P, P, P, P, P))(void (*)(void))x->entry)(p[0], p[1], p[2], p[3], p[4]);
    case 6: return ((int (*)(P, P, P, P, P, P))(void (*)(void))x->entry)(p[0], p[1], p[2], p[3], p[4], p[5]);
    case 7: return ((int (*)(P, P, P, P, P, P, P))(void (*)(void))x->entry)(p[0], p[1], p[2], p[3], p[4], p[5], p[6]);
    case 8:
        return ((int (*)(P, P, P, P, P, P, P, P))(void (*)(void))x->entry)(p[0], p[1], p[2], p[3], p[4], p[5], p[6],
                                                                         p[7]);
    case 9:
        return ((int (*)(P, P, P, P, P, P, P, P, P))(void (*)(void))x->entry)(p[0], p[1], p[2], p[3], p[4], p[5],
                                                                            p[6], p[7], p[8]);
    case 10:
        return ((int (*)(P, P, P, P, P, P, P, P, P, P))(void (*)(void))x->entry)(p[0], p[1], p[2], p[3], p[4], p[5],
                                                                               p[6], p[7], p[8], p[9]);
    case 11:
        return ((int (*)(P, P, P, P, P, P, P, P, P, P, P))(void (*)(void))x->entry)(p[0], p[1], p[2], p[3], p[4],
                                                                                  p[5], p[6], p[7], p[8], p[9],
                                                                                  p[10]);
    case 12:
        return ((int (*)(P, P, P, P, P, P, P, P, P, P, P, P))(void (*)(void))x->entry)(
            p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11]);
    default: return -2;
    }
}

#define CANARY 256

/* A workspace of exactly `bytes` at a 64-byte boundary, canaries of 0xA5
 * on both sides. */
typedef struct guarded {
    unsigned char *block;
    unsigned char *work;
    size_t bytes;
} guarded;

static int guarded_new(guarded *g, size_t bytes) {
    g->bytes = bytes;
    g->block = malloc(bytes + 2 * CANARY + 64);
    if (!g->block) return -1;
    uintptr_t a = ((uintptr_t)g->block + CANARY + 63) / 64 * 64;
    g->work = (unsigned char *)a;
    memset(g->block, 0xA5, bytes + 2 * CANARY + 64);
    return 0;
}

static int guarded_intact(const guarded *g) {
    for (unsigned char *p = g->block; p < g->work; p++)
        if (*p != 0xA5) return 0;
    for (unsigned char *p = g->work + g->bytes; p < g->work + g->bytes + CANARY; p++)
        if (*p != 0xA5) return 0;
    return 1;
}

/* Temporary bytes the export's plan has beyond the jit's: cj_export_c
 * compiles without COLS kernels (compile_options.no_cols), so a column sum
 * the jit fuses into its producer is a vector stored between two kernels
 * there. Set by a test whose function has one, 0 otherwise. */
static size_t export_extra_temp;

/* The round trip: jit (generated C, waited for) against the export. tol 0: bit for bit. */
static void roundtrip(cj_ctx *ctx, cj_func *f, int n_in, const cj_val *in, const char *name, const cj_export_opts *o,
                      double tol) {
    int n_out = cj_func_n_out(f);
    cj_jit_opts jo = {0};
    jo.backend = CJ_BACKEND_CC;
    cj_func *jf = cj_jit(f, &jo);
    cj_val want[8];
    CHECK(n_out <= 8 && n_in <= 8);
    CHECK(cj_call(jf, in, want) == CJ_OK);
    cj_memory_analysis mem;
    CHECK(cj_jit_memory_analysis(jf, in, &mem) == CJ_OK);
    exported x;
    if (export_build(ctx, f, n_in, in, name, o, &x) != 0) {
        export_close(&x);
        return;
    }
    CHECK_EQ_INT(x.info.temp_bytes, mem.temp_bytes + export_extra_temp);
    CHECK_EQ_INT(x.work_bytes(), x.info.work_bytes);
    CHECK_EQ_INT(x.info.work_bytes, mem.temp_bytes + export_extra_temp + x.info.scratch_bytes);
    void *ptr[24];
    void *host[16] = {0};
    size_t bytes[16];
    int np = 0;
    for (int i = 0; i < n_in; i++) {
        cj_spec s = cj_spec_of(in[i]);
        size_t b = cj_dtype_size(s.dtype);
        for (int d = 0; d < s.rank; d++) b *= (size_t)s.dims[d];
        host[np] = malloc(b ? b : 1);
        cj_read(in[i], host[np], b);
        ptr[np] = host[np];
        np++;
    }
    int first_out = np;
    for (int i = 0; i < n_out; i++) {
        cj_spec s = cj_spec_of(want[i]);
        size_t b = cj_dtype_size(s.dtype);
        for (int d = 0; d < s.rank; d++) b *= (size_t)s.dims[d];
        bytes[np] = b;
        host[np] = malloc(b ? b : 1);
        memset(host[np], 0x5A, b);
        ptr[np] = host[np];
        np++;
    }
    guarded g;
    CHECK(guarded_new(&g, x.info.work_bytes) == 0);
    ptr[np] = g.work;
    int rc = call_entry(&x, ptr, np + 1);
    int intact = guarded_intact(&g);
    free(g.block);
    int status = rc == 0 && intact;
    for (int i = 0; i < n_out && status; i++) {
        cj_spec s = cj_spec_of(want[i]);
        size_t b = bytes[first_out + i];
        void *w = malloc(b ? b : 1);
        cj_read(want[i], w, b);
        if (tol == 0) {
            if (memcmp(w, host[first_out + i], b) != 0) {
                status = 0;
                size_t es = cj_dtype_size(s.dtype), k = 0;
                while (k < b / es && !memcmp((char *)w + k * es, (char *)host[first_out + i] + k * es, es)) k++;
                if (s.dtype == CJ_F32)
                    th_fail(__FILE__, __LINE__, "%s output %d element %zu: jit %.9g, export %.9g", name, i, k,
                            ((float *)w)[k], ((float *)host[first_out + i])[k]);
                else th_fail(__FILE__, __LINE__, "%s output %d element %zu differs", name, i, k);
            }
        } else if (s.dtype == CJ_F32) {
            const float *a = w, *e = host[first_out + i];
            for (size_t k = 0; k < b / 4 && status; k++)
                if (!th_close(e[k], a[k], tol, tol)) {
                    status = 0;
                    th_fail(__FILE__, __LINE__, "%s output %d element %zu: jit %.9g, export %.9g", name, i, k, a[k], e[k]);
                }
        }
        free(w);
    }
    for (int i = 0; i < np; i++) free(host[i]);
    export_close(&x);
    CHECK_MSG(rc == 0, "%s returned %d", name, rc);
    CHECK_MSG(intact, "%s wrote outside its workspace", name);
    CHECK(status);
    CHECK(cj_error(ctx) == CJ_OK);
}

/* ---- the programs ---- */

static void f_chain(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    cj_val x = in[0];
    cj_val a = cj_add(cj_mul(cj_sin(x), cj_cos(x)), cj_mul(x, x));
    cj_val b = cj_mul(cj_tanh(x), cj_exp(cj_neg(cj_abs(x))));
    out[0] = cj_add(cj_log(cj_add(cj_mul(x, x), cj_scalar(ctx, 1.0))), cj_sub(a, b));
    out[1] = cj_max(cj_sigmoid(x), cj_scalar(ctx, 0.25));
}

static void f_softmax(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_softmax(in[0], -1);
}

static void f_layernorm(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    int64_t ax = -1;
    cj_val m = cj_mean(in[0], 1, &ax, 1);
    cj_val d = cj_sub(in[0], m);
    cj_val v = cj_mean(cj_mul(d, d), 1, &ax, 1);
    out[0] = cj_mul(d, cj_rsqrt(cj_add(v, cj_scalar(ctx, 1e-5))));
}

static void f_reduce(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    int64_t ax0 = 0, ax1 = 1;
    out[0] = cj_sum(in[0], 1, &ax1, 0);
    out[1] = cj_max(cj_sum(cj_exp(in[0]), 1, &ax0, 0), cj_scalar(ctx, 2.0));
}

static cj_val rand_f32(cj_ctx *ctx, int rank, const int64_t *dims, unsigned seed, double scale) {
    int64_t n = 1;
    for (int d = 0; d < rank; d++) n *= dims[d];
    float *v = malloc(sizeof(float) * (size_t)n);
    unsigned s = seed * 2654435761u + 1;
    for (int64_t i = 0; i < n; i++) {
        s = s * 1103515245u + 12345u;
        v[i] = (float)((((s >> 8) & 0xffff) / 32768.0 - 1.0) * scale);
    }
    cj_val a = cj_array(ctx, CJ_F32, rank, dims, v);
    free(v);
    return a;
}

/* a 64-128-10 MLP: params W1 [64,128], b1 [128], W2 [128,10], b2 [10] */
static cj_val mlp_logits(cj_val x, cj_val w1, cj_val b1, cj_val w2, cj_val b2) {
    cj_val h = cj_relu(cj_add(cj_matmul(x, w1), b1));
    return cj_add(cj_matmul(h, w2), b2);
}

static void f_mlp_loss(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user; /* in: W1 b1 W2 b2 x onehot */
    cj_val z = mlp_logits(in[4], in[0], in[1], in[2], in[3]);
    cj_val lp = cj_log_softmax(z, -1);
    out[0] = cj_neg(cj_mean(cj_mul(lp, in[5]), 0, NULL, 0));
}

typedef struct mlp_weights {
    cj_val w1, b1, w2, b2;
} mlp_weights;

static void f_mlp_forward(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    const mlp_weights *w = user;
    out[0] = mlp_logits(in[0], w->w1, w->b1, w->w2, w->b2);
}

static void mlp_params(cj_ctx *ctx, cj_val *p) {
    p[0] = rand_f32(ctx, 2, (int64_t[]){64, 128}, 1, 0.2);
    p[1] = rand_f32(ctx, 1, (int64_t[]){128}, 2, 0.1);
    p[2] = rand_f32(ctx, 2, (int64_t[]){128, 10}, 3, 0.2);
    p[3] = rand_f32(ctx, 1, (int64_t[]){10}, 4, 0.1);
}

static cj_val onehot(cj_ctx *ctx, int64_t batch) {
    float *v = calloc((size_t)batch * 10, sizeof(float));
    for (int64_t i = 0; i < batch; i++) v[i * 10 + (i * 7) % 10] = 1.0f;
    cj_val a = cj_array(ctx, CJ_F32, 2, (int64_t[]){batch, 10}, v);
    free(v);
    return a;
}

TEST(export_elementwise_chain_bits) {
    if (!have_cc()) return;
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val x = rand_f32(ctx, 1, (int64_t[]){3000}, 7, 4.0);
    roundtrip(ctx, cj_func_new(ctx, "chain", f_chain, 1, 2, NULL), 1, &x, "chain", NULL, 0);
    cj_ctx_free(ctx);
}

TEST(export_softmax_bits) {
    if (!have_cc()) return;
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val x = rand_f32(ctx, 2, (int64_t[]){32, 100}, 8, 5.0);
    roundtrip(ctx, cj_func_new(ctx, "softmax", f_softmax, 1, 1, NULL), 1, &x, "softmax", NULL, 0);
    cj_val y = rand_f32(ctx, 2, (int64_t[]){50, 10}, 9, 5.0); /* short rows: the interpreter's in the jit */
    roundtrip(ctx, cj_func_new(ctx, "softmax10", f_softmax, 1, 1, NULL), 1, &y, "softmax10", NULL, 0);
    cj_val z = rand_f32(ctx, 2, (int64_t[]){3, 20000}, 15, 5.0); /* row arrays beyond the stack: row scratch */
    roundtrip(ctx, cj_func_new(ctx, "softmax_long", f_softmax, 1, 1, NULL), 1, &z, "softmax_long", NULL, 0);
    cj_val v = rand_f32(ctx, 2, (int64_t[]){3, 20000}, 16, 3.0);
    roundtrip(ctx, cj_func_new(ctx, "layernorm_long", f_layernorm, 1, 1, NULL), 1, &v, "layernorm_long", NULL, 0);
    cj_ctx_free(ctx);
}

TEST(export_layernorm_bits) {
    if (!have_cc()) return;
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val x = rand_f32(ctx, 2, (int64_t[]){16, 256}, 10, 3.0);
    roundtrip(ctx, cj_func_new(ctx, "layernorm", f_layernorm, 1, 1, NULL), 1, &x, "layernorm", NULL, 0);
    cj_ctx_free(ctx);
}

TEST(export_reductions_bits) {
    if (!have_cc()) return;
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val x = rand_f32(ctx, 2, (int64_t[]){64, 96}, 11, 1.0);
    export_extra_temp = 96 * sizeof(float); /* sum(exp(x), 0) before the max */
    roundtrip(ctx, cj_func_new(ctx, "reduce", f_reduce, 1, 2, NULL), 1, &x, "reduce", NULL, 0);
    export_extra_temp = 0;
    cj_ctx_free(ctx);
}

TEST(export_mlp_forward_weights) {
    if (!have_cc()) return;
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val p[4];
    mlp_params(ctx, p);
    mlp_weights w = {p[0], p[1], p[2], p[3]};
    cj_val x = rand_f32(ctx, 2, (int64_t[]){32, 64}, 12, 1.0);
    roundtrip(ctx, cj_func_new(ctx, "mlp", f_mlp_forward, 1, 1, &w), 1, &x, "mlp", NULL, 1e-5);
    cj_ctx_free(ctx);
}

TEST(export_mlp_value_and_grad) {
    if (!have_cc()) return;
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val in[6];
    mlp_params(ctx, in);
    in[4] = rand_f32(ctx, 2, (int64_t[]){32, 64}, 13, 1.0);
    in[5] = onehot(ctx, 32);
    cj_grad_opts go = {0};
    go.n_argnums = 4;
    go.argnums = (int[]){0, 1, 2, 3};
    cj_func *vg = cj_jit(cj_value_and_grad(cj_func_new(ctx, "loss", f_mlp_loss, 6, 1, NULL), &go), NULL);
    roundtrip(ctx, vg, 6, in, "mlp_vg", NULL, 1e-5);
    cj_ctx_free(ctx);
}

TEST(export_vmap_of_grad) {
    if (!have_cc()) return;
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val in[6];
    mlp_params(ctx, in);
    in[4] = rand_f32(ctx, 3, (int64_t[]){8, 1, 64}, 14, 1.0);
    in[5] = cj_reshape(onehot(ctx, 8), 3, (int64_t[]){8, 1, 10});
    cj_grad_opts go = {0};
    go.n_argnums = 1;
    go.argnums = (int[]){0};
    int64_t axes[6] = {CJ_NOT_MAPPED, CJ_NOT_MAPPED, CJ_NOT_MAPPED, CJ_NOT_MAPPED, 0, 0};
    cj_vmap_opts vo = {0};
    vo.in_axes = axes;
    cj_func *pg = cj_vmap(cj_grad(cj_func_new(ctx, "loss", f_mlp_loss, 6, 1, NULL), &go), &vo);
    roundtrip(ctx, pg, 6, in, "per_example", NULL, 1e-5);
    cj_ctx_free(ctx);
}

static void f_scan_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_sort(cj_tanh(cj_add(in[0], in[1])), 0); /* sort: not exported yet */
    out[1] = out[0];
}

static void f_scan(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    cj_func *body = cj_func_new(ctx, "step", f_scan_body, 2, 2, NULL);
    cj_val carry, ys;
    cj_scan(body, 1, &in[0], 1, &in[1], NULL, &carry, &ys);
    out[0] = carry;
}

TEST(export_refuses_what_it_cannot_write) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_spec s[2] = {cj_spec_make(CJ_F32, 1, (int64_t[]){4}), cj_spec_make(CJ_F32, 2, (int64_t[]){5, 4})};
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/cjax-export-refuse-XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    cj_export_opts o = {0};
    o.dir = dir;
    cj_func *f = cj_func_new(ctx, "scan", f_scan, 2, 1, NULL);
    CHECK(cj_export_c(f, 2, s, "scanned", &o, NULL) == CJ_ERR_ARG);
    CHECK_MSG(strstr(cj_error_message(ctx), "cj_export_c(scan)") && strstr(cj_error_message(ctx), "scan (kernel") &&
                  strstr(cj_error_message(ctx), "(sort) has no exported form"),
              "%s", cj_error_message(ctx));
    char path[128];
    snprintf(path, sizeof path, "%s/scanned.c", dir);
    CHECK(access(path, F_OK) != 0); /* nothing written */
    cj_error_clear(ctx);
    cj_func *g = cj_func_new(ctx, "softmax", f_softmax, 1, 1, NULL);
    CHECK(cj_export_c(g, 1, s, "not a name", &o, NULL) == CJ_ERR_ARG);
    CHECK(strstr(cj_error_message(ctx), "not a C identifier") != NULL);
    cj_error_clear(ctx);
    CHECK(cj_export_c(g, 2, s, "sm", &o, NULL) == CJ_ERR_ARG);
    cj_error_clear(ctx);
    o.dir = "/nonexistent-dir/for/export";
    CHECK(cj_export_c(g, 1, s, "sm", &o, NULL) == CJ_ERR_IO);
    cj_error_clear(ctx);
    rm_dir(dir);
    cj_ctx_free(ctx);
}

/* The header's dims of weight i ("#define NAME_W<i>_SIZE n"). */
static long long header_size(const char *dir, const char *name, const char *tag) {
    char path[256], key[128], line[512];
    snprintf(path, sizeof path, "%s/%s.h", dir, name);
    snprintf(key, sizeof key, "_%s_SIZE ", tag);
    FILE *f = fopen(path, "r");
    long long n = -1;
    while (f && fgets(line, sizeof line, f))
        if (strstr(line, key)) n = atoll(strstr(line, key) + strlen(key));
    if (f) fclose(f);
    return n;
}

/* Weights as inputs: the same export runs new weights without
 * regenerating, and gives what the jit gives with those weights captured. */
TEST(export_weights_as_inputs) {
    if (!have_cc()) return;
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val p[4];
    mlp_params(ctx, p);
    mlp_weights w = {p[0], p[1], p[2], p[3]};
    cj_val x = rand_f32(ctx, 2, (int64_t[]){16, 64}, 21, 1.0);
    cj_export_opts o = {0};
    o.weights_as_inputs = 1;
    exported e;
    if (export_build(ctx, cj_func_new(ctx, "mlpw", f_mlp_forward, 1, 1, &w), 1, &x, "mlpw", &o, &e) != 0) {
        export_close(&e);
        return;
    }
    CHECK_EQ_INT(e.info.n_weights, 4);
    /* which weight is which: their sizes differ */
    static const long long sizes[4] = {64 * 128, 128, 128 * 10, 10};
    int which[4];
    for (int i = 0; i < 4; i++) {
        char tag[8];
        snprintf(tag, sizeof tag, "W%d", i);
        long long n = header_size(e.dir, "mlpw", tag);
        which[i] = -1;
        for (int k = 0; k < 4; k++)
            if (sizes[k] == n) which[i] = k;
        CHECK(which[i] >= 0);
    }
    for (int round = 0; round < 2; round++) {
        cj_val q[4];
        mlp_params(ctx, q);
        if (round == 1) q[2] = cj_mul(q[2], cj_scalar(ctx, 2.0)), q[1] = cj_add(q[1], cj_scalar(ctx, 0.5));
        mlp_weights wq = {q[0], q[1], q[2], q[3]};
        cj_val want;
        CHECK(cj_call(cj_func_new(ctx, "ref", f_mlp_forward, 1, 1, &wq), &x, &want) == CJ_OK);
        float xs[16 * 64], *wh[4], got[160], ref[160];
        cj_read(x, xs, sizeof xs);
        for (int k = 0; k < 4; k++) {
            wh[k] = malloc(sizeof(float) * (size_t)sizes[k]);
            cj_read(q[k], wh[k], sizeof(float) * (size_t)sizes[k]);
        }
        guarded g;
        CHECK(guarded_new(&g, e.info.work_bytes) == 0);
        void *ptr[7] = {xs, wh[which[0]], wh[which[1]], wh[which[2]], wh[which[3]], got, g.work};
        int rc = call_entry(&e, ptr, 7);
        int intact = guarded_intact(&g);
        free(g.block);
        for (int k = 0; k < 4; k++) free(wh[k]);
        cj_read(want, ref, sizeof ref);
        CHECK(rc == 0 && intact);
        for (int i = 0; i < 160; i++) CHECK_NEAR(got[i], ref[i], 1e-5, 1e-5);
    }
    export_close(&e);
    cj_ctx_free(ctx);
}

typedef struct thread_run {
    exported *e;
    void **ptr;
    int n;
    int rc;
} thread_run;

static void *run_thread(void *arg) {
    thread_run *t = arg;
    for (int i = 0; i < 20 && t->rc == 0; i++) t->rc = call_entry(t->e, t->ptr, t->n);
    return NULL;
}

/* Two threads call the exported value_and_grad at once, each with its own
 * workspace and outputs: both get the single call's bits. The unit has no
 * global mutable state (and calls no allocator: the symbol check). */
TEST(export_two_threads) {
    if (!have_cc()) return;
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val in[6];
    mlp_params(ctx, in);
    in[4] = rand_f32(ctx, 2, (int64_t[]){32, 64}, 23, 1.0);
    in[5] = onehot(ctx, 32);
    cj_grad_opts go = {0};
    go.n_argnums = 4;
    go.argnums = (int[]){0, 1, 2, 3};
    cj_func *vg = cj_value_and_grad(cj_func_new(ctx, "loss", f_mlp_loss, 6, 1, NULL), &go);
    exported e;
    if (export_build(ctx, vg, 6, in, "mlp_threads", NULL, &e) != 0) {
        export_close(&e);
        return;
    }
    static const size_t in_n[6] = {64 * 128, 128, 128 * 10, 10, 32 * 64, 32 * 10};
    static const size_t out_n[5] = {1, 64 * 128, 128, 128 * 10, 10};
    float *ins[6], *outs[3][5];
    for (int i = 0; i < 6; i++) {
        ins[i] = malloc(sizeof(float) * in_n[i]);
        cj_read(in[i], ins[i], sizeof(float) * in_n[i]);
    }
    guarded g[3];
    void *ptr[3][12];
    for (int t = 0; t < 3; t++) {
        CHECK(guarded_new(&g[t], e.info.work_bytes) == 0);
        for (int i = 0; i < 6; i++) ptr[t][i] = ins[i];
        for (int i = 0; i < 5; i++) ptr[t][6 + i] = outs[t][i] = calloc(out_n[i], sizeof(float));
        ptr[t][11] = g[t].work;
    }
    CHECK(call_entry(&e, ptr[0], 12) == 0); /* the reference: one call alone */
    thread_run runs[2] = {{&e, ptr[1], 12, 0}, {&e, ptr[2], 12, 0}};
    pthread_t th[2];
    for (int t = 0; t < 2; t++) CHECK(pthread_create(&th[t], NULL, run_thread, &runs[t]) == 0);
    for (int t = 0; t < 2; t++) pthread_join(th[t], NULL);
    int same = 1;
    for (int t = 1; t < 3; t++)
        for (int i = 0; i < 5; i++) same &= !memcmp(outs[0][i], outs[t][i], sizeof(float) * out_n[i]);
    int intact = guarded_intact(&g[0]) && guarded_intact(&g[1]) && guarded_intact(&g[2]);
    for (int t = 0; t < 3; t++) {
        free(g[t].block);
        for (int i = 0; i < 5; i++) free(outs[t][i]);
    }
    for (int i = 0; i < 6; i++) free(ins[i]);
    export_close(&e);
    CHECK(runs[0].rc == 0 && runs[1].rc == 0);
    CHECK(same);
    CHECK(intact);
    cj_ctx_free(ctx);
}

/* A misaligned or missing workspace is refused without writing. */
TEST(export_refuses_bad_workspace) {
    if (!have_cc()) return;
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val x = rand_f32(ctx, 2, (int64_t[]){64, 96}, 24, 1.0);
    exported e;
    if (export_build(ctx, cj_func_new(ctx, "reduce", f_reduce, 1, 2, NULL), 1, &x, "badws", NULL, &e) != 0) {
        export_close(&e);
        return;
    }
    CHECK(e.info.work_bytes > 0);
    float xs[64 * 96], o0[64], o1[96];
    cj_read(x, xs, sizeof xs);
    unsigned char *block = malloc(e.info.work_bytes + 128);
    unsigned char *mis = (unsigned char *)(((uintptr_t)block + 63) / 64 * 64 + 8);
    void *p1[4] = {xs, o0, o1, mis}, *p2[4] = {xs, o0, o1, NULL};
    int r1 = call_entry(&e, p1, 4), r2 = call_entry(&e, p2, 4);
    free(block);
    export_close(&e);
    CHECK_EQ_INT(r1, -1);
    CHECK_EQ_INT(r2, -1);
    cj_ctx_free(ctx);
}

/* Every allocation cj_export_c makes, failed in turn: CJ_ERR_OOM (or
 * success once no allocation fails), nothing leaked, never a crash. */
TEST(export_allocation_failure_at_every_site_is_clean) {
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/cjax-export-oom-XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    int covered = 0;
    for (long long n = 1; n < 20000 && !covered; n++) {
        tu_alloc st = {0};
        st.fail_at = n;
        cj_allocator a = tu_allocator(&st);
        cj_ctx *ctx = cj_ctx_new(&a);
        if (ctx) {
            cj_spec s = cj_spec_make(CJ_F32, 2, (int64_t[]){8, 100});
            cj_export_opts o = {0};
            o.dir = dir;
            cj_func *f = cj_func_new(ctx, "layernorm", f_layernorm, 1, 1, NULL);
            int rc = f ? cj_export_c(f, 1, &s, "ln", &o, NULL) : cj_error(ctx); /* the function itself failed */
            CHECK_MSG(rc == CJ_OK || rc == CJ_ERR_OOM, "allocation %lld: got %s: %s", n, cj_status_name((cj_status)rc),
                      cj_error_message(ctx));
            if (!st.failed) {
                CHECK(rc == CJ_OK);
                covered = 1;
            }
            cj_ctx_free(ctx);
        }
        CHECK_MSG(st.live == 0, "allocation %lld failing leaked %lld blocks", n, st.live);
    }
    rm_dir(dir);
    CHECK(covered);
}

/* ---- stage 3: control flow as loops and branches in the exported C ---- */

/* scan: (c, x) -> (c', y), c' = tanh(c + x) * 0.9 + sin(x), y = c' * x */
static void f_scan_step(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    cj_val c = cj_add(cj_mul(cj_tanh(cj_add(in[0], in[1])), cj_scalar(ctx, 0.9)), cj_sin(in[1]));
    out[0] = c;
    out[1] = cj_mul(c, in[1]);
}

static void f_scan_xs(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    cj_func *body = cj_func_new(ctx, "step", f_scan_step, 2, 2, NULL);
    cj_scan_opts so = {0};
    so.reverse = user != NULL;
    cj_scan(body, 1, &in[0], 1, &in[1], &so, &out[0], &out[1]);
}

TEST(export_scan_carry_xs_ys_bits) {
    if (!have_cc()) return;
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val in[2] = {rand_f32(ctx, 1, (int64_t[]){16}, 3, 1.0), rand_f32(ctx, 2, (int64_t[]){12, 16}, 4, 2.0)};
    roundtrip(ctx, cj_func_new(ctx, "scan", f_scan_xs, 2, 2, NULL), 2, in, "scan_fwd", NULL, 0);
    roundtrip(ctx, cj_func_new(ctx, "scan_rev", f_scan_xs, 2, 2, (void *)1), 2, in, "scan_rev", NULL, 0);
    cj_ctx_free(ctx);
}

/* fori_loop: x = x * 0.5 + cos(x) * i, 7 times */
static void f_fori_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    out[0] = cj_add(cj_mul(in[1], cj_scalar(ctx, 0.5)), cj_mul(cj_cos(in[1]), cj_astype(in[0], CJ_F32)));
}

static void f_fori(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    cj_fori_loop(2, 9, cj_func_new(ctx, "body", f_fori_body, 2, 1, NULL), 1, in, out);
}

/* while_loop: (i, x) -> (i + 1, x * 1.1 + 0.1) while sum(x) < 40 and i < 50 */
static void f_while_cond(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    out[0] = cj_and(cj_lt(cj_sum(in[1], -1, NULL, 0), cj_scalar(ctx, 40.0)),
                            cj_lt(in[0], cj_scalar_typed(ctx, 50, CJ_I32)));
}

static void f_while_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    out[0] = cj_add(in[0], cj_scalar_typed(ctx, 1, CJ_I32));
    out[1] = cj_add(cj_mul(in[1], cj_scalar(ctx, 1.1)), cj_scalar(ctx, 0.1));
}

static void f_while(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    cj_val init[2] = {cj_scalar_typed(ctx, 0, CJ_I32), in[0]};
    cj_while_loop(cj_func_new(ctx, "cond", f_while_cond, 2, 1, NULL), cj_func_new(ctx, "body", f_while_body, 2, 2, NULL),
                  2, init, out);
}

TEST(export_fori_and_while_bits) {
    if (!have_cc()) return;
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val x = rand_f32(ctx, 1, (int64_t[]){24}, 5, 1.0);
    roundtrip(ctx, cj_func_new(ctx, "fori", f_fori, 1, 1, NULL), 1, &x, "fori", NULL, 0);
    roundtrip(ctx, cj_func_new(ctx, "while", f_while, 1, 2, NULL), 1, &x, "whiled", NULL, 0);
    cj_ctx_free(ctx);
}

static void f_branch_a(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    out[0] = cj_mul(cj_sin(in[0]), cj_scalar(ctx, 2.0));
}
static void f_branch_b(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    out[0] = cj_sub(cj_exp(in[0]), cj_scalar(ctx, 1.0));
}
static void f_branch_c(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = in[0]; /* an operand returned as it is: copied */
}

/* cond on sum(x) > 0; switch on an i32 index (clamped) */
static void f_cond(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    cj_cond(cj_gt(cj_sum(in[0], -1, NULL, 0), cj_scalar(ctx, 0.0)), cj_func_new(ctx, "a", f_branch_a, 1, 1, NULL),
            cj_func_new(ctx, "b", f_branch_b, 1, 1, NULL), 1, in, out);
}

static void f_switch(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    cj_func *br[3] = {cj_func_new(ctx, "a", f_branch_a, 1, 1, NULL), cj_func_new(ctx, "b", f_branch_b, 1, 1, NULL),
                      cj_func_new(ctx, "c", f_branch_c, 1, 1, NULL)};
    cj_switch(in[0], 3, br, 1, &in[1], out);
}

TEST(export_cond_and_switch_bits) {
    if (!have_cc()) return;
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val x = rand_f32(ctx, 1, (int64_t[]){20}, 6, 1.0);
    roundtrip(ctx, cj_func_new(ctx, "cond", f_cond, 1, 1, NULL), 1, &x, "cond_pos", NULL, 0);
    cj_val nx = cj_sub(cj_scalar(ctx, -1.0), cj_abs(x));
    roundtrip(ctx, cj_func_new(ctx, "cond", f_cond, 1, 1, NULL), 1, &nx, "cond_neg", NULL, 0);
    static const int idx[4] = {-3, 1, 2, 7}; /* clamped into [0, 3) as lax.switch */
    for (int i = 0; i < 4; i++) {
        cj_val in[2] = {cj_scalar_typed(ctx, idx[i], CJ_I32), x};
        char name[32];
        snprintf(name, sizeof name, "switch%d", i);
        roundtrip(ctx, cj_func_new(ctx, "switch", f_switch, 2, 1, NULL), 2, in, name, NULL, 0);
    }
    cj_ctx_free(ctx);
}

/* nested: a scan whose body runs a fori_loop and a cond */
static void f_nested_step(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    cj_val c;
    cj_fori_loop(0, 3, cj_func_new(ctx, "inner", f_fori_body, 2, 1, NULL), 1, &in[0], &c);
    cj_val xc = cj_add(c, in[1]);
    cj_val r;
    cj_cond(cj_gt(cj_sum(in[1], -1, NULL, 0), cj_scalar(ctx, 0.0)), cj_func_new(ctx, "a", f_branch_a, 1, 1, NULL),
            cj_func_new(ctx, "b", f_branch_b, 1, 1, NULL), 1, &xc, &r);
    out[0] = cj_tanh(r);
    out[1] = cj_sum(r, -1, NULL, 0);
}

static void f_nested(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    cj_scan(cj_func_new(ctx, "outer", f_nested_step, 2, 2, NULL), 1, &in[0], 1, &in[1], NULL, &out[0], &out[1]);
}

TEST(export_nested_control_flow_bits) {
    if (!have_cc()) return;
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val in[2] = {rand_f32(ctx, 1, (int64_t[]){8}, 7, 0.5), rand_f32(ctx, 2, (int64_t[]){6, 8}, 8, 1.0)};
    roundtrip(ctx, cj_func_new(ctx, "nested", f_nested, 2, 2, NULL), 2, in, "nested", NULL, 0);
    cj_ctx_free(ctx);
}

/* The C of a scan does not grow with its trip count: a 1,000-step scan's
 * source is a 10-step one's, up to its numbers. */
static char *read_digitless(const char *dir, const char *file, size_t *raw) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *text = malloc(1 << 20), *out = malloc(1 << 20);
    size_t n = text ? fread(text, 1, (1 << 20) - 1, f) : 0, m = 0;
    fclose(f);
    *raw = n;
    for (size_t i = 0; out && i < n; i++) {
        if (text[i] >= '0' && text[i] <= '9') {
            if (!m || out[m - 1] != '#') out[m++] = '#';
        } else {
            out[m++] = text[i];
        }
    }
    if (out) out[m] = 0;
    free(text);
    return out;
}

static void f_len_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    out[0] = cj_add(cj_mul(in[0], cj_scalar(ctx, 0.5)), cj_cos(in[0]));
}

static void f_scan_len(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    cj_scan_opts so = {(int64_t)(intptr_t)user, 1, 0};
    cj_scan(cj_func_new(ctx, "step", f_len_body, 1, 1, NULL), 1, in, 0, NULL, &so, &out[0], NULL);
}

TEST(export_scan_size_is_independent_of_trip_count) {
    if (!have_cc()) return;
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val x = rand_f32(ctx, 1, (int64_t[]){32}, 9, 1.0);
    char *text[2] = {NULL, NULL};
    size_t raw[2] = {0, 0};
    static const int64_t lengths[2] = {10, 1000};
    for (int i = 0; i < 2; i++) {
        cj_func *f = cj_func_new(ctx, "scan_len", f_scan_len, 1, 1, (void *)(intptr_t)lengths[i]);
        roundtrip(ctx, f, 1, &x, "scan_len", NULL, 0);
        char dir[64];
        snprintf(dir, sizeof dir, "/tmp/cjax-export-len-XXXXXX");
        CHECK(mkdtemp(dir) != NULL);
        cj_export_opts o = {0};
        o.dir = dir;
        cj_spec s = cj_spec_of(x);
        CHECK(cj_export_c(f, 1, &s, "scan_len", &o, NULL) == CJ_OK);
        text[i] = read_digitless(dir, "scan_len.c", &raw[i]);
        rm_dir(dir);
    }
    CHECK(text[0] && text[1]);
    if (text[0] && text[1]) {
        CHECK_MSG(!strcmp(text[0], text[1]), "the 10- and 1000-step scans' C differ beyond their numbers");
        /* one number is longer: "10" and "1000" */
        CHECK_MSG(raw[1] >= raw[0] && raw[1] - raw[0] < 16, "sizes %zu and %zu", raw[0], raw[1]);
    }
    free(text[0]);
    free(text[1]);
    cj_ctx_free(ctx);
}

/* RK4 by scan, as the robotics users write it: a batch of 16
 * damped pendulums, theta'' = -(g/l) sin(theta) - d theta', 200 steps of
 * dt = 0.01; the ys are the angles. Its loss and the loss's gradient by
 * the initial state and g/l. */
typedef struct rk4_arg {
    cj_val gl; /* the closure: set while the outer function is traced */
} rk4_arg;

static void rk4_deriv(cj_ctx *ctx, cj_val th, cj_val om, cj_val gl, cj_val *dth, cj_val *dom) {
    *dth = om;
    *dom = cj_sub(cj_neg(cj_mul(gl, cj_sin(th))), cj_mul(cj_scalar(ctx, 0.05), om));
}

static void rk4_step(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    rk4_arg *a = user;
    cj_val th = in[0], om = in[1], h = cj_scalar(ctx, 0.01), h2 = cj_scalar(ctx, 0.005), h6 = cj_scalar(ctx, 0.01 / 6);
    cj_val two = cj_scalar(ctx, 2.0), t1, o1, t2, o2, t3, o3, t4, o4;
    rk4_deriv(ctx, th, om, a->gl, &t1, &o1);
    rk4_deriv(ctx, cj_add(th, cj_mul(h2, t1)), cj_add(om, cj_mul(h2, o1)), a->gl, &t2, &o2);
    rk4_deriv(ctx, cj_add(th, cj_mul(h2, t2)), cj_add(om, cj_mul(h2, o2)), a->gl, &t3, &o3);
    rk4_deriv(ctx, cj_add(th, cj_mul(h, t3)), cj_add(om, cj_mul(h, o3)), a->gl, &t4, &o4);
    out[0] = cj_add(th, cj_mul(h6, cj_add(cj_add(t1, cj_mul(two, t2)), cj_add(cj_mul(two, t3), t4))));
    out[1] = cj_add(om, cj_mul(h6, cj_add(cj_add(o1, cj_mul(two, o2)), cj_add(cj_mul(two, o3), o4))));
    out[2] = out[0];
}

/* (theta0, omega0, g/l) -> (loss, final theta, the angles) */
static void rk4_sim(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    rk4_arg *a = user;
    a->gl = in[2];
    cj_scan_opts so = {200, 1, 0};
    cj_val fin[2], ys;
    cj_scan(cj_func_new(ctx, "rk4", rk4_step, 2, 3, a), 2, in, 0, NULL, &so, fin, &ys);
    out[0] = cj_add(cj_sum(cj_mul(fin[0], fin[0]), -1, NULL, 0),
                    cj_mul(cj_scalar(ctx, 0.001), cj_sum(cj_mul(ys, ys), -1, NULL, 0)));
    out[1] = fin[0];
    out[2] = ys;
}

TEST(export_rk4_scan_and_its_gradient) {
    if (!have_cc()) return;
    cj_ctx *ctx = cj_ctx_new(NULL);
    rk4_arg a = {{0}};
    cj_val in[3] = {rand_f32(ctx, 1, (int64_t[]){16}, 10, 1.0), rand_f32(ctx, 1, (int64_t[]){16}, 11, 0.5),
                    cj_add(cj_abs(rand_f32(ctx, 1, (int64_t[]){16}, 12, 10.0)), cj_scalar(ctx, 1.0))};
    cj_func *sim = cj_func_new(ctx, "rk4_sim", rk4_sim, 3, 3, &a);
    roundtrip(ctx, sim, 3, in, "rk4_sim", NULL, 0);
    cj_grad_opts go = {0};
    go.argnums = (int[]){0, 1, 2};
    go.n_argnums = 3;
    go.has_aux = 1;
    cj_func *vg = cj_value_and_grad(sim, &go);
    roundtrip(ctx, vg, 3, in, "rk4_grad", NULL, 0);
    /* the gradient is two loops (the forward scan saving residuals, the
     * reverse one), each written once */
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/cjax-export-rk4-XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    cj_export_opts o = {0};
    o.dir = dir;
    cj_spec s[3] = {cj_spec_of(in[0]), cj_spec_of(in[1]), cj_spec_of(in[2])};
    CHECK(cj_export_c(vg, 3, s, "rk4_grad", &o, NULL) == CJ_OK);
    size_t raw = 0;
    char *text = read_digitless(dir, "rk4_grad.c", &raw);
    CHECK(text != NULL);
    int loops = 0;
    for (const char *p = text; p && (p = strstr(p, "for (i# step = #; step < #LL; step++)" /* i64: digits squashed */)); p++) loops++;
    CHECK_MSG(loops == 2, "%d loops", loops);
    CHECK(text && strstr(text, "last to first"));
    free(text);
    rm_dir(dir);
    cj_ctx_free(ctx);
}

/* The optional CBLAS call: the MLP's value_and_grad built with
 * -DCJX_USE_CBLAS -DCJX_CBLAS_MIN=1 against this machine's CBLAS (the
 * object then names cblas_sgemm), within 1e-5 of the jit as the portable
 * loops are; skipped, saying so, where no CBLAS links. */
TEST(export_cblas_products) {
    if (!have_cc()) return;
    if (system("printf 'char cblas_sgemm(void); int main(void) { return cblas_sgemm() * 0; }' | "
               "cc -x c - -o /tmp/cjax-export-cblas-probe -lblas >/dev/null 2>&1") != 0) {
        printf("    (no CBLAS links with -lblas: the CBLAS option is not checked on this machine)\n");
        return;
    }
    remove("/tmp/cjax-export-cblas-probe");
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val in[6];
    mlp_params(ctx, in);
    in[4] = rand_f32(ctx, 2, (int64_t[]){32, 64}, 21, 1.0);
    in[5] = onehot(ctx, 32);
    cj_grad_opts go = {0};
    go.n_argnums = 4;
    go.argnums = (int[]){0, 1, 2, 3};
    cj_func *vg = cj_value_and_grad(cj_func_new(ctx, "loss", f_mlp_loss, 6, 1, NULL), &go);
    g_cflags = "-DCJX_USE_CBLAS -DCJX_CBLAS_MIN=1";
    g_libs = "-lblas";
    g_cblas = 1;
    roundtrip(ctx, vg, 6, in, "mlp_cblas", NULL, 1e-5);
    int used = g_cblas == 2;
    g_cflags = g_libs = "";
    g_cblas = 0;
    CHECK_MSG(used, "the CBLAS build does not call cblas_sgemm");
    cj_ctx_free(ctx);
}

/* The math modes: f32 transcendentals through the f64 kernels equal the
 * jit's f64 program on the widened operand, rounded to f32; f64 ones
 * through the f32 kernels equal the jit's f32 program on the narrowed
 * operand, widened. Bit for bit, both ways. */
static void f_math(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    cj_dtype to = (cj_dtype)(intptr_t)user; /* the kernels' dtype: the jit's reference computes in it */
    cj_val x = to == cj_spec_of(in[0]).dtype ? in[0] : cj_astype(in[0], to);
    cj_dtype back = cj_spec_of(in[0]).dtype;
    out[0] = cj_astype(cj_exp(x), back);
    out[1] = cj_astype(cj_log(cj_abs(x)), back);
    out[2] = cj_astype(cj_sin(x), back);
    out[3] = cj_astype(cj_atan2(x, cj_abs(x)), back);
}

static void f_math_plain(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_exp(in[0]);
    out[1] = cj_log(cj_abs(in[0]));
    out[2] = cj_sin(in[0]);
    out[3] = cj_atan2(in[0], cj_abs(in[0]));
}

static void math_mode_case(cj_ctx *ctx, cj_dtype dt, int mode, cj_dtype kernels) {
    cj_val x = cj_astype(rand_f32(ctx, 1, (int64_t[]){64}, 31, 3.0), dt);
    cj_jit_opts jo = {0};
    jo.backend = CJ_BACKEND_CC;
    cj_func *ref = cj_jit(cj_func_new(ctx, "ref", f_math, 1, 4, (void *)(intptr_t)kernels), &jo);
    cj_val want[4];
    CHECK(cj_call(ref, &x, want) == CJ_OK);
    cj_export_opts o = {0};
    o.math = mode;
    exported e;
    if (export_build(ctx, cj_func_new(ctx, "math", f_math_plain, 1, 4, NULL), 1, &x, "math_mode", &o, &e) != 0) {
        export_close(&e);
        return;
    }
    size_t es = cj_dtype_size(dt), bytes = 64 * es;
    void *in = malloc(bytes), *out[4], *w = malloc(bytes), *work = NULL;
    cj_read(x, in, bytes);
    for (int i = 0; i < 4; i++) out[i] = malloc(bytes);
    size_t wb = e.work_bytes();
    if (wb && posix_memalign(&work, 64, wb) != 0) work = NULL;
    void *p[6] = {in, out[0], out[1], out[2], out[3], work};
    CHECK(call_entry(&e, p, 6) == 0);
    for (int i = 0; i < 4; i++) {
        cj_read(want[i], w, bytes);
        CHECK_MSG(!memcmp(w, out[i], bytes), "math mode %d on %s: output %d differs from the jit in %s", mode,
                  cj_dtype_name(dt), i, cj_dtype_name(kernels));
    }
    for (int i = 0; i < 4; i++) free(out[i]);
    free(in), free(w), free(work);
    export_close(&e);
}

TEST(export_math_modes) {
    if (!have_cc()) return;
    cj_ctx *ctx = cj_ctx_new(NULL);
    math_mode_case(ctx, CJ_F32, CJ_EXPORT_MATH_DOUBLE, CJ_F64);
    math_mode_case(ctx, CJ_F64, CJ_EXPORT_MATH_FLOAT, CJ_F32);
    math_mode_case(ctx, CJ_F32, CJ_EXPORT_MATH_NATIVE, CJ_F32);
    cj_spec s = cj_spec_make(CJ_F32, 1, (int64_t[]){4});
    cj_export_opts o = {0};
    o.math = 7;
    o.dir = "/nonexistent-dir";
    CHECK(cj_export_c(cj_func_new(ctx, "math", f_math_plain, 1, 4, NULL), 1, &s, "m", &o, NULL) == CJ_ERR_ARG);
    CHECK(strstr(cj_error_message(ctx), "math mode 7") != NULL);
    cj_error_clear(ctx);
    cj_ctx_free(ctx);
}

/* Allocation failure at every site of exporting nested control flow (a
 * scan whose body runs a fori_loop and a cond): CJ_ERR_OOM, nothing
 * leaked, until it succeeds. */
TEST(export_control_flow_allocation_failure_is_clean) {
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/cjax-export-oomcf-XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    int covered = 0;
    for (long long n = 1; n < 40000 && !covered; n++) {
        tu_alloc st = {0};
        st.fail_at = n;
        cj_allocator a = tu_allocator(&st);
        cj_ctx *ctx = cj_ctx_new(&a);
        if (ctx) {
            cj_spec s[2] = {cj_spec_make(CJ_F32, 1, (int64_t[]){8}), cj_spec_make(CJ_F32, 2, (int64_t[]){6, 8})};
            cj_export_opts o = {0};
            o.dir = dir;
            cj_func *f = cj_func_new(ctx, "nested", f_nested, 2, 2, NULL);
            int rc = f ? cj_export_c(f, 2, s, "nested", &o, NULL) : cj_error(ctx);
            CHECK_MSG(rc == CJ_OK || rc == CJ_ERR_OOM, "allocation %lld: got %s: %s", n, cj_status_name((cj_status)rc),
                      cj_error_message(ctx));
            if (!st.failed) {
                CHECK(rc == CJ_OK);
                covered = 1;
            }
            cj_ctx_free(ctx);
        }
        CHECK_MSG(st.live == 0, "allocation %lld failing leaked %lld blocks", n, st.live);
    }
    rm_dir(dir);
    CHECK(covered);
}
