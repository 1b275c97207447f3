/* promote.c — type promotion and broadcasting for the public operations
 * (api layer).
 *
 * Promotion is JAX's lattice with weak types (jax._src.dtypes, x64 off):
 *
 *     bool → i* → u8 → u16 → u32 → u64 → f*
 *            i* → i8 → i16 → i32 → i64 → f*
 *            u8 → i16,  u16 → i32,  u32 → i32 (x64 off; with x64 on: i64)
 *            f* → bf16 → f32 → f64,  f* → f16 → f32
 *
 * where i* and f* are the weak types: a weakly typed integer or float (a C
 * constant, cj_scalar) stands at i* or f* whatever its dtype. The join of
 * two operand types is their least upper bound. As in jnp (promote_dtypes):
 *   - when both operands are weak, the result is the join of their dtypes
 *     taken as strong, marked weak (2.0 + 3 stays a weak f32);
 *   - otherwise a result at i* or f* is weak with its kind's default dtype,
 *     i32 or f32 as with x64 off — or i64/f64 when a weak operand of that
 *     kind has that dtype (cjax keeps explicit 64-bit types, which x64-off
 *     JAX cannot hold); so f32 ⊔ f* = f32 (x_f32 * 2.0 stays f32),
 *     i64 ⊔ u64 = a weak f32 (JAX x64: weak f64), u8 ⊔ i* = u8.
 * tests/test_dtypes.c checks every pair of the 25 operand types against
 * JAX (tests/data/dtypes/promotion.npy). */
#include <string.h>

#include "api.h"

/* Lattice nodes, in an order where every edge goes up. */
enum {
    L_BOOL, L_IWEAK, L_U8, L_I8, L_U16, L_I16, L_U32, L_I32, L_U64, L_I64,
    L_FWEAK, L_BF16, L_F16, L_F32, L_F64, L_COUNT
};

/* The nodes at or above each node, built from the edges above (top down). */
#define B(n) (1u << (n))
#define UP_F64 B(L_F64)
#define UP_F32 (B(L_F32) | UP_F64)
#define UP_F16 (B(L_F16) | UP_F32)
#define UP_BF16 (B(L_BF16) | UP_F32)
#define UP_FWEAK (B(L_FWEAK) | UP_BF16 | UP_F16)
#define UP_I64 (B(L_I64) | UP_FWEAK)
#define UP_U64 (B(L_U64) | UP_FWEAK)
#define UP_I32 (B(L_I32) | UP_I64)
#define UP_U32 (B(L_U32) | UP_I32 | UP_U64)
#define UP_I16 (B(L_I16) | UP_I32)
#define UP_U16 (B(L_U16) | UP_I32 | UP_U32)
#define UP_I8 (B(L_I8) | UP_I16)
#define UP_U8 (B(L_U8) | UP_I16 | UP_U16)
#define UP_IWEAK (B(L_IWEAK) | UP_U8 | UP_I8)
#define UP_BOOL (B(L_BOOL) | UP_IWEAK)
static const unsigned upper[L_COUNT] = {
    [L_BOOL] = UP_BOOL, [L_IWEAK] = UP_IWEAK, [L_U8] = UP_U8,   [L_I8] = UP_I8,
    [L_U16] = UP_U16,   [L_I16] = UP_I16,     [L_U32] = UP_U32, [L_I32] = UP_I32,
    [L_U64] = UP_U64,   [L_I64] = UP_I64,     [L_FWEAK] = UP_FWEAK, [L_BF16] = UP_BF16,
    [L_F16] = UP_F16,   [L_F32] = UP_F32,     [L_F64] = UP_F64,
};
#undef B

/* The dtype each strong node stands for (the weak ones have none). */
static const cj_dtype node_dtype[L_COUNT] = {
    [L_BOOL] = CJ_BOOL, [L_U8] = CJ_U8,   [L_I8] = CJ_I8,   [L_U16] = CJ_U16, [L_I16] = CJ_I16,
    [L_U32] = CJ_U32,   [L_I32] = CJ_I32, [L_U64] = CJ_U64, [L_I64] = CJ_I64, [L_BF16] = CJ_BF16,
    [L_F16] = CJ_F16,   [L_F32] = CJ_F32, [L_F64] = CJ_F64,
};

static int node_of(cj_dtype dt, int weak) {
    if (!rt_dtype_valid(dt)) return L_F64;
    if (dt == CJ_BOOL) return L_BOOL; /* bool is never weak */
    if (weak) return rt_is_float(dt) ? L_FWEAK : L_IWEAK;
    for (int n = 0; n < L_COUNT; n++)
        if (n != L_IWEAK && n != L_FWEAK && node_dtype[n] == dt) return n;
    return L_F64;
}

