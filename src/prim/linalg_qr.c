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
 * factors in whichever result buffer has a's shape, and for min(m, n) >=
 * 352 (blocked) declares its working memory (workspace_of: the
 * reflectors and GEMM panels), which the planner reserves. vmap moves the
 * batch axis to the front, one more batch axis. */
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

/* The blocked kernel's working memory (the rule the planner reads; 0 for
 * small matrices). */
static size_t qr_workspace(const prim_params *p, int n_in, const rt_aval *in) {
    (void)p, (void)n_in;
    const rt_aval *a = &in[0];
    int64_t m = a->dims[a->rank - 2], n = a->dims[a->rank - 1], batch = 1;
    for (int d = 0; d < a->rank - 2; d++) batch *= a->dims[d];
    return (size_t)(batch * rt_qr_work(m, n)) * rt_dtypes[a->dtype].size;
}

static int qr_impl(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, rt_array *const *in, int n_out,
                   rt_array *const *out) {
    (void)prim, (void)n_out;
    const rt_aval *a = &in[0]->aval;
    int r = a->rank, full = (p->flag & LB_FULL_MATRICES) != 0;
    int64_t m = a->dims[r - 2], n = a->dims[r - 1], batch = 1;
    for (int d = 0; d < r - 2; d++) batch *= a->dims[d];
    size_t bytes = qr_workspace(p, n_in, a);
    int owned = 0;
    void *work = bytes ? core_workspace(ctx, bytes, &owned, "qr: working memory") : NULL;
    if (bytes && !work) return -1;
    if (a->dtype == CJ_F32)
        rt_qr_f32(batch, m, n, full, in[0]->data, out[0]->data, out[1]->data, work);
    else
        rt_qr_f64(batch, m, n, full, in[0]->data, out[0]->data, out[1]->data, work);
    core_workspace_done(ctx, work, bytes, owned);
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
        .lower = {.kind = LOWER_OPAQUE, .cost = {.flops_of = qr_flops}, .workspace_of = qr_workspace},
        .batch_multi = batch_leading_multi,
    };
}
