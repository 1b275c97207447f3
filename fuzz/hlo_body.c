/* hlo_body.c — the StableHLO text fuzz body: one input through
 * cj_import_stablehlo, then, when it imports, traced for its entry's
 * argument types (see fuzz_inputs.h; shared by fuzz_hlo.c and
 * tests/test_fuzz_inputs.c).
 *
 * Beyond "no crash, no hang": a refusal is CJ_ERR_ARG / CJ_ERR_DTYPE
 * (CJ_ERR_OOM when the counting allocator refused a block) with a message
 * naming cj_import_stablehlo and, for the parser's errors, a line and a
 * column; an imported module's trace either gives IR text or an error
 * naming the import; nothing is left allocated. The entry's argument
 * types come from the parser itself (src/import/hlo.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjax.h"
#include "core/core.h"
#include "fuzz_body_util.h"
#include "fuzz_inputs.h"
#include "import/hlo.h"

static const char *check(cj_ctx *ctx, const uint8_t *data, size_t size, fuzz_outcome *outcome) {
    *outcome = FUZZ_REJECTED;
    cj_func *f = cj_import_stablehlo(ctx, (const char *)data, size, NULL);
    if (!f) {
        cj_status st = cj_error(ctx);
        const char *msg = cj_error_message(ctx);
        if (st != CJ_ERR_ARG && st != CJ_ERR_DTYPE && st != CJ_ERR_OOM)
            return fail("refused with %s: %s", cj_status_name(st), msg);
        if (strncmp(msg, "cj_import_stablehlo: ", 21) != 0) return fail("a refusal that does not name the import: %s", msg);
        if (st == CJ_ERR_ARG && !strstr(msg, "line ") && !strstr(msg, "no func.func") && !strstr(msg, "arguments"))
            return fail("a parse error without a line: %s", msg);
        return NULL;
    }
    *outcome = FUZZ_ACCEPTED;
    /* the argument types, as the parser read them */
    char err[256];
    hlo_module *m = hlo_parse(ctx->mem, (const char *)data, size, err, sizeof err);
    if (!m) return fail("imported, but a second parse failed: %s", err);
    const hlo_func *fn = hlo_find_func(m, "main", 4);
    cj_spec specs[64];
    int n = fn ? fn->n_args : 0, ok = fn != NULL;
    for (int i = 0; ok && i < n && i < 64; i++) specs[i] = cj_spec_make(fn->arg_types[i].dt, fn->arg_types[i].rank, fn->arg_types[i].dims);
    hlo_module_free(m);
    if (!ok) return fail("imported without a @main");
    char *ir = cj_make_jaxpr(f, n, specs);
    if (ir) cj_string_free(ctx, ir);
    else if (!cj_error(ctx)) return fail("a trace failed without an error");
    return NULL;
}

const char *fuzz_hlo_one(const uint8_t *data, size_t size, fuzz_outcome *outcome) {
    counting c = {0, (size_t)64 << 20, 0};
    cj_allocator a = {counted_alloc, counted_free, &c};
    cj_ctx *ctx = cj_ctx_new(&a);
    if (!ctx) return fail("cj_ctx_new failed");
    const char *problem = check(ctx, data, size, outcome);
    cj_ctx_free(ctx);
    if (!problem && c.live) return fail("%zu bytes left allocated", c.live);
    return problem;
}
