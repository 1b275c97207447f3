/* test_sort.c — the sort and top_k primitives (src/prim/sort.c,
 * src/prim/sort_kernels.c, their jvp rules in src/autodiff/rules_sort.c)
 * and the operations on them (src/api/sort.c, cj_random_permutation).
 *
 * References: plain C written here from the definitions (a stable sort is
 * qsort by (value, original index) with a comparator that states lax.sort's
 * order in words: NaN after everything, -0.0 equal to 0.0; top_k's is the
 * IEEE total order), loops for searchsorted and quantiles, finite
 * differences for gradients, and JAX's own results on fixed inputs
 * (tests/data/sort/, written by tests/data/gen_sort_fixtures.py). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cjax.h"
#include "harness.h"
#include "test_util.h"

#define L(...) ((const int64_t[]){__VA_ARGS__})

/* ---- references -------------------------------------------------------------- */

typedef struct ref_item {
    double v;    /* the value (as double: exact for f32, i32, bool) */
    int neg;     /* its sign bit, for top_k's order of zeros and NaNs */
    int64_t idx; /* position in the row */
} ref_item;

/* lax.sort: ascending, NaNs (of either sign) last and equal, -0.0 == 0.0. */
static int cmp_sort(const void *pa, const void *pb) {
    const ref_item *a = pa, *b = pb;
    int an = isnan(a->v), bn = isnan(b->v);
    if (an != bn) return an - bn;
    if (!an && a->v != b->v) return a->v < b->v ? -1 : 1;
    return (a->idx > b->idx) - (a->idx < b->idx);
}

/* top_k: descending in the total order -NaN < -inf < ... < -0 < 0 < ... < NaN. */
static int total_class(const ref_item *a) {
    if (isnan(a->v)) return a->neg ? 0 : 4;
    if (a->v == 0) return a->neg ? 2 : 3; /* below and at zero split by sign */
    return a->v < 0 ? 1 : 3;
}
static int cmp_top_k(const void *pa, const void *pb) {
    const ref_item *a = pa, *b = pb;
    int ca = total_class(a), cb = total_class(b);
    if (ca != cb) return cb - ca;
    if (a->v != b->v && !isnan(a->v)) return a->v > b->v ? -1 : 1;
    if (a->v == 0 && b->v == 0 && a->neg != b->neg) return a->neg - b->neg;
    return (a->idx > b->idx) - (a->idx < b->idx);
}

/* The permutation a stable sort along `axis` applies to each row of x
 * (f32 values), perm[(o, j, i)] = the source position along the axis. */
static void ref_perm_f32(const float *x, int rank, const int64_t *dims, int axis, int top_k, int64_t *perm) {
    int64_t outer = 1, inner = 1, n = dims[axis];
    for (int d = 0; d < axis; d++) outer *= dims[d];
    for (int d = axis + 1; d < rank; d++) inner *= dims[d];
    ref_item *row = malloc(sizeof *row * (size_t)(n ? n : 1));
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            for (int64_t j = 0; j < n; j++) {
                float v = x[(o * n + j) * inner + i];
                row[j] = (ref_item){v, signbit(v) != 0, j};
            }
            qsort(row, (size_t)n, sizeof *row, top_k ? cmp_top_k : cmp_sort);
            for (int64_t j = 0; j < n; j++) perm[(o * n + j) * inner + i] = row[j].idx;
        }
    free(row);
}

static uint32_t bits_of(float v) {
    uint32_t u;
    memcpy(&u, &v, 4);
    return u;
}

/* Deterministic data with many ties, both zeros, NaNs of both signs, infinities. */
static void fill_special(float *x, int64_t n, unsigned seed) {
    srand(seed);
    for (int64_t i = 0; i < n; i++) {
        int r = rand() % 23;
        x[i] = r == 0 ? NAN : r == 1 ? -NAN : r == 2 ? -0.0f : r == 3 ? 0.0f : r == 4 ? INFINITY
             : r == 5 ? -INFINITY : (float)(rand() % 9 - 4) * 0.5f;
    }
}

static float *read_f32(cj_val v, int64_t n) {
    float *h = malloc(sizeof(float) * (size_t)(n ? n : 1));
    if (cj_read(v, h, sizeof(float) * (size_t)n) != CJ_OK) {
        free(h);
        return NULL;
    }
    return h;
}

static int32_t *read_i32(cj_val v, int64_t n) {
    int32_t *h = malloc(sizeof(int32_t) * (size_t)(n ? n : 1));
    if (cj_read(v, h, sizeof(int32_t) * (size_t)n) != CJ_OK) {
        free(h);
        return NULL;
    }
    return h;
}

/* ---- sort against the reference -------------------------------------------- */

TEST(sort_f32_stable_nans_last_zeros_equal_every_axis) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    static const int64_t shapes[][3] = {{1, 1, 1}, {200, 1, 1}, {7, 9, 1}, {3, 130, 4}, {4, 0, 3}};
    static const int ranks[] = {1, 1, 2, 3, 3};
    for (int s = 0; s < 5; s++)
        for (int axis = 0; axis < ranks[s]; axis++) {
            int64_t n = 1;
            for (int d = 0; d < ranks[s]; d++) n *= shapes[s][d];
            float *x = malloc(sizeof(float) * (size_t)(n ? n : 1));
            int64_t *perm = malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
            fill_special(x, n, (unsigned)(s * 10 + axis));
            cj_val y = cj_sort(cj_array(ctx, CJ_F32, ranks[s], shapes[s], x), axis - (axis == 1 ? ranks[s] : 0));
            float *got = read_f32(y, n);
            CHECK_MSG(got != NULL, "%s", cj_error_message(ctx));
            ref_perm_f32(x, ranks[s], shapes[s], axis, 0, perm);
            int64_t inner = 1, dn = shapes[s][axis];
            for (int d = axis + 1; d < ranks[s]; d++) inner *= shapes[s][d];
            for (int64_t e = 0; got && e < n; e++) {
                int64_t i = e % inner, o = e / (inner * dn);
                float want = x[(o * dn + perm[e]) * inner + i];
                CHECK_MSG(bits_of(got[e]) == bits_of(want), "shape %d axis %d element %lld: %g (%08x), want %g (%08x)",
                          s, axis, (long long)e, got[e], bits_of(got[e]), want, bits_of(want));
            }
            free(got);
            free(x);
            free(perm);
        }
    cj_ctx_free(ctx);
}

