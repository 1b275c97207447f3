/* batch.c — the vmap rules of cond, while and scan (control layer).
 *
 * As in JAX, a construct under vmap becomes a construct over batched
 * bodies: each body is re-traced as its sub-program run through a vmap
 * (a function object that re-binds the program, wrapped by cj_vmap), and
 * the new bodies go into a new record whose operands are the batched ones
 * with their batch axis at 0 (xs: at 1, the scan axis stays first, so an x
 * slice is batched at 0 inside the body). Which carries are batched is a
 * fixed point: a carry the body makes batched is batched from the start.
 * Two cases change the construct itself:
 *   cond with a batched index runs every branch batched and selects per
 *     example (no construct is left);
 *   while with a batched predicate runs while ANY example's predicate
 *     holds; the body keeps a finished example's carries as they were.
 *
 * A construct is one equation, so the rule runs once for all its outputs.
 * The batched record made for (batch size, which operands are batched) is
 * kept by the original record (CF_BATCHED_KEPT of them, a reference
 * each), so vmap of the same construct again binds the same batched
 * construct, with its compiled bodies. */
#include <stdio.h>
#include <string.h>

#include "../prim/batching.h"
#include "control.h"

/* Every table here is sized by the construct (its operands, a body's
 * inputs and outputs), taken from the allocator: no fixed limit of this
 * file's own. (cj_vmap, which batches each body, takes functions of at
 * most 64 inputs and outputs: mapped_prog says so for a larger body.) */

/* ---- the batched forms a record keeps ---- */
static void key_free(cj_ctx *ctx, cf_batched *b) {
    if (b->batched) rt_free(ctx->mem, b->batched, (size_t)b->n_batched + 1);
    b->batched = NULL;
}

void cf_batched_clear(cf_record *rec) {
    for (int i = 0; i < CF_BATCHED_KEPT; i++) {
        cf_record *b = rec->batched[i].rec;
        rec->batched[i].rec = NULL;
        key_free(rec->ctx, &rec->batched[i]);
        cf_record_release(b);
    }
}

/* A key over the n operands of the new record's layout, flagged in
 * `flags` (the caller's table of n + 1 bytes). */
static void key_init(cf_batched *key, int64_t size, int variant, int n, uint8_t *flags) {
    memset(key, 0, sizeof *key);
    key->size = size;
    key->variant = variant;
    key->n_batched = n;
    key->batched = flags;
}

static int same_key(const cf_batched *a, const cf_batched *b) {
    return a->size == b->size && a->variant == b->variant && a->n_batched == b->n_batched &&
           !memcmp(a->batched, b->batched, (size_t)a->n_batched);
}

/* The kept batched form for key (a new reference), or NULL. */
static cf_record *find_batched(cf_record *src, const cf_batched *key) {
    for (int i = 0; i < CF_BATCHED_KEPT; i++)
        if (src->batched[i].rec && same_key(&src->batched[i], key)) return cf_record_retain(src->batched[i].rec);
    return NULL;
}

/* Keeps nrec as src's batched form for key (taking a reference and a copy
 * of its flags; out of memory, it is simply not kept). */
static void remember_batched(cf_record *src, const cf_batched *key, cf_record *nrec) {
    uint8_t *flags = rt_alloc(src->ctx->mem, (size_t)key->n_batched + 1);
    if (!flags) return;
    memcpy(flags, key->batched, (size_t)key->n_batched + 1);
    cf_batched *slot = &src->batched[src->next_batched];
    src->next_batched = (src->next_batched + 1) % CF_BATCHED_KEPT;
    cf_record *old = slot->rec;
    key_free(src->ctx, slot);
    *slot = *key;
    slot->batched = flags;
    slot->rec = cf_record_retain(nrec);
    cf_record_release(old);
}

/* ---- which values a program makes batched ---- */
/* out_b[j]: output j depends on an input flagged in in_b. An
 * over-approximation (any batched operand makes an equation's result
 * batched), which is safe: an output believed batched is broadcast. */
