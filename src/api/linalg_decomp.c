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
