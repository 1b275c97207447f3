/* test_create.c — making arrays and reading them back (src/api/create.c,
 * src/api/read.c): cj_array, the scalars, cj_zeros/ones/full (a broadcast
 * scalar), cj_iota, cj_arange, cj_linspace, cj_eye, cj_read/cj_read_as,
 * cj_item and cj_print.
 *
 * Expected values follow NumPy's definitions, computed here by plain loops
 * or closed forms (arange: start + i·step over ceil((stop-start)/step)
 * points; linspace: start + i·(stop-start)/(num-1) with the endpoint
 * exact; eye: ones where column - row == k). cj_arange with a step other
 * than 1, cj_linspace and cj_eye are built from elementwise operations too,
 * so those tests also depend on the elementwise family. */
#include <stdlib.h>

#include "harness.h"
#include "test_util.h"

static const cj_dtype all_dtypes[] = {CJ_BOOL, CJ_I32, CJ_I64, CJ_F32, CJ_F64};
#define N_DTYPES 5

/* Reads v as doubles into a fresh buffer (free it); NULL after th_fail. */
static double *read_f64(cj_val v, int64_t *n) {
    *n = cj_val_size(v);
    if (cj_is_error(v) || *n < 0) {
        th_fail(__FILE__, __LINE__, "error value: %s", cj_error_message(v.ctx));
        return NULL;
    }
    double *buf = malloc(sizeof(double) * (size_t)(*n + 1));
    if (cj_read_as(v, CJ_F64, buf, sizeof(double) * (size_t)*n) != CJ_OK) {
        th_fail(__FILE__, __LINE__, "cj_read_as: %s", cj_error_message(v.ctx));
        free(buf);
        return NULL;
    }
    return buf;
}

/* Has v this dtype and shape? */
static int has_type(cj_val v, cj_dtype dt, int rank, const int64_t *dims) {
    int64_t got[CJ_MAX_RANK];
    if (cj_val_shape(v, got) != rank || cj_val_dtype(v) != dt) return 0;
    for (int i = 0; i < rank; i++)
        if (got[i] != dims[i]) return 0;
    return 1;
}

/* NumPy's cast of a double to dtype, read back as double. */
static double cast_to(double x, cj_dtype dt) {
    switch (dt) {
    case CJ_BOOL: return x != 0;
    case CJ_I32: return (double)(int32_t)x;
    case CJ_I64: return (double)(int64_t)x;
    case CJ_F32: return (double)(float)x;
    default: return x;
    }
}

/* ---- constant arrays ---- */

TEST(create_zeros_ones_full_every_dtype_and_shape) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    typedef struct { int rank; int64_t dims[3]; } shape;
    static const shape shapes[] = {{0, {0}}, {1, {3}}, {2, {2, 3}}, {2, {0, 4}}, {3, {2, 1, 3}}};
    static const double fills[] = {0.0, 1.0, 2.5, -3.7};
    for (int t = 0; t < N_DTYPES; t++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            for (int f = 0; f < 4; f++) {
                cj_dtype dt = all_dtypes[t];
                const shape *sh = &shapes[s];
                cj_val v = f == 0   ? cj_zeros(ctx, dt, sh->rank, sh->dims)
                           : f == 1 ? cj_ones(ctx, dt, sh->rank, sh->dims)
                                    : cj_full(ctx, fills[f], dt, sh->rank, sh->dims);
                CHECK_MSG(has_type(v, dt, sh->rank, sh->dims), "%s shape %zu fill %d: %s", cj_dtype_name(dt), s, f,
                          cj_error_message(ctx));
                CHECK(!cj_val_weak(v));
                int64_t n;
                double *buf = read_f64(v, &n);
                CHECK(buf);
                int ok = 1;
                for (int64_t i = 0; i < n; i++) ok &= buf[i] == cast_to(fills[f], dt);
                free(buf);
                CHECK_MSG(ok, "%s shape %zu fill %g", cj_dtype_name(dt), s, fills[f]);
            }
    cj_ctx_free(ctx);
}

TEST(create_full_large_array) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t d[2] = {1024, 1031};
    cj_val v = cj_full(ctx, 7.25, CJ_F64, 2, d);
    int64_t n;
    double *buf = read_f64(v, &n);
    CHECK(buf);
    CHECK_EQ_INT(n, 1024 * 1031);
    int ok = 1;
    for (int64_t i = 0; i < n; i++) ok &= buf[i] == 7.25;
    free(buf);
    CHECK(ok);
    cj_ctx_free(ctx);
}

