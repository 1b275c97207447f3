/* shape_kernels.h — the data-movement engine behind the shape primitives
 * (prim layer, used only by shape.c).
 *
 * Every shape primitive's eager kernel is one or more strided copies: for
 * each index i of a box `dims`, element Σ i_d·src_stride_d of the source
 * goes to element Σ i_d·dst_stride_d of the destination. Strides are in
 * elements; a source stride of 0 repeats an element (broadcast), a negative
 * one walks backwards (rev), a larger one skips (slice steps, transposes);
 * a destination stride above the row-major one leaves gaps (pad interior).
 * Only the element size matters, so one engine serves every dtype. */
#ifndef CJ_PRIM_SHAPE_KERNELS_H
#define CJ_PRIM_SHAPE_KERNELS_H

#include "../runtime/runtime.h"

typedef struct sk_copy {
    int rank;
    int64_t dims[CJ_MAX_RANK];
    int64_t src_stride[CJ_MAX_RANK];
    int64_t dst_stride[CJ_MAX_RANK];
    const void *src; /* the source element of index (0, ..., 0) */
    void *dst;       /* the destination element of index (0, ..., 0) */
    size_t elem_size;
} sk_copy;

/* Runs the copy: merges dimensions that are contiguous on both sides, then
 * moves memcpy runs, fills (stride-0 sources), strided rows, or cache-sized
 * tiles (transposes), split over the thread pool when large. Destination
 * elements must not overlap each other or the source. */
void sk_copy_run(const sk_copy *c);

/* dst[0..n) = *value, each element elem_size bytes (threaded when large). */
void sk_fill(void *dst, const void *value, int64_t n, size_t elem_size);

/* Row-major array viewed as (outer, n, inner): element (o, i, k) = i,
 * written in dtype (i32, i64, f32 or f64). */
void sk_iota(void *dst, cj_dtype dtype, int64_t outer, int64_t n, int64_t inner);

#endif
