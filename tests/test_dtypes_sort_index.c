/* test_dtypes_sort_index.c — sort, argsort, top_k, searchsorted, quantile /
 * median, gather and the scatter family on the dtypes i8 i16 u8 u16 u32
 * u64 f16 bf16 (issue 17, stage 2), index operands of every integer dtype,
 * and a chosen index_vector_dim, against JAX on CPU
 * (tests/data/dtype_index, tests/data/gen_dtype_index_fixtures.py): eager,
 * and jit on the interpreter and generated C bit for bit equal to JAX's;
 * vmap against a loop of single calls; sort's jvp keeping f16 tangents
 * f16 and permuting them; the index_vector_dim cases also against a plain
 * loop; the dtype and index_vector_dim errors. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "test_util.h"

static const cj_dtype new_dts[] = {CJ_I8, CJ_I16, CJ_U8, CJ_U16, CJ_U32, CJ_U64, CJ_F16, CJ_BF16};
#define N_NEW ((int)(sizeof new_dts / sizeof new_dts[0]))
static const cj_dtype index_dts[] = {CJ_I8, CJ_I16, CJ_I32, CJ_I64, CJ_U8, CJ_U16, CJ_U32, CJ_U64};

static cj_val fx(cj_ctx *ctx, const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/dtype_index/%s.npy", CJAX_TEST_DATA_DIR, name);
    cj_val v = cj_load_npy(ctx, path);
    if (cj_is_error(v)) th_fail(__FILE__, __LINE__, "fixture %s: %s", name, cj_error_message(ctx));
    return v;
}

static cj_val fxf(cj_ctx *ctx, const char *fmt, const char *a, const char *b) {
    char name[160];
    snprintf(name, sizeof name, fmt, a, b);
    return fx(ctx, name);
}

/* Same type and bits; the message names the case. */
static int same(cj_val got, cj_val want, const char *what, const char *mode) {
    if (tu_same_bits(got, want)) return 1;
    char g[96] = "?", w[96] = "?";
    cj_val_type_str(got, g, sizeof g);
    cj_val_type_str(want, w, sizeof w);
    /* the first element that differs, as bits */
    long long at = -1, gb = 0, wb = 0;
    size_t es = cj_dtype_size(cj_val_dtype(want));
    int64_t n = cj_val_size(want);
    if (strcmp(g, w) == 0 && es <= 8) {
        unsigned char *a = malloc((size_t)n * es + 1), *b = malloc((size_t)n * es + 1);
        if (cj_read(got, a, (size_t)n * es) == CJ_OK && cj_read(want, b, (size_t)n * es) == CJ_OK)
            for (int64_t i = 0; i < n && at < 0; i++)
                if (memcmp(a + (size_t)i * es, b + (size_t)i * es, es) != 0) {
                    at = i;
                    memcpy(&gb, a + (size_t)i * es, es), memcpy(&wb, b + (size_t)i * es, es);
                }
        free(a), free(b);
    }
    th_fail(__FILE__, __LINE__, "%s (%s): %s differs from JAX's %s (element %lld: bits %llx, JAX's %llx) (%s)", what,
            mode, g, w, at, gb, wb, cj_error_message(got.ctx));
    return 0;
}

static const cj_jit_opts jit_interp = {0, NULL, 0, NULL, CJ_BACKEND_INTERP};
static const cj_jit_opts jit_cc = {0, NULL, 0, NULL, CJ_BACKEND_CC};

/* f run eagerly, under jit on both backends: each output against want[]. */
static void three_ways(cj_ctx *ctx, cj_func *f, const cj_val *in, int n_out, const cj_val *want,
                       const char *const *names) {
    cj_val out[3][8];
    cj_func *modes[3] = {f, cj_jit(f, &jit_interp), cj_jit(f, &jit_cc)};
    static const char *const mode_names[3] = {"eager", "jit interp", "jit cc"};
    for (int m = 0; m < 3; m++) {
        CHECK_MSG(cj_call(modes[m], in, out[m]) == CJ_OK, "%s %s: %s", names[0], mode_names[m],
                  cj_error_message(ctx));
        if (cj_error(ctx) != CJ_OK) return;
        for (int k = 0; k < n_out; k++) CHECK(same(out[m][k], want[k], names[k], mode_names[m]));
    }
}

/* ---- sort, argsort, top_k -------------------------------------------------------- */

static void sort_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_sort(in[0], 1);
    out[1] = cj_sort(in[0], 0);
    out[2] = cj_argsort(in[0], 1, 1, 0);
    out[3] = cj_argsort(in[0], -1, 1, 1);
    cj_top_k(in[0], 7, &out[4], &out[5]);
}

