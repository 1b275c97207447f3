/* record.c — the context's control-flow records (control layer).
 *
 * Records live as long as the context: programs that mention them (jit
 * caches, linearizations) may outlive the trace that made them. Each
 * record owns its sub-programs and their compiled forms. */
#include "../backend/backend.h"
#include <string.h>

#include "control.h"

cf_record *cf_record_new(cj_ctx *ctx, cf_kind kind) {
    if (ctx->n_cf_records == ctx->cap_cf_records) {
        int cap = ctx->cap_cf_records ? 2 * ctx->cap_cf_records : 16;
        cf_record **grown = rt_realloc(ctx->mem, ctx->cf_records, sizeof(cf_record *) * (size_t)ctx->cap_cf_records,
                                       sizeof(cf_record *) * (size_t)cap);
        if (!grown) {
            core_oom(ctx, "control flow");
            return NULL;
        }
        ctx->cf_records = grown;
        ctx->cap_cf_records = cap;
    }
    cf_record *rec = rt_calloc(ctx->mem, sizeof *rec);
    if (!rec) {
        core_oom(ctx, "control flow");
        return NULL;
    }
    rec->kind = kind;
    rec->id = ctx->n_cf_records;
    ctx->cf_records[ctx->n_cf_records++] = rec;
    return rec;
}

/* Whether two records describe the same construct (all but id and what
 * is derived from them). */
static int same_record(const cf_record *a, const cf_record *b) {
    if (a->kind != b->kind || a->n_progs != b->n_progs || a->n_operands != b->n_operands || a->n_args != b->n_args ||
        a->n_xs != b->n_xs || a->length != b->length || a->reverse != b->reverse || a->n_out != b->n_out || a->lin ||
        b->lin)
        return 0;
    if (memcmp(a->clo_start, b->clo_start, sizeof a->clo_start) || memcmp(a->clo_n, b->clo_n, sizeof a->clo_n) ||
        memcmp(a->out, b->out, sizeof(rt_aval) * (size_t)a->n_out))
        return 0;
    for (int k = 0; k < a->n_progs; k++)
        if (!ir_same(a->progs[k], b->progs[k])) return 0;
    return 1;
}

cf_record *cf_record_dedupe(cj_ctx *ctx, cf_record *rec) {
    /* the most recent records first: a construct in a loop was made last */
    for (int i = rec->id - 1, seen = 0; i >= 0 && seen < 256; i--, seen++) {
        cf_record *old = ctx->cf_records[i];
        /* an unfinished record may be the construct whose body made rec */
        if (!old->finished || !same_record(old, rec)) continue;
        for (int k = 0; k < rec->n_progs; k++) ir_free(rec->progs[k]);
        rec->n_progs = 0;
        if (rec->id == ctx->n_cf_records - 1) { /* the usual case: drop it */
            ctx->n_cf_records--;
            rt_free(ctx->mem, rec, sizeof *rec);
        }
        return old;
    }
    rec->finished = 1;
    return rec;
}

cf_record *cf_record_get(cj_ctx *ctx, int id, const char *op) {
    if (id >= 0 && id < ctx->n_cf_records) return ctx->cf_records[id];
    core_error(ctx, CJ_ERR_ARG, "%s: no control-flow construct %d in this context (a program from another context?)",
               op, id);
    return NULL;
}

void cf_free_all(cj_ctx *ctx) {
    cf_batch_free(ctx);
    for (int i = 0; i < ctx->n_cf_records; i++) {
        cf_record *rec = ctx->cf_records[i];
        for (int k = 0; k < rec->n_progs; k++) {
            if (rec->prepared[k]) program_free(ctx, rec->prepared[k]);
            ir_free(rec->progs[k]);
        }
        for (int k = 0; k < rec->n_aux; k++) ir_free(rec->aux[k]);
        if (rec->lin) rt_free(ctx->mem, rec->lin, cf_lin_info_size());
        rt_free(ctx->mem, rec, sizeof *rec);
    }
    if (ctx->cf_records) rt_free(ctx->mem, ctx->cf_records, sizeof(cf_record *) * (size_t)ctx->cap_cf_records);
    ctx->cf_records = NULL;
    ctx->n_cf_records = ctx->cap_cf_records = 0;
}
