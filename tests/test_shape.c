/* test_shape.c — the shape and data-movement primitives (src/prim/shape.c,
 * src/prim/shape_kernels.c) through their public operations
 * (src/api/shape.c).
 *
 * Every data-movement result is checked element by element against an
 * "index map" built by a plain loop written here: for each output element,
 * the flat index of the source element it must hold (or -1 for a padding
 * value). Comparison is bytewise, so one check serves every dtype and
 * every bit pattern (all of an i64's bytes must arrive, NaN payloads
 * included). Shapes cover rank 0, size-1 and zero-size axes, negative
 * axes, and arrays large enough to take the threaded and tiled paths. */
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"
#include "test_util.h"

static const cj_dtype all_dtypes[] = {CJ_BOOL, CJ_I32, CJ_I64, CJ_F32, CJ_F64};
#define N_DTYPES 5

/* ---- host arrays and index maps ---- */

typedef struct host {
    cj_dtype dtype;
    int rank;
    int64_t dims[CJ_MAX_RANK];
    int64_t n;
    size_t es;
    unsigned char *data;
} host;

static int64_t numel(int rank, const int64_t *dims) {
    int64_t n = 1;
    for (int i = 0; i < rank; i++) n *= dims[i];
    return n;
}

static void unravel(int64_t flat, int rank, const int64_t *dims, int64_t *idx) {
    for (int d = rank - 1; d >= 0; d--) {
        idx[d] = dims[d] ? flat % dims[d] : 0;
        flat = dims[d] ? flat / dims[d] : 0;
    }
}

static int64_t ravel(int rank, const int64_t *dims, const int64_t *idx) {
    int64_t f = 0;
    for (int d = 0; d < rank; d++) f = f * dims[d] + idx[d];
    return f;
}

/* Random valid values of the dtype (bools 0/1; ints use every bit). */
static host host_random(cj_dtype dt, int rank, const int64_t *dims, uint64_t seed) {
    host h;
    memset(&h, 0, sizeof h);
    h.dtype = dt;
    h.rank = rank;
    for (int i = 0; i < rank; i++) h.dims[i] = dims[i];
    h.n = numel(rank, dims);
    h.es = cj_dtype_size(dt);
    h.data = malloc((size_t)h.n * h.es + 8);
    uint64_t s = seed * 2654435761u + 1;
    for (int64_t i = 0; i < h.n; i++) {
        uint64_t r = th_rand_u64(&s);
        unsigned char *p = h.data + (size_t)i * h.es;
        switch (dt) {
        case CJ_BOOL: *p = (unsigned char)(r & 1); break;
        case CJ_I32: { int32_t v = (int32_t)r; memcpy(p, &v, 4); } break;
        case CJ_I64: { int64_t v = (int64_t)r; memcpy(p, &v, 8); } break;
        case CJ_F32: { float v = (float)th_rand_uniform(&s, -1e3, 1e3); memcpy(p, &v, 4); } break;
        default: { double v = th_rand_uniform(&s, -1e3, 1e3); memcpy(p, &v, 8); } break;
        }
    }
    return h;
}

static cj_val host_val(cj_ctx *ctx, const host *h) { return cj_array(ctx, h->dtype, h->rank, h->dims, h->data); }

static void host_free(host *h) { free(h->data); }

/* Does v have dtype dt and shape (rank, dims), with element i equal to
 * src's element map[i] (or to *pad where map[i] < 0)? Reports through
 * th_fail and returns 0 when not. */
static int expect_moved(cj_val v, const host *src, int rank, const int64_t *dims, const int64_t *map,
                        const void *pad, const char *what) {
    cj_ctx *ctx = v.ctx;
    if (cj_is_error(v) || cj_error(ctx)) {
        th_fail(__FILE__, __LINE__, "%s: error: %s", what, cj_error_message(ctx));
        return 0;
    }
    int64_t got[CJ_MAX_RANK];
    int r = cj_val_shape(v, got);
    if (cj_val_dtype(v) != src->dtype || r != rank) {
        char t[64];
        th_fail(__FILE__, __LINE__, "%s: got %s, want %s rank %d", what, cj_val_type_str(v, t, sizeof t),
                cj_dtype_name(src->dtype), rank);
        return 0;
    }
    for (int d = 0; d < rank; d++)
        if (got[d] != dims[d]) {
            char t[64];
            th_fail(__FILE__, __LINE__, "%s: got %s, axis %d should be %lld", what, cj_val_type_str(v, t, sizeof t), d,
                    (long long)dims[d]);
            return 0;
        }
    int64_t n = numel(rank, dims);
    unsigned char *buf = malloc((size_t)n * src->es + 8);
    int ok = cj_read(v, buf, (size_t)n * src->es) == CJ_OK;
    for (int64_t i = 0; ok && i < n; i++) {
        const void *want = map[i] >= 0 ? src->data + (size_t)map[i] * src->es : pad;
        if (memcmp(buf + (size_t)i * src->es, want, src->es) != 0) {
            th_fail(__FILE__, __LINE__, "%s (%s): element %lld differs (source %lld)", what,
                    cj_dtype_name(src->dtype), (long long)i, (long long)map[i]);
            ok = 0;
        }
    }
    if (!ok && cj_error(ctx)) th_fail(__FILE__, __LINE__, "%s: %s", what, cj_error_message(ctx));
    free(buf);
    return ok;
}

/* Does the context hold an error of this code whose message contains
 * `needle`? Clears it either way. */
static int expect_error(cj_ctx *ctx, cj_val v, cj_status code, const char *needle) {
    int ok = cj_is_error(v) && cj_error(ctx) == code && strstr(cj_error_message(ctx), needle);
    if (!ok)
        th_fail(__FILE__, __LINE__, "want %s containing \"%s\", got %s: \"%s\"", cj_status_name(code), needle,
                cj_status_name(cj_error(ctx)), cj_error_message(ctx));
    cj_error_clear(ctx);
    return ok;
}

/* ---- reference index maps ---- */

static int64_t *map_broadcast(const host *x, int rank, const int64_t *shape, const int64_t *bdims) {
    int64_t n = numel(rank, shape), o[CJ_MAX_RANK], i[CJ_MAX_RANK];
    int64_t *m = malloc(sizeof(int64_t) * (size_t)(n + 1));
    for (int64_t f = 0; f < n; f++) {
        unravel(f, rank, shape, o);
        for (int k = 0; k < x->rank; k++) i[k] = x->dims[k] == 1 ? 0 : o[bdims[k]];
        m[f] = ravel(x->rank, x->dims, i);
    }
    return m;
}

static int64_t *map_identity(int64_t n) {
    int64_t *m = malloc(sizeof(int64_t) * (size_t)(n + 1));
    for (int64_t f = 0; f < n; f++) m[f] = f;
    return m;
}

static int64_t *map_transpose(const host *x, const int64_t *perm, int64_t *out_dims) {
    int64_t o[CJ_MAX_RANK], i[CJ_MAX_RANK];
    for (int k = 0; k < x->rank; k++) out_dims[k] = x->dims[perm[k]];
    int64_t *m = malloc(sizeof(int64_t) * (size_t)(x->n + 1));
    for (int64_t f = 0; f < x->n; f++) {
        unravel(f, x->rank, out_dims, o);
        for (int k = 0; k < x->rank; k++) i[perm[k]] = o[k];
        m[f] = ravel(x->rank, x->dims, i);
    }
    return m;
}

static int64_t *map_slice(const host *x, const int64_t *lo, const int64_t *hi, const int64_t *st,
                          int64_t *out_dims) {
    int64_t o[CJ_MAX_RANK], i[CJ_MAX_RANK];
    for (int k = 0; k < x->rank; k++) {
        int64_t s = st ? st[k] : 1;
        out_dims[k] = hi[k] > lo[k] ? (hi[k] - lo[k] + s - 1) / s : 0;
    }
    int64_t n = numel(x->rank, out_dims);
    int64_t *m = malloc(sizeof(int64_t) * (size_t)(n + 1));
    for (int64_t f = 0; f < n; f++) {
        unravel(f, x->rank, out_dims, o);
        for (int k = 0; k < x->rank; k++) i[k] = lo[k] + o[k] * (st ? st[k] : 1);
        m[f] = ravel(x->rank, x->dims, i);
    }
    return m;
}

static int64_t *map_rev(const host *x, unsigned axes_mask) {
    int64_t o[CJ_MAX_RANK];
    int64_t *m = malloc(sizeof(int64_t) * (size_t)(x->n + 1));
    for (int64_t f = 0; f < x->n; f++) {
        unravel(f, x->rank, x->dims, o);
        for (int k = 0; k < x->rank; k++)
            if (axes_mask & (1u << k)) o[k] = x->dims[k] - 1 - o[k];
        m[f] = ravel(x->rank, x->dims, o);
    }
    return m;
}

/* lax.pad: for each output index, the input index it comes from or -1. */
static int64_t *map_pad(const host *x, const int64_t *lo, const int64_t *hi, const int64_t *in, int64_t *out_dims) {
    int64_t o[CJ_MAX_RANK], i[CJ_MAX_RANK];
    for (int k = 0; k < x->rank; k++)
        out_dims[k] = lo[k] + hi[k] + x->dims[k] + (x->dims[k] > 0 ? (x->dims[k] - 1) * (in ? in[k] : 0) : 0);
    int64_t n = numel(x->rank, out_dims);
    int64_t *m = malloc(sizeof(int64_t) * (size_t)(n + 1));
    for (int64_t f = 0; f < n; f++) {
        unravel(f, x->rank, out_dims, o);
        int inside = 1;
        for (int k = 0; k < x->rank; k++) {
            int64_t pitch = (in ? in[k] : 0) + 1, rel = o[k] - lo[k];
            if (rel < 0 || rel % pitch != 0 || rel / pitch >= x->dims[k]) inside = 0;
            else i[k] = rel / pitch;
        }
        m[f] = inside ? ravel(x->rank, x->dims, i) : -1;
    }
    return m;
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }
/* Where lax.dynamic_slice (allow_negative_indices=True) starts a window of
 * `size` on an axis of `dim`: a negative start counts from the end, then
 * the window is clamped into the axis. */
static int64_t lax_start(int64_t start, int64_t dim, int64_t size) {
    return clamp64(start < 0 ? start + dim : start, 0, dim - size);
}

/* ---- broadcast_in_dim / broadcast_to ---- */

typedef struct bcase {
    int in_rank;
    int64_t in_dims[4];
    int out_rank;
    int64_t out_dims[4];
    int64_t bdims[4];
} bcase;

static const bcase bcases[] = {
    {0, {0}, 2, {3, 4}, {0}},
    {1, {3}, 2, {2, 3}, {1}},
    {1, {3}, 2, {3, 5}, {0}},
    {2, {3, 1}, 2, {3, 5}, {0, 1}},
    {2, {1, 4}, 3, {2, 3, 4}, {1, 2}},
    {3, {2, 1, 3}, 4, {2, 4, 3, 5}, {0, 1, 2}},
    {2, {0, 3}, 3, {2, 0, 3}, {1, 2}},
    {1, {3}, 2, {0, 3}, {1}},
    {1, {1}, 1, {7}, {0}},
    {0, {0}, 0, {0}, {0}},
};

