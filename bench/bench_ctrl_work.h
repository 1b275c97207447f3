/* bench_ctrl_work.h — the control rows' programs (issue 14), written with
 * cjax as a control or robotics user would, and their references.
 *
 *   ode_fwd    a cart with a damped pendulum (4 states, f32), RK4, 1,000
 *              steps of dt = 0.01 by cj_scan, returning the final state
 *              (what a shooting method or a terminal cost reads; the
 *              trajectory is not kept);
 *   ode_grad   grad of sum(final state^2) by the initial state and the
 *              4 physical parameters (ode_grad_remat: the same with the
 *              step under cj_checkpoint, saving nothing);
 *   ode_vmap   the forward over 256 initial states (vmap);
 *   hess_vmap  vmap(hessian) of the 8-dimensional Rosenbrock function
 *              over 1,000 points;
 *   scan3_grad eager grad of a 20-step scan with 3 carries (f32[8],
 *              f32[8], f32[]), one call.
 * bench_ctrl.h times them (jitted with generated C, except the eager
 * row) against JAX (bench/peers_ctrl.py, the same programs and inputs).
 *
 * References, independent of cjax: the same arithmetic as plain C loops
 * in f32 (the forward, and each of the 256 forwards), the gradients by
 * central differences of the same loops in f64, and Rosenbrock's Hessian
 * in closed form. Inputs are formulas rounded to f32 (C's and Python's
 * libm sin agree), so both sides start from the same bits.
 * Header-only: CMake makes one program per .c file in bench/. */
#ifndef CJ_BENCH_CTRL_WORK_H
#define CJ_BENCH_CTRL_WORK_H
#include <math.h>
#include <string.h>

#include <cjax.h>

#define ODE_STEPS 1000
#define ODE_DT 0.01
#define ODE_G 9.81
#define ODE_BATCH 256
#define HESS_DIM 8
#define HESS_POINTS 1000
#define SCAN3_STEPS 20
#define SCAN3_N 8

/* ---- inputs (the same formulas are in bench/peers_ctrl.py) ---- */
/* state (cart position, cart velocity, pole angle from hanging, its rate),
 * parameters (cart mass, pole mass, pole length, joint damping) */
static const float ode_s0[4] = {0.0f, 0.2f, 0.5f, 0.0f};
static const float ode_p[4] = {1.0f, 0.3f, 0.5f, 0.05f};
static float ode_batch_s0(int b, int i) { /* initial state b of the vmapped row */
    return i == 2 ? (float)(0.2 + 0.004 * b) : i == 1 ? (float)(0.1 * sin(0.05 * b)) : 0.0f;
}
static float hess_point(int k, int j) { return (float)(0.6 * sin(0.37 * k + 1.3 * j) + 0.4); }
static float scan3_h0(int j) { return (float)(0.3 * sin(1.0 + j)); }
static float scan3_v0(int j) { return (float)(0.2 * cos(0.5 * j)); }
static float scan3_w(int j) { return (float)(0.5 + 0.05 * j); }
static float scan3_x(int t, int j) { return (float)sin(0.1 * t + 0.7 * j); }

/* ---- the ODE in cjax ---- */
/* s[i] as a scalar, as `x, v, th, w = s` does in JAX: slice + reshape */
static cj_val ode_elem(cj_val s, int64_t i) {
    int64_t lo = i, hi = i + 1;
    return cj_reshape(cj_slice(s, &lo, &hi, NULL), 0, NULL);
}
/* jnp.stack of four scalars */
static cj_val ode_stack4(cj_val a, cj_val b, cj_val c, cj_val d) {
    int64_t one = 1;
    cj_val parts[4] = {cj_reshape(a, 1, &one), cj_reshape(b, 1, &one), cj_reshape(c, 1, &one),
                       cj_reshape(d, 1, &one)};
    return cj_concatenate(4, parts, 0);
}
/* ds/dt of the cart-pendulum (Lagrange's equations solved for the two
 * accelerations); the operations in the order ode_deriv_f32 does them. */
