/* test_native_rows.c — generated C for ROWS kernels (softmax, log-softmax,
 * logsumexp, layer norm and the other row reductions) through jit: every
 * ROWS kernel of these programs has generated code, in use when a C
 * compiler is; results bit-identical to the interpreter's row loop (NaNs
 * match NaNs) across dtypes, row lengths (short serial folds, lane folds,
 * several fold blocks, row arrays on the stack and in the per-thread
 * scratch), many rows (the parallel path), NaN and infinite rows,
 * whole-array reductions (outer rank 0), rank-3 operands reduced over
 * their last two axes, leaves read in place or gathered, materialised
 * intermediates, integer dtypes; and within a few ulp of plain C
 * references computed in long double. To keep compiles few, each test
 * builds one program holding several independent groups (one per dtype or
 * row length). Builds go to a private cache directory. */
#include <stdlib.h>
#include <unistd.h>

#include "backend/program_impl.h"
#include "core/func.h"
#include "harness.h"
#include "test_util.h"

/* Short rows stay on the interpreter by default (codegen.c, SHORT_ROW);
 * these tests generate rows of every length, small ones included. */
#define ROWS_TEST(name)                                                   \
    static void rows_body_##name(void);                                   \
    TEST(name) {                                                          \
        codegen_set_short_row_for_testing(0);                             \
        rows_body_##name();                                               \
        codegen_set_short_row_for_testing(-1);                            \
    }                                                                     \
    static void rows_body_##name(void)

static char cache_dir[128];

static void use_private_cache(void) {
    if (!cache_dir[0]) snprintf(cache_dir, sizeof cache_dir, "/tmp/cjax_native_rows_test_%d", (int)getpid());
    cc_build_options o = {NULL, NULL, cache_dir, 0};
    native_set_build_options_for_testing(&o);
}

/* ---- programs of independent groups ---- */

/* One group: `n_in` inputs to `n_out` outputs. */
typedef void (*group_fn)(cj_ctx *ctx, const cj_val *in, cj_val *out, int n_axes);

typedef struct groups {
    int n;             /* groups in the program */
    group_fn fn[12];   /* per group */
    int n_in, n_out;   /* per group */
    int n_axes;        /* trailing axes reduced: 1 or 2 */
} groups;

static void f_groups(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    const groups *g = u;
    for (int i = 0; i < g->n; i++) g->fn[i](ctx, in + i * g->n_in, out + i * g->n_out, g->n_axes);
}

static void f_affine(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    out[0] = cj_add(cj_mul(in[0], cj_scalar(ctx, 2.0)), cj_scalar(ctx, 1.0));
}

/* Can this machine compile generated C at all? Probed once with a LOOP
 * program, so that a ROWS program that fails to build is a failure, not a
 * missing compiler. */
static bool have_compiler(void) {
    static int state = -1;
    if (state < 0) {
        use_private_cache();
        cj_ctx *ctx = cj_ctx_new(NULL);
        cj_jit_opts o = {0, NULL, 0, NULL, CJ_BACKEND_CC};
        cj_func *jf = cj_jit(cj_func_new(ctx, "affine", f_affine, 1, 1, NULL), &o);
        cj_val x = tu_ramp(ctx, 16, 1, 0), y;
        cj_program_info info;
        memset(&info, 0, sizeof info);
        state = cj_call(jf, &x, &y) == CJ_OK && cj_jit_program_info(jf, &x, &info) == CJ_OK && info.native;
        if (!state) printf("    (no C compiler: %s)\n", info.compile_error ? info.compile_error : "");
        cj_ctx_free(ctx);
    }
    return state;
}

/* The number of ROWS kernels jit makes of g at these inputs, and whether
 * codegen writes every one of them. */
static int rows_kernels(cj_ctx *ctx, groups *g, const cj_val *in, bool *all_generated) {
    int n_in = g->n * g->n_in, n = 0;
    rt_aval *avals = malloc(sizeof(rt_aval) * (size_t)n_in);
    for (int i = 0; i < n_in; i++) {
        int64_t dims[CJ_MAX_RANK];
        int rank = cj_val_shape(in[i], dims);
        avals[i] = rt_aval_make(cj_val_dtype(in[i]), rank, dims);
    }
    cj_func *f = cj_func_new(ctx, "rows", f_groups, n_in, g->n * g->n_out, g);
    ir_func *ir = func_trace_to_ir(f, avals, NULL, "rows test");
    compiled *c = ir ? compile_ir(ctx, ir) : NULL;
    *all_generated = c != NULL;
    for (int k = 0; c && k < c->n_kernels; k++) {
        if (c->kernels[k].kind != KERNEL_ROWS) continue;
        n++;
        *all_generated &= codegen_generates(c, k);
    }
    if (c) compiled_free(ctx, c);
    if (ir) ir_free(ir);
    free(avals);
    return n;
}

typedef struct result {
    int n;
    cj_dtype *dt;
    int64_t *size;
    double **v;          /* values, for the references */
    unsigned char **raw; /* bytes, for the bitwise comparison */
    cj_program_info info;
} result;

static void result_free(result *r) {
    for (int i = 0; i < r->n; i++) {
        free(r->v[i]);
        free(r->raw[i]);
    }
    free(r->dt);
    free(r->size);
    free(r->v);
    free(r->raw);
    memset(r, 0, sizeof *r);
}

