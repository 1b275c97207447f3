/* ad_prims.c — primitives that exist for autodiff (prim layer).
 *
 *   stop_gradient x            x, through which no derivative flows; the
 *                              compiler drops it (simplify: identity).
 *   optimization_barrier x a   x, not computed before `a` exists and never
 *                              merged with an equal computation: checkpoint
 *                              puts it on the values a recomputation starts
 *                              from, so the compiler neither hoists the
 *                              recomputation into the forward pass nor
 *                              shares it with the forward pass's copy (which
 *                              would keep what checkpoint meant to free).
 *   name[name=h] x             x, given a name by checkpoint_name so that a
 *                              checkpoint policy can choose to save it;
 *                              params.flag is the name's id in a process-wide
 *                              table (prim_name_id / prim_name_str).
 * The custom-derivative calls (custom_jvp_call, custom_vjp_call,
 * custom_lin) have their rules in src/autodiff/custom.c. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "../core/core.h"
#include "batching.h"

static int ad_abstract_eval(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const rt_aval *in,
                            rt_aval *out) {
    (void)ctx, (void)prim, (void)p, (void)n_in;
    *out = in[0];
    return 0;
}

static int ad_impl(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, rt_array *const *in,
                   rt_array *out) {
    (void)ctx, (void)prim, (void)p, (void)n_in;
    size_t n = rt_aval_nbytes(&in[0]->aval);
    /* a compiled barrier may have been given its operand's own buffer */
    if (n && out->data != in[0]->data) memcpy(out->data, in[0]->data, n);
    return 0;
}

/* The result is batched exactly as x is; the barrier's second operand only
 * orders it. */
static int ad_batch(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                    const int64_t *bdim, int64_t size, cj_val *out, int64_t *out_bdim) {
    (void)size;
    *out = core_bind(ctx, prim, p, n_in, in);
    *out_bdim = bdim[0];
    return out->slot ? 0 : -1;
}

/* ---- the name table: ids are small, stable and comparable bytewise ---- */
#define MAX_NAMES 4096
#define MAX_NAME_LEN 63
static char names[MAX_NAMES][MAX_NAME_LEN + 1];
static int n_names;
static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;

int prim_name_id(const char *name) {
    if (!name || !*name || strlen(name) > MAX_NAME_LEN) return -1;
    pthread_mutex_lock(&names_lock);
    int id = -1;
    for (int i = 0; i < n_names && id < 0; i++)
        if (!strcmp(names[i], name)) id = i;
    if (id < 0 && n_names < MAX_NAMES) {
        id = n_names++;
        strcpy(names[id], name);
    }
    pthread_mutex_unlock(&names_lock);
    return id;
}

const char *prim_name_str(int id) {
    pthread_mutex_lock(&names_lock);
    const char *s = id >= 0 && id < n_names ? names[id] : "?";
    pthread_mutex_unlock(&names_lock);
    return s;
}

static int name_print_params(const prim_params *p, char *buf, size_t size) {
    return snprintf(buf, size, "name=%s", prim_name_str(p->flag));
}

void prim_register_ad(void) {
    for (int id = PRIM_STOP_GRADIENT; id <= PRIM_NAME; id++)
        prim_rules[id] = (prim_rule){
            .abstract_eval = ad_abstract_eval,
            .impl = ad_impl,
            .lower = {.kind = LOWER_OPAQUE},
            .batch = ad_batch,
            /* every dtype: they move bytes (cj_softmax and cj_logsumexp of
             * bf16/f16 stop the gradient of their max; found by the fuzzer) */
            .extra_dtypes = true,
        };
    prim_rules[PRIM_NAME].print_params = name_print_params;
    /* stop_gradient and name did their work when the program was
     * differentiated: compiled, they are their operand */
    prim_rules[PRIM_STOP_GRADIENT].lower.noop_operand = 1;
    prim_rules[PRIM_NAME].lower.noop_operand = 1;
    /* the barrier's result is its first operand: the plan gives it that
     * buffer, so it copies nothing */
    prim_rules[PRIM_OPT_BARRIER].lower.updates_operand0 = true;
    /* and an argument's buffer, which nothing writes, is shared outright */
    prim_rules[PRIM_OPT_BARRIER].lower.result_is_operand0 = true;
}
