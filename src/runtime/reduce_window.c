/* reduce_window.c — the windowed-reduction kernels (runtime layer; the
 * geometry and the selection rule in reduce_window.h).
 *
 * Every kernel walks the result row by row (a row: all output positions
 * along the last axis for fixed leading positions) and, for each row,
 * the window's leading offsets in row-major order; along the last axis it
 * reads through a table of input offsets per (window offset, output
 * position), built once per call, -1 where the window reads padding or a
 * hole. When the last axis has a trivial window (size 1, stride 1, no
 * padding, no dilation: NHWC pooling's channels) the reduction's inner
 * loop is a contiguous run that gcc vectorises. Rows are spread over the
 * pool; each output element is folded by one thread in window order, so
 * the bits never depend on the split. The scatter adds into the operand's
 * shape, where windows may overlap: it runs in parallel only over the
 * leading axis when that axis's window has size 1 (windows of different
 * leading positions then touch disjoint inputs), serially otherwise. */
#include <math.h>
#include <string.h>

#include "half.h"
#include "reduce_window.h"
#include "threads.h"

/* As src/prim/reduce.c folds lax.max / lax.min: NaN propagates, and equal
 * zeros order as IEEE 754-2019's maximum / minimum (max(+0, -0) = +0). */
#define COMB_SUM(a, b) ((a) + (b))
#define COMB_MAX(a, b) ((((b) != (b)) | ((b) > (a))) ? (b) : (((a) == 0) & ((b) == 0)) ? (a) + (b) : (a))
#define COMB_MIN(a, b) ((((b) != (b)) | ((b) < (a))) ? (b) : (((a) == 0) & ((b) == 0)) ? -(-(a) + -(b)) : (a))

#define BLOCK 256 /* output positions along the last axis the selection kernels keep picks for */

typedef struct win_job {
    rt_window_desc d; /* rank >= 1 */
    int kind, select_min;
    const char *x, *t;
    char *out;
    int64_t *tab[CJ_MAX_RANK]; /* tab[a][k·out[a] + y]: input offset (index · stride of axis a) or -1 */
    int64_t rows, row_len, lead_win, win_size;
    int trivial_last;
    int in_place; /* out overlaps x: rows in order, each piece stored after its reads */
} win_job;

/* Output row `row`'s leading positions y[0..L-1]. */
static void decode_row(const win_job *j, int64_t row, int64_t *y) {
    for (int a = j->d.rank - 2; a >= 0; a--) y[a] = row % j->d.out[a], row /= j->d.out[a];
}

/* The input offset of leading window offsets kw at leading positions y,
 * or -1 when any axis reads padding or a hole. */
static int64_t lead_offset(const win_job *j, const int64_t *y, const int64_t *kw) {
    int64_t off = 0;
    for (int a = 0; a < j->d.rank - 1; a++) {
        int64_t v = j->tab[a][kw[a] * j->d.out[a] + y[a]];
        if (v < 0) return -1;
        off += v;
    }
    return off;
}

/* The next row's leading positions (row-major odometer: no divisions). */
static void next_row(const win_job *j, int64_t *y) {
    for (int a = j->d.rank - 2; a >= 0; a--) {
        if (++y[a] < j->d.out[a]) return;
        y[a] = 0;
    }
}

static void next_lead(const win_job *j, int64_t *kw) {
    for (int a = j->d.rank - 2; a >= 0; a--) {
        if (++kw[a] < j->d.win[a]) return;
        kw[a] = 0;
    }
}

/* In place (j->in_place, the planner's pooling output over its input:
 * prim/reduce_window.c's rw_overwrites), a row is folded in pieces of
 * BLOCK positions into `acc` and each piece stored after all its reads:
 * no operand element at or after the piece's offset is written before
 * it is read. Otherwise the row's output is the accumulator. */
