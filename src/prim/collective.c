/* collective.c — collectives over named axes (prim layer): psum, pmax,
 * pmin, all_gather, reduce_scatter (psum_scatter), ppermute, all_to_all,
 * axis_index, as jax.lax's.
 *
 * A collective means nothing alone: it is given meaning by the trace that
 * binds its axis. core_bind hands it to at least that trace
 * (core_axis_find, src/core/trace.c); a cj_vmap with axis_name then calls
 * batch_named, which turns it into ordinary primitives over the batch axis
 * (psum sums over it, all_gather stacks it, axis_index is an iota along
 * it). A vmap over another axis calls `batch`, which moves its own batch
 * axis out of the way and binds the collective again. So after vmap a
 * program holds no collective, and jit compiles it as any other; a
 * collective staged while its axis is bound (jit inside a named vmap) is
 * evaluated through that vmap again. The eager kernel is only reached by a
 * program run with no trace binding the axis, and says so. Shapes are per
 * member of the axis, as in JAX. The shapes parameters take are in
 * collective.h; jvp and transpose rules in src/autodiff/rules_collective.c;
 * docs/COLLECTIVES.md. */
#include <stdio.h>
#include <string.h>

#include "batching.h"
#include "collective.h"

int64_t coll_size(const prim_params *p) {
    int64_t s = 1;
    for (int a = 0; a < p->lo.n; a++) s *= p->hi.v[a];
    return s;
}

/* ---- ppermute's record ---- */
static void perm_release(prim_ref *r) {
    coll_perm *c = (coll_perm *)r;
    rt_free(c->mem, c->pairs, sizeof(int64_t) * (size_t)(2 * c->n_pairs + 1));
    rt_free(c->mem, c->src_of, sizeof(int64_t) * (size_t)(c->size + 1));
    rt_free(c->mem, c, sizeof *c);
}

coll_perm *coll_perm_new(cj_ctx *ctx, int64_t size, int64_t n_pairs, const int64_t *pairs, int invert) {
    coll_perm *c = rt_calloc(ctx->mem, sizeof *c);
    int64_t *pr = c ? rt_alloc(ctx->mem, sizeof(int64_t) * (size_t)(2 * n_pairs + 1)) : NULL;
    int64_t *src = pr ? rt_alloc(ctx->mem, sizeof(int64_t) * (size_t)(size + 1)) : NULL;
    if (!src) {
        if (pr) rt_free(ctx->mem, pr, sizeof(int64_t) * (size_t)(2 * n_pairs + 1));
        if (c) rt_free(ctx->mem, c, sizeof *c);
        core_oom(ctx, "ppermute");
        return NULL;
    }
    for (int64_t d = 0; d < size; d++) src[d] = -1;
    for (int64_t k = 0; k < n_pairs; k++) {
        pr[2 * k] = pairs[2 * k + (invert ? 1 : 0)];
        pr[2 * k + 1] = pairs[2 * k + (invert ? 0 : 1)];
        src[pr[2 * k + 1]] = pr[2 * k];
    }
    c->ref.refs = 1;
    c->ref.release = perm_release;
    c->mem = ctx->mem;
    c->n_pairs = n_pairs;
    c->size = size;
    c->pairs = pr;
    c->src_of = src;
    return c;
}

/* ---- shape rules ---- */
static const char *dtype_name(cj_dtype d) { return rt_dtypes[d].name; }

