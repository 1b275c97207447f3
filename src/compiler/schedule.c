/* schedule.c — the order kernels run in (compiler layer).
 *
 *   fuse → schedule → plan → analyse
 *
 * Fusion leaves kernels in the order of their first equation. That order
 * respects every dependency but can hold many temporaries at once: in a
 * diamond whose two branches each make a large value and reduce it, both
 * large values are made before either is reduced. This pass builds a
 * second candidate, a greedy list schedule — among the kernels whose
 * producers have all run, the one whose run frees the most arena bytes
 * minus the bytes it allocates (ties: the earlier kernel) — then plans the
 * arena of each candidate with the planner itself (plan_buffers: the same
 * live ranges, best-fit offsets and in-place rule, so the comparison is of
 * the arena the program will really have) and keeps the smaller, the
 * fusion order on ties.
 *
 * A new order rewrites c->kernels and c->kernel_of together. It must run
 * before code generation, which names kernels by their index. Which order
 * won is not stored: fusion order is the one sorted by first equation, so
 * schedule_heuristic reads it back from the kernels. */
#include <string.h>

#include "program.h"

/* Bytes v takes in the arena: a kernel's result that is not a program
 * output (those are fresh arrays). */
static int64_t arena_bytes_of(const compiled *c, const char *is_output, int v) {
    if (c->kernel_of[v] < 0 || is_output[v]) return 0;
    return (int64_t)rt_aval_nbytes(&c->ir->vars[v]);
}

static bool is_ready(const compiled *c, const char *done, int k) {
    const kernel *K = &c->kernels[k];
    for (int i = 0; i < K->n_in; i++) {
        int p = c->kernel_of[K->in[i]];
        if (p >= 0 && !done[p]) return false;
    }
    return true;
}

/* Bytes released by running kernel k now (operands it reads last) minus
 * bytes its results take. */
static int64_t net_freed(const compiled *c, const char *is_output, const int *readers_left, int k) {
    const kernel *K = &c->kernels[k];
    int64_t net = 0;
    for (int i = 0; i < K->n_in; i++)
        if (readers_left[K->in[i]] == 1) net += arena_bytes_of(c, is_output, K->in[i]);
    for (int i = 0; i < K->n_out; i++) net -= arena_bytes_of(c, is_output, K->out[i]);
    return net;
}

/* The greedy list schedule into order[]. Quadratic in the number of
 * kernels, which is small next to the number of equations. False only if
 * the kernels had a cycle (fusion never makes one). */
static bool greedy_order(const compiled *c, const char *is_output, int *readers_left, char *done, int *order) {
    int n = c->n_kernels;
    for (int step = 0; step < n; step++) {
        int best = -1;
        int64_t best_net = 0;
        for (int k = 0; k < n; k++) {
            if (done[k] || !is_ready(c, done, k)) continue;
            int64_t net = net_freed(c, is_output, readers_left, k);
            if (best < 0 || net > best_net) {
                best = k;
                best_net = net;
            }
        }
        if (best < 0) return false;
        order[step] = best;
        done[best] = 1;
        const kernel *K = &c->kernels[best];
        for (int i = 0; i < K->n_in; i++) readers_left[K->in[i]]--;
    }
    return true;
}

/* Puts the kernels of `fusion` (the fusion order, with its kernel_of) in
 * `order` (NULL: the fusion order itself); pos is scratch of n ints. */
static void apply_order(compiled *c, const kernel *fusion, const int *fusion_kernel_of, const int *order, int *pos) {
    int n = c->n_kernels;
    for (int i = 0; i < n; i++) {
        int k = order ? order[i] : i;
        c->kernels[i] = fusion[k];
        pos[k] = i;
    }
    for (int v = 0; v < c->ir->n_vars; v++)
        c->kernel_of[v] = fusion_kernel_of[v] >= 0 ? pos[fusion_kernel_of[v]] : -1;
}

static bool is_identity(const int *order, int n) {
    for (int i = 0; i < n; i++)
        if (order[i] != i) return false;
    return true;
}

int schedule_kernels(cj_ctx *ctx, compiled *c) {
    int n = c->n_kernels;
    /* with two kernels, either one feeds the other or both results live to
     * the end: no order lowers the peak */
    if (n < 3) return 0;
    const ir_func *ir = c->ir;
    size_t nv = (size_t)ir->n_vars + 1;
    char *is_output = rt_calloc(ctx->mem, nv);
    int *readers_left = rt_calloc(ctx->mem, sizeof(int) * nv);
    int *fusion_kernel_of = rt_alloc(ctx->mem, sizeof(int) * nv);
    char *scheduled = rt_calloc(ctx->mem, (size_t)n);
    int *order = rt_alloc(ctx->mem, sizeof(int) * (size_t)n);
    int *pos = rt_alloc(ctx->mem, sizeof(int) * (size_t)n);
    kernel *fusion = rt_alloc(ctx->mem, sizeof(kernel) * (size_t)n);
    int rc = -1;
    if (!is_output || !readers_left || !fusion_kernel_of || !scheduled || !order || !pos || !fusion) {
        core_oom(ctx, "jit: scheduling");
        goto cleanup;
    }
    for (int i = 0; i < ir->n_out; i++) is_output[ir->out[i]] = 1;
    for (int k = 0; k < n; k++)
        for (int i = 0; i < c->kernels[k].n_in; i++) readers_left[c->kernels[k].in[i]]++;
    if (!greedy_order(c, is_output, readers_left, scheduled, order) || is_identity(order, n)) {
        rc = 0;
        goto cleanup;
    }

    memcpy(fusion, c->kernels, sizeof(kernel) * (size_t)n);
    memcpy(fusion_kernel_of, c->kernel_of, sizeof(int) * (size_t)ir->n_vars);
    if (plan_buffers(ctx, c) != 0) goto cleanup;
    size_t fusion_arena = c->arena_bytes;
    apply_order(c, fusion, fusion_kernel_of, order, pos);
    if (plan_buffers(ctx, c) != 0) goto cleanup;
    if (c->arena_bytes >= fusion_arena) { /* keep the fusion order, and a plan of it */
        apply_order(c, fusion, fusion_kernel_of, NULL, pos);
        if (plan_buffers(ctx, c) != 0) goto cleanup;
    }
    rc = 0;
cleanup:
    if (is_output) rt_free(ctx->mem, is_output, nv);
    if (readers_left) rt_free(ctx->mem, readers_left, sizeof(int) * nv);
    if (fusion_kernel_of) rt_free(ctx->mem, fusion_kernel_of, sizeof(int) * nv);
    if (scheduled) rt_free(ctx->mem, scheduled, (size_t)n);
    if (order) rt_free(ctx->mem, order, sizeof(int) * (size_t)n);
    if (pos) rt_free(ctx->mem, pos, sizeof(int) * (size_t)n);
    if (fusion) rt_free(ctx->mem, fusion, sizeof(kernel) * (size_t)n);
    return rc;
}

const char *schedule_heuristic(const compiled *c) {
    for (int k = 1; k < c->n_kernels; k++)
        if (c->kernels[k].eqns[0] < c->kernels[k - 1].eqns[0]) return "greedy (frees the most bytes first)";
    return "fusion order";
}
