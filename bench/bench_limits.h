/* bench_limits.h — this machine's limits, measured by `make bench` in the
 * same run as the workloads (shared machines swing 20 % between runs, so a
 * fraction is only meaningful against a limit measured alongside it).
 *
 *   copy   STREAM's "scale" kernel (d[i] = k * s[i]) over 10^7 floats on
 *          cjax's thread pool, buffers touched beforehand: the rate a plain
 *          vectorised loop with ordinary stores reaches, as cjax's kernels
 *          are. Reported in STREAM's convention (bytes read + bytes written).
 *          memcpy is not used: glibc's may pick other store instructions.
 *   fma    peak float32 multiply-add rate: independent FMA chains (AVX-512
 *          where the build targets it, else AVX2) on
 *          every pool thread (2 flops per lane). Without FMA at build time
 *          the estimate is the sgemm rate (said so in `fma_how`).
 *   sgemm  a 1024^3 product through cjax's dot backend (rt_gemm_f32:
 *          OpenBLAS when linked, else the built-in GEMM).
 *
 * Also what the JSON records about the machine: CPU model, cores, the
 * compilers, the date. Header-only: CMake makes one program per .c file in bench/. */
#ifndef CJ_BENCH_LIMITS_H
#define CJ_BENCH_LIMITS_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#if defined(__FMA__) && defined(__AVX__)
#include <immintrin.h>
#endif

#include "bench_util.h"
#include "runtime/gemm.h"
#include "runtime/threads.h"

#define LIMIT_N 10000000

typedef struct bench_limits {
    double copy_gbs;     /* STREAM scale, read + write bytes per second */
    double fma_gflops;   /* peak float32 FLOP/s estimate */
    double sgemm_gflops; /* 1024^3 sgemm through the dot backend */
    const char *fma_how; /* how fma_gflops was obtained */
    int threads;         /* pool threads the limits ran on */
} bench_limits;

/* ---- copy ---- */
typedef struct scale_arg {
    const float *src;
    float *dst;
} scale_arg;
static void scale_range(void *p, int64_t b, int64_t e) {
    scale_arg *a = p;
    for (int64_t i = b; i < e; i++) a->dst[i] = 1.0001f * a->src[i];
}

/* ---- FMA peak ---- */
#define FMA_UNIT_ITERS 100000
#if defined(__FMA__) && defined(__AVX__)
/* Ten independent accumulators cover the FMA latency (4-5 cycles) times
 * the pipes (2) of current x86 cores. */
/* The widest FMA the build targets: AVX-512 where the compiler may use
 * it (its peak is twice AVX2's on cores with two 512-bit FMA pipes). */
#if defined(__AVX512F__)
#define FMA_LANES 16
#define FMA_VEC __m512
#define FMA_SET1 _mm512_set1_ps
#define FMA_FMADD _mm512_fmadd_ps
#define FMA_ADD _mm512_add_ps
#define FMA_STORE _mm512_storeu_ps
#define FMA_HOW "AVX-512 FMA loop on every pool thread"
#else
#define FMA_LANES 8
#define FMA_VEC __m256
#define FMA_SET1 _mm256_set1_ps
#define FMA_FMADD _mm256_fmadd_ps
#define FMA_ADD _mm256_add_ps
#define FMA_STORE _mm256_storeu_ps
#define FMA_HOW "AVX2 FMA loop on every pool thread"
#endif
static void fma_range(void *p, int64_t b, int64_t e) {
    float *sink = p;
    for (int64_t u = b; u < e; u++) {
        FMA_VEC m = FMA_SET1(0.999999f), c = FMA_SET1(1e-7f);
        FMA_VEC a0 = FMA_SET1(1.0f), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0, a8 = a0,
                a9 = a0;
        for (int i = 0; i < FMA_UNIT_ITERS; i++) {
            a0 = FMA_FMADD(a0, m, c), a1 = FMA_FMADD(a1, m, c);
            a2 = FMA_FMADD(a2, m, c), a3 = FMA_FMADD(a3, m, c);
            a4 = FMA_FMADD(a4, m, c), a5 = FMA_FMADD(a5, m, c);
            a6 = FMA_FMADD(a6, m, c), a7 = FMA_FMADD(a7, m, c);
            a8 = FMA_FMADD(a8, m, c), a9 = FMA_FMADD(a9, m, c);
        }
        FMA_VEC s = FMA_ADD(FMA_ADD(FMA_ADD(a0, a1), FMA_ADD(a2, a3)),
                            FMA_ADD(FMA_ADD(FMA_ADD(a4, a5), FMA_ADD(a6, a7)), FMA_ADD(a8, a9)));
        float lanes[FMA_LANES];
        FMA_STORE(lanes, s);
        sink[u] = lanes[0]; /* keeps the loop alive */
    }
}
#define FMA_FLOPS_PER_UNIT (2.0 * FMA_LANES * 10 * FMA_UNIT_ITERS)
#endif

