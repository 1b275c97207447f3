/* dot.c — the dot_general primitive (prim layer).
 *
 * lax.dot_general: each operand's axes are split into batch axes (paired
 * between the operands), contracting axes (paired, summed over) and free
 * axes. The result's axes are the batch axes, then lhs's free axes, then
 * rhs's free axes, each in order. cj_dot_general and cj_matmul (api/linalg.c)
 * promote dtypes and broadcast before they bind it; the primitive itself
 * is strict: equal dtypes, matching sizes.
 *
 * The kernel sees every dot_general as a batch of matrix products:
 * lhs as [B, M, K], rhs as [B, K, N] and the result as [B, M, N], where B,
 * M, K, N are the products of the batch, lhs-free, contracting and
 * rhs-free sizes. The result's layout is exactly [B, M, N], so only the
 * operands may need rearranging. Each axis group of an operand is merged
 * into one strided dimension when its axes sit next to each other in
 * memory, in order (size-1 axes are ignored); when every group merges and
 * the matrix inside a batch is row- or column-contiguous, the GEMM reads
 * the operand in place (a transposed operand is a trans flag, not a copy).
 * Only otherwise is the operand copied into [B, M, K] / [B, K, N] order.
 * f32/f64 go through src/runtime/gemm.h, and so do bf16/f16: the widening
 * GEMM packs them into f32 panels, sums in f32 and the result is rounded
 * to the narrow type once (as XLA's CPU backend computes them; with
 * preferred_element_type=f32 it is not rounded at all). Integers of every
 * width and bool use a blocked loop here (integers wrap on overflow as in
 * XLA; a bool dot is OR of ANDs).
 *
 * preferred_element_type (params.dtype) is the result's dtype. As lax: it
 * is the operands' dtype, or for integer and bool operands any dtype at
 * least as wide, for float operands any float at least as wide. Apart from
 * bf16/f16 → f32 and 8/16-bit integers → i32/u32 (read narrow, summed in
 * 32 bits) the kernel converts both operands to it and multiplies in it
 * (exact products, wrapping sums, as XLA's). */
#include <string.h>

#include "../runtime/gemm.h"
#include "../runtime/threads.h"
#include "batching.h"
#include "prim.h"

/* ---- abstract evaluation ---------------------------------------------- */

/* Axes of `a` that are neither batch nor contracting, in order. */
static int free_axes(const rt_aval *a, const prim_ivec *contract, const prim_ivec *batch,
                     int64_t *out) {
    int n = 0;
    for (int d = 0; d < a->rank; d++) {
        int used = 0;
        for (int i = 0; i < contract->n; i++) used |= contract->v[i] == d;
        for (int i = 0; i < batch->n; i++) used |= batch->v[i] == d;
        if (!used) out[n++] = d;
    }
    return n;
}

/* Every listed dimension in range for `a`, and none used twice across the
 * operand's contracting and batch lists. */
static int check_dims(struct cj_ctx *ctx, prim_id prim, const rt_aval *a, const char *side,
                      const prim_ivec *contract, const prim_ivec *batch) {
    char t[96];
    rt_aval_str(a, t, sizeof t);
    unsigned seen = 0;
    for (int pass = 0; pass < 2; pass++) {
        const prim_ivec *v = pass ? batch : contract;
        const char *kind = pass ? "batch" : "contracting";
        for (int i = 0; i < v->n; i++) {
            int64_t d = v->v[i];
            if (d < 0 || d >= a->rank)
                return prim_error(ctx, CJ_ERR_AXIS, prim, "%s %s dimension %lld is out of range for %s",
                                  side, kind, (long long)d, t);
            if (seen & (1u << d))
                return prim_error(ctx, CJ_ERR_AXIS, prim, "%s dimension %lld of %s is used more than once",
                                  side, (long long)d, t);
            seen |= 1u << d;
        }
    }
    return 0;
}

/* The paired dimensions must have equal sizes. */
static int check_pairs(struct cj_ctx *ctx, prim_id prim, const rt_aval *l, const rt_aval *r,
                       const prim_ivec *lv, const prim_ivec *rv, const char *kind) {
    for (int i = 0; i < lv->n; i++) {
        int64_t ls = l->dims[lv->v[i]], rs = r->dims[rv->v[i]];
        if (ls == rs) continue;
        char lt[96], rt[96];
        rt_aval_str(l, lt, sizeof lt);
        rt_aval_str(r, rt, sizeof rt);
        return prim_error(ctx, CJ_ERR_SHAPE, prim,
                          "%s dimension %lld of %s (size %lld) does not match dimension %lld of %s (size %lld)",
                          kind, (long long)lv->v[i], lt, (long long)ls, (long long)rv->v[i], rt,
                          (long long)rs);
    }
    return 0;
}

