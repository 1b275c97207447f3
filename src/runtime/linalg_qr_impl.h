/* linalg_qr_impl.h — the body of linalg_qr.c for one element type (runtime
 * layer), included once per type with T, S (the name suffix), SQRT and EPS
 * (the type's machine epsilon) defined.
 *
 * Householder QR as LAPACK's geqr2/org2r, on row-major matrices: column j
 * is reduced by H_j = I - tau_j v_j v_jᵀ (v_j[0] = 1, beta = -sign(alpha)
 * ‖x‖, LAPACK's dlarfg convention, so R's signs are LAPACK's and JAX's),
 * v_j stored below the diagonal. The taus are not stored: with v_j[0] = 1,
 * tau_j = 2 / vᵀv for every reflection, and a column with nothing (to
 * rounding) below its diagonal is not reflected (tau 0, v stored as zeros,
 * so vᵀv = 1 and no reflection are told apart by v's tail being zero).
 * That keeps the kernel free of scratch beyond a row chunk on the stack.
 * Each reflection runs over rows with the columns contiguous, in chunks of
 * QR_CHUNK columns, so the inner loops vectorise. */

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define F(name) CAT(name, S)

/* H = I - tau v vᵀ from the left on the rows × cols block at b (row stride
 * ld); v[0] = 1 and v[i] = vc[i·ld] for 0 < i < rows. */
static void F(qr_reflect)(T *b, int64_t ld, int64_t rows, int64_t cols, const T *vc, T tau) {
    if (tau == 0) return;
    T w[QR_CHUNK];
    for (int64_t c0 = 0; c0 < cols; c0 += QR_CHUNK) {
        int64_t nc = cols - c0 < QR_CHUNK ? cols - c0 : QR_CHUNK;
        T *b0 = b + c0;
        for (int64_t c = 0; c < nc; c++) w[c] = b0[c];
        for (int64_t i = 1; i < rows; i++) {
            T vi = vc[i * ld];
            const T *bi = b0 + i * ld;
            for (int64_t c = 0; c < nc; c++) w[c] += vi * bi[c];
        }
        for (int64_t c = 0; c < nc; c++) {
            w[c] *= tau;
            b0[c] -= w[c];
        }
        for (int64_t i = 1; i < rows; i++) {
            T vi = vc[i * ld];
            T *bi = b0 + i * ld;
            for (int64_t c = 0; c < nc; c++) bi[c] -= vi * w[c];
        }
    }
}

/* tau of the reflector stored in column j's tail (rows j+1..m-1). */
static T F(qr_tau)(const T *vc, int64_t ld, int64_t rows) {
    T vv = 0;
    for (int64_t i = 1; i < rows; i++) vv += vc[i * ld] * vc[i * ld];
    return vv == 0 ? 0 : 2 / (1 + vv);
}

/* geqr2 in place on the m×n matrix a: R on and above the diagonal, the
 * reflectors below it. */
static void F(qr_factor)(T *a, int64_t m, int64_t n) {
    int64_t k = m < n ? m : n;
    for (int64_t j = 0; j < k; j++) {
        T *col = a + j * n + j, alpha = col[0], s = 0;
        for (int64_t i = 1; i < m - j; i++) s += col[i * n] * col[i * n];
        if (s <= EPS * EPS * alpha * alpha) { /* nothing to reduce: H = I */
            for (int64_t i = 1; i < m - j; i++) col[i * n] = 0;
            continue;
        }
        T norm = SQRT(alpha * alpha + s), beta = alpha >= 0 ? -norm : norm, scale = 1 / (alpha - beta);
        for (int64_t i = 1; i < m - j; i++) col[i * n] *= scale;
        col[0] = beta;
        F(qr_reflect)(col + 1, n, m - j, n - j - 1, col, F(qr_tau)(col, n, m - j));
    }
}

/* org2r in place: q (m × qc, row stride qc) holds k reflectors below its
 * diagonal in columns < k (anything above it is ignored) and becomes the
 * first qc columns of H_0 ⋯ H_{k-1}. */
static void F(qr_form_q)(T *q, int64_t m, int64_t qc, int64_t k) {
    for (int64_t i = 0; i < m; i++)
        for (int64_t c = k; c < qc; c++) q[i * qc + c] = i == c;
    for (int64_t j = k - 1; j >= 0; j--) {
        T *col = q + j * qc + j, tau = F(qr_tau)(col, qc, m - j);
        /* columns > j are zero above row j+1 by now (their own step) */
        F(qr_reflect)(col + 1, qc, m - j, qc - j - 1, col, tau);
        for (int64_t i = 1; i < m - j; i++) col[i * qc] *= -tau;
        col[0] = 1 - tau;
        for (int64_t i = 0; i < j; i++) q[i * qc + j] = 0;
    }
}

