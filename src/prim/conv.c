/* conv.c — the conv_general_dilated primitive (prim layer; parameters in
 * conv.h, the kernel in src/runtime/conv.c, jvp and transpose in
 * src/autodiff/rules_conv.c, the public functions in src/api/conv.c).
 *
 * lax.conv_general_dilated: dimension numbers name each operand's batch /
 * feature / spatial axes (any permutation), with window strides, explicit
 * (lo, hi) padding, lhs and rhs dilation, feature_group_count and
 * batch_group_count, over any number of spatial dimensions. The primitive
 * is strict (equal f32, f64, f16 or bf16 dtypes; f16/bf16 operands are
 * widened to f32 copies, convolved by the f32 kernel — im2col + sgemm —
 * and the result rounded to the narrow type once, as XLA's CPU backend
 * computes them in f32; with preferred_element_type f32 not rounded at
 * all). Its impl copies an operand into the
 * canonical layout only when its spec is not already [batch, feature,
 * spatial...] in order, and the result likewise; an NHWC lhs and result
 * without groups run in the kernel's channels-last layouts instead, with
 * no copy but the kernel's when it is not HWIO. Under jit it is a SINGLE
 * kernel running this impl on whole buffers (LOWER_OPAQUE), so the
 * interpreter and generated code compute the same bits as eager.
 * vmap folds the batch axis into the batch, feature or group dimensions as
 * JAX's batching rule does: one convolution, never a loop. */
#include <string.h>

#include "../runtime/conv.h"
#include "batching.h"
#include "conv.h"

/* ---- abstract evaluation ---------------------------------------------- */

static int is_perm(const prim_ivec *v, int rank) {
    if (v->n != rank) return 0;
    unsigned seen = 0;
    for (int i = 0; i < rank; i++) {
        if (v->v[i] < 0 || v->v[i] >= rank || (seen >> v->v[i] & 1u)) return 0;
        seen |= 1u << v->v[i];
    }
    return 1;
}

