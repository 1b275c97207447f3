/* reduce_window.c — the windowed reductions (prim layer; parameters in
 * reduce_window.h, the kernels in src/runtime/reduce_window.c, jvp and
 * transpose rules in src/autodiff/rules_reduce_window.c, the public
 * functions in src/api/reduce_window.c).
 *
 * reduce_window_sum / _max / _min are lax's: a window per operand axis
 * with strides, (lo, hi) padding, base and window dilation, padding and
 * holes holding the reduction's identity. Max and min differentiate
 * through select_and_gather_add(tangents, operand), which takes, per
 * window, the tangent at the first maximum (minimum) of the operand in
 * window order; its transpose is select_and_scatter_add(source, operand),
 * which adds each source element at the position its window selects, and
 * each is the other's transpose (as in JAX; here both take the same
 * parameters, dilations included, so the pair transposes exactly).
 * Strict: reduce_window_* take every numeric dtype but bool (integers
 * wrap; f16/bf16 round each step), the select_and_* pair f32 or f64, the
 * tangents or source of the operand's dtype. Under jit each is a SINGLE kernel running this impl on whole
 * buffers (LOWER_OPAQUE), so every backend computes the same bits.
 * vmap gives the batch axis a window of 1: one call, never a loop. */
#include <string.h>

#include "../runtime/reduce_window.h"
#include "batching.h"
#include "reduce_window.h"

static int is_select(prim_id prim) { return prim == PRIM_SELECT_AND_GATHER_ADD || prim == PRIM_SELECT_AND_SCATTER_ADD; }

/* ---- abstract evaluation ---------------------------------------------- */

/* The window result's type of operand x into *out; the checks every
 * windowed primitive shares. */
static int window_shape(struct cj_ctx *ctx, prim_id prim, const prim_params *p, const rt_aval *x, rt_aval *out) {
    char xt[96];
    rt_aval_str(x, xt, sizeof xt);
    if (is_select(prim) ? x->dtype != CJ_F32 && x->dtype != CJ_F64 : !rt_reduce_window_takes(x->dtype))
        return prim_error(ctx, CJ_ERR_DTYPE, prim, "operand must be %s, got %s",
                          is_select(prim) ? "f32 or f64" : "a number (not bool)", xt);
    const prim_ivec *lists[6] = {&RW_WINDOW(p), &RW_STRIDES(p), &p->lo, &p->hi, &RW_BASE_DIL(p), &RW_WIN_DIL(p)};
    const char *names[6] = {"window_dimensions", "window_strides", "padding lo", "padding hi", "base_dilation",
                            "window_dilation"};
    for (int i = 0; i < 6; i++) {
        if (lists[i]->n != x->rank)
            return prim_error(ctx, CJ_ERR_ARG, prim, "%s has %d entries for the operand %s of rank %d", names[i],
                              lists[i]->n, xt, x->rank);
        if (i == 2 || i == 3) continue;
        for (int a = 0; a < x->rank; a++)
            if (lists[i]->v[a] < 1)
                return prim_error(ctx, CJ_ERR_ARG, prim, "%s must be positive, got %lld on axis %d of %s", names[i],
                                  (long long)lists[i]->v[a], a, xt);
    }
    *out = *x;
    for (int a = 0; a < x->rank; a++) {
        int64_t padded = rw_dilate(x->dims[a], RW_BASE_DIL(p).v[a]) + p->lo.v[a] + p->hi.v[a];
        if (padded < 0)
            return prim_error(ctx, CJ_ERR_SHAPE, prim, "padding (%lld, %lld) of axis %d of %s leaves a negative size",
                              (long long)p->lo.v[a], (long long)p->hi.v[a], a, xt);
        out->dims[a] = rw_out_dim(p, a, x->dims[a]);
    }
    return 0;
}

static int rw_abstract_eval(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const rt_aval *in,
                            rt_aval *out) {
    (void)n_in;
    if (!is_select(prim)) return window_shape(ctx, prim, p, &in[0], out);
    const rt_aval *v = &in[0], *x = &in[1];
    if (RW_SELECT_MIN(p) != 0 && RW_SELECT_MIN(p) != 1)
        return prim_error(ctx, CJ_ERR_ARG, prim, "select_prim must be ge (0) or le (1), got %d", RW_SELECT_MIN(p));
    rt_aval w;
    if (window_shape(ctx, prim, p, x, &w) != 0) return -1;
    /* gather: tangents have the operand's type; scatter: the source has
     * the window result's */
    const rt_aval *want = prim == PRIM_SELECT_AND_GATHER_ADD ? x : &w;
    int same = v->dtype == x->dtype && v->rank == want->rank;
    for (int a = 0; same && a < v->rank; a++) same = v->dims[a] == want->dims[a];
    if (!same) {
        char vt[96], xt[96], wt[96];
        rt_aval_str(v, vt, sizeof vt);
        rt_aval_str(x, xt, sizeof xt);
        rt_aval_str(want, wt, sizeof wt);
        return prim_error(ctx, CJ_ERR_SHAPE, prim, "%s %s must be %s for the operand %s",
                          prim == PRIM_SELECT_AND_GATHER_ADD ? "tangents" : "source", vt, wt, xt);
    }
    *out = prim == PRIM_SELECT_AND_GATHER_ADD ? w : *x;
    out->weak = v->weak;
    return 0;
}

