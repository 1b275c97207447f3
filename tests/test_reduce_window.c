/* test_reduce_window.c — reduce_window (sum, max, min), its derivatives
 * (select_and_gather_add, select_and_scatter_add) and flax's pooling
 * against JAX's results (tests/data/reduce_window/, written by JAX 0.10
 * through tests/data/gen_reduce_window_fixtures.py) and against a direct
 * loop written here; jvp against central differences, the vjp against the
 * jvp (<w, J t> = <Jᵀ w, t>, also where JAX has no vjp), vmap against a
 * loop of single calls, jit (interpreter and generated C) against eager
 * bit for bit, printing as JAX prints, and the errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "test_util.h"

typedef struct rw_case {
    char name[64], kind[16];
    int has_grad, rank;
    int64_t params[64];
    int64_t win[8], strides[8], pads[16], bd[8], wd[8];
    cj_window_reduction red;
    cj_window_opts o;
} rw_case;

static cj_val load(cj_ctx *ctx, const char *c, const char *what) {
    char path[512];
    snprintf(path, sizeof path, "%s/reduce_window/%.63s_%.31s.npy", CJAX_TEST_DATA_DIR, c, what);
    return cj_load_npy(ctx, path);
}

static int n_cases(const char *file, rw_case *cs, int cap) {
    char path[512];
    snprintf(path, sizeof path, "%s/reduce_window/%s", CJAX_TEST_DATA_DIR, file);
    FILE *fp = fopen(path, "r");
    if (!fp) return 0;
    int n = 0;
    if (!strcmp(file, "CASES"))
        while (n < cap && fscanf(fp, "%63s %15s %d", cs[n].name, cs[n].kind, &cs[n].has_grad) == 3) n++;
    else
        while (n < cap && fscanf(fp, "%63s %15s", cs[n].name, cs[n].kind) == 2) n++;
    fclose(fp);
    return n;
}

static void setup_case(cj_ctx *ctx, rw_case *c, cj_val x) {
    cj_val pv = load(ctx, c->name, "params");
    cj_read_as(pv, CJ_I64, c->params, sizeof(int64_t) * (size_t)cj_val_size(pv));
    int r = c->rank = cj_val_rank(x);
    for (int a = 0; a < r; a++) {
        c->win[a] = c->params[a];
        c->strides[a] = c->params[r + a];
        c->pads[2 * a] = c->params[2 * r + 2 * a];
        c->pads[2 * a + 1] = c->params[2 * r + 2 * a + 1];
        c->bd[a] = c->params[4 * r + a];
        c->wd[a] = c->params[5 * r + a];
    }
    c->red = !strcmp(c->kind, "sum") ? CJ_WINDOW_SUM : !strcmp(c->kind, "max") ? CJ_WINDOW_MAX : CJ_WINDOW_MIN;
    memset(&c->o, 0, sizeof c->o);
    c->o.window_strides = c->strides;
    c->o.padding = c->pads;
    c->o.base_dilation = c->bd;
    c->o.window_dilation = c->wd;
}

/* max |got - want| / max |want|. */
static double rel_err(cj_val got, cj_val want) {
    int64_t n = cj_val_size(want);
    if (cj_is_error(got) || cj_val_size(got) != n || cj_val_rank(got) != cj_val_rank(want)) return INFINITY;
    for (int a = 0; a < cj_val_rank(want); a++)
        if (cj_val_dim(got, a) != cj_val_dim(want, a)) return INFINITY;
    double *g = tu_read_f64(got), *w = tu_read_f64(want), num = 0, den = 1e-300;
    for (int64_t i = 0; i < n; i++) {
        double e = fabs(g[i] - w[i]);
        if (!(e <= num)) num = e;
        if (fabs(w[i]) > den) den = fabs(w[i]);
    }
    free(g), free(w);
    return num / den;
}

static double dot(cj_val a, cj_val b) {
    int64_t n = cj_val_size(a);
    double *x = tu_read_f64(a), *y = tu_read_f64(b), s = 0;
    for (int64_t i = 0; i < n; i++) s += x[i] * y[i];
    free(x), free(y);
    return s;
}

