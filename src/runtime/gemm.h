/* gemm.h — dense matrix multiply for float32 and float64, and bf16/f16
 * operands widened to f32 (runtime layer).
 *
 * The dot_general primitive's CPU kernel and the code the compiler generates
 * call these functions for every matrix product; batching, broadcasting and
 * dtype promotion are their business, not this file's. This module owns the
 * choice of backend: with CJAX_HAVE_CBLAS defined at build time it forwards
 * to cblas_sgemm / cblas_dgemm (OpenBLAS, which brings its own threads);
 * otherwise, and for layouts a BLAS cannot express, it runs a built-in
 * cache-blocked GEMM parallelised over cjax's own pool (threads.h).
 * Matrix-vector products, outer products, rank-k updates and small
 * products never reach BLAS or the packed GEMM: they run on register
 * kernels of their own (gemm_small.c, AVX-512 / AVX2+FMA chosen at run
 * time), whose results for a row do not depend on how many rows share the
 * call, on the batch, or on the number of threads.
 *
 * Layout: all matrices are row-major; lda/ldb/ldc are the row strides, in
 * elements, of the matrices as stored (before any transpose). lda and ldb
 * may be 0 (every row the same, as broadcasting produces). C must not
 * overlap A or B. The functions cannot fail: if scratch memory cannot be
 * allocated they fall back to a slower unpacked loop. They are safe to call
 * from several threads at once and from inside a pool worker (the built-in
 * code then runs serially on that worker). */
#ifndef CJ_RUNTIME_GEMM_H
#define CJ_RUNTIME_GEMM_H
#include <stdint.h>

/* C[m,n] = op(A)[m,k] · op(B)[k,n], plus the old C when `accumulate` is
 * nonzero. op(A) is A, stored m×k, when trans_a == 0, and Aᵀ with A stored
 * k×m otherwise; likewise for B (stored k×n, or n×k when trans_b).
 * m, n or k may be 0: k == 0 sets C to zero (or leaves it when accumulating).
 * Without `accumulate` the old contents of C are never read, so C may be
 * uninitialised. */
void rt_gemm_f32(int64_t m, int64_t n, int64_t k,
                 const float *A, int64_t lda, int trans_a,
                 const float *B, int64_t ldb, int trans_b,
                 float *C, int64_t ldc, int accumulate);
void rt_gemm_f64(int64_t m, int64_t n, int64_t k,
                 const double *A, int64_t lda, int trans_a,
                 const double *B, int64_t ldb, int trans_b,
                 double *C, int64_t ldc, int accumulate);

/* `batch` products at once: product b reads A + b·sa and B + b·sb and
 * writes C + b·sc (strides in elements), each as rt_gemm_f32/f64 would.
 * Small products (a few rows each, thousands of them) are spread over the
 * pool a range of batches per thread; each product's numbers are the ones
 * a single rt_gemm call gives. */
void rt_gemm_batch_f32(int64_t batch, int64_t m, int64_t n, int64_t k,
                       const float *A, int64_t sa, int64_t lda, int trans_a,
                       const float *B, int64_t sb, int64_t ldb, int trans_b,
                       float *C, int64_t sc, int64_t ldc, int accumulate);
void rt_gemm_batch_f64(int64_t batch, int64_t m, int64_t n, int64_t k,
                       const double *A, int64_t sa, int64_t lda, int trans_a,
                       const double *B, int64_t sb, int64_t ldb, int trans_b,
                       double *C, int64_t sc, int64_t ldc, int accumulate);

/* The widening GEMMs: A and B hold bf16 (rt_gemm_bf16) or f16
 * (rt_gemm_f16) bits, C gets f32 — each element of A and B widened
 * exactly, the product and sums those rt_gemm_f32 gives for the widened
 * operands, bit for bit (the packing widens; the f32 tiles run as they
 * are). Never BLAS. Same layout rules and contract as rt_gemm_f32. */
void rt_gemm_bf16(int64_t m, int64_t n, int64_t k, const uint16_t *A, int64_t lda, int trans_a,
                  const uint16_t *B, int64_t ldb, int trans_b, float *C, int64_t ldc, int accumulate);
void rt_gemm_f16(int64_t m, int64_t n, int64_t k, const uint16_t *A, int64_t lda, int trans_a,
                 const uint16_t *B, int64_t ldb, int trans_b, float *C, int64_t ldc, int accumulate);
/* A batch of them as rt_gemm_batch_f32 (bf16 != 0: rt_gemm_bf16's). */
void rt_gemm_batch_half(int bf16, int64_t batch, int64_t m, int64_t n, int64_t k, const uint16_t *A,
                        int64_t sa, int64_t lda, int trans_a, const uint16_t *B, int64_t sb, int64_t ldb,
                        int trans_b, float *C, int64_t sc, int64_t ldc, int accumulate);

/* "openblas (cblas)" when built with CJAX_HAVE_CBLAS, else "built-in". */
const char *rt_gemm_backend(void);

/* The built-in GEMM keeps its packing buffers per thread between calls,
 * outside any context's allocator: on a thread that calls rt_gemm, as much
 * as its largest product needed (at most about 8 MiB); on each pool worker
 * at most about 0.25 MiB; and the small products one more buffer (at most
 * 1 MiB, or one strided vector's length). A user thread's are freed when it exits; this
 * frees the calling thread's now. */
void rt_gemm_release_scratch(void);

/* The instruction set the small-product kernels use in this process:
 * "AVX-512", "AVX2+FMA" or "plain C". */
const char *rt_gemm_small_isa_name(void);

/* Testing only: while bit 0 (packed-A buffers), bit 1 (packed-B buffer) or
 * bit 2 (the small products' packed vector or op(B)) of `mask` is set,
 * growing that kind of scratch buffer fails as if out of memory, so tests
 * can reach the unpacked fallback. 0 restores normal use. */
void rt_gemm_testing_fail_alloc(int mask);

/* Testing only: caps the small-product kernels' instruction set at
 * `level` (1 plain C, 2 AVX2+FMA, 3 AVX-512) so every variant can be
 * checked on one machine; 0 removes the cap. Not for use while other
 * threads multiply. */
void rt_gemm_testing_isa(int level);

#endif
