/* linalg.c — the linear-algebra primitives cholesky, triangular_solve and
 * lu (prim layer; kernels in src/runtime/linalg_kernels.c, jvp and
 * transpose rules in src/autodiff/rules_linalg.c, the public composites in
 * src/api/linalg_*.c).
 *
 * As jax.lax.linalg's, each works on the last two axes and treats any
 * leading axes as a batch, and is strict: f32 or f64 only, equal dtypes,
 * equal batch axes (the composites promote and broadcast before binding).
 *   cholesky(a[..., n, n]) → L, lower, reading only a's lower triangle (of
 *     (a + aᵀ)/2 with symmetrize_input, params.flag bit 1: formed inside
 *     the kernel, in cache-sized tiles, rather than as a transposed read in
 *     a fused loop, which cost half as much as the factorisation at n =
 *     1024); a matrix that is not numerically positive definite gives all
 *     NaN, as JAX's does (its CPU lowering selects NaN where potrf fails).
 *   triangular_solve(a[..., m, m], b) → x with op(a) x = b (left_side, b
 *     [..., m, k]) or x op(a) = b (b [..., k, m]); op(a) = a or aᵀ
 *     (transpose_a); only the `lower` (or upper) triangle is read, its
 *     diagonal taken as ones with unit_diagonal. conjugate_a is accepted and
 *     means nothing for real dtypes. The flags live in params.flag.
 *   lu(a[..., m, n]) → (lu, pivots int32[..., min(m,n)], permutation
 *     int32[..., m]), one equation with three results (multiple_results).
 *   linear_solve(lu, perm, a, b[..., n, k]) → x with a x = b from lu's
 *     factors (below), the public solve's primitive.
 * Under jit each is a SINGLE kernel running the eager kernel on whole
 * buffers (LOWER_OPAQUE): the operand is copied into the result buffer and
 * factored or solved there (the blocked Cholesky works in the result's
 * upper triangle), so the plan's buffers are the working memory. The one
 * exception, not yet planned or counted by the memory analysis: the
 * transposed linear_solve (reverse mode's) takes n × k elements of scratch
 * from the context's allocator. vmap moves the batch axis to the front,
 * where it is one more batch axis. */
#include <string.h>

#include "../core/core.h"
#include "../runtime/linalg_kernels.h"
#include "batching.h"
#include "prim.h"

/* triangular_solve's flags in params.flag */
#define TS_LEFT 1
#define TS_LOWER 2
#define TS_TRANSPOSE 4
#define TS_CONJUGATE 8
#define TS_UNIT 16
/* cholesky's: factor (a + aᵀ)/2 (lax.linalg.cholesky's symmetrize_input) */
#define CHOL_SYMMETRIZE 1

static int float_matrix(struct cj_ctx *ctx, prim_id prim, const rt_aval *a, const char *what) {
    char t[96];
    rt_aval_str(a, t, sizeof t);
    if (a->dtype != CJ_F32 && a->dtype != CJ_F64)
        return prim_error(ctx, CJ_ERR_DTYPE, prim, "%s must be f32 or f64, got %s", what, t);
    if (a->rank < 2)
        return prim_error(ctx, CJ_ERR_SHAPE, prim, "%s must have at least 2 dimensions, got %s", what, t);
    return 0;
}

static int square(struct cj_ctx *ctx, prim_id prim, const rt_aval *a, const char *what) {
    if (a->dims[a->rank - 1] == a->dims[a->rank - 2]) return 0;
    char t[96];
    rt_aval_str(a, t, sizeof t);
    return prim_error(ctx, CJ_ERR_SHAPE, prim, "%s must be a square matrix (or a batch of them), got %s", what, t);
}

/* Matrices in a batch: the product of the leading axes. */
static int64_t batch_count(const rt_aval *a) {
    int64_t b = 1;
    for (int d = 0; d < a->rank - 2; d++) b *= a->dims[d];
    return b;
}

/* ---- cholesky ----------------------------------------------------------- */

