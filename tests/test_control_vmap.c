/* test_control_vmap.c — vmap of cond, switch, while_loop, fori_loop and
 * scan against a C loop calling the unbatched construct on each example,
 * for every mix of batched and unbatched index / predicate, carries, xs
 * and closure values, under vmap, jit(vmap) and vmap(jit), with batch
 * sizes 0, 1 and several; and that a jitted vmap of a construct still
 * compiles to one kernel per construct. */
#include <stdlib.h>

#include "control/control.h" /* the count of records made, for the reuse test */
#include "harness.h"
#include "test_util.h"

#define MAX_IO 8

/* ---- the reference and the comparison ---- */
/* Example b of x along axis ax. */
static cj_val example_of(cj_val x, int64_t ax, int64_t b) {
    int r = cj_val_rank(x);
    int64_t start[8] = {0}, limit[8];
    for (int d = 0; d < r; d++) limit[d] = cj_val_dim(x, d);
    start[ax] = b;
    limit[ax] = b + 1;
    return cj_squeeze(cj_slice(x, start, limit, NULL), 1, &ax);
}

/* A per-example input of the right type, for finding output types when
 * the batch is empty. */
static cj_val zero_example(cj_ctx *ctx, cj_val x, int64_t ax) {
    int64_t dims[8];
    int r = 0;
    for (int d = 0; d < cj_val_rank(x); d++)
        if (d != ax) dims[r++] = cj_val_dim(x, d);
    return cj_zeros(ctx, cj_val_dtype(x), r, dims);
}

static int read_f64(cj_val v, double **out, int64_t *n) {
    *n = 1;
    for (int d = 0; d < cj_val_rank(v); d++) *n *= cj_val_dim(v, d);
    *out = malloc(sizeof(double) * (size_t)(*n + 1));
    return cj_read_as(v, CJ_F64, *out, sizeof(double) * (size_t)*n) == CJ_OK;
}

/* got (batched at 0) against want (one example), example b. */
static int same_example(cj_val got, int64_t b, cj_val want, char *why, size_t why_n) {
    cj_val g = example_of(got, 0, b);
    if (cj_val_rank(g) != cj_val_rank(want)) {
        snprintf(why, why_n, "rank %d vs %d", cj_val_rank(g), cj_val_rank(want));
        return 0;
    }
    for (int d = 0; d < cj_val_rank(g); d++)
        if (cj_val_dim(g, d) != cj_val_dim(want, d)) {
            snprintf(why, why_n, "dim %d: %lld vs %lld", d, (long long)cj_val_dim(g, d), (long long)cj_val_dim(want, d));
            return 0;
        }
    if (cj_val_dtype(g) != cj_val_dtype(want)) {
        snprintf(why, why_n, "dtype %d vs %d", (int)cj_val_dtype(g), (int)cj_val_dtype(want));
        return 0;
    }
    double *x, *y;
    int64_t n, m;
    int ok = read_f64(g, &x, &n) & read_f64(want, &y, &m);
    for (int64_t i = 0; i < n && ok; i++)
        if (!th_close(x[i], y[i], 1e-5, 1e-5)) {
            snprintf(why, why_n, "element %lld: %.9g vs %.9g", (long long)i, x[i], y[i]);
            ok = 0;
        }
    if (!ok && why[0] == 0) snprintf(why, why_n, "could not read");
    free(x);
    free(y);
    return ok;
}

enum { MODE_VMAP, MODE_JIT_VMAP, MODE_VMAP_JIT, MODE_VMAP_VMAP, N_MODES };
static const char *const mode_names[N_MODES] = {"vmap", "jit(vmap)", "vmap(jit)", "vmap(vmap) of one example"};

/* vmap(f) over `in` (mapped on in_axes, batch `size`) in every mode,
 * against f called on each example. Returns 1, or 0 with a message. */
