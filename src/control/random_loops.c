/* random_loops.c — jax.random's samplers that loop until they accept
 * (control layer): gamma and loggamma (Marsaglia–Tsang), poisson (Knuth's
 * product of uniforms, Hörmann's transformed rejection), and those built
 * on gamma: beta, dirichlet, generalized_normal, ball.
 *
 * They sit here, above the api layer of the other samplers
 * (src/api/random_dist.c), because a rejection loop is a while_loop: each
 * follows its jax/_src/random/core.py definition step for step, drawing
 * the same keys, over the pieces of src/api/random.c (random_internal.h)
 * and cj_while_loop / cj_vmap, so it works eagerly, under jit and under
 * vmap over keys as the other samplers do. gamma is JAX's per-element
 * loop, vmapped: element i uses split(key, n)[i] and runs its own
 * acceptance loop (under vmap every element iterates until all have
 * accepted, finished ones keeping their state, as JAX's batched
 * while_loop). poisson loops over the whole array at once, as JAX's.
 * gamma is differentiable in alpha as JAX's random_gamma primitive (a
 * custom_jvp: the implicit reparameterisation below), and so are beta,
 * dirichlet and the rest through it. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../api/random_internal.h"

static cj_val typed(cj_ctx *ctx, double v, cj_dtype dt) { return cj_scalar_typed(ctx, v, dt); }

/* Runs cj_while_loop over fresh function objects for cond and body
 * (their user data the caller's closure), released once traced. */
static int run_while(cj_ctx *ctx, const char *name, cj_fn cond, cj_fn body, void *user, int n, const cj_val *init,
                     cj_val *out) {
    cj_func *cf = cj_func_new(ctx, name, cond, n, 1, user);
    cj_func *bf = cj_func_new(ctx, name, body, n, n, user);
    cj_status st = cf && bf ? cj_while_loop(cf, bf, n, init, out) : CJ_ERR_OOM;
    if (cf) cj_func_free(cf);
    if (bf) cj_func_free(bf);
    return st == CJ_OK ? 0 : -1;
}

/* ---- gamma: one element (JAX's _gamma_one) -------------------------------- */

typedef struct gamma_env {
    cj_dtype dt;
    int log_space;
    cj_val d, c; /* the element's Marsaglia–Tsang constants (traced) */
} gamma_env;

/* The inner loop: draw normals x until v = 1 + x c > 0. Carries (key, x, v). */
static void normal_cond(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    gamma_env *e = user;
    out[0] = cj_le(in[2], typed(ctx, 0, e->dt));
}

static void normal_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    gamma_env *e = user;
    (void)ctx;
    cj_val key = random_split2(in[0], 0), sub = random_split2(in[0], 1);
    cj_val x = cj_random_normal(sub, e->dt, 0, NULL);
    out[0] = key;
    out[1] = x;
    out[2] = random_mul_add(x, e->c, typed(ctx, 1, e->dt)); /* XLA fuses 1 + x * c */
}

/* The outer loop: carries (key, X, V, U); continue while the squeeze test
 * and the log test both reject. */
static void accept_cond(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    gamma_env *e = user;
    cj_dtype dt = e->dt;
    cj_val X = in[1], V = in[2], U = in[3];
    cj_val one = typed(ctx, 1, dt);
    cj_val squeeze = cj_ge(U, cj_sub(one, cj_mul(typed(ctx, 0.0331, dt), cj_mul(X, X))));
    cj_val rhs = cj_add(cj_mul(X, typed(ctx, 0.5, dt)), cj_mul(e->d, cj_add(cj_sub(one, V), random_xla_log(V))));
    out[0] = cj_and(squeeze, cj_ge(random_xla_log(U), rhs));
}

static void accept_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    gamma_env *e = user;
    cj_dtype dt = e->dt;
    cj_val key = random_split_at(in[0], 3, 0), xkey = random_split_at(in[0], 3, 1), ukey = random_split_at(in[0], 3, 2);
    cj_val init[3] = {xkey, typed(ctx, 0, dt), typed(ctx, -1, dt)}, xv[3];
    if (run_while(ctx, "gamma_normal", normal_cond, normal_body, e, 3, init, xv) != 0) {
        for (int i = 0; i < 4; i++) out[i] = cj_scalar(ctx, NAN); /* the error is recorded */
        return;
    }
    out[0] = key;
    out[1] = cj_mul(xv[1], xv[1]);
    out[2] = cj_mul(cj_mul(xv[2], xv[2]), xv[2]);
    out[3] = random_uniform_v(ukey, dt, 0, NULL, typed(ctx, 0, dt), typed(ctx, 1, dt));
}

