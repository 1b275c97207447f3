/* verify.c — the verifier of the compiled form (compiler layer).
 *
 *   inline → hoist → simplify → fuse → schedule → epilogue → plan → analyse → donate
 *                                ^ from here on, compiled_verify after every pass
 *
 * ir_verify checks the IR; this checks what the passes after it build on
 * top: the kernels, their schedule and the buffer plan. The pipeline
 * (compiler.c) calls it after every pass in debug builds, in the tests and
 * under CJAX_VERIFY=1, so a pass that breaks an invariant is caught at that
 * pass, with a message naming it and the kernel, instead of as a wrong
 * result or a crash in a backend later. What is checked grows with the
 * stage the program has reached (c->stage):
 *
 *   kernels   every equation is in exactly one kernel, and kernel_of says
 *             which (but a data-movement leaf every reader composed away,
 *             which nothing running reads, is in none); a kernel reads only values defined before it in the
 *             schedule (or earlier in itself); its in and out lists are the
 *             values crossing its boundary, and every value another kernel
 *             or the program's result needs is in its producer's out list;
 *             each kind's form: LOOP equations share the iteration space
 *             and are elementwise or data-movement leaves reading buffers;
 *             ROWS equations are per row or per row element with row
 *             reductions over the kernel's trailing axes; a SINGLE kernel
 *             is one equation (a control-flow construct is one equation
 *             of all its outputs); a DOT_EPILOGUE kernel starts with
 *             its dot, followed by LOOP equations over the dot's shape;
 *             COLS equations are over the space or per column, with
 *             reductions over the kernel's leading axes.
 *   planned   inputs, constants and outputs have their homes (no output is
 *             HOME_NONE); every buffer a kernel reads or writes has one;
 *             arena buffers lie inside the arena and their live ranges cover
 *             their writer and every reader; no two arena buffers live at
 *             the same kernel overlap in bytes, unless the later one took
 *             the earlier one's very block in place where that is safe
 *             (checked here by the rule plan.c states, not by asking it);
 *             a temporary placed in an output's buffer lies inside it, dies
 *             before the output's kernel, and (once donations are known) is
 *             written after a donated input's last read when the output
 *             takes that input's buffer; temporaries in one buffer obey
 *             the arena's overlap rule among themselves; a result sharing
 *             an argument's buffer is a barrier of it, read no later than
 *             the argument and before a donation writes over it.
 *   analysed  the temporaries of the analysis are the arena.
 *   donated   each donation pairs an output array with an argument of its
 *             dtype and shape, each argument at most once.
 *
 * The checks are linear in the program except the arena overlap check,
 * which compares pairs of arena buffers (a few hundred in large programs).
 * Verification reads only; a failure is CJ_ERR_INTERNAL. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "program.h"

typedef struct checker {
    cj_ctx *ctx;
    const compiled *c;
    const char *after; /* the pass that just ran */
    int *names;        /* printer ordinals of the variables */
    int *where;        /* per equation: its kernel (-1: none yet) */
    int *pos;          /* per equation: its position in that kernel */
    int *def;          /* per variable: the equation defining it (-1: input or constant) */
} checker;

/* Does an equation placed in a kernel, or the program's outputs, read v? */
static bool read_by_kernel_or_output(const compiled *c, int v) {
    const ir_func *ir = c->ir;
    for (int i = 0; i < ir->n_out; i++)
        if (ir->out[i] == v) return true;
    for (int k = 0; k < c->n_kernels; k++)
        for (int j = 0; j < c->kernels[k].n_eqns; j++) {
            const ir_eqn *e = &ir->eqns[c->kernels[k].eqns[j]];
            for (int q = 0; q < e->n_in; q++)
                if (ir_eqn_inputs(ir, e)[q] == v) return true;
        }
    return false;
}

