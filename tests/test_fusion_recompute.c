/* test_fusion_recompute.c — cheap producers recomputed in the kernels that
 * consume them (src/compiler/recompute.c, the fuse pass's second half):
 * the planned temporaries of a program with a cheap value stored only for
 * a later loop drop by that value's bytes (counted from the shapes), an
 * expensive chain (exp, or more cheap operations than the bound) and a
 * cheap one read by too many kernels are still stored, and recomputed
 * programs — hand-made ones and a GELU layer's gradient, whose derivative
 * factors are the case — give what plain loops (and eager, which
 * fuses nothing) give, on the interpreter and in generated C. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/program.h"
#include "core/func.h"
#include "harness.h"
#include "test_util.h"

#define M 64
#define N 64
#define VBYTES ((size_t)M * N * 4) /* one f32[64,64] */

/* d = sin x (stored: the product reads it); e = d·d, cheap, read only by
 * the loop after the product: y = t·e + t·d with t = d W. */
static void f_cheap(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    cj_val d = cj_sin(in[0]), e = cj_mul(d, d), t = cj_matmul(d, in[1]);
    out[0] = cj_add(cj_mul(t, e), cj_mul(t, d));
}
/* the same with e = exp(d): a transcendental is not recomputed */
static void f_exp(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    cj_val d = cj_sin(in[0]), e = cj_exp(d), t = cj_matmul(d, in[1]);
    out[0] = cj_add(cj_mul(t, e), cj_mul(t, d));
}
/* e = d^10 by nine multiplications: work 9, over the bound of 8 */
static void f_long(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    cj_val d = cj_sin(in[0]), e = d, t = cj_matmul(d, in[1]);
    for (int i = 0; i < 9; i++) e = cj_mul(e, d);
    out[0] = cj_add(cj_mul(t, e), cj_mul(t, d));
}
/* e = ((d·d)·d)·d + d (work 4) read by `n` loops, each after its own
 * product: y_i = t_i·e + t_i·d with t_i = d W_i (W_i = W + i). Each loop
 * reads d too: recomputing e there makes no buffer live longer. */
typedef struct readers_opts {
    int n;
} readers_opts;
static void f_readers(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    const readers_opts *o = u;
    cj_val d = cj_sin(in[0]), e = cj_add(cj_mul(cj_mul(cj_mul(d, d), d), d), d);
    for (int i = 0; i < o->n; i++) {
        cj_val t = cj_matmul(d, cj_add(in[1], cj_scalar(ctx, i)));
        out[i] = cj_add(cj_mul(t, e), cj_mul(t, d));
    }
}

static void inputs(cj_ctx *ctx, cj_val *in, float *x, float *w) {
    uint64_t rng = 11;
    for (int i = 0; i < M * N; i++) x[i] = (float)th_rand_uniform(&rng, -2, 2);
    for (int i = 0; i < N * N; i++) w[i] = (float)th_rand_uniform(&rng, -0.2, 0.2);
    in[0] = cj_array(ctx, CJ_F32, 2, (int64_t[]){M, N}, x);
    in[1] = cj_array(ctx, CJ_F32, 2, (int64_t[]){N, N}, w);
}

/* Compiles fn over (f32[M,N], f32[N,N]) with recomputation on or off. */
static compiled *compile_fn(cj_ctx *ctx, cj_fn fn, int n_out, void *u, bool no_recompute) {
    cj_func *f = cj_func_new(ctx, "recompute", fn, 2, n_out, u);
    rt_aval av[2] = {rt_aval_make(CJ_F32, 2, (int64_t[]){M, N}), rt_aval_make(CJ_F32, 2, (int64_t[]){N, N})};
    ir_func *ir = f ? func_trace_to_ir(f, av, NULL, "recompute test") : NULL;
    compiled *c =
        ir ? compile_ir_until(ctx, ir, NULL, &(compile_options){.no_recompute = no_recompute, .verify = true}) : NULL;
    ir_free(ir);
    return c;
}

/* How many equations of primitive p the compiled program has. */
static int count_prim(const compiled *c, prim_id p) {
    int n = 0;
    for (int e = 0; e < c->ir->n_eqns; e++) n += c->ir->eqns[e].prim == p;
    return n;
}

