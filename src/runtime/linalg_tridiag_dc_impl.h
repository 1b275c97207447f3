/* linalg_tridiag_dc_impl.h — the eigenvalues and eigenvectors of a
 * symmetric tridiagonal matrix by divide and conquer, for one element type
 * (runtime layer), included by linalg_eigh.c once per type after
 * linalg_tridiag_impl.h with T, S, EPS and GEMM defined. F(eigh_tridiag)
 * (linalg_eigh_impl.h) takes it for step 2 above rt_eigh_dc_min() instead
 * of QL + inverse iteration; the back-transformation is unchanged.
 *
 * Cuppen's method as LAPACK's stedc / laed0..laed4 organise it (the facts,
 * not the code):
 * - Tear: T = diag(T1, T2) + ρ v vᵀ with ρ = |e_m|, v = e_m + sign(e_m)
 *   e_{m+1} (T1's last and T2's first diagonal entries lose ρ); solve both
 *   halves recursively, blocks of at most DC_LEAF by implicit QL with the
 *   rotations accumulated (in double).
 * - Merge: with T_i = Q_i D_i Q_iᵀ, T = Q (D + ρ z zᵀ) Qᵀ, z = (Q1's last
 *   row, sign·Q2's first row), normalised (ρ takes ‖z‖²).
 * - Deflate (laed2): a z_j with ρ|z_j| <= tol leaves (d_j, q_j) an
 *   eigenpair as it is; two d close enough that the Givens rotation
 *   zeroing one z moves the matrix by at most tol are rotated together
 *   (the rotation applied to their columns of Q) and one leaves. tol =
 *   8·eps·max(|d|, ρ) with eps the type's: a backward error of the order
 *   the result is rounded to anyway.
 * - The k roots left, of the secular equation 1 + ρ Σ z_j²/(d_j - λ) = 0
 *   (one in each (d_i, d_i+1) and one in (d_k-1, d_k-1 + ρ‖z‖²)), each
 *   relative to the nearer pole (its origin; the distances d_j - λ are
 *   then (d_j - d_origin) - τ, exact to rounding of τ alone, as laed4
 *   keeps them), by the "middle way" of R.-C. Li that laed4 uses: the
 *   secular function approximated by c + s_a/(d_a - λ) + s_b/(d_b - λ)
 *   around the two poles bracketing the root (s matched to the
 *   derivatives of the sums left and right of it), whose root is a
 *   quadratic's; a bracket kept from the signs, bisection when a step
 *   would leave it; laed4's stopping test |f| <= eps·(8(φ - ψ) + 2/ρ +
 *   3|τ|·f').
 * - Gu and Eisenstat's recomputed z: ẑ_j² = Π_i (λ_i - d_j) / (ρ Π_{i≠j}
 *   (d_i - d_j)), the vector z for which the computed λ are exact; the
 *   eigenvectors ẑ / (d - λ_i), normalised, are then orthogonal to working
 *   accuracy however close the λ lie (the plain z would not give that).
 * - The merged vectors Q · U by GEMM in T, two products: the columns of Q
 *   that live in T1's rows only, in both (after a deflation rotation mixed
 *   them), in T2's rows only are grouped so that the zero blocks are not
 *   multiplied (laed2's column types, laed3's two products).
 * Everything scalar is in double (d, e come in double), the vectors in T.
 * An f32 eigh thus runs its O(n³) merges in f32 GEMM and its O(n²) secular
 * work in double. */

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define F(name) CAT(name, S)

#ifndef DC_LEAF
#define DC_LEAF 24 /* blocks up to this size by QL with vectors (n = 256 f32, one thread, loaded: 16, 24, 32 measured 5.1, 4.9, 7.2 ms) */
/* F(td_dc)'s working memory: 2n² elements of T, and DC_DOUBLES(n) doubles. */
#define DC_DOUBLES(n) (16 * (n) + DC_LEAF * DC_LEAF + 3 * DC_LEAF + 64)
/* In elements of T of either type (doubles counted twice), aligned for doubles. */
#define DC_WORK(n) (2 * (n) * (n) + 2 * DC_DOUBLES(n) + 8)

