/* linalg_qr.c — Householder QR for f32 and f64 (runtime layer; the
 * interface is in linalg_kernels.h, the kernel body in linalg_qr_impl.h,
 * included once per type). The qr primitive (src/prim/linalg_qr.c) runs it
 * eagerly and, under jit, as a single kernel on whole buffers. A batch is
 * split over the pool a whole matrix at a time. */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "linalg_kernels.h"
#include "threads.h"

/* Columns per pass of a reflection: the accumulated row stays on the stack. */
#define QR_CHUNK 256

#define T float
#define S f32
#define SQRT sqrtf
#define EPS FLT_EPSILON
#include "linalg_qr_impl.h"
#undef T
#undef S
#undef SQRT
#undef EPS

#define T double
#define S f64
#define SQRT sqrt
#define EPS DBL_EPSILON
#include "linalg_qr_impl.h"
#undef T
#undef S
#undef SQRT
#undef EPS
