/* test_ad_dot_gather.c — the jvp and transpose rules of dot_general,
 * gather and scatter_add (src/autodiff/rules_dot_gather.c).
 *
 * Each case binds one primitive with explicit parameters on f64 operands
 * (and i32/i64 indices) and runs `verify`: for every non-empty set of float
 * operands, the jvp rule against central differences (tangents on that
 * set, symbolic zeros elsewhere); the transpose rule by the dot-product
 * test for every set the primitive is linear in (dot_general: one operand
 * at a time; scatter_add: operand, updates, or both); and the all-zero
 * tangent path must give a symbolic zero. dot_general cases cover batch
 * axes that are not leading, contracting axes paired out of order, outer
 * products and size-1 axes. Index cases mix duplicates, negative indices
 * and indices out of range, so the dot-product test (whose forward map is
 * the primitive itself) pins the transposes to gather's clamping and
 * scatter_add's dropping; closed-form checks say where the cotangents
 * land. An end-to-end check per primitive runs the public cj_jvp /
 * cj_vjp. */
#include <stdio.h>
#include <stdlib.h>

#include "ad_check.h"
#include "harness.h"

#define JVP_TOL 1e-6
#define TRANSPOSE_TOL 1e-12

static uint64_t seed_state = 4242;

static cj_val f64_uniform(cj_ctx *ctx, int rank, const int64_t *dims) {
    return adc_uniform(ctx, rank, dims, -2.0, 2.0, &seed_state);
}


static int read_doubles(cj_val v, double *buf, int64_t n) {
    if (cj_val_size(v) != n) return -1;
    return cj_read_as(v, CJ_F64, buf, sizeof(double) * (size_t)n) == CJ_OK ? 0 : -1;
}

static int is_float_operand(cj_val v) { return rt_is_float(core_peek(v)->aval.dtype); }

/* An index array of the given dtype from int64 values. */
static cj_val indices(cj_ctx *ctx, cj_dtype dt, int rank, const int64_t *dims, const int64_t *v) {
    int64_t n = 1;
    for (int d = 0; d < rank; d++) n *= dims[d];
    if (dt == CJ_I64) return cj_array(ctx, CJ_I64, rank, dims, v);
    int32_t buf[64];
    for (int64_t i = 0; i < n; i++) buf[i] = (int32_t)v[i];
    return cj_array(ctx, CJ_I32, rank, dims, buf);
}

/* Deterministic pseudo-random indices in [lo, hi). */
static cj_val random_indices(cj_ctx *ctx, cj_dtype dt, int rank, const int64_t *dims, int64_t lo, int64_t hi) {
    int64_t n = 1, v[64];
    for (int d = 0; d < rank; d++) n *= dims[d];
    for (int64_t i = 0; i < n; i++) v[i] = lo + (int64_t)(th_rand_u64(&seed_state) % (uint64_t)(hi - lo));
    return indices(ctx, dt, rank, dims, v);
}

/* ---- the generic check ---- */

/* Which sets of float operands the primitive may be transposed for:
 * dot_general is linear in one operand at a time; scatter_add is linear in
 * any set (x + scatter(updates) is additive, like add). */
static int transposable(prim_id prim, unsigned set) {
    if (prim == PRIM_DOT_GENERAL) return set == 1u || set == 2u;
    return 1;
}

/* For an additive primitive, the map is linear in a set of operands only
 * when the other float operands are zero (as in a linear program, where
 * they are symbolic zeros materialised); dot_general's fixed operand stays. */
static void fix_others(prim_id prim, int n_in, const cj_val *in, const int *flags, cj_val *fixed) {
    for (int i = 0; i < n_in; i++)
        fixed[i] = prim == PRIM_SCATTER_ADD && !flags[i] && is_float_operand(in[i]) ? cj_zeros_like(in[i]) : in[i];
}

