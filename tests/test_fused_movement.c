/* test_fused_movement.c — data-movement primitives in fused position: each
 * leaf (strided slice, rev, broadcast, transpose, reshape, concatenate
 * along each axis, pad with interior and negative padding, iota,
 * dynamic_slice with clamped starts) read inside a LOOP kernel, written
 * out (materialised), and summed over rows inside a ROWS kernel, in f32,
 * f64, i32 and bool, at sizes that take generated code's straight-line
 * form (at most 16 elements) and its tile loop (several tiles). jit on
 * the interpreter and on generated C must equal eager bit for bit (data
 * movement and the operations around it are exact), and the programs
 * must compile into fused kernels only: concatenate, pad and
 * dynamic_slice are no SINGLE kernels any more. The index maps
 * themselves (src/prim/index_map.c) are checked against a plain walk. */
#include <stdlib.h>
#include <unistd.h>

#include "backend/program_impl.h"
#include "harness.h"
#include "test_util.h"

static char cache_dir[128];

static void use_private_cache(void) {
    if (!cache_dir[0]) snprintf(cache_dir, sizeof cache_dir, "/tmp/cjax_fused_movement_test_%d", (int)getpid());
    cc_build_options o = {NULL, NULL, cache_dir, 0};
    native_set_build_options_for_testing(&o);
}

/* ---- the leaves ---- */

/* Each case reads its inputs (data of the program's dtype, and for
 * dynamic_slice i32 starts) and returns the leaf. `big` picks shapes of
 * several tiles, else of at most 16 elements. */
typedef struct mv_case {
    const char *name;
    int n_data, n_index;       /* inputs */
    int rank;                  /* of each data input */
    int64_t small[3][3], big[3][3]; /* data input shapes */
    cj_val (*leaf)(cj_ctx *ctx, const cj_val *in, cj_dtype dt, bool big);
} mv_case;

static cj_val leaf_slice(cj_ctx *ctx, const cj_val *in, cj_dtype dt, bool big) {
    (void)ctx, (void)dt;
    int64_t d[3];
    cj_val_shape(in[0], d);
    int64_t lo[3] = {1, 0, 1}, hi[3] = {d[0], d[1], d[2]}, st[3] = {1, big ? 3 : 2, 2};
    return cj_slice(in[0], lo, hi, st);
}

static cj_val leaf_rev(cj_ctx *ctx, const cj_val *in, cj_dtype dt, bool big) {
    (void)ctx, (void)dt, (void)big;
    int64_t ax[2] = {0, 2};
    return cj_rev(in[0], 2, ax);
}

/* An exact elementwise use of a leaf: x + x (not for bool). */
static cj_val touch(cj_val x) { return cj_val_dtype(x) == CJ_BOOL ? cj_not(x) : cj_add(x, x); }

static cj_val leaf_rev_slice(cj_ctx *ctx, const cj_val *in, cj_dtype dt, bool big) {
    /* a negative stride: a slice of a reversed value, read backwards */
    int64_t ax[1] = {1};
    return leaf_slice(ctx, (cj_val[]){cj_rev(touch(in[0]), 1, ax)}, dt, big);
}

static cj_val leaf_broadcast(cj_ctx *ctx, const cj_val *in, cj_dtype dt, bool big) {
    (void)ctx, (void)dt;
    int64_t d[3];
    cj_val_shape(in[0], d); /* [a, 1, b] → [a, n, b] */
    int64_t shape[3] = {d[0], big ? 37 : 2, d[2]}, dims[3] = {0, 1, 2};
    return cj_broadcast_in_dim(in[0], 3, shape, dims);
}

static cj_val leaf_broadcast_scalar(cj_ctx *ctx, const cj_val *in, cj_dtype dt, bool big) {
    (void)ctx, (void)dt;
    int64_t first[3] = {0, 0, 0}, one[3] = {1, 1, 1};
    cj_val s = cj_reshape(cj_slice(in[0], first, one, NULL), 0, NULL);
    int64_t shape[2] = {big ? 50 : 3, big ? 61 : 5};
    return cj_broadcast_in_dim(s, 2, shape, NULL);
}

