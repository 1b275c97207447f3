/* conv.c — the convolution kernel: im2col + GEMM (runtime layer; layouts
 * and grouping in conv.h).
 *
 * For one output image and group, the output block [Og, P] (P output
 * positions) is W[Og, I·K] · col[I·K, P], where col's row (c, k) holds the
 * input element each output position's window reads at kernel offset k of
 * feature c (zero in padding and in the holes of lhs dilation). The
 * canonical rhs rows are exactly W's rows, so only col is built, a block
 * of at most COL_BYTES at a time, and the GEMM writes straight into the
 * output with a row stride of P. Which input element each (kernel offset,
 * output coordinate) reads is tabled once per call, per kernel offset
 * (every feature reads the same positions); along the last axis, with
 * stride 1 and no lhs dilation, a row of col is zeros, one copied
 * stretch, zeros. */
#include <string.h>

#include "conv.h"
#include "gemm.h"
#include "threads.h"

#define COL_BYTES ((size_t)1 << 20)

typedef struct conv_job {
    const rt_conv_desc *d;
    const char *lhs, *rhs;
    char *out;
    int64_t P, K, IK, og, n_groups, items, chunks, pb, tab_len;
    size_t es;
    char **col;          /* one block buffer per chunk */
    const int64_t *ktab; /* per kernel offset k: input offset of each (dim, output coordinate), -1 outside */
    int contig_last;     /* the last axis reads consecutive inputs (stride 1, no lhs dilation) */
    int transposed;      /* colᵀ per block of features (run_item_t) instead of col per block of positions */
} conv_job;

/* The tables of kernel offset kk: for each spatial axis a and output
 * coordinate y, the input offset the window reads (index · axis stride),
 * or -1 in padding or a hole of lhs dilation. Built once per call: every
 * feature c of the same kernel offset reads the same positions. */
static void fill_tables(const rt_conv_desc *d, const int64_t *kk, int64_t *tab) {
    int64_t instride[CJ_MAX_RANK], s = 1;
    for (int a = d->nsp - 1; a >= 0; a--) instride[a] = s, s *= d->in[a];
    for (int a = 0; a < d->nsp; a++) {
        int64_t dil = d->lhs_dil[a];
        for (int64_t y = 0; y < d->out[a]; y++) {
            int64_t q = y * d->stride[a] + kk[a] * d->rhs_dil[a] - d->lo[a];
            int64_t i = dil == 1 ? q : q >= 0 && q % dil == 0 ? q / dil : -1;
            *tab++ = i >= 0 && i < d->in[a] ? i * instride[a] : -1;
        }
    }
}

/* The tables of output position y (the transposed mode): for each
 * spatial axis a and kernel coordinate, the input offset or -1. */
static void fill_tables_t(const rt_conv_desc *d, const int64_t *y, int64_t *tab) {
    int64_t instride[CJ_MAX_RANK], s = 1;
    for (int a = d->nsp - 1; a >= 0; a--) instride[a] = s, s *= d->in[a];
    for (int a = 0; a < d->nsp; a++) {
        int64_t dil = d->lhs_dil[a];
        for (int64_t k = 0; k < d->k[a]; k++) {
            int64_t q = y[a] * d->stride[a] + k * d->rhs_dil[a] - d->lo[a];
            int64_t i = dil == 1 ? q : q >= 0 && q % dil == 0 ? q / dil : -1;
            *tab++ = i >= 0 && i < d->in[a] ? i * instride[a] : -1;
        }
    }
}

/* pb consecutive elements of feature c of one image, read at the
 * positions a table names: positions y over a grid of extents ext (in
 * row-major order from ystart), axis a reading input offset tab_a[y[a]]
 * (-1: a zero). With ext = the output sizes and a kernel offset's tables
 * (fill_tables) this is a row (c, k) of col over a block of output
 * positions; with ext = the kernel sizes and an output position's tables
 * (fill_tables_t) it is the stretch (c, all k) of a row of colᵀ. contig:
 * along the last axis the real inputs are one consecutive stretch. */
