/* test_dot.c — tests for the dot_general primitive (src/prim/dot.c) and
 * cj_dot_general / cj_matmul (src/api/linalg.c).
 *
 * Every product is checked against ref_dot, a naive loop over output and
 * contraction multi-indices written here in long double, straight from
 * lax.dot_general's definition (output axes: batch, lhs free, rhs free).
 * Shapes are chosen to reach each way the kernel reads its operands: in
 * place, transposed in place (x·Wᵀ, Aᵀ·B), through a permuted copy
 * (contracting axes out of order, batch axes in the middle), many small
 * batches (threaded over batches) and a big product (threaded GEMM). */
#include <stdarg.h>
#include <stdlib.h>

#include "../src/core/func.h"
#include "harness.h"
#include "test_util.h"

/* ---- reference ---------------------------------------------------------- */

typedef struct dshape {
    int rank;
    int64_t dims[CJ_MAX_RANK];
} dshape;

typedef struct dnums {
    int nc, nb;
    int64_t lc[CJ_MAX_RANK], rc[CJ_MAX_RANK], lb[CJ_MAX_RANK], rb[CJ_MAX_RANK];
} dnums;

static int64_t numel(const dshape *s) {
    int64_t n = 1;
    for (int i = 0; i < s->rank; i++) n *= s->dims[i];
    return n;
}

static int in_list(int64_t d, const int64_t *v, int n) {
    for (int i = 0; i < n; i++)
        if (v[i] == d) return 1;
    return 0;
}

static int free_list(const dshape *s, const int64_t *c, const int64_t *b, const dnums *dn, int64_t *out) {
    int n = 0;
    for (int d = 0; d < s->rank; d++)
        if (!in_list(d, c, dn->nc) && !in_list(d, b, dn->nb)) out[n++] = d;
    return n;
}

static int64_t linear(const dshape *s, const int64_t *idx) {
    int64_t at = 0;
    for (int d = 0; d < s->rank; d++) at = at * s->dims[d] + idx[d];
    return at;
}

/* Increments a multi-index over dims (row-major); 0 when it wrapped. */
static int step(int n, const int64_t *dims, int64_t *idx) {
    for (int d = n - 1; d >= 0; d--) {
        if (++idx[d] < dims[d]) return 1;
        idx[d] = 0;
    }
    return 0;
}

/* out (already sized) = dot_general(l, r). Writes the output shape. */
static void ref_dot(const double *l, const dshape *ls, const double *r, const dshape *rs, const dnums *dn,
                    long double *out, dshape *os) {
    int64_t lf[CJ_MAX_RANK], rf[CJ_MAX_RANK];
    int nlf = free_list(ls, dn->lc, dn->lb, dn, lf), nrf = free_list(rs, dn->rc, dn->rb, dn, rf);
    os->rank = 0;
    for (int i = 0; i < dn->nb; i++) os->dims[os->rank++] = ls->dims[dn->lb[i]];
    for (int i = 0; i < nlf; i++) os->dims[os->rank++] = ls->dims[lf[i]];
    for (int i = 0; i < nrf; i++) os->dims[os->rank++] = rs->dims[rf[i]];
    int64_t cdims[CJ_MAX_RANK];
    for (int i = 0; i < dn->nc; i++) cdims[i] = ls->dims[dn->lc[i]];
    int64_t total = numel(os);
    int64_t oi[CJ_MAX_RANK] = {0};
    for (int64_t o = 0; o < total; o++) {
        int64_t li[CJ_MAX_RANK] = {0}, ri[CJ_MAX_RANK] = {0}, ci[CJ_MAX_RANK] = {0};
        int k = 0;
        for (int i = 0; i < dn->nb; i++, k++) li[dn->lb[i]] = ri[dn->rb[i]] = oi[k];
        for (int i = 0; i < nlf; i++, k++) li[lf[i]] = oi[k];
        for (int i = 0; i < nrf; i++, k++) ri[rf[i]] = oi[k];
        long double acc = 0;
        int empty = 0;
        for (int i = 0; i < dn->nc; i++) empty |= cdims[i] == 0;
        if (!empty) do {
                for (int i = 0; i < dn->nc; i++) li[dn->lc[i]] = ri[dn->rc[i]] = ci[i];
                acc += (long double)l[linear(ls, li)] * r[linear(rs, ri)];
            } while (step(dn->nc, cdims, ci));
        out[o] = acc;
        step(os->rank, os->dims, oi);
    }
}

