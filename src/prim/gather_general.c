/* gather_general.c — lax.gather and the lax.scatter family with full
 * dimension numbers (prim layer; parameters in gather_general.h, jvp and
 * transpose in src/autodiff/rules_gather_general.c, public functions in
 * src/api/indexing_general.c). The one-axis forms of gather.c stay as
 * they are: jnp's take and take_along_axis bind those.
 *
 * gather_general(x, idx): idx is [batch..., K] (index vector last). For
 * each batch position b the K start indices name a slice of x of
 * slice_sizes, starting at idx[b, k] on axis start_index_map[k], at b's own
 * coordinate on each operand batching axis, at 0 elsewhere. The result
 * holds the slices: its offset_dims are the slice's axes that are neither
 * collapsed nor batching, in order; its other axes are idx's batch axes,
 * in order. scatter_general(x, idx, updates) is the converse: updates has
 * idx's batch axes and the window axes (update_window_dims), and each
 * update element combines (set / add / mul / min / max) into a copy of x
 * where the gather would have read it. Out-of-range starts follow the
 * mode (gather_general.h).
 *
 * Both kernels work from four small tables: per batch position, where its
 * slice starts in x (or that it is filled / dropped) and where its block
 * sits in the result or updates; per window element, its offset in x and
 * in the result or updates. A gather then splits the batch positions over
 * threads; a scatter splits x's elements into disjoint ranges, each thread
 * walking every update in order and applying those that land in its range,
 * so duplicates combine in the same order whatever the thread count. The
 * tables are the kernel's declared working memory (planned under jit).
 * Under jit each is a SINGLE kernel running this impl (LOWER_OPAQUE). */
#include <math.h>
#include <string.h>

#include "../core/core.h"
#include "../runtime/threads.h"
#include "batching.h"
#include "gather_general.h"
#include "index_load.h"
#include "scatter_combine.h"

/* ---- abstract evaluation ---------------------------------------------- */

static int in_list(const prim_ivec *v, int64_t d) {
    for (int i = 0; i < v->n; i++)
        if (v->v[i] == d) return 1;
    return 0;
}

/* Entries in [0, bound), distinct, and increasing when `sorted`. */
static int check_dims(struct cj_ctx *ctx, prim_id prim, const char *name, const prim_ivec *v, int64_t bound,
                      int sorted, const char *what) {
    for (int i = 0; i < v->n; i++) {
        if (v->v[i] < 0 || v->v[i] >= bound)
            return prim_error(ctx, CJ_ERR_AXIS, prim, "%s entry %lld is out of range for %s (rank %lld)", name,
                              (long long)v->v[i], what, (long long)bound);
        for (int j = 0; j < i; j++)
            if (v->v[j] == v->v[i])
                return prim_error(ctx, CJ_ERR_ARG, prim, "%s repeats %lld", name, (long long)v->v[i]);
        if (sorted && i > 0 && v->v[i] < v->v[i - 1])
            return prim_error(ctx, CJ_ERR_ARG, prim, "%s must be sorted, got %lld after %lld", name,
                              (long long)v->v[i], (long long)v->v[i - 1]);
    }
    return 0;
}

/* Checks shared by both: index dtype and rank, start map, batching axes.
 * `collapsed` is collapsed_slice_dims / inserted_window_dims. */
