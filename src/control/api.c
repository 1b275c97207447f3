/* api.c — the public control-flow functions (control layer).
 *
 * Each one checks its arguments, traces its bodies for the operands' types
 * into sub-programs (closing over traced values of enclosing
 * transformations by closure conversion: they become extra operands), and
 * keeps them in a record. The construct's one equation is then bound
 * through the current traces: with nothing traced the eval trace runs it
 * at once (cf_run, all outputs in one run, the bodies compiled). */
#include <stdio.h>
#include <string.h>

#include "../api/api.h"
#include "../prim/bind.h"
#include "control.h"

#define API_MAX_VALS 64


static const char *type_str(const rt_aval *a, char *buf, size_t n) {
    rt_aval_str(a, buf, n);
    return buf;
}

static void set_errors(cj_ctx *ctx, int n, cj_val *out) {
    for (int i = 0; i < n; i++) out[i] = core_err_val(ctx);
}

/* Validates handles and collects their types. */
static int collect(cj_ctx *ctx, const char *op, int n, const cj_val *vals, rt_aval *avals) {
    if (n < 0 || n > 64) return core_error(ctx, CJ_ERR_ARG, "%s: 0..64 values (got %d)", op, n);
    if (n && !vals) return core_error(ctx, CJ_ERR_ARG, "%s: NULL values", op);
    for (int i = 0; i < n; i++) {
        char what[96];
        snprintf(what, sizeof what, "%s (value %d)", op, i);
        if (vals[i].ctx && vals[i].ctx != ctx) return core_error(ctx, CJ_ERR_ARG, "%s: belongs to another context", what);
        const core_value *v = core_get(vals[i], what);
        if (!v) return -1;
        avals[i] = v->aval;
    }
    return 0;
}

/* ---- tracing a body ---- */
typedef struct body_job {
    cj_func *f;
    int kind; /* 0: call f; 1: fori body (i, carries) → (i + 1, f(i, carries)) */
} body_job;

static int call_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    body_job *job = user;
    if (job->kind == 0) return cj_call(job->f, in, out) == CJ_OK ? 0 : -1;
    /* fori: the counter is the first carry */
    if (cj_call(job->f, in, out + 1) != CJ_OK) return -1;
    out[0] = bind_binary(PRIM_ADD, in[0], bind_scalar(ctx, 1, CJ_I32, 0)); /* the i32 counter, + 1 */
    return out[0].slot ? 0 : -1;
}

/* Traces f (or the fori wrapper) for the given input types into the
 * record's next program, appending its closure to the operands. */
static int trace_prog(cj_ctx *ctx, cf_record *rec, body_job *job, int n_in, const rt_aval *avals, int n_out,
                      const char *what, cj_val *operands) {
    func_closure clo;
    ir_func *ir = func_trace_body(ctx, n_in, avals, NULL, n_out, call_body, job, job->f->name, what, &clo);
    if (!ir) return -1;
    int k = rec->n_progs++;
    rec->progs[k] = ir;
    rec->clo_start[k] = rec->n_operands;
    rec->clo_n[k] = clo.n;
    for (int i = 0; i < clo.n; i++) operands[rec->n_operands++] = clo.vals[i];
    return 0;
}

static const rt_aval *prog_out(const cf_record *rec, int k, int j) {
    return &rec->progs[k]->vars[rec->progs[k]->out[j]];
}

/* Binds the construct (the same record as an earlier one from `owner`,
 * when it repeats one): eagerly, with nothing traced, it runs now, once. */
static cj_status finish(cj_ctx *ctx, cf_record *rec, cj_func *owner, const cj_val *operands, cj_val *out) {
    cf_record *use = cf_record_dedupe(ctx, rec, owner);
    if (cf_bind(ctx, use, operands, out) != 0) set_errors(ctx, use->n_out, out);
    cf_record_release(use);
    return ctx->err;
}

/* Every failing construct leaves error values in all its outputs (so a
 * caller that checks only at the end never meets an unset handle). */
static cj_status fail_outputs(cj_ctx *ctx, cj_status st, int n, cj_val *out) {
    if (st != CJ_OK && ctx && out && n > 0) set_errors(ctx, n, out);
    return st;
}