/* Long rows take the radix path, short ones insertion sort; integer keys
 * of every width and dtype against qsort. */
TEST(sort_integer_and_bool_dtypes_match_qsort) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t n = 5000;
    int32_t *a = malloc(sizeof(int32_t) * (size_t)n);
    int64_t *b = malloc(sizeof(int64_t) * (size_t)n);
    uint8_t *c = malloc((size_t)n);
    double *d = malloc(sizeof(double) * (size_t)n);
    srand(3);
    for (int64_t i = 0; i < n; i++) {
        a[i] = (int32_t)((unsigned)rand() * 2654435761u);
        b[i] = (int64_t)rand() * (rand() % 2 ? -1 : 1) * 4000000000LL;
        c[i] = (uint8_t)(rand() % 2);
        d[i] = (rand() % 50 - 25) * 0.25;
    }
    a[0] = INT32_MIN, a[1] = INT32_MAX, b[0] = INT64_MIN, b[1] = INT64_MAX;
    cj_val ys[4] = {cj_sort(cj_array(ctx, CJ_I32, 1, &n, a), 0), cj_sort(cj_array(ctx, CJ_I64, 1, &n, b), 0),
                    cj_sort(cj_array(ctx, CJ_BOOL, 1, &n, c), 0), cj_sort(cj_array(ctx, CJ_F64, 1, &n, d), -1)};
    int32_t *ga = malloc(sizeof(int32_t) * (size_t)n);
    int64_t *gb = malloc(sizeof(int64_t) * (size_t)n);
    uint8_t *gc = malloc((size_t)n);
    double *gd = malloc(sizeof(double) * (size_t)n);
    CHECK(cj_read(ys[0], ga, 4 * (size_t)n) == CJ_OK && cj_read(ys[1], gb, 8 * (size_t)n) == CJ_OK);
    CHECK(cj_read(ys[2], gc, (size_t)n) == CJ_OK && cj_read(ys[3], gd, 8 * (size_t)n) == CJ_OK);
    int ok = 1;
    int64_t ones = 0;
    for (int64_t i = 0; i < n; i++) ones += c[i];
    for (int64_t i = 1; i < n; i++) ok &= ga[i - 1] <= ga[i] && gb[i - 1] <= gb[i] && gd[i - 1] <= gd[i];
    for (int64_t i = 0; i < n; i++) ok &= gc[i] == (i >= n - ones);
    CHECK(ok);
    CHECK(ga[0] == INT32_MIN && ga[n - 1] == INT32_MAX && gb[0] == INT64_MIN && gb[n - 1] == INT64_MAX);
    /* the same multiset: sums agree */
    int64_t sa = 0, sga = 0;
    for (int64_t i = 0; i < n; i++) sa += a[i], sga += ga[i];
    CHECK(sa == sga);
    free(a), free(b), free(c), free(d), free(ga), free(gb), free(gc), free(gd);
    cj_ctx_free(ctx);
}

/* Two keys and a payload: lexicographic and stable (the payload is the
 * original position, so ties must keep it increasing). */
TEST(sort_multi_lexicographic_two_keys_stable) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t n = 300;
    int32_t k1[300], pay[300];
    float k2[300];
    srand(5);
    for (int i = 0; i < n; i++) k1[i] = rand() % 4, k2[i] = (float)(rand() % 3) - (rand() % 5 == 0 ? 0.0f : 1.0f), pay[i] = i;
    k2[7] = -0.0f, k2[8] = 0.0f, k2[9] = NAN;
    cj_val in[3] = {cj_array(ctx, CJ_I32, 1, &n, k1), cj_array(ctx, CJ_F32, 1, &n, k2), cj_array(ctx, CJ_I32, 1, &n, pay)};
    cj_val out[3];
    CHECK(cj_sort_multi(3, in, 0, 2, 1, out) == CJ_OK);
    int32_t g1[300], g3[300];
    float g2[300];
    CHECK(cj_read(out[0], g1, sizeof g1) == CJ_OK && cj_read(out[1], g2, sizeof g2) == CJ_OK &&
          cj_read(out[2], g3, sizeof g3) == CJ_OK);
    int seen[300] = {0};
    for (int i = 0; i < n; i++) {
        CHECK(g3[i] >= 0 && g3[i] < n && !seen[g3[i]]);
        seen[g3[i]] = 1;
        CHECK(g1[i] == k1[g3[i]] && bits_of(g2[i]) == bits_of(k2[g3[i]]));
        if (i == 0) continue;
        ref_item a = {g2[i - 1], 0, g3[i - 1]}, b = {g2[i], 0, g3[i]};
        int before = g1[i - 1] < g1[i] || (g1[i - 1] == g1[i] && cmp_sort(&a, &b) < 0);
        CHECK_MSG(before, "position %d: (%d, %g, %d) after (%d, %g, %d)", i, g1[i], g2[i], g3[i], g1[i - 1],
                  g2[i - 1], g3[i - 1]);
    }
    cj_ctx_free(ctx);
}