/* ---- blocked (geqrf / orgqr), for k >= QR_BLOCKED_MIN ------------------
 * The reflectors of a panel of QR_NB columns are made as above but applied
 * only inside the panel; each is also written out as a row of V (k × m,
 * over coordinates 0..m-1: zeros, 1, its tail), and the panel's product
 * H_j0 ⋯ H_{j0+w-1} = I - Y Tt Yᵀ (Y's columns V's rows, Tt upper: LAPACK's
 * larft) reaches the trailing columns as three GEMMs, Qᵀ C = C - Y Ttᵀ Yᵀ C.
 * Q is then formed from V a block at a time, last first (orgqr): a block
 * changes only rows and columns from its first reflector on. */

/* Tt for the w reflectors whose rows in ys (row stride ld) run over L
 * coordinates from the first one's unit entry. col: w scratch. */
static void F(qr_tt)(const T *ys, int64_t ld, int64_t L, int64_t w, const T *taus, T *tt, T *col) {
    for (int64_t i = 0; i < w; i++) {
        T ti = taus[i];
        for (int64_t j = 0; j < i; j++) {
            T acc = 0;
            const T *yj = ys + j * ld, *yi = ys + i * ld;
            for (int64_t c = i; c < L; c++) acc += yj[c] * yi[c];
            col[j] = acc;
        }
        for (int64_t r0 = 0; r0 < i; r0++) {
            T acc = 0;
            for (int64_t j = r0; j < i; j++) acc += tt[r0 * QR_NB + j] * col[j];
            tt[r0 * QR_NB + i] = -ti * acc;
        }
        tt[i * QR_NB + i] = ti;
        for (int64_t r0 = i + 1; r0 < w; r0++) tt[r0 * QR_NB + i] = 0;
    }
}

/* geqrf in place on the m×n matrix a (row stride n), V and taus as above;
 * tt: QR_NB², wk, wk2: QR_NB × n each. */
static void F(qr_factor_blocked)(T *a, int64_t m, int64_t n, T *V, T *taus, T *tt, T *wk, T *wk2) {
    int64_t k = m < n ? m : n;
    for (int64_t j0 = 0; j0 < k; j0 += QR_NB) {
        int64_t w = k - j0 < QR_NB ? k - j0 : QR_NB, pe = j0 + w;
        for (int64_t j = j0; j < pe; j++) {
            T *col = a + j * n + j, alpha = col[0], s = 0, tau = 0;
            for (int64_t i = 1; i < m - j; i++) s += col[i * n] * col[i * n];
            if (s <= EPS * EPS * alpha * alpha) { /* nothing to reduce: H = I */
                for (int64_t i = 1; i < m - j; i++) col[i * n] = 0;
            } else {
                T norm = SQRT(alpha * alpha + s), beta = alpha >= 0 ? -norm : norm, scale = 1 / (alpha - beta);
                for (int64_t i = 1; i < m - j; i++) col[i * n] *= scale;
                col[0] = beta;
                tau = F(qr_tau)(col, n, m - j);
                F(qr_reflect)(col + 1, n, m - j, pe - j - 1, col, tau);
            }
            taus[j] = tau;
            T *vr = V + j * m;
            for (int64_t c = 0; c < j; c++) vr[c] = 0;
            vr[j] = 1;
            for (int64_t i = 1; i < m - j; i++) vr[j + i] = col[i * n];
        }
        if (pe >= n) continue;
        int64_t L = m - j0, nc = n - pe;
        const T *ys = V + j0 * m + j0;
        T *c = a + j0 * n + pe;
        F(qr_tt)(ys, m, L, w, taus + j0, tt, wk);
        GEMM(w, nc, L, ys, m, 0, c, n, 0, wk, nc, 0); /* W = Yᵀ C */
        for (int64_t i = 0; i < w * QR_NB; i++) tt[i] = -tt[i];
        GEMM(w, nc, w, tt, QR_NB, 1, wk, nc, 0, wk2, nc, 0); /* -Ttᵀ W */
        GEMM(L, nc, w, ys, m, 1, wk2, nc, 0, c, n, 1);       /* C += Y (-Ttᵀ W) */
    }
}

/* q (m × qc) := H_0 ⋯ H_{k-1} [I; 0] from V and taus (orgqr). */
static void F(qr_form_q_blocked)(T *q, int64_t m, int64_t qc, int64_t k, const T *V, const T *taus, T *tt, T *wk,
                                 T *wk2) {
    for (int64_t i = 0; i < m; i++)
        for (int64_t c = 0; c < qc; c++) q[i * qc + c] = i == c;
    for (int64_t k0 = (k - 1) / QR_NB * QR_NB; k0 >= 0; k0 -= QR_NB) {
        int64_t w = k - k0 < QR_NB ? k - k0 : QR_NB, L = m - k0, nc = qc - k0;
        const T *ys = V + k0 * m + k0;
        T *z = q + k0 * qc + k0;
        F(qr_tt)(ys, m, L, w, taus + k0, tt, wk);
        GEMM(w, nc, L, ys, m, 0, z, qc, 0, wk, nc, 0); /* W = Yᵀ Z */
        for (int64_t i = 0; i < w * QR_NB; i++) tt[i] = -tt[i];
        GEMM(w, nc, w, tt, QR_NB, 0, wk, nc, 0, wk2, nc, 0); /* -Tt W */
        GEMM(L, nc, w, ys, m, 1, wk2, nc, 0, z, qc, 1);      /* Z += Y (-Tt W) */
    }
}