/* What a construct built here holds: function objects take at most
 * API_MAX_VALS inputs and outputs (cj_func_new), so the carries, xs,
 * operands and outputs fit that; each body closes over at most
 * FUNC_MAX_CLOSURE values, appended to the operands, whose table is sized
 * by the construct (ops_new). */
static cj_val *ops_new(cj_ctx *ctx, int n_values, int n_bodies, size_t *bytes) {
    /* a count out of range is the construct's arity error, found before
     * any operand is written */
    if (n_values < 0 || n_values > API_MAX_VALS) n_values = 0;
    *bytes = sizeof(cj_val) * (size_t)(1 + n_values + n_bodies * FUNC_MAX_CLOSURE);
    cj_val *ops = rt_alloc(ctx->mem, *bytes);
    if (!ops) core_oom(ctx, "control flow");
    return ops;
}

/* ---- cond and switch ---- */
/* The construct functions below make their record in *recp; the caller
 * releases it whatever happened. */
static cj_status switch_ops(cj_ctx *ctx, cj_val index, int n_branches, cj_func *const *branches, int n_ops,
                            const cj_val *operands, cj_val *out, cf_record **recp, cj_val *ops) {
    if (ctx->err) return ctx->err;
    const char *op = n_branches == 2 ? "cond" : "switch";
    if (n_branches < 1 || n_branches > CF_MAX_BRANCHES || !branches || !out)
        return core_error(ctx, CJ_ERR_ARG, "%s: 1..%d branches and an output array are needed", op, CF_MAX_BRANCHES),
               ctx->err;
    int n_out = branches[0] ? branches[0]->n_out : 0;
    for (int b = 0; b < n_branches; b++)
        if (!branches[b] || branches[b]->n_in != n_ops || branches[b]->n_out != n_out) {
            core_error(ctx, CJ_ERR_ARG, "%s: branch %d must take the %d operands and return %d outputs as branch 0", op,
                       b, n_ops, n_out);
            return ctx->err;
        }
    rt_aval avals[API_MAX_VALS], ia;
    if (collect(ctx, op, n_ops, operands, avals) != 0 || collect(ctx, op, 1, &index, &ia) != 0) return ctx->err;
    if (ia.rank != 0 || rt_is_float(ia.dtype) || (n_branches != 2 && ia.dtype == CJ_BOOL)) {
        char t[96];
        core_error(ctx, CJ_ERR_DTYPE, "%s: the %s must be a %s scalar, got %s", op, n_branches == 2 ? "predicate" : "index",
                   n_branches == 2 ? "bool or integer" : "integer", type_str(&ia, t, sizeof t));
        set_errors(ctx, n_out, out);
        return ctx->err;
    }
    cf_record *rec = *recp = cf_record_new(ctx, CF_COND);
    if (!rec || cf_record_outs(rec, n_out) != 0) return ctx->err;
    ops[0] = index;
    for (int i = 0; i < n_ops; i++) ops[1 + i] = operands[i];
    rec->n_operands = 1 + n_ops;
    rec->n_args = n_ops;
    /* lax.cond(pred, true_f, false_f): branch 1 is true_f, so the callers
     * pass branches in index order (cj_cond reorders) */
    for (int b = 0; b < n_branches; b++) {
        body_job job = {branches[b], 0};
        char what[300];
        snprintf(what, sizeof what, "%s branch %d (%s)", op, b, branches[b]->name);
        if (trace_prog(ctx, rec, &job, n_ops, avals, n_out, what, ops) != 0) return ctx->err;
        for (int j = 0; j < n_out; j++) {
            const rt_aval *o = prog_out(rec, b, j), *o0 = prog_out(rec, 0, j);
            if (b > 0 && !rt_aval_same_type(o, o0)) {
                char t0[96], t1[96];
                core_error(ctx, CJ_ERR_SHAPE, "%s: output %d of branch %d (%s) has type %s, branch 0 (%s) gives %s", op, j,
                           b, branches[b]->name, type_str(o, t1, sizeof t1), branches[0]->name,
                           type_str(o0, t0, sizeof t0));
                set_errors(ctx, n_out, out);
                return ctx->err;
            }
            if (b == 0) rec->out[j] = *o;
            else rec->out[j].weak &= o->weak;
        }
    }
    return finish(ctx, rec, branches[0], ops, out);
}