static size_t put(char *buf, size_t size, size_t at, const char *fmt, long long v) {
    return at + (size_t)snprintf(buf + (at < size ? at : size), at < size ? size - at : 0, fmt, v);
}

static size_t put_tuple(char *buf, size_t size, size_t at, const char *name, const prim_ivec *v) {
    at = put(buf, size, at, name, 0);
    at = put(buf, size, at, "(", 0);
    for (int i = 0; i < v->n; i++) at = put(buf, size, at, i ? ", %lld" : "%lld", (long long)v->v[i]);
    return put(buf, size, at, v->n == 1 ? ",)" : ")", 0);
}

static int all_ones(const prim_ivec *v) {
    for (int i = 0; i < v->n; i++)
        if (v->v[i] != 1) return 0;
    return 1;
}

/* As JAX prints the equation's parameters (sorted by name). JAX's
 * select_and_scatter_add has no dilations: they print only when not 1. */
static int print_window(const prim_params *p, int select, int dilations, char *buf, size_t size) {
    size_t at = 0;
    if (dilations) at = put_tuple(buf, size, at, "base_dilation=", &RW_BASE_DIL(p));
    at = put(buf, size, at, at ? " padding=(" : "padding=(", 0);
    for (int i = 0; i < p->lo.n; i++) {
        at = put(buf, size, at, i ? ", (%lld" : "(%lld", (long long)p->lo.v[i]);
        at = put(buf, size, at, ", %lld)", (long long)p->hi.v[i]);
    }
    at = put(buf, size, at, p->lo.n == 1 ? ",)" : ")", 0);
    if (select) at = put(buf, size, at, RW_SELECT_MIN(p) ? " select_prim=le" : " select_prim=ge", 0);
    if (dilations) at = put_tuple(buf, size, at, " window_dilation=", &RW_WIN_DIL(p));
    at = put_tuple(buf, size, at, " window_dimensions=", &RW_WINDOW(p));
    at = put_tuple(buf, size, at, " window_strides=", &RW_STRIDES(p));
    return (int)at;
}

static int rw_print_reduce(const prim_params *p, char *buf, size_t size) { return print_window(p, 0, 1, buf, size); }
static int rw_print_gather(const prim_params *p, char *buf, size_t size) { return print_window(p, 1, 1, buf, size); }
static int rw_print_scatter(const prim_params *p, char *buf, size_t size) {
    return print_window(p, 1, !all_ones(&RW_BASE_DIL(p)) || !all_ones(&RW_WIN_DIL(p)), buf, size);
}

/* ---- impl ---------------------------------------------------------------- */

static void fill_desc(const prim_params *p, const rt_aval *x, const rt_aval *w, rt_window_desc *d) {
    memset(d, 0, sizeof *d);
    d->dtype = x->dtype;
    d->rank = x->rank;
    for (int a = 0; a < x->rank; a++) {
        d->in[a] = x->dims[a];
        d->out[a] = w->dims[a];
        d->win[a] = RW_WINDOW(p).v[a];
        d->stride[a] = RW_STRIDES(p).v[a];
        d->lo[a] = p->lo.v[a];
        d->base_dil[a] = RW_BASE_DIL(p).v[a];
        d->win_dil[a] = RW_WIN_DIL(p).v[a];
    }
}

static int rw_impl(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, rt_array *const *in,
                   rt_array *out) {
    (void)n_in;
    rt_window_desc d;
    int status;
    if (prim == PRIM_SELECT_AND_GATHER_ADD) {
        fill_desc(p, &in[1]->aval, &out->aval, &d);
        status = rt_select_and_gather_add(&d, RW_SELECT_MIN(p), in[0]->data, in[1]->data, out->data, out->mem);
    } else if (prim == PRIM_SELECT_AND_SCATTER_ADD) {
        fill_desc(p, &in[1]->aval, &in[0]->aval, &d);
        status = rt_select_and_scatter_add(&d, RW_SELECT_MIN(p), in[0]->data, in[1]->data, out->data, out->mem);
    } else {
        fill_desc(p, &in[0]->aval, &out->aval, &d);
        rt_window_kind k = prim == PRIM_REDUCE_WINDOW_SUM ? RT_WINDOW_SUM
                           : prim == PRIM_REDUCE_WINDOW_MAX ? RT_WINDOW_MAX
                                                            : RT_WINDOW_MIN;
        status = rt_reduce_window(&d, k, in[0]->data, out->data, out->mem);
    }
    if (status != 0) {
        char xt[96];
        rt_aval_str(&in[n_in - 1]->aval, xt, sizeof xt);
        return prim_error(ctx, CJ_ERR_OOM, prim, "out of memory for the window tables of %s", xt);
    }
    return 0;
}

