/* linalg_tridiag_blocked_impl.h — the blocked Householder
 * tridiagonalisation of one symmetric matrix, for one element type
 * (runtime layer), included by linalg_tridiag_impl.h after its unblocked
 * F(td_reduce), which takes the last columns; F(eigh_tridiag) in
 * linalg_eigh_impl.h calls F(td_reduce_blocked) for step 1.
 *
 * The scheme is LAPACK's sytrd/latrd (uplo = L): a panel of b columns is
 * reduced without touching the trailing matrix, whose current value is
 * kept as
 *     Ã = A - V Wᵀ - W Vᵀ
 * (V: the panel's reflectors, W accumulated alongside: w_i = tau_i Ã v_i
 * less (tau_i/2)(w_iᵀv_i) v_i), and the trailing matrix then takes the
 * whole panel in one rank-2b update by GEMM, instead of a rank-2 update
 * (a read and a write of the trailing matrix) per column. What stays
 * level-2 is each column's product Ã v_i: one read-only pass over the
 * trailing upper triangle (rows contiguous, as F(td_reduce) stores it),
 * mostly as matrix-vector products through GEMM (F(td_symv)), plus
 * products of depth <= b for the V, W corrections. Same reflectors as
 * F(td_reduce) (beta = -sign(alpha)·‖x‖, the tail's sum of squares in
 * double), stored in the same place, so the back-transformation does not
 * know which reduction ran. F and GEMM are the includer's. */

#ifndef TD_NX
#define TD_NX 32 /* panels while more than nb + TD_NX columns are left: the last ones unblocked */
#define TD_RB 64 /* rows per GEMM of the trailing update (its diagonal blocks' lower halves are wasted work) */
#define TD_SB 64 /* rows per block of the symmetric matrix-vector product */
#endif

/* q = B v for the symmetric r × r matrix B (its upper triangle at row
 * stride ld), v and q contiguous. Blocks of TD_SB rows: the diagonal
 * block by rows (a dot and an axpy each), the rectangle right of it by
 * two matrix-vector products (R v[J] into q[I], Rᵀ v[I] into q[J]) on
 * rt_gemm's register kernels, whose instruction set is picked at run time
 * (the library is built for the baseline: a plain loop here runs 4 lanes
 * wide); the rectangle's second read finds it in L2. */
static void F(td_symv)(const T *b, int64_t ld, int64_t r, const T *v, T *q) {
    for (int64_t t = 0; t < r; t++) q[t] = 0;
    for (int64_t i0 = 0; i0 < r; i0 += TD_SB) {
        int64_t bs = r - i0 < TD_SB ? r - i0 : TD_SB, i1 = i0 + bs;
        for (int64_t i = i0; i < i1; i++) F(td_symv_row)(b + i * ld + i, i1 - i, v + i, q + i);
        if (i1 == r) break;
        const T *rect = b + i0 * ld + i1;
        GEMM(bs, 1, r - i1, rect, ld, 0, v + i1, 1, 0, q + i0, 1, 1);
        GEMM(r - i1, 1, bs, rect, ld, 1, v + i0, 1, 0, q + i1, 1, 1);
    }
}

/* One panel: a (N × N symmetric, its upper triangle at row stride ld, N
 * >= b + 3) has its first b rows (columns) reduced; d, e, taus (b each)
 * as F(td_reduce)'s; the trailing (N-b)² block takes the panel's
 * reflections. Vt, Wt: b × N (row stride N, the panel's V and W as rows),
 * q: N, sm: 4b elements. The corrections are products of depth <= b
 * through GEMM as well. */
