/* cjax_run.c — `cjax-run`: runs a JAX program exported as StableHLO text
 * with no Python (docs/IMPORT.md). Built by CMake beside the library and
 * installed with it; a client of the public API only.
 *
 *   cjax-run MODULE.mlir IN.npy... -o OUT_PREFIX [options]
 *
 * imports the module (cj_import_stablehlo_file), calls it under cj_jit on
 * the inputs and writes output i as OUT_PREFIX<i>.npy. Options:
 *   --grad        the gradient of sum(output 0) by every float input
 *                 instead (output i: the i-th float input's gradient)
 *   --vmap        map every input over its leading axis (outputs batched
 *                 on axis 0)
 *   --print       print the program as cjax IR to stdout
 *   --memory      print the compiled program's memory analysis
 *   --bench N     print the median wall time of N calls
 *   --backend B   interp, cc or tiered (default: cjax's default)
 *   --entry NAME  the func.func to run (default main)
 * Exit status 0 on success, 1 with the error on stderr, 2 for bad usage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cjax.h"

#define MAX_IO 64

static int usage(void) {
    fprintf(stderr, "usage: cjax-run MODULE.mlir IN.npy... -o OUT_PREFIX [--grad] [--vmap] [--print] [--memory]\n"
                    "                [--bench N] [--backend interp|cc|tiered] [--entry NAME]\n");
    return 2;
}

static int fail(cj_ctx *ctx, const char *what) {
    fprintf(stderr, "cjax-run: %s: %s\n", what, ctx ? cj_error_message(ctx) : "");
    cj_ctx_free(ctx);
    return 1;
}

/* sum(f(in)[0]): the scalar --grad differentiates */
static void sum_first(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    cj_func *f = user;
    cj_val o[MAX_IO];
    cj_call(f, in, o);
    out[0] = cj_sum(o[0], -1, NULL, 0);
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    const char *module = NULL, *prefix = NULL, *entry = NULL, *inputs[MAX_IO];
    int n_inputs = 0, grad = 0, vmap = 0, print = 0, memory = 0;
    long bench = 0;
    cj_backend backend = CJ_BACKEND_DEFAULT;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-o") && i + 1 < argc) prefix = argv[++i];
        else if (!strcmp(a, "--grad")) grad = 1;
        else if (!strcmp(a, "--vmap")) vmap = 1;
        else if (!strcmp(a, "--print")) print = 1;
        else if (!strcmp(a, "--memory")) memory = 1;
        else if (!strcmp(a, "--bench") && i + 1 < argc) {
            char *end;
            bench = strtol(argv[++i], &end, 10);
            if (*end || bench < 1 || bench > 1000000) return usage();
        } else if (!strcmp(a, "--entry") && i + 1 < argc) entry = argv[++i];
        else if (!strcmp(a, "--backend") && i + 1 < argc) {
            const char *b = argv[++i];
            if (!strcmp(b, "interp")) backend = CJ_BACKEND_INTERP;
            else if (!strcmp(b, "cc")) backend = CJ_BACKEND_CC;
            else if (!strcmp(b, "tiered")) backend = CJ_BACKEND_TIERED;
            else return usage();
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage();
            return 0;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "cjax-run: unknown option %s\n", a);
            return usage();
        } else if (!module) module = a;
        else if (n_inputs < MAX_IO) inputs[n_inputs++] = a;
        else return usage();
    }
    if (!module || (!prefix && !print && !memory && !bench)) return usage();

    cj_ctx *ctx = cj_ctx_new(NULL);
    if (!ctx) return fprintf(stderr, "cjax-run: out of memory\n"), 1;
    cj_import_opts io = {entry, 0, 0, 0};
    cj_func *f = cj_import_stablehlo_file(ctx, module, &io);
    if (!f) return fail(ctx, module);
    if (cj_func_n_in(f) != n_inputs) {
        fprintf(stderr, "cjax-run: %s takes %d inputs, %d given\n", module, cj_func_n_in(f), n_inputs);
        cj_ctx_free(ctx);
        return 2;
    }
    cj_val in[MAX_IO], out[MAX_IO];
    for (int i = 0; i < n_inputs; i++) {
        in[i] = cj_load_npy(ctx, inputs[i]);
        if (cj_error(ctx)) return fail(ctx, inputs[i]);
    }
    cj_func *g = f;
    int n_out = cj_func_n_out(f);
    if (grad) {
        int argnums[MAX_IO], n = 0;
        for (int i = 0; i < n_inputs; i++) {
            cj_dtype d = cj_val_dtype(in[i]);
            if (d == CJ_F32 || d == CJ_F64 || d == CJ_F16 || d == CJ_BF16) argnums[n++] = i;
        }
        if (!n) {
            fprintf(stderr, "cjax-run: --grad: no input has a float dtype\n");
            cj_ctx_free(ctx);
            return 2;
        }
        cj_grad_opts go = {n, argnums, 0};
        g = cj_grad(cj_func_new(ctx, "sum_output0", sum_first, n_inputs, 1, f), &go);
        n_out = n;
    }
    if (vmap) g = cj_vmap(g, NULL);
    cj_jit_opts jo = {0};
    jo.backend = backend;
    cj_func *jf = cj_jit(g, &jo);
    if (!jf) return fail(ctx, "jit");
    if (print && cj_print_ir(jf, n_inputs, in, stdout) != CJ_OK) return fail(ctx, "--print");
    if (memory) {
        cj_memory_analysis ma;
        if (cj_jit_memory_analysis(jf, in, &ma) != CJ_OK) return fail(ctx, "--memory");
        printf("arguments %zu bytes, outputs %zu, temporaries %zu, constants %zu, aliased %zu, peak %zu\n",
               ma.argument_bytes, ma.output_bytes, ma.temp_bytes, ma.constant_bytes, ma.alias_bytes, ma.peak_bytes);
    }
    if (cj_call(jf, in, out) != CJ_OK) return fail(ctx, module);
    if (bench) {
        double *t = malloc((size_t)bench * sizeof *t);
        if (!t) return fail(ctx, "--bench: out of memory");
        for (long r = 0; r < bench; r++) {
            cj_scope_begin(ctx);
            cj_val o[MAX_IO];
            double t0 = now_s();
            cj_status st = cj_call(jf, in, o);
            t[r] = now_s() - t0;
            cj_scope_end(ctx, 0, NULL);
            if (st != CJ_OK) {
                free(t);
                return fail(ctx, "--bench");
            }
        }
        qsort(t, (size_t)bench, sizeof *t, cmp_double);
        printf("median %.3f us over %ld calls\n", 1e6 * t[bench / 2], bench);
        free(t);
    }
    if (prefix) {
        for (int i = 0; i < n_out; i++) {
            size_t len = strlen(prefix) + 16;
            char *path = malloc(len);
            if (!path) return fail(ctx, "out of memory");
            snprintf(path, len, "%s%d.npy", prefix, i);
            cj_status st = cj_save_npy(out[i], path);
            if (st != CJ_OK) {
                fprintf(stderr, "cjax-run: %s: %s\n", path, cj_error_message(ctx));
                free(path);
                cj_ctx_free(ctx);
                return 1;
            }
            free(path);
        }
    }
    cj_ctx_free(ctx);
    return 0;
}
