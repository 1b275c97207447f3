/* test_codegen_nested.c — LOOP kernels written as nested loops over the
 * multi-index (src/backend/codegen_nested.c): a kernel whose leaves are a
 * basis broadcast along a batch, a pad on the inner axis, a transpose, a
 * concatenate along an outer axis, an iota, a dynamic slice with a
 * clamped start and a transposed basis broadcast along the batch (copied
 * into a block once per call), around a rank-0 value, with one
 * intermediate written out.
 * Its values are checked against plain C loops over the same formulas
 * (small integers and quarters: every operation is exact, so equality is
 * bit for bit):
 *   - through cj_jit on generated C and on the interpreter;
 *   - by calling the generated kernel itself on ranges that cut rows
 *     anywhere (the thread pool cuts at multiples of the tile, which a
 *     row of 7 or 8 may divide, so a plain run need not reach the
 *     partial-row path), every range ending at a random point.
 * Inner rows of 8 (the constant-trip loop for full rows) and of 100 (a
 * plain loop); the kernel must be the nested form, one LOOP kernel. */
#include <stdlib.h>
#include <unistd.h>

#include "backend/cc_build.h"
#include "backend/program_impl.h"
#include "compiler/program.h"
#include "core/func.h"
#include "harness.h"
#include "test_util.h"

typedef struct nest_shape {
    int64_t B, M, N, M1; /* space [B, M, N]; the concatenate splits M into M1 + (M - M1) */
} nest_shape;

enum { START = 5 }; /* the dynamic slice's start on axis 0, given past the end: clamped to 3 */

/* inputs: E [M,N] basis, X [B,M,N-1], Y [B,N,M], Z1 [B,M1,N], Z2 [B,M-M1,N],
 * W [B+3,M,N], s [] rank-0, k [] i32 start, F [N,M] a basis read transposed
 *   a = broadcast E along the batch, b = pad X by one s in front of the
 *   inner axis, c = Y transposed, d = concatenate(Z1, Z2) on axis 1,
 *   i = iota along axis 2, w = W[k : k+B], f = F transposed, broadcast
 *   out0 = a*b + c - d*i + w*s + f,  out1 = a*b */
static void f_nest(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    const nest_shape *sh = u;
    int64_t B = sh->B, M = sh->M, N = sh->N;
    int64_t shape[3] = {B, M, N}, dims12[2] = {1, 2};
    cj_val a = cj_broadcast_in_dim(in[0], 3, shape, dims12);
    int64_t lo[3] = {0, 0, 1}, hi[3] = {0, 0, 0}, interior[3] = {0, 0, 0};
    cj_val b = cj_pad(in[1], in[5], lo, hi, interior);
    int64_t perm[3] = {0, 2, 1};
    cj_val c = cj_transpose(in[2], perm);
    cj_val d = cj_concatenate(2, (cj_val[]){in[3], in[4]}, 1);
    cj_val i = cj_iota(ctx, CJ_F32, 3, shape, 2);
    cj_val zero = cj_scalar_typed(ctx, 0, CJ_I32);
    cj_val w = cj_dynamic_slice(in[6], (cj_val[]){in[7], zero, zero}, shape);
    cj_val f = cj_broadcast_in_dim(cj_transpose(in[8], NULL), 3, shape, dims12); /* copied into a block */
    cj_val ab = cj_mul(a, b);
    out[0] = cj_add(cj_add(cj_sub(cj_add(ab, c), cj_mul(d, i)), cj_mul(w, in[5])), f);
    out[1] = ab;
}

/* A quarter-valued array of n floats. */
static float *quarters(int64_t n, uint64_t *rng) {
    float *v = malloc(sizeof(float) * (size_t)n);
    for (int64_t q = 0; q < n; q++) v[q] = (float)(int)th_rand_uniform(rng, -40, 40) / 4;
    return v;
}

typedef struct nest_data {
    float *E, *X, *Y, *Z1, *Z2, *W, *F, s;
    int k;
    float *want0, *want1;
} nest_data;

static void make_data(const nest_shape *sh, nest_data *d) {
    int64_t B = sh->B, M = sh->M, N = sh->N, M1 = sh->M1;
    uint64_t rng = 17;
    d->E = quarters(M * N, &rng), d->X = quarters(B * M * (N - 1), &rng), d->Y = quarters(B * N * M, &rng);
    d->Z1 = quarters(B * M1 * N, &rng), d->Z2 = quarters(B * (M - M1) * N, &rng);
    d->W = quarters((B + 3) * M * N, &rng), d->F = quarters(N * M, &rng), d->s = -1.25f, d->k = START;
    d->want0 = malloc(sizeof(float) * (size_t)(B * M * N));
    d->want1 = malloc(sizeof(float) * (size_t)(B * M * N));
    int64_t k = d->k > 3 ? 3 : d->k; /* lax clamps the start so the slice fits */
    for (int64_t p = 0; p < B; p++)
        for (int64_t m = 0; m < M; m++)
            for (int64_t n = 0; n < N; n++) {
                float a = d->E[m * N + n];
                float b = n >= 1 ? d->X[(p * M + m) * (N - 1) + n - 1] : d->s;
                float c = d->Y[(p * N + n) * M + m];
                float z = m < M1 ? d->Z1[(p * M1 + m) * N + n] : d->Z2[(p * (M - M1) + m - M1) * N + n];
                float w = d->W[((p + k) * M + m) * N + n];
                float ab = a * b;
                d->want1[(p * M + m) * N + n] = ab;
                d->want0[(p * M + m) * N + n] = (((ab + c) - z * (float)n) + w * d->s) + d->F[n * M + m];
            }
}

