/* test_dtypes_reduce.c — reductions, arg-reductions, cumulative ops and iota
 * on the dtypes added after f64 (i8, i16, u8, u16, u32, u64, f16, bf16),
 * against JAX on CPU (tests/data/dtype_reduce/, written by
 * tests/data/gen_dtype_reduce_fixtures.py), eagerly and under jit on both
 * backends (bit-compared with eager), vmapped against a loop, a jvp of an
 * f16 sum against its closed form, and what stays refused.
 *
 * Exactness: integer results and f16/bf16 max/min/arg-reductions match bit
 * for bit; f16/bf16 sums, products and scans of the 5-element rows match bit
 * for bit too (XLA folds such short rows in order, rounding each step, as
 * cjax does). A NaN matches any NaN (XLA makes its own). For 1000-element
 * f16/bf16 rows XLA picks its own order of summation: those are compared
 * within a bound (below). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "harness.h"
#include "runtime/half.h"
#include "runtime/runtime.h"
#include "test_util.h"

static const cj_dtype ext[] = {CJ_I8, CJ_I16, CJ_U8, CJ_U16, CJ_U32, CJ_U64, CJ_F16, CJ_BF16};
#define N_EXT ((int)(sizeof ext / sizeof ext[0]))

/* A fixture; f16/bf16 ones are stored as uint16 bits and come back typed dt. */
static cj_val load(cj_ctx *ctx, const char *name, cj_dtype dt) {
    char path[512];
    snprintf(path, sizeof path, "%s/dtype_reduce/%s.npy", CJAX_TEST_DATA_DIR, name);
    cj_val v = cj_load_npy(ctx, path);
    if (cj_is_error(v) || !rt_is_narrow_float(dt) || cj_val_dtype(v) != CJ_U16) return v;
    return cj_bitcast_convert_type(v, dt);
}

static float widen(cj_dtype dt, uint16_t h) { return dt == CJ_F16 ? rt_f16_to_f32(h) : rt_bf16_to_f32(h); }

/* Same dtype, shape and bits; for f16/bf16 a NaN matches any NaN. */
static bool same(cj_val got, cj_val want, char *why, size_t size) {
    if (cj_is_error(got) || cj_is_error(want)) return snprintf(why, size, "error value"), false;
    cj_dtype dt = cj_val_dtype(got);
    if (dt != cj_val_dtype(want) || cj_val_rank(got) != cj_val_rank(want) || cj_val_size(got) != cj_val_size(want)) {
        char a[96], b[96];
        cj_val_type_str(got, a, sizeof a);
        cj_val_type_str(want, b, sizeof b);
        snprintf(why, size, "got %s, want %s", a, b);
        return false;
    }
    int64_t n = cj_val_size(got);
    size_t es = cj_dtype_size(dt);
    unsigned char *g = malloc(es * (size_t)n + 1), *w = malloc(es * (size_t)n + 1);
    cj_read(got, g, es * (size_t)n);
    cj_read(want, w, es * (size_t)n);
    bool ok = true;
    for (int64_t i = 0; i < n && ok; i++) {
        if (!memcmp(g + i * es, w + i * es, es)) continue;
        if (rt_is_narrow_float(dt)) {
            uint16_t a, b;
            memcpy(&a, g + i * es, 2);
            memcpy(&b, w + i * es, 2);
            if (isnan(widen(dt, a)) && isnan(widen(dt, b))) continue;
            snprintf(why, size, "element %lld: got %g (0x%04x), want %g (0x%04x)", (long long)i, widen(dt, a), a,
                     widen(dt, b), b);
        } else {
            snprintf(why, size, "element %lld differs", (long long)i);
        }
        ok = false;
    }
    free(g);
    free(w);
    return ok;
}

typedef enum { K_REDUCE, K_ARG, K_CUM, K_JNP } kind;
typedef struct red_case {
    const char *name;
    kind k;
    prim_id prim;
    int n_axes;
    int64_t axes[2];
    int reverse;
} red_case;

