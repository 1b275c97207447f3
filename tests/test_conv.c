/* test_conv.c — conv_general_dilated against JAX's results
 * (tests/data/conv/, written by JAX 0.10 through
 * tests/data/gen_conv_fixtures.py) and against a direct loop written here;
 * its gradients against JAX's, its jvp against central differences (exact
 * up to rounding for a bilinear map), vmap against a loop of single calls,
 * jit (interpreter and generated C) against eager bit for bit, and its
 * errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "test_util.h"

typedef struct conv_case {
    char name[64], ls[16], rs[16], os[16];
    int64_t params[64];
    int nsp;
    int64_t strides[8], pads[16], ld[8], rd[8];
    cj_conv_opts o;
} conv_case;

static cj_val load(cj_ctx *ctx, const char *c, const char *what) {
    char path[512];
    snprintf(path, sizeof path, "%s/conv/%.63s_%.31s.npy", CJAX_TEST_DATA_DIR, c, what);
    return cj_load_npy(ctx, path);
}

static void setup_case(cj_ctx *ctx, conv_case *c) {
    cj_val pv = load(ctx, c->name, "params");
    cj_read_as(pv, CJ_I64, c->params, sizeof(int64_t) * (size_t)cj_val_size(pv));
    c->nsp = (int)strlen(c->ls) - 2;
    const int64_t *q = c->params + 2;
    for (int k = 0; k < c->nsp; k++) c->strides[k] = q[k];
    for (int k = 0; k < 2 * c->nsp; k++) c->pads[k] = q[c->nsp + k];
    for (int k = 0; k < c->nsp; k++) c->ld[k] = q[3 * c->nsp + k], c->rd[k] = q[4 * c->nsp + k];
    memset(&c->o, 0, sizeof c->o);
    c->o.window_strides = c->strides;
    c->o.padding = c->pads;
    c->o.lhs_dilation = c->ld;
    c->o.rhs_dilation = c->rd;
    c->o.lhs_spec = c->ls;
    c->o.rhs_spec = c->rs;
    c->o.out_spec = c->os;
    c->o.feature_group_count = c->params[0];
    c->o.batch_group_count = c->params[1];
}

static double *read_f64(cj_val v) {
    int64_t n = cj_val_size(v);
    double *b = malloc(sizeof(double) * (size_t)(n + 1));
    cj_read_as(v, CJ_F64, b, sizeof(double) * (size_t)n);
    return b;
}

/* max |got - want| / max |want|. */
static double rel_err(cj_val got, cj_val want) {
    int64_t n = cj_val_size(want);
    if (cj_is_error(got) || cj_val_size(got) != n) return INFINITY;
    double *g = read_f64(got), *w = read_f64(want), num = 0, den = 1e-300;
    for (int64_t i = 0; i < n; i++) {
        double e = fabs(g[i] - w[i]);
        if (!(e <= num)) num = e;
        if (fabs(w[i]) > den) den = fabs(w[i]);
    }
    free(g), free(w);
    return num / den;
}

/* ---- the direct loop: lax's definition, element by element ---------------- */

static int pos(const char *s, char ch) { return (int)(strchr(s, ch) - s); }

