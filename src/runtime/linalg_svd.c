/* linalg_svd.c — the singular value decomposition for f32 and f64
 * (runtime layer; the interface is in linalg_kernels.h, the kernel body in
 * linalg_svd_impl.h, included once per type). The svd primitive
 * (src/prim/linalg_svd.c) runs it eagerly and, under jit, as a single
 * kernel, handing in the working memory (rt_svd_work). Each matrix takes
 * one-sided Jacobi when small (r <= rt_svd_jacobi_max(): batches of small
 * matrices, where it is the fastest) and when it holds a NaN,
 * bidiagonalisation when larger (linalg_bidiag_impl.h: dqds for values,
 * implicit QR in linalg_svd_qr_impl.h or, for f32, the Golub–Kahan
 * tridiagonal for vectors), LAPACK's gesdd when rt_linalg_use_lapack says
 * so. */
#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gemm.h"
#include "linalg_kernels.h"
#include "threads.h"

#define JACOBI_MAX_DEFAULT 8
#define TD_STEPS_2_3_ONLY
static _Atomic int64_t jacobi_max = JACOBI_MAX_DEFAULT;

void rt_svd_set_jacobi_max(int64_t r) { atomic_store(&jacobi_max, r < 0 ? JACOBI_MAX_DEFAULT : r); }
static _Atomic int64_t fallbacks;
int64_t rt_svd_testing_fallbacks(void) { return atomic_load(&fallbacks); }
static void count_fallback(void) { atomic_fetch_add(&fallbacks, 1); }

int64_t rt_svd_jacobi_max(void) {
    int64_t m = atomic_load(&jacobi_max);
    return m < 2 ? 2 : m; /* the bidiagonal path wants r >= 3 */
}

/* gesdd's workspace: LAPACK's documented minimum for jobz = S or A
 * (4r² + 6r + L) plus room for its blocked code (64 L), and 8r ints. */
#define GESDD_WORK(m, n) (4 * RMIN(m, n) * RMIN(m, n) + 6 * RMIN(m, n) + RMAX(m, n) + 64 * RMAX(m, n))
#define GESDD_IWORK(m, n) (8 * RMIN(m, n))
#define RMIN(a, b) ((a) < (b) ? (a) : (b))
#define RMAX(a, b) ((a) > (b) ? (a) : (b))

#ifdef CJAX_HAVE_LAPACK
void sgesdd_(const char *jobz, const int *m, const int *n, float *a, const int *lda, float *s, float *u,
             const int *ldu, float *vt, const int *ldvt, float *work, const int *lwork, int *iwork, int *info,
             size_t jobz_len);
void dgesdd_(const char *jobz, const int *m, const int *n, double *a, const int *lda, double *s, double *u,
             const int *ldu, double *vt, const int *ldvt, double *work, const int *lwork, int *iwork, int *info,
             size_t jobz_len);
/* LAPACK's gesdd on one matrix: 1 when it did the work. Row-major a is
 * column-major aᵀ (n × m) = V Σ Uᵀ, so gesdd's U (n × k, column-major)
 * read row-major is Vᵀ, our vt, and its Vᵀ (k × m) read row-major is our
 * u: no transposes. A failure (info != 0) gives NaN, as JAX. */
#define LAPACK_GESDD(T, S, gesdd)                                                                                  \
    static int lapack_gesdd##S(int64_t m, int64_t n, int full, const T *a, T *s, T *u, T *vt, T *work) {       \
        int64_t r = RMIN(m, n);                                                                                  \
        if (!rt_linalg_use_lapack(r) || !rt_linalg_use_lapack(RMAX(m, n))) return 0;                             \
        T *x = work, *w = x + m * n;                                                                             \
        for (int64_t i = 0; i < m * n; i++) x[i] = a[i];                                                         \
        int mm = (int)m, nn = (int)n, k = (int)r, lw = (int)GESDD_WORK(m, n), info = 0;                          \
        int ldvt = full ? mm : k, one = 1;                                                                       \
        int *iw = (int *)(w + lw);                                                                               \
        T dummy = 0;                                                                                             \
        if (!u)                                                                                                  \
            gesdd("N", &nn, &mm, x, &nn, s, &dummy, &one, &dummy, &one, w, &lw, iw, &info, 1);                   \
        else                                                                                                     \
            gesdd(full ? "A" : "S", &nn, &mm, x, &nn, s, vt, &nn, u, &ldvt, w, &lw, iw, &info, 1);               \
        if (info != 0) {                                                                                         \
            for (int64_t i = 0; i < r; i++) s[i] = (T)NAN;                                                       \
            if (u) for (int64_t i = 0; i < m * (full ? m : r); i++) u[i] = (T)NAN;                               \
            if (vt) for (int64_t i = 0; i < n * (full ? n : r); i++) vt[i] = (T)NAN;                             \
        }                                                                                                        \
        return 1;                                                                                                \
    }
