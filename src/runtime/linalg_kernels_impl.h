/* linalg_kernels_impl.h — the body of linalg_kernels.c for one element type
 * (runtime layer), included once per type with T (the element type), S
 * (the name suffix), GEMM (rt_gemm_f32/f64) and SQRT defined.
 *
 * Matrices are row-major with row stride `ld`. The blocked kernels are
 * right-looking: factor (or solve) one block of RT_LINALG_BLOCK columns
 * with the unblocked loop, then fold its effect into the rest of the matrix
 * with one GEMM, where nearly all the flops are. rt_gemm only adds, so a
 * product to subtract has one operand negated first: in place when that
 * operand is not read again before it is negated back (triangular solve,
 * LU), into a panel of scratch otherwise (Cholesky, whose panel is both
 * operands). */

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define F(name) CAT(name, S)

/* ---- Cholesky ---------------------------------------------------------- */

/* sum x[p]·y[p] over p < n in 8 independent partial sums, which gcc keeps
 * in one vector register (a single running sum is a strict chain it may
 * not reorder without -ffast-math: the Cholesky's dot products ran scalar
 * and took most of its time below n = 512). */
static inline T F(dot)(const T *x, const T *y, int64_t n) {
    T acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int64_t p = 0;
    for (; p + 8 <= n; p += 8)
        for (int q = 0; q < 8; q++) acc[q] += x[p + q] * y[p + q];
    T s = ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
    for (; p < n; p++) s += x[p] * y[p];
    return s;
}

/* In place on the lower triangle of the n×n matrix at a: 0, or -1 when a
 * pivot is not positive (or NaN). The strict upper triangle is not read or
 * written. */
static int F(chol_unblocked)(T *a, int64_t n, int64_t ld) {
    for (int64_t j = 0; j < n; j++) {
        T *rj = a + j * ld;
        T d = rj[j] - F(dot)(rj, rj, j);
        if (!(d > 0)) return -1; /* also catches NaN */
        T l = SQRT(d), inv = 1 / l;
        rj[j] = l;
        for (int64_t i = j + 1; i < n; i++) {
            T *ri = a + i * ld;
            ri[j] = (ri[j] - F(dot)(ri, rj, j)) * inv;
        }
    }
    return 0;
}

/* W = L⁻¹ for the b×b lower triangle at l (row stride ld) into w (b×b,
 * row-major, its strict upper part zero), row by row: row i of W is
 * (e_i - Σ_{p<i} L[i][p] W[p]) / L[i][i], contiguous axpys. */
static void F(tri_inverse)(const T *l, int64_t ld, int64_t b, T *w) {
    for (int64_t i = 0; i < b; i++) {
        T *wi = w + i * b;
        for (int64_t c = 0; c < b; c++) wi[c] = c == i;
        for (int64_t p = 0; p < i; p++) {
            T c0 = l[i * ld + p];
            const T *wp = w + p * b;
            for (int64_t c = 0; c <= p; c++) wi[c] -= c0 * wp[c];
        }
        T inv = 1 / l[i * ld + i];
        for (int64_t c = 0; c <= i; c++) wi[c] *= inv;
    }
}

/* Blocked in place with no scratch but the block inverse on the stack:
 * the strict upper triangle, zeroed at the end, holds the working copy.
 * For block k (rows and columns [k, k+b)), A21 = A[k+b.., k..k+b) is
 * solved as A21 L11⁻ᵀ by one GEMM with W = L11⁻¹, written transposed into
 * the upper region A[k..k+b, k+b..) (b × r, exactly A21ᵀ's shape, read
 * by nothing else), copied back into A21, then negated there to serve as
 * the GEMM operand of the trailing update A22 -= A21 A21ᵀ (rt_gemm only
 * adds). */
