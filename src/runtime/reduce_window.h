/* reduce_window.h — the windowed-reduction kernels (runtime layer).
 *
 * The primitives of src/prim/reduce_window.c (reduce_window_sum / max /
 * min, select_and_gather_add, select_and_scatter_add) validate shapes and
 * call these on whole row-major buffers; the interpreter and generated
 * code reach them through the primitives' impl, so every path computes
 * the same bits.
 *
 * A window of `win` elements per axis, its elements `win_dil` apart,
 * moves by `stride` over the operand dilated by `base_dil` (base_dil - 1
 * holes between elements) and padded by lo / hi (negative crops). Output
 * element y of an axis reads, at window offset k, the dilated-and-padded
 * position q = y·stride + k·win_dil - lo: a real element when q >= 0,
 * base_dil divides q and q / base_dil < in; otherwise padding or a hole,
 * which holds the reduction's identity (0, -inf, +inf). Every window is
 * folded in row-major order of its offsets, one element at a time, so the
 * bits depend on the shapes alone, never on how work is split. */
#ifndef CJ_RUNTIME_REDUCE_WINDOW_H
#define CJ_RUNTIME_REDUCE_WINDOW_H
#include "runtime.h"

typedef enum rt_window_kind { RT_WINDOW_SUM, RT_WINDOW_MAX, RT_WINDOW_MIN } rt_window_kind;

typedef struct rt_window_desc {
    cj_dtype dtype; /* CJ_F32 or CJ_F64; rt_reduce_window: rt_reduce_window_takes */
    int rank;       /* 0..CJ_MAX_RANK */
    int64_t in[CJ_MAX_RANK], out[CJ_MAX_RANK], win[CJ_MAX_RANK];
    int64_t stride[CJ_MAX_RANK], lo[CJ_MAX_RANK], base_dil[CJ_MAX_RANK], win_dil[CJ_MAX_RANK];
} rt_window_desc;

/* out[y] = fold over y's window of x (max and min as lax.max / lax.min:
 * NaN propagates, max(+0, -0) = +0). 0, or -1 when the index tables
 * cannot be had from m. */
int rt_reduce_window(const rt_window_desc *d, rt_window_kind kind, const void *x, void *out, rt_mem *m);
/* Whether rt_reduce_window has kernels for dtype dt (floats, integers,
 * f16/bf16; the select_and_* kernels take f32 and f64 only). */
bool rt_reduce_window_takes(cj_dtype dt);

/* The selection both select_and_* kernels share, XLA's: in each window
 * (padding and holes included, as the identity with tangent 0) the
 * running pick (k, v) starts at (identity, 0) and takes element (x, t)
 * whenever !(k >= x) (select_min: !(k <= x)), so the first maximum in
 * window order wins a tie.
 *   gather: out[y] = the v picked in y's window (out has the result shape;
 *     t and x the operand's).
 *   scatter: out (the operand's shape) = 0, then source[y] added at the
 *     position picked in y's window (none when padding or a hole wins),
 *     windows in row-major order. The two are each other's transpose. */
int rt_select_and_gather_add(const rt_window_desc *d, int select_min, const void *t, const void *x, void *out,
                             rt_mem *m);
int rt_select_and_scatter_add(const rt_window_desc *d, int select_min, const void *source, const void *x, void *out,
                              rt_mem *m);

#endif
