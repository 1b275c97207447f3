/* codegen.c — writes C for the fused kernels, LOOP and ROWS, and the
 * translation unit around them (backend layer).
 *
 * Each LOOP kernel becomes one function over a range of its flat
 * iteration space, processed in tiles of CODEGEN_TILE elements. Within a
 * tile, runs of consecutive cheap equations become one loop with one
 * statement per equation (gcc vectorises it: -fno-trapping-math, no
 * contraction under -std=c11, so results equal the interpreter's), every
 * data-movement leaf is index arithmetic (codegen_leaf.c: read in place, or
 * gathered into its tile), and every other equation is a call through the
 * runtime table on the whole tile (float32 tanh is inline: cjk_tanhf, the
 * source of vm_tanh_f32, runtime/vmath_tanhf.h). Values that never leave
 * the kernel are tile arrays on the stack, or C locals of the element loop
 * when only that loop reads them ("loop locals"); materialised values are
 * read and written in place in their buffers. A LOOP kernel of at most
 * SMALL_ELEMS elements is straight-line scalar code instead (see "small
 * LOOP kernels" below), and one with a gathered leaf and no table call is
 * nested loops over its multi-index with scalar statements
 * (codegen_nested.c).
 *
 * Each ROWS kernel (softmax, layer norm, logsumexp) becomes one function
 * over a range of rows: per row, fused loops over the row, per-row scalars
 * as locals, and row reductions through the table's folds, which sum in
 * the reduce primitive's order (see "ROWS kernels" below).
 *
 * A control-flow construct's loop or branch, with its sub-programs'
 * kernels as static functions of the same unit, is written by
 * codegen_control.c.
 *
 * A long-rows kernel (fusion.c: fuse_is_long_rows) is written as a LOOP
 * kernel over its tiles, each reduction making a partial per tile; a float
 * reduction folds inside the element loop that computes its operand, in
 * the shape and order of its primitive's row fold (prim_fold_c), so the
 * operand is never stored (see "folds inside the element loop"). */
#include <string.h>

#include "codegen.h"
#include "program_impl.h"
#include "../runtime/vmath_dispatch.h"

static const char *ctype(cj_dtype dt) { return prim_c_type(dt); }

/* The dtype that picks an elementwise equation's kernel (select_n: its
 * cases', not its predicate's), as the primitive's lowering says. */
static cj_dtype kernel_dtype(const ir_func *ir, const ir_eqn *e) {
    return ir->vars[ir_eqn_inputs(ir, e)[prim_lower(e->prim)->dtype_operand]].dtype;
}

/* Is elementwise equation e written inline, as its primitive's C
 * expression, rather than called through the table? */
static bool is_inline(const ir_func *ir, const ir_eqn *e) {
    return prim_c_inline(e->prim, kernel_dtype(ir, e), ir->vars[e->out].dtype, e->params.count);
}

bool codegen_is_inline(const ir_func *ir, const ir_eqn *e) { return is_inline(ir, e); }

bool codegen_needs_kernel(const compiled *c, int eqn) {
    const ir_eqn *e = &c->ir->eqns[eqn];
    return fuse_is_elementwise(e->prim) && !is_inline(c->ir, e);
}

/* Does u live only as a tile array of kernel k? Not the product of a
 * DOT_EPILOGUE kernel: its block is read through buf like a buffer. */
static bool tile_value(const compiled *c, int k, int u) {
    const kernel *K = &c->kernels[k];
    if (c->kernel_of[u] != k || c->home[u] != HOME_NONE) return false;
    return !(K->kind == KERNEL_DOT_EPILOGUE && c->ir->eqns[K->eqns[0]].out == u);
}

/* The leaf equation of kernel k that defines u, or -1. */
static int leaf_def(const compiled *c, int k, int u) {
    const kernel *K = &c->kernels[k];
    if (c->kernel_of[u] != k) return -1;
    for (int j = 0; j < K->n_eqns; j++)
        if (c->ir->eqns[K->eqns[j]].out == u) return fuse_is_leaf_map(c->ir->eqns[K->eqns[j]].prim) ? K->eqns[j] : -1;
    return -1;
}

/* How a leaf of LOOP kernel k is read: in place (a pointer g<v> into its
 * operand, or one value g<v> loaded before the loop) or gathered into a
 * tile (codegen_leaf.c). */
static cg_leaf loop_leaf(const compiled *c, int k, int eqn) {
    cg_leaf l = codegen_leaf_layout(c, eqn, &c->kernels[k].space, 0);
    if (l != CG_LEAF_SCALAR) return l;
    /* a table call takes a repeated value as a tile (the elementwise
     * kernels take only rank-0 operands as scalars, as the interpreter
     * passes them) */
    const kernel *K = &c->kernels[k];
    int v = c->ir->eqns[eqn].out;
    for (int j = 0; j < K->n_eqns; j++) {
        const ir_eqn *e = &c->ir->eqns[K->eqns[j]];
        bool fold = prim_lower(e->prim)->kind == LOWER_REDUCTION; /* a long row's tile fold */
        if (!fold && (!fuse_is_elementwise(e->prim) || is_inline(c->ir, e))) continue;
        for (int i = 0; i < e->n_in; i++)
            if (ir_eqn_inputs(c->ir, e)[i] == v) return CG_LEAF_GATHER;
    }
    return l;
}

static bool leaf_in_place(const compiled *c, int k, int u) {
    int e = leaf_def(c, k, u);
    return e >= 0 && loop_leaf(c, k, e) != CG_LEAF_GATHER;
}

/* How generated code names operand u inside kernel k's element loop. */
static void operand_expr(const compiled *c, int k, int u, char *buf, size_t n) {
    const kernel *K = &c->kernels[k];
    if (leaf_in_place(c, k, u)) snprintf(buf, n, loop_leaf(c, k, leaf_def(c, k, u)) == CG_LEAF_SCALAR ? "g%d" : "g%d[j]", u);
    else if (tile_value(c, k, u)) snprintf(buf, n, "v%d[j]", u);
    else if (c->ir->vars[u].rank == 0 && K->space.rank > 0) snprintf(buf, n, "s%d", u);
    else snprintf(buf, n, "p%d[j]", u);
}