TEST(argsort_stable_and_descending_match_reference) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t dims[2] = {6, 70}, n = 420;
    float x[420];
    int64_t perm[420];
    fill_special(x, n, 9);
    cj_val xv = cj_array(ctx, CJ_F32, 2, dims, x);
    cj_val asc = cj_argsort(xv, 1, 1, 0), desc = cj_argsort(xv, -1, 1, 1);
    CHECK(cj_val_dtype(asc) == CJ_I32);
    int32_t *ga = read_i32(asc, n), *gd = read_i32(desc, n);
    CHECK(ga && gd);
    ref_perm_f32(x, 2, dims, 1, 0, perm);
    for (int64_t e = 0; ga && e < n; e++) CHECK_MSG(ga[e] == perm[e], "ascending %lld", (long long)e);
    /* descending and stable: equal values in their original order, NaNs first */
    for (int64_t r = 0; gd && r < 6; r++)
        for (int64_t j = 1; j < 70; j++) {
            ref_item a = {x[r * 70 + gd[r * 70 + j - 1]], 0, gd[r * 70 + j - 1]};
            ref_item b = {x[r * 70 + gd[r * 70 + j]], 0, gd[r * 70 + j]};
            ref_item b_as_earlier = b;
            b_as_earlier.idx = a.idx; /* compare by value alone */
            int c = cmp_sort(&b_as_earlier, &a);
            CHECK_MSG(c < 0 || (c == 0 && a.idx < b.idx), "descending row %lld at %lld", (long long)r, (long long)j);
        }
    free(ga), free(gd);
    cj_ctx_free(ctx);
}

/* ---- top_k ---------------------------------------------------------------------- */

TEST(top_k_total_order_ties_to_lower_index) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    /* rows short and long, k small (selection) and large (a full sort) */
    static const int64_t cases[][3] = {{5, 16, 16}, {5, 16, 3}, {3, 500, 7}, {2, 300, 250}, {4, 9, 0}, {1, 1, 1}};
    for (int c = 0; c < 6; c++) {
        int64_t rows = cases[c][0], n = cases[c][1], k = cases[c][2];
        float *x = malloc(sizeof(float) * (size_t)(rows * n));
        int64_t *perm = malloc(sizeof(int64_t) * (size_t)(rows * n));
        fill_special(x, rows * n, (unsigned)(100 + c));
        cj_val v, i;
        CHECK(cj_top_k(cj_array(ctx, CJ_F32, 2, L(rows, n), x), k, &v, &i) == CJ_OK);
        int64_t shape[2];
        CHECK(cj_val_shape(v, shape) == 2 && shape[0] == rows && shape[1] == k && cj_val_dtype(i) == CJ_I32);
        float *gv = read_f32(v, rows * k);
        int32_t *gi = read_i32(i, rows * k);
        ref_perm_f32(x, 2, L(rows, n), 1, 1, perm);
        for (int64_t r = 0; gv && gi && r < rows; r++)
            for (int64_t j = 0; j < k; j++) {
                CHECK_MSG(gi[r * k + j] == perm[r * n + j], "case %d row %lld: index %lld is %d, want %lld", c,
                          (long long)r, (long long)j, gi[r * k + j], (long long)perm[r * n + j]);
                CHECK(bits_of(gv[r * k + j]) == bits_of(x[r * n + perm[r * n + j]]));
            }
        free(gv), free(gi), free(x), free(perm);
    }
    cj_ctx_free(ctx);
}

TEST(top_k_integers_and_f64) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int32_t xi[8] = {3, -1, 7, 7, INT32_MIN, 0, 7, INT32_MAX};
    double xd[8] = {0.5, -0.0, 0.0, 2, 2, -INFINITY, NAN, 1};
    cj_val v, i;
    CHECK(cj_top_k(cj_array(ctx, CJ_I32, 1, L(8), xi), 4, &v, &i) == CJ_OK);
    int32_t gv[4], gi[4];
    CHECK(cj_read(v, gv, sizeof gv) == CJ_OK && cj_read(i, gi, sizeof gi) == CJ_OK);
    CHECK(gv[0] == INT32_MAX && gv[1] == 7 && gv[2] == 7 && gv[3] == 7 && gi[1] == 2 && gi[2] == 3 && gi[3] == 6);
    CHECK(cj_top_k(cj_array(ctx, CJ_F64, 1, L(8), xd), 8, &v, &i) == CJ_OK);
    int32_t gi8[8];
    CHECK(cj_read(i, gi8, sizeof gi8) == CJ_OK);
    static const int32_t want[8] = {6, 3, 4, 7, 0, 2, 1, 5}; /* NaN, 2, 2, 1, 0.5, 0, -0, -inf */
    for (int j = 0; j < 8; j++) CHECK_EQ_INT(gi8[j], want[j]);
    cj_ctx_free(ctx);
}

/* ---- JAX's own results -------------------------------------------------------------- */

static cj_val fixture(cj_ctx *ctx, const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/sort/%s.npy", CJAX_TEST_DATA_DIR, name);
    cj_val v = cj_load_npy(ctx, path);
    if (cj_is_error(v)) th_fail(__FILE__, __LINE__, "fixture %s: %s", name, cj_error_message(ctx));
    return v;
}