TEST(recompute_cheap_residual_is_not_stored) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    compiled *off = compile_fn(ctx, f_cheap, 1, NULL, true), *on = compile_fn(ctx, f_cheap, 1, NULL, false);
    CHECK_MSG(off && on, "%s", cj_error_message(ctx));
    /* stored, d and e are both live from sin's loop to the loop after the
     * product (which runs as its epilogue, so t has no buffer): two
     * f32[64,64]. Recomputed, e = d·d is computed again in that loop from
     * d, which it reads anyway: d alone. */
    CHECK_EQ_INT(off->mem.temp_bytes, 2 * VBYTES);
    CHECK_EQ_INT(on->mem.temp_bytes, VBYTES);
    CHECK_EQ_INT(off->mem.peak_bytes - on->mem.peak_bytes, VBYTES);
    /* the multiplication d·d moved: still one, now in the consumer's kernel
     * (sin's loop computes only d) */
    CHECK_EQ_INT(count_prim(on, PRIM_MUL), count_prim(off, PRIM_MUL));
    int y = on->ir->out[0], sin_k = -1;
    for (int e = 0; e < on->ir->n_eqns; e++)
        if (on->ir->eqns[e].prim == PRIM_SIN) sin_k = on->kernel_of[on->ir->eqns[e].out];
    CHECK(sin_k >= 0);
    CHECK_EQ_INT(on->kernels[sin_k].n_eqns, 1);
    for (int e = 0; e < on->ir->n_eqns; e++)
        if (on->ir->eqns[e].prim == PRIM_MUL) CHECK_EQ_INT(on->kernel_of[on->ir->eqns[e].out], on->kernel_of[y]);
    compiled_free(ctx, off);
    compiled_free(ctx, on);
    cj_ctx_free(ctx);
}

TEST(recompute_bound_keeps_expensive_chains_stored) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_fn fns[2] = {f_exp, f_long};
    for (int i = 0; i < 2; i++) {
        compiled *off = compile_fn(ctx, fns[i], 1, NULL, true), *on = compile_fn(ctx, fns[i], 1, NULL, false);
        CHECK_MSG(off && on, "%s", cj_error_message(ctx));
        /* e stays a buffer: d and e, as without recomputation */
        CHECK_EQ_INT(on->mem.temp_bytes, 2 * VBYTES);
        CHECK_EQ_INT(on->ir->n_eqns, off->ir->n_eqns);
        compiled_free(ctx, off);
        compiled_free(ctx, on);
    }
    cj_ctx_free(ctx);
}

TEST(recompute_bound_on_consumers) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    /* work 4: read by 2 or 4 kernels (4·4 = 16, the bound) it is computed
     * in each of them, so its four equations are there once per reader;
     * read by 5 (20 > 16) it is stored, computed once */
    int counts[3] = {2, 4, 5};
    for (int i = 0; i < 3; i++) {
        readers_opts o = {counts[i]};
        compiled *off = compile_fn(ctx, f_readers, o.n, &o, true), *on = compile_fn(ctx, f_readers, o.n, &o, false);
        CHECK_MSG(off && on, "%s", cj_error_message(ctx));
        int n = o.n, off_mul = count_prim(off, PRIM_MUL), on_mul = count_prim(on, PRIM_MUL);
        if (n <= 4) {
            CHECK_EQ_INT(on_mul, off_mul + 3 * (n - 1)); /* e's three muls in each reader, none left in sin's loop */
            CHECK_EQ_INT(off->mem.temp_bytes - on->mem.temp_bytes, VBYTES);
        } else {
            CHECK_EQ_INT(on_mul, off_mul);
            CHECK_EQ_INT(on->mem.temp_bytes, off->mem.temp_bytes);
        }
        compiled_free(ctx, off);
        compiled_free(ctx, on);
    }
    cj_ctx_free(ctx);
}

/* y = t·e + t·d, t = d W, d = sin x, e = d² (or exp d, or d^10) in double */
static void ref_cheap(const float *x, const float *w, int which, double *y) {
    double *d = malloc(sizeof(double) * M * N);
    for (int i = 0; i < M * N; i++) d[i] = sin((double)x[i]);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double t = 0;
            for (int k = 0; k < N; k++) t += d[i * N + k] * w[k * N + j];
            double dv = d[i * N + j], e = which == 0 ? dv * dv : which == 1 ? exp(dv) : pow(dv, 10);
            y[i * N + j] = t * e + t * dv;
        }
    free(d);
}