static void join_nodes(int na, int nb, cj_dtype a, int a_weak, cj_dtype b, int b_weak, cj_dtype *dt, int *weak) {
    /* every pair has a least upper bound, the lowest common node: nodes
     * are in topological order, so the lowest-numbered common one is
     * below all the others */
    int least = __builtin_ctz(upper[na] & upper[nb]);
    if (least == L_IWEAK) {
        *dt = (a == CJ_I64 && a_weak) || (b == CJ_I64 && b_weak) ? CJ_I64 : CJ_I32;
        *weak = 1;
    } else if (least == L_FWEAK) {
        *dt = (a == CJ_F64 && a_weak) || (b == CJ_F64 && b_weak) ? CJ_F64 : CJ_F32;
        *weak = 1;
    } else {
        *dt = node_dtype[least];
        *weak = 0;
    }
}

void api_join_types(cj_dtype a, int a_weak, cj_dtype b, int b_weak, cj_dtype *dt, int *weak) {
    if (a_weak && b_weak && a != CJ_BOOL && b != CJ_BOOL) {
        /* jnp: all operands weak → the join of their strong dtypes, weak */
        join_nodes(node_of(a, 0), node_of(b, 0), a, 0, b, 0, dt, weak);
        *weak = *dt != CJ_BOOL;
        return;
    }
    join_nodes(node_of(a, a_weak), node_of(b, b_weak), a, a_weak, b, b_weak, dt, weak);
}

void api_result_type(int n, const rt_aval *avals, cj_dtype *dtype, int *weak) {
    cj_dtype dt = avals[0].dtype;
    int w = avals[0].weak;
    for (int i = 1; i < n; i++) api_join_types(dt, w, avals[i].dtype, avals[i].weak, &dt, &w);
    *dtype = dt;
    *weak = w;
}

cj_ctx *api_ctx_of(int n, const cj_val *v) {
    cj_ctx *ctx = NULL;
    for (int i = 0; i < n && !ctx; i++) ctx = v[i].ctx;
    /* an operand without a context next to ones with: say so in this one */
    for (int i = 0; i < n && ctx; i++)
        if (!v[i].ctx)
            core_error(ctx, CJ_ERR_ARG,
                       "operand %d is an error value without a context (made by a call that had none to record its "
                       "error in: see cj_error_message(NULL))",
                       i);
    return ctx;
}

const rt_aval *api_aval(cj_val v, const char *op) {
    core_value *cv = core_get(v, op);
    return cv ? &cv->aval : NULL;
}

cj_val api_convert(cj_val x, cj_dtype dtype, int weak) {
    const rt_aval *a = api_aval(x, "convert_element_type");
    if (!a) return api_err(x.ctx);
    if (a->dtype == dtype && !a->weak == !weak) return x;
    prim_params p = prim_params_zero();
    p.dtype = dtype;
    p.weak = weak;
    return core_bind(x.ctx, PRIM_CONVERT, &p, 1, &x);
}

int api_broadcast_shapes(cj_ctx *ctx, const char *op, int n, const rt_aval *avals, int *rank,
                         int64_t *dims) {
    int r = 0;
    for (int i = 0; i < n; i++)
        if (avals[i].rank > r) r = avals[i].rank;
    for (int d = 0; d < r; d++) dims[d] = 1;
    for (int i = 0; i < n; i++) {
        int off = r - avals[i].rank;
        for (int d = 0; d < avals[i].rank; d++) {
            int64_t s = avals[i].dims[d];
            int64_t *t = &dims[off + d];
            if (s == *t || s == 1) continue;
            if (*t == 1) {
                *t = s;
                continue;
            }
            char buf[512];
            size_t len = 0;
            for (int j = 0; j < n && len < sizeof buf; j++) {
                if (j) len += (size_t)snprintf(buf + len, sizeof buf - len, " and ");
                if (len < sizeof buf) len += (size_t)rt_aval_str(&avals[j], buf + len, sizeof buf - len);
            }
            return core_error(ctx, CJ_ERR_SHAPE, "%s: shapes %s do not broadcast", op, buf);
        }
    }
    *rank = r;
    return 0;
}

cj_val api_broadcast_to(cj_val x, int rank, const int64_t *dims) {
    const rt_aval *a = api_aval(x, "broadcast_to");
    if (!a) return api_err(x.ctx);
    if (a->rank == rank) {
        int same = 1;
        for (int i = 0; i < rank; i++) same &= a->dims[i] == dims[i];
        if (same) return x;
    }
    if (a->rank > rank) {
        char t[96];
        rt_aval_str(a, t, sizeof t);
        core_error(x.ctx, CJ_ERR_SHAPE, "broadcast_to: cannot broadcast %s to rank %d", t, rank);
        return api_err(x.ctx);
    }
    prim_params p = prim_params_zero();
    p.shape.n = rank;
    memcpy(p.shape.v, dims, sizeof(int64_t) * (size_t)rank);
    /* NumPy aligns trailing axes; size-1 axes of x that meet a larger output
     * size are squeezed away first so broadcast_in_dim maps only real axes. */
    int off = rank - a->rank;
    int keep = 0;
    int64_t sq[CJ_MAX_RANK];
    int n_sq = 0;
    for (int i = 0; i < a->rank; i++) {
        if (a->dims[i] == dims[off + i]) p.axes.v[keep++] = off + i;
        else if (a->dims[i] == 1) sq[n_sq++] = i;
        else {
            char t[96], u[160];
            rt_aval_str(a, t, sizeof t);
            rt_dims_str(rank, dims, u, sizeof u);
            core_error(x.ctx, CJ_ERR_SHAPE, "broadcast_to: cannot broadcast %s to shape %s", t, u);
            return api_err(x.ctx);
        }
    }
    p.axes.n = keep;
    cj_val src = x;
    if (n_sq) {
        prim_params q = prim_params_zero();
        q.axes.n = n_sq;
        memcpy(q.axes.v, sq, sizeof(int64_t) * (size_t)n_sq);
        src = core_bind(x.ctx, PRIM_SQUEEZE, &q, 1, &x);
    }
    return core_bind(x.ctx, PRIM_BROADCAST_IN_DIM, &p, 1, &src);
}