#define FILL_ROW(T)                                                                                    \
    static void fill_row_##T(const conv_job *j, const T *img, int64_t c, const int64_t *tab,           \
                             const int64_t *ext, int contig, const int64_t *ystart, int64_t pb, T *dst) { \
        const rt_conv_desc *d = j->d;                                                                  \
        int nsp = d->nsp;                                                                              \
        int64_t base = 0;                                                                              \
        const int64_t *t[CJ_MAX_RANK];                                                                 \
        int64_t s = 1;                                                                                 \
        for (int a = nsp - 1; a >= 0; a--) s *= d->in[a];                                             \
        img += c * s;                                                                                  \
        for (int a = 0; a < nsp; a++) t[a] = tab + base, base += ext[a];                               \
        if (nsp == 0) {                                                                                \
            if (pb > 0) dst[0] = img[0];                                                               \
            return;                                                                                    \
        }                                                                                              \
        /* runs along the last output axis: the outer axes' offset once per run */                     \
        int64_t y[CJ_MAX_RANK], inner = ext[nsp - 1];                                                  \
        for (int a = 0; a < nsp; a++) y[a] = ystart[a];                                                \
        for (int64_t p = 0; p < pb;) {                                                                 \
            int64_t off = 0;                                                                           \
            int ok = 1;                                                                                \
            for (int a = 0; a < nsp - 1; a++) {                                                        \
                int64_t v = t[a][y[a]];                                                                \
                ok &= v >= 0;                                                                          \
                off += v;                                                                              \
            }                                                                                          \
            int64_t y0 = y[nsp - 1], run = inner - y0 < pb - p ? inner - y0 : pb - p;                 \
            const int64_t *tl = t[nsp - 1] + y0;                                                       \
            T *o = dst + p;                                                                            \
            if (!ok) {                                                                                 \
                for (int64_t i = 0; i < run; i++) o[i] = (T)0;                                         \
            } else if (contig) {                                                                       \
                /* the real inputs form one consecutive stretch: zeros, a copy, zeros */               \
                const T *row = img + off;                                                              \
                int64_t i = 0, e = run;                                                                \
                while (i < e && tl[i] < 0) o[i++] = (T)0;                                              \
                while (e > i && tl[e - 1] < 0) o[--e] = (T)0;                                          \
                if (e > i) memcpy(o + i, row + tl[i], (size_t)(e - i) * sizeof(T));                    \
            } else {                                                                                   \
                const T *row = img + off;                                                              \
                for (int64_t i = 0; i < run; i++) o[i] = tl[i] >= 0 ? row[tl[i]] : (T)0;               \
            }                                                                                          \
            p += run;                                                                                  \
            y[nsp - 1] = 0;                                                                            \
            for (int a = nsp - 2; a >= 0; a--) {                                                       \
                if (++y[a] < ext[a]) break;                                                            \
                y[a] = 0;                                                                              \
            }                                                                                          \
        }                                                                                              \
    }
FILL_ROW(float)
FILL_ROW(double)

/* One (image, group) item, block by block over the output positions. */
static void run_item(const conv_job *j, int64_t item, char *col) {
    const rt_conv_desc *d = j->d;
    int64_t n = item / j->n_groups, g = item % j->n_groups;
    int64_t img_n = d->batch_groups > 1 ? g * (d->n / d->batch_groups) + n : n;
    int64_t c0 = d->groups > 1 ? g * d->i : 0, o0 = g * j->og;
    int64_t spatial = 1;
    for (int a = 0; a < d->nsp; a++) spatial *= d->in[a];
    const char *img = j->lhs + (size_t)((img_n * d->c + c0) * spatial) * j->es;
    const char *w = j->rhs + (size_t)(o0 * j->IK) * j->es;
    char *o = j->out + (size_t)((n * d->o + o0) * j->P) * j->es;
    for (int64_t p0 = 0; p0 < j->P; p0 += j->pb) {
        int64_t pb = j->P - p0 < j->pb ? j->P - p0 : j->pb;
        int64_t ystart[CJ_MAX_RANK], rem = p0; /* the block's first output position */
        for (int a = d->nsp - 1; a >= 0; a--) ystart[a] = rem % d->out[a], rem /= d->out[a];
        for (int64_t c = 0, r = 0; c < d->i; c++)
            for (int64_t k = 0; k < j->K; k++, r++) {
                const int64_t *tab = j->ktab + k * j->tab_len;
                if (d->dtype == CJ_F32)
                    fill_row_float(j, (const float *)img, c, tab, d->out, j->contig_last, ystart, pb,
                                   (float *)col + r * pb);
                else
                    fill_row_double(j, (const double *)img, c, tab, d->out, j->contig_last, ystart, pb,
                                    (double *)col + r * pb);
            }
        if (d->dtype == CJ_F32)
            rt_gemm_f32(j->og, pb, j->IK, (const float *)w, j->IK, 0, (const float *)col, pb, 0,
                        (float *)o + p0, j->P, 0);
        else
            rt_gemm_f64(j->og, pb, j->IK, (const double *)w, j->IK, 0, (const double *)col, pb, 0,
                        (double *)o + p0, j->P, 0);
    }
}

