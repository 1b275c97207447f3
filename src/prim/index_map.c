/* index_map.c — what every data-movement primitive's index map shares
 * (prim layer): the empty map, and composition, so a leaf reading another
 * leaf's value reads the innermost buffer through one map (fusion.c).
 *
 * A map gives the operand's flat element index as offset + Σ term·stride
 * (prim.h). Composing outer (out → mid) with inner (mid → operand) needs
 * each term of outer to move along exactly one axis of mid without ever
 * carrying into the next: then the mid multi-index is affine in the terms
 * and inner's strides apply to it. That holds for broadcast, transpose,
 * slice, rev, concatenate's and pad's windows and dynamic offsets, and is
 * checked here over the terms' full ranges; a reshape that regroups axes
 * fails the check and the inner value stays materialised. */
#include <string.h>

#include "prim.h"

void prim_index_map_init(prim_index_map *m, const rt_aval *out) {
    memset(m, 0, sizeof *m);
    m->kind = MAP_AFFINE;
    for (int d = 0; d < CJ_MAX_RANK; d++) {
        m->dyn[d] = -1;
        m->pitch[d] = 1;
        m->hi[d] = d < out->rank ? out->dims[d] : 1;
    }
}

/* An outer MAP_LINEAR read of mid as an affine one: the output and mid
 * must have the same sizes other than 1, in order. */
static bool linear_as_affine(const rt_aval *out, const rt_aval *mid, prim_index_map *m) {
    int64_t ms[CJ_MAX_RANK];
    rt_strides(mid, ms);
    prim_index_map_init(m, out);
    int a = 0;
    for (int d = 0; d < out->rank; d++) {
        if (out->dims[d] == 1) continue;
        while (a < mid->rank && mid->dims[a] == 1) a++;
        if (a == mid->rank || mid->dims[a] != out->dims[d]) return false;
        m->stride[d] = ms[a++];
    }
    while (a < mid->rank && mid->dims[a] == 1) a++;
    return a == mid->rank;
}

/* The axis of mid that a term of stride s (s != 0) moves along, with its
 * step in that axis' index; false when s is no multiple of one axis'
 * stride that stays inside it. */
static bool axis_of(const rt_aval *mid, const int64_t *ms, int64_t s, int *axis, int64_t *step) {
    int64_t a = s < 0 ? -s : s;
    for (int e = 0; e < mid->rank; e++) {
        if (mid->dims[e] == 1 || ms[e] == 0 || a % ms[e] != 0 || a / ms[e] >= mid->dims[e]) continue;
        *axis = e;
        *step = s / ms[e];
        return true;
    }
    return false;
}

bool prim_index_map_compose(const prim_index_map *outer, const rt_aval *out, const rt_aval *mid,
                            const prim_index_map *inner, prim_index_map *m) {
    if (outer->kind != MAP_AFFINE && outer->kind != MAP_LINEAR) return false;
    if (inner->kind == MAP_LINEAR) { /* mid's row-major order is its operand's */
        *m = *outer;
        return true;
    }
    if (inner->kind != MAP_AFFINE || inner->window) return false;
    for (int d = 0; d < CJ_MAX_RANK; d++)
        if (inner->dyn[d] >= 0) return false;
    if (rt_aval_size(mid) == 0 || rt_aval_size(out) == 0) return false;
    prim_index_map o;
    if (outer->kind == MAP_LINEAR) {
        if (!linear_as_affine(out, mid, &o)) return false;
    } else {
        o = *outer;
    }
    int64_t ms[CJ_MAX_RANK], j0[CJ_MAX_RANK], lo[CJ_MAX_RANK], hi[CJ_MAX_RANK];
    rt_strides(mid, ms);
    if (o.offset < 0 || o.offset >= rt_aval_size(mid)) return false;
    int64_t rem = o.offset;
    for (int e = 0; e < mid->rank; e++) {
        j0[e] = ms[e] ? rem / ms[e] : 0;
        rem -= j0[e] * ms[e];
        lo[e] = hi[e] = j0[e];
    }
    *m = o;
    m->offset = inner->offset;
    for (int e = 0; e < mid->rank; e++) m->offset += j0[e] * inner->stride[e];
    /* each term: out axis d's window position, and axis d's dynamic start */
    for (int t = 0; t < 2 * out->rank; t++) {
        int d = t % out->rank;
        bool dyn = t >= out->rank;
        int64_t s = dyn ? o.dyn_stride[d] : o.stride[d];
        int64_t range = dyn ? (o.dyn[d] >= 0 ? o.dyn_hi[d] : 0) : (o.hi[d] - o.lo[d] - 1) / o.pitch[d];
        int64_t *dst = dyn ? &m->dyn_stride[d] : &m->stride[d];
        *dst = 0;
        if (s == 0 || range <= 0) continue;
        int e;
        int64_t step;
        if (!axis_of(mid, ms, s, &e, &step)) return false;
        if (step > 0) hi[e] += step * range;
        else lo[e] += step * range;
        *dst = step * inner->stride[e];
    }
    for (int e = 0; e < mid->rank; e++)
        if (lo[e] < 0 || hi[e] >= mid->dims[e]) return false; /* a term would carry */
    return true;
}
