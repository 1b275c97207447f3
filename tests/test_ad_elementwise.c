/* test_ad_elementwise.c — the jvp and transpose rules of the elementwise
 * primitives (src/autodiff/rules_elementwise.c).
 *
 * Every elementwise primitive's jvp rule is checked against central finite
 * differences (tests/ad_check.c) in f64, on shapes rank 0, [1], [3,4] and
 * [2,1,3], with rank-0 operands on either side, and with each operand's
 * tangent present or a symbolic zero; all-zero tangents must come back as a
 * symbolic zero. Each transpose rule passes the dot-product test for every
 * choice of linear operands. Closed-form checks pin JAX's conventions where
 * a finite difference cannot (ties in max/min, abs at 0, pow at y == 0 and
 * x == 0, clamp at its bounds), and f32 inputs keep f32 tangents at the
 * result's shape. */
#include <stdlib.h>

#include "ad_check.h"
#include "harness.h"

#define JVP_TOL 1e-6
#define TRANSPOSE_TOL 1e-12

typedef struct shape {
    int rank;
    int64_t dims[3];
} shape;

static const shape SCALAR = {0, {0}};
static const shape MATRIX = {2, {3, 4}};
static const shape UNARY_SHAPES[] = {{0, {0}}, {1, {1}}, {2, {3, 4}}, {3, {2, 1, 3}}};

static cj_val uniform(cj_ctx *ctx, shape s, double lo, double hi, uint64_t *seed) {
    return adc_uniform(ctx, s.rank, s.dims, lo, hi, seed);
}

static cj_val array1(cj_ctx *ctx, int64_t n, const double *v) { return cj_array(ctx, CJ_F64, 1, &n, v); }

/* Calls prim's jvp rule with every tangent a symbolic zero: it must give a
 * symbolic zero without an error. */
static int jvp_all_zero_is_symbolic(cj_ctx *ctx, prim_id prim, const prim_params *p, int n, const cj_val *in) {
    cj_val out = core_bind(ctx, prim, p, n, in);
    cj_val tin[3] = {{ctx, 0, 0}, {ctx, 0, 0}, {ctx, 0, 0}};
    cj_val tout = out; /* anything but zero, to see it overwritten */
    int rc = prim_rules[prim].jvp(ctx, prim, p, n, in, tin, out, &tout);
    return rc == 0 && tout.slot == 0 && !cj_error(ctx);
}

/* The rule's tangent of prim at `in` for tangents `tin` (slot 0: zero). */
static cj_val rule_tangent(cj_ctx *ctx, prim_id prim, const prim_params *p, int n, const cj_val *in,
                           const cj_val *tin) {
    cj_val out = core_bind(ctx, prim, p, n, in);
    cj_val tout = {ctx, 0, 0};
    if (prim_rules[prim].jvp(ctx, prim, p, n, in, tin, out, &tout) != 0) return (cj_val){ctx, 0, 0};
    return tout.slot ? tout : cj_zeros_like(out);
}

/* Element i of a rule's tangent, read as f64 (NaN on failure). */
static double tangent_at(cj_ctx *ctx, prim_id prim, const prim_params *p, int n, const cj_val *in,
                         const cj_val *tin, int64_t i) {
    cj_val t = rule_tangent(ctx, prim, p, n, in, tin);
    int64_t size = cj_val_size(t);
    double *buf = malloc(sizeof(double) * (size_t)(size ? size : 1));
    double r = NAN;
    if (buf && i < size && cj_read_as(t, CJ_F64, buf, sizeof(double) * (size_t)size) == CJ_OK) r = buf[i];
    free(buf);
    return r;
}

static const cj_val NO_TANGENT = {NULL, 0, 0};

/* ---- coverage ---- */

TEST(ad_ew_every_primitive_has_rules) {
    cj_ctx *ctx = cj_ctx_new(NULL); /* registers every rule (src/init.c) */
    for (int i = 0; i < PRIM_COUNT; i++) {
        if (prim_families[i] != FAMILY_ELEMENTWISE) continue;
        CHECK_MSG(prim_rules[i].jvp != NULL, "%s has no jvp rule", prim_names[i]);
    }
    const prim_id linear[] = {PRIM_NEG, PRIM_ADD, PRIM_SUB, PRIM_MUL, PRIM_DIV, PRIM_CONVERT, PRIM_SELECT};
    for (size_t i = 0; i < sizeof linear / sizeof linear[0]; i++)
        CHECK_MSG(prim_rules[linear[i]].transpose != NULL, "%s has no transpose rule", prim_names[linear[i]]);
    cj_ctx_free(ctx);
}

/* ---- unary ---- */

typedef struct unary_case {
    prim_id prim;
    double lo, hi; /* the domain sampled: away from poles and kinks */
} unary_case;

