/* test_random.c — jax.random compatibility (src/api/random.c and the
 * threefry2x32 primitive in src/prim/random.c).
 *
 * The fixtures under tests/data/random/ were written by JAX itself
 * (tests/data/gen_random_fixtures.py; not run here) for six seeds (0, 1,
 * 42, 2^31-1, -7, 2^40+3) and shapes (), (5,), (3,4), (2,3,4). Every
 * sampler is compared BIT FOR BIT with them: eagerly, under cj_jit, and
 * under cj_vmap over the batch of all six keys (each row must equal that
 * key's own fixture). Nothing is compared with a tolerance except f64
 * normals (random_normal_f64_within_measured_ulp_of_jax says why). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/core/core.h"
#include "cjax.h"
#include "harness.h"
#include "test_util.h"

#define N_SEEDS 6
static const int64_t SEEDS[N_SEEDS] = {0, 1, 42, 2147483647, -7, 1099511627779LL};

typedef struct shape_case {
    const char *name;
    int rank;
    int64_t dims[3];
} shape_case;
static const shape_case SHAPES[] = {{"scalar", 0, {0}}, {"5", 1, {5}}, {"3x4", 2, {3, 4}}, {"2x3x4", 3, {2, 3, 4}}};
#define N_SHAPES 4

/* One sampler call and the fixture it must reproduce. */
typedef enum kind {
    K_SPLIT2, K_SPLIT3, K_FOLD_IN, K_BITS, K_UNIFORM, K_UNIFORM_RANGE, K_NORMAL, K_BERNOULLI, K_RANDINT,
    K_RANDINT_WIDE, K_PERM, K_PERM_ARR0, K_PERM_ARR1, K_BITS_TYPED, K_GUMBEL_HIGHEST
} kind;
typedef struct sample_case {
    kind k;
    int shape;      /* index into SHAPES */
    cj_dtype dtype; /* uniform, normal, gumbel; bits_typed: u8, u16 or u64 */
    int64_t n;      /* permutation size; fold_in data */
} sample_case;

static cj_val draw(cj_ctx *ctx, cj_val key, const sample_case *c) {
    const shape_case *s = &SHAPES[c->shape];
    switch (c->k) {
    case K_SPLIT2: return cj_random_split(key, 2);
    case K_SPLIT3: return cj_random_split(key, 3);
    case K_FOLD_IN: return cj_random_fold_in(key, cj_scalar_typed(ctx, (double)c->n, CJ_I64));
    case K_BITS: return cj_random_bits(key, s->rank, s->dims);
    case K_BITS_TYPED: return cj_random_bits_typed(key, c->dtype, s->rank, s->dims);
    case K_GUMBEL_HIGHEST: return cj_random_gumbel_mode(key, c->dtype, s->rank, s->dims, "highest");
    case K_UNIFORM: return cj_random_uniform(key, c->dtype, s->rank, s->dims, 0.0, 1.0);
    case K_UNIFORM_RANGE: return cj_random_uniform(key, c->dtype, s->rank, s->dims, -2.5, 3.7);
    case K_NORMAL: return cj_random_normal(key, c->dtype, s->rank, s->dims);
    case K_BERNOULLI: return cj_random_bernoulli(key, 0.3, s->rank, s->dims);
    case K_RANDINT: return cj_random_randint(key, s->rank, s->dims, -5, 17, CJ_I32);
    case K_RANDINT_WIDE: return cj_random_randint(key, s->rank, s->dims, -1000000000, 2000000000, CJ_I32);
    case K_PERM: return cj_random_permutation(key, c->n);
    case K_PERM_ARR0:
    case K_PERM_ARR1: {
        int64_t dims[2] = {3, 4};
        cj_val x = cj_reshape(cj_arange(ctx, 0, 12, 1, CJ_I32), 2, dims);
        return cj_random_permutation_array(key, x, c->k == K_PERM_ARR0 ? 0 : 1);
    }
    }
    return cj_random_bits(key, -1, NULL); /* unreachable: an error value */
}