static int dot_abstract_eval(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in,
                             const rt_aval *in, rt_aval *out) {
    (void)n_in;
    const rt_aval *l = &in[0], *r = &in[1];
    char lt[96], rt[96];
    rt_aval_str(l, lt, sizeof lt);
    rt_aval_str(r, rt, sizeof rt);
    if (l->dtype != r->dtype)
        return prim_error(ctx, CJ_ERR_DTYPE, prim, "operand dtypes must be equal, got %s and %s", lt, rt);
    if (!rt_dtype_valid(p->dtype))
        return prim_error(ctx, CJ_ERR_DTYPE, prim, "preferred_element_type is not a dtype (%d) for %s and %s",
                          (int)p->dtype, lt, rt);
    if (p->dtype != l->dtype) {
        bool from_float = rt_is_float(l->dtype);
        bool ok = rt_dtypes[p->dtype].size >= rt_dtypes[l->dtype].size &&
                  (!from_float || rt_is_float(p->dtype));
        if (!ok)
            return prim_error(ctx, CJ_ERR_DTYPE, prim,
                              "preferred_element_type %s is not allowed for %s and %s (it takes the operand "
                              "dtype, or one at least as wide: a float for float operands)",
                              rt_dtypes[p->dtype].name, lt, rt);
    }
    const prim_ivec *lists[4] = {&p->lhs_contract, &p->rhs_contract, &p->lhs_batch, &p->rhs_batch};
    for (int i = 0; i < 4; i++)
        if (lists[i]->n < 0 || lists[i]->n > CJ_MAX_RANK)
            return prim_error(ctx, CJ_ERR_ARG, prim, "a dimension list has %d entries (0..%d allowed)",
                              lists[i]->n, CJ_MAX_RANK);
    if (p->lhs_contract.n != p->rhs_contract.n)
        return prim_error(ctx, CJ_ERR_ARG, prim, "%d lhs contracting dimensions but %d rhs ones",
                          p->lhs_contract.n, p->rhs_contract.n);
    if (p->lhs_batch.n != p->rhs_batch.n)
        return prim_error(ctx, CJ_ERR_ARG, prim, "%d lhs batch dimensions but %d rhs ones",
                          p->lhs_batch.n, p->rhs_batch.n);
    if (check_dims(ctx, prim, l, "lhs", &p->lhs_contract, &p->lhs_batch) != 0 ||
        check_dims(ctx, prim, r, "rhs", &p->rhs_contract, &p->rhs_batch) != 0 ||
        check_pairs(ctx, prim, l, r, &p->lhs_contract, &p->rhs_contract, "contracting") != 0 ||
        check_pairs(ctx, prim, l, r, &p->lhs_batch, &p->rhs_batch, "batch") != 0)
        return -1;

    int64_t lf[CJ_MAX_RANK], rf[CJ_MAX_RANK];
    int nlf = free_axes(l, &p->lhs_contract, &p->lhs_batch, lf);
    int nrf = free_axes(r, &p->rhs_contract, &p->rhs_batch, rf);
    int rank = p->lhs_batch.n + nlf + nrf;
    if (rank > CJ_MAX_RANK)
        return prim_error(ctx, CJ_ERR_SHAPE, prim, "result of %s and %s would have rank %d (at most %d)",
                          lt, rt, rank, CJ_MAX_RANK);
    out->dtype = p->dtype;
    out->weak = p->dtype == l->dtype && l->weak && r->weak;
    out->rank = 0;
    for (int i = 0; i < p->lhs_batch.n; i++) out->dims[out->rank++] = l->dims[p->lhs_batch.v[i]];
    for (int i = 0; i < nlf; i++) out->dims[out->rank++] = l->dims[lf[i]];
    for (int i = 0; i < nrf; i++) out->dims[out->rank++] = r->dims[rf[i]];
    return 0;
}

/* "[1, 2]" as JAX prints dimension lists. */
static size_t print_list(char *buf, size_t size, size_t at, const prim_ivec *v) {
    at += (size_t)snprintf(buf + (at < size ? at : size), at < size ? size - at : 0, "[");
    for (int i = 0; i < v->n; i++)
        at += (size_t)snprintf(buf + (at < size ? at : size), at < size ? size - at : 0, "%s%lld",
                               i ? ", " : "", (long long)v->v[i]);
    at += (size_t)snprintf(buf + (at < size ? at : size), at < size ? size - at : 0, "]");
    return at;
}

