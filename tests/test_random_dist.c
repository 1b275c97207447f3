/* test_random_dist.c — the samplers of src/api/random_dist.c against JAX.
 *
 * The fixtures (tests/data/random/d_*.npy) were written by jax.random itself
 * (tests/data/gen_random2_fixtures.py; not run here) for seeds 0, 42 and -7,
 * f32 (JAX's defaults) and f64 (x64 mode on the same keys). Each case is
 * compared eagerly, under cj_jit with each backend, and under cj_vmap over
 * the three keys (each row must equal its own key's fixture). Integer
 * results and the f32 samplers built on XLA's log/log1p must be identical
 * bit for bit; the rest within the ulps measured and listed per case below
 * (the same limits docs/API.md gives). multivariate_normal's derivative in
 * mean and cov is checked against central finite differences. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cjax.h"
#include "harness.h"
#include "test_util.h"

#define N_KEYS 3
static const int64_t SEEDS[N_KEYS] = {0, 42, -7};
static const int SEED_IDX[N_KEYS] = {0, 2, 4};

static const double LOGITS[15] = {0.5, -1.0, 2.0, 0.0, 1.5, 3.0, 3.0, -2.0, 0.25, -0.5, -1.0, 0.0, 1.0, 2.0, -3.0};
static const double COV[9] = {2.0, 0.6, -0.4, 0.6, 1.5, 0.3, -0.4, 0.3, 1.0};
static const double MEAN[3] = {1.0, -2.0, 0.5};
static const double P[5] = {0.1, 0.4, 0.05, 0.25, 0.2};

typedef enum kind {
    K_EXP, K_LAPLACE, K_LOGISTIC, K_GUMBEL, K_CAUCHY, K_RADEMACHER, K_TNORMAL, K_TNORMAL_BCAST, K_TNORMAL_NONE,
    K_CAT_LAST, K_CAT_AXIS0, K_CAT_SHAPE, K_CAT_NOREP, K_MVN_CHOL, K_MVN_EIGH, K_MVN_SVD, K_ORTHO4, K_ORTHO3B2,
    K_RADEMACHER_I32, K_CHOICE_N_REP, K_CHOICE_N_NOREP, K_CHOICE_P_REP, K_CHOICE_P_NOREP, K_CHOICE_ARR0,
    K_CHOICE_ARR1_NOREP
} kind;

typedef struct rcase {
    kind k;
    const char *name; /* fixture stem: d_<name>_s<i>_<dtype> */
    int rank;
    int64_t dims[2];
    cj_dtype dtype;   /* the float dtype; f32 only for the integer-valued cases */
    int64_t max_ulp;  /* 0: bit for bit */
} rcase;

static cj_val arr(cj_ctx *ctx, cj_dtype dt, int rank, const int64_t *dims, const double *v) {
    return cj_astype(cj_array(ctx, CJ_F64, rank, dims, v), dt);
}