static void F(td_panel)(T *a, int64_t ld, int64_t N, int64_t b, double *d, double *e, T *taus, T *Vt, T *Wt, T *q,
                        T *sm) {
    T *t1 = sm, *t2 = sm + b, *s1 = sm + 2 * b, *s2 = sm + 3 * b;
    for (int64_t i = 0; i < b; i++) {
        T *ri = a + i * ld, *vr = Vt + i * N, *wr = Wt + i * N;
        /* row i (column i below the diagonal) made current: less the
         * panel's earlier reflections, -Σ_j V[i][j] W[c][j] + W[i][j] V[c][j] */
        if (i > 0) {
            for (int64_t j = 0; j < i; j++) s1[j] = -Vt[j * N + i], s2[j] = -Wt[j * N + i];
            GEMM(1, N - i, i, s1, i, 0, Wt + i, N, 0, ri + i, ld, 1);
            GEMM(1, N - i, i, s2, i, 0, Vt + i, N, 0, ri + i, ld, 1);
        }
        d[i] = ri[i];
        T tau = taus[i] = F(td_reflector)(a, ld, N, i, e);
        int64_t r = N - i - 1;
        const T *v = ri + i + 1; /* v[0] = 1 */
        for (int64_t c = 0; c <= i; c++) vr[c] = wr[c] = 0;
        for (int64_t t = 0; t < r; t++) vr[i + 1 + t] = v[t];
        if (tau == 0) { /* H = I: w = 0 adds nothing to the update */
            for (int64_t t = 0; t < r; t++) wr[i + 1 + t] = 0;
            continue;
        }
        /* q = Ã v over rows i+1.. (the panel-start values: rows > i are
         * untouched so far), less V (Wᵀv) + W (Vᵀv) */
        F(td_symv)(a + (i + 1) * ld + i + 1, ld, r, v, q);
        if (i > 0) {
            GEMM(i, 1, r, Wt + i + 1, N, 0, v, 1, 0, t1, 1, 0);
            GEMM(i, 1, r, Vt + i + 1, N, 0, v, 1, 0, t2, 1, 0);
            for (int64_t j = 0; j < i; j++) t1[j] = -t1[j], t2[j] = -t2[j];
            GEMM(r, 1, i, Vt + i + 1, N, 1, t1, 1, 0, q, 1, 1);
            GEMM(r, 1, i, Wt + i + 1, N, 1, t2, 1, 0, q, 1, 1);
        }
        for (int64_t t = 0; t < r; t++) q[t] *= tau;
        F(td_w)(q, v, r, tau);
        for (int64_t t = 0; t < r; t++) wr[i + 1 + t] = q[t];
    }
    /* the trailing matrix, its upper triangle a block of rows at a time:
     * A += Vᵀᵀ(-W) + (-W)ᵀᵀ V, as two GEMMs of depth b */
    for (int64_t i = 0; i < b * N; i++) Wt[i] = -Wt[i];
    for (int64_t r0 = b; r0 < N; r0 += TD_RB) {
        int64_t rb = N - r0 < TD_RB ? N - r0 : TD_RB;
        T *c = a + r0 * ld + r0;
        GEMM(rb, N - r0, b, Vt + r0, N, 1, Wt + r0, N, 0, c, ld, 1);
        GEMM(rb, N - r0, b, Wt + r0, N, 1, Vt + r0, N, 0, c, ld, 1);
    }
}

/* Step 1 on the n×n matrix a (its upper triangle, row stride n; n >= 3)
 * as F(td_reduce), in panels of nb = rt_eigh_reduce_block() columns (0:
 * unblocked throughout). p, q: n; Vt, Wt: TD_NB·n; sm: 4·TD_NB elements. */
static void F(td_reduce_blocked)(T *a, int64_t n, double *d, double *e, T *taus, T *p, T *q, T *Vt, T *Wt, T *sm) {
    int64_t nb = rt_eigh_reduce_block(), k = 0;
    if (nb > 0)
        for (; n - k > nb + TD_NX; k += nb)
            F(td_panel)(a + k * n + k, n, n - k, nb, d + k, e + k, taus + k, Vt, Wt, q, sm);
    F(td_reduce)(a + k * n + k, n, n - k, d + k, e + k, taus + k, p, q);
}
