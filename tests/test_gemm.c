/* test_gemm.c — tests for rt_gemm_f32/f64 (runtime layer, src/runtime/gemm.c).
 *
 * The dot_general primitive and generated code trust these functions for
 * every matrix product, so they are checked here against a naive long double
 * triple loop on shapes chosen to hit every path: empty and k == 0, the
 * direct loops (tiny, m == 1, n == 1), the packed path with edge tiles in
 * both directions, several depth blocks, several column panels (n > NC),
 * and products big enough to go to the thread pool. Each shape runs all
 * four transpose combinations, with and without accumulation, with padded
 * row strides. Padding and (when not accumulating) C itself are filled with
 * NaN, so reading memory the contract says is unused shows up as NaN. The
 * tolerance is the classical bound 2·k·eps·Σ|a||b| per element. */
#include <pthread.h>
#include <stdlib.h>

#include "runtime/gemm.h"
#include "harness.h"
#include "runtime/threads.h"

typedef struct {
    int64_t m, n, k;
} shape;

static const shape shapes[] = {
    {0, 0, 0},    {0, 5, 3},     {5, 0, 3},      {3, 4, 0},      {1, 1, 1},
    {1, 1, 7},    {1, 9, 1},     {7, 1, 1},      {2, 3, 4},      {1, 37, 19},
    {23, 1, 40},  {6, 16, 5},    {6, 16, 64},    {7, 17, 33},    {17, 33, 65},
    {64, 64, 64}, {100, 3, 50},  {3, 100, 50},   {500, 4, 7},    {4, 500, 7},
    {13, 300, 1}, {300, 13, 1},  {37, 41, 600},  {6, 16, 513},   {257, 129, 300},
    {7, 4100, 3}, {5, 1200, 800}, {1, 6000, 800}, {6000, 1, 800}, {150, 150, 150},
    /* matrix · vector within L2, where rowdot prefetches the next rows: an
     * RNN's 256×256, rows not a multiple of 4 with a masked tail, and
     * vector · matrix (the rows of a transposed B) */
    {256, 1, 256}, {97, 1, 130},  {1, 257, 300},
};

/* Logical operands opA (m×k) and opB (k×n) as doubles exactly representable
 * in float, plus the reference product and its error scale Σ|a||b|. */
typedef struct {
    int64_t m, n, k;
    double *a, *b, *c0;      /* opA, opB, initial C for accumulation */
    long double *ref;        /* opA·opB */
    double *mag;             /* Σ_p |a||b| per element */
} problem;

static void problem_make(problem *pr, shape s, uint64_t seed) {
    pr->m = s.m;
    pr->n = s.n;
    pr->k = s.k;
    size_t ma = (size_t)(s.m * s.k) + 1, mb = (size_t)(s.k * s.n) + 1,
           mc = (size_t)(s.m * s.n) + 1;
    pr->a = malloc(ma * sizeof(double));
    pr->b = malloc(mb * sizeof(double));
    pr->c0 = malloc(mc * sizeof(double));
    pr->ref = malloc(mc * sizeof(long double));
    pr->mag = malloc(mc * sizeof(double));
    uint64_t st = seed;
    for (size_t i = 0; i < ma; i++) pr->a[i] = (float)th_rand_uniform(&st, -1, 1);
    for (size_t i = 0; i < mb; i++) pr->b[i] = (float)th_rand_uniform(&st, -1, 1);
    for (size_t i = 0; i < mc; i++) pr->c0[i] = (float)th_rand_uniform(&st, -1, 1);
    for (int64_t i = 0; i < s.m; i++)
        for (int64_t j = 0; j < s.n; j++) {
            long double acc = 0;
            double mag = 0;
            for (int64_t p = 0; p < s.k; p++) {
                double x = pr->a[i * s.k + p], y = pr->b[p * s.n + j];
                acc += (long double)x * y;
                mag += fabs(x) * fabs(y);
            }
            pr->ref[i * s.n + j] = acc;
            pr->mag[i * s.n + j] = mag;
        }
}

static void problem_free(problem *pr) {
    free(pr->a);
    free(pr->b);
    free(pr->c0);
    free(pr->ref);
    free(pr->mag);
}

/* Stores a logical rows×cols matrix, transposed when `trans`, with row
 * stride ld (>= stored columns); padding is NaN. */
