/* codegen.c — writes C for loop kernels (backend layer).
 *
 * Each LOOP kernel becomes one function over a range of its flat
 * iteration space, processed in tiles of CODEGEN_TILE elements. Within a
 * tile, runs of consecutive cheap equations become one loop with one
 * statement per equation (gcc vectorises it: -fno-trapping-math, no
 * contraction under -std=c11, so results equal the interpreter's), and
 * every other equation is a call through the runtime table on the whole
 * tile. Values that never leave the kernel are tile arrays on the stack;
 * materialised values are read and written in place in their buffers. */
#include <string.h>

#include "codegen.h"

static const char *ctype(cj_dtype dt) {
    switch (dt) {
    case CJ_BOOL: return "unsigned char";
    case CJ_I32: return "int";
    case CJ_I64: return "long long";
    case CJ_F32: return "float";
    default: return "double";
    }
}

static const char *utype(cj_dtype dt) { return dt == CJ_I32 ? "unsigned int" : "unsigned long long"; }

/* Is this equation written inline, and how? Returns the C operator or a
 * short tag, NULL for a call through the table. */
static const char *inline_op(const ir_func *ir, const ir_eqn *e) {
    cj_dtype dt = ir->vars[ir_eqn_inputs(ir, e)[e->prim == PRIM_SELECT ? 1 : 0]].dtype;
    bool fl = rt_is_float(dt), in = rt_is_int(dt), bo = dt == CJ_BOOL;
    switch (e->prim) {
    case PRIM_ADD: return fl || in ? "+" : NULL;
    case PRIM_SUB: return fl || in ? "-" : NULL;
    case PRIM_MUL: return fl || in ? "*" : NULL;
    case PRIM_DIV: return fl ? "/" : NULL;
    case PRIM_NEG: return fl || in ? "neg" : NULL;
    case PRIM_ABS: return fl ? "abs" : NULL;
    case PRIM_SQRT: return fl ? "sqrt" : NULL;
    case PRIM_EQ: return "==";
    case PRIM_NE: return "!=";
    case PRIM_LT: return fl || in ? "<" : NULL;
    case PRIM_LE: return fl || in ? "<=" : NULL;
    case PRIM_GT: return fl || in ? ">" : NULL;
    case PRIM_GE: return fl || in ? ">=" : NULL;
    case PRIM_AND: return in || bo ? "&" : NULL;
    case PRIM_OR: return in || bo ? "|" : NULL;
    case PRIM_XOR: return in || bo ? "^" : NULL;
    case PRIM_NOT: return bo ? "not" : in ? "~" : NULL;
    case PRIM_SELECT: return "select";
    case PRIM_CONVERT: {
        cj_dtype to = ir->vars[e->out].dtype;
        /* casts C defines exactly as the runtime converter does */
        if (rt_is_float(to) && (fl || in)) return "cast";
        if (rt_is_float(to) && bo) return "cast";
        return NULL;
    }
    default: return NULL;
    }
}

bool codegen_needs_kernel(const compiled *c, int eqn) {
    const ir_eqn *e = &c->ir->eqns[eqn];
    return fuse_is_elementwise(e->prim) && !inline_op(c->ir, e);
}

/* How generated code names operand u inside kernel k's element loop. */
static void operand_expr(const compiled *c, int k, int u, char *buf, size_t n) {
    const kernel *K = &c->kernels[k];
    if (c->kernel_of[u] == k && c->home[u] == HOME_NONE) snprintf(buf, n, "v%d[j]", u);
    else if (c->ir->vars[u].rank == 0 && K->space.rank > 0) snprintf(buf, n, "s%d", u);
    else snprintf(buf, n, "p%d[j]", u);
}

/* A pointer expression to operand u's tile (for table calls). */
static void operand_ptr(const compiled *c, int k, int u, char *buf, size_t n, int *scalar) {
    const kernel *K = &c->kernels[k];
    *scalar = 0;
    if (c->kernel_of[u] == k && c->home[u] == HOME_NONE) snprintf(buf, n, "v%d", u);
    else if (c->ir->vars[u].rank == 0 && K->space.rank > 0) {
        snprintf(buf, n, "buf[%d]", u);
        *scalar = 1;
    } else
        snprintf(buf, n, "p%d", u);
}

