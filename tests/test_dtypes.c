/* test_dtypes.c — the dtypes added after f64 (i8, i16, u8, u16, u32, u64,
 * f16, bf16; issue 17): their table entries, .npy files, JAX's promotion
 * lattice over every pair of operand types, convert_element_type between
 * every pair of dtypes against XLA on CPU, f32 → bf16 / f16 rounding against
 * an independent reference, and the errors of primitives that do not take
 * them yet.
 *
 * Fixtures: tests/data/dtypes/ (tests/data/gen_dtype_fixtures.py, JAX 0.10
 * on CPU). */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "api/api.h"
#include "harness.h"
#include "runtime/runtime.h"
#include "test_util.h"

/* ---- the table ---- */

TEST(dtypes_table_names_sizes_and_numbering) {
    /* the first five keep their numbers; the new ones follow */
    CHECK_EQ_INT(CJ_BOOL, 0);
    CHECK_EQ_INT(CJ_F64, 4);
    CHECK_EQ_INT(CJ_I8, 5);
    CHECK_EQ_INT(CJ_BF16, 12);
    CHECK_EQ_INT(CJ_NUM_DTYPES, 13);
    static const struct {
        cj_dtype dt;
        const char *name;
        size_t size;
        int is_float, is_int, is_unsigned;
    } want[] = {
        {CJ_BOOL, "bool", 1, 0, 0, 0}, {CJ_I8, "i8", 1, 0, 1, 0},     {CJ_I16, "i16", 2, 0, 1, 0},
        {CJ_I32, "i32", 4, 0, 1, 0},   {CJ_I64, "i64", 8, 0, 1, 0},   {CJ_U8, "u8", 1, 0, 1, 1},
        {CJ_U16, "u16", 2, 0, 1, 1},   {CJ_U32, "u32", 4, 0, 1, 1},   {CJ_U64, "u64", 8, 0, 1, 1},
        {CJ_F16, "f16", 2, 1, 0, 0},   {CJ_BF16, "bf16", 2, 1, 0, 0}, {CJ_F32, "f32", 4, 1, 0, 0},
        {CJ_F64, "f64", 8, 1, 0, 0},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        CHECK_STR_CONTAINS(cj_dtype_name(want[i].dt), want[i].name);
        CHECK(strlen(cj_dtype_name(want[i].dt)) == strlen(want[i].name));
        CHECK(cj_dtype_size(want[i].dt) == want[i].size);
        CHECK(rt_is_float(want[i].dt) == want[i].is_float);
        CHECK(rt_is_int(want[i].dt) == want[i].is_int);
        CHECK(rt_is_unsigned(want[i].dt) == want[i].is_unsigned);
    }
    CHECK_STR_CONTAINS(cj_dtype_name((cj_dtype)13), "?");
    CHECK(cj_dtype_size((cj_dtype)13) == 0);
}

/* ---- .npy ---- */

static void tmp_path(char *buf, size_t n, const char *tag) {
    snprintf(buf, n, "/tmp/cjax_test_dtypes_%d_%s.npy", (int)getpid(), tag);
}

