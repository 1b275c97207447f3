/* test_small_products.c — the small-product kernels behind rt_gemm
 * (runtime layer, src/runtime/gemm_small.c): matrix · vector, vector ·
 * matrix, outer products, rank-k updates, small products and batches.
 *
 * Every m, n, k in 1..17 with all four transposes, padded row strides (the
 * padding is NaN, so a kernel lane reading past a row shows up), with and
 * without accumulation, in f32 and f64, on every instruction set this CPU
 * runs (AVX-512, AVX2+FMA, plain C: rt_gemm_testing_isa caps the choice),
 * against a long double triple loop with the classical error bound
 * 2·(k+1)·eps·Σ|a||b|. Then the promise the compiler relies on: a row's
 * bits do not depend on how the rows are split — into separate calls, over
 * threads (a product big enough for the pool against the same rows in
 * serial pieces), or into a batch — and the fallback when scratch memory
 * runs out. */
#include <stdlib.h>

#include "harness.h"
#include "runtime/gemm.h"

enum { MAXD = 17 };

/* opA (m×k) and opB (k×n) as doubles exactly representable in float. */
typedef struct {
    int64_t m, n, k;
    double a[MAXD * MAXD], b[MAXD * MAXD], c0[MAXD * MAXD], mag[MAXD * MAXD];
    long double ref[MAXD * MAXD];
} small_problem;

static void make_problem(small_problem *p, int64_t m, int64_t n, int64_t k, uint64_t seed) {
    p->m = m, p->n = n, p->k = k;
    uint64_t st = seed;
    for (int64_t i = 0; i < m * k; i++) p->a[i] = (float)th_rand_uniform(&st, -1, 1);
    for (int64_t i = 0; i < k * n; i++) p->b[i] = (float)th_rand_uniform(&st, -1, 1);
    for (int64_t i = 0; i < m * n; i++) p->c0[i] = (float)th_rand_uniform(&st, -1, 1);
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            long double acc = 0;
            double mag = 0;
            for (int64_t q = 0; q < k; q++) {
                acc += (long double)p->a[i * k + q] * p->b[q * n + j];
                mag += fabs(p->a[i * k + q] * p->b[q * n + j]);
            }
            p->ref[i * n + j] = acc;
            p->mag[i * n + j] = mag;
        }
}

/* One case: store the operands (transposed when asked, row stride ld =
 * stored columns + pad, NaN padding), multiply, compare every element and
 * check C's padding is untouched. Returns 1 when all is well. */
#define DEFINE_CASE(T, SFX, EPS)                                                                    \
    static T *put_##SFX(T *d, const double *src, int64_t rows, int64_t cols, int trans, int64_t ld) { \
        int64_t srows = trans ? cols : rows;                                                        \
        for (int64_t i = 0; i < srows * ld + 1; i++) d[i] = (T)NAN;                                 \
        for (int64_t r = 0; r < rows; r++)                                                          \
            for (int64_t c = 0; c < cols; c++) d[trans ? c * ld + r : r * ld + c] = (T)src[r * cols + c]; \
        return d;                                                                                   \
    }                                                                                               \
    static int case_##SFX(const small_problem *p, int ta, int tb, int acc, int64_t pad) {           \
        static T A[MAXD * (MAXD + 8) + 1], B[MAXD * (MAXD + 8) + 1], C[MAXD * (MAXD + 8) + 1];      \
        int64_t m = p->m, n = p->n, k = p->k;                                                       \
        int64_t lda = (ta ? m : k) + pad, ldb = (tb ? k : n) + pad, ldc = n + pad;                  \
        put_##SFX(A, p->a, m, k, ta, lda);                                                          \
        put_##SFX(B, p->b, k, n, tb, ldb);                                                          \
        for (int64_t i = 0; i < m * ldc + 1; i++) C[i] = (T)NAN;                                    \
        if (acc)                                                                                    \
            for (int64_t i = 0; i < m; i++)                                                         \
                for (int64_t j = 0; j < n; j++) C[i * ldc + j] = (T)p->c0[i * n + j];               \
        rt_gemm_##SFX(m, n, k, A, lda, ta, B, ldb, tb, C, ldc, acc);                                \
        for (int64_t i = 0; i < m; i++)                                                             \
            for (int64_t j = 0; j < ldc; j++) {                                                     \
                double got = (double)C[i * ldc + j];                                                \
                if (j >= n) {                                                                       \
                    if (isnan(got)) continue;                                                       \
                    th_fail(__FILE__, __LINE__, #SFX " %lldx%lldx%lld ta=%d tb=%d: padding written", \
                            (long long)m, (long long)n, (long long)k, ta, tb);                      \
                    return 0;                                                                       \
                }                                                                                   \
                double c0 = acc ? p->c0[i * n + j] : 0;                                             \
                long double want = p->ref[i * n + j] + c0;                                          \
                double tol = 2.0 * (double)(k + 1) * EPS * p->mag[i * n + j] + 2 * EPS * fabs(c0) + 1e-300; \
                if (!(fabsl((long double)got - want) <= tol)) {                                     \
                    th_fail(__FILE__, __LINE__,                                                     \
                            "%s " #SFX " %lldx%lldx%lld ta=%d tb=%d acc=%d pad=%lld: C[%lld,%lld] = %.9g, " \
                            "want %.9Lg (tol %.3g)",                                                \
                            rt_gemm_small_isa_name(), (long long)m, (long long)n, (long long)k, ta, tb, \
                            acc, (long long)pad, (long long)i, (long long)j, got, want, tol);       \
                    return 0;                                                                       \
                }                                                                                   \
            }                                                                                       \
        return 1;                                                                                   \
    }
