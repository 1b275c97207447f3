/* cjax.h — the public interface of cjax: JAX's model of array programming, in C.
 *
 * A worked example (the README's):
 *
 *     #include <cjax.h>
 *
 *     // A user function: outputs from inputs, written with cj_* operations.
 *     static void f(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
 *         (void)user;
 *         cj_val x = in[0];
 *         out[0] = cj_add(cj_mul(cj_sin(x), cj_cos(x)), cj_mul(x, x));
 *         (void)ctx;
 *     }
 *
 *     int main(void) {
 *         cj_ctx *ctx = cj_ctx_new(NULL);                  // default allocator
 *         cj_val x = cj_linspace(ctx, 0.0, 1.0, 5, CJ_F32); // eager array
 *         cj_func *fn = cj_func_new(ctx, "f", f, 1, 1, NULL);
 *         cj_func *jf = cj_jit(fn, NULL);                  // traced on first call
 *         cj_val y;
 *         cj_call(jf, &x, &y);                             // traces, caches, runs
 *         cj_print_ir(jf, 1, &x, stdout);                  // shows the IR
 *         float buf[5];
 *         cj_read(y, buf, sizeof buf);                     // copy out
 *         if (cj_error(ctx)) fprintf(stderr, "%s\n", cj_error_message(ctx));
 *         cj_ctx_free(ctx);                                // frees everything
 *     }
 *
 * Model.
 * - A context (cj_ctx) owns everything: arrays, functions, caches, scopes and
 *   the sticky error. Threads: a context, and everything made in it, is used
 *   by one thread at a time (to hand one to another thread, synchronise the
 *   hand-over yourself). A second thread calling in while one is inside
 *   (making, using, reading or freeing values, calling functions, scopes)
 *   is refused: error values / CJ_ERR_ARG "the context is in use by another
 *   thread at the same time", readable with cj_error_message from either
 *   thread and sticky for the context; it is never a crash. (The check is
 *   at those entry points: creating function objects or transformations
 *   from two threads at once is not covered.) Separate contexts in separate threads run at once
 *   and share nothing mutable; what is process-wide (the worker pool, the
 *   configuration, the C compiler's builds and disk cache) is synchronised
 *   inside cjax. Unlike a JAX jitted function, a cj_func belongs to its
 *   context, so each thread jits its own; what they share is the generated
 *   code, compiled once per process however many threads ask at once, and
 *   once per machine through the disk cache (docs/API.md, Threads).
 * - A value (cj_val) is a small handle, passed by value. It names either a
 *   concrete array or a tracer (a stand-in while a function is traced).
 *   Values are immutable. Every value belongs to the innermost scope open
 *   when it was made; cj_scope_end frees a scope's values except those kept.
 *   Values of the outermost scope live until cj_ctx_free. User code never
 *   frees an intermediate.
 * - Operations (cj_add, cj_sum, ...) follow NumPy/jax.numpy conventions:
 *   broadcasting and JAX's type promotion with weak types (a C double
 *   constant made by cj_scalar is weakly typed, so x_f32 * 2.0 stays f32).
 * - Errors are sticky: a failing operation records a message naming the
 *   operation and the shapes, returns an error value, and every later
 *   operation returns an error value without work. Check cj_error(ctx) once
 *   at the end; cj_error_clear makes the context usable again.
 *
 * Where C forces a difference from JAX, the docs (docs/API.md) say so. */
#ifndef CJAX_H
#define CJAX_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CJ_MAX_RANK 8

/* ---- Status codes ----------------------------------------------------- */
typedef enum cj_status {
    CJ_OK = 0,
    CJ_ERR_SHAPE,          /* shapes do not match, broadcast or reshape */
    CJ_ERR_DTYPE,          /* a dtype the operation does not accept */
    CJ_ERR_AXIS,           /* axis out of range or repeated */
    CJ_ERR_ARG,            /* any other invalid argument */
    CJ_ERR_CONCRETIZATION, /* a traced value read as a C value */
    CJ_ERR_LEAKED,         /* a value used after its scope or trace ended */
    CJ_ERR_OOM,            /* out of memory */
    CJ_ERR_IO,             /* a file could not be read or written */
    CJ_ERR_FORMAT,         /* a file's contents are malformed */
    CJ_ERR_UNSUPPORTED,    /* valid but not implemented (says what) */
    CJ_ERR_INTERNAL        /* a bug in cjax: please report it */
} cj_status;

/* ---- Dtypes ----------------------------------------------------------- */
typedef enum cj_dtype {
    CJ_BOOL = 0,
    CJ_I32,
    CJ_I64,
    CJ_F32,
    CJ_F64,
    /* Added later, numbered after the first five (issue 17). Not every
     * operation takes them yet: docs/API.md "Dtypes" says which do; the
     * others fail with a CJ_ERR_DTYPE error naming the operation and dtype.
     * f16 and bf16 elements are their IEEE binary16 / bfloat16 bits. */
    CJ_I8,
    CJ_I16,
    CJ_U8,
    CJ_U16,
    CJ_U32,
    CJ_U64,
    CJ_F16,
    CJ_BF16,
    CJ_NUM_DTYPES
} cj_dtype;

/* Short name as JAX prints it: "bool", "i8", "i16", "i32", "i64", "u8",
 * "u16", "u32", "u64", "f16", "bf16", "f32", "f64". */
const char *cj_dtype_name(cj_dtype dt);
/* Bytes per element. */
size_t cj_dtype_size(cj_dtype dt);

/* ---- Contexts, memory, errors ----------------------------------------- */
typedef struct cj_ctx cj_ctx;

/* The one hook all of a context's memory goes through. alloc returns memory
 * aligned to `align` (a power of two, at most 64) or NULL; free receives the
 * same size. A NULL hook in cj_ctx_new means the C library's allocator. */
typedef struct cj_allocator {
    void *(*alloc)(void *user, size_t size, size_t align);
    void (*free)(void *user, void *ptr, size_t size);
    void *user;
} cj_allocator;

typedef struct cj_mem_stats {
    size_t bytes_live;      /* bytes held from the allocator now (incl. pool) */
    size_t bytes_peak;      /* the most bytes_live ever was */
    size_t bytes_in_arrays; /* array data in use (excl. pooled free buffers) */
    size_t bytes_pooled;    /* freed data buffers kept for reuse */
    uint64_t n_allocs;      /* calls made to the allocator hook */
    uint64_t n_frees;       /* calls made to the free hook */
    uint64_t n_pool_hits;   /* data buffers served from the pool */
    size_t bytes_borrowed;  /* caller memory viewed by borrowed arrays now
                               (cj_array_borrow, DLPack imports): never
                               allocated, not in the figures above */
} cj_mem_stats;

/* Creates a context; NULL when the allocator fails. The allocator struct is
 * copied. */
cj_ctx *cj_ctx_new(const cj_allocator *alloc);
/* Frees the context and everything it owns. NULL is a no-op. */
void cj_ctx_free(cj_ctx *ctx);
void cj_mem_stats_get(cj_ctx *ctx, cj_mem_stats *out);
/* Returns pooled (unused) data buffers to the allocator. */
void cj_mem_trim(cj_ctx *ctx);

/* The sticky error: CJ_OK while none is recorded.
 * Every function checks its pointer arguments: a NULL one is CJ_ERR_ARG
 * naming the function and the argument. An error with no context to go to
 * (a NULL ctx or f, an operation whose operands are all error values
 * without a context, cj_concatenate of no values) returns an error value /
 * status / NULL and is kept, for the calling thread, as the context-less
 * error: cj_error(NULL) is CJ_ERR_ARG and cj_error_message(NULL) holds the
 * first such message until cj_error_clear(NULL). An error value without a
 * context passed to an operation of a context is CJ_ERR_ARG there. */
cj_status cj_error(cj_ctx *ctx);
/* The recorded message ("" when none). Owned by the context; valid until
 * the next error or cj_error_clear. */
const char *cj_error_message(cj_ctx *ctx);
void cj_error_clear(cj_ctx *ctx);
/* Name of a status code ("CJ_ERR_SHAPE"). */
const char *cj_status_name(cj_status s);

/* ---- Values and scopes ------------------------------------------------ */
typedef struct cj_val {
    cj_ctx *ctx;   /* owning context (NULL only for a value made without one) */
    uint32_t slot; /* 0 for an error value */
    uint32_t gen;
} cj_val;

/* Scopes nest. cj_scope_end frees every value made since the matching
 * cj_scope_begin except the n_keep values in keep[], which move to the
 * enclosing scope (their handles stay valid). Returns the scope's depth. */
int cj_scope_begin(cj_ctx *ctx);
void cj_scope_end(cj_ctx *ctx, int n_keep, const cj_val *keep);
/* Frees one value now (rarely needed: scopes do this). Using it afterwards
 * is a CJ_ERR_LEAKED error, never a crash. */
void cj_val_free(cj_val v);

/* Queries (work on tracers too: shapes are known while tracing). An error
 * value has dtype CJ_F32 and rank -1. */
int cj_is_error(cj_val v);
cj_dtype cj_val_dtype(cj_val v);
int cj_val_rank(cj_val v);
int64_t cj_val_dim(cj_val v, int axis); /* negative axes count from the end */
int64_t cj_val_size(cj_val v);          /* number of elements */
int cj_val_weak(cj_val v);              /* weakly typed? */
int cj_val_is_traced(cj_val v);
/* Writes the shape into dims (CJ_MAX_RANK entries); returns the rank. */
int cj_val_shape(cj_val v, int64_t *dims);
/* "f32[3,4]" into buf (always NUL-terminated); returns buf. */
char *cj_val_type_str(cj_val v, char *buf, size_t size);

/* ---- Creating arrays -------------------------------------------------- */
/* Every shape — of a created array, of every operation's result, of a spec,
 * of a loaded .npy — passes one check: no negative size, and the product
 * of its nonzero sizes at most 2^59 (so f32[0,2^31] exists, but
 * transpose(x) @ x of it, f32[2^31,2^31], is CJ_ERR_SHAPE "too large",
 * naming the operation and the shapes, before anything is allocated). */
/* From a C buffer (copied; row-major, `dtype` elements). */
cj_val cj_array(cj_ctx *ctx, cj_dtype dtype, int rank, const int64_t *dims,
                const void *data);
/* Weakly typed scalar constants (JAX: Python scalars): float → f32, int → i32. */
cj_val cj_scalar(cj_ctx *ctx, double x);
cj_val cj_scalar_int(cj_ctx *ctx, int64_t x);
/* A strongly typed rank-0 array. */
cj_val cj_scalar_typed(cj_ctx *ctx, double x, cj_dtype dtype);
cj_val cj_zeros(cj_ctx *ctx, cj_dtype dtype, int rank, const int64_t *dims);
cj_val cj_ones(cj_ctx *ctx, cj_dtype dtype, int rank, const int64_t *dims);
cj_val cj_full(cj_ctx *ctx, double x, cj_dtype dtype, int rank,
               const int64_t *dims);
/* [start, stop) step step, like numpy.arange. */
cj_val cj_arange(cj_ctx *ctx, double start, double stop, double step,
                 cj_dtype dtype);
/* num evenly spaced points over [start, stop] (endpoint included). */
cj_val cj_linspace(cj_ctx *ctx, double start, double stop, int64_t num,
                   cj_dtype dtype);
/* n×m identity-like matrix with ones on diagonal k. */
cj_val cj_eye(cj_ctx *ctx, int64_t n, int64_t m, int64_t k, cj_dtype dtype);
/* Same shape and dtype as v. */
cj_val cj_zeros_like(cj_val v);
cj_val cj_ones_like(cj_val v);

/* ---- Reading arrays back ---------------------------------------------- */
/* Copies the array into buf (size bytes, must be >= size*dtype size) in its
 * own dtype. CJ_ERR_CONCRETIZATION on a tracer. */
cj_status cj_read(cj_val v, void *buf, size_t size);
/* Converts while copying: element type of buf is `as`. */
cj_status cj_read_as(cj_val v, cj_dtype as, void *buf, size_t size);
/* The single element of a size-1 array, converted to double / int64. */
cj_status cj_item(cj_val v, double *out);
cj_status cj_item_int(cj_val v, int64_t *out);
/* Convenience: cj_item or NaN (and the sticky error) on failure. */
double cj_item_or_nan(cj_val v);
/* Prints "f32[2,2] [[1, 2], [3, 4]]" (tracers print their type only). */
void cj_print(cj_val v, FILE *out);

/* .npy files (NumPy's format, version 1.0-3.0; C order; bool, <i4, <i8,
 * <f4, <f8; big-endian and Fortran order are read too). */
cj_status cj_save_npy(cj_val v, const char *path);
cj_val cj_load_npy(cj_ctx *ctx, const char *path);

/* ---- Zero copy in and out: borrowed arrays, DLPack -------------------- */
/* Runs once when cjax no longer needs memory the caller lent it. */
typedef void (*cj_release_fn)(void *user, void *data);

