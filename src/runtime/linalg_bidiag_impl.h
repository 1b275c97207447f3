/* linalg_bidiag_impl.h — the singular value decomposition of one larger
 * matrix by bidiagonalisation, for one element type (runtime layer),
 * included by linalg_svd.c once per type after linalg_tridiag_impl.h
 * (whose tridiagonal eigensolver and WY back-transformation it reuses).
 * linalg_svd_impl.h's svd_one calls F(svd_bidiag) above Jacobi's range.
 *
 * 1. G = Q_L B Q_Rᵀ (G = a, or aᵀ when a is wide, so G is L × r with
 *    L >= r), B upper bidiagonal, by alternating Householder reflections
 *    as LAPACK's gebd2 (left ones in G's columns below the diagonal, right
 *    ones in its rows right of the superdiagonal). One pass over the
 *    trailing matrix per column: each row takes the left reflection, the
 *    right one, and adds its share of the next left reflection's product
 *    (the next column's entries are final as soon as their row is).
 *    Above 64 columns, panels of 32 first (linalg_bidiag_blocked_impl.h:
 *    gebrd's scheme, the trailing matrix updated by GEMM), this loop for
 *    the rest.
 * 2. B's singular values alone (no vectors wanted) by dqds (F(bd_dqds)).
 *    With vectors, for f64 (BD_GK 0) implicit QR on B with the rotations
 *    accumulated (F(bdqr), linalg_svd_qr_impl.h): the usual eps·‖A‖/gap
 *    accuracy at any condition number. For f32 (BD_GK 1) the faster
 *    route, measured 3x at n = 1024: the vectors from the eigenpairs of
 *    B's Golub–Kahan matrix, the 2r × 2r tridiagonal with zero diagonal
 *    and off-diagonal (d_0, e_0, d_1, e_1, ...): its eigenvalues are ±σ_i
 *    (by dqds) and the eigenvector of +σ_i interleaves (v_i, u_i)/√2, all
 *    in double.
 * 3. U = Q_L [U_B; 0], V = Q_R V_B by the WY blocks (GEMM).
 * Why the Golub–Kahan vectors suit f32 only: a +σ_i vector mixing with
 * its own -σ_i one only scales its halves (each is normalised apart);
 * mixing with another pair's -σ_j, which lies σ_i + σ_j away, would spoil
 * both halves when the two are small, so the negative eigenvalues near
 * zero get vectors too and the positive ones are orthogonalised against
 * them (td_eig's first < 0). Still, a vector is only as accurate as
 * eps_double·σ_max over its gap, which for the smallest is at most about
 * σ_min, so where eps_double·σ_max/σ_min exceeds the type's eps·r (for
 * f32, σ_min/σ_max below ~2·10⁻⁹/r; for f64 below 1/r: f64 matrices of
 * any real condition number), or a vector's two halves differ in length
 * (σ = 0 to rounding), an f32 matrix takes implicit QR too (counted by
 * rt_svd_testing_fallbacks). The vectors of implicit QR are written
 * straight into the outputs (F(bd_vectors_qr)), so that path needs no
 * r × r matrices of its own; so are a tall matrix's Golub–Kahan ones
 * (all but one +σ row kept in u and vt while td_eig works, then moved
 * to their columns in place, F(bd_gk_tall)): at n = 1024 the f32 working
 * memory is 6.4 MiB instead of 14.4. */

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define F(name) CAT(name, S)


/* A Householder reflector from x (len entries, stride st) in place:
 * x[0] := 1, the tail scaled; beta into *b; tau returned (0: H = I). The
 * tail's sum of squares is given (the caller has it). */
static T F(bd_reflector)(T *x, int64_t len, int64_t st, double sigma, double *b) {
    T alpha = x[0];
    x[0] = 1;
    if (len <= 1 || sigma == 0) {
        *b = alpha;
        return 0;
    }
    double beta = -copysign(sqrt((double)alpha * alpha + sigma), (double)alpha);
    T scale = (T)(1 / ((double)alpha - beta));
    for (int64_t i = 1; i < len; i++) x[i * st] *= scale;
    *b = beta;
    return (T)((beta - alpha) / beta);
}

/* Step 1 on g (L × r, row-major at row stride ld, L >= r >= 3), unblocked:
 * d (r), e (r-1), tauq (r), taup (r-2); reflectors stored in g. acc, wrow:
 * r elements each. linalg_bidiag_blocked_impl.h's panels leave it the
 * last columns. */
