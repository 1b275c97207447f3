/* program.h — a compiled program: the IR after the passes, grouped into
 * kernels, scheduled, with every materialised value's buffer planned
 * (compiler layer).
 *
 * A kernel is a LOOP — a group of elementwise equations over one
 * iteration space, whose values in between exist only per tile, reading
 * buffers through the index maps of data-movement primitives (broadcast,
 * transpose, slice, reverse, reshape, concatenate, pad, dynamic_slice,
 * iota: prim.h) — or ROWS — reductions over trailing axes together
 * with their elementwise producers and the consumers that broadcast the
 * reduced values back across the row (softmax, layer norm), run row by row
 * so each row is read from memory once — or a SINGLE equation run by its
 * primitive's eager kernel on whole buffers (dot, gather, ...)
 * — or DOT_EPILOGUE: a matrix product (its first equation) followed by the
 * LOOP equations that consume its result elementwise (bias, activation,
 * scale), run a block of rows at a time so the product's result lives
 * only in a block buffer while the epilogue reads it (epilogue.c) — or
 * COLS: reductions over leading axes (column sums, a batch mean) with the
 * elementwise equations computing their operand and the per-column ones
 * after them, run in tiles of a row's columns that each fold into a
 * fixed block of rows' accumulator row (fusion.c: fuse_is_col_reduce).
 * Values are materialised only when they cross a kernel boundary or are
 * program outputs; temporaries live at planned offsets in one arena kept
 * by the program across calls. */
#ifndef CJ_COMPILER_PROGRAM_H
#define CJ_COMPILER_PROGRAM_H

#include "../core/ir.h"

typedef enum kernel_kind { KERNEL_LOOP, KERNEL_ROWS, KERNEL_SINGLE, KERNEL_DOT_EPILOGUE, KERNEL_COLS } kernel_kind;

static inline const char *kernel_kind_name(kernel_kind k) {
    return k == KERNEL_LOOP     ? "loop"
           : k == KERNEL_ROWS   ? "rows"
           : k == KERNEL_SINGLE ? "single"
           : k == KERNEL_COLS   ? "cols"
                                : "dot+epilogue";
}

typedef struct kernel {
    kernel_kind kind;
    int n_eqns, cap_eqns;
    int *eqns;    /* equation indices into the IR, in execution order */
    int n_in;
    int *in;      /* variables read from buffers */
    int n_out;
    int *out;     /* variables written to buffers */
    rt_aval space; /* LOOP: the iteration space (every value's shape or rank 0);
                      ROWS: the shape of the reduced operand, outer ++ row */
    int outer_rank;  /* ROWS: leading axes iterated over; the rest is a row.
                        COLS: the leading axes reduced */
    int64_t row_len; /* ROWS: elements per row. COLS: columns (elements of
                        the trailing axes kept) */
    int64_t n_blocks; /* DOT_EPILOGUE: blocks of the product's rows (block b
                         is rows [b*M/n_blocks, (b+1)*M/n_blocks) of M) */
} kernel;

/* Where a variable lives at run time. */
typedef enum var_home {
    HOME_NONE = 0, /* never materialised: exists only inside a kernel tile */
    HOME_INPUT,    /* a program argument */
    HOME_CONST,    /* an IR constant */
    HOME_ARENA,    /* a temporary at an offset in the arena */
    HOME_OUTPUT    /* a program output, a fresh array per call */
} var_home;

typedef struct memory_analysis {
    size_t argument_bytes, output_bytes, temp_bytes, alias_bytes, generated_code_bytes, constant_bytes;
    size_t peak_bytes; /* arguments + outputs + temporaries + constants live at once, at most */
} memory_analysis;

typedef struct cost_analysis {
    double flops, transcendentals, bytes_accessed;
} cost_analysis;

/* How far the pipeline has brought a program: what its form holds, and
 * so what the verifier (verify.c) and the dumps can read. */
typedef enum compile_stage {
    STAGE_NONE = 0, /* passes called one by one, not by the pipeline */
    STAGE_IR,       /* the IR only: no kernels yet */
    STAGE_KERNELS,  /* kernels in schedule order (a plan, if any, is provisional) */
    STAGE_PLANNED,  /* homes, live ranges and arena offsets */
    STAGE_ANALYSED, /* memory and cost analysis */
    STAGE_DONATED   /* donated inputs paired with outputs: the whole pipeline */
} compile_stage;

