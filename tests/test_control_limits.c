/* test_control_limits.c — no fixed limit on what a construct's bodies
 * save or read: a scan whose step's linearization keeps about 600
 * residuals (more than any per-equation table once held: 256 operands,
 * 128 results) differentiates eagerly and under jit on both backends, and
 * its gradient matches central differences of the same loss in plain C.
 * The known scan then has ~600 stacked outputs, the linear and
 * transposed scans ~600 xs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/core/core.h"
#include "harness.h"
#include "test_util.h"

#define MANY_INNER 600 /* nonlinear updates per step: one residual each */
#define MANY_STEPS 4
#define MANY_N 3

static double at(cj_val v, int64_t i) {
    double x[MANY_N] = {NAN, NAN, NAN};
    if (cj_read_as(v, CJ_F64, x, sizeof x) != CJ_OK) return NAN;
    return x[i];
}

static double coef(int k) { return 0.0002 * (1 + k % 3); }

/* carries (s, p): s ← p · (s after s += c_k s², k < MANY_INNER); p
 * unchanged. Each square's jvp keeps s_k: MANY_INNER residuals (products
 * only, so the generated C stays quick to compile). */
static void many_step(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    cj_val s = in[0];
    for (int k = 0; k < MANY_INNER; k++) s = cj_add(s, cj_mul(cj_scalar_typed(ctx, coef(k), CJ_F64), cj_mul(s, s)));
    out[0] = cj_mul(in[1], s);
    out[1] = in[1];
}

static void many_loss(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx;
    cj_func *step = u;
    cj_val carry[2];
    cj_scan_opts so = {.length = MANY_STEPS, .has_length = 1};
    cj_scan(step, 2, in, 0, NULL, &so, carry, NULL);
    out[0] = cj_sum(cj_mul(carry[0], carry[0]), 0, NULL, 0);
}

static double many_loss_c(const double *s0, const double *p) {
    double s[MANY_N];
    for (int i = 0; i < MANY_N; i++) s[i] = s0[i];
    for (int n = 0; n < MANY_STEPS; n++)
        for (int i = 0; i < MANY_N; i++) {
            for (int k = 0; k < MANY_INNER; k++) s[i] += coef(k) * s[i] * s[i];
            s[i] *= p[i];
        }
    double l = 0;
    for (int i = 0; i < MANY_N; i++) l += s[i] * s[i];
    return l;
}

TEST(cf_limits_scan_step_saving_600_residuals_matches_finite_differences) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *step = cj_func_new(ctx, "many_step", many_step, 2, 2, NULL);
    cj_func *loss = cj_func_new(ctx, "many_loss", many_loss, 2, 1, step);
    double s0[MANY_N] = {0.3, -0.5, 1.1}, p[MANY_N] = {0.9, 1.05, 0.8};
    cj_val in[2] = {cj_array(ctx, CJ_F64, 1, (int64_t[]){MANY_N}, s0), cj_array(ctx, CJ_F64, 1, (int64_t[]){MANY_N}, p)};
    int argnums[2] = {0, 1};
    cj_grad_opts go = {2, argnums, 0};
    cj_jit_opts interp = {.backend = CJ_BACKEND_INTERP}, cc = {.backend = CJ_BACKEND_CC};
    cj_func *modes[3] = {cj_grad(loss, &go), cj_jit(cj_grad(loss, &go), &interp), cj_jit(cj_grad(loss, &go), &cc)};
    const char *names[3] = {"eager", "jit interp", "jit cc"};
    for (int m = 0; m < 3; m++) {
        cj_val g[2];
        CHECK_MSG(cj_call(modes[m], in, g) == CJ_OK, "%s: %s", names[m], cj_error_message(ctx));
        for (int a = 0; a < 2; a++)
            for (int i = 0; i < MANY_N; i++) {
                double sp[MANY_N], pp[MANY_N], sm[MANY_N], pm[MANY_N], h = 1e-6;
                for (int q = 0; q < MANY_N; q++) sp[q] = sm[q] = s0[q], pp[q] = pm[q] = p[q];
                (a == 0 ? sp : pp)[i] += h;
                (a == 0 ? sm : pm)[i] -= h;
                double fd = (many_loss_c(sp, pp) - many_loss_c(sm, pm)) / (2 * h);
                CHECK_MSG(fabs(at(g[a], i) - fd) <= 1e-6 * (1 + fabs(fd)), "%s: d/d%s[%d] %.12g vs %.12g", names[m],
                          a ? "p" : "s0", i, at(g[a], i), fd);
            }
        cj_error_clear(ctx);
    }
    cj_ctx_free(ctx);
}

