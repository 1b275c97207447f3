/* export_program.c — one program of an exported unit, as C (export layer;
 * see export.h and docs/EXPORT.md).
 *
 * A unit's programs are the entry's and every control-flow construct's
 * sub-programs (export_control.c compiles those as the jit does). For
 * each, this file checks every kernel has an exported form and writes
 * it: the kernels as codegen.c writes them for the jit (static
 * cjx_p<id>_kernel_<k>), the runtime table's entries (export_ops.c), the
 * products (export_dot.c), whole-array reductions, the table itself, the
 * captured constants, and two functions: cjx_bind<id>, which points the
 * buffer table at the constants and the arena's planned offsets (once per
 * run of the enclosing construct, not per step), and cjx_run<id>, which
 * runs the kernels in schedule order as program_run does — a construct
 * as a call of its loop or branch, over the workspace after the arena.
 * Names carry the program's id and unit-wide numbers, so any number of
 * programs share one translation unit. */
#include <stdio.h>
#include <string.h>

#include "../backend/codegen.h"
#include "export.h"

/* The constant's bits as a union of an unsigned array and its own type,
 * so every value (NaN payloads, -0, f16 bits) is exact and is read
 * through its own type (C99 allows reading a union's other member). */
static void emit_constant(int n_id, const rt_array *val, strbuf *sb) {
    const rt_aval *a = &val->aval;
    size_t es = rt_dtypes[a->dtype].size;
    int64_t n = rt_aval_size(a);
    const char *U = es == 1 ? "unsigned char" : es == 2 ? "unsigned short" : es == 4 ? "unsigned int" : "unsigned long long";
    const char *sfx = es == 8 ? "ull" : "u";
    int64_t cnt = n > 0 ? n : 1;
    sb_printf(sb, "static const union { %s u[%lld]; %s v[%lld]; } cjx_c%d = {{ /* %s[", U, (long long)cnt,
              prim_c_type(a->dtype), (long long)cnt, n_id, cj_dtype_name(a->dtype));
    for (int d = 0; d < a->rank; d++) sb_printf(sb, "%s%lld", d ? "," : "", (long long)a->dims[d]);
    sb_printf(sb, "] */\n");
    const unsigned char *p = (const unsigned char *)val->data;
    for (int64_t i = 0; i < cnt; i++) {
        unsigned long long u = 0;
        if (i < n) {
            if (es == 1) u = p[i];
            else if (es == 2) { unsigned short t; memcpy(&t, p + (size_t)i * 2, 2); u = t; }
            else if (es == 4) { unsigned int t; memcpy(&t, p + (size_t)i * 4, 4); u = t; }
            else memcpy(&u, p + (size_t)i * 8, 8);
        }
        sb_printf(sb, "%s0x%llx%s%s", i % 8 == 0 ? "  " : " ", u, sfx, i + 1 < cnt ? "," : "");
        if (i % 8 == 7 || i + 1 == cnt) sb_printf(sb, "\n");
    }
    sb_printf(sb, "}};\n");
}

static bool whole_reduction(prim_id p) {
    return p == PRIM_REDUCE_SUM || p == PRIM_REDUCE_PROD || p == PRIM_REDUCE_MAX || p == PRIM_REDUCE_MIN;
}

/* Can kernel k of p run in an exported unit? Writes what it needs. */
static int check_kernel(export_unit *u, export_prog *p, int k, int depth) {
    const compiled *c = p->c;
    const kernel *K = &c->kernels[k];
    int e = K->eqns[0];
    const ir_eqn *e0 = &c->ir->eqns[e];
    char *why = u->why;
    size_t wn = sizeof u->why;
    if (K->kind == KERNEL_SINGLE) {
        if (e0->prim == PRIM_DOT_GENERAL) return export_dot(c, e, p->eqn_base + e, &u->mode, &u->ops, why, wn);
        if (whole_reduction(e0->prim)) return export_reduce(c, e, p->eqn_base + e, &u->ops, why, wn);
        if (prim_lower(e0->prim)->kind == LOWER_CONSTRUCT) return export_construct(u, p, k, depth);
        snprintf(why, wn, "kernel %d (%s) has no exported form yet", k, prim_names[e0->prim]);
        return -1;
    }
    if (K->kind == KERNEL_DOT_EPILOGUE) {
        int64_t b, m, n;
        export_dot_sizes(c->ir, e0, &b, &m, &n);
        const rt_aval *o = &c->ir->vars[e0->out];
        if (b != 1 || o->rank < 1 || n != o->dims[o->rank - 1]) {
            snprintf(why, wn, "kernel %d (dot_general with an epilogue) has a layout not exported yet", k);
            return -1;
        }
        if (export_dot(c, e, p->eqn_base + e, &u->mode, &u->ops, why, wn) != 0) return -1;
        if (c->dot_block_bytes > u->dot_block) u->dot_block = c->dot_block_bytes;
    }
    size_t before = u->kernels.len;
    char prefix[32];
    snprintf(prefix, sizeof prefix, "cjx_p%d_", p->id);
    if (!codegen_kernel_for_export(c, k, prefix, &u->kernels)) {
        snprintf(why, wn, "kernel %d (%s %s, first equation %s) has no exported form yet%s", k,
                 kernel_kind_name(K->kind), K->kind == KERNEL_ROWS ? "of long or unusual rows" : "",
                 prim_names[e0->prim], fuse_is_long_rows(K) ? " (rows longer than 65536 elements)" : "");
        return -1;
    }
    /* rows whose arrays exceed the stack take the workspace's row region
     * (one slot of row_len 8-byte elements per array, as codegen.c lays
     * them out; n_eqns arrays at most) */
    if (u->kernels.data && strstr(u->kernels.data + before, "rt->claim(")) {
        size_t need = (size_t)K->n_eqns * (size_t)K->row_len * 8;
        if (need > u->row_scratch) u->row_scratch = need;
    }
    return 0;
}

