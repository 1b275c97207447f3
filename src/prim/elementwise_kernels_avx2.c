/* elementwise_kernels_avx2.c — elementwise_kernels.c compiled again for
 * AVX2 + FMA (prim layer; see elementwise_dispatch.c). CMake gives this file
 * its flags and defines CJAX_ISA_VARIANTS when it can build them for
 * x86-64; otherwise it is empty. Its lookup, ew_kernel_avx2, is called
 * only when rt_cpu_isa() says this CPU runs it. */
#ifdef CJAX_ISA_VARIANTS
#define EW_ISA_NAME ew_kernel_avx2
#include "elementwise_kernels.c"
#else
typedef int elementwise_kernels_avx2_is_not_built; /* ISO C wants a declaration in every unit */
#endif
