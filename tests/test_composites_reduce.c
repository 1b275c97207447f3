/* test_composites_reduce.c — jax.numpy's further reductions and lax's
 * cumulative ops and associative_scan (src/api/reduce_stats.c,
 * src/api/scan_assoc.c): std/var with ddof, any, all, the nan-reductions,
 * average with weights, ptp, count_nonzero, cummin, every cumulative op in
 * reverse along each axis, cumlogsumexp, associative_scan.
 *
 * References: JAX's results on fixed inputs with NaNs, zeros and -inf
 * (tests/data/numpy/, tests/data/gen_numpy_fixtures.py), within a few f32
 * ulps where the summation order may differ; a plain loop of the affine
 * recurrence for associative_scan; jit on both backends and vmap against
 * single calls; jvp against central finite differences in f64; JAX's
 * gradient of cumlogsumexp; the error messages. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "composite_check.h"
#include "harness.h"

#define L(...) ((const int64_t[]){__VA_ARGS__})
#define FX(name) cc_fixture(ctx, name)
#define NEAR(got, name) CHECK(cc_close(got, FX(name), 2e-6, 1e-6, name))
#define SAME(got, name) CHECK(cc_close(got, FX(name), 0, 0, name))

TEST(composites_nan_reductions_match_jax) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val x = FX("xn");
    NEAR(cj_nansum(x, 1, L(1), 0), "nansum_ax1");
    NEAR(cj_nansum(x, 1, L(0), 0), "nansum_ax0");
    NEAR(cj_nanprod(x, 1, L(1), 0), "nanprod_ax1");
    NEAR(cj_nanprod(x, 1, L(0), 0), "nanprod_ax0");
    SAME(cj_nanmax(x, 1, L(1), 0), "nanmax_ax1"); /* the all-NaN row stays NaN */
    SAME(cj_nanmax(x, 1, L(-2), 0), "nanmax_ax0");
    SAME(cj_nanmin(x, 1, L(1), 0), "nanmin_ax1");
    SAME(cj_nanmin(x, 1, L(0), 0), "nanmin_ax0");
    NEAR(cj_nanmean(x, 1, L(1), 0), "nanmean_ax1");
    NEAR(cj_nanmean(x, 1, L(0), 0), "nanmean_ax0");
    NEAR(cj_nanvar(x, 1, L(1), 0, 0), "nanvar_ax1");
    NEAR(cj_nanstd(x, 1, L(0), 1, 0), "nanstd_ddof1_ax0");
    SAME(cj_nanargmax(x, 1, 0), "nanargmax_ax1");
    SAME(cj_nanargmin(x, -2, 0), "nanargmin_ax0");
    /* integers: the plain reductions */
    cj_val i = cj_array(ctx, CJ_I32, 1, L(3), (int32_t[]){4, -1, 7});
    CHECK(cj_item_or_nan(cj_nanmax(i, -1, NULL, 0)) == 7 && cj_val_dtype(cj_nanmax(i, -1, NULL, 0)) == CJ_I32);
    CHECK(cj_item_or_nan(cj_nanmean(i, -1, NULL, 0)) == 10.0 / 3.0f || fabs(cj_item_or_nan(cj_nanmean(i, -1, NULL, 0)) - 10.0 / 3) < 1e-6);
    cj_ctx_free(ctx);
}

