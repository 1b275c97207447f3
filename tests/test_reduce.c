/* test_reduce.c — tests for the reduction family: the primitives of
 * src/prim/reduce.c (reduce_sum/prod/max/min, argmax/argmin,
 * cumsum/cumprod/cummax) through their public operations, and the
 * composites of src/api/reduce.c (mean, var, logsumexp, softmax,
 * log_softmax).
 *
 * Every result is checked against plain loops written here: sums and
 * products accumulate in double (f32 results get a tolerance scaled by
 * Σ|x|), integer sums and products wrap as in XLA, max/min propagate NaN.
 * Shapes cover every subset of axes of rank-3 and rank-4 operands, rank 0,
 * zero-size axes (the identities), and inputs large enough to go through
 * the thread pool by each of the kernel's strategies (many output rows,
 * column chunks, few outputs split into partial blocks, long scans).
 * Primitive-level validation is exercised by binding the primitives
 * directly with bad parameters. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/core.h"
#include "harness.h"
#include "test_util.h"

enum { R_SUM, R_PROD, R_MAX, R_MIN };
static const char *const op_names[] = {"sum", "prod", "max", "min"};
static const cj_dtype all_dtypes[] = {CJ_BOOL, CJ_I32, CJ_I64, CJ_F32, CJ_F64};

/* ---- building operands ---------------------------------------------------- */

static int is_float(cj_dtype dt) { return dt == CJ_F32 || dt == CJ_F64; }

static int64_t count_of(int rank, const int64_t *dims) {
    int64_t n = 1;
    for (int d = 0; d < rank; d++) n *= dims[d];
    return n;
}

/* v as the dtype stores it. */
static double as_dtype(cj_dtype dt, double v) {
    switch (dt) {
    case CJ_BOOL: return v != 0;
    case CJ_I32: return (double)(int32_t)v;
    case CJ_I64: return (double)(int64_t)v;
    case CJ_F32: return (double)(float)v;
    default: return v;
    }
}

static cj_val make(cj_ctx *ctx, cj_dtype dt, int rank, const int64_t *dims, const double *x) {
    int64_t n = count_of(rank, dims);
    void *buf = malloc((size_t)n * 8 + 8);
    for (int64_t i = 0; i < n; i++) {
        switch (dt) {
        case CJ_BOOL: ((uint8_t *)buf)[i] = x[i] != 0; break;
        case CJ_I32: ((int32_t *)buf)[i] = (int32_t)x[i]; break;
        case CJ_I64: ((int64_t *)buf)[i] = (int64_t)x[i]; break;
        case CJ_F32: ((float *)buf)[i] = (float)x[i]; break;
        default: ((double *)buf)[i] = x[i]; break;
        }
    }
    cj_val v = cj_array(ctx, dt, rank, dims, buf);
    free(buf);
    return v;
}

/* Random values suited to op: products stay near magnitude 1 (floats) or
 * small (ints, which still wrap on long products); values repeat often
 * enough among ints to make ties. */
static double *gen(int64_t n, cj_dtype dt, int op, uint64_t *seed) {
    double *x = malloc((size_t)(n ? n : 1) * sizeof(double));
    for (int64_t i = 0; i < n; i++) {
        double v;
        if (dt == CJ_BOOL) v = th_rand_u64(seed) & 1;
        else if (!is_float(dt)) v = (double)(int64_t)th_rand_uniform(seed, op == R_PROD ? -3 : -50, op == R_PROD ? 4 : 51);
        else if (op == R_PROD) v = th_rand_uniform(seed, 0.8, 1.25) * ((th_rand_u64(seed) & 1) ? 1 : -1);
        else v = th_rand_uniform(seed, -10, 10);
        x[i] = as_dtype(dt, v);
    }
    return x;
}

/* The result as doubles (floats) or exact int64 (ints, bools). */
static int read_f64(cj_val v, double *out, int64_t n) {
    return cj_read_as(v, CJ_F64, out, (size_t)(n ? n : 1) * sizeof(double)) == CJ_OK;
}
static int read_i64(cj_val v, int64_t *out, int64_t n) {
    return cj_read_as(v, CJ_I64, out, (size_t)(n ? n : 1) * sizeof(int64_t)) == CJ_OK;
}

/* ---- reference loops --------------------------------------------------------- */

/* Integer results wrap to the result dtype. */
static int64_t wrap(cj_dtype dt, uint64_t v) {
    return dt == CJ_I32 ? (int64_t)(int32_t)(uint32_t)v : (int64_t)v;
}

static double fcombine(int op, double acc, double v) {
    switch (op) {
    case R_SUM: return acc + v;
    case R_PROD: return acc * v;
    case R_MAX: return isnan(acc) || isnan(v) ? NAN : v > acc ? v : acc;
    default: return isnan(acc) || isnan(v) ? NAN : v < acc ? v : acc;
    }
}

static uint64_t icombine(int op, uint64_t acc, int64_t v) {
    switch (op) {
    case R_SUM: return acc + (uint64_t)v;
    case R_PROD: return acc * (uint64_t)v;
    case R_MAX: return (int64_t)acc > v ? acc : (uint64_t)v;
    default: return (int64_t)acc < v ? acc : (uint64_t)v;
    }
}

static double fidentity(int op) {
    return op == R_SUM ? 0 : op == R_PROD ? 1 : op == R_MAX ? -INFINITY : INFINITY;
}

static uint64_t iidentity(int op, cj_dtype dt) {
    if (op == R_SUM) return 0;
    if (op == R_PROD) return 1;
    if (dt == CJ_BOOL) return op == R_MAX ? 0 : 1;
    if (dt == CJ_I32) return (uint64_t)(int64_t)(op == R_MAX ? INT32_MIN : INT32_MAX);
    return (uint64_t)(op == R_MAX ? INT64_MIN : INT64_MAX);
}

/* Reduces x (rank, dims) over the axes in mask. out_dt is the result
 * dtype (bool sums count in i32). Writes fout (floats) or iout (ints) and
 * mag (Σ|x| per output, for tolerances). */
static void ref_reduce(int op, cj_dtype out_dt, int rank, const int64_t *dims, unsigned mask, const double *x,
                       double *fout, int64_t *iout, double *mag, int64_t n_out) {
    uint64_t *iacc = malloc((size_t)(n_out ? n_out : 1) * sizeof(uint64_t));
    for (int64_t o = 0; o < n_out; o++) {
        fout[o] = fidentity(op);
        iacc[o] = iidentity(op, out_dt);
        mag[o] = 0;
    }
    int64_t n = count_of(rank, dims), idx[CJ_MAX_RANK] = {0};
    int flt = is_float(out_dt);
    for (int64_t i = 0; i < n; i++) {
        int64_t o = 0;
        for (int d = 0; d < rank; d++)
            if (!((mask >> d) & 1)) o = o * dims[d] + idx[d];
        if (flt) fout[o] = fcombine(op, fout[o], x[i]);
        else iacc[o] = icombine(op, iacc[o], (int64_t)x[i]);
        mag[o] += fabs(x[i]);
        for (int d = rank - 1; d >= 0 && ++idx[d] == dims[d]; d--) idx[d] = 0; /* next index */
    }
    for (int64_t o = 0; o < n_out; o++) iout[o] = wrap(out_dt, iacc[o]);
    free(iacc);
}