static int conv_abstract_eval(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const rt_aval *in,
                              rt_aval *out) {
    (void)n_in;
    const rt_aval *l = &in[0], *r = &in[1];
    char lt[96], rt[96];
    rt_aval_str(l, lt, sizeof lt);
    rt_aval_str(r, rt, sizeof rt);
    if (l->dtype != r->dtype)
        return prim_error(ctx, CJ_ERR_DTYPE, prim, "operand dtypes must be equal, got %s and %s", lt, rt);
    if (!rt_is_float(l->dtype))
        return prim_error(ctx, CJ_ERR_DTYPE, prim, "operands must be f32, f64, f16 or bf16, got %s and %s", lt, rt);
    /* preferred_element_type: the operands' dtype, or f32 for f16/bf16
     * operands (the f32 sums unrounded, as lax allows and XLA on CPU
     * computes them) */
    int narrow = l->dtype == CJ_F16 || l->dtype == CJ_BF16;
    if (p->dtype != l->dtype && !(narrow && p->dtype == CJ_F32))
        return prim_error(ctx, CJ_ERR_DTYPE, prim,
                          "preferred_element_type %s is not taken for operands %s (the operands' dtype, or f32 for "
                          "f16/bf16 operands)",
                          rt_dtype_valid(p->dtype) ? rt_dtypes[p->dtype].name : "?", lt);
    if (l->rank < 2 || l->rank != r->rank)
        return prim_error(ctx, CJ_ERR_SHAPE, prim,
                          "lhs %s and rhs %s must have the same rank, at least 2 (batch, feature, spatial...)", lt, rt);
    int rank = l->rank, nsp = rank - 2;
    if (!is_perm(&CONV_LHS_SPEC(p), rank) || !is_perm(&CONV_RHS_SPEC(p), rank) || !is_perm(&CONV_OUT_SPEC(p), rank))
        return prim_error(ctx, CJ_ERR_ARG, prim, "dimension numbers must each be a permutation of the %d axes of %s",
                          rank, lt);
    const prim_ivec *lists[5] = {&CONV_STRIDES(p), &p->lo, &p->hi, &CONV_LHS_DIL(p), &CONV_RHS_DIL(p)};
    const char *names[5] = {"window_strides", "padding lo", "padding hi", "lhs_dilation", "rhs_dilation"};
    for (int i = 0; i < 5; i++) {
        if (lists[i]->n != nsp)
            return prim_error(ctx, CJ_ERR_ARG, prim, "%s has %d entries, but %s has %d spatial dimensions", names[i],
                              lists[i]->n, lt, nsp);
        if (i == 1 || i == 2) continue;
        for (int k = 0; k < nsp; k++)
            if (lists[i]->v[k] < 1)
                return prim_error(ctx, CJ_ERR_ARG, prim, "%s must be positive, got %lld", names[i],
                                  (long long)lists[i]->v[k]);
    }
    int64_t G = CONV_GROUPS(p);
    int B = CONV_BATCH_GROUPS(p);
    if (G < 1 || B < 1)
        return prim_error(ctx, CJ_ERR_ARG, prim, "feature_group_count %lld and batch_group_count %d must be positive",
                          (long long)G, B);
    if (G > 1 && B > 1)
        return prim_error(ctx, CJ_ERR_ARG, prim,
                          "at most one of feature_group_count (%lld) and batch_group_count (%d) may exceed 1",
                          (long long)G, B);
    int64_t N = l->dims[CONV_LHS_SPEC(p).v[0]], C = l->dims[CONV_LHS_SPEC(p).v[1]];
    int64_t O = r->dims[CONV_RHS_SPEC(p).v[0]], I = r->dims[CONV_RHS_SPEC(p).v[1]];
    if (C % G != 0)
        return prim_error(ctx, CJ_ERR_SHAPE, prim,
                          "feature_group_count %lld must divide the lhs feature dimension (size %lld) of %s",
                          (long long)G, (long long)C, lt);
    if (C / G != I)
        return prim_error(ctx, CJ_ERR_SHAPE, prim,
                          "lhs feature dimension (size %lld) of %s must equal rhs input feature dimension (size "
                          "%lld) of %s times feature_group_count %lld",
                          (long long)C, lt, (long long)I, rt, (long long)G);
    if (O % G != 0)
        return prim_error(ctx, CJ_ERR_SHAPE, prim,
                          "feature_group_count %lld must divide the rhs output feature dimension (size %lld) of %s",
                          (long long)G, (long long)O, rt);
    if (N % B != 0 || O % B != 0)
        return prim_error(ctx, CJ_ERR_SHAPE, prim,
                          "batch_group_count %d must divide the lhs batch dimension (size %lld) of %s and the rhs "
                          "output feature dimension (size %lld) of %s",
                          B, (long long)N, lt, (long long)O, rt);
    out->dtype = p->dtype;
    out->weak = l->weak && r->weak && p->dtype == l->dtype;
    out->rank = rank;
    out->dims[CONV_OUT_SPEC(p).v[0]] = N / B;
    out->dims[CONV_OUT_SPEC(p).v[1]] = O;
    for (int k = 0; k < nsp; k++) {
        int64_t in_d = conv_dilate(l->dims[CONV_LHS_SPEC(p).v[2 + k]], CONV_LHS_DIL(p).v[k]);
        int64_t win = conv_dilate(r->dims[CONV_RHS_SPEC(p).v[2 + k]], CONV_RHS_DIL(p).v[k]);
        int64_t padded = in_d + p->lo.v[k] + p->hi.v[k];
        int64_t o = padded < win ? 0 : (padded - win) / CONV_STRIDES(p).v[k] + 1;
        out->dims[CONV_OUT_SPEC(p).v[2 + k]] = o;
    }
    return 0;
}

static size_t put(char *buf, size_t size, size_t at, const char *fmt, long long v) {
    return at + (size_t)snprintf(buf + (at < size ? at : size), at < size ? size - at : 0, fmt, v);
}

static size_t put_tuple(char *buf, size_t size, size_t at, const char *name, const prim_ivec *v) {
    at += (size_t)snprintf(buf + (at < size ? at : size), at < size ? size - at : 0, "%s(", name);
    for (int i = 0; i < v->n; i++) at = put(buf, size, at, i ? ", %lld" : "%lld", (long long)v->v[i]);
    return at + (size_t)snprintf(buf + (at < size ? at : size), at < size ? size - at : 0, v->n == 1 ? ",)" : ")");
}