#define REDUCE_ROWS(NAME, T, ID, COMB)                                                                    \
    static void NAME(void *arg, int64_t begin, int64_t end) {                                           \
        const win_job *j = arg;                                                                         \
        const T *x = (const T *)j->x;                                                                   \
        int64_t n = j->row_len, wl = j->d.win[j->d.rank - 1];                                          \
        int64_t piece = j->in_place ? BLOCK : n > 0 ? n : 1;                                            \
        const int64_t *tl = j->tab[j->d.rank - 1];                                                      \
        int64_t y[CJ_MAX_RANK];                                                                         \
        T acc[BLOCK];                                                                                   \
        decode_row(j, begin, y);                                                                        \
        for (int64_t row = begin; row < end; row++, next_row(j, y))                                     \
            for (int64_t c0 = 0; c0 < n; c0 += piece) {                                                 \
                int64_t m = n - c0 < piece ? n - c0 : piece;                                            \
                int64_t kw[CJ_MAX_RANK] = {0};                                                          \
                T *dst = (T *)j->out + row * n + c0, *o = j->in_place ? acc : dst;                      \
                for (int64_t i = 0; i < m; i++) o[i] = (ID);                                            \
                for (int64_t w = 0; w < j->lead_win; w++, next_lead(j, kw)) {                          \
                    int64_t off = lead_offset(j, y, kw);                                                \
                    if (off < 0) continue;                                                              \
                    const T *xr = x + off;                                                              \
                    if (j->trivial_last) {                                                              \
                        for (int64_t i = 0; i < m; i++) o[i] = COMB(o[i], xr[c0 + i]);                  \
                        continue;                                                                       \
                    }                                                                                   \
                    for (int64_t k = 0; k < wl; k++) {                                                  \
                        const int64_t *t = tl + k * n + c0;                                             \
                        for (int64_t i = 0; i < m; i++)                                                 \
                            if (t[i] >= 0) o[i] = COMB(o[i], xr[t[i]]);                                 \
                    }                                                                                   \
                }                                                                                       \
                if (j->in_place) memcpy(dst, acc, sizeof(T) * (size_t)m);                               \
            }                                                                                           \
    }
REDUCE_ROWS(sum_f32, float, 0.0f, COMB_SUM)
REDUCE_ROWS(sum_f64, double, 0.0, COMB_SUM)
REDUCE_ROWS(max_f32, float, -INFINITY, COMB_MAX)
REDUCE_ROWS(max_f64, double, -INFINITY, COMB_MAX)
REDUCE_ROWS(min_f32, float, INFINITY, COMB_MIN)
REDUCE_ROWS(min_f64, double, INFINITY, COMB_MIN)

/* Integers (lax.reduce_window takes them): sums wrap, computed through an
 * unsigned type at least as wide as int; max/min are plain comparisons.
 * f16/bf16 are their bits, each step widened to f32 and rounded back (as
 * the reduce kernels do), in window order (row-major); XLA sums a 2-D
 * window's f16 elements in an order of its own (sometimes by columns
 * first), so a sum may differ from its in the last bit. Their max/min
 * pick an operand's bits. */