/* out (as the out spec lays it out) = conv of lhs and rhs by c's options. */
static double *reference(const conv_case *c, cj_val lhs, cj_val rhs, int64_t *odims) {
    int rank = c->nsp + 2;
    int64_t ld_[8], rd_[8];
    for (int i = 0; i < rank; i++) ld_[i] = cj_val_dim(lhs, i), rd_[i] = cj_val_dim(rhs, i);
    double *L = read_f64(lhs), *R = read_f64(rhs);
    /* spatial letters in rhs_spec's order */
    char sp[8];
    int ns = 0;
    for (const char *r = c->rs; *r; r++)
        if (*r != 'O' && *r != 'I') sp[ns++] = *r;
    int64_t G = c->params[0], B = c->params[1];
    int64_t N = ld_[pos(c->ls, 'N')], C = ld_[pos(c->ls, 'C')], O = rd_[pos(c->rs, 'O')], I = rd_[pos(c->rs, 'I')];
    int64_t in[8], k[8], out[8];
    for (int s = 0; s < ns; s++) {
        in[s] = ld_[pos(c->ls, sp[s])];
        k[s] = rd_[pos(c->rs, sp[s])];
        int64_t din = in[s] ? (in[s] - 1) * c->ld[s] + 1 : 0, dk = k[s] ? (k[s] - 1) * c->rd[s] + 1 : 0;
        int64_t padded = din + c->pads[2 * s] + c->pads[2 * s + 1];
        out[s] = padded < dk ? 0 : (padded - dk) / c->strides[s] + 1;
    }
    odims[pos(c->os, 'N')] = N / B;
    odims[pos(c->os, 'C')] = O;
    for (int s = 0; s < ns; s++) odims[pos(c->os, sp[s])] = out[s];
    int64_t total = 1, lst[8], rst[8], ost[8];
    for (int i = 0; i < rank; i++) total *= odims[i];
    lst[rank - 1] = rst[rank - 1] = ost[rank - 1] = 1;
    for (int i = rank - 2; i >= 0; i--)
        lst[i] = lst[i + 1] * ld_[i + 1], rst[i] = rst[i + 1] * rd_[i + 1], ost[i] = ost[i + 1] * odims[i + 1];
    double *res = calloc((size_t)total + 1, sizeof(double));
    int64_t og = O / (G * B);
    for (int64_t e = 0; e < total; e++) {
        int64_t oi[8], rem = e;
        for (int i = rank - 1; i >= 0; i--) oi[i] = rem % odims[i], rem /= odims[i];
        int64_t n = oi[pos(c->os, 'N')], o = oi[pos(c->os, 'C')], g = o / og;
        int64_t img = B > 1 ? g * (N / B) + n : n, c0 = G > 1 ? g * I : 0;
        double acc = 0;
        int64_t kk[8] = {0}, ktotal = 1;
        for (int s = 0; s < ns; s++) ktotal *= k[s];
        for (int64_t ci = 0; ci < I; ci++)
            for (int64_t kt = 0; kt < ktotal; kt++) {
                int64_t r2 = kt, loff = img * lst[pos(c->ls, 'N')] + (c0 + ci) * lst[pos(c->ls, 'C')];
                int64_t roff = o * rst[pos(c->rs, 'O')] + ci * rst[pos(c->rs, 'I')];
                int inside = 1;
                for (int s = ns - 1; s >= 0; s--) kk[s] = r2 % k[s], r2 /= k[s];
                for (int s = 0; s < ns; s++) {
                    int64_t q = oi[pos(c->os, sp[s])] * c->strides[s] + kk[s] * c->rd[s] - c->pads[2 * s];
                    if (q < 0 || q % c->ld[s] || q / c->ld[s] >= in[s]) inside = 0;
                    loff += (q / (c->ld[s] ? c->ld[s] : 1)) * lst[pos(c->ls, sp[s])];
                    roff += kk[s] * rst[pos(c->rs, sp[s])];
                }
                if (inside) acc += L[loff] * R[roff];
            }
        res[e] = acc;
    }
    (void)C;
    free(L), free(R);
    return res;
}

/* ---- functions of the cases ------------------------------------------------ */

typedef struct fn_data {
    const cj_conv_opts *o;
    cj_val w;
} fn_data;

static void f_conv(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    out[0] = cj_conv_general_dilated(in[0], in[1], ((fn_data *)user)->o);
}
static void f_loss(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    fn_data *d = user;
    out[0] = cj_sum(cj_mul(d->w, cj_conv_general_dilated(in[0], in[1], d->o)), -1, NULL, 0);
}

static int n_cases(conv_case *cs, int cap) {
    char path[512];
    snprintf(path, sizeof path, "%s/conv/CASES", CJAX_TEST_DATA_DIR);
    FILE *fp = fopen(path, "r");
    if (!fp) return 0;
    int n = 0;
    while (n < cap && fscanf(fp, "%63s %15s %15s %15s", cs[n].name, cs[n].ls, cs[n].rs, cs[n].os) == 4) n++;
    fclose(fp);
    return n;
}