static int F(chol_blocked)(T *a, int64_t n) {
    enum { NB = RT_LINALG_BLOCK }; /* 16..128 measured at n = 256 and 1024: 64 was fastest at both */
    T w[NB * NB];
    for (int64_t k = 0; k < n; k += NB) {
        int64_t b = n - k < NB ? n - k : NB, r = n - k - b;
        T *l11 = a + k * n + k;
        if (F(chol_unblocked)(l11, b, n) != 0) return -1;
        if (r == 0) break;
        F(tri_inverse)(l11, n, b, w);
        T *a21 = a + (k + b) * n + k, *up = a + k * n + k + b; /* up: b × r, row stride n */
        GEMM(b, r, b, w, b, 0, a21, n, 1, up, n, 0);           /* up = W A21ᵀ = (A21 L11⁻ᵀ)ᵀ */
        for (int64_t i = 0; i < r; i++)
            for (int64_t j = 0; j < b; j++) a21[i * n + j] = up[j * n + i];
        for (int64_t j = 0; j < b; j++)
            for (int64_t i = 0; i < r; i++) up[j * n + i] = -up[j * n + i];
        /* row block [ib, ib+bi) of A22 against its columns [k+b, ib+bi) */
        for (int64_t ib = k + b; ib < n; ib += NB) {
            int64_t bi = n - ib < NB ? n - ib : NB;
            GEMM(bi, ib + bi - (k + b), b, a21 + (ib - k - b) * n, n, 0, up, n, 0, a + ib * n + k + b, n, 1);
        }
    }
    return 0;
}

static void F(chol_one)(T *a, int64_t n) {
    int rc;
    if (F(lapack_potrf)(a, n, &rc)) {
        /* done by LAPACK */
    } else if (n >= 2 * RT_LINALG_BLOCK) {
        rc = F(chol_blocked)(a, n);
    } else {
        rc = F(chol_unblocked)(a, n, n);
    }
    if (rc != 0) {
        for (int64_t i = 0; i < n * n; i++) a[i] = (T)NAN;
        return;
    }
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = i + 1; j < n; j++) a[i * n + j] = 0;
}

/* Small matrices (n <= LANES_N), LANES at a time: the same unblocked
 * algorithm with each scalar a short vector across LANES matrices, so the
 * arithmetic runs in SIMD lanes instead of in dependent scalar chains
 * (10,000 8×8 f32: 1.19 ms one matrix at a time). Lanes past `count` hold
 * the identity. A lane whose pivot fails becomes all NaN. */
#define LANES 8
#define LANES_N 16
static void F(chol_lanes)(T *a, int64_t n, int64_t count) {
    T buf[LANES_N * LANES_N * LANES];
    int bad[LANES] = {0};
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j <= i; j++)
            for (int l = 0; l < LANES; l++)
                buf[(i * n + j) * LANES + l] = l < count ? a[l * n * n + i * n + j] : (T)(i == j);
    for (int64_t j = 0; j < n; j++) {
        T *bj = buf + (j * n) * LANES, d[LANES], inv[LANES];
        for (int l = 0; l < LANES; l++) d[l] = bj[j * LANES + l];
        for (int64_t p = 0; p < j; p++)
            for (int l = 0; l < LANES; l++) d[l] -= bj[p * LANES + l] * bj[p * LANES + l];
        for (int l = 0; l < LANES; l++) {
            bad[l] |= !(d[l] > 0);
            d[l] = d[l] > 0 ? SQRT(d[l]) : 1;
            inv[l] = 1 / d[l];
            bj[j * LANES + l] = d[l];
        }
        for (int64_t i = j + 1; i < n; i++) {
            T *bi = buf + (i * n) * LANES, s[LANES];
            for (int l = 0; l < LANES; l++) s[l] = bi[j * LANES + l];
            for (int64_t p = 0; p < j; p++)
                for (int l = 0; l < LANES; l++) s[l] -= bi[p * LANES + l] * bj[p * LANES + l];
            for (int l = 0; l < LANES; l++) bi[j * LANES + l] = s[l] * inv[l];
        }
    }
    for (int l = 0; l < count; l++) {
        T *m = a + l * n * n;
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < n; j++)
                m[i * n + j] = bad[l] ? (T)NAN : j <= i ? buf[(i * n + j) * LANES + l] : 0;
    }
}

typedef struct {
    int64_t n;
    T *a;
} F(chol_job);

static void F(chol_range)(void *arg, int64_t begin, int64_t end) {
    F(chol_job) *j = arg;
    int64_t i = begin, nn = j->n * j->n;
    if (j->n <= LANES_N)
        for (; i < end; i += LANES) F(chol_lanes)(j->a + i * nn, j->n, end - i < LANES ? end - i : LANES);
    for (; i < end; i++) F(chol_one)(j->a + i * nn, j->n);
}

void F(rt_cholesky_)(int64_t batch, int64_t n, T *a) {
    if (batch <= 0 || n <= 0) return;
    F(chol_job) job = {n, a};
    int64_t grain = rt_linalg_grain(n * n * n / 3);
    if (n <= LANES_N) grain = (grain + LANES - 1) / LANES * LANES; /* whole groups of lanes per range */
    rt_parallel_for(batch, grain, F(chol_range), &job);
}