/* Each of the n functions is a live function object of ctx (a NULL entry
 * is left to the caller's arity check): 0, or -1 with CJ_ERR_ARG in ctx
 * naming op and the function's role. */
static int check_funcs(cj_ctx *ctx, const char *op, int n, cj_func *const *fs, const char *const *roles) {
    for (int i = 0; i < n; i++) {
        char what[64];
        if (roles) snprintf(what, sizeof what, "%s", roles[i]);
        else snprintf(what, sizeof what, "branch %d", i);
        if (fs[i] && !func_check(ctx, fs[i], op, what)) return -1;
    }
    return 0;
}

static cj_status switch_impl(cj_ctx *ctx, cj_val index, int n_branches, cj_func *const *branches, int n_ops,
                             const cj_val *operands, cj_val *out, cf_record **recp) {
    size_t bytes;
    cj_val *ops = ops_new(ctx, n_ops, n_branches > 0 && n_branches <= CF_MAX_BRANCHES ? n_branches : 0, &bytes);
    if (!ops) return ctx->err;
    cj_status st = switch_ops(ctx, index, n_branches, branches, n_ops, operands, out, recp, ops);
    rt_free(ctx->mem, ops, bytes);
    return st;
}

/* The context a loop runs in: its first value's, else its function's
 * when that is a live function object (NULL: neither says). */
static cj_ctx *loop_ctx(int n1, const cj_val *v1, int n2, const cj_val *v2, cj_func *f) {
    if (n1 > 0 && v1 && v1[0].ctx) return v1[0].ctx;
    if (n2 > 0 && v2 && v2[0].ctx) return v2[0].ctx;
    return f && func_check(NULL, f, "", "") ? f->ctx : NULL;
}

cj_status cj_switch(cj_val index, int n_branches, cj_func *const *branches, int n_ops, const cj_val *operands,
                    cj_val *out) {
    cj_ctx *ctx = index.ctx;
    if (!ctx) return core_error(NULL, CJ_ERR_ARG, "cj_switch: the index has no context (an error value made without one)"), CJ_ERR_ARG;
    const char *op = n_branches == 2 ? "cond" : "switch";
    int nb = n_branches < 0 ? 0 : n_branches > CF_MAX_BRANCHES ? CF_MAX_BRANCHES : n_branches;
    int n_out = 0; /* as many as the first usable branch says */
    for (int b = 0; b < nb && branches && !n_out; b++)
        if (branches[b] && func_check(NULL, branches[b], op, "") && branches[b]->ctx == ctx) n_out = branches[b]->n_out;
    /* every pointer checked before anything reads through it; a branch of
     * another context, or a freed one, is refused before any of them is read */
    const char *null = !branches && n_branches > 0 ? "branches" : n_ops > 0 && !operands ? "operands" : !out ? "out" : NULL;
    int null_branch = -1;
    for (int b = 0; !null && b < nb && null_branch < 0; b++)
        if (!branches[b]) null_branch = b;
    cj_status st;
    if (null_branch >= 0) st = (core_error(ctx, CJ_ERR_ARG, "cj_switch: branches[%d] is NULL", null_branch), ctx->err);
    else if (null) st = (core_error(ctx, CJ_ERR_ARG, "cj_switch: %s is NULL", null), ctx->err);
    else if (branches && check_funcs(ctx, op, nb, branches, NULL) != 0) st = ctx->err ? ctx->err : CJ_ERR_ARG;
    else {
        cf_record *rec = NULL;
        st = switch_impl(ctx, index, n_branches, branches, n_ops, operands, out, &rec);
        cf_record_release(rec);
    }
    return fail_outputs(ctx, st, n_out, out);
}

cj_status cj_cond(cj_val pred, cj_func *true_f, cj_func *false_f, int n_ops, const cj_val *operands, cj_val *out) {
    cj_func *branches[2] = {false_f, true_f}; /* index 0 = false */
    cj_ctx *ctx = pred.ctx;
    const char *null = !true_f ? "true_f" : !false_f ? "false_f" : n_ops > 0 && !operands ? "operands" : !out ? "out" : NULL;
    if (null) {
        core_error(ctx, CJ_ERR_ARG, "cj_cond: %s is NULL", null);
        cj_func *given = true_f ? true_f : false_f;
        return fail_outputs(ctx, ctx && ctx->err ? ctx->err : CJ_ERR_ARG, given ? given->n_out : 0, out);
    }
    /* lax.cond reads an integer predicate as pred != 0 (a switch would
     * clamp it: -3 would pick the false branch) */
    if (ctx && !ctx->err && !cj_is_error(pred) && cj_val_rank(pred) == 0) {
        cj_dtype dt = cj_val_dtype(pred);
        if (dt != CJ_BOOL && !rt_is_float(dt)) pred = cj_ne(pred, cj_scalar_int(ctx, 0));
    }
    return cj_switch(pred, 2, branches, n_ops, operands, out);
}

