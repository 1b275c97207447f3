/* test_ad_reduce.c — the jvp and transpose rules of the reductions and
 * scans (src/autodiff/rules_reduce.c).
 *
 * Each case binds one primitive with explicit parameters on f64 operands
 * and runs `verify`: the jvp rule against central differences, the
 * all-zero tangent path (a symbolic zero must come back), and, for the
 * linear primitives (reduce_sum, cumsum), the transpose rule by the
 * dot-product test. Cases cover several axes, size-1 axes, rank 0 and
 * reversed scans. Finite differences cannot see ties or judge a rule that
 * is right only away from zeros, so closed-form checks pin JAX's values:
 * max/min split ties evenly, products with zeros in them (reduce_prod,
 * cumprod; both are multilinear, so central differences stay exact there
 * too), and cummax's ties. An end-to-end check per primitive runs the
 * public cj_jvp / cj_vjp, which also proves every rule partially evaluates
 * and transposes (its tangent uses only primitives that can be linear). */
#include <stdio.h>
#include <stdlib.h>

#include "ad_check.h"
#include "harness.h"

#define JVP_TOL 1e-6
#define TRANSPOSE_TOL 1e-12

static uint64_t seed_state = 777;

static cj_val f64_uniform(cj_ctx *ctx, int rank, const int64_t *dims) {
    return adc_uniform(ctx, rank, dims, -2.0, 2.0, &seed_state);
}


static prim_params reduce_params(prim_ivec axes) {
    prim_params p = prim_params_zero();
    p.axes = axes;
    return p;
}

static prim_params scan_params(int64_t axis, int reverse) {
    prim_params p = prim_params_zero();
    p.axes = IV(axis);
    p.flag = reverse;
    return p;
}

static int read_doubles(cj_val v, double *buf, int64_t n) {
    if (cj_val_size(v) != n) return -1;
    return cj_read_as(v, CJ_F64, buf, sizeof(double) * (size_t)n) == CJ_OK ? 0 : -1;
}

/* ---- the generic check ---- */

/* 0 when every check passes; otherwise -1 with a message in why. */
static int verify(cj_ctx *ctx, prim_id prim, const prim_params *p, cj_val x, char *why, size_t why_size) {
    cj_val zero = {ctx, 0, 0}, tout = {ctx, 1, 0};
    cj_val out = core_bind(ctx, prim, p, 1, &x);
    if (!out.slot || prim_rules[prim].jvp(ctx, prim, p, 1, &x, &zero, out, &tout) != 0 || tout.slot != 0) {
        snprintf(why, why_size, "%s: a zero tangent did not give a symbolic zero (%s)", prim_names[prim],
                 cj_error(ctx) ? cj_error_message(ctx) : "no error");
        return -1;
    }
    int diff = 1;
    double ej = adc_prim_jvp_error(ctx, prim, p, 1, &x, &diff, 1000);
    if (!(ej >= 0 && ej < JVP_TOL)) {
        snprintf(why, why_size, "%s: jvp error %g (%s)", prim_names[prim], ej,
                 cj_error(ctx) ? cj_error_message(ctx) : "no error");
        return -1;
    }
    if (!prim_rules[prim].transpose) return 0;
    double et = adc_prim_transpose_error(ctx, prim, p, 1, &x, &diff, 2000);
    if (!(et >= 0 && et < TRANSPOSE_TOL)) {
        snprintf(why, why_size, "%s: transpose error %g (%s)", prim_names[prim], et,
                 cj_error(ctx) ? cj_error_message(ctx) : "no error");
        return -1;
    }
    return 0;
}

#define CHECK_RULES(ctx, prim, p, x)                                                  \
    do {                                                                              \
        char why_[512];                                                               \
        CHECK_MSG(verify(ctx, prim, &(p), x, why_, sizeof why_) == 0, "%s", why_);    \
    } while (0)

/* The rule's tangent for a given tangent, read back (n elements). */
static int jvp_values(cj_ctx *ctx, prim_id prim, const prim_params *p, cj_val x, cj_val t, double *got, int64_t n) {
    cj_val out = core_bind(ctx, prim, p, 1, &x), tout;
    if (!out.slot || prim_rules[prim].jvp(ctx, prim, p, 1, &x, &t, out, &tout) != 0 || !tout.slot) return -1;
    return read_doubles(tout, got, n);
}

