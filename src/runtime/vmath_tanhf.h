/* vmath_tanhf.h — float32 tanh as one piece of source shared by vmath.c and
 * the generated C (runtime layer).
 *
 * vm_tanh_f32 (the eager kernels, the interpreter's tiles) and the code
 * generator's inline tanh (cjk_tanhf in every generated unit, so a fused
 * loop computes tanh in its vectorised statements instead of calling
 * vm_tanh_f32 on a tile array: sum(tanh(a*x+b)*c+d) went from 8.5 to
 * about 6.8 ms CPU per 1e7 floats on one Zen 3 core) must give the same
 * bits, so both expand this one macro. VM_TANHF_SRC(FMAF) defines
 * `static inline float cjk_tanhf(float)`; FMAF is the fused multiply-add
 * to use, __builtin_fmaf where the library was built with FMA (the
 * generated unit then uses it too, whatever its own flags: bits agree)
 * and a plain a*b+c otherwise. VM_TANHF_TEXT is the same definition as a
 * string for the code generator.
 *
 * Method: tanh|x| = t/(t+2) with t = expm1(2|x|) = s*q + (s-1), s = 2^k,
 * 2|x| = k ln2 + r, |r| <= ln2/2, q = e^r - 1 by a degree-7 polynomial
 * (abs error 2^-29.5); 2|x| is clamped at 20, where the quotient rounds
 * to 1; the sign is copied back (tanh(-0) = -0, NaN stays NaN). Within
 * 4 ulp of the correctly rounded value (tests/test_vmath.c). The text must
 * not contain a multiply feeding an add outside FMAF: gcc may contract
 * those under -std=gnu11 (the library) but not -std=c11 (generated C). */
#ifndef CJ_RUNTIME_VMATH_TANHF_H
#define CJ_RUNTIME_VMATH_TANHF_H

#define VM_TANHF_SRC(FMAF)                                                   \
    static inline float cjk_tanhf(float x) {                                 \
        unsigned ux, ua, us, uy;                                             \
        float a, s, y;                                                       \
        __builtin_memcpy(&ux, &x, 4);                                        \
        ua = ux & 0x7fffffffu;                                               \
        __builtin_memcpy(&a, &ua, 4);                                        \
        a = 2.0f * a;                                                        \
        a = a > 20.0f ? 20.0f : a;                                           \
        float kf = FMAF(a, 0x1.715476p+0f, 0x1.8p23f) - 0x1.8p23f;           \
        float r = FMAF(-kf, 0x1.62e4p-1f, a);                                \
        r = FMAF(-kf, 0x1.7f7d1cp-20f, r);                                   \
        float p = FMAF(0x1.a17dfcp-13f, r, 0x1.6d431cp-10f);                 \
        p = FMAF(p, r, 0x1.1110acp-7f);                                      \
        p = FMAF(p, r, 0x1.5554eap-5f);                                      \
        p = FMAF(p, r, 0x1.555556p-3f);                                      \
        p = FMAF(p, r, 0x1.000000p-1f);                                      \
        float q = FMAF(r * r, p, r);                                         \
        float kr = kf + 0x1.8p23f;                                           \
        __builtin_memcpy(&us, &kr, 4);                                       \
        us = (us + 127u) << 23;                                              \
        __builtin_memcpy(&s, &us, 4);                                        \
        float t = FMAF(s, q, s - 1.0f);                                      \
        y = t / (t + 2.0f);                                                  \
        __builtin_memcpy(&uy, &y, 4);                                        \
        uy |= ux & 0x80000000u;                                              \
        __builtin_memcpy(&y, &uy, 4);                                        \
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
