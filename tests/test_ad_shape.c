/* test_ad_shape.c — the jvp and transpose rules of the shape and
 * data-movement primitives (src/autodiff/rules_shape.c).
 *
 * Each case binds one primitive with explicit parameters on f64 operands
 * and runs `verify`: for every non-empty set of float operands, the jvp
 * rule against central differences (tangents on that set, symbolic zeros
 * elsewhere) and the transpose rule by the dot-product test with that set
 * linear; and the all-zero tangent path must give a symbolic zero. Cases
 * cover size-1 axes, rank 0, empty windows, strides, negative padding and
 * clamped dynamic starts. Closed-form checks pin where cotangents land
 * (the dot-product test alone cannot tell which rule is at fault), and an
 * end-to-end check per primitive runs the public cj_jvp / cj_vjp. */
#include <stdio.h>

#include "ad_check.h"
#include "harness.h"

#define JVP_TOL 1e-6
#define TRANSPOSE_TOL 1e-12

/* ---- building cases ---- */

static uint64_t seed_state = 12345;

static cj_val f64_uniform(cj_ctx *ctx, int rank, const int64_t *dims) {
    return adc_uniform(ctx, rank, dims, -2.0, 2.0, &seed_state);
}

static cj_val f64_values(cj_ctx *ctx, int rank, const int64_t *dims, const double *v) {
    return cj_array(ctx, CJ_F64, rank, dims, v);
}

static cj_val index_val(cj_ctx *ctx, int64_t i) { return cj_scalar_typed(ctx, (double)i, CJ_I64); }


/* Reads a value as doubles into buf (n elements expected). */
static int read_doubles(cj_val v, double *buf, int64_t n) {
    if (cj_val_size(v) != n) return -1;
    return cj_read_as(v, CJ_F64, buf, sizeof(double) * (size_t)n) == CJ_OK ? 0 : -1;
}

static int is_float_operand(cj_val v) { return rt_is_float(core_peek(v)->aval.dtype); }

/* ---- the generic check ---- */

/* 0 when every check passes; otherwise -1 with a message in why. */
static int verify(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in, char *why,
                  size_t why_size) {
    int float_ops[64], n_float = 0;
    for (int i = 0; i < n_in; i++)
        if (is_float_operand(in[i])) float_ops[n_float++] = i;
    /* all tangents zero: a symbolic zero comes back */
    cj_val zeros[64], tout = {ctx, 1, 0};
    for (int i = 0; i < n_in; i++) zeros[i] = (cj_val){ctx, 0, 0};
    if (!prim_rules[prim].jvp) {
        snprintf(why, why_size, "%s: no jvp rule", prim_names[prim]);
        return -1;
    }
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
        /* these primitives are linear in all their float operands jointly:
         * the ones held fixed must be zero, or P would be affine */
        cj_val fixed[64];
        for (int i = 0; i < n_in; i++)
            fixed[i] = is_float_operand(in[i]) && !flags[i] ? cj_zeros_like(in[i]) : in[i];
        double et = adc_prim_transpose_error(ctx, prim, p, n_in, fixed, flags, 2000 + set);
        if (!(et >= 0 && et < TRANSPOSE_TOL)) {
            snprintf(why, why_size, "%s: transpose error %g with linear set %#x (%s)", prim_names[prim], et, set,
                     cj_error(ctx) ? cj_error_message(ctx) : "no error");
            return -1;
        }
    }
    return 0;
}

#define CHECK_RULES(ctx, prim, p, n, ...)                                  \
    do {                                                                   \
        char why_[512];                                                    \
        cj_val ins_[] = {__VA_ARGS__};                                     \
        CHECK_MSG(verify(ctx, prim, &(p), n, ins_, why_, sizeof why_) == 0, "%s", why_); \
    } while (0)

/* ---- broadcast_in_dim, reshape, transpose, squeeze, expand_dims ---- */