typedef struct compiled {
    ir_func *ir; /* owned: the IR after the passes */
    compile_stage stage; /* the form the last pass left (STAGE_NONE outside the pipeline) */
    int n_kernels;
    kernel *kernels; /* in schedule order */
    var_home *home;  /* per variable */
    size_t *offset;  /* per variable: arena offset (HOME_ARENA), or the offset in
                        its host output's buffer when host[v] >= 0 */
    int *host;       /* per variable: for a temporary (HOME_ARENA) the program
                        output whose buffer holds it before that output is
                        written, or the argument or constant an
                        optimization_barrier of it shares (plan.c); -1 for
                        the arena */
    bool no_output_scratch; /* plan: keep every temporary in the arena (a
                               control-flow body, whose outputs generated
                               loops rebind per step) */
    bool no_cols;    /* fuse: no COLS kernels (cj_export_c: its units lack run_cols) */
    int *kernel_of;  /* per variable: defining kernel, -1 for inputs/constants */
    int *first_use, *last_use; /* per variable: kernel range over which its buffer is live */
    size_t arena_bytes;
    size_t *ws_offset, *ws_bytes; /* per kernel: the arena block of its working memory
                                     (a SINGLE kernel whose primitive declares
                                     lower.workspace_of; ws_bytes 0: none) */
    int ws_kernels;               /* entries in ws_offset / ws_bytes */
    size_t tile_scratch_bytes; /* per thread, for LOOP kernel tiles */
    size_t dot_block_bytes;    /* the largest DOT_EPILOGUE block buffer: scratch
                                  taken per call, outside the arena (0: none) */
    memory_analysis mem;
    cost_analysis cost;
    prim_index_map **composed; /* per equation: the maps (one per operand) of a leaf
                                  rewired by fusion to read through other leaves
                                  (fusion.c), or NULL */
    int *donor;            /* per variable: the IR input position whose donated
                              buffer this output takes, -1 when none */
    char donation_note[256]; /* why a requested donation cannot be used ("" if all are) */
} compiled;

/* ---- the pipeline (compiler.c): one table of passes, one loop ----
 *
 *   inline → hoist → simplify → fuse → schedule → epilogue → plan → analyse → donate
 *
 * Every pass has one signature and works on the compiled form in place
 * (the IR passes replace c->ir); 0, or -1 with the error recorded. What a
 * pass needs besides the program comes in the options. */
typedef struct compile_options {
    const uint8_t *donated; /* donate: donated[i] gives up IR input i's buffer (NULL: none) */
    const char *dump;       /* passes to dump after, a comma list (NULL: CJAX_DUMP) */
    strbuf *dump_to;        /* where dumps go (NULL: stderr) */
    bool no_output_scratch; /* plan: no temporary in an output's buffer (compiled.no_output_scratch) */
    bool no_cols;           /* fuse: reductions over leading axes stay SINGLE kernels (compiled.no_cols) */
    bool no_recompute;      /* fuse: store every value kernels share, recomputing none (recompute.c) */
    bool verify;            /* verify after every pass in any build (else: debug builds and
                               CJAX_VERIFY=1; the IR passes are always verified) */
    /* Called after each pass, before it is verified and dumped: lets tests
     * look at (or break) the program between passes. Nonzero (with the
     * error recorded in ctx) stops the pipeline. */
    int (*after_pass)(cj_ctx *ctx, compiled *c, const char *pass, void *arg);
    void *arg;
} compile_options;

typedef int (*compiler_pass_fn)(cj_ctx *ctx, compiled *c, const compile_options *opts);

/* Runs the whole pipeline over a copy of `ir` (the caller keeps its own).
 * NULL with the error recorded. */
compiled *compile_ir(cj_ctx *ctx, const ir_func *ir);
/* The same with options (NULL: defaults), stopping after the pass named
 * `last` (NULL: after the last one). An unknown name is a CJ_ERR_ARG error
 * listing the passes. The result is verified up to where it stopped and
 * may be inspected, dumped and freed, but only a whole pipeline's program
 * can be run. */
compiled *compile_ir_until(cj_ctx *ctx, const ir_func *ir, const char *last, const compile_options *opts);
void compiled_free(cj_ctx *ctx, compiled *c);
/* The table's passes, in order (i in 0 .. compiler_n_passes()-1). */
int compiler_n_passes(void);
const char *compiler_pass_name(int i);
/* Checks the compiled form against every invariant of its stage
 * (verify.c); `after` names the pass that made it, for the message. 0, or
 * -1 with a CJ_ERR_INTERNAL error naming the pass and the kernel. */
int compiled_verify(cj_ctx *ctx, const compiled *c, const char *after);
/* Does the pipeline verify after every pass by default (debug build, or
 * CJAX_VERIFY=1)? */
bool compiler_verify_default(void);

/* The passes after simplify, each testable alone. */
int fuse_kernels(cj_ctx *ctx, compiled *c);
/* Rebuilds every kernel's in and out lists from its equations. */
int fuse_kernel_boundaries(cj_ctx *ctx, compiled *c);
/* After fuse_kernels: a cheap elementwise chain whose result would be
 * stored only for other loop or rows kernels to read is recomputed in each
 * of them from the chain's own inputs, within the bounds recompute.c
 * states (the primitives' declared work). Rewrites c->ir and the kernels. */
int fuse_recompute(cj_ctx *ctx, compiled *c);
/* Reorders c->kernels (and c->kernel_of) for a lower arena peak: fusion
 * order or a greedy schedule, whichever plans smaller. */
int schedule_kernels(cj_ctx *ctx, compiled *c);
/* Merges each f32/f64 matrix product (SINGLE kernel) with the LOOP kernel
 * scheduled right after it that reads its result only elementwise, into
 * one DOT_EPILOGUE kernel; the result needs no buffer of its own when
 * nothing else reads it. Runs after schedule, before plan. */