/* Stable index sort of x[0..n) ascending (bottom-up merge sort): idx gets
 * the order, tmp is n scratch. */
static void dc_argsort(const double *x, int64_t n, int64_t *idx, int64_t *tmp) {
    for (int64_t i = 0; i < n; i++) idx[i] = i;
    for (int64_t w = 1; w < n; w *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * w) {
            int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n, a = lo, b = mid, o = lo;
            while (a < mid && b < hi) tmp[o++] = x[idx[b]] < x[idx[a]] ? idx[b++] : idx[a++];
            while (a < mid) tmp[o++] = idx[a++];
            while (b < hi) tmp[o++] = idx[b++];
        }
        for (int64_t i = 0; i < n; i++) idx[i] = tmp[i];
    }
}

/* A leaf: the L×L unreduced-or-not tridiagonal (d: L, e: L-1, both
 * destroyed; e needs L) → eigenvalues in d (unsorted) and the eigenvectors
 * as the rows of z (L × L), by td_ql's implicit QL with each rotation
 * applied to two of z's rows (tql2's, transposed). 0 when an eigenvalue took more
 * than 60 iterations. */
static int dc_ql_vectors(double *d, double *e, int64_t L, double *z) { /* z holds Zᵀ here: each rotation two contiguous rows */
    for (int64_t i = 0; i < L * L; i++) z[i] = i / L == i % L;
    e[L - 1] = 0;
    for (int64_t l = 0; l < L; l++) {
        int iter = 0;
        for (;;) {
            int64_t m = l;
            for (; m < L - 1; m++)
                if (fabs(e[m]) <= DBL_EPSILON * (fabs(d[m]) + fabs(d[m + 1]))) break;
            if (m == l) break;
            if (iter++ == 60) return 0;
            double g = (d[l + 1] - d[l]) / (2 * e[l]), r = hypot(g, 1); /* g may be huge */
            g = d[m] - d[l] + e[l] / (g + copysign(r, g));
            double s = 1, c = 1, p = 0;
            int64_t i = m - 1;
            for (; i >= l; i--) {
                double f = s * e[i], b = c * e[i];
                e[i + 1] = r = sqrt(f * f + g * g); /* no hypot: the matrix is scaled to norm 1 */
                if (r == 0) {
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
                double *zi = z + i * L, *zj = zi + L;
                for (int64_t k = 0; k < L; k++) {
                    double zf = zj[k];
                    zj[k] = s * zi[k] + c * zf;
                    zi[k] = c * zi[k] - s * zf;
                }
            }
            if (r == 0 && i >= l) continue;
            d[l] -= p;
            e[l] = g;
            e[m] = 0;
        }
    }
    return 1;
}

/* Σ z_j²/(dd_j - t) and Σ (z_j/(dd_j - t))² over [j0, j1): the secular
 * solver's whole cost, so in two-lane vectors (the baseline's SSE2: the
 * divisions two at a time), two of each to overlap the additions. */
static void dc_sums(const double *z, const double *dd, double t, int64_t j0, int64_t j1, double *sum, double *dsum) {
    double s = 0, ds = 0;
    int64_t j = j0;
#if defined(__GNUC__)
    typedef double v2 __attribute__((vector_size(16)));
    v2 s0 = {0, 0}, s1 = {0, 0}, d0 = {0, 0}, d1 = {0, 0}, tv = {t, t};
    for (; j + 4 <= j1; j += 4) {
        v2 za, zb, da, db;
        memcpy(&za, z + j, 16), memcpy(&zb, z + j + 2, 16), memcpy(&da, dd + j, 16), memcpy(&db, dd + j + 2, 16);
        v2 qa = za / (da - tv), qb = zb / (db - tv);
        s0 += za * qa, s1 += zb * qb, d0 += qa * qa, d1 += qb * qb;
    }
    s = (s0[0] + s1[0]) + (s0[1] + s1[1]), ds = (d0[0] + d1[0]) + (d0[1] + d1[1]);
#endif
    for (; j < j1; j++) {
        double q = z[j] / (dd[j] - t);
        s += z[j] * q, ds += q * q;
    }
    *sum = s, *dsum = ds;
}

/* The step of the model c + sa/(da - η) + sb/(db - η) = 0 (a quadratic in
 * η) that keeps t + η inside (lo, hi) (or at hi when closed_hi), the one
 * nearer t if both do; the bracket's midpoint when neither does. */
static double dc_model_step(double c, double sa, double da, double sb, double db, double t, double lo, double hi,
                            int closed_hi) {
    double A = c, B = -(c * (da + db) + sa + sb), C = c * da * db + sa * db + sb * da, r1 = NAN, r2 = NAN;
    if (A == 0) {
        if (B != 0) r1 = -C / B;
    } else {
        double disc = B * B - 4 * A * C, sq = sqrt(disc > 0 ? disc : 0), q = -0.5 * (B + copysign(sq, B));
        r1 = q / A;
        if (q != 0) r2 = C / q;
    }
    double c1 = t + r1, c2 = t + r2;
    int ok1 = c1 > lo && (c1 < hi || (closed_hi && c1 <= hi)), ok2 = c2 > lo && (c2 < hi || (closed_hi && c2 <= hi));
    if (ok1 && ok2) return fabs(r1) < fabs(r2) ? c1 : c2;
    if (ok1) return c1;
    if (ok2) return c2;
    return 0.5 * (lo + hi);
}

/* Root i (0-based, ascending) of 1/ρ + Σ_j z_j²/(d_j - λ) = 0, d (k,
 * strictly ascending), z (k, none zero): λ = d[*orig] + *tau. dd: k
 * scratch (d_j - d_origin). */
static void dc_secular(int64_t k, const double *d, const double *z, double rho, int64_t i, int64_t *orig,
                       double *tau, double *dd) {
    double rhoinv = 1 / rho;
    if (k == 1) {
        *orig = 0, *tau = rho * z[0] * z[0];
        return;
    }
    int64_t o, a, b;
    double lo, hi, f = rhoinv, x; /* x: the point f is taken at, from d_i */
    if (i < k - 1) { /* (d_i, d_i+1): which half, from the sign at the midpoint */
        x = (d[i + 1] - d[i]) / 2;
        for (int64_t j = 0; j < k; j++) dd[j] = d[j] - d[i];
        double sm, unused;
        dc_sums(z, dd, x, 0, k, &sm, &unused);
        f += sm;
        if (f > 0) o = i, lo = 0, hi = x;
        else o = i + 1, lo = -x, hi = 0;
        a = i, b = i + 1;
    } else { /* beyond the last pole, within ρ‖z‖² of it */
        double zz = 0;
        for (int64_t j = 0; j < k; j++) zz += z[j] * z[j];
        o = k - 1, lo = 0, hi = rho * zz, a = k - 2, b = k - 1, x = hi / 2;
        for (int64_t j = 0; j < k; j++) dd[j] = d[j] - d[i];
        double sm, unused;
        dc_sums(z, dd, x, 0, k, &sm, &unused);
        f += sm;
    }
    if (o != i)
        for (int64_t j = 0; j < k; j++) dd[j] = d[j] - d[o];
    int closed_hi = i == k - 1; /* the last root may be at hi itself */
    /* the start: the two poles' terms exact, the others' sum frozen at x (laed4's) */
    double xo = x + (d[i] - d[o]), ea = dd[a] - xo, eb = dd[b] - xo;
    double c0 = f - z[a] * z[a] / ea - z[b] * z[b] / eb;
    double t = dc_model_step(c0, z[a] * z[a], dd[a], z[b] * z[b], dd[b], 0, lo, hi, closed_hi);
    for (int iter = 0; iter < 200; iter++) {
        double psi, dpsi, phi, dphi;
        dc_sums(z, dd, t, 0, a + 1, &psi, &dpsi);
        dc_sums(z, dd, t, b, k, &phi, &dphi);
        double w = rhoinv + psi + phi, err = 8 * (phi - psi) + 2 * rhoinv + 3 * fabs(t) * (dpsi + dphi);
        if (fabs(w) <= DBL_EPSILON * err) break;
        if (w > 0) hi = t, closed_hi = 0;
        else lo = t;
        /* the middle way: each side's sum as one pole with its derivative */
        double da = dd[a] - t, db = dd[b] - t, sa = da * da * dpsi, sb = db * db * dphi;
        double tn = dc_model_step(w - sa / da - sb / db, sa, da, sb, db, t, lo, hi, closed_hi);
        if (tn == t) break;
        t = tn;
        if (hi - lo <= 2 * DBL_EPSILON * fmax(fabs(lo), fabs(hi))) break; /* bracket at rounding */
    }
    *orig = o, *tau = t;
}
#endif

/* Merge one torn block of L = m1 + m2 rows (q: L × L at stride ldq, Q1 in
 * its top-left m1 × m1, Q2 bottom-right, zeros elsewhere; d: the halves'
 * eigenvalues in the order of q's columns; rho_e: the off-diagonal torn
 * out). On return q's columns are the block's eigenvectors and d their
 * eigenvalues (not sorted: the new ones first, ascending, then the
 * deflated ones). A, B: L² elements of T each; dw: 16L doubles. */
static void F(dc_merge)(int64_t L, int64_t m1, double *d, double rho_e, T *q, int64_t ldq, T *A, T *B, double *dw) {
    int64_t m2 = L - m1;
    double *zv = dw, *dl = zv + L, *zz = dl + L, *tau = zz + L, *lam = tau + L, *zh = lam + L, *uc = zh + L;
    double *dn = uc + L, *scr = dn + L;
    int64_t *idx = (int64_t *)(scr + L), *typ = idx + L, *nd = typ + L, *df = nd + L, *orig = df + L, *grp = orig + L;
    double sg = rho_e < 0 ? -1 : 1, rho = fabs(rho_e), nrm = 0;
    for (int64_t j = 0; j < m1; j++) zv[j] = (double)q[(m1 - 1) * ldq + j];
    for (int64_t j = 0; j < m2; j++) zv[m1 + j] = sg * (double)q[m1 * ldq + m1 + j];
    for (int64_t j = 0; j < L; j++) nrm += zv[j] * zv[j], typ[j] = j < m1 ? 1 : 3;
    nrm = sqrt(nrm);
    for (int64_t j = 0; j < L; j++) zv[j] /= nrm;
    rho *= nrm * nrm;
    dc_argsort(d, L, idx, grp);
    double dmax = 0;
    for (int64_t j = 0; j < L; j++) dmax = fmax(dmax, fabs(d[j]));
    double tol = 8 * (double)EPS * fmax(dmax, rho);
    /* deflation, in ascending order of d */
    int64_t k = 0, ndf = 0, pj = -1;
    for (int64_t p = 0; p < L; p++) {
        int64_t c = idx[p];
        if (rho * fabs(zv[c]) <= tol) { /* z_c negligible: (d_c, q_c) stands */
            df[ndf++] = c;
            continue;
        }
        if (pj < 0) {
            pj = c;
            continue;
        }
        double s = zv[pj], cc = zv[c], h = hypot(cc, s), t = d[c] - d[pj];
        cc /= h, s = -s / h;
        if (fabs(t * cc * s) <= tol) { /* rotate (pj, c) so that z_pj = 0: pj deflates */
            zv[c] = h, zv[pj] = 0;
            for (int64_t r = 0; r < L; r++) {
                T *row = q + r * ldq;
                T x = row[pj], y = row[c];
                row[pj] = (T)(cc * x + s * y);
                row[c] = (T)(cc * y - s * x);
            }
            if (typ[pj] != typ[c]) typ[pj] = typ[c] = 2;
            double tp = d[pj] * cc * cc + d[c] * s * s;
            d[c] = d[pj] * s * s + d[c] * cc * cc;
            d[pj] = tp;
            df[ndf++] = pj;
            pj = c;
        } else {
            nd[k++] = pj;
            pj = c;
        }
    }
    if (pj >= 0) nd[k++] = pj;
    if (k == 0) return; /* every pair stands: q and d already agree */
    for (int64_t i = 0; i < k; i++) dl[i] = d[nd[i]], zz[i] = zv[nd[i]];
    for (int64_t t = 0; t < ndf; t++) dn[t] = d[df[t]];
    for (int64_t i = 0; i < k; i++) {
        dc_secular(k, dl, zz, rho, i, &orig[i], &tau[i], scr);
        lam[i] = dl[orig[i]] + tau[i];
    }
    /* Gu–Eisenstat: the z for which the λ are exact, ẑ_j² = Π_i (λ_i - d_j)
     * / (ρ Π_{i≠j} (d_i - d_j)), paired factor by factor (no overflow), a
     * root at a time so that the inner loop runs along j */
    for (int64_t j = 0; j < k; j++) zh[j] = -((dl[j] - dl[orig[j]]) - tau[j]);
    for (int64_t i = 0; i < k; i++) {
        double di = dl[orig[i]], ti = tau[i], li = dl[i];
        for (int64_t j = 0; j < i; j++) zh[j] *= ((dl[j] - di) - ti) / (dl[j] - li);
        for (int64_t j = i + 1; j < k; j++) zh[j] *= ((dl[j] - di) - ti) / (dl[j] - li);
    }
    for (int64_t j = 0; j < k; j++) zh[j] = copysign(sqrt(fabs(zh[j]) / rho), zz[j]);
    /* the column groups: T1's rows only, both, T2's only */
    int64_t k1 = 0, k2 = 0, g = 0;
    for (int ty = 1; ty <= 3; ty++)
        for (int64_t j = 0; j < k; j++)
            if (typ[nd[j]] == ty) grp[g++] = j, k1 += ty == 1, k2 += ty == 2;
    /* Uᵀ (k × k: row i the vector of λ_i, its entries in group order) and
     * Q's columns gathered in that order */
    for (int64_t j = 0; j < k; j++) scr[j] = zh[grp[j]], dn[ndf + j] = dl[grp[j]];
    const double *zg = scr, *dg = dn + ndf;
    for (int64_t i = 0; i < k; i++) {
        double di = dl[orig[i]], ti = tau[i], ss, unused;
        for (int64_t j = 0; j < k; j++) uc[j] = (dg[j] - di) - ti;
        dc_sums(zg, uc, 0, 0, k, &unused, &ss); /* ‖ẑ / δ‖², then the vector */
        for (int64_t j = 0; j < k; j++) uc[j] = zg[j] / uc[j];
        T inv = (T)(1 / sqrt(ss)), *ur = B + i * k;
        for (int64_t j = 0; j < k; j++) ur[j] = (T)uc[j] * inv;
    }
    T *dq = A + L * k;
    for (int64_t r = 0; r < L; r++) {
        const T *row = q + r * ldq;
        for (int64_t c = 0; c < k; c++) A[r * k + c] = row[nd[grp[c]]];
        for (int64_t t = 0; t < ndf; t++) dq[r * ndf + t] = row[df[t]];
    }
    GEMM(m1, k, k1 + k2, A, k, 0, B, k, 1, q, ldq, 0);
    GEMM(m2, k, k - k1, A + m1 * k + k1, k, 0, B + k1, k, 1, q + m1 * ldq, ldq, 0);
    for (int64_t r = 0; r < L; r++)
        for (int64_t t = 0; t < ndf; t++) q[r * ldq + k + t] = dq[r * ndf + t];
    for (int64_t i = 0; i < k; i++) d[i] = lam[i];
    for (int64_t t = 0; t < ndf; t++) d[k + t] = dn[t];
}

/* The block of L rows at d, e (e[L-1] is the coupling beyond the block,
 * left alone), q its L × L block at stride ldq (zero on entry). 0 when a
 * leaf's QL failed. */
static int F(dc_rec)(int64_t L, double *d, double *e, T *q, int64_t ldq, T *A, T *B, double *dw) {
    if (L <= DC_LEAF) {
        double *ld = dw, *le = ld + DC_LEAF, *z = le + DC_LEAF;
        for (int64_t i = 0; i < L; i++) ld[i] = d[i], le[i] = i + 1 < L ? e[i] : 0;
        if (!dc_ql_vectors(ld, le, L, z)) return 0;
        for (int64_t i = 0; i < L; i++) d[i] = ld[i];
        for (int64_t r = 0; r < L; r++)
            for (int64_t c = 0; c < L; c++) q[r * ldq + c] = (T)z[c * L + r];
        return 1;
    }
    int64_t m1 = L / 2;
    double rho_e = e[m1 - 1];
    d[m1 - 1] -= fabs(rho_e);
    d[m1] -= fabs(rho_e);
    if (!F(dc_rec)(m1, d, e, q, ldq, A, B, dw)) return 0;
    if (!F(dc_rec)(L - m1, d + m1, e + m1, q + m1 * ldq + m1, ldq, A, B, dw)) return 0;
    F(dc_merge)(L, m1, d, rho_e, q, ldq, A, B, dw);
    return 1;
}

/* Step 2 by divide and conquer: the tridiagonal (d, e: n, n-1; destroyed)
 * → w (ascending) and z (n × n, row-major, column j the unit eigenvector
 * of w[j]). tw: 2n² elements of T; dw: DC_DOUBLES(n). 0 when a leaf's QL
 * did not converge (z, w then undefined; the caller gives NaN). */
static int F(td_dc)(int64_t n, double *d, double *e, T *z, T *w, T *tw, double *dw) {
    T *A = tw, *B = tw + n * n;
    for (int64_t i = 0; i < n * n; i++) z[i] = 0;
    double scale = 0;
    for (int64_t i = 0; i < n; i++) scale = fmax(scale, fmax(fabs(d[i]), i + 1 < n ? fabs(e[i]) : 0));
    if (scale == 0) {
        for (int64_t i = 0; i < n; i++) z[i * n + i] = 1, w[i] = 0;
        return 1;
    }
    for (int64_t i = 0; i < n; i++) d[i] /= scale, e[i] = i + 1 < n ? e[i] / scale : 0;
    /* unreduced blocks apart (stedc's split) */
    for (int64_t b0 = 0; b0 < n;) {
        int64_t b1 = b0 + 1;
        while (b1 < n && fabs(e[b1 - 1]) > DBL_EPSILON * (fabs(d[b1 - 1]) + fabs(d[b1]))) b1++;
        if (!F(dc_rec)(b1 - b0, d + b0, e + b0, z + b0 * n + b0, n, A, B, dw)) return 0;
        b0 = b1;
    }
    /* ascending, the columns with them */
    int64_t *idx = (int64_t *)dw, *tmp = idx + n;
    dc_argsort(d, n, idx, tmp);
    for (int64_t i = 0; i < n * n; i++) A[i] = z[i];
    for (int64_t r = 0; r < n; r++)
        for (int64_t c = 0; c < n; c++) z[r * n + c] = A[r * n + idx[c]];
    for (int64_t i = 0; i < n; i++) w[i] = (T)(d[idx[i]] * scale);
    return 1;
}

#undef F
#undef CAT
#undef CAT_
