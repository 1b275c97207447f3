/* test_autodiff.c — the autodiff transformations end to end: grad,
 * value_and_grad, jvp, vjp, linearize, jacobians and hessian against
 * closed forms and finite differences (float64); composition with jit and
 * vmap; higher order; stop_gradient; checkpoint (identical gradients, the
 * residual report per policy, less memory under jit); error cases. The
 * per-primitive rules are tested in test_ad_<family>.c. */
#include <stdlib.h>

#include "ad_check.h"
#include "harness.h"
#include "test_util.h"

static cj_val vec(cj_ctx *ctx, int64_t n, const double *v) { return cj_array(ctx, CJ_F64, 1, &n, v); }

static double read1(cj_val v, int64_t i) {
    double buf[4096];
    if (cj_val_size(v) > 4096 || cj_read_as(v, CJ_F64, buf, sizeof(double) * (size_t)cj_val_size(v)) != CJ_OK)
        return NAN;
    return buf[i];
}

/* ---- programs ---- */
/* sum(x^3 + 2x) : gradient 3x^2 + 2, second derivative (of the sum along
 * a direction) 6x */
static void f_poly(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    cj_val x = in[0];
    out[0] = cj_sum(cj_add(cj_mul(cj_mul(x, x), x), cj_mul(cj_scalar(ctx, 2.0), x)), 0, NULL, 0);
}

/* softmax cross-entropy of logits z against a one-hot label vector y:
 * -sum(y * log_softmax(z)); gradient softmax(z) - y (sum y = 1) */
static void f_xent(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u, (void)ctx;
    out[0] = cj_neg(cj_sum(cj_mul(in[1], cj_log_softmax(in[0], -1)), 0, NULL, 0));
}

/* a two-layer MLP's squared loss: sum((tanh(x W1 + b1) W2 - y)^2) / 2 */
static void f_mlp(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    cj_val h = cj_tanh(cj_add(cj_matmul(in[0], in[1]), in[2]));
    cj_val r = cj_sub(cj_matmul(h, in[3]), in[4]);
    out[0] = cj_mul(cj_scalar(ctx, 0.5), cj_sum(cj_mul(r, r), 0, NULL, 0));
}

/* ---- grad against closed forms ---- */
TEST(ad_grad_polynomial) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *f = cj_func_new(ctx, "poly", f_poly, 1, 1, NULL);
    cj_func *g = cj_grad(f, NULL);
    double xs[5] = {-1.5, -0.2, 0, 0.7, 2.0};
    cj_val x = vec(ctx, 5, xs), dx;
    CHECK(cj_call(g, &x, &dx) == CJ_OK);
    for (int i = 0; i < 5; i++) CHECK_NEAR(read1(dx, i), 3 * xs[i] * xs[i] + 2, 1e-14, 1e-14);
    /* cached: the second call does not trace again and agrees */
    cj_val dx2;
    CHECK(cj_call(g, &x, &dx2) == CJ_OK);
    CHECK_NEAR(read1(dx2, 4), 14.0, 1e-14, 0);
    cj_ctx_free(ctx);
}

TEST(ad_grad_softmax_cross_entropy) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *g = cj_grad(cj_func_new(ctx, "xent", f_xent, 2, 1, NULL), NULL);
    double z[4] = {0.3, -1.2, 2.5, 0.1}, y[4] = {0, 0, 1, 0};
    cj_val in[2] = {vec(ctx, 4, z), vec(ctx, 4, y)}, dz;
    CHECK(cj_call(g, in, &dz) == CJ_OK);
    double m = 0;
    for (int i = 0; i < 4; i++) m += exp(z[i]);
    for (int i = 0; i < 4; i++) CHECK_NEAR(read1(dz, i), exp(z[i]) / m - y[i], 1e-14, 1e-15);
    cj_ctx_free(ctx);
}

/* The MLP's gradient with respect to every parameter against central
 * differences of the loss, element by element. */
TEST(ad_grad_mlp_finite_differences) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *f = cj_func_new(ctx, "mlp", f_mlp, 5, 1, NULL);
    int argnums[4] = {1, 2, 3, 0};
    cj_grad_opts go = {4, argnums, 0};
    cj_func *g = cj_grad(f, &go);
    uint64_t seed = 7;
    int64_t dx[2] = {3, 4}, dw1[2] = {4, 5}, db1[1] = {5}, dw2[2] = {5, 2}, dy[2] = {3, 2};
    cj_val in[5] = {adc_uniform(ctx, 2, dx, -1, 1, &seed), adc_uniform(ctx, 2, dw1, -1, 1, &seed),
                    adc_uniform(ctx, 1, db1, -1, 1, &seed), adc_uniform(ctx, 2, dw2, -1, 1, &seed),
                    adc_uniform(ctx, 2, dy, -1, 1, &seed)};
    cj_val grads[4];
    CHECK(cj_call(g, in, grads) == CJ_OK);
    for (int k = 0; k < 4; k++) {
        int a = argnums[k];
        int64_t n = cj_val_size(in[a]);
        double base[64];
        CHECK(cj_read_as(in[a], CJ_F64, base, sizeof(double) * (size_t)n) == CJ_OK);
        for (int64_t i = 0; i < n; i++) {
            double h = 1e-6, fp, fm;
            cj_val args[5];
            memcpy(args, in, sizeof args);
            int64_t dims[2];
            int r = cj_val_shape(in[a], dims);
            base[i] += h;
            args[a] = cj_array(ctx, CJ_F64, r, dims, base);
            cj_val y;
            cj_call(f, args, &y);
            cj_item(y, &fp);
            base[i] -= 2 * h;
            args[a] = cj_array(ctx, CJ_F64, r, dims, base);
            cj_call(f, args, &y);
            cj_item(y, &fm);
            base[i] += h;
            CHECK_NEAR(read1(grads[k], i), (fp - fm) / (2 * h), 1e-6, 1e-8);
        }
    }
    cj_ctx_free(ctx);
}