DEFINE_CASE(float, f32, 5.9604644775390625e-08)
DEFINE_CASE(double, f64, 1.1102230246251565e-16)

/* All shapes up to 17 on one instruction-set cap; each shape runs the four
 * transposes, accumulation on two of them, and a stride padding that
 * varies with the shape. */
static int sweep_small(int f64) {
    static small_problem p;
    for (int64_t m = 1; m <= MAXD; m++)
        for (int64_t n = 1; n <= MAXD; n++)
            for (int64_t k = 1; k <= MAXD; k++) {
                make_problem(&p, m, n, k, (uint64_t)(m * 10007 + n * 101 + k));
                for (int t = 0; t < 4; t++) {
                    int ta = t & 1, tb = t >> 1, acc = (int)((m + n + k + t) & 1);
                    int64_t pad = (m + 2 * n + 3 * k + t) % 4 == 0 ? 0 : (m + n + t) % 7;
                    if (!(f64 ? case_f64(&p, ta, tb, acc, pad) : case_f32(&p, ta, tb, acc, pad))) return 0;
                }
            }
    return 1;
}

TEST(small_products_all_shapes_to_17) {
    for (int isa = 3; isa >= 1; isa--) {
        rt_gemm_testing_isa(isa);
        int ok = sweep_small(0) && sweep_small(1);
        rt_gemm_testing_isa(0);
        if (!ok) return;
    }
}

/* Zero strides, as broadcasting makes: lda = 0 (every row of A the same)
 * and ldb = 0 with B transposed (every column of op(B) the same), on the
 * matrix-vector, outer-product and small paths. */
TEST(small_products_zero_strides) {
    static const int64_t sh[][3] = {{9, 1, 13}, {1, 21, 5}, {12, 19, 1}, {7, 11, 4}, {5, 6, 40}};
    for (size_t s = 0; s < sizeof sh / sizeof sh[0]; s++) {
        int64_t m = sh[s][0], n = sh[s][1], k = sh[s][2];
        float a[64], b[64], C[12 * 21];
        double want = 0;
        uint64_t st = 3 + s;
        for (int64_t p = 0; p < k; p++) {
            a[p] = (float)th_rand_uniform(&st, -1, 1);
            b[p] = (float)th_rand_uniform(&st, -1, 1);
            want += (double)a[p] * b[p];
        }
        rt_gemm_f32(m, n, k, a, 0, 0, b, 0, 1, C, n, 0);
        for (int64_t i = 0; i < m * n; i++) CHECK_NEAR(C[i], want, 1e-5, 1e-5);
    }
}