TEST(ad_shape_broadcast_in_dim) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    prim_params p = prim_params_zero();
    p.shape = IV(2, 3), p.axes = IV(1); /* a new leading axis */
    CHECK_RULES(ctx, PRIM_BROADCAST_IN_DIM, p, 1, f64_uniform(ctx, 1, (int64_t[]){3}));
    p.shape = IV(3, 4), p.axes = IV(0, 1); /* a size-1 axis stretched */
    CHECK_RULES(ctx, PRIM_BROADCAST_IN_DIM, p, 1, f64_uniform(ctx, 2, (int64_t[]){3, 1}));
    p.shape = IV(2, 2), p.axes = IV0; /* rank 0 to everything */
    CHECK_RULES(ctx, PRIM_BROADCAST_IN_DIM, p, 1, f64_uniform(ctx, 0, NULL));
    p.shape = IV(2, 4, 5, 3), p.axes = IV(0, 2, 3); /* new axis and stretched axis together */
    CHECK_RULES(ctx, PRIM_BROADCAST_IN_DIM, p, 1, f64_uniform(ctx, 3, (int64_t[]){2, 1, 3}));
    p.shape = IV(2, 1, 3), p.axes = IV(1, 2); /* a size-1 axis kept as size 1 */
    CHECK_RULES(ctx, PRIM_BROADCAST_IN_DIM, p, 1, f64_uniform(ctx, 2, (int64_t[]){1, 3}));
    cj_ctx_free(ctx);
}

TEST(ad_shape_reshape) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    prim_params p = prim_params_zero();
    p.shape = IV(6, 4);
    CHECK_RULES(ctx, PRIM_RESHAPE, p, 1, f64_uniform(ctx, 3, (int64_t[]){2, 3, 4}));
    p.shape = IV(1, 6, 1);
    CHECK_RULES(ctx, PRIM_RESHAPE, p, 1, f64_uniform(ctx, 1, (int64_t[]){6}));
    p.shape = IV0;
    CHECK_RULES(ctx, PRIM_RESHAPE, p, 1, f64_uniform(ctx, 2, (int64_t[]){1, 1}));
    cj_ctx_free(ctx);
}

TEST(ad_shape_transpose) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    prim_params p = prim_params_zero();
    p.axes = IV(2, 0, 1); /* not its own inverse */
    CHECK_RULES(ctx, PRIM_TRANSPOSE, p, 1, f64_uniform(ctx, 3, (int64_t[]){2, 3, 4}));
    p.axes = IV(1, 0);
    CHECK_RULES(ctx, PRIM_TRANSPOSE, p, 1, f64_uniform(ctx, 2, (int64_t[]){3, 5}));
    p.axes = IV(0, 3, 1, 2);
    CHECK_RULES(ctx, PRIM_TRANSPOSE, p, 1, f64_uniform(ctx, 4, (int64_t[]){2, 1, 3, 2}));
    cj_ctx_free(ctx);
}

TEST(ad_shape_squeeze) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    prim_params p = prim_params_zero();
    p.axes = IV(0, 2);
    CHECK_RULES(ctx, PRIM_SQUEEZE, p, 1, f64_uniform(ctx, 3, (int64_t[]){1, 3, 1}));
    p.axes = IV(1);
    CHECK_RULES(ctx, PRIM_SQUEEZE, p, 1, f64_uniform(ctx, 2, (int64_t[]){2, 1}));
    p.axes = IV(0); /* down to rank 0 */
    CHECK_RULES(ctx, PRIM_SQUEEZE, p, 1, f64_uniform(ctx, 1, (int64_t[]){1}));
    cj_ctx_free(ctx);
}

