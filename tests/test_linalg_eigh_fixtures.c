/* test_linalg_eigh_fixtures.c — cj_linalg_eigh against JAX's results on
 * the same inputs (tests/data/linalg/eigh_*, listed in EIGH_CASES, written
 * by JAX 0.10 through tests/data/gen_linalg_fixtures.py --eigh; not
 * regenerated here).
 *
 * Eigenvalues are compared to C·n·eps of the largest; eigenvectors, unique
 * up to sign, after each column's sign is fixed the same way on both sides
 * (its largest entry positive), to C·n·eps/gap (gap: the smallest
 * eigenvalue gap relative to the largest eigenvalue, stored with each
 * case); the gradient of a loss seeing w and v², to C·n·eps/gap². */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cjax.h"
#include "harness.h"
#include "test_util.h"

/* Each column of each n×n matrix with its largest-magnitude entry positive. */
static void fix_signs(double *v, int64_t count, int64_t n) {
    for (int64_t b = 0; b < count; b++)
        for (int64_t j = 0; j < n; j++) {
            double *m = v + b * n * n, big = 0;
            for (int64_t i = 0; i < n; i++)
                if (fabs(m[i * n + j]) > fabs(big)) big = m[i * n + j];
            if (big < 0)
                for (int64_t i = 0; i < n; i++) m[i * n + j] = -m[i * n + j];
        }
}

/* max |g - w| / max |w| over n entries. */
static double rel(const double *g, const double *w, int64_t n) {
    double num = 0, den = 1e-300;
    for (int64_t i = 0; i < n; i++) {
        double e = fabs(g[i] - w[i]);
        if (!(e <= num)) num = e;
        if (fabs(w[i]) > den) den = fabs(w[i]);
    }
    return num / den;
}

typedef struct {
    cj_val ww, wv;
} eigh_weights;

static void f_loss(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    eigh_weights *k = user;
    cj_val v, w;
    cj_linalg_eigh(in[0], &v, &w);
    out[0] = cj_add(cj_sum(cj_mul(k->ww, w), -1, NULL, 0), cj_sum(cj_mul(k->wv, cj_mul(v, v)), -1, NULL, 0));
}

TEST(linalg_eigh_fixtures_match_jax) {
    char path[512];
    snprintf(path, sizeof path, "%s/linalg/EIGH_CASES", CJAX_TEST_DATA_DIR);
    FILE *fp = fopen(path, "r");
    CHECK_MSG(fp, "cannot open %s", path);
    char name[128];
    int n_cases = 0;
    while (fscanf(fp, "%127s", name) == 1) {
        cj_ctx *ctx = cj_ctx_new(NULL);
        cj_val a = tu_load_linalg(ctx, name, "a"), v, w, g;
        double gap;
        CHECK_MSG(!cj_is_error(a) && cj_read(tu_load_linalg(ctx, name, "gap"), &gap, sizeof gap) == CJ_OK, "%s: %s", name,
                  cj_error_message(ctx));
        int64_t n = cj_val_dim(a, -1), count = cj_val_size(a) / (n * n);
        double eps = cj_val_dtype(a) == CJ_F32 ? 1.2e-7 : 2.3e-16, tol = 20 * (double)n * eps;
        CHECK(cj_linalg_eigh(a, &v, &w) == 0);
        double *W = tu_read_f64(w), *WJ = tu_read_f64(tu_load_linalg(ctx, name, "w")), *V = tu_read_f64(v), *VJ = tu_read_f64(tu_load_linalg(ctx, name, "v"));
        CHECK(W && WJ && V && VJ);
        fix_signs(V, count, n);
        fix_signs(VJ, count, n);
        double ew = rel(W, WJ, count * n), ev = rel(V, VJ, count * n * n);
        CHECK_MSG(ew <= tol, "%s w: %g > %g", name, ew, tol);
        CHECK_MSG(ev <= tol / gap, "%s v: %g > %g", name, ev, tol / gap);
        eigh_weights k = {tu_load_linalg(ctx, name, "ww"), tu_load_linalg(ctx, name, "wv")};
        CHECK(cj_call(cj_grad(cj_func_new(ctx, "loss", f_loss, 1, 1, &k), NULL), &a, &g) == CJ_OK);
        double *G = tu_read_f64(g), *GJ = tu_read_f64(tu_load_linalg(ctx, name, "grad"));
        CHECK(G && GJ);
        double eg = rel(G, GJ, count * n * n);
        CHECK_MSG(eg <= tol / (gap * gap), "%s grad: %g > %g", name, eg, tol / (gap * gap));
        free(W), free(WJ), free(V), free(VJ), free(G), free(GJ);
        CHECK_MSG(!cj_error(ctx), "%s: %s", name, cj_error_message(ctx));
        cj_ctx_free(ctx);
        n_cases++;
    }
    fclose(fp);
    CHECK_EQ_INT(n_cases, 6);
}
