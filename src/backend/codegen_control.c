/* codegen_control.c — C for a control-flow construct's loop or branch
 * (backend layer).
 *
 * A construct kernel of a program with generated code (cond / switch,
 * while_loop, scan and fori_loop, which is a scan) becomes one function,
 * `int cjk_construct_<k>(cjk_cf *cf, char *const *obuf)`, over the
 * enclosing program's buffer table: a `for` loop over a scan's steps
 * (forwards or backwards), a `while` loop on a predicate computed by the
 * cond program, a `switch` on a cond's index clamped into range as
 * lax.switch clamps it. Each sub-program's kernels are static functions of
 * the same translation unit (named cjk_s<path>_<sub>_kernel_<n>), called
 * straight from the loop with the sub-program's planned arena; so is a
 * nested construct (recursively, up to CF_NATIVE_MAX_DEPTH; deeper ones,
 * and those codegen_control_state.c does not take, run through cf_run).
 * What generated code does not compute — SINGLE kernels (dot, gather,
 * dynamic_update_slice ...), ROWS kernels without a generated form, the
 * product of a DOT_EPILOGUE kernel — it calls through the callbacks in
 * cjk_cf; a matrix-vector dot_general goes straight to the runtime's
 * product (cf->matvec), not through the primitive's dispatch; kernels large enough for the thread pool go through
 * cf->spread, the same chunks native.c would run.
 *
 * Carries move as cf_run moves them, without allocating: each carry has
 * its current buffer (first the operand, never written) and the buffer
 * the step writes — the construct's output buffer, then, for carries not
 * updated in place, a kept second buffer the two swap with (pointer swaps,
 * no copies; an output planned into its donated carry is written in
 * place, so a dynamic_update_slice changes only its slice). x slices are
 * read through pointer offsets into the xs, y slices written straight
 * into the stacked outputs. The trip count is read from cf->length, not
 * written into the source, so one build serves every trip count. */
#include <string.h>

#include "../runtime/threads.h"
#include "codegen.h"
#include "program_impl.h"

void codegen_construct_types(strbuf *sb) {
    sb_printf(sb,
              "typedef void (*cjk_kernel)(const cjk_rt *, char *const *, i64, i64);\n"
              "typedef struct { const cjk_rt *rt; char **buf; void *run; } cjk_sub;\n"
              "typedef struct {\n"
              "  int (*kernel)(void *, int, char **);\n"
              "  int (*product)(void *, int, char *const *, i64, i64, char *);\n"
              "  void (*spread)(void *, int, cjk_kernel, char *const *, i64, i64);\n"
              "  void (*matvec)(int, i64, i64, const char *, const char *, char *);\n"
              "  i64 length;\n"
              "  void *const *slot;\n"
              "  cjk_sub sub[%d];\n"
              "} cjk_cf;\n",
              CF_MAX_BRANCHES);
}

static const char *kind_name(const cf_record *rec) {
    switch (rec->kind) {
    case CF_COND: return rec->n_progs == 2 ? "cond" : "switch";
    case CF_WHILE: return "while_loop";
    default: return "scan";
    }
}

/* Where construct output o lives: the enclosing program's buffer, or the
 * kept stand-in when it uses none. */
static void output_ptr(const cf_native *n, int o, char *out, size_t size) {
    if (n->out_var[o] >= 0) snprintf(out, size, "obuf[%d]", n->out_var[o]);
    else snprintf(out, size, "(char *)cf->slot[%d]", n->own_slot[o]);
}

/* ---- running a sub-program's kernels (with cf, s and b in scope) ---- */

/* Generated kernel fn over [begin, end): called straight, or spread over
 * the pool when the range is large enough (the same chunks native.c's
 * runs use, so the same tiles). */
static void emit_range_call(const char *fn, int k, const char *begin, const char *end, bool spread, strbuf *sb) {
    if (spread) sb_printf(sb, "    cf->spread(s->run, %d, %s, b, %s, %s);\n", k, fn, begin, end);
    else sb_printf(sb, "    %s(s->rt, b, %s, %s);\n", fn, begin, end);
}

