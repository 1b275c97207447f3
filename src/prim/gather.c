/* gather.c — the indexing primitives gather and scatter_add (prim layer).
 *
 * Both work along one axis of the operand x (params.axes.v[0]) in one of
 * two forms (params.flag):
 *   0 "take":  numpy.take — out = x.shape[:axis] + idx.shape + x.shape[axis+1:],
 *              out[o, j..., i] = x[o, idx[j...], i];
 *   1 "along": numpy.take_along_axis — idx has x's rank and x's sizes
 *              outside the axis (no broadcasting here: cj_take_along_axis
 *              broadcasts first); out[o, j, i] = x[o, idx[o, j, i], i].
 * scatter_add(x, idx, updates) is the transpose: updates have the shape
 * the gather of the same form would produce and are added into a copy of x
 * at the indexed positions; duplicate indices accumulate.
 *
 * Out-of-range indices, as JAX's defaults for jnp indexing: a negative index
 * first wraps once (+dim). Then gather CLAMPS what is still out of range to
 * [0, dim-1] (so it never fails at run time), while scatter_add DROPS
 * updates whose index is still out of range. Indices are of any integer
 * dtype (index_load.h); the operand of any dtype, scatter_add adding in
 * it (scatter_combine.h: integers wrap, f16/bf16 round per update).
 *
 * Kernels view x as [outer, dim, inner] (outer: the axes before `axis`,
 * inner: those after) and split the work over (outer, inner-chunk) pairs,
 * which write disjoint parts of the result, so scatter_add stays
 * deterministic when threaded. */
#include <string.h>

#include "../runtime/threads.h"
#include "batching.h"
#include "index_load.h"
#include "prim.h"
#include "gather_general.h"
#include "scatter_combine.h"

enum { FORM_TAKE = 0, FORM_ALONG = 1 };

/* ---- abstract evaluation ---------------------------------------------- */

/* The gather result's shape for operand x and indices idx, after checking
 * axis, form and index dtype. */
static int gather_shape(struct cj_ctx *ctx, prim_id prim, const prim_params *p, const rt_aval *x,
                        const rt_aval *idx, rt_aval *out) {
    char xt[96], it[96];
    rt_aval_str(x, xt, sizeof xt);
    rt_aval_str(idx, it, sizeof it);
    if (p->flag != FORM_TAKE && p->flag != FORM_ALONG)
        return prim_error(ctx, CJ_ERR_ARG, prim, "unknown mode %d (0: take, 1: along)", p->flag);
    if (p->axes.n != 1 || p->axes.v[0] < 0 || p->axes.v[0] >= x->rank)
        return prim_error(ctx, CJ_ERR_AXIS, prim, "axis %lld is out of range for %s",
                          p->axes.n == 1 ? (long long)p->axes.v[0] : -1LL, xt);
    if (!index_dtype_ok(idx->dtype))
        return prim_error(ctx, CJ_ERR_DTYPE, prim, "indices must have an integer dtype (i8 ... i64, u8 ... u64), got %s",
                          it);
    int axis = (int)p->axes.v[0];
    *out = *x;
    if (p->flag == FORM_TAKE) {
        int rank = x->rank - 1 + idx->rank;
        if (rank > CJ_MAX_RANK)
            return prim_error(ctx, CJ_ERR_SHAPE, prim,
                              "taking %s from %s along axis %d gives rank %d (at most %d)", it, xt,
                              axis, rank, CJ_MAX_RANK);
        out->rank = 0;
        for (int d = 0; d < axis; d++) out->dims[out->rank++] = x->dims[d];
        for (int d = 0; d < idx->rank; d++) out->dims[out->rank++] = idx->dims[d];
        for (int d = axis + 1; d < x->rank; d++) out->dims[out->rank++] = x->dims[d];
        return 0;
    }
    if (idx->rank != x->rank)
        return prim_error(ctx, CJ_ERR_SHAPE, prim,
                          "take_along_axis indices %s must have the rank of the operand %s", it, xt);
    for (int d = 0; d < x->rank; d++)
        if (d != axis && idx->dims[d] != x->dims[d])
            return prim_error(ctx, CJ_ERR_SHAPE, prim,
                              "take_along_axis indices %s and operand %s differ in dimension %d "
                              "(only axis %d may differ)",
                              it, xt, d, axis);
    out->rank = idx->rank;
    memcpy(out->dims, idx->dims, sizeof out->dims);
    return 0;
}