TEST(conv_fixtures_match_jax_and_loop) {
    static conv_case cs[64];
    int n = n_cases(cs, 64);
    CHECK_MSG(n >= 15, "only %d conv cases in tests/data/conv/CASES", n);
    for (int i = 0; i < n; i++) {
        conv_case *c = &cs[i];
        cj_ctx *ctx = cj_ctx_new(NULL);
        setup_case(ctx, c);
        cj_val l = load(ctx, c->name, "lhs"), r = load(ctx, c->name, "rhs"), want = load(ctx, c->name, "out");
        CHECK_MSG(!cj_is_error(want), "%s: %s", c->name, cj_error_message(ctx));
        int f32 = cj_val_dtype(l) == CJ_F32;
        double tol = f32 ? 2e-5 : 1e-12;
        cj_val got = cj_conv_general_dilated(l, r, &c->o);
        CHECK_MSG(!cj_is_error(got), "%s: %s", c->name, cj_error_message(ctx));
        CHECK_MSG(cj_val_dtype(got) == cj_val_dtype(l), "%s: dtype", c->name);
        for (int a = 0; a < cj_val_rank(want); a++)
            CHECK_MSG(cj_val_dim(got, a) == cj_val_dim(want, a), "%s: axis %d is %lld, JAX's %lld", c->name, a,
                      (long long)cj_val_dim(got, a), (long long)cj_val_dim(want, a));
        double e = rel_err(got, want);
        CHECK_MSG(e <= tol, "%s: relative error %g against JAX", c->name, e);
        int64_t od[8];
        double *ref = reference(c, l, r, od);
        cj_val refv = cj_array(ctx, CJ_F64, cj_val_rank(want), od, ref);
        free(ref);
        e = rel_err(got, refv);
        CHECK_MSG(e <= tol, "%s: relative error %g against the loop", c->name, e);

        /* gradients of sum(w * conv) against JAX's */
        fn_data d = {&c->o, load(ctx, c->name, "w")};
        cj_grad_opts both = {.n_argnums = 2, .argnums = (int[]){0, 1}};
        cj_val g[2];
        CHECK(cj_call(cj_grad(cj_func_new(ctx, "loss", f_loss, 2, 1, &d), &both), (cj_val[]){l, r}, g) == CJ_OK);
        e = rel_err(g[0], load(ctx, c->name, "grad_lhs"));
        CHECK_MSG(e <= tol * 4, "%s: grad lhs relative error %g (%s)", c->name, e, cj_error_message(ctx));
        e = rel_err(g[1], load(ctx, c->name, "grad_rhs"));
        CHECK_MSG(e <= tol * 4, "%s: grad rhs relative error %g", c->name, e);

        /* jit, each backend, against eager, bit for bit */
        cj_backend be[2] = {CJ_BACKEND_INTERP, CJ_BACKEND_CC};
        for (int b = 0; b < 2 && i % 4 == 0; b++) {
            cj_jit_opts jo = {.backend = be[b]};
            cj_val jout;
            CHECK(cj_call(cj_jit(cj_func_new(ctx, "conv", f_conv, 2, 1, &d), &jo), (cj_val[]){l, r}, &jout) == CJ_OK);
            CHECK_MSG(tu_same_bits(jout, got), "%s: jit backend %d differs from eager", c->name, (int)be[b]);
        }
        cj_ctx_free(ctx);
    }
}

/* The convolution is bilinear, so a central difference is its jvp up to
 * rounding whatever the step. */
TEST(conv_jvp_matches_central_differences) {
    static conv_case cs[64];
    int n = n_cases(cs, 64);
    int checked = 0;
    for (int i = 0; i < n; i++) {
        conv_case *c = &cs[i];
        if (!strstr(c->name, "f64")) continue;
        cj_ctx *ctx = cj_ctx_new(NULL);
        setup_case(ctx, c);
        cj_val l = load(ctx, c->name, "lhs"), r = load(ctx, c->name, "rhs");
        cj_val tl = cj_mul(l, cj_scalar(ctx, 0.5)), tr = cj_add(r, cj_scalar(ctx, 0.25));
        fn_data d = {&c->o, {0}};
        cj_func *f = cj_func_new(ctx, "conv", f_conv, 2, 1, &d);
        cj_val po, to;
        CHECK(cj_jvp(f, (cj_val[]){l, r}, (cj_val[]){tl, tr}, &po, &to) == CJ_OK);
        double h = 1e-3;
        cj_val hs = cj_scalar(ctx, h);
        cj_val plus = cj_conv_general_dilated(cj_add(l, cj_mul(hs, tl)), cj_add(r, cj_mul(hs, tr)), &c->o);
        cj_val minus = cj_conv_general_dilated(cj_sub(l, cj_mul(hs, tl)), cj_sub(r, cj_mul(hs, tr)), &c->o);
        cj_val fd = cj_div(cj_sub(plus, minus), cj_scalar(ctx, 2 * h));
        double e = rel_err(to, fd);
        CHECK_MSG(e <= 1e-9, "%s: jvp vs central difference %g", c->name, e);
        checked++;
        cj_ctx_free(ctx);
    }
    CHECK(checked >= 3);
}