static cj_val draw(cj_ctx *ctx, cj_val key, const rcase *c) {
    cj_dtype dt = c->dtype;
    int r = c->rank;
    const int64_t *d = c->dims;
    int64_t l35[2] = {3, 5}, n3 = 3, n3x3[2] = {3, 3}, n4 = 4, n5 = 5;
    switch (c->k) {
    case K_EXP: return cj_random_exponential(key, dt, r, d);
    case K_LAPLACE: return cj_random_laplace(key, dt, r, d);
    case K_LOGISTIC: return cj_random_logistic(key, dt, r, d);
    case K_GUMBEL: return cj_random_gumbel(key, dt, r, d);
    case K_CAUCHY: return cj_random_cauchy(key, dt, r, d);
    case K_RADEMACHER: return cj_random_rademacher(key, dt, r, d);
    case K_RADEMACHER_I32: return cj_random_rademacher(key, CJ_I32, r, d);
    case K_TNORMAL:
        return cj_random_truncated_normal(key, cj_scalar(ctx, -1.5), cj_scalar(ctx, 2.0), dt, r, d);
    case K_TNORMAL_BCAST: {
        const double lo[4] = {-2.0, -0.5, 0.0, 1.0};
        return cj_random_truncated_normal(key, arr(ctx, dt, 1, &n4, lo), cj_scalar(ctx, 2.5), dt, r, d);
    }
    case K_TNORMAL_NONE: {
        const double lo[4] = {-2.0, -0.5, 0.0, 1.0}, hi[4] = {0.0, 0.5, 3.0, 1.5};
        return cj_random_truncated_normal(key, arr(ctx, dt, 1, &n4, lo), arr(ctx, dt, 1, &n4, hi), dt, -1, NULL);
    }
    case K_CAT_LAST: return cj_random_categorical(key, arr(ctx, dt, 2, l35, LOGITS), -1, -1, NULL, 1);
    case K_CAT_AXIS0: return cj_random_categorical(key, arr(ctx, dt, 2, l35, LOGITS), 0, -1, NULL, 1);
    case K_CAT_SHAPE: return cj_random_categorical(key, arr(ctx, dt, 2, l35, LOGITS), -1, r, d, 1);
    case K_CAT_NOREP: return cj_random_categorical(key, arr(ctx, dt, 2, l35, LOGITS), -1, r, d, 0);
    case K_MVN_CHOL:
    case K_MVN_EIGH:
    case K_MVN_SVD: {
        const char *m = c->k == K_MVN_CHOL ? "cholesky" : c->k == K_MVN_EIGH ? "eigh" : "svd";
        return cj_random_multivariate_normal(key, arr(ctx, dt, 1, &n3, MEAN), arr(ctx, dt, 2, n3x3, COV), dt, r, d,
                                             m);
    }
    case K_ORTHO4: return cj_random_orthogonal(key, 4, dt, 0, NULL);
    case K_ORTHO3B2: return cj_random_orthogonal(key, 3, dt, r, d);
    case K_CHOICE_N_REP: return cj_random_choice(key, 10, r, d, 1, (cj_val){0});
    case K_CHOICE_N_NOREP: return cj_random_choice(key, 10, r, d, 0, (cj_val){0});
    case K_CHOICE_P_REP: return cj_random_choice(key, 5, r, d, 1, arr(ctx, CJ_F32, 1, &n5, P));
    case K_CHOICE_P_NOREP: return cj_random_choice(key, 5, r, d, 0, arr(ctx, CJ_F32, 1, &n5, P));
    case K_CHOICE_ARR0:
    case K_CHOICE_ARR1_NOREP: {
        int64_t ad[2] = {5, 3};
        cj_val a = cj_reshape(cj_arange(ctx, 0, 15, 1, CJ_I32), 2, ad);
        return c->k == K_CHOICE_ARR0 ? cj_random_choice_array(key, a, 0, r, d, 1, (cj_val){0})
                                     : cj_random_choice_array(key, a, 1, r, d, 0, (cj_val){0});
    }
    }
    return cj_random_bits(key, -1, NULL);
}

/* The measured limits (ulp; 0 = bit for bit). */
#define F64_LOG_ULP 4    /* cjax's log in place of the C library's */
#define CAUCHY_ULP 8     /* cjax's tan in place of XLA's */
#define TNORMAL_ULP 128  /* cjax's erf moves the bounds of the uniform */
#define GUMBEL_F64_ULP 256 /* the outer log magnifies the inner one's last bit */
#define LINALG_ULP 1024  /* cholesky/eigh/svd/qr: another algorithm's rounding */