static int batched_outputs(cj_ctx *ctx, const ir_func *f, const uint8_t *in_b, uint8_t *out_b) {
    uint8_t *b = rt_calloc(ctx->mem, (size_t)f->n_vars + 1);
    if (!b) return core_oom(ctx, "vmap of control flow");
    for (int i = 0; i < f->n_in; i++) b[f->in[i]] = in_b[i];
    for (int e = 0; e < f->n_eqns; e++) {
        const ir_eqn *q = &f->eqns[e];
        const int *ins = ir_eqn_inputs(f, q);
        for (int i = 0; i < q->n_in && !b[q->out]; i++) b[q->out] = b[ins[i]];
        for (int j = 1; j < q->n_out; j++) b[q->out + j] = b[q->out];
    }
    for (int j = 0; j < f->n_out; j++) out_b[j] = b[f->out[j]];
    rt_free(ctx->mem, b, (size_t)f->n_vars + 1);
    return 0;
}

/* ---- batched sub-programs ---- */
/* A function object running a record's sub-program (re-binding it through
 * the current traces), to be wrapped by cj_vmap. */
typedef struct runner_state {
    const ir_func *prog;
} runner_state;

static int runner_call(cj_func *r, const cj_val *in, cj_val *out) {
    const runner_state *st = r->state;
    return ir_eval_values(r->ctx, st->prog, in, out);
}
static void runner_free(cj_func *r) {
    if (r->state) rt_free(r->ctx->mem, r->state, sizeof(runner_state));
    r->state = NULL;
}
static const func_ops runner_ops = {"cf_body", runner_call, runner_free};

/* prog vmapped: inputs flagged in in_b mapped on axis 0, outputs flagged
 * in out_b batched at axis 0, the others unmapped. Release with
 * free_mapped. */
static cj_func *mapped_prog(cj_ctx *ctx, const ir_func *prog, const char *name, const uint8_t *in_b,
                            const uint8_t *out_b, int64_t size) {
    if (prog->n_in > 64 || prog->n_out > 64) {
        core_error(ctx, CJ_ERR_UNSUPPORTED, "vmap of %s: a body with more than 64 inputs or outputs", name);
        return NULL;
    }
    runner_state *st = rt_calloc(ctx->mem, sizeof *st);
    if (!st) {
        core_oom(ctx, "vmap of control flow");
        return NULL;
    }
    st->prog = prog;
    cj_func *runner = func_new(ctx, name, &runner_ops, prog->n_in, prog->n_out);
    if (!runner) {
        rt_free(ctx->mem, st, sizeof *st);
        return NULL;
    }
    runner->state = st;
    int64_t in_axes[64], out_axes[64]; /* at most 64 each: checked above */
    for (int i = 0; i < prog->n_in; i++) in_axes[i] = in_b[i] ? 0 : CJ_NOT_MAPPED;
    for (int j = 0; j < prog->n_out; j++) out_axes[j] = out_b[j] ? 0 : CJ_NOT_MAPPED;
    /* the size is given: a body may read no batched input and still have
     * batched outputs (broadcast) */
    cj_vmap_opts vo = {in_axes, out_axes, size, 1, 0};
    cj_func *mapped = cj_vmap(runner, &vo);
    if (!mapped) cj_func_free(runner);
    return mapped;
}

static void free_mapped(cj_func *mapped) {
    if (!mapped) return;
    cj_func *runner = mapped->inner;
    cj_func_free(mapped);
    cj_func_free(runner);
}

/* What a traced body does with the mapped programs. */
typedef enum job_kind {
    JOB_MAP,        /* a(in) */
    JOB_WHILE_COND, /* any example's predicate: any(a(carries, cond closure)) */
    JOB_WHILE_BODY  /* (carries, body closure, cond closure): b's carries where a holds, else the old */
} job_kind;

typedef struct trace_job {
    job_kind kind;
    cj_func *a, *b;
    int n_carry, n_clo_body, n_clo_cond;
} trace_job;

/* The type of a value (the rules read shapes and dtypes from the core,
 * not through the public accessors); NULL for an error value. */
static const rt_aval *aval_of(cj_val x) {
    core_value *v = x.ctx && !x.ctx->err ? core_peek(x) : NULL;
    return v ? &v->aval : NULL;
}

/* Whether any example's predicate holds: max over the batch of pred as
 * int32, compared with 0 (every type exact: the helpers do not promote). */