/* XLA rewrites a / sqrt(d) as a * rsqrt(d); its CPU rsqrt refines the
 * hardware's estimate by Newton steps, which cannot be reproduced across
 * machines: this is the correctly rounded 1/sqrt(d) (f32 from f64), which
 * XLA's agrees with in most inputs (measured 86% in f32 and f64, 1 ulp
 * apart otherwise). */
static cj_val rsqrt(cj_val d) {
    cj_ctx *ctx = d.ctx;
    cj_dtype dt = cj_val_dtype(d);
    if (dt == CJ_F32) return cj_astype(cj_div(typed(ctx, 1, CJ_F64), cj_sqrt(cj_astype(d, CJ_F64))), CJ_F32);
    /* f64: 1/sqrt(d) (within 2 ulp) refined by one Newton step on the
     * residual 1 - d y^2 computed with fused multiply-adds */
    cj_val y = cj_div(typed(ctx, 1, dt), cj_sqrt(d));
    cj_val t = cj_mul(y, y), t_err = random_mul_add(y, y, cj_neg(t));
    cj_val r = cj_sub(random_mul_add(cj_neg(d), t, typed(ctx, 1, dt)), cj_mul(d, t_err));
    return random_mul_add(cj_mul(y, typed(ctx, 0.5, dt)), r, y);
}

/* in: key i32[2], alpha (a scalar of dt); out: one gamma (or loggamma)
 * sample. */
static void gamma_one(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    const gamma_env *outer = user;
    cj_dtype dt = outer->dt;
    cj_val alpha0 = in[1], one = typed(ctx, 1, dt), zero = typed(ctx, 0, dt);
    /* alpha < 1 is boosted to alpha + 1, the sample scaled by U^(1/alpha) */
    cj_val boost = cj_ge(alpha0, one);
    cj_val alpha = cj_where(boost, alpha0, cj_add(alpha0, one));
    gamma_env e = {dt, outer->log_space, {0}, {0}};
    e.d = cj_sub(alpha, typed(ctx, 1.0 / 3.0, dt));
    e.c = cj_mul(typed(ctx, 1.0 / 3.0, dt), rsqrt(e.d));
    cj_val key = random_split2(in[0], 0), sub = random_split2(in[0], 1);
    /* the initial state passes the rejection test once: U = 2 */
    cj_val init[4] = {key, zero, one, typed(ctx, 2, dt)}, st[4];
    if (run_while(ctx, "gamma_accept", accept_cond, accept_body, &e, 4, init, st) != 0) {
        out[0] = cj_scalar(ctx, NAN);
        return;
    }
    cj_val V = st[2];
    cj_val u = random_uniform_v(sub, dt, 0, NULL, zero, one);
    cj_val inv_alpha = cj_div(one, alpha0);
    if (e.log_space) {
        /* log(U) as -exponential: log1p(-u), as JAX, so that both spaces
         * use the same uniform */
        cj_val log_u = random_xla_log1p(cj_neg(u));
        cj_val log_boost = cj_where(cj_or(boost, cj_eq(log_u, zero)), zero, cj_mul(log_u, inv_alpha));
        out[0] = cj_add(cj_add(random_xla_log(e.d), random_xla_log(V)), log_boost);
    } else {
        cj_val b = cj_where(boost, one, cj_pow(cj_sub(one, u), inv_alpha));
        out[0] = cj_mul(cj_mul(e.d, V), b);
    }
}

/* ---- parameters and shapes ---------------------------------------------- */

static cj_ctx *enter_float(cj_val key, const char *op, cj_dtype dtype) {
    cj_ctx *ctx = random_enter(key, op);
    if (!ctx) return NULL;
    return random_check_float_dtype(ctx, op, dtype) == 0 ? ctx : NULL;
}

static int64_t count_of(int rank, const int64_t *dims) {
    int64_t n = 1;
    for (int d = 0; d < rank; d++) n *= dims[d];
    return n;
}

/* gamma or loggamma of a already of dtype and of shape (rank, dims):
 * vmap of the one-element sampler over split(key, n) and a's elements. */