static void dest_name(const compiled *c, int k, int v, char *buf, size_t n) {
    if (c->kernel_of[v] == k && c->home[v] == HOME_NONE) snprintf(buf, n, "v%d", v);
    else snprintf(buf, n, "p%d", v);
}

static void emit_inline(const compiled *c, int k, const ir_eqn *e, strbuf *sb) {
    const ir_func *ir = c->ir;
    const char *op = inline_op(ir, e);
    const int *in = ir_eqn_inputs(ir, e);
    char a[32] = "", b[32] = "", p[32] = "", d[32];
    operand_expr(c, k, in[0], a, sizeof a);
    if (e->n_in > 1) operand_expr(c, k, in[1], b, sizeof b);
    if (e->n_in > 2) operand_expr(c, k, in[2], p, sizeof p);
    dest_name(c, k, e->out, d, sizeof d);
    cj_dtype dt = ir->vars[in[e->prim == PRIM_SELECT ? 1 : 0]].dtype;
    cj_dtype ot = ir->vars[e->out].dtype;
    const char *T = ctype(dt), *O = ctype(ot);
    bool fl = rt_is_float(dt);
    if (!strcmp(op, "neg")) {
        if (fl) sb_printf(sb, "      %s[j] = -%s;\n", d, a);
        else sb_printf(sb, "      %s[j] = (%s)((%s)0 - (%s)%s);\n", d, T, utype(dt), utype(dt), a);
    } else if (!strcmp(op, "abs")) {
        sb_printf(sb, "      %s[j] = %s(%s);\n", d, dt == CJ_F32 ? "__builtin_fabsf" : "__builtin_fabs", a);
    } else if (!strcmp(op, "sqrt")) {
        sb_printf(sb, "      %s[j] = %s(%s);\n", d, dt == CJ_F32 ? "__builtin_sqrtf" : "__builtin_sqrt", a);
    } else if (!strcmp(op, "not")) {
        if (dt == CJ_BOOL) sb_printf(sb, "      %s[j] = (unsigned char)(%s ^ 1);\n", d, a);
        else sb_printf(sb, "      %s[j] = (%s)~%s;\n", d, T, a);
    } else if (!strcmp(op, "select")) { /* select_n(pred, on_false, on_true) */
        sb_printf(sb, "      %s[j] = %s ? %s : %s;\n", d, a, p, b);
    } else if (!strcmp(op, "cast")) {
        sb_printf(sb, "      %s[j] = (%s)%s;\n", d, O, a);
    } else if (ot == CJ_BOOL && dt != CJ_BOOL) { /* comparisons */
        sb_printf(sb, "      %s[j] = (unsigned char)(%s %s %s);\n", d, a, op, b);
    } else if (!fl && dt != CJ_BOOL && strchr("+-*", op[0]) && !op[1]) { /* wrapping int arithmetic */
        sb_printf(sb, "      %s[j] = (%s)((%s)%s %s (%s)%s);\n", d, T, utype(dt), a, op, utype(dt), b);
    } else if (ot == CJ_BOOL) {
        sb_printf(sb, "      %s[j] = (unsigned char)(%s %s %s);\n", d, a, op, b);
    } else {
        sb_printf(sb, "      %s[j] = %s %s %s;\n", d, a, op, b);
    }
}

static void emit_call(const compiled *c, int k, int eqn, strbuf *sb) {
    const ir_func *ir = c->ir;
    const ir_eqn *e = &ir->eqns[eqn];
    const int *in = ir_eqn_inputs(ir, e);
    char d[32];
    dest_name(c, k, e->out, d, sizeof d);
    if (fuse_is_leaf_map(e->prim)) {
        sb_printf(sb, "    rt->gather(rt->prog, %d, buf, t, n, %s);\n", eqn, d);
        return;
    }
    char ptr[3][32] = {"0", "0", "0"};
    int sc[3] = {0, 0, 0};
    for (int i = 0; i < e->n_in && i < 3; i++) operand_ptr(c, k, in[i], ptr[i], sizeof ptr[i], &sc[i]);
    sb_printf(sb,
              "    { cjk_ops o = {{%s, %s, %s}, {%d, %d, %d}, %s, %d, %d};\n"
              "      ((cjk_ew)rt->ew[%d])(&o, 0, n); }\n",
              ptr[0], ptr[1], ptr[2], sc[0], sc[1], sc[2], d,
              (int)ir->vars[in[e->prim == PRIM_SELECT ? 1 : 0]].dtype, (int)ir->vars[e->out].dtype, eqn);
}

