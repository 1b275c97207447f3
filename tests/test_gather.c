/* test_gather.c — tests for the gather and scatter_add primitives
 * (src/prim/gather.c) and cj_take, cj_take_along_axis, cj_index_add,
 * cj_one_hot (src/api/indexing.c).
 *
 * References are loops written here from NumPy's definitions (numpy.take,
 * numpy.take_along_axis, numpy.add.at) with JAX's out-of-range rules made
 * explicit: a negative index wraps once, then gathers clamp and scatters
 * drop. */
#include <stdlib.h>

#include "../src/core/func.h"
#include "harness.h"
#include "test_util.h"

#define L(...) ((const int64_t[]){__VA_ARGS__})

static int64_t wrap_clamp(int64_t i, int64_t n) {
    if (i < 0) i += n;
    return i < 0 ? 0 : i >= n ? n - 1 : i;
}

static int64_t wrap_drop(int64_t i, int64_t n) {
    if (i < 0) i += n;
    return i < 0 || i >= n ? -1 : i;
}

static int64_t prod(int n, const int64_t *d) {
    int64_t p = 1;
    for (int i = 0; i < n; i++) p *= d[i];
    return p;
}

/* x: f32 [3,4,5] with x[i] = i + 0.5 (distinct values); the array and the
 * host copy. */
static cj_val iota_f32(cj_ctx *ctx, int rank, const int64_t *dims, float *host) {
    int64_t n = prod(rank, dims);
    for (int64_t i = 0; i < n; i++) host[i] = (float)i + 0.5f;
    return cj_array(ctx, CJ_F32, rank, dims, host);
}

/* numpy.take with clamping, for x of shape dims (row-major) along axis. */
static void ref_take(const float *x, int rank, const int64_t *dims, int axis, const int64_t *idx, int64_t n_idx,
                     float *out) {
    int64_t outer = prod(axis, dims), d = dims[axis], inner = prod(rank - axis - 1, dims + axis + 1);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t k = 0; k < n_idx; k++)
            for (int64_t i = 0; i < inner; i++)
                out[(o * n_idx + k) * inner + i] = x[(o * d + wrap_clamp(idx[k], d)) * inner + i];
}

static int check_floats(cj_val y, const float *want, int64_t n) {
    float *got = malloc(sizeof(float) * (size_t)(n ? n : 1));
    int ok = cj_val_size(y) == n && cj_read(y, got, sizeof(float) * (size_t)n) == CJ_OK;
    if (!ok) th_fail(__FILE__, __LINE__, "size %lld (want %lld) or read failed: %s", (long long)cj_val_size(y),
                     (long long)n, cj_error_message(y.ctx));
    for (int64_t i = 0; ok && i < n; i++)
        if (got[i] != want[i]) {
            th_fail(__FILE__, __LINE__, "element %lld: %g, expected %g", (long long)i, got[i], want[i]);
            ok = 0;
        }
    free(got);
    return ok;
}

TEST(gather_take_rank3_each_axis) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t dims[3] = {3, 4, 5};
    float x[60], want[600];
    cj_val xv = iota_f32(ctx, 3, dims, x);
    /* indices of rank 0, 1 and 2, with negative and out-of-range entries */
    int64_t idx[6] = {1, -1, 0, 7, -9, 2};
    int64_t idx_shapes[3][2] = {{0, 0}, {6, 0}, {2, 3}};
    int idx_ranks[3] = {0, 1, 2};
    for (int axis = 0; axis < 3; axis++)
        for (int r = 0; r < 3; r++) {
            int64_t n_idx = prod(idx_ranks[r], idx_shapes[r]);
            int32_t i32[6];
            for (int k = 0; k < 6; k++) i32[k] = (int32_t)idx[k];
            cj_val iv = cj_array(ctx, CJ_I32, idx_ranks[r], idx_shapes[r], i32);
            cj_val y = cj_take(xv, iv, axis - 3 * (r == 1)); /* also a negative axis */
            CHECK_MSG(!cj_error(ctx), "%s", cj_error_message(ctx));
            CHECK_EQ_INT(cj_val_rank(y), 2 + idx_ranks[r]);
            int at = 0;
            for (int d = 0; d < axis; d++) CHECK_EQ_INT(cj_val_dim(y, at++), dims[d]);
            for (int d = 0; d < idx_ranks[r]; d++) CHECK_EQ_INT(cj_val_dim(y, at++), idx_shapes[r][d]);
            for (int d = axis + 1; d < 3; d++) CHECK_EQ_INT(cj_val_dim(y, at++), dims[d]);
            ref_take(x, 3, dims, axis, idx, n_idx, want);
            CHECK(check_floats(y, want, cj_val_size(y)));
        }
    cj_ctx_free(ctx);
}

