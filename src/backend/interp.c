/* interp.c — the interpreter backend: runs a compiled program kernel by
 * kernel (backend layer). Always available; the reference the generated-C
 * backend is tested against.
 *
 * A LOOP kernel runs tile by tile (TILE elements at a time): each fused
 * equation is applied to the tile with the primitive's own elementwise
 * loop, so a value used only inside the kernel exists only as a tile in
 * per-thread scratch, never as a full buffer. Values the kernel must
 * materialise are written straight into their buffers. Data-movement
 * leaves gather their operands through the index maps their primitives
 * define (prim.h: prim_index_map; runs along the innermost axis for one
 * affine map, element by element through the windows of concatenate and
 * pad — slowly, but the generated code is the fast path). A SINGLE kernel calls its primitive's
 * eager kernel on whole buffers; a control-flow construct's kernel runs
 * through cf_run (control_run.c), looping in the runtime over its
 * compiled bodies, unless the program's generated C runs the construct
 * itself (codegen_control.c). The arena and the scratch are allocated
 * on the first run and kept, so steady-state calls allocate only their
 * outputs. */
#include <stdatomic.h>
#include <string.h>

#include "../compiler/program.h"
#include "../prim/elementwise_kernels.h"
#include "../runtime/threads.h"
#include "../runtime/vmath.h"
#include "backend.h"
#include "control_run.h"
#include "program_impl.h"

#define TILE 1024
/* a long row's partials are per tile: generated tiles must be these */
_Static_assert(TILE == CODEGEN_TILE, "interpreter and generated tiles differ");
_Static_assert(FUSE_LONG_MAX_ROWS <= TILE, "a long-rows kernel's per-row values fill one tile slot");

/* Bytes between tile slots: a tile for LOOP kernels, a row for ROWS. */
/* Rows a ROWS kernel handles at once: short rows are grouped into blocks
 * of about a tile, so per-call overheads are paid per block, not per row. */
static int64_t rows_per_block(const kernel *K) {
    int64_t r = TILE * 4 / (K->row_len ? K->row_len : 1);
    return r < 1 ? 1 : r;
}

static size_t slot_stride(const kernel *K) {
    return (size_t)(K->kind == KERNEL_ROWS && !fuse_is_long_rows(K) ? K->row_len * rows_per_block(K) : TILE) * 8;
}

/* The index maps of every leaf of a LOOP or ROWS kernel, from its
 * primitive's rule (fusion.c: fuse_leaf_index_map): p->map_at[eqn] is the
 * first of the leaf's maps (one per operand; iota's one), -1 for others. */
static int make_maps(cj_ctx *ctx, program *p) {
    const compiled *c = p->c;
    const ir_func *ir = c->ir;
    p->map_at = rt_alloc(ctx->mem, sizeof(int) * (size_t)(ir->n_eqns + 1));
    if (!p->map_at) return -1;
    int n = 0;
    for (int e = 0; e < ir->n_eqns; e++) {
        /* (a leaf fusion composed away runs in no kernel) */
        bool leaf = p->eqn_kernel[e] >= 0 && c->kernels[p->eqn_kernel[e]].kind != KERNEL_SINGLE &&
                    fuse_is_leaf_map(ir->eqns[e].prim);
        p->map_at[e] = leaf ? n : -1;
        if (leaf) n += ir->eqns[e].n_in ? ir->eqns[e].n_in : 1;
    }
    p->n_maps = n;
    p->maps = rt_alloc(ctx->mem, sizeof(prim_index_map) * (size_t)(n + 1));
    if (!p->maps) return -1;
    for (int e = 0; e < ir->n_eqns; e++) {
        if (p->map_at[e] < 0) continue;
        const ir_eqn *q = &ir->eqns[e];
        for (int i = 0; i < (q->n_in ? q->n_in : 1); i++) fuse_leaf_index_map(c, e, i, &p->maps[p->map_at[e] + i]);
    }
    return 0;
}

static program *prepare(cj_ctx *ctx, const ir_func *ir, cj_backend mode, const uint8_t *donated, int lazy,
                        bool sub) {
    program *p = rt_calloc(ctx->mem, sizeof *p);
    if (!p) {
        core_oom(ctx, "jit: preparing a program");
        return NULL;
    }
    /* a construct's body keeps its temporaries in its arena: generated
     * loops (codegen_control_state.c) bind its outputs per step */
    p->c = compile_ir_until(ctx, ir, NULL, &(compile_options){.donated = donated, .no_output_scratch = sub});
    if (!p->c) {
        rt_free(ctx->mem, p, sizeof *p);
        return NULL;
    }
    const compiled *c = p->c;
    const ir_func *cir = c->ir;
    p->slot = rt_alloc(ctx->mem, sizeof(int) * (size_t)(cir->n_vars + 1));
    p->eqn_kernel = rt_alloc(ctx->mem, sizeof(int) * (size_t)(cir->n_eqns + 1));
    if (!p->slot || !p->eqn_kernel) {
        program_free(ctx, p);
        core_oom(ctx, "jit: preparing a program");
        return NULL;
    }
    /* tile slots for values that live only inside their kernel; the
     * largest kernel's count sizes the scratch */
    for (int v = 0; v < cir->n_vars; v++) p->slot[v] = -1;
    for (int e = 0; e < cir->n_eqns; e++) p->eqn_kernel[e] = -1;
    for (int k = 0; k < c->n_kernels; k++) {
        const kernel *K = &c->kernels[k];
        for (int j = 0; j < K->n_eqns; j++) p->eqn_kernel[K->eqns[j]] = k;
        if (K->kind == KERNEL_SINGLE) continue;
        int used = 0;
        for (int j = 0; j < K->n_eqns; j++) {
            const ir_eqn *e = &cir->eqns[K->eqns[j]];
            if (c->home[e->out] == HOME_NONE && !(K->kind == KERNEL_DOT_EPILOGUE && j == 0)) p->slot[e->out] = used++;
        }
        size_t need = (size_t)used * slot_stride(K);
        if (need > p->scratch_each) p->scratch_each = need;
        if (used > p->n_slots) p->n_slots = used;
    }
    if (make_maps(ctx, p) != 0) {
        program_free(ctx, p);
        core_oom(ctx, "jit: preparing a program");
        return NULL;
    }
    p->n_scratch = rt_num_threads() < MAX_SCRATCH ? rt_num_threads() : MAX_SCRATCH;
    p->mode = mode ? mode : rt_config_get()->backend;
    p->native_lazy = lazy;
    if (!lazy) native_start(ctx, p);
    if (ctx->err) {
        program_free(ctx, p);
        return NULL;
    }
    return p;
}

program *backend_prepare(cj_ctx *ctx, const ir_func *ir, cj_backend mode, const uint8_t *donated) {
    return prepare(ctx, ir, mode, donated, 0, false);
}