/* As JAX prints the equation's parameters. */
static int conv_print_params(const prim_params *p, char *buf, size_t size) {
    size_t at = put_tuple(buf, size, 0, "window_strides=", &CONV_STRIDES(p));
    at = put(buf, size, at, " padding=(", 0);
    for (int i = 0; i < p->lo.n; i++) {
        at = put(buf, size, at, i ? ", (%lld" : "(%lld", (long long)p->lo.v[i]);
        at = put(buf, size, at, ", %lld)", (long long)p->hi.v[i]);
    }
    at = put(buf, size, at, p->lo.n == 1 ? ",)" : ")", 0);
    at = put_tuple(buf, size, at, " lhs_dilation=", &CONV_LHS_DIL(p));
    at = put_tuple(buf, size, at, " rhs_dilation=", &CONV_RHS_DIL(p));
    at = put_tuple(buf, size, at, " dimension_numbers=ConvDimensionNumbers(lhs_spec=", &CONV_LHS_SPEC(p));
    at = put_tuple(buf, size, at, ", rhs_spec=", &CONV_RHS_SPEC(p));
    at = put_tuple(buf, size, at, ", out_spec=", &CONV_OUT_SPEC(p));
    at = put(buf, size, at, ") feature_group_count=%lld", (long long)CONV_GROUPS(p));
    at = put(buf, size, at, " batch_group_count=%lld", (long long)CONV_BATCH_GROUPS(p));
    at += (size_t)snprintf(buf + (at < size ? at : size), at < size ? size - at : 0,
                           " precision=None preferred_element_type=%s",
                           rt_dtype_valid(p->dtype) ? rt_dtypes[p->dtype].name : "?");
    return (int)at;
}

/* ---- impl ---------------------------------------------------------------- */

static int is_identity(const prim_ivec *v) {
    for (int i = 0; i < v->n; i++)
        if (v->v[i] != i) return 0;
    return 1;
}

/* x in its canonical layout: x's own data, or a permuted copy in *copy. */
static const void *canonical(const rt_array *x, const prim_ivec *spec, rt_mem *m, void **copy, size_t *cap) {
    *copy = NULL;
    if (is_identity(spec)) return x->data;
    *copy = rt_data_alloc(m, rt_aval_nbytes(&x->aval), cap);
    if (*copy) rt_conv_permute(x->data, &x->aval, spec->v, *copy);
    return *copy;
}

/* [batch, spatial..., feature]: NHWC's order of a spec. */
static int is_channels_last(const prim_ivec *v) {
    int r = v->n;
    if (v->v[0] != 0 || v->v[1] != r - 1) return 0;
    for (int i = 2; i < r; i++)
        if (v->v[i] != i - 1) return 0;
    return 1;
}

/* NHWC lhs and result without groups: no permuted copy of either (the
 * kernel, small, is brought into [spatial..., I, O] when it is not HWIO
 * already); rt_conv's channels-last layouts. */
static int conv_channels_last(struct cj_ctx *ctx, prim_id prim, const prim_params *p, const rt_array *l,
                              const rt_array *r, rt_array *out) {
    rt_conv_desc d;
    memset(&d, 0, sizeof d);
    d.channels_last = 1;
    d.dtype = out->aval.dtype;
    d.nsp = l->aval.rank - 2;
    d.n = l->aval.dims[0];
    d.c = l->aval.dims[l->aval.rank - 1];
    d.o = r->aval.dims[CONV_RHS_SPEC(p).v[0]];
    d.i = r->aval.dims[CONV_RHS_SPEC(p).v[1]];
    d.groups = d.batch_groups = 1;
    int64_t order[CJ_MAX_RANK];
    int hwio = 1;
    for (int k = 0; k < d.nsp; k++) {
        d.in[k] = l->aval.dims[1 + k];
        d.k[k] = r->aval.dims[CONV_RHS_SPEC(p).v[2 + k]];
        d.out[k] = out->aval.dims[1 + k];
        d.stride[k] = CONV_STRIDES(p).v[k];
        d.lo[k] = p->lo.v[k];
        d.lhs_dil[k] = CONV_LHS_DIL(p).v[k];
        d.rhs_dil[k] = CONV_RHS_DIL(p).v[k];
        order[k] = CONV_RHS_SPEC(p).v[2 + k];
        hwio &= order[k] == k;
    }
    order[d.nsp] = CONV_RHS_SPEC(p).v[1];
    order[d.nsp + 1] = CONV_RHS_SPEC(p).v[0];
    hwio &= order[d.nsp] == d.nsp && order[d.nsp + 1] == d.nsp + 1;
    void *rc = NULL;
    size_t rcap = 0;
    const void *rhs = r->data;
    if (!hwio) {
        rhs = rc = rt_data_alloc(r->mem, rt_aval_nbytes(&r->aval), &rcap);
        if (rc) rt_conv_permute(r->data, &r->aval, order, rc);
    }
    int status = rhs ? rt_conv(&d, l->data, rhs, out->data, out->mem) : -1;
    if (rc) rt_data_free(r->mem, rc, rcap);
    if (status != 0) {
        char lt[96], rt[96];
        rt_aval_str(&l->aval, lt, sizeof lt);
        rt_aval_str(&r->aval, rt, sizeof rt);
        return prim_error(ctx, CJ_ERR_OOM, prim, "out of memory convolving %s with %s", lt, rt);
    }
    return 0;
}