#define COMB_IMAX(a, b) ((b) > (a) ? (b) : (a))
#define COMB_IMIN(a, b) ((b) < (a) ? (b) : (a))
#define COMB_USUM(a, b) ((uint32_t)(a) + (uint32_t)(b))
#define COMB_USUM64(a, b) ((uint64_t)(a) + (uint64_t)(b))
REDUCE_ROWS(sum_i8, int8_t, 0, COMB_USUM)
REDUCE_ROWS(sum_i16, int16_t, 0, COMB_USUM)
REDUCE_ROWS(sum_i32, int32_t, 0, COMB_USUM)
REDUCE_ROWS(sum_i64, int64_t, 0, COMB_USUM64)
REDUCE_ROWS(sum_u8, uint8_t, 0, COMB_USUM)
REDUCE_ROWS(sum_u16, uint16_t, 0, COMB_USUM)
REDUCE_ROWS(sum_u32, uint32_t, 0, COMB_USUM)
REDUCE_ROWS(sum_u64, uint64_t, 0, COMB_USUM64)
REDUCE_ROWS(max_i8, int8_t, INT8_MIN, COMB_IMAX)
REDUCE_ROWS(max_i16, int16_t, INT16_MIN, COMB_IMAX)
REDUCE_ROWS(max_i32, int32_t, INT32_MIN, COMB_IMAX)
REDUCE_ROWS(max_i64, int64_t, INT64_MIN, COMB_IMAX)
REDUCE_ROWS(max_u8, uint8_t, 0, COMB_IMAX)
REDUCE_ROWS(max_u16, uint16_t, 0, COMB_IMAX)
REDUCE_ROWS(max_u32, uint32_t, 0, COMB_IMAX)
REDUCE_ROWS(max_u64, uint64_t, 0, COMB_IMAX)
REDUCE_ROWS(min_i8, int8_t, INT8_MAX, COMB_IMIN)
REDUCE_ROWS(min_i16, int16_t, INT16_MAX, COMB_IMIN)
REDUCE_ROWS(min_i32, int32_t, INT32_MAX, COMB_IMIN)
REDUCE_ROWS(min_i64, int64_t, INT64_MAX, COMB_IMIN)
REDUCE_ROWS(min_u8, uint8_t, UINT8_MAX, COMB_IMIN)
REDUCE_ROWS(min_u16, uint16_t, UINT16_MAX, COMB_IMIN)
REDUCE_ROWS(min_u32, uint32_t, UINT32_MAX, COMB_IMIN)
REDUCE_ROWS(min_u64, uint64_t, UINT64_MAX, COMB_IMIN)

static inline uint16_t h_pick_max(uint16_t a, uint16_t b, float fa, float fb) {
    if ((fb != fb) | (fb > fa)) return b;
    return (fa == 0) & (fb == 0) ? (uint16_t)(a & b) : a;
}
static inline uint16_t h_pick_min(uint16_t a, uint16_t b, float fa, float fb) {
    if ((fb != fb) | (fb < fa)) return b;
    return (fa == 0) & (fb == 0) ? (uint16_t)(a | b) : a;
}
#define COMB_SUM_F16(a, b) rt_f32_to_f16(rt_f16_to_f32(a) + rt_f16_to_f32(b))
#define COMB_SUM_BF16(a, b) rt_f32_to_bf16(rt_bf16_to_f32(a) + rt_bf16_to_f32(b))
#define COMB_MAX_F16(a, b) h_pick_max((a), (b), rt_f16_to_f32(a), rt_f16_to_f32(b))
#define COMB_MIN_F16(a, b) h_pick_min((a), (b), rt_f16_to_f32(a), rt_f16_to_f32(b))
#define COMB_MAX_BF16(a, b) h_pick_max((a), (b), rt_bf16_to_f32(a), rt_bf16_to_f32(b))
#define COMB_MIN_BF16(a, b) h_pick_min((a), (b), rt_bf16_to_f32(a), rt_bf16_to_f32(b))
REDUCE_ROWS(sum_f16, uint16_t, 0, COMB_SUM_F16)
REDUCE_ROWS(sum_bf16, uint16_t, 0, COMB_SUM_BF16)
REDUCE_ROWS(max_f16, uint16_t, 0xfc00, COMB_MAX_F16)
REDUCE_ROWS(max_bf16, uint16_t, 0xff80, COMB_MAX_BF16)
REDUCE_ROWS(min_f16, uint16_t, 0x7c00, COMB_MIN_F16)
REDUCE_ROWS(min_bf16, uint16_t, 0x7f80, COMB_MIN_BF16)