static cj_val any_example(cj_ctx *ctx, cj_val pred) {
    int64_t axis0 = 0;
    cj_val most = bind_reduce(PRIM_REDUCE_MAX, bind_convert(pred, CJ_I32), 1, &axis0);
    return bind_binary(PRIM_GT, most, bind_scalar(ctx, 0, CJ_I32, 0));
}

/* pred[B] broadcast to the shape of x (batched at 0). */
static cj_val per_example(cj_val pred, cj_val x) {
    const rt_aval *a = aval_of(x);
    if (!a) return core_err_val(x.ctx);
    int64_t dims[1] = {0};
    return bind_broadcast_in_dim(pred, a->rank, a->dims, dims);
}

static int run_job(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    const trace_job *job = user;
    if (job->kind == JOB_MAP) return cj_call(job->a, in, out) == CJ_OK ? 0 : -1;
    if (job->kind == JOB_WHILE_COND) {
        cj_val pred;
        if (cj_call(job->a, in, &pred) != CJ_OK) return -1;
        out[0] = any_example(ctx, pred);
        return out[0].slot ? 0 : -1;
    }
    int nc = job->n_carry;
    core_tables T = {.ctx = ctx};
    cj_val *cond_in = core_tables_get(&T, nc + job->n_clo_cond, sizeof *cond_in, "vmap of while_loop");
    cj_val *next = core_tables_get(&T, nc, sizeof *next, "vmap of while_loop"), pred;
    int status = -1;
    if (!T.failed) {
        memcpy(cond_in, in, sizeof(cj_val) * (size_t)nc);
        memcpy(cond_in + nc, in + nc + job->n_clo_body, sizeof(cj_val) * (size_t)job->n_clo_cond);
        if (cj_call(job->a, cond_in, &pred) == CJ_OK && cj_call(job->b, in, next) == CJ_OK) {
            status = 0;
            for (int i = 0; i < nc && status == 0; i++) {
                out[i] = bind_where(per_example(pred, in[i]), next[i], in[i]);
                if (!out[i].slot) status = -1;
            }
        }
    }
    core_tables_free(&T);
    return status;
}

/* Traces a job for the given input types into a new program (NULL with
 * the error recorded). Its bodies read only their inputs. */
static ir_func *trace_job_prog(cj_ctx *ctx, trace_job *job, int n_in, const rt_aval *avals, int n_out,
                               const char *what) {
    func_closure clo;
    ir_func *ir = func_trace_body(ctx, n_in, avals, NULL, n_out, run_job, job, what, what, &clo);
    if (ir && clo.n) {
        ir_free(ir);
        core_error(ctx, CJ_ERR_INTERNAL, "%s: a batched body read an outer value", what);
        return NULL;
    }
    return ir;
}

/* ---- types and operands ---- */
/* a with a batch axis of `size` inserted at `at`. */
static rt_aval batched_aval(rt_aval a, int64_t size, int at) {
    memmove(a.dims + at + 1, a.dims + at, sizeof(int64_t) * (size_t)(a.rank - at));
    a.dims[at] = size;
    a.rank++;
    return a;
}

static const rt_aval *prog_in(const ir_func *f, int i) { return &f->vars[f->in[i]]; }
static const rt_aval *prog_out(const ir_func *f, int j) { return &f->vars[f->out[j]]; }

/* Input avals of a program, batched at 0 where flagged. */
static void batched_inputs(const ir_func *f, const uint8_t *in_b, int64_t size, rt_aval *avals) {
    for (int i = 0; i < f->n_in; i++) avals[i] = in_b[i] ? batched_aval(*prog_in(f, i), size, 0) : *prog_in(f, i);
}

/* An operand in the new record's layout: batched at `at`, or left
 * unbatched when at is BDIM_NONE. */
static cj_val place_operand(cj_val x, int64_t bdim, int64_t size, int64_t at) {
    if (at == BDIM_NONE) return x;
    return batch_to(x, bdim, size, at);
}

/* A new record shaped like src (the kind, the operand layout, the scan's
 * length and direction), holding the given programs (the caller's
 * reference); NULL after freeing them on failure. */