cj_val api_elementwise(prim_id prim, int n, const cj_val *in, int promote) {
    cj_ctx *ctx = api_ctx_of(n, in);
    if (!ctx) return api_no_ctx(prim_names[prim], API_NO_OPERAND_CTX);
    if (ctx->err) return api_err(ctx);
    rt_aval avals[4];
    for (int i = 0; i < n; i++) {
        const rt_aval *a = api_aval(in[i], prim_names[prim]);
        if (!a) return api_err(ctx);
        avals[i] = *a;
    }
    cj_val args[4];
    for (int i = 0; i < n; i++) args[i] = in[i];
    if (promote) {
        /* select_n's predicate (operand 0) does not take part in promotion */
        int first = prim == PRIM_SELECT ? 1 : 0;
        cj_dtype dt;
        int weak;
        api_result_type(n - first, avals + first, &dt, &weak);
        /* Only a dtype change needs a convert: an operand that differs
         * from the result just in weak type (x_f32 * 2.0) goes in as it is,
         * as in JAX, and the primitive's result is weak only if all are. */
        for (int i = first; i < n; i++) {
            if (avals[i].dtype == dt) continue;
            args[i] = api_convert(in[i], dt, weak);
            avals[i].dtype = dt;
            avals[i].weak = weak;
        }
    }
    int rank;
    int64_t dims[CJ_MAX_RANK];
    if (api_broadcast_shapes(ctx, prim_names[prim], n, avals, &rank, dims) != 0) return api_err(ctx);
    for (int i = 0; i < n; i++)
        if (avals[i].rank != 0) args[i] = api_broadcast_to(args[i], rank, dims);
    /* all rank 0 but the result is not: impossible (result rank is max) */
    prim_params p = prim_params_zero();
    return core_bind(ctx, prim, &p, n, args);
}

/* jnp's to_inexact_dtype: a float stays itself, i64 and u64 become f64
 * (so (2^40 + 1) / 1 keeps its last bit), bool and narrower integers the
 * default float f32. */
cj_dtype api_inexact_dtype(cj_dtype dt) {
    if (rt_is_float(dt)) return dt;
    return dt == CJ_I64 || dt == CJ_U64 ? CJ_F64 : CJ_F32;
}

cj_val api_float_unary(prim_id prim, cj_val x) {
    const rt_aval *a = api_aval(x, prim_names[prim]);
    if (!a) return api_err(x.ctx);
    if (!rt_is_float(a->dtype)) x = api_convert(x, api_inexact_dtype(a->dtype), a->weak);
    prim_params p = prim_params_zero();
    return core_bind(x.ctx, prim, &p, 1, &x);
}

int api_axis(cj_ctx *ctx, const char *op, int64_t axis, int rank, int64_t *out) {
    if (axis < -rank || axis >= rank || (rank == 0 && axis != 0 && axis != -1) || rank == 0) {
        if (rank == 0)
            return core_error(ctx, CJ_ERR_AXIS, "%s: axis %lld is out of range for a rank-0 array", op,
                              (long long)axis);
        return core_error(ctx, CJ_ERR_AXIS, "%s: axis %lld is out of range for rank %d", op,
                          (long long)axis, rank);
    }
    *out = axis < 0 ? axis + rank : axis;
    return 0;
}

int api_axes(cj_ctx *ctx, const char *op, int n, const int64_t *axes, int rank, int64_t *out) {
    if (n < 0 || !axes) {
        for (int i = 0; i < rank; i++) out[i] = i;
        return rank;
    }
    if (n > rank)
        return core_error(ctx, CJ_ERR_AXIS, "%s: %d axes given for rank %d", op, n, rank);
    int seen = 0;
    for (int i = 0; i < n; i++) {
        int64_t a;
        if (api_axis(ctx, op, axes[i], rank, &a) != 0) return -1;
        if (seen & (1 << a))
            return core_error(ctx, CJ_ERR_AXIS, "%s: axis %lld is repeated", op, (long long)axes[i]);
        seen |= 1 << a;
    }
    int k = 0;
    for (int i = 0; i < rank; i++)
        if (seen & (1 << i)) out[k++] = i;
    return k;
}