static int gather_abstract_eval(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in,
                                const rt_aval *in, rt_aval *out) {
    (void)n_in;
    if (gather_shape(ctx, prim, p, &in[0], &in[1], out) != 0) return -1;
    /* clamping needs somewhere to clamp to */
    if (in[0].dims[p->axes.v[0]] == 0 && rt_aval_size(out) > 0) {
        char xt[96], it[96];
        rt_aval_str(&in[0], xt, sizeof xt);
        rt_aval_str(&in[1], it, sizeof it);
        return prim_error(ctx, CJ_ERR_SHAPE, prim, "cannot index the empty axis %lld of %s with %s",
                          (long long)p->axes.v[0], xt, it);
    }
    out->dtype = in[0].dtype;
    out->weak = in[0].weak;
    return 0;
}

static int scatter_abstract_eval(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in,
                                 const rt_aval *in, rt_aval *out) {
    (void)n_in;
    const rt_aval *x = &in[0], *idx = &in[1], *upd = &in[2];
    rt_aval expect;
    if (gather_shape(ctx, prim, p, x, idx, &expect) != 0) return -1;
    char xt[96], it[96], ut[96];
    rt_aval_str(x, xt, sizeof xt);
    rt_aval_str(idx, it, sizeof it);
    rt_aval_str(upd, ut, sizeof ut);
    if (upd->dtype != x->dtype)
        return prim_error(ctx, CJ_ERR_DTYPE, prim, "updates %s must have the dtype of the operand %s", ut,
                          xt);
    if (!rt_aval_same_shape(upd, &expect)) {
        char et[160];
        rt_dims_str(expect.rank, expect.dims, et, sizeof et);
        return prim_error(ctx, CJ_ERR_SHAPE, prim,
                          "updates %s must have shape %s (indexing %s with %s along axis %lld)", ut, et,
                          xt, it, (long long)p->axes.v[0]);
    }
    *out = *x;
    return 0;
}

static int gather_print_params(const prim_params *p, char *buf, size_t size) {
    return snprintf(buf, size, "axis=%lld mode=%s", p->axes.n ? (long long)p->axes.v[0] : 0LL,
                    p->flag == FORM_ALONG ? "along" : "take");
}

/* ---- kernels ------------------------------------------------------------ */

/* What every kernel needs, in [outer, dim, inner] terms. For the take form
 * the index array is flat with n_idx entries shared by every outer slice;
 * for the along form it is [outer, n_idx, inner] like the result. */
typedef struct index_job {
    int form;
    size_t esize;
    cj_dtype dtype;      /* element type of x (scatter adds in it) */
    cj_dtype idx_dtype;
    const void *idx;
    int64_t outer, dim, inner, n_idx;
    int64_t chunk;       /* inner elements per task */
    int64_t n_chunks;    /* per outer slice */
    const char *src;     /* gather: x; scatter: updates */
    char *dst;           /* gather: result; scatter: result (a copy of x) */
} index_job;

static inline int64_t load_index(const index_job *j, int64_t at) { return index_load(j->idx_dtype, j->idx, at); }

/* Negative indices wrap once; then gather clamps. */
static inline int64_t clamp_index(int64_t i, int64_t dim) {
    if (i < 0) i += dim;
    return i < 0 ? 0 : i >= dim ? dim - 1 : i;
}

