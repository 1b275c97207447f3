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
#include <sys/wait.h>

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
/* comparators of two keys carrying a value, argsort, integer keys; a
 * reduce of two operands each by its own op */
TEST(import_stablehlo_sorts) { CHECK(check_program("sorts", 0, 1e-6, 1e-6)); }
TEST(import_stablehlo_pretty_sorts) { CHECK(check_program("sorts", 1, 1e-6, 1e-6)); }
/* JAX's CPU LAPACK custom calls: getrf, trsm, potrf, syevd */
TEST(import_stablehlo_linalg) { CHECK(check_program("linalg", 0, 1e-4, 1e-5)); }
TEST(import_stablehlo_pretty_linalg) { CHECK(check_program("linalg", 1, 1e-4, 1e-5)); }

/* sum(mlp(params, x)): the scalar jax.grad differentiated in the fixture */
static void mlp_sum(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    cj_val y;
    cj_call((cj_func *)user, in, &y);
    out[0] = cj_sum(y, -1, NULL, 0);
}

TEST(import_stablehlo_grad_matches_jax) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *f = cj_import_stablehlo_file(ctx, HLO_DIR "mlp.generic.mlir", NULL);
    CHECK_MSG(f, "%s", cj_error_message(ctx));
    cj_val in[5];
    for (int i = 0; i < 5; i++) in[i] = load(ctx, "mlp", "in", i);
    cj_val want = load(ctx, "mlp", "grad", 0);
    cj_func *g = cj_grad(cj_func_new(ctx, "mlp_sum", mlp_sum, 5, 1, f), NULL);
    for (int mode = 0; mode < 2; mode++) {
        cj_val d;
        CHECK_MSG(cj_call(mode ? cj_jit(g, NULL) : g, in, &d) == CJ_OK, "%s", cj_error_message(ctx));
        char why[200];
        CHECK_MSG(close_to(d, want, 1e-5, 1e-6, why, sizeof why), "grad (%s): %s", mode ? "jit" : "eager", why);
    }
    cj_ctx_free(ctx);
}

TEST(import_stablehlo_vmap_matches_rows) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *f = cj_import_stablehlo_file(ctx, HLO_DIR "mlp.generic.mlir", NULL);
    CHECK_MSG(f, "%s", cj_error_message(ctx));
    cj_val in[5];
    for (int i = 0; i < 4; i++) in[i] = load(ctx, "mlp", "in", i);
    /* a batch of three inputs: x, 2x, -x */
    cj_val x = load(ctx, "mlp", "in", 4);
    cj_val xs[3] = {x, cj_mul(x, cj_scalar(ctx, 2.0)), cj_neg(x)};
    cj_val batch[3] = {cj_expand_dims(xs[0], 0), cj_expand_dims(xs[1], 0), cj_expand_dims(xs[2], 0)};
    in[4] = cj_concatenate(3, batch, 0);
    int64_t axes[5] = {CJ_NOT_MAPPED, CJ_NOT_MAPPED, CJ_NOT_MAPPED, CJ_NOT_MAPPED, 0};
    cj_vmap_opts vo = {axes, NULL, 0, 0, 0};
    cj_val yb;
    CHECK_MSG(cj_call(cj_jit(cj_vmap(f, &vo), NULL), in, &yb) == CJ_OK, "%s", cj_error_message(ctx));
    CHECK_EQ_INT(cj_val_dim(yb, 0), 3);
    for (int b = 0; b < 3; b++) {
        cj_val row_in[5] = {in[0], in[1], in[2], in[3], xs[b]}, y;
        CHECK(cj_call(f, row_in, &y) == CJ_OK);
        int64_t s[3] = {b, 0, 0}, l[3] = {b + 1, 5, 3};
        char why[200];
        CHECK_MSG(close_to(cj_squeeze(cj_slice(yb, s, l, NULL), 1, (int64_t[]){0}), y, 1e-6, 1e-6, why, sizeof why),
                  "row %d: %s", b, why);
    }
    cj_ctx_free(ctx);
}

/* A module in the pretty form, written by hand: the ops whose pretty form
 * the parser reads, a private function and a call. */
