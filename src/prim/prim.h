/* prim.h — primitives: the unit every layer above works in (prim layer).
 *
 * A primitive is a row of prims.def plus a rule record: abstract_eval
 * (output types from input types; ALL shape/dtype validation and the
 * user-facing messages live here, so eager, traced and compiled paths say
 * the same thing), impl (the eager kernel), and slots for the
 * transformations (jvp, transpose, batch) and the compiler (lower kind)
 * that later layers fill. Parameters are one flat, zero-initialised struct
 * so they can be compared and hashed bytewise. */
#ifndef CJ_PRIM_H
#define CJ_PRIM_H

/* The most operands one equation takes (a control-flow construct's
 * operands, residuals and closure values take the most). Every path that
 * binds, stages, evaluates or transforms one equation sizes its per-operand
 * tables by it; core_bind refuses more. */
#define PRIM_MAX_OPERANDS 128
/* The most results one equation defines (a construct's outputs, with the
 * residuals its linearization adds). */
#define PRIM_MAX_RESULTS 64

#include "../runtime/runtime.h"

typedef enum prim_id {
#define X(id, name, nin, fam) PRIM_##id,
#include "prims.def"
#undef X
    PRIM_COUNT
} prim_id;

typedef enum prim_family { FAMILY_ELEMENTWISE, FAMILY_SHAPE, FAMILY_REDUCE, FAMILY_DOT, FAMILY_GATHER, FAMILY_AD, FAMILY_CONTROL, FAMILY_RANDOM } prim_family;

/* A list of axes or sizes. */
typedef struct prim_ivec {
    int n;
    int64_t v[CJ_MAX_RANK];
} prim_ivec;

/* A reference-counted object a parameter holds by reference: the body
 * programs of a control-flow construct (as JAX's
 * `while_p.bind(cond_jaxpr=..., body_jaxpr=...)`). Every equation whose
 * params name it holds one reference (ir_add_eqn and ir_copy take it,
 * ir_free drops it); parameters compare and hash it by identity, so the
 * owner deduplicates equal objects (cf_record_dedupe). `release` frees the
 * object when the last reference goes. */
typedef struct prim_ref {
    int refs;
    void (*release)(struct prim_ref *r);
} prim_ref;
static inline prim_ref *prim_ref_retain(prim_ref *r) {
    if (r) r->refs++;
    return r;
}
static inline void prim_ref_release(prim_ref *r) {
    if (r && --r->refs == 0) r->release(r);
}

/* Parameters of every primitive; each uses the fields its comment names.
 * Always start from prim_params_zero() so unused bytes compare equal. */
typedef struct prim_params {
    prim_ivec axes;  /* reduce axes; broadcast_in_dim dims; transpose perm;
                        squeeze/rev dims; expand_dims/concatenate/cumulative/
                        arg-reduce/gather axis (n = 1) */
    prim_ivec shape; /* result shape: broadcast_in_dim, reshape, iota;
                        dynamic_slice sizes */
    prim_ivec lo;    /* slice start; pad low */
    prim_ivec hi;    /* slice limit; pad high */
    prim_ivec step;  /* slice strides; pad interior */
    prim_ivec lhs_contract, rhs_contract, lhs_batch, rhs_batch; /* dot_general */
    cj_dtype dtype;  /* convert, iota, argmax index type; dot_general:
                        preferred_element_type (must equal the operands') */
    int weak;        /* convert: result weakly typed */
    int flag;        /* cumulative: reverse; gather/scatter: 0 take, 1 along;
                        custom calls: the record's id */
    prim_ref *ref;   /* control flow: the construct's record (its bodies) */
} prim_params;

prim_params prim_params_zero(void);

struct cj_ctx;

/* Validates inputs and computes output types. Returns 0, or records the
 * error in ctx (naming the primitive and the shapes) and returns -1. */
typedef int (*prim_abstract_eval_fn)(struct cj_ctx *ctx, prim_id prim, const prim_params *p,
                                     int n_in, const rt_aval *in, rt_aval *out);
/* Eager kernel: inputs and the (already allocated) output arrays. Returns
 * 0, or records an error and returns -1 (only for runtime failures such as
 * out of memory: shapes were validated by abstract_eval). */
typedef int (*prim_impl_fn)(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in,
                            rt_array *const *in, rt_array *out);

/* How the compiler sees a primitive (used by the fusion pass). */
typedef enum prim_lower_kind {
    LOWER_ELEMENTWISE,
    LOWER_DATA_MOVEMENT,
    LOWER_REDUCTION,
    LOWER_DOT,
    LOWER_OPAQUE
} prim_lower_kind;

/* vmap: the batch axis of a value that is not batched. */
#define BDIM_NONE ((int64_t)-1)

/* The vmap rule: operands are the underlying (one level down) values, with
 * their batch axes (BDIM_NONE when not batched; at least one is batched)
 * and the batch size. Binds whatever computes the batched result and
 * writes it with its batch axis. 0, or -1 with the error recorded. */
typedef int (*prim_batch_fn)(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in,
                             const cj_val *in, const int64_t *bdim, int64_t size, cj_val *out,
                             int64_t *out_bdim);

/* Autodiff rules (filled by src/autodiff/rules_*.c; see ad.h).
 *
 * jvp: primals `in`, their tangents `tin` (a handle with slot 0 is a
 * symbolic zero), and the primal output `out` already computed. Binds the
 * tangent of the output through the current traces (it must be linear in
 * the tangents: tangent × value known from the primals, sums, and linear
 * primitives) and writes it to *tout, or a slot-0 handle for zero.
 *
 * transpose: for a primitive linear in the operands flagged in `linear`
 * (1) given the others, which are in `in` (linear operands' entries are
 * slot-0 handles). `in_avals` are every operand's types, `ct` the
 * cotangent of the output (never zero). Writes ct_in[i] for each linear
 * operand (slot 0 for zero) and leaves the others alone.
 * Both return 0, or -1 with the error recorded. */
