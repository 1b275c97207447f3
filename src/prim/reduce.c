/* reduce.c — the reduction family (prim layer): reduce_sum, reduce_prod,
 * reduce_max, reduce_min, the bitwise reduce_and, reduce_or, reduce_xor
 * (bool and the integers, as lax's); argmax, argmin; cumsum, cumprod,
 * cummax.
 *
 * The public operations (api/reduce.c: cj_sum, cj_argmax, cj_cumsum, the
 * composites cj_mean, cj_softmax, ...) normalise axes and dtypes and bind
 * these primitives; everything here is strict: sorted in-range axes, no
 * bool sums or products. Parameters: reductions read params.axes (the
 * sorted axes to drop); arg-reductions params.axes.v[0] (the axis) and
 * params.dtype (the index dtype; the zero value means i32); cumulative ops
 * params.axes.v[0] and params.flag (reverse).
 *
 * Kernels. Each (operation, dtype) pair gets a few typed loops generated
 * from one combining expression: fill with the identity, combine a row into
 * an accumulator row (vectorises along the row), fold a contiguous run into
 * one accumulator (many independent lanes, restarted every FOLD_BLOCK
 * elements, so a float sum is neither one serial dependency chain, 4× under
 * bandwidth, nor rounded like one), and scans. f32 accumulates in f32 as
 * XLA does on CPU; integer sums and products wrap (all eight integer
 * dtypes); f16/bf16 are their bits, widened to f32 and rounded back at each
 * step (XLA's CPU reduce of them); max/min propagate NaN.
 *
 * Engine. A reduction is planned without transposing: the operand's axes
 * are merged into alternating groups of kept and reduced axes (size-1 axes
 * dropped). When the innermost group is reduced, each output element folds
 * contiguous runs; when it is kept, each output row accumulates whole input
 * rows. Other groups are walked by odometers. Large inputs are split over
 * output rows (and column chunks), or, when there are too few outputs to
 * occupy the threads, over the reduced segments: each block writes partial
 * results that are then combined in block order, so results do not depend
 * on scheduling (float results may differ in the last bits between thread
 * counts). Arg-reductions and scans view the operand as (outer, axis,
 * inner): along a contiguous axis each row is one run (a vectorised fold
 * for the best value, then a vectorised search for its first position; a
 * long scan is split into blocks whose totals give each block's carry);
 * along a strided axis, chunks of columns advance row by row, vectorised
 * along the columns. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../core/core.h"
#include "../runtime/half.h"
#include "../runtime/threads.h"
#include "batching.h"
#include "prim.h"

enum {
    FOLD_BLOCK = 4096,    /* elements folded into fresh lanes before joining the total */
    ARG_CHUNK = 1024,     /* output columns per work unit of a strided arg-reduction */
    ROW_BYTES = 8192,     /* bytes of output row per work unit when the inner axis is
                             kept: long enough runs for the prefetcher, and scratch +
                             accumulator rows still fit in L1 */
    MIN_COL_CHUNK = 64,   /* fewest columns per work unit along a strided axis */
    SEG_BLOCK = 64,       /* input rows summed into a scratch row before the output row */
    WORK_GRAIN = 1 << 15, /* input elements a parallel work item should cover at least */
    SCAN_BLOCK = 1 << 13, /* shortest block of a scan split across threads */
    MAX_BLOCKS = 128,     /* most blocks one long row is split into */
};
/* Longest contiguous run one work item folds: long runs become several
 * pieces so that a single long row can be split across threads. */
#define FOLD_PIECE ((int64_t)1 << 16)

/* ---- element kernels ----------------------------------------------------- */

/* Combining expressions: acc ∘ x. Integer sums and products wrap, as XLA's
 * do; computed in unsigned arithmetic, where overflow is defined. Float
 * max/min propagate NaN: a NaN operand wins, and a NaN accumulator stays
 * (comparisons with NaN are false). Bitwise | keeps the select branch-free
 * so the loops vectorise. */
#define COMB_ADD(a, b) ((a) + (b))
#define COMB_MUL(a, b) ((a) * (b))
#define COMB_ADD_I32(a, b) ((int32_t)((uint32_t)(a) + (uint32_t)(b)))
#define COMB_MUL_I32(a, b) ((int32_t)((uint32_t)(a) * (uint32_t)(b)))
#define COMB_ADD_I64(a, b) ((int64_t)((uint64_t)(a) + (uint64_t)(b)))
#define COMB_MUL_I64(a, b) ((int64_t)((uint64_t)(a) * (uint64_t)(b)))
/* Equal zeros are ordered as IEEE 754-2019's maximum/minimum (and XLA):
 * the max of +0 and -0 is +0, the min -0, whatever the order of the
 * elements. Sums of zeros give exactly that without a branch:
 * (+0) + (-0) = +0, and -((-a) + (-b)) = -0 when either zero is -0
 * (round to nearest; the kernels are never built with -ffast-math). */
#define ZERO_MAX(a, b) ((a) + (b))
#define ZERO_MIN(a, b) (-(-(a) + -(b)))
#define COMB_FMAX(a, b)                                                                            \
    ((((b) != (b)) | ((b) > (a))) ? (b) : (((a) == 0) & ((b) == 0)) ? ZERO_MAX(a, b) : (a))
#define COMB_FMIN(a, b)                                                                            \
    ((((b) != (b)) | ((b) < (a))) ? (b) : (((a) == 0) & ((b) == 0)) ? ZERO_MIN(a, b) : (a))
#define COMB_IMAX(a, b) ((b) > (a) ? (b) : (a))
#define COMB_IMIN(a, b) ((b) < (a) ? (b) : (a))

#define DEFINE_REDUCER(NAME, T, ID, COMB)                                                          \
    static void NAME##_fill(void *dst, int64_t n) {                                                \
        T *d = dst;                                                                                \
        for (int64_t i = 0; i < n; i++) d[i] = (ID);                                               \
    }                                                                                              \
    static void NAME##_rows(void *restrict accp, const void *restrict xp, int64_t n) {             \
        T *restrict acc = accp;                                                                    \
        const T *restrict x = xp;                                                                  \
        for (int64_t i = 0; i < n; i++) acc[i] = COMB(acc[i], x[i]);                               \
    }                                                                                              \
    static void NAME##_rows_strided(void *restrict accp, const void *restrict xp, int64_t n,       \
                                    int64_t m, int64_t stride) {                                   \
        T *restrict acc = accp;                                                                    \
        const T *restrict x = xp;                                                                  \
        for (int64_t r = 0; r < m; r++, x += stride)                                               \
            for (int64_t i = 0; i < n; i++) acc[i] = COMB(acc[i], x[i]);                           \
    }                                                                                              \
    static void NAME##_fold(void *accp, const void *xp, int64_t n) {                               \
        enum { LANES = 128 / sizeof(T) }; /* four AVX2 registers */                                \
        const T *x = xp;                                                                           \
        T total = *(T *)accp;                                                                      \
        if (n < 2 * LANES) { /* short runs: setting up lanes would cost more */                    \
            for (int64_t i = 0; i < n; i++) total = COMB(total, x[i]);                             \
            *(T *)accp = total;                                                                    \
            return;                                                                                \
        }                                                                                          \
        for (int64_t b = 0; b < n; b += FOLD_BLOCK) {                                              \
            int64_t e = n - b < FOLD_BLOCK ? n : b + FOLD_BLOCK;                                   \
            T lane[LANES];                                                                         \
            for (int k = 0; k < LANES; k++) lane[k] = (ID);                                        \
            int64_t i = b;                                                                         \
            for (; i + LANES <= e; i += LANES)                                                     \
                for (int k = 0; k < LANES; k++) lane[k] = COMB(lane[k], x[i + k]);                 \
            for (; i < e; i++) lane[0] = COMB(lane[0], x[i]);                                      \
            for (int w = LANES / 2; w > 0; w /= 2)                                                 \
                for (int k = 0; k < w; k++) lane[k] = COMB(lane[k], lane[k + w]);                  \
            total = COMB(total, lane[0]);                                                          \
        }                                                                                          \
        *(T *)accp = total;                                                                        \
    }                                                                                              \
    static void NAME##_row_fold(const void *xp, int64_t n, void *out) {                            \
        T acc = (ID);                                                                              \
        NAME##_fold(&acc, xp, n);                                                                  \
        memcpy(out, &acc, sizeof acc);                                                             \
    }                                                                                              \
    static void NAME##_fold_runs(void *accp, const void *xp, int64_t len, int64_t n_runs) {        \
        T *acc = accp;                                                                             \
        const T *x = xp;                                                                           \
        for (int64_t r = 0; r < n_runs; r++, x += len) {                                           \
            if (len >= 256 / (int64_t)sizeof(T)) {                                                 \
                NAME##_fold(acc + r, x, len);                                                      \
                continue;                                                                          \
            }                                                                                      \
            T t = acc[r]; /* short runs: independent chains across runs */                         \
            for (int64_t i = 0; i < len; i++) t = COMB(t, x[i]);                                   \
            acc[r] = t;                                                                            \
        }                                                                                          \
    }                                                                                              \
    static void NAME##_scan(void *dstp, const void *xp, int64_t n, void *carryp, int reverse) {    \
        T *d = dstp;                                                                               \
        const T *x = xp;                                                                           \
        T acc = *(T *)carryp;                                                                      \
        if (reverse)                                                                               \
            for (int64_t i = n - 1; i >= 0; i--) d[i] = acc = COMB(acc, x[i]);                     \
        else                                                                                       \
            for (int64_t i = 0; i < n; i++) d[i] = acc = COMB(acc, x[i]);                          \
        *(T *)carryp = acc;                                                                        \
    }                                                                                              \
    static void NAME##_scan_rows(void *restrict dstp, const void *restrict prevp,                  \
                                 const void *restrict xp, int64_t n) {                             \
        T *restrict d = dstp;                                                                      \
        const T *restrict p = prevp;                                                               \
        const T *restrict x = xp;                                                                  \
        for (int64_t i = 0; i < n; i++) d[i] = COMB(p[i], x[i]);                                   \
    }

