/* init.c — the top of the library: the one init that registers every rule,
 * and the public constructor of a context, which runs it.
 *
 * Every layer below defines its rules and the primitive table (core) holds
 * them as data; only this file knows all the families — the primitives'
 * own rules (src/prim/), their jvp and transpose rules (src/autodiff/
 * rules_*.c), custom derivatives and control flow — so no lower layer calls
 * up to register anything (tools/layers.txt puts this file above every
 * other). Every computation needs a context, and every context is made by
 * cj_ctx_new, so the table is filled before any rule is read. */
#include <pthread.h>

#include "core/core.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void register_all(void) {
    prim_register_elementwise();
    prim_register_shape();
    prim_register_reduce();
    prim_register_dot();
    prim_register_gather();
    prim_register_ad();
    prim_register_random();
    prim_register_sort();
    prim_register_linalg();
    prim_register_linalg_decomp();
    prim_register_linalg_eigh();
    prim_register_linalg_svd();
    prim_register_conv();
    prim_register_reduce_window();
    prim_register_gather_general();
    prim_register_collective();
    ad_register_elementwise();
    ad_register_shape();
    ad_register_reduce();
    ad_register_dot_gather();
    ad_register_markers();
    ad_register_custom();
    ad_register_sort();
    ad_register_linalg();
    ad_register_conv();
    ad_register_reduce_window();
    ad_register_gather_general();
    ad_register_collective();
    cf_register();
    cf_register_ad();
}

cj_ctx *cj_ctx_new(const cj_allocator *alloc) {
    pthread_once(&once, register_all);
    return core_ctx_new(alloc);
}
