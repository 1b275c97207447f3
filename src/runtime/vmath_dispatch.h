/* vmath_dispatch.h — which compilation of vmath.c the vm_* entry points
 * run (runtime layer; see vmath_isa.h and cpu_features.h).
 *
 * vmath.h's functions forward through a table of one level's entry points,
 * chosen once per process: the highest level this CPU runs. Results are
 * elementwise, so a level's vector width never changes a bit; the levels
 * with FMA (AVX2, AVX-512) compute the same bits, the baseline (no FMA on
 * x86-64) can differ from them in the last place within the same accuracy
 * bounds (vmath.h). */
#ifndef CJ_RUNTIME_VMATH_DISPATCH_H
#define CJ_RUNTIME_VMATH_DISPATCH_H
#include <stdint.h>

/* Every entry point of vmath.h, by kind: X(name) for name_f32 / name_f64. */
#define VM_UNARY_FNS(X) \
    X(exp) X(exp2) X(log) X(log1p) X(expm1) X(sin) X(cos) X(tan) X(asin) X(acos) X(atan) X(sinh) X(cosh) \
    X(tanh) X(logistic) X(erf) X(cbrt)
#define VM_BINARY_FNS(X) X(pow) X(atan2)

typedef struct vm_table {
    int isa;                   /* RT_ISA_* */
    int fma;                   /* its polynomials use fused multiply-adds */
    const char *(*tanhf_text)(void); /* the generated C's cjk_tanhf for it */
#define VM_TABLE_UNARY(f)                                      \
    void (*f##_f32)(const float *x, float *y, int64_t n);      \
    void (*f##_f64)(const double *x, double *y, int64_t n);
#define VM_TABLE_BINARY(f)                                                  \
    void (*f##_f32)(const float *a, const float *b, float *y, int64_t n);   \
    void (*f##_f64)(const double *a, const double *b, double *y, int64_t n);
    VM_UNARY_FNS(VM_TABLE_UNARY)
    VM_BINARY_FNS(VM_TABLE_BINARY)
#undef VM_TABLE_UNARY
#undef VM_TABLE_BINARY
    void (*sincos_f32)(const float *x, float *s, float *c, int64_t n);
    void (*sincos_f64)(const double *x, double *s, double *c, int64_t n);
} vm_table;

/* The table the vm_* functions use in this process. */
const vm_table *vm_active(void);
/* The table of one level (RT_ISA_*): NULL when the build has no such
 * variant or this CPU cannot run it. For tests that compare the levels. */
const vm_table *vm_table_for(int isa);
/* vmath_tanhf.h's definition of cjk_tanhf for a generated unit, with the
 * active level's fused multiply-add (or none), so inline and table tanh
 * agree bit for bit. */
const char *vm_tanhf_text(void);

#endif