static int cases(rcase *out) {
    int n = 0;
    static const struct { const char *name; int rank; int64_t dims[2]; } shapes[3] = {
        {"5", 1, {5}}, {"3x4", 2, {3, 4}}, {"1000", 1, {1000}}};
    for (int f = 0; f < 2; f++) {
        cj_dtype dt = f ? CJ_F64 : CJ_F32;
        for (int s = 0; s < 3; s++) {
            const int r = shapes[s].rank;
            const int64_t d0 = shapes[s].dims[0], d1 = shapes[s].dims[1];
            out[n++] = (rcase){K_EXP, "exponential", r, {d0, d1}, dt, f ? F64_LOG_ULP : 0};
            out[n++] = (rcase){K_LAPLACE, "laplace", r, {d0, d1}, dt, f ? F64_LOG_ULP : 0};
            out[n++] = (rcase){K_LOGISTIC, "logistic", r, {d0, d1}, dt, f ? F64_LOG_ULP : 0};
            out[n++] = (rcase){K_GUMBEL, "gumbel", r, {d0, d1}, dt, f ? GUMBEL_F64_ULP : 0};
            out[n++] = (rcase){K_CAUCHY, "cauchy", r, {d0, d1}, dt, CAUCHY_ULP};
            out[n++] = (rcase){K_RADEMACHER, "rademacher", r, {d0, d1}, dt, 0};
            out[n++] = (rcase){K_TNORMAL, "tnormal", r, {d0, d1}, dt, TNORMAL_ULP};
        }
        out[n++] = (rcase){K_TNORMAL_BCAST, "tnormal_bcast", 2, {3, 4}, dt, TNORMAL_ULP};
        out[n++] = (rcase){K_TNORMAL_NONE, "tnormal_none", -1, {0}, dt, TNORMAL_ULP};
        out[n++] = (rcase){K_CAT_LAST, "categorical_last", -1, {0}, dt, 0};
        out[n++] = (rcase){K_CAT_AXIS0, "categorical_axis0", -1, {0}, dt, 0};
        out[n++] = (rcase){K_CAT_SHAPE, "categorical_shape", 2, {4, 3}, dt, 0};
        out[n++] = (rcase){K_CAT_NOREP, "categorical_norep", 2, {2, 3}, dt, 0};
        out[n++] = (rcase){K_MVN_CHOL, "mvn_cholesky", 1, {6}, dt, LINALG_ULP};
        out[n++] = (rcase){K_ORTHO4, "orthogonal_4", 0, {0}, dt, LINALG_ULP};
        out[n++] = (rcase){K_ORTHO3B2, "orthogonal_3b2", 1, {2}, dt, LINALG_ULP};
    }
    out[n++] = (rcase){K_RADEMACHER_I32, "rademacher_i32", 2, {3, 4}, CJ_F32, 0};
    out[n++] = (rcase){K_CHOICE_N_REP, "choice_n_rep", 1, {4}, CJ_F32, 0};
    out[n++] = (rcase){K_CHOICE_N_NOREP, "choice_n_norep", 2, {2, 3}, CJ_F32, 0};
    out[n++] = (rcase){K_CHOICE_P_REP, "choice_p_rep", 1, {8}, CJ_F32, 0};
    out[n++] = (rcase){K_CHOICE_P_NOREP, "choice_p_norep", 1, {3}, CJ_F32, 0};
    out[n++] = (rcase){K_CHOICE_ARR0, "choice_arr_axis0", 1, {2}, CJ_F32, 0};
    out[n++] = (rcase){K_CHOICE_ARR1_NOREP, "choice_arr_axis1_norep", 1, {2}, CJ_F32, 0};
    return n;
}

/* The fixture name of case c for key index i; NULL when there is none
 * (the 1000-value streams exist for seed 0 only). */
static const char *fixture(const rcase *c, int i, char *buf, size_t size) {
    int integer = c->k >= K_RADEMACHER_I32;
    int is1000 = c->rank == 1 && c->dims[0] == 1000;
    if (is1000 && i != 0) return NULL;
    char shape[16] = "";
    if (c->k <= K_TNORMAL) snprintf(shape, sizeof shape, "_%s", c->rank == 2 ? "3x4" : is1000 ? "1000" : "5");
    if (integer)
        snprintf(buf, size, "d_%s_s%d", c->name, SEED_IDX[i]);
    else
        snprintf(buf, size, "d_%s%s_s%d_%s", c->name, shape, SEED_IDX[i], c->dtype == CJ_F64 ? "f64" : "f32");
    return buf;
}

static cj_val load(cj_ctx *ctx, const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/random/%s.npy", CJAX_TEST_DATA_DIR, name);
    return cj_load_npy(ctx, path);
}


