/* trace.c — the trace stack and primitive binding (core layer).
 *
 * Every operation ends in core_bind: it finds the innermost trace among its
 * inputs' traces and the dynamic (staging) trace, and hands the primitive
 * to that trace's `process`. Level 0 is the eval trace, which runs the
 * primitive's eager kernel. Traces of higher levels (jit staging here; vmap
 * and jvp later) lift lower-level inputs and apply their own rule, binding
 * whatever they produce one level down. */
#include <stdio.h>
#include <string.h>

#include "core.h"

static const trace_ops eval_ops = {"eval", core_eval_process, core_eval_process_multi};

int core_traces_init(cj_ctx *ctx) {
    core_trace *t = rt_calloc(ctx->mem, sizeof *t);
    if (!t) return -1;
    t->level = 0;
    t->id = ctx->next_trace_id++;
    t->ops = &eval_ops;
    t->what = "eager evaluation";
    ctx->traces[0] = t;
    ctx->n_traces = 1;
    return 0;
}

void core_traces_fini(cj_ctx *ctx) {
    for (int i = 0; i < ctx->n_traces; i++) rt_free(ctx->mem, ctx->traces[i], sizeof(core_trace));
    ctx->n_traces = 0;
}

core_trace *core_push_trace(cj_ctx *ctx, const trace_ops *ops, void *state, const char *what) {
    if (ctx->n_traces == MAX_TRACES) {
        core_error(ctx, CJ_ERR_ARG, "%s: transformations nested more than %d deep", what, MAX_TRACES);
        return NULL;
    }
    core_trace *t = rt_calloc(ctx->mem, sizeof *t);
    if (!t) {
        core_oom(ctx, what);
        return NULL;
    }
    t->level = ctx->n_traces;
    t->id = ctx->next_trace_id++;
    t->ops = ops;
    t->state = state;
    t->what = what;
    ctx->traces[ctx->n_traces++] = t;
    return t;
}

void core_pop_trace(cj_ctx *ctx, core_trace *t) {
    /* traces end innermost first; anything above t ended with it (t itself
     * is freed in the loop, so read its level first) */
    int level = t->level;
    while (ctx->n_traces > level) {
        core_trace *top = ctx->traces[--ctx->n_traces];
        rt_free(ctx->mem, top, sizeof *top);
    }
    if (ctx->dynamic_level >= ctx->n_traces) ctx->dynamic_level = 0;
}

core_trace *core_value_trace(cj_ctx *ctx, const core_value *v) {
    return v->kind == VALUE_TRACER ? ctx->traces[v->level] : ctx->traces[0];
}

/* The dtypes after f64 reach only primitives whose rules say they take
 * them (prim_rule.extra_dtypes); for the others this is the one message. */
static int check_extra_dtypes(cj_ctx *ctx, prim_id prim, int n, const rt_aval *avals, const char *what) {
    if (prim_rules[prim].extra_dtypes) return 0;
    for (int i = 0; i < n; i++) {
        if (!rt_dtype_valid(avals[i].dtype) || !rt_dtype_is_extra(avals[i].dtype)) continue;
        char t[96];
        rt_aval_str(&avals[i], t, sizeof t);
        return prim_error(ctx, CJ_ERR_DTYPE, prim,
                          "dtype %s is not supported yet (%s %s; bool, i32, i64, f32 and f64 are)",
                          rt_dtypes[avals[i].dtype].name, what, t);
    }
    return 0;
}

int core_abstract_eval_multi(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const rt_aval *in,
                             int room, int *n_out, rt_aval *out) {
    if (room < 1) return prim_error(ctx, CJ_ERR_INTERNAL, prim, "no room for its results");
    if (!prim_rules[prim].multiple_results) {
        *n_out = 1;
        return core_abstract_eval(ctx, prim, p, n_in, in, out);
    }
    if (prim_arity[prim] >= 0 && n_in != prim_arity[prim])
        return prim_error(ctx, CJ_ERR_ARG, prim, "takes %d operands, got %d", prim_arity[prim], n_in);
    if (!prim_rules[prim].abstract_eval_multi) return prim_error(ctx, CJ_ERR_UNSUPPORTED, prim, "has no shape rule yet");
    if (check_extra_dtypes(ctx, prim, n_in, in, "operand") != 0) return -1;
    *n_out = room; /* the rule reads the room it has, writes how many it made */
    if (prim_rules[prim].abstract_eval_multi(ctx, prim, p, n_in, in, n_out, out) != 0) return -1;
    if (*n_out >= 1 && *n_out <= room && check_extra_dtypes(ctx, prim, *n_out, out, "result") != 0) return -1;
    if (*n_out < 1 || *n_out > room)
        return prim_error(ctx, CJ_ERR_INTERNAL, prim, "the shape rule gave %d results (room for 1..%d)", *n_out, room);
    for (int j = 0; j < *n_out; j++)
        if (core_check_result(ctx, prim, n_in, in, &out[j]) != 0) return -1;
    return 0;
}

