/* dlpack.c — DLPack import and export of CPU tensors (api layer).
 *
 * DLPack is a C struct handed between libraries with a deleter: the
 * consumer calls the deleter once when it is done. Import (cj_from_dlpack)
 * makes a borrowed array (borrow.c) over the tensor's data whose release
 * calls the deleter, so NumPy's, PyTorch's or JAX's buffer is read in
 * place; a layout that is not compact row-major is copied instead and the
 * deleter runs at once. Export (cj_to_dlpack) hands out a tensor over the
 * array's own buffer, holding a reference to the array that the deleter
 * drops; the context's allocator outlives the context while exports are
 * out (runtime.h, rt_mem_export_hold), so a consumer may keep a tensor
 * after cj_ctx_free.
 *
 * The layout is DLPack's published ABI: dlpack/dlpack.h when the build
 * found it (CJAX_HAVE_DLPACK_H), else include/cjax_dlpack.h, cjax's own
 * description of the same structs; the offsets are asserted below so the
 * two cannot drift apart. Type codes are used by number: older dlpack.h
 * (0.6) has no kDLBool. */
#include <stddef.h>
#include <string.h>

#ifdef CJAX_HAVE_DLPACK_H
#include <dlpack/dlpack.h>
#endif
#include "cjax_dlpack.h"

#include "api.h"

#if UINTPTR_MAX == 0xFFFFFFFFFFFFFFFFu /* the published layout on LP64 */
_Static_assert(offsetof(DLTensor, device) == 8 && offsetof(DLTensor, ndim) == 16 &&
                   offsetof(DLTensor, dtype) == 20 && offsetof(DLTensor, shape) == 24 &&
                   offsetof(DLTensor, strides) == 32 && offsetof(DLTensor, byte_offset) == 40 &&
                   sizeof(DLTensor) == 48,
               "DLTensor layout");
_Static_assert(offsetof(DLManagedTensor, manager_ctx) == 48 && offsetof(DLManagedTensor, deleter) == 56 &&
                   sizeof(DLManagedTensor) == 64,
               "DLManagedTensor layout");
_Static_assert(offsetof(DLManagedTensorVersioned, manager_ctx) == 8 &&
                   offsetof(DLManagedTensorVersioned, deleter) == 16 &&
                   offsetof(DLManagedTensorVersioned, flags) == 24 &&
                   offsetof(DLManagedTensorVersioned, dl_tensor) == 32 && sizeof(DLManagedTensorVersioned) == 80,
               "DLManagedTensorVersioned layout");
#endif
_Static_assert(sizeof(DLDataType) == 4, "DLDataType layout");

enum { DL_INT = 0, DL_UINT = 1, DL_FLOAT = 2, DL_BFLOAT = 4, DL_BOOL = 6 };
enum { DL_CPU = 1, DL_CUDA_HOST = 3 };

/* DLPack's (code, bits) of each cjax dtype. */
static DLDataType dl_type_of(cj_dtype dt) {
    DLDataType t = {0, (uint8_t)(rt_dtypes[dt].size * 8), 1};
    if (dt == CJ_BOOL) t.code = DL_BOOL;
    else if (dt == CJ_BF16) t.code = DL_BFLOAT;
    else if (rt_is_float(dt)) t.code = DL_FLOAT;
    else t.code = rt_is_unsigned(dt) ? DL_UINT : DL_INT;
    return t;
}

static int dtype_of_dl(DLDataType t, cj_dtype *out) {
    for (int d = 0; d < CJ_NUM_DTYPES; d++) {
        DLDataType u = dl_type_of((cj_dtype)d);
        if (u.code == t.code && u.bits == t.bits) {
            *out = (cj_dtype)d;
            return 0;
        }
    }
    return -1;
}

/* ---- import ---- */
static void release_managed(void *user, void *data) {
    (void)data;
    DLManagedTensor *m = user;
    if (m->deleter) m->deleter(m);
}

static void release_versioned(void *user, void *data) {
    (void)data;
    DLManagedTensorVersioned *m = user;
    if (m->deleter) m->deleter(m);
}

/* Compact row-major: every axis of more than one element has the
 * row-major stride (an empty array is compact whatever its strides). */
static int is_compact(const rt_aval *a, const int64_t *strides) {
    if (!strides || rt_aval_size(a) == 0) return 1;
    int64_t expect = 1;
    for (int i = a->rank - 1; i >= 0; i--) {
        if (a->dims[i] != 1 && strides[i] != expect) return 0;
        expect *= a->dims[i];
    }
    return 1;
}