LAPACK_GESDD(float, f32, sgesdd_)
LAPACK_GESDD(double, f64, dgesdd_)
#else
static int lapack_gesddf32(int64_t m, int64_t n, int full, const float *a, float *s, float *u, float *vt,
                           float *work) {
    return (void)m, (void)n, (void)full, (void)a, (void)s, (void)u, (void)vt, (void)work, 0;
}
static int lapack_gesddf64(int64_t m, int64_t n, int full, const double *a, double *s, double *u, double *vt,
                           double *work) {
    return (void)m, (void)n, (void)full, (void)a, (void)s, (void)u, (void)vt, (void)work, 0;
}
#endif

#define T float
#define S f32
#define SQRT sqrtf
#define FABS fabsf
#define EPS FLT_EPSILON
#define GEMM rt_gemm_f32
#define BD_GK 1
#include "linalg_tridiag_impl.h"
#include "linalg_svd_qr_impl.h"
#include "linalg_bidiag_impl.h"
#include "linalg_svd_impl.h"
#undef T
#undef S
#undef SQRT
#undef FABS
#undef EPS
#undef GEMM
#undef BD_GK

/* F(svd_bidiag)'s working memory in elements of T (either type), r =
 * min(m, n), L = max(m, n): G (L·r), a wide matrix's left factor before
 * its transpose (L²), the 2r eigenvalues, the WY blocks (3·TD_NB·L +
 * TD_NB²), taus and row buffers (4L), the Golub–Kahan vectors when the
 * type takes them (gk: BD_ZROWS(r) of 2r, a tall matrix's BD_ZROWS_TALL(r): its
 * +σ rows live in u and vt), then doubles, counted twice for f32: d, e
 * and either dqds' and td_eig's (32r) or the kept rotations with the
 * order (BDQR_DOUBLES(r) + 2r). */
static int64_t bd_work(int64_t m, int64_t n, int gk) {
    int64_t r = RMIN(m, n), L = RMAX(m, n), N = 2 * r;
    int64_t t = L * r + (m < n ? L * L : 0) + N + 3 * TD_NB * L + TD_NB * TD_NB + 4 * L +
                (gk ? BD_ZROWS_FOR(m, n, r) * N : 0) + 8;
    int64_t dbl = 2 * r + RMAX(RMAX(14 * N + 4 * r, BDQR_DOUBLES(r) + 2 * r), r * r / 32 + 2) + 8;
    return t + 2 * dbl;
}

/* What the path taken now needs (as rt_eigh_work: a plan sized before a
 * path change still works, the kernel allocating the difference): one-
 * sided Jacobi's within its range, the bidiagonal path's above it, for
 * f64 (no Golub–Kahan vectors) or f32; rt_svd_work: either type's. */
int64_t rt_svd_work_for(int64_t m, int64_t n, int f64) {
    int64_t r = RMIN(m, n), len = RMAX(m, n);
    int64_t jac = r * len + r * r + len * len + 2 * len; /* the last len: flags, as bytes */
    int64_t bd = bd_work(m, n, !f64), la = m * n + GESDD_WORK(m, n) + GESDD_IWORK(m, n);
    int lapack = rt_linalg_use_lapack(r) && rt_linalg_use_lapack(len);
    return RMAX(r <= rt_svd_jacobi_max() ? jac : bd, lapack ? la : 0);
}
int64_t rt_svd_work(int64_t m, int64_t n) { return RMAX(rt_svd_work_for(m, n, 0), rt_svd_work_for(m, n, 1)); }

#define T double
#define S f64
#define SQRT sqrt
#define FABS fabs
#define EPS DBL_EPSILON
#define GEMM rt_gemm_f64
#define BD_GK 0
#include "linalg_tridiag_impl.h"
#include "linalg_svd_qr_impl.h"
#include "linalg_bidiag_impl.h"
#include "linalg_svd_impl.h"
#undef T
#undef S
#undef SQRT
#undef FABS
#undef EPS
#undef GEMM
#undef BD_GK