/* ---- loops ---- */
/* Checks a loop body's outputs against its carries (dtype and shape; a
 * weakly typed initial value may become strong). The first `hidden`
 * carries are not the user's (fori_loop's counter): messages count from
 * after them. */
static int check_carries(cj_ctx *ctx, const char *op, const cf_record *rec, int k, const rt_aval *carry,
                         int n_carry, int hidden, const char *fname) {
    for (int i = 0; i < n_carry; i++) {
        const rt_aval *o = prog_out(rec, k, i);
        if (!rt_aval_same_type(o, &carry[i])) {
            char a[96], b[96];
            return core_error(ctx, CJ_ERR_SHAPE,
                              "%s: '%s' must return its carries unchanged in type: carry %d enters as %s and leaves as %s",
                              op, fname, i - hidden, type_str(&carry[i], a, sizeof a), type_str(o, b, sizeof b));
        }
    }
    return 0;
}

/* JAX's _promote_weak_typed_input: a weakly typed initial carry (a C
 * constant such as cj_scalar_int(ctx, 0)) that the body returns as another
 * dtype of the same shape is converted, before the loop, to the join of
 * the two types, strongly typed (lax.convert_element_type): a counter
 * started at 0 and added an f32 carries f32. Carries [first, first + n)
 * of ops and avals, against the outputs [0, n) of program k. Returns how
 * many were promoted (the caller traces the bodies again, once: a carry
 * that changes again is the carry-type error, as in JAX's two passes). */
static int promote_weak_carries(const cf_record *rec, int k, int first, int n, rt_aval *avals, cj_val *ops) {
    int changed = 0;
    for (int i = first; i < first + n; i++) {
        const rt_aval *o = prog_out(rec, k, i - first);
        if (!avals[i].weak || rt_aval_same_type(o, &avals[i]) || !rt_aval_same_shape(o, &avals[i])) continue;
        cj_dtype dt;
        int weak;
        api_join_types(avals[i].dtype, 1, o->dtype, o->weak, &dt, &weak);
        ops[i] = bind_convert(ops[i], dt);
        avals[i].dtype = dt;
        avals[i].weak = 0;
        changed++;
    }
    return changed;
}

/* Drops what tracing the bodies put in rec, to trace them again. */
static void untrace(cf_record *rec, int n_operands) {
    for (int k = 0; k < rec->n_progs; k++) ir_free(rec->progs[k]);
    rec->n_progs = 0;
    rec->n_operands = n_operands;
}

