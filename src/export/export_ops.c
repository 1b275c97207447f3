/* export_ops.c — the runtime table's entries as C of their own, for
 * exported units (export layer).
 *
 * The kernels codegen.c writes call what they do not write inline
 * through rt->ew[e]: an elementwise loop (cjk_ops, a tile at a time), the
 * one loop of a sin/cos pair, a row reduction's fold. For the jit the
 * loader fills that table with the library's kernels; an exported unit
 * has a static const table of the functions written here instead, each
 * computing what the library's kernel computes, element for element:
 * vmath.c's own scalar kernels (its text is emitted once, export_vmath.c)
 * called per element — a kernel's result depends on its argument only,
 * so the library's blocks and fix-up passes give the same bits as one
 * loop with the fix-up per lane — the eager kernels' expressions for the
 * rest (elementwise_kernels.c: NaN-propagating max/min with IEEE zeros,
 * integer division without undefined behaviour, integer_pow's order),
 * and the row fold in reduce.c's lanes and order, from the text its
 * primitive declares (prim_fold_c). A primitive or dtype with no form
 * here is an error naming it, never a wrong answer. */
#include <string.h>

#include "../backend/codegen.h"
#include "export.h"

static bool is_float(cj_dtype dt) { return dt == CJ_F32 || dt == CJ_F64; }

static int refuse(const ir_eqn *e, cj_dtype dt, const char *more, char *why, size_t n) {
    snprintf(why, n, "%s on %s has no exported form yet%s", prim_names[e->prim], cj_dtype_name(dt), more);
    return -1;
}

/* reduce.c's lane fold of x[0..n) into `total` (declared, holding the
 * running value), n >= 2 * lanes: blocks of fc.block elements, each
 * folded in fc.lanes lanes from the identity, the lanes joined pairwise,
 * the block's result combined into total. One text for the row folds
 * and the whole-array reductions, at `ind` spaces. */
static void emit_lane_blocks(const prim_fold_c *fc, const char *T, const char *x, int ind, strbuf *sb) {
    char lane[512], chain[512], join[512], total[512], xk[64], xi[64];
    snprintf(xk, sizeof xk, "%s[i + k]", x);
    snprintf(xi, sizeof xi, "%s[i]", x);
    codegen_fold_combine(fc->combine, "lane[k]", xk, lane, sizeof lane);
    codegen_fold_combine(fc->combine, "lane[0]", xi, chain, sizeof chain);
    codegen_fold_combine(fc->combine, "lane[k]", "lane[k + w]", join, sizeof join);
    codegen_fold_combine(fc->combine, "total", "lane[0]", total, sizeof total);
    long long B = (long long)fc->block;
    int L = fc->lanes;
    sb_printf(sb, "%*sfor (i64 b = 0; b < n; b += %lldLL) {\n", ind, "", B);
    sb_printf(sb, "%*s  i64 e = n - b < %lldLL ? n : b + %lldLL;\n", ind, "", B, B);
    sb_printf(sb, "%*s  %s lane[%d];\n", ind, "", T, L);
    sb_printf(sb, "%*s  for (int k = 0; k < %d; k++) lane[k] = %s;\n", ind, "", L, fc->identity);
    sb_printf(sb, "%*s  i64 i = b;\n", ind, "");
    sb_printf(sb, "%*s  for (; i + %d <= e; i += %d)\n", ind, "", L, L);
    sb_printf(sb, "%*s    for (int k = 0; k < %d; k++) lane[k] = %s;\n", ind, "", L, lane);
    sb_printf(sb, "%*s  for (; i < e; i++) lane[0] = %s;\n", ind, "", chain);
    sb_printf(sb, "%*s  for (int w = %d; w > 0; w /= 2)\n", ind, "", L / 2);
    sb_printf(sb, "%*s    for (int k = 0; k < w; k++) lane[k] = %s;\n", ind, "", join);
    sb_printf(sb, "%*s  total = %s;\n", ind, "", total);
    sb_printf(sb, "%*s}\n", ind, "");
}