program *backend_prepare_sub(cj_ctx *ctx, const ir_func *ir, cj_backend mode, const uint8_t *donated, int lazy) {
    return prepare(ctx, ir, mode, donated, lazy, true);
}

void program_free(cj_ctx *ctx, program *p) {
    if (!p) return;
    native_free(ctx, p);
    if (p->arena) rt_data_free(ctx->mem, p->arena, p->arena_cap);
    if (p->scratch) rt_data_free(ctx->mem, p->scratch, p->scratch_cap);
    if (p->c && p->run_buf) rt_free(ctx->mem, p->run_buf, sizeof(char *) * (size_t)(p->c->ir->n_vars + 1));
    if (p->c && p->run_arrays) rt_free(ctx->mem, p->run_arrays, sizeof(rt_array *) * (size_t)(p->c->ir->n_vars + 1));
    if (p->c) {
        if (p->maps) rt_free(ctx->mem, p->maps, sizeof(prim_index_map) * (size_t)(p->n_maps + 1));
        if (p->map_at) rt_free(ctx->mem, p->map_at, sizeof(int) * (size_t)(p->c->ir->n_eqns + 1));
        if (p->slot) rt_free(ctx->mem, p->slot, sizeof(int) * (size_t)(p->c->ir->n_vars + 1));
        if (p->eqn_kernel) rt_free(ctx->mem, p->eqn_kernel, sizeof(int) * (size_t)(p->c->ir->n_eqns + 1));
        compiled_free(ctx, p->c);
    }
    rt_free(ctx->mem, p, sizeof *p);
}

const compiled *program_compiled(const program *p) { return p->c; }

/* ---- LOOP kernels ---- */
typedef struct loop_job {
    program *p;
    const kernel *K;
    char *const *buf; /* per variable: its buffer's base, or NULL */
    int first;        /* the first equation run (1 for a DOT_EPILOGUE's epilogue) */
    int64_t base;     /* where the range handed to run_tiles starts */
} loop_job;

static size_t esize(const ir_func *ir, int v) { return rt_dtypes[ir->vars[v].dtype].size; }

/* Gathers `len` elements of a leaf starting at linear index t0. */
/* n copies of one element of es bytes. */
static void fill_row(char *dst, const char *val, size_t es, int64_t n) {
    switch (es) {
    case 1: memset(dst, *(const uint8_t *)val, (size_t)n); break;
    case 2: { /* i16, u16, f16, bf16 */
        uint16_t v;
        memcpy(&v, val, 2);
        for (int64_t q = 0; q < n; q++) ((uint16_t *)dst)[q] = v;
        break;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, val, 4);
        for (int64_t q = 0; q < n; q++) ((uint32_t *)dst)[q] = v;
        break;
    }
    default: {
        uint64_t v;
        memcpy(&v, val, 8);
        for (int64_t q = 0; q < n; q++) ((uint64_t *)dst)[q] = v;
        break;
    }
    }
}

/* The dynamic part of a map's offset: each start index read from its
 * rank-0 operand and clamped as lax clamps it. */
static int64_t dynamic_offset(const ir_func *ir, const ir_eqn *e, const prim_index_map *m, char *const *buf,
                              int rank) {
    const int *ops = ir_eqn_inputs(ir, e);
    int64_t off = 0;
    for (int d = 0; d < rank; d++) {
        if (m->dyn[d] < 0) continue;
        int u = ops[m->dyn[d]];
        int64_t s = rt_get_i64(ir->vars[u].dtype, buf[u], 0);
        off += (s < 0 ? 0 : s > m->dyn_hi[d] ? m->dyn_hi[d] : s) * m->dyn_stride[d];
    }
    return off;
}

/* The general path, one element at a time: the first operand whose
 * window holds the index (concatenate, pad), at its map's offset. */
static void gather_windows(const ir_func *ir, const ir_eqn *e, const prim_index_map *maps, const rt_aval *space,
                           char *const *buf, char *dst, int64_t t0, int64_t len) {
    size_t es = esize(ir, e->out);
    const int *ops = ir_eqn_inputs(ir, e);
    int r = space->rank, n = e->n_in;
    int64_t idx[CJ_MAX_RANK], rem = t0, base[PRIM_MAX_OPERANDS];
    for (int i = 0; i < n; i++) base[i] = maps[i].kind == MAP_AFFINE ? maps[i].offset + dynamic_offset(ir, e, &maps[i], buf, r) : 0;
    for (int d = r - 1; d >= 0; d--) {
        idx[d] = space->dims[d] ? rem % space->dims[d] : 0;
        rem = space->dims[d] ? rem / space->dims[d] : 0;
    }
    for (int64_t j = 0; j < len; j++) {
        for (int i = 0; i < n; i++) {
            const prim_index_map *m = &maps[i];
            if (m->kind != MAP_AFFINE) continue;
            int64_t off = base[i];
            bool inside = true;
            for (int d = 0; d < r && inside; d++) {
                int64_t q = idx[d] - m->lo[d];
                inside = idx[d] >= m->lo[d] && idx[d] < m->hi[d] && q % m->pitch[d] == 0;
                off += q / m->pitch[d] * m->stride[d];
            }
            if (!inside) continue;
            memcpy(dst + (size_t)j * es, buf[ops[i]] + (size_t)off * es, es);
            break;
        }
        for (int d = r - 1; d >= 0; d--) {
            if (++idx[d] < space->dims[d]) break;
            idx[d] = 0;
        }
    }
}

static void gather_leaf(const ir_func *ir, const ir_eqn *e, const prim_index_map *maps, const rt_aval *space,
                        char *const *buf, char *dst, int64_t t0, int64_t len) {
    size_t es = esize(ir, e->out);
    const int *ops = ir_eqn_inputs(ir, e);
    const char *src = e->n_in ? buf[ops[0]] : NULL;
    const prim_index_map *m = &maps[0];
    if (m->kind == MAP_IOTA) {
        int dim = m->axis;
        int64_t stride = 1;
        for (int d = space->rank - 1; d > dim; d--) stride *= space->dims[d];
        for (int64_t j = 0; j < len; j++)
            rt_set_f64(ir->vars[e->out].dtype, dst, j, (double)(((t0 + j) / stride) % space->dims[dim]));
        return;
    }
    if (m->window) {
        gather_windows(ir, e, maps, space, buf, dst, t0, len);
        return;
    }
    if (m->kind == MAP_LINEAR) {
        memcpy(dst, src + (size_t)t0 * es, (size_t)len * es);
        return;
    }
    int64_t idx[CJ_MAX_RANK], rem = t0, off = m->offset + dynamic_offset(ir, e, m, buf, space->rank);
    int r = space->rank;
    for (int d = r - 1; d >= 0; d--) {
        idx[d] = space->dims[d] ? rem % space->dims[d] : 0;
        rem = space->dims[d] ? rem / space->dims[d] : 0;
        off += idx[d] * m->stride[d];
    }
    /* Runs along the innermost axis: a broadcast (stride 0) fills, a
     * contiguous run copies, anything else steps. Then carry into the outer
     * axes. */
    int64_t inner = r ? space->dims[r - 1] : 1, s_in = r ? m->stride[r - 1] : 0;
    for (int64_t j = 0; j < len;) {
        int64_t run = r ? inner - idx[r - 1] : 1;
        if (run > len - j) run = len - j;
        char *d = dst + (size_t)j * es;
        const char *sp = src + (size_t)off * es;
        if (s_in == 1) {
            memcpy(d, sp, (size_t)run * es);
        } else if (s_in == 0) {
            fill_row(d, sp, es, run);
        } else {
            for (int64_t q = 0; q < run; q++) memcpy(d + (size_t)q * es, sp + (ptrdiff_t)(q * s_in) * (ptrdiff_t)es, es);
        }
        j += run;
        off += run * s_in;
        if (!r) break;
        idx[r - 1] += run;
        for (int d2 = r - 1; d2 > 0 && idx[d2] >= space->dims[d2]; d2--) { /* carry */
            off -= idx[d2] * m->stride[d2];
            idx[d2] = 0;
            idx[d2 - 1]++;
            off += m->stride[d2 - 1];
        }
    }
}

