/* test_vmap.c — vmap against a C loop of the function over slices,
 * stacked along out_axes, for a table of programs and in_axes
 * combinations (batch sizes 0, 1 and more), nesting with itself and jit,
 * chunking, and the error cases. */
#include <stdlib.h>

#include "harness.h"
#include "test_util.h"

/* The reference: loop over the batch, slice each mapped input, call f,
 * stack the results along out_axis. */
static cj_val loop_reference(cj_func *f, int n_in, const cj_val *in, const int64_t *in_axes,
                             int64_t out_axis, int64_t size) {
    cj_val parts[64];
    for (int64_t b = 0; b < size; b++) {
        cj_val args[8];
        for (int i = 0; i < n_in; i++) {
            if (in_axes[i] == CJ_NOT_MAPPED) {
                args[i] = in[i];
                continue;
            }
            int r = cj_val_rank(in[i]);
            int64_t ax = in_axes[i] < 0 ? in_axes[i] + r : in_axes[i];
            int64_t start[8] = {0}, limit[8];
            for (int d = 0; d < r; d++) limit[d] = cj_val_dim(in[i], d);
            start[ax] = b;
            limit[ax] = b + 1;
            args[i] = cj_squeeze(cj_slice(in[i], start, limit, NULL), 1, &ax);
        }
        cj_val y;
        cj_call(f, args, &y);
        parts[b] = cj_expand_dims(y, out_axis);
    }
    return cj_concatenate((int)size, parts, out_axis);
}

static int same_array(cj_val a, cj_val b, double tol) {
    if (cj_val_rank(a) != cj_val_rank(b)) return 0;
    for (int d = 0; d < cj_val_rank(a); d++)
        if (cj_val_dim(a, d) != cj_val_dim(b, d)) return 0;
    int64_t n = cj_val_size(a);
    double *x = malloc(sizeof(double) * (size_t)(n + 1)), *y = malloc(sizeof(double) * (size_t)(n + 1));
    cj_read_as(a, CJ_F64, x, sizeof(double) * (size_t)n);
    cj_read_as(b, CJ_F64, y, sizeof(double) * (size_t)n);
    int ok = 1;
    for (int64_t i = 0; i < n && ok; i++) ok = th_close(x[i], y[i], tol, tol);
    free(x);
    free(y);
    return ok;
}

static cj_val rand_array(cj_ctx *ctx, int rank, const int64_t *dims, uint64_t *rng) {
    int64_t n = 1;
    for (int i = 0; i < rank; i++) n *= dims[i];
    float *v = malloc(sizeof(float) * (size_t)(n + 1));
    for (int64_t i = 0; i < n; i++) v[i] = (float)th_rand_uniform(rng, -1, 1);
    cj_val a = cj_array(ctx, CJ_F32, rank, dims, v);
    free(v);
    return a;
}

/* ---- programs (per example) ---- */
static void p_ew(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) { /* x[3,4], y[3,4] */
    (void)u;
    out[0] = cj_add(cj_mul(cj_sin(in[0]), in[1]), cj_scalar(ctx, 2.0));
}
static void p_bcast(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) { /* x[3,4], b[4] */
    (void)u, (void)ctx;
    out[0] = cj_where(cj_gt(in[0], in[1]), in[0], cj_neg(in[1]));
}
static void p_softmax(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) { /* x[3,4] */
    (void)u, (void)ctx;
    out[0] = cj_softmax(in[0], -1);
}
static void p_matvec(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) { /* W[4,3], x[3] */
    (void)u, (void)ctx;
    out[0] = cj_matmul(in[0], in[1]);
}
static void p_movement(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) { /* x[3,4] */
    (void)u;
    cj_val t = cj_transpose(in[0], NULL);                                        /* [4,3] */
    cj_val s = cj_slice(t, (int64_t[]){1, 0}, (int64_t[]){4, 3}, NULL);          /* [3,3] */
    cj_val p = cj_pad(s, cj_scalar_typed(ctx, 0.5, CJ_F32), (int64_t[]){1, 0}, (int64_t[]){0, 1}, NULL); /* [4,4] */
    cj_val r = cj_reshape(in[0], 2, (int64_t[]){4, 3});
    cj_val c = cj_concatenate(2, (cj_val[]){p, cj_rev(r, 1, (int64_t[]){0})}, 1); /* [4,7] */
    out[0] = cj_cumsum(c, 1, 0);
}
static void p_reduce(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) { /* x[3,4] */
    (void)u;
    int64_t ax0 = 0;
    cj_val m = cj_reduce_max(in[0], 1, &ax0, 0); /* [4] */
    cj_val a = cj_astype(cj_argmin(in[0], 0, 0), CJ_F32);
    out[0] = cj_add(cj_add(m, a), cj_mul(cj_sum(in[0], -1, NULL, 0), cj_scalar(ctx, 0.1)));
}
static void p_take(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) { /* x[3,4] */
    (void)u;
    int32_t idx[3] = {2, 0, 3};
    int64_t n = 3;
    cj_val i = cj_array(ctx, CJ_I32, 1, &n, idx);
    out[0] = cj_take(in[0], i, 1);
}
static void p_scale(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) { /* x[3,4], s[] */
    (void)u, (void)ctx;
    out[0] = cj_mul(in[0], in[1]);
}