/* Records the failure: the pass, the kernel (k >= 0) and what is wrong. */
__attribute__((format(printf, 3, 4)))
static int bad(const checker *ck, int k, const char *fmt, ...) {
    char what[320], where[160] = "";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (k >= 0 && k < ck->c->n_kernels) {
        const kernel *K = &ck->c->kernels[k];
        char space[96];
        rt_aval_str(&K->space, space, sizeof space);
        snprintf(where, sizeof where, "kernel %d (%s %s): ", k, kernel_kind_name(K->kind), space);
    } else if (k >= 0) {
        snprintf(where, sizeof where, "kernel %d: ", k);
    }
    return core_error(ck->ctx, CJ_ERR_INTERNAL, "compile: the program after pass '%s' is malformed: %s%s",
                      ck->after, where, what);
}

/* A variable as the dumps name it: "c:f32[4,3]". */
static const char *vname(const checker *ck, int v, char buf[64]) {
    char n[16], t[40];
    ir_name_str(ck->names[v], n);
    rt_aval_str(&ck->c->ir->vars[v], t, sizeof t);
    snprintf(buf, 64, "%s:%s", n, t);
    return buf;
}

static bool has(const int *list, int n, int v) {
    for (int i = 0; i < n; i++)
        if (list[i] == v) return true;
    return false;
}

static bool has_duplicate(const int *list, int n, int *dup) {
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (list[i] == list[j]) {
                *dup = list[i];
                return true;
            }
    return false;
}

static bool is_program_output(const ir_func *ir, int v) { return has(ir->out, ir->n_out, v); }

/* Every equation in exactly one kernel, kernel_of naming it. */
static int check_membership(checker *ck) {
    const compiled *c = ck->c;
    const ir_func *ir = c->ir;
    if (c->n_kernels < 0 || c->n_kernels > (ir->n_eqns ? ir->n_eqns : 1))
        return bad(ck, -1, "%d kernels for %d equations", c->n_kernels, ir->n_eqns);
    if (!c->kernels && c->n_kernels) return bad(ck, -1, "no kernel array");
    if (!c->kernel_of) return bad(ck, -1, "no kernel_of table");
    for (int k = 0; k < c->n_kernels; k++) {
        const kernel *K = &c->kernels[k];
        if (K->n_eqns < 1 || !K->eqns) return bad(ck, k, "no equations");
        for (int j = 0; j < K->n_eqns; j++) {
            int e = K->eqns[j];
            if (e < 0 || e >= ir->n_eqns) return bad(ck, k, "equation index %d out of range (%d equations)", e, ir->n_eqns);
            if (ck->where[e] >= 0)
                return bad(ck, k, "equation %d (%s) is also in kernel %d", e, prim_names[ir->eqns[e].prim], ck->where[e]);
            ck->where[e] = k;
            ck->pos[e] = j;
        }
    }
    char b[64];
    for (int e = 0; e < ir->n_eqns; e++) {
        int v = ir->eqns[e].out;
        if (ck->where[e] < 0) {
            /* fusion leaves out a leaf every reader composed away (they read
             * its operand through the composed map): it must be read by
             * nothing that runs */
            if (!fuse_is_leaf_map(ir->eqns[e].prim) || c->kernel_of[v] != -1 || read_by_kernel_or_output(c, v))
                return bad(ck, -1, "equation %d (%s) is in no kernel", e, prim_names[ir->eqns[e].prim]);
            continue;
        }
        for (int r = 0; r < ir->eqns[e].n_out; r++) { /* every result of the equation */
            v = ir->eqns[e].out + r;
            if (c->kernel_of[v] != ck->where[e])
                return bad(ck, ck->where[e], "kernel_of says %s is defined by kernel %d", vname(ck, v, b),
                           c->kernel_of[v]);
        }
    }
    for (int i = 0; i < ir->n_in; i++)
        if (c->kernel_of[ir->in[i]] != -1) return bad(ck, -1, "kernel_of gives input %d a kernel", i);
    for (int i = 0; i < ir->n_consts; i++)
        if (c->kernel_of[ir->consts[i].var] != -1) return bad(ck, -1, "kernel_of gives constant %d a kernel", i);
    return 0;
}

/* Reads come from before (schedule order, then order in the kernel); the
 * in and out lists are exactly the boundary crossings. */