static const char pretty_module[] =
    "module @jit_f attributes {mhlo.num_partitions = 1 : i32} {\n"
    "  func.func public @main(%arg0: tensor<3xf32> {jax.arg_info = \"x\"}, %arg1: tensor<3xf32>) -> (tensor<3xf32> {jax.result_info = \"\"}) {\n"
    "    %cst = stablehlo.constant dense<[1.0, 2.0, 0x7F800000]> : tensor<3xf32>\n"
    "    %0 = stablehlo.multiply %arg0, %cst : tensor<3xf32>  // a comment\n"
    "    %1 = call @g(%0, %arg1) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>\n"
    "    return %1 : tensor<3xf32>\n"
    "  }\n"
    "  func.func private @g(%arg0: tensor<3xf32>, %arg1: tensor<3xf32>) -> tensor<3xf32> {\n"
    "    %0 = stablehlo.subtract %arg0, %arg1 : tensor<3xf32>\n"
    "    %1 = stablehlo.tanh %0 : tensor<3xf32> loc(\"x.py\":3:4)\n"
    "    return %1 : tensor<3xf32>\n"
    "  }\n"
    "}\n";

TEST(import_stablehlo_pretty_form) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *f = cj_import_stablehlo(ctx, pretty_module, strlen(pretty_module), NULL);
    CHECK_MSG(f, "%s", cj_error_message(ctx));
    float xa[3] = {0.5f, -1.0f, 2.0f}, ya[3] = {0.25f, 0.5f, -1.0f}, r[3];
    cj_val in[2] = {cj_array(ctx, CJ_F32, 1, (int64_t[]){3}, xa), cj_array(ctx, CJ_F32, 1, (int64_t[]){3}, ya)}, y;
    CHECK(cj_call(cj_jit(f, NULL), in, &y) == CJ_OK);
    CHECK(cj_read(y, r, sizeof r) == CJ_OK);
    const float m[3] = {1.0f, 2.0f, INFINITY};
    for (int i = 0; i < 3; i++) CHECK_NEAR(r[i], tanhf(xa[i] * m[i] - ya[i]), 1e-6, 1e-7);
    cj_ctx_free(ctx);
}

static int import_fails(const char *text, const char *want) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *f = cj_import_stablehlo(ctx, text, strlen(text), NULL);
    int ok = 0;
    if (f) { /* an unsupported op: refused at the first call */
        float x = 1;
        cj_val in = cj_array(ctx, CJ_F32, 0, NULL, &x), out;
        ok = cj_call(f, &in, &out) != CJ_OK && cj_is_error(out);
    } else {
        ok = 1;
    }
    ok = ok && cj_error(ctx) != CJ_OK && strstr(cj_error_message(ctx), want) != NULL;
    if (!ok) fprintf(stderr, "    message: %s\n", cj_error_message(ctx));
    cj_ctx_free(ctx);
    return ok;
}

