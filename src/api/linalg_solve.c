/* linalg_solve.c — the public factorisations and solves (api layer):
 * cj_linalg_cholesky, _lu, _triangular_solve, _cho_solve, _lu_solve,
 * _solve, _inv, _det, _slogdet, as jax.numpy.linalg / jax.scipy.linalg.
 *
 * The jax.numpy part lives here — integer and bool operands promote to a
 * float dtype (jnp's promote_dtypes_inexact), batch axes broadcast, a 1-D
 * right-hand side is a vector — and everything ends in the strict
 * primitives cholesky, triangular_solve and lu (src/prim/linalg.c), so
 * these functions are differentiable, batchable and jittable through
 * those primitives' rules. Two derivatives are shaped on purpose, as JAX
 * shapes them:
 *   cholesky factors (a + aᵀ)/2 (the primitive's symmetrize_input), so its
 *     derivative sees only the symmetric part of a tangent;
 *   solve factors stop_gradient(a) and binds linear_solve(lu, perm, a, b),
 *     whose rules are custom_linear_solve's: linear in b (the transpose
 *     solves with aᵀ through the same factors), dx = a⁻¹(db - da·x) in a;
 *     nothing differentiates through the factorisation, and the one
 *     factorisation serves the value, the jvp and the transpose. */
#include <string.h>

#include "../prim/linalg_bind.h"
#include "api.h"

/* x in the float dtype jnp computes it in; an error value when x is one. */
static cj_val inexact(cj_val x, const char *op) {
    const rt_aval *a = api_aval(x, op);
    if (!a) return api_err(x.ctx);
    return api_convert(x, api_inexact_dtype(a->dtype), 0);
}

/* a as a float square matrix or batch of them; NULL after the error. */
static const rt_aval *square_operand(cj_val *a, const char *op) {
    *a = inexact(*a, op);
    const rt_aval *av = api_aval(*a, op);
    if (!av) return NULL;
    if (av->rank < 2 || av->dims[av->rank - 1] != av->dims[av->rank - 2]) {
        char t[96];
        rt_aval_str(av, t, sizeof t);
        core_error(a->ctx, CJ_ERR_SHAPE, "%s: a must be a square matrix (or a batch of them), got %s", op, t);
        return NULL;
    }
    return av;
}

cj_val cj_linalg_cholesky(cj_val a) {
    if (!a.ctx) return api_no_ctx("linalg_cholesky", API_NO_VALUE_CTX);
    if (!square_operand(&a, "linalg_cholesky")) return api_err(a.ctx);
    return lb_cholesky_sym(a);
}

int cj_linalg_lu(cj_val a, cj_val out[3]) {
    for (int i = 0; i < 3; i++) out[i] = api_err(a.ctx);
    if (!a.ctx) return (void)api_no_ctx("linalg_lu", API_NO_VALUE_CTX), -1;
    a = inexact(a, "linalg_lu");
    if (cj_is_error(a)) return -1;
    return lb_lu(a, out);
}

/* b as a matrix right-hand side for a [..., n, n]: a vector (rank 1 only,
 * as JAX since 0.5: a batch of vectors is b[..., None]) gets a trailing
 * axis of 1 (*vec set); batch axes of both broadcast. 0, or -1 after the
 * error. */
static int rhs_for(cj_val *a, cj_val *b, int *vec, const char *op) {
    const rt_aval *aa = api_aval(*a, op), *ba = api_aval(*b, op);
    if (!aa || !ba) return -1;
    char at[96], bt[96];
    rt_aval_str(aa, at, sizeof at);
    rt_aval_str(ba, bt, sizeof bt);
    *vec = ba->rank == 1;
    if (ba->rank == 0)
        return core_error(a->ctx, CJ_ERR_SHAPE, "%s: b must have at least 1 dimension, got %s", op, bt);
    if (*vec) *b = cj_expand_dims(*b, -1);
    ba = api_aval(*b, op);
    if (!ba) return -1;
    int64_t n = aa->dims[aa->rank - 1];
    if (ba->dims[ba->rank - 2] != n)
        return core_error(a->ctx, CJ_ERR_SHAPE, "%s: a %s and b %s: b's %s must have size %lld", op, at, bt,
                          *vec ? "length" : "rows", (long long)n);
    /* broadcast the batch axes */
    rt_aval batch[2] = {*aa, *ba};
    batch[0].rank -= 2, batch[1].rank -= 2;
    int rank;
    int64_t dims[CJ_MAX_RANK];
    if (api_broadcast_shapes(a->ctx, op, 2, batch, &rank, dims) != 0) return -1;
    if (rank + 2 > CJ_MAX_RANK) return core_error(a->ctx, CJ_ERR_SHAPE, "%s: the batch of %s and %s is too deep", op, at, bt);
    int64_t full[CJ_MAX_RANK];
    memcpy(full, dims, sizeof(int64_t) * (size_t)rank);
    full[rank] = n, full[rank + 1] = n;
    *a = api_broadcast_to(*a, rank + 2, full);
    full[rank + 1] = ba->dims[ba->rank - 1];
    *b = api_broadcast_to(*b, rank + 2, full);
    return cj_is_error(*a) || cj_is_error(*b) ? -1 : 0;
}

