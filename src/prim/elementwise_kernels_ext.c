/* elementwise_kernels_ext.c — the eager loops of the elementwise
 * primitives for the dtypes added after f64 (prim layer; the contract is
 * elementwise_kernels.h's, and ew_kernel looks here for those dtypes).
 *
 * Integers (i8, i16, u8, u16, u32, u64) follow XLA on CPU, as the i32/i64
 * kernels do: add, sub, mul, neg wrap around; x / 0 is -1 (all ones: the
 * largest value of an unsigned type) and x % 0 = x; INT_MIN / -1 = INT_MIN,
 * INT_MIN % -1 = 0; sign of an unsigned value is 0 or 1; abs only for the
 * signed types (lax refuses unsigned). Arithmetic goes through an unsigned
 * type at least as wide as int, so 8- and 16-bit operands never promote to
 * a signed int that overflows.
 *
 * f16 and bf16 are computed in f32, as XLA's CPU backend does: a tile of
 * each operand is widened to f32 (exact), the primitive's f32 kernel runs
 * on it, and the result is rounded to nearest even on store (or kept, when
 * it is bool); the widening and rounding of a tile run as vector code
 * where the CPU has it (half_convert.h: F16C for f16, AVX2 shifts for
 * bf16; bit for bit the scalar conversions). For add, sub, mul, div, sqrt that is the correctly rounded
 * narrow result (f32 has more than twice the bits); transcendentals carry
 * the f32 kernel's error into the rounding. integer_pow and logistic round
 * after every step, as XLA expands them into narrow operations. select_n
 * moves bits.
 * Fixtures: tests/data/gen_dtype_ops_fixtures.py. */
#include <string.h>

#include "../runtime/half.h"
#include "../runtime/half_convert.h"
#include "elementwise_kernels.h"

/* ---- loop shapes (a rank-0 operand is read at index 0) ---- */

#define EXT_BINARY(NAME, T, TO, EXPR)                                              \
    static void NAME(const ew_operands *ops, int64_t begin, int64_t end) {         \
        const T *as = (const T *)ops->in[0], *bs = (const T *)ops->in[1];          \
        TO *ys = (TO *)ops->out;                                                   \
        const int64_t sa = ops->scalar[0] ? 0 : 1, sb = ops->scalar[1] ? 0 : 1;    \
        for (int64_t i = begin; i < end; i++) {                                    \
            const T a = as[i * sa], b = bs[i * sb];                                \
            ys[i] = (TO)(EXPR);                                                    \
        }                                                                          \
    }

/* ---- integers ---- */
#define EXT_INT_HELPERS(T, U, SFX, SIGNED)                                         \
    static inline T wadd_##SFX(T a, T b) { return (T)((U)a + (U)b); }              \
    static inline T wsub_##SFX(T a, T b) { return (T)((U)a - (U)b); }              \
    static inline T wmul_##SFX(T a, T b) { return (T)((U)a * (U)b); }              \
    static inline T wneg_##SFX(T a) { return (T)((U)0 - (U)a); }                   \
    static inline T idiv_##SFX(T a, T b) {                                         \
        if (b == 0) return (T)-1;                                                  \
        if (SIGNED && b == (T)-1) return wneg_##SFX(a); /* INT_MIN / -1 wraps */   \
        return (T)(a / b);                                                         \
    }                                                                              \
    static inline T irem_##SFX(T a, T b) {                                         \
        if (b == 0) return a;                                                      \
        if (SIGNED && b == (T)-1) return 0; /* also INT_MIN % -1 */                \
        return (T)(a % b);                                                         \
    }                                                                              \
    static inline T imax_##SFX(T a, T b) { return a > b ? a : b; }                 \
    static inline T imin_##SFX(T a, T b) { return a < b ? a : b; }                 \
    static inline T ipow_##SFX(T x, int64_t y) { /* y >= 0; binary powering, low bit first */ \
        if (y == 0) return (T)1;                                                   \
        T acc = (T)1;                                                              \
        int have = 0;                                                              \
        while (y > 0) {                                                            \
            if (y & 1) acc = have ? wmul_##SFX(acc, x) : x, have = 1;              \
            y >>= 1;                                                               \
            if (y > 0) x = wmul_##SFX(x, x);                                       \
        }                                                                          \
        return acc;                                                                \
    }

