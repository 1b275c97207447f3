/* gemm.c — float32/float64 matrix multiply (runtime layer).
 *
 * The dot_general primitive and generated code call rt_gemm_f32/f64 (see
 * gemm.h). Matrix-vector shapes, short depths and small products go first
 * to gemm_small.c's register kernels; the rest to one of this file's two
 * backends: a thin forwarder to CBLAS when the build defines
 * CJAX_HAVE_CBLAS, and a built-in GEMM in the style of GotoBLAS/BLIS that
 * is always compiled (it also serves the layouts a BLAS rejects, such as
 * zero row strides from broadcasting, or sizes past INT_MAX). Batches of
 * products (rt_gemm_batch) are spread over the pool here.
 *
 * Built-in algorithm (Goto & van de Geijn, "Anatomy of high-performance
 * matrix multiplication"; Van Zee & van de Geijn, BLIS):
 *   for jc over n in NC columns        — a KC×NC panel of B lives in L3
 *     for pc over k in KC steps        — pack op(B)[pc:pc+kc, jc:jc+nc]
 *       for ic over m in MC rows       — pack op(A)[ic:ic+mc, pc:pc+kc] (L2)
 *         for jr over NR columns       — one KC×NR sliver of B sits in L1
 *           for ir over MR rows        — micro-kernel: MR×NR tile of C kept
 *                                        in registers across kc rank-1 updates
 * Packing makes every operand stream contiguous and aligned whatever the
 * transposes and strides, and zero-pads partial panels so the micro-kernel
 * always runs at full width; only the write-back of an edge tile is partial.
 *
 * Micro-kernels: on x86-64 an AVX2+FMA kernel written with intrinsics under
 * __attribute__((target)), chosen at run time with __builtin_cpu_supports,
 * so the fast path is there even when the library is built without
 * -march=native; for floats on a CPU with AVX-512 a 6×32 tile of its own
 * (a separate instantiation, B packed 32 wide: 1024³ on one thread 180–185
 * vs 115 GFLOP/s for the AVX2 tile, measured side by side); everywhere
 * else a plain C kernel that compilers vectorise. The choice follows
 * gemm_small_isa(), so rt_gemm_testing_isa reaches every kernel.
 * (-std=c11 turns off FMA contraction in gcc, so plain C alone would lose
 * half the peak; explicit FMA intrinsics avoid depending on flags.)
 *
 * Threads: the ic blocks (and, when there are too few of them, groups of jr
 * slivers) of one (jc, pc) step are independent and are spread over the
 * pool with rt_parallel_for; all tasks share the packed B. Packing of B is
 * spread the same way. Small products stay serial. Scratch buffers are
 * per thread and kept between calls (fresh pages cost more than the
 * packing itself, see shared/MEASURED.md).
 *
 * The body that depends on the element type is written once, below the
 * "template pass" marker, and instantiated for float and double by this
 * file including itself with T/SFX and the blocking parameters defined. */

#ifndef GEMM_TEMPLATE_PASS /* ================= shared part ================ */

#include "gemm.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "gemm_small.h"
#include "half.h"
#include "threads.h"

#ifdef CJAX_HAVE_CBLAS
#include <cblas.h>
#include <limits.h>
#endif

#if !defined(CJAX_GEMM_GENERIC) && defined(__x86_64__) && \
    (defined(__GNUC__) || defined(__clang__))
#define GEMM_X86_AVX2 1
#include <immintrin.h>
#define GEMM_TARGET_AVX2 __attribute__((target("avx2,fma")))
#endif

#define GEMM_CAT_(a, b) a##_##b
#define GEMM_CAT(a, b) GEMM_CAT_(a, b)
#define GEMM_MIN(a, b) ((a) < (b) ? (a) : (b))
#define GEMM_MAX(a, b) ((a) > (b) ? (a) : (b))
#define GEMM_CEIL_DIV(a, b) (((a) + (b) - 1) / (b))

/* Below this many multiply-adds (m·n·k) packing costs more than it saves
 * and the direct loops are used (products this small normally never get
 * here: gemm_small.c takes them; these loops serve when its scratch
 * memory cannot be had). Measured: the packed path already wins at
 * 8×8×8 (6 vs 4.5 GFLOP/s) and by 3–4× at 16×16×16. */
#define GEMM_SMALL_WORK ((double)(6 * 6 * 6))
/* Threads pay only when the work saved beats the pool's fork-join, which
 * costs 7 µs on an idle 2-core machine and 30–40 µs on average when other
 * processes keep the second core busy (measured). 2^22 multiply-adds
 * (about 160³) take ~90 µs on one thread at 90 GFLOP/s. */
#define GEMM_PAR_WORK ((double)(1 << 22))
/* Every (jc, pc) step costs two fork-joins (pack B, then the blocks), so a
 * step is split only if it alone is worth it (~45 µs of work). */
#define GEMM_PAR_STEP_WORK ((double)(1 << 21))

/* ---- per-thread scratch ------------------------------------------------
 * Two buffers per thread: the packed A block (each task's own) and the
 * packed B panel (owned by the thread that called rt_gemm, shared with the
 * workers during the call). They grow on demand and are kept for the next
 * call; a pthread key frees them when a user thread exits. */
enum { GEMM_BUF_A = 0, GEMM_BUF_B = 1, GEMM_BUF_SMALL = GEMM_SCRATCH_SMALL, GEMM_NBUF = 3 };
typedef struct {
    void *p[GEMM_NBUF];
    size_t cap[GEMM_NBUF];
    int registered;
} gemm_scratch_set;

static _Thread_local gemm_scratch_set scratch;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;
static pthread_key_t scratch_key;
static int scratch_key_ok;

static void scratch_release(void *v) {
    gemm_scratch_set *s = v;
    for (int i = 0; i < GEMM_NBUF; i++) {
        free(s->p[i]);
        s->p[i] = NULL;
        s->cap[i] = 0;
    }
}

void rt_gemm_release_scratch(void) { scratch_release(&scratch); }

static atomic_int scratch_fail_mask; /* rt_gemm_testing_fail_alloc */

void rt_gemm_testing_fail_alloc(int mask) { atomic_store(&scratch_fail_mask, mask); }

static void scratch_key_init(void) {
    scratch_key_ok = pthread_key_create(&scratch_key, scratch_release) == 0;
}

/* A 64-byte aligned buffer of at least `bytes`, or NULL when out of memory
 * (callers then compute without packing). */
static void *scratch_get(int which, size_t bytes) {
    gemm_scratch_set *s = &scratch;
    if (s->cap[which] >= bytes) return s->p[which];
    if (!s->registered) {
        pthread_once(&scratch_once, scratch_key_init);
        if (scratch_key_ok) pthread_setspecific(scratch_key, s);
        s->registered = 1;
    }
    free(s->p[which]);
    s->p[which] = NULL;
    s->cap[which] = 0;
    if (atomic_load_explicit(&scratch_fail_mask, memory_order_relaxed) & (1 << which))
        return NULL;
    size_t size = (bytes + 4095) & ~(size_t)4095; /* aligned_alloc wants a multiple */
    if (size < bytes) return NULL;                /* overflow */
    void *p = aligned_alloc(64, size);
    if (p) {
        s->p[which] = p;
        s->cap[which] = size;
    }
    return p;
}