/* Promotes a and b to their common float dtype. */
static int promote_float_pair(cj_val *a, cj_val *b, const char *op) {
    const rt_aval *aa = api_aval(*a, op), *ba = api_aval(*b, op);
    if (!aa || !ba) return -1;
    rt_aval both[2] = {*aa, *ba};
    cj_dtype dt;
    int weak;
    api_result_type(2, both, &dt, &weak);
    dt = api_inexact_dtype(dt);
    *a = api_convert(*a, dt, 0);
    *b = api_convert(*b, dt, 0);
    return cj_is_error(*a) || cj_is_error(*b) ? -1 : 0;
}

static cj_val drop_vec(cj_val x, int vec) { return vec ? cj_squeeze(x, 1, (int64_t[]){-1}) : x; }

cj_val cj_linalg_triangular_solve(cj_val a, cj_val b, int lower, int trans, int unit_diagonal) {
    const char *op = "linalg_triangular_solve";
    cj_ctx *ctx = api_ctx_of(2, (cj_val[]){a, b});
    if (!ctx) return api_no_ctx(op, API_NO_OPERAND_CTX);
    if (trans < 0 || trans > 1) {
        core_error(ctx, CJ_ERR_ARG, "%s: trans must be 0 (a x = b) or 1 (aᵀ x = b), got %d", op, trans);
        return api_err(ctx);
    }
    int vec;
    if (promote_float_pair(&a, &b, op) || !square_operand(&a, op) || rhs_for(&a, &b, &vec, op)) return api_err(ctx);
    int flags = LB_LEFT | (lower ? LB_LOWER : 0) | (trans ? LB_TRANSPOSE : 0) | (unit_diagonal ? LB_UNIT : 0);
    return drop_vec(lb_trsm(a, b, flags), vec);
}

cj_val cj_linalg_cho_solve(cj_val c, cj_val b, int lower) {
    const char *op = "linalg_cho_solve";
    cj_ctx *ctx = api_ctx_of(2, (cj_val[]){c, b});
    if (!ctx) return api_no_ctx(op, API_NO_OPERAND_CTX);
    int vec;
    if (promote_float_pair(&c, &b, op) || !square_operand(&c, op) || rhs_for(&c, &b, &vec, op)) return api_err(ctx);
    /* c cᵀ x = b (lower) or cᵀ c x = b (upper): two triangular solves */
    int tri = LB_LEFT | (lower ? LB_LOWER : 0);
    cj_val y = lb_trsm(c, b, tri | (lower ? 0 : LB_TRANSPOSE));
    return drop_vec(lb_trsm(c, y, tri | (lower ? LB_TRANSPOSE : 0)), vec);
}

/* Solves a x = b through one lu's factors: L U x = b[perm]. */
static cj_val lu_solve_core(cj_val lu, cj_val perm, cj_val b) {
    const rt_aval *ba = api_aval(b, "linalg_lu_solve");
    if (!ba) return api_err(b.ctx);
    int64_t bdims[CJ_MAX_RANK];
    for (int d = 0; d < ba->rank - 1; d++) bdims[d] = d; /* perm [..., n] along b's rows */
    cj_val idx = bind_broadcast_in_dim(perm, ba->rank, ba->dims, bdims);
    cj_val x = bind_take_along(b, idx, ba->rank - 2);
    x = lb_trsm(lu, x, LB_LEFT | LB_LOWER | LB_UNIT);
    return lb_trsm(lu, x, LB_LEFT);
}

cj_val cj_linalg_lu_solve(cj_val lu, cj_val perm, cj_val b) {
    const char *op = "linalg_lu_solve";
    cj_ctx *ctx = api_ctx_of(3, (cj_val[]){lu, perm, b});
    if (!ctx) return api_no_ctx(op, API_NO_OPERAND_CTX);
    int vec;
    if (promote_float_pair(&lu, &b, op) || !square_operand(&lu, op) || rhs_for(&lu, &b, &vec, op))
        return api_err(ctx);
    const rt_aval *la = api_aval(lu, op), *pa = api_aval(perm, op);
    if (!pa) return api_err(ctx);
    int ok = pa->dtype == CJ_I32 && pa->rank == la->rank - 1;
    for (int d = 0; ok && d < pa->rank; d++) ok = pa->dims[d] == la->dims[d];
    if (!ok) {
        char lt[96], pt[96];
        rt_aval_str(la, lt, sizeof lt);
        rt_aval_str(pa, pt, sizeof pt);
        core_error(ctx, CJ_ERR_SHAPE, "%s: the permutation must be i32 of lu's shape without its last axis (as "
                   "cj_linalg_lu gives), got lu %s and permutation %s", op, lt, pt);
        return api_err(ctx);
    }
    return drop_vec(lu_solve_core(lu, perm, b), vec);
}

