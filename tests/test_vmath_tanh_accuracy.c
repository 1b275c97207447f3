/* test_vmath_tanh_accuracy.c — float32 tanh (vm_tanh_f32, whose source is
 * cjk_tanhf in runtime/vmath_tanhf.h, the tanh of every generated unit)
 * against double tanh over a dense sweep of float bit patterns, and the
 * exact values its contract names.
 *
 * The sweep: every 4099th bit pattern of all 2^32 (each binade, both signs,
 * NaNs and infinities included), and every 7th float of [4, 9.1], where
 * the quotient x P/Q of two values far above 1 rounds worst; the bound is
 * the maximum measured over every float of [0.5, 11] (4.88 ulp with FMA,
 * 6.3 without, every third float: see vmath_tanhf.h) rounded up. Build with
 * -DTANH_SWEEP_STRIDE=1 to sweep all 2^32 patterns (about a minute).
 * tanh is odd by construction (x P(x^2)/Q(x^2)): f(-x) must be -f(x) bit
 * for bit, and |f| <= 1 everywhere. (Generated C's bits equal these:
 * test_vmath_tanh_inline.c.) */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "runtime/vmath.h"
#include "runtime/vmath_dispatch.h"

#ifndef TANH_SWEEP_STRIDE
#define TANH_SWEEP_STRIDE 4099u
#endif
#define TANH_BOUND (vm_active()->fma ? 5.0 : 8.0) /* the compilation of vmath.c this CPU runs */

static float from_bits(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static uint32_t bits_of(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* error of y in ulps of float at the double reference */
static double ulps(float y, double ref) {
    if (isnan(ref)) return isnan(y) ? 0 : INFINITY;
    if ((double)y == ref) return 0;
    int e;
    frexp(ref, &e);
    return fabs((double)y - ref) / ldexp(1.0, e - 24 < -149 ? -149 : e - 24);
}

typedef struct sweep {
    double worst;
    float at;
    int odd_ok, bounded_ok;
} sweep;

/* checks x[0..n) through vm_tanh_f32 (and -x for oddness) */
static void check_block(const float *x, int64_t n, sweep *s) {
    float y[1024], ny[1024], nx[1024];
    for (int64_t i = 0; i < n; i++) nx[i] = -x[i];
    vm_tanh_f32(x, y, n);
    vm_tanh_f32(nx, ny, n);
    for (int64_t i = 0; i < n; i++) {
        double e = ulps(y[i], tanh((double)x[i]));
        if (!(e <= s->worst)) s->worst = e, s->at = x[i];
        if (!isnan(y[i]) && bits_of(ny[i]) != (bits_of(y[i]) ^ 0x80000000u)) s->odd_ok = 0;
        if (fabsf(y[i]) > 1.0f) s->bounded_ok = 0;
    }
}

static void sweep_bits(uint64_t lo, uint64_t hi, uint64_t stride, sweep *s) {
    float x[1024];
    int64_t n = 0;
    for (uint64_t u = lo; u <= hi; u += stride) {
        x[n++] = from_bits((uint32_t)u);
        if (n == 1024) check_block(x, n, s), n = 0;
    }
    if (n) check_block(x, n, s);
}

TEST(vmath_tanh_f32_sweep_within_bound) {
    sweep all = {0, 0, 1, 1}, top = {0, 0, 1, 1};
    sweep_bits(0, 0xffffffffu, TANH_SWEEP_STRIDE, &all);
    sweep_bits(bits_of(4.0f), bits_of(9.1f), TANH_SWEEP_STRIDE == 1 ? 1 : 7, &top);
    if (getenv("VMATH_VERBOSE"))
        printf("    tanh f32: max %.3f ulp at %a (all patterns), %.3f at %a ([4, 9.1])\n", all.worst, (double)all.at,
               top.worst, (double)top.at);
    CHECK_MSG(all.worst <= TANH_BOUND, "tanh_f32: %.3g ulp at %a, bound %g", all.worst, (double)all.at, TANH_BOUND);
    CHECK_MSG(top.worst <= TANH_BOUND, "tanh_f32: %.3g ulp at %a, bound %g", top.worst, (double)top.at, TANH_BOUND);
    CHECK_MSG(all.odd_ok && top.odd_ok, "tanh_f32: tanh(-x) is not -tanh(x) bit for bit");
    CHECK_MSG(all.bounded_ok && top.bounded_ok, "tanh_f32: a value beyond [-1, 1]");
    /* the sweep touches small values: the error there must be rounding only */
    sweep small = {0, 0, 1, 1};
    sweep_bits(bits_of(0x1p-20f), bits_of(0.5f), 997, &small);
    CHECK_MSG(small.worst <= 2.5, "tanh_f32: %.3g ulp at %a below 0.5", small.worst, (double)small.at);
}

/* The contract's exact values: signed zeros, tiny and subnormal inputs
 * returned as they are, +-1 from just past the clamp (9.02) up to the
 * infinities, NaN kept. */
TEST(vmath_tanh_f32_exact_values) {
    static const float x[] = {0.0f,    -0.0f,    FLT_TRUE_MIN, -FLT_TRUE_MIN, FLT_MIN, 0x1p-100f, -0x1p-30f,
                              0x1p-13f, 9.03f,   9.5f,         -9.5f,         11.0f,   1e6f,      -1e30f,
                              FLT_MAX, -FLT_MAX, INFINITY,     -INFINITY,     NAN,     -NAN};
    enum { N = sizeof x / sizeof x[0] };
    float y[N];
    vm_tanh_f32(x, y, N);
    CHECK(y[0] == 0 && !signbit(y[0]) && y[1] == 0 && signbit(y[1]));
    for (int i = 2; i < 7; i++) CHECK_MSG(bits_of(y[i]) == bits_of(x[i]), "tanh(%a) = %a, not itself", (double)x[i], (double)y[i]);
    CHECK(y[7] == (float)tanh((double)x[7]));
    for (int i = 8; i < 18; i++) CHECK_MSG(y[i] == (x[i] > 0 ? 1.0f : -1.0f), "tanh(%a) = %a", (double)x[i], (double)y[i]);
    CHECK(isnan(y[18]) && isnan(y[19]));
    /* in place gives the same bits */
    float z[N];
    memcpy(z, x, sizeof z);
    vm_tanh_f32(z, z, N);
    for (int i = 0; i < 18; i++) /* (not the NaNs: their payloads may differ) */ CHECK(bits_of(z[i]) == bits_of(y[i]));
}