TEST(ad_value_and_grad_aux_argnums) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *f = cj_func_new(ctx, "xent", f_xent, 2, 1, NULL);
    int argnums[2] = {1, 0};
    cj_grad_opts go = {2, argnums, 0};
    cj_func *vg = cj_value_and_grad(f, &go);
    CHECK_EQ_INT(cj_func_n_out(vg), 3);
    double z[3] = {1, 2, 3}, y[3] = {0.2, 0.3, 0.5};
    cj_val in[2] = {vec(ctx, 3, z), vec(ctx, 3, y)}, out[3], ref;
    CHECK(cj_call(vg, in, out) == CJ_OK);
    CHECK(cj_call(f, in, &ref) == CJ_OK);
    CHECK_NEAR(cj_item_or_nan(out[0]), cj_item_or_nan(ref), 1e-15, 0);
    /* d/dy = -log_softmax(z); d/dz = softmax(z) * sum(y) - y */
    double m = exp(1) + exp(2) + exp(3);
    for (int i = 0; i < 3; i++) {
        CHECK_NEAR(read1(out[1], i), -(z[i] - log(m)), 1e-14, 1e-15);
        CHECK_NEAR(read1(out[2], i), exp(z[i]) / m - y[i], 1e-14, 1e-15);
    }
    cj_ctx_free(ctx);
}

static void f_with_aux(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u, (void)ctx;
    out[0] = cj_sum(cj_sin(in[0]), 0, NULL, 0);
    out[1] = cj_cos(in[0]); /* auxiliary: returned as is */
}

TEST(ad_grad_has_aux) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_grad_opts go = {0, NULL, 1};
    cj_func *g = cj_grad(cj_func_new(ctx, "aux", f_with_aux, 1, 2, NULL), &go);
    double xs[3] = {0.1, 0.5, 1.0};
    cj_val x = vec(ctx, 3, xs), out[2];
    CHECK(cj_call(g, &x, out) == CJ_OK);
    for (int i = 0; i < 3; i++) {
        CHECK_NEAR(read1(out[0], i), cos(xs[i]), 1e-15, 0);
        CHECK_NEAR(read1(out[1], i), cos(xs[i]), 1e-15, 0);
    }
    cj_ctx_free(ctx);
}

/* ---- jvp, vjp, linearize ---- */
static void f_vecfun(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u, (void)ctx;
    /* R^3 x R^3 -> R^3: y = sin(a) * b + exp(a * b) */
    out[0] = cj_add(cj_mul(cj_sin(in[0]), in[1]), cj_exp(cj_mul(in[0], in[1])));
}

TEST(ad_jvp_vjp_consistency) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *f = cj_func_new(ctx, "vf", f_vecfun, 2, 1, NULL);
    uint64_t seed = 11;
    int64_t n = 3;
    cj_val x[2] = {adc_uniform(ctx, 1, &n, -1, 1, &seed), adc_uniform(ctx, 1, &n, -1, 1, &seed)};
    cj_val v[2] = {adc_uniform(ctx, 1, &n, -1, 1, &seed), adc_uniform(ctx, 1, &n, -1, 1, &seed)};
    cj_val u = adc_uniform(ctx, 1, &n, -1, 1, &seed);
    cj_val y, jv, y2, ju[2];
    CHECK(cj_jvp(f, x, v, &y, &jv) == CJ_OK);
    cj_func *pb = cj_vjp(f, x, &y2);
    CHECK(pb != NULL);
    CHECK(cj_call(pb, &u, ju) == CJ_OK);
    CHECK_NEAR(adc_dot(u, jv), adc_dot(ju[0], v[0]) + adc_dot(ju[1], v[1]), 1e-13, 1e-14);
    CHECK_NEAR(adc_dot(y, y), adc_dot(y2, y2), 1e-15, 0);
    /* closed form of the jvp */
    double a[3], b[3], va[3], vb[3];
    cj_read(x[0], a, sizeof a), cj_read(x[1], b, sizeof b), cj_read(v[0], va, sizeof va), cj_read(v[1], vb, sizeof vb);
    for (int i = 0; i < 3; i++) {
        double e = exp(a[i] * b[i]);
        double want = cos(a[i]) * b[i] * va[i] + sin(a[i]) * vb[i] + e * (b[i] * va[i] + a[i] * vb[i]);
        CHECK_NEAR(read1(jv, i), want, 1e-14, 1e-14);
    }
    /* linearize gives the same tangent */
    cj_val y3, jv2;
    cj_func *lin = cj_linearize(f, x, &y3);
    CHECK(lin != NULL);
    CHECK(cj_call(lin, v, &jv2) == CJ_OK);
    for (int i = 0; i < 3; i++) CHECK_NEAR(read1(jv2, i), read1(jv, i), 1e-15, 1e-15);
    /* a wrongly typed cotangent is an error naming it */
    cj_val bad = cj_zeros(ctx, CJ_F64, 1, (int64_t[]){4}), out2[2];
    CHECK(cj_call(pb, &bad, out2) == CJ_ERR_SHAPE);
    CHECK(strstr(cj_error_message(ctx), "cotangent 0") != NULL);
    cj_error_clear(ctx);
    cj_func_free(pb);
    cj_func_free(lin);
    cj_ctx_free(ctx);
}

/* ---- jacobians and higher order ---- */
TEST(ad_jacfwd_jacrev_closed_form) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *f = cj_func_new(ctx, "vf", f_vecfun, 2, 1, NULL);
    int argnums[2] = {0, 1};
    cj_grad_opts go = {2, argnums, 0};
    cj_func *jf = cj_jacfwd(f, &go), *jr = cj_jacrev(f, &go);
    double a[3] = {0.3, -0.4, 0.9}, b[3] = {1.1, 0.2, -0.7};
    cj_val x[2] = {vec(ctx, 3, a), vec(ctx, 3, b)}, J1[2], J2[2];
    CHECK(cj_call(jf, x, J1) == CJ_OK);
    CHECK(cj_call(jr, x, J2) == CJ_OK);
    for (int k = 0; k < 2; k++) {
        CHECK_EQ_INT(cj_val_rank(J1[k]), 2);
        CHECK_EQ_INT(cj_val_dim(J2[k], 1), 3);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                double e = exp(a[i] * b[i]);
                double d = i != j ? 0 : k == 0 ? cos(a[i]) * b[i] + e * b[i] : sin(a[i]) + e * a[i];
                CHECK_NEAR(read1(J1[k], i * 3 + j), d, 1e-14, 1e-15);
                CHECK_NEAR(read1(J2[k], i * 3 + j), d, 1e-14, 1e-15);
            }
    }
    cj_ctx_free(ctx);
}

