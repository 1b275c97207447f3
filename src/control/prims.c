/* prims.c — the control-flow primitives cond, while and scan (control
 * layer): one equation per output of a construct; their shape rule, eager
 * kernel and printer. The vmap and autodiff rules are in batch.c and
 * ad.c. */
#include <stdio.h>
#include <string.h>

#include "control.h"

/* The type operand i must have, from the sub-programs' inputs. */
static int expected_operand(const cf_record *rec, int i, rt_aval *out) {
    const ir_func *p0 = rec->progs[0];
    switch (rec->kind) {
    case CF_COND:
        if (i == 0) return 1; /* the index: checked separately */
        if (i <= rec->n_args) {
            *out = p0->vars[p0->in[i - 1]];
            return 0;
        }
        for (int b = 0; b < rec->n_progs; b++)
            if (i >= rec->clo_start[b] && i < rec->clo_start[b] + rec->clo_n[b]) {
                const ir_func *pb = rec->progs[b];
                *out = pb->vars[pb->in[rec->n_args + i - rec->clo_start[b]]];
                return 0;
            }
        return -1;
    case CF_WHILE:
        if (i < rec->n_args) {
            *out = rec->progs[1]->vars[rec->progs[1]->in[i]];
            return 0;
        }
        for (int k = 0; k < 2; k++)
            if (i >= rec->clo_start[k] && i < rec->clo_start[k] + rec->clo_n[k]) {
                const ir_func *pk = rec->progs[k];
                *out = pk->vars[pk->in[rec->n_args + i - rec->clo_start[k]]];
                return 0;
            }
        return -1;
    case CF_SCAN:
        if (i < rec->n_args + rec->n_xs) {
            *out = p0->vars[p0->in[i]];
            if (i >= rec->n_args) { /* xs: stacked along a leading axis of length */
                memmove(out->dims + 1, out->dims, sizeof(int64_t) * (size_t)out->rank);
                out->dims[0] = rec->length;
                out->rank++;
            }
            return 0;
        }
        *out = p0->vars[p0->in[rec->n_args + rec->n_xs + i - rec->clo_start[0]]];
        return 0;
    }
    return -1;
}

static int cf_abstract_eval(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const rt_aval *in,
                            rt_aval *out) {
    const cf_record *rec = cf_record_get(ctx, p->flag, prim_names[prim]);
    if (!rec) return -1;
    if (n_in != rec->n_operands || p->index < 0 || p->index >= rec->n_out)
        return prim_error(ctx, CJ_ERR_ARG, prim, "%d operands and output %d for a construct of %d operands and %d outputs",
                          n_in, p->index, rec->n_operands, rec->n_out);
    for (int i = 0; i < n_in; i++) {
        rt_aval want;
        if (expected_operand(rec, i, &want) != 0) continue;
        if (!rt_aval_same_type(&want, &in[i])) {
            char a[96], b[96];
            rt_aval_str(&in[i], a, sizeof a);
            rt_aval_str(&want, b, sizeof b);
            return prim_error(ctx, CJ_ERR_SHAPE, prim, "operand %d has type %s, the construct was traced for %s", i, a,
                              b);
        }
    }
    *out = rec->out[p->index];
    return 0;
}

/* One output: the construct runs whole and the others are dropped (the
 * compiler groups a construct's equations so compiled programs run it
 * once). */
static int cf_impl(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, rt_array *const *in, rt_array *out) {
    (void)n_in;
    cf_record *rec = cf_record_get(ctx, p->flag, prim_names[prim]);
    if (!rec) return -1;
    rt_array *res[CF_MAX_OUT];
    if (cf_run(ctx, rec, CJ_BACKEND_DEFAULT, in, res) != 0) return -1;
    size_t n = rt_aval_nbytes(&out->aval);
    if (n) memcpy(out->data, res[p->index]->data, n);
    for (int j = 0; j < rec->n_out; j++) rt_array_unref(res[j]);
    return 0;
}

static int cf_print_params(const prim_params *p, char *buf, size_t size) {
    return snprintf(buf, size, "construct=%d output=%d", p->flag, p->index);
}

int cf_bind(cj_ctx *ctx, const cf_record *rec, const cj_val *operands, cj_val *out) {
    prim_params p = prim_params_zero();
    p.flag = rec->id;
    for (int j = 0; j < rec->n_out; j++) {
        p.index = j;
        out[j] = core_bind(ctx, cf_prim(rec->kind), &p, rec->n_operands, operands);
        if (!out[j].slot) return -1;
    }
    return 0;
}

void cf_register(void) {
    for (int id = PRIM_COND; id <= PRIM_SCAN; id++)
        prim_rules[id] = (prim_rule){
            .abstract_eval = cf_abstract_eval,
            .impl = cf_impl,
            .print_params = cf_print_params,
            .lower = {.kind = LOWER_CONSTRUCT},
        };
    cf_register_batch();
}
