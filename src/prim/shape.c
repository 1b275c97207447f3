/* shape.c — the shape and data-movement primitives (prim layer):
 * broadcast_in_dim, reshape, transpose, squeeze, expand_dims, slice,
 * dynamic_slice, dynamic_update_slice, concatenate, pad, rev and iota.
 *
 * Each primitive's rules live together here: abstract_eval (every check of
 * shapes, axes and parameters, with messages in JAX's spelling, so eager,
 * traced and compiled paths fail the same way), the eager kernel, and the
 * text of its parameters in the IR. The kernels only describe which source
 * element lands where — a strided copy handed to shape_kernels.c — because
 * moving data depends on the element size, never on the dtype.
 *
 * Conventions, as lax: operands keep their dtype (no promotion here; the
 * public functions in src/api/shape.c promote first); the result is weakly
 * typed when the data operands are (indices do not count); iota is never
 * weak. The compiler sees all of them as LOWER_DATA_MOVEMENT, and reads
 * how each result element reads its operand from their index maps. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "batching.h"
#include "prim.h"
#include "shape_kernels.h"

/* ---- text for messages ---- */

typedef struct text {
    char s[200];
} text;

static text type_text(const rt_aval *a) {
    text t;
    rt_aval_str(a, t.s, sizeof t.s);
    return t;
}

static text ivec_text(const prim_ivec *v) {
    text t;
    int n = v->n < 0 ? 0 : v->n > CJ_MAX_RANK ? CJ_MAX_RANK : v->n;
    rt_dims_str(n, v->v, t.s, sizeof t.s);
    return t;
}

/* ---- shared checks ---- */

static int check_count(struct cj_ctx *ctx, prim_id prim, const prim_ivec *v, const char *name, int want) {
    if (v->n == want) return 0;
    return prim_error(ctx, CJ_ERR_ARG, prim, "%s needs %d entries, got %d", name, want, v->n);
}

/* A result shape given as a parameter: rank within bounds, sizes >= 0, the
 * element count representable. */
static int check_shape_param(struct cj_ctx *ctx, prim_id prim, const prim_ivec *shape, const char *name) {
    if (shape->n < 0 || shape->n > CJ_MAX_RANK)
        return prim_error(ctx, CJ_ERR_SHAPE, prim, "%s has rank %d, outside 0..%d", name, shape->n, CJ_MAX_RANK);
    rt_shape_status s = rt_shape_check(shape->n, shape->v);
    if (s != RT_SHAPE_OK)
        return prim_error(ctx, CJ_ERR_SHAPE, prim, "%s %s %s", name, ivec_text(shape).s, rt_shape_status_text(s));
    return 0;
}

/* Axes in [0, rank), none repeated. */
static int check_axes(struct cj_ctx *ctx, prim_id prim, const prim_ivec *axes, const char *name,
                      const rt_aval *x) {
    if (axes->n < 0 || axes->n > x->rank)
        return prim_error(ctx, CJ_ERR_AXIS, prim, "%s has %d entries for %s", name, axes->n, type_text(x).s);
    unsigned seen = 0;
    for (int i = 0; i < axes->n; i++) {
        int64_t a = axes->v[i];
        if (a < 0 || a >= x->rank)
            return prim_error(ctx, CJ_ERR_AXIS, prim, "%s %s: axis %lld is out of range for %s", name,
                              ivec_text(axes).s, (long long)a, type_text(x).s);
        if (seen & (1u << a))
            return prim_error(ctx, CJ_ERR_AXIS, prim, "%s %s repeats axis %lld", name, ivec_text(axes).s,
                              (long long)a);
        seen |= 1u << a;
    }
    return 0;
}

static int is_rank0_int(const rt_aval *a) { return a->rank == 0 && rt_is_int(a->dtype); }

/* ---- abstract evaluation ---- */

static int eval_broadcast_in_dim(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in,
                                 const rt_aval *in, rt_aval *out) {
    (void)n_in;
    const rt_aval *x = &in[0];
    if (check_shape_param(ctx, prim, &p->shape, "shape") != 0) return -1;
    if (p->axes.n != x->rank)
        return prim_error(ctx, CJ_ERR_SHAPE, prim,
                          "broadcast_dimensions %s must have one entry per axis of the operand %s",
                          ivec_text(&p->axes).s, type_text(x).s);
    for (int i = 0; i < x->rank; i++) {
        int64_t a = p->axes.v[i];
        if (a < 0 || a >= p->shape.n)
            return prim_error(ctx, CJ_ERR_AXIS, prim, "broadcast_dimensions %s: axis %lld is out of range for shape %s",
                              ivec_text(&p->axes).s, (long long)a, ivec_text(&p->shape).s);
        if (i > 0 && a <= p->axes.v[i - 1])
            return prim_error(ctx, CJ_ERR_AXIS, prim, "broadcast_dimensions %s must be strictly increasing",
                              ivec_text(&p->axes).s);
    }
    for (int i = 0; i < x->rank; i++) {
        int64_t a = p->axes.v[i];
        if (x->dims[i] != p->shape.v[a] && x->dims[i] != 1)
            return prim_error(ctx, CJ_ERR_SHAPE, prim,
                              "operand %s does not broadcast to shape %s with broadcast_dimensions %s: operand "
                              "axis %d has size %lld, output axis %lld has size %lld (sizes must be equal or 1)",
                              type_text(x).s, ivec_text(&p->shape).s, ivec_text(&p->axes).s, i,
                              (long long)x->dims[i], (long long)a, (long long)p->shape.v[a]);
    }
    *out = rt_aval_make(x->dtype, p->shape.n, p->shape.v);
    out->weak = x->weak;
    return 0;
}

static int eval_reshape(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const rt_aval *in,
                        rt_aval *out) {
    (void)n_in;
    const rt_aval *x = &in[0];
    if (check_shape_param(ctx, prim, &p->shape, "new_sizes") != 0) return -1;
    int64_t want = 1;
    for (int i = 0; i < p->shape.n; i++) want *= p->shape.v[i];
    if (want != rt_aval_size(x))
        return prim_error(ctx, CJ_ERR_SHAPE, prim, "cannot reshape %s (%lld elements) to %s (%lld elements)",
                          type_text(x).s, (long long)rt_aval_size(x), ivec_text(&p->shape).s, (long long)want);
    *out = rt_aval_make(x->dtype, p->shape.n, p->shape.v);
    out->weak = x->weak;
    return 0;
}