/* Checks a result of reducing x over mask against ref_reduce. */
static void check_reduced(cj_val r, int op, cj_dtype in_dt, int rank, const int64_t *dims, unsigned mask,
                          const double *x, int keepdims, const char *what) {
    cj_dtype out_dt = in_dt == CJ_BOOL && (op == R_SUM || op == R_PROD) ? CJ_I32 : in_dt;
    CHECK_MSG(!cj_is_error(r), "%s: error %s", what, cj_error_message(r.ctx));
    CHECK_MSG(cj_val_dtype(r) == out_dt, "%s: dtype %s, want %s", what, cj_dtype_name(cj_val_dtype(r)),
              cj_dtype_name(out_dt));
    int64_t want_dims[CJ_MAX_RANK];
    int want_rank = 0;
    for (int d = 0; d < rank; d++) {
        if (!((mask >> d) & 1)) want_dims[want_rank++] = dims[d];
        else if (keepdims) want_dims[want_rank++] = 1;
    }
    int64_t got_dims[CJ_MAX_RANK];
    CHECK_MSG(cj_val_shape(r, got_dims) == want_rank, "%s: rank %d, want %d", what, cj_val_rank(r), want_rank);
    for (int d = 0; d < want_rank; d++)
        CHECK_MSG(got_dims[d] == want_dims[d], "%s: dim %d is %lld, want %lld", what, d, (long long)got_dims[d],
                  (long long)want_dims[d]);
    int64_t n_out = count_of(want_rank, want_dims);
    size_t sz = (size_t)(n_out ? n_out : 1);
    double *fref = malloc(sz * 8), *mag = malloc(sz * 8), *fgot = malloc(sz * 8);
    int64_t *iref = malloc(sz * 8), *igot = malloc(sz * 8);
    ref_reduce(op, out_dt, rank, dims, mask, x, fref, iref, mag, n_out);
    int ok = is_float(out_dt) ? read_f64(r, fgot, n_out) : read_i64(r, igot, n_out);
    int64_t bad = -1;
    double tol = out_dt == CJ_F32 ? 2e-6 : 1e-13;
    for (int64_t o = 0; ok && o < n_out && bad < 0; o++) {
        if (!is_float(out_dt)) {
            if (igot[o] != iref[o]) bad = o;
        } else if (op == R_SUM) {
            if (!th_close(fgot[o], fref[o], 0, tol * 4 * mag[o] + 1e-30)) bad = o;
        } else if (op == R_PROD) {
            double terms = mag[o] + 1; /* ~ the number of factors */
            if (!th_close(fgot[o], fref[o], tol * 4 * terms, 1e-300)) bad = o;
        } else if (!th_close(fgot[o], fref[o], 0, 0)) {
            bad = o;
        }
    }
    if (bad >= 0)
        th_fail(__FILE__, __LINE__, "%s: element %lld is %.17g, want %.17g", what, (long long)bad,
                is_float(out_dt) ? fgot[bad] : (double)igot[bad], is_float(out_dt) ? fref[bad] : (double)iref[bad]);
    else if (!ok)
        th_fail(__FILE__, __LINE__, "%s: read failed: %s", what, cj_error_message(r.ctx));
    free(fref);
    free(mag);
    free(fgot);
    free(iref);
    free(igot);
}

static cj_val reduce_op(int op, cj_val x, int n, const int64_t *axes, int keepdims) {
    switch (op) {
    case R_SUM: return cj_sum(x, n, axes, keepdims);
    case R_PROD: return cj_prod(x, n, axes, keepdims);
    case R_MAX: return cj_reduce_max(x, n, axes, keepdims);
    default: return cj_reduce_min(x, n, axes, keepdims);
    }
}

/* Every subset of the axes of one shape, for every op and dtype, with and
 * without keepdims; axes given half the time as negative numbers. */
static void check_all_subsets(int rank, const int64_t *dims, uint64_t seed) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t n = count_of(rank, dims);
    for (int op = R_SUM; op <= R_MIN; op++) {
        for (size_t t = 0; t < sizeof all_dtypes / sizeof *all_dtypes; t++) {
            cj_dtype dt = all_dtypes[t];
            double *x = gen(n, dt, op, &seed);
            cj_val v = make(ctx, dt, rank, dims, x);
            for (unsigned mask = 0; mask < (1u << rank); mask++) {
                int64_t axes[CJ_MAX_RANK];
                int k = 0;
                for (int d = 0; d < rank; d++)
                    if ((mask >> d) & 1) axes[k++] = (mask & 1) ? d - rank : d;
                for (int keep = 0; keep <= 1; keep++) {
                    char what[160];
                    snprintf(what, sizeof what, "%s %s rank %d mask %#x keepdims %d", op_names[op],
                             cj_dtype_name(dt), rank, mask, keep);
                    cj_scope_begin(ctx);
                    cj_val r = reduce_op(op, v, k, axes, keep);
                    check_reduced(r, op, dt, rank, dims, mask, x, keep, what);
                    cj_scope_end(ctx, 0, NULL);
                    if (th_failed_now()) break;
                }
                if (th_failed_now()) break;
            }
            free(x);
            if (th_failed_now()) break;
        }
        if (th_failed_now()) break;
    }
    cj_ctx_free(ctx);
}

TEST(reduce_every_axis_subset_rank3) { check_all_subsets(3, (const int64_t[]){3, 4, 5}, 1); }
TEST(reduce_every_axis_subset_rank4) { check_all_subsets(4, (const int64_t[]){2, 3, 4, 5}, 2); }
/* size-1 axes in the middle change the merged groups, long rows use the
 * lanes of the fold kernel */
TEST(reduce_every_axis_subset_size1_axes) { check_all_subsets(4, (const int64_t[]){3, 1, 70, 1}, 3); }
TEST(reduce_every_axis_subset_long_rows) { check_all_subsets(3, (const int64_t[]){2, 3, 700}, 4); }

TEST(reduce_all_axes_default) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 5;
    int64_t dims[3] = {4, 5, 6};
    double *x = gen(120, CJ_F64, R_SUM, &seed);
    cj_val v = make(ctx, CJ_F64, 3, dims, x);
    /* NULL axes and n_axes < 0 both mean every axis */
    check_reduced(cj_sum(v, -1, NULL, 0), R_SUM, CJ_F64, 3, dims, 7, x, 0, "sum n_axes -1");
    check_reduced(cj_sum(v, 2, NULL, 1), R_SUM, CJ_F64, 3, dims, 7, x, 1, "sum axes NULL keepdims");
    check_reduced(cj_reduce_max(v, -1, NULL, 0), R_MAX, CJ_F64, 3, dims, 7, x, 0, "max all");
    free(x);
    cj_ctx_free(ctx);
}

TEST(reduce_rank0) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val s = cj_scalar_typed(ctx, 2.5, CJ_F32);
    for (int op = R_SUM; op <= R_MIN; op++) {
        cj_val r = reduce_op(op, s, -1, NULL, op & 1);
        CHECK_EQ_INT(cj_val_rank(r), 0);
        CHECK_NEAR(cj_item_or_nan(r), 2.5, 0, 0);
    }
    cj_val b = cj_scalar_typed(ctx, 1, CJ_BOOL);
    CHECK_EQ_INT(cj_val_dtype(cj_sum(b, -1, NULL, 0)), CJ_I32);
    CHECK_NEAR(cj_item_or_nan(cj_sum(b, -1, NULL, 0)), 1, 0, 0);
    CHECK_NEAR(cj_item_or_nan(cj_cumsum(cj_scalar_typed(ctx, 1, CJ_F32), 0, 0)), NAN, 0, 0);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_cumsum: axis 0 is out of range for f32[]");
    cj_error_clear(ctx);
    CHECK(cj_is_error(cj_argmax(s, 0, 0)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_argmax: axis 0 is out of range for f32[]");
    cj_ctx_free(ctx);
}

/* Reducing an empty axis gives the identity, as in JAX: 0, 1, -inf/+inf
 * for floats, the integer limits for ints, false/true for bools. */
TEST(reduce_zero_size_identities) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t dims[3] = {3, 0, 2};
    for (size_t t = 0; t < sizeof all_dtypes / sizeof *all_dtypes; t++) {
        cj_dtype dt = all_dtypes[t];
        cj_val v = make(ctx, dt, 3, dims, NULL);
        int64_t ax = 1;
        for (int op = R_SUM; op <= R_MIN; op++) {
            for (int keep = 0; keep <= 1; keep++) {
                char what[96];
                snprintf(what, sizeof what, "empty %s %s keepdims %d", op_names[op], cj_dtype_name(dt), keep);
                check_reduced(reduce_op(op, v, 1, &ax, keep), op, dt, 3, dims, 2, NULL, keep, what);
                if (th_failed_now()) return;
            }
        }
    }
    /* the identities themselves, spelled out */
    cj_val e32 = make(ctx, CJ_F32, 1, (const int64_t[]){0}, NULL);
    CHECK_NEAR(cj_item_or_nan(cj_sum(e32, -1, NULL, 0)), 0, 0, 0);
    CHECK_NEAR(cj_item_or_nan(cj_prod(e32, -1, NULL, 0)), 1, 0, 0);
    CHECK_NEAR(cj_item_or_nan(cj_reduce_max(e32, -1, NULL, 0)), -INFINITY, 0, 0);
    CHECK_NEAR(cj_item_or_nan(cj_reduce_min(e32, -1, NULL, 0)), INFINITY, 0, 0);
    cj_val ei = make(ctx, CJ_I32, 1, (const int64_t[]){0}, NULL);
    int64_t m;
    CHECK(cj_item_int(cj_reduce_max(ei, -1, NULL, 0), &m) == CJ_OK && m == INT32_MIN);
    CHECK(cj_item_int(cj_reduce_min(ei, -1, NULL, 0), &m) == CJ_OK && m == INT32_MAX);
    /* reducing a non-empty axis of an empty array gives an empty result */
    cj_val r = cj_sum(make(ctx, CJ_F32, 2, (const int64_t[]){0, 4}, NULL), 1, (const int64_t[]){1}, 0);
    CHECK_EQ_INT(cj_val_size(r), 0);
    CHECK_EQ_INT(cj_val_dim(r, 0), 0);
    CHECK(!cj_error(ctx));
    cj_ctx_free(ctx);
}