typedef struct draw_fn {
    const rcase *c;
} draw_fn;

static void draw_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    out[0] = draw(ctx, in[0], ((const draw_fn *)user)->c);
}

/* mode 0 eager, 1 jit interp, 2 jit cc, 3 vmap over the keys, 4 jit(vmap) cc */
static void check_mode(int mode) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    rcase cs[128];
    int n = cases(cs);
    int32_t kd[N_KEYS * 2];
    for (int i = 0; i < N_KEYS; i++) cj_read(cj_random_key(ctx, SEEDS[i]), &kd[2 * i], 8);
    int64_t bd[2] = {N_KEYS, 2};
    cj_val batch = cj_array(ctx, CJ_I32, 2, bd, kd);
    for (int ci = 0; ci < n; ci++) {
        const rcase *c = &cs[ci];
        if (mode >= 3 && c->rank == 1 && c->dims[0] == 1000) continue; /* one key only */
        draw_fn u = {c};
        cj_func *f = cj_func_new(ctx, "draw", draw_body, 1, 1, &u);
        if (mode >= 3) f = cj_vmap(f, NULL);
        cj_jit_opts jo = {.backend = mode == 1 ? CJ_BACKEND_INTERP : CJ_BACKEND_CC};
        if (mode == 1 || mode == 2 || mode == 4) f = cj_jit(f, &jo);
        cj_val all = {0};
        if (mode >= 3) CHECK_MSG(cj_call(f, &batch, &all) == CJ_OK, "%s: %s", c->name, cj_error_message(ctx));
        for (int i = 0; i < N_KEYS; i++) {
            char name[128], why[160];
            if (!fixture(c, i, name, sizeof name)) continue;
            cj_val key = cj_random_key(ctx, SEEDS[i]), got;
            if (mode == 0) {
                got = draw(ctx, key, c);
            } else if (mode < 3) {
                CHECK_MSG(cj_call(f, &key, &got) == CJ_OK, "%s: %s", name, cj_error_message(ctx));
            } else {
                int64_t dims[8], lo[8] = {0};
                cj_val_shape(all, dims);
                lo[0] = i;
                dims[0] = i + 1;
                got = cj_squeeze(cj_slice(all, lo, dims, NULL), 1, (const int64_t[]){0});
            }
            CHECK_MSG(tu_match_ulp(got, load(ctx, name), c->max_ulp, why, sizeof why, NULL), "mode %d %s: %s (%s)", mode, name,
                      why, cj_error_message(ctx));
        }
        cj_func_free(f);
    }
    CHECK_MSG(cj_error(ctx) == CJ_OK, "%s", cj_error_message(ctx));
    cj_ctx_free(ctx);
}

TEST(random_dist_match_jax_eager) { check_mode(0); }
TEST(random_dist_match_jax_under_jit) { check_mode(1); }
TEST(random_dist_match_jax_under_jit_cc) { check_mode(2); }
TEST(random_dist_match_jax_under_vmap_over_keys) { check_mode(3); }
TEST(random_dist_match_jax_under_jit_of_vmap) { check_mode(4); }

/* ---- multivariate_normal: methods eigh and svd, and the derivative ---- */

/* eigh and svd choose each eigenvector's sign as their algorithm does, so
 * their draws are not JAX's (LAPACK's signs); what must hold is the law:
 * over 20000 draws the sample mean and covariance are MEAN and COV within
 * a few standard errors (about 0.01 and 0.02 here). */
