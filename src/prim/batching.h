/* batching.h — helpers the primitives' vmap rules share (prim layer).
 *
 * A batched value is an ordinary value (one level below the vmap trace)
 * with one extra axis, the batch axis, at some position. Rules move that
 * axis only when the primitive needs it somewhere specific, and give
 * unbatched operands a batch axis only when shapes would not line up. */
#ifndef CJ_PRIM_BATCHING_H
#define CJ_PRIM_BATCHING_H

#include "../core/core.h"
#include "bind.h" /* the strict helpers rules bind primitives through */

/* x with its axis `from` moved to position `to` (a transpose; x itself
 * when from == to). */
cj_val batch_moveaxis(cj_val x, int64_t from, int64_t to);
/* A batched value has one axis more than its example, and CJ_MAX_RANK
 * bounds both: 0, or -1 with a CJ_ERR_SHAPE naming `what`, the example's
 * type and the batch size, before any table of the larger rank is
 * written. */
int batch_check_rank(struct cj_ctx *ctx, const char *what, const rt_aval *example, int batched_rank, int64_t size);
/* x (bdim may be BDIM_NONE) as a batched value with its batch axis at
 * `at`: moved there, or, when unbatched, broadcast with a new axis of
 * `size` inserted there. */
cj_val batch_to(cj_val x, int64_t bdim, int64_t size, int64_t at);
/* Per-example axis a of a value batched at bdim → its axis in the batched
 * value. */
static inline int64_t batch_axis(int64_t a, int64_t bdim) { return bdim != BDIM_NONE && a >= bdim ? a + 1 : a; }

/* Rules shared by several families. */
int batch_elementwise(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                      const int64_t *bdim, int64_t size, cj_val *out, int64_t *out_bdim);
/* The vmap rule of a one-operand primitive with several results that
 * treats any leading axes as a batch (lu, qr, eigh, svd): the batch axis
 * moved to the front, every result batched there. */
int batch_leading_multi(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                        const int64_t *bdim, int64_t size, int n_out, cj_val *out, int64_t *out_bdim);

#endif