TEST(dtype_sort_argsort_top_k_match_jax) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    for (int d = 0; d < N_NEW; d++) {
        const char *dn = cj_dtype_name(new_dts[d]);
        cj_val x = fxf(ctx, "sort_%s_x%s", dn, "");
        CHECK(cj_val_dtype(x) == new_dts[d]);
        cj_val want[6] = {fxf(ctx, "sort_%s_ax1%s", dn, ""), fxf(ctx, "sort_%s_ax0%s", dn, ""),
                          fxf(ctx, "argsort_%s%s", dn, ""),  fxf(ctx, "argsort_desc_%s%s", dn, ""),
                          fxf(ctx, "top_k_%s_values%s", dn, ""), fxf(ctx, "top_k_%s_indices%s", dn, "")};
        char nm[6][48];
        const char *names[6];
        static const char *const what[6] = {"sort axis 1", "sort axis 0", "argsort", "argsort descending",
                                            "top_k values", "top_k indices"};
        for (int k = 0; k < 6; k++) snprintf(nm[k], sizeof nm[k], "%s %s", what[k], dn), names[k] = nm[k];
        cj_func *f = cj_func_new(ctx, "sorts", sort_fn, 1, 6, NULL);
        three_ways(ctx, f, &x, 6, want, names);
    }
    cj_ctx_free(ctx);
}

static void lex_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    cj_sort_multi(3, in, 1, 2, 1, out);
}
static void ss_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_searchsorted(in[0], in[1], "left");
    out[1] = cj_searchsorted(in[0], in[1], "right");
}

TEST(dtype_sort_two_keys_and_searchsorted_match_jax) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    for (int d = 0; d < N_NEW; d++) {
        const char *dn = cj_dtype_name(new_dts[d]);
        int64_t n = 60, dims[2] = {2, 30};
        cj_val in[3] = {fxf(ctx, "lex_%s_k1%s", dn, ""), fxf(ctx, "lex_%s_k2%s", dn, ""),
                        cj_reshape(cj_iota(ctx, CJ_I32, 1, &n, 0), 2, dims)};
        cj_val want[3] = {fxf(ctx, "lex_%s_out0%s", dn, ""), fxf(ctx, "lex_%s_out1%s", dn, ""),
                          fxf(ctx, "lex_%s_out2%s", dn, "")};
        const char *names[3] = {"two keys: key 0", "two keys: key 1", "two keys: payload"};
        three_ways(ctx, cj_func_new(ctx, "lex", lex_fn, 3, 3, NULL), in, 3, want, names);
        cj_val q[2] = {fxf(ctx, "ss_%s_a%s", dn, ""), fxf(ctx, "ss_%s_v%s", dn, "")};
        cj_val sw[2] = {fxf(ctx, "ss_%s_left%s", dn, ""), fxf(ctx, "ss_%s_right%s", dn, "")};
        const char *sn[2] = {"searchsorted left", "searchsorted right"};
        three_ways(ctx, cj_func_new(ctx, "ss", ss_fn, 2, 2, NULL), q, 2, sw, sn);
    }
    cj_ctx_free(ctx);
}

/* vmap of a sort along a row and of top_k over the rows of [3, 40], against
 * one call per row. */
static void row_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_sort(in[0], 0);
    cj_top_k(in[0], 5, &out[1], &out[2]);
}

TEST(dtype_sort_top_k_vmap_matches_loop) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    for (int d = 0; d < N_NEW; d++) {
        const char *dn = cj_dtype_name(new_dts[d]);
        cj_val x = fxf(ctx, "sort_%s_x%s", dn, "");
        cj_func *f = cj_func_new(ctx, "rows", row_fn, 1, 3, NULL);
        cj_val yv[3];
        CHECK_MSG(cj_call(cj_vmap(f, NULL), &x, yv) == CJ_OK, "%s: %s", dn, cj_error_message(ctx));
        for (int64_t r = 0; r < 3; r++) {
            int64_t lo[2] = {r, 0}, hi[2] = {r + 1, 40}, one = 40;
            cj_val row = cj_reshape(cj_slice(x, lo, hi, NULL), 1, &one);
            cj_val ys[3];
            CHECK(cj_call(f, &row, ys) == CJ_OK);
            for (int k = 0; k < 3; k++) {
                int64_t klo[2] = {r, 0}, khi[2] = {r + 1, k == 0 ? 40 : 5}, len = k == 0 ? 40 : 5;
                cj_val got = cj_reshape(cj_slice(yv[k], klo, khi, NULL), 1, &len);
                CHECK_MSG(tu_same_bits(got, ys[k]), "%s row %lld output %d: vmap differs from the loop", dn,
                          (long long)r, k);
            }
        }
    }
    cj_ctx_free(ctx);
}

/* sort's jvp keeps an f16 tangent f16 and permutes it with the values. */
static void sort0_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_sort(in[0], 0);
}

