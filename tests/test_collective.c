/* test_collective.c — collectives over named axes under cj_vmap_named
 * (src/prim/collective.c, src/api/collective.c, docs/COLLECTIVES.md).
 *
 * Every case is checked against JAX (tests/data/gen_collective_fixtures.py
 * writes tests/data/collective/): the result of jax.vmap(f, axis_name='i')
 * (nested: 'i' inside 'j'), eagerly, under cj_jit on the interpreter and on
 * generated C, and with the jit inside the vmap; the per-member gradient
 * vmap(grad(sum(w * f))) and the gradient of the whole vmap, each against
 * JAX's, and the latter against central differences for a few cases. Then
 * the errors: an unbound or mistyped name, bad arguments. */
#include <stdlib.h>

#include "cjax.h"
#include "harness.h"

static cj_val load(cj_ctx *ctx, const char *c, const char *what) {
    char path[512];
    snprintf(path, sizeof path, "%s/collective/%.63s_%.31s.npy", CJAX_TEST_DATA_DIR, c, what);
    return cj_load_npy(ctx, path);
}

/* ---- the cases: one per-member x, as in the generator ---- */
#define F(name) static void name(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user)
F(f_psum) { (void)ctx, (void)user, out[0] = cj_psum(in[0], "i"); }
F(f_psum_sq) {
    (void)ctx, (void)user;
    cj_val s = cj_psum(in[0], "i");
    out[0] = cj_mul(cj_mul(s, s), in[0]);
}
F(f_pmean) { (void)ctx, (void)user, out[0] = cj_pmean(in[0], "i"); }
F(f_pmax) { (void)ctx, (void)user, out[0] = cj_pmax(in[0], "i"); }
F(f_pmin) { (void)ctx, (void)user, out[0] = cj_pmin(in[0], "i"); }
F(f_psum_const) { (void)user, out[0] = cj_mul(in[0], cj_psum(cj_scalar(ctx, 2.0), "i")); }
F(f_all_gather0) { (void)ctx, (void)user, out[0] = cj_all_gather(in[0], "i", 0, 0); }
F(f_all_gather2) { (void)ctx, (void)user, out[0] = cj_all_gather(in[0], "i", 2, 0); }
F(f_all_gather_tiled1) { (void)ctx, (void)user, out[0] = cj_all_gather(in[0], "i", 1, 1); }
F(f_psum_scatter0) { (void)ctx, (void)user, out[0] = cj_psum_scatter(in[0], "i", 0, 0); }
F(f_psum_scatter1) { (void)ctx, (void)user, out[0] = cj_psum_scatter(in[0], "i", 1, 0); }
F(f_psum_scatter_tiled) { (void)ctx, (void)user, out[0] = cj_psum_scatter(in[0], "i", 0, 1); }
F(f_ppermute_shift) {
    (void)ctx, (void)user;
    const int64_t perm[] = {0, 1, 1, 2, 2, 3, 3, 0};
    out[0] = cj_mul(cj_ppermute(in[0], "i", 4, perm), in[0]);
}
F(f_ppermute_swap) {
    (void)ctx, (void)user;
    const int64_t perm[] = {0, 3, 3, 0, 1, 2, 2, 1};
    out[0] = cj_ppermute(in[0], "i", 4, perm);
}
F(f_all_to_all) { (void)ctx, (void)user, out[0] = cj_all_to_all(in[0], "i", 0, 1, 0); }
F(f_all_to_all_same) { (void)ctx, (void)user, out[0] = cj_all_to_all(in[0], "i", 0, 0, 0); }
F(f_all_to_all_back) { (void)ctx, (void)user, out[0] = cj_all_to_all(in[0], "i", 1, 0, 0); }
F(f_all_to_all_tiled) { (void)ctx, (void)user, out[0] = cj_all_to_all(in[0], "i", 1, 0, 1); }
F(f_axis_index) { (void)user, out[0] = cj_mul(in[0], cj_axis_index(ctx, "i")); }
F(f_nested_psum_j) { (void)ctx, (void)user, out[0] = cj_mul(cj_psum(in[0], "j"), in[0]); }
F(f_nested_psum_ij) { (void)ctx, (void)user, out[0] = cj_psum(in[0], "i,j"); }
F(f_nested_gather) { (void)user, out[0] = cj_add(cj_all_gather(in[0], "j", 1, 0), cj_axis_index(ctx, "i")); }
F(f_nested_index) {
    (void)user;
    cj_val k = cj_add(cj_mul(cj_scalar_int(ctx, 10), cj_axis_index(ctx, "j")), cj_axis_index(ctx, "i"));
    out[0] = cj_mul(in[0], k);
}
F(f_nested_pmean_i) { (void)ctx, (void)user, out[0] = cj_sub(cj_pmean(in[0], "i"), cj_pmax(in[0], "j")); }