/* The transposed mode, for few output positions and large kernels (a
 * weight gradient: the kernel is the cotangent's whole image): colᵀ[P,
 * cb·K] for a block of cb features at a time, each row p a few long
 * stretches of the input (fast when the kernel reads consecutive inputs),
 * and out[Og, P] += W[:, block] · colᵀᵀ, the blocks in feature order. */
static void run_item_t(const conv_job *j, int64_t item, char *col) {
    const rt_conv_desc *d = j->d;
    int64_t n = item / j->n_groups, g = item % j->n_groups;
    int64_t img_n = d->batch_groups > 1 ? g * (d->n / d->batch_groups) + n : n;
    int64_t c0 = d->groups > 1 ? g * d->i : 0, o0 = g * j->og;
    int64_t spatial = 1, zero[CJ_MAX_RANK] = {0};
    for (int a = 0; a < d->nsp; a++) spatial *= d->in[a];
    const char *img = j->lhs + (size_t)((img_n * d->c + c0) * spatial) * j->es;
    const char *w = j->rhs + (size_t)(o0 * j->IK) * j->es;
    char *o = j->out + (size_t)((n * d->o + o0) * j->P) * j->es;
    for (int64_t cb0 = 0; cb0 < d->i; cb0 += j->pb) {
        int64_t cb = d->i - cb0 < j->pb ? d->i - cb0 : j->pb, len = cb * j->K;
        for (int64_t p = 0; p < j->P; p++) {
            const int64_t *tab = j->ktab + p * j->tab_len;
            for (int64_t c = 0; c < cb; c++) {
                if (d->dtype == CJ_F32)
                    fill_row_float(j, (const float *)img, cb0 + c, tab, d->k, j->contig_last, zero, j->K,
                                   (float *)col + p * len + c * j->K);
                else
                    fill_row_double(j, (const double *)img, cb0 + c, tab, d->k, j->contig_last, zero, j->K,
                                    (double *)col + p * len + c * j->K);
            }
        }
        if (d->dtype == CJ_F32)
            rt_gemm_f32(j->og, j->P, len, (const float *)w + cb0 * j->K, j->IK, 0, (const float *)col, len, 1,
                        (float *)o, j->P, cb0 > 0);
        else
            rt_gemm_f64(j->og, j->P, len, (const double *)w + cb0 * j->K, j->IK, 0, (const double *)col, len, 1,
                        (double *)o, j->P, cb0 > 0);
    }
}

/* Channels last: rows p0 .. p0 + pb of col[P, K·C] of one image (row p:
 * for each kernel offset, the C features its window reads, or zeros).
 * The kernel offsets go by runs along the last kernel axis: with no lhs
 * or rhs dilation there, a run's real inputs are one consecutive
 * stretch of the image, copied at once. */
