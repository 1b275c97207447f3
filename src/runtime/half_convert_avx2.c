/* half_convert_avx2.c — the vector loops of half_convert.h (runtime
 * layer): f16 through F16C's vcvtph2ps / vcvtps2ph (round to nearest
 * even, immediate rounding so MXCSR's mode does not apply), bf16 with
 * AVX2 integer shifts and adds that do exactly what half.h's
 * rt_f32_to_bf16 does. CMake builds this file with -mavx2 -mfma (every
 * src/<layer>/NAME_avx2.c) and defines CJAX_ISA_VARIANTS when it can; F16C
 * is enabled here per function. Tails shorter than a vector use half.h. */
#ifdef CJAX_ISA_VARIANTS
#include <immintrin.h>

#include "half.h"
#include "half_convert.h"

__attribute__((target("avx2,f16c"))) void rt_f16_to_f32_avx2(const uint16_t *src, float *dst, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(src + i))));
    for (; i < n; i++) dst[i] = rt_f16_to_f32(src[i]);
}

__attribute__((target("avx2,f16c"))) void rt_f32_to_f16_avx2(const float *src, uint16_t *dst, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128((__m128i *)(dst + i),
                         _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    for (; i < n; i++) dst[i] = rt_f32_to_f16(src[i]);
}

__attribute__((target("avx2"))) void rt_bf16_to_f32_avx2(const uint16_t *src, float *dst, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(src + i)));
        _mm256_storeu_si256((__m256i *)(dst + i), _mm256_slli_epi32(w, 16));
    }
    for (; i < n; i++) dst[i] = rt_bf16_to_f32(src[i]);
}

/* Eight f32 -> bf16 as rt_f32_to_bf16: (u + 0x7fff + bit 16 of u) >> 16,
 * a NaN becoming 0x7fc0 with its sign; the results (< 2^16) are packed to
 * 16 bits in order. */
__attribute__((target("avx2"))) void rt_f32_to_bf16_avx2(const float *src, uint16_t *dst, int64_t n) {
    const __m256i abs_mask = _mm256_set1_epi32(0x7fffffff), inf = _mm256_set1_epi32(0x7f800000);
    const __m256i bias = _mm256_set1_epi32(0x7fff), one = _mm256_set1_epi32(1);
    const __m256i sign16 = _mm256_set1_epi32(0x8000), qnan = _mm256_set1_epi32(0x7fc0);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i u = _mm256_loadu_si256((const __m256i *)(src + i));
        __m256i hi = _mm256_srli_epi32(u, 16);
        __m256i rounded = _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(u, bias), _mm256_and_si256(hi, one)), 16);
        __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(u, abs_mask), inf); /* both below 2^31: signed compare */
        __m256i nanv = _mm256_or_si256(_mm256_and_si256(hi, sign16), qnan);
        __m256i r = _mm256_blendv_epi8(rounded, nanv, nan);
        __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(r, r), 0x08); /* lanes 0 and 2 */
        _mm_storeu_si128((__m128i *)(dst + i), _mm256_castsi256_si128(packed));
    }
    for (; i < n; i++) dst[i] = rt_f32_to_bf16(src[i]);
}
#else
typedef int half_convert_avx2_is_not_built; /* ISO C wants a declaration in every unit */
#endif