/* Wraps caller memory as a read-only array without copying (a borrowed
 * array): `data` holds the row-major elements, `size` bytes of it are
 * readable (at least the shape's bytes). cjax never writes or frees it: a
 * donation of a borrowed array is refused (the output gets a fresh
 * buffer; cj_jit_last_donation says why), every operation reads it as it
 * reads any array. `release` (may be NULL) is called exactly once with
 * (user, data): when the last reference goes (its scope ends, cj_val_free,
 * the jit cache or a captured constant lets go, cj_ctx_free), and also
 * when this call fails, before it returns, so after the call the callback
 * always owns the cleanup. Keep the memory valid and unchanged until then
 * (writing it while cjax holds it is undefined, as JAX's zero-copy
 * views). Rules: `data` aligned to the element size (4 for f32, 8 for
 * f64; 64 is not needed — the kernels load arrays unaligned), non-NULL
 * unless the shape has no elements; bool elements 0 or 1. Otherwise
 * CJ_ERR_ARG naming cj_array_borrow, the pointer and its alignment, or
 * the sizes (bool elements: the first bad one). */
cj_val cj_array_borrow(cj_ctx *ctx, cj_dtype dtype, int rank, const int64_t *dims, const void *data,
                       size_t size, cj_release_fn release, void *user);
/* Does v view caller memory (cj_array_borrow, cj_from_dlpack)? 0 for
 * tracers, error values and cjax's own arrays. */
int cj_array_is_borrowed(cj_val v);
/* A concrete array's elements in place (row-major, read-only; valid while
 * v lives). No copy: for a borrowed array, the caller's pointer. NULL
 * (and the sticky error) for a tracer or an invalid value. */
const void *cj_array_data(cj_val v);

/* DLPack (github.com/dmlc/dlpack): CPU tensors in and out without a copy,
 * for NumPy's, PyTorch's and JAX's from_dlpack / __dlpack__. The structs
 * are DLPack's (include dlpack/dlpack.h, or cjax_dlpack.h, cjax's copy of
 * the published layout, to build or read one); cjax.h only names them.
 * dtypes: bool (kDLBool, 8 bits), int 8/16/32/64, uint 8/16/32/64, float
 * 16/32/64, bfloat 16; one lane. docs/API.md "DLPack" has the details.
 *
 * cj_from_dlpack takes ownership of t in every case: the tensor's deleter
 * is called exactly once — when the array's last reference goes (zero
 * copy), right after copying (a non-compact layout), or before an error
 * returns. Zero copy when the tensor is compact row-major (strides NULL or
 * equal to the row-major ones; a size-1 axis' stride is ignored), its
 * data (+ byte_offset) is aligned to the element size and, for bool, its
 * elements are 0 or 1; anything else (other strides, negative ones too,
 * misaligned data) is copied into a fresh row-major array
 * (cj_array_is_borrowed says which happened). CJ_ERR_UNSUPPORTED for a
 * device other than kDLCPU (or kDLCUDAHost), several lanes, a dtype
 * without a cjax one (complex, float8) or a versioned tensor of a major
 * version other than 1. */
struct DLManagedTensor;
struct DLManagedTensorVersioned;
cj_val cj_from_dlpack(cj_ctx *ctx, struct DLManagedTensor *t);
cj_val cj_from_dlpack_versioned(cj_ctx *ctx, struct DLManagedTensorVersioned *t);
/* Exports a concrete array without a copy: the tensor shares the array's
 * buffer (compact row-major, strides filled in; byte_offset 0; the
 * versioned one at version 1.x with the read-only flag set, as cjax
 * arrays are immutable). The consumer calls its deleter once; until then
 * the buffer stays alive, also after its value is freed or the context is
 * freed (then the context's allocator is kept until the last deleter).
 * The deleter must not run while another thread uses the context. NULL
 * with the sticky error for a tracer, an invalid value, or out of memory. */
struct DLManagedTensor *cj_to_dlpack(cj_val v);
struct DLManagedTensorVersioned *cj_to_dlpack_versioned(cj_val v);

/* ---- .npz files -------------------------------------------------------- */
/* NumPy's numpy.savez / savez_compressed format: a zip archive of .npy
 * members named "<name>.npy". Written stored (uncompressed), or deflated
 * with CJ_NPZ_DEFLATE when cjax was built with zlib
 * (cj_npz_deflate_available; CJ_ERR_UNSUPPORTED otherwise); zip64 records
 * when a member or the archive passes 4 GiB. Read: stored and deflated
 * members, zip64, each member's CRC-32 checked. Hostile or corrupt files
 * (bad headers or sizes, members overlapping each other or the directory,
 * a size more than deflate can expand to, a CRC mismatch, names with a
 * path ('/', '\\', '..', NUL), a name twice, encryption) are CJ_ERR_FORMAT
 * naming the call, the file and the member; no block is allocated
 * beyond what the file's bytes can hold or inflate to. */
enum { CJ_NPZ_DEFLATE = 1 };
int cj_npz_deflate_available(void);
/* Writes n arrays (concrete) to path as members names[i] + ".npy"; names
 * NULL: "arr_0", "arr_1", ... as numpy.savez's positional arrays. A
 * name may not be empty, repeat, or hold '/', '\\' or "..". On failure
 * nothing is left at path. */
cj_status cj_save_npz(const char *path, int n, const char *const *names, const cj_val *vals, int flags);
/* One member of an .npz: its name without ".npy", and its array. */
#define CJ_NPZ_NAME_MAX 256
typedef struct cj_npz_entry {
    char name[CJ_NPZ_NAME_MAX];
    cj_val val;
} cj_npz_entry;
/* Loads the members of path in the archive's order into entries[0..cap)
 * (arrays of the current scope) and returns how many members the file
 * has (all are checked; only the first cap loaded: entries NULL, cap 0
 * lists nothing and returns the count). -1 with the sticky error. A
 * member not ending in ".npy" or with a name of CJ_NPZ_NAME_MAX bytes or
 * more is CJ_ERR_FORMAT. */
int cj_load_npz(cj_ctx *ctx, const char *path, cj_npz_entry *entries, int cap);
/* One member by name (without ".npy"); CJ_ERR_ARG when there is none. */
cj_val cj_load_npz_member(cj_ctx *ctx, const char *path, const char *name);

/* ---- Elementwise operations (broadcasting, type promotion) ------------ */
cj_val cj_neg(cj_val x);
cj_val cj_abs(cj_val x);
cj_val cj_sign(cj_val x);
cj_val cj_floor(cj_val x);
cj_val cj_ceil(cj_val x);
cj_val cj_round(cj_val x); /* half to even, as jnp.round */
cj_val cj_exp(cj_val x);
cj_val cj_exp2(cj_val x);
cj_val cj_log(cj_val x);
cj_val cj_log1p(cj_val x);
cj_val cj_expm1(cj_val x);
cj_val cj_sqrt(cj_val x);
cj_val cj_rsqrt(cj_val x);
cj_val cj_cbrt(cj_val x);
cj_val cj_sin(cj_val x);
cj_val cj_cos(cj_val x);
cj_val cj_tan(cj_val x);
cj_val cj_asin(cj_val x);
cj_val cj_acos(cj_val x);
cj_val cj_atan(cj_val x);
cj_val cj_sinh(cj_val x);
cj_val cj_cosh(cj_val x);
cj_val cj_tanh(cj_val x);
cj_val cj_logistic(cj_val x);
cj_val cj_erf(cj_val x);
cj_val cj_not(cj_val x); /* logical not for bool, bitwise for ints */
cj_val cj_is_finite(cj_val x);

cj_val cj_add(cj_val a, cj_val b);
cj_val cj_sub(cj_val a, cj_val b);
cj_val cj_mul(cj_val a, cj_val b);
cj_val cj_div(cj_val a, cj_val b); /* true division: i64 → f64, i32/bool → f32 (jnp) */
cj_val cj_rem(cj_val a, cj_val b); /* C fmod semantics, as lax.rem */
cj_val cj_pow(cj_val a, cj_val b);
cj_val cj_max(cj_val a, cj_val b); /* NaN-propagating, +0 > -0, as jnp.maximum */
cj_val cj_min(cj_val a, cj_val b);
cj_val cj_atan2(cj_val a, cj_val b);
cj_val cj_eq(cj_val a, cj_val b);
cj_val cj_ne(cj_val a, cj_val b);
cj_val cj_lt(cj_val a, cj_val b);
cj_val cj_le(cj_val a, cj_val b);
cj_val cj_gt(cj_val a, cj_val b);
cj_val cj_ge(cj_val a, cj_val b);
cj_val cj_and(cj_val a, cj_val b);
cj_val cj_or(cj_val a, cj_val b);
cj_val cj_xor(cj_val a, cj_val b);
/* lax's shifts of integers (operands promoted to one dtype as jnp's
 * left_shift/right_shift do): an amount < 0 or >= the width gives 0, or
 * for the arithmetic right shift the sign fill (0 or all ones). */
cj_val cj_shift_left(cj_val a, cj_val b);
cj_val cj_shift_right_logical(cj_val a, cj_val b);
cj_val cj_shift_right_arithmetic(cj_val a, cj_val b);
/* The number of set bits of each integer element, in its dtype. */
cj_val cj_population_count(cj_val x);
/* lax.bitcast_convert_type: x's bits read as `dtype`, which must have x's
 * width for now (f32 <-> i32/u32, f16 <-> i16, i8 <-> u8, ...); other
 * widths are CJ_ERR_UNSUPPORTED. Not differentiable (a zero tangent). */
cj_val cj_bitcast_convert_type(cj_val x, cj_dtype dtype);
/* where(cond, a, b): cond is bool (others are compared with 0). */
cj_val cj_where(cj_val cond, cj_val a, cj_val b);
cj_val cj_clamp(cj_val lo, cj_val x, cj_val hi);
cj_val cj_astype(cj_val x, cj_dtype dtype);

/* ---- More elementwise functions: jax.numpy and jax.scipy.special ------
 * Ints and bools promote to float where jnp's do (promote_args_inexact);
 * remainder/floor_divide keep integers. Errors as for the operations above.
 * Accuracy of the special functions: src/runtime/vmath_special.h. */
cj_val cj_lgamma(cj_val x);             /* lax.lgamma: +inf at the poles */
cj_val cj_digamma(cj_val x);            /* lax.digamma: NaN at 0 and the negative integers */
cj_val cj_polygamma(cj_val m, cj_val x); /* ψ^(m)(x); m a non-negative integer value, else NaN */
cj_val cj_erfc(cj_val x);
cj_val cj_erfinv(cj_val x);             /* lax.erf_inv: ±inf at ±1, NaN outside */
cj_val cj_asinh(cj_val x);
cj_val cj_acosh(cj_val x);
cj_val cj_atanh(cj_val x);
cj_val cj_log2(cj_val x);
cj_val cj_log10(cj_val x);
cj_val cj_logaddexp(cj_val a, cj_val b);
cj_val cj_logaddexp2(cj_val a, cj_val b);
cj_val cj_xlogy(cj_val x, cj_val y);    /* x·log(y), 0 where x == 0 */
cj_val cj_xlog1py(cj_val x, cj_val y);  /* x·log1p(y), 0 where x == 0 */
cj_val cj_hypot(cj_val a, cj_val b);
cj_val cj_isnan(cj_val x);
cj_val cj_isinf(cj_val x);
cj_val cj_isposinf(cj_val x);
cj_val cj_isneginf(cj_val x);
cj_val cj_signbit(cj_val x);            /* the sign bit: true for -0.0 */
/* NumPy's % and //: the remainder takes the divisor's sign, the quotient
 * rounds down. Integer division by zero as JAX gives it: x % 0 = 0,
 * x // 0 = -1 for x == 0 and -2 otherwise (lax.div's -1, floored). */
cj_val cj_remainder(cj_val a, cj_val b);
cj_val cj_mod(cj_val a, cj_val b);      /* = cj_remainder */
cj_val cj_floor_divide(cj_val a, cj_val b);
/* lax.integer_pow: x^y by repeated multiplication, no promotion; an
 * integer x with y < 0 is an error. */
cj_val cj_integer_pow(cj_val x, int64_t y);
cj_val cj_nextafter(cj_val a, cj_val b);
cj_val cj_copysign(cj_val a, cj_val b);
cj_val cj_heaviside(cj_val x1, cj_val x2);
cj_val cj_sinc(cj_val x);               /* sin(πx)/(πx), 1 at 0 */
cj_val cj_reciprocal(cj_val x);         /* integer_pow(x, -1) on floats */
cj_val cj_trunc(cj_val x);              /* toward zero (jnp.trunc; jnp.fix) */
cj_val cj_deg2rad(cj_val x);
cj_val cj_rad2deg(cj_val x);

/* ---- Shape operations ------------------------------------------------- */
/* Explicit broadcasting: dims[i] is the output axis of x's axis i. */
cj_val cj_broadcast_in_dim(cj_val x, int rank, const int64_t *shape,
                           const int64_t *dims);
/* NumPy-style broadcast to a shape. */
cj_val cj_broadcast_to(cj_val x, int rank, const int64_t *shape);
/* One dimension may be -1 (inferred). */
cj_val cj_reshape(cj_val x, int rank, const int64_t *shape);
/* perm NULL reverses the axes. */
cj_val cj_transpose(cj_val x, const int64_t *perm);
cj_val cj_squeeze(cj_val x, int n_axes, const int64_t *axes);
cj_val cj_expand_dims(cj_val x, int64_t axis);
/* strides NULL means 1. */
cj_val cj_slice(cj_val x, const int64_t *start, const int64_t *limit,
                const int64_t *strides);
/* Start indices are values (rank-0 ints), as in lax.dynamic_slice: a
 * negative start counts from the end (start + dim), then the start is
 * clamped so the slice fits: dynamic_slice(arange(5), -1, 2) is [3, 4]. */
