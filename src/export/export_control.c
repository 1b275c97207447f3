/* export_control.c — control-flow constructs of an exported unit as C
 * loops and branches (export layer; see export.h, docs/EXPORT.md).
 *
 * A construct kernel (cond / switch, while_loop, scan and fori_loop,
 * which is a scan) becomes one static function,
 * cjx_cf<id>_<k>(env, obuf, ws), over the enclosing program's buffer
 * table: a `for` loop over the scan's steps (forwards or backwards), a
 * `while` loop on the predicate its cond program computes, a `switch` on
 * the index clamped into range as lax.switch clamps it — the loops of
 * src/backend/codegen_control.c, the jit's generated twin, with the
 * workspace in place of the buffers the jit keeps. Each sub-program is
 * compiled as the jit prepares it (control_run.c: loop bodies with their
 * carries donated, temporaries never in outputs' buffers) and exported
 * once as a program of the unit (export_program.c), whatever the trip
 * count: the length is one constant of the loop, so the code grows with
 * the program, never with its trip counts.
 *
 * Carries move as the jit's loop moves them (cf_carry_of): each has its
 * current buffer (first the operand, never written) and the one the step
 * writes — the construct's output buffer, then, for carries not updated
 * in place, a second buffer they swap with (pointers, no copies). x
 * slices are read through offsets into the xs, y slices written straight
 * into the stacked outputs.
 *
 * The workspace of a construct (its region, at the enclosing program's
 * arena's end) holds the carries' second buffers, then the sub-programs'
 * arenas, all at one offset: only one sub-program runs at a time (a while
 * loop's predicate is read into a local before its body runs), and each
 * step's temporaries die with it. A nested construct's region follows
 * its sub-program's arena. So name_work_bytes() is the entry's arena
 * plus, recursively, the largest region any construct needs. */
#include <stdio.h>
#include <string.h>

#include "../backend/program_impl.h"
#include "export.h"

#define NONE ((size_t)-1)

static const char *kind_name(const cf_record *rec) {
    switch (rec->kind) {
    case CF_COND: return rec->n_progs == 2 ? "cond" : "switch";
    case CF_WHILE: return "while_loop";
    default: return "scan";
    }
}

/* What the exported loops take: the constructs the jit generates
 * (codegen_control_state.c's rules), every output with a buffer of the
 * enclosing program. */
static bool supported(const compiled *c, const ir_eqn *e, const cf_record *rec, char *why, size_t n) {
    if (rec->n_progs < 1 || rec->n_out != e->n_out || rec->n_operands != e->n_in) {
        snprintf(why, n, "a %s whose record does not match its equation", kind_name(rec));
        return false;
    }
    for (int o = 0; o < e->n_out; o++)
        if (c->home[e->out + o] == HOME_NONE) {
            snprintf(why, n, "a %s whose output %d has no buffer", kind_name(rec), o);
            return false;
        }
    switch (rec->kind) {
    case CF_COND: {
        cj_dtype dt = c->ir->vars[ir_eqn_inputs(c->ir, e)[0]].dtype;
        if (dt == CJ_BOOL || dt == CJ_I32 || dt == CJ_I64) return true;
        snprintf(why, n, "a %s on a %s index", kind_name(rec), cj_dtype_name(dt));
        return false;
    }
    case CF_WHILE: {
        const ir_func *cond = rec->progs[0];
        if (rec->n_progs == 2 && cond->n_out == 1 && cond->vars[cond->out[0]].dtype == CJ_BOOL &&
            cond->vars[cond->out[0]].rank == 0)
            return true;
        snprintf(why, n, "a while_loop whose predicate is not a bool scalar");
        return false;
    }
    case CF_SCAN:
        if (rec->n_progs == 1 && rec->length >= 0) return true;
        snprintf(why, n, "a scan without a length");
        return false;
    }
    return false;
}