/* ---- the direct loop: lax's definition, window by window ------------------ */

/* The reduction of c over x (and, for max/min, the tangent at the first
 * selected element, into *tangent when t is given). */
static double *reference(const rw_case *c, cj_val x, cj_val t, int64_t *odims, double **tangent) {
    int r = c->rank;
    int64_t in[8], st[8], total = 1, wtotal = 1;
    for (int a = 0; a < r; a++) {
        in[a] = cj_val_dim(x, a);
        int64_t din = in[a] ? (in[a] - 1) * c->bd[a] + 1 : 0, dw = (c->win[a] - 1) * c->wd[a] + 1;
        int64_t padded = din + c->pads[2 * a] + c->pads[2 * a + 1];
        odims[a] = padded < dw ? 0 : (padded - dw) / c->strides[a] + 1;
        total *= odims[a];
        wtotal *= c->win[a];
    }
    st[r - 1] = 1;
    for (int a = r - 2; a >= 0; a--) st[a] = st[a + 1] * in[a + 1];
    double *X = tu_read_f64(x), *T = t.slot ? tu_read_f64(t) : NULL;
    double *res = calloc((size_t)total + 1, sizeof(double)), *tr = calloc((size_t)total + 1, sizeof(double));
    for (int64_t e = 0; e < total; e++) {
        int64_t oi[8], rem = e;
        for (int a = r - 1; a >= 0; a--) oi[a] = rem % odims[a], rem /= odims[a];
        double acc = c->red == CJ_WINDOW_SUM ? 0 : c->red == CJ_WINDOW_MAX ? -INFINITY : INFINITY, tv = 0;
        for (int64_t k = 0; k < wtotal; k++) {
            int64_t kk[8], r2 = k, off = 0;
            int inside = 1;
            for (int a = r - 1; a >= 0; a--) kk[a] = r2 % c->win[a], r2 /= c->win[a];
            for (int a = 0; a < r; a++) {
                int64_t q = oi[a] * c->strides[a] + kk[a] * c->wd[a] - c->pads[2 * a];
                if (q < 0 || q % c->bd[a] || q / c->bd[a] >= in[a]) inside = 0;
                else off += q / c->bd[a] * st[a];
            }
            if (!inside) continue;
            double v = X[off];
            if (c->red == CJ_WINDOW_SUM) acc += v;
            else if (c->red == CJ_WINDOW_MAX ? v > acc : v < acc) acc = v, tv = T ? T[off] : 0;
        }
        res[e] = acc;
        tr[e] = tv;
    }
    free(X), free(T);
    if (tangent) *tangent = tr;
    else free(tr);
    return res;
}

/* ---- functions of the cases ------------------------------------------------ */

typedef struct fn_data {
    const rw_case *c;
    cj_val w;
} fn_data;

static void f_rw(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    const rw_case *c = ((fn_data *)user)->c;
    out[0] = cj_reduce_window(in[0], c->red, c->win, &c->o);
}
static void f_loss(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    cj_val y;
    f_rw(ctx, in, &y, user);
    out[0] = cj_sum(cj_mul(((fn_data *)user)->w, y), -1, NULL, 0);
}

