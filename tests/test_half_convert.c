/* test_half_convert.c — the vector f16/bf16 <-> f32 conversions
 * (src/runtime/half_convert.h) give exactly the scalar ones' bits
 * (half.h), and the elementwise kernels that use them still round as the
 * scalar path does.
 *
 * Widening: every one of the 65536 f16 and bf16 patterns. Rounding: every
 * f32 high half (sign, exponent, top 7 mantissa bits: all 65536) with 24
 * low halves each (zero, ones, the half-way patterns of bf16 and of f16
 * normals and subnormals and their neighbours, random ones), so every
 * rounding case of both formats is met in every binade, NaNs (signalling
 * and quiet, both signs) and infinities included. Then lengths 0..40 at
 * unaligned offsets (the vector loops' tails), and the kernels end to end:
 * astype and an f16/bf16 add against element-by-element conversion. Where
 * the CPU has no AVX2 + F16C the vector half is not run (said on stderr);
 * the scalar loop is still checked against half.h. */
#include <stdlib.h>
#include <string.h>

#include "cjax.h"
#include "harness.h"
#include "runtime/cpu_features.h"
#include "runtime/half.h"
#include "runtime/half_convert.h"

static uint32_t bits_of(float x) { return rt_f32_bits(x); }

/* Runs op on n elements with variant v; returns the number of elements
 * whose bits differ from half.h's element conversion. */
static int64_t mismatches(int v, int op, const void *src, int64_t n, void *dst) {
    rt_half_convert_with(v, op, src, dst, n);
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++) {
        if (op < 2) {
            uint16_t h = ((const uint16_t *)src)[i];
            float want = op == 0 ? rt_f16_to_f32(h) : rt_bf16_to_f32(h);
            bad += bits_of(((float *)dst)[i]) != bits_of(want);
        } else {
            float x = ((const float *)src)[i];
            uint16_t want = op == 2 ? rt_f32_to_f16(x) : rt_f32_to_bf16(x);
            bad += ((uint16_t *)dst)[i] != want;
        }
    }
    return bad;
}

static int variants(int *v) {
    int n = 0;
    v[n++] = RT_ISA_BASE;
    if (rt_half_vector_available())
        v[n++] = RT_ISA_AVX2;
    else
        fprintf(stderr, "half_convert: no AVX2 + F16C on this CPU; the vector loops are not run\n");
    return n;
}

TEST(half_convert_widen_every_pattern) {
    uint16_t *h = malloc(sizeof(uint16_t) * 65536);
    float *f = malloc(sizeof(float) * 65536);
    CHECK(h && f);
    for (int i = 0; i < 65536; i++) h[i] = (uint16_t)i;
    int v[2], nv = variants(v);
    for (int k = 0; k < nv; k++)
        for (int op = 0; op < 2; op++) {
            int64_t bad = mismatches(v[k], op, h, 65536, f);
            CHECK_MSG(bad == 0, "variant %d, %s -> f32: %lld of 65536 patterns differ from half.h", v[k],
                      op ? "bf16" : "f16", (long long)bad);
        }
    free(h);
    free(f);
}

TEST(half_convert_round_every_binade_and_tie) {
    static const uint16_t lows[20] = {0,      1,      0x0fff, 0x1000, 0x1001, 0x1fff, 0x2000, 0x2001, 0x3000, 0x4000,
                                      0x5000, 0x7fff, 0x8000, 0x8001, 0x9000, 0xbfff, 0xc000, 0xe000, 0xf000, 0xffff};
    enum { PER = 24, N = 65536 * PER };
    float *x = malloc(sizeof(float) * N);
    uint16_t *y = malloc(sizeof(uint16_t) * N);
    CHECK(x && y);
    uint64_t rng = 12345;
    for (int64_t hi = 0; hi < 65536; hi++)
        for (int k = 0; k < PER; k++) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            uint32_t lo = k < 20 ? lows[k] : (uint32_t)(rng >> 48);
            x[hi * PER + k] = rt_f32_from_bits((uint32_t)hi << 16 | lo);
        }
    int v[2], nv = variants(v);
    for (int k = 0; k < nv; k++)
        for (int op = 2; op < 4; op++) {
            int64_t bad = mismatches(v[k], op, x, N, y);
            CHECK_MSG(bad == 0, "variant %d, f32 -> %s: %lld of %d values differ from half.h", v[k],
                      op == 3 ? "bf16" : "f16", (long long)bad, (int)N);
        }
    free(x);
    free(y);
}

