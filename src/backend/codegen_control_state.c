/* codegen_control_state.c — the state a generated control-flow construct
 * runs with (backend layer).
 *
 * codegen_control.c writes a construct's loop or branch as C; this file
 * makes what that C reads (program_impl.h: cf_native, whose first member
 * is the cjk_cf the generated function sees). The sub-programs are the
 * record's, prepared as cf_run prepares them (cf_prepare), so the runtime
 * path and the generated one run the same compiled kernels in the same
 * order. Each sub-program gets its own table of elementwise kernels and a
 * buffer table whose constants and arena offsets are filled in once; the
 * generated loop sets only its inputs and outputs per step. Here it is
 * also decided how each loop carry moves from one step to the next
 * (cf_carry_how), and which buffers runs keep: a second buffer for each
 * carry not updated in place, a stand-in for each output the enclosing
 * program does not use, a block for each matrix product that has no
 * buffer of its own. They are allocated on the first run and kept, like
 * the arena, so a run in steady state calls no allocator.
 *
 * The callbacks run what generated code does not: SINGLE kernels (dot,
 * gather, dynamic_update_slice ...) and ROWS kernels without a generated
 * form through the interpreter's dispatcher (interp_run_kernel), a
 * DOT_EPILOGUE's product block by block, a matrix-vector product
 * straight into the runtime's kernel, and generated kernels large enough
 * to be spread over the thread pool. */
#include <string.h>

#include "../core/core.h"
#include "../runtime/gemm.h"
#include "control_run.h"
#include "program_impl.h"

/* ---- callbacks ---- */

static int cb_kernel(void *run, int k, char **buf) {
    cf_sub *s = run;
    return interp_run_kernel(s->ctx, s->p, k, buf);
}

static void cb_spread(void *run, int k, cjk_kernel_fn fn, char *const *buf, int64_t begin, int64_t end) {
    cf_sub *s = run;
    native_spread(s->p, k, fn, &s->rt, buf, begin, end);
}

/* Rows [r0, r1) of the product of DOT_EPILOGUE kernel k into dst (dense,
 * rows × N): the dot primitive's kernel on a view of those lhs rows, the
 * call dot_epilogue.c makes for the same block (so the bits agree). */
static int cb_product(void *run, int k, char *const *buf, int64_t r0, int64_t r1, char *dst) {
    cf_sub *s = run;
    const ir_func *ir = s->p->c->ir;
    return dot_epilogue_product_rows(s->ctx, ir, &ir->eqns[s->p->c->kernels[k].eqns[0]], buf, r0, r1, dst);
}

/* A matrix-vector dot_general (codegen_control.c's matvec_form): the call
 * dot_impl makes for it, rt_gemm with A's rows contiguous (ld = k), x as
 * a k×1 column (ld 1) and y as m×1, so the two paths compute the same
 * bits. */
static void cb_matvec(int f64, int64_t m, int64_t k, const char *A, const char *x, char *y) {
    if (f64) rt_gemm_f64(m, 1, k, (const double *)A, k, 0, (const double *)x, 1, 0, (double *)y, 1, 0);
    else rt_gemm_f32(m, 1, k, (const float *)A, k, 0, (const float *)x, 1, 0, (float *)y, 1, 0);
}

/* ---- making the state ---- */

bool cf_output_written(const compiled *c, int o) {
    int v = c->ir->out[o];
    if (c->home[v] != HOME_OUTPUT) return false; /* an input or a constant */
    for (int q = 0; q < o; q++)
        if (c->ir->out[q] == v) return false; /* written for an earlier output */
    return true;
}

/* A new slot: a kept buffer of `bytes` (nested NULL), or a nested
 * construct's state. Its index, or -1 with the error recorded. */