/* ---- triangular solve -------------------------------------------------- */

/* op(A)(i, j) of the m×m matrix at a. */
#define OPA(i, j) a[o.transpose_a ? (j) * m + (i) : (i) * m + (j)]

/* op(A) X = B for the rows [r0, r1) of X (k columns, stride k), counting
 * only the terms of rows inside [r0, r1) (the rest were subtracted by the
 * caller's GEMM); forward when op(A) is lower triangular. */
static void F(trsm_left_rows)(int64_t m, int64_t k, const T *a, T *x, rt_trsm_opts o, int64_t r0, int64_t r1) {
    int fwd = o.lower != o.transpose_a;
    for (int64_t t = 0; t < r1 - r0; t++) {
        int64_t i = fwd ? r0 + t : r1 - 1 - t;
        T *xi = x + i * k;
        int64_t p0 = fwd ? r0 : i + 1, p1 = fwd ? i : r1;
        for (int64_t p = p0; p < p1; p++) {
            T c = OPA(i, p);
            const T *xp = x + p * k;
            for (int64_t c2 = 0; c2 < k; c2++) xi[c2] -= c * xp[c2];
        }
        if (!o.unit_diag) {
            T inv = 1 / OPA(i, i);
            for (int64_t c2 = 0; c2 < k; c2++) xi[c2] *= inv;
        }
    }
}

static void F(negate_rows)(T *x, int64_t rows, int64_t k) {
    for (int64_t i = 0; i < rows * k; i++) x[i] = -x[i];
}

/* op(A) X = B, blocked over rows of X: each solved block, negated in place
 * for the moment, is subtracted from the rows still to solve by one GEMM. */
static void F(trsm_left)(int64_t m, int64_t k, const T *a, T *x, rt_trsm_opts o) {
    const int64_t nb = RT_LINALG_BLOCK;
    if (m < 2 * nb || k < 8) {
        F(trsm_left_rows)(m, k, a, x, o, 0, m);
        return;
    }
    int fwd = o.lower != o.transpose_a;
    for (int64_t s = 0; s < m; s += nb) {
        int64_t b = m - s < nb ? m - s : nb;
        int64_t r0 = fwd ? s : m - s - b; /* this block's rows [r0, r0 + b) */
        F(trsm_left_rows)(m, k, a, x, o, r0, r0 + b);
        int64_t u0 = fwd ? r0 + b : 0, un = fwd ? m - r0 - b : r0; /* rows still to solve */
        if (un == 0) continue;
        T *xb = x + r0 * k;
        F(negate_rows)(xb, b, k);
        /* rows [u0, u0+un) -= op(A)[u0.., r0..r0+b) · X[r0..r0+b) */
        const T *ab = o.transpose_a ? a + r0 * m + u0 : a + u0 * m + r0;
        GEMM(un, k, b, ab, m, o.transpose_a, xb, k, 0, x + u0 * k, k, 1);
        F(negate_rows)(xb, b, k);
    }
}

/* x op(A) = b for one row x of m entries: op(A)ᵀ xᵀ = bᵀ, column by column
 * (x_i final once the terms of the entries before it are subtracted). */
static void F(trsm_right_row)(int64_t m, const T *a, T *x, rt_trsm_opts o) {
    int fwd = o.lower == o.transpose_a; /* op(A) upper: x_0 first */
    for (int64_t t = 0; t < m; t++) {
        int64_t i = fwd ? t : m - 1 - t;
        if (!o.unit_diag) x[i] /= OPA(i, i);
        T xi = x[i];
        if (fwd)
            for (int64_t q = i + 1; q < m; q++) x[q] -= xi * OPA(i, q);
        else
            for (int64_t q = 0; q < i; q++) x[q] -= xi * OPA(i, q);
    }
}
#undef OPA

typedef struct {
    int64_t m, k;
    const T *a;
    T *b;
    rt_trsm_opts o;
} F(trsm_job);

static void F(trsm_range)(void *arg, int64_t begin, int64_t end) {
    F(trsm_job) *j = arg;
    for (int64_t i = begin; i < end; i++) {
        const T *a = j->a + i * j->m * j->m;
        T *b = j->b + i * j->m * j->k;
        if (j->o.left_side)
            F(trsm_left)(j->m, j->k, a, b, j->o);
        else
            for (int64_t r = 0; r < j->k; r++) F(trsm_right_row)(j->m, a, b + r * j->m, j->o);
    }
}