TEST(random_mvn_eigh_svd_have_the_requested_moments) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t n3 = 3, n3x3[2] = {3, 3}, draws = 20000;
    const char *methods[2] = {"eigh", "svd"};
    for (int mi = 0; mi < 2; mi++) {
        cj_val x = cj_random_multivariate_normal(cj_random_key(ctx, 5), arr(ctx, CJ_F64, 1, &n3, MEAN),
                                                 arr(ctx, CJ_F64, 2, n3x3, COV), CJ_F64, 1, &draws, methods[mi]);
        double *v = malloc(sizeof(double) * 3 * (size_t)draws);
        CHECK(v && cj_read(x, v, sizeof(double) * 3 * (size_t)draws) == CJ_OK);
        double m[3] = {0};
        for (int64_t i = 0; i < draws; i++)
            for (int j = 0; j < 3; j++) m[j] += v[3 * i + j] / (double)draws;
        for (int j = 0; j < 3; j++) CHECK_NEAR(m[j], MEAN[j], 0, 0.05);
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) {
                double c = 0;
                for (int64_t i = 0; i < draws; i++) c += (v[3 * i + a] - m[a]) * (v[3 * i + b] - m[b]);
                CHECK_NEAR(c / (double)(draws - 1), COV[3 * a + b], 0, 0.1);
            }
        free(v);
    }
    CHECK(cj_error(ctx) == CJ_OK);
    cj_ctx_free(ctx);
}

/* sum(w * multivariate_normal(key, mean, cov)) for fixed weights w. */
static void mvn_loss(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    int64_t four = 4;
    cj_val x = cj_random_multivariate_normal(cj_random_key(ctx, 11), in[0], in[1], CJ_F64, 1, &four, NULL);
    cj_val w = cj_reshape(cj_arange(ctx, 1, 13, 1, CJ_F64), 2, (const int64_t[]){4, 3});
    out[0] = cj_sum(cj_mul(x, cj_sin(w)), -1, NULL, 0);
}

TEST(random_mvn_grad_matches_finite_differences) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t n3 = 3, n3x3[2] = {3, 3};
    cj_val in[2] = {arr(ctx, CJ_F64, 1, &n3, MEAN), arr(ctx, CJ_F64, 2, n3x3, COV)};
    cj_func *f = cj_func_new(ctx, "mvn_loss", mvn_loss, 2, 1, NULL);
    const int argnums[2] = {0, 1};
    cj_grad_opts go = {.n_argnums = 2, .argnums = argnums};
    cj_func *g = cj_grad(f, &go);
    cj_val grads[2];
    CHECK_MSG(cj_call(g, in, grads) == CJ_OK, "%s", cj_error_message(ctx));
    double gm[3], gc[9];
    CHECK(cj_read(grads[0], gm, sizeof gm) == CJ_OK && cj_read(grads[1], gc, sizeof gc) == CJ_OK);
    const double h = 1e-6;
    for (int which = 0; which < 2; which++) {
        int n = which ? 9 : 3;
        for (int k = 0; k < n; k++) {
            double base[9], vals[2];
            memcpy(base, which ? COV : MEAN, sizeof(double) * (size_t)n);
            for (int s = 0; s < 2; s++) {
                double p[9];
                memcpy(p, base, sizeof p);
                /* cov's derivative is taken through cholesky's symmetric
                 * reading: perturb the pair (k, k^T) together, halved */
                if (which) {
                    int i = k / 3, j = k % 3;
                    p[3 * i + j] += (s ? h : -h) * (i == j ? 1.0 : 0.5);
                    if (i != j) p[3 * j + i] += (s ? h : -h) * 0.5;
                } else {
                    p[k] += s ? h : -h;
                }
                cj_val args[2] = {which ? in[0] : arr(ctx, CJ_F64, 1, &n3, p), which ? arr(ctx, CJ_F64, 2, n3x3, p) : in[1]};
                cj_val y;
                CHECK(cj_call(f, args, &y) == CJ_OK);
                CHECK(cj_item(y, &vals[s]) == CJ_OK);
            }
            double fd = (vals[1] - vals[0]) / (2 * h);
            double an;
            if (which) {
                int i = k / 3, j = k % 3;
                an = i == j ? gc[k] : 0.5 * (gc[3 * i + j] + gc[3 * j + i]);
            } else {
                an = gm[k];
            }
            CHECK_MSG(fabs(fd - an) <= 1e-5 * (1 + fabs(fd)), "%s[%d]: grad %.9g, finite difference %.9g",
                      which ? "cov" : "mean", k, an, fd);
        }
    }
    CHECK(cj_error(ctx) == CJ_OK);
    cj_ctx_free(ctx);
}

