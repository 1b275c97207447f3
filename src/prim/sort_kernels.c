/* sort_kernels.c — ordered keys and stable row sorts for sort and top_k
 * (prim layer, family SORT; see sort_kernels.h for the orders).
 *
 * One key of at most 32 bits (the common case: f32, i32, bool) is packed
 * with its index into one uint64_t, key high, and the packed words are
 * sorted by a radix sort over the key's four bytes (the top byte first,
 * then the other three least significant first within each run): stable
 * because each pass is, and the index rides along for free.
 * Short rows use insertion sort instead (a radix pass costs 256 counters).
 * A lone operand of such keys (cj_sort of one array) is sorted as its keys
 * alone, half the bytes per pass, and mapped back: equal keys are then
 * equal bits, so stability cannot be seen, unless the row holds -0.0 or a
 * NaN other than the canonical one (lax.sort merges their keys with
 * others'), which takes the packed path. Several keys, or 64-bit keys, go
 * through a stable bottom-up merge sort of indices. */
#include <string.h>

#include "sort_kernels.h"

int sort_key_bits(cj_dtype dt) { return dt == CJ_I64 || dt == CJ_U64 || dt == CJ_F64 ? 64 : 32; }

static inline uint32_t ordered32(uint32_t u) { return u & 0x80000000u ? ~u : u | 0x80000000u; }
static inline uint64_t ordered64(uint64_t u) {
    return u & 0x8000000000000000ull ? ~u : u | 0x8000000000000000ull;
}
static inline uint32_t ordered16(uint32_t u) { return u & 0x8000u ? ~u & 0xFFFFu : u | 0x8000u; }

/* f16 / bf16 keys of 16 bits: lax.sort's order (zeros and NaNs merged:
 * 0x7E00 / 0x7FC0 are the canonical quiet NaNs) or the total one. */
