/* ir.h — the IR: a typed SSA function (core layer).
 *
 *   { lambda c:f32[64]; a:f32[128,64] b:f32[64]. let
 *       d:f32[128,64] = broadcast_in_dim[dims=(1,) shape=(128, 64)] b
 *       e:f32[128,64] = add a d
 *     in (e,) }
 *
 * Variables are integers indexing `vars` (their types). Inputs, constants
 * (variables bound to arrays the function closed over) and equation
 * outputs each define a variable once; equations are in a valid order.
 * An equation may define several variables (a control-flow construct's
 * outputs): they are consecutive, made together by the builder, and a pass
 * that rebuilds a program maps each of them; a live equation keeps all its
 * outputs. Parameters may hold sub-programs by reference (prim_ref): each
 * equation holds one reference, taken by ir_add_eqn and ir_copy and
 * dropped by ir_free.
 * The builder, verifier, printer and evaluator live in ir.c and eval.c. */
#ifndef CJ_IR_H
#define CJ_IR_H

#include "core.h"

typedef struct ir_eqn {
    prim_id prim;
    prim_params params;
    int n_in;
    int in_start; /* offset into ir_func.operands */
    int out;      /* the first variable it defines */
    int n_out;    /* how many: the consecutive variables out .. out+n_out-1
                     (1 but for primitives with multiple_results) */
    int region;   /* the innermost region it was traced in (0: none) */
} ir_eqn;

/* A region: equations traced inside one call of a function that marks its
 * body (checkpoint). Autodiff reads the policy; other passes ignore
 * regions. */
typedef struct ir_region {
    int parent;         /* the enclosing region (0: none) */
    const void *policy; /* the marker's data, owned by the marking function */
} ir_region;

typedef struct ir_const {
    int var;
    rt_array *val; /* one reference */
} ir_const;

typedef struct ir_func {
    rt_mem *mem;
    int n_vars, cap_vars;
    rt_aval *vars;
    int n_in, cap_in;
    int *in;
    int n_consts, cap_consts;
    ir_const *consts;
    int n_eqns, cap_eqns;
    ir_eqn *eqns;
    int n_operands, cap_operands;
    int *operands;
    int n_out, cap_out;
    int *out;
    int n_regions, cap_regions; /* regions[1..n_regions]; [0] unused */
    ir_region *regions;
    int cur_region; /* builder state: the region new equations belong to */
} ir_func;

ir_func *ir_new(rt_mem *mem);
void ir_free(ir_func *f);
/* Builders return the new variable id, or -1 on out of memory. */
int ir_add_var(ir_func *f, const rt_aval *aval);
int ir_add_input(ir_func *f, const rt_aval *aval);
int ir_add_const(ir_func *f, rt_array *arr); /* adds its own reference to arr */
int ir_add_eqn(ir_func *f, prim_id prim, const prim_params *p, int n_in, const int *in,
               const rt_aval *out_aval);
/* An equation of n_out results (types out_avals): returns the first of its
 * n_out consecutive variables, or -1. */
int ir_add_eqn_multi(ir_func *f, prim_id prim, const prim_params *p, int n_in, const int *in, int n_out,
                     const rt_aval *out_avals);
int ir_add_output(ir_func *f, int var); /* 0 or -1 */
/* A new region (id >= 1) inside `parent`, or -1 on out of memory. New
 * equations are tagged with f->cur_region. */
int ir_add_region(ir_func *f, int parent, const void *policy);
static inline const int *ir_eqn_inputs(const ir_func *f, const ir_eqn *e) {
    return f->operands + e->in_start;
}
/* Whether e defines variable v. */
static inline int ir_eqn_defines(const ir_eqn *e, int v) { return v >= e->out && v < e->out + e->n_out; }

/* Whether two programs are the same: variables, equations (parameters
 * bytewise), constants (by value), regions. Two traces of one function
 * for the same types give the same program. */
int ir_same(const ir_func *a, const ir_func *b);
/* A deep copy (constants shared by reference). NULL on out of memory. */
ir_func *ir_copy(const ir_func *f);
/* The printer's names: names[v] is the ordinal used for variable v (inputs
 * and non-scalar constants first, then equation results); ir_name_str
 * spells an ordinal as JAX does (a..z, ba, bb, ...). */
void ir_var_ordinals(const ir_func *f, int *names);
void ir_name_str(int ordinal, char buf[16]);

/* Checks SSA form and re-runs abstract_eval on every equation: returns 0, or
 * -1 with a message in ctx ("ir verify: equation 3 (add): ..."). */
int ir_verify(cj_ctx *ctx, const ir_func *f);
/* Appends the text form to sb; sub-programs held by parameters print
 * inline (ir_print_indented: equations indented by `indent` levels). */
void ir_print(const ir_func *f, strbuf *sb);
void ir_print_indented(const ir_func *f, strbuf *sb, int indent);

/* Evaluates f on concrete arrays (references are borrowed; outputs are new
 * references). Frees every intermediate after its last use. 0 or -1. */
int ir_eval_arrays(cj_ctx *ctx, const ir_func *f, rt_array *const *in, rt_array **out);
/* Re-binds every equation through the current traces (for calls made
 * under another trace: vmap of a jitted function, jit inside jit). */
int ir_eval_values(cj_ctx *ctx, const ir_func *f, const cj_val *in, cj_val *out);

#endif