cj_val cj_dynamic_slice(cj_val x, const cj_val *start, const int64_t *sizes);
cj_val cj_dynamic_update_slice(cj_val x, cj_val update, const cj_val *start);
cj_val cj_concatenate(int n, const cj_val *xs, int64_t axis);
/* Pads with pad_value (a rank-0 value): lo/hi may be negative (crop);
 * interior inserts that many values between elements. interior NULL = 0. */
cj_val cj_pad(cj_val x, cj_val pad_value, const int64_t *lo, const int64_t *hi,
              const int64_t *interior);
cj_val cj_rev(cj_val x, int n_axes, const int64_t *axes);
/* Array whose values count along `axis`. */
cj_val cj_iota(cj_ctx *ctx, cj_dtype dtype, int rank, const int64_t *shape,
               int64_t axis);

/* ---- Reductions ------------------------------------------------------- */
/* n_axes < 0 or axes NULL reduces every axis; n_axes == 0 reduces none
 * (as axis=() in NumPy). Negative axes count from the end. keepdims as in
 * NumPy. */
cj_val cj_sum(cj_val x, int n_axes, const int64_t *axes, int keepdims);
cj_val cj_prod(cj_val x, int n_axes, const int64_t *axes, int keepdims);
cj_val cj_reduce_max(cj_val x, int n_axes, const int64_t *axes, int keepdims);
cj_val cj_reduce_min(cj_val x, int n_axes, const int64_t *axes, int keepdims);
/* lax.reduce_and / reduce_or / reduce_xor (jnp.bitwise_and.reduce, ...):
 * bitwise over the axes, on bool (logical) or any integer dtype, which the
 * result keeps; an empty reduction gives the identity (all ones for and,
 * 0 for or and xor). Floats are an error (CJ_ERR_DTYPE), as in lax. Not
 * differentiable (integer results carry no tangent, as in JAX). */
cj_val cj_reduce_and(cj_val x, int n_axes, const int64_t *axes, int keepdims);
cj_val cj_reduce_or(cj_val x, int n_axes, const int64_t *axes, int keepdims);
cj_val cj_reduce_xor(cj_val x, int n_axes, const int64_t *axes, int keepdims);
cj_val cj_argmax(cj_val x, int64_t axis, int keepdims); /* i32 indices */
cj_val cj_argmin(cj_val x, int64_t axis, int keepdims);
cj_val cj_cumsum(cj_val x, int64_t axis, int reverse);
cj_val cj_cumprod(cj_val x, int64_t axis, int reverse);
cj_val cj_cummax(cj_val x, int64_t axis, int reverse);
cj_val cj_mean(cj_val x, int n_axes, const int64_t *axes, int keepdims);
cj_val cj_var(cj_val x, int n_axes, const int64_t *axes, int keepdims);

/* ---- Linear algebra ---------------------------------------------------- */
/* lax.dot_general: contracting and batch dimension lists for each side.
 * Output axes: batch, then lhs free, then rhs free. */
cj_val cj_dot_general(cj_val a, cj_val b, int n_contract,
                      const int64_t *a_contract, const int64_t *b_contract,
                      int n_batch, const int64_t *a_batch,
                      const int64_t *b_batch);
/* numpy.matmul: 1-D promotion and broadcast batch dimensions. */
cj_val cj_matmul(cj_val a, cj_val b);
/* The same with lax's preferred_element_type: the result's dtype, applied
 * after the operands' promotion — their dtype, or one at least as wide
 * (integer or bool operands: any; float operands: a float). bf16 × bf16 →
 * CJ_F32 returns the f32 sums unrounded; i8 × i8 → CJ_I32 exact products.
 * Another dtype is a CJ_ERR_DTYPE error naming dot_general. */
cj_val cj_dot_general_preferred(cj_val a, cj_val b, int n_contract,
                                const int64_t *a_contract, const int64_t *b_contract,
                                int n_batch, const int64_t *a_batch,
                                const int64_t *b_batch, cj_dtype preferred);
cj_val cj_matmul_preferred(cj_val a, cj_val b, cj_dtype preferred);

/* ---- Convolution (jax.lax.conv_general_dilated) ------------------------ */
/* Padding by name, as lax.padtype_to_pads computes it: VALID none; SAME
 * (and SAME_LOWER) pad so the output has ceil(in / stride) positions, the
 * odd element after (SAME) or before (SAME_LOWER). */
typedef enum cj_padding { CJ_PAD_VALID, CJ_PAD_SAME, CJ_PAD_SAME_LOWER } cj_padding;
/* The (lo, hi) pairs of `type` into pads (2·n entries) for n spatial
 * dimensions of sizes in, windows `window` (already dilated) and strides
 * (NULL: 1). 0, or -1 for a bad argument (no context to record it in). */
int cj_padtype_to_pads(int n, const int64_t *in, const int64_t *window, const int64_t *strides, cj_padding type,
                       int64_t *pads);
/* Options of cj_conv_general_dilated; a zeroed struct is lax's defaults
 * (NULL lists: strides 1, no padding, no dilation; NULL specs: NC..., OI...,
 * NC...; counts 0 or 1: no groups). n_spatial entries in each list, where
 * n_spatial is the operands' rank - 2.
 *   lhs_spec, rhs_spec, out_spec: dimension numbers as lax's strings, such
 *     as "NCHW", "OIHW", "NCHW" or "NHWC", "HWIO", "NHWC" (N batch, C
 *     feature, O/I output/input feature, any other letters spatial, the
 *     spatial axes paired by letter in rhs_spec's order); one letter per
 *     axis.
 *   padding: n_spatial (lo, hi) pairs (negative crops), or NULL and
 *     pad_type says which (computed from the dilated kernel, as lax does).
 *   preferred_element_type: the result's dtype as lax's; 0 (CJ_BOOL, never
 *     a convolution's) for the operands' dtype; CJ_F32 for f16/bf16
 *     operands keeps the f32 sums unrounded.
 * cj_conv_general_dilated promotes the operands to a common dtype, which
 * must be f32, f64, f16 or bf16. Errors name conv_general_dilated and the shapes. */
typedef struct cj_conv_opts {
    const int64_t *window_strides;
    const int64_t *padding;
    cj_padding pad_type;
    const int64_t *lhs_dilation, *rhs_dilation;
    const char *lhs_spec, *rhs_spec, *out_spec;
    int64_t feature_group_count, batch_group_count;
    cj_dtype preferred_element_type;
} cj_conv_opts;
cj_val cj_conv_general_dilated(cj_val lhs, cj_val rhs, const cj_conv_opts *opts);
/* lax.conv: lhs [N, C, spatial...], rhs [O, C, window...], out [N, O, ...];
 * window_strides NULL for 1. */
cj_val cj_conv(cj_val lhs, cj_val rhs, const int64_t *window_strides, cj_padding padding);

/* ---- Windowed reductions and pooling (lax.reduce_window, flax pooling) -- */
/* lax.reduce_window with lax.add, lax.max or lax.min and its identity (0,
 * -inf, +inf): for each window position, the fold of the window's
 * elements; padding and the holes of base dilation hold the identity.
 * Differentiable (max and min route a tangent or cotangent to the first
 * maximum / minimum in the window, in row-major window order, as JAX),
 * batchable and jittable. The operand must be f32 or f64. */
typedef enum cj_window_reduction { CJ_WINDOW_SUM, CJ_WINDOW_MAX, CJ_WINDOW_MIN } cj_window_reduction;
/* Options of cj_reduce_window; a zeroed struct (or NULL) is lax's defaults.
 * One entry per operand axis in every list (NULL: strides 1, no dilation);
 * padding: rank (lo, hi) pairs (negative crops), or NULL and pad_type,
 * computed as lax.padtype_to_pads over the dilated window. */
typedef struct cj_window_opts {
    const int64_t *window_strides;
    const int64_t *padding;
    cj_padding pad_type;
    const int64_t *base_dilation, *window_dilation;
} cj_window_opts;
/* window_dimensions: one size per axis of x (NULL only at rank 0). Errors
 * name reduce_window_sum / _max / _min and the operand's type. */
cj_val cj_reduce_window(cj_val x, cj_window_reduction kind, const int64_t *window_dimensions,
                        const cj_window_opts *opts);
/* Options of the pooling functions; zeroed (or NULL): strides 1, VALID.
 * strides: n_window entries; padding: n_window (lo, hi) pairs, or NULL and
 * pad_type (VALID or SAME); count_exclude_pad: avg_pool divides by the
 * real elements each window covers (flax's count_include_pad=False)
 * instead of the window size (flax's default). */
typedef struct cj_pool_opts {
    const int64_t *strides;
    const int64_t *padding;
    cj_padding pad_type;
    int count_exclude_pad;
} cj_pool_opts;
/* flax.linen.max_pool / min_pool / avg_pool: x is (batch, spatial...,
 * features) with n_window spatial axes, or (spatial..., features) without
 * a batch; window_shape and the strides cover the spatial axes only. */
cj_val cj_max_pool(cj_val x, int n_window, const int64_t *window_shape, const cj_pool_opts *opts);
cj_val cj_min_pool(cj_val x, int n_window, const int64_t *window_shape, const cj_pool_opts *opts);
cj_val cj_avg_pool(cj_val x, int n_window, const int64_t *window_shape, const cj_pool_opts *opts);

/* ---- linear algebra (jax.numpy.linalg / jax.scipy.linalg) ----------------
 * On the last two axes; leading axes are a batch and broadcast between
 * operands. Integer and bool operands promote to float (f32; i64 → f64) as
 * jnp does; the primitives underneath (cholesky, triangular_solve, lu) are
 * differentiable, batchable and jittable, and so is everything here.
 * A right-hand side b of rank 1 is a vector (the result then has its
 * shape); any other b is [..., n, k] (as JAX since 0.5: a batch of vectors
 * is b[..., None]). */
/* jnp.linalg.cholesky: lower L with L Lᵀ = (a + aᵀ)/2. A matrix that is not
 * numerically positive definite gives all NaN (as JAX: no error). */
cj_val cj_linalg_cholesky(cj_val a);
/* jnp.linalg.qr: a = q r with q's columns orthonormal and r upper
 * triangular (Householder; r's diagonal signs as LAPACK's). mode
 * "reduced" (NULL too): q [..., m, k], r [..., k, n] with k = min(m, n);
 * "complete": q [..., m, m], r [..., m, n]; "r": r alone (reduced; q may
 * be NULL and is not set). The derivative exists for m >= n, reduced (or
 * square); elsewhere cj_jvp/cj_grad refuse with CJ_ERR_UNSUPPORTED, as
 * JAX's. 0, or -1 with the error set (error values in q and r). */
int cj_linalg_qr(cj_val a, const char *mode, cj_val *q, cj_val *r);
/* jnp.linalg.eigh: *w the eigenvalues of (a + aᵀ)/2, ascending, and *v
 * its unit eigenvectors (column j for w[j]; each up to sign); a square.
 * Jacobi for n <= 8, tridiagonalisation above (or LAPACK's syevd), accurate
 * to a few ulps·n·‖a‖. The derivative is JAX's: the
 * eigenvectors' is undefined at repeated eigenvalues (infinite/NaN there,
 * as JAX's), the eigenvalues' always fine. 0, or -1 with the error set.
 * jnp.linalg.eigvalsh: w alone. */
int cj_linalg_eigh(cj_val a, cj_val *v, cj_val *w);
cj_val cj_linalg_eigvalsh(cj_val a);
/* jnp.linalg.svd: a = u diag(s) vt, s descending (k = min(m, n) values);
 * u [..., m, k] and vt [..., k, n], or [..., m, m] and [..., n, n] with
 * full_matrices. One-sided Jacobi for min(m, n) <= 8, bidiagonalisation
 * above (or LAPACK's gesdd). The derivative is JAX's: reduced only
 * (full_matrices refuses with CJ_ERR_UNSUPPORTED), u's and vt's undefined
 * at repeated or zero singular values, s's always fine. 0, or -1 with the
 * error set. jnp.linalg.svdvals: s alone. */
int cj_linalg_svd(cj_val a, int full_matrices, cj_val *u, cj_val *s, cj_val *vt);
cj_val cj_linalg_svdvals(cj_val a);
/* jnp.linalg.norm(x, ord, axis): ord NULL (the 2-norm of vectors, the
 * Frobenius norm of matrices), "fro", "nuc", "inf", "-inf" or a number
 * as text ("1", "-2", "0.5"). n_axes 0 (axes NULL): x 1-D is a vector,
 * 2-D a matrix, any other rank takes the flattened 2-norm (ord NULL
 * only); 1 axis: a vector norm along it; 2: a matrix norm over them
 * (rows, columns): fro, nuc, ±1 (column sums), ±2 (singular values),
 * ±inf (row sums). jnp.linalg.cond (p None: s_max / s_min over the last
 * two axes); jnp.linalg.pinv (rtol < 0: JAX's default 10·max(m, n)·eps;
 * singular values at or below rtol·s_max are dropped). */