typedef struct coll_case {
    const char *name;
    cj_fn fn;
    int diff, nested;
} coll_case;

static const coll_case cases[] = {
    {"psum", f_psum, 1, 0},
    {"psum_sq", f_psum_sq, 1, 0},
    {"pmean", f_pmean, 1, 0},
    {"pmax", f_pmax, 0, 0},
    {"pmin", f_pmin, 0, 0},
    {"psum_const", f_psum_const, 1, 0},
    {"all_gather0", f_all_gather0, 1, 0},
    {"all_gather2", f_all_gather2, 1, 0},
    {"all_gather_tiled1", f_all_gather_tiled1, 1, 0},
    {"psum_scatter0", f_psum_scatter0, 1, 0},
    {"psum_scatter1", f_psum_scatter1, 1, 0},
    {"psum_scatter_tiled", f_psum_scatter_tiled, 1, 0},
    {"ppermute_shift", f_ppermute_shift, 1, 0},
    {"ppermute_swap", f_ppermute_swap, 1, 0},
    {"all_to_all", f_all_to_all, 0, 0},
    {"all_to_all_same", f_all_to_all_same, 1, 0},
    {"all_to_all_back", f_all_to_all_back, 0, 0},
    {"all_to_all_tiled", f_all_to_all_tiled, 1, 0},
    {"axis_index", f_axis_index, 1, 0},
    {"nested_psum_j", f_nested_psum_j, 1, 1},
    {"nested_psum_ij", f_nested_psum_ij, 1, 1},
    {"nested_gather", f_nested_gather, 1, 1},
    {"nested_index", f_nested_index, 1, 1},
    {"nested_pmean_i", f_nested_pmean_i, 0, 1},
};
#define N_CASES ((int)(sizeof cases / sizeof cases[0]))

/* vmap(f, axis_name='i'), or vmap(vmap(f, 'i'), 'j') */
static cj_func *mapped(cj_func *f, int nested) {
    cj_func *v = cj_vmap_named(f, NULL, "i");
    return nested ? cj_vmap_named(v, NULL, "j") : v;
}

/* Every element of got against want (same shape), f64. */
static int same(cj_val got, cj_val want, double rtol, const char *what, const char *name) {
    int64_t n = cj_val_size(want);
    if (cj_val_rank(got) != cj_val_rank(want) || cj_val_size(got) != n) {
        th_fail(__FILE__, __LINE__, "%s %s: rank %d size %lld, want rank %d size %lld", name, what, cj_val_rank(got),
                (long long)cj_val_size(got), cj_val_rank(want), (long long)n);
        return 0;
    }
    for (int d = 0; d < cj_val_rank(want); d++)
        if (cj_val_dim(got, d) != cj_val_dim(want, d)) {
            th_fail(__FILE__, __LINE__, "%s %s: dim %d is %lld, want %lld", name, what, d,
                    (long long)cj_val_dim(got, d), (long long)cj_val_dim(want, d));
            return 0;
        }
    double *g = malloc(sizeof(double) * (size_t)(n + 1)), *w = malloc(sizeof(double) * (size_t)(n + 1));
    int ok = g && w && cj_read_as(got, CJ_F64, g, sizeof(double) * (size_t)n) == CJ_OK &&
             cj_read_as(want, CJ_F64, w, sizeof(double) * (size_t)n) == CJ_OK;
    for (int64_t i = 0; ok && i < n; i++)
        if (!th_close(g[i], w[i], rtol, 1e-12)) {
            th_fail(__FILE__, __LINE__, "%s %s: element %lld is %.17g, want %.17g", name, what, (long long)i, g[i],
                    w[i]);
            ok = 0;
        }
    if (!g || !w) th_fail(__FILE__, __LINE__, "%s %s: out of memory", name, what);
    free(g), free(w);
    return ok;
}