static cj_val gamma_raw(cj_val key, cj_val a, cj_dtype dt, int rank, const int64_t *dims, int log_space) {
    cj_ctx *ctx = key.ctx;
    int64_t n = count_of(rank, dims);
    cj_val in[2] = {cj_random_split(key, n), cj_reshape(cj_broadcast_to(a, rank, dims), 1, &n)}, out;
    gamma_env e = {dt, log_space, {0}, {0}};
    cj_func *one = cj_func_new(ctx, log_space ? "loggamma_one" : "gamma_one", gamma_one, 2, 1, &e);
    cj_func *many = one ? cj_vmap(one, NULL) : NULL;
    cj_status st = many ? cj_call(many, in, &out) : CJ_ERR_OOM;
    if (many) cj_func_free(many);
    if (one) cj_func_free(one);
    if (st != CJ_OK) return api_err(ctx);
    return cj_reshape(out, rank, dims);
}

/* ---- gamma's derivative in a ----------------------------------------------- */

/* The implicit reparameterisation (JAX's random_gamma_grad, XLA's
 * RandomGammaGrad): a sample x of gamma(a) moves with a as
 * dx/da = -(dP/da) / (dP/dx), P(a, x) the regularised lower incomplete
 * gamma function, dP/dx = x^(a-1) e^-x / Gamma(a). As XLA, P comes from
 * its series where x <= 1 or x <= a and from the continued fraction of
 * Q = 1 - P otherwise, each run until its a-derivative's terms fall below
 * the dtype's epsilon (at most 2000 terms), carrying that derivative
 * along. Both run over the whole array, each element masked to the
 * method it uses (as XLA's select of the two). */
typedef struct grad_env {
    cj_val x;
    cj_dtype dt;
} grad_env;

#define GRAD_MAX_TERMS 2000

static double eps_of(cj_dtype dt) { return dt == CJ_F32 ? (double)FLT_EPSILON : DBL_EPSILON; }

/* carries: i, enabled, then the state; continue while any is enabled */
static void series_cond(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    out[0] = cj_and(cj_any(in[1], 0, NULL, 0), cj_lt(in[0], typed(ctx, GRAD_MAX_TERMS, CJ_I32)));
}

/* P = x^a e^-x / Gamma(a + 1) * S, S = sum_n x^n / ((a+1)...(a+n)):
 * carries (i, enabled, r, c, S, dc/da, dS/da) */
static void series_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    grad_env *g = user;
    cj_val en = in[1], x = g->x;
    cj_val r = cj_add(in[2], typed(ctx, 1, g->dt));
    cj_val xr = cj_div(x, r);
    cj_val dc = cj_add(cj_mul(in[5], xr), cj_div(cj_neg(cj_mul(in[3], x)), cj_mul(r, r)));
    cj_val ds = cj_add(in[6], dc);
    cj_val c = cj_mul(in[3], xr);
    cj_val sum = cj_add(in[4], c);
    out[0] = cj_add(in[0], typed(ctx, 1, CJ_I32));
    out[1] = cj_and(en, cj_gt(cj_abs(cj_div(dc, ds)), typed(ctx, eps_of(g->dt), g->dt)));
    cj_val nv[5] = {r, c, sum, dc, ds};
    for (int k = 0; k < 5; k++) out[2 + k] = cj_where(en, nv[k], in[2 + k]);
}

/* Q = x^a e^-x / Gamma(a) * F, F the continued fraction (Cephes' igamc):
 * carries (i, enabled, y, z, c, pkm1, qkm1, pkm2, qkm2, F, dpkm1, dqkm1,
 * dpkm2, dqkm2, dF), d. the derivatives in a */