DEFINE_REDUCER(sum_i32, int32_t, 0, COMB_ADD_I32)
DEFINE_REDUCER(sum_i64, int64_t, 0, COMB_ADD_I64)
DEFINE_REDUCER(sum_f32, float, 0.0f, COMB_ADD)
DEFINE_REDUCER(sum_f64, double, 0.0, COMB_ADD)
DEFINE_REDUCER(prod_i32, int32_t, 1, COMB_MUL_I32)
DEFINE_REDUCER(prod_i64, int64_t, 1, COMB_MUL_I64)
DEFINE_REDUCER(prod_f32, float, 1.0f, COMB_MUL)
DEFINE_REDUCER(prod_f64, double, 1.0, COMB_MUL)
DEFINE_REDUCER(max_bool, uint8_t, 0, COMB_IMAX)
DEFINE_REDUCER(max_i32, int32_t, INT32_MIN, COMB_IMAX)
DEFINE_REDUCER(max_i64, int64_t, INT64_MIN, COMB_IMAX)
DEFINE_REDUCER(max_f32, float, -INFINITY, COMB_FMAX)
DEFINE_REDUCER(max_f64, double, -INFINITY, COMB_FMAX)
DEFINE_REDUCER(min_bool, uint8_t, 1, COMB_IMIN)
DEFINE_REDUCER(min_i32, int32_t, INT32_MAX, COMB_IMIN)
DEFINE_REDUCER(min_i64, int64_t, INT64_MAX, COMB_IMIN)
DEFINE_REDUCER(min_f32, float, INFINITY, COMB_FMIN)
DEFINE_REDUCER(min_f64, double, INFINITY, COMB_FMIN)

/* The dtypes after f64. Narrow integers wrap through an unsigned type at
 * least as wide as int (u16 · u16 must not overflow a promoted int). f16
 * and bf16 are their 16 bits: each step widens both sides to f32, combines
 * and rounds back to nearest even, as XLA's CPU backend computes a reduce
 * of them (lax.reduce_sum of f16 stays f16; jnp.sum upcasts before the
 * primitive, api/reduce.c). max/min pick one operand's bits, so they are
 * exact and keep a NaN's payload. */
#define COMB_ADD_I8(a, b) ((int8_t)((uint32_t)(a) + (uint32_t)(b)))
#define COMB_MUL_I8(a, b) ((int8_t)((uint32_t)(a) * (uint32_t)(b)))
#define COMB_ADD_I16(a, b) ((int16_t)((uint32_t)(a) + (uint32_t)(b)))
#define COMB_MUL_I16(a, b) ((int16_t)((uint32_t)(a) * (uint32_t)(b)))
#define COMB_ADD_U8(a, b) ((uint8_t)((uint32_t)(a) + (uint32_t)(b)))
#define COMB_MUL_U8(a, b) ((uint8_t)((uint32_t)(a) * (uint32_t)(b)))
#define COMB_ADD_U16(a, b) ((uint16_t)((uint32_t)(a) + (uint32_t)(b)))
#define COMB_MUL_U16(a, b) ((uint16_t)((uint32_t)(a) * (uint32_t)(b)))
#define COMB_ADD_U32(a, b) ((uint32_t)((uint32_t)(a) + (uint32_t)(b)))
#define COMB_MUL_U32(a, b) ((uint32_t)((uint32_t)(a) * (uint32_t)(b)))
#define COMB_ADD_U64(a, b) ((uint64_t)((uint64_t)(a) + (uint64_t)(b)))
#define COMB_MUL_U64(a, b) ((uint64_t)((uint64_t)(a) * (uint64_t)(b)))

static inline uint16_t h_add_f16(uint16_t a, uint16_t b) { return rt_f32_to_f16(rt_f16_to_f32(a) + rt_f16_to_f32(b)); }
static inline uint16_t h_mul_f16(uint16_t a, uint16_t b) { return rt_f32_to_f16(rt_f16_to_f32(a) * rt_f16_to_f32(b)); }
static inline uint16_t h_add_bf16(uint16_t a, uint16_t b) { return rt_f32_to_bf16(rt_bf16_to_f32(a) + rt_bf16_to_f32(b)); }
static inline uint16_t h_mul_bf16(uint16_t a, uint16_t b) { return rt_f32_to_bf16(rt_bf16_to_f32(a) * rt_bf16_to_f32(b)); }
/* max/min of the values fa, fb whose bits are a, b: as COMB_FMAX/FMIN,
 * equal zeros by their sign bits (+0 unless both are -0; -0 if either). */
static inline uint16_t h_max(uint16_t a, uint16_t b, float fa, float fb) {
    if ((fb != fb) | (fb > fa)) return b;
    return (fa == 0) & (fb == 0) ? (uint16_t)(a & b) : a;
}
static inline uint16_t h_min(uint16_t a, uint16_t b, float fa, float fb) {
    if ((fb != fb) | (fb < fa)) return b;
    return (fa == 0) & (fb == 0) ? (uint16_t)(a | b) : a;
}
#define COMB_ADD_F16(a, b) h_add_f16((a), (b))
#define COMB_MUL_F16(a, b) h_mul_f16((a), (b))
#define COMB_ADD_BF16(a, b) h_add_bf16((a), (b))
#define COMB_MUL_BF16(a, b) h_mul_bf16((a), (b))
#define COMB_MAX_F16(a, b) h_max((a), (b), rt_f16_to_f32(a), rt_f16_to_f32(b))
#define COMB_MIN_F16(a, b) h_min((a), (b), rt_f16_to_f32(a), rt_f16_to_f32(b))
#define COMB_MAX_BF16(a, b) h_max((a), (b), rt_bf16_to_f32(a), rt_bf16_to_f32(b))
#define COMB_MIN_BF16(a, b) h_min((a), (b), rt_bf16_to_f32(a), rt_bf16_to_f32(b))
enum { F16_ONE = 0x3c00, F16_INF = 0x7c00, F16_NEG_INF = 0xfc00,
       BF16_ONE = 0x3f80, BF16_INF = 0x7f80, BF16_NEG_INF = 0xff80 };

DEFINE_REDUCER(sum_i8, int8_t, 0, COMB_ADD_I8)
DEFINE_REDUCER(sum_i16, int16_t, 0, COMB_ADD_I16)
DEFINE_REDUCER(sum_u8, uint8_t, 0, COMB_ADD_U8)
DEFINE_REDUCER(sum_u16, uint16_t, 0, COMB_ADD_U16)
DEFINE_REDUCER(sum_u32, uint32_t, 0, COMB_ADD_U32)
DEFINE_REDUCER(sum_u64, uint64_t, 0, COMB_ADD_U64)
DEFINE_REDUCER(sum_f16, uint16_t, 0, COMB_ADD_F16)
DEFINE_REDUCER(sum_bf16, uint16_t, 0, COMB_ADD_BF16)
DEFINE_REDUCER(prod_i8, int8_t, 1, COMB_MUL_I8)
DEFINE_REDUCER(prod_i16, int16_t, 1, COMB_MUL_I16)
DEFINE_REDUCER(prod_u8, uint8_t, 1, COMB_MUL_U8)
DEFINE_REDUCER(prod_u16, uint16_t, 1, COMB_MUL_U16)
DEFINE_REDUCER(prod_u32, uint32_t, 1, COMB_MUL_U32)
DEFINE_REDUCER(prod_u64, uint64_t, 1, COMB_MUL_U64)
DEFINE_REDUCER(prod_f16, uint16_t, F16_ONE, COMB_MUL_F16)
DEFINE_REDUCER(prod_bf16, uint16_t, BF16_ONE, COMB_MUL_BF16)
DEFINE_REDUCER(max_i8, int8_t, INT8_MIN, COMB_IMAX)
DEFINE_REDUCER(max_i16, int16_t, INT16_MIN, COMB_IMAX)
DEFINE_REDUCER(max_u8, uint8_t, 0, COMB_IMAX)
DEFINE_REDUCER(max_u16, uint16_t, 0, COMB_IMAX)
DEFINE_REDUCER(max_u32, uint32_t, 0, COMB_IMAX)
DEFINE_REDUCER(max_u64, uint64_t, 0, COMB_IMAX)
DEFINE_REDUCER(max_f16, uint16_t, F16_NEG_INF, COMB_MAX_F16)
DEFINE_REDUCER(max_bf16, uint16_t, BF16_NEG_INF, COMB_MAX_BF16)
DEFINE_REDUCER(min_i8, int8_t, INT8_MAX, COMB_IMIN)
DEFINE_REDUCER(min_i16, int16_t, INT16_MAX, COMB_IMIN)
DEFINE_REDUCER(min_u8, uint8_t, UINT8_MAX, COMB_IMIN)
DEFINE_REDUCER(min_u16, uint16_t, UINT16_MAX, COMB_IMIN)
DEFINE_REDUCER(min_u32, uint32_t, UINT32_MAX, COMB_IMIN)
DEFINE_REDUCER(min_u64, uint64_t, UINT64_MAX, COMB_IMIN)
DEFINE_REDUCER(min_f16, uint16_t, F16_INF, COMB_MIN_F16)
DEFINE_REDUCER(min_bf16, uint16_t, BF16_INF, COMB_MIN_BF16)