#define RW_ROW(K)                                                                                        \
    {[CJ_F32] = K##_f32, [CJ_F64] = K##_f64, [CJ_I8] = K##_i8, [CJ_I16] = K##_i16, [CJ_I32] = K##_i32,    \
     [CJ_I64] = K##_i64, [CJ_U8] = K##_u8, [CJ_U16] = K##_u16, [CJ_U32] = K##_u32, [CJ_U64] = K##_u64,    \
     [CJ_F16] = K##_f16, [CJ_BF16] = K##_bf16}
static const rt_range_fn reducers[3][CJ_NUM_DTYPES] = {RW_ROW(sum), RW_ROW(max), RW_ROW(min)};

bool rt_reduce_window_takes(cj_dtype dt) { return rt_dtype_valid(dt) && reducers[0][dt] != NULL; }

/* The selection of reduce_window.h over output positions [i0, i0 + n) of
 * one row: pv the picked tangents (gather; NULL for none), ps the picked
 * input offsets, -1 for padding or a hole (scatter). KEEP(k, x) is
 * `k >= x` for max, `k <= x` for min: the pick stays unless it fails. With
 * a trivial last axis the window's row is a contiguous run, and the picks
 * are branch-free selects gcc vectorises. */
#define SELECT_BLOCK(NAME, T, ID, KEEP)                                                                   \
    static void NAME(const win_job *j, const int64_t *y, int64_t i0, int64_t n, T *pv, int64_t *ps) {   \
        const T *x = (const T *)j->x, *tg = (const T *)j->t;                                            \
        T id = (ID), pk[BLOCK];                                                                         \
        int64_t kw[CJ_MAX_RANK] = {0}, wl = j->d.win[j->d.rank - 1];                                   \
        const int64_t *tl = j->tab[j->d.rank - 1];                                                      \
        for (int64_t i = 0; i < n; i++) pk[i] = id, ps[i] = -1;                                         \
        if (pv)                                                                                         \
            for (int64_t i = 0; i < n; i++) pv[i] = 0;                                                  \
        for (int64_t w = 0; w < j->lead_win; w++, next_lead(j, kw)) {                                  \
            int64_t off = lead_offset(j, y, kw);                                                        \
            if (j->trivial_last && off >= 0) {                                                          \
                const T *xr = x + off + i0, *tr = pv ? tg + off + i0 : NULL;                            \
                int64_t at0 = off + i0;                                                                 \
                for (int64_t i = 0; i < n; i++) {                                                       \
                    T xv = xr[i];                                                                       \
                    int keep = KEEP(pk[i], xv);                                                         \
                    pk[i] = keep ? pk[i] : xv;                                                          \
                    ps[i] = keep ? ps[i] : at0 + i;                                                     \
                }                                                                                       \
                if (pv)                                                                                 \
                    for (int64_t i = 0; i < n; i++) pv[i] = ps[i] == at0 + i ? tr[i] : pv[i];           \
                continue;                                                                               \
            }                                                                                           \
            for (int64_t k = 0; k < wl; k++) {                                                          \
                const int64_t *t = tl + k * j->row_len + i0;                                            \
                for (int64_t i = 0; i < n; i++) {                                                       \
                    int64_t at = off >= 0 && t[i] >= 0 ? off + t[i] : -1;                               \
                    T xv = at >= 0 ? x[at] : id;                                                        \
                    if (KEEP(pk[i], xv)) continue;                                                      \
                    pk[i] = xv;                                                                         \
                    ps[i] = at;                                                                         \
                    if (pv) pv[i] = at >= 0 ? tg[at] : (T)0;                                            \
                }                                                                                       \
            }                                                                                           \
        }                                                                                               \
    }
#define KEEP_GE(k, x) ((k) >= (x))
#define KEEP_LE(k, x) ((k) <= (x))
SELECT_BLOCK(select_max_f32, float, -INFINITY, KEEP_GE)
SELECT_BLOCK(select_min_f32, float, INFINITY, KEEP_LE)
SELECT_BLOCK(select_max_f64, double, -INFINITY, KEEP_GE)
SELECT_BLOCK(select_min_f64, double, INFINITY, KEEP_LE)

static void select_f32(const win_job *j, const int64_t *y, int64_t i0, int64_t n, float *pv, int64_t *ps) {
    if (j->select_min) select_min_f32(j, y, i0, n, pv, ps);
    else select_max_f32(j, y, i0, n, pv, ps);
}
static void select_f64(const win_job *j, const int64_t *y, int64_t i0, int64_t n, double *pv, int64_t *ps) {
    if (j->select_min) select_min_f64(j, y, i0, n, pv, ps);
    else select_max_f64(j, y, i0, n, pv, ps);
}

#define GATHER_ROWS(NAME, T, SELECT)                                                                      \
    static void NAME(void *arg, int64_t begin, int64_t end) {                                           \
        const win_job *j = arg;                                                                         \
        int64_t ps[BLOCK];                                                                              \
        int64_t y[CJ_MAX_RANK];                                                                         \
        decode_row(j, begin, y);                                                                        \
        for (int64_t row = begin; row < end; row++, next_row(j, y)) {                                   \
            for (int64_t i0 = 0; i0 < j->row_len; i0 += BLOCK) {                                        \
                int64_t n = j->row_len - i0 < BLOCK ? j->row_len - i0 : BLOCK;                          \
                SELECT(j, y, i0, n, (T *)j->out + row * j->row_len + i0, ps);                           \
            }                                                                                           \
        }                                                                                               \
    }
GATHER_ROWS(gather_f32, float, select_f32)
GATHER_ROWS(gather_f64, double, select_f64)

/* Here j->t is the source (the result's shape) and j->out the operand's. */
#define SCATTER_ROWS(NAME, T, SELECT)                                                                     \
    static void NAME(void *arg, int64_t begin, int64_t end) {                                           \
        const win_job *j = arg;                                                                         \
        const T *src = (const T *)j->t;                                                                 \
        T *o = (T *)j->out;                                                                             \
        int64_t ps[BLOCK];                                                                              \
        int64_t y[CJ_MAX_RANK];                                                                         \
        decode_row(j, begin, y);                                                                        \
        for (int64_t row = begin; row < end; row++, next_row(j, y)) {                                   \
            for (int64_t i0 = 0; i0 < j->row_len; i0 += BLOCK) {                                        \
                int64_t n = j->row_len - i0 < BLOCK ? j->row_len - i0 : BLOCK;                          \
                SELECT(j, y, i0, n, NULL, ps);                                                          \
                const T *s = src + row * j->row_len + i0;                                               \
                for (int64_t i = 0; i < n; i++)                                                         \
                    if (ps[i] >= 0) o[ps[i]] += s[i];                                                   \
            }                                                                                           \
        }                                                                                               \
    }
SCATTER_ROWS(scatter_f32, float, select_f32)
SCATTER_ROWS(scatter_f64, double, select_f64)

/* Fills j from d (rank 0 as rank 1 of size 1) and builds the tables.
 * 1 when the result is empty (nothing to compute), 0 when ready, -1 when
 * the tables cannot be had. */
static int setup(win_job *j, const rt_window_desc *d, rt_mem *m, size_t *cap) {
    memset(j, 0, sizeof *j);
    j->d = *d;
    if (d->rank == 0) {
        j->d.rank = 1;
        j->d.in[0] = j->d.out[0] = j->d.win[0] = j->d.stride[0] = j->d.base_dil[0] = j->d.win_dil[0] = 1;
        j->d.lo[0] = 0;
    }
    const rt_window_desc *e = &j->d;
    int r = e->rank, L = r - 1;
    int64_t total = 0, out_size = 1, instride[CJ_MAX_RANK], s = 1;
    for (int a = 0; a < r; a++) total += e->win[a] * e->out[a], out_size *= e->out[a];
    if (out_size == 0) return 1;
    for (int a = r - 1; a >= 0; a--) instride[a] = s, s *= e->in[a];
    int64_t *tab = rt_data_alloc(m, (size_t)total * sizeof(int64_t), cap);
    if (!tab) return -1;
    for (int a = 0; a < r; a++) {
        j->tab[a] = tab;
        for (int64_t k = 0; k < e->win[a]; k++)
            for (int64_t y = 0; y < e->out[a]; y++) {
                int64_t q = y * e->stride[a] + k * e->win_dil[a] - e->lo[a];
                int64_t i = q >= 0 && q % e->base_dil[a] == 0 ? q / e->base_dil[a] : -1;
                *tab++ = i >= 0 && i < e->in[a] ? i * instride[a] : -1;
            }
    }
    j->row_len = e->out[L];
    j->rows = out_size / j->row_len;
    j->lead_win = 1;
    for (int a = 0; a < L; a++) j->lead_win *= e->win[a];
    j->win_size = j->lead_win * e->win[L];
    j->trivial_last = e->win[L] == 1 && e->stride[L] == 1 && e->lo[L] == 0 && e->base_dil[L] == 1 &&
                      e->in[L] == e->out[L];
    return 0;
}

/* Over the rows on the pool, in pieces of at least RT_PARALLEL_MIN_ELEMS
 * window elements (and multiples of `unit` rows). */
static void run_rows(win_job *j, rt_range_fn fn, int64_t unit) {
    int64_t per_row = j->row_len * j->win_size;
    int64_t grain = per_row > 0 ? RT_PARALLEL_MIN_ELEMS / per_row : 1;
    if (grain < 1) grain = 1;
    grain = (grain + unit - 1) / unit * unit;
    if (j->rows <= grain) fn(j, 0, j->rows);
    else rt_parallel_for(j->rows, grain, fn, j);
}

int rt_reduce_window(const rt_window_desc *d, rt_window_kind kind, const void *x, void *out, rt_mem *m) {
    win_job j;
    size_t cap = 0;
    int st = setup(&j, d, m, &cap);
    if (st != 0) return st < 0 ? -1 : 0;
    j.x = x;
    j.out = out;
    size_t es = rt_dtypes[d->dtype].size, in_bytes = es, out_bytes = es * (size_t)j.rows * (size_t)j.row_len;
    for (int a = 0; a < d->rank; a++) in_bytes *= (size_t)d->in[a];
    const char *xa = x, *oa = out;
    j.in_place = oa < xa + in_bytes && xa < oa + out_bytes;
    rt_range_fn fn = reducers[kind][d->dtype];
    if (j.in_place) fn(&j, 0, j.rows); /* in order: see REDUCE_ROWS */
    else run_rows(&j, fn, 1);
    rt_data_free(m, j.tab[0], cap);
    return 0;
}

int rt_select_and_gather_add(const rt_window_desc *d, int select_min, const void *t, const void *x, void *out,
                             rt_mem *m) {
    win_job j;
    size_t cap = 0;
    int st = setup(&j, d, m, &cap);
    if (st != 0) return st < 0 ? -1 : 0;
    j.x = x;
    j.t = t;
    j.out = out;
    j.select_min = select_min;
    run_rows(&j, d->dtype == CJ_F64 ? gather_f64 : gather_f32, 1);
    rt_data_free(m, j.tab[0], cap);
    return 0;
}

int rt_select_and_scatter_add(const rt_window_desc *d, int select_min, const void *source, const void *x, void *out,
                              rt_mem *m) {
    size_t in_size = 1;
    for (int a = 0; a < d->rank; a++) in_size *= (size_t)d->in[a];
    memset(out, 0, in_size * rt_dtypes[d->dtype].size);
    win_job j;
    size_t cap = 0;
    int st = setup(&j, d, m, &cap);
    if (st != 0) return st < 0 ? -1 : 0;
    j.x = x;
    j.t = source;
    j.out = out;
    j.select_min = select_min;
    rt_range_fn fn = d->dtype == CJ_F64 ? scatter_f64 : scatter_f32;
    if (j.d.rank >= 2 && j.d.win[0] == 1) run_rows(&j, fn, j.rows / j.d.out[0]);
    else fn(&j, 0, j.rows);
    rt_data_free(m, j.tab[0], cap);
    return 0;
}
