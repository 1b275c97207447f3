/* elementwise_kernels.c — the eager loops of the elementwise primitives
 * (prim layer; see elementwise_kernels.h for the contract).
 *
 * Each kernel is one plain loop per operand layout (all dense, or one
 * operand a rank-0 scalar read once), written so gcc and clang vectorise it
 * under the kernel flags (-O3 -fno-math-errno -fno-trapping-math):
 * comparisons become compare-selects, floor/ceil/rint/sqrt become single
 * instructions. Transcendental functions go through src/runtime/vmath.h,
 * never a libm call per element.
 *
 * Integer semantics follow XLA (what lax gives on CPU) and never trap or
 * invoke C undefined behaviour: add/sub/mul/neg/abs wrap around in two's
 * complement; x / 0 = -1 and INT_MIN / -1 = INT_MIN; x % 0 = x and
 * INT_MIN % -1 = 0; integer pow with a negative exponent is 0 except for
 * bases 1 and -1. Bool arrays hold 0 or 1.
 *
 * The table at the end maps (primitive, dtype) to its kernel. It is also
 * the one list of the dtypes each primitive accepts: abstract_eval rejects
 * a dtype that has no kernel here. */
/* Compiled once per instruction-set level (elementwise_dispatch.c): this
 * compilation's table lookup is ew_kernel_<level>. */
#ifndef EW_ISA_NAME
#define EW_ISA_NAME ew_kernel_base
#endif
#define ew_kernel EW_ISA_NAME
#include "elementwise_kernels.h"

#include <math.h>
#include <string.h>

#include "../runtime/half_convert.h"
#include "../runtime/vmath.h"
#include "../runtime/vmath_special.h"

/* ---- integer arithmetic without undefined behaviour ---- */
#define INTEGER_HELPERS(T, U, SFX)                                                 \
    static inline T wadd_##SFX(T a, T b) { return (T)((U)a + (U)b); }              \
    static inline T wsub_##SFX(T a, T b) { return (T)((U)a - (U)b); }              \
    static inline T wmul_##SFX(T a, T b) { return (T)((U)a * (U)b); }              \
    static inline T wneg_##SFX(T a) { return (T)((U)0 - (U)a); }                   \
    static inline T wabs_##SFX(T a) { return a < 0 ? wneg_##SFX(a) : a; }          \
    static inline T idiv_##SFX(T a, T b) {                                         \
        if (b == 0) return -1;                                                     \
        if (b == -1) return wneg_##SFX(a); /* INT_MIN / -1 wraps to INT_MIN */     \
        return a / b;                                                              \
    }                                                                              \
    static inline T irem_##SFX(T a, T b) {                                         \
        if (b == 0) return a;                                                      \
        if (b == -1) return 0; /* also INT_MIN % -1, which traps in C */           \
        return a % b;                                                              \
    }                                                                              \
    /* Exponentiation by squaring, wrapping on overflow. */                        \
    static inline T ipow_##SFX(T base, T e) {                                      \
        if (e < 0) return base == 1 ? 1 : base == -1 ? ((e & 1) ? -1 : 1) : 0;     \
        U r = 1, b = (U)base, k = (U)e;                                            \
        while (k) {                                                                \
            if (k & 1) r *= b;                                                     \
            b *= b;                                                                \
            k >>= 1;                                                               \
        }                                                                          \
        return (T)r;                                                               \
    }                                                                              \
    static inline T isign_##SFX(T x) { return (T)((x > 0) - (x < 0)); }

INTEGER_HELPERS(int32_t, uint32_t, i32)
INTEGER_HELPERS(int64_t, uint64_t, i64)

/* NaN-propagating max/min (jnp.maximum): a NaN operand wins. Written as
 * the plain select followed by the NaN select, the form gcc vectorises
 * even when two of them are chained (clamp). For integer types `a != a`
 * is false and compiles away. */
#define NAN_PROPAGATING_MAX_MIN(T, SFX)                                            \
    static inline T maxp_##SFX(T a, T b) {                                         \
        T r = a > b ? a : b;                                                       \
        return a != a ? a : r;                                                     \
    }                                                                              \
    static inline T minp_##SFX(T a, T b) {                                         \
        T r = a < b ? a : b;                                                       \
        return a != a ? a : r;                                                     \
    }