/* jit(g) on `backend`, called once; outputs copied out. */
static void run_jit(groups *g, const cj_val *in, cj_backend backend, result *r) {
    cj_ctx *ctx = in[0].ctx;
    int n_out = g->n * g->n_out;
    memset(r, 0, sizeof *r);
    r->n = n_out;
    r->dt = calloc((size_t)n_out, sizeof *r->dt);
    r->size = calloc((size_t)n_out, sizeof *r->size);
    r->v = calloc((size_t)n_out, sizeof *r->v);
    r->raw = calloc((size_t)n_out, sizeof *r->raw);
    cj_val *y = calloc((size_t)n_out, sizeof *y);
    cj_jit_opts o = {0, NULL, 0, NULL, backend};
    cj_func *jf = cj_jit(cj_func_new(ctx, "rows", f_groups, g->n * g->n_in, n_out, g), &o);
    int ok = cj_call(jf, in, y) == CJ_OK && cj_jit_program_info(jf, in, &r->info) == CJ_OK;
    for (int i = 0; i < n_out && ok; i++) {
        r->dt[i] = cj_val_dtype(y[i]);
        r->size[i] = cj_val_size(y[i]);
        size_t bytes = (size_t)r->size[i] * cj_dtype_size(r->dt[i]);
        r->raw[i] = malloc(bytes + 1);
        r->v[i] = malloc(sizeof(double) * (size_t)r->size[i] + 1);
        ok = cj_read(y[i], r->raw[i], bytes) == CJ_OK &&
             cj_read_as(y[i], CJ_F64, r->v[i], sizeof(double) * (size_t)r->size[i]) == CJ_OK;
    }
    free(y);
    CHECK_MSG(ok, "%s", cj_error_message(ctx));
}

/* Element k of output i in both results: the same bits, or NaN in both. */
static bool same_element(const result *a, const result *b, int i, int64_t k) {
    size_t es = cj_dtype_size(a->dt[i]);
    const unsigned char *x = a->raw[i] + (size_t)k * es, *y = b->raw[i] + (size_t)k * es;
    if (!memcmp(x, y, es)) return true;
    if (a->dt[i] == CJ_F32) {
        float p, q;
        memcpy(&p, x, 4);
        memcpy(&q, y, 4);
        return isnan(p) && isnan(q);
    }
    if (a->dt[i] == CJ_F64) {
        double p, q;
        memcpy(&p, x, 8);
        memcpy(&q, y, 8);
        return isnan(p) && isnan(q);
    }
    return false;
}

/* Runs the groups on the interpreter (into *ri) and on generated C (into
 * *rc): checks that the program has `want_rows` ROWS kernels, all
 * generated and in use when a compiler is, and that every output matches
 * bit for bit. The caller frees both results. */
static void run_both(groups *g, const cj_val *in, int want_rows, result *ri, result *rc) {
    cj_ctx *ctx = in[0].ctx;
    bool all_generated;
    memset(ri, 0, sizeof *ri);
    memset(rc, 0, sizeof *rc);
    CHECK_EQ_INT(rows_kernels(ctx, g, in, &all_generated), want_rows);
    CHECK(all_generated);
    run_jit(g, in, CJ_BACKEND_INTERP, ri);
    if (th_failed_now()) return;
    run_jit(g, in, CJ_BACKEND_CC, rc);
    if (th_failed_now()) return;
    CHECK(!ri->info.native);
    if (have_compiler()) {
        CHECK_MSG(rc->info.native == 1, "generated code not in use: %s", rc->info.compile_error);
        CHECK(rc->info.compile_error && !rc->info.compile_error[0]);
    }
    for (int i = 0; i < ri->n; i++) {
        CHECK(ri->size[i] == rc->size[i] && ri->dt[i] == rc->dt[i]);
        for (int64_t k = 0; k < ri->size[i]; k++)
            CHECK_MSG(same_element(ri, rc, i, k), "output %d element %lld: interp %.17g, generated C %.17g", i,
                      (long long)k, ri->v[i][k], rc->v[i][k]);
    }
}

/* ---- inputs and references ---- */

static double eps_of(cj_dtype dt) { return dt == CJ_F32 ? 0x1p-23 : 0x1p-52; }

/* n random doubles in [lo, hi) (malloc'd). */
static double *random_host(int64_t n, uint64_t seed, double lo, double hi) {
    double *h = malloc(sizeof(double) * (size_t)n + 1);
    uint64_t s = seed;
    for (int64_t k = 0; k < n; k++) h[k] = th_rand_uniform(&s, lo, hi);
    return h;
}

/* An array of dt holding host[0..n) (rounded to dt, and host with it). */
static cj_val array_of(cj_ctx *ctx, cj_dtype dt, int rank, const int64_t *dims, double *host) {
    int64_t n = 1;
    for (int d = 0; d < rank; d++) n *= dims[d];
    void *data = malloc((size_t)n * 8 + 1);
    for (int64_t k = 0; k < n; k++) {
        if (dt == CJ_F32) ((float *)data)[k] = (float)host[k], host[k] = (float)host[k];
        else ((double *)data)[k] = host[k];
    }
    cj_val v = cj_array(ctx, dt, rank, dims, data);
    free(data);
    return v;
}

static long double row_max(const double *x, int64_t C) {
    long double m = -INFINITY;
    for (int64_t j = 0; j < C; j++)
        if (isnan(x[j]) || x[j] > m) m = x[j];
    return m;
}

static long double row_min(const double *x, int64_t C) {
    long double m = INFINITY;
    for (int64_t j = 0; j < C; j++)
        if (isnan(x[j]) || x[j] < m) m = x[j];
    return m;
}