TEST(ad_shape_expand_dims) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    prim_params p = prim_params_zero();
    p.axes = IV(0);
    CHECK_RULES(ctx, PRIM_EXPAND_DIMS, p, 1, f64_uniform(ctx, 1, (int64_t[]){3}));
    p.axes = IV(1);
    CHECK_RULES(ctx, PRIM_EXPAND_DIMS, p, 1, f64_uniform(ctx, 2, (int64_t[]){2, 3}));
    p.axes = IV(2);
    CHECK_RULES(ctx, PRIM_EXPAND_DIMS, p, 1, f64_uniform(ctx, 2, (int64_t[]){2, 3}));
    p.axes = IV(0);
    CHECK_RULES(ctx, PRIM_EXPAND_DIMS, p, 1, f64_uniform(ctx, 0, NULL));
    cj_ctx_free(ctx);
}

/* ---- slice, rev ---- */

TEST(ad_shape_slice) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    prim_params p = prim_params_zero();
    p.lo = IV(1), p.hi = IV(4);
    CHECK_RULES(ctx, PRIM_SLICE, p, 1, f64_uniform(ctx, 1, (int64_t[]){5}));
    p.lo = IV(1, 0), p.hi = IV(5, 7), p.step = IV(2, 3);
    CHECK_RULES(ctx, PRIM_SLICE, p, 1, f64_uniform(ctx, 2, (int64_t[]){6, 7}));
    p.lo = IV(1), p.hi = IV(8), p.step = IV(3); /* the limit is not on the stride grid */
    CHECK_RULES(ctx, PRIM_SLICE, p, 1, f64_uniform(ctx, 1, (int64_t[]){10}));
    p.lo = IV(0), p.hi = IV(10), p.step = IV(4); /* last read at 8, one element left over */
    CHECK_RULES(ctx, PRIM_SLICE, p, 1, f64_uniform(ctx, 1, (int64_t[]){10}));
    p.lo = IV(2, 1), p.hi = IV(2, 4), p.step = IV0; /* an empty window */
    CHECK_RULES(ctx, PRIM_SLICE, p, 1, f64_uniform(ctx, 2, (int64_t[]){4, 5}));
    p.lo = IV(0, 2, 0), p.hi = IV(1, 3, 3), p.step = IV(1, 1, 2); /* size-1 axes */
    CHECK_RULES(ctx, PRIM_SLICE, p, 1, f64_uniform(ctx, 3, (int64_t[]){1, 4, 3}));
    cj_ctx_free(ctx);
}

TEST(ad_shape_rev) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    prim_params p = prim_params_zero();
    p.axes = IV(0);
    CHECK_RULES(ctx, PRIM_REV, p, 1, f64_uniform(ctx, 1, (int64_t[]){5}));
    p.axes = IV(0, 1);
    CHECK_RULES(ctx, PRIM_REV, p, 1, f64_uniform(ctx, 2, (int64_t[]){3, 4}));
    p.axes = IV(1);
    CHECK_RULES(ctx, PRIM_REV, p, 1, f64_uniform(ctx, 3, (int64_t[]){2, 3, 4}));
    p.axes = IV0;
    CHECK_RULES(ctx, PRIM_REV, p, 1, f64_uniform(ctx, 2, (int64_t[]){2, 3}));
    cj_ctx_free(ctx);
}

/* ---- dynamic_slice, dynamic_update_slice ---- */

TEST(ad_shape_dynamic_slice) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    prim_params p = prim_params_zero();
    cj_val x = f64_uniform(ctx, 2, (int64_t[]){5, 6});
    p.shape = IV(3, 2);
    CHECK_RULES(ctx, PRIM_DYNAMIC_SLICE, p, 3, x, index_val(ctx, 1), index_val(ctx, 2));
    /* starts out of range: clamped to (2, 0) */
    CHECK_RULES(ctx, PRIM_DYNAMIC_SLICE, p, 3, x, index_val(ctx, 4), index_val(ctx, -1));
    /* i32 starts, a full-width and a size-1 window */
    p.shape = IV(5, 1);
    CHECK_RULES(ctx, PRIM_DYNAMIC_SLICE, p, 3, x, cj_scalar_int(ctx, 0), cj_scalar_int(ctx, 5));
    p.shape = IV(2);
    CHECK_RULES(ctx, PRIM_DYNAMIC_SLICE, p, 2, f64_uniform(ctx, 1, (int64_t[]){7}), index_val(ctx, 3));
    cj_ctx_free(ctx);
}