static const red_case lax_cases[] = {
    {"sum1", K_REDUCE, PRIM_REDUCE_SUM, 1, {1}, 0},   {"sum0", K_REDUCE, PRIM_REDUCE_SUM, 1, {0}, 0},
    {"sum01", K_REDUCE, PRIM_REDUCE_SUM, 2, {0, 1}, 0}, {"prod1", K_REDUCE, PRIM_REDUCE_PROD, 1, {1}, 0},
    {"prod0", K_REDUCE, PRIM_REDUCE_PROD, 1, {0}, 0}, {"max1", K_REDUCE, PRIM_REDUCE_MAX, 1, {1}, 0},
    {"max0", K_REDUCE, PRIM_REDUCE_MAX, 1, {0}, 0},   {"min1", K_REDUCE, PRIM_REDUCE_MIN, 1, {1}, 0},
    {"min0", K_REDUCE, PRIM_REDUCE_MIN, 1, {0}, 0},   {"argmax1", K_ARG, PRIM_ARGMAX, 1, {1}, 0},
    {"argmax0", K_ARG, PRIM_ARGMAX, 1, {0}, 0},       {"argmin1", K_ARG, PRIM_ARGMIN, 1, {1}, 0},
    {"argmin0", K_ARG, PRIM_ARGMIN, 1, {0}, 0},       {"cumsum1", K_CUM, PRIM_CUMSUM, 1, {1}, 0},
    {"cumsum1r", K_CUM, PRIM_CUMSUM, 1, {1}, 1},      {"cumsum0", K_CUM, PRIM_CUMSUM, 1, {0}, 0},
    {"cumprod1", K_CUM, PRIM_CUMPROD, 1, {1}, 0},     {"cummax1", K_CUM, PRIM_CUMMAX, 1, {1}, 0},
    {"cummax0r", K_CUM, PRIM_CUMMAX, 1, {0}, 1},
};
#define N_LAX ((int)(sizeof lax_cases / sizeof lax_cases[0]))

static cj_val apply_lax(const red_case *c, cj_val x) {
    prim_params p = prim_params_zero();
    p.axes.n = c->n_axes;
    memcpy(p.axes.v, c->axes, sizeof c->axes);
    if (c->k == K_ARG) p.dtype = CJ_I32;
    p.flag = c->reverse;
    return core_bind(x.ctx, c->prim, &p, 1, &x);
}

/* the jnp-level functions and composites over the primitives */
static const char *const jnp_cases[] = {"jnp_sum1", "jnp_prod1", "jnp_mean1", "jnp_cumsum1", "cummin1",
                                        "cumlogsumexp1", "jnp_var1", "jnp_std1"};
#define N_JNP ((int)(sizeof jnp_cases / sizeof jnp_cases[0]))

static bool jnp_applies(int k, cj_dtype dt) { return k < 5 || rt_is_narrow_float(dt); }

static cj_val apply_jnp(int k, cj_val x) {
    int64_t one = 1;
    switch (k) {
    case 0: return cj_sum(x, 1, &one, 0);
    case 1: return cj_prod(x, 1, &one, 0);
    case 2: return cj_mean(x, 1, &one, 0);
    case 3: return cj_cumsum(x, 1, 0);
    case 4: return cj_cummin(x, 1, 0);
    case 5: return cj_cumlogsumexp(x, 1, 0);
    case 6: return cj_var(x, 1, &one, 0);
    default: return cj_std(x, 1, &one, 1, 0);
    }
}

/* cumlogsumexp of f16/bf16: an associative scan of logaddexp whose every
 * step rounds to the narrow type (as JAX's); exp/log1p within an ulp of
 * XLA's, so the last result may sit an ulp or two away. mean: XLA's CPU
 * backend divides by the count as a multiply by its reciprocal (238 / 5
 * gives 47.600002f), cjax divides: an ulp of f32 apart, which may move
 * the f16/bf16 rounding by one (std's division too). */
static int jnp_ulps(int k) { return k == 5 ? 2 : k == 2 || k == 7 ? 1 : 0; }

