/* gemm_small.c — matrix · vector, outer products, rank-k updates and small
 * matrix products (runtime layer; rt_gemm_f32/f64 in gemm.c call it first,
 * see gemm_small.h for which shapes come here and why the results do not
 * depend on how a product is split).
 *
 * Two register kernels (gemm_small_kern.h) carry every shape:
 *   - rowdot, for C = A·x with A's rows contiguous: four rows per pass,
 *     two accumulators each, fused multiply-adds. A dot per row with one
 *     accumulator and no FMA (the old loop) was latency-bound at a third
 *     of this speed: 45 % of an RNN step's instructions. For a matrix
 *     within L2 (48 KiB .. 2 MiB) each pass prefetches the next pass's
 *     rows (an RNN's 256×256 weights: 3.1 → 2.8 µs per product).
 *   - direct, for C = a ⊗ B summed over a short depth, with op(B)'s rows
 *     contiguous: four rows × two vectors of columns per pass, or one row ×
 *     eight vectors (x·W, a layer's backward matrix-vector product).
 * Operands the kernels cannot stream are packed first into one per-thread
 * buffer: a strided vector (a column of a matrix) into a contiguous one,
 * and a transposed op(B) (stored n×k) into k×n rows, so an outer product
 * with a strided operand costs one small copy instead of a strided scalar
 * loop over the whole result.
 *
 * Instruction sets: the kernels are instantiated for AVX-512F, AVX2+FMA
 * and plain C; the first call picks the best one the CPU (and OS) runs, by
 * __builtin_cpu_supports, so a build for baseline x86-64 or x86-64-v3 (as
 * valgrind needs) still gets the fast path where it can, and never
 * executes an instruction the CPU lacks. One process uses one set, so its
 * results are reproducible; different sets round differently. */

#ifndef GEMM_SMALL_PASS /* ================= shared part ================ */

#include "gemm_small.h"

#include <stdatomic.h>
#include <string.h>

#include "cpu_features.h"
#include "gemm.h"
#include "threads.h"

#if !defined(CJAX_GEMM_GENERIC) && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define GEMM_SMALL_X86 1
#include <immintrin.h>
#endif

enum { ISA_GENERIC = GEMM_ISA_GENERIC, ISA_AVX2 = GEMM_ISA_AVX2, ISA_AVX512 = GEMM_ISA_AVX512 };

/* What a product runs on: dot products of A's rows with a vector (n == 1),
 * the direct kernel on vᵀ·A (n == 1, A stored transposed), dot products of
 * B's rows (m == 1, B stored n×k), or the direct kernel. */
enum run_kind { RUN_ROWDOT_A, RUN_DIRECT_T, RUN_ROWDOT_B, RUN_DIRECT };

static atomic_int isa_cap; /* rt_gemm_testing_isa: 0 = no cap */

void rt_gemm_testing_isa(int level) { atomic_store(&isa_cap, level); }

static int cpu_isa(void) {
    int cap = rt_isa_cap(); /* CJAX_ISA (cpu_features.h uses the same levels) */
#ifdef GEMM_SMALL_X86
    if (__builtin_cpu_supports("avx512f") && (!cap || cap >= ISA_AVX512)) return ISA_AVX512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && (!cap || cap >= ISA_AVX2)) return ISA_AVX2;
#endif
    (void)cap;
    return ISA_GENERIC;
}

int gemm_small_isa(void) {
    static atomic_int best; /* 0 until first asked; libgcc's CPU model is ready before main */
    int b = atomic_load_explicit(&best, memory_order_relaxed);
    if (!b) {
        b = cpu_isa();
        atomic_store_explicit(&best, b, memory_order_relaxed);
    }
    int cap = atomic_load_explicit(&isa_cap, memory_order_relaxed);
    return cap > 0 && cap < b ? cap : b;
}

const char *rt_gemm_small_isa_name(void) {
    static const char *names[] = {"?", "plain C", "AVX2+FMA", "AVX-512"};
    return names[gemm_small_isa()];
}