TEST(dtype_sort_jvp_permutes_f16_tangents) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    static const cj_dtype fl[2] = {CJ_F16, CJ_BF16};
    for (int d = 0; d < 2; d++) {
        int64_t n = 40, lo[2] = {1, 0}, hi[2] = {2, 40};
        cj_val x = cj_reshape(cj_slice(fxf(ctx, "sort_%s_x%s", cj_dtype_name(fl[d]), ""), lo, hi, NULL), 1, &n);
        cj_val t = cj_astype(cj_arange(ctx, 0, 40, 1, CJ_F32), fl[d]); /* tangent i = i, exact in both */
        cj_val y, ty;
        CHECK_MSG(cj_jvp(cj_func_new(ctx, "sort", sort0_fn, 1, 1, NULL), &x, &t, &y, &ty) == CJ_OK, "%s",
                  cj_error_message(ctx));
        CHECK(cj_val_dtype(ty) == fl[d] && cj_val_dtype(y) == fl[d]);
        /* the tangent is the permutation itself: x[perm] == y and perm is argsort's */
        cj_val perm = cj_argsort(x, 0, 1, 0);
        CHECK(tu_same_bits(cj_astype(cj_astype(ty, CJ_F32), CJ_I32), perm));
        CHECK(tu_same_bits(cj_take(x, perm, 0), y));
        /* reverse mode scatters the cotangent back: ct_x[perm[j]] = ct[j] */
        cj_val yo;
        cj_func *pb = cj_vjp(cj_func_new(ctx, "sort", sort0_fn, 1, 1, NULL), &x, &yo);
        cj_val ctx_out;
        CHECK_MSG(pb && cj_call(pb, &t, &ctx_out) == CJ_OK, "%s", cj_error_message(ctx));
        CHECK(cj_val_dtype(ctx_out) == fl[d]);
        CHECK(tu_same_bits(cj_astype(cj_astype(cj_take(ctx_out, perm, 0), CJ_F32), CJ_I32),
                           cj_iota(ctx, CJ_I32, 1, &n, 0)));
    }
    cj_ctx_free(ctx);
}

/* gather_general's jvp and vjp on f16 with u8 indices that repeat: the
 * tangent is gathered, the cotangent scatter-added in f16 (small
 * integers, so every sum is exact), against a plain loop. */
static void g16_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    cj_gather_dnums g;
    memset(&g, 0, sizeof g);
    g.offset_dims = (cj_axis_list){1, {1}};
    g.collapsed_slice_dims = (cj_axis_list){1, {0}};
    g.start_index_map = (cj_axis_list){1, {0}};
    out[0] = cj_gather(in[0], *(const cj_val *)user, &g, (int64_t[]){1, 3}, CJ_INDEX_CLIP, NULL);
}

TEST(dtype_gather_jvp_vjp_f16_with_u8_indices) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint8_t ii[6] = {2, 0, 2, 9, 1, 2}; /* 9 clips to 3 */
    cj_val idx = cj_array(ctx, CJ_U8, 2, (int64_t[]){6, 1}, ii);
    cj_val x = cj_astype(cj_reshape(cj_arange(ctx, 0, 12, 1, CJ_F32), 2, (int64_t[]){4, 3}), CJ_F16);
    cj_val t = cj_astype(cj_reshape(cj_arange(ctx, 100, 112, 1, CJ_F32), 2, (int64_t[]){4, 3}), CJ_F16);
    cj_func *f = cj_func_new(ctx, "g16", g16_fn, 1, 1, &idx);
    cj_val y, ty, yo, ct_x;
    CHECK_MSG(cj_jvp(f, &x, &t, &y, &ty) == CJ_OK, "%s", cj_error_message(ctx));
    cj_val ct = cj_astype(cj_reshape(cj_arange(ctx, 1, 19, 1, CJ_F32), 2, (int64_t[]){6, 3}), CJ_F16);
    cj_func *pb = cj_vjp(f, &x, &yo);
    CHECK_MSG(pb && cj_call(pb, &ct, &ct_x) == CJ_OK, "%s", cj_error_message(ctx));
    CHECK(cj_val_dtype(ty) == CJ_F16 && cj_val_dtype(ct_x) == CJ_F16);
    float tg[18], cx[12], want_cx[12] = {0};
    CHECK(cj_read_as(ty, CJ_F32, tg, sizeof tg) == CJ_OK && cj_read_as(ct_x, CJ_F32, cx, sizeof cx) == CJ_OK);
    for (int b = 0; b < 6; b++) {
        int r = ii[b] > 3 ? 3 : ii[b];
        for (int k = 0; k < 3; k++) {
            CHECK_MSG(tg[b * 3 + k] == (float)(100 + r * 3 + k), "tangent (%d, %d): %g", b, k, tg[b * 3 + k]);
            want_cx[r * 3 + k] += (float)(1 + b * 3 + k);
        }
    }
    for (int i = 0; i < 12; i++) CHECK_MSG(cx[i] == want_cx[i], "cotangent %d: %g, want %g", i, cx[i], want_cx[i]);
    cj_ctx_free(ctx);
}

/* ---- quantile and median ---------------------------------------------------------- */