TEST(shape_broadcast_in_dim_matches_reference) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    for (int t = 0; t < N_DTYPES; t++)
        for (size_t c = 0; c < sizeof bcases / sizeof bcases[0]; c++) {
            const bcase *b = &bcases[c];
            host x = host_random(all_dtypes[t], b->in_rank, b->in_dims, c + 1);
            cj_val y = cj_broadcast_in_dim(host_val(ctx, &x), b->out_rank, b->out_dims, b->bdims);
            int64_t *m = map_broadcast(&x, b->out_rank, b->out_dims, b->bdims);
            int ok = expect_moved(y, &x, b->out_rank, b->out_dims, m, NULL, "broadcast_in_dim");
            free(m);
            host_free(&x);
            CHECK_MSG(ok, "case %zu", c);
        }
    cj_ctx_free(ctx);
}

TEST(shape_broadcast_to_aligns_trailing_axes) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t xd[2] = {3, 1}, out[3] = {2, 3, 4}, bd[2] = {1, 2};
    host x = host_random(CJ_F32, 2, xd, 5);
    cj_val y = cj_broadcast_to(host_val(ctx, &x), 3, out);
    int64_t *m = map_broadcast(&x, 3, out, bd);
    int ok = expect_moved(y, &x, 3, out, m, NULL, "broadcast_to");
    free(m);
    host_free(&x);
    CHECK(ok);
    /* the same shape is the operand itself */
    cj_val z = cj_zeros(ctx, CJ_I32, 3, out);
    cj_val w = cj_broadcast_to(z, 3, out);
    CHECK(w.slot == z.slot);
    int64_t bad[2] = {3, 5};
    CHECK(expect_error(ctx, cj_broadcast_to(z, 2, bad), CJ_ERR_SHAPE, "broadcast_to: cannot broadcast i32[2,3,4]"));
    int64_t bad2[3] = {2, 5, 4};
    CHECK(expect_error(ctx, cj_broadcast_to(z, 3, bad2), CJ_ERR_SHAPE, "cannot broadcast i32[2,3,4] to shape (2, 5, 4)"));
    CHECK(expect_error(ctx, cj_broadcast_to(z, 9, bad2), CJ_ERR_SHAPE, "rank 9 is outside 0..8"));
    cj_ctx_free(ctx);
}

TEST(shape_broadcast_in_dim_keeps_weak_type) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t out[2] = {2, 2};
    cj_val y = cj_broadcast_in_dim(cj_scalar(ctx, 1.5), 2, out, NULL);
    CHECK(cj_val_weak(y));
    CHECK(cj_val_dtype(y) == CJ_F32);
    cj_val z = cj_broadcast_in_dim(cj_scalar_typed(ctx, 1.5, CJ_F32), 2, out, NULL);
    CHECK(!cj_val_weak(z));
    float buf[4];
    CHECK(cj_read(y, buf, sizeof buf) == CJ_OK);
    for (int i = 0; i < 4; i++) CHECK_NEAR(buf[i], 1.5, 0, 0);
    cj_ctx_free(ctx);
}

TEST(shape_broadcast_in_dim_errors) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t xd[2] = {3, 4};
    cj_val x = cj_zeros(ctx, CJ_F32, 2, xd);
    int64_t out[2] = {3, 5}, bd[2] = {0, 1};
    CHECK(expect_error(ctx, cj_broadcast_in_dim(x, 2, out, bd), CJ_ERR_SHAPE,
                       "broadcast_in_dim: operand f32[3,4] does not broadcast to shape (3, 5) with "
                       "broadcast_dimensions (0, 1): operand axis 1 has size 4, output axis 1 has size 5"));
    int64_t out3[3] = {3, 4, 2}, dec[2] = {1, 0};
    CHECK(expect_error(ctx, cj_broadcast_in_dim(x, 3, out3, dec), CJ_ERR_AXIS,
                       "broadcast_in_dim: broadcast_dimensions (1, 0) must be strictly increasing"));
    int64_t far[2] = {0, 3};
    CHECK(expect_error(ctx, cj_broadcast_in_dim(x, 3, out3, far), CJ_ERR_AXIS, "axis 3 is out of range for shape (3, 4, 2)"));
    int64_t neg[2] = {-3, 4};
    CHECK(expect_error(ctx, cj_broadcast_in_dim(x, 2, neg, bd), CJ_ERR_SHAPE, "shape (-3, 4) has a negative size"));
    CHECK(expect_error(ctx, cj_broadcast_in_dim(x, 2, out, NULL), CJ_ERR_ARG, "dims is NULL"));
    /* an error value in, an error value out, the first message kept */
    cj_val e = cj_broadcast_in_dim(x, 2, out, bd);
    cj_val e2 = cj_broadcast_in_dim(e, 2, out, bd);
    CHECK(cj_is_error(e2));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "does not broadcast");
    cj_error_clear(ctx);
    /* a freed operand is reported, not dereferenced */
    cj_val_free(x);
    CHECK(expect_error(ctx, cj_broadcast_in_dim(x, 2, out, bd), CJ_ERR_LEAKED, "cj_broadcast_in_dim"));
    cj_ctx_free(ctx);
}

/* ---- reshape ---- */

TEST(shape_reshape_matches_reference) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    typedef struct { int in_rank; int64_t in_dims[3]; int rank; int64_t dims[3]; int64_t want[3]; } rcase;
    static const rcase cases[] = {
        {2, {3, 4}, 2, {2, 6}, {2, 6}},      {2, {3, 4}, 1, {12}, {12}},
        {2, {3, 4}, 3, {2, -1, 3}, {2, 2, 3}}, {0, {0}, 2, {1, 1}, {1, 1}},
        {2, {1, 1}, 0, {0}, {0}},           {2, {0, 3}, 2, {3, 0}, {3, 0}},
        {2, {0, 3}, 1, {-1}, {0}},          {3, {2, 1, 5}, 2, {-1, 5}, {2, 5}},
    };
    for (int t = 0; t < N_DTYPES; t++)
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            const rcase *r = &cases[c];
            host x = host_random(all_dtypes[t], r->in_rank, r->in_dims, c + 7);
            cj_val y = cj_reshape(host_val(ctx, &x), r->rank, r->dims);
            int64_t *m = map_identity(x.n);
            int ok = expect_moved(y, &x, r->rank, r->want, m, NULL, "reshape");
            free(m);
            host_free(&x);
            CHECK_MSG(ok, "case %zu", c);
        }
    cj_ctx_free(ctx);
}

TEST(shape_reshape_same_shape_is_the_operand) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t d[2] = {3, 4}, inferred[2] = {-1, 4};
    cj_val x = cj_zeros(ctx, CJ_F32, 2, d);
    CHECK(cj_reshape(x, 2, d).slot == x.slot);
    CHECK(cj_reshape(x, 2, inferred).slot == x.slot);
    cj_ctx_free(ctx);
}

TEST(shape_reshape_errors) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t d[2] = {3, 4};
    cj_val x = cj_zeros(ctx, CJ_F32, 2, d);
    int64_t bad[2] = {5, 2};
    CHECK(expect_error(ctx, cj_reshape(x, 2, bad), CJ_ERR_SHAPE,
                       "reshape: cannot reshape f32[3,4] (12 elements) to (5, 2) (10 elements)"));
    int64_t two[3] = {-1, 2, -1};
    CHECK(expect_error(ctx, cj_reshape(x, 3, two), CJ_ERR_SHAPE, "cj_reshape: more than one -1 in the new shape (-1, 2, -1)"));
    int64_t indivisible[2] = {5, -1};
    CHECK(expect_error(ctx, cj_reshape(x, 2, indivisible), CJ_ERR_SHAPE,
                       "cj_reshape: cannot reshape f32[3,4] (12 elements) to (5, -1)"));
    int64_t neg[2] = {-2, -6};
    CHECK(expect_error(ctx, cj_reshape(x, 2, neg), CJ_ERR_SHAPE, "negative size in the new shape (-2, -6)"));
    int64_t ez[2] = {0, 3}, amb[2] = {-1, 0};
    cj_val e = cj_zeros(ctx, CJ_F32, 2, ez);
    CHECK(expect_error(ctx, cj_reshape(e, 2, amb), CJ_ERR_SHAPE, "cannot reshape f32[0,3] (0 elements) to (-1, 0)"));
    CHECK(expect_error(ctx, cj_reshape(x, -1, d), CJ_ERR_SHAPE, "cj_reshape: rank -1 is outside 0..8"));
    CHECK(expect_error(ctx, cj_reshape(x, 2, NULL), CJ_ERR_ARG, "cj_reshape: shape is NULL"));
    cj_ctx_free(ctx);
}

/* ---- transpose ---- */

TEST(shape_transpose_matches_reference) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    typedef struct { int rank; int64_t dims[4]; int64_t perm[4]; int64_t norm[4]; } tcase;
    static const tcase cases[] = {
        {2, {3, 5}, {1, 0}, {1, 0}},           {3, {2, 3, 4}, {0, 2, 1}, {0, 2, 1}},
        {3, {2, 3, 4}, {1, 0, 2}, {1, 0, 2}},  {3, {2, 3, 4}, {1, 2, 0}, {1, 2, 0}},
        {3, {2, 3, 4}, {2, 0, 1}, {2, 0, 1}},  {3, {2, 3, 4}, {2, 1, 0}, {2, 1, 0}},
        {4, {3, 1, 4, 2}, {2, 0, 3, 1}, {2, 0, 3, 1}}, {4, {2, 3, 4, 5}, {-1, 0, -2, 1}, {3, 0, 2, 1}},
        {2, {0, 4}, {1, 0}, {1, 0}},           {3, {5, 1, 33}, {2, 1, 0}, {2, 1, 0}},
        {2, {37, 65}, {1, 0}, {1, 0}},         {1, {6}, {0}, {0}},
    };
    for (int t = 0; t < N_DTYPES; t++)
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            const tcase *r = &cases[c];
            host x = host_random(all_dtypes[t], r->rank, r->dims, c + 11);
            cj_val y = cj_transpose(host_val(ctx, &x), r->perm);
            int64_t out[CJ_MAX_RANK];
            int64_t *m = map_transpose(&x, r->norm, out);
            int ok = expect_moved(y, &x, r->rank, out, m, NULL, "transpose");
            free(m);
            host_free(&x);
            CHECK_MSG(ok, "case %zu", c);
        }
    cj_ctx_free(ctx);
}

TEST(shape_transpose_null_perm_reverses_axes) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t d[3] = {2, 3, 4}, rev[3] = {2, 1, 0}, out[3];
    host x = host_random(CJ_I64, 3, d, 3);
    cj_val y = cj_transpose(host_val(ctx, &x), NULL);
    int64_t *m = map_transpose(&x, rev, out);
    int ok = expect_moved(y, &x, 3, out, m, NULL, "transpose(NULL)");
    free(m);
    host_free(&x);
    CHECK(ok);
    /* identity permutations and rank 0 give the operand back */
    int64_t id[3] = {0, 1, -1};
    cj_val z = cj_zeros(ctx, CJ_F32, 3, d);
    CHECK(cj_transpose(z, id).slot == z.slot);
    cj_val s = cj_scalar(ctx, 2.0);
    CHECK(cj_transpose(s, NULL).slot == s.slot);
    cj_ctx_free(ctx);
}