static void cf_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    grad_env *g = user;
    cj_dtype dt = g->dt;
    cj_val en = in[1], zero = typed(ctx, 0, dt), one = typed(ctx, 1, dt);
    cj_val c = cj_add(in[4], one), y = cj_add(in[2], one), z = cj_add(in[3], typed(ctx, 2, dt));
    cj_val yc = cj_mul(y, c);
    cj_val pkm1 = in[5], qkm1 = in[6], pkm2 = in[7], qkm2 = in[8], ans = in[9];
    cj_val dpkm1 = in[10], dqkm1 = in[11], dpkm2 = in[12], dqkm2 = in[13], dans = in[14];
    cj_val pk = cj_sub(cj_mul(pkm1, z), cj_mul(pkm2, yc));
    cj_val qk = cj_sub(cj_mul(qkm1, z), cj_mul(qkm2, yc));
    cj_val nz = cj_ne(qk, zero);
    cj_val safe_qk = cj_where(nz, qk, one);
    cj_val ans2 = cj_where(nz, cj_div(pk, safe_qk), ans);
    /* y and z move with a by -1 each: d(yc)/da = -c, dz/da = -1 */
    cj_val dpk = cj_add(cj_sub(cj_sub(cj_mul(dpkm1, z), pkm1), cj_mul(dpkm2, yc)), cj_mul(pkm2, c));
    cj_val dqk = cj_add(cj_sub(cj_sub(cj_mul(dqkm1, z), qkm1), cj_mul(dqkm2, yc)), cj_mul(qkm2, c));
    cj_val dans2 = cj_where(nz, cj_div(cj_sub(dpk, cj_mul(ans2, dqk)), safe_qk), dans);
    cj_val moved = cj_where(nz, cj_abs(cj_sub(dans2, dans)), one);
    /* rescale when the terms grow past 1/eps */
    cj_val big = cj_gt(cj_abs(pk), typed(ctx, 1 / eps_of(dt), dt));
    cj_val s = cj_where(big, typed(ctx, eps_of(dt), dt), one);
    cj_val nv[13] = {y, z, c, cj_mul(pk, s), cj_mul(qk, s), cj_mul(pkm1, s), cj_mul(qkm1, s), ans2,
                     cj_mul(dpk, s), cj_mul(dqk, s), cj_mul(dpkm1, s), cj_mul(dqkm1, s), dans2};
    out[0] = cj_add(in[0], typed(ctx, 1, CJ_I32));
    out[1] = cj_and(en, cj_gt(moved, typed(ctx, eps_of(dt), dt)));
    for (int k = 0; k < 13; k++) out[2 + k] = cj_where(en, nv[k], in[2 + k]);
}

/* dx/da at samples x of gamma(a) (a and x of one float dtype and shape). */
static cj_val gamma_grad(cj_val a, cj_val x) {
    cj_ctx *ctx = a.ctx;
    cj_dtype dt = cj_val_dtype(a);
    int64_t dims[CJ_MAX_RANK];
    int rank = cj_val_shape(a, dims);
    cj_val zero = typed(ctx, 0, dt), one = typed(ctx, 1, dt);
    cj_val zeros = cj_zeros(ctx, dt, rank, dims), ones = cj_ones(ctx, dt, rank, dims);
    cj_val is_nan = cj_or(cj_isnan(a), cj_isnan(x)), x_zero = cj_eq(x, zero);
    cj_val domain = cj_or(cj_lt(x, zero), cj_le(a, zero));
    cj_val use_cf = cj_and(cj_gt(x, one), cj_gt(x, a));
    cj_val ax = cj_sub(cj_sub(cj_mul(a, cj_log(x)), x), cj_lgamma(a));
    double maxf = dt == CJ_F32 ? (double)FLT_MAX : DBL_MAX;
    cj_val underflow = cj_lt(ax, typed(ctx, -log(maxf), dt));
    cj_val enabled = cj_not(cj_or(cj_or(x_zero, domain), cj_or(underflow, is_nan)));
    /* x, or a harmless 1 where the result is 0 or NaN anyway (where the
     * density underflows the methods give their first term, as XLA's) */
    grad_env g = {cj_where(cj_or(cj_or(x_zero, domain), is_nan), ones, x), dt};
    cj_val i0 = cj_scalar_typed(ctx, 0, CJ_I32);
    cj_val sin[7] = {i0, cj_and(enabled, cj_not(use_cf)), a, ones, ones, zeros, zeros}, so[7];
    if (run_while(ctx, "gamma_grad_series", series_cond, series_body, &g, 7, sin, so) != 0) return api_err(ctx);
    cj_val lx = cj_log(g.x);
    cj_val series = cj_neg(cj_mul(cj_add(so[6], cj_mul(so[4], cj_sub(lx, cj_digamma(cj_add(a, one))))),
                                  cj_div(g.x, a)));
    cj_val xg = g.x, y = cj_sub(one, a), z = cj_add(cj_add(xg, y), one);
    cj_val cin[15] = {i0,    cj_and(enabled, use_cf), y,     z,     zeros, cj_add(xg, one), cj_mul(z, xg), ones, xg,
                      cj_div(cj_add(xg, one), cj_mul(z, xg)), zeros, cj_neg(xg), zeros, zeros, zeros};
    /* dF/da at the start: F = (x + 1) / (z x), dz/da = -1 */
    cin[14] = cj_div(cj_mul(cin[9], xg), cj_mul(z, xg));
    cj_val co[15];
    if (run_while(ctx, "gamma_grad_cf", series_cond, cf_body, &g, 15, cin, co) != 0) return api_err(ctx);
    cj_val cf = cj_mul(xg, cj_add(co[14], cj_mul(co[9], cj_sub(lx, cj_digamma(a)))));
    cj_val out = cj_where(use_cf, cf, series);
    out = cj_where(x_zero, zeros, out);
    return cj_where(cj_or(domain, is_nan), cj_full(ctx, NAN, dt, rank, dims), out);
}