TEST(composites_std_any_all_average_match_jax) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val y = FX("y"), x = FX("xn");
    NEAR(cj_std(y, 1, L(1), 0, 0), "std_ax1");
    NEAR(cj_std(y, -1, NULL, 1, 0), "std_ddof1_all");
    NEAR(cj_var_ddof(y, 1, L(0), 1, 0), "var_ddof1_ax0");
    SAME(cj_any(y, 1, L(1), 0), "any_ax1");
    SAME(cj_all(y, 1, L(1), 0), "all_ax1");
    SAME(cj_any(x, 1, L(1), 0), "any_nan_ax1");
    SAME(cj_all(y, 1, L(0), 0), "all_ax0");
    SAME(cj_ptp(y, 1, L(1), 0), "ptp_ax1");
    SAME(cj_count_nonzero(y, 1, L(1), 0), "count_nonzero_ax1");
    SAME(cj_count_nonzero(y, -1, NULL, 0), "count_nonzero_all");
    cj_val ws;
    NEAR(cj_average_weighted(y, FX("w"), 1, L(1), 0, &ws), "average_w_ax1");
    NEAR(ws, "average_w_ax1_sum");
    NEAR(cj_average_weighted(y, FX("w2"), -1, NULL, 0, NULL), "average_w2_all");
    NEAR(cj_average(y, 1, L(0), 0, &ws), "average_ax0");
    CHECK(cj_item_or_nan(cj_slice(ws, L(0), L(1), NULL)) == 3);
    /* empty reductions: any is false, all is true, as JAX's identities */
    cj_val e = cj_zeros(ctx, CJ_F32, 2, L(2, 0));
    bool b[2];
    CHECK(cj_read(cj_any(e, 1, L(1), 0), b, sizeof b) == CJ_OK && !b[0] && !b[1]);
    CHECK(cj_read(cj_all(e, 1, L(1), 0), b, sizeof b) == CJ_OK && b[0] && b[1]);
    /* keepdims */
    int64_t d[2];
    CHECK(cj_val_shape(cj_std(y, 1, L(1), 0, 1), d) == 2 && d[0] == 3 && d[1] == 1);
    cj_ctx_free(ctx);
}

TEST(composites_cumulative_reverse_every_axis_match_jax) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val y = FX("y");
    char name[64];
    for (int ax = 0; ax < 2; ax++)
        for (int rev = 0; rev < 2; rev++) {
            const char *tag = rev ? "_rev" : "";
            snprintf(name, sizeof name, "cumsum_ax%d%s", ax, tag);
            CHECK(cc_close(cj_cumsum(y, ax - 2 * rev, rev), FX(name), 2e-6, 1e-6, name));
            snprintf(name, sizeof name, "cumprod_ax%d%s", ax, tag);
            CHECK(cc_close(cj_cumprod(y, ax, rev), FX(name), 2e-6, 1e-6, name));
            snprintf(name, sizeof name, "cummax_ax%d%s", ax, tag);
            CHECK(cc_close(cj_cummax(y, ax, rev), FX(name), 0, 0, name));
            snprintf(name, sizeof name, "cummin_ax%d%s", ax, tag);
            CHECK(cc_close(cj_cummin(y, ax - 2 * rev, rev), FX(name), 0, 0, name));
        }
    /* cummin of integers (~x never overflows) and bools */
    int32_t iv[4] = {3, INT32_MIN, 5, INT32_MAX}, got[4];
    CHECK(cj_read(cj_cummin(cj_array(ctx, CJ_I32, 1, L(4), iv), 0, 0), got, sizeof got) == CJ_OK);
    CHECK(got[0] == 3 && got[1] == INT32_MIN && got[2] == INT32_MIN && got[3] == INT32_MIN);
    bool bv[3] = {true, false, true}, bg[3];
    CHECK(cj_read(cj_cummin(cj_array(ctx, CJ_BOOL, 1, L(3), bv), 0, 1), bg, sizeof bg) == CJ_OK);
    CHECK(!bg[0] && !bg[1] && bg[2]);
    cj_ctx_free(ctx);
}

TEST(composites_cumlogsumexp_match_jax) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val q = FX("q");
    CHECK(cc_close(cj_cumlogsumexp(q, 1, 0), FX("cumlogsumexp_ax1"), 4e-6, 2e-6, "cumlogsumexp"));
    CHECK(cc_close(cj_cumlogsumexp(q, 0, 1), FX("cumlogsumexp_ax0_rev"), 4e-6, 2e-6, "cumlogsumexp reverse"));
    cj_ctx_free(ctx);
}

/* the affine recurrence h_t = m_t h_{t-1} + c_t composed: (m1, c1) then (m2, c2) */
static void affine(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_mul(in[0], in[2]);
    out[1] = cj_add(cj_mul(in[1], in[2]), in[3]);
}

