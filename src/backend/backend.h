/* backend.h — what jit runs: a prepared program (backend layer).
 *
 * jit hands each newly traced IR to backend_prepare and runs the result
 * with program_run. The compiler issue plugs its pipeline (fusion, buffer
 * planning, generated C) in here without changing jit. The program borrows
 * the IR, which the jit cache entry owns and outlives it. */
#ifndef CJ_BACKEND_H
#define CJ_BACKEND_H

#include "../core/ir.h"

typedef struct program program;

/* NULL with the error recorded in ctx. */
/* donated[i] (may be NULL): the caller gives up IR input i's buffer. */
program *backend_prepare(cj_ctx *ctx, const ir_func *ir, cj_backend mode, const uint8_t *donated);
/* The same for a control-flow construct's sub-program: its temporaries
 * stay in its arena (never in its outputs' buffers, which an enclosing
 * program's generated loop sets per step, codegen_control.c). With lazy,
 * the program's own generated C is only written and built when it is
 * first run: an enclosing program's generated code holds its kernels and
 * runs them itself, so they are compiled twice only when the runtime's
 * loop (cf_run) runs them too. */
program *backend_prepare_sub(cj_ctx *ctx, const ir_func *ir, cj_backend mode, const uint8_t *donated, int lazy);
/* Inputs borrowed; outputs are new references. 0 or -1. A donated input
 * whose array is not shared (refcount 1, passed once) has its buffer
 * written by an output; used[i] is set for those (the caller must then
 * treat the input as consumed). used may be NULL when nothing is donated. */
int program_run(cj_ctx *ctx, program *p, rt_array *const *in, rt_array **out, uint8_t *used);
/* The same, with into[i] (into NULL, or an entry NULL: a fresh array) the
 * caller's memory for output i, of its type's bytes and element-aligned
 * (cj_call_into checks): the kernels write there when the output is a
 * kernel's result (interp.c's into_index says when), and out[i] is then
 * a borrowed array over into[i]; otherwise out[i] is what program_run
 * gives and the caller copies. */
int program_run_into(cj_ctx *ctx, program *p, rt_array *const *in, rt_array **out, uint8_t *used,
                     void *const *into);
void program_free(cj_ctx *ctx, program *p);
/* The compiled form (kernels, buffer plan, analyses) behind a program. */
struct compiled;
const struct compiled *program_compiled(const program *p);
/* The generated C source, or NULL when none was generated. */
const char *program_source(const program *p);
/* Fills the backend fields of info (native, pending, compile figures). */
void program_backend_info(program *p, cj_program_info *info);

#endif