#define CHECK_JVP_VALUES(ctx, prim, p, x, t, ...)                                                 \
    do {                                                                                          \
        const double want_[] = {__VA_ARGS__};                                                     \
        int64_t n_ = (int64_t)(sizeof want_ / sizeof *want_);                                     \
        double got_[64];                                                                          \
        CHECK_MSG(jvp_values(ctx, prim, &(p), x, t, got_, n_) == 0, "%s: jvp failed (%s)",        \
                  prim_names[prim], cj_error(ctx) ? cj_error_message(ctx) : "no error");          \
        for (int64_t i_ = 0; i_ < n_; i_++)                                                       \
            CHECK_MSG(fabs(got_[i_] - want_[i_]) <= 1e-12 * (1 + fabs(want_[i_])),                \
                      "%s: tangent element %lld is %.17g, expected %.17g", prim_names[prim],      \
                      (long long)i_, got_[i_], want_[i_]);                                        \
    } while (0)

static cj_val f64_of(cj_ctx *ctx, int rank, const int64_t *dims, const double *v) {
    return cj_array(ctx, CJ_F64, rank, dims, v);
}

/* ---- reduce_sum, cumsum: linear ---- */

TEST(ad_red_reduce_sum) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    prim_params p = reduce_params(IV(1));
    CHECK_RULES(ctx, PRIM_REDUCE_SUM, p, f64_uniform(ctx, DIMS(3, 4)));
    p = reduce_params(IV(0, 2));
    CHECK_RULES(ctx, PRIM_REDUCE_SUM, p, f64_uniform(ctx, DIMS(2, 3, 4)));
    p = reduce_params(IV(0, 1, 2)); /* to rank 0 */
    CHECK_RULES(ctx, PRIM_REDUCE_SUM, p, f64_uniform(ctx, DIMS(2, 1, 3)));
    p = reduce_params(IV(1)); /* a size-1 axis */
    CHECK_RULES(ctx, PRIM_REDUCE_SUM, p, f64_uniform(ctx, DIMS(3, 1, 2)));
    p = reduce_params(IV0); /* nothing reduced */
    CHECK_RULES(ctx, PRIM_REDUCE_SUM, p, f64_uniform(ctx, DIMS(2, 3)));
    p = reduce_params(IV0); /* rank 0 */
    CHECK_RULES(ctx, PRIM_REDUCE_SUM, p, f64_uniform(ctx, 0, NULL));
    cj_ctx_free(ctx);
}

TEST(ad_red_cumsum) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    for (int rev = 0; rev < 2; rev++) {
        prim_params p = scan_params(0, rev);
        CHECK_RULES(ctx, PRIM_CUMSUM, p, f64_uniform(ctx, DIMS(7)));
        p = scan_params(1, rev);
        CHECK_RULES(ctx, PRIM_CUMSUM, p, f64_uniform(ctx, DIMS(2, 5, 3)));
        p = scan_params(2, rev);
        CHECK_RULES(ctx, PRIM_CUMSUM, p, f64_uniform(ctx, DIMS(2, 3, 4)));
        p = scan_params(0, rev); /* a size-1 axis */
        CHECK_RULES(ctx, PRIM_CUMSUM, p, f64_uniform(ctx, DIMS(1, 4)));
    }
    cj_ctx_free(ctx);
}

/* Where the transposes put things: reduce_sum spreads the cotangent over
 * the reduced axis, cumsum's cotangent runs the other way. */
