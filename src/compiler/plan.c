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
 * operand dies there and the result keeps its block; and those whose
 * primitive writes a no larger result over operand 0 in order
 * (lower.overwrites_operand0: a pooling output written into its input's
 * block), after which the result keeps only its own size of the block,
 * so the rest is free for the next kernel's results (a CNN's first pooled
 * activations in the first convolution's block, the second convolution's
 * output beside them).
 *
 * Outputs as scratch, as XLA's buffer assignment does: every output's
 * array exists for the whole call (the backend allocates it before the
 * first kernel), but holds nothing until the kernel writing it runs. A
 * temporary whose whole live range lies before that kernel may live in
 * the output's buffer instead of the arena (c->host[v] = the output, and
 * c->offset[v] an offset in it). When the output is written into a donated
 * input's buffer, the temporary must also be written after the input's
 * last read; then it is safe whether or not the donation is used at a
 * given call (unused, the output is a fresh array). A deep network's
 * gradient keeps its forward activations in the weight gradients' buffers
 * this way. Each buffer (the arena, and each output) is its own pool of
 * blocks with the same best-fit rule; a temporary goes to the output whose
 * write comes soonest after its last read, so outputs written late stay
 * free for values that live long, and to the arena when none has room.
 * Construct bodies (compiled.no_output_scratch) keep everything in the
 * arena: generated loops bind their outputs per step.
 *
 * The same field says when a result shares an argument's buffer: an
 * optimization_barrier of an argument or constant (share_read_only).
 *
 * Working memory: a SINGLE kernel whose primitive declares it
 * (lower.workspace_of: eigh's and svd's working copies) gets a block of
 * the arena live for that kernel alone, placed after its results (so it
 * overlaps neither them nor its operands) and released with the kernel's
 * dead operands; c->ws_offset / ws_bytes record it for the backend
 * (interp.c's run_single hands it to the kernel) and, being in the arena,
 * the memory analysis counts it. */
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "program.h"

#define ALIGN 64

typedef struct block {
    size_t off, size;
    int var;
    int pool; /* 0: the arena; p > 0: pools[p], an output's buffer */
} block;

/* An output's buffer as a pool for temporaries: those written after
 * kernel `lo` (its donor's last read; -1 when none) and dead before
 * kernel `hi` (the output's writer), within its `cap` bytes. */
typedef struct pool {
    int host, lo, hi;
    size_t cap;
} pool;

static size_t align_up(size_t n) { return (n + ALIGN - 1) / ALIGN * ALIGN; }

/* Best fit in pool p: the smallest gap between its live blocks (the live
 * list is sorted by pool, then offset) that holds `size`; when none does,
 * the end of its last block. *gap is the room left there (SIZE_MAX at the
 * arena's end: it grows). `cap` bounds the pool: false when `need` bytes
 * do not fit below it (need: the value's own bytes, size: rounded up). */
static bool best_fit(const block *live, int n, int p, size_t size, size_t need, size_t cap, size_t *off,
                     size_t *gap) {
    size_t best = 0, best_gap = 0, at = 0;
    int found = 0;
    for (int i = 0; i < n; i++) {
        if (live[i].pool != p) continue;
        if (live[i].off >= at && live[i].off - at >= size && (!found || live[i].off - at < best_gap)) {
            best = at;
            best_gap = live[i].off - at;
            found = 1;
        }
        if (live[i].off + live[i].size > at) at = live[i].off + live[i].size;
    }
    if (found) {
        *off = best, *gap = best_gap;
        return true;
    }
    if (cap != SIZE_MAX && (at > cap || cap - at < need)) return false;
    *off = at;
    *gap = cap == SIZE_MAX ? SIZE_MAX : cap - at;
    return true;
}

/* Frees a previous plan of c, so the planner can run again on a new order. */
static void drop_plan(cj_ctx *ctx, compiled *c, size_t nv) {
    if (c->home) rt_free(ctx->mem, c->home, sizeof(var_home) * nv);
    if (c->offset) rt_free(ctx->mem, c->offset, sizeof(size_t) * nv);
    if (c->first_use) rt_free(ctx->mem, c->first_use, sizeof(int) * nv);
    if (c->last_use) rt_free(ctx->mem, c->last_use, sizeof(int) * nv);
    if (c->host) rt_free(ctx->mem, c->host, sizeof(int) * nv);
    c->home = NULL;
    c->host = NULL;
    c->offset = NULL;
    c->first_use = c->last_use = NULL;
    c->arena_bytes = 0;
    if (c->ws_offset) rt_free(ctx->mem, c->ws_offset, sizeof(size_t) * (size_t)c->ws_kernels);
    if (c->ws_bytes) rt_free(ctx->mem, c->ws_bytes, sizeof(size_t) * (size_t)c->ws_kernels);
    c->ws_offset = c->ws_bytes = NULL;
    c->ws_kernels = 0;
}

/* The working memory kernel k's primitive declares, in bytes (0: none). */
static size_t kernel_workspace(const compiled *c, int k) {
    const kernel *K = &c->kernels[k];
    if (K->kind != KERNEL_SINGLE || K->n_eqns != 1) return 0;
    const ir_eqn *e = &c->ir->eqns[K->eqns[0]];
    size_t (*of)(const prim_params *, int, const rt_aval *) = prim_lower(e->prim)->workspace_of;
    enum { MAX_IN = 8 }; /* the primitives declaring one take a single operand */
    if (!of || e->n_in > MAX_IN) return 0;
    rt_aval in[MAX_IN];
    const int *ins = ir_eqn_inputs(c->ir, e);
    for (int i = 0; i < e->n_in; i++) in[i] = c->ir->vars[ins[i]];
    return of(&e->params, e->n_in, in);
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

/* A SINGLE kernel whose primitive writes its no larger result v over its
 * only read of operand u = operand 0 in order (overwrites_operand0: a
 * pooling output in its input's block, which shrinks to v's size) */
static bool single_overwrites(const ir_func *ir, const kernel *K, int u, int v) {
    if (K->n_eqns != 1) return false;
    const ir_eqn *e = &ir->eqns[K->eqns[0]];
    const prim_lowering *l = prim_lower(e->prim);
    if (!l->overwrites_operand0 || e->n_out != 1 || e->out != v || e->n_in < 1) return false;
    const int *in = ir_eqn_inputs(ir, e);
    for (int i = 0; i < e->n_in; i++)
        if (in[i] == u && i != 0) return false;
    return in[0] == u && l->overwrites_operand0(&e->params, &ir->vars[u], &ir->vars[v]);
}

/* May kernel k write its result v over its operand u? The rule of the
 * file's opening paragraph; u's last reader must be this kernel. */
bool plan_may_overwrite(const compiled *c, int k, int u, int v) {
    const ir_func *ir = c->ir;
    const kernel *K = &c->kernels[k];
    if (K->kind == KERNEL_SINGLE)
        return (single_updates_in_place(ir, K, u) || single_overwrites(ir, K, u, v)) && c->home[u] == HOME_ARENA &&
               c->home[v] == HOME_ARENA && c->last_use[u] == k; /* same type by construction */
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

/* Is v an argument or a constant (a buffer no kernel writes)? */
static bool read_only(const compiled *c, int v) { return c->home[v] == HOME_INPUT || c->home[v] == HOME_CONST; }

/* An optimization_barrier of an argument or a constant (checkpoint fences
 * the inputs of a recomputation) is that buffer: nothing writes it, so
 * the result shares it (host = the argument, offset 0) instead of taking
 * a copy, and the argument counts as read until the result's last reader
 * (a donated argument's buffer is written only after that). */
static void share_read_only(compiled *c) {
    if (c->no_output_scratch) return; /* a body's arguments are carries, rebound per step */
    const ir_func *ir = c->ir;
    for (int k = 0; k < c->n_kernels; k++) {
        const kernel *K = &c->kernels[k];
        if (K->kind != KERNEL_SINGLE || K->n_eqns != 1) continue;
        const ir_eqn *e = &ir->eqns[K->eqns[0]];
        if (!prim_lower(e->prim)->result_is_operand0 || e->n_out != 1 || c->home[e->out] != HOME_ARENA) continue;
        int u = ir_eqn_inputs(ir, e)[0];
        int root = read_only(c, u) ? u : c->host[u] >= 0 && read_only(c, c->host[u]) ? c->host[u] : -1;
        if (root < 0) continue;
        c->host[e->out] = root;
        c->offset[e->out] = 0;
        if (c->last_use[e->out] > c->last_use[root]) c->last_use[root] = c->last_use[e->out];
    }
}

bool plan_shares_read_only(const compiled *c, int v) { return plan_host(c, v) >= 0 && read_only(c, plan_host(c, v)); }

/* The live block kernel k's result v may take in place, or -1: v must
 * also die in time for the pool the block is in. */
static int in_place_block(const compiled *c, int k, int v, const block *live, int n_live, const pool *pools) {
    const kernel *K = &c->kernels[k];
    for (int i = 0; i < K->n_in; i++) {
        int u = K->in[i];
        for (int b = 0; b < n_live; b++)
            if (live[b].var == u && plan_may_overwrite(c, k, u, v) &&
                (live[b].pool == 0 || c->last_use[v] < pools[live[b].pool].hi))
                return b;
    }
    return -1;
}

/* The output buffers temporaries may live in: one pool per output array
 * (pool 0 is the arena), with the kernels between which its bytes are
 * free. Returns the number of pools. */
static int output_pools(const compiled *c, const int *donor, pool *pools) {
    const ir_func *ir = c->ir;
    int n = 1;
    pools[0] = (pool){-1, -1, INT_MAX, SIZE_MAX};
    if (c->no_output_scratch) return n;
    for (int o = 0; o < ir->n_out; o++) {
        int v = ir->out[o];
        bool seen = false;
        for (int q = 1; q < n; q++) seen |= pools[q].host == v;
        if (seen || c->home[v] != HOME_OUTPUT || c->kernel_of[v] <= 0) continue;
        int lo = donor && donor[v] >= 0 ? c->last_use[ir->in[donor[v]]] : -1;
        pools[n++] = (pool){v, lo, c->kernel_of[v], rt_aval_nbytes(&ir->vars[v])};
    }
    return n;
}

/* The last kernel at which v's block is in use when results take it in
 * place one after another (a loop carry's update, a chain of elementwise
 * loops): kernel k's result may take v's block when v dies at k, and then
 * lives on. chain[v] for every temporary, computed latest first. An
 * output's buffer can hold v only if the whole chain is over before the
 * output is written; otherwise v stays in the arena, so that the in place
 * it allows is not lost. */
static void in_place_chains(const compiled *c, int *chain) {
    const ir_func *ir = c->ir;
    for (int v = 0; v < ir->n_vars; v++) chain[v] = c->last_use[v];
    for (int k = c->n_kernels - 1; k >= 0; k--) {
        const kernel *K = &c->kernels[k];
        for (int i = 0; i < K->n_in; i++) {
            int u = K->in[i];
            if (c->home[u] != HOME_ARENA || c->last_use[u] != k) continue;
            for (int j = 0; j < K->n_out; j++) {
                int w = K->out[j];
                if (c->home[w] == HOME_ARENA && chain[w] > chain[u] && plan_may_overwrite(c, k, u, w))
                    chain[u] = chain[w];
            }
        }
    }
}

/* Where temporary v, written by kernel k, goes: the pool and offset. An
 * output's buffer whose write comes soonest after v's last read (best
 * fit among equals), else the arena. */
static int choose_pool(const compiled *c, int k, int v, size_t size, const block *live, int n_live,
                       const pool *pools, int n_pools, const int *chain, size_t *off) {
    size_t need = rt_aval_nbytes(&c->ir->vars[v]);
    int best = 0;
    size_t best_off = 0, best_gap = 0;
    for (int p = 1; p < n_pools; p++) {
        const pool *P = &pools[p];
        if (!(P->lo < k && chain[v] < P->hi) || need > P->cap) continue;
        size_t at, gap;
        if (!best_fit(live, n_live, p, size, need, P->cap, &at, &gap)) continue;
        if (best && (P->hi > pools[best].hi || (P->hi == pools[best].hi && gap >= best_gap))) continue;
        best = p, best_off = at, best_gap = gap;
    }
    if (best) {
        *off = best_off;
        return best;
    }
    size_t gap;
    best_fit(live, n_live, 0, size, need, SIZE_MAX, off, &gap);
    return 0;
}

static int plan(cj_ctx *ctx, compiled *c, const uint8_t *donated) {
    const ir_func *ir = c->ir;
    size_t nv = (size_t)ir->n_vars + 1, np = (size_t)ir->n_out + 1;
    drop_plan(ctx, c, nv);
    c->home = rt_calloc(ctx->mem, sizeof(var_home) * nv);
    c->offset = rt_calloc(ctx->mem, sizeof(size_t) * nv);
    c->first_use = rt_alloc(ctx->mem, sizeof(int) * nv);
    c->last_use = rt_alloc(ctx->mem, sizeof(int) * nv);
    c->host = rt_alloc(ctx->mem, sizeof(int) * nv);
    c->ws_kernels = c->n_kernels > 0 ? c->n_kernels : 1;
    c->ws_offset = rt_calloc(ctx->mem, sizeof(size_t) * (size_t)c->ws_kernels);
    c->ws_bytes = rt_calloc(ctx->mem, sizeof(size_t) * (size_t)c->ws_kernels);
    /* live blocks: every variable's at most, and one kernel's workspace */
    block *live = rt_alloc(ctx->mem, sizeof(block) * (nv + 1));
    pool *pools = rt_alloc(ctx->mem, sizeof(pool) * np);
    int *donor = donated ? rt_alloc(ctx->mem, sizeof(int) * nv) : NULL;
    int *chain = rt_alloc(ctx->mem, sizeof(int) * nv);
    if (!c->home || !c->offset || !c->first_use || !c->last_use || !c->host || !live || !pools || !chain ||
        (donated && !donor) || !c->ws_offset || !c->ws_bytes) {
        if (chain) rt_free(ctx->mem, chain, sizeof(int) * nv);
        if (live) rt_free(ctx->mem, live, sizeof(block) * (nv + 1));
        if (pools) rt_free(ctx->mem, pools, sizeof(pool) * np);
        if (donor) rt_free(ctx->mem, donor, sizeof(int) * nv);
        return core_oom(ctx, "jit: buffer planning");
    }
    assign_homes(c);
    for (size_t v = 0; v < nv; v++) c->host[v] = -1;
    share_read_only(c);
    if (donor) donation_pairs(c, donated, donor, NULL, 0);
    int n_pools = output_pools(c, donor, pools);
    in_place_chains(c, chain);

    /* walk the schedule: place each kernel's temporaries (in place of a
     * dying operand when safe), then release the buffers whose last
     * reader is this kernel */
    int n_live = 0;
    size_t arena = 0;
    for (int k = 0; k < c->n_kernels; k++) {
        const kernel *K = &c->kernels[k];
        for (int i = 0; i < K->n_out; i++) {
            int v = K->out[i];
            if (c->home[v] != HOME_ARENA || plan_shares_read_only(c, v)) continue;
            int b = in_place_block(c, k, v, live, n_live, pools);
            if (b >= 0) { /* the block passes from the operand to v */
                live[b].var = v;
                c->offset[v] = live[b].off;
                c->host[v] = pools[live[b].pool].host;
                continue;
            }
            size_t size = align_up(rt_aval_nbytes(&ir->vars[v]));
            if (size == 0) size = ALIGN;
            size_t off;
            int p = choose_pool(c, k, v, size, live, n_live, pools, n_pools, chain, &off);
            int pos = 0;
            while (pos < n_live && (live[pos].pool < p || (live[pos].pool == p && live[pos].off < off))) pos++;
            memmove(&live[pos + 1], &live[pos], sizeof(block) * (size_t)(n_live - pos));
            live[pos] = (block){off, size, v, p};
            n_live++;
            c->offset[v] = off;
            c->host[v] = pools[p].host;
            if (p == 0 && off + size > arena) arena = off + size;
        }
        size_t ws = kernel_workspace(c, k);
        if (ws) { /* after the results, in the arena, for this kernel only (var -1) */
            size_t size = align_up(ws), off, gap;
            best_fit(live, n_live, 0, size, ws, SIZE_MAX, &off, &gap);
            int pos = 0;
            while (pos < n_live && live[pos].pool == 0 && live[pos].off < off) pos++;
            memmove(&live[pos + 1], &live[pos], sizeof(block) * (size_t)(n_live - pos));
            live[pos] = (block){off, size, -1, 0};
            n_live++;
            c->ws_offset[k] = off, c->ws_bytes[k] = ws;
            if (off + size > arena) arena = off + size;
        }
        /* a result that took a larger operand's block in place keeps only
         * its own size of it, now that nothing of kernel k is placed */
        for (int i = 0; i < n_live; i++) {
            int v = live[i].var;
            if (v < 0 || c->kernel_of[v] != k) continue;
            size_t size = align_up(rt_aval_nbytes(&ir->vars[v]));
            if (size == 0) size = ALIGN;
            if (size < live[i].size) live[i].size = size;
        }
        for (int i = 0; i < n_live;) {
            if (live[i].var < 0 || c->last_use[live[i].var] <= k) {
                memmove(&live[i], &live[i + 1], sizeof(block) * (size_t)(n_live - i - 1));
                n_live--;
            } else {
                i++;
            }
        }
    }
    c->arena_bytes = arena;
    rt_free(ctx->mem, live, sizeof(block) * (nv + 1));
    rt_free(ctx->mem, pools, sizeof(pool) * np);
    rt_free(ctx->mem, chain, sizeof(int) * nv);
    if (donor) rt_free(ctx->mem, donor, sizeof(int) * nv);
    return 0;
}

int plan_buffers(cj_ctx *ctx, compiled *c) { return plan(ctx, c, NULL); }

int plan_buffers_donated(cj_ctx *ctx, compiled *c, const uint8_t *donated) { return plan(ctx, c, donated); }

int plan_in_place_of(const compiled *c, int v) {
    if (!c->home || c->home[v] != HOME_ARENA || c->kernel_of[v] < 0) return -1;
    int k = c->kernel_of[v];
    const kernel *K = &c->kernels[k];
    /* outside in place, an operand dying at k is still live while k's
     * results are placed, so no result shares its offset */
    for (int i = 0; i < K->n_in; i++) {
        int u = K->in[i];
        if (c->home[u] == HOME_ARENA && c->last_use[u] == k && c->offset[u] == c->offset[v] &&
            plan_host(c, u) == plan_host(c, v))
            return u;
    }
    return -1;
}
