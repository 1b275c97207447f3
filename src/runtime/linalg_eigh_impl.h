/* linalg_eigh_impl.h — the body of linalg_eigh.c for one element type
 * (runtime layer), included once per type with T, S, SQRT, FABS and EPS.
 *
 * Cyclic two-sided Jacobi on the full symmetric matrix (Numerical
 * Recipes' rotation: cot 2θ = (a_qq - a_pp) / 2a_pq, t = tan θ the smaller
 * root), each rotation applied to columns p, q and rows p, q of A and to
 * rows p, q of Vᵀ (contiguous). A pair is rotated while |a_pq| >
 * eps·sqrt(|a_pp a_qq|) (Demmel and Veselić's criterion, which gives small
 * eigenvalues to high relative accuracy too) and |a_pq| > eps²·max|a_ij|
 * (below that a rotation changes nothing representable, and zero
 * diagonals would otherwise rotate forever); sweeps stop when none was, at
 * most 60.
 * Jacobi converges quadratically, typically in 6–10 sweeps; its 4n³
 * flops a sweep make it the choice for small matrices only. */

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define F(name) CAT(name, S)

/* a: n×n symmetric (both triangles), destroyed; vt: n×n, becomes Vᵀ
 * (rows the eigenvectors, unsorted); the eigenvalues end on a's diagonal. */
static void F(jacobi)(T *a, T *vt, int64_t n) {
    for (int64_t i = 0; i < n * n; i++) vt[i] = i / n == i % n;
    T tiny = 0;
    for (int64_t i = 0; i < n * n; i++) tiny = FABS(a[i]) > tiny ? FABS(a[i]) : tiny;
    tiny *= EPS * EPS; /* rotations below this change nothing visible */
    for (int sweep = 0; sweep < 60; sweep++) {
        int rotated = 0;
        for (int64_t p = 0; p < n - 1; p++)
            for (int64_t q = p + 1; q < n; q++) {
                T apq = a[p * n + q], app = a[p * n + p], aqq = a[q * n + q];
                if (FABS(apq) <= EPS * SQRT(FABS(app * aqq)) || FABS(apq) <= tiny) continue;
                rotated = 1;
                T theta = (aqq - app) / (2 * apq);
                T t = (theta >= 0 ? 1 : -1) / (FABS(theta) + SQRT(theta * theta + 1));
                T c = 1 / SQRT(t * t + 1), s = t * c;
                for (int64_t k = 0; k < n; k++) { /* columns p, q */
                    T akp = a[k * n + p], akq = a[k * n + q];
                    a[k * n + p] = c * akp - s * akq;
                    a[k * n + q] = s * akp + c * akq;
                }
                T *rp = a + p * n, *rq = a + q * n;
                for (int64_t k = 0; k < n; k++) { /* rows p, q */
                    T x = rp[k], y = rq[k];
                    rp[k] = c * x - s * y;
                    rq[k] = s * x + c * y;
                }
                rp[q] = rq[p] = 0;
                T *vp = vt + p * n, *vq = vt + q * n;
                for (int64_t k = 0; k < n; k++) {
                    T x = vp[k], y = vq[k];
                    vp[k] = c * x - s * y;
                    vq[k] = s * x + c * y;
                }
            }
        if (!rotated) break;
    }
}

/* One matrix by tridiagonalisation (linalg_tridiag_impl.h), n >= 3: a (reading its lower triangle) → v, w (ascending).
 * work: TD_WORK(n) elements, and DC_WORK(n) more from rt_eigh_dc_min() up. */