/* ---- a construct that reads more values than the old operand limit ----
 * A switch of 5 branches, each closing over 64 values of the enclosing
 * jitted function (slices of W): 1 + 1 + 320 operands, more than the 256
 * an ordinary primitive takes. Branch b gives x · Σ W[64b .. 64b + 63];
 * eagerly and under jit, the value and the gradient by W and x match
 * plain C. (The interpreter only: generated C for 320 scalar slices takes
 * the C compiler longer than a test should; the scan above runs on both
 * backends.) */
#define READ_BRANCHES 5
#define READ_PER 64
#define READ_N (READ_BRANCHES * READ_PER)

typedef struct read_branch {
    const cj_val *W; /* the enclosing function's slices, READ_N */
    int b;
} read_branch;

static void read_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx;
    const read_branch *rb = u;
    cj_val acc = rb->W[rb->b * READ_PER];
    for (int j = 1; j < READ_PER; j++) acc = cj_add(acc, rb->W[rb->b * READ_PER + j]);
    out[0] = cj_mul(in[0], acc);
}

typedef struct read_case {
    cj_val W[READ_N];
    read_branch rb[READ_BRANCHES];
    cj_func *br[READ_BRANCHES];
} read_case;

/* (index, W, x) → switch(index, branches)(x) */
static void read_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    read_case *rc = u;
    for (int i = 0; i < READ_N; i++) {
        int64_t at = i, end = i + 1, ax = 0;
        rc->W[i] = cj_squeeze(cj_slice(in[1], &at, &end, NULL), 1, &ax); /* traced: read as closure */
    }
    for (int b = 0; b < READ_BRANCHES; b++) {
        rc->rb[b] = (read_branch){rc->W, b};
        if (!rc->br[b]) rc->br[b] = cj_func_new(ctx, "read_branch", read_body, 1, 1, &rc->rb[b]);
    }
    cj_switch(in[0], READ_BRANCHES, rc->br, 1, &in[2], out);
}

/* The loss for grad: the output itself (a scalar). */
static void read_loss(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx;
    cj_call(u, in, out);
}

TEST(cf_limits_switch_reading_320_closure_values) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    static read_case rc; /* large: off the test's stack */
    memset(&rc, 0, sizeof rc);
    cj_func *f = cj_func_new(ctx, "read_fn", read_fn, 3, 1, &rc);
    cj_func *loss = cj_func_new(ctx, "read_loss", read_loss, 3, 1, f);
    double w[READ_N];
    for (int i = 0; i < READ_N; i++) w[i] = 0.01 * (i % 17) - 0.05;
    const double x = 1.5;
    int argnums[2] = {1, 2};
    cj_grad_opts go = {2, argnums, 0};
    cj_jit_opts interp = {.backend = CJ_BACKEND_INTERP};
    cj_func *fwd[2] = {f, cj_jit(f, &interp)};
    cj_func *grd[2] = {cj_grad(loss, &go), cj_jit(cj_grad(loss, &go), &interp)};
    for (int index = 0; index < READ_BRANCHES; index += 2)
        for (int m = 0; m < 2; m++) {
            cj_val in[3] = {cj_scalar_typed(ctx, index, CJ_I32), cj_array(ctx, CJ_F64, 1, (int64_t[]){READ_N}, w),
                            cj_scalar_typed(ctx, x, CJ_F64)};
            double sum = 0;
            for (int j = 0; j < READ_PER; j++) sum += w[index * READ_PER + j];
            cj_val y, g[2];
            CHECK_MSG(cj_call(fwd[m], in, &y) == CJ_OK, "%s", cj_error_message(ctx));
            double got = NAN;
            cj_read_as(y, CJ_F64, &got, sizeof got);
            CHECK_NEAR(got, x * sum, 1e-12, 1e-12);
            CHECK_MSG(cj_call(grd[m], in, g) == CJ_OK, "%s", cj_error_message(ctx));
            double gw[READ_N], gx = NAN;
            CHECK(cj_read_as(g[0], CJ_F64, gw, sizeof gw) == CJ_OK && cj_read_as(g[1], CJ_F64, &gx, sizeof gx) == CJ_OK);
            for (int i = 0; i < READ_N; i++) CHECK_NEAR(gw[i], i / READ_PER == index ? x : 0.0, 1e-12, 0);
            CHECK_NEAR(gx, sum, 1e-12, 1e-12);
        }
    cj_ctx_free(ctx);
}