static cf_record *new_record(cj_ctx *ctx, const cf_record *src, int n_progs, ir_func **progs) {
    cf_record *rec = cf_record_new(ctx, src->kind);
    if (!rec) {
        for (int k = 0; k < n_progs; k++) ir_free(progs[k]);
        return NULL;
    }
    rec->n_progs = n_progs;
    for (int k = 0; k < n_progs; k++) rec->progs[k] = progs[k];
    rec->n_operands = src->n_operands;
    rec->n_args = src->n_args;
    rec->n_xs = src->n_xs;
    memcpy(rec->clo_start, src->clo_start, sizeof rec->clo_start);
    memcpy(rec->clo_n, src->clo_n, sizeof rec->clo_n);
    rec->length = src->length;
    rec->reverse = src->reverse;
    if (cf_record_outs(rec, src->n_out) != 0) {
        cf_record_release(rec); /* it owns the programs now */
        return NULL;
    }
    return rec;
}

static void free_progs(int n, ir_func **progs) {
    for (int k = 0; k < n; k++)
        if (progs[k]) ir_free(progs[k]);
}

/* Binds the batched construct one level down (eagerly the eval trace runs
 * it, once for all its outputs). */
static int run_or_bind(cj_ctx *ctx, cf_record *rec, const cj_val *ops, cj_val *out) {
    return cf_bind(ctx, rec, ops, out);
}

/* Flags of operands [start, start + n) being batched. */
static void flags_of(const int64_t *bdim, int start, int n, uint8_t *flags) {
    for (int i = 0; i < n; i++) flags[i] = bdim[start + i] != BDIM_NONE;
}

/* ---- cond / switch ---- */
/* Branch b's operand x under a batched index: x itself for the examples
 * that take b, stop_gradient(x) for the others. The value is x either way,
 * but an example's derivative then flows only through the branch it takes:
 * the untaken branch's cotangent is zero, and zero times its derivative is
 * NaN where that derivative is infinite (sqrt at 0 in the "safe function"
 * cond(x < eps, eps, sqrt(x))), so without the mask the gradient is NaN.
 * As in JAX (jax#1052). Only a staged program can be differentiated, and
 * the compiler drops the mask again (stop_gradient is the identity there,
 * and select(p, x, x) is x), so eagerly and for integers it is skipped.
 * An operand the vmap does not batch stays unbatched and unmasked: masking
 * it per example would batch it (JAX broadcasts it to every example). */
static cj_val branch_operand(cj_ctx *ctx, cj_val x, int batched, cj_val pick) {
    const rt_aval *a = aval_of(x);
    if (!batched || ctx->dynamic_level == 0 || (a && !rt_is_float(a->dtype))) return x;
    return bind_where(per_example(pick, x), x, bind_unary(PRIM_STOP_GRADIENT, x));
}

/* A batched index: every branch runs batched, and each example takes its
 * branch's outputs (the index clamped, as the construct does). */
