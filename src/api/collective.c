/* collective.c — the public collectives over named axes (api layer):
 * cj_psum, cj_pmean, cj_pmax, cj_pmin, cj_all_gather, cj_psum_scatter,
 * cj_ppermute, cj_all_to_all, cj_axis_index, as jax.lax's.
 *
 * Each parses its axis names, looks every one up in the axis environment
 * (core_axis_find: the one lookup, shared with core_bind's routing) for
 * its size, checks its arguments against the sizes as JAX does, and binds
 * the primitive of src/prim/collective.c with the names and sizes in its
 * parameters. pmean is psum divided by the size (JAX's own definition);
 * all_to_all without tiled is the tiled primitive between an expand_dims
 * and a squeeze (JAX's too). docs/COLLECTIVES.md. */
#include <stdio.h>
#include <string.h>

#include "../prim/collective.h"
#include "api.h"

/* Names ("i" or "i,j") into p->lo (ids) and p->hi (sizes); `several`
 * whether more than one is allowed. 0, or -1 with the error recorded. */
static int parse_axes(cj_ctx *ctx, const char *op, const char *names, int several, prim_params *p) {
    if (!names || !*names)
        return core_error(ctx, CJ_ERR_ARG, "%s: axis_name is %s (name the axis of a cj_vmap's axis_name)", op,
                          names ? "empty" : "NULL");
    const char *s = names;
    while (*s) {
        const char *e = strchr(s, ',');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        char one[CORE_AXIS_NAME_MAX + 1];
        if (len == 0 || len > CORE_AXIS_NAME_MAX)
            return core_error(ctx, CJ_ERR_ARG, "%s: axis_name \"%s\" has an empty or over-long (> %d) name", op, names,
                              CORE_AXIS_NAME_MAX);
        memcpy(one, s, len);
        one[len] = 0;
        if (p->lo.n == CJ_MAX_RANK)
            return core_error(ctx, CJ_ERR_ARG, "%s: axis_name \"%s\" names more than %d axes", op, names, CJ_MAX_RANK);
        int id = core_axis_name_id(one);
        int64_t size = 0;
        if (id < 0 || core_axis_find(ctx, id, &size) < 0) {
            char bound[200];
            core_axis_names(ctx, bound, sizeof bound);
            return core_error(ctx, CJ_ERR_AXIS,
                              "%s: unbound axis name: %s (bound here: %s; a named axis is bound by cj_vmap with "
                              "cj_vmap_opts.axis_name)",
                              op, one, bound);
        }
        for (int a = 0; a < p->lo.n; a++)
            if (p->lo.v[a] == id) return core_error(ctx, CJ_ERR_AXIS, "%s: axis name %s repeated in \"%s\"", op, one, names);
        p->lo.v[p->lo.n++] = id;
        p->hi.v[p->hi.n++] = size;
        s = e ? e + 1 : s + len;
        if (e && !*s)
            return core_error(ctx, CJ_ERR_ARG, "%s: axis_name \"%s\" ends with ','", op, names);
    }
    if (p->lo.n > 1 && !several)
        return core_error(ctx, CJ_ERR_ARG, "%s: takes one axis name, got \"%s\"", op, names);
    return 0;
}

/* The operand's type and the parsed names; NULL with the error recorded. */
static const rt_aval *start(cj_val x, const char *op, const char *names, int several, prim_params *p) {
    if (!x.ctx) return NULL;
    const rt_aval *a = api_aval(x, op);
    *p = prim_params_zero();
    if (!a || parse_axes(x.ctx, op, names, several, p) != 0) return NULL;
    return a;
}

static cj_val reduction(prim_id prim, cj_val x, const char *names, const char *op) {
    prim_params p;
    if (!x.ctx) return api_no_ctx(op, "x");
    if (!start(x, op, names, 1, &p)) return api_err(x.ctx);
    return core_bind(x.ctx, prim, &p, 1, &x);
}

cj_val cj_psum(cj_val x, const char *axis_name) { return reduction(PRIM_PSUM, x, axis_name, "cj_psum"); }
cj_val cj_pmax(cj_val x, const char *axis_name) { return reduction(PRIM_PMAX, x, axis_name, "cj_pmax"); }
cj_val cj_pmin(cj_val x, const char *axis_name) { return reduction(PRIM_PMIN, x, axis_name, "cj_pmin"); }

cj_val cj_pmean(cj_val x, const char *axis_name) {
    prim_params p;
    if (!x.ctx) return api_no_ctx("cj_pmean", "x");
    if (!start(x, "cj_pmean", axis_name, 1, &p)) return api_err(x.ctx);
    cj_val s = core_bind(x.ctx, PRIM_PSUM, &p, 1, &x);
    /* JAX: psum(x) / psum(1), a weak integer: true division */
    return cj_div(s, cj_scalar_int(x.ctx, coll_size(&p)));
}

cj_val cj_all_gather(cj_val x, const char *axis_name, int64_t axis, int tiled) {
    prim_params p;
    if (!x.ctx) return api_no_ctx("cj_all_gather", "x");
    const rt_aval *a = start(x, "cj_all_gather", axis_name, 0, &p);
    if (!a) return api_err(x.ctx);
    int rank = tiled ? a->rank : a->rank + 1;
    if (api_axis(x.ctx, "cj_all_gather", axis, rank, &p.axes.v[0]) != 0) return api_err(x.ctx);
    p.axes.n = 1;
    p.flag = tiled != 0;
    return core_bind(x.ctx, PRIM_ALL_GATHER, &p, 1, &x);
}