/* The shapes the direct kernel takes with any number of rows. With
 * AVX-512 and op(B)'s rows contiguous it also beats the packed GEMM
 * (gemm.c's AVX-512 6×32 tile) for float32 products narrower than 128
 * columns up to depth 512, where packing and edge tiles cost the GEMM
 * more than the direct kernel's reloads of A (one thread, GFLOP/s,
 * direct vs packed: 256×10×512 63 vs 38, 256×32×512 172–192 vs 122–136,
 * 256×64×256 171–190 vs 150–168, 64×128×64 178–199 vs 138–155; even at
 * 256×128×256; the packed GEMM ahead from 256 columns: 256³ 174 vs 184,
 * 1024×1024×256 145 vs 189). Float32 only: a panel of doubles is 16
 * columns wide, so A is read four times as often per flop. Not with
 * OpenBLAS, whose own kernels are the better choice there. */
#ifndef GEMM_DIRECT_WIDE_MAX_K
#define GEMM_DIRECT_WIDE_MAX_K 512
#endif
#define GEMM_DIRECT_WIDE_MAX_N 127

static int direct_shape(int64_t m, int64_t n, int64_t k, int tb, int wide) {
    if (k <= GEMM_DIRECT_MAX_K || m * n <= GEMM_DIRECT_MAX_WORK / k) return 1;
#ifndef CJAX_HAVE_CBLAS
    if (wide && !tb && k <= GEMM_DIRECT_WIDE_MAX_K && n <= GEMM_DIRECT_WIDE_MAX_N && gemm_small_isa() == ISA_AVX512)
        return 1;
#else
    (void)tb, (void)wide;
#endif
    return 0;
}

int gemm_small_takes(int64_t m, int64_t n, int64_t k, int tb, int f32) {
    if (m <= 0 || n <= 0 || k <= 0) return 0;
    return m == 1 || n == 1 || direct_shape(m, n, k, tb, f32);
}

/* Above this many multiply-adds a product is spread over the pool:
 * matrix-vector work is bound by reading the matrix (2^18 floats take
 * ~50 µs from memory, against a fork-join of 7–40 µs on these machines),
 * the direct kernel by arithmetic (as gemm.c's GEMM_PAR_WORK). */
#define SMALL_PAR_MATVEC ((int64_t)1 << 18)
/* Depths up to this take the direct kernel's streaming loop (measured with
 * bench_gemm: at k = 1 the register-blocked loop spent 3/4 of its time on
 * loop overhead). */
#define GEMM_STREAM_MAX_K 4
#define SMALL_PAR_DIRECT ((int64_t)1 << 22)
/* The most a transposed op(B) is packed at once. */
#define SMALL_PACK_BYTES ((size_t)1 << 20)

/* ---- vector vocabularies, one per instruction set -------------------------- */

/* Plain C: VL-element arrays, mul then add (two roundings: no FMA unit is
 * assumed, and fmaf in software would be slower than the loop). */
#define GEN_VOCAB(T, SFX, N)                                                                       \
    typedef struct {                                                                               \
        T v[N];                                                                                    \
    } gv_##SFX;                                                                                    \
    static inline gv_##SFX gv_zero_##SFX(void) {                                                   \
        gv_##SFX r;                                                                                \
        for (int i = 0; i < N; i++) r.v[i] = 0;                                                    \
        return r;                                                                                  \
    }                                                                                              \
    static inline gv_##SFX gv_load_##SFX(const T *p) {                                             \
        gv_##SFX r;                                                                                \
        memcpy(r.v, p, sizeof r.v);                                                                \
        return r;                                                                                  \
    }                                                                                              \
    static inline gv_##SFX gv_loadm_##SFX(const T *p, int n) {                                     \
        gv_##SFX r = gv_zero_##SFX();                                                              \
        for (int i = 0; i < n; i++) r.v[i] = p[i];                                                 \
        return r;                                                                                  \
    }                                                                                              \
    static inline void gv_store_##SFX(T *p, gv_##SFX a) { memcpy(p, a.v, sizeof a.v); }            \
    static inline void gv_storem_##SFX(T *p, int n, gv_##SFX a) {                                  \
        for (int i = 0; i < n; i++) p[i] = a.v[i];                                                 \
    }                                                                                              \
    static inline gv_##SFX gv_set1_##SFX(T x) {                                                    \
        gv_##SFX r;                                                                                \
        for (int i = 0; i < N; i++) r.v[i] = x;                                                    \
        return r;                                                                                  \
    }                                                                                              \
    static inline gv_##SFX gv_fma_##SFX(gv_##SFX a, gv_##SFX b, gv_##SFX c) {                      \
        for (int i = 0; i < N; i++) c.v[i] = c.v[i] + a.v[i] * b.v[i];                             \
        return c;                                                                                  \
    }                                                                                              \
    static inline gv_##SFX gv_mul_##SFX(gv_##SFX a, gv_##SFX b) {                                  \
        for (int i = 0; i < N; i++) a.v[i] = a.v[i] * b.v[i];                                      \
        return a;                                                                                  \
    }                                                                                              \
    static inline gv_##SFX gv_add_##SFX(gv_##SFX a, gv_##SFX b) {                                  \
        for (int i = 0; i < N; i++) a.v[i] = a.v[i] + b.v[i];                                      \
        return a;                                                                                  \
    }                                                                                              \
    static inline T gv_hsum_##SFX(gv_##SFX a) {                                                    \
        for (int w = N / 2; w >= 1; w /= 2)                                                        \
            for (int i = 0; i < w; i++) a.v[i] = a.v[i] + a.v[i + w];                              \
        return a.v[0];                                                                             \
    }
