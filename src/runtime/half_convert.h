/* half_convert.h — f16/bf16 <-> f32 conversion of whole runs of elements
 * (runtime layer).
 *
 * The element conversions are half.h's; these apply them to n elements at
 * once, with vector instructions where the CPU has them (F16C's
 * vcvtph2ps/vcvtps2ph for f16, AVX2 shifts and adds for bf16:
 * half_convert_avx2.c), chosen once per process as cpu_features.h
 * chooses the other kernels. Every variant gives exactly half.h's bits
 * (round to nearest even, NaNs as described there), so results never
 * depend on the CPU; tests/test_half_convert.c checks that over every f16
 * and bf16 pattern and every f32 high half with many low halves. The
 * elementwise kernels of the narrow floats widen their operands and round
 * their results through these. */
#ifndef CJ_RUNTIME_HALF_CONVERT_H
#define CJ_RUNTIME_HALF_CONVERT_H

#include <stdbool.h>
#include <stdint.h>

void rt_f16_to_f32_n(const uint16_t *src, float *dst, int64_t n);
void rt_bf16_to_f32_n(const uint16_t *src, float *dst, int64_t n);
void rt_f32_to_f16_n(const float *src, uint16_t *dst, int64_t n);
void rt_f32_to_bf16_n(const float *src, uint16_t *dst, int64_t n);

/* bf16 ? the bf16 one : the f16 one. */
static inline void rt_narrow_to_f32_n(bool bf16, const uint16_t *src, float *dst, int64_t n) {
    if (bf16)
        rt_bf16_to_f32_n(src, dst, n);
    else
        rt_f16_to_f32_n(src, dst, n);
}
static inline void rt_f32_to_narrow_n(bool bf16, const float *src, uint16_t *dst, int64_t n) {
    if (bf16)
        rt_f32_to_bf16_n(src, dst, n);
    else
        rt_f32_to_f16_n(src, dst, n);
}

/* For tests: which variant the four functions above use (RT_ISA_BASE or
 * RT_ISA_AVX2), and a way to run a given one: variant RT_ISA_BASE is the
 * scalar loop, RT_ISA_AVX2 the vector one (callers check rt_half_vector_
 * available first). op: 0 f16→f32, 1 bf16→f32, 2 f32→f16, 3 f32→bf16. */
int rt_half_variant(void);
bool rt_half_vector_available(void);
void rt_half_convert_with(int variant, int op, const void *src, void *dst, int64_t n);

/* The AVX2 (+F16C) loops, half_convert_avx2.c; only called where
 * rt_half_vector_available(). */
void rt_f16_to_f32_avx2(const uint16_t *src, float *dst, int64_t n);
void rt_bf16_to_f32_avx2(const uint16_t *src, float *dst, int64_t n);
void rt_f32_to_f16_avx2(const float *src, uint16_t *dst, int64_t n);
void rt_f32_to_bf16_avx2(const float *src, uint16_t *dst, int64_t n);

#endif