static int add_slot(cj_ctx *ctx, cf_native *n, size_t bytes, cf_native *nested) {
    if (n->n_slots == n->cap_slots) { /* grow the four arrays together, or none */
        size_t was = (size_t)n->cap_slots, now = was ? 2 * was : 8;
        void **s = rt_alloc(ctx->mem, sizeof(void *) * now);
        size_t *b = rt_alloc(ctx->mem, sizeof(size_t) * now), *c = rt_alloc(ctx->mem, sizeof(size_t) * now);
        unsigned char *f = rt_alloc(ctx->mem, now);
        if (!s || !b || !c || !f) {
            if (s) rt_free(ctx->mem, s, sizeof(void *) * now);
            if (b) rt_free(ctx->mem, b, sizeof(size_t) * now);
            if (c) rt_free(ctx->mem, c, sizeof(size_t) * now);
            if (f) rt_free(ctx->mem, f, now);
            core_oom(ctx, "jit: a generated control-flow construct");
            return -1;
        }
        if (was) {
            memcpy(s, n->slots, sizeof(void *) * was);
            memcpy(b, n->slot_bytes, sizeof(size_t) * was);
            memcpy(c, n->slot_cap, sizeof(size_t) * was);
            memcpy(f, n->slot_nested, was);
            rt_free(ctx->mem, n->slots, sizeof(void *) * was);
            rt_free(ctx->mem, n->slot_bytes, sizeof(size_t) * was);
            rt_free(ctx->mem, n->slot_cap, sizeof(size_t) * was);
            rt_free(ctx->mem, n->slot_nested, was);
        }
        n->slots = s, n->slot_bytes = b, n->slot_cap = c, n->slot_nested = f;
        n->cap_slots = (int)now;
    }
    int i = n->n_slots++;
    n->slots[i] = nested ? (void *)&nested->gen : NULL;
    n->slot_bytes[i] = nested ? 0 : bytes;
    n->slot_cap[i] = 0;
    n->slot_nested[i] = nested != NULL;
    return i;
}

/* Can generated code run this construct? A cond's index is read as an
 * integer; a while loop's predicate is a bool. (Any number of operands
 * and outputs: the tables are sized by the construct.) */
static bool supported(const cj_ctx *ctx, const compiled *c, const ir_eqn *e, int depth) {
    const cf_record *rec = cf_of(&e->params);
    if (depth > CF_NATIVE_MAX_DEPTH || !rec || rec->ctx != ctx) return false;
    if (rec->n_progs < 1 || rec->n_out != e->n_out || rec->n_operands != e->n_in) return false;
    switch (rec->kind) {
    case CF_COND: {
        cj_dtype dt = c->ir->vars[ir_eqn_inputs(c->ir, e)[0]].dtype;
        return dt == CJ_BOOL || dt == CJ_I32 || dt == CJ_I64;
    }
    case CF_WHILE: {
        const ir_func *cond = rec->progs[0];
        return rec->n_progs == 2 && cond->n_out == 1 && cond->vars[cond->out[0]].dtype == CJ_BOOL &&
               cond->vars[cond->out[0]].rank == 0;
    }
    case CF_SCAN:
        return rec->n_progs == 1 && rec->length >= 0;
    }
    return false;
}

/* Sub-program j: its table, its buffer table with the constants in, the
 * nested constructs generated with it and its product blocks. */
static int make_sub(cj_ctx *ctx, cf_native *n, int j, cj_backend mode, int depth) {
    cf_sub *s = &n->sub[j];
    program *p = n->rec->prepared[j];
    const compiled *c = p->c;
    s->ctx = ctx;
    s->p = p;
    s->n_vars = c->ir->n_vars;
    s->n_eqns = c->ir->n_eqns;
    s->n_kernels = c->n_kernels;
    s->buf = rt_calloc(ctx->mem, sizeof(char *) * (size_t)(s->n_vars + 1));
    s->nested = rt_calloc(ctx->mem, sizeof(cf_native *) * (size_t)(s->n_kernels + 1));
    s->slot_of = rt_alloc(ctx->mem, sizeof(int) * (size_t)(s->n_kernels + 1));
    if (!s->buf || !s->nested || !s->slot_of || native_fill_table(ctx, p, &s->rt, &s->ew) != 0)
        return core_oom(ctx, "jit: a generated control-flow construct");
    for (int i = 0; i < c->ir->n_consts; i++) s->buf[c->ir->consts[i].var] = c->ir->consts[i].val->data;
    for (int k = 0; k < c->n_kernels; k++) {
        const kernel *K = &c->kernels[k];
        const ir_eqn *e = &c->ir->eqns[K->eqns[0]];
        s->slot_of[k] = -1;
        if (K->kind == KERNEL_SINGLE && prim_lower(e->prim)->kind == LOWER_CONSTRUCT) {
            s->nested[k] = cf_native_make(ctx, c, k, mode, depth + 1);
            if (ctx->err) return -1;
            if (s->nested[k] && (s->slot_of[k] = add_slot(ctx, n, 0, s->nested[k])) < 0) return -1;
        } else if (K->kind == KERNEL_DOT_EPILOGUE && c->home[e->out] == HOME_NONE) {
            const rt_aval *d = &c->ir->vars[e->out];
            int64_t size = rt_aval_size(d);
            if (size == 0) continue;
            int64_t cols = d->dims[d->rank - 1], rows = size / cols;
            size_t row_bytes = (size_t)cols * rt_dtypes[d->dtype].size;
            s->slot_of[k] = add_slot(ctx, n, (size_t)((rows + K->n_blocks - 1) / K->n_blocks) * row_bytes, NULL);
            if (s->slot_of[k] < 0) return -1;
        }
    }
    n->gen.sub[j].rt = &s->rt;
    n->gen.sub[j].buf = s->buf;
    n->gen.sub[j].run = s;
    return 0;
}