static const unary_case UNARY[] = {
    {PRIM_NEG, -2, 2},      {PRIM_ABS, 0.2, 2},     {PRIM_ABS, -2, -0.2},    {PRIM_SIGN, -2, -0.2},
    {PRIM_SIGN, 0.2, 2},    {PRIM_FLOOR, 0.1, 0.9}, {PRIM_CEIL, 0.1, 0.9},   {PRIM_ROUND, 0.1, 0.4},
    {PRIM_EXP, -2, 2},      {PRIM_EXP2, -2, 2},     {PRIM_LOG, 0.2, 3},      {PRIM_LOG1P, -0.5, 2},
    {PRIM_EXPM1, -2, 2},    {PRIM_SQRT, 0.2, 3},    {PRIM_RSQRT, 0.2, 3},    {PRIM_CBRT, 0.2, 3},
    {PRIM_CBRT, -3, -0.2},  {PRIM_SIN, -3, 3},      {PRIM_COS, -3, 3},       {PRIM_TAN, -1.2, 1.2},
    {PRIM_ASIN, -0.9, 0.9}, {PRIM_ACOS, -0.9, 0.9}, {PRIM_ATAN, -3, 3},      {PRIM_SINH, -2, 2},
    {PRIM_COSH, -2, 2},     {PRIM_TANH, -2, 2},     {PRIM_LOGISTIC, -4, 4},  {PRIM_ERF, -2, 2},
    {PRIM_IS_FINITE, -2, 2},
};

TEST(ad_ew_unary_jvp_matches_finite_differences) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    prim_params p = prim_params_zero();
    uint64_t seed = 1;
    for (size_t c = 0; c < sizeof UNARY / sizeof UNARY[0]; c++) {
        for (size_t s = 0; s < sizeof UNARY_SHAPES / sizeof UNARY_SHAPES[0]; s++) {
            cj_val x = uniform(ctx, UNARY_SHAPES[s], UNARY[c].lo, UNARY[c].hi, &seed);
            double e = adc_prim_jvp_error(ctx, UNARY[c].prim, &p, 1, &x, (int[]){1}, seed);
            CHECK_MSG(e >= 0 && e < JVP_TOL, "%s on [%g, %g) rank %d: error %g", prim_names[UNARY[c].prim],
                      UNARY[c].lo, UNARY[c].hi, UNARY_SHAPES[s].rank, e);
            CHECK_MSG(jvp_all_zero_is_symbolic(ctx, UNARY[c].prim, &p, 1, &x), "%s: zero tangent not symbolic",
                      prim_names[UNARY[c].prim]);
        }
    }
    CHECK(!cj_error(ctx));
    cj_ctx_free(ctx);
}

TEST(ad_ew_not_has_zero_tangent) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    prim_params p = prim_params_zero();
    uint64_t seed = 2;
    cj_val x = cj_astype(uniform(ctx, MATRIX, -50, 50, &seed), CJ_I32);
    CHECK(adc_prim_jvp_error(ctx, PRIM_NOT, &p, 1, &x, (int[]){0}, seed) == 0);
    CHECK(jvp_all_zero_is_symbolic(ctx, PRIM_NOT, &p, 1, &x));
    cj_ctx_free(ctx);
}

/* ---- convert_element_type ---- */

TEST(ad_ew_convert_jvp) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 3;
    cj_val x = uniform(ctx, MATRIX, -2, 2, &seed);
    prim_params p = prim_params_zero();
    /* f64 → f64 (weak): finite differences apply */
    p.dtype = CJ_F64;
    p.weak = 1;
    double e = adc_prim_jvp_error(ctx, PRIM_CONVERT, &p, 1, &x, (int[]){1}, seed);
    CHECK_MSG(e >= 0 && e < JVP_TOL, "f64 -> f64: %g", e);
    CHECK(jvp_all_zero_is_symbolic(ctx, PRIM_CONVERT, &p, 1, &x));
    /* f64 → i32: no tangent */
    p.dtype = CJ_I32;
    p.weak = 0;
    CHECK(adc_prim_jvp_error(ctx, PRIM_CONVERT, &p, 1, &x, (int[]){1}, seed) == 0);
    /* f64 → f32 and f32 → f64: the tangent is the converted tangent, of
     * the result's dtype (finite differences in f32 are too coarse) */
    cj_dtype pairs[2][2] = {{CJ_F64, CJ_F32}, {CJ_F32, CJ_F64}};
    for (int k = 0; k < 2; k++) {
        cj_val xs = cj_astype(x, pairs[k][0]);
        cj_val t = cj_astype(uniform(ctx, MATRIX, -1, 1, &seed), pairs[k][0]);
        p.dtype = pairs[k][1];
        cj_val tout = rule_tangent(ctx, PRIM_CONVERT, &p, 1, &xs, &t);
        CHECK(tout.slot != 0);
        CHECK_EQ_INT(cj_val_dtype(tout), pairs[k][1]);
        cj_val want = cj_astype(t, pairs[k][1]);
        CHECK_NEAR(cj_item_or_nan(cj_sum(cj_abs(cj_sub(tout, want)), -1, NULL, 0)), 0, 0, 0);
    }
    CHECK(!cj_error(ctx));
    cj_ctx_free(ctx);
}