static void fixture_name(const sample_case *c, int seed, char *buf, size_t size) {
    const char *sn = SHAPES[c->shape].name;
    const char *dt = c->dtype == CJ_F64 ? "f64" : "f32";
    switch (c->k) {
    case K_SPLIT2: snprintf(buf, size, "split2_s%d", seed); return;
    case K_SPLIT3: snprintf(buf, size, "split3_s%d", seed); return;
    case K_FOLD_IN: snprintf(buf, size, "fold_in_s%d_d%lld", seed, (long long)c->n); return;
    case K_BITS: snprintf(buf, size, "bits_s%d_%s", seed, sn); return;
    case K_BITS_TYPED: snprintf(buf, size, "bits_%s_s%d_%s", cj_dtype_name(c->dtype), seed, sn); return;
    case K_GUMBEL_HIGHEST: snprintf(buf, size, "gumbel_highest_s%d_%s_%s", seed, sn, dt); return;
    case K_UNIFORM: snprintf(buf, size, "uniform_s%d_%s_%s", seed, sn, dt); return;
    case K_UNIFORM_RANGE: snprintf(buf, size, "uniform_range_s%d_%s_%s", seed, sn, dt); return;
    case K_NORMAL: snprintf(buf, size, "normal_s%d_%s_%s", seed, sn, dt); return;
    case K_BERNOULLI: snprintf(buf, size, "bernoulli_s%d_%s", seed, sn); return;
    case K_RANDINT: snprintf(buf, size, "randint_s%d_%s", seed, sn); return;
    case K_RANDINT_WIDE: snprintf(buf, size, "randint_wide_s%d_%s", seed, sn); return;
    case K_PERM: snprintf(buf, size, "permutation_s%d_n%lld", seed, (long long)c->n); return;
    case K_PERM_ARR0: snprintf(buf, size, "permutation_arr_s%d_axis0", seed); return;
    case K_PERM_ARR1: snprintf(buf, size, "permutation_arr_s%d_axis1", seed); return;
    }
}

static cj_val load(cj_ctx *ctx, const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/random/%s.npy", CJAX_TEST_DATA_DIR, name);
    return cj_load_npy(ctx, path);
}

/* Bitwise comparison of got with want; on a float mismatch also the
 * largest distance in units in the last place. 1 when identical. */
typedef struct diff {
    int64_t mismatches;
    int64_t max_ulp;
    char why[160];
} diff;

static int same_bits(cj_val got, cj_val want, diff *d) {
    memset(d, 0, sizeof *d);
    char gt[96], wt[96];
    cj_val_type_str(got, gt, sizeof gt);
    cj_val_type_str(want, wt, sizeof wt);
    if (strcmp(gt, wt) != 0) {
        snprintf(d->why, sizeof d->why, "type %.60s, JAX's %.60s", gt, wt);
        return 0;
    }
    cj_dtype dt = cj_val_dtype(got);
    size_t es = cj_dtype_size(dt), n = (size_t)cj_val_size(got);
    char *a = malloc(es * n + 8), *b = malloc(es * n + 8);
    if (!a || !b || cj_read(got, a, es * n) != CJ_OK || cj_read(want, b, es * n) != CJ_OK) {
        snprintf(d->why, sizeof d->why, "could not read the arrays");
        free(a), free(b);
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        if (memcmp(a + i * es, b + i * es, es) == 0) continue;
        d->mismatches++;
        if (dt == CJ_F32 || dt == CJ_F64) {
            int64_t u = llabs(tu_ordered_bits(a + i * es, dt) - tu_ordered_bits(b + i * es, dt));
            if (u > d->max_ulp) d->max_ulp = u;
        }
    }
    free(a), free(b);
    if (d->mismatches)
        snprintf(d->why, sizeof d->why, "%lld of %zu elements differ (max %lld ulp)", (long long)d->mismatches, n,
                 (long long)d->max_ulp);
    return d->mismatches == 0;
}