static void F(bd_reduce)(T *g, int64_t ld, int64_t L, int64_t r, double *d, double *e, T *tauq, T *taup, T *acc,
                         T *wrow) {
    /* the first column's tail: its sum of squares and Σ x_i row_i */
    double sigma = 0;
    for (int64_t c = 0; c < r; c++) acc[c] = 0;
    for (int64_t i = 1; i < L; i++) {
        const T *row = g + i * ld;
        T x = row[0];
        sigma += (double)x * x;
        for (int64_t c = 1; c < r; c++) acc[c] += x * row[c];
    }
    for (int64_t j = 0; j < r; j++) {
        T *rj = g + j * ld, alpha = rj[j];
        int64_t w = r - j - 1; /* trailing columns */
        /* left reflector of column j: tau, scale of its tail, d_j */
        T tq = 0, scale = 0;
        if (sigma != 0 && j + 1 < L) {
            double beta = -copysign(sqrt((double)alpha * alpha + sigma), (double)alpha);
            scale = (T)(1 / ((double)alpha - beta));
            tq = (T)((beta - alpha) / beta);
            d[j] = beta;
        } else {
            d[j] = alpha;
        }
        tauq[j] = tq;
        rj[j] = 1;
        if (w == 0) { /* the last column: only its tail to scale */
            for (int64_t i = j + 1; i < L; i++) g[i * ld + j] *= scale;
            break;
        }
        /* wrow = uᵀ G[j.., j+1..] = row_j + scale Σ_{i>j} x_i row_i; row j updated */
        T *rr = rj + j + 1;
        for (int64_t c = 0; c < w; c++) {
            wrow[c] = rr[c] + scale * acc[j + 1 + c];
            rr[c] -= tq * wrow[c];
        }
        /* right reflector of row j's part right of the diagonal */
        T tp = 0;
        if (w >= 2) {
            double sg = 0;
            for (int64_t c = 1; c < w; c++) sg += (double)rr[c] * rr[c];
            tp = F(bd_reflector)(rr, w, 1, sg, &e[j]);
            if (j < r - 2) taup[j] = tp;
        } else {
            e[j] = rr[0];
            rr[0] = 1;
        }
        /* the pass: rows j+1.. take both reflections and feed the next column's sums */
        sigma = 0;
        for (int64_t c = 0; c < r; c++) acc[c] = 0;
        const T *v = rr;
        for (int64_t i = j + 1; i < L; i++) {
            T *row = g + i * ld + j + 1, ui = g[i * ld + j] * scale;
            g[i * ld + j] = ui;
            if (tq != 0) {
                T k = tq * ui;
                for (int64_t c = 0; c < w; c++) row[c] -= k * wrow[c];
            }
            if (tp != 0) {
                T sdot = tp * F(td_dot)(row, v, w);
                for (int64_t c = 0; c < w; c++) row[c] -= sdot * v[c];
            }
            if (i >= j + 2) {
                T x = row[0];
                sigma += (double)x * x;
                for (int64_t c = 1; c < w; c++) acc[j + 1 + c] += x * row[c];
            }
        }
    }
}

#include "linalg_bidiag_blocked_impl.h"

/* The singular values of the bidiagonal (d, e: n, n-1 entries, none zero)
 * by dqds (Fernando and Parlett's differential qd with shifts, positive
 * case; simple shifts): q_i = d_i², z_i = e_i² hold a matrix with
 * eigenvalues σ², each transform moves them by the shift tau (summed in
 * sh) while z's bottom entry goes to zero; a negligible one (below
 * (100 eps)²·(sh + q)) deflates sh + q_bottom. The shift after a
 * successful transform is just under its smallest d (about the new
 * smallest eigenvalue), halved after a failed one (a q or d not positive:
 * the transform is discarded), zero last. Every value is as accurate
 * relative to itself as the bidiagonal's entries allow, and a sweep costs
 * one division per entry (QL on the Golub–Kahan matrix: a square root
 * and two per rotation, on twice the size). sig: n values, descending;
 * w: 4n doubles. 0 when it has not converged in 30 sweeps per value (the
 * caller then takes QL's). */
