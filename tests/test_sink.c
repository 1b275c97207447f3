/* test_sink.c — simplify's sinking of movement (src/compiler/sink.c): a
 * transpose or an order-keeping reshape of an elementwise result or a pad
 * that nothing else reads moves onto the operands, so the chain compiles
 * into its consumer's kernel.
 *
 * Each program is traced from C with the public API, simplified, and
 *   - read back as IR: which movements are left and what they read;
 *   - evaluated before and after on the same inputs (quarters, signed
 *     zeros, infinities and NaNs among them): bit-identical results;
 *   - compiled: the number of kernels, and jit's result on both backends
 *     against a plain C loop of the same formula (exact operations).
 * It must not fire where nothing is gained: a value read twice, one next to
 * a row reduction (a ROWS kernel), a small value; and vmap of a hessian
 * (the issue-14 shape) compiles to at most 8 kernels and equals the
 * closed-form Hessian. */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "backend/program_impl.h"
#include "compiler/passes.h"
#include "compiler/program.h"
#include "core/func.h"
#include "harness.h"
#include "test_util.h"

enum { R = 16, C = 9 }; /* [R, C]: 144 elements, over the sinking threshold */

static ir_func *trace(cj_ctx *ctx, cj_fn fn, int n_in, int n_out, const rt_aval *avals) {
    cj_func *f = cj_func_new(ctx, "f", fn, n_in, n_out, NULL);
    return f ? func_trace_to_ir(f, avals, NULL, "test_sink") : NULL;
}

static char *ir_text(cj_ctx *ctx, const ir_func *f) {
    strbuf sb;
    sb_init(&sb, ctx->mem);
    ir_print(f, &sb);
    char *s = strdup(sb.data && !sb.failed ? sb.data : "(print failed)");
    sb_free(&sb);
    return s;
}

static void fill(rt_array *a, uint64_t *seed) {
    static const double special[] = {0.0, -0.0, INFINITY, -INFINITY, NAN};
    for (int64_t i = 0; i < a->size; i++) {
        uint64_t r = th_rand_u64(seed);
        double v = r % 8 == 0 ? special[(r >> 8) % 5] : (double)(int)th_rand_uniform(seed, -40, 40) / 4;
        rt_set_f64(a->aval.dtype, a->data, i, v);
    }
}

/* The two programs agree bit for bit on random inputs. */
static bool same_results(cj_ctx *ctx, const ir_func *a, const ir_func *b, uint64_t seed) {
    rt_array *in[8] = {0}, *oa[8] = {0}, *ob[8] = {0};
    bool ok = a->n_in == b->n_in && a->n_out == b->n_out && a->n_in <= 8 && a->n_out <= 8;
    for (int i = 0; ok && i < a->n_in; i++) {
        in[i] = rt_array_new(ctx->mem, &a->vars[a->in[i]]);
        ok = in[i] != NULL;
        if (ok) fill(in[i], &seed);
    }
    ok = ok && ir_eval_arrays(ctx, a, in, oa) == 0 && ir_eval_arrays(ctx, b, in, ob) == 0;
    for (int i = 0; ok && i < a->n_out; i++)
        ok = rt_aval_equal(&oa[i]->aval, &ob[i]->aval) &&
             memcmp(oa[i]->data, ob[i]->data, rt_aval_nbytes(&oa[i]->aval)) == 0;
    for (int i = 0; i < 8; i++) rt_array_unref(in[i]), rt_array_unref(oa[i]), rt_array_unref(ob[i]);
    return ok;
}

/* Simplifies a fresh trace of fn and checks it against the unsimplified
 * trace; the simplified IR, or NULL. */
static ir_func *simplified(cj_ctx *ctx, cj_fn fn, int n_in, int n_out, const rt_aval *avals) {
    ir_func *orig = trace(ctx, fn, n_in, n_out, avals), *ir = trace(ctx, fn, n_in, n_out, avals);
    bool ok = orig && ir && pass_simplify(ctx, &ir) == 0 && ir_verify(ctx, ir) == 0 &&
              same_results(ctx, orig, ir, 3) && same_results(ctx, orig, ir, 99);
    if (!ok) th_fail(__FILE__, __LINE__, "simplify changed the results or failed: %s", cj_error_message(ctx));
    if (orig) ir_free(orig);
    if (!ok && ir) ir_free(ir), ir = NULL;
    return ir;
}