static int check_common(struct cj_ctx *ctx, prim_id prim, const prim_params *p, const rt_aval *x, const rt_aval *idx,
                        const char *xt, const char *it, const char *collapsed_name) {
    if (GG_MODE(p) > GG_MODE_PROMISE)
        return prim_error(ctx, CJ_ERR_ARG, prim, "unknown mode %d (0 clip, 1 fill/drop, 2 promise_in_bounds)",
                          GG_MODE(p));
    if (!index_dtype_ok(idx->dtype))
        return prim_error(ctx, CJ_ERR_DTYPE, prim, "indices must have an integer dtype (i8 ... i64, u8 ... u64), got %s",
                          it);
    if (idx->rank < 1)
        return prim_error(ctx, CJ_ERR_SHAPE, prim,
                          "indices %s need an index vector axis (the last); use shape [..., K]", it);
    const prim_ivec *sm = &GG_START_MAP(p), *ob = &GG_OPERAND_BATCH(p), *ib = &GG_INDICES_BATCH(p);
    const prim_ivec *cs = &GG_COLLAPSED(p);
    const char *smn = prim == PRIM_GATHER_GENERAL ? "start_index_map" : "scatter_dims_to_operand_dims";
    const char *ibn = prim == PRIM_GATHER_GENERAL ? "start_indices_batching_dims" : "scatter_indices_batching_dims";
    if (idx->dims[idx->rank - 1] != sm->n)
        return prim_error(ctx, CJ_ERR_SHAPE, prim,
                          "indices %s have %lld entries in their index vector (last axis), but %s has %d", it,
                          (long long)idx->dims[idx->rank - 1], smn, sm->n);
    if (check_dims(ctx, prim, smn, sm, x->rank, 0, xt) || check_dims(ctx, prim, collapsed_name, cs, x->rank, 1, xt) ||
        check_dims(ctx, prim, "operand_batching_dims", ob, x->rank, 1, xt) ||
        check_dims(ctx, prim, ibn, ib, idx->rank - 1, 0, it))
        return -1;
    for (int i = 0; i < ob->n; i++) {
        if (in_list(cs, ob->v[i]))
            return prim_error(ctx, CJ_ERR_ARG, prim, "axis %lld is both in %s and operand_batching_dims",
                              (long long)ob->v[i], collapsed_name);
        if (in_list(sm, ob->v[i]))
            return prim_error(ctx, CJ_ERR_ARG, prim, "axis %lld is both in %s and operand_batching_dims",
                              (long long)ob->v[i], smn);
    }
    if (ib->n != ob->n)
        return prim_error(ctx, CJ_ERR_ARG, prim, "operand_batching_dims has %d entries but %s has %d", ob->n, ibn,
                          ib->n);
    for (int i = 0; i < ob->n; i++)
        if (x->dims[ob->v[i]] != idx->dims[ib->v[i]])
            return prim_error(ctx, CJ_ERR_SHAPE, prim,
                              "operand %s batching axis %lld (size %lld) and indices %s batching axis %lld (size %lld) "
                              "must have the same size",
                              xt, (long long)ob->v[i], (long long)x->dims[ob->v[i]], it, (long long)ib->v[i],
                              (long long)idx->dims[ib->v[i]]);
    return 0;
}

static int gather_general_abstract_eval(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in,
                                        const rt_aval *in, rt_aval *out) {
    (void)n_in;
    const rt_aval *x = &in[0], *idx = &in[1];
    char xt[96], it[96];
    rt_aval_str(x, xt, sizeof xt);
    rt_aval_str(idx, it, sizeof it);
    if (check_common(ctx, prim, p, x, idx, xt, it, "collapsed_slice_dims") != 0) return -1;
    const prim_ivec *ss = &GG_SLICE_SIZES(p), *od = &GG_OFFSET_DIMS(p), *cs = &GG_COLLAPSED(p),
                    *ob = &GG_OPERAND_BATCH(p);
    if (ss->n != x->rank)
        return prim_error(ctx, CJ_ERR_ARG, prim, "slice_sizes has %d entries for the operand %s of rank %d", ss->n,
                          xt, x->rank);
    for (int d = 0; d < x->rank; d++) {
        if (ss->v[d] < 0 || ss->v[d] > x->dims[d])
            return prim_error(ctx, CJ_ERR_SHAPE, prim, "slice_sizes[%d] = %lld must be in [0, %lld] for the operand %s",
                              d, (long long)ss->v[d], (long long)x->dims[d], xt);
        if ((in_list(cs, d) || in_list(ob, d)) && ss->v[d] != (x->dims[d] ? 1 : 0))
            return prim_error(ctx, CJ_ERR_SHAPE, prim,
                              "slice_sizes[%d] = %lld, but a collapsed or batching axis takes a slice of size 1", d,
                              (long long)ss->v[d]);
    }
    int n_offset = x->rank - cs->n - ob->n;
    if (od->n != n_offset)
        return prim_error(ctx, CJ_ERR_ARG, prim,
                          "offset_dims has %d entries, but the operand %s keeps %d axes (%d collapsed, %d batching)",
                          od->n, xt, n_offset, cs->n, ob->n);
    int rank = idx->rank - 1 + n_offset;
    if (rank > CJ_MAX_RANK)
        return prim_error(ctx, CJ_ERR_SHAPE, prim, "gathering from %s with %s gives rank %d (at most %d)", xt, it, rank,
                          CJ_MAX_RANK);
    if (check_dims(ctx, prim, "offset_dims", od, rank, 1, "the result") != 0) return -1;
    *out = *x;
    out->rank = rank;
    int k = 0, b = 0;
    for (int d = 0; d < rank; d++) {
        if (in_list(od, d)) {
            while (in_list(cs, k) || in_list(ob, k)) k++;
            out->dims[d] = ss->v[k++];
        } else {
            out->dims[d] = idx->dims[b++];
        }
    }
    return 0;
}