TEST(collective_vmap_matches_jax) {
    for (int c = 0; c < N_CASES; c++) {
        cj_ctx *ctx = cj_ctx_new(NULL);
        const coll_case *k = &cases[c];
        cj_val x = load(ctx, k->name, "x"), want = load(ctx, k->name, "out");
        CHECK_MSG(!cj_error(ctx), "%s: %s", k->name, cj_error_message(ctx));
        cj_func *f = cj_func_new(ctx, k->name, k->fn, 1, 1, NULL);
        cj_val y;
        CHECK_MSG(cj_call(mapped(f, k->nested), &x, &y) == CJ_OK, "%s: %s", k->name, cj_error_message(ctx));
        if (!same(y, want, 1e-13, "eager vmap", k->name)) return;
        /* jit of the vmap, each backend: after vmap an ordinary program */
        const cj_backend backends[] = {CJ_BACKEND_INTERP, CJ_BACKEND_CC};
        for (int b = 0; b < 2; b++) {
            cj_jit_opts jo = {0};
            jo.backend = backends[b];
            cj_func *jf = cj_jit(mapped(f, k->nested), &jo);
            CHECK_MSG(cj_call(jf, &x, &y) == CJ_OK, "%s: %s", k->name, cj_error_message(ctx));
            if (!same(y, want, 1e-13, b ? "jit(vmap) cc" : "jit(vmap) interp", k->name)) return;
        }
        /* the jit inside the vmap: the collective staged, then batched */
        CHECK_MSG(cj_call(mapped(cj_jit(f, NULL), k->nested), &x, &y) == CJ_OK, "%s: %s", k->name,
                  cj_error_message(ctx));
        if (!same(y, want, 1e-13, "vmap(jit)", k->name)) return;
        cj_ctx_free(ctx);
    }
}

/* sum(w * f(x)) of one member, and of the whole batch */
typedef struct loss_user {
    cj_fn fn;
    int nested;
} loss_user;
static void member_loss(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    const loss_user *u = user;
    cj_val y;
    u->fn(ctx, in, &y, NULL);
    out[0] = cj_sum(cj_mul(in[1], y), -1, NULL, 0);
}
static void batch_loss(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    const loss_user *u = user;
    cj_val y;
    if (cj_call(mapped(cj_func_new(ctx, "f", u->fn, 1, 1, NULL), u->nested), in, &y) != CJ_OK) {
        out[0] = y;
        return;
    }
    out[0] = cj_sum(cj_mul(in[1], y), -1, NULL, 0);
}

TEST(collective_gradients_match_jax) {
    for (int c = 0; c < N_CASES; c++) {
        const coll_case *k = &cases[c];
        if (!k->diff) continue;
        cj_ctx *ctx = cj_ctx_new(NULL);
        loss_user u = {k->fn, k->nested};
        cj_val xw[2] = {load(ctx, k->name, "x"), load(ctx, k->name, "w")};
        cj_val vg_want = load(ctx, k->name, "vg"), gv_want = load(ctx, k->name, "gv");
        CHECK_MSG(!cj_error(ctx), "%s: %s", k->name, cj_error_message(ctx));
        /* per member: vmap(grad(loss)) — the collectives' transposes run
         * inside the named vmap */
        cj_func *g = cj_grad(cj_func_new(ctx, "member_loss", member_loss, 2, 1, &u), NULL);
        cj_vmap_opts vo = {0};
        cj_func *vg = cj_vmap_named(g, &vo, "i");
        if (k->nested) vg = cj_vmap_named(vg, &vo, "j");
        cj_val r;
        CHECK_MSG(cj_call(vg, xw, &r) == CJ_OK, "%s: %s", k->name, cj_error_message(ctx));
        if (!same(r, vg_want, 1e-12, "vmap(grad)", k->name)) return;
        CHECK_MSG(cj_call(cj_jit(vg, NULL), xw, &r) == CJ_OK, "%s: %s", k->name, cj_error_message(ctx));
        if (!same(r, vg_want, 1e-12, "jit(vmap(grad))", k->name)) return;
        /* the whole batch: grad(vmap) */
        cj_func *gv = cj_grad(cj_func_new(ctx, "batch_loss", batch_loss, 2, 1, &u), NULL);
        CHECK_MSG(cj_call(gv, xw, &r) == CJ_OK, "%s: %s", k->name, cj_error_message(ctx));
        if (!same(r, gv_want, 1e-12, "grad(vmap)", k->name)) return;
        CHECK_MSG(cj_call(cj_jit(gv, NULL), xw, &r) == CJ_OK, "%s: %s", k->name, cj_error_message(ctx));
        if (!same(r, gv_want, 1e-12, "jit(grad(vmap))", k->name)) return;
        cj_ctx_free(ctx);
    }
}

