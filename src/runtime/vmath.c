/* vmath.c — vectorisable elementwise math (runtime layer).
 *
 * Sits under the eager kernels and the generated code, which call the vm_*
 * entry points of vmath.h for transcendental elementwise work. This file owns
 * the approximations themselves: range reductions, minimax polynomials
 * (fitted for this file with a Remez exchange in extended precision), and
 * special-value handling. Every kernel is a branch-free static inline scalar
 * function; the entry points call it in a plain loop that gcc and clang turn
 * into SIMD code. Bits are read and written through memcpy, and rounding to
 * an integer uses the "add 1.5*2^52" trick, so no float->int conversion
 * (unvectorisable for int64 on AVX2, undefined for NaN) appears.
 *
 * float32 functions of the exp/log family run in float; so do sin/cos/tan
 * on FMA hardware (a three-piece Cody–Waite reduction whose rounding error
 * FMA recovers), for |x| <= 2^19. Those whose argument reduction needs more
 * than float precision (trig elsewhere, inverse trig, erf, cbrt, pow) run
 * in double with shorter polynomials and round once at the end. sin/cos/tan
 * of arguments beyond a kernel's range are recomputed in a fix-up pass that
 * only runs for blocks containing such an argument: float32 by the double
 * kernel up to 2^24, libm beyond (float64: libm beyond 2^20).
 *
 * Contraction: with FMA hardware (__FMA__) the polynomials use fused
 * multiply-adds explicitly; without it every step is still accurate (the
 * split constants carry trailing zero bits so their products are exact).
 *
 * Flags: gcc 12 vectorises all 48 loops only at -O3 with -fno-trapping-math
 * (the selects) and -fno-math-errno (sqrt); without them the code is still
 * correct, just scalar. No -ffast-math: NaN, inf and -0 are handled. */
#include "vmath_isa.h" /* this compilation's names: vm_exp_f32_avx2, ... */
#include "vmath.h"
#include "vmath_tanhf.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Building blocks                                                          */
/* ------------------------------------------------------------------------ */

#if VM_FMA
#define FMA(a, b, c) __builtin_fma((a), (b), (c))
#define FMAF(a, b, c) __builtin_fmaf((a), (b), (c))
#else
#define FMA(a, b, c) ((a) * (b) + (c))
#define FMAF(a, b, c) ((a) * (b) + (c))
#endif

#define INF_D __builtin_inf()
#define NAN_D __builtin_nan("")
#define INF_F __builtin_inff()
#define NAN_F __builtin_nanf("")
#define SIGN_D 0x8000000000000000ull
#define MANT_D 0x000fffffffffffffull

static inline uint64_t bits_d(double x) {
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}
static inline double from_bits_d(uint64_t u) {
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}
static inline uint32_t bits_f(float x) {
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}
static inline float from_bits_f(uint32_t u) {
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}
static inline double abs_d(double x) { return from_bits_d(bits_d(x) & ~SIGN_D); }
static inline float abs_f(float x) { return from_bits_f(bits_f(x) & 0x7fffffffu); }
/* |mag| with the sign bit of sgn (mag is non-negative or NaN) */
static inline double with_sign_d(double mag, double sgn) {
    return from_bits_d(bits_d(mag) | (bits_d(sgn) & SIGN_D));
}
static inline float with_sign_f(float mag, float sgn) {
    return from_bits_f(bits_f(mag) | (bits_f(sgn) & 0x80000000u));
}

/* a where mask is all ones, b where it is zero (a bitwise blend that SSE2
 * can vectorise too, unlike selects on 64-bit integer comparisons). */
static inline double select_d(uint64_t mask, double a, double b) {
    return from_bits_d((bits_d(a) & mask) | (bits_d(b) & ~mask));
}

/* Horner evaluation of c[0] + c[1] x + ... + c[n-1] x^(n-1); n is a
 * constant at every call, so the loop unrolls completely. */
static inline double poly_d(double x, const double *c, int n) {
    double p = c[n - 1];
    for (int i = n - 2; i >= 0; i--) p = FMA(p, x, c[i]);
    return p;
}
static inline float poly_f(float x, const float *c, int n) {
    float p = c[n - 1];
    for (int i = n - 2; i >= 0; i--) p = FMAF(p, x, c[i]);
    return p;
}

/* Rounding to an integer: for |v| < 2^51, t = v + RND_D holds round(v) in
 * its low mantissa bits (two's complement) and t - RND_D == round(v). */
#define RND_D 0x1.8p52
#define RND_F 0x1.8p23f

/* 2^k for the integer k carried by t = k + RND_D; needs -1022 <= k <= 1023.
 * The low 12 bits of bits(t) are k mod 4096, so the shift drops the rest. */
static inline double pow2_rnd_d(double t) {
    return from_bits_d((bits_d(t) + 1023) << 52);
}
static inline float pow2_rnd_f(float t) {
    return from_bits_f((bits_f(t) + 127) << 23);
}
/* p * 2^k for an integer-valued k with |k| <= 2044, in two exact steps so
 * that results near overflow and in the subnormal range come out right. */
static inline double scale2_d(double p, double k) {
    double t1 = FMA(k, 0.5, RND_D);
    double t2 = (k - (t1 - RND_D)) + RND_D;
    return p * pow2_rnd_d(t1) * pow2_rnd_d(t2);
}
static inline float scale2_f(float p, float k) {
    float t1 = FMAF(k, 0.5f, RND_F);
    float t2 = (k - (t1 - RND_F)) + RND_F;
    return p * pow2_rnd_f(t1) * pow2_rnd_f(t2);
}

/* Exact product a*b = hi + *lo (without FMA by Dekker's splitting, which
 * needs |a|, |b| < 2^996). */
static inline double two_prod(double a, double b, double *lo) {
    double p = a * b;
#if VM_FMA
    *lo = __builtin_fma(a, b, -p);
#else
    double ca = a * 134217729.0, cb = b * 134217729.0; /* 2^27 + 1 */
    double ah = ca - (ca - a), al = a - ah;
    double bh = cb - (cb - b), bl = b - bh;
    *lo = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
#endif
    return p;
}
/* Exact sum a + b = s + *lo (Knuth's branch-free two-sum). */
static inline double two_sum(double a, double b, double *lo) {
    double s = a + b, bb = s - a;
    *lo = (a - (s - bb)) + (b - bb);
    return s;
}

/* ------------------------------------------------------------------------ */
/* Constants                                                                */
/* ------------------------------------------------------------------------ */

/* ln2 = LN2_HI + LN2_LO; LN2_HI has 29 significant bits, so k*LN2_HI is
 * exact for |k| < 2^24 (Cody–Waite). */
#define LN2_HI 0x1.62e42ff000000p-1
#define LN2_LO -0x1.718432a1b0e26p-35
#define LN2 0x1.62e42fefa39efp-1
#define INVLN2 0x1.71547652b82fep+0
/* float: 16-bit high part, exact times any |k| < 2^8 */
#define LN2F_HI 0x1.62e4p-1f
#define LN2F_LO 0x1.7f7d1cp-20f
#define LN2F 0x1.62e430p-1f
#define INVLN2F 0x1.715476p+0f

/* pi/2 as three 33-bit pieces and a full-precision fourth: k*PIO2_1..3 are
 * exact for |k| < 2^20, and the sum carries ~160 bits of pi/2. */
#define PIO2_1 0x1.921fb544p+0
#define PIO2_2 0x1.0b4611a6p-34
#define PIO2_3 0x1.3198a2ep-69
#define PIO2_4 0x1.b839a252049c1p-104
/* the same for float arguments (|k| < 2^24): two 29-bit pieces and a full
 * third, ~114 bits. */
#define PIO2F_1 0x1.921fb54p+0
#define PIO2F_2 0x1.10b4612p-30
#define PIO2F_3 -0x1.676733ae8fe48p-60
#define TWO_OVER_PI 0x1.45f306dc9c883p-1
/* pi/2 as three floats for the float-only reduction: PIO2FF_A is pi/2
 * rounded to float, PIO2FF_B and PIO2FF_C the next two float roundings of
 * what is left (~74 bits in all). */
#define PIO2FF_A 0x1.921fb6p+0f
#define PIO2FF_B -0x1.777a5cp-25f
#define PIO2FF_C -0x1.ee59dap-50f
#define TWO_OVER_PI_F 0x1.45f306p-1f

/* pi/4 = PIO4_HI + PIO4_LO with a 41-bit high part, so that the multiples
 * pi/2, pi, 3pi/4 below are exact sums of high parts. */
#define PIO4_HI 0x1.921fb54442000p-1
#define PIO4_LO 0x1.a308d313198a3p-42
#define PIO2_HI (2 * PIO4_HI)
#define PIO2_LO (2 * PIO4_LO)
#define PI_HI (4 * PIO4_HI)
#define PI_LO (4 * PIO4_LO)

