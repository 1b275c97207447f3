/* epilogue.c — epilogue fusion after a matrix product (compiler layer).
 *
 *   fuse → schedule → epilogue → plan → analyse
 *
 * relu(x @ W + b) fuses into two kernels: the dot (a SINGLE kernel writing
 * its whole result to a buffer) and a LOOP kernel reading that buffer back
 * to add the bias and clamp. This pass merges such a pair into one
 * DOT_EPILOGUE kernel, which the backend (src/backend/dot_epilogue.c) runs
 * a block of rows at a time: the product of a block of lhs rows with the
 * whole rhs, then the epilogue's tiles over that block while it is still in
 * cache. When nothing but the epilogue reads the raw product, it never gets
 * a full-size buffer: the plan leaves it unmaterialised and the backend
 * keeps one block of it in scratch taken per call (c->dot_block_bytes, not
 * counted as a temporary). When something else reads it (a later kernel, or
 * it is a program output), it stays materialised and the merge only
 * improves locality.
 *
 * A pair qualifies when
 *   - the dot is a float one (f32, f64, or bf16/f16 rounded from f32 sums), has no batch axes, and is a plain product over
 *     the leading output axes: lhs [..., M, K] contracting its last axis
 *     (leading axes flatten into rows) with a rank-2 rhs, [K, N]
 *     contracting axis 0 or [N, K] contracting axis 1 (x·Wᵀ);
 *   - the LOOP kernel comes right after it in the schedule, iterates over
 *     the dot's output shape, and reads the product only as an operand of
 *     elementwise equations, i.e. at the iteration index (never through a
 *     data-movement leaf, which would want other rows).
 * The kernel lists the dot first, then the epilogue's equations, reads the
 * union of both kernels' inputs and writes the epilogue's outputs (and the
 * product when it stays materialised).
 *
 * Blocks: a block holds about DOT_BLOCK_BYTES of the product, and at least
 * MIN_BLOCK_ROWS rows and MIN_BLOCK_WORK multiply-adds; the rows are split
 * evenly, so every block has at least that many rows and fewer than twice.
 * Big blocks keep the GEMM efficient — each block's call packs the whole
 * rhs again, and wakes its threads — while a block still fits the shared
 * L3 cache.
 *
 * Numbers: with the built-in GEMM (src/runtime/gemm.c) a block's rows come
 * out bit for bit as in one call over all rows — each element sums its K
 * products in an order fixed by K alone (the depth blocking), whichever
 * rows and threads share the call — provided the block takes the packed
 * path the whole product takes; the floors see to that (direct loops serve
 * calls of one row or under 216 multiply-adds). OpenBLAS gives no such
 * guarantee: it partitions a call's rows over its threads and into register
 * tiles whose edge rows go through other kernels, so a row can round
 * differently in a block than in the whole call (OpenBLAS 0.3.21, f32
 * 4096×1024×1024 in 8 blocks: 4 % of the elements, by up to 8e-6 on values
 * of magnitude about 3). With OpenBLAS a program whose product splits into several
 * blocks therefore matches eager execution to rounding, not bit for bit;
 * its two backends still agree exactly (both run the same blocks), and a
 * product of one block is the unfused call itself. tests/test_epilogue.c
 * checks both. */
#include <string.h>

#include "program.h"

/* Aimed-for bytes of one block of the product; the fewest rows (when rows
 * are very long) and multiply-adds (when they are short) a block has: below
 * these a GEMM call is mostly overhead, and the built-in GEMM switches to
 * its direct loops. */
#define DOT_BLOCK_BYTES ((size_t)2 << 20)
#define MIN_BLOCK_ROWS 16
#define MIN_BLOCK_WORK ((int64_t)1 << 18)

static size_t block_bytes_for_testing;

void fuse_set_dot_block_bytes_for_testing(size_t bytes) { block_bytes_for_testing = bytes; }