static int conv_impl_wide(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, rt_array *const *in,
                          rt_array *out) {
    (void)n_in;
    const rt_array *l = in[0], *r = in[1];
    if (out->size == 0) return 0;
    if (CONV_GROUPS(p) == 1 && CONV_BATCH_GROUPS(p) == 1 && is_channels_last(&CONV_LHS_SPEC(p)) &&
        is_channels_last(&CONV_OUT_SPEC(p)))
        return conv_channels_last(ctx, prim, p, l, r, out);
    rt_conv_desc d;
    memset(&d, 0, sizeof d);
    d.dtype = out->aval.dtype;
    d.nsp = l->aval.rank - 2;
    d.n = l->aval.dims[CONV_LHS_SPEC(p).v[0]];
    d.c = l->aval.dims[CONV_LHS_SPEC(p).v[1]];
    d.o = r->aval.dims[CONV_RHS_SPEC(p).v[0]];
    d.i = r->aval.dims[CONV_RHS_SPEC(p).v[1]];
    for (int k = 0; k < d.nsp; k++) {
        d.in[k] = l->aval.dims[CONV_LHS_SPEC(p).v[2 + k]];
        d.k[k] = r->aval.dims[CONV_RHS_SPEC(p).v[2 + k]];
        d.out[k] = out->aval.dims[CONV_OUT_SPEC(p).v[2 + k]];
        d.stride[k] = CONV_STRIDES(p).v[k];
        d.lo[k] = p->lo.v[k];
        d.lhs_dil[k] = CONV_LHS_DIL(p).v[k];
        d.rhs_dil[k] = CONV_RHS_DIL(p).v[k];
    }
    d.groups = CONV_GROUPS(p);
    d.batch_groups = CONV_BATCH_GROUPS(p);
    void *lc, *rc, *oc = NULL;
    size_t lcap = 0, rcap = 0, ocap = 0;
    const void *lhs = canonical(l, &CONV_LHS_SPEC(p), l->mem, &lc, &lcap);
    const void *rhs = lhs ? canonical(r, &CONV_RHS_SPEC(p), r->mem, &rc, &rcap) : (rc = NULL);
    int out_id = is_identity(&CONV_OUT_SPEC(p));
    void *dst = out_id ? out->data : (oc = rt_data_alloc(out->mem, rt_aval_nbytes(&out->aval), &ocap));
    int status = lhs && rhs && dst ? rt_conv(&d, lhs, rhs, dst, out->mem) : -1;
    if (status == 0 && !out_id) {
        /* canonical [N, O, spatial...] → the out_spec layout: the result's
         * axis out_spec[j] is the canonical axis j */
        rt_aval ca = out->aval;
        int64_t order[CJ_MAX_RANK];
        for (int j = 0; j < ca.rank; j++) {
            ca.dims[j] = out->aval.dims[CONV_OUT_SPEC(p).v[j]];
            order[CONV_OUT_SPEC(p).v[j]] = j;
        }
        rt_conv_permute(oc, &ca, order, out->data);
    }
    if (lc) rt_data_free(l->mem, lc, lcap);
    if (rc) rt_data_free(r->mem, rc, rcap);
    if (oc) rt_data_free(out->mem, oc, ocap);
    if (status != 0) {
        char lt[96], rt[96];
        rt_aval_str(&l->aval, lt, sizeof lt);
        rt_aval_str(&r->aval, rt, sizeof rt);
        return prim_error(ctx, CJ_ERR_OOM, prim, "out of memory convolving %s with %s", lt, rt);
    }
    return 0;
}