/* ---- helpers ------------------------------------------------------------ */

/* Random values exactly representable in f32 (small integers for ints,
 * 0/1 for bool). */
static double *random_data(const dshape *s, cj_dtype dt, uint64_t *seed) {
    int64_t n = numel(s);
    double *v = malloc(sizeof(double) * (size_t)(n ? n : 1));
    for (int64_t i = 0; i < n; i++) {
        double u = th_rand_uniform(seed, -1, 1);
        v[i] = dt == CJ_F32 || dt == CJ_F64 ? (double)(float)u : dt == CJ_BOOL ? u > 0.3 : (double)(int)(u * 9);
    }
    return v;
}

static cj_val make_array(cj_ctx *ctx, cj_dtype dt, const dshape *s, const double *v) {
    int64_t n = numel(s);
    void *buf = malloc(cj_dtype_size(dt) * (size_t)(n ? n : 1));
    for (int64_t i = 0; i < n; i++) {
        switch (dt) {
        case CJ_F32: ((float *)buf)[i] = (float)v[i]; break;
        case CJ_F64: ((double *)buf)[i] = v[i]; break;
        case CJ_I32: ((int32_t *)buf)[i] = (int32_t)v[i]; break;
        case CJ_I64: ((int64_t *)buf)[i] = (int64_t)v[i]; break;
        default: ((uint8_t *)buf)[i] = v[i] != 0; break;
        }
    }
    cj_val x = cj_array(ctx, dt, s->rank, s->dims, buf);
    free(buf);
    return x;
}

static dshape shp(int rank, ...) {
    dshape s;
    memset(&s, 0, sizeof s);
    s.rank = rank;
    va_list ap;
    va_start(ap, rank);
    for (int i = 0; i < rank; i++) s.dims[i] = va_arg(ap, int64_t);
    va_end(ap);
    return s;
}
#define S(...) shp(__VA_ARGS__)
#define D(x) ((int64_t)(x))

/* Checks y (a value) against the reference product of (ls, rs, dn) with
 * tolerance scaled by sqrt(k)·eps of the dtype. Integers: exact. */
static int check_dot_result(cj_val y, const double *l, const dshape *ls, const double *r, const dshape *rs,
                            const dnums *dn, cj_dtype dt) {
    dshape os;
    int64_t cap = 1;
    for (int i = 0; i < ls->rank; i++) cap *= ls->dims[i] ? ls->dims[i] : 1;
    for (int i = 0; i < rs->rank; i++) cap *= rs->dims[i] ? rs->dims[i] : 1;
    long double *ref = malloc(sizeof(long double) * (size_t)cap);
    ref_dot(l, ls, r, rs, dn, ref, &os);
    int ok = 1;
    if (cj_val_rank(y) != os.rank) {
        th_fail(__FILE__, __LINE__, "rank %d, expected %d", cj_val_rank(y), os.rank);
        ok = 0;
    }
    for (int d = 0; ok && d < os.rank; d++)
        if (cj_val_dim(y, d) != os.dims[d]) {
            th_fail(__FILE__, __LINE__, "dim %d is %lld, expected %lld", d, (long long)cj_val_dim(y, d),
                    (long long)os.dims[d]);
            ok = 0;
        }
    if (ok && cj_val_dtype(y) != dt) {
        th_fail(__FILE__, __LINE__, "dtype %s, expected %s", cj_dtype_name(cj_val_dtype(y)), cj_dtype_name(dt));
        ok = 0;
    }
    int64_t n = numel(&os);
    double *got = malloc(sizeof(double) * (size_t)(n ? n : 1));
    if (ok && cj_read_as(y, CJ_F64, got, sizeof(double) * (size_t)n) != CJ_OK) {
        th_fail(__FILE__, __LINE__, "read failed: %s", cj_error_message(y.ctx));
        ok = 0;
    }
    double eps = dt == CJ_F32 ? 1e-6 : 1e-14;
    for (int64_t i = 0; ok && i < n; i++) {
        double want = (double)ref[i];
        if (dt == CJ_BOOL) want = want != 0;
        int good = dt == CJ_F32 || dt == CJ_F64 ? th_close(got[i], want, 0, eps * 64 * (1 + fabs(want)))
                                                : got[i] == want;
        if (!good) {
            th_fail(__FILE__, __LINE__, "element %lld: %.17g, expected %.17g", (long long)i, got[i], want);
            ok = 0;
        }
    }
    free(got);
    free(ref);
    return ok;
}