/* Sub-program j compiled as control_run.c prepares it. */
static compiled *compile_sub(cj_ctx *ctx, const cf_record *rec, int j) {
    const ir_func *ir = rec->progs[j];
    int n_donate = rec->kind == CF_SCAN || (rec->kind == CF_WHILE && j == 1) ? rec->n_args : 0;
    uint8_t *donated = n_donate ? rt_calloc(ctx->mem, (size_t)ir->n_in + 1) : NULL;
    if (n_donate && !donated) {
        core_oom(ctx, "cj_export_c: a control-flow body");
        return NULL;
    }
    for (int i = 0; i < n_donate && i < ir->n_in; i++) donated[i] = 1;
    compiled *c = compile_ir_until(ctx, ir, NULL, &(compile_options){.donated = donated, .no_output_scratch = true});
    if (donated) rt_free(ctx->mem, donated, (size_t)ir->n_in + 1);
    return c;
}

void export_cf_free(export_unit *u, export_cf *cf) {
    if (!cf) return;
    cj_ctx *ctx = u->ctx;
    for (int j = 0; j < cf->n_subs; j++)
        if (cf->sub[j]) {
            export_prog_release(u, cf->sub[j]);
            rt_free(ctx->mem, cf->sub[j], sizeof *cf->sub[j]);
        }
    if (cf->spare) rt_free(ctx->mem, cf->spare, sizeof(size_t) * (size_t)(cf->n_out + 1));
    rt_free(ctx->mem, cf, sizeof *cf);
}

/* ---- the loops' text ---- */

typedef struct cf_text {
    const export_cf *cf;
    const cf_record *rec;
    const int *op;  /* the construct's operand variables in the owner */
    int out0;       /* its first output variable (the others follow) */
    cf_carry_how carry[256];
} cf_text;

/* cur[i] starts as the operand; nxt[i] as where the first step writes. */
static void carries_start(const cf_text *t, strbuf *sb) {
    int nc = t->rec->n_args;
    sb_printf(sb, "  char *cur[%d], *nxt[%d];\n", nc ? nc : 1, nc ? nc : 1);
    for (int i = 0; i < nc; i++) {
        sb_printf(sb, "  cur[%d] = obuf[%d];\n", i, t->op[i]);
        if (t->carry[i] != CARRY_KEEP) sb_printf(sb, "  nxt[%d] = obuf[%d];\n", i, t->out0 + i);
    }
    if (!nc) sb_printf(sb, "  (void)cur, (void)nxt;\n");
}

/* The body (sub-program j, table b<j>) reads cur and writes nxt. */
static void carries_in(const cf_text *t, int j, strbuf *sb) {
    const ir_func *ir = t->cf->sub[j]->c->ir;
    for (int i = 0; i < t->rec->n_args; i++) {
        sb_printf(sb, "    b%d[%d] = cur[%d];\n", j, ir->in[i], i);
        if (t->carry[i] == CARRY_IN_PLACE || t->carry[i] == CARRY_SWAP)
            sb_printf(sb, "    b%d[%d] = nxt[%d];\n", j, ir->out[i], i);
    }
}

/* After the body: carries that are other values copied in; then the
 * written buffers become current and the old ones are written next
 * (never the operand: the first step swaps in the second buffer). */
static void carries_advance(const cf_text *t, int j, strbuf *sb) {
    const ir_func *ir = t->cf->sub[j]->c->ir;
    for (int i = 0; i < t->rec->n_args; i++) {
        size_t bytes = rt_aval_nbytes(&t->rec->out[i]);
        if (t->carry[i] == CARRY_COPY && bytes)
            sb_printf(sb, "    memcpy(nxt[%d], b%d[%d], %zu);\n", i, j, ir->out[i], bytes);
    }
    for (int i = 0; i < t->rec->n_args; i++) {
        if (t->carry[i] == CARRY_IN_PLACE)
            sb_printf(sb, "    cur[%d] = nxt[%d];\n", i, i);
        else if (t->carry[i] != CARRY_KEEP)
            sb_printf(sb, "    { char *const o = cur[%d]; cur[%d] = nxt[%d]; nxt[%d] = step ? o : ws + %zu; }\n", i, i,
                      i, i, t->cf->spare[i]);
    }
}

