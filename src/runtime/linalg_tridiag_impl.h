/* linalg_tridiag_impl.h — the symmetric eigendecomposition of one large
 * matrix by tridiagonalisation, for one element type (runtime layer),
 * included by linalg_eigh.c (and, for steps 2 and 3, linalg_svd.c) once
 * per type with T, S, SQRT, FABS, EPS and GEMM defined. F(eigh_tridiag)
 * in linalg_eigh_impl.h strings the steps together for n above the
 * Jacobi range; half the reduction's flops are level-2 (a read-only
 * pass per column), the other half and the back-transformation's GEMM.
 *
 * 1. A = Q T Qᵀ by Householder reflections (as LAPACK's sytd2 with
 *    uplo = L: H_k = I - tau_k u_k u_kᵀ, u_k[k+1] = 1, beta =
 *    -sign(alpha)‖x‖), on a copy of the lower triangle stored as the upper
 *    one (row-major, column k below the diagonal is then row k right of
 *    it: contiguous), u_k kept where its column was.
 *    Each step's rank-2 update of the trailing matrix and the next step's
 *    product of it with the next reflector run in one pass over it; above
 *    the last 32 + nb columns, panels of nb reflectors first
 *    (linalg_tridiag_blocked_impl.h: sytrd's scheme, the trailing matrix
 *    updated by GEMM once a panel).
 * 2. T's eigenvalues by root-free QL (Pal–Walker–Kahan) with Wilkinson's
 *    shift, in double, per
 *    unreduced block (T splits where an off-diagonal is negligible); its
 *    eigenvectors by inverse iteration (LU of T - λI with partial pivoting,
 *    two solves from a fixed pseudo-random start, as LAPACK's stein: QL's
 *    eigenvalue is within eps‖T‖, so one solve already converges and the
 *    second makes sure),
 *    each orthogonalised against the vectors of its block whose
 *    eigenvalues lie within 10⁻³‖T‖ of its own (beyond that inverse
 *    iteration itself keeps them orthogonal to about eps‖T‖/gap), in
 *    double, then rounded to T.
 * 3. V = Q Z, the reflectors applied NB at a time in compact WY form
 *    (I - Y Tt Yᵀ, LAPACK's larft/larfb): three GEMMs per block. */

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define F(name) CAT(name, S)

#ifndef TD_NB
#define TD_NB 64 /* reflectors per block of the back-transformation */
/* Working memory of F(eigh_tridiag), in elements of T (either type). */
#define TD_WORK(n) ((n) * (n) + 3 * TD_NB * (n) + TD_NB * TD_NB + 3 * (n) + 2 * 13 * (n) + 8)
#endif

/* x·y with 32 partial sums: as four independent vectors of 8 (f64) or two
 * of 16 (f32) on AVX-512, enough to hide the FMA's latency (8 sums kept
 * the reductions' row passes latency bound). */
static inline T F(td_dot)(const T *x, const T *y, int64_t n) {
    T acc[32] = {0};
    int64_t p = 0;
    for (; p + 32 <= n; p += 32)
        for (int q = 0; q < 32; q++) acc[q] += x[p + q] * y[p + q];
    for (; p + 8 <= n; p += 8)
        for (int q = 0; q < 8; q++) acc[q] += x[p + q] * y[p + q];
    for (int q = 8; q < 32; q += 8)
        for (int t = 0; t < 8; t++) acc[t] += acc[q + t];
    T s = ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
    for (; p < n; p++) s += x[p] * y[p];
    return s;
}

#ifndef TD_STEPS_2_3_ONLY /* linalg_svd.c wants steps 2 and 3 only */
/* The reflector of row k's part right of the diagonal (r entries: the
 * column below the diagonal, by symmetry), in place there (v[0] = 1),
 * tau returned, e[k] = beta. */
static T F(td_reflector)(T *a, int64_t ld, int64_t n, int64_t k, double *e) {
    int64_t r = n - k - 1;
    T *v = a + k * ld + k + 1, alpha = v[0];
    double sigma = 0;
    for (int64_t i = 1; i < r; i++) sigma += (double)v[i] * v[i];
    v[0] = 1;
    if (sigma == 0) { /* nothing below: H = I */
        e[k] = alpha;
        return 0;
    }
    double beta = -copysign(sqrt((double)alpha * alpha + sigma), (double)alpha);
    T scale = (T)(1 / ((double)alpha - beta));
    for (int64_t i = 1; i < r; i++) v[i] *= scale;
    e[k] = beta;
    return (T)((beta - alpha) / beta);
}

