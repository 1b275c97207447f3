/* shape_kernels.c — the strided-copy engine every shape primitive's eager
 * kernel runs on, plus iota's fill (prim layer; see shape_kernels.h).
 *
 * A copy is first normalised: size-1 dimensions are dropped and neighbours
 * that are contiguous on both sides merge, so a reshape becomes one memcpy
 * and a broadcast of a row becomes one memcpy per output row. What remains
 * runs along its innermost dimension in one of three ways: a memcpy run,
 * a fill (source stride 0), or a strided element loop. Innermost rows
 * shorter than SHORT_ROW go in panels (many rows per loop) instead, since a
 * call per 3-element row costs more than the move. When the innermost
 * destination dimension reads a strided source and some other dimension
 * reads the source contiguously — a transpose — the copy goes in 64×64
 * tiles, so both sides touch whole cache lines, each tile moved by 8×8
 * register transposes (4×4 for 8-byte elements) where AVX is available:
 * element-wise tiles measured 3-5× slower, and untiled ones 7× slower.
 *
 * Work is counted in "items" (a segment of an output row, or a strip of
 * tiles) so that a single huge row splits across threads as well as many
 * small rows do. Element moves are memcpy calls of a constant 1, 4 or 8
 * bytes, which the compiler turns into plain loads and stores. */
#include <string.h>
/* The register transposes are AVX code in functions of their own
 * (target("avx")), used when the CPU has it, so a library built for
 * baseline x86-64 keeps them. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SHAPE_AVX 1
#define SHAPE_TARGET_AVX __attribute__((target("avx")))
#include <immintrin.h>
#endif

#include "../runtime/cpu_features.h"
#include "../runtime/threads.h"
#include "shape_kernels.h"

enum {
    SEGMENT = 1 << 14, /* elements of one row handled as one work item */
    TILE = 64,         /* transpose tile side: 64×64 f32 is 16 KiB */
    SHORT_ROW = 16     /* innermost sizes below this go in panels */
};

#define ALWAYS_INLINE inline __attribute__((always_inline))

/* ---- normalisation ---- */

/* Drops size-1 dimensions and merges contiguous neighbours. Returns 0 when
 * the box is empty (nothing to copy). */
static int normalise(const sk_copy *in, sk_copy *c) {
    *c = *in;
    c->rank = 0;
    for (int d = 0; d < in->rank; d++) {
        int64_t n = in->dims[d], s = in->src_stride[d], t = in->dst_stride[d];
        if (n == 0) return 0;
        if (n == 1) continue;
        int last = c->rank - 1;
        /* the previous (outer) dimension steps over exactly n of this one
         * on both sides: one dimension of their product */
        if (last >= 0 && c->src_stride[last] == s * n && c->dst_stride[last] == t * n) {
            c->dims[last] *= n;
            c->src_stride[last] = s;
            c->dst_stride[last] = t;
            continue;
        }
        c->dims[c->rank] = n;
        c->src_stride[c->rank] = s;
        c->dst_stride[c->rank] = t;
        c->rank++;
    }
    return 1;
}

/* ---- an odometer over the outer dimensions ---- */

typedef struct odometer {
    int rank;
    int64_t dims[CJ_MAX_RANK], src_stride[CJ_MAX_RANK], dst_stride[CJ_MAX_RANK];
    int64_t idx[CJ_MAX_RANK];
    int64_t src_off, dst_off; /* in elements */
} odometer;

static void odo_add_dim(odometer *o, int64_t n, int64_t s, int64_t t) {
    o->dims[o->rank] = n;
    o->src_stride[o->rank] = s;
    o->dst_stride[o->rank] = t;
    o->rank++;
}

/* Positions the odometer at row-major position `linear`. */
static void odo_seek(odometer *o, int64_t linear) {
    o->src_off = o->dst_off = 0;
    for (int d = o->rank - 1; d >= 0; d--) {
        o->idx[d] = linear % o->dims[d];
        linear /= o->dims[d];
        o->src_off += o->idx[d] * o->src_stride[d];
        o->dst_off += o->idx[d] * o->dst_stride[d];
    }
}