static bool within_ulps(cj_val got, cj_val want, int ulps, char *why, size_t size) {
    if (ulps == 0) return same(got, want, why, size);
    cj_dtype dt = cj_val_dtype(got);
    if (dt == CJ_F32 || dt == CJ_F64) return tu_match_ulp(got, want, ulps, why, size, NULL);
    if (dt != cj_val_dtype(want) || cj_val_size(got) != cj_val_size(want)) return snprintf(why, size, "type"), false;
    int64_t n = cj_val_size(got);
    uint16_t *g = malloc(2 * (size_t)n + 2), *w = malloc(2 * (size_t)n + 2);
    cj_read(got, g, 2 * (size_t)n);
    cj_read(want, w, 2 * (size_t)n);
    bool ok = true;
    for (int64_t i = 0; i < n && ok; i++) {
        float a = widen(dt, g[i]), b = widen(dt, w[i]);
        if ((isnan(a) && isnan(b)) || a == b) continue;
        int32_t oa = g[i] & 0x8000 ? -(int32_t)(g[i] & 0x7fff) : g[i], ob = w[i] & 0x8000 ? -(int32_t)(w[i] & 0x7fff) : w[i];
        if (abs(oa - ob) <= ulps) continue;
        snprintf(why, size, "element %lld: got %g, want %g", (long long)i, a, b);
        ok = false;
    }
    free(g);
    free(w);
    return ok;
}

TEST(dtypes_reduce_lax_against_jax) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    char name[64], why[256];
    for (int d = 0; d < N_EXT; d++) {
        const char *dn = cj_dtype_name(ext[d]);
        snprintf(name, sizeof name, "%s_x", dn);
        cj_val x = load(ctx, name, ext[d]);
        CHECK_MSG(!cj_is_error(x) && cj_val_dtype(x) == ext[d], "%s: %s", name, cj_error_message(ctx));
        for (int k = 0; k < N_LAX; k++) {
            snprintf(name, sizeof name, "%s_%s", dn, lax_cases[k].name);
            cj_val y = apply_lax(&lax_cases[k], x);
            /* f16/bf16 cumsum/cumprod: JAX scans by lax.associative_scan (a
             * tree of rounded steps), cjax in order; short rows mostly agree
             * bit for bit, here within an ulp */
            int ulps = rt_is_narrow_float(ext[d]) && (lax_cases[k].prim == PRIM_CUMSUM || lax_cases[k].prim == PRIM_CUMPROD);
            CHECK_MSG(within_ulps(y, load(ctx, name, ext[d]), ulps, why, sizeof why), "%s: %s %s", name, why,
                      cj_error_message(ctx));
            cj_error_clear(ctx);
        }
        for (int k = 0; k < N_JNP; k++) {
            if (!jnp_applies(k, ext[d])) continue;
            snprintf(name, sizeof name, "%s_%s", dn, jnp_cases[k]);
            cj_val y = apply_jnp(k, x);
            cj_val want = load(ctx, name, cj_is_error(y) ? ext[d] : cj_val_dtype(y));
            CHECK_MSG(within_ulps(y, want, jnp_ulps(k), why, sizeof why), "%s: %s %s", name, why,
                      cj_error_message(ctx));
            cj_error_clear(ctx);
        }
    }
    cj_ctx_free(ctx);
}

/* Every case in one function: jit on each backend must give eager's bits. */
typedef struct jit_user {
    cj_dtype dt;
} jit_user;

static int n_outputs(cj_dtype dt) {
    int n = N_LAX;
    for (int k = 0; k < N_JNP; k++) n += jnp_applies(k, dt);
    return n;
}

static void all_cases(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    const jit_user *u = user;
    int o = 0;
    for (int k = 0; k < N_LAX; k++) out[o++] = apply_lax(&lax_cases[k], in[0]);
    for (int k = 0; k < N_JNP; k++)
        if (jnp_applies(k, u->dt)) out[o++] = apply_jnp(k, in[0]);
}

