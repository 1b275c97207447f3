/* bench_work_linalg.h — the linear-algebra rows of `make bench`: Cholesky
 * and solve of one f32 matrix at n = 64, 256, 1024, and 10,000 batched
 * 8×8 of each (issue 16's targets). The same inputs are built by
 * bench/peers.py: M = sin(linspace(0, 50, n·n)) as n×n (batched: 10,000×8×8
 * from linspace(0, 500, ...)), A = M Mᵀ / n + I (symmetric positive
 * definite, condition number under 10^3), b = cos(linspace(0, 30, n)) —
 * [n] for one matrix, [10000, 8, 1] for the batch. Inputs are computed
 * once, outside the timed function.
 *
 * The decompositions (eigh, svd, qr at n = 64, 256, 1024) need a matrix
 * whose spectrum is spread out (M Mᵀ/n + I above is I plus rank 2: its
 * eigenvectors are not unique and a tridiagonal solver would deflate at
 * once): G[i, j] = sin((k mod 97)·(k mod 89)) with k = i·n + j, exact
 * integers under the sine on both sides; eigh takes (G + Gᵀ)/2, svd and
 * qr G (svd also in f64 at n = 256, 1024: G widened exactly, JAX run
 * under jax.enable_x64). Eigenvectors and singular vectors are defined up
 * to sign, so the rows return them squared elementwise (an n² pass beside
 * the n³ work). */
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

/* G [n, n] = sin((k mod 97)·(k mod 89)), k = 0 .. n²-1. */
static cj_val la_wave(cj_ctx *ctx, int64_t n) {
    cj_val k = cj_arange(ctx, 0, (double)(n * n), 1, CJ_F32);
    cj_val g = cj_sin(cj_mul(cj_rem(k, cj_scalar(ctx, 97)), cj_rem(k, cj_scalar(ctx, 89))));
    return cj_reshape(g, 2, (int64_t[]){n, n});
}
static void la_eigh_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    cj_val v, w;
    cj_linalg_eigh(in[0], &v, &w);
    out[0] = w, out[1] = cj_mul(v, v);
}
static void la_svd_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    cj_val uu, s, vt;
    cj_linalg_svd(in[0], 0, &uu, &s, &vt);
    out[0] = s, out[1] = cj_mul(uu, uu), out[2] = cj_mul(vt, vt);
}
static void la_qr_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    cj_linalg_qr(in[0], NULL, &out[0], &out[1]);
}
enum { LA_EIGH, LA_SVD, LA_QR };
static cj_func *la_make_decomp(cj_ctx *ctx, cj_val *in, int64_t n, int which) {
    cj_val g = la_wave(ctx, n);
    if (which == LA_EIGH) {
        in[0] = cj_mul(cj_add(g, cj_transpose(g, (int64_t[]){1, 0})), cj_scalar(ctx, 0.5));
        return cj_func_new(ctx, "eigh", la_eigh_fn, 1, 2, NULL);
    }
    in[0] = g;
    return which == LA_SVD ? cj_func_new(ctx, "svd", la_svd_fn, 1, 3, NULL)
                           : cj_func_new(ctx, "qr", la_qr_fn, 1, 2, NULL);
}
static cj_func *make_eigh_64(cj_ctx *ctx, cj_val *in) { return la_make_decomp(ctx, in, 64, LA_EIGH); }
static cj_func *make_eigh_256(cj_ctx *ctx, cj_val *in) { return la_make_decomp(ctx, in, 256, LA_EIGH); }
static cj_func *make_eigh_1024(cj_ctx *ctx, cj_val *in) { return la_make_decomp(ctx, in, 1024, LA_EIGH); }
static cj_func *make_svd_64(cj_ctx *ctx, cj_val *in) { return la_make_decomp(ctx, in, 64, LA_SVD); }
static cj_func *make_svd_256(cj_ctx *ctx, cj_val *in) { return la_make_decomp(ctx, in, 256, LA_SVD); }
static cj_func *make_svd_1024(cj_ctx *ctx, cj_val *in) { return la_make_decomp(ctx, in, 1024, LA_SVD); }
/* svd in f64 (issue 16's f64 rows): the same G widened exactly, so both
 * sides decompose the same matrix */
static cj_func *make_svd64(cj_ctx *ctx, cj_val *in, int64_t n) {
    in[0] = cj_astype(la_wave(ctx, n), CJ_F64);
    return cj_func_new(ctx, "svd64", la_svd_fn, 1, 3, NULL);
}
static cj_func *make_svd64_256(cj_ctx *ctx, cj_val *in) { return make_svd64(ctx, in, 256); }
static cj_func *make_svd64_1024(cj_ctx *ctx, cj_val *in) { return make_svd64(ctx, in, 1024); }
static cj_func *make_qr_64(cj_ctx *ctx, cj_val *in) { return la_make_decomp(ctx, in, 64, LA_QR); }
static cj_func *make_qr_256(cj_ctx *ctx, cj_val *in) { return la_make_decomp(ctx, in, 256, LA_QR); }
static cj_func *make_qr_1024(cj_ctx *ctx, cj_val *in) { return la_make_decomp(ctx, in, 1024, LA_QR); }

/* flops as LAPACK counts them: n³/3 (potrf), 2n³/3 + 2n²·k (getrf, getrs) */
#define LA_CHOL_FLOPS(n) ((double)(n) * (n) * (n) / 3)
#define LA_SOLVE_FLOPS(n, k) (2.0 * (n) * (n) * (n) / 3 + 2.0 * (n) * (n) * (k))
/* the usual counts with vectors: syevd 9n³ (4n³/3 tridiagonal, ~n³ to
 * 4n³/3 for the tridiagonal solver, 2n³ back), gesdd 12n³ (reduced,
 * square), geqrf + orgqr 8n³/3 */
#define LA_EIGH_FLOPS(n) (9.0 * (n) * (n) * (n))
#define LA_SVD_FLOPS(n) (12.0 * (n) * (n) * (n))
#define LA_QR_FLOPS(n) (8.0 * (n) * (n) * (n) / 3)

#endif