TEST(create_zeros_like_and_ones_like) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t d[2] = {2, 5};
    cj_val x = cj_full(ctx, 4, CJ_I64, 2, d);
    cj_val z = cj_zeros_like(x), o = cj_ones_like(x);
    CHECK(has_type(z, CJ_I64, 2, d) && has_type(o, CJ_I64, 2, d));
    int64_t zb[10], ob[10];
    CHECK(cj_read(z, zb, sizeof zb) == CJ_OK && cj_read(o, ob, sizeof ob) == CJ_OK);
    for (int i = 0; i < 10; i++) CHECK(zb[i] == 0 && ob[i] == 1);
    cj_ctx_free(ctx);
}

TEST(create_shape_errors) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t neg[2] = {2, -1};
    CHECK(cj_is_error(cj_zeros(ctx, CJ_F32, 2, neg)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_zeros: negative dimension in shape (2, -1)");
    cj_error_clear(ctx);
    CHECK(cj_is_error(cj_zeros(ctx, CJ_F32, 9, neg)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "rank 9 is outside 0..8");
    cj_error_clear(ctx);
    CHECK(cj_is_error(cj_zeros(ctx, (cj_dtype)17, 1, neg)));
    CHECK(cj_error(ctx) == CJ_ERR_DTYPE);
    cj_error_clear(ctx);
    /* no context: an error value, no crash */
    cj_val e = cj_zeros(NULL, CJ_F32, 0, NULL);
    CHECK(cj_is_error(e) && e.ctx == NULL);
    cj_ctx_free(ctx);
}

/* ---- from C buffers and back ---- */

TEST(create_array_round_trips_every_dtype) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t d[2] = {2, 3};
    uint8_t b[6] = {1, 0, 1, 1, 0, 0};
    int32_t i32[6] = {INT32_MIN, -1, 0, 1, 7, INT32_MAX};
    int64_t i64[6] = {INT64_MIN, -1, 0, (int64_t)1 << 60, 12345678901234567, INT64_MAX};
    float f32[6] = {-0.0f, 1e-38f, 3.5f, -2.25f, 1e30f, 0.1f};
    double f64[6] = {-0.0, 1e-300, 3.5, -2.25, 1e300, 0.1};
    const void *src[N_DTYPES] = {b, i32, i64, f32, f64};
    for (int t = 0; t < N_DTYPES; t++) {
        cj_val v = cj_array(ctx, all_dtypes[t], 2, d, src[t]);
        CHECK(has_type(v, all_dtypes[t], 2, d) && !cj_val_weak(v));
        unsigned char buf[48];
        size_t bytes = 6 * cj_dtype_size(all_dtypes[t]);
        CHECK(cj_read(v, buf, bytes) == CJ_OK);
        CHECK_MSG(memcmp(buf, src[t], bytes) == 0, "%s", cj_dtype_name(all_dtypes[t]));
    }
    /* the copy is independent of the caller's buffer */
    float mine[2] = {1, 2};
    int64_t two = 2;
    cj_val v = cj_array(ctx, CJ_F32, 1, &two, mine);
    mine[0] = 99;
    float back[2];
    CHECK(cj_read(v, back, sizeof back) == CJ_OK && back[0] == 1);
    /* zero-size arrays need no data */
    int64_t z[2] = {0, 3};
    CHECK(!cj_is_error(cj_array(ctx, CJ_F32, 2, z, NULL)));
    cj_ctx_free(ctx);
}

TEST(create_read_as_converts_like_numpy) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t d = 5;
    float f[5] = {-2.7f, -0.5f, 0.0f, 0.5f, 2.7f};
    cj_val v = cj_array(ctx, CJ_F32, 1, &d, f);
    int32_t i[5];
    CHECK(cj_read_as(v, CJ_I32, i, sizeof i) == CJ_OK);
    for (int k = 0; k < 5; k++) CHECK_EQ_INT(i[k], (int32_t)f[k]); /* toward zero */
    uint8_t b[5];
    CHECK(cj_read_as(v, CJ_BOOL, b, sizeof b) == CJ_OK);
    for (int k = 0; k < 5; k++) CHECK_EQ_INT(b[k], f[k] != 0);
    double g[5];
    CHECK(cj_read_as(v, CJ_F64, g, sizeof g) == CJ_OK);
    for (int k = 0; k < 5; k++) CHECK(g[k] == (double)f[k]);
    cj_ctx_free(ctx);
}