/* A transposed op(B) wider than the packing buffer (1 MiB) is packed a
 * block of columns at a time: outer products and rank-16 updates of 20,000
 * columns, one row and three, against a plain double loop. */
TEST(small_products_wide_transposed_operand) {
    enum { N = 20000 };
    static const int64_t sh[][2] = {{1, 16}, {3, 16}, {3, 1}};
    float *A = malloc(sizeof(float) * 3 * 16), *B = malloc(sizeof(float) * N * 16), *C = malloc(sizeof(float) * 3 * N);
    CHECK(A && B && C);
    uint64_t st = 41;
    for (int i = 0; i < 3 * 16; i++) A[i] = (float)th_rand_uniform(&st, -1, 1);
    for (int i = 0; i < N * 16; i++) B[i] = (float)th_rand_uniform(&st, -1, 1);
    int ok = 1;
    for (size_t s = 0; s < sizeof sh / sizeof sh[0] && ok; s++) {
        int64_t m = sh[s][0], k = sh[s][1];
        rt_gemm_f32(m, N, k, A, k, 0, B, k, 1, C, N, 0); /* B stored N×k */
        for (int64_t i = 0; i < m && ok; i++)
            for (int64_t j = 0; j < N && ok; j++) {
                double want = 0;
                for (int64_t p = 0; p < k; p++) want += (double)A[i * k + p] * B[j * k + p];
                ok = th_close(C[i * N + j], want, 1e-5, 1e-5);
                if (!ok) th_fail(__FILE__, __LINE__, "%lldx%dx%lld: C[%lld,%lld] = %g, want %g", (long long)m, N,
                                 (long long)k, (long long)i, (long long)j, C[i * N + j], want);
            }
    }
    free(A), free(B), free(C);
}

/* Rows of a product computed in pieces equal the whole call bit for bit:
 * rows [r0, r1) as their own call (as a fused dot's row blocks are), and,
 * for the big shapes, the whole call on the pool against serial pieces. */
#define DEFINE_SPLIT(T, SFX)                                                                        \
    static int split_##SFX(int64_t m, int64_t n, int64_t k, int ta, int tb, int64_t piece) {        \
        int64_t lda = ta ? m : k, ldb = tb ? k : n;                                                 \
        T *A = malloc(sizeof(T) * (size_t)(m * k)), *B = malloc(sizeof(T) * (size_t)(k * n));       \
        T *C1 = malloc(sizeof(T) * (size_t)(m * n)), *C2 = malloc(sizeof(T) * (size_t)(m * n));     \
        uint64_t st = (uint64_t)(m * 31 + n * 7 + k);                                               \
        for (int64_t i = 0; i < m * k; i++) A[i] = (T)th_rand_uniform(&st, -1, 1);                  \
        for (int64_t i = 0; i < k * n; i++) B[i] = (T)th_rand_uniform(&st, -1, 1);                  \
        rt_gemm_##SFX(m, n, k, A, lda, ta, B, ldb, tb, C1, n, 0);                                   \
        for (int64_t r0 = 0; r0 < m; r0 += piece) {                                                 \
            int64_t r1 = r0 + piece < m ? r0 + piece : m;                                           \
            const T *Ar = ta ? A + r0 : A + r0 * lda;                                               \
            rt_gemm_##SFX(r1 - r0, n, k, Ar, lda, ta, B, ldb, tb, C2 + r0 * n, n, 0);               \
        }                                                                                           \
        int same = memcmp(C1, C2, sizeof(T) * (size_t)(m * n)) == 0;                                \
        free(A), free(B), free(C1), free(C2);                                                       \
        return same;                                                                                \
    }
DEFINE_SPLIT(float, f32)
DEFINE_SPLIT(double, f64)