/* f(x) = x^T A x / 2 + sum(sin(x)): hessian A_sym - diag(sin x) */
static void f_quad(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx;
    cj_val A = *(cj_val *)u;
    cj_val q = cj_sum(cj_mul(in[0], cj_matmul(A, in[0])), 0, NULL, 0);
    out[0] = cj_add(cj_mul(cj_scalar(ctx, 0.5), q), cj_sum(cj_sin(in[0]), 0, NULL, 0));
}

TEST(ad_hessian_and_grad_of_grad) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    double Av[9] = {2, 1, 0, -1, 3, 0.5, 0.25, 0, 1}, xs[3] = {0.2, -0.5, 1.3};
    cj_val A = cj_array(ctx, CJ_F64, 2, (int64_t[]){3, 3}, Av);
    cj_func *f = cj_func_new(ctx, "quad", f_quad, 1, 1, &A);
    cj_func *h = cj_hessian(f, NULL);
    cj_val x = vec(ctx, 3, xs), H;
    CHECK(cj_call(h, &x, &H) == CJ_OK);
    CHECK_EQ_INT(cj_val_rank(H), 2);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            CHECK_NEAR(read1(H, i * 3 + j), 0.5 * (Av[i * 3 + j] + Av[j * 3 + i]) - (i == j ? sin(xs[i]) : 0), 1e-14,
                       1e-14);
    /* grad(grad(poly)) on a scalar: d2/dx2 (x^3 + 2x) = 6x */
    cj_func *p = cj_func_new(ctx, "poly", f_poly, 1, 1, NULL);
    cj_func *gg = cj_grad(cj_grad(p, NULL), NULL);
    cj_val s = cj_scalar_typed(ctx, 0.75, CJ_F64), d2;
    CHECK(cj_call(gg, &s, &d2) == CJ_OK);
    CHECK_NEAR(cj_item_or_nan(d2), 4.5, 1e-15, 0);
    cj_ctx_free(ctx);
}

/* jvp of a vjp: d/dt <u, J(x + t v)^T ...> — checked as the forward
 * derivative of the gradient of poly, 6x * v. */
static void f_grad_poly(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    cj_func *g = u;
    (void)ctx;
    cj_call(g, in, out);
}

TEST(ad_jvp_of_grad) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *g = cj_grad(cj_func_new(ctx, "poly", f_poly, 1, 1, NULL), NULL);
    cj_func *gf = cj_func_new(ctx, "gradpoly", f_grad_poly, 1, 1, g);
    double xs[3] = {0.5, -1, 2}, vs[3] = {1, 0.5, -2};
    cj_val x = vec(ctx, 3, xs), v = vec(ctx, 3, vs), y, t;
    CHECK(cj_jvp(gf, &x, &v, &y, &t) == CJ_OK);
    for (int i = 0; i < 3; i++) CHECK_NEAR(read1(t, i), 6 * xs[i] * vs[i], 1e-14, 1e-15);
    cj_ctx_free(ctx);
}

/* ---- composition with jit and vmap ---- */
TEST(ad_compose_jit_vmap) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *f = cj_func_new(ctx, "xent", f_xent, 2, 1, NULL);
    cj_func *g = cj_grad(f, NULL);
    cj_func *jg = cj_jit(g, NULL);                      /* jit(grad(f)) */
    cj_func *gj = cj_grad(cj_jit(f, NULL), NULL);       /* grad(jit(f)) */
    cj_func *vg = cj_vmap(g, NULL);                     /* vmap(grad(f)): per example */
    cj_func *jvg = cj_jit(cj_vmap(g, NULL), NULL);      /* jit(vmap(grad(f))) */
    uint64_t seed = 3;
    int64_t dims[2] = {4, 5};
    cj_val Z = adc_uniform(ctx, 2, dims, -2, 2, &seed), Y = adc_uniform(ctx, 2, dims, 0, 1, &seed);
    cj_val in[2] = {Z, Y}, r1, r2, r3, r4;
    CHECK(cj_call(vg, in, &r1) == CJ_OK);
    CHECK(cj_call(jvg, in, &r2) == CJ_OK);
    for (int64_t b = 0; b < 4; b++) {
        int64_t start[2] = {b, 0}, limit[2] = {b + 1, 5}, ax = 0;
        cj_val row[2] = {cj_squeeze(cj_slice(Z, start, limit, NULL), 1, &ax),
                         cj_squeeze(cj_slice(Y, start, limit, NULL), 1, &ax)};
        cj_val d1, d2, d3;
        CHECK(cj_call(g, row, &d1) == CJ_OK);
        CHECK(cj_call(jg, row, &d2) == CJ_OK);
        CHECK(cj_call(gj, row, &d3) == CJ_OK);
        for (int i = 0; i < 5; i++) {
            double want = read1(d1, i);
            CHECK_NEAR(read1(d2, i), want, 1e-13, 1e-15);
            CHECK_NEAR(read1(d3, i), want, 1e-13, 1e-15);
            CHECK_NEAR(read1(r1, b * 5 + i), want, 1e-13, 1e-15);
            CHECK_NEAR(read1(r2, b * 5 + i), want, 1e-13, 1e-15);
        }
    }
    /* grad(vmap(f)) summed: the gradient of sum_b f(z_b) is the per-example
     * gradients stacked */
    (void)r3, (void)r4;
    cj_ctx_free(ctx);
}

static void f_sum_of_vmapped(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx;
    cj_val per;
    cj_call(u, in, &per);
    out[0] = cj_sum(per, 0, NULL, 0);
}

