/* fusion.c — grouping equations into kernels (compiler layer).
 *
 * Greedy, in IR order. A reduction over trailing axes (of rows up to
 * ROW_MAX_LEN elements) forms a ROWS kernel, taking over the LOOP kernel
 * that produces its operand; later elementwise equations over the same
 * rows or the per-row results, and broadcasts of per-row results back
 * across the row, join it — so softmax or layer norm run row by row. A
 * whole-array reduction of more elements is one long row, run in tiles
 * (fuse_is_long_rows), so a large sum joins the loop producing its operand.
 * An elementwise equation, or a data-movement leaf (a primitive with an
 * index map: broadcast_in_dim, transpose, slice, rev, reshape, squeeze,
 * expand_dims, concatenate, pad, dynamic_slice, iota) whose operands are
 * buffers, joins the latest LOOP kernel that has
 * the same iteration space and runs no earlier than every kernel producing
 * its operands (a leaf does so at its first reader, and goes into that
 * reader's kernel when it can: "placing equations" below); otherwise it starts a new LOOP kernel. Siblings over the
 * same space (sin(x) and cos(x)) therefore share a kernel, and a chain of
 * elementwise operations becomes one loop. A leaf never reads a value of
 * its own kernel: that would need the value at another index, so the value
 * is materialised and the leaf reads its buffer. A reduction over leading
 * axes makes the LOOP kernel producing its operand a COLS kernel (column
 * sums folded as the operand is computed). Anything else (other reductions,
 * dot, gather, dynamic_update_slice, and a control-flow construct:
 * one equation of all its outputs, run once) is a SINGLE kernel.
 * Values used outside their kernel, and program outputs, become the
 * kernel's outputs; everything else exists only per tile. */
#include <string.h>

#include "program.h"

bool fuse_is_elementwise(prim_id p) { return prim_lower(p)->kind == LOWER_ELEMENTWISE; }

/* A data-movement primitive with an index map (shape.c) reads its operands
 * through it, so it fuses into loops: broadcast_in_dim, transpose, slice,
 * rev, reshape, squeeze, expand_dims, concatenate, pad, dynamic_slice and
 * iota. */
bool fuse_is_leaf_map(prim_id p) { return prim_rules[p].index_map != NULL; }

int fuse_leaf_index_map(const compiled *c, int eqn, int operand, prim_index_map *m) {
    const ir_func *ir = c->ir;
    const ir_eqn *e = &ir->eqns[eqn];
    if (c->composed && c->composed[eqn] && operand < e->n_in) { /* read through a leaf fusion took out */
        *m = c->composed[eqn][operand];
        return 0;
    }
    rt_aval in[PRIM_MAX_OPERANDS];
    const int *ops = ir_eqn_inputs(ir, e);
    for (int i = 0; i < e->n_in && i < PRIM_MAX_OPERANDS; i++) in[i] = ir->vars[ops[i]];
    return prim_rules[e->prim].index_map(&e->params, e->n_in, in, &ir->vars[e->out], operand, m);
}

static int kernel_add_eqn(cj_ctx *ctx, kernel *k, int eqn) {
    if (k->n_eqns == k->cap_eqns) {
        int nc = k->cap_eqns ? k->cap_eqns * 2 : 8;
        int *e = rt_realloc(ctx->mem, k->eqns, sizeof(int) * (size_t)k->cap_eqns, sizeof(int) * (size_t)nc);
        if (!e) return core_oom(ctx, "jit: fusion");
        k->eqns = e;
        k->cap_eqns = nc;
    }
    k->eqns[k->n_eqns++] = eqn;
    return 0;
}

/* ---- ROWS kernels ---- */

/* Rows longer than this are not fused row by row: a row of each value must
 * fit in a thread's scratch and, ideally, in cache. A longer one is fused
 * only as a whole-array reduction's long row (tile by tile). */
#define ROW_MAX_LEN 65536

row_form fuse_row_form(const kernel *K, const rt_aval *a) {
    int p = K->outer_rank, r = K->space.rank;
    if (rt_aval_same_shape(a, &K->space)) return FORM_ROW;
    if (a->rank == p || a->rank == r) {
        int ok = 1;
        for (int i = 0; i < p && ok; i++) ok = a->dims[i] == K->space.dims[i];
        for (int i = p; i < a->rank && ok; i++) ok = a->dims[i] == 1;
        if (ok) return FORM_SCALAR;
    }
    return a->rank == 0 ? FORM_RANK0 : FORM_NONE;
}

