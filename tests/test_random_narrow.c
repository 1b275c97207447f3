/* test_random_narrow.c — jax.random in f16 / bf16 and in 8/16-bit integers
 * against JAX.
 *
 * The fixtures (tests/data/random_narrow/random_narrow.npz) were written
 * by jax.random 0.10.2 itself (tests/data/gen_random_narrow_fixtures.py; not
 * run here) for seeds 0, 42 and -7: uniform (two ranges), normal,
 * exponential, laplace, logistic, gumbel (modes low and high), cauchy,
 * truncated_normal and rademacher in f16 and bf16, randint in i8, u8, i16,
 * u16 and u32 (an ordinary range, the whole range and past it, an empty
 * one) and rademacher in those integers. Each case is compared eagerly,
 * under cj_jit with each backend and under cj_vmap over the three keys;
 * most must be JAX's bits, the rest within the ulps listed per case (what
 * was measured, and docs/API.md gives). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjax.h"
#include "harness.h"
#include "test_util.h"

#define N_KEYS 3
static const int64_t SEEDS[N_KEYS] = {0, 42, -7};

typedef enum kind {
    K_UNIFORM, K_UNIFORM_AB, K_NORMAL, K_EXP, K_LAPLACE, K_LOGISTIC, K_GUMBEL, K_GUMBEL_HIGH, K_CAUCHY, K_TNORMAL,
    K_RADEMACHER, K_RANDINT
} kind;

typedef struct rcase {
    kind k;
    const char *name; /* member stem: <name>_<dtype>_<shape>_s<i> */
    cj_dtype dtype;
    int64_t lo, hi;   /* randint's bounds */
    int64_t max_ulp;  /* 0: bit for bit */
} rcase;

typedef struct rshape {
    const char *name;
    int rank;
    int64_t dims[2];
} rshape;

static const rshape SHAPES[3] = {{"5", 1, {5}}, {"3x4", 2, {3, 4}}, {"1000", 1, {1000}}};

static cj_val draw(cj_ctx *ctx, cj_val key, const rcase *c, const rshape *s) {
    cj_dtype dt = c->dtype;
    int r = s->rank;
    const int64_t *d = s->dims;
    switch (c->k) {
    case K_UNIFORM: return cj_random_uniform(key, dt, r, d, 0.0, 1.0);
    case K_UNIFORM_AB: return cj_random_uniform(key, dt, r, d, -3.1, 0.7);
    case K_NORMAL: return cj_random_normal(key, dt, r, d);
    case K_EXP: return cj_random_exponential(key, dt, r, d);
    case K_LAPLACE: return cj_random_laplace(key, dt, r, d);
    case K_LOGISTIC: return cj_random_logistic(key, dt, r, d);
    case K_GUMBEL: return cj_random_gumbel(key, dt, r, d);
    case K_GUMBEL_HIGH: return cj_random_gumbel_mode(key, dt, r, d, "high");
    case K_CAUCHY: return cj_random_cauchy(key, dt, r, d);
    case K_TNORMAL: return cj_random_truncated_normal(key, cj_scalar(ctx, -1.5), cj_scalar(ctx, 2.0), dt, r, d);
    case K_RADEMACHER: return cj_random_rademacher(key, dt, r, d);
    case K_RANDINT: return cj_random_randint(key, r, d, c->lo, c->hi, dt);
    }
    return (cj_val){0};
}

static const char *dtype_tag(cj_dtype dt) {
    switch (dt) {
    case CJ_F16: return "f16";
    case CJ_BF16: return "bf16";
    case CJ_I8: return "i8";
    case CJ_U8: return "u8";
    case CJ_I16: return "i16";
    case CJ_U16: return "u16";
    case CJ_U32: return "u32";
    default: return "?";
    }
}

/* Float cases per narrow dtype, then integer cases; max_ulp as measured
 * over the fixtures (see docs/API.md). */