static int scatter_general_abstract_eval(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in,
                                         const rt_aval *in, rt_aval *out) {
    (void)n_in;
    const rt_aval *x = &in[0], *idx = &in[1], *u = &in[2];
    char xt[96], it[96], ut[96];
    rt_aval_str(x, xt, sizeof xt);
    rt_aval_str(idx, it, sizeof it);
    rt_aval_str(u, ut, sizeof ut);
    if (p->count < GG_KIND_SET || p->count > GG_KIND_MAX)
        return prim_error(ctx, CJ_ERR_ARG, prim, "unknown update kind %lld (0 set, 1 add, 2 mul, 3 min, 4 max)",
                          (long long)p->count);
    if (check_common(ctx, prim, p, x, idx, xt, it, "inserted_window_dims") != 0) return -1;
    if (u->dtype != x->dtype)
        return prim_error(ctx, CJ_ERR_DTYPE, prim, "updates %s must have the dtype of the operand %s", ut, xt);
    const prim_ivec *uw = &GG_OFFSET_DIMS(p), *iw = &GG_COLLAPSED(p), *ob = &GG_OPERAND_BATCH(p);
    if (uw->n + iw->n + ob->n != x->rank)
        return prim_error(ctx, CJ_ERR_ARG, prim,
                          "update_window_dims (%d), inserted_window_dims (%d) and operand_batching_dims (%d) must "
                          "together have the rank of the operand %s",
                          uw->n, iw->n, ob->n, xt);
    if (u->rank != uw->n + idx->rank - 1)
        return prim_error(ctx, CJ_ERR_SHAPE, prim,
                          "updates %s must have rank %d: %d window axes and the %d batch axes of the indices %s", ut,
                          uw->n + idx->rank - 1, uw->n, idx->rank - 1, it);
    if (check_dims(ctx, prim, "update_window_dims", uw, u->rank, 1, ut) != 0) return -1;
    int k = 0, b = 0;
    for (int d = 0; d < u->rank; d++) {
        if (in_list(uw, d)) {
            while (in_list(iw, k) || in_list(ob, k)) k++;
            if (u->dims[d] > x->dims[k])
                return prim_error(ctx, CJ_ERR_SHAPE, prim,
                                  "updates %s window axis %d (size %lld) is larger than the operand %s axis %d (size "
                                  "%lld)",
                                  ut, d, (long long)u->dims[d], xt, k, (long long)x->dims[k]);
            k++;
        } else {
            if (u->dims[d] != idx->dims[b])
                return prim_error(ctx, CJ_ERR_SHAPE, prim,
                                  "updates %s axis %d (size %lld) must match the indices %s batch axis %d (size %lld)",
                                  ut, d, (long long)u->dims[d], it, b, (long long)idx->dims[b]);
            b++;
        }
    }
    *out = *x;
    return 0;
}

static const char *mode_name(int m) {
    return m == GG_MODE_CLIP ? "GatherScatterMode.CLIP"
           : m == GG_MODE_FILL ? "GatherScatterMode.FILL_OR_DROP"
                               : "GatherScatterMode.PROMISE_IN_BOUNDS";
}

/* Appends with snprintf semantics: n is the length so far (may exceed size). */
#define APPEND(...)                                                                                                    \
    do {                                                                                                               \
        size_t at_ = n >= 0 && (size_t)n < size ? (size_t)n : size;                                                     \
        n += snprintf(buf + at_, size - at_, __VA_ARGS__);                                                             \
    } while (0)
#define APPEND_IVEC(name, v)                                                                                           \
    do {                                                                                                               \
        size_t at_ = n >= 0 && (size_t)n < size ? (size_t)n : size;                                                     \
        n += prim_print_ivec(buf + at_, size - at_, name, v);                                                          \
    } while (0)