#define SQRTH_BITS 0x3fe6a09e667f3bcdull /* sqrt(1/2) */
#define SQRTHF_BITS 0x3f3504f3u

#define CBRT2 0x1.428a2f98d728bp+0
#define CBRT4 0x1.965fea53d6e3dp+0
/* 2/3 = C3H + C3L */
#define C3H 0x1.5555555555555p-1
#define C3L 0x1.5555555555555p-55

/* ------------------------------------------------------------------------ */
/* Polynomial coefficients (lowest degree first). "lite" sets serve the     */
/* float32 functions evaluated in double.                                   */
/* ------------------------------------------------------------------------ */

/* (e^r - 1 - r)/r^2 on |r| <= 0.34658: abs error 2^-59.3 */
static const double EXP_P[11] = {
    0x1.0000000000000p-1,  0x1.5555555555557p-3,  0x1.5555555555558p-5,
    0x1.11111111100dep-7,  0x1.6c16c16c15200p-10, 0x1.a01a01abe6a7bp-13,
    0x1.a01a01acf9382p-16, 0x1.71de0235e1df3p-19, 0x1.27e4ccd1bca33p-22,
    0x1.af4de074ddc50p-26, 0x1.1f8b45f5e5e82p-29};
/* lite: abs error 2^-35.2 */
static const double EXPL_P[7] = {
    0x1.fffffffffc0c8p-2,  0x1.5555556751b83p-3,  0x1.5555556f0749ep-5,
    0x1.1110c6373588bp-7,  0x1.6c16523663111p-10, 0x1.a1516fa1b2e56p-13,
    0x1.a15a568c04636p-16};
/* float: abs error 2^-29.5 */
static const float EXPF_P[6] = {0x1.000000p-1f, 0x1.555556p-3f,
                                0x1.5554eap-5f, 0x1.1110acp-7f,
                                0x1.6d431cp-10f, 0x1.a17dfcp-13f};

/* (2 atanh(s)/s - 2)/s^2 in z = s^2 <= 0.02944: abs error 2^-51.5 */
static const double LOG_T[7] = {
    0x1.5555555555558p-1, 0x1.9999999995224p-2, 0x1.2492492e03d78p-2,
    0x1.c71c62d050713p-3, 0x1.7462ba224e0b0p-3, 0x1.39fdba109ee57p-3,
    0x1.2b5fb4bbdbe1fp-3};
/* float: abs error 2^-22.4 */
static const float LOGF_T[3] = {0x1.55555cp-1f, 0x1.997c06p-2f,
                                0x1.2eebd0p-2f};
/* (2 atanh(s) - 2s - 2s^3/3)/s^5 in z = s^2 <= 0.02944: abs error 2^-58.9 */
static const double POWLOG_U[8] = {
    0x1.999999999999ap-2, 0x1.2492492492523p-2, 0x1.c71c71c6ea3acp-3,
    0x1.745d177ae7701p-3, 0x1.3b1395b33c917p-3, 0x1.1118cde5d82fbp-3,
    0x1.df7ba04fc9754p-4, 0x1.e039ad7693450p-4};

/* log2(m) = s Q(s^2), s = (m-1)/(m+1), s^2 <= 0.02944: rel error 2^-45 */
static const double LOG2L_Q[6] = {
    0x1.71547652b8251p+1, 0x1.ec709dc53c63dp-1, 0x1.2776c29342b96p-1,
    0x1.a61a2ec629ab7p-2, 0x1.479556d52b9b5p-2, 0x1.21b0e0f92fae6p-2};
/* 2^r on |r| <= 1/2: rel error 2^-34.5 */
static const double EXP2L_P[8] = {
    0x1.ffffffffabbcdp-1, 0x1.62e42ff11629bp-1, 0x1.ebfbe0a4be8b8p-3,
    0x1.c6b08aaf2d5f3p-5, 0x1.3b29dc40d08bbp-7, 0x1.5d8a70898e3a3p-10,
    0x1.446a1fde854b9p-13, 0x1.fe1782a401796p-17};

/* (sin r - r)/r^3 in z = r^2, |r| <= 0.786: abs error 2^-55.4 */
static const double SIN_S[6] = {-0x1.5555555555555p-3, 0x1.1111111110ba9p-7,
                                -0x1.a01a019e81652p-13, 0x1.71de37938f015p-19,
                                -0x1.ae6007e0b2c6ap-26, 0x1.5e09f722c28a2p-33};
/* (cos r - 1 + r^2/2)/r^4: abs error 2^-59.4 */
static const double COS_C[6] = {0x1.5555555555555p-5, -0x1.6c16c16c16962p-10,
                                0x1.a01a019f4d89cp-16, -0x1.27e4fa165895ap-22,
                                0x1.1eeb67548bd64p-29, -0x1.907c7e27d70f2p-37};
#if VM_FMA /* used by the float kernel only */
/* float: (sin r - r)/r^3 and (cos r - 1 + r^2/2)/r^4 in z = r^2 on
 * |r| <= 0.83 (room for the float reduction's k to be off by one near
 * odd multiples of pi/4): relative errors of sin and cos 2^-28.1 and 2^-32.1
 * with the coefficients as rounded to float. */
static const float SINF_S[4] = {-0x1.555556p-3f, 0x1.11121cp-7f,
                                -0x1.a113dcp-13f, 0x1.aaefe6p-19f};
static const float COSF_C[3] = {0x1.555546p-5f, -0x1.6c09cp-10f,
                                0x1.993bcep-16f};
/* (tan r - r)/r^3 in z = r^2 on the same range: relative error of tan
 * 2^-28.0 with the coefficients as rounded to float. */
static const float TANF_T[7] = {0x1.555572p-2f, 0x1.1108eep-3f, 0x1.bba7a6p-5f,
                                0x1.54b530p-6f, 0x1.8b2ba4p-7f, -0x1.726af0p-10f,
                                0x1.4dd08ep-8f};
#endif

/* lite: abs errors 2^-35.0 and 2^-38.6 */
static const double SINL_S[4] = {-0x1.555555545d047p-3, 0x1.11110dec6469ap-7,
                                 -0x1.a013a39281b8bp-13, 0x1.6dbcaebaa2a29p-19};
static const double COSL_C[4] = {0x1.555555550271bp-5, -0x1.6c16bf52f4aeap-10,
                                 0x1.a015c1b95b711p-16, -0x1.2523610fd3eafp-22};

/* (asin x - x)/x^3 in z = x^2 <= 0.25: abs error 2^-56.1 */
static const double ASIN_A[13] = {
    0x1.5555555555556p-3, 0x1.3333333332e3fp-4, 0x1.6db6db6e3ee99p-5,
    0x1.f1c71c161895fp-6, 0x1.6e8bb2edea194p-6, 0x1.1c4d1b9fd2e01p-6,
    0x1.c9d1fcb409815p-7, 0x1.780a2bc658243p-7, 0x1.52f4ab9bbbbb8p-7,
    0x1.5fd0b04c12d53p-8, 0x1.20faffd797134p-6, -0x1.f285cb1ce875ep-7,
    0x1.db2043f6a5aa4p-6};
/* lite: abs error 2^-32.1 */
static const double ASINL_A[7] = {
    0x1.5555555ce4207p-3, 0x1.33331ccd0223ap-4, 0x1.6dc1acd692c5cp-5,
    0x1.efd4ab9d8341ap-6, 0x1.839f11749e2e1p-6, 0x1.550af0a7b85c1p-7,
    0x1.ff22dcadd5676p-6};
/* (atan u - u)/u^3 in z = u^2 <= 0.25: abs error 2^-58.0 */
static const double ATAN_T[13] = {
    -0x1.5555555555555p-2, 0x1.99999999998f0p-3, -0x1.2492492488dcfp-3,
    0x1.c71c71c0838f3p-4,  -0x1.745d16121f631p-4, 0x1.3b138fc79c12cp-4,
    -0x1.110eb908f20fep-4, 0x1.e1a92de7747d6p-5, -0x1.ad4e39fda3fe9p-5,
    0x1.7b47df9fc371bp-5,  -0x1.383f0bc254c72p-5, 0x1.9af0a25d9dfccp-6,
    -0x1.2fa036e4eded9p-7};
/* lite: abs error 2^-32.3 */
static const double ATANL_T[7] = {
    -0x1.5555555203434p-2, 0x1.99998f1f5cba0p-3, -0x1.248f94df24666p-3,
    0x1.c6958a6126196p-4,  -0x1.6e0390d169ffbp-4, 0x1.1292e72ec0e15p-4,
    -0x1.0d8901a96eecdp-5};

