/* ad_check.c — finite-difference and dot-product checks for autodiff
 * rules (see ad_check.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ad_check.h"

static double next_uniform(uint64_t *s) {
    /* splitmix64 */
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) / 9007199254740992.0;
}

cj_val adc_uniform(cj_ctx *ctx, int rank, const int64_t *dims, double lo, double hi, uint64_t *seed) {
    int64_t n = 1;
    for (int d = 0; d < rank; d++) n *= dims[d];
    double *buf = malloc(sizeof(double) * (size_t)(n ? n : 1));
    if (!buf) return cj_zeros(ctx, CJ_F64, rank, dims);
    for (int64_t i = 0; i < n; i++) buf[i] = lo + (hi - lo) * next_uniform(seed);
    cj_val v = cj_array(ctx, CJ_F64, rank, dims, buf);
    free(buf);
    return v;
}

static double *read_f64(cj_val v, int64_t *n) {
    *n = cj_val_size(v);
    double *buf = malloc(sizeof(double) * (size_t)(*n ? *n : 1));
    if (buf && cj_read_as(v, CJ_F64, buf, sizeof(double) * (size_t)*n) != CJ_OK) {
        free(buf);
        return NULL;
    }
    return buf;
}

double adc_dot(cj_val a, cj_val b) {
    int64_t na, nb;
    double *x = read_f64(a, &na), *y = read_f64(b, &nb);
    double s = 0;
    if (x && y && na == nb)
        for (int64_t i = 0; i < na; i++) s += x[i] * y[i];
    else
        s = NAN;
    free(x);
    free(y);
    return s;
}

static cj_val random_like(cj_val x, uint64_t *seed) {
    const core_value *v = core_peek(x);
    return adc_uniform(x.ctx, v->aval.rank, v->aval.dims, -1.0, 1.0, seed);
}

double adc_prim_jvp_error(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                          const int *diff, uint64_t seed) {
    if (!prim_rules[prim].jvp) return -1;
    int scope = cj_scope_begin(ctx);
    double worst = 0;
    cj_val out = core_bind(ctx, prim, p, n_in, in);
    if (!out.slot) worst = -1;
    int is_float = out.slot && rt_is_float(core_peek(out)->aval.dtype);
    for (int rep = 0; rep < 3 && worst >= 0; rep++) {
        cj_val tin[64], plus[64], minus[64];
        const double h = 1e-6;
        for (int i = 0; i < n_in; i++) {
            tin[i] = (cj_val){ctx, 0, 0};
            plus[i] = minus[i] = in[i];
            if (!diff[i]) continue;
            tin[i] = random_like(in[i], &seed);
            cj_val step = cj_mul(tin[i], cj_scalar_typed(ctx, h, CJ_F64));
            plus[i] = cj_add(in[i], step);
            minus[i] = cj_sub(in[i], step);
        }
        cj_val tout;
        if (prim_rules[prim].jvp(ctx, prim, p, n_in, in, tin, out, &tout) != 0) {
            worst = -1;
            break;
        }
        if (!is_float) {
            worst = tout.slot == 0 ? 0 : 1e30;
            break;
        }
        if (tout.slot == 0) tout = cj_zeros_like(out);
        cj_val fd = cj_div(cj_sub(core_bind(ctx, prim, p, n_in, plus), core_bind(ctx, prim, p, n_in, minus)),
                           cj_scalar_typed(ctx, 2 * h, CJ_F64));
        int64_t n1, n2;
        double *a = read_f64(tout, &n1), *b = read_f64(fd, &n2);
        if (!a || !b || n1 != n2) worst = -1;
        for (int64_t i = 0; worst >= 0 && i < n1; i++) {
            double e = fabs(a[i] - b[i]) / (1 + fabs(b[i]));
            if (!(e <= worst)) worst = e; /* NaN counts as worst */
        }
        free(a);
        free(b);
    }
    if (cj_error(ctx)) worst = -1;
    cj_scope_end(ctx, 0, NULL);
    (void)scope;
    return worst;
}