/* ---- binary ---- */

typedef struct binary_case {
    prim_id prim;
    double alo, ahi, blo, bhi;
} binary_case;

static const binary_case BINARY[] = {
    {PRIM_ADD, -2, 2, -2, 2},       {PRIM_SUB, -2, 2, -2, 2},       {PRIM_MUL, -2, 2, -2, 2},
    {PRIM_DIV, -2, 2, 0.5, 2},      {PRIM_DIV, -2, 2, -2, -0.5},    {PRIM_REM, -3, 3, 0.7, 1.3},
    {PRIM_REM, -3, 3, -1.3, -0.7},  {PRIM_POW, 0.5, 2, -2, 2},      {PRIM_MAX, -2, 2, -2, 2},
    {PRIM_MIN, -2, 2, -2, 2},       {PRIM_ATAN2, 0.3, 2, -2, 2},    {PRIM_ATAN2, -2, 2, -2, -0.3},
    {PRIM_EQ, -2, 2, -2, 2},        {PRIM_NE, -2, 2, -2, 2},        {PRIM_LT, -2, 2, -2, 2},
    {PRIM_LE, -2, 2, -2, 2},        {PRIM_GT, -2, 2, -2, 2},        {PRIM_GE, -2, 2, -2, 2},
};

/* Operand layouts: equal shapes, a rank-0 operand on either side, both
 * rank 0, size-1 dimensions. */
static const shape BINARY_LAYOUTS[][2] = {
    {{2, {3, 4}}, {2, {3, 4}}}, {{0, {0}}, {2, {3, 4}}}, {{2, {3, 4}}, {0, {0}}},
    {{0, {0}}, {0, {0}}},       {{3, {1, 5, 1}}, {3, {1, 5, 1}}},
};

static const int DIFF2[][2] = {{1, 1}, {1, 0}, {0, 1}};

TEST(ad_ew_binary_jvp_matches_finite_differences) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    prim_params p = prim_params_zero();
    uint64_t seed = 4;
    for (size_t c = 0; c < sizeof BINARY / sizeof BINARY[0]; c++) {
        const binary_case *bc = &BINARY[c];
        for (size_t l = 0; l < sizeof BINARY_LAYOUTS / sizeof BINARY_LAYOUTS[0]; l++) {
            cj_val in[2] = {uniform(ctx, BINARY_LAYOUTS[l][0], bc->alo, bc->ahi, &seed),
                            uniform(ctx, BINARY_LAYOUTS[l][1], bc->blo, bc->bhi, &seed)};
            for (size_t d = 0; d < 3; d++) {
                double e = adc_prim_jvp_error(ctx, bc->prim, &p, 2, in, DIFF2[d], seed);
                CHECK_MSG(e >= 0 && e < JVP_TOL, "%s layout %zu diff {%d,%d}: error %g", prim_names[bc->prim], l,
                          DIFF2[d][0], DIFF2[d][1], e);
            }
            CHECK_MSG(jvp_all_zero_is_symbolic(ctx, bc->prim, &p, 2, in), "%s: zero tangents not symbolic",
                      prim_names[bc->prim]);
        }
    }
    CHECK(!cj_error(ctx));
    cj_ctx_free(ctx);
}

TEST(ad_ew_integer_ops_have_zero_tangent) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    prim_params p = prim_params_zero();
    uint64_t seed = 5;
    const prim_id prims[] = {PRIM_AND, PRIM_OR, PRIM_XOR, PRIM_ADD, PRIM_MUL, PRIM_MAX, PRIM_REM};
    cj_val in[2] = {cj_astype(uniform(ctx, MATRIX, -50, 50, &seed), CJ_I32),
                    cj_astype(uniform(ctx, MATRIX, 1, 50, &seed), CJ_I32)};
    for (size_t i = 0; i < sizeof prims / sizeof prims[0]; i++) {
        CHECK_MSG(adc_prim_jvp_error(ctx, prims[i], &p, 2, in, (int[]){0, 0}, seed) == 0, "%s",
                  prim_names[prims[i]]);
        CHECK(jvp_all_zero_is_symbolic(ctx, prims[i], &p, 2, in));
    }
    cj_ctx_free(ctx);
}

/* ---- ternary ---- */