/* q += B u over the upper triangle of B (r×r at b, row stride n), row
 * i's contiguous part from its diagonal giving q[i] a dot product and
 * q[i+1..] an axpy. */
static void F(td_symv_row)(const T *row, int64_t len, const T *u, T *q) {
    T ui = u[0];
    q[0] += F(td_dot)(row, u, len);
    for (int64_t t = 1; t < len; t++) q[t] += row[t] * ui;
}

/* w = p - (tau/2)(pᵀv) v, in place in p. */
static void F(td_w)(T *p, const T *v, int64_t r, T tau) {
    T k = (T)0.5 * tau * F(td_dot)(p, v, r);
    for (int64_t i = 0; i < r; i++) p[i] -= k * v[i];
}

/* Step 1 on the n×n matrix a at row stride ld (its upper triangle; n >=
 * 3), unblocked: d, e (n, n-1) the tridiagonal, taus[k] (k < n-2) and the
 * reflectors in a's rows right of the diagonal (row k's the column below
 * it, by symmetry: every access is contiguous). p, q: n elements each.
 * linalg_tridiag_blocked_impl.h's panels leave it the last columns. */
static void F(td_reduce)(T *a, int64_t ld, int64_t n, double *d, double *e, T *taus, T *p, T *q) {
    T tau = taus[0] = F(td_reflector)(a, ld, n, 0, e);
    if (tau != 0) {
        for (int64_t i = 0; i < n - 1; i++) q[i] = 0;
        for (int64_t i = 0; i < n - 1; i++) F(td_symv_row)(a + (i + 1) * ld + i + 1, n - 1 - i, a + 1 + i, q + i);
        for (int64_t i = 0; i < n - 1; i++) p[i] = tau * q[i];
    }
    for (int64_t k = 0; k < n - 2; k++) {
        int64_t r = n - k - 1;
        T *b = a + (k + 1) * ld + k + 1; /* the trailing r×r block */
        const T *v = a + k * ld + k + 1;
        d[k] = a[k * ld + k];
        if (tau == 0) { /* B unchanged; the next reflector and its product plainly */
            if (k + 1 < n - 2) {
                tau = taus[k + 1] = F(td_reflector)(a, ld, n, k + 1, e);
                if (tau != 0) {
                    for (int64_t i = 0; i < r - 1; i++) q[i] = 0;
                    for (int64_t i = 0; i < r - 1; i++) F(td_symv_row)(b + (i + 1) * ld + i + 1, r - 1 - i, b + 1 + i, q + i);
                    for (int64_t i = 0; i < r - 1; i++) p[i] = tau * q[i];
                }
            }
            continue;
        }
        F(td_w)(p, v, r, tau);
        /* B -= v wᵀ + w vᵀ: its first row first (the next reflector) */
        for (int64_t j = 0; j < r; j++) b[j] -= v[0] * p[j] + p[0] * v[j];
        if (k + 1 >= n - 2) { /* the last step: the 2×2 block left */
            b[ld + 1] -= 2 * v[1] * p[1];
            break;
        }
        T tau1 = taus[k + 1] = F(td_reflector)(a, ld, n, k + 1, e);
        const T *v1 = b + 1; /* the next reflector, row k+1's part right of the diagonal */
        /* the rest of B's update fused with q = B' v1 for the next step
         * (B' = B without its first row and column), a row at a time:
         * the row stays in L1 between the update and the product */
        int64_t r1 = r - 1;
        const T *vv = v + 1, *ww = p + 1;
        for (int64_t i = 0; i < r1; i++) q[i] = 0;
        for (int64_t i = 0; i < r1; i++) {
            T *row = b + (i + 1) * ld + i + 1;
            int64_t len = r1 - i;
            T vi = vv[i], wi = ww[i];
            const T *wr = ww + i, *vr = vv + i;
            for (int64_t t = 0; t < len; t++) row[t] -= vi * wr[t] + wi * vr[t];
            F(td_symv_row)(row, len, v1 + i, q + i);
        }
        tau = tau1;
        if (tau != 0)
            for (int64_t i = 0; i < r1; i++) p[i] = tau * q[i];
    }
    d[n - 2] = a[(n - 2) * ld + n - 2];
    d[n - 1] = a[(n - 1) * ld + n - 1];
    e[n - 2] = a[(n - 2) * ld + n - 1];
}

