/* linalg_eigh.c — the eigh primitive (prim layer; kernel in
 * src/runtime/linalg_eigh.c, jvp in src/autodiff/rules_linalg.c, the
 * public cj_linalg_eigh / _eigvalsh in src/api/linalg_decomp.c).
 *
 * eigh(a[..., n, n]) → (v [..., n, n], w [..., n]), as jax.lax.linalg.eigh
 * with lower=True, sort_eigenvalues=True: only a's lower triangle is read,
 * w ascending, column j of v the eigenvector of w[j]. Strict: f32 or f64,
 * square, leading axes a batch. Under jit a SINGLE kernel running the
 * eager kernel (LOWER_OPAQUE); its working memory (rt_eigh_work elements
 * per matrix) is declared by the rule (workspace_of), so under jit the
 * planner reserves it in the arena and the memory analysis counts it;
 * eagerly it comes from the context's allocator. vmap moves the batch
 * axis to the front. */
#include "../core/core.h"
#include "../runtime/linalg_kernels.h"
#include "batching.h"
#include "linalg_bind.h"
#include "prim.h"

static int eigh_abstract_eval(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const rt_aval *in,
                              int *n_out, rt_aval *out) {
    (void)p, (void)n_in;
    const rt_aval *a = &in[0];
    char t[96];
    rt_aval_str(a, t, sizeof t);
    if (a->dtype != CJ_F32 && a->dtype != CJ_F64)
        return prim_error(ctx, CJ_ERR_DTYPE, prim, "the operand must be f32 or f64, got %s", t);
    if (a->rank < 2 || a->dims[a->rank - 1] != a->dims[a->rank - 2])
        return prim_error(ctx, CJ_ERR_SHAPE, prim, "the operand must be a square matrix (or a batch of them), got %s",
                          t);
    *n_out = 2;
    out[0] = *a;
    out[0].weak = 0;
    out[1] = out[0];
    out[1].rank = a->rank - 1;
    return 0;
}

/* The kernel's working memory (the rule the planner reads). */
static size_t eigh_workspace(const prim_params *p, int n_in, const rt_aval *in) {
    (void)p, (void)n_in;
    const rt_aval *a = &in[0];
    int64_t n = a->dims[a->rank - 1], batch = 1;
    for (int d = 0; d < a->rank - 2; d++) batch *= a->dims[d];
    return (size_t)(batch * rt_eigh_work(n)) * rt_dtypes[a->dtype].size;
}

static int eigh_impl(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, rt_array *const *in,
                     int n_out, rt_array *const *out) {
    (void)prim, (void)n_out;
    const rt_aval *a = &in[0]->aval;
    int64_t n = a->dims[a->rank - 1], batch = 1;
    for (int d = 0; d < a->rank - 2; d++) batch *= a->dims[d];
    size_t bytes = eigh_workspace(p, n_in, a);
    int owned;
    void *work = core_workspace(ctx, bytes, &owned, "eigh: working copy");
    if (!work) return -1;
    if (a->dtype == CJ_F32)
        rt_eigh_f32(batch, n, in[0]->data, out[0]->data, out[1]->data, work);
    else
        rt_eigh_f64(batch, n, in[0]->data, out[0]->data, out[1]->data, work);
    core_workspace_done(ctx, work, bytes, owned);
    return 0;
}

static int eigh_print_params(const prim_params *p, char *buf, size_t size) {
    (void)p;
    return snprintf(buf, size, "lower=True sort_eigenvalues=True subset_by_index=None");
}

static double eigh_flops(const prim_params *p, const rt_aval *in, const rt_aval *out) {
    (void)p, (void)out;
    double n = (double)in[0].dims[in[0].rank - 1], b = 1;
    for (int d = 0; d < in[0].rank - 2; d++) b *= (double)in[0].dims[d];
    if (n <= (double)rt_eigh_jacobi_max()) return b * 8 * 6 * n * n * n / 2; /* ~8 sweeps of n²/2 rotations */
    return b * 10 * n * n * n / 3; /* 4n³/3 to tridiagonalise, 2n³ to transform back */
}

void prim_register_linalg_eigh(void) {
    prim_rules[PRIM_EIGH] = (prim_rule){
        .multiple_results = 1,
        .abstract_eval_multi = eigh_abstract_eval,
        .impl_multi = eigh_impl,
        .print_params = eigh_print_params,
        .lower = {.kind = LOWER_OPAQUE, .cost = {.flops_of = eigh_flops}, .workspace_of = eigh_workspace},
        .batch_multi = batch_leading_multi,
    };
}