static int coll_abstract_eval(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const rt_aval *in,
                              rt_aval *out) {
    (void)n_in;
    if (p->lo.n < 1) return prim_error(ctx, CJ_ERR_ARG, prim, "names no axis");
    int64_t s = coll_size(p);
    if (prim == PRIM_AXIS_INDEX) {
        *out = rt_aval_make(CJ_I32, 0, NULL);
        return 0;
    }
    const rt_aval *x = &in[0];
    char t[96];
    rt_aval_str(x, t, sizeof t);
    *out = *x;
    switch (prim) {
    case PRIM_PSUM:
    case PRIM_PMAX:
    case PRIM_PMIN:
        if (x->dtype == CJ_BOOL)
            return prim_error(ctx, CJ_ERR_DTYPE, prim, "operand %s: bool is not a number (convert it first)", t);
        return 0;
    case PRIM_PPERMUTE:
        if (!p->ref || coll_perm_of(p)->size != s)
            return prim_error(ctx, CJ_ERR_ARG, prim, "its permutation is not over an axis of size %lld", (long long)s);
        return 0;
    case PRIM_ALL_GATHER: {
        int64_t ax = p->axes.v[0];
        if (p->flag) {
            if (ax < 0 || ax >= x->rank)
                return prim_error(ctx, CJ_ERR_AXIS, prim, "axis %lld is out of range for operand %s (tiled)",
                                  (long long)ax, t);
            out->dims[ax] *= s;
            return 0;
        }
        if (ax < 0 || ax > x->rank || x->rank + 1 > CJ_MAX_RANK)
            return prim_error(ctx, CJ_ERR_AXIS, prim, "axis %lld is out of range for operand %s", (long long)ax, t);
        out->rank = x->rank + 1;
        for (int d = 0; d < out->rank; d++) out->dims[d] = d < ax ? x->dims[d] : d == ax ? s : x->dims[d - 1];
        return 0;
    }
    case PRIM_PSUM_SCATTER: {
        int64_t ax = p->axes.v[0];
        if (x->dtype == CJ_BOOL)
            return prim_error(ctx, CJ_ERR_DTYPE, prim, "operand %s: bool is not a number (convert it first)", t);
        if (ax < 0 || ax >= x->rank)
            return prim_error(ctx, CJ_ERR_AXIS, prim, "scatter_dimension %lld is out of range for operand %s",
                              (long long)ax, t);
        if (p->flag) {
            if (x->dims[ax] % s != 0)
                return prim_error(ctx, CJ_ERR_SHAPE, prim,
                                  "operand %s: size %lld of scatter_dimension %lld is not a multiple of the axis size "
                                  "%lld (tiled)",
                                  t, (long long)x->dims[ax], (long long)ax, (long long)s);
            out->dims[ax] /= s;
            return 0;
        }
        if (x->dims[ax] != s)
            return prim_error(ctx, CJ_ERR_SHAPE, prim,
                              "operand %s: size %lld of scatter_dimension %lld must equal the axis size %lld", t,
                              (long long)x->dims[ax], (long long)ax, (long long)s);
        out->rank = x->rank - 1;
        for (int d = 0; d < out->rank; d++) out->dims[d] = x->dims[d < ax ? d : d + 1];
        return 0;
    }
    case PRIM_ALL_TO_ALL: {
        int64_t sp = p->axes.v[0], cc = p->axes.v[1];
        if (sp < 0 || sp >= x->rank || cc < 0 || cc >= x->rank)
            return prim_error(ctx, CJ_ERR_AXIS, prim, "split_axis %lld or concat_axis %lld is out of range for %s",
                              (long long)sp, (long long)cc, t);
        if (x->dims[sp] % s != 0)
            return prim_error(ctx, CJ_ERR_SHAPE, prim,
                              "operand %s: size %lld of split_axis %lld is not a multiple of the axis size %lld", t,
                              (long long)x->dims[sp], (long long)sp, (long long)s);
        out->dims[sp] /= s;
        out->dims[cc] *= s;
        return 0;
    }
    default: return prim_error(ctx, CJ_ERR_INTERNAL, prim, "not a collective (%s)", dtype_name(x->dtype));
    }
}

/* Reached only when a program holding a collective runs on arrays with no
 * trace binding its axis (a collective bound outside one is refused by
 * core_bind before any program holds it). */
static int coll_impl(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, rt_array *const *in,
                     rt_array *out) {
    (void)n_in, (void)in, (void)out;
    return prim_error(ctx, CJ_ERR_AXIS, prim,
                      "unbound axis name: %s (a collective runs only under the transformation that binds its axis, "
                      "cj_vmap with axis_name)",
                      core_axis_name_str((int)p->lo.v[0]));
}

/* ---- printing (JAX's parameter names) ---- */
static int names_str(const prim_params *p, char *buf, size_t size) {
    size_t len = (size_t)snprintf(buf, size, "(");
    for (int a = 0; a < p->lo.n && len < size; a++)
        len += (size_t)snprintf(buf + len, size - len, "'%s',", core_axis_name_str((int)p->lo.v[a]));
    if (len < size) len += (size_t)snprintf(buf + len, size - len, ")");
    return (int)len;
}

