/* elementwise_dispatch.c — ew_kernel: the elementwise loops of the
 * instruction-set level this CPU runs (prim layer; see
 * elementwise_kernels.h, src/runtime/cpu_features.h).
 *
 * The library is built for its architecture's baseline; the eager and
 * interpreted elementwise loops (elementwise_kernels.c, mostly plain loops
 * the compiler vectorises) are also compiled for AVX2+FMA and AVX-512, a
 * quarter and an eighth as many instructions per element as SSE2 on tiles
 * that sit in cache. Every level computes the same bits: the loops are
 * exact IEEE operations, no contraction (-std=c11), and transcendental
 * functions go through vmath's own dispatch. The lookup runs once per
 * kernel call (a tile or a range), never per element. */
#include "elementwise_kernels.h"

#include "../runtime/cpu_features.h"

ew_kernel_fn ew_kernel_base(prim_id prim, cj_dtype dt);
#ifdef CJAX_ISA_VARIANTS
ew_kernel_fn ew_kernel_avx2(prim_id prim, cj_dtype dt);
ew_kernel_fn ew_kernel_avx512(prim_id prim, cj_dtype dt);
#endif

ew_kernel_fn ew_kernel(prim_id prim, cj_dtype dt) {
    switch (rt_cpu_isa()) {
#ifdef CJAX_ISA_VARIANTS
    case RT_ISA_AVX512: return ew_kernel_avx512(prim, dt);
    case RT_ISA_AVX2: return ew_kernel_avx2(prim, dt);
#endif
    default: return ew_kernel_base(prim, dt);
    }
}
