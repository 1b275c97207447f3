/* linalg_qr.c — Householder QR for f32 and f64 (runtime layer; the
 * interface is in linalg_kernels.h, the kernel body in linalg_qr_impl.h,
 * included once per type). The qr primitive (src/prim/linalg_qr.c) runs it
 * eagerly and, under jit, as a single kernel on whole buffers (and, for
 * the blocked kernels, the working memory it declares). A batch is split
 * over the pool a whole matrix at a time. */
#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#include "gemm.h"
#include "linalg_kernels.h"
#include "threads.h"

/* Columns per pass of a reflection: the accumulated row stays on the stack. */
#define QR_CHUNK 256
/* The blocked kernels: reflectors per block, and the smallest min(m, n)
 * that takes them (square f32, one thread, unblocked vs blocked: n = 256
 * 2.34 vs 2.70 ms, 320 4.30 vs 4.47, 384 8.44 vs 7.04, 1024 223 vs 92). */
#define QR_NB 64
#define QR_BLOCKED_MIN_DEFAULT 352
static _Atomic int64_t blocked_min = QR_BLOCKED_MIN_DEFAULT;
#define QR_BLOCKED_MIN atomic_load(&blocked_min)

void rt_qr_set_blocked_min(int64_t k) { atomic_store(&blocked_min, k < 0 ? QR_BLOCKED_MIN_DEFAULT : k); }

int64_t rt_qr_work(int64_t m, int64_t n) {
    int64_t k = m < n ? m : n, wide = m > n ? m : n;
    if (k < QR_BLOCKED_MIN || k == 0) return 0;
    return k * m + k + QR_NB * QR_NB + 2 * QR_NB * wide;
}

#define T float
#define S f32
#define SQRT sqrtf
#define EPS FLT_EPSILON
#define GEMM rt_gemm_f32
#include "linalg_qr_impl.h"
#undef T
#undef S
#undef SQRT
#undef EPS
#undef GEMM

#define T double
#define S f64
#define SQRT sqrt
#define EPS DBL_EPSILON
#define GEMM rt_gemm_f64
#include "linalg_qr_impl.h"
#undef T
#undef S
#undef SQRT
#undef EPS
#undef GEMM