double adc_prim_transpose_error(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                                const int *lin, uint64_t seed) {
    if (!prim_rules[prim].transpose) return -1;
    cj_scope_begin(ctx);
    double err = -1;
    cj_val v[64], args[64], known[64], ct_in[64];
    rt_aval avals[64];
    for (int i = 0; i < n_in; i++) {
        avals[i] = core_peek(in[i])->aval;
        known[i] = lin[i] ? (cj_val){ctx, 0, 0} : in[i];
        v[i] = lin[i] ? random_like(in[i], &seed) : in[i];
        args[i] = v[i];
        ct_in[i] = (cj_val){ctx, 0, 0};
    }
    /* P restricted to the linear operands is affine in them when the others
     * enter additively (add with one linear operand): subtract P at zero
     * linear operands, which leaves the linear part the rule transposes */
    cj_val zero_args[64];
    for (int i = 0; i < n_in; i++) zero_args[i] = lin[i] ? cj_zeros_like(in[i]) : in[i];
    cj_val pv = cj_sub(core_bind(ctx, prim, p, n_in, args), core_bind(ctx, prim, p, n_in, zero_args));
    if (pv.slot) {
        cj_val u = random_like(pv, &seed);
        if (prim_rules[prim].transpose(ctx, prim, p, n_in, known, lin, avals, u, ct_in) == 0) {
            double lhs = adc_dot(u, pv), rhs = 0;
            for (int i = 0; i < n_in; i++)
                if (lin[i] && ct_in[i].slot) rhs += adc_dot(ct_in[i], v[i]);
            err = fabs(lhs - rhs) / (1 + fabs(lhs));
            if (isnan(err)) err = 1e30;
        }
    }
    if (cj_error(ctx)) err = -1;
    cj_scope_end(ctx, 0, NULL);
    return err;
}

prim_ivec adc_ivec(int n, const int64_t *v) {
    prim_ivec r;
    memset(&r, 0, sizeof r);
    r.n = n;
    for (int i = 0; i < n; i++) r.v[i] = v[i];
    return r;
}

typedef struct bound_prim {
    prim_id prim;
    const prim_params *p;
    int n_in;
} bound_prim;

static void apply_bound(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    const bound_prim *b = user;
    out[0] = core_bind(ctx, b->prim, b->p, b->n_in, in);
}

double adc_prim_jvp_vjp_error(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                              uint64_t *seed) {
    bound_prim b = {prim, p, n_in};
    cj_func *f = cj_func_new(ctx, prim_names[prim], apply_bound, n_in, 1, &b);
    cj_val v[64], out, jv, ct[64], out2;
    for (int i = 0; i < n_in; i++) {
        const rt_aval *a = &core_peek(in[i])->aval;
        /* integer operands pass their own value as the (ignored) tangent */
        v[i] = rt_is_float(a->dtype) ? adc_uniform(ctx, a->rank, a->dims, -1, 1, seed) : in[i];
    }
    if (!f || cj_jvp(f, in, v, &out, &jv) != CJ_OK) return -1;
    const rt_aval *oa = &core_peek(out)->aval;
    cj_val u = adc_uniform(ctx, oa->rank, oa->dims, -1, 1, seed);
    cj_func *pullback = cj_vjp(f, in, &out2);
    if (!pullback) return -1;
    int ok = cj_call(pullback, &u, ct) == CJ_OK;
    double lhs = adc_dot(u, jv), rhs = 0;
    for (int i = 0; ok && i < n_in; i++)
        if (rt_is_float(core_peek(in[i])->aval.dtype)) rhs += adc_dot(ct[i], v[i]);
    cj_func_free(pullback);
    cj_func_free(f);
    return ok ? fabs(lhs - rhs) / (1 + fabs(lhs)) : -1;
}