TEST(ad_red_transpose_values) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    prim_params p = reduce_params(IV(1));
    cj_val ct = f64_of(ctx, DIMS(2), (double[]){1, 10}), ct_in = {ctx, 0, 0}, known = {ctx, 0, 0};
    rt_aval x_aval = {.dtype = CJ_F64, .rank = 2, .dims = {2, 3}};
    int lin = 1;
    CHECK(prim_rules[PRIM_REDUCE_SUM].transpose(ctx, PRIM_REDUCE_SUM, &p, 1, &known, &lin, &x_aval, ct, &ct_in) == 0);
    double got[6];
    CHECK(read_doubles(ct_in, got, 6) == 0);
    const double want_sum[] = {1, 1, 1, 10, 10, 10};
    for (int i = 0; i < 6; i++) CHECK_NEAR(got[i], want_sum[i], 0, 0);

    rt_aval v_aval = {.dtype = CJ_F64, .rank = 1, .dims = {4}};
    cj_val u = f64_of(ctx, DIMS(4), (double[]){1, 10, 100, 1000});
    for (int rev = 0; rev < 2; rev++) {
        p = scan_params(0, rev);
        ct_in = (cj_val){ctx, 0, 0};
        CHECK(prim_rules[PRIM_CUMSUM].transpose(ctx, PRIM_CUMSUM, &p, 1, &known, &lin, &v_aval, u, &ct_in) == 0);
        CHECK(read_doubles(ct_in, got, 4) == 0);
        /* forward: out_k = sum_{i<=k} x_i, so x_i's cotangent sums u_k, k >= i */
        const double want_fwd[] = {1111, 1110, 1100, 1000}, want_rev[] = {1, 11, 111, 1111};
        for (int i = 0; i < 4; i++) CHECK_NEAR(got[i], rev ? want_rev[i] : want_fwd[i], 0, 0);
    }
    cj_ctx_free(ctx);
}

/* ---- reduce_prod ---- */

TEST(ad_red_reduce_prod) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    prim_params p = reduce_params(IV(1));
    CHECK_RULES(ctx, PRIM_REDUCE_PROD, p, f64_uniform(ctx, DIMS(3, 4)));
    p = reduce_params(IV(0, 2));
    CHECK_RULES(ctx, PRIM_REDUCE_PROD, p, f64_uniform(ctx, DIMS(2, 3, 4)));
    p = reduce_params(IV(1, 2));
    CHECK_RULES(ctx, PRIM_REDUCE_PROD, p, f64_uniform(ctx, DIMS(2, 3, 2)));
    p = reduce_params(IV(0, 1)); /* to rank 0 */
    CHECK_RULES(ctx, PRIM_REDUCE_PROD, p, f64_uniform(ctx, DIMS(3, 2)));
    p = reduce_params(IV(1)); /* a size-1 axis */
    CHECK_RULES(ctx, PRIM_REDUCE_PROD, p, f64_uniform(ctx, DIMS(3, 1)));
    p = reduce_params(IV0); /* nothing reduced */
    CHECK_RULES(ctx, PRIM_REDUCE_PROD, p, f64_uniform(ctx, DIMS(2, 3)));
    /* zeros: one zero in a row, two in another, none in the third */
    p = reduce_params(IV(1));
    cj_val z = f64_of(ctx, DIMS(3, 4), (double[]){2, 0, 3, 1.5, 0, 2, 0, -1, 1.5, -2, 0.5, 3});
    CHECK_RULES(ctx, PRIM_REDUCE_PROD, p, z);
    cj_ctx_free(ctx);
}

/* d prod = sum_i t_i prod_{j != i} x_j, exact with zeros (no division). */
TEST(ad_red_reduce_prod_zeros) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    prim_params p = reduce_params(IV(1));
    cj_val x = f64_of(ctx, DIMS(3, 3), (double[]){2, 0, 3, 2, 0, 0, 2, 5, 3});
    cj_val t = f64_of(ctx, DIMS(3, 3), (double[]){1, 10, 100, 1, 10, 100, 1, 10, 100});
    /* one zero: only its own tangent survives, times the others (2·3);
     * two zeros: nothing; none: 5·3 + 10·2·3 + 100·2·5 */
    CHECK_JVP_VALUES(ctx, PRIM_REDUCE_PROD, p, x, t, 60, 0, 15 + 60 + 1000);
    p = reduce_params(IV(0, 1)); /* a single zero among all elements */
    cj_val y = f64_of(ctx, DIMS(2, 2), (double[]){2, 3, 0, 4});
    cj_val ty = f64_of(ctx, DIMS(2, 2), (double[]){1, 10, 100, 1000});
    CHECK_JVP_VALUES(ctx, PRIM_REDUCE_PROD, p, y, ty, 100 * 24);
    cj_ctx_free(ctx);
}

/* ---- reduce_max, reduce_min ---- */

