/* scatter_combine.c — the typed loops of scatter_combine.h: one per dtype
 * and kind, so a window's contiguous run vectorises. */
#include <string.h>

#include "../runtime/half.h"
#include "gather_general.h"
#include "scatter_combine.h"

#define COMBINE_RUN(T, ADD, MUL, MIN, MAX)                                                                             \
    do {                                                                                                               \
        T *d = (T *)dst;                                                                                               \
        const T *s = (const T *)src;                                                                                   \
        switch (kind) {                                                                                                \
        case GG_KIND_SET: memcpy(d, s, sizeof(T) * (size_t)n); break;                                                  \
        case GG_KIND_ADD: for (int64_t i = 0; i < n; i++) d[i] = ADD(d[i], s[i]); break;                              \
        case GG_KIND_MUL: for (int64_t i = 0; i < n; i++) d[i] = MUL(d[i], s[i]); break;                              \
        case GG_KIND_MIN: for (int64_t i = 0; i < n; i++) d[i] = MIN(d[i], s[i]); break;                              \
        default: for (int64_t i = 0; i < n; i++) d[i] = MAX(d[i], s[i]); break;                                       \
        }                                                                                                              \
    } while (0)
#define F_ADD(a, b) ((a) + (b))
#define F_MUL(a, b) ((a) * (b))
/* XLA's float max / min as its CPU backend gives them (checked in JAX
 * 0.10): a NaN operand element wins as it is; a NaN update wins as it is
 * in min, but as the positive quiet NaN in max; the zeros order as IEEE
 * 754-2019's maximum / minimum (max(+0, -0) = +0, min = -0). */
#define XLA_MAX_MIN(T, U, SFX, QNAN)                                                                                   \
    static inline T zero_join_##SFX(T a, T b, int is_max) {                                                            \
        U ua, ub;                                                                                                      \
        memcpy(&ua, &a, sizeof ua);                                                                                    \
        memcpy(&ub, &b, sizeof ub);                                                                                    \
        U u = is_max ? ua & ub : ua | ub;                                                                              \
        T r;                                                                                                           \
        memcpy(&r, &u, sizeof r);                                                                                      \
        return r;                                                                                                      \
    }                                                                                                                  \
    static inline T nan_##SFX(void) {                                                                                  \
        U u = QNAN;                                                                                                    \
        T r;                                                                                                           \
        memcpy(&r, &u, sizeof r);                                                                                      \
        return r;                                                                                                      \
    }                                                                                                                  \
    static inline T max_##SFX(T a, T b) {                                                                              \
        if (a != a) return a;                                                                                          \
        if (b != b) return nan_##SFX();                                                                                \
        return a == b ? zero_join_##SFX(a, b, 1) : a > b ? a : b;                                                      \
    }                                                                                                                  \
    static inline T min_##SFX(T a, T b) {                                                                              \
        if (a != a || b != b) return a != a ? a : b;                                                                   \
        return a == b ? zero_join_##SFX(a, b, 0) : a < b ? a : b;                                                      \
    }
XLA_MAX_MIN(float, uint32_t, f32, 0x7FC00000u)
XLA_MAX_MIN(double, uint64_t, f64, 0x7FF8000000000000ull)
#define F_MIN(a, b) _Generic((a), float: min_f32, double: min_f64)(a, b)
#define F_MAX(a, b) _Generic((a), float: max_f32, double: max_f64)(a, b)
#define I_MIN(a, b) ((b) < (a) ? (b) : (a))
#define I_MAX(a, b) ((b) > (a) ? (b) : (a))
/* wrapping arithmetic of a W-bit integer type T through uint64_t (no
 * promotion to int can overflow) */
