/* plan.c — buffer assignment (compiler layer).
 *
 *   fuse → schedule → plan → analyse
 *
 * A pure function of the fused, scheduled program: decides where every
 * materialised value lives (argument, constant, output array, or an offset
 * in the program's one arena) and computes live ranges over the kernel
 * schedule. Arena offsets are chosen best-fit among the gaps left by
 * buffers whose last reader already ran; a kernel's outputs are placed
 * before its dead inputs are released, so a kernel never writes over what
 * it reads — with one exception, in place (below). Outputs are never
 * placed in the arena (they are handed to the caller), so they can never
 * be overwritten. The schedule pass calls this planner on each candidate
 * order to cost it, so planning again replaces the previous plan.
 *
 * In place: a LOOP kernel's arena result may take the very block of an
 * arena operand that dies at that kernel, when no tile can tell. The
 * kernel runs tile by tile (and ranges of tiles on several threads), each
 * tile's equations in order. If every equation reading the operand reads
 * it elementwise at the tile's own index (no index map, no broadcast
 * scalar), if the result is written by an equation at or after the last
 * one reading the operand, and both have the same dtype and the kernel's
 * shape (so element i of one is the bytes of element i of the other), then
 * each element is read before the same element is written, and never
 * again: the overwrite is invisible. Element sizes must match: a narrower
 * result would land on input elements another thread has yet to read.
 * The other cases are SINGLE kernels whose result is their first operand
 * with a part replaced: dynamic_update_slice writes only the update, and
 * optimization_barrier (checkpoint's fence) nothing at all, when the
 * operand dies there and the result keeps its block. */
#include <string.h>

#include "program.h"

#define ALIGN 64

typedef struct block {
    size_t off, size;
    int var;
} block;

static size_t align_up(size_t n) { return (n + ALIGN - 1) / ALIGN * ALIGN; }

/* Best fit: the smallest gap between live blocks (sorted by offset) that
 * holds `size`; when none does, the end of the last block. */
static size_t best_fit(const block *live, int n, size_t size) {
    size_t best = 0, best_gap = 0, at = 0;
    int found = 0;
    for (int i = 0; i < n; i++) {
        if (live[i].off >= at && live[i].off - at >= size && (!found || live[i].off - at < best_gap)) {
            best = at;
            best_gap = live[i].off - at;
            found = 1;
        }
        if (live[i].off + live[i].size > at) at = live[i].off + live[i].size;
    }
    return found ? best : at;
}

/* Frees a previous plan of c, so the planner can run again on a new order. */
static void drop_plan(cj_ctx *ctx, compiled *c, size_t nv) {
    if (c->home) rt_free(ctx->mem, c->home, sizeof(var_home) * nv);
    if (c->offset) rt_free(ctx->mem, c->offset, sizeof(size_t) * nv);
    if (c->first_use) rt_free(ctx->mem, c->first_use, sizeof(int) * nv);
    if (c->last_use) rt_free(ctx->mem, c->last_use, sizeof(int) * nv);
    c->home = NULL;
    c->offset = NULL;
    c->first_use = c->last_use = NULL;
    c->arena_bytes = 0;
}

/* Homes and live ranges (kernel indices) of every variable. */
static void assign_homes(compiled *c) {
    const ir_func *ir = c->ir;
    for (int v = 0; v < ir->n_vars; v++) c->first_use[v] = c->last_use[v] = -1;
    for (int i = 0; i < ir->n_in; i++) c->home[ir->in[i]] = HOME_INPUT;
    for (int i = 0; i < ir->n_consts; i++) c->home[ir->consts[i].var] = HOME_CONST;
    for (int k = 0; k < c->n_kernels; k++) {
        const kernel *K = &c->kernels[k];
        for (int i = 0; i < K->n_out; i++) {
            c->home[K->out[i]] = HOME_ARENA;
            c->first_use[K->out[i]] = k;
            c->last_use[K->out[i]] = k;
        }
        for (int i = 0; i < K->n_in; i++) {
            int v = K->in[i];
            if (c->first_use[v] < 0) c->first_use[v] = k;
            c->last_use[v] = k;
        }
    }
    for (int i = 0; i < ir->n_out; i++)
        if (c->home[ir->out[i]] == HOME_ARENA) c->home[ir->out[i]] = HOME_OUTPUT;
}

static bool eqn_reads(const ir_func *ir, const ir_eqn *e, int u) {
    const int *in = ir_eqn_inputs(ir, e);
    for (int i = 0; i < e->n_in; i++)
        if (in[i] == u) return true;
    return false;
}

/* May kernel k write its result v over its operand u? The rule of the
 * file's opening paragraph; u's last reader must be this kernel. */