/* Is equation e a dot_general the DOT_EPILOGUE kernel computes by rows? */
static bool is_row_product(const ir_func *ir, const ir_eqn *e) {
    if (prim_lower(e->prim)->kind != LOWER_DOT || e->n_in != 2) return false;
    const prim_params *p = &e->params;
    const int *in = ir_eqn_inputs(ir, e);
    const rt_aval *l = &ir->vars[in[0]], *r = &ir->vars[in[1]];
    cj_dtype dt = ir->vars[e->out].dtype;
    if (!rt_is_float(dt)) return false; /* bf16/f16 rows: f32 sums rounded once (dot.c) */
    if (p->lhs_batch.n || p->rhs_batch.n || p->lhs_contract.n != 1 || p->rhs_contract.n != 1) return false;
    if (l->rank < 2 || r->rank != 2) return false;
    if (p->lhs_contract.v[0] != l->rank - 1) return false;
    return p->rhs_contract.v[0] == 0 || p->rhs_contract.v[0] == 1;
}

/* Does LOOP kernel L read d, and only as an elementwise operand? */
static bool reads_at_index_only(const ir_func *ir, const kernel *L, int d) {
    bool reads = false;
    for (int j = 0; j < L->n_eqns; j++) {
        const ir_eqn *e = &ir->eqns[L->eqns[j]];
        const int *in = ir_eqn_inputs(ir, e);
        for (int i = 0; i < e->n_in; i++) {
            if (in[i] != d) continue;
            if (!fuse_is_elementwise(e->prim)) return false;
            reads = true;
        }
    }
    return reads;
}

/* Kernel k (a row product) and kernel k+1 (its epilogue) can merge. */
static bool can_merge(const compiled *c, int k) {
    const ir_func *ir = c->ir;
    const kernel *K = &c->kernels[k], *L = &c->kernels[k + 1];
    if (K->kind != KERNEL_SINGLE || K->n_eqns != 1 || L->kind != KERNEL_LOOP) return false;
    const ir_eqn *e = &ir->eqns[K->eqns[0]];
    if (!is_row_product(ir, e)) return false;
    int d = e->out;
    return rt_aval_same_shape(&L->space, &ir->vars[d]) && reads_at_index_only(ir, L, d);
}

/* Must the product d stay in a buffer: a program output, or read by a
 * kernel other than k and k+1? */
static bool needs_buffer(const compiled *c, int k, int d) {
    for (int i = 0; i < c->ir->n_out; i++)
        if (c->ir->out[i] == d) return true;
    for (int q = 0; q < c->n_kernels; q++) {
        if (q == k || q == k + 1) continue;
        for (int i = 0; i < c->kernels[q].n_in; i++)
            if (c->kernels[q].in[i] == d) return true;
    }
    return false;
}

static bool contains(const int *a, int n, int v) {
    for (int i = 0; i < n; i++)
        if (a[i] == v) return true;
    return false;
}

/* How many blocks the product's rows (of `row_bytes` each, `row_work`
 * multiply-adds each) split into. */
static int64_t block_count(int64_t rows, size_t row_bytes, int64_t row_work) {
    size_t target = block_bytes_for_testing ? block_bytes_for_testing : DOT_BLOCK_BYTES;
    int64_t per = row_bytes ? (int64_t)(target / row_bytes) : rows;
    if (per < MIN_BLOCK_ROWS) per = MIN_BLOCK_ROWS;
    if (row_work > 0 && per < (MIN_BLOCK_WORK + row_work - 1) / row_work)
        per = (MIN_BLOCK_WORK + row_work - 1) / row_work;
    int64_t n = per ? rows / per : 1;
    return n > 1 ? n : 1;
}

/* Copies n ints (NULL when n is 0). */
static int *copy_ints(cj_ctx *ctx, const int *src, int n) {
    if (n == 0) return NULL;
    int *a = rt_alloc(ctx->mem, sizeof(int) * (size_t)n);
    if (a) memcpy(a, src, sizeof(int) * (size_t)n);
    return a;
}

static void free_ints(cj_ctx *ctx, int *a, int n) {
    if (a) rt_free(ctx->mem, a, sizeof(int) * (size_t)n);
}

/* Merges kernel k+1 into kernel k and removes it from the schedule. All
 * allocations come first, so a failure leaves c as it was. */
