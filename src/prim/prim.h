/* prim.h — primitives: the unit every layer above works in (prim layer).
 *
 * A primitive is a row of prims.def plus a rule record: abstract_eval
 * (output types from input types; ALL shape/dtype validation and the
 * user-facing messages live here, so eager, traced and compiled paths say
 * the same thing), impl (the eager kernel), and slots for the
 * transformations (jvp, transpose, batch) that later layers fill, and
 * the lowering record the compiler and backends read (lower). Parameters are one flat, zero-initialised struct
 * so they can be compared and hashed bytewise. */
#ifndef CJ_PRIM_H
#define CJ_PRIM_H

/* The most operands an ordinary primitive (one result) takes: core_bind
 * refuses a concatenate of more. Primitives with several results (the
 * control-flow constructs, whose carries, xs, closure values and the
 * residuals their linearization adds run to hundreds) have no limit on
 * operands or results: every path that binds, stages, evaluates,
 * transforms or runs one of their equations sizes its tables by the
 * equation, taking them from the allocator past the small on-stack ones
 * (core_table in src/core/core.h, PRIM_SMALL_*). */
#define PRIM_MAX_OPERANDS 256
/* The result table of the compiler's constant folding (simplify.c), which
 * folds no equation of more results. */
#define PRIM_MAX_RESULTS 128
#define PRIM_SMALL_OPERANDS 32
#define PRIM_SMALL_RESULTS 16

#include "../runtime/runtime.h"

typedef enum prim_id {
#define X(id, name, nin, fam) PRIM_##id,
#include "prims.def"
#undef X
    PRIM_COUNT
} prim_id;

typedef enum prim_family { FAMILY_ELEMENTWISE, FAMILY_SHAPE, FAMILY_REDUCE, FAMILY_DOT, FAMILY_GATHER, FAMILY_AD, FAMILY_CONTROL, FAMILY_RANDOM, FAMILY_SORT, FAMILY_LINALG, FAMILY_CONV, FAMILY_WINDOW, FAMILY_COLLECTIVE } prim_family;

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
                        custom calls: the record's id; sort: is_stable;
                        triangular_solve: its option bits (src/prim/linalg.c) */
    int64_t count;   /* sort: num_keys; top_k: k */
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

/* ---- lowering: what the compiler and both backends know of a primitive ----
 * The compiler (fusion, simplify, planning, analysis) and the backends
 * (interpreter, generated C) keep no list of primitives: what they need to
 * know of one is its lowering record, filled in its family file next to
 * its other rules. docs/CONTRIBUTING-PRIMS.md says which members a
 * primitive of each kind must fill; tests/test_prim_rules.c checks it. */

/* How the compiler sees a primitive. LOWER_NONE (zero) is "not filled in",
 * which the rules test reports. */
typedef enum prim_lower_kind {
    LOWER_NONE,
    LOWER_ELEMENTWISE,   /* each result element from the operands' elements at its index:
                            fuses into LOOP and ROWS kernels; c_expr says how generated C computes it */
    LOWER_REDUCTION,     /* folds or scans axes; with a row_fold, a reduction over trailing
                            axes runs row by row in a ROWS kernel */
    LOWER_DATA_MOVEMENT, /* moves or replicates elements (shape.c's family) */
    LOWER_DOT,           /* a contraction through the GEMM library call, with epilogue fusion */
    LOWER_CONSTRUCT,     /* control flow: a loop or branch over compiled bodies */
    LOWER_CALL,          /* a call of a recorded function, spliced in by the inline pass */
    LOWER_OPAQUE         /* anything else: the eager kernel on whole buffers */
} prim_lower_kind;

/* The operands an elementwise primitive's C expression is written over. */
typedef struct prim_c_args {
    const char *x[3];  /* the operands' C expressions, in operand order (unused ones "") */
    cj_dtype in_dtype; /* the operands' dtype (select_n: the cases', as dtype_operand says) */
    cj_dtype out_dtype;
    int64_t param;     /* the equation's params.count (integer_pow's exponent) */
} prim_c_args;

