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
 * Programs stay numerically tame by construction: inputs are uniform in
 * [-FZ_INPUT_BOUND, FZ_INPUT_BOUND]; each node carries a bound on its
 * magnitude, and operations that could overflow or leave their domain are
 * either wrapped (log and sqrt of |x|+1, pow of |a|+1, division by |b|+1)
 * or only chosen while the operand's bound is small (exp, square, prod).
 * Each node also carries an estimate of the absolute rounding error two
 * correct implementations may differ by (in units of the unit roundoff),
 * from which tests derive their tolerances. */
#ifndef CJ_TEST_FUZZ_GEN_H
#define CJ_TEST_FUZZ_GEN_H
#include <stdio.h>

#include "cjax.h"

#define FZ_MAX_RANK 4   /* of any node; inputs have rank <= 3 */
#define FZ_MAX_INPUTS 4
#define FZ_MAX_OPS 16
#define FZ_MAX_NODES (FZ_MAX_INPUTS + FZ_MAX_OPS)
#define FZ_INPUT_BOUND 2.0

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
    FZ_NUM_KINDS
} fz_kind;

typedef enum fz_unary {
    FZ_NEG, FZ_ABS, FZ_SIN, FZ_COS, FZ_TANH, FZ_LOGISTIC, FZ_ERF, FZ_ATAN,
    FZ_EXP, FZ_SQUARE, FZ_LOG_ABS1, FZ_SQRT_ABS1, FZ_RSQRT_ABS1, FZ_LOG1P_ABS,
    FZ_EXPM1, FZ_RELU, FZ_GELU, FZ_CLIP, FZ_CBRT_ABS1, FZ_SINH, FZ_COSH,
    FZ_ASIN_TANH, FZ_ACOS_TANH, FZ_TAN_HALF_TANH, FZ_MUL_CONST, FZ_ADD_CONST,
    FZ_NUM_UNARY
} fz_unary;

typedef enum fz_binary {
    FZ_ADD, FZ_SUB, FZ_MUL, FZ_DIV_ABS1, FZ_MAX, FZ_MIN, FZ_POW_ABS1,
    FZ_ATAN2_ABS1, FZ_NUM_BINARY
} fz_binary;

typedef enum fz_reduce {
    FZ_SUM, FZ_MEAN, FZ_RMAX, FZ_RMIN, FZ_PROD, FZ_VAR, FZ_NUM_REDUCE
} fz_reduce;

typedef struct fz_type {
    cj_dtype dtype; /* CJ_F32 or CJ_F64 */
    int rank;
    int64_t dims[FZ_MAX_RANK];
    double bound;   /* |every element| <= bound */
    double err;     /* rounding-error estimate, units of the unit roundoff */
} fz_type;

typedef struct fz_node {
    fz_kind kind;
    int sub;
    int n_args;
    int args[3];       /* earlier node numbers */
    int input;         /* FZ_INPUT: which input of the function */
    int n_axes, n_batch;
    int64_t axes[FZ_MAX_RANK];
    int64_t p0[FZ_MAX_RANK], p1[FZ_MAX_RANK], p2[FZ_MAX_RANK], p3[FZ_MAX_RANK];
    int64_t axis;
    int keepdims;
    int shape_rank;    /* FZ_RESHAPE, FZ_BROADCAST_TO */
    cj_dtype dtype;    /* FZ_ASTYPE */
    double constant;
    fz_type type;      /* the result's type */
} fz_node;

typedef struct fz_program {
    uint64_t seed;
    int n_inputs;
    int input_node[FZ_MAX_INPUTS]; /* node number of each input */
    int n_nodes;                   /* the last node is the output */
    fz_node nodes[FZ_MAX_NODES];
} fz_program;

/* Builds the program of `seed` (the same seed always gives the same
 * program). */
void fz_generate(fz_program *p, uint64_t seed);
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

/* A random input of type t, uniform in [-FZ_INPUT_BOUND, FZ_INPUT_BOUND]
 * (the state advances). */
cj_val fz_random_input(cj_ctx *ctx, const fz_type *t, uint64_t *state);
double fz_rand_uniform(uint64_t *state, double lo, double hi);
uint64_t fz_rand_u64(uint64_t *state);

/* The program as readable text, one node a line:
 * "  v3 = sin(v1)                      f32[2,3]  |x|<=1". */
void fz_print(const fz_program *p, FILE *out);

#endif