cj_val cj_linalg_norm(cj_val x, const char *ord, int n_axes, const int64_t *axes);
cj_val cj_linalg_cond(cj_val x);
cj_val cj_linalg_pinv(cj_val a, double rtol);
/* jnp.linalg.lstsq: the least-squares (minimum-norm) x of a x ≈ b through
 * the reduced svd, singular values below rcond·s_max dropped (rcond < 0:
 * JAX's default, max(m, n)·eps). a [..., m, n]; b [m] (a vector, shared by
 * a batch) or [..., m, k] with a's batch. *x [..., n] or [..., n, k];
 * *resid the squared 2-norms of b - a x per column ([..., 1] for a vector
 * b, as JAX's (1,); computed always, as JAX does without numpy_resid);
 * *rank (i32, [...]) the singular values kept; *s a's singular values.
 * Differentiable through svd's jvp. 0, or -1 with the error set (error
 * values in the results). */
int cj_linalg_lstsq(cj_val a, cj_val b, double rcond, cj_val *x, cj_val *resid, cj_val *rank, cj_val *s);
/* jax.lax.linalg.lu: out[0] the factors (L strictly below the diagonal,
 * unit diagonal implied; U on and above), out[1] the pivots (i32, min(m,n):
 * row i swapped with pivots[i] at step i), out[2] the permutation (i32, m:
 * a[perm] = L U). 0, or -1 with error values in out. */
int cj_linalg_lu(cj_val a, cj_val out[3]);
/* jax.scipy.linalg.solve_triangular: a x = b (trans 0) or aᵀ x = b
 * (trans 1), reading a's lower (lower != 0) or upper triangle; its
 * diagonal taken as ones with unit_diagonal. */
cj_val cj_linalg_triangular_solve(cj_val a, cj_val b, int lower, int trans, int unit_diagonal);
/* jax.scipy.linalg.cho_solve((c, lower), b): a x = b for a = c cᵀ (lower)
 * or cᵀ c (upper), c a Cholesky factor. */
cj_val cj_linalg_cho_solve(cj_val c, cj_val b, int lower);
/* a x = b from a's LU: lu and perm as cj_linalg_lu gives (out[0], out[2];
 * unlike jax.scipy.linalg.lu_solve, the permutation, not the pivots). */
cj_val cj_linalg_lu_solve(cj_val lu, cj_val perm, cj_val b);
/* jnp.linalg.solve: a x = b by LU with partial pivoting. Its derivative is
 * custom_linear_solve's: dx = a⁻¹(db - da x), the transpose solving with
 * aᵀ; nothing differentiates through the factorisation. */
cj_val cj_linalg_solve(cj_val a, cj_val b);
/* jnp.linalg.inv (solve against the identity), jnp.linalg.det (from the
 * LU: the pivots' parity times the product of U's diagonal). */
cj_val cj_linalg_inv(cj_val a);
cj_val cj_linalg_det(cj_val a);
/* jnp.linalg.slogdet: *sign (±1, 0 for a singular matrix) and *logabsdet
 * (log|det a|, -inf when singular). 0, or -1 with error values. */
int cj_linalg_slogdet(cj_val a, cj_val *sign, cj_val *logabsdet);
/* numpy.diagonal (the diagonal `offset` of axes axis1, axis2, as the
 * result's last axis), numpy.trace (its sum), numpy.diag (1-D v: the
 * matrix with v on diagonal k; 2-D: its diagonal k), numpy.tril / triu
 * (last two axes; k as numpy's), numpy.outer (of the flattened operands),
 * numpy.cross (3-vectors along the last axis; batch axes broadcast),
 * numpy.kron, jnp.linalg.matrix_power (n < 0: of the inverse). */
cj_val cj_diagonal(cj_val x, int64_t offset, int64_t axis1, int64_t axis2);
cj_val cj_trace(cj_val x, int64_t offset, int64_t axis1, int64_t axis2);
cj_val cj_diag(cj_val v, int64_t k);
cj_val cj_tril(cj_val x, int64_t k);
cj_val cj_triu(cj_val x, int64_t k);
cj_val cj_outer(cj_val a, cj_val b);
cj_val cj_cross(cj_val a, cj_val b);
cj_val cj_kron(cj_val a, cj_val b);
cj_val cj_matrix_power(cj_val a, int64_t n);

/* ---- Indexing ---------------------------------------------------------- */
/* numpy.take(x, idx, axis): out-of-range indices are clamped, as jnp's
 * x[idx] (jnp.take's own default, mode "fill", gives NaN there instead).
 * Negative indices count from the end. Indices of any integer dtype
 * (i8 ... u64), x of any dtype; likewise below. */
cj_val cj_take(cj_val x, cj_val indices, int64_t axis);
/* numpy.take_along_axis. */
cj_val cj_take_along_axis(cj_val x, cj_val indices, int64_t axis);
/* x.at[idx].add(updates) along axis (updates shaped like take's result);
 * out-of-range indices are dropped, as in JAX. */
cj_val cj_index_add(cj_val x, int64_t axis, cj_val indices, cj_val updates);
cj_val cj_one_hot(cj_val indices, int64_t num_classes, cj_dtype dtype);

/* lax.gather / lax.scatter with dimension numbers. Indices are of any
 * integer dtype (i8 ... i64, u8 ... u64; bool and floats are an error),
 * shaped [batch..., K]: the index vector is the last axis (lax's choice),
 * or the axis XLA's index_vector_dim names when has_index_vector_dim is
 * set. Each list is a count and up to CJ_MAX_RANK axes. Errors name
 * gather_general or scatter_general and the shapes. */
typedef struct cj_axis_list {
    int n;
    int64_t v[CJ_MAX_RANK];
} cj_axis_list;
/* lax.GatherDimensionNumbers, plus the two hints lax.gather takes
 * (accepted; unique_indices lets a scatter_mul's gradient reach its
 * updates, as in JAX). */
typedef struct cj_gather_dnums {
    cj_axis_list offset_dims, collapsed_slice_dims, start_index_map;
    cj_axis_list operand_batching_dims, start_indices_batching_dims;
    int indices_are_sorted, unique_indices;
    /* XLA's index_vector_dim, read only when has_index_vector_dim is 1
     * (zeroed dnums keep lax's choice, the last axis): the axis of the
     * indices that holds each index vector, or the indices' rank for
     * scalar indices (a vector of one). The other axes are the batch axes,
     * in order; start_indices_batching_dims count the axes with it. */
    int has_index_vector_dim;
    int64_t index_vector_dim;
} cj_gather_dnums;
/* lax.ScatterDimensionNumbers, plus the same two hints. */
typedef struct cj_scatter_dnums {
    cj_axis_list update_window_dims, inserted_window_dims, scatter_dims_to_operand_dims;
    cj_axis_list operand_batching_dims, scatter_indices_batching_dims;
    int indices_are_sorted, unique_indices;
    int has_index_vector_dim; /* as cj_gather_dnums's */
    int64_t index_vector_dim;
} cj_scatter_dnums;
/* lax.GatherScatterMode; zero is FILL_OR_DROP, GatherScatterMode.from_any(None)
 * and lax.scatter's default; lax.gather(mode=None) and jnp indexing x[i]
 * bind PROMISE_IN_BOUNDS instead (JAX 0.10: they clamp).
 *   FILL_OR_DROP: a gather slice (a scatter window) that does not fit whole
 *     in the operand is filled with fill_value (dropped);
 *   CLIP: each start index is clamped so the slice / window fits;
 *   PROMISE_IN_BOUNDS: what XLA does natively: a gather clamps, a scatter
 *     drops. Negative indices are out of range (jnp's wrapping is not
 *     lax's: cj_at_* wrap them first). */
typedef enum cj_index_mode { CJ_INDEX_FILL_OR_DROP = 0, CJ_INDEX_CLIP, CJ_INDEX_PROMISE_IN_BOUNDS } cj_index_mode;
/* The scatter family: lax.scatter (set), scatter_add, scatter_mul,
 * scatter_min, scatter_max. Duplicate indices combine in the order of the
 * updates (row-major over their batch axes, then window order), so a set
 * keeps the last and every result is the same for any thread count. */
typedef enum cj_scatter_kind { CJ_SCATTER_SET = 0, CJ_SCATTER_ADD, CJ_SCATTER_MUL, CJ_SCATTER_MIN, CJ_SCATTER_MAX } cj_scatter_kind;
/* lax.gather(x, idx, dnums, slice_sizes (x's rank entries), mode,
 * fill_value): fill NULL is lax's default (NaN for floats, the most
 * negative integer, true for bool). Differentiable in x, vmap and jit as
 * any operation. */
cj_val cj_gather(cj_val x, cj_val indices, const cj_gather_dnums *dnums, const int64_t *slice_sizes, cj_index_mode mode,
                 const double *fill);
/* lax.scatter / scatter_add / scatter_mul / scatter_min / scatter_max:
 * updates are converted to x's dtype. Differentiable in x and the updates
 * (mul in the updates only with unique_indices, as JAX; min/max give tied
 * values the average tangent, as JAX). */
cj_val cj_scatter(cj_val x, cj_val indices, cj_val updates, const cj_scatter_dnums *dnums, cj_scatter_kind kind,
                  cj_index_mode mode);
/* jnp's x.at[(:,) * axis + (indices,)].set / add / multiply / min / max
 * (updates): updates broadcast to the indexed shape x.shape[:axis] +
 * indices.shape + x.shape[axis+1:] and take x's dtype; negative indices
 * count from the end, indices still out of range are dropped (jnp's
 * default mode). */
cj_val cj_at_set(cj_val x, int64_t axis, cj_val indices, cj_val updates);
cj_val cj_at_add(cj_val x, int64_t axis, cj_val indices, cj_val updates);
cj_val cj_at_mul(cj_val x, int64_t axis, cj_val indices, cj_val updates);
cj_val cj_at_min(cj_val x, int64_t axis, cj_val indices, cj_val updates);
cj_val cj_at_max(cj_val x, int64_t axis, cj_val indices, cj_val updates);

/* ---- Sorting ------------------------------------------------------------ */
/* As lax.sort / jax.numpy: stable ascending order along an axis (negative
 * counts from the end), -0.0 equal to 0.0, NaNs last; every dtype.
 * Differentiable (tangents are permuted with the values), vmap and jit as
 * any operation. Indices are i32, as cj_argmax's. */
cj_val cj_sort(cj_val x, int64_t axis);
/* lax.sort of n operands of one shape: all reordered by one permutation,
 * the lexicographic order of the first num_keys operands. Writes n
 * results to out (error values on failure) and returns CJ_OK or the
 * error. The kernel is always stable; is_stable is recorded as given. */
cj_status cj_sort_multi(int n, const cj_val *operands, int64_t axis, int num_keys,
                        int is_stable, cj_val *out);
/* jnp.argsort: the i32 indices that sort x along axis; descending gives
 * the reverse order (stable: equal values keep their original order). */
cj_val cj_argsort(cj_val x, int64_t axis, int stable, int descending);
/* lax.top_k along the last axis: the k largest values, largest first
 * (NaN above +inf, 0.0 above -0.0), ties to the lower index, and their
 * i32 indices. 0 <= k <= the last axis. CJ_OK or the error (both outputs
 * are then error values). */
cj_status cj_top_k(cj_val x, int64_t k, cj_val *values, cj_val *indices);
/* jnp.searchsorted(sorted, v, side) (side "left" or "right"; NULL is
 * "left"): i32 insertion indices of v's shape into the 1-D sorted array,
 * both promoted together; NaNs sort last, as in cj_sort. */
cj_val cj_searchsorted(cj_val sorted, cj_val v, const char *side);
/* jnp.quantile(x, q, axes, method, keepdims): q a scalar or 1-D in [0, 1]
 * (a 1-D q puts its axis first); axes as in cj_sum (n_axes < 0: all);
 * method "linear" (NULL), "lower", "higher", "midpoint" or "nearest". Any
 * NaN along the axes gives NaN. Integers and bools become f32. */
cj_val cj_quantile(cj_val x, cj_val q, int n_axes, const int64_t *axes, const char *method,
                   int keepdims);
/* jnp.median: the "midpoint" quantile at 0.5. */
cj_val cj_median(cj_val x, int n_axes, const int64_t *axes, int keepdims);

/* ---- Composites (all made of the operations above) ------------------- */
cj_val cj_relu(cj_val x); /* max(x, 0); derivative 0 at 0, as jax.nn.relu */
cj_val cj_gelu(cj_val x); /* tanh approximation, as jax.nn.gelu's default */
cj_val cj_sigmoid(cj_val x);
cj_val cj_softmax(cj_val x, int64_t axis);
cj_val cj_log_softmax(cj_val x, int64_t axis);
cj_val cj_logsumexp(cj_val x, int n_axes, const int64_t *axes, int keepdims);
cj_val cj_clip(cj_val x, double lo, double hi);
cj_val cj_square(cj_val x);

/* ---- jax.numpy shape functions (composites of the shape operations) --- */
/* "axis=None" where a function takes one: flatten first (cj_repeat). */
#define CJ_AXIS_NONE INT64_MIN
/* jnp.stack: n arrays of one shape joined along a new axis (counted in
 * the result, negative from its end); dtypes promote as cj_concatenate.
 * jnp.hstack (1-D end to end, else axis 1), vstack (atleast_2d, axis 0),
 * dstack (atleast_3d, axis 2), column_stack (rank < 2 as columns, axis 1). */