/* A DOT_EPILOGUE kernel as dot_epilogue.c runs it: per block of the
 * product's rows, the product (a callback) into its buffer or the kept
 * block, then the generated epilogue over the block's elements. */
static void emit_dot_epilogue(const cf_sub *s, int k, const char *fn, strbuf *sb) {
    const compiled *c = s->p->c;
    const kernel *K = &c->kernels[k];
    int d = c->ir->eqns[K->eqns[0]].out;
    const rt_aval *dv = &c->ir->vars[d];
    int64_t size = rt_aval_size(dv);
    if (size == 0) return;
    long long cols = (long long)dv->dims[dv->rank - 1], rows = (long long)(size / cols), nb = (long long)K->n_blocks;
    long long row_bytes = cols * (long long)rt_dtypes[dv->dtype].size;
    bool spread = ((rows + nb - 1) / nb) * cols >= RT_PARALLEL_MIN_ELEMS;
    sb_printf(sb, "    for (i64 q = 0; q < %lld; q++) { /* dot+epilogue kernel %d, a block of rows at a time */\n", nb,
              k);
    sb_printf(sb, "      const i64 r0 = q * %lld / %lld, r1 = (q + 1) * %lld / %lld;\n", rows, nb, rows, nb);
    if (c->home[d] != HOME_NONE) {
        sb_printf(sb, "      if (cf->product(s->run, %d, b, r0, r1, b[%d] + r0 * %lld)) return -1;\n", k, d, row_bytes);
    } else {
        sb_printf(sb, "      char *const blk = (char *)cf->slot[%d];\n", s->slot_of[k]);
        sb_printf(sb, "      if (cf->product(s->run, %d, b, r0, r1, blk)) return -1;\n", k);
        /* the epilogue reads the product at r0·N..: the block's address
         * less r0·N elements (dot_epilogue.c does the same) */
        sb_printf(sb, "      b[%d] = (char *)((__UINTPTR_TYPE__)blk - (__UINTPTR_TYPE__)(r0 * %lld));\n", d, row_bytes);
    }
    char begin[48], end[48];
    snprintf(begin, sizeof begin, "r0 * %lld", cols);
    snprintf(end, sizeof end, "r1 * %lld", cols);
    sb_printf(sb, "  ");
    emit_range_call(fn, k, begin, end, spread, sb);
    sb_printf(sb, "    }\n");
}

/* Is SINGLE kernel K a matrix-vector product, A [m, k] · x [k] summed over
 * A's last axis, all float32 or all float64? Then the loop calls the
 * product itself (cf->matvec) instead of the dot primitive through the
 * interpreter: per step that path builds array views, merges axes, picks
 * the layout and plans the product again, 6–7 % of an RNN step with
 * hidden size 256. A, x and y are whole planned buffers, dense. */
static bool matvec_form(const compiled *c, const kernel *K, int *A, int *x, int64_t *m, int64_t *k) {
    const ir_func *ir = c->ir;
    const ir_eqn *e = &ir->eqns[K->eqns[0]];
    if (e->prim != PRIM_DOT_GENERAL || e->n_in != 2 || e->n_out != 1) return false;
    const prim_params *p = &e->params;
    const int *in = ir_eqn_inputs(ir, e);
    const rt_aval *a = &ir->vars[in[0]], *v = &ir->vars[in[1]], *y = &ir->vars[e->out];
    if (a->rank != 2 || v->rank != 1 || p->lhs_batch.n || p->rhs_batch.n || p->lhs_contract.n != 1 ||
        p->rhs_contract.n != 1 || p->lhs_contract.v[0] != 1 || p->rhs_contract.v[0] != 0)
        return false;
    if ((a->dtype != CJ_F32 && a->dtype != CJ_F64) || v->dtype != a->dtype || y->dtype != a->dtype) return false;
    if (a->dims[0] <= 0 || a->dims[1] <= 0) return false; /* the primitive's path handles empty sums */
    *A = in[0], *x = in[1], *m = a->dims[0], *k = a->dims[1];
    return true;
}