typedef struct vcase {
    const char *name;
    cj_fn fn;
    int n_in;
    int ranks[2];
    int64_t dims[2][2]; /* per-example shapes */
} vcase;

static const vcase cases[] = {
    {"elementwise", p_ew, 2, {2, 2}, {{3, 4}, {3, 4}}},
    {"broadcast_where", p_bcast, 2, {2, 1}, {{3, 4}, {4}}},
    {"softmax", p_softmax, 1, {2}, {{3, 4}}},
    {"matvec", p_matvec, 2, {2, 1}, {{4, 3}, {3}}},
    {"movement", p_movement, 1, {2}, {{3, 4}}},
    {"reduce", p_reduce, 1, {2}, {{3, 4}}},
    {"take", p_take, 1, {2}, {{3, 4}}},
    {"scale", p_scale, 2, {2, 0}, {{3, 4}, {0}}},
};

/* Batched input for per-example shape `dims` with the batch axis at `ax`. */
static cj_val batched_input(cj_ctx *ctx, int rank, const int64_t *dims, int64_t ax, int64_t size, uint64_t *rng) {
    int64_t bd[8];
    for (int d = 0, k = 0; d <= rank; d++) bd[d] = d == ax ? size : dims[k++];
    return rand_array(ctx, rank + 1, bd, rng);
}

TEST(vmap_matches_loop_for_program_table) {
    uint64_t rng = 11;
    int64_t sizes[3] = {5, 1, 0};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const vcase *vc = &cases[c];
        /* in_axes combinations: all 0; last axis / not mapped; mixed */
        for (int combo = 0; combo < 3; combo++) {
            for (int si = 0; si < 3; si++) {
                cj_ctx *ctx = cj_ctx_new(NULL);
                int64_t size = sizes[si], in_axes[2], ax_pos[2];
                cj_val in[2];
                for (int i = 0; i < vc->n_in; i++) {
                    int r = vc->ranks[i];
                    if (combo == 0) in_axes[i] = 0;
                    else if (combo == 1) in_axes[i] = i == 0 ? -1 : CJ_NOT_MAPPED;
                    else in_axes[i] = i == 0 ? (r >= 1 ? 1 : 0) : 0;
                    if (in_axes[i] == CJ_NOT_MAPPED) {
                        in[i] = rand_array(ctx, r, vc->dims[i], &rng);
                        continue;
                    }
                    ax_pos[i] = in_axes[i] < 0 ? in_axes[i] + r + 1 : in_axes[i];
                    in[i] = batched_input(ctx, r, vc->dims[i], ax_pos[i], size, &rng);
                }
                int64_t out_axis = combo == 2 ? 1 : 0;
                cj_func *f = cj_func_new(ctx, vc->name, vc->fn, vc->n_in, 1, NULL);
                cj_vmap_opts o = {in_axes, &out_axis, 0, 0, 0};
                cj_func *vf = cj_vmap(f, &o);
                cj_val got;
                cj_status st = cj_call(vf, in, &got);
                CHECK_MSG(st == CJ_OK, "%s combo %d size %lld: %s", vc->name, combo, (long long)size,
                          cj_error_message(ctx));
                cj_val want = size ? loop_reference(f, vc->n_in, in, in_axes, out_axis, size) : got;
                CHECK_MSG(cj_error(ctx) == CJ_OK, "%s reference: %s", vc->name, cj_error_message(ctx));
                if (size == 0) {
                    CHECK(cj_val_size(got) == 0);
                    CHECK_EQ_INT(cj_val_dim(got, out_axis), 0);
                } else {
                    char t1[64], t2[64];
                    CHECK_MSG(same_array(got, want, 1e-5), "%s combo %d size %lld: %s vs %s", vc->name, combo,
                              (long long)size, cj_val_type_str(got, t1, sizeof t1), cj_val_type_str(want, t2, sizeof t2));
                }
                cj_ctx_free(ctx);
            }
        }
    }
}

static void p_dotpair(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) { /* a[6], b[6] */
    (void)u, (void)ctx;
    cj_val d = cj_dot_general(in[0], in[1], 1, (int64_t[]){0}, (int64_t[]){0}, 0, NULL, NULL);
    out[0] = cj_sqrt(cj_abs(d));
}