cj_val cj_random_gamma_grad(cj_val a, cj_val x) {
    const char *op = "random_gamma_grad";
    cj_ctx *ctx = a.ctx ? a.ctx : x.ctx;
    const rt_aval *aa = api_aval(a, op), *xa = aa ? api_aval(x, op) : NULL;
    if (!aa || !xa) return api_err(ctx);
    char at[96], xt[96];
    rt_aval_str(aa, at, sizeof at);
    rt_aval_str(xa, xt, sizeof xt);
    if (aa->dtype != xa->dtype || (aa->dtype != CJ_F32 && aa->dtype != CJ_F64)) {
        core_error(ctx, CJ_ERR_DTYPE, "random_gamma_grad: a and x must be both f32 or both f64, got %s and %s", at, xt);
        return api_err(ctx);
    }
    int r;
    int64_t dims[CJ_MAX_RANK];
    if (random_shape_of(ctx, op, 2, (rt_aval[]){*aa, *xa}, -1, NULL, &r, dims) != 0) return api_err(ctx);
    return gamma_grad(cj_broadcast_to(a, r, dims), cj_broadcast_to(x, r, dims));
}

/* The sampler as JAX's random_gamma primitive: f(key, a) with a's
 * derivative from gamma_grad (loggamma: d log x = dx / x, x at least the
 * smallest normal). The flags are static: the rule runs whenever the
 * program is differentiated, after this call has returned. */
static const int SPACE_FLAGS[2] = {0, 1};

static void gamma_prim(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    int64_t dims[CJ_MAX_RANK];
    int rank = cj_val_shape(in[1], dims);
    out[0] = gamma_raw(in[0], in[1], cj_val_dtype(in[1]), rank, dims, *(const int *)user);
}

static void gamma_prim_jvp(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    int log_space = *(const int *)user;
    cj_val a = in[1];
    cj_dtype dt = cj_val_dtype(a);
    gamma_prim(ctx, in, out, user);
    cj_val x = out[0];
    if (log_space) {
        x = cj_exp(out[0]);
        x = cj_where(cj_eq(x, typed(ctx, 0, dt)), typed(ctx, dt == CJ_F32 ? (double)FLT_MIN : DBL_MIN, dt), x);
    }
    cj_val g = gamma_grad(cj_stop_gradient(a), cj_stop_gradient(x));
    if (log_space) g = cj_div(g, x);
    out[1] = cj_mul(in[3], g);
}

static cj_val gamma_draw(cj_val key, cj_val a, cj_dtype dt, int rank, const int64_t *dims, int log_space) {
    cj_ctx *ctx = key.ctx;
    if (count_of(rank, dims) == 0) return cj_zeros(ctx, dt, rank, dims);
    void *flag = (void *)&SPACE_FLAGS[log_space ? 1 : 0];
    cj_func *f = cj_func_new(ctx, log_space ? "random_loggamma" : "random_gamma", gamma_prim, 2, 1, flag);
    cj_func *rule = cj_func_new(ctx, "random_gamma_jvp", gamma_prim_jvp, 4, 2, flag);
    cj_func *c = f && rule ? cj_custom_jvp(f, rule) : NULL;
    cj_val in[2] = {key, cj_broadcast_to(a, rank, dims)}, out;
    cj_status st = c ? cj_call(c, in, &out) : CJ_ERR_OOM;
    cj_func_free(c);
    cj_func_free(rule);
    cj_func_free(f);
    return st == CJ_OK ? out : api_err(ctx);
}