GEN_VOCAB(float, f32, 8)
GEN_VOCAB(double, f64, 4)
#undef GEN_VOCAB

#ifdef GEMM_SMALL_X86
/* Lane sums in the same order as gv_hsum: lane i + lane i + VL/2, down to
 * one lane. */
__attribute__((target("avx2"))) static inline float hsum_m128(__m128 s4) {
    __m128 s2 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
    return _mm_cvtss_f32(_mm_add_ss(s2, _mm_movehdup_ps(s2)));
}
__attribute__((target("avx2"))) static inline float hsum_m256(__m256 v) {
    return hsum_m128(_mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1)));
}
__attribute__((target("avx512f"))) static inline float hsum_m512(__m512 v) {
    __m256 hi = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1));
    return hsum_m256(_mm256_add_ps(_mm512_castps512_ps256(v), hi));
}
/* Four rows' lane sums at once, each by exactly hsum_m512's additions
 * (lane i + lane i+8, then +4, +2, +1), the rows sharing the shuffles: a
 * third of the instructions of four separate sums. */
__attribute__((target("avx512f"))) static inline void hsum4_m512(__m512 r0, __m512 r1, __m512 r2, __m512 r3,
                                                                float *out) {
    /* 256-bit halves: [r0.lo | r1.lo] + [r0.hi | r1.hi], likewise r2, r3 */
    __m512 a = _mm512_add_ps(_mm512_shuffle_f32x4(r0, r1, _MM_SHUFFLE(1, 0, 1, 0)),
                             _mm512_shuffle_f32x4(r0, r1, _MM_SHUFFLE(3, 2, 3, 2)));
    __m512 b = _mm512_add_ps(_mm512_shuffle_f32x4(r2, r3, _MM_SHUFFLE(1, 0, 1, 0)),
                             _mm512_shuffle_f32x4(r2, r3, _MM_SHUFFLE(3, 2, 3, 2)));
    /* 128-bit halves: one block per row, [r0 r1 r2 r3] */
    __m512 c = _mm512_add_ps(_mm512_shuffle_f32x4(a, b, _MM_SHUFFLE(2, 0, 2, 0)),
                             _mm512_shuffle_f32x4(a, b, _MM_SHUFFLE(3, 1, 3, 1)));
    __m512 d = _mm512_add_ps(c, _mm512_shuffle_ps(c, c, _MM_SHUFFLE(3, 2, 3, 2)));
    __m512 e = _mm512_add_ps(d, _mm512_movehdup_ps(d));
    out[0] = _mm_cvtss_f32(_mm512_castps512_ps128(e));
    out[1] = _mm_cvtss_f32(_mm512_extractf32x4_ps(e, 1));
    out[2] = _mm_cvtss_f32(_mm512_extractf32x4_ps(e, 2));
    out[3] = _mm_cvtss_f32(_mm512_extractf32x4_ps(e, 3));
}
__attribute__((target("avx2"))) static inline double hsum_m256d(__m256d v) {
    __m128d s2 = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
    return _mm_cvtsd_f64(_mm_add_sd(s2, _mm_unpackhi_pd(s2, s2)));
}
__attribute__((target("avx512f"))) static inline double hsum_m512d(__m512d v) {
    return hsum_m256d(_mm256_add_pd(_mm512_castpd512_pd256(v), _mm512_extractf64x4_pd(v, 1)));
}
#endif