#define FILL_CL(T)                                                                                     \
    static void fill_cl_##T(const conv_job *j, const T *img, int64_t p0, int64_t pb, T *col) {         \
        const rt_conv_desc *d = j->d;                                                                  \
        int nsp = d->nsp;                                                                              \
        int64_t C = d->c, y[CJ_MAX_RANK], rem = p0;                                                    \
        if (nsp == 0) {                                                                                \
            for (int64_t p = 0; p < pb; p++) memcpy(col + p * C, img, (size_t)C * sizeof(T));          \
            return;                                                                                    \
        }                                                                                              \
        int64_t kl = d->k[nsp - 1], base_last = j->tab_len - d->out[nsp - 1];                          \
        int contig = d->lhs_dil[nsp - 1] == 1 && d->rhs_dil[nsp - 1] == 1;                            \
        for (int a = nsp - 1; a >= 0; a--) y[a] = rem % d->out[a], rem /= d->out[a];                  \
        for (int64_t p = 0; p < pb; p++) {                                                             \
            T *row = col + p * j->IK;                                                                  \
            for (int64_t k0 = 0; k0 < j->K; k0 += kl) {                                                \
                const int64_t *t = j->ktab + k0 * j->tab_len;                                          \
                int64_t off = 0, base = 0;                                                             \
                int ok = 1;                                                                            \
                for (int a = 0; a < nsp - 1; a++) {                                                    \
                    int64_t v = t[base + y[a]];                                                        \
                    ok &= v >= 0;                                                                      \
                    off += v;                                                                          \
                    base += d->out[a];                                                                 \
                }                                                                                      \
                T *dst = row + k0 * C;                                                                 \
                if (!ok) {                                                                             \
                    memset(dst, 0, (size_t)(kl * C) * sizeof(T));                                      \
                    continue;                                                                          \
                }                                                                                      \
                const int64_t *tl = t + base_last + y[nsp - 1]; /* entry of kernel offset k0 + i: tl[i · tab_len] */ \
                if (contig) {                                                                          \
                    int64_t i = 0, e = kl;                                                             \
                    while (i < e && tl[i * j->tab_len] < 0) i++;                                       \
                    while (e > i && tl[(e - 1) * j->tab_len] < 0) e--;                                 \
                    if (i > 0) memset(dst, 0, (size_t)(i * C) * sizeof(T));                            \
                    if (e > i)                                                                         \
                        memcpy(dst + i * C, img + (off + tl[i * j->tab_len]) * C, (size_t)((e - i) * C) * sizeof(T)); \
                    if (e < kl) memset(dst + e * C, 0, (size_t)((kl - e) * C) * sizeof(T));            \
                    continue;                                                                          \
                }                                                                                      \
                for (int64_t i = 0; i < kl; i++) {                                                     \
                    int64_t v = tl[i * j->tab_len];                                                    \
                    T *di = dst + i * C;                                                               \
                    if (v >= 0) {                                                                      \
                        const T *src = img + (off + v) * C;                                            \
                        for (int64_t c = 0; c < C; c++) di[c] = src[c];                                \
                    } else {                                                                           \
                        for (int64_t c = 0; c < C; c++) di[c] = (T)0;                                  \
                    }                                                                                  \
                }                                                                                      \
            }                                                                                          \
            for (int a = nsp - 1; a >= 0; a--) {                                                       \
                if (++y[a] < d->out[a]) break;                                                         \
                y[a] = 0;                                                                              \
            }                                                                                          \
        }                                                                                              \
    }
FILL_CL(float)
FILL_CL(double)

/* Channels last: one image, block by block over its output positions,
 * out[p0 .. p0 + pb, :] = col · W[K·C, O]. */
static void run_item_cl(const conv_job *j, int64_t n, char *col) {
    const rt_conv_desc *d = j->d;
    int64_t spatial = 1;
    for (int a = 0; a < d->nsp; a++) spatial *= d->in[a];
    const char *img = j->lhs + (size_t)(n * spatial * d->c) * j->es;
    char *o = j->out + (size_t)(n * j->P * d->o) * j->es;
    for (int64_t p0 = 0; p0 < j->P; p0 += j->pb) {
        int64_t pb = j->P - p0 < j->pb ? j->P - p0 : j->pb;
        if (d->dtype == CJ_F32) {
            fill_cl_float(j, (const float *)img, p0, pb, (float *)col);
            rt_gemm_f32(pb, d->o, j->IK, (const float *)col, j->IK, 0, (const float *)j->rhs, d->o, 0,
                        (float *)o + p0 * d->o, d->o, 0);
        } else {
            fill_cl_double(j, (const double *)img, p0, pb, (double *)col);
            rt_gemm_f64(pb, d->o, j->IK, (const double *)col, j->IK, 0, (const double *)j->rhs, d->o, 0,
                        (double *)o + p0 * d->o, d->o, 0);
        }
    }
}

