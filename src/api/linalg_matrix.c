/* linalg_matrix.c — matrix helpers of jax.numpy (api layer): cj_diagonal,
 * cj_trace, cj_diag, cj_tril, cj_triu, cj_outer, cj_cross, cj_kron,
 * cj_matrix_power.
 *
 * Composites of existing operations (slices, reshapes, selects, products),
 * so they differentiate, batch and jit through those operations' rules.
 * A diagonal is read without any mask: the two axes are flattened and the
 * diagonal taken as a strided slice (every n+1-th element), which is a
 * data movement the compiler fuses. */
#include <string.h>

#include "../prim/linalg_bind.h"
#include "api.h"

cj_val cj_diagonal(cj_val x, int64_t offset, int64_t axis1, int64_t axis2) {
    const char *op = "diagonal";
    if (!x.ctx) return api_no_ctx(op, API_NO_VALUE_CTX);
    const rt_aval *a = api_aval(x, op);
    if (!a) return api_err(x.ctx);
    if (a->rank < 2) {
        char t[96];
        rt_aval_str(a, t, sizeof t);
        core_error(x.ctx, CJ_ERR_SHAPE, "%s: x must have at least 2 dimensions, got %s", op, t);
        return api_err(x.ctx);
    }
    int64_t a1, a2;
    if (api_axis(x.ctx, op, axis1, a->rank, &a1) || api_axis(x.ctx, op, axis2, a->rank, &a2)) return api_err(x.ctx);
    if (a1 == a2) {
        core_error(x.ctx, CJ_ERR_AXIS, "%s: axis1 and axis2 must differ, got %lld twice", op, (long long)a1);
        return api_err(x.ctx);
    }
    /* the two axes last, in order axis1, axis2 */
    int r = a->rank;
    int64_t perm[CJ_MAX_RANK], dims[CJ_MAX_RANK];
    int k = 0;
    for (int d = 0; d < r; d++)
        if (d != a1 && d != a2) perm[k++] = d;
    perm[k++] = a1, perm[k++] = a2;
    for (int d = 0; d < r; d++) dims[d] = a->dims[perm[d]];
    int64_t n = dims[r - 2], m = dims[r - 1];
    int64_t len = offset >= 0 ? (m - offset < n ? m - offset : n) : (n + offset < m ? n + offset : m);
    if (len < 0) len = 0;
    int64_t start = offset >= 0 ? offset : -offset * m;
    int64_t flat[CJ_MAX_RANK], lo[CJ_MAX_RANK], hi[CJ_MAX_RANK], st[CJ_MAX_RANK];
    for (int d = 0; d < r - 2; d++) flat[d] = dims[d], lo[d] = 0, hi[d] = dims[d], st[d] = 1;
    flat[r - 2] = n * m;
    lo[r - 2] = len ? start : 0;
    hi[r - 2] = len ? start + (len - 1) * (m + 1) + 1 : 0;
    st[r - 2] = m + 1;
    return cj_slice(cj_reshape(cj_transpose(x, perm), r - 1, flat), lo, hi, st);
}

cj_val cj_trace(cj_val x, int64_t offset, int64_t axis1, int64_t axis2) {
    return cj_sum(cj_diagonal(x, offset, axis1, axis2), 1, (int64_t[]){-1}, 0);
}

/* x (rank >= 2) with the entries outside the band of its last two axes
 * zeroed; lower: keep j - i <= k (tril), else j - i >= k (triu). */
static cj_val band(cj_val x, int64_t k, int lower, const char *op) {
    if (!x.ctx) return api_no_ctx(op, API_NO_VALUE_CTX);
    const rt_aval *a = api_aval(x, op);
    if (!a) return api_err(x.ctx);
    if (a->rank < 2) {
        char t[96];
        rt_aval_str(a, t, sizeof t);
        core_error(x.ctx, CJ_ERR_SHAPE, "%s: x must have at least 2 dimensions, got %s", op, t);
        return api_err(x.ctx);
    }
    return lower ? lb_tril(x, k) : lb_triu(x, k);
}
cj_val cj_tril(cj_val x, int64_t k) { return band(x, k, 1, "tril"); }
cj_val cj_triu(cj_val x, int64_t k) { return band(x, k, 0, "triu"); }

cj_val cj_diag(cj_val v, int64_t k) {
    const char *op = "diag";
    if (!v.ctx) return api_no_ctx(op, API_NO_VALUE_CTX);
    const rt_aval *a = api_aval(v, op);
    if (!a) return api_err(v.ctx);
    if (a->rank == 2) return cj_diagonal(v, k, 0, 1);
    if (a->rank != 1) {
        char t[96];
        rt_aval_str(a, t, sizeof t);
        core_error(v.ctx, CJ_ERR_SHAPE, "%s: v must be 1-D or 2-D, got %s", op, t);
        return api_err(v.ctx);
    }
    int64_t len = a->dims[0], ak = k < 0 ? -k : k, n = len + ak;
    /* row i holds vp[i]: v shifted down by |k| rows when k < 0 */
    cj_val zero = cj_scalar_typed(v.ctx, 0, a->dtype);
    cj_val vp = cj_pad(v, zero, (int64_t[]){k < 0 ? ak : 0}, (int64_t[]){k < 0 ? 0 : ak}, NULL);
    cj_val on = cj_ne(cj_eye(v.ctx, n, n, k, CJ_I32), cj_scalar_int(v.ctx, 0));
    cj_val rows = cj_broadcast_to(cj_expand_dims(vp, 1), 2, (int64_t[]){n, n});
    return cj_where(on, rows, cj_zeros(v.ctx, a->dtype, 2, (int64_t[]){n, n}));
}

