/* reduce_window.h — where the windowed reductions keep their parameters in
 * the flat prim_params (prim layer; the primitives in reduce_window.c,
 * their jvp and transpose rules in src/autodiff/rules_reduce_window.c).
 *
 *   shape         window_dimensions (one per operand axis)
 *   step          window_strides
 *   lo, hi        padding before and after (negative crops)
 *   lhs_contract  base_dilation
 *   rhs_contract  window_dilation
 *   flag          select_and_*: select_prim, 0 ge (max), 1 le (min)
 * Every list has one entry per operand axis, as lax's. */
#ifndef CJ_PRIM_REDUCE_WINDOW_H
#define CJ_PRIM_REDUCE_WINDOW_H
#include "prim.h"

#define RW_WINDOW(p) ((p)->shape)
#define RW_STRIDES(p) ((p)->step)
#define RW_BASE_DIL(p) ((p)->lhs_contract)
#define RW_WIN_DIL(p) ((p)->rhs_contract)
#define RW_SELECT_MIN(p) ((p)->flag)

/* A dilated size: 0 for 0, else 1 + dil·(d - 1). */
static inline int64_t rw_dilate(int64_t d, int64_t dil) { return d == 0 ? 0 : 1 + dil * (d - 1); }

/* Output size of one axis: in dilated and padded, windows of the dilated
 * window size `stride` apart (0 when none fits). */
static inline int64_t rw_out_dim(const prim_params *p, int a, int64_t in) {
    int64_t padded = rw_dilate(in, RW_BASE_DIL(p).v[a]) + p->lo.v[a] + p->hi.v[a];
    int64_t win = rw_dilate(RW_WINDOW(p).v[a], RW_WIN_DIL(p).v[a]);
    return padded < win ? 0 : (padded - win) / RW_STRIDES(p).v[a] + 1;
}

#endif