cj_val cj_stack(int n, const cj_val *xs, int64_t axis);
cj_val cj_hstack(int n, const cj_val *xs);
cj_val cj_vstack(int n, const cj_val *xs);
cj_val cj_dstack(int n, const cj_val *xs);
cj_val cj_column_stack(int n, const cj_val *xs);
/* jnp.atleast_1d/2d/3d (3d: [n] -> [1,n,1], [m,n] -> [m,n,1]). */
cj_val cj_atleast_1d(cj_val x);
cj_val cj_atleast_2d(cj_val x);
cj_val cj_atleast_3d(cj_val x);
/* jnp.tile(x, reps): reps[i] >= 0; fewer reps than x's rank tile its last
 * axes, more give x leading size-1 axes first. */
cj_val cj_tile(cj_val x, int n_reps, const int64_t *reps);
/* jnp.repeat(x, repeats, axis) with one count (axis CJ_AXIS_NONE: of the
 * flattened x). */
cj_val cj_repeat(cj_val x, int64_t repeats, int64_t axis);
/* jnp.repeat with per-element repeats (an integer scalar or 1-D value of
 * the axis's length, concrete or traced) and total_repeat_length: the
 * result's length along axis (a total beyond the sum repeats the last
 * element, a shorter one cuts, as jnp). total_repeat_length < 0: the sum
 * of the repeats, which must then be concrete (a traced one is
 * CJ_ERR_CONCRETIZATION, as JAX). */
cj_val cj_repeat_each(cj_val x, cj_val repeats, int64_t axis, int64_t total_repeat_length);
/* jnp.roll with static shifts: x rolled by shifts[k] along axes[k] (an
 * axis may repeat); axes NULL rolls the flattened x by each shift. */
cj_val cj_roll(cj_val x, int n, const int64_t *shifts, const int64_t *axes);
/* jnp.roll by a traced (or concrete) integer scalar shift along one axis. */
cj_val cj_roll_dynamic(cj_val x, cj_val shift, int64_t axis);
/* jnp.flip: reversed along the axes (n_axes < 0 or axes NULL: all). */
cj_val cj_flip(cj_val x, int n_axes, const int64_t *axes);
/* jnp.moveaxis(x, source, destination) for n axes; jnp.swapaxes. */
cj_val cj_moveaxis(cj_val x, int n, const int64_t *source, const int64_t *destination);
cj_val cj_swapaxes(cj_val x, int64_t axis1, int64_t axis2);
/* jnp.broadcast_arrays: out[i] is xs[i] broadcast to the common shape. */
cj_status cj_broadcast_arrays(int n, const cj_val *xs, cj_val *out);
/* jnp.split(x, sections, axis): `sections` equal pieces into out (an axis
 * that does not divide is CJ_ERR_SHAPE); jnp.array_split: the first
 * size % sections pieces one longer; jnp.split(x, indices, axis): n + 1
 * pieces cut at the indices, which must be non-decreasing within
 * 0..size (as JAX; NumPy's negative or decreasing indices are errors). */
cj_status cj_split(cj_val x, int64_t sections, int64_t axis, cj_val *out);
cj_status cj_array_split(cj_val x, int64_t sections, int64_t axis, cj_val *out);
cj_status cj_split_indices(cj_val x, int n, const int64_t *indices, int64_t axis, cj_val *out);
/* jnp.meshgrid(*xs, indexing, sparse): n 1-D arrays (n <= 8); indexing
 * "xy" (NULL too) or "ij". Dtypes are kept. */
cj_status cj_meshgrid(int n, const cj_val *xs, const char *indexing, int sparse, cj_val *out);
/* jnp.tri(n, m, k, dtype): ones at and below diagonal k (m < 0: m = n). */
cj_val cj_tri(cj_ctx *ctx, int64_t n, int64_t m, int64_t k, cj_dtype dtype);

/* ---- jax.numpy reductions (composites) --------------------------------- */
/* Axes as in cj_sum. jnp.var(x, ddof=ddof): Σ(x - mean)²/(N - ddof);
 * jnp.std: its square root. */
cj_val cj_var_ddof(cj_val x, int n_axes, const int64_t *axes, int64_t ddof, int keepdims);
cj_val cj_std(cj_val x, int n_axes, const int64_t *axes, int64_t ddof, int keepdims);
/* jnp.any / jnp.all: bool, of x != 0 (NaN is true). */
cj_val cj_any(cj_val x, int n_axes, const int64_t *axes, int keepdims);
cj_val cj_all(cj_val x, int n_axes, const int64_t *axes, int keepdims);
/* jnp.nansum / nanprod / nanmax / nanmin / nanmean: NaNs ignored; nanmax
 * and nanmin give NaN where every value is NaN, nanmean 0/0 = NaN there.
 * Integers and bools reduce as cj_sum, cj_prod, ... do. */
cj_val cj_nansum(cj_val x, int n_axes, const int64_t *axes, int keepdims);
cj_val cj_nanprod(cj_val x, int n_axes, const int64_t *axes, int keepdims);
cj_val cj_nanmax(cj_val x, int n_axes, const int64_t *axes, int keepdims);
cj_val cj_nanmin(cj_val x, int n_axes, const int64_t *axes, int keepdims);
cj_val cj_nanmean(cj_val x, int n_axes, const int64_t *axes, int keepdims);
/* jnp.nanvar / nanstd(x, axes, ddof): over the non-NaN values, NaN where
 * their count less ddof is <= 0. jnp.nanargmax / nanargmin: i32 indices
 * with NaNs skipped, -1 where every value is NaN. */
cj_val cj_nanvar(cj_val x, int n_axes, const int64_t *axes, int64_t ddof, int keepdims);
cj_val cj_nanstd(cj_val x, int n_axes, const int64_t *axes, int64_t ddof, int keepdims);
cj_val cj_nanargmax(cj_val x, int64_t axis, int keepdims);
cj_val cj_nanargmin(cj_val x, int64_t axis, int keepdims);
/* jnp.average(x, axes): the mean; with returned=True, *sum_of_weights
 * (NULL: not wanted) gets the count, shaped as the mean.
 * jnp.average(x, axes, weights): Σx·w/Σw, in the promoted inexact dtype;
 * weights of x's shape, or 1-D of the length of the single axis given;
 * *sum_of_weights gets Σw broadcast to the result's shape. */
cj_val cj_average(cj_val x, int n_axes, const int64_t *axes, int keepdims, cj_val *sum_of_weights);
cj_val cj_average_weighted(cj_val x, cj_val weights, int n_axes, const int64_t *axes, int keepdims,
                           cj_val *sum_of_weights);
/* jnp.ptp: max - min. jnp.count_nonzero: i32 count of x != 0. */
cj_val cj_ptp(cj_val x, int n_axes, const int64_t *axes, int keepdims);
cj_val cj_count_nonzero(cj_val x, int n_axes, const int64_t *axes, int keepdims);
/* lax.cummin(x, axis, reverse) (cj_cumsum, cj_cumprod, cj_cummax above
 * take reverse too); lax.cumlogsumexp: log Σ_{j<=i} exp x_j, computed by
 * the associative scan of a stable logaddexp. */
cj_val cj_cummin(cj_val x, int64_t axis, int reverse);
cj_val cj_cumlogsumexp(cj_val x, int64_t axis, int reverse);


/* ---- jax.nn (composites) ----------------------------------------------- */
/* Integers and bools become the default float. Derivatives at kinks are
 * JAX's: relu6's and hard_sigmoid's 0 at the ends, leaky_relu's and
 * hard_tanh's 1 at the kink, elu's alpha at 0, celu's 1, softplus's
 * sigmoid (½ at 0). docs/API.md lists each. */
cj_val cj_silu(cj_val x);  /* x·sigmoid(x) */
cj_val cj_swish(cj_val x); /* = cj_silu */
cj_val cj_softplus(cj_val x);    /* log(1 + eˣ), stable */
cj_val cj_log_sigmoid(cj_val x); /* -softplus(-x) */
cj_val cj_mish(cj_val x);        /* x·tanh(softplus(x)) */
cj_val cj_elu(cj_val x, double alpha);            /* jax default alpha 1 */
cj_val cj_celu(cj_val x, double alpha);           /* jax default alpha 1 */
cj_val cj_selu(cj_val x);
cj_val cj_leaky_relu(cj_val x, double negative_slope); /* jax default 0.01 */
cj_val cj_gelu_exact(cj_val x); /* jax.nn.gelu(approximate=False): ½x·erfc(-x/√2) */
cj_val cj_glu(cj_val x, int64_t axis); /* first half · sigmoid(second half) */
cj_val cj_relu6(cj_val x);
cj_val cj_hard_sigmoid(cj_val x); /* relu6(x + 3)/6 */
cj_val cj_hard_silu(cj_val x);    /* x·hard_sigmoid(x) (hard_swish) */
cj_val cj_hard_tanh(cj_val x);
cj_val cj_sparse_plus(cj_val x);
cj_val cj_sparse_sigmoid(cj_val x);
cj_val cj_soft_sign(cj_val x);
cj_val cj_squareplus(cj_val x, double b); /* jax default b 4 */
cj_val cj_log1mexp(cj_val x); /* log(1 - e^-x), x >= 0; derivative 1/expm1(x) */
/* jax.nn.standardize(x, axes, epsilon) (algorithm "fast"; jax default
 * axes (-1,), epsilon 1e-5). */
cj_val cj_standardize(cj_val x, int n_axes, const int64_t *axes, double epsilon);
/* The same with a given mean and/or variance (NULL: computed; they
 * broadcast against x) and algorithm "fast" (NULL too) or "stable"
 * (var = mean((x - mean)²)). */
cj_val cj_standardize_with(cj_val x, int n_axes, const int64_t *axes, const cj_val *mean,
                           const cj_val *variance, double epsilon, const char *algorithm);
/* jax.nn.one_hot(x, num_classes, dtype, axis): the class axis at axis of
 * the result (-1: last, which is cj_one_hot). */
cj_val cj_one_hot_axis(cj_val indices, int64_t num_classes, cj_dtype dtype, int64_t axis);

/* ---- Functions and jit ------------------------------------------------ */
typedef struct cj_func cj_func;

/* A function over values: reads in[0..n_in), writes out[0..n_out). It must
 * be pure in its array inputs: under jit it runs once per cache entry. */
typedef void (*cj_fn)(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user);

/* Wraps a C function. `user` is passed through (closed-over data; it is
 * part of the function's identity, not of the cache key). Owned by ctx
 * (freed with it, or earlier by cj_func_free; see there for every kind). */
cj_func *cj_func_new(cj_ctx *ctx, const char *name, cj_fn fn, int n_in,
                     int n_out, void *user);
int cj_func_n_in(const cj_func *f);
int cj_func_n_out(const cj_func *f);
const char *cj_func_name(const cj_func *f);

/* Calls any function object (plain, jitted, transformed). Inputs may be
 * concrete or traced (so functions compose under other traces).
 * Every function taking a cj_func checks it first against the registry of
 * live function objects, without reading it: one freed by cj_func_free,
 * or whose context was freed, is CJ_ERR_ARG (NULL where a function object
 * is returned), with no context to record the message in; one of another
 * context is CJ_ERR_ARG in the caller's (a construct's operands' context). */
cj_status cj_call(cj_func *f, const cj_val *in, cj_val *out);

/* Which backend runs a jitted function's programs. */
typedef enum cj_backend {
    CJ_BACKEND_DEFAULT = 0, /* CJAX_BACKEND, else CJ_BACKEND_TIERED */
    CJ_BACKEND_TIERED,      /* interpreter at once; generated C compiled in a
                               background thread, used from the call after it
                               is ready. No call waits for the C compiler. */
    CJ_BACKEND_CC,          /* the first call waits for the generated C */
    CJ_BACKEND_INTERP       /* never compile C */
} cj_backend;

typedef struct cj_jit_opts {
    int n_static;            /* static_argnums: their values are part of the */
    const int *static_argnums; /* cache key and may be read with cj_item   */
    int n_donate;            /* donate_argnums: the caller gives these inputs */
    const int *donate_argnums; /* up; an output may be written into them    */
    cj_backend backend;      /* 0: the default (see cj_backend) */
} cj_jit_opts;

/* jax.jit: the first call with new input types (shape, dtype, weak type)
 * or new static values traces `f` into IR and prepares a program; later
 * calls reuse it. The cache keeps at most CJAX_JIT_CACHE_SIZE programs
 * (default 1024; cj_jit_set_cache_size per function): a new one beyond
 * that evicts the least recently used (its program and IR are freed;
 * calling with its types again traces again, and cj_jit_last_miss says the
 * entry was evicted). Lookups take constant time. opts may be NULL. Owned
 * by f's context. */
cj_func *cj_jit(cj_func *f, const cj_jit_opts *opts);
/* Sets how many programs this jitted function keeps (>= 1; 0 restores
 * CJAX_JIT_CACHE_SIZE), evicting the least recently used ones beyond it
 * now. A setter rather than a field of cj_jit_opts, so that existing
 * positional initializers of the options stay complete. CJ_ERR_ARG (in
 * the function's context) for a negative size or a function that is not
 * jitted. */
cj_status cj_jit_set_cache_size(cj_func *jitted, int size);

typedef struct cj_jit_stats {
    uint64_t traces;   /* times the C function was traced */
    uint64_t hits;     /* calls served from the cache */
    uint64_t misses;   /* calls that had to trace */
    uint64_t entries;  /* programs in the cache now */
    uint64_t evictions; /* programs dropped to stay within cache_size */
    uint64_t into_direct; /* cj_call_into outputs the kernels wrote straight into the caller's buffer */
    uint64_t into_copied; /* cj_call_into outputs copied there (cj_call_into says when) */
} cj_jit_stats;
void cj_jit_stats_get(const cj_func *jitted, cj_jit_stats *out);
/* Why the last miss missed ("argument 1 shape f32[8] → f32[16]"), "" when
 * there was none. Also printed to stderr when CJAX_EXPLAIN_CACHE_MISSES=1. */