static cj_val leaf_transpose(cj_ctx *ctx, const cj_val *in, cj_dtype dt, bool big) {
    (void)ctx, (void)dt, (void)big;
    int64_t perm[3] = {2, 0, 1};
    return cj_transpose(in[0], perm);
}

static cj_val leaf_reshape(cj_ctx *ctx, const cj_val *in, cj_dtype dt, bool big) {
    (void)ctx, (void)dt, (void)big;
    int64_t d[3];
    cj_val_shape(in[0], d);
    int64_t shape[2] = {d[2], d[0] * d[1]};
    return cj_reshape(in[0], 2, shape);
}

static cj_val concat_on(const cj_val *in, int64_t axis) { return cj_concatenate(3, in, axis); }
static cj_val leaf_concat0(cj_ctx *ctx, const cj_val *in, cj_dtype dt, bool big) {
    (void)ctx, (void)dt, (void)big;
    return concat_on(in, 0);
}
static cj_val leaf_concat1(cj_ctx *ctx, const cj_val *in, cj_dtype dt, bool big) {
    (void)ctx, (void)dt, (void)big;
    return concat_on(in, 1);
}
static cj_val leaf_concat2(cj_ctx *ctx, const cj_val *in, cj_dtype dt, bool big) {
    (void)ctx, (void)dt, (void)big;
    return concat_on(in, 2);
}

static cj_val leaf_pad(cj_ctx *ctx, const cj_val *in, cj_dtype dt, bool big) {
    (void)big;
    int64_t lo[3] = {2, -1, 1}, hi[3] = {1, 0, -2}, interior[3] = {1, 0, 2};
    return cj_pad(in[0], cj_scalar_typed(ctx, dt == CJ_BOOL ? 1 : -7, dt), lo, hi, interior);
}

/* a size-1 axis that lands between the operand's elements: all padding */
static cj_val leaf_pad_between(cj_ctx *ctx, const cj_val *in, cj_dtype dt, bool big) {
    (void)big;
    int64_t lo[3] = {-1, 0, 1}, hi[3] = {-1, 0, 0}, interior[3] = {1, 0, 0};
    return cj_pad(in[0], cj_scalar_typed(ctx, dt == CJ_BOOL ? 1 : 5, dt), lo, hi, interior);
}

static cj_val leaf_iota(cj_ctx *ctx, const cj_val *in, cj_dtype dt, bool big) {
    (void)in;
    int64_t shape[3] = {big ? 12 : 2, big ? 17 : 3, big ? 19 : 2};
    return cj_iota(ctx, dt == CJ_BOOL ? CJ_I32 : dt, 3, shape, 1);
}

static cj_val leaf_dynamic_slice(cj_ctx *ctx, const cj_val *in, cj_dtype dt, bool big) {
    (void)ctx, (void)dt;
    int64_t sizes[3] = {2, big ? 30 : 2, big ? 40 : 3};
    return cj_dynamic_slice(in[0], in + 1, sizes);
}

static const mv_case cases[] = {
    {"slice", 1, 0, 3, {{3, 3, 5}}, {{4, 90, 41}}, leaf_slice},
    {"rev", 1, 0, 3, {{2, 3, 2}}, {{5, 33, 29}}, leaf_rev},
    {"rev_slice", 1, 0, 3, {{2, 2, 3}}, {{4, 90, 41}}, leaf_rev_slice},
    {"broadcast", 1, 0, 3, {{2, 1, 3}}, {{20, 1, 33}}, leaf_broadcast},
    {"broadcast_scalar", 1, 0, 3, {{1, 2, 2}}, {{2, 2, 2}}, leaf_broadcast_scalar},
    {"transpose", 1, 0, 3, {{2, 3, 2}}, {{6, 50, 17}}, leaf_transpose},
    {"reshape", 1, 0, 3, {{2, 3, 2}}, {{7, 30, 11}}, leaf_reshape},
    {"concatenate0", 3, 0, 3, {{1, 2, 2}, {2, 2, 2}, {1, 2, 2}}, {{5, 20, 30}, {1, 20, 30}, {3, 20, 30}}, leaf_concat0},
    {"concatenate1", 3, 0, 3, {{2, 1, 2}, {2, 2, 2}, {2, 1, 2}}, {{5, 7, 30}, {5, 20, 30}, {5, 1, 30}}, leaf_concat1},
    {"concatenate2", 3, 0, 3, {{2, 2, 1}, {2, 2, 1}, {2, 2, 2}}, {{5, 20, 9}, {5, 20, 30}, {5, 20, 2}}, leaf_concat2},
    {"pad", 1, 0, 3, {{1, 2, 2}}, {{6, 30, 20}}, leaf_pad},
    {"pad_between", 1, 0, 3, {{2, 3, 2}}, {{2, 40, 30}}, leaf_pad_between},
    {"iota", 0, 0, 3, {{0}}, {{0}}, leaf_iota},
    {"dynamic_slice", 1, 3, 3, {{3, 4, 5}}, {{5, 70, 90}}, leaf_dynamic_slice},
};
enum { N_CASES = sizeof cases / sizeof cases[0], OUTS = 3 };

