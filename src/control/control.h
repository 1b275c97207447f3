/* control.h — control flow as part of the IR: cond, switch, while_loop,
 * fori_loop and scan (control layer).
 *
 * A C `if` or `for` runs at trace time; these constructs are traced
 * instead. Their bodies are traced once into sub-programs, kept in a
 * control-flow record owned by the context; the IR holds one equation per
 * output of the construct (prims cond / while / scan, params.flag the
 * record, params.index the output), all with the same operands. Eager
 * evaluation of such an equation runs the construct; the compiler groups
 * the equations of one construct into one kernel, which runs it once
 * (record.c, run.c, prims.c; api.c has the public functions). */
#ifndef CJ_CONTROL_H
#define CJ_CONTROL_H

#include "../core/func.h"

#define CF_MAX_BRANCHES 16
#define CF_MAX_OUT 64

typedef enum cf_kind { CF_COND, CF_WHILE, CF_SCAN } cf_kind;

struct program;

typedef struct cf_record {
    cf_kind kind;
    /* the sub-programs:
     *   cond:  one per branch: (operands..., its closure...) → outputs
     *   while: [0] cond: (carries..., its closure...) → bool[]
     *          [1] body: (carries..., its closure...) → carries
     *   scan:  [0] body: (carries..., x slices..., closure...) → (carries..., y slices...) */
    int n_progs;
    ir_func *progs[CF_MAX_BRANCHES];
    /* the equation's operands:
     *   cond:  index (i32 scalar, or bool for two branches), the operands,
     *          then each branch's closure in branch order
     *   while: the carries, the cond's closure, the body's closure
     *   scan:  the carries, the xs, the body's closure */
    int n_operands;
    int n_args;                         /* cond: operands; while/scan: carries */
    int n_xs;                           /* scan */
    int clo_start[CF_MAX_BRANCHES];     /* each program's closure in the operands */
    int clo_n[CF_MAX_BRANCHES];
    int64_t length;                     /* scan: iterations */
    int reverse;                        /* scan: from the last element */
    int n_out;
    rt_aval out[CF_MAX_OUT];
    struct program *prepared[CF_MAX_BRANCHES]; /* compiled sub-programs, made on first use */
    int id;
    /* set by cf_record_dedupe once the construct is complete: only such
     * records are matched by later constructs. A record whose bodies are
     * still being traced (the enclosing construct of a nested one) already
     * holds its first branches, and a nested construct equal to those
     * would otherwise be deduplicated into it and name itself; one whose
     * tracing failed is no construct at all. */
    int finished;
    /* autodiff (ad.c): a construct made as the linear half of a jvp keeps
     * each body's linear program (residuals first, then tangents) for its
     * transpose; n_res and the float-input masks say how they line up */
    int n_aux;
    ir_func *aux[CF_MAX_BRANCHES];
    struct cf_lin_info *lin; /* NULL unless this record is such a linear half */
    int ad_known, ad_linear, ad_transposed; /* derived records' ids + 1 (0: not made yet) */
} cf_record;

/* A new record (zeroed but for kind and id) in ctx's table, or NULL on out
 * of memory. It owns the programs put in it. */
cf_record *cf_record_new(cj_ctx *ctx, cf_kind kind);
/* A construct just built in `rec` may repeat an earlier one (run again
 * eagerly in a loop, or traced again): then the earlier finished record,
 * with its compiled bodies, is returned and rec is dropped (freed when it
 * is the newest record, else left empty); otherwise rec, now finished. */
cf_record *cf_record_dedupe(cj_ctx *ctx, cf_record *rec);
/* The record of an id, or NULL after recording an error naming `op`. */
cf_record *cf_record_get(cj_ctx *ctx, int id, const char *op);

/* Runs a construct on concrete arrays: all its outputs (new references),
 * or -1 with the error recorded. The sub-programs are prepared on first use
 * with `mode` (the enclosing program's backend; CJ_BACKEND_DEFAULT when run
 * eagerly) and kept. */
int cf_run(cj_ctx *ctx, cf_record *rec, cj_backend mode, rt_array *const *operands, rt_array **out);

/* Prepares every sub-program of rec not prepared yet, as cf_run would
 * (with `mode`, loop bodies taking their carries as donated), for an
 * enclosing program whose generated code runs the construct itself
 * (src/backend/codegen_control.c): their own generated code is then built
 * only if cf_run ever runs them. 0, or -1 with the error recorded. */
int cf_prepare(cj_ctx *ctx, cf_record *rec, cj_backend mode);

/* Binds the construct's equations (one per output) through the current
 * traces. */
int cf_bind(cj_ctx *ctx, const cf_record *rec, const cj_val *operands, cj_val *out);

/* Size of the autodiff bookkeeping a linear construct carries (ad.c). */
size_t cf_lin_info_size(void);
/* The vmap rules of the constructs (batch.c), and their per-context
 * tables (freed with the records). */
void cf_register_batch(void);
void cf_batch_free(cj_ctx *ctx);
/* The autodiff rules of the constructs (ad.c). */
void cf_register_ad(void);
/* Their text form for cj_make_jaxpr (print.c). */
void cf_register_print(void);

/* The control-flow primitive of a kind. */
static inline prim_id cf_prim(cf_kind k) { return k == CF_COND ? PRIM_COND : k == CF_WHILE ? PRIM_WHILE : PRIM_SCAN; }
static inline int cf_is_prim(prim_id p) { return p == PRIM_COND || p == PRIM_WHILE || p == PRIM_SCAN; }

#endif