/* ---- the cases ---- */

static int all_cases(sample_case *out) {
    int n = 0;
    out[n++] = (sample_case){K_SPLIT2, 0, CJ_F32, 0};
    out[n++] = (sample_case){K_SPLIT3, 0, CJ_F32, 0};
    const int64_t data[4] = {0, 7, 123456789, -1};
    for (int i = 0; i < 4; i++) out[n++] = (sample_case){K_FOLD_IN, 0, CJ_F32, data[i]};
    for (int s = 0; s < N_SHAPES; s++) {
        out[n++] = (sample_case){K_BITS, s, CJ_F32, 0};
        out[n++] = (sample_case){K_BITS_TYPED, s, CJ_U8, 0};
        out[n++] = (sample_case){K_BITS_TYPED, s, CJ_U16, 0};
        out[n++] = (sample_case){K_BITS_TYPED, s, CJ_U64, 0};
        out[n++] = (sample_case){K_GUMBEL_HIGHEST, s, CJ_F32, 0}; /* f64 ("high"): see random_gumbel_highest_* */
        for (int f = 0; f < 2; f++) {
            cj_dtype dt = f ? CJ_F64 : CJ_F32;
            out[n++] = (sample_case){K_UNIFORM, s, dt, 0};
            out[n++] = (sample_case){K_UNIFORM_RANGE, s, dt, 0};
        }
        out[n++] = (sample_case){K_NORMAL, s, CJ_F32, 0}; /* f64: see random_normal_f64_* */
        out[n++] = (sample_case){K_BERNOULLI, s, CJ_F32, 0};
        out[n++] = (sample_case){K_RANDINT, s, CJ_F32, 0};
        out[n++] = (sample_case){K_RANDINT_WIDE, s, CJ_F32, 0};
    }
    const int64_t perm[6] = {0, 1, 5, 10, 100, 2000};
    for (int i = 0; i < 6; i++) out[n++] = (sample_case){K_PERM, 0, CJ_F32, perm[i]};
    out[n++] = (sample_case){K_PERM_ARR0, 0, CJ_F32, 0};
    out[n++] = (sample_case){K_PERM_ARR1, 0, CJ_F32, 0};
    return n;
}

static int normal_f64_cases(sample_case *out) {
    int n = 0;
    for (int s = 0; s < N_SHAPES; s++) out[n++] = (sample_case){K_NORMAL, s, CJ_F64, 0};
    return n;
}

/* ---- eager ---- */

TEST(random_key_matches_jax) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    for (int s = 0; s < N_SEEDS; s++) {
        char name[64];
        snprintf(name, sizeof name, "key_s%d", s);
        diff d;
        CHECK_MSG(same_bits(cj_random_key(ctx, SEEDS[s]), load(ctx, name), &d), "seed %lld: %s",
                  (long long)SEEDS[s], d.why);
    }
    CHECK(cj_error(ctx) == CJ_OK);
    cj_ctx_free(ctx);
}

TEST(random_samplers_match_jax_bit_for_bit) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    sample_case cases[128];
    int n = all_cases(cases);
    for (int s = 0; s < N_SEEDS; s++) {
        cj_val key = cj_random_key(ctx, SEEDS[s]);
        for (int i = 0; i < n; i++) {
            char name[96];
            fixture_name(&cases[i], s, name, sizeof name);
            diff d;
            int ok = same_bits(draw(ctx, key, &cases[i]), load(ctx, name), &d);
            CHECK_MSG(ok, "%s: %s (%s)", name, d.why, cj_error_message(ctx));
        }
    }
    CHECK(cj_error(ctx) == CJ_OK);
    cj_ctx_free(ctx);
}

