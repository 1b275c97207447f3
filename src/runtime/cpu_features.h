/* cpu_features.h — which instruction-set level this CPU runs (runtime layer).
 *
 * The library is built for the baseline of its architecture (no
 * -march=native unless CJAX_NATIVE=ON), and its hot loops are compiled
 * again for higher x86-64 levels (vmath_avx2.c, vmath_avx512.c: the same
 * source under other flags). rt_cpu_isa() says which of those this CPU and
 * its OS can run, once per process, so every caller picks the same one and
 * a process's results are reproducible. */
#ifndef CJ_RUNTIME_CPU_FEATURES_H
#define CJ_RUNTIME_CPU_FEATURES_H

/* Levels in order: a higher one runs everything a lower one does. */
enum {
    RT_ISA_BASE = 1,   /* what the library was built for (x86-64: SSE2) */
    RT_ISA_AVX2 = 2,   /* AVX2 + FMA (x86-64-v3's vector part) */
    RT_ISA_AVX512 = 3  /* AVX-512 F, CD, BW, DQ, VL (x86-64-v4) */
};

/* The highest level this CPU runs among those the build has variants of
 * (RT_ISA_BASE on other architectures, with CJAX_NATIVE=ON, or when the
 * compiler cannot build the variants), at most CJAX_ISA's cap. */
int rt_cpu_isa(void);
/* CJAX_ISA as a level: baseline, avx2, avx512; 0 when not set. Kernels
 * that choose their own instruction set (gemm_small.c) apply it too. */
int rt_isa_cap(void);
/* "baseline", "AVX2+FMA", "AVX-512" */
const char *rt_isa_name(int isa);
/* Whether the CPU runs `isa` at all (a test runs every variant it can). */
int rt_cpu_runs(int isa);

#endif