TEST(reduce_window_fixtures_match_jax_and_loop) {
    static rw_case cs[64];
    int n = n_cases("CASES", cs, 64);
    CHECK_MSG(n >= 14, "only %d cases in tests/data/reduce_window/CASES", n);
    for (int i = 0; i < n; i++) {
        rw_case *c = &cs[i];
        cj_ctx *ctx = cj_ctx_new(NULL);
        cj_val x = load(ctx, c->name, "x"), want = load(ctx, c->name, "out");
        CHECK_MSG(!cj_is_error(want), "%s: %s", c->name, cj_error_message(ctx));
        setup_case(ctx, c, x);
        double tol = cj_val_dtype(x) == CJ_F32 ? 1e-6 : 1e-14;
        cj_val got = cj_reduce_window(x, c->red, c->win, &c->o);
        CHECK_MSG(!cj_is_error(got), "%s: %s", c->name, cj_error_message(ctx));
        CHECK_MSG(cj_val_dtype(got) == cj_val_dtype(x), "%s: dtype", c->name);
        double e = rel_err(got, want);
        CHECK_MSG(e <= tol, "%s: relative error %g against JAX", c->name, e);
        int64_t od[8];
        double *tref = NULL;
        cj_val t = load(ctx, c->name, "t");
        double *ref = reference(c, x, t, od, &tref);
        e = rel_err(got, cj_array(ctx, CJ_F64, c->rank, od, ref));
        CHECK_MSG(e <= tol, "%s: relative error %g against the loop", c->name, e);

        /* jvp against JAX's (and, for max/min, the loop's first-arg-max tangent) */
        fn_data d = {c, load(ctx, c->name, "w")};
        cj_func *f = cj_func_new(ctx, "rw", f_rw, 1, 1, &d);
        cj_val po, to;
        CHECK(cj_jvp(f, &x, &t, &po, &to) == CJ_OK);
        /* min_ties' window spans all three axes, and there XLA's reduction
         * order for JAX's jvp (an unordered reduce_window over packed
         * pairs) breaks some ties otherwise than its own vjp
         * (select_and_scatter, which is ordered): cjax's jvp and vjp both
         * take the first in window order, checked against the loop below
         * and against JAX's gradient. */
        if (strcmp(c->name, "min_ties") != 0) {
            e = rel_err(to, load(ctx, c->name, "jvp"));
            CHECK_MSG(e <= tol, "%s: jvp relative error %g against JAX (%s)", c->name, e, cj_error_message(ctx));
        }
        if (c->red != CJ_WINDOW_SUM) {
            e = rel_err(to, cj_array(ctx, CJ_F64, c->rank, od, tref));
            CHECK_MSG(e == 0, "%s: jvp picks another element than the first arg-max (%g)", c->name, e);
        }
        free(ref), free(tref);

        /* gradient against JAX's */
        cj_val g;
        cj_func *gf = cj_grad(cj_func_new(ctx, "loss", f_loss, 1, 1, &d), NULL);
        CHECK(cj_call(gf, &x, &g) == CJ_OK);
        if (c->has_grad) {
            e = rel_err(g, load(ctx, c->name, "grad"));
            CHECK_MSG(e <= tol * 4, "%s: grad relative error %g against JAX (%s)", c->name, e, cj_error_message(ctx));
        }
        /* <w, J t> = <Jᵀ w, t>: the scatter is the gather's transpose */
        double lhs = dot(d.w, to), rhs = dot(g, t);
        CHECK_MSG(fabs(lhs - rhs) <= 1e-5 * (fabs(lhs) + 1), "%s: <w, Jt> %g vs <J'w, t> %g", c->name, lhs, rhs);

        /* jit, each backend, against eager, bit for bit: forward and grad */
        cj_backend be[2] = {CJ_BACKEND_INTERP, CJ_BACKEND_CC};
        for (int b = 0; b < 2 && (i % 3 == 0 || c->red != CJ_WINDOW_SUM); b++) {
            cj_jit_opts jo = {.backend = be[b]};
            cj_val jout, jg;
            CHECK(cj_call(cj_jit(f, &jo), &x, &jout) == CJ_OK);
            CHECK_MSG(tu_same_bits(jout, got), "%s: jit backend %d differs from eager", c->name, (int)be[b]);
            CHECK(cj_call(cj_jit(gf, &jo), &x, &jg) == CJ_OK);
            CHECK_MSG(rel_err(jg, g) <= tol, "%s: jit grad backend %d differs from eager", c->name, (int)be[b]);
        }
        cj_ctx_free(ctx);
    }
}

/* Piecewise linear (max/min) or linear (sum): a central difference with a
 * small step is the jvp wherever no tie is crossed (random normals). */