TEST(create_array_and_read_errors) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t d = 3;
    float f[3] = {1, 2, 3};
    CHECK(cj_is_error(cj_array(ctx, CJ_F32, 1, &d, NULL)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_array: data is NULL");
    cj_error_clear(ctx);
    int64_t neg[2] = {2, -1};
    CHECK(cj_is_error(cj_array(ctx, CJ_F32, 2, neg, f)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_array: negative dimension in shape (2, -1)");
    cj_error_clear(ctx);
    cj_val v = cj_array(ctx, CJ_F32, 1, &d, f);
    float small[2];
    CHECK(cj_read(v, small, sizeof small) == CJ_ERR_ARG);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_read: buffer of 8 bytes is too small for f32[3] as f32 (12 bytes)");
    cj_error_clear(ctx);
    double x;
    CHECK(cj_item(v, &x) == CJ_ERR_SHAPE);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_item: needs an array of one element, got f32[3]");
    cj_error_clear(ctx);
    CHECK(isnan(cj_item_or_nan(v)));
    CHECK(cj_error(ctx) == CJ_ERR_SHAPE);
    cj_error_clear(ctx);
    cj_ctx_free(ctx);
}

/* ---- scalars and items ---- */

TEST(create_scalars_and_items) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val w = cj_scalar(ctx, 2.5);
    CHECK(cj_val_dtype(w) == CJ_F32 && cj_val_weak(w) && cj_val_rank(w) == 0);
    double x;
    CHECK(cj_item(w, &x) == CJ_OK && x == 2.5);
    cj_val wi = cj_scalar_int(ctx, -7);
    CHECK(cj_val_dtype(wi) == CJ_I32 && cj_val_weak(wi));
    int64_t k;
    CHECK(cj_item_int(wi, &k) == CJ_OK && k == -7);
    cj_val s = cj_scalar_typed(ctx, 3, CJ_I64);
    CHECK(cj_val_dtype(s) == CJ_I64 && !cj_val_weak(s));
    CHECK(cj_item_int(s, &k) == CJ_OK && k == 3);
    cj_val b = cj_scalar_typed(ctx, 0.25, CJ_BOOL);
    CHECK(cj_item(b, &x) == CJ_OK && x == 1.0);
    cj_val t = cj_scalar_typed(ctx, -1.9, CJ_I32);
    CHECK(cj_item_int(t, &k) == CJ_OK && k == -1);
    CHECK(cj_item_or_nan(cj_scalar_typed(ctx, 0.1, CJ_F64)) == 0.1);
    CHECK(cj_item_or_nan(cj_scalar_typed(ctx, 0.1, CJ_F32)) == (double)0.1f);
    /* a size-1 array of any rank has an item */
    int64_t ones[3] = {1, 1, 1};
    CHECK(cj_item(cj_full(ctx, 9, CJ_F32, 3, ones), &x) == CJ_OK && x == 9);
    CHECK(cj_is_error(cj_scalar_typed(ctx, 1, (cj_dtype)-1)));
    CHECK(cj_error(ctx) == CJ_ERR_DTYPE);
    cj_error_clear(ctx);
    cj_ctx_free(ctx);
}

/* ---- ranges ---- */

TEST(create_iota_values) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t d[2] = {3, 4};
    cj_val r = cj_iota(ctx, CJ_I32, 2, d, 0), c = cj_iota(ctx, CJ_F64, 2, d, -1);
    int32_t rb[12];
    double cb[12];
    CHECK(cj_read(r, rb, sizeof rb) == CJ_OK && cj_read(c, cb, sizeof cb) == CJ_OK);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) CHECK(rb[i * 4 + j] == i && cb[i * 4 + j] == j);
    cj_ctx_free(ctx);
}