TEST(ad_ew_select_n_jvp) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    prim_params p = prim_params_zero();
    uint64_t seed = 6;
    /* predicate, on_false, on_true */
    const shape layouts[][3] = {
        {{2, {3, 4}}, {2, {3, 4}}, {2, {3, 4}}}, {{0, {0}}, {2, {3, 4}}, {2, {3, 4}}},
        {{2, {3, 4}}, {0, {0}}, {2, {3, 4}}},    {{2, {3, 4}}, {2, {3, 4}}, {0, {0}}},
        {{0, {0}}, {0, {0}}, {0, {0}}},          {{0, {0}}, {0, {0}}, {2, {3, 4}}},
    };
    const int diffs[][3] = {{0, 1, 1}, {0, 1, 0}, {0, 0, 1}};
    for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++) {
        for (int flip = 0; flip < 2; flip++) { /* a rank-0 predicate both ways */
            double threshold = layouts[l][0].rank ? 0.0 : flip ? 2.0 : -2.0;
            cj_val pred = cj_lt(uniform(ctx, layouts[l][0], -1, 1, &seed), cj_scalar(ctx, threshold));
            cj_val in[3] = {pred, uniform(ctx, layouts[l][1], -2, 2, &seed), uniform(ctx, layouts[l][2], -2, 2, &seed)};
            for (size_t d = 0; d < 3; d++) {
                double e = adc_prim_jvp_error(ctx, PRIM_SELECT, &p, 3, in, diffs[d], seed);
                CHECK_MSG(e >= 0 && e < JVP_TOL, "layout %zu diff {%d,%d,%d}: %g", l, diffs[d][0], diffs[d][1],
                          diffs[d][2], e);
            }
            CHECK(jvp_all_zero_is_symbolic(ctx, PRIM_SELECT, &p, 3, in));
        }
    }
    CHECK(!cj_error(ctx));
    cj_ctx_free(ctx);
}

TEST(ad_ew_clamp_jvp) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    prim_params p = prim_params_zero();
    uint64_t seed = 7;
    /* lo, x, hi: bounds rank 0 or x's shape; lo < hi everywhere */
    const shape layouts[][3] = {
        {{0, {0}}, {2, {3, 4}}, {0, {0}}}, {{2, {3, 4}}, {2, {3, 4}}, {2, {3, 4}}},
        {{0, {0}}, {2, {3, 4}}, {2, {3, 4}}}, {{2, {3, 4}}, {2, {3, 4}}, {0, {0}}},
        {{0, {0}}, {0, {0}}, {0, {0}}},
    };
    const int diffs[][3] = {{1, 1, 1}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}};
    for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++) {
        cj_val in[3] = {uniform(ctx, layouts[l][0], -1, -0.3, &seed), uniform(ctx, layouts[l][1], -2, 2, &seed),
                        uniform(ctx, layouts[l][2], 0.3, 1, &seed)};
        for (size_t d = 0; d < sizeof diffs / sizeof diffs[0]; d++) {
            double e = adc_prim_jvp_error(ctx, PRIM_CLAMP, &p, 3, in, diffs[d], seed);
            CHECK_MSG(e >= 0 && e < JVP_TOL, "layout %zu diff {%d,%d,%d}: %g", l, diffs[d][0], diffs[d][1],
                      diffs[d][2], e);
        }
        CHECK(jvp_all_zero_is_symbolic(ctx, PRIM_CLAMP, &p, 3, in));
    }
    CHECK(!cj_error(ctx));
    cj_ctx_free(ctx);
}

/* ---- closed forms: JAX's conventions at kinks and ties ---- */

/* jax.jvp(jnp.maximum, (x, x), (1, 0)) == 0.5: ties split evenly. */
TEST(ad_ew_max_min_split_ties_evenly) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    prim_params p = prim_params_zero();
    const double av[3] = {1.5, 1.5, -1}, bv[3] = {1.5, 0, 2};
    cj_val in[2] = {array1(ctx, 3, av), array1(ctx, 3, bv)};
    cj_val ones = cj_ones_like(in[0]);
    cj_val ta[2] = {ones, NO_TANGENT}, tb[2] = {NO_TANGENT, ones};
    /* max: tie, a larger, b larger */
    CHECK_NEAR(tangent_at(ctx, PRIM_MAX, &p, 2, in, ta, 0), 0.5, 0, 0);
    CHECK_NEAR(tangent_at(ctx, PRIM_MAX, &p, 2, in, tb, 0), 0.5, 0, 0);
    CHECK_NEAR(tangent_at(ctx, PRIM_MAX, &p, 2, in, ta, 1), 1, 0, 0);
    CHECK_NEAR(tangent_at(ctx, PRIM_MAX, &p, 2, in, tb, 1), 0, 0, 0);
    CHECK_NEAR(tangent_at(ctx, PRIM_MAX, &p, 2, in, tb, 2), 1, 0, 0);
    /* min */
    CHECK_NEAR(tangent_at(ctx, PRIM_MIN, &p, 2, in, ta, 0), 0.5, 0, 0);
    CHECK_NEAR(tangent_at(ctx, PRIM_MIN, &p, 2, in, tb, 0), 0.5, 0, 0);
    CHECK_NEAR(tangent_at(ctx, PRIM_MIN, &p, 2, in, tb, 1), 1, 0, 0);
    CHECK_NEAR(tangent_at(ctx, PRIM_MIN, &p, 2, in, ta, 2), 1, 0, 0);
    CHECK(!cj_error(ctx));
    cj_ctx_free(ctx);
}