TEST(reduce_window_jvp_matches_central_differences) {
    static rw_case cs[64];
    int n = n_cases("CASES", cs, 64), checked = 0;
    for (int i = 0; i < n; i++) {
        rw_case *c = &cs[i];
        if (!strstr(c->name, "f64")) continue;
        cj_ctx *ctx = cj_ctx_new(NULL);
        cj_val x = load(ctx, c->name, "x"), t = load(ctx, c->name, "t");
        setup_case(ctx, c, x);
        fn_data d = {c, {0}};
        cj_val po, to;
        CHECK(cj_jvp(cj_func_new(ctx, "rw", f_rw, 1, 1, &d), &x, &t, &po, &to) == CJ_OK);
        cj_val hs = cj_scalar_typed(ctx, 1e-7, CJ_F64);
        cj_val plus = cj_reduce_window(cj_add(x, cj_mul(hs, t)), c->red, c->win, &c->o);
        cj_val minus = cj_reduce_window(cj_sub(x, cj_mul(hs, t)), c->red, c->win, &c->o);
        cj_val fd = cj_div(cj_sub(plus, minus), cj_scalar_typed(ctx, 2e-7, CJ_F64));
        double e = rel_err(to, fd);
        CHECK_MSG(e <= 1e-7, "%s: jvp vs central difference %g", c->name, e);
        checked++;
        cj_ctx_free(ctx);
    }
    CHECK(checked >= 3);
}

/* vmap of the reduction and of its gradient (the select_and_* pair
 * batched) against a loop of single calls. */
TEST(reduce_window_vmap_matches_loop) {
    static rw_case cs[64];
    int n = n_cases("CASES", cs, 64);
    for (int i = 0; i < n; i++) {
        rw_case *c = &cs[i];
        if (c->has_grad == 0) continue;
        cj_ctx *ctx = cj_ctx_new(NULL);
        cj_val x = load(ctx, c->name, "x");
        setup_case(ctx, c, x);
        cj_val x2 = cj_mul(x, cj_scalar(ctx, -0.5));
        int64_t ax = c->rank > 1 ? 1 : 0; /* batch in the middle */
        cj_val xs = cj_stack(2, (cj_val[]){x, x2}, ax);
        fn_data d = {c, load(ctx, c->name, "w")};
        cj_vmap_opts vo = {.in_axes = (int64_t[]){ax}, .out_axes = (int64_t[]){ax}};
        cj_func *fs[2] = {cj_func_new(ctx, "rw", f_rw, 1, 1, &d),
                          cj_grad(cj_func_new(ctx, "loss", f_loss, 1, 1, &d), NULL)};
        for (int k = 0; k < 2; k++) {
            cj_val out;
            CHECK_MSG(cj_call(cj_vmap(fs[k], &vo), &xs, &out) == CJ_OK, "%s: %s", c->name, cj_error_message(ctx));
            for (int b = 0; b < 2; b++) {
                cj_val want;
                CHECK(cj_call(fs[k], b ? &x2 : &x, &want) == CJ_OK);
                int64_t start[9] = {0}, limit[9];
                for (int a = 0; a < cj_val_rank(out); a++) limit[a] = cj_val_dim(out, a);
                start[ax] = b, limit[ax] = b + 1;
                cj_val got = cj_squeeze(cj_slice(out, start, limit, NULL), 1, (int64_t[]){ax});
                CHECK_MSG(tu_same_bits(got, want), "%s: vmap %s example %d differs from the single call", c->name,
                          k ? "grad" : "forward", b);
            }
        }
        cj_ctx_free(ctx);
    }
}

/* ---- pooling --------------------------------------------------------------- */

typedef struct pool_data {
    const char *kind;
    cj_pool_opts o;
    int64_t window[2];
    cj_val w;
} pool_data;

static cj_val apply_pool(const pool_data *d, cj_val x) {
    if (!strcmp(d->kind, "max_pool")) return cj_max_pool(x, 2, d->window, &d->o);
    if (!strcmp(d->kind, "min_pool")) return cj_min_pool(x, 2, d->window, &d->o);
    return cj_avg_pool(x, 2, d->window, &d->o);
}
static void f_pool(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    out[0] = apply_pool(user, in[0]);
}
static void f_pool_loss(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    out[0] = cj_sum(cj_mul(((pool_data *)user)->w, apply_pool(user, in[0])), -1, NULL, 0);
}