/* ---- vmap rule ------------------------------------------------------------ */

/* p with a trivial window entry (size 1, stride 1, no padding or
 * dilation) inserted at axis `at`. */
static prim_params with_trivial_axis(const prim_params *p, int64_t at) {
    prim_params q = *p;
    prim_ivec *lists[6] = {&RW_WINDOW(&q), &RW_STRIDES(&q), &q.lo, &q.hi, &RW_BASE_DIL(&q), &RW_WIN_DIL(&q)};
    int64_t fill[6] = {1, 1, 0, 0, 1, 1};
    for (int i = 0; i < 6; i++) {
        prim_ivec *v = lists[i];
        for (int a = v->n; a > at; a--) v->v[a] = v->v[a - 1];
        v->v[at] = fill[i];
        v->n++;
    }
    return q;
}

static int rw_batch(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                    const int64_t *bdim, int64_t size, cj_val *out, int64_t *out_bdim) {
    /* the first batched operand keeps its batch axis; the other follows */
    int first = bdim[0] != BDIM_NONE ? 0 : n_in - 1;
    int64_t at = bdim[first];
    /* (the batched operand exists, so its rank, that of the new
     * parameter lists, is within CJ_MAX_RANK) */
    cj_val args[2];
    for (int i = 0; i < n_in; i++) args[i] = batch_to(in[i], bdim[i], size, at);
    prim_params q = with_trivial_axis(p, at);
    cj_val r = core_bind(ctx, prim, &q, n_in, args);
    *out = r;
    *out_bdim = at;
    return r.slot ? 0 : -1;
}

/* cost_analysis: one comparison or add per window element of each result
 * element (the select_and_* pair about twice that). */
static double rw_flops(const prim_params *p, const rt_aval *in, const rt_aval *out) {
    (void)in;
    double win = 1;
    for (int a = 0; a < RW_WINDOW(p).n; a++) win *= (double)RW_WINDOW(p).v[a];
    return win * (double)rt_aval_size(out);
}
static double gather_flops(const prim_params *p, const rt_aval *in, const rt_aval *out) {
    return 2.0 * rw_flops(p, in, out);
}
static double scatter_flops(const prim_params *p, const rt_aval *in, const rt_aval *out) {
    (void)out;
    return 2.0 * rw_flops(p, in, &in[0]); /* the source: one element per window */
}

/* In place (prim_lowering.overwrites_operand0): with no low padding and
 * no base dilation every window of output position y starts at or after
 * y on each axis, and with no axis longer in the output than in the
 * operand, an output element's flat offset is at most the flat offset of
 * every operand element it reads, so rt_reduce_window, run in order over
 * the rows (it does, serially, when the two buffers overlap), reads
 * every element before the element at its offset is written. */
static bool rw_overwrites(const prim_params *p, const rt_aval *in0, const rt_aval *out) {
    if (in0->dtype != out->dtype || (in0->dtype != CJ_F32 && in0->dtype != CJ_F64) || in0->rank != out->rank)
        return false;
    for (int a = 0; a < in0->rank; a++)
        if (p->lo.v[a] > 0 || RW_BASE_DIL(p).v[a] != 1 || out->dims[a] > in0->dims[a]) return false;
    return true;
}

void prim_register_reduce_window(void) {
    prim_id reducers[3] = {PRIM_REDUCE_WINDOW_SUM, PRIM_REDUCE_WINDOW_MAX, PRIM_REDUCE_WINDOW_MIN};
    for (int i = 0; i < 3; i++)
        prim_rules[reducers[i]] = (prim_rule){
            .abstract_eval = rw_abstract_eval,
            .impl = rw_impl,
            .print_params = rw_print_reduce,
            .lower = {.kind = LOWER_OPAQUE, .cost = {.flops_of = rw_flops}, .overwrites_operand0 = rw_overwrites},
            .batch = rw_batch,
            .extra_dtypes = true, /* window_shape checks which (rt_reduce_window_takes) */
        };
    prim_rules[PRIM_SELECT_AND_GATHER_ADD] = (prim_rule){
        .abstract_eval = rw_abstract_eval,
        .impl = rw_impl,
        .print_params = rw_print_gather,
        .lower = {.kind = LOWER_OPAQUE, .cost = {.flops_of = gather_flops}},
        .batch = rw_batch,
    };
    prim_rules[PRIM_SELECT_AND_SCATTER_ADD] = (prim_rule){
        .abstract_eval = rw_abstract_eval,
        .impl = rw_impl,
        .print_params = rw_print_scatter,
        .lower = {.kind = LOWER_OPAQUE, .cost = {.flops_of = scatter_flops}},
        .batch = rw_batch,
    };
}