TEST(ad_shape_dynamic_update_slice) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    prim_params p = prim_params_zero();
    cj_val x = f64_uniform(ctx, 2, (int64_t[]){5, 6}), u = f64_uniform(ctx, 2, (int64_t[]){2, 3});
    CHECK_RULES(ctx, PRIM_DYNAMIC_UPDATE_SLICE, p, 4, x, u, index_val(ctx, 1), index_val(ctx, 2));
    /* clamped to (3, 0) */
    CHECK_RULES(ctx, PRIM_DYNAMIC_UPDATE_SLICE, p, 4, x, u, index_val(ctx, 9), index_val(ctx, -3));
    CHECK_RULES(ctx, PRIM_DYNAMIC_UPDATE_SLICE, p, 3, f64_uniform(ctx, 1, (int64_t[]){7}),
                f64_uniform(ctx, 1, (int64_t[]){7}), cj_scalar_int(ctx, 2)); /* the update covers everything */
    CHECK_RULES(ctx, PRIM_DYNAMIC_UPDATE_SLICE, p, 3, f64_uniform(ctx, 1, (int64_t[]){4}),
                f64_uniform(ctx, 1, (int64_t[]){0}), cj_scalar_int(ctx, 2)); /* an empty update */
    cj_ctx_free(ctx);
}

/* ---- concatenate, pad ---- */

TEST(ad_shape_concatenate) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    prim_params p = prim_params_zero();
    p.axes = IV(0);
    CHECK_RULES(ctx, PRIM_CONCATENATE, p, 3, f64_uniform(ctx, 2, (int64_t[]){2, 3}),
                f64_uniform(ctx, 2, (int64_t[]){1, 3}), f64_uniform(ctx, 2, (int64_t[]){4, 3}));
    p.axes = IV(1);
    CHECK_RULES(ctx, PRIM_CONCATENATE, p, 3, f64_uniform(ctx, 2, (int64_t[]){2, 1}),
                f64_uniform(ctx, 2, (int64_t[]){2, 0}), f64_uniform(ctx, 2, (int64_t[]){2, 4}));
    p.axes = IV(0);
    CHECK_RULES(ctx, PRIM_CONCATENATE, p, 1, f64_uniform(ctx, 1, (int64_t[]){3}));
    cj_ctx_free(ctx);
}

TEST(ad_shape_pad) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    prim_params p = prim_params_zero();
    cj_val v = f64_uniform(ctx, 0, NULL);
    p.lo = IV(1), p.hi = IV(2);
    CHECK_RULES(ctx, PRIM_PAD, p, 2, f64_uniform(ctx, 1, (int64_t[]){4}), v);
    p.lo = IV(1, -1), p.hi = IV(-2, 2), p.step = IV(1, 0); /* cropping, interior padding */
    CHECK_RULES(ctx, PRIM_PAD, p, 2, f64_uniform(ctx, 2, (int64_t[]){3, 4}), v);
    p.lo = IV(-2), p.hi = IV(-1), p.step = IV(2); /* crops into the interior padding */
    CHECK_RULES(ctx, PRIM_PAD, p, 2, f64_uniform(ctx, 1, (int64_t[]){3}), v);
    p.lo = IV(1), p.hi = IV(1), p.step = IV(3); /* an empty operand: all padding */
    CHECK_RULES(ctx, PRIM_PAD, p, 2, f64_uniform(ctx, 1, (int64_t[]){0}), v);
    p.lo = IV0, p.hi = IV0, p.step = IV0; /* rank 0: the padding value is unused */
    CHECK_RULES(ctx, PRIM_PAD, p, 2, f64_uniform(ctx, 0, NULL), v);
    cj_ctx_free(ctx);
}

/* ---- iota ---- */