static int check_modes(cj_ctx *ctx, cj_func *f, int n_in, int n_out, const cj_val *in, const int64_t *in_axes,
                       int64_t size, char *why, size_t why_n) {
    /* the reference: one unbatched call per example (types from a zero
     * example when the batch is empty) */
    cj_val want[64][MAX_IO];
    int64_t n_ref = size ? size : 1;
    for (int64_t b = 0; b < n_ref; b++) {
        cj_val args[MAX_IO];
        for (int i = 0; i < n_in; i++)
            args[i] = in_axes[i] == CJ_NOT_MAPPED ? in[i]
                      : size        ? example_of(in[i], in_axes[i], b)
                                    : zero_example(ctx, in[i], in_axes[i]);
        if (cj_call(f, args, want[b]) != CJ_OK) {
            snprintf(why, why_n, "reference call failed: %s", cj_error_message(ctx));
            return 0;
        }
    }
    for (int mode = 0; mode < N_MODES; mode++) {
        cj_vmap_opts vo = {in_axes, NULL, size, 1, 0};
        cj_func *g;
        cj_val got[MAX_IO];
        if (mode == MODE_VMAP) g = cj_vmap(f, &vo);
        else if (mode == MODE_JIT_VMAP) g = cj_jit(cj_vmap(f, &vo), NULL);
        else if (mode == MODE_VMAP_JIT) g = cj_vmap(cj_jit(f, NULL), &vo);
        else { /* an outer vmap of size 1 around the batched function */
            cj_val wrapped[MAX_IO];
            int64_t outer_axes[MAX_IO];
            for (int i = 0; i < n_in; i++) {
                wrapped[i] = cj_expand_dims(in[i], 0);
                outer_axes[i] = 0;
            }
            cj_vmap_opts ov = {outer_axes, NULL, 1, 1, 0};
            g = cj_vmap(cj_vmap(f, &vo), &ov);
            if (!g || cj_call(g, wrapped, got) != CJ_OK) {
                snprintf(why, why_n, "%s failed: %s", mode_names[mode], cj_error_message(ctx));
                return 0;
            }
            for (int j = 0; j < n_out; j++) got[j] = example_of(got[j], 0, 0);
            goto compare;
        }
        if (!g || cj_call(g, in, got) != CJ_OK) {
            snprintf(why, why_n, "%s failed: %s", mode_names[mode], cj_error_message(ctx));
            return 0;
        }
        /* a jitted function runs from its cache the second time */
        if (mode == MODE_JIT_VMAP && cj_call(g, in, got) != CJ_OK) {
            snprintf(why, why_n, "%s (cached) failed: %s", mode_names[mode], cj_error_message(ctx));
            return 0;
        }
    compare:
        for (int j = 0; j < n_out; j++) {
            if (cj_val_rank(got[j]) < 1 || cj_val_dim(got[j], 0) != size) {
                snprintf(why, why_n, "%s: output %d has no batch axis of %lld", mode_names[mode], j, (long long)size);
                return 0;
            }
            if (size == 0 && cj_val_rank(got[j]) != cj_val_rank(want[0][j]) + 1) {
                snprintf(why, why_n, "%s: output %d has rank %d for an example of rank %d", mode_names[mode], j,
                         cj_val_rank(got[j]), cj_val_rank(want[0][j]));
                return 0;
            }
            for (int64_t b = 0; b < size; b++) {
                char detail[200] = "";
                if (!same_example(got[j], b, want[b][j], detail, sizeof detail)) {
                    snprintf(why, why_n, "%s: output %d, example %lld: %s", mode_names[mode], j, (long long)b, detail);
                    return 0;
                }
            }
        }
    }
    return 1;
}

static cj_val rand_f32(cj_ctx *ctx, int rank, const int64_t *dims, uint64_t *rng) {
    int64_t n = 1;
    for (int i = 0; i < rank; i++) n *= dims[i];
    float *v = malloc(sizeof(float) * (size_t)(n + 1));
    for (int64_t i = 0; i < n; i++) v[i] = (float)th_rand_uniform(rng, -1, 1);
    cj_val a = cj_array(ctx, CJ_F32, rank, dims, v);
    free(v);
    return a;
}

static cj_val rand_i32(cj_ctx *ctx, int rank, const int64_t *dims, int lo, int hi, uint64_t *rng) {
    int64_t n = 1;
    for (int i = 0; i < rank; i++) n *= dims[i];
    int32_t *v = malloc(sizeof(int32_t) * (size_t)(n + 1));
    for (int64_t i = 0; i < n; i++) v[i] = lo + (int32_t)(th_rand_u64(rng) % (uint64_t)(hi - lo + 1));
    cj_val a = cj_array(ctx, CJ_I32, rank, dims, v);
    free(v);
    return a;
}