/* 0 when every check passes; otherwise -1 with a message in why. */
static int verify(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in, char *why,
                  size_t why_size) {
    int float_ops[64], n_float = 0;
    for (int i = 0; i < n_in; i++)
        if (is_float_operand(in[i])) float_ops[n_float++] = i;
    cj_val zeros[64], tout = {ctx, 1, 0};
    for (int i = 0; i < n_in; i++) zeros[i] = (cj_val){ctx, 0, 0};
    cj_val out = core_bind(ctx, prim, p, n_in, in);
    if (!out.slot || prim_rules[prim].jvp(ctx, prim, p, n_in, in, zeros, out, &tout) != 0 || tout.slot != 0) {
        snprintf(why, why_size, "%s: zero tangents did not give a symbolic zero (%s)", prim_names[prim],
                 cj_error(ctx) ? cj_error_message(ctx) : "no error");
        return -1;
    }
    for (unsigned set = 1; set < (1u << n_float); set++) {
        int flags[64] = {0};
        for (int k = 0; k < n_float; k++) flags[float_ops[k]] = (set >> k) & 1;
        double ej = adc_prim_jvp_error(ctx, prim, p, n_in, in, flags, 1000 + set);
        if (!(ej >= 0 && ej < JVP_TOL)) {
            snprintf(why, why_size, "%s: jvp error %g with operand set %#x (%s)", prim_names[prim], ej, set,
                     cj_error(ctx) ? cj_error_message(ctx) : "no error");
            return -1;
        }
        if (!transposable(prim, set)) continue;
        cj_val fixed[64];
        fix_others(prim, n_in, in, flags, fixed);
        double et = adc_prim_transpose_error(ctx, prim, p, n_in, fixed, flags, 2000 + set);
        if (!(et >= 0 && et < TRANSPOSE_TOL)) {
            snprintf(why, why_size, "%s: transpose error %g with linear set %#x (%s)", prim_names[prim], et, set,
                     cj_error(ctx) ? cj_error_message(ctx) : "no error");
            return -1;
        }
    }
    return 0;
}

#define CHECK_RULES(ctx, prim, p, n, ...)                                                     \
    do {                                                                                      \
        char why_[512];                                                                       \
        cj_val ins_[] = {__VA_ARGS__};                                                        \
        CHECK_MSG(verify(ctx, prim, &(p), n, ins_, why_, sizeof why_) == 0, "%s", why_);      \
    } while (0)

/* ---- dot_general ---- */

static prim_params dot_params(prim_ivec lc, prim_ivec rc, prim_ivec lb, prim_ivec rb) {
    prim_params p = prim_params_zero();
    p.lhs_contract = lc, p.rhs_contract = rc, p.lhs_batch = lb, p.rhs_batch = rb;
    p.dtype = CJ_F64;
    return p;
}

TEST(ad_dot_general_matmul) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    prim_params p = dot_params(IV(1), IV(0), IV0, IV0);
    CHECK_RULES(ctx, PRIM_DOT_GENERAL, p, 2, f64_uniform(ctx, DIMS(3, 4)), f64_uniform(ctx, DIMS(4, 5)));
    p = dot_params(IV(0), IV(0), IV0, IV0); /* lhs transposed */
    CHECK_RULES(ctx, PRIM_DOT_GENERAL, p, 2, f64_uniform(ctx, DIMS(4, 3)), f64_uniform(ctx, DIMS(4, 5)));
    p = dot_params(IV(1), IV(1), IV0, IV0); /* rhs transposed */
    CHECK_RULES(ctx, PRIM_DOT_GENERAL, p, 2, f64_uniform(ctx, DIMS(3, 4)), f64_uniform(ctx, DIMS(5, 4)));
    p = dot_params(IV(0), IV(0), IV0, IV0); /* vector · vector → rank 0 */
    CHECK_RULES(ctx, PRIM_DOT_GENERAL, p, 2, f64_uniform(ctx, DIMS(5)), f64_uniform(ctx, DIMS(5)));
    p = dot_params(IV0, IV0, IV0, IV0); /* outer product */
    CHECK_RULES(ctx, PRIM_DOT_GENERAL, p, 2, f64_uniform(ctx, DIMS(3)), f64_uniform(ctx, DIMS(2)));
    p = dot_params(IV(1), IV(0), IV0, IV0); /* size-1 axes */
    CHECK_RULES(ctx, PRIM_DOT_GENERAL, p, 2, f64_uniform(ctx, DIMS(1, 4)), f64_uniform(ctx, DIMS(4, 1)));
    p = dot_params(IV(1), IV(0), IV0, IV0); /* size-1 contraction */
    CHECK_RULES(ctx, PRIM_DOT_GENERAL, p, 2, f64_uniform(ctx, DIMS(3, 1)), f64_uniform(ctx, DIMS(1, 2)));
    cj_ctx_free(ctx);
}