static int F(bd_dqds)(const double *d, const double *e, int64_t n, double *sig, double *w) {
    double *q = w, *z = w + n, *qn = w + 2 * n, *zn = w + 3 * n;
    for (int64_t i = 0; i < n; i++) q[i] = d[i] * d[i], z[i] = i + 1 < n ? e[i] * e[i] : 0;
    const double tol2 = (100 * DBL_EPSILON) * (100 * DBL_EPSILON);
    double sh = 0, tau = 0;
    int64_t m = n, found = 0, sweeps = 0, cap = 30 * n + 60;
    int fails = 0;
    while (m > 0) {
        if (m == 1 || z[m - 2] <= tol2 * (sh + q[m - 1])) {
            sig[found++] = sh + q[m - 1];
            m--;
            continue;
        }
        if (++sweeps > cap) return 0;
        double dd = q[0] - tau, dmin = dd;
        int ok = dd >= 0;
        for (int64_t k = 0; ok && k < m - 1; k++) {
            double qh = dd + z[k];
            if (!(qh > 0)) {
                ok = 0;
                break;
            }
            double t = q[k + 1] / qh;
            zn[k] = z[k] * t, qn[k] = qh;
            dd = dd * t - tau;
            if (!(dd >= 0)) ok = 0;
            dmin = dd < dmin ? dd : dmin;
        }
        if (!ok) { /* discard: a smaller shift */
            if (tau == 0) return 0;
            tau = ++fails >= 3 ? 0 : tau * 0.5;
            continue;
        }
        qn[m - 1] = dd;
        for (int64_t k = 0; k < m; k++) q[k] = qn[k];
        for (int64_t k = 0; k < m - 1; k++) z[k] = zn[k];
        sh += tau;
        fails = 0;
        tau = dmin * 0.999;
    }
    for (int64_t i = 0; i < n; i++) sig[i] = sqrt(sig[i] > 0 ? sig[i] : 0);
    for (int64_t i = 1; i < n; i++) { /* descending; deflation gives them nearly ascending */
        double x = sig[i];
        int64_t j = i;
        for (; j > 0 && sig[j - 1] < x; j--) sig[j] = sig[j - 1];
        sig[j] = x;
    }
    return 1;
}

/* The vectors by implicit QR (linalg_svd_qr_impl.h), kept in the outputs
 * from the start: B's left vectors (G's) in whichever output ends up with
 * G's left factor's shape or more (tall: u; wide: vt), its right ones in
 * the r × r output (tall: vt; wide: u); so the only working memory is g,
 * the WY blocks, the kept rotations and, for a wide matrix, the L × lc
 * left factor before its transpose. lz, rz, as svd_bidiag's. */
static void F(bd_vectors_qr)(int64_t m, int64_t n, int full, T *s, T *u, T *vt, const T *g, double *d, double *e,
                             const T *tauq, const T *taup, T *up, T *ys, T *wk, T *wk2, T *tt, double *dq) {
    int tall = m >= n;
    int64_t r = tall ? n : m, L = tall ? m : n, lc = full ? L : r;
    T *bu = tall ? u : vt, *bv = tall ? vt : u; /* Uᵀ_B and Vᵀ_B, r × r at stride r */
    double *rb = dq; /* the kept rotations, then the bitmap of bdqr_unstrip */
    unsigned char *seen = (unsigned char *)rb;
    int64_t *perm = (int64_t *)(rb + BDQR_DOUBLES(r));
    unsigned char *neg = (unsigned char *)(perm + r);
    if (!F(bdqr)(d, e, r, bu, bv, rb)) { /* not converged: NaN, as gesdd's info > 0 */
        for (int64_t i = 0; i < r; i++) s[i] = (T)NAN;
        for (int64_t i = 0; i < m * (full ? m : r); i++) u[i] = (T)NAN;
        for (int64_t i = 0; i < n * (full ? n : r); i++) vt[i] = (T)NAN;
        return;
    }
    /* descending |d| (stable insertion sort), the signs moved onto V */
    for (int64_t t = 0; t < r; t++) {
        double x = fabs(d[t]);
        int64_t i = t;
        for (; i > 0 && fabs(d[perm[i - 1]]) < x; i--) perm[i] = perm[i - 1];
        perm[i] = t;
    }
    for (int64_t t = 0; t < r; t++) s[t] = (T)fabs(d[perm[t]]), neg[t] = d[perm[t]] < 0;
    F(bdqr_unstrip)(bv, r, perm, neg, seen); /* rz: the vectors as columns */
    if (tall) { /* lz = u: B's left vectors as columns at stride lc, padded */
        F(bdqr_unstrip)(bu, r, perm, NULL, seen);
        for (int64_t i = r - 1; i >= 0; i--) {
            for (int64_t k = r - 1; k >= 0; k--) u[i * lc + k] = u[i * r + k]; /* i·lc >= i·r: backwards is safe */
            for (int64_t k = r; k < lc; k++) u[i * lc + k] = 0;
        }
        for (int64_t i = r * lc; i < L * lc; i++) u[i] = 0;
    } else { /* lz = up, from the rows kept in vt */
        for (int64_t i = 0; i < L * lc; i++) up[i] = 0;
        for (int64_t t = 0; t < r; t++)
            for (int64_t i = 0; i < r; i++) up[i * lc + t] = bu[F(bdqr_at)(r, perm[t], i)];
    }
    T *lz = tall ? u : up, *rz = bv;
    for (int64_t t = r; t < lc; t++) lz[t * lc + t] = 1; /* full: Q_L's remaining columns */
    F(wy_apply)(lz, L, lc, lc, r, 0, g, r + 1, r, tauq, ys, wk, wk2, tt);
    F(wy_apply)(rz, r, r, r, r - 2, 1, g + 1, r + 1, 1, taup, ys, wk, wk2, tt);
    if (tall) {
        F(transpose_square)(vt, r);
    } else {
        for (int64_t i = 0; i < lc; i++)
            for (int64_t j = 0; j < L; j++) vt[i * L + j] = up[j * lc + i];
    }
}