TEST(vmap_per_example_dots_have_no_loop) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t rng = 3;
    cj_val a = rand_array(ctx, 2, (int64_t[]){7, 6}, &rng), b = rand_array(ctx, 2, (int64_t[]){6, 7}, &rng);
    cj_func *f = cj_func_new(ctx, "dotpair", p_dotpair, 2, 1, NULL);
    int64_t axes[2] = {0, 1};
    cj_vmap_opts o = {axes, NULL, 0, 0, 0};
    cj_func *vf = cj_vmap(f, &o);
    cj_val in[2] = {a, b}, got;
    CHECK(cj_call(vf, in, &got) == CJ_OK);
    cj_val want = loop_reference(f, 2, in, axes, 0, 7);
    CHECK(same_array(got, want, 1e-6));
    /* traced, a batch of vector dots is one multiply and one row sum */
    cj_spec specs[2] = {cj_spec_of(a), cj_spec_of(b)};
    char *text = cj_make_jaxpr(vf, 2, specs);
    CHECK(text);
    CHECK_MSG(strstr(text, "mul") && strstr(text, "reduce_sum[axes=(1,)]") && !strstr(text, "dot_general"), "%s", text);
    cj_string_free(ctx, text);
    /* per-example matrix · vector: the batch becomes a dot_general batch
     * dimension, not a loop */
    cj_val w = rand_array(ctx, 3, (int64_t[]){7, 4, 3}, &rng), v = rand_array(ctx, 2, (int64_t[]){3, 7}, &rng);
    cj_func *mv = cj_func_new(ctx, "matvec", p_matvec, 2, 1, NULL);
    int64_t mv_axes[2] = {0, 1};
    cj_vmap_opts mo = {mv_axes, NULL, 0, 0, 0};
    cj_val mv_in[2] = {w, v};
    CHECK(cj_call(cj_vmap(mv, &mo), mv_in, &got) == CJ_OK);
    CHECK(same_array(got, loop_reference(mv, 2, mv_in, mv_axes, 0, 7), 1e-6));
    cj_spec mspecs[2] = {cj_spec_of(w), cj_spec_of(v)};
    text = cj_make_jaxpr(cj_vmap(mv, &mo), 2, mspecs);
    CHECK(text);
    CHECK_MSG(strstr(text, "dot_general[dimension_numbers=(([2], [0]), ([0], [1]))") != NULL, "%s", text);
    cj_string_free(ctx, text);
    cj_ctx_free(ctx);
}

TEST(vmap_nests_and_composes_with_jit) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t rng = 5;
    cj_val x = rand_array(ctx, 4, (int64_t[]){2, 3, 3, 4}, &rng); /* batch 2 x batch 3 of [3,4] */
    cj_func *f = cj_func_new(ctx, "softmax", p_softmax, 1, 1, NULL);
    int64_t ax1 = 1, ax0 = 0;
    cj_vmap_opts inner = {&ax1, &ax1, 0, 0, 0}, outer = {&ax0, &ax0, 0, 0, 0};
    cj_func *vv = cj_vmap(cj_vmap(f, &inner), &outer);
    cj_val got;
    CHECK(cj_call(vv, &x, &got) == CJ_OK);
    /* reference: a double loop */
    cj_val rows[2];
    for (int i = 0; i < 2; i++) {
        cj_val xi = cj_squeeze(cj_slice(x, (int64_t[]){i, 0, 0, 0}, (int64_t[]){i + 1, 3, 3, 4}, NULL), 1, &ax0);
        cj_val cols[3];
        for (int j = 0; j < 3; j++) {
            cj_val xij = cj_squeeze(cj_slice(xi, (int64_t[]){0, j, 0}, (int64_t[]){3, j + 1, 4}, NULL), 1, &ax1);
            cj_val y;
            cj_call(f, &xij, &y);
            cols[j] = cj_expand_dims(y, 1);
        }
        rows[i] = cj_expand_dims(cj_concatenate(3, cols, 1), 0);
    }
    cj_val want = cj_concatenate(2, rows, 0);
    CHECK(same_array(got, want, 1e-6));
    /* vmap(jit(f)) re-binds the cached IR: f is traced once per shape */
    cj_func *jf = cj_jit(f, NULL);
    cj_func *vj = cj_vmap(jf, NULL);
    cj_val x2 = rand_array(ctx, 3, (int64_t[]){5, 3, 4}, &rng), y1, y2, y3;
    CHECK(cj_call(vj, &x2, &y1) == CJ_OK);
    CHECK(cj_call(vj, &x2, &y2) == CJ_OK);
    cj_jit_stats st;
    cj_jit_stats_get(jf, &st);
    CHECK_EQ_INT(st.traces, 1);
    /* jit(vmap(f)) compiles one batched program with the same results */
    cj_func *jv = cj_jit(cj_vmap(f, NULL), NULL);
    CHECK(cj_call(jv, &x2, &y3) == CJ_OK);
    CHECK(same_array(y1, y3, 1e-6) && same_array(y1, y2, 0));
    cj_ctx_free(ctx);
}

