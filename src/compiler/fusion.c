/* fusion.c — grouping equations into kernels (compiler layer).
 *
 * Greedy, in IR order. An elementwise equation, or a data-movement leaf
 * (broadcast_in_dim, transpose, slice, rev, reshape, squeeze, expand_dims,
 * iota) whose operand is a buffer, joins the latest LOOP kernel that has
 * the same iteration space and runs no earlier than every kernel producing
 * its operands; otherwise it starts a new LOOP kernel. Siblings over the
 * same space (sin(x) and cos(x)) therefore share a kernel, and a chain of
 * elementwise operations becomes one loop. A leaf never reads a value of
 * its own kernel: that would need the value at another index, so the value
 * is materialised and the leaf reads its buffer. Anything else (reductions,
 * dot, gather, concatenate, pad, dynamic slices, scans) is a SINGLE kernel.
 * Values used outside their kernel, and program outputs, become the
 * kernel's outputs; everything else exists only per tile. */
#include <string.h>

#include "program.h"

bool fuse_is_elementwise(prim_id p) { return prim_families[p] == FAMILY_ELEMENTWISE; }

bool fuse_is_leaf_map(prim_id p) {
    switch (p) {
    case PRIM_BROADCAST_IN_DIM:
    case PRIM_TRANSPOSE:
    case PRIM_SLICE:
    case PRIM_REV:
    case PRIM_RESHAPE:
    case PRIM_SQUEEZE:
    case PRIM_EXPAND_DIMS:
    case PRIM_IOTA: return true;
    default: return false;
    }
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

/* Finds the kernel to fuse equation `ei` into, or -1. */
static int pick_kernel(const compiled *c, int ei) {
    const ir_func *ir = c->ir;
    const ir_eqn *e = &ir->eqns[ei];
    if (!fuse_is_elementwise(e->prim) && !fuse_is_leaf_map(e->prim)) return -1;
    const rt_aval *out = &ir->vars[e->out];
    const int *in = ir_eqn_inputs(ir, e);
    int earliest = 0;
    for (int i = 0; i < e->n_in; i++)
        if (c->kernel_of[in[i]] > earliest) earliest = c->kernel_of[in[i]];
    for (int k = c->n_kernels - 1; k >= earliest; k--) {
        const kernel *K = &c->kernels[k];
        if (K->kind != KERNEL_LOOP || !rt_aval_same_shape(&K->space, out)) continue;
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

int fuse_kernels(cj_ctx *ctx, compiled *c) {
    const ir_func *ir = c->ir;
    int cap = ir->n_eqns ? ir->n_eqns : 1;
    c->kernels = rt_calloc(ctx->mem, sizeof(kernel) * (size_t)cap);
    c->kernel_of = rt_alloc(ctx->mem, sizeof(int) * (size_t)(ir->n_vars + 1));
    if (!c->kernels || !c->kernel_of) return core_oom(ctx, "jit: fusion");
    for (int v = 0; v < ir->n_vars; v++) c->kernel_of[v] = -1;

    for (int ei = 0; ei < ir->n_eqns; ei++) {
        const ir_eqn *e = &ir->eqns[ei];
        int k = pick_kernel(c, ei);
        if (k < 0) {
            k = c->n_kernels++;
            kernel *K = &c->kernels[k];
            K->kind = fuse_is_elementwise(e->prim) || fuse_is_leaf_map(e->prim) ? KERNEL_LOOP : KERNEL_SINGLE;
            K->space = ir->vars[e->out];
        }
        if (kernel_add_eqn(ctx, &c->kernels[k], ei) != 0) return -1;
        c->kernel_of[e->out] = k;
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
    /* a SINGLE kernel's result is always materialised (its kernel writes
     * whole buffers), even when nothing reads it */
    for (int k = 0; k < c->n_kernels; k++) {
        kernel *K = &c->kernels[k];
        if (K->kind == KERNEL_SINGLE &&
            add_unique(ctx, &K->out, &K->n_out, ir->eqns[K->eqns[0]].out) != 0)
            return -1;
    }
    for (int i = 0; i < ir->n_out; i++) {
        int v = ir->out[i];
        if (c->kernel_of[v] >= 0 &&
            add_unique(ctx, &c->kernels[c->kernel_of[v]].out, &c->kernels[c->kernel_of[v]].n_out, v) != 0)
            return -1;
    }
    return 0;
}