int core_abstract_eval(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const rt_aval *in,
                       rt_aval *out) {
    if (prim_rules[prim].multiple_results)
        return prim_error(ctx, CJ_ERR_INTERNAL, prim, "has several results: bound as if it had one");
    if (prim_arity[prim] >= 0 && n_in != prim_arity[prim])
        return prim_error(ctx, CJ_ERR_ARG, prim, "takes %d operands, got %d", prim_arity[prim], n_in);
    if (!prim_rules[prim].abstract_eval)
        return prim_error(ctx, CJ_ERR_UNSUPPORTED, prim, "has no shape rule yet");
    if (check_extra_dtypes(ctx, prim, n_in, in, "operand") != 0) return -1;
    memset(out, 0, sizeof *out);
    if (prim_rules[prim].abstract_eval(ctx, prim, p, n_in, in, out) != 0) return -1;
    if (check_extra_dtypes(ctx, prim, 1, out, "result") != 0) return -1;
    return core_check_result(ctx, prim, n_in, in, out);
}

int core_check_result(cj_ctx *ctx, prim_id prim, int n_in, const rt_aval *in, const rt_aval *out) {
    rt_shape_status s = rt_shape_check(out->rank, out->dims);
    if (s == RT_SHAPE_OK) return 0;
    char t[96] = "", ops[400] = "";
    if (s == RT_SHAPE_BAD_RANK) snprintf(t, sizeof t, "of rank %d", out->rank);
    else rt_aval_str(out, t, sizeof t);
    size_t len = 0;
    for (int i = 0; i < n_in && i < 4 && len < sizeof ops; i++) {
        char a[96];
        rt_aval_str(&in[i], a, sizeof a);
        len += (size_t)snprintf(ops + len, sizeof ops - len, "%s%s", i ? ", " : " of ", a);
    }
    if (n_in > 4 && len < sizeof ops) snprintf(ops + len, sizeof ops - len, ", ...");
    return prim_error(ctx, CJ_ERR_SHAPE, prim, "the result %s%s %s", t, ops, rt_shape_status_text(s));
}

rt_array *core_apply_impl(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in,
                          rt_array *const *in, const rt_aval *out_aval) {
    if (!prim_rules[prim].impl) {
        prim_error(ctx, CJ_ERR_UNSUPPORTED, prim, "has no eager kernel yet");
        return NULL;
    }
    rt_array *out = rt_array_new(ctx->mem, out_aval);
    if (!out) {
        char t[96];
        rt_aval_str(out_aval, t, sizeof t);
        prim_error(ctx, CJ_ERR_OOM, prim, "out of memory allocating the result %s", t);
        return NULL;
    }
    if (prim_rules[prim].impl(ctx, prim, p, n_in, in, out) != 0) {
        rt_array_unref(out);
        return NULL;
    }
    return out;
}

int core_apply_impl_multi(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, rt_array *const *in,
                          int n_out, const rt_aval *out_avals, rt_array **out) {
    for (int j = 0; j < n_out; j++) out[j] = NULL;
    if (!prim_rules[prim].multiple_results) {
        out[0] = core_apply_impl(ctx, prim, p, n_in, in, out_avals);
        return out[0] ? 0 : -1;
    }
    if (!prim_rules[prim].impl_multi) return prim_error(ctx, CJ_ERR_UNSUPPORTED, prim, "has no eager kernel yet");
    for (int j = 0; j < n_out; j++) {
        out[j] = rt_array_new(ctx->mem, &out_avals[j]);
        if (!out[j]) {
            char t[96];
            rt_aval_str(&out_avals[j], t, sizeof t);
            prim_error(ctx, CJ_ERR_OOM, prim, "out of memory allocating result %d, %s", j, t);
            break;
        }
    }
    if (ctx->err || prim_rules[prim].impl_multi(ctx, prim, p, n_in, in, n_out, out) != 0) {
        for (int j = 0; j < n_out; j++) {
            rt_array_unref(out[j]);
            out[j] = NULL;
        }
        return -1;
    }
    return 0;
}