/* As JAX's jaxpr prints lax.gather's parameters. */
static int gather_general_print(const prim_params *p, char *buf, size_t size) {
    int n = 0;
    APPEND("dimension_numbers=GatherDimensionNumbers(");
    APPEND_IVEC("offset_dims", &GG_OFFSET_DIMS(p));
    APPEND(", ");
    APPEND_IVEC("collapsed_slice_dims", &GG_COLLAPSED(p));
    APPEND(", ");
    APPEND_IVEC("start_index_map", &GG_START_MAP(p));
    APPEND(", ");
    APPEND_IVEC("operand_batching_dims", &GG_OPERAND_BATCH(p));
    APPEND(", ");
    APPEND_IVEC("start_indices_batching_dims", &GG_INDICES_BATCH(p));
    if (p->flag & GG_HAS_FILL)
        APPEND(") fill_value=%g", gg_fill_value(p));
    else
        APPEND(") fill_value=None");
    APPEND(" indices_are_sorted=%s mode=%s ", p->flag & GG_SORTED ? "True" : "False", mode_name(GG_MODE(p)));
    APPEND_IVEC("slice_sizes", &GG_SLICE_SIZES(p));
    APPEND(" unique_indices=%s", p->flag & GG_UNIQUE ? "True" : "False");
    return n;
}

static int scatter_general_print(const prim_params *p, char *buf, size_t size) {
    static const char *const kinds[] = {"set", "add", "mul", "min", "max"};
    int n = 0;
    APPEND("kind=%s dimension_numbers=ScatterDimensionNumbers(", kinds[p->count >= 0 && p->count <= 4 ? p->count : 0]);
    APPEND_IVEC("update_window_dims", &GG_OFFSET_DIMS(p));
    APPEND(", ");
    APPEND_IVEC("inserted_window_dims", &GG_COLLAPSED(p));
    APPEND(", ");
    APPEND_IVEC("scatter_dims_to_operand_dims", &GG_START_MAP(p));
    APPEND(", ");
    APPEND_IVEC("operand_batching_dims", &GG_OPERAND_BATCH(p));
    APPEND(", ");
    APPEND_IVEC("scatter_indices_batching_dims", &GG_INDICES_BATCH(p));
    APPEND(") indices_are_sorted=%s mode=%s unique_indices=%s", p->flag & GG_SORTED ? "True" : "False",
           mode_name(GG_MODE(p)), p->flag & GG_UNIQUE ? "True" : "False");
    return n;
}

/* ---- the tables ----------------------------------------------------------- */

/* Where everything lies, for either primitive: x (the operand), idx, and
 * "r": the gather's result or the scatter's updates (the array laid out
 * as batch axes + window axes). */
typedef struct gg_plan {
    int64_t n_batch, n_win;
    int64_t *r_batch, *x_start; /* per batch position; x_start -1: filled / dropped */
    int64_t *r_win, *x_win;     /* per window element */
} gg_plan;

static size_t plan_bytes(int64_t n_batch, int64_t n_win) {
    return sizeof(int64_t) * (size_t)(2 * n_batch + 2 * n_win + 1);
}

static void strides_of(const rt_aval *a, int64_t *s) {
    int64_t acc = 1;
    for (int d = a->rank - 1; d >= 0; d--) {
        s[d] = acc;
        acc *= a->dims[d];
    }
}

/* Counts of the plan for these types: batch positions, window elements. */
static void plan_counts(const rt_aval *idx, const rt_aval *r, const prim_ivec *win_dims, int64_t *n_batch,
                        int64_t *n_win) {
    *n_batch = 1;
    for (int d = 0; d < idx->rank - 1; d++) *n_batch *= idx->dims[d];
    *n_win = 1;
    for (int i = 0; i < win_dims->n; i++) *n_win *= r->dims[win_dims->v[i]];
}

/* Fills the plan. clamp: clip out-of-range starts (else mark the position
 * -1). */
