/* dot_epilogue.c — runs a DOT_EPILOGUE kernel (backend layer): a matrix
 * product and the elementwise epilogue fused after it (src/compiler/
 * epilogue.c made the kernel and says which products qualify).
 *
 * Block by block over the product's rows: the dot primitive's own kernel
 * computes rows [r0, r1) of the product (lhs rows r0..r1 times the whole
 * rhs: the GEMM call the unfused dot makes, with fewer rows — the same
 * numbers with the built-in GEMM, see epilogue.c), then the epilogue runs
 * over elements [r0·N, r1·N) of its iteration space — on generated code
 * when it is installed, else through the interpreter's tile loop — while
 * the block is still in cache. Blocks run one after another; the GEMM and
 * the epilogue each spread one block over the threads.
 *
 * Where the block lives: when the product stays materialised (a program
 * output, or read by another kernel) the GEMM writes straight into its
 * buffer; otherwise into one block buffer taken from the context's data
 * pool for the call (a pool hit in steady state). Loop kernels read an
 * operand u at buf[u] + index, so for block [r0, r1) the product's entry
 * in the buffer table is the block's address minus r0·N elements: the
 * epilogue's indices r0·N.. then land on the block. */
#include <string.h>

#include "../compiler/program.h"
#include "program_impl.h"

/* Rows [r0, r1) of the product of equation e into dst (dense, rows × N),
 * by the dot primitive's kernel on a view of those lhs rows as a matrix.
 * Generated constructs call it too (codegen_control_state.c), so a block
 * computes the same bits on either path. */
int dot_epilogue_product_rows(cj_ctx *ctx, const ir_func *ir, const ir_eqn *e, char *const *buf, int64_t r0, int64_t r1,
                        char *dst) {
    const int *in = ir_eqn_inputs(ir, e);
    const rt_aval *l = &ir->vars[in[0]], *r = &ir->vars[in[1]], *o = &ir->vars[e->out];
    size_t es = rt_dtypes[l->dtype].size; /* the operand's (preferred_element_type may differ) */
    int64_t depth = l->dims[l->rank - 1], cols = o->dims[o->rank - 1];
    rt_array lhs, rhs, out;
    memset(&lhs, 0, sizeof lhs);
    memset(&rhs, 0, sizeof rhs);
    memset(&out, 0, sizeof out);
    lhs.refcount = rhs.refcount = out.refcount = 1;
    lhs.mem = rhs.mem = out.mem = ctx->mem;
    lhs.aval = rt_aval_make(l->dtype, 2, (int64_t[]){r1 - r0, depth});
    lhs.data = buf[in[0]] + (size_t)(r0 * depth) * es;
    rhs.aval = *r;
    rhs.data = buf[in[1]];
    out.aval = rt_aval_make(o->dtype, 2, (int64_t[]){r1 - r0, cols});
    out.data = dst;
    lhs.size = rt_aval_size(&lhs.aval);
    rhs.size = rt_aval_size(&rhs.aval);
    out.size = rt_aval_size(&out.aval);
    prim_params q = e->params;
    q.lhs_contract.v[0] = 1; /* the last axis of the [rows, K] view */
    rt_array *args[2] = {&lhs, &rhs};
    return prim_rules[e->prim].impl(ctx, e->prim, &q, 2, args, &out);
}

/* The epilogue over elements [begin, end) of kernel k's space. */
static void run_epilogue(program *p, int k, char *const *buf, int64_t begin, int64_t end) {
    if (!native_run_loop_range(p, k, buf, begin, end)) interp_run_loop_range(p, &p->c->kernels[k], 1, buf, begin, end);
}

int dot_epilogue_run(cj_ctx *ctx, program *p, int k, char **buf) {
    const compiled *c = p->c;
    const ir_func *ir = c->ir;
    const kernel *K = &c->kernels[k];
    const ir_eqn *e = &ir->eqns[K->eqns[0]];
    int d = e->out;
    const rt_aval *dv = &ir->vars[d];
    int64_t cols = dv->dims[dv->rank - 1];
    if (rt_aval_size(dv) == 0) return 0; /* nothing to compute, nothing to apply */
    int64_t rows = rt_aval_size(dv) / cols, nb = K->n_blocks;
    size_t row_bytes = (size_t)cols * rt_dtypes[dv->dtype].size;

    bool materialised = c->home[d] != HOME_NONE;
    char *block = NULL;
    size_t cap = 0;
    if (!materialised) {
        block = rt_data_alloc(ctx->mem, (size_t)((rows + nb - 1) / nb) * row_bytes, &cap);
        if (!block) return core_oom(ctx, "jit: a block of a matrix product");
    }
    int status = 0;
    for (int64_t b = 0; b < nb && status == 0; b++) {
        int64_t r0 = b * rows / nb, r1 = (b + 1) * rows / nb;
        if (materialised) {
            status = dot_epilogue_product_rows(ctx, ir, e, buf, r0, r1, buf[d] + (size_t)r0 * row_bytes);
        } else {
            status = dot_epilogue_product_rows(ctx, ir, e, buf, r0, r1, block);
            /* element r0·N of the product is the block's first: an address
             * before the block, only ever indexed from r0·N on */
            buf[d] = (char *)((uintptr_t)block - (uintptr_t)r0 * row_bytes);
        }
        if (status == 0) run_epilogue(p, k, buf, r0 * cols, r1 * cols);
    }
    if (!materialised) {
        buf[d] = NULL;
        rt_data_free(ctx->mem, block, cap);
    }
    return status;
}