TEST(ad_shape_iota_zero_tangent) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    prim_params p = prim_params_zero();
    p.shape = IV(2, 3), p.axes = IV(1);
    cj_dtype dts[] = {CJ_I32, CJ_F64};
    for (int k = 0; k < 2; k++) {
        p.dtype = dts[k];
        cj_val out = core_bind(ctx, PRIM_IOTA, &p, 0, NULL), tout = {ctx, 1, 0};
        CHECK(out.slot != 0);
        CHECK(prim_rules[PRIM_IOTA].jvp != NULL);
        CHECK(prim_rules[PRIM_IOTA].jvp(ctx, PRIM_IOTA, &p, 0, NULL, NULL, out, &tout) == 0);
        CHECK(tout.slot == 0);
        double e = adc_prim_jvp_error(ctx, PRIM_IOTA, &p, 0, NULL, NULL, 7);
        CHECK(e == 0);
    }
    CHECK(prim_rules[PRIM_IOTA].transpose == NULL);
    cj_ctx_free(ctx);
}

/* ---- closed forms: where cotangents land ---- */

/* Runs the transpose rule with every float operand of `in` that `lin`
 * flags linear and cotangent ct; results in ct_in. */
static int run_transpose(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                         const int *lin, cj_val ct, cj_val *ct_in) {
    cj_val known[64];
    rt_aval avals[64];
    for (int i = 0; i < n_in; i++) {
        avals[i] = core_peek(in[i])->aval;
        known[i] = lin[i] ? (cj_val){ctx, 0, 0} : in[i];
        ct_in[i] = (cj_val){ctx, 0, 0};
    }
    return prim_rules[prim].transpose(ctx, prim, p, n_in, known, lin, avals, ct, ct_in);
}

static int equals(cj_val v, int64_t n, const double *want) {
    double got[64];
    if (n > 64 || read_doubles(v, got, n) != 0) return 0;
    for (int64_t i = 0; i < n; i++)
        if (got[i] != want[i]) return 0;
    return 1;
}

TEST(ad_shape_broadcast_transpose_sums_copies) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    prim_params p = prim_params_zero();
    p.shape = IV(2, 3, 4), p.axes = IV(1, 2); /* x [3,1]: summed over axes 0 and 2 */
    cj_val x = cj_zeros(ctx, CJ_F64, 2, (int64_t[]){3, 1});
    double ctv[24];
    for (int i = 0; i < 24; i++) ctv[i] = i;
    cj_val ct = f64_values(ctx, 3, (int64_t[]){2, 3, 4}, ctv), ct_in[1];
    CHECK(run_transpose(ctx, PRIM_BROADCAST_IN_DIM, &p, 1, &x, (int[]){1}, ct, ct_in) == 0);
    /* row r: sum over a, k of 12a + 4r + k = 2*(0+1+2+3) + 12*4 + 8*4r */
    const double want[3] = {60, 92, 124};
    CHECK(cj_val_rank(ct_in[0]) == 2 && equals(ct_in[0], 3, want));
    cj_ctx_free(ctx);
}

TEST(ad_shape_slice_transpose_strided_embedding) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    prim_params p = prim_params_zero();
    p.lo = IV(1), p.hi = IV(8), p.step = IV(3); /* reads 1, 4, 7 of 10 */
    cj_val x = cj_zeros(ctx, CJ_F64, 1, (int64_t[]){10}), ct_in[1];
    cj_val ct = f64_values(ctx, 1, (int64_t[]){3}, (double[]){1, 2, 3});
    CHECK(run_transpose(ctx, PRIM_SLICE, &p, 1, &x, (int[]){1}, ct, ct_in) == 0);
    const double want[10] = {0, 1, 0, 0, 2, 0, 0, 3, 0, 0};
    CHECK(equals(ct_in[0], 10, want));
    cj_ctx_free(ctx);
}