static void plan_fill(gg_plan *g, const prim_params *p, const rt_aval *x, const rt_array *idx, const rt_aval *r,
                      int clamp) {
    const prim_ivec *wd = &GG_OFFSET_DIMS(p), *cs = &GG_COLLAPSED(p), *ob = &GG_OPERAND_BATCH(p);
    const prim_ivec *sm = &GG_START_MAP(p), *ib = &GG_INDICES_BATCH(p);
    int64_t xs[CJ_MAX_RANK], rs[CJ_MAX_RANK];
    strides_of(x, xs);
    strides_of(r, rs);
    /* the operand axis of each window axis, and every operand axis's extent */
    int64_t x_axis_of_win[CJ_MAX_RANK], extent[CJ_MAX_RANK];
    for (int d = 0, k = 0; d < x->rank; d++) {
        extent[d] = 1;
        if (in_list(cs, d) || in_list(ob, d)) continue;
        x_axis_of_win[k] = d;
        extent[d] = r->dims[wd->v[k]];
        k++;
    }
    /* window tables: an odometer over the window axes */
    int64_t c[CJ_MAX_RANK] = {0};
    for (int64_t w = 0; w < g->n_win; w++) {
        int64_t ro = 0, xo = 0;
        for (int k = 0; k < wd->n; k++) ro += c[k] * rs[wd->v[k]], xo += c[k] * xs[x_axis_of_win[k]];
        g->r_win[w] = ro, g->x_win[w] = xo;
        for (int k = wd->n - 1; k >= 0; k--) {
            if (++c[k] < r->dims[wd->v[k]]) break;
            c[k] = 0;
        }
    }
    /* batch tables: the batch axes of r are those not in wd, in order */
    int nb = idx->aval.rank - 1, K = sm->n;
    int64_t r_axis_of_batch[CJ_MAX_RANK];
    for (int d = 0, j = 0; d < r->rank; d++)
        if (!in_list(wd, d)) r_axis_of_batch[j++] = d;
    int64_t bc[CJ_MAX_RANK] = {0};
    cj_dtype idt = idx->aval.dtype;
    for (int64_t b = 0; b < g->n_batch; b++) {
        int64_t ro = 0, xo = 0;
        for (int j = 0; j < nb; j++) ro += bc[j] * rs[r_axis_of_batch[j]];
        int ok = 1;
        for (int k = 0; k < K; k++) {
            int64_t d = sm->v[k], s = index_load(idt, idx->data, b * K + k);
            int64_t hi = x->dims[d] - extent[d];
            if (s < 0 || s > hi) {
                if (!clamp) ok = 0;
                s = s < 0 ? 0 : s > hi ? hi : s;
            }
            xo += s * xs[d];
        }
        for (int i = 0; i < ob->n; i++) xo += bc[ib->v[i]] * xs[ob->v[i]];
        g->r_batch[b] = ro;
        g->x_start[b] = ok ? xo : -1;
        for (int j = nb - 1; j >= 0; j--) {
            if (++bc[j] < idx->aval.dims[j]) break;
            bc[j] = 0;
        }
    }
}

/* The tables' working memory, for the planner and the kernels. */
static size_t gg_workspace(const prim_params *p, int n_in, const rt_aval *in) {
    int64_t nb, nw;
    if (n_in == 2) { /* gather: the window sizes are the offset axes of the result */
        int64_t prod = 1;
        for (int d = 0; d < in[0].rank; d++)
            if (!in_list(&GG_COLLAPSED(p), d) && !in_list(&GG_OPERAND_BATCH(p), d)) prod *= GG_SLICE_SIZES(p).v[d];
        nb = 1;
        for (int d = 0; d < in[1].rank - 1; d++) nb *= in[1].dims[d];
        nw = prod;
    } else {
        plan_counts(&in[1], &in[2], &GG_OFFSET_DIMS(p), &nb, &nw);
    }
    return plan_bytes(nb, nw);
}

/* Both window tables increase from 0 (row-major over axes in increasing
 * order), so the window is one contiguous run in both arrays exactly when
 * each ends at n_win - 1 (a row, a trailing block): then a batch position
 * is one memcpy or one combining loop. */
static int window_is_one_run(const gg_plan *g) {
    return g->n_win > 0 && g->x_win[g->n_win - 1] == g->n_win - 1 && g->r_win[g->n_win - 1] == g->n_win - 1;
}

/* ---- gather kernel -------------------------------------------------------- */

typedef struct gather_job {
    const gg_plan *g;
    const char *x;
    char *out;
    size_t es;
    const char *fill; /* one element */
} gather_job;