/* A row fold: reduce.c's NAME##_row_fold over prim_fold_c's lanes,
 * block, identity and combining expression. */
static int emit_fold(const compiled *c, int e, int id, strbuf *sb, char *why, size_t n) {
    const ir_eqn *q = &c->ir->eqns[e];
    cj_dtype dt = c->ir->vars[ir_eqn_inputs(c->ir, q)[0]].dtype;
    const prim_lowering *l = prim_lower(q->prim);
    prim_fold_c fc;
    if (!l->fold_c || !l->fold_c(q->prim, dt, &fc) || fc.lanes <= 0)
        return refuse(q, dt, " (a row fold of this dtype)", why, n);
    const char *T = prim_c_type(dt);
    char shortc[512];
    codegen_fold_combine(fc.combine, "total", "x[i]", shortc, sizeof shortc);
    sb_printf(sb,
              "/* %s: the row fold of %s (%d lanes, blocks of %lld) */\n"
              "static void cjx_ew%d(const void *xp, i64 n, void *out) {\n"
              "  const %s *x = (const %s *)xp;\n"
              "  %s total = %s;\n"
              "  if (n < %d) {\n"
              "    for (i64 i = 0; i < n; i++) total = %s;\n"
              "    memcpy(out, &total, sizeof total);\n"
              "    return;\n"
              "  }\n",
              prim_names[q->prim], cj_dtype_name(dt), fc.lanes, (long long)fc.block, id, T, T, T, fc.identity,
              2 * fc.lanes, shortc);
    emit_lane_blocks(&fc, T, "x", 2, sb);
    sb_printf(sb, "  memcpy(out, &total, sizeof total);\n}\n");
    return 0;
}

/* The kernel of vmath.c computing unary prim on dt ("exp_kf"), its
 * fix-up for large arguments (trig), or NULL. */
static const char *vmath_unary(prim_id p) {
    switch (p) {
    case PRIM_EXP: return "exp";
    case PRIM_EXP2: return "exp2";
    case PRIM_LOG: return "log";
    case PRIM_LOG1P: return "log1p";
    case PRIM_EXPM1: return "expm1";
    case PRIM_SINH: return "sinh";
    case PRIM_COSH: return "cosh";
    case PRIM_TANH: return "tanh";
    case PRIM_LOGISTIC: return "logistic";
    case PRIM_ASIN: return "asin";
    case PRIM_ACOS: return "acos";
    case PRIM_ATAN: return "atan";
    case PRIM_ERF: return "erf";
    case PRIM_CBRT: return "cbrt";
    case PRIM_SIN: return "sin";
    case PRIM_COS: return "cos";
    case PRIM_TAN: return "tan";
    default: return NULL;
    }
}

static bool is_trig(prim_id p) { return p == PRIM_SIN || p == PRIM_COS || p == PRIM_TAN; }

/* Which of vmath's kernels computes an operand of dtype f32 (true) or f64
 * under the math mode: each dtype's own, the double kernels for float
 * (CJ_EXPORT_MATH_DOUBLE), or the float kernels for double
 * (CJ_EXPORT_MATH_FLOAT). The operand is converted to the kernel's type
 * and the result rounded back. */
static bool kernel_f32(bool f32, const export_mode *m) {
    return m->math == CJ_EXPORT_MATH_DOUBLE ? false : m->math == CJ_EXPORT_MATH_FLOAT ? true : f32;
}

/* The value of a trig function at x (a C variable) as vmath's entry
 * point computes it: the fast kernel, the double one for float
 * arguments past TRIGF_FAST_LIM, libm past the kernels' range (without
 * libm: the widest kernel, documented as less accurate there). */