/* vmap over lhs, rhs or both against a loop of single calls. */
TEST(conv_vmap_matches_loop) {
    static conv_case cs[64];
    int n = n_cases(cs, 64);
    for (int i = 0; i < n; i++) {
        conv_case *c = &cs[i];
        cj_ctx *ctx = cj_ctx_new(NULL);
        setup_case(ctx, c);
        cj_val l = load(ctx, c->name, "lhs"), r = load(ctx, c->name, "rhs");
        cj_val l2 = cj_mul(l, cj_scalar(ctx, -0.5)), r2 = cj_add(r, cj_scalar(ctx, 1.0));
        cj_val ls = cj_concatenate(2, (cj_val[]){cj_expand_dims(l, 0), cj_expand_dims(l2, 0)}, 0);
        cj_val rs = cj_concatenate(2, (cj_val[]){cj_expand_dims(r, 1), cj_expand_dims(r2, 1)}, 1);
        fn_data d = {&c->o, {0}};
        for (int mode = 0; mode < 3; mode++) {
            int64_t axes[2] = {mode != 2 ? 0 : CJ_NOT_MAPPED, mode != 1 ? 1 : CJ_NOT_MAPPED};
            cj_vmap_opts vo = {.in_axes = axes};
            cj_val out;
            cj_val args[2] = {mode != 2 ? ls : l, mode != 1 ? rs : r};
            CHECK_MSG(cj_call(cj_vmap(cj_func_new(ctx, "conv", f_conv, 2, 1, &d), &vo), args, &out) == CJ_OK,
                      "%s mode %d: %s", c->name, mode, cj_error_message(ctx));
            for (int b = 0; b < 2; b++) {
                cj_val lb = b && mode != 2 ? l2 : l, rb = b && mode != 1 ? r2 : r;
                cj_val want = cj_conv_general_dilated(lb, rb, &c->o);
                int64_t start[9] = {0}, limit[9];
                int rank = cj_val_rank(out);
                for (int a = 0; a < rank; a++) limit[a] = cj_val_dim(out, a);
                start[0] = b, limit[0] = b + 1;
                cj_val got = cj_squeeze(cj_slice(out, start, limit, NULL), 1, (int64_t[]){0});
                double e = rel_err(got, want);
                CHECK_MSG(e <= (cj_val_dtype(l) == CJ_F32 ? 1e-5 : 1e-12), "%s mode %d example %d: %g", c->name,
                          mode, b, e);
            }
        }
        cj_ctx_free(ctx);
    }
}