cj_val cj_psum_scatter(cj_val x, const char *axis_name, int64_t scatter_dimension, int tiled) {
    prim_params p;
    if (!x.ctx) return api_no_ctx("cj_psum_scatter", "x");
    const rt_aval *a = start(x, "cj_psum_scatter", axis_name, 0, &p);
    if (!a) return api_err(x.ctx);
    if (api_axis(x.ctx, "cj_psum_scatter", scatter_dimension, a->rank, &p.axes.v[0]) != 0) return api_err(x.ctx);
    p.axes.n = 1;
    p.flag = tiled != 0;
    return core_bind(x.ctx, PRIM_PSUM_SCATTER, &p, 1, &x);
}

cj_val cj_ppermute(cj_val x, const char *axis_name, int64_t n_pairs, const int64_t *perm) {
    prim_params p;
    if (!x.ctx) return api_no_ctx("cj_ppermute", "x");
    if (!start(x, "cj_ppermute", axis_name, 0, &p)) return api_err(x.ctx);
    cj_ctx *ctx = x.ctx;
    int64_t size = p.hi.v[0];
    if (n_pairs < 0 || (n_pairs > 0 && !perm))
        return core_error(ctx, CJ_ERR_ARG, "cj_ppermute: n_pairs %lld with perm %s", (long long)n_pairs,
                          perm ? "given" : "NULL"),
               api_err(ctx);
    if (n_pairs > size)
        return core_error(ctx, CJ_ERR_ARG, "cj_ppermute: %lld pairs for an axis of size %lld: sources and destinations "
                                           "must be unique", (long long)n_pairs, (long long)size),
               api_err(ctx);
    for (int64_t k = 0; k < n_pairs; k++) {
        for (int s = 0; s < 2; s++)
            if (perm[2 * k + s] < 0 || perm[2 * k + s] >= size)
                return core_error(ctx, CJ_ERR_ARG,
                                  "cj_ppermute: pair %lld (%lld, %lld) is out of range for axis %s of size %lld",
                                  (long long)k, (long long)perm[2 * k], (long long)perm[2 * k + 1],
                                  core_axis_name_str((int)p.lo.v[0]), (long long)size),
                       api_err(ctx);
        for (int64_t j = 0; j < k; j++)
            if (perm[2 * j] == perm[2 * k] || perm[2 * j + 1] == perm[2 * k + 1])
                return core_error(ctx, CJ_ERR_ARG,
                                  "cj_ppermute: sources and destinations must be unique, got pairs (%lld, %lld) and "
                                  "(%lld, %lld)",
                                  (long long)perm[2 * j], (long long)perm[2 * j + 1], (long long)perm[2 * k],
                                  (long long)perm[2 * k + 1]),
                       api_err(ctx);
    }
    coll_perm *c = coll_perm_new(ctx, size, n_pairs, perm, 0);
    if (!c) return api_err(ctx);
    p.ref = &c->ref;
    cj_val r = core_bind(ctx, PRIM_PPERMUTE, &p, 1, &x);
    prim_ref_release(&c->ref); /* a staged equation holds its own */
    return r;
}

cj_val cj_all_to_all(cj_val x, const char *axis_name, int64_t split_axis, int64_t concat_axis, int tiled) {
    prim_params p;
    const char *op = "cj_all_to_all";
    if (!x.ctx) return api_no_ctx(op, "x");
    const rt_aval *a = start(x, op, axis_name, 0, &p);
    if (!a) return api_err(x.ctx);
    cj_ctx *ctx = x.ctx;
    int64_t sp, cc, size = p.hi.v[0];
    if (api_axis(ctx, op, split_axis, a->rank, &sp) != 0 || api_axis(ctx, op, concat_axis, a->rank, &cc) != 0)
        return api_err(ctx);
    char t[96];
    rt_aval_str(a, t, sizeof t);
    if (tiled) {
        if (a->dims[sp] % size != 0)
            return core_error(ctx, CJ_ERR_SHAPE,
                              "%s: the size %lld of split_axis %lld of %s is not divisible by the axis size %lld", op,
                              (long long)a->dims[sp], (long long)sp, t, (long long)size),
                   api_err(ctx);
        p.axes.n = 2;
        p.axes.v[0] = sp;
        p.axes.v[1] = cc;
        return core_bind(ctx, PRIM_ALL_TO_ALL, &p, 1, &x);
    }
    if (a->dims[sp] != size)
        return core_error(ctx, CJ_ERR_SHAPE,
                          "%s: requires the size of the mapped axis %s to equal x.shape[split_axis], but they are "
                          "%lld and %lld respectively (x %s)",
                          op, core_axis_name_str((int)p.lo.v[0]), (long long)size, (long long)a->dims[sp], t),
               api_err(ctx);
    /* JAX's: a new axis at concat_axis, the tiled form, the split axis
     * (now of size 1) dropped */
    cj_val y = x;
    if (sp < cc) y = cj_expand_dims(x, ++cc);
    else if (cc < sp) y = cj_expand_dims(x, cc), sp++;
    p.axes.n = 2;
    p.axes.v[0] = sp;
    p.axes.v[1] = cc;
    cj_val r = core_bind(ctx, PRIM_ALL_TO_ALL, &p, 1, &y);
    return sp == cc ? r : cj_squeeze(r, 1, &sp);
}

cj_val cj_axis_index(cj_ctx *ctx, const char *axis_name) {
    if (!ctx) return api_no_ctx("cj_axis_index", "ctx");
    prim_params p = prim_params_zero();
    if (ctx->err) return api_err(ctx);
    if (parse_axes(ctx, "cj_axis_index", axis_name, 0, &p) != 0) return api_err(ctx);
    return core_bind(ctx, PRIM_AXIS_INDEX, &p, 0, NULL);
}