static void trig_lane(const char *f, bool f32, const export_mode *m, const char *x, const char *y, strbuf *sb) {
    if (f32) {
        sb_printf(sb, "    %s = %s_kf(%s);\n", y, f, x);
        sb_printf(sb, "    if (TRIGF_FAST_LIM < TRIGF_MID_LIM && abs_f(%s) > TRIGF_FAST_LIM) %s = %s_kd(%s);\n", x, y,
                  f, x);
        if (m->libm) sb_printf(sb, "    if (abs_f(%s) > TRIGF_MID_LIM) %s = %sf(%s);\n", x, y, f, x);
    } else {
        sb_printf(sb, "    %s = %s_k(%s);\n", y, f, x);
        if (m->libm) sb_printf(sb, "    if (abs_d(%s) > 0x1p20) %s = %s(%s);\n", x, y, f, x);
    }
}

/* sin and cos of one operand in one loop (vm_sincos_*). */
static void emit_sincos(int e, cj_dtype dt, const export_mode *m, strbuf *sb) {
    bool f32 = dt == CJ_F32;
    const char *T = f32 ? "float" : "double";
    const char *KT = kernel_f32(f32, m) ? "float" : "double";
    sb_printf(sb,
              "static void cjx_ew%d(const void *xp, void *sp, void *cp, i64 n) { /* sin and cos */\n"
              "  const %s *x = (const %s *)xp;\n  %s *s = (%s *)sp, *c = (%s *)cp;\n"
              "  for (i64 i = 0; i < n; i++) {\n    const %s v = (%s)x[i];\n    %s sv, cv;\n",
              e, T, T, T, T, T, KT, KT, KT);
    f32 = kernel_f32(f32, m);
    if (f32) {
        sb_printf(sb, "    sincos_kf(v, &sv, &cv);\n"
                      "    if (TRIGF_FAST_LIM < TRIGF_MID_LIM && abs_f(v) > TRIGF_FAST_LIM) sv = sin_kd(v), cv = cos_kd(v);\n");
        if (m->libm) sb_printf(sb, "    if (abs_f(v) > TRIGF_MID_LIM) sv = sinf(v), cv = cosf(v);\n");
    } else {
        sb_printf(sb, "    sincos_k(v, &sv, &cv);\n");
        if (m->libm) sb_printf(sb, "    if (abs_d(v) > 0x1p20) sv = sin(v), cv = cos(v);\n");
    }
    sb_printf(sb, "    s[i] = (%s)sv, c[i] = (%s)cv;\n  }\n}\n", T, T);
}

/* The C expression of a unary primitive on operand `a` of dtype dt with
 * result dtype to, NULL when none (the caller refuses). */
static bool unary_expr(const ir_eqn *e, cj_dtype dt, cj_dtype to, char *out, size_t n) {
    bool f32 = dt == CJ_F32;
    const char *sfx = f32 ? "f" : "d";
    switch (e->prim) {
    case PRIM_SIGN:
        if (is_float(dt)) snprintf(out, n, "(a > 0 ? (%s)1 : a < 0 ? (%s)-1 : a)", prim_c_type(dt), prim_c_type(dt));
        else if (dt == CJ_I32 || dt == CJ_I64) snprintf(out, n, "(%s)((a > 0) - (a < 0))", prim_c_type(dt));
        else return false;
        return true;
    case PRIM_FLOOR:
    case PRIM_CEIL:
    case PRIM_ROUND:
        if (!is_float(dt)) return false;
        snprintf(out, n, "cjx_%s_%s(a)", e->prim == PRIM_FLOOR ? "floor" : e->prim == PRIM_CEIL ? "ceil" : "rint", sfx);
        return true;
    case PRIM_RSQRT:
        if (!is_float(dt)) return false;
        snprintf(out, n, f32 ? "1.0f / __builtin_sqrtf(a)" : "1.0 / __builtin_sqrt(a)");
        return true;
    case PRIM_IS_FINITE:
        if (!is_float(dt)) return false;
        snprintf(out, n, "cjx_finite_%s(a)", sfx);
        return true;
    case PRIM_SIGNBIT:
        if (!is_float(dt)) return false;
        snprintf(out, n, "cjx_signbit_%s(a)", sfx);
        return true;
    case PRIM_CONVERT:
        if (to == CJ_BOOL && (is_float(dt) || rt_is_int(dt) || dt == CJ_BOOL)) snprintf(out, n, "(unsigned char)(a != 0)");
        else if (is_float(dt) && (to == CJ_I32 || to == CJ_I64))
            snprintf(out, n, "cjx_%s_to_%s(a)", sfx, to == CJ_I32 ? "i32" : "i64");
        else if ((rt_is_int(dt) || dt == CJ_BOOL) && rt_is_int(to))
            snprintf(out, n, "(%s)(%s)a", prim_c_type(to), to == CJ_I64 || to == CJ_U64 ? "unsigned long long" : "unsigned int");
        else return false;
        return true;
    default: return false;
    }
}

