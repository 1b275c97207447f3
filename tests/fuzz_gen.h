/* fuzz_gen.h — random, well-typed cjax programs for differential testing.
 *
 * A program is data: a list of nodes, each an input or an operation over
 * earlier nodes (elementwise unary/binary with broadcasting, where,
 * reductions, cumulative ops, shape ops, dot_general/matmul, astype,
 * softmax/log_softmax/logsumexp). fz_generate builds one from a seed;
 * fz_fn is a cj_fn that interprets it with the public cj_* operations, so
 * every program is an ordinary cj_func that can be called eagerly, jitted,
 * vmapped and differentiated. The last node is the program's one output.
 *
 * A share of the programs (FZ_EXTENDED_SHARE), the extended ones, also
 * holds control flow and random numbers — at least one construct: cond,
 * switch, scan (with and without xs, reversed, of length 0 and 1 too),
 * fori_loop or while_loop (its predicate a counter, and sometimes data),
 * whose bodies are generated the same way (nested up to FZ_MAX_DEPTH,
 * closing over values of the enclosing scopes, using a loop's index); draws
 * of cj_random_uniform / normal / bits from keys made of generated seeds
 * (split, fold_in of constants, loop indices or data); and dynamic slices
 * and updates (at a loop's index, or data, or constant starts; a loop body
 * may update a carry first, which the step may do in place). A body is a
 * scope: its nodes are
 * marked with the scope's number and read its parameters (FZ_PARAM nodes),
 * nodes of the enclosing scopes (closures) and program inputs. Loop carries
 * keep a fixed bound (a squashing tanh where a step could grow them) and
 * every loop's trip count is at most FZ_MAX_TRIPS, so every value stays
 * finite and every while loop ends.
 *
 * Programs stay numerically tame by construction: inputs are uniform in
 * [-FZ_INPUT_BOUND, FZ_INPUT_BOUND]; each node carries a bound on its
 * magnitude, and operations that could overflow or leave their domain are
 * either wrapped (log and sqrt of |x|+1, pow of |a|+1, division by |b|+1)
 * or only chosen while the operand's bound is small (exp, square, prod).
 * Each node also carries an estimate of the absolute rounding error two
 * correct implementations may differ by (in units of the unit roundoff),
 * from which tests derive their tolerances.
 *
 * Three families of programs (FZ_FAMILY_*, drawn per seed from a stream of
 * their own): the base one in f32/f64; one mixing bf16, f16, f32 and f64
 * (its roundoff that of its narrowest float); one over the eight integer
 * dtypes, exact, whose results every path must match bit for bit. The
 * latter two also draw sort and take. */
#ifndef CJ_TEST_FUZZ_GEN_H
#define CJ_TEST_FUZZ_GEN_H
#include <stdio.h>

#include "cjax.h"

#define FZ_MAX_RANK 4   /* of any node; inputs have rank <= 3 */
#define FZ_MAX_INPUTS 4
#define FZ_MAX_OPS 16   /* of the program itself; bodies have their own few */
#define FZ_MAX_NODES 96 /* inputs, operations, and all bodies' nodes */
#define FZ_INPUT_BOUND 2.0
#define FZ_MAX_ARGS 5      /* operands of one node */
#define FZ_MAX_SCOPES 16   /* the program and its bodies */
#define FZ_MAX_DEPTH 2     /* constructs nest this deep */
#define FZ_MAX_BRANCHES 4
#define FZ_MAX_CF_OUT 6    /* outputs of one construct */
#define FZ_MAX_TRIPS 5     /* iterations of any loop, at most */
#define FZ_EXTENDED_SHARE 0.25 /* of programs with control flow and random numbers */