TEST(ad_red_reduce_max_min) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    const prim_id prims[] = {PRIM_REDUCE_MAX, PRIM_REDUCE_MIN};
    for (int k = 0; k < 2; k++) {
        prim_params p = reduce_params(IV(1));
        CHECK_RULES(ctx, prims[k], p, f64_uniform(ctx, DIMS(3, 5)));
        p = reduce_params(IV(0, 2));
        CHECK_RULES(ctx, prims[k], p, f64_uniform(ctx, DIMS(3, 2, 4)));
        p = reduce_params(IV(0, 1, 2));
        CHECK_RULES(ctx, prims[k], p, f64_uniform(ctx, DIMS(2, 3, 2)));
        p = reduce_params(IV(0)); /* a size-1 axis */
        CHECK_RULES(ctx, prims[k], p, f64_uniform(ctx, DIMS(1, 4)));
        p = reduce_params(IV0);
        CHECK_RULES(ctx, prims[k], p, f64_uniform(ctx, DIMS(4)));
    }
    cj_ctx_free(ctx);
}

/* Ties share the tangent evenly (JAX: location indicators / counts). */
TEST(ad_red_reduce_max_min_ties) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    prim_params p = reduce_params(IV(1));
    cj_val x = f64_of(ctx, DIMS(3, 3), (double[]){1, 3, 3, 2, 2, 2, 5, -1, 0});
    cj_val t = f64_of(ctx, DIMS(3, 3), (double[]){1, 10, 100, 1, 10, 100, 1, 10, 100});
    CHECK_JVP_VALUES(ctx, PRIM_REDUCE_MAX, p, x, t, 55, 37, 1);
    CHECK_JVP_VALUES(ctx, PRIM_REDUCE_MIN, p, x, t, 1, 37, 10);
    p = reduce_params(IV(0));
    CHECK_JVP_VALUES(ctx, PRIM_REDUCE_MAX, p, x, t, 1, 10, 100);
    CHECK_JVP_VALUES(ctx, PRIM_REDUCE_MIN, p, x, t, 1, 10, 100);
    cj_ctx_free(ctx);
}

/* ---- argmax, argmin: integer results, zero tangents ---- */

TEST(ad_red_argmax_argmin) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    const prim_id prims[] = {PRIM_ARGMAX, PRIM_ARGMIN};
    for (int k = 0; k < 2; k++) {
        prim_params p = reduce_params(IV(1));
        CHECK_RULES(ctx, prims[k], p, f64_uniform(ctx, DIMS(3, 4)));
        p.dtype = CJ_I64;
        CHECK_RULES(ctx, prims[k], p, f64_uniform(ctx, DIMS(2, 3, 4)));
        /* a real tangent still gives a symbolic zero */
        cj_val x = f64_uniform(ctx, DIMS(5)), t = f64_uniform(ctx, DIMS(5)), tout = {ctx, 1, 0};
        p = reduce_params(IV(0));
        cj_val out = core_bind(ctx, prims[k], &p, 1, &x);
        CHECK(prim_rules[prims[k]].jvp(ctx, prims[k], &p, 1, &x, &t, out, &tout) == 0);
        CHECK(tout.slot == 0);
    }
    cj_ctx_free(ctx);
}

/* ---- cumprod ---- */

TEST(ad_red_cumprod) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    for (int rev = 0; rev < 2; rev++) {
        prim_params p = scan_params(0, rev);
        CHECK_RULES(ctx, PRIM_CUMPROD, p, f64_uniform(ctx, DIMS(1)));
        CHECK_RULES(ctx, PRIM_CUMPROD, p, f64_uniform(ctx, DIMS(2)));
        CHECK_RULES(ctx, PRIM_CUMPROD, p, f64_uniform(ctx, DIMS(9))); /* not a power of two */
        CHECK_RULES(ctx, PRIM_CUMPROD, p, f64_uniform(ctx, DIMS(8)));
        p = scan_params(1, rev);
        CHECK_RULES(ctx, PRIM_CUMPROD, p, f64_uniform(ctx, DIMS(2, 6, 3)));
        p = scan_params(2, rev);
        CHECK_RULES(ctx, PRIM_CUMPROD, p, f64_uniform(ctx, DIMS(3, 2, 5)));
        p = scan_params(0, rev); /* zeros: multilinear, so differences stay exact */
        cj_val z = f64_of(ctx, DIMS(7), (double[]){1.5, 0, -2, 0.5, 0, 3, 1.25});
        CHECK_RULES(ctx, PRIM_CUMPROD, p, z);
    }
    cj_ctx_free(ctx);
}

