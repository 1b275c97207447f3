/* elementwise_kernels_bits.c — the eager loops of the bit primitives
 * (prim layer; the contract is elementwise_kernels.h's, and ew_kernel looks
 * here after the other two tables): shift_left, shift_right_logical,
 * shift_right_arithmetic and population_count on the eight integer types,
 * and bitcast_convert_type (a copy of the bits) on every dtype.
 *
 * Shifts follow lax/XLA: the amount is read as the unsigned value of its
 * bits, so a negative amount or one of at least the width is out of range
 * and gives 0 for the left and logical shifts and the sign fill (0 or all
 * ones) for the arithmetic one; the arithmetic shift of an unsigned type
 * fills with its top bit. Everything is computed on an unsigned type of at
 * least 32 bits, so no shift is undefined or implementation-defined in C.
 * Fixtures: tests/data/gen_bits_fixtures.py. */
#include <string.h>

#include "elementwise_kernels.h"

/* T: the dtype's C type, U: the unsigned type of its width, W: U promoted
 * to at least 32 bits, BITS: the width. */
#define BIT_HELPERS(T, U, W, SFX, BITS)                                                           \
    static inline T shl_##SFX(T a, T b) {                                                         \
        const W s = (W)(U)b;                                                                      \
        return s < BITS ? (T)(U)((W)(U)a << s) : (T)0;                                            \
    }                                                                                             \
    static inline T shrl_##SFX(T a, T b) {                                                        \
        const W s = (W)(U)b;                                                                      \
        return s < BITS ? (T)(U)((W)(U)a >> s) : (T)0;                                            \
    }                                                                                             \
    /* shifting by BITS - 1 gives the sign fill, so out of range clamps there */                  \
    static inline T shra_##SFX(T a, T b) {                                                        \
        const W s = (W)(U)b < BITS ? (W)(U)b : BITS - 1, u = (W)(U)a;                             \
        const W r = (u >> (BITS - 1)) ? ~((W)(U)~u >> s) : u >> s;                                \
        return (T)(U)r;                                                                           \
    }                                                                                             \
    static inline T popcnt_##SFX(T a) { return (T)__builtin_popcountll((unsigned long long)(U)a); }

#define BIT_KERNELS(T, SFX)                                                                       \
    static void shift_left_##SFX(const ew_operands *ops, int64_t begin, int64_t end) {            \
        BIT_LOOP(T, shl_##SFX)                                                                    \
    }                                                                                             \
    static void shift_right_logical_##SFX(const ew_operands *ops, int64_t begin, int64_t end) {   \
        BIT_LOOP(T, shrl_##SFX)                                                                   \
    }                                                                                             \
    static void shift_right_arithmetic_##SFX(const ew_operands *ops, int64_t begin, int64_t end) { \
        BIT_LOOP(T, shra_##SFX)                                                                   \
    }                                                                                             \
    EW_UNARY(population_count_##SFX, T, T, popcnt_##SFX(x))

/* a rank-0 operand is read at index 0 */
#define BIT_LOOP(T, FN)                                                                           \
    const T *as = (const T *)ops->in[0], *bs = (const T *)ops->in[1];                             \
    T *ys = (T *)ops->out;                                                                        \
    const int64_t sa = ops->scalar[0] ? 0 : 1, sb = ops->scalar[1] ? 0 : 1;                       \
    for (int64_t i = begin; i < end; i++) ys[i] = FN(as[i * sa], bs[i * sb]);

BIT_HELPERS(int8_t, uint8_t, uint32_t, i8, 8)
BIT_HELPERS(int16_t, uint16_t, uint32_t, i16, 16)
BIT_HELPERS(int32_t, uint32_t, uint32_t, i32, 32)
BIT_HELPERS(int64_t, uint64_t, uint64_t, i64, 64)
BIT_HELPERS(uint8_t, uint8_t, uint32_t, u8, 8)
BIT_HELPERS(uint16_t, uint16_t, uint32_t, u16, 16)
BIT_HELPERS(uint32_t, uint32_t, uint32_t, u32, 32)
BIT_HELPERS(uint64_t, uint64_t, uint64_t, u64, 64)
BIT_KERNELS(int8_t, i8)
BIT_KERNELS(int16_t, i16)
BIT_KERNELS(int32_t, i32)
BIT_KERNELS(int64_t, i64)
BIT_KERNELS(uint8_t, u8)
BIT_KERNELS(uint16_t, u16)
BIT_KERNELS(uint32_t, u32)
BIT_KERNELS(uint64_t, u64)

/* bitcast_convert_type: the widths are equal (abstract_eval checked), so
 * the bits are copied. */
static void bitcast_copy(const ew_operands *ops, int64_t begin, int64_t end) {
    size_t size = rt_dtypes[ops->in_dtype].size;
    memcpy((char *)ops->out + (size_t)begin * size, (const char *)ops->in[0] + (size_t)begin * size,
           (size_t)(end - begin) * size);
}

#define BIT_INTS(OP)                                                                              \
    {[CJ_I8] = OP##_i8, [CJ_I16] = OP##_i16, [CJ_I32] = OP##_i32, [CJ_I64] = OP##_i64,            \
     [CJ_U8] = OP##_u8, [CJ_U16] = OP##_u16, [CJ_U32] = OP##_u32, [CJ_U64] = OP##_u64}
#define BIT_SAME(FN)                                                                              \
    {[CJ_BOOL] = FN, [CJ_I8] = FN,  [CJ_I16] = FN, [CJ_I32] = FN, [CJ_I64] = FN,                  \
     [CJ_U8] = FN,   [CJ_U16] = FN, [CJ_U32] = FN, [CJ_U64] = FN, [CJ_F16] = FN,                  \
     [CJ_BF16] = FN, [CJ_F32] = FN, [CJ_F64] = FN}

static const ew_kernel_fn bit_kernels[PRIM_COUNT][CJ_NUM_DTYPES] = {
    [PRIM_SHIFT_LEFT] = BIT_INTS(shift_left),
    [PRIM_SHIFT_RIGHT_LOGICAL] = BIT_INTS(shift_right_logical),
    [PRIM_SHIFT_RIGHT_ARITHMETIC] = BIT_INTS(shift_right_arithmetic),
    [PRIM_POPULATION_COUNT] = BIT_INTS(population_count),
    [PRIM_BITCAST_CONVERT_TYPE] = BIT_SAME(bitcast_copy),
};

ew_kernel_fn ew_kernel_bits(prim_id prim, cj_dtype dt) {
    if ((int)prim < 0 || prim >= PRIM_COUNT || !rt_dtype_valid((int)dt)) return NULL;
    return bit_kernels[prim][dt];
}