TEST(shape_transpose_errors) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t d[2] = {3, 4};
    cj_val x = cj_zeros(ctx, CJ_F32, 2, d);
    int64_t rep[2] = {0, 0}, far[2] = {0, 2}, negrep[2] = {1, -1};
    CHECK(expect_error(ctx, cj_transpose(x, rep), CJ_ERR_AXIS, "cj_transpose: (0, 0) is not a permutation: axis 0 is repeated"));
    CHECK(expect_error(ctx, cj_transpose(x, far), CJ_ERR_AXIS, "cj_transpose: axis 2 is out of range for rank 2"));
    CHECK(expect_error(ctx, cj_transpose(x, negrep), CJ_ERR_AXIS, "axis 1 is repeated"));
    cj_ctx_free(ctx);
}

/* ---- squeeze / expand_dims ---- */

TEST(shape_squeeze_matches_reference) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t d[4] = {1, 3, 1, 2};
    for (int t = 0; t < N_DTYPES; t++) {
        host x = host_random(all_dtypes[t], 4, d, 21);
        cj_val xv = host_val(ctx, &x);
        int64_t *m = map_identity(x.n);
        int64_t all[2] = {3, 2}, one[3] = {1, 3, 2}, neg = -2, both[2] = {2, 0};
        int ok = expect_moved(cj_squeeze(xv, -1, NULL), &x, 2, all, m, NULL, "squeeze all") &&
                 expect_moved(cj_squeeze(xv, 1, &neg), &x, 3, one, m, NULL, "squeeze -2") &&
                 expect_moved(cj_squeeze(xv, 2, both), &x, 2, all, m, NULL, "squeeze (2, 0)");
        free(m);
        host_free(&x);
        CHECK(ok);
    }
    cj_val z = cj_zeros(ctx, CJ_F32, 4, d);
    CHECK(cj_squeeze(z, 0, d).slot == z.slot);
    int64_t nd[2] = {2, 3};
    cj_val w = cj_zeros(ctx, CJ_F32, 2, nd);
    CHECK(cj_squeeze(w, -1, NULL).slot == w.slot);
    cj_val s = cj_scalar(ctx, 1);
    CHECK(cj_squeeze(s, -1, NULL).slot == s.slot);
    cj_ctx_free(ctx);
}

TEST(shape_squeeze_errors) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t d[4] = {1, 3, 1, 2};
    cj_val x = cj_zeros(ctx, CJ_F32, 4, d);
    int64_t one = 1, four = 4, rep[2] = {0, -4};
    CHECK(expect_error(ctx, cj_squeeze(x, 1, &one), CJ_ERR_SHAPE,
                       "cj_squeeze: cannot squeeze axis 1 of f32[1,3,1,2]: its size is 3, not 1"));
    CHECK(expect_error(ctx, cj_squeeze(x, 1, &four), CJ_ERR_AXIS, "cj_squeeze: axis 4 is out of range for rank 4"));
    CHECK(expect_error(ctx, cj_squeeze(x, 2, rep), CJ_ERR_AXIS, "cj_squeeze: axis -4 is repeated"));
    cj_ctx_free(ctx);
}

TEST(shape_expand_dims_matches_reference) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t d[2] = {3, 4};
    typedef struct { int64_t axis; int64_t want[3]; } ecase;
    static const ecase cases[] = {
        {0, {1, 3, 4}}, {1, {3, 1, 4}}, {2, {3, 4, 1}}, {-1, {3, 4, 1}}, {-2, {3, 1, 4}}, {-3, {1, 3, 4}},
    };
    for (int t = 0; t < N_DTYPES; t++)
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            host x = host_random(all_dtypes[t], 2, d, c + 31);
            int64_t *m = map_identity(x.n);
            int ok = expect_moved(cj_expand_dims(host_val(ctx, &x), cases[c].axis), &x, 3, cases[c].want, m, NULL,
                                  "expand_dims");
            free(m);
            host_free(&x);
            CHECK_MSG(ok, "axis %lld", (long long)cases[c].axis);
        }
    host s = host_random(CJ_F64, 0, NULL, 4);
    int64_t one = 1, map0 = 0;
    CHECK(expect_moved(cj_expand_dims(host_val(ctx, &s), -1), &s, 1, &one, &map0, NULL, "expand_dims rank 0"));
    host_free(&s);
    cj_ctx_free(ctx);
}

TEST(shape_expand_dims_errors) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t d[2] = {3, 4};
    cj_val x = cj_zeros(ctx, CJ_F32, 2, d);
    CHECK(expect_error(ctx, cj_expand_dims(x, 3), CJ_ERR_AXIS, "cj_expand_dims: axis 3 is out of range for f32[3,4] (result rank 3)"));
    CHECK(expect_error(ctx, cj_expand_dims(x, -4), CJ_ERR_AXIS, "axis -4 is out of range"));
    int64_t d8[8] = {1, 1, 1, 1, 1, 1, 1, 2};
    cj_val y = cj_zeros(ctx, CJ_F32, 8, d8);
    CHECK(expect_error(ctx, cj_expand_dims(y, 0), CJ_ERR_SHAPE, "already has the maximum rank 8"));
    cj_ctx_free(ctx);
}

/* ---- slice ---- */

TEST(shape_slice_matches_reference) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t d[3] = {5, 7, 3};
    typedef struct { int64_t lo[3], hi[3], st[3]; int strided; } scase;
    static const scase cases[] = {
        {{1, 0, 0}, {5, 7, 2}, {2, 3, 1}, 1}, {{0, 2, 1}, {5, 6, 3}, {0}, 0},  {{0, 0, 0}, {5, 7, 3}, {0}, 0},
        {{2, 2, 0}, {2, 7, 3}, {0}, 0},       {{4, 6, 2}, {5, 7, 3}, {3, 3, 3}, 1}, {{0, 1, 0}, {5, 7, 3}, {4, 5, 2}, 1},
    };
    for (int t = 0; t < N_DTYPES; t++)
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            const scase *s = &cases[c];
            host x = host_random(all_dtypes[t], 3, d, c + 41);
            const int64_t *st = s->strided ? s->st : NULL;
            int64_t out[3];
            int64_t *m = map_slice(&x, s->lo, s->hi, st, out);
            int ok = expect_moved(cj_slice(host_val(ctx, &x), s->lo, s->hi, st), &x, 3, out, m, NULL, "slice");
            free(m);
            host_free(&x);
            CHECK_MSG(ok, "case %zu", c);
        }
    host s = host_random(CJ_I32, 0, NULL, 4);
    int64_t map0 = 0;
    CHECK(expect_moved(cj_slice(host_val(ctx, &s), NULL, NULL, NULL), &s, 0, NULL, &map0, NULL, "slice rank 0"));
    host_free(&s);
    cj_ctx_free(ctx);
}

TEST(shape_slice_errors) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t d[2] = {4, 5};
    cj_val x = cj_zeros(ctx, CJ_F32, 2, d);
    int64_t lo[2] = {-1, 0}, hi[2] = {2, 3};
    CHECK(expect_error(ctx, cj_slice(x, lo, hi, NULL), CJ_ERR_SHAPE,
                       "slice: start_indices (-1, 0) and limit_indices (2, 3) do not fit f32[4,5]: axis 0 needs "
                       "0 <= start <= limit <= 4, got start -1 limit 2"));
    int64_t lo2[2] = {0, 0}, hi2[2] = {4, 6};
    CHECK(expect_error(ctx, cj_slice(x, lo2, hi2, NULL), CJ_ERR_SHAPE, "axis 1 needs 0 <= start <= limit <= 5, got start 0 limit 6"));
    int64_t lo3[2] = {3, 0}, hi3[2] = {2, 5};
    CHECK(expect_error(ctx, cj_slice(x, lo3, hi3, NULL), CJ_ERR_SHAPE, "got start 3 limit 2"));
    int64_t st[2] = {1, 0};
    CHECK(expect_error(ctx, cj_slice(x, lo2, hi3, st), CJ_ERR_ARG, "slice: strides (1, 0) must be positive"));
    CHECK(expect_error(ctx, cj_slice(x, NULL, hi3, NULL), CJ_ERR_ARG, "cj_slice: start is NULL"));
    cj_ctx_free(ctx);
}

/* ---- dynamic_slice / dynamic_update_slice ---- */

TEST(shape_dynamic_slice_clamps_like_lax) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t d[2] = {6, 5}, sizes[2] = {3, 4};
    typedef struct { int64_t start[2]; } dcase;
    static const dcase cases[] = {{{2, 1}}, {{0, 0}}, {{10, -3}}, {{3, 1}}, {{-1, 7}}, {{-6, -1}}, {{-100, -5}}};
    for (int t = 0; t < N_DTYPES; t++)
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            host x = host_random(all_dtypes[t], 2, d, c + 51);
            /* one i32 (weak) and one i64 (strong) index */
            cj_val idx[2] = {cj_scalar_int(ctx, cases[c].start[0]), cj_scalar_typed(ctx, (double)cases[c].start[1], CJ_I64)};
            int64_t lo[2], hi[2];
            for (int k = 0; k < 2; k++) {
                lo[k] = lax_start(cases[c].start[k], d[k], sizes[k]);
                hi[k] = lo[k] + sizes[k];
            }
            int64_t out[2];
            int64_t *m = map_slice(&x, lo, hi, NULL, out);
            int ok = expect_moved(cj_dynamic_slice(host_val(ctx, &x), idx, sizes), &x, 2, out, m, NULL, "dynamic_slice");
            free(m);
            host_free(&x);
            CHECK_MSG(ok, "case %zu", c);
        }
    /* zero-size windows and rank 0 */
    int64_t zero[2] = {0, 5};
    cj_val idx[2] = {cj_scalar_int(ctx, 4), cj_scalar_int(ctx, 0)};
    cj_val z = cj_dynamic_slice(cj_zeros(ctx, CJ_F32, 2, d), idx, zero);
    CHECK(!cj_is_error(z) && cj_val_size(z) == 0 && cj_val_dim(z, 1) == 5);
    host s = host_random(CJ_F32, 0, NULL, 9);
    int64_t map0 = 0;
    CHECK(expect_moved(cj_dynamic_slice(host_val(ctx, &s), NULL, NULL), &s, 0, NULL, &map0, NULL, "rank 0"));
    host_free(&s);
    cj_ctx_free(ctx);
}