/* lax.reduce_and / reduce_or / reduce_xor: bool and every integer dtype,
 * bitwise (on bools, whose bytes are 0 or 1, that is logical and / or /
 * xor). Identities as lax's: and all ones (true for bool), or and xor 0. */
#define COMB_AND(a, b) ((a) & (b))
#define COMB_OR(a, b) ((a) | (b))
#define COMB_XOR(a, b) ((a) ^ (b))
#define DEFINE_BITWISE_REDUCERS(SFX, T, ONES)                                                      \
    DEFINE_REDUCER(and_##SFX, T, ONES, COMB_AND)                                                   \
    DEFINE_REDUCER(or_##SFX, T, 0, COMB_OR)                                                        \
    DEFINE_REDUCER(xor_##SFX, T, 0, COMB_XOR)
DEFINE_BITWISE_REDUCERS(bool, uint8_t, 1)
DEFINE_BITWISE_REDUCERS(i8, int8_t, -1)
DEFINE_BITWISE_REDUCERS(i16, int16_t, -1)
DEFINE_BITWISE_REDUCERS(i32, int32_t, -1)
DEFINE_BITWISE_REDUCERS(i64, int64_t, -1)
DEFINE_BITWISE_REDUCERS(u8, uint8_t, UINT8_MAX)
DEFINE_BITWISE_REDUCERS(u16, uint16_t, UINT16_MAX)
DEFINE_BITWISE_REDUCERS(u32, uint32_t, UINT32_MAX)
DEFINE_BITWISE_REDUCERS(u64, uint64_t, UINT64_MAX)

/* The loops of one (operation, dtype). `acc`, `dst` and `carry` point at
 * elements of the operand's dtype. */
typedef struct reducer {
    void (*fill)(void *dst, int64_t n);                         /* dst[i] = identity */
    void (*rows)(void *acc, const void *x, int64_t n);          /* acc[i] ∘= x[i] */
    void (*rows_strided)(void *acc, const void *x, int64_t n, int64_t m,
                         int64_t stride);                       /* acc[i] ∘= x[r·stride + i], r < m */
    void (*fold)(void *acc, const void *x, int64_t n);          /* *acc ∘= x[0] ∘ ... ∘ x[n-1] */
    void (*fold_runs)(void *acc, const void *x, int64_t len,
                      int64_t n_runs);                          /* acc[r] ∘= run r of length len */
    void (*scan)(void *dst, const void *x, int64_t n, void *carry,
                 int reverse);                                  /* inclusive scan from *carry */
    void (*scan_rows)(void *dst, const void *prev, const void *x, int64_t n); /* dst = prev ∘ x */
    prim_row_fold_fn row_fold;                                  /* *out = identity ∘ x[0] ∘ ... */
} reducer;

typedef enum reduce_op { OP_SUM, OP_PROD, OP_MAX, OP_MIN, OP_AND, OP_OR, OP_XOR, OP_COUNT } reduce_op;

#define REDUCER(NAME)                                                                              \
    {NAME##_fill, NAME##_rows, NAME##_rows_strided, NAME##_fold, NAME##_fold_runs, NAME##_scan,     \
     NAME##_scan_rows, NAME##_row_fold}
static const reducer reducers[OP_COUNT][CJ_NUM_DTYPES] = {
    [OP_SUM] = {[CJ_I32] = REDUCER(sum_i32), [CJ_I64] = REDUCER(sum_i64),
                [CJ_F32] = REDUCER(sum_f32), [CJ_F64] = REDUCER(sum_f64),
                [CJ_I8] = REDUCER(sum_i8), [CJ_I16] = REDUCER(sum_i16), [CJ_U8] = REDUCER(sum_u8), [CJ_U16] = REDUCER(sum_u16), [CJ_U32] = REDUCER(sum_u32), [CJ_U64] = REDUCER(sum_u64), [CJ_F16] = REDUCER(sum_f16), [CJ_BF16] = REDUCER(sum_bf16)},
    [OP_PROD] = {[CJ_I32] = REDUCER(prod_i32), [CJ_I64] = REDUCER(prod_i64),
                 [CJ_F32] = REDUCER(prod_f32), [CJ_F64] = REDUCER(prod_f64),
                 [CJ_I8] = REDUCER(prod_i8), [CJ_I16] = REDUCER(prod_i16), [CJ_U8] = REDUCER(prod_u8), [CJ_U16] = REDUCER(prod_u16), [CJ_U32] = REDUCER(prod_u32), [CJ_U64] = REDUCER(prod_u64), [CJ_F16] = REDUCER(prod_f16), [CJ_BF16] = REDUCER(prod_bf16)},
    [OP_MAX] = {[CJ_BOOL] = REDUCER(max_bool), [CJ_I32] = REDUCER(max_i32),
                [CJ_I64] = REDUCER(max_i64), [CJ_F32] = REDUCER(max_f32),
                [CJ_F64] = REDUCER(max_f64),
                [CJ_I8] = REDUCER(max_i8), [CJ_I16] = REDUCER(max_i16), [CJ_U8] = REDUCER(max_u8), [CJ_U16] = REDUCER(max_u16), [CJ_U32] = REDUCER(max_u32), [CJ_U64] = REDUCER(max_u64), [CJ_F16] = REDUCER(max_f16), [CJ_BF16] = REDUCER(max_bf16)},
    [OP_MIN] = {[CJ_BOOL] = REDUCER(min_bool), [CJ_I32] = REDUCER(min_i32),
                [CJ_I64] = REDUCER(min_i64), [CJ_F32] = REDUCER(min_f32),
                [CJ_F64] = REDUCER(min_f64),
                [CJ_I8] = REDUCER(min_i8), [CJ_I16] = REDUCER(min_i16), [CJ_U8] = REDUCER(min_u8), [CJ_U16] = REDUCER(min_u16), [CJ_U32] = REDUCER(min_u32), [CJ_U64] = REDUCER(min_u64), [CJ_F16] = REDUCER(min_f16), [CJ_BF16] = REDUCER(min_bf16)},
#define BITWISE_ROW(OP)                                                                            \
    {[CJ_BOOL] = REDUCER(OP##_bool), [CJ_I8] = REDUCER(OP##_i8), [CJ_I16] = REDUCER(OP##_i16),      \
     [CJ_I32] = REDUCER(OP##_i32), [CJ_I64] = REDUCER(OP##_i64), [CJ_U8] = REDUCER(OP##_u8),        \
     [CJ_U16] = REDUCER(OP##_u16), [CJ_U32] = REDUCER(OP##_u32), [CJ_U64] = REDUCER(OP##_u64)}
    [OP_AND] = BITWISE_ROW(and),
    [OP_OR] = BITWISE_ROW(or),
    [OP_XOR] = BITWISE_ROW(xor),
#undef BITWISE_ROW
};

static reduce_op op_of(prim_id prim) {
    switch (prim) {
    case PRIM_REDUCE_SUM:
    case PRIM_CUMSUM: return OP_SUM;
    case PRIM_REDUCE_PROD:
    case PRIM_CUMPROD: return OP_PROD;
    case PRIM_REDUCE_MIN:
    case PRIM_ARGMIN: return OP_MIN;
    case PRIM_REDUCE_AND: return OP_AND;
    case PRIM_REDUCE_OR: return OP_OR;
    case PRIM_REDUCE_XOR: return OP_XOR;
    default: return OP_MAX;
    }
}

/* The lowering record's row fold of reduce_sum/prod/max/min/and/or/xor: a ROWS
 * kernel's reduction calls it on each row (both backends). */
static prim_row_fold_fn reduce_row_fold(prim_id prim, cj_dtype dt) {
    if (!rt_dtype_valid((int)dt)) return NULL;
    return reducers[op_of(prim)][dt].row_fold;
}

/* The column fold of reduce_sum/prod/max/min (prim_col_fold): the `rows`
 * loop accumulate_segments combines rows with, from the identity, in
 * blocks of SEG_BLOCK rows. */
static bool reduce_col_fold(prim_id prim, cj_dtype dt, prim_col_fold *out) {
    if (!rt_dtype_valid((int)dt) || !reducers[op_of(prim)][dt].rows) return false;
    out->fill = reducers[op_of(prim)][dt].fill;
    out->rows = reducers[op_of(prim)][dt].rows;
    out->block = SEG_BLOCK;
    return true;
}

/* The float folds as C text for generated code (prim_fold_c): the text is
 * the expansion of the very macros the loops above are built from, and the
 * lanes and block are theirs, so an element loop that folds with it gives
 * the row fold's bits. Integer folds (unsigned wrapping through int32_t
 * casts) stay calls: generated code declares no <stdint.h> types. */
#define FOLD_STR(x) #x
#define FOLD_XSTR(x) FOLD_STR(x)
static bool reduce_fold_c(prim_id prim, cj_dtype dt, prim_fold_c *out) {
    if (dt != CJ_F32 && dt != CJ_F64) return false;
    bool f = dt == CJ_F32;
    out->lanes = 128 / (f ? (int)sizeof(float) : (int)sizeof(double)); /* LANES of NAME##_fold */
    out->block = FOLD_BLOCK;
    switch (op_of(prim)) {
    case OP_SUM:
        out->identity = f ? "0.0f" : "0.0";
        out->combine = FOLD_XSTR(COMB_ADD(CJK_A, CJK_B));
        break;
    case OP_PROD:
        out->identity = f ? "1.0f" : "1.0";
        out->combine = FOLD_XSTR(COMB_MUL(CJK_A, CJK_B));
        break;
    case OP_MAX:
        out->identity = f ? "(-__builtin_inff())" : "(-__builtin_inf())";
        out->combine = FOLD_XSTR(COMB_FMAX(CJK_A, CJK_B));
        break;
    default:
        out->identity = f ? "__builtin_inff()" : "__builtin_inf()";
        out->combine = FOLD_XSTR(COMB_FMIN(CJK_A, CJK_B));
        break;
    }
    return true;
}

/* Arg-reductions. `find` gives the first index of a value (NaN matches NaN);
 * `argrows` scans A rows (row stride `stride`) of cw columns keeping, per
 * column, the best value and the row where it first occurred. "Better" is
 * strict, so ties keep the first occurrence; a NaN is better than any
 * number and the first NaN stays (numpy's rule). */
#define MATCH_F(v, t) (((v) == (t)) | (((t) != (t)) & ((v) != (v))))
#define MATCH_I(v, t) ((v) == (t))
#define BETTER_FMAX(v, b) (((v) > (b)) | (((v) != (v)) & ((b) == (b))))
#define BETTER_FMIN(v, b) (((v) < (b)) | (((v) != (v)) & ((b) == (b))))
#define BETTER_IMAX(v, b) ((v) > (b))
#define BETTER_IMIN(v, b) ((v) < (b))

#define DEFINE_FIND(NAME, T, MATCH)                                                                \
    static int64_t NAME##_find(const void *xp, int64_t n, const void *targetp) {                   \
        const T *x = xp;                                                                           \
        const T t = *(const T *)targetp;                                                           \
        int64_t i = 0;                                                                             \
        for (; i + 64 <= n; i += 64) { /* vectorised test of 64 elements at a time */              \
            int hit = 0;                                                                           \
            for (int k = 0; k < 64; k++) hit |= MATCH(x[i + k], t);                                \
            if (hit) break;                                                                        \
        }                                                                                          \
        for (; i < n; i++)                                                                         \
            if (MATCH(x[i], t)) return i;                                                          \
        return -1;                                                                                 \
    }

#define DEFINE_ARGROWS(NAME, T, BETTER)                                                            \
    static void NAME##_argrows(const void *xp, int64_t A, int64_t stride, int64_t cw, void *bestp,  \
                               int64_t *restrict idx) {                                            \
        const T *x = xp;                                                                           \
        T *restrict best = bestp;                                                                  \
        for (int64_t c = 0; c < cw; c++) {                                                         \
            best[c] = x[c];                                                                        \
            idx[c] = 0;                                                                            \
        }                                                                                          \
        for (int64_t a = 1; a < A; a++) {                                                          \
            const T *restrict r = x + a * stride;                                                  \
            for (int64_t c = 0; c < cw; c++) {                                                     \
                T v = r[c];                                                                        \
                int take = BETTER(v, best[c]);                                                     \
                best[c] = take ? v : best[c];                                                      \
                idx[c] = take ? a : idx[c];                                                        \
            }                                                                                      \
        }                                                                                          \
    }

#define MATCH_F16(v, t) MATCH_F(rt_f16_to_f32(v), rt_f16_to_f32(t))
#define MATCH_BF16(v, t) MATCH_F(rt_bf16_to_f32(v), rt_bf16_to_f32(t))
#define BETTER_F16MAX(v, b) BETTER_FMAX(rt_f16_to_f32(v), rt_f16_to_f32(b))
#define BETTER_F16MIN(v, b) BETTER_FMIN(rt_f16_to_f32(v), rt_f16_to_f32(b))
#define BETTER_BF16MAX(v, b) BETTER_FMAX(rt_bf16_to_f32(v), rt_bf16_to_f32(b))
#define BETTER_BF16MIN(v, b) BETTER_FMIN(rt_bf16_to_f32(v), rt_bf16_to_f32(b))

DEFINE_FIND(bool, uint8_t, MATCH_I)
DEFINE_FIND(i8, int8_t, MATCH_I)
DEFINE_FIND(i16, int16_t, MATCH_I)
DEFINE_FIND(u16, uint16_t, MATCH_I)
DEFINE_FIND(u32, uint32_t, MATCH_I)
DEFINE_FIND(u64, uint64_t, MATCH_I)
DEFINE_FIND(f16, uint16_t, MATCH_F16)
DEFINE_FIND(bf16, uint16_t, MATCH_BF16)
DEFINE_FIND(i32, int32_t, MATCH_I)
DEFINE_FIND(i64, int64_t, MATCH_I)
DEFINE_FIND(f32, float, MATCH_F)
DEFINE_FIND(f64, double, MATCH_F)
DEFINE_ARGROWS(max_bool, uint8_t, BETTER_IMAX)
DEFINE_ARGROWS(max_i32, int32_t, BETTER_IMAX)
DEFINE_ARGROWS(max_i64, int64_t, BETTER_IMAX)
DEFINE_ARGROWS(max_f32, float, BETTER_FMAX)
DEFINE_ARGROWS(max_f64, double, BETTER_FMAX)
DEFINE_ARGROWS(max_i8, int8_t, BETTER_IMAX)
DEFINE_ARGROWS(max_i16, int16_t, BETTER_IMAX)
DEFINE_ARGROWS(max_u8, uint8_t, BETTER_IMAX)
DEFINE_ARGROWS(max_u16, uint16_t, BETTER_IMAX)
DEFINE_ARGROWS(max_u32, uint32_t, BETTER_IMAX)
DEFINE_ARGROWS(max_u64, uint64_t, BETTER_IMAX)
DEFINE_ARGROWS(max_f16, uint16_t, BETTER_F16MAX)
DEFINE_ARGROWS(max_bf16, uint16_t, BETTER_BF16MAX)
DEFINE_ARGROWS(min_bool, uint8_t, BETTER_IMIN)
DEFINE_ARGROWS(min_i32, int32_t, BETTER_IMIN)
DEFINE_ARGROWS(min_i64, int64_t, BETTER_IMIN)
DEFINE_ARGROWS(min_f32, float, BETTER_FMIN)
DEFINE_ARGROWS(min_f64, double, BETTER_FMIN)
DEFINE_ARGROWS(min_i8, int8_t, BETTER_IMIN)
DEFINE_ARGROWS(min_i16, int16_t, BETTER_IMIN)
DEFINE_ARGROWS(min_u8, uint8_t, BETTER_IMIN)
DEFINE_ARGROWS(min_u16, uint16_t, BETTER_IMIN)
DEFINE_ARGROWS(min_u32, uint32_t, BETTER_IMIN)
DEFINE_ARGROWS(min_u64, uint64_t, BETTER_IMIN)
DEFINE_ARGROWS(min_f16, uint16_t, BETTER_F16MIN)
DEFINE_ARGROWS(min_bf16, uint16_t, BETTER_BF16MIN)

typedef int64_t (*find_fn)(const void *x, int64_t n, const void *target);
typedef void (*argrows_fn)(const void *x, int64_t A, int64_t stride, int64_t cw, void *best,
                           int64_t *idx);

static const find_fn finders[CJ_NUM_DTYPES] = {
    [CJ_BOOL] = bool_find, [CJ_I32] = i32_find, [CJ_I64] = i64_find,
    [CJ_F32] = f32_find,   [CJ_F64] = f64_find,  [CJ_I8] = i8_find,   [CJ_I16] = i16_find,
    [CJ_U8] = bool_find,   [CJ_U16] = u16_find,  [CJ_U32] = u32_find, [CJ_U64] = u64_find,
    [CJ_F16] = f16_find,   [CJ_BF16] = bf16_find,
};
static const argrows_fn argrowers[2][CJ_NUM_DTYPES] = {
    {[CJ_BOOL] = min_bool_argrows, [CJ_I32] = min_i32_argrows, [CJ_I64] = min_i64_argrows,
     [CJ_F32] = min_f32_argrows, [CJ_F64] = min_f64_argrows,
     [CJ_I8] = min_i8_argrows, [CJ_I16] = min_i16_argrows, [CJ_U8] = min_u8_argrows, [CJ_U16] = min_u16_argrows, [CJ_U32] = min_u32_argrows, [CJ_U64] = min_u64_argrows, [CJ_F16] = min_f16_argrows, [CJ_BF16] = min_bf16_argrows},
    {[CJ_BOOL] = max_bool_argrows, [CJ_I32] = max_i32_argrows, [CJ_I64] = max_i64_argrows,
     [CJ_F32] = max_f32_argrows, [CJ_F64] = max_f64_argrows,
     [CJ_I8] = max_i8_argrows, [CJ_I16] = max_i16_argrows, [CJ_U8] = max_u8_argrows, [CJ_U16] = max_u16_argrows, [CJ_U32] = max_u32_argrows, [CJ_U64] = max_u64_argrows, [CJ_F16] = max_f16_argrows, [CJ_BF16] = max_bf16_argrows},
};

/* ---- shared helpers ------------------------------------------------------ */

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* Threads worth using for a loop over n input elements (1: stay serial). */
static int threads_for(int64_t n) { return n >= RT_PARALLEL_MIN_ELEMS ? rt_num_threads() : 1; }

/* Work items per parallel chunk so that each chunk covers about WORK_GRAIN
 * input elements. */
static int64_t grain_for(int64_t n_elems, int64_t n_items) {
    int64_t per_item = n_items ? n_elems / n_items : 1;
    return per_item >= WORK_GRAIN ? 1 : WORK_GRAIN / (per_item ? per_item : 1);
}

/* Runs fn over [0, n_items) work items covering n_elems input elements:
 * serially when nt is 1, else on the pool in chunks of about WORK_GRAIN
 * elements. */
static void run_items(int nt, int64_t n_items, int64_t n_elems, rt_range_fn fn, void *arg) {
    if (nt == 1) fn(arg, 0, n_items);
    else rt_parallel_for(n_items, grain_for(n_elems, n_items), fn, arg);
}

/* Columns per work unit when `outer` planes of `inner` columns are split
 * over nt threads: narrow enough that every thread gets work, but at least
 * `least` (short strided rows starve the prefetcher) and at most `most`
 * (the unit's working rows must stay in L1). */
static int64_t column_chunk(int nt, int64_t outer, int64_t inner, int64_t least, int64_t most) {
    int64_t c = ceil_div(inner, ceil_div(2 * (int64_t)nt, outer));
    c = c < least ? least : c > most ? most : c;
    return c < inner ? c : inner;
}

/* An operand viewed as (outer, axis, inner) around one axis. */
static void split_at_axis(const rt_aval *a, int axis, int64_t *outer, int64_t *n, int64_t *inner) {
    *outer = 1;
    *inner = 1;
    for (int d = 0; d < axis; d++) *outer *= a->dims[d];
    for (int d = axis + 1; d < a->rank; d++) *inner *= a->dims[d];
    *n = a->dims[axis];
}

/* Walks the index space of some groups of axes in row-major order, keeping
 * the matching element offset (in elements) of the operand. */
typedef struct odometer {
    int n;
    int64_t size[CJ_MAX_RANK], stride[CJ_MAX_RANK], idx[CJ_MAX_RANK];
    int64_t off;
} odometer;

static void odo_seek(odometer *o, int64_t lin) {
    o->off = 0;
    for (int d = o->n - 1; d >= 0; d--) {
        o->idx[d] = lin % o->size[d];
        lin /= o->size[d];
        o->off += o->idx[d] * o->stride[d];
    }
}

static void odo_next(odometer *o) {
    for (int d = o->n - 1; d >= 0; d--) {
        o->off += o->stride[d];
        if (++o->idx[d] < o->size[d]) return;
        o->off -= o->size[d] * o->stride[d];
        o->idx[d] = 0;
    }
}

static int64_t odo_count(const odometer *o) {
    int64_t n = 1;
    for (int d = 0; d < o->n; d++) n *= o->size[d];
    return n;
}

static void odo_push(odometer *o, int64_t size, int64_t stride) {
    o->size[o->n] = size;
    o->stride[o->n] = stride;
    o->idx[o->n] = 0;
    o->n++;
}

/* ---- reductions: the plan ------------------------------------------------- */

typedef struct reduce_plan {
    const reducer *k;
    size_t es; /* element size */
    const char *in;
    char *out;
    int inner_reduced; /* innermost group reduced (fold runs) or kept (accumulate rows) */
    int64_t C;         /* output columns per output row: the inner kept group, or 1 */
    int64_t L;         /* inner reduced: the contiguous run folded per segment */
    int64_t n_pieces;  /* inner reduced: runs are folded in pieces of FOLD_PIECE */
    int64_t U, S;      /* output rows; segments reduced into each */
    odometer kept;     /* over the kept groups except an inner one: an output row's offset */
    odometer red;      /* over the reduced groups except an inner one: a segment's offset */
    int64_t col_chunk, n_chunks; /* inner kept: output rows are split in column chunks */
    int consecutive_runs; /* inner reduced, one segment, output u's run starts at u·L */
} reduce_plan;

/* Virtual segments of one output row: (segment, piece) pairs when the
 * inner group is reduced, segments otherwise. */
static int64_t plan_virtual_segments(const reduce_plan *pl) {
    return pl->inner_reduced ? pl->S * pl->n_pieces : pl->S;
}

/* *acc ∘= the runs of the output element at input offset `base`, over
 * virtual segments [v0, v1) (inner reduced). */
static void fold_segments(const reduce_plan *pl, char *acc, int64_t base, int64_t v0, int64_t v1) {
    odometer ro = pl->red;
    odo_seek(&ro, v0 / pl->n_pieces);
    int64_t piece = v0 % pl->n_pieces;
    for (int64_t v = v0; v < v1; v++) {
        int64_t start = piece * FOLD_PIECE;
        pl->k->fold(acc, pl->in + (size_t)(base + ro.off + start) * pl->es,
                    min64(FOLD_PIECE, pl->L - start));
        if (++piece == pl->n_pieces) {
            piece = 0;
            odo_next(&ro);
        }
    }
}

/* acc[0..n) ∘= the rows at input offset `base` of segments [s0, s1) (inner
 * kept). Rows are first combined SEG_BLOCK at a time into a scratch row, so
 * a long float sum rounds about S/SEG_BLOCK + SEG_BLOCK times per output
 * instead of S; columns go ROW_BYTES at a time so scratch and accumulator
 * stay in L1. Consecutive segments along the innermost reduced group have
 * one stride, so they go to the kernel as one strided block of rows. */
static void accumulate_segments(const reduce_plan *pl, char *acc, int64_t base, int64_t s0,
                                int64_t s1, int64_t n) {
    _Alignas(64) unsigned char scratch[ROW_BYTES];
    const reducer *k = pl->k;
    size_t es = pl->es;
    int64_t chunk = ROW_BYTES / (int64_t)es;
    int last = pl->red.n - 1; /* >= 0: an inner-kept plan reduces some outer group */
    int direct = s1 - s0 <= SEG_BLOCK; /* a single block: no scratch needed */
    for (int64_t c0 = 0; c0 < n; c0 += chunk) {
        int64_t cw = min64(chunk, n - c0);
        char *dst = acc + (size_t)c0 * es;
        for (int64_t s = s0; s < s1;) {
            int64_t e = min64(s1, s + SEG_BLOCK);
            char *into = direct ? dst : (char *)scratch;
            if (!direct) k->fill(scratch, cw);
            while (s < e) {
                odometer ro = pl->red;
                odo_seek(&ro, s);
                int64_t m = min64(e - s, ro.size[last] - ro.idx[last]);
                k->rows_strided(into, pl->in + (size_t)(base + ro.off + c0) * es, cw, m, ro.stride[last]);
                s += m;
            }
            if (!direct) k->rows(dst, scratch, cw);
        }
    }
}

/* Work units [w0, w1): output elements (inner reduced) or column chunks of
 * output rows (inner kept), each reduced over all its segments. */
static void reduce_units(void *arg, int64_t w0, int64_t w1) {
    const reduce_plan *pl = arg;
    size_t es = pl->es;
    if (pl->consecutive_runs) { /* [kept][reduced]: output u folds run u */
        pl->k->fill(pl->out + (size_t)w0 * es, w1 - w0);
        pl->k->fold_runs(pl->out + (size_t)w0 * es, pl->in + (size_t)(w0 * pl->L) * es, pl->L, w1 - w0);
        return;
    }
    odometer ko = pl->kept;
    int64_t cur = w0 / pl->n_chunks;
    odo_seek(&ko, cur);
    for (int64_t w = w0; w < w1; w++) {
        int64_t u = w / pl->n_chunks, ch = w % pl->n_chunks;
        for (; cur < u; cur++) odo_next(&ko);
        if (pl->inner_reduced) {
            char *o = pl->out + (size_t)u * es;
            pl->k->fill(o, 1);
            fold_segments(pl, o, ko.off, 0, plan_virtual_segments(pl));
        } else {
            int64_t c0 = ch * pl->col_chunk, n = min64(pl->col_chunk, pl->C - c0);
            char *o = pl->out + (size_t)(u * pl->C + c0) * es;
            pl->k->fill(o, n);
            accumulate_segments(pl, o, ko.off + c0, 0, pl->S, n);
        }
    }
}

/* Few outputs, much to reduce: one output row at a time, its virtual
 * segments split in blocks, each block's partial row written to `part`. */
typedef struct partial_job {
    const reduce_plan *pl;
    char *part;
    int64_t base, n_blocks, n_virtual;
} partial_job;

static void reduce_partial_blocks(void *arg, int64_t b0, int64_t b1) {
    const partial_job *j = arg;
    const reduce_plan *pl = j->pl;
    for (int64_t b = b0; b < b1; b++) {
        int64_t v0 = b * j->n_virtual / j->n_blocks, v1 = (b + 1) * j->n_virtual / j->n_blocks;
        char *acc = j->part + (size_t)(b * pl->C) * pl->es;
        pl->k->fill(acc, pl->C);
        if (pl->inner_reduced) fold_segments(pl, acc, j->base, v0, v1);
        else accumulate_segments(pl, acc, j->base, v0, v1, pl->C);
    }
}

/* Few output rows over many reduced rows (inner kept): each output row's
 * segments go in blocks of SEG_BLOCK, one block per work item, the partial
 * rows combined in block order, a group of blocks at a time (bounded
 * scratch). The blocks are accumulate_segments' own, so the bits are the
 * one-thread loop's at any thread count, and a COLS kernel's (interp.c:
 * run_cols: 64-row units combined in order). */
typedef struct seg_job {
    const reduce_plan *pl;
    char *part;
    int64_t base, first; /* the output row's input offset; the group's first block */
} seg_job;

static void reduce_seg_blocks(void *arg, int64_t b0, int64_t b1) {
    const seg_job *j = arg;
    const reduce_plan *pl = j->pl;
    for (int64_t b = b0; b < b1; b++) {
        int64_t s0 = (j->first + b) * SEG_BLOCK;
        char *acc = j->part + (size_t)(b * pl->C) * pl->es;
        pl->k->fill(acc, pl->C);
        accumulate_segments(pl, acc, j->base, s0, min64(pl->S, s0 + SEG_BLOCK), pl->C);
    }
}

static int reduce_kept_blocks(cj_ctx *ctx, prim_id prim, const reduce_plan *pl, int nt) {
    int64_t n_seg = ceil_div(pl->S, SEG_BLOCK), group = min64(n_seg, 8 * (int64_t)nt);
    size_t cap, bytes = (size_t)(group * pl->C) * pl->es;
    char *part = rt_data_alloc(ctx->mem, bytes, &cap);
    if (!part) return prim_error(ctx, CJ_ERR_OOM, prim, "out of memory for partial results (%zu bytes)", bytes);
    odometer ko = pl->kept;
    odo_seek(&ko, 0);
    for (int64_t u = 0; u < pl->U; u++, odo_next(&ko)) {
        char *o = pl->out + (size_t)(u * pl->C) * pl->es;
        pl->k->fill(o, pl->C);
        for (int64_t g0 = 0; g0 < n_seg; g0 += group) {
            int64_t m = min64(group, n_seg - g0);
            seg_job j = {pl, part, ko.off, g0};
            rt_parallel_for(m, 1, reduce_seg_blocks, &j);
            for (int64_t b = 0; b < m; b++) pl->k->rows(o, part + (size_t)(b * pl->C) * pl->es, pl->C);
        }
    }
    rt_data_free(ctx->mem, part, cap);
    return 0;
}

static int run_reduction(cj_ctx *ctx, prim_id prim, const reduce_plan *pl, int64_t n_elems) {
    int64_t units = pl->U * pl->n_chunks;
    int nt = threads_for(n_elems);
    int64_t n_virtual = plan_virtual_segments(pl);
    int64_t n_blocks = min64(n_virtual, 2 * (int64_t)nt);
    if (nt == 1 || units >= 2 * (int64_t)nt || n_blocks < 2) {
        run_items(nt, units, n_elems, reduce_units, (void *)pl);
        return 0;
    }
    if (!pl->inner_reduced) return reduce_kept_blocks(ctx, prim, pl, nt);
    size_t cap, bytes = (size_t)(n_blocks * pl->C) * pl->es;
    char *part = rt_data_alloc(ctx->mem, bytes, &cap);
    if (!part) return prim_error(ctx, CJ_ERR_OOM, prim, "out of memory for partial results (%zu bytes)", bytes);
    odometer ko = pl->kept;
    odo_seek(&ko, 0);
    for (int64_t u = 0; u < pl->U; u++, odo_next(&ko)) {
        partial_job j = {pl, part, ko.off, n_blocks, n_virtual};
        rt_parallel_for(n_blocks, 1, reduce_partial_blocks, &j);
        char *o = pl->out + (size_t)(u * pl->C) * pl->es;
        pl->k->fill(o, pl->C);
        for (int64_t b = 0; b < n_blocks; b++) pl->k->rows(o, part + (size_t)(b * pl->C) * pl->es, pl->C);
    }
    rt_data_free(ctx->mem, part, cap);
    return 0;
}

static int reduce_impl(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in,
                       rt_array *const *in, rt_array *out) {
    (void)n_in;
    const rt_array *x = in[0];
    const rt_aval *a = &x->aval;
    const reducer *k = &reducers[op_of(prim)][a->dtype];
    if (out->size == 0) return 0;
    if (x->size == 0) { /* reducing an empty axis: the identity */
        k->fill(out->data, out->size);
        return 0;
    }
    /* merge axes into alternating kept/reduced groups, size-1 axes dropped */
    unsigned reduced = 0;
    for (int i = 0; i < p->axes.n; i++) reduced |= 1u << p->axes.v[i];
    int64_t gsize[CJ_MAX_RANK];
    int gred[CJ_MAX_RANK], ng = 0, any_reduced = 0;
    for (int d = 0; d < a->rank; d++) {
        if (a->dims[d] == 1) continue;
        int r = (reduced >> d) & 1;
        any_reduced |= r;
        if (ng && gred[ng - 1] == r) {
            gsize[ng - 1] *= a->dims[d];
        } else {
            gsize[ng] = a->dims[d];
            gred[ng++] = r;
        }
    }
    if (!any_reduced) { /* only size-1 axes reduced: the elements are unchanged */
        memcpy(out->data, x->data, rt_aval_nbytes(a));
        return 0;
    }
    reduce_plan pl;
    memset(&pl, 0, sizeof pl);
    pl.k = k;
    pl.es = rt_dtypes[a->dtype].size;
    pl.in = x->data;
    pl.out = out->data;
    pl.inner_reduced = gred[ng - 1];
    pl.C = pl.L = 1;
    int64_t stride = 1;
    int64_t gstride[CJ_MAX_RANK];
    for (int g = ng - 1; g >= 0; g--) {
        gstride[g] = stride;
        stride *= gsize[g];
    }
    for (int g = 0; g < ng; g++) {
        int inner = g == ng - 1;
        if (gred[g] && inner) pl.L = gsize[g];
        else if (gred[g]) odo_push(&pl.red, gsize[g], gstride[g]);
        else if (inner) pl.C = gsize[g];
        else odo_push(&pl.kept, gsize[g], gstride[g]);
    }
    pl.n_pieces = ceil_div(pl.L, FOLD_PIECE);
    pl.U = odo_count(&pl.kept);
    pl.S = odo_count(&pl.red);
    pl.col_chunk = min64(pl.C, ROW_BYTES / (int64_t)pl.es);
    pl.consecutive_runs = pl.inner_reduced && pl.S == 1 && pl.kept.n <= 1 && pl.n_pieces == 1;
    pl.n_chunks = ceil_div(pl.C, pl.col_chunk);
    return run_reduction(ctx, prim, &pl, x->size);
}

/* ---- arg-reductions ------------------------------------------------------- */

typedef struct arg_job {
    const reducer *k; /* max or min of the operand's dtype */
    find_fn find;
    argrows_fn argrows;
    size_t es;
    const char *in;
    void *out;
    cj_dtype index_dtype;
    int64_t outer, n, inner, col_chunk, n_chunks;
} arg_job;

static void store_index(void *out, cj_dtype dt, int64_t i, int64_t v) {
    if (dt == CJ_I64) ((int64_t *)out)[i] = v;
    else ((int32_t *)out)[i] = (int32_t)v;
}

/* The first best element of a contiguous run: its value by a vectorised
 * fold, then the first position holding that value. */
static int64_t arg_of_run(const arg_job *j, const char *x, int64_t n) {
    _Alignas(8) unsigned char best[8];
    j->k->fill(best, 1);
    j->k->fold(best, x, n);
    return j->find(x, n, best);
}

static void arg_rows_contiguous(void *arg, int64_t r0, int64_t r1) {
    const arg_job *j = arg;
    for (int64_t r = r0; r < r1; r++)
        store_index(j->out, j->index_dtype, r, arg_of_run(j, j->in + (size_t)(r * j->n) * j->es, j->n));
}

/* Units: column chunks of (outer, inner) rows; the axis is walked row by
 * row, vectorised along the columns. */
static void arg_rows_strided(void *arg, int64_t w0, int64_t w1) {
    const arg_job *j = arg;
    _Alignas(64) unsigned char best[ARG_CHUNK * sizeof(double)];
    int64_t idx[ARG_CHUNK];
    for (int64_t w = w0; w < w1; w++) {
        int64_t o = w / j->n_chunks, c0 = (w % j->n_chunks) * j->col_chunk;
        int64_t cw = min64(j->col_chunk, j->inner - c0);
        j->argrows(j->in + (size_t)(o * j->n * j->inner + c0) * j->es, j->n, j->inner, cw, best, idx);
        for (int64_t c = 0; c < cw; c++) store_index(j->out, j->index_dtype, o * j->inner + c0 + c, idx[c]);
    }
}

/* One long run split across threads: blocks fold their best values, the
 * best of those is the target, and the first block holding it gives the
 * index. */
typedef struct long_arg_job {
    const arg_job *j;
    const char *x;
    int64_t n, n_blocks;
    unsigned char *values; /* n_blocks elements */
    const void *target;
    int64_t *found; /* per block: first match in the block, or -1 */
} long_arg_job;

static void long_arg_fold(void *arg, int64_t b0, int64_t b1) {
    const long_arg_job *l = arg;
    for (int64_t b = b0; b < b1; b++) {
        int64_t s = b * l->n / l->n_blocks, e = (b + 1) * l->n / l->n_blocks;
        unsigned char *v = l->values + (size_t)b * l->j->es;
        l->j->k->fill(v, 1);
        l->j->k->fold(v, l->x + (size_t)s * l->j->es, e - s);
    }
}

static void long_arg_find(void *arg, int64_t b0, int64_t b1) {
    const long_arg_job *l = arg;
    for (int64_t b = b0; b < b1; b++) {
        int64_t s = b * l->n / l->n_blocks, e = (b + 1) * l->n / l->n_blocks;
        int64_t f = l->j->find(l->x + (size_t)s * l->j->es, e - s, l->target);
        l->found[b] = f < 0 ? -1 : s + f;
    }
}

static int64_t arg_of_long_run(const arg_job *j, const char *x, int64_t n, int64_t n_blocks) {
    _Alignas(8) unsigned char values[MAX_BLOCKS * 8], best[8];
    int64_t found[MAX_BLOCKS];
    long_arg_job l = {j, x, n, n_blocks, values, best, found};
    rt_parallel_for(n_blocks, 1, long_arg_fold, &l);
    j->k->fill(best, 1);
    j->k->fold(best, values, n_blocks);
    rt_parallel_for(n_blocks, 1, long_arg_find, &l);
    for (int64_t b = 0; b < n_blocks; b++)
        if (found[b] >= 0) return found[b];
    return 0; /* unreachable: the best value occurs somewhere */
}

static int arg_impl(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, rt_array *const *in,
                    rt_array *out) {
    (void)ctx;
    (void)n_in;
    const rt_array *x = in[0];
    cj_dtype dt = x->aval.dtype;
    int is_max = prim == PRIM_ARGMAX;
    arg_job j;
    memset(&j, 0, sizeof j);
    j.k = &reducers[is_max ? OP_MAX : OP_MIN][dt];
    j.find = finders[dt];
    j.argrows = argrowers[is_max][dt];
    j.es = rt_dtypes[dt].size;
    j.in = x->data;
    j.out = out->data;
    j.index_dtype = out->aval.dtype;
    split_at_axis(&x->aval, (int)p->axes.v[0], &j.outer, &j.n, &j.inner);
    if (out->size == 0) return 0;
    int nt = threads_for(x->size);
    if (j.inner > 1) {
        j.col_chunk = column_chunk(nt, j.outer, j.inner, MIN_COL_CHUNK, ARG_CHUNK);
        j.n_chunks = ceil_div(j.inner, j.col_chunk);
        int64_t units = j.outer * j.n_chunks;
        run_items(nt, units, x->size, arg_rows_strided, &j);
        return 0;
    }
    int64_t n_blocks = min64(min64(2 * (int64_t)nt, MAX_BLOCKS), j.n / SCAN_BLOCK);
    if (nt == 1 || j.outer >= 2 * (int64_t)nt || n_blocks < 2) {
        run_items(nt, j.outer, x->size, arg_rows_contiguous, &j);
        return 0;
    }
    for (int64_t r = 0; r < j.outer; r++)
        store_index(j.out, j.index_dtype, r, arg_of_long_run(&j, j.in + (size_t)(r * j.n) * j.es, j.n, n_blocks));
    return 0;
}

/* ---- cumulative ops ------------------------------------------------------- */

typedef struct scan_job {
    const reducer *k;
    size_t es;
    const char *in;
    char *out;
    int reverse;
    int64_t outer, n, inner, col_chunk, n_chunks;
} scan_job;

static void scan_rows_contiguous(void *arg, int64_t r0, int64_t r1) {
    const scan_job *j = arg;
    _Alignas(8) unsigned char carry[8];
    for (int64_t r = r0; r < r1; r++) {
        size_t off = (size_t)(r * j->n) * j->es;
        j->k->fill(carry, 1);
        j->k->scan(j->out + off, j->in + off, j->n, carry, j->reverse);
    }
}

/* Units: column chunks of (outer, inner) planes; each row along the axis is
 * the previous output row ∘ this input row, vectorised along the columns. */
static void scan_rows_strided(void *arg, int64_t w0, int64_t w1) {
    const scan_job *j = arg;
    size_t es = j->es;
    for (int64_t w = w0; w < w1; w++) {
        int64_t o = w / j->n_chunks, c0 = (w % j->n_chunks) * j->col_chunk;
        int64_t cw = min64(j->col_chunk, j->inner - c0);
        size_t row = (size_t)j->inner * es;
        const char *src = j->in + (size_t)(o * j->n * j->inner + c0) * es;
        char *dst = j->out + (size_t)(o * j->n * j->inner + c0) * es;
        int64_t first = j->reverse ? j->n - 1 : 0, step = j->reverse ? -1 : 1;
        memcpy(dst + (size_t)first * row, src + (size_t)first * row, (size_t)cw * es);
        for (int64_t i = 1, a = first + step; i < j->n; i++, a += step)
            j->k->scan_rows(dst + (size_t)a * row, dst + (size_t)(a - step) * row, src + (size_t)a * row, cw);
    }
}

/* One long row scanned by blocks: each block's total, then each block's
 * carry (the combination of the blocks before it, or after it when
 * reversed), then every block scans from its carry. */
typedef struct long_scan_job {
    const scan_job *j;
    const char *x;
    char *y;
    int64_t n_blocks;
    unsigned char *totals, *carries;
} long_scan_job;

static void long_scan_totals(void *arg, int64_t b0, int64_t b1) {
    const long_scan_job *l = arg;
    const scan_job *j = l->j;
    for (int64_t b = b0; b < b1; b++) {
        int64_t s = b * j->n / l->n_blocks, e = (b + 1) * j->n / l->n_blocks;
        j->k->fill(l->totals + b * j->es, 1);
        j->k->fold(l->totals + b * j->es, l->x + (size_t)s * j->es, e - s);
    }
}

static void long_scan_blocks(void *arg, int64_t b0, int64_t b1) {
    const long_scan_job *l = arg;
    const scan_job *j = l->j;
    for (int64_t b = b0; b < b1; b++) {
        int64_t s = b * j->n / l->n_blocks, e = (b + 1) * j->n / l->n_blocks;
        j->k->scan(l->y + (size_t)s * j->es, l->x + (size_t)s * j->es, e - s, l->carries + b * j->es,
                   j->reverse);
    }
}

static void scan_long_row(const scan_job *j, const char *x, char *y, int64_t n_blocks) {
    _Alignas(8) unsigned char totals[MAX_BLOCKS * 8], carries[MAX_BLOCKS * 8];
    long_scan_job l = {j, x, y, n_blocks, totals, carries};
    size_t es = j->es;
    rt_parallel_for(n_blocks, 1, long_scan_totals, &l);
    int64_t first = j->reverse ? n_blocks - 1 : 0, step = j->reverse ? -1 : 1;
    j->k->fill(carries + first * es, 1);
    for (int64_t i = 1, b = first + step; i < n_blocks; i++, b += step) {
        memcpy(carries + b * es, carries + (b - step) * es, es);
        j->k->rows(carries + b * es, totals + (b - step) * es, 1);
    }
    rt_parallel_for(n_blocks, 1, long_scan_blocks, &l);
}

static int cum_impl(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, rt_array *const *in,
                    rt_array *out) {
    (void)ctx;
    (void)n_in;
    const rt_array *x = in[0];
    scan_job j;
    memset(&j, 0, sizeof j);
    j.k = &reducers[op_of(prim)][x->aval.dtype];
    j.es = rt_dtypes[x->aval.dtype].size;
    j.in = x->data;
    j.out = out->data;
    j.reverse = p->flag != 0;
    split_at_axis(&x->aval, (int)p->axes.v[0], &j.outer, &j.n, &j.inner);
    if (x->size == 0) return 0;
    int nt = threads_for(x->size);
    if (j.inner > 1) {
        j.col_chunk = column_chunk(nt, j.outer, j.inner, MIN_COL_CHUNK, ROW_BYTES / (int64_t)j.es);
        j.n_chunks = ceil_div(j.inner, j.col_chunk);
        int64_t units = j.outer * j.n_chunks;
        run_items(nt, units, x->size, scan_rows_strided, &j);
        return 0;
    }
    int64_t n_blocks = min64(min64(2 * (int64_t)nt, MAX_BLOCKS), j.n / SCAN_BLOCK);
    if (nt == 1 || j.outer >= 2 * (int64_t)nt || n_blocks < 2) {
        run_items(nt, j.outer, x->size, scan_rows_contiguous, &j);
        return 0;
    }
    for (int64_t r = 0; r < j.outer; r++) {
        size_t off = (size_t)(r * j.n) * j.es;
        scan_long_row(&j, j.in + off, j.out + off, n_blocks);
    }
    return 0;
}

/* ---- abstract evaluation ---------------------------------------------------- */

static int rejects_bool(prim_id prim) {
    return prim == PRIM_REDUCE_SUM || prim == PRIM_REDUCE_PROD || prim == PRIM_CUMSUM ||
           prim == PRIM_CUMPROD;
}

/* The checks every member shares: a valid dtype, and no bool where the
 * operation would count or multiply (jnp converts bools to i32 first). */
static int check_operand(cj_ctx *ctx, prim_id prim, const rt_aval *x) {
    char t[128];
    rt_aval_str(x, t, sizeof t);
    if (!rt_dtype_valid((int)x->dtype))
        return prim_error(ctx, CJ_ERR_DTYPE, prim, "operand has an invalid dtype");
    if (x->dtype == CJ_BOOL && rejects_bool(prim))
        return prim_error(ctx, CJ_ERR_DTYPE, prim,
                          "operand %s: bool is not accepted (convert it to an integer dtype first)", t);
    if (op_of(prim) >= OP_AND && x->dtype != CJ_BOOL && !rt_is_int(x->dtype))
        return prim_error(ctx, CJ_ERR_DTYPE, prim,
                          "a logical reduction takes bool or an integer dtype, got %s (operand %s)",
                          rt_dtypes[x->dtype].name, t);
    if (!reducers[op_of(prim)][x->dtype].fill) /* the kernel table is the list of what works */
        return prim_error(ctx, CJ_ERR_DTYPE, prim, "dtype %s is not supported (operand %s)",
                          rt_dtypes[x->dtype].name, t);
    return 0;
}

/* The single axis of an arg-reduction or cumulative op. */
static int check_one_axis(cj_ctx *ctx, prim_id prim, const prim_params *p, const rt_aval *x) {
    if (p->axes.n == 1 && p->axes.v[0] >= 0 && p->axes.v[0] < x->rank) return 0;
    char t[128];
    rt_aval_str(x, t, sizeof t);
    if (p->axes.n != 1)
        return prim_error(ctx, CJ_ERR_AXIS, prim, "needs exactly one axis, got %d (operand %s)", p->axes.n, t);
    return prim_error(ctx, CJ_ERR_AXIS, prim, "axis %lld is out of range for %s", (long long)p->axes.v[0], t);
}

static int reduce_abstract_eval(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in,
                                const rt_aval *in, rt_aval *out) {
    (void)n_in;
    const rt_aval *x = &in[0];
    if (check_operand(ctx, prim, x) != 0) return -1;
    int ok = p->axes.n >= 0 && p->axes.n <= x->rank;
    for (int i = 0; ok && i < p->axes.n; i++)
        ok = p->axes.v[i] >= 0 && p->axes.v[i] < x->rank && (i == 0 || p->axes.v[i] > p->axes.v[i - 1]);
    if (!ok) {
        char t[128], axes[200] = "axes=(?)";
        rt_aval_str(x, t, sizeof t);
        if (p->axes.n >= 0 && p->axes.n <= CJ_MAX_RANK) prim_print_ivec(axes, sizeof axes, "axes", &p->axes);
        return prim_error(ctx, CJ_ERR_AXIS, prim, "%s must be sorted, unique and within the rank of %s", axes, t);
    }
    out->dtype = x->dtype;
    out->weak = x->weak;
    out->rank = 0;
    for (int d = 0, i = 0; d < x->rank; d++) {
        if (i < p->axes.n && p->axes.v[i] == d) i++;
        else out->dims[out->rank++] = x->dims[d];
    }
    return 0;
}

/* The index dtype of an arg-reduction: the zero value (bool) means i32. */
static cj_dtype index_dtype(const prim_params *p) { return p->dtype == CJ_BOOL ? CJ_I32 : p->dtype; }

static int arg_abstract_eval(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in,
                             const rt_aval *in, rt_aval *out) {
    (void)n_in;
    const rt_aval *x = &in[0];
    if (check_operand(ctx, prim, x) != 0 || check_one_axis(ctx, prim, p, x) != 0) return -1;
    cj_dtype idt = index_dtype(p);
    if (idt != CJ_I32 && idt != CJ_I64)
        return prim_error(ctx, CJ_ERR_DTYPE, prim, "index_dtype must be i32 or i64, got %s",
                          cj_dtype_name(idt));
    int axis = (int)p->axes.v[0];
    if (x->dims[axis] == 0) {
        char t[128];
        rt_aval_str(x, t, sizeof t);
        return prim_error(ctx, CJ_ERR_SHAPE, prim, "cannot take the %s of an empty axis (axis %d of %s)",
                          prim_names[prim], axis, t);
    }
    out->dtype = idt;
    out->weak = 0;
    out->rank = 0;
    for (int d = 0; d < x->rank; d++)
        if (d != axis) out->dims[out->rank++] = x->dims[d];
    return 0;
}

static int cum_abstract_eval(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in,
                             const rt_aval *in, rt_aval *out) {
    (void)n_in;
    const rt_aval *x = &in[0];
    if (check_operand(ctx, prim, x) != 0 || check_one_axis(ctx, prim, p, x) != 0) return -1;
    if (p->flag != 0 && p->flag != 1)
        return prim_error(ctx, CJ_ERR_ARG, prim, "reverse must be 0 or 1, got %d", p->flag);
    *out = *x;
    return 0;
}

/* ---- printing and registration ---------------------------------------------- */

static int reduce_print(const prim_params *p, char *buf, size_t size) {
    return prim_print_ivec(buf, size, "axes", &p->axes);
}

static int arg_print(const prim_params *p, char *buf, size_t size) {
    int n = prim_print_ivec(buf, size, "axes", &p->axes);
    size_t at = n > 0 && (size_t)n < size ? (size_t)n : size;
    return n + snprintf(buf + at, size - at, " index_dtype=%s", cj_dtype_name(index_dtype(p)));
}

static int cum_print(const prim_params *p, char *buf, size_t size) {
    return snprintf(buf, size, "axis=%lld reverse=%s", (long long)(p->axes.n ? p->axes.v[0] : 0),
                    p->flag ? "True" : "False");
}

/* ---- vmap rules: the reduced axes are renumbered around the batch axis,
 * which stays where it is (shifted left by the reduced axes before it). */
static int batch_reduce(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                        const int64_t *bdim, int64_t size, cj_val *out, int64_t *out_bdim) {
    (void)size, (void)n_in;
    prim_params q = *p;
    int64_t bd = bdim[0];
    int keeps_rank = prim == PRIM_CUMSUM || prim == PRIM_CUMPROD || prim == PRIM_CUMMAX;
    for (int i = 0; i < q.axes.n; i++) {
        q.axes.v[i] = batch_axis(p->axes.v[i], bdim[0]);
        if (!keeps_rank && q.axes.v[i] < bdim[0]) bd--;
    }
    *out = core_bind(ctx, prim, &q, 1, in);
    *out_bdim = bd;
    return out->slot ? 0 : -1;
}

void prim_register_reduce(void) {
    static const prim_id reductions[] = {PRIM_REDUCE_SUM, PRIM_REDUCE_PROD, PRIM_REDUCE_MAX, PRIM_REDUCE_MIN,
                                         PRIM_REDUCE_AND, PRIM_REDUCE_OR,  PRIM_REDUCE_XOR};
    static const prim_id args[] = {PRIM_ARGMAX, PRIM_ARGMIN};
    static const prim_id scans[] = {PRIM_CUMSUM, PRIM_CUMPROD, PRIM_CUMMAX};
    for (size_t i = 0; i < sizeof reductions / sizeof *reductions; i++)
        prim_rules[reductions[i]] = (prim_rule){.abstract_eval = reduce_abstract_eval,
                                                .impl = reduce_impl,
                                                .print_params = reduce_print,
                                                .lower = {.kind = LOWER_REDUCTION,
                                                          .row_fold = reduce_row_fold,
                                                          .fold_c = reduce_fold_c,
                                                          .cost = PRIM_COST_FOLD,
                                                          .col_fold = reduce_col_fold}};
    for (size_t i = 0; i < sizeof args / sizeof *args; i++)
        prim_rules[args[i]] = (prim_rule){.abstract_eval = arg_abstract_eval,
                                          .impl = arg_impl,
                                          .print_params = arg_print,
                                          .lower = {.kind = LOWER_REDUCTION, .cost = PRIM_COST_FOLD}};
    for (size_t i = 0; i < sizeof scans / sizeof *scans; i++)
        prim_rules[scans[i]] = (prim_rule){.abstract_eval = cum_abstract_eval,
                                           .impl = cum_impl,
                                           .print_params = cum_print,
                                           .lower = {.kind = LOWER_REDUCTION, .cost = PRIM_COST_FOLD}};
    for (int i = 0; i < PRIM_COUNT; i++)
        if (prim_families[i] == FAMILY_REDUCE) prim_rules[i].batch = batch_reduce;
    /* every dtype: the kernel tables above say which (check_operand) */
    for (size_t i = 0; i < sizeof reductions / sizeof *reductions; i++) prim_rules[reductions[i]].extra_dtypes = true;
    for (size_t i = 0; i < sizeof args / sizeof *args; i++) prim_rules[args[i]].extra_dtypes = true;
    for (size_t i = 0; i < sizeof scans / sizeof *scans; i++) prim_rules[scans[i]].extra_dtypes = true;
}