/* A pointer expression to operand u's tile (for table calls). */
static void operand_ptr(const compiled *c, int k, int u, char *buf, size_t n, int *scalar) {
    const kernel *K = &c->kernels[k];
    *scalar = 0;
    if (leaf_in_place(c, k, u)) {
        *scalar = loop_leaf(c, k, leaf_def(c, k, u)) == CG_LEAF_SCALAR;
        snprintf(buf, n, *scalar ? "&g%d" : "g%d", u);
    } else if (tile_value(c, k, u)) snprintf(buf, n, "v%d", u);
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

/* The right-hand side of an inline equation, over operand expressions a,
 * b and p (its first, second and third operands): its primitive's C
 * expression (prim_lowering.c_expr). */
static void inline_rhs(const ir_func *ir, const ir_eqn *e, const char *a, const char *b, const char *p,
                       char *out, size_t n) {
    prim_c_args args = {{a, b, p}, kernel_dtype(ir, e), ir->vars[e->out].dtype, e->params.count};
    /* is_inline asked the same question; should the answer differ (the
     * text did not fit), an undeclared name makes the unit fail to build,
     * so the program stays on the interpreter rather than compute garbage */
    if (!prim_lower(e->prim)->c_expr(e->prim, &args, out, n)) snprintf(out, n, "cjax_no_c_expression");
}

void codegen_inline_rhs(const ir_func *ir, const ir_eqn *e, const char *a, const char *b, const char *p, char *out,
                        size_t n) {
    inline_rhs(ir, e, a, b, p, out, n);
}

static void emit_call(const compiled *c, int k, int eqn, strbuf *sb) {
    const ir_func *ir = c->ir;
    const ir_eqn *e = &ir->eqns[eqn];
    const int *in = ir_eqn_inputs(ir, e);
    char d[32];
    dest_name(c, k, e->out, d, sizeof d);
    if (fuse_is_leaf_map(e->prim)) {
        codegen_leaf_gather(c, eqn, &c->kernels[k].space, "t", "n", d, sb);
        return;
    }
    char ptr[3][32] = {"0", "0", "0"};
    int sc[3] = {0, 0, 0};
    for (int i = 0; i < e->n_in && i < 3; i++) operand_ptr(c, k, in[i], ptr[i], sizeof ptr[i], &sc[i]);
    sb_printf(sb,
              "    { cjk_ops o = {{%s, %s, %s}, {%d, %d, %d}, %s, %d, %d, %lldLL};\n"
              "      ((cjk_ew)rt->ew[%d])(&o, 0, n); }\n",
              ptr[0], ptr[1], ptr[2], sc[0], sc[1], sc[2], d,
              (int)kernel_dtype(ir, e), (int)ir->vars[e->out].dtype, (long long)e->params.count, eqn);
}

/* ---- sin and cos of one value ----
 * A tiled kernel (LOOP, a dot's epilogue, a long row's tiles) computing
 * both sin(x) and cos(x) through the table makes one call of vm_sincos for
 * the two (one argument reduction instead of two; the same bits as
 * vm_sin and vm_cos, which tests/test_vmath.c checks). native.c puts
 * vm_sincos in both equations' table slots; the first of the two makes
 * the call, the second is then already computed. */
static bool tiled_call(const compiled *c, int k, int j) {
    const kernel *K = &c->kernels[k];
    const ir_eqn *e = &c->ir->eqns[K->eqns[j]];
    if (e->prim != PRIM_SIN && e->prim != PRIM_COS) return false;
    if (K->kind != KERNEL_LOOP && !(K->kind == KERNEL_DOT_EPILOGUE && j > 0) && !fuse_is_long_rows(K)) return false;
    int u = ir_eqn_inputs(c->ir, e)[0];
    cj_dtype dt = c->ir->vars[u].dtype;
    return (dt == CJ_F32 || dt == CJ_F64) && c->ir->vars[e->out].dtype == dt && !is_inline(c->ir, e) &&
           rt_aval_same_shape(&c->ir->vars[u], &K->space) && rt_aval_same_shape(&c->ir->vars[e->out], &K->space);
}

static bool small_kernel(const compiled *c, int k);

int codegen_sincos_partner(const compiled *c, int k, int j) {
    const kernel *K = &c->kernels[k];
    if (small_kernel(c, k) || codegen_nested_applies(c, k) || !tiled_call(c, k, j)) return -1;
    const ir_eqn *e = &c->ir->eqns[K->eqns[j]];
    prim_id other = e->prim == PRIM_SIN ? PRIM_COS : PRIM_SIN;
    for (int q = 0; q < K->n_eqns; q++) {
        const ir_eqn *f = &c->ir->eqns[K->eqns[q]];
        if (q != j && f->prim == other && ir_eqn_inputs(c->ir, f)[0] == ir_eqn_inputs(c->ir, e)[0] &&
            tiled_call(c, k, q))
            return q;
    }
    return -1;
}

/* The one call computing equation j and its partner q (j < q). */
static void emit_sincos(const compiled *c, int k, int j, int q, strbuf *sb) {
    const kernel *K = &c->kernels[k];
    const ir_eqn *e = &c->ir->eqns[K->eqns[j]], *f = &c->ir->eqns[K->eqns[q]];
    char x[32], d[2][32];
    int scalar;
    operand_ptr(c, k, ir_eqn_inputs(c->ir, e)[0], x, sizeof x, &scalar);
    dest_name(c, k, e->out, d[0], sizeof d[0]);
    dest_name(c, k, f->out, d[1], sizeof d[1]);
    bool sin_first = e->prim == PRIM_SIN;
    sb_printf(sb, "    ((void (*)(const void *, void *, void *, i64))rt->ew[%d])(%s, %s, %s, n); /* sin, cos */\n",
              K->eqns[j], x, d[sin_first ? 0 : 1], d[sin_first ? 1 : 0]);
}

/* The head of kernel k's function: exported cjk_kernel_<k>, or a
 * sub-program's static <prefix>kernel_<k>. */
static void emit_kernel_head(const char *prefix, bool exported, int k, strbuf *sb) {
    sb_printf(sb, "\n%svoid %skernel_%d(const cjk_rt *rt, char *const *buf, i64 begin, i64 end) {\n",
              exported ? "" : "static ", prefix, k);
}

/* ---- small LOOP kernels: straight-line scalar code ----
 * A kernel over at most SMALL_ELEMS elements (a state of a few values, a
 * scalar step of a loop body) is one statement per equation per element,
 * with no tile array and no tile loop: every index is a constant, so a
 * leaf is a load at a constant offset (or a constant: iota, a resolved
 * concatenate or pad), and values are locals the C compiler keeps in
 * registers. Operations that are calls through the table are made once
 * over all the elements (their operands packed into a small array), with
 * the same length the interpreter's single tile passes, so the bits agree.
 * 16 elements: above that the tile loop's vectorised statements (8 f32
 * lanes per instruction) win over one scalar statement per element, and
 * the code grows with elements × equations (capped at SMALL_STMTS, which
 * keeps a body's compile time in the tens of milliseconds). A LOOP kernel
 * of that size is always called on its whole space (it is far below the
 * thread pool's grain), so begin and end are 0 and its size. */
enum { SMALL_ELEMS = 16, SMALL_STMTS = 2048 };

static bool small_kernel(const compiled *c, int k) {
    const kernel *K = &c->kernels[k];
    int64_t n = rt_aval_size(&K->space);
    return K->kind == KERNEL_LOOP && n >= 1 && n <= SMALL_ELEMS && n * K->n_eqns <= SMALL_STMTS;
}

/* Does value v of small kernel k live in an array (a table call's result)? */
static bool small_array(const compiled *c, int k, int v) {
    if (c->kernel_of[v] != k) return false;
    const kernel *K = &c->kernels[k];
    for (int j = 0; j < K->n_eqns; j++) {
        const ir_eqn *e = &c->ir->eqns[K->eqns[j]];
        if (e->out == v) return fuse_is_elementwise(e->prim) && !is_inline(c->ir, e);
    }
    return false;
}

/* Element i of operand u in small kernel k. */
static void small_operand(const compiled *c, int k, int u, int64_t i, char *out, size_t n) {
    const kernel *K = &c->kernels[k];
    const char *T = ctype(c->ir->vars[u].dtype);
    if (c->kernel_of[u] == k) snprintf(out, n, small_array(c, k, u) ? "v%d[%lld]" : "x%d_%lld", u, (long long)i);
    else if (c->ir->vars[u].rank == 0 && K->space.rank > 0) snprintf(out, n, "s%d", u);
    else snprintf(out, n, "((const %s *)buf[%d])[%lld]", T, u, (long long)i);
}

/* A pointer to all of operand u for a table call: packs in-kernel locals. */
static void small_operand_ptr(const compiled *c, int k, int u, int q, int eqn, int64_t n, char *out, size_t size,
                              int *scalar, strbuf *sb) {
    const kernel *K = &c->kernels[k];
    *scalar = 0;
    if (c->kernel_of[u] == k && small_array(c, k, u)) {
        snprintf(out, size, "v%d", u);
    } else if (c->kernel_of[u] == k) {
        sb_printf(sb, "  const %s a%d_%d[%lld] = {", ctype(c->ir->vars[u].dtype), eqn, q, (long long)n);
        for (int64_t i = 0; i < n; i++) sb_printf(sb, "%sx%d_%lld", i ? ", " : "", u, (long long)i);
        sb_printf(sb, "};\n");
        snprintf(out, size, "a%d_%d", eqn, q);
    } else {
        *scalar = c->ir->vars[u].rank == 0 && K->space.rank > 0;
        snprintf(out, size, "buf[%d]", u);
    }
}

static void emit_small_kernel(const compiled *c, int k, const char *prefix, bool exported, strbuf *sb) {
    const ir_func *ir = c->ir;
    const kernel *K = &c->kernels[k];
    int64_t n = rt_aval_size(&K->space);
    emit_kernel_head(prefix, exported, k, sb);
    sb_printf(sb, "  (void)rt, (void)begin, (void)end; /* straight-line: %lld elements, always all of them */\n",
              (long long)n);
    for (int i = 0; i < K->n_in; i++) {
        int u = K->in[i];
        if (ir->vars[u].rank == 0 && K->space.rank > 0)
            sb_printf(sb, "  const %s s%d = *(const %s *)buf[%d];\n", ctype(ir->vars[u].dtype), u,
                      ctype(ir->vars[u].dtype), u);
    }
    for (int j = 0; j < K->n_eqns; j++) {
        int eq = K->eqns[j];
        const ir_eqn *e = &ir->eqns[eq];
        const int *in = ir_eqn_inputs(ir, e);
        int v = e->out;
        const char *T = ctype(ir->vars[v].dtype);
        bool stored = c->home[v] != HOME_NONE;
        if (fuse_is_leaf_map(e->prim)) {
            codegen_leaf_prologue(c, eq, sb);
            for (int64_t i = 0; i < n; i++) {
                char x[160];
                codegen_leaf_element(c, eq, &K->space, i, x, sizeof x);
                sb_printf(sb, "  const %s x%d_%lld = %s;\n", T, v, (long long)i, x);
            }
        } else if (is_inline(ir, e)) {
            for (int64_t i = 0; i < n; i++) {
                char a[3][96] = {"", "", ""}, rhs[512];
                for (int q = 0; q < e->n_in && q < 3; q++) small_operand(c, k, in[q], i, a[q], sizeof a[q]);
                inline_rhs(ir, e, a[0], a[1], a[2], rhs, sizeof rhs);
                sb_printf(sb, "  const %s x%d_%lld = %s;\n", T, v, (long long)i, rhs);
            }
        } else { /* through the table, once over all elements */
            char ptr[3][32] = {"0", "0", "0"};
            int sc[3] = {0, 0, 0};
            for (int q = 0; q < e->n_in && q < 3; q++)
                small_operand_ptr(c, k, in[q], q, eq, n, ptr[q], sizeof ptr[q], &sc[q], sb);
            sb_printf(sb, "  %s v%d[%lld];\n", T, v, (long long)n);
            sb_printf(sb,
                      "  { cjk_ops o = {{%s, %s, %s}, {%d, %d, %d}, v%d, %d, %d, %lldLL};\n"
                      "    ((cjk_ew)rt->ew[%d])(&o, 0, %lld); }\n",
                      ptr[0], ptr[1], ptr[2], sc[0], sc[1], sc[2], v,
                      (int)kernel_dtype(ir, e), (int)ir->vars[v].dtype, (long long)e->params.count, eq,
                      (long long)n);
        }
        if (stored)
            for (int64_t i = 0; i < n; i++) {
                char x[96];
                small_operand(c, k, v, i, x, sizeof x);
                sb_printf(sb, "  ((%s *)buf[%d])[%lld] = %s;\n", T, v, (long long)i, x);
            }
    }
    sb_printf(sb, "}\n");
}

/* A long-rows kernel's equations that are not over the row: its reductions
 * (a fold per tile) and the per-row values computed after every tile has
 * run (interp.c: run_long_rows); a COLS kernel's reductions (a fold per
 * column of each row) and its per-column values (interp.c: run_cols). */
static bool off_row(const compiled *c, const kernel *K, int j) {
    const rt_aval *v = &c->ir->vars[c->ir->eqns[K->eqns[j]].out];
    if (K->kind == KERNEL_COLS) return fuse_col_form(K, v) != FORM_ROW;
    return fuse_is_long_rows(K) && fuse_row_form(K, v) != FORM_ROW;
}

/* ---- folds inside the element loop ----
 * A long row's reduction of a float operand folds inside the element loop
 * that computes its operand, as C its primitive gives (prim_fold_c: the
 * row fold's own lanes, order and combining expression), so the operand
 * is a loop local — no tile array written and read back, no call per tile
 * — and the partial has the bits the interpreter's row fold gives it
 * (variance's second pass: (x - m)² summed as it is computed, at the speed
 * of the first). A tile is never longer than the fold's block, so it is
 * one block. Every such fold of a kernel shares the lane count of the
 * first (they share the loop); others are calls per tile. */
static bool fold_text(const compiled *c, int k, int j, prim_fold_c *fc) {
    const kernel *K = &c->kernels[k];
    const ir_eqn *e = &c->ir->eqns[K->eqns[j]];
    const prim_lowering *l = prim_lower(e->prim);
    if (!off_row(c, K, j) || l->kind != LOWER_REDUCTION || !l->fold_c) return false;
    int u = ir_eqn_inputs(c->ir, e)[0];
    bool cols = K->kind == KERNEL_COLS;
    row_form f = cols ? fuse_col_form(K, &c->ir->vars[u]) : fuse_row_form(K, &c->ir->vars[u]);
    if (f != FORM_ROW || c->ir->vars[u].dtype != c->ir->vars[e->out].dtype) return false;
    return l->fold_c(e->prim, c->ir->vars[u].dtype, fc) && fc->lanes > 0 && (cols || CODEGEN_TILE <= fc->block);
}

/* (a COLS kernel's folds are one accumulator per column, whatever lanes
 * a row fold would use) */
static bool fold_inline(const compiled *c, int k, int j, prim_fold_c *fc) {
    if (!fold_text(c, k, j, fc)) return false;
    if (c->kernels[k].kind == KERNEL_COLS) return true;
    prim_fold_c first;
    for (int q = 0; q < j; q++)
        if (fold_text(c, k, q, &first)) return first.lanes == fc->lanes;
    return true;
}

/* combine with the accumulator and element expressions put in (the
 * exporter's folds use it too) */
void codegen_fold_combine(const char *combine, const char *acc, const char *x, char *out, size_t n) {
    size_t len = 0;
    for (const char *p = combine; *p && len + 1 < n;) {
        const char *sub = !strncmp(p, "CJK_A", 5) ? acc : !strncmp(p, "CJK_B", 5) ? x : NULL;
        if (sub) {
            int w = snprintf(out + len, n - len, "%s", sub);
            len = w > 0 && (size_t)w < n - len ? len + (size_t)w : n - 1;
            p += 5;
        } else {
            out[len++] = *p++;
        }
    }
    out[len < n ? len : n - 1] = 0;
}

/* ---- loop locals ----
 * A value computed by an inline statement of a LOOP kernel's element loop
 * and read only by inline statements of the same loop is a C local of
 * that loop (l<v>) instead of a tile array: gcc keeps it in a register
 * rather than storing a vector per statement (sum(tanh(a*x+b)*c+d): four
 * stores per 8 floats fewer). run[j] numbers the element loop equation j
 * is written in (0: none), as emit_loop_kernel opens and closes them. */
static bool loop_inline(const compiled *c, int k, int j, bool *in_place) {
    const kernel *K = &c->kernels[k];
    const ir_eqn *e = &c->ir->eqns[K->eqns[j]];
    *in_place = fuse_is_leaf_map(e->prim) && loop_leaf(c, k, K->eqns[j]) != CG_LEAF_GATHER;
    return (fuse_is_elementwise(e->prim) && is_inline(c->ir, e)) || *in_place;
}

static void loop_runs(const compiled *c, int k, int first, int *run) {
    const kernel *K = &c->kernels[k];
    int cur = 0, open = 0;
    for (int j = 0; j < K->n_eqns; j++) run[j] = 0;
    for (int j = first; j < K->n_eqns; j++) {
        const ir_eqn *e = &c->ir->eqns[K->eqns[j]];
        if (off_row(c, K, j)) {
            prim_fold_c fc;
            if (fold_inline(c, k, j, &fc)) { /* a statement of the element loop */
                if (!open) cur++, open = 1;
                run[j] = cur;
            } else if (prim_lower(e->prim)->kind == LOWER_REDUCTION) {
                open = 0;
            }
            continue;
        }
        bool in_place, inl = loop_inline(c, k, j, &in_place);
        if (in_place && c->home[e->out] == HOME_NONE) continue;
        if (inl && !open) cur++, open = 1;
        else if (!inl) open = 0;
        if (inl && !in_place) run[j] = cur;
    }
}

/* local[j]: equation j's value is a loop local (see above) */
static void loop_locals(const compiled *c, int k, const int *run, bool *local) {
    const kernel *K = &c->kernels[k];
    const ir_func *ir = c->ir;
    for (int j = 0; j < K->n_eqns; j++) {
        int v = ir->eqns[K->eqns[j]].out;
        local[j] = run[j] > 0 && !off_row(c, K, j) && tile_value(c, k, v) && !leaf_in_place(c, k, v);
        for (int q = 0; q < K->n_eqns && local[j]; q++) {
            const ir_eqn *f = &ir->eqns[K->eqns[q]];
            for (int i = 0; i < f->n_in; i++)
                if (ir_eqn_inputs(ir, f)[i] == v && (run[q] != run[j] || q < j)) local[j] = false;
        }
    }
}

/* Is u a loop local of kernel k? */
static bool is_local(const compiled *c, int k, const bool *local, int u) {
    const kernel *K = &c->kernels[k];
    if (!local || c->kernel_of[u] != k) return false;
    for (int j = 0; j < K->n_eqns; j++)
        if (c->ir->eqns[K->eqns[j]].out == u) return local[j];
    return false;
}

static void emit_inline_loop(const compiled *c, int k, const ir_eqn *e, const bool *local, strbuf *sb) {
    const ir_func *ir = c->ir;
    const int *in = ir_eqn_inputs(ir, e);
    char x[3][32] = {"", "", ""}, rhs[256];
    for (int i = 0; i < e->n_in && i < 3; i++) {
        if (is_local(c, k, local, in[i])) snprintf(x[i], sizeof x[i], "l%d", in[i]);
        else operand_expr(c, k, in[i], x[i], sizeof x[i]);
    }
    inline_rhs(ir, e, x[0], x[1], x[2], rhs, sizeof rhs);
    if (is_local(c, k, local, e->out)) {
        sb_printf(sb, "      const %s l%d = %s;\n", ctype(ir->vars[e->out].dtype), e->out, rhs);
        return;
    }
    char d[32];
    dest_name(c, k, e->out, d, sizeof d);
    sb_printf(sb, "      %s[j] = %s;\n", d, rhs);
}

/* How a tiled kernel's equation j is written: not at all in the tile loop
 * (a per-row value, a leaf read in place, the partner of a sin/cos call
 * already made), as a statement of an element loop (an inline
 * expression, a materialised leaf copied out, a fold inside the loop), or
 * on the whole tile (a call through the table, a fold call). */
enum { STMT_NONE, STMT_LOOP, STMT_TILE };

static int tile_stmt(const compiled *c, int k, int j) {
    const kernel *K = &c->kernels[k];
    const ir_eqn *e = &c->ir->eqns[K->eqns[j]];
    prim_fold_c fc;
    if (off_row(c, K, j))
        return prim_lower(e->prim)->kind != LOWER_REDUCTION ? STMT_NONE
               : fold_inline(c, k, j, &fc)                ? STMT_LOOP
                                                           : STMT_TILE;
    bool in_place = fuse_is_leaf_map(e->prim) && loop_leaf(c, k, K->eqns[j]) != CG_LEAF_GATHER;
    if (in_place && c->home[e->out] == HOME_NONE) return STMT_NONE; /* read where it is used */
    if ((fuse_is_elementwise(e->prim) && is_inline(c->ir, e)) || in_place) return STMT_LOOP;
    int partner = codegen_sincos_partner(c, k, j);
    return partner >= 0 && partner < j ? STMT_NONE : STMT_TILE; /* computed with its partner */
}

/* partial (row, tile in the row) of long-rows kernel K's reduction: the
 * caller runs a row per call */
static void partial_index(const kernel *K, char *out, size_t n) {
    long long C = (long long)K->row_len, per_row = (C + CODEGEN_TILE - 1) / CODEGEN_TILE;
    snprintf(out, n, "t / %lldLL * %lldLL + t %% %lldLL / TILE", C, per_row, C);
}

static void emit_fold_call(const compiled *c, int k, int j, strbuf *sb) {
    const ir_func *ir = c->ir;
    const ir_eqn *e = &ir->eqns[c->kernels[k].eqns[j]];
    char x[32], at[96];
    int scalar;
    operand_ptr(c, k, ir_eqn_inputs(ir, e)[0], x, sizeof x, &scalar);
    partial_index(&c->kernels[k], at, sizeof at);
    sb_printf(sb, "    ((cjk_fold)rt->ew[%d])(%s, n, (%s *)buf[%d] + %s);\n", c->kernels[k].eqns[j], x,
              ctype(ir->vars[e->out].dtype), e->out, at);
}

/* Is kernel input u streamed through the tile loop: read in place, as
 * p<u>[j], by an elementwise equation or a fold? (Leaves read their
 * operands through their gathers; rank-0 inputs are loaded once.) */
static bool streamed_input(const compiled *c, int k, int u) {
    const ir_func *ir = c->ir;
    const kernel *K = &c->kernels[k];
    if (ir->vars[u].rank == 0 && K->space.rank > 0) return false;
    for (int j = 0; j < K->n_eqns; j++) {
        const ir_eqn *e = &ir->eqns[K->eqns[j]];
        bool red = prim_lower(e->prim)->kind == LOWER_REDUCTION;
        if (!fuse_is_elementwise(e->prim) && !red) continue;
        if (off_row(c, K, j) && !red) continue;
        for (int q = 0; q < e->n_in; q++)
            if (ir_eqn_inputs(ir, e)[q] == u) return true;
    }
    return false;
}

/* Does kernel k walk its tiles from the last to the first? A long row
 * streamed right after the kernel before it streamed the same buffer (the
 * variance's second pass over x) starts where that one ended, so its first
 * tiles come from the cache still holding that end (1e7 floats, one
 * thread, loaded machine, both passes: 8.9-10.1 -> 8.0-9.5 ms). Any order
 * gives the same bits: each tile writes its own partial, which are folded
 * in tile order afterwards, and a row value is its own element's. Kernels
 * alternate, so a third pass over the buffer runs forward again. */
static bool reverse_tiles(const compiled *c, int k) {
    bool rev = false; /* of kernel j - 1, for j = 1 .. k */
    for (int j = 1; j <= k; j++) {
        const kernel *K = &c->kernels[j], *P = &c->kernels[j - 1];
        bool shares = false;
        for (int i = 0; i < K->n_in && !shares; i++) {
            if (!streamed_input(c, j, K->in[i])) continue;
            for (int q = 0; q < P->n_in; q++) shares |= P->in[q] == K->in[i];
            for (int q = 0; q < P->n_out; q++) shares |= P->out[q] == K->in[i];
        }
        rev = fuse_is_long_rows(K) && shares && !rev;
    }
    return k > 0 && rev;
}

/* How far ahead of the element a fold loop's prefetches ask, in elements:
 * two tiles, forward or backward as the kernel walks its tiles */
#define PF_AHEAD(rev) ((rev) ? "- 2 * TILE" : "+ 2 * TILE")

/* The prefetches of one group of `lanes` elements of a fold loop: one per
 * cache line of each streamed input the group reads, two tiles ahead, so
 * the requests go out a line at a time between the group's arithmetic
 * rather than as a burst of a tile's 64 lines (see emit_loop_kernel). */
static void emit_group_prefetch(const compiled *c, int k, int lanes, strbuf *sb) {
    const kernel *K = &c->kernels[k];
    bool rev = reverse_tiles(c, k);
    for (int i = 0; i < K->n_in; i++) {
        int u = K->in[i];
        if (!streamed_input(c, k, u)) continue;
        int size = (int)rt_dtypes[c->ir->vars[u].dtype].size, bytes = lanes * size;
        for (int off = 0; off < bytes; off += 64)
            sb_printf(sb, "          if (pf) __builtin_prefetch(p%d + jj %s + %d);\n", u, PF_AHEAD(rev), off / size);
    }
}

/* How an element loop's folds are written: into lane j % lanes, into lane
 * 0 (a long tile's tail), or one chain (a tile shorter than two lanes'
 * worth); in a COLS kernel, into column j's accumulator. */
typedef enum fold_mode { FOLD_LANES, FOLD_LANE0, FOLD_CHAIN, FOLD_COLUMNS } fold_mode;

/* The statements of positions [j0, j1) inside an element loop over j. */
static void emit_loop_body(const compiled *c, int k, int j0, int j1, const bool *local, fold_mode mode,
                           strbuf *sb) {
    const kernel *K = &c->kernels[k];
    const ir_func *ir = c->ir;
    for (int j = j0; j < j1; j++) {
        const ir_eqn *e = &ir->eqns[K->eqns[j]];
        prim_fold_c fc;
        if (tile_stmt(c, k, j) != STMT_LOOP) continue;
        if (off_row(c, K, j) && fold_inline(c, k, j, &fc)) {
            int u = ir_eqn_inputs(ir, e)[0];
            char x[32], acc[32], rhs[1024];
            if (is_local(c, k, local, u)) snprintf(x, sizeof x, "l%d", u);
            else operand_expr(c, k, u, x, sizeof x);
            snprintf(acc, sizeof acc,
                     mode == FOLD_COLUMNS ? "pa%d[j]"
                     : mode == FOLD_LANES ? "fa%d[q]"
                     : mode == FOLD_LANE0 ? "fa%d[0]"
                                          : "fr%d",
                     e->out);
            codegen_fold_combine(fc.combine, acc, x, rhs, sizeof rhs);
            sb_printf(sb, "      %s = %s;\n", acc, rhs);
        } else if (fuse_is_leaf_map(e->prim)) { /* a materialised leaf read in place: copied out */
            char g[32];
            operand_expr(c, k, e->out, g, sizeof g);
            sb_printf(sb, "      p%d[j] = %s;\n", e->out, g);
        } else {
            emit_inline_loop(c, k, e, local, sb);
        }
    }
}

/* One element loop over the tile for positions [j0, j1). With folds in
 * it, the loop takes the row fold's shape (prim_fold_c): lanes
 * accumulators per fold over whole groups of lanes, the tail into lane 0,
 * the lanes combined pairwise, the total stored as the tile's partial; a
 * short tile one chain. */
static void emit_element_loop(const compiled *c, int k, int j0, int j1, const bool *local, strbuf *sb) {
    const kernel *K = &c->kernels[k];
    const ir_func *ir = c->ir;
    prim_fold_c fc = {0, 0, NULL, NULL};
    for (int j = j0; j < j1 && !fc.lanes && K->kind != KERNEL_COLS; j++)
        if (tile_stmt(c, k, j) == STMT_LOOP && off_row(c, K, j)) fold_inline(c, k, j, &fc);
    if (!fc.lanes) {
        sb_printf(sb, "    for (i64 j = 0; j < n; j++) {\n");
        emit_loop_body(c, k, j0, j1, local, K->kind == KERNEL_COLS ? FOLD_COLUMNS : FOLD_LANES, sb);
        sb_printf(sb, "    }\n");
        return;
    }
    int L = fc.lanes;
    sb_printf(sb, "    {\n");
    for (int j = j0; j < j1; j++) {
        prim_fold_c f;
        if (tile_stmt(c, k, j) != STMT_LOOP || !off_row(c, K, j) || !fold_inline(c, k, j, &f)) continue;
        int v = ir->eqns[K->eqns[j]].out;
        const char *T = ctype(ir->vars[v].dtype);
        sb_printf(sb, "      %s fa%d[%d], fr%d = %s;\n", T, v, L, v, f.identity);
        sb_printf(sb, "      for (int q = 0; q < %d; q++) fa%d[q] = %s;\n", L, v, f.identity);
    }
    sb_printf(sb, "      i64 jj = 0;\n      if (n >= %d) {\n", 2 * L);
    sb_printf(sb, "        for (; jj + %d <= n; jj += %d) {\n", L, L);
    emit_group_prefetch(c, k, L, sb);
    sb_printf(sb, "          for (i64 q = 0; q < %d; q++) {\n", L);
    sb_printf(sb, "            const i64 j = jj + q;\n");
    emit_loop_body(c, k, j0, j1, local, FOLD_LANES, sb);
    sb_printf(sb, "          }\n        }\n        for (i64 j = jj; j < n; j++) {\n");
    emit_loop_body(c, k, j0, j1, local, FOLD_LANE0, sb);
    sb_printf(sb, "        }\n");
    for (int j = j0; j < j1; j++) {
        prim_fold_c f;
        if (tile_stmt(c, k, j) != STMT_LOOP || !off_row(c, K, j) || !fold_inline(c, k, j, &f)) continue;
        int v = ir->eqns[K->eqns[j]].out;
        char a[32], b[32], rhs[1024];
        snprintf(a, sizeof a, "fa%d[q]", v), snprintf(b, sizeof b, "fa%d[q + w]", v);
        codegen_fold_combine(f.combine, a, b, rhs, sizeof rhs);
        sb_printf(sb, "        for (int w = %d; w > 0; w /= 2)\n          for (int q = 0; q < w; q++) %s = %s;\n", L / 2, a,
                  rhs);
        snprintf(a, sizeof a, "fr%d", v), snprintf(b, sizeof b, "fa%d[0]", v);
        codegen_fold_combine(f.combine, a, b, rhs, sizeof rhs);
        sb_printf(sb, "        %s = %s;\n", a, rhs);
    }
    sb_printf(sb, "      } else {\n        for (i64 j = 0; j < n; j++) {\n");
    emit_loop_body(c, k, j0, j1, local, FOLD_CHAIN, sb);
    sb_printf(sb, "        }\n      }\n");
    char at[96];
    partial_index(K, at, sizeof at);
    for (int j = j0; j < j1; j++) {
        prim_fold_c f;
        if (tile_stmt(c, k, j) != STMT_LOOP || !off_row(c, K, j) || !fold_inline(c, k, j, &f)) continue;
        int v = ir->eqns[K->eqns[j]].out;
        sb_printf(sb, "      ((%s *)buf[%d])[%s] = fr%d;\n", ctype(ir->vars[v].dtype), v, at, v);
    }
    sb_printf(sb, "    }\n");
}

/* The loops of a COLS kernel's function over units [begin, end) (interp.c:
 * run_cols): unit u is block u / NCH of B rows by column tile u % NCH;
 * each reduction's accumulator row for the block (pa<v>, where buf has
 * its result: the caller points it at the block rows) starts at the
 * fold's identity, then each row's tile at t = r * C + c0 runs as a LOOP
 * kernel's tile, folding into pa<v>[j] with the primitive's combining
 * expression (prim_fold_c: the `rows` loop of the interpreter's column
 * fold), so both backends have the same bits. Leaves the row loop open. */
static void emit_cols_head(const compiled *c, int k, strbuf *sb) {
    const ir_func *ir = c->ir;
    const kernel *K = &c->kernels[k];
    long long C = (long long)K->row_len, R = 1, B = 0, nch = (C + CODEGEN_TILE - 1) / CODEGEN_TILE;
    for (int d = 0; d < K->outer_rank; d++) R *= (long long)K->space.dims[d];
    for (int j = 0; j < K->n_eqns && !B; j++) {
        const ir_eqn *e = &ir->eqns[K->eqns[j]];
        prim_col_fold f;
        if (prim_lower(e->prim)->kind == LOWER_REDUCTION &&
            prim_lower(e->prim)->col_fold(e->prim, ir->vars[ir_eqn_inputs(ir, e)[0]].dtype, &f))
            B = (long long)f.block;
    }
    sb_printf(sb, "  for (i64 u = begin; u < end; u++) {\n");
    sb_printf(sb, "    const i64 cb = u / %lldLL, c0 = u %% %lldLL * TILE;\n", nch, nch);
    sb_printf(sb, "    const i64 n = %lldLL - c0 < TILE ? %lldLL - c0 : TILE;\n", C, C);
    sb_printf(sb, "    const i64 r1 = (cb + 1) * %lldLL < %lldLL ? (cb + 1) * %lldLL : %lldLL;\n", B, R, B, R);
    for (int j = 0; j < K->n_eqns; j++) {
        const ir_eqn *e = &ir->eqns[K->eqns[j]];
        prim_fold_c fc;
        if (!fold_inline(c, k, j, &fc)) continue;
        const char *T = ctype(ir->vars[e->out].dtype);
        sb_printf(sb, "    %s *restrict pa%d = (%s *)buf[%d] + cb * %lldLL + c0;\n", T, e->out, T, e->out, C);
        sb_printf(sb, "    for (i64 j = 0; j < n; j++) pa%d[j] = %s;\n", e->out, fc.identity);
    }
    sb_printf(sb, "    for (i64 r = cb * %lldLL; r < r1; r++) {\n", B);
    sb_printf(sb, "    const i64 t = r * %lldLL + c0;\n", C);
}

/* A LOOP kernel, a DOT_EPILOGUE kernel's epilogue, or the tiles of a long
 * row (fusion.c: fuse_is_long_rows): the same loop over tiles, where each
 * reduction folds its operand's tile through the table into partial
 * t / TILE of its result's slot in buf (the caller points it at the
 * partials). */
static void emit_loop_kernel(const compiled *c, int k, const char *prefix, bool exported, strbuf *sb) {
    const ir_func *ir = c->ir;
    const kernel *K = &c->kernels[k];
    /* a DOT_EPILOGUE kernel's function is its epilogue (equations from 1),
     * reading the product's current block through buf (dot_epilogue.c) */
    int first = K->kind == KERNEL_DOT_EPILOGUE;
    emit_kernel_head(prefix, exported, k, sb);
    int run[K->n_eqns + 1];
    bool local[K->n_eqns + 1];
    loop_runs(c, k, first, run);
    loop_locals(c, k, run, local);
    for (int j = first; j < K->n_eqns; j++) {
        int v = ir->eqns[K->eqns[j]].out;
        if (off_row(c, K, j) || local[j]) continue;
        if (c->home[v] == HOME_NONE && !leaf_in_place(c, k, v)) sb_printf(sb, "  %s v%d[TILE];\n", ctype(ir->vars[v].dtype), v);
    }
    /* leaves: dynamic offsets, and values repeated over the whole space */
    for (int j = first; j < K->n_eqns; j++) {
        int eq = K->eqns[j];
        const ir_eqn *e = &ir->eqns[eq];
        if (!fuse_is_leaf_map(e->prim) || off_row(c, K, j)) continue;
        codegen_leaf_prologue(c, eq, sb);
        if (loop_leaf(c, k, eq) == CG_LEAF_SCALAR) {
            char base[64];
            codegen_leaf_base(c, eq, 0, base, sizeof base);
            const char *T = ctype(ir->vars[e->out].dtype);
            sb_printf(sb, "  const %s g%d = ((const %s *)buf[%d])[%s];\n", T, e->out, T, ir_eqn_inputs(ir, e)[0], base);
        }
    }
    /* rank-0 buffers read as scalars, loaded once */
    for (int i = 0; i < K->n_in; i++) {
        int u = K->in[i];
        if (ir->vars[u].rank == 0 && K->space.rank > 0)
            sb_printf(sb, "  const %s s%d = *(const %s *)buf[%d];\n", ctype(ir->vars[u].dtype), u,
                      ctype(ir->vars[u].dtype), u);
    }
    /* Prefetching. A fold loop asks for each streamed input's line two
     * tiles ahead as it consumes one (emit_group_prefetch); nothing else
     * prefetches. A burst of a tile's 64 lines at the top of each tile,
     * as this code did before, made streamed loops slower on the Sapphire
     * Rapids guests once they ran 512-bit vectors (1e7 floats, one
     * thread, CPU time, on a loaded machine, ranges over runs, ms):
     * sum(tanh(a*x+b)*c+d) 10.3-11.7 with the burst, 5.6-6.6 a line at a
     * time (a kernel alone: 8.0-9.9 / 6.1-6.9 with none / 5.2-6.2);
     * variance's passes, which had none, 9.6-10.3 / 7.8-10.5 a line at a
     * time (alone: 8.4-9.7 / 7.8-8.8); loops without folds, where the
     * hardware prefetcher alone does best: a*x+b 10.3-10.5 with the burst
     * / 8.4-10.4 with none, x+x 14.4-15.6 / 10.9-12.2. */
    bool folds = false; /* a fold inside an element loop (of a long row's: a COLS kernel's rows are short) */
    for (int j = first; j < K->n_eqns && !folds && K->kind != KERNEL_COLS; j++) {
        prim_fold_c fc;
        folds = tile_stmt(c, k, j) == STMT_LOOP && off_row(c, K, j) && fold_inline(c, k, j, &fc);
    }
    bool rev = reverse_tiles(c, k);
    if (K->kind == KERNEL_COLS) emit_cols_head(c, k, sb);
    else if (rev)
        sb_printf(sb, "  for (i64 tt = (end - begin + TILE - 1) / TILE - 1; tt >= 0; tt--) {\n"
                      "    const i64 t = begin + tt * TILE;\n");
    else
        sb_printf(sb, "  for (i64 t = begin; t < end; t += TILE) {\n");
    if (K->kind != KERNEL_COLS) sb_printf(sb, "    const i64 n = end - t < TILE ? end - t : TILE;\n");
    if (folds) sb_printf(sb, rev ? "    const int pf = t - 2 * TILE >= begin;\n" : "    const int pf = t + 3 * TILE <= end;\n");
    for (int i = 0; i < K->n_in; i++) {
        int u = K->in[i];
        if (!streamed_input(c, k, u)) continue;
        sb_printf(sb, "    const %s *p%d = (const %s *)buf[%d] + t;\n", ctype(ir->vars[u].dtype), u,
                  ctype(ir->vars[u].dtype), u);
    }
    if (first && c->home[ir->eqns[K->eqns[0]].out] == HOME_NONE) {
        int d = ir->eqns[K->eqns[0]].out;
        sb_printf(sb, "    const %s *p%d = (const %s *)buf[%d] + t;\n", ctype(ir->vars[d].dtype), d,
                  ctype(ir->vars[d].dtype), d);
    }
    for (int i = 0; i < K->n_out; i++) {
        int v = K->out[i];
        if (fuse_is_long_rows(K) && fuse_row_form(K, &ir->vars[v]) != FORM_ROW) continue; /* written after the tiles */
        if (K->kind == KERNEL_COLS && fuse_col_form(K, &ir->vars[v]) != FORM_ROW) continue; /* after the units */
        sb_printf(sb, "    %s *p%d = (%s *)buf[%d] + t;\n", ctype(ir->vars[v].dtype), v, ctype(ir->vars[v].dtype),
                  v);
    }
    for (int j = first; j < K->n_eqns; j++) { /* leaves read in place: a pointer per tile */
        int eq = K->eqns[j];
        const ir_eqn *e = &ir->eqns[eq];
        if (!fuse_is_leaf_map(e->prim) || loop_leaf(c, k, eq) != CG_LEAF_CONTIGUOUS) continue;
        char base[64];
        codegen_leaf_base(c, eq, 0, base, sizeof base);
        const char *T = ctype(ir->vars[e->out].dtype);
        sb_printf(sb, "    const %s *g%d = (const %s *)buf[%d] + (%s) + t;\n", T, e->out, T, ir_eqn_inputs(ir, e)[0], base);
    }
    for (int j = first; j < K->n_eqns;) {
        int st = tile_stmt(c, k, j);
        if (st == STMT_NONE) {
            j++;
            continue;
        }
        if (st == STMT_TILE) {
            int partner = codegen_sincos_partner(c, k, j);
            if (off_row(c, K, j)) emit_fold_call(c, k, j, sb);
            else if (partner >= 0) emit_sincos(c, k, j, partner, sb);
            else emit_call(c, k, K->eqns[j], sb);
            j++;
            continue;
        }
        int end = j; /* one element loop: its statements, and what it skips */
        while (end < K->n_eqns && tile_stmt(c, k, end) != STMT_TILE) end++;
        emit_element_loop(c, k, j, end, local, sb);
        j = end;
    }
    sb_printf(sb, K->kind == KERNEL_COLS ? "    }\n  }\n}\n" : "  }\n}\n");
}

/* ---- ROWS kernels ----
 * One function over a range of rows [begin, end) of the kernel's outer
 * shape. Per row each equation becomes a statement of one of the kinds
 * below. Consecutive inline statements over the row share one loop over
 * the row; per-row scalars computed before such a loop are hoisted in
 * front of it so they do not split it. A row value lives as a local of
 * its loop unless a later statement or a call reads it (then it is a row
 * array) or it is materialised (then it is its row of its buffer). Per-row
 * values are C locals, and a broadcast of one back across the row is that
 * local inside the loop. Leaves whose row is contiguous in their operand's
 * buffer (or one value repeated along the row) are read in place; others
 * are gathered once per row by index arithmetic (codegen_leaf.c).
 *
 * Row reductions call their fold through the table (native_row_fold:
 * reduce.c's fold of one contiguous run, compiled once with the library,
 * so generated code costs no compile time for it and the interpreter's
 * call of the eager kernel on the row gives the same bits). */

enum { FOLD_PIECE = 65536 }; /* reduce.c folds a longer row in pieces, in another order */
enum { SHORT_ROW = 64 };      /* rows shorter than this are left to the interpreter */
static int64_t short_row = SHORT_ROW;

void codegen_set_short_row_for_testing(int64_t n) { short_row = n < 0 ? SHORT_ROW : n; }

typedef enum row_stmt {
    RS_REDUCE,      /* a row folded to a per-row scalar */
    RS_SCALAR,      /* inline elementwise on per-row scalars */
    RS_SCALAR_CALL, /* elementwise on per-row scalars through the table (one element) */
    RS_SCALAR_COPY, /* a per-row scalar reshaped */
    RS_ROW,         /* inline elementwise over the row */
    RS_ROW_CALL,    /* elementwise over the row through the table */
    RS_BCAST,       /* a per-row scalar broadcast across the row */
    RS_LEAF,        /* a buffer's row read in place */
    RS_GATHER,      /* a buffer's row gathered by index arithmetic */
} row_stmt;

/* Where a row value lives while its row is computed. */
typedef enum row_store {
    RV_EXPR,   /* nowhere: an expression (a broadcast scalar, a leaf read in place) */
    RV_LOCAL,  /* a local of the one loop over the row that computes and reads it */
    RV_ARRAY,  /* a row array: read by a later statement or by a call */
    RV_BUFFER, /* its row of a materialised buffer */
} row_store;

/* What a statement is within its block: hoisted before the block's loop
 * (per-row scalars), inside the loop, or a call over the whole row (a
 * table call or a fold). Gathers are done first in every row. */
typedef enum row_role { ROLE_NONE, ROLE_PRE, ROLE_RUN, ROLE_CALL, ROLE_GATHER } row_role;

typedef struct rows_gen {
    const compiled *c;
    const ir_func *ir;
    int k;
    const kernel *K;
    int64_t C;         /* row length */
    int n;             /* equations of the kernel */
    row_stmt *kind;    /* per position in the kernel */
    int *block;        /* per position: its block, -1 for none */
    row_role *role;    /* per position */
    int n_blocks;
    row_store *store;  /* per variable */
    bool *contiguous;  /* per variable: an RS_LEAF's row is contiguous (else one repeated value) */
    int *pos;          /* per variable defined in the kernel: its position */
    const char *restrict_rows; /* "restrict " when no two row pointers share a buffer, else "" */
} rows_gen;

/* ---- statements and where their values live ---- */

static const int *eqn_inputs_at(const rows_gen *g, int j) {
    return ir_eqn_inputs(g->ir, &g->ir->eqns[g->K->eqns[j]]);
}
static const ir_eqn *eqn_at(const rows_gen *g, int j) { return &g->ir->eqns[g->K->eqns[j]]; }
static bool own(const rows_gen *g, int u) { return g->c->kernel_of[u] == g->k; }
static row_form form_of(const rows_gen *g, int u) { return fuse_row_form(g->K, &g->ir->vars[u]); }
static const char *vtype(const rows_gen *g, int u) { return ctype(g->ir->vars[u].dtype); }
static bool materialised(const rows_gen *g, int u) { return g->c->home[u] != HOME_NONE; }

/* How row r of a leaf lies in its operand's buffer. */
typedef enum leaf_row {
    LEAF_SCATTERED,  /* gather it */
    LEAF_CONTIGUOUS, /* row_len elements from an offset */
    LEAF_REPEATED,   /* one value along the whole row (stride 0) */
} leaf_row;

static leaf_row leaf_layout(const rows_gen *g, int eqn) {
    switch (codegen_leaf_layout(g->c, eqn, &g->K->space, g->K->outer_rank)) {
    case CG_LEAF_CONTIGUOUS: return LEAF_CONTIGUOUS;
    case CG_LEAF_SCALAR: return LEAF_REPEATED;
    default: return LEAF_SCATTERED;
    }
}

/* The element offset of row r of a leaf in its operand: the map's offset
 * plus each outer index (taken from r) times its stride. */
static void leaf_row_offset(const rows_gen *g, int eqn, char *out, size_t n) {
    prim_index_map m;
    fuse_leaf_index_map(g->c, eqn, 0, &m);
    if (m.kind == MAP_LINEAR) {
        snprintf(out, n, "r * %lld", (long long)g->C);
        return;
    }
    const rt_aval *s = &g->K->space;
    char base[64];
    codegen_leaf_base(g->c, eqn, 0, base, sizeof base);
    size_t len = (size_t)snprintf(out, n, "%s", base);
    int64_t inner = 1;
    for (int d = g->K->outer_rank - 1; d >= 0 && len < n; d--) {
        if (s->dims[d] != 1 && m.stride[d] != 0) {
            char idx[96]; /* index d of row r: (r / inner) % dims[d], no % for the first axis */
            int w = inner == 1 ? snprintf(idx, sizeof idx, "r")
                               : snprintf(idx, sizeof idx, "r / %lld", (long long)inner);
            if (d > 0) snprintf(idx + w, sizeof idx - (size_t)w, " %% %lld", (long long)s->dims[d]);
            len += (size_t)snprintf(out + len, n - len, " + (%s) * (%lld)", idx, (long long)m.stride[d]);
        }
        inner *= s->dims[d];
    }
}

/* Does a call over the row (a table call or a fold), which needs its
 * operand's row in memory, read v? */
static bool read_by_call(const rows_gen *g, int v) {
    for (int j = 0; j < g->n; j++) {
        if (g->kind[j] != RS_ROW_CALL && g->kind[j] != RS_REDUCE) continue;
        for (int i = 0; i < eqn_at(g, j)->n_in; i++)
            if (eqn_inputs_at(g, j)[i] == v) return true;
    }
    return false;
}

/* Is statement j computed inside its block's loop over the row? */
static bool in_run(const rows_gen *g, int j) {
    row_stmt s = g->kind[j];
    return s == RS_ROW || ((s == RS_BCAST || s == RS_LEAF) && g->store[eqn_at(g, j)->out] != RV_EXPR);
}

/* Kinds of statement (rows_supported has accepted every equation), and
 * where leaves, broadcasts, gathers and table calls keep their rows. */
static void classify(rows_gen *g) {
    for (int j = 0; j < g->n; j++) {
        const ir_eqn *e = eqn_at(g, j);
        const int *in = eqn_inputs_at(g, j);
        int v = e->out;
        row_form fo = form_of(g, v);
        g->pos[v] = j;
        if (prim_lower(e->prim)->kind == LOWER_REDUCTION) {
            g->kind[j] = RS_REDUCE;
        } else if (fuse_is_leaf_map(e->prim)) {
            if (e->n_in && own(g, in[0])) {
                g->kind[j] = fo == FORM_ROW ? RS_BCAST : RS_SCALAR_COPY;
            } else {
                leaf_row layout = leaf_layout(g, g->K->eqns[j]);
                g->kind[j] = layout == LEAF_SCATTERED ? RS_GATHER : RS_LEAF;
                g->contiguous[v] = layout == LEAF_CONTIGUOUS;
            }
        } else {
            bool inl = is_inline(g->ir, e);
            g->kind[j] = fo == FORM_ROW ? (inl ? RS_ROW : RS_ROW_CALL) : (inl ? RS_SCALAR : RS_SCALAR_CALL);
        }
    }
    for (int j = 0; j < g->n; j++) {
        int v = eqn_at(g, j)->out;
        bool mat = materialised(g, v);
        switch (g->kind[j]) {
        case RS_BCAST: g->store[v] = mat ? RV_BUFFER : read_by_call(g, v) ? RV_ARRAY : RV_EXPR; break;
        case RS_LEAF:
            g->store[v] = mat ? RV_BUFFER : read_by_call(g, v) && !g->contiguous[v] ? RV_ARRAY : RV_EXPR;
            break;
        case RS_GATHER:
        case RS_ROW_CALL: g->store[v] = mat ? RV_BUFFER : RV_ARRAY; break;
        default: g->store[v] = RV_LOCAL; break; /* RS_ROW: decided with the blocks */
        }
    }
}

/* Groups statements into blocks, in order: a loop over the row (inline
 * statements, with the per-row scalars computed before it hoisted in
 * front: none of them can depend on the loop, which folds nothing), a call
 * over the row, or per-row scalars after a call. Then decides where each
 * inline row value lives. */
static void assign_blocks(rows_gen *g) {
    int open = -1; /* the block whose loop is still open */
    for (int j = 0; j < g->n; j++) {
        g->block[j] = -1;
        g->role[j] = ROLE_NONE;
        switch (g->kind[j]) {
        case RS_ROW:
        case RS_BCAST:
        case RS_LEAF:
            if (!in_run(g, j)) break; /* an expression where it is read */
            if (open < 0) open = g->n_blocks++;
            g->block[j] = open;
            g->role[j] = ROLE_RUN;
            break;
        case RS_SCALAR:
        case RS_SCALAR_CALL:
        case RS_SCALAR_COPY:
            g->block[j] = open >= 0 ? open : g->n_blocks++;
            g->role[j] = ROLE_PRE;
            break;
        case RS_REDUCE:
        case RS_ROW_CALL:
            g->block[j] = g->n_blocks++;
            g->role[j] = ROLE_CALL;
            open = -1;
            break;
        case RS_GATHER: g->role[j] = ROLE_GATHER; break;
        }
    }
    for (int j = 0; j < g->n; j++) {
        if (g->kind[j] != RS_ROW) continue;
        int v = eqn_at(g, j)->out;
        if (materialised(g, v)) {
            g->store[v] = RV_BUFFER;
            continue;
        }
        g->store[v] = RV_LOCAL;
        for (int q = j + 1; q < g->n; q++)
            for (int i = 0; i < eqn_at(g, q)->n_in; i++)
                if (eqn_inputs_at(g, q)[i] == v && (g->block[q] != g->block[j] || g->role[q] == ROLE_CALL))
                    g->store[v] = RV_ARRAY;
    }
}

/* ---- emitting ---- */

/* Operand u read at element j of the row inside a loop. */
static void row_expr(const rows_gen *g, int u, char *out, size_t n) {
    if (!own(g, u)) {
        row_form f = form_of(g, u);
        snprintf(out, n, f == FORM_ROW ? "p%d[j]" : f == FORM_SCALAR ? "s%d" : "k%d", u);
        return;
    }
    if (form_of(g, u) != FORM_ROW) { /* a rank-0 per-row value (outer rank 0) */
        snprintf(out, n, "s%d", u);
        return;
    }
    switch (g->store[u]) {
    case RV_BUFFER: snprintf(out, n, "p%d[j]", u); break;
    case RV_ARRAY: snprintf(out, n, "a%d[j]", u); break;
    case RV_LOCAL: snprintf(out, n, "v%d", u); break;
    case RV_EXPR:
        if (g->kind[g->pos[u]] == RS_BCAST) snprintf(out, n, "s%d", eqn_inputs_at(g, g->pos[u])[0]);
        else snprintf(out, n, g->contiguous[u] ? "g%d[j]" : "g%d", u);
        break;
    }
}

/* A per-row scalar operand. */
static void scalar_expr(const rows_gen *g, int u, char *out, size_t n) {
    snprintf(out, n, !own(g, u) && form_of(g, u) == FORM_RANK0 ? "k%d" : "s%d", u);
}

/* A pointer to operand u's row for a call over the row; a per-row scalar
 * (only rank-0 ones reach a call over the row) is passed by address and
 * *scalar set, as the interpreter passes it. */
static void row_ptr(const rows_gen *g, int u, char *out, size_t n, int *scalar) {
    *scalar = form_of(g, u) != FORM_ROW;
    if (*scalar) {
        char s[32];
        scalar_expr(g, u, s, sizeof s);
        snprintf(out, n, "&%s", s);
    } else if (!own(g, u) || g->store[u] == RV_BUFFER) {
        snprintf(out, n, "p%d", u);
    } else {
        snprintf(out, n, g->store[u] == RV_ARRAY ? "a%d" : "g%d", u); /* else a contiguous leaf */
    }
}

static void store_materialised_scalar(const rows_gen *g, int v, strbuf *sb) {
    if (materialised(g, v)) sb_printf(sb, "    ((%s *)buf[%d])[r] = s%d;\n", vtype(g, v), v, v);
}

/* An elementwise kernel through the table: over the row, or on one
 * element (per-row scalars, all passed by address). */
static void emit_table_call(const rows_gen *g, int j, bool over_row, strbuf *sb) {
    const ir_eqn *e = eqn_at(g, j);
    const int *in = eqn_inputs_at(g, j);
    char ptr[3][40] = {"0", "0", "0"}, dst[40];
    int sc[3] = {0, 0, 0};
    for (int i = 0; i < e->n_in; i++) {
        if (over_row) {
            row_ptr(g, in[i], ptr[i], sizeof ptr[i], &sc[i]);
        } else {
            char s[32];
            scalar_expr(g, in[i], s, sizeof s);
            snprintf(ptr[i], sizeof ptr[i], "&%s", s);
        }
    }
    if (!over_row) snprintf(dst, sizeof dst, "&s%d", e->out);
    else snprintf(dst, sizeof dst, g->store[e->out] == RV_BUFFER ? "p%d" : "a%d", e->out);
    sb_printf(sb,
              "    { cjk_ops o = {{%s, %s, %s}, {%d, %d, %d}, %s, %d, %d, %lldLL};\n"
              "      ((cjk_ew)rt->ew[%d])(&o, 0, %lld); }\n",
              ptr[0], ptr[1], ptr[2], sc[0], sc[1], sc[2], dst,
              (int)kernel_dtype(g->ir, e), (int)g->ir->vars[e->out].dtype, (long long)e->params.count,
              g->K->eqns[j], over_row ? (long long)g->C : 1LL);
}

/* A row reduction: the fold through the table (native_row_fold). */
static void emit_reduce(const rows_gen *g, int j, strbuf *sb) {
    int u = eqn_inputs_at(g, j)[0], v = eqn_at(g, j)->out, scalar;
    char x[40];
    row_ptr(g, u, x, sizeof x, &scalar);
    sb_printf(sb, "    %s s%d;\n    ((cjk_fold)rt->ew[%d])(%s, %lld, &s%d);\n", vtype(g, v), v, g->K->eqns[j], x,
              (long long)g->C, v);
    store_materialised_scalar(g, v, sb);
}

static void emit_scalar_stmt(const rows_gen *g, int j, strbuf *sb) {
    const ir_eqn *e = eqn_at(g, j);
    const int *in = eqn_inputs_at(g, j);
    int v = e->out;
    if (g->kind[j] == RS_SCALAR_CALL) {
        sb_printf(sb, "    %s s%d;\n", vtype(g, v), v);
        emit_table_call(g, j, false, sb);
    } else {
        char a[3][32] = {"", "", ""}, rhs[256];
        for (int i = 0; i < e->n_in; i++) scalar_expr(g, in[i], a[i], sizeof a[i]);
        if (g->kind[j] == RS_SCALAR_COPY) snprintf(rhs, sizeof rhs, "%s", a[0]);
        else inline_rhs(g->ir, e, a[0], a[1], a[2], rhs, sizeof rhs);
        sb_printf(sb, "    %s s%d = %s;\n", vtype(g, v), v, rhs);
    }
    store_materialised_scalar(g, v, sb);
}

/* Element j of an inline row statement, into where its value lives. */
static void emit_row_stmt(const rows_gen *g, int j, strbuf *sb) {
    const ir_eqn *e = eqn_at(g, j);
    const int *in = eqn_inputs_at(g, j);
    int v = e->out;
    char rhs[256];
    if (g->kind[j] == RS_ROW) {
        char a[3][32] = {"", "", ""};
        for (int i = 0; i < e->n_in; i++) row_expr(g, in[i], a[i], sizeof a[i]);
        inline_rhs(g->ir, e, a[0], a[1], a[2], rhs, sizeof rhs);
    } else if (g->kind[j] == RS_BCAST) {
        snprintf(rhs, sizeof rhs, "s%d", in[0]);
    } else { /* a leaf read in place */
        snprintf(rhs, sizeof rhs, g->contiguous[v] ? "g%d[j]" : "g%d", v);
    }
    switch (g->store[v]) {
    case RV_LOCAL: sb_printf(sb, "      const %s v%d = %s;\n", vtype(g, v), v, rhs); break;
    case RV_ARRAY: sb_printf(sb, "      a%d[j] = %s;\n", v, rhs); break;
    default: sb_printf(sb, "      p%d[j] = %s;\n", v, rhs); break;
    }
}

static void emit_block(const rows_gen *g, int b, strbuf *sb) {
    bool run = false;
    for (int j = 0; j < g->n; j++) {
        if (g->block[j] != b) continue;
        if (g->role[j] == ROLE_PRE) emit_scalar_stmt(g, j, sb);
        run |= g->role[j] == ROLE_RUN;
    }
    if (run) {
        sb_printf(sb, "    for (i64 j = 0; j < %lld; j++) {\n", (long long)g->C);
        for (int j = 0; j < g->n; j++)
            if (g->block[j] == b && g->role[j] == ROLE_RUN) emit_row_stmt(g, j, sb);
        sb_printf(sb, "    }\n");
    }
    for (int j = 0; j < g->n; j++) {
        if (g->block[j] != b || g->role[j] != ROLE_CALL) continue;
        if (g->kind[j] == RS_REDUCE) emit_reduce(g, j, sb);
        else emit_table_call(g, j, true, sb);
    }
}

/* Is kernel input u read by an elementwise statement or a reduction (not
 * only by leaves, which read it through their map)? */
static bool read_directly(const rows_gen *g, int u) {
    for (int j = 0; j < g->n; j++) {
        const ir_eqn *e = eqn_at(g, j);
        if (fuse_is_leaf_map(e->prim)) continue;
        for (int i = 0; i < e->n_in; i++)
            if (eqn_inputs_at(g, j)[i] == u) return true;
    }
    return false;
}

/* Declarations before the loop over rows: rank-0 operands, read once, and
 * the row arrays — on the stack when they are small, else in a block of
 * the program's per-thread scratch (one row slot of 8-byte elements per
 * array, as the interpreter sizes its slots, so they always fit). Returns
 * whether the scratch was claimed. */
static bool emit_rows_prologue(const rows_gen *g, strbuf *sb) {
    const kernel *K = g->K;
    for (int i = 0; i < K->n_in; i++) {
        int u = K->in[i];
        if (form_of(g, u) == FORM_RANK0 && read_directly(g, u))
            sb_printf(sb, "  const %s k%d = *(const %s *)buf[%d];\n", vtype(g, u), u, vtype(g, u), u);
    }
    for (int j = 0; j < g->n; j++) /* leaves' dynamic offsets */
        if (g->kind[j] == RS_LEAF || g->kind[j] == RS_GATHER) codegen_leaf_prologue(g->c, g->K->eqns[j], sb);
    size_t bytes = 0;
    for (int j = 0; j < g->n; j++) {
        int v = eqn_at(g, j)->out;
        if (g->store[v] == RV_ARRAY) bytes += (size_t)g->C * rt_dtypes[g->ir->vars[v].dtype].size;
    }
    bool scratch = bytes > CODEGEN_ROWS_STACK_BYTES;
    if (scratch) sb_printf(sb, "  int slot;\n  char *const scratch = rt->claim(rt->prog, &slot);\n");
    size_t offset = 0;
    for (int j = 0; j < g->n; j++) {
        int v = eqn_at(g, j)->out;
        if (g->store[v] != RV_ARRAY) continue;
        if (scratch) {
            sb_printf(sb, "  %s *restrict const a%d = (%s *)(scratch + %zu);\n", vtype(g, v), v, vtype(g, v), offset);
            offset += (size_t)g->C * 8;
        } else {
            sb_printf(sb, "  _Alignas(64) %s a%d[%lld];\n", vtype(g, v), v, (long long)g->C);
        }
    }
    return scratch;
}

/* May the kernel's row pointers be restrict? Its buffers are distinct
 * unless an output was planned into an operand's buffer (a donation, or
 * in place); then reads of the operand and writes of the output at the
 * same element must stay in program order. */
static const char *row_pointer_qualifier(const rows_gen *g) {
    for (int j = 0; j < g->n; j++) {
        int v = eqn_at(g, j)->out;
        if ((g->c->donor && g->c->donor[v] >= 0) || plan_in_place_of(g->c, v) >= 0) return "";
    }
    return "restrict ";
}

/* Per row, before the blocks: pointers to the rows of operands and of
 * materialised values, per-row operands, leaves read in place, gathers. */
static void emit_row_setup(const rows_gen *g, strbuf *sb) {
    const kernel *K = g->K;
    long long C = (long long)g->C;
    for (int i = 0; i < K->n_in; i++) {
        int u = K->in[i];
        row_form f = form_of(g, u);
        const char *T = vtype(g, u);
        if (!read_directly(g, u) || f == FORM_RANK0) continue;
        if (f == FORM_ROW)
            sb_printf(sb, "    const %s *%sp%d = (const %s *)buf[%d] + r * %lld;\n", T, g->restrict_rows, u, T, u, C);
        else sb_printf(sb, "    const %s s%d = ((const %s *)buf[%d])[r];\n", T, u, T, u);
    }
    for (int j = 0; j < g->n; j++) {
        int v = eqn_at(g, j)->out;
        const char *T = vtype(g, v);
        if (g->store[v] == RV_BUFFER)
            sb_printf(sb, "    %s *%sp%d = (%s *)buf[%d] + r * %lld;\n", T, g->restrict_rows, v, T, v, C);
    }
    for (int j = 0; j < g->n; j++) {
        int v = eqn_at(g, j)->out;
        const char *T = vtype(g, v);
        if (g->kind[j] == RS_LEAF) {
            char off[512];
            int src = eqn_inputs_at(g, j)[0];
            leaf_row_offset(g, g->K->eqns[j], off, sizeof off);
            if (g->contiguous[v]) sb_printf(sb, "    const %s *g%d = (const %s *)buf[%d] + (%s);\n", T, v, T, src, off);
            else sb_printf(sb, "    const %s g%d = ((const %s *)buf[%d])[%s];\n", T, v, T, src, off);
        } else if (g->kind[j] == RS_GATHER) {
            char start[48], len[32], dst[32];
            snprintf(start, sizeof start, "r * %lld", C);
            snprintf(len, sizeof len, "%lld", C);
            snprintf(dst, sizeof dst, "%s%d", g->store[v] == RV_BUFFER ? "p" : "a", v);
            codegen_leaf_gather(g->c, g->K->eqns[j], &g->K->space, start, len, dst, sb);
        }
    }
}

static void emit_rows_kernel(const rows_gen *g, const char *prefix, bool exported, strbuf *sb) {
    emit_kernel_head(prefix, exported, g->k, sb);
    sb_printf(sb, "  (void)rt;\n");
    bool scratch = emit_rows_prologue(g, sb);
    sb_printf(sb, "  for (i64 r = begin; r < end; r++) {\n");
    emit_row_setup(g, sb);
    for (int b = 0; b < g->n_blocks; b++) emit_block(g, b, sb);
    sb_printf(sb, "  }\n");
    if (scratch) sb_printf(sb, "  rt->release(rt->prog, slot);\n");
    sb_printf(sb, "}\n");
}

/* Can every equation of ROWS kernel k be written? Fusion (rows_accept)
 * only makes kernels that can; this guards the generator's assumptions
 * against a kernel it might make later, which then stays on the
 * interpreter. */
static bool rows_supported_from(const compiled *c, int k, int64_t min_row) {
    const kernel *K = &c->kernels[k];
    if (K->row_len > FOLD_PIECE) return false; /* the eager kernel folds longer rows in pieces */
    /* Short rows stay on the interpreter, which reduces a block of rows in
     * one call of the reduce kernel; generated code pays a fold call per
     * row (1e6 rows of 16: 8.1 ms generated vs 5.1 interpreted). */
    if (K->row_len < min_row) return false;
    for (int j = 0; j < K->n_eqns; j++) {
        const ir_eqn *e = &c->ir->eqns[K->eqns[j]];
        const int *in = ir_eqn_inputs(c->ir, e);
        row_form fo = fuse_row_form(K, &c->ir->vars[e->out]);
        if (fo != FORM_ROW && fo != FORM_SCALAR) return false;
        if (prim_lower(e->prim)->kind == LOWER_REDUCTION) {
            if (!native_row_fold(e->prim, c->ir->vars[in[0]].dtype) ||
                fuse_row_form(K, &c->ir->vars[in[0]]) != FORM_ROW || fo != FORM_SCALAR)
                return false;
        } else if (fuse_is_leaf_map(e->prim)) {
            bool own_scalar = e->n_in && c->kernel_of[in[0]] == k;
            if (own_scalar ? fuse_row_form(K, &c->ir->vars[in[0]]) != FORM_SCALAR : fo != FORM_ROW) return false;
        } else if (fuse_is_elementwise(e->prim) && e->n_in <= 3) {
            for (int i = 0; i < e->n_in; i++) { /* rows read rows or rank-0 values, scalars read scalars */
                const rt_aval *a = &c->ir->vars[in[i]];
                row_form f = fuse_row_form(K, a);
                if (f != fo && f != FORM_RANK0 && !(fo == FORM_ROW && a->rank == 0)) return false;
            }
        } else {
            return false;
        }
    }
    return true;
}

static bool rows_supported(const compiled *c, int k) { return rows_supported_from(c, k, short_row); }

/* A COLS kernel is generated when every reduction folds inline (f32, f64)
 * and nothing in a tile is a fold call; its per-column values are the
 * interpreter's (interp.c: run_cols), as a long row's per-row values are. */
static bool cols_supported(const compiled *c, int k) {
    const kernel *K = &c->kernels[k];
    for (int j = 0; j < K->n_eqns; j++) {
        prim_fold_c fc;
        if (prim_lower(c->ir->eqns[K->eqns[j]].prim)->kind == LOWER_REDUCTION && !fold_inline(c, k, j, &fc))
            return false;
    }
    return true;
}

bool codegen_exports(const compiled *c, int k) {
    return codegen_generates(c, k) || fuse_is_long_rows(&c->kernels[k]) ||
           (c->kernels[k].kind == KERNEL_COLS && cols_supported(c, k));
}

bool codegen_generates(const compiled *c, int k) {
    switch (c->kernels[k].kind) {
    case KERNEL_LOOP: return true;
    case KERNEL_DOT_EPILOGUE: return true; /* its epilogue */
    case KERNEL_ROWS: return rows_supported(c, k);
    default: return false;
    }
}

static void generate_rows(const compiled *c, int k, const char *prefix, bool exported, strbuf *sb) {
    const ir_func *ir = c->ir;
    rows_gen g = {.c = c, .ir = ir, .k = k, .K = &c->kernels[k], .C = c->kernels[k].row_len,
                  .n = c->kernels[k].n_eqns};
    size_t nv = (size_t)ir->n_vars + 1, ne = (size_t)g.n + 1;
    g.kind = rt_calloc(sb->mem, sizeof(row_stmt) * ne);
    g.block = rt_calloc(sb->mem, sizeof(int) * ne);
    g.role = rt_calloc(sb->mem, sizeof(row_role) * ne);
    g.store = rt_calloc(sb->mem, sizeof(row_store) * nv);
    g.contiguous = rt_calloc(sb->mem, sizeof(bool) * nv);
    g.pos = rt_calloc(sb->mem, sizeof(int) * nv);
    if (g.kind && g.block && g.role && g.store && g.contiguous && g.pos) {
        classify(&g);
        assign_blocks(&g);
        g.restrict_rows = row_pointer_qualifier(&g);
        emit_rows_kernel(&g, prefix, exported, sb);
    } else {
        sb->failed = 1;
    }
    if (g.kind) rt_free(sb->mem, g.kind, sizeof(row_stmt) * ne);
    if (g.block) rt_free(sb->mem, g.block, sizeof(int) * ne);
    if (g.role) rt_free(sb->mem, g.role, sizeof(row_role) * ne);
    if (g.store) rt_free(sb->mem, g.store, sizeof(row_store) * nv);
    if (g.contiguous) rt_free(sb->mem, g.contiguous, sizeof(bool) * nv);
    if (g.pos) rt_free(sb->mem, g.pos, sizeof(int) * nv);
}

/* Kernel k as its generated function, when it has one (ROWS kernels:
 * those rows_supported_from accepts with rows of at least min_row). */
static bool emit_kernel(const compiled *c, int k, const char *prefix, bool exported, int64_t min_row,
                        strbuf *sb) {
    if (small_kernel(c, k)) emit_small_kernel(c, k, prefix, exported, sb);
    else if (codegen_nested_applies(c, k)) codegen_nested_kernel(c, k, prefix, exported, sb);
    else if (c->kernels[k].kind == KERNEL_LOOP || c->kernels[k].kind == KERNEL_DOT_EPILOGUE ||
             fuse_is_long_rows(&c->kernels[k]) || (c->kernels[k].kind == KERNEL_COLS && cols_supported(c, k)))
        emit_loop_kernel(c, k, prefix, exported, sb);
    else if (c->kernels[k].kind == KERNEL_ROWS && rows_supported_from(c, k, min_row))
        generate_rows(c, k, prefix, exported, sb);
    else return false;
    return true;
}

void codegen_kernels(const compiled *c, const char *prefix, bool exported, strbuf *sb) {
    for (int k = 0; k < c->n_kernels; k++) emit_kernel(c, k, prefix, exported, short_row, sb);
}

bool codegen_kernel_for_export(const compiled *c, int k, const char *prefix, strbuf *sb) {
    const kernel *K = &c->kernels[k];
    /* long rows and COLS kernels leave their per-row / per-column values to
     * the interpreter (run_long_rows, run_cols), which an exported unit lacks */
    if (K->kind == KERNEL_SINGLE || K->kind == KERNEL_COLS || fuse_is_long_rows(K)) return false;
    return emit_kernel(c, k, prefix, false, 0, sb);
}

void codegen_unit_types(strbuf *sb) {
    sb_printf(sb,
              /* gathers copy runs of a few elements (a row of 7, a block of
               * 56): as memcpy calls, which gcc makes of such loops, they
               * cost more than the copy (a third of vmap(hessian)'s time) */
              "#if defined(__GNUC__) && !defined(__clang__)\n"
              "#pragma GCC optimize(\"no-tree-loop-distribute-patterns\")\n"
              "#endif\n"
              /* gcc tunes Xeons with AVX-512 to 256-bit vectors by default;
               * generated loops are long and math-heavy, where the full
               * width pays (sum(tanh(a*x+b)*c+d), 1e7, one Sapphire Rapids
               * core: 11.4 -> 8.1 ms). Widths change no result: every
               * reduction's lanes are explicit in the source. */
              "#if defined(__GNUC__) && !defined(__clang__) && defined(__AVX512F__)\n"
              "#pragma GCC target(\"prefer-vector-width=512\")\n"
              "#endif\n"
              "typedef long long i64;\n"
              "#define TILE %d\n"
              "typedef struct { const void *in[3]; _Bool scalar[3]; void *out; int in_dtype; int out_dtype; long long param; } cjk_ops;\n"
              "typedef void (*cjk_ew)(const cjk_ops *, i64, i64);\n"
              "typedef struct { void *const *ew;\n"
              "  const void *prog; char *(*claim)(const void *, int *); void (*release)(const void *, int); } cjk_rt;\n"
              "typedef void (*cjk_fold)(const void *, i64, void *);\n"
              "static inline i64 cjk_clamp(i64 s, i64 hi) { return s < 0 ? 0 : s > hi ? hi : s; }\n",
              CODEGEN_TILE);
}

void codegen_program(const compiled *c, struct cf_native *const *cf, strbuf *sb) {
    bool constructs = false;
    for (int k = 0; k < c->n_kernels && cf; k++) constructs |= cf[k] != NULL;
    sb_printf(sb, "/* generated by cjax: one function per loop or rows kernel%s */\n",
              constructs ? ", and per control-flow construct" : "");
    codegen_unit_types(sb);
    /* float32 tanh's C expression is cjk_tanhf (src/prim/elementwise.c):
     * vm_tanh_f32's own source, with the fused multiply-add of the
     * compilation of vmath.c this CPU runs, so inline and table agree */
    sb_printf(sb, "%s", vm_tanhf_text());
    if (constructs) codegen_construct_types(sb);
    codegen_kernels(c, "cjk_", true, sb);
    if (constructs) codegen_constructs(c, cf, sb);
}
