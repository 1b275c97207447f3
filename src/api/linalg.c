/* linalg.c — matrix products: cj_dot_general and cj_matmul (api layer).
 *
 * Both end in the strict dot_general primitive (src/prim/dot.c), which
 * wants equal operand dtypes and matching batch shapes. This file does the
 * jax.numpy part: JAX's type promotion of the two operands, and for
 * matmul numpy.matmul's rules — a 1-D operand acts as a row (lhs) or
 * column (rhs) vector whose added axis is not in the result, and the
 * leading (batch) axes of N-D operands broadcast against each other. */
#include <string.h>

#include "api.h"

/* Promotes both operands to their common (dtype, weak) type. */
static int promote_pair(cj_val *a, cj_val *b, const char *op, cj_dtype *dtype) {
    const rt_aval *aa = api_aval(*a, op), *ba = api_aval(*b, op);
    if (!aa || !ba) return -1;
    rt_aval both[2] = {*aa, *ba};
    int weak;
    api_result_type(2, both, dtype, &weak);
    *a = api_convert(*a, *dtype, weak);
    *b = api_convert(*b, *dtype, weak);
    return cj_is_error(*a) || cj_is_error(*b) ? -1 : 0;
}

static int copy_dims(cj_ctx *ctx, const char *what, int n, const int64_t *src, prim_ivec *dst) {
    if (n < 0 || n > CJ_MAX_RANK)
        return core_error(ctx, CJ_ERR_ARG, "dot_general: %d %s dimensions (0..%d allowed)", n, what,
                          CJ_MAX_RANK);
    if (n > 0 && !src)
        return core_error(ctx, CJ_ERR_ARG, "dot_general: %s dimension list is NULL for %d dimensions",
                          what, n);
    dst->n = n;
    if (n > 0) memcpy(dst->v, src, sizeof(int64_t) * (size_t)n);
    return 0;
}

/* No preferred_element_type: the promoted operands' dtype. */
#define NO_PREFERRED ((int)-1)

/* Binds dot_general on operands already of dtype `dtype`; the result is of
 * `preferred` (NO_PREFERRED: `dtype`), which the primitive checks. */
static cj_val bind_dot(cj_ctx *ctx, cj_val a, cj_val b, cj_dtype dtype, int preferred, const prim_params *dims) {
    prim_params p = *dims;
    p.dtype = preferred == NO_PREFERRED ? dtype : (cj_dtype)preferred;
    cj_val in[2] = {a, b};
    return core_bind(ctx, PRIM_DOT_GENERAL, &p, 2, in);
}

static cj_val dot_general(const char *fn, cj_val a, cj_val b, int n_contract, const int64_t *a_contract,
                          const int64_t *b_contract, int n_batch, const int64_t *a_batch, const int64_t *b_batch,
                          int preferred) {
    cj_val in[2] = {a, b};
    cj_ctx *ctx = api_ctx_of(2, in);
    if (!ctx) return api_no_ctx(fn, API_NO_OPERAND_CTX);
    if (ctx->err) return api_err(ctx);
    prim_params p = prim_params_zero();
    if (copy_dims(ctx, "lhs contracting", n_contract, a_contract, &p.lhs_contract) != 0 ||
        copy_dims(ctx, "rhs contracting", n_contract, b_contract, &p.rhs_contract) != 0 ||
        copy_dims(ctx, "lhs batch", n_batch, a_batch, &p.lhs_batch) != 0 ||
        copy_dims(ctx, "rhs batch", n_batch, b_batch, &p.rhs_batch) != 0)
        return api_err(ctx);
    cj_dtype dt;
    if (promote_pair(&a, &b, "dot_general", &dt) != 0) return api_err(ctx);
    return bind_dot(ctx, a, b, dt, preferred, &p);
}

cj_val cj_dot_general(cj_val a, cj_val b, int n_contract, const int64_t *a_contract,
                      const int64_t *b_contract, int n_batch, const int64_t *a_batch,
                      const int64_t *b_batch) {
    return dot_general("cj_dot_general", a, b, n_contract, a_contract, b_contract, n_batch, a_batch, b_batch,
                       NO_PREFERRED);
}

cj_val cj_dot_general_preferred(cj_val a, cj_val b, int n_contract, const int64_t *a_contract,
                                const int64_t *b_contract, int n_batch, const int64_t *a_batch,
                                const int64_t *b_batch, cj_dtype preferred) {
    return dot_general("cj_dot_general_preferred", a, b, n_contract, a_contract, b_contract, n_batch, a_batch,
                       b_batch, (int)preferred);
}

