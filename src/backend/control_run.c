/* control_run.c — the runtime loop of control flow: a construct run on
 * concrete arrays (backend layer, beside its generated twin,
 * codegen_control.c).
 *
 * A construct's record (src/control/control.h) holds its traced bodies;
 * this file runs them, prepared with the backend of this layer, so the
 * backend never calls up into control flow: the interpreter runs a
 * construct's kernel here (interp.c), generated code takes the
 * sub-programs cf_prepare makes, and the constructs' eager kernel
 * (src/control/prims.c, above) calls down into it.
 *
 * Every run writes into output arrays the caller allocated (a construct's
 * kernel calls cf_run once, for all its outputs): a scan writes each y
 * slice straight into its stacked output, and the final carries (a cond's
 * results) are copied once into theirs.
 * Sub-programs are prepared on first use with the enclosing program's
 * backend (run eagerly: the default, tiered — the interpreter at once,
 * generated C when it is built) and kept in the record. Loop carries are
 * donated to the body program, so from the second iteration on a carry's
 * buffer is updated in place; scan reads each x slice through a header
 * pointing into xs (no copy) and writes each y slice straight into the
 * stacked output. A compiled program whose generated C is installed runs
 * its constructs there instead (codegen_control.c), with the sub-programs
 * cf_prepare made; this is the interpreter's path, and the path of
 * constructs generated code does not cover. */
#include <stdatomic.h>
#include <string.h>

#include "backend.h"
#include "control_run.h"
#include "program_impl.h" /* native_construct_runs_for_testing */

static atomic_long construct_runs;

/* cf_run's own runs, and those of constructs in generated code (counted by
 * native.c) */
long cf_runs_for_testing(void) { return atomic_load(&construct_runs) + native_construct_runs_for_testing(); }

/* Copies a result into the caller's output array (they may be one). */
static void put(rt_array *dst, const rt_array *src) {
    size_t n = rt_aval_nbytes(&dst->aval);
    if (n && dst->data != src->data) memmove(dst->data, src->data, n);
}

/* Loop bodies take their carries (inputs [0, n_args)) as donated: a loop
 * holding the only reference to a carry gives its buffer to the body's
 * output (a while loop's predicate and a cond's branches take none). */
static int donated_carries(const cf_record *rec, int k) {
    if (rec->kind == CF_SCAN || (rec->kind == CF_WHILE && k == 1)) return rec->n_args;
    return 0;
}

static int prepare_prog(cj_ctx *ctx, cf_record *rec, cj_backend mode, int k, int lazy) {
    if (rec->prepared[k]) return 0;
    int n_donate = donated_carries(rec, k), n_in = rec->progs[k]->n_in;
    uint8_t *donated = n_donate ? rt_calloc(ctx->mem, (size_t)n_in + 1) : NULL; /* per input of the program */
    if (n_donate && !donated) return core_oom(ctx, "control flow");
    for (int i = 0; i < n_donate && i < n_in; i++) donated[i] = 1;
    rec->prepared[k] = backend_prepare_sub(ctx, rec->progs[k], mode, donated, lazy);
    if (donated) rt_free(ctx->mem, donated, (size_t)n_in + 1);
    return rec->prepared[k] ? 0 : -1;
}

int cf_prepare(cj_ctx *ctx, cf_record *rec, cj_backend mode) {
    for (int k = 0; k < rec->n_progs; k++)
        if (prepare_prog(ctx, rec, mode, k, 1) != 0) return -1;
    return 0;
}

/* Runs sub-program k. A loop body's carries are donated when the loop
 * holds the only reference to one (program_run checks each call): a used
 * one is then the body's output and consumed as an input. */
static int run_prog(cj_ctx *ctx, cf_record *rec, cj_backend mode, int k, rt_array *const *in, rt_array **out,
                    uint8_t *used) {
    if (prepare_prog(ctx, rec, mode, k, 0) != 0) return -1;
    return program_run(ctx, rec->prepared[k], in, out, used);
}

