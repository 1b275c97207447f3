/* linalg_svd_qr_impl.h — the singular values and vectors of an upper
 * bidiagonal matrix by implicit QR, for one element type (runtime layer),
 * included by linalg_svd.c once per type before linalg_bidiag_impl.h,
 * whose F(svd_bidiag) calls F(bdqr) for the vectors of f64 matrices (and
 * of the f32 ones whose Golub–Kahan vectors would not separate).
 *
 * The algorithm is Golub–Kahan's implicitly shifted QR step with Demmel
 * and Kahan's zero-shift variant (as LAPACK's bdsqr, top to bottom): B =
 * (d, e) in double goes to Σ by plane rotations from the right (columns k,
 * k+1) and the left (rows k, k+1), B_orig = U_B B V_Bᵀ kept true by
 * applying each rotation to a row pair of Uᵀ and Vᵀ (r × r, rows are the
 * vectors: every access contiguous). The shift is the smaller singular
 * value of the trailing 2 × 2, zero when it is negligible against |d_lo|
 * (the zero-shift sweep keeps the small singular values' relative
 * accuracy). An off-diagonal below eps·(|d_i| + |d_i+1|), or below
 * eps·‖B‖, splits the matrix; a diagonal entry below eps·‖B‖ is set to
 * zero and its row (or, at the bottom, its column) is rotated out, which
 * leaves a zero singular value. The vectors are as accurate as eps·‖B‖
 * over the gap, the usual backward-stable bound, at any condition number
 * — what the Golub–Kahan tridiagonal's eigenvectors, computed in double,
 * cannot give an f64 matrix.
 *
 * The rotations of one sweep are a sequence over adjacent rows lo..hi;
 * sequences are kept (c, s in double) and applied many at a time, a
 * column strip of W entries at a time: down a sequence the strip of row
 * k+1 meets the carried strip of row k in registers, and across the kept
 * sequences the r × W strip stays in cache, so the r³-order work runs at
 * the FMA rate instead of the memory's. For that the r × r matrices are
 * kept strip by strip (strip-major: strip c's r × w block contiguous, w
 * = W but the last): row-major strips lie a power of two apart at r =
 * 1024 and thrash the caches' sets (the whole f64 svd at n = 1024, one
 * thread: 2.1 s row-major, 1.5 s strip-major). F(bdqr_unstrip) moves
 * them to the layout their user wants. */

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define F(name) CAT(name, S)

#ifndef BDQR_W
/* A strip's width in elements: eight 32-byte vectors, so that eight
 * rotations' dependency chains (a multiply and an add each) overlap. */
#define BDQR_W (256 / (int)sizeof(T))
#define BDQR_CAP(r) (64 * (r) + 8) /* doubles of kept rotations: 16 full sweeps or more */
/* ... and the doubles that region needs to hold bdqr_unstrip's r² bits too */
#define BDQR_DOUBLES(r) (BDQR_CAP(r) > (r) * (r) / 64 + 1 ? BDQR_CAP(r) : (r) * (r) / 64 + 1)
/* (c, s, r) with c f + s g = r, -s f + c g = 0 (c = 1, s = 0 when g = 0). */
static inline void bdqr_rot(double f, double g, double *c, double *s, double *r) {
    if (g == 0) {
        *c = 1, *s = 0, *r = f;
    } else if (f == 0) {
        *c = 0, *s = 1, *r = g;
    } else {
        double h = hypot(f, g);
        *c = f / h, *s = g / h, *r = h;
    }
}
/* The smaller singular value of [f g; 0 h], without overflow. */
static double bdqr_ssmin(double f, double g, double h) {
    double fa = fabs(f), ga = fabs(g), ha = fabs(h);
    double mn = fa < ha ? fa : ha, mx = fa > ha ? fa : ha;
    if (mn == 0) return 0;
    if (ga < mx) {
        double as = 1 + mn / mx, at = (mx - mn) / mx, au = (ga / mx) * (ga / mx);
        return mn * (2 / (sqrt(as * as + au) + sqrt(at * at + au)));
    }
    double au = mx / ga;
    if (au == 0) return mn * mx / ga;
    double as = 1 + mn / mx, at = (mx - mn) / mx;
    double c = 1 / (sqrt(1 + (as * au) * (as * au)) + sqrt(1 + (at * au) * (at * au)));
    return 2 * (mn * c) * au;
}
#endif

/* Rows lo..lo+len of x (stride ld), columns [c0, c0 + w): the rotations
 * cs[0..len) in order, rotation k taking rows (lo+k, lo+k+1) to (c a + s
 * b, -s a + c b). */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("fp-contract=fast"))) /* -std=c11 turns contraction off: FMAs here */