/* ---- errors ---- */

static void expect_error(cj_ctx *ctx, cj_val v, cj_status code, const char *needle) {
    CHECK(cj_is_error(v));
    CHECK_MSG(cj_error(ctx) == code, "%s: %s", cj_status_name(cj_error(ctx)), cj_error_message(ctx));
    CHECK_STR_CONTAINS(cj_error_message(ctx), needle);
    cj_error_clear(ctx);
}

TEST(random_dist_rejects_bad_arguments) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val key = cj_random_key(ctx, 0);
    int64_t three = 3, four = 4, n3x3[2] = {3, 3}, l35[2] = {3, 5}, s24[2] = {2, 4};
    expect_error(ctx, cj_random_exponential(key, CJ_I32, 1, &three), CJ_ERR_DTYPE, "random_exponential: dtype");
    expect_error(ctx, cj_random_gumbel(cj_zeros(ctx, CJ_F32, 1, &three), CJ_F32, 0, NULL), CJ_ERR_DTYPE,
                 "random_gumbel: a key must be u32[2]");
    expect_error(ctx, cj_random_rademacher(key, CJ_BOOL, 0, NULL), CJ_ERR_DTYPE, "random_rademacher: dtype");
    expect_error(ctx,
                 cj_random_truncated_normal(key, cj_zeros(ctx, CJ_F32, 1, &three), cj_scalar(ctx, 1), CJ_F32, 1, &four),
                 CJ_ERR_SHAPE, "random_truncated_normal: parameter f32[3]");
    cj_val logits = cj_zeros(ctx, CJ_F32, 2, l35);
    expect_error(ctx, cj_random_categorical(key, logits, 2, -1, NULL, 1), CJ_ERR_AXIS, "");
    expect_error(ctx, cj_random_categorical(key, logits, -1, 2, s24, 1), CJ_ERR_SHAPE, "batch shape");
    expect_error(ctx, cj_random_categorical(key, logits, -1, 2, (const int64_t[]){6, 3}, 0), CJ_ERR_ARG,
                 "exceed 5 categories");
    expect_error(ctx, cj_random_choice(key, 3, 1, &four, 0, (cj_val){0}), CJ_ERR_ARG, "larger sample (4)");
    expect_error(ctx, cj_random_choice(key, 0, 1, &four, 1, (cj_val){0}), CJ_ERR_ARG, "population must be > 0");
    expect_error(ctx, cj_random_choice(key, 4, 1, &three, 1, cj_ones(ctx, CJ_F32, 1, &three)), CJ_ERR_SHAPE,
                 "p must be f32 or f64 of shape [4]");
    expect_error(ctx, cj_random_choice_array(key, cj_scalar(ctx, 2), 0, 1, &three, 1, (cj_val){0}), CJ_ERR_SHAPE,
                 "at least 1-D");
    expect_error(ctx,
                 cj_random_multivariate_normal(key, cj_zeros(ctx, CJ_F32, 1, &four), cj_zeros(ctx, CJ_F32, 2, n3x3),
                                               CJ_F32, -1, NULL, NULL),
                 CJ_ERR_SHAPE, "mean [..., n] and cov [..., n, n], got f32[4] and f32[3,3]");
    expect_error(ctx,
                 cj_random_multivariate_normal(key, cj_zeros(ctx, CJ_F32, 1, &three), cj_zeros(ctx, CJ_F32, 2, n3x3),
                                               CJ_F32, -1, NULL, "lu"),
                 CJ_ERR_ARG, "method must be cholesky, eigh or svd");
    expect_error(ctx, cj_random_orthogonal(key, -1, CJ_F32, 0, NULL), CJ_ERR_ARG, "n must be >= 0");
    /* no samples: an empty result, as JAX's zeros(shape) */
    int64_t zero = 0;
    cj_val e = cj_random_choice(key, 0, 1, &zero, 0, (cj_val){0});
    CHECK(!cj_is_error(e) && cj_val_size(e) == 0);
    CHECK(cj_error(ctx) == CJ_OK);
    cj_ctx_free(ctx);
}
