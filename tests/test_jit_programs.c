/* test_jit_programs.c — a table of composite programs, each run eagerly and
 * under jit on the interpreter and on generated C (first call and cached
 * call): both backends must agree exactly, jit must match eager within a
 * few ulp (fused row reductions may sum in another order), and eager must
 * match a plain C reference loop written here. */
#include <stdlib.h>

#include "harness.h"
#include "test_util.h"

#define R 6 /* rows */
#define C 5 /* columns */

typedef struct program {
    const char *name;
    cj_fn fn;
    int n_in;
    int ranks[3];
    int64_t dims[3][2];
    /* reference: inputs (row-major doubles) → output (row-major doubles) */
    void (*reference)(double *const *in, double *out);
    int64_t out_size;
} program;

/* layer norm over rows, eps 1e-5, then scale and shift */
static void p_layernorm(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    int64_t ax = -1;
    cj_val mu = cj_mean(in[0], 1, &ax, 1);
    cj_val xc = cj_sub(in[0], mu);
    cj_val var = cj_mean(cj_square(xc), 1, &ax, 1);
    cj_val norm = cj_mul(xc, cj_rsqrt(cj_add(var, cj_scalar(ctx, 1e-5))));
    out[0] = cj_add(cj_mul(norm, in[1]), in[2]);
}
static void r_layernorm(double *const *in, double *out) {
    for (int i = 0; i < R; i++) {
        double m = 0, v = 0;
        for (int j = 0; j < C; j++) m += in[0][i * C + j];
        m /= C;
        for (int j = 0; j < C; j++) v += (in[0][i * C + j] - m) * (in[0][i * C + j] - m);
        v /= C;
        for (int j = 0; j < C; j++)
            out[i * C + j] = (in[0][i * C + j] - m) / sqrt(v + 1e-5) * in[1][j] + in[2][j];
    }
}

/* softmax over rows */
static void p_softmax(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u, (void)ctx;
    out[0] = cj_softmax(in[0], -1);
}
static void r_softmax(double *const *in, double *out) {
    for (int i = 0; i < R; i++) {
        double mx = -INFINITY, s = 0;
        for (int j = 0; j < C; j++) mx = fmax(mx, in[0][i * C + j]);
        for (int j = 0; j < C; j++) s += exp(in[0][i * C + j] - mx);
        for (int j = 0; j < C; j++) out[i * C + j] = exp(in[0][i * C + j] - mx) / s;
    }
}

/* dense layer: relu(x @ w + b), x [R,C], w [C,C] */
static void p_dense(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u, (void)ctx;
    out[0] = cj_relu(cj_add(cj_matmul(in[0], in[1]), in[2]));
}
static void r_dense(double *const *in, double *out) {
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++) {
            double s = in[2][j];
            for (int k = 0; k < C; k++) s += in[0][i * C + k] * in[1][k * C + j];
            out[i * C + j] = s > 0 ? s : 0;
        }
}

/* logsumexp over columns (axis 0), then a weakly typed polynomial */
static void p_lse_poly(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    int64_t ax = 0;
    cj_val l = cj_logsumexp(in[0], 1, &ax, 0);
    out[0] = cj_add(cj_mul(cj_scalar(ctx, 3.0), cj_mul(l, l)), cj_scalar_int(ctx, 1));
}
static void r_lse_poly(double *const *in, double *out) {
    for (int j = 0; j < C; j++) {
        double mx = -INFINITY, s = 0;
        for (int i = 0; i < R; i++) mx = fmax(mx, in[0][i * C + j]);
        for (int i = 0; i < R; i++) s += exp(in[0][i * C + j] - mx);
        double l = mx + log(s);
        out[j] = 3 * l * l + 1;
    }
}

/* data movement: transpose, slice off the first row, concatenate a row of
 * column sums back on top, reshape to a vector */
static void p_movement(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u, (void)ctx;
    cj_val t = cj_transpose(in[0], NULL);                                   /* [C,R] */
    cj_val s = cj_slice(t, (int64_t[]){1, 0}, (int64_t[]){C, R}, NULL);     /* [C-1,R] */
    int64_t ax = 0;
    cj_val top = cj_sum(t, 1, &ax, 1);                                      /* [1,R] */
    cj_val cat = cj_concatenate(2, (cj_val[]){top, s}, 0);                  /* [C,R] */
    out[0] = cj_reshape(cat, 1, (int64_t[]){-1});
}
static void r_movement(double *const *in, double *out) {
    for (int j = 0; j < R; j++) {
        double s = 0;
        for (int i = 0; i < C; i++) s += in[0][j * C + i];
        out[j] = s;
    }
    for (int i = 1; i < C; i++)
        for (int j = 0; j < R; j++) out[i * R + j] = in[0][j * C + i];
}