/* A long row (128 × 300: long rows reach generated code's row kernels). */
static void long_rows(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    int64_t one = 1, zero = 0;
    prim_params p = prim_params_zero();
    p.axes.n = 1;
    p.axes.v[0] = 1;
    out[0] = core_bind(in[0].ctx, PRIM_REDUCE_SUM, &p, 1, in);
    out[1] = core_bind(in[0].ctx, PRIM_REDUCE_MAX, &p, 1, in);
    out[2] = cj_sum(cj_mul(in[0], in[0]), 1, &one, 0);
    out[3] = cj_reduce_min(in[0], 1, &zero, 0);
    out[4] = cj_argmax(in[0], 1, 0);
}

TEST(dtypes_reduce_jit_matches_eager) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    char why[256];
    for (int d = 0; d < N_EXT; d++) {
        jit_user u = {ext[d]};
        char name[64];
        snprintf(name, sizeof name, "%s_x", cj_dtype_name(ext[d]));
        cj_val x = load(ctx, name, ext[d]);
        int n = n_outputs(ext[d]);
        cj_func *f = cj_func_new(ctx, "all_cases", all_cases, 1, n, &u);
        cj_jit_opts interp = {0, NULL, 0, NULL, CJ_BACKEND_INTERP}, cc = {0, NULL, 0, NULL, CJ_BACKEND_CC};
        cj_val ye[64], yi[64], yc[64];
        CHECK(cj_call(f, &x, ye) == CJ_OK);
        CHECK(cj_call(cj_jit(f, &interp), &x, yi) == CJ_OK);
        CHECK(cj_call(cj_jit(f, &cc), &x, yc) == CJ_OK);
        CHECK_MSG(cj_error(ctx) == CJ_OK, "%s: %s", cj_dtype_name(ext[d]), cj_error_message(ctx));
        for (int k = 0; k < n && cj_error(ctx) == CJ_OK; k++) {
            CHECK_MSG(tu_same_bits(ye[k], yi[k]), "%s output %d: interpreter differs from eager", cj_dtype_name(ext[d]), k);
            CHECK_MSG(tu_same_bits(ye[k], yc[k]), "%s output %d: generated C differs from eager", cj_dtype_name(ext[d]), k);
        }
        /* long rows: values from a ramp, converted */
        cj_val r = cj_astype(cj_reshape(cj_mul(tu_ramp(ctx, 128 * 300, 0.37f, -7.0f), cj_scalar(ctx, 1.0)), 2,
                                        (int64_t[]){128, 300}),
                             ext[d]);
        cj_func *g = cj_func_new(ctx, "long_rows", long_rows, 1, 5, NULL);
        cj_val le[5], li[5], lc[5];
        CHECK(cj_call(g, &r, le) == CJ_OK);
        CHECK(cj_call(cj_jit(g, &interp), &r, li) == CJ_OK);
        CHECK(cj_call(cj_jit(g, &cc), &r, lc) == CJ_OK);
        CHECK_MSG(cj_error(ctx) == CJ_OK, "%s long: %s", cj_dtype_name(ext[d]), cj_error_message(ctx));
        for (int k = 0; k < 5 && cj_error(ctx) == CJ_OK; k++) {
            CHECK_MSG(same(li[k], le[k], why, sizeof why), "%s long %d: interpreter: %s", cj_dtype_name(ext[d]), k, why);
            CHECK_MSG(same(lc[k], le[k], why, sizeof why), "%s long %d: generated C: %s", cj_dtype_name(ext[d]), k, why);
        }
    }
    cj_ctx_free(ctx);
}

/* 1000-element f16/bf16 rows: XLA sums in its own order, rounding each
 * step to the narrow type, so cjax's in-order-per-lane sum may differ; both
 * are within n·u·Σ|x| of the exact sum (u the unit roundoff, 2^-11 for f16,
 * 2^-8 for bf16), so they differ by at most twice that. jnp.sum upcasts: the
 * f32 sum rounded once, which must match JAX's to one ulp of the result
 * (the f32 sums' own orders differ by far less than an f16/bf16 ulp, but may
 * straddle a rounding boundary). */
