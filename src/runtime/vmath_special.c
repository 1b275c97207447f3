/* vmath_special.c — special functions over contiguous arrays (runtime
 * layer; the contract and the accuracy are in vmath_special.h).
 *
 * The elementwise kernels of src/prim/elementwise_kernels.c call these on
 * whole ranges, and so does generated code through the runtime table.
 * float32 entry points widen a tile to double, run the float64 routine and
 * round once. erfc, asinh, acosh and atanh are branch-free loops over tiles
 * whose exp/log/log1p are vmath's vectorised kernels; the others are scalar
 * routines per element, because each element takes its own path
 * (reflection, recurrence, series, iteration).
 *
 * The series coefficients are values of known constants (ζ(k), the Taylor
 * coefficients of ψ at its positive root, the Chebyshev coefficients of
 * erfcx) computed with mpmath at 50 digits; none are tuned. */
#include "vmath_special.h"

#include <math.h>
#include <string.h>

#include "vmath.h"

#define TILE 256
#define PI 3.14159265358979323846
#define LN2 0.69314718055994530942

/* ---- float32 through float64 ---- */

#define VIA_F64_UNARY(NAME)                                                        \
    void vm_##NAME##_f32(const float *x, float *y, int64_t n) {                    \
        double t[TILE];                                                            \
        for (int64_t i = 0; i < n; i += TILE) {                                    \
            int64_t m = n - i < TILE ? n - i : TILE;                               \
            for (int64_t k = 0; k < m; k++) t[k] = x[i + k];                       \
            vm_##NAME##_f64(t, t, m);                                              \
            for (int64_t k = 0; k < m; k++) y[i + k] = (float)t[k];                \
        }                                                                          \
    }

#define VIA_F64_BINARY(NAME)                                                       \
    void vm_##NAME##_f32(const float *a, const float *b, float *y, int64_t n) {    \
        double s[TILE], t[TILE];                                                   \
        for (int64_t i = 0; i < n; i += TILE) {                                    \
            int64_t m = n - i < TILE ? n - i : TILE;                               \
            for (int64_t k = 0; k < m; k++) s[k] = a[i + k], t[k] = b[i + k];       \
            vm_##NAME##_f64(s, t, t, m);                                           \
            for (int64_t k = 0; k < m; k++) y[i + k] = (float)t[k];                \
        }                                                                          \
    }

/* ---- erfc: exp(-x²) · erfcx(x), erfcx by Chebyshev in t = (x-3)/(x+3) ---- */

/* erfcx(x) = Σ c[k] T_k(t) on x >= 0 (t in [-1, 1)); |error| < 1e-21. */
static const double erfcx_cheb[32] = {
    3.29862774753036774957e-1, -4.53661520537802086722e-1, 1.60398340821562963206e-1,
    -4.49081211511228259174e-2, 9.6414286506956971423e-3, -1.44250807774439544823e-3,
    1.00994367353799156472e-4, 1.20850245344553002497e-5, -3.62542060275375578281e-6,
    7.18681074247641544319e-8, 8.91423585989821681483e-8, -7.42156662495960624601e-9,
    -2.38933657026587785842e-9, 3.06223553548992509731e-10, 7.78894538815108839696e-11,
    -1.09737458292455844694e-11, -3.09152073119177347204e-12, 3.52543388172342207874e-13,
    1.39904521797716157869e-13, -8.24603747683880889612e-15, -6.63996142698932138349e-15,
    -7.97834882475261080464e-17, 3.04724123760409869918e-16, 3.03213171102256693087e-17,
    -1.21820122129971514678e-17, -2.80401010071901087979e-18, 3.19837628358141450887e-19,
    1.874097116816011705e-19, 6.39741051170760805693e-21, -9.54896819562683718153e-21,
    -1.70918188965392901033e-21, 2.98947811322299545771e-22,
};

/* One tile. exp(-x²) is exp(-h²)·exp(-(x-h)(x+h)) with h = x rounded to
 * float: h² is exact, so x² is not rounded where it would cost the tail
 * its relative accuracy. Beyond 27 the result is 0 (underflow), which the
 * clamp keeps. */