/* An ordinary primitive (one result) still takes at most PRIM_MAX_OPERANDS
 * operands (cj_concatenate joins more in groups): binding concatenate
 * with 300 is refused with a message naming it and the counts, never a
 * crash. */
TEST(cf_limits_ordinary_primitive_operand_limit_is_a_clear_error) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    enum { N = 300 };
    cj_val xs[N];
    float one = 1;
    for (int i = 0; i < N; i++) xs[i] = cj_array(ctx, CJ_F32, 1, (int64_t[]){1}, &one);
    prim_params p = prim_params_zero();
    p.axes.n = 1;
    p.axes.v[0] = 0;
    cj_val r = core_bind(ctx, PRIM_CONCATENATE, &p, N, xs);
    CHECK(r.slot == 0 && cj_error(ctx) == CJ_ERR_ARG);
    CHECK_MSG(strstr(cj_error_message(ctx), "concatenate: at most 256 operands, got 300") != NULL, "%s",
              cj_error_message(ctx));
    /* cj_concatenate of as many works (in groups) */
    cj_error_clear(ctx);
    float got[N];
    CHECK(cj_read(cj_concatenate(N, xs, 0), got, sizeof got) == CJ_OK);
    for (int i = 0; i < N; i++) CHECK_NEAR(got[i], 1.0, 0, 0);
    cj_ctx_free(ctx);
}

/* ---- out of memory in the construct rules' tables ----
 * The tables of the autodiff and vmap rules and of the runtime loop now
 * come from the allocator: the gradient of a scan (2 carries, a step of a
 * few residuals) and of a cond, and vmap of the scan, eagerly, with the
 * n-th allocation failing for every n until none fails: each run ends
 * with CJ_OK or CJ_ERR_OOM and leaks nothing; the run that does not fail
 * matches plain C (d/ds of Σ (p·(s + c s²))² over MANY_STEPS steps,
 * MANY_INNER = 3 here by a small step). */
static void small_step(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    cj_val s = in[0];
    for (int k = 0; k < 3; k++) s = cj_add(s, cj_mul(cj_scalar_typed(ctx, coef(k), CJ_F64), cj_mul(s, s)));
    out[0] = cj_mul(in[1], s);
    out[1] = in[1];
}

static void pick_big(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_mul(in[0], cj_mul(in[0], in[0]));
}
static void pick_small(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_sin(in[0]);
}

typedef struct oom_case {
    cj_func *step, *big, *small;
} oom_case;

/* (s, p) → Σ scan(...)² + Σ cond(s[0] > 0, s³, sin s) */
static void oom_loss(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    const oom_case *oc = u;
    cj_val carry[2], c;
    cj_scan_opts so = {.length = MANY_STEPS, .has_length = 1};
    cj_scan(oc->step, 2, in, 0, NULL, &so, carry, NULL);
    int64_t at = 0, end = 1;
    cj_val first = cj_sum(cj_slice(in[0], &at, &end, NULL), 0, NULL, 0);
    cj_cond(cj_gt(first, cj_scalar_typed(ctx, 0, CJ_F64)), oc->big, oc->small, 1, &in[0], &c);
    out[0] = cj_add(cj_sum(cj_mul(carry[0], carry[0]), 0, NULL, 0), cj_sum(c, 0, NULL, 0));
}