/* running sum clipped where negative, then its maximum per row */
static void p_scan_where(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    cj_val c = cj_cumsum(in[0], 1, 0);
    cj_val z = cj_where(cj_lt(c, cj_scalar(ctx, 0.0)), cj_zeros_like(c), c);
    int64_t ax = 1;
    out[0] = cj_reduce_max(z, 1, &ax, 0);
}
static void r_scan_where(double *const *in, double *out) {
    for (int i = 0; i < R; i++) {
        double c = 0, mx = -INFINITY;
        for (int j = 0; j < C; j++) {
            c += in[0][i * C + j];
            mx = fmax(mx, c < 0 ? 0 : c);
        }
        out[i] = mx;
    }
}

static const program programs[] = {
    {"layernorm", p_layernorm, 3, {2, 1, 1}, {{R, C}, {C}, {C}}, r_layernorm, R * C},
    {"softmax", p_softmax, 1, {2}, {{R, C}}, r_softmax, R * C},
    {"dense_relu", p_dense, 3, {2, 2, 1}, {{R, C}, {C, C}, {C}}, r_dense, R * C},
    {"logsumexp_poly", p_lse_poly, 1, {2}, {{R, C}}, r_lse_poly, C},
    {"data_movement", p_movement, 1, {2}, {{R, C}}, r_movement, R * C},
    {"cumsum_where_max", p_scan_where, 1, {2}, {{R, C}}, r_scan_where, R},
};

TEST(jit_programs_match_eager_and_reference) {
    uint64_t rng = 42;
    for (size_t p = 0; p < sizeof programs / sizeof programs[0]; p++) {
        const program *pr = &programs[p];
        cj_ctx *ctx = cj_ctx_new(NULL);
        cj_val in[3];
        double *ref_in[3];
        for (int i = 0; i < pr->n_in; i++) {
            int64_t n = 1;
            for (int d = 0; d < pr->ranks[i]; d++) n *= pr->dims[i][d];
            float *v = malloc(sizeof(float) * (size_t)n);
            ref_in[i] = malloc(sizeof(double) * (size_t)n);
            for (int64_t k = 0; k < n; k++) {
                v[k] = (float)th_rand_uniform(&rng, -2, 2);
                ref_in[i][k] = v[k];
            }
            in[i] = cj_array(ctx, CJ_F32, pr->ranks[i], pr->dims[i], v);
            free(v);
        }
        cj_func *f = cj_func_new(ctx, pr->name, pr->fn, pr->n_in, 1, NULL);
        cj_jit_opts interp = {0, NULL, 0, NULL, CJ_BACKEND_INTERP}, cc = {0, NULL, 0, NULL, CJ_BACKEND_CC};
        cj_func *jf = cj_jit(f, &interp), *jc = cj_jit(f, &cc);
        cj_val ye, yj1, yj2;
        cj_call(f, in, &ye);
        cj_call(jf, in, &yj1);
        cj_call(jc, in, &yj2);
        CHECK_MSG(cj_error(ctx) == CJ_OK, "%s: %s", pr->name, cj_error_message(ctx));
        CHECK_MSG(cj_val_size(ye) == pr->out_size, "%s: output size %lld", pr->name, (long long)cj_val_size(ye));
        float *e = malloc(sizeof(float) * (size_t)pr->out_size), *j1 = malloc(sizeof(float) * (size_t)pr->out_size),
              *j2 = malloc(sizeof(float) * (size_t)pr->out_size);
        double *ref = malloc(sizeof(double) * (size_t)pr->out_size);
        cj_read(ye, e, sizeof(float) * (size_t)pr->out_size);
        cj_read(yj1, j1, sizeof(float) * (size_t)pr->out_size);
        cj_read(yj2, j2, sizeof(float) * (size_t)pr->out_size);
        pr->reference(ref_in, ref);
        int ok = 1;
        for (int64_t k = 0; k < pr->out_size && ok; k++) {
            if (j1[k] != j2[k] || !th_close(e[k], j1[k], 4e-7, 1e-7)) {
                th_fail(__FILE__, __LINE__, "%s[%lld]: eager %.9g, jit interp %.9g, jit cc %.9g", pr->name,
                        (long long)k, e[k], j1[k], j2[k]);
                ok = 0;
            } else if (!th_close(e[k], ref[k], 1e-5, 1e-5)) {
                th_fail(__FILE__, __LINE__, "%s[%lld]: %.9g, reference %.9g", pr->name, (long long)k, e[k], ref[k]);
                ok = 0;
            }
        }
        cj_val yj3;
        cj_call(jf, in, &yj3); /* a cached call */
        cj_jit_stats st;
        cj_jit_stats_get(jf, &st);
        if (ok && (st.traces != 1 || st.hits != 1)) {
            th_fail(__FILE__, __LINE__, "%s: %llu traces, %llu hits", pr->name, (unsigned long long)st.traces,
                    (unsigned long long)st.hits);
        }
        free(e), free(j1), free(j2), free(ref);
        for (int i = 0; i < pr->n_in; i++) free(ref_in[i]);
        cj_ctx_free(ctx);
        if (th_failed_now()) return;
    }
}