TEST(recompute_results_match_plain_loops_on_both_backends) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    static float x[M * N], w[N * N], ye[M * N], yi[M * N], yc[M * N];
    static double ref[M * N];
    cj_val in[2];
    inputs(ctx, in, x, w);
    cj_fn fns[3] = {f_cheap, f_exp, f_long};
    cj_jit_opts oi = {0, NULL, 0, NULL, CJ_BACKEND_INTERP}, oc = {0, NULL, 0, NULL, CJ_BACKEND_CC};
    for (int which = 0; which < 3; which++) {
        cj_func *f = cj_func_new(ctx, "recompute", fns[which], 2, 1, NULL);
        cj_val a, b, cc;
        CHECK(cj_call(f, in, &a) == CJ_OK);
        CHECK(cj_call(cj_jit(f, &oi), in, &b) == CJ_OK);
        CHECK(cj_call(cj_jit(f, &oc), in, &cc) == CJ_OK);
        cj_read(a, ye, sizeof ye);
        cj_read(b, yi, sizeof yi);
        cj_read(cc, yc, sizeof yc);
        ref_cheap(x, w, which, ref);
        for (int i = 0; i < M * N; i++) {
            CHECK_NEAR(ye[i], ref[i], 1e-4, 1e-5);
            /* the interpreter and generated C compute the same bits; eager
             * (the product on its own, no epilogue) within rounding */
            CHECK_MSG(yi[i] == yc[i], "%d: %g %g", i, yi[i], yc[i]);
            CHECK_NEAR(yi[i], ye[i], 1e-5, 1e-6);
        }
    }
    /* several readers, recomputed (2) and stored (5) */
    for (int r = 0; r < 2; r++) {
        readers_opts o = {r ? 5 : 2};
        cj_func *f = cj_func_new(ctx, "readers", f_readers, 2, o.n, &o);
        cj_val a[5], b[5], cc[5];
        CHECK(cj_call(f, in, a) == CJ_OK);
        CHECK(cj_call(cj_jit(f, &oi), in, b) == CJ_OK);
        CHECK(cj_call(cj_jit(f, &oc), in, cc) == CJ_OK);
        for (int k = 0; k < o.n; k++) {
            cj_read(a[k], ye, sizeof ye);
            cj_read(b[k], yi, sizeof yi);
            cj_read(cc[k], yc, sizeof yc);
            for (int i = 0; i < M; i++)
                for (int j = 0; j < N; j++) {
                    double t = 0, dv = sin((double)x[i * N + j]);
                    for (int q = 0; q < N; q++) t += sin((double)x[i * N + q]) * ((double)w[q * N + j] + k);
                    double e = dv * dv * dv * dv + dv, want = t * e + t * dv;
                    CHECK_NEAR(ye[i * N + j], want, 1e-4, 1e-4);
                    CHECK(yi[i * N + j] == yc[i * N + j]);
                    CHECK_NEAR(yi[i * N + j], ye[i * N + j], 1e-5, 1e-5);
                }
        }
    }
    cj_ctx_free(ctx);
}

/* ---- a GELU layer's gradient: the transformer's feed-forward case ---- */
#define GB 32  /* rows */
#define GD 16  /* width in */
#define GF 64  /* feed-forward width: the GELU's values are f32[32,64] */

/* loss(x, W, V) = sum(gelu(x W) V) */
static void f_gelu_loss(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_sum(cj_matmul(cj_gelu(cj_matmul(in[0], in[1])), in[2]), 0, NULL, 0);
}

static double gelu_d(double h, double *dg) {
    const double c = 0.79788456080286535588, a = 0.044715;
    double u = c * (h + a * h * h * h), t = tanh(u);
    *dg = 0.5 * (1 + t) + 0.5 * h * (1 - t * t) * c * (1 + 3 * a * h * h);
    return 0.5 * h * (1 + t);
}

