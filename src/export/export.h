/* export.h — what the exporter's files share (export layer: above the
 * compiler and the backends, whose compiled form and kernel generator it
 * reuses; below the transformations, which it never calls).
 *
 * cj_export_c (export.c) traces a function, compiles it through the jit's
 * pipeline and writes the program as one C file with no cjax in it: the
 * kernels codegen.c writes for the jit, a static table standing in for
 * the runtime table those kernels call through (export_ops.c: elementwise
 * loops, row folds, vmath.c's own kernels as text from export_vmath.c),
 * matrix products written out (export_dot.c), and an entry point that
 * runs the kernels in schedule order over a workspace the caller owns. */
#ifndef CJ_EXPORT_EXPORT_H
#define CJ_EXPORT_EXPORT_H

#include "../compiler/program.h"
#include "../control/control.h"

/* How an exported unit does what the library's kernels do. */
typedef struct export_mode {
    bool fma;       /* vmath's polynomials with fused multiply-adds (as the
                       compilation of vmath.c this CPU runs) */
    bool libm;      /* may call libm (fmod, pow's and trig's special lanes) */
    int math;       /* CJ_EXPORT_MATH_*: which kernels compute f32 and f64 math */
    bool vmath;     /* out: the unit needs vmath.c's kernels */
    bool uses_libm; /* out: the unit calls into libm */
} export_mode;

/* ---- the unit's programs (export_program.c) and constructs
 * (export_control.c) ----
 * A unit holds the entry's program and, for each control-flow construct,
 * its sub-programs (compiled as the jit compiles them, recursively). Each
 * program gets a table cjx_table<id>, kernels cjx_p<id>_kernel_<k>, a
 * binder cjx_bind<id>(buf, ws) (constants, arena offsets: once) and a
 * runner cjx_run<id>(env, buf, ws) (its kernels in schedule order, each
 * construct as a loop or branch over the workspace after its arena);
 * equations and constants are numbered unit-wide for the entries'
 * names (cjx_ew<n>, cjx_dot<n>, cjx_red<n>, cjx_c<n>). */
typedef struct export_cf export_cf;

typedef struct export_prog {
    compiled *c;
    bool owned;               /* a sub-program compiled here, freed with it */
    int id, eqn_base, const_base;
    int *eqn_kernel;          /* per equation: its kernel, -1 */
    const int *weight_of;     /* the entry's: per constant its weight input or -1; NULL in sub-programs */
    export_cf **cf;           /* per kernel: its construct, or NULL */
    size_t need;              /* its workspace: the arena, then (aligned) its largest construct's region */
} export_prog;

struct export_cf {
    int k, n_subs, n_out;
    cj_dtype index_dtype;     /* a cond's index */
    export_prog *sub[CF_MAX_BRANCHES];
    size_t *spare;            /* per output: a carry's second buffer in the region, or (size_t)-1 */
    size_t slots, region;     /* the second buffers' bytes (first in the region); the region's */
};

typedef struct export_unit {
    cj_ctx *ctx;
    export_mode mode;
    strbuf ops, tables, kernels, consts, progs;
    int n_progs, n_eqns, n_consts;
    size_t dot_block, row_scratch; /* the largest over every program */
    char why[512];
} export_unit;

#define EXPORT_WORK_ALIGN 64
#define EXPORT_MAX_DEPTH 16
static inline size_t export_align(size_t n) { return (n + EXPORT_WORK_ALIGN - 1) / EXPORT_WORK_ALIGN * EXPORT_WORK_ALIGN; }

/* Plans and writes program p (c set, owned, weight_of set by the caller):
 * numbers it, checks and writes its kernels, entries, table, constants,
 * constructs (recursively, depth levels deep), binder and runner. 0, or -1
 * with a reason in u->why (or the error recorded: out of memory). */
int export_program(export_unit *u, export_prog *p, int depth);
/* Frees what export_program made for p (and its sub-programs), not p. */
void export_prog_release(export_unit *u, export_prog *p);
/* Construct kernel k of p: its sub-programs compiled and exported, its
 * region sized, its function cjx_cf<id>_<k>(env, obuf, ws) written. */
int export_construct(export_unit *u, export_prog *p, int k, int depth);
void export_cf_free(export_unit *u, export_cf *cf);

/* The C text of vmath.c's kernels (building blocks, constants, the
 * static inline scalar kernels), without its includes and its entry
 * points; NULL if the embedded copy lacks the markers. */
const char *export_vmath_text(size_t *len);

/* The table entry generated kernels call for equation e of c (its
 * elementwise loop, the sin/cos pair's loop, or its row fold) as a static
 * function cjx_ew<id> (id: e numbered unit-wide, export.c), appended to sb. 0, or -1 with a reason in why. */
int export_table_entry(const compiled *c, int e, int id, export_mode *m, strbuf *sb, char *why, size_t why_n);
/* Does equation e of c need a table entry (is it called through rt->ew)? */
bool export_needs_entry(const compiled *c, const int *eqn_kernel, int e);

/* A matrix product (dot_general, f32/f64) as static void cjx_dot<e>(const
 * void *lhs, const void *rhs, void *out, i64 m0, i64 m1): out holds rows
 * [m0, m1) of every batch's [M, N] result, M the lhs's free elements and
 * N the rhs's, the first at out. 0, or -1 with a reason. */
int export_dot(const compiled *c, int e, int id, export_mode *m, strbuf *sb, char *why, size_t why_n);
/* The C expression of the offset in a of element `flat` of the axes
 * given (row-major over them, in their order). */
void export_axes_offset(const rt_aval *a, const int64_t *axes, int n_axes, const char *flat, char *out, size_t n);
/* A reduction run as a SINGLE kernel (reduce_sum/prod/max/min over any
 * axes, f32/f64) as static void cjx_red<e>(const void *x, void *out), in
 * the order the eager kernel combines on one thread (reduce.c: blocks of
 * 64 rows when the inner axis is kept, lane folds of contiguous runs when
 * it is reduced). 0, or -1 with a reason. */
int export_reduce(const compiled *c, int e, int id, strbuf *sb, char *why, size_t why_n);
/* The product's free sizes: M (lhs) and N (rhs) and the batch count. */
void export_dot_sizes(const ir_func *ir, const ir_eqn *e, int64_t *batch, int64_t *m, int64_t *n);

#endif