/* A free block of the per-thread scratch. Spins while every block is
 * taken: at most n_scratch workers run a kernel at once. */
char *interp_claim_scratch(program *p, int *which) {
    for (;;)
        for (int i = 0; i < p->n_scratch; i++) {
            int expect = 0;
            if (atomic_compare_exchange_strong(&p->busy[i], &expect, 1)) {
                *which = i;
                return (char *)p->scratch + (size_t)i * p->scratch_each;
            }
        }
}

void interp_release_scratch(program *p, int which) { atomic_store(&p->busy[which], 0); }

/* The position after j of the cos (sin) of the same f32/f64 operand as
 * the sin (cos) at j in a tiled kernel, or -1: the two are then one
 * vm_sincos call, with the bits of vm_sin and vm_cos. */
static int sincos_partner(const ir_func *ir, const kernel *K, int j) {
    const ir_eqn *e = &ir->eqns[K->eqns[j]];
    if (e->prim != PRIM_SIN && e->prim != PRIM_COS) return -1;
    int u = ir_eqn_inputs(ir, e)[0];
    cj_dtype dt = ir->vars[u].dtype;
    if ((dt != CJ_F32 && dt != CJ_F64) || ir->vars[e->out].dtype != dt || !rt_aval_same_shape(&ir->vars[u], &K->space))
        return -1;
    prim_id other = e->prim == PRIM_SIN ? PRIM_COS : PRIM_SIN;
    for (int q = j + 1; q < K->n_eqns; q++) {
        const ir_eqn *f = &ir->eqns[K->eqns[q]];
        if (f->prim == other && ir_eqn_inputs(ir, f)[0] == u && ir->vars[f->out].dtype == dt) return q;
    }
    return -1;
}

static bool sincos_second(const ir_func *ir, const kernel *K, int first, int j) {
    const ir_eqn *e = &ir->eqns[K->eqns[j]];
    if (e->prim != PRIM_SIN && e->prim != PRIM_COS) return false;
    for (int q = first; q < j; q++)
        if (sincos_partner(ir, K, q) == j) return true;
    return false;
}

static void run_tiles(void *arg, int64_t begin, int64_t end) {
    loop_job *job = arg;
    program *p = job->p;
    const ir_func *ir = p->c->ir;
    const kernel *K = job->K;
    int kidx = (int)(K - p->c->kernels);
    int which = 0;
    char *scratch = p->scratch_each ? interp_claim_scratch(p, &which) : NULL;
    begin += job->base;
    end += job->base;
    for (int64_t t0 = begin; t0 < end; t0 += TILE) {
        int64_t len = end - t0 < TILE ? end - t0 : TILE;
        for (int j = job->first; j < K->n_eqns; j++) {
            const ir_eqn *e = &ir->eqns[K->eqns[j]];
            int v = e->out;
            char *dst = p->slot[v] >= 0 ? scratch + (size_t)p->slot[v] * TILE * 8
                                        : job->buf[v] + (size_t)t0 * esize(ir, v);
            const int *in = ir_eqn_inputs(ir, e);
            if (fuse_is_leaf_map(e->prim)) {
                gather_leaf(ir, e, &p->maps[p->map_at[K->eqns[j]]], &K->space, job->buf, dst, t0, len);
                continue;
            }
            if (sincos_second(ir, K, job->first, j)) continue; /* computed with its partner */
            int partner = sincos_partner(ir, K, j);
            if (partner >= 0) {
                int u = in[0], w = ir->eqns[K->eqns[partner]].out;
                const char *x = p->c->kernel_of[u] == kidx && p->slot[u] >= 0 ? scratch + (size_t)p->slot[u] * TILE * 8
                                                                               : job->buf[u] + (size_t)t0 * esize(ir, u);
                char *d2 = p->slot[w] >= 0 ? scratch + (size_t)p->slot[w] * TILE * 8 : job->buf[w] + (size_t)t0 * esize(ir, w);
                char *s_ = e->prim == PRIM_SIN ? dst : d2, *c_ = e->prim == PRIM_SIN ? d2 : dst;
                if (ir->vars[u].dtype == CJ_F64) vm_sincos_f64((const double *)x, (double *)s_, (double *)c_, len);
                else vm_sincos_f32((const float *)x, (float *)s_, (float *)c_, len);
                continue;
            }
            ew_operands ops;
            memset(&ops, 0, sizeof ops);
            for (int i = 0; i < e->n_in && i < 3; i++) {
                int u = in[i];
                if (p->c->kernel_of[u] == kidx && p->slot[u] >= 0) {
                    ops.in[i] = scratch + (size_t)p->slot[u] * TILE * 8;
                } else if (ir->vars[u].rank == 0 && K->space.rank > 0) {
                    ops.in[i] = job->buf[u];
                    ops.scalar[i] = true;
                } else {
                    ops.in[i] = job->buf[u] + (size_t)t0 * esize(ir, u);
                }
            }
            ops.out = dst;
            ops.in_dtype = ir->vars[in[prim_lower(e->prim)->dtype_operand]].dtype;
            ops.out_dtype = ir->vars[v].dtype;
            ops.param = e->params.count;
            ew_kernel(e->prim, ops.in_dtype)(&ops, 0, len);
        }
    }
    if (scratch) interp_release_scratch(p, which);
}

void interp_run_loop(program *p, const kernel *K, char *const *buf) {
    interp_run_loop_range(p, K, 0, buf, 0, rt_aval_size(&K->space));
}