TEST(import_stablehlo_errors_name_line_and_column) {
    CHECK(import_fails("func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  %0 = stablehlo.add %a, %b : tensor<f32>\n}",
                       "line 2, column 26: stablehlo.add: '%b' is used before it is defined"));
    /* the pretty syntaxes of hlo_pretty_struct.c */
    CHECK(import_fails("func.func @main(%a: tensor<4xf32>) -> tensor<2xf32> {\n"
                       "  %0 = stablehlo.slice %a [0:] : (tensor<4xf32>) -> tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n",
                       "line 2, column 30: stablehlo.slice: expected an integer"));
    CHECK(import_fails("func.func @main(%a: tensor<i32>) -> tensor<i32> {\n  %0 = stablehlo.while(%it = %a) : tensor<i32>\n"
                       "  cond {\n    stablehlo.return %it : tensor<i32>\n  }\n  return %0 : tensor<i32>\n}\n",
                       "line 6, column 3: expected 'do' in stablehlo.while"));
    CHECK(import_fails("func.func @main(%a: tensor<1x4x4x1xf32>) -> tensor<1x4x4x1xf32> {\n"
                       "  %0 = stablehlo.convolution(%a, %a) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], "
                       "window = {stroke = [1, 1]} : (tensor<1x4x4x1xf32>, tensor<1x4x4x1xf32>) -> tensor<1x4x4x1xf32>\n"
                       "  return %0 : tensor<1x4x4x1xf32>\n}\n",
                       "line 2, column 103: stablehlo.convolution: unknown window item 'stroke'"));
    CHECK(import_fails("func.func @main(%a: tensor<4xf32>, %c: tensor<f32>) -> tensor<f32> {\n"
                       "  %0:2 = stablehlo.reduce(%a init: %c), (%a init: %c) across dimensions = [0] : "
                       "(tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)\n"
                       "   reducer(%x: tensor<f32>, %y: tensor<f32>) {\n    stablehlo.return %x : tensor<f32>\n  }\n"
                       "  return %0#0 : tensor<f32>\n}\n",
                       "line 3, column 46: stablehlo.reduce: expected '(' before a reducer argument pair"));
    CHECK(import_fails("\"func.func\"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = \"main\"}> ({\n"
                       "^bb0(%a: tensor<f32>):\n  %0 = \"stablehlo.fft\"(%a) : (tensor<f32>) -> tensor<f32>\n"
                       "  \"func.return\"(%0) : (tensor<f32>) -> ()\n}) : () -> ()",
                       "line 3, column 8: stablehlo.fft: op not supported"));
    CHECK(import_fails("func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  %0 = stablehlo.fft %a : tensor<f32>\n}",
                       "line 2, column 8: 'stablehlo.fft' in the pretty form is not read"));
    CHECK(import_fails("func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  return %a : tensor<f32>\n",
                       "expected '}'"));
    CHECK(import_fails("func.func @other(%a: tensor<f32>) -> tensor<f32> {\n  return %a : tensor<f32>\n}",
                       "no func.func @main"));
    CHECK(import_fails("func.func @main(%a: tensor<f32>) -> tensor<2xf32> {\n  %0 = stablehlo.abs %a : (tensor<f32>) -> tensor<2xf32>\n"
                       "  return %0 : tensor<2xf32>\n}",
                       "line 2, column 8: stablehlo.abs: result 0 is f32[] where the module says tensor<2xf32>"));
    CHECK(import_fails("func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<f32>\n"
                       "  return %0 : tensor<f32>\n}",
                       "2 elements for a 1-element tensor"));
    CHECK(import_fails("func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  %0 = call @main(%a) : (tensor<f32>) -> tensor<f32>\n"
                       "  return %0 : tensor<f32>\n}",
                       "nested deeper than 32"));
    CHECK(import_fails("func.func @main(%a: tensor<?xf32>) -> tensor<f32>", "dynamic shapes"));
    CHECK(import_fails("", "no func.func"));
    /* NULL arguments */
    cj_ctx *ctx = cj_ctx_new(NULL);
    CHECK(cj_import_stablehlo(ctx, NULL, 0, NULL) == NULL && cj_error(ctx) == CJ_ERR_ARG);
    cj_error_clear(ctx);
    CHECK(cj_import_stablehlo_file(ctx, "/nonexistent/m.mlir", NULL) == NULL && cj_error(ctx) == CJ_ERR_IO);
    cj_ctx_free(ctx);
    CHECK(cj_import_stablehlo(NULL, "", 0, NULL) == NULL);
    cj_error_clear(NULL);
}

/* cjax-run end to end: the MLP module and its inputs from the command line,
 * its output (and --grad's) against JAX's .npy, --print, --memory and
 * --bench on stdout, a bad module's exit status and message. */