TEST(conv_same_padding_and_lax_conv) {
    int64_t pads[4];
    CHECK(cj_padtype_to_pads(2, (int64_t[]){7, 8}, (int64_t[]){3, 4}, (int64_t[]){2, 3}, CJ_PAD_SAME, pads) == 0);
    /* out 4: pad (4-1)*2+3-7 = 2 → (1, 1); out 3: (3-1)*3+4-8 = 2 → (1, 1) */
    CHECK(pads[0] == 1 && pads[1] == 1 && pads[2] == 1 && pads[3] == 1);
    CHECK(cj_padtype_to_pads(1, (int64_t[]){5}, (int64_t[]){4}, NULL, CJ_PAD_SAME, pads) == 0);
    CHECK(pads[0] == 1 && pads[1] == 2); /* total 3: the odd one after */
    CHECK(cj_padtype_to_pads(1, (int64_t[]){5}, (int64_t[]){4}, NULL, CJ_PAD_SAME_LOWER, pads) == 0);
    CHECK(pads[0] == 2 && pads[1] == 1);
    CHECK(cj_padtype_to_pads(1, (int64_t[]){5}, (int64_t[]){4}, NULL, CJ_PAD_VALID, pads) == 0);
    CHECK(pads[0] == 0 && pads[1] == 0);

    cj_ctx *ctx = cj_ctx_new(NULL);
    float x[2 * 5 * 5], w[3 * 2 * 3 * 3];
    for (int i = 0; i < 50; i++) x[i] = (float)((i * 7) % 11) - 5;
    for (int i = 0; i < 54; i++) w[i] = (float)((i * 5) % 7) - 3;
    cj_val xv = tu_f32(ctx, 4, (int64_t[]){1, 2, 5, 5}, x), wv = tu_f32(ctx, 4, (int64_t[]){3, 2, 3, 3}, w);
    cj_val y = cj_conv(xv, wv, NULL, CJ_PAD_SAME);
    CHECK(cj_val_dim(y, 1) == 3 && cj_val_dim(y, 2) == 5 && cj_val_dim(y, 3) == 5);
    /* element (0, 1, 0, 0) by hand: the window at the top-left corner, padding 1 */
    float want = 0;
    for (int c = 0; c < 2; c++)
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) {
                int yy = a - 1, xx = b - 1;
                if (yy >= 0 && xx >= 0) want += x[c * 25 + yy * 5 + xx] * w[((1 * 2 + c) * 3 + a) * 3 + b];
            }
    float got[75];
    CHECK(cj_read(y, got, sizeof got) == CJ_OK);
    CHECK_NEAR(got[25], want, 0, 0); /* small integers: exact */
    cj_val v = cj_conv(xv, wv, (int64_t[]){2, 2}, CJ_PAD_VALID);
    CHECK(cj_val_dim(v, 2) == 2 && cj_val_dim(v, 3) == 2);
    cj_ctx_free(ctx);
}