static int check_dataflow(checker *ck) {
    const compiled *c = ck->c;
    const ir_func *ir = c->ir;
    char b[64];
    for (int k = 0; k < c->n_kernels; k++) {
        const kernel *K = &c->kernels[k];
        int dup;
        if (K->n_in < 0 || K->n_out < 0 || (K->n_in && !K->in) || (K->n_out && !K->out))
            return bad(ck, k, "bad in/out lists (%d, %d)", K->n_in, K->n_out);
        if (has_duplicate(K->in, K->n_in, &dup)) return bad(ck, k, "reads %s twice in its list", vname(ck, dup, b));
        if (has_duplicate(K->out, K->n_out, &dup)) return bad(ck, k, "writes %s twice in its list", vname(ck, dup, b));
        for (int j = 0; j < K->n_eqns; j++) {
            const ir_eqn *e = &ir->eqns[K->eqns[j]];
            const int *in = ir_eqn_inputs(ir, e);
            for (int i = 0; i < e->n_in; i++) {
                int v = in[i], p = c->kernel_of[v], d = ck->def[v];
                if (p >= 0 && d < 0)
                    return bad(ck, k, "kernel_of gives %s, which no equation defines, kernel %d", vname(ck, v, b), p);
                if (p > k)
                    return bad(ck, k, "equation %d (%s) reads %s, defined later by kernel %d", K->eqns[j],
                               prim_names[e->prim], vname(ck, v, b), p);
                if (p == k && ck->pos[d] >= j)
                    return bad(ck, k, "equation %d (%s) reads %s before its own kernel defines it", K->eqns[j],
                               prim_names[e->prim], vname(ck, v, b));
                if (p != k && !has(K->in, K->n_in, v))
                    return bad(ck, k, "equation %d (%s) reads %s, which is not in the kernel's inputs", K->eqns[j],
                               prim_names[e->prim], vname(ck, v, b));
                if (p >= 0 && p != k && !has(c->kernels[p].out, c->kernels[p].n_out, v))
                    return bad(ck, p, "%s is read by kernel %d but not in this kernel's outputs", vname(ck, v, b), k);
            }
        }
        for (int i = 0; i < K->n_in; i++) {
            int v = K->in[i];
            if (v < 0 || v >= ir->n_vars) return bad(ck, k, "input variable %d out of range", v);
            if (c->kernel_of[v] == k) return bad(ck, k, "lists its own value %s as an input", vname(ck, v, b));
            bool read = false;
            for (int j = 0; j < K->n_eqns && !read; j++) {
                const ir_eqn *e = &ir->eqns[K->eqns[j]];
                read = has(ir_eqn_inputs(ir, e), e->n_in, v);
            }
            if (!read) return bad(ck, k, "lists %s as an input but no equation reads it", vname(ck, v, b));
        }
        for (int i = 0; i < K->n_out; i++) {
            int v = K->out[i];
            if (v < 0 || v >= ir->n_vars || c->kernel_of[v] != k)
                return bad(ck, k, "lists variable %d as an output but does not define it", v);
        }
        /* a SINGLE kernel writes whole buffers: all its results are outputs */
        for (int j = 0; K->kind == KERNEL_SINGLE && j < K->n_eqns; j++)
            for (int r = 0; r < ir->eqns[K->eqns[j]].n_out; r++)
                if (!has(K->out, K->n_out, ir->eqns[K->eqns[j]].out + r))
                    return bad(ck, k, "does not list its result %s as an output",
                               vname(ck, ir->eqns[K->eqns[j]].out + r, b));
    }
    for (int i = 0; i < ir->n_out; i++) {
        int v = ir->out[i], p = c->kernel_of[v];
        if (p >= 0 && !has(c->kernels[p].out, c->kernels[p].n_out, v))
            return bad(ck, p, "program output %d (%s) is not in its kernel's outputs", i, vname(ck, v, b));
    }
    return 0;
}

/* An equation of a LOOP kernel (or a DOT_EPILOGUE's epilogue): elementwise
 * or a leaf over the kernel's space, a leaf reading only buffers (a value
 * of its own kernel exists per tile, not at the other indices a leaf
 * reads). */