static cj_status while_ops(cj_ctx *ctx, cj_func *cond_f, cj_func *body_f, int n_carry, const cj_val *init,
                           cj_val *out, cf_record **recp, cj_val *ops) {
    if (ctx->err) return ctx->err;
    if (!out || cond_f->n_in != n_carry || cond_f->n_out != 1 || body_f->n_in != n_carry || body_f->n_out != n_carry) {
        core_error(ctx, CJ_ERR_ARG,
                   "while_loop: cond_f takes the %d carries and returns 1 value, body_f takes and returns the %d carries",
                   n_carry, n_carry);
        return ctx->err;
    }
    rt_aval avals[API_MAX_VALS];
    if (collect(ctx, "while_loop", n_carry, init, avals) != 0) return ctx->err;
    cf_record *rec = *recp = cf_record_new(ctx, CF_WHILE);
    if (!rec || cf_record_outs(rec, n_carry) != 0) return ctx->err;
    for (int i = 0; i < n_carry; i++) ops[i] = init[i];
    rec->n_operands = rec->n_args = n_carry;
    body_job cj = {cond_f, 0}, bj = {body_f, 0};
    for (int pass = 0;; pass++) {
        if (trace_prog(ctx, rec, &cj, n_carry, avals, 1, "while_loop cond", ops) != 0) return ctx->err;
        const rt_aval *p = prog_out(rec, 0, 0);
        if (p->rank != 0 || p->dtype != CJ_BOOL) {
            char t[96];
            core_error(ctx, CJ_ERR_DTYPE, "while_loop: '%s' must return a bool scalar, got %s", cond_f->name,
                       type_str(p, t, sizeof t));
            set_errors(ctx, n_carry, out);
            return ctx->err;
        }
        if (trace_prog(ctx, rec, &bj, n_carry, avals, n_carry, "while_loop body", ops) != 0) {
            set_errors(ctx, n_carry, out);
            return ctx->err;
        }
        if (pass > 0 || !promote_weak_carries(rec, 1, 0, n_carry, avals, ops)) break;
        if (ctx->err) return ctx->err;
        untrace(rec, n_carry);
    }
    if (check_carries(ctx, "while_loop", rec, 1, avals, n_carry, 0, body_f->name) != 0) {
        set_errors(ctx, n_carry, out);
        return ctx->err;
    }
    for (int i = 0; i < n_carry; i++) rec->out[i] = *prog_out(rec, 1, i);
    return finish(ctx, rec, cond_f, ops, out);
}

static cj_status while_impl(cj_ctx *ctx, cj_func *cond_f, cj_func *body_f, int n_carry, const cj_val *init,
                            cj_val *out, cf_record **recp) {
    size_t bytes;
    cj_val *ops = ops_new(ctx, n_carry, 2, &bytes);
    if (!ops) return ctx->err;
    cj_status st = while_ops(ctx, cond_f, body_f, n_carry, init, out, recp, ops);
    rt_free(ctx->mem, ops, bytes);
    return st;
}

cj_status cj_while_loop(cj_func *cond_f, cj_func *body_f, int n_carry, const cj_val *init, cj_val *out) {
    cj_ctx *ctx = loop_ctx(n_carry, init, 0, NULL, cond_f ? cond_f : body_f);
    const char *null = !cond_f ? "cond_f" : !body_f ? "body_f" : n_carry > 0 && !init ? "init" : !out ? "out" : NULL;
    if (!ctx) /* neither a value nor a live function says which context */
        return (null ? core_error(NULL, CJ_ERR_ARG, "cj_while_loop: %s is NULL", null)
                    : core_error(NULL, CJ_ERR_ARG, "cj_while_loop: cond_f is not a live function object")),
               CJ_ERR_ARG;
    if (ctx->err) return fail_outputs(ctx, ctx->err, n_carry, out);
    cj_func *fs[2] = {cond_f, body_f};
    static const char *const roles[2] = {"cond_f", "body_f"};
    if (null) core_error(ctx, CJ_ERR_ARG, "cj_while_loop: %s is NULL", null);
    else check_funcs(ctx, "while_loop", 2, fs, roles);
    if (ctx->err) return fail_outputs(ctx, ctx->err, n_carry, out);
    cf_record *rec = NULL;
    cj_status st = while_impl(ctx, cond_f, body_f, n_carry, init, out, &rec);
    cf_record_release(rec);
    return fail_outputs(ctx, st, n_carry, out);
}