static int cholesky_abstract_eval(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in,
                                  const rt_aval *in, rt_aval *out) {
    (void)p, (void)n_in;
    if (float_matrix(ctx, prim, &in[0], "the operand") || square(ctx, prim, &in[0], "the operand")) return -1;
    *out = in[0];
    out->weak = 0;
    return 0;
}

/* The lower triangle of (a + aᵀ)/2 into out, in 32×32 tiles (the
 * transposed read stays in cache); the upper triangle is left unwritten
 * (the kernel does not read it, then zeroes it). */
#define SYMMETRIZE(T)                                                                                              \
    static void symmetrize_##T(const T *a, T *out, int64_t batch, int64_t n) {                                    \
        for (int64_t m = 0; m < batch; m++, a += n * n, out += n * n)                                              \
            for (int64_t ib = 0; ib < n; ib += 32)                                                                 \
                for (int64_t jb = 0; jb <= ib; jb += 32)                                                           \
                    for (int64_t i = ib; i < ib + 32 && i < n; i++)                                                \
                        for (int64_t j = jb; j < jb + 32 && j <= i; j++)                                           \
                            out[i * n + j] = (a[i * n + j] + a[j * n + i]) * (T)0.5;                               \
    }
SYMMETRIZE(float)
SYMMETRIZE(double)

static int cholesky_impl(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, rt_array *const *in,
                         rt_array *out) {
    (void)ctx, (void)prim, (void)n_in;
    const rt_aval *a = &in[0]->aval;
    int64_t n = a->dims[a->rank - 1];
    if (p->flag & CHOL_SYMMETRIZE) {
        if (a->dtype == CJ_F32)
            symmetrize_float(in[0]->data, out->data, batch_count(a), n);
        else
            symmetrize_double(in[0]->data, out->data, batch_count(a), n);
    } else if (out->data != in[0]->data) {
        memcpy(out->data, in[0]->data, (size_t)out->size * rt_dtypes[a->dtype].size);
    }
    if (a->dtype == CJ_F32)
        rt_cholesky_f32(batch_count(a), n, out->data);
    else
        rt_cholesky_f64(batch_count(a), n, out->data);
    return 0;
}

static int cholesky_print_params(const prim_params *p, char *buf, size_t size) {
    return snprintf(buf, size, "symmetrize_input=%s", (p->flag & CHOL_SYMMETRIZE) ? "True" : "False");
}

static double cholesky_flops(const prim_params *p, const rt_aval *in, const rt_aval *out) {
    (void)p, (void)out;
    double n = (double)in[0].dims[in[0].rank - 1];
    return (double)batch_count(&in[0]) * n * n * n / 3;
}

/* The batch axis to the front: one more leading batch axis. */
static int batch_front(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                       const int64_t *bdim, int64_t size, cj_val *out, int64_t *out_bdim) {
    cj_val args[4];
    for (int i = 0; i < n_in; i++) {
        args[i] = batch_to(in[i], bdim[i], size, 0);
        if (!args[i].slot) return -1;
    }
    *out = core_bind(ctx, prim, p, n_in, args);
    *out_bdim = 0;
    return out->slot ? 0 : -1;
}

/* ---- triangular_solve --------------------------------------------------- */