static cj_val ode_deriv(cj_ctx *ctx, cj_val s, cj_val p) {
    cj_val v = ode_elem(s, 1), th = ode_elem(s, 2), w = ode_elem(s, 3);
    cj_val M = ode_elem(p, 0), m = ode_elem(p, 1), l = ode_elem(p, 2), d = ode_elem(p, 3);
    cj_val sn = cj_sin(th), cs = cj_cos(th);
    cj_val mM = cj_add(M, m), ml = cj_mul(m, l), w2 = cj_mul(w, w);
    cj_val den = cj_add(M, cj_mul(cj_mul(m, sn), sn));
    cj_val num = cj_add(cj_mul(mM, cj_add(cj_mul(d, w), cj_mul(cj_mul(ml, cj_scalar(ctx, ODE_G)), sn))),
                        cj_mul(cj_mul(cj_mul(cj_mul(ml, ml), cs), sn), w2));
    cj_val thdd = cj_div(cj_neg(num), cj_mul(cj_mul(ml, l), den));
    cj_val xdd = cj_div(cj_sub(cj_mul(cj_mul(ml, sn), w2), cj_mul(cj_mul(ml, cs), thdd)), mM);
    return ode_stack4(v, xdd, w, thdd);
}

typedef struct ode_arg {
    cj_val p; /* set while ode_fwd_fn is traced: the step closes over it */
    cj_func *step;
} ode_arg;

/* one RK4 step, the scan's body: s -> s' */
static void ode_step_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    ode_arg *a = user;
    cj_val s = in[0], p = a->p;
    cj_val h2 = cj_scalar(ctx, ODE_DT / 2), h = cj_scalar(ctx, ODE_DT), h6 = cj_scalar(ctx, ODE_DT / 6);
    cj_val two = cj_scalar(ctx, 2.0);
    cj_val k1 = ode_deriv(ctx, s, p);
    cj_val k2 = ode_deriv(ctx, cj_add(s, cj_mul(h2, k1)), p);
    cj_val k3 = ode_deriv(ctx, cj_add(s, cj_mul(h2, k2)), p);
    cj_val k4 = ode_deriv(ctx, cj_add(s, cj_mul(h, k3)), p);
    cj_val sum = cj_add(cj_add(cj_add(k1, cj_mul(two, k2)), cj_mul(two, k3)), k4);
    out[0] = cj_add(s, cj_mul(h6, sum));
}
/* fwd(s0, p) = the state after ODE_STEPS steps */
static void ode_fwd_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    ode_arg *a = user;
    (void)ctx;
    a->p = in[1];
    cj_scan_opts so = {ODE_STEPS, 1, 0};
    cj_scan(a->step, 1, &in[0], 0, NULL, &so, &out[0], NULL);
}
/* loss(s0, p) = sum(fwd(s0, p)^2) */
static void ode_loss_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    cj_val sT;
    ode_fwd_fn(ctx, in, &sT, user);
    out[0] = cj_sum(cj_mul(sT, sT), -1, NULL, 0);
}

/* ---- the same ODE as plain C loops ---- */
/* f32: the arithmetic of ode_deriv and ode_step_fn, operation for
 * operation (libm's sinf/cosf where cjax has its own). */