#include "linalg_tridiag_blocked_impl.h"

#endif

/* The eigenvalues of the unreduced tridiagonal block (d, e: L and L-1
 * entries, destroyed; e needs L) into d, by implicit QL with Wilkinson's
 * shift (the textbook tql1 recurrence), unsorted. */
static void F(td_ql)(double *d, double *e, int64_t L) {
    e[L - 1] = 0;
    for (int64_t l = 0; l < L; l++) {
        for (int iter = 0; iter < 60; iter++) {
            int64_t m = l;
            for (; m < L - 1; m++)
                if (fabs(e[m]) <= DBL_EPSILON * (fabs(d[m]) + fabs(d[m + 1]))) break;
            if (m == l) break;
            double g = (d[l + 1] - d[l]) / (2 * e[l]), r = sqrt(g * g + 1);
            g = d[m] - d[l] + e[l] / (g + copysign(r, g));
            double s = 1, c = 1, p = 0;
            int64_t i = m - 1;
            for (; i >= l; i--) {
                double f = s * e[i], b = c * e[i];
                e[i + 1] = r = sqrt(f * f + g * g); /* no hypot: a libm call per rotation */
                if (r == 0) { /* underflow: deflate and restart */
                    d[i + 1] -= p;
                    e[m] = 0;
                    break;
                }
                s = f / r, c = g / r;
                g = d[i + 1] - p;
                r = (d[i] - g) * s + 2 * c * b;
                p = s * r;
                d[i + 1] = g + p;
                g = c * r - b;
            }
            if (r == 0 && i >= l) continue;
            d[l] -= p;
            e[l] = g;
            e[m] = 0;
        }
    }
}

/* The same by the root-free QL of Pal, Walker and Kahan (as LAPACK's
 * sterf): it works on the squares of the off-diagonals (e2: L entries,
 * destroyed), a division and no square root per rotation (25 % faster
 * than td_ql at n = 300 and 2048, the eigenvalues the same to 10⁻¹⁴ of
 * ‖T‖), 2×2 blocks closed by their formula. 0 when it did not converge in
 * 30 iterations per eigenvalue (the caller then runs td_ql). */
static int F(td_pwk)(double *d, double *e2, int64_t L) {
    const double eps2 = DBL_EPSILON * DBL_EPSILON;
    int64_t l = 0, iters = 0, cap = 30 * L;
    while (l < L) {
        int64_t m = l;
        for (; m < L - 1; m++)
            if (fabs(e2[m]) <= eps2 * fabs(d[m] * d[m + 1])) break;
        if (m < L - 1) e2[m] = 0;
        double p = d[l];
        if (m == l) {
            l++;
            continue;
        }
        if (m == l + 1) { /* [[a, b], [b, c]]: its eigenvalues without cancellation */
            double a = d[l], b = sqrt(e2[l]), c = d[l + 1], sm = a + c, df = fabs(a - c), tb = 2 * b;
            double mx = fabs(a) > fabs(c) ? a : c, mn = fabs(a) > fabs(c) ? c : a, rt;
            rt = df > tb ? df * sqrt(1 + (tb / df) * (tb / df)) : tb > 0 ? tb * sqrt(1 + (df / tb) * (df / tb)) : 0;
            double r1 = sm < 0 ? 0.5 * (sm - rt) : 0.5 * (sm + rt);
            d[l] = r1;
            d[l + 1] = r1 != 0 ? (mx / r1) * mn - (b / r1) * b : -r1;
            e2[l] = 0;
            l += 2;
            continue;
        }
        if (++iters > cap) return 0;
        double rte = sqrt(e2[l]), sigma = (d[l + 1] - p) / (2 * rte), r = sqrt(sigma * sigma + 1);
        sigma = p - rte / (sigma + copysign(r, sigma)); /* Wilkinson's shift */
        double c = 1, s = 0, gamma = d[m] - sigma;
        p = gamma * gamma;
        for (int64_t i = m - 1; i >= l; i--) {
            double bb = e2[i];
            r = p + bb;
            if (i != m - 1) e2[i + 1] = s * r;
            double oldc = c, oldgam = gamma, alpha = d[i];
            c = p / r, s = bb / r;
            gamma = c * (alpha - sigma) - s * oldgam;
            d[i + 1] = oldgam + (alpha - gamma);
            p = c != 0 ? gamma * gamma / c : oldc * bb;
        }
        e2[l] = s * p;
        d[l] = sigma + gamma;
    }
    return 1;
}