TEST(shape_dynamic_slice_errors) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t d[2] = {6, 5}, sizes[2] = {3, 4}, big[2] = {7, 2};
    cj_val x = cj_zeros(ctx, CJ_F32, 2, d);
    cj_val fidx[2] = {cj_scalar_int(ctx, 0), cj_scalar(ctx, 1.0)};
    CHECK(expect_error(ctx, cj_dynamic_slice(x, fidx, sizes), CJ_ERR_DTYPE,
                       "dynamic_slice: start index 1 must be a rank-0 integer, got f32[]"));
    int64_t two = 2;
    cj_val vidx[2] = {cj_zeros(ctx, CJ_I32, 1, &two), cj_scalar_int(ctx, 0)};
    CHECK(expect_error(ctx, cj_dynamic_slice(x, vidx, sizes), CJ_ERR_DTYPE, "start index 0 must be a rank-0 integer, got i32[2]"));
    cj_val idx[2] = {cj_scalar_int(ctx, 0), cj_scalar_int(ctx, 0)};
    CHECK(expect_error(ctx, cj_dynamic_slice(x, idx, big), CJ_ERR_SHAPE,
                       "dynamic_slice: slice_sizes (7, 2) do not fit f32[6,5]: axis 0 needs 0 <= size <= 6, got 7"));
    CHECK(expect_error(ctx, cj_dynamic_slice(x, NULL, sizes), CJ_ERR_ARG, "cj_dynamic_slice: start is NULL"));
    cj_ctx_free(ctx);
}

/* x's elements then u's, as one source for expect_moved. */
static host host_concat(const host *a, const host *b) {
    host h = *a;
    h.data = malloc((size_t)(a->n + b->n) * a->es + 8);
    memcpy(h.data, a->data, (size_t)a->n * a->es);
    memcpy(h.data + (size_t)a->n * a->es, b->data, (size_t)b->n * b->es);
    h.n = a->n + b->n;
    return h;
}

TEST(shape_dynamic_update_slice_clamps_like_lax) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t d[2] = {6, 5}, ud[2] = {2, 3};
    typedef struct { int64_t start[2]; } dcase;
    static const dcase cases[] = {{{1, 1}}, {{5, 4}}, {{-2, 0}}, {{4, 2}}, {{0, 100}}, {{-5, -2}}, {{-9, -1}}};
    for (int t = 0; t < N_DTYPES; t++)
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            host x = host_random(all_dtypes[t], 2, d, c + 61);
            host u = host_random(all_dtypes[t], 2, ud, c + 71);
            host both = host_concat(&x, &u);
            cj_val idx[2] = {cj_scalar_int(ctx, cases[c].start[0]), cj_scalar_typed(ctx, (double)cases[c].start[1], CJ_I64)};
            int64_t s0 = lax_start(cases[c].start[0], d[0], ud[0]), s1 = lax_start(cases[c].start[1], d[1], ud[1]);
            int64_t m[30];
            for (int64_t i = 0; i < 6; i++)
                for (int64_t j = 0; j < 5; j++) {
                    int in_window = i >= s0 && i < s0 + ud[0] && j >= s1 && j < s1 + ud[1];
                    m[i * 5 + j] = in_window ? x.n + (i - s0) * ud[1] + (j - s1) : i * 5 + j;
                }
            cj_val y = cj_dynamic_update_slice(host_val(ctx, &x), host_val(ctx, &u), idx);
            int ok = expect_moved(y, &both, 2, d, m, NULL, "dynamic_update_slice");
            host_free(&x);
            host_free(&u);
            host_free(&both);
            CHECK_MSG(ok, "case %zu", c);
        }
    cj_ctx_free(ctx);
}

/* ---- negative starts count from the end (lax's allow_negative_indices) ---- */

#define NS_DIM 7
#define NS_SIZE 3
static const int32_t ns_starts[] = {-9, -8, -7, -6, -3, -1, 0, 2, 4, 5, 9};
#define NS_COUNT ((int64_t)(sizeof ns_starts / sizeof ns_starts[0]))

/* x[7], i[] -> (dynamic_slice(x, i, 3), dynamic_update_slice(x, 100 + iota(3), i)) */
static void fn_neg_start(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    out[0] = cj_dynamic_slice(in[0], &in[1], (const int64_t[]){NS_SIZE});
    cj_val u = cj_add(cj_arange(ctx, 0, NS_SIZE, 1, CJ_F32), cj_scalar(ctx, 100));
    out[1] = cj_dynamic_update_slice(in[0], u, &in[1]);
}

/* sum(dynamic_slice(x, i, 3) * (1, 2, 3)): d/dx is (1, 2, 3) at the window */
static void fn_neg_start_loss(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    cj_val w = cj_arange(ctx, 1, NS_SIZE + 1, 1, CJ_F32);
    out[0] = cj_sum(cj_mul(cj_dynamic_slice(in[0], &in[1], (const int64_t[]){NS_SIZE}), w), -1, NULL, 0);
}

/* Do (slice, updated) hold the window at lax_start(start) of x = iota(7)? */
static int neg_start_ok(cj_val slice, cj_val updated, int64_t start) {
    int64_t at = lax_start(start, NS_DIM, NS_SIZE);
    float s[NS_SIZE], u[NS_DIM];
    if (cj_read(slice, s, sizeof s) != CJ_OK || cj_read(updated, u, sizeof u) != CJ_OK) return 0;
    for (int64_t k = 0; k < NS_SIZE; k++)
        if (s[k] != (float)(at + k)) return 0;
    for (int64_t k = 0; k < NS_DIM; k++) {
        float want = k >= at && k < at + NS_SIZE ? (float)(100 + k - at) : (float)k;
        if (u[k] != want) return 0;
    }
    return 1;
}

TEST(dynamic_slice_negative_start_counts_from_end) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    /* the case from JAX's documentation: dynamic_slice(arange(5), -1, 2) = [3, 4] */
    cj_val r = cj_dynamic_slice(cj_arange(ctx, 0, 5, 1, CJ_F32), (cj_val[]){cj_scalar_int(ctx, -1)}, (int64_t[]){2});
    float r2[2] = {0, 0};
    CHECK(cj_read(r, r2, sizeof r2) == CJ_OK && r2[0] == 3 && r2[1] == 4);
    cj_val x = cj_arange(ctx, 0, NS_DIM, 1, CJ_F32);
    cj_func *f = cj_func_new(ctx, "neg_start", fn_neg_start, 2, 2, NULL);
    cj_jit_opts interp = {.backend = CJ_BACKEND_INTERP}, cc = {.backend = CJ_BACKEND_CC};
    cj_func *modes[3] = {f, cj_jit(f, &interp), cj_jit(f, &cc)};
    static const char *const names[3] = {"eager", "jit interp", "jit cc"};
    for (int64_t c = 0; c < NS_COUNT; c++)
        for (int m = 0; m < 3; m++)
            for (int wide = 0; wide < 2; wide++) { /* i32 and i64 starts */
                cj_val in[2] = {x, cj_scalar_typed(ctx, ns_starts[c], wide ? CJ_I64 : CJ_I32)}, out[2];
                CHECK_MSG(cj_call(modes[m], in, out) == CJ_OK, "%s: %s", names[m], cj_error_message(ctx));
                CHECK_MSG(neg_start_ok(out[0], out[1], ns_starts[c]), "%s start %d (%s)", names[m], ns_starts[c],
                          wide ? "i64" : "i32");
            }
    /* vmap over a batch of starts, and jit of that vmap */
    int64_t n = NS_COUNT;
    cj_val starts = cj_array(ctx, CJ_I32, 1, &n, ns_starts);
    cj_vmap_opts vo = {.in_axes = (const int64_t[]){CJ_NOT_MAPPED, 0}};
    cj_func *vf = cj_vmap(f, &vo);
    cj_func *vmodes[2] = {vf, cj_jit(vf, &cc)};
    for (int m = 0; m < 2; m++) {
        cj_val out[2];
        CHECK_MSG(cj_call(vmodes[m], (cj_val[]){x, starts}, out) == CJ_OK, "%s", cj_error_message(ctx));
        for (int64_t c = 0; c < NS_COUNT; c++) {
            cj_val i = cj_scalar_int(ctx, c);
            cj_val row_s = cj_dynamic_slice(out[0], (cj_val[]){i, cj_scalar_int(ctx, 0)}, (int64_t[]){1, NS_SIZE});
            cj_val row_u = cj_dynamic_slice(out[1], (cj_val[]){i, cj_scalar_int(ctx, 0)}, (int64_t[]){1, NS_DIM});
            CHECK_MSG(neg_start_ok(row_s, row_u, ns_starts[c]), "%s start %d", m ? "jit(vmap)" : "vmap", ns_starts[c]);
        }
    }
    /* grad: the cotangent lands on the window the primal read */
    cj_func *loss = cj_func_new(ctx, "neg_start_loss", fn_neg_start_loss, 2, 1, NULL);
    cj_func *gl = cj_grad(loss, NULL);
    cj_func *gmodes[2] = {gl, cj_jit(gl, &cc)};
    for (int64_t c = 0; c < NS_COUNT; c++)
        for (int m = 0; m < 2; m++) {
            cj_val g;
            CHECK_MSG(cj_call(gmodes[m], (cj_val[]){x, cj_scalar_int(ctx, ns_starts[c])}, &g) == CJ_OK, "%s",
                      cj_error_message(ctx));
            float gv[NS_DIM];
            CHECK(cj_read(g, gv, sizeof gv) == CJ_OK);
            int64_t at = lax_start(ns_starts[c], NS_DIM, NS_SIZE);
            for (int64_t k = 0; k < NS_DIM; k++)
                CHECK_MSG(gv[k] == (k >= at && k < at + NS_SIZE ? (float)(1 + k - at) : 0.0f), "%s grad start %d",
                          m ? "jit" : "eager", ns_starts[c]);
        }
    CHECK_MSG(cj_error(ctx) == CJ_OK, "%s", cj_error_message(ctx));
    cj_ctx_free(ctx);
}

TEST(shape_dynamic_update_slice_errors) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t d[2] = {6, 5}, big[2] = {7, 2}, three = 3;
    cj_val x = cj_zeros(ctx, CJ_F32, 2, d);
    cj_val idx[2] = {cj_scalar_int(ctx, 0), cj_scalar_int(ctx, 0)};
    CHECK(expect_error(ctx, cj_dynamic_update_slice(x, cj_zeros(ctx, CJ_F32, 2, big), idx), CJ_ERR_SHAPE,
                       "dynamic_update_slice: update f32[7,2] does not fit in the operand f32[6,5] on axis 0"));
    CHECK(expect_error(ctx, cj_dynamic_update_slice(x, cj_zeros(ctx, CJ_F32, 1, &three), idx), CJ_ERR_SHAPE,
                       "update f32[3] must have the rank of the operand f32[6,5]"));
    cj_val fidx[2] = {cj_scalar_typed(ctx, 0, CJ_F64), cj_scalar_int(ctx, 0)};
    CHECK(expect_error(ctx, cj_dynamic_update_slice(x, x, fidx), CJ_ERR_DTYPE, "start index 0 must be a rank-0 integer, got f64[]"));
    cj_ctx_free(ctx);
}

/* ---- concatenate ---- */