#endif
static void F(bdqr_strip)(T *x, int64_t ld, int64_t c0, int64_t w, int64_t lo, int64_t len, const double *cs) {
    T *row = x + lo * ld + c0;
#if defined(__GNUC__)
    if (w == BDQR_W) { /* the carried strip in vector registers (GCC/Clang vectors: 32 bytes each) */
        typedef T vec __attribute__((vector_size(32)));
        enum { NV = 8 };
        vec a[NV];
        for (int v = 0; v < NV; v++) memcpy(&a[v], row + v * (32 / (int)sizeof(T)), 32);
        for (int64_t k = 0; k < len; k++) {
            T *next = row + ld;
            vec c = {0}, s = {0};
            c += (T)cs[2 * k], s += (T)cs[2 * k + 1];
            for (int v = 0; v < NV; v++) {
                vec b;
                memcpy(&b, next + v * (32 / (int)sizeof(T)), 32);
                vec out = c * a[v] + s * b;
                a[v] = c * b - s * a[v];
                memcpy(row + v * (32 / (int)sizeof(T)), &out, 32);
            }
            row = next;
        }
        for (int v = 0; v < NV; v++) memcpy(row + v * (32 / (int)sizeof(T)), &a[v], 32);
        return;
    }
#endif
    for (int64_t k = 0; k < len; k++) {
        T c = (T)cs[2 * k], s = (T)cs[2 * k + 1], *next = row + ld;
        for (int64_t j = 0; j < w; j++) {
            T a = row[j], b = next[j];
            row[j] = c * a + s * b;
            next[j] = c * b - s * a;
        }
        row = next;
    }
}

/* The kept sequences (buf: at rb[0..used), each lo, len, then len right
 * rotations' (c, s), then len left ones') applied to vt and ut (r × r). */
static void F(bdqr_flush)(T *ut, T *vt, int64_t r, const double *rb, int64_t used) {
    for (int side = 0; side < 2; side++) {
        T *x = side ? ut : vt;
        for (int64_t c0 = 0; c0 < r; c0 += BDQR_W) {
            int64_t w = r - c0 < BDQR_W ? r - c0 : BDQR_W;
            for (int64_t at = 0; at < used;) {
                int64_t lo = (int64_t)rb[at], len = (int64_t)rb[at + 1];
                F(bdqr_strip)(x + c0 * r, w, 0, w, lo, len, rb + at + 2 + side * 2 * len);
                at += 2 + 4 * len;
            }
        }
    }
}

/* Where entry (i, j) of a strip-major r × r matrix lies. */
static inline int64_t F(bdqr_at)(int64_t r, int64_t i, int64_t j) {
    int64_t c0 = j / BDQR_W * BDQR_W, w = r - c0 < BDQR_W ? r - c0 : BDQR_W;
    return c0 * r + i * w + (j - c0);
}

/* In place: x (strip-major, row t = vector t) becomes row-major y with
 * y[i·r + t] = ±x[perm[t]][i], negated where neg[t] (NULL: none):
 * the vectors as columns in σ's order. One cycle-following permutation
 * of the entries; seen: r² bits. */
static void F(bdqr_unstrip)(T *x, int64_t r, const int64_t *perm, const unsigned char *neg, unsigned char *seen) {
    int64_t n = r * r;
    memset(seen, 0, (size_t)((n + 7) / 8));
    for (int64_t q0 = 0; q0 < n; q0++) {
        if (seen[q0 >> 3] & (1 << (q0 & 7))) continue;
        T first = x[q0];
        int64_t q = q0;
        for (;;) {
            seen[q >> 3] |= (unsigned char)(1 << (q & 7));
            int64_t i = q / r, t = q % r, p = F(bdqr_at)(r, perm[t], i);
            T v = p == q0 ? first : x[p];
            x[q] = neg && neg[t] ? -v : v;
            if (p == q0) break;
            q = p;
        }
    }
}

/* Rows i and j of x (length r): (c a + s b, -s a + c b). */
static void F(bdqr_pair)(T *x, int64_t r, int64_t i, int64_t j, double c, double s) {
    T tc = (T)c, ts = (T)s;
    for (int64_t c0 = 0; c0 < r; c0 += BDQR_W) {
        int64_t w = r - c0 < BDQR_W ? r - c0 : BDQR_W;
        T *a = x + c0 * r + i * w, *b = x + c0 * r + j * w;
        for (int64_t k = 0; k < w; k++) {
            T p = a[k], q = b[k];
            a[k] = tc * p + ts * q;
            b[k] = tc * q - ts * p;
        }
    }
}

/* B = (d: r entries, e: r-1) to its singular values, in place in d
 * (signed, unordered: the caller takes |d| and flips the vector), with
 * ut, vt (r × r, overwritten, strip-major) holding U_Bᵀ and V_Bᵀ: B =
 * U_B diag(d) V_Bᵀ. rb: BDQR_CAP(r) doubles. 0 when it has not converged in 6r²
 * rotations (LAPACK's bound; the caller gives NaN, as gesdd's info). */
