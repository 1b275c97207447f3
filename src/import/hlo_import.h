/* hlo_import.h — what hlo_import.c (the function object, blocks, calls)
 * and hlo_ops.c (one cjax binding per StableHLO op) share (import layer). */
#ifndef CJ_IMPORT_HLO_IMPORT_H
#define CJ_IMPORT_HLO_IMPORT_H

#include <stdarg.h>

#include "import/hlo.h"

#define IMP_MAX_RESULTS 64

/* The values of one running func.func, indexed by the parser's ids. */
typedef struct imp_env {
    cj_ctx *ctx;
    const hlo_module *m;
    cj_val *v;
    cj_val *s; /* s[id]: the rank-0 value a broadcast_in_dim result id was
                  broadcast from ({0} otherwise): elementwise ops use it */
    int n;
    int depth; /* func.call nesting */
    int64_t *budget; /* ops left to bind in this call: func.call fan-out
                        cannot make a small module run for ever */
} imp_env;

#define IMP_OP_BUDGET (INT64_C(1) << 20)

int imp_error(imp_env *E, const hlo_op *op, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const char *imp_type_str(const hlo_type *t, char *buf, size_t n);
int imp_run_block(imp_env *E, const hlo_block *b, const cj_val *args, cj_val *out, int max_out);
int imp_call_func(imp_env *parent, const hlo_func *f, const cj_val *args, cj_val *out);
/* Binds op's cjax operations, writing its n_results values to res. */
int imp_run_op(imp_env *E, const hlo_op *op, cj_val *res);

#endif