/* A reduction with a row fold over the trailing axes of its operand: sets
 * the outer rank and the row length. */
bool fuse_is_row_reduce(const ir_func *ir, const ir_eqn *e, int *outer, int64_t *row_len) {
    if (prim_lower(e->prim)->kind != LOWER_REDUCTION || !prim_lower(e->prim)->row_fold) return false;
    const rt_aval *a = &ir->vars[ir_eqn_inputs(ir, e)[0]];
    int q = e->params.axes.n, p = a->rank - q;
    if (q < 1) return false;
    int64_t len = 1;
    for (int i = 0; i < q; i++) {
        if (e->params.axes.v[i] != p + i) return false;
        /* checked: the row of a huge spec (f32[2^40,2^40]) must not overflow */
        if (__builtin_mul_overflow(len, a->dims[p + i], &len)) return false;
    }
    /* longer rows run in tiles (fuse_is_long_rows); their per-row values
     * for all rows must fit one tile slot */
    if (len > ROW_MAX_LEN) {
        int64_t rows = 1;
        for (int i = 0; i < p; i++)
            if (__builtin_mul_overflow(rows, a->dims[i], &rows)) return false;
        if (rows > FUSE_LONG_MAX_ROWS) return false;
    }
    if (len < 2) return false;
    *outer = p;
    *row_len = len;
    return true;
}

/* A ROWS kernel of rows longer than ROW_MAX_LEN (at most
 * FUSE_LONG_MAX_ROWS of them: a whole-array reduction of a large value, or
 * a few long rows): no row fits in scratch, so both backends run each row
 * tile by tile like a LOOP kernel, each reduction folding every tile to a
 * partial, the partials of a row folded in tile order after all its tiles
 * have run (the same bits for any thread count), then its per-row values.
 * Nothing computed over the row may read a per-row value of the kernel: a
 * broadcast of a reduction back across the row (variance's x - mean) needs
 * the whole row reduced first, so it starts the next kernel, a second pass. */
bool fuse_is_long_rows(const kernel *K) { return K->kind == KERNEL_ROWS && K->row_len > ROW_MAX_LEN; }

/* ---- COLS kernels ----
 * A reduction over leading axes (a column sum, a batch mean: sum(x*y,
 * axis=0)) joins the LOOP kernel computing its operand, which becomes a
 * COLS kernel: both backends run it in units of a block of rows (the
 * column fold's block, the rows the eager kernel sums into a fresh
 * accumulator row) by a tile of a row's columns, each unit folding its
 * rows into its block's accumulator row; then the blocks' rows are folded
 * in order, and the per-column equations (the mean's division) run once
 * over the columns. The units are fixed by the shape alone, so the bits
 * do not depend on the thread count, and they are the eager kernel's on
 * one thread. Nothing over the whole space may read a per-column value:
 * x - mean(x, 0) starts the next kernel, a second pass. */
bool fuse_is_col_reduce(const ir_func *ir, const ir_eqn *e, int *lead, int64_t *cols) {
    const prim_lowering *l = prim_lower(e->prim);
    if (l->kind != LOWER_REDUCTION || !l->col_fold) return false;
    const rt_aval *a = &ir->vars[ir_eqn_inputs(ir, e)[0]];
    prim_col_fold f;
    if (!l->col_fold(e->prim, a->dtype, &f) || ir->vars[e->out].dtype != a->dtype) return false;
    int q = e->params.axes.n;
    if (q < 1 || q >= a->rank) return false;
    int64_t rows = 1, n = 1;
    for (int i = 0; i < q; i++) {
        if (e->params.axes.v[i] != i) return false;
        if (__builtin_mul_overflow(rows, a->dims[i], &rows)) return false;
    }
    for (int i = q; i < a->rank; i++)
        if (__builtin_mul_overflow(n, a->dims[i], &n)) return false;
    /* one row is a copy (the eager kernel keeps a -0.0 a sum would not),
     * one column a fold of a run, in the row fold's lanes */
    if (rows < 2 || n < 2) return false;
    *lead = q;
    *cols = n;
    return true;
}