TEST(dtypes_npy_round_trip_and_descriptors) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    char path[128];
    tmp_path(path, sizeof path, "rt");
    static const char *const descr[CJ_NUM_DTYPES] = {
        [CJ_BOOL] = "|b1", [CJ_I8] = "|i1",  [CJ_I16] = "<i2", [CJ_I32] = "<i4", [CJ_I64] = "<i8",
        [CJ_U8] = "|u1",   [CJ_U16] = "<u2", [CJ_U32] = "<u4", [CJ_U64] = "<u8", [CJ_F16] = "<f2",
        [CJ_BF16] = "<V2", [CJ_F32] = "<f4", [CJ_F64] = "<f8"};
    for (int dt = 0; dt < CJ_NUM_DTYPES; dt++) {
        int64_t d[2] = {3, 5};
        unsigned char raw[15 * 8];
        for (size_t i = 0; i < sizeof raw; i++) raw[i] = (unsigned char)(i * 37 + (size_t)dt);
        if (dt == CJ_BOOL)
            for (size_t i = 0; i < 15; i++) raw[i] &= 1;
        cj_val a = cj_array(ctx, (cj_dtype)dt, 2, d, raw);
        CHECK(cj_save_npy(a, path) == CJ_OK);
        FILE *f = fopen(path, "rb");
        char head[129] = {0};
        CHECK(f && fread(head, 1, 128, f) == 128);
        if (f) fclose(f);
        char want[64];
        snprintf(want, sizeof want, "'descr': '%s'", descr[dt]);
        CHECK_STR_CONTAINS(head + 10, want);
        cj_val b = cj_load_npy(ctx, path);
        CHECK_MSG(!cj_is_error(b), "%s", cj_error_message(ctx));
        CHECK(cj_val_dtype(b) == (cj_dtype)dt);
        CHECK(tu_same_bits(a, b));
    }
    unlink(path);
    CHECK(cj_error(ctx) == CJ_OK);
    cj_ctx_free(ctx);
}

static cj_val load_fixture(cj_ctx *ctx, const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/dtypes/%s.npy", CJAX_TEST_DATA_DIR, name);
    return cj_load_npy(ctx, path);
}

/* Files written by numpy.save (bfloat16 through ml_dtypes, a '<V2'). */
TEST(dtypes_npy_reads_numpy_files) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    const double vals[8] = {1.0, -2.5, 0.0, -0.0, INFINITY, NAN, 3.140625, 1e-3};
    cj_val h = load_fixture(ctx, "numpy_f16"), b = load_fixture(ctx, "numpy_bf16");
    CHECK_MSG(!cj_is_error(h) && !cj_is_error(b), "%s", cj_error_message(ctx));
    CHECK(cj_val_dtype(h) == CJ_F16 && cj_val_dtype(b) == CJ_BF16);
    CHECK(cj_val_rank(b) == 2 && cj_val_dim(b, 0) == 2 && cj_val_dim(b, 1) == 4);
    double gh[8], gb[8];
    CHECK(cj_read_as(h, CJ_F64, gh, sizeof gh) == CJ_OK);
    CHECK(cj_read_as(b, CJ_F64, gb, sizeof gb) == CJ_OK);
    for (int i = 0; i < 8; i++) {
        if (isnan(vals[i])) {
            CHECK(isnan(gh[i]) && isnan(gb[i]));
            continue;
        }
        /* f16 and bf16 round 1e-3 differently; the others are exact */
        double th = i == 7 ? 0.0010004043579101562 : vals[i], tb = i == 7 ? 0.00099945068359375 : vals[i];
        CHECK_MSG(gh[i] == th && gb[i] == tb, "element %d: f16 %.17g bf16 %.17g", i, gh[i], gb[i]);
        CHECK(!signbit(gh[i]) == !signbit(vals[i]) && !signbit(gb[i]) == !signbit(vals[i]));
    }
    cj_val u = load_fixture(ctx, "numpy_u8");
    uint8_t gu[6];
    CHECK(cj_val_dtype(u) == CJ_U8 && cj_read(u, gu, sizeof gu) == CJ_OK);
    CHECK(gu[0] == 0 && gu[2] == 127 && gu[3] == 128 && gu[4] == 255 && gu[5] == 7);
    /* a big-endian void has no meaning as bfloat16 */
    char path[128];
    tmp_path(path, sizeof path, "bev2");
    FILE *f = fopen(path, "wb");
    const char dict[] = "{'descr': '>V2', 'fortran_order': False, 'shape': (1,), }";
    unsigned char file[128] = "\x93NUMPY\x01\x00";
    size_t dl = sizeof dict - 1;
    file[8] = 118, file[9] = 0;
    memcpy(file + 10, dict, dl);
    memset(file + 10 + dl, ' ', 128 - 10 - dl - 1);
    file[127] = '\n';
    fwrite(file, 1, 128, f);
    fwrite("\x3f\x80", 1, 2, f);
    fclose(f);
    cj_val bad = cj_load_npy(ctx, path);
    CHECK(cj_is_error(bad) && cj_error(ctx) == CJ_ERR_FORMAT);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "dtype '>V2' is not supported");
    unlink(path);
    cj_ctx_free(ctx);
}

