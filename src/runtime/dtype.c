/* dtype.c — dtype table, abstract values (shape + dtype) and element
 * conversion (runtime layer). The table is expanded from dtypes.def. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "half.h"
#include "runtime.h"

const rt_dtype_info rt_dtypes[CJ_NUM_DTYPES] = {
#define X(e, ct, name, descr, isf, isi, isb, isu) [e] = {name, descr, sizeof(ct), isf, isi, isb, isu},
#include "dtypes.def"
#undef X
};

#define X(e, ct, name, descr, isf, isi, isb, isu) +1
_Static_assert(0
#include "dtypes.def"
                   == CJ_NUM_DTYPES,
               "dtypes.def and cj_dtype disagree");
#undef X

const char *cj_dtype_name(cj_dtype dt) {
    return rt_dtype_valid(dt) ? rt_dtypes[dt].name : "?";
}

size_t cj_dtype_size(cj_dtype dt) { return rt_dtype_valid(dt) ? rt_dtypes[dt].size : 0; }

int64_t rt_aval_size(const rt_aval *a) {
    int64_t n = 1;
    for (int i = 0; i < a->rank; i++) n *= a->dims[i];
    return n;
}

rt_shape_status rt_shape_check(int rank, const int64_t *dims) {
    if (rank < 0 || rank > CJ_MAX_RANK) return RT_SHAPE_BAD_RANK;
    int64_t extent = 1; /* the nonzero sizes' product, at most RT_MAX_ELEMENTS */
    for (int i = 0; i < rank; i++) {
        if (dims[i] < 0) return RT_SHAPE_NEGATIVE;
        if (dims[i] > 0 && (__builtin_mul_overflow(extent, dims[i], &extent) || extent > RT_MAX_ELEMENTS))
            return RT_SHAPE_TOO_LARGE;
    }
    return RT_SHAPE_OK;
}

const char *rt_shape_status_text(rt_shape_status s) {
    switch (s) {
    case RT_SHAPE_OK: return "is valid";
    case RT_SHAPE_BAD_RANK: return "has a rank outside 0..8";
    case RT_SHAPE_NEGATIVE: return "has a negative size";
    case RT_SHAPE_TOO_LARGE: return "is too large (more than 2^59 elements, zero sizes counted as 1)";
    }
    return "is invalid";
}

size_t rt_aval_nbytes(const rt_aval *a) {
    return (size_t)rt_aval_size(a) * rt_dtypes[a->dtype].size;
}

bool rt_aval_same_shape(const rt_aval *a, const rt_aval *b) {
    if (a->rank != b->rank) return false;
    for (int i = 0; i < a->rank; i++)
        if (a->dims[i] != b->dims[i]) return false;
    return true;
}

bool rt_aval_equal(const rt_aval *a, const rt_aval *b) {
    return a->dtype == b->dtype && !a->weak == !b->weak && rt_aval_same_shape(a, b);
}

rt_aval rt_aval_make(cj_dtype dt, int rank, const int64_t *dims) {
    rt_aval a;
    memset(&a, 0, sizeof a);
    a.dtype = dt;
    a.rank = rank;
    for (int i = 0; i < rank; i++) a.dims[i] = dims[i];
    return a;
}

int rt_dims_str(int rank, const int64_t *dims, char *buf, size_t size) {
    size_t n = 0;
    int w = snprintf(buf, size, "(");
    n = w > 0 ? (size_t)w : 0;
    for (int i = 0; i < rank; i++) {
        w = snprintf(buf + (n < size ? n : size), n < size ? size - n : 0, "%s%lld",
                     i ? ", " : "", (long long)dims[i]);
        if (w > 0) n += (size_t)w;
    }
    w = snprintf(buf + (n < size ? n : size), n < size ? size - n : 0, rank == 1 ? ",)" : ")");
    if (w > 0) n += (size_t)w;
    return (int)n;
}