static cj_val gamma_entry(cj_val key, cj_val a, cj_dtype dtype, int rank, const int64_t *shape, int log_space) {
    const char *op = log_space ? "random_loggamma" : "random_gamma";
    cj_ctx *ctx = enter_float(key, op, dtype);
    if (!ctx) return api_err(key.ctx);
    int r;
    int64_t dims[CJ_MAX_RANK];
    if (random_param_shape(ctx, op, 1, &a, rank, shape, &r, dims) != 0) return api_err(ctx);
    return gamma_draw(key, cj_astype(a, dtype), dtype, r, dims, log_space);
}

cj_val cj_random_gamma(cj_val key, cj_val a, cj_dtype dtype, int rank, const int64_t *shape) {
    return gamma_entry(key, a, dtype, rank, shape, 0);
}

cj_val cj_random_loggamma(cj_val key, cj_val a, cj_dtype dtype, int rank, const int64_t *shape) {
    return gamma_entry(key, a, dtype, rank, shape, 1);
}

/* ---- beta and dirichlet: gammas in log space -------------------------------- */

cj_val cj_random_beta(cj_val key, cj_val a, cj_val b, cj_dtype dtype, int rank, const int64_t *shape) {
    const char *op = "random_beta";
    cj_ctx *ctx = enter_float(key, op, dtype);
    if (!ctx) return api_err(key.ctx);
    int r;
    int64_t dims[CJ_MAX_RANK];
    cj_val params[2] = {a, b};
    if (random_param_shape(ctx, op, 2, params, rank, shape, &r, dims) != 0) return api_err(ctx);
    cj_val la = gamma_draw(random_split2(key, 0), cj_astype(a, dtype), dtype, r, dims, 1);
    cj_val lb = gamma_draw(random_split2(key, 1), cj_astype(b, dtype), dtype, r, dims, 1);
    /* a / (a + b) without overflow: both scaled by the larger */
    cj_val lmax = cj_max(la, lb);
    cj_val ga = cj_exp(cj_sub(la, lmax)), gb = cj_exp(cj_sub(lb, lmax));
    return cj_div(ga, cj_add(ga, gb));
}

cj_val cj_random_dirichlet(cj_val key, cj_val alpha, cj_dtype dtype, int rank, const int64_t *shape) {
    const char *op = "random_dirichlet";
    cj_ctx *ctx = enter_float(key, op, dtype);
    if (!ctx) return api_err(key.ctx);
    const rt_aval *aa = api_aval(alpha, op);
    if (!aa) return api_err(ctx);
    if (aa->rank < 1) {
        core_error(ctx, CJ_ERR_SHAPE, "random_dirichlet: alpha must be at least 1-D, got rank 0");
        return api_err(ctx);
    }
    /* the batch shape: given (alpha's batch must broadcast to it) or alpha's */
    rt_aval batch = *aa;
    batch.rank -= 1;
    int64_t k = aa->dims[aa->rank - 1], dims[CJ_MAX_RANK];
    int r;
    if (random_shape_of(ctx, op, 1, &batch, rank, shape, &r, dims) != 0) return api_err(ctx);
    if (r + 1 > CJ_MAX_RANK) {
        core_error(ctx, CJ_ERR_SHAPE, "random_dirichlet: the result needs rank %d (at most %d)", r + 1, CJ_MAX_RANK);
        return api_err(ctx);
    }
    dims[r] = k;
    cj_val lg = gamma_draw(key, cj_astype(alpha, dtype), dtype, r + 1, dims, 1);
    return cj_softmax(lg, -1);
}

/* ---- generalized normal and ball ------------------------------------------ */

/* JAX's _generalized_normal: rademacher signs times gamma(1/p)^(1/p). */
static cj_val gen_normal(cj_val key, cj_val p, cj_dtype dt, int rank, const int64_t *dims) {
    cj_ctx *ctx = key.ctx;
    cj_val inv_p = cj_div(typed(ctx, 1, dt), p);
    cj_val g = gamma_draw(random_split2(key, 0), inv_p, dt, rank, dims, 0);
    cj_val r = cj_random_rademacher(random_split2(key, 1), dt, rank, dims);
    return cj_mul(r, cj_pow(g, inv_p));
}