static void emit_run_sub(const cf_native *n, const char *path, int j, strbuf *sb) {
    const cf_sub *s = &n->sub[j];
    const compiled *c = s->p->c;
    for (int k = 0; k < c->n_kernels; k++) {
        const kernel *K = &c->kernels[k];
        char fn[96], end[32];
        int A, x;
        int64_t m, kk;
        snprintf(fn, sizeof fn, "cjk_s%s_%d_kernel_%d", path, j, k);
        if (K->kind == KERNEL_LOOP) {
            int64_t size = rt_aval_size(&K->space);
            snprintf(end, sizeof end, "%lld", (long long)size);
            if (size) emit_range_call(fn, k, "0", end, size >= RT_PARALLEL_MIN_ELEMS, sb);
        } else if (K->kind == KERNEL_ROWS && codegen_generates(c, k)) {
            int64_t rows = 1;
            for (int a = 0; a < K->outer_rank; a++) rows *= K->space.dims[a];
            snprintf(end, sizeof end, "%lld", (long long)rows);
            if (rows) emit_range_call(fn, k, "0", end, rows * K->row_len >= RT_PARALLEL_MIN_ELEMS, sb);
        } else if (K->kind == KERNEL_DOT_EPILOGUE) {
            emit_dot_epilogue(s, k, fn, sb);
        } else if (s->nested[k]) {
            sb_printf(sb, "    if (cjk_construct_%s_%d_%d((cjk_cf *)cf->slot[%d], b)) return -1;\n", path, j, k,
                      s->slot_of[k]);
        } else if (K->kind == KERNEL_SINGLE && matvec_form(c, K, &A, &x, &m, &kk)) {
            int y = c->ir->eqns[K->eqns[0]].out;
            sb_printf(sb, "    cf->matvec(%d, %lld, %lld, b[%d], b[%d], b[%d]); /* dot_general: matrix-vector */\n",
                      c->ir->vars[A].dtype == CJ_F64, (long long)m, (long long)kk, A, x, y);
        } else { /* dot, gather, ..., or a construct left to cf_run */
            sb_printf(sb, "    if (cf->kernel(s->run, %d, b)) return -1; /* %s */\n", k,
                      prim_names[c->ir->eqns[K->eqns[0]].prim]);
        }
    }
}

/* Sub-program j's closure: its last inputs, read from the construct's
 * operands from clo_start[j] (set once; the loop never changes them). */
static void emit_closure(const cf_native *n, int j, int first_input, strbuf *sb) {
    const ir_func *ir = n->sub[j].p->c->ir;
    for (int q = 0; q < n->rec->clo_n[j]; q++)
        sb_printf(sb, "  b[%d] = obuf[%d];\n", ir->in[first_input + q], n->op_var[n->rec->clo_start[j] + q]);
}

/* ---- loops: carries ---- */

/* cur[i] starts as the operand; nxt[i] as where the first step writes. */
static void emit_carries_start(const cf_native *n, strbuf *sb) {
    int nc = n->rec->n_args;
    sb_printf(sb, "  char *cur[%d], *nxt[%d];\n", nc ? nc : 1, nc ? nc : 1);
    for (int i = 0; i < nc; i++) {
        char a[48];
        output_ptr(n, i, a, sizeof a);
        sb_printf(sb, "  cur[%d] = obuf[%d];\n", i, n->op_var[i]);
        if (n->carry[i] != CARRY_KEEP) sb_printf(sb, "  nxt[%d] = %s;\n", i, a);
    }
}