#define GEMM_SMALL_PASS 1

#define T float
#define KS generic_f32
#define VHSUM(v) gv_hsum_f32(v)
#define KTARGET
#define VT gv_f32
#define VL 8
#define MT int
#define VZERO() gv_zero_f32()
#define VLOAD(p) gv_load_f32(p)
#define VLOADM(p, m) gv_loadm_f32(p, m)
#define VSTORE(p, v) gv_store_f32(p, v)
#define VSTOREM(p, m, v) gv_storem_f32(p, m, v)
#define VSET1(x) gv_set1_f32(x)
#define VFMA(a, b, c) gv_fma_f32(a, b, c)
#define VMUL(a, b) gv_mul_f32(a, b)
#define VADD(a, b) gv_add_f32(a, b)
#define VMASK(n) (n)
#include "gemm_small_kern.h"
#include "gemm_small_undef.h"

#define T double
#define KS generic_f64
#define VHSUM(v) gv_hsum_f64(v)
#define KTARGET
#define VT gv_f64
#define VL 4
#define MT int
#define VZERO() gv_zero_f64()
#define VLOAD(p) gv_load_f64(p)
#define VLOADM(p, m) gv_loadm_f64(p, m)
#define VSTORE(p, v) gv_store_f64(p, v)
#define VSTOREM(p, m, v) gv_storem_f64(p, m, v)
#define VSET1(x) gv_set1_f64(x)
#define VFMA(a, b, c) gv_fma_f64(a, b, c)
#define VMUL(a, b) gv_mul_f64(a, b)
#define VADD(a, b) gv_add_f64(a, b)
#define VMASK(n) (n)
#include "gemm_small_kern.h"
#include "gemm_small_undef.h"

#ifdef GEMM_SMALL_X86
/* AVX2: masked lanes through vmaskmov, which never faults on the lanes it
 * leaves out. */
#define T float
#define KS avx2_f32
#define VHSUM(v) hsum_m256(v)
#define KTARGET __attribute__((target("avx2,fma")))
#define VT __m256
#define VL 8
#define MT __m256i
#define VZERO() _mm256_setzero_ps()
#define VLOAD(p) _mm256_loadu_ps(p)
#define VLOADM(p, m) _mm256_maskload_ps(p, m)
#define VSTORE(p, v) _mm256_storeu_ps(p, v)
#define VSTOREM(p, m, v) _mm256_maskstore_ps(p, m, v)
#define VSET1(x) _mm256_set1_ps(x)
#define VFMA(a, b, c) _mm256_fmadd_ps(a, b, c)
#define VMUL(a, b) _mm256_mul_ps(a, b)
#define VADD(a, b) _mm256_add_ps(a, b)
#define VMASK(n) _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7))
#include "gemm_small_kern.h"
#include "gemm_small_undef.h"

#define T double
#define KS avx2_f64
#define VHSUM(v) hsum_m256d(v)
#define KTARGET __attribute__((target("avx2,fma")))
#define VT __m256d
#define VL 4
#define MT __m256i
#define VZERO() _mm256_setzero_pd()
#define VLOAD(p) _mm256_loadu_pd(p)
#define VLOADM(p, m) _mm256_maskload_pd(p, m)
#define VSTORE(p, v) _mm256_storeu_pd(p, v)
#define VSTOREM(p, m, v) _mm256_maskstore_pd(p, m, v)
#define VSET1(x) _mm256_set1_pd(x)
#define VFMA(a, b, c) _mm256_fmadd_pd(a, b, c)
#define VMUL(a, b) _mm256_mul_pd(a, b)
#define VADD(a, b) _mm256_add_pd(a, b)
#define VMASK(n) _mm256_cmpgt_epi64(_mm256_set1_epi64x(n), _mm256_setr_epi64x(0, 1, 2, 3))
#include "gemm_small_kern.h"
#include "gemm_small_undef.h"