/* cjx_bind<id>: constants (but weights, which the entry binds) and
 * temporaries at their planned offsets from ws. */
static void emit_bind(export_prog *p, strbuf *sb) {
    const compiled *c = p->c;
    const ir_func *ir = c->ir;
    sb_printf(sb, "\nstatic void cjx_bind%d(char **buf, char *ws) {\n  (void)buf, (void)ws;\n", p->id);
    for (int i = 0; i < ir->n_consts; i++)
        if (!p->weight_of || p->weight_of[i] < 0)
            sb_printf(sb, "  buf[%d] = (char *)cjx_c%d.v;\n", ir->consts[i].var, p->const_base + i);
    for (int v = 0; v < ir->n_vars; v++)
        if (c->home[v] == HOME_ARENA && plan_host(c, v) < 0) sb_printf(sb, "  buf[%d] = ws + %zu;\n", v, c->offset[v]);
    sb_printf(sb, "}\n");
}

/* cjx_run<id>: program_run's kernel loop over buf. */
static void emit_run(export_prog *p, strbuf *sb) {
    const compiled *c = p->c;
    const ir_func *ir = c->ir;
    int id = p->id;
    sb_printf(sb, "\nstatic void cjx_run%d(const cjx_env *env, char **buf, char *ws) {\n", id);
    sb_printf(sb, "  const cjk_rt rt_ = {cjx_table%d, env->rows, cjx_claim, cjx_release};\n"
                  "  const cjk_rt *const rt = &rt_;\n  (void)rt, (void)buf, (void)ws;\n", id);
    /* temporaries in an output's buffer before that output is written */
    for (int v = 0; v < ir->n_vars; v++)
        if (c->home[v] == HOME_ARENA && plan_host(c, v) >= 0)
            sb_printf(sb, "  buf[%d] = buf[%d] + %zu;\n", v, plan_host(c, v), c->offset[v]);
    for (int k = 0; k < c->n_kernels; k++) {
        const kernel *K = &c->kernels[k];
        int e = K->eqns[0];
        const ir_eqn *e0 = &ir->eqns[e];
        const int *in = ir_eqn_inputs(ir, e0);
        if (K->kind == KERNEL_LOOP) {
            sb_printf(sb, "  cjx_p%d_kernel_%d(rt, buf, 0, %lldLL);\n", id, k, (long long)rt_aval_size(&K->space));
        } else if (K->kind == KERNEL_ROWS) {
            int64_t rows = 1;
            for (int d = 0; d < K->outer_rank; d++) rows *= K->space.dims[d];
            sb_printf(sb, "  cjx_p%d_kernel_%d(rt, buf, 0, %lldLL);\n", id, k, (long long)rows);
        } else if (K->kind == KERNEL_SINGLE && p->cf[k]) {
            sb_printf(sb, "  cjx_cf%d_%d(env, buf, ws + %zu); /* %s */\n", id, k, export_align(c->arena_bytes),
                      prim_names[e0->prim]);
        } else if (K->kind == KERNEL_SINGLE && e0->prim != PRIM_DOT_GENERAL) { /* a reduction */
            sb_printf(sb, "  cjx_red%d(buf[%d], buf[%d]);\n", p->eqn_base + e, in[0], e0->out);
        } else if (K->kind == KERNEL_SINGLE) { /* dot_general */
            int64_t b, m, n;
            export_dot_sizes(ir, e0, &b, &m, &n);
            sb_printf(sb, "  cjx_dot%d(buf[%d], buf[%d], buf[%d], 0, %lldLL);\n", p->eqn_base + e, in[0], in[1],
                      e0->out, (long long)m);
        } else { /* DOT_EPILOGUE: dot_epilogue.c's blocks */
            const rt_aval *dv = &ir->vars[e0->out];
            int64_t cols = dv->dims[dv->rank - 1], rows = cols ? rt_aval_size(dv) / cols : 0, nb = K->n_blocks;
            size_t row_bytes = (size_t)cols * rt_dtypes[dv->dtype].size;
            if (rows == 0 || cols == 0) continue;
            sb_printf(sb, "  for (i64 b = 0; b < %lldLL; b++) { /* kernel %d: product and epilogue by blocks */\n"
                          "    const i64 r0 = b * %lldLL / %lldLL, r1 = (b + 1) * %lldLL / %lldLL;\n",
                      (long long)nb, k, (long long)rows, (long long)nb, (long long)rows, (long long)nb);
            if (c->home[e0->out] != HOME_NONE) {
                sb_printf(sb, "    cjx_dot%d(buf[%d], buf[%d], buf[%d] + r0 * %zu, r0, r1);\n", p->eqn_base + e, in[0],
                          in[1], e0->out, row_bytes);
            } else {
                sb_printf(sb, "    char *const block = env->block;\n"
                              "    cjx_dot%d(buf[%d], buf[%d], block, r0, r1);\n"
                              "    /* element r0*N is the block's first: an address before the block,\n"
                              "     * only ever indexed from r0*N on (as the jit does) */\n"
                              "    buf[%d] = (char *)((unsigned long long)block - (unsigned long long)r0 * %zu);\n",
                          p->eqn_base + e, in[0], in[1], e0->out, row_bytes);
            }
            sb_printf(sb, "    cjx_p%d_kernel_%d(rt, buf, r0 * %lldLL, r1 * %lldLL);\n  }\n", id, k, (long long)cols,
                      (long long)cols);
        }
    }
    sb_printf(sb, "}\n");
}