/* numpy.matmul's batch broadcasting: the axes before the last two of each
 * operand broadcast NumPy-style. Writes the common batch shape. */
static int matmul_batch_shape(cj_ctx *ctx, const rt_aval *a, const rt_aval *b, int *rank,
                              int64_t *dims) {
    int na = a->rank - 2, nb = b->rank - 2;
    int n = na > nb ? na : nb;
    for (int i = 0; i < n; i++) {
        int ia = i - (n - na), ib = i - (n - nb);
        int64_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
        if (da != db && da != 1 && db != 1) {
            char at[96], bt[96];
            rt_aval_str(a, at, sizeof at);
            rt_aval_str(b, bt, sizeof bt);
            return core_error(ctx, CJ_ERR_SHAPE, "matmul: batch dimensions of %s and %s do not broadcast",
                              at, bt);
        }
        dims[i] = da == 1 ? db : da;
    }
    *rank = n;
    return 0;
}

static cj_val matmul(const char *fn, cj_val a, cj_val b, int preferred) {
    cj_val in[2] = {a, b};
    cj_ctx *ctx = api_ctx_of(2, in);
    if (!ctx) return api_no_ctx(fn, API_NO_OPERAND_CTX);
    if (ctx->err) return api_err(ctx);
    const rt_aval *aa = api_aval(a, "matmul"), *ba = api_aval(b, "matmul");
    if (!aa || !ba) return api_err(ctx);
    rt_aval av = *aa, bv = *ba; /* the types before promotion */
    char at[96], bt[96];
    rt_aval_str(&av, at, sizeof at);
    rt_aval_str(&bv, bt, sizeof bt);
    if (av.rank == 0 || bv.rank == 0) {
        core_error(ctx, CJ_ERR_SHAPE, "matmul: operands must have rank >= 1, got %s @ %s (cj_mul scales)",
                   at, bt);
        return api_err(ctx);
    }
    int64_t ka = av.dims[av.rank - 1];
    int64_t kb_axis = bv.rank == 1 ? 0 : bv.rank - 2;
    if (ka != bv.dims[kb_axis]) {
        core_error(ctx, CJ_ERR_SHAPE, "matmul: inner dimensions %lld and %lld do not match (%s @ %s)",
                   (long long)ka, (long long)bv.dims[kb_axis], at, bt);
        return api_err(ctx);
    }
    cj_dtype dt;
    if (promote_pair(&a, &b, "matmul", &dt) != 0) return api_err(ctx);

    prim_params p = prim_params_zero();
    p.lhs_contract.n = p.rhs_contract.n = 1;
    p.lhs_contract.v[0] = av.rank - 1;
    p.rhs_contract.v[0] = kb_axis;
    /* A 1-D operand, or a plain matrix on the right: dot_general's output
     * order (lhs free axes, then rhs free axes) is already matmul's, with
     * no batch axes and nothing to broadcast. */
    if (av.rank == 1 || bv.rank <= 2) return bind_dot(ctx, a, b, dt, preferred, &p);

    int nb = 0;
    int64_t shape[CJ_MAX_RANK + 2];
    if (matmul_batch_shape(ctx, &av, &bv, &nb, shape) != 0) return api_err(ctx);
    if (nb + 2 > CJ_MAX_RANK) {
        core_error(ctx, CJ_ERR_SHAPE, "matmul: result of %s @ %s would have rank %d (at most %d)", at, bt,
                   nb + 2, CJ_MAX_RANK);
        return api_err(ctx);
    }
    shape[nb] = av.dims[av.rank - 2];
    shape[nb + 1] = ka;
    a = api_broadcast_to(a, nb + 2, shape);
    shape[nb] = ka;
    shape[nb + 1] = bv.dims[bv.rank - 1];
    b = api_broadcast_to(b, nb + 2, shape);
    p.lhs_contract.v[0] = nb + 1;
    p.rhs_contract.v[0] = nb;
    p.lhs_batch.n = p.rhs_batch.n = nb;
    for (int i = 0; i < nb; i++) p.lhs_batch.v[i] = p.rhs_batch.v[i] = i;
    return bind_dot(ctx, a, b, dt, preferred, &p);
}

cj_val cj_matmul(cj_val a, cj_val b) { return matmul("cj_matmul", a, b, NO_PREFERRED); }

cj_val cj_matmul_preferred(cj_val a, cj_val b, cj_dtype preferred) {
    return matmul("cj_matmul_preferred", a, b, (int)preferred);
}