#define W_ADD(T, UT, a, b) (T)(UT)((uint64_t)(UT)(a) + (uint64_t)(UT)(b))
#define W_MUL(T, UT, a, b) (T)(UT)((uint64_t)(UT)(a) * (uint64_t)(UT)(b))
#define I8_ADD(a_, b_) W_ADD(int8_t, uint8_t, a_, b_)
#define I8_MUL(a_, b_) W_MUL(int8_t, uint8_t, a_, b_)
#define I16_ADD(a_, b_) W_ADD(int16_t, uint16_t, a_, b_)
#define I16_MUL(a_, b_) W_MUL(int16_t, uint16_t, a_, b_)
#define I32_ADD(a_, b_) W_ADD(int32_t, uint32_t, a_, b_)
#define I32_MUL(a_, b_) W_MUL(int32_t, uint32_t, a_, b_)
#define I64_ADD(a_, b_) W_ADD(int64_t, uint64_t, a_, b_)
#define I64_MUL(a_, b_) W_MUL(int64_t, uint64_t, a_, b_)
#define U8_ADD(a_, b_) W_ADD(uint8_t, uint8_t, a_, b_)
#define U8_MUL(a_, b_) W_MUL(uint8_t, uint8_t, a_, b_)
#define U16_ADD(a_, b_) W_ADD(uint16_t, uint16_t, a_, b_)
#define U16_MUL(a_, b_) W_MUL(uint16_t, uint16_t, a_, b_)
#define U32_ADD(a_, b_) W_ADD(uint32_t, uint32_t, a_, b_)
#define U32_MUL(a_, b_) W_MUL(uint32_t, uint32_t, a_, b_)
#define U64_ADD(a_, b_) W_ADD(uint64_t, uint64_t, a_, b_)
#define U64_MUL(a_, b_) W_MUL(uint64_t, uint64_t, a_, b_)
/* bool: add / max are or, mul / min are and */
#define B_OR(a, b) ((uint8_t)((a) | (b)))
#define B_AND(a, b) ((uint8_t)((a) & (b)))

/* f16 / bf16: the f32 operation, rounded back at once */
static inline float f32_min(float a, float b) { return min_f32(a, b); }
static inline float f32_max(float a, float b) { return max_f32(a, b); }
#define H_OP(a, b, OP) rt_f32_to_f16(OP(rt_f16_to_f32(a), rt_f16_to_f32(b)))
#define BF_OP(a, b, OP) rt_f32_to_bf16(OP(rt_bf16_to_f32(a), rt_bf16_to_f32(b)))
#define H_ADD(a, b) H_OP(a, b, F_ADD)
#define H_MUL(a, b) H_OP(a, b, F_MUL)
#define H_MIN(a, b) H_OP(a, b, f32_min)
#define H_MAX(a, b) H_OP(a, b, f32_max)
#define BF_ADD(a, b) BF_OP(a, b, F_ADD)
#define BF_MUL(a, b) BF_OP(a, b, F_MUL)
#define BF_MIN(a, b) BF_OP(a, b, f32_min)
#define BF_MAX(a, b) BF_OP(a, b, f32_max)

void scatter_combine(cj_dtype dt, int kind, char *dst, const char *src, int64_t n) {
    switch (dt) {
    case CJ_F32: COMBINE_RUN(float, F_ADD, F_MUL, F_MIN, F_MAX); return;
    case CJ_F64: COMBINE_RUN(double, F_ADD, F_MUL, F_MIN, F_MAX); return;
    case CJ_I32: COMBINE_RUN(int32_t, I32_ADD, I32_MUL, I_MIN, I_MAX); return;
    case CJ_I64: COMBINE_RUN(int64_t, I64_ADD, I64_MUL, I_MIN, I_MAX); return;
    case CJ_I8: COMBINE_RUN(int8_t, I8_ADD, I8_MUL, I_MIN, I_MAX); return;
    case CJ_I16: COMBINE_RUN(int16_t, I16_ADD, I16_MUL, I_MIN, I_MAX); return;
    case CJ_U8: COMBINE_RUN(uint8_t, U8_ADD, U8_MUL, I_MIN, I_MAX); return;
    case CJ_U16: COMBINE_RUN(uint16_t, U16_ADD, U16_MUL, I_MIN, I_MAX); return;
    case CJ_U32: COMBINE_RUN(uint32_t, U32_ADD, U32_MUL, I_MIN, I_MAX); return;
    case CJ_U64: COMBINE_RUN(uint64_t, U64_ADD, U64_MUL, I_MIN, I_MAX); return;
    case CJ_F16: COMBINE_RUN(uint16_t, H_ADD, H_MUL, H_MIN, H_MAX); return;
    case CJ_BF16: COMBINE_RUN(uint16_t, BF_ADD, BF_MUL, BF_MIN, BF_MAX); return;
    default: COMBINE_RUN(uint8_t, B_OR, B_AND, B_AND, B_OR); return;
    }
}