row_form fuse_col_form(const kernel *K, const rt_aval *a) {
    if (rt_aval_same_shape(a, &K->space)) return FORM_ROW;
    int q = K->outer_rank;
    if (a->rank == K->space.rank - q && a->rank > 0) {
        bool same = true;
        for (int i = 0; i < a->rank && same; i++) same = a->dims[i] == K->space.dims[q + i];
        if (same) return FORM_SCALAR;
    }
    return a->rank == 0 ? FORM_RANK0 : FORM_NONE;
}

/* Can equation `ei` join COLS kernel k? Elementwise equations over the
 * space or over the columns (their operands have their shape or rank 0,
 * so none over the space reads a per-column value), leaves over the
 * space reading buffers, and reductions over the same leading axes. */
static bool cols_accept(const compiled *c, int k, int ei) {
    const ir_func *ir = c->ir;
    const ir_eqn *e = &ir->eqns[ei];
    const kernel *K = &c->kernels[k];
    const int *in = ir_eqn_inputs(ir, e);
    int lead;
    int64_t cols;
    if (fuse_is_col_reduce(ir, e, &lead, &cols))
        return lead == K->outer_rank && rt_aval_same_shape(&ir->vars[in[0]], &K->space);
    row_form fo = fuse_col_form(K, &ir->vars[e->out]);
    if (fuse_is_elementwise(e->prim)) {
        if (fo != FORM_ROW && fo != FORM_SCALAR) return false;
        for (int i = 0; i < e->n_in; i++) {
            row_form f = fuse_col_form(K, &ir->vars[in[i]]);
            if (f != fo && f != FORM_RANK0) return false;
        }
        return true;
    }
    if (!fuse_is_leaf_map(e->prim) || fo != FORM_ROW) return false;
    for (int i = 0; i < e->n_in; i++)
        if (c->kernel_of[in[i]] == k) return false;
    return true;
}

/* A broadcast_in_dim that keeps the outer axes in place (dims[i] == i for
 * the outer axes), so a per-row value stays with its row. */
static bool keeps_outer_axes(const ir_eqn *e, int outer) {
    if (e->prim != PRIM_BROADCAST_IN_DIM) return true; /* reshapes of row scalars */
    for (int i = 0; i < e->params.axes.n && i < outer; i++)
        if (e->params.axes.v[i] != i) return false;
    return e->params.axes.n >= outer;
}

/* Can equation `ei` join ROWS kernel k? */
static bool rows_accept(const compiled *c, int k, int ei) {
    const ir_func *ir = c->ir;
    const ir_eqn *e = &ir->eqns[ei];
    const kernel *K = &c->kernels[k];
    const int *in = ir_eqn_inputs(ir, e);
    row_form fo = fuse_row_form(K, &ir->vars[e->out]);
    int outer;
    int64_t len;
    if (fuse_is_row_reduce(ir, e, &outer, &len))
        return outer == K->outer_rank && fuse_row_form(K, &ir->vars[in[0]]) == FORM_ROW;
    if (fo != FORM_ROW && fo != FORM_SCALAR) return false;
    bool long_rows = fuse_is_long_rows(K);
    if (fuse_is_elementwise(e->prim)) {
        for (int i = 0; i < e->n_in; i++) {
            const rt_aval *a = &ir->vars[in[i]];
            row_form f = fuse_row_form(K, a);
            /* a long row's tiles run before any per-row value exists */
            if (long_rows && fo == FORM_ROW && c->kernel_of[in[i]] == k && f != FORM_ROW) return false;
            /* rank-0 operands broadcast for free, including a whole-array
             * reduction's result (outer rank 0) */
            if (f != fo && f != FORM_RANK0 && !(a->rank == 0 && fo == FORM_ROW)) return false;
        }
        return true;
    }
    if (!fuse_is_leaf_map(e->prim)) return false;
    if (e->prim == PRIM_IOTA) return fo == FORM_ROW;
    int u = in[0];
    if (e->n_in != 1) { /* concatenate, pad, dynamic_slice: every operand from a buffer */
        for (int i = 0; i < e->n_in; i++)
            if (c->kernel_of[in[i]] == k) return false;
        return fo == FORM_ROW;
    }
    if (c->kernel_of[u] != k) return fo == FORM_ROW; /* a gather from a buffer */
    /* a per-row value of this kernel: broadcast back across the row, or
     * reshaped among its per-row forms */
    if (fuse_row_form(K, &ir->vars[u]) != FORM_SCALAR) return false;
    if (fo == FORM_ROW) return !long_rows && e->prim == PRIM_BROADCAST_IN_DIM && keeps_outer_axes(e, K->outer_rank);
    return (e->prim == PRIM_RESHAPE || e->prim == PRIM_SQUEEZE || e->prim == PRIM_EXPAND_DIMS ||
            e->prim == PRIM_BROADCAST_IN_DIM) &&
           keeps_outer_axes(e, K->outer_rank);
}

