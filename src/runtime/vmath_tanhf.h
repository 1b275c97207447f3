/* vmath_tanhf.h — float32 tanh as one piece of source shared by vmath.c and
 * the generated C (runtime layer).
 *
 * vm_tanh_f32 (the eager kernels, the interpreter's tiles) and the code
 * generator's inline tanh (cjk_tanhf in every generated unit, so a fused
 * loop computes tanh in its vectorised statements instead of calling
 * vm_tanh_f32 on a tile array) must give the same bits, so both expand
 * this one macro. VM_TANHF_SRC(FMAF) defines `static inline float
 * cjk_tanhf(float)`; FMAF is the fused multiply-add to use,
 * __builtin_fmaf where the library was built with FMA (the generated unit
 * then uses it too, whatever its own flags: bits agree) and a plain a*b+c
 * otherwise. VM_TANHF_TEXT is the same definition as a string for the
 * code generator.
 *
 * Method (the class of XLA's and Eigen's float tanh): a rational function
 * tanh(x) = x P(s) / Q(s), s = x^2, P of degree 5 and Q of degree 4 in s,
 * P(0) = Q(0) = 1, fitted for relative error on [0, 9.02] (0.02 ulp before
 * rounding; tools/fit_tanhf.py makes the coefficients). No exp, no branch,
 * no integer tricks: about eighteen vector operations and one division
 * per vector where the expm1 form it replaces took about twenty-four
 * (1e7 floats of tanh(a*x+b)*c-d from a cached tile, one Sapphire Rapids
 * core: 4.5 -> 3.9 ms). s is clamped at 9.02^2 so P and Q never overflow,
 * and the result is clamped to [-1, 1]: past 9.02 the quotient grows like
 * x/9.02, so every larger x gives exactly +-1, inf included. The
 * numerator is x + (x s) P1(s), P = 1 + s P1, so a tiny or subnormal x
 * gives x itself and -0 gives -0; NaN stays NaN (it reaches the
 * numerator through x, and no clamp turns it into a constant). Error
 * against double tanh, the function being odd by construction: at most
 * 4.88 ulp over every float of [0.5, 11] with FMA (every 13th float
 * below), near 1, where the quotient of two values far above 1 rounds
 * worst (Eigen's 13/6 rational, in a sample of the same range: 4.5; the
 * expm1 form: 2.4); 6.3 without FMA (every third float).
 * tests/test_vmath_tanh_accuracy.c holds it to 5 ulp (8 without FMA).
 * The text must not contain a multiply feeding an add outside FMAF: gcc
 * may contract those under -std=gnu11 (the library) but not -std=c11
 * (generated C). */
#ifndef CJ_RUNTIME_VMATH_TANHF_H
#define CJ_RUNTIME_VMATH_TANHF_H

#define VM_TANHF_SRC(FMAF)                                                   \
    static inline float cjk_tanhf(float x) {                                 \
        float s = x * x;                                                     \
        s = s > 0x1.45710ep+6f ? 0x1.45710ep+6f : s;                         \
        float p = FMAF(-0x1.af70fep-37f, s, 0x1.077856p-25f);                \
        p = FMAF(p, s, 0x1.d6899p-16f);                                      \
        p = FMAF(p, s, 0x1.fb4a96p-9f);                                      \
        p = FMAF(p, s, 0x1.1832ap-3f);                                       \
        float xs = x * s;                                                    \
        float num = FMAF(xs, p, x);                                          \
        float q = FMAF(0x1.5a477cp-20f, s, 0x1.9d5be6p-12f);                 \
        q = FMAF(q, s, 0x1.be8448p-6f);                                      \
        q = FMAF(q, s, 0x1.e16ea6p-2f);                                      \
        q = FMAF(q, s, 1.0f);                                                \
        float y = num / q;                                                   \
        y = y > 1.0f ? 1.0f : y;                                             \
        y = y < -1.0f ? -1.0f : y;                                           \
        return y;                                                            \
    }

#if defined(__FMA__)
#define VM_TANHF_FMA __builtin_fmaf
#define VM_TANHF_FMA_TEXT "#define CJK_FMAF(a, b, c) __builtin_fmaf((a), (b), (c))\n"
#else
#define VM_TANHF_FMA(a, b, c) ((a) * (b) + (c))
#define VM_TANHF_FMA_TEXT "#define CJK_FMAF(a, b, c) ((a) * (b) + (c))\n"
#endif

#define VM_TANHF_STR_(...) #__VA_ARGS__
#define VM_TANHF_STR(...) VM_TANHF_STR_(__VA_ARGS__)
/* the definition for a generated unit: CJK_FMAF first, then cjk_tanhf */
#define VM_TANHF_TEXT VM_TANHF_FMA_TEXT VM_TANHF_STR(VM_TANHF_SRC(CJK_FMAF)) "\n"

#endif
