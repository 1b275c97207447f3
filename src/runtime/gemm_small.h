/* gemm_small.h — the small-product kernels behind rt_gemm (runtime layer,
 * internal to src/runtime/gemm.c and gemm_small.c).
 *
 * Matrix · vector, vector · matrix, outer products, rank-k updates and
 * small matrix products run here instead of through the packed GEMM, whose
 * packing would cost as much as the arithmetic. The kernels use AVX-512 or
 * AVX2+FMA when the CPU has them (chosen at run time, so a build for any
 * x86-64 level runs them) and plain C otherwise.
 *
 * Which path a product takes depends on (m, n, k) and the transposes only
 * as gemm_small_takes says; within a path every element is computed by a
 * fixed sequence of operations that depends only on its depth k, so the
 * rows of a product come out bit for bit the same whether they are
 * computed in one call, in blocks of rows, in a batch, or on any number
 * of threads. */
#ifndef CJ_RUNTIME_GEMM_SMALL_H
#define CJ_RUNTIME_GEMM_SMALL_H
#include <stddef.h>
#include <stdint.h>

/* Products of depth at most this go to the direct kernel whatever m and n
 * (an outer product is k = 1), and so do products of at most
 * GEMM_DIRECT_MAX_WORK multiply-adds; with AVX-512 and the built-in GEMM,
 * so do float32 products of depth up to 512 and fewer than 128 columns
 * whose op(B) has contiguous rows (gemm_small.c says why). Matrix-vector shapes (m == 1 or n == 1) always
 * come here. No rule looks at m except the one-row case and the work
 * bound, which a block of a fused dot's rows (at least 2^18 multiply-adds,
 * src/compiler/epilogue.c) never falls under: so a block takes the path
 * its whole product takes. */
#define GEMM_DIRECT_MAX_K 16
#define GEMM_DIRECT_MAX_WORK ((int64_t)1 << 15)

/* Whether gemm_small_f32 (f32 != 0) or gemm_small_f64 takes an m×n×k
 * product (all > 0; tb as in rt_gemm). */
int gemm_small_takes(int64_t m, int64_t n, int64_t k, int tb, int f32);

/* The product as rt_gemm_f32/f64 define it (gemm.h), for shapes that
 * gemm_small_takes accepts. Returns 0, having written nothing, when a
 * scratch buffer it needs cannot be allocated. */
int gemm_small_f32(int64_t m, int64_t n, int64_t k, const float *A, int64_t lda, int ta,
                   const float *B, int64_t ldb, int tb, float *C, int64_t ldc, int acc);
int gemm_small_f64(int64_t m, int64_t n, int64_t k, const double *A, int64_t lda, int ta,
                   const double *B, int64_t ldb, int tb, double *C, int64_t ldc, int acc);

/* `batch` products of one shape, product b at A + b·sa, B + b·sb,
 * C + b·sc (gemm.h's rt_gemm_batch), with the kernel chosen once. Returns
 * how many were done: all, or fewer when scratch memory ran out (the
 * caller does the rest). */
int64_t gemm_small_batch_f32(int64_t batch, int64_t m, int64_t n, int64_t k, const float *A, int64_t sa,
                             int64_t lda, int ta, const float *B, int64_t sb, int64_t ldb, int tb,
                             float *C, int64_t sc, int64_t ldc, int acc);
int64_t gemm_small_batch_f64(int64_t batch, int64_t m, int64_t n, int64_t k, const double *A,
                             int64_t sa, int64_t lda, int ta, const double *B, int64_t sb, int64_t ldb,
                             int tb, double *C, int64_t sc, int64_t ldc, int acc);

/* gemm.c's per-thread scratch, kind GEMM_SCRATCH_SMALL (a packed vector
 * or a packed op(B)): 64-byte aligned, kept between calls, NULL when out
 * of memory. */
#define GEMM_SCRATCH_SMALL 2
void *gemm_scratch(int which, size_t bytes);

/* The instruction set this process's kernels use (capped by
 * rt_gemm_testing_isa): the packed GEMM's float tile follows it too. */
enum { GEMM_ISA_GENERIC = 1, GEMM_ISA_AVX2 = 2, GEMM_ISA_AVX512 = 3 };
int gemm_small_isa(void);

#endif
