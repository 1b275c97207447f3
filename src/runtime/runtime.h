/* runtime.h — the runtime layer's internal interface: dtypes, abstract
 * values (shape + dtype), the context's allocator with statistics and the
 * data-buffer pool, and refcounted dense arrays.
 *
 * Everything above the runtime (core, prim, transform, compiler, backend)
 * allocates through rt_alloc/rt_free so one hook sees all memory and tests
 * can fail the N-th allocation. Arrays are dense, row-major, 64-byte aligned
 * and immutable once published; they are shared by reference count. */
#ifndef CJ_RUNTIME_H
#define CJ_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cjax.h"

/* ---- dtypes ---- */
typedef struct rt_dtype_info {
    const char *name, *npy_descr;
    size_t size;
    bool is_float, is_int, is_bool, is_unsigned;
} rt_dtype_info;
extern const rt_dtype_info rt_dtypes[CJ_NUM_DTYPES];
static inline bool rt_dtype_valid(int dt) { return dt >= 0 && dt < CJ_NUM_DTYPES; }
static inline bool rt_is_float(cj_dtype dt) { return rt_dtypes[dt].is_float; }
static inline bool rt_is_int(cj_dtype dt) { return rt_dtypes[dt].is_int; }
static inline bool rt_is_unsigned(cj_dtype dt) { return rt_dtypes[dt].is_unsigned; }
/* f16 and bf16: stored as 16 bits, computed in f32 (as XLA's CPU backend). */
static inline bool rt_is_narrow_float(cj_dtype dt) { return dt == CJ_F16 || dt == CJ_BF16; }
/* The dtypes after CJ_F64 (i8..bf16), which a primitive takes only when
 * its rule record says so (prim_rule.extra_dtypes): core rejects them
 * elsewhere with an error naming the primitive and the dtype. */
static inline bool rt_dtype_is_extra(cj_dtype dt) { return dt > CJ_F64; }

/* ---- abstract values ---- */
typedef struct rt_aval {
    cj_dtype dtype;
    int weak; /* weakly typed (a C scalar constant, JAX's weak_type) */
    int rank;
    int64_t dims[CJ_MAX_RANK];
} rt_aval;

int64_t rt_aval_size(const rt_aval *a); /* product of dims (1 for rank 0) */

/* The one check every shape passes before a value of it exists: array
 * creation, each primitive's result (core_abstract_eval, so eager, staged
 * and batched paths alike), specs and loaded files. A shape is valid when
 * its rank is 0..CJ_MAX_RANK, no size is negative, and the product of its
 * nonzero sizes is at most RT_MAX_ELEMENTS. Counting a zero size as 1
 * matters: f32[0,2^32,2^32] holds nothing, but a reduction over its first
 * axis, a transpose and a matmul of f32[0,2^31] do, and every stride and
 * partial product of a valid shape fits in int64_t. Its bytes (8 at most
 * per element) then fit in int64_t and size_t too. */
#define RT_MAX_ELEMENTS ((int64_t)1 << 59)
typedef enum rt_shape_status { RT_SHAPE_OK, RT_SHAPE_BAD_RANK, RT_SHAPE_NEGATIVE, RT_SHAPE_TOO_LARGE } rt_shape_status;
rt_shape_status rt_shape_check(int rank, const int64_t *dims);
/* Words for a failed check: "has rank 9, outside 0..8", "has a negative
 * size", "is too large (more than 2^59 elements, zero sizes counted as 1)". */
const char *rt_shape_status_text(rt_shape_status s);
size_t rt_aval_nbytes(const rt_aval *a);
bool rt_aval_same_shape(const rt_aval *a, const rt_aval *b);
bool rt_aval_equal(const rt_aval *a, const rt_aval *b); /* incl. dtype, weak */
/* Same dtype and shape; the weak flag may differ. */
static inline bool rt_aval_same_type(const rt_aval *a, const rt_aval *b) {
    return a->dtype == b->dtype && rt_aval_same_shape(a, b);
}
rt_aval rt_aval_make(cj_dtype dt, int rank, const int64_t *dims);
/* "f32[3,4]" (JAX's spelling); returns the length written. */
int rt_aval_str(const rt_aval *a, char *buf, size_t size);
/* Shape only: "(3, 4)". */
int rt_dims_str(int rank, const int64_t *dims, char *buf, size_t size);
/* Row-major strides in elements. */
void rt_strides(const rt_aval *a, int64_t *strides);

/* Element conversion between every pair of dtypes for n elements, as
 * XLA's convert_element_type on CPU (dtype.c says the rules). */
void rt_convert(cj_dtype from, const void *src, cj_dtype to, void *dst,
                int64_t n);
/* Read element i as double / write a double as element i. */
double rt_get_f64(cj_dtype dt, const void *data, int64_t i);
void rt_set_f64(cj_dtype dt, void *data, int64_t i, double v);
int64_t rt_get_i64(cj_dtype dt, const void *data, int64_t i);
uint64_t rt_get_u64(cj_dtype dt, const void *data, int64_t i);