cj_val cj_random_generalized_normal(cj_val key, double p, cj_dtype dtype, int rank, const int64_t *shape) {
    const char *op = "random_generalized_normal";
    cj_ctx *ctx = enter_float(key, op, dtype);
    if (!ctx) return api_err(key.ctx);
    if (random_check_shape(ctx, op, rank, shape) != 0) return api_err(ctx);
    return gen_normal(key, typed(ctx, p, dtype), dtype, rank, shape);
}

cj_val cj_random_ball(cj_val key, int64_t d, double p, cj_dtype dtype, int rank, const int64_t *shape) {
    const char *op = "random_ball";
    cj_ctx *ctx = enter_float(key, op, dtype);
    if (!ctx) return api_err(key.ctx);
    if (random_check_shape(ctx, op, rank, shape) != 0) return api_err(ctx);
    if (d < 0 || rank + 1 > CJ_MAX_RANK) {
        core_error(ctx, d < 0 ? CJ_ERR_ARG : CJ_ERR_SHAPE, "random_ball: d must be >= 0 (got %lld) and rank + 1 <= %d",
                   (long long)d, CJ_MAX_RANK);
        return api_err(ctx);
    }
    int64_t gd[CJ_MAX_RANK];
    if (rank > 0) memcpy(gd, shape, sizeof(int64_t) * (size_t)rank); /* shape may be NULL at rank 0 */
    gd[rank] = d;
    cj_val pv = typed(ctx, p, dtype);
    cj_val g = gen_normal(random_split2(key, 0), pv, dtype, rank + 1, gd);
    cj_val e = cj_random_exponential(random_split2(key, 1), dtype, rank, shape);
    cj_val norm = cj_pow(cj_add(cj_sum(cj_pow(cj_abs(g), pv), 1, (const int64_t[]){-1}, 0), e),
                         cj_div(typed(ctx, 1, dtype), pv));
    return cj_div(g, cj_expand_dims(norm, -1));
}

/* ---- poisson ---------------------------------------------------------------- */

typedef struct poisson_env {
    cj_val lam;              /* f32, the result's shape */
    cj_val log_lam, a, b, inv_alpha, v_r; /* the rejection's constants */
    int rank;
    const int64_t *dims;
    cj_dtype dt;             /* of the counts */
} poisson_env;

/* Knuth: count uniforms until their product falls below exp(-lam).
 * Carries (i, k, key, log_prod). */
static void knuth_cond(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    poisson_env *e = user;
    cj_val going = cj_any(cj_gt(in[3], cj_neg(e->lam)), 0, NULL, 0);
    out[0] = cj_and(going, cj_lt(in[0], typed(ctx, INT32_MAX, CJ_I32)));
}

static void knuth_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    poisson_env *e = user;
    cj_val key = random_split2(in[2], 0), sub = random_split2(in[2], 1);
    cj_val k = cj_where(cj_gt(in[3], cj_neg(e->lam)), cj_add(in[1], typed(ctx, 1, e->dt)), in[1]);
    cj_val u = random_uniform_v(sub, CJ_F32, e->rank, e->dims, typed(ctx, 0, CJ_F32), typed(ctx, 1, CJ_F32));
    out[0] = cj_add(in[0], typed(ctx, 1, CJ_I32));
    out[1] = k;
    out[2] = key;
    out[3] = cj_add(in[3], random_xla_log(u));
}

/* Hörmann's transformed rejection. Carries (i, k, accepted, key). */
static void rejection_cond(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    cj_val going = cj_any(cj_not(in[2]), 0, NULL, 0);
    out[0] = cj_and(going, cj_lt(in[0], typed(ctx, INT32_MAX, CJ_I32)));
}