/* erf(x)/x - 1 in z = x^2 <= 1: relative error of erf 2^-56.9 */
static const double ERF_A[12] = {
    0x1.06eba8214db68p-3,  -0x1.812746b0379bdp-2, 0x1.ce2f21a040d16p-4,
    -0x1.b82ce311fa940p-6, 0x1.565bccf92b348p-8,  -0x1.c02db03dd7c83p-11,
    0x1.f9a2baa90d41ap-14, -0x1.f4ca4d7005ba2p-17, 0x1.b97fd3e0832acp-20,
    -0x1.5c072716a131cp-23, 0x1.d71b1009e77a1p-27, -0x1.abae4b9dbae6bp-31};
/* lite: 2^-29.6 */
static const double ERFL_A[7] = {
    0x1.06eba7f245a33p-3,  -0x1.81273de943d40p-2, 0x1.ce2cf73ef37d9p-4,
    -0x1.b7f90cfedbfa9p-6, 0x1.5405b1a523389p-8,  -0x1.a3f6ff328b194p-11,
    0x1.496a3079583dep-14};
/* (1+2x) e^(x^2) erfc(x) in t = (x-2)/(x+2), x in [1,6]: absolute error of
 * erfc 2^-59.6 (the variable follows Schonfelder's erfc expansions) */
static const double ERF_B[13] = {
    0x1.46e80e2277954p+0,  -0x1.7bf5ec170015ep-4, -0x1.5407bebf31650p-3,
    0x1.4ffa1e14a793fp-3,  -0x1.bc2b956c73f1dp-5, -0x1.0742336e83336p-7,
    0x1.1dd2fc95f093ep-7,  0x1.4d479dce5651dp-10, -0x1.7def76cef26c7p-10,
    -0x1.dd88d3f0f310bp-12, 0x1.ae8b1090cdeb5p-13, 0x1.4e2f6752c3956p-13,
    0x1.d7f089e26e35cp-16};
/* lite, x in [1,4]: 2^-36.1 */
static const double ERFL_B[7] = {
    0x1.46e80e246a8bbp+0,  -0x1.7bf5cb3fd88ecp-4, -0x1.5406cb509c362p-3,
    0x1.4ff962cc8e728p-3,  -0x1.bd69bee144f34p-5, -0x1.267896621d216p-7,
    0x1.aa8a3ef228fffp-8};

/* cbrt(m) on [1,2]: relative error 2^-16.7 (seed for Halley steps) */
static const double CBRT_P[5] = {0x1.0392ce16b4771p-1, 0x1.6fb1dc94c21fbp-1,
                                 -0x1.33d37e3a38c6cp-2, 0x1.60a14741d66aap-4,
                                 -0x1.5b77e079dbab0p-7};

/* ------------------------------------------------------------------------ */
/* Exponential family                                                       */
/* ------------------------------------------------------------------------ */

/* e^x = 2^k (1 + q): k = round(x/ln2), r = x - k ln2 (two-part Cody–Waite,
 * exact first step), q = expm1(r) = r + r^2 P(r). Returns q, sets *k. */
static inline double exp_core_d(double x, double *k) {
    double kd = FMA(x, INVLN2, RND_D) - RND_D;
    double r = FMA(-kd, LN2_HI, x);
    r = FMA(-kd, LN2_LO, r);
    *k = kd;
    return FMA(r * r, poly_d(r, EXP_P, 11), r);
}

/* Clamping keeps k in range; NaN fails both tests and flows through. */
static inline double exp_k(double x) {
    x = x < -746.0 ? -746.0 : x;
    x = x > 710.0 ? 710.0 : x;
    double k, q = exp_core_d(x, &k);
    return scale2_d(1.0 + q, k);
}

/* 2^x = 2^k 2^f, f = x - k exact, 2^f = e^(f ln2). */
static inline double exp2_k(double x) {
    x = x < -1076.0 ? -1076.0 : x;
    x = x > 1025.0 ? 1025.0 : x;
    double k = (x + RND_D) - RND_D;
    double r = (x - k) * LN2;
    double q = FMA(r * r, poly_d(r, EXP_P, 11), r);
    return scale2_d(1.0 + q, k);
}

/* expm1(x) = 2^k q + (2^k - 1), written as 2 (h q + (h - 1/2)) with
 * h = 2^(k-1) so that k = 1024 does not overflow early; k = 0 gives q
 * itself (exact for tiny x). Below -40 the result is -1. */
static inline double expm1_k(double x) {
    x = x < -40.0 ? -40.0 : x;
    x = x > 710.0 ? 710.0 : x;
    double k, q = exp_core_d(x, &k);
    double h = pow2_rnd_d((k - 1.0) + RND_D);
    double y = 2.0 * FMA(h, q, h - 0.5);
    y = k == 0.0 ? q : y;
    return x == 0.0 ? x : y; /* keeps -0 */
}

/* sinh: |x| < 1 from t = expm1(|x|) as (t + t/(t+1))/2 (no cancellation);
 * otherwise E - 1/(4E) with E = e^|x|/2 scaled in two steps (finite up to
 * the true overflow threshold 710.47). */
static inline double sinh_k(double x) {
    double a = abs_d(x);
    a = a > 711.0 ? 711.0 : a;
    double k, q = exp_core_d(a, &k);
    double s = pow2_rnd_d(k + RND_D); /* used only when k <= 1 */
    double t = FMA(s, q, s - 1.0);
    double small = 0.5 * (t + t / (t + 1.0));
    double eh = scale2_d(1.0 + q, k - 1.0);
    double big = eh - 0.25 / eh;
    return with_sign_d(a < 1.0 ? small : big, x);
}

/* cosh = E + 1/(4E), E = e^|x|/2. */
static inline double cosh_k(double x) {
    double a = abs_d(x);
    a = a > 711.0 ? 711.0 : a;
    double k, q = exp_core_d(a, &k);
    double eh = scale2_d(1.0 + q, k - 1.0);
    return eh + 0.25 / eh;
}

/* tanh = t/(t+2), t = expm1(2|x|); 2|x| is clamped at 40 where the
 * quotient rounds to 1. */
static inline double tanh_k(double x) {
    double a = 2.0 * abs_d(x);
    a = a > 40.0 ? 40.0 : a;
    double k, q = exp_core_d(a, &k);
    double s = pow2_rnd_d(k + RND_D);
    double t = FMA(s, q, s - 1.0);
    return with_sign_d(t / (t + 2.0), x);
}

/* logistic: with e = e^-|x|, 1/(1+e) for x >= 0 and e/(1+e) below. */
static inline double logistic_k(double x) {
    double e = exp_k(-abs_d(x));
    double d = 1.0 + e;
    return x >= 0.0 ? 1.0 / d : e / d;
}

/* e^x for -700 < x < 700 (one scaling step) with a chosen polynomial. */
static inline double exp_small_d(double x, const double *P, int nP) {
    double kd = FMA(x, INVLN2, RND_D) - RND_D;
    double r = FMA(-kd, LN2_HI, x);
    r = FMA(-kd, LN2_LO, r);
    double q = FMA(r * r, poly_d(r, P, nP), r);
    return (1.0 + q) * pow2_rnd_d(kd + RND_D);
}

/* float versions: same methods in float arithmetic. */
static inline float exp_core_f(float x, float *k) {
    float kf = FMAF(x, INVLN2F, RND_F) - RND_F;
    float r = FMAF(-kf, LN2F_HI, x);
    r = FMAF(-kf, LN2F_LO, r);
    *k = kf;
    return FMAF(r * r, poly_f(r, EXPF_P, 6), r);
}

static inline float exp_kf(float x) {
    x = x < -104.0f ? -104.0f : x;
    x = x > 89.0f ? 89.0f : x;
    float k, q = exp_core_f(x, &k);
    return scale2_f(1.0f + q, k);
}

static inline float exp2_kf(float x) {
    x = x < -152.0f ? -152.0f : x;
    x = x > 129.0f ? 129.0f : x;
    float k = (x + RND_F) - RND_F;
    float r = (x - k) * LN2F;
    float q = FMAF(r * r, poly_f(r, EXPF_P, 6), r);
    return scale2_f(1.0f + q, k);
}

static inline float expm1_kf(float x) {
    x = x < -25.0f ? -25.0f : x;
    x = x > 89.0f ? 89.0f : x;
    float k, q = exp_core_f(x, &k);
    float h = pow2_rnd_f((k - 1.0f) + RND_F);
    float y = 2.0f * FMAF(h, q, h - 0.5f);
    y = k == 0.0f ? q : y;
    return x == 0.0f ? x : y;
}

static inline float sinh_kf(float x) {
    float a = abs_f(x);
    a = a > 90.0f ? 90.0f : a;
    float k, q = exp_core_f(a, &k);
    float s = pow2_rnd_f(k + RND_F);
    float t = FMAF(s, q, s - 1.0f);
    float small = 0.5f * (t + t / (t + 1.0f));
    float eh = scale2_f(1.0f + q, k - 1.0f);
    float big = eh - 0.25f / eh;
    return with_sign_f(a < 1.0f ? small : big, x);
}