static int dot_print_params(const prim_params *p, char *buf, size_t size) {
    size_t at = (size_t)snprintf(buf, size, "dimension_numbers=((");
    at = print_list(buf, size, at, &p->lhs_contract);
    at += (size_t)snprintf(buf + (at < size ? at : size), at < size ? size - at : 0, ", ");
    at = print_list(buf, size, at, &p->rhs_contract);
    at += (size_t)snprintf(buf + (at < size ? at : size), at < size ? size - at : 0, "), (");
    at = print_list(buf, size, at, &p->lhs_batch);
    at += (size_t)snprintf(buf + (at < size ? at : size), at < size ? size - at : 0, ", ");
    at = print_list(buf, size, at, &p->rhs_batch);
    at += (size_t)snprintf(buf + (at < size ? at : size), at < size ? size - at : 0,
                           ")) precision=None preferred_element_type=%s",
                           rt_dtype_valid(p->dtype) ? rt_dtypes[p->dtype].name : "?");
    return (int)at;
}

/* ---- operand layout ---------------------------------------------------- */

/* One operand seen as a batch of matrices: element (b, i, j) is at
 * data + b*batch_stride + i*row_stride + j*col_stride (elements). The
 * stride of a dimension of size <= 1 is meaningless. */
typedef struct matrix_view {
    const char *data;
    int64_t batch, rows, cols;
    int64_t batch_stride, row_stride, col_stride;
} matrix_view;

/* Merges axes (in the given order) into one strided dimension. Returns 0
 * when they are not adjacent-in-order in memory. Size-1 axes do not count. */
static int merge_axes(const rt_aval *a, const int64_t *strides, const int64_t *axes, int n,
                      int64_t *size, int64_t *stride) {
    int64_t total = 1, prev = -1;
    int merged = 1;
    *stride = 0;
    for (int i = 0; i < n; i++) {
        int64_t d = axes[i];
        total *= a->dims[d];
        if (a->dims[d] == 1) continue;
        if (prev >= 0 && strides[prev] != strides[d] * a->dims[d]) merged = 0;
        prev = d;
        *stride = strides[d];
    }
    *size = total; /* set either way: a copied operand needs it too */
    return merged;
}

/* The view of an operand whose axes split into batch, row and column
 * groups; 0 when some group does not merge (the operand must be copied;
 * the group sizes are filled in either way). */
static int view_in_place(const rt_array *x, const int64_t *batch, int nb, const int64_t *rows,
                         int nr, const int64_t *cols, int nc, matrix_view *v) {
    int64_t strides[CJ_MAX_RANK];
    rt_strides(&x->aval, strides);
    v->data = x->data;
    int ok = merge_axes(&x->aval, strides, batch, nb, &v->batch, &v->batch_stride);
    ok &= merge_axes(&x->aval, strides, rows, nr, &v->rows, &v->row_stride);
    ok &= merge_axes(&x->aval, strides, cols, nc, &v->cols, &v->col_stride);
    return ok;
}

/* How a GEMM reads a matrix view: stored as is (trans 0, ld = row stride)
 * or as the transpose of a row-major matrix (trans 1, ld = column stride).
 * Returns 0 when neither works. */
static int gemm_layout(const matrix_view *v, int *trans, int64_t *ld) {
    int64_t rmin = v->rows > 1 ? v->rows : 1, cmin = v->cols > 1 ? v->cols : 1;
    if (v->cols <= 1 || v->col_stride == 1) {
        *trans = 0;
        *ld = v->rows <= 1 ? cmin : v->row_stride;
        if (*ld >= cmin) return 1;
    }
    if (v->rows <= 1 || v->row_stride == 1) {
        *trans = 1;
        *ld = v->cols <= 1 ? rmin : v->col_stride;
        if (*ld >= rmin) return 1;
    }
    return 0;
}

/* ---- permuted copy ------------------------------------------------------ */

/* Copies x into a dense buffer whose axes are x's axes in `order`. */
typedef struct permute_job {
    const char *src;
    char *dst;
    size_t esize;
    int rank;                      /* of the permuted view, >= 1 */
    int64_t dims[CJ_MAX_RANK];     /* permuted shape */
    int64_t src_stride[CJ_MAX_RANK]; /* src element stride of each permuted axis */
} permute_job;