TEST(vmap_chunked_equals_unchunked) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t rng = 9;
    cj_val x = rand_array(ctx, 3, (int64_t[]){37, 3, 4}, &rng), y = rand_array(ctx, 3, (int64_t[]){37, 3, 4}, &rng);
    cj_func *f = cj_func_new(ctx, "ew", p_ew, 2, 1, NULL);
    int64_t out_axis = 2;
    cj_vmap_opts plain = {NULL, &out_axis, 0, 0, 0}, chunked = {NULL, &out_axis, 0, 0, 8};
    cj_val in[2] = {x, y}, a, b;
    CHECK(cj_call(cj_vmap(f, &plain), in, &a) == CJ_OK);
    CHECK(cj_call(cj_vmap(f, &chunked), in, &b) == CJ_OK);
    CHECK_EQ_INT(cj_val_dim(b, 2), 37);
    CHECK(same_array(a, b, 0));
    cj_ctx_free(ctx);
}

static void p_const(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u, (void)in;
    out[0] = cj_full(ctx, 3.0, CJ_F32, 1, (int64_t[]){2});
}

TEST(vmap_errors_are_clear) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t rng = 1;
    cj_val a = rand_array(ctx, 2, (int64_t[]){3, 4}, &rng), b = rand_array(ctx, 1, (int64_t[]){5}, &rng), y;
    cj_func *f = cj_func_new(ctx, "ew", p_ew, 2, 1, NULL);
    cj_val in[2] = {a, b};
    CHECK(cj_call(cj_vmap(f, NULL), in, &y) == CJ_ERR_SHAPE);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "inconsistent sizes");
    CHECK_STR_CONTAINS(cj_error_message(ctx), "argument 0 of type f32[3,4] has size 3 along axis 0");
    CHECK_STR_CONTAINS(cj_error_message(ctx), "argument 1 of type f32[5] has size 5 along axis 0");
    cj_error_clear(ctx);
    int64_t bad[2] = {2, 0};
    cj_vmap_opts o = {bad, NULL, 0, 0, 0};
    CHECK(cj_call(cj_vmap(f, &o), in, &y) == CJ_ERR_AXIS);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "in_axes[0] = 2 is out of range");
    cj_error_clear(ctx);
    /* nothing mapped: axis_size is required, then used */
    int64_t none[1] = {CJ_NOT_MAPPED};
    cj_func *g = cj_func_new(ctx, "const", p_const, 1, 1, NULL);
    cj_vmap_opts o2 = {none, NULL, 0, 0, 0};
    CHECK(cj_call(cj_vmap(g, &o2), &a, &y) == CJ_ERR_ARG);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "axis_size");
    cj_error_clear(ctx);
    cj_vmap_opts o3 = {none, NULL, 4, 1, 0};
    CHECK(cj_call(cj_vmap(g, &o3), &a, &y) == CJ_OK);
    CHECK_EQ_INT(cj_val_dim(y, 0), 4);
    /* an output said to be unmapped that depends on the batch */
    int64_t out_none = CJ_NOT_MAPPED;
    cj_vmap_opts o4 = {NULL, &out_none, 0, 0, 0};
    cj_val in2[2] = {a, a};
    CHECK(cj_call(cj_vmap(f, &o4), in2, &y) == CJ_ERR_ARG);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "out_axes[0]");
    cj_ctx_free(ctx);
}

/* dynamic slices with per-example start indices */
static void p_dslice(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) { /* x[6,5], i[], j[] */
    (void)u, (void)ctx;
    cj_val starts[2] = {in[1], in[2]};
    out[0] = cj_dynamic_slice(in[0], starts, (int64_t[]){3, 2});
}
static void p_dupdate(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) { /* x[6,5], up[2,3], i[], j[] */
    (void)u, (void)ctx;
    cj_val starts[2] = {in[2], in[3]};
    out[0] = cj_dynamic_update_slice(in[0], in[1], starts);
}