typedef struct gemm_arg {
    float *a, *b, *c;
} gemm_arg;

static void limits_copy(void *p) {
    rt_parallel_for(LIMIT_N, LIMIT_N / 64, scale_range, p);
}
static void limits_gemm(void *p) {
    gemm_arg *g = p;
    rt_gemm_f32(1024, 1024, 1024, g->a, 1024, 0, g->b, 1024, 0, g->c, 1024, 0);
}

/* Median milliseconds of `reps` calls after a warm-up call. */
static double limits_median_ms(void (*fn)(void *), void *arg, int reps) {
    double t[32];
    if (reps > 32) reps = 32;
    fn(arg);
    for (int i = 0; i < reps; i++) {
        double t0 = now_ms();
        fn(arg);
        t[i] = now_ms() - t0;
    }
    qsort(t, (size_t)reps, sizeof t[0], cmp_double);
    return t[reps / 2];
}

/* The fastest of max(reps, 9) calls after a warm-up call: a limit is what
 * the machine reaches, and on a shared machine a median of a few runs
 * measures the neighbours' load as well (a loaded run's median copy came to
 * 7.8 GB/s, and then a plain x + y ran at 2.9 times that "limit"). */
static double limits_best_ms(void (*fn)(void *), void *arg, int reps) {
    double best = INFINITY;
    if (reps < 9) reps = 9;
    fn(arg);
    for (int i = 0; i < reps; i++) {
        double t0 = now_ms();
        fn(arg);
        double dt = now_ms() - t0;
        if (dt < best) best = dt;
    }
    return best;
}

#if defined(__FMA__) && defined(__AVX__)
typedef struct fma_arg {
    float *sink;
    int64_t units;
} fma_arg;
static void limits_fma(void *p) {
    fma_arg *f = p;
    rt_parallel_for(f->units, 1, fma_range, f->sink);
}
#endif

/* Measures all three; returns 0, or -1 when memory runs out. */
static int limits_measure(bench_limits *l, int reps) {
    memset(l, 0, sizeof *l);
    l->threads = rt_num_threads();
    float *src = malloc(sizeof(float) * LIMIT_N), *dst = malloc(sizeof(float) * LIMIT_N);
    float *ga = malloc(sizeof(float) << 20), *gb = malloc(sizeof(float) << 20), *gc = malloc(sizeof(float) << 20);
    int ok = src && dst && ga && gb && gc;
    if (ok) {
        for (int64_t i = 0; i < LIMIT_N; i++) src[i] = (float)(i & 1023), dst[i] = 0; /* first touch */
        for (int i = 0; i < 1 << 20; i++) ga[i] = gb[i] = (float)(i % 17) * 0.1f, gc[i] = 0;
        scale_arg sa = {src, dst};
        l->copy_gbs = 2.0 * sizeof(float) * LIMIT_N / (limits_best_ms(limits_copy, &sa, reps) * 1e6);
        gemm_arg g = {ga, gb, gc};
        l->sgemm_gflops = 2.0 * 1024 * 1024 * 1024 / (limits_best_ms(limits_gemm, &g, reps) * 1e6);
#if defined(__FMA__) && defined(__AVX__)
        fma_arg f = {ga, 16 * (int64_t)l->threads}; /* several units per thread balance the pool */
        l->fma_gflops = FMA_FLOPS_PER_UNIT * (double)f.units / (limits_best_ms(limits_fma, &f, reps) * 1e6);
        l->fma_how = FMA_HOW;
#else
        l->fma_gflops = l->sgemm_gflops;
        l->fma_how = "no FMA at build time: the sgemm rate stands in";
#endif
    }
    free(src), free(dst), free(ga), free(gb), free(gc);
    return ok ? 0 : -1;
}