const char *cj_jit_last_miss(const cj_func *jitted);
/* What became of the donations of the last call: "argument 0 donated: its
 * buffer holds an output", or why one was not used ("... donated but not
 * used (no output has its dtype and shape)"). "" when none was asked for.
 * A used donation consumes the value: using it again is CJ_ERR_LEAKED, as
 * JAX deletes donated arrays. */
const char *cj_jit_last_donation(const cj_func *jitted);
/* Caller memory for one output of cj_call_into: the dtype and shape the
 * caller expects (checked against the output's), and `size` bytes at
 * `data`, aligned to the element size. */
typedef struct cj_out_buffer {
    void *data;
    size_t size;
    cj_dtype dtype;
    int rank;
    const int64_t *dims; /* rank entries (may be NULL for rank 0) */
} cj_out_buffer;
/* Calls a jitted function on concrete inputs and writes its outputs into
 * the caller's buffers out[0..n_out) instead of new arrays (no cj_val is
 * made for them). The program's final kernels write there directly: no
 * copy, no output allocation (cj_mem_stats shows none). A copy into the
 * buffer is made, and counted in cj_jit_stats.into_copied, only for an
 * output that is no kernel's result (an input or a captured constant
 * returned as it is), one returned twice (the second buffer), or a buffer
 * aligned to less than 64 bytes for an output the plan uses as scratch
 * for earlier temporaries (XLA's in-output placement; their dtypes may
 * need more than the output's element alignment). Donations are not used
 * (every output has its buffer here; cj_jit_last_donation says so) and
 * the donated arguments stay valid. A wrong dtype is
 * CJ_ERR_DTYPE, a wrong shape CJ_ERR_SHAPE, a small or misaligned buffer
 * (or NULL data) CJ_ERR_ARG, each naming cj_call_into, the function, the
 * output and both types, before anything runs (nothing is written then;
 * a failure inside the program may leave the buffers partly written).
 * Under a trace (inputs that are tracers) CJ_ERR_CONCRETIZATION. */
cj_status cj_call_into(cj_func *jitted, const cj_val *in, const cj_out_buffer *out);
/* Drops one jitted function's cache, or every cache in the context. */
void cj_jit_clear(cj_func *jitted);
void cj_clear_caches(cj_ctx *ctx);

/* What the compiler made of a jitted function for given inputs (as JAX's
 * jitted.lower(x).compile().memory_analysis() / cost_analysis()). Each
 * traces and compiles first when that signature is not cached yet, and
 * works before the first run. */
typedef struct cj_memory_analysis {
    size_t argument_bytes;       /* the inputs */
    size_t output_bytes;         /* the outputs, fresh arrays per call */
    size_t temp_bytes;           /* the arena of intermediates kept by the program
                                    (those placed in an output's buffer before
                                    the output is written, as XLA does, are
                                    not counted again) */
    size_t alias_bytes;          /* outputs written into donated inputs */
    size_t generated_code_bytes; /* the generated code's shared object, once built
                                    (0 before, and on the interpreter) */
    size_t constant_bytes;       /* arrays baked into the program */
    size_t peak_bytes;           /* all of the above at once, at most */
} cj_memory_analysis;
cj_status cj_jit_memory_analysis(cj_func *jitted, const cj_val *in, cj_memory_analysis *out);

/* Control flow counts its bodies: a scan's once per step, a while loop's
 * condition and body once (its trip count is unknown before it runs, as
 * in XLA's cost analysis), a cond the costliest branch, figure by figure. */
typedef struct cj_cost_analysis {
    double flops;           /* arithmetic operations (a dot counts 2 per MAC) */
    double transcendentals; /* exp, log, sin, ... evaluations */
    double bytes_accessed;  /* bytes read and written by the kernels */
} cj_cost_analysis;
cj_status cj_jit_cost_analysis(cj_func *jitted, const cj_val *in, cj_cost_analysis *out);

typedef struct cj_program_info {
    int n_kernels;        /* kernels run per call */
    int n_fused_kernels;  /* of which fused kernels (loop and rows kernels) */
    int n_equations;      /* equations after simplification */
    int native;           /* generated C is compiled and in use */
    int native_pending;   /* generated C is still being compiled */
    int from_disk_cache;  /* the compiled code came from the disk cache */
    double compile_ms;    /* the C compiler's wall time (0 from the cache) */
    size_t code_bytes;    /* size of the compiled shared object */
    const char *compile_error; /* why generated C is not used ("" if it is
                                  or never was asked for); owned by the program */
} cj_program_info;
cj_status cj_jit_program_info(cj_func *jitted, const cj_val *in, cj_program_info *out);

/* The compiled program as text: which equations are in which kernel, and
 * each buffer's size, offset and live range. `what` is a comma list of
 * "simplify" (the IR after simplification), "fuse", "plan", "c" (the
 * generated C source); NULL for all.
 * Release with cj_string_free. CJAX_DUMP=simplify,fuse,plan prints the
 * same to stderr as programs are compiled. */
char *cj_jit_dump(cj_func *jitted, const cj_val *in, const char *what);

/* Pictures of the compiled program for these inputs (traced and compiled
 * first when that signature is not cached), written to `path`:
 * - the memory timeline as an SVG picture: every buffer as a bar over the
 *   kernel schedule, labelled with the operation that made it, its type
 *   and size; temporaries at their arena offsets; memory in use per step
 *   with its peak marked; the memory analysis's totals in the title;
 * - the fused program as a Graphviz .dot file: kernels as clusters of
 *   their equations, buffers as edges between them (render with
 *   `dot -Tsvg`).
 * CJ_ERR_IO (naming the call and the path) when the file cannot be
 * written, CJ_ERR_OOM when memory runs out; nothing is left at `path`
 * then. CJAX_DUMP=svg,dot writes both for every program jit prepares
 * (docs/COMPILER.md, "Pictures"). */
cj_status cj_jit_memory_svg(cj_func *jitted, const cj_val *in, const char *path);
cj_status cj_jit_program_dot(cj_func *jitted, const cj_val *in, const char *path);

/* ---- vmap -------------------------------------------------------------- */
/* in_axes / out_axes entry for "this argument / output has no batch axis"
 * (JAX's None; -1 is a valid axis, counted from the end). */
#define CJ_NOT_MAPPED INT64_MIN

typedef struct cj_vmap_opts {
    const int64_t *in_axes;  /* per input: the axis mapped over, or CJ_NOT_MAPPED;
                                NULL: every input on axis 0 */
    const int64_t *out_axes; /* per output: where the batch axis goes, or
                                CJ_NOT_MAPPED for outputs that do not depend
                                on the batch; NULL: axis 0 */
    int64_t axis_size;       /* the batch size when no input is mapped ... */
    int has_axis_size;       /* ... and whether it is given */
    int64_t chunk_size;      /* > 0: run the batch in chunks of this size, so
                                intermediates stay bounded (results identical) */
} cj_vmap_opts;

/* jax.vmap: f applied to every slice of the mapped inputs along their axes,
 * computed as one batched program (no C loop over the batch). The result
 * is a function like any other: it can be jitted, vmapped again, or called
 * inside other functions. opts may be NULL (all axes 0). Owned by f's
 * context. */
cj_func *cj_vmap(cj_func *f, const cj_vmap_opts *opts);
/* jax.vmap(f, axis_name=...): cj_vmap whose batch axis is also the named
 * axis `axis_name` (1..63 characters, no ','), which the collectives
 * (cj_psum, cj_axis_index, ...; below) inside f work over. NULL is
 * cj_vmap. Not with opts->chunk_size (a collective needs the whole
 * batch). A function of its own, not a member of cj_vmap_opts, so that
 * existing positional initializers of the options stay complete. */
cj_func *cj_vmap_named(cj_func *f, const cj_vmap_opts *opts, const char *axis_name);

/* ---- Collectives over named axes -------------------------------------- */
/* jax.lax's collectives (docs/COLLECTIVES.md). Inside a function vmapped
 * with cj_vmap_opts.axis_name, they work across the batch as across the
 * members of that axis: psum sums over it, axis_index is the example's
 * position, all_gather stacks every member's value. Shapes are per member.
 * `axis_name` names one axis; cj_psum, cj_pmean, cj_pmax and cj_pmin take
 * several separated by commas ("i,j": JAX's axis_name=('i', 'j')). A name
 * no enclosing vmap binds is CJ_ERR_AXIS "unbound axis name: i" (JAX's
 * NameError). Differentiable but pmax / pmin (as in JAX); they compose
 * with jit (after vmap they are ordinary operations) and nested vmaps. */
cj_val cj_psum(cj_val x, const char *axis_name);
/* psum / size: true division (an integer x gives f32/f64, as jnp). */
cj_val cj_pmean(cj_val x, const char *axis_name);
cj_val cj_pmax(cj_val x, const char *axis_name);
cj_val cj_pmin(cj_val x, const char *axis_name);
/* Every member's x stacked along a new axis `axis` (-(rank+1)..rank), or
 * with tiled concatenated along axis (-rank..rank-1). */
cj_val cj_all_gather(cj_val x, const char *axis_name, int64_t axis, int tiled);
/* psum, then member k keeps slice k of scatter_dimension (whose size must
 * be the axis size), or with tiled chunk k of it (a multiple of it). */
cj_val cj_psum_scatter(cj_val x, const char *axis_name, int64_t scatter_dimension, int tiled);
/* Member perm[2k+1] receives member perm[2k]'s x, for k < n_pairs (pairs
 * (source, destination), each in 0..size-1, sources distinct and
 * destinations distinct); a member no pair sends to gets zeros (JAX's
 * shard_map semantics; JAX's vmap accepts only full permutations). */
cj_val cj_ppermute(cj_val x, const char *axis_name, int64_t n_pairs, const int64_t *perm);
/* x split along split_axis into size chunks, chunk k sent to member k,
 * the received chunks concatenated along concat_axis (tiled), or without
 * tiled: x's split_axis must be the axis size, it is removed and the
 * members' values stacked at concat_axis (jax.lax.all_to_all). */
cj_val cj_all_to_all(cj_val x, const char *axis_name, int64_t split_axis, int64_t concat_axis, int tiled);
/* The member's position along the axis: an i32 scalar. */
cj_val cj_axis_index(cj_ctx *ctx, const char *axis_name);

/* ---- The IR ------------------------------------------------------------ */
/* Abstract input: dtype and shape (JAX: ShapeDtypeStruct). */
typedef struct cj_spec {
    cj_dtype dtype;
    int rank;
    int64_t dims[CJ_MAX_RANK];
    int weak;
} cj_spec;
cj_spec cj_spec_of(cj_val v);
/* A rank outside 0..CJ_MAX_RANK, or dims NULL for rank > 0, gives a spec of
 * rank -1, which every function taking specs refuses (CJ_ERR_SHAPE naming
 * the spec). A spec's shape passes the same size check as arrays. */
cj_spec cj_spec_make(cj_dtype dtype, int rank, const int64_t *dims);

/* jax.make_jaxpr: traces f for these input types and returns the IR text,
 * allocated with the context's allocator; release with cj_string_free.
 * NULL on error (see cj_error). */
char *cj_make_jaxpr(cj_func *f, int n_in, const cj_spec *in);
void cj_string_free(cj_ctx *ctx, char *s);
/* Prints the IR of f traced for the types of the example values. */
cj_status cj_print_ir(cj_func *f, int n_in, const cj_val *example,
                      FILE *out);

/* ---- Random numbers ---------------------------------------------------- */
/* jax.random with JAX's default settings (threefry2x32, partitionable
 * threefry, x64 off): the same seed gives bit-identical arrays. A key is a
 * u32[2] value, JAX's uint32[2] key data (an i32[2] of the same bits is
 * taken too); keys are ordinary values, so every function below works
 * eagerly, under cj_jit, and under cj_vmap over a batch of keys (u32[B,2]
 * mapped on axis 0 gives each key's own draw). Only multivariate_normal
 * and the gamma family (below) have derivatives.
 * Shapes are (rank, shape) with fewer than 2^31 elements in one draw. A key
 * that is not u32[2] or i32[2] is CJ_ERR_DTYPE / CJ_ERR_SHAPE; so is a bad shape. */

/* jax.random.key_data(jax.random.key(seed)) / PRNGKey: u32[2] {0, low 32
 * bits of seed} (JAX with
 * x64 off reads the seed as int32, so a negative or 64-bit seed keeps only
 * its low 32 bits and the high word is 0; with x64 on JAX would put the
 * seed's high 32 bits in word 0). A concrete array. */
cj_val cj_random_key(cj_ctx *ctx, int64_t seed);
/* Every function taking a key takes u32[2] (what these make) or i32[2]
 * holding the same bits (what cjax made before it had u32); split and
 * fold_in give keys of the key's dtype. */
/* jax.random.split(key, n): u32[n,2], n new keys. */
cj_val cj_random_split(cj_val key, int64_t n);
/* jax.random.fold_in(key, data): a new key from an integer scalar (i32 or
 * i64 value, may be traced; its low 32 bits are used, as JAX's uint32). */
