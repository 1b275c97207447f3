/* half.h — float16 and bfloat16 bit conversions (runtime layer).
 *
 * cjax stores f16 (IEEE binary16) and bf16 (bfloat16: f32's top 16 bits)
 * elements as their 16 bits and computes on them in f32, as XLA's CPU
 * backend does. These are the conversions every user of them shares (the
 * element converter in dtype.c, kernels that load, compute and store), as
 * inline functions so loops over them vectorise. The rules are XLA's on
 * CPU, checked against fixtures made with JAX (tests/data/gen_dtype_
 * fixtures.py):
 *   - to f32: exact. bf16 is shifted up as it is (a signalling NaN stays
 *     one); an f16 NaN keeps its payload and gets the quiet bit.
 *   - f32 → bf16 and f32/f64 → f16: round to nearest, ties to even;
 *     overflow gives ±inf; subnormals round like any other value. A NaN
 *     becomes bf16's quiet NaN 0x7fc0 with its sign (payload dropped), or
 *     f16's quiet NaN with the top payload bits kept.
 *   - f64 → bf16 goes through f32 (rounding twice), as XLA does; f64 → f16
 *     rounds once. */
#ifndef CJ_RUNTIME_HALF_H
#define CJ_RUNTIME_HALF_H

#include <stdint.h>
#include <string.h>

static inline uint32_t rt_f32_bits(float x) {
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static inline float rt_f32_from_bits(uint32_t u) {
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

static inline float rt_bf16_to_f32(uint16_t b) { return rt_f32_from_bits((uint32_t)b << 16); }

static inline uint16_t rt_f32_to_bf16(float x) {
    uint32_t u = rt_f32_bits(x);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) & 0x8000u) | 0x7fc0u;
    /* adding 0x7fff plus the kept lowest bit rounds half to even; a carry
     * into the exponent is the right answer, up to +inf */
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

static inline float rt_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
    if (exp == 0x1f) return rt_f32_from_bits(sign | 0x7f800000u | (man ? 0x400000u | man << 13 : 0));
    if (exp == 0) {
        /* ±0 or a subnormal: man · 2^-24, exact in f32 */
        float m = (float)man * 5.9604644775390625e-8f;
        return sign ? -m : m;
    }
    return rt_f32_from_bits(sign | (exp + 112) << 23 | man << 13);
}

/* Rounds a magnitude given as a 64-bit significand `man` (value man·2^e2,
 * man < 2^63) to f16 bits, half to even. Shared by the f32 and f64 paths. */
static inline uint16_t rt_round_to_f16(uint64_t man, int e2) {
    if (man == 0) return 0;
    int top = 63 - __builtin_clzll(man); /* value in [2^(top+e2), 2^(top+e2+1)) */
    int e = top + e2;                     /* unbiased exponent */
    if (e > 15) return 0x7c00u;
    /* the f16 quantum is 2^(e-10) for normals, 2^-24 for subnormals */
    int q = e < -14 ? -24 : e - 10;
    int shift = q - e2; /* bits of man below the quantum */
    uint64_t kept;
    if (shift <= 0) kept = man << -shift;
    else if (shift > 63) kept = 0; /* below half the smallest subnormal */
    else {
        uint64_t rest = man & ((1ull << shift) - 1), half = 1ull << (shift - 1);
        kept = man >> shift;
        if (rest > half || (rest == half && (kept & 1))) kept++;
    }
    /* kept counts quanta: a normal has the implicit bit at 2^10, a
     * subnormal is below it; a carry out of the significand bumps the
     * exponent, which the sum below does by itself */
    if (q == -24) return (uint16_t)kept; /* subnormal, or the smallest normal after a carry */
    uint64_t bits = (uint64_t)(e + 15) << 10 | (kept - 0x400u);
    if (kept == 0x800u) bits = (uint64_t)(e + 16) << 10;
    return bits >= 0x7c00u ? 0x7c00u : (uint16_t)bits;
}

static inline uint16_t rt_f32_to_f16(float x) {
    uint32_t u = rt_f32_bits(x);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t exp = (u >> 23) & 0xffu, man = u & 0x7fffffu;
    if (exp == 0xff) return sign | 0x7c00u | (man ? 0x200u | man >> 13 : 0);
    if (exp == 0) return sign | rt_round_to_f16(man, -149);
    return sign | rt_round_to_f16(man | 0x800000u, (int)exp - 150);
}

static inline uint16_t rt_f64_to_f16(double x) {
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    uint16_t sign = (uint16_t)((u >> 48) & 0x8000u);
    uint64_t exp = (u >> 52) & 0x7ffu, man = u & 0xfffffffffffffull;
    if (exp == 0x7ff) return sign | 0x7c00u | (man ? 0x200u | (uint16_t)(man >> 42) : 0);
    if (exp == 0) return sign | rt_round_to_f16(man, -1074);
    if (exp > 1023 + 16) return sign | 0x7c00u; /* keeps the shift below in range */
    return sign | rt_round_to_f16(man | 0x10000000000000ull, (int)exp - 1075);
}

#endif