static bool binary_expr(const ir_eqn *e, cj_dtype dt, const export_mode *m, char *out, size_t n) {
    const char *sfx = dt == CJ_F32 ? "f" : dt == CJ_F64 ? "d" : dt == CJ_I32 ? "i32" : dt == CJ_I64 ? "i64" : NULL;
    if (!sfx) return false;
    switch (e->prim) {
    case PRIM_MAX: snprintf(out, n, "cjx_max_%s(a, b)", sfx); return true;
    case PRIM_MIN: snprintf(out, n, "cjx_min_%s(a, b)", sfx); return true;
    case PRIM_DIV:
        if (is_float(dt)) return false; /* inline */
        snprintf(out, n, "cjx_idiv_%s(a, b)", sfx);
        return true;
    case PRIM_REM:
        if (!is_float(dt)) snprintf(out, n, "cjx_irem_%s(a, b)", sfx);
        else if (m->libm) snprintf(out, n, dt == CJ_F32 ? "fmodf(a, b)" : "fmod(a, b)");
        else return false;
        return true;
    case PRIM_ATAN2: { /* vmath's kernel has no special lanes */
        if (!is_float(dt)) return false;
        bool kf = kernel_f32(dt == CJ_F32, m);
        const char *KT = kf ? "float" : "double";
        snprintf(out, n, "(%s)atan2_k%s((%s)a, (%s)b)", prim_c_type(dt), kf ? "f" : "", KT, KT);
        return true;
    }
    case PRIM_POW: { /* special lanes (vm_pow's) through libm */
        if (!is_float(dt) || !m->libm) return false;
        bool kf = kernel_f32(dt == CJ_F32, m);
        const char *KT = kf ? "float" : "double";
        snprintf(out, n, "(%s)(pow_special_%s((%s)a, (%s)b) ? pow%s((%s)a, (%s)b) : pow_k%s((%s)a, (%s)b))",
                 prim_c_type(dt), kf ? "f" : "d", KT, KT, kf ? "f" : "", KT, KT, kf ? "f" : "", KT, KT);
        return true;
    }
    default: return false;
    }
}

/* An elementwise loop over operands that are tiles, or rank-0 scalars
 * (o->scalar[i]): a plain loop when none is, else indices times 0/1. */
static void emit_loop(int e, int arity, const char *const *in_t, const char *out_t, const char *body, strbuf *sb) {
    static const char *names[3] = {"a", "b", "p"};
    sb_printf(sb, "static void cjx_ew%d(const cjk_ops *o, i64 begin, i64 end) {\n", e);
    for (int i = 0; i < arity; i++) {
        sb_printf(sb, "  const %s *x%d = (const %s *)o->in[%d];\n", in_t[i], i, in_t[i], i);
        sb_printf(sb, "  const i64 s%d = o->scalar[%d] ? 0 : 1;\n", i, i);
    }
    sb_printf(sb, "  %s *y = (%s *)o->out;\n  if (", out_t, out_t);
    for (int i = 0; i < arity; i++) sb_printf(sb, "%ss%d", i ? " && " : "", i);
    sb_printf(sb, ") {\n    for (i64 i = begin; i < end; i++) {\n");
    for (int i = 0; i < arity; i++) sb_printf(sb, "      const %s %s = x%d[i];\n", in_t[i], names[i], i);
    sb_printf(sb, "      y[i] = %s;\n    }\n    return;\n  }\n  for (i64 i = begin; i < end; i++) {\n", body);
    for (int i = 0; i < arity; i++) sb_printf(sb, "    const %s %s = x%d[i * s%d];\n", in_t[i], names[i], i, i);
    sb_printf(sb, "    y[i] = %s;\n  }\n}\n", body);
}