typedef enum fz_kind {
    FZ_INPUT = 0,
    FZ_UNARY,        /* sub: fz_unary */
    FZ_BINARY,       /* sub: fz_binary; broadcasting */
    FZ_WHERE,        /* where(arg2 > constant, arg0, arg1); broadcasting */
    FZ_REDUCE,       /* sub: fz_reduce over axes (n_axes -1: all), keepdims */
    FZ_CUMULATIVE,   /* sub 0: cumsum, 1: cummax along axis, keepdims = reverse */
    FZ_RESHAPE,      /* to rank/p0 (may hold one -1) */
    FZ_TRANSPOSE,    /* perm p0; keepdims set: perm NULL (reverse the axes) */
    FZ_EXPAND_DIMS,  /* axis */
    FZ_SQUEEZE,      /* axes */
    FZ_SLICE,        /* start p0, limit p1, strides p2 */
    FZ_CONCATENATE,  /* n_args operands along axis */
    FZ_PAD,          /* lo p0, hi p1, interior p2, value constant */
    FZ_REV,          /* axes */
    FZ_BROADCAST_TO, /* to rank/p0 */
    FZ_DOT_GENERAL,  /* contract p0 (lhs) / p1 (rhs), n_axes of them; batch
                        p2 (lhs) / p3 (rhs), n_batch of them */
    FZ_MATMUL,
    FZ_ASTYPE,       /* to dtype */
    FZ_SOFTMAX,      /* along axis; sub 1: log_softmax */
    FZ_LOGSUMEXP,    /* over axes, keepdims */
    /* control flow and random numbers (extended programs only) */
    FZ_PARAM,        /* parameter `input` of the body `scope` */
    FZ_INT_TO_FLOAT, /* astype(args[0], dtype) * constant: a loop's i32
                        index or counter as a float */
    FZ_COND,         /* cj_cond on sum(args[0]) > consts[0] (keepdims: an
                        integer predicate, (sum > c) * p0[0]); operands
                        args[1..]; bodies[0] false, [1] true */
    FZ_SWITCH,       /* cj_switch, index = #{k: sum(args[0]) > consts[k]}
                        + p0[0] (so -1 .. n_bodies: clamped) */
    FZ_SCAN,         /* cj_scan: carries args[0..n_carry), xs the rest;
                        length lo (given when keepdims), reverse = axis */
    FZ_FORI,         /* cj_fori_loop(lo, hi): carries args[0..n_carry) */
    FZ_WHILE,        /* cj_while_loop: carries (counter i32 from p0[1],
                        args[0..n_carry)); cond: counter < hi, and when
                        keepdims sum(carry p0[2]) < consts[0] */
    FZ_OUTPUT,       /* output `sub` of the construct args[0] */
    FZ_RANDOM,       /* sub: fz_random; key from seed p1[0]; p1[1] a mask
                        of FZ_KEY_*; shape p0 */
    FZ_DYNAMIC_SLICE, /* of args[0], sizes p0, starts (see below) */
    FZ_DYNAMIC_UPDATE, /* dynamic_update_slice(args[0], args[1], starts) */
    /* programs of the new dtypes only (FZ_FAMILY_NARROW / FZ_FAMILY_INT) */
    FZ_SORT,         /* cj_sort along axis */
    FZ_TAKE,         /* cj_take(args[0], indices, axis): the indices are
                        args[1] itself (an integer node) or, in a float
                        program, astype(2 * args[1], i32) of an input */
    FZ_NUM_KINDS
} fz_kind;

/* The value of a construct node is its output `out_index` (of the
 * construct's outputs in cjax's order: a while loop's counter is output
 * 0); FZ_OUTPUT nodes after it give others. */

/* The start indices of FZ_DYNAMIC_*: axis d starts at p2[d], plus, where
 * p1[d] is set, an index made by the node's source (sub): FZ_START_INT the
 * i32 node args[n_args - 1] (a loop's index or counter), FZ_START_DATA
 * sum(args[n_args - 1]) > consts[0] as i32. Out-of-range starts are
 * clamped, as lax.dynamic_slice does. */
enum { FZ_START_CONST, FZ_START_INT, FZ_START_DATA };

typedef enum fz_random { FZ_UNIFORM, FZ_NORMAL, FZ_BITS, FZ_NUM_RANDOM } fz_random;
/* How a random node derives its key from cj_random_key(seed). */
enum {
    FZ_KEY_SPLIT = 1,     /* row p1[3] of split(key, p1[2]) */
    FZ_KEY_FOLD = 2,      /* fold_in(key, p2[0]) */
    FZ_KEY_FOLD_DATA = 4  /* fold_in(key, i) with i args[0] when an integer,
                             else sum(args[0]) > consts[0] as i32 */
};