TEST(gather_take_dtypes_and_i64_indices) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t n = 6, idx[4] = {5, 0, -2, 100};
    cj_val iv = cj_array(ctx, CJ_I64, 1, L(4), idx);
    int32_t xi[6] = {10, 11, 12, 13, 14, 15};
    double xd[6] = {0.5, 1.5, 2.5, 3.5, 4.5, 5.5};
    uint8_t xb[6] = {1, 0, 0, 1, 0, 1};
    int32_t gi[4];
    double gd[4];
    uint8_t gb[4];
    CHECK(cj_read(cj_take(cj_array(ctx, CJ_I32, 1, &n, xi), iv, 0), gi, sizeof gi) == CJ_OK);
    CHECK(cj_read(cj_take(cj_array(ctx, CJ_F64, 1, &n, xd), iv, 0), gd, sizeof gd) == CJ_OK);
    CHECK(cj_read(cj_take(cj_array(ctx, CJ_BOOL, 1, &n, xb), iv, 0), gb, sizeof gb) == CJ_OK);
    for (int k = 0; k < 4; k++) {
        int64_t at = wrap_clamp(idx[k], n);
        CHECK_EQ_INT(gi[k], xi[at]);
        CHECK(gd[k] == xd[at]);
        CHECK_EQ_INT(gb[k], xb[at]);
    }
    cj_ctx_free(ctx);
}

TEST(gather_take_large_threaded) {
    /* big enough to split over the pool, in both directions of the split */
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t dims[2] = {2, 50000};
    float *x = malloc(sizeof(float) * 100000), *want = malloc(sizeof(float) * 100000);
    cj_val xv = iota_f32(ctx, 2, dims, x);
    int64_t idx[2] = {1, 0};
    int32_t i32[2] = {1, 0};
    cj_val y = cj_take(xv, cj_array(ctx, CJ_I32, 1, L(2), i32), 0);
    ref_take(x, 2, dims, 0, idx, 2, want);
    CHECK(check_floats(y, want, 100000));
    int64_t many = 40000;
    int64_t *idx2 = malloc(sizeof(int64_t) * (size_t)many);
    for (int64_t k = 0; k < many; k++) idx2[k] = (k * 7919) % 50003 - 3;
    y = cj_take(xv, cj_array(ctx, CJ_I64, 1, &many, idx2), 1);
    float *want2 = malloc(sizeof(float) * (size_t)(2 * many));
    ref_take(x, 2, dims, 1, idx2, many, want2);
    CHECK(check_floats(y, want2, 2 * many));
    free(x), free(want), free(idx2), free(want2);
    cj_ctx_free(ctx);
}

/* Row-wise argsort by insertion sort (small rows), as int32. */
static void argsort_rows(const float *x, int64_t rows, int64_t cols, int32_t *idx) {
    for (int64_t r = 0; r < rows; r++) {
        int32_t *ix = idx + r * cols;
        for (int64_t c = 0; c < cols; c++) ix[c] = (int32_t)c;
        for (int64_t c = 1; c < cols; c++)
            for (int64_t k = c; k > 0 && x[r * cols + ix[k - 1]] > x[r * cols + ix[k]]; k--) {
                int32_t t = ix[k];
                ix[k] = ix[k - 1];
                ix[k - 1] = t;
            }
    }
}

TEST(gather_take_along_axis_sorts_rows) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t rows = 4, cols = 7, dims[2] = {rows, cols};
    float x[28];
    uint64_t seed = 5;
    for (int i = 0; i < 28; i++) x[i] = (float)th_rand_uniform(&seed, -10, 10);
    int32_t idx[28];
    argsort_rows(x, rows, cols, idx);
    cj_val y = cj_take_along_axis(cj_array(ctx, CJ_F32, 2, dims, x), cj_array(ctx, CJ_I32, 2, dims, idx), -1);
    float got[28];
    CHECK(cj_read(y, got, sizeof got) == CJ_OK);
    for (int64_t r = 0; r < rows; r++)
        for (int64_t c = 0; c < cols; c++) {
            CHECK(got[r * cols + c] == x[r * cols + idx[r * cols + c]]);
            if (c) CHECK(got[r * cols + c - 1] <= got[r * cols + c]);
        }
    cj_ctx_free(ctx);
}

