/* custom.c — the context's table of custom-derivative call records (core
 * layer; see core_custom in core.h). Records live as long as the context:
 * programs that mention them (jit caches, linearizations) may outlive the
 * trace that made them. */
#include "ir.h"

int core_custom_add(cj_ctx *ctx, const core_custom *rec) {
    if (ctx->n_customs == ctx->cap_customs) {
        int cap = ctx->cap_customs ? 2 * ctx->cap_customs : 16;
        core_custom *grown = rt_realloc(ctx->mem, ctx->customs, sizeof(core_custom) * (size_t)ctx->cap_customs,
                                        sizeof(core_custom) * (size_t)cap);
        if (!grown) {
            ir_free(rec->primal);
            return core_oom(ctx, "custom derivative");
        }
        ctx->customs = grown;
        ctx->cap_customs = cap;
    }
    ctx->customs[ctx->n_customs] = *rec;
    return ctx->n_customs++;
}

const core_custom *core_custom_get(cj_ctx *ctx, int id, const char *op) {
    if (id >= 0 && id < ctx->n_customs) return &ctx->customs[id];
    core_error(ctx, CJ_ERR_ARG, "%s: no custom-derivative call %d in this context (a program from another context?)",
               op, id);
    return NULL;
}

void core_custom_free_all(cj_ctx *ctx) {
    for (int i = 0; i < ctx->n_customs; i++) ir_free(ctx->customs[i].primal);
    if (ctx->customs) rt_free(ctx->mem, ctx->customs, sizeof(core_custom) * (size_t)ctx->cap_customs);
    ctx->customs = NULL;
    ctx->n_customs = ctx->cap_customs = 0;
}