/* NaN anywhere in a max/min wins, in the lanes of a long contiguous fold,
 * in a short one and when accumulating rows. */
TEST(reduce_max_min_propagate_nan) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 7;
    const int64_t shapes[][2] = {{4, 5}, {3, 1000}, {1000, 3}, {2, 70000}};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        for (int f64 = 0; f64 <= 1; f64++) {
            cj_dtype dt = f64 ? CJ_F64 : CJ_F32;
            int64_t n = shapes[s][0] * shapes[s][1];
            double *x = gen(n, dt, R_MAX, &seed);
            for (int k = 0; k < 3; k++) x[th_rand_u64(&seed) % (uint64_t)n] = NAN;
            x[n - 1] = NAN; /* in the tail after the lanes */
            cj_val v = make(ctx, dt, 2, shapes[s], x);
            for (unsigned mask = 1; mask < 4; mask++) {
                int64_t axes[2];
                int k = 0;
                for (int d = 0; d < 2; d++)
                    if ((mask >> d) & 1) axes[k++] = d;
                for (int op = R_SUM; op <= R_MIN; op++) {
                    char what[96];
                    snprintf(what, sizeof what, "nan %s %s [%lld,%lld] mask %u", op_names[op], cj_dtype_name(dt),
                             (long long)shapes[s][0], (long long)shapes[s][1], mask);
                    check_reduced(reduce_op(op, v, k, axes, 0), op, dt, 2, shapes[s], mask, x, 0, what);
                    if (th_failed_now()) return;
                }
            }
            free(x);
        }
    }
    cj_ctx_free(ctx);
}

/* Inputs past the threading threshold, shaped to reach each strategy of
 * the kernel: many output rows (last axis), column chunks and partial
 * blocks (leading axes), few long rows split into pieces, the general
 * alternating pattern, and a full reduction. */
TEST(reduce_large_inputs_every_strategy) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 11;
    struct {
        int rank;
        int64_t dims[4];
        unsigned mask;
    } cases[] = {
        {2, {1000, 1000}, 1}, {2, {1000, 1000}, 2}, {2, {1000, 1000}, 3}, {2, {3, 300000}, 2},
        {2, {300000, 3}, 1},  {2, {4096, 40}, 1},   {3, {64, 64, 64}, 5}, {3, {7, 5000, 9}, 2},
        {4, {6, 50, 7, 60}, 10}, {4, {6, 50, 7, 60}, 5}, {1, {1 << 20}, 1}, {3, {2, 200000, 2}, 5},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        int64_t n = count_of(cases[c].rank, cases[c].dims);
        const cj_dtype dts[] = {CJ_F32, CJ_F64, CJ_I32};
        for (size_t t = 0; t < 3; t++) {
            double *x = gen(n, dts[t], R_SUM, &seed);
            cj_val v = make(ctx, dts[t], cases[c].rank, cases[c].dims, x);
            int64_t axes[4];
            int k = 0;
            for (int d = 0; d < cases[c].rank; d++)
                if ((cases[c].mask >> d) & 1) axes[k++] = d;
            const int ops[] = {R_SUM, R_MAX, R_MIN};
            for (int o = 0; o < 3; o++) {
                int op = ops[o];
                char what[128];
                snprintf(what, sizeof what, "large case %zu %s %s", c, op_names[op], cj_dtype_name(dts[t]));
                cj_scope_begin(ctx);
                check_reduced(reduce_op(op, v, k, axes, 0), op, dts[t], cases[c].rank, cases[c].dims, cases[c].mask, x,
                              0, what);
                cj_scope_end(ctx, 0, NULL);
                if (th_failed_now()) return;
            }
            free(x);
        }
    }
    cj_ctx_free(ctx);
}

/* 1000×1000 f32 ones: every sum is exact, whatever the order. */
TEST(reduce_sum_f32_1000x1000_exact) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t dims[2] = {1000, 1000};
    float *ones = malloc(1000000 * sizeof(float));
    for (int i = 0; i < 1000000; i++) ones[i] = 1.0f;
    cj_val v = cj_array(ctx, CJ_F32, 2, dims, ones);
    free(ones);
    float got[1000];
    for (int64_t ax = 0; ax < 2; ax++) {
        CHECK(cj_read(cj_sum(v, 1, &ax, 0), got, sizeof got) == CJ_OK);
        for (int i = 0; i < 1000; i++) CHECK_NEAR(got[i], 1000, 0, 0);
    }
    CHECK_NEAR(cj_item_or_nan(cj_sum(v, -1, NULL, 0)), 1e6, 0, 0);
    cj_ctx_free(ctx);
}

TEST(reduce_int_sums_wrap) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int32_t big[3] = {INT32_MAX, INT32_MAX, 5};
    cj_val v = cj_array(ctx, CJ_I32, 1, (const int64_t[]){3}, big);
    int64_t s;
    CHECK(cj_item_int(cj_sum(v, -1, NULL, 0), &s) == CJ_OK);
    CHECK_EQ_INT(s, (int32_t)((uint32_t)INT32_MAX * 2u + 5u));
    CHECK(cj_item_int(cj_prod(v, -1, NULL, 0), &s) == CJ_OK);
    CHECK_EQ_INT(s, (int32_t)((uint32_t)INT32_MAX * (uint32_t)INT32_MAX * 5u));
    cj_ctx_free(ctx);
}

/* jnp dtype rules: bool sums and products count in i32; ints keep their
 * dtype; max/min keep bool; weak types survive a reduction. */