/* got equal to JAX's want: same type and bits, or within ulps for floats. */
static int matches(cj_val got, cj_val want, int ulps, const char *what) {
    char gt[96], wt[96];
    cj_val_type_str(got, gt, sizeof gt);
    cj_val_type_str(want, wt, sizeof wt);
    if (strcmp(gt, wt) != 0) {
        th_fail(__FILE__, __LINE__, "%s: type %s, JAX's %s (%s)", what, gt, wt, cj_error_message(got.ctx));
        return 0;
    }
    int64_t n = cj_val_size(got);
    size_t bytes = (size_t)n * cj_dtype_size(cj_val_dtype(got));
    unsigned char *a = malloc(bytes + 1), *b = malloc(bytes + 1);
    int ok = cj_read(got, a, bytes) == CJ_OK && cj_read(want, b, bytes) == CJ_OK;
    if (ok && memcmp(a, b, bytes) != 0) {
        if (cj_val_dtype(got) != CJ_F32 || ulps == 0) ok = 0;
        for (int64_t i = 0; ok && i < n; i++) {
            float x, y;
            memcpy(&x, a + 4 * i, 4);
            memcpy(&y, b + 4 * i, 4);
            int32_t d = (int32_t)bits_of(x) - (int32_t)bits_of(y);
            if (!(isnan(x) && isnan(y)) && (d > ulps || d < -ulps)) ok = 0;
        }
        if (!ok) th_fail(__FILE__, __LINE__, "%s: differs from JAX's result", what);
    }
    free(a), free(b);
    return ok;
}

TEST(sort_matches_jax_fixtures) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val x = fixture(ctx, "x");
    CHECK(matches(cj_sort(x, 0), fixture(ctx, "sort_axis0"), 0, "sort axis 0"));
    CHECK(matches(cj_sort(x, 1), fixture(ctx, "sort_axis1"), 0, "sort axis 1"));
    CHECK(matches(cj_argsort(x, 1, 1, 0), fixture(ctx, "argsort_axis1"), 0, "argsort"));
    CHECK(matches(cj_argsort(x, 0, 1, 1), fixture(ctx, "argsort_axis0_desc"), 0, "argsort descending"));
    cj_val v, i;
    CHECK(cj_top_k(x, 3, &v, &i) == CJ_OK);
    CHECK(matches(v, fixture(ctx, "top_k3_values"), 0, "top_k values"));
    CHECK(matches(i, fixture(ctx, "top_k3_indices"), 0, "top_k indices"));
    int64_t n = 40;
    cj_val k1 = fixture(ctx, "lex_k1");
    cj_val in[3] = {k1, fixture(ctx, "lex_k2"), cj_reshape(cj_iota(ctx, CJ_I32, 1, &n, 0), 2, L(4, 10))}, out[3];
    CHECK(cj_sort_multi(3, in, 1, 2, 1, out) == CJ_OK);
    CHECK(matches(out[0], fixture(ctx, "lex_out0"), 0, "lex key 0"));
    CHECK(matches(out[1], fixture(ctx, "lex_out1"), 0, "lex key 1"));
    CHECK(matches(out[2], fixture(ctx, "lex_out2"), 0, "lex payload"));
    cj_val a = fixture(ctx, "ss_a"), q = fixture(ctx, "ss_v");
    CHECK(matches(cj_searchsorted(a, q, NULL), fixture(ctx, "ss_left"), 0, "searchsorted left"));
    CHECK(matches(cj_searchsorted(a, q, "right"), fixture(ctx, "ss_right"), 0, "searchsorted right"));
    /* quantiles: XLA contracts the weighted sum into fused multiply-adds,
     * cjax rounds each product: a last-bit difference is allowed */
    cj_val y = fixture(ctx, "y");
    int64_t ax1 = 1, ax0 = 0;
    CHECK(matches(cj_quantile(y, fixture(ctx, "q"), 1, &ax1, "linear", 0), fixture(ctx, "quantile_axis1"), 1,
                  "quantile axis 1"));
    CHECK(matches(cj_quantile(y, cj_scalar(ctx, 0.3), -1, NULL, NULL, 0), fixture(ctx, "quantile_all_0p3"), 1,
                  "quantile all"));
    CHECK(matches(cj_median(y, 1, &ax0, 0), fixture(ctx, "median_axis0"), 0, "median axis 0"));
    CHECK(matches(cj_median(y, -1, NULL, 0), fixture(ctx, "median_all"), 0, "median"));
    cj_ctx_free(ctx);
}

/* ---- searchsorted and quantile against loops ------------------------------------- */

TEST(searchsorted_matches_counting_loop) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t n = 50, m = 30;
    int32_t a[50], v[30];
    for (int i = 0; i < n; i++) a[i] = i / 3 * 2; /* runs of equal values */
    for (int j = 0; j < m; j++) v[j] = j - 3;
    cj_val av = cj_array(ctx, CJ_I32, 1, &n, a);
    cj_val vv = cj_reshape(cj_array(ctx, CJ_I32, 1, &m, v), 2, L(5, 6));
    for (int right = 0; right < 2; right++) {
        cj_val r = cj_searchsorted(av, vv, right ? "right" : "left");
        int64_t shape[2];
        CHECK(cj_val_shape(r, shape) == 2 && shape[0] == 5 && shape[1] == 6 && cj_val_dtype(r) == CJ_I32);
        int32_t got[30];
        CHECK(cj_read(r, got, sizeof got) == CJ_OK);
        for (int j = 0; j < m; j++) {
            int want = 0;
            for (int i = 0; i < n; i++) want += right ? a[i] <= v[j] : a[i] < v[j];
            CHECK_MSG(got[j] == want, "side %d query %d: %d, want %d", right, v[j], got[j], want);
        }
    }
    /* a scalar query */
    int32_t one;
    CHECK(cj_read(cj_searchsorted(av, cj_scalar_int(ctx, 4), "right"), &one, 4) == CJ_OK);
    CHECK_EQ_INT(one, 9);
    cj_ctx_free(ctx);
}