/* Movement equations of prim whose operand is computed (not an input or a
 * constant). */
static int moved_computed(const ir_func *f, prim_id prim) {
    int n = 0;
    for (int k = 0; k < f->n_eqns; k++) {
        const ir_eqn *e = &f->eqns[k];
        if (e->prim != prim) continue;
        int x = ir_eqn_inputs(f, e)[0];
        bool leaf = false;
        for (int i = 0; i < f->n_in; i++) leaf |= f->in[i] == x;
        for (int i = 0; i < f->n_consts; i++) leaf |= f->consts[i].var == x;
        n += !leaf;
    }
    return n;
}

static int kernels_of(cj_ctx *ctx, const ir_func *ir) {
    compiled *c = compile_ir(ctx, ir);
    int n = c ? c->n_kernels : -1;
    if (c) compiled_free(ctx, c);
    return n;
}

static rt_aval f32m(int64_t a, int64_t b) { return rt_aval_make(CJ_F32, 2, (int64_t[]){a, b}); }

/* ---- an elementwise chain under a transpose ---- */

/* transpose(max(x * y + 2, -x)) */
static void f_chain(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    cj_val v = cj_max(cj_add(cj_mul(in[0], in[1]), cj_scalar(ctx, 2.0)), cj_neg(in[0]));
    out[0] = cj_transpose(v, NULL);
}

TEST(sink_transpose_through_an_elementwise_chain) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    rt_aval av[2] = {f32m(R, C), f32m(R, C)};
    ir_func *ir = simplified(ctx, f_chain, 2, 1, av);
    if (!ir) goto out;
    char *t = ir_text(ctx, ir);
    /* the transposes read the inputs; nothing computed is transposed */
    CHECK_MSG(moved_computed(ir, PRIM_TRANSPOSE) == 0, "%s", t);
    CHECK_MSG(strstr(t, "transpose") != NULL, "%s", t);
    free(t);
    CHECK_EQ_INT(kernels_of(ctx, ir), 1); /* was two: the chain, then the transpose */
    ir_free(ir);
    /* jit on both backends against a plain loop */
    float x[R * C], y[R * C], got[R * C];
    for (int i = 0; i < R * C; i++) x[i] = (float)(i % 13 - 6) / 4, y[i] = (float)(i % 7 - 3) / 2;
    cj_val in[2] = {cj_array(ctx, CJ_F32, 2, (int64_t[]){R, C}, x), cj_array(ctx, CJ_F32, 2, (int64_t[]){R, C}, y)};
    cj_backend backends[2] = {CJ_BACKEND_INTERP, CJ_BACKEND_CC};
    for (int b = 0; b < 2; b++) {
        cj_jit_opts o = {0, NULL, 0, NULL, backends[b]};
        cj_val r;
        CHECK_MSG(cj_call(cj_jit(cj_func_new(ctx, "chain", f_chain, 2, 1, NULL), &o), in, &r) == CJ_OK, "%s",
                  cj_error_message(ctx));
        CHECK(cj_read(r, got, sizeof got) == CJ_OK);
        for (int c = 0; c < C; c++)
            for (int rr = 0; rr < R; rr++) {
                float a = x[rr * C + c] * y[rr * C + c] + 2.0f, n = -x[rr * C + c];
                float want = a > n ? a : n;
                CHECK_MSG(got[c * R + rr] == want, "%s: [%d,%d] %g, want %g", b ? "cc" : "interp", c, rr,
                          got[c * R + rr], want);
            }
    }
out:
    cj_ctx_free(ctx);
}

/* ---- through pads ---- */

/* transpose(pad(x * y, 0, lo 1 on axis 1, hi 2 on axis 0)), and a reshape
 * dropping a size-1 axis of pad(x3 + 1) */