static inline float cosh_kf(float x) {
    float a = abs_f(x);
    a = a > 90.0f ? 90.0f : a;
    float k, q = exp_core_f(a, &k);
    float eh = scale2_f(1.0f + q, k - 1.0f);
    return eh + 0.25f / eh;
}

/* float tanh is a rational function, not tanh_k's method (vmath_tanhf.h:
 * XLA's kind, 4.88 ulp at most); its source is shared with the generated
 * C, which inlines it into fused loops with the same bits. */
VM_TANHF_SRC(VM_TANHF_FMA)
static inline float tanh_kf(float x) { return cjk_tanhf(x); }

static inline float logistic_kf(float x) {
    float e = exp_kf(-abs_f(x));
    float d = 1.0f + e;
    return x >= 0.0f ? 1.0f / d : e / d;
}

/* ------------------------------------------------------------------------ */
/* Logarithms                                                               */
/* ------------------------------------------------------------------------ */

/* x = 2^e m with m in [sqrt(1/2), sqrt(2)), f = m - 1, s = f/(2+f):
 * log(1+f) = 2 atanh(s) = f - (f^2/2 - s (f^2/2 + R)), R = s^2 T(s^2)
 * (fdlibm's arrangement), and
 *   log x = e*LN2_HI + (f - (f^2/2 - (s (f^2/2 + R) + e*LN2_LO + tail)))
 * with the small terms innermost; `tail` is an extra correction (log1p).
 * x must be positive and normal; eadj is subtracted from e. */
static inline double log_core_d(double x, double tail, double eadj,
                                const double *T, int nT) {
    uint64_t u = bits_d(x) + (0x3ff0000000000000ull - SQRTH_BITS);
    double e = from_bits_d(0x4330000000000000ull | (u >> 52)) -
               (0x1p52 + 1023.0) - eadj;
    double m = from_bits_d((u & MANT_D) + SQRTH_BITS);
    double f = m - 1.0;
    double s = f / (2.0 + f), z = s * s;
    double R = z * poly_d(z, T, nT);
    double hfsq = 0.5 * f * f;
    return FMA(e, LN2_HI,
               f - (hfsq - FMA(s, hfsq + R, FMA(e, LN2_LO, tail))));
}

static inline double log_k(double x) {
    double xs = x < 0x1p-1022 ? x * 0x1p54 : x; /* subnormals */
    double ea = x < 0x1p-1022 ? 54.0 : 0.0;
    double y = log_core_d(xs, 0.0, ea, LOG_T, 7);
    double sp = x == 0.0 ? -INF_D : (x < 0.0 ? NAN_D : x + x);
    return (x > 0.0 && x < INF_D) ? y : sp;
}

/* log1p: u = 1 + x rounded, log1p(x) = log(u) + c/u where c = (1+x) - u is
 * recovered exactly (two-sum, ordered by size). */
static inline double log1p_k(double x) {
    double u = 1.0 + x;
    double c = u > 2.0 ? 1.0 - (u - x) : x - (u - 1.0);
    double y = log_core_d(u, c / u, 0.0, LOG_T, 7);
    double sp = x == -1.0 ? -INF_D : (x < -1.0 ? NAN_D : x + x);
    y = (x > -1.0 && x < INF_D) ? y : sp;
    return x == 0.0 ? x : y; /* keeps -0 */
}

static inline float log_core_f(float x, float tail, float eadj) {
    uint32_t u = bits_f(x) + (0x3f800000u - SQRTHF_BITS);
    float e = (float)((int32_t)(u >> 23) - 127) - eadj;
    float m = from_bits_f((u & 0x7fffffu) + SQRTHF_BITS);
    float f = m - 1.0f;
    float s = f / (2.0f + f), z = s * s;
    float R = z * poly_f(z, LOGF_T, 3);
    float hfsq = 0.5f * f * f;
    return FMAF(e, LN2F_HI,
                f - (hfsq - FMAF(s, hfsq + R, FMAF(e, LN2F_LO, tail))));
}

static inline float log_kf(float x) {
    float xs = x < 0x1p-126f ? x * 0x1p23f : x;
    float ea = x < 0x1p-126f ? 23.0f : 0.0f;
    float y = log_core_f(xs, 0.0f, ea);
    float sp = x == 0.0f ? -INF_F : (x < 0.0f ? NAN_F : x + x);
    return (x > 0.0f && x < INF_F) ? y : sp;
}

static inline float log1p_kf(float x) {
    float u = 1.0f + x;
    float c = u > 2.0f ? 1.0f - (u - x) : x - (u - 1.0f);
    float y = log_core_f(u, c / u, 0.0f);
    float sp = x == -1.0f ? -INF_F : (x < -1.0f ? NAN_F : x + x);
    y = (x > -1.0f && x < INF_F) ? y : sp;
    return x == 0.0f ? x : y;
}

/* ------------------------------------------------------------------------ */
/* pow                                                                      */
/* ------------------------------------------------------------------------ */

/* log(a) = hi + *lo to about 2^-66 relative, for a > 0 finite.
 * As log_core_d, but s = f/(2+f) is kept as a double-double and
 * log m = 2s + (2/3)s^3 + s^5 U(s^2), the first two terms in double-double. */
static inline double log_dd(double a, double *lo) {
    double as = a < 0x1p-1022 ? a * 0x1p54 : a;
    double ea = a < 0x1p-1022 ? 54.0 : 0.0;
    uint64_t u = bits_d(as) + (0x3ff0000000000000ull - SQRTH_BITS);
    double e = from_bits_d(0x4330000000000000ull | (u >> 52)) -
               (0x1p52 + 1023.0) - ea;
    double m = from_bits_d((u & MANT_D) + SQRTH_BITS);
    double f = m - 1.0;
    double dh = 2.0 + f, dl = f - (dh - 2.0); /* 2 + f exactly */
    double sh = f / dh, pl, ph = two_prod(sh, dh, &pl);
    double sl = (((f - ph) - pl) - sh * dl) / dh;
    double s2l, s2h = two_prod(sh, sh, &s2l);
    double s3l, s3h = two_prod(sh, s2h, &s3l);
    s3l = s3l + sh * s2l + 3.0 * s2h * sl;
    double t3l, t3h = two_prod(C3H, s3h, &t3l);
    t3l = t3l + FMA(C3H, s3l, C3L * s3h);
    double t5 = s3h * s2h * poly_d(s2h, POWLOG_U, 8);
    double e1, S = two_sum(e * LN2_HI, 2.0 * sh, &e1);
    double e2, S2 = two_sum(S, t3h, &e2);
    double l = (((e1 + e2) + FMA(e, LN2_LO, 2.0 * sl)) + t3l) + t5;
    double hi = S2 + l;
    *lo = l - (hi - S2);
    return hi;
}

/* Lanes that pow leaves to libm: a zero, infinite or NaN, or b infinite
 * or NaN (the C99 Annex F table); everything else is computed below. The
 * test is on the bits (|a| - 1 wraps for zero, |a| + 2^52 carries into the
 * top bit for inf/NaN) so that plain SSE2 can vectorise it too. */
static inline uint64_t pow_special_d(double a, double b) {
    uint64_t ua = bits_d(a) & ~SIGN_D, ub = bits_d(b) & ~SIGN_D;
    return ((ua - 1) | (ua + 0x0010000000000000ull) |
            (ub + 0x0010000000000000ull)) >> 63;
}
static inline uint32_t pow_special_f(float a, float b) {
    uint32_t ua = bits_f(a) & 0x7fffffffu, ub = bits_f(b) & 0x7fffffffu;
    return ((ua - 1) | (ua + 0x00800000u) | (ub + 0x00800000u)) >> 31;
}

/* a^b for finite non-zero a and finite b: |a|^b = exp(b log|a|) with the
 * log in double-double, the product b*log exact and its low part added to
 * the reduced argument of exp. Negative a: the sign of |a|^b for odd
 * integer b, NaN for non-integer b. (|b| + 2^52 rounds |b| to an integer
 * t; b is odd when t/2 is not an integer.) */