TEST(ad_dot_general_batched) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    prim_params p = dot_params(IV(2), IV(1), IV(0), IV(0)); /* bmm */
    CHECK_RULES(ctx, PRIM_DOT_GENERAL, p, 2, f64_uniform(ctx, DIMS(2, 3, 4)), f64_uniform(ctx, DIMS(2, 4, 5)));
    p = dot_params(IV(2), IV(0), IV(1), IV(1)); /* batch axes not leading */
    CHECK_RULES(ctx, PRIM_DOT_GENERAL, p, 2, f64_uniform(ctx, DIMS(3, 2, 4)), f64_uniform(ctx, DIMS(4, 2)));
    /* two contracting pairs in crossed order, a batch axis in the middle,
     * one free axis each side */
    p = dot_params(IV(0, 2), IV(3, 0), IV(1), IV(2));
    CHECK_RULES(ctx, PRIM_DOT_GENERAL, p, 2, f64_uniform(ctx, DIMS(4, 2, 3, 6)),
                f64_uniform(ctx, DIMS(3, 5, 2, 4)));
    p = dot_params(IV(1), IV(2), IV(2, 0), IV(0, 1)); /* two batch axes, paired out of order */
    CHECK_RULES(ctx, PRIM_DOT_GENERAL, p, 2, f64_uniform(ctx, DIMS(3, 4, 2)),
                f64_uniform(ctx, DIMS(2, 3, 4, 5)));
    p = dot_params(IV0, IV0, IV(0), IV(0)); /* batched outer product */
    CHECK_RULES(ctx, PRIM_DOT_GENERAL, p, 2, f64_uniform(ctx, DIMS(2, 3)), f64_uniform(ctx, DIMS(2, 4)));
    cj_ctx_free(ctx);
}

/* A vector contracted against a matrix (no free axes of its own: h's
 * cotangent in h·W, W·h): the transpose then binds dot_general(ct, y),
 * also when the other order would need no transpose either, so that under
 * vmap the batched cotangent keeps its batch axis outermost. The rules are
 * checked as above, including contracting pairs crossed (the transpose
 * still needed) and a batch axis; then vmap(grad) of a per-example loss
 * sum(tanh(h·W)) through cj_make_jaxpr (no transpose left: the layout is
 * the point) and against central differences of the loss per example. */
static void tanh_hw_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    cj_val hw = cj_dot_general(in[0], in[1], 1, (int64_t[]){0}, (int64_t[]){0}, 0, NULL, NULL);
    out[0] = cj_sum(cj_tanh(hw), 0, NULL, 0);
}