static void erfc_tile(const double *x, double *y, int64_t m) {
    double t[TILE], b1[TILE], b2[TILE], e1[TILE], e2[TILE];
    for (int64_t i = 0; i < m; i++) {
        double a = fabs(x[i]);
        a = a < 27.0 ? a : 27.0;
        double h = (double)(float)a;
        t[i] = (a - 3.0) / (a + 3.0);
        e1[i] = -(h * h);
        e2[i] = -((a - h) * (a + h));
        b1[i] = 0.0, b2[i] = 0.0;
    }
    for (int k = 31; k >= 1; k--) { /* Clenshaw */
        const double c = erfcx_cheb[k];
        for (int64_t i = 0; i < m; i++) {
            double b0 = 2.0 * t[i] * b1[i] - b2[i] + c;
            b2[i] = b1[i];
            b1[i] = b0;
        }
    }
    vm_exp_f64(e1, e1, m);
    vm_exp_f64(e2, e2, m);
    for (int64_t i = 0; i < m; i++) {
        double f = t[i] * b1[i] - b2[i] + erfcx_cheb[0];
        double v = e1[i] * e2[i] * f;
        v = x[i] < 0 ? 2.0 - v : v;
        y[i] = x[i] != x[i] ? x[i] : v;
    }
}

void vm_erfc_f64(const double *x, double *y, int64_t n) {
    for (int64_t i = 0; i < n; i += TILE) erfc_tile(x + i, y + i, n - i < TILE ? n - i : TILE);
}
VIA_F64_UNARY(erfc)

/* ---- inverse hyperbolic functions through log1p / log ---- */

/* asinh|x| = log1p(|x| + x²/(1 + sqrt(1 + x²))), or log|x| + ln 2 past
 * 2^28 (where x² would lose the 1, or overflow). */
static void asinh_tile(const double *x, double *y, int64_t m) {
    double t[TILE], l[TILE];
    for (int64_t i = 0; i < m; i++) {
        double a = fabs(x[i]);
        double s = a > 268435456.0 ? 0.0 : a;
        t[i] = s + s * s / (1.0 + sqrt(1.0 + s * s));
        l[i] = a;
    }
    vm_log1p_f64(t, t, m);
    vm_log_f64(l, l, m);
    for (int64_t i = 0; i < m; i++) {
        double a = fabs(x[i]);
        double r = a > 268435456.0 ? l[i] + LN2 : t[i];
        y[i] = copysign(r, x[i]);
    }
}

/* acosh x = log1p(u + sqrt(2u + u²)) with u = x - 1 (exact near 1), or
 * log x + ln 2 past 2^28; NaN below 1. */
static void acosh_tile(const double *x, double *y, int64_t m) {
    double t[TILE], l[TILE];
    for (int64_t i = 0; i < m; i++) {
        double u = x[i] > 268435456.0 ? 0.0 : x[i] - 1.0;
        t[i] = u + sqrt(2.0 * u + u * u);
        l[i] = x[i];
    }
    vm_log1p_f64(t, t, m);
    vm_log_f64(l, l, m);
    for (int64_t i = 0; i < m; i++) {
        double r = x[i] > 268435456.0 ? l[i] + LN2 : t[i];
        y[i] = x[i] < 1.0 ? NAN : r;
    }
}

/* atanh|x| = ½ log1p(2|x| + 2x²/(1 - |x|)): inf at 1, NaN past it (the
 * argument falls below -1). */
static void atanh_tile(const double *x, double *y, int64_t m) {
    double t[TILE];
    for (int64_t i = 0; i < m; i++) {
        double a = fabs(x[i]);
        t[i] = 2.0 * a + 2.0 * a * a / (1.0 - a);
    }
    vm_log1p_f64(t, t, m);
    for (int64_t i = 0; i < m; i++) y[i] = copysign(0.5 * t[i], x[i]);
}

#define TILED(NAME)                                                                \
    void vm_##NAME##_f64(const double *x, double *y, int64_t n) {                  \
        for (int64_t i = 0; i < n; i += TILE) NAME##_tile(x + i, y + i, n - i < TILE ? n - i : TILE); \
    }
TILED(asinh)
TILED(acosh)
TILED(atanh)
VIA_F64_UNARY(asinh)
VIA_F64_UNARY(acosh)
VIA_F64_UNARY(atanh)

/* ---- lgamma ---- */

/* ψ's positive root, as a double and the rest, and ψ(x0 + h) = Σ c[k] h^(k+1)
 * for |h| <= 1/4 (its Taylor coefficients ψ^(k+1)(x0)/(k+1)!). */