/* ---- promotion ---- */

/* Every pair of 25 operand types (13 strong dtypes, 12 weak ones) against
 * what jnp.maximum gives in JAX. Rows from x64-enabled JAX (an operand of
 * 64-bit dtype) whose result is a weak i64 or f64: that is JAX's x64
 * default for a weak result, where cjax gives its x64-off default (i32 or
 * f32, or a weak operand's i64/f64), so those rows check the kind, the weak
 * flag and cjax's rule; every other row must agree exactly. */
TEST(dtypes_promotion_every_pair_against_jax) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val t = load_fixture(ctx, "promotion");
    CHECK_MSG(!cj_is_error(t), "%s", cj_error_message(ctx));
    CHECK(cj_val_dtype(t) == CJ_I32 && cj_val_rank(t) == 2 && cj_val_dim(t, 1) == 7);
    int64_t rows = cj_val_dim(t, 0);
    CHECK_EQ_INT(rows, 25 * 25);
    int32_t *r = malloc(sizeof(int32_t) * (size_t)rows * 7);
    CHECK(cj_read(t, r, sizeof(int32_t) * (size_t)rows * 7) == CJ_OK);
    int exact = 0, by_kind = 0;
    for (int64_t i = 0; i < rows; i++) {
        const int32_t *row = r + i * 7;
        cj_dtype a = (cj_dtype)row[0], b = (cj_dtype)row[2], want = (cj_dtype)row[4];
        int aw = row[1], bw = row[3], want_weak = row[5], x64 = row[6];
        cj_dtype got;
        int got_weak;
        api_join_types(a, aw, b, bw, &got, &got_weak);
        bool kind_only = x64 && want_weak && (want == CJ_I64 || want == CJ_F64);
        bool ok = got_weak == want_weak &&
                  (kind_only ? rt_is_float(got) == rt_is_float(want) && rt_is_int(got) == rt_is_int(want)
                             : got == want);
        if (kind_only) {
            by_kind++;
            /* cjax's rule for those: the x64-off default, or a weak 64-bit operand's dtype */
            cj_dtype d = rt_is_float(want) ? ((a == CJ_F64 && aw) || (b == CJ_F64 && bw) ? CJ_F64 : CJ_F32)
                                           : ((a == CJ_I64 && aw) || (b == CJ_I64 && bw) ? CJ_I64 : CJ_I32);
            ok = ok && got == d;
        } else {
            exact++;
        }
        CHECK_MSG(ok, "%s%s with %s%s: got %s%s, JAX gives %s%s%s", cj_dtype_name(a), aw ? " (weak)" : "",
                  cj_dtype_name(b), bw ? " (weak)" : "", cj_dtype_name(got), got_weak ? " (weak)" : "",
                  cj_dtype_name(want), want_weak ? " (weak)" : "", x64 ? " with x64" : "");
        /* the join is symmetric */
        cj_dtype g2;
        int w2;
        api_join_types(b, bw, a, aw, &g2, &w2);
        CHECK(g2 == got && w2 == got_weak);
    }
    CHECK(exact > 500 && by_kind > 0);
    free(r);
    cj_ctx_free(ctx);
}

