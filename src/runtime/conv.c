/* conv.c — the convolution kernel: im2col + GEMM (runtime layer; layouts
 * and grouping in conv.h).
 *
 * For one output image and group, the output block [Og, P] (P output
 * positions) is W[Og, I·K] · col[I·K, P], where col's row (c, k) holds the
 * input element each output position's window reads at kernel offset k of
 * feature c (zero in padding and in the holes of lhs dilation). The
 * canonical rhs rows are exactly W's rows, so only col is built, a block
 * of at most COL_BYTES at a time, and the GEMM writes straight into the
 * output with a row stride of P. */
#include <string.h>

#include "conv.h"
#include "gemm.h"
#include "threads.h"

#define COL_BYTES ((size_t)1 << 20)

typedef struct conv_job {
    const rt_conv_desc *d;
    const char *lhs, *rhs;
    char *out;
    int64_t P, K, IK, og, n_groups, items, chunks, pb;
    size_t es;
    char **col; /* one block buffer per chunk */
    int64_t **tab; /* per chunk: input index of each (dim, output coordinate) */
} conv_job;

/* Row r = (c, k) of col for output positions [p0, p0 + pb) of one image. */
#define FILL_ROW(T)                                                                                    \
    static void fill_row_##T(const conv_job *j, const T *img, int64_t c, const int64_t *kk, int64_t *tab, \
                             int64_t p0, int64_t pb, T *dst) {                                         \
        const rt_conv_desc *d = j->d;                                                                  \
        int nsp = d->nsp;                                                                              \
        int64_t instride[CJ_MAX_RANK], base = 0;                                                       \
        int64_t *t[CJ_MAX_RANK];                                                                       \
        int64_t s = 1;                                                                                 \
        for (int a = nsp - 1; a >= 0; a--) instride[a] = s, s *= d->in[a];                            \
        img += c * s;                                                                                  \
        for (int a = 0; a < nsp; a++) {                                                                \
            t[a] = tab + base;                                                                         \
            base += d->out[a];                                                                         \
            for (int64_t y = 0; y < d->out[a]; y++) {                                                  \
                int64_t q = y * d->stride[a] + kk[a] * d->rhs_dil[a] - d->lo[a];                       \
                int64_t i = q >= 0 && q % d->lhs_dil[a] == 0 ? q / d->lhs_dil[a] : -1;                 \
                t[a][y] = i >= 0 && i < d->in[a] ? i * instride[a] : -1;                               \
            }                                                                                          \
        }                                                                                              \
        if (nsp == 0) {                                                                                \
            if (pb > 0) dst[0] = img[0];                                                               \
            return;                                                                                    \
        }                                                                                              \
        /* runs along the last output axis: the outer axes' offset once per run */                     \
        int64_t y[CJ_MAX_RANK], rem = p0, inner = d->out[nsp - 1];                                     \
        for (int a = nsp - 1; a >= 0; a--) y[a] = rem % d->out[a], rem /= d->out[a];                  \
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
            } else {                                                                                   \
                const T *row = img + off;                                                              \
                for (int64_t i = 0; i < run; i++) o[i] = tl[i] >= 0 ? row[tl[i]] : (T)0;               \
            }                                                                                          \
            p += run;                                                                                  \
            y[nsp - 1] = 0;                                                                            \
            for (int a = nsp - 2; a >= 0; a--) {                                                       \
                if (++y[a] < d->out[a]) break;                                                         \
                y[a] = 0;                                                                              \
            }                                                                                          \
        }                                                                                              \
    }
FILL_ROW(float)
FILL_ROW(double)

/* One (image, group) item, block by block over the output positions. */
static void run_item(const conv_job *j, int64_t item, char *col, int64_t *tab) {
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
        for (int64_t r = 0; r < j->IK; r++) {
            int64_t kk[CJ_MAX_RANK], rem = r % j->K;
            for (int a = d->nsp - 1; a >= 0; a--) kk[a] = rem % d->k[a], rem /= d->k[a];
            int64_t c = r / j->K;
            if (d->dtype == CJ_F32)
                fill_row_float(j, (const float *)img, c, kk, tab, p0, pb, (float *)col + r * pb);
            else
                fill_row_double(j, (const double *)img, c, kk, tab, p0, pb, (double *)col + r * pb);
        }
        if (d->dtype == CJ_F32)
            rt_gemm_f32(j->og, pb, j->IK, (const float *)w, j->IK, 0, (const float *)col, pb, 0,
                        (float *)o + p0, j->P, 0);
        else
            rt_gemm_f64(j->og, pb, j->IK, (const double *)w, j->IK, 0, (const double *)col, pb, 0,
                        (double *)o + p0, j->P, 0);
    }
}

static void run_chunks(void *arg, int64_t begin, int64_t end) {
    const conv_job *j = arg;
    for (int64_t ch = begin; ch < end; ch++)
        for (int64_t it = ch * j->items / j->chunks; it < (ch + 1) * j->items / j->chunks; it++)
            run_item(j, it, j->col[ch], j->tab[ch]);
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
    int64_t tab_len = 1;
    for (int a = 0; a < d->nsp; a++) j.P *= d->out[a], j.K *= d->k[a], tab_len += d->out[a];
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
    int64_t rows_fit = (int64_t)(COL_BYTES / ((size_t)j.IK * j.es));
    j.pb = rows_fit < 1 ? 1 : rows_fit < j.P ? rows_fit : j.P;
    int threads = rt_num_threads();
    /* over items when there are enough for every thread (the GEMM then runs
     * serially inside each); else one chunk and the GEMM spreads itself */
    j.chunks = j.items >= 2 * threads ? threads : 1;
    char *colv[CJ_MAX_RANK * 8];
    int64_t *tabv[CJ_MAX_RANK * 8];
    size_t col_cap[CJ_MAX_RANK * 8], tab_cap[CJ_MAX_RANK * 8];
    if (j.chunks > (int64_t)(sizeof colv / sizeof colv[0])) j.chunks = (int64_t)(sizeof colv / sizeof colv[0]);
    int status = 0;
    int64_t made = 0;
    for (; made < j.chunks; made++) {
        colv[made] = rt_data_alloc(m, (size_t)(j.IK * j.pb) * j.es, &col_cap[made]);
        tabv[made] = colv[made] ? rt_data_alloc(m, (size_t)tab_len * sizeof(int64_t), &tab_cap[made]) : NULL;
        if (!tabv[made]) {
            if (colv[made]) rt_data_free(m, colv[made], col_cap[made]);
            status = -1;
            break;
        }
    }
    j.col = colv;
    j.tab = tabv;
    if (status == 0) {
        if (j.chunks > 1) rt_parallel_for(j.chunks, 1, run_chunks, &j);
        else run_chunks(&j, 0, 1);
    }
    for (int64_t c = 0; c < made; c++) {
        rt_data_free(m, colv[c], col_cap[c]);
        rt_data_free(m, tabv[c], tab_cap[c]);
    }
    return status;
}

void rt_conv_permute(const void *src, const rt_aval *a, const int64_t *order, void *dst) {
    size_t es = rt_dtypes[a->dtype].size;
    int64_t strides[CJ_MAX_RANK], dims[CJ_MAX_RANK], st[CJ_MAX_RANK], idx[CJ_MAX_RANK] = {0};
    rt_strides(a, strides);
    int r = a->rank;
    for (int i = 0; i < r; i++) dims[i] = a->dims[order[i]], st[i] = strides[order[i]];
    int64_t total = rt_aval_size(a), off = 0;
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