static void emit_kernel(const compiled *c, int k, strbuf *sb) {
    const ir_func *ir = c->ir;
    const kernel *K = &c->kernels[k];
    sb_printf(sb, "\nvoid cjk_kernel_%d(const cjk_rt *rt, char *const *buf, i64 begin, i64 end) {\n", k);
    for (int j = 0; j < K->n_eqns; j++) {
        int v = ir->eqns[K->eqns[j]].out;
        if (c->home[v] == HOME_NONE) sb_printf(sb, "  %s v%d[TILE];\n", ctype(ir->vars[v].dtype), v);
    }
    /* rank-0 buffers read as scalars, loaded once */
    for (int i = 0; i < K->n_in; i++) {
        int u = K->in[i];
        if (ir->vars[u].rank == 0 && K->space.rank > 0)
            sb_printf(sb, "  const %s s%d = *(const %s *)buf[%d];\n", ctype(ir->vars[u].dtype), u,
                      ctype(ir->vars[u].dtype), u);
    }
    sb_printf(sb, "  for (i64 t = begin; t < end; t += TILE) {\n");
    sb_printf(sb, "    const i64 n = end - t < TILE ? end - t : TILE;\n");
    for (int i = 0; i < K->n_in; i++) {
        int u = K->in[i];
        if (ir->vars[u].rank == 0 && K->space.rank > 0) continue;
        /* leaves read their operands through the gather: only operands of
         * elementwise equations are read in place */
        int direct = 0;
        for (int j = 0; j < K->n_eqns && !direct; j++) {
            const ir_eqn *e = &ir->eqns[K->eqns[j]];
            if (!fuse_is_elementwise(e->prim)) continue;
            for (int q = 0; q < e->n_in; q++) direct |= ir_eqn_inputs(ir, e)[q] == u;
        }
        if (!direct) continue;
        sb_printf(sb, "    const %s *p%d = (const %s *)buf[%d] + t;\n", ctype(ir->vars[u].dtype), u,
                  ctype(ir->vars[u].dtype), u);
    }
    for (int i = 0; i < K->n_out; i++) {
        int v = K->out[i];
        sb_printf(sb, "    %s *p%d = (%s *)buf[%d] + t;\n", ctype(ir->vars[v].dtype), v, ctype(ir->vars[v].dtype),
                  v);
    }
    int in_loop = 0;
    for (int j = 0; j < K->n_eqns; j++) {
        const ir_eqn *e = &ir->eqns[K->eqns[j]];
        bool inl = fuse_is_elementwise(e->prim) && inline_op(ir, e);
        if (inl && !in_loop) {
            sb_printf(sb, "    for (i64 j = 0; j < n; j++) {\n");
            in_loop = 1;
        } else if (!inl && in_loop) {
            sb_printf(sb, "    }\n");
            in_loop = 0;
        }
        if (inl) emit_inline(c, k, e, sb);
        else emit_call(c, k, K->eqns[j], sb);
    }
    if (in_loop) sb_printf(sb, "    }\n");
    sb_printf(sb, "  }\n}\n");
}

void codegen_program(const compiled *c, strbuf *sb) {
    sb_printf(sb,
              "/* generated by cjax: one function per loop kernel */\n"
              "typedef long long i64;\n"
              "#define TILE %d\n"
              "typedef struct { const void *in[3]; _Bool scalar[3]; void *out; int in_dtype; int out_dtype; } cjk_ops;\n"
              "typedef void (*cjk_ew)(const cjk_ops *, i64, i64);\n"
              "typedef struct { void *const *ew; void (*gather)(const void *, int, char *const *, i64, i64, void *); const void *prog; } cjk_rt;\n",
              CODEGEN_TILE);
    for (int k = 0; k < c->n_kernels; k++)
        if (c->kernels[k].kind == KERNEL_LOOP) emit_kernel(c, k, sb);
}
