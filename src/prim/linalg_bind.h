/* linalg_bind.h — strict helpers that bind the linear-algebra primitives
 * and the matrix pieces their rules and composites are written in (prim
 * layer, beside bind.h).
 *
 * The jvp and transpose rules (src/autodiff/rules_linalg.c) and the public
 * composites (src/api/linalg_*.c) both build on these. Like bind.h's
 * helpers each binds exactly the primitives it says, on values of the
 * types it is given: matrices are the last two axes, leading axes a batch
 * that every operand shares (nothing is broadcast here). */
#ifndef CJ_PRIM_LINALG_BIND_H
#define CJ_PRIM_LINALG_BIND_H

#include "bind.h"

/* triangular_solve's option bits (params.flag). */
#define LB_LEFT 1
#define LB_LOWER 2
#define LB_TRANSPOSE 4
#define LB_CONJUGATE 8
#define LB_UNIT 16

/* qr's option bit (params.flag): q m×m and r m×n rather than reduced. */
#define LB_FULL_MATRICES 1

/* cholesky; lb_cholesky_sym factors (a + aᵀ)/2 (symmetrize_input). */
cj_val lb_cholesky(cj_val a);
cj_val lb_cholesky_sym(cj_val a);
/* triangular_solve(a, b) with the LB_* bits in flags. */
cj_val lb_trsm(cj_val a, cj_val b, int flags);
/* linear_solve(lu, perm, a, b): a x = b (aᵀ x = b with transpose) from
 * lu's factors of a; differentiates as custom_linear_solve. */
cj_val lb_linear_solve(cj_val lu, cj_val perm, cj_val a, cj_val b, int transpose);
/* lu's three results into out[0..2]; 0, or -1 (error values in out). */
int lb_lu(cj_val a, cj_val *out);
/* qr's two results (q, r) into out[0..1]; 0, or -1 (error values in out). */
int lb_qr(cj_val a, int full_matrices, cj_val *out);
/* eigh's two results (v, w) into out[0..1]; 0, or -1 (error values in out). */
int lb_eigh(cj_val a, cj_val *out);
/* svd's option bits (params.flag, with LB_FULL_MATRICES). */
#define LB_COMPUTE_UV 2
/* svd's results: (s, u, vt) into out[0..2] with compute_uv, s alone in
 * out[0] without; 0, or -1 (error values in out). */
int lb_svd(cj_val a, int full_matrices, int compute_uv, cj_val *out);
/* op(x) · op(y) over the last two axes, the leading ones batch axes
 * (dot_general); op transposes when tx / ty. */
cj_val lb_matmul(cj_val x, cj_val y, int tx, int ty);
/* x's last two axes swapped. */
cj_val lb_mT(cj_val x);
/* x with the entries outside the band zeroed: keep (i, j) where
 * j - i <= k (lower: tril(x, k)) or j - i >= k (upper: triu(x, k)). */
cj_val lb_tril(cj_val x, int64_t k);
cj_val lb_triu(cj_val x, int64_t k);
/* A constant of x's type (its dtype and shape) that is w_below, w_diag,
 * w_above below, on and above the diagonal of the last two axes (the
 * identity: 0, 1, 0). */
cj_val lb_band_const(cj_val x, double w_below, double w_diag, double w_above);

#endif
