/* linalg_qr.c — the qr primitive (prim layer; kernel in
 * src/runtime/linalg_qr.c, jvp in src/autodiff/rules_linalg.c, the public
 * cj_linalg_qr in src/api/linalg_decomp.c).
 *
 * qr(a[..., m, n]) → (q, r), one equation with two results, as
 * jax.lax.linalg.qr with pivoting=False: k = min(m, n); q [..., m, k] and
 * r [..., k, n], or with full_matrices (params.flag bit 1) q [..., m, m]
 * and r [..., m, n]. Strict like the other linear-algebra primitives: f32
 * or f64, rank >= 2, leading axes a batch. Under jit it is a SINGLE kernel
 * running the eager kernel on whole buffers (LOWER_OPAQUE); the kernel
 * factors in whichever result buffer has a's shape, so it needs no
 * scratch. vmap moves the batch axis to the front, one more batch axis. */
#include "../core/core.h"
#include "../runtime/linalg_kernels.h"
#include "batching.h"
#include "linalg_bind.h"
#include "prim.h"

static int qr_abstract_eval(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const rt_aval *in,
                            int *n_out, rt_aval *out) {
    (void)n_in;
    const rt_aval *a = &in[0];
    char t[96];
    rt_aval_str(a, t, sizeof t);
    if (a->dtype != CJ_F32 && a->dtype != CJ_F64)
        return prim_error(ctx, CJ_ERR_DTYPE, prim, "the operand must be f32 or f64, got %s", t);
    if (a->rank < 2)
        return prim_error(ctx, CJ_ERR_SHAPE, prim, "the operand must have at least 2 dimensions, got %s", t);
    int r = a->rank;
    int64_t m = a->dims[r - 2], n = a->dims[r - 1], k = m < n ? m : n;
    int full = (p->flag & LB_FULL_MATRICES) != 0;
    *n_out = 2;
    out[0] = *a;
    out[0].weak = 0;
    out[1] = out[0];
    out[0].dims[r - 1] = full ? m : k;
    out[1].dims[r - 2] = full ? m : k;
    return 0;
}

static int qr_impl(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, rt_array *const *in, int n_out,
                   rt_array *const *out) {
    (void)ctx, (void)prim, (void)n_in, (void)n_out;
    const rt_aval *a = &in[0]->aval;
    int r = a->rank, full = (p->flag & LB_FULL_MATRICES) != 0;
    int64_t m = a->dims[r - 2], n = a->dims[r - 1], batch = 1;
    for (int d = 0; d < r - 2; d++) batch *= a->dims[d];
    if (a->dtype == CJ_F32)
        rt_qr_f32(batch, m, n, full, in[0]->data, out[0]->data, out[1]->data);
    else
        rt_qr_f64(batch, m, n, full, in[0]->data, out[0]->data, out[1]->data);
    return 0;
}

static int qr_print_params(const prim_params *p, char *buf, size_t size) {
    return snprintf(buf, size, "full_matrices=%s pivoting=False use_magma=None",
                    (p->flag & LB_FULL_MATRICES) ? "True" : "False");
}

static double qr_flops(const prim_params *p, const rt_aval *in, const rt_aval *out) {
    (void)p, (void)out;
    int r = in[0].rank;
    double m = (double)in[0].dims[r - 2], n = (double)in[0].dims[r - 1], k = m < n ? m : n, b = 1;
    for (int d = 0; d < r - 2; d++) b *= (double)in[0].dims[d];
    return b * 4 * m * n * k; /* the factorisation and forming Q, 2mnk each (to leading order, m >= n) */
}

void prim_register_linalg_decomp(void) {
    prim_rules[PRIM_QR] = (prim_rule){
        .multiple_results = 1,
        .abstract_eval_multi = qr_abstract_eval,
        .impl_multi = qr_impl,
        .print_params = qr_print_params,
        .lower = {.kind = LOWER_OPAQUE, .cost = {.flops_of = qr_flops}},
        .batch_multi = batch_leading_multi,
    };
}