/* ---- reshape helpers (lax's _reshape_axis_into / _reshape_axis_out_of) -- */

cj_val conv_axis_into(cj_val x, int64_t src, int64_t dst) {
    core_value *v = core_peek(x);
    if (!v) return core_err_val(x.ctx);
    const rt_aval *a = &v->aval;
    int64_t perm[CJ_MAX_RANK], dims[CJ_MAX_RANK];
    int n = 0;
    for (int i = 0; i < a->rank; i++)
        if (i != src) perm[n++] = i;
    for (int i = n; i > dst; i--) perm[i] = perm[i - 1];
    perm[dst] = src;
    int m = 0;
    /* the merged axis: src (major) × the axis after it in perm order */
    for (int i = 0; i < a->rank; i++) {
        if (i == (int)dst) {
            dims[m++] = a->dims[perm[i]] * a->dims[perm[i + 1]];
            i++;
        } else {
            dims[m++] = a->dims[perm[i]];
        }
    }
    return bind_reshape(bind_transpose(x, perm), m, dims);
}

cj_val conv_axis_out_of(cj_val x, int64_t src, int64_t size1) {
    core_value *v = core_peek(x);
    if (!v) return core_err_val(x.ctx);
    const rt_aval *a = &v->aval;
    int64_t dims[CJ_MAX_RANK];
    int m = 0;
    for (int i = 0; i < a->rank; i++) {
        if (i == src) {
            dims[m++] = size1;
            dims[m++] = a->dims[i] / size1;
        } else {
            dims[m++] = a->dims[i];
        }
    }
    return bind_reshape(x, m, dims);
}

/* ---- vmap rule (the cases of JAX's batching rule) -------------------------- */

static int conv_batch(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                      const int64_t *bdim, int64_t size, cj_val *out, int64_t *out_bdim) {
    (void)n_in;
    prim_params q = *p;
    int64_t ls0 = CONV_LHS_SPEC(p).v[0], ls1 = CONV_LHS_SPEC(p).v[1];
    int64_t rs0 = CONV_RHS_SPEC(p).v[0], os0 = CONV_OUT_SPEC(p).v[0], os1 = CONV_OUT_SPEC(p).v[1];
    int64_t lb = bdim[0], rb = bdim[1];
    cj_val lhs = in[0], rhs = in[1], r;
    if (lb != BDIM_NONE && rb != BDIM_NONE) {
        if (CONV_BATCH_GROUPS(p) > 1) {
            lhs = conv_axis_into(lhs, lb, ls0);
            CONV_BATCH_GROUPS(&q) *= (int)size;
        } else {
            lhs = conv_axis_into(lhs, lb, ls1);
            CONV_GROUPS(&q) *= size;
        }
        rhs = conv_axis_into(rhs, rb, rs0);
        r = conv_axis_out_of(core_bind(ctx, prim, &q, 2, (cj_val[]){lhs, rhs}), os1, size);
        *out_bdim = os1;
    } else if (lb != BDIM_NONE) {
        if (CONV_BATCH_GROUPS(p) == 1) {
            lhs = conv_axis_into(lhs, lb, ls0);
        } else {
            int64_t B = CONV_BATCH_GROUPS(p);
            lhs = conv_axis_out_of(lhs, ls0 + (lb <= ls0), B);
            lhs = conv_axis_into(lhs, lb + (ls0 < lb), ls0 + 1);
            lhs = conv_axis_into(lhs, ls0, ls0);
        }
        r = conv_axis_out_of(core_bind(ctx, prim, &q, 2, (cj_val[]){lhs, rhs}), os0, size);
        *out_bdim = os0;
    } else {
        if (CONV_GROUPS(p) == 1 && CONV_BATCH_GROUPS(p) == 1) {
            rhs = conv_axis_into(rhs, rb, rs0);
            r = conv_axis_out_of(core_bind(ctx, prim, &q, 2, (cj_val[]){lhs, rhs}), os1, size);
        } else {
            /* the groups stay outermost in the output features: factor them
             * out, fold the batch into what remains, put them back */
            int64_t g = CONV_GROUPS(p) > 1 ? CONV_GROUPS(p) : CONV_BATCH_GROUPS(p);
            rhs = conv_axis_out_of(rhs, rs0 + (rb <= rs0), g);
            rhs = conv_axis_into(rhs, rb + (rs0 < rb), rs0 + 1);
            rhs = conv_axis_into(rhs, rs0, rs0);
            r = core_bind(ctx, prim, &q, 2, (cj_val[]){lhs, rhs});
            r = conv_axis_out_of(r, os1, g);
            r = conv_axis_out_of(r, os1 + 1, size);
            r = conv_axis_into(r, os1, os1 + 1);
        }
        *out_bdim = os1;
    }
    *out = r;
    return r.slot ? 0 : -1;
}