/* JAX's abs rule is select(x >= 0, t, -t): abs'(0) = 1 (and -0.0 >= 0). */
TEST(ad_ew_abs_at_zero_is_one) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    prim_params p = prim_params_zero();
    const double xv[4] = {0.0, -0.0, -3, 2};
    cj_val x = array1(ctx, 4, xv);
    cj_val t = cj_ones_like(x);
    const double want[4] = {1, 1, -1, 1};
    for (int i = 0; i < 4; i++) CHECK_NEAR(tangent_at(ctx, PRIM_ABS, &p, 1, &x, &t, i), want[i], 0, 0);
    CHECK(!cj_error(ctx));
    cj_ctx_free(ctx);
}

/* pow: dx = y x^(y-1) is 0 where y == 0 (even at x == 0); dy = log(x) x^y
 * is 0 where x == 0. */
TEST(ad_ew_pow_at_zero_exponent_and_base) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    prim_params p = prim_params_zero();
    const double xv[4] = {0, 2, 0, 3}, yv[4] = {0, 0, 2.5, 2};
    cj_val in[2] = {array1(ctx, 4, xv), array1(ctx, 4, yv)};
    cj_val ones = cj_ones_like(in[0]);
    cj_val tx[2] = {ones, NO_TANGENT}, ty[2] = {NO_TANGENT, ones};
    const double want_dx[4] = {0, 0, 0, 6}, want_dy[4] = {0, log(2), 0, 9 * log(3)};
    for (int i = 0; i < 4; i++) {
        CHECK_NEAR(tangent_at(ctx, PRIM_POW, &p, 2, in, tx, i), want_dx[i], 1e-15, 0);
        CHECK_NEAR(tangent_at(ctx, PRIM_POW, &p, 2, in, ty, i), want_dy[i], 1e-15, 0);
    }
    CHECK(!cj_error(ctx));
    cj_ctx_free(ctx);
}

/* rem(x, y) = x - y trunc(x / y): d/dy = -trunc(x / y). */
TEST(ad_ew_rem_divisor_derivative_truncates) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    prim_params p = prim_params_zero();
    const double xv[3] = {5.5, -5.5, 1}, yv[3] = {2, 2, 3};
    cj_val in[2] = {array1(ctx, 3, xv), array1(ctx, 3, yv)};
    cj_val ty[2] = {NO_TANGENT, cj_ones_like(in[1])};
    const double want[3] = {-2, 2, 0};
    for (int i = 0; i < 3; i++) CHECK_NEAR(tangent_at(ctx, PRIM_REM, &p, 2, in, ty, i), want[i], 0, 0);
    CHECK(!cj_error(ctx));
    cj_ctx_free(ctx);
}

/* lax.clamp's rule: x's tangent strictly inside (lo, hi), lo's below,
 * hi's above; at a bound none of them passes. */
TEST(ad_ew_clamp_at_bounds) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    prim_params p = prim_params_zero();
    const double xv[5] = {-2, -1, 0, 1, 2};
    cj_val in[3] = {cj_scalar_typed(ctx, -1, CJ_F64), array1(ctx, 5, xv), cj_scalar_typed(ctx, 1, CJ_F64)};
    cj_val one = cj_scalar_typed(ctx, 1, CJ_F64);
    cj_val tlo[3] = {one, NO_TANGENT, NO_TANGENT}, tx[3] = {NO_TANGENT, cj_ones_like(in[1]), NO_TANGENT},
           thi[3] = {NO_TANGENT, NO_TANGENT, one};
    const double want_lo[5] = {1, 0, 0, 0, 0}, want_x[5] = {0, 0, 1, 0, 0}, want_hi[5] = {0, 0, 0, 0, 1};
    for (int i = 0; i < 5; i++) {
        CHECK_NEAR(tangent_at(ctx, PRIM_CLAMP, &p, 3, in, tlo, i), want_lo[i], 0, 0);
        CHECK_NEAR(tangent_at(ctx, PRIM_CLAMP, &p, 3, in, tx, i), want_x[i], 0, 0);
        CHECK_NEAR(tangent_at(ctx, PRIM_CLAMP, &p, 3, in, thi, i), want_hi[i], 0, 0);
    }
    CHECK(!cj_error(ctx));
    cj_ctx_free(ctx);
}

/* ---- types: f32 stays f32, rank-0 operands give full-shape tangents ---- */

static int tangent_has_result_type(cj_ctx *ctx, prim_id prim, int n, const cj_val *in, const cj_val *tin) {
    prim_params p = prim_params_zero();
    cj_val out = core_bind(ctx, prim, &p, n, in);
    cj_val t = rule_tangent(ctx, prim, &p, n, in, tin);
    if (!t.slot || cj_val_dtype(t) != cj_val_dtype(out) || cj_val_rank(t) != cj_val_rank(out)) return 0;
    for (int d = 0; d < cj_val_rank(out); d++)
        if (cj_val_dim(t, d) != cj_val_dim(out, d)) return 0;
    return 1;
}