static inline double pow_k(double a, double b) {
    double llo, lhi = log_dd(abs_d(a), &llo);
    double hl, h = two_prod(b, lhi, &hl);
    hl = lhi == 0.0 ? 0.0 : FMA(b, llo, hl); /* huge b overflows Dekker's split */
    double hc = h < -746.0 ? -746.0 : (h > 710.0 ? 710.0 : h);
    double kd = FMA(hc, INVLN2, RND_D) - RND_D;
    double r = FMA(-kd, LN2_HI, hc) + FMA(-kd, LN2_LO, hl);
    double q = FMA(r * r, poly_d(r, EXP_P, 11), r);
    double res = scale2_d(1.0 + q, kd);
    res = h > 710.0 ? INF_D : (h < -746.0 ? 0.0 : res);
    /* a < 0 (one comparison per select keeps SSE2 able to vectorise) */
    double bb = abs_d(b);
    double t = bb < 0x1p52 ? bb + 0x1p52 : bb, half = 0.5 * t;
    double sgn = ((half + 0x1p52) - 0x1p52) != half ? -res : res; /* odd */
    sgn = bb < 0x1p53 ? sgn : res;
    double neg = (t - 0x1p52) == bb ? sgn : NAN_D; /* integer below 2^52 */
    neg = bb >= 0x1p52 ? sgn : neg;
    return a < 0.0 ? neg : res;
}

/* float pow in double: log2|a| = e + s Q(s^2) and 2^h = 2^k P(h - k) with
 * short polynomials carry about 2^-31 relative error, well below float
 * rounding; the parity test runs in float. */
static inline float pow_kf(float a, float b) {
    float bb = abs_f(b);
    float t = bb < 0x1p23f ? bb + 0x1p23f : bb;
    int isint = (bb >= 0x1p23f) | ((t - 0x1p23f) == bb);
    int odd = isint & (bb < 0x1p24f) & (int)(bits_f(t) & 1);
    uint64_t u = bits_d((double)abs_f(a)) + (0x3ff0000000000000ull - SQRTH_BITS);
    double e = from_bits_d(0x4330000000000000ull | (u >> 52)) -
               (0x1p52 + 1023.0);
    double m = from_bits_d((u & MANT_D) + SQRTH_BITS);
    double s = (m - 1.0) / (m + 1.0);
    double h = (double)b * FMA(s, poly_d(s * s, LOG2L_Q, 6), e);
    h = h < -200.0 ? -200.0 : h; /* float range ends near +-150 */
    h = h > 200.0 ? 200.0 : h;
    double tk = h + RND_D;
    float y = (float)(poly_d(h - (tk - RND_D), EXP2L_P, 8) * pow2_rnd_d(tk));
    y = (odd & (a < 0.0f)) ? -y : y;
    return ((a < 0.0f) & !isint) ? NAN_F : y;
}

/* ------------------------------------------------------------------------ */
/* sin, cos, tan                                                            */
/* ------------------------------------------------------------------------ */

/* x = k pi/2 + r + *rl, |r| <= ~pi/4, for |x| <= 2^20. Each k*PIO2_i is
 * exact; a subtraction that cancels is exact too (the operands share a fine
 * grid), and the rounding errors of those that do not are collected in *rl,
 * so r + *rl is good to ~2^-100 relative even next to multiples of pi/2.
 * *kb gets k in its low bits. */
static inline double reduce_pio2_d(double x, double *rl, uint64_t *kb) {
    double t = FMA(x, TWO_OVER_PI, RND_D), k = t - RND_D;
    double t1 = FMA(-k, PIO2_1, x);
    double e2, t2 = two_sum(t1, -k * PIO2_2, &e2);
    double e3, t3 = two_sum(t2, -k * PIO2_3, &e3);
    double w4 = k * PIO2_4, t4 = t3 - w4;
    double e4 = (t3 - t4) - w4; /* |t3| >> |w4| */
    double lo = e2 + e3 + e4, r = t4 + lo;
    *rl = lo - (r - t4);
    *kb = bits_d(t);
    return r;
}

/* sin r = r + r^3 S(r^2); cos r = 1 - r^2/2 + r^4 C(r^2), with the rounding
 * of 1 - r^2/2 recovered (fdlibm's trick). The low part rl of the reduced
 * argument enters to first order: sin += rl cos r, cos -= rl sin r. */
static inline double sin_poly_d(double r, double rl, double z) {
    return r + FMA(r * z, poly_d(z, SIN_S, 6), FMA(-0.5 * z, rl, rl));
}
static inline double cos_poly_d(double r, double rl, double z) {
    double hz = 0.5 * z, w = 1.0 - hz;
    return w + (((1.0 - w) - hz) + FMA(z * z, poly_d(z, COS_C, 6), -r * rl));
}

/* quadrant k mod 4: sin(x) = sin r, cos r, -sin r, -cos r;
 * cos(x) = cos r, -sin r, -cos r, sin r; tan(x) = s/c or -c/s. */
static inline double sin_quadrant(double s, double c, uint64_t kb) {
    double v = select_d(0 - (kb & 1), c, s);
    return from_bits_d(bits_d(v) ^ ((kb & 2) << 62));
}
static inline double cos_quadrant(double s, double c, uint64_t kb) {
    double v = select_d(0 - (kb & 1), s, c);
    return from_bits_d(bits_d(v) ^ (((kb + 1) & 2) << 62));
}
static inline double tan_quadrant(double s, double c, uint64_t kb) {
    uint64_t odd = 0 - (kb & 1);
    return select_d(odd, -c, s) / select_d(odd, s, c);
}

/* sin r and cos r of the reduced argument, then the quadrant: sin x and
 * cos x from one reduction. */
static inline void sincos_k(double x, double *s, double *c) {
    uint64_t kb;
    double rl, r = reduce_pio2_d(x, &rl, &kb), z = r * r;
    double sr = sin_poly_d(r, rl, z), cr = cos_poly_d(r, rl, z);
    double v = sin_quadrant(sr, cr, kb);
    *s = x == 0.0 ? x : v; /* keeps -0 */
    *c = cos_quadrant(sr, cr, kb);
}
static inline double sin_k(double x) {
    double s, c;
    sincos_k(x, &s, &c);
    return s;
}
static inline double cos_k(double x) {
    double s, c;
    sincos_k(x, &s, &c);
    return c;
}
static inline double tan_k(double x) {
    uint64_t kb;
    double rl, r = reduce_pio2_d(x, &rl, &kb), z = r * r;
    double v = tan_quadrant(sin_poly_d(r, rl, z), cos_poly_d(r, rl, z), kb);
    return x == 0.0 ? x : v;
}

/* float32. Two kernels:
 *  - "via double" (all builds): the reduction and shorter polynomials in
 *    double, rounded once at the end; good for |x| <= 2^24.
 *  - "in float" (FMA builds): everything in float, at twice the SIMD width;
 *    good for |x| <= TRIGF_FAST_LIM. Blocks holding larger arguments
 *    recompute those lanes with the kernel via double.
 * Without FMA the float kernel would need a much longer reduction (exact
 * float products need short pieces of pi/2) and compensation steps that
 * FMA gives for free; a float kernel behind a double reduction measured
 * only ~10% faster there for sin and cos, slower for tan, and less
 * accurate, so those builds use the double kernel alone. Beyond 2^24 the
 * fix-up calls libm. */

/* x = k pi/2 + r in double for float arguments, |x| <= 2^24 */
static inline double reduce_pio2_f(double x, uint64_t *kb) {
    double t = FMA(x, TWO_OVER_PI, RND_D), k = t - RND_D;
    double r = FMA(-k, PIO2F_1, x);
    r = FMA(-k, PIO2F_2, r);
    r = FMA(-k, PIO2F_3, r);
    *kb = bits_d(t);
    return r;
}
static inline double sin_poly_l(double r, double z) {
    return FMA(r * z, poly_d(z, SINL_S, 4), r);
}
static inline double cos_poly_l(double z) {
    return FMA(z * z, poly_d(z, COSL_C, 4), FMA(-0.5, z, 1.0));
}
static inline void sincos_kd(float xf, float *s, float *c) {
    uint64_t kb;
    double r = reduce_pio2_f((double)xf, &kb), z = r * r;
    double sr = sin_poly_l(r, z), cr = cos_poly_l(z);
    float v = (float)sin_quadrant(sr, cr, kb);
    *s = xf == 0.0f ? xf : v;
    *c = (float)cos_quadrant(sr, cr, kb);
}
static inline float sin_kd(float xf) {
    float s, c;
    sincos_kd(xf, &s, &c);
    return s;
}
static inline float cos_kd(float xf) {
    float s, c;
    sincos_kd(xf, &s, &c);
    return c;
}
static inline float tan_kd(float xf) {
    uint64_t kb;
    double r = reduce_pio2_f((double)xf, &kb), z = r * r;
    float v = (float)tan_quadrant(sin_poly_l(r, z), cos_poly_l(z), kb);
    return xf == 0.0f ? xf : v;
}