/* AVX-512F: 16 floats or 8 doubles a vector, lane masks in k registers. */
#define T float
#define KS avx512_f32
#define VHSUM4(a, b, c, d, out) hsum4_m512(a, b, c, d, out)
#define VHSUM(v) hsum_m512(v)
#define KTARGET __attribute__((target("avx512f")))
#define VT __m512
#define VL 16
#define MT __mmask16
#define VZERO() _mm512_setzero_ps()
#define VLOAD(p) _mm512_loadu_ps(p)
#define VLOADM(p, m) _mm512_maskz_loadu_ps(m, p)
#define VSTORE(p, v) _mm512_storeu_ps(p, v)
#define VSTOREM(p, m, v) _mm512_mask_storeu_ps(p, m, v)
#define VSET1(x) _mm512_set1_ps(x)
#define VFMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define VMUL(a, b) _mm512_mul_ps(a, b)
#define VADD(a, b) _mm512_add_ps(a, b)
#define VMASK(n) ((__mmask16)((1u << (n)) - 1u))
#include "gemm_small_kern.h"
#include "gemm_small_undef.h"

#define T double
#define KS avx512_f64
#define VHSUM(v) hsum_m512d(v)
#define KTARGET __attribute__((target("avx512f")))
#define VT __m512d
#define VL 8
#define MT __mmask8
#define VZERO() _mm512_setzero_pd()
#define VLOAD(p) _mm512_loadu_pd(p)
#define VLOADM(p, m) _mm512_maskz_loadu_pd(m, p)
#define VSTORE(p, v) _mm512_storeu_pd(p, v)
#define VSTOREM(p, m, v) _mm512_mask_storeu_pd(p, m, v)
#define VSET1(x) _mm512_set1_pd(x)
#define VFMA(a, b, c) _mm512_fmadd_pd(a, b, c)
#define VMUL(a, b) _mm512_mul_pd(a, b)
#define VADD(a, b) _mm512_add_pd(a, b)
#define VMASK(n) ((__mmask8)((1u << (n)) - 1u))
#include "gemm_small_kern.h"
#include "gemm_small_undef.h"
#endif /* GEMM_SMALL_X86 */

/* ---- the type-dependent driver ------------------------------------------- */
#define T float
#define SFX f32
#include "gemm_small.c"
#undef T
#undef SFX
#define T double
#define SFX f64
#include "gemm_small.c"
#undef T
#undef SFX

#else /* ================ driver pass: T, SFX ================ */

#define SCAT_(a, b) a##_##b
#define SCAT(a, b) SCAT_(a, b)
#define S(name) SCAT(name, SFX)

typedef void (*S(rowdot_fn))(int64_t, int64_t, int64_t, const T *, int64_t, const T *, T *, int64_t, int);
typedef void (*S(direct_fn))(int64_t, int64_t, int64_t, int64_t, int64_t, const T *, int64_t, int64_t,
                             const T *, int64_t, T *, int64_t, int);

/* The kernels of this process's instruction set; `stream` picks the
 * direct kernel's loop for short depths. */
static void S(kernels)(S(rowdot_fn) *rd, S(direct_fn) *dr, int stream) {
    switch (gemm_small_isa()) {
#ifdef GEMM_SMALL_X86
    case ISA_AVX512:
        *rd = SCAT(rowdot_range, SCAT(avx512, SFX));
        *dr = stream ? SCAT(stream_range, SCAT(avx512, SFX)) : SCAT(direct_range, SCAT(avx512, SFX));
        return;
    case ISA_AVX2:
        *rd = SCAT(rowdot_range, SCAT(avx2, SFX));
        *dr = stream ? SCAT(stream_range, SCAT(avx2, SFX)) : SCAT(direct_range, SCAT(avx2, SFX));
        return;
#endif
    default:
        *rd = SCAT(rowdot_range, SCAT(generic, SFX));
        *dr = stream ? SCAT(stream_range, SCAT(generic, SFX)) : SCAT(direct_range, SCAT(generic, SFX));
    }
}

/* x[p·inc] for p < k as a contiguous vector: in place when inc == 1,
 * else packed into the scratch buffer (NULL when out of memory). */
static const T *S(contiguous)(const T *x, int64_t inc, int64_t k) {
    if (inc == 1) return x;
    T *d = gemm_scratch(GEMM_SCRATCH_SMALL, (size_t)k * sizeof(T));
    if (d)
        for (int64_t p = 0; p < k; p++) d[p] = x[p * inc];
    return d;
}

