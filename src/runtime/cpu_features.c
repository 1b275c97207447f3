/* cpu_features.c — the CPU's instruction-set level, read once (runtime
 * layer; see cpu_features.h).
 *
 * __builtin_cpu_supports reads libgcc's CPU model (filled before main, from
 * cpuid, and checking with xgetbv that the OS saves the wider registers), so
 * a level is reported only when both the CPU and the OS support it. The
 * variants are compiled with exactly the features checked here (CMake
 * passes -mavx2 -mfma, or those plus -mavx512f/cd/bw/dq/vl), so a variant
 * never runs an instruction this CPU lacks. CJAX_ISA_VARIANTS is defined
 * when the build has them. */
#include "cpu_features.h"

#include <stdatomic.h>

#include "runtime.h"

int rt_cpu_runs(int isa) {
    if (isa <= RT_ISA_BASE) return 1;
#if defined(CJAX_ISA_VARIANTS) && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    int avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (isa == RT_ISA_AVX2) return avx2;
    if (isa == RT_ISA_AVX512)
        return avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
               __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
               __builtin_cpu_supports("avx512vl");
#endif
    return 0;
}

int rt_cpu_isa(void) {
    static atomic_int best; /* 0 until first asked; every thread computes the same */
    int b = atomic_load_explicit(&best, memory_order_relaxed);
    if (!b) {
        b = rt_cpu_runs(RT_ISA_AVX512) ? RT_ISA_AVX512 : rt_cpu_runs(RT_ISA_AVX2) ? RT_ISA_AVX2 : RT_ISA_BASE;
        int cap = rt_isa_cap();
        if (cap && cap < b) b = cap;
        atomic_store_explicit(&best, b, memory_order_relaxed);
    }
    return b;
}

int rt_isa_cap(void) { return rt_config_get()->isa_cap; }

const char *rt_isa_name(int isa) {
    switch (isa) {
    case RT_ISA_AVX2: return "AVX2+FMA";
    case RT_ISA_AVX512: return "AVX-512";
    default: return "baseline";
    }
}