TEST(dtypes_reduce_long_narrow_sums_within_bound) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    char name[64], why[256];
    for (int d = CJ_F16; d <= CJ_BF16; d++) {
        cj_dtype dt = (cj_dtype)d;
        const char *dn = cj_dtype_name(dt);
        snprintf(name, sizeof name, "%s_long", dn);
        cj_val x = load(ctx, name, dt);
        int64_t n = cj_val_size(x);
        uint16_t *xb = malloc(2 * (size_t)n);
        cj_read(x, xb, 2 * (size_t)n);
        double abs_sum = 0;
        for (int64_t i = 0; i < n; i++) abs_sum += fabs(widen(dt, xb[i]));
        free(xb);
        double u = dt == CJ_F16 ? ldexp(1, -11) : ldexp(1, -8);
        prim_params p = prim_params_zero();
        p.axes.n = 1;
        p.axes.v[0] = 0;
        uint16_t g, w;
        cj_read(core_bind(ctx, PRIM_REDUCE_SUM, &p, 1, &x), &g, 2);
        snprintf(name, sizeof name, "%s_long_sum", dn);
        cj_read(load(ctx, name, dt), &w, 2);
        CHECK_MSG(fabs(widen(dt, g) - widen(dt, w)) <= 2 * (double)n * u * abs_sum, "%s: got %g, want %g", dn,
                  widen(dt, g), widen(dt, w));
        snprintf(name, sizeof name, "%s_long_jnp_sum", dn);
        CHECK_MSG(within_ulps(cj_sum(x, -1, NULL, 0), load(ctx, name, dt), 1, why, sizeof why), "%s jnp.sum: %s", dn, why);
        CHECK(cj_error(ctx) == CJ_OK);
    }
    cj_ctx_free(ctx);
}

/* vmap over the leading axis of x[3,5] against a loop over its rows. */
static void row_fns(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    prim_params p = prim_params_zero();
    p.axes.n = 1;
    p.axes.v[0] = 0;
    out[0] = core_bind(in[0].ctx, PRIM_REDUCE_SUM, &p, 1, in);
    out[1] = core_bind(in[0].ctx, PRIM_REDUCE_MIN, &p, 1, in);
    out[2] = cj_argmax(in[0], 0, 0);
    out[3] = cj_cumsum(in[0], 0, 1);
    out[4] = cj_sum(in[0], -1, NULL, 0);
}

TEST(dtypes_reduce_vmap_matches_loop) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    char name[64], why[256];
    for (int d = 0; d < N_EXT; d++) {
        snprintf(name, sizeof name, "%s_x", cj_dtype_name(ext[d]));
        cj_val x = load(ctx, name, ext[d]);
        cj_func *f = cj_func_new(ctx, "row_fns", row_fns, 1, 5, NULL);
        cj_val yv[5];
        CHECK(cj_call(cj_vmap(f, NULL), &x, yv) == CJ_OK);
        for (int64_t r = 0; r < 3; r++) {
            cj_val row = cj_squeeze(cj_slice(x, (int64_t[]){r, 0}, (int64_t[]){r + 1, 5}, NULL), 1, (int64_t[]){0});
            cj_val yr[5];
            CHECK(cj_call(f, &row, yr) == CJ_OK);
            for (int k = 0; k < 5; k++) {
                cj_val vr = cj_val_rank(yv[k]) == 1 ? cj_slice(yv[k], &r, (int64_t[]){r + 1}, NULL)
                                                    : cj_slice(yv[k], (int64_t[]){r, 0}, (int64_t[]){r + 1, 5}, NULL);
                vr = cj_reshape(vr, cj_val_rank(yr[k]), (int64_t[]){5});
                CHECK_MSG(same(vr, yr[k], why, sizeof why), "%s out %d row %lld: %s", cj_dtype_name(ext[d]), k,
                          (long long)r, why);
            }
        }
        CHECK_MSG(cj_error(ctx) == CJ_OK, "%s", cj_error_message(ctx));
    }
    cj_ctx_free(ctx);
}

