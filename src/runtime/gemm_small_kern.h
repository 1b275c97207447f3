/* gemm_small_kern.h — the register kernels of the small products, written
 * once and instantiated by gemm_small.c for each (instruction set, element
 * type) pair (runtime layer; not a header to include anywhere else).
 *
 * The includer defines T (element type), KS (a name suffix such as
 * avx512_f32), KTARGET (a function attribute, possibly empty) and the
 * vector vocabulary over VT (a vector of VL elements of T):
 *   VZERO() VLOAD(p) VSTORE(p, v) VSET1(x) VFMA(a, b, c) = a·b + c
 *   VMUL(a, b) VADD(a, b), VHSUM(v) the sum of the lanes in a fixed order
 *   (halves added pairwise, in registers), optionally VHSUM4(a, b, c, d, out)
 *   the same sums of four vectors at once; MT is a lane mask, VMASK(n) the mask of the
 *   first n lanes (1 <= n <= VL), VLOADM(p, m) loads those lanes (zeros
 *   elsewhere, never touching memory past them) and VSTOREM(p, m, v)
 *   stores only them.
 *
 * Two kernels, each computing every element by a sequence of operations
 * that depends on the element's own depth k only — not on how many rows or
 * columns share a pass, nor on where the pass starts — so a product gives
 * the same bits whichever way its rows or columns are split over calls,
 * blocks or threads:
 *   rowdot  y[r] = Σ_p A[r, p] · x[p] for up to 4 rows at once (matrix ·
 *           vector with contiguous rows): per row two vector accumulators
 *           over 2·VL-element steps, a masked tail, then a fixed tree;
 *   direct  C[r, j] = Σ_p a(r, p) · B[p, j] for R rows × NV vectors of
 *           columns (outer products, rank-k updates, vector · matrix,
 *           small products): per element a(r,0)·B[0,j], then one fused
 *           multiply-add per p in order. */

#define KCAT_(a, b) a##_##b
#define KCAT(a, b) KCAT_(a, b)
#define KF(name) KCAT(name, KS)
#define KINLINE static inline __attribute__((always_inline)) KTARGET

/* y[r] = Σ_p A[r·lda + p] · x[p] for r < R (R = 1..4). With pf, each
 * step also prefetches the same columns of the next four rows (the next
 * pass's): a matrix that lives in L2 (an RNN's 256×256 weights, read
 * once per step) then streams at ~92 instead of ~82 GB/s, 11 % off the
 * product (256×64: 20 %); from L1 or from memory it gains nothing
 * (measured, one thread: 64×128 lost 8 %), so rowdot_range asks for it
 * only in between. Prefetches past A's end do not fault. */
KINLINE void KF(rowdot)(int R, int64_t k, const T *A, int64_t lda, const T *x, T *y, int pf) {
    VT a0[4], a1[4];
    for (int r = 0; r < R; r++) a0[r] = a1[r] = VZERO();
    int64_t p = 0;
    for (; p + 2 * VL <= k; p += 2 * VL) {
        VT x0 = VLOAD(x + p), x1 = VLOAD(x + p + VL);
        for (int r = 0; r < R; r++) {
            if (pf) {
                const char *next = (const char *)(A + (r + 4) * lda + p);
                for (int q = 0; q < (int)(2 * VL * sizeof(T)); q += 64) __builtin_prefetch(next + q, 0, 3);
            }
            a0[r] = VFMA(VLOAD(A + r * lda + p), x0, a0[r]);
            a1[r] = VFMA(VLOAD(A + r * lda + p + VL), x1, a1[r]);
        }
    }
    if (p + VL <= k) {
        VT x0 = VLOAD(x + p);
        for (int r = 0; r < R; r++) a0[r] = VFMA(VLOAD(A + r * lda + p), x0, a0[r]);
        p += VL;
    }
    if (p < k) {
        MT m = VMASK((int)(k - p));
        VT x1 = VLOADM(x + p, m);
        for (int r = 0; r < R; r++) a1[r] = VFMA(VLOADM(A + r * lda + p, m), x1, a1[r]);
    }
#ifdef VHSUM4
    if (R == 4) {
        VHSUM4(VADD(a0[0], a1[0]), VADD(a0[1], a1[1]), VADD(a0[2], a1[2]), VADD(a0[3], a1[3]), y);
        return;
    }
#endif
    for (int r = 0; r < R; r++) y[r] = VHSUM(VADD(a0[r], a1[r]));
}

