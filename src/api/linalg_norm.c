/* linalg_norm.c — the composites on the singular values (api layer):
 * cj_linalg_norm (vector and matrix norms, as jnp.linalg.norm),
 * cj_linalg_cond and cj_linalg_pinv. Everything is public operations plus
 * the svd primitive (src/prim/linalg_svd.c), so each is differentiable,
 * batchable and jittable; pinv and the singular-value norms differentiate
 * through svd's jvp (JAX gives pinv a custom jvp instead; both agree where
 * the nonzero singular values are distinct). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../prim/linalg_bind.h"
#include "api.h"

static cj_val svals(cj_val a) {
    cj_val f[1];
    if (lb_svd(a, 0, 0, f) != 0) return api_err(a.ctx);
    return f[0];
}

/* The vector norm of order p along axis. */
static cj_val vector_norm(cj_val x, double p, int64_t axis) {
    cj_val ax = cj_abs(x);
    if (isinf(p)) return p > 0 ? cj_reduce_max(ax, 1, &axis, 0) : cj_reduce_min(ax, 1, &axis, 0);
    if (p == 0) return cj_sum(cj_astype(cj_ne(x, cj_scalar(x.ctx, 0)), cj_val_dtype(x)), 1, &axis, 0);
    if (p == 1) return cj_sum(ax, 1, &axis, 0);
    if (p == 2) return cj_sqrt(cj_sum(cj_mul(x, x), 1, &axis, 0));
    return cj_pow(cj_sum(cj_pow(ax, cj_scalar_typed(x.ctx, p, cj_val_dtype(x))), 1, &axis, 0),
                  cj_scalar_typed(x.ctx, 1 / p, cj_val_dtype(x)));
}

cj_val cj_linalg_norm(cj_val x, const char *ord, int n_axes, const int64_t *axes) {
    const char *op = "linalg_norm";
    if (!x.ctx) return api_no_ctx(op, API_NO_VALUE_CTX);
    const rt_aval *av = api_aval(x, op);
    if (!av) return api_err(x.ctx);
    x = api_convert(x, api_inexact_dtype(av->dtype), 0);
    if (cj_is_error(x)) return x;
    char t[96];
    rt_aval_str(av, t, sizeof t);
    int r = av->rank;
    int64_t ax[2] = {0, 1};
    if (n_axes == 0 || !axes) { /* numpy's axis=None */
        if (r != 1 && r != 2) {
            if (ord) {
                core_error(x.ctx, CJ_ERR_SHAPE, "%s: ord \"%s\" needs axes (or a 1-D or 2-D x), got %s", op, ord, t);
                return api_err(x.ctx);
            }
            return cj_sqrt(cj_sum(cj_mul(x, x), -1, NULL, 0)); /* the flattened 2-norm */
        }
        n_axes = r;
        ax[0] = r == 1 ? 0 : r - 2, ax[1] = r - 1;
    } else if (n_axes == 1 || n_axes == 2) {
        for (int i = 0; i < n_axes; i++) {
            ax[i] = axes[i] < 0 ? axes[i] + r : axes[i];
            if (ax[i] < 0 || ax[i] >= r) {
                core_error(x.ctx, CJ_ERR_AXIS, "%s: axis %lld is out of range for %s", op, (long long)axes[i], t);
                return api_err(x.ctx);
            }
        }
        if (n_axes == 2 && ax[0] == ax[1]) {
            core_error(x.ctx, CJ_ERR_AXIS, "%s: the two axes must differ, got %lld twice for %s", op, (long long)ax[0], t);
            return api_err(x.ctx);
        }
    } else {
        core_error(x.ctx, CJ_ERR_AXIS, "%s: 1 axis (a vector norm) or 2 (a matrix norm), got %d for %s", op, n_axes, t);
        return api_err(x.ctx);
    }
    /* ord: NULL (2 / Frobenius), "fro", "nuc", "inf", "-inf" or a number */
    double p = 2;
    int fro = !ord || strcmp(ord, "fro") == 0, nuc = ord && strcmp(ord, "nuc") == 0;
    if (ord && !fro && !nuc) {
        char *end;
        p = strcmp(ord, "inf") == 0 ? INFINITY : strcmp(ord, "-inf") == 0 ? -INFINITY : strtod(ord, &end);
        if (!isinf(p) && (end == ord || *end)) {
            core_error(x.ctx, CJ_ERR_ARG, "%s: ord must be \"fro\", \"nuc\", \"inf\", \"-inf\" or a number, got \"%s\"",
                       op, ord);
            return api_err(x.ctx);
        }
    }
    if (n_axes == 1) {
        if (nuc || (ord && fro)) {
            core_error(x.ctx, CJ_ERR_ARG, "%s: ord \"%s\" is a matrix norm, but one axis was given for %s", op, ord, t);
            return api_err(x.ctx);
        }
        return vector_norm(x, p, ax[0]);
    }
    if (!fro && !nuc && p != 1 && p != -1 && p != 2 && p != -2 && !isinf(p)) {
        core_error(x.ctx, CJ_ERR_ARG, "%s: a matrix norm's ord must be \"fro\", \"nuc\", ±1, ±2 or ±inf, got \"%s\"", op,
                   ord);
        return api_err(x.ctx);
    }
    /* the two axes to the end, rows then columns */
    int64_t perm[CJ_MAX_RANK];
    int q = 0;
    for (int d = 0; d < r; d++)
        if (d != ax[0] && d != ax[1]) perm[q++] = d;
    perm[q++] = ax[0], perm[q++] = ax[1];
    x = cj_transpose(x, perm);
    if (fro) return cj_sqrt(cj_sum(cj_mul(x, x), 2, (int64_t[]){-2, -1}, 0));
    int64_t last = -1;
    if (nuc) return cj_sum(svals(x), 1, &last, 0);
    if (p == 2) return cj_reduce_max(svals(x), 1, &last, 0);
    if (p == -2) return cj_reduce_min(svals(x), 1, &last, 0);
    int64_t sum_axis = isinf(p) ? -1 : -2; /* inf: the largest row sum; 1: the largest column sum */
    cj_val sums = cj_sum(cj_abs(x), 1, &sum_axis, 0);
    return p > 0 ? cj_reduce_max(sums, 1, &last, 0) : cj_reduce_min(sums, 1, &last, 0);
}