/* Rows of the permuted view are its innermost axis; [begin, end) are rows. */
static void permute_rows(void *arg, int64_t begin, int64_t end) {
    const permute_job *j = arg;
    int outer = j->rank - 1;
    int64_t inner = j->dims[outer], sstep = j->src_stride[outer];
    int64_t idx[CJ_MAX_RANK] = {0};
    int64_t rem = begin, src_off = 0;
    for (int d = outer - 1; d >= 0; d--) {
        idx[d] = rem % j->dims[d];
        rem /= j->dims[d];
        src_off += idx[d] * j->src_stride[d];
    }
    for (int64_t row = begin; row < end; row++) {
        char *dst = j->dst + (size_t)(row * inner) * j->esize;
        switch (j->esize) {
        case 2: {
            const uint16_t *s = (const uint16_t *)j->src + src_off;
            uint16_t *d = (uint16_t *)dst;
            for (int64_t i = 0; i < inner; i++) d[i] = s[i * sstep];
            break;
        }
        case 8: {
            const uint64_t *s = (const uint64_t *)j->src + src_off;
            uint64_t *d = (uint64_t *)dst;
            for (int64_t i = 0; i < inner; i++) d[i] = s[i * sstep];
            break;
        }
        case 4: {
            const uint32_t *s = (const uint32_t *)j->src + src_off;
            uint32_t *d = (uint32_t *)dst;
            for (int64_t i = 0; i < inner; i++) d[i] = s[i * sstep];
            break;
        }
        default: {
            const uint8_t *s = (const uint8_t *)j->src + src_off;
            uint8_t *d = (uint8_t *)dst;
            for (int64_t i = 0; i < inner; i++) d[i] = s[i * sstep];
            break;
        }
        }
        /* odometer over the outer axes */
        for (int d = outer - 1; d >= 0; d--) {
            src_off += j->src_stride[d];
            if (++idx[d] < j->dims[d]) break;
            src_off -= idx[d] * j->src_stride[d];
            idx[d] = 0;
        }
    }
}

static void permute_copy(const rt_array *x, const int64_t *order, void *dst) {
    permute_job j;
    int64_t strides[CJ_MAX_RANK];
    rt_strides(&x->aval, strides);
    j.src = x->data;
    j.dst = dst;
    j.esize = rt_dtypes[x->aval.dtype].size;
    j.rank = 0;
    for (int i = 0; i < x->aval.rank; i++) {
        if (x->aval.dims[order[i]] == 1) continue; /* size-1 axes move nothing */
        j.dims[j.rank] = x->aval.dims[order[i]];
        j.src_stride[j.rank++] = strides[order[i]];
    }
    if (j.rank == 0) { /* a single element */
        j.dims[0] = 1;
        j.src_stride[0] = 1;
        j.rank = 1;
    }
    int64_t rows = x->size / j.dims[j.rank - 1];
    int64_t grain = RT_PARALLEL_MIN_ELEMS / j.dims[j.rank - 1] + 1;
    if (x->size >= RT_PARALLEL_MIN_ELEMS && rows > 1) rt_parallel_for(rows, grain, permute_rows, &j);
    else permute_rows(&j, 0, rows);
}

/* ---- kernels ------------------------------------------------------------ */

typedef struct dot_job {
    cj_dtype dtype;     /* the operands' */
    cj_dtype out_dtype; /* the result's (differs: bf16/f16 → f32, i8..u16 → 32 bits) */
    matrix_view a, b; /* a: [B, M, K]; b: [B, K, N] */
    int64_t M, N, K;
    char *c;          /* [B, M, N], dense; f32 sums for bf16/f16 operands */
} dot_job;

/* Every float product of the batch in one call: the runtime spreads a
 * batch of small products over the pool (a few rows each, thousands of
 * them) and picks each product's kernel once. */
