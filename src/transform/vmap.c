/* vmap.c — jax.vmap: vectorising a function over a batch axis (transform
 * layer).
 *
 * Calling a vmapped function pushes a batch trace. Each mapped input
 * becomes a tracer holding the whole batched value one level down and its
 * batch axis; the tracer shows the function the per-example type. Every
 * primitive the function applies reaches batch_process: with no batched
 * operand it is simply bound one level down; otherwise the primitive's
 * batch rule binds the batched computation and says where the batch axis
 * of the result is. At the end each output's batch axis is moved to its
 * out_axes position. Because rules bind one level down, vmap composes with
 * jit (a jitted function's cached IR is re-bound through this trace: f is
 * not called again) and with itself. With chunk_size the batch runs in
 * slices so intermediates stay bounded. */
#include <stdio.h>
#include <string.h>

#include "../core/func.h"
#include "../prim/batching.h"

typedef struct vmap_state {
    int64_t in_axes[64], out_axes[64];
    int64_t axis_size;
    int has_axis_size;
    int64_t chunk_size;
    int axis_name; /* its name id (core_axis_name_id), -1: unnamed */
} vmap_state;

typedef struct batch_trace {
    int64_t size;
    core_trace *trace;
    int axis_name; /* -1: unnamed */
} batch_trace;

static int vmap_call(cj_func *f, const cj_val *in, cj_val *out);
static void vmap_free_state(cj_func *f) {
    if (f->state) rt_free(f->ctx->mem, f->state, sizeof(vmap_state));
    f->state = NULL;
}
static const func_ops vmap_ops = {"vmap", vmap_call, vmap_free_state};

/* ---- the batch trace ---- */
static cj_val wrap(cj_ctx *ctx, batch_trace *bt, cj_val val, int64_t bdim) {
    core_value *src = core_peek(val);
    core_value *v;
    cj_val h = core_new_value(ctx, &v);
    if (!v) return h;
    v->kind = VALUE_TRACER;
    v->level = bt->trace->level;
    v->trace_id = bt->trace->id;
    v->sub[0] = val;
    v->tag = bdim;
    /* the function sees the per-example type */
    v->aval = src->aval;
    v->aval.rank = src->aval.rank - 1;
    for (int d = 0, k = 0; d < src->aval.rank; d++)
        if (d != bdim) v->aval.dims[k++] = src->aval.dims[d];
    return h;
}

/* Each operand one level down, with its batch axis (BDIM_NONE when it is
 * not this trace's tracer). Whether any is batched. */
static int unwrap_operands(const core_trace *t, int n_in, const cj_val *in, cj_val *vals, int64_t *bdims) {
    int any = 0;
    for (int i = 0; i < n_in; i++) {
        core_value *v = core_peek(in[i]);
        if (v->kind == VALUE_TRACER && v->level == t->level) {
            vals[i] = v->sub[0];
            bdims[i] = v->tag;
            any = 1;
        } else {
            vals[i] = in[i];
            bdims[i] = BDIM_NONE;
        }
    }
    return any;
}

/* Whether a collective's parameters name this axis (params.lo: name ids). */
static int names_axis(const prim_params *p, int axis_name) {
    for (int a = 0; axis_name >= 0 && a < p->lo.n; a++)
        if (p->lo.v[a] == axis_name) return 1;
    return 0;
}

static int batch_process(cj_ctx *ctx, core_trace *t, prim_id prim, const prim_params *p, int n_in,
                         const cj_val *in, cj_val *out) {
    batch_trace *bt = t->state;
    cj_val vals[PRIM_MAX_OPERANDS];
    int64_t bdims[PRIM_MAX_OPERANDS];
    int any = unwrap_operands(t, n_in, in, vals, bdims);
    if (prim_rules[prim].collective && names_axis(p, bt->axis_name)) {
        /* a collective over this batch's axis: batched or not, the rule
         * along the axis gives it its meaning (core_bind sent it here) */
        cj_val r;
        int64_t rb;
        rt_aval ex[PRIM_MAX_OPERANDS], res;
        for (int i = 0; i < n_in; i++) ex[i] = core_peek(in[i])->aval; /* the per-member types */
        if (core_abstract_eval(ctx, prim, p, n_in, ex, &res) != 0 ||
            prim_rules[prim].batch_named(ctx, prim, p, bt->axis_name, n_in, vals, bdims, bt->size, &r, &rb) != 0)
            return -1;
        *out = rb == BDIM_NONE ? r : wrap(ctx, bt, r, rb);
        return out->slot ? 0 : -1;
    }
    if (!any) { /* nothing batched: the primitive runs as it is */
        *out = core_bind(ctx, prim, p, n_in, vals);
        return out->slot ? 0 : -1;
    }
    if (!prim_rules[prim].batch)
        return core_error(ctx, CJ_ERR_UNSUPPORTED, "vmap: no batching rule for '%s'", prim_names[prim]);
    cj_val r;
    int64_t rb;
    if (prim_rules[prim].batch(ctx, prim, p, n_in, vals, bdims, bt->size, &r, &rb) != 0) return -1;
    *out = rb == BDIM_NONE ? r : wrap(ctx, bt, r, rb);
    return out->slot ? 0 : -1;
}