TEST(ad_grad_of_vmap) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *f = cj_func_new(ctx, "xent", f_xent, 2, 1, NULL);
    cj_func *sv = cj_func_new(ctx, "sumvmap", f_sum_of_vmapped, 2, 1, cj_vmap(f, NULL));
    cj_func *g = cj_grad(sv, NULL), *g1 = cj_grad(f, NULL);
    uint64_t seed = 5;
    int64_t dims[2] = {3, 4};
    cj_val Z = adc_uniform(ctx, 2, dims, -2, 2, &seed), Y = adc_uniform(ctx, 2, dims, 0, 1, &seed);
    cj_val in[2] = {Z, Y}, dZ;
    CHECK(cj_call(g, in, &dZ) == CJ_OK);
    for (int64_t b = 0; b < 3; b++) {
        int64_t start[2] = {b, 0}, limit[2] = {b + 1, 4}, ax = 0;
        cj_val row[2] = {cj_squeeze(cj_slice(Z, start, limit, NULL), 1, &ax),
                         cj_squeeze(cj_slice(Y, start, limit, NULL), 1, &ax)};
        cj_val d;
        CHECK(cj_call(g1, row, &d) == CJ_OK);
        for (int i = 0; i < 4; i++) CHECK_NEAR(read1(dZ, b * 4 + i), read1(d, i), 1e-13, 1e-15);
    }
    cj_ctx_free(ctx);
}

/* ---- stop_gradient ---- */
static void f_stopped(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u, (void)ctx;
    /* sum(x * stop_gradient(x)): gradient x (not 2x) */
    out[0] = cj_sum(cj_mul(in[0], cj_stop_gradient(in[0])), 0, NULL, 0);
}

TEST(ad_stop_gradient) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *f = cj_func_new(ctx, "stopped", f_stopped, 1, 1, NULL);
    double xs[3] = {1, -2, 3};
    cj_val x = vec(ctx, 3, xs), d1, d2, y;
    CHECK(cj_call(cj_grad(f, NULL), &x, &d1) == CJ_OK);
    CHECK(cj_call(cj_jit(cj_grad(f, NULL), NULL), &x, &d2) == CJ_OK);
    CHECK(cj_call(cj_jit(f, NULL), &x, &y) == CJ_OK); /* compiled: stop_gradient is dropped */
    for (int i = 0; i < 3; i++) {
        CHECK_NEAR(read1(d1, i), xs[i], 0, 0);
        CHECK_NEAR(read1(d2, i), xs[i], 0, 0);
    }
    CHECK_NEAR(cj_item_or_nan(y), 14, 0, 0);
    cj_ctx_free(ctx);
}

/* ---- errors ---- */
static void f_vector_out(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u, (void)ctx;
    out[0] = cj_sin(in[0]);
}
static void f_int_arg(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u, (void)ctx;
    out[0] = cj_sum(cj_mul(in[0], cj_astype(in[1], CJ_F64)), 0, NULL, 0);
}

TEST(ad_errors) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    double xs[3] = {1, 2, 3};
    cj_val x = vec(ctx, 3, xs), d;
    CHECK(cj_call(cj_grad(cj_func_new(ctx, "vo", f_vector_out, 1, 1, NULL), NULL), &x, &d) == CJ_ERR_SHAPE);
    CHECK(strstr(cj_error_message(ctx), "must be a float scalar, got f64[3]") != NULL);
    cj_error_clear(ctx);
    /* differentiating by an integer input: an error; vjp gives it zeros */
    cj_func *fi = cj_func_new(ctx, "intarg", f_int_arg, 2, 1, NULL);
    int argnum1 = 1;
    cj_grad_opts go = {1, &argnum1, 0};
    cj_val in[2] = {x, cj_arange(ctx, 0, 3, 1, CJ_I32)};
    CHECK(cj_call(cj_grad(fi, &go), in, &d) == CJ_ERR_DTYPE);
    CHECK(strstr(cj_error_message(ctx), "argument 1 has type i32") != NULL);
    cj_error_clear(ctx);
    cj_val y, cts[2];
    cj_func *pb = cj_vjp(fi, in, &y);
    CHECK(pb != NULL);
    CHECK(cj_call(pb, (cj_val[]){cj_scalar_typed(ctx, 1, CJ_F64)}, cts) == CJ_OK);
    CHECK(cj_val_dtype(cts[1]) == CJ_I32);
    CHECK_NEAR(read1(cts[1], 2), 0, 0, 0);
    CHECK_NEAR(read1(cts[0], 2), 2, 0, 0);
    /* bad argnums */
    int bad = 5;
    cj_grad_opts gb = {1, &bad, 0};
    CHECK(cj_grad(fi, &gb) == NULL);
    CHECK(cj_error(ctx) == CJ_ERR_ARG);
    cj_error_clear(ctx);
    /* jvp with a mistyped tangent */
    cj_val t32 = cj_zeros(ctx, CJ_F32, 1, (int64_t[]){3}), yo, to;
    CHECK(cj_jvp(cj_func_new(ctx, "vo", f_vector_out, 1, 1, NULL), &x, &t32, &yo, &to) == CJ_ERR_SHAPE);
    CHECK(strstr(cj_error_message(ctx), "f64[3] vs f32[3]") != NULL);
    cj_ctx_free(ctx);
}

/* ---- checkpoint ---- */
/* layer(h, W) = sin(name(h W, "z")): the tangent needs cos(z), made inside
 * the layer, so the policies differ in what they keep */
static void f_sin_layer(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_sin(cj_checkpoint_name(cj_matmul(in[0], in[1]), "z"));
}

typedef struct chain {
    cj_func *layer;
    int n_layers;
} chain;

/* loss(h0, W1..Wn) = sum(layer_n(...layer_1(h0, W1)..., Wn)^2) / 2 */
static void f_chain(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    chain *c = u;
    cj_val h = in[0];
    for (int l = 0; l < c->n_layers; l++) cj_call(c->layer, (cj_val[]){h, in[1 + l]}, &h);
    out[0] = cj_mul(cj_scalar(ctx, 0.5), cj_sum(cj_mul(h, h), 0, NULL, 0));
}

#define CK_LAYERS 3
#define CK_B 4
#define CK_W 6