/* Checks arange(start, stop, step) against NumPy's definition. */
static int arange_matches(cj_ctx *ctx, double start, double stop, double step, cj_dtype dt, double tol) {
    double len = ceil((stop - start) / step);
    int64_t n_want = len > 0 ? (int64_t)len : 0, n;
    cj_val v = cj_arange(ctx, start, stop, step, dt);
    if (!has_type(v, dt, 1, &n_want)) {
        char t[64];
        th_fail(__FILE__, __LINE__, "arange(%g, %g, %g): got %s, want %lld elements: %s", start, stop, step,
                cj_val_type_str(v, t, sizeof t), (long long)n_want, cj_error_message(ctx));
        return 0;
    }
    double *buf = read_f64(v, &n);
    if (!buf) return 0;
    int ok = 1;
    for (int64_t i = 0; i < n && ok; i++) {
        double want = cast_to(start + (double)i * step, dt);
        ok = th_close(buf[i], want, tol, tol); /* absolute too: values cross zero */
        if (!ok)
            th_fail(__FILE__, __LINE__, "arange(%g, %g, %g)[%lld] = %.17g, want %.17g", start, stop, step, (long long)i,
                    buf[i], want);
    }
    free(buf);
    return ok;
}

TEST(create_arange_like_numpy) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    CHECK(arange_matches(ctx, 0, 5, 1, CJ_I32, 0)); /* the pure iota path */
    CHECK(arange_matches(ctx, 0, 1, 0.25, CJ_F32, 0));
    CHECK(arange_matches(ctx, 2, 11, 3, CJ_I64, 0));
    CHECK(arange_matches(ctx, 5, 0, -1.5, CJ_F64, 0));
    CHECK(arange_matches(ctx, 3, 3, 1, CJ_F32, 0));
    CHECK(arange_matches(ctx, 3, 1, 1, CJ_I32, 0));
    CHECK(arange_matches(ctx, 1, 2, 0.1, CJ_F64, 1e-15));
    CHECK(arange_matches(ctx, -1, 1, 0.1, CJ_F32, 1e-6));
    CHECK(arange_matches(ctx, 0, 100000, 1, CJ_F32, 0));
    cj_val e = cj_arange(ctx, 0, 1, 0, CJ_F32);
    CHECK(cj_is_error(e) && cj_error(ctx) == CJ_ERR_ARG);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_arange: step must be nonzero");
    cj_error_clear(ctx);
    cj_ctx_free(ctx);
}

TEST(create_linspace_endpoint_exact) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    typedef struct { double start, stop; int64_t num; cj_dtype dt; double tol; } lcase;
    static const lcase cases[] = {
        {0, 1, 5, CJ_F32, 0},   {0, 1, 7, CJ_F64, 1e-15}, {2, 3, 1, CJ_F64, 0},  {0, 1, 0, CJ_F32, 0},
        {1, 0, 3, CJ_F32, 0},   {0, 1, 10, CJ_F32, 1e-6}, {-3, 7.5, 101, CJ_F64, 1e-15}, {0, 10, 5, CJ_I32, 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const lcase *k = &cases[c];
        cj_val v = cj_linspace(ctx, k->start, k->stop, k->num, k->dt);
        CHECK_MSG(has_type(v, k->dt, 1, &k->num), "case %zu: %s", c, cj_error_message(ctx));
        int64_t n;
        double *buf = read_f64(v, &n);
        CHECK(buf);
        int ok = 1;
        for (int64_t i = 0; i < n; i++) {
            double t = k->num > 1 ? (double)i / (double)(k->num - 1) : 0;
            double want = cast_to(k->start + t * (k->stop - k->start), k->dt);
            if (i == k->num - 1 && k->num > 1) ok &= buf[i] == cast_to(k->stop, k->dt); /* exact */
            else ok &= th_close(buf[i], want, k->tol, k->tol);
        }
        free(buf);
        CHECK_MSG(ok, "case %zu", c);
    }
    CHECK(cj_is_error(cj_linspace(ctx, 0, 1, -1, CJ_F32)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_linspace: num must be >= 0, got -1");
    cj_error_clear(ctx);
    cj_ctx_free(ctx);
}

TEST(create_eye_with_offsets) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    typedef struct { int64_t n, m, k; cj_dtype dt; } ecase;
    static const ecase cases[] = {
        {3, -1, 0, CJ_F32}, {3, 4, 1, CJ_I32}, {4, 3, -1, CJ_F64}, {2, 2, 5, CJ_F32},
        {3, 3, 0, CJ_BOOL}, {0, 0, 0, CJ_F32}, {5, 2, -4, CJ_I64},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const ecase *e = &cases[c];
        int64_t m = e->m < 0 ? e->n : e->m, d[2] = {e->n, m};
        cj_val v = cj_eye(ctx, e->n, e->m, e->k, e->dt);
        CHECK_MSG(has_type(v, e->dt, 2, d), "case %zu: %s", c, cj_error_message(ctx));
        int64_t n;
        double *buf = read_f64(v, &n);
        CHECK(buf);
        int ok = 1;
        for (int64_t i = 0; i < e->n; i++)
            for (int64_t j = 0; j < m; j++) ok &= buf[i * m + j] == (j - i == e->k ? 1.0 : 0.0);
        free(buf);
        CHECK_MSG(ok, "case %zu", c);
    }
    cj_ctx_free(ctx);
}

/* ---- printing ---- */

TEST(create_print_numpy_style) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    FILE *f = tmpfile();
    CHECK(f);
    int64_t d[2] = {2, 2}, three = 3;
    float v[4] = {1, 2, 3, 4.5f};
    uint8_t b[3] = {1, 0, 1};
    cj_print(cj_array(ctx, CJ_F32, 2, d, v), f);
    cj_print(cj_array(ctx, CJ_BOOL, 1, &three, b), f);
    cj_print(cj_scalar_int(ctx, -4), f);
    rewind(f);
    char text[256] = {0};
    size_t got = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    CHECK(got > 0);
    CHECK_STR_CONTAINS(text, "f32[2,2] [[1, 2], [3, 4.5]]\n");
    CHECK_STR_CONTAINS(text, "bool[3] [True, False, True]\n");
    CHECK_STR_CONTAINS(text, "i32[] -4\n");
    cj_ctx_free(ctx);
}