/* Within `ulps` of the narrow float type (bit-equal for the others). */
static int near_ulps(cj_val got, cj_val want, int ulps, const char *what) {
    char g[96] = "?", w[96] = "?";
    cj_val_type_str(got, g, sizeof g);
    cj_val_type_str(want, w, sizeof w);
    if (strcmp(g, w) != 0) {
        th_fail(__FILE__, __LINE__, "%s: %s, JAX's %s (%s)", what, g, w, cj_error_message(got.ctx));
        return 0;
    }
    cj_dtype dt = cj_val_dtype(got);
    int64_t n = cj_val_size(got);
    size_t es = cj_dtype_size(dt);
    unsigned char *a = malloc((size_t)n * es + 1), *b = malloc((size_t)n * es + 1);
    int ok = cj_read(got, a, (size_t)n * es) == CJ_OK && cj_read(want, b, (size_t)n * es) == CJ_OK;
    for (int64_t i = 0; ok && i < n; i++) {
        int64_t d;
        if (es == 2) { /* f16 / bf16: their bits order as sign-magnitude integers */
            uint16_t x, y;
            memcpy(&x, a + 2 * i, 2), memcpy(&y, b + 2 * i, 2);
            int64_t ox = x & 0x8000 ? -(int64_t)(x & 0x7FFF) : x, oy = y & 0x8000 ? -(int64_t)(y & 0x7FFF) : y;
            d = llabs(ox - oy);
        } else {
            d = llabs(tu_ordered_bits(a + es * (size_t)i, dt) - tu_ordered_bits(b + es * (size_t)i, dt));
        }
        if (d > ulps) {
            th_fail(__FILE__, __LINE__, "%s: element %lld is %lld ulp from JAX's", what, (long long)i, (long long)d);
            ok = 0;
        }
    }
    free(a), free(b);
    return ok;
}

TEST(dtype_quantile_median_match_jax_dtypes_and_values) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    static const char *const methods[5] = {"linear", "lower", "higher", "midpoint", "nearest"};
    int64_t ax = 1;
    for (int d = 0; d < 2; d++) {
        const char *dn = d ? "bf16" : "f16";
        cj_val x = fxf(ctx, "q_%s_x%s", dn, "");
        for (int m = 0; m < 5; m++) {
            /* a weak q (a C double) interpolates in f32, as jnp with x64 off;
             * XLA may contract the weighted sum to an fma: 1 ulp of f16 */
            cj_val r = cj_quantile(x, cj_scalar(ctx, 0.37), 1, &ax, methods[m], 0);
            char what[64];
            snprintf(what, sizeof what, "quantile %s %s", dn, methods[m]);
            CHECK(near_ulps(r, fxf(ctx, "q_%s_weak_%s", dn, methods[m]), m == 0 ? 1 : 0, what));
        }
        /* a q of x's dtype: every step in f16 / bf16 */
        CHECK(near_ulps(cj_quantile(x, fxf(ctx, "q_%s_q%s", dn, ""), 1, &ax, NULL, 0),
                        fxf(ctx, "q_%s_strong%s", dn, ""), 1, "quantile, strong q"));
        CHECK(near_ulps(cj_median(x, -1, NULL, 0), fxf(ctx, "q_%s_median%s", dn, ""), 0, "median"));
    }
    /* integers become f32 */
    CHECK(near_ulps(cj_median(fx(ctx, "q_u8_x"), 1, &ax, 0), fx(ctx, "q_u8_median"), 0, "median u8"));
    CHECK(near_ulps(cj_median(fx(ctx, "q_i16_x"), 1, &ax, 0), fx(ctx, "q_i16_median"), 0, "median i16"));
    CHECK_MSG(cj_error(ctx) == CJ_OK, "%s", cj_error_message(ctx));
    cj_ctx_free(ctx);
}

/* ---- gather and the scatter family on the new dtypes -------------------------------- */

static cj_gather_dnums row_gather(void) {
    cj_gather_dnums g;
    memset(&g, 0, sizeof g);
    g.offset_dims = (cj_axis_list){1, {1}};
    g.collapsed_slice_dims = (cj_axis_list){1, {0}};
    g.start_index_map = (cj_axis_list){1, {0}};
    return g;
}
static cj_scatter_dnums row_scatter(int window) {
    cj_scatter_dnums s;
    memset(&s, 0, sizeof s);
    if (window) s.update_window_dims = (cj_axis_list){1, {1}};
    s.inserted_window_dims = (cj_axis_list){1, {0}};
    s.scatter_dims_to_operand_dims = (cj_axis_list){1, {0}};
    return s;
}

static void gs_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    cj_gather_dnums g = row_gather();
    cj_scatter_dnums s = row_scatter(1), l = row_scatter(0);
    const int64_t ss[2] = {1, 6};
    out[0] = cj_gather(in[0], in[1], &g, ss, CJ_INDEX_FILL_OR_DROP, NULL);
    out[1] = cj_gather(in[0], in[1], &g, ss, CJ_INDEX_CLIP, NULL);
    for (int k = 0; k < 5; k++) out[2 + k] = cj_scatter(in[0], in[2], in[3], &s, (cj_scatter_kind)k, 0);
    out[7] = cj_scatter(in[4], in[5], in[6], &l, CJ_SCATTER_ADD, 0);
}