static int cases(rcase *out) {
    int n = 0;
    const cj_dtype fl[2] = {CJ_F16, CJ_BF16};
    for (int i = 0; i < 2; i++) {
        cj_dtype dt = fl[i];
        out[n++] = (rcase){K_UNIFORM, "uniform", dt, 0, 0, 0};
        out[n++] = (rcase){K_UNIFORM_AB, "uniform_ab", dt, 0, 0, 0};
        out[n++] = (rcase){K_NORMAL, "normal", dt, 0, 0, 0};
        out[n++] = (rcase){K_EXP, "exponential", dt, 0, 0, 0};
        out[n++] = (rcase){K_LAPLACE, "laplace", dt, 0, 0, 0};
        out[n++] = (rcase){K_LOGISTIC, "logistic", dt, 0, 0, 0};
        out[n++] = (rcase){K_GUMBEL, "gumbel", dt, 0, 0, 0};
        out[n++] = (rcase){K_GUMBEL_HIGH, "gumbel_high", dt, 0, 0, 0};
        out[n++] = (rcase){K_CAUCHY, "cauchy", dt, 0, 0, 0};
        out[n++] = (rcase){K_TNORMAL, "tnormal", dt, 0, 0, 0};
        out[n++] = (rcase){K_RADEMACHER, "rademacher", dt, 0, 0, 0};
    }
    static const struct { cj_dtype dt; const char *name[3]; int64_t lo[3], hi[3]; } ints[5] = {
        {CJ_I8, {"randint_a", "randint_full", "randint_empty"}, {-5, -128, 10}, {17, 128, 3}},
        {CJ_U8, {"randint_a", "randint_full", "randint_empty"}, {3, 0, 7}, {200, 256, 7}},
        {CJ_I16, {"randint_a", "randint_full", "randint_empty"}, {-1000, -32768, 5}, {1000, 32768, -5}},
        {CJ_U16, {"randint_a", "randint_full", "randint_empty"}, {100, 0, 9}, {60000, 65536, 1}},
        {CJ_U32, {"randint_a", "randint_big", "randint_empty"}, {5, 0, 9}, {1000000, 2147483647, 1}},
    };
    for (int i = 0; i < 5; i++) {
        for (int j = 0; j < 3; j++) out[n++] = (rcase){K_RANDINT, ints[i].name[j], ints[i].dt, ints[i].lo[j], ints[i].hi[j], 0};
        out[n++] = (rcase){K_RADEMACHER, "rademacher", ints[i].dt, 0, 0, 0};
    }
    return n;
}

static cj_val load(cj_ctx *ctx, const rcase *c, const rshape *s, int i) {
    char path[512], name[128];
    snprintf(path, sizeof path, "%s/random_narrow/random_narrow.npz", CJAX_TEST_DATA_DIR);
    snprintf(name, sizeof name, "%s_%s_%s_s%d", c->name, dtype_tag(c->dtype), s->name, i);
    return cj_load_npz_member(ctx, path, name);
}

typedef struct draw_fn {
    const rcase *c;
    const rshape *s;
} draw_fn;

static void draw_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    const draw_fn *u = user;
    out[0] = draw(ctx, in[0], u->c, u->s);
}

/* mode 0 eager, 1 jit interp, 2 jit cc, 3 vmap over the keys, 4 jit(vmap) cc */
static void check_mode(int mode) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    rcase cs[64];
    int n = cases(cs);
    uint32_t kd[N_KEYS * 2];
    for (int i = 0; i < N_KEYS; i++) cj_read(cj_random_key(ctx, SEEDS[i]), &kd[2 * i], 8);
    int64_t bd[2] = {N_KEYS, 2};
    cj_val batch = cj_array(ctx, CJ_U32, 2, bd, kd);
    for (int ci = 0; ci < n; ci++) {
        const rcase *c = &cs[ci];
        for (int si = 0; si < 3; si++) {
            const rshape *s = &SHAPES[si];
            int only_first = si == 2; /* the 1000-value streams: seed 0 only */
            if (mode >= 3 && only_first) continue;
            draw_fn u = {c, s};
            cj_func *f = cj_func_new(ctx, "draw", draw_body, 1, 1, &u);
            if (mode >= 3) f = cj_vmap(f, NULL);
            cj_jit_opts jo = {.backend = mode == 1 ? CJ_BACKEND_INTERP : CJ_BACKEND_CC};
            if (mode == 1 || mode == 2 || mode == 4) f = cj_jit(f, &jo);
            cj_val all = {0};
            if (mode >= 3) CHECK_MSG(cj_call(f, &batch, &all) == CJ_OK, "%s: %s", c->name, cj_error_message(ctx));
            for (int i = 0; i < (only_first ? 1 : N_KEYS); i++) {
                char why[160];
                cj_val key = cj_random_key(ctx, SEEDS[i]), got;
                if (mode == 0) {
                    got = draw(ctx, key, c, s);
                } else if (mode < 3) {
                    CHECK_MSG(cj_call(f, &key, &got) == CJ_OK, "%s: %s", c->name, cj_error_message(ctx));
                } else {
                    int64_t dims[8], lo[8] = {0};
                    cj_val_shape(all, dims);
                    lo[0] = i;
                    dims[0] = i + 1;
                    got = cj_squeeze(cj_slice(all, lo, dims, NULL), 1, (const int64_t[]){0});
                }
                int64_t worst = 0;
                CHECK_MSG(tu_match_ulp(got, load(ctx, c, s, i), c->max_ulp, why, sizeof why, &worst),
                          "mode %d %s %s %s seed %d: %s (%s)", mode, c->name, dtype_tag(c->dtype), s->name, i, why,
                          cj_error_message(ctx));
            }
            cj_func_free(f);
        }
    }
    CHECK_MSG(cj_error(ctx) == CJ_OK, "%s", cj_error_message(ctx));
    cj_ctx_free(ctx);
}

