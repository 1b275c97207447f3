/* linalg_bidiag_blocked_impl.h — the blocked bidiagonalisation of one
 * matrix, for one element type (runtime layer), included by
 * linalg_bidiag_impl.h after its unblocked F(bd_reduce), which takes the
 * last columns; F(svd_bidiag) calls F(bd_reduce_blocked) for step 1.
 *
 * The scheme is LAPACK's gebrd/labrd: a panel of b columns is reduced
 * without touching the trailing matrix, whose current value is kept as
 *     Ã = A - U Yᵀ - X Vᵀ
 * (U: the panel's left reflectors, stored in its columns; V: the right
 * ones, stored in its rows; Y, X accumulated alongside), and the trailing
 * matrix then takes the whole panel's reflections in two GEMMs of depth b
 * (half the reduction's flops, at GEMM's rate instead of memory's).
 * Unlike labrd, which reads the trailing matrix twice per column (Ãᵀu for
 * Y, Ã v for X), one read-only pass over its rows serves both: row k's
 * dot with v_i gives X[k][i], which completes row k's entry of the next
 * column (that column is then right in place), and that entry times the
 * row is the next column's Ãᵀu share, the row still in L1. Rows are
 * contiguous (row-major), so both halves of the pass are unit stride;
 * the corrections for U, X, Y, V are dots of length <= b. Same
 * reflectors (beta = -sign(alpha)·‖x‖, as gebd2) as F(bd_reduce). F is
 * the includer's. */

#ifndef BD_NX
#define BD_NX 32 /* panels while more than nb + BD_NX columns are left: the last ones unblocked */
#endif

/* One panel: a (M × N at row stride ld, M >= N, N >= b + 2) has its first
 * b columns and rows reduced; d, e, tauq, taup (b each) as bd_reduce's;
 * a's rows/columns >= b take the panel's reflections. X: M × b, Y: N × b
 * (row stride b), acc: N, sm: 2M + 4N + 12b elements. */