/* jvp of an f16 sum (lax's, which stays f16, and jnp's, through f32): the
 * tangent is the sum of the tangents, an f16; and of max: the tangent at
 * the maximum's position. */
static void f16_sums(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    prim_params p = prim_params_zero();
    p.axes.n = 1;
    p.axes.v[0] = 0;
    out[0] = core_bind(in[0].ctx, PRIM_REDUCE_SUM, &p, 1, in);
    out[1] = cj_sum(cj_mul(in[0], in[0]), -1, NULL, 0);
    out[2] = cj_reduce_max(in[0], -1, NULL, 0);
    out[3] = cj_cumsum(in[0], 0, 0);
}

TEST(dtypes_reduce_jvp_f16_closed_form) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    const float xs[6] = {0.5f, -1.25f, 2.0f, 3.5f, -0.75f, 1.0f}, ts[6] = {1, 2, -1, 0.5f, 0.25f, -2};
    int64_t n = 6;
    for (int d = CJ_F16; d <= CJ_BF16; d++) {
        cj_dtype dt = (cj_dtype)d;
        cj_val x = cj_astype(cj_array(ctx, CJ_F32, 1, &n, xs), dt), t = cj_astype(cj_array(ctx, CJ_F32, 1, &n, ts), dt);
        cj_func *f = cj_func_new(ctx, "f16_sums", f16_sums, 1, 4, NULL);
        cj_val po[4], to[4];
        CHECK(cj_jvp(f, &x, &t, po, to) == CJ_OK);
        CHECK_MSG(cj_error(ctx) == CJ_OK, "%s", cj_error_message(ctx));
        for (int k = 0; k < 4; k++) CHECK(cj_val_dtype(to[k]) == dt);
        /* all values are exact in f16 and bf16, and so are these sums */
        double st = 0, s2 = 0;
        for (int i = 0; i < 6; i++) st += ts[i], s2 += 2.0 * xs[i] * ts[i];
        CHECK_NEAR(cj_item_or_nan(cj_astype(to[0], CJ_F32)), st, 0, 0);
        CHECK_NEAR(cj_item_or_nan(cj_astype(to[1], CJ_F32)), s2, 0, 0);
        CHECK_NEAR(cj_item_or_nan(cj_astype(to[2], CJ_F32)), ts[3], 0, 0); /* max at 3.5 */
        float c[6];
        CHECK(cj_read_as(to[3], CJ_F32, c, sizeof c) == CJ_OK);
        double run = 0;
        for (int i = 0; i < 6; i++) {
            run += ts[i];
            CHECK_NEAR(c[i], run, 0, 0);
        }
    }
    cj_ctx_free(ctx);
}

TEST(dtypes_reduce_iota_every_dtype) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    char name[64], why[256];
    int64_t n = 40;
    cj_jit_opts cc = {0, NULL, 0, NULL, CJ_BACKEND_CC};
    for (int d = 0; d < N_EXT; d++) {
        snprintf(name, sizeof name, "%s_iota", cj_dtype_name(ext[d]));
        cj_val want = load(ctx, name, ext[d]);
        CHECK_MSG(same(cj_iota(ctx, ext[d], 1, &n, 0), want, why, sizeof why), "%s: %s %s", name, why,
                  cj_error_message(ctx));
        CHECK_MSG(same(cj_arange(ctx, 0, 40, 1, ext[d]), want, why, sizeof why), "arange %s: %s", name, why);
        cj_error_clear(ctx);
    }
    (void)cc;
    cj_ctx_free(ctx);
}

/* iota inside jit (fused as a leaf on both backends), 2-D along axis 1. */
typedef struct iota_user {
    cj_dtype dt;
} iota_user;
static void iota_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)in;
    const iota_user *u = user;
    int64_t shape[2] = {4, 40};
    out[0] = cj_add(cj_iota(ctx, u->dt, 2, shape, 1), cj_astype(in[0], u->dt));
}