TEST(random_narrow_match_jax_eager) { check_mode(0); }
TEST(random_narrow_match_jax_under_jit) { check_mode(1); }
TEST(random_narrow_match_jax_under_jit_cc) { check_mode(2); }
TEST(random_narrow_match_jax_under_vmap_over_keys) { check_mode(3); }
TEST(random_narrow_match_jax_under_jit_of_vmap) { check_mode(4); }

/* The narrow floats keep their law: 20,000 f16 and bf16 uniforms in [0, 1)
 * are multiples of 2^-10 (f16) or 2^-7 (bf16), and their mean is 1/2 within
 * a few standard errors (the grid's mean is 1/2 - 2^-11 or 2^-8). */
TEST(random_narrow_uniform_grid_and_mean) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t n = 20000;
    const cj_dtype dts[2] = {CJ_F16, CJ_BF16};
    for (int t = 0; t < 2; t++) {
        double step = dts[t] == CJ_F16 ? 1.0 / 1024 : 1.0 / 128;
        double *v = tu_read_f64(cj_random_uniform(cj_random_key(ctx, 11), dts[t], 1, &n, 0.0, 1.0));
        CHECK(v != NULL);
        double sum = 0;
        int off_grid = 0, out = 0;
        for (int64_t i = 0; i < n; i++) {
            sum += v[i];
            off_grid += v[i] / step != (double)(int64_t)(v[i] / step);
            out += v[i] < 0 || v[i] >= 1;
        }
        free(v);
        CHECK_MSG(off_grid == 0 && out == 0, "%s: %d off the grid, %d outside [0, 1)", cj_dtype_name(dts[t]), off_grid,
                  out);
        double mean = sum / (double)n, want = 0.5 - step / 2;
        CHECK_MSG(mean > want - 0.01 && mean < want + 0.01, "%s: mean %g, want %g", cj_dtype_name(dts[t]), mean, want);
    }
    cj_ctx_free(ctx);
}

TEST(random_narrow_rejects_what_jax_rejects) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t n = 4;
    cj_val key = cj_random_key(ctx, 0);
    cj_val v = cj_random_randint(key, 1, &n, 0, 10, CJ_U64);
    CHECK(cj_error(ctx) == CJ_ERR_DTYPE);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "random_randint: dtype must be i8, i16, i32, i64, u8, u16 or u32, got u64");
    cj_error_clear(ctx);
    v = cj_random_normal(key, CJ_I8, 1, &n);
    CHECK(cj_error(ctx) == CJ_ERR_DTYPE);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "random_normal: dtype must be f16, bf16, f32 or f64, got i8");
    cj_error_clear(ctx);
    v = cj_random_gamma(key, cj_scalar(ctx, 2.0), CJ_F16, 1, &n);
    CHECK(cj_error(ctx) == CJ_ERR_DTYPE);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "f16/bf16 are not supported by this sampler yet");
    cj_error_clear(ctx);
    v = cj_random_rademacher(key, CJ_BOOL, 1, &n);
    CHECK(cj_error(ctx) == CJ_ERR_DTYPE);
    cj_error_clear(ctx);
    (void)v;
    cj_ctx_free(ctx);
}