#if VM_FMA
/* The float kernel. The reduction leaves x = k pi/2 + r + tail, tail at
 * most about half an ulp of r:
 *  - k = round(x 2/pi) from the exact product;
 *  - r1 = x - k PIO2FF_A is exact (inside the FMA, and the result lies on
 *    x's grid or the 2^-23 grid of PIO2FF_A and is below 2);
 *  - r = r1 - k PIO2FF_B rounds once, and a second FMA recovers that
 *    rounding error whenever r1 - r is exact, which |r1 - r| < |r|
 *    guarantees (otherwise |r| is below ~k 2^-24 and its error stays under
 *    half an ulp of r);
 *  - tail adds -k PIO2FF_C.
 * TRIGF_FAST_LIM keeps r within the polynomials' range (k can be off by
 * one where x 2/pi is within ~2^-25 |x| of a half-integer) and the
 * truncation of pi/2 (~2^-76 k) far below an ulp of the smallest r a float
 * argument produces. An exhaustive check of all floats up to it gives
 * 1.00 ulp for sin and cos, 1.24 for tan below 2^11 and 1.44 above (where
 * k PIO2FF_B is large enough for the uncorrected case to occur); the kernel
 * via double gives 0.56, 0.56 and 1.31 up to 2^24.
 *
 * sin takes tail to first order (sin(r + tail) = sin r + tail cos r, and
 * cos r ~ 1 at the scale of an ulp of r); cos takes it through
 * zc = (r + tail)^2 in its last step only, which keeps the correction off
 * the polynomial's critical path (C varies too slowly for the difference
 * in z to matter there). */
#define TRIGF_FAST_LIM 0x1p19f

static inline float reduce_pio2_ff(float x, float *tail, uint32_t *kb) {
    float t = FMAF(x, TWO_OVER_PI_F, RND_F), k = t - RND_F;
    float r1 = FMAF(-k, PIO2FF_A, x);
    float r = FMAF(-k, PIO2FF_B, r1);
    float d = r1 - r;
    float e = FMAF(-k, PIO2FF_B, d); /* r's rounding error when d is exact */
    e = abs_f(d) < abs_f(r) ? e : 0.0f;
    *tail = FMAF(-k, PIO2FF_C, e);
    *kb = bits_f(t);
    return r;
}

static inline float select_f(uint32_t mask, float a, float b) {
    return from_bits_f((bits_f(a) & mask) | (bits_f(b) & ~mask));
}

/* The reduced argument and what the polynomials need of it. */
typedef struct {
    float r, tail, z, zc; /* z = r^2, zc = (r + tail)^2 */
    uint32_t kb;          /* k in the low bits */
} trigf_arg;

static inline trigf_arg trigf_reduce(float x) {
    trigf_arg a;
    a.r = reduce_pio2_ff(x, &a.tail, &a.kb);
    a.z = a.r * a.r;
    a.zc = FMAF(a.r, a.r, (a.r + a.r) * a.tail);
    return a;
}
/* sin(r + tail) - r */
static inline float sin_rest_f(const trigf_arg *a) {
    return FMAF(a->r * a->z, poly_f(a->z, SINF_S, 4), a->tail);
}
/* cos(r + tail) = 1 + zc (-1/2 + z C(z)), rounded once */
static inline float cos_red_f(const trigf_arg *a) {
    return FMAF(a->zc, FMAF(a->z, poly_f(a->z, COSF_C, 3), -0.5f), 1.0f);
}

/* quadrant k mod 4 as for double */
static inline float sin_quadrant_f(float s, float c, uint32_t kb) {
    float v = select_f(0u - (kb & 1), c, s);
    return from_bits_f(bits_f(v) ^ ((kb & 2) << 30));
}
static inline float cos_quadrant_f(float s, float c, uint32_t kb) {
    float v = select_f(0u - (kb & 1), s, c);
    return from_bits_f(bits_f(v) ^ (((kb + 1) & 2) << 30));
}

static inline void sincos_kf(float x, float *s, float *c) {
    trigf_arg a = trigf_reduce(x);
    float sr = a.r + sin_rest_f(&a), cr = cos_red_f(&a);
    float v = sin_quadrant_f(sr, cr, a.kb);
    *s = x == 0.0f ? x : v; /* keeps -0 */
    *c = cos_quadrant_f(sr, cr, a.kb);
}

/* tan(r + tail) = r + r^3 T(r^2) + tail (1 + tan^2 r), the last factor
 * taken as 1 + z (its error, below 0.4 tail, is ~0.2 ulp at worst); this
 * is tan x for even k. For odd k, tan x = -1/tan(r + tail): t = t_hi +
 * t_lo exactly (Fast2Sum, |r| >= |rest|), and the reciprocal 1/t_hi gets
 * one correction step, whose remainder 1 - inv t_hi is exact under FMA:
 * 1/t = inv + (remainder - inv t_lo) inv. */
static inline float tan_kf(float x) {
    trigf_arg a = trigf_reduce(x);
    float tail = FMAF(a.tail, a.z, a.tail);
    float rest = FMAF(a.r * a.z, poly_f(a.z, TANF_T, 7), tail);
    float t_hi = a.r + rest, t_lo = rest - (t_hi - a.r);
    float inv = 1.0f / t_hi, rem = FMAF(-inv, t_hi, 1.0f);
    float cot = FMAF(FMAF(-inv, t_lo, rem), inv, inv);
    float v = select_f(0u - (a.kb & 1), -cot, t_hi);
    return x == 0.0f ? x : v;
}
#else
#define TRIGF_FAST_LIM 0x1p24f
static inline void sincos_kf(float x, float *s, float *c) { sincos_kd(x, s, c); }
static inline float tan_kf(float x) { return tan_kd(x); }
#endif
#define TRIGF_MID_LIM 0x1p24f

static inline float sin_kf(float x) {
    float s, c;
    sincos_kf(x, &s, &c);
    return s;
}
static inline float cos_kf(float x) {
    float s, c;
    sincos_kf(x, &s, &c);
    return c;
}

/* ------------------------------------------------------------------------ */
/* Inverse trigonometric                                                    */
/* ------------------------------------------------------------------------ */

/* asin: |x| <= 1/2: x + x^3 A(x^2). Above: asin x = pi/2 - 2 asin(v) with
 * v = sqrt((1-|x|)/2), the same polynomial at z = v^2 (exact). |x| > 1
 * makes z negative and sqrt returns NaN. */
static inline double asin_core(double x, const double *A, int nA) {
    double a = abs_d(x);
    double z = a > 0.5 ? 0.5 - 0.5 * a : a * a;
    double v = a > 0.5 ? sqrt(z) : a;
    double p = FMA(v * z, poly_d(z, A, nA), v);
    double r = a > 0.5 ? PIO2_HI - (2.0 * p - PIO2_LO) : p;
    return with_sign_d(r, x);
}

/* acos: |x| <= 1/2: pi/2 - asin x; x > 1/2: 2 asin(v); x < -1/2:
 * pi - 2 asin(v), v as in asin. */
static inline double acos_core(double x, const double *A, int nA) {
    double a = abs_d(x);
    double z = a > 0.5 ? 0.5 - 0.5 * a : a * a;
    double v = a > 0.5 ? sqrt(z) : x;
    double p = FMA(v * z, poly_d(z, A, nA), v);
    double small = PIO2_HI - (p - PIO2_LO);
    double pos = 2.0 * p;
    double neg = PI_HI - (2.0 * p - PI_LO);
    return a > 0.5 ? (x > 0.0 ? pos : neg) : small;
}

/* atan2 core for ay, ax >= 0 (scaled so ay + ax cannot overflow):
 * theta = off + atan(u) with a single division,
 *   ay > 2 ax:        u = -ax/ay,            off = pi/2
 *   ay > ax/2:        u = (ay-ax)/(ay+ax),   off = pi/4 (numerator exact)
 *   otherwise:        u = ay/ax,             off = 0,
 * so |u| <= 1/2. Returns the offset as *oh + *ol and atan(u). */
static inline double atan_parts(double ay, double ax, double *oh, double *ol,
                                const double *T, int nT) {
    double num = ay > 2.0 * ax ? -ax : (2.0 * ay > ax ? ay - ax : ay);
    double den = ay > 2.0 * ax ? ay : (2.0 * ay > ax ? ay + ax : ax);
    *oh = ay > 2.0 * ax ? PIO2_HI : (2.0 * ay > ax ? PIO4_HI : 0.0);
    *ol = ay > 2.0 * ax ? PIO2_LO : (2.0 * ay > ax ? PIO4_LO : 0.0);
    double u = num / den, z = u * u;
    return FMA(u * z, poly_d(z, T, nT), u);
}

static inline double atan_core(double x, const double *T, int nT) {
    double oh, ol, p = atan_parts(abs_d(x), 1.0, &oh, &ol, T, nT);
    return with_sign_d(oh + (p + ol), x);
}

/* atan2(y, x): theta in [0, pi/2] from |y|, |x|; pi - theta when x has its
 * sign bit set (so atan2(0, -0) = pi); sign of y last. y = 0 is computed as
 * atan2(0, 1) (avoiding 0/0) and two infinities as atan2(1, 1) (avoiding
 * inf/inf). */
