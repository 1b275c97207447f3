/* interp.c — the interpreter backend: runs a program's IR equation by
 * equation with the primitives' eager kernels (backend layer). Always
 * available; the reference the compiled backends are tested against. */
#include "backend.h"

struct program {
    const ir_func *ir;
};

program *backend_prepare(cj_ctx *ctx, const ir_func *ir) {
    program *p = rt_alloc(ctx->mem, sizeof *p);
    if (!p) {
        core_oom(ctx, "jit: preparing a program");
        return NULL;
    }
    p->ir = ir;
    return p;
}

int program_run(cj_ctx *ctx, program *p, rt_array *const *in, rt_array **out) {
    return ir_eval_arrays(ctx, p->ir, in, out);
}

void program_free(cj_ctx *ctx, program *p) {
    if (p) rt_free(ctx->mem, p, sizeof *p);
}
