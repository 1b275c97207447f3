/* bench_gemm.c — throughput of the runtime's GEMM (runtime layer benchmark).
 *
 * rt_gemm_f32/f64 (src/runtime/gemm.c) carry every dot_general, so this
 * standalone program times square products at n = 256, 512, 1024 and prints
 * GFLOP/s (2n³ flops per product) for the built-in GEMM with 1 and 2 pool
 * threads and, when built with -DBENCH_OPENBLAS, for OpenBLAS called
 * directly with the same thread counts. Each thread count runs in a forked
 * child, because the pool reads CJAX_NUM_THREADS once when it starts. The
 * machine's single-thread FMA peak is measured in the same run, since these
 * shared machines swing by 20 % between runs (shared/MEASURED.md): compare
 * ratios, not absolute figures.
 *
 * Then, on one thread, the small products that gemm_small.c serves: an
 * RNN step's matrix-vector products (W·h, hᵀ·W), outer products and
 * rank-k updates (a per-example weight gradient), small products, and a
 * batch of thousands of 4×4 products through rt_gemm_batch — each as the
 * median time of one call and its GFLOP/s; and, on a CPU with AVX-512,
 * mid-sized and large products on this process's kernels (the direct
 * kernel or the AVX-512 packed tile, as rt_gemm picks) against the AVX2
 * packed tile (the kernels capped with rt_gemm_testing_isa). `--small`
 * runs only these.
 * To compare with an older gemm.c, build this file against it with
 * -DBENCH_NO_BATCH (the batch is then a loop of rt_gemm calls).
 *
 * Build (built-in only):
 *   gcc -O3 -march=native -std=c11 -Iinclude -Isrc bench/bench_gemm.c \
 *       src/runtime/gemm.c src/runtime/gemm_small.c src/runtime/threads.c \
 *       src/runtime/config.c -lpthread -lm
 * With OpenBLAS as the peer: add -DBENCH_OPENBLAS -I<openblas include> -lopenblas.
 * Do not define CJAX_HAVE_CBLAS here: rt_gemm would then be OpenBLAS too. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runtime/gemm.h"

#ifdef BENCH_OPENBLAS
#include <cblas.h>
#endif

#include "bench_util.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Runs `run` until about 0.4 s have passed (at least 3 times, after one
 * warm-up call that also touches C) and returns the best and median
 * GFLOP/s. Best is the machine's capability, median what a user sees. */
typedef void (*bench_fn)(int n, void *A, void *B, void *C);

static void measure(bench_fn run, int n, void *A, void *B, void *C, double *best,
                    double *median) {
    double flops = 2.0 * n * (double)n * n;
    double times[200];
    int reps = 0;
    run(n, A, B, C);
    double start = now_s();
    while (reps < 200 && (reps < 3 || now_s() - start < 0.4)) {
        double t0 = now_s();
        run(n, A, B, C);
        times[reps++] = now_s() - t0;
    }
    qsort(times, (size_t)reps, sizeof times[0], cmp_double);
    *best = flops / times[0] * 1e-9;
    *median = flops / times[reps / 2] * 1e-9;
}

static void run_builtin_f32(int n, void *A, void *B, void *C) {
    rt_gemm_f32(n, n, n, A, n, 0, B, n, 0, C, n, 0);
}
static void run_builtin_f64(int n, void *A, void *B, void *C) {
    rt_gemm_f64(n, n, n, A, n, 0, B, n, 0, C, n, 0);
}
#ifdef BENCH_OPENBLAS
static void run_openblas_f32(int n, void *A, void *B, void *C) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, A, n, B, n, 0.0f,
                C, n);
}
static void run_openblas_f64(int n, void *A, void *B, void *C) {
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, A, n, B, n, 0.0, C,
                n);
}
#endif

/* Single-thread float32 FMA peak: 12 independent 8-wide FMA chains, the
 * same register budget as the GEMM micro-kernel. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
__attribute__((target("avx2,fma"), noinline)) static float fma_loop(int64_t iters, float s) {
    /* Distinct starting values: identical chains would be merged into one
     * by the compiler (common subexpressions), measuring latency instead. */
    __m256 a = _mm256_set1_ps(s), b = _mm256_set1_ps(0.999999f);
    __m256 c0 = _mm256_set1_ps(s + 1), c1 = _mm256_set1_ps(s + 2), c2 = _mm256_set1_ps(s + 3),
           c3 = _mm256_set1_ps(s + 4), c4 = _mm256_set1_ps(s + 5), c5 = _mm256_set1_ps(s + 6),
           c6 = _mm256_set1_ps(s + 7), c7 = _mm256_set1_ps(s + 8), c8 = _mm256_set1_ps(s + 9),
           c9 = _mm256_set1_ps(s + 10), c10 = _mm256_set1_ps(s + 11), c11 = _mm256_set1_ps(s + 12);
    for (int64_t i = 0; i < iters; i++) {
        c0 = _mm256_fmadd_ps(c0, b, a);
        c1 = _mm256_fmadd_ps(c1, b, a);
        c2 = _mm256_fmadd_ps(c2, b, a);
        c3 = _mm256_fmadd_ps(c3, b, a);
        c4 = _mm256_fmadd_ps(c4, b, a);
        c5 = _mm256_fmadd_ps(c5, b, a);
        c6 = _mm256_fmadd_ps(c6, b, a);
        c7 = _mm256_fmadd_ps(c7, b, a);
        c8 = _mm256_fmadd_ps(c8, b, a);
        c9 = _mm256_fmadd_ps(c9, b, a);
        c10 = _mm256_fmadd_ps(c10, b, a);
        c11 = _mm256_fmadd_ps(c11, b, a);
    }
    __m256 s1 = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(c0, c1), _mm256_add_ps(c2, c3)),
                              _mm256_add_ps(_mm256_add_ps(c4, c5), _mm256_add_ps(c6, c7)));
    s1 = _mm256_add_ps(s1, _mm256_add_ps(_mm256_add_ps(c8, c9), _mm256_add_ps(c10, c11)));
    float out[8];
    _mm256_storeu_ps(out, s1);
    return out[0] + out[7];
}