TEST(reduce_result_dtypes) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint8_t b[5] = {1, 0, 1, 1, 0};
    cj_val vb = cj_array(ctx, CJ_BOOL, 1, (const int64_t[]){5}, b);
    CHECK_EQ_INT(cj_val_dtype(cj_sum(vb, -1, NULL, 0)), CJ_I32);
    CHECK_NEAR(cj_item_or_nan(cj_sum(vb, -1, NULL, 0)), 3, 0, 0);
    CHECK_EQ_INT(cj_val_dtype(cj_prod(vb, -1, NULL, 0)), CJ_I32);
    CHECK_NEAR(cj_item_or_nan(cj_prod(vb, -1, NULL, 0)), 0, 0, 0);
    CHECK_EQ_INT(cj_val_dtype(cj_reduce_max(vb, -1, NULL, 0)), CJ_BOOL);
    CHECK_NEAR(cj_item_or_nan(cj_reduce_max(vb, -1, NULL, 0)), 1, 0, 0);
    CHECK_NEAR(cj_item_or_nan(cj_reduce_min(vb, -1, NULL, 0)), 0, 0, 0);
    CHECK_EQ_INT(cj_val_dtype(cj_cumsum(vb, 0, 0)), CJ_I32);
    CHECK_EQ_INT(cj_val_dtype(cj_cummax(vb, 0, 0)), CJ_BOOL);
    CHECK_EQ_INT(cj_val_dtype(cj_argmax(vb, 0, 0)), CJ_I32);
    int64_t i64s[2] = {1, 2};
    CHECK_EQ_INT(cj_val_dtype(cj_sum(cj_array(ctx, CJ_I64, 1, (const int64_t[]){2}, i64s), -1, NULL, 0)), CJ_I64);
    cj_val w = cj_scalar(ctx, 3.0);
    CHECK(cj_val_weak(cj_sum(w, -1, NULL, 0)));
    CHECK(!cj_val_weak(cj_argmax(cj_array(ctx, CJ_I64, 1, (const int64_t[]){2}, i64s), 0, 0)));
    CHECK_EQ_INT(cj_val_dtype(cj_mean(vb, -1, NULL, 0)), CJ_F32);
    CHECK_NEAR(cj_item_or_nan(cj_mean(vb, -1, NULL, 0)), 0.6, 1e-6, 0);
    CHECK(!cj_error(ctx));
    cj_ctx_free(ctx);
}