/* ---- inside traced functions ---- */

static void reads_its_input(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    float buf[3];
    cj_read(in[0], buf, sizeof buf);
    out[0] = in[0];
}

TEST(create_read_of_traced_value_is_concretization_error) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *jf = cj_jit(cj_func_new(ctx, "reads", reads_its_input, 1, 1, NULL), NULL);
    int64_t d = 3;
    cj_val x = cj_zeros(ctx, CJ_F32, 1, &d), y;
    CHECK(cj_call(jf, &x, &y) == CJ_ERR_CONCRETIZATION);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_read: the value is traced (an abstract f32[3]");
    cj_error_clear(ctx);
    cj_ctx_free(ctx);
}

static void makes_constants(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    int64_t d = 3;
    cj_val parts[3] = {in[0], cj_zeros(ctx, CJ_F32, 1, &d), cj_astype(cj_iota(ctx, CJ_I32, 1, &d, 0), CJ_F32)};
    out[0] = cj_concatenate(3, parts, 0);
}

TEST(create_constants_are_staged_as_primitives) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *f = cj_func_new(ctx, "consts", makes_constants, 1, 1, NULL);
    int64_t d = 2;
    cj_spec spec = cj_spec_make(CJ_F32, 1, &d);
    char *s = cj_make_jaxpr(f, 1, &spec);
    CHECK_MSG(s, "%s", cj_error_message(ctx));
    /* a broadcast scalar and an iota, not 3-element constants */
    CHECK_STR_CONTAINS(s, "broadcast_in_dim[shape=(3,) broadcast_dimensions=()] 0:f32[]");
    CHECK_STR_CONTAINS(s, "iota[dtype=i32 shape=(3,) dimension=0]");
    CHECK_STR_CONTAINS(s, "concatenate[dimension=0]");
    CHECK(!strstr(s, "{ lambda a")); /* no array constvars */
    cj_string_free(ctx, s);
    /* and jit computes what eager does */
    cj_func *jf = cj_jit(f, NULL);
    float xin[2] = {5, 6}, got[8], want[8] = {5, 6, 0, 0, 0, 0, 1, 2};
    cj_val x = cj_array(ctx, CJ_F32, 1, &d, xin), y;
    CHECK(cj_call(jf, &x, &y) == CJ_OK);
    CHECK(cj_read(y, got, sizeof got) == CJ_OK);
    CHECK(memcmp(got, want, sizeof want) == 0);
    cj_ctx_free(ctx);
}
