/* control.h — control flow as part of the IR: cond, switch, while_loop,
 * fori_loop and scan (control layer).
 *
 * A C `if` or `for` runs at trace time; these constructs are traced
 * instead. Their bodies are traced once into sub-programs, kept in a
 * reference-counted control-flow record; the IR holds one equation of all
 * the construct's outputs (prims cond / while / scan, several results)
 * whose params.ref is the record, as JAX's `while_p.bind(cond_jaxpr=...,
 * body_jaxpr=...)` holds its jaxprs. Every equation naming the record holds
 * a reference; so do the records derived from it (its jvp halves, its
 * batched forms) and the function objects that remember it for reuse
 * (cf_record_dedupe). Evaluating the equation runs the construct once,
 * whatever outputs are read (record.c, prims.c, and the runtime loop in
 * src/backend/control_run.c; api.c has the public functions). */
#ifndef CJ_CONTROL_H
#define CJ_CONTROL_H

#include "../core/func.h"

#define CF_MAX_BRANCHES 16
/* Batched forms of one record kept for reuse (vmap called again). */
#define CF_BATCHED_KEPT 4

typedef enum cf_kind { CF_COND, CF_WHILE, CF_SCAN } cf_kind;

struct program;

struct cf_record;

/* A batched form of a record: the vmap rule's key and what it made. */
typedef struct cf_batched {
    struct cf_record *rec; /* one reference; NULL: empty */
    int variant;           /* while: the predicate is batched */
    int64_t size;
    int n_batched;    /* operands of the new record's layout */
    uint8_t *batched; /* which are batched (the kept form owns its copy) */
} cf_batched;

typedef struct cf_record {
    prim_ref ref; /* first: an equation's params.ref points here */
    cj_ctx *ctx;  /* whose memory it lives in */
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
    rt_aval *out; /* n_out types, set by cf_record_outs: no fixed limit */
    struct program *prepared[CF_MAX_BRANCHES]; /* compiled sub-programs, made on first use */
    /* autodiff (ad.c): a construct made as the linear half of a jvp keeps
     * each body's linear program (residuals first, then tangents) for its
     * transpose; n_res and the float-input masks say how they line up */
    int n_aux;
    ir_func *aux[CF_MAX_BRANCHES];
    struct cf_lin_info *lin; /* NULL unless this record is such a linear half */
    /* derived records, made on first use, one reference each (NULL: not
     * made yet) */
    struct cf_record *ad_known, *ad_linear, *ad_transposed;
    cf_batched batched[CF_BATCHED_KEPT];
    int next_batched; /* round-robin replacement */
    /* the hoist rule (scan_hoist.c): the program compiled in a scan's
     * place with its carry-independent work moved before the loop, made on
     * first use (one reference to its new record, through its equation),
     * and the bytes of the stacked values it adds; hoist_none: nothing to
     * move (a record the rule made is marked so) */
    ir_func *hoisted;
    size_t hoisted_bytes;
    int hoist_none;
} cf_record;

/* The record an equation's parameters hold. */
static inline cf_record *cf_of(const prim_params *p) { return (cf_record *)p->ref; }

/* A new record (zeroed but for kind), with one reference, the caller's;
 * NULL on out of memory. It owns the programs put in it. */
cf_record *cf_record_new(cj_ctx *ctx, cf_kind kind);
static inline cf_record *cf_record_retain(cf_record *rec) {
    prim_ref_retain(rec ? &rec->ref : NULL);
    return rec;
}
static inline void cf_record_release(cf_record *rec) { prim_ref_release(rec ? &rec->ref : NULL); }
/* Gives rec n results (zeroed types, to be filled): 0, or -1 with the
 * out-of-memory error recorded. */
int cf_record_outs(cf_record *rec, int n);
/* A construct just built in `rec` may repeat an earlier one (run again
 * eagerly in a loop, or traced again) made from the same function object
 * `owner` (its first body), which remembers its last few finished records:
 * then that record, with its compiled bodies, is returned; otherwise rec,
 * now remembered by owner. Either way the caller gets a new reference to
 * what is returned, and keeps its own to rec. (Only finished records are
 * remembered: a nested construct equal to the enclosing construct's
 * branches traced so far must not become that construct.) */
cf_record *cf_record_dedupe(cj_ctx *ctx, cf_record *rec, cj_func *owner);

/* Records alive in this process, for tests of reuse and lifetimes. */
long cf_records_made_for_testing(void);
long cf_records_live_for_testing(void);

/* Binds the construct (one equation of its rec->n_out results) through the
 * current traces. */
int cf_bind(cj_ctx *ctx, const cf_record *rec, const cj_val *operands, cj_val *out);

/* Frees the autodiff bookkeeping a linear construct carries (ad.c). */
void cf_lin_info_free(cj_ctx *ctx, struct cf_lin_info *li);
/* The vmap rules of the constructs (batch.c). */
void cf_register_batch(void);
/* Drops the batched forms a record keeps (record.c frees it). */
void cf_batched_clear(cf_record *rec);
/* The autodiff rules of the constructs (ad.c). */
void cf_register_ad(void);
/* Their text form for cj_make_jaxpr (print.c). */
void cf_register_print(void);
/* The scan's hoist rule (scan_hoist.c), which the compiler's hoist pass
 * calls. */
void cf_register_hoist(void);
/* Tests: the most bytes of stacked values the rule may add per scan (0:
 * never hoist; < 0: CJAX_SCAN_HOIST_MAX_MB again). */
void cf_hoist_set_limit_for_testing(long long max_bytes);

/* The control-flow primitive of a kind. */
static inline prim_id cf_prim(cf_kind k) { return k == CF_COND ? PRIM_COND : k == CF_WHILE ? PRIM_WHILE : PRIM_SCAN; }
static inline int cf_is_prim(prim_id p) { return p == PRIM_COND || p == PRIM_WHILE || p == PRIM_SCAN; }

#endif