static cj_func *chain_grad(cj_ctx *ctx, chain *c, cj_func *layer) {
    c->layer = layer;
    c->n_layers = CK_LAYERS;
    static int argnums[CK_LAYERS + 1] = {0, 1, 2, 3};
    cj_grad_opts go = {CK_LAYERS + 1, argnums, 0};
    return cj_grad(cj_func_new(ctx, "chain", f_chain, CK_LAYERS + 1, 1, c), &go);
}

TEST(ad_checkpoint_gradients_equal) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *layer = cj_func_new(ctx, "layer", f_sin_layer, 2, 1, NULL);
    uint64_t seed = 21;
    cj_val in[CK_LAYERS + 1];
    in[0] = adc_uniform(ctx, 2, (int64_t[]){CK_B, CK_W}, -1, 1, &seed);
    for (int l = 1; l <= CK_LAYERS; l++) in[l] = adc_uniform(ctx, 2, (int64_t[]){CK_W, CK_W}, -1, 1, &seed);
    chain plain_c, ck_c[6];
    cj_val ref[CK_LAYERS + 1];
    CHECK(cj_call(chain_grad(ctx, &plain_c, layer), in, ref) == CJ_OK);
    const char *names[1] = {"z"};
    for (int pol = CJ_SAVE_NOTHING; pol <= CJ_SAVE_ALL_BUT_NAMED; pol++) {
        cj_checkpoint_opts co = {(cj_remat_policy)pol, 1, names};
        cj_func *g = chain_grad(ctx, &ck_c[pol], cj_checkpoint(layer, &co));
        cj_val eager[CK_LAYERS + 1], jitted[CK_LAYERS + 1];
        CHECK(cj_call(g, in, eager) == CJ_OK);
        CHECK(cj_call(cj_jit(g, NULL), in, jitted) == CJ_OK);
        for (int k = 0; k <= CK_LAYERS; k++)
            for (int64_t i = 0; i < cj_val_size(ref[k]); i++) {
                CHECK_NEAR(read1(eager[k], i), read1(ref[k], i), 0, 0); /* recomputed bit for bit */
                CHECK_NEAR(read1(jitted[k], i), read1(ref[k], i), 1e-12, 1e-14);
            }
    }
    /* outside differentiation a checkpointed function is the function */
    cj_val y1, y2;
    CHECK(cj_call(layer, in, &y1) == CJ_OK);
    CHECK(cj_call(cj_checkpoint(layer, NULL), in, &y2) == CJ_OK);
    CHECK_NEAR(read1(y1, 5), read1(y2, 5), 0, 0);
    cj_ctx_free(ctx);
}

/* Counts the report's lines containing `what`. */
static int count_lines(const char *report, const char *what) {
    int n = 0;
    for (const char *p = report; (p = strstr(p, what)) != NULL; p += strlen(what)) n++;
    return n;
}

TEST(ad_checkpoint_residual_report) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *layer = cj_func_new(ctx, "layer", f_sin_layer, 2, 1, NULL);
    cj_spec spec[CK_LAYERS + 1];
    spec[0] = cj_spec_make(CJ_F64, 2, (int64_t[]){CK_B, CK_W});
    for (int l = 1; l <= CK_LAYERS; l++) spec[l] = cj_spec_make(CJ_F64, 2, (int64_t[]){CK_W, CK_W});
    int argnums[CK_LAYERS + 1] = {0, 1, 2, 3};
    cj_grad_opts go = {CK_LAYERS + 1, argnums, 0};
    const size_t act = CK_B * CK_W * 8; /* bytes of one activation */
    const char *names[1] = {"z"};
    size_t bytes[7];
    char *rep[7];
    for (int pol = -1; pol <= CJ_SAVE_ALL_BUT_NAMED; pol++) {
        cj_checkpoint_opts co = {(cj_remat_policy)(pol < 0 ? 0 : pol), 1, names};
        chain c = {pol < 0 ? layer : cj_checkpoint(layer, &co), CK_LAYERS};
        cj_func *f = cj_func_new(ctx, "chain", f_chain, CK_LAYERS + 1, 1, &c);
        rep[pol + 1] = cj_saved_residuals(f, &go, CK_LAYERS + 1, spec, &bytes[pol + 1]);
        CHECK(rep[pol + 1] != NULL);
    }
    /* not checkpointed: per layer its input (argument or the previous
     * layer's output), its weight, cos(z); and the last output */
    CHECK_EQ_INT(count_lines(rep[0], "output of cos"), CK_LAYERS);
    CHECK_EQ_INT(count_lines(rep[0], "output of sin"), CK_LAYERS);
    /* save nothing: only what crosses the layers' boundaries */
    CHECK_EQ_INT(count_lines(rep[1], "output of cos"), 0);
    CHECK_EQ_INT(count_lines(rep[1], "output of sin"), CK_LAYERS);
    CHECK_EQ_INT(bytes[0] - bytes[1], CK_LAYERS * act);
    /* save everything: as not checkpointed */
    CHECK_EQ_INT(bytes[2], bytes[0]);
    /* save dots: z = h W kept, cos(z) recomputed from it */
    CHECK_EQ_INT(count_lines(rep[3], "output of dot_general"), CK_LAYERS);
    CHECK_EQ_INT(count_lines(rep[3], "output of cos"), 0);
    CHECK_EQ_INT(bytes[3], bytes[1] + CK_LAYERS * act);
    /* dots without batch dimensions: the same here */
    CHECK_EQ_INT(bytes[4], bytes[3]);
    /* save the named z: as dots, but named */
    CHECK_EQ_INT(count_lines(rep[5], "named 'z'"), CK_LAYERS);
    CHECK_EQ_INT(bytes[5], bytes[3]);
    /* every name but z: nothing named is left, as save nothing */
    CHECK_EQ_INT(bytes[6], bytes[1]);
    for (int i = 0; i < 7; i++) cj_string_free(ctx, rep[i]);
    cj_ctx_free(ctx);
}

/* Under jit the recomputation is really recomputed: the compiled gradient
 * of a checkpointed chain keeps fewer temporary bytes. */