static void run_chunks(void *arg, int64_t begin, int64_t end) {
    const conv_job *j = arg;
    for (int64_t ch = begin; ch < end; ch++)
        for (int64_t it = ch * j->items / j->chunks; it < (ch + 1) * j->items / j->chunks; it++)
            if (j->d->channels_last) run_item_cl(j, it, j->col[ch]);
            else if (j->transposed) run_item_t(j, it, j->col[ch]);
            else run_item(j, it, j->col[ch]);
}

int rt_conv(const rt_conv_desc *d, const void *lhs, const void *rhs, void *out, rt_mem *m) {
    conv_job j;
    memset(&j, 0, sizeof j);
    j.d = d;
    j.lhs = lhs;
    j.rhs = rhs;
    j.out = out;
    j.es = rt_dtypes[d->dtype].size;
    j.P = 1;
    j.K = 1;
    j.tab_len = 0;
    for (int a = 0; a < d->nsp; a++) j.P *= d->out[a], j.K *= d->k[a], j.tab_len += d->out[a];
    if (d->nsp > 0)
        j.contig_last = d->stride[d->nsp - 1] == 1 && d->lhs_dil[d->nsp - 1] == 1;
    j.IK = d->i * j.K;
    j.n_groups = d->groups * d->batch_groups;
    j.og = d->o / j.n_groups;
    int64_t n_out = d->n / d->batch_groups;
    j.items = n_out * j.n_groups;
    size_t out_bytes = (size_t)(n_out * d->o * j.P) * j.es;
    if (out_bytes == 0) return 0;
    if (j.IK == 0) { /* an empty sum */
        memset(out, 0, out_bytes);
        return 0;
    }
    /* the transposed mode when output positions are few and the kernel
     * large: its rows are then long stretches instead of tiny ones */
    j.transposed =
        !d->channels_last && j.P <= 64 && j.K >= 4 * j.P && (size_t)(j.P * j.K) * j.es <= 4 * COL_BYTES;
    if (j.transposed) {
        /* pb: features per block */
        int64_t fit = (int64_t)(COL_BYTES / ((size_t)(j.P * j.K) * j.es));
        j.pb = fit < 1 ? 1 : fit < d->i ? fit : d->i;
        j.tab_len = 0;
        for (int a = 0; a < d->nsp; a++) j.tab_len += d->k[a];
        j.contig_last = d->nsp > 0 && d->rhs_dil[d->nsp - 1] == 1 && d->lhs_dil[d->nsp - 1] == 1;
    } else {
        int64_t rows_fit = (int64_t)(COL_BYTES / ((size_t)j.IK * j.es));
        j.pb = rows_fit < 1 ? 1 : rows_fit < j.P ? rows_fit : j.P;
    }
    int threads = rt_num_threads();
    /* over items when there are enough for every thread (the GEMM then runs
     * serially inside each); else one chunk and the GEMM spreads itself */
    j.chunks = j.items >= 2 * threads ? threads : 1;
    char *colv[CJ_MAX_RANK * 8];
    size_t col_cap[CJ_MAX_RANK * 8], tab_cap = 0;
    if (j.chunks > (int64_t)(sizeof colv / sizeof colv[0])) j.chunks = (int64_t)(sizeof colv / sizeof colv[0]);
    int64_t n_tabs = j.transposed ? j.P : j.K; /* per output position, or per kernel offset */
    int64_t *ktab = rt_data_alloc(m, (size_t)(n_tabs * j.tab_len + 1) * sizeof(int64_t), &tab_cap);
    if (!ktab) return -1;
    for (int64_t t = 0; t < n_tabs; t++) {
        const int64_t *ext = j.transposed ? d->out : d->k;
        int64_t at[CJ_MAX_RANK], rem = t;
        for (int a = d->nsp - 1; a >= 0; a--) at[a] = rem % ext[a], rem /= ext[a];
        if (j.transposed) fill_tables_t(d, at, ktab + t * j.tab_len);
        else fill_tables(d, at, ktab + t * j.tab_len);
    }
    j.ktab = ktab;
    int status = 0;
    int64_t made = 0;
    for (; made < j.chunks; made++) {
        size_t col_elems = j.transposed ? (size_t)(j.P * j.K * j.pb) : (size_t)(j.IK * j.pb);
        colv[made] = rt_data_alloc(m, col_elems * j.es, &col_cap[made]);
        if (!colv[made]) {
            status = -1;
            break;
        }
    }
    j.col = colv;
    if (status == 0) {
        if (j.chunks > 1) rt_parallel_for(j.chunks, 1, run_chunks, &j);
        else run_chunks(&j, 0, 1);
    }
    for (int64_t c = 0; c < made; c++) rt_data_free(m, colv[c], col_cap[c]);
    rt_data_free(m, ktab, tab_cap);
    return status;
}