/* A strided tensor copied into a new row-major array. */
static cj_val copy_strided(cj_ctx *ctx, const char *op, const rt_aval *a, const char *base, const int64_t *strides) {
    char t[96];
    rt_aval_str(a, t, sizeof t);
    size_t es = rt_dtypes[a->dtype].size;
    int64_t n = rt_aval_size(a);
    rt_array *arr = rt_array_new(ctx->mem, a);
    if (!arr) {
        core_error(ctx, CJ_ERR_OOM, "%s: out of memory copying a strided %s", op, t);
        return api_err(ctx);
    }
    int64_t idx[CJ_MAX_RANK] = {0};
    char *dst = arr->data;
    for (int64_t k = 0; k < n; k++) {
        int64_t off = 0;
        for (int i = 0; i < a->rank; i++) off += idx[i] * strides[i];
        memcpy(dst + (size_t)k * es, base + off * (int64_t)es, es);
        for (int i = a->rank - 1; i >= 0; i--) {
            if (++idx[i] < a->dims[i]) break;
            idx[i] = 0;
        }
    }
    if (a->dtype == CJ_BOOL)
        for (int64_t k = 0; k < n; k++) ((uint8_t *)dst)[k] = dst[k] != 0;
    return core_wrap_array(ctx, arr);
}

/* One tensor in: `self` is the managed struct, `release` its deleter's
 * caller; called exactly once on every path. */
static cj_val import(cj_ctx *ctx, const char *op, const DLTensor *t, cj_release_fn release, void *self) {
    char why[200] = "";
    cj_status code = CJ_ERR_ARG;
    cj_dtype dt = CJ_F32;
    if ((int)t->device.device_type != DL_CPU && (int)t->device.device_type != DL_CUDA_HOST) {
        code = CJ_ERR_UNSUPPORTED;
        snprintf(why, sizeof why, "device type %d is not the CPU (kDLCPU = 1; cjax reads host memory only)",
                 (int)t->device.device_type);
    } else if (t->dtype.lanes != 1) {
        code = CJ_ERR_UNSUPPORTED;
        snprintf(why, sizeof why, "dtype has %d lanes (cjax takes one)", t->dtype.lanes);
    } else if (dtype_of_dl(t->dtype, &dt) != 0) {
        code = CJ_ERR_UNSUPPORTED;
        snprintf(why, sizeof why,
                 "dtype code %d with %d bits has no cjax dtype (bool 8, int/uint 8-64, float 16-64, bfloat 16 have)",
                 t->dtype.code, t->dtype.bits);
    } else if (t->ndim < 0 || t->ndim > CJ_MAX_RANK) {
        code = CJ_ERR_SHAPE;
        snprintf(why, sizeof why, "ndim %d is outside 0..%d", (int)t->ndim, CJ_MAX_RANK);
    } else if (t->ndim > 0 && !t->shape) {
        snprintf(why, sizeof why, "shape is NULL for ndim %d", (int)t->ndim);
    }
    if (why[0]) {
        release(self, t->data);
        core_error(ctx, code, "%s: %s", op, why);
        return api_err(ctx);
    }
    if (api_check_shape(ctx, op, dt, (int)t->ndim, t->shape) != 0) {
        release(self, t->data);
        return api_err(ctx);
    }
    rt_aval a = rt_aval_make(dt, (int)t->ndim, t->shape);
    const char *base = (const char *)t->data + t->byte_offset;
    int64_t n = rt_aval_size(&a);
    if (n == 0) /* nothing to read: a borrowed view of no bytes */
        return api_borrow(ctx, op, &a, NULL, 0, release, self);
    if (!t->data) {
        release(self, t->data);
        core_error(ctx, CJ_ERR_ARG, "%s: data is NULL for a tensor with elements", op);
        return api_err(ctx);
    }
    size_t es = rt_dtypes[dt].size;
    int compact = is_compact(&a, t->strides), bools_ok = 1;
    if (dt == CJ_BOOL && compact)
        for (int64_t k = 0; k < n && bools_ok; k++) bools_ok = (uint8_t)base[k] <= 1;
    if (compact && (uintptr_t)base % es == 0 && bools_ok)
        /* the producer's data as it is; release runs at the last reference */
        return api_borrow(ctx, op, &a, base, rt_aval_nbytes(&a), release, self);
    /* strided, misaligned, or bools to normalise: copied */
    int64_t rm[CJ_MAX_RANK], s = 1;
    for (int i = a.rank - 1; i >= 0; i--) rm[i] = s, s *= a.dims[i];
    cj_val v = copy_strided(ctx, op, &a, base, t->strides ? t->strides : rm);
    release(self, t->data); /* copied (or failed): the producer's buffer goes back now */
    return v;
}

cj_val cj_from_dlpack(cj_ctx *ctx, struct DLManagedTensor *t) {
    if (!ctx) {
        if (t) release_managed(t, NULL);
        return api_no_ctx("cj_from_dlpack", "ctx is NULL");
    }
    if (!t) {
        core_error(ctx, CJ_ERR_ARG, "cj_from_dlpack: the tensor is NULL");
        return api_err(ctx);
    }
    if (core_enter(ctx, "cj_from_dlpack") != 0) {
        release_managed(t, NULL);
        return api_err(ctx);
    }
    cj_val v;
    if (ctx->err) {
        release_managed(t, NULL);
        v = api_err(ctx);
    } else {
        v = import(ctx, "cj_from_dlpack", &t->dl_tensor, release_managed, t);
    }
    core_leave(ctx);
    return v;
}