/* Writes the C expression of one result element into out (NUL-terminated,
 * at most size bytes) and returns true; or returns false, and generated
 * code calls the primitive's eager kernel for that dtype through the
 * runtime table (transcendentals, integer division: so both backends
 * compute the same bits). The expression must compute exactly what the
 * eager kernel does: generated C is compiled with -std=c11 (no
 * contraction) and the tests compare it with the interpreter bit for bit. */
typedef bool (*prim_c_expr_fn)(prim_id prim, const prim_c_args *a, char *out, size_t size);

/* A reduction's fold of one contiguous run, from the identity: exactly the
 * order the eager kernel folds a run of at most 65536 elements in, so code
 * generated for row reductions can call it and match bit for bit. */
typedef void (*prim_row_fold_fn)(const void *x, int64_t n, void *out);

/* The same fold as C text, for generated code to run inside the element
 * loop that computes the run (no tile array, no call): the run's elements
 * go to `lanes` accumulators, element i to lane i mod lanes, each starting
 * at `identity` and combined in increasing i, restarted every `block`
 * elements; then lane k ∘= lane k + w for w = lanes/2, ..., 1, and the
 * total ∘= lane 0. A run of fewer than 2·lanes elements is one chain from
 * the identity. `combine` is a C expression of CJK_A (the accumulator) and
 * CJK_B (the element), `identity` a C constant of the dtype. */
typedef struct prim_fold_c {
    int lanes;
    int64_t block;
    const char *identity;
    const char *combine;
} prim_fold_c;

/* The cost class, as cost_analysis counts it: per element of the result
 * (of operand 0 for a reduction: per_operand), or by a function for a
 * contraction. Bytes accessed are counted per kernel from its buffers. */
typedef struct prim_cost {
    float flops;
    float transcendentals;
    /* What computing one result element again costs, in simple arithmetic
     * operations (an add or a mul is 1, a transcendental's vectorised
     * polynomial about PRIM_WORK_TRANSCENDENTAL): fusion weighs it before
     * it recomputes a cheap producer in its consumers' kernels instead of
     * storing it (recompute.c). 0 for data movement, read through its map. */
    float work;
    bool per_operand;
    double (*flops_of)(const prim_params *p, const rt_aval *in, const rt_aval *out); /* dot_general */
} prim_cost;

/* A reduction's column fold (a reduction over leading axes, fused into
 * the loop computing its operand: fusion.c's COLS kernels): `fill` writes
 * the identity into n accumulators, `rows` combines one row of n elements
 * into them (acc[i] ∘= x[i]), and `block` is how many consecutive rows the
 * eager kernel combines into a fresh accumulator row before it joins the
 * total, from row 0 — so a kernel that folds blocks of `block` rows into
 * fresh rows and then the blocks' rows in order into the identity has the
 * eager kernel's bits (one thread; its rows kept contiguous). */
typedef struct prim_col_fold {
    void (*fill)(void *acc, int64_t n);
    void (*rows)(void *acc, const void *x, int64_t n);
    int64_t block;
} prim_col_fold;