TEST(ad_dot_general_vector_against_matrix) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    prim_params p = dot_params(IV(0), IV(0), IV0, IV0); /* h · W */
    CHECK_RULES(ctx, PRIM_DOT_GENERAL, p, 2, f64_uniform(ctx, DIMS(4)), f64_uniform(ctx, DIMS(4, 5)));
    p = dot_params(IV(1), IV(0), IV0, IV0); /* W · h */
    CHECK_RULES(ctx, PRIM_DOT_GENERAL, p, 2, f64_uniform(ctx, DIMS(3, 4)), f64_uniform(ctx, DIMS(4)));
    p = dot_params(IV(0, 1), IV(2, 0), IV0, IV0); /* crossed pairs: a transpose remains */
    CHECK_RULES(ctx, PRIM_DOT_GENERAL, p, 2, f64_uniform(ctx, DIMS(4, 3)), f64_uniform(ctx, DIMS(3, 5, 4)));
    p = dot_params(IV(1), IV(1), IV(0), IV(0)); /* batched vector · matrix */
    CHECK_RULES(ctx, PRIM_DOT_GENERAL, p, 2, f64_uniform(ctx, DIMS(2, 4)), f64_uniform(ctx, DIMS(2, 4, 5)));

    enum { NB = 6, H = 5, O = 3 };
    cj_val hs = f64_uniform(ctx, DIMS(NB, H)), W = f64_uniform(ctx, DIMS(H, O));
    static const int64_t axes[2] = {0, CJ_NOT_MAPPED};
    cj_vmap_opts vo = {axes, NULL, 0, 0, 0};
    cj_func *per_example = cj_vmap(cj_grad(cj_func_new(ctx, "tanh_hw", tanh_hw_fn, 2, 1, NULL), NULL), &vo);
    cj_spec specs[2] = {cj_spec_of(hs), cj_spec_of(W)};
    char *text = cj_make_jaxpr(per_example, 2, specs);
    CHECK(text != NULL);
    int has_transpose = strstr(text, "transpose") != NULL;
    free(text);
    CHECK_MSG(!has_transpose, "vmap(grad) of a vector-matrix loss still transposes its cotangent");
    cj_val g;
    CHECK(cj_call(per_example, (cj_val[]){hs, W}, &g) == CJ_OK);
    double h[NB * H], w[H * O], got[NB * H];
    CHECK(read_doubles(hs, h, NB * H) == 0 && read_doubles(W, w, H * O) == 0 && read_doubles(g, got, NB * H) == 0);
    for (int b = 0; b < NB; b++)
        for (int i = 0; i < H; i++) {
            double f[2];
            for (int side = 0; side < 2; side++) {
                double x[H], step = 1e-6;
                memcpy(x, h + b * H, sizeof x);
                x[i] += side ? step : -step;
                f[side] = 0;
                for (int o = 0; o < O; o++) {
                    double d = 0;
                    for (int q = 0; q < H; q++) d += x[q] * w[q * O + o];
                    f[side] += tanh(d);
                }
            }
            CHECK_NEAR(got[b * H + i], (f[1] - f[0]) / 2e-6, 1e-6, 1e-8);
        }
    cj_ctx_free(ctx);
}

/* Both operands' tangents add up; the transposes give the textbook
 * matrix products. */