cj_val cj_from_dlpack_versioned(cj_ctx *ctx, struct DLManagedTensorVersioned *t) {
    if (!ctx) {
        if (t) release_versioned(t, NULL);
        return api_no_ctx("cj_from_dlpack_versioned", "ctx is NULL");
    }
    if (!t) {
        core_error(ctx, CJ_ERR_ARG, "cj_from_dlpack_versioned: the tensor is NULL");
        return api_err(ctx);
    }
    if (core_enter(ctx, "cj_from_dlpack_versioned") != 0) {
        release_versioned(t, NULL);
        return api_err(ctx);
    }
    cj_val v;
    if (ctx->err) {
        release_versioned(t, NULL);
        v = api_err(ctx);
    } else if (t->version.major != 1) {
        /* only version, manager_ctx and deleter are fixed across majors */
        release_versioned(t, NULL);
        core_error(ctx, CJ_ERR_UNSUPPORTED,
                   "cj_from_dlpack_versioned: DLPack version %u.%u (cjax reads major version 1)", t->version.major,
                   t->version.minor);
        v = api_err(ctx);
    } else {
        v = import(ctx, "cj_from_dlpack_versioned", &t->dl_tensor, release_versioned, t);
    }
    core_leave(ctx);
    return v;
}

/* ---- export ---- */
typedef struct export_block {
    union {
        DLManagedTensor plain;
        DLManagedTensorVersioned versioned;
    } t;
    rt_array *arr;
    int64_t shape[CJ_MAX_RANK], strides[CJ_MAX_RANK];
} export_block;

static void export_drop(export_block *b) {
    rt_array *a = b->arr;
    rt_mem *m = a->mem;
    rt_array_unref(a);
    rt_free(m, b, sizeof *b);
    rt_mem_export_drop(m); /* may delete m (its context is gone): last */
}

static void delete_plain(DLManagedTensor *self) { export_drop(self->manager_ctx); }
static void delete_versioned(DLManagedTensorVersioned *self) { export_drop(self->manager_ctx); }

/* The block over v's array, with dl filled; NULL with the error recorded. */
static export_block *export_block_new(cj_val v, const char *op) {
    if (!v.ctx) {
        core_error(NULL, CJ_ERR_ARG, "%s: %s", op, API_NO_VALUE_CTX);
        return NULL;
    }
    cj_ctx *ctx = v.ctx;
    if (core_enter(ctx, op) != 0) return NULL;
    export_block *b = NULL;
    core_value *cv = ctx->err ? NULL : core_get(v, op);
    if (cv && cv->kind != VALUE_ARRAY) {
        core_error(ctx, CJ_ERR_CONCRETIZATION, "%s: a traced value has no data to export (it is not computed yet)",
                   op);
    } else if (cv) {
        b = rt_calloc(ctx->mem, sizeof *b);
        if (!b) {
            core_oom(ctx, op);
        } else {
            rt_array *a = cv->arr;
            b->arr = rt_array_ref(a);
            int64_t s = 1;
            for (int i = a->aval.rank - 1; i >= 0; i--) {
                b->shape[i] = a->aval.dims[i];
                b->strides[i] = s;
                s *= a->aval.dims[i];
            }
            rt_mem_export_hold(ctx->mem);
        }
    }
    core_leave(ctx);
    return b;
}

static DLTensor export_tensor(export_block *b) {
    const rt_array *a = b->arr;
    DLTensor t;
    memset(&t, 0, sizeof t);
    t.data = a->data;
    t.device.device_type = (DLDeviceType)DL_CPU;
    t.device.device_id = 0;
    t.ndim = a->aval.rank;
    t.dtype = dl_type_of(a->aval.dtype);
    t.shape = b->shape;
    t.strides = b->strides;
    t.byte_offset = 0;
    return t;
}

struct DLManagedTensor *cj_to_dlpack(cj_val v) {
    export_block *b = export_block_new(v, "cj_to_dlpack");
    if (!b) return NULL;
    b->t.plain.dl_tensor = export_tensor(b);
    b->t.plain.manager_ctx = b;
    b->t.plain.deleter = delete_plain;
    return &b->t.plain;
}

struct DLManagedTensorVersioned *cj_to_dlpack_versioned(cj_val v) {
    export_block *b = export_block_new(v, "cj_to_dlpack_versioned");
    if (!b) return NULL;
    b->t.versioned.version.major = 1;
    b->t.versioned.version.minor = 0;
    b->t.versioned.manager_ctx = b;
    b->t.versioned.deleter = delete_versioned;
    b->t.versioned.flags = DLPACK_FLAG_BITMASK_READ_ONLY;
    b->t.versioned.dl_tensor = export_tensor(b);
    return &b->t.versioned;
}
