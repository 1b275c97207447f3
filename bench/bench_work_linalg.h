/* bench_work_linalg.h — the linear-algebra rows of `make bench`: Cholesky
 * and solve of one f32 matrix at n = 64, 256, 1024, and 10,000 batched
 * 8×8 of each (issue 16's targets). The same inputs are built by
 * bench/peers.py: M = sin(linspace(0, 50, n·n)) as n×n (batched: 10,000×8×8
 * from linspace(0, 500, ...)), A = M Mᵀ / n + I (symmetric positive
 * definite, condition number under 10^3), b = cos(linspace(0, 30, n)) —
 * [n] for one matrix, [10000, 8, 1] for the batch. Inputs are computed
 * once, outside the timed function. */
#ifndef CJ_BENCH_WORK_LINALG_H
#define CJ_BENCH_WORK_LINALG_H
#include <cjax.h>

#define LA_BATCH 10000
#define LA_SMALL 8

/* A = M Mᵀ / n + I for M [..., n, n] from sin(linspace(0, hi, count)). */
static cj_val la_spd(cj_ctx *ctx, int rank, const int64_t *dims, double hi) {
    int64_t count = 1;
    for (int d = 0; d < rank; d++) count *= dims[d];
    int64_t n = dims[rank - 1];
    cj_val m = cj_reshape(cj_sin(cj_linspace(ctx, 0, hi, count, CJ_F32)), rank, dims);
    int64_t perm[3] = {0, 1, 2};
    perm[rank - 2] = rank - 1, perm[rank - 1] = rank - 2;
    cj_val mmt = cj_matmul(m, cj_transpose(m, perm));
    return cj_add(cj_div(mmt, cj_scalar(ctx, (double)n)), cj_eye(ctx, n, n, 0, CJ_F32));
}

static void la_chol_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_linalg_cholesky(in[0]);
}
static void la_solve_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_linalg_solve(in[0], in[1]);
}

static cj_func *la_make_one(cj_ctx *ctx, cj_val *in, int64_t n, int solve) {
    in[0] = la_spd(ctx, 2, (int64_t[]){n, n}, 50);
    in[1] = cj_cos(cj_linspace(ctx, 0, 30, n, CJ_F32));
    return solve ? cj_func_new(ctx, "solve", la_solve_fn, 2, 1, NULL)
                 : cj_func_new(ctx, "cholesky", la_chol_fn, 1, 1, NULL);
}
static cj_func *make_chol_64(cj_ctx *ctx, cj_val *in) { return la_make_one(ctx, in, 64, 0); }
static cj_func *make_chol_256(cj_ctx *ctx, cj_val *in) { return la_make_one(ctx, in, 256, 0); }
static cj_func *make_chol_1024(cj_ctx *ctx, cj_val *in) { return la_make_one(ctx, in, 1024, 0); }
static cj_func *make_solve_64(cj_ctx *ctx, cj_val *in) { return la_make_one(ctx, in, 64, 1); }
static cj_func *make_solve_256(cj_ctx *ctx, cj_val *in) { return la_make_one(ctx, in, 256, 1); }
static cj_func *make_solve_1024(cj_ctx *ctx, cj_val *in) { return la_make_one(ctx, in, 1024, 1); }

static cj_func *la_make_batch(cj_ctx *ctx, cj_val *in, int solve) {
    in[0] = la_spd(ctx, 3, (int64_t[]){LA_BATCH, LA_SMALL, LA_SMALL}, 500);
    in[1] = cj_reshape(cj_cos(cj_linspace(ctx, 0, 30, LA_BATCH * LA_SMALL, CJ_F32)), 3,
                       (int64_t[]){LA_BATCH, LA_SMALL, 1});
    return solve ? cj_func_new(ctx, "solve_batch", la_solve_fn, 2, 1, NULL)
                 : cj_func_new(ctx, "cholesky_batch", la_chol_fn, 1, 1, NULL);
}
static cj_func *make_chol_batch8(cj_ctx *ctx, cj_val *in) { return la_make_batch(ctx, in, 0); }
static cj_func *make_solve_batch8(cj_ctx *ctx, cj_val *in) { return la_make_batch(ctx, in, 1); }

/* flops as LAPACK counts them: n³/3 (potrf), 2n³/3 + 2n²·k (getrf, getrs) */
#define LA_CHOL_FLOPS(n) ((double)(n) * (n) * (n) / 3)
#define LA_SOLVE_FLOPS(n, k) (2.0 * (n) * (n) * (n) / 3 + 2.0 * (n) * (n) * (k))

#endif