TEST(dtypes_reduce_iota_jit_both_backends) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    char why[256];
    for (int d = 0; d < N_EXT; d++) {
        iota_user u = {ext[d]};
        cj_val z = cj_scalar_typed(ctx, 1, CJ_I32);
        cj_func *f = cj_func_new(ctx, "iota_fn", iota_fn, 1, 1, &u);
        cj_jit_opts interp = {0, NULL, 0, NULL, CJ_BACKEND_INTERP}, cc = {0, NULL, 0, NULL, CJ_BACKEND_CC};
        cj_val ye, yi, yc;
        CHECK(cj_call(f, &z, &ye) == CJ_OK);
        CHECK(cj_call(cj_jit(f, &interp), &z, &yi) == CJ_OK);
        CHECK(cj_call(cj_jit(f, &cc), &z, &yc) == CJ_OK);
        CHECK_MSG(cj_error(ctx) == CJ_OK, "%s", cj_error_message(ctx));
        CHECK_MSG(same(yi, ye, why, sizeof why), "%s interp: %s", cj_dtype_name(ext[d]), why);
        CHECK_MSG(same(yc, ye, why, sizeof why), "%s cc: %s", cj_dtype_name(ext[d]), why);
        double v[160];
        CHECK(cj_read_as(ye, CJ_F64, v, sizeof v) == CJ_OK);
        for (int i = 0; i < 160; i++) CHECK_NEAR(v[i], (double)(i % 40 + 1), 0, 0);
    }
    cj_ctx_free(ctx);
}

TEST(dtypes_reduce_refusals_named) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t n = 3;
    const uint8_t xs[3] = {1, 0, 1};
    cj_val b = cj_array(ctx, CJ_BOOL, 1, &n, xs);
    prim_params p = prim_params_zero();
    p.axes.n = 1;
    cj_val s = core_bind(ctx, PRIM_REDUCE_SUM, &p, 1, &b);
    CHECK(cj_is_error(s) && cj_error(ctx) == CJ_ERR_DTYPE);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "reduce_sum: operand bool[3]: bool is not accepted");
    cj_error_clear(ctx);
    /* jnp.sum of bools counts in i32 */
    cj_val c = cj_sum(b, -1, NULL, 0);
    CHECK(cj_val_dtype(c) == CJ_I32 && cj_item_or_nan(c) == 2);
    /* the iota primitive takes no f16: bind_iota and cj_iota convert an f32 one */
    prim_params q = prim_params_zero();
    q.dtype = CJ_F16;
    q.shape.n = 1;
    q.shape.v[0] = 4;
    q.axes.n = 1;
    cj_val io = core_bind(ctx, PRIM_IOTA, &q, 0, NULL);
    CHECK(cj_is_error(io) && cj_error(ctx) == CJ_ERR_DTYPE);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "iota: dtype f16 is not taken");
    cj_error_clear(ctx);
    /* arg-reductions' index dtype stays i32 or i64 */
    cj_val u = cj_astype(b, CJ_U8);
    prim_params a = prim_params_zero();
    a.axes.n = 1;
    a.dtype = CJ_U8;
    cj_val am = core_bind(ctx, PRIM_ARGMAX, &a, 1, &u);
    CHECK(cj_is_error(am) && cj_error(ctx) == CJ_ERR_DTYPE);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "argmax: index_dtype must be i32 or i64, got u8");
    cj_error_clear(ctx);
    cj_ctx_free(ctx);
}

/* lax.reduce_window (sum, max, min) and flax's max_pool on every new dtype,
 * eagerly and under jit (both backends run the same kernel: a SINGLE
 * kernel of its own). */
static void windows(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    static const int64_t win[2] = {2, 2}, strides[2] = {1, 2}, pad[4] = {0, 1, 1, 0}, pw[2] = {2, 2};
    cj_window_opts o = {strides, pad, CJ_PAD_VALID, NULL, NULL};
    out[0] = cj_reduce_window(in[0], CJ_WINDOW_SUM, win, &o);
    out[1] = cj_reduce_window(in[0], CJ_WINDOW_MAX, win, &o);
    out[2] = cj_reduce_window(in[0], CJ_WINDOW_MIN, win, &o);
    out[3] = cj_max_pool(cj_expand_dims(in[0], 2), 2, pw, NULL);
}