static int check_loop_eqn(const checker *ck, int k, int j) {
    const compiled *c = ck->c;
    const ir_func *ir = c->ir;
    const kernel *K = &c->kernels[k];
    const ir_eqn *e = &ir->eqns[K->eqns[j]];
    char b[64];
    if (!fuse_is_elementwise(e->prim) && !fuse_is_leaf_map(e->prim))
        return bad(ck, k, "equation %d (%s) is neither elementwise nor a data-movement leaf", K->eqns[j],
                   prim_names[e->prim]);
    if (!rt_aval_same_shape(&ir->vars[e->out], &K->space))
        return bad(ck, k, "equation %d (%s) defines %s, outside the kernel's iteration space", K->eqns[j],
                   prim_names[e->prim], vname(ck, e->out, b));
    if (fuse_is_leaf_map(e->prim)) {
        const int *in = ir_eqn_inputs(ir, e);
        for (int i = 0; i < e->n_in; i++)
            if (c->kernel_of[in[i]] == k)
                return bad(ck, k, "leaf equation %d (%s) reads %s of its own kernel, not a buffer", K->eqns[j],
                           prim_names[e->prim], vname(ck, in[i], b));
    }
    return 0;
}

static int check_kind(const checker *ck, int k) {
    const compiled *c = ck->c;
    const ir_func *ir = c->ir;
    const kernel *K = &c->kernels[k];
    char b[64];
    switch (K->kind) {
    case KERNEL_LOOP:
        for (int j = 0; j < K->n_eqns; j++)
            if (check_loop_eqn(ck, k, j) != 0) return -1;
        return 0;
    case KERNEL_ROWS: {
        if (K->outer_rank < 0 || K->outer_rank >= K->space.rank)
            return bad(ck, k, "outer rank %d for a space of rank %d", K->outer_rank, K->space.rank);
        int64_t len = 1;
        for (int d = K->outer_rank; d < K->space.rank; d++) len *= K->space.dims[d];
        if (len != K->row_len) return bad(ck, k, "row length %lld, but the rows hold %lld", (long long)K->row_len, (long long)len);
        int reductions = 0;
        for (int j = 0; j < K->n_eqns; j++) {
            const ir_eqn *e = &ir->eqns[K->eqns[j]];
            int outer;
            int64_t row;
            if (fuse_is_row_reduce(ir, e, &outer, &row)) {
                reductions++;
                if (outer != K->outer_rank || fuse_row_form(K, &ir->vars[ir_eqn_inputs(ir, e)[0]]) != FORM_ROW)
                    return bad(ck, k, "reduction %d (%s) is not over the kernel's rows", K->eqns[j], prim_names[e->prim]);
                continue;
            }
            if (!fuse_is_elementwise(e->prim) && !fuse_is_leaf_map(e->prim))
                return bad(ck, k, "equation %d (%s) is neither elementwise, a leaf, nor a row reduction", K->eqns[j],
                           prim_names[e->prim]);
            row_form f = fuse_row_form(K, &ir->vars[e->out]);
            if (f != FORM_ROW && f != FORM_SCALAR)
                return bad(ck, k, "equation %d (%s) defines %s, neither a row nor one element per row", K->eqns[j],
                           prim_names[e->prim], vname(ck, e->out, b));
        }
        if (!reductions) return bad(ck, k, "a rows kernel without a row reduction");
        return 0;
    }
    case KERNEL_COLS: {
        if (K->outer_rank < 1 || K->outer_rank >= K->space.rank)
            return bad(ck, k, "%d leading axes reduced in a space of rank %d", K->outer_rank, K->space.rank);
        int64_t cols = 1;
        for (int d = K->outer_rank; d < K->space.rank; d++) cols *= K->space.dims[d];
        if (cols != K->row_len)
            return bad(ck, k, "%lld columns, but the kept axes hold %lld", (long long)K->row_len, (long long)cols);
        int reductions = 0;
        for (int j = 0; j < K->n_eqns; j++) {
            const ir_eqn *e = &ir->eqns[K->eqns[j]];
            int lead;
            int64_t n;
            if (fuse_is_col_reduce(ir, e, &lead, &n)) {
                reductions++;
                if (lead != K->outer_rank || fuse_col_form(K, &ir->vars[ir_eqn_inputs(ir, e)[0]]) != FORM_ROW)
                    return bad(ck, k, "reduction %d (%s) is not over the kernel's leading axes", K->eqns[j],
                               prim_names[e->prim]);
                continue;
            }
            row_form f = fuse_col_form(K, &ir->vars[e->out]);
            if (fuse_is_leaf_map(e->prim)) {
                if (f != FORM_ROW || check_loop_eqn(ck, k, j) != 0)
                    return f != FORM_ROW ? bad(ck, k, "leaf equation %d (%s) is not over the kernel's space",
                                               K->eqns[j], prim_names[e->prim])
                                         : -1;
                continue;
            }
            if (!fuse_is_elementwise(e->prim))
                return bad(ck, k, "equation %d (%s) is neither elementwise, a leaf, nor a column reduction",
                           K->eqns[j], prim_names[e->prim]);
            if (f != FORM_ROW && f != FORM_SCALAR)
                return bad(ck, k, "equation %d (%s) defines %s, neither over the space nor one element per column",
                           K->eqns[j], prim_names[e->prim], vname(ck, e->out, b));
            const int *in = ir_eqn_inputs(ir, e);
            for (int i = 0; i < e->n_in; i++) {
                row_form g = fuse_col_form(K, &ir->vars[in[i]]);
                if (g != f && g != FORM_RANK0)
                    return bad(ck, k, "equation %d (%s) reads %s, of another form than its result", K->eqns[j],
                               prim_names[e->prim], vname(ck, in[i], b));
            }
        }
        if (!reductions) return bad(ck, k, "a cols kernel without a column reduction");
        return 0;
    }
    case KERNEL_SINGLE:
        /* one equation, however many results (a control-flow construct is
         * one equation of all its outputs) */
        if (K->n_eqns != 1)
            return bad(ck, k, "a single kernel of %d equations (%s, ...)", K->n_eqns,
                       prim_names[ir->eqns[K->eqns[0]].prim]);
        return 0;
    case KERNEL_DOT_EPILOGUE: {
        const ir_eqn *d = &ir->eqns[K->eqns[0]];
        if (d->prim != PRIM_DOT_GENERAL)
            return bad(ck, k, "its first equation is %s, not a dot", prim_names[d->prim]);
        if (K->n_eqns < 2) return bad(ck, k, "a dot without an epilogue");
        if (!rt_aval_same_shape(&ir->vars[d->out], &K->space))
            return bad(ck, k, "the dot's result %s is not the epilogue's space", vname(ck, d->out, b));
        if (K->n_blocks < 1) return bad(ck, k, "%lld blocks", (long long)K->n_blocks);
        for (int j = 1; j < K->n_eqns; j++)
            if (check_loop_eqn(ck, k, j) != 0) return -1;
        return 0;
    }
    }
    return bad(ck, k, "unknown kernel kind %d", (int)K->kind);
}