/* The scan behind scan and fori_loop. */
static cj_status scan_ops(const char *op, body_job *job, int n_carry, const cj_val *init, int n_xs, const cj_val *xs,
                          int64_t length, int reverse, cj_val *carry_out, cj_val *ys, cf_record **recp, cj_val *ops) {
    cj_func *f = job->f;
    cj_ctx *ctx = f->ctx;
    rt_aval avals[API_MAX_VALS];
    if (collect(ctx, op, n_carry, init, avals) != 0 || collect(ctx, op, n_xs, xs, avals + n_carry) != 0) return ctx->err;
    for (int i = 0; i < n_xs; i++) {
        rt_aval *x = &avals[n_carry + i];
        char t[96];
        if (x->rank == 0 || x->dims[0] != length) {
            core_error(ctx, CJ_ERR_SHAPE, "%s: xs %d has type %s; every xs needs a leading axis of the length %lld", op, i,
                       type_str(x, t, sizeof t), (long long)length);
            return ctx->err;
        }
        x->rank--; /* the body sees one slice */
        memmove(x->dims, x->dims + 1, sizeof(int64_t) * (size_t)x->rank);
    }
    cf_record *rec = *recp = cf_record_new(ctx, CF_SCAN);
    if (!rec) return ctx->err;
    for (int i = 0; i < n_carry; i++) ops[i] = init[i];
    for (int i = 0; i < n_xs; i++) ops[n_carry + i] = xs[i];
    rec->n_operands = n_carry + n_xs;
    rec->n_args = n_carry;
    rec->n_xs = n_xs;
    rec->length = length;
    rec->reverse = reverse;
    int n_y = job->kind ? 0 : f->n_out - n_carry; /* fori_loop has no ys */
    int n_body_out = n_carry + n_y;
    char what[300];
    snprintf(what, sizeof what, "%s body (%s)", op, f->name);
    for (int pass = 0;; pass++) {
        if (trace_prog(ctx, rec, job, n_carry + n_xs, avals, n_body_out, what, ops) != 0) return ctx->err;
        if (pass > 0 || !promote_weak_carries(rec, 0, 0, n_carry, avals, ops)) break;
        if (ctx->err) return ctx->err;
        untrace(rec, n_carry + n_xs);
    }
    if (check_carries(ctx, op, rec, 0, avals, n_carry, job->kind, f->name) != 0) return ctx->err;
    if (cf_record_outs(rec, n_body_out) != 0) return ctx->err;
    for (int i = 0; i < n_carry; i++) rec->out[i] = *prog_out(rec, 0, i);
    for (int j = 0; j < n_y; j++) {
        rt_aval y = *prog_out(rec, 0, n_carry + j);
        if (y.rank == CJ_MAX_RANK)
            return core_error(ctx, CJ_ERR_SHAPE, "%s: output %d of the body has the maximum rank already", op, j), ctx->err;
        memmove(y.dims + 1, y.dims, sizeof(int64_t) * (size_t)y.rank);
        y.dims[0] = length;
        y.rank++;
        rec->out[n_carry + j] = y;
    }
    cj_val res[API_MAX_VALS];
    cj_status st = finish(ctx, rec, f, ops, res);
    for (int i = 0; i < n_carry; i++) carry_out[i] = res[i];
    for (int j = 0; j < n_y && ys; j++) ys[j] = res[n_carry + j];
    return st;
}

static cj_status scan_impl(const char *op, body_job *job, int n_carry, const cj_val *init, int n_xs, const cj_val *xs,
                           int64_t length, int reverse, cj_val *carry_out, cj_val *ys, cf_record **recp) {
    cj_ctx *ctx = job->f->ctx;
    size_t bytes;
    cj_val *ops = ops_new(ctx, n_carry + n_xs, 1, &bytes);
    if (!ops) return ctx->err;
    cj_status st = scan_ops(op, job, n_carry, init, n_xs, xs, length, reverse, carry_out, ys, recp, ops);
    rt_free(ctx->mem, ops, bytes);
    return st;
}

static cj_status scan_args(cj_ctx *ctx, cj_func *body, int n_carry, const cj_val *init, int n_xs, const cj_val *xs,
                           const cj_scan_opts *opts, cj_val *carry_out, cj_val *ys) {
    if (ctx->err) return ctx->err;
    if (!carry_out || n_carry < 0 || n_xs < 0 || body->n_in != n_carry + n_xs || body->n_out < n_carry ||
        (body->n_out > n_carry && !ys)) {
        core_error(ctx, CJ_ERR_ARG,
                   "scan: the body takes the %d carries and %d x slices and returns the carries then its y slices "
                   "(outputs for both are needed)",
                   n_carry, n_xs);
        return ctx->err;
    }
    int64_t length = -1;
    if (opts && opts->has_length) length = opts->length;
    else if (n_xs > 0) {
        const core_value *x0 = core_get(xs[0], "scan");
        if (!x0) return ctx->err;
        if (x0->aval.rank == 0) {
            char t[96];
            core_error(ctx, CJ_ERR_SHAPE, "scan: xs 0 has type %s; every xs needs a leading axis to scan along",
                       type_str(&x0->aval, t, sizeof t));
            return ctx->err;
        }
        length = x0->aval.dims[0];
    }
    if (length < 0) {
        core_error(ctx, CJ_ERR_ARG, "scan: with no xs the length must be given (opts.length and has_length)");
        return ctx->err;
    }
    body_job job = {body, 0};
    cf_record *rec = NULL;
    cj_status st = scan_impl("scan", &job, n_carry, init, n_xs, xs, length, opts && opts->reverse, carry_out, ys, &rec);
    cf_record_release(rec);
    return st;
}