static void add2(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_add(in[0], in[1]);
}

TEST(composites_associative_scan_match_jax_and_loop) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val m = FX("as_m"), c = FX("as_c"), o[2];
    cj_func *fa = cj_func_new(ctx, "affine", affine, 4, 2, NULL);
    CHECK(cj_associative_scan(fa, 2, (cj_val[]){m, c}, 0, 0, o) == CJ_OK);
    CHECK(cc_close(o[0], FX("as_m_out"), 4e-6, 1e-6, "scan m"));
    CHECK(cc_close(o[1], FX("as_c_out"), 4e-6, 1e-6, "scan c"));
    CHECK(cj_associative_scan(fa, 2, (cj_val[]){m, c}, -2, 1, o) == CJ_OK);
    CHECK(cc_close(o[0], FX("as_m_out_rev"), 4e-6, 1e-6, "scan m reverse"));
    CHECK(cc_close(o[1], FX("as_c_out_rev"), 4e-6, 1e-6, "scan c reverse"));
    cj_func *fs = cj_func_new(ctx, "add", add2, 2, 1, NULL);
    cj_val q = cj_clip(FX("q"), -5, 5);
    CHECK(cj_associative_scan(fs, 1, &q, 1, 0, o) == CJ_OK);
    CHECK(cc_close(o[0], FX("as_cumsum_ax1"), 4e-6, 1e-6, "scan add"));
    /* every length 1..40 against the serial recurrence, in f64 */
    for (int64_t n = 1; n <= 40; n++) {
        double *mm = malloc(sizeof(double) * (size_t)n), *cc = malloc(sizeof(double) * (size_t)n);
        double *gm = malloc(sizeof(double) * (size_t)n), *gc = malloc(sizeof(double) * (size_t)n);
        uint64_t s = (uint64_t)n;
        for (int64_t i = 0; i < n; i++) mm[i] = th_rand_uniform(&s, 0.5, 1.5), cc[i] = th_rand_uniform(&s, -1, 1);
        cj_val in[2] = {cj_array(ctx, CJ_F64, 1, &n, mm), cj_array(ctx, CJ_F64, 1, &n, cc)};
        CHECK(cj_associative_scan(fa, 2, in, 0, 0, o) == CJ_OK);
        CHECK(cj_read(o[0], gm, sizeof(double) * (size_t)n) == CJ_OK && cj_read(o[1], gc, sizeof(double) * (size_t)n) == CJ_OK);
        double pm = 1, h = 0;
        for (int64_t i = 0; i < n; i++) {
            pm *= mm[i];
            h = h * mm[i] + cc[i];
            CHECK_NEAR(gm[i], pm, 1e-13, 1e-13);
            CHECK_NEAR(gc[i], h, 1e-13, 1e-13);
        }
        free(mm), free(cc), free(gm), free(gc);
    }
    cj_ctx_free(ctx);
}

/* ---- jit, vmap, jvp ---- */

static void f_reductions(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    cj_val x = in[0];
    out[0] = cj_std(x, 1, L(1), 1, 0);
    out[1] = cj_add(cj_nansum(x, 1, L(0), 0), cj_nanmean(x, 1, L(0), 0));
    out[2] = cj_sub(cj_nanmax(x, 1, L(1), 1), cj_nanmin(x, 1, L(1), 1));
    out[3] = cj_average_weighted(x, cj_abs(cj_sin(x)), 1, L(-1), 0, NULL);
    out[4] = cj_ptp(x, -1, NULL, 0);
    out[5] = cj_add(cj_cummin(x, 1, 1), cj_cumlogsumexp(x, 0, 0));
    out[6] = cj_add(cj_cumsum(x, 0, 1), cj_cumprod(x, 1, 1));
    out[7] = cj_add(cj_nanstd(x, 1, L(1), 0, 0), cj_astype(cj_nanargmax(x, 1, 0), CJ_F32));
}

