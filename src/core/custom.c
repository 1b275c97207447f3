/* custom.c — custom-derivative call records (core layer; see core_custom
 * in core.h). A record lives as long as the equations naming it: programs
 * that mention it (jit caches, linearizations) may outlive the trace that
 * made them, and each holds a reference. */
#include "func.h"

static void custom_free(prim_ref *r) {
    core_custom *rec = (core_custom *)r;
    ir_free(rec->primal);
    func_release(rec->f);
    func_release(rec->jvp_rule);
    func_release(rec->fwd);
    func_release(rec->bwd);
    rt_free(rec->ctx->mem, rec, sizeof *rec);
}

core_custom *core_custom_new(cj_ctx *ctx, const core_custom *init) {
    core_custom *rec = rt_alloc(ctx->mem, sizeof *rec);
    if (!rec) {
        ir_free(init->primal);
        core_oom(ctx, "custom derivative");
        return NULL;
    }
    *rec = *init;
    rec->ref.refs = 1;
    rec->ref.release = custom_free;
    rec->ctx = ctx;
    func_retain(rec->f);
    func_retain(rec->jvp_rule);
    func_retain(rec->fwd);
    func_retain(rec->bwd);
    return rec;
}
