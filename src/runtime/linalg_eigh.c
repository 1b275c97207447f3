/* linalg_eigh.c — the symmetric eigendecomposition for f32 and f64
 * (runtime layer; the interface is in linalg_kernels.h, the kernel body
 * in linalg_eigh_impl.h, included once per type). The eigh primitive
 * (src/prim/linalg_eigh.c) runs it eagerly and, under jit, as a single
 * kernel; it hands in the working memory. A batch is split over the pool
 * a whole matrix at a time. */
#include <float.h>
#include <math.h>
#include <stddef.h>

#include "linalg_kernels.h"
#include "threads.h"

#define T float
#define S f32
#define SQRT sqrtf
#define FABS fabsf
#define EPS FLT_EPSILON
#include "linalg_eigh_impl.h"
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
#include "linalg_eigh_impl.h"
#undef T
#undef S
#undef SQRT
#undef FABS
#undef EPS