TEST(quantile_linear_and_methods_match_definition) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    /* x[2, 9] f64, distinct values out of order */
    double x[18], s[9];
    for (int i = 0; i < 18; i++) x[i] = fmod(i * 7.3, 5.1) - 2;
    cj_val xv = cj_array(ctx, CJ_F64, 2, L(2, 9), x);
    double qs[4] = {0.0, 0.3, 0.5, 1.0};
    cj_val qv = cj_array(ctx, CJ_F64, 1, L(4), qs);
    static const char *const methods[] = {"linear", "lower", "higher", "midpoint", "nearest"};
    int64_t ax = 1;
    for (int m = 0; m < 5; m++) {
        cj_val r = cj_quantile(xv, qv, 1, &ax, methods[m], 0);
        int64_t shape[2];
        CHECK(cj_val_shape(r, shape) == 2 && shape[0] == 4 && shape[1] == 2);
        double got[8];
        CHECK(cj_read(r, got, sizeof got) == CJ_OK);
        for (int row = 0; row < 2; row++) {
            memcpy(s, x + 9 * row, sizeof s);
            for (int i = 1; i < 9; i++) /* insertion sort: the reference order */
                for (int j = i; j > 0 && s[j - 1] > s[j]; j--) {
                    double t = s[j];
                    s[j] = s[j - 1], s[j - 1] = t;
                }
            for (int k = 0; k < 4; k++) {
                double pos = qs[k] * 8, lo = floor(pos), hi = ceil(pos), w = pos - lo;
                double L_ = s[(int)lo], H = s[(int)hi];
                double want = m == 0 ? L_ * (1 - w) + H * w : m == 1 ? L_ : m == 2 ? H : m == 3 ? (L_ + H) * 0.5
                            : (w <= 0.5 ? L_ : H);
                CHECK_NEAR(got[k * 2 + row], want, 1e-15, 1e-15);
            }
        }
    }
    /* keepdims, a NaN poisons its row only, ints become f32 */
    x[3] = NAN;
    cj_val r = cj_median(cj_array(ctx, CJ_F64, 2, L(2, 9), x), 1, &ax, 1);
    int64_t shape[2];
    double got[2];
    CHECK(cj_val_shape(r, shape) == 2 && shape[0] == 2 && shape[1] == 1);
    CHECK(cj_read(r, got, sizeof got) == CJ_OK && isnan(got[0]) && !isnan(got[1]));
    int32_t ints[4] = {4, 1, 3, 2};
    cj_val mi = cj_median(cj_array(ctx, CJ_I32, 1, L(4), ints), -1, NULL, 0);
    float f;
    CHECK(cj_val_dtype(mi) == CJ_F32 && cj_read(mi, &f, 4) == CJ_OK && f == 2.5f);
    cj_ctx_free(ctx);
}

/* ---- transformations ---------------------------------------------------------------- */

static void sort_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    cj_val ops[2] = {in[0], in[1]};
    cj_sort_multi(2, ops, 1, 1, 1, out);
    cj_top_k(in[0], 3, &out[2], &out[3]);
}

TEST(sort_jit_both_backends_and_vmap_equal_eager) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t dims[3] = {4, 5, 6}, n = 120;
    float x[120], y[120];
    fill_special(x, n, 77);
    for (int i = 0; i < n; i++) y[i] = (float)i;
    cj_val in[2] = {cj_array(ctx, CJ_F32, 3, dims, x), cj_array(ctx, CJ_F32, 3, dims, y)};
    cj_func *f = cj_func_new(ctx, "sort_fn", sort_fn, 2, 4, NULL);
    cj_val want[4], got[4];
    CHECK(cj_call(f, in, want) == CJ_OK);
    cj_backend backends[2] = {CJ_BACKEND_INTERP, CJ_BACKEND_CC};
    for (int b = 0; b < 2; b++) {
        cj_jit_opts o = {0};
        o.backend = backends[b];
        cj_func *jf = cj_jit(f, &o);
        CHECK_MSG(cj_call(jf, in, got) == CJ_OK, "%s", cj_error_message(ctx));
        for (int k = 0; k < 4; k++) CHECK_MSG(tu_same_bits(got[k], want[k]), "backend %d output %d", b, k);
    }
    /* vmap over axis 0 against a loop of single calls */
    cj_func *vf = cj_vmap(f, NULL);
    CHECK_MSG(cj_call(vf, in, got) == CJ_OK, "%s", cj_error_message(ctx));
    for (int64_t e = 0; e < 4; e++) {
        int64_t lo[3] = {e, 0, 0}, hi[3] = {e + 1, 5, 6};
        cj_val one[2] = {cj_reshape(cj_slice(in[0], lo, hi, NULL), 2, L(5, 6)),
                         cj_reshape(cj_slice(in[1], lo, hi, NULL), 2, L(5, 6))};
        cj_val w[4];
        CHECK(cj_call(f, one, w) == CJ_OK);
        for (int k = 0; k < 4; k++) {
            int64_t shape[3];
            int r = cj_val_shape(got[k], shape);
            int64_t l2[3] = {e, 0, 0}, h2[3] = {e + 1, shape[1], shape[2]};
            CHECK(r == 3);
            CHECK_MSG(tu_same_bits(cj_reshape(cj_slice(got[k], l2, h2, NULL), 2, shape + 1), w[k]), "example %lld output %d",
                      (long long)e, k);
        }
    }
    /* vmap with the batch on another axis: in_axes 2 */
    int64_t axes2[2] = {2, 2};
    cj_vmap_opts vo = {0};
    vo.in_axes = axes2;
    CHECK_MSG(cj_call(cj_vmap(f, &vo), in, got) == CJ_OK, "%s", cj_error_message(ctx));
    cj_val one[2] = {cj_reshape(cj_slice(in[0], L(0, 0, 1), L(4, 5, 2), NULL), 2, L(4, 5)),
                     cj_reshape(cj_slice(in[1], L(0, 0, 1), L(4, 5, 2), NULL), 2, L(4, 5))};
    cj_val w[4];
    CHECK(cj_call(f, one, w) == CJ_OK);
    CHECK(tu_same_bits(cj_reshape(cj_slice(got[0], L(1, 0, 0), L(2, 4, 5), NULL), 2, L(4, 5)), w[0]));
    CHECK(tu_same_bits(cj_reshape(cj_slice(got[3], L(1, 0, 0), L(2, 4, 3), NULL), 2, L(4, 3)), w[3]));
    cj_ctx_free(ctx);
}

