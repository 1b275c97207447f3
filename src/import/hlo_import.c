/* hlo_import.c — a parsed StableHLO module as a cjax function (import
 * layer, the top: it builds functions through the public API).
 *
 * cj_import_stablehlo parses the text (hlo_parse.c) and returns a function
 * object of kind "stablehlo" whose call walks the entry function's ops and
 * binds the cjax operation of each (hlo_ops.c), so it runs eagerly, is
 * traced by jit into one program, and grad / vmap transform it as any C
 * function. Regions become function objects for cj_while_loop, cj_switch
 * and cj_cond (their free values are closed over as any body's); func.call
 * runs the callee's ops in place. Every result is checked against the type
 * the module declares, so a mismatch is an error naming the op, its line
 * and column, not a wrong answer. */
#include "import/hlo_import.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "core/func.h"

typedef struct imp_module {
    hlo_module *m;
    const hlo_func *entry;
} imp_module;

const char *imp_type_str(const hlo_type *t, char *buf, size_t n) {
    int k = snprintf(buf, n, "tensor<");
    for (int i = 0; i < t->rank && k >= 0 && (size_t)k < n; i++) k += snprintf(buf + k, n - (size_t)k, "%lldx", (long long)t->dims[i]);
    if (k >= 0 && (size_t)k < n) snprintf(buf + k, n - (size_t)k, "%s>", t->known_dt ? cj_dtype_name(t->dt) : "?");
    return buf;
}

int imp_error(imp_env *E, const hlo_op *op, const char *fmt, ...) {
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!cj_error(E->ctx))
        core_error(E->ctx, CJ_ERR_ARG, "cj_import_stablehlo: line %d, column %d: %s: %s", op ? op->line : 0,
                   op ? op->col : 0, op ? op->name : "module", msg);
    return -1;
}

static int check_type(imp_env *E, const hlo_op *op, int k, cj_val v) {
    const hlo_type *t = &op->res_types[k];
    if (cj_is_error(v)) return -1;
    int64_t dims[CJ_MAX_RANK];
    int r = cj_val_shape(v, dims);
    int ok = t->kind == HT_TENSOR && r == t->rank && cj_val_dtype(v) == t->dt;
    for (int i = 0; ok && i < r; i++) ok = dims[i] == t->dims[i];
    if (ok) return 0;
    char a[96], b[96];
    return imp_error(E, op, "result %d is %s where the module says %s", k, cj_val_type_str(v, a, sizeof a),
                     imp_type_str(t, b, sizeof b));
}

/* Runs a block: binds args to its arguments, each op in order, and the
 * terminator's operands into out (at most max_out). Returns the number
 * of results, -1 on error. */
int imp_run_block(imp_env *E, const hlo_block *b, const cj_val *args, cj_val *out, int max_out) {
    for (int i = 0; i < b->n_args; i++) E->v[b->arg_ids[i]] = args[i];
    for (int i = 0; i < b->n_ops; i++) {
        const hlo_op *op = b->ops[i];
        if (strcmp(op->name, "func.return") == 0 || strcmp(op->name, "stablehlo.return") == 0) {
            if (op->n_operands > max_out) return imp_error(E, op, "returns %d values where %d are expected", op->n_operands, max_out);
            for (int k = 0; k < op->n_operands; k++) out[k] = E->v[op->operands[k]];
            return op->n_operands;
        }
        if (op->first_result + op->n_results > E->n || op->n_results > IMP_MAX_RESULTS)
            return imp_error(E, op, "too many results");
        if (--*E->budget < 0)
            return imp_error(E, op, "the program binds more than %lld ops (func.call fan-out?)", (long long)IMP_OP_BUDGET);
        cj_val res[IMP_MAX_RESULTS];
        for (int k = 0; k < op->n_results; k++) res[k] = (cj_val){0};
        if (imp_run_op(E, op, res) != 0 || cj_error(E->ctx)) {
            if (!cj_error(E->ctx)) imp_error(E, op, "failed");
            return -1;
        }
        for (int k = 0; k < op->n_results; k++) {
            if (check_type(E, op, k, res[k])) return -1;
            E->v[op->first_result + k] = res[k];
        }
    }
    return imp_error(E, NULL, "a block without a terminator");
}

int imp_call_func(imp_env *parent, const hlo_func *f, const cj_val *args, cj_val *out) {
    if (parent->depth > 32) return imp_error(parent, NULL, "calls nested deeper than 32 (recursion?)");
    imp_env E = {parent->ctx, parent->m, NULL, NULL, f->n_values, parent->depth + 1, parent->budget};
    size_t bytes = (size_t)(f->n_values ? f->n_values : 1) * sizeof(cj_val);
    E.v = rt_calloc(parent->ctx->mem, bytes);
    E.s = E.v ? rt_calloc(parent->ctx->mem, bytes) : NULL;
    if (!E.s) {
        if (E.v) rt_free(parent->ctx->mem, E.v, bytes);
        return imp_error(parent, NULL, "out of memory running @%s", f->name);
    }
    int n = imp_run_block(&E, &f->body, args, out, f->n_results);
    rt_free(parent->ctx->mem, E.v, bytes);
    rt_free(parent->ctx->mem, E.s, bytes);
    if (n < 0) return -1;
    if (n != f->n_results) return imp_error(parent, NULL, "@%s returns %d values for %d results", f->name, n, f->n_results);
    return 0;
}