#ifndef BD_ZROWS
/* The Golub–Kahan vectors zt holds (of 2r long): the r of +σ and the -σ
 * within 10⁻³ σ_max of zero that td_eig orthogonalises them against; a
 * matrix with more small σ than r/8 + 8 takes implicit QR. A tall
 * matrix's +σ rows but one live in the u and vt outputs (F(bd_gk_tall)):
 * zt holds the -σ ones and, r odd, one more. */
#define BD_ZROWS(r) ((r) + (r) / 8 + 8)
#define BD_ZROWS_TALL(r) ((r) / 8 + 9)
#define BD_ZROWS_FOR(m, n, r) ((m) >= (n) ? BD_ZROWS_TALL(r) : BD_ZROWS(r))
#endif

/* A tall matrix's Golub–Kahan rows (td_eig's rows j, 2r long; nneg of
 * -σ first, then the r of +σ, ascending): rows [0, nneg + odd) in zt,
 * the next h = r/2 in u[0, 2hr), the last h in vt[0, 2hr) (u has m·lc >=
 * r² entries, vt r²). */
static F(td_rows) F(bd_gk_rows)(T *zt, T *u, T *vt, int64_t r, int64_t nneg) {
    int64_t odd = r & 1, h = r / 2;
    return (F(td_rows)){{zt, u, vt}, {0, nneg + odd, nneg + odd + h}};
}

/* The +σ rows of F(bd_gk_rows) become, scaled by iv, iu (per σ_t,
 * descending t), B's right vectors as vt's columns (vt[i·r + t] =
 * iv_t·z_t[2i]) and its left ones as the columns of u's first r² entries
 * (u[i·r + t] = iu_t·z_t[2i+1]), in place: one cycle-following
 * permutation of the 2r² entries of u[0, r²) and vt[0, r²) (slot x < r²
 * is u[x], else vt[x - r²]), the odd row first moved into the two free
 * tails u[r² - r, r²), vt[r² - r, r²). seen: 2r² bits. */