/* Finds the kernel to fuse equation `ei` into, or -1. A row reduction may
 * turn the LOOP kernel producing its operand into a ROWS kernel. */
static int pick_kernel(const compiled *c, const int *pending, int ei) {
    const ir_func *ir = c->ir;
    const ir_eqn *e = &ir->eqns[ei];
    int outer;
    int64_t len;
    bool row_reduce = fuse_is_row_reduce(ir, e, &outer, &len);
    int lead;
    int64_t cols;
    bool col_reduce = !row_reduce && !c->no_cols && fuse_is_col_reduce(ir, e, &lead, &cols);
    if (!row_reduce && !col_reduce && !fuse_is_elementwise(e->prim) && !fuse_is_leaf_map(e->prim)) return -1;
    const rt_aval *out = &ir->vars[e->out];
    const int *in = ir_eqn_inputs(ir, e);
    int earliest = 0;
    for (int i = 0; i < e->n_in; i++) {
        if (c->kernel_of[in[i]] > earliest) earliest = c->kernel_of[in[i]];
        if (pending[in[i]] < 0) continue;
        /* a deferred leaf joins this kernel: no earlier than its operands */
        const ir_eqn *l = &ir->eqns[pending[in[i]]];
        for (int q = 0; q < l->n_in; q++)
            if (c->kernel_of[ir_eqn_inputs(ir, l)[q]] > earliest) earliest = c->kernel_of[ir_eqn_inputs(ir, l)[q]];
    }
    for (int k = c->n_kernels - 1; k >= earliest; k--) {
        const kernel *K = &c->kernels[k];
        if (K->kind == KERNEL_ROWS) {
            if (rows_accept(c, k, ei)) return k;
            continue;
        }
        if (K->kind == KERNEL_COLS) {
            if (cols_accept(c, k, ei)) return k;
            continue;
        }
        if (K->kind != KERNEL_LOOP) continue;
        if (row_reduce || col_reduce) {
            if (rt_aval_same_shape(&K->space, &ir->vars[in[0]])) return k; /* becomes ROWS */
            continue;
        }
        if (!rt_aval_same_shape(&K->space, out)) continue;
        int ok = 1;
        if (fuse_is_leaf_map(e->prim))
            for (int i = 0; i < e->n_in; i++) ok &= c->kernel_of[in[i]] != k;
        if (ok) return k;
        /* a leaf reading this kernel's value cannot join it, and joining
         * an earlier kernel would reorder; start a new one */
        return -1;
    }
    return -1;
}

static int add_unique(cj_ctx *ctx, int **arr, int *n, int v) {
    for (int i = 0; i < *n; i++)
        if ((*arr)[i] == v) return 0;
    int *a = rt_realloc(ctx->mem, *arr, sizeof(int) * (size_t)*n, sizeof(int) * (size_t)(*n + 1));
    if (!a) return core_oom(ctx, "jit: fusion");
    a[(*n)++] = v;
    *arr = a;
    return 0;
}

/* ---- placing equations ----
 * A data-movement leaf is not placed where it appears in the IR but
 * deferred to its first reader: an elementwise equation of a LOOP kernel
 * over the leaf's shape takes it into its own kernel (the leaf is then a
 * per-tile value read through its index map, never a buffer), so a
 * broadcast or slice of a buffer made early (a hessian's basis, a
 * transposed weight) does not become a kernel of its own whose result is
 * written out only to be read back. Any other reader (a leaf, which wants
 * other indices; a reduction; a SINGLE kernel), or a leaf whose operand
 * lives in the reader's kernel, places the leaf first as before. Leaves
 * nothing reads (program outputs) are placed at the end. */
