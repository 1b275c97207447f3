/* scatter_combine.h — how a scatter's update combines with the element it
 * lands on, for every dtype (prim layer: scatter_general's kernel and the
 * one-axis scatter_add's in gather.c share it).
 *
 * dst[0..n) = dst[i] (kind) src[i], kind one of GG_KIND_* (set, add, mul,
 * min, max). Integers wrap (computed in the unsigned type of their
 * width); min / max compare unsigned types as unsigned. Floats: min / max
 * as XLA's on CPU: a NaN wins (max turns a NaN update into the positive
 * quiet NaN), and max(+0, -0) = +0, min(+0, -0) = -0. f16 and bf16 are widened to f32
 * for each update and the result rounded to nearest even at once, so
 * duplicates round after every update, as XLA's CPU scatter does. bool:
 * add / max are or, mul / min are and. */
#ifndef CJ_PRIM_SCATTER_COMBINE_H
#define CJ_PRIM_SCATTER_COMBINE_H
#include <stdint.h>

#include "../runtime/runtime.h"

void scatter_combine(cj_dtype dt, int kind, char *dst, const char *src, int64_t n);

#endif