static int imp_call(cj_func *f, const cj_val *in, cj_val *out) {
    imp_module *im = f->state;
    int64_t budget = IMP_OP_BUDGET;
    imp_env root = {f->ctx, im->m, NULL, NULL, 0, 0, &budget};
    cj_scope_begin(f->ctx);
    int rc = imp_call_func(&root, im->entry, in, out);
    cj_scope_end(f->ctx, rc == 0 ? f->n_out : 0, out);
    return rc;
}

static void imp_free(cj_func *f) {
    imp_module *im = f->state;
    if (!im) return;
    f->state = NULL; /* func_free_all calls free_state twice */
    rt_mem *mem = f->ctx->mem;
    hlo_module_free(im->m);
    rt_free(mem, im, sizeof *im);
}

static const func_ops imp_ops = {"stablehlo", imp_call, imp_free};

cj_func *cj_import_stablehlo(cj_ctx *ctx, const char *text, size_t len, const cj_import_opts *opts) {
    if (!ctx) return core_error(NULL, CJ_ERR_ARG, "cj_import_stablehlo: ctx is NULL"), NULL;
    if (!text) return core_error(ctx, CJ_ERR_ARG, "cj_import_stablehlo: text is NULL"), NULL;
    const char *entry = opts && opts->entry ? opts->entry : "main";
    char err[512];
    hlo_module *m = hlo_parse(ctx->mem, text, len, err, sizeof err);
    if (!m) {
        core_error(ctx, strstr(err, "out of memory") ? CJ_ERR_OOM : CJ_ERR_ARG, "cj_import_stablehlo: %s", err);
        return NULL;
    }
    const hlo_func *fn = hlo_find_func(m, entry, strlen(entry));
    if (!fn) {
        hlo_module_free(m);
        core_error(ctx, CJ_ERR_ARG, "cj_import_stablehlo: the module has no func.func @%s", entry);
        return NULL;
    }
    for (int i = 0; i < fn->n_args + fn->n_results; i++) {
        const hlo_type *t = i < fn->n_args ? &fn->arg_types[i] : &fn->res_types[i - fn->n_args];
        if (t->kind != HT_TENSOR || !t->known_dt) {
            core_error(ctx, CJ_ERR_DTYPE, "cj_import_stablehlo: line %d, column %d: @%s's %s %d is not a tensor of a dtype cjax has",
                       fn->line, fn->col, entry, i < fn->n_args ? "argument" : "result",
                       i < fn->n_args ? i : i - fn->n_args);
            hlo_module_free(m); /* after the message: fn lives in the module */
            return NULL;
        }
    }
    if (fn->n_results < 1 || fn->n_results > 64 || fn->n_args > 64) {
        core_error(ctx, CJ_ERR_ARG, "cj_import_stablehlo: @%s has %d arguments and %d results (cjax takes 0..64 and 1..64)",
                   entry, fn->n_args, fn->n_results);
        hlo_module_free(m);
        return NULL;
    }
    if (opts && opts->check_arity && (opts->n_in != fn->n_args || opts->n_out != fn->n_results)) {
        core_error(ctx, CJ_ERR_ARG, "cj_import_stablehlo: @%s takes %d arguments and returns %d results, not %d and %d",
                   entry, fn->n_args, fn->n_results, opts->n_in, opts->n_out);
        hlo_module_free(m);
        return NULL;
    }
    imp_module *im = rt_calloc(ctx->mem, sizeof *im);
    cj_func *f = im ? func_new(ctx, entry, &imp_ops, fn->n_args, fn->n_results) : NULL;
    if (!f) {
        if (im) rt_free(ctx->mem, im, sizeof *im);
        hlo_module_free(m);
        if (!cj_error(ctx)) core_error(ctx, CJ_ERR_OOM, "cj_import_stablehlo: out of memory");
        return NULL;
    }
    im->m = m, im->entry = fn;
    f->state = im;
    return f;
}

cj_func *cj_import_stablehlo_file(cj_ctx *ctx, const char *path, const cj_import_opts *opts) {
    if (!ctx) return core_error(NULL, CJ_ERR_ARG, "cj_import_stablehlo_file: ctx is NULL"), NULL;
    if (!path) return core_error(ctx, CJ_ERR_ARG, "cj_import_stablehlo_file: path is NULL"), NULL;
    FILE *fp = fopen(path, "rb");
    if (!fp) return core_error(ctx, CJ_ERR_IO, "cj_import_stablehlo_file: cannot open %s", path), NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = rt_alloc(ctx->mem, cap);
    while (buf) {
        if (n == cap) {
            if (cap > ((size_t)1 << 31)) break;
            char *nb = rt_alloc(ctx->mem, cap * 2);
            if (nb) memcpy(nb, buf, n);
            rt_free(ctx->mem, buf, cap);
            buf = nb, cap *= 2;
            if (!buf) break;
        }
        size_t k = fread(buf + n, 1, cap - n, fp);
        n += k;
        if (k == 0) break;
    }
    int bad = ferror(fp) || (buf && n == cap);
    fclose(fp);
    if (!buf) return core_error(ctx, CJ_ERR_OOM, "cj_import_stablehlo_file: out of memory reading %s", path), NULL;
    if (bad) {
        rt_free(ctx->mem, buf, cap);
        return core_error(ctx, CJ_ERR_IO, "cj_import_stablehlo_file: cannot read %s", path), NULL;
    }
    cj_func *f = cj_import_stablehlo(ctx, buf, n, opts);
    rt_free(ctx->mem, buf, cap);
    return f;
}