cj_val cj_outer(cj_val a, cj_val b) {
    cj_ctx *ctx = api_ctx_of(2, (cj_val[]){a, b});
    if (!ctx) return api_no_ctx("outer", API_NO_OPERAND_CTX);
    cj_val fa = cj_reshape(a, 2, (int64_t[]){-1, 1}), fb = cj_reshape(b, 2, (int64_t[]){1, -1});
    return cj_mul(fa, fb);
}

cj_val cj_cross(cj_val a, cj_val b) {
    const char *op = "cross";
    cj_ctx *ctx = api_ctx_of(2, (cj_val[]){a, b});
    if (!ctx) return api_no_ctx(op, API_NO_OPERAND_CTX);
    const rt_aval *aa = api_aval(a, op), *ba = api_aval(b, op);
    if (!aa || !ba) return api_err(ctx);
    if (aa->rank < 1 || ba->rank < 1 || aa->dims[aa->rank - 1] != 3 || ba->dims[ba->rank - 1] != 3) {
        char at[96], bt[96];
        rt_aval_str(aa, at, sizeof at);
        rt_aval_str(ba, bt, sizeof bt);
        core_error(ctx, CJ_ERR_SHAPE, "%s: both operands must have 3 entries along their last axis, got %s and %s", op,
                   at, bt);
        return api_err(ctx);
    }
    cj_val ca[3], cb[3];
    for (int i = 0; i < 3; i++) {
        int64_t lo[CJ_MAX_RANK] = {0}, hi[CJ_MAX_RANK];
        memcpy(hi, aa->dims, sizeof(int64_t) * (size_t)aa->rank);
        lo[aa->rank - 1] = i, hi[aa->rank - 1] = i + 1;
        ca[i] = cj_slice(a, lo, hi, NULL);
        int64_t lb2[CJ_MAX_RANK] = {0}, hb[CJ_MAX_RANK];
        memcpy(hb, ba->dims, sizeof(int64_t) * (size_t)ba->rank);
        lb2[ba->rank - 1] = i, hb[ba->rank - 1] = i + 1;
        cb[i] = cj_slice(b, lb2, hb, NULL);
    }
    cj_val c[3];
    for (int i = 0; i < 3; i++) {
        int j = (i + 1) % 3, l = (i + 2) % 3;
        c[i] = cj_sub(cj_mul(ca[j], cb[l]), cj_mul(ca[l], cb[j]));
    }
    return cj_concatenate(3, c, -1);
}

cj_val cj_kron(cj_val a, cj_val b) {
    const char *op = "kron";
    cj_ctx *ctx = api_ctx_of(2, (cj_val[]){a, b});
    if (!ctx) return api_no_ctx(op, API_NO_OPERAND_CTX);
    const rt_aval *aa = api_aval(a, op), *ba = api_aval(b, op);
    if (!aa || !ba) return api_err(ctx);
    int r = aa->rank > ba->rank ? aa->rank : ba->rank;
    if (2 * r > CJ_MAX_RANK) {
        core_error(ctx, CJ_ERR_SHAPE, "%s: operands of rank %d need rank %d inside (at most %d)", op, r, 2 * r,
                   CJ_MAX_RANK);
        return api_err(ctx);
    }
    /* a as (a0, 1, a1, 1, ...), b as (1, b0, 1, b1, ...), both padded in
     * front to rank r with ones, as numpy.kron does */
    int64_t da[CJ_MAX_RANK], db[CJ_MAX_RANK], out[CJ_MAX_RANK];
    for (int d = 0; d < r; d++) {
        int64_t x = d < r - aa->rank ? 1 : aa->dims[d - (r - aa->rank)];
        int64_t y = d < r - ba->rank ? 1 : ba->dims[d - (r - ba->rank)];
        da[2 * d] = x, da[2 * d + 1] = 1;
        db[2 * d] = 1, db[2 * d + 1] = y;
        out[d] = x * y;
    }
    cj_val p = cj_mul(cj_reshape(a, 2 * r, da), cj_reshape(b, 2 * r, db));
    return cj_reshape(p, r, out);
}

cj_val cj_matrix_power(cj_val a, int64_t n) {
    const char *op = "matrix_power";
    if (!a.ctx) return api_no_ctx(op, API_NO_VALUE_CTX);
    const rt_aval *av = api_aval(a, op);
    if (!av) return api_err(a.ctx);
    if (av->rank < 2 || av->dims[av->rank - 1] != av->dims[av->rank - 2]) {
        char t[96];
        rt_aval_str(av, t, sizeof t);
        core_error(a.ctx, CJ_ERR_SHAPE, "%s: a must be a square matrix (or a batch of them), got %s", op, t);
        return api_err(a.ctx);
    }
    int64_t m = av->dims[av->rank - 1];
    if (n == 0) return cj_broadcast_to(cj_eye(a.ctx, m, m, 0, av->dtype), av->rank, av->dims);
    if (n < 0) {
        a = cj_linalg_inv(a);
        n = -n;
    }
    /* binary powering, as jnp.linalg.matrix_power */
    cj_val result = {0}, z = a;
    int have = 0;
    while (n > 0) {
        if (n & 1) {
            result = have ? cj_matmul(result, z) : z;
            have = 1;
        }
        n >>= 1;
        if (n) z = cj_matmul(z, z);
    }
    return result;
}