typedef struct placer {
    cj_ctx *ctx;
    compiled *c;
    int *pending; /* per variable: the deferred leaf defining it, or -1 */
    int *readers; /* per variable: operand slots reading it */
} placer;

/* Does leaf l read, directly or through deferred one-operand leaves, a
 * value placed in a ROWS kernel? Then nothing composes onto l: a leaf of a
 * per-row value there is taken by its parameters (rows_accept), not its
 * map, so a rev between two reshapes of row sums would be lost. */
static bool reads_rows_value(const placer *pl, int l) {
    const compiled *c = pl->c;
    const ir_func *ir = c->ir;
    int u = ir_eqn_inputs(ir, &ir->eqns[l])[0];
    while (pl->pending[u] >= 0 && ir->eqns[pl->pending[u]].n_in == 1)
        u = ir_eqn_inputs(ir, &ir->eqns[pl->pending[u]])[0];
    int under = c->kernel_of[u];
    return under >= 0 && c->kernels[under].kind == KERNEL_ROWS;
}

/* Each operand of leaf e that is a deferred leaf l of one operand is read
 * as l's operand instead, through the composed map (prim_index_map_compose), when the
 * composition is exact: a transpose of a reshape or a slice of a
 * broadcast then reads the buffer itself, and l is needed only if
 * something else reads it. e's operand in c->ir (the compiled program's
 * own copy) is rewired; its map is kept in c->composed. Repeats down a
 * chain of leaves. 0, or -1 on out of memory. */
static int compose_through(placer *pl, int ei) {
    compiled *c = pl->c;
    ir_func *ir = c->ir;
    ir_eqn *e = &ir->eqns[ei];
    int *in = (int *)ir_eqn_inputs(ir, e); /* the compiled program owns this IR */
    for (int i = 0; i < e->n_in; i++) {
        while (pl->pending[in[i]] >= 0) {
            int l = pl->pending[in[i]];
            if (ir->eqns[l].n_in != 1) break;
            /* not onto a per-row value of a ROWS kernel: a leaf reading one
             * there is placed by its parameters (rows_accept), not its map */
            if (reads_rows_value(pl, l)) break;
            prim_index_map outer, inner, m;
            fuse_leaf_index_map(c, ei, i, &outer);
            fuse_leaf_index_map(c, l, 0, &inner);
            if (!prim_index_map_compose(&outer, &ir->vars[e->out], &ir->vars[in[i]], &inner, &m)) break;
            if (!c->composed[ei]) { /* every operand's map, then this one's replaced */
                prim_index_map *all = rt_alloc(pl->ctx->mem, sizeof m * (size_t)e->n_in);
                if (!all) return core_oom(pl->ctx, "jit: fusion");
                for (int q = 0; q < e->n_in; q++) fuse_leaf_index_map(c, ei, q, &all[q]);
                c->composed[ei] = all;
            }
            c->composed[ei][i] = m;
            int src = ir_eqn_inputs(ir, &ir->eqns[l])[0];
            pl->readers[in[i]]--;
            pl->readers[src]++;
            in[i] = src;
        }
    }
    return 0;
}

static int place(placer *pl, int ei);

/* Places the deferred leaf defining u on its own terms. */
static int force(placer *pl, int u) {
    int l = pl->pending[u];
    if (l < 0) return 0;
    pl->pending[u] = -1;
    return place(pl, l);
}

/* Can deferred leaf l join kernel k (-1: a new kernel over `space`)? */
static bool sinks_into(const compiled *c, int l, int k, const rt_aval *space) {
    const ir_func *ir = c->ir;
    const ir_eqn *e = &ir->eqns[l];
    /* (a COLS kernel's space is its full space: a leaf over it reads buffers) */
    if (k >= 0 && c->kernels[k].kind != KERNEL_LOOP && c->kernels[k].kind != KERNEL_COLS) return false;
    if (!rt_aval_same_shape(k >= 0 ? &c->kernels[k].space : space, &ir->vars[e->out])) return false;
    for (int q = 0; q < e->n_in; q++)
        if (k >= 0 && c->kernel_of[ir_eqn_inputs(ir, e)[q]] == k) return false;
    return true;
}