/* Index map of a concatenation whose sources are stored back to back. */
static int64_t *map_concat(int n, const host *xs, int64_t axis, int64_t *out_dims) {
    int rank = xs[0].rank;
    for (int k = 0; k < rank; k++) out_dims[k] = xs[0].dims[k];
    for (int i = 1; i < n; i++) out_dims[axis] += xs[i].dims[axis];
    int64_t total = numel(rank, out_dims), o[CJ_MAX_RANK];
    int64_t *m = malloc(sizeof(int64_t) * (size_t)(total + 1));
    for (int64_t f = 0; f < total; f++) {
        unravel(f, rank, out_dims, o);
        int64_t base = 0, at = o[axis];
        int i = 0;
        while (at >= xs[i].dims[axis]) {
            at -= xs[i].dims[axis];
            base += xs[i].n;
            i++;
        }
        o[axis] = at;
        m[f] = base + ravel(rank, xs[i].dims, o);
    }
    return m;
}

TEST(shape_concatenate_matches_reference) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    typedef struct { int n, rank; int64_t axis; int64_t dims[4][3]; } ccase;
    static const ccase cases[] = {
        {3, 2, 0, {{2, 3}, {4, 3}, {0, 3}}},
        {4, 2, 1, {{2, 3}, {2, 1}, {2, 0}, {2, 2}}},
        {2, 2, -1, {{3, 2}, {3, 5}}},
        {3, 3, 1, {{2, 1, 3}, {2, 4, 3}, {2, 2, 3}}},
        {2, 3, -3, {{1, 2, 2}, {3, 2, 2}}},
        {2, 1, 0, {{5}, {1}}},
    };
    for (int t = 0; t < N_DTYPES; t++)
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            const ccase *k = &cases[c];
            host xs[4];
            cj_val vs[4];
            for (int i = 0; i < k->n; i++) {
                xs[i] = host_random(all_dtypes[t], k->rank, k->dims[i], c * 10 + (size_t)i + 81);
                vs[i] = host_val(ctx, &xs[i]);
            }
            host all = xs[0];
            all.data = malloc(1);
            all.n = 0;
            for (int i = 0; i < k->n; i++) {
                host next = host_concat(&all, &xs[i]);
                free(all.data);
                all = next;
            }
            int64_t axis = k->axis < 0 ? k->axis + k->rank : k->axis, out[3];
            int64_t *m = map_concat(k->n, xs, axis, out);
            int ok = expect_moved(cj_concatenate(k->n, vs, k->axis), &all, k->rank, out, m, NULL, "concatenate");
            free(m);
            for (int i = 0; i < k->n; i++) host_free(&xs[i]);
            host_free(&all);
            CHECK_MSG(ok, "case %zu", c);
        }
    cj_ctx_free(ctx);
}

TEST(shape_concatenate_many_operands_and_one) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    enum { N = 150 };
    cj_val vs[N];
    for (int i = 0; i < N; i++) {
        int64_t d[2] = {1 + i % 2, 2};
        int32_t data[4] = {i, -i, i + 1000, -i - 1000};
        vs[i] = cj_array(ctx, CJ_I32, 2, d, data);
    }
    cj_val y = cj_concatenate(N, vs, 0);
    CHECK_EQ_INT(cj_val_dim(y, 0), N / 2 * 3);
    int32_t *buf = malloc(sizeof(int32_t) * N * 4);
    CHECK(cj_read(y, buf, sizeof(int32_t) * N * 4) == CJ_OK);
    int64_t row = 0;
    for (int i = 0; i < N; i++) {
        int32_t data[4] = {i, -i, i + 1000, -i - 1000};
        for (int r = 0; r < 1 + i % 2; r++, row++) {
            CHECK_EQ_INT(buf[row * 2], data[r * 2]);
            CHECK_EQ_INT(buf[row * 2 + 1], data[r * 2 + 1]);
        }
    }
    free(buf);
    CHECK(cj_concatenate(1, vs, -1).slot == vs[0].slot);
    cj_ctx_free(ctx);
}

TEST(shape_concatenate_errors) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t a[2] = {2, 3}, b[2] = {2, 5}, c = 3;
    cj_val x = cj_zeros(ctx, CJ_F32, 2, a);
    cj_val pair[2] = {x, cj_zeros(ctx, CJ_F32, 2, b)};
    CHECK(expect_error(ctx, cj_concatenate(2, pair, 0), CJ_ERR_SHAPE,
                       "concatenate: operand 1 f32[2,5] does not match f32[2,3] except on axis 0"));
    cj_val ranks[2] = {x, cj_zeros(ctx, CJ_F32, 1, &c)};
    CHECK(expect_error(ctx, cj_concatenate(2, ranks, 0), CJ_ERR_SHAPE,
                       "concatenate: operand 1 f32[3] and operand 0 f32[2,3] must have equal ranks"));
    CHECK(expect_error(ctx, cj_concatenate(2, pair, 2), CJ_ERR_AXIS, "cj_concatenate: axis 2 is out of range for rank 2"));
    cj_val scalars[2] = {cj_scalar(ctx, 1), cj_scalar(ctx, 2)};
    CHECK(expect_error(ctx, cj_concatenate(2, scalars, 0), CJ_ERR_SHAPE, "cj_concatenate: rank-0 arrays cannot be concatenated"));
    CHECK(cj_is_error(cj_concatenate(0, pair, 0)));
    cj_ctx_free(ctx);
}

TEST(shape_concatenate_weak_only_when_all_weak) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t d = 2;
    cj_val w1 = cj_broadcast_to(cj_scalar(ctx, 1.0), 1, &d);
    cj_val w2 = cj_broadcast_to(cj_scalar(ctx, 2.0), 1, &d);
    cj_val pair[2] = {w1, w2};
    cj_val y = cj_concatenate(2, pair, 0);
    CHECK(!cj_is_error(y));
    CHECK(cj_val_weak(y));
    CHECK(cj_val_dtype(y) == CJ_F32);
    cj_ctx_free(ctx);
}

/* These need convert_element_type (the elementwise family) to promote. */
TEST(shape_concatenate_promotes_dtypes) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t d = 2;
    int32_t ints[2] = {1, -2};
    float floats[2] = {0.5f, 1.5f};
    cj_val pair[2] = {cj_array(ctx, CJ_I32, 1, &d, ints), cj_array(ctx, CJ_F32, 1, &d, floats)};
    cj_val y = cj_concatenate(2, pair, 0);
    CHECK_MSG(!cj_is_error(y), "%s", cj_error_message(ctx));
    CHECK(cj_val_dtype(y) == CJ_F32 && !cj_val_weak(y));
    float buf[4];
    CHECK(cj_read(y, buf, sizeof buf) == CJ_OK);
    CHECK(buf[0] == 1.0f && buf[1] == -2.0f && buf[2] == 0.5f && buf[3] == 1.5f);
    /* a weak f32 next to a strong f32 becomes strong */
    cj_val mixed[2] = {cj_broadcast_to(cj_scalar(ctx, 3.0), 1, &d), pair[1]};
    cj_val z = cj_concatenate(2, mixed, 0);
    CHECK(!cj_is_error(z) && !cj_val_weak(z));
    cj_ctx_free(ctx);
}

/* ---- pad ---- */

TEST(shape_pad_matches_reference) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    typedef struct { int rank; int64_t dims[2], lo[2], hi[2], in[2]; int has_in; } pcase;
    static const pcase cases[] = {
        {2, {3, 4}, {1, 0}, {2, 1}, {0, 0}, 0},   {2, {3, 4}, {-1, 2}, {0, -2}, {1, 2}, 1},
        {1, {4}, {2}, {1}, {3}, 1},               {2, {0, 2}, {1, 0}, {1, 1}, {0, 0}, 0},
        {1, {5}, {-2}, {-2}, {1}, 1},             {2, {3, 4}, {0, 0}, {0, 0}, {0, 0}, 1},
        {2, {3, 4}, {-3, 0}, {0, 0}, {0, 0}, 0},  {2, {2, 2}, {-1, -1}, {-1, -1}, {2, 2}, 1},
        {0, {0}, {0}, {0}, {0}, 0},
    };
    for (int t = 0; t < N_DTYPES; t++)
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            const pcase *p = &cases[c];
            host x = host_random(all_dtypes[t], p->rank, p->dims, c + 91);
            cj_val pv = cj_scalar_typed(ctx, 1, all_dtypes[t]);
            unsigned char pad[8];
            CHECK(cj_read(pv, pad, sizeof pad) == CJ_OK);
            const int64_t *in = p->has_in ? p->in : NULL;
            int64_t out[2];
            int64_t *m = map_pad(&x, p->lo, p->hi, in, out);
            cj_val y = cj_pad(host_val(ctx, &x), pv, p->lo, p->hi, in);
            int ok = expect_moved(y, &x, p->rank, out, m, pad, "pad");
            free(m);
            host_free(&x);
            CHECK_MSG(ok, "case %zu", c);
        }
    cj_ctx_free(ctx);
}

TEST(shape_pad_errors) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t d = 3, two = 2;
    cj_val x = cj_zeros(ctx, CJ_F32, 1, &d);
    cj_val zero = cj_scalar_typed(ctx, 0, CJ_F32);
    int64_t lo = -3, hi = -1, in = -1, z = 0;
    CHECK(expect_error(ctx, cj_pad(x, zero, &lo, &hi, NULL), CJ_ERR_SHAPE,
                       "pad: padding (-3, -1, 0) of axis 0 of f32[3] leaves a negative size -1"));
    CHECK(expect_error(ctx, cj_pad(x, zero, &z, &z, &in), CJ_ERR_ARG, "pad: interior padding -1 on axis 0 must be >= 0"));
    CHECK(expect_error(ctx, cj_pad(x, cj_zeros(ctx, CJ_F32, 1, &two), &z, &z, NULL), CJ_ERR_SHAPE,
                       "cj_pad: the padding value must be a scalar, got f32[2]"));
    CHECK(expect_error(ctx, cj_pad(x, zero, NULL, &z, NULL), CJ_ERR_ARG, "cj_pad: lo is NULL"));
    cj_ctx_free(ctx);
}

/* Needs convert_element_type (the elementwise family). */
TEST(shape_pad_converts_the_padding_value) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t d = 2, lo = 1, hi = 1;
    int32_t data[2] = {5, 6};
    cj_val x = cj_array(ctx, CJ_I32, 1, &d, data);
    cj_val y = cj_pad(x, cj_scalar(ctx, 7.9), &lo, &hi, NULL);
    CHECK_MSG(!cj_is_error(y), "%s", cj_error_message(ctx));
    CHECK(cj_val_dtype(y) == CJ_I32 && !cj_val_weak(y));
    int32_t buf[4];
    CHECK(cj_read(y, buf, sizeof buf) == CJ_OK);
    CHECK(buf[0] == 7 && buf[1] == 5 && buf[2] == 6 && buf[3] == 7);
    cj_ctx_free(ctx);
}