static int merge(cj_ctx *ctx, compiled *c, int k) {
    const ir_func *ir = c->ir;
    kernel *K = &c->kernels[k], *L = &c->kernels[k + 1];
    int d = ir->eqns[K->eqns[0]].out;
    bool keep = needs_buffer(c, k, d);

    /* equations: the dot, then the epilogue; reads: both kernels' inputs
     * but the product; writes: the epilogue's, and the product if kept */
    int n_eqns = 1 + L->n_eqns, n_in = 0, n_out = 0;
    int *scratch = rt_alloc(ctx->mem, sizeof(int) * (size_t)(K->n_in + L->n_in + L->n_out + 2));
    if (!scratch) return core_oom(ctx, "jit: epilogue fusion");
    for (int i = 0; i < K->n_in; i++)
        if (!contains(scratch, n_in, K->in[i])) scratch[n_in++] = K->in[i];
    for (int i = 0; i < L->n_in; i++)
        if (L->in[i] != d && !contains(scratch, n_in, L->in[i])) scratch[n_in++] = L->in[i];
    int *outs = scratch + n_in;
    if (keep) outs[n_out++] = d;
    for (int i = 0; i < L->n_out; i++)
        if (!contains(outs, n_out, L->out[i])) outs[n_out++] = L->out[i];

    int *eqns = rt_alloc(ctx->mem, sizeof(int) * (size_t)n_eqns);
    int *in = copy_ints(ctx, scratch, n_in), *out = copy_ints(ctx, outs, n_out);
    if (!eqns || (n_in && !in) || (n_out && !out)) {
        if (eqns) rt_free(ctx->mem, eqns, sizeof(int) * (size_t)n_eqns);
        free_ints(ctx, in, n_in);
        free_ints(ctx, out, n_out);
        rt_free(ctx->mem, scratch, sizeof(int) * (size_t)(K->n_in + L->n_in + L->n_out + 2));
        return core_oom(ctx, "jit: epilogue fusion");
    }
    rt_free(ctx->mem, scratch, sizeof(int) * (size_t)(K->n_in + L->n_in + L->n_out + 2));
    eqns[0] = K->eqns[0];
    memcpy(eqns + 1, L->eqns, sizeof(int) * (size_t)L->n_eqns);

    const rt_aval *dv = &ir->vars[d], *lhs = &ir->vars[ir_eqn_inputs(ir, &ir->eqns[K->eqns[0]])[0]];
    int64_t cols = dv->dims[dv->rank - 1], depth = lhs->dims[lhs->rank - 1];
    int64_t rows = cols ? rt_aval_size(dv) / cols : 0;
    size_t row_bytes = (size_t)cols * rt_dtypes[dv->dtype].size;
    kernel merged = {0};
    merged.kind = KERNEL_DOT_EPILOGUE;
    merged.eqns = eqns;
    merged.n_eqns = merged.cap_eqns = n_eqns;
    merged.in = in;
    merged.n_in = n_in;
    merged.out = out;
    merged.n_out = n_out;
    merged.space = L->space;
    merged.n_blocks = block_count(rows, row_bytes, cols * depth);
    if (!keep) {
        size_t block = (size_t)((rows + merged.n_blocks - 1) / merged.n_blocks) * row_bytes;
        if (block > c->dot_block_bytes) c->dot_block_bytes = block;
    }

    /* retire both kernels' lists and close the gap left by k+1 */
    free_ints(ctx, K->eqns, K->cap_eqns);
    free_ints(ctx, K->in, K->n_in);
    free_ints(ctx, K->out, K->n_out);
    free_ints(ctx, L->eqns, L->cap_eqns);
    free_ints(ctx, L->in, L->n_in);
    free_ints(ctx, L->out, L->n_out);
    *K = merged;
    memmove(&c->kernels[k + 1], &c->kernels[k + 2], sizeof(kernel) * (size_t)(c->n_kernels - k - 2));
    c->n_kernels--;
    memset(&c->kernels[c->n_kernels], 0, sizeof(kernel));
    for (int v = 0; v < ir->n_vars; v++)
        if (c->kernel_of[v] > k) c->kernel_of[v]--;
    return 0;
}

int fuse_dot_epilogues(cj_ctx *ctx, compiled *c) {
    c->dot_block_bytes = 0;
    for (int k = 0; k + 1 < c->n_kernels; k++)
        if (can_merge(c, k) && merge(ctx, c, k) != 0) return -1;
    return 0;
}
