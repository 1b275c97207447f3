/* collective.h — what the collectives' rules and public functions share
 * (prim layer): the parameter layout and ppermute's permutation record.
 *
 * Parameters of every collective (prim_params):
 *   lo    the name ids of the axes it works over (core_axis_name_id)
 *   hi    each axis's size, read from the axis environment when bound
 *   axes  all_gather: (axis,); reduce_scatter: (scatter_dimension,);
 *         all_to_all: (split_axis, concat_axis)
 *   flag  all_gather / reduce_scatter: tiled (all_to_all is always the
 *         tiled form: cj_all_to_all reshapes around it as JAX does)
 *   ref   ppermute: its coll_perm, by reference */
#ifndef CJ_PRIM_COLLECTIVE_H
#define CJ_PRIM_COLLECTIVE_H

#include "../core/core.h"

/* ppermute's pairs (source, destination) as given, and the source of each
 * destination (-1: none, its result is zeros). */
typedef struct coll_perm {
    prim_ref ref; /* first: params.ref points here */
    rt_mem *mem;
    int64_t n_pairs, size;
    int64_t *pairs;  /* 2 * n_pairs */
    int64_t *src_of; /* size entries */
} coll_perm;
/* A record of these pairs (already checked: each in 0..size-1, sources
 * distinct, destinations distinct), one reference the caller's; NULL
 * after the out-of-memory error. `invert` swaps every pair (ppermute's
 * transpose). */
coll_perm *coll_perm_new(cj_ctx *ctx, int64_t size, int64_t n_pairs, const int64_t *pairs, int invert);
static inline const coll_perm *coll_perm_of(const prim_params *p) { return (const coll_perm *)p->ref; }

/* The product of the sizes of the axes p names. */
int64_t coll_size(const prim_params *p);

#endif