/* Runs one dot_general case through the public API and checks it. */
static int run_case(cj_ctx *ctx, cj_dtype dt, dshape ls, dshape rs, dnums dn, uint64_t seed) {
    double *l = random_data(&ls, dt, &seed), *r = random_data(&rs, dt, &seed);
    cj_val a = make_array(ctx, dt, &ls, l), b = make_array(ctx, dt, &rs, r);
    cj_val y = cj_dot_general(a, b, dn.nc, dn.lc, dn.rc, dn.nb, dn.lb, dn.rb);
    int ok = !cj_error(ctx);
    if (!ok) th_fail(__FILE__, __LINE__, "error: %s", cj_error_message(ctx));
    if (ok) ok = check_dot_result(y, l, &ls, r, &rs, &dn, dt);
    free(l);
    free(r);
    return ok;
}

static dnums DN(int nc, const int64_t *lc, const int64_t *rc, int nb, const int64_t *lb, const int64_t *rb) {
    dnums d;
    memset(&d, 0, sizeof d);
    d.nc = nc;
    d.nb = nb;
    for (int i = 0; i < nc; i++) d.lc[i] = lc[i], d.rc[i] = rc[i];
    for (int i = 0; i < nb; i++) d.lb[i] = lb[i], d.rb[i] = rb[i];
    return d;
}
#define L(...) ((const int64_t[]){__VA_ARGS__})

/* ---- dot_general --------------------------------------------------------- */

TEST(dot_matmul_f32) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    dnums mm = DN(1, L(1), L(0), 0, NULL, NULL);
    CHECK(run_case(ctx, CJ_F32, S(2, D(5), D(7)), S(2, D(7), D(3)), mm, 1));
    CHECK(run_case(ctx, CJ_F32, S(2, D(64), D(33)), S(2, D(33), D(70)), mm, 2));
    CHECK(run_case(ctx, CJ_F32, S(2, D(1), D(9)), S(2, D(9), D(1)), mm, 3));
    cj_ctx_free(ctx);
}

TEST(dot_f64) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    CHECK(run_case(ctx, CJ_F64, S(2, D(13), D(29)), S(2, D(29), D(11)), DN(1, L(1), L(0), 0, NULL, NULL), 4));
    CHECK(run_case(ctx, CJ_F64, S(3, D(3), D(5), D(7)), S(3, D(3), D(7), D(2)),
                   DN(1, L(2), L(1), 1, L(0), L(0)), 5));
    cj_ctx_free(ctx);
}

TEST(dot_transposed_operands_in_place) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    /* x·Wᵀ (rhs contracts its last axis), Aᵀ·B, Aᵀ·Bᵀ */
    CHECK(run_case(ctx, CJ_F32, S(2, D(17), D(40)), S(2, D(23), D(40)), DN(1, L(1), L(1), 0, NULL, NULL), 6));
    CHECK(run_case(ctx, CJ_F32, S(2, D(40), D(17)), S(2, D(40), D(23)), DN(1, L(0), L(0), 0, NULL, NULL), 7));
    CHECK(run_case(ctx, CJ_F64, S(2, D(40), D(17)), S(2, D(23), D(40)), DN(1, L(0), L(1), 0, NULL, NULL), 8));
    cj_ctx_free(ctx);
}

TEST(dot_batched_matmul) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    CHECK(run_case(ctx, CJ_F32, S(3, D(4), D(5), D(6)), S(3, D(4), D(6), D(3)), DN(1, L(2), L(1), 1, L(0), L(0)), 9));
    /* many small products: threaded over the batch */
    CHECK(run_case(ctx, CJ_F32, S(3, D(300), D(8), D(9)), S(3, D(300), D(9), D(7)),
                   DN(1, L(2), L(1), 1, L(0), L(0)), 10));
    /* two batch axes, the rhs ones swapped (forces a copy of rhs) */
    CHECK(run_case(ctx, CJ_F32, S(4, D(2), D(3), D(4), D(5)), S(4, D(3), D(2), D(5), D(6)),
                   DN(1, L(3), L(2), 2, L(0, 1), L(1, 0)), 11));
    /* batch axis in the middle of lhs (attention-like [T, H, D]) */
    CHECK(run_case(ctx, CJ_F32, S(3, D(6), D(3), D(8)), S(3, D(3), D(8), D(5)), DN(1, L(2), L(1), 1, L(1), L(0)), 12));
    cj_ctx_free(ctx);
}

