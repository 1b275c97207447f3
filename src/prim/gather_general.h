/* gather_general.h — where gather_general and scatter_general keep lax's
 * dimension numbers in the flat prim_params (prim layer; the primitives in
 * gather_general.c, their jvp and transpose rules in
 * src/autodiff/rules_gather_general.c, the public functions in
 * src/api/indexing_general.c).
 *
 *                 gather_general              scatter_general
 *   lhs_contract  offset_dims                 update_window_dims
 *   rhs_contract  collapsed_slice_dims        inserted_window_dims
 *   axes          start_index_map             scatter_dims_to_operand_dims
 *   lhs_batch     operand_batching_dims       operand_batching_dims
 *   rhs_batch     start_indices_batching_dims scatter_indices_batching_dims
 *   shape         slice_sizes                 (unused)
 *   flag          mode | GG_SORTED | GG_UNIQUE | GG_HAS_FILL
 *   count         fill_value's f64 bits       the update kind (GG_KIND_*)
 * The index vector is always the indices' last axis (lax's own choice). */
#ifndef CJ_PRIM_GATHER_GENERAL_H
#define CJ_PRIM_GATHER_GENERAL_H
#include <string.h>

#include "prim.h"

/* Modes, as lax.GatherScatterMode. Gather: CLIP and PROMISE_IN_BOUNDS
 * clamp each start index to [0, dim - slice size]; FILL returns fill_value
 * for a slice that does not fit whole. Scatter: CLIP clamps likewise;
 * FILL (lax's FILL_OR_DROP, scatter's default) and PROMISE_IN_BOUNDS drop a
 * window that does not fit whole (what XLA does natively). */
enum { GG_MODE_CLIP = 0, GG_MODE_FILL = 1, GG_MODE_PROMISE = 2, GG_MODE_MASK = 3 };
#define GG_SORTED 4    /* indices_are_sorted (accepted, not used) */
#define GG_UNIQUE 8    /* unique_indices: no two updates land on one element */
#define GG_HAS_FILL 16 /* gather: fill_value given (else NaN / the dtype's extreme) */

/* The scatter family: what an update does to the element it lands on.
 * Duplicates apply in the order of the updates (update-major, then window
 * order), so set keeps the last one, for any thread count. */
enum { GG_KIND_SET = 0, GG_KIND_ADD = 1, GG_KIND_MUL = 2, GG_KIND_MIN = 3, GG_KIND_MAX = 4 };

#define GG_OFFSET_DIMS(p) ((p)->lhs_contract)
#define GG_COLLAPSED(p) ((p)->rhs_contract)
#define GG_START_MAP(p) ((p)->axes)
#define GG_OPERAND_BATCH(p) ((p)->lhs_batch)
#define GG_INDICES_BATCH(p) ((p)->rhs_batch)
#define GG_SLICE_SIZES(p) ((p)->shape)
#define GG_MODE(p) ((p)->flag & GG_MODE_MASK)

static inline double gg_fill_value(const prim_params *p) {
    double f;
    memcpy(&f, &p->count, sizeof f);
    return f;
}
static inline void gg_set_fill_value(prim_params *p, double f) {
    memcpy(&p->count, &f, sizeof f);
    p->flag |= GG_HAS_FILL;
}

/* The gather that reads back what a scatter of these parameters, on an
 * operand of type x and updates of type u, writes: its dimension numbers
 * swapped over, slice sizes the window sizes (1 on inserted and batching
 * axes), the scatter's mode and flags (JAX pairs them so in its transpose
 * rules), fill value 0. */
prim_params gg_gather_of_scatter(const prim_params *scatter, const rt_aval *x, const rt_aval *u);
/* The scatter (of `kind`) that writes where a gather of these parameters
 * reads. */
prim_params gg_scatter_of_gather(const prim_params *gather, int kind);

#endif