static void keys_half(bool bf16, bool total, const uint16_t *x, int64_t stride, int64_t n, uint64_t *keys) {
    uint32_t exp = bf16 ? 0x7F80u : 0x7C00u, nan = bf16 ? 0x7FC0u : 0x7E00u;
    for (int64_t j = 0; j < n; j++) {
        uint32_t u = x[j * stride];
        if (!total) {
            if ((u & 0x7FFFu) == 0) u = 0;
            else if ((u & exp) == exp && (u & ~exp & 0x7FFFu)) u = nan;
        }
        keys[j] = ordered16(u);
    }
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
    /* the narrower integers: their value's order within 32 bits (signed
     * ones offset by 2^31, unsigned ones as they are) */
    case CJ_I8: {
        const int8_t *x = base;
        for (int64_t j = 0; j < n; j++) keys[j] = (uint32_t)(int32_t)x[j * stride] ^ 0x80000000u;
        return;
    }
    case CJ_I16: {
        const int16_t *x = base;
        for (int64_t j = 0; j < n; j++) keys[j] = (uint32_t)(int32_t)x[j * stride] ^ 0x80000000u;
        return;
    }
    case CJ_U8: {
        const uint8_t *x = base;
        for (int64_t j = 0; j < n; j++) keys[j] = x[j * stride];
        return;
    }
    case CJ_U16: {
        const uint16_t *x = base;
        for (int64_t j = 0; j < n; j++) keys[j] = x[j * stride];
        return;
    }
    case CJ_U32: {
        const uint32_t *x = base;
        for (int64_t j = 0; j < n; j++) keys[j] = x[j * stride];
        return;
    }
    case CJ_U64: {
        const uint64_t *x = base;
        for (int64_t j = 0; j < n; j++) keys[j] = x[j * stride];
        return;
    }
    case CJ_F16: keys_half(false, total, base, stride, n, keys); return;
    case CJ_BF16: keys_half(true, total, base, stride, n, keys); return;
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

/* LSD radix sort of packed words by the bytes of their key at bit
 * offsets shift[0..np), into buffer a or tmp (returned). A pass whose byte
 * is the same in every word is skipped (keys of bools, small integers). */
static uint64_t *radix_lsd(uint64_t *a, uint64_t *tmp, int64_t n, const int *shift, int np) {
    int64_t count[4][256];
    memset(count, 0, sizeof count);
    for (int64_t j = 0; j < n; j++)
        for (int p = 0; p < np; p++) count[p][(a[j] >> shift[p]) & 255]++;
    for (int p = 0; p < np; p++) {
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

/* Stable sort of packed words by their high 32 bits; returns the buffer
 * (a or tmp) holding the result. Long rows are split first by the key's
 * top byte (one pass, most significant digit), so each of the 256 runs
 * then takes its three LSD passes inside the cache instead of streaming
 * the whole row through memory three more times. Both steps are stable. */
static uint64_t *radix_high32(uint64_t *a, uint64_t *tmp, int64_t n) {
    static const int all[4] = {32, 40, 48, 56}, low3[3] = {32, 40, 48};
    if (n < 65536) return radix_lsd(a, tmp, n, all, 4);
    int64_t start[257] = {0};
    for (int64_t j = 0; j < n; j++) start[(a[j] >> 56) + 1]++;
    for (int b = 0; b < 256; b++) start[b + 1] += start[b];
    int64_t at[256];
    memcpy(at, start, sizeof at);
    for (int64_t j = 0; j < n; j++) tmp[at[a[j] >> 56]++] = a[j];
    for (int b = 0; b < 256; b++) {
        int64_t lo = start[b], m = start[b + 1] - lo;
        if (m <= 1) continue;
        if (m <= 48) {
            insertion_u64(tmp + lo, m);
            continue;
        }
        uint64_t *r = radix_lsd(tmp + lo, a + lo, m, low3, 3);
        if (r != tmp + lo) memcpy(tmp + lo, r, (size_t)m * sizeof *r);
    }
    return tmp;
}

const uint64_t *sort_row_packed(cj_dtype dt, bool total, const void *base, int64_t stride, int64_t n,
                                uint64_t *scratch) {
    uint64_t *a = scratch, *tmp = scratch + n;
    /* the keys are built in tmp's half, then packed with their index */
    sort_row_keys(dt, total, base, stride, n, tmp);
    for (int64_t j = 0; j < n; j++) a[j] = tmp[j] << 32 | (uint64_t)j;
    if (n <= 48) {
        insertion_u64(a, n);
        return a;
    }
    return radix_high32(a, tmp, n);
}

/* ---- one operand of narrow keys, sorted as its keys ---------------------- */

/* A key of at most 32 bits back to the element's bits (the inverse of
 * sort_row_keys where it is one to one). */
static inline uint32_t unkey32(cj_dtype dt, uint32_t k) {
    if (dt == CJ_F32) return k & 0x80000000u ? k & 0x7FFFFFFFu : ~k;
    return dt == CJ_I32 ? k ^ 0x80000000u : k;
}

bool sort_row_one_to_one(cj_dtype dt, const void *base, int64_t stride, int64_t n) {
    if (dt == CJ_I32 || dt == CJ_BOOL) return true;
    if (dt != CJ_F32) return false;
    const uint32_t *x = base;
    for (int64_t j = 0; j < n; j++) {
        uint32_t u = x[j * stride];
        /* -0.0 and NaNs other than the canonical one share another value's key */
        if (u == 0x80000000u || ((u & 0x7F800000u) == 0x7F800000u && (u & 0x7FFFFFu) && u != 0x7FC00000u))
            return false;
    }
    return true;
}

void sort_row_unkey_packed(cj_dtype dt, const uint64_t *packed, int64_t n, void *out, int64_t stride) {
    if (dt == CJ_BOOL) {
        uint8_t *y = out;
        for (int64_t j = 0; j < n; j++) y[j * stride] = (uint8_t)(packed[j] >> 32);
        return;
    }
    uint32_t *y = out;
    for (int64_t j = 0; j < n; j++) y[j * stride] = unkey32(dt, (uint32_t)(packed[j] >> 32));
}

/* The key of element i of a bool, i32 or f32 row (one to one: no canonicalising). */
static inline uint32_t narrow_key(cj_dtype dt, const void *in, int64_t i) {
    if (dt == CJ_BOOL) return ((const uint8_t *)in)[i] != 0;
    uint32_t u = ((const uint32_t *)in)[i];
    return dt == CJ_F32 ? ordered32(u) : u ^ 0x80000000u;
}

/* Writes sorted keys back as elements: out[j * stride] for j in [0, n). */
static void unkey_row(cj_dtype dt, const uint32_t *r, int64_t n, void *out, int64_t stride) {
    if (dt == CJ_BOOL) {
        uint8_t *y = out;
        for (int64_t j = 0; j < n; j++) y[j * stride] = (uint8_t)r[j];
        return;
    }
    uint32_t *y = out;
    for (int64_t j = 0; j < n; j++) y[j * stride] = unkey32(dt, r[j]);
}

/* The keys are made and counted in one pass; then an LSD radix sort by
 * digits of 11, 11 and 10 bits (three passes over 4-byte words; a pass
 * whose digit is the same everywhere is skipped), the last pass of 32-bit
 * elements into contiguous out scattering the elements themselves. */
bool sort_row_keys_only(cj_dtype dt, const void *in, void *out, int64_t stride, int64_t n, uint32_t *scratch) {
    static const int shift[3] = {0, 11, 22};
    static const uint32_t mask[3] = {2047, 2047, 1023};
    if (!sort_row_one_to_one(dt, in, stride, n)) return false;
    uint32_t *a = scratch, *tmp = scratch + n;
    if (n <= 48) {
        for (int64_t i = 0; i < n; i++) {
            uint32_t v = narrow_key(dt, in, i * stride);
            int64_t j = i;
            for (; j > 0 && a[j - 1] > v; j--) a[j] = a[j - 1];
            a[j] = v;
        }
        unkey_row(dt, a, n, out, stride);
        return true;
    }
    int64_t count[3 * 2048]; /* 48 KiB */
    memset(count, 0, sizeof count);
    for (int64_t j = 0; j < n; j++) {
        uint32_t w = narrow_key(dt, in, j * stride);
        a[j] = w;
        count[w & 2047]++;
        count[2048 + ((w >> 11) & 2047)]++;
        count[4096 + (w >> 22)]++;
    }
    int last = -1;
    for (int p = 0; p < 3; p++)
        if (count[2048 * p + ((a[0] >> shift[p]) & mask[p])] != n) last = p;
    bool direct = dt != CJ_BOOL && stride == 1;
    for (int p = 0; p <= last; p++) {
        int64_t *c = count + 2048 * p;
        if (c[(a[0] >> shift[p]) & mask[p]] == n) continue;
        int64_t at = 0;
        for (int b = 0; b <= (int)mask[p]; b++) {
            int64_t m = c[b];
            c[b] = at;
            at += m;
        }
        if (p == last && direct) { /* the final order, as elements */
            uint32_t *y = out;
            for (int64_t j = 0; j < n; j++) {
                uint32_t w = a[j];
                y[c[(w >> shift[p]) & mask[p]]++] = unkey32(dt, w);
            }
            return true;
        }
        for (int64_t j = 0; j < n; j++) {
            uint32_t w = a[j];
            tmp[c[(w >> shift[p]) & mask[p]]++] = w;
        }
        uint32_t *t = a;
        a = tmp;
        tmp = t;
    }
    unkey_row(dt, a, n, out, stride);
    return true;
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
        /* the 2n words hold the packed sort (key << 32 | index) */
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
    case 2: {
        const uint16_t *x = in;
        uint16_t *y = out;
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

void sort_row_permute_packed(size_t size, const void *in, void *out, int64_t stride, int64_t n,
                             const uint64_t *packed) {
    switch (size) {
    case 1: {
        const uint8_t *x = in;
        uint8_t *y = out;
        for (int64_t j = 0; j < n; j++) y[j * stride] = x[(int64_t)(uint32_t)packed[j] * stride];
        return;
    }
    case 2: {
        const uint16_t *x = in;
        uint16_t *y = out;
        for (int64_t j = 0; j < n; j++) y[j * stride] = x[(int64_t)(uint32_t)packed[j] * stride];
        return;
    }
    case 4: {
        const uint32_t *x = in;
        uint32_t *y = out;
        for (int64_t j = 0; j < n; j++) y[j * stride] = x[(int64_t)(uint32_t)packed[j] * stride];
        return;
    }
    default: {
        const uint64_t *x = in;
        uint64_t *y = out;
        for (int64_t j = 0; j < n; j++) y[j * stride] = x[(int64_t)(uint32_t)packed[j] * stride];
        return;
    }
    }
}