static int trsm_abstract_eval(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const rt_aval *in,
                              rt_aval *out) {
    (void)n_in;
    const rt_aval *a = &in[0], *b = &in[1];
    if (float_matrix(ctx, prim, a, "a") || square(ctx, prim, a, "a") || float_matrix(ctx, prim, b, "b")) return -1;
    char at[96], bt[96];
    rt_aval_str(a, at, sizeof at);
    rt_aval_str(b, bt, sizeof bt);
    if (a->dtype != b->dtype)
        return prim_error(ctx, CJ_ERR_DTYPE, prim, "a and b must have the same dtype, got %s and %s", at, bt);
    int same_batch = a->rank == b->rank;
    for (int d = 0; same_batch && d < a->rank - 2; d++) same_batch = a->dims[d] == b->dims[d];
    if (!same_batch)
        return prim_error(ctx, CJ_ERR_SHAPE, prim, "a and b must have equal batch dimensions, got %s and %s", at, bt);
    int left = (p->flag & TS_LEFT) != 0;
    int64_t m = a->dims[a->rank - 1], bm = b->dims[b->rank - (left ? 2 : 1)];
    if (bm != m)
        return prim_error(ctx, CJ_ERR_SHAPE, prim,
                          "with left_side=%s, b's dimension %d must match a's size %lld, got %s and %s",
                          left ? "True" : "False", b->rank - (left ? 2 : 1), (long long)m, at, bt);
    *out = *b;
    out->weak = 0;
    return 0;
}

static int trsm_impl(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, rt_array *const *in,
                     rt_array *out) {
    (void)ctx, (void)prim, (void)n_in;
    const rt_aval *a = &in[0]->aval, *b = &in[1]->aval;
    int64_t m = a->dims[a->rank - 1];
    int left = (p->flag & TS_LEFT) != 0;
    int64_t k = b->dims[b->rank - (left ? 1 : 2)];
    rt_trsm_opts o = {left, (p->flag & TS_LOWER) != 0, (p->flag & TS_TRANSPOSE) != 0, (p->flag & TS_UNIT) != 0};
    if (out->data != in[1]->data) memcpy(out->data, in[1]->data, (size_t)out->size * rt_dtypes[b->dtype].size);
    if (a->dtype == CJ_F32)
        rt_trsm_f32(batch_count(a), m, k, in[0]->data, out->data, o);
    else
        rt_trsm_f64(batch_count(a), m, k, in[0]->data, out->data, o);
    return 0;
}

static int trsm_print_params(const prim_params *p, char *buf, size_t size) {
#define TF(bit) ((p->flag & (bit)) ? "True" : "False")
    return snprintf(buf, size, "conjugate_a=%s left_side=%s lower=%s transpose_a=%s unit_diagonal=%s",
                    TF(TS_CONJUGATE), TF(TS_LEFT), TF(TS_LOWER), TF(TS_TRANSPOSE), TF(TS_UNIT));
#undef TF
}

static double trsm_flops(const prim_params *p, const rt_aval *in, const rt_aval *out) {
    (void)p;
    double m = (double)in[0].dims[in[0].rank - 1];
    return (double)rt_aval_size(out) * m; /* m²·k per matrix: m/2 multiply-adds per result element */
}

/* ---- lu ----------------------------------------------------------------- */

static int lu_abstract_eval(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const rt_aval *in,
                            int *n_out, rt_aval *out) {
    (void)p, (void)n_in;
    const rt_aval *a = &in[0];
    if (float_matrix(ctx, prim, a, "the operand")) return -1;
    int64_t m = a->dims[a->rank - 2], n = a->dims[a->rank - 1];
    if (m > INT32_MAX)
        return prim_error(ctx, CJ_ERR_SHAPE, prim, "%lld rows do not fit the int32 pivots", (long long)m);
    *n_out = 3;
    out[0] = *a;
    out[0].weak = 0;
    out[1] = out[0];
    out[1].dtype = CJ_I32;
    out[1].rank = a->rank - 1;
    out[1].dims[a->rank - 2] = m < n ? m : n;
    out[2] = out[1];
    out[2].dims[a->rank - 2] = m;
    return 0;
}

static int lu_impl(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, rt_array *const *in, int n_out,
                   rt_array *const *out) {
    (void)ctx, (void)prim, (void)p, (void)n_in, (void)n_out;
    const rt_aval *a = &in[0]->aval;
    int64_t m = a->dims[a->rank - 2], n = a->dims[a->rank - 1];
    if (out[0]->data != in[0]->data)
        memcpy(out[0]->data, in[0]->data, (size_t)out[0]->size * rt_dtypes[a->dtype].size);
    if (a->dtype == CJ_F32)
        rt_lu_f32(batch_count(a), m, n, out[0]->data, out[1]->data, out[2]->data);
    else
        rt_lu_f64(batch_count(a), m, n, out[0]->data, out[1]->data, out[2]->data);
    return 0;
}

