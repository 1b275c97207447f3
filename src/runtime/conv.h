/* conv.h — the convolution kernel (runtime layer).
 *
 * The conv_general_dilated primitive (src/prim/conv.c) validates shapes,
 * brings its operands into the canonical layouts below and calls rt_conv;
 * the interpreter and generated code reach it through the primitive's
 * impl, so every path computes the same bits.
 *
 * Canonical layouts, row-major: lhs [N, C, s0, s1, ...], rhs [O, I, k0,
 * k1, ...], out [N/B, O, y0, y1, ...]. With G = feature_group_count and
 * B = batch_group_count (at most one above 1): C = G·I; output feature o
 * belongs to group g = o / (O/(G·B)); a feature group reads input
 * features [g·I, (g+1)·I) of lhs image n, a batch group reads all C
 * features of lhs image g·(N/B) + n. The input is dilated (lhs_dil - 1
 * zeros between elements), then padded by lo/hi (negative crops); the
 * window (dilated by rhs_dil) moves by `stride`. With channels_last the
 * layouts are NHWC's instead (below), and no operand is permuted: col
 * holds one output position per row, every feature of each kernel offset
 * side by side, and one GEMM with the HWIO kernel gives NHWC rows. */
#ifndef CJ_RUNTIME_CONV_H
#define CJ_RUNTIME_CONV_H
#include "runtime.h"

typedef struct rt_conv_desc {
    cj_dtype dtype; /* CJ_F32 or CJ_F64 */
    int nsp;        /* spatial dimensions, 0..CJ_MAX_RANK-2 */
    int64_t n, c, in[CJ_MAX_RANK];
    int64_t o, i, k[CJ_MAX_RANK];
    int64_t out[CJ_MAX_RANK];
    int64_t stride[CJ_MAX_RANK], lo[CJ_MAX_RANK], lhs_dil[CJ_MAX_RANK], rhs_dil[CJ_MAX_RANK];
    int64_t groups, batch_groups;
    /* The channels-last layouts instead (NHWC / HWIO / NHWC, groups 1):
     * lhs [N, s0, s1, ..., C], rhs [k0, k1, ..., I, O], out [N, y0, y1,
     * ..., O]. */
    int channels_last;
} rt_conv_desc;

/* out = conv(lhs, rhs) in the canonical layouts: im2col of a block of
 * output positions at a time, then one GEMM (src/runtime/gemm.h) per
 * block and group. Work is spread over the pool by output image and group
 * when there are enough of them, else the GEMM spreads itself; either way
 * every element sums its terms in an order fixed by the shapes alone.
 * 0, or -1 when scratch memory cannot be had from m. */
int rt_conv(const rt_conv_desc *d, const void *lhs, const void *rhs, void *out, rt_mem *m);

/* dst = src (of type a) with its axes permuted: dst's axis j is src's axis
 * order[j]. */
void rt_conv_permute(const void *src, const rt_aval *a, const int64_t *order, void *dst);

#endif
