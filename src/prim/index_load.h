/* index_load.h — reading one index element of any integer dtype (prim
 * layer: the gathers, scatters and dynamic slices read their indices
 * through it).
 *
 * lax takes indices of every integer dtype (i8 … i64, u8 … u64). Each is
 * read as its value in int64_t; a u64 above INT64_MAX, which no axis can
 * reach, saturates to INT64_MAX so that it stays out of range on the high
 * side (a wrap to a negative number would clamp to the other end). bool
 * is not an index dtype: the shape rules refuse it (index_dtype_ok). */
#ifndef CJ_PRIM_INDEX_LOAD_H
#define CJ_PRIM_INDEX_LOAD_H
#include <stdint.h>

#include "../runtime/runtime.h"

static inline bool index_dtype_ok(cj_dtype dt) { return rt_dtype_valid(dt) && rt_is_int(dt); }

static inline int64_t index_load(cj_dtype dt, const void *data, int64_t i) {
    switch (dt) {
    case CJ_I32: return ((const int32_t *)data)[i];
    case CJ_I64: return ((const int64_t *)data)[i];
    case CJ_I8: return ((const int8_t *)data)[i];
    case CJ_I16: return ((const int16_t *)data)[i];
    case CJ_U8: return ((const uint8_t *)data)[i];
    case CJ_U16: return ((const uint16_t *)data)[i];
    case CJ_U32: return ((const uint32_t *)data)[i];
    case CJ_U64: {
        uint64_t u = ((const uint64_t *)data)[i];
        return u > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)u;
    }
    default: return 0;
    }
}

#endif