static double lu_flops(const prim_params *p, const rt_aval *in, const rt_aval *out) {
    (void)p, (void)out;
    double m = (double)in[0].dims[in[0].rank - 2], n = (double)in[0].dims[in[0].rank - 1], k = m < n ? m : n;
    return (double)batch_count(&in[0]) * (m * n * k - (m + n) * k * k / 2 + k * k * k / 3);
}

/* ---- linear_solve -------------------------------------------------------
 * linear_solve(lu, perm, a, b): x with a x = b (transpose_a: aᵀ x = b)
 * from a's LU factors as lu gives them. The kernel reads only the factors;
 * a is an operand for the derivative alone, which is custom_linear_solve's
 * (src/autodiff/rules_linalg.c): linear in b, dx = solve(db - da·x) in a,
 * nothing through the factors (their tangents are ignored: the public
 * solve factors stop_gradient(a)). One factorisation serves the value, the
 * jvp and the transpose. */
static int lsolve_abstract_eval(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in,
                                const rt_aval *in, rt_aval *out) {
    (void)p, (void)n_in;
    const rt_aval *lu = &in[0], *perm = &in[1], *a = &in[2], *b = &in[3];
    if (float_matrix(ctx, prim, lu, "lu") || square(ctx, prim, lu, "lu") || float_matrix(ctx, prim, b, "b"))
        return -1;
    char lt[96], pt[96], at[96], bt[96];
    rt_aval_str(lu, lt, sizeof lt);
    rt_aval_str(perm, pt, sizeof pt);
    rt_aval_str(a, at, sizeof at);
    rt_aval_str(b, bt, sizeof bt);
    int ok = perm->dtype == CJ_I32 && perm->rank == lu->rank - 1;
    for (int d = 0; ok && d < perm->rank; d++) ok = perm->dims[d] == lu->dims[d];
    if (!ok)
        return prim_error(ctx, CJ_ERR_SHAPE, prim, "the permutation must be i32 of lu's shape without its last axis, "
                          "got lu %s and permutation %s", lt, pt);
    if (!rt_aval_same_shape(a, lu) || a->dtype != lu->dtype || b->dtype != lu->dtype)
        return prim_error(ctx, CJ_ERR_SHAPE, prim, "a and b must have lu's dtype, and a its shape, got lu %s, a %s, b %s",
                          lt, at, bt);
    int same = b->rank == lu->rank && b->dims[b->rank - 2] == lu->dims[lu->rank - 1];
    for (int d = 0; same && d < lu->rank - 2; d++) same = b->dims[d] == lu->dims[d];
    if (!same)
        return prim_error(ctx, CJ_ERR_SHAPE, prim, "b must be lu's batch of [n, k] matrices, got lu %s and b %s", lt,
                          bt);
    *out = *b;
    out->weak = 0;
    return 0;
}

