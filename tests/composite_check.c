/* composite_check.c — the checks of composite_check.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "composite_check.h"
#include "harness.h"

cj_val cc_fixture(cj_ctx *ctx, const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/numpy/%s.npy", CJAX_TEST_DATA_DIR, name);
    cj_val v = cj_load_npy(ctx, path);
    if (cj_is_error(v)) th_fail(__FILE__, __LINE__, "fixture %s: %s", name, cj_error_message(ctx));
    return v;
}

static double *read_all(cj_val v, int64_t *n) {
    *n = cj_val_size(v);
    double *h = malloc(sizeof(double) * (size_t)(*n > 0 ? *n : 1));
    if (h && cj_read_as(v, CJ_F64, h, sizeof(double) * (size_t)*n) != CJ_OK) {
        free(h);
        return NULL;
    }
    return h;
}

int cc_close(cj_val got, cj_val want, double rtol, double atol, const char *what) {
    char gt[128], wt[128];
    cj_val_type_str(got, gt, sizeof gt);
    cj_val_type_str(want, wt, sizeof wt);
    if (strcmp(gt, wt) != 0) {
        th_fail(__FILE__, __LINE__, "%s: type %s, expected %s (%s)", what, gt, wt,
                got.ctx ? cj_error_message(got.ctx) : "");
        return 0;
    }
    int64_t n, m;
    double *g = read_all(got, &n), *w = read_all(want, &m);
    int ok = g && w && n == m;
    for (int64_t i = 0; ok == 1 && i < n; i++)
        if (!th_close(g[i], w[i], rtol, atol)) {
            th_fail(__FILE__, __LINE__, "%s: element %lld is %.9g, expected %.9g", what, (long long)i, g[i], w[i]);
            ok = -1;
        }
    if (!ok) th_fail(__FILE__, __LINE__, "%s: could not read the values", what);
    free(g), free(w);
    return ok == 1;
}

/* The second batch element made from an input. */
static cj_val other_input(cj_val x) {
    if (cj_val_dtype(x) != CJ_F32 && cj_val_dtype(x) != CJ_F64) return x;
    return cj_sub(cj_mul(x, cj_scalar(x.ctx, 0.75)), cj_scalar(x.ctx, 0.125));
}

enum { MAX_IO = 8 };

int cc_modes(cj_ctx *ctx, const char *what, cj_fn fn, void *user, int n_in, int n_out, const cj_val *in,
             double tol) {
    char msg[160];
    cj_func *f = cj_func_new(ctx, what, fn, n_in, n_out, user);
    cj_val eager[MAX_IO], got[MAX_IO];
    if (cj_call(f, in, eager) != CJ_OK) {
        th_fail(__FILE__, __LINE__, "%s eager: %s", what, cj_error_message(ctx));
        return 0;
    }
    static const cj_backend backends[] = {CJ_BACKEND_INTERP, CJ_BACKEND_CC};
    for (int b = 0; b < 2; b++) {
        cj_func *jf = cj_jit(f, &(cj_jit_opts){.backend = backends[b]});
        if (cj_call(jf, in, got) != CJ_OK) {
            th_fail(__FILE__, __LINE__, "%s jit %s: %s", what, b ? "cc" : "interp", cj_error_message(ctx));
            return 0;
        }
        cj_program_info info = {0};
        if (b == 1 && (cj_jit_program_info(jf, in, &info) != CJ_OK || !info.native)) {
            th_fail(__FILE__, __LINE__, "%s jit cc: no generated code (%s)", what, info.compile_error ? info.compile_error : "no program");
            return 0;
        }
        for (int o = 0; o < n_out; o++) {
            snprintf(msg, sizeof msg, "%s jit %s output %d", what, b ? "cc" : "interp", o);
            if (!cc_close(got[o], eager[o], tol, tol, msg)) return 0;
        }
        cj_func_free(jf);
    }
    /* vmap over two inputs against the single calls */
    cj_val second[MAX_IO], batched[MAX_IO], one[MAX_IO];
    for (int i = 0; i < n_in; i++) {
        second[i] = other_input(in[i]);
        batched[i] = cj_stack(2, (cj_val[]){in[i], second[i]}, 0);
    }
    cj_func *vf = cj_vmap(f, NULL);
    if (cj_call(vf, batched, got) != CJ_OK || cj_call(f, second, one) != CJ_OK) {
        th_fail(__FILE__, __LINE__, "%s vmap: %s", what, cj_error_message(ctx));
        return 0;
    }
    for (int o = 0; o < n_out; o++)
        for (int k = 0; k < 2; k++) {
            int64_t dims[CJ_MAX_RANK];
            cj_val_shape(got[o], dims);
            int64_t lo[CJ_MAX_RANK] = {0};
            lo[0] = k;
            dims[0] = k + 1;
            cj_val slice = cj_squeeze(cj_slice(got[o], lo, dims, NULL), 1, (int64_t[]){0});
            snprintf(msg, sizeof msg, "%s vmap output %d element %d", what, o, k);
            if (!cc_close(slice, k ? one[o] : eager[o], tol, tol, msg)) return 0;
        }
    cj_func_free(vf);
    cj_func_free(f);
    return 1;
}