static void weighted_sort(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    cj_val w = *(cj_val *)user;
    out[0] = cj_sum(cj_mul(cj_sort(in[0], 1), w), -1, NULL, 0);
}

static void weighted_top_k(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    cj_val u = *(cj_val *)user, v, i;
    cj_top_k(in[0], 2, &v, &i);
    out[0] = cj_sum(cj_mul(v, u), -1, NULL, 0);
}

/* grad against central differences in f64 (exact up to rounding: the
 * function is linear between ties), and against JAX's grad in f32. */
TEST(sort_and_top_k_grad_match_finite_differences_and_jax) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    double z[18], w[18], u[6];
    for (int i = 0; i < 18; i++) z[i] = sin(i * 1.7) * 3, w[i] = cos(i * 0.9);
    for (int i = 0; i < 6; i++) u[i] = 1 + i * 0.5;
    cj_val wv = cj_array(ctx, CJ_F64, 2, L(3, 6), w), uv = cj_array(ctx, CJ_F64, 2, L(3, 2), u);
    cj_fn fns[2] = {weighted_sort, weighted_top_k};
    cj_val *users[2] = {&wv, &uv};
    for (int f = 0; f < 2; f++) {
        cj_func *fn = cj_func_new(ctx, "weighted", fns[f], 1, 1, users[f]);
        cj_val zv = cj_array(ctx, CJ_F64, 2, L(3, 6), z), g;
        CHECK_MSG(cj_call(cj_grad(fn, NULL), &zv, &g) == CJ_OK, "%s", cj_error_message(ctx));
        double got[18];
        CHECK(cj_read(g, got, sizeof got) == CJ_OK);
        for (int i = 0; i < 18; i++) {
            double zp[18], zm[18], fp, fm, h = 1e-6;
            memcpy(zp, z, sizeof z), memcpy(zm, z, sizeof z);
            zp[i] += h, zm[i] -= h;
            cj_val ap = cj_array(ctx, CJ_F64, 2, L(3, 6), zp), am = cj_array(ctx, CJ_F64, 2, L(3, 6), zm), rp, rm;
            CHECK(cj_call(fn, &ap, &rp) == CJ_OK && cj_call(fn, &am, &rm) == CJ_OK);
            CHECK(cj_read(rp, &fp, 8) == CJ_OK && cj_read(rm, &fm, 8) == CJ_OK);
            CHECK_NEAR(got[i], (fp - fm) / (2 * h), 1e-7, 1e-7);
        }
    }
    /* JAX's gradients of the same functions on its own inputs */
    cj_val jw = fixture(ctx, "g_w"), ju = fixture(ctx, "g_u"), jz = fixture(ctx, "g_z"), g;
    cj_func *fs = cj_func_new(ctx, "weighted_sort", weighted_sort, 1, 1, &jw);
    cj_func *ft = cj_func_new(ctx, "weighted_top_k", weighted_top_k, 1, 1, &ju);
    CHECK(cj_call(cj_grad(fs, NULL), &jz, &g) == CJ_OK && matches(g, fixture(ctx, "grad_sort"), 0, "grad sort"));
    CHECK(cj_call(cj_jit(cj_grad(ft, NULL), NULL), &jz, &g) == CJ_OK &&
          matches(g, fixture(ctx, "grad_top_k"), 0, "grad top_k"));
    cj_ctx_free(ctx);
}

TEST(sort_jaxpr_prints_parameters) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *f = cj_func_new(ctx, "sort_fn", sort_fn, 2, 4, NULL);
    cj_spec specs[2] = {cj_spec_make(CJ_F32, 2, L(3, 4)), cj_spec_make(CJ_F32, 2, L(3, 4))};
    char *text = cj_make_jaxpr(f, 2, specs);
    CHECK(text != NULL);
    if (text) {
        CHECK_STR_CONTAINS(text, "sort[dimension=1 is_stable=True num_keys=1]");
        CHECK_STR_CONTAINS(text, "top_k[k=3]");
        cj_string_free(ctx, text);
    }
    cj_ctx_free(ctx);
}

/* ---- errors ---------------------------------------------------------------------------- */

static void expect_error(cj_ctx *ctx, cj_status got, const char *needle) {
    CHECK_MSG(got != CJ_OK, "no error (expected '%s')", needle);
    CHECK_STR_CONTAINS(cj_error_message(ctx), needle);
    cj_error_clear(ctx);
}