/* C[r·ldc + j] (=, or += when acc) Σ_p a(r, p) · B[p·ldb + j] for r < R
 * and j < (NV-1)·VL + last, with a(r, p) = A[r·ars + p·acs]; k >= 1.
 * `last` (1..VL) is how many lanes of the last vector are columns. */
KINLINE void KF(direct)(int R, int NV, int64_t k, const T *A, int64_t ars, int64_t acs, const T *B,
                        int64_t ldb, int last, T *C, int64_t ldc, int acc) {
    VT c[4][8];
    MT m = VMASK(last);
    int full = last == VL;
    {
        VT b[8];
        for (int v = 0; v < NV; v++)
            b[v] = v == NV - 1 && !full ? VLOADM(B + v * VL, m) : VLOAD(B + v * VL);
        for (int r = 0; r < R; r++) {
            VT av = VSET1(A[r * ars]);
            for (int v = 0; v < NV; v++) c[r][v] = VMUL(av, b[v]);
        }
    }
    for (int64_t p = 1; p < k; p++) {
        const T *bp = B + p * ldb;
        VT b[8];
        for (int v = 0; v < NV; v++) b[v] = v == NV - 1 && !full ? VLOADM(bp + v * VL, m) : VLOAD(bp + v * VL);
        for (int r = 0; r < R; r++) {
            VT av = VSET1(A[r * ars + p * acs]);
            for (int v = 0; v < NV; v++) c[r][v] = VFMA(av, b[v], c[r][v]);
        }
    }
    for (int r = 0; r < R; r++) {
        T *cr = C + r * ldc;
        for (int v = 0; v < NV; v++) {
            int part = v == NV - 1 && !full;
            VT out = c[r][v];
            if (acc) out = VADD(part ? VLOADM(cr + v * VL, m) : VLOAD(cr + v * VL), out);
            if (part) VSTOREM(cr + v * VL, m, out);
            else VSTORE(cr + v * VL, out);
        }
    }
}

/* ---- the loops over a whole product, one pass at a time ---------------- */

/* y[i·incy] (=, or += when acc) Σ_p A[i·lda + p] · x[p] for i in [i0, i1),
 * prefetching (pf) or not: two functions, so the plain one's loop is
 * compiled as if the prefetch did not exist (with one function taking a
 * flag, L1-sized products ran 7 % slower). */
KINLINE void KF(rowdot_rows)(int64_t i0, int64_t i1, int64_t k, const T *A, int64_t lda, const T *x, T *y,
                             int64_t incy, int acc, int pf) {
    T s[4];
    int64_t i = i0;
    for (; i + 4 <= i1; i += 4) {
        KF(rowdot)(4, k, A + i * lda, lda, x, s, pf);
        for (int r = 0; r < 4; r++) y[(i + r) * incy] = acc ? y[(i + r) * incy] + s[r] : s[r];
    }
    for (; i < i1; i++) {
        KF(rowdot)(1, k, A + i * lda, lda, x, s, 0);
        y[i * incy] = acc ? y[i * incy] + s[0] : s[0];
    }
}

static __attribute__((noinline)) KTARGET void KF(rowdot_plain)(int64_t i0, int64_t i1, int64_t k, const T *A,
                                                               int64_t lda, const T *x, T *y, int64_t incy, int acc) {
    KF(rowdot_rows)(i0, i1, k, A, lda, x, y, incy, acc, 0);
}