static int psum_print(const prim_params *p, char *buf, size_t size) {
    char n[300];
    names_str(p, n, sizeof n);
    return snprintf(buf, size, "axes=%s", n);
}

static int all_gather_print(const prim_params *p, char *buf, size_t size) {
    char n[300];
    names_str(p, n, sizeof n);
    return snprintf(buf, size, "all_gather_dimension=%lld axis_name=%s axis_size=%lld tiled=%s",
                    (long long)p->axes.v[0], n, (long long)coll_size(p), p->flag ? "True" : "False");
}

static int reduce_scatter_print(const prim_params *p, char *buf, size_t size) {
    char n[300];
    names_str(p, n, sizeof n);
    return snprintf(buf, size, "axis_name=%s axis_size=%lld scatter_dimension=%lld tiled=%s", n,
                    (long long)coll_size(p), (long long)p->axes.v[0], p->flag ? "True" : "False");
}

static int all_to_all_print(const prim_params *p, char *buf, size_t size) {
    char n[300];
    names_str(p, n, sizeof n);
    return snprintf(buf, size, "axis_name=%s concat_axis=%lld split_axis=%lld tiled=True", n, (long long)p->axes.v[1],
                    (long long)p->axes.v[0]);
}

static int ppermute_print(const prim_params *p, char *buf, size_t size) {
    char n[300];
    names_str(p, n, sizeof n);
    const coll_perm *c = coll_perm_of(p);
    size_t len = (size_t)snprintf(buf, size, "axis_name=%s perm=(", n);
    for (int64_t k = 0; c && k < c->n_pairs && len < size; k++)
        len += (size_t)snprintf(buf + len, size - len, "%s(%lld, %lld)", k ? ", " : "", (long long)c->pairs[2 * k],
                                (long long)c->pairs[2 * k + 1]);
    if (c && c->n_pairs == 1 && len < size) len += (size_t)snprintf(buf + len, size - len, ",");
    if (len < size) len += (size_t)snprintf(buf + len, size - len, ")");
    return (int)len;
}

static int axis_index_print_params(const prim_params *p, char *buf, size_t size) {
    return snprintf(buf, size, "axis_name=%s", core_axis_name_str((int)p->lo.v[0]));
}

/* ---- vmap over another axis: the collective stays, per example ---- */
static int coll_batch(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                      const int64_t *bdim, int64_t size, cj_val *out, int64_t *out_bdim) {
    (void)size, (void)n_in;
    if (prim == PRIM_PSUM || prim == PRIM_PMAX || prim == PRIM_PMIN || prim == PRIM_PPERMUTE) {
        *out = core_bind(ctx, prim, p, 1, in); /* elementwise over the members */
        *out_bdim = bdim[0];
        return out->slot ? 0 : -1;
    }
    /* the others address axes of the example: the batch axis goes first */
    cj_val x = batch_moveaxis(in[0], bdim[0], 0);
    prim_params q = *p;
    for (int k = 0; k < q.axes.n; k++) q.axes.v[k] += 1;
    *out = core_bind(ctx, prim, &q, 1, &x);
    *out_bdim = 0;
    return out->slot ? 0 : -1;
}

/* ---- vmap along the named axis ---- */
/* p without the axis `name` (the remaining axes of a psum over several). */
static prim_params without_axis(const prim_params *p, int name) {
    prim_params q = *p;
    q.lo.n = q.hi.n = 0;
    for (int a = 0; a < p->lo.n; a++)
        if (p->lo.v[a] != name) {
            q.lo.v[q.lo.n++] = p->lo.v[a];
            q.hi.v[q.hi.n++] = p->hi.v[a];
        }
    return q;
}

/* The sum over the members: the batch axis reduced, or an unbatched value
 * (the same on every member) times the size. */