cj_status cj_scan(cj_func *body, int n_carry, const cj_val *init, int n_xs, const cj_val *xs,
                  const cj_scan_opts *opts, cj_val *carry_out, cj_val *ys) {
    cj_ctx *ctx = loop_ctx(n_carry, init, n_xs, xs, body);
    const char *null = !body ? "body" : n_xs > 0 && !xs ? "xs" : n_carry > 0 && !init ? "init"
                     : n_carry > 0 && !carry_out ? "carry_out" : NULL;
    if (!ctx) return (null ? core_error(NULL, CJ_ERR_ARG, "cj_scan: %s is NULL", null)
                    : core_error(NULL, CJ_ERR_ARG, "cj_scan: body is not a live function object")), CJ_ERR_ARG;
    if (!ctx->err && null) core_error(ctx, CJ_ERR_ARG, "cj_scan: %s is NULL", null);
    if (ctx->err || !func_check(ctx, body, "scan", "the body")) {
        /* the ys are not known without a body: the carries get error values */
        return fail_outputs(ctx, ctx->err, n_carry, carry_out);
    }
    cj_status st = scan_args(ctx, body, n_carry, init, n_xs, xs, opts, carry_out, ys);
    fail_outputs(ctx, st, n_carry, carry_out);
    return fail_outputs(ctx, st, body->n_out - n_carry, ys);
}

static cj_status fori_impl(cj_ctx *ctx, int64_t lower, int64_t upper, cj_func *body, int n_carry, const cj_val *init,
                           cj_val *out) {
    if (ctx->err) return ctx->err;
    if (!out || n_carry < 0 || n_carry > 63 || body->n_in != n_carry + 1 || body->n_out != n_carry) {
        core_error(ctx, CJ_ERR_ARG, "fori_loop: the body takes the index and the %d carries and returns the carries",
                   n_carry);
        return ctx->err;
    }
    if (lower < INT32_MIN || lower > INT32_MAX || upper < INT32_MIN || upper > INT32_MAX) {
        core_error(ctx, CJ_ERR_ARG, "fori_loop: bounds must fit int32 (the index is i32, as in JAX)");
        return ctx->err;
    }
    /* a scan with the index as an extra carry: not unrolled, differentiable */
    cj_val carries[API_MAX_VALS], res[API_MAX_VALS];
    carries[0] = bind_scalar(ctx, (double)lower, CJ_I32, 0);
    for (int i = 0; i < n_carry; i++) carries[1 + i] = init[i];
    body_job job = {body, 1};
    int64_t length = upper > lower ? upper - lower : 0;
    cf_record *rec = NULL;
    cj_status st = scan_impl("fori_loop", &job, n_carry + 1, carries, 0, NULL, length, 0, res, NULL, &rec);
    cf_record_release(rec);
    for (int i = 0; i < n_carry; i++) out[i] = st == CJ_OK ? res[1 + i] : core_err_val(ctx);
    return st;
}

cj_status cj_fori_loop(int64_t lower, int64_t upper, cj_func *body, int n_carry, const cj_val *init, cj_val *out) {
    cj_ctx *ctx = loop_ctx(n_carry, init, 0, NULL, body);
    const char *null = !body ? "body" : n_carry > 0 && !init ? "init" : n_carry > 0 && !out ? "out" : NULL;
    if (!ctx) return (null ? core_error(NULL, CJ_ERR_ARG, "cj_fori_loop: %s is NULL", null)
                    : core_error(NULL, CJ_ERR_ARG, "cj_fori_loop: body is not a live function object")), CJ_ERR_ARG;
    if (!ctx->err && null) core_error(ctx, CJ_ERR_ARG, "cj_fori_loop: %s is NULL", null);
    if (ctx->err || !func_check(ctx, body, "fori_loop", "the body")) return fail_outputs(ctx, ctx->err, n_carry, out);
    return fail_outputs(ctx, fori_impl(ctx, lower, upper, body, n_carry, init, out), n_carry, out);
}