/* A batched input: the per-example shape with the batch axis inserted at
 * `axis`, or the per-example value itself when not mapped. */
static cj_val input_for(cj_ctx *ctx, int is_int, int rank, const int64_t *dims, int64_t axis, int64_t size, int lo,
                        int hi, uint64_t *rng) {
    int64_t full[8];
    int r = 0;
    for (int d = 0; d <= rank; d++) {
        if (axis != CJ_NOT_MAPPED && d == axis) full[r++] = size;
        if (d < rank) full[r++] = dims[d];
    }
    return is_int ? rand_i32(ctx, r, full, lo, hi, rng) : rand_f32(ctx, r, full, rng);
}

/* One of four inputs of a construct's test function: its type (an int in
 * [lo, hi] or floats) without the batch axis. */
typedef struct input_spec {
    int is_int, rank;
    int64_t dims[2];
    int lo, hi;
} input_spec;

/* An axis other than 0 for one input under one mapping mask. */
typedef struct odd_axis {
    int mask, input;
    int64_t axis;
} odd_axis;

/* Every mapping of the four inputs (mask bit i: input i mapped, on axis 0
 * unless an odd_axis says otherwise) at every batch size: check_modes
 * against the loop. Returns 0 with the reason in why at the first failure. */
static int sweep_mappings(cj_ctx *ctx, cj_func *f, int n_out, const input_spec *spec, const int64_t *sizes,
                          int n_sizes, const odd_axis *odd, int n_odd, uint64_t rng, char *why, size_t why_n) {
    for (int mask = 0; mask < 16; mask++)
        for (int s = 0; s < n_sizes; s++) {
            int64_t size = sizes[s], axes[4];
            cj_val in[4];
            for (int i = 0; i < 4; i++) axes[i] = mask >> i & 1 ? 0 : CJ_NOT_MAPPED;
            for (int o = 0; o < n_odd; o++)
                if (odd[o].mask == mask) axes[odd[o].input] = odd[o].axis;
            for (int i = 0; i < 4; i++)
                in[i] = input_for(ctx, spec[i].is_int, spec[i].rank, spec[i].dims, axes[i], size, spec[i].lo,
                                  spec[i].hi, &rng);
            if (!check_modes(ctx, f, 4, n_out, in, axes, size, why, why_n)) {
                size_t len = strlen(why);
                snprintf(why + len, why_n - len, " (mapped mask %d, size %lld)", mask, (long long)size);
                return 0;
            }
        }
    return 1;
}

/* ---- cond and switch ---- */
/* Branches read (x f32[3], y f32[]) and the closure value w f32[3]; they
 * return (f32[3], f32[], f32[]); output 2 reads only y. */
typedef struct cond_case {
    cj_func *branches[3];
    int n_branches;
    cj_val w;
} cond_case;

static void br_mul(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    const cond_case *c = user;
    out[0] = cj_add(cj_mul(in[0], c->w), in[1]);
    out[1] = cj_sum(in[0], -1, NULL, 0);
    out[2] = cj_add(in[1], cj_scalar(ctx, 1.0));
}
static void br_sin(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    out[0] = cj_sub(cj_sin(in[0]), in[1]);
    out[1] = cj_mul(in[1], in[1]);
    out[2] = cj_mul(in[1], cj_scalar(ctx, 3.0));
}
static void br_plain(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    out[0] = cj_mul(in[0], cj_scalar(ctx, 2.0));
    out[1] = in[1];
    out[2] = cj_neg(in[1]);
}

/* (index i32[], x f32[3], y f32[], w f32[3]) → the construct's outputs */
static void f_cond(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    cond_case *c = user;
    c->w = in[3];
    if (c->n_branches == 2) /* lax.cond on a bool predicate */
        cj_cond(cj_gt(in[0], cj_scalar_int(ctx, 0)), c->branches[1], c->branches[0], 2, in + 1, out);
    else
        cj_switch(in[0], c->n_branches, c->branches, 2, in + 1, out);
}