TEST(gather_take_along_axis_rank3) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t dims[3] = {3, 4, 5};
    float x[60];
    cj_val xv = iota_f32(ctx, 3, dims, x);
    /* along axis 1 with 2 indices per (i, k): different length, negatives, out of range */
    int64_t id[3] = {3, 2, 5};
    int64_t idx[30];
    for (int i = 0; i < 30; i++) idx[i] = (i * 5) % 11 - 4;
    cj_val y = cj_take_along_axis(xv, cj_array(ctx, CJ_I64, 3, id, idx), 1);
    float want[30];
    for (int64_t i = 0; i < 3; i++)
        for (int64_t j = 0; j < 2; j++)
            for (int64_t k = 0; k < 5; k++)
                want[(i * 2 + j) * 5 + k] = x[(i * 4 + wrap_clamp(idx[(i * 2 + j) * 5 + k], 4)) * 5 + k];
    CHECK_EQ_INT(cj_val_dim(y, 1), 2);
    CHECK(check_floats(y, want, 30));

    /* broadcasting outside the axis (needs broadcast_in_dim): indices [1,2,1] */
    int32_t small[2] = {3, -4};
    y = cj_take_along_axis(xv, cj_array(ctx, CJ_I32, 3, L(1, 2, 1), small), 1);
    CHECK_MSG(!cj_error(ctx), "%s", cj_error_message(ctx));
    CHECK_EQ_INT(cj_val_dim(y, 0), 3);
    CHECK_EQ_INT(cj_val_dim(y, 2), 5);
    for (int64_t i = 0; i < 3; i++)
        for (int64_t j = 0; j < 2; j++)
            for (int64_t k = 0; k < 5; k++) want[(i * 2 + j) * 5 + k] = x[(i * 4 + wrap_clamp(small[j], 4)) * 5 + k];
    CHECK(check_floats(y, want, 30));
    cj_ctx_free(ctx);
}

/* numpy.add.at with JAX's drop rule. */
static void ref_index_add(float *x, int rank, const int64_t *dims, int axis, const int64_t *idx, int64_t n_idx,
                          const float *upd) {
    int64_t outer = prod(axis, dims), d = dims[axis], inner = prod(rank - axis - 1, dims + axis + 1);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t k = 0; k < n_idx; k++) {
            int64_t at = wrap_drop(idx[k], d);
            if (at < 0) continue;
            for (int64_t i = 0; i < inner; i++) x[(o * d + at) * inner + i] += upd[(o * n_idx + k) * inner + i];
        }
}

TEST(gather_index_add_duplicates_and_drops) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t dims[3] = {3, 4, 5};
    float x[60];
    cj_val xv = iota_f32(ctx, 3, dims, x);
    int64_t idx[6] = {0, 2, 0, -1, 7, -9}; /* 0 twice, -1 wraps, 7 and -9 dropped */
    for (int axis = 0; axis < 3; axis++) {
        int64_t ushape[4];
        int r = 0;
        for (int d = 0; d < axis; d++) ushape[r++] = dims[d];
        ushape[r++] = 6;
        for (int d = axis + 1; d < 3; d++) ushape[r++] = dims[d];
        int64_t nu = prod(3, ushape);
        float *upd = malloc(sizeof(float) * (size_t)nu), want[60];
        for (int64_t i = 0; i < nu; i++) upd[i] = (float)(i % 7) - 3;
        memcpy(want, x, sizeof want);
        ref_index_add(want, 3, dims, axis, idx, 6, upd);
        cj_val y = cj_index_add(xv, axis, cj_array(ctx, CJ_I64, 1, L(6), idx), cj_array(ctx, CJ_F32, 3, ushape, upd));
        free(upd);
        CHECK_MSG(!cj_error(ctx), "%s", cj_error_message(ctx));
        CHECK(check_floats(y, want, 60));
    }
    /* x itself is unchanged (values are immutable) */
    float again[60];
    CHECK(cj_read(xv, again, sizeof again) == CJ_OK);
    CHECK(memcmp(again, x, sizeof x) == 0);
    cj_ctx_free(ctx);
}