void interp_run_loop_range(program *p, const kernel *K, int first, char *const *buf, int64_t begin, int64_t end) {
    int64_t n = end - begin;
    if (n <= 0) return;
    loop_job job = {p, K, buf, first, begin};
    int64_t grain = n;
    if (n >= RT_PARALLEL_MIN_ELEMS) {
        grain = n / ((int64_t)p->n_scratch * 4);
        grain = (grain + TILE - 1) / TILE * TILE;
        if (grain < 4 * TILE) grain = 4 * TILE;
    }
    rt_parallel_for(n, grain, run_tiles, &job);
}

/* ---- ROWS kernels ----
 * Row by row: each value of the kernel is either a whole row (computed
 * over row_len elements), one element per row (the reductions' results and
 * what is computed from them), or a rank-0 scalar. A reduction runs its
 * primitive's kernel on the row; a broadcast of a per-row value back
 * across the row fills it; data-movement leaves gather their row from
 * their buffer. A row stays in cache between the equations, so each row of
 * the input is read from memory once. */
typedef struct rows_job {
    program *p;
    const kernel *K;
    char *const *buf;
    cj_ctx *ctx;
} rows_job;

static void run_rows_range(void *arg, int64_t begin, int64_t end) {
    rows_job *job = arg;
    program *p = job->p;
    const ir_func *ir = p->c->ir;
    const kernel *K = job->K;
    int kidx = (int)(K - p->c->kernels);
    int which = 0;
    char *scratch = p->scratch_each ? interp_claim_scratch(p, &which) : NULL;
    int64_t C = K->row_len, R = rows_per_block(K);
    for (int64_t r = begin; r < end; r += R) {
        int64_t nr = end - r < R ? end - r : R; /* rows in this block */
        for (int j = 0; j < K->n_eqns; j++) {
            int ei = K->eqns[j];
            const ir_eqn *e = &ir->eqns[ei];
            const int *in = ir_eqn_inputs(ir, e);
            int v = e->out;
            row_form fo = fuse_row_form(K, &ir->vars[v]);
            /* operands 0..2 (elementwise and reductions read no more) and
             * the result, last: leaves may have more operands (concatenate,
             * dynamic_slice) and gather them themselves */
            char *ptr[4];
            int n_ptr = e->n_in < 3 ? e->n_in : 3;
            for (int i = 0; i <= n_ptr; i++) {
                int u = i < n_ptr ? in[i] : v;
                row_form form = fuse_row_form(K, &ir->vars[u]);
                size_t es = esize(ir, u);
                if (p->slot[u] >= 0 && p->c->kernel_of[u] == kidx)
                    ptr[i] = scratch + (size_t)p->slot[u] * slot_stride(K);
                else if (form == FORM_ROW)
                    ptr[i] = job->buf[u] + (size_t)(r * C) * es;
                else if (form == FORM_SCALAR)
                    ptr[i] = job->buf[u] + (size_t)r * es;
                else
                    ptr[i] = job->buf[u];
            }
            char *dst = ptr[n_ptr];
            if (prim_lower(e->prim)->kind == LOWER_REDUCTION) { /* each row of the block reduced */
                rt_array a, o;
                memset(&a, 0, sizeof a);
                memset(&o, 0, sizeof o);
                a.refcount = o.refcount = 1;
                int64_t ad[2] = {nr, C};
                a.aval = rt_aval_make(ir->vars[in[0]].dtype, 2, ad);
                a.size = nr * C;
                a.data = ptr[0];
                o.aval = rt_aval_make(ir->vars[v].dtype, 1, &nr);
                o.size = nr;
                o.data = dst;
                prim_params q = e->params;
                q.axes.n = 1;
                q.axes.v[0] = 1;
                rt_array *args[1] = {&a};
                prim_rules[e->prim].impl(job->ctx, e->prim, &q, 1, args, &o);
            } else if (fuse_is_leaf_map(e->prim)) {
                size_t es = esize(ir, v);
                if (e->n_in && p->c->kernel_of[in[0]] == kidx) {
                    /* per-row values: broadcast across their rows, or reshaped */
                    if (fo == FORM_ROW)
                        for (int64_t q = 0; q < nr; q++) fill_row(dst + (size_t)(q * C) * es, ptr[0] + (size_t)q * es, es, C);
                    else
                        memcpy(dst, ptr[0], (size_t)nr * es);
                } else {
                    gather_leaf(ir, e, &p->maps[p->map_at[ei]], &K->space, job->buf, dst, r * C, nr * C);
                }
            } else { /* elementwise over the rows, or over the per-row values */
                ew_operands ops;
                memset(&ops, 0, sizeof ops);
                for (int i = 0; i < e->n_in && i < 3; i++) {
                    ops.in[i] = ptr[i];
                    ops.scalar[i] = ir->vars[in[i]].rank == 0 && (fo == FORM_ROW || K->outer_rank > 0);
                }
                ops.out = dst;
                ops.in_dtype = ir->vars[in[prim_lower(e->prim)->dtype_operand]].dtype;
                ops.out_dtype = ir->vars[v].dtype;
                ops.param = e->params.count;
                ew_kernel(e->prim, ops.in_dtype)(&ops, 0, fo == FORM_ROW ? nr * C : nr);
            }
        }
    }
    if (scratch) interp_release_scratch(p, which);
}

/* ---- long rows ----
 * One row too long for scratch (fusion.c: fuse_is_long_rows): the row's
 * equations run tile by tile as in a LOOP kernel, each reduction folds its
 * tile into partial[tile] with the primitive's row fold, and once every
 * tile has run the partials are folded in tile order. Tiles start at
 * multiples of TILE whatever the threads' ranges, so the result has the
 * same bits for any thread count. Then the per-row (rank-0) equations run
 * once, in order. Generated C runs the same form with the same folds. */
typedef struct long_job {
    program *p;
    const kernel *K;
    char *const *buf;
    char **partial; /* per position in the kernel: a reduction's partials, else NULL */
    int64_t per_row; /* tiles in a row */
} long_job;

/* Equation j of a long-rows or COLS kernel, elementwise or a leaf over
 * the kernel's space, on the tile of len elements at t0. */
static void tile_eqn(program *p, const kernel *K, int j, char *const *buf, char *scratch, int64_t t0, int64_t len) {
    const ir_func *ir = p->c->ir;
    int kidx = (int)(K - p->c->kernels);
    const ir_eqn *e = &ir->eqns[K->eqns[j]];
    const int *in = ir_eqn_inputs(ir, e);
    int v = e->out;
    char *dst = p->slot[v] >= 0 ? scratch + (size_t)p->slot[v] * TILE * 8 : buf[v] + (size_t)t0 * esize(ir, v);
    if (fuse_is_leaf_map(e->prim)) {
        gather_leaf(ir, e, &p->maps[p->map_at[K->eqns[j]]], &K->space, buf, dst, t0, len);
        return;
    }
    ew_operands ops;
    memset(&ops, 0, sizeof ops);
    for (int i = 0; i < e->n_in && i < 3; i++) {
        int u = in[i];
        if (p->c->kernel_of[u] == kidx && p->slot[u] >= 0) {
            ops.in[i] = scratch + (size_t)p->slot[u] * TILE * 8;
        } else if (ir->vars[u].rank == 0 || !rt_aval_same_shape(&ir->vars[u], &K->space)) {
            ops.in[i] = buf[u]; /* a rank-0 buffer (fusion lets no own per-row value in) */
            ops.scalar[i] = true;
        } else {
            ops.in[i] = buf[u] + (size_t)t0 * esize(ir, u);
        }
    }
    ops.out = dst;
    ops.in_dtype = ir->vars[in[prim_lower(e->prim)->dtype_operand]].dtype;
    ops.out_dtype = ir->vars[v].dtype;
    ops.param = e->params.count;
    ew_kernel(e->prim, ops.in_dtype)(&ops, 0, len);
}