static void F(qr_one_blocked)(int64_t m, int64_t n, int complete, const T *a, T *q, T *r, T *work) {
    int64_t k = m < n ? m : n, qc = complete ? m : k, wide = m > n ? m : n;
    T *V = work, *taus = V + k * m, *tt = taus + k, *wk = tt + QR_NB * QR_NB, *wk2 = wk + QR_NB * wide;
    if (complete || m <= n) { /* r has a's shape: factor there */
        if (r != a) memcpy(r, a, sizeof(T) * (size_t)(m * n));
        F(qr_factor_blocked)(r, m, n, V, taus, tt, wk, wk2);
        for (int64_t i = 1; i < m; i++)
            for (int64_t c = 0; c < i && c < n; c++) r[i * n + c] = 0;
    } else { /* reduced and tall: factor in q, R its top n rows */
        if (q != a) memcpy(q, a, sizeof(T) * (size_t)(m * n));
        F(qr_factor_blocked)(q, m, n, V, taus, tt, wk, wk2);
        for (int64_t i = 0; i < n; i++)
            for (int64_t c = 0; c < n; c++) r[i * n + c] = c >= i ? q[i * n + c] : 0;
    }
    F(qr_form_q_blocked)(q, m, qc, k, V, taus, tt, wk, wk2);
}

static void F(qr_one)(int64_t m, int64_t n, int complete, const T *a, T *q, T *r, T *work) {
    int64_t k = m < n ? m : n, qc = complete ? m : k;
    if (k >= QR_BLOCKED_MIN) {
        F(qr_one_blocked)(m, n, complete, a, q, r, work);
        return;
    }
    if (complete || m <= n) { /* r has a's shape: factor there, Q apart */
        if (r != a) memcpy(r, a, sizeof(T) * (size_t)(m * n));
        F(qr_factor)(r, m, n);
        for (int64_t i = 0; i < m; i++)
            for (int64_t c = 0; c < qc; c++) q[i * qc + c] = c < k && i > c ? r[i * n + c] : 0;
        F(qr_form_q)(q, m, qc, k);
        for (int64_t i = 1; i < m; i++)
            for (int64_t c = 0; c < i && c < n; c++) r[i * n + c] = 0;
    } else { /* reduced and tall: q has a's shape, R is its top n rows */
        if (q != a) memcpy(q, a, sizeof(T) * (size_t)(m * n));
        F(qr_factor)(q, m, n);
        for (int64_t i = 0; i < n; i++)
            for (int64_t c = 0; c < n; c++) r[i * n + c] = c >= i ? q[i * n + c] : 0;
        F(qr_form_q)(q, m, n, n);
    }
}

typedef struct {
    int64_t m, n;
    int complete;
    const T *a;
    T *q, *r, *work;
} F(qr_job);

static void F(qr_range)(void *arg, int64_t begin, int64_t end) {
    F(qr_job) *j = arg;
    int64_t k = j->m < j->n ? j->m : j->n, qc = j->complete ? j->m : k, rr = qc, we = rt_qr_work(j->m, j->n);
    for (int64_t i = begin; i < end; i++)
        F(qr_one)(j->m, j->n, j->complete, j->a + i * j->m * j->n, j->q + i * j->m * qc, j->r + i * rr * j->n,
                  j->work ? j->work + i * we : NULL);
}

void F(rt_qr_)(int64_t batch, int64_t m, int64_t n, int complete, const T *a, T *q, T *r, T *work) {
    if (batch <= 0 || m <= 0 || n <= 0) {
        /* an empty factor: Q is the identity's columns, R empty or zero */
        int64_t k = m < n ? m : n, qc = complete ? m : k;
        for (int64_t b = 0; b < batch; b++)
            for (int64_t i = 0; i < m * qc; i++) q[b * m * qc + i] = i / qc == i % qc;
        for (int64_t i = 0; i < batch * qc * n; i++) r[i] = 0;
        return;
    }
    F(qr_job) job = {m, n, complete, a, q, r, work};
    int64_t k = m < n ? m : n;
    rt_parallel_for(batch, rt_linalg_grain(4 * m * n * k), F(qr_range), &job);
}

#undef F
#undef CAT
#undef CAT_