TEST(ad_ew_tangents_keep_dtype_and_shape) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 8;
    for (size_t c = 0; c < sizeof UNARY / sizeof UNARY[0]; c++) {
        cj_val x = cj_astype(uniform(ctx, MATRIX, UNARY[c].lo, UNARY[c].hi, &seed), CJ_F32);
        cj_val t = cj_astype(uniform(ctx, MATRIX, -1, 1, &seed), CJ_F32);
        CHECK_MSG(tangent_has_result_type(ctx, UNARY[c].prim, 1, &x, &t), "%s", prim_names[UNARY[c].prim]);
    }
    for (size_t c = 0; c < sizeof BINARY / sizeof BINARY[0]; c++) {
        if (BINARY[c].prim >= PRIM_EQ) continue; /* bool results */
        for (int scalar_side = 0; scalar_side < 2; scalar_side++) {
            shape sa = scalar_side == 0 ? SCALAR : MATRIX, sb = scalar_side == 0 ? MATRIX : SCALAR;
            cj_val in[2] = {cj_astype(uniform(ctx, sa, BINARY[c].alo, BINARY[c].ahi, &seed), CJ_F32),
                            cj_astype(uniform(ctx, sb, BINARY[c].blo, BINARY[c].bhi, &seed), CJ_F32)};
            /* only the rank-0 operand's tangent: it must still fill the result */
            cj_val tin[2] = {NO_TANGENT, NO_TANGENT};
            tin[scalar_side] = cj_astype(uniform(ctx, SCALAR, -1, 1, &seed), CJ_F32);
            CHECK_MSG(tangent_has_result_type(ctx, BINARY[c].prim, 2, in, tin), "%s scalar side %d",
                      prim_names[BINARY[c].prim], scalar_side);
        }
    }
    cj_val x = cj_astype(uniform(ctx, MATRIX, -2, 2, &seed), CJ_F32);
    cj_val lo = cj_scalar_typed(ctx, -1, CJ_F32), hi = cj_scalar_typed(ctx, 1, CJ_F32);
    CHECK(tangent_has_result_type(ctx, PRIM_CLAMP, 3, (cj_val[]){lo, x, hi}, (cj_val[]){lo, NO_TANGENT, NO_TANGENT}));
    cj_val pred = cj_lt(x, cj_scalar(ctx, 0));
    CHECK(tangent_has_result_type(ctx, PRIM_SELECT, 3, (cj_val[]){pred, lo, hi}, (cj_val[]){NO_TANGENT, lo, NO_TANGENT}));
    CHECK(!cj_error(ctx));
    cj_ctx_free(ctx);
}

/* ---- transpose ---- */

/* The dot-product test needs a linear map: where a fixed operand enters
 * additively (add, sub, select_n's cases) it is set to zero, else the map
 * is only affine. mul's and div's fixed operands are factors and stay. */
static double transpose_error(cj_ctx *ctx, prim_id prim, const prim_params *p, int n, const cj_val *in,
                              const int *lin, uint64_t seed) {
    cj_val args[3];
    for (int i = 0; i < n; i++) {
        int additive = prim == PRIM_ADD || prim == PRIM_SUB || (prim == PRIM_SELECT && i > 0);
        args[i] = additive && !lin[i] ? cj_zeros_like(in[i]) : in[i];
    }
    return adc_prim_transpose_error(ctx, prim, p, n, args, lin, seed);
}

TEST(ad_ew_transpose_neg_add_sub_mul_div) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    prim_params p = prim_params_zero();
    uint64_t seed = 9;
    for (size_t s = 0; s < sizeof UNARY_SHAPES / sizeof UNARY_SHAPES[0]; s++) {
        cj_val x = uniform(ctx, UNARY_SHAPES[s], -2, 2, &seed);
        double e = transpose_error(ctx, PRIM_NEG, &p, 1, &x, (int[]){1}, seed);
        CHECK_MSG(e >= 0 && e < TRANSPOSE_TOL, "neg rank %d: %g", UNARY_SHAPES[s].rank, e);
    }
    const struct {
        prim_id prim;
        int lin[2];
    } cases[] = {
        {PRIM_ADD, {1, 1}}, {PRIM_ADD, {1, 0}}, {PRIM_ADD, {0, 1}}, {PRIM_SUB, {1, 1}}, {PRIM_SUB, {1, 0}},
        {PRIM_SUB, {0, 1}}, {PRIM_MUL, {1, 0}}, {PRIM_MUL, {0, 1}}, {PRIM_DIV, {1, 0}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        for (size_t l = 0; l < sizeof BINARY_LAYOUTS / sizeof BINARY_LAYOUTS[0]; l++) {
            cj_val in[2] = {uniform(ctx, BINARY_LAYOUTS[l][0], -2, 2, &seed),
                            uniform(ctx, BINARY_LAYOUTS[l][1], 0.5, 2, &seed)};
            double e = transpose_error(ctx, cases[c].prim, &p, 2, in, cases[c].lin, seed);
            CHECK_MSG(e >= 0 && e < TRANSPOSE_TOL, "%s lin {%d,%d} layout %zu: %g", prim_names[cases[c].prim],
                      cases[c].lin[0], cases[c].lin[1], l, e);
        }
    }
    CHECK(!cj_error(ctx));
    cj_ctx_free(ctx);
}