TEST(ad_dot_general_values) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    prim_params p = dot_params(IV(1), IV(0), IV0, IV0);
    cj_val a = cj_array(ctx, CJ_F64, DIMS(2, 2), (double[]){1, 2, 3, 4});
    cj_val b = cj_array(ctx, CJ_F64, DIMS(2, 2), (double[]){5, 6, 7, 8});
    cj_val ct = cj_array(ctx, CJ_F64, DIMS(2, 2), (double[]){1, 0, 0, 2});
    cj_val in[2] = {a, b}, tin[2] = {ct, ct}, out = core_bind(ctx, PRIM_DOT_GENERAL, &p, 2, in), tout;
    CHECK(prim_rules[PRIM_DOT_GENERAL].jvp(ctx, PRIM_DOT_GENERAL, &p, 2, in, tin, out, &tout) == 0);
    double got[4];
    CHECK(read_doubles(tout, got, 4) == 0);
    /* diag(1,2)·b + a·diag(1,2) = [[5,6],[14,16]] + [[1,4],[3,8]] */
    const double want_jvp[] = {6, 10, 17, 24};
    for (int i = 0; i < 4; i++) CHECK_NEAR(got[i], want_jvp[i], 0, 0);
    rt_aval avals[2] = {core_peek(a)->aval, core_peek(b)->aval};
    cj_val cts[2] = {{ctx, 0, 0}, {ctx, 0, 0}};
    int lhs_linear[2] = {1, 0};
    cj_val known[2] = {{ctx, 0, 0}, b};
    CHECK(prim_rules[PRIM_DOT_GENERAL].transpose(ctx, PRIM_DOT_GENERAL, &p, 2, known, lhs_linear, avals, ct, cts) == 0);
    CHECK(read_doubles(cts[0], got, 4) == 0); /* ct · bᵀ = [[5,7],[12,16]] */
    const double want_lhs[] = {5, 7, 12, 16};
    for (int i = 0; i < 4; i++) CHECK_NEAR(got[i], want_lhs[i], 0, 0);
    CHECK(cts[1].slot == 0);
    int rhs_linear[2] = {0, 1};
    cj_val known_a[2] = {a, {ctx, 0, 0}};
    CHECK(prim_rules[PRIM_DOT_GENERAL].transpose(ctx, PRIM_DOT_GENERAL, &p, 2, known_a, rhs_linear, avals, ct, cts) ==
          0);
    CHECK(read_doubles(cts[1], got, 4) == 0); /* aᵀ · ct = [[1,6],[2,8]] */
    const double want_rhs[] = {1, 6, 2, 8};
    for (int i = 0; i < 4; i++) CHECK_NEAR(got[i], want_rhs[i], 0, 0);
    cj_ctx_free(ctx);
}

/* ---- gather ---- */

static prim_params index_params(int64_t axis, int along) {
    prim_params p = prim_params_zero();
    p.axes = IV(axis);
    p.flag = along;
    return p;
}

TEST(ad_dot_gather_take) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    const cj_dtype dts[] = {CJ_I32, CJ_I64};
    for (int k = 0; k < 2; k++) {
        prim_params p = index_params(0, 0);
        /* duplicates, a negative index, one past each end */
        cj_val idx = indices(ctx, dts[k], DIMS(6), (int64_t[]){-1, 7, 2, -9, 0, 2});
        CHECK_RULES(ctx, PRIM_GATHER, p, 2, f64_uniform(ctx, DIMS(5)), idx);
        p = index_params(1, 0);
        idx = random_indices(ctx, dts[k], DIMS(2, 3), -6, 6);
        CHECK_RULES(ctx, PRIM_GATHER, p, 2, f64_uniform(ctx, DIMS(3, 4, 2)), idx);
        p = index_params(2, 0);
        idx = random_indices(ctx, dts[k], DIMS(5), -3, 5);
        CHECK_RULES(ctx, PRIM_GATHER, p, 2, f64_uniform(ctx, DIMS(2, 3, 3)), idx);
        p = index_params(1, 0); /* rank-0 index: the axis disappears */
        idx = indices(ctx, dts[k], 0, NULL, (int64_t[]){-2});
        CHECK_RULES(ctx, PRIM_GATHER, p, 2, f64_uniform(ctx, DIMS(3, 4)), idx);
        p = index_params(0, 0); /* a size-1 axis: everything clamps to 0 */
        idx = indices(ctx, dts[k], DIMS(4), (int64_t[]){0, 3, -1, -5});
        CHECK_RULES(ctx, PRIM_GATHER, p, 2, f64_uniform(ctx, DIMS(1, 3)), idx);
    }
    cj_ctx_free(ctx);
}

