/* linalg_lstsq.c — cj_linalg_lstsq, as jax.numpy.linalg.lstsq (api layer).
 *
 * The least-squares solution through the reduced svd primitive
 * (src/prim/linalg_svd.c), as JAX computes it: singular values below
 * rcond·s_max are dropped (rank counts the others), x = V diag(s⁺) Uᵀ b,
 * the residuals ‖b - a x‖² per column. Everything is public operations on
 * svd's results, so lstsq is differentiable (through svd's jvp: away from
 * repeated or dropped singular values), batchable and jittable. Beyond
 * JAX (whose lstsq takes 2-D a only): leading axes of a are a batch, b
 * then [..., m, k] with the same batch, or 1-D (shared by every matrix). */
#include "../prim/linalg_bind.h"
#include "api.h"

int cj_linalg_lstsq(cj_val a, cj_val b, double rcond, cj_val *x, cj_val *resid, cj_val *rank, cj_val *s) {
    const char *op = "linalg_lstsq";
    cj_val *outs[4] = {x, resid, rank, s};
    for (int i = 0; i < 4; i++)
        if (outs[i]) *outs[i] = api_err(a.ctx);
    if (!a.ctx) return (void)api_no_ctx(op, API_NO_VALUE_CTX), -1;
    if (!x || !resid || !rank || !s) return core_error(a.ctx, CJ_ERR_ARG, "%s: x, resid, rank and s must not be NULL", op);
    const rt_aval *aa = api_aval(a, op), *ba = api_aval(b, op);
    if (!aa || !ba) return -1;
    char at[96], bt[96];
    rt_aval_str(aa, at, sizeof at);
    rt_aval_str(ba, bt, sizeof bt);
    if (aa->rank < 2) return core_error(a.ctx, CJ_ERR_SHAPE, "%s: a must have at least 2 dimensions, got %s", op, at);
    int vec = ba->rank == 1;
    int64_t m = aa->dims[aa->rank - 2], n = aa->dims[aa->rank - 1];
    if (!vec && ba->rank != aa->rank)
        return core_error(a.ctx, CJ_ERR_SHAPE, "%s: b must be 1-D or have a's rank (%d), got a %s and b %s", op,
                          aa->rank, at, bt);
    for (int d = 0; !vec && d < aa->rank - 2; d++)
        if (ba->dims[d] != aa->dims[d])
            return core_error(a.ctx, CJ_ERR_SHAPE, "%s: a %s and b %s: the batch axes must agree", op, at, bt);
    if (ba->dims[vec ? 0 : ba->rank - 2] != m)
        return core_error(a.ctx, CJ_ERR_SHAPE, "%s: a %s and b %s: b's %s must have size %lld", op, at, bt,
                          vec ? "length" : "rows", (long long)m);
    /* one float dtype for both, as jnp's promote_dtypes_inexact */
    cj_dtype dt = api_inexact_dtype(aa->dtype), bd = api_inexact_dtype(ba->dtype);
    if (bd == CJ_F64) dt = CJ_F64;
    a = api_convert(a, dt, 0);
    b = api_convert(b, dt, 0);
    if (cj_is_error(a) || cj_is_error(b)) return -1;
    if (vec) { /* [m] → [..., m, 1] */
        int64_t shape[CJ_MAX_RANK];
        for (int d = 0; d < aa->rank - 2; d++) shape[d] = aa->dims[d];
        shape[aa->rank - 2] = m, shape[aa->rank - 1] = 1;
        b = cj_broadcast_to(cj_expand_dims(b, -1), aa->rank, shape);
    }
    double eps = dt == CJ_F32 ? 1.1920928955078125e-7 : 2.220446049250313e-16;
    if (rcond < 0) rcond = eps * (double)(m > n ? m : n); /* JAX's rcond=None */
    cj_val f[3];
    if (lb_svd(a, 0, 1, f) != 0) return -1;
    int64_t last = -1;
    /* s_max is s[..., 0] (descending); an empty matrix keeps nothing */
    cj_val smax = cj_reduce_max(f[0], 1, &last, 1);
    cj_val keep = cj_ge(f[0], cj_mul(smax, cj_scalar_typed(a.ctx, rcond, dt)));
    cj_val one = cj_scalar(a.ctx, 1), zero = cj_scalar(a.ctx, 0);
    cj_val sinv = cj_where(keep, cj_div(one, cj_where(keep, f[0], one)), zero);
    cj_val utb = lb_matmul(f[1], b, 1, 0);                                    /* Uᵀ b */
    cj_val xs = lb_matmul(f[2], cj_mul(cj_expand_dims(sinv, -1), utb), 1, 0); /* V (s⁺ Uᵀ b) */
    cj_val r = cj_sub(b, lb_matmul(a, xs, 0, 0));
    int64_t rows = -2;
    cj_val res = cj_sum(cj_mul(r, r), 1, &rows, 0); /* JAX: norm(.., axis=0)**2, the same value */
    cj_val rk = cj_sum(cj_astype(keep, CJ_I32), 1, &last, 0);
    if (vec) xs = cj_squeeze(xs, 1, &last);
    if (cj_is_error(xs) || cj_is_error(res) || cj_is_error(rk)) return -1;
    *x = xs, *resid = res, *rank = rk, *s = f[0];
    return 0;
}