TEST(dtypes_reduce_window_against_jax) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    static const char *const names[4] = {"rw_sum", "rw_max", "rw_min", "max_pool"};
    char name[64], why[256];
    for (int d = 0; d < N_EXT; d++) {
        const char *dn = cj_dtype_name(ext[d]);
        snprintf(name, sizeof name, "%s_w", dn);
        cj_val w = load(ctx, name, ext[d]);
        cj_func *f = cj_func_new(ctx, "windows", windows, 1, 4, NULL);
        cj_jit_opts interp = {0, NULL, 0, NULL, CJ_BACKEND_INTERP}, cc = {0, NULL, 0, NULL, CJ_BACKEND_CC};
        cj_val ye[4], yi[4], yc[4];
        CHECK(cj_call(f, &w, ye) == CJ_OK);
        CHECK(cj_call(cj_jit(f, &interp), &w, yi) == CJ_OK);
        CHECK(cj_call(cj_jit(f, &cc), &w, yc) == CJ_OK);
        CHECK_MSG(cj_error(ctx) == CJ_OK, "%s: %s", dn, cj_error_message(ctx));
        for (int k = 0; k < 4 && cj_error(ctx) == CJ_OK; k++) {
            snprintf(name, sizeof name, "%s_%s", dn, names[k]);
            /* f16/bf16 window sums: XLA adds a 2-D window's elements in an
             * order of its own (by columns first in some windows), each step
             * rounded; cjax in row-major window order: an ulp apart at most
             * on these fixtures */
            int ulps = k == 0 && rt_is_narrow_float(ext[d]) ? 1 : 0;
            CHECK_MSG(within_ulps(ye[k], load(ctx, name, ext[d]), ulps, why, sizeof why), "%s: %s", name, why);
            CHECK_MSG(tu_same_bits(ye[k], yi[k]) && tu_same_bits(ye[k], yc[k]), "%s: jit differs from eager", name);
        }
    }
    /* bool stays refused, naming the primitive */
    int64_t n = 4;
    const uint8_t bs[4] = {1, 0, 1, 1};
    int64_t w2 = 2;
    cj_val r = cj_reduce_window(cj_array(ctx, CJ_BOOL, 1, &n, bs), CJ_WINDOW_MAX, &w2, NULL);
    CHECK(cj_is_error(r) && cj_error(ctx) == CJ_ERR_DTYPE);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "reduce_window_max: operand must be a number (not bool), got bool[4]");
    cj_ctx_free(ctx);
}

/* grad through the transposes: d/dx of Σ x² (jnp's sum, through f32) plus
 * lax's f16 max is 2x plus one at the maximum, an f16/bf16 gradient. */
static void sq_sum(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_add(cj_sum(cj_mul(in[0], in[0]), -1, NULL, 0), cj_reduce_max(in[0], -1, NULL, 0));
}

TEST(dtypes_reduce_grad_f16_closed_form) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    const float xs[6] = {0.5f, -1.25f, 2.0f, 3.5f, -0.75f, 1.0f};
    int64_t n = 6;
    for (int d = CJ_F16; d <= CJ_BF16; d++) {
        cj_val x = cj_astype(cj_array(ctx, CJ_F32, 1, &n, xs), (cj_dtype)d), g;
        CHECK(cj_call(cj_grad(cj_func_new(ctx, "sq_sum", sq_sum, 1, 1, NULL), NULL), &x, &g) == CJ_OK);
        CHECK_MSG(cj_error(ctx) == CJ_OK, "%s", cj_error_message(ctx));
        CHECK(cj_val_dtype(g) == (cj_dtype)d);
        float v[6];
        CHECK(cj_read_as(g, CJ_F32, v, sizeof v) == CJ_OK);
        for (int i = 0; i < 6; i++) CHECK_NEAR(v[i], 2.0 * xs[i] + (i == 3), 0, 0);
    }
    cj_ctx_free(ctx);
}
