/* compose_util.c — the helpers of compose.h (api layer): operand and axis
 * checks for the composite operations of shape_compose.c, shape_split.c,
 * reduce_stats.c, scan_assoc.c and nn.c. Their messages name the public
 * function and the operand's type, as "cj_stack: axis 3 is out of range
 * for f32[2,3] (result rank 3)". */
#include <stdarg.h>

#include "compose.h"

int compose_operand(cj_val x, const char *op, rt_aval *a) {
    if (!x.ctx) return core_error(NULL, CJ_ERR_ARG, "%s: " API_NO_VALUE_CTX, op);
    if (x.ctx->err) return -1;
    const rt_aval *p = api_aval(x, op);
    if (!p) return -1;
    *a = *p;
    return 0;
}

int compose_other(cj_ctx *ctx, cj_val v, const char *op, const char *what, rt_aval *a) {
    if (v.ctx != ctx)
        return core_error(ctx, CJ_ERR_ARG, "%s: %s belongs to another context (or is an error value without one)",
                          op, what);
    const rt_aval *p = api_aval(v, op);
    if (!p) return -1;
    *a = *p;
    return 0;
}

int compose_axis(cj_ctx *ctx, const char *op, int64_t axis, int rank, const rt_aval *a, int64_t *out) {
    if (axis < -rank || axis >= rank) {
        char t[128];
        if (a) rt_aval_str(a, t, sizeof t);
        if (a && a->rank == rank)
            return core_error(ctx, CJ_ERR_AXIS, "%s: axis %lld is out of range for %s", op, (long long)axis, t);
        if (a)
            return core_error(ctx, CJ_ERR_AXIS, "%s: axis %lld is out of range for %s (result rank %d)", op,
                              (long long)axis, t, rank);
        return core_error(ctx, CJ_ERR_AXIS, "%s: axis %lld is out of range for rank %d", op, (long long)axis, rank);
    }
    *out = axis < 0 ? axis + rank : axis;
    return 0;
}

int compose_axes(cj_ctx *ctx, const char *op, int n, const int64_t *axes, const rt_aval *a, int64_t *out) {
    if (n < 0 || !axes) {
        for (int d = 0; d < a->rank; d++) out[d] = d;
        return a->rank;
    }
    unsigned seen = 0;
    for (int i = 0; i < n; i++) {
        int64_t ax;
        if (compose_axis(ctx, op, axes[i], a->rank, a, &ax) != 0) return -1;
        if (seen & (1u << ax)) {
            char t[128];
            rt_aval_str(a, t, sizeof t);
            return core_error(ctx, CJ_ERR_AXIS, "%s: axis %lld is repeated for %s", op, (long long)axes[i], t);
        }
        seen |= 1u << ax;
    }
    int k = 0;
    for (int d = 0; d < a->rank; d++)
        if (seen & (1u << d)) out[k++] = d;
    return k;
}

cj_val compose_fail(cj_ctx *ctx, cj_status code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    core_verror(ctx, code, fmt, ap);
    va_end(ap);
    return api_err(ctx);
}

/* Made as an array (not a convert of cj_scalar_typed), so that under
 * tracing it is a constant and not an equation. */
cj_val compose_const(cj_ctx *ctx, double v, cj_dtype dt) { return api_weak_constant(ctx, v, dt); }

cj_val compose_inexact(cj_val x, rt_aval *a) {
    if (rt_is_float(a->dtype)) return x;
    a->dtype = api_inexact_dtype(a->dtype);
    return api_convert(x, a->dtype, a->weak);
}

int64_t compose_count(const rt_aval *a, int n, const int64_t *axes) {
    int64_t c = 1;
    for (int i = 0; i < n; i++) c *= a->dims[axes[i]];
    return c;
}

cj_val compose_stop_gradient(cj_val x) {
    prim_params p = prim_params_zero();
    return core_bind(x.ctx, PRIM_STOP_GRADIENT, &p, 1, &x);
}