TEST(vmap_dynamic_slices_with_batched_indices) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t rng = 21;
    int64_t B = 6;
    cj_val x = rand_array(ctx, 3, (int64_t[]){B, 6, 5}, &rng), up = rand_array(ctx, 3, (int64_t[]){B, 2, 3}, &rng);
    int32_t iv[6] = {0, 2, 5, -1, 3, 4}, jv[6] = {4, 0, 1, 3, 9, 2}; /* some clamp */
    cj_val i = cj_array(ctx, CJ_I32, 1, &B, iv), j = cj_array(ctx, CJ_I32, 1, &B, jv);
    cj_func *fs = cj_func_new(ctx, "dslice", p_dslice, 3, 1, NULL);
    cj_val in3[3] = {x, i, j}, got, want;
    int64_t axes3[3] = {0, 0, 0};
    CHECK(cj_call(cj_vmap(fs, NULL), in3, &got) == CJ_OK);
    want = loop_reference(fs, 3, in3, axes3, 0, B);
    CHECK_MSG(same_array(got, want, 0), "%s", cj_error_message(ctx));
    /* only the start batched, the array shared */
    cj_val x1 = rand_array(ctx, 2, (int64_t[]){6, 5}, &rng);
    int64_t axes_shared[3] = {CJ_NOT_MAPPED, 0, 0};
    cj_vmap_opts o = {axes_shared, NULL, 0, 0, 0};
    cj_val in3b[3] = {x1, i, j};
    CHECK(cj_call(cj_vmap(fs, &o), in3b, &got) == CJ_OK);
    want = loop_reference(fs, 3, in3b, axes_shared, 0, B);
    CHECK(same_array(got, want, 0));
    cj_func *fu = cj_func_new(ctx, "dupdate", p_dupdate, 4, 1, NULL);
    cj_val in4[4] = {x, up, i, j};
    int64_t axes4[4] = {0, 0, 0, 0};
    CHECK(cj_call(cj_vmap(fu, NULL), in4, &got) == CJ_OK);
    want = loop_reference(fu, 4, in4, axes4, 0, B);
    CHECK_MSG(same_array(got, want, 0), "%s", cj_error_message(ctx));
    cj_ctx_free(ctx);
}

static void p_padv(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) { /* x[3,2], v[] */
    (void)u, (void)ctx;
    out[0] = cj_pad(in[0], in[1], (int64_t[]){1, 0}, (int64_t[]){0, 2}, (int64_t[]){1, 0});
}

TEST(vmap_pad_with_per_example_padding_values) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t rng = 8;
    cj_val x = rand_array(ctx, 3, (int64_t[]){4, 3, 2}, &rng), v = rand_array(ctx, 1, (int64_t[]){4}, &rng), got;
    cj_func *f = cj_func_new(ctx, "padv", p_padv, 2, 1, NULL);
    cj_val in[2] = {x, v};
    int64_t axes[2] = {0, 0};
    CHECK_MSG(cj_call(cj_vmap(f, NULL), in, &got) == CJ_OK, "%s", cj_error_message(ctx));
    CHECK(same_array(got, loop_reference(f, 2, in, axes, 0, 4), 0));
    cj_val x1 = rand_array(ctx, 2, (int64_t[]){3, 2}, &rng); /* shared array, batched values */
    int64_t axes2[2] = {CJ_NOT_MAPPED, 0};
    cj_vmap_opts o = {axes2, NULL, 0, 0, 0};
    cj_val in2[2] = {x1, v};
    CHECK(cj_call(cj_vmap(f, &o), in2, &got) == CJ_OK);
    CHECK(same_array(got, loop_reference(f, 2, in2, axes2, 0, 4), 0));
    cj_ctx_free(ctx);
}

/* take and index_add with per-example indices */
static void p_take_i(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) { /* x[5,3], idx[2,2] */
    (void)u, (void)ctx;
    out[0] = cj_take(in[0], in[1], 0);
}
static void p_take_s(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) { /* x[5,3], idx[] */
    (void)u, (void)ctx;
    out[0] = cj_take(in[0], in[1], 1);
}
static void p_index_add(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) { /* x[5,3], idx[4], up[4,3] */
    (void)u, (void)ctx;
    out[0] = cj_index_add(in[0], 0, in[1], in[2]);
}