/* ---- the copy measured in every round ----
 * A row's bandwidth is compared with a copy measured in the same round,
 * right after the row's cjax calls (bench_rounds.h), so both see the same
 * load: the fastest of three STREAM-scale copies (as the limit above) of
 * LIMIT_N floats between two buffers kept for the whole run. GB/s as
 * STREAM counts (bytes read + written), NaN when memory runs out. */
static double limits_round_copy_gbs(void) {
    static float *src, *dst;
    if (!src) {
        src = malloc(sizeof(float) * LIMIT_N), dst = malloc(sizeof(float) * LIMIT_N);
        if (!src || !dst) {
            free(src), free(dst);
            src = dst = NULL;
            return NAN;
        }
        for (int64_t i = 0; i < LIMIT_N; i++) src[i] = (float)(i & 1023), dst[i] = 0; /* first touch */
    }
    scale_arg sa = {src, dst};
    double best = INFINITY;
    for (int i = 0; i < 3; i++) {
        double t0 = now_ms();
        limits_copy(&sa);
        double dt = now_ms() - t0;
        if (dt < best) best = dt;
    }
    return 2.0 * sizeof(float) * LIMIT_N / (best * 1e6);
}

/* ---- machine description ---- */
typedef struct bench_machine {
    char cpu[128];       /* /proc/cpuinfo's model name, else uname's machine */
    int cores;           /* online cores */
    char compiler[96];   /* the compiler that built this program */
    char cc[128];        /* first line of `$CJAX_CC --version` (generated C) */
    char os[160];        /* uname -sr */
    char date[32];       /* UTC, ISO 8601 */
} bench_machine;

static void first_line(char *dst, size_t size, FILE *f) {
    dst[0] = 0;
    if (f && fgets(dst, (int)size, f)) dst[strcspn(dst, "\n")] = 0;
}

static void machine_describe(bench_machine *m) {
    memset(m, 0, sizeof *m);
    struct utsname u;
    int have_uname = uname(&u) == 0;
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[256];
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            const char *v = strchr(line, ':');
            if (v) snprintf(m->cpu, sizeof m->cpu, "%s", v + 1 + (v[1] == ' '));
            m->cpu[strcspn(m->cpu, "\n")] = 0;
            break;
        }
    }
    if (f) fclose(f);
    if (!m->cpu[0] && have_uname) snprintf(m->cpu, sizeof m->cpu, "%s", u.machine);
    m->cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
#if defined(__clang__)
    snprintf(m->compiler, sizeof m->compiler, "clang %s", __clang_version__);
#elif defined(__GNUC__)
    snprintf(m->compiler, sizeof m->compiler, "gcc %s", __VERSION__);
#else
    snprintf(m->compiler, sizeof m->compiler, "unknown");
#endif
    const char *cc = getenv("CJAX_CC");
    char cmd[200];
    snprintf(cmd, sizeof cmd, "%s --version 2>/dev/null", cc && *cc ? cc : "cc");
    FILE *p = popen(cmd, "r");
    first_line(m->cc, sizeof m->cc, p);
    if (p) pclose(p);
    if (have_uname) snprintf(m->os, sizeof m->os, "%s %s", u.sysname, u.release);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(m->date, sizeof m->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

#endif