static void free_data(nest_data *d) {
    free(d->E), free(d->X), free(d->Y), free(d->Z1), free(d->Z2), free(d->W), free(d->F), free(d->want0),
        free(d->want1);
}

static cj_val arr3(cj_ctx *ctx, const float *v, int64_t a, int64_t b, int64_t c) {
    return cj_array(ctx, CJ_F32, 3, (int64_t[]){a, b, c}, v);
}

static void inputs(cj_ctx *ctx, const nest_shape *sh, const nest_data *d, cj_val *in) {
    int64_t B = sh->B, M = sh->M, N = sh->N, M1 = sh->M1;
    in[0] = cj_array(ctx, CJ_F32, 2, (int64_t[]){M, N}, d->E);
    in[1] = arr3(ctx, d->X, B, M, N - 1);
    in[2] = arr3(ctx, d->Y, B, N, M);
    in[3] = arr3(ctx, d->Z1, B, M1, N);
    in[4] = arr3(ctx, d->Z2, B, M - M1, N);
    in[5] = cj_scalar_typed(ctx, d->s, CJ_F32);
    in[6] = arr3(ctx, d->W, B + 3, M, N);
    in[7] = cj_scalar_typed(ctx, d->k, CJ_I32);
    in[8] = cj_array(ctx, CJ_F32, 2, (int64_t[]){N, M}, d->F);
}

static bool equal_to(const float *got, const float *want, int64_t n, const char *what) {
    for (int64_t q = 0; q < n; q++)
        if (memcmp(&got[q], &want[q], sizeof(float))) {
            th_fail(__FILE__, __LINE__, "%s: element %lld is %g, want %g", what, (long long)q, got[q], want[q]);
            return false;
        }
    return true;
}

/* The program through cj_jit on both backends. */
static void check_jit(const nest_shape *sh, const nest_data *d, const char *cache) {
    cc_build_options o = {NULL, NULL, cache, 0};
    native_set_build_options_for_testing(&o);
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val in[9], y[2];
    inputs(ctx, sh, d, in);
    cj_func *f = cj_func_new(ctx, "nest", f_nest, 9, 2, (void *)sh);
    cj_backend backends[2] = {CJ_BACKEND_INTERP, CJ_BACKEND_CC};
    int64_t n = sh->B * sh->M * sh->N;
    float *got = malloc(sizeof(float) * (size_t)n);
    for (int b = 0; b < 2 && !th_failed_now(); b++) {
        cj_jit_opts jo = {0, NULL, 0, NULL, backends[b]};
        cj_func *j = cj_jit(f, &jo);
        CHECK_MSG(cj_call(j, in, y) == CJ_OK, "%s", cj_error_message(ctx));
        CHECK(cj_read(y[0], got, sizeof(float) * (size_t)n) == CJ_OK);
        if (!equal_to(got, d->want0, n, b ? "jit cc out0" : "jit interp out0")) break;
        CHECK(cj_read(y[1], got, sizeof(float) * (size_t)n) == CJ_OK);
        if (!equal_to(got, d->want1, n, b ? "jit cc out1" : "jit interp out1")) break;
    }
    free(got);
    cj_ctx_free(ctx);
    native_set_build_options_for_testing(NULL);
}