/* Start indices of dynamic_slice: below zero, past the end (both clamped)
 * and inside. */
static const int starts[3] = {-4, 1000, 1};

typedef struct mv_prog {
    cj_dtype dt;
    bool big;
} mv_prog;

/* Per case: the leaf used elementwise in a loop, the leaf itself (an
 * output: materialised), and (numeric) the rows of the used leaf summed
 * in a ROWS kernel. */
static void f_cases(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    const mv_prog *p = u;
    for (int c = 0; c < N_CASES; c++) {
        cj_val leaf = cases[c].leaf(ctx, in, p->dt, p->big);
        out[0] = touch(leaf);
        out[1] = leaf;
        int64_t last = -1;
        out[2] = cj_val_dtype(leaf) == CJ_BOOL ? cj_not(leaf) : cj_sum(cj_mul(leaf, leaf), 1, &last, 0);
        in += cases[c].n_data + cases[c].n_index;
        out += OUTS;
    }
}

static int n_inputs(void) {
    int n = 0;
    for (int c = 0; c < N_CASES; c++) n += cases[c].n_data + cases[c].n_index;
    return n;
}

static cj_val random_input(cj_ctx *ctx, cj_dtype dt, int rank, const int64_t *dims, uint64_t *rng) {
    int64_t size = 1;
    for (int d = 0; d < rank; d++) size *= dims[d];
    double *v = malloc(sizeof(double) * (size_t)(size ? size : 1));
    for (int64_t i = 0; i < size; i++) v[i] = dt == CJ_BOOL ? (th_rand_uniform(rng, 0, 1) < 0.5) : (double)(int)th_rand_uniform(rng, -50, 50) / (dt == CJ_I32 ? 1 : 4);
    cj_val x = cj_astype(cj_array(ctx, CJ_F64, rank, dims, v), dt);
    free(v);
    return x;
}

static void make_inputs(cj_ctx *ctx, const mv_prog *p, cj_val *in) {
    uint64_t rng = 42;
    int at = 0;
    for (int c = 0; c < N_CASES; c++) {
        for (int i = 0; i < cases[c].n_data; i++)
            in[at++] = random_input(ctx, p->dt, cases[c].rank, p->big ? cases[c].big[i] : cases[c].small[i], &rng);
        for (int i = 0; i < cases[c].n_index; i++) in[at++] = cj_scalar_typed(ctx, starts[i], CJ_I32);
    }
}

/* The outputs as bytes, with their sizes. */
static bool outputs_equal(const cj_val *a, const cj_val *b, int n, const char *what, const mv_prog *p) {
    for (int o = 0; o < n; o++) {
        size_t bytes = (size_t)cj_val_size(a[o]) * rt_dtypes[cj_val_dtype(a[o])].size;
        if (cj_val_size(b[o]) != cj_val_size(a[o]) || cj_val_dtype(b[o]) != cj_val_dtype(a[o])) {
            th_fail(__FILE__, __LINE__, "%s: %s output %d has another type", what, cases[o / OUTS].name, o % OUTS);
            return false;
        }
        unsigned char *x = malloc(bytes + 1), *y = malloc(bytes + 1);
        cj_read(a[o], x, bytes);
        cj_read(b[o], y, bytes);
        size_t es = rt_dtypes[cj_val_dtype(a[o])].size, at = 0;
        while (at < bytes && !memcmp(x + at, y + at, es)) at += es;
        double want = 0, got = 0;
        if (at < bytes) {
            want = rt_get_f64(cj_val_dtype(a[o]), x, (int64_t)(at / es));
            got = rt_get_f64(cj_val_dtype(a[o]), y, (int64_t)(at / es));
        }
        free(x);
        free(y);
        if (at < bytes) {
            th_fail(__FILE__, __LINE__, "%s %s %s: %s output %d element %zu is %g, eager %g", rt_dtypes[p->dt].name,
                    p->big ? "big" : "small", what, cases[o / OUTS].name, o % OUTS, at / es, got, want);
            return false;
        }
    }
    return true;
}

