/* program_impl.h — the inside of a prepared program, shared by the
 * interpreter (interp.c) and the generated-code backend (native.c), and
 * the state of a control-flow construct run by generated code
 * (codegen_control.c, codegen_control_state.c) (backend layer). */
#ifndef CJ_BACKEND_PROGRAM_IMPL_H
#define CJ_BACKEND_PROGRAM_IMPL_H

#include <pthread.h>
#include <stdatomic.h>

#include "../compiler/program.h"
#include "../control/control.h"
#include "backend.h"
#include "cc_build.h"
#include "codegen.h"

#define MAX_SCRATCH 64

/* ---- control-flow constructs in generated code ----
 * A construct kernel (cond, while, scan) whose loop or branch is itself
 * generated C (codegen_control.c) runs with the state below
 * (codegen_control_state.c). The generated function reads only cjk_cf,
 * mirrored in the generated source: per sub-program its table, its
 * buffer table and a handle for the runtime's callbacks, which run what
 * generated code does not (SINGLE kernels: dot, gather, ...; ROWS kernels
 * without a generated form; constructs not generated), compute the rows
 * of a DOT_EPILOGUE's product, run a matrix-vector product, and spread a
 * large generated kernel over the thread pool. */
typedef struct cjk_sub {
    const cjk_rt *rt; /* the sub-program's table (ew kernels, scratch) */
    char **buf;       /* its per-variable buffers: constants and arena set once,
                         inputs and outputs by the generated loop */
    void *run;        /* the runtime's handle on it (a cf_sub) */
} cjk_sub;

typedef struct cjk_cf {
    /* runs kernel k of the sub-program on the runtime: 0, or -1 with the
     * error recorded */
    int (*kernel)(void *run, int k, char **buf);
    /* rows [r0, r1) of DOT_EPILOGUE kernel k's product into dst */
    int (*product)(void *run, int k, char *const *buf, int64_t r0, int64_t r1, char *dst);
    /* generated kernel fn of kernel k over [begin, end) on the pool */
    void (*spread)(void *run, int k, cjk_kernel_fn fn, char *const *buf, int64_t begin, int64_t end);
    /* y = A·x for a dense A [m, k] and x [k] (double when f64, else
     * float): a matrix-vector dot_general straight into the runtime's
     * product, the kernel the dot primitive reaches for the same shapes
     * (so the bits agree), without its per-call views and dispatch */
    void (*matvec)(int f64, int64_t m, int64_t k, const char *A, const char *x, char *y);
    int64_t length;    /* scan: steps (not in the source: one build serves every trip count) */
    void *const *slot; /* kept buffers and nested constructs' states (cf_native.slots) */
    cjk_sub sub[CF_MAX_BRANCHES];
} cjk_cf;

/* Generated `int cjk_construct_<k>(cjk_cf *, char *const *buf)`: runs
 * construct kernel k over the enclosing program's buffer table. 0 or -1. */
typedef int (*cjk_construct_fn)(cjk_cf *cf, char *const *buf);

/* How a loop carries value i from one step to the next. */
typedef enum cf_carry_how {
    CARRY_KEEP,     /* the body returns the carry itself: nothing moves */
    CARRY_IN_PLACE, /* the body's output was planned into the carry's donated
                       buffer: written in place from the second step on */
    CARRY_SWAP,     /* the body writes a second buffer; the two swap per step */
    CARRY_COPY,     /* the body returns another value (an input, a constant,
                       another output): copied into the second buffer */
} cf_carry_how;

struct cf_native;

typedef struct cf_sub {
    cj_ctx *ctx;
    program *p;                /* the record's prepared sub-program */
    void **ew;                 /* its elementwise table, for rt */
    cjk_rt rt;
    char **buf;                /* per variable (gen.sub[].buf) */
    struct cf_native **nested; /* per kernel: a nested construct generated too */
    int *slot_of;              /* per kernel: its slot in the owner (a DOT_EPILOGUE's product
                                  block, a nested construct's state), -1 */
    int n_vars, n_eqns, n_kernels; /* the sizes of the tables above */
} cf_sub;