static inline double atan2_core(double y, double x, const double *T, int nT) {
    double ay = abs_d(y), ax = abs_d(x);
    double mx = ay > ax ? ay : ax, mn = ay > ax ? ax : ay;
    double sc = mx > 0x1p1000 ? 0x1p-8 : 1.0;
    double ays = mn == INF_D ? 1.0 : ay * sc;
    double axs = mn == INF_D ? 1.0 : (ay == 0.0 ? 1.0 : ax * sc);
    double oh, ol, p = atan_parts(ays, axs, &oh, &ol, T, nT);
    double sx = with_sign_d(1.0, x); /* -1 if x has its sign bit */
    oh = sx < 0.0 ? PI_HI - oh : oh;   /* exact: 41-bit high parts */
    ol = sx < 0.0 ? PI_LO - ol : ol;
    p = p * sx;
    double r = with_sign_d(oh + (p + ol), y);
    r = x != x ? x + y : r;
    return y != y ? x + y : r;
}

static inline double asin_k(double x) { return asin_core(x, ASIN_A, 13); }
static inline double acos_k(double x) { return acos_core(x, ASIN_A, 13); }
static inline double atan_k(double x) { return atan_core(x, ATAN_T, 13); }
static inline double atan2_k(double y, double x) {
    return atan2_core(y, x, ATAN_T, 13);
}
static inline float asin_kf(float x) { return (float)asin_core((double)x, ASINL_A, 7); }
static inline float acos_kf(float x) { return (float)acos_core((double)x, ASINL_A, 7); }
static inline float atan_kf(float x) { return (float)atan_core((double)x, ATANL_T, 7); }
static inline float atan2_kf(float y, float x) {
    return (float)atan2_core((double)y, (double)x, ATANL_T, 7);
}

/* ------------------------------------------------------------------------ */
/* erf, cbrt                                                                */
/* ------------------------------------------------------------------------ */

/* erf: |x| < 1: x + x P(x^2). 1 <= |x| <= xmax: 1 - erfc with
 * erfc(x) = e^(-x^2) G(t) / (1+2x), t = (x-2)/(x+2) (one division serves
 * both quotients). Beyond xmax erf rounds to +-1. */
static inline double erf_core(double x, const double *A, int nA,
                              const double *B, int nB, const double *E,
                              int nE, double xmax) {
    double a = abs_d(x);
    a = a > xmax ? xmax : a;
    double z = a * a;
    double small = FMA(a, poly_d(z, A, nA), a);
    double d1 = a + 2.0, d2 = FMA(2.0, a, 1.0);
    double inv = 1.0 / (d1 * d2);
    double t = (a - 2.0) * d2 * inv;
    double erfc = exp_small_d(-z, E, nE) * poly_d(t, B, nB) * (d1 * inv);
    double big = 1.0 - erfc;
    return with_sign_d(a < 1.0 ? small : big, x);
}
static inline double erf_k(double x) {
    return erf_core(x, ERF_A, 12, ERF_B, 13, EXP_P, 11, 6.0);
}
static inline float erf_kf(float x) {
    return (float)erf_core((double)x, ERFL_A, 7, ERFL_B, 7, EXPL_P, 7, 4.0);
}

/* cbrt: |x| = 2^e m, m in [1,2); e = 3q + j (j = 0,1,2 found with the
 * rounding trick); w = m 2^j in [1,8); a polynomial seed for cbrt(m) times
 * 2^(j/3) is refined by Halley steps y += y (w - y^3)/(2y^3 + w), each
 * tripling the correct bits; the result is y 2^q. */
static inline double cbrt_core(double x, int steps) {
    double a = abs_d(x);
    double as = a < 0x1p-1022 ? a * 0x1p54 : a;
    double post = a < 0x1p-1022 ? 0x1p-18 : 1.0;
    uint64_t b = bits_d(as);
    double e = from_bits_d(0x4330000000000000ull | (b >> 52)) -
               (0x1p52 + 1023.0);
    double m = from_bits_d((b & MANT_D) | 0x3ff0000000000000ull);
    double tq = FMA(e - 1.0, 1.0 / 3.0, RND_D); /* floor(e/3) */
    double j = e - 3.0 * (tq - RND_D);
    double w = m * (j == 0.0 ? 1.0 : (j == 1.0 ? 2.0 : 4.0));
    double y = poly_d(m, CBRT_P, 5) *
               (j == 0.0 ? 1.0 : (j == 1.0 ? CBRT2 : CBRT4));
    for (int i = 0; i < steps; i++) {
        double y3 = y * y * y;
        y = FMA(y, (w - y3) / FMA(2.0, y3, w), y);
    }
    double r = with_sign_d(y * pow2_rnd_d(tq) * post, x);
    return (a > 0.0 && a < INF_D) ? r : x + x;
}
static inline double cbrt_k(double x) { return cbrt_core(x, 2); }
static inline float cbrt_kf(float x) { return (float)cbrt_core((double)x, 1); }

/* ------------------------------------------------------------------------ */
/* Entry points                                                             */
/* ------------------------------------------------------------------------ */

/* Each call works through blocks: inputs are first copied into a local
 * buffer, which makes the in-place case (y == x) alias-free for the
 * vectoriser and keeps the originals for the fix-up pass. Plain unary
 * kernels (no fix-up) skip the copy when x and y do not overlap: a fused
 * kernel's tile arrays never do, and the copy was a tenth of a tanh. */
#define VM_BLOCK 512

static inline int vm_disjoint(const void *x, const void *y, size_t bytes) {
    uintptr_t a = (uintptr_t)x, b = (uintptr_t)y;
    return a + bytes <= b || b + bytes <= a;
}

#define VM_UNARY(T, NAME, K)                                              \
    void NAME(const T *x, T *y, int64_t n) {                              \
        if (vm_disjoint(x, y, (size_t)n * sizeof(T))) {                   \
            const T *restrict xs = x;                                     \
            T *restrict ys = y;                                           \
            for (int64_t i = 0; i < n; i++) ys[i] = K(xs[i]);             \
            return;                                                       \
        }                                                                 \
        _Alignas(64) T buf[VM_BLOCK];                                     \
        for (int64_t i0 = 0; i0 < n; i0 += VM_BLOCK) {                    \
            int64_t m = n - i0 < VM_BLOCK ? n - i0 : VM_BLOCK;            \
            T *yb = y + i0;                                               \
            memcpy(buf, x + i0, (size_t)m * sizeof(T));                   \
            for (int64_t i = 0; i < m; i++) yb[i] = K(buf[i]);            \
        }                                                                 \
    }

/* As VM_UNARY, and elements with |x| > LIM are recomputed by LIBM. The
 * block flag collects the sign bit of LIM - |x| (FLAG) as an unsigned
 * integer of the element's width, which every SIMD level can reduce. */
#define VM_UNARY_FIXUP(T, U, NAME, K, FLAG, ABS, LIM, LIBM)               \
    void NAME(const T *x, T *y, int64_t n) {                              \
        _Alignas(64) T buf[VM_BLOCK];                                     \
        for (int64_t i0 = 0; i0 < n; i0 += VM_BLOCK) {                    \
            int64_t m = n - i0 < VM_BLOCK ? n - i0 : VM_BLOCK;            \
            T *yb = y + i0;                                               \
            U big = 0;                                                    \
            memcpy(buf, x + i0, (size_t)m * sizeof(T));                   \
            for (int64_t i = 0; i < m; i++) {                             \
                big |= FLAG(LIM - ABS(buf[i]));                           \
                yb[i] = K(buf[i]);                                        \
            }                                                             \
            if (big)                                                      \
                for (int64_t i = 0; i < m; i++)                           \
                    if (ABS(buf[i]) > LIM) yb[i] = LIBM(buf[i]);          \
        }                                                                 \
    }
#define SIGNBIT_D(v) (bits_d(v) >> 63)
#define SIGNBIT_F(v) (bits_f(v) >> 31)

/* Two operands; lanes where SPECIAL(a, b) holds are recomputed by LIBM. */
#define VM_BINARY(T, U, NAME, K, SPECIAL, LIBM)                              \
    void NAME(const T *a, const T *b, T *y, int64_t n) {                  \
        _Alignas(64) T ba[VM_BLOCK];                                      \
        _Alignas(64) T bb[VM_BLOCK];                                      \
        for (int64_t i0 = 0; i0 < n; i0 += VM_BLOCK) {                    \
            int64_t m = n - i0 < VM_BLOCK ? n - i0 : VM_BLOCK;            \
            T *yb = y + i0;                                               \
            U bad = 0;                                                    \
            memcpy(ba, a + i0, (size_t)m * sizeof(T));                    \
            memcpy(bb, b + i0, (size_t)m * sizeof(T));                    \
            for (int64_t i = 0; i < m; i++) {                             \
                bad |= SPECIAL(ba[i], bb[i]);                             \
                yb[i] = K(ba[i], bb[i]);                                  \
            }                                                             \
            if (bad)                                                      \
                for (int64_t i = 0; i < m; i++)                           \
                    if (SPECIAL(ba[i], bb[i])) yb[i] = LIBM(ba[i], bb[i]); \
        }                                                                 \
    }