TEST(ad_shape_pad_transpose_crop_and_padding_value) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    prim_params p = prim_params_zero();
    /* x [3], lo -1, hi 2, interior 1: x0 cropped, x1 at 1, x2 at 3; the
     * padding value at 0, 2, 4, 5 */
    p.lo = IV(-1), p.hi = IV(2), p.step = IV(1);
    cj_val in[2] = {cj_zeros(ctx, CJ_F64, 1, (int64_t[]){3}), cj_scalar_typed(ctx, 0, CJ_F64)}, ct_in[2];
    cj_val ct = f64_values(ctx, 1, (int64_t[]){6}, (double[]){1, 2, 3, 4, 5, 6});
    CHECK(run_transpose(ctx, PRIM_PAD, &p, 2, in, (int[]){1, 1}, ct, ct_in) == 0);
    CHECK(equals(ct_in[0], 3, (double[]){0, 2, 4}));
    CHECK(cj_val_rank(ct_in[1]) == 0 && equals(ct_in[1], 1, (double[]){1 + 3 + 5 + 6}));
    cj_ctx_free(ctx);
}

TEST(ad_shape_dynamic_transposes_clamp_like_the_primal) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    prim_params p = prim_params_zero();
    cj_val ct5 = f64_values(ctx, 1, (int64_t[]){5}, (double[]){1, 2, 3, 4, 5}), ct_in[3];
    /* dynamic_update_slice of a [2] update at 7 in [5]: clamped to 3 */
    cj_val dus[3] = {cj_zeros(ctx, CJ_F64, 1, (int64_t[]){5}), cj_zeros(ctx, CJ_F64, 1, (int64_t[]){2}),
                     index_val(ctx, 7)};
    CHECK(run_transpose(ctx, PRIM_DYNAMIC_UPDATE_SLICE, &p, 3, dus, (int[]){1, 1, 0}, ct5, ct_in) == 0);
    CHECK(equals(ct_in[0], 5, (double[]){1, 2, 3, 0, 0}));
    CHECK(equals(ct_in[1], 2, (double[]){4, 5}));
    CHECK(ct_in[2].slot == 0); /* the start index is never linear */
    /* dynamic_slice of size 2 at -3 of [5]: clamped to 0 */
    p.shape = IV(2);
    cj_val ds[2] = {cj_zeros(ctx, CJ_F64, 1, (int64_t[]){5}), index_val(ctx, -3)};
    cj_val ct2 = f64_values(ctx, 1, (int64_t[]){2}, (double[]){7, 8});
    CHECK(run_transpose(ctx, PRIM_DYNAMIC_SLICE, &p, 2, ds, (int[]){1, 0}, ct2, ct_in) == 0);
    CHECK(equals(ct_in[0], 5, (double[]){7, 8, 0, 0, 0}));
    cj_ctx_free(ctx);
}

TEST(ad_shape_dynamic_update_slice_jvp_mixed_zero) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    prim_params p = prim_params_zero();
    cj_val in[3] = {cj_zeros(ctx, CJ_F64, 1, (int64_t[]){4}), cj_zeros(ctx, CJ_F64, 1, (int64_t[]){2}),
                    index_val(ctx, 1)};
    cj_val out = core_bind(ctx, PRIM_DYNAMIC_UPDATE_SLICE, &p, 3, in), tout;
    /* only the operand moves: its tangent shows outside the window */
    cj_val t_op[3] = {f64_values(ctx, 1, (int64_t[]){4}, (double[]){1, 2, 3, 4}), {ctx, 0, 0}, {ctx, 0, 0}};
    CHECK(prim_rules[PRIM_DYNAMIC_UPDATE_SLICE].jvp(ctx, PRIM_DYNAMIC_UPDATE_SLICE, &p, 3, in, t_op, out, &tout) == 0);
    CHECK(equals(tout, 4, (double[]){1, 0, 0, 4}));
    /* only the update moves: its tangent shows inside */
    cj_val t_up[3] = {{ctx, 0, 0}, f64_values(ctx, 1, (int64_t[]){2}, (double[]){5, 6}), {ctx, 0, 0}};
    CHECK(prim_rules[PRIM_DYNAMIC_UPDATE_SLICE].jvp(ctx, PRIM_DYNAMIC_UPDATE_SLICE, &p, 3, in, t_up, out, &tout) == 0);
    CHECK(equals(tout, 4, (double[]){0, 5, 6, 0}));
    cj_ctx_free(ctx);
}