TEST(dot_contract_several_dims) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    CHECK(run_case(ctx, CJ_F32, S(3, D(2), D(3), D(4)), S(3, D(3), D(4), D(5)), DN(2, L(1, 2), L(0, 1), 0, NULL, NULL), 13));
    /* contracting axes listed out of memory order on both sides */
    CHECK(run_case(ctx, CJ_F32, S(3, D(4), D(3), D(2)), S(3, D(5), D(3), D(4)), DN(2, L(0, 1), L(2, 1), 0, NULL, NULL), 14));
    /* everything contracted: a full inner product to a scalar */
    CHECK(run_case(ctx, CJ_F64, S(2, D(3), D(4)), S(2, D(3), D(4)), DN(2, L(0, 1), L(0, 1), 0, NULL, NULL), 15));
    cj_ctx_free(ctx);
}

TEST(dot_contract_unusual_positions) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    /* lhs contracts axis 0, rhs axis 1 */
    CHECK(run_case(ctx, CJ_F32, S(2, D(6), D(4)), S(2, D(3), D(6)), DN(1, L(0), L(1), 0, NULL, NULL), 16));
    /* rank 3, contracting the middle axis of each */
    CHECK(run_case(ctx, CJ_F32, S(3, D(2), D(7), D(3)), S(3, D(4), D(7), D(5)), DN(1, L(1), L(1), 0, NULL, NULL), 17));
    /* batch last, contraction first */
    CHECK(run_case(ctx, CJ_F64, S(3, D(5), D(3), D(2)), S(3, D(5), D(2), D(4)), DN(1, L(0), L(0), 1, L(2), L(1)), 18));
    cj_ctx_free(ctx);
}

TEST(dot_vector_vector_and_outer) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    CHECK(run_case(ctx, CJ_F32, S(1, D(7)), S(1, D(7)), DN(1, L(0), L(0), 0, NULL, NULL), 19));
    /* no contraction: outer product */
    CHECK(run_case(ctx, CJ_F32, S(1, D(3)), S(1, D(4)), DN(0, NULL, NULL, 0, NULL, NULL), 20));
    CHECK(run_case(ctx, CJ_F32, S(2, D(2), D(3)), S(1, D(4)), DN(0, NULL, NULL, 0, NULL, NULL), 21));
    /* rank 0 operands */
    CHECK(run_case(ctx, CJ_F64, S(0), S(1, D(5)), DN(0, NULL, NULL, 0, NULL, NULL), 22));
    cj_ctx_free(ctx);
}

TEST(dot_zero_size_dims) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    dnums mm = DN(1, L(1), L(0), 0, NULL, NULL);
    CHECK(run_case(ctx, CJ_F32, S(2, D(0), D(5)), S(2, D(5), D(3)), mm, 23));
    /* empty contraction: zeros, in every dtype */
    CHECK(run_case(ctx, CJ_F32, S(2, D(3), D(0)), S(2, D(0), D(4)), mm, 24));
    CHECK(run_case(ctx, CJ_I32, S(2, D(3), D(0)), S(2, D(0), D(4)), mm, 25));
    CHECK(run_case(ctx, CJ_F64, S(3, D(0), D(2), D(3)), S(3, D(0), D(3), D(2)), DN(1, L(2), L(1), 1, L(0), L(0)), 26));
    cj_ctx_free(ctx);
}

