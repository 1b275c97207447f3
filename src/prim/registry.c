/* registry.c — the primitive tables expanded from prims.def, and helpers
 * shared by the family files (prim layer). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "../core/core.h"
#include "prim.h"

const char *const prim_names[PRIM_COUNT] = {
#define X(id, name, nin, fam) [PRIM_##id] = name,
#include "prims.def"
#undef X
};

const int prim_arity[PRIM_COUNT] = {
#define X(id, name, nin, fam) [PRIM_##id] = nin,
#include "prims.def"
#undef X
};

const prim_family prim_families[PRIM_COUNT] = {
#define X(id, name, nin, fam) [PRIM_##id] = FAMILY_##fam,
#include "prims.def"
#undef X
};

prim_rule prim_rules[PRIM_COUNT];

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void register_all(void) {
    prim_register_elementwise();
    prim_register_shape();
    prim_register_reduce();
    prim_register_dot();
    prim_register_gather();
    prim_register_ad();
    prim_register_random();
    ad_register_elementwise();
    ad_register_shape();
    ad_register_reduce();
    ad_register_dot_gather();
    ad_register_markers();
    ad_register_custom();
    cf_register();
    cf_register_ad();
}

void prim_init(void) { pthread_once(&once, register_all); }

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