/* The final carries into the construct's outputs, where not already. */
static void carries_finish(const cf_text *t, strbuf *sb) {
    for (int i = 0; i < t->rec->n_args; i++) {
        size_t bytes = rt_aval_nbytes(&t->rec->out[i]);
        if (bytes)
            sb_printf(sb, "  if (cur[%d] != obuf[%d]) memcpy(obuf[%d], cur[%d], %zu);\n", i, t->out0 + i, t->out0 + i,
                      i, bytes);
    }
}

/* Sub-program j's buffer table, bound once at the region's sub area. */
static void sub_table(const cf_text *t, int j, strbuf *sb) {
    const export_prog *s = t->cf->sub[j];
    sb_printf(sb, "  char *b%d[%d];\n  memset(b%d, 0, sizeof b%d);\n  cjx_bind%d(b%d, ws + %zu);\n", j,
              s->c->ir->n_vars + 1, j, j, s->id, j, t->cf->slots);
}

/* Sub-program j's closure: its last inputs, from the construct's operands. */
static void sub_closure(const cf_text *t, int j, int first_input, strbuf *sb) {
    const ir_func *ir = t->cf->sub[j]->c->ir;
    for (int q = 0; q < t->rec->clo_n[j]; q++)
        sb_printf(sb, "  b%d[%d] = obuf[%d];\n", j, ir->in[first_input + q], t->op[t->rec->clo_start[j] + q]);
}

static void run_sub(const cf_text *t, int j, const char *ind, strbuf *sb) {
    sb_printf(sb, "%scjx_run%d(env, b%d, ws + %zu);\n", ind, t->cf->sub[j]->id, j, t->cf->slots);
}

static void emit_scan(const cf_text *t, strbuf *sb) {
    const cf_record *rec = t->rec;
    const compiled *body = t->cf->sub[0]->c;
    const ir_func *ir = body->ir;
    int nc = rec->n_args, nx = rec->n_xs, ny = rec->n_out - nc;
    sub_table(t, 0, sb);
    carries_start(t, sb);
    sub_closure(t, 0, nc + nx, sb);
    sb_printf(sb, "  for (i64 step = 0; step < %lldLL; step++) {\n", (long long)rec->length);
    sb_printf(sb, rec->reverse ? "    const i64 t = %lldLL - 1 - step;\n    (void)t;\n" : "    const i64 t = step;\n    (void)t;\n",
              (long long)rec->length);
    carries_in(t, 0, sb);
    for (int i = 0; i < nx; i++)
        sb_printf(sb, "    b0[%d] = obuf[%d] + t * %zu;\n", ir->in[nc + i], t->op[nc + i],
                  rt_aval_nbytes(&ir->vars[ir->in[nc + i]]));
    for (int y = 0; y < ny; y++) {
        int o = nc + y;
        if (cf_output_written(body, o))
            sb_printf(sb, "    b0[%d] = obuf[%d] + t * %zu;\n", ir->out[o], t->out0 + o,
                      rt_aval_nbytes(&ir->vars[ir->out[o]]));
    }
    run_sub(t, 0, "    ", sb);
    for (int y = 0; y < ny; y++) { /* ys that are other values: copied into their slice */
        int o = nc + y;
        size_t bytes = rt_aval_nbytes(&ir->vars[ir->out[o]]);
        if (!cf_output_written(body, o) && bytes)
            sb_printf(sb, "    memcpy(obuf[%d] + t * %zu, b0[%d], %zu);\n", t->out0 + o, bytes, ir->out[o], bytes);
    }
    carries_advance(t, 0, sb);
    sb_printf(sb, "  }\n");
    carries_finish(t, sb);
}