cj_val cj_random_fold_in(cj_val key, cj_val data);
/* jax.random.bits(key, shape) (uint32): u32. */
cj_val cj_random_bits(cj_val key, int rank, const int64_t *shape);
/* jax.random.bits(key, shape, dtype) for dtype u8, u16, u32 or u64 (as
 * JAX: 8 and 16 bits are the low bits of the 32-bit draw, 64 bits the
 * hash's two words); another dtype is CJ_ERR_DTYPE. */
cj_val cj_random_bits_typed(cj_val key, cj_dtype dtype, int rank, const int64_t *shape);
/* jax.random.uniform(key, shape, dtype, minval, maxval): values in
 * [minval, maxval) (bounds rounded to dtype; f32 or f64). As in JAX,
 * minval > maxval is not an error: the result is max(minval, ...), i.e.
 * minval everywhere. f64 matches JAX with x64 on (x64 off, JAX would give
 * f32). Bounds are C doubles (JAX also takes arrays). */
cj_val cj_random_uniform(cj_val key, cj_dtype dtype, int rank,
                         const int64_t *shape, double minval, double maxval);
/* jax.random.normal(key, shape, dtype): standard normal, JAX's method
 * sqrt(2) * erf_inv(uniform(nextafter(-1, 0), 1)) with XLA's erf_inv
 * polynomial and XLA's CPU log1p (fused multiply-adds as XLA's CPU
 * backend makes them). f32: bit for bit with JAX. f64: XLA's log1p calls
 * the C library's log, which cjax's log matches in most values; measured,
 * about 1 value in 200 differs, by at most 3 ulp. */
cj_val cj_random_normal(cj_val key, cj_dtype dtype, int rank,
                        const int64_t *shape);
/* jax.random.bernoulli(key, p, shape): bool, uniform(f32) < p. p outside
 * [0, 1] is not checked, as in JAX (p <= 0: all false, p >= 1: all true). */
cj_val cj_random_bernoulli(cj_val key, double p, int rank,
                           const int64_t *shape);
/* jax.random.randint(key, shape, minval, maxval, dtype): integers in
 * [minval, maxval) by JAX's algorithm (two draws from split(key), modulus
 * with 2^16-squared multiplier; slightly biased when the span is not a
 * power of 2, as JAX's). maxval <= minval gives minval everywhere, as in
 * JAX. Sampled in int32 as JAX with x64 off: bounds are clipped to the
 * int32 range, and CJ_I64 returns those int32 samples widened (JAX with
 * x64 off also returns int32 for int64). dtype: CJ_I32 or CJ_I64. */
cj_val cj_random_randint(cj_val key, int rank, const int64_t *shape,
                         int64_t minval, int64_t maxval, cj_dtype dtype);
/* jax.random.permutation(key, n): i32[n], a random ordering of 0..n-1 by
 * JAX's rounds of sorting by random 32-bit keys. cjax has no sort, so each
 * round ranks by comparisons: O(n^2) time and memory (n in the thousands). */
cj_val cj_random_permutation(cj_val key, int64_t n);
/* jax.random.permutation(key, x, axis): x with its slices along axis
 * shuffled (independent=False); x at least 1-D. */
cj_val cj_random_permutation_array(cj_val key, cj_val x, int64_t axis);
/* The samplers of jax.random built on uniform and normal, each by JAX's
 * own algorithm (src/api/random_dist.c): f32 results that go through
 * XLA's log/log1p are bit for bit; f64, tan (cauchy), erf
 * (truncated_normal) and the linear algebra are within the ulps
 * docs/API.md lists. dtype CJ_F32 or CJ_F64. */
cj_val cj_random_exponential(cj_val key, cj_dtype dtype, int rank, const int64_t *shape);
cj_val cj_random_laplace(cj_val key, cj_dtype dtype, int rank, const int64_t *shape);
cj_val cj_random_logistic(cj_val key, cj_dtype dtype, int rank, const int64_t *shape);
cj_val cj_random_gumbel(cj_val key, cj_dtype dtype, int rank, const int64_t *shape); /* mode "low" */
cj_val cj_random_cauchy(cj_val key, cj_dtype dtype, int rank, const int64_t *shape);
/* ±1 of dtype (f32, f64, i32, i64): 2 * bernoulli(key, 0.5) - 1. */
cj_val cj_random_rademacher(cj_val key, cj_dtype dtype, int rank, const int64_t *shape);
/* jax.random.truncated_normal(key, lower, upper, shape, dtype): values in
 * the open interval (lower, upper); the bounds are values (scalars or
 * arrays, may be traced). rank < 0 (shape NULL): the broadcast of the
 * bounds' shapes, as JAX's shape=None; else they must broadcast to shape. */
cj_val cj_random_truncated_normal(cj_val key, cj_val lower, cj_val upper, cj_dtype dtype, int rank,
                                  const int64_t *shape);
/* jax.random.categorical(key, logits, axis, shape, replace): i32 indices
 * along axis by the gumbel-max trick (top-k without replacement). rank < 0:
 * the batch shape (logits' shape without axis); else shape must end in it. */
cj_val cj_random_categorical(cj_val key, cj_val logits, int64_t axis, int rank, const int64_t *shape,
                             int replace);
/* jax.random.choice(key, n, shape, replace, p): i32 indices in [0, n); p
 * (f32/f64 [n] weights, or (cj_val){0} for none) as JAX: with replacement
 * the inverse of its running sum, without the gumbel top-k; without p,
 * randint or a permutation's head. The _array form draws slices of a along
 * axis: result a.shape[:axis] + shape + a.shape[axis+1:]. */
cj_val cj_random_choice(cj_val key, int64_t n, int rank, const int64_t *shape, int replace, cj_val p);
cj_val cj_random_choice_array(cj_val key, cj_val a, int64_t axis, int rank, const int64_t *shape,
                              int replace, cj_val p);
/* jax.random.multivariate_normal(key, mean [..., n], cov [..., n, n],
 * shape, dtype, method): mean + factor @ normal(shape + [n]); method
 * "cholesky" (NULL), "eigh" or "svd". rank < 0: the broadcast batch shape.
 * Differentiable in mean and cov. */
cj_val cj_random_multivariate_normal(cj_val key, cj_val mean, cj_val cov, cj_dtype dtype, int rank,
                                     const int64_t *shape, const char *method);
/* jax.random.orthogonal(key, n, shape, dtype): shape + [n, n] orthogonal
 * matrices, Q of the QR of a normal matrix with R's diagonal signs. */
cj_val cj_random_orthogonal(cj_val key, int64_t n, cj_dtype dtype, int rank, const int64_t *shape);
/* jax.random.gumbel(key, shape, dtype, mode): mode "low" (NULL, as
 * cj_random_gumbel), "high" (two uniforms per value, for precision in
 * the lower tail) or "highest" (f32: a 64-bit uniform folded about 1/2,
 * JAX's bit construction; other dtypes as "high", as JAX). */
cj_val cj_random_gumbel_mode(cj_val key, cj_dtype dtype, int rank, const int64_t *shape, const char *mode);
/* The samplers that loop until they accept (src/control/random_loops.c),
 * each JAX's algorithm drawing JAX's keys. Parameters are values (scalars
 * or arrays, may be traced); rank < 0 (shape NULL) is JAX's shape=None,
 * the parameters' broadcast shape; else they must broadcast to shape.
 * dtype CJ_F32 or CJ_F64. Differentiable in the gamma parameters as JAX
 * (cj_random_gamma_grad); under a trace each call keeps its small
 * custom-derivative function objects until the context ends (as every
 * traced cj_custom_jvp). Ulps against JAX: docs/API.md.
 * jax.random.gamma(key, a, shape, dtype): Marsaglia–Tsang per element,
 * a < 1 boosted to a + 1; loggamma its logarithm computed in log space
 * (accurate for tiny a). */
cj_val cj_random_gamma(cj_val key, cj_val a, cj_dtype dtype, int rank, const int64_t *shape);
cj_val cj_random_loggamma(cj_val key, cj_val a, cj_dtype dtype, int rank, const int64_t *shape);
/* lax.random_gamma_grad(a, x): d x / d a for a sample x of gamma(a),
 * the implicit reparameterisation -(dP/da) / (dP/dx) of the regularised
 * incomplete gamma function P (XLA's series / continued fraction). a and
 * x of one float dtype, broadcast together. It is the derivative
 * cj_random_gamma's (and loggamma's, beta's, dirichlet's, ball's) rule
 * uses; itself it has none. */
cj_val cj_random_gamma_grad(cj_val a, cj_val x);
/* jax.random.beta(key, a, b, shape, dtype): from two loggammas. */
cj_val cj_random_beta(cj_val key, cj_val a, cj_val b, cj_dtype dtype, int rank, const int64_t *shape);
/* jax.random.dirichlet(key, alpha [..., k], shape, dtype): softmax of k
 * loggammas; result shape + [k] (rank < 0: alpha's shape). */
cj_val cj_random_dirichlet(cj_val key, cj_val alpha, cj_dtype dtype, int rank, const int64_t *shape);
/* jax.random.poisson(key, lam, shape, dtype): counts of dtype CJ_I32 or
 * CJ_I64, drawn in f32 as JAX (Knuth for lam < 10, Hörmann's transformed
 * rejection from 10; lam == 0 gives 0). */
cj_val cj_random_poisson(cj_val key, cj_val lam, cj_dtype dtype, int rank, const int64_t *shape);
/* jax.random.generalized_normal(key, p, shape, dtype): density ∝
 * exp(-|x|^p), a sign times gamma(1/p)^(1/p). */
cj_val cj_random_generalized_normal(cj_val key, double p, cj_dtype dtype, int rank, const int64_t *shape);
/* jax.random.ball(key, d, p, shape, dtype): uniform in the unit Lp ball
 * of dimension d, result shape + [d]. */
cj_val cj_random_ball(cj_val key, int64_t d, double p, cj_dtype dtype, int rank, const int64_t *shape);

/* ---- Control flow ------------------------------------------------------ */
/* C `if` and `for` run while a function is traced (they unroll, and a
 * traced value cannot decide them). These constructs are part of the
 * program instead: their bodies are traced once into sub-programs and run
 * as real branches and loops, under jit, vmap and grad alike. Bodies may
 * read values of the enclosing function (weights, ...); they become extra
 * operands. With nothing traced the construct runs at once. Each returns
 * CJ_OK or the error (also in cj_error).
 * A loop's carries keep their types, except that a weakly typed initial
 * carry (a C constant: cj_scalar_int(ctx, 0)) that the body returns as
 * another dtype of the same shape starts as the join of the two, strongly
 * typed, as JAX promotes weak initial carries: a counter started at 0 and
 * added an f32 is an f32 carry. */

/* lax.cond: true_f(operands) when pred (a bool or integer scalar) is
 * nonzero, else false_f(operands); both must return the same types. */
cj_status cj_cond(cj_val pred, cj_func *true_f, cj_func *false_f, int n_ops,
                  const cj_val *operands, cj_val *out);
/* lax.switch: branches[index](operands), the index (an integer scalar)
 * clamped into [0, n_branches). */
cj_status cj_switch(cj_val index, int n_branches, cj_func *const *branches,
                    int n_ops, const cj_val *operands, cj_val *out);
/* lax.while_loop: carries = init; while cond_f(carries): carries =
 * body_f(carries). cond_f returns a bool scalar; body_f returns carries of
 * the same types. */
cj_status cj_while_loop(cj_func *cond_f, cj_func *body_f, int n_carry,
                        const cj_val *init, cj_val *out);
/* lax.fori_loop with bounds known when called: carries = body(i, carries)
 * for i in [lower, upper), i an i32 scalar. A scan underneath, so it is
 * not unrolled and reverse mode works. */
cj_status cj_fori_loop(int64_t lower, int64_t upper, cj_func *body, int n_carry,
                       const cj_val *init, cj_val *out);
typedef struct cj_scan_opts {
    int64_t length;  /* iterations, needed when there are no xs ... */
    int has_length;  /* ... and whether it is given */
    int reverse;     /* from the last slice to the first */
} cj_scan_opts;
/* lax.scan: for each slice x_t of the xs along their leading axis,
 * (carries, y_t) = body(carries, x_t); returns the final carries and the
 * y_t stacked along a new leading axis. body takes n_carry + n_xs inputs
 * and returns n_carry carries then any number of y slices. opts may be
 * NULL. */
cj_status cj_scan(cj_func *body, int n_carry, const cj_val *init, int n_xs,
                  const cj_val *xs, const cj_scan_opts *opts, cj_val *carry_out,
                  cj_val *ys);
/* jax.lax.associative_scan(fn, elems, reverse, axis): the inclusive scan
 * of n arrays (n <= 32; one length along axis, normalised against the
 * first) under an associative fn with 2n inputs (a[0..n), then b[0..n),
 * a the earlier slices) and n outputs, each of its a's dtype and shape.
 * JAX's parallel-prefix algorithm: fn is called O(log length) times on
 * whole slices (it must broadcast over them); reverse scans from the end.
 * Writes n results to out; CJ_OK or the error. */
cj_status cj_associative_scan(cj_func *fn, int n, const cj_val *elems, int64_t axis, int reverse, cj_val *out);