static int run_cond_case(int n_branches, char *why, size_t why_n) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cond_case c = {{NULL}, n_branches, {0}};
    c.branches[0] = cj_func_new(ctx, "mul", br_mul, 2, 3, &c);
    c.branches[1] = cj_func_new(ctx, "sin", br_sin, 2, 3, &c);
    c.branches[2] = cj_func_new(ctx, "plain", br_plain, 2, 3, &c);
    cj_func *f = cj_func_new(ctx, "f_cond", f_cond, 4, 3, &c);
    const int64_t sizes[3] = {0, 1, 4};
    const input_spec spec[4] = {/* index, x f32[3], y f32[], w f32[3] */
                                {1, 0, {0}, -1, n_branches}, {0, 1, {3}, 0, 0}, {0, 0, {0}, 0, 0}, {0, 1, {3}, 0, 0}};
    const odd_axis odd[1] = {{2, 1, 1}}; /* x mapped on its last axis */
    int ok = sweep_mappings(ctx, f, 3, spec, sizes, 3, odd, 1, 11, why, why_n);
    cj_ctx_free(ctx);
    return ok;
}

TEST(cf_vmap_cond_every_mapping) {
    char why[600] = "";
    CHECK_MSG(run_cond_case(2, why, sizeof why), "%s", why);
}

TEST(cf_vmap_switch_every_mapping) {
    char why[600] = "";
    CHECK_MSG(run_cond_case(3, why, sizeof why), "%s", why);
}

/* ---- while_loop ---- */
/* Carries (i i32[], x f32[2]); closure: the bound n (i32[]) for the
 * predicate, w (f32[2]) for the body. */
typedef struct while_case {
    cj_func *cond, *body;
    int on_x; /* the predicate reads x too */
    cj_val n, w;
} while_case;

static void w_cond(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    const while_case *c = user;
    cj_val p = cj_lt(in[0], c->n);
    if (c->on_x) p = cj_and(p, cj_lt(cj_sum(in[1], -1, NULL, 0), cj_scalar(ctx, 3.0)));
    out[0] = p;
}
static void w_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    const while_case *c = user;
    out[0] = cj_add(in[0], cj_scalar_int(ctx, 1));
    out[1] = cj_add(cj_mul(in[1], cj_scalar(ctx, 0.5)), cj_abs(c->w));
}
/* (i0 i32[], x0 f32[2], n i32[], w f32[2]) → (i, x) */
static void f_while(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    while_case *c = user;
    c->n = in[2];
    c->w = in[3];
    cj_while_loop(c->cond, c->body, 2, in, out);
}

static int run_while_case(int on_x, char *why, size_t why_n) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    while_case c = {NULL, NULL, on_x, {0}, {0}};
    c.cond = cj_func_new(ctx, "cond", w_cond, 2, 1, &c);
    c.body = cj_func_new(ctx, "body", w_body, 2, 2, &c);
    cj_func *f = cj_func_new(ctx, "f_while", f_while, 4, 2, &c);
    const int64_t sizes[3] = {0, 1, 5};
    const input_spec spec[4] = {/* i0 i32[], x0 f32[2], n i32[], w f32[2] */
                                {1, 0, {0}, -2, 2}, {0, 1, {2}, 0, 0}, {1, 0, {0}, 0, 6}, {0, 1, {2}, 0, 0}};
    int ok = sweep_mappings(ctx, f, 2, spec, sizes, 3, NULL, 0, 23, why, why_n);
    cj_ctx_free(ctx);
    return ok;
}

TEST(cf_vmap_while_counter_predicate) {
    char why[600] = "";
    CHECK_MSG(run_while_case(0, why, sizeof why), "%s", why);
}

TEST(cf_vmap_while_predicate_on_carries) {
    char why[600] = "";
    CHECK_MSG(run_while_case(1, why, sizeof why), "%s", why);
}

/* ---- scan and fori_loop ---- */
/* Carries (c f32[2], k f32[]); xs: x f32[L,2]; closure w f32[2].
 * Body: c' = c/2 + x*w, k' = k + 1; ys: sum(c') (batched with c, x or w),
 * 2x (with x only), k (with k only). */