NAN_PROPAGATING_MAX_MIN(uint8_t, u8)
NAN_PROPAGATING_MAX_MIN(int32_t, i32)
NAN_PROPAGATING_MAX_MIN(int64_t, i64)

/* Floats also order the zeros as IEEE 754-2019's maximum/minimum (and
 * XLA): max(+0, -0) = +0 and min(+0, -0) = -0 in either argument order;
 * and a NaN result's bits are XLA's on CPU (measured against jitted and
 * eager JAX 0.10, tests/data/minmax_nan): a NaN first operand is returned
 * as it is; otherwise, whenever b is not strictly beaten, the result is
 * b with the sign bit AND-ed (max) or OR-ed (min) with a's. That one rule
 * gives the zeros (the bits of equal operands differ at most in the sign)
 * and a NaN b its payload with the joined sign (max(1, -NaN) = +NaN); for
 * an ordered b that wins, the sign is b's already. Bit selects on memcpy
 * puns: still vectorised. */
#define NAN_PROPAGATING_MAX_MIN_FLOAT(T, U, SFX)                                   \
    static inline T sign_join_##SFX(T a, T b, int is_max) {                        \
        U ua, ub;                                                                  \
        memcpy(&ua, &a, sizeof ua);                                                \
        memcpy(&ub, &b, sizeof ub);                                                \
        const U sign = (U)1 << (sizeof(U) * 8 - 1);                                \
        U u = is_max ? ub & (ua | ~sign) : ub | (ua & sign);                       \
        T r;                                                                       \
        memcpy(&r, &u, sizeof r);                                                  \
        return r;                                                                  \
    }                                                                              \
    static inline T maxp_##SFX(T a, T b) {                                         \
        T r = a > b ? a : sign_join_##SFX(a, b, 1);                                \
        return a != a ? a : r;                                                     \
    }                                                                              \
    static inline T minp_##SFX(T a, T b) {                                         \
        T r = a < b ? a : sign_join_##SFX(a, b, 0);                                \
        return a != a ? a : r;                                                     \
    }
NAN_PROPAGATING_MAX_MIN_FLOAT(float, uint32_t, f32)
NAN_PROPAGATING_MAX_MIN_FLOAT(double, uint64_t, f64)
#define MAXP(a, b)                                                                 \
    _Generic((a), uint8_t: maxp_u8, int32_t: maxp_i32, int64_t: maxp_i64,          \
             float: maxp_f32, double: maxp_f64)(a, b)
#define MINP(a, b)                                                                 \
    _Generic((a), uint8_t: minp_u8, int32_t: minp_i32, int64_t: minp_i64,          \
             float: minp_f32, double: minp_f64)(a, b)

static inline float signf_(float x) { return x > 0 ? 1.0f : x < 0 ? -1.0f : x; }
static inline double sign_(double x) { return x > 0 ? 1.0 : x < 0 ? -1.0 : x; }

/* ---- loop shapes ---- */


/* y[i] = EXPR(a, b); one loop per layout so each is a plain stride-1 loop.
 * When both operands are scalars the range is [0, 1) and the last loop
 * reads index 0 of each. */
#define BINARY(NAME, T, TO, EXPR)                                                  \
    static void NAME(const ew_operands *ops, int64_t begin, int64_t end) {         \
        const T *as = (const T *)ops->in[0], *bs = (const T *)ops->in[1];          \
        TO *ys = (TO *)ops->out;                                                   \
        if (ops->scalar[0] && !ops->scalar[1]) {                                   \
            const T a = as[0];                                                     \
            for (int64_t i = begin; i < end; i++) {                                \
                const T b = bs[i];                                                 \
                ys[i] = (TO)(EXPR);                                                \
            }                                                                      \
        } else if (ops->scalar[1] && !ops->scalar[0]) {                            \
            const T b = bs[0];                                                     \
            for (int64_t i = begin; i < end; i++) {                                \
                const T a = as[i];                                                 \
                ys[i] = (TO)(EXPR);                                                \
            }                                                                      \
        } else {                                                                   \
            for (int64_t i = begin; i < end; i++) {                                \
                const T a = as[i], b = bs[i];                                      \
                ys[i] = (TO)(EXPR);                                                \
            }                                                                      \
        }                                                                          \
    }