static void run_long_tiles(void *arg, int64_t t_begin, int64_t t_end) {
    long_job *job = arg;
    program *p = job->p;
    const ir_func *ir = p->c->ir;
    const kernel *K = job->K;
    int kidx = (int)(K - p->c->kernels);
    int64_t n = K->row_len;
    int which = 0;
    char *scratch = p->scratch_each ? interp_claim_scratch(p, &which) : NULL;
    for (int64_t t = t_begin; t < t_end; t++) { /* tile t % per_row of row t / per_row */
        int64_t r = t / job->per_row, in_row = (t % job->per_row) * TILE;
        int64_t t0 = r * n + in_row, len = n - in_row < TILE ? n - in_row : TILE;
        for (int j = 0; j < K->n_eqns; j++) {
            const ir_eqn *e = &ir->eqns[K->eqns[j]];
            const int *in = ir_eqn_inputs(ir, e);
            int v = e->out;
            if (job->partial[j]) { /* a reduction: this tile's partial */
                int u = in[0];
                const char *x = p->c->kernel_of[u] == kidx && p->slot[u] >= 0
                                    ? scratch + (size_t)p->slot[u] * TILE * 8
                                    : job->buf[u] + (size_t)t0 * esize(ir, u);
                prim_lower(e->prim)->row_fold(e->prim, ir->vars[u].dtype)(x, len,
                                                                         job->partial[j] + (size_t)t * esize(ir, v));
                continue;
            }
            if (fuse_row_form(K, &ir->vars[v]) != FORM_ROW) continue; /* per-row values: after the tiles */
            tile_eqn(p, K, j, job->buf, scratch, t0, len);
        }
    }
    if (scratch) interp_release_scratch(p, which);
}

static int run_long_rows(cj_ctx *ctx, program *p, const kernel *K, char *const *buf) {
    const ir_func *ir = p->c->ir;
    int kidx = (int)(K - p->c->kernels);
    int64_t rows = 1;
    for (int d = 0; d < K->outer_rank; d++) rows *= K->space.dims[d];
    if (rows == 0) return 0;
    int64_t per_row = (K->row_len + TILE - 1) / TILE, n_tiles = rows * per_row;
    size_t pbytes = sizeof(char *) * (size_t)K->n_eqns, each = (size_t)n_tiles * 8, cap = 0;
    int n_red = 0;
    for (int j = 0; j < K->n_eqns; j++) n_red += prim_lower(ir->eqns[K->eqns[j]].prim)->kind == LOWER_REDUCTION;
    char **partial = rt_calloc(ctx->mem, pbytes);
    char *store = partial ? rt_data_alloc(ctx->mem, each * (size_t)n_red, &cap) : NULL;
    if (!store) {
        if (partial) rt_free(ctx->mem, partial, pbytes);
        return core_oom(ctx, "jit: partial sums of a long reduction");
    }
    for (int j = 0, r = 0; j < K->n_eqns; j++)
        if (prim_lower(ir->eqns[K->eqns[j]].prim)->kind == LOWER_REDUCTION) partial[j] = store + each * (size_t)r++;
    /* generated tiles write each reduction's partials where buf has its
     * result: a copy of buf points there */
    size_t nb = sizeof(char *) * (size_t)(ir->n_vars + 1);
    char **tbuf = p->native_installed && p->native[kidx] ? rt_alloc(ctx->mem, nb) : NULL;
    if (tbuf) {
        memcpy(tbuf, buf, sizeof(char *) * (size_t)ir->n_vars);
        for (int j = 0; j < K->n_eqns; j++)
            if (partial[j]) tbuf[ir->eqns[K->eqns[j]].out] = partial[j];
        for (int64_t r = 0; r < rows; r++) /* a call per row: its tiles start at the row */
            native_run_loop_range(p, kidx, tbuf, r * K->row_len, (r + 1) * K->row_len);
        rt_free(ctx->mem, tbuf, nb);
    } else {
        long_job job = {p, K, buf, partial, per_row};
        int64_t grain = n_tiles;
        if (rows * K->row_len >= RT_PARALLEL_MIN_ELEMS) {
            grain = n_tiles / ((int64_t)p->n_scratch * 4);
            if (grain < 4) grain = 4;
        }
        rt_parallel_for(n_tiles, grain, run_long_tiles, &job);
    }
    /* the per-row values: each reduction's partials folded in tile order,
     * then the equations on them, once */
    int which = 0;
    char *scratch = p->scratch_each ? interp_claim_scratch(p, &which) : NULL;
    for (int j = 0; j < K->n_eqns; j++) {
        const ir_eqn *e = &ir->eqns[K->eqns[j]];
        const int *in = ir_eqn_inputs(ir, e);
        int v = e->out;
        if (!partial[j] && fuse_row_form(K, &ir->vars[v]) == FORM_ROW) continue;
        char *dst = p->slot[v] >= 0 ? scratch + (size_t)p->slot[v] * TILE * 8 : buf[v];
        size_t es = esize(ir, v);
        if (partial[j]) {
            prim_row_fold_fn fold = prim_lower(e->prim)->row_fold(e->prim, ir->vars[in[0]].dtype);
            for (int64_t r = 0; r < rows; r++)
                fold(partial[j] + (size_t)(r * per_row) * es, per_row, dst + (size_t)r * es);
            continue;
        }
        const char *src[3] = {0};
        for (int i = 0; i < e->n_in && i < 3; i++)
            src[i] = p->c->kernel_of[in[i]] == kidx && p->slot[in[i]] >= 0
                         ? scratch + (size_t)p->slot[in[i]] * TILE * 8
                         : buf[in[i]];
        if (fuse_is_leaf_map(e->prim)) { /* per-row values reshaped */
            memcpy(dst, src[0], (size_t)rows * es);
            continue;
        }
        ew_operands ops;
        memset(&ops, 0, sizeof ops);
        for (int i = 0; i < e->n_in && i < 3; i++) {
            ops.in[i] = src[i];
            ops.scalar[i] = ir->vars[in[i]].rank == 0 && K->outer_rank > 0; /* the same for every row */
        }
        ops.out = dst;
        ops.in_dtype = ir->vars[in[prim_lower(e->prim)->dtype_operand]].dtype;
        ops.out_dtype = ir->vars[v].dtype;
        ops.param = e->params.count;
        ew_kernel(e->prim, ops.in_dtype)(&ops, 0, rows);
    }
    if (scratch) interp_release_scratch(p, which);
    rt_data_free(ctx->mem, store, cap);
    rt_free(ctx->mem, partial, pbytes);
    return 0;
}