static int cond_batched_index(cj_ctx *ctx, const cf_record *rec, const cj_val *in, const int64_t *bdim,
                              int64_t size, cj_val *out, int64_t *out_bdim) {
    int na = rec->n_args, nb = rec->n_progs, n_out = rec->n_out;
    cj_val index = batch_moveaxis(in[0], bdim[0], 0);
    const rt_aval *ia = aval_of(index);
    if (!ia) return -1;
    /* an int32 index (a bool one converted), clamped as the construct
     * clamps it; the bounds are strongly typed int32 like it */
    cj_dtype idt = ia->dtype == CJ_BOOL ? CJ_I32 : ia->dtype;
    index = bind_convert(index, idt);
    index = bind_clamp(bind_scalar(ctx, 0, idt, 0), index, bind_scalar(ctx, nb - 1, idt, 0));
    int max_in = 1;
    for (int b = 0; b < nb; b++)
        if (rec->progs[b]->n_in > max_in) max_in = rec->progs[b]->n_in;
    core_tables T = {.ctx = ctx};
    uint8_t *in_b = core_tables_get(&T, max_in, 1, "vmap of cond");
    uint8_t *out_b = core_tables_get(&T, n_out, 1, "vmap of cond");
    cj_val *ops = core_tables_get(&T, max_in, sizeof *ops, "vmap of cond");
    cj_val *res = core_tables_get(&T, n_out, sizeof *res, "vmap of cond");
    int status = T.failed ? -1 : 0;
    if (status == 0) memset(out_b, 1, (size_t)n_out);
    for (int b = 0; b < nb && status == 0 && !ctx->err; b++) {
        const ir_func *pb = rec->progs[b];
        flags_of(bdim, 1, na, in_b);
        flags_of(bdim, rec->clo_start[b], rec->clo_n[b], in_b + na);
        cj_val pick = bind_binary(PRIM_EQ, index, bind_scalar(ctx, b, idt, 0));
        for (int i = 0; i < na; i++) {
            ops[i] = place_operand(in[1 + i], bdim[1 + i], size, in_b[i] ? 0 : BDIM_NONE);
            ops[i] = branch_operand(ctx, ops[i], in_b[i], pick);
        }
        for (int i = 0; i < rec->clo_n[b]; i++) {
            int o = rec->clo_start[b] + i;
            ops[na + i] = place_operand(in[o], bdim[o], size, in_b[na + i] ? 0 : BDIM_NONE);
            ops[na + i] = branch_operand(ctx, ops[na + i], in_b[na + i], pick);
        }
        char name[64];
        snprintf(name, sizeof name, "branch %d", b);
        cj_func *mapped = mapped_prog(ctx, pb, name, in_b, out_b, size);
        if (!mapped) {
            status = -1;
            break;
        }
        status = cj_call(mapped, ops, res) == CJ_OK ? 0 : -1;
        free_mapped(mapped);
        if (status != 0) break;
        if (b == 0) {
            memcpy(out, res, sizeof(cj_val) * (size_t)n_out);
            continue;
        }
        for (int j = 0; j < n_out; j++) out[j] = bind_where(per_example(pick, res[j]), res[j], out[j]);
    }
    core_tables_free(&T);
    if (status != 0) return -1;
    for (int j = 0; j < n_out; j++) out_bdim[j] = 0;
    return ctx->err ? -1 : 0;
}

static int cond_unbatched_index(cj_ctx *ctx, cf_record *rec, const cj_val *in,
                                const int64_t *bdim, int64_t size, cj_val *out, int64_t *out_bdim) {
    int na = rec->n_args, nb = rec->n_progs, n_out = rec->n_out;
    core_tables T = {.ctx = ctx};
    uint8_t *in_b[CF_MAX_BRANCHES];
    int max_in = 1;
    for (int b = 0; b < nb; b++) {
        in_b[b] = core_tables_get(&T, rec->progs[b]->n_in, 1, "vmap of cond");
        if (rec->progs[b]->n_in > max_in) max_in = rec->progs[b]->n_in;
    }
    uint8_t *out_b = core_tables_get(&T, n_out, 1, "vmap of cond"), *ob = core_tables_get(&T, n_out, 1, "vmap of cond");
    uint8_t *flags = core_tables_get(&T, rec->n_operands + 1, 1, "vmap of cond");
    rt_aval *avals = core_tables_get(&T, max_in, sizeof *avals, "vmap of cond");
    cj_val *ops = core_tables_get(&T, rec->n_operands, sizeof *ops, "vmap of cond");
    cf_record *nrec = NULL;
    int status = -1;
    if (T.failed) goto done;
    for (int b = 0; b < nb; b++) {
        flags_of(bdim, 1, na, in_b[b]);
        flags_of(bdim, rec->clo_start[b], rec->clo_n[b], in_b[b] + na);
        if (batched_outputs(ctx, rec->progs[b], in_b[b], ob) != 0) goto done;
        for (int j = 0; j < n_out; j++) out_b[j] |= ob[j];
    }
    cf_batched key;
    flags_of(bdim, 0, rec->n_operands, flags);
    key_init(&key, size, 0, rec->n_operands, flags);
    nrec = find_batched(rec, &key);
    if (!nrec) {
        ir_func *progs[CF_MAX_BRANCHES] = {0};
        for (int b = 0; b < nb; b++) {
            char name[64];
            snprintf(name, sizeof name, "vmap of branch %d", b);
            batched_inputs(rec->progs[b], in_b[b], size, avals);
            trace_job job = {JOB_MAP, mapped_prog(ctx, rec->progs[b], name, in_b[b], out_b, size), NULL, 0, 0, 0};
            if (job.a) progs[b] = trace_job_prog(ctx, &job, rec->progs[b]->n_in, avals, n_out, name);
            free_mapped(job.a);
            if (!progs[b]) {
                free_progs(nb, progs);
                goto done;
            }
        }
        nrec = new_record(ctx, rec, nb, progs);
        if (!nrec) goto done;
        for (int j = 0; j < n_out; j++) {
            nrec->out[j] = *prog_out(progs[0], j);
            for (int b = 1; b < nb; b++) nrec->out[j].weak &= prog_out(progs[b], j)->weak;
        }
        remember_batched(rec, &key, nrec);
    }
    for (int i = 0; i < rec->n_operands; i++) ops[i] = place_operand(in[i], bdim[i], size, bdim[i] == BDIM_NONE ? BDIM_NONE : 0);
    if (run_or_bind(ctx, nrec, ops, out) != 0) goto done;
    for (int j = 0; j < n_out; j++) out_bdim[j] = out_b[j] ? 0 : BDIM_NONE;
    status = 0;
done:
    cf_record_release(nrec);
    core_tables_free(&T);
    return status;
}

