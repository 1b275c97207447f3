/* record.c — control-flow records: the bodies of one construct, held by
 * reference (control layer).
 *
 * A record lives as long as something refers to it: the equations naming
 * it (in jit caches, linearizations, other records' bodies), the records
 * derived from it, the function object that remembers it for reuse, and
 * whoever is building or running it. It owns its sub-programs and their
 * compiled forms, freed with it. */
#include <stdatomic.h>
#include <string.h>

#include "../backend/backend.h"
#include "control.h"

static atomic_long records_made, records_live;

long cf_records_made_for_testing(void) { return atomic_load(&records_made); }
long cf_records_live_for_testing(void) { return atomic_load(&records_live); }

/* The block of a record's n result types (one at least). */
static size_t out_bytes(int n) { return sizeof(rt_aval) * (size_t)(n > 0 ? n : 1); }

static void record_free(prim_ref *r) {
    cf_record *rec = (cf_record *)r;
    cj_ctx *ctx = rec->ctx;
    for (int k = 0; k < rec->n_progs; k++) {
        if (rec->prepared[k]) program_free(ctx, rec->prepared[k]);
        ir_free(rec->progs[k]);
    }
    for (int k = 0; k < rec->n_aux; k++) ir_free(rec->aux[k]);
    if (rec->hoisted) ir_free(rec->hoisted);
    if (rec->lin) cf_lin_info_free(ctx, rec->lin);
    if (rec->out) rt_free(ctx->mem, rec->out, out_bytes(rec->n_out));
    cf_record_release(rec->ad_known);
    cf_record_release(rec->ad_linear);
    cf_record_release(rec->ad_transposed);
    cf_batched_clear(rec);
    rt_free(ctx->mem, rec, sizeof *rec);
    atomic_fetch_sub(&records_live, 1);
}

cf_record *cf_record_new(cj_ctx *ctx, cf_kind kind) {
    cf_record *rec = rt_calloc(ctx->mem, sizeof *rec);
    if (!rec) {
        core_oom(ctx, "control flow");
        return NULL;
    }
    rec->ref.refs = 1;
    rec->ref.release = record_free;
    rec->ctx = ctx;
    rec->kind = kind;
    atomic_fetch_add(&records_made, 1);
    atomic_fetch_add(&records_live, 1);
    return rec;
}

int cf_record_outs(cf_record *rec, int n) {
    cj_ctx *ctx = rec->ctx;
    rt_aval *out = rt_calloc(ctx->mem, out_bytes(n));
    if (!out) return core_oom(ctx, "control flow");
    if (rec->out) rt_free(ctx->mem, rec->out, out_bytes(rec->n_out));
    rec->out = out;
    rec->n_out = n;
    return 0;
}

/* Whether two records describe the same construct (all but what is
 * derived from them). */
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

cf_record *cf_record_dedupe(cj_ctx *ctx, cf_record *rec, cj_func *owner) {
    (void)ctx;
    if (!owner) return cf_record_retain(rec);
    for (int i = 0; i < FUNC_MEMO; i++) {
        prim_ref *r = owner->memo[i];
        if (r && r->release == record_free && r != &rec->ref && same_record((cf_record *)r, rec))
            return cf_record_retain((cf_record *)r);
    }
    func_memo_add(owner, &rec->ref);
    return cf_record_retain(rec);
}