TEST(dot_integer_and_bool) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    dnums mm = DN(1, L(1), L(0), 0, NULL, NULL);
    CHECK(run_case(ctx, CJ_I32, S(2, D(9), D(70)), S(2, D(70), D(1100)), mm, 27));
    CHECK(run_case(ctx, CJ_I64, S(2, D(40), D(17)), S(2, D(23), D(40)), DN(1, L(0), L(1), 0, NULL, NULL), 28));
    CHECK(run_case(ctx, CJ_I32, S(3, D(4), D(5), D(6)), S(3, D(4), D(6), D(3)), DN(1, L(2), L(1), 1, L(0), L(0)), 29));
    CHECK(run_case(ctx, CJ_BOOL, S(2, D(6), D(5)), S(2, D(5), D(7)), mm, 30));

    /* i32 products wrap around like XLA's */
    int32_t a[2] = {1 << 20, 3}, b[2] = {1 << 20, 5};
    int64_t n = 2;
    cj_val y = cj_dot_general(cj_array(ctx, CJ_I32, 1, &n, a), cj_array(ctx, CJ_I32, 1, &n, b), 1, L(0), L(0), 0,
                              NULL, NULL);
    int32_t got = 0;
    CHECK(cj_read(y, &got, sizeof got) == CJ_OK);
    uint32_t want = (uint32_t)(1u << 20) * (uint32_t)(1u << 20) + 15u;
    CHECK_EQ_INT((uint32_t)got, want);
    cj_ctx_free(ctx);
}

TEST(dot_matmul_1024_sampled) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t n = 1024, dims[2] = {n, n};
    float *a = malloc(sizeof(float) * (size_t)(n * n)), *b = malloc(sizeof(float) * (size_t)(n * n));
    uint64_t seed = 31;
    for (int64_t i = 0; i < n * n; i++) a[i] = (float)th_rand_uniform(&seed, -1, 1);
    for (int64_t i = 0; i < n * n; i++) b[i] = (float)th_rand_uniform(&seed, -1, 1);
    cj_val y = cj_matmul(cj_array(ctx, CJ_F32, 2, dims, a), cj_array(ctx, CJ_F32, 2, dims, b));
    float *c = malloc(sizeof(float) * (size_t)(n * n));
    CHECK(cj_read(y, c, sizeof(float) * (size_t)(n * n)) == CJ_OK);
    int bad = 0;
    for (int s = 0; s < 200 && !bad; s++) {
        int64_t i = (int64_t)(th_rand_u64(&seed) % (uint64_t)n), j = (int64_t)(th_rand_u64(&seed) % (uint64_t)n);
        if (s == 0) i = 0, j = 0;
        if (s == 1) i = n - 1, j = n - 1;
        double acc = 0, mag = 0;
        for (int64_t k = 0; k < n; k++) {
            acc += (double)a[i * n + k] * b[k * n + j];
            mag += fabs((double)a[i * n + k] * b[k * n + j]);
        }
        if (!th_close(c[i * n + j], acc, 0, 2 * n * 6e-8 * mag)) {
            th_fail(__FILE__, __LINE__, "c[%lld,%lld] = %g, expected %g", (long long)i, (long long)j,
                    c[i * n + j], acc);
            bad = 1;
        }
    }
    free(a);
    free(b);
    free(c);
    CHECK(!bad);
    cj_ctx_free(ctx);
}

/* ---- matmul --------------------------------------------------------------- */

/* matmul(a, b) against numpy's definition written as loops: 1-D operands
 * promoted, batch axes broadcast. */