/* Negative indices wrap once; -1 marks one scatter must drop. */
static inline int64_t wrap_or_drop(int64_t i, int64_t dim) {
    if (i < 0) i += dim;
    return i < 0 || i >= dim ? -1 : i;
}

static inline void copy_elems(char *dst, const char *src, int64_t n, size_t esize) {
    if (n == 1) {
        switch (esize) {
        case 8: memcpy(dst, src, 8); return;
        case 4: memcpy(dst, src, 4); return;
        case 2: memcpy(dst, src, 2); return;
        default: *dst = *src; return;
        }
    }
    memcpy(dst, src, (size_t)n * esize);
}

/* Tasks are (outer slice, inner chunk) pairs. */
static void gather_tasks(void *arg, int64_t begin, int64_t end) {
    const index_job *j = arg;
    size_t es = j->esize;
    for (int64_t t = begin; t < end; t++) {
        int64_t o = t / j->n_chunks, i0 = (t % j->n_chunks) * j->chunk;
        int64_t len = j->inner - i0 < j->chunk ? j->inner - i0 : j->chunk;
        const char *xo = j->src + (size_t)(o * j->dim * j->inner) * es;
        char *yo = j->dst + (size_t)(o * j->n_idx * j->inner) * es;
        for (int64_t k = 0; k < j->n_idx; k++) {
            char *y = yo + (size_t)(k * j->inner + i0) * es;
            if (j->form == FORM_TAKE) {
                int64_t at = clamp_index(load_index(j, k), j->dim);
                copy_elems(y, xo + (size_t)(at * j->inner + i0) * es, len, es);
                continue;
            }
            int64_t ib = (o * j->n_idx + k) * j->inner + i0; /* this row of idx */
            for (int64_t i = 0; i < len; i++) {
                int64_t at = clamp_index(load_index(j, ib + i), j->dim);
                copy_elems(y + (size_t)i * es, xo + (size_t)(at * j->inner + i0 + i) * es, 1, es);
            }
        }
    }
}

/* dst[0..n) += src[0..n) in dtype (bool: or; ints wrap). */
static void add_into(cj_dtype dt, char *dst, const char *src, int64_t n) {
    scatter_combine(dt, GG_KIND_ADD, dst, src, n);
}

static void scatter_tasks(void *arg, int64_t begin, int64_t end) {
    const index_job *j = arg;
    size_t es = j->esize;
    for (int64_t t = begin; t < end; t++) {
        int64_t o = t / j->n_chunks, i0 = (t % j->n_chunks) * j->chunk;
        int64_t len = j->inner - i0 < j->chunk ? j->inner - i0 : j->chunk;
        char *yo = j->dst + (size_t)(o * j->dim * j->inner) * es;
        const char *uo = j->src + (size_t)(o * j->n_idx * j->inner) * es;
        for (int64_t k = 0; k < j->n_idx; k++) {
            const char *u = uo + (size_t)(k * j->inner + i0) * es;
            if (j->form == FORM_TAKE) {
                int64_t at = wrap_or_drop(load_index(j, k), j->dim);
                if (at >= 0) add_into(j->dtype, yo + (size_t)(at * j->inner + i0) * es, u, len);
                continue;
            }
            int64_t ib = (o * j->n_idx + k) * j->inner + i0;
            for (int64_t i = 0; i < len; i++) {
                int64_t at = wrap_or_drop(load_index(j, ib + i), j->dim);
                if (at >= 0)
                    add_into(j->dtype, yo + (size_t)(at * j->inner + i0 + i) * es, u + (size_t)i * es, 1);
            }
        }
    }
}

