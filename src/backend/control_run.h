/* control_run.h — the runtime loop of control flow (backend layer).
 *
 * A construct's equation (cond, while, scan; its record in
 * src/control/control.h) run on concrete arrays: by the interpreter, by
 * the constructs' eager kernel (src/control/prims.c, above), and by a
 * compiled program's generated code for what it does not take itself
 * (codegen_control.c is this loop's generated twin, run with the
 * sub-programs cf_prepare makes). */
#ifndef CJ_CONTROL_RUN_H
#define CJ_CONTROL_RUN_H

#include "../control/control.h"

/* Runs a construct on concrete arrays into `out`, its n_out results
 * allocated by the caller; 0, or -1 with the error recorded. The
 * sub-programs are prepared on first use with `mode` (the enclosing
 * program's backend; CJ_BACKEND_DEFAULT when run eagerly) and kept. Each
 * call counts one run (cf_runs_for_testing). */
int cf_run(cj_ctx *ctx, cf_record *rec, cj_backend mode, rt_array *const *operands, rt_array *const *out);
/* Runs of constructs in this process: cf_run calls (eager, the
 * interpreter, nested ones included) and runs of a construct's generated
 * code (native_construct_runs_for_testing). */
long cf_runs_for_testing(void);

/* Prepares every sub-program of rec not prepared yet, as cf_run would
 * (with `mode`, loop bodies taking their carries as donated), for an
 * enclosing program whose generated code runs the construct itself
 * (codegen_control.c): their own generated code is then built only if
 * cf_run ever runs them. 0, or -1 with the error recorded. */
int cf_prepare(cj_ctx *ctx, cf_record *rec, cj_backend mode);

#endif