static int place(placer *pl, int ei) {
    compiled *c = pl->c;
    const ir_func *ir = c->ir;
    const ir_eqn *e = &ir->eqns[ei];
    const int *in = ir_eqn_inputs(ir, e);
    int outer;
    int64_t len;
    bool row_reduce = fuse_is_row_reduce(ir, e, &outer, &len);
    int lead;
    int64_t cols;
    bool col_reduce = !row_reduce && !c->no_cols && fuse_is_col_reduce(ir, e, &lead, &cols);
    bool reader = fuse_is_elementwise(e->prim) && !row_reduce;
    if (fuse_is_leaf_map(e->prim) && compose_through(pl, ei) != 0) return -1;
    /* deferred operands: their own deferred operands are placed first (a
     * leaf reads buffers), and all of them when e cannot take them in */
    for (int i = 0; i < e->n_in; i++) {
        int l = pl->pending[in[i]];
        if (l < 0) continue;
        if (!reader) {
            if (force(pl, in[i]) != 0) return -1;
            continue;
        }
        if (compose_through(pl, l) != 0) return -1; /* it may read through its own deferred operands */
        for (int q = 0; q < ir->eqns[l].n_in; q++)
            if (force(pl, ir_eqn_inputs(ir, &ir->eqns[l])[q]) != 0) return -1;
    }
    int k;
    for (;;) {
        /* an equation of several results (a control-flow construct) is a
         * SINGLE kernel of its own, which writes them all */
        k = e->n_out > 1 || prim_rules[e->prim].multiple_results ? -1 : pick_kernel(c, pl->pending, ei);
        bool again = false;
        for (int i = 0; i < e->n_in && !again; i++) {
            if (pl->pending[in[i]] < 0 || sinks_into(c, pl->pending[in[i]], k, &ir->vars[e->out])) continue;
            if (force(pl, in[i]) != 0) return -1;
            again = true; /* placed elsewhere: e may need a later kernel */
        }
        if (!again) break;
    }
    if (k < 0) {
        k = c->n_kernels++;
        kernel *K = &c->kernels[k];
        K->kind = fuse_is_elementwise(e->prim) || fuse_is_leaf_map(e->prim) ? KERNEL_LOOP : KERNEL_SINGLE;
        K->space = ir->vars[e->out];
        if (row_reduce || col_reduce) {
            K->kind = row_reduce ? KERNEL_ROWS : KERNEL_COLS;
            K->space = ir->vars[in[0]];
        }
    }
    kernel *K = &c->kernels[k];
    if (row_reduce && K->kind != KERNEL_ROWS) { /* the producing loop now runs by rows */
        K->kind = KERNEL_ROWS;
    }
    if (row_reduce) {
        K->outer_rank = outer;
        K->row_len = len;
    }
    if (col_reduce) { /* the producing loop now runs by blocks of rows */
        K->kind = KERNEL_COLS;
        K->outer_rank = lead;
        K->row_len = cols;
    }
    for (int i = 0; i < e->n_in; i++) { /* the deferred leaves it reads, just before it */
        int l = pl->pending[in[i]];
        if (l < 0) continue;
        pl->pending[in[i]] = -1;
        if (kernel_add_eqn(pl->ctx, K, l) != 0) return -1;
        c->kernel_of[in[i]] = k;
    }
    if (kernel_add_eqn(pl->ctx, K, ei) != 0) return -1;
    for (int j = 0; j < e->n_out; j++) c->kernel_of[e->out + j] = k;
    return 0;
}