cj_val cj_linalg_solve(cj_val a, cj_val b) {
    const char *op = "linalg_solve";
    cj_ctx *ctx = api_ctx_of(2, (cj_val[]){a, b});
    if (!ctx) return api_no_ctx(op, API_NO_OPERAND_CTX);
    int vec;
    if (promote_float_pair(&a, &b, op) || !square_operand(&a, op) || rhs_for(&a, &b, &vec, op)) return api_err(ctx);
    cj_val f[3];
    if (lb_lu(cj_stop_gradient(a), f) != 0) return api_err(ctx);
    return drop_vec(lb_linear_solve(f[0], f[2], a, b, 0), vec);
}

cj_val cj_linalg_inv(cj_val a) {
    const char *op = "linalg_inv";
    if (!a.ctx) return api_no_ctx(op, API_NO_VALUE_CTX);
    const rt_aval *av = square_operand(&a, op);
    if (!av) return api_err(a.ctx);
    int64_t n = av->dims[av->rank - 1];
    cj_val eye = cj_eye(a.ctx, n, n, 0, av->dtype);
    return cj_linalg_solve(a, cj_broadcast_to(eye, av->rank, av->dims));
}

/* The diagonal of the last two axes of a square x: [..., n] (n² work by a
 * mask and a row sum: nothing next to the lu it follows). */
static cj_val diag_of(cj_val x) { return cj_sum(cj_mul(x, lb_band_const(x, 0, 1, 0)), 1, (int64_t[]){-1}, 0); }

/* (-1)^(number of row swaps) of lu's pivots, in dtype dt: 1 - 2·(swaps mod 2). */
static cj_val parity_sign(cj_val pivots, cj_dtype dt) {
    const rt_aval *pa = api_aval(pivots, "linalg_det");
    if (!pa) return api_err(pivots.ctx);
    cj_ctx *ctx = pivots.ctx;
    cj_val steps = bind_iota(ctx, CJ_I32, pa->rank, pa->dims, pa->rank - 1);
    cj_val swaps = cj_sum(cj_astype(cj_ne(pivots, steps), CJ_I32), 1, (int64_t[]){-1}, 0);
    cj_val two = cj_scalar_typed(ctx, 2, CJ_I32);
    return cj_astype(cj_sub(cj_scalar_typed(ctx, 1, CJ_I32), cj_mul(two, cj_rem(swaps, two))), dt);
}

cj_val cj_linalg_det(cj_val a) {
    const char *op = "linalg_det";
    if (!a.ctx) return api_no_ctx(op, API_NO_VALUE_CTX);
    const rt_aval *av = square_operand(&a, op);
    if (!av) return api_err(a.ctx);
    cj_dtype dt = av->dtype;
    cj_val f[3];
    if (lb_lu(a, f) != 0) return api_err(a.ctx);
    return cj_mul(parity_sign(f[1], dt), cj_prod(diag_of(f[0]), 1, (int64_t[]){-1}, 0));
}

int cj_linalg_slogdet(cj_val a, cj_val *sign, cj_val *logabsdet) {
    const char *op = "linalg_slogdet";
    if (!sign || !logabsdet) {
        if (a.ctx) core_error(a.ctx, CJ_ERR_ARG, "%s: sign and logabsdet must not be NULL", op);
        else api_no_ctx(op, "sign and logabsdet must not be NULL");
        return -1;
    }
    *sign = *logabsdet = api_err(a.ctx);
    if (!a.ctx) return (void)api_no_ctx(op, API_NO_VALUE_CTX), -1;
    const rt_aval *av = square_operand(&a, op);
    if (!av) return -1;
    cj_dtype dt = av->dtype;
    cj_val f[3];
    if (lb_lu(a, f) != 0) return -1;
    cj_val d = diag_of(f[0]);
    *sign = cj_mul(parity_sign(f[1], dt), cj_prod(cj_sign(d), 1, (int64_t[]){-1}, 0));
    *logabsdet = cj_sum(cj_log(cj_abs(d)), 1, (int64_t[]){-1}, 0);
    return cj_is_error(*sign) || cj_is_error(*logabsdet) ? -1 : 0;
}