int export_program(export_unit *u, export_prog *p, int depth) {
    cj_ctx *ctx = u->ctx;
    const compiled *c = p->c;
    const ir_func *ir = c->ir;
    p->id = u->n_progs++;
    p->eqn_base = u->n_eqns;
    p->const_base = u->n_consts;
    u->n_eqns += ir->n_eqns;
    u->n_consts += ir->n_consts;
    p->eqn_kernel = rt_alloc(ctx->mem, sizeof(int) * (size_t)(ir->n_eqns + 1));
    p->cf = rt_calloc(ctx->mem, sizeof(export_cf *) * (size_t)(c->n_kernels + 1));
    if (!p->eqn_kernel || !p->cf) {
        core_oom(ctx, "cj_export_c");
        return -1;
    }
    for (int e = 0; e < ir->n_eqns; e++) p->eqn_kernel[e] = -1;
    for (int k = 0; k < c->n_kernels; k++)
        for (int q = 0; q < c->kernels[k].n_eqns; q++) p->eqn_kernel[c->kernels[k].eqns[q]] = k;
    size_t region = 0;
    for (int k = 0; k < c->n_kernels; k++) {
        if (check_kernel(u, p, k, depth) != 0) return -1;
        if (p->cf[k] && p->cf[k]->region > region) region = p->cf[k]->region;
    }
    p->need = region ? export_align(c->arena_bytes) + region : c->arena_bytes;
    for (int e = 0; e < ir->n_eqns; e++)
        if (export_needs_entry(c, p->eqn_kernel, e) &&
            export_table_entry(c, e, p->eqn_base + e, &u->mode, &u->ops, u->why, sizeof u->why) != 0) {
            char more[sizeof u->why + 32];
            snprintf(more, sizeof more, "kernel %d: %s", p->eqn_kernel[e], u->why);
            memcpy(u->why, more, sizeof u->why - 1);
            u->why[sizeof u->why - 1] = 0;
            return -1;
        }
    /* the table: per equation its entry, NULL where kernels call nothing */
    sb_printf(&u->tables, "\nstatic void *const cjx_table%d[%d] = {", p->id, ir->n_eqns + 1);
    for (int e = 0; e < ir->n_eqns; e++)
        if (export_needs_entry(c, p->eqn_kernel, e))
            sb_printf(&u->tables, "%s(void *)cjx_ew%d,", e % 8 ? " " : "\n  ", p->eqn_base + e);
        else sb_printf(&u->tables, "%s0,", e % 8 ? " " : "\n  ");
    sb_printf(&u->tables, "0};\n");
    for (int i = 0; i < ir->n_consts; i++)
        if (!p->weight_of || p->weight_of[i] < 0) emit_constant(p->const_base + i, ir->consts[i].val, &u->consts);
    emit_bind(p, &u->progs);
    emit_run(p, &u->progs);
    return 0;
}

void export_prog_release(export_unit *u, export_prog *p) {
    cj_ctx *ctx = u->ctx;
    if (!p->c) return;
    if (p->cf) {
        for (int k = 0; k < p->c->n_kernels; k++) export_cf_free(u, p->cf[k]);
        rt_free(ctx->mem, p->cf, sizeof(export_cf *) * (size_t)(p->c->n_kernels + 1));
    }
    if (p->eqn_kernel) rt_free(ctx->mem, p->eqn_kernel, sizeof(int) * (size_t)(p->c->ir->n_eqns + 1));
    p->cf = NULL;
    p->eqn_kernel = NULL;
    if (p->owned) compiled_free(ctx, p->c);
    p->c = NULL;
}