cj_val cj_linalg_cond(cj_val x) {
    const char *op = "linalg_cond";
    if (!x.ctx) return api_no_ctx(op, API_NO_VALUE_CTX);
    const rt_aval *av = api_aval(x, op);
    if (!av) return api_err(x.ctx);
    x = api_convert(x, api_inexact_dtype(av->dtype), 0);
    cj_val s = svals(x);
    if (cj_is_error(s)) return s;
    int64_t last = -1;
    return cj_div(cj_reduce_max(s, 1, &last, 0), cj_reduce_min(s, 1, &last, 0));
}

cj_val cj_linalg_pinv(cj_val a, double rtol) {
    const char *op = "linalg_pinv";
    if (!a.ctx) return api_no_ctx(op, API_NO_VALUE_CTX);
    const rt_aval *av = api_aval(a, op);
    if (!av) return api_err(a.ctx);
    if (av->rank < 2) {
        char t[96];
        rt_aval_str(av, t, sizeof t);
        core_error(a.ctx, CJ_ERR_SHAPE, "%s: a must have at least 2 dimensions, got %s", op, t);
        return api_err(a.ctx);
    }
    cj_dtype dt = api_inexact_dtype(av->dtype);
    int64_t m = av->dims[av->rank - 2], n = av->dims[av->rank - 1];
    a = api_convert(a, dt, 0);
    if (rtol < 0) rtol = 10 * (double)(m > n ? m : n) * (dt == CJ_F32 ? 1.1920929e-7 : 2.220446049250313e-16);
    cj_val f[3];
    if (lb_svd(a, 0, 1, f) != 0) return api_err(a.ctx);
    int64_t last = -1;
    cj_val cutoff = cj_mul(cj_reduce_max(f[0], 1, &last, 1), cj_scalar_typed(a.ctx, rtol, dt));
    cj_val keep = cj_gt(f[0], cutoff);
    cj_val sinv = cj_where(keep, cj_div(cj_scalar(a.ctx, 1), cj_where(keep, f[0], cj_scalar(a.ctx, 1))), cj_scalar(a.ctx, 0));
    /* V diag(s⁺) Uᵀ */
    return lb_matmul(cj_mul(lb_mT(f[2]), cj_expand_dims(sinv, -2)), f[1], 0, 1);
}