static int eval_transpose(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const rt_aval *in,
                          rt_aval *out) {
    (void)n_in;
    const rt_aval *x = &in[0];
    if (p->axes.n != x->rank)
        return prim_error(ctx, CJ_ERR_AXIS, prim, "permutation %s is not a permutation of the %d axes of %s",
                          ivec_text(&p->axes).s, x->rank, type_text(x).s);
    if (check_axes(ctx, prim, &p->axes, "permutation", x) != 0) return -1;
    *out = *x;
    for (int i = 0; i < x->rank; i++) out->dims[i] = x->dims[p->axes.v[i]];
    return 0;
}

static int eval_squeeze(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const rt_aval *in,
                        rt_aval *out) {
    (void)n_in;
    const rt_aval *x = &in[0];
    if (check_axes(ctx, prim, &p->axes, "dimensions", x) != 0) return -1;
    unsigned drop = 0;
    for (int i = 0; i < p->axes.n; i++) {
        int64_t a = p->axes.v[i];
        if (x->dims[a] != 1)
            return prim_error(ctx, CJ_ERR_SHAPE, prim, "cannot squeeze axis %lld of %s: its size is %lld, not 1",
                              (long long)a, type_text(x).s, (long long)x->dims[a]);
        drop |= 1u << a;
    }
    *out = rt_aval_make(x->dtype, 0, NULL);
    out->weak = x->weak;
    for (int i = 0; i < x->rank; i++)
        if (!(drop & (1u << i))) out->dims[out->rank++] = x->dims[i];
    return 0;
}

static int eval_expand_dims(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const rt_aval *in,
                            rt_aval *out) {
    (void)n_in;
    const rt_aval *x = &in[0];
    if (check_count(ctx, prim, &p->axes, "dimensions", 1) != 0) return -1;
    if (x->rank == CJ_MAX_RANK)
        return prim_error(ctx, CJ_ERR_SHAPE, prim, "%s already has the maximum rank %d", type_text(x).s,
                          CJ_MAX_RANK);
    int64_t at = p->axes.v[0];
    if (at < 0 || at > x->rank)
        return prim_error(ctx, CJ_ERR_AXIS, prim, "position %lld is out of range for a new axis of %s (0..%d)",
                          (long long)at, type_text(x).s, x->rank);
    *out = *x;
    out->rank = x->rank + 1;
    for (int i = 0, j = 0; i < out->rank; i++) out->dims[i] = i == at ? 1 : x->dims[j++];
    return 0;
}

static int eval_slice(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const rt_aval *in,
                      rt_aval *out) {
    (void)n_in;
    const rt_aval *x = &in[0];
    if (check_count(ctx, prim, &p->lo, "start_indices", x->rank) != 0 ||
        check_count(ctx, prim, &p->hi, "limit_indices", x->rank) != 0)
        return -1;
    if (p->step.n != 0 && check_count(ctx, prim, &p->step, "strides", x->rank) != 0) return -1;
    *out = *x;
    for (int d = 0; d < x->rank; d++) {
        int64_t lo = p->lo.v[d], hi = p->hi.v[d], step = p->step.n ? p->step.v[d] : 1;
        if (lo < 0 || lo > hi || hi > x->dims[d])
            return prim_error(ctx, CJ_ERR_SHAPE, prim,
                              "start_indices %s and limit_indices %s do not fit %s: axis %d needs 0 <= start <= "
                              "limit <= %lld, got start %lld limit %lld",
                              ivec_text(&p->lo).s, ivec_text(&p->hi).s, type_text(x).s, d, (long long)x->dims[d],
                              (long long)lo, (long long)hi);
        if (step < 1)
            return prim_error(ctx, CJ_ERR_ARG, prim, "strides %s must be positive", ivec_text(&p->step).s);
        out->dims[d] = hi == lo ? 0 : 1 + (hi - lo - 1) / step;
    }
    return 0;
}

/* Start-index operands: one rank-0 integer per axis of x, from `first`. */
static int check_indices(struct cj_ctx *ctx, prim_id prim, const rt_aval *x, int n_in, const rt_aval *in,
                         int first) {
    if (n_in != first + x->rank)
        return prim_error(ctx, CJ_ERR_ARG, prim, "%s needs %d start indices, got %d", type_text(x).s, x->rank,
                          n_in - first);
    for (int i = first; i < n_in; i++)
        if (!is_rank0_int(&in[i]))
            return prim_error(ctx, CJ_ERR_DTYPE, prim, "start index %d must be a rank-0 integer, got %s", i - first,
                              type_text(&in[i]).s);
    return 0;
}

static int eval_dynamic_slice(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const rt_aval *in,
                              rt_aval *out) {
    if (n_in < 1) return prim_error(ctx, CJ_ERR_ARG, prim, "needs an operand");
    const rt_aval *x = &in[0];
    if (check_indices(ctx, prim, x, n_in, in, 1) != 0) return -1;
    if (check_count(ctx, prim, &p->shape, "slice_sizes", x->rank) != 0) return -1;
    for (int d = 0; d < x->rank; d++)
        if (p->shape.v[d] < 0 || p->shape.v[d] > x->dims[d])
            return prim_error(ctx, CJ_ERR_SHAPE, prim,
                              "slice_sizes %s do not fit %s: axis %d needs 0 <= size <= %lld, got %lld",
                              ivec_text(&p->shape).s, type_text(x).s, d, (long long)x->dims[d],
                              (long long)p->shape.v[d]);
    *out = rt_aval_make(x->dtype, x->rank, p->shape.v);
    out->weak = x->weak;
    return 0;
}

static int eval_dynamic_update_slice(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in,
                                     const rt_aval *in, rt_aval *out) {
    (void)p;
    if (n_in < 2) return prim_error(ctx, CJ_ERR_ARG, prim, "needs an operand and an update, got %d operands", n_in);
    const rt_aval *x = &in[0], *u = &in[1];
    if (u->dtype != x->dtype)
        return prim_error(ctx, CJ_ERR_DTYPE, prim, "update %s must have the dtype of the operand %s",
                          type_text(u).s, type_text(x).s);
    if (u->rank != x->rank)
        return prim_error(ctx, CJ_ERR_SHAPE, prim, "update %s must have the rank of the operand %s", type_text(u).s,
                          type_text(x).s);
    for (int d = 0; d < x->rank; d++)
        if (u->dims[d] > x->dims[d])
            return prim_error(ctx, CJ_ERR_SHAPE, prim, "update %s does not fit in the operand %s on axis %d",
                              type_text(u).s, type_text(x).s, d);
    if (check_indices(ctx, prim, x, n_in, in, 2) != 0) return -1;
    *out = *x;
    return 0;
}