bool plan_may_overwrite(const compiled *c, int k, int u, int v) {
    const ir_func *ir = c->ir;
    const kernel *K = &c->kernels[k];
    if (K->kind == KERNEL_SINGLE)
        return single_updates_in_place(ir, K, u) && c->home[u] == HOME_ARENA && c->home[v] == HOME_ARENA &&
               c->last_use[u] == k; /* same type by construction */
    if (K->kind != KERNEL_LOOP || c->home[u] != HOME_ARENA || c->home[v] != HOME_ARENA || c->last_use[u] != k)
        return false;
    const rt_aval *au = &ir->vars[u], *av = &ir->vars[v];
    if (au->dtype != av->dtype || !rt_aval_same_shape(au, &K->space) || !rt_aval_same_shape(av, &K->space))
        return false;
    int def = -1;
    for (int j = 0; j < K->n_eqns && def < 0; j++)
        if (ir_eqn_defines(&ir->eqns[K->eqns[j]], v)) def = j;
    if (def < 0) return false;
    for (int j = 0; j < K->n_eqns; j++) {
        const ir_eqn *e = &ir->eqns[K->eqns[j]];
        if (!eqn_reads(ir, e, u)) continue;
        /* a leaf reads other indices; a later reader would see v */
        if (!fuse_is_elementwise(e->prim) || j > def) return false;
        /* select_n with one predicate for the whole tile copies the chosen
         * case with memcpy, which must not copy a buffer onto itself */
        if (j == def && prim_lower(e->prim)->copies_whole_operand && ir->vars[ir_eqn_inputs(ir, e)[0]].rank == 0 &&
            K->space.rank > 0)
            return false;
    }
    return true;
}

/* The live block kernel k's result v may take in place, or -1. */
static int in_place_block(const compiled *c, int k, int v, const block *live, int n_live) {
    const kernel *K = &c->kernels[k];
    for (int i = 0; i < K->n_in; i++) {
        int u = K->in[i];
        for (int b = 0; b < n_live; b++)
            if (live[b].var == u && plan_may_overwrite(c, k, u, v)) return b;
    }
    return -1;
}

int plan_buffers(cj_ctx *ctx, compiled *c) {
    const ir_func *ir = c->ir;
    size_t nv = (size_t)ir->n_vars + 1;
    drop_plan(ctx, c, nv);
    c->home = rt_calloc(ctx->mem, sizeof(var_home) * nv);
    c->offset = rt_calloc(ctx->mem, sizeof(size_t) * nv);
    c->first_use = rt_alloc(ctx->mem, sizeof(int) * nv);
    c->last_use = rt_alloc(ctx->mem, sizeof(int) * nv);
    block *live = rt_alloc(ctx->mem, sizeof(block) * nv);
    if (!c->home || !c->offset || !c->first_use || !c->last_use || !live) {
        if (live) rt_free(ctx->mem, live, sizeof(block) * nv);
        return core_oom(ctx, "jit: buffer planning");
    }
    assign_homes(c);

    /* walk the schedule: place each kernel's arena outputs (in place of a
     * dying operand when safe), then release the buffers whose last
     * reader is this kernel */
    int n_live = 0;
    size_t arena = 0;
    for (int k = 0; k < c->n_kernels; k++) {
        const kernel *K = &c->kernels[k];
        for (int i = 0; i < K->n_out; i++) {
            int v = K->out[i];
            if (c->home[v] != HOME_ARENA) continue;
            int b = in_place_block(c, k, v, live, n_live);
            if (b >= 0) { /* the block passes from the operand to v */
                live[b].var = v;
                c->offset[v] = live[b].off;
                continue;
            }
            size_t size = align_up(rt_aval_nbytes(&ir->vars[v]));
            if (size == 0) size = ALIGN;
            size_t off = best_fit(live, n_live, size);
            int pos = 0;
            while (pos < n_live && live[pos].off < off) pos++;
            memmove(&live[pos + 1], &live[pos], sizeof(block) * (size_t)(n_live - pos));
            live[pos] = (block){off, size, v};
            n_live++;
            c->offset[v] = off;
            if (off + size > arena) arena = off + size;
        }
        for (int i = 0; i < n_live;) {
            if (c->last_use[live[i].var] <= k) {
                memmove(&live[i], &live[i + 1], sizeof(block) * (size_t)(n_live - i - 1));
                n_live--;
            } else {
                i++;
            }
        }
    }
    c->arena_bytes = arena;
    rt_free(ctx->mem, live, sizeof(block) * nv);
    return 0;
}

int plan_in_place_of(const compiled *c, int v) {
    if (!c->home || c->home[v] != HOME_ARENA || c->kernel_of[v] < 0) return -1;
    int k = c->kernel_of[v];
    const kernel *K = &c->kernels[k];
    /* outside in place, an operand dying at k is still live while k's
     * results are placed, so no result shares its offset */
    for (int i = 0; i < K->n_in; i++) {
        int u = K->in[i];
        if (c->home[u] == HOME_ARENA && c->last_use[u] == k && c->offset[u] == c->offset[v]) return u;
    }
    return -1;
}