/* Inverse iteration's factorisation: T - lam I = P L U for the L×L block
 * (d, e), U's three diagonals in u0, u1, u2, L's multipliers in lm, row
 * swaps in sw; pivots below tiny replaced by tiny, u0 holding their
 * reciprocals. */
static void F(td_lu)(const double *d, const double *e, int64_t L, double lam, double tiny, double *u0, double *u1,
                     double *u2, double *lm, double *sw) {
    double cd = d[0] - lam, cs = L > 1 ? e[0] : 0;
    for (int64_t i = 0; i + 1 < L; i++) {
        double nb = e[i], nd = d[i + 1] - lam, ns = i + 2 < L ? e[i + 1] : 0;
        if (fabs(cd) >= fabs(nb)) {
            if (fabs(cd) < tiny) cd = cd < 0 ? -tiny : tiny;
            double l = nb / cd;
            u0[i] = cd, u1[i] = cs, u2[i] = 0, lm[i] = l, sw[i] = 0;
            cd = nd - l * cs, cs = ns;
        } else {
            double l = cd / nb;
            u0[i] = nb, u1[i] = nd, u2[i] = ns, lm[i] = l, sw[i] = 1;
            cd = cs - l * nd, cs = -l * ns;
        }
    }
    if (fabs(cd) < tiny) cd = cd < 0 ? -tiny : tiny;
    u0[L - 1] = cd;
    for (int64_t i = 0; i < L; i++) u0[i] = 1 / u0[i]; /* the solves multiply */
}

static void F(td_solve)(int64_t L, const double *u0, const double *u1, const double *u2, const double *lm,
                        const double *sw, double *y) {
    for (int64_t i = 0; i + 1 < L; i++) { /* selects, not a branch: the swaps follow no pattern */
        double y0 = y[i], y1 = y[i + 1];
        int s = sw[i] != 0;
        double top = s ? y1 : y0, bot = s ? y0 : y1;
        y[i] = top;
        y[i + 1] = bot - lm[i] * top;
    }
    y[L - 1] *= u0[L - 1];
    if (L > 1) y[L - 2] = (y[L - 2] - u1[L - 2] * y[L - 1]) * u0[L - 2];
    for (int64_t i = L - 3; i >= 0; i--) y[i] = (y[i] - u1[i] * y[i + 1] - u2[i] * y[i + 2]) * u0[i];
}

static void F(td_normalise)(double *y, int64_t L) {
    double mx = 0, s = 0;
    for (int64_t i = 0; i < L; i++) mx = fabs(y[i]) > mx ? fabs(y[i]) : mx;
    if (mx == 0) { /* cannot happen with a nonzero start; keep it a unit vector */
        y[0] = 1;
        return;
    }
    for (int64_t i = 0; i < L; i++) y[i] /= mx, s += y[i] * y[i];
    s = 1 / sqrt(s);
    for (int64_t i = 0; i < L; i++) y[i] *= s;
}

/* Where td_eig's vectors go: row j (n entries) in part[s] at (j -
 * start[s])·n for the last s with start[s] <= j (start[0] = 0), so that
 * linalg_bidiag_impl.h can keep most of its rows in its outputs'
 * buffers. F(td_rows_one) is the plain contiguous array. */
typedef struct {
    T *part[3];
    int64_t start[3];
} F(td_rows);
static inline F(td_rows) F(td_rows_one)(T *z) { return (F(td_rows)){{z, z, z}, {0, INT64_MAX, INT64_MAX}}; }
static inline T *F(td_row)(const F(td_rows) *z, int64_t j, int64_t n) {
    int s = j >= z->start[2] ? 2 : j >= z->start[1] ? 1 : 0;
    return z->part[s] + (j - z->start[s]) * n;
}

/* Step 2: the tridiagonal (d, e: n, n-1; destroyed) → w (all n
 * eigenvalues, ascending) and, unless zt is NULL, the unit eigenvectors of
 * those of ascending rank >= first as zt's rows (row r - first for rank
 * r, n entries each, where F(td_row) puts them). first < 0 asks for every eigenvalue above
 * -10⁻³‖T‖ (the Golub–Kahan matrix's positive ones and, to orthogonalise
 * against, the negative ones near zero). Returns the first rank computed.
 * given: T's eigenvalues, ascending, computed by the caller (T must then
 * be unreduced: no off-diagonal negligible), or NULL for QL's.
 * dw: 11·n doubles. */