TEST(reduce_axis_errors) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val v = cj_zeros(ctx, CJ_F32, 3, (const int64_t[]){2, 3, 4});
    CHECK(cj_is_error(cj_sum(v, 1, (const int64_t[]){3}, 0)));
    CHECK_EQ_INT(cj_error(ctx), CJ_ERR_AXIS);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_sum: axis 3 is out of range for f32[2,3,4]");
    cj_error_clear(ctx);
    CHECK(cj_is_error(cj_reduce_max(v, 2, (const int64_t[]){2, -1}, 0)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_reduce_max: axis -1 is repeated for f32[2,3,4]");
    cj_error_clear(ctx);
    CHECK(cj_is_error(cj_prod(v, 1, (const int64_t[]){-4}, 1)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_prod: axis -4 is out of range");
    cj_error_clear(ctx);
    CHECK(cj_is_error(cj_argmin(v, 5, 0)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_argmin: axis 5 is out of range for f32[2,3,4]");
    cj_error_clear(ctx);
    CHECK(cj_is_error(cj_cumprod(v, -4, 0)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_cumprod: axis -4 is out of range for f32[2,3,4]");
    cj_error_clear(ctx);
    CHECK(cj_is_error(cj_softmax(v, 3)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_softmax: axis 3 is out of range for f32[2,3,4]");
    cj_error_clear(ctx);
    CHECK(cj_is_error(cj_mean(v, 2, (const int64_t[]){0, 0}, 0)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_mean: axis 0 is repeated");
    cj_error_clear(ctx);
    /* an error value in gives an error value out, with the first message kept */
    CHECK(cj_is_error(cj_sum(cj_sum(v, 1, (const int64_t[]){9}, 0), -1, NULL, 0)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "axis 9");
    cj_error_clear(ctx);
    cj_val none = {ctx, 0, 0};
    CHECK(cj_is_error(cj_logsumexp(none, -1, NULL, 0)));
    CHECK(cj_error(ctx) != CJ_OK);
    cj_error_clear(ctx);
    CHECK(cj_is_error(cj_sum((cj_val){NULL, 0, 0}, -1, NULL, 0)));
    cj_ctx_free(ctx);
}

/* ---- arg-reductions ------------------------------------------------------ */

static int64_t ref_arg(int is_max, const double *x, int64_t n, int64_t stride) {
    int64_t best = 0;
    for (int64_t a = 1; a < n; a++) {
        double v = x[a * stride], b = x[best * stride];
        if (isnan(b)) break;
        if (isnan(v) || (is_max ? v > b : v < b)) best = a;
    }
    return best;
}

static void check_arg(cj_ctx *ctx, int is_max, cj_dtype dt, int rank, const int64_t *dims, const double *x,
                      int64_t axis, int keepdims) {
    cj_val v = make(ctx, dt, rank, dims, x);
    cj_val r = is_max ? cj_argmax(v, axis, keepdims) : cj_argmin(v, axis, keepdims);
    int64_t ax = axis < 0 ? axis + rank : axis;
    CHECK_MSG(!cj_is_error(r), "arg: %s", cj_error_message(ctx));
    CHECK_EQ_INT(cj_val_dtype(r), CJ_I32);
    CHECK_EQ_INT(cj_val_rank(r), keepdims ? rank : rank - 1);
    if (keepdims) CHECK_EQ_INT(cj_val_dim(r, (int)ax), 1);
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < ax; d++) outer *= dims[d];
    for (int d = (int)ax + 1; d < rank; d++) inner *= dims[d];
    int64_t n = dims[ax];
    int64_t *got = malloc((size_t)(outer * inner + 1) * sizeof(int64_t));
    CHECK(read_i64(r, got, outer * inner));
    for (int64_t o = 0; o < outer; o++) {
        for (int64_t c = 0; c < inner; c++) {
            int64_t want = ref_arg(is_max, x + o * n * inner + c, n, inner);
            if (got[o * inner + c] != want) {
                th_fail(__FILE__, __LINE__, "arg%s %s axis %lld: element (%lld, %lld) is %lld, want %lld",
                        is_max ? "max" : "min", cj_dtype_name(dt), (long long)axis, (long long)o, (long long)c,
                        (long long)got[o * inner + c], (long long)want);
                free(got);
                return;
            }
        }
    }
    free(got);
}

/* Small integer values make many ties: the first occurrence must win. */
TEST(reduce_argmax_argmin_every_axis) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 13;
    int64_t dims[3] = {4, 5, 6};
    for (size_t t = 0; t < sizeof all_dtypes / sizeof *all_dtypes; t++) {
        double *x = gen(120, all_dtypes[t], R_MAX, &seed);
        if (is_float(all_dtypes[t]))
            for (int i = 0; i < 120; i++) x[i] = floor(x[i] / 4); /* ties among floats too */
        for (int64_t axis = -3; axis < 3; axis++)
            for (int is_max = 0; is_max <= 1; is_max++) {
                check_arg(ctx, is_max, all_dtypes[t], 3, dims, x, axis, axis == 1);
                if (th_failed_now()) return;
            }
        free(x);
    }
    cj_ctx_free(ctx);
}

TEST(reduce_argmax_nan_and_ties) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    double x[8] = {1, 3, NAN, 3, NAN, -INFINITY, 3, 0};
    cj_val v = make(ctx, CJ_F32, 1, (const int64_t[]){8}, x);
    CHECK_NEAR(cj_item_or_nan(cj_argmax(v, 0, 0)), 2, 0, 0); /* the first NaN */
    CHECK_NEAR(cj_item_or_nan(cj_argmin(v, 0, 0)), 2, 0, 0);
    double y[6] = {2, 7, 7, -1, -1, 7};
    cj_val w = make(ctx, CJ_F64, 1, (const int64_t[]){6}, y);
    CHECK_NEAR(cj_item_or_nan(cj_argmax(w, 0, 0)), 1, 0, 0);
    CHECK_NEAR(cj_item_or_nan(cj_argmin(w, 0, 0)), 3, 0, 0);
    double z[3] = {-INFINITY, -INFINITY, -INFINITY};
    CHECK_NEAR(cj_item_or_nan(cj_argmax(make(ctx, CJ_F32, 1, (const int64_t[]){3}, z), 0, 0)), 0, 0, 0);
    /* NaN along a strided axis */
    double m[6] = {1, 5, NAN, 2, 9, NAN}; /* [3,2]: columns {1,NaN,9} {5,2,NaN} */
    int32_t idx[2];
    CHECK(cj_read(cj_argmax(make(ctx, CJ_F32, 2, (const int64_t[]){3, 2}, m), 0, 0), idx, sizeof idx) == CJ_OK);
    CHECK_EQ_INT(idx[0], 1);
    CHECK_EQ_INT(idx[1], 2);
    CHECK(cj_read(cj_argmin(make(ctx, CJ_F32, 2, (const int64_t[]){3, 2}, m), 0, 0), idx, sizeof idx) == CJ_OK);
    CHECK_EQ_INT(idx[0], 1);
    CHECK_EQ_INT(idx[1], 2);
    CHECK(!cj_error(ctx));
    cj_ctx_free(ctx);
}

TEST(reduce_argmax_empty_axis_is_an_error) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val v = make(ctx, CJ_F32, 2, (const int64_t[]){3, 0}, NULL);
    CHECK(cj_is_error(cj_argmax(v, 1, 0)));
    CHECK_EQ_INT(cj_error(ctx), CJ_ERR_SHAPE);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "argmax: cannot take the argmax of an empty axis (axis 1 of f32[3,0])");
    cj_error_clear(ctx);
    CHECK(cj_is_error(cj_argmin(v, -1, 1)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "argmin: cannot take the argmin of an empty axis");
    cj_error_clear(ctx);
    /* a non-empty axis of an empty array is fine: an empty result */
    cj_val r = cj_argmax(v, 0, 0);
    CHECK(!cj_is_error(r));
    CHECK_EQ_INT(cj_val_size(r), 0);
    cj_ctx_free(ctx);
}

TEST(reduce_argmax_large) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 17;
    /* one long row (split across threads), many rows, a strided axis */
    const int64_t shapes[][2] = {{1, 1 << 20}, {2, 300000}, {1000, 500}, {500, 1000}};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        int64_t n = shapes[s][0] * shapes[s][1];
        double *x = gen(n, CJ_I32, R_MAX, &seed); /* values in [-50, 50]: ties everywhere */
        x[n - 3] = 1000;
        x[n / 2 + 1] = 1000;
        x[n - 2] = -1000;
        x[n / 3] = -1000;
        for (int64_t axis = 0; axis < 2; axis++)
            for (int is_max = 0; is_max <= 1; is_max++) {
                check_arg(ctx, is_max, CJ_F32, 2, shapes[s], x, axis, 0);
                check_arg(ctx, is_max, CJ_I64, 2, shapes[s], x, axis, 0);
                if (th_failed_now()) return;
            }
        free(x);
    }
    cj_ctx_free(ctx);
}

/* ---- cumulative ops --------------------------------------------------------- */

static void check_cum(cj_ctx *ctx, int op, cj_dtype dt, int rank, const int64_t *dims, const double *x,
                      int64_t axis, int reverse) {
    cj_val v = make(ctx, dt, rank, dims, x);
    cj_val r = op == R_SUM ? cj_cumsum(v, axis, reverse) : op == R_PROD ? cj_cumprod(v, axis, reverse)
                                                                        : cj_cummax(v, axis, reverse);
    cj_dtype out_dt = dt == CJ_BOOL && op != R_MAX ? CJ_I32 : dt;
    CHECK_MSG(!cj_is_error(r), "cum: %s", cj_error_message(ctx));
    CHECK_EQ_INT(cj_val_dtype(r), out_dt);
    int64_t ax = axis < 0 ? axis + rank : axis;
    int64_t outer = 1, inner = 1, n = dims[ax];
    for (int d = 0; d < ax; d++) outer *= dims[d];
    for (int d = (int)ax + 1; d < rank; d++) inner *= dims[d];
    int64_t total = outer * n * inner;
    double *fgot = malloc((size_t)(total + 1) * 8);
    int64_t *igot = malloc((size_t)(total + 1) * 8);
    CHECK(is_float(out_dt) ? read_f64(r, fgot, total) : read_i64(r, igot, total));
    double tol = out_dt == CJ_F32 ? 1e-5 : 1e-12;
    for (int64_t o = 0; o < outer; o++) {
        for (int64_t c = 0; c < inner; c++) {
            double facc = fidentity(op), mag = 0;
            uint64_t iacc = iidentity(op, out_dt);
            for (int64_t k = 0; k < n; k++) {
                int64_t a = reverse ? n - 1 - k : k;
                int64_t i = (o * n + a) * inner + c;
                facc = fcombine(op, facc, x[i]);
                iacc = icombine(op, iacc, (int64_t)x[i]);
                mag += fabs(x[i]);
                int ok = is_float(out_dt)
                             ? th_close(fgot[i], facc, op == R_PROD ? tol * (double)(k + 2) : 0,
                                        op == R_SUM ? tol * mag : 0)
                             : igot[i] == wrap(out_dt, iacc);
                if (!ok) {
                    th_fail(__FILE__, __LINE__, "cum%s %s axis %lld reverse %d: element %lld is %.17g, want %.17g",
                            op_names[op], cj_dtype_name(dt), (long long)axis, reverse, (long long)i,
                            is_float(out_dt) ? fgot[i] : (double)igot[i],
                            is_float(out_dt) ? facc : (double)wrap(out_dt, iacc));
                    free(fgot);
                    free(igot);
                    return;
                }
            }
        }
    }
    free(fgot);
    free(igot);
}

TEST(reduce_cumulative_every_axis) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 19;
    int64_t dims[3] = {3, 4, 5};
    const int ops[] = {R_SUM, R_PROD, R_MAX};
    for (size_t t = 0; t < sizeof all_dtypes / sizeof *all_dtypes; t++)
        for (int o = 0; o < 3; o++) {
            double *x = gen(60, all_dtypes[t], ops[o], &seed);
            for (int64_t axis = -3; axis < 3; axis++)
                for (int rev = 0; rev <= 1; rev++) {
                    check_cum(ctx, ops[o], all_dtypes[t], 3, dims, x, axis, rev);
                    if (th_failed_now()) return;
                }
            free(x);
        }
    cj_ctx_free(ctx);
}

TEST(reduce_cummax_nan_sticks) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    double x[6] = {1, 4, NAN, 9, 2, 3};
    float got[6];
    CHECK(cj_read(cj_cummax(make(ctx, CJ_F32, 1, (const int64_t[]){6}, x), 0, 0), got, sizeof got) == CJ_OK);
    CHECK_NEAR(got[0], 1, 0, 0);
    CHECK_NEAR(got[1], 4, 0, 0);
    for (int i = 2; i < 6; i++) CHECK(isnan(got[i]));
    CHECK(cj_read(cj_cummax(make(ctx, CJ_F32, 1, (const int64_t[]){6}, x), 0, 1), got, sizeof got) == CJ_OK);
    for (int i = 0; i < 3; i++) CHECK(isnan(got[i]));
    CHECK_NEAR(got[3], 9, 0, 0);
    CHECK_NEAR(got[4], 3, 0, 0);
    CHECK_NEAR(got[5], 3, 0, 0);
    cj_ctx_free(ctx);
}

TEST(reduce_cumulative_large) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 23;
    /* one long row (block scan across threads), many rows, strided */
    const int64_t shapes[][2] = {{1, 1 << 20}, {3, 100000}, {1000, 300}, {300, 1000}};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        int64_t n = shapes[s][0] * shapes[s][1];
        double *xs = gen(n, CJ_I32, R_SUM, &seed);
        double *xp = gen(n, CJ_F64, R_PROD, &seed);
        for (int64_t axis = 0; axis < 2; axis++)
            for (int rev = 0; rev <= 1; rev++) {
                check_cum(ctx, R_SUM, CJ_I32, 2, shapes[s], xs, axis, rev);
                check_cum(ctx, R_SUM, CJ_F64, 2, shapes[s], xs, axis, rev);
                check_cum(ctx, R_MAX, CJ_F32, 2, shapes[s], xs, axis, rev);
                if (shapes[s][axis] <= 1000) check_cum(ctx, R_PROD, CJ_F64, 2, shapes[s], xp, axis, rev);
                if (th_failed_now()) return;
            }
        free(xs);
        free(xp);
    }
    cj_ctx_free(ctx);
}

/* ---- composites --------------------------------------------------------------- */

TEST(reduce_mean_and_var) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 29;
    int64_t dims[3] = {3, 4, 5};
    const cj_dtype dts[] = {CJ_F32, CJ_F64, CJ_I32};
    for (size_t t = 0; t < 3; t++) {
        double *x = gen(60, dts[t], R_SUM, &seed);
        cj_val v = make(ctx, dts[t], 3, dims, x);
        for (unsigned mask = 0; mask < 8; mask++) {
            int64_t axes[3];
            int k = 0;
            for (int d = 0; d < 3; d++)
                if ((mask >> d) & 1) axes[k++] = d;
            int keep = mask & 1;
            cj_val m = cj_mean(v, k, axes, keep), var = cj_var(v, k, axes, keep);
            cj_dtype want_dt = dts[t] == CJ_F64 ? CJ_F64 : CJ_F32;
            CHECK_MSG(!cj_is_error(m) && !cj_is_error(var), "%s", cj_error_message(ctx));
            CHECK_EQ_INT(cj_val_dtype(m), want_dt);
            CHECK_EQ_INT(cj_val_dtype(var), want_dt);
            CHECK_EQ_INT(cj_val_rank(m), keep ? 3 : 3 - k);
            double fm[60], fv[60];
            CHECK(read_f64(m, fm, cj_val_size(m)) && read_f64(var, fv, cj_val_size(var)));
            /* reference: two passes in double over each output's elements */
            int64_t n_out = cj_val_size(m), count = 1;
            for (int d = 0; d < 3; d++)
                if ((mask >> d) & 1) count *= dims[d];
            double sum[60] = {0}, sq[60] = {0};
            int64_t out_of[60];
            for (int64_t i = 0; i < 60; i++) {
                int64_t idx[3] = {i / 20, i / 5 % 4, i % 5}, o = 0;
                for (int d = 0; d < 3; d++)
                    if (!((mask >> d) & 1)) o = o * dims[d] + idx[d];
                out_of[i] = o;
                sum[o] += x[i];
            }
            for (int64_t i = 0; i < 60; i++) {
                double dlt = x[i] - sum[out_of[i]] / (double)count;
                sq[out_of[i]] += dlt * dlt;
            }
            double tol = want_dt == CJ_F32 ? 1e-5 : 1e-12;
            for (int64_t o = 0; o < n_out; o++) {
                CHECK_NEAR(fm[o], sum[o] / (double)count, tol, tol * 10);
                CHECK_NEAR(fv[o], sq[o] / (double)count, tol * 10, tol * 100);
            }
        }
        free(x);
    }
    /* the mean over an empty axis is 0/0 = NaN, as jnp.mean */
    CHECK(isnan(cj_item_or_nan(cj_mean(make(ctx, CJ_F32, 1, (const int64_t[]){0}, NULL), -1, NULL, 0))));
    CHECK(!cj_error(ctx));
    cj_ctx_free(ctx);
}

TEST(reduce_logsumexp) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    /* large values: a naive exp overflows, the shifted form gives 1000 + log 2 */
    double big[2] = {1000, 1000};
    cj_val b = make(ctx, CJ_F32, 1, (const int64_t[]){2}, big);
    CHECK_NEAR(cj_item_or_nan(cj_logsumexp(b, -1, NULL, 0)), 1000 + log(2.0), 1e-6, 0);
    /* rows: ordinary, all -inf (gives -inf), one +inf (gives +inf), with a -inf */
    double x[12] = {1, 2, 3, -INFINITY, -INFINITY, -INFINITY, 0, INFINITY, 5, -INFINITY, -1, 4};
    cj_val v = make(ctx, CJ_F64, 2, (const int64_t[]){4, 3}, x);
    int64_t ax = 1;
    double got[4];
    CHECK(read_f64(cj_logsumexp(v, 1, &ax, 0), got, 4));
    CHECK_NEAR(got[0], log(exp(1.0) + exp(2.0) + exp(3.0)), 1e-14, 0);
    CHECK_NEAR(got[1], -INFINITY, 0, 0);
    CHECK_NEAR(got[2], INFINITY, 0, 0);
    CHECK_NEAR(got[3], log(exp(-1.0) + exp(4.0)), 1e-14, 0);
    cj_val k = cj_logsumexp(v, 1, &ax, 1);
    CHECK_EQ_INT(cj_val_rank(k), 2);
    CHECK_EQ_INT(cj_val_dim(k, 1), 1);
    CHECK(read_f64(k, got, 4));
    CHECK_NEAR(got[3], log(exp(-1.0) + exp(4.0)), 1e-14, 0);
    /* over every axis of random data, against a double loop */
    uint64_t seed = 31;
    double *r = gen(600, CJ_F32, R_SUM, &seed);
    double m = -INFINITY, s = 0;
    for (int i = 0; i < 600; i++) m = r[i] > m ? r[i] : m;
    for (int i = 0; i < 600; i++) s += exp(r[i] - m);
    cj_val rv = make(ctx, CJ_F32, 3, (const int64_t[]){6, 10, 10}, r);
    CHECK_NEAR(cj_item_or_nan(cj_logsumexp(rv, -1, NULL, 0)), m + log(s), 1e-6, 0);
    /* ints compute in f32; an empty reduction is log 0 = -inf */
    CHECK_EQ_INT(cj_val_dtype(cj_logsumexp(make(ctx, CJ_I32, 1, (const int64_t[]){2}, big), -1, NULL, 0)), CJ_F32);
    CHECK_NEAR(cj_item_or_nan(cj_logsumexp(make(ctx, CJ_F32, 2, (const int64_t[]){0, 3}, NULL), -1, NULL, 0)),
               -INFINITY, 0, 0);
    free(r);
    CHECK(!cj_error(ctx));
    cj_ctx_free(ctx);
}