int cc_jvp_fd(cj_ctx *ctx, const char *what, cj_fn fn, void *user, int n_out, cj_val x, double tol) {
    cj_func *f = cj_func_new(ctx, what, fn, 1, n_out, user);
    int64_t n = cj_val_size(x), dims[CJ_MAX_RANK];
    int rank = cj_val_shape(x, dims);
    double *t = malloc(sizeof(double) * (size_t)(n ? n : 1));
    uint64_t s = 0x5eed ^ (uint64_t)n;
    for (int64_t i = 0; i < n; i++) t[i] = th_rand_uniform(&s, -1, 1);
    cj_val tv = cj_array(ctx, CJ_F64, rank, dims, t);
    free(t);
    const double h = 1e-6;
    cj_val po[MAX_IO], to[MAX_IO], plus[MAX_IO], minus[MAX_IO];
    cj_val xp = cj_add(x, cj_mul(tv, cj_scalar_typed(ctx, h, CJ_F64)));
    cj_val xm = cj_sub(x, cj_mul(tv, cj_scalar_typed(ctx, h, CJ_F64)));
    if (cj_jvp(f, &x, &tv, po, to) != CJ_OK || cj_call(f, &xp, plus) != CJ_OK || cj_call(f, &xm, minus) != CJ_OK) {
        th_fail(__FILE__, __LINE__, "%s jvp: %s", what, cj_error_message(ctx));
        return 0;
    }
    double worst = 0;
    for (int o = 0; o < n_out; o++) {
        cj_val fd = cj_div(cj_sub(plus[o], minus[o]), cj_scalar_typed(ctx, 2 * h, CJ_F64));
        int64_t m, k;
        double *a = read_all(to[o], &m), *b = read_all(fd, &k);
        if (!a || !b || m != k) {
            th_fail(__FILE__, __LINE__, "%s jvp output %d: %s", what, o, cj_error_message(ctx));
            free(a), free(b);
            return 0;
        }
        for (int64_t i = 0; i < m; i++) {
            double e = fabs(a[i] - b[i]) / (1 + fabs(b[i]));
            if (!(e <= worst)) worst = e;
        }
        free(a), free(b);
    }
    cj_func_free(f);
    if (!(worst <= tol)) {
        th_fail(__FILE__, __LINE__, "%s: jvp against finite differences: error %g > %g", what, worst, tol);
        return 0;
    }
    return 1;
}

/* A random f64 array of v's shape (the cotangent of a float output; zeros
 * for the others, which carry none). */
static cj_val random_like(cj_ctx *ctx, cj_val v, uint64_t *s) {
    int64_t dims[CJ_MAX_RANK], n = cj_val_size(v);
    int rank = cj_val_shape(v, dims);
    cj_dtype dt = cj_val_dtype(v);
    if (dt != CJ_F64 && dt != CJ_F32) return cj_zeros(ctx, dt, rank, dims);
    double *h = malloc(sizeof(double) * (size_t)(n ? n : 1));
    for (int64_t i = 0; i < n; i++) h[i] = th_rand_uniform(s, -1, 1);
    cj_val r = cj_astype(cj_array(ctx, CJ_F64, rank, dims, h), dt);
    free(h);
    return r;
}

static double dot_all(cj_val a, cj_val b) {
    int64_t n, m;
    double *x = read_all(a, &n), *y = read_all(b, &m), s = 0;
    for (int64_t i = 0; x && y && i < n && i < m; i++) s += x[i] * y[i];
    free(x), free(y);
    return s;
}

int cc_vjp_jvp(cj_ctx *ctx, const char *what, cj_fn fn, void *user, int n_out, cj_val x, double tol) {
    cj_func *f = cj_func_new(ctx, what, fn, 1, n_out, user);
    uint64_t s = 0xfeed ^ (uint64_t)cj_val_size(x);
    cj_val v = random_like(ctx, x, &s), po[MAX_IO], to[MAX_IO], u[MAX_IO], ct;
    if (cj_jvp(f, &x, &v, po, to) != CJ_OK) {
        th_fail(__FILE__, __LINE__, "%s jvp: %s", what, cj_error_message(ctx));
        return 0;
    }
    cj_func *pullback = cj_vjp(f, &x, po);
    for (int o = 0; o < n_out; o++) u[o] = random_like(ctx, po[o], &s);
    if (!pullback || cj_call(pullback, u, &ct) != CJ_OK) {
        th_fail(__FILE__, __LINE__, "%s vjp: %s", what, cj_error_message(ctx));
        return 0;
    }
    double ujv = 0;
    for (int o = 0; o < n_out; o++) ujv += dot_all(u[o], to[o]);
    double jtuv = dot_all(ct, v), e = fabs(ujv - jtuv) / (1 + fabs(ujv));
    cj_func_free(pullback);
    cj_func_free(f);
    if (!(e <= tol)) {
        th_fail(__FILE__, __LINE__, "%s: <u, J v> = %.17g but <J^T u, v> = %.17g", what, ujv, jtuv);
        return 0;
    }
    return 1;
}