TEST(vmap_take_and_index_add_with_batched_indices) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t rng = 4;
    int64_t B = 3;
    cj_val x = rand_array(ctx, 3, (int64_t[]){B, 5, 3}, &rng), got;
    int32_t iv[12] = {0, 4, -1, 2, 7, 1, 1, 1, 3, 0, -6, 2}; /* negatives wrap, out of range clamps/drops */
    cj_val idx = cj_array(ctx, CJ_I32, 3, (int64_t[]){B, 2, 2}, iv);
    cj_func *f = cj_func_new(ctx, "take_i", p_take_i, 2, 1, NULL);
    cj_val in[2] = {x, idx};
    int64_t axes[3] = {0, 0, 0};
    CHECK_MSG(cj_call(cj_vmap(f, NULL), in, &got) == CJ_OK, "%s", cj_error_message(ctx));
    CHECK(same_array(got, loop_reference(f, 2, in, axes, 0, B), 0));
    int32_t sv[3] = {2, 0, -1};
    cj_val s = cj_array(ctx, CJ_I32, 1, &B, sv);
    cj_func *fs = cj_func_new(ctx, "take_s", p_take_s, 2, 1, NULL);
    cj_val in2[2] = {x, s};
    CHECK(cj_call(cj_vmap(fs, NULL), in2, &got) == CJ_OK);
    CHECK(same_array(got, loop_reference(fs, 2, in2, axes, 0, B), 0));
    int32_t av[12] = {0, 0, 4, 9, 1, 2, 3, -1, 4, 4, 4, 4}; /* duplicates accumulate, 9 is dropped */
    cj_val ai = cj_array(ctx, CJ_I32, 2, (int64_t[]){B, 4}, av);
    cj_val up = rand_array(ctx, 3, (int64_t[]){B, 4, 3}, &rng);
    cj_func *fa = cj_func_new(ctx, "index_add", p_index_add, 3, 1, NULL);
    cj_val in3[3] = {x, ai, up};
    CHECK_MSG(cj_call(cj_vmap(fa, NULL), in3, &got) == CJ_OK, "%s", cj_error_message(ctx));
    CHECK(same_array(got, loop_reference(fa, 3, in3, axes, 0, B), 1e-6));
    cj_ctx_free(ctx);
}

/* Every elementwise operation, unary and binary, with the batch on
 * different axes and one operand unbatched. */
typedef cj_val (*unary_op)(cj_val);
typedef cj_val (*binary_op)(cj_val, cj_val);
static const unary_op unary_ops[] = {cj_neg, cj_abs, cj_sign, cj_floor, cj_ceil, cj_round, cj_exp, cj_exp2,
                                     cj_log1p, cj_expm1, cj_cbrt, cj_sin, cj_cos, cj_tan, cj_atan, cj_sinh,
                                     cj_cosh, cj_tanh, cj_logistic, cj_erf, cj_is_finite, cj_relu, cj_gelu,
                                     cj_square};
static const binary_op binary_ops[] = {cj_add, cj_sub, cj_mul, cj_div, cj_rem, cj_max, cj_min, cj_atan2,
                                       cj_eq, cj_ne, cj_lt, cj_le, cj_gt, cj_ge};
static int op_index;
static void p_unary(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u, (void)ctx;
    out[0] = cj_astype(unary_ops[op_index](in[0]), CJ_F32);
}
static void p_binary(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u, (void)ctx;
    out[0] = cj_astype(binary_ops[op_index](in[0], in[1]), CJ_F32);
}

TEST(vmap_every_elementwise_operation) {
    uint64_t rng = 77;
    for (size_t k = 0; k < sizeof unary_ops / sizeof unary_ops[0]; k++) {
        cj_ctx *ctx = cj_ctx_new(NULL);
        op_index = (int)k;
        cj_val x = rand_array(ctx, 2, (int64_t[]){3, 4}, &rng), got;
        int64_t ax = 1;
        cj_vmap_opts o = {&ax, &ax, 0, 0, 0};
        cj_func *f = cj_func_new(ctx, "unary", p_unary, 1, 1, NULL);
        CHECK(cj_call(cj_vmap(f, &o), &x, &got) == CJ_OK);
        CHECK_MSG(same_array(got, loop_reference(f, 1, &x, &ax, 1, 4), 0), "unary op %zu", k);
        cj_ctx_free(ctx);
    }
    for (size_t k = 0; k < sizeof binary_ops / sizeof binary_ops[0]; k++) {
        cj_ctx *ctx = cj_ctx_new(NULL);
        op_index = (int)k;
        cj_val a = rand_array(ctx, 2, (int64_t[]){3, 4}, &rng), b = rand_array(ctx, 1, (int64_t[]){3}, &rng), got;
        int64_t axes[2] = {1, CJ_NOT_MAPPED}, out_ax = 0;
        cj_vmap_opts o = {axes, &out_ax, 0, 0, 0};
        cj_func *f = cj_func_new(ctx, "binary", p_binary, 2, 1, NULL);
        cj_val in[2] = {a, b};
        CHECK(cj_call(cj_vmap(f, &o), in, &got) == CJ_OK);
        CHECK_MSG(same_array(got, loop_reference(f, 2, in, axes, 0, 4), 0), "binary op %zu", k);
        cj_ctx_free(ctx);
    }
}

/* Found by the fuzzer: the batched dynamic slice of a rank-0 operand has
 * no start index whose type the batch axis's start could copy (it read
 * one past the operands). */