/* May v share operand u's block? Only where the plan's own rule allows it
 * (plan_may_overwrite), and only for an operand the kernel reads. */
static bool in_place_is_safe(const compiled *c, int u, int v) {
    int k = c->kernel_of[v];
    return k >= 0 && has(c->kernels[k].in, c->kernels[k].n_in, u) && plan_may_overwrite(c, k, u, v);
}

/* A temporary in an output's buffer (plan.c): inside it, dead before the
 * kernel writing the output starts, and, when the output is written into
 * a donated input's buffer, written only after that input's last read.
 * (The plan used the pairs the donate pass makes, donation_pairs; they are
 * checked once that pass has recorded them.) */
static int check_shared(const checker *ck, int v);

static int check_hosted(const checker *ck, int v) {
    const compiled *c = ck->c;
    const ir_func *ir = c->ir;
    char b[64], b2[64];
    int h = plan_host(c, v), k = c->kernel_of[v];
    if (h < ir->n_vars && (c->home[h] == HOME_INPUT || c->home[h] == HOME_CONST)) return check_shared(ck, v);
    if (h >= ir->n_vars || c->home[h] != HOME_OUTPUT || !is_program_output(ir, h) || c->kernel_of[h] < 0)
        return bad(ck, k, "%s is placed in the buffer of %s, which is not an output array", vname(ck, v, b),
                   h < ir->n_vars ? vname(ck, h, b2) : "?");
    if (c->no_output_scratch)
        return bad(ck, k, "%s is placed in output %s's buffer in a program that keeps its temporaries in the arena",
                   vname(ck, v, b), vname(ck, h, b2));
    size_t end = c->offset[v] + rt_aval_nbytes(&ir->vars[v]), cap = rt_aval_nbytes(&ir->vars[h]);
    if (end > cap)
        return bad(ck, k, "%s at %zu..%zu lies outside output %s's buffer of %zu bytes", vname(ck, v, b), c->offset[v],
                   end, vname(ck, h, b2), cap);
    if (c->last_use[v] >= c->kernel_of[h])
        return bad(ck, k, "%s (kernels %d..%d) lives in output %s's buffer, which kernel %d writes", vname(ck, v, b),
                   c->first_use[v], c->last_use[v], vname(ck, h, b2), c->kernel_of[h]);
    int i = c->donor ? c->donor[h] : -1;
    if (i >= 0 && i < ir->n_in && c->first_use[v] <= c->last_use[ir->in[i]])
        return bad(ck, k, "%s (kernels %d..%d) lives in output %s's buffer, donated input %d's, which is read until kernel %d",
                   vname(ck, v, b), c->first_use[v], c->last_use[v], vname(ck, h, b2), i, c->last_use[ir->in[i]]);
    return 0;
}

