/* linalg_kernels.h — dense factorisations and triangular solves for f32 and
 * f64 (runtime layer).
 *
 * The linear-algebra primitives (src/prim/linalg.c) call these for their
 * eager kernels, which both backends run as SINGLE kernels. Every routine
 * works on a batch of row-major matrices stored one after the other and
 * writes its result in place, so a caller needs no workspace beyond the
 * result buffers (the blocked Cholesky works in the result's upper
 * triangle, zeroed at the end; a 64 × 64 block inverse sits on the
 * stack), and nothing here allocates or fails.
 *
 * Two paths, tested against each other (tests/test_linalg_kernels.c):
 * cjax's own kernels — unblocked loops for small matrices, run over the
 * batch in parallel (thousands of 8×8 matrices never go one LAPACK call at
 * a time; Cholesky of n <= 16 eight matrices at a time in SIMD lanes), and
 * right-looking blocked versions whose panel solves and trailing updates
 * go through rt_gemm for large ones (LU's panel recursive, as getrf2) — and LAPACK's potrf/getrf when the build
 * found a LAPACK (CJAX_HAVE_LAPACK, CMake option CJAX_LAPACK). Which path a
 * large matrix takes is rt_linalg_set_path's business; batches of small
 * matrices always take the built-in one. */
#ifndef CJ_RUNTIME_LINALG_KERNELS_H
#define CJ_RUNTIME_LINALG_KERNELS_H
#include <stdint.h>

/* Which kernels serve a single large matrix (n >= RT_LINALG_BLOCK). AUTO:
 * LAPACK when it was found together with a tuned BLAS (CJAX_HAVE_CBLAS,
 * OpenBLAS), otherwise the built-in blocked kernels — the reference
 * LAPACK with the reference BLAS measured 5x slower than them at n=1024.
 * LAPACK when the build has none acts as BUILTIN. */
typedef enum rt_linalg_path { RT_LINALG_AUTO, RT_LINALG_BUILTIN, RT_LINALG_LAPACK } rt_linalg_path;
void rt_linalg_set_path(rt_linalg_path p); /* process-wide; for tests and benches */
/* Was the library built with LAPACK? */
int rt_linalg_have_lapack(void);
/* "lapack" or "built-in": what a single n×n factorisation would use now. */
const char *rt_linalg_backend(int64_t n);
/* Does a single n×n factorisation go to LAPACK now (the kernels' files
 * ask; the answer follows rt_linalg_set_path)? */
int rt_linalg_use_lapack(int64_t n);
/* Panel width of the built-in blocked bidiagonalisation (svd above
 * Jacobi's range; linalg_bidiag_blocked_impl.h), process-wide: 0 reduces
 * unblocked (tests compare both), negative restores the default (32), at
 * most RT_REDUCE_BLOCK_MAX (rt_svd_work's WY buffers hold the panel's X
 * and Y: no workspace of its own). */
#define RT_REDUCE_BLOCK_MAX 64
void rt_linalg_set_reduce_block(int64_t nb);
int64_t rt_linalg_reduce_block(void);
/* Matrices per chunk of a batch for rt_parallel_for: enough that one chunk
 * is about 2^15 flops (every factorisation's batch loop uses it). */
int64_t rt_linalg_grain(int64_t flops_each);

/* The block size of the blocked kernels. */
#define RT_LINALG_BLOCK 64

/* Cholesky: each of `batch` n×n matrices A (reading only its lower
 * triangle) becomes L, lower triangular with L Lᵀ = A, its strict upper
 * triangle zero. A matrix that is not numerically positive definite
 * becomes all NaN (as jax.lax.linalg.cholesky gives). */
void rt_cholesky_f32(int64_t batch, int64_t n, float *a);
void rt_cholesky_f64(int64_t batch, int64_t n, double *a);

/* Triangular solve, as lax.linalg.triangular_solve: with op(A) = A or Aᵀ
 * (transpose_a), A m×m triangular (lower or upper; only that triangle is
 * read; unit_diag: its diagonal taken as ones), solves op(A) X = B
 * (left_side, B m×k) or X op(A) = B (right side, B k×m). b holds B on
 * entry and X on return; a and b are batches of `batch` matrices each. */
typedef struct rt_trsm_opts {
    int left_side, lower, transpose_a, unit_diag;
} rt_trsm_opts;
void rt_trsm_f32(int64_t batch, int64_t m, int64_t k, const float *a, float *b, rt_trsm_opts o);
void rt_trsm_f64(int64_t batch, int64_t m, int64_t k, const double *a, double *b, rt_trsm_opts o);

/* LU with partial pivoting, as lax.linalg.lu: each m×n matrix becomes its
 * factors (L strictly below the diagonal with unit diagonal implied, U on
 * and above), pivots (min(m, n) int32 per matrix: row i was swapped with
 * row pivots[i] at step i, 0-based) and perm (m int32 per matrix: row i of
 * L U is row perm[i] of A). A zero pivot column is left as it is (U
 * singular), as LAPACK does. */
void rt_lu_f32(int64_t batch, int64_t m, int64_t n, float *a, int32_t *pivots, int32_t *perm);
void rt_lu_f64(int64_t batch, int64_t m, int64_t n, double *a, int32_t *pivots, int32_t *perm);