static int check_matmul(cj_ctx *ctx, dshape as, dshape bs, uint64_t seed) {
    double *a = random_data(&as, CJ_F32, &seed), *b = random_data(&bs, CJ_F32, &seed);
    cj_val y = cj_matmul(make_array(ctx, CJ_F32, &as, a), make_array(ctx, CJ_F32, &bs, b));
    int ok = !cj_error(ctx);
    if (!ok) th_fail(__FILE__, __LINE__, "error: %s", cj_error_message(ctx));
    /* promoted shapes */
    dshape A = as, B = bs;
    if (as.rank == 1) A = S(2, D(1), as.dims[0]);
    if (bs.rank == 1) B = S(2, bs.dims[0], D(1));
    int nb = (A.rank > B.rank ? A.rank : B.rank) - 2;
    int64_t bd[CJ_MAX_RANK];
    for (int i = 0; i < nb; i++) {
        int ia = i - (nb - (A.rank - 2)), ib = i - (nb - (B.rank - 2));
        int64_t da = ia >= 0 ? A.dims[ia] : 1, db = ib >= 0 ? B.dims[ib] : 1;
        bd[i] = da == 1 ? db : da;
    }
    int64_t M = A.dims[A.rank - 2], K = A.dims[A.rank - 1], N = B.dims[B.rank - 1];
    dshape os;
    os.rank = 0;
    for (int i = 0; i < nb; i++) os.dims[os.rank++] = bd[i];
    if (as.rank > 1) os.dims[os.rank++] = M;
    if (bs.rank > 1) os.dims[os.rank++] = N;
    if (ok && cj_val_rank(y) != os.rank) {
        th_fail(__FILE__, __LINE__, "rank %d, expected %d", cj_val_rank(y), os.rank);
        ok = 0;
    }
    for (int d = 0; ok && d < os.rank; d++)
        if (cj_val_dim(y, d) != os.dims[d]) {
            th_fail(__FILE__, __LINE__, "dim %d: %lld vs %lld", d, (long long)cj_val_dim(y, d), (long long)os.dims[d]);
            ok = 0;
        }
    int64_t nbatch = 1;
    for (int i = 0; i < nb; i++) nbatch *= bd[i];
    double *got = malloc(sizeof(double) * (size_t)(nbatch * M * N + 1));
    if (ok) ok = cj_read_as(y, CJ_F64, got, sizeof(double) * (size_t)(nbatch * M * N)) == CJ_OK;
    int64_t bi[CJ_MAX_RANK] = {0};
    for (int64_t t = 0; ok && t < nbatch; t++) {
        /* batch offsets of a and b (size-1 axes broadcast) */
        int64_t ao = 0, bo = 0;
        for (int i = 0; i < nb; i++) {
            int ia = i - (nb - (A.rank - 2)), ib = i - (nb - (B.rank - 2));
            if (ia >= 0) ao = ao * A.dims[ia] + (A.dims[ia] == 1 ? 0 : bi[i]);
            if (ib >= 0) bo = bo * B.dims[ib] + (B.dims[ib] == 1 ? 0 : bi[i]);
        }
        for (int64_t i = 0; ok && i < M; i++)
            for (int64_t j = 0; ok && j < N; j++) {
                double acc = 0;
                for (int64_t k = 0; k < K; k++) acc += a[(ao * M + i) * K + k] * b[(bo * K + k) * N + j];
                double g = got[(t * M + i) * N + j];
                if (!th_close(g, acc, 0, 1e-5 * (1 + fabs(acc)))) {
                    th_fail(__FILE__, __LINE__, "batch %lld [%lld,%lld]: %g vs %g", (long long)t, (long long)i, (long long)j, g, acc);
                    ok = 0;
                }
            }
        step(nb, bd, bi);
    }
    free(got);
    free(a);
    free(b);
    return ok;
}

TEST(dot_matmul_1d_2d) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    CHECK(check_matmul(ctx, S(1, D(5)), S(1, D(5)), 40));
    CHECK(check_matmul(ctx, S(1, D(5)), S(2, D(5), D(3)), 41));
    CHECK(check_matmul(ctx, S(2, D(4), D(5)), S(1, D(5)), 42));
    CHECK(check_matmul(ctx, S(2, D(4), D(5)), S(2, D(5), D(3)), 43));
    /* N-D on the left of a matrix or a vector: no broadcasting needed */
    CHECK(check_matmul(ctx, S(3, D(2), D(4), D(5)), S(2, D(5), D(3)), 44));
    CHECK(check_matmul(ctx, S(3, D(2), D(4), D(5)), S(1, D(5)), 45));
    CHECK(check_matmul(ctx, S(1, D(5)), S(3, D(2), D(5), D(3)), 46));
    CHECK(check_matmul(ctx, S(3, D(2), D(4), D(5)), S(3, D(2), D(5), D(3)), 47));
    cj_ctx_free(ctx);
}

/* These need broadcast_in_dim (the shape family). */
TEST(dot_matmul_broadcast_batch) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    CHECK(check_matmul(ctx, S(2, D(4), D(5)), S(3, D(2), D(5), D(3)), 48));
    CHECK(check_matmul(ctx, S(4, D(2), D(1), D(3), D(4)), S(3, D(5), D(4), D(2)), 49));
    CHECK(check_matmul(ctx, S(3, D(1), D(3), D(4)), S(3, D(6), D(4), D(2)), 50));
    cj_ctx_free(ctx);
}

/* ---- promotion, errors, jit ------------------------------------------------ */