typedef struct cf_native {
    cjk_cf gen;                     /* what the generated function reads */
    cf_record *rec;
    int k;                          /* its kernel in the enclosing program */
    int n_ops, n_out;               /* the sizes of the tables below (no fixed limit) */
    int *op_var;                    /* per operand: its variable in the enclosing program */
    cj_dtype index_dtype;           /* cond: the index operand's */
    int *out_var;                   /* per output: its variable in the enclosing program, -1 when unused */
    cf_carry_how *carry;            /* per output; a carry's (while, scan) */
    int *own_slot;                  /* per output unused outside: a kept stand-in buffer (a slice for ys), -1 */
    int *spare_slot;                /* per output; a carry's second buffer, -1 */
    int n_slots, cap_slots;
    void **slots;                   /* gen.slot */
    size_t *slot_bytes, *slot_cap;  /* per slot: a buffer's size (allocated by cf_native_ready) */
    unsigned char *slot_nested;     /* per slot: 1 when it holds a nested construct's &gen instead */
    int ready;                      /* the kept buffers are allocated */
    int n_subs;
    cf_sub sub[CF_MAX_BRANCHES];
} cf_native;

/* Does sub-program c's kernels write output o into a buffer the generated
 * loop hands them (a fresh output variable's first mention)? Otherwise
 * output o is copied from wherever its variable lives. */
bool cf_output_written(const compiled *c, int o);
/* How loop carry i moves from step to step when `body` is the loop's body
 * program (compiled with its carries donated); the exporter's loops too. */
cf_carry_how cf_carry_of(const compiled *body, int i);

/* The state for construct kernel k of compiled program c (whose program
 * runs with `mode`), its sub-programs prepared (cf_prepare) and nested
 * constructs made too. NULL when generated code does not run this
 * construct (the runtime's cf_run does), or on out of memory with the
 * error recorded in ctx. */
cf_native *cf_native_make(cj_ctx *ctx, const compiled *c, int k, cj_backend mode, int depth);
/* Allocates what runs keep (sub-programs' arenas and scratch, second
 * carry buffers, blocks), once. 0, or -1 with the error recorded. */
int cf_native_ready(cj_ctx *ctx, cf_native *n);
void cf_native_free(cj_ctx *ctx, cf_native *n);
/* Nesting depth beyond which an inner construct stays on the runtime. */
#define CF_NATIVE_MAX_DEPTH 8

struct program {
    compiled *c;
    prim_index_map *maps; /* the index maps of the fused leaves (interp.c: make_maps) */
    int *map_at;         /* per equation: its first map, -1 when not a fused leaf */
    int n_maps;
    int *slot;           /* per variable: tile-scratch slot, -1 if none */
    int n_slots;
    void *arena;
    size_t arena_cap;
    void *scratch;       /* MAX_SCRATCH... one block per worker */
    size_t scratch_cap, scratch_each;
    int n_scratch;
    atomic_int busy[MAX_SCRATCH];
    int *eqn_kernel;     /* per equation: its kernel */
    char **run_buf;      /* program_run's per-variable tables, kept between */
    rt_array **run_arrays; /* runs (a loop body runs once per step) */
    int running;         /* a run is under way: a nested one allocates its own */

    /* the generated-code backend (native.c) */
    cj_backend mode;
    atomic_int native_state; /* NATIVE_* */
    pthread_t thread;
    int thread_started;
    cj_ctx *build_ctx;       /* the compile's own context (thread-safe) */
    cc_module *module;
    char *source;            /* plain malloc: owned by the build thread's side */
    char *required;          /* the symbols the build must find ("a\0b\0\0"), plain malloc */
    atomic_int cancel;       /* set by native_free: the build stops, its compiler is killed */
    cc_build_info info;
    char native_error[600];
    void **ew_table;         /* per equation: its elementwise kernel */
    cjk_rt rt;
    cjk_kernel_fn *native;   /* per kernel, once installed */
    int native_installed;
    int native_lazy;         /* backend_prepare_sub (lazy): native_start at the first run */
    struct cf_native **cf;   /* per kernel: a construct run by generated code, or NULL */
    cjk_construct_fn *native_cf; /* per kernel: its generated function, once installed */
};

