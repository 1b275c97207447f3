/* borrow.c — arrays over the caller's memory, without a copy (api layer).
 *
 * cj_array_borrow wraps memory the caller owns as a read-only array: the
 * runtime's borrowed kind (runtime.h), whose data cjax never frees and
 * never writes (a donation of one is refused, so an output never lands in
 * it), with the caller's release callback run exactly once when the last
 * reference goes — or before the function returns when it fails, so the
 * caller has one rule: after the call, the callback owns the cleanup.
 * DLPack imports (dlpack.c) come through here too.
 *
 * What is checked, since the memory is used as it is: the pointer must be
 * aligned to the element size (what a C access of the element type needs;
 * cjax's kernels load arrays without assuming more), `size` must cover the
 * shape's bytes, and bool elements must be 0 or 1 (every kernel relies on
 * it; cj_array normalises a copy, a borrowed view cannot be changed). */
#include <string.h>

#include "api.h"

int api_check_shape(cj_ctx *ctx, const char *op, cj_dtype dtype, int rank, const int64_t *dims) {
    if (!rt_dtype_valid((int)dtype)) return core_error(ctx, CJ_ERR_DTYPE, "%s: %d is not a dtype", op, (int)dtype);
    if (rank < 0 || rank > CJ_MAX_RANK)
        return core_error(ctx, CJ_ERR_SHAPE, "%s: rank %d is outside 0..%d", op, rank, CJ_MAX_RANK);
    if (rank && !dims) return core_error(ctx, CJ_ERR_ARG, "%s: dims is NULL for rank %d", op, rank);
    rt_shape_status s = rt_shape_check(rank, dims);
    if (s != RT_SHAPE_OK) {
        char t[200];
        rt_dims_str(rank, dims, t, sizeof t);
        if (s == RT_SHAPE_NEGATIVE) return core_error(ctx, CJ_ERR_SHAPE, "%s: negative dimension in shape %s", op, t);
        return core_error(ctx, CJ_ERR_SHAPE, "%s: shape %s %s", op, t, rt_shape_status_text(s));
    }
    return 0;
}

size_t api_pointer_alignment(const void *p) {
    uintptr_t u = (uintptr_t)p;
    if (!u) return (size_t)1 << 20; /* NULL (no bytes): as aligned as anything */
    size_t a = 1;
    while (!(u & 1) && a < ((size_t)1 << 20)) u >>= 1, a <<= 1;
    return a;
}

int api_check_buffer(cj_ctx *ctx, const char *op, const char *what, const rt_aval *a, const void *data,
                     size_t size) {
    char t[96];
    rt_aval_str(a, t, sizeof t);
    size_t nbytes = rt_aval_nbytes(a), es = rt_dtypes[a->dtype].size;
    if (!data && nbytes)
        return core_error(ctx, CJ_ERR_ARG, "%s: %s is NULL for %s (%zu bytes)", op, what, t, nbytes);
    if (size < nbytes)
        return core_error(ctx, CJ_ERR_ARG, "%s: %s holds %zu bytes, %s needs %zu", op, what, size, t, nbytes);
    size_t al = api_pointer_alignment(data);
    if (al < es)
        return core_error(ctx, CJ_ERR_ARG,
                          "%s: %s %p is aligned to %zu byte%s; %s elements need %zu (the element size)", op, what,
                          data, al, al == 1 ? "" : "s", rt_dtypes[a->dtype].name, es);
    return 0;
}

/* Bools other than 0/1 cannot be viewed (module comment). */
static int check_bools(cj_ctx *ctx, const char *op, const rt_aval *a, const uint8_t *b) {
    int64_t n = rt_aval_size(a);
    for (int64_t i = 0; i < n; i++)
        if (b[i] > 1)
            return core_error(ctx, CJ_ERR_ARG,
                              "%s: bool element %lld holds %d (a borrowed bool array must hold only 0 and 1; "
                              "cj_array copies and normalises)",
                              op, (long long)i, b[i]);
    return 0;
}

cj_val api_borrow(cj_ctx *ctx, const char *op, const rt_aval *a, const void *data, size_t size,
                  cj_release_fn release, void *user) {
    if (ctx->err || api_check_buffer(ctx, op, "data", a, data, size) != 0 ||
        (a->dtype == CJ_BOOL && check_bools(ctx, op, a, data) != 0)) {
        if (release) release(user, (void *)data);
        return api_err(ctx);
    }
    /* A zero-byte array may come with a NULL pointer; the runtime's
     * arrays never hold NULL, so it points at a byte of its own header
     * (nothing reads it). */
    rt_array *arr = rt_array_borrow(ctx->mem, a, (void *)data, release, user);
    if (!arr) {
        if (release) release(user, (void *)data);
        char t[96];
        rt_aval_str(a, t, sizeof t);
        core_error(ctx, CJ_ERR_OOM, "%s: out of memory for the header of a borrowed %s", op, t);
        return api_err(ctx);
    }
    if (!arr->data) arr->data = &arr->borrowed;
    return core_wrap_array(ctx, arr);
}

cj_val cj_array_borrow(cj_ctx *ctx, cj_dtype dtype, int rank, const int64_t *dims, const void *data, size_t size,
                       cj_release_fn release, void *user) {
    if (!ctx) {
        if (release) release(user, (void *)data);
        return api_no_ctx("cj_array_borrow", "ctx is NULL");
    }
    if (core_enter(ctx, "cj_array_borrow") != 0) {
        if (release) release(user, (void *)data);
        return api_err(ctx);
    }
    cj_val v;
    if (ctx->err || api_check_shape(ctx, "cj_array_borrow", dtype, rank, dims) != 0) {
        if (release) release(user, (void *)data);
        v = api_err(ctx);
    } else {
        rt_aval a = rt_aval_make(dtype, rank, dims);
        v = api_borrow(ctx, "cj_array_borrow", &a, data, size, release, user);
    }
    core_leave(ctx);
    return v;
}

int cj_array_is_borrowed(cj_val v) {
    core_value *cv = v.ctx ? core_peek(v) : NULL;
    return cv && cv->kind == VALUE_ARRAY && cv->arr->borrowed;
}

const void *cj_array_data(cj_val v) {
    if (!v.ctx) {
        core_error(NULL, CJ_ERR_ARG, "cj_array_data: %s", API_NO_VALUE_CTX);
        return NULL;
    }
    core_value *cv = core_get(v, "cj_array_data");
    if (!cv) return NULL;
    if (cv->kind != VALUE_ARRAY) {
        core_error(v.ctx, CJ_ERR_CONCRETIZATION, "cj_array_data: a traced value has no data (it is not computed yet)");
        return NULL;
    }
    return cv->arr->data;
}