static void odo_next(odometer *o) {
    for (int d = o->rank - 1; d >= 0; d--) {
        o->src_off += o->src_stride[d];
        o->dst_off += o->dst_stride[d];
        if (++o->idx[d] < o->dims[d]) return;
        o->src_off -= o->src_stride[d] * o->dims[d];
        o->dst_off -= o->dst_stride[d] * o->dims[d];
        o->idx[d] = 0;
    }
}

/* ---- element loops, specialised by element size ---- */

static ALWAYS_INLINE void move_row_sized(char *dst, const char *src, int64_t n, int64_t ss, int64_t ds,
                                         int64_t es) {
    if (ss == 1 && ds == 1) {
        memcpy(dst, src, (size_t)(n * es));
    } else if (ss == 0 && ds == 1) {
        char v[8]; /* a local copy: dst cannot alias it, so the loop vectorises */
        memcpy(v, src, (size_t)es);
        for (int64_t i = 0; i < n; i++) memcpy(dst + i * es, v, (size_t)es);
    } else {
        for (int64_t i = 0; i < n; i++) memcpy(dst + i * ds * es, src + i * ss * es, (size_t)es);
    }
}

static void move_row(char *dst, const char *src, int64_t n, int64_t ss, int64_t ds, int64_t es) {
    switch (es) {
    case 1:
        if (ss == 0 && ds == 1) memset(dst, *src, (size_t)n);
        else move_row_sized(dst, src, n, ss, ds, 1);
        return;
    case 4: move_row_sized(dst, src, n, ss, ds, 4); return;
    case 8: move_row_sized(dst, src, n, ss, ds, 8); return;
    default: move_row_sized(dst, src, n, ss, ds, es); return;
    }
}

/* One tile: `rows` along the dimension the source reads contiguously
 * (destination stride d_row), `cols` along the one the destination writes
 * contiguously (source stride s_col). */
static ALWAYS_INLINE void move_tile_sized(char *dst, const char *src, int64_t rows, int64_t cols, int64_t s_col,
                                          int64_t d_row, int64_t es) {
    for (int64_t r = 0; r < rows; r++)
        for (int64_t c = 0; c < cols; c++) memcpy(dst + (r * d_row + c) * es, src + (r + c * s_col) * es, (size_t)es);
}

static void move_tile_scalar(char *dst, const char *src, int64_t rows, int64_t cols, int64_t s_col, int64_t d_row,
                             int64_t es) {
    switch (es) {
    case 1: move_tile_sized(dst, src, rows, cols, s_col, d_row, 1); return;
    case 4: move_tile_sized(dst, src, rows, cols, s_col, d_row, 4); return;
    case 8: move_tile_sized(dst, src, rows, cols, s_col, d_row, 8); return;
    default: move_tile_sized(dst, src, rows, cols, s_col, d_row, es); return;
    }
}

#ifdef SHAPE_AVX
/* Register transposes: out[b·os + a] = in[a·is + b] for an 8×8 block of
 * 4-byte elements and a 4×4 block of 8-byte ones (strides in elements).
 * Element-by-element loops reach about a third of this speed. */
SHAPE_TARGET_AVX static inline void transpose_8x8_b4(float *out, int64_t os, const float *in, int64_t is) {
    __m256 r0 = _mm256_loadu_ps(in), r1 = _mm256_loadu_ps(in + is), r2 = _mm256_loadu_ps(in + 2 * is),
           r3 = _mm256_loadu_ps(in + 3 * is), r4 = _mm256_loadu_ps(in + 4 * is), r5 = _mm256_loadu_ps(in + 5 * is),
           r6 = _mm256_loadu_ps(in + 6 * is), r7 = _mm256_loadu_ps(in + 7 * is);
    __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1), t2 = _mm256_unpacklo_ps(r2, r3),
           t3 = _mm256_unpackhi_ps(r2, r3), t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5),
           t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
    __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xEE),
           s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xEE),
           s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xEE),
           s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xEE);
    _mm256_storeu_ps(out, _mm256_permute2f128_ps(s0, s4, 0x20));
    _mm256_storeu_ps(out + os, _mm256_permute2f128_ps(s1, s5, 0x20));
    _mm256_storeu_ps(out + 2 * os, _mm256_permute2f128_ps(s2, s6, 0x20));
    _mm256_storeu_ps(out + 3 * os, _mm256_permute2f128_ps(s3, s7, 0x20));
    _mm256_storeu_ps(out + 4 * os, _mm256_permute2f128_ps(s0, s4, 0x31));
    _mm256_storeu_ps(out + 5 * os, _mm256_permute2f128_ps(s1, s5, 0x31));
    _mm256_storeu_ps(out + 6 * os, _mm256_permute2f128_ps(s2, s6, 0x31));
    _mm256_storeu_ps(out + 7 * os, _mm256_permute2f128_ps(s3, s7, 0x31));
}