static void F(eigh_tridiag)(int64_t n, const T *a, T *v, T *w, T *work) {
    T *m = work, *ys = m + n * n, *wk = ys + TD_NB * n, *wk2 = wk + TD_NB * n, *tt = wk2 + TD_NB * n;
    T *taus = tt + TD_NB * TD_NB, *p = taus + n, *q = p + n;
    uintptr_t at = (uintptr_t)(q + n);
    double *dw = (double *)((at + 7) & ~(uintptr_t)7), *d = dw, *e = dw + n, *rest = dw + 2 * n;
    enum { TILE = 32 }; /* a's lower triangle into m's upper, tile by tile */
    for (int64_t i0 = 0; i0 < n; i0 += TILE)
        for (int64_t j0 = 0; j0 <= i0; j0 += TILE)
            for (int64_t i = i0; i < i0 + TILE && i < n; i++)
                for (int64_t j = j0; j < j0 + TILE && j <= i; j++) m[j * n + i] = a[i * n + j];
    for (int64_t i = 1; i < n; i++) /* the lower triangle unused, but the panels' GEMMs read a strip of it */
        for (int64_t j = 0; j < i; j++) m[i * n + j] = 0;
    F(td_reduce_blocked)(m, n, d, e, taus, p, q, ys, wk, wk2);
    if (n >= rt_eigh_dc_min()) { /* divide and conquer (linalg_tridiag_dc_impl.h): v = Z */
        T *tw = work + TD_WORK(n);
        uintptr_t dat = (uintptr_t)(tw + 2 * n * n);
        if (!F(td_dc)(n, d, e, v, w, tw, (double *)((dat + 7) & ~(uintptr_t)7))) {
            for (int64_t i = 0; i < n * n; i++) v[i] = (T)NAN; /* a leaf's QL did not converge: NaN, as syevd's info */
            for (int64_t i = 0; i < n; i++) w[i] = (T)NAN;
            return;
        }
    } else { /* QL and inverse iteration: v = Zᵀ, then Z */
        F(td_rows) zr = F(td_rows_one)(v);
        F(td_eig)(n, d, e, w, 0, &zr, rest, NULL);
        F(transpose_square)(v, n);
    }
    /* reflector k: u_k[k+1] = 1, its tail in row k from column k+2 */
    F(wy_apply)(v, n, n, n, n - 2, 1, m + 1, n + 1, 1, taus, ys, wk, wk2, tt);
}

/* One matrix: a (reading its lower triangle) → v (columns the
 * eigenvectors, ascending eigenvalues), w; work: rt_eigh_work(n)
 * elements. Jacobi up to rt_eigh_jacobi_max(), tridiagonalisation
 * (linalg_tridiag_impl.h) above. */
static void F(eigh_one)(int64_t n, const T *a, T *v, T *w, T *work) {
    T *m = work, *order = work + n * n;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j <= i; j++) m[i * n + j] = m[j * n + i] = a[i * n + j];
    int nan = 0;
    for (int64_t i = 0; i < n * n; i++) nan |= m[i] != m[i];
    if (nan) { /* no convergence to wait for: all NaN, as LAPACK gives garbage and JAX NaN */
        for (int64_t i = 0; i < n * n; i++) v[i] = (T)NAN;
        for (int64_t i = 0; i < n; i++) w[i] = (T)NAN;
        return;
    }
    if (F(lapack_syevd)(n, a, v, w, work)) return;
    if (n > rt_eigh_jacobi_max()) {
        F(eigh_tridiag)(n, a, v, w, work);
        return;
    }
    F(jacobi)(m, v, n); /* v holds Vᵀ for now */
    /* ascending, stable: insertion sort of the indices (exact as T: n < 2^24) */
    for (int64_t i = 0; i < n; i++) {
        T d = m[i * n + i];
        int64_t j = i;
        for (; j > 0 && m[(int64_t)order[j - 1] * (n + 1)] > d; j--) order[j] = order[j - 1];
        order[j] = (T)i;
    }
    for (int64_t i = 0; i < n; i++) w[i] = m[(int64_t)order[i] * (n + 1)];
    /* m is free now: Vᵀ's rows into it, then v[i][j] = Vᵀ[order[j]][i] */
    for (int64_t i = 0; i < n * n; i++) m[i] = v[i];
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) v[i * n + j] = m[(int64_t)order[j] * n + i];
}

typedef struct {
    int64_t n;
    const T *a;
    T *v, *w, *work;
} F(eigh_job);

static void F(eigh_range)(void *arg, int64_t begin, int64_t end) {
    F(eigh_job) *j = arg;
    int64_t nn = j->n * j->n, we = rt_eigh_work(j->n);
    for (int64_t i = begin; i < end; i++)
        F(eigh_one)(j->n, j->a + i * nn, j->v + i * nn, j->w + i * j->n, j->work + i * we);
}

void F(rt_eigh_)(int64_t batch, int64_t n, const T *a, T *v, T *w, T *work) {
    if (batch <= 0 || n <= 0) return;
    F(eigh_job) job = {n, a, v, w, work};
    rt_parallel_for(batch, rt_linalg_grain(8 * n * n * n), F(eigh_range), &job);
}

#undef F
#undef CAT
#undef CAT_