static void emit_while(const cf_text *t, strbuf *sb) {
    const cf_record *rec = t->rec;
    const compiled *cond = t->cf->sub[0]->c;
    const ir_func *ci = cond->ir;
    int nc = rec->n_args;
    sub_table(t, 0, sb);
    sub_table(t, 1, sb);
    carries_start(t, sb);
    sub_closure(t, 0, nc, sb);
    sub_closure(t, 1, nc, sb);
    sb_printf(sb, "  unsigned long long pred[1]; /* the predicate, when the cond program computes it */\n  unsigned char go;\n  i64 step = 0;\n  (void)step;\n");
    if (cf_output_written(cond, 0)) sb_printf(sb, "  b0[%d] = (char *)pred;\n", ci->out[0]);
    else sb_printf(sb, "  (void)pred;\n");
    sb_printf(sb, "  for (;;) {\n");
    for (int i = 0; i < nc; i++) sb_printf(sb, "    b0[%d] = cur[%d];\n", ci->in[i], i);
    run_sub(t, 0, "    ", sb);
    sb_printf(sb, "    go = *(const unsigned char *)b0[%d] != 0;\n    if (!go) break;\n", ci->out[0]);
    carries_in(t, 1, sb);
    run_sub(t, 1, "    ", sb);
    carries_advance(t, 1, sb);
    sb_printf(sb, "    step++;\n  }\n");
    carries_finish(t, sb);
}

static void emit_cond(const cf_text *t, strbuf *sb) {
    const cf_record *rec = t->rec;
    int nb = rec->n_progs;
    cj_dtype dt = t->cf->index_dtype;
    sb_printf(sb, "  const i64 index = (i64)*(const %s *)obuf[%d];\n",
              dt == CJ_BOOL ? "unsigned char" : dt == CJ_I64 ? "long long" : "int", t->op[0]);
    sb_printf(sb, "  const int branch = index < 0 ? 0 : index >= %d ? %d : (int)index;\n  switch (branch) {\n", nb,
              nb - 1);
    for (int j = 0; j < nb; j++) {
        const compiled *c = t->cf->sub[j]->c;
        const ir_func *ir = c->ir;
        sb_printf(sb, "  case %d: {\n", j);
        sub_table(t, j, sb);
        for (int q = 0; q < rec->n_args; q++) sb_printf(sb, "  b%d[%d] = obuf[%d];\n", j, ir->in[q], t->op[1 + q]);
        sub_closure(t, j, rec->n_args, sb);
        for (int o = 0; o < rec->n_out; o++)
            if (cf_output_written(c, o)) sb_printf(sb, "  b%d[%d] = obuf[%d];\n", j, ir->out[o], t->out0 + o);
        run_sub(t, j, "  ", sb);
        for (int o = 0; o < rec->n_out; o++) { /* outputs that are other values */
            size_t bytes = rt_aval_nbytes(&rec->out[o]);
            if (!cf_output_written(c, o) && bytes)
                sb_printf(sb, "  memcpy(obuf[%d], b%d[%d], %zu);\n", t->out0 + o, j, ir->out[o], bytes);
        }
        sb_printf(sb, "  break;\n  }\n");
    }
    sb_printf(sb, "  }\n");
}