TEST(pooling_matches_flax_formulas_in_jax) {
    static rw_case cs[64];
    int n = n_cases("POOLS", cs, 64);
    CHECK_MSG(n >= 7, "only %d pooling cases", n);
    for (int i = 0; i < n; i++) {
        rw_case *c = &cs[i];
        cj_ctx *ctx = cj_ctx_new(NULL);
        cj_val x = load(ctx, c->name, "x"), want = load(ctx, c->name, "out");
        int64_t prm[8];
        cj_val pv = load(ctx, c->name, "params");
        cj_read_as(pv, CJ_I64, prm, sizeof prm[0] * (size_t)cj_val_size(pv));
        int64_t strides[2] = {prm[2], prm[3]};
        pool_data d = {.kind = c->kind, .window = {prm[0], prm[1]}, .w = load(ctx, c->name, "w")};
        d.o.strides = strides;
        d.o.pad_type = prm[4] ? CJ_PAD_SAME : CJ_PAD_VALID;
        d.o.count_exclude_pad = strstr(c->kind, "excl") != NULL;
        if (d.o.count_exclude_pad) d.kind = "avg_pool";
        double tol = cj_val_dtype(x) == CJ_F32 ? 2e-6 : 1e-14;
        cj_val got = apply_pool(&d, x);
        double e = rel_err(got, want);
        CHECK_MSG(e <= tol, "%s: relative error %g against JAX (%s)", c->name, e, cj_error_message(ctx));
        cj_val g;
        cj_func *gf = cj_grad(cj_func_new(ctx, "loss", f_pool_loss, 1, 1, &d), NULL);
        CHECK(cj_call(gf, &x, &g) == CJ_OK);
        e = rel_err(g, load(ctx, c->name, "grad"));
        CHECK_MSG(e <= tol * 4, "%s: grad relative error %g against JAX", c->name, e);
        cj_jit_opts jo = {.backend = CJ_BACKEND_CC};
        cj_val jg, jout;
        CHECK(cj_call(cj_jit(cj_func_new(ctx, "pool", f_pool, 1, 1, &d), &jo), &x, &jout) == CJ_OK);
        CHECK_MSG(rel_err(jout, got) <= tol, "%s: jit differs from eager", c->name);
        CHECK(cj_call(cj_jit(gf, &jo), &x, &jg) == CJ_OK);
        CHECK_MSG(rel_err(jg, g) <= tol, "%s: jit grad differs from eager", c->name);
        /* without the batch axis: the same as batch 1 */
        int64_t s0[4] = {0}, l0[4] = {1, cj_val_dim(x, 1), cj_val_dim(x, 2), cj_val_dim(x, 3)};
        cj_val x0 = cj_slice(x, s0, l0, NULL);
        cj_val y0 = apply_pool(&d, cj_squeeze(x0, 1, (int64_t[]){0}));
        cj_val y1 = apply_pool(&d, x0);
        CHECK_MSG(tu_same_bits(cj_expand_dims(y0, 0), y1), "%s: unbatched input", c->name);
        cj_ctx_free(ctx);
    }
}

/* ---- printing, second order, sizes, errors --------------------------------- */

static void f_maxpool(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    cj_pool_opts o = {.strides = (int64_t[]){2, 2}};
    out[0] = cj_max_pool(in[0], 2, (int64_t[]){2, 2}, &o);
}
static void f_maxpool_sq(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    cj_val y;
    f_maxpool(ctx, in, &y, user);
    out[0] = cj_sum(cj_mul(y, y), -1, NULL, 0);
}