int rt_aval_str(const rt_aval *a, char *buf, size_t size) {
    size_t n = 0;
    int w = snprintf(buf, size, "%s[", rt_dtype_valid(a->dtype) ? rt_dtypes[a->dtype].name : "?");
    n = w > 0 ? (size_t)w : 0;
    for (int i = 0; i < a->rank; i++) {
        w = snprintf(buf + (n < size ? n : size), n < size ? size - n : 0, "%s%lld", i ? "," : "",
                     (long long)a->dims[i]);
        if (w > 0) n += (size_t)w;
    }
    w = snprintf(buf + (n < size ? n : size), n < size ? size - n : 0, "]");
    if (w > 0) n += (size_t)w;
    return (int)n;
}

void rt_strides(const rt_aval *a, int64_t *strides) {
    int64_t s = 1;
    for (int i = a->rank - 1; i >= 0; i--) {
        strides[i] = s;
        s *= a->dims[i];
    }
}

/* One element as double / int64 / uint64, through the converter so every
 * path rounds and saturates alike. */
double rt_get_f64(cj_dtype dt, const void *data, int64_t i) {
    if (!rt_dtype_valid(dt)) return NAN;
    double v;
    rt_convert(dt, (const char *)data + (size_t)i * rt_dtypes[dt].size, CJ_F64, &v, 1);
    return v;
}

int64_t rt_get_i64(cj_dtype dt, const void *data, int64_t i) {
    if (!rt_dtype_valid(dt)) return 0;
    int64_t v;
    rt_convert(dt, (const char *)data + (size_t)i * rt_dtypes[dt].size, CJ_I64, &v, 1);
    return v;
}

uint64_t rt_get_u64(cj_dtype dt, const void *data, int64_t i) {
    if (!rt_dtype_valid(dt)) return 0;
    uint64_t v;
    rt_convert(dt, (const char *)data + (size_t)i * rt_dtypes[dt].size, CJ_U64, &v, 1);
    return v;
}

void rt_set_f64(cj_dtype dt, void *data, int64_t i, double v) {
    if (!rt_dtype_valid(dt)) return;
    rt_convert(CJ_F64, &v, dt, (char *)data + (size_t)i * rt_dtypes[dt].size, 1);
}

/* ---- the element converter ----
 * XLA's convert_element_type on CPU (fixtures in tests/data/gen_dtype_
 * fixtures.py): integers wrap to a narrower integer type (two's complement,
 * the low bits kept); a float becomes an integer by truncation toward zero,
 * NaN → 0, out of range saturating at the type's limits (negative → 0 for
 * unsigned types); anything → bool is != 0 (so NaN → true); integer → float
 * rounds to nearest even; f16 and bf16 as half.h says (through f32, except
 * f64 → f16). */
#define SAT(SFX, TT, LO, HI)                                                               \
    static inline TT sat_##SFX##_f(float v) {                                              \
        return v != v ? 0 : v <= (float)(LO) ? (TT)(LO) : v >= (float)(HI) ? (TT)(HI) : (TT)v; \
    }                                                                                      \
    static inline TT sat_##SFX##_d(double v) {                                             \
        return v != v ? 0 : v <= (double)(LO) ? (TT)(LO) : v >= (double)(HI) ? (TT)(HI) : (TT)v; \
    }
SAT(i8, int8_t, INT8_MIN, INT8_MAX)
SAT(i16, int16_t, INT16_MIN, INT16_MAX)
SAT(i32, int32_t, INT32_MIN, INT32_MAX)
SAT(i64, int64_t, INT64_MIN, INT64_MAX)
SAT(u8, uint8_t, 0, UINT8_MAX)
SAT(u16, uint16_t, 0, UINT16_MAX)
SAT(u32, uint32_t, 0, UINT32_MAX)
SAT(u64, uint64_t, 0, UINT64_MAX)
#undef SAT

/* One loop per (from, to) pair so each vectorises. */
#define CONV_LOOP(TF, TT, EXPR)                                  \
    do {                                                         \
        const TF *s = (const TF *)src;                           \
        TT *d = (TT *)dst;                                       \
        for (int64_t i = 0; i < n; i++) d[i] = (TT)(EXPR);       \
    } while (0)

