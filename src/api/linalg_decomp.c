/* linalg_decomp.c — the public decompositions (api layer): cj_linalg_qr,
 * as jax.numpy.linalg.qr. Integer and bool operands promote to a float
 * dtype (jnp's promote_dtypes_inexact); the work is the strict qr
 * primitive (src/prim/linalg_qr.c), so the result is differentiable,
 * batchable and jittable through its rules. */
#include <string.h>

#include "../prim/linalg_bind.h"
#include "api.h"

int cj_linalg_qr(cj_val a, const char *mode, cj_val *q, cj_val *r) {
    const char *op = "linalg_qr";
    if (!mode) mode = "reduced";
    int full = strcmp(mode, "complete") == 0, only_r = strcmp(mode, "r") == 0;
    if (q && !only_r) *q = api_err(a.ctx);
    if (r) *r = api_err(a.ctx);
    if (!a.ctx) return (void)api_no_ctx(op, API_NO_VALUE_CTX), -1;
    if (!full && !only_r && strcmp(mode, "reduced") != 0)
        return core_error(a.ctx, CJ_ERR_ARG, "%s: mode must be \"reduced\", \"complete\" or \"r\", got \"%s\"", op,
                          mode);
    if (!r || (!only_r && !q))
        return core_error(a.ctx, CJ_ERR_ARG, "%s: r (and q unless mode is \"r\") must not be NULL", op);
    const rt_aval *av = api_aval(a, op);
    if (!av) return -1;
    if (av->rank < 2) {
        char t[96];
        rt_aval_str(av, t, sizeof t);
        return core_error(a.ctx, CJ_ERR_SHAPE, "%s: a must have at least 2 dimensions, got %s", op, t);
    }
    a = api_convert(a, api_inexact_dtype(av->dtype), 0);
    if (cj_is_error(a)) return -1;
    cj_val f[2];
    if (lb_qr(a, full, f) != 0) return -1;
    *r = f[1];
    if (!only_r) *q = f[0];
    return 0;
}

/* a as a float square matrix (or batch), symmetrised as jnp's
 * symmetrize_input=True does, (a + aᵀ)/2, so the derivative sees only a
 * tangent's symmetric part; an error value after the error. */
static cj_val symmetric_operand(cj_val a, const char *op) {
    const rt_aval *av = api_aval(a, op);
    if (!av) return api_err(a.ctx);
    char t[96];
    rt_aval_str(av, t, sizeof t);
    if (av->rank < 2 || av->dims[av->rank - 1] != av->dims[av->rank - 2]) {
        core_error(a.ctx, CJ_ERR_SHAPE, "%s: a must be a square matrix (or a batch of them), got %s", op, t);
        return api_err(a.ctx);
    }
    a = api_convert(a, api_inexact_dtype(av->dtype), 0);
    if (cj_is_error(a)) return a;
    return cj_mul(cj_add(a, lb_mT(a)), cj_scalar(a.ctx, 0.5));
}

int cj_linalg_eigh(cj_val a, cj_val *v, cj_val *w) {
    const char *op = "linalg_eigh";
    if (v) *v = api_err(a.ctx);
    if (w) *w = api_err(a.ctx);
    if (!a.ctx) return (void)api_no_ctx(op, API_NO_VALUE_CTX), -1;
    if (!v || !w) return core_error(a.ctx, CJ_ERR_ARG, "%s: v and w must not be NULL", op);
    a = symmetric_operand(a, op);
    if (cj_is_error(a)) return -1;
    cj_val f[2];
    if (lb_eigh(a, f) != 0) return -1;
    *v = f[0], *w = f[1];
    return 0;
}

cj_val cj_linalg_eigvalsh(cj_val a) {
    const char *op = "linalg_eigvalsh";
    if (!a.ctx) return api_no_ctx(op, API_NO_VALUE_CTX);
    a = symmetric_operand(a, op);
    if (cj_is_error(a)) return a;
    cj_val f[2];
    if (lb_eigh(a, f) != 0) return api_err(a.ctx);
    return f[1];
}

/* a as a float matrix (or batch); an error value after the error. */
static cj_val float_matrix(cj_val a, const char *op) {
    const rt_aval *av = api_aval(a, op);
    if (!av) return api_err(a.ctx);
    if (av->rank < 2) {
        char t[96];
        rt_aval_str(av, t, sizeof t);
        core_error(a.ctx, CJ_ERR_SHAPE, "%s: a must have at least 2 dimensions, got %s", op, t);
        return api_err(a.ctx);
    }
    return api_convert(a, api_inexact_dtype(av->dtype), 0);
}

int cj_linalg_svd(cj_val a, int full_matrices, cj_val *u, cj_val *s, cj_val *vt) {
    const char *op = "linalg_svd";
    cj_val *outs[3] = {u, s, vt};
    for (int i = 0; i < 3; i++)
        if (outs[i]) *outs[i] = api_err(a.ctx);
    if (!a.ctx) return (void)api_no_ctx(op, API_NO_VALUE_CTX), -1;
    if (!u || !s || !vt) return core_error(a.ctx, CJ_ERR_ARG, "%s: u, s and vt must not be NULL", op);
    a = float_matrix(a, op);
    if (cj_is_error(a)) return -1;
    cj_val f[3];
    if (lb_svd(a, full_matrices, 1, f) != 0) return -1;
    *s = f[0], *u = f[1], *vt = f[2];
    return 0;
}

cj_val cj_linalg_svdvals(cj_val a) {
    const char *op = "linalg_svdvals";
    if (!a.ctx) return api_no_ctx(op, API_NO_VALUE_CTX);
    a = float_matrix(a, op);
    if (cj_is_error(a)) return a;
    cj_val f[1];
    if (lb_svd(a, 0, 0, f) != 0) return api_err(a.ctx);
    return f[0];
}