typedef int (*prim_jvp_fn)(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                           const cj_val *tin, cj_val out, cj_val *tout);
typedef int (*prim_transpose_fn)(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in,
                                 const cj_val *in, const int *linear, const rt_aval *in_avals, cj_val ct,
                                 cj_val *ct_in);

/* Primitives with several results (multiple_results set in the rule; a
 * control-flow construct) use these forms beside the single-result ones.
 * An equation of such a primitive defines n_out consecutive variables.
 *   abstract_eval_multi: writes *n_out (at most PRIM_MAX_RESULTS) and the
 *     result types;
 *   impl_multi: the n_out results, allocated by the caller;
 *   batch_multi: every result with its batch axis;
 *   jvp_multi: every primal result (the rule binds the primitive, or what
 *     replaces it, itself) and every tangent (slot 0 for zero);
 *   transpose_multi: the cotangents of every result (slot 0 for zero,
 *     never all zero) → those of the linear operands.
 * Each returns 0, or -1 with the error recorded. */
typedef int (*prim_abstract_eval_multi_fn)(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in,
                                           const rt_aval *in, int *n_out, rt_aval *out);
typedef int (*prim_impl_multi_fn)(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in,
                                  rt_array *const *in, int n_out, rt_array *const *out);
typedef int (*prim_batch_multi_fn)(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in,
                                   const cj_val *in, const int64_t *bdim, int64_t size, int n_out, cj_val *out,
                                   int64_t *out_bdim);
typedef int (*prim_jvp_multi_fn)(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                                 const cj_val *tin, int n_out, cj_val *primal, cj_val *tout);
typedef int (*prim_transpose_multi_fn)(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in,
                                       const cj_val *in, const int *linear, const rt_aval *in_avals, int n_out,
                                       const cj_val *ct, cj_val *ct_in);

struct strbuf;

typedef struct prim_rule {
    prim_abstract_eval_fn abstract_eval;
    prim_impl_fn impl;
    /* Prints parameters inside the brackets of the IR text, e.g.
     * "axes=(1,)"; NULL prints none. Returns the length written. */
    int (*print_params)(const prim_params *p, char *buf, size_t size);
    prim_lower_kind lower;
    prim_batch_fn batch;
    prim_jvp_fn jvp;             /* every primitive */
    /* Optional: a jvp rule that also makes the primal output (the driver
     * then does not bind the primitive itself), for a rule whose tangent
     * computation yields the primal too. `out` is passed as a slot-0
     * handle; the rule writes *primal too. (jvp_multi always works so.) */
    int (*jvp_full)(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                    const cj_val *tin, cj_val *primal, cj_val *tout);
    prim_transpose_fn transpose; /* primitives that can be linear */
    /* several results: the forms above replace abstract_eval, impl,
     * batch, jvp and transpose */
    int multiple_results;
    prim_abstract_eval_multi_fn abstract_eval_multi;
    prim_impl_multi_fn impl_multi;
    prim_batch_multi_fn batch_multi;
    prim_jvp_multi_fn jvp_multi;
    prim_transpose_multi_fn transpose_multi;
    /* Optional: parameters holding sub-programs, printed inside the
     * brackets after print_params' text (bodies inline, as jaxprs show
     * them); `indent` is the depth of the enclosing program's equations. */
    void (*print_params_long)(const prim_params *p, struct strbuf *sb, int indent);
} prim_rule;

extern prim_rule prim_rules[PRIM_COUNT];
extern const char *const prim_names[PRIM_COUNT];
extern const int prim_arity[PRIM_COUNT]; /* -1: variadic */
extern const prim_family prim_families[PRIM_COUNT];

/* Fills prim_rules once (idempotent, thread-safe). */
void prim_init(void);
/* Each family file registers its rows. */
void prim_register_elementwise(void);
void prim_register_shape(void);
void prim_register_reduce(void);
void prim_register_dot(void);
void prim_register_gather(void);
void prim_register_ad(void);
void prim_register_random(void);
/* checkpoint_name's table: the id of a name (added when new; at most 63
 * characters), -1 when it cannot be stored; and the name of an id. */
int prim_name_id(const char *name);
const char *prim_name_str(int id);
/* The autodiff rules, one file per family (src/autodiff/rules_*.c). */
void ad_register_elementwise(void);
void ad_register_shape(void);
void ad_register_reduce(void);
void ad_register_dot_gather(void);
void ad_register_markers(void);
void ad_register_custom(void);
/* Control flow's primitives (src/control/prims.c). */
void cf_register(void);
void cf_register_ad(void);

/* A reduction's fold of one contiguous run, from the identity: exactly the
 * order the eager kernel folds a run of at most 65536 elements in, so code
 * generated for row reductions can call it and match bit for bit. NULL
 * for a primitive or dtype without one. */
typedef void (*prim_row_fold_fn)(const void *x, int64_t n, void *out);
prim_row_fold_fn prim_reduce_row_fold(prim_id prim, cj_dtype dt);

/* Helpers for print_params. */
int prim_print_ivec(char *buf, size_t size, const char *name, const prim_ivec *v);

/* Records an error naming the primitive: "add: shapes f32[3] and f32[4]
 * must be equal". Always returns -1. */
int prim_error(struct cj_ctx *ctx, cj_status code, prim_id p, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