#define DEFINE_STORE(T, SFX)                                                       \
    static T *store_##SFX(const double *src, int64_t rows, int64_t cols, int trans, \
                          int64_t ld) {                                            \
        int64_t srows = trans ? cols : rows;                                       \
        size_t len = (size_t)(srows * ld) + 1;                                     \
        T *d = malloc(len * sizeof(T));                                            \
        for (size_t i = 0; i < len; i++) d[i] = (T)NAN;                            \
        for (int64_t r = 0; r < rows; r++)                                         \
            for (int64_t c = 0; c < cols; c++)                                     \
                d[trans ? c * ld + r : r * ld + c] = (T)src[r * cols + c];         \
        return d;                                                                  \
    }
DEFINE_STORE(float, f32)
DEFINE_STORE(double, f64)

/* Runs one (shape, transposes, accumulate, padding) case and compares.
 * Returns 0 and reports through th_fail on the first bad element. */
#define DEFINE_RUN(T, SFX, EPS)                                                       \
    static int run_##SFX(const problem *pr, int ta, int tb, int acc, int64_t pad) {   \
        int64_t m = pr->m, n = pr->n, k = pr->k;                                      \
        int64_t lda = (ta ? m : k) + pad, ldb = (tb ? k : n) + pad, ldc = n + pad;    \
        T *A = store_##SFX(pr->a, m, k, ta, lda);                                     \
        T *B = store_##SFX(pr->b, k, n, tb, ldb);                                     \
        size_t clen = (size_t)(m * ldc) + 1;                                          \
        T *C = malloc(clen * sizeof(T));                                              \
        for (size_t i = 0; i < clen; i++) C[i] = (T)NAN;                              \
        if (acc)                                                                      \
            for (int64_t i = 0; i < m; i++)                                           \
                for (int64_t j = 0; j < n; j++) C[i * ldc + j] = (T)pr->c0[i * n + j]; \
        rt_gemm_##SFX(m, n, k, A, lda, ta, B, ldb, tb, C, ldc, acc);                  \
        int ok = 1;                                                                   \
        for (int64_t i = 0; i < m && ok; i++) {                                       \
            for (int64_t j = 0; j < ldc && ok; j++) {                                 \
                double got = (double)C[i * ldc + j];                                  \
                if (j >= n) { /* padding of C must stay untouched */                  \
                    if (!isnan(got)) {                                                \
                        th_fail(__FILE__, __LINE__,                                   \
                                #SFX " %lldx%lldx%lld ta=%d tb=%d acc=%d: "           \
                                "padding C[%lld,%lld] written",                       \
                                (long long)m, (long long)n, (long long)k, ta, tb,     \
                                acc, (long long)i, (long long)j);                     \
                        ok = 0;                                                       \
                    }                                                                 \
                    continue;                                                         \
                }                                                                     \
                long double want = pr->ref[i * n + j];                                \
                double c0 = acc ? pr->c0[i * n + j] : 0;                              \
                want += c0;                                                           \
                double tol = 2.0 * (double)(k + 1) * EPS * pr->mag[i * n + j] +       \
                             2 * EPS * fabs(c0) + 1e-300;                             \
                if (!(fabsl((long double)got - want) <= tol)) {                       \
                    th_fail(__FILE__, __LINE__,                                       \
                            #SFX " %lldx%lldx%lld ta=%d tb=%d acc=%d pad=%lld: "      \
                            "C[%lld,%lld] = %.9g, want %.9Lg (tol %.3g)",             \
                            (long long)m, (long long)n, (long long)k, ta, tb, acc,    \
                            (long long)pad, (long long)i, (long long)j, got, want,    \
                            tol);                                                     \
                    ok = 0;                                                           \
                }                                                                     \
            }                                                                         \
        }                                                                             \
        free(A);                                                                      \
        free(B);                                                                      \
        free(C);                                                                      \
        return ok;                                                                    \
    }
DEFINE_RUN(float, f32, 5.9604644775390625e-08)
DEFINE_RUN(double, f64, 1.1102230246251565e-16)

/* Every shape × 4 transposes × accumulate on/off; the padding varies with
 * the case so both tight and loose strides are covered. Shapes over 3M
 * multiply-adds (there to reach the thread pool) run 4 of the 8 cases,
 * which still cover all four transpose pairs, to keep the run short. */