/* Needs convert_element_type (the elementwise family). */
TEST(shape_dynamic_update_slice_converts_update) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t d = 4, ud = 2;
    float x[4] = {1, 2, 3, 4};
    int32_t u[2] = {-7, 9};
    cj_val idx = cj_scalar_int(ctx, 1);
    cj_val y = cj_dynamic_update_slice(cj_array(ctx, CJ_F32, 1, &d, x), cj_array(ctx, CJ_I32, 1, &ud, u), &idx);
    CHECK_MSG(!cj_is_error(y), "%s", cj_error_message(ctx));
    CHECK(cj_val_dtype(y) == CJ_F32);
    float buf[4];
    CHECK(cj_read(y, buf, sizeof buf) == CJ_OK);
    CHECK(buf[0] == 1 && buf[1] == -7 && buf[2] == 9 && buf[3] == 4);
    cj_ctx_free(ctx);
}

/* ---- rev ---- */

TEST(shape_rev_matches_reference) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t d[3] = {3, 4, 5};
    typedef struct { int n; int64_t axes[3]; unsigned mask; } vcase;
    static const vcase cases[] = {{1, {0}, 1}, {1, {2}, 4}, {2, {0, 2}, 5}, {1, {-1}, 4}, {-1, {0}, 7}, {2, {-2, 0}, 3}};
    for (int t = 0; t < N_DTYPES; t++)
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            host x = host_random(all_dtypes[t], 3, d, c + 101);
            int64_t *m = map_rev(&x, cases[c].mask);
            cj_val y = cj_rev(host_val(ctx, &x), cases[c].n, cases[c].n < 0 ? NULL : cases[c].axes);
            int ok = expect_moved(y, &x, 3, d, m, NULL, "rev");
            free(m);
            host_free(&x);
            CHECK_MSG(ok, "case %zu", c);
        }
    int64_t ez[2] = {0, 3};
    cj_val e = cj_rev(cj_zeros(ctx, CJ_F32, 2, ez), -1, NULL);
    CHECK(!cj_is_error(e) && cj_val_size(e) == 0);
    cj_val s = cj_scalar(ctx, 1);
    CHECK(cj_rev(s, -1, NULL).slot == s.slot);
    int64_t rep[2] = {0, -3}, far = 3;
    cj_val x = cj_zeros(ctx, CJ_F32, 3, d);
    CHECK(expect_error(ctx, cj_rev(x, 2, rep), CJ_ERR_AXIS, "cj_rev: axis -3 is repeated"));
    CHECK(expect_error(ctx, cj_rev(x, 1, &far), CJ_ERR_AXIS, "cj_rev: axis 3 is out of range for rank 3"));
    cj_ctx_free(ctx);
}

/* ---- iota ---- */

TEST(shape_iota_counts_along_axis) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    static const cj_dtype dts[] = {CJ_I32, CJ_I64, CJ_F32, CJ_F64};
    typedef struct { int rank; int64_t dims[3]; int64_t axis; } icase;
    static const icase cases[] = {
        {1, {5}, 0}, {2, {3, 4}, 0}, {2, {3, 4}, 1}, {2, {3, 4}, -1}, {3, {2, 3, 4}, 1}, {2, {0, 4}, 1}, {3, {3, 70000, 1}, 1},
    };
    for (int t = 0; t < 4; t++)
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            const icase *k = &cases[c];
            cj_val y = cj_iota(ctx, dts[t], k->rank, k->dims, k->axis);
            CHECK_MSG(!cj_is_error(y), "%s", cj_error_message(ctx));
            CHECK(cj_val_dtype(y) == dts[t] && !cj_val_weak(y));
            int64_t n = numel(k->rank, k->dims), axis = k->axis < 0 ? k->axis + k->rank : k->axis, idx[3];
            double *buf = malloc(sizeof(double) * (size_t)(n + 1));
            CHECK(cj_read_as(y, CJ_F64, buf, sizeof(double) * (size_t)n) == CJ_OK);
            int ok = 1;
            for (int64_t f = 0; f < n && ok; f++) {
                unravel(f, k->rank, k->dims, idx);
                ok = buf[f] == (double)idx[axis];
            }
            free(buf);
            CHECK_MSG(ok, "dtype %s case %zu", cj_dtype_name(dts[t]), c);
        }
    cj_ctx_free(ctx);
}

TEST(shape_iota_errors) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t d[2] = {3, 4};
    CHECK(expect_error(ctx, cj_iota(ctx, CJ_BOOL, 2, d, 0), CJ_ERR_DTYPE, "iota: dtype bool is not numeric"));
    CHECK(expect_error(ctx, cj_iota(ctx, CJ_F32, 2, d, 2), CJ_ERR_AXIS, "cj_iota: axis 2 is out of range for rank 2"));
    CHECK(expect_error(ctx, cj_iota(ctx, CJ_F32, 0, NULL, 0), CJ_ERR_AXIS, "rank-0"));
    int64_t neg[2] = {3, -4};
    CHECK(expect_error(ctx, cj_iota(ctx, CJ_F32, 2, neg, 0), CJ_ERR_SHAPE, "negative dimension"));
    cj_ctx_free(ctx);
}

TEST(shape_rank8_moves) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t d[8] = {2, 1, 3, 2, 1, 2, 3, 2}, perm[8] = {7, 0, 6, 1, 5, 2, 4, 3}, out[8];
    for (int t = 0; t < N_DTYPES; t++) {
        host x = host_random(all_dtypes[t], 8, d, 200 + (uint64_t)t);
        cj_val xv = host_val(ctx, &x);
        int64_t *m = map_transpose(&x, perm, out);
        int ok = expect_moved(cj_transpose(xv, perm), &x, 8, out, m, NULL, "rank-8 transpose");
        free(m);
        int64_t lo[8] = {1, 0, 1, 0, 0, 1, 0, 1}, hi[8] = {2, 1, 3, 2, 1, 2, 3, 2}, st[8] = {1, 1, 2, 1, 1, 1, 2, 1};
        m = map_slice(&x, lo, hi, st, out);
        ok = ok && expect_moved(cj_slice(xv, lo, hi, st), &x, 8, out, m, NULL, "rank-8 slice");
        free(m);
        m = map_rev(&x, 0xA5);
        int64_t axes[4] = {0, 2, 5, 7};
        ok = ok && expect_moved(cj_rev(xv, 4, axes), &x, 8, d, m, NULL, "rank-8 rev");
        free(m);
        int64_t small[3] = {3, 1, 2}, bd[3] = {2, 5, 7};
        host y = host_random(all_dtypes[t], 3, small, 300 + (uint64_t)t);
        m = map_broadcast(&y, 8, d, bd);
        ok = ok && expect_moved(cj_broadcast_in_dim(host_val(ctx, &y), 8, d, bd), &y, 8, d, m, NULL, "rank-8 broadcast");
        free(m);
        host_free(&x), host_free(&y);
        CHECK_MSG(ok, "%s", cj_dtype_name(all_dtypes[t]));
    }
    cj_ctx_free(ctx);
}

TEST(shape_operands_from_another_context_are_errors) {
    cj_ctx *ctx = cj_ctx_new(NULL), *other = cj_ctx_new(NULL);
    int64_t d = 3, lo = 1;
    cj_val x = cj_zeros(ctx, CJ_F32, 1, &d), y = cj_zeros(other, CJ_F32, 1, &d);
    cj_val pair[2] = {x, y};
    CHECK(expect_error(ctx, cj_concatenate(2, pair, 0), CJ_ERR_ARG, "cj_concatenate: operand 1 belongs to another context"));
    CHECK(expect_error(ctx, cj_pad(x, cj_scalar_typed(other, 0, CJ_F32), &lo, &lo, NULL), CJ_ERR_ARG,
                       "cj_pad: the padding value belongs to another context"));
    cj_val idx = cj_scalar_int(ctx, 0);
    CHECK(expect_error(ctx, cj_dynamic_update_slice(x, y, &idx), CJ_ERR_ARG,
                       "cj_dynamic_update_slice: the update belongs to another context"));
    cj_val no_ctx = cj_zeros(NULL, CJ_F32, 1, &d);
    CHECK(expect_error(ctx, cj_pad(x, no_ctx, &lo, &lo, NULL), CJ_ERR_ARG, "or is an error value without one"));
    CHECK(cj_error(other) == CJ_OK); /* nothing recorded in the other context */
    cj_ctx_free(other);
    cj_ctx_free(ctx);
}

/* ---- large arrays: the threaded and tiled paths ---- */