static void ode_deriv_f32(const float *s, const float *p, float *ds) {
    float v = s[1], th = s[2], w = s[3], M = p[0], m = p[1], l = p[2], d = p[3];
    float sn = sinf(th), cs = cosf(th);
    float mM = M + m, ml = m * l, w2 = w * w;
    float den = M + m * sn * sn;
    float num = mM * (d * w + ml * (float)ODE_G * sn) + ml * ml * cs * sn * w2;
    float thdd = -num / (ml * l * den);
    float xdd = (ml * sn * w2 - ml * cs * thdd) / mM;
    ds[0] = v, ds[1] = xdd, ds[2] = w, ds[3] = thdd;
}
static void ode_c_f32(const float *s0, const float *p, float *sT) {
    const float h2 = (float)(ODE_DT / 2), h = (float)ODE_DT, h6 = (float)(ODE_DT / 6);
    float s[4], t[4], k1[4], k2[4], k3[4], k4[4];
    memcpy(s, s0, sizeof s);
    for (int n = 0; n < ODE_STEPS; n++) {
        ode_deriv_f32(s, p, k1);
        for (int i = 0; i < 4; i++) t[i] = s[i] + h2 * k1[i];
        ode_deriv_f32(t, p, k2);
        for (int i = 0; i < 4; i++) t[i] = s[i] + h2 * k2[i];
        ode_deriv_f32(t, p, k3);
        for (int i = 0; i < 4; i++) t[i] = s[i] + h * k3[i];
        ode_deriv_f32(t, p, k4);
        for (int i = 0; i < 4; i++) s[i] = s[i] + h6 * (k1[i] + 2.0f * k2[i] + 2.0f * k3[i] + k4[i]);
    }
    memcpy(sT, s, sizeof s);
}
/* f64, for central differences: the loss sum(s_T^2) */
static void ode_deriv_f64(const double *s, const double *p, double *ds) {
    double v = s[1], th = s[2], w = s[3], M = p[0], m = p[1], l = p[2], d = p[3];
    double sn = sin(th), cs = cos(th), mM = M + m, ml = m * l, w2 = w * w;
    double thdd = -(mM * (d * w + ml * ODE_G * sn) + ml * ml * cs * sn * w2) / (ml * l * (M + m * sn * sn));
    ds[0] = v, ds[1] = (ml * sn * w2 - ml * cs * thdd) / mM, ds[2] = w, ds[3] = thdd;
}
static double ode_loss_f64(const double *s0, const double *p) {
    double s[4], t[4], k[4][4];
    memcpy(s, s0, sizeof s);
    for (int n = 0; n < ODE_STEPS; n++) {
        ode_deriv_f64(s, p, k[0]);
        for (int i = 0; i < 4; i++) t[i] = s[i] + ODE_DT / 2 * k[0][i];
        ode_deriv_f64(t, p, k[1]);
        for (int i = 0; i < 4; i++) t[i] = s[i] + ODE_DT / 2 * k[1][i];
        ode_deriv_f64(t, p, k[2]);
        for (int i = 0; i < 4; i++) t[i] = s[i] + ODE_DT * k[2][i];
        ode_deriv_f64(t, p, k[3]);
        for (int i = 0; i < 4; i++) s[i] += ODE_DT / 6 * (k[0][i] + 2 * k[1][i] + 2 * k[2][i] + k[3][i]);
    }
    return s[0] * s[0] + s[1] * s[1] + s[2] * s[2] + s[3] * s[3];
}
/* d loss / d (s0, p) by central differences: g[0..4) by s0, g[4..8) by p */
static void ode_grad_fd(double *g) {
    double x[8];
    for (int i = 0; i < 4; i++) x[i] = ode_s0[i], x[4 + i] = ode_p[i];
    for (int i = 0; i < 8; i++) {
        double e = 1e-6 * fmax(1.0, fabs(x[i])), keep = x[i];
        x[i] = keep + e;
        double up = ode_loss_f64(x, x + 4);
        x[i] = keep - e;
        double dn = ode_loss_f64(x, x + 4);
        x[i] = keep;
        g[i] = (up - dn) / (2 * e);
    }
}