TEST(ad_dot_gather_along) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    const cj_dtype dts[] = {CJ_I32, CJ_I64};
    for (int k = 0; k < 2; k++) {
        prim_params p = index_params(1, 1);
        cj_val idx = random_indices(ctx, dts[k], DIMS(3, 5), -6, 6);
        CHECK_RULES(ctx, PRIM_GATHER, p, 2, f64_uniform(ctx, DIMS(3, 4)), idx);
        p = index_params(0, 1);
        idx = random_indices(ctx, dts[k], DIMS(6, 2, 3), -5, 5);
        CHECK_RULES(ctx, PRIM_GATHER, p, 2, f64_uniform(ctx, DIMS(4, 2, 3)), idx);
        p = index_params(2, 1);
        idx = random_indices(ctx, dts[k], DIMS(2, 1, 2), -4, 4);
        CHECK_RULES(ctx, PRIM_GATHER, p, 2, f64_uniform(ctx, DIMS(2, 1, 3)), idx);
    }
    cj_ctx_free(ctx);
}

/* ---- scatter_add ---- */

TEST(ad_dot_scatter_add_take) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    const cj_dtype dts[] = {CJ_I32, CJ_I64};
    for (int k = 0; k < 2; k++) {
        prim_params p = index_params(0, 0);
        cj_val idx = indices(ctx, dts[k], DIMS(6), (int64_t[]){-1, 7, 2, -9, 0, 2});
        CHECK_RULES(ctx, PRIM_SCATTER_ADD, p, 3, f64_uniform(ctx, DIMS(5)), idx, f64_uniform(ctx, DIMS(6)));
        p = index_params(1, 0);
        idx = random_indices(ctx, dts[k], DIMS(2, 3), -6, 6);
        CHECK_RULES(ctx, PRIM_SCATTER_ADD, p, 3, f64_uniform(ctx, DIMS(3, 4, 2)), idx,
                    f64_uniform(ctx, DIMS(3, 2, 3, 2)));
        p = index_params(2, 0);
        idx = random_indices(ctx, dts[k], DIMS(5), -4, 5);
        CHECK_RULES(ctx, PRIM_SCATTER_ADD, p, 3, f64_uniform(ctx, DIMS(2, 3, 3)), idx,
                    f64_uniform(ctx, DIMS(2, 3, 5)));
        p = index_params(1, 0); /* rank-0 index */
        idx = indices(ctx, dts[k], 0, NULL, (int64_t[]){-2});
        CHECK_RULES(ctx, PRIM_SCATTER_ADD, p, 3, f64_uniform(ctx, DIMS(3, 4)), idx, f64_uniform(ctx, DIMS(3)));
    }
    cj_ctx_free(ctx);
}

TEST(ad_dot_scatter_add_along) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    const cj_dtype dts[] = {CJ_I32, CJ_I64};
    for (int k = 0; k < 2; k++) {
        prim_params p = index_params(1, 1);
        cj_val idx = random_indices(ctx, dts[k], DIMS(3, 5), -6, 6);
        CHECK_RULES(ctx, PRIM_SCATTER_ADD, p, 3, f64_uniform(ctx, DIMS(3, 4)), idx, f64_uniform(ctx, DIMS(3, 5)));
        p = index_params(0, 1);
        idx = random_indices(ctx, dts[k], DIMS(6, 2, 3), -5, 5);
        CHECK_RULES(ctx, PRIM_SCATTER_ADD, p, 3, f64_uniform(ctx, DIMS(4, 2, 3)), idx,
                    f64_uniform(ctx, DIMS(6, 2, 3)));
    }
    cj_ctx_free(ctx);
}

/* Out-of-range positions: gather's cotangent goes to the CLAMPED positions
 * (both ends), scatter_add's dropped updates get zero. */