static int64_t F(td_eig)(int64_t n, double *d, double *e, T *w, int64_t first, const F(td_rows) *zt, double *dw,
                         const double *given) {
    double *lam = dw, *ee = dw + 2 * n, *u0 = dw + 3 * n, *u1 = dw + 4 * n, *u2 = dw + 5 * n;
    double *lm = dw + 6 * n, *sw = dw + 7 * n, *y = dw + 8 * n, *rank = dw + 9 * n, *order = dw + 10 * n;
    /* eigenvalues block by block, each block's ascending */
    for (int64_t b0 = 0; b0 < n;) {
        int64_t b1 = b0 + 1;
        while (b1 < n && fabs(e[b1 - 1]) > DBL_EPSILON * (fabs(d[b1 - 1]) + fabs(d[b1]))) b1++;
        int64_t L = b1 - b0;
        if (given && L == n) { /* the caller's (an unreduced T is one block) */
            for (int64_t i = 0; i < n; i++) lam[i] = given[i];
            break;
        }
        for (int64_t i = 0; i < L; i++) lam[b0 + i] = d[b0 + i], ee[i] = i + 1 < L ? e[b0 + i] * e[b0 + i] : 0;
        if (L > 1 && !F(td_pwk)(lam + b0, ee, L)) { /* not converged: the plain QL from the start */
            for (int64_t i = 0; i < L; i++) lam[b0 + i] = d[b0 + i], ee[i] = i + 1 < L ? e[b0 + i] : 0;
            F(td_ql)(lam + b0, ee, L);
        }
        for (int64_t i = b0 + 1; i < b1; i++) { /* insertion sort: QL leaves them nearly in order */
            double x = lam[i];
            int64_t j = i;
            for (; j > b0 && lam[j - 1] > x; j--) lam[j] = lam[j - 1];
            lam[j] = x;
        }
        b0 = b1;
    }
    /* global ranks: positions ordered by value (stable; indices exact in double) */
    for (int64_t i = 0; i < n; i++) {
        int64_t j = i;
        for (; j > 0 && lam[(int64_t)order[j - 1]] > lam[i]; j--) order[j] = order[j - 1];
        order[j] = (double)i;
    }
    for (int64_t r = 0; r < n; r++) rank[(int64_t)order[r]] = (double)r, w[r] = (T)lam[(int64_t)order[r]];
    if (first < 0) {
        double tn = 0;
        for (int64_t i = 0; i < n; i++) tn = fmax(tn, fabs(lam[i]));
        first = 0;
        while (first < n && lam[(int64_t)order[first]] < -1e-3 * tn) first++;
    }
    if (!zt) return first;
    for (int64_t j = 0; j < n - first; j++) {
        T *z = F(td_row)(zt, j, n);
        for (int64_t i = 0; i < n; i++) z[i] = 0;
    }
    for (int64_t b0 = 0; b0 < n;) {
        int64_t b1 = b0 + 1;
        while (b1 < n && fabs(e[b1 - 1]) > DBL_EPSILON * (fabs(d[b1 - 1]) + fabs(d[b1]))) b1++;
        int64_t L = b1 - b0;
        if (L == 1) {
            if (rank[b0] >= (double)first) F(td_row)(zt, (int64_t)rank[b0] - first, n)[b0] = 1;
            b0 = b1;
            continue;
        }
        double tnorm = 0;
        for (int64_t i = b0; i < b1; i++) {
            double t = fabs(d[i]) + (i > b0 ? fabs(e[i - 1]) : 0) + (i + 1 < b1 ? fabs(e[i]) : 0);
            tnorm = t > tnorm ? t : tnorm;
        }
        double tiny = DBL_EPSILON * tnorm, ortol = 1e-3 * tnorm, pert = 10 * DBL_EPSILON * tnorm, prev = 0;
        uint64_t seed = 0x9E3779B97F4A7C15u;
        int64_t win = b0; /* the first computed vector within ortol of the current one */
        for (int64_t j = b0; j < b1; j++) {
            double shift = lam[j];
            if (j > b0 && shift - prev < pert) shift = prev + pert; /* distinct shifts for equal values */
            prev = shift;
            if (rank[j] < (double)first) { /* not wanted (within a block, ranks ascend) */
                win = j + 1;
                continue;
            }
            while (lam[j] - lam[win] > ortol) win++;
            F(td_lu)(d + b0, e + b0, L, shift, tiny, u0, u1, u2, lm, sw);
            for (int64_t i = 0; i < L; i++) {
                seed = seed * 6364136223846793005u + 1442695040888963407u;
                y[i] = (double)(seed >> 11) * (2.0 / 9007199254740992.0) - 1;
            }
            for (int it = 0; it < 2; it++) {
                F(td_solve)(L, u0, u1, u2, lm, sw, y);
                F(td_normalise)(y, L);
                for (int pass = 0; pass < (j > win ? 2 : 0); pass++)
                    for (int64_t o = win; o < j; o++) {
                        const T *z = F(td_row)(zt, (int64_t)rank[o] - first, n) + b0;
                        double dot = 0;
                        for (int64_t i = 0; i < L; i++) dot += (double)z[i] * y[i];
                        for (int64_t i = 0; i < L; i++) y[i] -= dot * (double)z[i];
                    }
                if (j > win) F(td_normalise)(y, L);
            }
            T *z = F(td_row)(zt, (int64_t)rank[j] - first, n) + b0;
            for (int64_t i = 0; i < L; i++) z[i] = (T)y[i];
        }
        b0 = b1;
    }
    return first;
}

