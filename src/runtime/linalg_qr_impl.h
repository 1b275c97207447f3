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

static void F(qr_one)(int64_t m, int64_t n, int complete, const T *a, T *q, T *r) {
    int64_t k = m < n ? m : n, qc = complete ? m : k;
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
    T *q, *r;
} F(qr_job);

static void F(qr_range)(void *arg, int64_t begin, int64_t end) {
    F(qr_job) *j = arg;
    int64_t k = j->m < j->n ? j->m : j->n, qc = j->complete ? j->m : k, rr = qc;
    for (int64_t i = begin; i < end; i++)
        F(qr_one)(j->m, j->n, j->complete, j->a + i * j->m * j->n, j->q + i * j->m * qc, j->r + i * rr * j->n);
}

void F(rt_qr_)(int64_t batch, int64_t m, int64_t n, int complete, const T *a, T *q, T *r) {
    if (batch <= 0 || m <= 0 || n <= 0) {
        /* an empty factor: Q is the identity's columns, R empty or zero */
        int64_t k = m < n ? m : n, qc = complete ? m : k;
        for (int64_t b = 0; b < batch; b++)
            for (int64_t i = 0; i < m * qc; i++) q[b * m * qc + i] = i / qc == i % qc;
        for (int64_t i = 0; i < batch * qc * n; i++) r[i] = 0;
        return;
    }
    F(qr_job) job = {m, n, complete, a, q, r};
    int64_t k = m < n ? m : n;
    rt_parallel_for(batch, rt_linalg_grain(4 * m * n * k), F(qr_range), &job);
}

#undef F
#undef CAT
#undef CAT_