/* ---- end to end: cj_jvp and cj_vjp agree (<u, J v> = <J^T u, v>) ---- */

typedef adc_op one_prim;
#define CHECK_E2E(ctx, op, n, ...) ADC_CHECK_E2E(ctx, op, TRANSPOSE_TOL, &seed_state, n, __VA_ARGS__)

TEST(ad_shape_end_to_end_jvp_vjp) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    one_prim op = {PRIM_BROADCAST_IN_DIM, prim_params_zero(), 0};
    op.p.shape = IV(2, 3, 4), op.p.axes = IV(1, 2);
    CHECK_E2E(ctx, op, 1, f64_uniform(ctx, 2, (int64_t[]){3, 1}));
    op = (one_prim){PRIM_RESHAPE, prim_params_zero(), 0};
    op.p.shape = IV(3, 2);
    CHECK_E2E(ctx, op, 1, f64_uniform(ctx, 2, (int64_t[]){2, 3}));
    op = (one_prim){PRIM_TRANSPOSE, prim_params_zero(), 0};
    op.p.axes = IV(2, 0, 1);
    CHECK_E2E(ctx, op, 1, f64_uniform(ctx, 3, (int64_t[]){2, 3, 4}));
    op = (one_prim){PRIM_SQUEEZE, prim_params_zero(), 0};
    op.p.axes = IV(1);
    CHECK_E2E(ctx, op, 1, f64_uniform(ctx, 3, (int64_t[]){2, 1, 3}));
    op = (one_prim){PRIM_EXPAND_DIMS, prim_params_zero(), 0};
    op.p.axes = IV(1);
    CHECK_E2E(ctx, op, 1, f64_uniform(ctx, 2, (int64_t[]){2, 3}));
    op = (one_prim){PRIM_SLICE, prim_params_zero(), 0};
    op.p.lo = IV(1, 0), op.p.hi = IV(5, 7), op.p.step = IV(2, 3);
    CHECK_E2E(ctx, op, 1, f64_uniform(ctx, 2, (int64_t[]){6, 7}));
    op = (one_prim){PRIM_DYNAMIC_SLICE, prim_params_zero(), 0};
    op.p.shape = IV(3, 2);
    CHECK_E2E(ctx, op, 3, f64_uniform(ctx, 2, (int64_t[]){5, 6}), index_val(ctx, 1), index_val(ctx, 9));
    op = (one_prim){PRIM_DYNAMIC_UPDATE_SLICE, prim_params_zero(), 0};
    CHECK_E2E(ctx, op, 4, f64_uniform(ctx, 2, (int64_t[]){5, 6}), f64_uniform(ctx, 2, (int64_t[]){2, 3}),
              index_val(ctx, 2), index_val(ctx, -1));
    op = (one_prim){PRIM_CONCATENATE, prim_params_zero(), 0};
    op.p.axes = IV(1);
    CHECK_E2E(ctx, op, 2, f64_uniform(ctx, 2, (int64_t[]){2, 1}), f64_uniform(ctx, 2, (int64_t[]){2, 4}));
    op = (one_prim){PRIM_PAD, prim_params_zero(), 0};
    op.p.lo = IV(1, -1), op.p.hi = IV(-2, 2), op.p.step = IV(1, 0);
    CHECK_E2E(ctx, op, 2, f64_uniform(ctx, 2, (int64_t[]){3, 4}), f64_uniform(ctx, 0, NULL));
    op = (one_prim){PRIM_REV, prim_params_zero(), 0};
    op.p.axes = IV(0, 2);
    CHECK_E2E(ctx, op, 1, f64_uniform(ctx, 3, (int64_t[]){2, 3, 4}));
    cj_ctx_free(ctx);
}