TEST(shape_large_arrays_match_reference) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    static const cj_dtype dts[] = {CJ_F32, CJ_F64, CJ_BOOL};
    for (int t = 0; t < 3; t++) {
        cj_dtype dt = dts[t];
        int ok = 1;
        cj_scope_begin(ctx);
        {   /* broadcast a row, a column, a scalar */
            int64_t row = 1000, col[2] = {600, 1}, out[2] = {600, 1000}, b1 = 1, b2[2] = {0, 1}, flat = 1 << 20;
            host r = host_random(dt, 1, &row, 1), c = host_random(dt, 2, col, 2), s = host_random(dt, 0, NULL, 3);
            int64_t *m1 = map_broadcast(&r, 2, out, &b1), *m2 = map_broadcast(&c, 2, out, b2);
            int64_t *m3 = map_broadcast(&s, 1, &flat, NULL);
            ok = ok && expect_moved(cj_broadcast_in_dim(host_val(ctx, &r), 2, out, &b1), &r, 2, out, m1, NULL, "bcast row");
            ok = ok && expect_moved(cj_broadcast_in_dim(host_val(ctx, &c), 2, out, b2), &c, 2, out, m2, NULL, "bcast col");
            ok = ok && expect_moved(cj_broadcast_in_dim(host_val(ctx, &s), 1, &flat, NULL), &s, 1, &flat, m3, NULL, "bcast scalar");
            free(m1), free(m2), free(m3);
            host_free(&r), host_free(&c), host_free(&s);
        }
        {   /* short rows, many of them: the panel path */
            int64_t five = 5, out[2] = {100000, 5}, b1 = 1, thin[2] = {100000, 3}, ax = 1;
            host r = host_random(dt, 1, &five, 4), x = host_random(dt, 2, thin, 5);
            int64_t *m = map_broadcast(&r, 2, out, &b1);
            ok = ok && expect_moved(cj_broadcast_in_dim(host_val(ctx, &r), 2, out, &b1), &r, 2, out, m, NULL, "bcast short rows");
            free(m);
            m = map_rev(&x, 2);
            cj_val xv = host_val(ctx, &x);
            ok = ok && expect_moved(cj_rev(xv, 1, &ax), &x, 2, thin, m, NULL, "rev short rows");
            free(m);
            int64_t lo[2] = {0, 1}, hi[2] = {100000, 3}, sl[2];
            m = map_slice(&x, lo, hi, NULL, sl);
            ok = ok && expect_moved(cj_slice(xv, lo, hi, NULL), &x, 2, sl, m, NULL, "slice short rows");
            free(m);
            host_free(&r), host_free(&x);
        }
        {   /* transposes: square-ish, thin, and rank 3 with an outer axis */
            int64_t d1[2] = {700, 901}, d2[2] = {3, 50001}, d3[3] = {40, 50, 61};
            int64_t p2[2] = {1, 0}, p3[3] = {2, 0, 1}, p4[3] = {1, 2, 0}, out[3];
            const int64_t *dims[4] = {d1, d2, d3, d3}, *perms[4] = {p2, p2, p3, p4};
            int ranks[4] = {2, 2, 3, 3};
            for (int k = 0; k < 4 && ok; k++) {
                host x = host_random(dt, ranks[k], dims[k], 10 + (uint64_t)k);
                int64_t *m = map_transpose(&x, perms[k], out);
                ok = expect_moved(cj_transpose(host_val(ctx, &x), perms[k]), &x, ranks[k], out, m, NULL, "big transpose");
                free(m);
                host_free(&x);
            }
            host y = host_random(dt, 2, d2, 20);
            cj_val back = cj_transpose(cj_transpose(host_val(ctx, &y), NULL), NULL);
            int64_t *id = map_identity(y.n);
            ok = ok && expect_moved(back, &y, 2, d2, id, NULL, "transpose twice");
            free(id);
            host_free(&y);
        }
        {   /* slice with strides, rev, pad with interior, concatenate, reshape, dynamic_slice */
            int64_t d[2] = {513, 1030}, lo[2] = {1, 3}, hi[2] = {512, 1029}, st[2] = {2, 3}, out[2];
            host x = host_random(dt, 2, d, 30);
            cj_val xv = host_val(ctx, &x);
            int64_t *m = map_slice(&x, lo, hi, st, out);
            ok = ok && expect_moved(cj_slice(xv, lo, hi, st), &x, 2, out, m, NULL, "big slice");
            free(m);
            m = map_rev(&x, 3);
            ok = ok && expect_moved(cj_rev(xv, -1, NULL), &x, 2, d, m, NULL, "big rev");
            free(m);
            int64_t plo[2] = {2, -5}, phi[2] = {-3, 7}, pin[2] = {1, 0};
            m = map_pad(&x, plo, phi, pin, out);
            cj_val pv = cj_scalar_typed(ctx, 0, dt);
            unsigned char pad[8];
            cj_read(pv, pad, sizeof pad);
            ok = ok && expect_moved(cj_pad(xv, pv, plo, phi, pin), &x, 2, out, m, pad, "big pad");
            free(m);
            host xs[2] = {x, x};
            host both = host_concat(&x, &x);
            m = map_concat(2, xs, 1, out);
            cj_val pair[2] = {xv, xv};
            ok = ok && expect_moved(cj_concatenate(2, pair, 1), &both, 2, out, m, NULL, "big concatenate");
            free(m);
            host_free(&both);
            int64_t flat = x.n;
            m = map_identity(x.n);
            ok = ok && expect_moved(cj_reshape(xv, 1, &flat), &x, 1, &flat, m, NULL, "big reshape");
            free(m);
            int64_t sizes[2] = {300, 1000}, dlo[2] = {213, 30}, dhi[2] = {513, 1030};
            cj_val idx[2] = {cj_scalar_int(ctx, 400), cj_scalar_int(ctx, 30)};
            m = map_slice(&x, dlo, dhi, NULL, out);
            ok = ok && expect_moved(cj_dynamic_slice(xv, idx, sizes), &x, 2, out, m, NULL, "big dynamic_slice");
            free(m);
            host_free(&x);
        }
        cj_scope_end(ctx, 0, NULL);
        CHECK_MSG(ok, "dtype %s", cj_dtype_name(dt));
    }
    cj_ctx_free(ctx);
}

/* ---- jit and the IR ---- */

static void program_moves(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    cj_val x = in[0], b = in[1]; /* f32[3,4], f32[4] */
    int64_t sh[2] = {3, 4}, bd = 1, r[2] = {3, -1}, lo[2] = {1, 0}, hi[2] = {6, 4}, st[2] = {2, 3};
    cj_val bb = cj_broadcast_in_dim(b, 2, sh, &bd);
    cj_val t = cj_reshape(cj_transpose(x, NULL), 2, r);
    cj_val c = cj_concatenate(2, (cj_val[]){t, bb}, 0);      /* 6×4 */
    cj_val s = cj_slice(c, lo, hi, st);                      /* 3×2 */
    int64_t plo[2] = {1, -1}, phi[2] = {0, 2}, pin[2] = {1, 0};
    cj_val p = cj_pad(s, cj_scalar_typed(ctx, -1, CJ_F32), plo, phi, pin);
    int64_t ax = 0;
    out[0] = cj_rev(cj_expand_dims(p, 0), 1, &ax);
    out[1] = cj_squeeze(cj_expand_dims(cj_iota(ctx, CJ_F32, 2, sh, 1), -1), -1, NULL);
}

static void program_dynamic(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    cj_val x = in[0], u = in[1]; /* f32[6,5], f32[2,2]; in[2], in[3]: i32[] */
    int64_t sizes[2] = {3, 3};
    cj_val idx[2] = {in[2], in[3]};
    cj_val y = cj_dynamic_update_slice(x, u, idx);
    out[0] = cj_dynamic_slice(y, idx, sizes);
}

/* Runs fn eagerly and jitted (twice: trace, then cache hit) on the same
 * inputs and checks the outputs agree bytewise. */
static int jit_equals_eager(cj_ctx *ctx, cj_fn fn, int n_in, const cj_val *in, int n_out) {
    cj_func *f = cj_func_new(ctx, "moves", fn, n_in, n_out, NULL);
    cj_func *jf = cj_jit(f, NULL);
    cj_val eager[4], jitted[4], again[4];
    if (cj_call(f, in, eager) != CJ_OK || cj_call(jf, in, jitted) != CJ_OK || cj_call(jf, in, again) != CJ_OK) {
        th_fail(__FILE__, __LINE__, "call failed: %s", cj_error_message(ctx));
        return 0;
    }
    for (int i = 0; i < n_out; i++) {
        char a[64], b[64];
        cj_val_type_str(eager[i], a, sizeof a);
        cj_val_type_str(jitted[i], b, sizeof b);
        if (strcmp(a, b) != 0) {
            th_fail(__FILE__, __LINE__, "output %d: eager %s, jit %s", i, a, b);
            return 0;
        }
        size_t bytes = (size_t)cj_val_size(eager[i]) * cj_dtype_size(cj_val_dtype(eager[i]));
        unsigned char *p = malloc(bytes + 1), *q = malloc(bytes + 1), *r = malloc(bytes + 1);
        int ok = cj_read(eager[i], p, bytes) == CJ_OK && cj_read(jitted[i], q, bytes) == CJ_OK &&
                 cj_read(again[i], r, bytes) == CJ_OK && memcmp(p, q, bytes) == 0 && memcmp(p, r, bytes) == 0;
        free(p), free(q), free(r);
        if (!ok) {
            th_fail(__FILE__, __LINE__, "output %d: jit differs from eager", i);
            return 0;
        }
    }
    cj_jit_stats st;
    cj_jit_stats_get(jf, &st);
    if (st.traces != 1 || st.hits != 1) {
        th_fail(__FILE__, __LINE__, "traces %llu hits %llu", (unsigned long long)st.traces, (unsigned long long)st.hits);
        return 0;
    }
    return 1;
}

TEST(shape_jit_equals_eager) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t xd[2] = {3, 4}, bd = 4;
    host x = host_random(CJ_F32, 2, xd, 1), b = host_random(CJ_F32, 1, &bd, 2);
    cj_val in[2] = {host_val(ctx, &x), host_val(ctx, &b)};
    CHECK(jit_equals_eager(ctx, program_moves, 2, in, 2));
    host_free(&x), host_free(&b);

    int64_t d6[2] = {6, 5}, d2[2] = {2, 2};
    host y = host_random(CJ_F32, 2, d6, 3), u = host_random(CJ_F32, 2, d2, 4);
    for (int k = 0; k < 3; k++) {
        int64_t starts[3][2] = {{1, 2}, {9, -4}, {4, 4}};
        cj_val din[4] = {host_val(ctx, &y), host_val(ctx, &u), cj_scalar_typed(ctx, (double)starts[k][0], CJ_I32),
                         cj_scalar_typed(ctx, (double)starts[k][1], CJ_I32)};
        CHECK(jit_equals_eager(ctx, program_dynamic, 4, din, 1));
    }
    host_free(&y), host_free(&u);
    cj_ctx_free(ctx);
}

static void program_golden(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    int64_t sh[2] = {4, 3}, bd = 1, r[2] = {3, 4};
    out[0] = cj_transpose(cj_reshape(cj_broadcast_in_dim(in[0], 2, sh, &bd), 2, r), NULL);
}

TEST(shape_make_jaxpr_text) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *f = cj_func_new(ctx, "golden", program_golden, 1, 1, NULL);
    int64_t d = 3;
    cj_spec spec = cj_spec_make(CJ_F32, 1, &d);
    char *s = cj_make_jaxpr(f, 1, &spec);
    CHECK_MSG(s, "%s", cj_error_message(ctx));
    CHECK_STR_CONTAINS(s, "{ lambda ; a:f32[3]. let\n");
    CHECK_STR_CONTAINS(s, "    b:f32[4,3] = broadcast_in_dim[shape=(4, 3) broadcast_dimensions=(1,)] a\n");
    CHECK_STR_CONTAINS(s, "    c:f32[3,4] = reshape[new_sizes=(3, 4)] b\n");
    CHECK_STR_CONTAINS(s, "    d:f32[4,3] = transpose[permutation=(1, 0)] c\n");
    CHECK_STR_CONTAINS(s, "  in (d,) }");
    cj_string_free(ctx, s);

    cj_func *g = cj_func_new(ctx, "moves", program_moves, 2, 2, NULL);
    int64_t xd[2] = {3, 4}, bd = 4;
    cj_spec specs[2] = {cj_spec_make(CJ_F32, 2, xd), cj_spec_make(CJ_F32, 1, &bd)};
    s = cj_make_jaxpr(g, 2, specs);
    CHECK_MSG(s, "%s", cj_error_message(ctx));
    CHECK_STR_CONTAINS(s, "concatenate[dimension=0]");
    CHECK_STR_CONTAINS(s, "slice[start_indices=(1, 0) limit_indices=(6, 4) strides=(2, 3)]");
    CHECK_STR_CONTAINS(s, "pad[padding_config=((1, 0, 1), (-1, 2, 0))]");
    CHECK_STR_CONTAINS(s, " -1:f32[]");
    CHECK_STR_CONTAINS(s, "expand_dims[dimensions=(0,)]");
    CHECK_STR_CONTAINS(s, "rev[dimensions=(0,)]");
    CHECK_STR_CONTAINS(s, "iota[dtype=f32 shape=(3, 4) dimension=1]");
    CHECK_STR_CONTAINS(s, "expand_dims[dimensions=(2,)]");
    CHECK_STR_CONTAINS(s, "squeeze[dimensions=(2,)]");
    cj_string_free(ctx, s);

    cj_func *h = cj_func_new(ctx, "dynamic", program_dynamic, 4, 1, NULL);
    int64_t d6[2] = {6, 5}, d2[2] = {2, 2};
    cj_spec dspecs[4] = {cj_spec_make(CJ_F32, 2, d6), cj_spec_make(CJ_F32, 2, d2), cj_spec_make(CJ_I32, 0, NULL),
                         cj_spec_make(CJ_I32, 0, NULL)};
    s = cj_make_jaxpr(h, 4, dspecs);
    CHECK_MSG(s, "%s", cj_error_message(ctx));
    /* negative starts count from the end first, as jax traces them:
     * lt, add the axis length, select_n */
    CHECK_STR_CONTAINS(s, "e:bool[] = lt c 0:i32[]\n    f:i32[] = add c 6:i32[]\n    g:i32[] = select_n e c f\n");
    CHECK_STR_CONTAINS(s, "k:f32[6,5] = dynamic_update_slice a b g j\n");
    CHECK_STR_CONTAINS(s, "r:f32[3,3] = dynamic_slice[slice_sizes=(3, 3)] k n q\n");
    cj_string_free(ctx, s);
    cj_ctx_free(ctx);
}

