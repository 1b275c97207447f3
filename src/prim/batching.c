/* batching.c — the vmap helpers and the elementwise batching rule (prim
 * layer). Every rule that gives an operand a batch axis it lacks goes
 * through batch_to, which refuses a batched rank above CJ_MAX_RANK before
 * writing the larger shape. */
#include <stdio.h>
#include <string.h>

#include "batching.h"

int batch_check_rank(struct cj_ctx *ctx, const char *what, const rt_aval *example, int batched_rank, int64_t size) {
    if (batched_rank <= CJ_MAX_RANK) return 0;
    char t[96];
    rt_aval_str(example, t, sizeof t);
    return core_error(ctx, CJ_ERR_SHAPE,
                      "vmap: %s of %s batched over an axis of size %lld would have rank %d (at most %d)", what, t,
                      (long long)size, batched_rank, CJ_MAX_RANK);
}

cj_val batch_moveaxis(cj_val x, int64_t from, int64_t to) {
    if (from == to) return x;
    core_value *v = core_get(x, "vmap");
    if (!v) return core_err_val(x.ctx);
    int r = v->aval.rank;
    prim_params p = prim_params_zero();
    p.axes.n = r;
    int k = 0;
    for (int64_t a = 0; a < r; a++) {
        if (a == from) continue;
        if (k == to) p.axes.v[k++] = from;
        p.axes.v[k++] = a;
    }
    if (k == to) p.axes.v[k++] = from;
    return core_bind(x.ctx, PRIM_TRANSPOSE, &p, 1, &x);
}

cj_val batch_to(cj_val x, int64_t bdim, int64_t size, int64_t at) {
    if (bdim != BDIM_NONE) return batch_moveaxis(x, bdim, at);
    core_value *v = core_get(x, "vmap");
    if (!v) return core_err_val(x.ctx);
    prim_params p = prim_params_zero();
    int r = v->aval.rank;
    if (batch_check_rank(x.ctx, "a value", &v->aval, r + 1, size) != 0) return core_err_val(x.ctx);
    p.shape.n = r + 1;
    p.axes.n = r;
    for (int i = 0, k = 0; i <= r; i++) {
        if (i == at) {
            p.shape.v[i] = size;
            continue;
        }
        p.shape.v[i] = v->aval.dims[k];
        p.axes.v[k++] = i;
    }
    return core_bind(x.ctx, PRIM_BROADCAST_IN_DIM, &p, 1, &x);
}

/* The shape of a batched value with its batch axis at `at`, from a value
 * of the same per-example shape batched at `bdim`. */
static int batched_shape(const rt_aval *a, int64_t bdim, int64_t size, int64_t at, int64_t *dims) {
    int64_t ex[CJ_MAX_RANK];
    int r = 0;
    for (int d = 0; d < a->rank; d++)
        if (d != bdim) ex[r++] = a->dims[d];
    for (int d = 0, k = 0; d <= r; d++) dims[d] = d == at ? size : ex[k++];
    return r + 1;
}

/* Elementwise primitives take operands of one shape, or rank 0. Batched
 * operands of the full per-example rank keep a common batch axis (the
 * first one's, so nothing moves when they agree); per-example scalars that
 * are batched, and full-rank unbatched operands, are broadcast to the
 * batched shape; unbatched rank-0 operands stay as they are. */
int batch_elementwise(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                      const int64_t *bdim, int64_t size, cj_val *out, int64_t *out_bdim) {
    /* the result's per-example rank, and an operand of that rank (a
     * batched one if any, so its batch axis stays where it is) */
    int rank = 0, full = -1;
    for (int i = 0; i < n_in; i++) {
        int r = core_peek(in[i])->aval.rank - (bdim[i] != BDIM_NONE);
        if (r > rank) rank = r;
    }
    for (int pass = 0; pass < 2 && full < 0; pass++)
        for (int i = 0; i < n_in && full < 0; i++) {
            int r = core_peek(in[i])->aval.rank - (bdim[i] != BDIM_NONE);
            if (r == rank && (pass == 1 || bdim[i] != BDIM_NONE)) full = i;
        }
    int64_t at = bdim[full] != BDIM_NONE ? bdim[full] : 0;
    const rt_aval *fa = &core_peek(in[full])->aval;
    if (bdim[full] == BDIM_NONE && batch_check_rank(ctx, prim_names[prim], fa, fa->rank + 1, size) != 0) return -1;
    int64_t dims[CJ_MAX_RANK + 1];
    int brank = batched_shape(&core_peek(in[full])->aval, bdim[full], size, at, dims);
    cj_val args[3];
    for (int i = 0; i < n_in; i++) {
        const rt_aval *a = &core_peek(in[i])->aval;
        int r = a->rank - (bdim[i] != BDIM_NONE);
        if (bdim[i] == BDIM_NONE && r == 0) {
            args[i] = in[i]; /* a scalar broadcasts for free */
        } else if (r == rank) {
            args[i] = batch_to(in[i], bdim[i], size, at);
        } else { /* a batched per-example scalar, [B] → the batched shape */
            prim_params q = prim_params_zero();
            q.shape.n = brank;
            memcpy(q.shape.v, dims, sizeof(int64_t) * (size_t)brank);
            q.axes.n = 1;
            q.axes.v[0] = at;
            args[i] = core_bind(ctx, PRIM_BROADCAST_IN_DIM, &q, 1, &in[i]);
        }
        if (!args[i].slot) return -1;
    }
    *out = core_bind(ctx, prim, p, n_in, args);
    *out_bdim = at;
    return out->slot ? 0 : -1;
}

int batch_leading_multi(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                        const int64_t *bdim, int64_t size, int n_out, cj_val *out, int64_t *out_bdim) {
    (void)n_in;
    cj_val a = batch_to(in[0], bdim[0], size, 0);
    if (!a.slot) return -1;
    if (core_bind_multi(ctx, prim, p, 1, &a, n_out, out) != 0) return -1;
    for (int i = 0; i < n_out; i++) out_bdim[i] = 0;
    return 0;
}