typedef struct prim_lowering {
    prim_lower_kind kind;
    /* LOWER_ELEMENTWISE: the C expression (every elementwise primitive has
     * one; prim_c_table_call for "always through the table"), the C
     * operator or builtin the shared helpers write (prim_c_binary, ...),
     * and the operand whose dtype picks the kernel (select_n: 1). */
    prim_c_expr_fn c_expr;
    const char *c_op;
    int dtype_operand;
    /* LOWER_REDUCTION: the row fold for operands of a dtype (NULL for
     * none); the member itself NULL when the primitive never runs by rows
     * (arg-reductions, cumulative ops). */
    prim_row_fold_fn (*row_fold)(prim_id prim, cj_dtype dt);
    /* The row fold as C text (prim_fold_c), false for a dtype generated
     * code calls the row fold for instead; NULL: always called. */
    bool (*fold_c)(prim_id prim, cj_dtype dt, prim_fold_c *out);
    prim_cost cost;
    /* 1 + the operand the result equals bit for bit whenever the two have
     * the same type (a convert to its own dtype, a reshape to its own
     * shape, stop_gradient); 0 when there is none. simplify removes it. */
    int noop_operand;
    /* The result is operand 0 with a part replaced, or unchanged
     * (dynamic_update_slice, optimization_barrier): its SINGLE kernel may
     * write over operand 0's buffer when operand 0 dies there. */
    bool updates_operand0;
    /* The result is operand 0 unchanged and the kernel writes nothing
     * (optimization_barrier): the result may share operand 0's buffer even
     * when operand 0 lives on, if nothing writes that buffer (an argument
     * or a constant: plan.c). */
    bool result_is_operand0;
    /* With a rank-0 operand 0 the eager kernel copies a whole operand with
     * memcpy (select_n with one predicate per tile), so the result must not
     * be planned into an operand's buffer. */
    bool copies_whole_operand;
    /* Working memory the eager kernel needs beside its results, in bytes,
     * from its operands' types (NULL: none; eigh's and svd's working
     * copies). Under jit the planner gives the primitive's SINGLE kernel
     * that much of the arena for the kernel's duration (plan.c), so the
     * memory analysis counts it, and the kernel takes it with
     * core_workspace (which allocates instead when run eagerly). */
    size_t (*workspace_of)(const prim_params *p, int n_in, const rt_aval *in);
    /* Whether the SINGLE kernel may write its result over operand 0's
     * buffer, from its start, when operand 0 dies there (plan.c): the
     * result is no larger, of the same dtype, and the eager kernel, given
     * the same buffer for both, writes each result element only after the
     * last read of every operand element before it (reduce_window without
     * low padding or base dilation: a pooling output in its input's
     * buffer). NULL: never. */
    bool (*overwrites_operand0)(const prim_params *p, const rt_aval *in0, const rt_aval *out);
    /* LOWER_REDUCTION: the column fold for operands of a dtype (false: none
     * for it; NULL: the primitive never folds columns). */
    bool (*col_fold)(prim_id prim, cj_dtype dt, prim_col_fold *out);
} prim_lowering;

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

/* How a data-movement primitive's result reads one operand: a function of
 * the output multi-index o, owned by the primitive (its family file fills
 * it in from the parameters and types), read by fusion and by both
 * backends, which emit it as index arithmetic (docs/COMPILER.md).
 *
 * MAP_AFFINE: the element at o is operand element
 *     offset + sum_d ((o[d] - lo[d]) / pitch[d]) * stride[d]
 *            + sum_d clamp(start_d, 0, dyn_hi[d]) * dyn_stride[d]
 * where start_d is the value of rank-0 operand dyn[d] (-1: none), read
 * only where o lies in the window: lo[d] <= o[d] < hi[d] and
 * (o[d] - lo[d]) % pitch[d] == 0 on every axis (lo 0, hi the output size,
 * pitch 1 when the primitive has no window).
 * MAP_LINEAR: the element with o's row-major position (a reshape).
 * MAP_IOTA: no operand; the value is o[axis].
 * MAP_NONE: the operand is not read element by element (dynamic_slice's
 * start indices, read through dyn).
 * The value at o comes from the first operand, in order, whose window
 * holds o (concatenate's operands tile the result; pad's operand 0 has a
 * window, its padding value none). Maps compose (prim_index_map_compose),
 * so a leaf of a leaf reads the innermost buffer directly. */
typedef enum prim_map_kind { MAP_NONE, MAP_AFFINE, MAP_LINEAR, MAP_IOTA } prim_map_kind;

typedef struct prim_index_map {
    prim_map_kind kind;
    int axis;    /* MAP_IOTA */
    bool window; /* lo/hi/pitch differ from the whole output somewhere */
    int64_t offset;
    int64_t stride[CJ_MAX_RANK];
    int64_t lo[CJ_MAX_RANK], hi[CJ_MAX_RANK], pitch[CJ_MAX_RANK];
    int dyn[CJ_MAX_RANK];
    int64_t dyn_hi[CJ_MAX_RANK], dyn_stride[CJ_MAX_RANK];
} prim_index_map;

/* The map of operand `operand` of an equation with these parameters and
 * types into *m. 0, or -1 when the primitive is not data movement. */