static cj_val member_sum(cj_ctx *ctx, cj_val x, int64_t bdim, int64_t size) {
    if (bdim != BDIM_NONE) return bind_reduce(PRIM_REDUCE_SUM, x, 1, &bdim);
    const rt_aval *a = &core_peek(x)->aval;
    return bind_binary(PRIM_MUL, x, bind_scalar(ctx, (double)size, a->dtype, a->weak));
}

/* An i32 constant [n] (an array: staged, it is a constant of the program). */
static cj_val int_table(cj_ctx *ctx, int64_t n, const int64_t *v) {
    rt_aval a = rt_aval_make(CJ_I32, 1, &n);
    rt_array *arr = rt_array_new(ctx->mem, &a);
    if (!arr) {
        core_oom(ctx, "ppermute");
        return core_err_val(ctx);
    }
    int32_t *d = arr->data;
    for (int64_t i = 0; i < n; i++) d[i] = (int32_t)v[i];
    return core_wrap_array(ctx, arr);
}

static int ppermute_named(cj_ctx *ctx, const prim_params *p, cj_val x, int64_t bdim, int64_t size, cj_val *out) {
    const coll_perm *c = coll_perm_of(p);
    cj_val xb = batch_to(x, bdim, size, 0);
    const rt_aval *a = &core_peek(xb)->aval;
    int64_t src[4096], *s = size <= 4096 ? src : rt_alloc(ctx->mem, sizeof(int64_t) * (size_t)size);
    if (!s) return core_oom(ctx, "ppermute");
    int full = 1;
    for (int64_t d = 0; d < size; d++) {
        s[d] = c->src_of[d] < 0 ? 0 : c->src_of[d];
        full &= c->src_of[d] >= 0;
    }
    cj_val idx = int_table(ctx, size, s);
    int64_t zero = 0;
    cj_val r = bind_take_along(xb, bind_broadcast_in_dim(idx, a->rank, a->dims, &zero), 0);
    if (!full) { /* destinations no pair reaches get zeros, as in JAX */
        for (int64_t d = 0; d < size; d++) s[d] = c->src_of[d] >= 0;
        cj_val reached = bind_convert(int_table(ctx, size, s), CJ_BOOL);
        cj_val mask = bind_broadcast_in_dim(reached, a->rank, a->dims, &zero);
        r = bind_where(mask, r, bind_full(ctx, 0, a->dtype, a->rank, a->dims));
    }
    if (s != src) rt_free(ctx->mem, s, sizeof(int64_t) * (size_t)size);
    *out = r;
    return r.slot ? 0 : -1;
}

/* all_to_all (tiled) with the members along axis 0 of xb: member m's
 * chunk k of split_axis goes to member k, at place m of concat_axis. */
static cj_val all_to_all_named(cj_val xb, const prim_params *p, int64_t size) {
    const rt_aval *a = &core_peek(xb)->aval;
    int r = a->rank - 1; /* the example's rank */
    int64_t sp = p->axes.v[0], cc = p->axes.v[1];
    /* [m, e0.., (k, c) at split, ..]: the split axis cut into k and c */
    int64_t dims[CJ_MAX_RANK + 1];
    int n = 0;
    dims[n++] = a->dims[0];
    for (int d = 0; d < r; d++) {
        if (d == sp) {
            dims[n++] = size;
            dims[n++] = a->dims[d + 1] / size;
        } else dims[n++] = a->dims[d + 1];
    }
    cj_val y = bind_reshape(xb, n, dims);
    /* position of example axis d in y (at the split: its c part) */
#define POS(d) (1 + (d) + ((d) > sp ? 1 : 0) + ((d) == sp ? 1 : 0))
    int64_t perm[CJ_MAX_RANK + 1];
    int k = 0;
    perm[k++] = 1 + sp; /* the chunk index becomes the member */
    for (int d = 0; d < r; d++) {
        if (d == cc) perm[k++] = 0; /* the sender, just before its concat axis */
        perm[k++] = POS(d);
    }
#undef POS
    y = bind_transpose(y, perm);
    /* merge sender and concat axis */
    const rt_aval *t = &core_peek(y)->aval;
    int64_t od[CJ_MAX_RANK];
    int m = 0;
    for (int d = 0; d < t->rank; d++) {
        if (d == 1 + cc) {
            od[m++] = t->dims[d] * t->dims[d + 1];
            d++;
        } else od[m++] = t->dims[d];
    }
    return bind_reshape(y, m, od);
}