/* ---- Rosenbrock in 8 dimensions ---- */
/* sum_i 100 (x[i+1] - x[i]^2)^2 + (1 - x[i])^2 over i < 7, by slices */
static void rosen_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    int64_t lo0 = 0, hi0 = HESS_DIM - 1, lo1 = 1, hi1 = HESS_DIM;
    cj_val a = cj_slice(in[0], &lo0, &hi0, NULL), b = cj_slice(in[0], &lo1, &hi1, NULL);
    cj_val r = cj_sub(b, cj_mul(a, a)), q = cj_sub(cj_scalar(ctx, 1.0), a);
    out[0] = cj_sum(cj_add(cj_mul(cj_scalar(ctx, 100.0), cj_mul(r, r)), cj_mul(q, q)), -1, NULL, 0);
}
/* its Hessian at x, in closed form (tridiagonal) */
static void rosen_hessian(const float *x, double *H) {
    memset(H, 0, sizeof(double) * HESS_DIM * HESS_DIM);
    for (int i = 0; i + 1 < HESS_DIM; i++) {
        double xi = x[i];
        H[i * HESS_DIM + i] += 1200 * xi * xi - 400 * (double)x[i + 1] + 2;
        H[i * HESS_DIM + i + 1] += -400 * xi;
        H[(i + 1) * HESS_DIM + i] += -400 * xi;
        H[(i + 1) * HESS_DIM + i + 1] += 200;
    }
}

/* ---- a scan with three carries ---- */
typedef struct scan3_arg {
    cj_val w; /* set while scan3_loss_fn is traced */
    cj_func *body;
} scan3_arg;
/* (h, v, a; x) -> (tanh(h w + v), 0.9 v + sin(h) x, a + sum(h'^2)) */
static void scan3_body_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    scan3_arg *a = user;
    cj_val h = in[0], v = in[1], acc = in[2], x = in[3];
    cj_val hn = cj_tanh(cj_add(cj_mul(h, a->w), v));
    out[0] = hn;
    out[1] = cj_add(cj_mul(cj_scalar(ctx, 0.9), v), cj_mul(cj_sin(h), x));
    out[2] = cj_add(acc, cj_sum(cj_mul(hn, hn), -1, NULL, 0));
}
/* loss(h0, v0, w, xs) = a_T + sum(v_T), a_0 = 0 */
static void scan3_loss_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    scan3_arg *a = user;
    a->w = in[2];
    cj_val init[3] = {in[0], in[1], cj_zeros(ctx, CJ_F32, 0, NULL)}, fin[3];
    cj_scan(a->body, 3, init, 1, &in[3], NULL, fin, NULL);
    out[0] = cj_add(fin[2], cj_sum(fin[1], -1, NULL, 0));
}
static double scan3_loss_f64(const double *h0, const double *v0, const double *w) {
    double h[SCAN3_N], v[SCAN3_N], acc = 0;
    memcpy(h, h0, sizeof h), memcpy(v, v0, sizeof v);
    for (int t = 0; t < SCAN3_STEPS; t++) {
        for (int j = 0; j < SCAN3_N; j++) {
            double hn = tanh(h[j] * w[j] + v[j]);
            v[j] = 0.9 * v[j] + sin(h[j]) * (double)scan3_x(t, j);
            h[j] = hn;
            acc += hn * hn;
        }
    }
    for (int j = 0; j < SCAN3_N; j++) acc += v[j];
    return acc;
}
/* d loss / d (h0, v0, w) by central differences, 3 x SCAN3_N values */
static void scan3_grad_fd(double *g) {
    double x[3 * SCAN3_N];
    for (int j = 0; j < SCAN3_N; j++) x[j] = scan3_h0(j), x[SCAN3_N + j] = scan3_v0(j), x[2 * SCAN3_N + j] = scan3_w(j);
    for (int i = 0; i < 3 * SCAN3_N; i++) {
        double e = 1e-6, keep = x[i];
        x[i] = keep + e;
        double up = scan3_loss_f64(x, x + SCAN3_N, x + 2 * SCAN3_N);
        x[i] = keep - e;
        double dn = scan3_loss_f64(x, x + SCAN3_N, x + 2 * SCAN3_N);
        x[i] = keep;
        g[i] = (up - dn) / (2 * e);
    }
}

#endif