TEST(gather_index_add_ints_and_scalar_updates) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int32_t xi[5] = {0, 0, 0, 0, 0}, idx[4] = {1, 1, 4, 1};
    cj_val x = cj_array(ctx, CJ_I32, 1, L(5), xi);
    /* a weak scalar update broadcasts and takes x's dtype (needs the shape family) */
    cj_val y = cj_index_add(x, 0, cj_array(ctx, CJ_I32, 1, L(4), idx), cj_scalar_int(ctx, 2));
    CHECK_MSG(!cj_error(ctx), "%s", cj_error_message(ctx));
    CHECK_EQ_INT(cj_val_dtype(y), CJ_I32);
    int32_t got[5];
    CHECK(cj_read(y, got, sizeof got) == CJ_OK);
    int32_t want[5] = {0, 6, 0, 0, 2};
    for (int i = 0; i < 5; i++) CHECK_EQ_INT(got[i], want[i]);
    cj_ctx_free(ctx);
}

TEST(gather_scatter_add_along_form) {
    /* the along form has no public entry yet: bind the primitive directly */
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t dims[2] = {3, 4};
    float x[12], upd[9];
    cj_val xv = iota_f32(ctx, 2, dims, x);
    int32_t idx[9] = {0, 0, 3, -1, 5, 1, 2, 2, -5};
    for (int i = 0; i < 9; i++) upd[i] = (float)(i + 1) * 10;
    prim_params p = prim_params_zero();
    p.axes.n = 1;
    p.axes.v[0] = 1;
    p.flag = 1;
    cj_val in[3] = {xv, cj_array(ctx, CJ_I32, 2, L(3, 3), idx), cj_array(ctx, CJ_F32, 2, L(3, 3), upd)};
    cj_val y = core_bind(ctx, PRIM_SCATTER_ADD, &p, 3, in);
    float want[12];
    memcpy(want, x, sizeof want);
    for (int r = 0; r < 3; r++)
        for (int j = 0; j < 3; j++) {
            int64_t at = wrap_drop(idx[r * 3 + j], 4);
            if (at >= 0) want[r * 4 + at] += upd[r * 3 + j];
        }
    CHECK(check_floats(y, want, 12));
    cj_ctx_free(ctx);
}

TEST(gather_one_hot) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int32_t idx[6] = {0, 2, -1, 3, 4, 1};
    cj_val y = cj_one_hot(cj_array(ctx, CJ_I32, 2, L(2, 3), idx), 4, CJ_F32);
    CHECK_MSG(!cj_error(ctx), "%s", cj_error_message(ctx));
    CHECK_EQ_INT(cj_val_rank(y), 3);
    CHECK_EQ_INT(cj_val_dim(y, 2), 4);
    CHECK_EQ_INT(cj_val_dtype(y), CJ_F32);
    float got[24];
    CHECK(cj_read(y, got, sizeof got) == CJ_OK);
    for (int i = 0; i < 6; i++)
        for (int c = 0; c < 4; c++) CHECK(got[i * 4 + c] == (idx[i] == c ? 1.0f : 0.0f)); /* -1, 4: zero rows */
    y = cj_one_hot(cj_array(ctx, CJ_I32, 1, L(3), idx), 3, CJ_BOOL);
    CHECK_EQ_INT(cj_val_dtype(y), CJ_BOOL);
    cj_one_hot(y, -1, CJ_F32);
    CHECK_EQ_INT(cj_error(ctx), CJ_ERR_ARG);
    cj_ctx_free(ctx);
}