#define LSOLVE(T, S)                                                                                               \
    static int lsolve_##S(struct cj_ctx *ctx, int64_t batch, int64_t n, int64_t k, const T *lu, const int32_t *perm, \
                          const T *b, T *x, int trans) {                                                           \
        rt_trsm_opts lo = {1, 1, trans, 1}, up = {1, 0, trans, 0};                                                 \
        if (!trans) { /* x = U⁻¹ L⁻¹ b[perm] */                                                                    \
            for (int64_t m = 0; m < batch; m++)                                                                    \
                for (int64_t i = 0; i < n; i++)                                                                    \
                    memcpy(x + (m * n + i) * k, b + (m * n + perm[m * n + i]) * k, sizeof(T) * (size_t)k);         \
            rt_trsm_##S(batch, n, k, lu, x, lo);                                                                   \
            rt_trsm_##S(batch, n, k, lu, x, up);                                                                   \
            return 0;                                                                                              \
        }                                                                                                          \
        /* aᵀ = Uᵀ Lᵀ P: y = L⁻ᵀ U⁻ᵀ b, then x[perm[i]] = y[i] (y in scratch) */                                   \
        size_t bytes = sizeof(T) * (size_t)(n * k);                                                                \
        T *y = rt_alloc(ctx->mem, bytes ? bytes : 1);                                                              \
        if (!y) return core_oom(ctx, "linear_solve: scratch");                                                     \
        for (int64_t m = 0; m < batch; m++) {                                                                      \
            memcpy(y, b + m * n * k, bytes);                                                                       \
            rt_trsm_##S(1, n, k, lu + m * n * n, y, up);                                                           \
            rt_trsm_##S(1, n, k, lu + m * n * n, y, lo);                                                           \
            for (int64_t i = 0; i < n; i++)                                                                        \
                memcpy(x + (m * n + perm[m * n + i]) * k, y + i * k, sizeof(T) * (size_t)k);                       \
        }                                                                                                          \
        rt_free(ctx->mem, y, bytes ? bytes : 1);                                                                   \
        return 0;                                                                                                  \
    }
LSOLVE(float, f32)
LSOLVE(double, f64)

static int lsolve_impl(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, rt_array *const *in,
                       rt_array *out) {
    (void)prim, (void)n_in;
    const rt_aval *lu = &in[0]->aval, *b = &in[3]->aval;
    int64_t n = lu->dims[lu->rank - 1], k = b->dims[b->rank - 1], batch = batch_count(lu);
    int trans = (p->flag & TS_TRANSPOSE) != 0;
    if (lu->dtype == CJ_F32)
        return lsolve_f32(ctx, batch, n, k, in[0]->data, in[1]->data, in[3]->data, out->data, trans);
    return lsolve_f64(ctx, batch, n, k, in[0]->data, in[1]->data, in[3]->data, out->data, trans);
}

static int lsolve_print_params(const prim_params *p, char *buf, size_t size) {
    return snprintf(buf, size, "transpose_a=%s", (p->flag & TS_TRANSPOSE) ? "True" : "False");
}

static double lsolve_flops(const prim_params *p, const rt_aval *in, const rt_aval *out) {
    (void)p;
    return 2.0 * (double)rt_aval_size(out) * (double)in[0].dims[in[0].rank - 1]; /* 2n²k per matrix */
}

void prim_register_linalg(void) {
    prim_rules[PRIM_CHOLESKY] = (prim_rule){
        .abstract_eval = cholesky_abstract_eval,
        .impl = cholesky_impl,
        .print_params = cholesky_print_params,
        .lower = {.kind = LOWER_OPAQUE, .cost = {.flops_of = cholesky_flops}},
        .batch = batch_front,
    };
    prim_rules[PRIM_TRIANGULAR_SOLVE] = (prim_rule){
        .abstract_eval = trsm_abstract_eval,
        .impl = trsm_impl,
        .print_params = trsm_print_params,
        .lower = {.kind = LOWER_OPAQUE, .cost = {.flops_of = trsm_flops}},
        .batch = batch_front,
    };
    prim_rules[PRIM_LU] = (prim_rule){
        .multiple_results = 1,
        .abstract_eval_multi = lu_abstract_eval,
        .impl_multi = lu_impl,
        .lower = {.kind = LOWER_OPAQUE, .cost = {.flops_of = lu_flops}},
        .batch_multi = batch_leading_multi,
    };
    prim_rules[PRIM_LINEAR_SOLVE] = (prim_rule){
        .abstract_eval = lsolve_abstract_eval,
        .impl = lsolve_impl,
        .print_params = lsolve_print_params,
        .lower = {.kind = LOWER_OPAQUE, .cost = {.flops_of = lsolve_flops}},
        .batch = batch_front,
    };
}