static void gather_range(void *arg, int64_t begin, int64_t end) {
    const gather_job *j = arg;
    const gg_plan *g = j->g;
    size_t es = j->es;
    int whole = window_is_one_run(g);
    /* runs of window elements contiguous in both x and the result copy at once */
    for (int64_t b = begin; b < end; b++) {
        char *o = j->out + (size_t)g->r_batch[b] * es;
        int64_t xs = g->x_start[b];
        for (int64_t w = 0; w < g->n_win;) {
            int64_t run = whole ? g->n_win : 1;
            while (w + run < g->n_win && g->r_win[w + run] == g->r_win[w] + run &&
                   g->x_win[w + run] == g->x_win[w] + run)
                run++;
            char *dst = o + (size_t)g->r_win[w] * es;
            if (xs >= 0)
                memcpy(dst, j->x + (size_t)(xs + g->x_win[w]) * es, (size_t)run * es);
            else
                for (int64_t i = 0; i < run; i++) memcpy(dst + (size_t)i * es, j->fill, es);
            w += run;
        }
    }
}

/* lax's default fill: NaN for floats, the most negative value for signed
 * integers, the largest for unsigned ones, true for bool. A given fill
 * value converts to the dtype as convert_element_type does. */
static void fill_element(const prim_params *p, cj_dtype dt, char *e) {
    if (p->flag & GG_HAS_FILL) {
        double f = gg_fill_value(p);
        rt_convert(CJ_F64, &f, dt, e, 1);
        return;
    }
    size_t es = rt_dtypes[dt].size;
    if (dt == CJ_BOOL) {
        *e = 1;
    } else if (rt_is_float(dt)) {
        double nan = NAN;
        rt_convert(CJ_F64, &nan, dt, e, 1);
    } else if (rt_is_unsigned(dt)) {
        memset(e, 0xFF, es);
    } else { /* the sign bit alone, little-endian */
        memset(e, 0, es);
        e[es - 1] = (char)0x80;
    }
}

static int gather_general_impl(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, rt_array *const *in,
                               rt_array *out) {
    (void)prim;
    if (out->size == 0) return 0;
    rt_aval avals[2] = {in[0]->aval, in[1]->aval};
    size_t bytes = gg_workspace(p, n_in, avals);
    int owned;
    int64_t *t = core_workspace(ctx, bytes, &owned, "gather_general: index tables");
    if (!t) return -1;
    gg_plan g;
    plan_counts(&in[1]->aval, &out->aval, &GG_OFFSET_DIMS(p), &g.n_batch, &g.n_win);
    g.r_batch = t, g.x_start = t + g.n_batch, g.r_win = t + 2 * g.n_batch, g.x_win = t + 2 * g.n_batch + g.n_win;
    plan_fill(&g, p, &in[0]->aval, in[1], &out->aval, GG_MODE(p) != GG_MODE_FILL);
    char fill[8];
    fill_element(p, out->aval.dtype, fill);
    gather_job j = {&g, in[0]->data, out->data, rt_dtypes[out->aval.dtype].size, fill};
    if (out->size >= RT_PARALLEL_MIN_ELEMS && g.n_batch > 1)
        rt_parallel_for(g.n_batch, RT_PARALLEL_MIN_ELEMS / g.n_win + 1, gather_range, &j);
    else
        gather_range(&j, 0, g.n_batch);
    core_workspace_done(ctx, t, bytes, owned);
    return 0;
}

/* ---- scatter kernel ------------------------------------------------------- */

typedef struct scatter_job {
    const gg_plan *g;
    const char *u;
    char *out;
    cj_dtype dt;
    int kind;
    int64_t n_x;   /* elements of x */
    int64_t chunk; /* x elements per task */
} scatter_job;

static void scatter_range(void *arg, int64_t begin, int64_t end) {
    const scatter_job *j = arg;
    const gg_plan *g = j->g;
    size_t es = rt_dtypes[j->dt].size;
    int whole = window_is_one_run(g);
    for (int64_t t = begin; t < end; t++) {
        int64_t lo = t * j->chunk, hi = lo + j->chunk < j->n_x ? lo + j->chunk : j->n_x;
        for (int64_t b = 0; b < g->n_batch; b++) {
            int64_t xs = g->x_start[b];
            /* x_win increases with w, so a window wholly outside [lo, hi) is skipped */
            if (xs < 0 || xs + g->x_win[g->n_win - 1] < lo || xs >= hi) continue;
            const char *u = j->u + (size_t)g->r_batch[b] * es;
            for (int64_t w = 0; w < g->n_win;) {
                /* a run contiguous in both x and the updates, cut to [lo, hi) */
                int64_t run = whole ? g->n_win : 1;
                while (w + run < g->n_win && g->r_win[w + run] == g->r_win[w] + run &&
                       g->x_win[w + run] == g->x_win[w] + run)
                    run++;
                int64_t at = xs + g->x_win[w], skip = at < lo ? lo - at : 0;
                int64_t len = (at + run < hi ? at + run : hi) - (at + skip);
                if (len > 0)
                    scatter_combine(j->dt, j->kind, j->out + (size_t)(at + skip) * es,
                                u + (size_t)(g->r_win[w] + skip) * es, len);
                w += run;
            }
        }
    }
}