/* softmax (log_form 0) or log-softmax (1) of one row. */
static void ref_softmax(const double *x, int64_t C, int log_form, long double *out) {
    long double m = row_max(x, C), s = 0;
    for (int64_t j = 0; j < C; j++) s += expl(x[j] - m);
    for (int64_t j = 0; j < C; j++) out[j] = log_form ? (x[j] - m) - logl(s) : expl(x[j] - m) / s;
}

/* jax.nn.logsumexp: the max is taken out only when it is finite. */
static long double ref_logsumexp(const double *x, int64_t C) {
    long double m = row_max(x, C), s = 0;
    if (!isfinite(m)) m = 0;
    for (int64_t j = 0; j < C; j++) s += expl(x[j] - m);
    return logl(s) + m;
}

static void ref_layer_norm(const double *x, const double *scale, const double *shift, int64_t C, long double eps,
                           long double *out) {
    long double mean = 0, var = 0;
    for (int64_t j = 0; j < C; j++) mean += x[j];
    mean /= C;
    for (int64_t j = 0; j < C; j++) var += (x[j] - mean) * (x[j] - mean);
    var /= C;
    for (int64_t j = 0; j < C; j++) out[j] = (x[j] - mean) / sqrtl(var + eps) * scale[j] + shift[j];
}

/* |got - want| within `ulps` units of dt's epsilon times (|want| + scale),
 * NaNs and infinities exactly as th_close. */