/* ---- COLS kernels ----
 * Reductions over leading axes (fusion.c: fuse_is_col_reduce). The space
 * is R rows of C columns; a unit is a block of the column fold's `block`
 * rows by a tile of a row's columns. A unit fills its reductions'
 * accumulator row for its block with the identity, then runs its rows one
 * tile at a time as a LOOP kernel would, combining each reduction's
 * operand tile into the accumulators (acc[i] ∘= x[i]). Once every unit has
 * run, each reduction's result is the identity combined with the blocks'
 * rows in block order (a single block: its row is the result), and the
 * per-column equations run once over the columns. Units depend on the
 * shape alone, so the bits are the same for any thread count — and the
 * eager kernel's on one thread, which sums the same blocks. Generated C
 * runs the units (cjk_kernel_<k> over unit indices) with the same
 * combining expression. */
typedef struct cols_job {
    program *p;
    const kernel *K;
    char *const *buf;
    char **acc;          /* per position: a reduction's accumulator rows (n_blocks × C), else NULL */
    prim_col_fold *fold; /* per position: a reduction's column fold */
    int64_t R, C, block, n_chunks;
} cols_job;

static void run_col_units(void *arg, int64_t u_begin, int64_t u_end) {
    cols_job *job = arg;
    program *p = job->p;
    const ir_func *ir = p->c->ir;
    const kernel *K = job->K;
    int kidx = (int)(K - p->c->kernels);
    int which = 0;
    char *scratch = p->scratch_each ? interp_claim_scratch(p, &which) : NULL;
    for (int64_t u = u_begin; u < u_end; u++) {
        int64_t b = u / job->n_chunks, c0 = (u % job->n_chunks) * TILE;
        int64_t len = job->C - c0 < TILE ? job->C - c0 : TILE;
        int64_t r1 = (b + 1) * job->block < job->R ? (b + 1) * job->block : job->R;
        for (int j = 0; j < K->n_eqns; j++)
            if (job->acc[j])
                job->fold[j].fill(job->acc[j] + (size_t)(b * job->C + c0) * esize(ir, ir->eqns[K->eqns[j]].out), len);
        for (int64_t r = b * job->block; r < r1; r++) {
            int64_t t0 = r * job->C + c0;
            for (int j = 0; j < K->n_eqns; j++) {
                const ir_eqn *e = &ir->eqns[K->eqns[j]];
                if (job->acc[j]) {
                    int x = ir_eqn_inputs(ir, e)[0];
                    const char *xt = p->c->kernel_of[x] == kidx && p->slot[x] >= 0
                                         ? scratch + (size_t)p->slot[x] * TILE * 8
                                         : job->buf[x] + (size_t)t0 * esize(ir, x);
                    job->fold[j].rows(job->acc[j] + (size_t)(b * job->C + c0) * esize(ir, e->out), xt, len);
                } else if (fuse_col_form(K, &ir->vars[e->out]) == FORM_ROW) { /* per column: after the units */
                    tile_eqn(p, K, j, job->buf, scratch, t0, len);
                }
            }
        }
    }
    if (scratch) interp_release_scratch(p, which);
}

static int run_cols(cj_ctx *ctx, program *p, const kernel *K, char *const *buf) {
    const compiled *c = p->c;
    const ir_func *ir = c->ir;
    int kidx = (int)(K - c->kernels);
    int64_t R = 1, C = K->row_len;
    for (int d = 0; d < K->outer_rank; d++) R *= K->space.dims[d];
    if (R * C == 0) return 0;
    int n = K->n_eqns;
    size_t abytes = sizeof(char *) * (size_t)n, fbytes = sizeof(prim_col_fold) * (size_t)n;
    char **acc = rt_calloc(ctx->mem, abytes), **col = rt_calloc(ctx->mem, abytes);
    prim_col_fold *fold = rt_calloc(ctx->mem, fbytes);
    int64_t block = 0;
    /* per position: the accumulator rows of a reduction (the result itself
     * when there is one block), and where a per-column value lives (its
     * buffer, or call scratch when nothing outside reads it) */
    size_t need = 0;
    for (int j = 0; j < n && acc && col && fold; j++) {
        const ir_eqn *e = &ir->eqns[K->eqns[j]];
        size_t cb = ((size_t)C * esize(ir, e->out) + 63) / 64 * 64;
        if (prim_lower(e->prim)->kind == LOWER_REDUCTION) {
            prim_lower(e->prim)->col_fold(e->prim, ir->vars[ir_eqn_inputs(ir, e)[0]].dtype, &fold[j]);
            block = fold[j].block;
        }
        if (fuse_col_form(K, &ir->vars[e->out]) != FORM_SCALAR) continue;
        if (c->home[e->out] == HOME_NONE) need += cb;
        if (prim_lower(e->prim)->kind == LOWER_REDUCTION && R > fold[j].block)
            need += ((size_t)C * esize(ir, e->out) * (size_t)((R + fold[j].block - 1) / fold[j].block) + 63) / 64 * 64;
    }
    size_t cap = 0;
    char *store = acc && col && fold && need ? rt_data_alloc(ctx->mem, need, &cap) : NULL;
    if (!acc || !col || !fold || (need && !store)) {
        if (acc) rt_free(ctx->mem, acc, abytes);
        if (col) rt_free(ctx->mem, col, abytes);
        if (fold) rt_free(ctx->mem, fold, fbytes);
        return core_oom(ctx, "jit: the column sums of a reduction over leading axes");
    }
    int64_t n_blocks = (R + block - 1) / block, n_chunks = (C + TILE - 1) / TILE;
    size_t at = 0;
    for (int j = 0; j < n; j++) {
        const ir_eqn *e = &ir->eqns[K->eqns[j]];
        if (fuse_col_form(K, &ir->vars[e->out]) != FORM_SCALAR) continue;
        size_t cb = ((size_t)C * esize(ir, e->out) + 63) / 64 * 64;
        if (c->home[e->out] == HOME_NONE) col[j] = store + at, at += cb;
        else col[j] = buf[e->out];
        if (prim_lower(e->prim)->kind != LOWER_REDUCTION) continue;
        if (n_blocks > 1) acc[j] = store + at, at += ((size_t)C * esize(ir, e->out) * (size_t)n_blocks + 63) / 64 * 64;
        else acc[j] = col[j];
    }
    /* generated units write each reduction's accumulators where buf has
     * its result: a copy of buf points there */
    size_t nb = sizeof(char *) * (size_t)(ir->n_vars + 1);
    char **tbuf = p->native_installed && p->native[kidx] ? rt_alloc(ctx->mem, nb) : NULL;
    int64_t n_units = n_blocks * n_chunks;
    if (tbuf) {
        memcpy(tbuf, buf, sizeof(char *) * (size_t)ir->n_vars);
        for (int j = 0; j < n; j++)
            if (acc[j]) tbuf[ir->eqns[K->eqns[j]].out] = acc[j];
        native_run_units(p, kidx, tbuf, n_units, R * C >= RT_PARALLEL_MIN_ELEMS);
        rt_free(ctx->mem, tbuf, nb);
    } else {
        cols_job job = {p, K, buf, acc, fold, R, C, block, n_chunks};
        rt_parallel_for(n_units, R * C >= RT_PARALLEL_MIN_ELEMS ? 1 : n_units, run_col_units, &job);
    }
    /* the per-column values: each reduction's blocks folded in order, then
     * the equations on them, once */
    for (int j = 0; j < n; j++) {
        const ir_eqn *e = &ir->eqns[K->eqns[j]];
        const int *in = ir_eqn_inputs(ir, e);
        if (!col[j]) continue;
        if (acc[j]) {
            if (acc[j] == col[j]) continue;
            size_t row = (size_t)C * esize(ir, e->out);
            fold[j].fill(col[j], C);
            for (int64_t b = 0; b < n_blocks; b++) fold[j].rows(col[j], acc[j] + row * (size_t)b, C);
            continue;
        }
        ew_operands ops;
        memset(&ops, 0, sizeof ops);
        for (int i = 0; i < e->n_in && i < 3; i++) {
            int u = in[i], q = -1;
            for (int m = 0; m < n && q < 0; m++)
                if (c->kernel_of[u] == kidx && ir->eqns[K->eqns[m]].out == u) q = m;
            ops.in[i] = q >= 0 ? col[q] : buf[u];
            ops.scalar[i] = ir->vars[u].rank == 0;
        }
        ops.out = col[j];
        ops.in_dtype = ir->vars[in[prim_lower(e->prim)->dtype_operand]].dtype;
        ops.out_dtype = ir->vars[e->out].dtype;
        ops.param = e->params.count;
        ew_kernel(e->prim, ops.in_dtype)(&ops, 0, C);
    }
    if (store) rt_data_free(ctx->mem, store, cap);
    rt_free(ctx->mem, acc, abytes);
    rt_free(ctx->mem, col, abytes);
    rt_free(ctx->mem, fold, fbytes);
    return 0;
}

