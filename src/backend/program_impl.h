/* program_impl.h — the inside of a prepared program, shared by the
 * interpreter (interp.c) and the generated-code backend (native.c)
 * (backend layer). */
#ifndef CJ_BACKEND_PROGRAM_IMPL_H
#define CJ_BACKEND_PROGRAM_IMPL_H

#include <pthread.h>
#include <stdatomic.h>

#include "../compiler/program.h"
#include "backend.h"
#include "cc_build.h"
#include "codegen.h"

#define MAX_SCRATCH 64

/* How a leaf reads its operand: element offset + Σ index[d]·stride[d]
 * over the iteration space, or the same linear index (reshapes). */
typedef struct leaf_map {
    int linear;
    int64_t offset;
    int64_t stride[CJ_MAX_RANK];
} leaf_map;

struct program {
    compiled *c;
    leaf_map *maps;      /* per equation (only leaves' entries are used) */
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
    cc_build_info info;
    char native_error[600];
    void **ew_table;         /* per equation: its elementwise kernel */
    cjk_rt rt;
    cjk_kernel_fn *native;   /* per kernel, once installed */
    int native_installed;
};

enum { NATIVE_NONE, NATIVE_BUILDING, NATIVE_READY, NATIVE_FAILED };

/* interp.c */
char *interp_claim_scratch(program *p, int *which);
void interp_release_scratch(program *p, int which);
void interp_gather_leaf(const program *p, int eqn, char *const *buf, int64_t t0, int64_t len, void *dst);
void interp_run_loop(program *p, const kernel *K, char *const *buf);
/* Runs equations [first, n_eqns) of kernel K — a LOOP kernel's, or a
 * DOT_EPILOGUE kernel's epilogue from 1 — over elements [begin, end) of its
 * iteration space, tile by tile on the pool. */
void interp_run_loop_range(program *p, const kernel *K, int first, char *const *buf, int64_t begin, int64_t end);

/* dot_epilogue.c: runs DOT_EPILOGUE kernel k block by block. 0 or -1. */
int dot_epilogue_run(cj_ctx *ctx, program *p, int k, char **buf);

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
void native_free(cj_ctx *ctx, program *p);
/* Test hook: the compiler, flags and cache directory later builds use. */
void native_set_build_options_for_testing(const cc_build_options *o);

#endif


