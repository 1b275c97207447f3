/* export_mlp.c — exports a 64-128-10 MLP's training step,
 * jit(value_and_grad(loss)), as dependency-free C (cj_export_c,
 * docs/EXPORT.md), the way a build step would: `./build/export_mlp DIR`
 * writes DIR/mlp_step.c and DIR/mlp_step.h, prints their sizes and the
 * workspace, then (when a C compiler is found) builds the exported C with
 * examples/export_mlp/train.c alone — no cjax — and runs it: a few SGD
 * steps whose loss must fall. `export_mlp DIR --export-only [--no-fma]`
 * only writes the files: the build's generator (cmake/CjaxExport.cmake
 * makes the export_train target of CMakeLists.txt from them). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <cjax.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { BATCH = 32, IN = 64, HID = 128, OUT = 10 };

/* in: W1 [64,128], b1 [128], W2 [128,10], b2 [10], x [B,64], onehot [B,10] */
static void loss(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    cj_val h = cj_relu(cj_add(cj_matmul(in[4], in[0]), in[1]));
    cj_val z = cj_add(cj_matmul(h, in[2]), in[3]);
    out[0] = cj_neg(cj_mean(cj_mul(cj_log_softmax(z, -1), in[5]), 0, NULL, 0));
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    int export_only = 0, no_fma = 0;
    for (int i = 2; i < argc; i++) {
        export_only |= !strcmp(argv[i], "--export-only");
        no_fma |= !strcmp(argv[i], "--no-fma");
    }
    const char *src_dir = argc > 2 && argv[2][0] != '-' ? argv[2] : "examples/export_mlp";
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_spec in[6] = {
        cj_spec_make(CJ_F32, 2, (int64_t[]){IN, HID}), cj_spec_make(CJ_F32, 1, (int64_t[]){HID}),
        cj_spec_make(CJ_F32, 2, (int64_t[]){HID, OUT}), cj_spec_make(CJ_F32, 1, (int64_t[]){OUT}),
        cj_spec_make(CJ_F32, 2, (int64_t[]){BATCH, IN}), cj_spec_make(CJ_F32, 2, (int64_t[]){BATCH, OUT})};
    cj_grad_opts go = {4, (const int[]){0, 1, 2, 3}, 0};
    cj_func *step = cj_jit(cj_value_and_grad(cj_func_new(ctx, "loss", loss, 6, 1, NULL), &go), NULL);
    cj_export_opts o = {0};
    o.dir = dir;
    o.fma = no_fma ? CJ_EXPORT_FMA_OFF : CJ_EXPORT_FMA_MATCH; /* portable: any x86-64 or other target */
    cj_export_info info;
    double t0 = now_s();
    if (cj_export_c(step, 6, in, "mlp_step", &o, &info) != CJ_OK) {
        fprintf(stderr, "export failed: %s\n", cj_error_message(ctx));
        cj_ctx_free(ctx);
        return 1;
    }
    printf("exported %s/mlp_step.c (%zu bytes) and mlp_step.h (%zu bytes) in %.0f ms: %d kernels, "
           "workspace %zu bytes (temporaries %zu)\n",
           dir, info.source_bytes, info.header_bytes, 1e3 * (now_s() - t0), info.n_kernels, info.work_bytes,
           info.temp_bytes);
    cj_ctx_free(ctx);
    if (export_only) return 0;
    fflush(stdout); /* before the compiler's and the program's output */
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "cc -std=c99 -O2 -Wall -Wextra -Werror -fno-math-errno %s -I'%s' '%s/train.c' '%s/mlp_step.c' -o "
             "'%s/train'",
             info.fma ? "-mfma" : "", dir, src_dir, dir, dir);
    t0 = now_s();
    if (system(cmd) != 0) {
        printf("(no C compiler, or the build failed: %s)\n", cmd);
        return 0;
    }
    printf("built the exported step with train.c alone in %.2f s (cc -O2)\n", now_s() - t0);
    fflush(stdout);
    snprintf(cmd, sizeof cmd, "'%s/train'", dir);
    return system(cmd) == 0 ? 0 : 1;
}