typedef int (*prim_index_map_fn)(const prim_params *p, int n_in, const rt_aval *in, const rt_aval *out,
                                 int operand, prim_index_map *m);
/* Primitives with several results (multiple_results set in the rule; a
 * control-flow construct) use these forms beside the single-result ones.
 * An equation of such a primitive defines n_out consecutive variables.
 *   abstract_eval_multi: writes *n_out (at most the room given) and the
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
struct ir_func;

typedef struct prim_rule {
    prim_abstract_eval_fn abstract_eval;
    prim_impl_fn impl;
    /* Prints parameters inside the brackets of the IR text, e.g.
     * "axes=(1,)"; NULL prints none. Returns the length written. */
    int (*print_params)(const prim_params *p, char *buf, size_t size);
    prim_lowering lower;
    prim_batch_fn batch;
    prim_jvp_fn jvp;             /* every primitive */
    prim_transpose_fn transpose; /* primitives that can be linear */
    prim_index_map_fn index_map; /* data movement that fuses into loops (see prim_index_map) */
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
    /* Optional (constructs): the work a loop need not repeat per step,
     * moved out of it, for the compiler's hoist pass (src/compiler/
     * hoist.c). Given the equation's parameters and operand types, sets
     * *out to a program of those inputs and the equation's outputs that
     * computes the same values (summation orders aside: one product over
     * every step instead of one per step), or to NULL when nothing moves.
     * *out is borrowed: the construct's record keeps it. 0, or -1 with
     * the error recorded. */
    int (*hoist)(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const rt_aval *in,
                 const struct ir_func **out);
    /* The rules take the dtypes added after f64 (i8..u64, f16, bf16:
     * rt_dtype_is_extra), checking which of them themselves. Without it
     * core's shape check refuses an operand or result of those dtypes
     * with one message naming the primitive and the dtype, before any
     * rule of this record runs. */
    bool extra_dtypes;
    /* Collectives over named axes (src/prim/collective.c): params.lo holds
     * the name ids of the axes it reduces or moves over. core_bind hands
     * such a binding to at least the trace that binds each named axis
     * (core_axis_find), and that trace's vmap calls batch_named instead of
     * batch, with its own axis's name id: the rule for the axis the batch
     * runs along. `batch` is then the rule for a vmap over another axis. */
    bool collective;
    int (*batch_named)(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int axis_name, int n_in,
                       const cj_val *in, const int64_t *bdim, int64_t size, cj_val *out, int64_t *out_bdim);
} prim_rule;

extern prim_rule prim_rules[PRIM_COUNT];
extern const char *const prim_names[PRIM_COUNT];
extern const int prim_arity[PRIM_COUNT]; /* -1: variadic */
extern const prim_family prim_families[PRIM_COUNT];

/* The tables above are defined in src/core/prim_table.c (core's data);
 * each family file fills its rows of prim_rules in its register function,
 * which the top-level init (src/init.c, run by cj_ctx_new) calls once. */
void prim_register_elementwise(void);
void prim_register_shape(void);
void prim_register_reduce(void);
void prim_register_dot(void);
void prim_register_gather(void);
void prim_register_ad(void);
void prim_register_random(void);
void prim_register_sort(void);
void prim_register_linalg(void);
void prim_register_linalg_decomp(void); /* qr (src/prim/linalg_qr.c) */
void prim_register_linalg_eigh(void);   /* eigh (src/prim/linalg_eigh.c) */
void prim_register_linalg_svd(void);    /* svd (src/prim/linalg_svd.c) */
void prim_register_conv(void);          /* conv_general_dilated (src/prim/conv.c) */
void prim_register_reduce_window(void); /* reduce_window_*, select_and_* (src/prim/reduce_window.c) */
void prim_register_gather_general(void); /* gather_general, scatter_general (src/prim/gather_general.c) */
void prim_register_collective(void);     /* psum, all_gather, ppermute, ... (src/prim/collective.c) */
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
void ad_register_sort(void);
void ad_register_linalg(void);
void ad_register_conv(void);
void ad_register_reduce_window(void);
void ad_register_gather_general(void);
void ad_register_collective(void);
/* Control flow's primitives (src/control/prims.c). */
void cf_register(void);
void cf_register_ad(void);