static void rejection_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    poisson_env *e = user;
    cj_dtype f = CJ_F32;
    cj_val zero = typed(ctx, 0, f), one = typed(ctx, 1, f), half = typed(ctx, 0.5, f);
    cj_val key = random_split_at(in[3], 3, 0), k0 = random_split_at(in[3], 3, 1), k1 = random_split_at(in[3], 3, 2);
    cj_val u = cj_sub(random_uniform_v(k0, f, e->rank, e->dims, zero, one), half);
    cj_val v = random_uniform_v(k1, f, e->rank, e->dims, zero, one);
    cj_val us = cj_sub(half, cj_abs(u));
    cj_val inner = cj_add(cj_div(cj_mul(typed(ctx, 2, f), e->a), us), e->b);
    cj_val k = cj_floor(cj_add(random_mul_add(inner, u, e->lam), typed(ctx, 0.43, f)));
    cj_val s = random_xla_log(cj_div(cj_mul(v, e->inv_alpha), cj_add(cj_div(e->a, cj_mul(us, us)), e->b)));
    cj_val t = cj_sub(random_mul_add(k, e->log_lam, cj_neg(e->lam)), cj_lgamma(cj_add(k, one)));
    cj_val accept1 = cj_and(cj_ge(us, typed(ctx, 0.07, f)), cj_le(v, e->v_r));
    cj_val reject = cj_or(cj_lt(k, zero), cj_and(cj_lt(us, typed(ctx, 0.013, f)), cj_gt(v, us)));
    cj_val accept = cj_or(accept1, cj_and(cj_not(reject), cj_le(s, t)));
    out[0] = cj_add(in[0], typed(ctx, 1, CJ_I32));
    out[1] = cj_where(accept, k, in[1]);
    out[2] = cj_or(in[2], accept);
    out[3] = key;
}

cj_val cj_random_poisson(cj_val key, cj_val lam, cj_dtype dtype, int rank, const int64_t *shape) {
    const char *op = "random_poisson";
    cj_ctx *ctx = random_enter(key, op);
    if (!ctx) return api_err(key.ctx);
    if (dtype != CJ_I32 && dtype != CJ_I64) {
        core_error(ctx, CJ_ERR_DTYPE, "random_poisson: dtype must be i32 or i64, got %s",
                   rt_dtype_valid((int)dtype) ? cj_dtype_name(dtype) : "an unknown dtype");
        return api_err(ctx);
    }
    int r;
    int64_t dims[CJ_MAX_RANK];
    if (random_param_shape(ctx, op, 1, &lam, rank, shape, &r, dims) != 0) return api_err(ctx);
    cj_dtype f = CJ_F32; /* JAX draws in f32 whatever the count's dtype */
    cj_val l = cj_broadcast_to(cj_astype(lam, f), r, dims);
    /* Knuth below 10 (and for NaN), rejection from 10; each branch gets a
     * harmless rate where the other is used, and both run (lax.select) */
    cj_val knuth = cj_or(cj_isnan(l), cj_lt(l, typed(ctx, 10, f)));
    poisson_env e = {0};
    e.rank = r;
    e.dims = dims;
    e.dt = dtype;
    e.lam = cj_where(knuth, l, typed(ctx, 0, f));
    cj_val kin[4] = {cj_scalar_typed(ctx, 0, CJ_I32), cj_zeros(ctx, dtype, r, dims), key, cj_zeros(ctx, f, r, dims)};
    cj_val kout[4];
    if (run_while(ctx, "poisson_knuth", knuth_cond, knuth_body, &e, 4, kin, kout) != 0) return api_err(ctx);
    cj_val from_knuth = cj_sub(kout[1], typed(ctx, 1, dtype));

    cj_val lr = cj_where(knuth, typed(ctx, 1e5, f), l);
    e.lam = lr;
    e.log_lam = random_xla_log(lr);
    e.b = random_mul_add(typed(ctx, 2.53, f), cj_sqrt(lr), typed(ctx, 0.931, f));
    e.a = random_mul_add(typed(ctx, 0.02483, f), e.b, typed(ctx, -0.059, f));
    e.inv_alpha = cj_add(typed(ctx, 1.1239, f), cj_div(typed(ctx, 1.1328, f), cj_sub(e.b, typed(ctx, 3.4, f))));
    e.v_r = cj_sub(typed(ctx, 0.9277, f), cj_div(typed(ctx, 3.6224, f), cj_sub(e.b, typed(ctx, 2, f))));
    cj_val rin[4] = {cj_scalar_typed(ctx, 0, CJ_I32), cj_full(ctx, -1, f, r, dims), cj_zeros(ctx, CJ_BOOL, r, dims), key};
    cj_val rout[4];
    if (run_while(ctx, "poisson_rejection", rejection_cond, rejection_body, &e, 4, rin, rout) != 0) return api_err(ctx);
    cj_val from_rejection = cj_astype(rout[1], dtype);

    cj_val k = cj_where(knuth, from_knuth, from_rejection);
    return cj_where(cj_eq(l, typed(ctx, 0, f)), cj_zeros(ctx, dtype, r, dims), k);
}