/* A few joins named, as JAX's documentation shows them. */
TEST(dtypes_promotion_named_cases) {
    struct {
        cj_dtype a;
        int aw;
        cj_dtype b;
        int bw;
        cj_dtype want;
        int want_weak;
    } cases[] = {
        {CJ_U8, 0, CJ_I8, 0, CJ_I16, 0},   {CJ_U32, 0, CJ_I32, 0, CJ_I32, 0}, /* x64 off */
        {CJ_U32, 0, CJ_I64, 0, CJ_I64, 0}, {CJ_U64, 0, CJ_I64, 0, CJ_F32, 1},
        {CJ_BF16, 0, CJ_F16, 0, CJ_F32, 0}, {CJ_BF16, 0, CJ_F32, 1, CJ_BF16, 0},
        {CJ_U8, 0, CJ_I32, 1, CJ_U8, 0},   {CJ_F16, 0, CJ_I64, 0, CJ_F16, 0},
        {CJ_U16, 0, CJ_BOOL, 0, CJ_U16, 0}, {CJ_I8, 1, CJ_F16, 1, CJ_F16, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cj_dtype got;
        int w;
        api_join_types(cases[i].a, cases[i].aw, cases[i].b, cases[i].bw, &got, &w);
        CHECK_MSG(got == cases[i].want && w == cases[i].want_weak, "case %zu: %s%s", i, cj_dtype_name(got),
                  w ? " (weak)" : "");
    }
    /* jnp's to_inexact: u64 → f64 like i64, narrower integers → f32, floats stay */
    CHECK(api_inexact_dtype(CJ_U64) == CJ_F64 && api_inexact_dtype(CJ_U8) == CJ_F32);
    CHECK(api_inexact_dtype(CJ_BF16) == CJ_BF16 && api_inexact_dtype(CJ_I16) == CJ_F32);
}

/* ---- conversions against XLA ---- */

/* A fixture of dtype `dt` (f16/bf16 files hold the bits as u16). */
static cj_val load_as(cj_ctx *ctx, const char *name, cj_dtype dt) {
    cj_val v = load_fixture(ctx, name);
    if (cj_is_error(v) || !rt_is_narrow_float(dt)) return v;
    int64_t n = cj_val_size(v);
    uint16_t *bits = malloc(sizeof(uint16_t) * (size_t)(n ? n : 1));
    cj_read(v, bits, sizeof(uint16_t) * (size_t)n);
    cj_val r = cj_array(ctx, dt, 1, &n, bits);
    free(bits);
    return r;
}

static bool is_nan_bits(cj_dtype dt, const unsigned char *p) {
    if (dt == CJ_F32) {
        uint32_t u;
        memcpy(&u, p, 4);
        return (u & 0x7fffffffu) > 0x7f800000u;
    }
    if (dt == CJ_F64) {
        uint64_t u;
        memcpy(&u, p, 8);
        return (u & 0x7fffffffffffffffull) > 0x7ff0000000000000ull;
    }
    return false;
}

/* XLA's CPU backend runs with subnormals flushed to zero (FTZ and DAZ in
 * the floating-point unit): an f32 or f64 operation that reads or makes a
 * value below f32's least normal, 2^-126, gives ±0 there (bf16 shares
 * f32's exponent; f16's conversions are integer code in XLA and keep
 * them). cjax keeps IEEE subnormals, so those elements are the one
 * documented difference: a nonzero source below 2^-126 in magnitude whose
 * XLA result is zero (false, ±0). */
static bool flushed_by_xla(cj_dtype from, double x, cj_dtype to, const unsigned char *xla) {
    if (from == CJ_F16 || to == CJ_F16 || !rt_is_float(from) || x == 0 || !(fabs(x) < 0x1p-126)) return false;
    unsigned char zero[8] = {0};
    size_t es = cj_dtype_size(to);
    if (!memcmp(xla, zero, es)) return true;
    zero[es - 1] = 0x80; /* -0.0, little-endian */
    return rt_is_float(to) && !memcmp(xla, zero, es);
}

TEST(dtypes_convert_every_pair_against_xla) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int pairs = 0, flushed = 0;
    for (int a = 0; a < CJ_NUM_DTYPES; a++) {
        char name[64];
        snprintf(name, sizeof name, "conv_src_%s", cj_dtype_name((cj_dtype)a));
        cj_val x = load_as(ctx, name, (cj_dtype)a);
        CHECK_MSG(!cj_is_error(x) && cj_val_dtype(x) == (cj_dtype)a, "%s: %s", name, cj_error_message(ctx));
        double *xv = tu_read_f64(cj_astype(x, CJ_F64));
        for (int b = 0; b < CJ_NUM_DTYPES; b++) {
            snprintf(name, sizeof name, "conv_%s_%s", cj_dtype_name((cj_dtype)a), cj_dtype_name((cj_dtype)b));
            cj_val want = load_as(ctx, name, (cj_dtype)b);
            cj_val got = cj_astype(x, (cj_dtype)b);
            CHECK_MSG(!cj_is_error(want) && !cj_is_error(got), "%s: %s", name, cj_error_message(ctx));
            int64_t n = cj_val_size(x);
            CHECK(cj_val_size(want) == n && cj_val_dtype(got) == (cj_dtype)b);
            size_t es = cj_dtype_size((cj_dtype)b), bytes = es * (size_t)n;
            unsigned char *g = malloc(bytes + 1), *w = malloc(bytes + 1);
            CHECK(cj_read(got, g, bytes) == CJ_OK && cj_read(want, w, bytes) == CJ_OK);
            int bad = 0;
            for (int64_t i = 0; i < n && bad < 3; i++) {
                if (!memcmp(g + (size_t)i * es, w + (size_t)i * es, es)) continue;
                if (xv && flushed_by_xla((cj_dtype)a, xv[i], (cj_dtype)b, w + (size_t)i * es)) {
                    flushed++;
                    continue;
                }
                bad++;
                unsigned long long gb = 0, wb = 0;
                memcpy(&gb, g + (size_t)i * es, es);
                memcpy(&wb, w + (size_t)i * es, es);
                double xi;
                cj_val xe = cj_astype(x, CJ_F64);
                double *all = tu_read_f64(xe);
                xi = all ? all[i] : NAN;
                free(all);
                th_fail(__FILE__, __LINE__, "%s element %lld (%.17g): bits %#llx, XLA %#llx%s", name, (long long)i,
                        xi, gb, wb, is_nan_bits((cj_dtype)b, w + (size_t)i * es) ? " (NaN)" : "");
            }
            free(g);
            free(w);
            pairs++;
        }
        free(xv);
    }
    CHECK_EQ_INT(pairs, CJ_NUM_DTYPES * CJ_NUM_DTYPES);
    /* the fixtures hold subnormal and tiny inputs on purpose */
    CHECK(flushed > 0);
    CHECK(cj_error(ctx) == CJ_OK);
    cj_ctx_free(ctx);
}