static void sweep(int f64) {
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        problem pr;
        problem_make(&pr, shapes[s], 1000 + s);
        int big = shapes[s].m * shapes[s].n * shapes[s].k > 3000000;
        for (int t = 0; t < 8; t++) {
            int ta = t & 1, tb = (t >> 1) & 1, acc = (t >> 2) & 1;
            if (big && (ta ^ tb ^ acc)) continue; /* keeps t = 0, 3, 5, 6 */
            int64_t pad = (t + (int)s) % 3 == 0 ? 0 : (t * 7 + 3) % 13;
            int ok = f64 ? run_f64(&pr, ta, tb, acc, pad) : run_f32(&pr, ta, tb, acc, pad);
            if (!ok) {
                problem_free(&pr);
                return;
            }
        }
        problem_free(&pr);
    }
}

TEST(gemm_f32_shapes_transposes) { sweep(0); }
TEST(gemm_f64_shapes_transposes) { sweep(1); }

/* The same with the kernels capped at AVX2+FMA and at plain C
 * (rt_gemm_testing_isa), so a CPU with AVX-512 also checks the float
 * paths it would not take by itself: the 6×16 packed tile, and the
 * small-product rules without the depth-512 direct kernel. */
TEST(gemm_f32_shapes_transposes_lower_isa) {
    for (int isa = 2; isa >= 1; isa--) {
        rt_gemm_testing_isa(isa);
        sweep(0);
        rt_gemm_testing_isa(0);
        if (th_failed_now()) return;
    }
}

TEST(gemm_backend_name) {
    const char *b = rt_gemm_backend();
    CHECK(b != NULL);
    CHECK(strcmp(b, "built-in") == 0 || strcmp(b, "openblas (cblas)") == 0);
}

/* k == 0: C becomes zero without being read, or stays as it was. */
TEST(gemm_k_zero) {
    float A[1] = {1}, B[1] = {1};
    float C[6];
    for (int i = 0; i < 6; i++) C[i] = NAN;
    rt_gemm_f32(2, 3, 0, A, 0, 0, B, 3, 0, C, 3, 0);
    for (int i = 0; i < 6; i++) CHECK(C[i] == 0.0f);
    double Ad[1] = {1}, Bd[1] = {1}, Cd[6] = {1, 2, 3, 4, 5, 6};
    rt_gemm_f64(2, 3, 0, Ad, 0, 1, Bd, 0, 1, Cd, 3, 1);
    for (int i = 0; i < 6; i++) CHECK(Cd[i] == i + 1);
    /* m == 0 or n == 0 touches nothing. */
    rt_gemm_f64(0, 3, 4, Ad, 4, 0, Bd, 3, 0, NULL, 3, 0);
    rt_gemm_f64(3, 0, 4, Ad, 4, 0, Bd, 0, 0, NULL, 0, 0);
}

/* Zero row strides, as broadcasting produces: every row of A is the same,
 * every column of op(B) is the same. A BLAS rejects these strides, so the
 * CBLAS build must route them to the built-in code. */
TEST(gemm_zero_strides) {
    enum { M = 40, N = 50, K = 30 };
    double arow[K], bcol[K];
    uint64_t st = 7;
    double dot = 0;
    for (int p = 0; p < K; p++) {
        arow[p] = (float)th_rand_uniform(&st, -1, 1);
        bcol[p] = (float)th_rand_uniform(&st, -1, 1);
        dot += arow[p] * bcol[p];
    }
    float af[K], bf[K], C[M * N];
    double ad[K], bd[K], Cd[M * N];
    for (int p = 0; p < K; p++) {
        af[p] = (float)arow[p];
        bf[p] = (float)bcol[p];
        ad[p] = arow[p];
        bd[p] = bcol[p];
    }
    /* op(A) = A with lda 0; op(B) = Bᵀ with B stored n×k, ldb 0. */
    rt_gemm_f32(M, N, K, af, 0, 0, bf, 0, 1, C, N, 0);
    rt_gemm_f64(M, N, K, ad, 0, 0, bd, 0, 1, Cd, N, 0);
    for (int i = 0; i < M * N; i++) {
        CHECK_NEAR(C[i], dot, 1e-5, 1e-5);
        CHECK_NEAR(Cd[i], dot, 1e-13, 1e-13);
    }
}

/* Non-finite inputs reach exactly the outputs they should: zero padding in
 * packed panels must not turn Inf into NaN elsewhere. */