typedef enum fz_unary {
    FZ_NEG, FZ_ABS, FZ_SIN, FZ_COS, FZ_TANH, FZ_LOGISTIC, FZ_ERF, FZ_ATAN,
    FZ_EXP, FZ_SQUARE, FZ_LOG_ABS1, FZ_SQRT_ABS1, FZ_RSQRT_ABS1, FZ_LOG1P_ABS,
    FZ_EXPM1, FZ_RELU, FZ_GELU, FZ_CLIP, FZ_CBRT_ABS1, FZ_SINH, FZ_COSH,
    FZ_ASIN_TANH, FZ_ACOS_TANH, FZ_TAN_HALF_TANH, FZ_MUL_CONST, FZ_ADD_CONST,
    FZ_ASINH, FZ_ERFC, FZ_ATANH_TANH, FZ_LGAMMA_ABS1, FZ_IPOW3,
    FZ_NUM_UNARY
} fz_unary;

/* The elementwise operations of integer programs (FZ_FAMILY_INT): a node's
 * sub means these when its dtype is an integer one. */
typedef enum fz_int_unary {
    FZ_I_NEG, FZ_I_ABS, FZ_I_SQUARE, FZ_I_MUL_CONST, FZ_I_ADD_CONST, FZ_I_IPOW3, FZ_I_POPCNT, FZ_I_NOT,
    FZ_I_SIGN, FZ_NUM_INT_UNARY
} fz_int_unary;

typedef enum fz_int_binary {
    FZ_I_ADD, FZ_I_SUB, FZ_I_MUL, FZ_I_MAX, FZ_I_MIN, FZ_I_FLOOR_DIVIDE, FZ_I_REMAINDER, FZ_I_REM, FZ_I_AND,
    FZ_I_OR, FZ_I_XOR, FZ_I_SHL, FZ_I_SHR_LOGICAL, FZ_I_SHR_ARITHMETIC, FZ_NUM_INT_BINARY
} fz_int_binary;

/* Which dtypes a program computes in, drawn from a stream of its own (so a
 * seed of the base family draws exactly the program it drew before the
 * others existed):
 * - FZ_FAMILY_BASE: f32 and f64 (loop counters i32);
 * - FZ_FAMILY_NARROW: bf16, f16, f32, f64 mixed (promotion as JAX's), every
 *   float operation; predicates (where, cond, switch, data-dependent starts
 *   and keys) read inputs only, whose sums are exact in f32, so rounding
 *   differences between correct evaluations never flip a branch;
 * - FZ_FAMILY_INT: i8 i16 i32 i64 u8 u16 u32 u64 mixed (wrapping
 *   arithmetic, floor division and remainders by anything, zero included,
 *   bitwise ops, shifts by any amount), the shape operations, reductions,
 *   cumulative ops, dot, sort, take, control flow and random bits; every
 *   result is exact, so every path must agree bit for bit. */
enum { FZ_FAMILY_BASE, FZ_FAMILY_NARROW, FZ_FAMILY_INT };
#define FZ_NARROW_SHARE 0.15 /* of the seeds */
#define FZ_INT_SHARE 0.15

typedef enum fz_binary {
    FZ_ADD, FZ_SUB, FZ_MUL, FZ_DIV_ABS1, FZ_MAX, FZ_MIN, FZ_POW_ABS1,
    FZ_ATAN2_ABS1, FZ_NUM_BINARY
} fz_binary;

typedef enum fz_reduce {
    FZ_SUM, FZ_MEAN, FZ_RMAX, FZ_RMIN, FZ_PROD, FZ_VAR, FZ_NUM_REDUCE
} fz_reduce;

typedef struct fz_type {
    cj_dtype dtype; /* the family's dtypes (a loop index or counter: CJ_I32) */
    int rank;
    int64_t dims[FZ_MAX_RANK];
    double bound;   /* |every element| <= bound (integers wrap: 1, unused) */
    double err;     /* rounding-error estimate, units of the unit roundoff */
} fz_type;