TEST(reduce_softmax_and_log_softmax) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 37;
    int64_t dims[3] = {3, 7, 9};
    double *x = gen(189, CJ_F32, R_SUM, &seed);
    x[5] = 80; /* exp(80) overflows f32 without the shift */
    cj_val v = make(ctx, CJ_F32, 3, dims, x);
    for (int64_t axis = -3; axis < 3; axis++) {
        int64_t ax = axis < 0 ? axis + 3 : axis;
        double sm[189], lsm[189];
        CHECK(read_f64(cj_softmax(v, axis), sm, 189));
        CHECK(read_f64(cj_log_softmax(v, axis), lsm, 189));
        int64_t outer = 1, inner = 1, n = dims[ax];
        for (int d = 0; d < ax; d++) outer *= dims[d];
        for (int d = (int)ax + 1; d < 3; d++) inner *= dims[d];
        for (int64_t o = 0; o < outer; o++)
            for (int64_t c = 0; c < inner; c++) {
                double m = -INFINITY, s = 0, total = 0;
                for (int64_t a = 0; a < n; a++) m = fmax(m, x[(o * n + a) * inner + c]);
                for (int64_t a = 0; a < n; a++) s += exp(x[(o * n + a) * inner + c] - m);
                for (int64_t a = 0; a < n; a++) {
                    int64_t i = (o * n + a) * inner + c;
                    CHECK_NEAR(sm[i], exp(x[i] - m) / s, 1e-5, 1e-7);
                    CHECK_NEAR(lsm[i], x[i] - m - log(s), 1e-5, 1e-5);
                    total += sm[i];
                }
                CHECK_NEAR(total, 1.0, 1e-5, 0);
            }
    }
    /* ints become f32 */
    CHECK_EQ_INT(cj_val_dtype(cj_softmax(make(ctx, CJ_I32, 1, (const int64_t[]){3}, x), 0)), CJ_F32);
    free(x);
    CHECK(!cj_error(ctx));
    cj_ctx_free(ctx);
}

/* ---- jit, the IR, memory ------------------------------------------------------ */

