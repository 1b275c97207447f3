/* prim_table.c — the primitive tables as data (core layer).
 *
 * The names, arities and families expanded from src/prim/prims.def, and the
 * table of rule records (src/prim/prim.h). Core reads them — it binds
 * primitives, builds, verifies and prints the IR — and calls the rules
 * only through the records' function pointers, so it depends on no family
 * file: the rows are filled by the family files (src/prim/, the autodiff
 * rules, control flow) when the top-level init (src/init.c) calls their
 * register functions. prim_error lives here too: the rules above report
 * their errors through the context, which is core's. */
#include <stdio.h>
#include <string.h>

#include "core.h"

const char *const prim_names[PRIM_COUNT] = {
#define X(id, name, nin, fam) [PRIM_##id] = name,
#include "../prim/prims.def"
#undef X
};

const int prim_arity[PRIM_COUNT] = {
#define X(id, name, nin, fam) [PRIM_##id] = nin,
#include "../prim/prims.def"
#undef X
};

const prim_family prim_families[PRIM_COUNT] = {
#define X(id, name, nin, fam) [PRIM_##id] = FAMILY_##fam,
#include "../prim/prims.def"
#undef X
};

prim_rule prim_rules[PRIM_COUNT];

prim_params prim_params_zero(void) {
    prim_params p;
    memset(&p, 0, sizeof p);
    return p;
}

int prim_print_ivec(char *buf, size_t size, const char *name, const prim_ivec *v) {
    int n = snprintf(buf, size, "%s=(", name);
    for (int i = 0; i < v->n; i++) {
        size_t at = n > 0 && (size_t)n < size ? (size_t)n : size;
        n += snprintf(buf + at, size - at, "%s%lld", i ? ", " : "", (long long)v->v[i]);
    }
    size_t at = n > 0 && (size_t)n < size ? (size_t)n : size;
    n += snprintf(buf + at, size - at, v->n == 1 ? ",)" : ")");
    return n;
}

int prim_error(struct cj_ctx *ctx, cj_status code, prim_id p, const char *fmt, ...) {
    if (!ctx || ctx->err) return -1;
    char body[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(body, sizeof body, fmt, ap);
    va_end(ap);
    return core_error(ctx, code, "%s: %s", prim_names[p], body);
}