TEST(dtype_gather_scatter_match_jax) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    for (int d = 0; d < N_NEW; d++) {
        const char *dn = cj_dtype_name(new_dts[d]);
        int64_t five = 5, three = 3, two00[2] = {200, 1};
        int32_t gi[5] = {0, 4, 2, 7, 2};
        cj_val in[7] = {fxf(ctx, "g_%s_x%s", dn, ""),
                        cj_reshape(cj_array(ctx, CJ_I32, 1, &five, gi), 2, (int64_t[]){5, 1}),
                        fxf(ctx, "s_%s_idx%s", dn, ""),
                        fxf(ctx, "s_%s_u%s", dn, ""),
                        cj_zeros(ctx, new_dts[d], 1, &three),
                        cj_full(ctx, 1, CJ_I32, 2, two00),
                        fxf(ctx, "s_%s_long_u%s", dn, "")};
        cj_val want[8] = {fxf(ctx, "g_%s_fill%s", dn, ""), fxf(ctx, "g_%s_clip%s", dn, ""),
                          fxf(ctx, "s_%s_set%s", dn, ""),  fxf(ctx, "s_%s_add%s", dn, ""),
                          fxf(ctx, "s_%s_mul%s", dn, ""),  fxf(ctx, "s_%s_min%s", dn, ""),
                          fxf(ctx, "s_%s_max%s", dn, ""),  fxf(ctx, "s_%s_long_add%s", dn, "")};
        char nm[8][48];
        const char *names[8];
        static const char *const what[8] = {"gather fill", "gather clip", "scatter", "scatter_add",
                                            "scatter_mul", "scatter_min", "scatter_max", "200 adds to one"};
        for (int k = 0; k < 8; k++) snprintf(nm[k], sizeof nm[k], "%s %s", what[k], dn), names[k] = nm[k];
        three_ways(ctx, cj_func_new(ctx, "gs", gs_fn, 7, 8, NULL), in, 8, want, names);
    }
    cj_ctx_free(ctx);
}

/* Index operands of every integer dtype: out-of-range values on both
 * sides (-1; an unsigned type's largest value), through gather_general,
 * scatter_general, the one-axis take (clamping) and x.at[i].add (negative
 * indices wrap, out of range drops). */
static void gi_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    cj_gather_dnums g = row_gather();
    cj_scatter_dnums s = row_scatter(1);
    const int64_t ss[2] = {1, 6};
    out[0] = cj_gather(in[0], in[1], &g, ss, CJ_INDEX_FILL_OR_DROP, NULL);
    out[1] = cj_gather(in[0], in[1], &g, ss, CJ_INDEX_CLIP, NULL);
    out[2] = cj_scatter(in[0], in[1], in[2], &s, CJ_SCATTER_ADD, 0);
    cj_val flat = cj_reshape(in[1], 1, (int64_t[]){5});
    out[3] = cj_take(in[0], flat, 0);
    out[4] = cj_at_add(in[0], 0, flat, in[2]);
}

TEST(dtype_index_operands_of_every_integer_dtype_match_jax) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    for (int d = 0; d < 8; d++) {
        const char *in_ = cj_dtype_name(index_dts[d]);
        cj_val in[3] = {fx(ctx, "gi_x"), fxf(ctx, "gi_%s_idx%s", in_, ""),
                        cj_reshape(cj_arange(ctx, 0, 30, 1, CJ_F32), 2, (int64_t[]){5, 6})};
        CHECK(cj_val_dtype(in[1]) == index_dts[d]);
        cj_val want[5] = {fxf(ctx, "gi_%s_fill%s", in_, ""), fxf(ctx, "gi_%s_clip%s", in_, ""),
                          fxf(ctx, "gi_%s_add%s", in_, ""), fxf(ctx, "gi_%s_take%s", in_, ""),
                          fxf(ctx, "gi_%s_at_add%s", in_, "")};
        char nm[5][48];
        const char *names[5];
        static const char *const what[5] = {"gather fill", "gather clip", "scatter_add", "take", ".at[].add"};
        for (int k = 0; k < 5; k++) snprintf(nm[k], sizeof nm[k], "%s, %s indices", what[k], in_), names[k] = nm[k];
        three_ways(ctx, cj_func_new(ctx, "gi", gi_fn, 3, 5, NULL), in, 5, want, names);
    }
    /* i8 indices on an axis of 200: -1 wraps to 199, -128 to 72 (JAX 0.10
     * raises OverflowError here; the reference indexes with i16) */
    CHECK(same(cj_at_add(fx(ctx, "at_i8_x"), 0, fx(ctx, "at_i8_idx"), fx(ctx, "at_i8_u")), fx(ctx, "at_i8_add"),
               "x.at[i8].add on 200 elements", "eager"));
    cj_ctx_free(ctx);
}

/* vmap of a gather and a scatter_add over f16 operands with batched u8
 * indices, against a loop of single calls. */
static void vg_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    cj_gather_dnums g = row_gather();
    cj_scatter_dnums s = row_scatter(1);
    const int64_t ss[2] = {1, 6};
    out[0] = cj_gather(in[0], in[1], &g, ss, CJ_INDEX_CLIP, NULL);
    out[1] = cj_scatter(in[0], in[1], in[2], &s, CJ_SCATTER_ADD, 0);
}