/* Fills the [outer, dim, inner] split and the task grid, then runs it. */
static void run_index_job(index_job *j, const prim_params *p, const rt_array *x, const rt_array *idx,
                          int64_t work, rt_range_fn fn) {
    int axis = (int)p->axes.v[0];
    j->form = p->flag;
    j->dtype = x->aval.dtype;
    j->esize = rt_dtypes[x->aval.dtype].size;
    j->idx_dtype = idx->aval.dtype;
    j->idx = idx->data;
    j->outer = 1;
    for (int d = 0; d < axis; d++) j->outer *= x->aval.dims[d];
    j->dim = x->aval.dims[axis];
    j->inner = 1;
    for (int d = axis + 1; d < x->aval.rank; d++) j->inner *= x->aval.dims[d];
    j->n_idx = p->flag == FORM_TAKE ? idx->size : idx->aval.dims[axis];
    if (j->outer == 0 || j->inner == 0 || j->n_idx == 0) return;
    /* Split inner only when the outer slices alone are too few to share. */
    int threads = rt_num_threads();
    j->chunk = j->inner;
    if (work >= RT_PARALLEL_MIN_ELEMS && j->outer < threads) {
        int64_t pieces = (threads + j->outer - 1) / j->outer;
        j->chunk = (j->inner + pieces - 1) / pieces;
        if (j->chunk < 1024) j->chunk = j->inner < 1024 ? j->inner : 1024;
    }
    j->n_chunks = (j->inner + j->chunk - 1) / j->chunk;
    int64_t tasks = j->outer * j->n_chunks;
    if (work >= RT_PARALLEL_MIN_ELEMS && tasks > 1) {
        int64_t grain = RT_PARALLEL_MIN_ELEMS / (j->n_idx * j->chunk) + 1;
        rt_parallel_for(tasks, grain, fn, j);
    } else {
        fn(j, 0, tasks);
    }
}

static int gather_impl(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in,
                       rt_array *const *in, rt_array *out) {
    (void)ctx, (void)prim, (void)n_in;
    index_job j;
    memset(&j, 0, sizeof j);
    j.src = in[0]->data;
    j.dst = out->data;
    run_index_job(&j, p, in[0], in[1], out->size, gather_tasks);
    return 0;
}

static int scatter_impl(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in,
                        rt_array *const *in, rt_array *out) {
    (void)ctx, (void)prim, (void)n_in;
    memcpy(out->data, in[0]->data, rt_aval_nbytes(&out->aval));
    index_job j;
    memset(&j, 0, sizeof j);
    j.src = in[2]->data;
    j.dst = out->data;
    run_index_job(&j, p, in[0], in[1], in[2]->size, scatter_tasks);
    return 0;
}

/* ---- vmap rules ----
 * The "along" form works elementwise outside its axis, so every operand
 * goes to batch axis 0 and the axis shifts by one. The "take" form with
 * only the array batched (or only the indices) binds as it is with the
 * axis renumbered; batched indices into a batched array, in the take form,
 * are not supported yet. */

/* Take form with per-example indices: flatten each example's indices to
 * [B, N], spread them over the array's other axes, and use the along form
 * (which works elementwise outside its axis); a scatter's updates are
 * reshaped the same way. A gather's result is reshaped back to the take
 * form's shape x[:axis] + indices + x[axis+1:]. n_in tells gather (2) from
 * scatter_add (3). */