static void program_slice(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    int64_t lo = 1, hi = 4;
    out[0] = cj_slice(in[0], &lo, &hi, NULL);
}

TEST(shape_slice_prints_strides_none) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *f = cj_func_new(ctx, "slice", program_slice, 1, 1, NULL);
    int64_t d = 5;
    cj_spec spec = cj_spec_make(CJ_I64, 1, &d);
    char *s = cj_make_jaxpr(f, 1, &spec);
    CHECK_MSG(s, "%s", cj_error_message(ctx));
    CHECK_STR_CONTAINS(s, "b:i64[3] = slice[start_indices=(1,) limit_indices=(4,) strides=None] a\n");
    cj_string_free(ctx, s);
    cj_ctx_free(ctx);
}

/* ---- memory ---- */

/* A chain of shape operations; its result as f32[...] in out (n values). */
static cj_status run_chain(cj_ctx *ctx, float *out, int64_t n, int64_t *got) {
    int64_t d[2] = {30, 40}, perm[2] = {1, 0}, lo[2] = {1, 2}, hi[2] = {38, 29}, r = -1, ax = 1;
    cj_val x = cj_iota(ctx, CJ_F32, 2, d, 1);
    cj_val y = cj_transpose(x, perm);
    cj_val z = cj_slice(y, lo, hi, NULL);
    cj_val p = cj_pad(z, cj_scalar_typed(ctx, -1, CJ_F32), lo, lo, NULL);
    cj_val c = cj_concatenate(2, (cj_val[]){p, p}, 1);
    cj_val w = cj_reshape(cj_rev(c, 1, &ax), 1, &r);
    *got = cj_val_size(w);
    if (cj_error(ctx)) return cj_error(ctx);
    if (*got > n) return CJ_ERR_ARG;
    return cj_read(w, out, sizeof(float) * (size_t)*got);
}

TEST(shape_ops_free_their_values_with_the_scope) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_mem_stats before, after;
    cj_mem_stats_get(ctx, &before);
    cj_scope_begin(ctx);
    float buf[4096];
    int64_t n;
    CHECK(run_chain(ctx, buf, 4096, &n) == CJ_OK);
    cj_scope_end(ctx, 0, NULL);
    cj_mem_stats_get(ctx, &after);
    CHECK_EQ_INT(after.bytes_in_arrays, before.bytes_in_arrays);
    cj_ctx_free(ctx);
}

TEST(shape_ops_survive_allocation_failure) {
    /* fail the N-th allocation, for N from 1 until a run needs no failure:
     * every run ends in a clean out-of-memory error or the right answer,
     * and frees everything */
    static float want[4096], got[4096];
    int64_t n_want, n_got;
    cj_ctx *ref = cj_ctx_new(NULL);
    CHECK(run_chain(ref, want, 4096, &n_want) == CJ_OK);
    cj_ctx_free(ref);
    int finished = 0;
    long long n = 1;
    for (; n < 5000 && !finished; n++) {
        tu_alloc st = {0};
        st.fail_at = n;
        cj_allocator a = tu_allocator(&st);
        cj_ctx *ctx = cj_ctx_new(&a);
        if (ctx) {
            cj_status s = run_chain(ctx, got, 4096, &n_got);
            CHECK_MSG(s == CJ_OK || s == CJ_ERR_OOM, "allocation %lld: %s %s", n, cj_status_name(s),
                      cj_error_message(ctx));
            if (s == CJ_OK) {
                CHECK_EQ_INT(n_got, n_want);
                CHECK(memcmp(got, want, sizeof(float) * (size_t)n_want) == 0);
            }
            cj_ctx_free(ctx);
        }
        CHECK_EQ_INT(st.live, 0);
        finished = !st.failed;
    }
    CHECK(finished);
    CHECK_MSG(n > 20, "only %lld allocations: the chain did not run", n);
}

/* ---- the central check of result types (issue 13) ---- */

static void f_gram_exp(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_exp(cj_matmul(cj_transpose(in[0], NULL), in[0]));
}

static void f_sum_of_huge_zeros(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    int64_t d[3] = {0, (int64_t)1 << 32, (int64_t)1 << 32}, ax = 0;
    out[0] = cj_add(in[0], cj_sum(cj_broadcast_to(cj_scalar(ctx, 0), 3, d), 1, &ax, 0));
}

/* f32[0,2^31] holds nothing, but transpose(x) @ x is f32[2^31,2^31]: the
 * result type is refused before anything is allocated, eagerly, under jit
 * and from a loaded .npy (it overflowed a 64-byte buffer before). */
TEST(shape_result_too_large_is_refused_before_allocation) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t d[2] = {0, (int64_t)1 << 31};
    cj_val x = cj_zeros(ctx, CJ_F32, 2, d);
    CHECK(cj_error(ctx) == CJ_OK && cj_val_size(x) == 0);
    const char *want = "dot_general: the result f32[2147483648,2147483648] of f32[2147483648,0], f32[0,2147483648] is too large";
    CHECK(expect_error(ctx, cj_exp(cj_matmul(cj_transpose(x, NULL), x)), CJ_ERR_SHAPE, want));
    cj_func *jf = cj_jit(cj_func_new(ctx, "gram", f_gram_exp, 1, 1, NULL), NULL);
    cj_val y;
    CHECK(cj_call(jf, &x, &y) == CJ_ERR_SHAPE);
    CHECK(expect_error(ctx, y, CJ_ERR_SHAPE, want));
    char path[] = "/tmp/cjax_huge_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    CHECK(cj_save_npy(x, path) == CJ_OK);
    cj_val loaded = cj_load_npy(ctx, path);
    unlink(path);
    CHECK(cj_error(ctx) == CJ_OK && cj_val_dim(loaded, 1) == d[1]);
    CHECK(expect_error(ctx, cj_matmul(cj_transpose(loaded, NULL), loaded), CJ_ERR_SHAPE, want));
    cj_ctx_free(ctx);
}

/* A zero size does not hide the others: zeros(0, 2^32, 2^32) would sum
 * over axis 0 to f32[2^32,2^32] (signed overflow, then a segfault). */
TEST(shape_zero_dimension_does_not_hide_a_huge_shape) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t d[3] = {0, (int64_t)1 << 32, (int64_t)1 << 32};
    CHECK(expect_error(ctx, cj_zeros(ctx, CJ_F32, 3, d), CJ_ERR_SHAPE, "cj_zeros: shape (0, 4294967296, 4294967296) is too large"));
    CHECK(expect_error(ctx, cj_array(ctx, CJ_F32, 3, d, NULL), CJ_ERR_SHAPE, "too large"));
    CHECK(expect_error(ctx, cj_iota(ctx, CJ_I32, 3, d, 0), CJ_ERR_SHAPE, "too large"));
    CHECK(expect_error(ctx, cj_broadcast_to(cj_scalar(ctx, 1), 3, d), CJ_ERR_SHAPE, "broadcast_in_dim"));
    /* staged: the broadcast's result type is checked the same way */
    cj_func *jf = cj_jit(cj_func_new(ctx, "f", f_sum_of_huge_zeros, 1, 1, NULL), NULL);
    cj_val one = cj_scalar(ctx, 1), y;
    CHECK(cj_call(jf, &one, &y) == CJ_ERR_SHAPE);
    CHECK(expect_error(ctx, y, CJ_ERR_SHAPE, "broadcast_in_dim: shape (0, 4294967296, 4294967296) is too large"));
    /* specs pass the same check */
    cj_spec s = cj_spec_make(CJ_F32, 3, d);
    CHECK(cj_make_jaxpr(jf, 1, &s) == NULL);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_make_jaxpr(jit(f)): spec 0 of shape (0, 4294967296, 4294967296) is too large");
    cj_error_clear(ctx);
    /* a shape within the bound is made, and reduces to an empty one */
    int64_t ok[3] = {0, (int64_t)1 << 28, (int64_t)1 << 30};
    cj_val z = cj_zeros(ctx, CJ_F32, 3, ok);
    CHECK(cj_error(ctx) == CJ_OK && cj_val_size(z) == 0);
    int64_t ax = 1;
    cj_val r = cj_sum(z, 1, &ax, 0);
    CHECK(cj_error(ctx) == CJ_OK && cj_val_size(r) == 0 && cj_val_dim(r, 1) == ok[2]);
    cj_ctx_free(ctx);
}

static void f_huge_stride(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    int64_t lo[2] = {1, 0}, hi[2] = {5, 4}, st[2] = {INT64_MAX, 1};
    out[0] = cj_exp(cj_slice(in[0], lo, hi, st)); /* fused: the slice is an index map */
}

/* A stride past the limit picks one element; stride * row length used to
 * overflow (undefined behaviour, caught by UBSan in `make sanitize`), in
 * the eager kernel and in the compiled index map alike. */
TEST(shape_slice_huge_stride_picks_one_element) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t d[2] = {5, 4};
    float v[20];
    for (int i = 0; i < 20; i++) v[i] = (float)i;
    cj_val x = tu_f32(ctx, 2, d, v);
    int64_t lo[2] = {1, 0}, hi[2] = {5, 4}, st[2] = {INT64_MAX, 1};
    cj_val s = cj_slice(x, lo, hi, st);
    float out[4];
    CHECK(cj_read(s, out, sizeof out) == CJ_OK);
    CHECK_EQ_INT(cj_val_dim(s, 0), 1);
    for (int i = 0; i < 4; i++) CHECK_NEAR(out[i], 4 + i, 0, 0);
    cj_jit_opts o = {0};
    o.backend = CJ_BACKEND_INTERP;
    cj_func *jf = cj_jit(cj_func_new(ctx, "huge_stride", f_huge_stride, 1, 1, NULL), &o);
    cj_val y;
    CHECK(cj_call(jf, &x, &y) == CJ_OK);
    CHECK(cj_read(y, out, sizeof out) == CJ_OK);
    for (int i = 0; i < 4; i++) CHECK_NEAR(out[i], expf(4.0f + i), 1e-6, 0);
    cj_ctx_free(ctx);
}
