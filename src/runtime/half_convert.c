/* half_convert.c — runs of f16/bf16 <-> f32 conversions: the scalar loops
 * and the choice of variant (runtime layer; see half_convert.h).
 *
 * The vector variant needs AVX2 (rt_cpu_isa(), which also checks that the
 * OS saves the ymm registers) and F16C, which cpuid reports apart (every
 * AVX2 CPU known has it; x86-64-v3 includes it). It is chosen once, the
 * first time it is asked, and the answer kept in an atomic so threads
 * agree without a lock; CJAX_ISA=baseline keeps the scalar loops. */
#include "half_convert.h"

#include <stdatomic.h>

#include "cpu_features.h"
#include "half.h"

#if defined(CJAX_ISA_VARIANTS) && (defined(__x86_64__) || defined(__i386__))
#include <cpuid.h>
static bool cpu_has_f16c(void) {
    unsigned a, b, c, d;
    return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C);
}
#define HAVE_VECTOR_VARIANT 1
#else
#define HAVE_VECTOR_VARIANT 0
#endif

static void f16_to_f32_scalar(const uint16_t *s, float *d, int64_t n) {
    for (int64_t i = 0; i < n; i++) d[i] = rt_f16_to_f32(s[i]);
}
static void bf16_to_f32_scalar(const uint16_t *s, float *d, int64_t n) {
    for (int64_t i = 0; i < n; i++) d[i] = rt_bf16_to_f32(s[i]);
}
static void f32_to_f16_scalar(const float *s, uint16_t *d, int64_t n) {
    for (int64_t i = 0; i < n; i++) d[i] = rt_f32_to_f16(s[i]);
}
static void f32_to_bf16_scalar(const float *s, uint16_t *d, int64_t n) {
    for (int64_t i = 0; i < n; i++) d[i] = rt_f32_to_bf16(s[i]);
}

bool rt_half_vector_available(void) {
#if HAVE_VECTOR_VARIANT
    return rt_cpu_runs(RT_ISA_AVX2) && cpu_has_f16c();
#else
    return false;
#endif
}

static _Atomic int chosen; /* 0: not yet; else RT_ISA_BASE or RT_ISA_AVX2 */

int rt_half_variant(void) {
    int v = atomic_load_explicit(&chosen, memory_order_relaxed);
    if (v) return v;
    v = rt_cpu_isa() >= RT_ISA_AVX2 && rt_half_vector_available() ? RT_ISA_AVX2 : RT_ISA_BASE;
    atomic_store_explicit(&chosen, v, memory_order_relaxed);
    return v;
}

void rt_half_convert_with(int variant, int op, const void *src, void *dst, int64_t n) {
#if HAVE_VECTOR_VARIANT
    if (variant == RT_ISA_AVX2) {
        switch (op) {
        case 0: rt_f16_to_f32_avx2(src, dst, n); return;
        case 1: rt_bf16_to_f32_avx2(src, dst, n); return;
        case 2: rt_f32_to_f16_avx2(src, dst, n); return;
        default: rt_f32_to_bf16_avx2(src, dst, n); return;
        }
    }
#else
    (void)variant;
#endif
    switch (op) {
    case 0: f16_to_f32_scalar(src, dst, n); return;
    case 1: bf16_to_f32_scalar(src, dst, n); return;
    case 2: f32_to_f16_scalar(src, dst, n); return;
    default: f32_to_bf16_scalar(src, dst, n); return;
    }
}

void rt_f16_to_f32_n(const uint16_t *src, float *dst, int64_t n) { rt_half_convert_with(rt_half_variant(), 0, src, dst, n); }
void rt_bf16_to_f32_n(const uint16_t *src, float *dst, int64_t n) { rt_half_convert_with(rt_half_variant(), 1, src, dst, n); }
void rt_f32_to_f16_n(const float *src, uint16_t *dst, int64_t n) { rt_half_convert_with(rt_half_variant(), 2, src, dst, n); }
void rt_f32_to_bf16_n(const float *src, uint16_t *dst, int64_t n) { rt_half_convert_with(rt_half_variant(), 3, src, dst, n); }