/* ---- f32 → bf16 and f32 → f16 over (nearly) every bit pattern ----
 *
 * The references below round by a different route than half.h: they pick
 * between the two neighbouring representable values by comparing
 * distances (bf16), or scale by the quantum and round with rint in double
 * arithmetic, where every f32 value, quotient and midpoint is exact (f16).
 * The library converts through rt_convert, the element converter every
 * convert_element_type runs. Every 7th pattern is checked (7 is odd, so the
 * sample meets every residue of the low bits) plus, for every sign and
 * exponent, all patterns whose discarded bits lie near a tie or a carry;
 * -DDTYPES_STRIDE=1 checks all 2^32. */
#ifndef DTYPES_STRIDE
#define DTYPES_STRIDE 7
#endif

static float f32_of(uint32_t u) {
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

static uint16_t ref_bf16(uint32_t u) {
    float x = f32_of(u);
    if (isnan(x)) return (uint16_t)((u >> 31) << 15 | 0x7fc0u);
    uint16_t lo = (uint16_t)(u >> 16), hi = (uint16_t)(lo + 1);
    /* magnitudes of the two candidates; past the largest finite bf16 the
     * next one up would be 2^128 */
    double ax = fabs((double)x), vlo = fabs((double)f32_of((uint32_t)lo << 16));
    double vhi = (lo & 0x7fffu) == 0x7f7fu ? ldexp(1.0, 128) : fabs((double)f32_of((uint32_t)hi << 16));
    if ((lo & 0x7fffu) == 0x7f80u) return lo; /* ±inf */
    double dlo = ax - vlo, dhi = vhi - ax;
    if (dlo < dhi || (dlo == dhi && !(lo & 1))) return lo;
    return hi; /* 0x7f7f + 1 is 0x7f80, inf */
}

static uint16_t ref_f16(uint32_t u) {
    float x = f32_of(u);
    uint16_t sign = (uint16_t)((u >> 31) << 15);
    if (isnan(x)) return sign | 0x7e00u | (uint16_t)((u & 0x7fffffu) >> 13);
    double ax = fabs((double)x);
    if (ax >= 65520.0) return sign | 0x7c00u; /* the tie above 65504 rounds to the even one, inf */
    int e;
    frexp(ax, &e); /* ax in [2^(e-1), 2^e) */
    int q = ax < ldexp(1.0, -14) ? -24 : e - 1 - 10;
    double r = rint(ldexp(ax, -q)); /* quanta, ties to even */
    if (q == -24) return sign | (uint16_t)r;
    /* r in [2^10, 2^11]: the exponent field plus the significand counted so
     * that 2^11 quanta carry into the next binade */
    return sign | (uint16_t)(((e - 1 + 14) << 10) + (int)r);
}

static int check_range(const uint32_t *in, int64_t n, uint16_t *bf, uint16_t *hf, int *bad) {
    rt_convert(CJ_F32, in, CJ_BF16, bf, n);
    rt_convert(CJ_F32, in, CJ_F16, hf, n);
    int ok = 1;
    for (int64_t i = 0; i < n; i++) {
        uint16_t wb = ref_bf16(in[i]), wh = ref_f16(in[i]);
        if (bf[i] != wb || hf[i] != wh) {
            ok = 0;
            if ((*bad)++ < 5)
                th_fail(__FILE__, __LINE__, "f32 %#010x (%.9g): bf16 %#06x want %#06x, f16 %#06x want %#06x",
                        in[i], (double)f32_of(in[i]), bf[i], wb, hf[i], wh);
        }
    }
    return ok;
}

TEST(dtypes_f32_to_bf16_and_f16_bit_patterns) {
    enum { CHUNK = 1 << 16 };
    uint32_t *in = malloc(sizeof(uint32_t) * CHUNK);
    uint16_t *bf = malloc(sizeof(uint16_t) * CHUNK), *hf = malloc(sizeof(uint16_t) * CHUNK);
    int bad = 0;
    int64_t checked = 0, m = 0;
    /* the sample: u = k * stride for every k */
    for (uint64_t u = 0; u <= 0xffffffffull; u += DTYPES_STRIDE) {
        in[m++] = (uint32_t)u;
        if (m == CHUNK) {
            check_range(in, m, bf, hf, &bad);
            checked += m;
            m = 0;
        }
    }
    /* near ties and carries: for every sign, exponent and kept high bits,
     * the discarded low bits near 0, half and all-ones. bf16 discards 16
     * bits; f16 discards 13 for its normals and more below 2^-14. */
    for (uint32_t se = 0; se < 512; se++) {
        uint32_t exp = se & 0xff;
        int shifts[2] = {16, exp >= 113 ? 13 : exp >= 89 ? (int)(126 - exp) : 24};
        for (int s = 0; s < 2; s++) {
            int sh = shifts[s] > 23 ? 23 : shifts[s];
            uint32_t half = 1u << (sh - 1), ones = (1u << sh) - 1;
            const uint32_t lows[12] = {0, 1, 2, half - 2, half - 1, half, half + 1, half + 2, ones - 2, ones - 1, ones, 3};
            for (uint32_t high = 0; high < (1u << (23 - sh)); high++)
                for (int l = 0; l < 12; l++) {
                    in[m++] = se << 23 | high << sh | lows[l];
                    if (m == CHUNK) {
                        check_range(in, m, bf, hf, &bad);
                        checked += m;
                        m = 0;
                    }
                }
        }
    }
    if (m) check_range(in, m, bf, hf, &bad);
    checked += m;
    CHECK_MSG(bad == 0, "%d of %lld patterns differ", bad, (long long)checked);
    CHECK(checked > (int64_t)(0xffffffffull / DTYPES_STRIDE));
    free(in);
    free(bf);
    free(hf);
}

/* Back to f32 is exact for every f16 and bf16 pattern: each value read
 * back to f16/bf16 gives its bits again (NaNs: f16 quietened, the payload
 * kept; bf16 as it is), and f16 values equal their definition. */
TEST(dtypes_f16_and_bf16_to_f32_every_pattern) {
    uint16_t in[65536], back[65536];
    float f[65536];
    for (int i = 0; i < 65536; i++) in[i] = (uint16_t)i;
    rt_convert(CJ_F16, in, CJ_F32, f, 65536);
    rt_convert(CJ_F32, f, CJ_F16, back, 65536);
    int bad = 0;
    for (int i = 0; i < 65536 && bad < 5; i++) {
        int exp = (i >> 10) & 0x1f, man = i & 0x3ff;
        double want = exp == 0 ? ldexp(man, -24) : exp == 31 ? (man ? NAN : INFINITY) : ldexp(1024 + man, exp - 25);
        if (i & 0x8000) want = -want;
        uint16_t want_back = exp == 31 && man ? (uint16_t)(i | 0x200) : (uint16_t)i;
        bool ok = (isnan(want) ? isnan(f[i]) : (double)f[i] == want && !signbit(f[i]) == !signbit(want)) &&
                  back[i] == want_back;
        if (!ok) bad++, th_fail(__FILE__, __LINE__, "f16 %#06x: f32 %.9g back %#06x", i, (double)f[i], back[i]);
    }
    rt_convert(CJ_BF16, in, CJ_F32, f, 65536);
    for (int i = 0; i < 65536 && bad < 10; i++) {
        uint32_t u;
        memcpy(&u, &f[i], 4);
        if (u != (uint32_t)i << 16) bad++, th_fail(__FILE__, __LINE__, "bf16 %#06x: f32 bits %#010x", i, u);
    }
    CHECK(bad == 0);
}

/* ---- what does not take the new dtypes yet ---- */

TEST(dtypes_unsupported_operations_say_so) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t n = 3;
    const uint8_t xs[3] = {1, 2, 3};
    cj_val u = cj_array(ctx, CJ_U8, 1, &n, xs);
    /* an elementwise primitive names the dtypes it takes (lax has no abs of
     * unsigned types) or their kind */
    prim_params p0 = prim_params_zero();
    cj_val s = core_bind(ctx, PRIM_ABS, &p0, 1, &u);
    CHECK(cj_is_error(s) && cj_error(ctx) == CJ_ERR_DTYPE);
    CHECK_STR_CONTAINS(cj_error_message(ctx),
                       "abs: dtype u8 is not supported (it takes i32, i64, f32, f64, i8, i16, f16, bf16), got u8[3]");
    cj_error_clear(ctx);
    prim_params p = prim_params_zero();
    cj_val y = core_bind(ctx, PRIM_SIN, &p, 1, &u);
    CHECK(cj_is_error(y) && cj_error(ctx) == CJ_ERR_DTYPE);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "sin: operand must be floating point, got u8[3]");
    cj_error_clear(ctx);
    /* other families: one message from core, naming primitive and dtype */
    prim_params pc = prim_params_zero();
    cj_val r = core_bind(ctx, PRIM_CHOLESKY, &pc, 1, &u);
    CHECK(cj_is_error(r) && cj_error(ctx) == CJ_ERR_DTYPE);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "dtype u8 is not supported yet (operand u8[3]");
    cj_error_clear(ctx);
    /* reductions take it now (jnp.sum of u8 counts in u32) */
    cj_val su = cj_sum(u, -1, NULL, 0);
    CHECK(cj_val_dtype(su) == CJ_U32 && cj_item_or_nan(su) == 6);
    /* (dot_general takes them now: test_dtypes_dot.c; 1 + 4 + 9) */
    cj_val t = cj_matmul(u, u);
    uint8_t dot = 0;
    CHECK(cj_read(t, &dot, 1) == CJ_OK && dot == 14);
    /* a result of a new dtype from operands of the old ones */
    prim_params q = prim_params_zero();
    q.dtype = CJ_BF16;
    q.shape.n = 1;
    q.shape.v[0] = 4;
    q.axes.n = 1;
    cj_val io = core_bind(ctx, PRIM_IOTA, &q, 0, NULL);
    CHECK(cj_is_error(io) && cj_error(ctx) == CJ_ERR_DTYPE);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "iota: dtype bf16 is not taken (bind an f32 iota and convert it)");
    cj_error_clear(ctx);
    /* printing and items read every dtype */
    CHECK(cj_item_or_nan(cj_astype(cj_scalar_typed(ctx, 2.5, CJ_F32), CJ_BF16)) == 2.5);
    int64_t big;
    CHECK(cj_item_int(cj_scalar_typed(ctx, 250, CJ_U8), &big) == CJ_OK && big == 250);
    CHECK(cj_error(ctx) == CJ_OK);
    cj_ctx_free(ctx);
}

