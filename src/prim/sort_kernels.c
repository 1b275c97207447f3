/* sort_kernels.c — ordered keys and stable row sorts for sort and top_k
 * (prim layer, family SORT; see sort_kernels.h for the orders).
 *
 * One key of at most 32 bits (the common case: f32, i32, bool) is packed
 * with its index into one uint64_t, key high, and the packed words are
 * sorted by a least-significant-digit radix sort over the key's four
 * bytes: stable because each pass is, and the index rides along for free.
 * Short rows use insertion sort instead (a radix pass costs 256 counters).
 * Several keys, or 64-bit keys, go through a stable bottom-up merge sort
 * of indices. */
#include <string.h>

#include "sort_kernels.h"

int sort_key_bits(cj_dtype dt) { return dt == CJ_I64 || dt == CJ_F64 ? 64 : 32; }

static inline uint32_t ordered32(uint32_t u) { return u & 0x80000000u ? ~u : u | 0x80000000u; }
static inline uint64_t ordered64(uint64_t u) {
    return u & 0x8000000000000000ull ? ~u : u | 0x8000000000000000ull;
}

void sort_row_keys(cj_dtype dt, bool total, const void *base, int64_t stride, int64_t n, uint64_t *keys) {
    switch (dt) {
    case CJ_BOOL: {
        const uint8_t *x = base;
        for (int64_t j = 0; j < n; j++) keys[j] = x[j * stride] != 0;
        return;
    }
    case CJ_I32: {
        const int32_t *x = base;
        for (int64_t j = 0; j < n; j++) keys[j] = (uint32_t)x[j * stride] ^ 0x80000000u;
        return;
    }
    case CJ_I64: {
        const int64_t *x = base;
        for (int64_t j = 0; j < n; j++) keys[j] = (uint64_t)x[j * stride] ^ 0x8000000000000000ull;
        return;
    }
    case CJ_F32: {
        const float *x = base;
        for (int64_t j = 0; j < n; j++) {
            float v = x[j * stride];
            uint32_t u;
            memcpy(&u, &v, 4);
            if (!total) { /* lax.sort canonicalises -0.0 to 0.0 and every NaN to +NaN */
                if (v == 0.0f) u = 0;
                else if (v != v) u = 0x7FC00000u;
            }
            keys[j] = ordered32(u);
        }
        return;
    }
    case CJ_F64: {
        const double *x = base;
        for (int64_t j = 0; j < n; j++) {
            double v = x[j * stride];
            uint64_t u;
            memcpy(&u, &v, 8);
            if (!total) {
                if (v == 0.0) u = 0;
                else if (v != v) u = 0x7FF8000000000000ull;
            }
            keys[j] = ordered64(u);
        }
        return;
    }
    default: return;
    }
}

/* Insertion sort of packed words (plain integer order: key, then index). */
static void insertion_u64(uint64_t *a, int64_t n) {
    for (int64_t i = 1; i < n; i++) {
        uint64_t v = a[i];
        int64_t j = i;
        for (; j > 0 && a[j - 1] > v; j--) a[j] = a[j - 1];
        a[j] = v;
    }
}

/* LSD radix sort of packed words by their high 32 bits; returns the buffer
 * (a or tmp) holding the result. Passes whose byte is the same in every
 * word are skipped (keys of bools, small integers). */
static uint64_t *radix_high32(uint64_t *a, uint64_t *tmp, int64_t n) {
    static const int shift[4] = {32, 40, 48, 56};
    int64_t count[4][256];
    memset(count, 0, sizeof count);
    for (int64_t j = 0; j < n; j++) {
        uint64_t w = a[j];
        count[0][(w >> 32) & 255]++;
        count[1][(w >> 40) & 255]++;
        count[2][(w >> 48) & 255]++;
        count[3][(w >> 56) & 255]++;
    }
    for (int p = 0; p < 4; p++) {
        int64_t *c = count[p];
        if (c[(a[0] >> shift[p]) & 255] == n) continue;
        int64_t at = 0;
        for (int b = 0; b < 256; b++) {
            int64_t m = c[b];
            c[b] = at;
            at += m;
        }
        for (int64_t j = 0; j < n; j++) {
            uint64_t w = a[j];
            tmp[c[(w >> shift[p]) & 255]++] = w;
        }
        uint64_t *t = a;
        a = tmp;
        tmp = t;
    }
    return a;
}