/* Normal is sqrt(2) * erf_inv(u), and erf_inv calls log1p, whose last bit
 * erf_inv magnifies near |u| = 1: random.c computes XLA's own log1p (and,
 * in f32, XLA's log), so f32 normals are bit for bit — with the fixtures
 * of every seed and shape (in all_cases, eager, jit and vmap) and over a
 * longer stream: 1000 values of key 3, of which cjax's own log1p got 9
 * wrong (issue 13). In f64 XLA's log is the C library's, which cjax's log
 * matches in about 93% of values, so f64 is measured: 952 of 200,000
 * values of key 3 (0.48%) differ from JAX, by at most 3 ulp. The limits
 * below hold those figures: at most 1% of the values, 4 ulp. */
#define NORMAL_F64_MAX_ULP 4
static void normal1000(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_random_normal(in[0], CJ_F32, 1, (const int64_t[]){1000});
}

TEST(random_normal_f32_bit_for_bit_with_jax) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t n = 1000;
    cj_val key = load(ctx, "key_3");
    diff d;
    CHECK_MSG(same_bits(cj_random_key(ctx, 3), key, &d), "key 3: %s", d.why);
    CHECK_MSG(same_bits(cj_random_normal(key, CJ_F32, 1, &n), load(ctx, "normal_key3_1000_f32"), &d),
              "normal f32 key 3: %s (%s)", d.why, cj_error_message(ctx));
    /* under jit too, with the generated C */
    cj_jit_opts cc = {.backend = CJ_BACKEND_CC};
    cj_func *jf = cj_jit(cj_func_new(ctx, "normal1000", normal1000, 1, 1, NULL), &cc);
    cj_val got;
    CHECK_MSG(cj_call(jf, &key, &got) == CJ_OK, "%s", cj_error_message(ctx));
    CHECK_MSG(same_bits(got, load(ctx, "normal_key3_1000_f32"), &d), "jit normal f32 key 3: %s", d.why);
    CHECK(cj_error(ctx) == CJ_OK);
    cj_ctx_free(ctx);
}

TEST(random_normal_f64_within_measured_ulp_of_jax) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    sample_case cases[8];
    int n = normal_f64_cases(cases);
    int64_t bad = 0, total = 0;
    for (int s = 0; s < N_SEEDS; s++) {
        cj_val key = cj_random_key(ctx, SEEDS[s]);
        for (int i = 0; i < n; i++) {
            char name[96];
            fixture_name(&cases[i], s, name, sizeof name);
            diff d;
            cj_val got = draw(ctx, key, &cases[i]);
            total += cj_val_size(got);
            if (same_bits(got, load(ctx, name), &d)) continue;
            CHECK_MSG(d.mismatches > 0 && d.max_ulp <= NORMAL_F64_MAX_ULP, "%s: %s", name, d.why);
            bad += d.mismatches;
        }
    }
    int64_t n500 = 500;
    diff d;
    cj_val got = cj_random_normal(load(ctx, "key_3"), CJ_F64, 1, &n500);
    total += n500;
    if (!same_bits(got, load(ctx, "normal_key3_500_f64"), &d)) {
        CHECK_MSG(d.mismatches > 0 && d.max_ulp <= NORMAL_F64_MAX_ULP, "normal f64 key 3: %s", d.why);
        bad += d.mismatches;
    }
    CHECK(cj_error(ctx) == CJ_OK);
    CHECK_MSG(bad * 100 <= total, "%lld of %lld f64 normal values differ from JAX", (long long)bad, (long long)total);
    cj_ctx_free(ctx);
}

/* ---- jit and vmap ---- */

typedef struct draw_fn {
    const sample_case *c;
} draw_fn;

static void draw_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    out[0] = draw(ctx, in[0], ((const draw_fn *)user)->c);
}

/* Every case for every seed through jit(draw) (traced key) and through
 * vmap(draw) over the six keys at once (optionally jitted too). */