static int eval_concatenate(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const rt_aval *in,
                            rt_aval *out) {
    if (n_in < 1) return prim_error(ctx, CJ_ERR_ARG, prim, "needs at least one operand");
    if (check_count(ctx, prim, &p->axes, "dimension", 1) != 0) return -1;
    const rt_aval *x = &in[0];
    int64_t axis = p->axes.v[0];
    if (x->rank == 0) return prim_error(ctx, CJ_ERR_SHAPE, prim, "rank-0 arrays cannot be concatenated");
    if (axis < 0 || axis >= x->rank)
        return prim_error(ctx, CJ_ERR_AXIS, prim, "dimension %lld is out of range for %s", (long long)axis,
                          type_text(x).s);
    *out = *x;
    for (int i = 1; i < n_in; i++) {
        const rt_aval *y = &in[i];
        if (y->dtype != x->dtype)
            return prim_error(ctx, CJ_ERR_DTYPE, prim, "operand %d %s and operand 0 %s must have equal dtypes", i,
                              type_text(y).s, type_text(x).s);
        if (y->rank != x->rank)
            return prim_error(ctx, CJ_ERR_SHAPE, prim, "operand %d %s and operand 0 %s must have equal ranks", i,
                              type_text(y).s, type_text(x).s);
        for (int d = 0; d < x->rank; d++)
            if (d != axis && y->dims[d] != x->dims[d])
                return prim_error(ctx, CJ_ERR_SHAPE, prim, "operand %d %s does not match %s except on axis %lld", i,
                                  type_text(y).s, type_text(x).s, (long long)axis);
        if (out->dims[axis] > INT64_MAX / 16 - y->dims[axis])
            return prim_error(ctx, CJ_ERR_SHAPE, prim, "the result is too large");
        out->dims[axis] += y->dims[axis];
        out->weak = out->weak && y->weak;
    }
    return 0;
}

static int eval_pad(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const rt_aval *in,
                    rt_aval *out) {
    (void)n_in;
    const rt_aval *x = &in[0], *v = &in[1];
    if (v->rank != 0)
        return prim_error(ctx, CJ_ERR_SHAPE, prim, "the padding value must be a scalar, got %s", type_text(v).s);
    if (v->dtype != x->dtype)
        return prim_error(ctx, CJ_ERR_DTYPE, prim, "the padding value %s must have the dtype of the operand %s",
                          type_text(v).s, type_text(x).s);
    if (check_count(ctx, prim, &p->lo, "low padding", x->rank) != 0 ||
        check_count(ctx, prim, &p->hi, "high padding", x->rank) != 0)
        return -1;
    if (p->step.n != 0 && check_count(ctx, prim, &p->step, "interior padding", x->rank) != 0) return -1;
    *out = *x;
    out->weak = x->weak && v->weak;
    int64_t total = 1;
    for (int d = 0; d < x->rank; d++) {
        int64_t lo = p->lo.v[d], hi = p->hi.v[d], in_ = p->step.n ? p->step.v[d] : 0, n = x->dims[d];
        if (in_ < 0)
            return prim_error(ctx, CJ_ERR_ARG, prim, "interior padding %lld on axis %d must be >= 0",
                              (long long)in_, d);
        if (lo < -(INT64_MAX / 16) || hi < -(INT64_MAX / 16))
            return prim_error(ctx, CJ_ERR_SHAPE, prim, "padding (%lld, %lld) of axis %d is too large",
                              (long long)lo, (long long)hi, d);
        int64_t gaps = n > 0 ? n - 1 : 0, size;
        if (__builtin_mul_overflow(gaps, in_, &size) || __builtin_add_overflow(size, n, &size) ||
            __builtin_add_overflow(size, lo, &size) || __builtin_add_overflow(size, hi, &size) ||
            size > INT64_MAX / 16)
            return prim_error(ctx, CJ_ERR_SHAPE, prim, "padding %s %s of %s gives a result too large",
                              ivec_text(&p->lo).s, ivec_text(&p->hi).s, type_text(x).s);
        if (size < 0)
            return prim_error(ctx, CJ_ERR_SHAPE, prim,
                              "padding (%lld, %lld, %lld) of axis %d of %s leaves a negative size %lld",
                              (long long)lo, (long long)hi, (long long)in_, d, type_text(x).s, (long long)size);
        if (size && total > INT64_MAX / 16 / size)
            return prim_error(ctx, CJ_ERR_SHAPE, prim, "padding %s gives a result too large", type_text(x).s);
        total *= size;
        out->dims[d] = size;
    }
    return 0;
}

static int eval_rev(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const rt_aval *in,
                    rt_aval *out) {
    (void)n_in;
    if (check_axes(ctx, prim, &p->axes, "dimensions", &in[0]) != 0) return -1;
    *out = in[0];
    return 0;
}

static int eval_iota(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const rt_aval *in,
                     rt_aval *out) {
    (void)n_in;
    (void)in;
    if (!rt_dtype_valid((int)p->dtype) || p->dtype == CJ_BOOL)
        return prim_error(ctx, CJ_ERR_DTYPE, prim, "dtype %s is not numeric",
                          rt_dtype_valid((int)p->dtype) ? rt_dtypes[p->dtype].name : "(invalid)");
    /* generated code writes an iota's index as a C cast, which for f16's
     * and bf16's bits would be wrong: bind_iota and cj_iota make those an
     * f32 iota and a convert_element_type */
    if (rt_is_narrow_float(p->dtype))
        return prim_error(ctx, CJ_ERR_DTYPE, prim, "dtype %s is not taken (bind an f32 iota and convert it)",
                          rt_dtypes[p->dtype].name);
    if (check_shape_param(ctx, prim, &p->shape, "shape") != 0) return -1;
    if (check_count(ctx, prim, &p->axes, "dimension", 1) != 0) return -1;
    if (p->axes.v[0] < 0 || p->axes.v[0] >= p->shape.n)
        return prim_error(ctx, CJ_ERR_AXIS, prim, "dimension %lld is out of range for shape %s",
                          (long long)p->axes.v[0], ivec_text(&p->shape).s);
    *out = rt_aval_make(p->dtype, p->shape.n, p->shape.v);
    return 0;
}

/* ---- eager kernels ---- */

/* A copy that writes all of `out` in row-major order; the caller fills in
 * the source side. */
static sk_copy copy_into(rt_array *out) {
    sk_copy c;
    memset(&c, 0, sizeof c);
    c.rank = out->aval.rank;
    memcpy(c.dims, out->aval.dims, sizeof c.dims);
    rt_strides(&out->aval, c.dst_stride);
    c.dst = out->data;
    c.elem_size = rt_dtypes[out->aval.dtype].size;
    return c;
}

/* The element at offset `elems` from the start of an array's data. */
static const void *elem_at(const rt_array *a, int64_t elems) {
    return (const char *)a->data + elems * (int64_t)rt_dtypes[a->aval.dtype].size;
}