enum { NATIVE_NONE, NATIVE_BUILDING, NATIVE_READY, NATIVE_FAILED };

/* interp.c */
char *interp_claim_scratch(program *p, int *which);
void interp_release_scratch(program *p, int which);
void interp_run_loop(program *p, const kernel *K, char *const *buf);
/* Runs equations [first, n_eqns) of kernel K — a LOOP kernel's, or a
 * DOT_EPILOGUE kernel's epilogue from 1 — over elements [begin, end) of its
 * iteration space, tile by tile on the pool. */
void interp_run_loop_range(program *p, const kernel *K, int first, char *const *buf, int64_t begin, int64_t end);

/* Allocates a program's arena and tile scratch on first use (program_run
 * does; so does a generated construct for its sub-programs). 0 or -1. */
int interp_program_ready(cj_ctx *ctx, program *p);
/* Runs kernel k of p as program_run does (generated code when installed,
 * else the interpreter's kernels; a construct through cf_run). 0 or -1. */
int interp_run_kernel(cj_ctx *ctx, program *p, int k, char **buf);

/* dot_epilogue.c: runs DOT_EPILOGUE kernel k block by block. 0 or -1. */
int dot_epilogue_run(cj_ctx *ctx, program *p, int k, char **buf);
/* Rows [r0, r1) of the product of equation e into dst (dense, rows × N). */
int dot_epilogue_product_rows(cj_ctx *ctx, const ir_func *ir, const ir_eqn *e, char *const *buf, int64_t r0,
                              int64_t r1, char *dst);

/* native.c: starts (or, in wait mode, finishes) the build of generated
 * code; installs it when ready; runs a loop kernel natively if it can. */
void native_start(cj_ctx *ctx, program *p);
void native_poll(program *p);
bool native_run_loop(program *p, int k, char *const *buf);
/* Runs ROWS kernel k natively if its generated code is installed (false:
 * the caller runs it on the interpreter's row loop). */
bool native_run_rows(program *p, int k, char *const *buf);
/* The same over elements [begin, end) of kernel k's space (a DOT_EPILOGUE
 * kernel's epilogue, one block at a time); false when k has no generated
 * code installed. */
bool native_run_loop_range(program *p, int k, char *const *buf, int64_t begin, int64_t end);
/* Units [0, n) of COLS kernel k's generated function (interp.c: run_cols),
 * one unit per pool item when `parallel`, else in one call. */
void native_run_units(program *p, int k, char *const *buf, int64_t n, bool parallel);
/* Runs construct kernel k through its generated function if installed
 * (false: the caller runs it through cf_run); *status gets 0 or -1. */
bool native_run_construct(cj_ctx *ctx, program *p, int k, char *const *buf, int *status);
/* Generated kernel fn of p's LOOP or ROWS kernel k over [begin, end) of
 * its iteration space (elements, or rows), spread on the pool as
 * native_run_loop and native_run_rows do. */
void native_spread(program *p, int k, cjk_kernel_fn fn, const cjk_rt *rt, char *const *buf, int64_t begin,
                   int64_t end);
/* Fills a table for p's generated kernels (its elementwise kernels, row
 * folds, gather and scratch through p); *ew is allocated from ctx (n_eqns
 * + 1 entries). 0, or -1 on out of memory (not recorded). */
int native_fill_table(cj_ctx *ctx, program *p, cjk_rt *rt, void ***ew);
void native_free(cj_ctx *ctx, program *p);
/* Test hook: how many times generated construct functions have run. */
long native_construct_runs_for_testing(void);
/* Test hook: the compiler, flags and cache directory later builds use. */
void native_set_build_options_for_testing(const cc_build_options *o);

#endif