#ifdef CJAX_RUN_BIN
static int run_cmd(const char *cmd, char *out, size_t n) {
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    size_t k = fread(out, 1, n - 1, p);
    out[k] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

TEST(import_stablehlo_cjax_run_end_to_end) {
    char dir[] = "/tmp/cjax_run_test.XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char cmd[4096], out[8192];
    int k = snprintf(cmd, sizeof cmd, "'%s' " HLO_DIR "mlp.generic.mlir", CJAX_RUN_BIN);
    for (int i = 0; i < 5; i++) k += snprintf(cmd + k, sizeof cmd - (size_t)k, " " HLO_DIR "mlp.in%d.npy", i);
    char *args_end = cmd + k;
    snprintf(args_end, sizeof cmd - (size_t)k, " -o %s/y --print --memory --bench 3 2>&1", dir);
    CHECK_EQ_INT(run_cmd(cmd, out, sizeof out), 0);
    CHECK_MSG(strstr(out, "{ lambda") && strstr(out, "dot_general") && strstr(out, "peak") && strstr(out, "median"),
              "output: %s", out);
    cj_ctx *ctx = cj_ctx_new(NULL);
    char path[600], why[200];
    snprintf(path, sizeof path, "%s/y0.npy", dir);
    CHECK_MSG(close_to(cj_load_npy(ctx, path), load(ctx, "mlp", "out", 0), 1e-5, 1e-6, why, sizeof why), "%s", why);
    snprintf(args_end, sizeof cmd - (size_t)k, " -o %s/g --grad 2>&1", dir);
    CHECK_EQ_INT(run_cmd(cmd, out, sizeof out), 0);
    snprintf(path, sizeof path, "%s/g0.npy", dir);
    CHECK_MSG(close_to(cj_load_npy(ctx, path), load(ctx, "mlp", "grad", 0), 1e-5, 1e-6, why, sizeof why), "%s", why);
    cj_ctx_free(ctx);
    /* a module with an unsupported op: exit 1 and the op's line */
    snprintf(path, sizeof path, "%s/bad.mlir", dir);
    FILE *f = fopen(path, "w");
    CHECK(f);
    fputs("func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  %0 = stablehlo.fft %a : tensor<f32>\n}\n", f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "'%s' %s " HLO_DIR "mlp.in1.npy -o %s/z 2>&1", CJAX_RUN_BIN, path, dir);
    CHECK_EQ_INT(run_cmd(cmd, out, sizeof out), 1);
    CHECK_MSG(strstr(out, "line 2, column 8"), "output: %s", out);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK_EQ_INT(system(cmd), 0);
}
#endif

/* The pretty form (Lowered.as_text()) of the programs whose ops it reads:
 * the same results as the generic form. */
TEST(import_stablehlo_pretty_mlp) { CHECK(check_program("mlp", 1, 1e-5, 1e-6)); }
TEST(import_stablehlo_pretty_sgd) { CHECK(check_program("sgd", 1, 1e-5, 1e-6)); }
TEST(import_stablehlo_pretty_block) { CHECK(check_program("block", 1, 1e-4, 1e-5)); }
TEST(import_stablehlo_pretty_block_grad) { CHECK(check_program("block_grad", 1, 1e-4, 1e-4)); }
TEST(import_stablehlo_pretty_cnn) { CHECK(check_program("cnn", 1, 1e-5, 1e-6)); }
TEST(import_stablehlo_pretty_rnn) { CHECK(check_program("rnn", 1, 1e-5, 1e-6)); }
TEST(import_stablehlo_pretty_rnn_grad) { CHECK(check_program("rnn_grad", 1, 1e-5, 1e-5)); }
TEST(import_stablehlo_pretty_solver) { CHECK(check_program("solver", 1, 1e-5, 1e-6)); }
TEST(import_stablehlo_pretty_random) { CHECK(check_program("random", 1, 1e-6, 1e-6)); }
TEST(import_stablehlo_pretty_linsolve) { CHECK(check_program("linsolve", 1, 1e-4, 1e-5)); }
TEST(import_stablehlo_pretty_ops_misc) { CHECK(check_program("ops_misc", 1, 1e-6, 1e-6)); }

/* What the pretty form does not read is refused with the op's place. */
TEST(import_stablehlo_pretty_unread_op_is_named) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    static const char text[] = "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                               "  %0 = stablehlo.reduce_precision %x, format = e5m2 : tensor<4xf32>\n"
                               "  return %0 : tensor<4xf32>\n}\n";
    CHECK(cj_import_stablehlo(ctx, text, strlen(text), NULL) == NULL);
    CHECK_MSG(strstr(cj_error_message(ctx), "line 2, column 8: 'stablehlo.reduce_precision'"), "%s", cj_error_message(ctx));
    CHECK_MSG(strstr(cj_error_message(ctx), "in the pretty form is not read") &&
                  strstr(cj_error_message(ctx), "line "),
              "%s", cj_error_message(ctx));
    cj_ctx_free(ctx);
}

/* A comparator that is not an ascending order (GT: descending) is refused
 * at the op, not sorted the wrong way. */