/* Several results: the primitive's batch_multi rule gives each its axis. */
static int batch_process_multi(cj_ctx *ctx, core_trace *t, prim_id prim, const prim_params *p, int n_in,
                               const cj_val *in, int n_out, cj_val *out) {
    batch_trace *bt = t->state;
    /* tables sized by the equation (a construct may have hundreds of
     * operands and results): values then batch axes */
    enum { SMALL = PRIM_SMALL_OPERANDS + PRIM_SMALL_RESULTS };
    cj_val val_s[SMALL];
    int64_t bdim_s[SMALL];
    int n = n_in + n_out;
    cj_val *vals = core_table(ctx, val_s, SMALL, n, sizeof *vals, prim_names[prim]), *r = vals ? vals + n_in : NULL;
    int64_t *bdims = core_table(ctx, bdim_s, SMALL, n, sizeof *bdims, prim_names[prim]),
            *rb = bdims ? bdims + n_in : NULL;
    int status = -1;
    if (vals && bdims) {
        int any = unwrap_operands(t, n_in, in, vals, bdims);
        if (!any) status = core_bind_multi(ctx, prim, p, n_in, vals, n_out, out);
        else if (!prim_rules[prim].batch_multi)
            core_error(ctx, CJ_ERR_UNSUPPORTED, "vmap: no batching rule for '%s'", prim_names[prim]);
        else if (prim_rules[prim].batch_multi(ctx, prim, p, n_in, vals, bdims, bt->size, n_out, r, rb) == 0) {
            status = 0;
            for (int j = 0; j < n_out && status == 0; j++) {
                out[j] = rb[j] == BDIM_NONE ? r[j] : wrap(ctx, bt, r[j], rb[j]);
                if (!out[j].slot) status = -1;
            }
        }
    }
    core_table_free(ctx, vals, val_s, n, sizeof *vals);
    core_table_free(ctx, bdims, bdim_s, n, sizeof *bdims);
    return status;
}

static const trace_ops batch_ops = {"vmap", batch_process, batch_process_multi};

/* ---- the function object ---- */
cj_func *cj_vmap(cj_func *inner, const cj_vmap_opts *opts) { return cj_vmap_named(inner, opts, NULL); }

cj_func *cj_vmap_named(cj_func *inner, const cj_vmap_opts *opts, const char *axis_name) {
    if (!func_check(NULL, inner, "cj_vmap", "f")) return NULL; /* NULL, freed, or of a freed context */
    cj_ctx *ctx = inner->ctx;
    vmap_state *st = rt_calloc(ctx->mem, sizeof *st);
    if (!st) {
        core_oom(ctx, "cj_vmap");
        return NULL;
    }
    st->axis_name = -1;
    if (axis_name) {
        const char *n = axis_name;
        st->axis_name = strchr(n, ',') ? -1 : core_axis_name_id(n);
        const char *why = st->axis_name < 0 ? "must be 1 to 63 characters without ','"
                          : opts && opts->chunk_size > 0 ? "cannot be combined with chunk_size (a collective needs the whole batch)"
                                                 : NULL;
        if (why) {
            core_error(ctx, CJ_ERR_ARG, "cj_vmap(%s): axis_name \"%s\" %s", inner->name, n, why);
            rt_free(ctx->mem, st, sizeof *st);
            return NULL;
        }
    }
    for (int i = 0; i < inner->n_in; i++) st->in_axes[i] = opts && opts->in_axes ? opts->in_axes[i] : 0;
    for (int i = 0; i < inner->n_out; i++) st->out_axes[i] = opts && opts->out_axes ? opts->out_axes[i] : 0;
    if (opts) {
        st->axis_size = opts->axis_size;
        st->has_axis_size = opts->has_axis_size;
        st->chunk_size = opts->chunk_size;
        if (opts->chunk_size < 0 || (opts->has_axis_size && opts->axis_size < 0)) {
            core_error(ctx, CJ_ERR_ARG, "cj_vmap(%s): chunk_size and axis_size must be >= 0", inner->name);
            rt_free(ctx->mem, st, sizeof *st);
            return NULL;
        }
    }
    char name[256];
    if (axis_name) snprintf(name, sizeof name, "vmap(%s, axis_name=%s)", inner->name, axis_name);
    else snprintf(name, sizeof name, "vmap(%s)", inner->name);
    cj_func *f = func_new(ctx, name, &vmap_ops, inner->n_in, inner->n_out);
    if (!f) {
        rt_free(ctx->mem, st, sizeof *st);
        return NULL;
    }
    f->inner = func_retain(inner);
    f->state = st;
    return f;
}

