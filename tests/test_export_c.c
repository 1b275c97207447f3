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
             "cd '%s' && cc -std=c99 -O2 -Wall -Wextra -Werror -fno-math-errno %s -fPIC -c %s.c -o %s.o 2> cc.log"
             " && cc -shared %s.o -o %s.so %s 2>> cc.log",
             x->dir, x->info.fma ? "-mfma" : "", name, name, name, name,
             x->info.uses_libm ? "-lm" : "");
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
    out[0] = cj_tanh(cj_add(in[0], in[1]));
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
    CHECK_MSG(strstr(cj_error_message(ctx), "cj_export_c(scan)") && strstr(cj_error_message(ctx), "control flow"),
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