/* out = x's elements in the same order: reshape, squeeze, expand_dims. */
static int impl_same_order(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, rt_array *const *in,
                           rt_array *out) {
    (void)ctx, (void)prim, (void)p, (void)n_in;
    sk_copy c = {.rank = 1, .dims = {out->size}, .src_stride = {1}, .dst_stride = {1}};
    c.src = in[0]->data;
    c.dst = out->data;
    c.elem_size = rt_dtypes[out->aval.dtype].size;
    sk_copy_run(&c);
    return 0;
}

static int impl_broadcast_in_dim(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in,
                                 rt_array *const *in, rt_array *out) {
    (void)ctx, (void)prim, (void)n_in;
    const rt_array *x = in[0];
    sk_copy c = copy_into(out);
    int64_t xs[CJ_MAX_RANK];
    rt_strides(&x->aval, xs);
    /* output axes that no operand axis maps to, or that a size-1 operand
     * axis is stretched along, repeat the same source element */
    for (int i = 0; i < x->aval.rank; i++)
        if (x->aval.dims[i] == out->aval.dims[p->axes.v[i]]) c.src_stride[p->axes.v[i]] = xs[i];
    c.src = x->data;
    sk_copy_run(&c);
    return 0;
}

static int impl_transpose(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, rt_array *const *in,
                          rt_array *out) {
    (void)ctx, (void)prim, (void)n_in;
    sk_copy c = copy_into(out);
    int64_t xs[CJ_MAX_RANK];
    rt_strides(&in[0]->aval, xs);
    for (int i = 0; i < c.rank; i++) c.src_stride[i] = xs[p->axes.v[i]];
    c.src = in[0]->data;
    sk_copy_run(&c);
    return 0;
}

static int impl_slice(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, rt_array *const *in,
                      rt_array *out) {
    (void)ctx, (void)prim, (void)n_in;
    if (out->size == 0) return 0;
    sk_copy c = copy_into(out);
    int64_t xs[CJ_MAX_RANK], base = 0;
    rt_strides(&in[0]->aval, xs);
    for (int d = 0; d < c.rank; d++) {
        base += p->lo.v[d] * xs[d];
        /* a stride past the limit picks one element; step * xs[d] could overflow */
        c.src_stride[d] = c.dims[d] > 1 ? (p->step.n ? p->step.v[d] : 1) * xs[d] : 0;
    }
    c.src = elem_at(in[0], base);
    sk_copy_run(&c);
    return 0;
}

static int impl_rev(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, rt_array *const *in,
                    rt_array *out) {
    (void)ctx, (void)prim, (void)n_in;
    if (out->size == 0) return 0;
    sk_copy c = copy_into(out);
    int64_t base = 0;
    rt_strides(&in[0]->aval, c.src_stride);
    for (int i = 0; i < p->axes.n; i++) {
        int64_t a = p->axes.v[i];
        base += (c.dims[a] - 1) * c.src_stride[a]; /* start at the last element, walk back */
        c.src_stride[a] = -c.src_stride[a];
    }
    c.src = elem_at(in[0], base);
    sk_copy_run(&c);
    return 0;
}

/* lax's rule: a start index is clamped so the whole window fits. */
static int64_t clamped_start(const rt_array *index, int64_t dim, int64_t window) {
    int64_t s = rt_get_i64(index->aval.dtype, index->data, 0);
    int64_t hi = dim - window;
    return s < 0 ? 0 : s > hi ? hi : s;
}

static int impl_dynamic_slice(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in,
                              rt_array *const *in, rt_array *out) {
    (void)ctx, (void)prim, (void)p, (void)n_in;
    if (out->size == 0) return 0;
    const rt_array *x = in[0];
    sk_copy c = copy_into(out);
    int64_t base = 0;
    rt_strides(&x->aval, c.src_stride);
    for (int d = 0; d < c.rank; d++) base += clamped_start(in[1 + d], x->aval.dims[d], c.dims[d]) * c.src_stride[d];
    c.src = elem_at(x, base);
    sk_copy_run(&c);
    return 0;
}

static int impl_dynamic_update_slice(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in,
                                     rt_array *const *in, rt_array *out) {
    const rt_array *x = in[0], *u = in[1];
    /* a compiled program may have given the result x's own buffer (a loop
     * carry updated in place): then only the update is written */
    if (out->data != x->data) impl_same_order(ctx, prim, p, n_in, in, out);
    if (u->size == 0) return 0;
    sk_copy c = copy_into(out);
    int64_t base = 0;
    for (int d = 0; d < c.rank; d++) {
        base += clamped_start(in[2 + d], x->aval.dims[d], u->aval.dims[d]) * c.dst_stride[d];
        c.dims[d] = u->aval.dims[d];
    }
    rt_strides(&u->aval, c.src_stride);
    c.src = u->data;
    c.dst = (char *)out->data + base * (int64_t)c.elem_size;
    sk_copy_run(&c);
    return 0;
}

static int impl_concatenate(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, rt_array *const *in,
                            rt_array *out) {
    (void)ctx, (void)prim;
    int64_t axis = p->axes.v[0], at = 0;
    for (int i = 0; i < n_in; i++) {
        const rt_array *x = in[i];
        if (x->size > 0) {
            sk_copy c = copy_into(out);
            memcpy(c.dims, x->aval.dims, sizeof c.dims);
            rt_strides(&x->aval, c.src_stride);
            c.src = x->data;
            c.dst = (char *)out->data + at * c.dst_stride[axis] * (int64_t)c.elem_size;
            sk_copy_run(&c);
        }
        at += x->aval.dims[axis];
    }
    return 0;
}

static int impl_pad(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, rt_array *const *in,
                    rt_array *out) {
    (void)ctx, (void)prim, (void)n_in;
    if (out->size == 0) return 0;
    const rt_array *x = in[0];
    sk_copy c = copy_into(out);
    int64_t xs[CJ_MAX_RANK], src_base = 0, dst_base = 0;
    rt_strides(&x->aval, xs);
    int covered = 1; /* does x, after cropping, fill the whole result? */
    for (int d = 0; d < c.rank; d++) {
        int64_t lo = p->lo.v[d], gap = p->step.n ? p->step.v[d] : 0, pitch = gap + 1;
        int64_t n = x->aval.dims[d], size = out->aval.dims[d];
        /* element i of x lands at lo + i·pitch; keep those inside [0, size) */
        int64_t first = lo >= 0 ? 0 : (-lo + pitch - 1) / pitch;
        int64_t end = size - lo <= 0 ? 0 : (size - lo + pitch - 1) / pitch;
        if (end > n) end = n;
        c.dims[d] = end > first ? end - first : 0;
        src_base += first * xs[d];
        dst_base += (lo + first * pitch) * c.dst_stride[d];
        c.src_stride[d] = xs[d];
        c.dst_stride[d] *= pitch;
        covered &= c.dims[d] == size;
    }
    if (!covered) sk_fill(out->data, in[1]->data, out->size, c.elem_size);
    for (int d = 0; d < c.rank; d++)
        if (c.dims[d] == 0) return 0;
    c.src = elem_at(x, src_base);
    c.dst = (char *)out->data + dst_base * (int64_t)c.elem_size;
    sk_copy_run(&c);
    return 0;
}