/* ---- loops ---- */
/* The carries a loop body keeps batched: those batched on entry, and
 * those the body makes batched from batched carries or closure, until
 * nothing changes. body's inputs: the carries, then `n_rest` others
 * flagged in rest_b; its first outputs are the carries. */
static int carry_fixed_point(cj_ctx *ctx, const ir_func *body, int nc, const uint8_t *rest_b, int n_rest,
                             uint8_t *carry_b) {
    core_tables T = {.ctx = ctx};
    uint8_t *in_b = core_tables_get(&T, nc + n_rest, 1, "vmap of control flow");
    uint8_t *out_b = core_tables_get(&T, body->n_out, 1, "vmap of control flow");
    int status = T.failed ? -1 : 0;
    if (status == 0) memcpy(in_b + nc, rest_b, (size_t)n_rest);
    for (int changed = 1; changed && status == 0;) {
        memcpy(in_b, carry_b, (size_t)nc);
        if (batched_outputs(ctx, body, in_b, out_b) != 0) status = -1;
        changed = 0;
        for (int i = 0; i < nc && status == 0; i++)
            if (out_b[i] && !carry_b[i]) carry_b[i] = 1, changed = 1;
    }
    core_tables_free(&T);
    return status;
}

static int while_batch(cj_ctx *ctx, cf_record *rec, const cj_val *in, const int64_t *bdim,
                       int64_t size, cj_val *out, int64_t *out_bdim) {
    int nc = rec->n_args, ncc = rec->clo_n[0], nbc = rec->clo_n[1], n_ops = rec->n_operands;
    const ir_func *cond = rec->progs[0], *body = rec->progs[1];
    core_tables T = {.ctx = ctx};
    uint8_t *carry_b = core_tables_get(&T, nc, 1, "vmap of while_loop");
    uint8_t *cclo_b = core_tables_get(&T, ncc, 1, "vmap of while_loop");
    uint8_t *bclo_b = core_tables_get(&T, nbc, 1, "vmap of while_loop");
    uint8_t *in_b = core_tables_get(&T, nc + ncc, 1, "vmap of while_loop");
    uint8_t *flags = core_tables_get(&T, n_ops + 1, 1, "vmap of while_loop");
    uint8_t *cin_b = core_tables_get(&T, nc + ncc, 1, "vmap of while_loop");
    uint8_t *bin_b = core_tables_get(&T, nc + nbc, 1, "vmap of while_loop");
    rt_aval *avals = core_tables_get(&T, nc + nbc + ncc, sizeof *avals, "vmap of while_loop");
    cj_val *ops = core_tables_get(&T, n_ops + ncc, sizeof *ops, "vmap of while_loop");
    uint8_t pred_b;
    cf_record *nrec = NULL;
    int status = -1;
    if (T.failed) goto done;
    flags_of(bdim, 0, nc, carry_b);
    flags_of(bdim, rec->clo_start[0], ncc, cclo_b);
    flags_of(bdim, rec->clo_start[1], nbc, bclo_b);
    if (carry_fixed_point(ctx, body, nc, bclo_b, nbc, carry_b) != 0) goto done;
    memcpy(in_b, carry_b, (size_t)nc);
    memcpy(in_b + nc, cclo_b, (size_t)ncc);
    if (batched_outputs(ctx, cond, in_b, &pred_b) != 0) goto done;
    /* a batched predicate: examples finish at different steps, so every
     * carry is batched (a finished example keeps its own) */
    if (pred_b) memset(carry_b, 1, (size_t)nc);

    cf_batched key;
    memcpy(flags, carry_b, (size_t)nc);
    flags_of(bdim, nc, n_ops - nc, flags + nc);
    key_init(&key, size, pred_b, n_ops, flags);
    nrec = find_batched(rec, &key);
    if (!nrec) {
        ir_func *progs[2] = {0};
        uint8_t one = 1;
        memcpy(cin_b, carry_b, (size_t)nc);
        memcpy(cin_b + nc, cclo_b, (size_t)ncc);
        memcpy(bin_b, carry_b, (size_t)nc);
        memcpy(bin_b + nc, bclo_b, (size_t)nbc);
        trace_job cj = {pred_b ? JOB_WHILE_COND : JOB_MAP, mapped_prog(ctx, cond, "while cond", cin_b, &pred_b, size),
                        NULL, nc, nbc, ncc};
        trace_job bj = {pred_b ? JOB_WHILE_BODY : JOB_MAP,
                        pred_b ? mapped_prog(ctx, cond, "while cond", cin_b, &one, size)
                               : mapped_prog(ctx, body, "while body", bin_b, carry_b, size),
                        pred_b ? mapped_prog(ctx, body, "while body", bin_b, carry_b, size) : NULL, nc, nbc, ncc};
        if (cj.a && bj.a && (!pred_b || bj.b)) {
            batched_inputs(cond, cin_b, size, avals);
            progs[0] = trace_job_prog(ctx, &cj, cond->n_in, avals, 1, "vmap of while cond");
            /* the body's inputs: carries, its closure, then (batched
             * predicate) the cond's closure again, to evaluate it */
            batched_inputs(body, bin_b, size, avals);
            for (int i = 0; pred_b && i < ncc; i++)
                avals[nc + nbc + i] = cclo_b[i] ? batched_aval(*prog_in(cond, nc + i), size, 0) : *prog_in(cond, nc + i);
            if (progs[0]) progs[1] = trace_job_prog(ctx, &bj, nc + nbc + (pred_b ? ncc : 0), avals, nc, "vmap of while body");
        }
        free_mapped(cj.a);
        free_mapped(bj.a);
        free_mapped(bj.b);
        if (!progs[0] || !progs[1]) {
            free_progs(2, progs);
            goto done;
        }
        nrec = new_record(ctx, rec, 2, progs);
        if (!nrec) goto done;
        if (pred_b) { /* the cond's closure read twice: appended for the body */
            nrec->clo_n[1] = nbc + ncc;
            nrec->n_operands = n_ops + ncc;
        }
        for (int i = 0; i < nc; i++) nrec->out[i] = *prog_out(progs[1], i);
        remember_batched(rec, &key, nrec);
    }
    for (int i = 0; i < nc; i++) ops[i] = place_operand(in[i], bdim[i], size, carry_b[i] ? 0 : BDIM_NONE);
    for (int i = nc; i < n_ops; i++) ops[i] = place_operand(in[i], bdim[i], size, bdim[i] == BDIM_NONE ? BDIM_NONE : 0);
    for (int i = 0; pred_b && i < ncc; i++) ops[n_ops + i] = ops[rec->clo_start[0] + i];
    if (run_or_bind(ctx, nrec, ops, out) != 0) goto done;
    for (int i = 0; i < nc; i++) out_bdim[i] = carry_b[i] ? 0 : BDIM_NONE;
    status = 0;
done:
    cf_record_release(nrec);
    core_tables_free(&T);
    return status;
}