static void f_pads(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    int64_t lo[2] = {0, 1}, hi[2] = {2, 0}, in0[2] = {0, 0};
    cj_val p = cj_pad(cj_mul(in[0], in[1]), cj_scalar(ctx, 0.0), lo, hi, in0);
    out[0] = cj_transpose(p, NULL);
    int64_t lo3[3] = {1, 0, 0}, hi3[3] = {0, 0, 3}, z3[3] = {0, 0, 0};
    cj_val q = cj_pad(cj_add(in[2], cj_scalar(ctx, 1.0)), cj_scalar(ctx, -0.5), lo3, hi3, z3); /* [R+1, 1, C+3] */
    out[1] = cj_reshape(q, 2, (int64_t[]){R + 1, C + 3});
}

TEST(sink_transpose_and_reshape_through_pads) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    rt_aval av[3] = {f32m(R, C), f32m(R, C), rt_aval_make(CJ_F32, 3, (int64_t[]){R, 1, C})};
    ir_func *ir = simplified(ctx, f_pads, 3, 2, av);
    if (!ir) goto out;
    char *t = ir_text(ctx, ir);
    CHECK_MSG(moved_computed(ir, PRIM_TRANSPOSE) == 0 && moved_computed(ir, PRIM_RESHAPE) == 0, "%s", t);
    free(t);
    /* per result: the elementwise kernel reading the inputs moved, then
     * the pad of its buffer (a pad reads buffers only); unsunk, the
     * movement of the pad would be a third kernel, as the composition of
     * a map over a window is not exact in general */
    CHECK_EQ_INT(kernels_of(ctx, ir), 4);
    ir_free(ir);
    float x[R * C], y[R * C], z[R * C], got0[(C + 1) * (R + 2)], got1[(R + 1) * (C + 3)];
    for (int i = 0; i < R * C; i++)
        x[i] = (float)(i % 11 - 5) / 4, y[i] = (float)(i % 5 - 2), z[i] = (float)(i % 9 - 4) / 2;
    cj_val in[3] = {cj_array(ctx, CJ_F32, 2, (int64_t[]){R, C}, x), cj_array(ctx, CJ_F32, 2, (int64_t[]){R, C}, y),
                    cj_array(ctx, CJ_F32, 3, (int64_t[]){R, 1, C}, z)};
    cj_backend backends[2] = {CJ_BACKEND_INTERP, CJ_BACKEND_CC};
    for (int b = 0; b < 2; b++) {
        cj_jit_opts o = {0, NULL, 0, NULL, backends[b]};
        cj_val r[2];
        CHECK_MSG(cj_call(cj_jit(cj_func_new(ctx, "pads", f_pads, 3, 2, NULL), &o), in, r) == CJ_OK, "%s",
                  cj_error_message(ctx));
        CHECK(cj_read(r[0], got0, sizeof got0) == CJ_OK && cj_read(r[1], got1, sizeof got1) == CJ_OK);
        for (int c = 0; c < C + 1; c++) /* out0[c, r] = pad(x*y)[r, c] */
            for (int rr = 0; rr < R + 2; rr++) {
                float want = rr < R && c >= 1 ? x[rr * C + c - 1] * y[rr * C + c - 1] : 0.0f;
                CHECK_MSG(got0[c * (R + 2) + rr] == want, "%s out0 [%d,%d]", b ? "cc" : "interp", c, rr);
            }
        for (int rr = 0; rr < R + 1; rr++) /* out1[r, c] = pad(z + 1)[r, 0, c] */
            for (int c = 0; c < C + 3; c++) {
                float want = rr >= 1 && c < C ? z[(rr - 1) * C + c] + 1.0f : -0.5f;
                CHECK_MSG(got1[rr * (C + 3) + c] == want, "%s out1 [%d,%d]", b ? "cc" : "interp", rr, c);
            }
    }
out:
    cj_ctx_free(ctx);
}

/* ---- where it must not fire ---- */

/* v = x * y is read twice (transposed and as itself); w = x - mean(x) is
 * a row reduction broadcast back (a ROWS kernel); s is small */