static void p_dslice_rank0(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_add(cj_dynamic_slice(in[0], NULL, NULL),
                    cj_dynamic_update_slice(in[0], cj_mul(in[0], in[0]), NULL));
}

TEST(vmap_regression_dynamic_slice_of_rank0) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val x = cj_array(ctx, CJ_F32, 1, (int64_t[]){3}, (float[]){1, 2, 3}), y;
    CHECK(cj_call(cj_vmap(cj_func_new(ctx, "ds0", p_dslice_rank0, 1, 1, NULL), NULL), &x, &y) == CJ_OK);
    float got[3];
    CHECK(cj_read(y, got, sizeof got) == CJ_OK);
    for (int i = 0; i < 3; i++) CHECK(got[i] == (float)(i + 1) + (float)((i + 1) * (i + 1)));
    cj_ctx_free(ctx);
}

/* Found by the fuzzer: an update empty along an axis where the array is
 * not, at batched starts, spread the update by a gather from its empty
 * axis and failed; like the unbatched update it changes nothing. */
static void p_dus_empty(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_dynamic_update_slice(in[0], in[1], &in[2]);
}

TEST(vmap_regression_empty_update_at_batched_starts) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val in[3] = {cj_array(ctx, CJ_F32, 1, (int64_t[]){4}, (float[]){1, 2, 3, 4}),
                    cj_zeros(ctx, CJ_F32, 1, (int64_t[]){0}),
                    cj_array(ctx, CJ_I32, 1, (int64_t[]){3}, (int32_t[]){0, 2, 9})}, y;
    int64_t axes[3] = {CJ_NOT_MAPPED, CJ_NOT_MAPPED, 0};
    cj_vmap_opts o = {axes, NULL, 0, 0, 0};
    CHECK(cj_call(cj_vmap(cj_func_new(ctx, "dus0", p_dus_empty, 3, 1, NULL), &o), in, &y) == CJ_OK);
    CHECK_EQ_INT(cj_val_dim(y, 0), 3);
    CHECK_EQ_INT(cj_val_dim(y, 1), 4);
    float got[12];
    CHECK(cj_read(y, got, sizeof got) == CJ_OK);
    for (int i = 0; i < 12; i++) CHECK(got[i] == (float)(i % 4 + 1));
    cj_ctx_free(ctx);
}

/* ---- allocation failures ---- */
/* A key → normal draws of one example. */
static void p_draw(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_mul(cj_random_normal(in[0], CJ_F32, 1, (int64_t[]){4}), cj_scalar(ctx, 2.0));
}

/* Every vmap path once: the batch trace over elementwise, softmax and a
 * matrix-vector product, in_axes with an unmapped input, vmap of jit,
 * jit of vmap, the chunked form, nested vmap and vmap over random keys. */
static int vmap_scenario(cj_ctx *ctx) {
    uint64_t rng = 3;
    cj_val x = rand_array(ctx, 3, (int64_t[]){5, 3, 4}, &rng), y = rand_array(ctx, 3, (int64_t[]){5, 3, 4}, &rng);
    cj_val W = rand_array(ctx, 2, (int64_t[]){4, 3}, &rng), v = rand_array(ctx, 2, (int64_t[]){5, 3}, &rng), r;
    cj_func *ew = cj_func_new(ctx, "ew", p_ew, 2, 1, NULL);
    cj_call(cj_vmap(ew, NULL), (cj_val[]){x, y}, &r);
    cj_call(cj_vmap(cj_func_new(ctx, "softmax", p_softmax, 1, 1, NULL), NULL), &x, &r);
    int64_t mv_axes[2] = {CJ_NOT_MAPPED, 0};
    cj_vmap_opts mv = {mv_axes, NULL, 0, 0, 0};
    cj_call(cj_vmap(cj_func_new(ctx, "matvec", p_matvec, 2, 1, NULL), &mv), (cj_val[]){W, v}, &r);
    cj_jit_opts interp = {0, NULL, 0, NULL, CJ_BACKEND_INTERP};
    cj_call(cj_vmap(cj_jit(ew, &interp), NULL), (cj_val[]){x, y}, &r);
    cj_call(cj_jit(cj_vmap(ew, NULL), &interp), (cj_val[]){x, y}, &r);
    cj_vmap_opts chunked = {NULL, NULL, 0, 0, 2};
    cj_call(cj_vmap(ew, &chunked), (cj_val[]){x, y}, &r);
    cj_call(cj_vmap(cj_vmap(ew, NULL), NULL), (cj_val[]){x, y}, &r);
    cj_call(cj_vmap(cj_func_new(ctx, "draw", p_draw, 1, 1, NULL), NULL), (cj_val[]){cj_random_split(cj_random_key(ctx, 7), 3)}, &r);
    return cj_error(ctx);
}