cf_carry_how cf_carry_of(const compiled *body, int i) {
    int v = body->ir->out[i];
    if (v == body->ir->in[i]) return CARRY_KEEP;
    if (!cf_output_written(body, i)) return CARRY_COPY;
    return body->donor && body->donor[v] == i ? CARRY_IN_PLACE : CARRY_SWAP;
}

/* Carries, their second buffers, and stand-ins for outputs the enclosing
 * program does not use. */
static int plan_outputs(cj_ctx *ctx, cf_native *n) {
    const cf_record *rec = n->rec;
    int nc = rec->kind == CF_COND ? 0 : rec->n_args;
    const compiled *body = n->sub[rec->kind == CF_WHILE ? 1 : 0].p->c;
    for (int i = 0; i < nc; i++) {
        n->carry[i] = cf_carry_of(body, i);
        size_t bytes = rt_aval_nbytes(&rec->out[i]);
        if (n->carry[i] == CARRY_SWAP || n->carry[i] == CARRY_COPY) {
            if ((n->spare_slot[i] = add_slot(ctx, n, bytes, NULL)) < 0) return -1;
        }
        if (n->out_var[i] < 0 && n->carry[i] != CARRY_KEEP && (n->own_slot[i] = add_slot(ctx, n, bytes, NULL)) < 0)
            return -1;
    }
    for (int o = nc; o < rec->n_out; o++) {
        if (n->out_var[o] >= 0) continue;
        /* an unused output still needs a place when some branch's kernels
         * write it (a scan's y: one slice, rewritten every step) */
        bool written = false;
        for (int j = 0; j < n->n_subs; j++) written |= cf_output_written(n->sub[j].p->c, o);
        if (!written) continue;
        size_t bytes = rec->kind == CF_SCAN ? rt_aval_nbytes(&body->ir->vars[body->ir->out[o]])
                                            : rt_aval_nbytes(&rec->out[o]);
        if ((n->own_slot[o] = add_slot(ctx, n, bytes, NULL)) < 0) return -1;
    }
    return 0;
}

/* The bytes of n's per-operand and per-output tables. */
static size_t table_bytes(const cf_native *n) {
    return sizeof(int) * (size_t)(n->n_ops + 3 * n->n_out) + sizeof(cf_carry_how) * (size_t)n->n_out;
}