#define DIGAMMA_ROOT_HI 1.4616321449683622
#define DIGAMMA_ROOT_LO 9.549995429965697e-17
static const double digamma_root_taylor[23] = {
    9.67672245447621170427e-1, -4.42763168983592106093e-1, 2.58499760955651010624e-1,
    -1.63942705442406527504e-1, 1.07824050691262365757e-1, -7.21995612564547109261e-2,
    4.88042881641431072251e-2, -3.31611264748473592923e-2, 2.25976482322181046596e-2,
    -1.54247659049489591388e-2, 1.05387916166121753881e-2, -7.20453438635686824097e-3,
    4.92678139572985344635e-3, -3.36980165543932808279e-3, 2.30512632673492783694e-3,
    -1.57693677143019725927e-3, 1.07882520191629658069e-3, -7.38070938996005129566e-4,
    5.04953265834602035177e-4, -3.45468025106307699556e-4, 2.36356015640270527924e-4,
    -1.61706220919748034494e-4, 1.10633727687474109041e-4,
};


/* lgamma(1 + z) = -γz + Σ_{k>=2} (-1)^k ζ(k)/k z^k, truncated where the
 * terms fall below 1e-18 for |z| <= 1/2. */
static const double lgamma1p_series[55] = {
    -5.77215664901532860607e-1, 8.22467033424113218236e-1, -4.00685634386531428467e-1,
    2.70580808427784547879e-1, -2.07385551028673985267e-1, 1.69557176997408189952e-1,
    -1.44049896768846118106e-1, 1.25509669524743042422e-1, -1.11334265869564690438e-1,
    1.00099457512781808534e-1, -9.09540171458935639271e-2, 8.33538405461330217633e-2,
    -7.69325164113522077089e-2, 7.14329462953613022254e-2, -6.66687058824205798763e-2,
    6.25009551412444201171e-2, -5.88239786586845749207e-2, 5.55557676274036526524e-2,
    -5.26316793796167633811e-2, 5.00000476981016936244e-2, -4.76190703301422681713e-2,
    4.54545562932047820285e-2, -4.34782660530472211308e-2, 4.16666726269849516153e-2,
    -4.00000029803755923134e-2, 3.84615399244117029602e-2, -3.70370377722529179637e-2,
    3.57142860822265001287e-2, -3.44827587933354567115e-2, 3.33333334253323823113e-2,
    -3.22580645617761416045e-2, 3.12500000227600512072e-2, -3.03030303143072823658e-2,
    2.94117647115463306013e-2, -2.85714285742712094063e-2, 2.77777777791084925254e-2,
    -2.70270270276933264226e-2, 2.63157894740109059883e-2, -2.56410256411923436283e-2,
    2.50000000000827180368e-2, -2.43902439024803724826e-2, 2.38095238095445924812e-2,
    -2.32558139535000203813e-2, 2.27272727272778962694e-2, -2.22222222222247608929e-2,
    2.17391304347838612853e-2, -2.12765957446815063545e-2, 2.08333333333336507587e-2,
    -2.04081632653062797318e-2, 2.00000000000000795967e-2, -1.96078431372549418931e-2,
    1.92307692307692406168e-2, -1.88679245283018917215e-2, 1.85185185185185209851e-2,
    -1.81818181818181823228e-2,
};

/* lgamma(x0 + h) = lgamma(x0) + Σ_{k>=2} ψ^(k-1)(x0)/k! h^k around its
 * minimum x0 (ψ's root), where the series at 2 would cancel: the
 * coefficients are digamma's at the root divided by k. */
#define LGAMMA_AT_ROOT -0.1214862905358496081
static double lgamma_near_min(double x) {
    double h = (x - DIGAMMA_ROOT_HI) - DIGAMMA_ROOT_LO, s = digamma_root_taylor[22] / 24;
    for (int k = 21; k >= 0; k--) s = s * h + digamma_root_taylor[k] / (k + 2);
    return LGAMMA_AT_ROOT + s * h * h;
}

static double lgamma1p(double z) {
    double s = lgamma1p_series[54];
    for (int k = 53; k >= 0; k--) s = s * z + lgamma1p_series[k];
    return s * z;
}

/* Stirling's series for x >= 12, written (x - ½)(log x - 1) so that it
 * does not overflow before lgamma itself does. */