SHAPE_TARGET_AVX static inline void transpose_4x4_b8(double *out, int64_t os, const double *in, int64_t is) {
    __m256d r0 = _mm256_loadu_pd(in), r1 = _mm256_loadu_pd(in + is), r2 = _mm256_loadu_pd(in + 2 * is),
            r3 = _mm256_loadu_pd(in + 3 * is);
    __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1), t2 = _mm256_unpacklo_pd(r2, r3),
            t3 = _mm256_unpackhi_pd(r2, r3);
    _mm256_storeu_pd(out, _mm256_permute2f128_pd(t0, t2, 0x20));
    _mm256_storeu_pd(out + os, _mm256_permute2f128_pd(t1, t3, 0x20));
    _mm256_storeu_pd(out + 2 * os, _mm256_permute2f128_pd(t0, t2, 0x31));
    _mm256_storeu_pd(out + 3 * os, _mm256_permute2f128_pd(t1, t3, 0x31));
}
#endif

/* The tile in blocks of B×B through a register transpose, the ragged
 * edges element by element. The pointers are only ever dereferenced
 * through the intrinsics' unaligned loads and stores. */
#define TILE_BY_BLOCKS(B, T, KERNEL)                                                                          \
    do {                                                                                                      \
        int64_t rb = rows / B * B, cb = cols / B * B;                                                         \
        for (int64_t c = 0; c < cb; c += B)                                                                   \
            for (int64_t r = 0; r < rb; r += B)                                                               \
                KERNEL((T *)(void *)(dst + (r * d_row + c) * es), d_row, (const T *)(const void *)(src + (r + c * s_col) * es), \
                       s_col);                                                                                \
        if (cb < cols) move_tile_scalar(dst + cb * es, src + cb * s_col * es, rows, cols - cb, s_col, d_row, es); \
        if (rb < rows) move_tile_scalar(dst + rb * d_row * es, src + rb * es, rows - rb, cb, s_col, d_row, es);  \
    } while (0)

#ifdef SHAPE_AVX
SHAPE_TARGET_AVX static void move_tile_avx(char *dst, const char *src, int64_t rows, int64_t cols, int64_t s_col,
                                           int64_t d_row, int64_t es) {
    if (es == 4) TILE_BY_BLOCKS(8, float, transpose_8x8_b4);
    else TILE_BY_BLOCKS(4, double, transpose_4x4_b8);
}

/* AVX on this CPU (and OS), unless CJAX_ISA asks for the baseline. */
static int shape_has_avx(void) { return __builtin_cpu_supports("avx") && rt_isa_cap() != RT_ISA_BASE; }
#endif

static void move_tile(char *dst, const char *src, int64_t rows, int64_t cols, int64_t s_col, int64_t d_row,
                      int64_t es) {
#ifdef SHAPE_AVX
    if ((es == 4 || es == 8) && shape_has_avx()) {
        move_tile_avx(dst, src, rows, cols, s_col, d_row, es);
        return;
    }
#endif
    move_tile_scalar(dst, src, rows, cols, s_col, d_row, es);
}

/* ---- the row path ---- */

typedef struct row_job {
    const sk_copy *c;
    int64_t seg_len, n_seg; /* each row is n_seg segments of seg_len */
} row_job;

