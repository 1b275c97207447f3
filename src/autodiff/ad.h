/* ad.h — the autodiff machinery (autodiff layer).
 *
 * cjax differentiates programs, as JAX does, in three steps over the IR:
 *   jvp        every equation is re-bound with its primitive's jvp rule next
 *              to it (jvp.c), through the current traces;
 *   linearize  the jvp program is traced and split by partial evaluation
 *              (partial_eval.c) into a `known` program (primals → primal
 *              outputs and residuals) and a linear one (residuals and
 *              tangents → tangent outputs);
 *   transpose  the linear program is run backwards with the primitives'
 *              transpose rules (transpose.c): cotangents of the outputs →
 *              cotangents of the inputs.
 * Every step binds through the current traces, so autodiff composes with
 * jit (one program holds forward and backward), vmap (per-example
 * gradients) and itself (higher derivatives). The public transformations
 * are in grad.c and jacobian.c. */
#ifndef CJ_AD_H
#define CJ_AD_H

#include "../core/func.h"
#include <string.h>

#include "ad_rules.h"

/* Evaluates the jvp of ir through the current traces: primals in[n_in] and
 * their tangents tin[n_in] (slot 0: zero) → out[n_out] and tout[n_out]
 * (slot 0: zero). `what` names the transformation in messages. 0 or -1. */
int ad_jvp_eval(cj_ctx *ctx, const ir_func *ir, const cj_val *in, const cj_val *tin, cj_val *out, cj_val *tout,
                const char *what);

/* A program linearized at its inputs. */
typedef struct ad_linear {
    ir_func *known; /* primals → primal outputs, then the n_res residuals */
    ir_func *lin;   /* residuals, then the tangents of the differentiated
                       inputs (in input order) → the outputs' tangents */
    int n_res;
    int n_in, n_out;
    uint8_t *diff; /* which inputs are differentiated (n_in, from mem) */
    rt_mem *mem;
} ad_linear;

/* Linearizes ir with respect to the inputs flagged in diff (float inputs
 * only). 0, or -1 with the error recorded. */
int ad_linearize(cj_ctx *ctx, const ir_func *ir, const uint8_t *diff, ad_linear *out, const char *what);
void ad_linear_free(ad_linear *l);

/* Runs the transpose of `lin` through the current traces: its n_res
 * residual values and the cotangents of its outputs (slot 0: zero) → the
 * cotangents of its linear inputs (materialised, zero where none flows).
 * 0 or -1. */
int ad_transpose_eval(cj_ctx *ctx, const ir_func *lin, int n_res, const cj_val *res, const cj_val *ct,
                      cj_val *ct_in, const char *what);

/* A checkpoint policy (checkpoint.c): which values made inside a region
 * may be saved for the backward pass. */
typedef struct ad_policy {
    int kind; /* cj_remat_policy */
    int n_names;
    int names[32]; /* prim_name_id of each name */
} ad_policy;
/* Whether `policy` (an ad_policy; NULL saves everything) lets the value
 * equation e makes be saved. */
int ad_policy_saves(const void *policy, const ir_eqn *e);

/* Linearizations of one function kept per input signature (ad_cache.c),
 * so repeated eager calls of grad and friends trace once. */
#define AD_CACHE_SIZE 8
typedef struct ad_entry {
    int used;
    rt_aval avals[64];
    ad_linear lin;
} ad_entry;
typedef struct ad_cache {
    ad_entry e[AD_CACHE_SIZE];
    int next; /* round-robin replacement */
} ad_cache;
/* f linearized for these input types with respect to the inputs flagged
 * in diff (which must be the same for every call on one cache). NULL with
 * the error recorded. */
const ad_linear *ad_cache_get(cj_func *f, ad_cache *c, const rt_aval *avals, const uint8_t *diff, const char *what);
void ad_cache_clear(ad_cache *c);

#endif