TEST(small_products_rows_independent_of_split) {
    /* m, n, k, piece: matrix-vector, outer, rank-k, small, shapes big
     * enough (>= 2^18 multiply-adds, or 2^22 for rank-k) for the pool,
     * and a depth-200 product (the direct kernel with AVX-512, the packed
     * GEMM otherwise) in blocks of 16 rows as a fused dot computes it */
    static const int64_t sh[][4] = {{203, 1, 77, 5},  {37, 45, 5, 3},     {29, 31, 17, 4},
                                    {64, 130, 1, 7},  {4096, 1, 300, 16}, {3000, 700, 3, 16},
                                    {2, 5000, 9, 1}, {17, 9, 200, 3},     {300, 64, 200, 16}};
    for (size_t s = 0; s < sizeof sh / sizeof sh[0]; s++)
        for (int t = 0; t < 4; t++) {
            int ta = t & 1, tb = t >> 1;
            CHECK_MSG(split_f32(sh[s][0], sh[s][1], sh[s][2], ta, tb, sh[s][3]),
                      "f32 %lldx%lldx%lld ta=%d tb=%d: rows differ when split", (long long)sh[s][0],
                      (long long)sh[s][1], (long long)sh[s][2], ta, tb);
            CHECK_MSG(split_f64(sh[s][0], sh[s][1], sh[s][2], ta, tb, sh[s][3]),
                      "f64 %lldx%lldx%lld ta=%d tb=%d: rows differ when split", (long long)sh[s][0],
                      (long long)sh[s][1], (long long)sh[s][2], ta, tb);
        }
}

/* A batch of small products (spread over the pool) gives each product the
 * bits of a single call, and the right values. */
TEST(small_products_batch_matches_single_calls) {
    enum { NB = 3000, M = 3, N = 5, K = 4 };
    static float A[NB * M * K], B[NB * K * N], C[NB * M * N], one[M * N];
    uint64_t st = 99;
    for (int i = 0; i < NB * M * K; i++) A[i] = (float)th_rand_uniform(&st, -1, 1);
    for (int i = 0; i < NB * K * N; i++) B[i] = (float)th_rand_uniform(&st, -1, 1);
    for (int t = 0; t < 4; t++) {
        int ta = t & 1, tb = t >> 1;
        int64_t lda = ta ? M : K, ldb = tb ? K : N;
        rt_gemm_batch_f32(NB, M, N, K, A, M * K, lda, ta, B, K * N, ldb, tb, C, M * N, N, 0);
        for (int b = 0; b < NB; b++) {
            const float *a = A + b * M * K, *bb = B + b * K * N;
            rt_gemm_f32(M, N, K, a, lda, ta, bb, ldb, tb, one, N, 0);
            CHECK(memcmp(one, C + b * M * N, sizeof one) == 0);
            for (int i = 0; i < M; i++)
                for (int j = 0; j < N; j++) {
                    double want = 0;
                    for (int p = 0; p < K; p++)
                        want += (double)(ta ? a[p * lda + i] : a[i * lda + p]) * (tb ? bb[j * ldb + p] : bb[p * ldb + j]);
                    CHECK_NEAR(C[b * M * N + i * N + j], want, 1e-5, 1e-6);
                }
        }
    }
    /* zero batch strides: one operand shared by the whole batch */
    rt_gemm_batch_f32(NB, M, N, K, A, 0, K, 0, B, K * N, N, 0, C, M * N, N, 0);
    for (int b = 0; b < NB; b += 97) {
        rt_gemm_f32(M, N, K, A, K, 0, B + b * K * N, N, 0, one, N, 0);
        CHECK(memcmp(one, C + b * M * N, sizeof one) == 0);
    }
}

/* With no scratch for packing (a strided vector, a transposed op(B)) the
 * products still come out right, through the built-in GEMM's loops. */
TEST(small_products_alloc_failure_fallback) {
    static small_problem p;
    static const int64_t sh[][3] = {{9, 1, 13}, {1, 21, 5}, {12, 19, 1}, {7, 11, 4}, {16, 16, 16}};
    rt_gemm_release_scratch();
    rt_gemm_testing_fail_alloc(4);
    int ok = 1;
    for (size_t s = 0; s < sizeof sh / sizeof sh[0] && ok; s++) {
        make_problem(&p, sh[s][0], sh[s][1], sh[s][2], 5 + s);
        for (int t = 0; t < 4 && ok; t++) ok = case_f32(&p, t & 1, t >> 1, t == 3, 3) && case_f64(&p, t & 1, t >> 1, t == 1, 0);
    }
    rt_gemm_testing_fail_alloc(0);
    CHECK(ok);
}