/* grad(vmap) against central differences of the batch loss, element by
 * element (f64), including the cases whose per-member gradient JAX itself
 * cannot take (all_to_all with split_axis != concat_axis). */
TEST(collective_gradients_match_finite_differences) {
    const char *names[] = {"psum_sq", "all_gather_tiled1", "psum_scatter1", "ppermute_shift", "all_to_all",
                           "all_to_all_back", "nested_gather"};
    for (int c = 0; c < (int)(sizeof names / sizeof names[0]); c++) {
        const coll_case *k = NULL;
        for (int j = 0; j < N_CASES; j++)
            if (!strcmp(cases[j].name, names[c])) k = &cases[j];
        CHECK(k);
        cj_ctx *ctx = cj_ctx_new(NULL);
        loss_user u = {k->fn, k->nested};
        cj_val x = load(ctx, k->name, "x"), y0;
        cj_func *f = mapped(cj_func_new(ctx, "f", k->fn, 1, 1, NULL), k->nested);
        CHECK_MSG(cj_call(f, &x, &y0) == CJ_OK, "%s: %s", k->name, cj_error_message(ctx));
        /* a cotangent of the result's shape: a fixed pattern */
        int64_t dims[CJ_MAX_RANK];
        int rank = cj_val_shape(y0, dims);
        cj_val w = cj_sin(cj_add(cj_reshape(cj_arange(ctx, 0, (double)cj_val_size(y0), 1, CJ_F64), rank, dims),
                                 cj_scalar(ctx, 0.5)));
        cj_func *lf = cj_func_new(ctx, "batch_loss", batch_loss, 2, 1, &u);
        cj_val xw[2] = {x, w}, g;
        CHECK_MSG(cj_call(cj_grad(lf, NULL), xw, &g) == CJ_OK, "%s: %s", k->name, cj_error_message(ctx));
        int64_t n = cj_val_size(x);
        double xs[64], gs[64];
        CHECK(n <= 64);
        CHECK(cj_read_as(x, CJ_F64, xs, sizeof xs) == CJ_OK && cj_read_as(g, CJ_F64, gs, sizeof gs) == CJ_OK);
        int64_t xd[CJ_MAX_RANK];
        int xr = cj_val_shape(x, xd);
        for (int64_t i = 0; i < n; i++) {
            double h = 1e-6, l[2];
            for (int s = 0; s < 2; s++) {
                double xp[64];
                memcpy(xp, xs, sizeof xp);
                xp[i] += s ? -h : h;
                cj_val in2[2] = {cj_array(ctx, CJ_F64, xr, xd, xp), w}, lv;
                CHECK(cj_call(lf, in2, &lv) == CJ_OK);
                CHECK(cj_read_as(lv, CJ_F64, &l[s], sizeof l[s]) == CJ_OK);
            }
            CHECK_MSG(th_close(gs[i], (l[0] - l[1]) / (2 * h), 1e-6, 1e-7), "%s: d/dx[%lld] %.12g vs %.12g", k->name,
                      (long long)i, gs[i], (l[0] - l[1]) / (2 * h));
        }
        cj_ctx_free(ctx);
    }
}

TEST(collective_pmean_of_integers_is_true_division) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val x = load(ctx, "pmean_int", "x"), want = load(ctx, "pmean_int", "out"), y;
    CHECK(cj_call(cj_vmap_named(cj_func_new(ctx, "pmean", f_pmean, 1, 1, NULL), NULL, "i"), &x, &y) == CJ_OK);
    CHECK_EQ_INT(cj_val_dtype(y), CJ_F32);
    CHECK_EQ_INT(cj_val_dtype(want), CJ_F32);
    if (!same(y, want, 0, "pmean i32", "pmean_int")) return;
    cj_ctx_free(ctx);
}

/* An axis given out_axes: psum's result is the same on every member, so
 * it comes back unbatched to a not-mapped output, and axis_index shows the
 * batch position to a function with no mapped input (axis_size). */