/* Whole elements (4 or 8 bytes: f32 and f64). When the source's
 * contiguous axis is not the destination's last (NHWC <-> NCHW), every
 * plane of those two axes is copied in 16x16 tiles, so reads and writes
 * both run along cache lines; otherwise the last axis is a strided loop.
 * The other axes go by an odometer. */
#define PERMUTE(T)                                                                                     \
    static void permute_##T(const T *s, int r, const int64_t *dims, const int64_t *st, T *o) {         \
        int64_t dstride[CJ_MAX_RANK], idx[CJ_MAX_RANK] = {0}, q = -1;                                  \
        if (r == 0) {                                                                                  \
            o[0] = s[0];                                                                               \
            return;                                                                                    \
        }                                                                                              \
        int64_t acc = 1;                                                                               \
        for (int a = r - 1; a >= 0; a--) dstride[a] = acc, acc *= dims[a];                            \
        for (int a = 0; a < r - 1; a++)                                                                \
            if (st[a] == 1 && dims[a] > 1) q = a;                                                      \
        int last = r - 1;                                                                              \
        int64_t nq = q >= 0 ? dims[q] : 1, nl = dims[last], sl = st[last];                             \
        for (;;) {                                                                                     \
            int64_t so = 0, dof = 0;                                                                   \
            for (int a = 0; a < r; a++) so += idx[a] * st[a], dof += idx[a] * dstride[a];             \
            if (q < 0) {                                                                               \
                for (int64_t i = 0; i < nl; i++) o[dof + i] = s[so + i * sl];                          \
            } else {                                                                                   \
                int64_t dq = dstride[q];                                                               \
                for (int64_t i0 = 0; i0 < nq; i0 += 16)                                                \
                    for (int64_t l0 = 0; l0 < nl; l0 += 16) {                                          \
                        int64_t i1 = i0 + 16 < nq ? i0 + 16 : nq, l1 = l0 + 16 < nl ? l0 + 16 : nl;    \
                        for (int64_t i = i0; i < i1; i++)                                              \
                            for (int64_t l = l0; l < l1; l++) o[dof + i * dq + l] = s[so + i + l * sl]; \
                    }                                                                                  \
            }                                                                                          \
            int a = r - 2;                                                                             \
            for (; a >= 0; a--) {                                                                      \
                if (a == q) continue;                                                                  \
                if (++idx[a] < dims[a]) break;                                                         \
                idx[a] = 0;                                                                            \
            }                                                                                          \
            if (a < 0) return;                                                                         \
        }                                                                                              \
    }
PERMUTE(uint32_t)
PERMUTE(uint64_t)

void rt_conv_permute(const void *src, const rt_aval *a, const int64_t *order, void *dst) {
    size_t es = rt_dtypes[a->dtype].size;
    int64_t strides[CJ_MAX_RANK], dims[CJ_MAX_RANK], st[CJ_MAX_RANK], idx[CJ_MAX_RANK] = {0};
    rt_strides(a, strides);
    int r = a->rank;
    for (int i = 0; i < r; i++) dims[i] = a->dims[order[i]], st[i] = strides[order[i]];
    int64_t total = rt_aval_size(a), off = 0;
    if (total == 0) return;
    if (es == 4 || es == 8) {
        if (es == 4) permute_uint32_t(src, r, dims, st, dst);
        else permute_uint64_t(src, r, dims, st, dst);
        return;
    }
    const char *s = src;
    char *o = dst;
    for (int64_t e = 0; e < total; e++) {
        memcpy(o + (size_t)e * es, s + (size_t)off * es, es);
        for (int i = r - 1; i >= 0; i--) {
            off += st[i];
            if (++idx[i] < dims[i]) break;
            off -= idx[i] * st[i];
            idx[i] = 0;
        }
    }
}