static void rows_range(void *arg, int64_t begin, int64_t end) {
    const row_job *j = arg;
    const sk_copy *c = j->c;
    int last = c->rank - 1;
    int64_t n = c->dims[last], s = c->src_stride[last], t = c->dst_stride[last];
    int64_t es = (int64_t)c->elem_size;
    odometer o = {0};
    for (int d = 0; d < last; d++) odo_add_dim(&o, c->dims[d], c->src_stride[d], c->dst_stride[d]);
    odo_seek(&o, begin / j->n_seg);
    int64_t seg = begin % j->n_seg;
    for (int64_t item = begin; item < end; item++) {
        int64_t c0 = seg * j->seg_len;
        int64_t len = n - c0 < j->seg_len ? n - c0 : j->seg_len;
        move_row((char *)c->dst + (o.dst_off + c0 * t) * es, (const char *)c->src + (o.src_off + c0 * s) * es, len, s,
                 t, es);
        if (++seg == j->n_seg) {
            seg = 0;
            odo_next(&o);
        }
    }
}

static void run_rows(const sk_copy *c, int64_t total) {
    int64_t n = c->dims[c->rank - 1];
    row_job j = {c, n > 2 * SEGMENT ? SEGMENT : n, 1};
    j.n_seg = (n + j.seg_len - 1) / j.seg_len;
    int64_t items = total / n * j.n_seg;
    if (total < RT_PARALLEL_MIN_ELEMS) {
        rows_range(&j, 0, items);
        return;
    }
    int64_t grain = RT_PARALLEL_MIN_ELEMS / j.seg_len;
    rt_parallel_for(items, grain > 0 ? grain : 1, rows_range, &j);
}

/* ---- the panel path: rows too short for a call per row ---- */

/* m rows of n elements: row i at src + i·s1, dst + i·t1; elements at
 * strides s0, t0. */
static ALWAYS_INLINE void move_panel_sized(char *dst, const char *src, int64_t m, int64_t n, int64_t s1, int64_t t1,
                                           int64_t s0, int64_t t0, int64_t es) {
    for (int64_t i = 0; i < m; i++) {
        char *d = dst + i * t1 * es;
        const char *s = src + i * s1 * es;
        for (int64_t k = 0; k < n; k++) memcpy(d + k * t0 * es, s + k * s0 * es, (size_t)es);
    }
}

static void move_panel(char *dst, const char *src, int64_t m, int64_t n, int64_t s1, int64_t t1, int64_t s0,
                       int64_t t0, int64_t es) {
    switch (es) {
    case 1: move_panel_sized(dst, src, m, n, s1, t1, s0, t0, 1); return;
    case 4: move_panel_sized(dst, src, m, n, s1, t1, s0, t0, 4); return;
    case 8: move_panel_sized(dst, src, m, n, s1, t1, s0, t0, 8); return;
    default: move_panel_sized(dst, src, m, n, s1, t1, s0, t0, es); return;
    }
}

typedef struct panel_job {
    const sk_copy *c;
    int64_t seg_rows, n_seg; /* the second-innermost dimension in segments */
} panel_job;

static void panels_range(void *arg, int64_t begin, int64_t end) {
    const panel_job *j = arg;
    const sk_copy *c = j->c;
    int r = c->rank;
    int64_t m = c->dims[r - 2], n = c->dims[r - 1];
    int64_t s1 = c->src_stride[r - 2], t1 = c->dst_stride[r - 2], s0 = c->src_stride[r - 1], t0 = c->dst_stride[r - 1];
    int64_t es = (int64_t)c->elem_size;
    odometer o = {0};
    for (int d = 0; d < r - 2; d++) odo_add_dim(&o, c->dims[d], c->src_stride[d], c->dst_stride[d]);
    odo_seek(&o, begin / j->n_seg);
    int64_t seg = begin % j->n_seg;
    for (int64_t item = begin; item < end; item++) {
        int64_t i0 = seg * j->seg_rows, rows = m - i0 < j->seg_rows ? m - i0 : j->seg_rows;
        move_panel((char *)c->dst + (o.dst_off + i0 * t1) * es, (const char *)c->src + (o.src_off + i0 * s1) * es, rows,
                   n, s1, t1, s0, t0, es);
        if (++seg == j->n_seg) {
            seg = 0;
            odo_next(&o);
        }
    }
}

