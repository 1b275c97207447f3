/* jaxpr.c — the IR as text for users: cj_make_jaxpr and cj_print_ir
 * (api layer). Any function object can be traced, transformed or not. */
#include <string.h>

#include "../core/func.h"
#include "api.h"

cj_spec cj_spec_make(cj_dtype dtype, int rank, const int64_t *dims) {
    cj_spec s;
    memset(&s, 0, sizeof s);
    s.dtype = dtype;
    s.rank = rank < 0 ? 0 : rank > CJ_MAX_RANK ? CJ_MAX_RANK : rank;
    for (int i = 0; i < s.rank && dims; i++) s.dims[i] = dims[i];
    return s;
}

cj_spec cj_spec_of(cj_val v) {
    cj_spec s;
    memset(&s, 0, sizeof s);
    core_value *cv = core_get(v, "cj_spec_of");
    if (!cv) {
        s.rank = -1;
        return s;
    }
    s.dtype = cv->aval.dtype;
    s.rank = cv->aval.rank;
    s.weak = cv->aval.weak;
    memcpy(s.dims, cv->aval.dims, sizeof s.dims);
    return s;
}

char *cj_make_jaxpr(cj_func *f, int n_in, const cj_spec *in) {
    if (!func_check(NULL, f, "cj_make_jaxpr", "f")) return NULL; /* NULL, freed, or of a freed context */
    cj_ctx *ctx = f->ctx;
    if (ctx->err) return NULL;
    if (n_in != f->n_in || (n_in && !in)) {
        core_error(ctx, CJ_ERR_ARG, "cj_make_jaxpr(%s): the function takes %d inputs, %d specs given", f->name,
                   f->n_in, n_in);
        return NULL;
    }
    rt_aval avals[64];
    for (int i = 0; i < n_in; i++) {
        if (!rt_dtype_valid((int)in[i].dtype) || in[i].rank < 0 || in[i].rank > CJ_MAX_RANK) {
            core_error(ctx, CJ_ERR_ARG, "cj_make_jaxpr(%s): spec %d is not a valid type", f->name, i);
            return NULL;
        }
        avals[i] = rt_aval_make(in[i].dtype, in[i].rank, in[i].dims);
        avals[i].weak = in[i].weak;
        for (int d = 0; d < in[i].rank; d++)
            if (in[i].dims[d] < 0) {
                core_error(ctx, CJ_ERR_SHAPE, "cj_make_jaxpr(%s): spec %d has a negative dimension", f->name, i);
                return NULL;
            }
    }
    char what[300];
    snprintf(what, sizeof what, "make_jaxpr(%s)", f->name);
    ir_func *ir = func_trace_to_ir(f, avals, NULL, what);
    if (!ir) return NULL;
    strbuf sb;
    sb_init(&sb, ctx->mem);
    ir_print(ir, &sb);
    if (ir_print_constructs) ir_print_constructs(ctx, ir, &sb);
    ir_free(ir);
    if (sb.failed || !sb.data) {
        sb_free(&sb);
        core_oom(ctx, what);
        return NULL;
    }
    /* hand back an exactly sized string so cj_string_free can find its size */
    char *s = rt_strdup(ctx->mem, sb.data);
    sb_free(&sb);
    if (!s) core_oom(ctx, what);
    return s;
}

void cj_string_free(cj_ctx *ctx, char *s) {
    if (ctx && s) rt_strfree(ctx->mem, s);
}

cj_status cj_print_ir(cj_func *f, int n_in, const cj_val *example, FILE *out) {
    if (!func_check(NULL, f, "cj_print_ir", "f")) return CJ_ERR_ARG; /* NULL, freed, or of a freed context */
    cj_spec specs[64];
    if (n_in < 0 || n_in > 64) {
        core_error(f->ctx, CJ_ERR_ARG, "cj_print_ir: bad input count %d", n_in);
        return f->ctx->err;
    }
    for (int i = 0; i < n_in; i++) {
        specs[i] = cj_spec_of(example[i]);
        if (specs[i].rank < 0) return f->ctx->err;
    }
    char *s = cj_make_jaxpr(f, n_in, specs);
    if (!s) return f->ctx->err ? f->ctx->err : CJ_ERR_INTERNAL;
    if (out) fputs(s, out);
    cj_string_free(f->ctx, s);
    return CJ_OK;
}
