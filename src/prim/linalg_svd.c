/* linalg_svd.c — the svd primitive (prim layer; kernel in
 * src/runtime/linalg_svd.c, jvp in src/autodiff/rules_linalg.c, the public
 * cj_linalg_svd / _svdvals in src/api/linalg_decomp.c).
 *
 * svd(a[..., m, n]) → (s [..., k], u, vt), k = min(m, n), as
 * jax.lax.linalg.svd: s descending; u [..., m, k] and vt [..., k, n], or
 * with full_matrices [..., m, m] and [..., n, n]; without compute_uv
 * (params.flag bit 2) s alone. Strict: f32 or f64, rank >= 2. Under jit a
 * SINGLE kernel running the eager kernel (LOWER_OPAQUE); its working
 * memory (rt_svd_work_for elements per matrix: the f64 path needs less) is declared by the rule
 * (workspace_of), so under jit the planner reserves it in the arena and
 * the memory analysis counts it; eagerly it comes from the context's
 * allocator. vmap moves the batch axis to the front. */
#include "../core/core.h"
#include "../runtime/linalg_kernels.h"
#include "batching.h"
#include "linalg_bind.h"
#include "prim.h"

static int svd_abstract_eval(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const rt_aval *in,
                             int *n_out, rt_aval *out) {
    (void)n_in;
    const rt_aval *a = &in[0];
    char t[96];
    rt_aval_str(a, t, sizeof t);
    if (a->dtype != CJ_F32 && a->dtype != CJ_F64)
        return prim_error(ctx, CJ_ERR_DTYPE, prim, "the operand must be f32 or f64, got %s", t);
    if (a->rank < 2)
        return prim_error(ctx, CJ_ERR_SHAPE, prim, "the operand must have at least 2 dimensions, got %s", t);
    int r = a->rank, full = (p->flag & LB_FULL_MATRICES) != 0;
    int64_t m = a->dims[r - 2], n = a->dims[r - 1], k = m < n ? m : n;
    *n_out = (p->flag & LB_COMPUTE_UV) ? 3 : 1;
    out[0] = *a;
    out[0].weak = 0;
    out[0].rank = r - 1;
    out[0].dims[r - 2] = k;
    if (*n_out == 3) {
        out[1] = out[2] = *a;
        out[1].weak = out[2].weak = 0;
        out[1].dims[r - 1] = full ? m : k;
        out[2].dims[r - 2] = full ? n : k;
    }
    return 0;
}

/* The kernel's working memory (the rule the planner reads). */
static size_t svd_workspace(const prim_params *p, int n_in, const rt_aval *in) {
    (void)p, (void)n_in;
    const rt_aval *a = &in[0];
    int64_t m = a->dims[a->rank - 2], n = a->dims[a->rank - 1], batch = 1;
    for (int d = 0; d < a->rank - 2; d++) batch *= a->dims[d];
    return (size_t)(batch * rt_svd_work_for(m, n, a->dtype == CJ_F64)) * rt_dtypes[a->dtype].size;
}

static int svd_impl(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, rt_array *const *in,
                    int n_out, rt_array *const *out) {
    (void)prim;
    const rt_aval *a = &in[0]->aval;
    int r = a->rank, full = (p->flag & LB_FULL_MATRICES) != 0;
    int64_t m = a->dims[r - 2], n = a->dims[r - 1], batch = 1;
    for (int d = 0; d < r - 2; d++) batch *= a->dims[d];
    size_t bytes = svd_workspace(p, n_in, a);
    int owned;
    void *work = core_workspace(ctx, bytes, &owned, "svd: working memory");
    if (!work) return -1;
    void *u = n_out == 3 ? out[1]->data : NULL, *vt = n_out == 3 ? out[2]->data : NULL;
    if (a->dtype == CJ_F32)
        rt_svd_f32(batch, m, n, full, in[0]->data, out[0]->data, u, vt, work);
    else
        rt_svd_f64(batch, m, n, full, in[0]->data, out[0]->data, u, vt, work);
    core_workspace_done(ctx, work, bytes, owned);
    return 0;
}

static int svd_print_params(const prim_params *p, char *buf, size_t size) {
    return snprintf(buf, size, "algorithm=None compute_uv=%s full_matrices=%s subset_by_index=None",
                    (p->flag & LB_COMPUTE_UV) ? "True" : "False", (p->flag & LB_FULL_MATRICES) ? "True" : "False");
}

static double svd_flops(const prim_params *p, const rt_aval *in, const rt_aval *out) {
    (void)p, (void)out;
    int r = in[0].rank;
    double m = (double)in[0].dims[r - 2], n = (double)in[0].dims[r - 1], k = m < n ? m : n, l = m < n ? n : m, b = 1;
    for (int d = 0; d < r - 2; d++) b *= (double)in[0].dims[d];
    if (k <= (double)rt_svd_jacobi_max()) return b * 8 * 3 * k * k * (l + k); /* ~8 sweeps of k²/2 pairs */
    /* bidiagonalise (4lk² - 4k³/3), transform both sides back (2lk² + 2k³);
     * f64's implicit QR applies about 0.85k² rotations to each of two
     * k × k matrices (6k flops each; measured at k = 256 and 1024) */
    double qr = in[0].dtype == CJ_F64 ? 10 * k * k * k : 0;
    return b * (6 * l * k * k + 2 * k * k * k / 3 + qr);
}

void prim_register_linalg_svd(void) {
    prim_rules[PRIM_SVD] = (prim_rule){
        .multiple_results = 1,
        .abstract_eval_multi = svd_abstract_eval,
        .impl_multi = svd_impl,
        .print_params = svd_print_params,
        .lower = {.kind = LOWER_OPAQUE, .cost = {.flops_of = svd_flops}, .workspace_of = svd_workspace},
        .batch_multi = batch_leading_multi,
    };
}