TEST(reduce_window_prints_as_jax) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_spec spec = cj_spec_make(CJ_F32, 4, (int64_t[]){2, 4, 6, 3});
    char *text = cj_make_jaxpr(cj_func_new(ctx, "pool", f_maxpool, 1, 1, NULL), 1, &spec);
    CHECK(text);
    CHECK_STR_CONTAINS(text, "f32[2,2,3,3] = reduce_window_max[base_dilation=(1, 1, 1, 1) padding=((0, 0), (0, 0), "
                             "(0, 0), (0, 0)) window_dilation=(1, 1, 1, 1) window_dimensions=(1, 2, 2, 1) "
                             "window_strides=(1, 2, 2, 1)]");
    cj_string_free(ctx, text);
    text = cj_make_jaxpr(cj_grad(cj_func_new(ctx, "sq", f_maxpool_sq, 1, 1, NULL), NULL), 1, &spec);
    CHECK(text);
    CHECK_STR_CONTAINS(text, "f32[2,4,6,3] = select_and_scatter_add[padding=((0, 0), (0, 0), (0, 0), (0, 0)) "
                             "select_prim=ge window_dimensions=(1, 2, 2, 1) window_strides=(1, 2, 2, 1)]");
    cj_string_free(ctx, text);
    cj_ctx_free(ctx);
}

/* grad(sum(maxpool(x)²)) = scatter(2·maxpool(x)); its jvp goes through
 * the scatter's jvp and the gather: 2·scatter(gather(t)). Against central
 * differences of the gradient itself. */
TEST(max_pool_second_order_matches_differences) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t dims[4] = {2, 4, 6, 3};
    cj_val x = cj_reshape(tu_ramp(ctx, 144, 0.37f, -20.0f), 4, dims);
    x = cj_sin(cj_astype(x, CJ_F64));
    cj_val t = cj_cos(cj_mul(x, cj_scalar(ctx, 3.0)));
    cj_func *g = cj_grad(cj_func_new(ctx, "sq", f_maxpool_sq, 1, 1, NULL), NULL);
    cj_val po, to, gp, gm;
    CHECK(cj_jvp(g, &x, &t, &po, &to) == CJ_OK);
    cj_val h = cj_scalar_typed(ctx, 1e-6, CJ_F64);
    CHECK(cj_call(g, (cj_val[]){cj_add(x, cj_mul(h, t))}, &gp) == CJ_OK);
    CHECK(cj_call(g, (cj_val[]){cj_sub(x, cj_mul(h, t))}, &gm) == CJ_OK);
    cj_val fd = cj_div(cj_sub(gp, gm), cj_scalar_typed(ctx, 2e-6, CJ_F64));
    double e = rel_err(to, fd);
    CHECK_MSG(e <= 1e-6, "jvp of grad vs differences %g (%s)", e, cj_error_message(ctx));
    cj_ctx_free(ctx);
}

TEST(reduce_window_zero_sizes_and_rank0) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val x = cj_ones(ctx, CJ_F32, 2, (int64_t[]){3, 2});
    cj_val y = cj_reduce_window(x, CJ_WINDOW_MAX, (int64_t[]){2, 3}, NULL); /* window larger than the input */
    CHECK(!cj_is_error(y) && cj_val_dim(y, 0) == 2 && cj_val_dim(y, 1) == 0);
    cj_val e0 = cj_zeros(ctx, CJ_F32, 2, (int64_t[]){0, 4});
    cj_val ys = cj_reduce_window(e0, CJ_WINDOW_SUM, (int64_t[]){1, 2}, &(cj_window_opts){.pad_type = CJ_PAD_SAME});
    CHECK(!cj_is_error(ys) && cj_val_size(ys) == 0 && cj_val_dim(ys, 1) == 4);
    cj_val s = cj_scalar_typed(ctx, -0.0, CJ_F32);
    float v;
    CHECK(cj_read(cj_reduce_window(s, CJ_WINDOW_SUM, NULL, NULL), &v, sizeof v) == CJ_OK);
    CHECK(v == 0 && !signbit(v)); /* the identity +0 plus -0, as XLA */
    CHECK(cj_read(cj_reduce_window(s, CJ_WINDOW_MAX, NULL, NULL), &v, sizeof v) == CJ_OK);
    CHECK(v == 0 && signbit(v));
    cj_ctx_free(ctx);
}