static void float_products(const dot_job *j, int64_t B) {
    int ta = 0, tb = 0;
    int64_t lda = 1, ldb = 1;
    gemm_layout(&j->a, &ta, &lda); /* checked by operand_view */
    gemm_layout(&j->b, &tb, &ldb);
    if (j->dtype == CJ_BF16 || j->dtype == CJ_F16)
        rt_gemm_batch_half(j->dtype == CJ_BF16, B, j->M, j->N, j->K, (const uint16_t *)j->a.data,
                           j->a.batch_stride, lda, ta, (const uint16_t *)j->b.data, j->b.batch_stride, ldb, tb,
                           (float *)j->c, j->M * j->N, j->N, 0);
    else if (j->dtype == CJ_F32)
        rt_gemm_batch_f32(B, j->M, j->N, j->K, (const float *)j->a.data, j->a.batch_stride, lda, ta,
                          (const float *)j->b.data, j->b.batch_stride, ldb, tb, (float *)j->c, j->M * j->N,
                          j->N, 0);
    else
        rt_gemm_batch_f64(B, j->M, j->N, j->K, (const double *)j->a.data, j->a.batch_stride, lda, ta,
                          (const double *)j->b.data, j->b.batch_stride, ldb, tb, (double *)j->c,
                          j->M * j->N, j->N, 0);
}

/* Integer and bool products: rows of the result are [begin, end) of the
 * B·M rows. Blocked over k and n so a block of b stays in cache while the
 * rows of the range stream past it. Unsigned arithmetic wraps as XLA's
 * integer dot does (signed overflow would be undefined in C). */
enum { INT_KB = 64, INT_NB = 1024 };

#define DEFINE_INT_ROWS(name, T, U, ACC)                                                      \
    static void name(void *arg, int64_t begin, int64_t end) {                                \
        const dot_job *j = arg;                                                               \
        const T *A = (const T *)j->a.data, *Bm = (const T *)j->b.data;                        \
        U *C = (U *)j->c;                                                                     \
        for (int64_t r = begin; r < end; r++)                                                 \
            for (int64_t n = 0; n < j->N; n++) C[r * j->N + n] = 0;                           \
        for (int64_t k0 = 0; k0 < j->K; k0 += INT_KB) {                                       \
            int64_t k1 = k0 + INT_KB < j->K ? k0 + INT_KB : j->K;                             \
            for (int64_t n0 = 0; n0 < j->N; n0 += INT_NB) {                                   \
                int64_t n1 = n0 + INT_NB < j->N ? n0 + INT_NB : j->N;                         \
                for (int64_t r = begin; r < end; r++) {                                       \
                    int64_t bi = r / j->M, m = r % j->M;                                      \
                    const T *arow = A + bi * j->a.batch_stride + m * j->a.row_stride;         \
                    const T *bmat = Bm + bi * j->b.batch_stride;                              \
                    U *crow = C + r * j->N;                                                   \
                    for (int64_t k = k0; k < k1; k++) {                                       \
                        ACC av = (U)arow[k * j->a.col_stride];                                \
                        const T *brow = bmat + k * j->b.row_stride;                           \
                        for (int64_t n = n0; n < n1; n++)                                     \
                            crow[n] = (U)((ACC)crow[n] + av * (ACC)(U)brow[n]);               \
                    }                                                                         \
                }                                                                             \
            }                                                                                 \
        }                                                                                     \
    }

/* One kernel per width: signed and unsigned products wrap to the same
 * bits. ACC is at least unsigned int, so no narrow product is promoted to
 * a signed int that could overflow. */
DEFINE_INT_ROWS(int_rows_8, uint8_t, uint8_t, unsigned)
DEFINE_INT_ROWS(int_rows_16, uint16_t, uint16_t, unsigned)
DEFINE_INT_ROWS(int_rows_32, uint32_t, uint32_t, uint32_t)
DEFINE_INT_ROWS(int_rows_64, uint64_t, uint64_t, uint64_t)
/* i8/u8/i16/u16 operands with a 32-bit preferred_element_type: read narrow,
 * summed in 32 bits (each operand widened as lax converts it: sign- or
 * zero-extended), so rhs streams at its own width and nothing is copied. */
DEFINE_INT_ROWS(int_rows_i8_32, int8_t, uint32_t, uint32_t)
DEFINE_INT_ROWS(int_rows_u8_32, uint8_t, uint32_t, uint32_t)
DEFINE_INT_ROWS(int_rows_i16_32, int16_t, uint32_t, uint32_t)
DEFINE_INT_ROWS(int_rows_u16_32, uint16_t, uint32_t, uint32_t)

/* The kernel reading in_dt operands into out_dt sums, NULL when dot_impl
 * converts the operands first. */
static rt_range_fn widening_int_rows(cj_dtype in_dt, cj_dtype out_dt) {
    if (out_dt != CJ_I32 && out_dt != CJ_U32) return NULL;
    switch (in_dt) {
    case CJ_I8: return int_rows_i8_32;
    case CJ_U8: return int_rows_u8_32;
    case CJ_I16: return int_rows_i16_32;
    case CJ_U16: return int_rows_u16_32;
    default: return NULL;
    }
}