TEST(dtype_gather_scatter_vmap_matches_loop) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t B = 3;
    uint8_t idx[3][4] = {{0, 4, 4, 9}, {1, 1, 1, 1}, {3, 2, 0, 255}};
    cj_val x = cj_astype(cj_reshape(cj_arange(ctx, -40, 50, 1, CJ_F32), 3, (int64_t[]){3, 5, 6}), CJ_F16);
    cj_val iv = cj_array(ctx, CJ_U8, 3, (int64_t[]){3, 4, 1}, idx);
    cj_val u = cj_astype(cj_mul(cj_reshape(cj_arange(ctx, 0, 72, 1, CJ_F32), 3, (int64_t[]){3, 4, 6}),
                                cj_scalar(ctx, 0.37)),
                         CJ_F16);
    cj_func *f = cj_func_new(ctx, "vg", vg_fn, 3, 2, NULL);
    cj_val in[3] = {x, iv, u}, yv[2];
    CHECK_MSG(cj_call(cj_vmap(f, NULL), in, yv) == CJ_OK, "%s", cj_error_message(ctx));
    for (int64_t b = 0; b < B; b++) {
        cj_val one[3], ys[2];
        for (int k = 0; k < 3; k++) {
            cj_val v = in[k];
            int64_t shape[8];
            int rank = cj_val_shape(v, shape);
            int64_t lo[8] = {b}, hi[8] = {b + 1};
            for (int d = 1; d < rank; d++) lo[d] = 0, hi[d] = shape[d];
            one[k] = cj_reshape(cj_slice(v, lo, hi, NULL), rank - 1, shape + 1);
        }
        CHECK(cj_call(f, one, ys) == CJ_OK);
        for (int k = 0; k < 2; k++) {
            int64_t shape[8];
            int rank = cj_val_shape(yv[k], shape);
            int64_t lo[8] = {b}, hi[8] = {b + 1};
            for (int d = 1; d < rank; d++) lo[d] = 0, hi[d] = shape[d];
            CHECK_MSG(tu_same_bits(cj_reshape(cj_slice(yv[k], lo, hi, NULL), rank - 1, shape + 1), ys[k]),
                      "example %lld output %d: vmap differs from the loop", (long long)b, k);
        }
    }
    cj_ctx_free(ctx);
}

/* dynamic_slice / dynamic_update_slice with start indices of the new
 * integer dtypes (clamped so the window fits), eager and both backends. */
static void ds_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    cj_val st[2] = {in[1], in[2]};
    const int64_t sz[2] = {2, 3};
    out[0] = cj_dynamic_slice(in[0], st, sz);
    out[1] = cj_dynamic_update_slice(in[0], cj_zeros(ctx, CJ_F32, 2, sz), st);
}

TEST(dtype_dynamic_slice_start_indices_of_new_dtypes) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val x = cj_reshape(cj_arange(ctx, 0, 30, 1, CJ_F32), 2, (int64_t[]){5, 6});
    for (int d = 0; d < 8; d++) {
        cj_dtype it = index_dts[d];
        /* (1, 200, -2 or -9): as lax, a negative start wraps once (-2 → 4),
         * then every start clamps so the window fits (200, 4 → 3; -3 → 0) */
        int neg = !(it == CJ_U8 || it == CJ_U16 || it == CJ_U32 || it == CJ_U64);
        double s2 = neg ? (d % 2 ? -2 : -9) : 200;
        cj_val in[3] = {x, cj_scalar_typed(ctx, 1, it), cj_scalar_typed(ctx, s2, it)};
        int64_t c = s2 == -9 ? 0 : 3;
        float ws[6], wu[30];
        for (int i = 0; i < 6; i++) ws[i] = (float)((1 + i / 3) * 6 + c + i % 3);
        for (int i = 0; i < 30; i++) wu[i] = (i / 6 >= 1 && i / 6 < 3 && i % 6 >= c && i % 6 < c + 3) ? 0.0f : (float)i;
        cj_val want[2] = {cj_array(ctx, CJ_F32, 2, (int64_t[]){2, 3}, ws), cj_array(ctx, CJ_F32, 2, (int64_t[]){5, 6}, wu)};
        const char *names[2] = {"dynamic_slice", "dynamic_update_slice"};
        three_ways(ctx, cj_func_new(ctx, "ds", ds_fn, 3, 2, NULL), in, 2, want, names);
    }
    cj_ctx_free(ctx);
}

/* ---- index_vector_dim --------------------------------------------------------------- */