/* Needs convert_element_type (the elementwise family). */
TEST(dot_promotes_dtypes) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t d2[2] = {2, 2};
    int32_t ai[4] = {1, 2, 3, 4};
    float bf[4] = {0.5f, 1, -1, 2};
    cj_val y = cj_matmul(cj_array(ctx, CJ_I32, 2, d2, ai), cj_array(ctx, CJ_F32, 2, d2, bf));
    CHECK_MSG(!cj_error(ctx), "%s", cj_error_message(ctx));
    CHECK_EQ_INT(cj_val_dtype(y), CJ_F32);
    float c[4];
    CHECK(cj_read(y, c, sizeof c) == CJ_OK);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) CHECK_NEAR(c[i * 2 + j], ai[i * 2] * bf[j] + ai[i * 2 + 1] * bf[2 + j], 0, 1e-6);
    /* a weak scalar never widens: f32 · weak float stays f32 */
    y = cj_dot_general(cj_array(ctx, CJ_F32, 2, d2, bf), cj_scalar(ctx, 2.0), 0, NULL, NULL, 0, NULL, NULL);
    CHECK_EQ_INT(cj_val_dtype(y), CJ_F32);
    CHECK_EQ_INT(cj_val_weak(y), 0);
    cj_ctx_free(ctx);
}

TEST(dot_errors) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    float z[20] = {0};
    cj_val a = cj_array(ctx, CJ_F32, 2, L(3, 4), z), b = cj_array(ctx, CJ_F32, 2, L(5, 2), z);

    cj_val y = cj_dot_general(a, b, 1, L(1), L(0), 0, NULL, NULL);
    CHECK(cj_is_error(y));
    CHECK_EQ_INT(cj_error(ctx), CJ_ERR_SHAPE);
    CHECK_STR_CONTAINS(cj_error_message(ctx),
                       "dot_general: contracting dimension 1 of f32[3,4] (size 4) does not match dimension 0 "
                       "of f32[5,2] (size 5)");
    cj_error_clear(ctx);

    y = cj_matmul(a, b);
    CHECK(cj_is_error(y));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "matmul: inner dimensions 4 and 5 do not match (f32[3,4] @ f32[5,2])");
    cj_error_clear(ctx);

    cj_dot_general(a, b, 1, L(2), L(0), 0, NULL, NULL);
    CHECK_EQ_INT(cj_error(ctx), CJ_ERR_AXIS);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "lhs contracting dimension 2 is out of range for f32[3,4]");
    cj_error_clear(ctx);

    cj_dot_general(a, a, 1, L(0), L(0), 1, L(0), L(1));
    CHECK_EQ_INT(cj_error(ctx), CJ_ERR_AXIS);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "lhs dimension 0 of f32[3,4] is used more than once");
    cj_error_clear(ctx);

    cj_dot_general(a, b, 0, NULL, NULL, 1, L(0), L(0));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "batch dimension 0 of f32[3,4] (size 3) does not match dimension 0 of f32[5,2] (size 5)");
    cj_error_clear(ctx);

    cj_matmul(a, cj_scalar(ctx, 1.0));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "matmul: operands must have rank >= 1");
    cj_error_clear(ctx);

    cj_dot_general(a, b, -1, NULL, NULL, 0, NULL, NULL);
    CHECK_EQ_INT(cj_error(ctx), CJ_ERR_ARG);
    cj_error_clear(ctx);

    /* the strict primitive itself: equal dtypes */
    int32_t zi[20] = {0};
    cj_val bi = cj_array(ctx, CJ_I32, 2, L(4, 5), zi);
    prim_params p = prim_params_zero();
    p.lhs_contract.n = p.rhs_contract.n = 1;
    p.lhs_contract.v[0] = 1;
    p.dtype = CJ_F32;
    cj_val in[2] = {a, bi};
    CHECK(cj_is_error(core_bind(ctx, PRIM_DOT_GENERAL, &p, 2, in)));
    CHECK_EQ_INT(cj_error(ctx), CJ_ERR_DTYPE);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "dot_general: operand dtypes must be equal, got f32[3,4] and i32[4,5]");
    cj_error_clear(ctx);

    /* an error value in gives an error value out, with the first message kept */
    cj_matmul(a, b);
    CHECK(cj_is_error(cj_matmul(cj_matmul(a, b), a)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "inner dimensions 4 and 5");
    cj_error_clear(ctx);
    CHECK(cj_is_error(cj_matmul((cj_val){0}, (cj_val){0})));
    cj_ctx_free(ctx);
}