static double fma_peak_gflops(void) {
    if (!(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))) return 0;
    int64_t iters = 20 * 1000 * 1000;
    double best = 0;
    volatile float sink = 0;
    for (int r = 0; r < 5; r++) {
        double t0 = now_s();
        sink += fma_loop(iters, 1.0f + (float)r);
        double g = (double)iters * 12 * 8 * 2 / (now_s() - t0) * 1e-9;
        if (g > best) best = g;
    }
    (void)sink;
    return best;
}
#else
static double fma_peak_gflops(void) { return 0; }
#endif

static void bench_threads(int threads) {
    static const int sizes[] = {256, 512, 1024};
    size_t max = 1024 * 1024;
    float *A = aligned_alloc(64, max * sizeof(double)), *B = aligned_alloc(64, max * sizeof(double)),
          *C = aligned_alloc(64, max * sizeof(double));
    if (!A || !B || !C) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    /* Fill as doubles and as floats (the float view reuses the first half). */
    double *Ad = (double *)A, *Bd = (double *)B;
    uint64_t s = 12345;
    for (size_t i = 0; i < max; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        Ad[i] = (double)(s >> 40) / (double)(1 << 24) - 0.5;
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        Bd[i] = (double)(s >> 40) / (double)(1 << 24) - 0.5;
    }
    memset(C, 0, max * sizeof(double));
#ifdef BENCH_OPENBLAS
    openblas_set_num_threads(threads);
#endif
    for (int dt = 0; dt < 2; dt++) {
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            int n = sizes[si];
            double best, med;
            measure(dt ? run_builtin_f64 : run_builtin_f32, n, A, B, C, &best, &med);
            printf("%-6s n=%-5d threads=%d  built-in  %7.1f GFLOP/s best  %7.1f median\n",
                   dt ? "dgemm" : "sgemm", n, threads, best, med);
#ifdef BENCH_OPENBLAS
            measure(dt ? run_openblas_f64 : run_openblas_f32, n, A, B, C, &best, &med);
            printf("%-6s n=%-5d threads=%d  openblas  %7.1f GFLOP/s best  %7.1f median\n",
                   dt ? "dgemm" : "sgemm", n, threads, best, med);
#endif
            fflush(stdout);
        }
    }
    free(A);
    free(B);
    free(C);
}

/* ---- small products, one thread ---- */
typedef struct {
    const char *what;
    int64_t batch, m, n, k;
    int ta, tb;
} small_case;

static const small_case small_cases[] = {
    {"W h, RNN step", 1, 256, 1, 256, 0, 0},
    {"h^T W (vector-matrix)", 1, 1, 256, 256, 0, 0},
    {"W h, W stored transposed", 1, 256, 1, 256, 1, 0},
    {"matrix-vector 1024", 1, 1024, 1, 1024, 0, 0},
    {"outer product 64x128", 1, 64, 128, 1, 0, 0},
    {"outer, strided operand", 1, 64, 128, 1, 0, 1},
    {"rank-4 update 256x256", 1, 256, 256, 4, 0, 0},
    {"rank-16 update 256x256", 1, 256, 256, 16, 1, 0},
    {"small 8x8x8", 1, 8, 8, 8, 0, 0},
    {"small 32x32x32", 1, 32, 32, 32, 0, 0},
    {"batch 10000 of 4x4x4", 10000, 4, 4, 4, 0, 0},
    {"batch 2000 of 8x16x8", 2000, 8, 16, 8, 0, 1},
};

static double small_once(const small_case *c, const float *A, const float *B, float *C) {
    int64_t lda = c->ta ? c->m : c->k, ldb = c->tb ? c->k : c->n;
    double t0 = now_s();
#ifdef BENCH_NO_BATCH
    for (int64_t b = 0; b < c->batch; b++)
        rt_gemm_f32(c->m, c->n, c->k, A + b * c->m * c->k, lda, c->ta, B + b * c->k * c->n, ldb, c->tb,
                    C + b * c->m * c->n, c->n, 0);
#else
    rt_gemm_batch_f32(c->batch, c->m, c->n, c->k, A, c->m * c->k, lda, c->ta, B, c->k * c->n, ldb, c->tb, C,
                      c->m * c->n, c->n, 0);
#endif
    return now_s() - t0;
}