static void f_counts(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_any(in[0], 1, L(1), 0);
    out[1] = cj_all(in[0], 1, L(0), 1);
    out[2] = cj_count_nonzero(in[0], -1, NULL, 0);
}

static void f_scan(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    cj_associative_scan((cj_func *)user, 2, in, 1, 1, out);
}

TEST(composites_reductions_jit_vmap_jvp) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t s = 11;
    float xf[20];
    double xd[20];
    for (int i = 0; i < 20; i++) xd[i] = th_rand_uniform(&s, -2, 2), xf[i] = (float)xd[i];
    cj_val x = cj_array(ctx, CJ_F32, 2, L(4, 5), xf);
    CHECK(cc_modes(ctx, "reductions", f_reductions, NULL, 1, 8, &x, 2e-6));
    CHECK(cc_jvp_fd(ctx, "reductions", f_reductions, NULL, 8, cj_array(ctx, CJ_F64, 2, L(4, 5), xd), 1e-6));
    CHECK(cc_vjp_jvp(ctx, "reductions", f_reductions, NULL, 8, cj_array(ctx, CJ_F64, 2, L(4, 5), xd), 1e-12));
    float zf[20] = {0, 1, 0, 0, 2, 0, 0, 0, 0, 0, NAN, 0, 0, -1, 0, 3, 3, 3, 3, 3};
    cj_val z = cj_array(ctx, CJ_F32, 2, L(4, 5), zf);
    CHECK(cc_modes(ctx, "counts", f_counts, NULL, 1, 3, &z, 0));
    cj_func *fa = cj_func_new(ctx, "affine", affine, 4, 2, NULL);
    cj_val mc[2] = {cj_add(cj_abs(x), cj_scalar(ctx, 0.5)), cj_sin(x)};
    CHECK(cc_modes(ctx, "associative_scan", f_scan, fa, 2, 2, mc, 2e-6));
    cj_ctx_free(ctx);
}

static void f_lse_dot(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    out[0] = cj_sum(cj_mul(cj_cumlogsumexp(in[0], 1, 0), *(const cj_val *)user), -1, NULL, 0);
}

TEST(composites_cumlogsumexp_grad_matches_jax) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val w = FX("qf"), q = cj_clip(FX("q"), -5, 5), g;
    cj_func *f = cj_func_new(ctx, "lse_dot", f_lse_dot, 1, 1, &w);
    CHECK(cj_call(cj_grad(f, NULL), &q, &g) == CJ_OK);
    CHECK(cc_close(g, FX("grad_cumlogsumexp"), 1e-5, 1e-6, "grad cumlogsumexp"));
    /* -inf entries (masked positions): JAX's gradient where it is finite;
     * where JAX's is NaN (two -inf combined: its jvp reads -inf - -inf),
     * cjax's is finite (the both-infinite branch is a + b, derivative 1) */
    cj_val m = cj_where(cj_lt(q, cj_scalar(ctx, -1)), cj_scalar(ctx, -INFINITY), q);
    CHECK(cj_call(cj_grad(f, NULL), &m, &g) == CJ_OK);
    float gv[28], jv[28];
    int jax_nans = 0;
    CHECK(cj_read(g, gv, sizeof gv) == CJ_OK && cj_read(FX("grad_cumlogsumexp_masked"), jv, sizeof jv) == CJ_OK);
    for (int i = 0; i < 28; i++) {
        CHECK_MSG(isfinite(gv[i]), "gradient %d is %g", i, gv[i]);
        if (isnan(jv[i])) jax_nans++;
        else CHECK_NEAR(gv[i], jv[i], 1e-5, 1e-6);
    }
    CHECK(jax_nans == 6);
    cj_ctx_free(ctx);
}

static void f_shrink(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_any(cj_add(in[0], in[1]), 1, L(1), 0);
}

