/* jaxpr.c — the IR as text for users: cj_make_jaxpr and cj_print_ir
 * (api layer). Any function object can be traced, transformed or not. */
#include <string.h>

#include "../core/func.h"
#include "api.h"

cj_spec cj_spec_make(cj_dtype dtype, int rank, const int64_t *dims) {
    cj_spec s;
    memset(&s, 0, sizeof s);
    s.dtype = dtype;
    /* no context to record in: a rank the spec cannot hold (or NULL dims
     * for rank > 0) gives rank -1, which every function taking specs
     * refuses with an error naming the spec */
    if (rank < 0 || rank > CJ_MAX_RANK || (rank > 0 && !dims)) {
        s.rank = -1;
        return s;
    }
    s.rank = rank;
    for (int i = 0; i < rank; i++) s.dims[i] = dims[i];
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
    if (n_in > 0 && !in) return core_error(ctx, CJ_ERR_ARG, "cj_make_jaxpr(%s): in is NULL", f->name), NULL;
    if (n_in != f->n_in || (n_in && !in)) {
        core_error(ctx, CJ_ERR_ARG, "cj_make_jaxpr(%s): the function takes %d inputs, %d specs given", f->name,
                   f->n_in, n_in);
        return NULL;
    }
    rt_aval avals[64];
    char op[300];
    snprintf(op, sizeof op, "cj_make_jaxpr(%s)", f->name);
    for (int i = 0; i < n_in; i++)
        if (core_spec_aval(ctx, op, i, &in[i], &avals[i]) != 0) return NULL;
    char what[300];
    snprintf(what, sizeof what, "make_jaxpr(%s)", f->name);
    ir_func *ir = func_trace_to_ir(f, avals, NULL, what);
    if (!ir) return NULL;
    strbuf sb;
    sb_init(&sb, ctx->mem);
    ir_print(ir, &sb);
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
    if (n_in > 0 && !example) return core_error(f->ctx, CJ_ERR_ARG, "cj_print_ir(%s): example is NULL", f->name), f->ctx->err;
    for (int i = 0; i < n_in; i++) {
        if (example[i].ctx != f->ctx) {
            core_error(f->ctx, CJ_ERR_ARG, "cj_print_ir(%s): example %d %s", f->name, i,
                       example[i].ctx ? "belongs to another context" : API_NO_VALUE_CTX);
            return f->ctx->err;
        }
        specs[i] = cj_spec_of(example[i]);
        if (specs[i].rank < 0) return f->ctx->err;
    }
    char *s = cj_make_jaxpr(f, n_in, specs);
    if (!s) return f->ctx->err ? f->ctx->err : CJ_ERR_INTERNAL;
    if (out) fputs(s, out);
    cj_string_free(f->ctx, s);
    return CJ_OK;
}