static void bench_small(void) {
    size_t max = 1 << 21;
    float *A = aligned_alloc(64, max * sizeof(float)), *B = aligned_alloc(64, max * sizeof(float)),
          *C = aligned_alloc(64, max * sizeof(float));
    if (!A || !B || !C) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    uint64_t s = 777;
    for (size_t i = 0; i < max; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        A[i] = (float)((double)(s >> 40) / (double)(1 << 24) - 0.5);
        B[i] = (float)((double)(s >> 20 & 0xffffff) / (double)(1 << 24) - 0.5);
    }
    memset(C, 0, max * sizeof(float));
#ifndef BENCH_NO_BATCH
    printf("small products (1 thread, %s kernels):\n", rt_gemm_small_isa_name());
#else
    printf("small products (1 thread, this gemm.c's own loops):\n");
#endif
    for (size_t i = 0; i < sizeof small_cases / sizeof small_cases[0]; i++) {
        const small_case *c = &small_cases[i];
        double times[400];
        int reps = 0;
        small_once(c, A, B, C);
        double start = now_s();
        while (reps < 400 && (reps < 5 || now_s() - start < 0.25)) times[reps++] = small_once(c, A, B, C);
        qsort(times, (size_t)reps, sizeof times[0], cmp_double);
        double med = times[reps / 2], flops = 2.0 * (double)(c->batch * c->m * c->n * c->k);
        printf("  %-28s %4lldx%-4lldx%-4lld ta=%d tb=%d  %9.2f us  %6.1f GFLOP/s\n", c->what,
               (long long)c->m, (long long)c->n, (long long)c->k, c->ta, c->tb, med * 1e6,
               flops / med * 1e-9);
        fflush(stdout);
    }
#ifndef BENCH_NO_BATCH
    static const int64_t mid[][3] = {{128, 256, 256}, {256, 256, 256}, {256, 10, 512},
                                     {512, 512, 512}, {256, 512, 784}, {1024, 1024, 1024}};
    if (strcmp(rt_gemm_small_isa_name(), "AVX-512") == 0) {
        printf("products, 1 thread: AVX-512 kernels vs the AVX2 packed tile (GFLOP/s, median)\n");
        for (size_t i = 0; i < sizeof mid / sizeof mid[0]; i++) {
            double g[2];
            for (int packed = 0; packed < 2; packed++) {
                small_case c = {"", 1, mid[i][0], mid[i][1], mid[i][2], 0, 0};
                rt_gemm_testing_isa(packed ? 2 : 0);
                double times[100];
                int reps = 0;
                small_once(&c, A, B, C);
                double start = now_s();
                while (reps < 100 && (reps < 5 || now_s() - start < 0.25)) times[reps++] = small_once(&c, A, B, C);
                qsort(times, (size_t)reps, sizeof times[0], cmp_double);
                g[packed] = 2.0 * (double)(c.m * c.n * c.k) / times[reps / 2] * 1e-9;
            }
            rt_gemm_testing_isa(0);
            printf("  %4lldx%-4lldx%-4lld  AVX-512 %6.1f   AVX2 %6.1f\n", (long long)mid[i][0],
                   (long long)mid[i][1], (long long)mid[i][2], g[0], g[1]);
            fflush(stdout);
        }
    }
#endif
    free(A);
    free(B);
    free(C);
}

int main(int argc, char **argv) {
    int only_small = argc > 1 && strcmp(argv[1], "--small") == 0;
    if (only_small) {
        setenv("CJAX_NUM_THREADS", "1", 1);
        bench_small();
        return 0;
    }
    printf("gemm backend compiled into rt_gemm: %s\n", rt_gemm_backend());
    double peak = fma_peak_gflops();
    if (peak > 0) printf("float32 FMA peak, 1 thread: %.1f GFLOP/s (float64: half)\n", peak);
    fflush(stdout);
    /* The parent never calls gemm, so neither pool has started when it
     * forks: each child starts its own with the thread count it was given. */
    for (int threads = 1; threads <= 2; threads++) {
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork");
            return 1;
        }
        if (pid == 0) {
            char buf[16];
            snprintf(buf, sizeof buf, "%d", threads);
            setenv("CJAX_NUM_THREADS", buf, 1);
            setenv("OPENBLAS_NUM_THREADS", buf, 1);
            bench_threads(threads);
            fflush(stdout);
            _exit(0);
        }
        int status = 0;
        waitpid(pid, &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return 1;
    }
    pid_t pid = fork(); /* a fresh pool with one thread */
    if (pid < 0) {
        perror("fork");
        return 1;
    }
    if (pid == 0) {
        setenv("CJAX_NUM_THREADS", "1", 1);
        bench_small();
        fflush(stdout);
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
