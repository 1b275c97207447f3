/* elementwise_kernels.h — the eager loops of the elementwise primitives
 * (prim layer, private to elementwise.c and its tests).
 *
 * A kernel computes out[i] for i in [begin, end) from up to three operands
 * of equal dtype. An operand marked `scalar` is rank 0 and is read at index
 * 0 for every element (stride 0); the others are dense arrays of the
 * output's size. Kernels never validate: abstract_eval has checked dtypes
 * and shapes, and ew_kernel returns NULL for a dtype the primitive does not
 * accept. Ranges are independent, so a caller may split [0, n) across
 * threads. */
#ifndef CJ_PRIM_ELEMENTWISE_KERNELS_H
#define CJ_PRIM_ELEMENTWISE_KERNELS_H

#include <stdbool.h>

#include "prim.h"

typedef struct ew_operands {
    const void *in[3];
    bool scalar[3];     /* in[i] is rank 0: read in[i][0] for every element */
    void *out;
    cj_dtype in_dtype;  /* the operands' dtype (select_n: the cases') */
    cj_dtype out_dtype; /* convert_element_type's target */
    int64_t param;      /* integer_pow's exponent (params.count) */
} ew_operands;

typedef void (*ew_kernel_fn)(const ew_operands *ops, int64_t begin, int64_t end);

/* The one-operand loop both kernel files expand: y[i] = (TO)EXPR(x) with
 * x = in[0][i] (a rank-0 operand runs over [0, 1)). */
#define EW_UNARY(NAME, T, TO, EXPR)                                                \
    static void NAME(const ew_operands *ops, int64_t begin, int64_t end) {         \
        const T *xs = (const T *)ops->in[0];                                       \
        TO *ys = (TO *)ops->out;                                                   \
        for (int64_t i = begin; i < end; i++) {                                    \
            const T x = xs[i];                                                     \
            ys[i] = (TO)(EXPR);                                                    \
        }                                                                          \
    }

/* The kernel of an elementwise primitive for operands of dtype `dt` (for
 * select_n: the dtype of the cases). NULL when there is none: the
 * primitive rejects that dtype, or prim is not elementwise. */
ew_kernel_fn ew_kernel(prim_id prim, cj_dtype dt);
/* The loops of the dtypes after f64 (elementwise_kernels_ext.c), which
 * ew_kernel consults for them. */
ew_kernel_fn ew_kernel_ext(prim_id prim, cj_dtype dt);
/* The loops of the bit primitives (elementwise_kernels_bits.c): shifts,
 * population_count, bitcast_convert_type. */
ew_kernel_fn ew_kernel_bits(prim_id prim, cj_dtype dt);

#endif