/* A result sharing an argument's or a constant's buffer (plan.c): an
 * optimization_barrier of it (or of another such result), at offset 0,
 * in a program that may share; the argument counts as read until the
 * result's last reader, and a donated argument's buffer is written only
 * after that. */
static int check_shared(const checker *ck, int v) {
    const compiled *c = ck->c;
    const ir_func *ir = c->ir;
    char b[64], b2[64];
    int h = plan_host(c, v), k = c->kernel_of[v];
    const ir_eqn *e = &ir->eqns[ck->def[v]];
    int u = ir_eqn_inputs(ir, e)[0];
    if (!prim_lower(e->prim)->result_is_operand0 || (u != h && plan_host(c, u) != h))
        return bad(ck, k, "%s shares %s's buffer but is not a barrier of it", vname(ck, v, b), vname(ck, h, b2));
    if (c->no_output_scratch || c->offset[v] != 0)
        return bad(ck, k, "%s shares %s's buffer at offset %zu%s", vname(ck, v, b), vname(ck, h, b2), c->offset[v],
                   c->no_output_scratch ? " in a program that keeps its temporaries in the arena" : "");
    if (c->last_use[h] < c->last_use[v])
        return bad(ck, k, "%s shares %s's buffer and is read until kernel %d, but %s only until kernel %d",
                   vname(ck, v, b), vname(ck, h, b2), c->last_use[v], vname(ck, h, b2), c->last_use[h]);
    for (int o = 0; c->donor && o < ir->n_out; o++) {
        int w = ir->out[o], i = c->donor[w];
        if (i >= 0 && i < ir->n_in && ir->in[i] == h && c->kernel_of[w] <= c->last_use[v])
            return bad(ck, k, "%s shares donated input %d's buffer, which %s (kernel %d) writes before its last read at kernel %d",
                       vname(ck, v, b), i, vname(ck, w, b2), c->kernel_of[w], c->last_use[v]);
    }
    return 0;
}