static int impl_iota(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, rt_array *const *in,
                     rt_array *out) {
    (void)ctx, (void)prim, (void)n_in, (void)in;
    int axis = (int)p->axes.v[0];
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis; d++) outer *= out->aval.dims[d];
    for (int d = axis + 1; d < out->aval.rank; d++) inner *= out->aval.dims[d];
    sk_iota(out->data, out->aval.dtype, outer, out->aval.dims[axis], inner);
    return 0;
}

/* ---- parameters as IR text (JAX's jaxpr spelling) ---- */

typedef struct param_text {
    char *buf;
    size_t size;
    int len; /* what the full text needs, as snprintf counts */
} param_text;

static char *param_at(param_text *t, size_t *room) {
    size_t at = (size_t)t->len < t->size ? (size_t)t->len : t->size;
    *room = t->size - at;
    return t->buf + at;
}

static void put(param_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(param_text *t, const char *fmt, ...) {
    size_t room;
    char *at = param_at(t, &room);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(at, room, fmt, ap);
    va_end(ap);
    if (n > 0) t->len += n;
}

static void put_ivec(param_text *t, const char *name, const prim_ivec *v) {
    size_t room;
    char *at = param_at(t, &room);
    t->len += prim_print_ivec(at, room, name, v);
}

static param_text param_text_start(char *buf, size_t size) {
    param_text t = {buf, size, 0};
    if (size) buf[0] = 0;
    return t;
}

static int print_broadcast_in_dim(const prim_params *p, char *buf, size_t size) {
    param_text t = param_text_start(buf, size);
    put_ivec(&t, "shape", &p->shape);
    put(&t, " ");
    put_ivec(&t, "broadcast_dimensions", &p->axes);
    return t.len;
}

static int print_reshape(const prim_params *p, char *buf, size_t size) {
    return prim_print_ivec(buf, size, "new_sizes", &p->shape);
}

static int print_transpose(const prim_params *p, char *buf, size_t size) {
    return prim_print_ivec(buf, size, "permutation", &p->axes);
}

static int print_dimensions(const prim_params *p, char *buf, size_t size) {
    return prim_print_ivec(buf, size, "dimensions", &p->axes);
}

static int print_slice(const prim_params *p, char *buf, size_t size) {
    param_text t = param_text_start(buf, size);
    put_ivec(&t, "start_indices", &p->lo);
    put(&t, " ");
    put_ivec(&t, "limit_indices", &p->hi);
    put(&t, " ");
    if (p->step.n) put_ivec(&t, "strides", &p->step);
    else put(&t, "strides=None");
    return t.len;
}

static int print_dynamic_slice(const prim_params *p, char *buf, size_t size) {
    return prim_print_ivec(buf, size, "slice_sizes", &p->shape);
}

static int print_concatenate(const prim_params *p, char *buf, size_t size) {
    return snprintf(buf, size, "dimension=%lld", (long long)p->axes.v[0]);
}

static int print_pad(const prim_params *p, char *buf, size_t size) {
    param_text t = param_text_start(buf, size);
    put(&t, "padding_config=(");
    for (int d = 0; d < p->lo.n && d < CJ_MAX_RANK; d++)
        put(&t, "%s(%lld, %lld, %lld)", d ? ", " : "", (long long)p->lo.v[d], (long long)p->hi.v[d],
            (long long)(p->step.n ? p->step.v[d] : 0));
    put(&t, p->lo.n == 1 ? ",)" : ")");
    return t.len;
}

static int print_iota(const prim_params *p, char *buf, size_t size) {
    param_text t = param_text_start(buf, size);
    put(&t, "dtype=%s ", rt_dtype_valid((int)p->dtype) ? rt_dtypes[p->dtype].name : "?");
    put_ivec(&t, "shape", &p->shape);
    put(&t, " dimension=%lld", (long long)p->axes.v[0]);
    return t.len;
}

/* ---- index maps (prim_index_map): how each result element reads its
 * operand, for loops that fuse data movement (fusion.c, both backends) ---- */

/* Output axes matched to operand axes by their sizes other than 1, in
 * order: a reshape that only adds or drops unit axes (and squeeze,
 * expand_dims) is affine. False when the sizes regroup. */
static bool unit_axes_only(const rt_aval *x, const rt_aval *out, const int64_t *xs, prim_index_map *m) {
    int a = 0;
    for (int d = 0; d < out->rank; d++) {
        if (out->dims[d] == 1) continue;
        while (a < x->rank && x->dims[a] == 1) a++;
        if (a == x->rank || x->dims[a] != out->dims[d]) return false;
        m->stride[d] = xs[a++];
    }
    while (a < x->rank && x->dims[a] == 1) a++;
    return a == x->rank;
}

static int map_shape(const prim_params *p, int n_in, const rt_aval *in, const rt_aval *out, int operand,
                     prim_index_map *m, prim_id prim) {
    prim_index_map_init(m, out);
    if (prim == PRIM_IOTA) {
        m->kind = MAP_IOTA;
        m->axis = (int)p->axes.v[0];
        return 0;
    }
    const rt_aval *x = &in[0];
    int64_t xs[CJ_MAX_RANK];
    rt_strides(x, xs);
    switch (prim) {
    case PRIM_BROADCAST_IN_DIM:
        for (int a = 0; a < x->rank; a++)
            if (x->dims[a] != 1) m->stride[p->axes.v[a]] = xs[a];
        return 0;
    case PRIM_TRANSPOSE:
        for (int d = 0; d < out->rank; d++) m->stride[d] = xs[p->axes.v[d]];
        return 0;
    case PRIM_RESHAPE:
    case PRIM_SQUEEZE:
    case PRIM_EXPAND_DIMS:
        if (!unit_axes_only(x, out, xs, m)) {
            prim_index_map_init(m, out);
            m->kind = MAP_LINEAR;
        }
        return 0;
    case PRIM_SLICE:
        for (int d = 0; d < out->rank; d++) {
            int64_t step = p->step.n ? p->step.v[d] : 1;
            m->stride[d] = out->dims[d] > 1 ? xs[d] * step : 0; /* a huge step picks one element */
            m->offset += p->lo.v[d] * xs[d];
        }
        return 0;
    case PRIM_REV:
        for (int d = 0; d < out->rank; d++) m->stride[d] = xs[d];
        for (int i = 0; i < p->axes.n; i++) {
            int d = (int)p->axes.v[i];
            m->stride[d] = -xs[d];
            m->offset += (x->dims[d] - 1) * xs[d];
        }
        return 0;
    case PRIM_DYNAMIC_SLICE:
        if (operand > 0) {
            m->kind = MAP_NONE;
            return 0;
        }
        for (int d = 0; d < out->rank; d++) {
            m->stride[d] = xs[d];
            m->dyn[d] = 1 + d;
            m->dyn_hi[d] = x->dims[d] - out->dims[d];
            m->dyn_stride[d] = xs[d];
        }
        return 0;
    case PRIM_CONCATENATE: {
        int axis = (int)p->axes.v[0];
        int64_t at = 0;
        for (int i = 0; i < operand && i < n_in; i++) at += in[i].dims[axis];
        rt_strides(&in[operand], xs);
        for (int d = 0; d < out->rank; d++) m->stride[d] = xs[d];
        m->window = true;
        m->lo[axis] = at;
        m->hi[axis] = at + in[operand].dims[axis];
        return 0;
    }
    case PRIM_PAD:
        if (operand == 1) return 0; /* the padding value, everywhere else */
        m->window = true;
        for (int d = 0; d < out->rank; d++) {
            int64_t pitch = (p->step.n ? p->step.v[d] : 0) + 1;
            m->stride[d] = xs[d];
            m->lo[d] = p->lo.v[d];
            m->pitch[d] = pitch;
            m->hi[d] = x->dims[d] ? p->lo.v[d] + (x->dims[d] - 1) * pitch + 1 : p->lo.v[d];
        }
        return 0;
    default: return -1;
    }
}

#define MAP_RULE(name, PRIM)                                                                                     \
    static int name(const prim_params *p, int n_in, const rt_aval *in, const rt_aval *out, int operand,         \
                    prim_index_map *m) {                                                                         \
        return map_shape(p, n_in, in, out, operand, m, PRIM);                                                    \
    }
MAP_RULE(map_broadcast_in_dim, PRIM_BROADCAST_IN_DIM)
MAP_RULE(map_transpose, PRIM_TRANSPOSE)
MAP_RULE(map_reshape, PRIM_RESHAPE)
MAP_RULE(map_squeeze, PRIM_SQUEEZE)
MAP_RULE(map_expand_dims, PRIM_EXPAND_DIMS)
MAP_RULE(map_slice, PRIM_SLICE)
MAP_RULE(map_rev, PRIM_REV)
MAP_RULE(map_dynamic_slice, PRIM_DYNAMIC_SLICE)
MAP_RULE(map_concatenate, PRIM_CONCATENATE)
MAP_RULE(map_pad, PRIM_PAD)
MAP_RULE(map_iota, PRIM_IOTA)
#undef MAP_RULE

/* ---- registration ---- */

static void set_rule(prim_id id, prim_abstract_eval_fn eval, prim_impl_fn impl,
                     int (*print)(const prim_params *, char *, size_t)) {
    prim_rules[id].abstract_eval = eval;
    prim_rules[id].impl = impl;
    prim_rules[id].print_params = print;
    prim_rules[id].lower.kind = LOWER_DATA_MOVEMENT;
}

/* ---- vmap rules ----
 * Most move the batch axis to the front (only when it is elsewhere) and
 * prepend the batch dimension to the parameters; squeeze and rev keep it
 * where it is. */
static cj_val front(cj_val x, int64_t bdim, int64_t size) { return batch_to(x, bdim, size, 0); }

static void prepend(prim_ivec *v, int64_t first, int shift) {
    for (int i = v->n; i > 0; i--) v->v[i] = v->v[i - 1] + shift;
    v->v[0] = first;
    v->n++;
}


/* A start index as i64 clamped into [0, hi], as lax clamps it. */
static cj_val batched_start_clamped(cj_ctx *ctx, cj_val s, int64_t hi) {
    return bind_clamp(bind_scalar(ctx, 0, CJ_I64, 0), bind_convert(s, CJ_I64), bind_scalar(ctx, (double)hi, CJ_I64, 0));
}

/* Per-example start indices of a dynamic slice or update (batched or
 * not): for each axis the slice's positions start_b + j (start clamped as
 * lax does), read or written with along-axis gathers, so no loop over the
 * batch is needed. */
static cj_val batched_positions(cj_ctx *ctx, cj_val start, int64_t sbd, int64_t size, int64_t dim, int64_t k,
                                int rank, int axis, const int64_t *full_dims) {
    cj_val s = batch_to(start, sbd, size, 0); /* [B] */
    s = batched_start_clamped(ctx, s, dim - k);
    int64_t sdims[CJ_MAX_RANK + 1], idims[CJ_MAX_RANK + 1], both[CJ_MAX_RANK + 1];
    for (int d = 0; d <= rank; d++) sdims[d] = idims[d] = 1;
    sdims[0] = size;
    idims[axis + 1] = k;
    for (int d = 0; d <= rank; d++) both[d] = sdims[d] * idims[d];
    cj_val sb = bind_reshape(s, rank + 1, sdims);
    cj_val j = bind_iota(ctx, CJ_I64, rank + 1, idims, axis + 1);
    sb = bind_expand(sb, rank + 1, both);
    j = bind_expand(j, rank + 1, both);
    return bind_expand(bind_binary(PRIM_ADD, sb, j), rank + 1, full_dims);
}

static int batch_dynamic_indices(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in,
                                 const cj_val *in, const int64_t *bdim, int64_t size, cj_val *out,
                                 int64_t *out_bdim) {
    (void)n_in;
    int n_data = prim == PRIM_DYNAMIC_SLICE ? 1 : 2;
    cj_val x = batch_to(in[0], bdim[0], size, 0);
    const rt_aval *xa = &core_peek(x)->aval;
    int rank = xa->rank - 1;
    int64_t dims[CJ_MAX_RANK + 1];
    memcpy(dims, xa->dims, sizeof(int64_t) * (size_t)(rank + 1));
    if (prim == PRIM_DYNAMIC_SLICE) {
        /* narrow one axis at a time: gather along it */
        for (int a = 0; a < rank; a++) {
            int64_t k = p->shape.v[a];
            int64_t want[CJ_MAX_RANK + 1];
            memcpy(want, dims, sizeof want);
            want[a + 1] = k;
            cj_val idx = batched_positions(ctx, in[n_data + a], bdim[n_data + a], size, xa->dims[a + 1], k, rank, a, want);
            x = bind_take_along(x, idx, a + 1);
            dims[a + 1] = k;
        }
        *out = x;
    } else {
        /* out = where(inside the window, update read at (position - start), x) */
        cj_val u = batch_to(in[1], bdim[1], size, 0);
        const rt_aval *ua = &core_peek(u)->aval;
        if (rt_aval_size(ua) == 0) { /* an empty update changes nothing (as eagerly) */
            *out = x;
            *out_bdim = 0;
            return out->slot ? 0 : -1;
        }
        cj_val inside = bind_scalar(ctx, 1, CJ_BOOL, 0);
        cj_val spread = u;
        int64_t cur[CJ_MAX_RANK + 1];
        memcpy(cur, ua->dims, sizeof(int64_t) * (size_t)(rank + 1));
        for (int a = 0; a < rank; a++) {
            int64_t k = ua->dims[a + 1], dim = xa->dims[a + 1];
            cj_val s = batch_to(in[n_data + a], bdim[n_data + a], size, 0);
            s = batched_start_clamped(ctx, s, dim - k);
            int64_t sdims[CJ_MAX_RANK + 1], pdims[CJ_MAX_RANK + 1], rdims[CJ_MAX_RANK + 1];
            for (int d = 0; d <= rank; d++) sdims[d] = pdims[d] = 1;
            sdims[0] = size;
            pdims[a + 1] = dim;
            for (int d = 0; d <= rank; d++) rdims[d] = sdims[d] * pdims[d];
            cj_val sb = bind_reshape(s, rank + 1, sdims);
            cj_val pos = bind_iota(ctx, CJ_I64, rank + 1, pdims, a + 1);
            pos = bind_expand(pos, rank + 1, rdims);
            sb = bind_expand(sb, rank + 1, rdims);
            cj_val rel = bind_binary(PRIM_SUB, pos, sb); /* [B,...,dim,...] */
            cj_val ge = bind_binary(PRIM_GE, rel, bind_scalar(ctx, 0, CJ_I64, 0));
            cj_val lt = bind_binary(PRIM_LT, rel, bind_scalar(ctx, (double)k, CJ_I64, 0));
            /* inside the window along axis a, stretched to x's batched shape
             * (inside starts as the rank-0 true) */
            cj_val in_a = bind_expand(bind_binary(PRIM_AND, ge, lt), rank + 1, xa->dims);
            inside = bind_binary(PRIM_AND, inside, in_a);
            /* spread the update along this axis to the array's extent */
            int64_t want[CJ_MAX_RANK + 1];
            memcpy(want, cur, sizeof want);
            want[a + 1] = dim;
            cj_val idx = bind_expand(bind_clamp(bind_scalar(ctx, 0, CJ_I64, 0), rel, bind_scalar(ctx, (double)(k - 1), CJ_I64, 0)),
                                     rank + 1, want);
            spread = bind_take_along(spread, idx, a + 1);
            cur[a + 1] = dim;
        }
        /* the window covers every axis now: x's shape (rank 0 for a rank-0 x) */
        *out = bind_where(inside, spread, x);
    }
    *out_bdim = 0;
    return out->slot ? 0 : -1;
}

static int batch_shape(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                       const int64_t *bdim, int64_t size, cj_val *out, int64_t *out_bdim) {
    prim_params q = *p;
    cj_val args[PRIM_MAX_OPERANDS + 1];
    *out_bdim = 0;
    /* a result shape given as a parameter gets the batch size prepended */
    if ((prim == PRIM_BROADCAST_IN_DIM || prim == PRIM_RESHAPE) && p->shape.n >= CJ_MAX_RANK) {
        rt_aval ex = rt_aval_make(core_peek(in[0])->aval.dtype, p->shape.n, p->shape.v);
        return batch_check_rank(ctx, prim_names[prim], &ex, p->shape.n + 1, size);
    }
    switch (prim) {
    case PRIM_BROADCAST_IN_DIM:
        args[0] = front(in[0], bdim[0], size);
        prepend(&q.shape, size, 0);
        prepend(&q.axes, 0, 1);
        break;
    case PRIM_RESHAPE:
        args[0] = front(in[0], bdim[0], size);
        prepend(&q.shape, size, 0);
        break;
    case PRIM_TRANSPOSE:
        args[0] = in[0];
        for (int d = 0; d < p->axes.n; d++) q.axes.v[d] = batch_axis(p->axes.v[d], bdim[0]);
        prepend(&q.axes, bdim[0], 0);
        break;
    case PRIM_SQUEEZE:
    case PRIM_REV: {
        args[0] = in[0];
        int64_t bd = bdim[0];
        for (int d = 0; d < p->axes.n; d++) {
            q.axes.v[d] = batch_axis(p->axes.v[d], bdim[0]);
            if (prim == PRIM_SQUEEZE && q.axes.v[d] < bdim[0]) bd--;
        }
        *out_bdim = bd;
        break;
    }
    case PRIM_EXPAND_DIMS:
        args[0] = front(in[0], bdim[0], size);
        q.axes.v[0] = p->axes.v[0] + 1;
        break;
    case PRIM_SLICE:
        args[0] = front(in[0], bdim[0], size);
        prepend(&q.lo, 0, 0);
        prepend(&q.hi, size, 0);
        if (q.step.n) prepend(&q.step, 1, 0);
        break;
    case PRIM_PAD:
        if (bdim[1] != BDIM_NONE) {
            /* per-example padding values: pad with anything, then choose the
             * batched value wherever the (unbatched) mask of x is false */
            cj_val x = front(in[0], bdim[0], size), zero = bind_scalar(ctx, 0, core_peek(in[1])->aval.dtype, 0);
            prim_params q0 = *p;
            prepend(&q0.lo, 0, 0);
            prepend(&q0.hi, 0, 0);
            if (q0.step.n) prepend(&q0.step, 0, 0);
            cj_val xz[2] = {x, zero};
            cj_val padded = core_bind(ctx, PRIM_PAD, &q0, 2, xz);
            const rt_aval *xa = &core_peek(x)->aval;
            cj_val inside = bind_pad(bind_full(ctx, 1, CJ_BOOL, xa->rank, xa->dims), bind_scalar(ctx, 0, CJ_BOOL, 0),
                                     q0.lo.v, q0.hi.v, q0.step.n ? q0.step.v : NULL);
            const rt_aval *pa = &core_peek(padded)->aval;
            cj_val v = in[1]; /* [B]: one padding value per example */
            prim_params qb = prim_params_zero();
            qb.shape.n = pa->rank;
            memcpy(qb.shape.v, pa->dims, sizeof(int64_t) * (size_t)pa->rank);
            qb.axes.n = 1;
            qb.axes.v[0] = 0;
            cj_val vb = core_bind(ctx, PRIM_BROADCAST_IN_DIM, &qb, 1, &v);
            *out = bind_where(inside, padded, vb);
            return out->slot ? 0 : -1;
        }
        args[0] = front(in[0], bdim[0], size);
        args[1] = in[1];
        prepend(&q.lo, 0, 0);
        prepend(&q.hi, 0, 0);
        if (q.step.n) prepend(&q.step, 0, 0);
        break;
    case PRIM_CONCATENATE:
        for (int i = 0; i < n_in; i++) args[i] = front(in[i], bdim[i], size);
        q.axes.v[0] = p->axes.v[0] + 1;
        break;
    case PRIM_DYNAMIC_SLICE:
    case PRIM_DYNAMIC_UPDATE_SLICE: {
        int n_data = prim == PRIM_DYNAMIC_SLICE ? 1 : 2;
        for (int i = n_data; i < n_in; i++)
            if (bdim[i] != BDIM_NONE) return batch_dynamic_indices(ctx, prim, p, n_in, in, bdim, size, out, out_bdim);
        for (int i = 0; i < n_data; i++) args[i] = front(in[i], bdim[i], size);
        /* the batch axis starts at 0: one more start index (of the
         * others' type; i32 for a rank-0 operand, which has none) */
        cj_dtype idx_type = n_in > n_data ? core_peek(in[n_data])->aval.dtype : CJ_I32;
        args[n_data] = bind_scalar(ctx, 0, idx_type, 0);
        for (int i = n_data; i < n_in; i++) args[i + 1] = in[i];
        if (prim == PRIM_DYNAMIC_SLICE) prepend(&q.shape, size, 0);
        *out = core_bind(ctx, prim, &q, n_in + 1, args);
        return out->slot ? 0 : -1;
    }
    default:
        return prim_error(ctx, CJ_ERR_UNSUPPORTED, prim, "vmap: no batching rule");
    }
    for (int i = 0; i < n_in; i++)
        if (!args[i].slot) return -1;
    *out = core_bind(ctx, prim, &q, n_in, args);
    return out->slot ? 0 : -1;
}

void prim_register_shape(void) {
    set_rule(PRIM_BROADCAST_IN_DIM, eval_broadcast_in_dim, impl_broadcast_in_dim, print_broadcast_in_dim);
    set_rule(PRIM_RESHAPE, eval_reshape, impl_same_order, print_reshape);
    set_rule(PRIM_TRANSPOSE, eval_transpose, impl_transpose, print_transpose);
    set_rule(PRIM_SQUEEZE, eval_squeeze, impl_same_order, print_dimensions);
    set_rule(PRIM_EXPAND_DIMS, eval_expand_dims, impl_same_order, print_dimensions);
    set_rule(PRIM_SLICE, eval_slice, impl_slice, print_slice);
    set_rule(PRIM_DYNAMIC_SLICE, eval_dynamic_slice, impl_dynamic_slice, print_dynamic_slice);
    set_rule(PRIM_DYNAMIC_UPDATE_SLICE, eval_dynamic_update_slice, impl_dynamic_update_slice, NULL);
    set_rule(PRIM_CONCATENATE, eval_concatenate, impl_concatenate, print_concatenate);
    set_rule(PRIM_PAD, eval_pad, impl_pad, print_pad);
    set_rule(PRIM_REV, eval_rev, impl_rev, print_dimensions);
    set_rule(PRIM_IOTA, eval_iota, impl_iota, print_iota);
    /* no-ops when the result has the operand's type: a reshape, broadcast
     * or squeeze to the same shape, a slice taking every element, a
     * dynamic_slice of the whole operand (its start clamps to 0), a
     * dynamic_update_slice whose update is all of it */
    static const prim_id same_as_operand0[] = {PRIM_BROADCAST_IN_DIM, PRIM_RESHAPE, PRIM_SQUEEZE, PRIM_SLICE,
                                               PRIM_DYNAMIC_SLICE};
    for (size_t i = 0; i < sizeof same_as_operand0 / sizeof *same_as_operand0; i++)
        prim_rules[same_as_operand0[i]].lower.noop_operand = 1;
    prim_rules[PRIM_DYNAMIC_UPDATE_SLICE].lower.noop_operand = 2;
    prim_rules[PRIM_DYNAMIC_UPDATE_SLICE].lower.updates_operand0 = true; /* writes only the update */
    for (int i = 0; i < PRIM_COUNT; i++)
        if (prim_families[i] == FAMILY_SHAPE && i != PRIM_IOTA) prim_rules[i].batch = batch_shape;
    /* moving elements depends only on their size, so every dtype moves;
     * iota computes values: every integer dtype too (eval_iota) */
    static const prim_id movers[] = {PRIM_BROADCAST_IN_DIM, PRIM_RESHAPE, PRIM_TRANSPOSE, PRIM_SQUEEZE,
                                     PRIM_EXPAND_DIMS, PRIM_SLICE, PRIM_DYNAMIC_SLICE, PRIM_DYNAMIC_UPDATE_SLICE,
                                     PRIM_CONCATENATE, PRIM_PAD, PRIM_REV};
    for (size_t i = 0; i < sizeof movers / sizeof *movers; i++) prim_rules[movers[i]].extra_dtypes = true;
    prim_rules[PRIM_IOTA].extra_dtypes = true; /* integers; f16/bf16 refused by eval_iota */
    /* every data-movement primitive but dynamic_update_slice (a write of a
     * window, which stays a SINGLE kernel updating its buffer in place) */
    prim_rules[PRIM_BROADCAST_IN_DIM].index_map = map_broadcast_in_dim;
    prim_rules[PRIM_TRANSPOSE].index_map = map_transpose;
    prim_rules[PRIM_RESHAPE].index_map = map_reshape;
    prim_rules[PRIM_SQUEEZE].index_map = map_squeeze;
    prim_rules[PRIM_EXPAND_DIMS].index_map = map_expand_dims;
    prim_rules[PRIM_SLICE].index_map = map_slice;
    prim_rules[PRIM_REV].index_map = map_rev;
    prim_rules[PRIM_DYNAMIC_SLICE].index_map = map_dynamic_slice;
    prim_rules[PRIM_CONCATENATE].index_map = map_concatenate;
    prim_rules[PRIM_PAD].index_map = map_pad;
    prim_rules[PRIM_IOTA].index_map = map_iota;
}