typedef struct scan_case {
    cj_func *body;
    int reverse;
    cj_val w;
} scan_case;

static void s_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    const scan_case *c = user;
    cj_val next = cj_add(cj_mul(in[0], cj_scalar(ctx, 0.5)), cj_mul(in[2], c->w));
    out[0] = next;
    out[1] = cj_add(in[1], cj_scalar(ctx, 1.0));
    out[2] = cj_sum(next, -1, NULL, 0);
    out[3] = cj_mul(in[2], cj_scalar(ctx, 2.0));
    out[4] = in[1];
}
/* (c0 f32[2], k0 f32[], xs f32[L,2], w f32[2]) → (c, k, ys0, ys1, ys2) */
static void f_scan(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    scan_case *c = user;
    c->w = in[3];
    cj_scan_opts o = {0, 0, c->reverse};
    cj_scan(c->body, 2, in, 1, in + 2, &o, out, out + 2);
}

static int run_scan_case(int reverse, char *why, size_t why_n) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    scan_case c = {NULL, reverse, {0}};
    c.body = cj_func_new(ctx, "body", s_body, 3, 5, &c);
    cj_func *f = cj_func_new(ctx, "f_scan", f_scan, 4, 5, &c);
    const int64_t sizes[3] = {0, 1, 3};
    const input_spec spec[4] = {/* c0 f32[2], k0 f32[], xs f32[4,2], w f32[2] */
                                {0, 1, {2}, 0, 0}, {0, 0, {0}, 0, 0}, {0, 2, {4, 2}, 0, 0}, {0, 1, {2}, 0, 0}};
    const odd_axis odd[2] = {{4, 2, 1}, {5, 2, 2}}; /* xs mapped behind the scan axis */
    int ok = sweep_mappings(ctx, f, 5, spec, sizes, 3, odd, 2, 37, why, why_n);
    cj_ctx_free(ctx);
    return ok;
}

TEST(cf_vmap_scan_every_mapping) {
    char why[600] = "";
    CHECK_MSG(run_scan_case(0, why, sizeof why), "%s", why);
}

TEST(cf_vmap_scan_reverse) {
    char why[600] = "";
    CHECK_MSG(run_scan_case(1, why, sizeof why), "%s", why);
}

/* fori_loop: c = c*0.9 + w*i for i in [1, 5); c or w batched. */
static void fori_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    const cj_val *w = user;
    out[0] = cj_add(cj_mul(in[1], cj_scalar(ctx, 0.9)), cj_mul(*w, cj_astype(in[0], CJ_F32)));
}
static void f_fori(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    cj_val *w = user;
    *w = in[1];
    cj_func *body = cj_func_new(ctx, "fori_body", fori_body, 2, 1, w);
    cj_fori_loop(1, 5, body, 1, in, out);
}

TEST(cf_vmap_fori_loop) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val w;
    cj_func *f = cj_func_new(ctx, "f_fori", f_fori, 2, 1, &w);
    uint64_t rng = 5;
    const int64_t dims[1] = {3};
    char why[600] = "";
    for (int mask = 1; mask < 4; mask++) {
        int64_t axes[2] = {mask & 1 ? 0 : CJ_NOT_MAPPED, mask & 2 ? 0 : CJ_NOT_MAPPED};
        cj_val in[2] = {input_for(ctx, 0, 1, dims, axes[0], 3, 0, 0, &rng),
                        input_for(ctx, 0, 1, dims, axes[1], 3, 0, 0, &rng)};
        CHECK_MSG(check_modes(ctx, f, 2, 1, in, axes, 3, why, sizeof why), "%s (mask %d)", why, mask);
    }
    cj_ctx_free(ctx);
}

/* ---- compiled form ---- */
/* In a fuse dump: the kernels holding equations of `prim`, and those
 * equations. */
static void count_construct(const char *dump, const char *prim, int *kernels, int *eqns) {
    char needle[64];
    snprintf(needle, sizeof needle, " = %s ", prim);
    *kernels = *eqns = 0;
    const char *k = strstr(dump, "  kernel ");
    while (k) {
        const char *next = strstr(k + 1, "  kernel ");
        int here = 0;
        for (const char *p = k; (p = strstr(p, needle)) && (!next || p < next); p++) here++;
        *kernels += here > 0;
        *eqns += here;
        k = next;
    }
}