/* Every length 0..40 at offsets 0..3: the vector body and the scalar tail
 * meet at every split, and nothing outside [0, n) is written. */
TEST(half_convert_tails_and_offsets) {
    float src32[48], dst32[48];
    uint16_t src16[48], dst16[48];
    for (int i = 0; i < 48; i++) {
        src32[i] = (float)(i * 0.37 - 7.1);
        src16[i] = (uint16_t)(0x3c00 + i * 37);
    }
    int v[2], nv = variants(v);
    for (int k = 0; k < nv; k++)
        for (int op = 0; op < 4; op++)
            for (int off = 0; off < 4; off++)
                for (int n = 0; n <= 40; n++) {
                    memset(dst32, 0x5a, sizeof dst32);
                    memset(dst16, 0x5a, sizeof dst16);
                    const void *src = op < 2 ? (const void *)(src16 + off) : (const void *)(src32 + off);
                    void *dst = op < 2 ? (void *)(dst32 + off) : (void *)(dst16 + off);
                    CHECK_EQ_INT(mismatches(v[k], op, src, n, dst), 0);
                    for (int i = 0; i < 48; i++) {
                        if (i >= off && i < off + n) continue;
                        if (op < 2)
                            CHECK_MSG(bits_of(dst32[i]) == 0x5a5a5a5au, "op %d n %d off %d: wrote [%d]", op, n, off, i);
                        else
                            CHECK_MSG(dst16[i] == 0x5a5a, "op %d n %d off %d: wrote [%d]", op, n, off, i);
                    }
                }
}

/* astype f32 -> f16/bf16 -> f32 and a narrow add (eager: the kernels the
 * interpreter also runs tile by tile) against the element conversions:
 * 1000 elements, so vector bodies and tails both run. */
TEST(half_convert_kernels_match_element_conversions) {
    enum { N = 1000 };
    cj_ctx *ctx = cj_ctx_new(NULL);
    float a[N], b[N];
    for (int i = 0; i < N; i++) {
        a[i] = (float)((i - 500) * 0.0123456 + (i % 7) * 1e-4);
        b[i] = (float)(i % 13 == 0 ? 65504.0 * 1.01 : (i % 5) * 0.333);
    }
    a[3] = rt_f32_from_bits(0x7f800001u); /* a signalling NaN */
    a[4] = rt_f32_from_bits(0xffc12345u);
    a[5] = 1e-6f; /* an f16 subnormal */
    int64_t n = N;
    cj_val va = cj_array(ctx, CJ_F32, 1, &n, a), vb = cj_array(ctx, CJ_F32, 1, &n, b);
    for (int bf = 0; bf < 2; bf++) {
        cj_dtype dt = bf ? CJ_BF16 : CJ_F16;
        cj_val na = cj_astype(va, dt), nb = cj_astype(vb, dt);
        uint16_t got[N], sum[N];
        float back[N];
        CHECK(cj_read(na, got, sizeof got) == CJ_OK);
        CHECK(cj_read(cj_astype(na, CJ_F32), back, sizeof back) == CJ_OK);
        CHECK(cj_read(cj_add(na, nb), sum, sizeof sum) == CJ_OK);
        for (int i = 0; i < N; i++) {
            uint16_t want = bf ? rt_f32_to_bf16(a[i]) : rt_f32_to_f16(a[i]);
            uint16_t wb = bf ? rt_f32_to_bf16(b[i]) : rt_f32_to_f16(b[i]);
            float fa = bf ? rt_bf16_to_f32(want) : rt_f16_to_f32(want), fb = bf ? rt_bf16_to_f32(wb) : rt_f16_to_f32(wb);
            uint16_t ws = bf ? rt_f32_to_bf16(fa + fb) : rt_f32_to_f16(fa + fb);
            CHECK_MSG(got[i] == want, "%s astype [%d]: %#x, want %#x", cj_dtype_name(dt), i, got[i], want);
            CHECK_MSG(bits_of(back[i]) == bits_of(fa), "%s -> f32 [%d]", cj_dtype_name(dt), i);
            CHECK_MSG(sum[i] == ws, "%s add [%d]: %#x, want %#x", cj_dtype_name(dt), i, sum[i], ws);
        }
    }
    cj_ctx_free(ctx);
}