/* One call's work, shared with the pool's tasks. */
typedef struct {
    S(rowdot_fn) rowdot;
    S(direct_fn) direct;
    int64_t m, n, k;
    const T *A, *B;
    int64_t ars, acs, ldb; /* direct: a(i,p) = A[i·ars + p·acs], B row p at B + p·ldb */
    const T *x;            /* rowdot: the contiguous vector; A's rows at A + i·ars */
    T *C;
    int64_t ldc, incc;     /* rowdot: y[i·incc] */
    int acc;
} S(job);

static void S(rowdot_task)(void *arg, int64_t i0, int64_t i1) {
    const S(job) *j = arg;
    j->rowdot(i0, i1, j->k, j->A, j->ars, j->x, j->C, j->incc, j->acc);
}

/* By rows, or by columns when there is one row. */
static void S(direct_task)(void *arg, int64_t b, int64_t e) {
    const S(job) *j = arg;
    if (j->m == 1)
        j->direct(0, 1, b, e, j->k, j->A, j->ars, j->acs, j->B, j->ldb, j->C, j->ldc, j->acc);
    else
        j->direct(b, e, 0, j->n, j->k, j->A, j->ars, j->acs, j->B, j->ldb, j->C, j->ldc, j->acc);
}

static void S(run_rowdot)(S(job) *j, int64_t rows) {
    if (rows * j->k >= SMALL_PAR_MATVEC && rt_num_threads() > 1 && rows >= 8)
        rt_parallel_for(rows, (rows / (4 * (int64_t)rt_num_threads()) + 3) / 4 * 4, S(rowdot_task), j);
    else
        S(rowdot_task)(j, 0, rows);
}

static void S(run_direct)(S(job) *j) {
    int64_t work = j->m * j->n * j->k, len = j->m == 1 ? j->n : j->m;
    int64_t limit = j->m == 1 ? SMALL_PAR_MATVEC : SMALL_PAR_DIRECT;
    if (work >= limit && rt_num_threads() > 1 && len >= 8) {
        /* columns in multiples of 128 so tasks share no cache lines of C */
        int64_t grain = (len / (4 * (int64_t)rt_num_threads()) + 3) / 4 * 4;
        if (j->m == 1) grain = (grain + 127) / 128 * 128;
        rt_parallel_for(len, grain, S(direct_task), j);
    } else {
        S(direct_task)(j, 0, len);
    }
}

/* How every product of one shape and layout runs, decided once per call
 * (or once per batch): run_kind. */
typedef struct {
    S(job) j; /* kernels, sizes and strides; the pointers are set per product */
    int how;
    int64_t lda, ldb, ldc, inc; /* the caller's strides; inc: the vector's stride */
    int ta, tb;
} S(plan);

static void S(plan_make)(S(plan) *pl, int64_t m, int64_t n, int64_t k, int64_t lda, int ta, int64_t ldb,
                         int tb, int64_t ldc, int acc) {
    memset(pl, 0, sizeof *pl);
    S(job) *j = &pl->j;
    S(kernels)(&j->rowdot, &j->direct, k <= GEMM_STREAM_MAX_K);
    j->m = m, j->n = n, j->k = k, j->acc = acc;
    pl->lda = lda, pl->ldb = ldb, pl->ldc = ldc, pl->ta = ta, pl->tb = tb;
    if (n == 1) {
        /* C[i] = Σ_p op(A)[i,p] · v[p], v[p] = op(B)[p,0] */
        pl->inc = tb ? 1 : ldb;
        if (!ta) { /* rows of A are contiguous: dot products */
            pl->how = RUN_ROWDOT_A;
            j->ars = lda, j->incc = ldc;
            return;
        }
        /* A stored k×m: Cᵀ = vᵀ · A, a one-row direct product */
        pl->how = RUN_DIRECT_T;
        j->m = 1, j->n = m, j->ars = 0, j->acs = pl->inc, j->ldb = lda;
        return;
    }
    if (m == 1 && tb && !direct_shape(1, n, k, tb, 0)) {
        /* C[j] = Σ_p u[p] · B[j, p] for B stored n×k: dot products of its
         * rows with u = op(A)[0, :] rather than packing all of B. Smaller
         * shapes take the direct kernel below, as they do with more rows,
         * so a row computes the same alone as in a small product. */
        pl->how = RUN_ROWDOT_B;
        pl->inc = ta ? lda : 1;
        j->ars = ldb, j->incc = 1;
        return;
    }
    /* Outer products, rank-k updates, small products, vector · matrix:
     * op(B)'s rows must be contiguous; a transposed B (stored n×k) is
     * packed k×n first. */
    pl->how = RUN_DIRECT;
    j->ars = ta ? 1 : lda, j->acs = ta ? lda : 1, j->ldc = ldc;
    j->ldb = tb ? n : ldb;
}