static void F(bd_gk_tall)(T *u, T *vt, const T *zodd, int64_t r, const T *iv, const T *iu, unsigned char *seen) {
    int64_t odd = r & 1, h = r / 2, rr = r * r, hr = 2 * h * r, tail = rr - r;
    if (odd)
        for (int64_t k = 0; k < r; k++) u[tail + k] = zodd[k], vt[tail + k] = zodd[r + k];
    memset(seen, 0, (size_t)((2 * rr + 7) / 8));
#define BD_SLOT(x) (*((x) < rr ? u + (x) : vt + ((x) - rr)))
    for (int64_t x0 = 0; x0 < 2 * rr; x0++) {
        if (seen[x0 >> 3] & (1 << (x0 & 7))) continue;
        int64_t x = x0;
        T carry = 0;
        int have = 0;
        for (;;) {
            /* the entry at x: row p (ascending σ), position k */
            int64_t y = x < rr ? x : x - rr, p, k;
            if (y < hr) p = y / (2 * r) + (x < rr ? 0 : h) + odd, k = y % (2 * r);
            else p = 0, k = y - tail + (x < rr ? 0 : r);
            int64_t t = r - 1 - p, i = k / 2, dest = k & 1 ? i * r + t : rr + i * r + t;
            T v = BD_SLOT(x) * (k & 1 ? iu[t] : iv[t]);
            seen[x >> 3] |= (unsigned char)(1 << (x & 7));
            if (have) BD_SLOT(x) = carry;
            carry = v, have = 1;
            if (dest == x0) {
                BD_SLOT(x0) = carry;
                break;
            }
            x = dest;
        }
    }
#undef BD_SLOT
}

/* One matrix, r = min(m, n) >= 3: 1 (always: the Jacobi fallback has
 * gone; a QR iteration that does not converge gives NaN). s descending;
 * u, vt as svd_one's (NULL: values only). work: bd_work(m, n, BD_GK)
 * elements (linalg_svd.c). */