/* no special lanes */
#define VM_NONE(a, b) 0

VM_UNARY(double, vm_exp_f64, exp_k)
VM_UNARY(float, vm_exp_f32, exp_kf)
VM_UNARY(double, vm_exp2_f64, exp2_k)
VM_UNARY(float, vm_exp2_f32, exp2_kf)
VM_UNARY(double, vm_expm1_f64, expm1_k)
VM_UNARY(float, vm_expm1_f32, expm1_kf)
VM_UNARY(double, vm_log_f64, log_k)
VM_UNARY(float, vm_log_f32, log_kf)
VM_UNARY(double, vm_log1p_f64, log1p_k)
VM_UNARY(float, vm_log1p_f32, log1p_kf)
VM_UNARY(double, vm_sinh_f64, sinh_k)
VM_UNARY(float, vm_sinh_f32, sinh_kf)
VM_UNARY(double, vm_cosh_f64, cosh_k)
VM_UNARY(float, vm_cosh_f32, cosh_kf)
VM_UNARY(double, vm_tanh_f64, tanh_k)
VM_UNARY(float, vm_tanh_f32, tanh_kf)
VM_UNARY(double, vm_logistic_f64, logistic_k)
VM_UNARY(float, vm_logistic_f32, logistic_kf)
VM_UNARY_FIXUP(double, uint64_t, vm_sin_f64, sin_k, SIGNBIT_D, abs_d, 0x1p20, sin)
VM_UNARY_FIXUP(double, uint64_t, vm_cos_f64, cos_k, SIGNBIT_D, abs_d, 0x1p20, cos)
VM_UNARY_FIXUP(double, uint64_t, vm_tan_f64, tan_k, SIGNBIT_D, abs_d, 0x1p20, tan)
VM_UNARY(double, vm_asin_f64, asin_k)
VM_UNARY(float, vm_asin_f32, asin_kf)
VM_UNARY(double, vm_acos_f64, acos_k)
VM_UNARY(float, vm_acos_f32, acos_kf)
VM_UNARY(double, vm_atan_f64, atan_k)
VM_UNARY(float, vm_atan_f32, atan_kf)
VM_UNARY(double, vm_erf_f64, erf_k)
VM_UNARY(float, vm_erf_f32, erf_kf)
VM_UNARY(double, vm_cbrt_f64, cbrt_k)
VM_UNARY(float, vm_cbrt_f32, cbrt_kf)
VM_BINARY(double, uint64_t, vm_pow_f64, pow_k, pow_special_d, pow)
VM_BINARY(float, uint32_t, vm_pow_f32, pow_kf, pow_special_f, powf)
VM_BINARY(double, uint64_t, vm_atan2_f64, atan2_k, VM_NONE, atan2)
VM_BINARY(float, uint32_t, vm_atan2_f32, atan2_kf, VM_NONE, atan2f)

/* float32 trig. A first pass over each block only looks for arguments
 * beyond TRIGF_FAST_LIM (or infinite); without any, the kernel K runs
 * straight from x to y (y == x is fine: each element is read before it is
 * written). This skips the copy into a local buffer that the other entry
 * points make: measured 15-25% faster at 10^7 elements, where reading
 * freshly copied data costs more than the flag pass. Otherwise the block
 * is copied first (in-place calls still need the arguments afterwards), K
 * runs from the copy, and lanes with |x| > TRIGF_FAST_LIM are recomputed
 * with MID (the kernel via double, good to 2^24) in a blended pass, those
 * beyond 2^24 with LIBM. Each result depends on its own argument only,
 * never on its neighbours in the block. */
static inline uint32_t trigf_any_big(const float *x, int64_t m) {
    uint32_t big = 0;
    for (int64_t i = 0; i < m; i++) big |= SIGNBIT_F(TRIGF_FAST_LIM - abs_f(x[i]));
    return big;
}
#define TRIGF_FIXUP_LANE(v, dst, MID)                                     \
    do {                                                                  \
        if (TRIGF_FAST_LIM < TRIGF_MID_LIM) {                             \
            float mid_ = MID(v);                                          \
            dst = abs_f(v) > TRIGF_FAST_LIM ? mid_ : dst;                 \
        }                                                                 \
    } while (0)
#define VM_TRIG_F32(NAME, K, MID, LIBM)                                   \
    void NAME(const float *x, float *y, int64_t n) {                      \
        _Alignas(64) float buf[VM_BLOCK];                                 \
        for (int64_t i0 = 0; i0 < n; i0 += VM_BLOCK) {                    \
            int64_t m = n - i0 < VM_BLOCK ? n - i0 : VM_BLOCK;            \
            const float *xb = x + i0;                                     \
            float *yb = y + i0;                                           \
            if (!trigf_any_big(xb, m)) {                                  \
                for (int64_t i = 0; i < m; i++) yb[i] = K(xb[i]);         \
                continue;                                                 \
            }                                                             \
            memcpy(buf, xb, (size_t)m * sizeof(float));                   \
            uint32_t huge = 0;                                            \
            for (int64_t i = 0; i < m; i++) {                             \
                huge |= SIGNBIT_F(TRIGF_MID_LIM - abs_f(buf[i]));         \
                yb[i] = K(buf[i]);                                        \
                TRIGF_FIXUP_LANE(buf[i], yb[i], MID);                     \
            }                                                             \
            if (huge)                                                     \
                for (int64_t i = 0; i < m; i++)                           \
                    if (abs_f(buf[i]) > TRIGF_MID_LIM) yb[i] = LIBM(buf[i]); \
        }                                                                 \
    }

VM_TRIG_F32(vm_sin_f32, sin_kf, sin_kd, sinf)
VM_TRIG_F32(vm_cos_f32, cos_kf, cos_kd, cosf)
VM_TRIG_F32(vm_tan_f32, tan_kf, tan_kd, tanf)

/* sin and cos from one reduction, organised as VM_TRIG_F32. s or c may be
 * x itself (each element is read before either output is written, and the
 * fix-up path works from a copy). */
void vm_sincos_f32(const float *x, float *s, float *c, int64_t n) {
    _Alignas(64) float buf[VM_BLOCK];
    for (int64_t i0 = 0; i0 < n; i0 += VM_BLOCK) {
        int64_t m = n - i0 < VM_BLOCK ? n - i0 : VM_BLOCK;
        const float *xb = x + i0;
        float *sb = s + i0, *cb = c + i0;
        if (!trigf_any_big(xb, m)) {
            for (int64_t i = 0; i < m; i++) {
                float sv, cv;
                sincos_kf(xb[i], &sv, &cv);
                sb[i] = sv, cb[i] = cv;
            }
            continue;
        }
        memcpy(buf, xb, (size_t)m * sizeof(float));
        uint32_t huge = 0;
        for (int64_t i = 0; i < m; i++) {
            float sv, cv;
            huge |= SIGNBIT_F(TRIGF_MID_LIM - abs_f(buf[i]));
            sincos_kf(buf[i], &sv, &cv);
            TRIGF_FIXUP_LANE(buf[i], sv, sin_kd);
            TRIGF_FIXUP_LANE(buf[i], cv, cos_kd);
            sb[i] = sv, cb[i] = cv;
        }
        if (huge)
            for (int64_t i = 0; i < m; i++)
                if (abs_f(buf[i]) > TRIGF_MID_LIM) sb[i] = sinf(buf[i]), cb[i] = cosf(buf[i]);
    }
}

/* float64: the kernel is good to |x| <= 2^20; libm beyond. */
void vm_sincos_f64(const double *x, double *s, double *c, int64_t n) {
    _Alignas(64) double buf[VM_BLOCK];
    for (int64_t i0 = 0; i0 < n; i0 += VM_BLOCK) {
        int64_t m = n - i0 < VM_BLOCK ? n - i0 : VM_BLOCK;
        double *sb = s + i0, *cb = c + i0;
        uint64_t big = 0;
        memcpy(buf, x + i0, (size_t)m * sizeof(double));
        for (int64_t i = 0; i < m; i++) {
            double sv, cv;
            big |= SIGNBIT_D(0x1p20 - abs_d(buf[i]));
            sincos_k(buf[i], &sv, &cv);
            sb[i] = sv, cb[i] = cv;
        }
        if (big)
            for (int64_t i = 0; i < m; i++)
                if (abs_d(buf[i]) > 0x1p20) sb[i] = sin(buf[i]), cb[i] = cos(buf[i]);
    }
}