/* The body (sub-program j) reads cur and writes nxt. */
static void emit_carries_in(const cf_native *n, int j, strbuf *sb) {
    const ir_func *ir = n->sub[j].p->c->ir;
    for (int i = 0; i < n->rec->n_args; i++) {
        sb_printf(sb, "    b[%d] = cur[%d];\n", ir->in[i], i);
        if (n->carry[i] == CARRY_IN_PLACE || n->carry[i] == CARRY_SWAP)
            sb_printf(sb, "    b[%d] = nxt[%d];\n", ir->out[i], i);
    }
}

/* After the body's kernels: carries that are other values copied in. */
static void emit_carries_copy(const cf_native *n, int j, strbuf *sb) {
    const ir_func *ir = n->sub[j].p->c->ir;
    for (int i = 0; i < n->rec->n_args; i++) {
        size_t bytes = rt_aval_nbytes(&n->rec->out[i]);
        if (n->carry[i] == CARRY_COPY && bytes)
            sb_printf(sb, "    __builtin_memcpy(nxt[%d], b[%d], %zu);\n", i, ir->out[i], bytes);
    }
}

/* The written buffers become current; the old ones are written next
 * (never the operand, which the step-0 check swaps for the kept buffer). */
static void emit_carries_advance(const cf_native *n, strbuf *sb) {
    for (int i = 0; i < n->rec->n_args; i++) {
        if (n->carry[i] == CARRY_IN_PLACE)
            sb_printf(sb, "    cur[%d] = nxt[%d];\n", i, i);
        else if (n->carry[i] != CARRY_KEEP)
            sb_printf(sb, "    { char *const o = cur[%d]; cur[%d] = nxt[%d]; nxt[%d] = step ? o : (char *)cf->slot[%d]; }\n",
                      i, i, i, i, n->spare_slot[i]);
    }
}

/* The final carries into the construct's outputs, where not already. */
static void emit_carries_finish(const cf_native *n, strbuf *sb) {
    for (int i = 0; i < n->rec->n_args; i++) {
        size_t bytes = rt_aval_nbytes(&n->rec->out[i]);
        if (n->out_var[i] >= 0 && bytes)
            sb_printf(sb, "  if (cur[%d] != obuf[%d]) __builtin_memcpy(obuf[%d], cur[%d], %zu);\n", i, n->out_var[i],
                      n->out_var[i], i, bytes);
    }
}

static void emit_carry_comment(const cf_native *n, strbuf *sb) {
    static const char *const how[] = {"unchanged", "in place", "swapped", "copied"};
    for (int i = 0; i < n->rec->n_args; i++) sb_printf(sb, "%scarry %d %s", i ? ", " : "; ", i, how[n->carry[i]]);
}

/* ---- the constructs ---- */

static void emit_head(const char *path, bool exported, strbuf *sb) {
    sb_printf(sb, "%sint cjk_construct_%s(cjk_cf *cf, char *const *obuf) {\n", exported ? "" : "static ", path);
}

