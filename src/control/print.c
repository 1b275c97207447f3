/* print.c — the text form of control-flow constructs (control layer).
 *
 * A construct's equations print as `scan[construct=3 output=0]`; after the
 * program, cj_make_jaxpr appends each construct it mentions (and those
 * their bodies mention) with its parameters and sub-programs:
 *
 *   construct 3 = scan length=6 reverse=False carries=1 xs=1 closure=1
 *     body: { lambda ; a:f32[4] b:f32[4] c:f32[4,4]. let ... }
 */
#include "control.h"

static const char *kind_name(cf_kind k) { return k == CF_COND ? "cond" : k == CF_WHILE ? "while" : "scan"; }

/* Marks the constructs a program mentions, then prints the new ones. */
static void print_constructs(cj_ctx *ctx, const ir_func *f, strbuf *sb, uint8_t *done, int depth) {
    for (int k = 0; k < f->n_eqns; k++) {
        const ir_eqn *e = &f->eqns[k];
        if (!cf_is_prim(e->prim) || e->params.flag < 0 || e->params.flag >= ctx->n_cf_records || done[e->params.flag])
            continue;
        const cf_record *rec = ctx->cf_records[e->params.flag];
        done[rec->id] = 1;
        sb_printf(sb, "construct %d = %s", rec->id, kind_name(rec->kind));
        if (rec->kind == CF_SCAN)
            sb_printf(sb, " length=%lld reverse=%s carries=%d xs=%d", (long long)rec->length,
                      rec->reverse ? "True" : "False", rec->n_args, rec->n_xs);
        if (rec->kind == CF_WHILE) sb_printf(sb, " carries=%d", rec->n_args);
        if (rec->kind == CF_COND) sb_printf(sb, " branches=%d operands=%d", rec->n_progs, rec->n_args);
        sb_printf(sb, "\n");
        for (int p = 0; p < rec->n_progs; p++) {
            if (rec->kind == CF_COND) sb_printf(sb, "  branch %d (closure %d):\n", p, rec->clo_n[p]);
            else if (rec->kind == CF_WHILE) sb_printf(sb, "  %s (closure %d):\n", p ? "body" : "cond", rec->clo_n[p]);
            else sb_printf(sb, "  body (closure %d):\n", rec->clo_n[p]);
            ir_print(rec->progs[p], sb);
        }
        if (depth < 16)
            for (int p = 0; p < rec->n_progs; p++) print_constructs(ctx, rec->progs[p], sb, done, depth + 1);
    }
}

static void print_all(cj_ctx *ctx, const ir_func *f, strbuf *sb) {
    if (!ctx->n_cf_records) return;
    uint8_t *done = rt_calloc(ctx->mem, (size_t)ctx->n_cf_records);
    if (!done) return; /* the program itself is printed; its constructs are an extra */
    print_constructs(ctx, f, sb, done, 0);
    rt_free(ctx->mem, done, (size_t)ctx->n_cf_records);
}

void cf_register_print(void) { ir_print_constructs = print_all; }