static double lgamma_stirling(double x) {
    double r = 1.0 / x, r2 = r * r;
    double s = r * (1.0 / 12 + r2 * (-1.0 / 360 + r2 * (1.0 / 1260 + r2 * (-1.0 / 1680 +
               r2 * (1.0 / 1188 + r2 * (-691.0 / 360360 + r2 * (1.0 / 156)))))));
    return (x - 0.5) * (log(x) - 1.0) + (0.91893853320467274178 - 0.5) + s;
}

/* Below -1/2 by reflection, Γ(x)Γ(1-x) = π/sin(πx), with sin(πx) from the
 * reduced argument so that the poles are exact; on (-½, 2½) by the series
 * at 1 (and at 2: lgamma(2+z) = log1p(z) + lgamma(1+z)), which keeps the
 * zeros at 1 and 2 accurate; up to 12 by the recurrence down into
 * [1.5, 2.5); beyond by Stirling. Around the minimum (1.21..1.71) the
 * Taylor series there. */
static double lgamma_d(double x) {
    if (x != x) return x;
    if (isinf(x) || x == 0) return INFINITY;
    if (x <= -0.5) {
        double r = x - round(x);
        if (r == 0) return INFINITY;
        return log(PI / fabs(sin(PI * r))) - lgamma_d(1.0 - x);
    }
    if (x < 0.5) return lgamma1p(x) - log(fabs(x));
    if (fabs(x - DIGAMMA_ROOT_HI) < 0.25) return lgamma_near_min(x);
    if (x < 1.5) return lgamma1p(x - 1.0);
    if (x < 12) {
        double p = 1.0;
        while (x >= 2.5) {
            x -= 1.0;
            p *= x;
        }
        return log(p) + (log1p(x - 2.0) + lgamma1p(x - 2.0));
    }
    return lgamma_stirling(x);
}

void vm_lgamma_f64(const double *x, double *y, int64_t n) {
    for (int64_t i = 0; i < n; i++) y[i] = lgamma_d(x[i]);
}
VIA_F64_UNARY(lgamma)

/* ---- digamma and polygamma ---- */

/* Below 0 by reflection, ψ(x) = ψ(1-x) - π cot(πx); near the root by its
 * Taylor series; otherwise up to 12 by ψ(x) = ψ(x+1) - 1/x, then the
 * asymptotic series. NaN at the poles (0, the negative integers, -inf),
 * as XLA. */
static double digamma_d(double x) {
    if (x != x || x == INFINITY) return x;
    if (x == -INFINITY) return NAN;
    double acc = 0.0;
    if (x <= 0) {
        double r = x - round(x);
        if (r == 0) return NAN;
        acc = -PI * cos(PI * r) / sin(PI * r);
        x = 1.0 - x;
    }
    if (fabs(x - DIGAMMA_ROOT_HI) < 0.25) {
        double h = (x - DIGAMMA_ROOT_HI) - DIGAMMA_ROOT_LO, s = digamma_root_taylor[22];
        for (int k = 21; k >= 0; k--) s = s * h + digamma_root_taylor[k];
        return acc + s * h;
    }
    while (x < 12) {
        acc -= 1.0 / x;
        x += 1.0;
    }
    double r = 1.0 / x, r2 = r * r;
    double tail = r2 * (1.0 / 12 - r2 * (1.0 / 120 - r2 * (1.0 / 252 - r2 * (1.0 / 240 -
                  r2 * (1.0 / 132 - r2 * (691.0 / 32760 - r2 / 12))))));
    return acc + (log(x) - 0.5 * r - tail);
}

void vm_digamma_f64(const double *x, double *y, int64_t n) {
    for (int64_t i = 0; i < n; i++) y[i] = digamma_d(x[i]);
}
VIA_F64_UNARY(digamma)

/* ψ^(m)(x) = (-1)^(m+1) m! ζ(m+1, x) for integer m >= 1, the Hurwitz zeta
 * by its recurrence up to x >= 12 and Euler-Maclaurin's tail there.
 * Orders that are not non-negative integers give NaN (as XLA); at the
 * poles (x a non-positive integer) ±inf by the sign of the pole term;
 * x = inf gives 0 (XLA: NaN); below -2^20 NaN (the recurrence would take
 * that many steps). */