TEST(ad_checkpoint_memory_under_jit) {
    enum { LAYERS = 8, N = 64 };
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *layer = cj_func_new(ctx, "layer", f_sin_layer, 2, 1, NULL);
    uint64_t seed = 4;
    cj_val in[LAYERS + 1];
    for (int l = 0; l <= LAYERS; l++) in[l] = adc_uniform(ctx, 2, (int64_t[]){N, N}, -1, 1, &seed);
    chain c1 = {layer, LAYERS}, c2 = {cj_checkpoint(layer, NULL), LAYERS};
    /* by every weight: each layer's input is needed for its weight's gradient */
    int argnums[LAYERS];
    for (int l = 0; l < LAYERS; l++) argnums[l] = l + 1;
    cj_grad_opts go = {LAYERS, argnums, 0};
    cj_func *g1 = cj_jit(cj_grad(cj_func_new(ctx, "chain", f_chain, LAYERS + 1, 1, &c1), &go), NULL);
    cj_func *g2 = cj_jit(cj_grad(cj_func_new(ctx, "chain", f_chain, LAYERS + 1, 1, &c2), &go), NULL);
    cj_memory_analysis m1, m2;
    CHECK(cj_jit_memory_analysis(g1, in, &m1) == CJ_OK);
    CHECK(cj_jit_memory_analysis(g2, in, &m2) == CJ_OK);
    /* not checkpointed, cos(z) of every layer waits for the backward pass */
    CHECK_MSG(m2.temp_bytes + (LAYERS / 2) * N * N * 8 <= m1.temp_bytes, "temp bytes %zu (checkpointed) vs %zu",
              m2.temp_bytes, m1.temp_bytes);
    cj_val d1[LAYERS], d2[LAYERS];
    CHECK(cj_call(g1, in, d1) == CJ_OK);
    CHECK(cj_call(g2, in, d2) == CJ_OK);
    for (int l = 0; l < LAYERS; l++)
        for (int i = 0; i < N * N; i += 97) CHECK_NEAR(read1(d1[l], i), read1(d2[l], i), 1e-12, 1e-14);
    cj_ctx_free(ctx);
}

TEST(ad_checkpoint_errors) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *layer = cj_func_new(ctx, "layer", f_sin_layer, 2, 1, NULL);
    cj_checkpoint_opts bad = {(cj_remat_policy)99, 0, NULL};
    CHECK(cj_checkpoint(layer, &bad) == NULL);
    CHECK(cj_error(ctx) == CJ_ERR_ARG);
    cj_error_clear(ctx);
    cj_val x = cj_zeros(ctx, CJ_F64, 1, (int64_t[]){3});
    CHECK(cj_is_error(cj_checkpoint_name(x, "")));
    CHECK(cj_error(ctx) == CJ_ERR_ARG);
    cj_error_clear(ctx);
    /* on a concrete value a name changes nothing */
    cj_val y = cj_checkpoint_name(x, "h");
    CHECK(!cj_is_error(y));
    cj_ctx_free(ctx);
}

/* ---- custom_jvp / custom_vjp ---- */
/* softplus log(1 + exp(x)), whose plain derivative exp(x)/(1+exp(x)) is
 * inf/inf = NaN for large x; the rule's t * logistic(x) is 1 there */
static void f_softplus(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    out[0] = cj_log(cj_add(cj_scalar(ctx, 1.0), cj_exp(in[0])));
}
static void r_softplus(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    f_softplus(ctx, in, out, NULL);
    out[1] = cj_mul(in[1], cj_logistic(in[0]));
}
static void f_sum_of(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx;
    cj_val y;
    cj_call(u, in, &y);
    out[0] = cj_sum(y, 0, NULL, 0);
}

TEST(ad_custom_jvp) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *plain = cj_func_new(ctx, "softplus", f_softplus, 1, 1, NULL);
    cj_func *safe = cj_custom_jvp(plain, cj_func_new(ctx, "softplus_jvp", r_softplus, 2, 2, NULL));
    CHECK(safe != NULL);
    double xs[3] = {-2, 0.5, 800};
    cj_val x = vec(ctx, 3, xs), d_plain, d_safe, d_jit, y_jit, d2;
    CHECK(cj_call(cj_grad(cj_func_new(ctx, "s", f_sum_of, 1, 1, plain), NULL), &x, &d_plain) == CJ_OK);
    cj_func *gs = cj_grad(cj_func_new(ctx, "s", f_sum_of, 1, 1, safe), NULL);
    CHECK(cj_call(gs, &x, &d_safe) == CJ_OK);
    CHECK(cj_call(cj_jit(gs, NULL), &x, &d_jit) == CJ_OK);
    CHECK(isnan(read1(d_plain, 2)));
    for (int i = 0; i < 3; i++) {
        double want = 1 / (1 + exp(-xs[i]));
        CHECK_NEAR(read1(d_safe, i), want, 1e-15, 0);
        CHECK_NEAR(read1(d_jit, i), want, 1e-15, 0);
    }
    /* under jit alone the call is f, inlined */
    CHECK(cj_call(cj_jit(safe, NULL), &x, &y_jit) == CJ_OK);
    CHECK_NEAR(read1(y_jit, 1), log(1 + exp(0.5)), 1e-15, 0);
    /* second derivative through the rule: logistic'(x) */
    cj_val s = cj_scalar_typed(ctx, 0.3, CJ_F64);
    CHECK(cj_call(cj_grad(cj_grad(safe, NULL), NULL), &s, &d2) == CJ_OK);
    double sg = 1 / (1 + exp(-0.3));
    CHECK_NEAR(cj_item_or_nan(d2), sg * (1 - sg), 1e-15, 0);
    /* per-example gradients: vmap(grad(f)) uses the rule */
    cj_val big = vec(ctx, 3, (double[]){800, 900, 1000}), dv;
    CHECK(cj_call(cj_vmap(cj_grad(safe, NULL), NULL), &big, &dv) == CJ_OK);
    for (int i = 0; i < 3; i++) CHECK_NEAR(read1(dv, i), 1, 0, 0);
    /* vmap of the function itself (no derivative): f batched, under jit too */
    cj_val yv;
    CHECK(cj_call(cj_jit(cj_vmap(safe, NULL), NULL), &x, &yv) == CJ_OK);
    CHECK_NEAR(read1(yv, 0), log(1 + exp(-2.0)), 1e-15, 0);
    cj_ctx_free(ctx);
}