bool export_needs_entry(const compiled *c, const int *eqn_kernel, int e) {
    if (eqn_kernel[e] < 0) return false;
    const kernel *K = &c->kernels[eqn_kernel[e]];
    if (K->kind == KERNEL_SINGLE) return false;
    const ir_eqn *q = &c->ir->eqns[e];
    if (K->kind == KERNEL_ROWS && prim_lower(q->prim)->kind == LOWER_REDUCTION) return true;
    return codegen_needs_kernel(c, e);
}

int export_table_entry(const compiled *c, int e, int id, export_mode *m, strbuf *sb, char *why, size_t n) {
    const ir_func *ir = c->ir;
    const ir_eqn *q = &ir->eqns[e];
    const int *in = ir_eqn_inputs(ir, q);
    if (prim_lower(q->prim)->kind == LOWER_REDUCTION) return emit_fold(c, e, id, sb, why, n);
    cj_dtype dt = ir->vars[in[prim_lower(q->prim)->dtype_operand]].dtype, to = ir->vars[q->out].dtype;
    /* a sin/cos pair computed by one call */
    if (q->prim == PRIM_SIN || q->prim == PRIM_COS) {
        for (int k = 0; k < c->n_kernels; k++)
            for (int j = 0; j < c->kernels[k].n_eqns; j++)
                if (c->kernels[k].eqns[j] == e && codegen_sincos_partner(c, k, j) >= 0) {
                    m->vmath = true;
                    m->uses_libm |= m->libm;
                    emit_sincos(id, dt, m, sb);
                    return 0;
                }
    }
    const char *T = prim_c_type(dt), *TO = prim_c_type(to);
    const char *vm = vmath_unary(q->prim);
    if (vm) {
        if (!is_float(dt) || to != dt) return refuse(q, dt, "", why, n);
        m->vmath = true;
        bool f32 = dt == CJ_F32;
        /* v and r in the kernel's type (the math mode's, usually T) */
        bool kf = kernel_f32(f32, m);
        const char *KT = kf ? "float" : "double";
        sb_printf(sb, "static void cjx_ew%d(const cjk_ops *o, i64 begin, i64 end) { /* %s */\n"
                      "  const %s *x = (const %s *)o->in[0];\n  %s *y = (%s *)o->out;\n"
                      "  if (o->scalar[0]) {\n    const %s v = (%s)x[0];\n    %s r;\n",
                  id, prim_names[q->prim], T, T, T, T, KT, KT, KT);
        if (is_trig(q->prim)) trig_lane(vm, kf, m, "v", "r", sb);
        else sb_printf(sb, "    r = %s_k%s(v);\n", vm, kf ? "f" : "");
        sb_printf(sb, "    for (i64 i = begin; i < end; i++) y[i] = (%s)r;\n    return;\n  }\n"
                      "  for (i64 i = begin; i < end; i++) {\n    const %s v = (%s)x[i];\n    %s r;\n", T, KT, KT,
                  KT);
        if (is_trig(q->prim)) trig_lane(vm, kf, m, "v", "r", sb);
        else sb_printf(sb, "    r = %s_k%s(v);\n", vm, kf ? "f" : "");
        sb_printf(sb, "    y[i] = (%s)r;\n  }\n}\n", T);
        if (is_trig(q->prim)) m->uses_libm |= m->libm;
        return 0;
    }
    char body[256];
    const char *types[3] = {T, T, T};
    if (q->n_in == 1 && q->prim == PRIM_INTEGER_POW) {
        if (!is_float(dt)) return refuse(q, dt, " (integer_pow of integers beyond the 8th power)", why, n);
        /* elementwise_kernels.c: binary powering from the low bit, then 1/acc */
        sb_printf(sb,
                  "static void cjx_ew%d(const cjk_ops *o, i64 begin, i64 end) { /* integer_pow y=%lld */\n"
                  "  const %s *xs = (const %s *)o->in[0];\n  %s *ys = (%s *)o->out;\n"
                  "  const i64 y = %lldLL;\n"
                  "  for (i64 i = begin; i < end; i++) {\n"
                  "    %s x = xs[o->scalar[0] ? 0 : i], acc = 1;\n    int have = 0;\n"
                  "    for (i64 k = y < 0 ? -y : y; k > 0;) {\n"
                  "      if (k & 1) acc = have ? acc * x : x, have = 1;\n"
                  "      k >>= 1;\n      if (k > 0) x = x * x;\n    }\n"
                  "    ys[i] = y == 0 ? (%s)1 : y < 0 ? (%s)1 / acc : acc;\n  }\n}\n",
                  id, (long long)q->params.count, T, T, T, T, (long long)q->params.count, T, T, T);
        return 0;
    }
    if (q->n_in == 1) {
        if (!unary_expr(q, dt, to, body, sizeof body)) return refuse(q, dt, "", why, n);
        emit_loop(id, 1, types, TO, body, sb);
        return 0;
    }
    if (q->n_in == 2) {
        if (!binary_expr(q, dt, m, body, sizeof body))
            return refuse(q, dt, is_float(dt) && !m->libm ? " without libm (cj_export_opts.libm)" : "", why, n);
        if (q->prim == PRIM_POW || (q->prim == PRIM_REM && is_float(dt))) m->uses_libm = true;
        if (q->prim == PRIM_POW || q->prim == PRIM_ATAN2) m->vmath = true;
        emit_loop(id, 2, types, TO, body, sb);
        return 0;
    }
    if (q->n_in == 3 && q->prim == PRIM_CLAMP) {
        const char *sfx = dt == CJ_F32 ? "f" : dt == CJ_F64 ? "d" : dt == CJ_I32 ? "i32" : dt == CJ_I64 ? "i64" : NULL;
        if (!sfx) return refuse(q, dt, "", why, n);
        /* clamp(lo, x, hi) = min(max(x, lo), hi) */
        snprintf(body, sizeof body, "cjx_min_%s(cjx_max_%s(b, a), p)", sfx, sfx);
        emit_loop(id, 3, types, TO, body, sb);
        return 0;
    }
    return refuse(q, dt, "", why, n);
}