/* Does a SINGLE kernel of this fusion dump run data movement? */
static bool single_movement(const char *text) {
    static const char *const moves[] = {"= slice ", "= rev ", "= broadcast_in_dim ", "= transpose ", "= reshape ",
                                        "= concatenate ", "= pad ", "= iota", "= dynamic_slice "};
    bool in_single = false;
    for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        char l[512];
        snprintf(l, sizeof l, "%.*s", (int)(n < sizeof l ? n : sizeof l - 1), line);
        if (!strncmp(l, "  kernel ", 9)) in_single = strstr(l, " single ") != NULL;
        for (size_t i = 0; in_single && i < sizeof moves / sizeof moves[0]; i++)
            if (strstr(l, moves[i])) return true;
    }
    return false;
}

static void check_program(cj_dtype dt, bool big) {
    use_private_cache();
    cj_ctx *ctx = cj_ctx_new(NULL);
    mv_prog p = {dt, big};
    int n_in = n_inputs(), n_out = N_CASES * OUTS;
    cj_val *in = calloc((size_t)n_in, sizeof *in), *ye = calloc((size_t)n_out, sizeof *ye),
           *yj = calloc((size_t)n_out, sizeof *yj);
    make_inputs(ctx, &p, in);
    cj_func *f = cj_func_new(ctx, "movement", f_cases, n_in, n_out, &p);
    CHECK(cj_call(f, in, ye) == CJ_OK);
    cj_backend backends[2] = {CJ_BACKEND_INTERP, CJ_BACKEND_CC};
    for (int b = 0; b < 2 && !th_failed_now(); b++) {
        cj_jit_opts o = {0, NULL, 0, NULL, backends[b]};
        cj_func *j = cj_jit(f, &o);
        CHECK_MSG(cj_call(j, in, yj) == CJ_OK, "%s", cj_error_message(ctx));
        if (!outputs_equal(ye, yj, n_out, b ? "cc" : "interp", &p)) break;
        char *text = cj_jit_dump(j, in, "fuse");
        CHECK(text != NULL);
        /* the leaves fuse: no single kernel runs a data-movement primitive */
        bool single = single_movement(text);
        if (single) printf("%s\n", text);
        cj_string_free(ctx, text);
        CHECK_MSG(!single, "a SINGLE kernel is left (dump above)");
        if (b == 1) {
            cj_program_info info;
            CHECK(cj_jit_program_info(j, in, &info) == CJ_OK);
            if (!info.native) printf("    (no C compiler: %s)\n", info.compile_error ? info.compile_error : "");
            char *c = cj_jit_dump(j, in, "c");
            CHECK(c != NULL);
            /* no callback for data movement remains in generated code */
            bool callback = strstr(c, "gather") != NULL;
            /* the small program is straight-line code: no tile loop */
            bool tiles = strstr(c, "TILE]") != NULL;
            cj_string_free(ctx, c);
            CHECK(!callback);
            CHECK_MSG(big || !tiles, "a small kernel has tile arrays");
        }
    }
    free(in);
    free(ye);
    free(yj);
    cj_ctx_free(ctx);
}

/* rows of every length are generated here (short ones stay on the
 * interpreter by default) */
#define MOVEMENT_TEST(name, dt, big)         \
    TEST(name) {                             \
        codegen_set_short_row_for_testing(0); \
        check_program(dt, big);              \
        codegen_set_short_row_for_testing(-1); \
    }
