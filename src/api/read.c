/* read.c — reading arrays back into C: copies, scalars, printing
 * (api layer). Reading a tracer is the concretization error: while a
 * function is traced its values have types but no contents. */
#include <math.h>
#include <string.h>

#include "api.h"

/* The concrete array behind v, or NULL after recording why. */
static rt_array *concrete(cj_val v, const char *op) {
    core_value *cv = core_get(v, op);
    if (!cv) return NULL;
    if (cv->kind == VALUE_ARRAY) return cv->arr;
    char t[96];
    rt_aval_str(&cv->aval, t, sizeof t);
    core_error(v.ctx, CJ_ERR_CONCRETIZATION,
               "%s: the value is traced (an abstract %s while tracing %s) and has no contents yet. "
               "A traced value cannot become a C number or decide C control flow: mark the argument "
               "static (cj_jit_opts.static_argnums) if it is known when calling, or compute the choice "
               "with cj_where (or control-flow primitives) instead of C `if`",
               op, t, v.ctx->traces[cv->level]->what);
    return NULL;
}

static cj_status read_held(cj_val v, cj_dtype as, void *buf, size_t size);

cj_status cj_read_as(cj_val v, cj_dtype as, void *buf, size_t size) {
    if (!v.ctx) return core_error(NULL, CJ_ERR_ARG, "cj_read: " API_NO_VALUE_CTX), CJ_ERR_ARG;
    if (core_enter(v.ctx, "cj_read") != 0) return CJ_ERR_ARG;
    cj_status st = read_held(v, as, buf, size);
    core_leave(v.ctx);
    return st;
}

static cj_status read_held(cj_val v, cj_dtype as, void *buf, size_t size) {
    if (v.ctx->err) return v.ctx->err;
    rt_array *a = concrete(v, "cj_read");
    if (!a) return v.ctx->err;
    if (!rt_dtype_valid((int)as)) {
        core_error(v.ctx, CJ_ERR_DTYPE, "cj_read: %d is not a dtype", (int)as);
        return v.ctx->err;
    }
    size_t need = (size_t)a->size * rt_dtypes[as].size;
    if (!buf && need) {
        core_error(v.ctx, CJ_ERR_ARG, "cj_read: buf is NULL (%zu bytes needed)", need);
        return v.ctx->err;
    }
    if (size < need) {
        char t[96];
        rt_aval_str(&a->aval, t, sizeof t);
        core_error(v.ctx, CJ_ERR_ARG, "cj_read: buffer of %zu bytes is too small for %s as %s (%zu bytes)", size, t,
                   rt_dtypes[as].name, need);
        return v.ctx->err;
    }
    rt_convert(a->aval.dtype, a->data, as, buf, a->size);
    return CJ_OK;
}

cj_status cj_read(cj_val v, void *buf, size_t size) {
    if (!v.ctx) return cj_read_as(v, CJ_F32, buf, size);
    if (core_enter(v.ctx, "cj_read") != 0) return CJ_ERR_ARG;
    core_value *cv = core_peek(v);
    cj_status st = cj_read_as(v, cv ? cv->aval.dtype : CJ_F32, buf, size);
    core_leave(v.ctx);
    return st;
}

static rt_array *single(cj_val v, const char *op) {
    if (!v.ctx || v.ctx->err) return NULL;
    rt_array *a = concrete(v, op);
    if (!a) return NULL;
    if (a->size != 1) {
        char t[96];
        rt_aval_str(&a->aval, t, sizeof t);
        core_error(v.ctx, CJ_ERR_SHAPE, "%s: needs an array of one element, got %s", op, t);
        return NULL;
    }
    return a;
}

/* One element as a double (as_int 0) or an int64 (1), the context held. */
static cj_status item(cj_val v, const char *op, double *out, int64_t *out_int) {
    if (!v.ctx) return core_error(NULL, CJ_ERR_ARG, "%s: " API_NO_VALUE_CTX, op), CJ_ERR_ARG;
    if (core_enter(v.ctx, op) != 0) return CJ_ERR_ARG;
    cj_status st = CJ_OK;
    rt_array *a = NULL;
    if (!out && !out_int) st = (core_error(v.ctx, CJ_ERR_ARG, "%s: out is NULL", op), v.ctx->err);
    else if (!(a = single(v, op))) st = v.ctx->err ? v.ctx->err : CJ_ERR_ARG;
    else if (out) *out = rt_get_f64(a->aval.dtype, a->data, 0);
    else *out_int = rt_get_i64(a->aval.dtype, a->data, 0);
    core_leave(v.ctx);
    return st;
}

cj_status cj_item(cj_val v, double *out) { return item(v, "cj_item", out, NULL); }

cj_status cj_item_int(cj_val v, int64_t *out) { return item(v, "cj_item_int", NULL, out); }

double cj_item_or_nan(cj_val v) {
    double x;
    return cj_item(v, &x) == CJ_OK ? x : NAN;
}

/* ---- printing, NumPy style, summarised beyond 1000 elements ---- */
static void print_elem(FILE *out, const rt_array *a, int64_t i) {
    switch (a->aval.dtype) {
    case CJ_BOOL: fputs(((const uint8_t *)a->data)[i] ? "True" : "False", out); break;
    case CJ_U64: fprintf(out, "%llu", (unsigned long long)rt_get_u64(a->aval.dtype, a->data, i)); break;
    case CJ_I8: case CJ_I16: case CJ_I32: case CJ_I64: case CJ_U8: case CJ_U16: case CJ_U32:
        fprintf(out, "%lld", (long long)rt_get_i64(a->aval.dtype, a->data, i));
        break;
    default: fprintf(out, "%.7g", rt_get_f64(a->aval.dtype, a->data, i)); break;
    }
}

static void print_rec(FILE *out, const rt_array *a, int axis, int64_t offset, const int64_t *strides,
                      int summarise) {
    if (axis == a->aval.rank) {
        print_elem(out, a, offset);
        return;
    }
    int64_t n = a->aval.dims[axis];
    fputc('[', out);
    for (int64_t i = 0; i < n; i++) {
        if (summarise && n > 6 && i == 3) {
            fputs("..., ", out);
            i = n - 3;
        }
        if (i) fputs(", ", out);
        print_rec(out, a, axis + 1, offset + i * strides[axis], strides, summarise);
    }
    fputc(']', out);
}

void cj_print(cj_val v, FILE *out) {
    core_value *cv = core_peek(v);
    if (!out) {
        core_error(v.ctx, CJ_ERR_ARG, "cj_print: out is NULL");
        return;
    }
    if (!cv) {
        fputs("<error value>\n", out);
        return;
    }
    char t[96];
    rt_aval_str(&cv->aval, t, sizeof t);
    if (cv->kind != VALUE_ARRAY) {
        fprintf(out, "Traced<%s>\n", t);
        return;
    }
    int64_t strides[CJ_MAX_RANK];
    rt_strides(&cv->aval, strides);
    fprintf(out, "%s ", t);
    print_rec(out, cv->arr, 0, 0, strides, cv->arr->size > 1000);
    fputc('\n', out);
}