TEST(composites_reduce_errors_name_the_function) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val a = cj_zeros(ctx, CJ_F32, 2, L(2, 3)), o[2];
#define ERR(expr, text)                                          \
    do {                                                         \
        CHECK(cj_is_error(expr));                                \
        CHECK_STR_CONTAINS(cj_error_message(ctx), text);         \
        cj_error_clear(ctx);                                     \
    } while (0)
    ERR(cj_std(a, 1, L(2), 0, 0), "cj_std: axis 2 is out of range for f32[2,3]");
    ERR(cj_any(a, 2, L(1, -1), 0), "cj_any: axis -1 is repeated for f32[2,3]");
    ERR(cj_nanmax(a, 1, L(-3), 0), "cj_nanmax: axis -3 is out of range for f32[2,3]");
    ERR(cj_nanvar(a, 1, L(2), 0, 0), "cj_nanvar: axis 2 is out of range for f32[2,3]");
    ERR(cj_nanargmin(a, 2, 0), "cj_nanargmin: axis 2 is out of range for f32[2,3]");
    ERR(cj_cummin(a, 2, 0), "cj_cummin: axis 2 is out of range for f32[2,3]");
    ERR(cj_cumlogsumexp(a, -3, 0), "cj_cumlogsumexp: axis -3 is out of range for f32[2,3]");
    ERR(cj_average_weighted(a, cj_ones(ctx, CJ_F32, 1, L(2)), 1, L(1), 0, NULL),
        "cj_average_weighted: the weights' length must be that of the axis (x f32[2,3], weights f32[2])");
    ERR(cj_average_weighted(a, cj_ones(ctx, CJ_F32, 1, L(3)), -1, NULL, 0, NULL),
        "weights of another shape than x need one axis");
    cj_func *fa = cj_func_new(ctx, "affine", affine, 4, 2, NULL);
    CHECK(cj_associative_scan(fa, 1, &a, 0, 0, o) != CJ_OK);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_associative_scan: fn 'affine' has 4 inputs and 2 outputs; a scan of 1 arrays needs 2 and 1");
    cj_error_clear(ctx);
    CHECK(cj_associative_scan(fa, 2, (cj_val[]){a, cj_zeros(ctx, CJ_F32, 1, L(3))}, 0, 0, o) != CJ_OK);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "every array must have the same length along axis 0: array 0 is f32[2,3], array 1 f32[3]");
    cj_error_clear(ctx);
    cj_func *fs = cj_func_new(ctx, "shrink", f_shrink, 2, 1, NULL);
    CHECK(cj_associative_scan(fs, 1, &a, 1, 0, o) != CJ_OK);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_associative_scan: the combining function's output 0 is bool[2], its inputs are f32[2,1]");
    cj_error_clear(ctx);
#undef ERR
    cj_ctx_free(ctx);
}

static void f_scan_last(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_cumlogsumexp(in[0], -1, 1);
    out[1] = cj_cummin(in[0], -1, 0);
}

/* vmap over a middle axis: the scans along each example's last axis are
 * those of the slices, one call at a time. */
TEST(composites_scans_vmap_middle_axis_against_slices) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t s = 9;
    float xf[60];
    for (int i = 0; i < 60; i++) xf[i] = (float)th_rand_uniform(&s, -3, 3);
    cj_val x = cj_array(ctx, CJ_F32, 3, L(3, 4, 5), xf), vo[2], o[2];
    cj_func *f = cj_func_new(ctx, "scan_last", f_scan_last, 1, 2, NULL);
    CHECK(cj_call(cj_vmap(f, &(cj_vmap_opts){.in_axes = L(1), .out_axes = L(0, 0)}), &x, vo) == CJ_OK);
    for (int64_t b = 0; b < 4; b++) {
        cj_val xb = cj_squeeze(cj_slice(x, L(0, b, 0), L(3, b + 1, 5), NULL), 1, L(1));
        CHECK(cj_call(f, &xb, o) == CJ_OK);
        for (int k = 0; k < 2; k++) {
            cj_val got = cj_squeeze(cj_slice(vo[k], L(b, 0, 0), L(b + 1, 3, 5), NULL), 1, L(0));
            CHECK(cc_close(got, o[k], 0, 0, k ? "cummin" : "cumlogsumexp"));
        }
    }
    cj_ctx_free(ctx);
}