static void run_panels(const sk_copy *c, int64_t total) {
    int64_t m = c->dims[c->rank - 2], n = c->dims[c->rank - 1];
    panel_job j = {c, SEGMENT / n, 1};
    if (j.seg_rows > m) j.seg_rows = m;
    j.n_seg = (m + j.seg_rows - 1) / j.seg_rows;
    int64_t items = total / (m * n) * j.n_seg;
    if (total < RT_PARALLEL_MIN_ELEMS) {
        panels_range(&j, 0, items);
        return;
    }
    int64_t grain = RT_PARALLEL_MIN_ELEMS / (j.seg_rows * n);
    rt_parallel_for(items, grain > 0 ? grain : 1, panels_range, &j);
}

/* ---- the tiled (transpose) path ---- */

typedef struct tile_job {
    const sk_copy *c;
    int k;             /* the dimension the source reads contiguously */
    int64_t n_blocks;  /* TILE-row blocks along k */
    odometer outer;    /* every dimension but k and the innermost */
} tile_job;

static void tiles_range(void *arg, int64_t begin, int64_t end) {
    const tile_job *j = arg;
    const sk_copy *c = j->c;
    int last = c->rank - 1;
    int64_t nk = c->dims[j->k], d_row = c->dst_stride[j->k];
    int64_t nj = c->dims[last], s_col = c->src_stride[last];
    int64_t es = (int64_t)c->elem_size;
    odometer o = j->outer;
    odo_seek(&o, begin / j->n_blocks);
    int64_t block = begin % j->n_blocks;
    for (int64_t item = begin; item < end; item++) {
        int64_t k0 = block * TILE, rows = nk - k0 < TILE ? nk - k0 : TILE;
        const char *src = (const char *)c->src + (o.src_off + k0) * es;
        char *dst = (char *)c->dst + (o.dst_off + k0 * d_row) * es;
        for (int64_t j0 = 0; j0 < nj; j0 += TILE) {
            int64_t cols = nj - j0 < TILE ? nj - j0 : TILE;
            move_tile(dst + j0 * es, src + j0 * s_col * es, rows, cols, s_col, d_row, es);
        }
        if (++block == j->n_blocks) {
            block = 0;
            odo_next(&o);
        }
    }
}

/* The dimension to tile with the innermost one, or -1: the innermost
 * destination run is contiguous but its source is strided, and another
 * dimension reads the source contiguously. */
static int tile_axis(const sk_copy *c) {
    int last = c->rank - 1;
    if (c->rank < 2 || c->dst_stride[last] != 1) return -1;
    int64_t s = c->src_stride[last];
    if (s == 0 || s == 1 || s == -1) return -1;
    for (int d = last - 1; d >= 0; d--)
        if (c->src_stride[d] == 1) return d;
    return -1;
}

static void run_tiles(const sk_copy *c, int k, int64_t total) {
    tile_job j = {c, k, (c->dims[k] + TILE - 1) / TILE, {0}};
    int last = c->rank - 1;
    for (int d = 0; d < last; d++)
        if (d != k) odo_add_dim(&j.outer, c->dims[d], c->src_stride[d], c->dst_stride[d]);
    int64_t items = total / (c->dims[k] * c->dims[last]) * j.n_blocks;
    if (total < RT_PARALLEL_MIN_ELEMS) {
        tiles_range(&j, 0, items);
        return;
    }
    int64_t per_item = (c->dims[k] < TILE ? c->dims[k] : TILE) * c->dims[last];
    int64_t grain = RT_PARALLEL_MIN_ELEMS / per_item;
    rt_parallel_for(items, grain > 0 ? grain : 1, tiles_range, &j);
}

/* ---- entry points ---- */

void sk_copy_run(const sk_copy *in) {
    sk_copy c;
    if (!normalise(in, &c)) return;
    if (c.rank == 0) {
        memcpy(c.dst, c.src, c.elem_size);
        return;
    }
    int64_t total = 1;
    for (int d = 0; d < c.rank; d++) total *= c.dims[d];
    int k = tile_axis(&c);
    if (k >= 0) run_tiles(&c, k, total);
    else if (c.rank >= 2 && c.dims[c.rank - 1] < SHORT_ROW) run_panels(&c, total);
    else run_rows(&c, total);
}