static void emit_scan(const cf_native *n, const char *path, bool exported, strbuf *sb) {
    const cf_record *rec = n->rec;
    const ir_func *ir = n->sub[0].p->c->ir;
    const compiled *body = n->sub[0].p->c;
    int nc = rec->n_args, nx = rec->n_xs, ny = rec->n_out - nc;
    sb_printf(sb, "\n/* control flow: scan (kernel %d): a for loop over cf->length steps%s", n->k,
              rec->reverse ? ", last to first" : "");
    emit_carry_comment(n, sb);
    sb_printf(sb, "; %d xs read in place, %d ys written into their stacked outputs */\n", nx, ny);
    emit_head(path, exported, sb);
    sb_printf(sb, "  const cjk_sub *const s = &cf->sub[0];\n  char **const b = s->buf;\n");
    sb_printf(sb, "  const i64 length = cf->length;\n");
    emit_carries_start(n, sb);
    emit_closure(n, 0, nc + nx, sb);
    sb_printf(sb, "  for (i64 step = 0; step < length; step++) {\n");
    sb_printf(sb, rec->reverse ? "    const i64 t = length - 1 - step;\n" : "    const i64 t = step;\n");
    emit_carries_in(n, 0, sb);
    for (int i = 0; i < nx; i++)
        sb_printf(sb, "    b[%d] = obuf[%d] + t * %zu;\n", ir->in[nc + i], n->op_var[nc + i],
                  rt_aval_nbytes(&ir->vars[ir->in[nc + i]]));
    for (int j = 0; j < ny; j++) {
        int o = nc + j;
        size_t bytes = rt_aval_nbytes(&ir->vars[ir->out[o]]);
        if (!cf_output_written(body, o)) continue;
        if (n->out_var[o] >= 0) sb_printf(sb, "    b[%d] = obuf[%d] + t * %zu;\n", ir->out[o], n->out_var[o], bytes);
        else sb_printf(sb, "    b[%d] = (char *)cf->slot[%d];\n", ir->out[o], n->own_slot[o]);
    }
    emit_run_sub(n, path, 0, sb);
    emit_carries_copy(n, 0, sb);
    for (int j = 0; j < ny; j++) { /* ys that are other values: copied into their slice */
        int o = nc + j;
        size_t bytes = rt_aval_nbytes(&ir->vars[ir->out[o]]);
        if (!cf_output_written(body, o) && n->out_var[o] >= 0 && bytes)
            sb_printf(sb, "    __builtin_memcpy(obuf[%d] + t * %zu, b[%d], %zu);\n", n->out_var[o], bytes, ir->out[o],
                      bytes);
    }
    emit_carries_advance(n, sb);
    sb_printf(sb, "  }\n");
    emit_carries_finish(n, sb);
    sb_printf(sb, "  return 0;\n}\n");
}

static void emit_while(const cf_native *n, const char *path, bool exported, strbuf *sb) {
    const cf_record *rec = n->rec;
    const compiled *cond = n->sub[0].p->c;
    const ir_func *ci = cond->ir;
    int nc = rec->n_args;
    /* the predicate: the cond program over the current carries */
    sb_printf(sb, "\nstatic int cjk_construct_%s_pred(cjk_cf *cf, char *const *cur, unsigned char *go) {\n", path);
    sb_printf(sb, "  const cjk_sub *const s = &cf->sub[0];\n  char **const b = s->buf;\n");
    sb_printf(sb, "  _Alignas(8) char pred[8];\n");
    for (int i = 0; i < nc; i++) sb_printf(sb, "  b[%d] = cur[%d];\n", ci->in[i], i);
    if (cf_output_written(cond, 0)) sb_printf(sb, "  b[%d] = pred;\n", ci->out[0]);
    emit_run_sub(n, path, 0, sb);
    sb_printf(sb, "  *go = *(const unsigned char *)b[%d] != 0;\n  return 0;\n}\n", ci->out[0]);

    sb_printf(sb, "\n/* control flow: while_loop (kernel %d): a while loop on the cond program's predicate", n->k);
    emit_carry_comment(n, sb);
    sb_printf(sb, " */\n");
    emit_head(path, exported, sb);
    emit_carries_start(n, sb);
    for (int j = 0; j < 2; j++) {
        if (!rec->clo_n[j]) continue;
        sb_printf(sb, "  {\n  char **const b = cf->sub[%d].buf;\n", j);
        emit_closure(n, j, nc, sb);
        sb_printf(sb, "  }\n");
    }
    sb_printf(sb, "  unsigned char go;\n  if (cjk_construct_%s_pred(cf, cur, &go)) return -1;\n", path);
    sb_printf(sb, "  i64 step = 0;\n  while (go) {\n");
    sb_printf(sb, "    const cjk_sub *const s = &cf->sub[1];\n    char **const b = s->buf;\n");
    emit_carries_in(n, 1, sb);
    emit_run_sub(n, path, 1, sb);
    emit_carries_copy(n, 1, sb);
    emit_carries_advance(n, sb);
    sb_printf(sb, "    step++;\n    if (cjk_construct_%s_pred(cf, cur, &go)) return -1;\n  }\n", path);
    emit_carries_finish(n, sb);
    sb_printf(sb, "  return 0;\n}\n");
}