TEST(vmap_allocation_failure_at_every_site_is_clean) {
    int covered = 0;
    long long n = 1;
    for (; n < 50000 && !covered; n++) {
        tu_alloc st = {0};
        st.fail_at = n;
        cj_allocator a = tu_allocator(&st);
        cj_ctx *ctx = cj_ctx_new(&a);
        if (ctx) {
            int rc = vmap_scenario(ctx);
            CHECK_MSG(rc == CJ_OK || rc == CJ_ERR_OOM, "allocation %lld: expected CJ_ERR_OOM, got %s: %s", n,
                      cj_status_name((cj_status)rc), cj_error_message(ctx));
            if (!st.failed) {
                CHECK_MSG(rc == CJ_OK, "%s", cj_error_message(ctx));
                covered = 1;
            }
            cj_ctx_free(ctx);
        }
        CHECK_MSG(st.live == 0, "allocation %lld failing leaked %lld blocks", n, st.live);
    }
    CHECK(covered);
    CHECK_MSG(n > 200, "the scenario made only %lld allocations", n - 1); /* it exercised every path */
}

/* ---- batched ranks above CJ_MAX_RANK (issue 13) ---- */

static void v_double(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_add(in[0], in[0]);
}

static void v_add_rank8(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) { /* x: f32[], y: f32[1,..,1,2] */
    (void)ctx, (void)u;
    out[0] = cj_mul(in[0], in[1]);
}

static void v_broadcast8(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    int64_t d[8] = {1, 1, 1, 1, 1, 1, 1, 2};
    out[0] = cj_broadcast_to(in[0], 8, d);
}

/* An unmapped rank-8 input with axis_size 3 wrote index 8 of an
 * int64_t[8] before reporting; every path that adds a batch axis now
 * refuses rank 9 before writing it: the output's batch axis, an
 * elementwise rule broadcasting an unbatched rank-8 operand, and a
 * broadcast to rank 8 inside the function. */
TEST(vmap_batched_rank_above_max_is_a_clean_error) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t d8[8] = {1, 1, 1, 1, 1, 1, 1, 2}, three = 3;
    cj_val x8 = cj_zeros(ctx, CJ_F32, 8, d8);
    int64_t unmapped = CJ_NOT_MAPPED;
    cj_vmap_opts o = {0};
    o.in_axes = &unmapped;
    o.axis_size = 3;
    o.has_axis_size = 1;
    cj_func *f = cj_vmap(cj_func_new(ctx, "double", v_double, 1, 1, NULL), &o);
    cj_val y = {0};
    CHECK(cj_call(f, &x8, &y) == CJ_ERR_SHAPE);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "vmap: a value of f32[1,1,1,1,1,1,1,2] batched over an axis of size 3 would have rank 9 (at most 8)");
    CHECK(cj_is_error(y));
    cj_error_clear(ctx);

    cj_val b = cj_zeros(ctx, CJ_F32, 1, &three);
    int64_t axes2[2] = {0, CJ_NOT_MAPPED};
    cj_vmap_opts o2 = {0};
    o2.in_axes = axes2;
    cj_func *g = cj_vmap(cj_func_new(ctx, "mul", v_add_rank8, 2, 1, NULL), &o2);
    cj_val in2[2] = {b, x8};
    CHECK(cj_call(g, in2, &y) == CJ_ERR_SHAPE);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "vmap: mul of f32[1,1,1,1,1,1,1,2] batched over an axis of size 3 would have rank 9");
    cj_error_clear(ctx);

    cj_func *h = cj_vmap(cj_func_new(ctx, "bcast", v_broadcast8, 1, 1, NULL), NULL);
    CHECK(cj_call(h, &b, &y) == CJ_ERR_SHAPE);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "vmap: broadcast_in_dim of f32[1,1,1,1,1,1,1,2] batched over an axis of size 3 would have rank 9");
    cj_error_clear(ctx);

    /* rank 7 per example still batches to rank 8 */
    int64_t d7[7] = {1, 1, 1, 1, 1, 1, 2};
    cj_val x7 = cj_ones(ctx, CJ_F32, 7, d7);
    CHECK(cj_call(f, &x7, &y) == CJ_OK);
    CHECK_EQ_INT(cj_val_rank(y), 8);
    CHECK_EQ_INT(cj_val_dim(y, 0), 3);
    float out[6];
    CHECK(cj_read(y, out, sizeof out) == CJ_OK);
    for (int i = 0; i < 6; i++) CHECK_NEAR(out[i], 2, 0, 0);
    cj_ctx_free(ctx);
}