#define MAX_BIND_INPUTS PRIM_MAX_OPERANDS

int core_eval_process(cj_ctx *ctx, core_trace *t, prim_id prim, const prim_params *p, int n_in,
                      const cj_val *in, cj_val *out) {
    (void)t;
    rt_aval in_avals[MAX_BIND_INPUTS], out_aval;
    rt_array *arrays[MAX_BIND_INPUTS];
    for (int i = 0; i < n_in; i++) {
        core_value *v = core_peek(in[i]); /* validated by core_bind */
        arrays[i] = v->arr;
        in_avals[i] = v->aval;
    }
    if (core_abstract_eval(ctx, prim, p, n_in, in_avals, &out_aval) != 0) return -1;
    rt_array *r = core_apply_impl(ctx, prim, p, n_in, arrays, &out_aval);
    if (!r) return -1;
    *out = core_wrap_array(ctx, r);
    return out->slot ? 0 : -1;
}

int core_eval_process_multi(cj_ctx *ctx, core_trace *t, prim_id prim, const prim_params *p, int n_in,
                            const cj_val *in, int n_out, cj_val *out) {
    (void)t;
    /* tables sized by the equation (a construct may have hundreds of
     * operands and results) */
    rt_aval in_s[PRIM_SMALL_OPERANDS], out_s[PRIM_SMALL_RESULTS];
    rt_array *arr_s[PRIM_SMALL_OPERANDS], *res_s[PRIM_SMALL_RESULTS];
    const char *what = prim_names[prim];
    rt_aval *in_avals = core_table(ctx, in_s, PRIM_SMALL_OPERANDS, n_in, sizeof *in_avals, what);
    rt_array **arrays = core_table(ctx, arr_s, PRIM_SMALL_OPERANDS, n_in, sizeof *arrays, what);
    rt_aval *out_avals = core_table(ctx, out_s, PRIM_SMALL_RESULTS, n_out, sizeof *out_avals, what);
    rt_array **res = core_table(ctx, res_s, PRIM_SMALL_RESULTS, n_out, sizeof *res, what);
    int n = 0, status = -1;
    if (in_avals && arrays && out_avals && res) {
        for (int i = 0; i < n_in; i++) {
            core_value *v = core_peek(in[i]);
            arrays[i] = v->arr;
            in_avals[i] = v->aval;
        }
        if (core_abstract_eval_multi(ctx, prim, p, n_in, in_avals, n_out, &n, out_avals) != 0) goto done;
        if (n != n_out) {
            prim_error(ctx, CJ_ERR_INTERNAL, prim, "bound for %d results, it has %d", n_out, n);
            goto done;
        }
        if (core_apply_impl_multi(ctx, prim, p, n_in, arrays, n, out_avals, res) != 0) goto done;
        status = 0;
        for (int j = 0; j < n; j++) {
            out[j] = core_wrap_array(ctx, res[j]);
            if (!out[j].slot) status = -1;
        }
    }
done:
    core_table_free(ctx, in_avals, in_s, n_in, sizeof *in_avals);
    core_table_free(ctx, arrays, arr_s, n_in, sizeof *arrays);
    core_table_free(ctx, out_avals, out_s, n_out, sizeof *out_avals);
    core_table_free(ctx, res, res_s, n_out, sizeof *res);
    return status;
}

int core_axis_find(const cj_ctx *ctx, int name, int64_t *size) {
    for (int l = ctx->n_traces - 1; l > 0; l--) {
        const core_trace *t = ctx->traces[l];
        for (int a = 0; a < t->n_axes; a++)
            if (t->axis_name[a] == name) {
                if (size) *size = t->axis_size[a];
                return l;
            }
    }
    return -1;
}

void core_axis_names(const cj_ctx *ctx, char *buf, size_t size) {
    size_t len = 0;
    buf[0] = 0;
    for (int l = ctx->n_traces - 1; l > 0 && len < size; l--)
        for (int a = 0; a < ctx->traces[l]->n_axes && len < size; a++)
            len += (size_t)snprintf(buf + len, size - len, "%s'%s'", len ? ", " : "",
                                    core_axis_name_str(ctx->traces[l]->axis_name[a]));
    if (!buf[0]) snprintf(buf, size, "none");
}