/* Step 3, for every reflector product of this family: z (M × nc, row
 * stride ldz, row-major over coordinates 0..M-1) becomes H_0 ⋯ H_{cnt-1} z,
 * where H_k = I - taus[k] u_k u_kᵀ has u_k[k + off] = 1, zeros before, and
 * u_k[k + off + i] = vb[k·step + i·stride] for i >= 1 up to coordinate
 * M-1. Blocks of TD_NB reflectors, last first, each as I - Y Tt Yᵀ:
 * three GEMMs. ys, wk, wk2: TD_NB × max(M, nc) each; tt: TD_NB². */
static void F(wy_apply)(T *z, int64_t M, int64_t nc, int64_t ldz, int64_t cnt, int64_t off, const T *vb,
                        int64_t step, int64_t stride, const T *taus, T *ys, T *wk, T *wk2, T *tt) {
    if (cnt <= 0) return;
    for (int64_t k0 = (cnt - 1) / TD_NB * TD_NB; k0 >= 0; k0 -= TD_NB) {
        int64_t nb = cnt - k0 < TD_NB ? cnt - k0 : TD_NB, s = k0 + off, L = M - s;
        for (int64_t c = 0; c < nb; c++) { /* Y's columns as rows over coordinates s.. */
            T *yr = ys + c * L;
            const T *v = vb + (k0 + c) * step;
            for (int64_t i = 0; i < c && i < L; i++) yr[i] = 0;
            if (c < L) yr[c] = 1;
            for (int64_t i = c + 1; i < L; i++) yr[i] = v[(i - c) * stride];
        }
        /* Tt (upper): Tt[i][i] = tau_i, Tt[0..i)[i] = -tau_i Tt[0..i)[0..i) (Yᵀ y_i) */
        for (int64_t i = 0; i < nb; i++) {
            T ti = taus[k0 + i], *col = wk; /* wk as scratch: Yᵀ y_i */
            for (int64_t j = 0; j < i; j++) col[j] = i < L ? F(td_dot)(ys + j * L + i, ys + i * L + i, L - i) : 0;
            for (int64_t r = 0; r < i; r++) {
                T acc = 0;
                for (int64_t j = r; j < i; j++) acc += tt[r * TD_NB + j] * col[j];
                tt[r * TD_NB + i] = -ti * acc;
            }
            tt[i * TD_NB + i] = ti;
            for (int64_t r = i + 1; r < nb; r++) tt[r * TD_NB + i] = 0;
        }
        /* z[s..] -= Y (Tt (Yᵀ z[s..])) */
        GEMM(nb, nc, L, ys, L, 0, z + s * ldz, ldz, 0, wk, nc, 0);
        for (int64_t i = 0; i < nb; i++)
            for (int64_t j = 0; j < nb; j++) tt[i * TD_NB + j] = -tt[i * TD_NB + j];
        GEMM(nb, nc, nb, tt, TD_NB, 0, wk, nc, 0, wk2, nc, 0);
        GEMM(L, nc, nb, ys, L, 1, wk2, nc, 0, z + s * ldz, ldz, 1);
    }
}

static void F(transpose_square)(T *v, int64_t n) {
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = i + 1; j < n; j++) {
            T t = v[i * n + j];
            v[i * n + j] = v[j * n + i];
            v[j * n + i] = t;
        }
}

#undef F
#undef CAT
#undef CAT_