static void f_index_only(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)in, (void)user;
    out[0] = cj_axis_index(ctx, "i");
    out[1] = cj_psum(cj_scalar_int(ctx, 1), "i");
}
TEST(collective_axis_index_without_mapped_inputs) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    const int64_t in_axes[] = {CJ_NOT_MAPPED}, out_axes[] = {0, CJ_NOT_MAPPED};
    cj_vmap_opts vo = {in_axes, out_axes, 5, 1, 0};
    cj_val x = cj_scalar(ctx, 1.0), r[2];
    cj_func *v = cj_vmap_named(cj_func_new(ctx, "idx", f_index_only, 1, 2, NULL), &vo, "i");
    CHECK_MSG(cj_call(v, &x, r) == CJ_OK, "%s", cj_error_message(ctx));
    int32_t idx[5], size;
    CHECK(cj_read_as(r[0], CJ_I32, idx, sizeof idx) == CJ_OK);
    for (int i = 0; i < 5; i++) CHECK_EQ_INT(idx[i], i);
    CHECK_EQ_INT(cj_val_rank(r[1]), 0);
    CHECK(cj_read_as(r[1], CJ_I32, &size, sizeof size) == CJ_OK);
    CHECK_EQ_INT(size, 5);
    cj_ctx_free(ctx);
}

/* The IR of a jit traced inside the named vmap holds the collective with
 * JAX's parameter names; the one of jit(vmap) holds none. */
TEST(collective_printing) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_spec s = cj_spec_make(CJ_F32, 2, (int64_t[]){4, 3});
    char *t = cj_make_jaxpr(cj_vmap_named(cj_func_new(ctx, "g", f_all_gather0, 1, 1, NULL), NULL, "i"), 1, &s);
    CHECK_MSG(t, "%s", cj_error_message(ctx));
    CHECK_MSG(!strstr(t, "all_gather"), "%s", t);
    cj_string_free(ctx, t);
    /* make_jaxpr of a function calling a jitted f inside the vmap prints
     * the batched form; the staged collective is visible in the jit's own
     * trace, which needs its axis bound: unbound here, a clear error */
    t = cj_make_jaxpr(cj_func_new(ctx, "g", f_all_gather0, 1, 1, NULL), 1, &s);
    CHECK(!t);
    CHECK_EQ_INT(cj_error(ctx), CJ_ERR_AXIS);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "unbound axis name: i");
    cj_ctx_free(ctx);
}

static void f_unbound_j(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_psum(in[0], "j");
}
TEST(collective_errors) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val x = cj_ones(ctx, CJ_F32, 2, (int64_t[]){4, 3});
    /* eager, no vmap: JAX's NameError */
    cj_val r = cj_psum(x, "i");
    CHECK(!r.slot);
    CHECK_EQ_INT(cj_error(ctx), CJ_ERR_AXIS);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_psum: unbound axis name: i");
    cj_error_clear(ctx);
    /* inside a vmap with another name: the message lists what is bound */
    CHECK(cj_call(cj_vmap_named(cj_func_new(ctx, "f", f_unbound_j, 1, 1, NULL), NULL, "i"), &x, &r) != CJ_OK);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "unbound axis name: j (bound here: 'i'");
    cj_error_clear(ctx);
    /* under jit alone */
    CHECK(cj_call(cj_jit(cj_func_new(ctx, "f", f_unbound_j, 1, 1, NULL), NULL), &x, &r) != CJ_OK);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "unbound axis name: j");
    cj_error_clear(ctx);
    /* bad names */
    CHECK(!cj_vmap_named(cj_func_new(ctx, "f", f_psum, 1, 1, NULL), NULL, "i,j"));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "axis_name \"i,j\" must be 1 to 63 characters without ','");
    cj_error_clear(ctx);
    CHECK(!cj_vmap_named(cj_func_new(ctx, "f", f_psum, 1, 1, NULL), NULL, ""));
    cj_error_clear(ctx);
    cj_vmap_opts chunked = {0};
    chunked.chunk_size = 2;
    CHECK(!cj_vmap_named(cj_func_new(ctx, "f", f_psum, 1, 1, NULL), &chunked, "i"));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cannot be combined with chunk_size");
    cj_error_clear(ctx);
    CHECK(!cj_psum(x, NULL).slot);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_psum: axis_name is NULL");
    cj_error_clear(ctx);
    cj_ctx_free(ctx);
}