/* A collective is processed by at least the trace binding each axis it
 * names, even when no operand belongs to that trace (psum of a constant,
 * axis_index): that trace's rule is what gives it meaning. An unbound
 * name is JAX's NameError, naming the axis. */
static int collective_level(cj_ctx *ctx, prim_id prim, const prim_params *p, int level) {
    for (int a = 0; a < p->lo.n; a++) {
        int l = core_axis_find(ctx, (int)p->lo.v[a], NULL);
        if (l < 0) {
            char bound[200];
            core_axis_names(ctx, bound, sizeof bound);
            return prim_error(ctx, CJ_ERR_AXIS, prim,
                              "unbound axis name: %s (bound here: %s; a named axis is bound by cj_vmap with "
                              "cj_vmap_opts.axis_name)",
                              core_axis_name_str((int)p->lo.v[a]), bound);
        }
        if (l > level) level = l;
    }
    return level;
}

/* The trace that processes a binding: the innermost among the operands',
 * the dynamic one, and for a collective its axes' traces. NULL with the
 * error recorded. */
static core_trace *bind_trace(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in) {
    if (ctx->err) return NULL;
    /* an ordinary primitive's paths size their tables by the limit; those
     * of several results (constructs) size them by the equation */
    if (n_in > MAX_BIND_INPUTS && !prim_rules[prim].multiple_results) {
        prim_error(ctx, CJ_ERR_ARG, prim, "at most %d operands, got %d", MAX_BIND_INPUTS, n_in);
        return NULL;
    }
    int level = ctx->dynamic_level;
    for (int i = 0; i < n_in; i++) {
        if (in[i].ctx != ctx) {
            if (!in[i].ctx)
                prim_error(ctx, CJ_ERR_ARG, prim,
                           "operand %d is an error value without a context (made by a call that had none to record "
                           "its error in: see cj_error_message(NULL))",
                           i);
            else
                prim_error(ctx, CJ_ERR_ARG, prim, "operand %d belongs to another context", i);
            return NULL;
        }
        core_value *v = core_get(in[i], prim_names[prim]);
        if (!v) return NULL;
        if (v->kind == VALUE_TRACER && v->level > level) level = v->level;
    }
    if (prim_rules[prim].collective && (level = collective_level(ctx, prim, p, level)) < 0) return NULL;
    return ctx->traces[level];
}

static cj_val bind_held(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in) {
    core_trace *t = bind_trace(ctx, prim, p, n_in, in);
    if (!t) return core_err_val(ctx);
    if (prim_rules[prim].multiple_results) {
        prim_error(ctx, CJ_ERR_INTERNAL, prim, "has several results: bound as if it had one");
        return core_err_val(ctx);
    }
    cj_val out = core_err_val(ctx);
    if (t->ops->process(ctx, t, prim, p, n_in, in, &out) != 0) return core_err_val(ctx);
    return out;
}

cj_val core_bind(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in) {
    if (!ctx) return core_err_val(NULL);
    if (core_enter(ctx, prim_names[prim]) != 0) return core_err_val(ctx);
    cj_val out = bind_held(ctx, prim, p, n_in, in);
    core_leave(ctx);
    return out;
}

int core_bind_multi(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in, int n_out,
                    cj_val *out) {
    for (int j = 0; j < n_out; j++) out[j] = core_err_val(ctx);
    if (!ctx) return -1;
    if (n_out < 1) return prim_error(ctx, CJ_ERR_INTERNAL, prim, "bound for %d results", n_out);
    if (!prim_rules[prim].multiple_results) {
        if (n_out != 1) return prim_error(ctx, CJ_ERR_INTERNAL, prim, "has one result, bound for %d", n_out);
        out[0] = core_bind(ctx, prim, p, n_in, in);
        return out[0].slot ? 0 : -1;
    }
    if (core_enter(ctx, prim_names[prim]) != 0) return -1;
    core_trace *t = bind_trace(ctx, prim, p, n_in, in);
    int status = -1;
    if (t) {
        status = t->ops->process_multi ? t->ops->process_multi(ctx, t, prim, p, n_in, in, n_out, out)
                                       : prim_error(ctx, CJ_ERR_UNSUPPORTED, prim, "%s: no way to bind several results",
                                                    t->ops->name);
        if (status != 0 || ctx->err) {
            status = -1;
            for (int j = 0; j < n_out; j++) out[j] = core_err_val(ctx);
        }
    }
    core_leave(ctx);
    return status;
}