static void check_transformed(int n, const sample_case *cases, int use_jit, int use_vmap, cj_backend backend) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t kd[2] = {N_SEEDS, 2};
    uint32_t keys[N_SEEDS * 2];
    for (int s = 0; s < N_SEEDS; s++) cj_read(cj_random_key(ctx, SEEDS[s]), &keys[2 * s], 8);
    cj_val batch = cj_array(ctx, CJ_U32, 2, kd, keys);
    for (int i = 0; i < n; i++) {
        draw_fn u = {&cases[i]};
        cj_func *f = cj_func_new(ctx, "draw", draw_body, 1, 1, &u);
        if (use_vmap) f = cj_vmap(f, NULL);
        cj_jit_opts jo = {.backend = backend};
        if (use_jit) f = cj_jit(f, &jo);
        cj_val all = {0};
        if (use_vmap) CHECK_MSG(cj_call(f, &batch, &all) == CJ_OK, "%s", cj_error_message(ctx));
        for (int s = 0; s < N_SEEDS; s++) {
            char name[96];
            fixture_name(&cases[i], s, name, sizeof name);
            cj_val got;
            if (use_vmap) {
                int64_t dims[CJ_MAX_RANK], lo[CJ_MAX_RANK] = {0};
                int r = cj_val_shape(all, dims);
                lo[0] = s;
                dims[0] = s + 1;
                got = cj_squeeze(cj_slice(all, lo, dims, NULL), 1, (const int64_t[]){0});
                (void)r;
            } else {
                cj_val key = cj_random_key(ctx, SEEDS[s]);
                CHECK_MSG(cj_call(f, &key, &got) == CJ_OK, "%s: %s", name, cj_error_message(ctx));
            }
            diff d;
            CHECK_MSG(same_bits(got, load(ctx, name), &d), "%s%s%s: %s (%s)", use_jit ? "jit " : "",
                      use_vmap ? "vmap " : "", name, d.why, cj_error_message(ctx));
        }
    }
    CHECK(cj_error(ctx) == CJ_OK);
    cj_ctx_free(ctx);
}

/* Each backend by name: the default (tiered) one runs the interpreter or
 * the generated C depending on when the background build lands, which
 * once let a generated-C-only error (gcc's strict aliasing, cc_build.h)
 * fail one run in five. */
TEST(random_samplers_under_jit_match_jax) {
    sample_case cases[128];
    check_transformed(all_cases(cases), cases, 1, 0, CJ_BACKEND_INTERP);
}

TEST(random_samplers_under_jit_cc_match_jax) {
    sample_case cases[128];
    check_transformed(all_cases(cases), cases, 1, 0, CJ_BACKEND_CC);
}

TEST(random_samplers_under_vmap_over_keys_match_jax) {
    sample_case cases[128];
    check_transformed(all_cases(cases), cases, 0, 1, CJ_BACKEND_INTERP);
}

TEST(random_samplers_under_jit_of_vmap_match_jax) {
    sample_case cases[128];
    check_transformed(all_cases(cases), cases, 1, 1, CJ_BACKEND_CC);
}

/* The primitive's vmap rule with the counts batched and the key shared,
 * and with per-counter keys: each must equal the unbatched hash. */