/* Lowering helpers (src/prim/lower.c). The C type generated code names a
 * dtype by ("float", "long long", "unsigned char" for bool), and the
 * unsigned type integer arithmetic wraps through. */
const char *prim_c_type(cj_dtype dt);
const char *prim_c_utype(cj_dtype dt);
/* f32 and f64: the float dtypes generated C computes on as they are (f16
 * and bf16 are bits there: their operations go through the table). */
bool prim_c_is_float(cj_dtype dt);
/* The lowering record of a primitive. */
static inline const prim_lowering *prim_lower(prim_id p) { return &prim_rules[p].lower; }
/* Does generated C write elementwise primitive `prim` inline for these
 * dtypes and params.count (rather than call its kernel through the table)? */
bool prim_c_inline(prim_id prim, cj_dtype in_dtype, cj_dtype out_dtype, int64_t param);
/* Shared C expressions for c_expr; each writes c_op, and returns false
 * (a table call) for dtypes it does not name:
 *   prim_c_table_call  always a table call (transcendentals);
 *   prim_c_arith       a c_op b over floats and integers (integers wrap: through the unsigned type);
 *   prim_c_float_op    a c_op b over floats;
 *   prim_c_compare     (unsigned char)(a c_op b) over every dtype;
 *   prim_c_order       (unsigned char)(a c_op b) over floats and integers;
 *   prim_c_bitwise     a c_op b over integers and bool;
 *   prim_c_shift       lax's shift_left / shift_right_* over integers (out-of-range amounts defined);
 *   prim_c_popcount    population_count over integers;
 *   prim_c_float_call  c_op(a) over floats, with c_op's f suffix for f32 (__builtin_sqrt). */
bool prim_c_table_call(prim_id prim, const prim_c_args *a, char *out, size_t size);
bool prim_c_arith(prim_id prim, const prim_c_args *a, char *out, size_t size);
bool prim_c_float_op(prim_id prim, const prim_c_args *a, char *out, size_t size);
bool prim_c_compare(prim_id prim, const prim_c_args *a, char *out, size_t size);
bool prim_c_order(prim_id prim, const prim_c_args *a, char *out, size_t size);
bool prim_c_bitwise(prim_id prim, const prim_c_args *a, char *out, size_t size);
bool prim_c_shift(prim_id prim, const prim_c_args *a, char *out, size_t size);
bool prim_c_popcount(prim_id prim, const prim_c_args *a, char *out, size_t size);
bool prim_c_float_call(prim_id prim, const prim_c_args *a, char *out, size_t size);
/* Cost classes: one flop per element, one transcendental per element, one
 * flop per element of operand 0 (reductions), free. */
#define PRIM_WORK_TRANSCENDENTAL 20
#define PRIM_COST_FLOP ((prim_cost){.flops = 1, .work = 1})
#define PRIM_COST_TRANSCENDENTAL ((prim_cost){.transcendentals = 1, .work = PRIM_WORK_TRANSCENDENTAL})
#define PRIM_COST_FOLD ((prim_cost){.flops = 1, .work = 1, .per_operand = true})
#define PRIM_COST_FREE ((prim_cost){0})

/* A map with no window and no dynamic offset over an output of `rank`
 * axes (MAP_AFFINE, offset 0, strides 0). */
void prim_index_map_init(prim_index_map *m, const rt_aval *out);
/* The map of `outer` (reading a value of type mid) followed by `inner`
 * (how mid reads its operand): into *m when the composition is exact
 * (the result reads every element the two would), false when it is not
 * affine (a reshape that regroups axes, a windowed or dynamic inner map). */
bool prim_index_map_compose(const prim_index_map *outer, const rt_aval *out, const rt_aval *mid,
                            const prim_index_map *inner, prim_index_map *m);

/* Helpers for print_params. */
int prim_print_ivec(char *buf, size_t size, const char *name, const prim_ivec *v);

/* Records an error naming the primitive: "add: shapes f32[3] and f32[4]
 * must be equal". Always returns -1. */
int prim_error(struct cj_ctx *ctx, cj_status code, prim_id p, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