static int batch_take_both(struct cj_ctx *ctx, int n_in, const prim_params *p, const cj_val *in,
                           const int64_t *bdim, int64_t size, cj_val *out, int64_t *out_bdim) {
    int64_t axis = p->axes.v[0];
    cj_val x = batch_to(in[0], bdim[0], size, 0);
    cj_val idx = batch_to(in[1], bdim[1], size, 0);
    const rt_aval *xa = &core_peek(x)->aval, *ia = &core_peek(idx)->aval;
    int64_t n = 1;
    for (int d = 1; d < ia->rank; d++) n *= ia->dims[d];
    int r = xa->rank; /* batched rank of x */
    int64_t flat_dims[CJ_MAX_RANK + 1], spread[CJ_MAX_RANK + 1];
    for (int d = 0; d < r; d++) flat_dims[d] = 1, spread[d] = xa->dims[d];
    flat_dims[0] = size;
    flat_dims[axis + 1] = n;
    spread[axis + 1] = n;
    cj_val ix = bind_expand(bind_reshape(idx, r, flat_dims), r, spread);
    if (n_in == 2) {
        cj_val g = bind_take_along(x, ix, axis + 1);
        int64_t shape[CJ_MAX_RANK + 1];
        int k = 0;
        for (int d = 0; d <= axis; d++) shape[k++] = xa->dims[d];
        for (int d = 1; d < ia->rank; d++) shape[k++] = ia->dims[d];
        for (int d = (int)axis + 2; d < r; d++) shape[k++] = xa->dims[d];
        *out = bind_reshape(g, k, shape);
    } else {
        cj_val u = batch_to(in[2], bdim[2], size, 0);
        cj_val uf = bind_reshape(u, r, spread);
        prim_params q = *p;
        q.flag = 1;
        q.axes.v[0] = axis + 1;
        cj_val args[3] = {x, ix, uf};
        *out = core_bind(ctx, PRIM_SCATTER_ADD, &q, 3, args);
    }
    *out_bdim = 0;
    return out->slot ? 0 : -1;
}

static int batch_gather(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                        const int64_t *bdim, int64_t size, cj_val *out, int64_t *out_bdim) {
    prim_params q = *p;
    cj_val args[3];
    int64_t axis = p->axes.v[0];
    if (p->flag == 1) { /* along */
        for (int i = 0; i < n_in; i++) {
            args[i] = batch_to(in[i], bdim[i], size, 0);
            if (!args[i].slot) return -1;
        }
        q.axes.v[0] = axis + 1;
        *out_bdim = 0;
    } else if (prim == PRIM_GATHER) {
        const rt_aval *idx = &core_peek(in[1])->aval;
        if (bdim[0] != BDIM_NONE && bdim[1] != BDIM_NONE)
            return batch_take_both(ctx, n_in, p, in, bdim, size, out, out_bdim);
        args[0] = in[0];
        args[1] = in[1];
        if (bdim[0] != BDIM_NONE) {
            q.axes.v[0] = batch_axis(axis, bdim[0]);
            *out_bdim = bdim[0] < q.axes.v[0] ? bdim[0] : bdim[0] + idx->rank - 1;
        } else {
            *out_bdim = axis + bdim[1]; /* the indices' axes replace `axis` */
        }
    } else { /* scatter_add, take form: x, idx, updates */
        if (bdim[1] != BDIM_NONE) return batch_take_both(ctx, n_in, p, in, bdim, size, out, out_bdim);
        args[0] = batch_to(in[0], bdim[0], size, 0);
        args[1] = in[1];
        args[2] = batch_to(in[2], bdim[2], size, 0);
        if (!args[0].slot || !args[2].slot) return -1;
        q.axes.v[0] = axis + 1;
        *out_bdim = 0;
    }
    *out = core_bind(ctx, prim, &q, n_in, args);
    return out->slot ? 0 : -1;
}

void prim_register_gather(void) {
    prim_rules[PRIM_GATHER] = (prim_rule){
        .abstract_eval = gather_abstract_eval,
        .impl = gather_impl,
        .print_params = gather_print_params,
        .lower = {.kind = LOWER_OPAQUE},
        .extra_dtypes = true, /* any operand dtype; indices of any integer dtype */
    };
    prim_rules[PRIM_SCATTER_ADD] = (prim_rule){
        .abstract_eval = scatter_abstract_eval,
        .impl = scatter_impl,
        .print_params = gather_print_params,
        .lower = {.kind = LOWER_OPAQUE},
        .batch = batch_gather,
        .extra_dtypes = true,
    };
    prim_rules[PRIM_GATHER].batch = batch_gather;
}
