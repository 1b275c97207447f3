/* plan.c — buffer assignment (compiler layer).
 *
 * A pure function of the fused, scheduled program: decides where every
 * materialised value lives (argument, constant, output array, or an offset
 * in the program's one arena) and computes live ranges over the kernel
 * schedule. Arena offsets are chosen best-fit among the gaps left by
 * buffers whose last reader already ran; a kernel's outputs are placed
 * before its dead inputs are released, so a kernel never writes over what
 * it reads. Outputs are never placed in the arena (they are handed to the
 * caller), so they can never be overwritten. */
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

int plan_buffers(cj_ctx *ctx, compiled *c) {
    const ir_func *ir = c->ir;
    size_t nv = (size_t)ir->n_vars + 1;
    c->home = rt_calloc(ctx->mem, sizeof(var_home) * nv);
    c->offset = rt_calloc(ctx->mem, sizeof(size_t) * nv);
    c->first_use = rt_alloc(ctx->mem, sizeof(int) * nv);
    c->last_use = rt_alloc(ctx->mem, sizeof(int) * nv);
    block *live = rt_alloc(ctx->mem, sizeof(block) * nv);
    if (!c->home || !c->offset || !c->first_use || !c->last_use || !live) {
        if (live) rt_free(ctx->mem, live, sizeof(block) * nv);
        return core_oom(ctx, "jit: buffer planning");
    }
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

    /* walk the schedule: place each kernel's arena outputs, then release
     * the buffers whose last reader is this kernel */
    int n_live = 0;
    size_t arena = 0;
    for (int k = 0; k < c->n_kernels; k++) {
        const kernel *K = &c->kernels[k];
        for (int i = 0; i < K->n_out; i++) {
            int v = K->out[i];
            if (c->home[v] != HOME_ARENA) continue;
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