static void bool_rows(void *arg, int64_t begin, int64_t end) {
    const dot_job *j = arg;
    const uint8_t *A = (const uint8_t *)j->a.data, *Bm = (const uint8_t *)j->b.data;
    uint8_t *C = (uint8_t *)j->c;
    for (int64_t r = begin; r < end; r++) {
        int64_t bi = r / j->M, m = r % j->M;
        const uint8_t *arow = A + bi * j->a.batch_stride + m * j->a.row_stride;
        const uint8_t *bmat = Bm + bi * j->b.batch_stride;
        uint8_t *crow = C + r * j->N;
        memset(crow, 0, (size_t)j->N);
        for (int64_t k = 0; k < j->K; k++) {
            if (!arow[k * j->a.col_stride]) continue;
            const uint8_t *brow = bmat + k * j->b.row_stride;
            for (int64_t n = 0; n < j->N; n++) crow[n] |= brow[n] != 0;
        }
    }
}

/* ---- impl ---------------------------------------------------------------- */

/* A permuted copy made for one operand (freed after the product). */
typedef struct scratch {
    void *data;
    size_t cap;
} scratch;

/* Sets up the view of one operand, copying it into [batch, rows, cols]
 * order when it cannot be read in place. For the integer kernel the
 * columns of rhs must be contiguous (`need_unit_cols`). */
static int operand_view(struct cj_ctx *ctx, prim_id prim, const rt_array *x, const int64_t *batch,
                        int nb, const int64_t *rows, int nr, const int64_t *cols, int nc,
                        int gemm, int need_unit_cols, matrix_view *v, scratch *s) {
    int ok = view_in_place(x, batch, nb, rows, nr, cols, nc, v);
    if (ok && gemm) {
        int t;
        int64_t ld;
        ok = gemm_layout(v, &t, &ld);
    }
    if (ok && need_unit_cols) ok = v->cols <= 1 || v->col_stride == 1;
    if (ok) return 0;

    int64_t order[CJ_MAX_RANK];
    int n = 0;
    for (int i = 0; i < nb; i++) order[n++] = batch[i];
    for (int i = 0; i < nr; i++) order[n++] = rows[i];
    for (int i = 0; i < nc; i++) order[n++] = cols[i];
    s->data = rt_data_alloc(x->mem, rt_aval_nbytes(&x->aval), &s->cap);
    if (!s->data) {
        char t[96];
        rt_aval_str(&x->aval, t, sizeof t);
        return prim_error(ctx, CJ_ERR_OOM, prim, "out of memory rearranging the operand %s", t);
    }
    permute_copy(x, order, s->data);
    v->data = s->data;
    v->batch_stride = v->rows * v->cols;
    v->row_stride = v->cols;
    v->col_stride = 1;
    return 0;
}

static void run_products(dot_job *j, int64_t B) {
    int64_t flops = j->M * j->N * j->K;
    if (rt_is_float(j->dtype)) {
        float_products(j, B);
        return;
    }
    rt_range_fn rows = bool_rows;
    if (j->out_dtype != j->dtype) rows = widening_int_rows(j->dtype, j->out_dtype);
    else if (j->dtype != CJ_BOOL) switch (rt_dtypes[j->dtype].size) {
        case 1: rows = int_rows_8; break;
        case 2: rows = int_rows_16; break;
        case 4: rows = int_rows_32; break;
        default: rows = int_rows_64; break;
        }
    int64_t n_rows = B * j->M;
    if (B * flops >= RT_PARALLEL_MIN_ELEMS && n_rows > 1)
        rt_parallel_for(n_rows, 1 + RT_PARALLEL_MIN_ELEMS / (j->N * j->K + 1), rows, j);
    else rows(j, 0, n_rows);
}

static int dot_impl(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in,
                    rt_array *const *in, rt_array *out);

/* preferred_element_type other than the operands' (bf16/f16 → f32 aside):
 * both operands converted to the result's dtype, then the product in it. */