MOVEMENT_TEST(fused_movement_f32_small, CJ_F32, false)
MOVEMENT_TEST(fused_movement_f32_big, CJ_F32, true)
MOVEMENT_TEST(fused_movement_f64_small, CJ_F64, false)
MOVEMENT_TEST(fused_movement_f64_big, CJ_F64, true)
MOVEMENT_TEST(fused_movement_i32_small, CJ_I32, false)
MOVEMENT_TEST(fused_movement_i32_big, CJ_I32, true)
MOVEMENT_TEST(fused_movement_bool_small, CJ_BOOL, false)
MOVEMENT_TEST(fused_movement_bool_big, CJ_BOOL, true)

/* ---- the maps themselves ---- */

/* Every element of a composed map equals reading through the two maps in
 * turn (a walk over the output index), for a slice of a transpose, a rev
 * of a broadcast, an expand_dims of a slice; a transpose of a reshape that
 * regroups axes does not compose. */
static int64_t read_map(const prim_index_map *m, const rt_aval *out, int64_t flat) {
    int64_t idx[CJ_MAX_RANK], off = m->offset;
    for (int d = out->rank - 1; d >= 0; d--) {
        idx[d] = flat % out->dims[d];
        flat /= out->dims[d];
    }
    if (m->kind == MAP_LINEAR) {
        int64_t f = 0;
        for (int d = 0; d < out->rank; d++) f = f * out->dims[d] + idx[d];
        return f;
    }
    for (int d = 0; d < out->rank; d++) off += (idx[d] - m->lo[d]) / m->pitch[d] * m->stride[d];
    return off;
}

static void map_of(prim_id prim, const prim_params *p, const rt_aval *in, const rt_aval *out, prim_index_map *m) {
    prim_rules[prim].index_map(p, 1, in, out, 0, m);
}

TEST(index_map_composition_is_exact) {
    tu_fill_rule_table();
    rt_aval x = rt_aval_make(CJ_F32, 3, (int64_t[]){4, 5, 6});
    /* transpose (2,0,1): [6,4,5]; then slice [1:6:2, 0:4, 1:5:3] */
    prim_params tp = prim_params_zero();
    tp.axes.n = 3;
    tp.axes.v[0] = 2, tp.axes.v[1] = 0, tp.axes.v[2] = 1;
    rt_aval t = rt_aval_make(CJ_F32, 3, (int64_t[]){6, 4, 5});
    prim_params sp = prim_params_zero();
    sp.lo.n = sp.hi.n = sp.step.n = 3;
    int64_t lo[3] = {1, 0, 1}, hi[3] = {6, 4, 5}, st[3] = {2, 1, 3};
    memcpy(sp.lo.v, lo, sizeof lo), memcpy(sp.hi.v, hi, sizeof hi), memcpy(sp.step.v, st, sizeof st);
    rt_aval s = rt_aval_make(CJ_F32, 3, (int64_t[]){3, 4, 2});
    prim_index_map inner, outer, m;
    map_of(PRIM_TRANSPOSE, &tp, &x, &t, &inner);
    map_of(PRIM_SLICE, &sp, &t, &s, &outer);
    CHECK(prim_index_map_compose(&outer, &s, &t, &inner, &m));
    for (int64_t i = 0; i < rt_aval_size(&s); i++) {
        int64_t mid = read_map(&outer, &s, i);
        CHECK_EQ_INT(read_map(&m, &s, i), read_map(&inner, &t, mid));
    }
    /* rev of a broadcast: [5] → [3,5] (dims (1,)), rev axis 1 */
    rt_aval v = rt_aval_make(CJ_F32, 1, (int64_t[]){5}), b = rt_aval_make(CJ_F32, 2, (int64_t[]){3, 5});
    prim_params bp = prim_params_zero(), rp = prim_params_zero();
    bp.axes.n = 1, bp.axes.v[0] = 1, bp.shape.n = 2, bp.shape.v[0] = 3, bp.shape.v[1] = 5;
    rp.axes.n = 1, rp.axes.v[0] = 1;
    map_of(PRIM_BROADCAST_IN_DIM, &bp, &v, &b, &inner);
    map_of(PRIM_REV, &rp, &b, &b, &outer);
    CHECK(prim_index_map_compose(&outer, &b, &b, &inner, &m));
    for (int64_t i = 0; i < rt_aval_size(&b); i++)
        CHECK_EQ_INT(read_map(&m, &b, i), read_map(&inner, &b, read_map(&outer, &b, i)));
    /* reshape [4,5,6] → [20,6] regroups; its transpose does not compose */
    rt_aval r = rt_aval_make(CJ_F32, 2, (int64_t[]){20, 6}), rt_ = rt_aval_make(CJ_F32, 2, (int64_t[]){6, 20});
    prim_params shp = prim_params_zero(), tp2 = prim_params_zero();
    shp.shape.n = 2, shp.shape.v[0] = 20, shp.shape.v[1] = 6;
    tp2.axes.n = 2, tp2.axes.v[0] = 1, tp2.axes.v[1] = 0;
    prim_index_map rs, tr;
    map_of(PRIM_RESHAPE, &shp, &x, &r, &rs);
    CHECK(rs.kind == MAP_LINEAR);
    map_of(PRIM_TRANSPOSE, &tp2, &r, &rt_, &tr);
    /* linear inner: the transpose's strides over [20,6] are the buffer's */
    CHECK(prim_index_map_compose(&tr, &rt_, &r, &rs, &m));
    for (int64_t i = 0; i < rt_aval_size(&rt_); i++) CHECK_EQ_INT(read_map(&m, &rt_, i), read_map(&tr, &rt_, i));
    /* a reshape [6,20] → [120] over the transpose regroups: refused */
    rt_aval flat = rt_aval_make(CJ_F32, 1, (int64_t[]){120});
    prim_params fp = prim_params_zero();
    fp.shape.n = 1, fp.shape.v[0] = 120;
    prim_index_map fl;
    map_of(PRIM_RESHAPE, &fp, &rt_, &flat, &fl);
    CHECK(!prim_index_map_compose(&fl, &flat, &rt_, &tr, &m));
}