void F(rt_trsm_)(int64_t batch, int64_t m, int64_t k, const T *a, T *b, rt_trsm_opts o) {
    if (batch <= 0 || m <= 0 || k <= 0) return;
    F(trsm_job) job = {m, k, a, b, o};
    rt_parallel_for(batch, rt_linalg_grain(m * m * k), F(trsm_range), &job);
}

/* ---- LU with partial pivoting ------------------------------------------ */

static void F(swap_rows)(T *a, int64_t n, int64_t i, int64_t p) {
    T *ri = a + i * n, *rp = a + p * n;
    for (int64_t c = 0; c < n; c++) {
        T t = ri[c];
        ri[c] = rp[c];
        rp[c] = t;
    }
}

/* The same on a copy of the panel packed w wide (the panel's columns
 * in a row-major matrix are one cache line per row each: its pivot
 * searches and updates missed cache on every row, a quarter of LU's time
 * at n = 1024; packed, the panel stays in L1/L2), written back at the
 * end. Whole rows are swapped in a as before, the packed rows with them. */
#ifndef LU_PACKED
#define LU_PACKED 16384 /* panel elements: 64 KiB of f32 (128 of f64) on the stack */
#endif
static void F(lu_panel_packed)(T *a, int64_t m, int64_t n, int64_t j0, int64_t w, int32_t *piv, int32_t *perm) {
    T buf[LU_PACKED];
    int64_t rows = m - j0;
    for (int64_t i = 0; i < rows; i++)
        for (int64_t c = 0; c < w; c++) buf[i * w + c] = a[(j0 + i) * n + j0 + c];
    for (int64_t jj = 0; jj < w; jj++) {
        int64_t p = jj;
        T best = buf[jj * w + jj] < 0 ? -buf[jj * w + jj] : buf[jj * w + jj];
        for (int64_t i = jj + 1; i < rows; i++) {
            T v = buf[i * w + jj] < 0 ? -buf[i * w + jj] : buf[i * w + jj];
            if (v > best) best = v, p = i; /* the first largest, as LAPACK's i?amax */
        }
        int64_t j = j0 + jj, pr = j0 + p;
        piv[j] = (int32_t)pr;
        if (p != jj) {
            F(swap_rows)(a, n, j, pr);
            for (int64_t c = 0; c < w; c++) {
                T t = buf[jj * w + c];
                buf[jj * w + c] = buf[p * w + c];
                buf[p * w + c] = t;
            }
            int32_t t = perm[j];
            perm[j] = perm[pr];
            perm[pr] = t;
        }
        T d = buf[jj * w + jj];
        const T *rj = buf + jj * w;
        for (int64_t i = jj + 1; i < rows; i++) {
            T *ri = buf + i * w;
            if (d != 0) ri[jj] /= d;
            T l = ri[jj];
            for (int64_t c = jj + 1; c < w; c++) ri[c] -= l * rj[c];
        }
    }
    for (int64_t i = 0; i < rows; i++)
        for (int64_t c = 0; c < w; c++) a[(j0 + i) * n + j0 + c] = buf[i * w + c];
}

/* Factors columns [j0, j0+w) of the m×n matrix, rows j0 and below, swapping
 * whole rows; the columns right of the panel are only swapped. */
static void F(lu_panel)(T *a, int64_t m, int64_t n, int64_t j0, int64_t w, int32_t *piv, int32_t *perm) {
    if (w > 1 && (m - j0) * w <= LU_PACKED && m - j0 > 64) {
        F(lu_panel_packed)(a, m, n, j0, w, piv, perm);
        return;
    }
    for (int64_t j = j0; j < j0 + w; j++) {
        int64_t p = j;
        T best = a[j * n + j] < 0 ? -a[j * n + j] : a[j * n + j];
        for (int64_t i = j + 1; i < m; i++) {
            T v = a[i * n + j] < 0 ? -a[i * n + j] : a[i * n + j];
            if (v > best) best = v, p = i; /* the first largest, as LAPACK's i?amax */
        }
        piv[j] = (int32_t)p;
        if (p != j) {
            F(swap_rows)(a, n, j, p);
            int32_t t = perm[j];
            perm[j] = perm[p];
            perm[p] = t;
        }
        T d = a[j * n + j];
        const T *rj = a + j * n;
        for (int64_t i = j + 1; i < m; i++) {
            T *ri = a + i * n;
            if (d != 0) ri[j] /= d;
            T l = ri[j];
            for (int64_t c = j + 1; c < j0 + w; c++) ri[c] -= l * rj[c];
        }
    }
}