/* The branch a cond's index selects: clamped into range, as lax.switch. */
static int branch_of(const rt_array *index, int n) {
    int64_t i = (int64_t)rt_get_f64(index->aval.dtype, index->data, 0);
    return i < 0 ? 0 : i >= n ? n - 1 : (int)i;
}

/* The tables of one run are the construct's size (no fixed limit on
 * carries, xs or closure values): taken once per run, not per step. */
static int run_cond(cj_ctx *ctx, cf_record *rec, cj_backend mode, rt_array *const *ops, rt_array *const *out) {
    int b = branch_of(ops[0], rec->n_progs);
    core_tables T = {.ctx = ctx};
    rt_array **in = core_tables_get(&T, rec->progs[b]->n_in, sizeof *in, "cond");
    rt_array **res = core_tables_get(&T, rec->n_out, sizeof *res, "cond");
    int status = -1;
    if (!T.failed) {
        int n = 0;
        for (int i = 0; i < rec->n_args; i++) in[n++] = ops[1 + i];
        for (int i = 0; i < rec->clo_n[b]; i++) in[n++] = ops[rec->clo_start[b] + i];
        status = run_prog(ctx, rec, mode, b, in, res, NULL);
        for (int j = 0; j < rec->n_out && status == 0; j++) {
            put(out[j], res[j]);
            rt_array_unref(res[j]);
        }
    }
    core_tables_free(&T);
    return status;
}

/* Replaces carries with a body's outputs (the old ones are released). */
static void take_carries(rt_array **carry, rt_array **next, int n) {
    for (int i = 0; i < n; i++) {
        rt_array_unref(carry[i]);
        carry[i] = next[i];
    }
}

static int run_while(cj_ctx *ctx, cf_record *rec, cj_backend mode, rt_array *const *ops, rt_array *const *out) {
    int nc = rec->n_args;
    int n_in = nc + (rec->clo_n[0] > rec->clo_n[1] ? rec->clo_n[0] : rec->clo_n[1]);
    core_tables T = {.ctx = ctx};
    rt_array **carry = core_tables_get(&T, nc, sizeof *carry, "while_loop");
    rt_array **in = core_tables_get(&T, n_in, sizeof *in, "while_loop");
    rt_array **next = core_tables_get(&T, nc, sizeof *next, "while_loop");
    uint8_t *used = core_tables_get(&T, n_in, 1, "while_loop");
    rt_array *pred = NULL;
    if (T.failed) {
        core_tables_free(&T);
        return -1;
    }
    for (int i = 0; i < nc; i++) carry[i] = rt_array_ref(ops[i]);
    int status = 0;
    for (;;) {
        int n = nc;
        memcpy(in, carry, sizeof(rt_array *) * (size_t)nc);
        for (int i = 0; i < rec->clo_n[0]; i++) in[n++] = ops[rec->clo_start[0] + i];
        if ((status = run_prog(ctx, rec, mode, 0, in, &pred, NULL)) != 0) break;
        int go = rt_get_f64(pred->aval.dtype, pred->data, 0) != 0;
        rt_array_unref(pred);
        if (!go) break;
        n = nc;
        for (int i = 0; i < rec->clo_n[1]; i++) in[n++] = ops[rec->clo_start[1] + i];
        memset(used, 0, (size_t)n_in);
        if ((status = run_prog(ctx, rec, mode, 1, in, next, used)) != 0) break;
        take_carries(carry, next, nc); /* a donated carry's array lives on as the output */
    }
    for (int i = 0; i < nc; i++) {
        if (status == 0) put(out[i], carry[i]);
        rt_array_unref(carry[i]);
    }
    core_tables_free(&T);
    return status;
}

