/* linalg_svd_impl.h — the body of linalg_svd.c for one element type
 * (runtime layer), included once per type with T, S, SQRT, FABS and EPS.
 *
 * The small-matrix path (linalg_bidiag_impl.h has the large one; Jacobi
 * is no fallback for it any more), one-sided Jacobi (Hestenes): the r = min(m, n) rows of G, each of length
 * L = max(m, n) (aᵀ's rows when m >= n, a's own when m < n), are rotated
 * in pairs until mutually orthogonal (|g_p·g_q| <= eps·‖g_p‖‖g_q‖, at most
 * 60 sweeps), the rotations accumulated in W (r × r, rows). Then the
 * singular values are the rows' norms, the normalised rows the singular
 * vectors of length L and W's rows those of length r. A zero singular
 * value's vector, and the extra ones full_matrices asks for, are completed
 * by Gram–Schmidt (twice) on the unit vectors. */

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define F(name) CAT(name, S)

static void F(svd_rotate)(T *g, T *w, int64_t r, int64_t len) {
    for (int64_t i = 0; i < r * r; i++) w[i] = i / r == i % r;
    for (int sweep = 0; sweep < 60; sweep++) {
        int rotated = 0;
        for (int64_t p = 0; p < r - 1; p++)
            for (int64_t q = p + 1; q < r; q++) {
                T *gp = g + p * len, *gq = g + q * len, al = 0, be = 0, ga = 0;
                for (int64_t k = 0; k < len; k++) al += gp[k] * gp[k], be += gq[k] * gq[k], ga += gp[k] * gq[k];
                if (FABS(ga) <= EPS * SQRT(al * be) || ga == 0) continue;
                rotated = 1;
                T zeta = (be - al) / (2 * ga);
                T t = (zeta >= 0 ? 1 : -1) / (FABS(zeta) + SQRT(1 + zeta * zeta));
                T c = 1 / SQRT(1 + t * t), s = c * t;
                for (int64_t k = 0; k < len; k++) {
                    T x = gp[k], y = gq[k];
                    gp[k] = c * x - s * y;
                    gq[k] = s * x + c * y;
                }
                T *wp = w + p * r, *wq = w + q * r;
                for (int64_t k = 0; k < r; k++) {
                    T x = wp[k], y = wq[k];
                    wp[k] = c * x - s * y;
                    wq[k] = s * x + c * y;
                }
            }
        if (!rotated) break;
    }
}

/* Rows [0, count) of y (each of length len) orthonormal where ok[j]; the
 * others replaced by unit vectors orthogonalised against all before. */
static void F(svd_complete)(T *y, int64_t count, int64_t len, const unsigned char *ok) {
    for (int64_t j = 0; j < count; j++) {
        if (ok[j]) continue;
        T *yj = y + j * len;
        int64_t best_i = 0;
        T best = -1;
        for (int64_t i = 0; i < len && best <= (T)0.5; i++) {
            for (int64_t k = 0; k < len; k++) yj[k] = k == i;
            for (int pass = 0; pass < 2; pass++)
                for (int64_t l = 0; l < count; l++) {
                    if (l == j || (!ok[l] && l > j)) continue;
                    const T *yl = y + l * len;
                    T d = 0;
                    for (int64_t k = 0; k < len; k++) d += yl[k] * yj[k];
                    for (int64_t k = 0; k < len; k++) yj[k] -= d * yl[k];
                }
            T nn = 0;
            for (int64_t k = 0; k < len; k++) nn += yj[k] * yj[k];
            if (SQRT(nn) > best) best = SQRT(nn), best_i = i;
        }
        if (best <= (T)0.5) { /* none passed: redo the best one */
            for (int64_t k = 0; k < len; k++) yj[k] = k == best_i;
            for (int pass = 0; pass < 2; pass++)
                for (int64_t l = 0; l < count; l++) {
                    if (l == j || (!ok[l] && l > j)) continue;
                    const T *yl = y + l * len;
                    T d = 0;
                    for (int64_t k = 0; k < len; k++) d += yl[k] * yj[k];
                    for (int64_t k = 0; k < len; k++) yj[k] -= d * yl[k];
                }
        }
        T nn = 0;
        for (int64_t k = 0; k < len; k++) nn += yj[k] * yj[k];
        T inv = 1 / SQRT(nn);
        for (int64_t k = 0; k < len; k++) yj[k] *= inv;
    }
}

/* One matrix by Jacobi. s: r values, descending; u: m × (full ? m : r);
 * vt: (full ? n : r) × n; either may be NULL (values only). work: r·L +
 * r·r + L·L + 2L elements. */