/* clip_gradient: the identity forward, the cotangent clipped to [-1, 1]
 * backward (no residuals) */
static void f_identity(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_mul(in[0], cj_scalar(ctx, 1.0));
}
static void b_clip(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_clip(in[0], -1, 1);
}
/* sin with the residual cos(x) computed forward */
static void f_sin1(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_sin(in[0]);
}
static void fwd_sin(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_sin(in[0]);
    out[1] = cj_cos(in[0]);
}
static void bwd_sin(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_mul(in[1], in[0]);
}
static void f_scaled_sum(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    cj_val y;
    cj_call(u, in, &y);
    out[0] = cj_sum(cj_mul(cj_scalar(ctx, 3.0), y), 0, NULL, 0);
}

TEST(ad_custom_vjp) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *id = cj_func_new(ctx, "identity", f_identity, 1, 1, NULL);
    cj_func *clip = cj_custom_vjp(id, id, cj_func_new(ctx, "clip_bwd", b_clip, 1, 1, NULL));
    CHECK(clip != NULL);
    double xs[3] = {0.1, -4, 2};
    cj_val x = vec(ctx, 3, xs), d, dj, y;
    cj_func *g = cj_grad(cj_func_new(ctx, "s", f_scaled_sum, 1, 1, clip), NULL);
    CHECK(cj_call(g, &x, &d) == CJ_OK);
    CHECK(cj_call(cj_jit(g, NULL), &x, &dj) == CJ_OK);
    for (int i = 0; i < 3; i++) {
        CHECK_NEAR(read1(d, i), 1, 0, 0); /* 3 clipped to 1 */
        CHECK_NEAR(read1(dj, i), 1, 0, 0);
    }
    /* with a residual */
    cj_func *s = cj_custom_vjp(cj_func_new(ctx, "sin", f_sin1, 1, 1, NULL), cj_func_new(ctx, "fwd", fwd_sin, 1, 2, NULL),
                               cj_func_new(ctx, "bwd", bwd_sin, 2, 1, NULL));
    cj_func *gs = cj_grad(cj_func_new(ctx, "s", f_sum_of, 1, 1, s), NULL);
    CHECK(cj_call(gs, &x, &d) == CJ_OK);
    CHECK(cj_call(cj_vmap(cj_grad(s, NULL), NULL), &x, &dj) == CJ_OK);
    for (int i = 0; i < 3; i++) {
        CHECK_NEAR(read1(d, i), cos(xs[i]), 1e-15, 0);
        CHECK_NEAR(read1(dj, i), cos(xs[i]), 1e-15, 0);
    }
    /* forward mode through it is an error, as in JAX */
    cj_val t = vec(ctx, 3, (double[]){1, 1, 1}), yo, to;
    CHECK(cj_jvp(s, &x, &t, &yo, &to) == CJ_ERR_UNSUPPORTED);
    CHECK(strstr(cj_error_message(ctx), "forward-mode") != NULL);
    cj_error_clear(ctx);
    /* mismatched rule shapes are refused when made */
    CHECK(cj_custom_vjp(id, id, cj_func_new(ctx, "bad", bwd_sin, 2, 1, NULL)) == NULL);
    CHECK(cj_error(ctx) == CJ_ERR_ARG);
    (void)y;
    cj_ctx_free(ctx);
}

/* ---- allocation failures ---- */
/* Every autodiff path once: eager grad, vjp, jit(grad) on the
 * interpreter, a checkpointed and a custom_jvp gradient. */
static int ad_scenario(cj_ctx *ctx) {
    static const double xs[6] = {0.5, -1, 2, 0.25, 1.5, -0.75};
    cj_val x = cj_array(ctx, CJ_F64, 2, (int64_t[]){2, 3}, xs);
    cj_val w = cj_array(ctx, CJ_F64, 2, (int64_t[]){3, 3}, (double[]){1, 0, 2, -1, 1, 0, 0.5, 0.5, 1});
    cj_func *layer = cj_func_new(ctx, "layer", f_sin_layer, 2, 1, NULL);
    static chain c;
    c.layer = cj_checkpoint(layer, NULL);
    c.n_layers = 1;
    cj_func *f = cj_func_new(ctx, "chain", f_chain, 2, 1, &c);
    cj_val d, y, cts[2];
    cj_call(cj_grad(f, NULL), (cj_val[]){x, w}, &d);
    cj_func *pb = cj_vjp(f, (cj_val[]){x, w}, &y);
    if (pb) {
        cj_call(pb, (cj_val[]){cj_scalar_typed(ctx, 1, CJ_F64)}, cts);
        cj_func_free(pb);
    }
    cj_jit_opts interp = {0, NULL, 0, NULL, CJ_BACKEND_INTERP};
    cj_call(cj_jit(cj_grad(f, NULL), &interp), (cj_val[]){x, w}, &d);
    cj_func *plain = cj_func_new(ctx, "softplus", f_softplus, 1, 1, NULL);
    cj_func *safe = cj_custom_jvp(plain, cj_func_new(ctx, "softplus_jvp", r_softplus, 2, 2, NULL));
    cj_call(cj_grad(cj_func_new(ctx, "s", f_sum_of, 1, 1, safe), NULL), &x, &d);
    return cj_error(ctx);
}

TEST(ad_allocation_failure_at_every_site_is_clean) {
    int covered = 0;
    for (long long n = 1; n < 50000 && !covered; n++) {
        tu_alloc st = {0};
        st.fail_at = n;
        cj_allocator a = tu_allocator(&st);
        cj_ctx *ctx = cj_ctx_new(&a);
        if (ctx) {
            int rc = ad_scenario(ctx);
            CHECK_MSG(rc == CJ_OK || rc == CJ_ERR_OOM, "allocation %lld: expected CJ_ERR_OOM, got %s: %s", n,
                      cj_status_name((cj_status)rc), cj_error_message(ctx));
            if (!st.failed) {
                CHECK(rc == CJ_OK);
                covered = 1;
            }
            cj_ctx_free(ctx);
        }
        CHECK_MSG(st.live == 0, "allocation %lld failing leaked %lld blocks", n, st.live);
    }
    CHECK(covered);
}

