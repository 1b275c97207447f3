/* linalg_kernels.c — Cholesky, triangular solve and LU for f32 and f64
 * (runtime layer; the interface and its contracts are in linalg_kernels.h).
 *
 * This file holds what is common to both types — the choice between
 * LAPACK and the built-in kernels, the LAPACK calls, how a batch is split
 * over the pool — and includes linalg_kernels_impl.h once per type for the
 * kernels themselves. LAPACK is column-major: a row-major matrix is its
 * transpose there, so potrf of the upper triangle gives Lᵀ's storage, which
 * read row-major is L; getrf needs the matrix itself, so a square matrix is
 * transposed in place around the call (no scratch) and any other shape
 * takes the built-in kernel. */
#include <math.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>

#include "gemm.h"
#include "linalg_kernels.h"
#include "threads.h"

static _Atomic int path_now = RT_LINALG_AUTO;

void rt_linalg_set_path(rt_linalg_path p) { atomic_store(&path_now, (int)p); }

int rt_linalg_have_lapack(void) {
#ifdef CJAX_HAVE_LAPACK
    return 1;
#else
    return 0;
#endif
}

/* Does a single n×n factorisation go to LAPACK now? */
static int use_lapack(int64_t n) {
    if (!rt_linalg_have_lapack() || n < RT_LINALG_BLOCK || n > 46340) return 0; /* int32 n*n */
    int p = atomic_load(&path_now);
    if (p == RT_LINALG_LAPACK) return 1;
#ifdef CJAX_HAVE_CBLAS
    return p == RT_LINALG_AUTO;
#else
    return 0;
#endif
}

const char *rt_linalg_backend(int64_t n) { return use_lapack(n) ? "lapack" : "built-in"; }

int rt_linalg_use_lapack(int64_t n) { return use_lapack(n); }

/* Panel width of the blocked bidiagonalisation (linalg_bidiag_blocked_impl.h). */
#define REDUCE_BLOCK_DEFAULT 32
static _Atomic int64_t reduce_block = REDUCE_BLOCK_DEFAULT;
void rt_linalg_set_reduce_block(int64_t nb) {
    atomic_store(&reduce_block, nb < 0 ? REDUCE_BLOCK_DEFAULT : nb > RT_REDUCE_BLOCK_MAX ? RT_REDUCE_BLOCK_MAX : nb);
}
int64_t rt_linalg_reduce_block(void) { return atomic_load(&reduce_block); }

int64_t rt_linalg_grain(int64_t flops_each) {
    if (flops_each < 1) flops_each = 1;
    int64_t g = ((int64_t)1 << 15) / flops_each;
    return g < 1 ? 1 : g;
}

#ifdef CJAX_HAVE_LAPACK
/* Fortran LAPACK (gfortran's convention: a hidden length per string). */
void spotrf_(const char *uplo, const int *n, float *a, const int *lda, int *info, size_t uplo_len);
void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info, size_t uplo_len);
void sgetrf_(const int *m, const int *n, float *a, const int *lda, int *ipiv, int *info);
void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
#endif

#define TRANSPOSE_SQUARE(T, a, n)                                                                                  \
    for (int64_t i_ = 0; i_ < (n); i_++)                                                                         \
        for (int64_t j_ = i_ + 1; j_ < (n); j_++) {                                                              \
            T t_ = (a)[i_ * (n) + j_];                                                                           \
            (a)[i_ * (n) + j_] = (a)[j_ * (n) + i_];                                                             \
            (a)[j_ * (n) + i_] = t_;                                                                             \
        }

/* The LAPACK forms: 1 when LAPACK did the work (*rc: 0, or -1 when not
 * positive definite), 0 when the built-in kernel should. getrf's 1-based
 * pivots land in piv (int is int32 on every LAPACK ABI cjax builds with). */
#define LAPACK_FORMS(T, S, potrf, getrf)                                                                           \
    static int lapack_potrf##S(T *a, int64_t n, int *rc) {                                                       \
        if (!use_lapack(n)) return 0;                                                                            \
        int nn = (int)n, info = 0;                                                                               \
        potrf("U", &nn, a, &nn, &info, 1);                                                                       \
        *rc = info == 0 ? 0 : -1;                                                                                \
        return 1;                                                                                                \
    }                                                                                                            \
    static int lapack_getrf##S(T *a, int64_t m, int64_t n, int32_t *piv, int32_t *perm) {                        \
        if (m != n || !use_lapack(n)) return 0;                                                                  \
        int nn = (int)n, info = 0;                                                                               \
        TRANSPOSE_SQUARE(T, a, n)                                                                                \
        getrf(&nn, &nn, a, &nn, (int *)piv, &info);                                                              \
        TRANSPOSE_SQUARE(T, a, n)                                                                                \
        for (int64_t i = 0; i < n; i++) {                                                                        \
            int32_t p = --piv[i], t = perm[i];                                                                   \
            perm[i] = perm[p];                                                                                   \
            perm[p] = t;                                                                                         \
        }                                                                                                        \
        return 1;                                                                                                \
    }
#ifdef CJAX_HAVE_LAPACK
LAPACK_FORMS(float, f32, spotrf_, sgetrf_)
LAPACK_FORMS(double, f64, dpotrf_, dgetrf_)
#else
#define NO_LAPACK(T, S)                                                                                            \
    static int lapack_potrf##S(T *a, int64_t n, int *rc) { return (void)a, (void)n, (void)rc, 0; }              \
    static int lapack_getrf##S(T *a, int64_t m, int64_t n, int32_t *piv, int32_t *perm) {                        \
        return (void)a, (void)m, (void)n, (void)piv, (void)perm, 0;                                             \
    }
NO_LAPACK(float, f32)
NO_LAPACK(double, f64)
#endif

#define T float
#define S f32
#define GEMM rt_gemm_f32
#define SQRT sqrtf
#include "linalg_kernels_impl.h"
#undef T
#undef S
#undef GEMM
#undef SQRT

#define T double
#define S f64
#define GEMM rt_gemm_f64
#define SQRT sqrt
#include "linalg_kernels_impl.h"
#undef T
#undef S
#undef GEMM
#undef SQRT