static int F(bdqr)(double *d, double *e, int64_t r, T *ut, T *vt, double *rb) {
    for (int64_t i = 0; i < r * r; i++) ut[i] = vt[i] = 0;
    for (int64_t i = 0; i < r; i++) ut[F(bdqr_at)(r, i, i)] = vt[F(bdqr_at)(r, i, i)] = 1;
    double bnorm = 0;
    for (int64_t i = 0; i < r; i++) {
        bnorm = fmax(bnorm, fabs(d[i]));
        if (i + 1 < r) bnorm = fmax(bnorm, fabs(e[i]));
    }
    if (bnorm == 0) return 1;
    const double eps = DBL_EPSILON, tiny = eps * bnorm;
    int64_t hi = r - 1, used = 0, cap = BDQR_CAP(r), budget = 6 * r * r + 60;
    while (hi > 0) {
        /* split: the block lo..hi has no negligible off-diagonal */
        int64_t lo = hi;
        while (lo > 0) {
            double x = fabs(e[lo - 1]);
            if (x <= tiny || x <= eps * (fabs(d[lo - 1]) + fabs(d[lo]))) {
                e[lo - 1] = 0;
                break;
            }
            lo--;
        }
        if (lo == hi) {
            hi--;
            continue;
        }
        /* a negligible diagonal entry: zero it and rotate its row (or the
         * bottom one's column) out of the block */
        int64_t z = -1;
        for (int64_t k = lo; k <= hi && z < 0; k++)
            if (fabs(d[k]) <= tiny) z = k;
        if (z >= 0) {
            F(bdqr_flush)(ut, vt, r, rb, used);
            used = 0;
            d[z] = 0;
            double c, s, t;
            if (z < hi) { /* row z against rows z+1..hi, from the left */
                double f = e[z];
                e[z] = 0;
                for (int64_t j = z + 1; j <= hi; j++) {
                    bdqr_rot(d[j], f, &c, &s, &t);
                    d[j] = t;
                    F(bdqr_pair)(ut, r, j, z, c, s);
                    if (j < hi) f = -s * e[j], e[j] *= c;
                }
            } else { /* column hi against columns hi-1..lo, from the right */
                double f = e[hi - 1];
                e[hi - 1] = 0;
                for (int64_t j = hi - 1; j >= lo; j--) {
                    bdqr_rot(d[j], f, &c, &s, &t);
                    d[j] = t;
                    F(bdqr_pair)(vt, r, j, hi, c, s);
                    if (j > lo) f = -s * e[j - 1], e[j - 1] *= c;
                }
            }
            continue;
        }
        int64_t len = hi - lo;
        if ((budget -= len) < 0) return 0;
        if (used + 2 + 4 * len > cap) {
            F(bdqr_flush)(ut, vt, r, rb, used);
            used = 0;
        }
        double *rr = rb + used + 2, *rl = rr + 2 * len;
        rb[used] = (double)lo, rb[used + 1] = (double)len;
        used += 2 + 4 * len;
        double shift = bdqr_ssmin(d[hi - 1], e[hi - 1], d[hi]), sll = fabs(d[lo]);
        if ((shift / sll) * (shift / sll) < eps) shift = 0;
        double c, s, t;
        if (shift == 0) { /* Demmel–Kahan: no subtraction, relative accuracy kept */
            double cs = 1, oc = 1, os = 0;
            for (int64_t k = lo; k < hi; k++) {
                bdqr_rot(d[k] * cs, e[k], &cs, &s, &t);
                if (k > lo) e[k - 1] = os * t;
                double sn = s;
                bdqr_rot(oc * t, d[k + 1] * sn, &oc, &os, &d[k]);
                rr[2 * (k - lo)] = cs, rr[2 * (k - lo) + 1] = sn;
                rl[2 * (k - lo)] = oc, rl[2 * (k - lo) + 1] = os;
            }
            double h = d[hi] * cs;
            d[hi] = h * oc;
            e[hi - 1] = h * os;
        } else { /* the shifted step, its bulge chased down */
            double f = (fabs(d[lo]) - shift) * (copysign(1, d[lo]) + shift / d[lo]), g = e[lo];
            for (int64_t k = lo; k < hi; k++) {
                bdqr_rot(f, g, &c, &s, &t);
                if (k > lo) e[k - 1] = t;
                f = c * d[k] + s * e[k];
                e[k] = c * e[k] - s * d[k];
                g = s * d[k + 1];
                d[k + 1] = c * d[k + 1];
                rr[2 * (k - lo)] = c, rr[2 * (k - lo) + 1] = s;
                bdqr_rot(f, g, &c, &s, &t);
                d[k] = t;
                f = c * e[k] + s * d[k + 1];
                d[k + 1] = c * d[k + 1] - s * e[k];
                if (k + 1 < hi) g = s * e[k + 1], e[k + 1] = c * e[k + 1];
                rl[2 * (k - lo)] = c, rl[2 * (k - lo) + 1] = s;
            }
            e[hi - 1] = f;
        }
    }
    F(bdqr_flush)(ut, vt, r, rb, used);
    return 1;
}

#undef F
#undef CAT
#undef CAT_