typedef struct fz_node {
    fz_kind kind;
    int sub;
    int n_args;
    int args[FZ_MAX_ARGS]; /* earlier node numbers */
    int scope;         /* the body it belongs to (0: the program) */
    int input;         /* FZ_INPUT: which input of the function */
    int n_axes, n_batch;
    int64_t axes[FZ_MAX_RANK];
    int64_t p0[FZ_MAX_RANK], p1[FZ_MAX_RANK], p2[FZ_MAX_RANK], p3[FZ_MAX_RANK];
    int64_t axis;
    int keepdims;
    int shape_rank;    /* FZ_RESHAPE, FZ_BROADCAST_TO */
    cj_dtype dtype;    /* FZ_ASTYPE */
    double constant;
    /* constructs */
    int n_bodies, bodies[FZ_MAX_BRANCHES]; /* their scopes */
    int n_carry;
    int out_index;
    int64_t lo, hi;
    double consts[FZ_MAX_BRANCHES];
    fz_type type;      /* the result's type */
} fz_node;

/* A body: the nodes marked with its number, before its construct. */
typedef struct fz_scope {
    int parent, depth;
    int owner;                         /* the construct node */
    int n_params, params[FZ_MAX_ARGS + 1]; /* node of each body input */
    int n_results, results[FZ_MAX_CF_OUT]; /* node of each body output
                                            (a while body's counter + 1
                                            comes first, not listed) */
} fz_scope;

typedef struct fz_program {
    uint64_t seed;
    int extended;                  /* may hold control flow and random numbers */
    int family;                    /* FZ_FAMILY_* */
    int n_inputs;
    int input_node[FZ_MAX_INPUTS]; /* node number of each input */
    int n_nodes;                   /* the last node is the output */
    fz_node nodes[FZ_MAX_NODES];
    int n_scopes;                  /* scope 0 is the program itself */
    fz_scope scopes[FZ_MAX_SCOPES];
} fz_program;

/* Builds the program of `seed` (the same seed always gives the same
 * program). */
void fz_generate(fz_program *p, uint64_t seed);
/* Whether the program of `seed` is an extended one, without drawing it. */
int fz_seed_is_extended(uint64_t seed);
/* The FZ_FAMILY_* of the program of `seed`, without drawing it. */
int fz_seed_family(uint64_t seed);
/* The same program computing in float64 throughout (every input f64,
 * every astype to f64): for finite differences. */
void fz_to_f64(const fz_program *p, fz_program *out);

/* cj_fn interpreting the fz_program passed as `user`: n_inputs inputs, one
 * output. fz_fn_sum outputs sum(output) instead (a scalar of its dtype). */
void fz_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user);
void fz_fn_sum(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user);

static inline const fz_type *fz_output_type(const fz_program *p) { return &p->nodes[p->n_nodes - 1].type; }
static inline const fz_type *fz_input_type(const fz_program *p, int i) { return &p->nodes[p->input_node[i]].type; }
int64_t fz_type_size(const fz_type *t);
/* Does any node compute in float32? (then the f32 roundoff applies) */
int fz_uses_f32(const fz_program *p);
/* The unit roundoff of the program's least precise float node (bf16:
 * 2^-8, f16: 2^-11, f32: 2^-24, else 2^-53); 0 for an integer program,
 * whose results are exact. */
double fz_program_eps(const fz_program *p);
/* Is dt one of the integer dtypes (bool excluded)? */
int fz_is_int_dtype(cj_dtype dt);
/* How many nodes of a kind the program holds (bodies included). */
int fz_count_kind(const fz_program *p, fz_kind kind);
/* Does it hold any control-flow construct? */
int fz_has_control_flow(const fz_program *p);

/* A random input of type t, uniform in [-FZ_INPUT_BOUND, FZ_INPUT_BOUND]
 * (the state advances); integers: mostly small (-10..10, unsigned 0..20),
 * one in five anywhere in the dtype's range (below 2^52 for 64 bits). */
cj_val fz_random_input(cj_ctx *ctx, const fz_type *t, uint64_t *state);
/* One such element, exactly representable in dt. */
double fz_random_element(cj_dtype dt, uint64_t *state);
/* An array of dtype dt from n doubles exactly representable in it. */
cj_val fz_array_from(cj_ctx *ctx, cj_dtype dt, int rank, const int64_t *dims, const double *data, int64_t n);
double fz_rand_uniform(uint64_t *state, double lo, double hi);
uint64_t fz_rand_u64(uint64_t *state);

/* The program as readable text, one node a line:
 * "  v3 = sin(v1)   : f32[2,3]  |x|<=1"; a construct's bodies follow it,
 * indented, each with its parameters and results. */
void fz_print(const fz_program *p, FILE *out);

#endif