/* The results the first equation of `prim` in a fuse dump defines (the
 * typed names before its " = "). */
static int construct_results(const char *dump, const char *prim) {
    char needle[64];
    snprintf(needle, sizeof needle, " = %s ", prim);
    const char *p = strstr(dump, needle);
    if (!p) return 0;
    const char *line = p;
    while (line > dump && line[-1] != '\n') line--;
    int n = 0;
    for (const char *q = line; q < p; q++) n += *q == ':';
    return n;
}

/* jit(vmap(f)): each construct is one equation of all its outputs, in one
 * kernel. */
static int one_kernel(cj_ctx *ctx, cj_func *f, const cj_val *in, const int64_t *axes, const char *prim, int n_out,
                      char *why, size_t why_n) {
    cj_vmap_opts vo = {axes, NULL, 0, 0, 0};
    cj_func *g = cj_jit(cj_vmap(f, &vo), NULL);
    char *dump = cj_jit_dump(g, in, "fuse");
    if (!dump) {
        snprintf(why, why_n, "no dump: %s", cj_error_message(ctx));
        return 0;
    }
    int kernels, eqns;
    count_construct(dump, prim, &kernels, &eqns);
    int results = construct_results(dump, prim);
    int ok = kernels == 1 && eqns == 1 && results == n_out;
    if (!ok)
        snprintf(why, why_n, "%d kernels holding %d %s equations of %d results (want 1 holding 1 of %d):\n%s", kernels,
                 eqns, prim, results, n_out, dump);
    cj_string_free(ctx, dump);
    return ok;
}

TEST(cf_vmap_jit_scan_is_one_kernel) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    scan_case c = {NULL, 0, {0}};
    c.body = cj_func_new(ctx, "body", s_body, 3, 5, &c);
    cj_func *f = cj_func_new(ctx, "f_scan", f_scan, 4, 5, &c);
    uint64_t rng = 3;
    const int64_t c_dims[1] = {2}, xs_dims[2] = {4, 2};
    int64_t axes[4] = {0, CJ_NOT_MAPPED, 1, 0};
    cj_val in[4] = {input_for(ctx, 0, 1, c_dims, 0, 3, 0, 0, &rng), input_for(ctx, 0, 0, NULL, CJ_NOT_MAPPED, 3, 0, 0, &rng),
                    input_for(ctx, 0, 2, xs_dims, 1, 3, 0, 0, &rng), input_for(ctx, 0, 1, c_dims, 0, 3, 0, 0, &rng)};
    char why[4000] = "";
    CHECK_MSG(one_kernel(ctx, f, in, axes, "scan", 5, why, sizeof why), "%s", why);
    cj_ctx_free(ctx);
}

TEST(cf_vmap_jit_while_is_one_kernel) {
    for (int pred_batched = 0; pred_batched < 2; pred_batched++) {
        cj_ctx *ctx = cj_ctx_new(NULL);
        while_case c = {NULL, NULL, 0, {0}, {0}};
        c.cond = cj_func_new(ctx, "cond", w_cond, 2, 1, &c);
        c.body = cj_func_new(ctx, "body", w_body, 2, 2, &c);
        cj_func *f = cj_func_new(ctx, "f_while", f_while, 4, 2, &c);
        uint64_t rng = 8;
        const int64_t x_dims[1] = {2};
        int64_t axes[4] = {CJ_NOT_MAPPED, 0, pred_batched ? 0 : CJ_NOT_MAPPED, CJ_NOT_MAPPED};
        cj_val in[4] = {input_for(ctx, 1, 0, NULL, axes[0], 4, 0, 0, &rng), input_for(ctx, 0, 1, x_dims, 0, 4, 0, 0, &rng),
                        input_for(ctx, 1, 0, NULL, axes[2], 4, 0, 5, &rng),
                        input_for(ctx, 0, 1, x_dims, CJ_NOT_MAPPED, 4, 0, 0, &rng)};
        char why[4000] = "";
        CHECK_MSG(one_kernel(ctx, f, in, axes, "while", 2, why, sizeof why), "%s (predicate batched: %d)", why,
                  pred_batched);
        cj_ctx_free(ctx);
    }
}