TEST(import_stablehlo_descending_comparator_is_refused) {
    CHECK(import_fails("func.func @main(%a: tensor<f32>) -> tensor<3xf32> {\n"
                       "  %b = stablehlo.broadcast_in_dim %a, dims = [] : (tensor<f32>) -> tensor<3xf32>\n"
                       "  %0 = \"stablehlo.sort\"(%b) <{dimension = 0 : i64}> ({\n"
                       "  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
                       "    %c = stablehlo.compare GT, %x, %y, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
                       "    stablehlo.return %c : tensor<i1>\n"
                       "  }) : (tensor<3xf32>) -> tensor<3xf32>\n"
                       "  return %0 : tensor<3xf32>\n}",
                       "line 3, column 8: stablehlo.sort: the comparator is not an ascending lexicographic order"));
    /* y < x as LT with the sides swapped is descending too */
    CHECK(import_fails("func.func @main(%a: tensor<f32>) -> tensor<3xf32> {\n"
                       "  %b = stablehlo.broadcast_in_dim %a, dims = [] : (tensor<f32>) -> tensor<3xf32>\n"
                       "  %0 = \"stablehlo.sort\"(%b) <{dimension = 0 : i64}> ({\n"
                       "  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
                       "    %c = stablehlo.compare LT, %y, %x, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
                       "    stablehlo.return %c : tensor<i1>\n"
                       "  }) : (tensor<3xf32>) -> tensor<3xf32>\n"
                       "  return %0 : tensor<3xf32>\n}",
                       "the comparator is not an ascending"));
}

/* A scatter of two operands, each by its own update (add, set), read in
 * the pretty form's mix: x + [0, 10, 0, 20] and y with [1] = 5, [3] = 6;
 * and a sort whose comparator is spelt "not (y <= x)" (ascending). */
TEST(import_stablehlo_scatter_of_two_operands) {
    static const char text[] =
        "func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {\n"
        "  %i = stablehlo.constant dense<[[1], [3]]> : tensor<2x1xi32>\n"
        "  %u = stablehlo.constant dense<[10.0, 20.0]> : tensor<2xf32>\n"
        "  %v = stablehlo.constant dense<[5.0, 6.0]> : tensor<2xf32>\n"
        "  %r:2 = \"stablehlo.scatter\"(%x, %y, %i, %u, %v) <{scatter_dimension_numbers = #stablehlo.scatter<"
        "inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({\n"
        "  ^bb0(%a0: tensor<f32>, %a1: tensor<f32>, %b0: tensor<f32>, %b1: tensor<f32>):\n"
        "    %s = stablehlo.add %a0, %b0 : tensor<f32>\n"
        "    stablehlo.return %s, %b1 : tensor<f32>, tensor<f32>\n"
        "  }) : (tensor<4xf32>, tensor<4xf32>, tensor<2x1xi32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<4xf32>, tensor<4xf32>)\n"
        "  %o = \"stablehlo.sort\"(%x) <{dimension = 0 : i64}> ({\n"
        "  ^bb0(%p: tensor<f32>, %q: tensor<f32>):\n"
        "    %c = stablehlo.compare LE, %q, %p, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
        "    %n = stablehlo.not %c : tensor<i1>\n"
        "    stablehlo.return %n : tensor<i1>\n"
        "  }) : (tensor<4xf32>) -> tensor<4xf32>\n"
        "  return %r#0, %r#1, %o : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>\n}\n";
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *f = cj_import_stablehlo(ctx, text, strlen(text), NULL);
    CHECK_MSG(f, "%s", cj_error_message(ctx));
    float xa[4] = {1, 2, 3, 4}, ya[4] = {-1, -2, -3, -4}, sa[4] = {3, -1, 2, 0.5f};
    const float want[3][4] = {{1, 12, 3, 24}, {-1, 5, -3, 6}, {-1, 0.5f, 2, 3}};
    for (int mode = 0; mode < 2 && f; mode++) {
        cj_func *g = mode ? cj_jit(f, NULL) : f;
        cj_val in[2] = {cj_array(ctx, CJ_F32, 1, (int64_t[]){4}, xa), cj_array(ctx, CJ_F32, 1, (int64_t[]){4}, ya)}, out[3];
        CHECK_MSG(cj_call(g, in, out) == CJ_OK, "%s", cj_error_message(ctx));
        float r[4];
        for (int k = 0; k < 2; k++) {
            CHECK(cj_read(out[k], r, sizeof r) == CJ_OK);
            for (int i = 0; i < 4; i++) CHECK_NEAR(r[i], want[k][i], 0, 0);
        }
        in[0] = cj_array(ctx, CJ_F32, 1, (int64_t[]){4}, sa);
        CHECK(cj_call(g, in, out) == CJ_OK && cj_read(out[2], r, sizeof r) == CJ_OK);
        for (int i = 0; i < 4; i++) CHECK_NEAR(r[i], want[2][i], 0, 0);
    }
    cj_ctx_free(ctx);
}