/* Argument errors inside a bound axis of size 4, each naming the call. */
typedef struct err_case {
    int which;
    const char *msg;
} err_case;
static void f_bad(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    const err_case *e = user;
    cj_val x = in[0]; /* per member f32[3] */
    const int64_t dup[] = {0, 1, 0, 2}, range[] = {0, 4};
    switch (e->which) {
    case 0: out[0] = cj_psum_scatter(x, "i", 0, 0); break;   /* 3 != 4 */
    case 1: out[0] = cj_psum_scatter(x, "i", 0, 1); break;   /* 3 % 4 */
    case 2: out[0] = cj_ppermute(x, "i", 2, dup); break;     /* source twice */
    case 3: out[0] = cj_ppermute(x, "i", 1, range); break;   /* 4 out of range */
    case 4: out[0] = cj_all_to_all(x, "i", 0, 0, 0); break;  /* 3 != 4 */
    case 5: out[0] = cj_all_gather(x, "i", 2, 0); break;     /* axis 2 of rank 1 + 1 */
    case 6: out[0] = cj_psum(x, "i,i"); break;
    case 7: out[0] = cj_all_gather(x, "i,i", 0, 0); break;
    case 8: out[0] = cj_psum(cj_gt(x, cj_scalar(ctx, 0.0)), "i"); break;
    default: out[0] = cj_axis_index(ctx, "i,"); break;
    }
}
TEST(collective_argument_errors) {
    const err_case errs[] = {
        {0, "reduce_scatter: operand f32[3]: size 3 of scatter_dimension 0 must equal the axis size 4"},
        {1, "not a multiple of the axis size 4 (tiled)"},
        {2, "cj_ppermute: sources and destinations must be unique, got pairs (0, 1) and (0, 2)"},
        {3, "cj_ppermute: pair 0 (0, 4) is out of range for axis i of size 4"},
        {4, "cj_all_to_all: requires the size of the mapped axis i to equal x.shape[split_axis], but they are 4 and 3"},
        {5, "cj_all_gather: axis 2 is out of range"},
        {6, "cj_psum: axis name i repeated in \"i,i\""},
        {7, "cj_all_gather: axis name i repeated"},
        {8, "psum: operand bool[3]: bool is not a number"},
        {9, "cj_axis_index: axis_name \"i,\" ends with ','"},
    };
    for (int k = 0; k < (int)(sizeof errs / sizeof errs[0]); k++) {
        cj_ctx *ctx = cj_ctx_new(NULL);
        cj_val x = cj_ones(ctx, CJ_F32, 2, (int64_t[]){4, 3}), r;
        cj_func *f = cj_vmap_named(cj_func_new(ctx, "bad", f_bad, 1, 1, (void *)&errs[k]), NULL, "i");
        CHECK_MSG(cj_call(f, &x, &r) != CJ_OK, "case %d succeeded", k);
        CHECK_STR_CONTAINS(cj_error_message(ctx), errs[k].msg);
        cj_ctx_free(ctx);
    }
}

/* pmax has no derivative, as in JAX. */
TEST(collective_pmax_is_not_differentiable) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    loss_user u = {f_pmax, 0};
    cj_val xw[2] = {cj_ones(ctx, CJ_F32, 2, (int64_t[]){4, 3}), cj_ones(ctx, CJ_F32, 2, (int64_t[]){4, 3})}, r;
    cj_func *g = cj_vmap_named(cj_grad(cj_func_new(ctx, "l", member_loss, 2, 1, &u), NULL), NULL, "i");
    CHECK(cj_call(g, xw, &r) != CJ_OK);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "Differentiation rule for 'pmax' not implemented");
    cj_ctx_free(ctx);
}

/* A jitted function's cache is keyed by the axis environment: the same
 * jit under axes of different sizes traces again (all_gather's shape is
 * the size's), and called with no axis bound fails cleanly. */
TEST(collective_jit_cache_keys_the_axis_size) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *jf = cj_jit(cj_func_new(ctx, "g", f_all_gather0, 1, 1, NULL), NULL);
    cj_func *v = cj_vmap_named(jf, NULL, "i");
    for (int n = 2; n <= 4; n++) {
        cj_val x = cj_ones(ctx, CJ_F32, 2, (int64_t[]){n, 3}), y;
        CHECK_MSG(cj_call(v, &x, &y) == CJ_OK, "%s", cj_error_message(ctx));
        CHECK_EQ_INT(cj_val_rank(y), 3);
        CHECK_EQ_INT(cj_val_dim(y, 0), n);
        CHECK_EQ_INT(cj_val_dim(y, 1), n);
    }
    cj_val x = cj_ones(ctx, CJ_F32, 1, (int64_t[]){3}), y;
    CHECK(cj_call(jf, &x, &y) != CJ_OK);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "unbound axis name: i");
    cj_ctx_free(ctx);
}