/* cost_analysis: a multiply and an add per term; each result element sums
 * I·K terms (I the rhs input features, K the window size). */
static double conv_flops(const prim_params *p, const rt_aval *in, const rt_aval *out) {
    double terms = (double)in[1].dims[CONV_RHS_SPEC(p).v[1]];
    for (int k = 2; k < in[1].rank; k++) terms *= (double)in[1].dims[CONV_RHS_SPEC(p).v[k]];
    return 2.0 * terms * (double)rt_aval_size(out);
}

/* f16/bf16: f32 copies of the operands and the result around the f32
 * convolution, one rounding at the end; with preferred_element_type f32
 * the f32 result is the result (no copy of it, no rounding). */
static int conv_impl(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, rt_array *const *in,
                     rt_array *out) {
    cj_dtype dt = in[0]->aval.dtype;
    if (dt != CJ_F16 && dt != CJ_BF16) return conv_impl_wide(ctx, prim, p, n_in, in, out);
    if (out->size == 0) return 0;
    int keep_f32 = out->aval.dtype == CJ_F32;
    rt_array w[3];
    memset(w, 0, sizeof w); /* a failed allocation leaves the later ones NULL for the frees below */
    size_t cap[3] = {0, 0, 0};
    const rt_array *src[3] = {in[0], in[1], out};
    int rc = 0;
    for (int i = 0; i < (keep_f32 ? 2 : 3); i++) {
        w[i].refcount = 1;
        w[i].mem = src[i]->mem;
        w[i].aval = src[i]->aval;
        w[i].aval.dtype = CJ_F32;
        w[i].size = src[i]->size;
        w[i].data = rt_data_alloc(src[i]->mem, rt_aval_nbytes(&w[i].aval), &cap[i]);
        if (!w[i].data) {
            char t[96];
            rt_aval_str(&src[i]->aval, t, sizeof t);
            rc = prim_error(ctx, CJ_ERR_OOM, prim, "out of memory widening %s to f32", t);
            break;
        }
        if (i < 2) rt_convert(dt, src[i]->data, CJ_F32, w[i].data, src[i]->size);
    }
    prim_params q = *p;
    q.dtype = CJ_F32;
    if (rc == 0) {
        rt_array *args[2] = {&w[0], &w[1]};
        rc = conv_impl_wide(ctx, prim, &q, 2, args, keep_f32 ? out : &w[2]);
    }
    if (rc == 0 && !keep_f32) rt_convert(CJ_F32, w[2].data, dt, out->data, out->size);
    for (int i = 0; i < (keep_f32 ? 2 : 3); i++)
        if (w[i].data) rt_data_free(w[i].mem, w[i].data, cap[i]);
    return rc;
}

void prim_register_conv(void) {
    prim_rules[PRIM_CONV_GENERAL_DILATED] = (prim_rule){
        .abstract_eval = conv_abstract_eval,
        .impl = conv_impl,
        .print_params = conv_print_params,
        .lower = {.kind = LOWER_OPAQUE, .cost = {.flops_of = conv_flops}},
        .batch = conv_batch,
        .extra_dtypes = true, /* f16/bf16 too: conv_abstract_eval checks */
    };
}
