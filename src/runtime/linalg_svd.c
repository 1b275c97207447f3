/* linalg_svd.c — the singular value decomposition for f32 and f64
 * (runtime layer; the interface is in linalg_kernels.h, the kernel body in
 * linalg_svd_impl.h, included once per type). The svd primitive
 * (src/prim/linalg_svd.c) runs it eagerly and, under jit, as a single
 * kernel, handing in the working memory. */
#include <float.h>
#include <math.h>
#include <stddef.h>

#include "linalg_kernels.h"
#include "threads.h"

int64_t rt_svd_work(int64_t m, int64_t n) {
    int64_t r = m < n ? m : n, len = m < n ? n : m;
    return r * len + r * r + len * len + 2 * len; /* the last len: flags, as bytes (fewer than len elements) */
}

#define T float
#define S f32
#define SQRT sqrtf
#define FABS fabsf
#define EPS FLT_EPSILON
#include "linalg_svd_impl.h"
#undef T
#undef S
#undef SQRT
#undef FABS
#undef EPS

#define T double
#define S f64
#define SQRT sqrt
#define FABS fabs
#define EPS DBL_EPSILON
#include "linalg_svd_impl.h"
#undef T
#undef S
#undef SQRT
#undef FABS
#undef EPS