/* ---- leaves of leaves ----
 * A leaf reading another leaf reads the innermost buffer through the
 * composed map (fusion.c: compose_through): transpose of a unit-axis
 * reshape, slice of a broadcast, rev of a transpose, expand_dims of a
 * slice — each chain one kernel, no buffer in between; a reshape that
 * regroups a transpose's axes does not compose and stays correct. */
static void f_chains(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    cj_val x = in[0]; /* [6, 1, 5, 4] */
    int64_t sq[3] = {6, 5, 4}, perm[3] = {2, 0, 1};
    out[0] = cj_transpose(cj_reshape(x, 3, sq), perm); /* [4, 6, 5] */
    int64_t bshape[3] = {3, 6, 20}, bdims[2] = {1, 2};
    cj_val b = cj_broadcast_in_dim(cj_reshape(x, 2, (int64_t[]){6, 20}), 3, bshape, bdims);
    int64_t lo[3] = {1, 0, 3}, hi[3] = {3, 6, 20}, st[3] = {1, 2, 4};
    out[1] = cj_slice(b, lo, hi, st);
    int64_t ax[2] = {0, 2};
    out[2] = cj_rev(cj_transpose(cj_reshape(x, 3, sq), perm), 2, ax);
    int64_t slo[4] = {1, 0, 1, 0}, shi[4] = {6, 1, 5, 3};
    out[3] = cj_expand_dims(cj_slice(x, slo, shi, NULL), 2);
    int64_t flat[1] = {120};
    out[4] = cj_add(cj_reshape(cj_transpose(cj_reshape(x, 3, sq), perm), 1, flat), cj_scalar(ctx, 1.0));
}