/* ---- memory: the context's allocator ---- */
typedef struct rt_mem rt_mem;

/* Small objects (headers, IR, tables). Returns NULL on failure; the caller
 * reports CJ_ERR_OOM. rt_free needs the size given at allocation. */
void *rt_alloc(rt_mem *m, size_t size);
void *rt_calloc(rt_mem *m, size_t size);
void rt_free(rt_mem *m, void *p, size_t size);
/* Grows a block (copying); NULL on failure, the old block still valid. */
void *rt_realloc(rt_mem *m, void *p, size_t old_size, size_t new_size);
char *rt_strdup(rt_mem *m, const char *s);
void rt_strfree(rt_mem *m, char *s);

/* Data buffers, 64-byte aligned, served from a pool of freed buffers by
 * size class. *cap receives the usable capacity (>= size). */
void *rt_data_alloc(rt_mem *m, size_t size, size_t *cap);
void rt_data_free(rt_mem *m, void *p, size_t cap);

/* Array headers (sizeof(rt_array)), recycled through a free list. */
void *rt_header_alloc(rt_mem *m, size_t size);
void rt_header_free(rt_mem *m, void *p, size_t size);

rt_mem *rt_mem_new(const cj_allocator *hook);
void rt_mem_delete(rt_mem *m);
void rt_mem_stats(rt_mem *m, cj_mem_stats *out);
void rt_mem_trim(rt_mem *m);
/* Borrowed arrays' bytes (cj_mem_stats.bytes_borrowed): caller memory
 * viewed, never allocated. */
void rt_mem_borrowed(rt_mem *m, size_t add, size_t sub);

/* ---- arrays ---- */
/* Called once when the last reference to a borrowed array goes. */
typedef cj_release_fn rt_release_fn;

typedef struct rt_array {
    int refcount;
    rt_aval aval;
    int64_t size;  /* elements */
    void *data;    /* 64-byte aligned (a borrowed array: the element size at least); never NULL */
    size_t cap;    /* bytes reserved for data (0 when borrowed) */
    rt_mem *mem;
    /* A borrowed array views memory the caller owns (cj_array_borrow,
     * DLPack imports, cj_call_into's output buffers): nothing in cjax
     * frees it or writes it (donation refuses it, interp.c); `release`
     * (may be NULL) runs once when the last reference goes. */
    bool borrowed;
    rt_release_fn release;
    void *release_user;
} rt_array;

/* New array with uninitialised data; NULL on out of memory. */
rt_array *rt_array_new(rt_mem *m, const rt_aval *aval);
rt_array *rt_array_ref(rt_array *a);
void rt_array_unref(rt_array *a); /* NULL-safe */
/* A borrowed array over `data` (nbytes of aval readable there); only its
 * header is allocated. NULL on out of memory, with release NOT called
 * (the caller decides). */
rt_array *rt_array_borrow(rt_mem *m, const rt_aval *aval, void *data, rt_release_fn release, void *user);

/* Exported arrays (DLPack) may outlive their context: each export counts
 * itself here, and rt_mem_delete with exports outstanding frees the pool
 * and keeps the allocator until the last export is dropped, which then
 * deletes it. */
void rt_mem_export_hold(rt_mem *m);
void rt_mem_export_drop(rt_mem *m);

/* ---- configuration: every CJAX_* environment knob, parsed once ---- */
typedef struct rt_config {
    int num_threads;            /* CJAX_NUM_THREADS (0: the cores) */
    size_t pool_max_bytes;      /* CJAX_POOL_MAX_MB: pooled free buffers cap */
    bool explain_cache_misses;  /* CJAX_EXPLAIN_CACHE_MISSES=1 */
    int jit_cache_size;         /* CJAX_JIT_CACHE_SIZE: programs per jitted function (1024) */
    const char *dump;           /* CJAX_DUMP: passes after which to print the program */
    bool verify;                /* CJAX_VERIFY=1: verify the compiled form after every pass */
    const char *dump_dir;       /* CJAX_DUMP_DIR: where svg/dot dumps go (".") */
    const char *cc;             /* CJAX_CC: C compiler for the cc backend */
    const char *cflags;         /* CJAX_CFLAGS */
    const char *cache_dir;      /* CJAX_CACHE_DIR */
    int64_t cache_max_bytes;    /* CJAX_CACHE_MAX_MB: cap on the disk cache (0: none) */
    cj_backend backend;         /* CJAX_BACKEND: tiered (default), cc, interp */
    size_t scan_hoist_max_bytes; /* CJAX_SCAN_HOIST_MAX_MB: stacked values a scan's hoisting may add (64; 0: none) */
    int isa_cap;                /* CJAX_ISA: highest instruction-set level the kernels use (RT_ISA_*; 0: no cap) */
    bool verbose;               /* CJAX_VERBOSE=1: say once on stderr what the process runs on */
} rt_config;
const rt_config *rt_config_get(void);

#endif