TEST(recompute_gelu_gradient_stores_less_and_matches_loops) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    static float x[GB * GD], w[GD * GF], v[GF * GD];
    uint64_t rng = 5;
    for (int i = 0; i < GB * GD; i++) x[i] = (float)th_rand_uniform(&rng, -1, 1);
    for (int i = 0; i < GD * GF; i++) w[i] = (float)th_rand_uniform(&rng, -0.5, 0.5);
    for (int i = 0; i < GF * GD; i++) v[i] = (float)th_rand_uniform(&rng, -0.5, 0.5);
    cj_val in[3] = {cj_array(ctx, CJ_F32, 2, (int64_t[]){GB, GD}, x), cj_array(ctx, CJ_F32, 2, (int64_t[]){GD, GF}, w),
                    cj_array(ctx, CJ_F32, 2, (int64_t[]){GF, GD}, v)};
    int argnums[1] = {1};
    cj_grad_opts go = {1, argnums, 0};
    cj_func *g = cj_grad(cj_func_new(ctx, "gelu_loss", f_gelu_loss, 3, 1, NULL), &go);
    /* the memory: with the derivative's cheap factors recomputed in the
     * backward loop, at least one f32[GB,GF] fewer is stored */
    rt_aval av[3] = {rt_aval_make(CJ_F32, 2, (int64_t[]){GB, GD}), rt_aval_make(CJ_F32, 2, (int64_t[]){GD, GF}),
                     rt_aval_make(CJ_F32, 2, (int64_t[]){GF, GD})};
    ir_func *ir = func_trace_to_ir(g, av, NULL, "recompute test");
    CHECK_MSG(ir, "%s", cj_error_message(ctx));
    compiled *off = compile_ir_until(ctx, ir, NULL, &(compile_options){.no_recompute = true, .verify = true});
    compiled *on = compile_ir_until(ctx, ir, NULL, &(compile_options){.verify = true});
    CHECK_MSG(off && on, "%s", cj_error_message(ctx));
    size_t residual = (size_t)GB * GF * 4;
    CHECK_MSG(on->mem.temp_bytes + residual <= off->mem.temp_bytes, "%zu vs %zu", on->mem.temp_bytes,
              off->mem.temp_bytes);
    compiled_free(ctx, off);
    compiled_free(ctx, on);
    ir_free(ir);
    /* the values: dW[k][j] = sum_i x[i][k] gelu'(h[i][j]) sum_q V[j][q] */
    static double want[GD * GF];
    for (int k = 0; k < GD * GF; k++) want[k] = 0;
    for (int i = 0; i < GB; i++)
        for (int j = 0; j < GF; j++) {
            double h = 0, dg, vs = 0;
            for (int k = 0; k < GD; k++) h += (double)x[i * GD + k] * w[k * GF + j];
            gelu_d(h, &dg);
            for (int q = 0; q < GD; q++) vs += v[j * GD + q];
            for (int k = 0; k < GD; k++) want[k * GF + j] += x[i * GD + k] * dg * vs;
        }
    cj_jit_opts oi = {0, NULL, 0, NULL, CJ_BACKEND_INTERP}, oc = {0, NULL, 0, NULL, CJ_BACKEND_CC};
    cj_val a, b, c;
    CHECK(cj_call(g, in, &a) == CJ_OK);
    CHECK(cj_call(cj_jit(g, &oi), in, &b) == CJ_OK);
    CHECK(cj_call(cj_jit(g, &oc), in, &c) == CJ_OK);
    static float ga[GD * GF], gi[GD * GF], gc[GD * GF];
    cj_read(a, ga, sizeof ga);
    cj_read(b, gi, sizeof gi);
    cj_read(c, gc, sizeof gc);
    for (int k = 0; k < GD * GF; k++) {
        CHECK_NEAR(ga[k], want[k], 1e-4, 1e-4);
        CHECK_NEAR(gi[k], ga[k], 1e-5, 1e-5);
        CHECK_MSG(gi[k] == gc[k], "%d: %g %g", k, gi[k], gc[k]);
    }
    cj_ctx_free(ctx);
}

/* ---- out of memory ---- */
/* f_cheap on the interpreter, the recomputation taking place: 0 and the
 * result in y, or the call's status. */
static cj_status run_cheap(cj_ctx *ctx, const float *x, const float *w, float *y) {
    cj_val in[2] = {cj_array(ctx, CJ_F32, 2, (int64_t[]){M, N}, x), cj_array(ctx, CJ_F32, 2, (int64_t[]){N, N}, w)};
    cj_jit_opts oi = {0, NULL, 0, NULL, CJ_BACKEND_INTERP};
    cj_func *f = cj_func_new(ctx, "recompute", f_cheap, 2, 1, NULL);
    cj_val out;
    cj_status s = cj_call(cj_jit(f, &oi), in, &out);
    if (s == CJ_OK) s = cj_read(out, y, sizeof(float) * M * N);
    return s;
}

TEST(recompute_allocation_failure_is_clean) {
    static float x[M * N], w[N * N], want[M * N], got[M * N];
    cj_ctx *ref = cj_ctx_new(NULL);
    cj_val in[2];
    inputs(ref, in, x, w);
    CHECK(run_cheap(ref, x, w, want) == CJ_OK);
    cj_ctx_free(ref);
    int covered = 0;
    for (long long n = 1; n < 20000 && !covered; n++) {
        tu_alloc st = {0};
        st.fail_at = n;
        cj_allocator al = tu_allocator(&st);
        cj_ctx *ctx = cj_ctx_new(&al);
        if (ctx) {
            if (run_cheap(ctx, x, w, got) == CJ_OK) {
                CHECK_MSG(memcmp(got, want, sizeof got) == 0, "allocation %lld: wrong result", n);
                covered = !st.failed;
            } else {
                CHECK_MSG(cj_error(ctx) == CJ_ERR_OOM, "allocation %lld: %s", n, cj_error_message(ctx));
            }
            cj_ctx_free(ctx);
        }
        CHECK_MSG(st.live == 0 && st.live_bytes == 0, "allocation %lld failing leaked %lld blocks, %lld bytes", n,
                  st.live, st.live_bytes);
    }
    CHECK(covered);
}
