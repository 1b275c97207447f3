/* prims.c — the control-flow primitives cond, while and scan (control
 * layer): one equation of all a construct's outputs, its record (the
 * bodies) held by reference in params.ref; their shape rule, eager kernel
 * and printer (the bodies' text is print.c's). The vmap and autodiff rules
 * are in batch.c and ad.c. */
#include <stdio.h>
#include <string.h>

#include "../backend/control_run.h"
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
                            int *n_out, rt_aval *out) {
    const cf_record *rec = cf_of(p);
    if (!rec || rec->ref.release == NULL || cf_prim(rec->kind) != prim)
        return prim_error(ctx, CJ_ERR_ARG, prim, "the parameters hold no %s construct", prim_names[prim]);
    if (rec->ctx != ctx)
        return prim_error(ctx, CJ_ERR_ARG, prim, "the construct belongs to another context");
    if (n_in != rec->n_operands)
        return prim_error(ctx, CJ_ERR_ARG, prim, "%d operands for a construct of %d operands", n_in, rec->n_operands);
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
    if (rec->n_out > *n_out) /* *n_out: the room the caller has */
        return prim_error(ctx, CJ_ERR_INTERNAL, prim, "bound for %d results, the construct has %d", *n_out,
                          rec->n_out);
    *n_out = rec->n_out;
    memcpy(out, rec->out, sizeof(rt_aval) * (size_t)rec->n_out);
    return 0;
}

/* The construct runs once and writes every output. */
static int cf_impl(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, rt_array *const *in, int n_out,
                   rt_array *const *out) {
    (void)prim, (void)n_in, (void)n_out;
    return cf_run(ctx, cf_of(p), CJ_BACKEND_DEFAULT, in, out);
}

static int cf_print_params(const prim_params *p, char *buf, size_t size) {
    const cf_record *rec = cf_of(p);
    switch (rec->kind) {
    case CF_COND:
        return snprintf(buf, size, "operands=%d", rec->n_args);
    case CF_WHILE:
        return snprintf(buf, size, "carries=%d cond_closure=%d body_closure=%d", rec->n_args, rec->clo_n[0],
                        rec->clo_n[1]);
    case CF_SCAN:
        return snprintf(buf, size, "length=%lld reverse=%s carries=%d xs=%d closure=%d", (long long)rec->length,
                        rec->reverse ? "True" : "False", rec->n_args, rec->n_xs, rec->clo_n[0]);
    }
    return 0;
}

int cf_bind(cj_ctx *ctx, const cf_record *rec, const cj_val *operands, cj_val *out) {
    prim_params p = prim_params_zero();
    p.ref = (prim_ref *)&rec->ref;
    return core_bind_multi(ctx, cf_prim(rec->kind), &p, rec->n_operands, operands, rec->n_out, out);
}

void cf_register(void) {
    for (int id = PRIM_COND; id <= PRIM_SCAN; id++)
        prim_rules[id] = (prim_rule){
            .print_params = cf_print_params,
            .lower = {.kind = LOWER_CONSTRUCT},
            .multiple_results = 1,
            .abstract_eval_multi = cf_abstract_eval,
            .impl_multi = cf_impl,
            /* a construct moves its carries whatever their dtype; the
             * primitives inside its bodies check their own */
            .extra_dtypes = 1,
        };
    cf_register_batch();
    cf_register_hoist();
}