TEST(conv_errors_name_the_shapes) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val x = cj_zeros(ctx, CJ_F32, 4, (int64_t[]){1, 4, 5, 5});
    cj_val w3 = cj_zeros(ctx, CJ_F32, 3, (int64_t[]){2, 4, 3});
    CHECK(cj_is_error(cj_conv(x, w3, NULL, CJ_PAD_VALID)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "conv_general_dilated: lhs f32[1,4,5,5] and rhs f32[2,4,3]");
    cj_error_clear(ctx);
    cj_val w = cj_zeros(ctx, CJ_F32, 4, (int64_t[]){2, 3, 3, 3});
    CHECK(cj_is_error(cj_conv(x, w, NULL, CJ_PAD_VALID)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "lhs feature dimension (size 4) of f32[1,4,5,5] must equal rhs input "
                                              "feature dimension (size 3)");
    cj_error_clear(ctx);
    cj_conv_opts o = {.feature_group_count = 3};
    CHECK(cj_is_error(cj_conv_general_dilated(x, w, &o)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "feature_group_count 3 must divide the lhs feature dimension (size 4)");
    cj_error_clear(ctx);
    cj_val w2 = cj_zeros(ctx, CJ_F32, 4, (int64_t[]){3, 2, 3, 3});
    o.feature_group_count = 2;
    CHECK(cj_is_error(cj_conv_general_dilated(x, w2, &o)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "feature_group_count 2 must divide the rhs output feature dimension");
    cj_error_clear(ctx);
    cj_conv_opts ob = {.batch_group_count = 2};
    CHECK(cj_is_error(cj_conv_general_dilated(x, cj_zeros(ctx, CJ_F32, 4, (int64_t[]){2, 4, 3, 3}), &ob)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "batch_group_count 2 must divide the lhs batch dimension (size 1)");
    cj_error_clear(ctx);
    cj_conv_opts os = {.lhs_spec = "NHWC", .rhs_spec = "HWIO", .out_spec = "NHWX"};
    CHECK(cj_is_error(cj_conv_general_dilated(x, w, &os)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "out_spec \"NHWX\" must name one 'N' and one 'C'");
    cj_error_clear(ctx);
    cj_conv_opts st = {.window_strides = (int64_t[]){1, 0}};
    CHECK(cj_is_error(cj_conv_general_dilated(x, cj_zeros(ctx, CJ_F32, 4, (int64_t[]){2, 4, 3, 3}), &st)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "window_strides must be positive, got 0");
    cj_error_clear(ctx);
    cj_val xi = cj_zeros(ctx, CJ_I32, 4, (int64_t[]){1, 4, 5, 5});
    CHECK(cj_is_error(cj_conv(xi, cj_zeros(ctx, CJ_I32, 4, (int64_t[]){2, 4, 3, 3}), NULL, CJ_PAD_VALID)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "conv_general_dilated: operands must be f32, f64, f16 or bf16, got i32[1,4,5,5]");
    cj_error_clear(ctx);
    cj_ctx_free(ctx);
}

static void f_nhwc(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    cj_conv_opts o = {.window_strides = (int64_t[]){2, 2}, .pad_type = CJ_PAD_SAME, .lhs_spec = "NHWC",
                      .rhs_spec = "HWIO", .out_spec = "NHWC"};
    out[0] = cj_conv_general_dilated(in[0], in[1], &o);
}
static void f_nhwc_loss(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    cj_val y;
    f_nhwc(ctx, in, &y, user);
    out[0] = cj_sum(cj_mul(y, y), -1, NULL, 0);
}

TEST(conv_prints_as_jax_and_jit_grad_matches_eager) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *f = cj_func_new(ctx, "conv", f_nhwc, 2, 1, NULL);
    cj_spec specs[2] = {cj_spec_make(CJ_F32, 4, (int64_t[]){2, 7, 6, 3}), cj_spec_make(CJ_F32, 4, (int64_t[]){3, 3, 3, 4})};
    char *text = cj_make_jaxpr(f, 2, specs);
    CHECK(text);
    CHECK_STR_CONTAINS(text, "f32[2,4,3,4] = conv_general_dilated[window_strides=(2, 2) padding=((1, 1), (0, 1)) "
                             "lhs_dilation=(1, 1) rhs_dilation=(1, 1) dimension_numbers=ConvDimensionNumbers("
                             "lhs_spec=(0, 3, 1, 2), rhs_spec=(3, 2, 0, 1), out_spec=(0, 3, 1, 2)) "
                             "feature_group_count=1 batch_group_count=1 precision=None preferred_element_type=f32]");
    cj_string_free(ctx, text);
    cj_val x = tu_ramp(ctx, 2 * 7 * 6 * 3, 0.01f, -1.0f), w = tu_ramp(ctx, 3 * 3 * 3 * 4, -0.02f, 0.5f);
    x = cj_reshape(x, 4, (int64_t[]){2, 7, 6, 3});
    w = cj_reshape(w, 4, (int64_t[]){3, 3, 3, 4});
    cj_grad_opts both = {.n_argnums = 2, .argnums = (int[]){0, 1}};
    cj_func *g = cj_grad(cj_func_new(ctx, "loss", f_nhwc_loss, 2, 1, NULL), &both);
    cj_val eager[2], jitted[2];
    CHECK(cj_call(g, (cj_val[]){x, w}, eager) == CJ_OK);
    cj_backend be[2] = {CJ_BACKEND_INTERP, CJ_BACKEND_CC};
    for (int b = 0; b < 2; b++) {
        cj_jit_opts jo = {.backend = be[b]};
        CHECK(cj_call(cj_jit(g, &jo), (cj_val[]){x, w}, jitted) == CJ_OK);
        for (int k = 0; k < 2; k++) CHECK_MSG(rel_err(jitted[k], eager[k]) <= 1e-6, "backend %d grad %d", b, k);
    }
    cj_ctx_free(ctx);
}

/* Empty sizes: no output positions, or an empty sum (no input features). */
TEST(conv_zero_sizes) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val x = cj_ones(ctx, CJ_F32, 4, (int64_t[]){2, 3, 2, 2}), w = cj_ones(ctx, CJ_F32, 4, (int64_t[]){4, 3, 3, 3});
    cj_val y = cj_conv(x, w, NULL, CJ_PAD_VALID); /* window larger than the input */
    CHECK(!cj_is_error(y) && cj_val_dim(y, 2) == 0 && cj_val_size(y) == 0);
    cj_val x0 = cj_ones(ctx, CJ_F32, 4, (int64_t[]){2, 0, 4, 4}), w0 = cj_ones(ctx, CJ_F32, 4, (int64_t[]){5, 0, 3, 3});
    cj_val z = cj_conv(x0, w0, NULL, CJ_PAD_SAME);
    CHECK(!cj_is_error(z) && cj_val_size(z) == 2 * 5 * 4 * 4);
    float zb[160];
    CHECK(cj_read(z, zb, sizeof zb) == CJ_OK);
    for (int i = 0; i < 160; i++) CHECK(zb[i] == 0);
    cj_ctx_free(ctx);
}

/* Every allocation failing in turn, through the permuted copies of both
 * operands and the result and the kernel's column buffers: a clean error
 * each time, nothing leaked. */
TEST(conv_out_of_memory_is_clean) {
    int succeeded = 0;
    for (long long fail = 1; fail < 400 && !succeeded; fail++) {
        tu_alloc st;
        memset(&st, 0, sizeof st);
        st.fail_at = fail;
        cj_allocator al = tu_allocator(&st);
        cj_ctx *ctx = cj_ctx_new(&al);
        if (!ctx) continue;
        cj_val x = cj_ones(ctx, CJ_F32, 4, (int64_t[]){2, 5, 6, 3}), w = cj_ones(ctx, CJ_F32, 4, (int64_t[]){3, 3, 3, 4});
        cj_conv_opts o = {.pad_type = CJ_PAD_SAME, .lhs_spec = "NHWC", .rhs_spec = "HWIO", .out_spec = "NHWC"};
        cj_val y = cj_conv_general_dilated(x, w, &o);
        int failed = st.failed;
        CHECK(failed ? cj_is_error(y) && cj_error(ctx) == CJ_ERR_OOM : !cj_is_error(y));
        if (!failed) {
            float b[2 * 5 * 6 * 4];
            CHECK(cj_read(y, b, sizeof b) == CJ_OK);
            CHECK(b[(1 * 6 + 1) * 4] == 27); /* an interior position sums 3·3·3 ones */
            succeeded = 1;
        }
        cj_ctx_free(ctx);
        CHECK_EQ_INT(st.live, 0);
    }
    CHECK(succeeded);
}

/* The channels-last kernel (NHWC lhs and result, any kernel layout)
 * against the canonical one on the same numbers laid out NCHW: strides,
 * padding (negative too), both dilations, f64. */
TEST(conv_channels_last_matches_canonical) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t xd[4] = {2, 7, 6, 3}, wd[4] = {3, 2, 3, 4};
    cj_val x = cj_sin(cj_astype(cj_reshape(tu_ramp(ctx, 2 * 7 * 6 * 3, 0.37f, -5.0f), 4, xd), CJ_F64));
    cj_val w = cj_cos(cj_astype(cj_reshape(tu_ramp(ctx, 3 * 2 * 3 * 4, 0.21f, 1.0f), 4, wd), CJ_F64));
    int64_t strides[2][2] = {{1, 1}, {2, 1}}, pads[2][4] = {{1, 1, 0, 2}, {-1, 2, 1, 0}};
    int64_t ld[2][2] = {{1, 1}, {2, 1}}, rd[2][2] = {{1, 2}, {1, 1}};
    const char *kspec[2] = {"HWIO", "OIHW"};
    for (int v = 0; v < 4; v++) {
        int a = v & 1, ks = v >> 1;
        cj_val wk = ks ? cj_transpose(w, (int64_t[]){3, 2, 0, 1}) : w;
        cj_conv_opts cl = {.window_strides = strides[a], .padding = pads[a], .lhs_dilation = ld[a],
                           .rhs_dilation = rd[a], .lhs_spec = "NHWC", .rhs_spec = kspec[ks], .out_spec = "NHWC"};
        cj_conv_opts nc = cl;
        nc.lhs_spec = "NCHW", nc.out_spec = "NCHW";
        cj_val got = cj_conv_general_dilated(x, wk, &cl);
        cj_val want = cj_conv_general_dilated(cj_transpose(x, (int64_t[]){0, 3, 1, 2}), wk, &nc);
        want = cj_transpose(want, (int64_t[]){0, 2, 3, 1});
        CHECK_MSG(rel_err(got, want) <= 1e-13, "variant %d: %g (%s)", v, rel_err(got, want), cj_error_message(ctx));
    }
    cj_ctx_free(ctx);
}