static void jit_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    /* a·bᵀ then a batched contraction of the result with itself */
    cj_val ab = cj_dot_general(in[0], in[1], 1, L(1), L(1), 0, NULL, NULL);
    out[0] = cj_matmul(ab, in[2]);
    out[1] = cj_dot_general(in[0], in[0], 1, L(1), L(1), 1, L(0), L(0));
}

TEST(dot_jit_matches_eager) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 77;
    dshape as = S(2, D(6), D(5)), bs = S(2, D(4), D(5)), cs = S(2, D(4), D(3));
    double *a = random_data(&as, CJ_F32, &seed), *b = random_data(&bs, CJ_F32, &seed), *c = random_data(&cs, CJ_F32, &seed);
    cj_val in[3] = {make_array(ctx, CJ_F32, &as, a), make_array(ctx, CJ_F32, &bs, b), make_array(ctx, CJ_F32, &cs, c)};
    free(a), free(b), free(c);
    cj_func *f = cj_func_new(ctx, "dots", jit_body, 3, 2, NULL);
    cj_val eager[2], jitted[2];
    CHECK(cj_call(f, in, eager) == CJ_OK);
    cj_func *jf = cj_jit(f, NULL);
    CHECK(cj_call(jf, in, jitted) == CJ_OK);
    CHECK(cj_call(jf, in, jitted) == CJ_OK); /* from the cache */
    for (int o = 0; o < 2; o++) {
        float e[24], j[24];
        CHECK(cj_val_size(eager[o]) == cj_val_size(jitted[o]));
        CHECK(cj_read(eager[o], e, sizeof e) == CJ_OK);
        CHECK(cj_read(jitted[o], j, sizeof j) == CJ_OK);
        for (int64_t i = 0; i < cj_val_size(eager[o]); i++) CHECK(e[i] == j[i]);
    }
    cj_spec specs[3] = {cj_spec_of(in[0]), cj_spec_of(in[1]), cj_spec_of(in[2])};
    char *text = cj_make_jaxpr(f, 3, specs);
    CHECK(text);
    CHECK_STR_CONTAINS(text, "f32[6,4] = dot_general[dimension_numbers=(([1], [1]), ([], [])) precision=None "
                             "preferred_element_type=f32]");
    CHECK_STR_CONTAINS(text, "f32[6] = dot_general[dimension_numbers=(([1], [1]), ([0], [0]))");
    cj_string_free(ctx, text);
    cj_ctx_free(ctx);
}

/* Every allocation failing in turn: a clean error each time, nothing leaked
 * (the permuted copy of an operand is the kernel's own allocation). */
TEST(dot_out_of_memory_is_clean) {
    for (long long fail = 1; fail < 200; fail++) {
        tu_alloc st;
        memset(&st, 0, sizeof st);
        st.fail_at = fail;
        cj_allocator al = tu_allocator(&st);
        cj_ctx *ctx = cj_ctx_new(&al);
        if (!ctx) continue;
        float z[24] = {0};
        cj_val a = cj_array(ctx, CJ_F32, 3, L(2, 3, 4), z), b = cj_array(ctx, CJ_F32, 3, L(4, 2, 3), z);
        cj_val y = cj_dot_general(a, b, 2, L(2, 1), L(0, 2), 1, L(0), L(1));
        int failed = st.failed;
        CHECK(failed ? cj_is_error(y) && cj_error(ctx) == CJ_ERR_OOM : !cj_is_error(y));
        cj_ctx_free(ctx);
        CHECK_EQ_INT(st.live, 0);
        if (!failed) break;
    }
}

TEST(dot_scopes_free_results) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_mem_stats before, after;
    cj_mem_stats_get(ctx, &before);
    cj_scope_begin(ctx);
    float z[12] = {1};
    cj_val a = cj_array(ctx, CJ_F32, 2, L(3, 4), z);
    cj_dot_general(a, a, 1, L(0), L(0), 0, NULL, NULL); /* through a copy-free transposed read */
    cj_dot_general(a, a, 2, L(1, 0), L(1, 0), 0, NULL, NULL);
    cj_scope_end(ctx, 0, NULL);
    cj_mem_stats_get(ctx, &after);
    CHECK(!cj_error(ctx));
    CHECK_EQ_INT(after.bytes_in_arrays, before.bytes_in_arrays);
    cj_ctx_free(ctx);
}