TEST(ad_ew_transpose_select_n) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    prim_params p = prim_params_zero();
    uint64_t seed = 10;
    const shape layouts[][3] = {
        {{2, {3, 4}}, {2, {3, 4}}, {2, {3, 4}}}, {{0, {0}}, {2, {3, 4}}, {2, {3, 4}}},
        {{2, {3, 4}}, {0, {0}}, {2, {3, 4}}},    {{2, {3, 4}}, {2, {3, 4}}, {0, {0}}},
        {{0, {0}}, {0, {0}}, {0, {0}}},
    };
    const int lins[][3] = {{0, 1, 1}, {0, 1, 0}, {0, 0, 1}};
    for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++) {
        cj_val pred = cj_lt(uniform(ctx, layouts[l][0], -1, 1, &seed), cj_scalar(ctx, 0));
        cj_val in[3] = {pred, uniform(ctx, layouts[l][1], -2, 2, &seed), uniform(ctx, layouts[l][2], -2, 2, &seed)};
        for (size_t k = 0; k < 3; k++) {
            double e = transpose_error(ctx, PRIM_SELECT, &p, 3, in, lins[k], seed);
            CHECK_MSG(e >= 0 && e < TRANSPOSE_TOL, "layout %zu lin {%d,%d,%d}: %g", l, lins[k][0], lins[k][1],
                      lins[k][2], e);
        }
    }
    CHECK(!cj_error(ctx));
    cj_ctx_free(ctx);
}

TEST(ad_ew_transpose_convert) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 11;
    prim_params p = prim_params_zero();
    p.dtype = CJ_F64;
    p.weak = 1;
    cj_val x = uniform(ctx, MATRIX, -2, 2, &seed);
    double e = transpose_error(ctx, PRIM_CONVERT, &p, 1, &x, (int[]){1}, seed);
    CHECK_MSG(e >= 0 && e < TRANSPOSE_TOL, "f64 -> f64: %g", e);
    /* f64 -> f32: the f32 cotangent comes back as f64, the operand's type */
    p.dtype = CJ_F32;
    p.weak = 0;
    rt_aval aval = core_peek(x)->aval;
    cj_val ct = cj_astype(uniform(ctx, MATRIX, -1, 1, &seed), CJ_F32);
    cj_val known = {ctx, 0, 0}, ct_in = {ctx, 0, 0};
    CHECK(prim_rules[PRIM_CONVERT].transpose(ctx, PRIM_CONVERT, &p, 1, &known, (int[]){1}, &aval, ct, &ct_in) == 0);
    CHECK_EQ_INT(cj_val_dtype(ct_in), CJ_F64);
    CHECK_EQ_INT(cj_val_weak(ct_in), 0);
    CHECK_NEAR(cj_item_or_nan(cj_sum(cj_abs(cj_sub(ct_in, cj_astype(ct, CJ_F64))), -1, NULL, 0)), 0, 0, 0);
    /* float -> int is not linear */
    p.dtype = CJ_I32;
    cj_val ct_i = cj_astype(ct, CJ_I32);
    CHECK(prim_rules[PRIM_CONVERT].transpose(ctx, PRIM_CONVERT, &p, 1, &known, (int[]){1}, &aval, ct_i, &ct_in) != 0);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "convert_element_type");
    cj_error_clear(ctx);
    cj_ctx_free(ctx);
}

TEST(ad_ew_transpose_rejects_nonlinear_operands) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    prim_params p = prim_params_zero();
    uint64_t seed = 12;
    cj_val x = uniform(ctx, MATRIX, 0.5, 2, &seed);
    rt_aval avals[2] = {core_peek(x)->aval, core_peek(x)->aval};
    cj_val known[2] = {{ctx, 0, 0}, {ctx, 0, 0}}, ct_in[2] = {{ctx, 0, 0}, {ctx, 0, 0}};
    CHECK(prim_rules[PRIM_MUL].transpose(ctx, PRIM_MUL, &p, 2, known, (int[]){1, 1}, avals, x, ct_in) != 0);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "mul");
    cj_error_clear(ctx);
    known[0] = x;
    CHECK(prim_rules[PRIM_DIV].transpose(ctx, PRIM_DIV, &p, 2, known, (int[]){0, 1}, avals, x, ct_in) != 0);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "div");
    cj_error_clear(ctx);
    cj_ctx_free(ctx);
}

/* ---- end to end: cj_jvp and cj_vjp agree, <u, J v> = <J^T u, v> ---- */

typedef struct bound_prim {
    prim_id prim;
    prim_params params;
} bound_prim;

/* The primitive alone, as a user function. */
static void apply_prim(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    const bound_prim *b = user;
    out[0] = core_bind(ctx, b->prim, &b->params, prim_arity[b->prim], in);
}