int fuse_dot_epilogues(cj_ctx *ctx, compiled *c);
/* Testing: the block buffer size DOT_EPILOGUE kernels aim for (0: the
 * default), so tests reach many blocks on small products. */
void fuse_set_dot_block_bytes_for_testing(size_t bytes);
/* Plans (or re-plans) homes, live ranges and arena offsets, with in place
 * where a LOOP kernel's result may overwrite an operand dying there. */
int plan_buffers(cj_ctx *ctx, compiled *c);
/* For dumps: the schedule that was kept, and the operand whose buffer
 * variable v took in place (-1 when none). */
/* The plan's in-place rule: may kernel k write its result v over its
 * operand u, whose last reader it is (both in the arena)? The verifier
 * applies the same rule to the finished plan. */
bool plan_may_overwrite(const compiled *c, int k, int u, int v);
const char *schedule_heuristic(const compiled *c);
int plan_in_place_of(const compiled *c, int v);
/* The output whose buffer holds temporary v before that output is
 * written, or -1 (the arena, or no plan yet). */
static inline int plan_host(const compiled *c, int v) { return c->host ? c->host[v] : -1; }
/* Does temporary v share an argument's or a constant's buffer (its host),
 * being an optimization_barrier of it? Nothing writes such a buffer. */
bool plan_shares_read_only(const compiled *c, int v);
/* The memory and cost figures (c->mem, c->cost). A control-flow
 * construct's bodies are compiled and analysed to count what they cost
 * (analysis.c), so this can fail: 0, or -1 with the error recorded. */
int analyse_program(cj_ctx *ctx, compiled *c);
/* Pairs donated inputs (donated[i] for IR input position i; NULL: none)
 * with outputs of the same type that may be written into their buffers,
 * and updates the memory analysis. Unusable donations are described in
 * c->donation_note. */
int plan_donations(cj_ctx *ctx, compiled *c, const uint8_t *donated);
/* The pairs plan_donations makes, into donor (n_vars + 1 entries; -1:
 * none), without touching c: the planner asks before it places
 * temporaries in donated buffers. note (NULL: not wanted) says why a
 * donation cannot be used. */
void donation_pairs(const compiled *c, const uint8_t *donated, int *donor, char *note, size_t note_cap);
/* plan_buffers for the pipeline's plan pass: donated[i] (NULL: none) gives
 * up input i's buffer, which then holds temporaries only after its last
 * read. */
int plan_buffers_donated(cj_ctx *ctx, compiled *c, const uint8_t *donated);

/* Appends a readable dump: kernels with their equations, and buffers with
 * size, offset and live range (and, once analysed, the memory figures).
 * `what` selects "fuse", "plan" or both. */
void compiled_dump(const compiled *c, const char *what, strbuf *sb);

/* Does CJAX_DUMP name this item (a pass of the table, "c" for the
 * generated source, or "all")? */
bool compiler_dump_wants(const char *what);

/* How a value relates to a ROWS kernel: a whole row per row (the kernel's
 * space), one element per row (the outer shape, possibly with trailing 1s),
 * a rank-0 scalar, or none of these. */
typedef enum row_form { FORM_NONE, FORM_ROW, FORM_SCALAR, FORM_RANK0 } row_form;
row_form fuse_row_form(const kernel *K, const rt_aval *a);
bool fuse_is_row_reduce(const ir_func *ir, const ir_eqn *e, int *outer, int64_t *row_len);
bool fuse_is_long_rows(const kernel *K);
/* A reduction over the leading axes of its operand that a COLS kernel can
 * run (its primitive's column fold, prim_col_fold, for the dtype; at least
 * two rows and two columns): sets the axes reduced and the columns. */
bool fuse_is_col_reduce(const ir_func *ir, const ir_eqn *e, int *lead, int64_t *cols);
/* How a value relates to a COLS kernel: over the whole space (FORM_ROW),
 * one element per column (FORM_SCALAR: the shape of the kept axes), a
 * rank-0 scalar, or none of these. */
row_form fuse_col_form(const kernel *K, const rt_aval *a);
/* The most rows a long-rows kernel has: its per-row values all fit one
 * tile slot of the interpreter (1024 elements). */
#define FUSE_LONG_MAX_ROWS 1024

/* Is this equation fusible into a LOOP kernel, and how does it read its
 * operand when it is a data-movement leaf? */
bool fuse_is_elementwise(prim_id p);
bool fuse_is_leaf_map(prim_id p);
/* The index map (prim.h) by which leaf equation `eqn` of c reads its
 * operand `operand`: its primitive's rule over its types, or the map
 * fusion composed when it rewired the leaf to read through another one.
 * 0, or -1 for a non-leaf. */
int fuse_leaf_index_map(const compiled *c, int eqn, int operand, prim_index_map *m);

/* Whether SINGLE kernel K's result may take its operand u's buffer (a
 * dynamic_update_slice or optimization_barrier of u; donate.c). */
bool single_updates_in_place(const ir_func *ir, const kernel *K, int u);

#endif
