/* sort.c — the sort and top_k primitives (prim layer, family SORT).
 *
 * sort(x0, ..., x_{m-1})[dimension, is_stable, num_keys], as lax.sort_p:
 * every operand has one shape; all of them are reordered along
 * `dimension` by one permutation, the stable lexicographic order of the
 * first num_keys operands (lax.sort's comparator: -0.0 equals 0.0 and NaNs
 * sort last, see sort_kernels.h). One result per operand. The kernel is
 * always stable, which an unstable sort is allowed to be.
 *
 * top_k(x)[k], as lax.top_k_p: along the last axis, the k largest values,
 * largest first, in the IEEE total order (NaN above +inf, 0.0 above -0.0),
 * ties to the lower index; results the values and their i32 indices.
 *
 * Every dtype sorts (the 13 of rt_dtypes; f16 and bf16 by their own bits,
 * ordered as floats, so nothing is widened).
 *
 * Both run on whole buffers (LOWER_OPAQUE: the compiler gives each its own
 * SINGLE kernel, and both backends call the kernel below), rows in
 * parallel. vmap moves every batch axis to the front; the jvp rules
 * (src/autodiff/rules_sort.c) gather the tangents by the permutation. */
#include <stdio.h>
#include <string.h>

#include "../runtime/threads.h"
#include "batching.h"
#include "prim.h"
#include "sort_kernels.h"

/* ---- shape rules ----------------------------------------------------------- */

static int sort_abstract_eval(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const rt_aval *in,
                              int *n_out, rt_aval *out) {
    char a[96], b[96];
    if (n_in < 1) return prim_error(ctx, CJ_ERR_ARG, prim, "needs at least one operand");
    if (p->count < 1 || p->count > n_in)
        return prim_error(ctx, CJ_ERR_ARG, prim, "num_keys must be in [1, %d] (the number of operands), got %lld",
                          n_in, (long long)p->count);
    if (p->flag != 0 && p->flag != 1)
        return prim_error(ctx, CJ_ERR_ARG, prim, "is_stable must be 0 or 1, got %d", p->flag);
    for (int i = 1; i < n_in; i++)
        if (!rt_aval_same_shape(&in[0], &in[i])) {
            rt_aval_str(&in[0], a, sizeof a);
            rt_aval_str(&in[i], b, sizeof b);
            return prim_error(ctx, CJ_ERR_SHAPE, prim, "operands must have one shape: operand 0 is %s, operand %d is %s",
                              a, i, b);
        }
    rt_aval_str(&in[0], a, sizeof a);
    if (p->axes.n != 1 || p->axes.v[0] < 0 || p->axes.v[0] >= in[0].rank)
        return prim_error(ctx, CJ_ERR_AXIS, prim, "dimension %lld is out of range for operand %s",
                          (long long)(p->axes.n ? p->axes.v[0] : -1), a);
    if (in[0].dims[p->axes.v[0]] > (int64_t)UINT32_MAX)
        return prim_error(ctx, CJ_ERR_UNSUPPORTED, prim, "operand %s: more than 2^32 - 1 elements along dimension %lld",
                          a, (long long)p->axes.v[0]);
    *n_out = n_in;
    for (int i = 0; i < n_in; i++) out[i] = in[i];
    return 0;
}

static int top_k_abstract_eval(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const rt_aval *in,
                               int *n_out, rt_aval *out) {
    (void)n_in;
    char a[96];
    rt_aval_str(&in[0], a, sizeof a);
    if (in[0].rank < 1) return prim_error(ctx, CJ_ERR_SHAPE, prim, "operand must have rank >= 1, got %s", a);
    int64_t n = in[0].dims[in[0].rank - 1];
    if (p->count < 0 || p->count > n)
        return prim_error(ctx, CJ_ERR_ARG, prim, "k must be in [0, %lld] (the last axis of %s), got %lld",
                          (long long)n, a, (long long)p->count);
    if (n > (int64_t)INT32_MAX)
        return prim_error(ctx, CJ_ERR_UNSUPPORTED, prim, "operand %s: more than 2^31 - 1 elements along the last axis", a);
    *n_out = 2;
    out[0] = in[0];
    out[0].dims[in[0].rank - 1] = p->count;
    out[1] = out[0];
    out[1].dtype = CJ_I32;
    out[1].weak = 0;
    return 0;
}

/* ---- eager kernels: rows in parallel ----------------------------------------
 * Row r of a sort along an axis of size n with `inner` elements after it
 * starts at (r / inner) * n * inner + r % inner and steps by inner. The
 * rows are split into one chunk per thread, each with its own scratch. */

typedef struct sort_job {
    bool top_k;
    int n_ops, n_keys;
    rt_array *const *in;
    rt_array *const *out;
    int64_t n, inner, rows, k;
    int64_t per_chunk;
    char *scratch;
    size_t scratch_each;
} sort_job;

/* The scratch one row needs (bytes): one narrow key's 2n packed words;
 * else the keys (a row per key operand), the permutation and the merge
 * buffer; top_k's keys, 2n words and its k indices. */