/* |<u, J v> - <J^T u, v>| / (1 + |<u, J v>|), J v from cj_jvp and J^T u
 * from cj_vjp's pullback, for random float v and u (the other operands'
 * tangents are zeros and their cotangents ignored). Negative on an error. */
static double jvp_vjp_mismatch(cj_ctx *ctx, bound_prim *b, const cj_val *in, uint64_t *seed) {
    int n = prim_arity[b->prim];
    cj_scope_begin(ctx);
    cj_func *f = cj_func_new(ctx, prim_names[b->prim], apply_prim, n, 1, b);
    cj_val v[3], out, jv, ct[3], out2;
    for (int i = 0; i < n; i++) {
        const rt_aval *a = &core_peek(in[i])->aval;
        v[i] = rt_is_float(a->dtype) ? adc_uniform(ctx, a->rank, a->dims, -1, 1, seed) : cj_zeros_like(in[i]);
    }
    double err = -1;
    if (cj_jvp(f, in, v, &out, &jv) == CJ_OK) {
        cj_func *pullback = cj_vjp(f, in, &out2);
        const rt_aval *o = &core_peek(out)->aval;
        /* a non-float result (comparisons, is_finite) takes a cotangent of its own type */
        cj_val u = rt_is_float(o->dtype) ? adc_uniform(ctx, o->rank, o->dims, -1, 1, seed) : cj_zeros_like(out);
        if (pullback && cj_call(pullback, &u, ct) == CJ_OK) {
            double lhs = adc_dot(u, jv), rhs = 0;
            for (int i = 0; i < n; i++)
                if (rt_is_float(core_peek(in[i])->aval.dtype)) rhs += adc_dot(ct[i], v[i]);
            err = fabs(lhs - rhs) / (1 + fabs(lhs));
            if (isnan(err)) err = 1e30;
        }
        if (pullback) cj_func_free(pullback);
    }
    if (cj_error(ctx)) err = -1;
    cj_scope_end(ctx, 0, NULL);
    return err;
}

TEST(ad_ew_jvp_and_vjp_agree_for_every_primitive) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 13;
    bound_prim b = {PRIM_NEG, prim_params_zero()};
    for (size_t c = 0; c < sizeof UNARY / sizeof UNARY[0]; c++) {
        b.prim = UNARY[c].prim;
        cj_val x = uniform(ctx, MATRIX, UNARY[c].lo, UNARY[c].hi, &seed);
        double e = jvp_vjp_mismatch(ctx, &b, &x, &seed);
        CHECK_MSG(e >= 0 && e < TRANSPOSE_TOL, "%s: %g (%s)", prim_names[b.prim], e,
                  cj_error(ctx) ? cj_error_message(ctx) : "");
    }
    for (size_t c = 0; c < sizeof BINARY / sizeof BINARY[0]; c++) {
        b.prim = BINARY[c].prim;
        cj_val in[2] = {uniform(ctx, MATRIX, BINARY[c].alo, BINARY[c].ahi, &seed),
                        uniform(ctx, MATRIX, BINARY[c].blo, BINARY[c].bhi, &seed)};
        double e = jvp_vjp_mismatch(ctx, &b, in, &seed);
        CHECK_MSG(e >= 0 && e < TRANSPOSE_TOL, "%s: %g (%s)", prim_names[b.prim], e,
                  cj_error(ctx) ? cj_error_message(ctx) : "");
    }
    b.prim = PRIM_SELECT;
    cj_val sel[3] = {cj_lt(uniform(ctx, MATRIX, -1, 1, &seed), cj_scalar(ctx, 0)), uniform(ctx, MATRIX, -2, 2, &seed),
                     uniform(ctx, MATRIX, -2, 2, &seed)};
    double e = jvp_vjp_mismatch(ctx, &b, sel, &seed);
    CHECK_MSG(e >= 0 && e < TRANSPOSE_TOL, "select_n: %g (%s)", e, cj_error(ctx) ? cj_error_message(ctx) : "");
    b.prim = PRIM_CLAMP;
    cj_val clamp[3] = {uniform(ctx, MATRIX, -1, -0.3, &seed), uniform(ctx, MATRIX, -2, 2, &seed),
                       uniform(ctx, MATRIX, 0.3, 1, &seed)};
    e = jvp_vjp_mismatch(ctx, &b, clamp, &seed);
    CHECK_MSG(e >= 0 && e < TRANSPOSE_TOL, "clamp: %g (%s)", e, cj_error(ctx) ? cj_error_message(ctx) : "");
    b.prim = PRIM_CONVERT;
    b.params.dtype = CJ_F64;
    b.params.weak = 1;
    cj_val x = uniform(ctx, MATRIX, -2, 2, &seed);
    e = jvp_vjp_mismatch(ctx, &b, &x, &seed);
    CHECK_MSG(e >= 0 && e < TRANSPOSE_TOL, "convert: %g (%s)", e, cj_error(ctx) ? cj_error_message(ctx) : "");
    cj_ctx_free(ctx);
}