static void reduce_everything(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    (void)user;
    int64_t ax1 = 1, ax02[2] = {0, -1};
    out[0] = cj_sum(in[0], 1, &ax1, 0);
    out[1] = cj_reduce_max(in[0], 2, ax02, 1);
    out[2] = cj_argmax(in[0], -1, 0);
    out[3] = cj_cumsum(in[0], 1, 1);
    out[4] = cj_softmax(in[0], -1);
    out[5] = cj_logsumexp(in[0], 1, &ax1, 0);
    out[6] = cj_var(in[0], -1, NULL, 0);
    out[7] = cj_prod(in[0], 1, (const int64_t[]){0}, 0);
}

TEST(reduce_jit_matches_eager) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 41;
    int64_t dims[3] = {4, 50, 30};
    double *x = gen(6000, CJ_F32, R_SUM, &seed);
    cj_val v = make(ctx, CJ_F32, 3, dims, x);
    free(x);
    cj_func *f = cj_func_new(ctx, "reduce_everything", reduce_everything, 1, 8, NULL);
    cj_func *jf = cj_jit(f, NULL);
    cj_val eager[8], jitted[8];
    CHECK(cj_call(f, &v, eager) == CJ_OK);
    CHECK(cj_call(jf, &v, jitted) == CJ_OK);
    CHECK(cj_call(jf, &v, jitted) == CJ_OK); /* a cache hit runs the same program */
    for (int i = 0; i < 8; i++) {
        CHECK_EQ_INT(cj_val_dtype(eager[i]), cj_val_dtype(jitted[i]));
        int64_t n = cj_val_size(eager[i]);
        CHECK_EQ_INT(cj_val_size(jitted[i]), n);
        double *a = malloc((size_t)n * 8), *b = malloc((size_t)n * 8);
        int ok = read_f64(eager[i], a, n) && read_f64(jitted[i], b, n);
        int64_t bad = -1;
        for (int64_t k = 0; ok && k < n && bad < 0; k++)
            if (!th_close(a[k], b[k], 1e-6, 0)) bad = k;
        free(a);
        free(b);
        CHECK_MSG(ok && bad < 0, "output %d differs at %lld", i, (long long)bad);
    }
    cj_jit_stats st;
    cj_jit_stats_get(jf, &st);
    CHECK_EQ_INT(st.traces, 1);
    cj_spec spec = cj_spec_of(v);
    char *ir = cj_make_jaxpr(f, 1, &spec);
    CHECK_MSG(ir != NULL, "%s", cj_error_message(ctx));
    CHECK_STR_CONTAINS(ir, "f32[4,30] = reduce_sum[axes=(1,)]");
    CHECK_STR_CONTAINS(ir, "reduce_max[axes=(0, 2)]");
    CHECK_STR_CONTAINS(ir, "i32[4,50] = argmax[axes=(2,) index_dtype=i32]");
    CHECK_STR_CONTAINS(ir, "cumsum[axis=1 reverse=True]");
    CHECK_STR_CONTAINS(ir, "reduce_prod[axes=(0,)]");
    cj_string_free(ctx, ir);
    CHECK(!cj_error(ctx));
    cj_ctx_free(ctx);
}

/* A scope of reductions (partial blocks, scans, composites) gives back
 * every byte it took. */
TEST(reduce_scope_frees_everything) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 43;
    int64_t dims[2] = {3, 200000};
    double *x = gen(600000, CJ_F32, R_SUM, &seed);
    cj_val v = make(ctx, CJ_F32, 2, dims, x);
    free(x);
    cj_mem_stats before, after;
    cj_mem_stats_get(ctx, &before);
    cj_scope_begin(ctx);
    int64_t ax = 1;
    cj_sum(v, 1, &ax, 1);
    cj_reduce_min(v, -1, NULL, 0);
    cj_argmin(v, 1, 0);
    cj_cumsum(v, 1, 0);
    cj_cummax(v, 0, 1);
    cj_softmax(v, 1);
    cj_var(v, 1, &ax, 0);
    cj_scope_end(ctx, 0, NULL);
    CHECK(!cj_error(ctx));
    cj_mem_stats_get(ctx, &after);
    CHECK_EQ_INT(after.bytes_in_arrays, before.bytes_in_arrays);
    cj_ctx_free(ctx);
}

/* The primitives themselves are strict, whatever reaches them: the same
 * messages for eager and traced binds. */