/* The same expression for every dtype of a class. */
#define BINARY_INTS(OP, EXPR_I32, EXPR_I64)                                        \
    BINARY(OP##_i32, int32_t, int32_t, EXPR_I32)                                   \
    BINARY(OP##_i64, int64_t, int64_t, EXPR_I64)
#define BINARY_FLOATS(OP, EXPR)                                                    \
    BINARY(OP##_f32, float, float, EXPR)                                           \
    BINARY(OP##_f64, double, double, EXPR)
#define BINARY_ALL(OP, EXPR)                                                       \
    BINARY(OP##_bool, uint8_t, uint8_t, EXPR)                                      \
    BINARY_INTS(OP, EXPR, EXPR)                                                    \
    BINARY_FLOATS(OP, EXPR)
#define COMPARE_ALL(OP, EXPR)                                                      \
    BINARY(OP##_bool, uint8_t, uint8_t, EXPR)                                      \
    BINARY(OP##_i32, int32_t, uint8_t, EXPR)                                       \
    BINARY(OP##_i64, int64_t, uint8_t, EXPR)                                       \
    BINARY(OP##_f32, float, uint8_t, EXPR)                                         \
    BINARY(OP##_f64, double, uint8_t, EXPR)
#define BITWISE_ALL(OP, EXPR)                                                      \
    BINARY(OP##_bool, uint8_t, uint8_t, EXPR)                                      \
    BINARY_INTS(OP, EXPR, EXPR)

/* ---- unary kernels ---- */
EW_UNARY(neg_i32, int32_t, int32_t, wneg_i32(x))
EW_UNARY(neg_i64, int64_t, int64_t, wneg_i64(x))
EW_UNARY(neg_f32, float, float, -x)
EW_UNARY(neg_f64, double, double, -x)
EW_UNARY(abs_i32, int32_t, int32_t, wabs_i32(x))
EW_UNARY(abs_i64, int64_t, int64_t, wabs_i64(x))
EW_UNARY(abs_f32, float, float, fabsf(x))
EW_UNARY(abs_f64, double, double, fabs(x))
EW_UNARY(sign_i32, int32_t, int32_t, isign_i32(x))
EW_UNARY(sign_i64, int64_t, int64_t, isign_i64(x))
EW_UNARY(sign_f32, float, float, signf_(x))
EW_UNARY(sign_f64, double, double, sign_(x))
EW_UNARY(floor_f32, float, float, floorf(x))
EW_UNARY(floor_f64, double, double, floor(x))
EW_UNARY(ceil_f32, float, float, ceilf(x))
EW_UNARY(ceil_f64, double, double, ceil(x))
/* rint rounds half to even in the default rounding mode (jnp.round). */
EW_UNARY(round_f32, float, float, rintf(x))
EW_UNARY(round_f64, double, double, rint(x))
EW_UNARY(sqrt_f32, float, float, sqrtf(x))
EW_UNARY(sqrt_f64, double, double, sqrt(x))
EW_UNARY(rsqrt_f32, float, float, 1.0f / sqrtf(x))
EW_UNARY(rsqrt_f64, double, double, 1.0 / sqrt(x))
EW_UNARY(not_bool, uint8_t, uint8_t, x == 0)
EW_UNARY(not_i32, int32_t, int32_t, ~x)
EW_UNARY(not_i64, int64_t, int64_t, ~x)
/* |x| < inf is false for ±inf and for NaN (every comparison with NaN is). */
EW_UNARY(is_finite_f32, float, uint8_t, fabsf(x) < INFINITY)
EW_UNARY(is_finite_f64, double, uint8_t, fabs(x) < INFINITY)

/* Transcendentals: whole ranges through vmath. */
#define VMATH_UNARY(OP)                                                            \
    static void OP##_f32(const ew_operands *ops, int64_t begin, int64_t end) {     \
        vm_##OP##_f32((const float *)ops->in[0] + begin, (float *)ops->out + begin, \
                      end - begin);                                                \
    }                                                                              \
    static void OP##_f64(const ew_operands *ops, int64_t begin, int64_t end) {     \
        vm_##OP##_f64((const double *)ops->in[0] + begin,                          \
                      (double *)ops->out + begin, end - begin);                    \
    }
VMATH_UNARY(exp)
VMATH_UNARY(exp2)
VMATH_UNARY(log)
VMATH_UNARY(log1p)
VMATH_UNARY(expm1)
VMATH_UNARY(cbrt)
VMATH_UNARY(sin)
VMATH_UNARY(cos)
VMATH_UNARY(tan)
VMATH_UNARY(asin)
VMATH_UNARY(acos)
VMATH_UNARY(atan)
VMATH_UNARY(sinh)
VMATH_UNARY(cosh)
VMATH_UNARY(tanh)
VMATH_UNARY(logistic)
VMATH_UNARY(erf)
VMATH_UNARY(lgamma)
VMATH_UNARY(digamma)
VMATH_UNARY(erfc)
VMATH_UNARY(erfinv)
VMATH_UNARY(asinh)
VMATH_UNARY(acosh)
VMATH_UNARY(atanh)

/* The sign bit itself (jnp.signbit): true for -0.0 and for a NaN with its
 * sign set, which no comparison sees. */
static inline uint8_t signbit_f32_(float x) {
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return (uint8_t)(u >> 31);
}
static inline uint8_t signbit_f64_(double x) {
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return (uint8_t)(u >> 63);
}
EW_UNARY(signbit_f32, float, uint8_t, signbit_f32_(x))
EW_UNARY(signbit_f64, double, uint8_t, signbit_f64_(x))

/* integer_pow(x, y) multiplies in exactly the order of JAX's
 * _integer_pow (binary powering from the low bit, then 1/acc for y < 0),
 * so results match XLA's bit for bit; integers wrap. */
#define INTEGER_POW(SFX, T, MUL)                                                   \
    static inline T ipow_by_##SFX(T x, int64_t y) {                                \
        if (y == 0) return (T)1;                                                   \
        int64_t k = y < 0 ? -y : y;                                                \
        T acc = (T)1;                                                              \
        int have = 0;                                                              \
        while (k > 0) {                                                            \
            if (k & 1) acc = have ? MUL(acc, x) : x, have = 1;                     \
            k >>= 1;                                                               \
            if (k > 0) x = MUL(x, x);                                              \
        }                                                                          \
        return acc;                                                                \
    }                                                                              \
    static void integer_pow_##SFX(const ew_operands *ops, int64_t begin, int64_t end) { \
        const T *xs = (const T *)ops->in[0];                                       \
        T *ys = (T *)ops->out;                                                     \
        const int64_t y = ops->param;                                              \
        for (int64_t i = begin; i < end; i++) ys[i] = ipow_by_##SFX(xs[i], y);     \
        if (y < 0)                                                                 \
            for (int64_t i = begin; i < end; i++) ys[i] = (T)1 / ys[i];            \
    }
#define FMUL(a, b) ((a) * (b))
INTEGER_POW(f32, float, FMUL)
INTEGER_POW(f64, double, FMUL)
INTEGER_POW(i32, int32_t, wmul_i32)
INTEGER_POW(i64, int64_t, wmul_i64)
#undef FMUL

/* convert_element_type: every pair of dtypes, by the runtime's converter
 * (float → int truncates toward zero, NaN → 0, out of range saturates;
 * → bool is != 0). */
static void convert_any(const ew_operands *ops, int64_t begin, int64_t end) {
    size_t in_size = rt_dtypes[ops->in_dtype].size, out_size = rt_dtypes[ops->out_dtype].size;
    cj_dtype from = ops->in_dtype, to = ops->out_dtype;
    /* f32 <-> f16/bf16 as vector code where the CPU has it (the same bits) */
    if (from == CJ_F32 && (to == CJ_F16 || to == CJ_BF16)) {
        rt_f32_to_narrow_n(to == CJ_BF16, (const float *)ops->in[0] + begin, (uint16_t *)ops->out + begin, end - begin);
        return;
    }
    if (to == CJ_F32 && (from == CJ_F16 || from == CJ_BF16)) {
        rt_narrow_to_f32_n(from == CJ_BF16, (const uint16_t *)ops->in[0] + begin, (float *)ops->out + begin, end - begin);
        return;
    }
    rt_convert(ops->in_dtype, (const char *)ops->in[0] + (size_t)begin * in_size, ops->out_dtype,
               (char *)ops->out + (size_t)begin * out_size, end - begin);
}

/* ---- binary kernels ---- */
BINARY_INTS(add, wadd_i32(a, b), wadd_i64(a, b))
BINARY_FLOATS(add, a + b)
BINARY_INTS(sub, wsub_i32(a, b), wsub_i64(a, b))
BINARY_FLOATS(sub, a - b)
BINARY_INTS(mul, wmul_i32(a, b), wmul_i64(a, b))
BINARY_FLOATS(mul, a * b)
BINARY_INTS(div, idiv_i32(a, b), idiv_i64(a, b))
BINARY_FLOATS(div, a / b)
BINARY_INTS(rem, irem_i32(a, b), irem_i64(a, b))
/* fmod is exact; libm per element, as no vector form is exact. */
BINARY(rem_f32, float, float, fmodf(a, b))
BINARY(rem_f64, double, double, fmod(a, b))
BINARY_INTS(pow, ipow_i32(a, b), ipow_i64(a, b))
BINARY_ALL(max, MAXP(a, b))
BINARY_ALL(min, MINP(a, b))
COMPARE_ALL(eq, a == b)
COMPARE_ALL(ne, a != b)
COMPARE_ALL(lt, a < b)
COMPARE_ALL(le, a <= b)
COMPARE_ALL(gt, a > b)
COMPARE_ALL(ge, a >= b)
BITWISE_ALL(and, a & b)
BITWISE_ALL(or, a | b)
BITWISE_ALL(xor, a ^ b)

/* pow and atan2 on floats through vmath. vmath takes two arrays, so a
 * scalar operand is repeated into a small tile. */
#define VMATH_TILE 256
#define VMATH_BINARY(OP, T, SFX)                                                   \
    static void OP##_##SFX(const ew_operands *ops, int64_t begin, int64_t end) {   \
        const T *as = (const T *)ops->in[0], *bs = (const T *)ops->in[1];          \
        T *ys = (T *)ops->out;                                                     \
        if (ops->scalar[0] == ops->scalar[1]) { /* both dense, or n == 1 */        \
            vm_##OP##_##SFX(as + begin, bs + begin, ys + begin, end - begin);      \
            return;                                                                \
        }                                                                          \
        T tile[VMATH_TILE];                                                        \
        const T v = ops->scalar[0] ? as[0] : bs[0];                                \
        for (int k = 0; k < VMATH_TILE; k++) tile[k] = v;                          \
        for (int64_t i = begin; i < end; i += VMATH_TILE) {                        \
            int64_t m = end - i < VMATH_TILE ? end - i : VMATH_TILE;               \
            if (ops->scalar[0]) vm_##OP##_##SFX(tile, bs + i, ys + i, m);          \
            else vm_##OP##_##SFX(as + i, tile, ys + i, m);                         \
        }                                                                          \
    }
VMATH_BINARY(pow, float, f32)
VMATH_BINARY(pow, double, f64)
VMATH_BINARY(atan2, float, f32)
VMATH_BINARY(atan2, double, f64)
VMATH_BINARY(nextafter, float, f32)
VMATH_BINARY(nextafter, double, f64)
VMATH_BINARY(polygamma, float, f32)
VMATH_BINARY(polygamma, double, f64)

/* ---- ternary kernels ---- */

/* select_n(pred, on_false, on_true) moves elements without looking at
 * them, so one kernel per element size serves every dtype. */
#define SELECT(NAME, T)                                                            \
    static void NAME(const ew_operands *ops, int64_t begin, int64_t end) {         \
        const uint8_t *p = (const uint8_t *)ops->in[0];                            \
        const T *f = (const T *)ops->in[1], *t = (const T *)ops->in[2];            \
        T *y = (T *)ops->out;                                                      \
        if (ops->scalar[0]) { /* one case for the whole range */                   \
            int pick = p[0] ? 2 : 1;                                               \
            const T *src = (const T *)ops->in[pick];                               \
            if (ops->scalar[pick])                                                 \
                for (int64_t i = begin; i < end; i++) y[i] = src[0];               \
            else                                                                   \
                memmove(y + begin, src + begin, sizeof(T) * (size_t)(end - begin)); \
            return;                                                                \
        }                                                                          \
        if (!ops->scalar[1] && !ops->scalar[2]) {                                  \
            for (int64_t i = begin; i < end; i++) y[i] = p[i] ? t[i] : f[i];       \
        } else if (!ops->scalar[1]) {                                              \
            const T tv = t[0];                                                     \
            for (int64_t i = begin; i < end; i++) y[i] = p[i] ? tv : f[i];         \
        } else if (!ops->scalar[2]) {                                              \
            const T fv = f[0];                                                     \
            for (int64_t i = begin; i < end; i++) y[i] = p[i] ? t[i] : fv;         \
        } else {                                                                   \
            const T fv = f[0], tv = t[0];                                          \
            for (int64_t i = begin; i < end; i++) y[i] = p[i] ? tv : fv;           \
        }                                                                          \
    }
SELECT(select_8, uint8_t)
SELECT(select_32, uint32_t)
SELECT(select_64, uint64_t)

/* clamp(lo, x, hi) = min(max(x, lo), hi), NaN-propagating; x has the
 * output's shape (or everything is rank 0), lo and hi may be scalars. */
#define CLAMP(NAME, T)                                                             \
    static void NAME(const ew_operands *ops, int64_t begin, int64_t end) {         \
        const T *lo = (const T *)ops->in[0], *x = (const T *)ops->in[1],           \
                *hi = (const T *)ops->in[2];                                       \
        T *y = (T *)ops->out;                                                      \
        if (!ops->scalar[0] && !ops->scalar[2]) {                                  \
            for (int64_t i = begin; i < end; i++) {                                \
                const T v = x[i], l = lo[i], h = hi[i];                            \
                y[i] = MINP(MAXP(v, l), h);                                        \
            }                                                                      \
        } else if (!ops->scalar[0]) {                                              \
            const T h = hi[0];                                                     \
            for (int64_t i = begin; i < end; i++) {                                \
                const T v = x[i], l = lo[i];                                       \
                y[i] = MINP(MAXP(v, l), h);                                        \
            }                                                                      \
        } else if (!ops->scalar[2]) {                                              \
            const T l = lo[0];                                                     \
            for (int64_t i = begin; i < end; i++) {                                \
                const T v = x[i], h = hi[i];                                       \
                y[i] = MINP(MAXP(v, l), h);                                        \
            }                                                                      \
        } else {                                                                   \
            const T l = lo[0], h = hi[0];                                          \
            for (int64_t i = begin; i < end; i++) {                                \
                const T v = x[i];                                                  \
                y[i] = MINP(MAXP(v, l), h);                                        \
            }                                                                      \
        }                                                                          \
    }
CLAMP(clamp_bool, uint8_t)
CLAMP(clamp_i32, int32_t)
CLAMP(clamp_i64, int64_t)
CLAMP(clamp_f32, float)
CLAMP(clamp_f64, double)

/* ---- the table ---- */
#define FLOATS(OP) {[CJ_F32] = OP##_f32, [CJ_F64] = OP##_f64}
#define NUMBERS(OP) {[CJ_I32] = OP##_i32, [CJ_I64] = OP##_i64, [CJ_F32] = OP##_f32, [CJ_F64] = OP##_f64}
#define INTEGRAL(OP) {[CJ_BOOL] = OP##_bool, [CJ_I32] = OP##_i32, [CJ_I64] = OP##_i64}
#define ALL(OP)                                                                    \
    {[CJ_BOOL] = OP##_bool, [CJ_I32] = OP##_i32, [CJ_I64] = OP##_i64,              \
     [CJ_F32] = OP##_f32, [CJ_F64] = OP##_f64}
#define SAME(FN)                                                                   \
    {[CJ_BOOL] = FN, [CJ_I8] = FN,  [CJ_I16] = FN, [CJ_I32] = FN, [CJ_I64] = FN,   \
     [CJ_U8] = FN,   [CJ_U16] = FN, [CJ_U32] = FN, [CJ_U64] = FN, [CJ_F16] = FN,   \
     [CJ_BF16] = FN, [CJ_F32] = FN, [CJ_F64] = FN}

static const ew_kernel_fn kernels[PRIM_COUNT][CJ_NUM_DTYPES] = {
    [PRIM_NEG] = NUMBERS(neg),
    [PRIM_ABS] = NUMBERS(abs),
    [PRIM_SIGN] = NUMBERS(sign),
    [PRIM_FLOOR] = FLOATS(floor),
    [PRIM_CEIL] = FLOATS(ceil),
    [PRIM_ROUND] = FLOATS(round),
    [PRIM_EXP] = FLOATS(exp),
    [PRIM_EXP2] = FLOATS(exp2),
    [PRIM_LOG] = FLOATS(log),
    [PRIM_LOG1P] = FLOATS(log1p),
    [PRIM_EXPM1] = FLOATS(expm1),
    [PRIM_SQRT] = FLOATS(sqrt),
    [PRIM_RSQRT] = FLOATS(rsqrt),
    [PRIM_CBRT] = FLOATS(cbrt),
    [PRIM_SIN] = FLOATS(sin),
    [PRIM_COS] = FLOATS(cos),
    [PRIM_TAN] = FLOATS(tan),
    [PRIM_ASIN] = FLOATS(asin),
    [PRIM_ACOS] = FLOATS(acos),
    [PRIM_ATAN] = FLOATS(atan),
    [PRIM_SINH] = FLOATS(sinh),
    [PRIM_COSH] = FLOATS(cosh),
    [PRIM_TANH] = FLOATS(tanh),
    [PRIM_LOGISTIC] = FLOATS(logistic),
    [PRIM_ERF] = FLOATS(erf),
    [PRIM_NOT] = INTEGRAL(not),
    [PRIM_IS_FINITE] = FLOATS(is_finite),
    [PRIM_CONVERT] = SAME(convert_any),
    [PRIM_ADD] = NUMBERS(add),
    [PRIM_SUB] = NUMBERS(sub),
    [PRIM_MUL] = NUMBERS(mul),
    [PRIM_DIV] = NUMBERS(div),
    [PRIM_REM] = NUMBERS(rem),
    [PRIM_POW] = NUMBERS(pow),
    [PRIM_MAX] = ALL(max),
    [PRIM_MIN] = ALL(min),
    [PRIM_ATAN2] = FLOATS(atan2),
    [PRIM_EQ] = ALL(eq),
    [PRIM_NE] = ALL(ne),
    [PRIM_LT] = ALL(lt),
    [PRIM_LE] = ALL(le),
    [PRIM_GT] = ALL(gt),
    [PRIM_GE] = ALL(ge),
    [PRIM_AND] = INTEGRAL(and),
    [PRIM_OR] = INTEGRAL(or),
    [PRIM_XOR] = INTEGRAL(xor),
    [PRIM_SELECT] = {[CJ_BOOL] = select_8, [CJ_I32] = select_32, [CJ_I64] = select_64,
                     [CJ_F32] = select_32, [CJ_F64] = select_64},
    [PRIM_CLAMP] = ALL(clamp),
    [PRIM_LGAMMA] = FLOATS(lgamma),
    [PRIM_DIGAMMA] = FLOATS(digamma),
    [PRIM_ERFC] = FLOATS(erfc),
    [PRIM_ERF_INV] = FLOATS(erfinv),
    [PRIM_ASINH] = FLOATS(asinh),
    [PRIM_ACOSH] = FLOATS(acosh),
    [PRIM_ATANH] = FLOATS(atanh),
    [PRIM_SIGNBIT] = FLOATS(signbit),
    [PRIM_INTEGER_POW] = NUMBERS(integer_pow),
    [PRIM_NEXTAFTER] = FLOATS(nextafter),
    [PRIM_POLYGAMMA] = FLOATS(polygamma),
};

ew_kernel_fn ew_kernel(prim_id prim, cj_dtype dt) {
    if ((int)prim < 0 || prim >= PRIM_COUNT || !rt_dtype_valid((int)dt)) return NULL;
    /* the dtypes after f64 have their loops in elementwise_kernels_ext.c,
     * the bit primitives in elementwise_kernels_bits.c */
    if (kernels[prim][dt]) return kernels[prim][dt];
    ew_kernel_fn ext = ew_kernel_ext(prim, dt);
    return ext ? ext : ew_kernel_bits(prim, dt);
}