static void ivd_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    /* (a) vectors of 2 on axis 0 of [2, 3, 2] */
    cj_gather_dnums a;
    memset(&a, 0, sizeof a);
    a.offset_dims = (cj_axis_list){1, {2}};
    a.collapsed_slice_dims = (cj_axis_list){2, {0, 1}};
    a.start_index_map = (cj_axis_list){2, {0, 1}};
    a.has_index_vector_dim = 1, a.index_vector_dim = 0;
    out[0] = cj_gather(in[0], in[1], &a, (int64_t[]){1, 1, 6}, 0, NULL);
    /* (b) scalar indices [3, 2]: index_vector_dim = their rank */
    cj_gather_dnums b;
    memset(&b, 0, sizeof b);
    b.offset_dims = (cj_axis_list){2, {2, 3}};
    b.collapsed_slice_dims = (cj_axis_list){1, {1}};
    b.start_index_map = (cj_axis_list){1, {1}};
    b.has_index_vector_dim = 1, b.index_vector_dim = 2;
    out[1] = cj_gather(in[0], in[2], &b, (int64_t[]){4, 1, 6}, 0, NULL);
    /* (c) [3, K=1, B=4] with the vector in the middle; x's axis 0 pairs with
     * the indices' axis 2 */
    cj_gather_dnums c;
    memset(&c, 0, sizeof c);
    c.offset_dims = (cj_axis_list){1, {2}};
    c.collapsed_slice_dims = (cj_axis_list){1, {1}};
    c.start_index_map = (cj_axis_list){1, {1}};
    c.operand_batching_dims = (cj_axis_list){1, {0}};
    c.start_indices_batching_dims = (cj_axis_list){1, {2}};
    c.has_index_vector_dim = 1, c.index_vector_dim = 1;
    out[2] = cj_gather(in[0], in[3], &c, (int64_t[]){1, 1, 6}, 0, NULL);
    cj_scatter_dnums sa;
    memset(&sa, 0, sizeof sa);
    sa.update_window_dims = (cj_axis_list){1, {2}};
    sa.inserted_window_dims = (cj_axis_list){2, {0, 1}};
    sa.scatter_dims_to_operand_dims = (cj_axis_list){2, {0, 1}};
    sa.has_index_vector_dim = 1, sa.index_vector_dim = 0;
    out[3] = cj_scatter(in[0], in[1], in[4], &sa, CJ_SCATTER_ADD, 0);
    cj_scatter_dnums sc;
    memset(&sc, 0, sizeof sc);
    sc.update_window_dims = (cj_axis_list){1, {2}};
    sc.inserted_window_dims = (cj_axis_list){1, {1}};
    sc.scatter_dims_to_operand_dims = (cj_axis_list){1, {1}};
    sc.operand_batching_dims = (cj_axis_list){1, {0}};
    sc.scatter_indices_batching_dims = (cj_axis_list){1, {2}};
    sc.has_index_vector_dim = 1, sc.index_vector_dim = 1;
    out[4] = cj_scatter(in[0], in[3], in[5], &sc, CJ_SCATTER_MAX, 0);
}

TEST(index_vector_dim_gathers_and_scatters_match_jax) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val in[6] = {fx(ctx, "ivd_x"), fx(ctx, "ivd0_idx"), fx(ctx, "ivdr_idx"),
                    fx(ctx, "ivd1_idx"), fx(ctx, "ivd0_u"), fx(ctx, "ivd1_u")};
    cj_val want[5] = {fx(ctx, "ivd0_gather"), fx(ctx, "ivdr_gather"), fx(ctx, "ivd1_gather"),
                      fx(ctx, "ivd0_scatter_add"), fx(ctx, "ivd1_scatter_max")};
    const char *names[5] = {"gather, index_vector_dim 0", "gather, scalar indices", "gather, index_vector_dim 1 "
                            "with batching dims", "scatter_add, index_vector_dim 0",
                            "scatter_max, index_vector_dim 1 with batching dims"};
    cj_func *f = cj_func_new(ctx, "ivd", ivd_fn, 6, 5, NULL);
    three_ways(ctx, f, in, 5, want, names);
    /* (a) by a plain loop: out[i, j, :] = x[idx[0, i, j], idx[1, i, j], :]
     * (FILL_OR_DROP: NaN where a start is out of range) */
    cj_val out[5];
    CHECK(cj_call(f, in, out) == CJ_OK);
    float x[120], got[36];
    int32_t idx[12];
    CHECK(cj_read(in[0], x, sizeof x) == CJ_OK && cj_read(in[1], idx, sizeof idx) == CJ_OK);
    CHECK(cj_read(out[0], got, sizeof got) == CJ_OK);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++) {
            int a = idx[i * 2 + j], b = idx[6 + i * 2 + j];
            for (int k = 0; k < 6; k++) {
                float w = a < 4 && b < 5 ? x[a * 30 + b * 6 + k] : NAN, g = got[(i * 2 + j) * 6 + k];
                CHECK_MSG(isnan(w) ? isnan(g) : g == w, "(%d, %d, %d): %g, want %g", i, j, k, g, w);
            }
        }
    /* under vmap (x mapped, the indices not): the loop over x's examples */
    cj_vmap_opts vo = {(int64_t[]){0, CJ_NOT_MAPPED, CJ_NOT_MAPPED, CJ_NOT_MAPPED, CJ_NOT_MAPPED, CJ_NOT_MAPPED},
                       NULL, 0, 0, 0};
    cj_val xs = cj_stack(2, (cj_val[]){in[0], cj_neg(in[0])}, 0), vin[6] = {xs, in[1], in[2], in[3], in[4], in[5]};
    cj_val yv[5];
    CHECK_MSG(cj_call(cj_vmap(f, &vo), vin, yv) == CJ_OK, "%s", cj_error_message(ctx));
    cj_val neg[6] = {cj_neg(in[0]), in[1], in[2], in[3], in[4], in[5]}, yn[5];
    CHECK(cj_call(f, neg, yn) == CJ_OK);
    for (int k = 0; k < 5; k++) {
        int64_t shape[8];
        int rank = cj_val_shape(yv[k], shape);
        int64_t lo[8] = {1}, hi[8] = {2};
        for (int d = 1; d < rank; d++) lo[d] = 0, hi[d] = shape[d];
        CHECK_MSG(tu_same_bits(cj_reshape(cj_slice(yv[k], lo, hi, NULL), rank - 1, shape + 1), yn[k]),
                  "%s: vmap differs from the single call", names[k]);
    }
    cj_ctx_free(ctx);
}