static void F(svd_jacobi)(int64_t m, int64_t n, int full, const T *a, T *s, T *u, T *vt, T *work) {
    int tall = m >= n;
    int64_t r = tall ? n : m, len = tall ? m : n;
    T *g = work, *w = g + r * len, *y = w + r * r, *order = y + len * len;
    unsigned char *ok = (unsigned char *)(order + len);
    int nan = 0;
    for (int64_t i = 0; i < m * n; i++) nan |= a[i] != a[i];
    if (nan) {
        for (int64_t i = 0; i < r; i++) s[i] = (T)NAN;
        if (u) for (int64_t i = 0; i < m * (full ? m : r); i++) u[i] = (T)NAN;
        if (vt) for (int64_t i = 0; i < n * (full ? n : r); i++) vt[i] = (T)NAN;
        return;
    }
    if (tall)
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) g[j * m + i] = a[i * n + j];
    else
        for (int64_t i = 0; i < m * n; i++) g[i] = a[i];
    F(svd_rotate)(g, w, r, len);
    /* norms, then descending order (stable insertion sort; indices exact as T) */
    for (int64_t j = 0; j < r; j++) {
        T nn = 0;
        for (int64_t k = 0; k < len; k++) nn += g[j * len + k] * g[j * len + k];
        T sj = SQRT(nn);
        int64_t i = j;
        for (; i > 0 && s[i - 1] < sj; i--) s[i] = s[i - 1], order[i] = order[i - 1];
        s[i] = sj, order[i] = (T)j;
    }
    if (!u) return;
    int64_t count = full ? len : r; /* vectors of length L wanted */
    T smax = r ? s[0] : 0;
    for (int64_t j = 0; j < count; j++) {
        ok[j] = j < r && s[j] > smax * EPS * (T)len && s[j] > 0;
        T *yj = y + j * len;
        if (ok[j]) {
            const T *gj = g + (int64_t)order[j] * len;
            T inv = 1 / s[j];
            for (int64_t k = 0; k < len; k++) yj[k] = gj[k] * inv;
        }
    }
    F(svd_complete)(y, count, len, ok);
    /* the length-L vectors are u's columns (tall) or vt's rows (wide); W's rows the other side's */
    if (tall) {
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < count; j++) u[i * count + j] = y[j * len + i];
        for (int64_t j = 0; j < r; j++)
            for (int64_t c = 0; c < n; c++) vt[j * n + c] = w[(int64_t)order[j] * r + c];
    } else {
        for (int64_t j = 0; j < count; j++)
            for (int64_t c = 0; c < n; c++) vt[j * n + c] = y[j * len + c];
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < r; j++) u[i * r + j] = w[(int64_t)order[j] * r + i];
    }
}

/* One matrix: LAPACK's gesdd when rt_linalg_use_lapack says so, else
 * one-sided Jacobi in its range (r <= rt_svd_jacobi_max(): small
 * matrices, batches of them, where it is the faster) and for a matrix
 * with a NaN (all NaN, no work), else bidiagonalisation. work:
 * rt_svd_work_for(m, n, this type is f64) elements. */
static void F(svd_one)(int64_t m, int64_t n, int full, const T *a, T *s, T *u, T *vt, T *work) {
    int64_t r = m < n ? m : n;
    int nan = 0;
    for (int64_t i = 0; i < m * n; i++) nan |= a[i] != a[i];
    if (!nan && F(lapack_gesdd)(m, n, full, a, s, u, vt, work)) return;
    if (!nan && r > rt_svd_jacobi_max() && F(svd_bidiag)(m, n, full, a, s, u, vt, work)) return;
    F(svd_jacobi)(m, n, full, a, s, u, vt, work);
}

typedef struct {
    int64_t m, n;
    int full;
    const T *a;
    T *s, *u, *vt, *work;
    int64_t work_each;
} F(svd_job);

static void F(svd_range)(void *arg, int64_t begin, int64_t end) {
    F(svd_job) *j = arg;
    int64_t r = j->m < j->n ? j->m : j->n, uc = j->full ? j->m : r, vr = j->full ? j->n : r;
    for (int64_t i = begin; i < end; i++)
        F(svd_one)(j->m, j->n, j->full, j->a + i * j->m * j->n, j->s + i * r, j->u ? j->u + i * j->m * uc : NULL,
                   j->vt ? j->vt + i * vr * j->n : NULL, j->work + i * j->work_each);
}

void F(rt_svd_)(int64_t batch, int64_t m, int64_t n, int full, const T *a, T *s, T *u, T *vt, T *work) {
    if (batch <= 0 || m <= 0 || n <= 0) return;
    F(svd_job) job = {m, n, full, a, s, u, vt, work, rt_svd_work_for(m, n, !BD_GK)};
    int64_t r = m < n ? m : n;
    rt_parallel_for(batch, rt_linalg_grain(8 * 6 * r * r * (m > n ? m : n)), F(svd_range), &job);
}

#undef F
#undef CAT
#undef CAT_