TEST(random_threefry_vmap_rule_batched_counts) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t d[2] = {3, 4};
    cj_val c0 = cj_reshape(cj_arange(ctx, 100, 112, 1, CJ_I32), 2, d);
    cj_val c1 = cj_reshape(cj_arange(ctx, -6, 6, 1, CJ_I32), 2, d);
    cj_val k0 = cj_scalar_typed(ctx, 12345, CJ_I32), k1 = cj_scalar_typed(ctx, -99, CJ_I32);
    prim_params p = prim_params_zero();
    cj_val in[4] = {k0, k1, c0, c1};
    cj_val whole = core_bind(ctx, PRIM_THREEFRY2X32, &p, 4, in);
    /* per-counter keys give the same as the broadcast scalar key */
    cj_val full_keys[4] = {cj_broadcast_to(k0, 2, d), cj_broadcast_to(k1, 2, d), c0, c1};
    diff df;
    CHECK_MSG(same_bits(core_bind(ctx, PRIM_THREEFRY2X32, &p, 4, full_keys), whole, &df), "%s", df.why);
    /* known answer: Random123's threefry2x32_20 test vector (key and counts
     * all ones bits is one of them) */
    cj_val ones = cj_scalar_typed(ctx, -1, CJ_I32);
    cj_val kat_in[4] = {ones, ones, ones, ones};
    int32_t kat[2];
    CHECK(cj_read(core_bind(ctx, PRIM_THREEFRY2X32, &p, 4, kat_in), kat, sizeof kat) == CJ_OK);
    CHECK_EQ_INT((uint32_t)kat[0], 0x1cb996fcu);
    CHECK_EQ_INT((uint32_t)kat[1], 0xbb002be7u);
    CHECK(cj_error(ctx) == CJ_OK);
    cj_ctx_free(ctx);
}

/* The hash on u32 operands (JAX's dtype) gives the bits it gives on i32. */
TEST(random_threefry_on_u32_equals_i32_bits) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t d[2] = {3, 4};
    cj_val c0 = cj_reshape(cj_arange(ctx, 100, 112, 1, CJ_I32), 2, d);
    cj_val c1 = cj_reshape(cj_arange(ctx, -6, 6, 1, CJ_I32), 2, d);
    cj_val k0 = cj_scalar_typed(ctx, 12345, CJ_I32), k1 = cj_scalar_typed(ctx, -99, CJ_I32);
    prim_params p = prim_params_zero();
    cj_val in[4] = {k0, k1, c0, c1}, uin[4];
    for (int i = 0; i < 4; i++) uin[i] = cj_bitcast_convert_type(in[i], CJ_U32);
    cj_val ui = core_bind(ctx, PRIM_THREEFRY2X32, &p, 4, uin);
    CHECK(cj_val_dtype(ui) == CJ_U32);
    diff df;
    CHECK_MSG(same_bits(cj_bitcast_convert_type(ui, CJ_I32), core_bind(ctx, PRIM_THREEFRY2X32, &p, 4, in), &df),
              "%s", df.why);
    CHECK(cj_error(ctx) == CJ_OK);
    cj_ctx_free(ctx);
}

/* A key of i32 bit patterns (what cjax made before u32) draws what the
 * u32 key draws, and split/fold_in keep its dtype. */
TEST(random_i32_keys_draw_the_u32_keys_bits) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    sample_case cases[128];
    int n = all_cases(cases);
    for (int s = 0; s < N_SEEDS; s += 2) {
        cj_val key = cj_random_key(ctx, SEEDS[s]), ikey = cj_bitcast_convert_type(key, CJ_I32);
        for (int i = 0; i < n; i++) {
            char name[96];
            fixture_name(&cases[i], s, name, sizeof name);
            cj_val got = draw(ctx, ikey, &cases[i]);
            if (cases[i].k <= K_FOLD_IN) {
                CHECK_MSG(cj_val_dtype(got) == CJ_I32, "%s from an i32 key is %s", name,
                          cj_dtype_name(cj_val_dtype(got)));
                got = cj_bitcast_convert_type(got, CJ_U32);
            }
            diff d;
            CHECK_MSG(same_bits(got, load(ctx, name), &d), "i32 key %s: %s (%s)", name, d.why, cj_error_message(ctx));
        }
    }
    CHECK(cj_error(ctx) == CJ_OK);
    cj_ctx_free(ctx);
}

/* gumbel "highest": f32 is JAX's bit construction, bit for bit over 4096
 * draws of key 3 (both halves of the fold); f64 is mode "high" (as JAX),
 * whose outer log magnifies the inner one's last bit (see
 * test_random_gamma.c's GUMBEL_F64_ULP): within 1024 ulp. */