static size_t row_scratch(const sort_job *j) {
    size_t n = (size_t)j->n;
    if (j->top_k) return 3 * n * 8 + (size_t)j->k * 4 + 64;
    if (j->n_keys == 1 && sort_key_bits(j->in[0]->aval.dtype) == 32) return 2 * n * 8 + 64;
    return (size_t)j->n_keys * n * 8 + 2 * n * 4 + 64;
}

static void sort_one_row(const sort_job *j, int64_t r, char *scratch) {
    int64_t n = j->n, inner = j->inner;
    int64_t base = (r / inner) * n * inner + r % inner;
    const rt_array *k0 = j->in[0];
    if (j->n_ops == 1 && sort_key_bits(k0->aval.dtype) == 32) {
        size_t es = cj_dtype_size(k0->aval.dtype);
        if (sort_row_keys_only(k0->aval.dtype, (const char *)k0->data + (size_t)base * es,
                               (char *)j->out[0]->data + (size_t)base * es, inner, n, (uint32_t *)scratch))
            return;
    }
    if (j->n_keys == 1 && sort_key_bits(k0->aval.dtype) == 32) {
        /* one narrow key: packed words, the permutation in their low bits */
        size_t es = cj_dtype_size(k0->aval.dtype);
        const char *x0 = (const char *)k0->data + (size_t)base * es;
        bool rebuild = sort_row_one_to_one(k0->aval.dtype, x0, inner, n);
        const uint64_t *packed = sort_row_packed(k0->aval.dtype, false, x0, inner, n, (uint64_t *)scratch);
        /* the key itself from its sorted keys (sequential), the others gathered */
        if (rebuild) sort_row_unkey_packed(k0->aval.dtype, packed, n, (char *)j->out[0]->data + (size_t)base * es, inner);
        for (int i = rebuild ? 1 : 0; i < j->n_ops; i++) {
            size_t s = cj_dtype_size(j->in[i]->aval.dtype);
            sort_row_permute_packed(s, (const char *)j->in[i]->data + (size_t)base * s,
                                    (char *)j->out[i]->data + (size_t)base * s, inner, n, packed);
        }
        return;
    }
    uint64_t *keys = (uint64_t *)scratch;
    uint32_t *perm = (uint32_t *)(keys + (size_t)j->n_keys * (size_t)n), *tmp = perm + n;
    const uint64_t *rows[PRIM_MAX_OPERANDS];
    for (int k = 0; k < j->n_keys; k++) {
        const rt_array *x = j->in[k];
        size_t es = cj_dtype_size(x->aval.dtype);
        sort_row_keys(x->aval.dtype, false, (const char *)x->data + (size_t)base * es, inner, n,
                      keys + (size_t)k * (size_t)n);
        rows[k] = keys + (size_t)k * (size_t)n;
    }
    sort_row_lex(rows, j->n_keys, n, tmp, perm);
    for (int i = 0; i < j->n_ops; i++) {
        size_t es = cj_dtype_size(j->in[i]->aval.dtype);
        sort_row_permute(es, (const char *)j->in[i]->data + (size_t)base * es,
                         (char *)j->out[i]->data + (size_t)base * es, inner, n, perm);
    }
}

static void top_k_one_row(const sort_job *j, int64_t r, char *scratch) {
    const rt_array *x = j->in[0];
    cj_dtype dt = x->aval.dtype;
    size_t es = cj_dtype_size(dt);
    int64_t n = j->n, k = j->k;
    uint64_t *keys = (uint64_t *)scratch;
    uint64_t *work = keys + n;
    uint32_t *first = (uint32_t *)(work + 2 * (size_t)n);
    int bits = sort_key_bits(dt);
    sort_row_keys(dt, true, (const char *)x->data + (size_t)(r * n) * es, 1, n, keys);
    /* complemented within the key's width: the largest first */
    uint64_t flip = bits == 32 ? 0xFFFFFFFFull : ~0ull;
    for (int64_t i = 0; i < n; i++) keys[i] ^= flip;
    sort_row_first_k(keys, bits, n, k, work, first);
    const char *xr = (const char *)x->data + (size_t)(r * n) * es;
    char *vr = (char *)j->out[0]->data + (size_t)(r * k) * es;
    int32_t *ir = (int32_t *)j->out[1]->data + r * k;
    for (int64_t i = 0; i < k; i++) {
        memcpy(vr + (size_t)i * es, xr + (size_t)first[i] * es, es);
        ir[i] = (int32_t)first[i];
    }
}

static void run_chunks(void *arg, int64_t begin, int64_t end) {
    const sort_job *j = arg;
    for (int64_t c = begin; c < end; c++) {
        char *scratch = j->scratch + (size_t)c * j->scratch_each;
        int64_t lo = c * j->per_chunk, hi = lo + j->per_chunk < j->rows ? lo + j->per_chunk : j->rows;
        for (int64_t r = lo; r < hi; r++) {
            if (j->top_k) top_k_one_row(j, r, scratch);
            else sort_one_row(j, r, scratch);
        }
    }
}