/* ---- Autodiff ---------------------------------------------------------- */
/* Derivatives as JAX computes them: a jvp rule per primitive (forward
 * mode); reverse mode linearizes (jvp + partial evaluation into a linear
 * program) and transposes that program. Every transformation below binds
 * through the current traces, so they compose with jit, vmap and each
 * other: jit(grad(f)) compiles forward and backward into one program,
 * vmap(grad(f)) gives per-example gradients, grad(grad(f)) second
 * derivatives. Integer and boolean values carry no derivative. */

/* jax.jvp: primals_out = f(primals) and tangents_out = J·tangents, with one
 * tangent per input, of the primal's exact type (a tangent given for an
 * integer input is ignored). */
cj_status cj_jvp(cj_func *f, const cj_val *primals, const cj_val *tangents,
                 cj_val *primals_out, cj_val *tangents_out);

/* jax.vjp: primals_out = f(primals); returns the pullback: a function of
 * f's output cotangents (n_out inputs, each of the output's type) returning
 * one cotangent per input of f (zeros for integer inputs). It holds the
 * residuals of the forward pass, which live in the caller's current scope:
 * call it before that scope ends, and release it with cj_func_free (as
 * any function object).
 * NULL on error. */
cj_func *cj_vjp(cj_func *f, const cj_val *primals, cj_val *primals_out);
/* jax.linearize: primals_out = f(primals); returns the linear map
 * tangents → J·tangents (same residual rules as cj_vjp). */
cj_func *cj_linearize(cj_func *f, const cj_val *primals, cj_val *primals_out);

typedef struct cj_grad_opts {
    int n_argnums;        /* argnums: which inputs to differentiate by; */
    const int *argnums;   /* n_argnums = 0: input 0; negative counts from
                             the end (-1: the last input), as in JAX */
    int has_aux;          /* outputs after the first are auxiliary data, */
                          /* returned as they are, not differentiated */
} cj_grad_opts;

/* jax.grad: for f whose (first) output is a float scalar, a function with
 * f's inputs returning d out / d input for each argnum (in argnums order),
 * then the auxiliary outputs when has_aux. Differentiating by an integer
 * input is an error (as in JAX). opts may be NULL. */
cj_func *cj_grad(cj_func *f, const cj_grad_opts *opts);
/* jax.value_and_grad: outputs the value, the auxiliary outputs (has_aux),
 * then the gradients. */
cj_func *cj_value_and_grad(cj_func *f, const cj_grad_opts *opts);
/* jax.jacfwd / jax.jacrev: the Jacobian of every output with respect to
 * every argnum, shaped output.shape + input.shape; outputs are ordered
 * output-major: (out 0, arg 0), (out 0, arg 1), ..., (out 1, arg 0), ...
 * jacfwd pushes forward the input basis (vmap of jvp), jacrev pulls back
 * the output basis (vmap of vjp). */
cj_func *cj_jacfwd(cj_func *f, const cj_grad_opts *opts);
cj_func *cj_jacrev(cj_func *f, const cj_grad_opts *opts);
/* jax.hessian = jacfwd(jacrev(f)) for a scalar-output f. */
cj_func *cj_hessian(cj_func *f, const cj_grad_opts *opts);
/* lax.stop_gradient: x, with no derivative flowing through it. */
cj_val cj_stop_gradient(cj_val x);

/* jax.checkpoint (jax.remat): f, whose intermediates are not stored for
 * the backward pass of a gradient but recomputed from its inputs when the
 * backward pass needs them, except those the policy saves. Trades compute
 * for memory; results are identical. Outside differentiation it is f. */
typedef enum cj_remat_policy {
    CJ_SAVE_NOTHING = 0,     /* checkpoint_policies.nothing_saveable (default) */
    CJ_SAVE_EVERYTHING,      /* everything_saveable (as if not checkpointed) */
    CJ_SAVE_DOTS,            /* dots_saveable: dot_general results */
    CJ_SAVE_DOTS_NO_BATCH,   /* dots_with_no_batch_dims_saveable */
    CJ_SAVE_NAMED,           /* save_only_these_names(names...) */
    CJ_SAVE_ALL_BUT_NAMED    /* save_any_names_but_these(names...): every
                                named value except these */
} cj_remat_policy;
typedef struct cj_checkpoint_opts {
    cj_remat_policy policy;
    int n_names;              /* for the named policies (at most 32) */
    const char *const *names;
} cj_checkpoint_opts;
cj_func *cj_checkpoint(cj_func *f, const cj_checkpoint_opts *opts);
/* jax.ad_checkpoint.checkpoint_name: x, named for the named policies
 * (names of at most 63 characters). */
cj_val cj_checkpoint_name(cj_val x, const char *name);
/* jax.ad_checkpoint.print_saved_residuals: what a gradient of f with
 * respect to argnums (opts as for cj_grad; NULL: input 0) keeps from the
 * forward pass for the backward pass, one line per value: type, bytes, and
 * what made it ("argument 0", "output of tanh", "named 'h'"), then the
 * total. Release with cj_string_free; NULL on error. *total_bytes (may be
 * NULL) gets the sum. */
char *cj_saved_residuals(cj_func *f, const cj_grad_opts *opts, int n_in, const cj_spec *in,
                         size_t *total_bytes);

/* jax.custom_jvp: f (one output) with a derivative written by the user,
 * e.g. a numerically safe one. jvp_rule takes f's primals then one tangent
 * per input (zeros where none flows) and returns the primal output and its
 * tangent, which must be linear in the tangents. Differentiation (grad,
 * jvp, jacobians) uses the rule; everything else computes f. */
cj_func *cj_custom_jvp(cj_func *f, cj_func *jvp_rule);
/* jax.custom_vjp: f (one output) with a user-written reverse-mode rule.
 * fwd takes f's inputs and returns the output then n_res residuals; bwd
 * takes the residuals then the output's cotangent and returns one
 * cotangent per input of f. Forward mode (jvp, jacfwd, hessian) through
 * it is an error, as in JAX. Under vmap the rule applies when the call is
 * differentiated per example (vmap(grad(f))); grad(vmap(f)) differentiates
 * f itself. */
cj_func *cj_custom_vjp(cj_func *f, cj_func *fwd, cj_func *bwd);

/* Releases a function object before its context ends: any kind
 * (cj_func_new, cj_jit, cj_vmap, cj_grad, cj_value_and_grad, cj_jacfwd,
 * cj_jacrev, cj_hessian, cj_checkpoint, cj_custom_jvp, cj_custom_vjp,
 * cj_vjp, cj_linearize). Every object is otherwise kept, with what it
 * caches, until cj_ctx_free: release the ones made per iteration.
 * What goes: the object and what it made for itself — jit's programs and
 * IR, grad's and the Jacobians' linearizations, the Jacobians' internal
 * vmapped pullbacks/pushforwards (and the hessian's inner jacrev), a
 * vjp's or linearize's linear program (its residuals are values and live
 * in the scope they were made in). What stays: generated code's shared
 * objects loaded for another program (dlopen counts them) and the disk
 * cache; arrays the caller holds.
 * Wrappers keep what they wrap alive: freeing f while jit(f), grad(f),
 * ... lives only drops the caller's reference, and f is freed with the
 * last wrapper that holds it, so free in any order. A custom_jvp /
 * custom_vjp function, its f and its rules, once traced (under jit, grad,
 * vmap), stay until the context ends: the programs that traced them call
 * them. After cj_func_free the pointer must not be used again by the
 * caller (a second cj_func_free of an object a wrapper still holds is a
 * no-op). NULL is a no-op. */
void cj_func_free(cj_func *f);

/* ---- Export: a transformed function as dependency-free C ------------- */
/* Fused multiply-adds in the exported vector math (CJ_EXPORT_FMA_MATCH:
 * as the compilation of the library's vector math this CPU runs, so the
 * exported code, built with FMA enabled, gives the jit's bits). */
enum { CJ_EXPORT_FMA_MATCH = 0, CJ_EXPORT_FMA_ON = 1, CJ_EXPORT_FMA_OFF = 2 };
/* Which vector-math kernels compute transcendentals (exp, log, tanh, sin,
 * atan2, pow, ...; arithmetic always stays in the array's dtype):
 * CJ_EXPORT_MATH_NATIVE each dtype's own (the jit's bits); _DOUBLE f32
 * operands through the f64 kernels, the result rounded to f32 (closer to
 * the true value; slower; equal to the jit's f64 kernel on the operand
 * widened, then rounded); _FLOAT f64 operands through the f32 kernels
 * (for single-precision FPUs; f32's accuracy). docs/EXPORT.md. */
enum { CJ_EXPORT_MATH_NATIVE = 0, CJ_EXPORT_MATH_DOUBLE = 1, CJ_EXPORT_MATH_FLOAT = 2 };

typedef struct cj_export_opts {
    const char *dir;       /* where name.c and name.h go (NULL: the current directory) */
    int weights_as_inputs; /* constants of more than one element the trace
                              captured (weights) become inputs w0, w1, ...
                              after the function's, instead of static const data */
    int libm;              /* the code may call libm: float rem (fmod), pow's
                              special lanes, sin/cos/tan beyond 2^24 (f32) or
                              2^20 (f64); without it pow and float rem are
                              refused and trig past those bounds uses its widest
                              kernel */
    int fma;               /* CJ_EXPORT_FMA_* */
    int math;              /* CJ_EXPORT_MATH_* */
} cj_export_opts;

typedef struct cj_export_info {
    size_t work_bytes;     /* the caller's workspace, = name_work_bytes() */
    size_t work_align;     /* its alignment, = name_work_align() */
    size_t temp_bytes;     /* of which the plan's temporaries (cj_jit_memory_analysis's
                              temp_bytes for the same function and inputs) */
    size_t scratch_bytes;  /* and what the jit takes outside its arena: control
                              flow's bodies and carries, a matrix product's
                              block, long row arrays (usually 0) */
    size_t source_bytes, header_bytes; /* the files written */
    size_t constant_bytes; /* captured constants (static const data or inputs) */
    int n_kernels;         /* kernels the entry point runs */
    int n_weights;         /* constants passed as inputs */
    int uses_libm;         /* the source includes <math.h> and calls libm */
    int fma;               /* the vector math uses fused multiply-adds */
} cj_export_info;

/* Traces f for the input specs, compiles it as cj_jit does (the same
 * kernels, buffer plan and memory analysis) and writes <dir>/<name>.c and
 * <name>.h: C99 for gcc or clang with no cjax header or library, no
 * allocation and no global mutable state; only memcpy/memset (and libm
 * when opts->libm allows it; the square root's errno path calls libm
 * unless built with -fno-math-errno). The header declares
 *   int name(const T *in0, ..., const T *w0, ..., T *out0, ..., void *work);
 * with NAME_WORK_BYTES / name_work_bytes(), NAME_WORK_ALIGN /
 * name_work_align(), and each input's and output's dtype, rank, dims and
 * size as constants, described in a comment block. f may be any function
 * object: jit, vmap, grad, value_and_grad, checkpoint and their
 * compositions. Loop, rows (softmax, layer norm, reductions),
 * data-movement and elementwise kernels are written as the jit's
 * generated C, vector math from the library's own kernels (bit-identical
 * results when built with the same FMA setting), and dot_general (f32,
 * f64) as portable loops (equal to the jit's GEMM up to rounding).
 * Control flow (cond, switch, while_loop, fori_loop, scan, nested) stays
 * loops and branches, each body written once. Not exported yet, refused
 * with CJ_ERR_ARG naming the kernel and the primitive before anything is
 * written: random bits, sort, gathers/scatters, linear algebra,
 * convolution, rows longer than 65536. CJ_ERR_IO when a file cannot be written (no partial
 * file is left). info (may be NULL) receives the sizes. docs/EXPORT.md. */
cj_status cj_export_c(cj_func *f, int n_in, const cj_spec *in, const char *name, const cj_export_opts *opts,
                      cj_export_info *info);

/* ---- Importing StableHLO (docs/IMPORT.md) ------------------------------- */
/* Options of cj_import_stablehlo; NULL or zeroed: entry "main". */
typedef struct cj_import_opts {
    const char *entry; /* the func.func to import (NULL: "main") */
    int check_arity;   /* nonzero: the entry must take n_in arguments and */
    int n_in, n_out;   /* return n_out results (CJ_ERR_ARG otherwise) */
} cj_import_opts;
/* A JAX program exported as StableHLO text (jax.jit(f).lower(...) printed
 * with compiler_ir("stablehlo").operation.get_asm(print_generic_op_form=
 * True); the pretty as_text() form for the ops docs/IMPORT.md lists) as an
 * ordinary function object: its entry function's arguments are its inputs,
 * its results its outputs. Calling it binds a cjax operation per StableHLO
 * op, so it runs eagerly, under cj_jit as one program, and under grad and
 * vmap. The text is parsed and checked now (len bytes, no NUL needed);
 * a syntax error, an unknown element type, an op in an unread form is
 * CJ_ERR_ARG "cj_import_stablehlo: line L, column C: ...". An op cjax does
 * not support is the same error, naming the op, its line and column, when
 * the function is first called or traced. Owned by ctx (cj_func_free). */
cj_func *cj_import_stablehlo(cj_ctx *ctx, const char *text, size_t len, const cj_import_opts *opts);
/* The same from a file (CJ_ERR_IO when it cannot be read). */
cj_func *cj_import_stablehlo_file(cj_ctx *ctx, const char *path, const cj_import_opts *opts);

#ifdef __cplusplus
}
#endif
#endif