void sk_fill(void *dst, const void *value, int64_t n, size_t elem_size) {
    sk_copy c = {.rank = 1, .dims = {n}, .src_stride = {0}, .dst_stride = {1}};
    c.src = value;
    c.dst = dst;
    c.elem_size = elem_size;
    sk_copy_run(&c);
}

/* ---- iota ---- */

/* dst[i] = i for i < n, rounded to the dtype as JAX's iota is. */
static void write_count(void *dst, cj_dtype dt, int64_t n) {
    if (n <= INT32_MAX) { /* a 32-bit counter converts in vector registers */
        int32_t m = (int32_t)n;
        switch (dt) {
        case CJ_I32: for (int32_t i = 0; i < m; i++) ((int32_t *)dst)[i] = i; break;
        case CJ_I64: for (int32_t i = 0; i < m; i++) ((int64_t *)dst)[i] = i; break;
        case CJ_F32: for (int32_t i = 0; i < m; i++) ((float *)dst)[i] = (float)i; break;
        case CJ_F64: for (int32_t i = 0; i < m; i++) ((double *)dst)[i] = (double)i; break;
        default: /* the integer dtypes after f64: exact within their range */
            for (int32_t i = 0; i < m; i++) rt_set_f64(dt, dst, i, (double)i);
            break;
        }
        return;
    }
    switch (dt) {
    case CJ_I32: for (int64_t i = 0; i < n; i++) ((int32_t *)dst)[i] = (int32_t)i; break;
    case CJ_I64: for (int64_t i = 0; i < n; i++) ((int64_t *)dst)[i] = i; break;
    case CJ_F32: for (int64_t i = 0; i < n; i++) ((float *)dst)[i] = (float)i; break;
    case CJ_F64: for (int64_t i = 0; i < n; i++) ((double *)dst)[i] = (double)i; break;
    default: /* the integer dtypes after f64: exact within their range */
        for (int64_t i = 0; i < n; i++) rt_set_f64(dt, dst, i, (double)i);
        break;
    }
}

static void write_const(void *dst, cj_dtype dt, int64_t v, int64_t n) {
    switch (dt) {
    case CJ_I32: for (int64_t i = 0; i < n; i++) ((int32_t *)dst)[i] = (int32_t)v; break;
    case CJ_I64: for (int64_t i = 0; i < n; i++) ((int64_t *)dst)[i] = v; break;
    case CJ_F32: for (int64_t i = 0; i < n; i++) ((float *)dst)[i] = (float)v; break;
    case CJ_F64: for (int64_t i = 0; i < n; i++) ((double *)dst)[i] = (double)v; break;
    default:
        for (int64_t i = 0; i < n; i++) rt_set_f64(dt, dst, i, (double)v);
        break;
    }
}

typedef struct iota_job {
    char *dst;
    cj_dtype dtype;
    int64_t n, inner;
} iota_job;

/* Items are rows: with inner == 1 a row is one count 0..n-1 (the first of
 * a range is counted, the others copy it); otherwise a row is `inner`
 * copies of one value. */
static void iota_range(void *arg, int64_t begin, int64_t end) {
    const iota_job *j = arg;
    int64_t es = (int64_t)rt_dtypes[j->dtype].size;
    if (j->inner == 1) {
        char *first = j->dst + begin * j->n * es;
        write_count(first, j->dtype, j->n);
        for (int64_t r = begin + 1; r < end; r++) memcpy(j->dst + r * j->n * es, first, (size_t)(j->n * es));
        return;
    }
    for (int64_t r = begin; r < end; r++) write_const(j->dst + r * j->inner * es, j->dtype, r % j->n, j->inner);
}

void sk_iota(void *dst, cj_dtype dtype, int64_t outer, int64_t n, int64_t inner) {
    int64_t total = outer * n * inner;
    if (total == 0) return;
    iota_job j = {dst, dtype, n, inner};
    int64_t rows = inner == 1 ? outer : outer * n;
    int64_t row_len = inner == 1 ? n : inner;
    if (total < RT_PARALLEL_MIN_ELEMS) {
        iota_range(&j, 0, rows);
        return;
    }
    int64_t grain = RT_PARALLEL_MIN_ELEMS / row_len;
    rt_parallel_for(rows, grain > 0 ? grain : 1, iota_range, &j);
}