static int scatter_general_impl(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, rt_array *const *in,
                                rt_array *out) {
    (void)prim;
    if (out->size) memcpy(out->data, in[0]->data, rt_aval_nbytes(&out->aval));
    if (out->size == 0 || in[2]->size == 0) return 0;
    rt_aval avals[3] = {in[0]->aval, in[1]->aval, in[2]->aval};
    size_t bytes = gg_workspace(p, n_in, avals);
    int owned;
    int64_t *t = core_workspace(ctx, bytes, &owned, "scatter_general: index tables");
    if (!t) return -1;
    gg_plan g;
    plan_counts(&in[1]->aval, &in[2]->aval, &GG_OFFSET_DIMS(p), &g.n_batch, &g.n_win);
    g.r_batch = t, g.x_start = t + g.n_batch, g.r_win = t + 2 * g.n_batch, g.x_win = t + 2 * g.n_batch + g.n_win;
    plan_fill(&g, p, &in[0]->aval, in[1], &in[2]->aval, GG_MODE(p) == GG_MODE_CLIP);
    scatter_job j = {&g, in[2]->data, out->data, out->aval.dtype, (int)p->count, out->size, out->size};
    int threads = rt_num_threads();
    if (in[2]->size >= RT_PARALLEL_MIN_ELEMS && threads > 1 && out->size >= 2 * threads) {
        j.chunk = (out->size + threads - 1) / threads;
        rt_parallel_for((out->size + j.chunk - 1) / j.chunk, 1, scatter_range, &j);
    } else {
        scatter_range(&j, 0, 1);
    }
    core_workspace_done(ctx, t, bytes, owned);
    return 0;
}

/* ---- the paired parameters (for the autodiff rules) ----------------------- */

prim_params gg_gather_of_scatter(const prim_params *s, const rt_aval *x, const rt_aval *u) {
    prim_params q = *s;
    q.count = 0;
    q.flag = s->flag & (GG_SORTED | GG_UNIQUE);
    /* a scatter drops what does not fit unless it clips: the gather reads 0 there */
    q.flag |= GG_MODE(s) == GG_MODE_CLIP ? GG_MODE_CLIP : GG_MODE_FILL;
    gg_set_fill_value(&q, 0.0);
    q.shape.n = x->rank;
    for (int d = 0, k = 0; d < x->rank; d++) {
        if (in_list(&GG_COLLAPSED(s), d) || in_list(&GG_OPERAND_BATCH(s), d)) {
            q.shape.v[d] = 1;
            continue;
        }
        q.shape.v[d] = u->dims[GG_OFFSET_DIMS(s).v[k++]];
    }
    return q;
}

prim_params gg_scatter_of_gather(const prim_params *gp, int kind) {
    prim_params q = *gp;
    q.shape = prim_params_zero().shape;
    q.count = kind;
    q.flag = gp->flag & (GG_SORTED | GG_UNIQUE);
    /* a gather clamps unless it fills: the scatter clamps the same way */
    q.flag |= GG_MODE(gp) == GG_MODE_FILL ? GG_MODE_FILL : GG_MODE_CLIP;
    return q;
}

/* ---- vmap rules: the batch axis becomes a batching axis, as in JAX --------- */

static void shift(prim_ivec *v, int by) {
    for (int i = 0; i < v->n; i++) v->v[i] += by;
}
static void prepend(prim_ivec *v, int64_t x) {
    memmove(v->v + 1, v->v, sizeof(int64_t) * (size_t)v->n);
    v->v[0] = x;
    v->n++;
}