/* The generated kernel itself, called on ranges that cut rows anywhere. */
static void check_ranges(const nest_shape *sh, const nest_data *d, const char *cache) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *f = cj_func_new(ctx, "nest", f_nest, 9, 2, (void *)sh);
    int64_t B = sh->B, M = sh->M, N = sh->N, M1 = sh->M1, n = B * M * N;
    rt_aval av[9] = {rt_aval_make(CJ_F32, 2, (int64_t[]){M, N}),
                     rt_aval_make(CJ_F32, 3, (int64_t[]){B, M, N - 1}),
                     rt_aval_make(CJ_F32, 3, (int64_t[]){B, N, M}),
                     rt_aval_make(CJ_F32, 3, (int64_t[]){B, M1, N}),
                     rt_aval_make(CJ_F32, 3, (int64_t[]){B, M - M1, N}),
                     rt_aval_make(CJ_F32, 0, NULL),
                     rt_aval_make(CJ_F32, 3, (int64_t[]){B + 3, M, N}),
                     rt_aval_make(CJ_I32, 0, NULL),
                     rt_aval_make(CJ_F32, 2, (int64_t[]){N, M})};
    ir_func *ir = func_trace_to_ir(f, av, NULL, "nested test");
    CHECK(ir != NULL);
    compiled *c = ir ? compile_ir(ctx, ir) : NULL;
    CHECK_MSG(c != NULL, "%s", cj_error_message(ctx));
    if (!c) goto out;
    int k = -1, loops = 0;
    for (int q = 0; q < c->n_kernels; q++) {
        /* (the start's wrap of negative indices is a kernel of its own, rank 0) */
        if (c->kernels[q].kind != KERNEL_LOOP || rt_aval_size(&c->kernels[q].space) != n) continue;
        loops++;
        if (codegen_nested_applies(c, q)) k = q;
    }
    CHECK_MSG(loops == 1 && k >= 0, "%d loop kernels over the space, nested %d", loops, k);
    if (k < 0) goto out;
    strbuf sb;
    sb_init(&sb, ctx->mem);
    codegen_program(c, NULL, &sb);
    /* the nested form, with the transposed basis copied into a block */
    CHECK(!sb.failed && strstr(sb.data, "nested loops over"));
    CHECK_MSG(!sb.failed && strstr(sb.data, "[k++] = src["), "no block copy in the kernel");
    cc_build_options o = {NULL, NULL, cache, 0};
    cc_module *m = sb.failed ? NULL : cc_build_with(ctx, sb.data, &o, NULL);
    sb_free(&sb);
    if (!m) {
        printf("    (no C compiler: %s)\n", cj_error_message(ctx));
        goto out;
    }
    char name[32];
    snprintf(name, sizeof name, "cjk_kernel_%d", k);
    cjk_kernel_fn fn = (cjk_kernel_fn)cc_symbol(m, name);
    CHECK(fn != NULL);
    char **buf = calloc((size_t)c->ir->n_vars + 1, sizeof *buf);
    const void *data[9] = {d->E, d->X, d->Y, d->Z1, d->Z2, &d->s, d->W, &d->k, d->F};
    for (int i = 0; i < 9; i++) buf[c->ir->in[i]] = (char *)data[i];
    const kernel *K = &c->kernels[k];
    float *outs[8] = {0};
    for (int i = 0; i < K->n_out && i < 8; i++) buf[K->out[i]] = (char *)(outs[i] = calloc((size_t)n, sizeof(float)));
    /* the start with negative values wrapped (its own small kernel, not
     * run here: k is not negative, so it is k) */
    int wrapped = d->k < 0 ? d->k + (int)(B + 3) : d->k;
    for (int i = 0; i < K->n_in; i++) { /* constants: the zero starts of the slice */
        int u = K->in[i];
        for (int q = 0; q < c->ir->n_consts && !buf[u]; q++)
            if (c->ir->consts[q].var == u) buf[u] = (char *)c->ir->consts[q].val->data;
        if (!buf[u] && c->kernel_of[u] >= 0 && c->ir->vars[u].rank == 0 && c->ir->vars[u].dtype == CJ_I32)
            buf[u] = (char *)&wrapped;
    }
    for (int i = 0; i < K->n_in; i++) CHECK_MSG(buf[K->in[i]] != NULL, "kernel input %d has no data", K->in[i]);
    cjk_rt rt = {0};
    uint64_t rng = 5;
    for (int round = 0; round < 20 && fn && !th_failed_now(); round++) {
        for (int i = 0; i < K->n_out; i++) memset(outs[i], 0xff, sizeof(float) * (size_t)n);
        int64_t at = 0;
        while (at < n) { /* ranges of 1 .. 3 rows and a bit, ending anywhere */
            int64_t len = 1 + (int64_t)th_rand_uniform(&rng, 0, (double)(3 * N + 5));
            if (round == 0) len = n; /* the whole space once */
            int64_t end = at + len < n ? at + len : n;
            fn(&rt, buf, at, end);
            at = end;
        }
        for (int i = 0; i < K->n_out; i++) {
            int v = K->out[i];
            const float *want = v == c->ir->out[0] ? d->want0 : v == c->ir->out[1] ? d->want1 : NULL;
            CHECK_MSG(want != NULL, "kernel output %d is no program output", v);
            if (want && !equal_to(outs[i], want, n, "kernel over cut ranges")) break;
        }
    }
    for (int i = 0; i < 8; i++) free(outs[i]);
    free(buf);
    cc_module_free(ctx, m);
out:
    if (c) compiled_free(ctx, c);
    if (ir) ir_free(ir);
    cj_ctx_free(ctx);
}

static void check_shape(nest_shape sh) {
    char cache[128];
    snprintf(cache, sizeof cache, "/tmp/cjax_nested_test_%d", (int)getpid());
    nest_data d;
    make_data(&sh, &d);
    check_jit(&sh, &d, cache);
    if (!th_failed_now()) check_ranges(&sh, &d, cache);
    free_data(&d);
}

/* rows of 8: full rows take the constant-trip loop */
TEST(codegen_nested_short_rows_match_plain_loops) { check_shape((nest_shape){37, 8, 8, 3}); }
/* rows of 100: one plain loop per row */
TEST(codegen_nested_long_rows_match_plain_loops) { check_shape((nest_shape){6, 3, 100, 1}); }
