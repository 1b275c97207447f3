/* dtype.c — dtype table, abstract values (shape + dtype) and element
 * conversion (runtime layer). The table is expanded from dtypes.def. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "runtime.h"

const rt_dtype_info rt_dtypes[CJ_NUM_DTYPES] = {
#define X(e, ct, name, descr, isf, isi, isb) [e] = {name, descr, sizeof(ct), isf, isi, isb},
#include "dtypes.def"
#undef X
};

#define X(e, ct, name, descr, isf, isi, isb) +1
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

double rt_get_f64(cj_dtype dt, const void *data, int64_t i) {
    switch (dt) {
    case CJ_BOOL: return ((const uint8_t *)data)[i] != 0;
    case CJ_I32: return ((const int32_t *)data)[i];
    case CJ_I64: return (double)((const int64_t *)data)[i];
    case CJ_F32: return ((const float *)data)[i];
    case CJ_F64: return ((const double *)data)[i];
    default: return NAN;
    }
}

int64_t rt_get_i64(cj_dtype dt, const void *data, int64_t i) {
    switch (dt) {
    case CJ_BOOL: return ((const uint8_t *)data)[i] != 0;
    case CJ_I32: return ((const int32_t *)data)[i];
    case CJ_I64: return ((const int64_t *)data)[i];
    default: {
        double v = rt_get_f64(dt, data, i);
        if (v != v) return 0;
        if (v >= 9.2233720368547758e18) return INT64_MAX;
        if (v <= -9.2233720368547758e18) return INT64_MIN;
        return (int64_t)v;
    }
    }
}

/* Float → int as NumPy on x86 would, but defined: NaN → 0, out of range
 * saturates (C leaves it undefined; JAX/XLA saturates too). */
static int64_t f2i(double v, int64_t lo, int64_t hi) {
    if (v != v) return 0;
    if (v <= (double)lo) return lo;
    if (v >= (double)hi) return hi;
    return (int64_t)v;
}

void rt_set_f64(cj_dtype dt, void *data, int64_t i, double v) {
    switch (dt) {
    case CJ_BOOL: ((uint8_t *)data)[i] = v != 0; break;
    case CJ_I32: ((int32_t *)data)[i] = (int32_t)f2i(v, INT32_MIN, INT32_MAX); break;
    case CJ_I64: ((int64_t *)data)[i] = f2i(v, INT64_MIN, INT64_MAX); break;
    case CJ_F32: ((float *)data)[i] = (float)v; break;
    case CJ_F64: ((double *)data)[i] = v; break;
    default: break;
    }
}

/* One loop per (from, to) pair so each vectorises. */
#define CONV_LOOP(TF, TT, EXPR)                                  \
    do {                                                         \
        const TF *s = (const TF *)src;                           \
        TT *d = (TT *)dst;                                       \
        for (int64_t i = 0; i < n; i++) d[i] = (TT)(EXPR);       \
    } while (0)

#define FLOAT_TO_INT(TF, TT, LO, HI)                                                   \
    CONV_LOOP(TF, TT, s[i] != s[i] ? 0 : s[i] <= (TF)(LO) ? (LO) : s[i] >= (TF)(HI) ? (HI) \
                                                                                   : (TT)s[i])

void rt_convert(cj_dtype from, const void *src, cj_dtype to, void *dst, int64_t n) {
    if (from == to) {
        memmove(dst, src, (size_t)n * rt_dtypes[to].size);
        return;
    }
    switch (to) {
    case CJ_BOOL:
        switch (from) {
        case CJ_I32: CONV_LOOP(int32_t, uint8_t, s[i] != 0); return;
        case CJ_I64: CONV_LOOP(int64_t, uint8_t, s[i] != 0); return;
        case CJ_F32: CONV_LOOP(float, uint8_t, s[i] != 0); return;
        case CJ_F64: CONV_LOOP(double, uint8_t, s[i] != 0); return;
        default: return;
        }
    case CJ_I32:
        switch (from) {
        case CJ_BOOL: CONV_LOOP(uint8_t, int32_t, s[i] != 0); return;
        case CJ_I64: CONV_LOOP(int64_t, int32_t, (int32_t)(uint32_t)s[i]); return;
        case CJ_F32: FLOAT_TO_INT(float, int32_t, INT32_MIN, INT32_MAX); return;
        case CJ_F64: FLOAT_TO_INT(double, int32_t, INT32_MIN, INT32_MAX); return;
        default: return;
        }
    case CJ_I64:
        switch (from) {
        case CJ_BOOL: CONV_LOOP(uint8_t, int64_t, s[i] != 0); return;
        case CJ_I32: CONV_LOOP(int32_t, int64_t, s[i]); return;
        case CJ_F32: FLOAT_TO_INT(float, int64_t, INT64_MIN, INT64_MAX); return;
        case CJ_F64: FLOAT_TO_INT(double, int64_t, INT64_MIN, INT64_MAX); return;
        default: return;
        }
    case CJ_F32:
        switch (from) {
        case CJ_BOOL: CONV_LOOP(uint8_t, float, s[i] != 0); return;
        case CJ_I32: CONV_LOOP(int32_t, float, s[i]); return;
        case CJ_I64: CONV_LOOP(int64_t, float, s[i]); return;
        case CJ_F64: CONV_LOOP(double, float, s[i]); return;
        default: return;
        }
    case CJ_F64:
        switch (from) {
        case CJ_BOOL: CONV_LOOP(uint8_t, double, s[i] != 0); return;
        case CJ_I32: CONV_LOOP(int32_t, double, s[i]); return;
        case CJ_I64: CONV_LOOP(int64_t, double, s[i]); return;
        case CJ_F32: CONV_LOOP(float, double, s[i]); return;
        default: return;
        }
    default: return;
    }
}