/* One product of the plan; 0 when scratch memory cannot be had. Only the
 * plan's pointers change (a product's job is the plan's own: copying it
 * per product cost a store-forwarding stall per call). */
static int S(plan_run)(S(plan) *pl, const T *A, const T *B, T *C) {
    S(job) *j = &pl->j;
    int64_t k = j->k;
    switch (pl->how) {
    case RUN_ROWDOT_A:
        j->x = S(contiguous)(B, pl->inc, k);
        if (!j->x) return 0;
        j->A = A, j->C = C;
        S(run_rowdot)(j, j->m);
        return 1;
    case RUN_DIRECT_T: {
        int64_t m = j->n; /* C[i·ldc], i < m: a contiguous row, else via scratch */
        int acc = j->acc;
        j->A = B, j->B = A, j->C = C;
        if (pl->ldc == 1 || m == 1) {
            S(run_direct)(j);
            return 1;
        }
        T *t = gemm_scratch(GEMM_SCRATCH_SMALL, (size_t)m * sizeof(T));
        if (!t) return 0;
        j->C = t, j->acc = 0;
        S(run_direct)(j);
        j->acc = acc;
        for (int64_t i = 0; i < m; i++) C[i * pl->ldc] = acc ? C[i * pl->ldc] + t[i] : t[i];
        return 1;
    }
    case RUN_ROWDOT_B:
        j->x = S(contiguous)(A, pl->inc, k);
        if (!j->x) return 0;
        j->A = B, j->C = C;
        S(run_rowdot)(j, j->n);
        return 1;
    default:
        j->A = A, j->B = B, j->C = C;
        if (pl->tb) {
            /* op(B) packed k×w, w columns at a time, so the scratch stays
             * under SMALL_PACK_BYTES however wide the product (columns are
             * independent: the same numbers either way) */
            int64_t n = j->n, w = (int64_t)(SMALL_PACK_BYTES / ((size_t)k * sizeof(T))) / 128 * 128;
            if (w < 128) w = 128;
            if (w > n) w = n;
            T *d = gemm_scratch(GEMM_SCRATCH_SMALL, (size_t)(k * w) * sizeof(T));
            if (!d) return 0;
            for (int64_t j0 = 0; j0 < n; j0 += w) {
                int64_t wc = n - j0 < w ? n - j0 : w;
                for (int64_t c = 0; c < wc; c++) {
                    const T *s = B + (j0 + c) * pl->ldb;
                    for (int64_t p = 0; p < k; p++) d[p * wc + c] = s[p];
                }
                S(job) part = *j;
                part.B = d, part.ldb = wc, part.n = wc, part.C = C + j0;
                S(run_direct)(&part);
            }
            return 1;
        }
        S(run_direct)(j);
        return 1;
    }
}

int S(gemm_small)(int64_t m, int64_t n, int64_t k, const T *A, int64_t lda, int ta, const T *B,
                  int64_t ldb, int tb, T *C, int64_t ldc, int acc) {
    S(plan) pl;
    S(plan_make)(&pl, m, n, k, lda, ta, ldb, tb, ldc, acc);
    return S(plan_run)(&pl, A, B, C);
}

int64_t S(gemm_small_batch)(int64_t batch, int64_t m, int64_t n, int64_t k, const T *A, int64_t sa,
                            int64_t lda, int ta, const T *B, int64_t sb, int64_t ldb, int tb, T *C,
                            int64_t sc, int64_t ldc, int acc) {
    S(plan) pl;
    S(plan_make)(&pl, m, n, k, lda, ta, ldb, tb, ldc, acc);
    for (int64_t b = 0; b < batch; b++)
        if (!S(plan_run)(&pl, A + b * sa, B + b * sb, C + b * sc)) return b;
    return batch;
}

#undef S
#undef SCAT
#undef SCAT_
#endif /* GEMM_SMALL_PASS */