TEST(fused_movement_leaf_chains_compose) {
    use_private_cache();
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t rng = 9;
    cj_val x = random_input(ctx, CJ_F32, 4, (int64_t[]){6, 1, 5, 4}, &rng);
    cj_func *f = cj_func_new(ctx, "chains", f_chains, 1, 5, NULL);
    cj_val ye[5], yj[5];
    CHECK(cj_call(f, &x, ye) == CJ_OK);
    cj_backend backends[2] = {CJ_BACKEND_INTERP, CJ_BACKEND_CC};
    for (int b = 0; b < 2; b++) {
        cj_jit_opts o = {0, NULL, 0, NULL, backends[b]};
        cj_func *j = cj_jit(f, &o);
        CHECK_MSG(cj_call(j, &x, yj) == CJ_OK, "%s", cj_error_message(ctx));
        for (int i = 0; i < 5; i++) {
            size_t n = (size_t)cj_val_size(ye[i]);
            float a[200], c[200];
            CHECK(n <= 200);
            cj_read(ye[i], a, sizeof a);
            cj_read(yj[i], c, sizeof c);
            for (size_t q = 0; q < n; q++)
                CHECK_MSG(a[q] == c[q], "%s: chain %d element %zu: %g, eager %g", b ? "cc" : "interp", i, q, c[q], a[q]);
        }
        cj_program_info info;
        CHECK(cj_jit_program_info(j, &x, &info) == CJ_OK);
        /* the reshapes, the broadcast and the inner slice run nowhere: the
         * transpose (CSE made chains 0, 2 and 4 share it) and the slice,
         * expand_dims read x itself; the transpose is materialised for the
         * regrouping reshape of chain 4 (and the rev then reads it): 5
         * kernels, one per result */
        char *text = cj_jit_dump(j, &x, "fuse");
        CHECK_MSG(info.n_kernels <= 5, "%d kernels:\n%s", info.n_kernels, text);
        cj_string_free(ctx, text);
    }
    cj_ctx_free(ctx);
}

/* ---- a small state in a loop ----
 * RK4 over 4 states (two coupled pendulums), 200 steps by cj_scan: the
 * body's slices, concatenates and arithmetic are straight-line kernels
 * with no data-movement kernel left; jit on both backends agrees bit for
 * bit and with a plain C loop in double precision to f32 accuracy. */
static cj_val rk_comp(cj_val x, int64_t i) {
    int64_t a = i, b = i + 1;
    return cj_slice(x, &a, &b, NULL);
}

static cj_val rk_dyn(cj_ctx *ctx, cj_val x) {
    cj_val q0 = rk_comp(x, 0), q1 = rk_comp(x, 1), p0 = rk_comp(x, 2), p1 = rk_comp(x, 3), d = cj_sub(q1, q0);
    cj_val a0 = cj_add(cj_sub(cj_neg(cj_sin(q0)), cj_mul(cj_scalar(ctx, 0.1), p0)), cj_mul(cj_scalar(ctx, 0.5), d));
    cj_val a1 = cj_sub(cj_sub(cj_neg(cj_sin(q1)), cj_mul(cj_scalar(ctx, 0.1), p1)), cj_mul(cj_scalar(ctx, 0.5), d));
    cj_val parts[4] = {p0, p1, a0, a1};
    return cj_concatenate(4, parts, 0);
}

static void rk_step(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    const double h = 0.01;
    cj_val x = in[0];
    cj_val k1 = rk_dyn(ctx, x);
    cj_val k2 = rk_dyn(ctx, cj_add(x, cj_mul(cj_scalar(ctx, h / 2), k1)));
    cj_val k3 = rk_dyn(ctx, cj_add(x, cj_mul(cj_scalar(ctx, h / 2), k2)));
    cj_val k4 = rk_dyn(ctx, cj_add(x, cj_mul(cj_scalar(ctx, h), k3)));
    cj_val s = cj_add(cj_add(k1, cj_mul(cj_scalar(ctx, 2), k2)), cj_add(cj_mul(cj_scalar(ctx, 2), k3), k4));
    out[0] = cj_add(x, cj_mul(cj_scalar(ctx, h / 6), s));
}

static void rk_run(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx;
    cj_scan_opts o = {200, 1, 0};
    cj_scan((cj_func *)u, 1, in, 0, NULL, &o, out, NULL);
}

static void rk_plain_dyn(const double *x, double *k) {
    double d = x[1] - x[0];
    k[0] = x[2], k[1] = x[3];
    k[2] = -sin(x[0]) - 0.1 * x[2] + 0.5 * d;
    k[3] = -sin(x[1]) - 0.1 * x[3] - 0.5 * d;
}