EXT_INT_HELPERS(int8_t, uint32_t, i8, 1)
EXT_INT_HELPERS(int16_t, uint32_t, i16, 1)
EXT_INT_HELPERS(uint8_t, uint32_t, u8, 0)
EXT_INT_HELPERS(uint16_t, uint32_t, u16, 0)
EXT_INT_HELPERS(uint32_t, uint32_t, u32, 0)
EXT_INT_HELPERS(uint64_t, uint64_t, u64, 0)
static inline int8_t isign_i8(int8_t x) { return (int8_t)((x > 0) - (x < 0)); }
static inline int16_t isign_i16(int16_t x) { return (int16_t)((x > 0) - (x < 0)); }
static inline uint8_t isign_u8(uint8_t x) { return x != 0; }
static inline uint16_t isign_u16(uint16_t x) { return x != 0; }
static inline uint32_t isign_u32(uint32_t x) { return x != 0; }
static inline uint64_t isign_u64(uint64_t x) { return x != 0; }

#define EXT_INT_KERNELS(T, SFX)                                            \
    EXT_BINARY(add_##SFX, T, T, wadd_##SFX(a, b))                                  \
    EXT_BINARY(sub_##SFX, T, T, wsub_##SFX(a, b))                                  \
    EXT_BINARY(mul_##SFX, T, T, wmul_##SFX(a, b))                                  \
    EXT_BINARY(div_##SFX, T, T, idiv_##SFX(a, b))                                  \
    EXT_BINARY(rem_##SFX, T, T, irem_##SFX(a, b))                                  \
    EXT_BINARY(max_##SFX, T, T, imax_##SFX(a, b))                                  \
    EXT_BINARY(min_##SFX, T, T, imin_##SFX(a, b))                                  \
    EXT_BINARY(eq_##SFX, T, uint8_t, a == b)                                       \
    EXT_BINARY(ne_##SFX, T, uint8_t, a != b)                                       \
    EXT_BINARY(lt_##SFX, T, uint8_t, a < b)                                        \
    EXT_BINARY(le_##SFX, T, uint8_t, a <= b)                                       \
    EXT_BINARY(gt_##SFX, T, uint8_t, a > b)                                        \
    EXT_BINARY(ge_##SFX, T, uint8_t, a >= b)                                       \
    EXT_BINARY(and_##SFX, T, T, a & b)                                             \
    EXT_BINARY(or_##SFX, T, T, a | b)                                              \
    EXT_BINARY(xor_##SFX, T, T, a ^ b)                                             \
    EW_UNARY(neg_##SFX, T, T, wneg_##SFX(x))                                      \
    EW_UNARY(sign_##SFX, T, T, isign_##SFX(x))                                    \
    EW_UNARY(not_##SFX, T, T, ~x)                                                 \
    static void integer_pow_##SFX(const ew_operands *ops, int64_t begin, int64_t end) { \
        const T *xs = (const T *)ops->in[0];                                       \
        T *ys = (T *)ops->out;                                                     \
        const int64_t y = ops->param;                                              \
        /* a negative power is 1 / x^-y in integers (x / 0 is -1 as above) */      \
        for (int64_t i = begin; i < end; i++)                                      \
            ys[i] = y >= 0 ? ipow_##SFX(xs[i], y) : idiv_##SFX((T)1, ipow_##SFX(xs[i], -y)); \
    }                                                                              \
    static void clamp_##SFX(const ew_operands *ops, int64_t begin, int64_t end) {  \
        const T *lo = (const T *)ops->in[0], *x = (const T *)ops->in[1], *hi = (const T *)ops->in[2]; \
        T *y = (T *)ops->out;                                                      \
        const int64_t sl = ops->scalar[0] ? 0 : 1, sh = ops->scalar[2] ? 0 : 1;    \
        for (int64_t i = begin; i < end; i++)                                      \
            y[i] = imin_##SFX(imax_##SFX(x[i], lo[i * sl]), hi[i * sh]);           \
    }

EXT_INT_KERNELS(int8_t, i8)
EXT_INT_KERNELS(int16_t, i16)
EXT_INT_KERNELS(uint8_t, u8)
EXT_INT_KERNELS(uint16_t, u16)
EXT_INT_KERNELS(uint32_t, u32)
EXT_INT_KERNELS(uint64_t, u64)
static inline int8_t iabs_i8(int8_t x) { return x < 0 ? wneg_i8(x) : x; }
static inline int16_t iabs_i16(int16_t x) { return x < 0 ? wneg_i16(x) : x; }
EW_UNARY(abs_i8, int8_t, int8_t, iabs_i8(x))
EW_UNARY(abs_i16, int16_t, int16_t, iabs_i16(x))

/* select_n(pred, on_false, on_true) of 1- and 2-byte elements: bits moved. */
#define EXT_SELECT(NAME, T)                                                        \
    static void NAME(const ew_operands *ops, int64_t begin, int64_t end) {         \
        const uint8_t *p = (const uint8_t *)ops->in[0];                            \
        const T *f = (const T *)ops->in[1], *t = (const T *)ops->in[2];            \
        T *y = (T *)ops->out;                                                      \
        const int64_t sp = ops->scalar[0] ? 0 : 1, sf = ops->scalar[1] ? 0 : 1,    \
                      st = ops->scalar[2] ? 0 : 1;                                 \
        for (int64_t i = begin; i < end; i++) y[i] = p[i * sp] ? t[i * st] : f[i * sf]; \
    }
EXT_SELECT(select_8, uint8_t)
EXT_SELECT(select_16, uint16_t)
EXT_SELECT(select_32, uint32_t)
EXT_SELECT(select_64, uint64_t)

/* ---- f16 and bf16, computed in f32 ---- */
#define NARROW_TILE 256

static inline float widen(bool bf16, uint16_t h) { return bf16 ? rt_bf16_to_f32(h) : rt_f16_to_f32(h); }
static inline uint16_t narrow(bool bf16, float x) { return bf16 ? rt_f32_to_bf16(x) : rt_f32_to_f16(x); }

/* Runs prim's f32 kernel over tiles of the widened operands. The operands
 * from `first` on are narrow floats (select_n's predicate is not; clamp's
 * three are); out_bool: the result is bool, stored as it is. */
static void via_f32(prim_id prim, const ew_operands *ops, int64_t begin, int64_t end, bool bf16, int n_in,
                    bool out_bool) {
    ew_kernel_fn k = ew_kernel(prim, CJ_F32);
    float tin[3][NARROW_TILE], tout[NARROW_TILE];
    for (int64_t i0 = begin; i0 < end; i0 += NARROW_TILE) {
        int64_t m = end - i0 < NARROW_TILE ? end - i0 : NARROW_TILE;
        ew_operands o = *ops;
        o.in_dtype = CJ_F32;
        o.out_dtype = out_bool ? CJ_BOOL : CJ_F32;
        for (int j = 0; j < n_in; j++) {
            const uint16_t *src = (const uint16_t *)ops->in[j];
            if (ops->scalar[j]) {
                tin[j][0] = widen(bf16, src[0]);
            } else {
                rt_narrow_to_f32_n(bf16, src + i0, tin[j], m);
            }
            o.in[j] = tin[j];
        }
        if (out_bool) {
            o.out = (uint8_t *)ops->out + i0;
            k(&o, 0, m);
        } else {
            o.out = tout;
            k(&o, 0, m);
            rt_f32_to_narrow_n(bf16, tout, (uint16_t *)ops->out + i0, m);
        }
    }
}

#define NARROW(OP, PRIM, N_IN, OUT_BOOL)                                                          \
    static void OP##_f16(const ew_operands *ops, int64_t b, int64_t e) { via_f32(PRIM, ops, b, e, false, N_IN, OUT_BOOL); } \
    static void OP##_bf16(const ew_operands *ops, int64_t b, int64_t e) { via_f32(PRIM, ops, b, e, true, N_IN, OUT_BOOL); }

/* integer_pow rounds after each multiply (XLA multiplies in the narrow type). */
#define NARROW_INTEGER_POW(SFX, BF16)                                                             \
    static void integer_pow_##SFX(const ew_operands *ops, int64_t begin, int64_t end) {           \
        const uint16_t *xs = (const uint16_t *)ops->in[0];                                        \
        uint16_t *ys = (uint16_t *)ops->out;                                                      \
        const int64_t y0 = ops->param;                                                            \
        for (int64_t i = begin; i < end; i++) {                                                   \
            float x = widen(BF16, xs[i]), acc = 1.0f;                                             \
            int64_t k = y0 < 0 ? -y0 : y0;                                                        \
            int have = 0;                                                                         \
            while (k > 0) {                                                                       \
                if (k & 1) acc = have ? widen(BF16, narrow(BF16, acc * x)) : x, have = 1;         \
                k >>= 1;                                                                          \
                if (k > 0) x = widen(BF16, narrow(BF16, x * x));                                  \
            }                                                                                     \
            if (y0 < 0) acc = 1.0f / acc;                                                         \
            ys[i] = narrow(BF16, acc);                                                            \
        }                                                                                         \
    }
NARROW_INTEGER_POW(f16, false)
NARROW_INTEGER_POW(bf16, true)

NARROW(add, PRIM_ADD, 2, false)
NARROW(sub, PRIM_SUB, 2, false)
NARROW(mul, PRIM_MUL, 2, false)
NARROW(div, PRIM_DIV, 2, false)
NARROW(rem, PRIM_REM, 2, false)
NARROW(pow, PRIM_POW, 2, false)
/* bf16 max/min through f32 give XLA's bits: the f32 rule (elementwise_kernels.c),
 * then f32 -> bf16 makes every NaN the quiet one of its sign, as XLA's does.
 * f16 max/min pick operand bits instead, compared in f32: XLA keeps an f16
 * NaN's payload, signalling ones too, which the widening to f32 would quiet. */
static void max_bf16(const ew_operands *ops, int64_t b, int64_t e) { via_f32(PRIM_MAX, ops, b, e, true, 2, false); }
static void min_bf16(const ew_operands *ops, int64_t b, int64_t e) { via_f32(PRIM_MIN, ops, b, e, true, 2, false); }
static inline uint16_t f16_max_bits(uint16_t a, uint16_t b) {
    float fa = rt_f16_to_f32(a), fb = rt_f16_to_f32(b);
    return (fa != fa) | (fa > fb) ? a : (uint16_t)(b & (a | 0x7fffu));
}
static inline uint16_t f16_min_bits(uint16_t a, uint16_t b) {
    float fa = rt_f16_to_f32(a), fb = rt_f16_to_f32(b);
    return (fa != fa) | (fa < fb) ? a : (uint16_t)(b | (a & 0x8000u));
}
EXT_BINARY(max_f16_bits, uint16_t, uint16_t, f16_max_bits(a, b))
EXT_BINARY(min_f16_bits, uint16_t, uint16_t, f16_min_bits(a, b))
NARROW(atan2, PRIM_ATAN2, 2, false)
NARROW(nextafter, PRIM_NEXTAFTER, 2, false)
NARROW(eq, PRIM_EQ, 2, true)
NARROW(ne, PRIM_NE, 2, true)
NARROW(lt, PRIM_LT, 2, true)
NARROW(le, PRIM_LE, 2, true)
NARROW(gt, PRIM_GT, 2, true)
NARROW(ge, PRIM_GE, 2, true)
NARROW(clamp, PRIM_CLAMP, 3, false)
/* f16 neg and abs are sign-bit operations, as XLA's CPU backend emits
 * them (fneg / fabs on the half type): a signalling NaN keeps its payload
 * (measured over all 65,536 f16 patterns against jax 0.10.2). bf16 goes
 * through f32 there, as here, so its signalling NaNs come back quiet. */
EW_UNARY(neg_f16, uint16_t, uint16_t, x ^ 0x8000u)
EW_UNARY(abs_f16, uint16_t, uint16_t, x & 0x7fffu)
static void neg_bf16(const ew_operands *ops, int64_t b, int64_t e) { via_f32(PRIM_NEG, ops, b, e, true, 1, false); }
static void abs_bf16(const ew_operands *ops, int64_t b, int64_t e) { via_f32(PRIM_ABS, ops, b, e, true, 1, false); }
NARROW(sign, PRIM_SIGN, 1, false)
NARROW(floor, PRIM_FLOOR, 1, false)
NARROW(ceil, PRIM_CEIL, 1, false)
NARROW(round, PRIM_ROUND, 1, false)
NARROW(sqrt, PRIM_SQRT, 1, false)
NARROW(rsqrt, PRIM_RSQRT, 1, false)
NARROW(exp, PRIM_EXP, 1, false)
NARROW(exp2, PRIM_EXP2, 1, false)
NARROW(log, PRIM_LOG, 1, false)
NARROW(log1p, PRIM_LOG1P, 1, false)
NARROW(expm1, PRIM_EXPM1, 1, false)
NARROW(cbrt, PRIM_CBRT, 1, false)
NARROW(sin, PRIM_SIN, 1, false)
NARROW(cos, PRIM_COS, 1, false)
NARROW(tan, PRIM_TAN, 1, false)
NARROW(asin, PRIM_ASIN, 1, false)
NARROW(acos, PRIM_ACOS, 1, false)
NARROW(atan, PRIM_ATAN, 1, false)
NARROW(sinh, PRIM_SINH, 1, false)
NARROW(cosh, PRIM_COSH, 1, false)
NARROW(tanh, PRIM_TANH, 1, false)
NARROW(erf, PRIM_ERF, 1, false)
NARROW(erfc, PRIM_ERFC, 1, false)
NARROW(erfinv, PRIM_ERF_INV, 1, false)
NARROW(asinh, PRIM_ASINH, 1, false)
NARROW(acosh, PRIM_ACOSH, 1, false)
NARROW(atanh, PRIM_ATANH, 1, false)
NARROW(lgamma, PRIM_LGAMMA, 1, false)
NARROW(digamma, PRIM_DIGAMMA, 1, false)
NARROW(is_finite, PRIM_IS_FINITE, 1, true)
NARROW(signbit, PRIM_SIGNBIT, 1, true)

/* logistic as XLA expands it, 1 / (1 + exp(-x)) with each step rounded to
 * the narrow type: so in f16 exp(-x) overflows to inf below x ≈ -11.1 and
 * the result is 0 there, as JAX gives. */
static void logistic_narrow(const ew_operands *ops, int64_t begin, int64_t end, bool bf16) {
    ew_kernel_fn exp32 = ew_kernel(PRIM_EXP, CJ_F32);
    float t[NARROW_TILE], e[NARROW_TILE];
    const uint16_t *xs = (const uint16_t *)ops->in[0];
    uint16_t *ys = (uint16_t *)ops->out;
    for (int64_t i0 = begin; i0 < end; i0 += NARROW_TILE) {
        int64_t m = end - i0 < NARROW_TILE ? end - i0 : NARROW_TILE;
        for (int64_t q = 0; q < m; q++) t[q] = -widen(bf16, xs[i0 + q]);
        ew_operands o = *ops;
        o.in[0] = t;
        o.out = e;
        o.in_dtype = o.out_dtype = CJ_F32;
        exp32(&o, 0, m);
        for (int64_t q = 0; q < m; q++) {
            float d = widen(bf16, narrow(bf16, 1.0f + widen(bf16, narrow(bf16, e[q]))));
            ys[i0 + q] = narrow(bf16, 1.0f / d);
        }
    }
}
static void logistic_f16(const ew_operands *ops, int64_t b, int64_t e) { logistic_narrow(ops, b, e, false); }
static void logistic_bf16(const ew_operands *ops, int64_t b, int64_t e) { logistic_narrow(ops, b, e, true); }

/* ---- the table of the later dtypes ---- */
#define EXT_NARROW(OP) [CJ_F16] = OP##_f16, [CJ_BF16] = OP##_bf16
#define EXT_SIGNED(OP) [CJ_I8] = OP##_i8, [CJ_I16] = OP##_i16
#define EXT_UNSIGNED(OP) [CJ_U8] = OP##_u8, [CJ_U16] = OP##_u16, [CJ_U32] = OP##_u32, [CJ_U64] = OP##_u64
#define EXT_INTS(OP) EXT_SIGNED(OP), EXT_UNSIGNED(OP)
#define EXT_NUMBERS(OP) {EXT_INTS(OP), EXT_NARROW(OP)}
#define EXT_FLOATS(OP) {EXT_NARROW(OP)}

static const ew_kernel_fn ext_kernels[PRIM_COUNT][CJ_NUM_DTYPES] = {
    [PRIM_ADD] = EXT_NUMBERS(add),
    [PRIM_SUB] = EXT_NUMBERS(sub),
    [PRIM_MUL] = EXT_NUMBERS(mul),
    [PRIM_DIV] = EXT_NUMBERS(div),
    [PRIM_REM] = EXT_NUMBERS(rem),
    [PRIM_MAX] = {EXT_INTS(max), [CJ_F16] = max_f16_bits, [CJ_BF16] = max_bf16},
    [PRIM_MIN] = {EXT_INTS(min), [CJ_F16] = min_f16_bits, [CJ_BF16] = min_bf16},
    [PRIM_EQ] = EXT_NUMBERS(eq),
    [PRIM_NE] = EXT_NUMBERS(ne),
    [PRIM_LT] = EXT_NUMBERS(lt),
    [PRIM_LE] = EXT_NUMBERS(le),
    [PRIM_GT] = EXT_NUMBERS(gt),
    [PRIM_GE] = EXT_NUMBERS(ge),
    [PRIM_CLAMP] = EXT_NUMBERS(clamp),
    [PRIM_NEG] = EXT_NUMBERS(neg),
    [PRIM_SIGN] = EXT_NUMBERS(sign),
    [PRIM_INTEGER_POW] = EXT_NUMBERS(integer_pow),
    [PRIM_ABS] = {EXT_SIGNED(abs), EXT_NARROW(abs)}, /* lax refuses abs of unsigned types */
    [PRIM_AND] = {EXT_INTS(and)},
    [PRIM_OR] = {EXT_INTS(or)},
    [PRIM_XOR] = {EXT_INTS(xor)},
    [PRIM_NOT] = {EXT_INTS(not)},
    [PRIM_SELECT] = {[CJ_I8] = select_8, [CJ_U8] = select_8, [CJ_I16] = select_16, [CJ_U16] = select_16,
                     [CJ_F16] = select_16, [CJ_BF16] = select_16, [CJ_U32] = select_32, [CJ_U64] = select_64},
    [PRIM_POW] = EXT_FLOATS(pow),
    [PRIM_ATAN2] = EXT_FLOATS(atan2),
    [PRIM_NEXTAFTER] = EXT_FLOATS(nextafter),
    [PRIM_FLOOR] = EXT_FLOATS(floor),
    [PRIM_CEIL] = EXT_FLOATS(ceil),
    [PRIM_ROUND] = EXT_FLOATS(round),
    [PRIM_SQRT] = EXT_FLOATS(sqrt),
    [PRIM_RSQRT] = EXT_FLOATS(rsqrt),
    [PRIM_EXP] = EXT_FLOATS(exp),
    [PRIM_EXP2] = EXT_FLOATS(exp2),
    [PRIM_LOG] = EXT_FLOATS(log),
    [PRIM_LOG1P] = EXT_FLOATS(log1p),
    [PRIM_EXPM1] = EXT_FLOATS(expm1),
    [PRIM_CBRT] = EXT_FLOATS(cbrt),
    [PRIM_SIN] = EXT_FLOATS(sin),
    [PRIM_COS] = EXT_FLOATS(cos),
    [PRIM_TAN] = EXT_FLOATS(tan),
    [PRIM_ASIN] = EXT_FLOATS(asin),
    [PRIM_ACOS] = EXT_FLOATS(acos),
    [PRIM_ATAN] = EXT_FLOATS(atan),
    [PRIM_SINH] = EXT_FLOATS(sinh),
    [PRIM_COSH] = EXT_FLOATS(cosh),
    [PRIM_TANH] = EXT_FLOATS(tanh),
    [PRIM_LOGISTIC] = EXT_FLOATS(logistic),
    [PRIM_ERF] = EXT_FLOATS(erf),
    [PRIM_ERFC] = EXT_FLOATS(erfc),
    [PRIM_ERF_INV] = EXT_FLOATS(erfinv),
    [PRIM_ASINH] = EXT_FLOATS(asinh),
    [PRIM_ACOSH] = EXT_FLOATS(acosh),
    [PRIM_ATANH] = EXT_FLOATS(atanh),
    [PRIM_LGAMMA] = EXT_FLOATS(lgamma),
    [PRIM_DIGAMMA] = EXT_FLOATS(digamma),
    [PRIM_IS_FINITE] = EXT_FLOATS(is_finite),
    [PRIM_SIGNBIT] = EXT_FLOATS(signbit),
};

ew_kernel_fn ew_kernel_ext(prim_id prim, cj_dtype dt) {
    if ((int)prim < 0 || prim >= PRIM_COUNT || !rt_dtype_valid((int)dt)) return NULL;
    return ext_kernels[prim][dt];
}