/* Homes, live ranges, and no overlap in the arena except a safe in place. */
static int check_plan(const checker *ck) {
    const compiled *c = ck->c;
    const ir_func *ir = c->ir;
    char b[64], b2[64];
    if (!c->home || !c->offset || !c->first_use || !c->last_use) return bad(ck, -1, "no buffer plan");
    for (int i = 0; i < ir->n_in; i++)
        if (c->home[ir->in[i]] != HOME_INPUT) return bad(ck, -1, "input %d (%s) is not at home in its argument", i, vname(ck, ir->in[i], b));
    for (int i = 0; i < ir->n_consts; i++)
        if (c->home[ir->consts[i].var] != HOME_CONST) return bad(ck, -1, "constant %s is not at home in its array", vname(ck, ir->consts[i].var, b));
    for (int i = 0; i < ir->n_out; i++)
        if (c->home[ir->out[i]] == HOME_NONE) return bad(ck, c->kernel_of[ir->out[i]], "program output %d (%s) has no buffer", i, vname(ck, ir->out[i], b));
    for (int k = 0; k < c->n_kernels; k++) {
        const kernel *K = &c->kernels[k];
        for (int i = 0; i < K->n_out; i++) {
            int v = K->out[i];
            if (c->home[v] != HOME_ARENA && c->home[v] != HOME_OUTPUT)
                return bad(ck, k, "writes %s, which is neither in the arena nor an output", vname(ck, v, b));
            if (c->home[v] == HOME_OUTPUT && !is_program_output(ir, v))
                return bad(ck, k, "%s is planned as an output array but the program does not return it", vname(ck, v, b));
        }
        for (int i = 0; i < K->n_in; i++) {
            int v = K->in[i];
            if (c->home[v] == HOME_NONE) return bad(ck, k, "reads %s, which has no buffer", vname(ck, v, b));
            if (c->last_use[v] < k || c->first_use[v] > k)
                return bad(ck, k, "reads %s outside its live range %d..%d", vname(ck, v, b), c->first_use[v], c->last_use[v]);
        }
    }
    for (int v = 0; v < ir->n_vars; v++) {
        if (c->home[v] == HOME_OUTPUT && c->kernel_of[v] < 0)
            return bad(ck, -1, "%s is planned as an output array but no kernel writes it", vname(ck, v, b));
        if (c->home[v] != HOME_ARENA) continue;
        int k = c->kernel_of[v];
        if (k < 0 || !has(c->kernels[k].out, c->kernels[k].n_out, v))
            return bad(ck, k, "%s is in the arena but no kernel writes it", vname(ck, v, b));
        if (c->first_use[v] != k || c->last_use[v] < k)
            return bad(ck, k, "%s is live over kernels %d..%d, but written by kernel %d", vname(ck, v, b), c->first_use[v],
                       c->last_use[v], k);
        if (plan_host(c, v) >= 0) {
            if (check_hosted(ck, v) != 0) return -1;
        } else if (c->offset[v] + rt_aval_nbytes(&ir->vars[v]) > c->arena_bytes) {
            return bad(ck, k, "%s at %zu..%zu lies outside the arena of %zu bytes", vname(ck, v, b), c->offset[v],
                       c->offset[v] + rt_aval_nbytes(&ir->vars[v]), c->arena_bytes);
        }
    }
    for (int u = 0; u < ir->n_vars; u++) {
        if (c->home[u] != HOME_ARENA) continue;
        size_t ua = c->offset[u], ub = ua + rt_aval_nbytes(&ir->vars[u]);
        if (plan_shares_read_only(c, u)) continue; /* read only: any number may share it */
        for (int v = u + 1; v < ir->n_vars; v++) {
            if (c->home[v] != HOME_ARENA || plan_host(c, v) != plan_host(c, u)) continue; /* another buffer */
            size_t va = c->offset[v], vb = va + rt_aval_nbytes(&ir->vars[v]);
            if (ua >= vb || va >= ub) continue; /* apart in bytes */
            if (c->last_use[u] < c->first_use[v] || c->last_use[v] < c->first_use[u]) continue; /* apart in time */
            /* in place: the later one takes the earlier one's block, from
             * its start (a smaller one only the front: plan.c) */
            if (ua == va && ((vb <= ub && in_place_is_safe(c, u, v)) || (ub <= vb && in_place_is_safe(c, v, u))))
                continue;
            return bad(ck, c->kernel_of[v], "%s (bytes %zu..%zu, kernels %d..%d) overlaps %s (bytes %zu..%zu, kernels %d..%d)",
                       vname(ck, v, b), va, vb, c->first_use[v], c->last_use[v], vname(ck, u, b2), ua, ub, c->first_use[u],
                       c->last_use[u]);
        }
    }
    return 0;
}

