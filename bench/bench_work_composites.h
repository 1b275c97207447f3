/* bench_work_composites.h — issue 17's composite row of `make bench`:
 * lax.cumlogsumexp along the rows of the layer-norm input (8192×1024,
 * values -3..3), cjax's associative scan of a stable logaddexp
 * (src/api/scan_assoc.c) beside jax.lax.cumlogsumexp and NumPy's
 * np.logaddexp.accumulate (bench/peers.py). */
#ifndef CJ_BENCH_WORK_COMPOSITES_H
#define CJ_BENCH_WORK_COMPOSITES_H
#include <cjax.h>

static void cumlogsumexp_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_cumlogsumexp(in[0], -1, 0);
}
static cj_func *make_cumlogsumexp(cj_ctx *ctx, cj_val *in) {
    in[0] = ramp(ctx, -3, 3, 2, LN_ROWS, LN_COLS);
    return cj_func_new(ctx, "cumlogsumexp", cumlogsumexp_fn, 1, 1, NULL);
}

#endif