TEST(gemm_nonfinite_propagation) {
    enum { M = 20, N = 37, K = 19 };
    static float A[M * K], B[K * N], C[M * N];
    for (int i = 0; i < M * K; i++) A[i] = 1.0f;
    for (int i = 0; i < K * N; i++) B[i] = 0.5f;
    A[3 * K + 5] = NAN;      /* row 3 of C: NaN */
    A[19 * K + 0] = INFINITY; /* row 19 (an edge sliver): +Inf */
    rt_gemm_f32(M, N, K, A, K, 0, B, N, 0, C, N, 0);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float c = C[i * N + j];
            if (i == 3)
                CHECK(isnan(c));
            else if (i == 19)
                CHECK(isinf(c) && c > 0);
            else
                CHECK(c == 0.5f * K);
        }
}

/* Two user threads multiply at once (each big enough for the pool), and a
 * pool task calls gemm itself (it then runs serially on that worker): the
 * per-thread scratch buffers must not be shared. */
typedef struct {
    int64_t n;
    uint64_t seed;
    int ok;
} conc_job;

static int check_square(int64_t n, uint64_t seed) {
    float *A = malloc((size_t)(n * n) * sizeof(float));
    float *B = malloc((size_t)(n * n) * sizeof(float));
    float *C = malloc((size_t)(n * n) * sizeof(float));
    uint64_t st = seed;
    /* Small integers: every product is exact, so any slip is visible. */
    for (int64_t i = 0; i < n * n; i++) {
        A[i] = (float)(int)th_rand_uniform(&st, -4, 4);
        B[i] = (float)(int)th_rand_uniform(&st, -4, 4);
    }
    rt_gemm_f32(n, n, n, A, n, 0, B, n, 0, C, n, 0);
    int ok = 1;
    for (int64_t i = 0; i < n && ok; i += 7)
        for (int64_t j = 0; j < n && ok; j += 5) {
            double want = 0;
            for (int64_t p = 0; p < n; p++) want += (double)A[i * n + p] * B[p * n + j];
            ok = C[i * n + j] == (float)want;
        }
    free(A);
    free(B);
    free(C);
    return ok;
}

static void *conc_main(void *arg) {
    conc_job *j = arg;
    j->ok = 1;
    for (int r = 0; r < 3 && j->ok; r++) j->ok = check_square(j->n, j->seed + r);
    return NULL;
}

static void nested_task(void *arg, int64_t b, int64_t e) {
    int *ok = arg;
    for (int64_t i = b; i < e; i++)
        if (!check_square(160 + i, 99 + i)) ok[i] = 0;
}

TEST(gemm_concurrent_and_nested) {
    conc_job jobs[2] = {{200, 11, 0}, {231, 12, 0}};
    pthread_t th[2];
    for (int i = 0; i < 2; i++) CHECK(pthread_create(&th[i], NULL, conc_main, &jobs[i]) == 0);
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
    CHECK(jobs[0].ok && jobs[1].ok);
    int ok[4] = {1, 1, 1, 1};
    rt_parallel_for(4, 1, nested_task, ok);
    CHECK(ok[0] && ok[1] && ok[2] && ok[3]);
}

/* Out of memory for packing buffers: the built-in GEMM must still produce
 * the right answer through its unpacked loops, whether the shared B panel
 * (mask 2), the per-task A blocks (mask 1) or both are missing. Sizes
 * include products that go to the pool. The CBLAS build forwards these
 * shapes to BLAS, which does not use this scratch, so it passes trivially. */
TEST(gemm_alloc_failure_fallback) {
    static const shape fs[] = {{17, 33, 65}, {37, 41, 600}, {257, 129, 300}, {5, 1200, 800}};
    int ok = 1;
    for (int mask = 1; mask <= 3 && ok; mask++) {
        rt_gemm_release_scratch();
        rt_gemm_testing_fail_alloc(mask);
        for (size_t s = 0; s < sizeof fs / sizeof fs[0] && ok; s++) {
            problem pr;
            problem_make(&pr, fs[s], 77 + s);
            for (int t = 0; t < 4 && ok; t++) {
                ok = run_f32(&pr, t & 1, t >> 1, t & 1, 2) &&
                     run_f64(&pr, t >> 1, t & 1, !(t & 1), 0);
            }
            problem_free(&pr);
        }
    }
    rt_gemm_testing_fail_alloc(0);
    CHECK(ok);
    /* And afterwards the packed path works again. */
    CHECK(check_square(300, 5));
}