/* Normalises the mapped axes and finds the batch size; -1 with a message
 * listing every mapped argument when sizes disagree. */
static int batch_size_of(cj_func *f, const cj_val *in, int64_t *axes, int64_t *size) {
    cj_ctx *ctx = f->ctx;
    vmap_state *st = f->state;
    int64_t found = -1;
    int consistent = 1;
    for (int i = 0; i < f->n_in; i++) {
        axes[i] = BDIM_NONE;
        if (st->in_axes[i] == CJ_NOT_MAPPED) continue;
        const rt_aval *a = &core_peek(in[i])->aval;
        int64_t ax = st->in_axes[i] < 0 ? st->in_axes[i] + a->rank : st->in_axes[i];
        if (ax < 0 || ax >= a->rank) {
            char t[96];
            rt_aval_str(a, t, sizeof t);
            return core_error(ctx, CJ_ERR_AXIS, "%s: in_axes[%d] = %lld is out of range for argument %d of type %s",
                              f->name, i, (long long)st->in_axes[i], i, t);
        }
        axes[i] = ax;
        if (found >= 0 && a->dims[ax] != found) consistent = 0;
        if (found < 0) found = a->dims[ax];
    }
    if (!consistent) {
        char msg[700];
        size_t len = (size_t)snprintf(msg, sizeof msg, "%s: inconsistent sizes along the mapped axes:", f->name);
        for (int i = 0; i < f->n_in && len < sizeof msg; i++) {
            if (axes[i] == BDIM_NONE) continue;
            const rt_aval *a = &core_peek(in[i])->aval;
            char t[96];
            rt_aval_str(a, t, sizeof t);
            len += (size_t)snprintf(msg + len, sizeof msg - len, " argument %d of type %s has size %lld along axis %lld;",
                                    i, t, (long long)a->dims[axes[i]], (long long)axes[i]);
        }
        return core_error(ctx, CJ_ERR_SHAPE, "%s", msg);
    }
    if (found < 0) {
        if (!st->has_axis_size)
            return core_error(ctx, CJ_ERR_ARG, "%s: no argument is mapped, so the batch size must be given (axis_size)",
                              f->name);
        found = st->axis_size;
    }
    *size = found;
    return 0;
}

