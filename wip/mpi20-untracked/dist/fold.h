/* fold.h — the dist layer's reduction kernels (no MPI): the combining
 * loops a collective runs over the pieces every rank contributed, in rank
 * order, so that every rank computes the same bits and those bits equal a
 * single process's reduce over a leading axis of the ranks' data
 * (src/prim/reduce.c's single-thread order). */
#ifndef CJAX_DIST_FOLD_H
#define CJAX_DIST_FOLD_H

#include <stddef.h>
#include <stdint.h>

#include "cjax.h"

/* The fold of a reduce over a leading axis of `n_pieces` rows, as
 * reduce.c's inner-kept plan does it single-threaded: out = identity, then
 * each piece combined in order; more than DIST_FOLD_BLOCK pieces go
 * DIST_FOLD_BLOCK at a time into a partial row (from the identity) that is
 * then combined into out. Piece r is pieces + r·stride elements; out may be
 * one of the pieces only when n_pieces <= DIST_FOLD_BLOCK and it is the
 * first one. count elements each. The caller has checked the pair with
 * dist_fold_supported; scratch (DIST_FOLD_SCRATCH bytes) holds the partial
 * row, in chunks. */
enum { DIST_FOLD_BLOCK = 64, DIST_FOLD_SCRATCH = 8192 };
void dist_fold(void *out, const void *pieces, int64_t n_pieces, int64_t stride, int64_t count, cj_dtype dt,
               cj_dist_op op);

/* 1 when op reduces dt (bool: max and min only, as lax's reductions),
 * else 0. */
int dist_fold_supported(cj_dtype dt, cj_dist_op op);
/* "sum", "prod", "max", "min"; "?" for anything else. */
const char *dist_op_name(cj_dist_op op);

#endif