TEST(fused_movement_rk4_scan_is_straight_line) {
    use_private_cache();
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *body = cj_func_new(ctx, "rk4_step", rk_step, 1, 1, NULL);
    cj_func *f = cj_func_new(ctx, "rk4", rk_run, 1, 1, body);
    float x0[4] = {0.5f, -0.3f, 0.1f, 0.2f};
    int64_t four = 4;
    cj_val x = cj_array(ctx, CJ_F32, 1, &four, x0), y[2];
    double ref[4] = {x0[0], x0[1], x0[2], x0[3]};
    for (int s = 0; s < 200; s++) {
        double k1[4], k2[4], k3[4], k4[4], t[4], h = 0.01;
        rk_plain_dyn(ref, k1);
        for (int i = 0; i < 4; i++) t[i] = ref[i] + h / 2 * k1[i];
        rk_plain_dyn(t, k2);
        for (int i = 0; i < 4; i++) t[i] = ref[i] + h / 2 * k2[i];
        rk_plain_dyn(t, k3);
        for (int i = 0; i < 4; i++) t[i] = ref[i] + h * k3[i];
        rk_plain_dyn(t, k4);
        for (int i = 0; i < 4; i++) ref[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
    }
    cj_backend backends[2] = {CJ_BACKEND_INTERP, CJ_BACKEND_CC};
    float got[2][4];
    for (int b = 0; b < 2; b++) {
        cj_jit_opts o = {0, NULL, 0, NULL, backends[b]};
        cj_func *j = cj_jit(f, &o);
        CHECK_MSG(cj_call(j, &x, &y[b]) == CJ_OK, "%s", cj_error_message(ctx));
        CHECK(cj_read(y[b], got[b], sizeof got[b]) == CJ_OK);
        for (int i = 0; i < 4; i++) CHECK_NEAR(got[b][i], ref[i], 1e-5, 1e-5);
        char *text = cj_jit_dump(j, &x, "fuse");
        CHECK(text != NULL);
        bool single = single_movement(text); /* the slices and concatenates are fused */
        cj_string_free(ctx, text);
        CHECK(!single);
        if (b == 1) {
            char *c = cj_jit_dump(j, &x, "c");
            CHECK(c != NULL);
            bool tiles = strstr(c, "TILE]") != NULL, straight = strstr(c, "straight-line") != NULL;
            cj_string_free(ctx, c);
            CHECK_MSG(!tiles && straight, "the scan body should be straight-line code");
        }
    }
    CHECK(memcmp(got[0], got[1], sizeof got[0]) == 0);
    cj_ctx_free(ctx);
}

/* A row sum reversed between two reshapes, then used across the row
 * (fuzz seed 1202576, in a gradient): composition rewires the outer
 * reshape to read the row sums through the rev's map, so a ROWS kernel
 * must not take it as a per-row reshape by its parameters (it did, and
 * the rev was lost). */
static void f_rev_of_row_sums(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    int64_t one = 1, zero = 0;
    cj_val s = cj_reshape(cj_sum(in[0], 1, &one, 0), 2, (int64_t[]){4, 1});
    cj_val r = cj_reshape(cj_rev(s, 1, &zero), 1, (int64_t[]){4});
    out[0] = cj_mul(r, in[1]);
}

TEST(fused_movement_rev_between_reshapes_of_row_sums) {
    use_private_cache();
    cj_ctx *ctx = cj_ctx_new(NULL);
    double x[12], v[4] = {1, 2, 3, 4};
    for (int i = 0; i < 12; i++) x[i] = i * i;
    cj_val in[2] = {cj_array(ctx, CJ_F64, 2, (int64_t[]){4, 3}, x), cj_array(ctx, CJ_F64, 1, (int64_t[]){4}, v)};
    cj_func *f = cj_func_new(ctx, "rev_of_row_sums", f_rev_of_row_sums, 2, 1, NULL);
    cj_backend backends[2] = {CJ_BACKEND_INTERP, CJ_BACKEND_CC};
    for (int b = 0; b < 2; b++) {
        cj_jit_opts o = {0, NULL, 0, NULL, backends[b]};
        cj_val y;
        CHECK_MSG(cj_call(cj_jit(f, &o), in, &y) == CJ_OK, "%s", cj_error_message(ctx));
        double got[4];
        CHECK(cj_read(y, got, sizeof got) == CJ_OK);
        for (int i = 0; i < 4; i++) {
            int r = 3 - i; /* the reversed row */
            double want = (x[3 * r] + x[3 * r + 1] + x[3 * r + 2]) * v[i];
            CHECK_MSG(got[i] == want, "%s: element %d: %g, want %g", b ? "cc" : "interp", i, got[i], want);
        }
    }
    cj_ctx_free(ctx);
}