TEST(cf_vmap_jit_switch_is_one_kernel) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cond_case c = {{NULL}, 3, {0}};
    c.branches[0] = cj_func_new(ctx, "mul", br_mul, 2, 3, &c);
    c.branches[1] = cj_func_new(ctx, "sin", br_sin, 2, 3, &c);
    c.branches[2] = cj_func_new(ctx, "plain", br_plain, 2, 3, &c);
    cj_func *f = cj_func_new(ctx, "f_cond", f_cond, 4, 3, &c);
    uint64_t rng = 9;
    const int64_t x_dims[1] = {3};
    int64_t axes[4] = {CJ_NOT_MAPPED, 0, 0, CJ_NOT_MAPPED};
    cj_val in[4] = {cj_scalar_typed(ctx, 1, CJ_I32), input_for(ctx, 0, 1, x_dims, 0, 4, 0, 0, &rng),
                    input_for(ctx, 0, 0, NULL, 0, 4, 0, 0, &rng), input_for(ctx, 0, 1, x_dims, CJ_NOT_MAPPED, 4, 0, 0, &rng)};
    char why[4000] = "";
    CHECK_MSG(one_kernel(ctx, f, in, axes, "cond", 3, why, sizeof why), "%s", why);
    cj_ctx_free(ctx);
}

/* A batched index leaves no construct: every branch runs, then a select. */
TEST(cf_vmap_switch_batched_index_selects) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cond_case c = {{NULL}, 3, {0}};
    c.branches[0] = cj_func_new(ctx, "mul", br_mul, 2, 3, &c);
    c.branches[1] = cj_func_new(ctx, "sin", br_sin, 2, 3, &c);
    c.branches[2] = cj_func_new(ctx, "plain", br_plain, 2, 3, &c);
    cj_func *f = cj_func_new(ctx, "f_cond", f_cond, 4, 3, &c);
    uint64_t rng = 10;
    const int64_t x_dims[1] = {3};
    int64_t axes[4] = {0, 0, CJ_NOT_MAPPED, CJ_NOT_MAPPED};
    cj_val in[4] = {input_for(ctx, 1, 0, NULL, 0, 4, -1, 3, &rng), input_for(ctx, 0, 1, x_dims, 0, 4, 0, 0, &rng),
                    input_for(ctx, 0, 0, NULL, CJ_NOT_MAPPED, 4, 0, 0, &rng),
                    input_for(ctx, 0, 1, x_dims, CJ_NOT_MAPPED, 4, 0, 0, &rng)};
    cj_vmap_opts vo = {axes, NULL, 0, 0, 0};
    char *dump = cj_jit_dump(cj_jit(cj_vmap(f, &vo), NULL), in, "simplify");
    CHECK_MSG(dump, "%s", cj_error_message(ctx));
    int has_cond = strstr(dump, " = cond ") != NULL, has_select = strstr(dump, "select_n") != NULL;
    cj_string_free(ctx, dump);
    CHECK(!has_cond);
    CHECK(has_select);
    cj_ctx_free(ctx);
}

/* vmap(jit(f)) called again re-binds the cached program: the batched
 * construct made the first time is reused (no new records, no new
 * compilation of its bodies). */