void *gemm_scratch(int which, size_t bytes) { return scratch_get(which, bytes); }

/* ---- AVX2 + FMA micro-kernels -------------------------------------------
 * Tile 6×16 floats / 6×8 doubles: 12 ymm accumulators, two ymm of B and one
 * broadcast of A per step — 15 of the 16 ymm registers, and 12 independent
 * FMA chains, enough to cover Zen 3's 2 FMA pipes × 4-cycle latency.
 * a: MR values per step (packed A sliver), b: NR values per step (packed B
 * sliver, 64-byte aligned). The tile goes to C (ldc) with mr×nr valid; with
 * `beta` the old C is added, otherwise it is overwritten unread. */
#ifdef GEMM_X86_AVX2

GEMM_TARGET_AVX2
static void ukr_avx2_f32(int64_t kc, const float *restrict a, const float *restrict b,
                         float *restrict c, int64_t ldc, int mr, int nr, int beta) {
    __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00,
           c21 = c00, c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
    /* Start pulling the C tile in now; it is needed only after the loop. */
    for (int r = 0; r < mr; r++) {
        _mm_prefetch((const char *)(c + r * ldc), _MM_HINT_T0);
        _mm_prefetch((const char *)(c + r * ldc + 15), _MM_HINT_T0);
    }
#define GEMM_S_ROW(i, ap, b0, b1)                                   \
    do {                                                            \
        __m256 av = _mm256_broadcast_ss((ap) + (i));                \
        c##i##0 = _mm256_fmadd_ps(av, b0, c##i##0);                 \
        c##i##1 = _mm256_fmadd_ps(av, b1, c##i##1);                 \
    } while (0)
#define GEMM_S_STEP()                                               \
    do {                                                            \
        const float *ap = a;                                        \
        __m256 b0 = _mm256_load_ps(b);                              \
        __m256 b1 = _mm256_load_ps(b + 8);                          \
        GEMM_S_ROW(0, ap, b0, b1);                                  \
        GEMM_S_ROW(1, ap, b0, b1);                                  \
        GEMM_S_ROW(2, ap, b0, b1);                                  \
        GEMM_S_ROW(3, ap, b0, b1);                                  \
        GEMM_S_ROW(4, ap, b0, b1);                                  \
        GEMM_S_ROW(5, ap, b0, b1);                                  \
    } while (0)
    /* Deliberately not unrolled: unrolled by 2 or 4, gcc 12 runs short of
     * registers and turns B loads into memory operands of the FMAs (6× the
     * loads), costing 10–40 %; the plain loop compiles to the ideal 2 loads,
     * 6 broadcasts and 12 FMAs per step, and the loop overhead hides in the
     * spare integer ports. */
    for (int64_t p = 0; p < kc; p++) {
        GEMM_S_STEP();
        a += 6;
        b += 16;
    }
#undef GEMM_S_STEP
#undef GEMM_S_ROW
    if (mr == 6 && nr == 16) {
#define GEMM_S_STORE(i)                                                 \
    do {                                                                \
        float *cr = c + (i) * ldc;                                      \
        if (beta) {                                                     \
            c##i##0 = _mm256_add_ps(c##i##0, _mm256_loadu_ps(cr));      \
            c##i##1 = _mm256_add_ps(c##i##1, _mm256_loadu_ps(cr + 8));  \
        }                                                               \
        _mm256_storeu_ps(cr, c##i##0);                                  \
        _mm256_storeu_ps(cr + 8, c##i##1);                              \
    } while (0)
        GEMM_S_STORE(0);
        GEMM_S_STORE(1);
        GEMM_S_STORE(2);
        GEMM_S_STORE(3);
        GEMM_S_STORE(4);
        GEMM_S_STORE(5);
#undef GEMM_S_STORE
        return;
    }
    /* Edge tile: spill the registers, then write only the valid part. */
    _Alignas(32) float t[6 * 16];
    _mm256_store_ps(t + 0, c00);
    _mm256_store_ps(t + 8, c01);
    _mm256_store_ps(t + 16, c10);
    _mm256_store_ps(t + 24, c11);
    _mm256_store_ps(t + 32, c20);
    _mm256_store_ps(t + 40, c21);
    _mm256_store_ps(t + 48, c30);
    _mm256_store_ps(t + 56, c31);
    _mm256_store_ps(t + 64, c40);
    _mm256_store_ps(t + 72, c41);
    _mm256_store_ps(t + 80, c50);
    _mm256_store_ps(t + 88, c51);
    for (int r = 0; r < mr; r++)
        for (int j = 0; j < nr; j++)
            c[r * ldc + j] = beta ? c[r * ldc + j] + t[r * 16 + j] : t[r * 16 + j];
}

GEMM_TARGET_AVX2
static void ukr_avx2_f64(int64_t kc, const double *restrict a, const double *restrict b,
                         double *restrict c, int64_t ldc, int mr, int nr, int beta) {
    __m256d c00 = _mm256_setzero_pd(), c01 = c00, c10 = c00, c11 = c00, c20 = c00,
            c21 = c00, c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
    for (int r = 0; r < mr; r++) {
        _mm_prefetch((const char *)(c + r * ldc), _MM_HINT_T0);
        _mm_prefetch((const char *)(c + r * ldc + 7), _MM_HINT_T0);
    }
#define GEMM_D_ROW(i, ap, b0, b1)                                   \
    do {                                                            \
        __m256d av = _mm256_broadcast_sd((ap) + (i));               \
        c##i##0 = _mm256_fmadd_pd(av, b0, c##i##0);                 \
        c##i##1 = _mm256_fmadd_pd(av, b1, c##i##1);                 \
    } while (0)
#define GEMM_D_STEP()                                               \
    do {                                                            \
        const double *ap = a;                                       \
        __m256d b0 = _mm256_load_pd(b);                             \
        __m256d b1 = _mm256_load_pd(b + 4);                         \
        GEMM_D_ROW(0, ap, b0, b1);                                  \
        GEMM_D_ROW(1, ap, b0, b1);                                  \
        GEMM_D_ROW(2, ap, b0, b1);                                  \
        GEMM_D_ROW(3, ap, b0, b1);                                  \
        GEMM_D_ROW(4, ap, b0, b1);                                  \
        GEMM_D_ROW(5, ap, b0, b1);                                  \
    } while (0)
    for (int64_t p = 0; p < kc; p++) { /* not unrolled: see ukr_avx2_f32 */
        GEMM_D_STEP();
        a += 6;
        b += 8;
    }
#undef GEMM_D_STEP
#undef GEMM_D_ROW
    if (mr == 6 && nr == 8) {
#define GEMM_D_STORE(i)                                                 \
    do {                                                                \
        double *cr = c + (i) * ldc;                                     \
        if (beta) {                                                     \
            c##i##0 = _mm256_add_pd(c##i##0, _mm256_loadu_pd(cr));      \
            c##i##1 = _mm256_add_pd(c##i##1, _mm256_loadu_pd(cr + 4));  \
        }                                                               \
        _mm256_storeu_pd(cr, c##i##0);                                  \
        _mm256_storeu_pd(cr + 4, c##i##1);                              \
    } while (0)
        GEMM_D_STORE(0);
        GEMM_D_STORE(1);
        GEMM_D_STORE(2);
        GEMM_D_STORE(3);
        GEMM_D_STORE(4);
        GEMM_D_STORE(5);
#undef GEMM_D_STORE
        return;
    }
    _Alignas(32) double t[6 * 8];
    _mm256_store_pd(t + 0, c00);
    _mm256_store_pd(t + 4, c01);
    _mm256_store_pd(t + 8, c10);
    _mm256_store_pd(t + 12, c11);
    _mm256_store_pd(t + 16, c20);
    _mm256_store_pd(t + 20, c21);
    _mm256_store_pd(t + 24, c30);
    _mm256_store_pd(t + 28, c31);
    _mm256_store_pd(t + 32, c40);
    _mm256_store_pd(t + 36, c41);
    _mm256_store_pd(t + 40, c50);
    _mm256_store_pd(t + 44, c51);
    for (int r = 0; r < mr; r++)
        for (int j = 0; j < nr; j++)
            c[r * ldc + j] = beta ? c[r * ldc + j] + t[r * 8 + j] : t[r * 8 + j];
}

/* Whether this CPU (and OS) runs the AVX2 kernels and CJAX_ISA allows
 * them: gemm_small_isa() reads the CPU once, so this is one load per call. */
static int gemm_cpu_has_avx2(void) { return gemm_small_isa() >= GEMM_ISA_AVX2; }

/* AVX-512 float tile 6×32: 12 zmm accumulators, the AVX2 kernel's shape
 * at twice the width (a step: 2 loads of B, 6 broadcasts, 12 FMAs). Used
 * when gemm_small_isa() says AVX-512, through its own instantiation of the
 * template below (f32z: NR = 32, so B is packed 32 columns wide). */
__attribute__((target("avx512f")))
static void ukr_avx512_f32z(int64_t kc, const float *restrict a, const float *restrict b,
                            float *restrict c, int64_t ldc, int mr, int nr, int beta) {
    __m512 c00 = _mm512_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00,
           c21 = c00, c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
    for (int r = 0; r < mr; r++) {
        _mm_prefetch((const char *)(c + r * ldc), _MM_HINT_T0);
        _mm_prefetch((const char *)(c + r * ldc + 31), _MM_HINT_T0);
    }
#define GEMM_Z_ROW(i, b0, b1)                                       \
    do {                                                            \
        __m512 av = _mm512_set1_ps(a[i]);                           \
        c##i##0 = _mm512_fmadd_ps(av, b0, c##i##0);                 \
        c##i##1 = _mm512_fmadd_ps(av, b1, c##i##1);                 \
    } while (0)
    for (int64_t p = 0; p < kc; p++) {
        __m512 b0 = _mm512_load_ps(b), b1 = _mm512_load_ps(b + 16);
        GEMM_Z_ROW(0, b0, b1);
        GEMM_Z_ROW(1, b0, b1);
        GEMM_Z_ROW(2, b0, b1);
        GEMM_Z_ROW(3, b0, b1);
        GEMM_Z_ROW(4, b0, b1);
        GEMM_Z_ROW(5, b0, b1);
        a += 6;
        b += 32;
    }
#undef GEMM_Z_ROW
    if (mr == 6 && nr == 32) {
#define GEMM_Z_STORE(i)                                                 \
    do {                                                                \
        float *cr = c + (i) * ldc;                                      \
        if (beta) {                                                     \
            c##i##0 = _mm512_add_ps(c##i##0, _mm512_loadu_ps(cr));      \
            c##i##1 = _mm512_add_ps(c##i##1, _mm512_loadu_ps(cr + 16)); \
        }                                                               \
        _mm512_storeu_ps(cr, c##i##0);                                  \
        _mm512_storeu_ps(cr + 16, c##i##1);                             \
    } while (0)
        GEMM_Z_STORE(0);
        GEMM_Z_STORE(1);
        GEMM_Z_STORE(2);
        GEMM_Z_STORE(3);
        GEMM_Z_STORE(4);
        GEMM_Z_STORE(5);
#undef GEMM_Z_STORE
        return;
    }
    _Alignas(64) float t[6 * 32];
    _mm512_store_ps(t + 0, c00);
    _mm512_store_ps(t + 16, c01);
    _mm512_store_ps(t + 32, c10);
    _mm512_store_ps(t + 48, c11);
    _mm512_store_ps(t + 64, c20);
    _mm512_store_ps(t + 80, c21);
    _mm512_store_ps(t + 96, c30);
    _mm512_store_ps(t + 112, c31);
    _mm512_store_ps(t + 128, c40);
    _mm512_store_ps(t + 144, c41);
    _mm512_store_ps(t + 160, c50);
    _mm512_store_ps(t + 176, c51);
    for (int r = 0; r < mr; r++)
        for (int j = 0; j < nr; j++)
            c[r * ldc + j] = beta ? c[r * ldc + j] + t[r * 32 + j] : t[r * 32 + j];
}
static int gemm_cpu_has_avx512(void) { return gemm_small_isa() == GEMM_ISA_AVX512; }
#define UKR_FAST_f32 ukr_avx2_f32
#define UKR_FAST_OK_f32 gemm_cpu_has_avx2
#define UKR_FAST_f64 ukr_avx2_f64
#define UKR_FAST_OK_f64 gemm_cpu_has_avx2
#define UKR_FAST_f32z ukr_avx512_f32z
#define UKR_FAST_OK_f32z gemm_cpu_has_avx512
/* the widening GEMMs (below) pack to f32 and run the f32 tiles */
#define UKR_FAST_bf16 ukr_avx2_f32
#define UKR_FAST_OK_bf16 gemm_cpu_has_avx2
#define UKR_FAST_f16 ukr_avx2_f32
#define UKR_FAST_OK_f16 gemm_cpu_has_avx2
#define UKR_FAST_bf16z ukr_avx512_f32z
#define UKR_FAST_OK_bf16z gemm_cpu_has_avx512
#define UKR_FAST_f16z ukr_avx512_f32z
#define UKR_FAST_OK_f16z gemm_cpu_has_avx512
#endif /* GEMM_X86_AVX2 */

/* ---- instantiate the type-dependent part ---------------------------------
 * MR×NR is the register tile (fixed by the kernels above). KC is the depth
 * of one rank-kc update: a KC×NR sliver of B (24 KiB for floats at 384,
 * 16 KiB for doubles at 256) stays in Zen 3's 32 KiB L1d while the A
 * slivers stream past it. MC×KC of A (about 200 KiB) fits the 512 KiB L2
 * with room to spare. KC×NC of B (6–8 MiB) sits in the 32 MiB L3 shared by
 * both cores. Measured at n = 1024, one thread: KC 256–512 and MC 72–240
 * are all within noise of each other (±3 %); smaller KC loses to the
 * per-tile C traffic. The -D overrides exist for tuning on other CPUs. */
#define GEMM_TEMPLATE_PASS 1

#ifndef GEMM_F32_MC
#define GEMM_F32_MC 144
#endif
#ifndef GEMM_F32_KC
#define GEMM_F32_KC 384
#endif
#ifndef GEMM_F64_MC
#define GEMM_F64_MC 96
#endif
#ifndef GEMM_F64_KC
#define GEMM_F64_KC 256
#endif
#define T float
#define SFX f32
#define MR 6
#define NR 16
#define MC GEMM_F32_MC
#define KC GEMM_F32_KC
#define NC 4080
#include "gemm.c"
#undef T
#undef SFX
#undef MR
#undef NR
#undef MC
#undef KC
#undef NC

#define T double
#define SFX f64
#define MR 6
#define NR 8
#define MC GEMM_F64_MC
#define KC GEMM_F64_KC
#define NC 4080
#include "gemm.c"
#undef T
#undef SFX
#undef MR
#undef NR
#undef MC
#undef KC
#undef NC

#ifdef GEMM_X86_AVX2
/* Floats with AVX-512: B packed 32 columns wide. KC 256 keeps a KC×32
 * sliver (32 KiB) in a 48 KiB L1d; at 384 (48 KiB) it no longer fits
 * (1024³, one thread: KC 128–384 gave 123–185 GFLOP/s, 192 and 256 the
 * best, in runs side by side). */
#ifndef GEMM_F32Z_KC
#define GEMM_F32Z_KC 256
#endif
#ifndef GEMM_F32Z_MC
#define GEMM_F32Z_MC 144
#endif
#define T float
#define SFX f32z
#define MR 6
#define NR 32
#define MC GEMM_F32Z_MC
#define KC GEMM_F32Z_KC
#define NC 4064
#include "gemm.c"
#undef T
#undef SFX
#undef MR
#undef NR
#undef MC
#undef KC
#undef NC
#endif

/* ---- the widening GEMMs of bf16 and f16 ----------------------------------
 * The f32 instantiations again with A and B stored as 16-bit halves: the
 * packing routines widen each element once as they copy it into the f32
 * panels, so the micro-kernel and the blocking are sgemm's own and C gets
 * f32 sums (rounded to the narrow type, if at all, by the caller: XLA's
 * CPU backend computes a bf16 dot in f32 the same way). */
#define TIN uint16_t
#define T float
#define MR 6
#define NR 16
#define MC GEMM_F32_MC
#define KC GEMM_F32_KC
#define NC 4080
#define SFX bf16
#define LD(x) rt_bf16_to_f32(x)
#include "gemm.c"
#undef SFX
#undef LD
#define SFX f16
#define LD(x) rt_f16_to_f32(x)
#include "gemm.c"
#undef SFX
#undef LD
#undef MR
#undef NR
#undef MC
#undef KC
#undef NC
#ifdef GEMM_X86_AVX2
#define MR 6
#define NR 32
#define MC GEMM_F32Z_MC
#define KC GEMM_F32Z_KC
#define NC 4064
#define SFX bf16z
#define LD(x) rt_bf16_to_f32(x)
#include "gemm.c"
#undef SFX
#undef LD
#define SFX f16z
#define LD(x) rt_f16_to_f32(x)
#include "gemm.c"
#undef SFX
#undef LD
#undef MR
#undef NR
#undef MC
#undef KC
#undef NC
#endif
#undef T
#undef TIN

/* ---- public entry points ------------------------------------------------- */

#ifdef CJAX_HAVE_CBLAS
/* BLAS takes int sizes and insists on ld >= max(1, columns) even for a
 * matrix with one row (where the stride is never used). Fix up what can be
 * fixed; report 0 for layouts BLAS cannot take (overlapping rows, e.g. a
 * zero stride from broadcasting), which then go to the built-in GEMM. */
static int cblas_ld_ok(int64_t rows, int64_t cols, int64_t *ld) {
    int64_t need = cols > 1 ? cols : 1;
    if (*ld < need) {
        if (rows > 1) return 0;
        *ld = need;
    }
    return *ld <= INT_MAX;
}

static int cblas_layout_ok(int64_t m, int64_t n, int64_t k, int ta, int tb,
                           int64_t *lda, int64_t *ldb, int64_t *ldc) {
    if (m > INT_MAX || n > INT_MAX || k > INT_MAX) return 0;
    return cblas_ld_ok(ta ? k : m, ta ? m : k, lda) &&
           cblas_ld_ok(tb ? n : k, tb ? k : n, ldb) && cblas_ld_ok(m, n, ldc);
}
#endif

/* OpenBLAS brings its own thread pool, so the call is not wrapped in
 * rt_parallel_for (two pools on two cores oversubscribe, MEASURED.md). */
void rt_gemm_f32(int64_t m, int64_t n, int64_t k, const float *A, int64_t lda,
                 int trans_a, const float *B, int64_t ldb, int trans_b, float *C,
                 int64_t ldc, int accumulate) {
    if (gemm_small_takes(m, n, k, trans_b, 1) &&
        gemm_small_f32(m, n, k, A, lda, trans_a, B, ldb, trans_b, C, ldc, accumulate))
        return;
#ifdef CJAX_HAVE_CBLAS
    if (m > 0 && n > 0 && k > 0 &&
        cblas_layout_ok(m, n, k, trans_a, trans_b, &lda, &ldb, &ldc)) {
        cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
                    trans_b ? CblasTrans : CblasNoTrans, (int)m, (int)n, (int)k, 1.0f, A,
                    (int)lda, B, (int)ldb, accumulate ? 1.0f : 0.0f, C, (int)ldc);
        return;
    }
#endif
#ifdef GEMM_X86_AVX2
    if (gemm_cpu_has_avx512()) {
        gemm_builtin_f32z(m, n, k, A, lda, trans_a, B, ldb, trans_b, C, ldc, accumulate);
        return;
    }
#endif
    gemm_builtin_f32(m, n, k, A, lda, trans_a, B, ldb, trans_b, C, ldc, accumulate);
}

void rt_gemm_f64(int64_t m, int64_t n, int64_t k, const double *A, int64_t lda,
                 int trans_a, const double *B, int64_t ldb, int trans_b, double *C,
                 int64_t ldc, int accumulate) {
    if (gemm_small_takes(m, n, k, trans_b, 0) &&
        gemm_small_f64(m, n, k, A, lda, trans_a, B, ldb, trans_b, C, ldc, accumulate))
        return;
#ifdef CJAX_HAVE_CBLAS
    if (m > 0 && n > 0 && k > 0 &&
        cblas_layout_ok(m, n, k, trans_a, trans_b, &lda, &ldb, &ldc)) {
        cblas_dgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
                    trans_b ? CblasTrans : CblasNoTrans, (int)m, (int)n, (int)k, 1.0, A,
                    (int)lda, B, (int)ldb, accumulate ? 1.0 : 0.0, C, (int)ldc);
        return;
    }
#endif
    gemm_builtin_f64(m, n, k, A, lda, trans_a, B, ldb, trans_b, C, ldc, accumulate);
}

/* ---- batches of products ---- */
/* Below this many multiply-adds a product runs whole on one pool thread,
 * the batch spread over the pool; bigger ones run one after another, each
 * with the GEMM's own threads. */
#define GEMM_BATCH_SMALL_WORK ((int64_t)1 << 18)

#define GEMM_BATCH_DEFINE(T, SFX)                                                                   \
    typedef struct {                                                                                \
        int64_t m, n, k, sa, lda, sb, ldb, sc, ldc;                                                 \
        const T *A, *B;                                                                             \
        T *C;                                                                                       \
        int ta, tb, acc;                                                                            \
    } batch_##SFX;                                                                                  \
    static void batch_task_##SFX(void *arg, int64_t b0, int64_t b1) {                               \
        const batch_##SFX *x = arg;                                                                 \
        if (gemm_small_takes(x->m, x->n, x->k, x->tb, sizeof(T) == 4))                                               \
            b0 += gemm_small_batch_##SFX(b1 - b0, x->m, x->n, x->k, x->A + b0 * x->sa, x->sa, x->lda, \
                                         x->ta, x->B + b0 * x->sb, x->sb, x->ldb, x->tb,            \
                                         x->C + b0 * x->sc, x->sc, x->ldc, x->acc);                 \
        for (int64_t b = b0; b < b1; b++)                                                           \
            rt_gemm_##SFX(x->m, x->n, x->k, x->A + b * x->sa, x->lda, x->ta, x->B + b * x->sb,      \
                          x->ldb, x->tb, x->C + b * x->sc, x->ldc, x->acc);                         \
    }                                                                                               \
    void rt_gemm_batch_##SFX(int64_t batch, int64_t m, int64_t n, int64_t k, const T *A,            \
                             int64_t sa, int64_t lda, int trans_a, const T *B, int64_t sb,          \
                             int64_t ldb, int trans_b, T *C, int64_t sc, int64_t ldc,               \
                             int accumulate) {                                                      \
        batch_##SFX x = {m, n, k, sa, lda, sb, ldb, sc, ldc, A, B, C, trans_a, trans_b, accumulate}; \
        if (batch <= 0) return;                                                                     \
        double work = (double)m * (double)n * (double)(k > 0 ? k : 1);                             \
        if (batch > 1 && work < (double)GEMM_BATCH_SMALL_WORK &&                                    \
            work * (double)batch >= (double)RT_PARALLEL_MIN_ELEMS && rt_num_threads() > 1) {        \
            int64_t grain = 1 + batch / ((int64_t)rt_num_threads() * 8);                            \
            rt_parallel_for(batch, grain, batch_task_##SFX, &x);                                    \
        } else {                                                                                    \
            batch_task_##SFX(&x, 0, batch);                                                         \
        }                                                                                           \
    }
GEMM_BATCH_DEFINE(float, f32)
GEMM_BATCH_DEFINE(double, f64)
#undef GEMM_BATCH_DEFINE

/* ---- bf16 / f16 operands, f32 result ----
 * Products the small kernels take (gemm_small_takes) are widened into f32
 * copies and handed to them (their packing is not this file's): op(B)
 * whole, op(A) in blocks of rows (a row's bits do not depend on how rows
 * are split, gemm_small.h). Only when op(B) alone widens to more than
 * GEMM_WIDEN_MAX_ELEMS (a vector times a huge matrix) does the product go
 * to the packed path instead, which widens while packing, as every larger
 * product does. So the sums are those rt_gemm_f32 gives for the widened
 * operands, bit for bit, but in that one case. */
#define GEMM_WIDEN_MAX_ELEMS ((int64_t)1 << 22)

/* rows × cols of X (row stride ld) widened into w (row stride cols). */
static void widen_rows(const uint16_t *X, int64_t rows, int64_t cols, int64_t ld, int bf16, float *w) {
    for (int64_t i = 0; i < rows; i++) {
        const uint16_t *x = X + i * ld;
        float *d = w + i * cols;
        if (bf16)
            for (int64_t j = 0; j < cols; j++) d[j] = rt_bf16_to_f32(x[j]);
        else
            for (int64_t j = 0; j < cols; j++) d[j] = rt_f16_to_f32(x[j]);
    }
}

/* Returns how many rows of C it computed (from the first): all, or fewer
 * when memory ran out (the caller computes the rest). */
static int64_t gemm_half_small(int bf16, int64_t m, int64_t n, int64_t k, const uint16_t *A, int64_t lda, int ta,
                               const uint16_t *B, int64_t ldb, int tb, float *C, int64_t ldc, int acc) {
    if (m <= 0 || n <= 0 || k <= 0 || !gemm_small_takes(m, n, k, tb, 1)) return 0;
    if (k * n > GEMM_WIDEN_MAX_ELEMS) return 0;
    int64_t br = tb ? n : k, bc = tb ? k : n;
    /* a block of op(A) rows: a multiple of 64 up to a quarter of the cap */
    int64_t rows = GEMM_MIN(m, GEMM_MAX((int64_t)64, (GEMM_WIDEN_MAX_ELEMS / 4 / k) / 64 * 64));
    float *wb = malloc((size_t)(br * bc) * sizeof(float));
    float *wa = wb ? malloc((size_t)(rows * k) * sizeof(float)) : NULL;
    int64_t i0 = 0;
    if (wa) widen_rows(B, br, bc, ldb, bf16, wb);
    for (; wa && i0 < m; i0 += rows) {
        int64_t r = GEMM_MIN(rows, m - i0);
        /* kept in its stored orientation: the kernel a transposed A takes
         * sums in its own order. op(A) rows i0.. of a transposed A are
         * columns i0.. of the stored k×m matrix. */
        if (ta) widen_rows(A + i0, k, r, lda, bf16, wa);
        else widen_rows(A + i0 * lda, r, k, lda, bf16, wa);
        if (!gemm_small_f32(r, n, k, wa, ta ? r : k, ta, wb, bc, tb, C + i0 * ldc, ldc, acc)) break;
    }
    free(wa);
    free(wb);
    return i0 < m ? i0 : m;
}

void rt_gemm_bf16(int64_t m, int64_t n, int64_t k, const uint16_t *A, int64_t lda, int trans_a,
                  const uint16_t *B, int64_t ldb, int trans_b, float *C, int64_t ldc, int accumulate) {
    int64_t done = gemm_half_small(1, m, n, k, A, lda, trans_a, B, ldb, trans_b, C, ldc, accumulate);
    if (done > 0 && done == m) return;
    if (done > 0) { /* the rest of the rows by the packed path */
        A += trans_a ? done : done * lda;
        C += done * ldc;
        m -= done;
    }
#ifdef GEMM_X86_AVX2
    if (gemm_cpu_has_avx512()) {
        gemm_builtin_bf16z(m, n, k, A, lda, trans_a, B, ldb, trans_b, C, ldc, accumulate);
        return;
    }
#endif
    gemm_builtin_bf16(m, n, k, A, lda, trans_a, B, ldb, trans_b, C, ldc, accumulate);
}

void rt_gemm_f16(int64_t m, int64_t n, int64_t k, const uint16_t *A, int64_t lda, int trans_a,
                 const uint16_t *B, int64_t ldb, int trans_b, float *C, int64_t ldc, int accumulate) {
    int64_t done = gemm_half_small(0, m, n, k, A, lda, trans_a, B, ldb, trans_b, C, ldc, accumulate);
    if (done > 0 && done == m) return;
    if (done > 0) { /* the rest of the rows by the packed path */
        A += trans_a ? done : done * lda;
        C += done * ldc;
        m -= done;
    }
#ifdef GEMM_X86_AVX2
    if (gemm_cpu_has_avx512()) {
        gemm_builtin_f16z(m, n, k, A, lda, trans_a, B, ldb, trans_b, C, ldc, accumulate);
        return;
    }
#endif
    gemm_builtin_f16(m, n, k, A, lda, trans_a, B, ldb, trans_b, C, ldc, accumulate);
}

/* A batch of them: small products a range per pool thread, as the f32
 * batch does; each product's numbers are a single call's. */
typedef struct {
    int bf16;
    int64_t m, n, k, sa, lda, sb, ldb, sc, ldc;
    const uint16_t *A, *B;
    float *C;
    int ta, tb, acc;
} batch_half;

static void batch_task_half(void *arg, int64_t b0, int64_t b1) {
    const batch_half *x = arg;
    for (int64_t b = b0; b < b1; b++)
        (x->bf16 ? rt_gemm_bf16 : rt_gemm_f16)(x->m, x->n, x->k, x->A + b * x->sa, x->lda, x->ta,
                                                x->B + b * x->sb, x->ldb, x->tb, x->C + b * x->sc, x->ldc,
                                                x->acc);
}

void rt_gemm_batch_half(int bf16, int64_t batch, int64_t m, int64_t n, int64_t k, const uint16_t *A, int64_t sa,
                        int64_t lda, int trans_a, const uint16_t *B, int64_t sb, int64_t ldb, int trans_b,
                        float *C, int64_t sc, int64_t ldc, int accumulate) {
    batch_half x = {bf16, m, n, k, sa, lda, sb, ldb, sc, ldc, A, B, C, trans_a, trans_b, accumulate};
    if (batch <= 0) return;
    double work = (double)m * (double)n * (double)(k > 0 ? k : 1);
    if (batch > 1 && work < (double)GEMM_BATCH_SMALL_WORK &&
        work * (double)batch >= (double)RT_PARALLEL_MIN_ELEMS && rt_num_threads() > 1) {
        int64_t grain = 1 + batch / ((int64_t)rt_num_threads() * 8);
        rt_parallel_for(batch, grain, batch_task_half, &x);
    } else {
        batch_task_half(&x, 0, batch);
    }
}

const char *rt_gemm_backend(void) {
#ifdef CJAX_HAVE_CBLAS
    return "openblas (cblas)";
#else
    return "built-in";
#endif
}

#else /* ============ template pass: T, SFX, MR, NR, MC, KC, NC ============= */

#define F(name) GEMM_CAT(name, SFX)
/* TIN is how A and B are stored and LD(x) widens one stored element to T:
 * T itself for f32/f64, 16-bit halves for the widening GEMMs of bf16 and
 * f16 (packing widens them, the f32 micro-kernel runs unchanged). */
#ifndef TIN
#define TIN T
#define LD(x) (x)
#define GEMM_TIN_DEFAULTED 1
#endif

typedef void (*F(ukr_t))(int64_t kc, const T *restrict a, const T *restrict b,
                         T *restrict c, int64_t ldc, int mr, int nr, int beta);

/* Portable micro-kernel, same contract and packed layout as the AVX2 ones.
 * With GCC/clang it uses 16-byte vector extensions, native on SSE2 and
 * NEON, and covers the tile in column strips of two vectors: 6 rows × 2
 * accumulators + 2 of B + 1 broadcast fit the 16 registers of SSE2 (32-byte
 * generic vectors are split and spilled there, and the plain-loop version
 * below is "vectorised" by gcc 12 into shuffles: both ran at 1–2 GFLOP/s).
 * Plain loops remain for other compilers. */
#if defined(__GNUC__) || defined(__clang__)
typedef T F(vec) __attribute__((vector_size(16)));
#define GEMM_VL ((int)(16 / sizeof(T))) /* elements per vector */
static void F(ukr_generic)(int64_t kc, const T *restrict a, const T *restrict b,
                           T *restrict c, int64_t ldc, int mr, int nr, int beta) {
    T t[MR * NR];
    for (int h = 0; h < NR; h += 2 * GEMM_VL) {
        F(vec) c0[MR], c1[MR];
        /* Fully unrolled even at -O2, so the arrays live in registers. */
#pragma GCC unroll 8
        for (int i = 0; i < MR; i++) c0[i] = c1[i] = (F(vec)){0};
        const T *ap = a, *bp = b + h;
        for (int64_t p = 0; p < kc; p++, ap += MR, bp += NR) {
            F(vec) b0, b1;
            memcpy(&b0, bp, sizeof b0);
            memcpy(&b1, bp + GEMM_VL, sizeof b1);
#pragma GCC unroll 8
            for (int i = 0; i < MR; i++) { /* scalar × vector broadcasts */
                c0[i] += ap[i] * b0;
                c1[i] += ap[i] * b1;
            }
        }
#pragma GCC unroll 8
        for (int i = 0; i < MR; i++) {
            memcpy(t + i * NR + h, &c0[i], sizeof c0[i]);
            memcpy(t + i * NR + h + GEMM_VL, &c1[i], sizeof c1[i]);
        }
    }
    for (int r = 0; r < mr; r++)
        for (int j = 0; j < nr; j++)
            c[r * ldc + j] = beta ? c[r * ldc + j] + t[r * NR + j] : t[r * NR + j];
}
#undef GEMM_VL
#else
static void F(ukr_generic)(int64_t kc, const T *restrict a, const T *restrict b,
                           T *restrict c, int64_t ldc, int mr, int nr, int beta) {
    T acc[MR * NR];
    for (int q = 0; q < MR * NR; q++) acc[q] = 0;
    for (int64_t p = 0; p < kc; p++) {
        for (int i = 0; i < MR; i++) {
            T ai = a[i];
            for (int j = 0; j < NR; j++) acc[i * NR + j] += ai * b[j];
        }
        a += MR;
        b += NR;
    }
    for (int r = 0; r < mr; r++)
        for (int j = 0; j < nr; j++)
            c[r * ldc + j] = beta ? c[r * ldc + j] + acc[r * NR + j] : acc[r * NR + j];
}
#endif

/* Direct loops over C[i0:i1, j0:j1] (= or += when beta) the partial product
 * over depth [p0, p1). Used for tiny products, matrix-vector shapes (where
 * packing would cost as much as the arithmetic) and as the fallback when
 * scratch memory cannot be had. */
static void F(simple)(int64_t i0, int64_t i1, int64_t j0, int64_t j1, int64_t p0,
                      int64_t p1, const TIN *A, int64_t lda, int ta, const TIN *B,
                      int64_t ldb, int tb, T *C, int64_t ldc, int beta) {
    if (!tb && j1 - j0 >= 4) {
        /* Rows of op(B) are contiguous: C row += a(i,p) · B row p, a loop
         * over j that vectorises. */
        for (int64_t i = i0; i < i1; i++) {
            T *restrict c = C + i * ldc;
            if (!beta)
                for (int64_t j = j0; j < j1; j++) c[j] = 0;
            for (int64_t p = p0; p < p1; p++) {
                T a = ta ? LD(A[p * lda + i]) : LD(A[i * lda + p]);
                const TIN *restrict b = B + p * ldb;
                for (int64_t j = j0; j < j1; j++) c[j] += a * LD(b[j]);
            }
        }
        return;
    }
    if (ta && i1 - i0 >= 8) {
        /* op(A) is contiguous along i (stored A is k×m): run down p and
         * update a strip of up to 64 C rows at once, so each stored row of
         * A is read in whole cache lines (a dot product per element would
         * touch one line per multiply-add). */
        enum { W = 64 };
        for (int64_t ib = i0; ib < i1; ib += W) {
            int w = (int)GEMM_MIN((int64_t)W, i1 - ib);
            for (int64_t j = j0; j < j1; j++) {
                T acc[W];
                for (int q = 0; q < w; q++) acc[q] = 0;
                for (int64_t p = p0; p < p1; p++) {
                    T bv = tb ? LD(B[j * ldb + p]) : LD(B[p * ldb + j]);
                    const TIN *restrict arow = A + p * lda + ib;
                    for (int q = 0; q < w; q++) acc[q] += LD(arow[q]) * bv;
                }
                for (int q = 0; q < w; q++) {
                    T *c = C + (ib + q) * ldc + j;
                    *c = beta ? *c + acc[q] : acc[q];
                }
            }
        }
        return;
    }
    /* Otherwise each C element is a dot product along p; eight partial sums
     * break the serial dependency chain (and let it vectorise when both
     * operands are contiguous in p). */
    int64_t as = ta ? lda : 1, bs = tb ? 1 : ldb;
    for (int64_t i = i0; i < i1; i++) {
        const TIN *a = ta ? A + p0 * lda + i : A + i * lda + p0;
        for (int64_t j = j0; j < j1; j++) {
            const TIN *b = tb ? B + j * ldb + p0 : B + p0 * ldb + j;
            T s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
            int64_t len = p1 - p0, p = 0;
            if (as == 1 && bs == 1) {
                for (; p + 8 <= len; p += 8)
                    for (int q = 0; q < 8; q++) s[q] += LD(a[p + q]) * LD(b[p + q]);
            } else {
                for (; p + 8 <= len; p += 8)
                    for (int q = 0; q < 8; q++) s[q] += LD(a[(p + q) * as]) * LD(b[(p + q) * bs]);
            }
            for (; p < len; p++) s[p & 7] += LD(a[p * as]) * LD(b[p * bs]);
            T sum = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
            T *c = C + i * ldc + j;
            *c = beta ? *c + sum : sum;
        }
    }
}

/* The direct loops spread over the pool: by rows when there are enough,
 * otherwise by columns (m == 1). */
typedef struct {
    int64_t m, n, k;
    const TIN *A;
    int64_t lda;
    int ta;
    const TIN *B;
    int64_t ldb;
    int tb;
    T *C;
    int64_t ldc;
    int beta, by_rows;
} F(simple_ctx);

static void F(simple_task)(void *arg, int64_t b, int64_t e) {
    const F(simple_ctx) *x = arg;
    if (x->by_rows)
        F(simple)(b, e, 0, x->n, 0, x->k, x->A, x->lda, x->ta, x->B, x->ldb, x->tb, x->C,
                  x->ldc, x->beta);
    else
        F(simple)(0, x->m, b, e, 0, x->k, x->A, x->lda, x->ta, x->B, x->ldb, x->tb, x->C,
                  x->ldc, x->beta);
}

static void F(simple_par)(int64_t m, int64_t n, int64_t k, const TIN *A, int64_t lda,
                          int ta, const TIN *B, int64_t ldb, int tb, T *C, int64_t ldc,
                          int beta, int nthreads) {
    F(simple_ctx) x = {.m = m, .n = n, .k = k, .A = A, .lda = lda, .ta = ta, .B = B,
                       .ldb = ldb, .tb = tb, .C = C, .ldc = ldc, .beta = beta,
                       .by_rows = m >= 2 * nthreads};
    if (nthreads <= 1) {
        F(simple_task)(&x, 0, x.by_rows ? m : n);
        return;
    }
    int64_t len = x.by_rows ? m : n;
    /* Four chunks per thread balance uneven progress; columns go in
     * multiples of 16 so threads do not share cache lines of C. */
    int64_t grain = GEMM_CEIL_DIV(len, 4 * (int64_t)nthreads);
    if (!x.by_rows) grain = GEMM_CEIL_DIV(grain, 16) * 16;
    rt_parallel_for(len, grain, F(simple_task), &x);
}

/* Packs rows [i0, i1) × depth [p0, p0+kc) of op(A) as MR-row slivers: for
 * each p the MR values of one column lie together (the kernel broadcasts
 * them in order). A short last sliver is padded with zeros. */
static void F(pack_a)(int64_t i0, int64_t i1, int64_t p0, int64_t kc, const TIN *A,
                      int64_t lda, int ta, T *restrict dst) {
    for (int64_t i = i0; i < i1; i += MR, dst += MR * kc) {
        int mr = (int)GEMM_MIN(i1 - i, (int64_t)MR);
        if (!ta) {
            const TIN *src = A + i * lda + p0; /* op(A)[i+r, p0+p] = src[r*lda + p] */
            if (mr == MR) {
                for (int64_t p = 0; p < kc; p++)
                    for (int r = 0; r < MR; r++) dst[p * MR + r] = LD(src[r * lda + p]);
            } else {
                for (int64_t p = 0; p < kc; p++)
                    for (int r = 0; r < MR; r++)
                        dst[p * MR + r] = r < mr ? LD(src[r * lda + p]) : (T)0;
            }
        } else {
            const TIN *src = A + p0 * lda + i; /* op(A)[i+r, p0+p] = src[p*lda + r] */
            for (int64_t p = 0; p < kc; p++) {
                const TIN *s = src + p * lda;
                if (mr == MR)
                    for (int r = 0; r < MR; r++) dst[p * MR + r] = LD(s[r]);
                else
                    for (int r = 0; r < MR; r++) dst[p * MR + r] = r < mr ? LD(s[r]) : (T)0;
            }
        }
    }
}

/* Packs NR-column slivers q0..q1-1 of op(B)[p0:p0+kc, j0:j0+nc] into bp:
 * sliver q starts at bp + q·NR·kc and holds, for each p, NR consecutive
 * values of row p. Columns past nc are zeros. */
static void F(pack_b)(int64_t q0, int64_t q1, int64_t j0, int64_t nc, int64_t p0,
                      int64_t kc, const TIN *B, int64_t ldb, int tb, T *restrict bp) {
    for (int64_t q = q0; q < q1; q++) {
        int64_t j = j0 + q * NR;
        int nr = (int)GEMM_MIN(j0 + nc - j, (int64_t)NR);
        T *restrict dst = bp + q * NR * kc;
        if (!tb) {
            const TIN *src = B + p0 * ldb + j; /* op(B)[p0+p, j+c] = src[p*ldb + c] */
            if (nr == NR) {
                for (int64_t p = 0; p < kc; p++)
                    for (int c = 0; c < NR; c++) dst[p * NR + c] = LD(src[p * ldb + c]);
            } else {
                for (int64_t p = 0; p < kc; p++)
                    for (int c = 0; c < NR; c++)
                        dst[p * NR + c] = c < nr ? LD(src[p * ldb + c]) : (T)0;
            }
        } else {
            /* op(B)[p0+p, j+c] = B[(j+c)*ldb + p0+p]: read each stored row
             * along p (contiguous) and scatter it down one column of the
             * sliver, which stays in L1. */
            const TIN *src = B + j * ldb + p0;
            for (int c = 0; c < nr; c++) {
                const TIN *s = src + c * ldb;
                for (int64_t p = 0; p < kc; p++) dst[p * NR + c] = LD(s[p]);
            }
            for (int c = nr; c < NR; c++)
                for (int64_t p = 0; p < kc; p++) dst[p * NR + c] = 0;
        }
    }
}

/* State of one (jc, pc) step, shared by its tasks. A task is one block of
 * rows (a range of MR slivers, packed into that thread's A buffer) times
 * one group of B slivers. */
typedef struct {
    const TIN *A;
    int64_t lda;
    int ta;
    const TIN *B;
    int64_t ldb;
    int tb;
    T *C;
    int64_t ldc;
    F(ukr_t) ukr;
    int64_t m;
    int64_t mpanels, mblocks; /* MR slivers of m, and blocks they are split into */
    T *bp;                    /* packed B of this step */
    int64_t jc, nc, pc, kc;
    int64_t npanels, ngroups; /* NR slivers of nc, and groups of them */
    int beta;
} F(step_ctx);

static void F(pack_b_task)(void *arg, int64_t q0, int64_t q1) {
    const F(step_ctx) *x = arg;
    F(pack_b)(q0, q1, x->jc, x->nc, x->pc, x->kc, x->B, x->ldb, x->tb, x->bp);
}

static void F(block_task)(void *arg, int64_t t0, int64_t t1) {
    const F(step_ctx) *x = arg;
    const int64_t kc = x->kc;
    for (int64_t t = t0; t < t1; t++) {
        int64_t ib = t / x->ngroups, g = t % x->ngroups;
        /* Blocks differ by at most one sliver, so threads get equal work. */
        int64_t i0 = ib * x->mpanels / x->mblocks * MR;
        int64_t i1 = GEMM_MIN((ib + 1) * x->mpanels / x->mblocks * MR, x->m);
        int64_t q0 = g * x->npanels / x->ngroups;
        int64_t q1 = (g + 1) * x->npanels / x->ngroups;
        if (i0 >= i1 || q0 >= q1) continue;
        size_t bytes = (size_t)GEMM_CEIL_DIV(i1 - i0, MR) * MR * (size_t)kc * sizeof(T);
        T *ap = scratch_get(GEMM_BUF_A, bytes);
        if (!ap) {
            F(simple)(i0, i1, x->jc + q0 * NR, GEMM_MIN(x->jc + q1 * NR, x->jc + x->nc), x->pc,
                      x->pc + kc, x->A, x->lda, x->ta, x->B, x->ldb, x->tb, x->C, x->ldc,
                      x->beta);
            continue;
        }
        F(pack_a)(i0, i1, x->pc, kc, x->A, x->lda, x->ta, ap);
        /* jr outside ir: one B sliver stays in L1 while the A block (L2)
         * streams past it. */
        for (int64_t q = q0; q < q1; q++) {
            int64_t j = x->jc + q * NR;
            int nr = (int)GEMM_MIN(x->jc + x->nc - j, (int64_t)NR);
            const T *bq = x->bp + q * NR * kc;
            for (int64_t i = i0; i < i1; i += MR) {
                int mr = (int)GEMM_MIN(i1 - i, (int64_t)MR);
                x->ukr(kc, ap + (i - i0) * kc, bq, x->C + i * x->ldc + j, x->ldc, mr, nr,
                       x->beta);
            }
        }
    }
}

static void F(blocked)(int64_t m, int64_t n, int64_t k, const TIN *A, int64_t lda, int ta,
                       const TIN *B, int64_t ldb, int tb, T *C, int64_t ldc, int accumulate,
                       int nthreads) {
    /* Equal-sized depth blocks: k = 300 runs as 150+150, not 256+44, so no
     * step is dominated by the write-back of C. */
    int64_t kblocks = GEMM_CEIL_DIV(k, (int64_t)KC);
    int64_t kc_max = GEMM_CEIL_DIV(k, kblocks);
    int64_t nc_max = GEMM_CEIL_DIV(GEMM_MIN(n, (int64_t)NC), (int64_t)NR) * NR;
    T *bp = scratch_get(GEMM_BUF_B, (size_t)nc_max * (size_t)kc_max * sizeof(T));
    if (!bp) {
        F(simple_par)(m, n, k, A, lda, ta, B, ldb, tb, C, ldc, accumulate, nthreads);
        return;
    }
    F(step_ctx) x = {.A = A, .lda = lda, .ta = ta, .B = B, .ldb = ldb, .tb = tb,
                     .C = C, .ldc = ldc, .ukr = F(ukr_generic), .m = m, .bp = bp};
#ifdef GEMM_X86_AVX2
    if (GEMM_CAT(UKR_FAST_OK, SFX)()) x.ukr = GEMM_CAT(UKR_FAST, SFX);
#endif
    x.mpanels = GEMM_CEIL_DIV(m, (int64_t)MR);
    /* Row blocks of about MC; with threads, a multiple of their number so
     * every thread gets the same share of the step. */
    int64_t mblocks = GEMM_CEIL_DIV(m, (int64_t)MC);
    if (nthreads > 1) mblocks = GEMM_CEIL_DIV(mblocks, nthreads) * nthreads;
    x.mblocks = GEMM_MIN(mblocks, x.mpanels);

    for (int64_t jc = 0; jc < n; jc += NC) {
        x.jc = jc;
        x.nc = GEMM_MIN((int64_t)NC, n - jc);
        x.npanels = GEMM_CEIL_DIV(x.nc, (int64_t)NR);
        for (int64_t pc = 0; pc < k; pc += kc_max) {
            x.pc = pc;
            x.kc = GEMM_MIN(kc_max, k - pc);
            x.beta = accumulate || pc > 0;
            int par = nthreads > 1 && (double)m * (double)x.nc * (double)x.kc >= GEMM_PAR_STEP_WORK;
            /* Too few row blocks to share evenly (small m): also split the
             * columns, at the price of packing the A block once per group. */
            x.ngroups = 1;
            if (par && x.mblocks % nthreads != 0) x.ngroups = GEMM_MIN((int64_t)nthreads, x.npanels);
            int64_t tasks = x.mblocks * x.ngroups;
            if (par && x.npanels > 1)
                rt_parallel_for(x.npanels, GEMM_CEIL_DIV(x.npanels, nthreads), F(pack_b_task), &x);
            else
                F(pack_b_task)(&x, 0, x.npanels);
            if (par && tasks > 1)
                rt_parallel_for(tasks, 1, F(block_task), &x);
            else
                F(block_task)(&x, 0, tasks);
        }
    }
}

static void F(gemm_builtin)(int64_t m, int64_t n, int64_t k, const TIN *A, int64_t lda,
                            int ta, const TIN *B, int64_t ldb, int tb, T *C, int64_t ldc,
                            int accumulate) {
    if (m <= 0 || n <= 0) return;
    if (k <= 0) {
        if (!accumulate)
            for (int64_t i = 0; i < m; i++) memset(C + i * ldc, 0, (size_t)n * sizeof(T));
        return;
    }
    double work = (double)m * (double)n * (double)k;
    int nthreads = work >= GEMM_PAR_WORK ? rt_num_threads() : 1;
    if (m == 1 || n == 1 || work < GEMM_SMALL_WORK) {
        F(simple_par)(m, n, k, A, lda, ta, B, ldb, tb, C, ldc, accumulate, nthreads);
        return;
    }
    F(blocked)(m, n, k, A, lda, ta, B, ldb, tb, C, ldc, accumulate, nthreads);
}

#ifdef GEMM_TIN_DEFAULTED
#undef TIN
#undef LD
#undef GEMM_TIN_DEFAULTED
#endif
#undef F
#endif /* GEMM_TEMPLATE_PASS */