TEST(reduce_primitives_validate_params) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    double x[6] = {3, 1, 4, 1, 5, 9};
    cj_val v = make(ctx, CJ_F32, 2, (const int64_t[]){2, 3}, x);
    prim_params p = prim_params_zero();
    p.axes.n = 2;
    p.axes.v[0] = 1;
    p.axes.v[1] = 0;
    CHECK(cj_is_error(core_bind(ctx, PRIM_REDUCE_SUM, &p, 1, &v)));
    CHECK_EQ_INT(cj_error(ctx), CJ_ERR_AXIS);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "reduce_sum: axes=(1, 0) must be sorted, unique and within the rank of f32[2,3]");
    cj_error_clear(ctx);
    p.axes.n = 1;
    p.axes.v[0] = 2;
    CHECK(cj_is_error(core_bind(ctx, PRIM_REDUCE_MIN, &p, 1, &v)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "reduce_min: axes=(2,) must be sorted");
    cj_error_clear(ctx);
    CHECK(cj_is_error(core_bind(ctx, PRIM_CUMSUM, &p, 1, &v)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cumsum: axis 2 is out of range for f32[2,3]");
    cj_error_clear(ctx);
    p.axes.n = 2;
    p.axes.v[0] = 0;
    p.axes.v[1] = 1;
    CHECK(cj_is_error(core_bind(ctx, PRIM_ARGMAX, &p, 1, &v)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "argmax: needs exactly one axis, got 2 (operand f32[2,3])");
    cj_error_clear(ctx);
    p.axes.n = 1;
    p.axes.v[0] = 1;
    p.dtype = CJ_F32;
    CHECK(cj_is_error(core_bind(ctx, PRIM_ARGMIN, &p, 1, &v)));
    CHECK_EQ_INT(cj_error(ctx), CJ_ERR_DTYPE);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "argmin: index_dtype must be i32 or i64, got f32");
    cj_error_clear(ctx);
    p.dtype = CJ_F32;
    p.flag = 2;
    CHECK(cj_is_error(core_bind(ctx, PRIM_CUMMAX, &p, 1, &v)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cummax: reverse must be 0 or 1, got 2");
    cj_error_clear(ctx);
    /* bools are rejected where they would be counted or multiplied */
    cj_val b = make(ctx, CJ_BOOL, 2, (const int64_t[]){2, 3}, x);
    p = prim_params_zero();
    CHECK(cj_is_error(core_bind(ctx, PRIM_REDUCE_SUM, &p, 1, &b)));
    CHECK_EQ_INT(cj_error(ctx), CJ_ERR_DTYPE);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "reduce_sum: operand bool[2,3]: bool is not accepted");
    cj_error_clear(ctx);
    p.axes.n = 1;
    CHECK(cj_is_error(core_bind(ctx, PRIM_CUMPROD, &p, 1, &b)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cumprod: operand bool[2,3]: bool is not accepted");
    cj_error_clear(ctx);
    CHECK(!cj_is_error(core_bind(ctx, PRIM_REDUCE_MAX, &p, 1, &b)));
    /* argmax with i64 indices; the zero dtype means i32 */
    p = prim_params_zero();
    p.axes.n = 1;
    p.axes.v[0] = 1;
    p.dtype = CJ_I64;
    cj_val r = core_bind(ctx, PRIM_ARGMAX, &p, 1, &v);
    CHECK_EQ_INT(cj_val_dtype(r), CJ_I64);
    int64_t idx[2];
    CHECK(cj_read(r, idx, sizeof idx) == CJ_OK);
    CHECK_EQ_INT(idx[0], 2);
    CHECK_EQ_INT(idx[1], 2);
    p.dtype = CJ_BOOL;
    CHECK_EQ_INT(cj_val_dtype(core_bind(ctx, PRIM_ARGMAX, &p, 1, &v)), CJ_I32);
    p.axes.v[0] = 0;
    p.dtype = CJ_I64;
    cj_val t = make(ctx, CJ_F32, 2, (const int64_t[]){3, 2}, x);
    CHECK(cj_read(core_bind(ctx, PRIM_ARGMIN, &p, 1, &t), idx, sizeof idx) == CJ_OK);
    CHECK_EQ_INT(idx[0], 0); /* columns {3, 4, 5} and {1, 1, 9}: the first 1 */
    CHECK_EQ_INT(idx[1], 0);
    CHECK(!cj_error(ctx));
    cj_ctx_free(ctx);
}

static void sum_nothing(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    (void)user;
    int64_t unused = 0;
    out[0] = cj_sum(in[0], 0, &unused, 0);
    out[1] = cj_argmin(in[0], 0, 1);
    out[2] = cj_cummax(in[0], -1, 0);
}

TEST(reduce_ir_text) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *f = cj_func_new(ctx, "sum_nothing", sum_nothing, 1, 3, NULL);
    cj_spec spec = cj_spec_make(CJ_F64, 2, (const int64_t[]){5, 7});
    char *ir = cj_make_jaxpr(f, 1, &spec);
    CHECK_MSG(ir != NULL, "%s", cj_error_message(ctx));
    CHECK_STR_CONTAINS(ir, "f64[5,7] = reduce_sum[axes=()]");
    CHECK_STR_CONTAINS(ir, "i32[7] = argmin[axes=(0,) index_dtype=i32]");
    CHECK_STR_CONTAINS(ir, "i32[1,7] = reshape");
    CHECK_STR_CONTAINS(ir, "f64[5,7] = cummax[axis=1 reverse=False]");
    cj_string_free(ctx, ir);
    cj_ctx_free(ctx);
}

/* Allocation failures anywhere in a run of reductions (including the
 * partial-result buffers of a split reduction and the composites) end in a
 * clean CJ_ERR_OOM and leak nothing. */
static cj_status oom_scenario(cj_ctx *ctx) {
    int64_t dims[2] = {2, 40000};
    cj_val v = cj_ones(ctx, CJ_F32, 2, dims);
    int64_t ax = 1;
    cj_val s = cj_sum(v, 1, &ax, 1);
    cj_val lse = cj_logsumexp(v, -1, NULL, 0);
    cj_val sm = cj_softmax(v, 0);
    cj_val c = cj_cumsum(v, 1, 1);
    cj_val a = cj_argmax(v, 1, 0);
    cj_val m = cj_mean(cj_add(s, cj_sum(sm, -1, NULL, 0)), -1, NULL, 0);
    double got = cj_item_or_nan(cj_add(m, cj_add(lse, cj_add(cj_sum(c, -1, NULL, 0), cj_sum(a, -1, NULL, 0)))));
    if (cj_error(ctx)) return cj_error(ctx);
    /* mean(40000 + 1) + (log 80000) + Σ cumsum + 0 */
    double want = 40001.0 + log(80000.0) + 2.0 * 40000.0 * 40001.0 / 2.0;
    /* Σ cumsum is 1.6e9 summed in f32: a few 1e-5 of rounding */
    return th_close(got, want, 1e-4, 0) ? CJ_OK : CJ_ERR_INTERNAL;
}

TEST(reduce_allocation_failures_are_clean) {
    int covered = 0;
    for (long long n = 1; n < 5000 && !covered; n++) {
        tu_alloc st = {0};
        st.fail_at = n;
        cj_allocator a = tu_allocator(&st);
        cj_ctx *ctx = cj_ctx_new(&a);
        if (ctx) {
            cj_status rc = oom_scenario(ctx);
            CHECK_MSG(rc == CJ_OK || rc == CJ_ERR_OOM, "allocation %lld: got %s: %s", n, cj_status_name(rc),
                      cj_error_message(ctx));
            if (!st.failed) {
                CHECK_MSG(rc == CJ_OK, "no failure injected but %s", cj_status_name(rc));
                covered = 1;
            }
            cj_ctx_free(ctx);
        }
        CHECK_MSG(st.live == 0, "allocation %lld failing leaked %lld blocks", n, st.live);
    }
    CHECK(covered);
}

/* ---- signed zeros ----------------------------------------------------------- */

/* max/min of a row of zeros of both signs is +0 / -0 wherever the other
 * sign sits (IEEE 754-2019 maximum/minimum, as XLA): every strategy of the
 * fold (short rows, lanes, blocks of rows, strided columns), cummax, and
 * the same under jit on the interpreter and on generated C. */
typedef struct zero_case { int axis; int op; } zero_case;
static void reduce_one_axis(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    const zero_case *c = user;
    int64_t axes[1] = {c->axis};
    out[0] = c->op == R_MAX ? cj_reduce_max(in[0], 1, axes, 0) : cj_reduce_min(in[0], 1, axes, 0);
}

TEST(reduce_max_min_order_signed_zeros_as_ieee) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    const int64_t lengths[] = {2, 5, 64, 300, 70001};
    uint64_t seed = 11;
    for (size_t li = 0; li < sizeof lengths / sizeof *lengths; li++) {
        int64_t n = lengths[li];
        for (int f64 = 0; f64 <= 1; f64++)
            for (int op = R_MAX; op <= R_MIN; op++)
                for (int axis = 0; axis <= 1; axis++) {
                    /* most elements carry the sign the result must not have;
                     * a few, one of them first or last, carry the other */
                    double major = op == R_MAX ? -0.0 : 0.0, minor = op == R_MAX ? 0.0 : -0.0;
                    int64_t dims[2] = {axis ? 3 : n, axis ? n : 3};
                    int64_t total = 3 * n;
                    double *x = malloc((size_t)total * sizeof *x);
                    for (int64_t i = 0; i < total; i++) x[i] = major;
                    for (int r = 0; r < 3; r++) { /* row/column r of the reduced axis */
                        int64_t at = r == 0 ? 0 : r == 1 ? n - 1 : (int64_t)(th_rand_u64(&seed) % (uint64_t)n);
                        int64_t flat = axis ? r * n + at : at * 3 + r;
                        x[flat] = minor;
                    }
                    cj_dtype dt = f64 ? CJ_F64 : CJ_F32;
                    cj_val v = make(ctx, dt, 2, dims, x);
                    zero_case c = {axis, op};
                    cj_func *f = cj_func_new(ctx, "reduce_zeros", reduce_one_axis, 1, 1, &c);
                    cj_jit_opts interp = {.backend = CJ_BACKEND_INTERP}, cc = {.backend = CJ_BACKEND_CC};
                    cj_func *paths[3] = {f, cj_jit(f, &interp), cj_jit(f, &cc)};
                    for (int p = 0; p < 3; p++) {
                        cj_val y;
                        CHECK(cj_call(paths[p], &v, &y) == CJ_OK);
                        double out[3];
                        if (f64) {
                            CHECK(cj_read(y, out, sizeof out) == CJ_OK);
                        } else {
                            float o32[3];
                            CHECK(cj_read(y, o32, sizeof o32) == CJ_OK);
                            for (int k = 0; k < 3; k++) out[k] = o32[k];
                        }
                        for (int k = 0; k < 3; k++) {
                            CHECK(out[k] == 0);
                            CHECK_MSG(signbit(out[k]) == signbit(minor), "%s of %s zeros, n %lld axis %d path %d: %g",
                                      op_names[op], cj_dtype_name(dt), (long long)n, axis, p, out[k]);
                        }
                        if (th_failed_now()) return;
                    }
                    free(x);
                }
    }
    /* cummax: the running max turns +0 at the first +0 and stays */
    const float xs[4] = {-0.0f, -0.0f, 0.0f, -0.0f};
    cj_val v = tu_f32(ctx, 1, (const int64_t[]){4}, xs);
    float c[4];
    CHECK(cj_read(cj_cummax(v, 0, 0), c, sizeof c) == CJ_OK);
    CHECK(signbit(c[0]) && signbit(c[1]) && !signbit(c[2]) && !signbit(c[3]));
    CHECK(cj_error(ctx) == CJ_OK);
    cj_ctx_free(ctx);
}