cf_native *cf_native_make(cj_ctx *ctx, const compiled *c, int k, cj_backend mode, int depth) {
    const kernel *K = &c->kernels[k];
    const ir_eqn *e = &c->ir->eqns[K->eqns[0]];
    if (!supported(ctx, c, e, depth)) return NULL; /* cf_run runs it */
    cf_record *rec = cf_of(&e->params);
    if (cf_prepare(ctx, rec, mode) != 0) return NULL;
    cf_native *n = rt_calloc(ctx->mem, sizeof *n);
    if (!n) {
        core_oom(ctx, "jit: a generated control-flow construct");
        return NULL;
    }
    n->rec = rec;
    n->k = k;
    n->n_ops = e->n_in;
    n->n_out = e->n_out;
    /* the per-operand and per-output tables, one block */
    n->op_var = rt_alloc(ctx->mem, table_bytes(n));
    if (!n->op_var) {
        core_oom(ctx, "jit: a generated control-flow construct");
        rt_free(ctx->mem, n, sizeof *n);
        return NULL;
    }
    n->out_var = n->op_var + n->n_ops;
    n->own_slot = n->out_var + n->n_out;
    n->spare_slot = n->own_slot + n->n_out;
    n->carry = (cf_carry_how *)(n->spare_slot + n->n_out);
    memcpy(n->op_var, ir_eqn_inputs(c->ir, e), sizeof(int) * (size_t)e->n_in);
    n->index_dtype = c->ir->vars[n->op_var[0]].dtype;
    for (int o = 0; o < n->n_out; o++) {
        n->out_var[o] = n->own_slot[o] = n->spare_slot[o] = -1;
        n->carry[o] = CARRY_KEEP;
    }
    /* every output has a buffer: a SINGLE kernel writes all its results */
    for (int o = 0; o < e->n_out; o++) n->out_var[o] = e->out + o;
    n->gen.kernel = cb_kernel;
    n->gen.product = cb_product;
    n->gen.spread = cb_spread;
    n->gen.matvec = cb_matvec;
    n->gen.length = rec->length;
    int status = 0;
    for (int j = 0; j < rec->n_progs && status == 0; j++, n->n_subs++) status = make_sub(ctx, n, j, mode, depth);
    if (status == 0) status = plan_outputs(ctx, n);
    if (status != 0) {
        cf_native_free(ctx, n);
        return NULL;
    }
    n->gen.slot = n->slots;
    return n;
}

/* ---- runs ---- */

int cf_native_ready(cj_ctx *ctx, cf_native *n) {
    if (n->ready) return 0;
    for (int j = 0; j < n->n_subs; j++) {
        cf_sub *s = &n->sub[j];
        const compiled *c = s->p->c;
        if (interp_program_ready(ctx, s->p) != 0) return -1;
        for (int v = 0; v < c->ir->n_vars; v++)
            if (c->home[v] == HOME_ARENA) s->buf[v] = (char *)s->p->arena + c->offset[v];
        for (int k = 0; k < s->n_kernels; k++)
            if (s->nested[k] && cf_native_ready(ctx, s->nested[k]) != 0) return -1;
    }
    for (int i = 0; i < n->n_slots; i++) {
        if (n->slot_nested[i] || n->slots[i] || !n->slot_bytes[i]) continue;
        n->slots[i] = rt_data_alloc(ctx->mem, n->slot_bytes[i], &n->slot_cap[i]);
        if (!n->slots[i]) return core_oom(ctx, "jit: the buffers of a generated control-flow construct");
    }
    n->ready = 1;
    return 0;
}

void cf_native_free(cj_ctx *ctx, cf_native *n) {
    if (!n) return;
    for (int j = 0; j < n->n_subs; j++) {
        cf_sub *s = &n->sub[j];
        if (s->nested)
            for (int k = 0; k < s->n_kernels; k++) cf_native_free(ctx, s->nested[k]);
        if (s->nested) rt_free(ctx->mem, s->nested, sizeof(cf_native *) * (size_t)(s->n_kernels + 1));
        if (s->slot_of) rt_free(ctx->mem, s->slot_of, sizeof(int) * (size_t)(s->n_kernels + 1));
        if (s->buf) rt_free(ctx->mem, s->buf, sizeof(char *) * (size_t)(s->n_vars + 1));
        if (s->ew) rt_free(ctx->mem, s->ew, sizeof(void *) * (size_t)(s->n_eqns + 1));
    }
    for (int i = 0; i < n->n_slots; i++)
        if (!n->slot_nested[i] && n->slots[i]) rt_data_free(ctx->mem, n->slots[i], n->slot_cap[i]);
    size_t cap = (size_t)n->cap_slots;
    if (n->slots) rt_free(ctx->mem, n->slots, sizeof(void *) * cap);
    if (n->slot_bytes) rt_free(ctx->mem, n->slot_bytes, sizeof(size_t) * cap);
    if (n->slot_cap) rt_free(ctx->mem, n->slot_cap, sizeof(size_t) * cap);
    if (n->slot_nested) rt_free(ctx->mem, n->slot_nested, cap);
    if (n->op_var) rt_free(ctx->mem, n->op_var, table_bytes(n));
    rt_free(ctx->mem, n, sizeof *n);
}