int fuse_kernels(cj_ctx *ctx, compiled *c) {
    const ir_func *ir = c->ir;
    int cap = ir->n_eqns ? ir->n_eqns : 1;
    c->kernels = rt_calloc(ctx->mem, sizeof(kernel) * (size_t)cap);
    c->kernel_of = rt_alloc(ctx->mem, sizeof(int) * (size_t)(ir->n_vars + 1));
    size_t nv = (size_t)ir->n_vars + 1;
    int *pending = rt_alloc(ctx->mem, sizeof(int) * nv), *readers = rt_calloc(ctx->mem, sizeof(int) * nv);
    c->composed = rt_calloc(ctx->mem, sizeof(prim_index_map *) * (size_t)cap);
    if (!c->kernels || !c->kernel_of || !pending || !readers || !c->composed) {
        if (pending) rt_free(ctx->mem, pending, sizeof(int) * nv);
        if (readers) rt_free(ctx->mem, readers, sizeof(int) * nv);
        return core_oom(ctx, "jit: fusion");
    }
    for (int v = 0; v < ir->n_vars; v++) c->kernel_of[v] = pending[v] = -1;
    for (int ei = 0; ei < ir->n_eqns; ei++)
        for (int i = 0; i < ir->eqns[ei].n_in; i++) readers[ir_eqn_inputs(ir, &ir->eqns[ei])[i]]++;
    for (int i = 0; i < ir->n_out; i++) readers[ir->out[i]]++;
    placer pl = {ctx, c, pending, readers};
    int status = 0;
    for (int ei = 0; ei < ir->n_eqns && status == 0; ei++) {
        const ir_eqn *e = &ir->eqns[ei];
        if (fuse_is_leaf_map(e->prim)) pending[e->out] = ei;
        else status = place(&pl, ei);
    }
    /* leaves no equation took in: program outputs are placed; one that
     * every reader composed away is read by nothing and runs nowhere */
    for (int v = ir->n_vars - 1; v >= 0 && status == 0; v--) /* outputs read through other leaves first */
        if (pending[v] >= 0 && readers[v] > 0) status = compose_through(&pl, pending[v]);
    for (int v = ir->n_vars - 1; v >= 0; v--) { /* later leaves first: a dead one reads nothing */
        if (pending[v] < 0 || readers[v] > 0) continue;
        const ir_eqn *l = &ir->eqns[pending[v]];
        for (int i = 0; i < l->n_in; i++) readers[ir_eqn_inputs(ir, l)[i]]--;
    }
    for (int v = 0; v < ir->n_vars && status == 0; v++)
        if (pending[v] >= 0 && readers[v] > 0) status = force(&pl, v);
    rt_free(ctx->mem, pending, sizeof(int) * nv);
    rt_free(ctx->mem, readers, sizeof(int) * nv);
    if (status != 0) return -1;
    return fuse_kernel_boundaries(ctx, c);
}

/* Each kernel's in and out lists from its equations (what crosses its
 * boundary, what the program returns, every result of a SINGLE kernel),
 * rebuilt from scratch. 0, or -1 on out of memory. */
int fuse_kernel_boundaries(cj_ctx *ctx, compiled *c) {
    const ir_func *ir = c->ir;
    for (int k = 0; k < c->n_kernels; k++) {
        kernel *K = &c->kernels[k];
        if (K->in) rt_free(ctx->mem, K->in, sizeof(int) * (size_t)K->n_in);
        if (K->out) rt_free(ctx->mem, K->out, sizeof(int) * (size_t)K->n_out);
        K->in = K->out = NULL;
        K->n_in = K->n_out = 0;
    }
    /* inputs and outputs of each kernel */
    for (int k = 0; k < c->n_kernels; k++) {
        kernel *K = &c->kernels[k];
        for (int j = 0; j < K->n_eqns; j++) {
            const ir_eqn *e = &ir->eqns[K->eqns[j]];
            const int *in = ir_eqn_inputs(ir, e);
            for (int i = 0; i < e->n_in; i++) {
                int v = in[i];
                if (c->kernel_of[v] != k && add_unique(ctx, &K->in, &K->n_in, v) != 0) return -1;
                if (c->kernel_of[v] >= 0 && c->kernel_of[v] != k) {
                    kernel *P = &c->kernels[c->kernel_of[v]];
                    if (add_unique(ctx, &P->out, &P->n_out, v) != 0) return -1;
                }
            }
        }
    }
    /* a SINGLE kernel's results are always materialised (its kernel writes
     * whole buffers), even when nothing reads them */
    for (int k = 0; k < c->n_kernels; k++) {
        kernel *K = &c->kernels[k];
        for (int j = 0; K->kind == KERNEL_SINGLE && j < K->n_eqns; j++)
            for (int r = 0; r < ir->eqns[K->eqns[j]].n_out; r++)
                if (add_unique(ctx, &K->out, &K->n_out, ir->eqns[K->eqns[j]].out + r) != 0) return -1;
    }
    for (int i = 0; i < ir->n_out; i++) {
        int v = ir->out[i];
        if (c->kernel_of[v] >= 0 &&
            add_unique(ctx, &c->kernels[c->kernel_of[v]].out, &c->kernels[c->kernel_of[v]].n_out, v) != 0)
            return -1;
    }
    return 0;
}