/* ---- converts under jit ---- */

/* x (f32) → each dtype and back, every result an output: the chain fuses
 * into one loop kernel, whose generated C casts where C's cast is the
 * converter's and calls the converter for the rest (f16/bf16 bits, float →
 * integer saturation). */
static void convert_chain(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    for (int dt = CJ_I8; dt < CJ_NUM_DTYPES; dt++) out[dt - CJ_I8] = cj_astype(cj_astype(in[0], (cj_dtype)dt), CJ_F32);
    out[CJ_NUM_DTYPES - CJ_I8] = cj_astype(cj_astype(cj_astype(in[0], CJ_BF16), CJ_U16), CJ_F16);
}

TEST(dtypes_convert_jit_matches_eager) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    enum { N = 1000, OUTS = CJ_NUM_DTYPES - CJ_I8 + 1 };
    float *x = malloc(sizeof(float) * N);
    uint64_t st = 99;
    for (int i = 0; i < N; i++) x[i] = (float)th_rand_uniform(&st, -70000, 70000) * (i % 3 ? 1.0f : 1e-3f);
    x[0] = NAN, x[1] = INFINITY, x[2] = -INFINITY, x[3] = -0.0f, x[4] = 65519.0f, x[5] = 1e30f, x[6] = -300.5f;
    int64_t n = N;
    cj_val in = cj_array(ctx, CJ_F32, 1, &n, x);
    cj_func *f = cj_func_new(ctx, "convert_chain", convert_chain, 1, OUTS, NULL);
    cj_jit_opts interp = {0, NULL, 0, NULL, CJ_BACKEND_INTERP}, cc = {0, NULL, 0, NULL, CJ_BACKEND_CC};
    cj_func *jf = cj_jit(f, &interp), *jc = cj_jit(f, &cc);
    cj_val ye[OUTS], yi[OUTS], yc[OUTS];
    CHECK(cj_call(f, &in, ye) == CJ_OK);
    CHECK(cj_call(jf, &in, yi) == CJ_OK);
    CHECK(cj_call(jc, &in, yc) == CJ_OK);
    CHECK_MSG(cj_error(ctx) == CJ_OK, "%s", cj_error_message(ctx));
    for (int k = 0; k < OUTS; k++) {
        CHECK_MSG(tu_same_bits(ye[k], yi[k]), "output %d: interpreter differs from eager", k);
        CHECK_MSG(tu_same_bits(ye[k], yc[k]), "output %d: generated C differs from eager", k);
    }
    /* and eager is the converter, element by element */
    float back[N];
    CHECK(cj_read(ye[CJ_U8 - CJ_I8], back, sizeof back) == CJ_OK);
    CHECK(back[0] == 0 && back[1] == 255 && back[2] == 0 && back[5] == 255 && back[6] == 0);
    CHECK(cj_read(ye[CJ_F16 - CJ_I8], back, sizeof back) == CJ_OK);
    CHECK(isnan(back[0]) && back[1] == INFINITY && back[4] == 65504.0f && back[5] == INFINITY);
    free(x);
    cj_ctx_free(ctx);
}