TEST(cf_vmap_reuses_batched_record) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    scan_case c = {NULL, 0, {0}};
    c.body = cj_func_new(ctx, "body", s_body, 3, 5, &c);
    cj_func *f = cj_func_new(ctx, "f_scan", f_scan, 4, 5, &c);
    uint64_t rng = 4;
    const int64_t c_dims[1] = {2}, xs_dims[2] = {4, 2};
    int64_t axes[4] = {0, CJ_NOT_MAPPED, 0, CJ_NOT_MAPPED};
    cj_val in[4] = {input_for(ctx, 0, 1, c_dims, 0, 3, 0, 0, &rng), input_for(ctx, 0, 0, NULL, CJ_NOT_MAPPED, 3, 0, 0, &rng),
                    input_for(ctx, 0, 2, xs_dims, 0, 3, 0, 0, &rng),
                    input_for(ctx, 0, 1, c_dims, CJ_NOT_MAPPED, 3, 0, 0, &rng)};
    cj_vmap_opts vo = {axes, NULL, 0, 0, 0};
    cj_func *g = cj_vmap(cj_jit(f, NULL), &vo);
    cj_val out[5];
    CHECK(cj_call(g, in, out) == CJ_OK);
    long records = cf_records_made_for_testing();
    for (int again = 0; again < 2; again++) {
        CHECK(cj_call(g, in, out) == CJ_OK);
        CHECK_EQ_INT(cf_records_made_for_testing(), records);
    }
    cj_ctx_free(ctx);
}

/* ---- nesting ---- */
/* scan whose body branches on its carry (a batched predicate inside a
 * batched scan), and a cond whose branch runs a fori_loop. */
typedef struct nest_case {
    cj_func *up, *down, *step, *loop_branch, *plain_branch, *fori_body;
} nest_case;

static void n_up(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    out[0] = cj_sub(in[0], cj_mul(in[1], cj_scalar(ctx, 0.5)));
}
static void n_down(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    out[0] = cj_add(in[0], cj_mul(in[1], cj_scalar(ctx, 2.0)));
}
static void n_step(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) { /* (c, x) → (c', c') */
    const nest_case *c = user;
    cj_val next;
    cj_cond(cj_gt(in[0], cj_scalar(ctx, 0.0)), c->up, c->down, 2, in, &next);
    out[0] = next;
    out[1] = next;
}
static void n_fori_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    out[0] = cj_add(cj_mul(in[1], cj_scalar(ctx, 0.75)), cj_astype(in[0], CJ_F32));
}
static void n_loop_branch(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    const nest_case *c = user;
    cj_fori_loop(0, 3, c->fori_body, 1, in, out);
}
static void n_plain_branch(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    out[0] = cj_mul(in[0], cj_scalar(ctx, -1.0));
}
/* (c0 f32[], xs f32[5], k i32[]) → (final c, cs, cond(k > 0, fori(c), -c)) */
static void f_nest(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    const nest_case *c = user;
    cj_val carry, ys;
    cj_scan(c->step, 1, in, 1, in + 1, NULL, &carry, &ys);
    out[0] = carry;
    out[1] = ys;
    cj_cond(cj_gt(in[2], cj_scalar_int(ctx, 0)), c->loop_branch, c->plain_branch, 1, &carry, out + 2);
}

TEST(cf_vmap_nested_constructs) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    nest_case c;
    c.up = cj_func_new(ctx, "up", n_up, 2, 1, &c);
    c.down = cj_func_new(ctx, "down", n_down, 2, 1, &c);
    c.step = cj_func_new(ctx, "step", n_step, 2, 2, &c);
    c.fori_body = cj_func_new(ctx, "fori_body", n_fori_body, 2, 1, &c);
    c.loop_branch = cj_func_new(ctx, "loop", n_loop_branch, 1, 1, &c);
    c.plain_branch = cj_func_new(ctx, "plain", n_plain_branch, 1, 1, &c);
    cj_func *f = cj_func_new(ctx, "f_nest", f_nest, 3, 3, &c);
    uint64_t rng = 77;
    const int64_t xs_dims[1] = {5};
    char why[600] = "";
    for (int mask = 1; mask < 8; mask++) {
        int64_t axes[3];
        for (int i = 0; i < 3; i++) axes[i] = mask >> i & 1 ? 0 : CJ_NOT_MAPPED;
        cj_val in[3] = {input_for(ctx, 0, 0, NULL, axes[0], 4, 0, 0, &rng),
                        input_for(ctx, 0, 1, xs_dims, axes[1], 4, 0, 0, &rng),
                        input_for(ctx, 1, 0, NULL, axes[2], 4, -1, 1, &rng)};
        CHECK_MSG(check_modes(ctx, f, 3, 3, in, axes, 4, why, sizeof why), "%s (mask %d)", why, mask);
    }
    cj_ctx_free(ctx);
}
