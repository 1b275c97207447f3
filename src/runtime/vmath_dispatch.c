/* vmath_dispatch.c — the vm_* entry points of vmath.h, forwarding to the
 * compilation of vmath.c this CPU runs best (runtime layer; see
 * vmath_dispatch.h, vmath_isa.h).
 *
 * The library is built for its architecture's baseline so that an
 * installed copy runs on any CPU of it; the transcendental loops are where
 * that costs most (no FMA: float trig falls back to its double kernel, and
 * SSE2 is a quarter of AVX-512's width), so vmath.c is also compiled for
 * AVX2+FMA and AVX-512 and one level is picked on first use. A call pays
 * one indirect jump; the loops behind it run over whole tiles. With
 * CJAX_NATIVE=ON (or off x86-64) only the baseline compilation exists and
 * it is the table. */
#include "vmath_dispatch.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>

#include "cpu_features.h"
#include "runtime.h"
#include "vmath.h"

/* The entry points of one compilation, under its suffix (vmath_isa.h). */
#define VM_DECL_UNARY(f, isa)                                      \
    void vm_##f##_f32_##isa(const float *x, float *y, int64_t n);  \
    void vm_##f##_f64_##isa(const double *x, double *y, int64_t n);
#define VM_DECL_BINARY(f, isa)                                                      \
    void vm_##f##_f32_##isa(const float *a, const float *b, float *y, int64_t n);   \
    void vm_##f##_f64_##isa(const double *a, const double *b, double *y, int64_t n);
#define VM_INIT(f, isa) .f##_f32 = vm_##f##_f32_##isa, .f##_f64 = vm_##f##_f64_##isa,

#define VM_LEVEL(isa, ISA, FMA)                                                             \
    VM_UNARY_FNS(VM_DECL_UNARY_##isa)                                                       \
    VM_BINARY_FNS(VM_DECL_BINARY_##isa)                                                     \
    void vm_sincos_f32_##isa(const float *x, float *s, float *c, int64_t n);                \
    void vm_sincos_f64_##isa(const double *x, double *s, double *c, int64_t n);             \
    const char *vm_tanhf_text_##isa(void);                                                  \
    static const vm_table table_##isa = {ISA, FMA, vm_tanhf_text_##isa,                     \
                                         VM_UNARY_FNS(VM_INIT_##isa) VM_BINARY_FNS(VM_INIT_##isa) \
                                         .sincos_f32 = vm_sincos_f32_##isa,                 \
                                         .sincos_f64 = vm_sincos_f64_##isa};

/* X-macros take one argument, so each level gets its own adapters. */
#define VM_DECL_UNARY_base(f) VM_DECL_UNARY(f, base)
#define VM_DECL_BINARY_base(f) VM_DECL_BINARY(f, base)
#define VM_INIT_base(f) VM_INIT(f, base)
#if defined(__FMA__)
VM_LEVEL(base, RT_ISA_BASE, 1)
#else
VM_LEVEL(base, RT_ISA_BASE, 0)
#endif

#ifdef CJAX_ISA_VARIANTS
#define VM_DECL_UNARY_avx2(f) VM_DECL_UNARY(f, avx2)
#define VM_DECL_BINARY_avx2(f) VM_DECL_BINARY(f, avx2)
#define VM_INIT_avx2(f) VM_INIT(f, avx2)
VM_LEVEL(avx2, RT_ISA_AVX2, 1)
#define VM_DECL_UNARY_avx512(f) VM_DECL_UNARY(f, avx512)
#define VM_DECL_BINARY_avx512(f) VM_DECL_BINARY(f, avx512)
#define VM_INIT_avx512(f) VM_INIT(f, avx512)
VM_LEVEL(avx512, RT_ISA_AVX512, 1)
#endif

const vm_table *vm_table_for(int isa) {
    if (!rt_cpu_runs(isa)) return NULL;
    switch (isa) {
    case RT_ISA_BASE: return &table_base;
#ifdef CJAX_ISA_VARIANTS
    case RT_ISA_AVX2: return &table_avx2;
    case RT_ISA_AVX512: return &table_avx512;
#endif
    default: return NULL;
    }
}

const vm_table *vm_active(void) {
    static const vm_table *_Atomic active; /* set on first use; every thread picks the same */
    const vm_table *t = atomic_load_explicit(&active, memory_order_relaxed);
    if (!t) {
        for (int isa = rt_cpu_isa(); isa >= RT_ISA_BASE && !t; isa--) t = vm_table_for(isa);
        static atomic_int said;
        if (rt_config_get()->verbose && !atomic_exchange(&said, 1))
            fprintf(stderr, "cjax: vector math runs its %s compilation (%s)\n", rt_isa_name(t->isa),
#ifdef CJAX_ISA_VARIANTS
                    "chosen for this CPU; CJAX_ISA=baseline|avx2|avx512 caps it"
#else
                    "the only one this build has"
#endif
            );
        atomic_store_explicit(&active, t, memory_order_relaxed);
    }
    return t;
}

const char *vm_tanhf_text(void) { return vm_active()->tanhf_text(); }

/* ---- vmath.h's names ---- */
#define VM_FORWARD_UNARY(f)                                                                        \
    void vm_##f##_f32(const float *x, float *y, int64_t n) { vm_active()->f##_f32(x, y, n); }      \
    void vm_##f##_f64(const double *x, double *y, int64_t n) { vm_active()->f##_f64(x, y, n); }
#define VM_FORWARD_BINARY(f)                                                                       \
    void vm_##f##_f32(const float *a, const float *b, float *y, int64_t n) {                       \
        vm_active()->f##_f32(a, b, y, n);                                                          \
    }                                                                                              \
    void vm_##f##_f64(const double *a, const double *b, double *y, int64_t n) {                    \
        vm_active()->f##_f64(a, b, y, n);                                                          \
    }
VM_UNARY_FNS(VM_FORWARD_UNARY)
VM_BINARY_FNS(VM_FORWARD_BINARY)

void vm_sincos_f32(const float *x, float *s, float *c, int64_t n) { vm_active()->sincos_f32(x, s, c, n); }
void vm_sincos_f64(const double *x, double *s, double *c, int64_t n) { vm_active()->sincos_f64(x, s, c, n); }
