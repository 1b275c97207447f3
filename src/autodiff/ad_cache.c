/* ad_cache.c — linearizations kept per input signature (autodiff layer).
 *
 * A function differentiated repeatedly with the same input types (an
 * eager training loop) is traced and linearized once; the key is every
 * input's dtype, shape and weak type, as for jit. */
#include "ad.h"

void ad_cache_clear(ad_cache *c) {
    for (int i = 0; i < AD_CACHE_SIZE; i++)
        if (c->e[i].used) ad_linear_free(&c->e[i].lin), c->e[i].used = 0;
}

const ad_linear *ad_cache_get(cj_func *f, ad_cache *c, const rt_aval *avals, const uint8_t *diff,
                                   const char *what) {
    for (int i = 0; i < AD_CACHE_SIZE; i++) {
        ad_entry *e = &c->e[i];
        if (!e->used) continue;
        int hit = 1;
        for (int k = 0; k < f->n_in && hit; k++) hit = rt_aval_equal(&e->avals[k], &avals[k]);
        if (hit) return &e->lin;
    }
    ir_func *ir = func_trace_to_ir(f, avals, NULL, what);
    if (!ir) return NULL;
    ad_entry *e = &c->e[c->next];
    c->next = (c->next + 1) % AD_CACHE_SIZE;
    if (e->used) ad_linear_free(&e->lin), e->used = 0;
    int status = ad_linearize(f->ctx, ir, diff, &e->lin, what);
    ir_free(ir);
    if (status != 0) return NULL;
    memcpy(e->avals, avals, sizeof(rt_aval) * (size_t)f->n_in);
    e->used = 1;
    return &e->lin;
}