/* ---- composites whose jax.nn version carries its own derivative ---- */

static void f_relu_sum(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_sum(cj_relu(in[0]), -1, NULL, 0);
}

static void f_grad_relu_sum(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx;
    cj_val g;
    cj_call((cj_func *)u, in, &g);
    out[0] = cj_sum(g, -1, NULL, 0);
}

/* jax.nn.relu's custom jvp (select(x > 0, g, 0)): grad(relu)(0) is 0, not
 * the 0.5 max's rule gives at a tie; -0 and negatives 0, positives 1; the
 * value is max(x, 0) (+0 at -0, NaN kept); second derivative 0. Values
 * from jax 0.10.2: grad(relu)(0.) = grad(relu)(-0.) = 0, relu(-0.) = +0. */
TEST(ad_grad_relu_at_zero_is_zero_as_jax_nn_relu) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    const double xs[] = {-2.0, -0.0, 0.0, 0x1p-100, 3.0, NAN};
    const double want_grad[] = {0, 0, 0, 1, 1, 0};
    int64_t n = 6;
    for (int d = 0; d < 2; d++) {
        cj_dtype dt = d ? CJ_F64 : CJ_F32;
        cj_val x = cj_astype(vec(ctx, n, xs), dt);
        double y[6];
        CHECK(cj_read_as(cj_relu(x), CJ_F64, y, sizeof y) == CJ_OK);
        for (int i = 0; i < 5; i++) CHECK_MSG(y[i] == (xs[i] > 0 ? xs[i] : 0) && !signbit(y[i]), "relu(%g)", xs[i]);
        CHECK(isnan(y[5]));
        cj_func *f = cj_func_new(ctx, "relu_sum", f_relu_sum, 1, 1, NULL);
        cj_func *g = cj_grad(f, NULL);
        cj_jit_opts cc = {.backend = CJ_BACKEND_CC};
        cj_func *modes[3] = {g, cj_jit(g, NULL), cj_jit(g, &cc)};
        for (int m = 0; m < 3; m++) {
            cj_val gx;
            CHECK_MSG(cj_call(modes[m], &x, &gx) == CJ_OK, "%s", cj_error_message(ctx));
            for (int i = 0; i < 6; i++)
                CHECK_MSG(read1(gx, i) == want_grad[i], "%s mode %d: grad relu(%g) = %g, want %g", cj_dtype_name(dt), m,
                          xs[i], read1(gx, i), want_grad[i]);
        }
        /* d/dx of sum(grad relu) is 0 everywhere, 0 included */
        cj_func *gg = cj_grad(cj_func_new(ctx, "grad_relu_sum", f_grad_relu_sum, 1, 1, g), NULL);
        cj_val ggx;
        CHECK_MSG(cj_call(gg, &x, &ggx) == CJ_OK, "%s", cj_error_message(ctx));
        for (int i = 0; i < 5; i++) CHECK(read1(ggx, i) == 0);
        /* forward mode: the tangent of sum(relu) along ones counts x > 0 */
        cj_val t = cj_ones_like(x), yo, to;
        CHECK(cj_jvp(cj_func_new(ctx, "relu", f_relu_sum, 1, 1, NULL), &x, &t, &yo, &to) == CJ_OK);
        CHECK(read1(to, 0) == 2);
    }
    CHECK_MSG(cj_error(ctx) == CJ_OK, "%s", cj_error_message(ctx));
    cj_ctx_free(ctx);
}

static void f_logsumexp(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_logsumexp(in[0], -1, NULL, 0);
}

/* e0 · log_softmax(x) */
static void f_log_softmax_e0(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    cj_val y = cj_log_softmax(in[0], -1);
    out[0] = cj_sum(cj_dynamic_slice(y, (cj_val[]){cj_scalar_int(ctx, 0)}, (int64_t[]){1}), -1, NULL, 0);
}

/* jax.nn.logsumexp, softmax and log_softmax shift by stop_gradient(max):
 * the derivative is softmax(x) alone, with nothing through reduce_max. At
 * x = 0 (a three-way tie) that is 1/3 exactly (e = 1, sum 3, one
 * division); a derivative through the max as well adds (1 - sum softmax)
 * shares, which in f32 is not exactly 0. */
TEST(ad_logsumexp_and_log_softmax_shift_by_stop_gradient_max) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t n = 3;
    cj_val x = cj_zeros(ctx, CJ_F32, 1, &n);
    const float third = 1.0f / 3.0f;
    cj_val g;
    CHECK(cj_call(cj_grad(cj_func_new(ctx, "lse", f_logsumexp, 1, 1, NULL), NULL), &x, &g) == CJ_OK);
    float gv[3];
    CHECK(cj_read(g, gv, sizeof gv) == CJ_OK);
    for (int i = 0; i < 3; i++) CHECK_MSG(gv[i] == third, "grad logsumexp[%d] = %.9g, want %.9g", i, gv[i], third);
    cj_val t = cj_array(ctx, CJ_F32, 1, &n, (const float[]){1, 0, 0}), y, ty;
    CHECK(cj_jvp(cj_func_new(ctx, "lse", f_logsumexp, 1, 1, NULL), &x, &t, &y, &ty) == CJ_OK);
    CHECK_MSG(read1(ty, 0) == third, "jvp logsumexp = %.9g", read1(ty, 0));
    /* d/dx of log_softmax(x)[0] = e0 - softmax(x) */
    CHECK(cj_call(cj_grad(cj_func_new(ctx, "ls", f_log_softmax_e0, 1, 1, NULL), NULL), &x, &g) == CJ_OK);
    CHECK(cj_read(g, gv, sizeof gv) == CJ_OK);
    CHECK_MSG(gv[0] == 1 - third && gv[1] == -third && gv[2] == -third, "grad log_softmax = %.9g %.9g %.9g", gv[0],
              gv[1], gv[2]);
    CHECK_MSG(cj_error(ctx) == CJ_OK, "%s", cj_error_message(ctx));
    cj_ctx_free(ctx);
}