TEST(sort_bad_input_errors_name_op_and_shapes) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val x = cj_zeros(ctx, CJ_F32, 2, L(3, 4)), y = cj_zeros(ctx, CJ_F32, 1, L(5)), out[2], v, i;
    expect_error(ctx, cj_is_error(cj_sort(x, 2)) ? CJ_ERR_AXIS : CJ_OK, "axis 2");
    expect_error(ctx, cj_is_error(cj_sort(cj_scalar(ctx, 1), 0)) ? CJ_ERR_AXIS : CJ_OK, "axis 0");
    cj_val xy[2] = {x, y};
    expect_error(ctx, cj_sort_multi(2, xy, 0, 1, 1, out), "sort: operands must have one shape: operand 0 is f32[3,4], operand 1 is f32[5]");
    cj_val xx[2] = {x, x};
    expect_error(ctx, cj_sort_multi(2, xx, 0, 3, 1, out), "sort: num_keys must be in [1, 2]");
    expect_error(ctx, cj_sort_multi(2, xx, 0, 0, 1, out), "got 0");
    CHECK(cj_is_error(out[0]) && cj_is_error(out[1]));
    cj_error_clear(NULL); /* the thread's record keeps the first message: start it empty */
    CHECK(cj_sort_multi(0, xx, 0, 1, 1, out) == CJ_ERR_ARG); /* no operand: no context to record in */
    CHECK_STR_CONTAINS(cj_error_message(NULL), "cj_sort_multi: needs 1 to 256 operands");
    cj_error_clear(NULL);
    expect_error(ctx, cj_top_k(x, 5, &v, &i), "top_k: k must be in [0, 4] (the last axis of f32[3,4]), got 5");
    CHECK(cj_is_error(v) && cj_is_error(i));
    expect_error(ctx, cj_top_k(cj_scalar(ctx, 1), 1, &v, &i), "top_k: operand must have rank >= 1");
    expect_error(ctx, cj_is_error(cj_searchsorted(x, y, NULL)) ? CJ_ERR_SHAPE : CJ_OK,
                 "searchsorted: the sorted array must be 1-D, got f32[3,4]");
    expect_error(ctx, cj_is_error(cj_searchsorted(y, y, "middle")) ? CJ_ERR_ARG : CJ_OK, "side must be");
    expect_error(ctx, cj_is_error(cj_quantile(x, x, -1, NULL, NULL, 0)) ? CJ_ERR_SHAPE : CJ_OK, "q must have rank <= 1");
    expect_error(ctx, cj_is_error(cj_quantile(x, cj_scalar(ctx, 0.5), -1, NULL, "cubic", 0)) ? CJ_ERR_ARG : CJ_OK,
                 "method must be");
    cj_ctx_free(ctx);
}

/* ---- random permutation on sort ------------------------------------------------------- */

TEST(random_permutation_large_is_a_permutation) {
    tu_alloc st = {0};
    cj_allocator al = tu_allocator(&st);
    cj_ctx *ctx = cj_ctx_new(&al);
    int64_t n = 200000; /* O(n^2) memory would be 160 GB */
    cj_val p = cj_random_permutation(cj_random_key(ctx, 3), n);
    int32_t *got = read_i32(p, n);
    CHECK_MSG(got != NULL, "%s", cj_error_message(ctx));
    char *seen = calloc((size_t)n, 1);
    int64_t fixed = 0;
    for (int64_t i = 0; got && i < n; i++) {
        CHECK(got[i] >= 0 && got[i] < n && !seen[got[i]]);
        seen[got[i]] = 1;
        fixed += got[i] == i;
    }
    CHECK(fixed < 20); /* a shuffle leaves about one element in place */
    free(seen), free(got);
    cj_ctx_free(ctx);
    CHECK_EQ_INT(st.live, 0);
}

/* A lone f32, i32 or bool operand whose keys are one to one (no -0.0, only
 * the canonical NaN) is sorted as its keys alone and mapped back (the
 * fast path); long rows with and without such values against qsort. */
TEST(sort_single_operand_long_rows_both_paths) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t n = 70000;
    float *x = malloc(sizeof(float) * (size_t)n);
    int64_t *perm = malloc(sizeof(int64_t) * (size_t)n);
    for (int variant = 0; variant < 2; variant++) {
        srand(40 + variant);
        for (int64_t i = 0; i < n; i++) x[i] = (float)(rand() - RAND_MAX / 2) * 1e-3f;
        x[5] = NAN, x[6] = INFINITY, x[7] = -INFINITY, x[8] = 0.0f, x[9] = 1e-40f, x[10] = -1e-40f;
        if (variant) x[11] = -0.0f, x[12] = -NAN; /* the packed path */
        cj_val y = cj_sort(cj_array(ctx, CJ_F32, 1, &n, x), 0);
        float *got = read_f32(y, n);
        CHECK(got != NULL);
        ref_perm_f32(x, 1, &n, 0, 0, perm);
        int64_t bad = 0;
        for (int64_t e = 0; got && e < n; e++) bad += bits_of(got[e]) != bits_of(x[perm[e]]);
        CHECK_MSG(bad == 0, "variant %d: %lld elements differ", variant, (long long)bad);
        free(got);
        /* with a payload: the key written back from its sorted keys (one to
         * one) or gathered (variant 1), the payload gathered */
        cj_val in[2] = {cj_array(ctx, CJ_F32, 1, &n, x), cj_iota(ctx, CJ_I32, 1, &n, 0)}, out[2];
        CHECK(cj_sort_multi(2, in, 0, 1, 1, out) == CJ_OK);
        got = read_f32(out[0], n);
        int32_t *gp = read_i32(out[1], n);
        CHECK(got && gp);
        bad = 0;
        for (int64_t e = 0; got && gp && e < n; e++) bad += bits_of(got[e]) != bits_of(x[perm[e]]) || gp[e] != perm[e];
        CHECK_MSG(bad == 0, "variant %d with a payload: %lld elements differ", variant, (long long)bad);
        free(got), free(gp);
    }
    /* i32 and bool rows of the same length, along axis 0 of a 2-D array */
    int32_t *xi = malloc(sizeof(int32_t) * (size_t)n * 2);
    uint8_t *xb = malloc((size_t)n * 2);
    for (int64_t i = 0; i < 2 * n; i++) xi[i] = (int32_t)(rand() % 2001) - 1000, xb[i] = (uint8_t)(rand() % 3 == 0);
    cj_val yi = cj_sort(cj_array(ctx, CJ_I32, 2, L(n, 2), xi), 0), yb = cj_sort(cj_array(ctx, CJ_BOOL, 2, L(n, 2), xb), 0);
    int32_t *gi = read_i32(yi, 2 * n);
    uint8_t *gb = malloc((size_t)n * 2);
    CHECK(gi && cj_read(yb, gb, (size_t)n * 2) == CJ_OK);
    for (int c = 0; gi && c < 2; c++) {
        int64_t count[2001] = {0}, ones = 0;
        for (int64_t i = 0; i < n; i++) count[xi[2 * i + c] + 1000]++, ones += xb[2 * i + c];
        int64_t at = 0, bad = 0;
        for (int v = 0; v < 2001; v++) /* counting sort: the reference */
            for (int64_t k = 0; k < count[v]; k++, at++) bad += gi[2 * at + c] != v - 1000;
        for (int64_t i = 0; i < n; i++) bad += gb[2 * i + c] != (i >= n - ones);
        CHECK_MSG(bad == 0, "column %d: %lld elements differ", c, (long long)bad);
    }
    /* 1-D rows whose keys differ only in the low digit (one radix pass),
     * are all equal (none), or are bools: against counting */
    for (int kind = 0; kind < 3; kind++) {
        for (int64_t i = 0; i < n; i++) xi[i] = kind == 0 ? rand() % 2048 : kind == 1 ? -7 : rand() % 2;
        cj_val in = cj_array(ctx, CJ_I32, 1, &n, xi);
        cj_val y = kind == 2 ? cj_astype(cj_sort(cj_astype(in, CJ_BOOL), 0), CJ_I32) : cj_sort(in, 0);
        int32_t *g = read_i32(y, n);
        CHECK(g != NULL);
        int64_t count[2048] = {0}, at = 0, bad = 0;
        for (int64_t i = 0; i < n; i++) count[kind == 1 ? 0 : xi[i]]++;
        for (int v = 0; g && v < 2048; v++)
            for (int64_t k = 0; k < count[v]; k++, at++) bad += g[at] != (kind == 1 ? -7 : v);
        CHECK_MSG(bad == 0, "kind %d: %lld elements differ", kind, (long long)bad);
        free(g);
    }
    free(x), free(perm), free(xi), free(xb), free(gi), free(gb);
    cj_ctx_free(ctx);
}