static int dot_converted(struct cj_ctx *ctx, prim_id prim, const prim_params *p, rt_array *const *in,
                         rt_array *out) {
    cj_dtype to = out->aval.dtype;
    rt_array conv[2];
    size_t cap[2] = {0, 0};
    int rc = 0;
    for (int i = 0; i < 2; i++) {
        memset(&conv[i], 0, sizeof conv[i]);
        conv[i].refcount = 1;
        conv[i].mem = in[i]->mem;
        conv[i].aval = in[i]->aval;
        conv[i].aval.dtype = to;
        conv[i].size = in[i]->size;
        conv[i].data = rt_data_alloc(in[i]->mem, rt_aval_nbytes(&conv[i].aval), &cap[i]);
        if (!conv[i].data) {
            char t[96];
            rt_aval_str(&in[i]->aval, t, sizeof t);
            rc = prim_error(ctx, CJ_ERR_OOM, prim, "out of memory converting the operand %s to %s", t,
                            rt_dtypes[to].name);
            break;
        }
        rt_convert(in[i]->aval.dtype, in[i]->data, to, conv[i].data, in[i]->size);
    }
    if (rc == 0) {
        rt_array *args[2] = {&conv[0], &conv[1]};
        rc = dot_impl(ctx, prim, p, 2, args, out);
    }
    for (int i = 0; i < 2; i++)
        if (conv[i].data) rt_data_free(conv[i].mem, conv[i].data, cap[i]);
    return rc;
}

static int dot_impl(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in,
                    rt_array *const *in, rt_array *out) {
    (void)n_in;
    const rt_array *l = in[0], *r = in[1];
    if (out->size == 0) return 0;
    cj_dtype in_dt = l->aval.dtype, out_dt = out->aval.dtype;
    bool half = in_dt == CJ_BF16 || in_dt == CJ_F16;
    if (in_dt != out_dt && !(half && out_dt == CJ_F32) && !widening_int_rows(in_dt, out_dt))
        return dot_converted(ctx, prim, p, in, out);
    int64_t lf[CJ_MAX_RANK], rf[CJ_MAX_RANK];
    int nlf = free_axes(&l->aval, &p->lhs_contract, &p->lhs_batch, lf);
    int nrf = free_axes(&r->aval, &p->rhs_contract, &p->rhs_batch, rf);
    int nb = p->lhs_batch.n, nc = p->lhs_contract.n;

    dot_job j;
    memset(&j, 0, sizeof j);
    j.dtype = in_dt;
    j.out_dtype = out_dt;
    j.c = out->data;
    int64_t B = 1;
    for (int i = 0; i < nb; i++) B *= l->aval.dims[p->lhs_batch.v[i]];
    j.M = 1;
    for (int i = 0; i < nlf; i++) j.M *= l->aval.dims[lf[i]];
    j.N = 1;
    for (int i = 0; i < nrf; i++) j.N *= r->aval.dims[rf[i]];
    j.K = 1;
    for (int i = 0; i < nc; i++) j.K *= l->aval.dims[p->lhs_contract.v[i]];
    if (j.K == 0) { /* an empty sum: zeros (all-zero bytes in every dtype) */
        memset(out->data, 0, rt_aval_nbytes(&out->aval));
        return 0;
    }

    int gemm = rt_is_float(j.dtype);
    scratch sl = {NULL, 0}, sr = {NULL, 0}, sc = {NULL, 0};
    int rc = 0;
    if (half && out_dt != CJ_F32) { /* f32 sums first, rounded once below */
        sc.data = rt_data_alloc(out->mem, (size_t)out->size * sizeof(float), &sc.cap);
        if (!sc.data) {
            char t[96];
            rt_aval_str(&out->aval, t, sizeof t);
            return prim_error(ctx, CJ_ERR_OOM, prim, "out of memory for the f32 sums of %s", t);
        }
        j.c = sc.data;
    }
    rc = operand_view(ctx, prim, l, p->lhs_batch.v, nb, lf, nlf, p->lhs_contract.v, nc, gemm, 0,
                          &j.a, &sl);
    if (rc == 0)
        rc = operand_view(ctx, prim, r, p->rhs_batch.v, nb, p->rhs_contract.v, nc, rf, nrf, gemm, !gemm,
                          &j.b, &sr);
    if (rc == 0) run_products(&j, B);
    if (rc == 0 && sc.data) rt_convert(CJ_F32, sc.data, out_dt, out->data, out->size);
    if (sl.data) rt_data_free(l->mem, sl.data, sl.cap);
    if (sr.data) rt_data_free(r->mem, sr.data, sr.cap);
    if (sc.data) rt_data_free(out->mem, sc.data, sc.cap);
    return rc;
}