static void emit_cond(const cf_native *n, const char *path, bool exported, strbuf *sb) {
    const cf_record *rec = n->rec;
    int nb = rec->n_progs;
    sb_printf(sb, "\n/* control flow: %s (kernel %d): a switch over %d branches, the index clamped into range */\n",
              kind_name(rec), n->k, nb);
    emit_head(path, exported, sb);
    sb_printf(sb, "  const i64 index = (i64)*(const %s *)obuf[%d];\n",
              n->index_dtype == CJ_BOOL ? "unsigned char" : n->index_dtype == CJ_I64 ? "long long" : "int",
              n->op_var[0]);
    sb_printf(sb, "  const int branch = index < 0 ? 0 : index >= %d ? %d : (int)index;\n", nb, nb - 1);
    sb_printf(sb, "  switch (branch) {\n");
    for (int j = 0; j < nb; j++) {
        const compiled *c = n->sub[j].p->c;
        const ir_func *ir = c->ir;
        sb_printf(sb, "  case %d: {\n    const cjk_sub *const s = &cf->sub[%d];\n    char **const b = s->buf;\n", j, j);
        for (int q = 0; q < rec->n_args; q++) sb_printf(sb, "    b[%d] = obuf[%d];\n", ir->in[q], n->op_var[1 + q]);
        for (int q = 0; q < rec->clo_n[j]; q++)
            sb_printf(sb, "    b[%d] = obuf[%d];\n", ir->in[rec->n_args + q], n->op_var[rec->clo_start[j] + q]);
        for (int o = 0; o < rec->n_out; o++) {
            if (!cf_output_written(c, o)) continue;
            char a[48];
            output_ptr(n, o, a, sizeof a);
            sb_printf(sb, "    b[%d] = %s;\n", ir->out[o], a);
        }
        emit_run_sub(n, path, j, sb);
        for (int o = 0; o < rec->n_out; o++) { /* outputs that are other values */
            size_t bytes = rt_aval_nbytes(&rec->out[o]);
            if (!cf_output_written(c, o) && n->out_var[o] >= 0 && bytes)
                sb_printf(sb, "    __builtin_memcpy(obuf[%d], b[%d], %zu);\n", n->out_var[o], ir->out[o], bytes);
        }
        sb_printf(sb, "    break;\n  }\n");
    }
    sb_printf(sb, "  }\n  return 0;\n}\n");
}

/* The construct at `path` with everything it calls before it: nested
 * constructs, then each sub-program's kernels as static functions. */
static void emit_tree(const cf_native *n, const char *path, bool exported, strbuf *sb) {
    for (int j = 0; j < n->n_subs; j++) {
        const cf_sub *s = &n->sub[j];
        for (int k = 0; k < s->n_kernels; k++) {
            if (!s->nested[k]) continue;
            char inner[160];
            snprintf(inner, sizeof inner, "%s_%d_%d", path, j, k);
            emit_tree(s->nested[k], inner, false, sb);
        }
        char prefix[180];
        snprintf(prefix, sizeof prefix, "cjk_s%s_%d_", path, j);
        sb_printf(sb, "\n/* %s (kernel %d), sub-program %d: its kernels */\n", kind_name(n->rec), n->k, j);
        codegen_kernels(s->p->c, prefix, false, sb);
    }
    switch (n->rec->kind) {
    case CF_SCAN: emit_scan(n, path, exported, sb); break;
    case CF_WHILE: emit_while(n, path, exported, sb); break;
    case CF_COND: emit_cond(n, path, exported, sb); break;
    }
}

void codegen_constructs(const compiled *c, struct cf_native *const *cf, strbuf *sb) {
    for (int k = 0; k < c->n_kernels; k++) {
        if (!cf[k]) continue;
        char path[16];
        snprintf(path, sizeof path, "%d", k);
        emit_tree(cf[k], path, true, sb);
    }
}