static int gather_general_batch(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                                const int64_t *bdim, int64_t size, cj_val *out, int64_t *out_bdim) {
    (void)n_in;
    /* no operand grows: the result's rank is checked by abstract_eval */
    prim_params q = *p;
    cj_val x = in[0], idx = in[1];
    if (bdim[0] != BDIM_NONE && bdim[1] == BDIM_NONE) {
        /* the batch axis is one more window axis, taken whole */
        x = batch_moveaxis(x, bdim[0], 0);
        shift(&GG_OFFSET_DIMS(&q), 1), prepend(&GG_OFFSET_DIMS(&q), 0);
        shift(&GG_COLLAPSED(&q), 1), shift(&GG_START_MAP(&q), 1), shift(&GG_OPERAND_BATCH(&q), 1);
        prepend(&GG_SLICE_SIZES(&q), size);
    } else if (bdim[0] == BDIM_NONE) {
        /* the batch axis is one more batch axis of the indices */
        idx = batch_moveaxis(idx, bdim[1], 0);
        shift(&GG_OFFSET_DIMS(&q), 1), shift(&GG_INDICES_BATCH(&q), 1);
        q.flag &= ~(GG_SORTED | GG_UNIQUE);
    } else {
        /* both: the batch axes pair up as operand and indices batching axes */
        x = batch_moveaxis(x, bdim[0], 0);
        idx = batch_moveaxis(idx, bdim[1], 0);
        shift(&GG_OFFSET_DIMS(&q), 1), shift(&GG_COLLAPSED(&q), 1), shift(&GG_START_MAP(&q), 1);
        shift(&GG_OPERAND_BATCH(&q), 1), prepend(&GG_OPERAND_BATCH(&q), 0);
        shift(&GG_INDICES_BATCH(&q), 1), prepend(&GG_INDICES_BATCH(&q), 0);
        prepend(&GG_SLICE_SIZES(&q), size ? 1 : 0);
    }
    *out = core_bind(ctx, prim, &q, 2, (cj_val[]){x, idx});
    *out_bdim = 0;
    return out->slot ? 0 : -1;
}

static int scatter_general_batch(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                                 const int64_t *bdim, int64_t size, cj_val *out, int64_t *out_bdim) {
    (void)n_in;
    /* an unbatched operand or updates gains the batch axis */
    const rt_aval *xa = &core_peek(in[0])->aval, *ua = &core_peek(in[2])->aval;
    if ((bdim[0] == BDIM_NONE && batch_check_rank(ctx, "scatter_general", xa, xa->rank + 1, size)) ||
        (bdim[2] == BDIM_NONE && batch_check_rank(ctx, "scatter_general", ua, ua->rank + 1, size)))
        return -1;
    prim_params q = *p;
    cj_val x = batch_to(in[0], bdim[0], size, 0), u = batch_to(in[2], bdim[2], size, 0), idx = in[1];
    if (bdim[1] == BDIM_NONE) {
        shift(&GG_OFFSET_DIMS(&q), 1), prepend(&GG_OFFSET_DIMS(&q), 0);
        shift(&GG_COLLAPSED(&q), 1), shift(&GG_START_MAP(&q), 1), shift(&GG_OPERAND_BATCH(&q), 1);
    } else {
        idx = batch_moveaxis(idx, bdim[1], 0);
        shift(&GG_OFFSET_DIMS(&q), 1), shift(&GG_COLLAPSED(&q), 1), shift(&GG_START_MAP(&q), 1);
        shift(&GG_OPERAND_BATCH(&q), 1), prepend(&GG_OPERAND_BATCH(&q), 0);
        shift(&GG_INDICES_BATCH(&q), 1), prepend(&GG_INDICES_BATCH(&q), 0);
    }
    *out = core_bind(ctx, prim, &q, 3, (cj_val[]){x, idx, u});
    *out_bdim = 0;
    return out->slot ? 0 : -1;
}

void prim_register_gather_general(void) {
    prim_rules[PRIM_GATHER_GENERAL] = (prim_rule){
        .abstract_eval = gather_general_abstract_eval,
        .impl = gather_general_impl,
        .print_params = gather_general_print,
        .batch = gather_general_batch,
        .lower = {.kind = LOWER_OPAQUE, .workspace_of = gg_workspace},
        .extra_dtypes = true, /* any operand dtype; indices of any integer dtype */
    };
    prim_rules[PRIM_SCATTER_GENERAL] = (prim_rule){
        .abstract_eval = scatter_general_abstract_eval,
        .impl = scatter_general_impl,
        .print_params = scatter_general_print,
        .batch = scatter_general_batch,
        .lower = {.kind = LOWER_OPAQUE, .workspace_of = gg_workspace},
        .extra_dtypes = true, /* any operand dtype; indices of any integer dtype */
    };
}