int export_construct(export_unit *u, export_prog *p, int k, int depth) {
    cj_ctx *ctx = u->ctx;
    const compiled *c = p->c;
    const ir_eqn *e = &c->ir->eqns[c->kernels[k].eqns[0]];
    const cf_record *rec = cf_of(&e->params);
    char why[300];
    if (!rec) {
        snprintf(u->why, sizeof u->why, "kernel %d (%s) has no record", k, prim_names[e->prim]);
        return -1;
    }
    if (depth >= EXPORT_MAX_DEPTH) {
        snprintf(u->why, sizeof u->why, "kernel %d (%s) nests control flow deeper than %d levels", k, kind_name(rec),
                 EXPORT_MAX_DEPTH);
        return -1;
    }
    if (!supported(c, e, rec, why, sizeof why)) {
        snprintf(u->why, sizeof u->why, "kernel %d: %s has no exported form yet", k, why);
        return -1;
    }
    if (rec->n_out > 256) {
        snprintf(u->why, sizeof u->why, "kernel %d: a %s of more than 256 outputs", k, kind_name(rec));
        return -1;
    }
    export_cf *cf = rt_calloc(ctx->mem, sizeof *cf);
    if (!cf) return core_oom(ctx, "cj_export_c"), -1;
    p->cf[k] = cf; /* freed with p from here on */
    cf->k = k;
    cf->n_out = rec->n_out;
    cf->index_dtype = c->ir->vars[ir_eqn_inputs(c->ir, e)[0]].dtype;
    cf->spare = rt_alloc(ctx->mem, sizeof(size_t) * (size_t)(rec->n_out + 1));
    if (!cf->spare) return core_oom(ctx, "cj_export_c"), -1;
    size_t sub_need = 0;
    for (int j = 0; j < rec->n_progs; j++) {
        export_prog *s = rt_calloc(ctx->mem, sizeof *s);
        if (!s) return core_oom(ctx, "cj_export_c"), -1;
        cf->sub[cf->n_subs++] = s;
        s->c = compile_sub(ctx, rec, j);
        if (!s->c) return -1;
        s->owned = true;
        if (export_program(u, s, depth + 1) != 0) {
            if (!ctx->err) {
                char more[sizeof u->why + 128];
                snprintf(more, sizeof more, "%s (kernel %d) sub-program %d: %s", kind_name(rec), k, j, u->why);
                memcpy(u->why, more, sizeof u->why - 1);
                u->why[sizeof u->why - 1] = 0;
            }
            return -1;
        }
        if (export_align(s->need) > sub_need) sub_need = export_align(s->need);
    }
    /* the carries' second buffers (those the jit keeps: swapped or copied) */
    cf_text t = {.cf = cf, .rec = rec, .op = ir_eqn_inputs(c->ir, e), .out0 = e->out};
    const compiled *body = cf->sub[rec->kind == CF_WHILE ? 1 : 0]->c;
    for (int o = 0; o < rec->n_out; o++) {
        cf->spare[o] = NONE;
        t.carry[o] = CARRY_KEEP;
        if (rec->kind == CF_COND || o >= rec->n_args) continue;
        t.carry[o] = cf_carry_of(body, o);
        if (t.carry[o] == CARRY_SWAP || t.carry[o] == CARRY_COPY) {
            cf->spare[o] = cf->slots;
            cf->slots += export_align(rt_aval_nbytes(&rec->out[o]));
        }
    }
    cf->region = cf->slots + sub_need;
    strbuf *sb = &u->progs;
    static const char *const how[] = {"unchanged", "in place", "swapped", "copied"};
    sb_printf(sb, "\n/* control flow: %s (kernel %d of program %d)", kind_name(rec), k, p->id);
    if (rec->kind == CF_SCAN)
        sb_printf(sb, ": a for loop over %lld steps%s", (long long)rec->length, rec->reverse ? ", last to first" : "");
    for (int i = 0; rec->kind != CF_COND && i < rec->n_args; i++)
        sb_printf(sb, "%scarry %d %s", i ? ", " : "; ", i, how[t.carry[i]]);
    sb_printf(sb, "; %zu bytes of workspace */\n", cf->region);
    sb_printf(sb, "static void cjx_cf%d_%d(const cjx_env *env, char *const *obuf, char *ws) {\n", p->id, k);
    switch (rec->kind) {
    case CF_SCAN: emit_scan(&t, sb); break;
    case CF_WHILE: emit_while(&t, sb); break;
    case CF_COND: emit_cond(&t, sb); break;
    }
    sb_printf(sb, "}\n");
    return 0;
}