static double polygamma_d(double m, double x) {
    if (m != m || x != x || m < 0 || isinf(m) || m != floor(m)) return NAN;
    if (m == 0) return digamma_d(x);
    if (x == INFINITY) return 0.0;
    if (x < -1048576.0) return NAN;
    int odd = fmod(m, 2.0) == 1.0;
    if (x <= 0 && x == floor(x)) return odd ? INFINITY : -INFINITY;
    static const double b[7] = {1.0 / 12, -1.0 / 720, 1.0 / 30240, -1.0 / 1209600, 1.0 / 47900160,
                                -691.0 / 1307674368000.0, 1.0 / 74724249600.0};
    double s = m + 1.0, zeta = 0.0;
    while (x < 12) {
        zeta += pow(x, -s);
        x += 1.0;
    }
    double t = pow(x, -s), r = 1.0 / x, r2 = r * r;
    double f = s * t * r, e = 0.0;
    for (int j = 0; j < 7; j++) {
        e += b[j] * f;
        f *= (s + 2 * j + 1) * (s + 2 * j + 2) * r2;
    }
    zeta += x * t / (s - 1.0) + 0.5 * t + e;
    double fact = 1.0;
    for (double k = 2; k <= m && fact < INFINITY; k++) fact *= k;
    return (odd ? fact : -fact) * zeta;
}

void vm_polygamma_f64(const double *m, const double *x, double *y, int64_t n) {
    for (int64_t i = 0; i < n; i++) y[i] = polygamma_d(m[i], x[i]);
}
VIA_F64_BINARY(polygamma)

/* ---- erf_inv: Halley's iteration from a close start ---- */

/* On |y| <= 1/2 the iteration solves erf(x) = |y| from the first terms of
 * erfinv's Maclaurin series; beyond, erfc(x) = 1 - |y| (exact there) from
 * Winitzki's approximation, so the tail keeps its relative accuracy. Each
 * step divides by erf' = 2/√π e^(-x²); with erf'' = -2x erf', Halley's step
 * is x -= u / (1 + x u), u = f/f'. Three steps take the start's 2e-3 to
 * below an ulp. */
static double erfinv_d(double y) {
    double a = fabs(y);
    if (!(a <= 1.0)) return NAN;
    if (a == 1.0) return copysign(INFINITY, y);
    if (a == 0.0) return y;
    const double two_over_sqrt_pi = 1.12837916709551257390;
    double x;
    if (a <= 0.5) {
        double a2 = a * a;
        x = 0.88622692545275801365 * a *
            (1.0 + a2 * (PI / 12 + a2 * (7 * PI * PI / 480 + a2 * (127 * PI * PI * PI / 40320 +
                                                                    a2 * (4369 * PI * PI * PI * PI / 5806080)))));
        for (int it = 0; it < 3; it++) {
            double u = (erf(x) - a) / (two_over_sqrt_pi * exp(-x * x));
            x -= u / (1.0 + x * u);
        }
    } else {
        double q = 1.0 - a;
        double l = log(q) + log1p(a); /* log(1 - a²) */
        double w = 2.0 / (PI * 0.147) + 0.5 * l;
        x = sqrt(sqrt(w * w - l / 0.147) - w);
        for (int it = 0; it < 3; it++) {
            double u = -(erfc(x) - q) / (two_over_sqrt_pi * exp(-x * x));
            x -= u / (1.0 + x * u);
        }
    }
    return copysign(x, y);
}

void vm_erfinv_f64(const double *x, double *y, int64_t n) {
    for (int64_t i = 0; i < n; i++) y[i] = erfinv_d(x[i]);
}
VIA_F64_UNARY(erfinv)

/* ---- nextafter, on the bits ---- */

#define NEXTAFTER(SFX, T, U, TINY)                                                 \
    void vm_nextafter_##SFX(const T *a, const T *b, T *y, int64_t n) {             \
        for (int64_t i = 0; i < n; i++) {                                          \
            T x = a[i], to = b[i], r;                                              \
            if (x != x || to != to) {                                              \
                r = x + to;                                                        \
            } else if (x == to) {                                                  \
                r = to;                                                            \
            } else if (x == 0) {                                                   \
                r = to > 0 ? TINY : -TINY;                                         \
            } else {                                                               \
                U u;                                                               \
                memcpy(&u, &x, sizeof u);                                          \
                u = (x < to) == (x > 0) ? u + 1 : u - 1;                           \
                memcpy(&r, &u, sizeof r);                                          \
            }                                                                      \
            y[i] = r;                                                              \
        }                                                                          \
    }
NEXTAFTER(f32, float, uint32_t, 1.40129846e-45f)
NEXTAFTER(f64, double, uint64_t, 4.9406564584124654e-324)