/* Householder QR, as lax.linalg.qr (LAPACK's geqrf/orgqr conventions):
 * each m×n matrix a (k = min(m, n)) gives q (m × k, or m × m when
 * complete) with orthonormal columns and r (k × n, or m × n when complete)
 * upper triangular, a = q r. a may be the buffer of whichever result has
 * its shape; nothing else may overlap. Built-in only (no LAPACK path yet):
 * unblocked for k < 352, blocked above (panels of 64 reflectors applied
 * by GEMM, as geqrf / orgqr), which wants work: batch · rt_qr_work(m, n)
 * elements (0 below 352: work may then be NULL). */
int64_t rt_qr_work(int64_t m, int64_t n);
/* The smallest k that takes the blocked kernels (process-wide, for tests;
 * negative restores 352; the work size follows it). */
void rt_qr_set_blocked_min(int64_t k);
void rt_qr_f32(int64_t batch, int64_t m, int64_t n, int complete, const float *a, float *q, float *r, float *work);
void rt_qr_f64(int64_t batch, int64_t m, int64_t n, int complete, const double *a, double *q, double *r,
               double *work);

/* Symmetric eigendecomposition, as lax.linalg.eigh (lower = True,
 * sort_eigenvalues = True): each n×n matrix a, reading only its lower
 * triangle, gives w (n eigenvalues, ascending) and v (n×n, column j the
 * unit eigenvector of w[j]), a = v diag(w) vᵀ. Cyclic Jacobi for n up to
 * rt_eigh_jacobi_max(); above, Householder tridiagonalisation, QL for the
 * eigenvalues, inverse iteration for the vectors and a blocked
 * back-transformation through rt_gemm (linalg_tridiag_impl.h). work:
 * batch · rt_eigh_work(n) elements of the caller's (for the path taken now:
 * ask again after rt_linalg_set_path). A matrix with a NaN
 * gives all NaN. */
int64_t rt_eigh_work(int64_t n);
/* The largest n that takes Jacobi (process-wide; tests set 2 or a large
 * value to exercise either path on the same matrices; negative restores
 * the default). */
void rt_eigh_set_jacobi_max(int64_t n);
int64_t rt_eigh_jacobi_max(void);
/* Panel width of the blocked tridiagonalisation (eigh above Jacobi's
 * range; linalg_tridiag_blocked_impl.h), process-wide, as
 * rt_linalg_set_reduce_block: 0 reduces unblocked (tests compare both),
 * negative restores the default (32), at most RT_REDUCE_BLOCK_MAX (the
 * back-transformation's WY buffers hold the panel's V and W). */
void rt_eigh_set_reduce_block(int64_t nb);
int64_t rt_eigh_reduce_block(void);
/* The smallest n whose tridiagonal eigenproblem takes divide and conquer
 * (linalg_tridiag_dc_impl.h: Cuppen's method as LAPACK's stedc) rather
 * than QL + inverse iteration (process-wide, as rt_eigh_set_jacobi_max:
 * tests set it to compare both paths on the same matrices; negative
 * restores the default; the work size follows it). */
void rt_eigh_set_dc_min(int64_t n);
int64_t rt_eigh_dc_min(void);
void rt_eigh_f32(int64_t batch, int64_t n, const float *a, float *v, float *w, float *work);
void rt_eigh_f64(int64_t batch, int64_t n, const double *a, double *v, double *w, double *work);

/* Singular value decomposition, as lax.linalg.svd: each m×n matrix a
 * (r = min(m, n)) gives s (r values, descending) and, unless u and vt are
 * NULL, u (m × r, or m × m when full) and vt (r × n, or n × n when full)
 * with orthonormal columns / rows, a = u diag(s) vt. One-sided Jacobi for
 * r up to rt_svd_jacobi_max(); above, Householder bidiagonalisation,
 * dqds for the values alone, and for the vectors implicit QR on the
 * bidiagonal (f64, and f32 matrices whose σ_min/σ_max is too small for
 * the faster Golub–Kahan tridiagonal's eigenvectors to separate; a QR
 * iteration that fails to converge gives NaN, as gesdd's info); LAPACK's
 * gesdd under rt_linalg_use_lapack. work: batch ·
 * rt_svd_work(m, n) elements of the caller's (for the path taken now, as
 * rt_eigh_work). A matrix with a NaN gives all NaN. */
int64_t rt_svd_work(int64_t m, int64_t n);
/* The same for one type (f64: 1), which the svd primitive declares and
 * rt_svd_f32/_f64 stride the batch's work by; rt_svd_work is the larger
 * of the two (any caller may size by it). */
int64_t rt_svd_work_for(int64_t m, int64_t n, int f64);
/* The largest r = min(m, n) that takes Jacobi (as rt_eigh_set_jacobi_max). */
void rt_svd_set_jacobi_max(int64_t r);
int64_t rt_svd_jacobi_max(void);
/* Testing only: how many f32 matrices left the Golub–Kahan vectors for
 * implicit QR. */
int64_t rt_svd_testing_fallbacks(void);
void rt_svd_f32(int64_t batch, int64_t m, int64_t n, int full, const float *a, float *s, float *u, float *vt,
                float *work);
void rt_svd_f64(int64_t batch, int64_t m, int64_t n, int full, const double *a, double *s, double *u, double *vt,
                double *work);

#endif