/* A header viewing slice t of a stacked array (no copy, never freed). */
static void slice_view(rt_array *view, const rt_array *stacked, int64_t t) {
    memset(view, 0, sizeof *view);
    view->refcount = 1;
    view->aval = stacked->aval;
    view->aval.rank--;
    memmove(view->aval.dims, view->aval.dims + 1, sizeof(int64_t) * (size_t)view->aval.rank);
    view->size = rt_aval_size(&view->aval);
    size_t bytes = rt_aval_nbytes(&view->aval);
    view->data = (char *)stacked->data + (size_t)t * bytes;
    view->cap = bytes;
    view->mem = stacked->mem;
}

/* An output of the body that is one of the slice views must be copied
 * before the view moves on. */
static rt_array *own(cj_ctx *ctx, rt_array *a, rt_array *views, int n_views) {
    for (int i = 0; i < n_views; i++)
        if (a == &views[i]) {
            a->refcount--; /* the body's reference to our header */
            rt_array *c = rt_array_new(ctx->mem, &a->aval);
            if (c) memcpy(c->data, a->data, rt_aval_nbytes(&a->aval));
            else core_oom(ctx, "scan");
            return c;
        }
    return a;
}

static int run_scan(cj_ctx *ctx, cf_record *rec, cj_backend mode, rt_array *const *ops, rt_array *const *out) {
    int nc = rec->n_args, nx = rec->n_xs, ny = rec->n_out - nc, n_in = nc + nx + rec->clo_n[0];
    core_tables T = {.ctx = ctx};
    rt_array **carry = core_tables_get(&T, nc, sizeof *carry, "scan");
    rt_array **in = core_tables_get(&T, n_in, sizeof *in, "scan");
    rt_array **res = core_tables_get(&T, rec->n_out, sizeof *res, "scan");
    rt_array *views = core_tables_get(&T, nx, sizeof *views, "scan");
    uint8_t *used = core_tables_get(&T, n_in, 1, "scan");
    if (T.failed) {
        core_tables_free(&T);
        return -1;
    }
    for (int i = 0; i < nc; i++) carry[i] = rt_array_ref(ops[i]);
    int status = 0;
    for (int64_t step = 0; step < rec->length && status == 0; step++) {
        int64_t t = rec->reverse ? rec->length - 1 - step : step;
        int n = 0;
        for (int i = 0; i < nc; i++) in[n++] = carry[i];
        for (int i = 0; i < nx; i++) {
            slice_view(&views[i], ops[nc + i], t);
            in[n++] = &views[i];
        }
        for (int i = 0; i < rec->clo_n[0]; i++) in[n++] = ops[rec->clo_start[0] + i];
        memset(used, 0, (size_t)n_in);
        if ((status = run_prog(ctx, rec, mode, 0, in, res, used)) != 0) break;
        for (int j = 0; j < ny; j++) {
            size_t bytes = rt_aval_nbytes(&res[nc + j]->aval);
            if (bytes) memcpy((char *)out[nc + j]->data + (size_t)t * bytes, res[nc + j]->data, bytes);
            if (res[nc + j] >= views && res[nc + j] < views + nx) res[nc + j]->refcount--;
            else rt_array_unref(res[nc + j]);
        }
        for (int i = 0; i < nc; i++) res[i] = own(ctx, res[i], views, nx);
        take_carries(carry, res, nc);
        for (int i = 0; i < nc; i++)
            if (!carry[i]) status = -1;
    }
    for (int i = 0; i < nc; i++) {
        if (status == 0) put(out[i], carry[i]);
        rt_array_unref(carry[i]);
    }
    core_tables_free(&T);
    return status;
}

int cf_run(cj_ctx *ctx, cf_record *rec, cj_backend mode, rt_array *const *operands, rt_array *const *out) {
    atomic_fetch_add(&construct_runs, 1);
    switch (rec->kind) {
    case CF_COND:
        return run_cond(ctx, rec, mode, operands, out);
    case CF_WHILE:
        return run_while(ctx, rec, mode, operands, out);
    case CF_SCAN:
        return run_scan(ctx, rec, mode, operands, out);
    }
    return core_error(ctx, CJ_ERR_INTERNAL, "control flow: unknown construct");
}