static int coll_batch_named(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int name, int n_in,
                            const cj_val *in, const int64_t *bdim, int64_t size, cj_val *out, int64_t *out_bdim) {
    prim_params rest = without_axis(p, name);
    *out_bdim = BDIM_NONE;
    if (prim == PRIM_AXIS_INDEX) {
        *out = bind_iota(ctx, CJ_I32, 1, &size, 0);
        *out_bdim = 0;
        return out->slot ? 0 : -1;
    }
    (void)n_in;
    cj_val x = in[0], r;
    int64_t b = bdim[0];
    const rt_aval *a = &core_peek(x)->aval;
    switch (prim) {
    case PRIM_PSUM: r = member_sum(ctx, x, b, size); break;
    case PRIM_PMAX:
    case PRIM_PMIN:
        r = b == BDIM_NONE ? x : bind_reduce(prim == PRIM_PMAX ? PRIM_REDUCE_MAX : PRIM_REDUCE_MIN, x, 1, &b);
        break;
    case PRIM_ALL_GATHER: {
        int64_t g = p->axes.v[0];
        r = batch_to(x, b, size, g); /* stacked along the gathered axis */
        if (p->flag && r.slot) {
            const rt_aval *ra = &core_peek(r)->aval;
            int64_t d[CJ_MAX_RANK];
            int n = 0;
            for (int i = 0; i < ra->rank; i++) d[n++] = i == g ? ra->dims[i] * ra->dims[i + 1] : ra->dims[i + (i > g)];
            r = bind_reshape(r, ra->rank - 1, d);
        }
        break;
    }
    case PRIM_PSUM_SCATTER: {
        int64_t sd = p->axes.v[0];
        cj_val y = member_sum(ctx, x, b, size);
        if (p->flag && y.slot) { /* scatter_dimension cut into (member, chunk) */
            const rt_aval *ya = &core_peek(y)->aval;
            int64_t d[CJ_MAX_RANK + 1];
            int n = 0;
            for (int i = 0; i < ya->rank; i++) {
                if (i == sd) {
                    d[n++] = size;
                    d[n++] = ya->dims[i] / size;
                } else d[n++] = ya->dims[i];
            }
            y = bind_reshape(y, n, d);
        }
        *out = y;
        *out_bdim = sd; /* member m keeps its slice */
        return y.slot ? 0 : -1;
    }
    case PRIM_PPERMUTE:
        if (ppermute_named(ctx, p, x, b, size, out) != 0) return -1;
        *out_bdim = 0;
        return 0;
    case PRIM_ALL_TO_ALL:
        *out = all_to_all_named(batch_to(x, b, size, 0), p, size);
        *out_bdim = 0;
        return out->slot ? 0 : -1;
    default: return prim_error(ctx, CJ_ERR_INTERNAL, prim, "no rule along its axis (%d)", a->rank);
    }
    /* a reduction over several axes goes on over the others */
    if (rest.lo.n > 0 && r.slot) r = core_bind(ctx, prim, &rest, 1, &r);
    *out = r;
    return r.slot ? 0 : -1;
}

void prim_register_collective(void) {
    for (int id = PRIM_PSUM; id <= PRIM_AXIS_INDEX; id++)
        prim_rules[id] = (prim_rule){
            .abstract_eval = coll_abstract_eval,
            .impl = coll_impl,
            .print_params = psum_print,
            .lower = {.kind = LOWER_OPAQUE},
            .batch = coll_batch,
            .collective = true,
            .batch_named = coll_batch_named,
        };
    prim_rules[PRIM_AXIS_INDEX].batch = NULL; /* no operands: never batched */
    prim_rules[PRIM_AXIS_INDEX].print_params = axis_index_print_params;
    prim_rules[PRIM_ALL_GATHER].print_params = all_gather_print;
    prim_rules[PRIM_PSUM_SCATTER].print_params = reduce_scatter_print;
    prim_rules[PRIM_ALL_TO_ALL].print_params = all_to_all_print;
    prim_rules[PRIM_PPERMUTE].print_params = ppermute_print;
}