TEST(ad_red_cumprod_zeros) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val x = f64_of(ctx, DIMS(4), (double[]){2, 0, 3, 5});
    cj_val t = f64_of(ctx, DIMS(4), (double[]){1, 10, 100, 1000});
    prim_params p = scan_params(0, 0);
    /* d out_k = sum_{i<=k} t_i prod_{j<=k, j!=i} x_j */
    CHECK_JVP_VALUES(ctx, PRIM_CUMPROD, p, x, t, 1, 20, 60, 300);
    p = scan_params(0, 1); /* out_k = prod_{j>=k} x_j */
    CHECK_JVP_VALUES(ctx, PRIM_CUMPROD, p, x, t, 10 * 2 * 3 * 5, 10 * 3 * 5, 100 * 5 + 1000 * 3, 1000);
    cj_ctx_free(ctx);
}

/* ---- cummax ---- */

TEST(ad_red_cummax) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    for (int rev = 0; rev < 2; rev++) {
        prim_params p = scan_params(0, rev);
        CHECK_RULES(ctx, PRIM_CUMMAX, p, f64_uniform(ctx, DIMS(1)));
        CHECK_RULES(ctx, PRIM_CUMMAX, p, f64_uniform(ctx, DIMS(11)));
        p = scan_params(1, rev);
        CHECK_RULES(ctx, PRIM_CUMMAX, p, f64_uniform(ctx, DIMS(3, 8, 2)));
        p = scan_params(2, rev);
        CHECK_RULES(ctx, PRIM_CUMMAX, p, f64_uniform(ctx, DIMS(2, 2, 6)));
    }
    cj_ctx_free(ctx);
}

/* Each prefix's maximum takes the mean tangent of the elements attaining
 * it (reduce_max's convention applied to each prefix; a tie of two is
 * JAX's 0.5/0.5). */
TEST(ad_red_cummax_ties) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val x = f64_of(ctx, DIMS(6), (double[]){1, 3, 2, 3, 0, 3});
    cj_val t = f64_of(ctx, DIMS(6), (double[]){1, 10, 100, 1000, 10000, 100000});
    prim_params p = scan_params(0, 0);
    CHECK_JVP_VALUES(ctx, PRIM_CUMMAX, p, x, t, 1, 10, 10, 505, 505, 101010.0 / 3);
    p = scan_params(0, 1); /* suffixes: {3}, {0,3}, {3,0,3}, {2,...}, {3,2,...}, {1,...} */
    CHECK_JVP_VALUES(ctx, PRIM_CUMMAX, p, x, t, 101010.0 / 3, 101010.0 / 3, 50500, 50500, 100000, 100000);
    cj_val y = f64_of(ctx, DIMS(2, 3), (double[]){4, 4, 4, -1, 2, 7});
    cj_val ty = f64_of(ctx, DIMS(2, 3), (double[]){1, 10, 100, 1, 10, 100});
    p = scan_params(1, 0);
    CHECK_JVP_VALUES(ctx, PRIM_CUMMAX, p, y, ty, 1, 5.5, 37, 1, 10, 100);
    cj_ctx_free(ctx);
}

/* ---- end to end: cj_jvp and cj_vjp agree (<u, J v> = <J^T u, v>) ---- */

typedef adc_op one_prim;
#define CHECK_E2E(ctx, op, x) ADC_CHECK_E2E(ctx, op, TRANSPOSE_TOL, &seed_state, 1, x)

TEST(ad_red_end_to_end) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    one_prim op;
    const prim_id reductions[] = {PRIM_REDUCE_SUM, PRIM_REDUCE_PROD, PRIM_REDUCE_MAX, PRIM_REDUCE_MIN};
    for (int k = 0; k < 4; k++) {
        op = (one_prim){reductions[k], reduce_params(IV(0, 2)), 1};
        CHECK_E2E(ctx, op, f64_uniform(ctx, DIMS(3, 2, 4)));
    }
    const prim_id scans[] = {PRIM_CUMSUM, PRIM_CUMPROD, PRIM_CUMMAX};
    for (int k = 0; k < 3; k++)
        for (int rev = 0; rev < 2; rev++) {
            op = (one_prim){scans[k], scan_params(1, rev), 1};
            CHECK_E2E(ctx, op, f64_uniform(ctx, DIMS(2, 7, 3)));
        }
    cj_ctx_free(ctx);
}