/* ---- vmap rule: a batched operand's batch axis becomes a batch dimension
 * of the contraction when both are batched (no loop over the batch), and a
 * free dimension when only one is. */
static bool in_ivec(const prim_ivec *v, int64_t a) {
    for (int i = 0; i < v->n; i++)
        if (v->v[i] == a) return true;
    return false;
}

static void shift_ivec(prim_ivec *v, int64_t bdim) {
    for (int i = 0; i < v->n; i++) v->v[i] = batch_axis(v->v[i], bdim);
}

/* Position of free axis `a` among an operand's free axes. */
static int free_index(const prim_ivec *contract, const prim_ivec *batch, int64_t a) {
    int k = 0;
    for (int64_t d = 0; d < a; d++)
        if (!in_ivec(contract, d) && !in_ivec(batch, d)) k++;
    return k;
}

static int batch_dot(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                     const int64_t *bdim, int64_t size, cj_val *out, int64_t *out_bdim) {
    (void)n_in, (void)size;
    prim_params q = *p;
    int64_t lb = bdim[0], rb = bdim[1];
    const rt_aval *la = &core_peek(in[0])->aval, *ra = &core_peek(in[1])->aval;
    /* (not for the narrow dtypes, whose dot rounds once where a multiply
     * and a sum would round twice, nor with a preferred_element_type) */
    if (lb != BDIM_NONE && rb != BDIM_NONE && la->rank == 2 && ra->rank == 2 && p->lhs_contract.n == 1 &&
        la->dtype != CJ_BOOL && !rt_dtype_is_extra(la->dtype) && p->dtype == la->dtype) {
        /* per-example vector · vector: a batch of tiny products is better as
         * one multiply and a row sum, which fuse into a single pass */
        cj_val a = batch_to(in[0], lb, size, 0), b = batch_to(in[1], rb, size, 0);
        prim_params none = prim_params_zero(), rows = prim_params_zero();
        cj_val ab[2] = {a, b};
        cj_val prod = core_bind(ctx, PRIM_MUL, &none, 2, ab);
        rows.axes.n = 1;
        rows.axes.v[0] = 1;
        *out = core_bind(ctx, PRIM_REDUCE_SUM, &rows, 1, &prod);
        *out_bdim = 0;
        return out->slot ? 0 : -1;
    }
    shift_ivec(&q.lhs_contract, lb);
    shift_ivec(&q.lhs_batch, lb);
    shift_ivec(&q.rhs_contract, rb);
    shift_ivec(&q.rhs_batch, rb);
    if (lb != BDIM_NONE && rb != BDIM_NONE) {
        for (int i = q.lhs_batch.n; i > 0; i--) {
            q.lhs_batch.v[i] = q.lhs_batch.v[i - 1];
            q.rhs_batch.v[i] = q.rhs_batch.v[i - 1];
        }
        q.lhs_batch.v[0] = lb;
        q.rhs_batch.v[0] = rb;
        q.lhs_batch.n++;
        q.rhs_batch.n++;
        *out_bdim = 0;
    } else if (lb != BDIM_NONE) {
        *out_bdim = q.lhs_batch.n + free_index(&q.lhs_contract, &q.lhs_batch, lb);
    } else {
        const rt_aval *l = &core_peek(in[0])->aval;
        int lhs_free = l->rank - q.lhs_contract.n - q.lhs_batch.n;
        *out_bdim = q.rhs_batch.n + lhs_free + free_index(&q.rhs_contract, &q.rhs_batch, rb);
    }
    *out = core_bind(ctx, prim, &q, 2, in);
    return out->slot ? 0 : -1;
}

/* cost_analysis: a multiply and an add per product term, 2·K per result
 * element for K the product of the contracted sizes. */
static double dot_flops(const prim_params *p, const rt_aval *in, const rt_aval *out) {
    double k = 1;
    for (int i = 0; i < p->lhs_contract.n; i++) k *= (double)in[0].dims[p->lhs_contract.v[i]];
    return 2.0 * k * (double)rt_aval_size(out);
}

void prim_register_dot(void) {
    prim_rules[PRIM_DOT_GENERAL] = (prim_rule){
        .abstract_eval = dot_abstract_eval,
        .impl = dot_impl,
        .print_params = dot_print_params,
        .lower = {.kind = LOWER_DOT, .cost = {.flops_of = dot_flops}},
        .batch = batch_dot,
        .extra_dtypes = true, /* every dtype: dot_abstract_eval checks */
    };
}