TEST(random_gumbel_highest_matches_jax) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t n = 4096;
    diff d;
    CHECK_MSG(same_bits(cj_random_gumbel_mode(cj_random_key(ctx, 3), CJ_F32, 1, &n, "highest"),
                        load(ctx, "gumbel_highest_key3_4096_f32"), &d),
              "%s (%s)", d.why, cj_error_message(ctx));
    for (int s = 0; s < N_SEEDS; s++)
        for (int sh = 0; sh < N_SHAPES; sh++) {
            sample_case c = {K_GUMBEL_HIGHEST, sh, CJ_F64, 0};
            char name[96], why[160];
            fixture_name(&c, s, name, sizeof name);
            int64_t worst = 0;
            CHECK_MSG(tu_match_ulp(draw(ctx, cj_random_key(ctx, SEEDS[s]), &c), load(ctx, name), 1024, why,
                                   sizeof why, &worst),
                      "%s: %s", name, why);
        }
    CHECK(cj_error(ctx) == CJ_OK);
    cj_ctx_free(ctx);
}

/* ---- documented edge cases and errors ---- */

TEST(random_edge_cases_match_jax) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val key = cj_random_key(ctx, 3);
    int64_t six = 6, eight = 8;
    diff d;
    CHECK_MSG(same_bits(cj_random_randint(key, 1, &six, 5, 5, CJ_I32), load(ctx, "randint_empty_range"), &d), "%s",
              d.why);
    CHECK_MSG(same_bits(cj_random_randint(key, 1, &six, 9, 2, CJ_I32), load(ctx, "randint_reversed_range"), &d),
              "%s", d.why);
    CHECK_MSG(same_bits(cj_random_bernoulli(key, 0.0, 1, &eight), load(ctx, "bernoulli_p0"), &d), "%s", d.why);
    CHECK_MSG(same_bits(cj_random_bernoulli(key, 1.0, 1, &eight), load(ctx, "bernoulli_p1"), &d), "%s", d.why);
    CHECK_MSG(same_bits(cj_random_bernoulli(key, 1.5, 1, &eight), load(ctx, "bernoulli_p_above1"), &d), "%s", d.why);
    CHECK_MSG(same_bits(cj_random_bernoulli(key, -0.5, 1, &eight), load(ctx, "bernoulli_p_negative"), &d), "%s",
              d.why);
    CHECK_MSG(same_bits(cj_random_uniform(key, CJ_F32, 1, &eight, 2.0, -1.0), load(ctx, "uniform_reversed_range"), &d),
              "%s", d.why);
    /* i64 randint: JAX (x64 off) samples int32; cjax widens those samples */
    int64_t got[6];
    int32_t want[6];
    CHECK(cj_read(cj_random_randint(key, 1, &six, -5, 17, CJ_I64), got, sizeof got) == CJ_OK);
    CHECK(cj_read(cj_random_randint(key, 1, &six, -5, 17, CJ_I32), want, sizeof want) == CJ_OK);
    for (int i = 0; i < 6; i++) CHECK_EQ_INT(got[i], want[i]);
    CHECK(cj_error(ctx) == CJ_OK);
    cj_ctx_free(ctx);
}

static void expect_error(cj_ctx *ctx, cj_val v, cj_status code, const char *needle) {
    CHECK(cj_is_error(v));
    CHECK_MSG(cj_error(ctx) == code, "%s: %s", cj_status_name(cj_error(ctx)), cj_error_message(ctx));
    CHECK_STR_CONTAINS(cj_error_message(ctx), needle);
    cj_error_clear(ctx);
}