TEST(reduce_window_errors_name_the_shapes) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val x = cj_zeros(ctx, CJ_F32, 3, (int64_t[]){2, 5, 5});
    CHECK(cj_is_error(cj_reduce_window(x, CJ_WINDOW_MAX, (int64_t[]){1, 0, 2}, NULL)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "reduce_window: window_dimensions must be positive");
    cj_error_clear(ctx);
    cj_window_opts o = {.padding = (int64_t[]){0, 0, -4, -3, 0, 0}};
    CHECK(cj_is_error(cj_reduce_window(x, CJ_WINDOW_SUM, (int64_t[]){1, 1, 1}, &o)));
    CHECK_STR_CONTAINS(cj_error_message(ctx),
                       "reduce_window_sum: padding (-4, -3) of axis 1 of f32[2,5,5] leaves a negative size");
    cj_error_clear(ctx);
    cj_val xi = cj_zeros(ctx, CJ_BOOL, 2, (int64_t[]){4, 4}); /* integers are taken (test_dtypes_reduce.c) */
    CHECK(cj_is_error(cj_reduce_window(xi, CJ_WINDOW_MIN, (int64_t[]){2, 2}, NULL)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "reduce_window_min: operand must be a number (not bool), got bool[4,4]");
    cj_error_clear(ctx);
    CHECK(cj_is_error(cj_reduce_window(x, (cj_window_reduction)7, (int64_t[]){1, 1, 1}, NULL)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "reduce_window: unknown reduction 7");
    cj_error_clear(ctx);
    CHECK(cj_is_error(cj_max_pool(cj_zeros(ctx, CJ_F32, 2, (int64_t[]){4, 4}), 2, (int64_t[]){2, 2}, NULL)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "max_pool: input f32[4,4] must have rank 4 (batch, 2 spatial, "
                                              "features) or 3 (no batch)");
    cj_error_clear(ctx);
    cj_pool_opts po = {.strides = (int64_t[]){0, 1}};
    CHECK(cj_is_error(cj_avg_pool(x, 1, (int64_t[]){2}, &po)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "avg_pool: window_strides must be positive");
    cj_error_clear(ctx);
    cj_ctx_free(ctx);
}

/* Every allocation failing in turn (the window tables, the results, the
 * gradient's program): a clean error each time, nothing leaked. */
TEST(reduce_window_out_of_memory_is_clean) {
    int succeeded = 0;
    for (long long fail = 1; fail < 600 && !succeeded; fail++) {
        tu_alloc st;
        memset(&st, 0, sizeof st);
        st.fail_at = fail;
        cj_allocator al = tu_allocator(&st);
        cj_ctx *ctx = cj_ctx_new(&al);
        if (!ctx) continue;
        cj_val x = cj_reshape(tu_ramp(ctx, 2 * 4 * 6 * 3, 0.1f, -1.0f), 4, (int64_t[]){2, 4, 6, 3});
        cj_val g;
        cj_status s = cj_call(cj_grad(cj_func_new(ctx, "sq", f_maxpool_sq, 1, 1, NULL), NULL), &x, &g);
        int failed = st.failed;
        CHECK(failed || s == CJ_OK);
        if (s == CJ_OK) { /* (a failure some path tolerates, such as a cache's, still gives the result) */
            float b[144];
            CHECK(cj_read(g, b, sizeof b) == CJ_OK);
            /* x rises along every axis: each 2x2 window's max is its last element */
            CHECK(b[(0 * 6 + 1) * 3] == 0 && fabsf(b[(1 * 6 + 1) * 3] - 2 * (0.1f * 21 - 1.0f)) < 1e-5f);
            succeeded = !failed;
        } else {
            CHECK(cj_error(ctx) != CJ_OK);
        }
        cj_ctx_free(ctx);
        CHECK_EQ_INT(st.live, 0);
    }
    CHECK(succeeded);
}