static int scan_batch(cj_ctx *ctx, cf_record *rec, const cj_val *in, const int64_t *bdim,
                      int64_t size, cj_val *out, int64_t *out_bdim) {
    int nc = rec->n_args, nx = rec->n_xs, ncl = rec->clo_n[0], ny = rec->n_out - nc, n_ops = rec->n_operands;
    const ir_func *body = rec->progs[0];
    core_tables T = {.ctx = ctx};
    uint8_t *in_b = core_tables_get(&T, n_ops + 1, 1, "vmap of scan");
    uint8_t *out_b = core_tables_get(&T, rec->n_out, 1, "vmap of scan");
    rt_aval *avals = core_tables_get(&T, body->n_in, sizeof *avals, "vmap of scan");
    cj_val *ops = core_tables_get(&T, n_ops, sizeof *ops, "vmap of scan");
    cf_record *nrec = NULL;
    int status = -1;
    if (T.failed) goto done;
    flags_of(bdim, 0, n_ops, in_b); /* carries, xs, closure: the body's inputs in order */
    if (carry_fixed_point(ctx, body, nc, in_b + nc, nx + ncl, in_b) != 0) goto done;
    if (batched_outputs(ctx, body, in_b, out_b) != 0) goto done;
    memcpy(out_b, in_b, (size_t)nc); /* the carries as the fixed point has them */

    cf_batched key;
    key_init(&key, size, 0, n_ops, in_b);
    nrec = find_batched(rec, &key);
    if (!nrec) {
        ir_func *prog = NULL;
        batched_inputs(body, in_b, size, avals);
        trace_job job = {JOB_MAP, mapped_prog(ctx, body, "scan body", in_b, out_b, size), NULL, 0, 0, 0};
        if (job.a) prog = trace_job_prog(ctx, &job, body->n_in, avals, rec->n_out, "vmap of scan body");
        free_mapped(job.a);
        if (!prog) goto done;
        nrec = new_record(ctx, rec, 1, &prog);
        if (!nrec) goto done;
        for (int i = 0; i < nc; i++) nrec->out[i] = *prog_out(prog, i);
        for (int j = 0; j < ny; j++) nrec->out[nc + j] = batched_aval(*prog_out(prog, nc + j), rec->length, 0);
        remember_batched(rec, &key, nrec);
    }
    for (int i = 0; i < n_ops; i++) {
        int64_t at = !in_b[i] ? BDIM_NONE : i >= nc && i < nc + nx ? 1 : 0; /* xs keep the scan axis first */
        ops[i] = place_operand(in[i], bdim[i], size, at);
    }
    if (run_or_bind(ctx, nrec, ops, out) != 0) goto done;
    for (int i = 0; i < nc; i++) out_bdim[i] = in_b[i] ? 0 : BDIM_NONE;
    for (int j = 0; j < ny; j++) out_bdim[nc + j] = out_b[nc + j] ? 1 : BDIM_NONE;
    status = 0;
done:
    cf_record_release(nrec);
    core_tables_free(&T);
    return status;
}

/* ---- the rule ---- */
static int cf_batch(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                    const int64_t *bdim, int64_t size, int n_out, cj_val *out, int64_t *out_bdim) {
    cf_record *rec = cf_of(p);
    if (n_in != rec->n_operands || n_out != rec->n_out)
        return prim_error(ctx, CJ_ERR_ARG, prim, "vmap: %d operands and %d outputs for a construct of %d and %d",
                          n_in, n_out, rec->n_operands, rec->n_out);
    int st;
    switch (rec->kind) {
    case CF_COND:
        st = bdim[0] != BDIM_NONE ? cond_batched_index(ctx, rec, in, bdim, size, out, out_bdim)
                                  : cond_unbatched_index(ctx, rec, in, bdim, size, out, out_bdim);
        break;
    case CF_WHILE:
        st = while_batch(ctx, rec, in, bdim, size, out, out_bdim);
        break;
    default:
        st = scan_batch(ctx, rec, in, bdim, size, out, out_bdim);
        break;
    }
    return st != 0 || ctx->err ? -1 : 0;
}

void cf_register_batch(void) {
    for (int id = PRIM_COND; id <= PRIM_SCAN; id++) prim_rules[id].batch_multi = cf_batch;
}