TEST(random_rejects_bad_arguments) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val key = cj_random_key(ctx, 0);
    int64_t three = 3, neg = -2;
    expect_error(ctx, cj_random_uniform(cj_zeros(ctx, CJ_I32, 1, &three), CJ_F32, 0, NULL, 0, 1), CJ_ERR_SHAPE,
                 "random_uniform: a key must be u32[2]");
    expect_error(ctx, cj_random_normal(cj_zeros(ctx, CJ_F32, 1, (const int64_t[]){2}), CJ_F32, 0, NULL),
                 CJ_ERR_DTYPE, "got f32[2]");
    expect_error(ctx, cj_random_uniform(key, CJ_I32, 0, NULL, 0, 1), CJ_ERR_DTYPE, "dtype must be f16, bf16, f32 or f64, got i32");
    expect_error(ctx, cj_random_randint(key, 0, NULL, 0, 5, CJ_F32), CJ_ERR_DTYPE, "i8, i16, i32, i64, u8, u16 or u32, got f32");
    expect_error(ctx, cj_random_bits(key, 1, &neg), CJ_ERR_SHAPE, "negative");
    expect_error(ctx, cj_random_bernoulli(key, 0.5, CJ_MAX_RANK + 1, NULL), CJ_ERR_SHAPE, "rank");
    expect_error(ctx, cj_random_split(key, -1), CJ_ERR_SHAPE, "negative");
    expect_error(ctx, cj_random_permutation(key, -1), CJ_ERR_ARG, "n must be >= 0");
    expect_error(ctx, cj_random_permutation_array(key, cj_scalar_int(ctx, 4), 0), CJ_ERR_SHAPE, "at least 1-D");
    expect_error(ctx, cj_random_permutation_array(key, cj_zeros(ctx, CJ_F32, 1, &three), 1), CJ_ERR_AXIS, "");
    expect_error(ctx, cj_random_fold_in(key, cj_scalar_typed(ctx, 1.5, CJ_F32)), CJ_ERR_DTYPE, "integer scalar");
    /* the primitive's own shape rule */
    prim_params p = prim_params_zero();
    cj_val c = cj_zeros(ctx, CJ_I32, 1, &three), k = cj_zeros(ctx, CJ_I32, 1, (const int64_t[]){2});
    cj_val in[4] = {k, k, c, c};
    expect_error(ctx, core_bind(ctx, PRIM_THREEFRY2X32, &p, 4, in), CJ_ERR_SHAPE, "threefry2x32: keys");
    cj_val f = cj_zeros(ctx, CJ_F32, 1, &three);
    cj_val in2[4] = {cj_scalar_typed(ctx, 0, CJ_I32), cj_scalar_typed(ctx, 0, CJ_I32), f, f};
    expect_error(ctx, core_bind(ctx, PRIM_THREEFRY2X32, &p, 4, in2), CJ_ERR_DTYPE, "x0 must be u32");
    cj_val u = cj_zeros(ctx, CJ_U32, 1, &three);
    cj_val in3[4] = {cj_scalar_typed(ctx, 0, CJ_I32), cj_scalar_typed(ctx, 0, CJ_I32), u, u};
    expect_error(ctx, core_bind(ctx, PRIM_THREEFRY2X32, &p, 4, in3), CJ_ERR_DTYPE, "share one dtype");
    expect_error(ctx, cj_random_bits_typed(key, CJ_I32, 1, &three), CJ_ERR_DTYPE, "u8, u16, u32 or u64");
    expect_error(ctx, cj_random_bits_typed(key, CJ_F32, 1, &three), CJ_ERR_DTYPE, "got f32");
    expect_error(ctx, cj_random_gumbel_mode(key, CJ_F32, 1, &three, "hi"), CJ_ERR_ARG, "\"highest\"");
    cj_ctx_free(ctx);
}

/* The hash has no derivative: its jvp rule is the zero rule. */
TEST(random_threefry_has_zero_jvp) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    CHECK(prim_rules[PRIM_THREEFRY2X32].jvp != NULL);
    CHECK(prim_rules[PRIM_THREEFRY2X32].batch != NULL);
    CHECK(prim_rules[PRIM_THREEFRY2X32].lower.kind == LOWER_OPAQUE);
    cj_ctx_free(ctx);
}