TEST(ad_dot_index_transpose_values) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    prim_params p = index_params(0, 0);
    cj_val idx = indices(ctx, CJ_I64, DIMS(4), (int64_t[]){-1, 5, -7, 0}); /* → 2, 2 (clamped), 0 (clamped), 0 */
    rt_aval x_aval = {.dtype = CJ_F64, .rank = 1, .dims = {3}};
    rt_aval upd_aval = {.dtype = CJ_F64, .rank = 1, .dims = {4}};
    rt_aval gather_avals[2] = {x_aval, core_peek(idx)->aval};
    cj_val ct = cj_array(ctx, CJ_F64, DIMS(4), (double[]){1, 10, 100, 1000});
    cj_val known[3] = {{ctx, 0, 0}, idx, {ctx, 0, 0}}, cts[3] = {{ctx, 0, 0}, {ctx, 0, 0}, {ctx, 0, 0}};
    int lin_x[3] = {1, 0, 0};
    CHECK(prim_rules[PRIM_GATHER].transpose(ctx, PRIM_GATHER, &p, 2, known, lin_x, gather_avals, ct, cts) == 0);
    double got[4];
    CHECK(read_doubles(cts[0], got, 3) == 0);
    CHECK_NEAR(got[0], 1100, 0, 0);
    CHECK_NEAR(got[1], 0, 0, 0);
    CHECK_NEAR(got[2], 11, 0, 0);

    rt_aval scatter_avals[3] = {x_aval, core_peek(idx)->aval, upd_aval};
    cj_val ct_x = cj_array(ctx, CJ_F64, DIMS(3), (double[]){1, 10, 100});
    int lin_both[3] = {1, 0, 1};
    cts[0] = cts[2] = (cj_val){ctx, 0, 0};
    CHECK(prim_rules[PRIM_SCATTER_ADD].transpose(ctx, PRIM_SCATTER_ADD, &p, 3, known, lin_both, scatter_avals, ct_x,
                                                 cts) == 0);
    CHECK(read_doubles(cts[0], got, 3) == 0); /* x passes through */
    CHECK_NEAR(got[0], 1, 0, 0);
    CHECK_NEAR(got[2], 100, 0, 0);
    CHECK(read_doubles(cts[2], got, 4) == 0); /* kept at 2 and 0; 5 and -7 dropped */
    const double want[] = {100, 0, 0, 1};
    for (int i = 0; i < 4; i++) CHECK_NEAR(got[i], want[i], 0, 0);
    cj_ctx_free(ctx);
}

/* ---- end to end: cj_jvp and cj_vjp agree (<u, J v> = <J^T u, v>) ---- */

typedef adc_op one_prim;
#define CHECK_E2E(ctx, op, n, ...) ADC_CHECK_E2E(ctx, op, TRANSPOSE_TOL, &seed_state, n, __VA_ARGS__)

TEST(ad_dot_end_to_end) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    one_prim op = {PRIM_DOT_GENERAL, dot_params(IV(0, 2), IV(3, 0), IV(1), IV(2)), 2};
    CHECK_E2E(ctx, op, 2, f64_uniform(ctx, DIMS(4, 2, 3, 6)), f64_uniform(ctx, DIMS(3, 5, 2, 4)));
    op = (one_prim){PRIM_GATHER, index_params(1, 0), 2};
    CHECK_E2E(ctx, op, 2, f64_uniform(ctx, DIMS(3, 4, 2)), random_indices(ctx, CJ_I32, DIMS(2, 3), -6, 6));
    op = (one_prim){PRIM_GATHER, index_params(1, 1), 2};
    CHECK_E2E(ctx, op, 2, f64_uniform(ctx, DIMS(3, 4)), random_indices(ctx, CJ_I64, DIMS(3, 5), -6, 6));
    op = (one_prim){PRIM_SCATTER_ADD, index_params(1, 0), 3};
    CHECK_E2E(ctx, op, 3, f64_uniform(ctx, DIMS(3, 4, 2)), random_indices(ctx, CJ_I32, DIMS(2, 3), -6, 6),
              f64_uniform(ctx, DIMS(3, 2, 3, 2)));
    op = (one_prim){PRIM_SCATTER_ADD, index_params(1, 1), 3};
    CHECK_E2E(ctx, op, 3, f64_uniform(ctx, DIMS(3, 4)), random_indices(ctx, CJ_I64, DIMS(3, 5), -6, 6),
              f64_uniform(ctx, DIMS(3, 5)));
    cj_ctx_free(ctx);
}