static __attribute__((noinline)) KTARGET void KF(rowdot_pf)(int64_t i0, int64_t i1, int64_t k, const T *A,
                                                            int64_t lda, const T *x, T *y, int64_t incy, int acc) {
    KF(rowdot_rows)(i0, i1, k, A, lda, x, y, incy, acc, 1);
}

static KTARGET void KF(rowdot_range)(int64_t i0, int64_t i1, int64_t k, const T *A, int64_t lda,
                                     const T *x, T *y, int64_t incy, int acc) {
    /* the prefetch pays for rows of 64+ elements in a matrix past L1 and
     * within L2 (48 KiB .. 2 MiB; rows of 37 lost 6 %) */
    double bytes = (double)(i1 - i0) * (double)lda * (double)sizeof(T);
    if (k >= 64 && bytes >= 49152.0 && bytes <= 2097152.0) KF(rowdot_pf)(i0, i1, k, A, lda, x, y, incy, acc);
    else KF(rowdot_plain)(i0, i1, k, A, lda, x, y, incy, acc);
}

/* One pass of R rows over columns [j, j + w), 1 <= w <= NVMAX·VL. */
#define KDIRECT_CASES(R, NVMAX)                                                              \
    do {                                                                                     \
        int nv = (int)((w + VL - 1) / VL), last = (int)(w - (int64_t)(nv - 1) * VL);         \
        switch (nv) {                                                                        \
        case 1: KF(direct)(R, 1, k, a, ars, acs, b, ldb, last, c, ldc, acc); break;          \
        case 2: if (NVMAX >= 2) KF(direct)(R, 2, k, a, ars, acs, b, ldb, last, c, ldc, acc); break; \
        case 3: if (NVMAX >= 3) KF(direct)(R, 3, k, a, ars, acs, b, ldb, last, c, ldc, acc); break; \
        case 4: if (NVMAX >= 4) KF(direct)(R, 4, k, a, ars, acs, b, ldb, last, c, ldc, acc); break; \
        case 5: if (NVMAX >= 5) KF(direct)(R, 5, k, a, ars, acs, b, ldb, last, c, ldc, acc); break; \
        case 6: if (NVMAX >= 6) KF(direct)(R, 6, k, a, ars, acs, b, ldb, last, c, ldc, acc); break; \
        case 7: if (NVMAX >= 7) KF(direct)(R, 7, k, a, ars, acs, b, ldb, last, c, ldc, acc); break; \
        default: if (NVMAX >= 8) KF(direct)(R, 8, k, a, ars, acs, b, ldb, last, c, ldc, acc); break; \
        }                                                                                    \
    } while (0)

/* C[i, j] (=, or += when acc) Σ_p a(i, p) · B[p·ldb + j] over rows
 * [i0, i1) and columns [j0, j1), a(i, p) = A[i·ars + p·acs]; k >= 1.
 * Four rows × two vectors per pass (8 accumulators) while four rows
 * remain; a single row takes eight vectors per pass instead, so that it
 * too keeps eight independent chains of multiply-adds in flight. Columns
 * outside rows inside: a k × 2·VL panel of B stays in L1 while the row
 * groups pass over it. */
static KTARGET void KF(direct_range)(int64_t i0, int64_t i1, int64_t j0, int64_t j1, int64_t k,
                                     const T *A, int64_t ars, int64_t acs, const T *B, int64_t ldb,
                                     T *C, int64_t ldc, int acc) {
    int64_t rows4 = i0 + (i1 - i0) / 4 * 4;
    if (rows4 > i0)
        for (int64_t j = j0; j < j1; j += 2 * VL) {
            int64_t w = j1 - j < 2 * VL ? j1 - j : 2 * VL;
            const T *b = B + j;
            for (int64_t i = i0; i < rows4; i += 4) {
                const T *a = A + i * ars;
                T *c = C + i * ldc + j;
                KDIRECT_CASES(4, 2);
            }
        }
    for (int64_t i = rows4; i < i1; i++)
        for (int64_t j = j0; j < j1; j += 8 * VL) {
            int64_t w = j1 - j < 8 * VL ? j1 - j : 8 * VL;
            const T *a = A + i * ars, *b = B + j;
            T *c = C + i * ldc + j;
            KDIRECT_CASES(1, 8);
        }
}