/* One batched call over whole inputs. */
static int vmap_once(cj_func *f, const cj_val *in, const int64_t *axes, int64_t size, cj_val *out) {
    cj_ctx *ctx = f->ctx;
    vmap_state *st = f->state;
    batch_trace bt = {size, NULL, st->axis_name};
    int depth = cj_scope_begin(ctx);
    if (depth < 0) return -1;
    char what[300];
    snprintf(what, sizeof what, "%s", f->name);
    bt.trace = core_push_trace(ctx, &batch_ops, &bt, what);
    if (!bt.trace) {
        core_scope_end(ctx, 0, NULL);
        return -1;
    }
    if (st->axis_name >= 0) { /* the axis environment: core_axis_find reads it */
        bt.trace->n_axes = 1;
        bt.trace->axis_name[0] = st->axis_name;
        bt.trace->axis_size[0] = size;
    }
    cj_val args[64], res[64];
    int ok = 1;
    for (int i = 0; i < f->n_in && ok; i++) {
        args[i] = axes[i] == BDIM_NONE ? in[i] : wrap(ctx, &bt, in[i], axes[i]);
        ok = args[i].slot != 0;
    }
    if (ok) ok = cj_call(f->inner, args, res) == CJ_OK;
    for (int j = 0; j < f->n_out && ok; j++) {
        core_value *v = core_peek(res[j]);
        cj_val val = res[j];
        int64_t bd = BDIM_NONE;
        if (v->kind == VALUE_TRACER && v->level == bt.trace->level) {
            val = v->sub[0];
            bd = v->tag;
        }
        int64_t want = st->out_axes[j];
        if (want == CJ_NOT_MAPPED) {
            if (bd != BDIM_NONE) {
                core_error(ctx, CJ_ERR_ARG,
                           "%s: output %d depends on the mapped inputs, but out_axes[%d] says it is not mapped",
                           f->name, j, j);
                ok = 0;
                break;
            }
            out[j] = val;
            continue;
        }
        int rank = v->aval.rank + 1; /* the batched output's rank */
        int64_t at = want < 0 ? want + rank : want;
        if (at < 0 || at >= rank) {
            core_error(ctx, CJ_ERR_AXIS, "%s: out_axes[%d] = %lld is out of range for an output of rank %d", f->name, j,
                       (long long)want, rank);
            ok = 0;
            break;
        }
        out[j] = batch_to(val, bd, size, at);
        ok = out[j].slot != 0;
    }
    /* the outputs are values one level down: keep them, end the trace */
    core_scope_end(ctx, ok ? f->n_out : 0, out);
    core_pop_trace(ctx, bt.trace);
    return ok && !ctx->err ? 0 : -1;
}

/* Chunks of chunk_size along the batch: slice the mapped inputs, run each
 * chunk in its own scope, concatenate the outputs along their out axes. */
static int vmap_chunked(cj_func *f, const cj_val *in, const int64_t *axes, int64_t size, cj_val *out) {
    cj_ctx *ctx = f->ctx;
    vmap_state *st = f->state;
    int64_t cs = st->chunk_size, n_chunks = (size + cs - 1) / cs;
    if (n_chunks > 4096) cs = (size + 4095) / 4096, n_chunks = (size + cs - 1) / cs;
    cj_val parts[64][64];
    int64_t done = 0;
    for (int64_t c = 0; c < n_chunks && !ctx->err; c++) {
        int64_t lo = c * cs, hi = lo + cs < size ? lo + cs : size;
        cj_val chunk_in[64], chunk_out[64];
        for (int i = 0; i < f->n_in; i++) {
            chunk_in[i] = in[i];
            if (axes[i] == BDIM_NONE) continue;
            const rt_aval *a = &core_peek(in[i])->aval;
            int64_t start[CJ_MAX_RANK] = {0}, limit[CJ_MAX_RANK];
            for (int d = 0; d < a->rank; d++) limit[d] = a->dims[d];
            start[axes[i]] = lo;
            limit[axes[i]] = hi;
            chunk_in[i] = cj_slice(in[i], start, limit, NULL);
        }
        if (vmap_once(f, chunk_in, axes, hi - lo, chunk_out) != 0) return -1;
        /* stacked in groups of 64 chunks so the concatenation stays bounded */
        int slot = (int)(c % 64);
        for (int j = 0; j < f->n_out; j++) parts[j][slot] = chunk_out[j];
        if (slot == 63 || c == n_chunks - 1) {
            for (int j = 0; j < f->n_out; j++) {
                int64_t want = st->out_axes[j];
                if (want == CJ_NOT_MAPPED) {
                    if (done == 0) out[j] = parts[j][0];
                    continue;
                }
                int rank = cj_val_rank(parts[j][0]);
                int64_t at = want < 0 ? want + rank : want;
                cj_val joined = cj_concatenate(slot + 1, parts[j], at);
                out[j] = done == 0 ? joined : cj_concatenate(2, (cj_val[]){out[j], joined}, at);
            }
            done = c + 1;
        }
    }
    return ctx->err ? -1 : 0;
}

static int vmap_call(cj_func *f, const cj_val *in, cj_val *out) {
    vmap_state *st = f->state;
    int64_t axes[64], size = 0;
    if (batch_size_of(f, in, axes, &size) != 0) return -1;
    if (st->chunk_size > 0 && size > st->chunk_size) return vmap_chunked(f, in, axes, size, out);
    return vmap_once(f, in, axes, size, out);
}