static int check_donations(const checker *ck) {
    const compiled *c = ck->c;
    const ir_func *ir = c->ir;
    char b[64];
    if (!c->donor) return bad(ck, -1, "no donation table");
    for (int v = 0; v < ir->n_vars; v++) {
        int i = c->donor[v];
        if (i < 0) continue;
        if (i >= ir->n_in) return bad(ck, -1, "%s takes the buffer of input %d of %d", vname(ck, v, b), i, ir->n_in);
        const rt_aval *a = &ir->vars[v], *d = &ir->vars[ir->in[i]];
        if (c->home[v] != HOME_OUTPUT || !is_program_output(ir, v))
            return bad(ck, c->kernel_of[v], "%s takes donated input %d's buffer but is not an output array", vname(ck, v, b), i);
        if (a->dtype != d->dtype || !rt_aval_same_shape(a, d))
            return bad(ck, c->kernel_of[v], "%s takes donated input %d's buffer of another type", vname(ck, v, b), i);
        for (int w = v + 1; w < ir->n_vars; w++)
            if (c->donor[w] == i) return bad(ck, -1, "input %d is donated to two outputs", i);
    }
    return 0;
}

int compiled_verify(cj_ctx *ctx, const compiled *c, const char *after) {
    if (c->stage <= STAGE_IR) return ir_verify(ctx, c->ir);
    const ir_func *ir = c->ir;
    size_t nv = (size_t)ir->n_vars + 1, ne = (size_t)ir->n_eqns + 1;
    checker ck = {ctx, c, after ? after : "?", NULL, NULL, NULL, NULL};
    ck.names = rt_alloc(ctx->mem, sizeof(int) * nv);
    ck.def = rt_alloc(ctx->mem, sizeof(int) * nv);
    ck.where = rt_alloc(ctx->mem, sizeof(int) * ne);
    ck.pos = rt_alloc(ctx->mem, sizeof(int) * ne);
    int rc = -1;
    if (!ck.names || !ck.def || !ck.where || !ck.pos) {
        core_oom(ctx, "compile: verifying the program");
        goto done;
    }
    ir_var_ordinals(ir, ck.names);
    for (size_t v = 0; v < nv; v++) ck.def[v] = -1;
    for (int e = 0; e < ir->n_eqns; e++) {
        for (int r = 0; r < ir->eqns[e].n_out; r++) ck.def[ir->eqns[e].out + r] = e;
        ck.where[e] = -1;
    }
    if (check_membership(&ck) != 0 || check_dataflow(&ck) != 0) goto done;
    for (int k = 0; k < c->n_kernels; k++)
        if (check_kind(&ck, k) != 0) goto done;
    if (c->stage >= STAGE_PLANNED && check_plan(&ck) != 0) goto done;
    if (c->stage >= STAGE_ANALYSED && c->mem.temp_bytes != c->arena_bytes) {
        bad(&ck, -1, "the analysis counts %zu bytes of temporaries in an arena of %zu", c->mem.temp_bytes, c->arena_bytes);
        goto done;
    }
    if (c->stage >= STAGE_DONATED && check_donations(&ck) != 0) goto done;
    rc = 0;
done:
    if (ck.names) rt_free(ctx->mem, ck.names, sizeof(int) * nv);
    if (ck.def) rt_free(ctx->mem, ck.def, sizeof(int) * nv);
    if (ck.where) rt_free(ctx->mem, ck.where, sizeof(int) * ne);
    if (ck.pos) rt_free(ctx->mem, ck.pos, sizeof(int) * ne);
    return rc;
}