static double oom_loss_c(const double *s0, const double *p) {
    double s[MANY_N], l = 0;
    for (int i = 0; i < MANY_N; i++) s[i] = s0[i];
    for (int n = 0; n < MANY_STEPS; n++)
        for (int i = 0; i < MANY_N; i++) {
            for (int k = 0; k < 3; k++) s[i] += coef(k) * s[i] * s[i];
            s[i] *= p[i];
        }
    for (int i = 0; i < MANY_N; i++) l += s[i] * s[i] + (s0[0] > 0 ? s0[i] * s0[i] * s0[i] : sin(s0[i]));
    return l;
}

static int oom_scenario(cj_ctx *ctx, const double *s0, const double *p, double *g) {
    oom_case oc = {cj_func_new(ctx, "small_step", small_step, 2, 2, NULL), cj_func_new(ctx, "big", pick_big, 1, 1, NULL),
                   cj_func_new(ctx, "small", pick_small, 1, 1, NULL)};
    cj_func *loss = cj_func_new(ctx, "oom_loss", oom_loss, 2, 1, &oc);
    cj_val in[2] = {cj_array(ctx, CJ_F64, 1, (int64_t[]){MANY_N}, s0), cj_array(ctx, CJ_F64, 1, (int64_t[]){MANY_N}, p)};
    cj_val gr;
    cj_call(cj_grad(loss, NULL), in, &gr);
    /* vmap of the loss over a batch of 2 initial states (the cond's
     * predicate batched) */
    cj_val carry[2], row = cj_expand_dims(in[0], 0), batch = cj_concatenate(2, (cj_val[]){row, row}, 0);
    int64_t axes[2] = {0, CJ_NOT_MAPPED};
    cj_vmap_opts vo = {axes, NULL, 0, 0, 0};
    cj_func *scan2 = cj_func_new(ctx, "oom_scan", oom_loss, 2, 1, &oc);
    cj_call(cj_vmap(scan2, &vo), (cj_val[]){batch, in[1]}, carry);
    if (cj_error(ctx)) return cj_error(ctx);
    return cj_read_as(gr, CJ_F64, g, sizeof(double) * MANY_N);
}

TEST(cf_limits_rule_tables_allocation_failure_is_clean) {
    double s0[MANY_N] = {0.3, -0.5, 1.1}, p[MANY_N] = {0.9, 1.05, 0.8};
    int covered = 0;
    long long n;
    for (n = 1; n < 100000 && !covered; n++) {
        tu_alloc st = {0};
        st.fail_at = n;
        cj_allocator a = tu_allocator(&st);
        cj_ctx *ctx = cj_ctx_new(&a);
        if (ctx) {
            double g[MANY_N];
            int rc = oom_scenario(ctx, s0, p, g);
            CHECK_MSG(rc == CJ_OK || rc == CJ_ERR_OOM, "allocation %lld: expected CJ_ERR_OOM, got %s: %s", n,
                      cj_status_name((cj_status)rc), cj_error_message(ctx));
            if (!st.failed) {
                CHECK(rc == CJ_OK);
                for (int i = 0; i < MANY_N; i++) {
                    double sp[MANY_N], sm[MANY_N], h = 1e-6;
                    for (int q = 0; q < MANY_N; q++) sp[q] = sm[q] = s0[q];
                    sp[i] += h, sm[i] -= h;
                    double fd = (oom_loss_c(sp, p) - oom_loss_c(sm, p)) / (2 * h);
                    CHECK_MSG(fabs(g[i] - fd) <= 1e-6 * (1 + fabs(fd)), "d/ds0[%d] %.12g vs %.12g", i, g[i], fd);
                }
                covered = 1;
            }
            cj_ctx_free(ctx);
        }
        CHECK_MSG(st.live == 0, "allocation %lld failing leaked %lld blocks", n, st.live);
        if (st.live) break;
    }
    CHECK(covered);
    CHECK(n > 100);
    if (getenv("CJAX_TEST_VERBOSE")) fprintf(stderr, "allocations: %lld\n", n);
}
