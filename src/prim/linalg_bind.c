/* linalg_bind.c — the helpers of linalg_bind.h (prim layer): binds of
 * the linear-algebra primitives and of the masks, products and transposes
 * their rules are written in, each on exactly the types it is given. */
#include "linalg_bind.h"

#include "prim.h"

static const rt_aval *aval_of(cj_val v) {
    const core_value *cv = core_peek(v);
    return cv ? &cv->aval : NULL;
}

cj_val lb_cholesky(cj_val a) {
    prim_params p = prim_params_zero();
    return core_bind(a.ctx, PRIM_CHOLESKY, &p, 1, &a);
}

cj_val lb_cholesky_sym(cj_val a) {
    prim_params p = prim_params_zero();
    p.flag = 1;
    return core_bind(a.ctx, PRIM_CHOLESKY, &p, 1, &a);
}

cj_val lb_trsm(cj_val a, cj_val b, int flags) {
    prim_params p = prim_params_zero();
    p.flag = flags;
    return core_bind(a.ctx, PRIM_TRIANGULAR_SOLVE, &p, 2, (cj_val[]){a, b});
}

cj_val lb_linear_solve(cj_val lu, cj_val perm, cj_val a, cj_val b, int transpose) {
    prim_params p = prim_params_zero();
    p.flag = transpose ? LB_TRANSPOSE : 0;
    return core_bind(a.ctx, PRIM_LINEAR_SOLVE, &p, 4, (cj_val[]){lu, perm, a, b});
}

int lb_lu(cj_val a, cj_val *out) {
    prim_params p = prim_params_zero();
    return core_bind_multi(a.ctx, PRIM_LU, &p, 1, &a, 3, out);
}

int lb_qr(cj_val a, int full_matrices, cj_val *out) {
    prim_params p = prim_params_zero();
    p.flag = full_matrices ? LB_FULL_MATRICES : 0;
    return core_bind_multi(a.ctx, PRIM_QR, &p, 1, &a, 2, out);
}

int lb_eigh(cj_val a, cj_val *out) {
    prim_params p = prim_params_zero();
    return core_bind_multi(a.ctx, PRIM_EIGH, &p, 1, &a, 2, out);
}

int lb_svd(cj_val a, int full_matrices, int compute_uv, cj_val *out) {
    prim_params p = prim_params_zero();
    p.flag = (full_matrices ? LB_FULL_MATRICES : 0) | (compute_uv ? LB_COMPUTE_UV : 0);
    return core_bind_multi(a.ctx, PRIM_SVD, &p, 1, &a, compute_uv ? 3 : 1, out);
}

cj_val lb_matmul(cj_val x, cj_val y, int tx, int ty) {
    const rt_aval *ax = aval_of(x), *ay = aval_of(y);
    if (!ax || !ay) return core_err_val(x.ctx);
    int r = ax->rank;
    prim_params p = prim_params_zero();
    p.dtype = ax->dtype;
    p.lhs_contract.n = p.rhs_contract.n = 1;
    p.lhs_contract.v[0] = tx ? r - 2 : r - 1;
    p.rhs_contract.v[0] = ty ? r - 1 : r - 2;
    p.lhs_batch.n = p.rhs_batch.n = r - 2;
    for (int d = 0; d < r - 2; d++) p.lhs_batch.v[d] = p.rhs_batch.v[d] = d;
    cj_val z = core_bind(x.ctx, PRIM_DOT_GENERAL, &p, 2, (cj_val[]){x, y});
    /* dot_general gives [batch, x free, y free]: with tx, x's free axis is
     * its last, which is the row axis wanted, so the order is already right */
    return z;
}

cj_val lb_mT(cj_val x) {
    const rt_aval *a = aval_of(x);
    if (!a) return core_err_val(x.ctx);
    int64_t perm[CJ_MAX_RANK];
    for (int d = 0; d < a->rank; d++) perm[d] = d;
    perm[a->rank - 2] = a->rank - 1;
    perm[a->rank - 1] = a->rank - 2;
    return bind_transpose(x, perm);
}

/* j - i over x's shape (int32), from two iotas. */
static cj_val col_minus_row(cj_val x) {
    const rt_aval *a = aval_of(x);
    if (!a) return core_err_val(x.ctx);
    cj_val rows = bind_iota(x.ctx, CJ_I32, a->rank, a->dims, a->rank - 2);
    cj_val cols = bind_iota(x.ctx, CJ_I32, a->rank, a->dims, a->rank - 1);
    return bind_binary(PRIM_SUB, cols, rows);
}

static cj_val band(cj_val x, int64_t k, prim_id keep_if) {
    const rt_aval *a = aval_of(x);
    if (!a) return core_err_val(x.ctx);
    cj_val keep = bind_binary(keep_if, col_minus_row(x), bind_scalar(x.ctx, (double)k, CJ_I32, 0));
    return bind_where(keep, x, bind_full(x.ctx, 0, a->dtype, a->rank, a->dims));
}

cj_val lb_tril(cj_val x, int64_t k) { return band(x, k, PRIM_LE); }
cj_val lb_triu(cj_val x, int64_t k) { return band(x, k, PRIM_GE); }

cj_val lb_band_const(cj_val x, double w_below, double w_diag, double w_above) {
    const rt_aval *a = aval_of(x);
    if (!a) return core_err_val(x.ctx);
    cj_ctx *ctx = x.ctx;
    cj_val d = col_minus_row(x), zero = bind_scalar(ctx, 0, CJ_I32, 0);
    cj_val below = bind_full(ctx, w_below, a->dtype, a->rank, a->dims);
    cj_val on = bind_full(ctx, w_diag, a->dtype, a->rank, a->dims);
    cj_val above = bind_full(ctx, w_above, a->dtype, a->rank, a->dims);
    return bind_where(bind_binary(PRIM_LT, d, zero), below,
                      bind_where(bind_binary(PRIM_EQ, d, zero), on, above));
}