static void F(bd_panel)(T *a, int64_t ld, int64_t M, int64_t N, int64_t b, double *d, double *e, T *tauq, T *taup,
                        T *X, T *Y, T *acc, T *sm) {
    T *corr = sm, *P = corr + 2 * M, *Q = P + 2 * N, *su = Q + 2 * N, *sx = su + b, *t1 = sx + b, *t2 = t1 + b;
    T *S2 = t2 + b, *B2 = S2 + 2 * b, *B3 = B2 + 2 * b, *B4 = B3 + 2 * b;
    for (int64_t i = 0; i < M * b; i++) X[i] = 0;
    for (int64_t i = 0; i < N * b; i++) Y[i] = 0;
    /* column 0 is current: its tail's sum of squares and Σ a_k0 row_k */
    double sigma = 0;
    for (int64_t c = 0; c < N; c++) acc[c] = 0;
    for (int64_t k = 1; k < M; k++) {
        const T *rk = a + k * ld;
        T x = rk[0];
        sigma += (double)x * x;
        for (int64_t c = 1; c < N; c++) acc[c] += x * rk[c];
    }
    for (int64_t i = 0; i < b; i++) {
        T *ri = a + i * ld, alpha = ri[i];
        int64_t w = N - i - 1; /* >= 2: the panel never reaches the last columns */
        /* left reflector of column i (its entries current, from the last pass) */
        T tq = 0, scale = 0;
        if (sigma != 0) {
            double beta = -copysign(sqrt((double)alpha * alpha + sigma), (double)alpha);
            scale = (T)(1 / ((double)alpha - beta));
            tq = (T)((beta - alpha) / beta);
            d[i] = beta;
        } else {
            d[i] = alpha;
        }
        tauq[i] = tq;
        ri[i] = 1;
        for (int64_t k = i + 1; k < M; k++) a[k * ld + i] *= scale;
        /* Y[c][i] = tq·(Ãᵀu)_c for c > i, Ãᵀu = Aᵀu - Y (Uᵀu) - Vᵀ (Xᵀu),
         * Uᵀu and Xᵀu being row i's plus scale times the last pass's sums
         * (su, sx); and row i, final now: Ã's row i less u_i's share
         * (U[i][i] = 1). P = [Xᵀu; X[i]] V, Q = Y [Uᵀu, U[i]ᵀ]. */
        for (int64_t j = 0; j < i; j++) {
            S2[j] = X[i * b + j] + scale * sx[j], S2[b + j] = X[i * b + j];
            B2[2 * j] = ri[j] + scale * su[j], B2[2 * j + 1] = ri[j];
        }
        GEMM(2, w, i, S2, b, 0, ri - i * ld + i + 1, ld, 0, P, w, 0);
        GEMM(w, 2, i, Y + (i + 1) * b, b, 0, B2, 2, 0, Q, 2, 0);
        T *rr = ri + i + 1;
        for (int64_t c = 0; c < w; c++) {
            T yc = tq * (rr[c] + scale * acc[i + 1 + c] - P[c] - Q[2 * c]);
            Y[(i + 1 + c) * b + i] = yc;
            rr[c] = rr[c] - Q[2 * c + 1] - yc - P[w + c];
        }
        /* right reflector of row i right of the diagonal: v = rr, v[0] = 1 */
        const T *v = rr;
        double sg = 0;
        for (int64_t c = 1; c < w; c++) sg += (double)rr[c] * rr[c];
        T tp = F(bd_reflector)(rr, w, 1, sg, &e[i]);
        taup[i] = tp;
        /* X[k][i] = tp·((HÃ)[k]·v) = tp·(A[k]·v - U[k]·(Yᵀv) - X[k]·(V v)); the
         * next column's entry Ã[k][i+1] = A[k][i+1] - U[k]·Y[i+1] - X[k]·V[:, i+1]
         * less X[k][i] (V[i][i+1] = 1): both corrections for every row at
         * once, corr = [U X] [[Yᵀv, Y[i+1]ᵀ]; [V v, V[:, i+1]]] */
        int next = i + 1 < b; /* the next column is the panel's: complete it in the pass */
        GEMM(i + 1, 1, w, Y + (i + 1) * b, b, 1, v, 1, 0, t1, 1, 0);
        GEMM(i, 1, w, a + i + 1, ld, 0, v, 1, 0, t2, 1, 0);
        for (int64_t j = 0; j <= i; j++) B3[2 * j] = t1[j], B3[2 * j + 1] = Y[(i + 1) * b + j];
        for (int64_t j = 0; j < i; j++) B4[2 * j] = t2[j], B4[2 * j + 1] = a[j * ld + i + 1];
        int64_t mr = M - i - 1;
        GEMM(mr, 2, i + 1, a + (i + 1) * ld, ld, 0, B3, 2, 0, corr, 2, 0);
        GEMM(mr, 2, i, X + (i + 1) * b, b, 0, B4, 2, 0, corr, 2, 1);
        if (next) {
            for (int64_t c = 0; c < N; c++) acc[c] = 0;
            sigma = 0;
        }
        /* the pass: one read of each row (the dot, then, the row in L1,
         * the next column's Ãᵀu share) */
        for (int64_t k = i + 1; k < M; k++) {
            T *rk = a + k * ld;
            T x = tp * (F(td_dot)(rk + i + 1, v, w) - corr[2 * (k - i - 1)]);
            X[k * b + i] = x;
            if (!next) continue;
            T cv = rk[i + 1] - corr[2 * (k - i - 1) + 1] - x;
            rk[i + 1] = cv;
            if (k >= i + 2) {
                sigma += (double)cv * cv;
                for (int64_t c = i + 2; c < N; c++) acc[c] += cv * rk[c];
            }
        }
        if (next) { /* su, sx = U, X's share of the next Ãᵀu (rows > i+1) */
            int64_t m2 = M - i - 2;
            GEMM(i + 1, 1, m2, a + (i + 2) * ld, ld, 1, a + (i + 2) * ld + i + 1, ld, 0, su, 1, 0);
            GEMM(i + 1, 1, m2, X + (i + 2) * b, b, 1, a + (i + 2) * ld + i + 1, ld, 0, sx, 1, 0);
        }
    }
    /* the trailing matrix: A -= U Yᵀ + X Vᵀ (V[b-1][b] is the stored 1) */
    for (int64_t i = b * b; i < N * b; i++) Y[i] = -Y[i];
    for (int64_t i = b * b; i < M * b; i++) X[i] = -X[i];
    GEMM(M - b, N - b, b, a + b * ld, ld, 0, Y + b * b, b, 1, a + b * ld + b, ld, 1);
    GEMM(M - b, N - b, b, X + b * b, b, 0, a + b, ld, 0, a + b * ld + b, ld, 1);
}

/* Step 1 on g (L × r, row-major, L >= r >= 3) as F(bd_reduce), in panels
 * of nb = rt_linalg_reduce_block() columns (0: unblocked throughout).
 * X: L·nb, Y: r·nb, acc, wrow: r, sm: 2L + 4r + 12·nb elements. */
static void F(bd_reduce_blocked)(T *g, int64_t L, int64_t r, double *d, double *e, T *tauq, T *taup, T *acc,
                                 T *wrow, T *X, T *Y, T *sm) {
    int64_t nb = rt_linalg_reduce_block(), p = 0;
    if (nb > 0)
        for (; r - p > nb + BD_NX; p += nb)
            F(bd_panel)(g + p * r + p, r, L - p, r - p, nb, d + p, e + p, tauq + p, taup + p, X, Y, acc, sm);
    F(bd_reduce)(g + p * r + p, r, L - p, r - p, d + p, e + p, tauq + p, taup + p, acc, wrow);
}