static int run_rows(cj_ctx *ctx, program *p, const kernel *K, char *const *buf) {
    if (fuse_is_long_rows(K)) return run_long_rows(ctx, p, K, buf);
    int64_t rows = 1;
    for (int d = 0; d < K->outer_rank; d++) rows *= K->space.dims[d];
    if (rows == 0) return 0;
    rows_job job = {p, K, buf, ctx};
    int64_t grain = rows;
    if (rows * K->row_len >= RT_PARALLEL_MIN_ELEMS) {
        grain = rows / ((int64_t)p->n_scratch * 4);
        if (grain < 1) grain = 1;
    }
    rt_parallel_for(rows, grain, run_rows_range, &job);
    return 0;
}

/* ---- SINGLE kernels ---- */
/* A borrowed view of a buffer as an array (nothing may free it). */
static void view(rt_array *hdr, cj_ctx *ctx, const rt_aval *aval, char *data) {
    memset(hdr, 0, sizeof *hdr);
    hdr->refcount = 2;
    hdr->aval = *aval;
    hdr->size = rt_aval_size(aval);
    hdr->data = data;
    hdr->mem = ctx->mem;
}

/* The kernel's one equation on whole buffers, every result written in
 * place: a control-flow construct runs once through cf_run with its bodies
 * on the program's own backend; other primitives through their eager
 * kernel. */
static int run_single(cj_ctx *ctx, const program *p, int k, char *const *buf) {
    cj_backend mode = p->mode;
    const ir_func *ir = p->c->ir;
    const kernel *K = &p->c->kernels[k];
    const ir_eqn *e = &ir->eqns[K->eqns[0]];
    const int *in = ir_eqn_inputs(ir, e);
    /* array headers over the buffers, one per operand and result: small
     * tables here, the allocator's for a wider equation (a construct may
     * have hundreds of each) */
    enum { SMALL = PRIM_SMALL_OPERANDS + PRIM_SMALL_RESULTS };
    rt_array hdr_s[SMALL], *ptr_s[SMALL];
    int n = e->n_in + e->n_out;
    const char *what = prim_names[e->prim];
    rt_array *hdr = core_table(ctx, hdr_s, SMALL, n, sizeof *hdr, what);
    rt_array **args = core_table(ctx, ptr_s, SMALL, n, sizeof *args, what), **res = args ? args + e->n_in : NULL;
    int status = -1;
    if (hdr && args) {
        for (int i = 0; i < e->n_in; i++) {
            view(&hdr[i], ctx, &ir->vars[in[i]], buf[in[i]]);
            args[i] = &hdr[i];
        }
        for (int j = 0; j < e->n_out; j++) {
            view(&hdr[e->n_in + j], ctx, &ir->vars[e->out + j], buf[e->out + j]);
            res[j] = &hdr[e->n_in + j];
        }
        /* the working memory the plan reserved (plan.c), for this kernel only */
        void *ws_was = ctx->workspace;
        size_t ws_bytes_was = ctx->workspace_bytes;
        size_t ws = k < p->c->ws_kernels ? p->c->ws_bytes[k] : 0;
        ctx->workspace = ws ? (char *)p->arena + p->c->ws_offset[k] : NULL;
        ctx->workspace_bytes = ws;
        if (prim_lower(e->prim)->kind == LOWER_CONSTRUCT) status = cf_run(ctx, cf_of(&e->params), mode, args, res);
        else if (prim_rules[e->prim].multiple_results)
            status = prim_rules[e->prim].impl_multi(ctx, e->prim, &e->params, e->n_in, args, e->n_out, res);
        else
            status = prim_rules[e->prim].impl(ctx, e->prim, &e->params, e->n_in, args, res[0]);
        ctx->workspace = ws_was, ctx->workspace_bytes = ws_bytes_was;
    }
    core_table_free(ctx, hdr, hdr_s, n, sizeof *hdr);
    core_table_free(ctx, args, ptr_s, n, sizeof *args);
    return status;
}

/* May output v be written into its donor input's array on this call? */
static bool donation_usable(const ir_func *ir, rt_array *const *in, int i) {
    if (in[i]->refcount != 1) return false; /* someone else holds it */
    if (in[i]->borrowed) return false;      /* the caller's memory: read-only */
    for (int j = 0; j < ir->n_in; j++)
        if (j != i && in[j] == in[i]) return false; /* passed twice */
    return true;
}