/* After columns [j0, j0+w) are factored: U12 := L11⁻¹ A12 (unit lower,
 * forward over the block's rows) and A22 -= L21 U12 (one GEMM, U12
 * negated in place meanwhile) for the columns [c0, c1). */
static void F(lu_update)(T *a, int64_t m, int64_t n, int64_t j0, int64_t w, int64_t c0, int64_t c1) {
    int64_t nc = c1 - c0, r0 = j0 + w, nr = m - r0;
    if (nc <= 0) return;
    for (int64_t i = j0 + 1; i < j0 + w; i++) {
        T *ri = a + i * n + c0;
        for (int64_t p = j0; p < i; p++) {
            T l = a[i * n + p];
            const T *rp = a + p * n + c0;
            for (int64_t c = 0; c < nc; c++) ri[c] -= l * rp[c];
        }
    }
    if (nr <= 0) return;
    for (int64_t i = j0; i < j0 + w; i++)
        for (int64_t c = 0; c < nc; c++) a[i * n + c0 + c] = -a[i * n + c0 + c];
    GEMM(nr, nc, w, a + r0 * n + j0, n, 0, a + j0 * n + c0, n, 0, a + r0 * n + c0, n, 1);
    for (int64_t i = j0; i < j0 + w; i++)
        for (int64_t c = 0; c < nc; c++) a[i * n + c0 + c] = -a[i * n + c0 + c];
}

/* Columns [j0, j0+w) factored recursively, as LAPACK's getrf2: the left
 * half, its update of the right half, the right half. The unblocked
 * panel passes over the whole tall panel once per column (64 passes of
 * 256 KiB at m = 1024); halving keeps most passes narrow. */
static void F(lu_rec)(T *a, int64_t m, int64_t n, int64_t j0, int64_t w, int32_t *piv, int32_t *perm) {
    if (w <= 8) {
        F(lu_panel)(a, m, n, j0, w, piv, perm);
        return;
    }
    int64_t h = w / 2;
    F(lu_rec)(a, m, n, j0, h, piv, perm);
    F(lu_update)(a, m, n, j0, h, j0 + h, j0 + w);
    F(lu_rec)(a, m, n, j0 + h, w - h, piv, perm);
}

static void F(lu_one)(T *a, int64_t m, int64_t n, int32_t *piv, int32_t *perm) {
    for (int64_t i = 0; i < m; i++) perm[i] = (int32_t)i;
    if (F(lapack_getrf)(a, m, n, piv, perm)) return;
    int64_t kmin = m < n ? m : n;
    if (kmin < 2 * RT_LINALG_BLOCK) { /* small: the plain loop */
        F(lu_panel)(a, m, n, 0, kmin, piv, perm);
        if (n > kmin) F(lu_update)(a, m, n, 0, kmin, kmin, n);
        return;
    }
    const int64_t nb = RT_LINALG_BLOCK;
    for (int64_t j0 = 0; j0 < kmin; j0 += nb) {
        int64_t w = kmin - j0 < nb ? kmin - j0 : nb;
        F(lu_rec)(a, m, n, j0, w, piv, perm);
        F(lu_update)(a, m, n, j0, w, j0 + w, n);
    }
}

typedef struct {
    int64_t m, n;
    T *a;
    int32_t *piv, *perm;
} F(lu_job);

static void F(lu_range)(void *arg, int64_t begin, int64_t end) {
    F(lu_job) *j = arg;
    int64_t k = j->m < j->n ? j->m : j->n;
    for (int64_t i = begin; i < end; i++)
        F(lu_one)(j->a + i * j->m * j->n, j->m, j->n, j->piv + i * k, j->perm + i * j->m);
}

void F(rt_lu_)(int64_t batch, int64_t m, int64_t n, T *a, int32_t *pivots, int32_t *perm) {
    if (batch <= 0 || m <= 0) return;
    if (n <= 0) { /* no columns: no pivots, the identity permutation */
        for (int64_t i = 0; i < batch * m; i++) perm[i] = (int32_t)(i % m);
        return;
    }
    F(lu_job) job = {m, n, a, pivots, perm};
    int64_t k = m < n ? m : n;
    rt_parallel_for(batch, rt_linalg_grain(m * n * k), F(lu_range), &job);
}

#undef LANES
#undef LANES_N
#undef F
#undef CAT
#undef CAT_