/* ---- errors ---------------------------------------------------------------------------- */

static void expect_error(cj_ctx *ctx, cj_val v, const char *needle) {
    CHECK_MSG(cj_is_error(v), "no error (expected '%s')", needle);
    CHECK_STR_CONTAINS(cj_error_message(ctx), needle);
    cj_error_clear(ctx);
}

TEST(dtype_index_errors_name_op_and_dtype) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val x = cj_zeros(ctx, CJ_F16, 2, (int64_t[]){5, 6});
    cj_gather_dnums g = row_gather();
    cj_scatter_dnums s = row_scatter(1);
    const int64_t ss[2] = {1, 6};
    cj_val fi = cj_zeros(ctx, CJ_F16, 2, (int64_t[]){3, 1}), bi = cj_zeros(ctx, CJ_BOOL, 2, (int64_t[]){3, 1});
    expect_error(ctx, cj_gather(x, fi, &g, ss, 0, NULL),
                 "gather_general: indices must have an integer dtype (i8 ... i64, u8 ... u64), got f16[3,1]");
    expect_error(ctx, cj_gather(x, bi, &g, ss, 0, NULL), "got bool[3,1]");
    expect_error(ctx, cj_scatter(x, fi, cj_zeros(ctx, CJ_F16, 2, (int64_t[]){3, 6}), &s, CJ_SCATTER_ADD, 0),
                 "scatter_general: indices must have an integer dtype");
    expect_error(ctx, cj_take(x, cj_zeros(ctx, CJ_BF16, 1, (int64_t[]){2}), 0),
                 "gather: indices must have an integer dtype (i8 ... i64, u8 ... u64), got bf16[2]");
    /* index_vector_dim out of range, or one of the batching dims */
    cj_val ii = cj_zeros(ctx, CJ_U16, 2, (int64_t[]){1, 3});
    g.has_index_vector_dim = 1, g.index_vector_dim = 3;
    expect_error(ctx, cj_gather(x, ii, &g, ss, 0, NULL),
                 "gather_general: index_vector_dim 3 is out of range for indices u16[1,3] (0 to 2)");
    g.index_vector_dim = 0; /* a vector of 1 on axis 0: fine */
    cj_val r = cj_gather(x, ii, &g, ss, 0, NULL);
    int64_t shape[4];
    CHECK_MSG(!cj_is_error(r) && cj_val_shape(r, shape) == 2 && shape[0] == 3 && shape[1] == 6, "%s",
              cj_error_message(ctx));
    cj_gather_dnums gb;
    memset(&gb, 0, sizeof gb);
    gb.offset_dims = (cj_axis_list){1, {1}};
    gb.collapsed_slice_dims = (cj_axis_list){0, {0}};
    gb.start_index_map = (cj_axis_list){1, {1}};
    gb.operand_batching_dims = (cj_axis_list){1, {0}};
    gb.start_indices_batching_dims = (cj_axis_list){1, {0}};
    gb.has_index_vector_dim = 1, gb.index_vector_dim = 0;
    expect_error(ctx, cj_gather(x, ii, &gb, ss, 0, NULL),
                 "gather_general: start_indices_batching_dims contains index_vector_dim 0");
    s.has_index_vector_dim = 1, s.index_vector_dim = -1;
    expect_error(ctx, cj_scatter(x, ii, cj_zeros(ctx, CJ_F16, 2, (int64_t[]){3, 6}), &s, CJ_SCATTER_ADD, 0),
                 "scatter_general: index_vector_dim -1 is out of range");
    /* every dtype sorts; the shape rules still check axes */
    expect_error(ctx, cj_sort(cj_zeros(ctx, CJ_U64, 1, (int64_t[]){4}), 1), "axis 1");
    cj_val v, i;
    CHECK(cj_top_k(cj_zeros(ctx, CJ_BF16, 1, (int64_t[]){4}), 5, &v, &i) != CJ_OK);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "top_k: k must be in [0, 4] (the last axis of bf16[4]), got 5");
    cj_error_clear(ctx);
    cj_ctx_free(ctx);
}