#define CHECK_ULPS(got, want, dt, ulps, scale)                                                             \
    do {                                                                                                   \
        double cu_w = (double)(want), cu_tol = (ulps)*eps_of(dt) * (fabs(cu_w) + (scale));                \
        CHECK_MSG(th_close((got), cu_w, 0, isfinite(cu_tol) ? cu_tol : 0), "%s ~= %s: %.17g vs %.17g", #got, \
                  #want, (double)(got), cu_w);                                                             \
    } while (0)

/* ---- the functions ---- */

static const int64_t last_axis[1] = {-1}, last_two_axes[2] = {-2, -1};

static const int64_t *trailing(int n_axes) { return n_axes == 2 ? last_two_axes : last_axis; }

static cj_val layer_norm(cj_ctx *ctx, cj_val x, cj_val scale, cj_val shift, int n_axes) {
    cj_val mean = cj_mean(x, n_axes, trailing(n_axes), 1);
    cj_val d = cj_sub(x, mean);
    cj_val var = cj_mean(cj_mul(d, d), n_axes, trailing(n_axes), 1);
    return cj_add(cj_mul(cj_mul(d, cj_rsqrt(cj_add(var, cj_scalar(ctx, 1e-5)))), scale), shift);
}

/* The four functions, numbered as check_family numbers them; layer norm
 * reads in[1] and in[2] (scale and shift, the row's shape). */
static void g_softmax(cj_ctx *ctx, const cj_val *in, cj_val *out, int n_axes) {
    (void)ctx, (void)n_axes;
    out[0] = cj_softmax(in[0], -1);
}

static void g_log_softmax(cj_ctx *ctx, const cj_val *in, cj_val *out, int n_axes) {
    (void)ctx, (void)n_axes;
    out[0] = cj_log_softmax(in[0], -1);
}

static void g_logsumexp(cj_ctx *ctx, const cj_val *in, cj_val *out, int n_axes) {
    (void)ctx;
    out[0] = cj_logsumexp(in[0], n_axes, trailing(n_axes), 0);
}

static void g_layer_norm(cj_ctx *ctx, const cj_val *in, cj_val *out, int n_axes) {
    out[0] = layer_norm(ctx, in[0], in[1], in[2], n_axes);
}

/* All four of one x: they share its max and exp, so fusion makes one
 * ROWS kernel with several reductions and outputs. */
static void g_family(cj_ctx *ctx, const cj_val *in, cj_val *out, int n_axes) {
    out[0] = cj_softmax(in[0], -1);
    out[1] = cj_log_softmax(in[0], -1);
    out[2] = cj_logsumexp(in[0], n_axes, trailing(n_axes), 0);
    out[3] = layer_norm(ctx, in[0], in[1], in[2], n_axes);
}

/* Checks function fn's output `got` (0 softmax, 1 log-softmax, 2
 * logsumexp, 3 layer norm) against the references, row by row. The bounds
 * follow the rounding of each algorithm: exp(x - m) inherits the rounding
 * of x - m amplified by |x - m|; layer norm's x - mean inherits the
 * rounding of x and the mean, amplified by the inverse deviation and the
 * scale; a sum of C terms strays by about sqrt(C) ulps. */
static void check_function(int fn, const double *got, const double *x, const double *scale, const double *shift,
                           int64_t rows, int64_t C, cj_dtype dt) {
    long double *want = malloc(sizeof(long double) * (size_t)C + 1);
    const long double eps = (long double)1e-5f; /* the weak scalar 1e-5 is an f32 value */
    const double sqrt_c = sqrt((double)C);
    for (int64_t i = 0; i < rows && !th_failed_now(); i++) {
        const double *row = x + i * C;
        long double m = row_max(row, C), lse = ref_logsumexp(row, C), mean = 0, inv = 0, spread = 0;
        for (int64_t j = 0; j < C; j++) mean += row[j], spread += fabs(row[j]);
        mean /= C;
        spread = spread / C * sqrt_c; /* how far the rounded mean may stray, in ulps */
        for (int64_t j = 0; j < C; j++) inv += (row[j] - mean) * (row[j] - mean);
        inv = 1 / sqrtl(inv / C + eps);
        if (fn == 2) {
            CHECK_ULPS(got[i], lse, dt, 4, 1 + sqrt_c);
            continue;
        }
        if (fn == 3) ref_layer_norm(row, scale, shift, C, eps, want);
        else ref_softmax(row, C, fn == 1, want);
        for (int64_t j = 0; j < C && !th_failed_now(); j++) {
            double xm = fabs(row[j] - (double)m);
            if (fn == 0) CHECK_ULPS(got[i * C + j], want[j], dt, 4 + xm + sqrt_c, 0);
            else if (fn == 1) CHECK_ULPS(got[i * C + j], want[j], dt, 4, 1 + xm + fabsl(lse - m) + sqrt_c);
            else
                CHECK_ULPS(got[i * C + j], want[j], dt, 8,
                           (fabs(row[j]) + fabsl(mean) + spread) * inv * fabs(scale[j]) + fabs(shift[j]));
        }
    }
    free(want);
}

/* Host copies of one group's inputs: x and the scale and shift of its rows. */
typedef struct family_in {
    cj_dtype dt;
    int64_t rows, C;
    double *x, *scale, *shift;
} family_in;

/* x of shape dims (rank 2 or 3, rows × the rest) in [lo, hi), scale and
 * shift of the row's shape; the three arrays go to in[0..2]. */
static void make_family_in(cj_ctx *ctx, cj_dtype dt, int rank, const int64_t *dims, uint64_t seed, double lo,
                           double hi, family_in *f, cj_val *in) {
    f->dt = dt;
    f->rows = dims[0];
    f->C = 1;
    for (int d = 1; d < rank; d++) f->C *= dims[d];
    f->x = random_host(f->rows * f->C, seed, lo, hi);
    f->scale = random_host(f->C, seed + 1, 0.5, 2);
    f->shift = random_host(f->C, seed + 2, -1, 1);
    in[0] = array_of(ctx, dt, rank, dims, f->x);
    in[1] = array_of(ctx, dt, rank - 1, dims + 1, f->scale);
    in[2] = array_of(ctx, dt, rank - 1, dims + 1, f->shift);
}

static void family_in_free(family_in *f) {
    free(f->x);
    free(f->scale);
    free(f->shift);
}

/* ---- tests ---- */

/* Row lengths: 1 (not a ROWS kernel: nothing to reduce), 2..7 (serial
 * folds), 1000 (lanes and a tail), 4096 (one full fold block; row arrays
 * move to the scratch), 10000 (several blocks, the last partial). */
static void family_over_lengths(cj_dtype dt) {
    enum { N = 9 };
    static const int64_t lengths[N] = {1, 2, 3, 4, 5, 7, 1000, 4096, 10000};
    cj_ctx *ctx = cj_ctx_new(NULL);
    groups g = {N, {0}, 3, 4, 1};
    family_in f[N];
    cj_val in[3 * N];
    for (int t = 0; t < N; t++) {
        int64_t dims[2] = {lengths[t] > 1000 ? 2 : 3, lengths[t]};
        g.fn[t] = g_family;
        make_family_in(ctx, dt, 2, dims, 11 + 3 * (uint64_t)t, -4, 6, &f[t], in + 3 * t);
    }
    result ri, rc;
    run_both(&g, in, N - 1, &ri, &rc);
    for (int t = 0; t < N && !th_failed_now(); t++)
        for (int fn = 0; fn < 4; fn++)
            check_function(fn, ri.v[4 * t + fn], f[t].x, f[t].scale, f[t].shift, f[t].rows, f[t].C, dt);
    result_free(&ri);
    result_free(&rc);
    for (int t = 0; t < N; t++) family_in_free(&f[t]);
    cj_ctx_free(ctx);
}

ROWS_TEST(native_rows_family_f32_over_row_lengths) {
    use_private_cache();
    family_over_lengths(CJ_F32);
}

ROWS_TEST(native_rows_family_f64_over_row_lengths) {
    use_private_cache();
    family_over_lengths(CJ_F64);
}

/* Each function alone, as a model would use it: its own kernel shape (row
 * lengths differ so the four stay separate kernels). */
ROWS_TEST(native_rows_each_function_alone) {
    use_private_cache();
    cj_ctx *ctx = cj_ctx_new(NULL);
    groups g = {8, {g_softmax, g_log_softmax, g_logsumexp, g_layer_norm, g_softmax, g_log_softmax, g_logsumexp,
                    g_layer_norm},
                3, 1, 1};
    family_in f[8];
    cj_val in[24];
    for (int t = 0; t < 8; t++) {
        int64_t dims[2] = {4, 999 - t};
        make_family_in(ctx, t < 4 ? CJ_F32 : CJ_F64, 2, dims, 5 + 3 * (uint64_t)t, -3, 3, &f[t], in + 3 * t);
    }
    result ri, rc;
    run_both(&g, in, 8, &ri, &rc);
    for (int t = 0; t < 8 && !th_failed_now(); t++)
        check_function(t % 4, ri.v[t], f[t].x, f[t].scale, f[t].shift, f[t].rows, f[t].C, f[t].dt);
    result_free(&ri);
    result_free(&rc);
    for (int t = 0; t < 8; t++) family_in_free(&f[t]);
    cj_ctx_free(ctx);
}

/* Enough rows to run on the pool in several chunks. */
ROWS_TEST(native_rows_many_rows_run_in_parallel) {
    use_private_cache();
    cj_ctx *ctx = cj_ctx_new(NULL);
    groups g = {2, {g_family, g_family}, 3, 4, 1};
    family_in f[2];
    cj_val in[6];
    int64_t dims[2] = {3001, 61};
    make_family_in(ctx, CJ_F32, 2, dims, 99, -5, 5, &f[0], in);
    make_family_in(ctx, CJ_F64, 2, dims, 98, -5, 5, &f[1], in + 3);
    result ri, rc;
    run_both(&g, in, 1, &ri, &rc); /* same rows: one kernel for both dtypes */
    for (int t = 0; t < 2 && !th_failed_now(); t++)
        for (int fn = 0; fn < 4; fn++)
            check_function(fn, ri.v[4 * t + fn], f[t].x, f[t].scale, f[t].shift, f[t].rows, f[t].C, f[t].dt);
    result_free(&ri);
    result_free(&rc);
    family_in_free(&f[0]);
    family_in_free(&f[1]);
    cj_ctx_free(ctx);
}

static void g_specials(cj_ctx *ctx, const cj_val *in, cj_val *out, int n_axes) {
    (void)ctx, (void)n_axes;
    out[0] = cj_softmax(in[0], -1);
    out[1] = cj_log_softmax(in[0], -1);
    out[2] = cj_logsumexp(in[0], 1, last_axis, 0);
    out[3] = cj_reduce_max(in[0], 1, last_axis, 0);
    out[4] = cj_reduce_min(in[0], 1, last_axis, 0);
    out[5] = cj_sum(in[0], 1, last_axis, 0);
}

/* Rows holding NaN, +inf and -inf: NaNs propagate through max and min (in
 * the lanes and in the tail), infinities give exact results. */
ROWS_TEST(native_rows_nan_and_inf_rows) {
    use_private_cache();
    cj_ctx *ctx = cj_ctx_new(NULL);
    enum { ROWS = 8 };
    groups g = {4, {g_specials, g_specials, g_specials, g_specials}, 1, 6, 1};
    double *x[4];
    cj_val in[4];
    for (int t = 0; t < 4; t++) {
        int64_t C = t < 2 ? 7 : 100, dims[2] = {ROWS, C}, last = C - 1;
        const double inf = INFINITY;
        double *h = x[t] = random_host(ROWS * C, 3 + (uint64_t)t, -3, 3);
        h[1 * C + C / 2] = NAN;                              /* one NaN */
        h[2 * C + last] = inf;                               /* +inf in the tail */
        h[3 * C + 0] = -inf;                                 /* -inf */
        for (int64_t j = 0; j < C; j++) h[4 * C + j] = -inf; /* all -inf */
        h[5 * C + 0] = NAN, h[5 * C + last] = inf;           /* NaN and +inf */
        for (int64_t j = 0; j < C; j++) h[6 * C + j] = inf;  /* all +inf */
        for (int64_t j = 0; j < C; j += 2) h[7 * C + j] = -inf;
        in[t] = array_of(ctx, t & 1 ? CJ_F64 : CJ_F32, 2, dims, h);
    }
    result ri, rc;
    run_both(&g, in, 2, &ri, &rc); /* one kernel per row length, both dtypes in it */
    long double want[100];
    for (int t = 0; t < 4 && !th_failed_now(); t++) {
        cj_dtype dt = t & 1 ? CJ_F64 : CJ_F32;
        int64_t C = t < 2 ? 7 : 100;
        double *const *v = ri.v + 6 * t;
        for (int64_t i = 0; i < ROWS && !th_failed_now(); i++) {
            const double *row = x[t] + i * C;
            long double s = 0;
            for (int64_t j = 0; j < C; j++) s += row[j];
            for (int lf = 0; lf < 2; lf++) {
                ref_softmax(row, C, lf, want);
                for (int64_t j = 0; j < C; j++) CHECK_ULPS(v[lf][i * C + j], want[j], dt, 16, 8);
            }
            CHECK_ULPS(v[2][i], ref_logsumexp(row, C), dt, 16, 1);
            CHECK_ULPS(v[3][i], row_max(row, C), dt, 0, 0);
            CHECK_ULPS(v[4][i], row_min(row, C), dt, 0, 0);
            CHECK_ULPS(v[5][i], s, dt, 4 * C, 4);
        }
    }
    result_free(&ri);
    result_free(&rc);
    for (int t = 0; t < 4; t++) free(x[t]);
    cj_ctx_free(ctx);
}

/* Reductions over every axis: one row, outer rank 0; the total is a
 * rank-0 value the row statements read directly (x / sum(x)). */
static void g_whole(cj_ctx *ctx, const cj_val *in, cj_val *out, int n_axes) {
    (void)ctx, (void)n_axes;
    out[0] = cj_logsumexp(in[0], -1, NULL, 0);
    out[1] = cj_div(in[0], cj_sum(in[0], -1, NULL, 0));
    out[2] = cj_reduce_max(in[0], -1, NULL, 0);
}

ROWS_TEST(native_rows_whole_array_reductions) {
    use_private_cache();
    cj_ctx *ctx = cj_ctx_new(NULL);
    static const int64_t shapes[2][3] = {{40, 50, 0}, {3, 4, 5}};
    groups g = {4, {g_whole, g_whole, g_whole, g_whole}, 1, 3, 1};
    double *x[4];
    cj_val in[4];
    for (int t = 0; t < 4; t++) {
        x[t] = random_host(2000, 41 + (uint64_t)t, 0.5, 3);
        in[t] = array_of(ctx, t & 1 ? CJ_F64 : CJ_F32, t < 2 ? 2 : 3, shapes[t / 2], x[t]);
    }
    result ri, rc;
    run_both(&g, in, 2, &ri, &rc); /* one kernel per shape */
    for (int t = 0; t < 4 && !th_failed_now(); t++) {
        cj_dtype dt = t & 1 ? CJ_F64 : CJ_F32;
        int64_t n = t < 2 ? 2000 : 60;
        long double s = 0;
        for (int64_t k = 0; k < n; k++) s += x[t][k];
        CHECK_ULPS(ri.v[3 * t][0], ref_logsumexp(x[t], n), dt, 8, 1 + sqrt((double)n));
        for (int64_t k = 0; k < n; k++) CHECK_ULPS(ri.v[3 * t + 1][k], x[t][k] / s, dt, 4 + sqrt((double)n), 0);
        CHECK_ULPS(ri.v[3 * t + 2][0], row_max(x[t], n), dt, 0, 0);
    }
    result_free(&ri);
    result_free(&rc);
    for (int t = 0; t < 4; t++) free(x[t]);
    cj_ctx_free(ctx);
}

/* Rank-3 operands reduced over their last two axes: the row is a 12×30
 * plane, and scale and shift of that shape, broadcast over the outer axis,
 * are read in place. */
ROWS_TEST(native_rows_rank3_over_last_two_axes) {
    use_private_cache();
    cj_ctx *ctx = cj_ctx_new(NULL);
    groups g = {4, {g_logsumexp, g_layer_norm, g_logsumexp, g_layer_norm}, 3, 1, 2};
    family_in f[4];
    cj_val in[12];
    for (int t = 0; t < 4; t++) {
        int64_t dims[3] = {5, 12, 30 + t}; /* each group its own kernel */
        make_family_in(ctx, t < 2 ? CJ_F32 : CJ_F64, 3, dims, 51 + 3 * (uint64_t)t, -2, 4, &f[t], in + 3 * t);
    }
    result ri, rc;
    run_both(&g, in, 4, &ri, &rc);
    for (int t = 0; t < 4 && !th_failed_now(); t++)
        check_function(t % 2 ? 3 : 2, ri.v[t], f[t].x, f[t].scale, f[t].shift, f[t].rows, f[t].C, f[t].dt);
    result_free(&ri);
    result_free(&rc);
    for (int t = 0; t < 4; t++) family_in_free(&f[t]);
    cj_ctx_free(ctx);
}

/* A transposed operand is gathered row by row; the centred row is a
 * program output as well as an intermediate (its buffer row is written
 * and read back in the kernel). */
static void g_gathered_and_shared(cj_ctx *ctx, const cj_val *in, cj_val *out, int n_axes) {
    (void)ctx, (void)n_axes;
    static const int64_t perm[2] = {1, 0};
    cj_val z = cj_add(in[0], cj_transpose(in[1], perm));
    cj_val d = cj_sub(z, cj_reduce_max(z, 1, last_axis, 1));
    cj_val e = cj_exp(d);
    out[0] = d;
    out[1] = cj_div(e, cj_sum(e, 1, last_axis, 1));
}

ROWS_TEST(native_rows_gathered_leaf_and_materialised_row) {
    use_private_cache();
    cj_ctx *ctx = cj_ctx_new(NULL);
    enum { R = 6, C = 77 };
    groups g = {2, {g_gathered_and_shared, g_gathered_and_shared}, 2, 2, 1};
    double *x[2], *y[2];
    cj_val in[4];
    int64_t dx[2] = {R, C}, dy[2] = {C, R};
    for (int t = 0; t < 2; t++) {
        x[t] = random_host(R * C, 61 + (uint64_t)t, -3, 3);
        y[t] = random_host(R * C, 63 + (uint64_t)t, -1, 1);
        in[2 * t] = array_of(ctx, t ? CJ_F64 : CJ_F32, 2, dx, x[t]);
        in[2 * t + 1] = array_of(ctx, t ? CJ_F64 : CJ_F32, 2, dy, y[t]);
    }
    result ri, rc;
    run_both(&g, in, 1, &ri, &rc);
    double z[R * C];
    long double want[C];
    for (int t = 0; t < 2 && !th_failed_now(); t++) {
        cj_dtype dt = t ? CJ_F64 : CJ_F32;
        for (int64_t i = 0; i < R; i++)
            for (int64_t j = 0; j < C; j++) {
                double v = x[t][i * C + j] + y[t][j * R + i];
                z[i * C + j] = dt == CJ_F32 ? (float)v : v;
            }
        for (int64_t i = 0; i < R && !th_failed_now(); i++) {
            ref_softmax(z + i * C, C, 0, want);
            long double m = row_max(z + i * C, C);
            for (int64_t j = 0; j < C; j++) {
                CHECK_ULPS(ri.v[2 * t][i * C + j], z[i * C + j] - m, dt, 1, 0);
                CHECK_ULPS(ri.v[2 * t + 1][i * C + j], want[j], dt, 16 + fabsl(z[i * C + j] - m), 0);
            }
        }
    }
    result_free(&ri);
    result_free(&rc);
    for (int t = 0; t < 2; t++) free(x[t]), free(y[t]);
    cj_ctx_free(ctx);
}

/* Sums, max, min and products over rows: floats (a product of 1 + x/64)
 * and integers (sums wrap). */
static void g_reductions(cj_ctx *ctx, const cj_val *in, cj_val *out, int n_axes) {
    (void)n_axes;
    cj_val x = in[0];
    bool fl = cj_val_dtype(x) == CJ_F32 || cj_val_dtype(x) == CJ_F64;
    out[0] = cj_sum(cj_mul(x, fl ? cj_scalar(ctx, 3.0) : cj_scalar_int(ctx, 3)), 1, last_axis, 0);
    out[1] = cj_reduce_max(x, 1, last_axis, 0);
    out[2] = cj_reduce_min(x, 1, last_axis, 0);
    out[3] = fl ? cj_prod(cj_add(cj_scalar(ctx, 1.0), cj_div(x, cj_scalar(ctx, 64.0))), 1, last_axis, 0)
                : cj_prod(cj_sub(x, x), 1, last_axis, 0);
}

ROWS_TEST(native_rows_other_reductions_and_dtypes) {
    use_private_cache();
    cj_ctx *ctx = cj_ctx_new(NULL);
    static const cj_dtype dts[4] = {CJ_F32, CJ_F64, CJ_I32, CJ_I64};
    enum { ROWS = 5, N = 8 };
    groups g = {N, {0}, 1, 4, 1};
    double *xf[N];  /* float groups' values */
    int64_t *xi[N]; /* integer groups' values */
    cj_val in[N];
    for (int t = 0; t < N; t++) {
        cj_dtype dt = dts[t % 4];
        int64_t C = t < 4 ? 6 : 300, dims[2] = {ROWS, C};
        g.fn[t] = g_reductions;
        xf[t] = random_host(ROWS * C, 71 + (uint64_t)t, -1, 1);
        xi[t] = malloc(sizeof(int64_t) * (size_t)(ROWS * C));
        void *data = malloc((size_t)(ROWS * C) * 8);
        for (int64_t k = 0; k < ROWS * C; k++) {
            xi[t][k] = dt == CJ_I32 ? (int32_t)(xf[t][k] * 2e9) : (int64_t)(xf[t][k] * 4e18);
            if (dt == CJ_I32) ((int32_t *)data)[k] = (int32_t)xi[t][k];
            else ((int64_t *)data)[k] = xi[t][k];
        }
        in[t] = rt_is_float(dt) ? array_of(ctx, dt, 2, dims, xf[t]) : cj_array(ctx, dt, 2, dims, data);
        free(data);
    }
    result ri, rc;
    run_both(&g, in, 2, &ri, &rc); /* one kernel per row length, all four dtypes in it */
    for (int t = 0; t < N && !th_failed_now(); t++) {
        cj_dtype dt = dts[t % 4];
        int64_t C = t < 4 ? 6 : 300;
        double *const *v = ri.v + 4 * t;
        unsigned char *const *raw = ri.raw + 4 * t;
        for (int64_t i = 0; i < ROWS && !th_failed_now(); i++) {
            const int64_t *irow = xi[t] + i * C;
            const double *row = xf[t] + i * C;
            if (rt_is_float(dt)) {
                long double sum = 0, prod = 1;
                for (int64_t j = 0; j < C; j++) sum += 3.0L * row[j], prod *= 1 + row[j] / 64.0L;
                CHECK_ULPS(v[0][i], sum, dt, 2 * C, 3);
                CHECK_ULPS(v[1][i], row_max(row, C), dt, 0, 0);
                CHECK_ULPS(v[2][i], row_min(row, C), dt, 0, 0);
                CHECK_ULPS(v[3][i], prod, dt, 2 * C, 0);
                continue;
            }
            int64_t imax = INT64_MIN, imin = INT64_MAX;
            uint64_t wrap = 0; /* the integer sum modulo 2^64 */
            for (int64_t j = 0; j < C; j++) {
                wrap += (uint64_t)irow[j] * 3u;
                if (irow[j] > imax) imax = irow[j];
                if (irow[j] < imin) imin = irow[j];
            }
            if (dt == CJ_I32) {
                CHECK_EQ_INT(((int32_t *)raw[0])[i], (int32_t)(uint32_t)wrap);
                CHECK_EQ_INT(((int32_t *)raw[1])[i], imax);
                CHECK_EQ_INT(((int32_t *)raw[2])[i], imin);
                CHECK_EQ_INT(((int32_t *)raw[3])[i], 0);
            } else {
                CHECK_EQ_INT(((int64_t *)raw[0])[i], (int64_t)wrap);
                CHECK_EQ_INT(((int64_t *)raw[1])[i], imax);
                CHECK_EQ_INT(((int64_t *)raw[2])[i], imin);
                CHECK_EQ_INT(((int64_t *)raw[3])[i], 0);
            }
        }
    }
    result_free(&ri);
    result_free(&rc);
    for (int t = 0; t < N; t++) free(xf[t]), free(xi[t]);
    cj_ctx_free(ctx);
}

/* Less common statements in a rows kernel: an iota gathered per row, a
 * per-row buffer value broadcast across the row (one value read in place
 * per row) that is also a program output (a materialised leaf), a
 * comparison and a select inline, pow and clamp through the table with
 * rank-0 operands. */
static void g_mixed(cj_ctx *ctx, const cj_val *in, cj_val *out, int n_axes) {
    (void)n_axes;
    cj_val x = in[0], v = in[1];
    int64_t shape[2] = {cj_val_dim(x, 0), cj_val_dim(x, 1)};
    cj_val bv = cj_broadcast_to(cj_expand_dims(v, -1), 2, shape);
    cj_val z = cj_add(x, bv);
    cj_val w = cj_where(cj_gt(z, cj_scalar(ctx, 0.0)), z, cj_mul(z, cj_scalar(ctx, 0.25)));
    cj_val y = cj_clip(cj_pow(cj_add(cj_abs(w), cj_scalar(ctx, 1.0)), cj_scalar(ctx, 1.5)), 0.0, 3.0);
    cj_val s = cj_sum(cj_mul(y, cj_iota(ctx, cj_val_dtype(x), 2, shape, 1)), 1, last_axis, 1);
    out[0] = cj_div(y, s);
    out[1] = bv;
}

ROWS_TEST(native_rows_iota_repeated_leaf_select_and_calls) {
    use_private_cache();
    cj_ctx *ctx = cj_ctx_new(NULL);
    enum { R = 5 };
    static const int64_t lengths[2] = {50, 40};
    groups g = {2, {g_mixed, g_mixed}, 2, 2, 1};
    double *x[2], *v[2];
    cj_val in[4];
    for (int t = 0; t < 2; t++) {
        int64_t C = lengths[t], dims[2] = {R, C}, r = R;
        x[t] = random_host(R * C, 81 + (uint64_t)t, -2, 2);
        v[t] = random_host(R, 83 + (uint64_t)t, -1, 1);
        in[2 * t] = array_of(ctx, t ? CJ_F64 : CJ_F32, 2, dims, x[t]);
        in[2 * t + 1] = array_of(ctx, t ? CJ_F64 : CJ_F32, 1, &r, v[t]);
    }
    result ri, rc;
    run_both(&g, in, 2, &ri, &rc);
    for (int t = 0; t < 2 && !th_failed_now(); t++) {
        cj_dtype dt = t ? CJ_F64 : CJ_F32;
        int64_t C = lengths[t];
        for (int64_t i = 0; i < R && !th_failed_now(); i++) {
            long double y[50], s = 0;
            for (int64_t j = 0; j < C; j++) {
                long double z = (long double)x[t][i * C + j] + v[t][i];
                long double w = z > 0 ? z : z * 0.25L;
                y[j] = fminl(fmaxl(powl(fabsl(w) + 1, 1.5L), 0), 3);
                s += y[j] * j;
                CHECK_ULPS(ri.v[2 * t + 1][i * C + j], v[t][i], dt, 0, 0);
            }
            for (int64_t j = 0; j < C; j++) CHECK_ULPS(ri.v[2 * t][i * C + j], y[j] / s, dt, 16 + sqrt((double)C), 0);
        }
    }
    result_free(&ri);
    result_free(&rc);
    for (int t = 0; t < 2; t++) free(x[t]), free(v[t]);
    cj_ctx_free(ctx);
}

static void f_softmax(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_softmax(in[0], -1);
}

/* A donated input: softmax writes its output rows into x's buffer, so the
 * generated code may not treat their row pointers as restrict; the output
 * is the same as without donation. */
ROWS_TEST(native_rows_donated_input_becomes_output) {
    use_private_cache();
    cj_ctx *ctx = cj_ctx_new(NULL);
    enum { R = 64, C = 300 };
    int64_t dims[2] = {R, C};
    double *h = random_host(R * C, 91, -4, 4);
    float want[R * C], got[R * C];
    cj_val plain = array_of(ctx, CJ_F32, 2, dims, h), y;
    cj_jit_opts interp = {0, NULL, 0, NULL, CJ_BACKEND_INTERP};
    cj_func *jp = cj_jit(cj_func_new(ctx, "softmax", f_softmax, 1, 1, NULL), &interp);
    CHECK(cj_call(jp, &plain, &y) == CJ_OK);
    CHECK(cj_read(y, want, sizeof want) == CJ_OK);
    for (int b = 0; b < 2 && !th_failed_now(); b++) {
        static const int donate[1] = {0};
        cj_jit_opts o = {0, NULL, 1, donate, b ? CJ_BACKEND_CC : CJ_BACKEND_INTERP};
        cj_func *jf = cj_jit(cj_func_new(ctx, "softmax", f_softmax, 1, 1, NULL), &o);
        cj_val x = array_of(ctx, CJ_F32, 2, dims, h);
        cj_program_info info;
        CHECK(cj_jit_program_info(jf, &x, &info) == CJ_OK);
        CHECK(cj_call(jf, &x, &y) == CJ_OK);
        CHECK_STR_CONTAINS(cj_jit_last_donation(jf), "holds an output");
        CHECK(cj_read(y, got, sizeof got) == CJ_OK);
        CHECK(memcmp(got, want, sizeof got) == 0);
        if (b && have_compiler()) CHECK(info.native);
    }
    free(h);
    cj_ctx_free(ctx);
}

/* Allocation failure while preparing and running a ROWS program with
 * generated code (the generator's own tables included): a clean OOM or
 * success, nothing leaked. Every build after the first is a disk-cache
 * hit. */
ROWS_TEST(native_rows_allocation_failure_is_clean) {
    use_private_cache();
    int covered = 0;
    for (long long n = 1; n < 5000 && !covered; n++) {
        tu_alloc st = {0};
        st.fail_at = n;
        cj_allocator al = tu_allocator(&st);
        cj_ctx *ctx = cj_ctx_new(&al);
        if (ctx) {
            groups g = {1, {g_family}, 3, 4, 1};
            family_in f;
            cj_val in[3], y[4];
            int64_t dims[2] = {3, 40};
            make_family_in(ctx, CJ_F32, 2, dims, 7, -2, 2, &f, in);
            cj_jit_opts o = {0, NULL, 0, NULL, CJ_BACKEND_CC};
            cj_func *jf = cj_jit(cj_func_new(ctx, "rows", f_groups, 3, 4, &g), &o);
            cj_call(jf, in, y);
            int rc = cj_error(ctx);
            CHECK_MSG(rc == CJ_OK || rc == CJ_ERR_OOM, "allocation %lld: %s", n, cj_error_message(ctx));
            if (!st.failed) covered = 1;
            family_in_free(&f);
            cj_ctx_free(ctx);
        }
        CHECK_MSG(st.live == 0, "allocation %lld failing leaked %lld blocks", n, st.live);
    }
    CHECK(covered);
}