/* Every source dtype into one target: INT for the integer sources (s[i]
 * typed as the source), F32/F64 for the floats, H/B for f16/bf16 bits. */
#define FROM_EVERY(TT, BOOL, INT, F32, F64, H, B)                 \
    switch (from) {                                              \
    case CJ_BOOL: CONV_LOOP(uint8_t, TT, BOOL); return;          \
    case CJ_I8: CONV_LOOP(int8_t, TT, INT); return;              \
    case CJ_I16: CONV_LOOP(int16_t, TT, INT); return;            \
    case CJ_I32: CONV_LOOP(int32_t, TT, INT); return;            \
    case CJ_I64: CONV_LOOP(int64_t, TT, INT); return;            \
    case CJ_U8: CONV_LOOP(uint8_t, TT, INT); return;             \
    case CJ_U16: CONV_LOOP(uint16_t, TT, INT); return;           \
    case CJ_U32: CONV_LOOP(uint32_t, TT, INT); return;           \
    case CJ_U64: CONV_LOOP(uint64_t, TT, INT); return;           \
    case CJ_F32: CONV_LOOP(float, TT, F32); return;              \
    case CJ_F64: CONV_LOOP(double, TT, F64); return;             \
    case CJ_F16: CONV_LOOP(uint16_t, TT, H); return;             \
    case CJ_BF16: CONV_LOOP(uint16_t, TT, B); return;            \
    default: return;                                             \
    }

/* An integer target: the unsigned type of its width keeps the low bits
 * (defined in C); the signed reading of them is gcc's and clang's. */
#define TO_INT(TT, UT, SFX)                                                                  \
    FROM_EVERY(TT, s[i] != 0, (UT)s[i], sat_##SFX##_f(s[i]), sat_##SFX##_d(s[i]),            \
               sat_##SFX##_f(rt_f16_to_f32(s[i])), sat_##SFX##_f(rt_bf16_to_f32(s[i])))

void rt_convert(cj_dtype from, const void *src, cj_dtype to, void *dst, int64_t n) {
    if (from == to) {
        if (n > 0) memmove(dst, src, (size_t)n * rt_dtypes[to].size);
        return;
    }
    switch (to) {
    case CJ_BOOL:
        FROM_EVERY(uint8_t, s[i] != 0, s[i] != 0, s[i] != 0, s[i] != 0, rt_f16_to_f32(s[i]) != 0,
                   rt_bf16_to_f32(s[i]) != 0)
    case CJ_I8: TO_INT(int8_t, uint8_t, i8)
    case CJ_I16: TO_INT(int16_t, uint16_t, i16)
    case CJ_I32: TO_INT(int32_t, uint32_t, i32)
    case CJ_I64: TO_INT(int64_t, uint64_t, i64)
    case CJ_U8: TO_INT(uint8_t, uint8_t, u8)
    case CJ_U16: TO_INT(uint16_t, uint16_t, u16)
    case CJ_U32: TO_INT(uint32_t, uint32_t, u32)
    case CJ_U64: TO_INT(uint64_t, uint64_t, u64)
    case CJ_F32:
        FROM_EVERY(float, s[i] != 0, s[i], s[i], s[i], rt_f16_to_f32(s[i]), rt_bf16_to_f32(s[i]))
    case CJ_F64:
        FROM_EVERY(double, s[i] != 0, s[i], s[i], s[i], rt_f16_to_f32(s[i]), rt_bf16_to_f32(s[i]))
    case CJ_F16:
        FROM_EVERY(uint16_t, s[i] ? 0x3c00u : 0u, rt_f32_to_f16((float)s[i]), rt_f32_to_f16(s[i]),
                   rt_f64_to_f16(s[i]), s[i], rt_f32_to_f16(rt_bf16_to_f32(s[i])))
    case CJ_BF16:
        FROM_EVERY(uint16_t, s[i] ? 0x3f80u : 0u, rt_f32_to_bf16((float)s[i]), rt_f32_to_bf16(s[i]),
                   rt_f32_to_bf16((float)s[i]), rt_f32_to_bf16(rt_f16_to_f32(s[i])), s[i])
    default: return;
    }
}