/* ---- reductions run as SINGLE kernels ---- */

int export_reduce(const compiled *c, int e, int id, strbuf *sb, char *why, size_t n) {
    const ir_func *ir = c->ir;
    const ir_eqn *q = &ir->eqns[e];
    const rt_aval *a = &ir->vars[ir_eqn_inputs(ir, q)[0]];
    cj_dtype dt = a->dtype;
    const prim_lowering *l = prim_lower(q->prim);
    prim_fold_c fc;
    if (l->kind != LOWER_REDUCTION || !l->fold_c || !l->fold_c(q->prim, dt, &fc) || fc.lanes <= 0 ||
        ir->vars[q->out].dtype != dt)
        return refuse(q, dt, " (as a whole-array reduction)", why, n);
    bool red[CJ_MAX_RANK] = {false};
    for (int i = 0; i < q->params.axes.n; i++) red[q->params.axes.v[i]] = true;
    /* the innermost axis of more than one element decides the plan */
    int inner = a->rank - 1;
    while (inner > 0 && a->dims[inner] == 1) inner--;
    bool inner_reduced = a->rank > 0 && red[inner];
    /* the trailing run of axes of the inner axis's kind: contiguous */
    int t0 = inner;
    while (t0 > 0 && (red[t0 - 1] == red[inner] || a->dims[t0 - 1] == 1)) t0--;
    int64_t run = 1;
    for (int d = t0; d < a->rank; d++) run *= a->dims[d];
    int64_t outer_kept[CJ_MAX_RANK], outer_red[CJ_MAX_RANK];
    int nk = 0, nr = 0;
    int64_t U = 1, S = 1;
    for (int d = 0; d < t0; d++) {
        if (red[d]) outer_red[nr++] = d, S *= a->dims[d];
        else outer_kept[nk++] = d, U *= a->dims[d];
    }
    char ko[600], ro[600];
    export_axes_offset(a, outer_kept, nk, "u", ko, sizeof ko);
    export_axes_offset(a, outer_red, nr, "s", ro, sizeof ro);
    const char *T = prim_c_type(dt);
    char comb[512], part[512];
    codegen_fold_combine(fc.combine, "acc", "xs[cc]", comb, sizeof comb);
    codegen_fold_combine(fc.combine, "acc", "part", part, sizeof part);
    sb_printf(sb, "/* %s over axes of %s, as the eager kernel on one thread */\n"
                  "static void cjx_red%d(const void *xp, void *op) {\n"
                  "  const %s *x = (const %s *)xp;\n  %s *o = (%s *)op;\n",
              prim_names[q->prim], cj_dtype_name(dt), id, T, T, T, T);
    if (!inner_reduced) { /* out[u, c]: rows of the kept run, 64 segments a block */
        char pcomb[512];
        codegen_fold_combine(fc.combine, "part", "xs[cc]", pcomb, sizeof pcomb);
        sb_printf(sb,
                  "  for (i64 u = 0; u < %lldLL; u++) {\n"
                  "    const %s *xu = x + %s;\n"
                  "    for (i64 cc = 0; cc < %lldLL; cc++) {\n"
                  "      %s acc = %s;\n"
                  "      for (i64 s0 = 0; s0 < %lldLL; s0 += 64) {\n"
                  "        const i64 s1 = s0 + 64 < %lldLL ? s0 + 64 : %lldLL;\n"
                  "        if (%lldLL <= 64) {\n"
                  "          for (i64 s = s0; s < s1; s++) { const %s *xs = xu + %s; acc = %s; }\n"
                  "        } else {\n"
                  "          %s part = %s;\n"
                  "          for (i64 s = s0; s < s1; s++) { const %s *xs = xu + %s; part = %s; }\n"
                  "          acc = %s;\n"
                  "        }\n"
                  "      }\n"
                  "      o[u * %lldLL + cc] = acc;\n"
                  "    }\n  }\n}\n",
                  (long long)U, T, ko, (long long)run, T, fc.identity, (long long)S, (long long)S, (long long)S,
                  (long long)S, T, ro, comb, T, fc.identity, T, ro, pcomb, part, (long long)run);
        return 0;
    }
    /* out[u]: each segment's contiguous run folded into it, in lanes (the
     * row fold's shape, from the running value), pieces of 65536 */
    char shortc[512];
    codegen_fold_combine(fc.combine, "total", "xr[i]", shortc, sizeof shortc);
    sb_printf(sb,
              "  for (i64 u = 0; u < %lldLL; u++) {\n"
              "    %s total = %s;\n"
              "    for (i64 s = 0; s < %lldLL; s++) {\n"
              "      for (i64 p0 = 0; p0 < %lldLL; p0 += 65536) {\n"
              "        const %s *xr = x + %s + %s + p0;\n"
              "        const i64 n = %lldLL - p0 < 65536 ? %lldLL - p0 : 65536;\n"
              "        if (n < %d) { for (i64 i = 0; i < n; i++) total = %s; continue; }\n",
              (long long)U, T, fc.identity, (long long)S, (long long)run, T, ko, ro, (long long)run, (long long)run,
              2 * fc.lanes, shortc);
    emit_lane_blocks(&fc, T, "xr", 8, sb);
    sb_printf(sb, "      }\n    }\n    o[u] = total;\n  }\n}\n");
    return 0;
}