/* The same sums for a short depth K <= 4 (outer products, rank-2..4
 * updates), where the register blocking above costs more than it saves:
 * one row at a time, a(i, ·) broadcast once into K registers, then two
 * vectors of columns per step. Identical operations per element, so
 * either loop may serve any row. */
KINLINE void KF(stream_row)(int K, int acc, const T *a, int64_t acs, const T *B, int64_t ldb, T *c,
                            int64_t j0, int64_t j1) {
    VT av[4];
    for (int p = 0; p < K; p++) av[p] = VSET1(a[p * acs]);
    int64_t j = j0;
    for (; j + 2 * VL <= j1; j += 2 * VL) {
        VT s0 = VMUL(av[0], VLOAD(B + j)), s1 = VMUL(av[0], VLOAD(B + j + VL));
        for (int p = 1; p < K; p++) {
            s0 = VFMA(av[p], VLOAD(B + p * ldb + j), s0);
            s1 = VFMA(av[p], VLOAD(B + p * ldb + j + VL), s1);
        }
        if (acc) {
            s0 = VADD(VLOAD(c + j), s0);
            s1 = VADD(VLOAD(c + j + VL), s1);
        }
        VSTORE(c + j, s0);
        VSTORE(c + j + VL, s1);
    }
    for (; j + VL <= j1; j += VL) {
        VT s = VMUL(av[0], VLOAD(B + j));
        for (int p = 1; p < K; p++) s = VFMA(av[p], VLOAD(B + p * ldb + j), s);
        if (acc) s = VADD(VLOAD(c + j), s);
        VSTORE(c + j, s);
    }
    if (j < j1) {
        MT m = VMASK((int)(j1 - j));
        VT s = VMUL(av[0], VLOADM(B + j, m));
        for (int p = 1; p < K; p++) s = VFMA(av[p], VLOADM(B + p * ldb + j, m), s);
        if (acc) s = VADD(VLOADM(c + j, m), s);
        VSTOREM(c + j, m, s);
    }
}

static KTARGET void KF(stream_range)(int64_t i0, int64_t i1, int64_t j0, int64_t j1, int64_t k,
                                     const T *A, int64_t ars, int64_t acs, const T *B, int64_t ldb,
                                     T *C, int64_t ldc, int acc) {
    for (int64_t i = i0; i < i1; i++) {
        const T *a = A + i * ars;
        T *c = C + i * ldc;
        switch ((int)k * 2 + (acc != 0)) {
        case 2: KF(stream_row)(1, 0, a, acs, B, ldb, c, j0, j1); break;
        case 3: KF(stream_row)(1, 1, a, acs, B, ldb, c, j0, j1); break;
        case 4: KF(stream_row)(2, 0, a, acs, B, ldb, c, j0, j1); break;
        case 5: KF(stream_row)(2, 1, a, acs, B, ldb, c, j0, j1); break;
        case 6: KF(stream_row)(3, 0, a, acs, B, ldb, c, j0, j1); break;
        case 7: KF(stream_row)(3, 1, a, acs, B, ldb, c, j0, j1); break;
        case 8: KF(stream_row)(4, 0, a, acs, B, ldb, c, j0, j1); break;
        default: KF(stream_row)(4, 1, a, acs, B, ldb, c, j0, j1); break;
        }
    }
}

#undef KDIRECT_CASES
#undef KINLINE
#undef KF
#undef KCAT
#undef KCAT_