static int run_job(struct cj_ctx *ctx, prim_id prim, sort_job *j) {
    if (j->rows == 0 || j->n == 0) return 0;
    int64_t total = j->rows * j->n;
    int64_t chunks = total < RT_PARALLEL_MIN_ELEMS ? 1 : rt_num_threads();
    if (chunks > j->rows) chunks = j->rows;
    j->per_chunk = (j->rows + chunks - 1) / chunks;
    j->scratch_each = (row_scratch(j) + 63) / 64 * 64;
    size_t cap, bytes = j->scratch_each * (size_t)chunks;
    j->scratch = rt_data_alloc(ctx->mem, bytes, &cap);
    if (!j->scratch) return prim_error(ctx, CJ_ERR_OOM, prim, "out of memory for sort scratch (%zu bytes)", bytes);
    if (chunks == 1) run_chunks(j, 0, 1);
    else rt_parallel_for(chunks, 1, run_chunks, j);
    rt_data_free(ctx->mem, j->scratch, cap);
    return 0;
}

static int sort_impl(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, rt_array *const *in, int n_out,
                     rt_array *const *out) {
    (void)n_out;
    const rt_aval *a = &in[0]->aval;
    int64_t axis = p->axes.v[0], inner = 1;
    for (int d = (int)axis + 1; d < a->rank; d++) inner *= a->dims[d];
    sort_job j = {.n_ops = n_in, .n_keys = (int)p->count, .in = in, .out = out, .n = a->dims[axis], .inner = inner};
    j.rows = j.n ? rt_aval_size(a) / j.n : 0;
    return run_job(ctx, prim, &j);
}

static int top_k_impl(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, rt_array *const *in,
                      int n_out, rt_array *const *out) {
    (void)n_in, (void)n_out;
    const rt_aval *a = &in[0]->aval;
    sort_job j = {.top_k = true, .n_ops = 1, .n_keys = 1, .in = in, .out = out, .n = a->dims[a->rank - 1],
                  .inner = 1, .k = p->count};
    j.rows = j.n ? rt_aval_size(a) / j.n : 0;
    if (j.k == 0) return 0;
    return run_job(ctx, prim, &j);
}

/* ---- printing ----------------------------------------------------------------- */

static int sort_print(const prim_params *p, char *buf, size_t size) {
    return snprintf(buf, size, "dimension=%lld is_stable=%s num_keys=%lld", (long long)p->axes.v[0],
                    p->flag ? "True" : "False", (long long)p->count);
}

static int top_k_print(const prim_params *p, char *buf, size_t size) {
    return snprintf(buf, size, "k=%lld", (long long)p->count);
}

/* ---- vmap: every operand's batch axis to the front ------------------------------ */

static int sort_batch(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                      const int64_t *bdim, int64_t size, int n_out, cj_val *out, int64_t *out_bdim) {
    cj_val args[PRIM_MAX_OPERANDS];
    for (int i = 0; i < n_in; i++) {
        args[i] = batch_to(in[i], bdim[i], size, 0);
        if (!args[i].slot) return -1;
    }
    prim_params q = *p;
    q.axes.v[0] = p->axes.v[0] + 1;
    for (int i = 0; i < n_out; i++) out_bdim[i] = 0;
    return core_bind_multi(ctx, prim, &q, n_in, args, n_out, out);
}

static int top_k_batch(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                       const int64_t *bdim, int64_t size, int n_out, cj_val *out, int64_t *out_bdim) {
    (void)n_in;
    const core_value *v = core_peek(in[0]);
    if (!v) return -1;
    if (v->aval.rank < 2) { /* the example is a scalar: no last axis of its own */
        rt_aval ex = v->aval;
        ex.rank = 0;
        char a[96];
        rt_aval_str(&ex, a, sizeof a);
        return prim_error(ctx, CJ_ERR_SHAPE, prim, "operand must have rank >= 1, got %s (vmap over %lld)", a,
                          (long long)size);
    }
    cj_val x = batch_to(in[0], bdim[0], size, 0);
    if (!x.slot) return -1;
    out_bdim[0] = out_bdim[1] = 0;
    return core_bind_multi(ctx, prim, p, 1, &x, n_out, out);
}

void prim_register_sort(void) {
    /* a sort costs about log2(n) comparisons per element; the cost
     * analysis counts one per element, as it does for a gather */
    prim_rules[PRIM_SORT] = (prim_rule){
        .multiple_results = 1,
        .abstract_eval_multi = sort_abstract_eval,
        .impl_multi = sort_impl,
        .print_params = sort_print,
        .batch_multi = sort_batch,
        .lower = {.kind = LOWER_OPAQUE, .cost = PRIM_COST_FOLD},
        .extra_dtypes = true, /* every dtype has keys (sort_kernels.c) */
    };
    prim_rules[PRIM_TOP_K] = (prim_rule){
        .multiple_results = 1,
        .abstract_eval_multi = top_k_abstract_eval,
        .impl_multi = top_k_impl,
        .print_params = top_k_print,
        .batch_multi = top_k_batch,
        .lower = {.kind = LOWER_OPAQUE, .cost = PRIM_COST_FOLD},
        .extra_dtypes = true,
    };
}
