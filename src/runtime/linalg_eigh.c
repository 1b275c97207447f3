/* linalg_eigh.c — the symmetric eigendecomposition for f32 and f64
 * (runtime layer; the interface is in linalg_kernels.h, the kernel body
 * in linalg_eigh_impl.h, included once per type). The eigh primitive
 * (src/prim/linalg_eigh.c) runs it eagerly and, under jit, as a single
 * kernel; it hands in the working memory (rt_eigh_work). A batch is
 * split over the pool a whole matrix at a time; each matrix takes cyclic
 * Jacobi when small, tridiagonalisation when large (its tridiagonal by
 * QL + inverse iteration, or divide and conquer from rt_eigh_dc_min()
 * up), LAPACK's syevd when rt_linalg_use_lapack says so. */
#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gemm.h"
#include "linalg_kernels.h"
#include "threads.h"

/* Jacobi's range: measured against the tridiagonal path (one thread, f32):
 * see rt_eigh_set_jacobi_max in linalg_kernels.h. */
#define JACOBI_MAX_DEFAULT 8 /* 10 × 10 f32: Jacobi 12.5 µs, tridiagonal 7.8; 8 × 8: 5.5 and 6.6 */
static _Atomic int64_t jacobi_max = JACOBI_MAX_DEFAULT;

void rt_eigh_set_jacobi_max(int64_t n) { atomic_store(&jacobi_max, n < 0 ? JACOBI_MAX_DEFAULT : n); }
/* The tridiagonalisation's panel width (linalg_tridiag_blocked_impl.h). */
#define REDUCE_BLOCK_DEFAULT 32
static _Atomic int64_t reduce_block = REDUCE_BLOCK_DEFAULT;
void rt_eigh_set_reduce_block(int64_t nb) {
    atomic_store(&reduce_block, nb < 0 ? REDUCE_BLOCK_DEFAULT : nb > RT_REDUCE_BLOCK_MAX ? RT_REDUCE_BLOCK_MAX : nb);
}
int64_t rt_eigh_reduce_block(void) { return atomic_load(&reduce_block); }
/* The smallest n whose tridiagonal takes divide and conquer
 * (linalg_tridiag_dc_impl.h) instead of QL + inverse iteration: measured,
 * one thread, see rt_eigh_set_dc_min in linalg_kernels.h. */
#define DC_MIN_DEFAULT 64
static _Atomic int64_t dc_min = DC_MIN_DEFAULT;
void rt_eigh_set_dc_min(int64_t n) { atomic_store(&dc_min, n < 0 ? DC_MIN_DEFAULT : n); }
int64_t rt_eigh_dc_min(void) { return atomic_load(&dc_min); }
#ifdef CJAX_HAVE_LAPACK
/* Fortran LAPACK (gfortran's convention: a hidden length per string). */
void ssyevd_(const char *jobz, const char *uplo, const int *n, float *a, const int *lda, float *w, float *work,
             const int *lwork, int *iwork, const int *liwork, int *info, size_t jobz_len, size_t uplo_len);
void dsyevd_(const char *jobz, const char *uplo, const int *n, double *a, const int *lda, double *w, double *work,
             const int *lwork, int *iwork, const int *liwork, int *info, size_t jobz_len, size_t uplo_len);
#endif
/* syevd's workspace with vectors: 1 + 6n + 2n² elements and 3 + 5n ints. */
#define SYEVD_WORK(n) (1 + 6 * (n) + 2 * (n) * (n))
#define SYEVD_IWORK(n) (3 + 5 * (n))

/* LAPACK's syevd on one matrix: 1 when it did the work. Row-major's lower
 * triangle is column-major's upper one, and its column-major eigenvectors
 * read row-major are Vᵀ: transposed in place after. A failure to converge
 * (info > 0) gives NaN, as JAX. */
#define LAPACK_SYEVD(T, S, syevd)                                                                                   \
    static int lapack_syevd##S(int64_t n, const T *a, T *v, T *w, T *work) {                                     \
        if (!rt_linalg_use_lapack(n)) return 0;                                                                   \
        for (int64_t i = 0; i < n; i++)                                                                           \
            for (int64_t j = 0; j <= i; j++) v[i * n + j] = a[i * n + j];                                        \
        int nn = (int)n, lw = (int)SYEVD_WORK(n), liw = (int)SYEVD_IWORK(n), info = 0;                            \
        syevd("V", "U", &nn, v, &nn, w, work, &lw, (int *)(work + lw), &liw, &info, 1, 1);                        \
        if (info != 0) {                                                                                          \
            for (int64_t i = 0; i < n * n; i++) v[i] = (T)NAN;                                                    \
            for (int64_t i = 0; i < n; i++) w[i] = (T)NAN;                                                        \
            return 1;                                                                                             \
        }                                                                                                         \
        for (int64_t i = 0; i < n; i++)                                                                           \
            for (int64_t j = i + 1; j < n; j++) {                                                                 \
                T t = v[i * n + j];                                                                               \
                v[i * n + j] = v[j * n + i];                                                                      \
                v[j * n + i] = t;                                                                                 \
            }                                                                                                     \
        return 1;                                                                                                 \
    }
#ifdef CJAX_HAVE_LAPACK
LAPACK_SYEVD(float, f32, ssyevd_)
LAPACK_SYEVD(double, f64, dsyevd_)
#else
static int lapack_syevdf32(int64_t n, const float *a, float *v, float *w, float *work) {
    return (void)n, (void)a, (void)v, (void)w, (void)work, 0;
}
static int lapack_syevdf64(int64_t n, const double *a, double *v, double *w, double *work) {
    return (void)n, (void)a, (void)v, (void)w, (void)work, 0;
}
#endif

int64_t rt_eigh_jacobi_max(void) {
    int64_t m = atomic_load(&jacobi_max);
    return m < 2 ? 2 : m; /* n <= 2 has nothing to tridiagonalise */
}

#define T float
#define S f32
#define SQRT sqrtf
#define FABS fabsf
#define EPS FLT_EPSILON
#define GEMM rt_gemm_f32
#include "linalg_tridiag_impl.h"
#include "linalg_tridiag_dc_impl.h"
#include "linalg_eigh_impl.h"
#undef T
#undef S
#undef SQRT
#undef FABS
#undef EPS
#undef GEMM

/* What the path taken now needs (built-in: the larger of Jacobi's and the
 * tridiagonal path's). A plan sized before a path change is still safe:
 * the kernel asks again at run time and core_workspace allocates when
 * the planned block is too small. */
int64_t rt_eigh_work(int64_t n) {
    int64_t jac = n * n + n, td = TD_WORK(n) + (n >= rt_eigh_dc_min() ? DC_WORK(n) : 0), la = SYEVD_WORK(n) + SYEVD_IWORK(n), m = jac > td ? jac : td;
    return rt_linalg_use_lapack(n) && la > m ? la : m;
}

#define T double
#define S f64
#define SQRT sqrt
#define FABS fabs
#define EPS DBL_EPSILON
#define GEMM rt_gemm_f64
#include "linalg_tridiag_impl.h"
#include "linalg_tridiag_dc_impl.h"
#include "linalg_eigh_impl.h"
#undef T
#undef S
#undef SQRT
#undef FABS
#undef EPS
#undef GEMM