/* Failing allocation 1, 2, 3, ... of a sort, an argsort and a top_k (the
 * results and the kernels' scratch): every run ends in a clean CJ_ERR_OOM
 * or in results, with nothing leaked, until one needs no failed call. */
TEST(sort_out_of_memory_is_clean) {
    int succeeded = 0;
    for (long long fail = 1; fail < 400 && !succeeded; fail++) {
        tu_alloc st;
        memset(&st, 0, sizeof st);
        st.fail_at = fail;
        cj_allocator al = tu_allocator(&st);
        cj_ctx *ctx = cj_ctx_new(&al);
        if (!ctx) continue;
        float z[24];
        for (int i = 0; i < 24; i++) z[i] = (float)((i * 7) % 5);
        cj_val x = cj_array(ctx, CJ_F32, 2, L(4, 6), z), v, i;
        cj_val s = cj_sort(x, 0), a = cj_argsort(x, 1, 1, 1);
        cj_status t = cj_top_k(x, 2, &v, &i);
        int failed = st.failed;
        /* a failed allocation is a clean CJ_ERR_OOM, or was recovered from
         * (the pool gives its buffers back and retries): then all is done */
        if (cj_error(ctx)) CHECK_MSG(failed && cj_error(ctx) == CJ_ERR_OOM, "allocation %lld: %s", fail, cj_error_message(ctx));
        else CHECK(!cj_is_error(s) && !cj_is_error(a) && t == CJ_OK);
        cj_ctx_free(ctx);
        CHECK_EQ_INT(st.live, 0);
        succeeded = !failed;
    }
    CHECK(succeeded);
}

static void top_k_scalar_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    cj_top_k(in[0], 1, &out[0], &out[1]);
}

/* Under vmap an example of rank 0 has no last axis, even though the
 * batched value has one: an error, not a top_k over the batch. */
TEST(top_k_vmap_of_scalars_is_an_error) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *f = cj_vmap(cj_func_new(ctx, "top_k_scalar", top_k_scalar_fn, 1, 2, NULL), NULL);
    cj_val x = cj_zeros(ctx, CJ_F32, 1, L(5)), out[2];
    CHECK(cj_call(f, &x, out) != CJ_OK);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "top_k: operand must have rank >= 1, got f32[]");
    cj_ctx_free(ctx);
}

/* The compiler's analyses see sort and top_k as one kernel each: a flop
 * per element of the first operand (the cost class), results as outputs.
 * The kernels' own scratch is not in temp_bytes (see docs/API.md). */
TEST(sort_jit_analyses_count_the_kernels) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val in[2] = {cj_zeros(ctx, CJ_F32, 3, L(4, 5, 6)), cj_zeros(ctx, CJ_F32, 3, L(4, 5, 6))};
    cj_func *jf = cj_jit(cj_func_new(ctx, "sort_fn", sort_fn, 2, 4, NULL), NULL);
    cj_cost_analysis cost;
    cj_memory_analysis mem;
    CHECK_MSG(cj_jit_cost_analysis(jf, in, &cost) == CJ_OK, "%s", cj_error_message(ctx));
    CHECK_MSG(cj_jit_memory_analysis(jf, in, &mem) == CJ_OK, "%s", cj_error_message(ctx));
    CHECK(cost.flops == 240.0); /* sort: 120 elements of operand 0; top_k: 120 */
    CHECK(cost.transcendentals == 0);
    CHECK_EQ_INT((long long)mem.argument_bytes, 960);
    CHECK_EQ_INT((long long)mem.output_bytes, 960 + 4 * 5 * 3 * 4 * 2); /* two sorted f32, values f32 + indices i32 */
    cj_ctx_free(ctx);
}