int interp_program_ready(cj_ctx *ctx, program *p) {
    if (p->c->arena_bytes && !p->arena) {
        p->arena = rt_data_alloc(ctx->mem, p->c->arena_bytes, &p->arena_cap);
        if (!p->arena) return core_oom(ctx, "jit: the program's arena");
    }
    if (p->scratch_each && !p->scratch) {
        p->scratch = rt_data_alloc(ctx->mem, p->scratch_each * (size_t)p->n_scratch, &p->scratch_cap);
        if (!p->scratch) return core_oom(ctx, "jit: tile scratch");
    }
    return 0;
}

int interp_run_kernel(cj_ctx *ctx, program *p, int k, char **buf) {
    const kernel *K = &p->c->kernels[k];
    int status = 0;
    if (K->kind == KERNEL_LOOP) {
        if (!native_run_loop(p, k, buf)) interp_run_loop(p, K, buf);
    } else if (K->kind == KERNEL_ROWS) {
        if (!native_run_rows(p, k, buf)) status = run_rows(ctx, p, K, buf);
    } else if (K->kind == KERNEL_COLS) {
        status = run_cols(ctx, p, K, buf);
    } else if (K->kind == KERNEL_DOT_EPILOGUE) {
        status = dot_epilogue_run(ctx, p, k, buf);
    } else if (!native_run_construct(ctx, p, k, buf, &status)) { /* a construct's loop in generated C */
        status = run_single(ctx, p, k, buf);
    }
    return status;
}

/* The caller's buffer output v is written into directly (cj_call_into),
 * as an index into `into`, or -1: v must be a kernel's fresh output, the
 * buffer the first one given for it, and, when it is aligned to less than
 * the plan's 64 bytes, v must host no temporaries (their dtypes may need
 * more than v's element alignment). */
static int into_index(const compiled *c, void *const *into, int v) {
    const ir_func *ir = c->ir;
    if (!into || c->home[v] != HOME_OUTPUT) return -1;
    int i = 0;
    while (i < ir->n_out && (ir->out[i] != v || !into[i])) i++;
    if (i == ir->n_out) return -1;
    if (((uintptr_t)into[i] & 63) != 0)
        for (int w = 0; w < ir->n_vars; w++)
            if (c->home[w] == HOME_ARENA && plan_host(c, w) == v) return -1;
    return i;
}

int program_run(cj_ctx *ctx, program *p, rt_array *const *in, rt_array **out, uint8_t *used) {
    return program_run_into(ctx, p, in, out, used, NULL);
}

int program_run_into(cj_ctx *ctx, program *p, rt_array *const *in, rt_array **out, uint8_t *used,
                     void *const *into) {
    if (p->native_lazy) { /* a construct's sub-program run by cf_run after all: build its own C now */
        p->native_lazy = 0;
        native_start(ctx, p);
        if (ctx->err) return -1;
    }
    native_poll(p);
    const compiled *c = p->c;
    const ir_func *ir = c->ir;
    if (interp_program_ready(ctx, p) != 0) return -1;
    size_t nv = (size_t)ir->n_vars + 1;
    /* the tables are kept in the program, so a run in steady state makes
     * no allocator call; a nested run of the same program gets its own */
    int own_tables = p->running;
    if (!own_tables && !p->run_buf) {
        p->run_buf = rt_calloc(ctx->mem, sizeof(char *) * nv);
        p->run_arrays = rt_calloc(ctx->mem, sizeof(rt_array *) * nv);
        if (!p->run_buf || !p->run_arrays) {
            if (p->run_buf) rt_free(ctx->mem, p->run_buf, sizeof(char *) * nv);
            if (p->run_arrays) rt_free(ctx->mem, p->run_arrays, sizeof(rt_array *) * nv);
            p->run_buf = NULL, p->run_arrays = NULL;
            return core_oom(ctx, "jit: running a program");
        }
    }
    char **buf = own_tables ? rt_calloc(ctx->mem, sizeof(char *) * nv) : p->run_buf;
    rt_array **arrays = own_tables ? rt_calloc(ctx->mem, sizeof(rt_array *) * nv) : p->run_arrays;
    if (!own_tables) {
        memset(buf, 0, sizeof(char *) * nv);
        memset(arrays, 0, sizeof(rt_array *) * nv);
        p->running = 1;
    }
    int status = 0;
    if (!buf || !arrays) {
        status = core_oom(ctx, "jit: running a program");
        goto done;
    }
    /* decide donations before this function takes its own references */
    bool can_donate[64] = {false};
    for (int i = 0; i < ir->n_in && i < 64 && used; i++) can_donate[i] = donation_usable(ir, in, i);
    for (int i = 0; i < ir->n_in; i++) arrays[ir->in[i]] = rt_array_ref(in[i]);
    for (int i = 0; i < ir->n_consts; i++) arrays[ir->consts[i].var] = rt_array_ref(ir->consts[i].val);
    for (int v = 0; v < ir->n_vars && status == 0; v++) {
        int d = c->donor ? c->donor[v] : -1, oi = into_index(c, into, v);
        if (oi >= 0) { /* the final kernel writes the caller's buffer */
            arrays[v] = rt_array_borrow(ctx->mem, &ir->vars[v], into[oi], NULL, NULL);
            if (!arrays[v]) status = core_oom(ctx, "jit: program outputs");
        } else if (c->home[v] == HOME_OUTPUT && d >= 0 && d < 64 && can_donate[d]) {
            arrays[v] = rt_array_ref(in[d]);
            used[d] = 1;
        } else if (c->home[v] == HOME_OUTPUT) {
            arrays[v] = rt_array_new(ctx->mem, &ir->vars[v]);
            if (!arrays[v]) status = core_oom(ctx, "jit: program outputs");
        }
        if (arrays[v]) buf[v] = arrays[v]->data;
        else if (c->home[v] == HOME_ARENA && plan_host(c, v) < 0) buf[v] = (char *)p->arena + c->offset[v];
    }
    /* temporaries planned inside an output's buffer, before it is written
     * (the output's array, fresh or a donated input's, exists by now) */
    for (int v = 0; v < ir->n_vars && status == 0; v++)
        if (c->home[v] == HOME_ARENA && plan_host(c, v) >= 0) buf[v] = buf[plan_host(c, v)] + c->offset[v];
    for (int k = 0; k < c->n_kernels && status == 0; k++) status = interp_run_kernel(ctx, p, k, buf);
    if (status == 0)
        for (int i = 0; i < ir->n_out; i++) out[i] = rt_array_ref(arrays[ir->out[i]]);
done:
    if (arrays)
        for (size_t v = 0; v < nv; v++) rt_array_unref(arrays[v]);
    if (own_tables) {
        if (arrays) rt_free(ctx->mem, arrays, sizeof(rt_array *) * nv);
        if (buf) rt_free(ctx->mem, buf, sizeof(char *) * nv);
    } else {
        p->running = 0;
    }
    return status;
}