TEST(gather_errors) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    float z[12] = {0};
    cj_val x = cj_array(ctx, CJ_F32, 2, L(3, 4), z);
    int32_t zi[12] = {0};

    cj_take(x, cj_array(ctx, CJ_F32, 1, L(2), z), 0);
    CHECK_EQ_INT(cj_error(ctx), CJ_ERR_DTYPE);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "gather: indices must have an integer dtype (i8 ... i64, u8 ... u64), got f32[2]");
    cj_error_clear(ctx);

    cj_take(x, cj_array(ctx, CJ_I32, 1, L(2), zi), 2);
    CHECK_EQ_INT(cj_error(ctx), CJ_ERR_AXIS);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "take: axis 2 is out of range for rank 2");
    cj_error_clear(ctx);

    cj_take_along_axis(x, cj_array(ctx, CJ_I32, 1, L(3), zi), 0);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "take_along_axis: indices i32[3] must have the rank of the array f32[3,4]");
    cj_error_clear(ctx);

    cj_take_along_axis(x, cj_array(ctx, CJ_I32, 2, L(2, 2), zi), 1);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "do not broadcast outside axis 1");
    cj_error_clear(ctx);

    cj_index_add(x, 0, cj_array(ctx, CJ_I32, 1, L(2), zi), cj_array(ctx, CJ_F32, 2, L(2, 3), z));
    CHECK_EQ_INT(cj_error(ctx), CJ_ERR_SHAPE);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "index_add: updates f32[2,3] do not broadcast to the indexed shape (2, 4)");
    cj_error_clear(ctx);

    /* the strict primitives */
    prim_params p = prim_params_zero();
    p.axes.n = 1;
    p.flag = 1;
    cj_val in[3] = {x, cj_array(ctx, CJ_I32, 2, L(2, 3), zi), x};
    CHECK(cj_is_error(core_bind(ctx, PRIM_GATHER, &p, 2, in)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "gather: take_along_axis indices i32[2,3] and operand f32[3,4] differ in dimension 1");
    cj_error_clear(ctx);
    p.flag = 0;
    in[1] = cj_array(ctx, CJ_I32, 1, L(2), zi);
    CHECK(cj_is_error(core_bind(ctx, PRIM_SCATTER_ADD, &p, 3, in)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "scatter_add: updates f32[3,4] must have shape (2, 4)");
    cj_error_clear(ctx);
    in[2] = cj_array(ctx, CJ_I32, 2, L(2, 4), zi);
    CHECK(cj_is_error(core_bind(ctx, PRIM_SCATTER_ADD, &p, 3, in)));
    CHECK_EQ_INT(cj_error(ctx), CJ_ERR_DTYPE);
    cj_error_clear(ctx);

    /* nothing to clamp to */
    cj_val empty = cj_array(ctx, CJ_F32, 2, L(0, 4), z);
    cj_take(empty, cj_array(ctx, CJ_I32, 1, L(2), zi), 0);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "gather: cannot index the empty axis 0 of f32[0,4] with i32[2]");
    cj_error_clear(ctx);
    /* ...but scatter drops everything, and empty index arrays are fine */
    cj_val y = cj_index_add(empty, 0, cj_array(ctx, CJ_I32, 1, L(2), zi), cj_array(ctx, CJ_F32, 2, L(2, 4), z));
    CHECK(!cj_is_error(y));
    y = cj_take(x, cj_array(ctx, CJ_I32, 1, L(0), zi), 1);
    CHECK(!cj_is_error(y));
    CHECK_EQ_INT(cj_val_size(y), 0);
    cj_ctx_free(ctx);
}

static void index_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_take(in[0], in[1], 1);
    out[1] = cj_index_add(in[0], 0, in[1], cj_take(in[0], in[1], 0));
    out[2] = cj_take_along_axis(in[0], cj_reshape(in[1], 2, L(1, 3)), 1);
}

TEST(gather_jit_matches_eager) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    float x[12];
    int32_t idx[3] = {2, -1, 9};
    cj_val in[2] = {iota_f32(ctx, 2, L(3, 4), x), cj_array(ctx, CJ_I32, 1, L(3), idx)};
    cj_func *f = cj_func_new(ctx, "index", index_body, 2, 3, NULL);
    cj_val eager[3], jitted[3];
    CHECK(cj_call(f, in, eager) == CJ_OK);
    CHECK_MSG(cj_call(cj_jit(f, NULL), in, jitted) == CJ_OK, "%s", cj_error_message(ctx));
    for (int o = 0; o < 3; o++) {
        float e[12], j[12];
        CHECK(cj_val_size(eager[o]) == cj_val_size(jitted[o]));
        CHECK(cj_read(eager[o], e, sizeof e) == CJ_OK);
        CHECK(cj_read(jitted[o], j, sizeof j) == CJ_OK);
        CHECK(memcmp(e, j, sizeof(float) * (size_t)cj_val_size(eager[o])) == 0);
    }
    cj_spec specs[2] = {cj_spec_of(in[0]), cj_spec_of(in[1])};
    char *text = cj_make_jaxpr(f, 2, specs);
    CHECK(text);
    CHECK_STR_CONTAINS(text, "f32[3,3] = gather[axis=1 mode=take]");
    CHECK_STR_CONTAINS(text, "scatter_add[axis=0 mode=take]");
    CHECK_STR_CONTAINS(text, "gather[axis=1 mode=along]");
    cj_string_free(ctx, text);
    cj_ctx_free(ctx);
}