static void f_stays(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    cj_val v = cj_mul(in[0], in[1]);
    out[0] = cj_transpose(v, NULL);
    out[1] = v;
    int64_t ax = 1;
    cj_val w = cj_sub(in[0], cj_mean(in[0], 1, &ax, 1));
    out[2] = cj_transpose(w, NULL);
    cj_val s = cj_add(in[2], cj_scalar(ctx, 1.0)); /* [4, 4]: 16 elements */
    out[3] = cj_transpose(s, NULL);
}

TEST(sink_leaves_shared_rows_and_small_values) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    rt_aval av[3] = {f32m(R, C), f32m(R, C), f32m(4, 4)};
    ir_func *ir = simplified(ctx, f_stays, 3, 4, av);
    if (!ir) goto out;
    char *t = ir_text(ctx, ir);
    CHECK_MSG(moved_computed(ir, PRIM_TRANSPOSE) == 3, "%s", t); /* all three still transpose a computed value */
    free(t);
    ir_free(ir);
out:
    cj_ctx_free(ctx);
}

/* ---- vmap(hessian) ---- */

enum { HD = 8, HP = 300 };

static void rosen(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    int64_t lo0 = 0, hi0 = HD - 1, lo1 = 1, hi1 = HD;
    cj_val a = cj_slice(in[0], &lo0, &hi0, NULL), b = cj_slice(in[0], &lo1, &hi1, NULL);
    cj_val r = cj_sub(b, cj_mul(a, a)), q = cj_sub(cj_scalar(ctx, 1.0), a);
    out[0] = cj_sum(cj_add(cj_mul(cj_scalar(ctx, 100.0), cj_mul(r, r)), cj_mul(q, q)), -1, NULL, 0);
}

TEST(sink_vmap_hessian_is_few_kernels_and_exact) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    static float pts[HP * HD], got[HP * HD * HD];
    for (int p = 0; p < HP; p++)
        for (int j = 0; j < HD; j++) pts[p * HD + j] = (float)(0.6 * sin(0.37 * p + 1.3 * j) + 0.4);
    cj_val x = cj_array(ctx, CJ_F32, 2, (int64_t[]){HP, HD}, pts);
    cj_func *h = cj_vmap(cj_hessian(cj_func_new(ctx, "rosen", rosen, 1, 1, NULL), NULL), NULL);
    cj_backend backends[2] = {CJ_BACKEND_INTERP, CJ_BACKEND_CC};
    for (int b = 0; b < 2; b++) {
        cj_jit_opts o = {0, NULL, 0, NULL, backends[b]};
        cj_func *j = cj_jit(h, &o);
        cj_val y;
        CHECK_MSG(cj_call(j, &x, &y) == CJ_OK, "%s", cj_error_message(ctx));
        CHECK(cj_read(y, got, sizeof got) == CJ_OK);
        double worst = 0;
        for (int p = 0; p < HP; p++) { /* the closed form: tridiagonal */
            const float *xp = pts + p * HD;
            for (int r = 0; r < HD; r++)
                for (int c = 0; c < HD; c++) {
                    double want = 0;
                    if (r == c && r + 1 < HD) want += 1200.0 * xp[r] * xp[r] - 400.0 * xp[r + 1] + 2;
                    if (r == c && r > 0) want += 200;
                    if (c == r + 1 || r == c + 1) want = -400.0 * xp[r < c ? r : c];
                    double d = fabs(got[(p * HD + r) * HD + c] - want) / 1200.0;
                    if (d > worst) worst = d;
                }
        }
        CHECK_MSG(worst < 1e-5, "%s: relative difference %g", b ? "cc" : "interp", worst);
        cj_program_info info;
        CHECK(cj_jit_program_info(j, &x, &info) == CJ_OK);
        /* the basis broadcasts, the products and the pads of the jacobian's
         * rows and its transpose: 8 kernels (12 before sinking) */
        CHECK_MSG(info.n_kernels <= 8, "%d kernels", info.n_kernels);
    }
    cj_ctx_free(ctx);
}