static int F(svd_bidiag)(int64_t m, int64_t n, int full, const T *a, T *s, T *u, T *vt, T *work) {
    int tall = m >= n;
    int64_t r = tall ? n : m, L = tall ? m : n, N = 2 * r;
    T *g = work, *up = g + L * r, *wv = up + (tall ? 0 : L * L), *ys = wv + N, *wk = ys + TD_NB * L;
    T *wk2 = wk + TD_NB * L, *tt = wk2 + TD_NB * L, *tauq = tt + TD_NB * TD_NB, *taup = tauq + L, *acc = taup + L;
    T *wrow = acc + L, *zt = wrow + L;
    uintptr_t at = (uintptr_t)(zt + (BD_GK ? BD_ZROWS_FOR(m, n, r) * N : 0));
    double *dw = (double *)((at + 7) & ~(uintptr_t)7), *d = dw, *e = d + r, *td = e + r, *te = td + N;
    double *given = te + N, *dqw = given + N, *rest = dqw + 4 * r;
    if (tall)
        for (int64_t i = 0; i < m * n; i++) g[i] = a[i];
    else
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) g[j * m + i] = a[i * n + j];
    /* the WY buffers are free until step 3: the panels' X (L·nb), Y (r·nb) and scratch */
    F(bd_reduce_blocked)(g, L, r, d, e, tauq, taup, acc, wrow, ys, wk, wk2);
    if (u && !BD_GK) {
        F(bd_vectors_qr)(m, n, full, s, u, vt, g, d, e, tauq, taup, up, ys, wk, wk2, tt, td);
        return 1;
    }
    for (int64_t i = 0; i < N; i++) td[i] = 0;
    for (int64_t i = 0; i < r; i++) {
        te[2 * i] = d[i];
        if (i + 1 < r) te[2 * i + 1] = e[i];
    }
    /* the eigenvalues ±σ by dqds when B has no zero entry (its Golub–Kahan
     * matrix is then one unreduced block), else QL's inside td_eig */
    int unreduced = 1;
    for (int64_t i = 0; i < N - 1; i++) unreduced &= te[i] != 0;
    const double *gv = NULL;
    if (unreduced && F(bd_dqds)(d, e, r, given + r, dqw)) {
        for (int64_t i = 0; i < r; i++) given[i] = -given[r + i]; /* -σ_max .. -σ_min */
        for (int64_t i = 0; i < r / 2; i++) { /* σ_min .. σ_max */
            double t = given[r + i];
            given[r + i] = given[N - 1 - i];
            given[N - 1 - i] = t;
        }
        gv = given;
    }
    /* the values first: how many vectors td_eig would want (the +σ and
     * the -σ near zero), which zt holds up to BD_ZROWS */
    int64_t first = F(td_eig)(N, td, te, wv, -1, NULL, rest, gv);
    for (int64_t t = 0; t < r; t++) s[t] = wv[N - 1 - t] > 0 ? wv[N - 1 - t] : 0;
    if (!u) return 1;
    /* The Golub–Kahan vectors (f32 only): where they would not separate
     * (see the top), or too many σ lie near zero, implicit QR on the
     * same B instead */
    int ok = s[0] > 0 && !(DBL_EPSILON * (double)s[0] > (double)s[r - 1] * EPS * (double)r) && N - first <= BD_ZROWS(r);
    F(td_rows) zr = tall ? F(bd_gk_rows)(zt, u, vt, r, r - first) : F(td_rows_one)(zt);
    if (ok) first = F(td_eig)(N, td, te, wv, -1, &zr, rest, gv);
    for (int64_t t = 0; ok && t < r; t++) { /* each vector's halves must be of equal length */
        const T *z = F(td_row)(&zr, N - 1 - t - first, N);
        double nv = 0, nu = 0;
        for (int64_t i = 0; i < r; i++) nv += (double)z[2 * i] * z[2 * i], nu += (double)z[2 * i + 1] * z[2 * i + 1];
        if (fabs(nv - 0.5) > 0.05 || fabs(nu - 0.5) > 0.05) ok = 0;
    }
    if (!ok) {
        count_fallback();
        F(bd_vectors_qr)(m, n, full, s, u, vt, g, d, e, tauq, taup, up, ys, wk, wk2, tt, td);
        return 1;
    }
    /* B's vectors (normalised halves) into the matrices to transform:
     * the left ones (length L after padding) into lz, the right ones (r)
     * into rz, as columns */
    int64_t lc = full ? L : r; /* columns of the left factor */
    T *lz = tall ? u : up, *rz = tall ? vt : u;
    if (tall) { /* in place from the outputs (F(bd_gk_tall)), then u spread to stride lc */
        T *iv = wv, *iu = wv + r; /* wv is free: s has the values */
        for (int64_t t = 0; t < r; t++) {
            const T *z = F(td_row)(&zr, N - 1 - t - first, N);
            double nv = 0, nu = 0;
            for (int64_t i = 0; i < r; i++) nv += (double)z[2 * i] * z[2 * i], nu += (double)z[2 * i + 1] * z[2 * i + 1];
            iv[t] = (T)(1 / sqrt(nv)), iu[t] = (T)(1 / sqrt(nu));
        }
        F(bd_gk_tall)(u, vt, F(td_row)(&zr, N - first - r, N), r, iv, iu, (unsigned char *)td);
        for (int64_t i = r - 1; i >= 0 && lc > r; i--) {
            for (int64_t k = r - 1; k >= 0; k--) u[i * lc + k] = u[i * r + k]; /* i·lc >= i·r: backwards is safe */
            for (int64_t k = r; k < lc; k++) u[i * lc + k] = 0;
        }
        for (int64_t i = r * lc; i < L * lc; i++) u[i] = 0;
    } else {
        for (int64_t i = 0; i < L * lc; i++) lz[i] = 0;
        for (int64_t t = 0; t < r; t++) {
            const T *z = F(td_row)(&zr, N - 1 - t - first, N);
            double nv = 0, nu = 0;
            for (int64_t i = 0; i < r; i++) nv += (double)z[2 * i] * z[2 * i], nu += (double)z[2 * i + 1] * z[2 * i + 1];
            T iv = (T)(1 / sqrt(nv)), iu = (T)(1 / sqrt(nu));
            for (int64_t i = 0; i < r; i++) lz[i * lc + t] = z[2 * i + 1] * iu, rz[i * r + t] = z[2 * i] * iv;
        }
    }
    for (int64_t t = r; t < lc; t++) lz[t * lc + t] = 1; /* full: Q_L's remaining columns */
    /* left reflector j: unit at coordinate j, tail down column j */
    F(wy_apply)(lz, L, lc, lc, r, 0, g, r + 1, r, tauq, ys, wk, wk2, tt);
    /* right reflector j: unit at coordinate j+1, tail along row j */
    F(wy_apply)(rz, r, r, r, r - 2, 1, g + 1, r + 1, 1, taup, ys, wk, wk2, tt);
    if (tall) {
        F(transpose_square)(vt, r); /* vt = Vᵀ */
    } else { /* a = (G)ᵀ = V' Σ U'ᵀ: u = V' (in place already), vt = U'ᵀ */
        for (int64_t i = 0; i < lc; i++)
            for (int64_t j = 0; j < L; j++) vt[i * L + j] = up[j * lc + i];
    }
    return 1;
}

#undef F
#undef CAT
#undef CAT_