void sort_row_small_keys(const uint64_t *keys, int64_t n, uint64_t *scratch, uint32_t *perm) {
    if (n <= 0) return;
    uint64_t *a = scratch, *tmp = scratch + n;
    for (int64_t j = 0; j < n; j++) a[j] = keys[j] << 32 | (uint64_t)j;
    if (n <= 48) insertion_u64(a, n);
    else a = radix_high32(a, tmp, n);
    for (int64_t j = 0; j < n; j++) perm[j] = (uint32_t)a[j];
}

/* Is index a strictly before index b in the lexicographic key order? */
static inline bool lex_less(const uint64_t *const *keys, int n_keys, uint32_t a, uint32_t b) {
    for (int k = 0; k < n_keys; k++) {
        uint64_t x = keys[k][a], y = keys[k][b];
        if (x != y) return x < y;
    }
    return false;
}

void sort_row_lex(const uint64_t *const *keys, int n_keys, int64_t n, uint32_t *scratch, uint32_t *perm) {
    enum { RUN = 16 };
    for (int64_t j = 0; j < n; j++) perm[j] = (uint32_t)j;
    /* insertion-sorted runs, then merges of doubling width; a tie takes
     * the left run's element first, which keeps the sort stable */
    for (int64_t lo = 0; lo < n; lo += RUN) {
        int64_t hi = lo + RUN < n ? lo + RUN : n;
        for (int64_t i = lo + 1; i < hi; i++) {
            uint32_t v = perm[i];
            int64_t j = i;
            for (; j > lo && lex_less(keys, n_keys, v, perm[j - 1]); j--) perm[j] = perm[j - 1];
            perm[j] = v;
        }
    }
    uint32_t *src = perm, *dst = scratch;
    for (int64_t w = RUN; w < n; w *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * w) {
            int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            int64_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi) dst[o++] = lex_less(keys, n_keys, src[j], src[i]) ? src[j++] : src[i++];
            while (i < mid) dst[o++] = src[i++];
            while (j < hi) dst[o++] = src[j++];
        }
        uint32_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != perm) memcpy(perm, src, (size_t)n * sizeof *perm);
}

void sort_row_first_k(const uint64_t *keys, int bits, int64_t n, int64_t k, uint64_t *scratch, uint32_t *first) {
    if (k <= 0 || n <= 0) return;
    if (k <= 64 && k * 8 <= n) {
        /* selection: the k best so far, sorted, in a buffer of (key, index);
         * an element enters only when it beats the worst of them, so a
         * random row costs about n comparisons */
        uint64_t *bk = scratch;
        uint32_t *bi = (uint32_t *)(scratch + k);
        int64_t m = 0;
        for (int64_t j = 0; j < n; j++) {
            uint64_t v = keys[j];
            if (m == k && v >= bk[k - 1]) continue; /* equal keys: the earlier index stays */
            int64_t i = m < k ? m++ : k - 1;
            for (; i > 0 && bk[i - 1] > v; i--) {
                bk[i] = bk[i - 1];
                bi[i] = bi[i - 1];
            }
            bk[i] = v;
            bi[i] = (uint32_t)j;
        }
        memcpy(first, bi, (size_t)k * sizeof *first);
        return;
    }
    /* a full stable sort, then its first k */
    uint32_t *perm = (uint32_t *)scratch, *tmp = perm + n;
    if (bits == 32) {
        /* the packed sort needs 2n words of its own: perm lives after them */
        uint64_t *a = scratch, *t = scratch + n;
        for (int64_t j = 0; j < n; j++) a[j] = keys[j] << 32 | (uint64_t)j;
        if (n <= 48) insertion_u64(a, n);
        else a = radix_high32(a, t, n);
        for (int64_t j = 0; j < k; j++) first[j] = (uint32_t)a[j];
        return;
    }
    const uint64_t *one[1] = {keys};
    sort_row_lex(one, 1, n, tmp, perm);
    memcpy(first, perm, (size_t)k * sizeof *first);
}

void sort_row_permute(size_t size, const void *in, void *out, int64_t stride, int64_t n, const uint32_t *perm) {
    switch (size) {
    case 1: {
        const uint8_t *x = in;
        uint8_t *y = out;
        for (int64_t j = 0; j < n; j++) y[j * stride] = x[(int64_t)perm[j] * stride];
        return;
    }
    case 4: {
        const uint32_t *x = in;
        uint32_t *y = out;
        for (int64_t j = 0; j < n; j++) y[j * stride] = x[(int64_t)perm[j] * stride];
        return;
    }
    default: {
        const uint64_t *x = in;
        uint64_t *y = out;
        for (int64_t j = 0; j < n; j++) y[j * stride] = x[(int64_t)perm[j] * stride];
        return;
    }
    }
}
