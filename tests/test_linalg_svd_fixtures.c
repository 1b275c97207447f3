/* test_linalg_svd_fixtures.c — cj_linalg_svd against JAX's results on the
 * same inputs (tests/data/linalg/svd_*, listed in SVD_CASES, written by
 * JAX 0.10 through tests/data/gen_linalg_fixtures.py --svd; not
 * regenerated here).
 *
 * s is compared to C·n·eps of the largest; u's columns and vt's rows,
 * unique up to a sign shared by each pair, after fixing it the same way on
 * both sides (u's column's largest entry positive, vt's row flipped with
 * it), to C·n·eps/gap (gap: the smallest singular-value gap relative to
 * the largest, stored with each case); the gradient of a loss seeing s,
 * u∘u and vt∘vt to C·n·eps/gap². */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cjax.h"
#include "harness.h"
#include "test_util.h"

static void fix_signs(double *u, double *vt, int64_t count, int64_t m, int64_t n, int64_t k) {
    for (int64_t b = 0; b < count; b++)
        for (int64_t j = 0; j < k; j++) {
            double *ub = u + b * m * k, *vb = vt + b * k * n, big = 0;
            for (int64_t i = 0; i < m; i++)
                if (fabs(ub[i * k + j]) > fabs(big)) big = ub[i * k + j];
            if (big >= 0) continue;
            for (int64_t i = 0; i < m; i++) ub[i * k + j] = -ub[i * k + j];
            for (int64_t c = 0; c < n; c++) vb[j * n + c] = -vb[j * n + c];
        }
}

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
    cj_val ws, wu, wv;
} svd_weights;

static void f_loss(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    svd_weights *k = user;
    cj_val u, s, vt;
    cj_linalg_svd(in[0], 0, &u, &s, &vt);
    out[0] = cj_add(cj_sum(cj_mul(k->ws, s), -1, NULL, 0),
                    cj_add(cj_sum(cj_mul(k->wu, cj_mul(u, u)), -1, NULL, 0), cj_sum(cj_mul(k->wv, cj_mul(vt, vt)), -1, NULL, 0)));
}

TEST(linalg_svd_fixtures_match_jax) {
    char path[512];
    snprintf(path, sizeof path, "%s/linalg/SVD_CASES", CJAX_TEST_DATA_DIR);
    FILE *fp = fopen(path, "r");
    CHECK_MSG(fp, "cannot open %s", path);
    char name[128];
    int n_cases = 0;
    while (fscanf(fp, "%127s", name) == 1) {
        cj_ctx *ctx = cj_ctx_new(NULL);
        cj_val a = tu_load_linalg(ctx, name, "a"), u, s, vt, g;
        double gap;
        CHECK_MSG(!cj_is_error(a) && cj_read(tu_load_linalg(ctx, name, "gap"), &gap, sizeof gap) == CJ_OK, "%s: %s", name,
                  cj_error_message(ctx));
        int64_t m = cj_val_dim(a, -2), n = cj_val_dim(a, -1), k = m < n ? m : n, count = cj_val_size(a) / (m * n);
        double eps = cj_val_dtype(a) == CJ_F32 ? 1.2e-7 : 2.3e-16, tol = 20 * (double)(m > n ? m : n) * eps;
        CHECK(cj_linalg_svd(a, 0, &u, &s, &vt) == 0);
        double *S = tu_read_f64(s), *SJ = tu_read_f64(tu_load_linalg(ctx, name, "s")), *U = tu_read_f64(u), *UJ = tu_read_f64(tu_load_linalg(ctx, name, "u"));
        double *V = tu_read_f64(vt), *VJ = tu_read_f64(tu_load_linalg(ctx, name, "vt"));
        CHECK(S && SJ && U && UJ && V && VJ);
        fix_signs(U, V, count, m, n, k);
        fix_signs(UJ, VJ, count, m, n, k);
        double es = rel(S, SJ, count * k), eu = rel(U, UJ, count * m * k), ev = rel(V, VJ, count * k * n);
        CHECK_MSG(es <= tol, "%s s: %g > %g", name, es, tol);
        CHECK_MSG(eu <= tol / gap && ev <= tol / gap, "%s u %g vt %g > %g", name, eu, ev, tol / gap);
        svd_weights w = {tu_load_linalg(ctx, name, "ws"), tu_load_linalg(ctx, name, "wu"), tu_load_linalg(ctx, name, "wv")};
        CHECK(cj_call(cj_grad(cj_func_new(ctx, "loss", f_loss, 1, 1, &w), NULL), &a, &g) == CJ_OK);
        double *G = tu_read_f64(g), *GJ = tu_read_f64(tu_load_linalg(ctx, name, "grad"));
        CHECK(G && GJ);
        double eg = rel(G, GJ, count * m * n);
        CHECK_MSG(eg <= tol / (gap * gap), "%s grad: %g > %g", name, eg, tol / (gap * gap));
        free(S), free(SJ), free(U), free(UJ), free(V), free(VJ), free(G), free(GJ);
        CHECK_MSG(!cj_error(ctx), "%s: %s", name, cj_error_message(ctx));
        cj_ctx_free(ctx);
        n_cases++;
    }
    fclose(fp);
    CHECK_EQ_INT(n_cases, 8);
}
