/* test_linalg_fixtures.c — cjax's linear algebra against JAX's results on
 * the same inputs (tests/data/linalg/, written by JAX 0.10 through
 * tests/data/gen_linalg_fixtures.py; not regenerated here).
 *
 * Cases: f32 and f64; well-conditioned general and SPD matrices and
 * ill-conditioned ones (condition numbers to 1e6 in f64, 1e3 in f32);
 * single matrices and a batch. Tolerances come from the condition number
 * κ stored with each case: a backward-stable solve's relative error is
 * O(n·eps·κ), so values are checked to C·n·eps·κ of the largest reference
 * entry, gradients (which solve twice) to C·n·eps·κ², never looser than
 * 1e-1 of it. Pivots are compared exactly on well-conditioned cases (both
 * pick the first largest entry); everywhere else LU is checked by what it
 * must reconstruct, in test_linalg.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "test_util.h"
#include "prim/linalg_bind.h"

/* max |got - want| / max(|want|, tiny): the relative error of the whole array. */
static double rel_err(cj_val got, cj_val want) {
    int64_t n = cj_val_size(want);
    if (cj_is_error(got) || cj_val_size(got) != n) return INFINITY;
    double *g = malloc(sizeof(double) * (size_t)(n + 1)), *w = malloc(sizeof(double) * (size_t)(n + 1));
    cj_read_as(got, CJ_F64, g, sizeof(double) * (size_t)n);
    cj_read_as(want, CJ_F64, w, sizeof(double) * (size_t)n);
    double num = 0, den = 1e-300;
    for (int64_t i = 0; i < n; i++) {
        double e = g[i] == w[i] ? 0 : fabs(g[i] - w[i]); /* equal infinities (an f32 det overflows) agree */
        if (!(e <= num)) num = e;                           /* NaN sticks */
        if (fabs(w[i]) > den && isfinite(w[i])) den = fabs(w[i]);
    }
    free(g), free(w);
    return num / den;
}

static void f_solve(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    out[0] = cj_sum(cj_mul(*(cj_val *)user, cj_linalg_solve(in[0], in[1])), -1, NULL, 0);
}
static void f_logdet(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    cj_val s, l;
    cj_linalg_slogdet(in[0], &s, &l);
    out[0] = cj_sum(l, -1, NULL, 0);
}
static void f_chol(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    out[0] = cj_sum(cj_mul(*(cj_val *)user, cj_linalg_cholesky(in[0])), -1, NULL, 0);
}

TEST(linalg_fixtures_match_jax) {
    char path[512];
    snprintf(path, sizeof path, "%s/linalg/CASES", CJAX_TEST_DATA_DIR);
    FILE *fp = fopen(path, "r");
    CHECK_MSG(fp, "cannot open %s", path);
    char name[128];
    int n_cases = 0;
    while (fscanf(fp, "%127s", name) == 1) {
        cj_ctx *ctx = cj_ctx_new(NULL);
        cj_val a = tu_load_linalg(ctx, name, "a"), b = tu_load_linalg(ctx, name, "b"), w = tu_load_linalg(ctx, name, "w");
        cj_val condv = tu_load_linalg(ctx, name, "cond");
        CHECK_MSG(!cj_is_error(a) && !cj_is_error(condv), "%s: %s", name, cj_error_message(ctx));
        double cond = 0, *cb = malloc(sizeof(double) * (size_t)cj_val_size(condv));
        cj_read(condv, cb, sizeof(double) * (size_t)cj_val_size(condv));
        for (int64_t i = 0; i < cj_val_size(condv); i++) cond = cb[i] > cond ? cb[i] : cond;
        free(cb);
        int f32 = cj_val_dtype(a) == CJ_F32, well = strstr(name, "ill") == NULL, spd = strstr(name, "spd") != NULL;
        double n = (double)cj_val_dim(a, -1), eps = f32 ? 1.2e-7 : 2.3e-16;
        double tol = 20 * n * eps * cond, gtol = 20 * n * eps * cond * cond;
        if (gtol > 1e-1) gtol = 1e-1;
#define CMP(got, what, t)                                                                                      \
    do {                                                                                                       \
        double e_ = rel_err(got, tu_load_linalg(ctx, name, what));                                                       \
        CHECK_MSG(e_ <= (t), "%s %s: relative error %g > %g (cond %g)", name, what, e_, (double)(t), cond);   \
    } while (0)
        CMP(cj_linalg_solve(a, b), "solve", tol);
        CMP(cj_linalg_inv(a), "inv", tol);
        CMP(cj_linalg_det(a), "det", tol);
        cj_val sg, la;
        CHECK(cj_linalg_slogdet(a, &sg, &la) == 0);
        CMP(sg, "slogdet_sign", 0);
        CMP(la, "slogdet_log", tol);
        cj_val f[3];
        CHECK(cj_linalg_lu(a, f) == 0);
        if (well) {
            CMP(f[1], "lu_pivots", 0);
            CMP(f[2], "lu_perm", 0);
            CMP(f[0], "lu", tol);
            CMP(cj_linalg_triangular_solve(a, b, 1, 0, 0), "trsm_lower", tol);
            CMP(cj_linalg_triangular_solve(a, b, 0, 1, 0), "trsm_upper_t", tol);
        }
        cj_grad_opts both = {.n_argnums = 2, .argnums = (int[]){0, 1}};
        cj_val g[2];
        CHECK(cj_call(cj_grad(cj_func_new(ctx, "solve", f_solve, 2, 1, &w), &both), (cj_val[]){a, b}, g) == CJ_OK);
        CMP(g[0], "grad_solve_a", gtol);
        CMP(g[1], "grad_solve_b", tol);
        CHECK(cj_call(cj_grad(cj_func_new(ctx, "logdet", f_logdet, 1, 1, NULL), NULL), &a, g) == CJ_OK);
        CMP(g[0], "grad_logdet", gtol);
        if (spd) {
            cj_val wl = tu_load_linalg(ctx, name, "wl");
            CMP(cj_linalg_cholesky(a), "cholesky", tol);
            CMP(cj_linalg_cho_solve(cj_linalg_cholesky(a), b, 1), "cho_solve", tol);
            CHECK(cj_call(cj_grad(cj_func_new(ctx, "chol", f_chol, 1, 1, &wl), NULL), &a, g) == CJ_OK);
            CMP(g[0], "grad_cholesky", gtol);
        }
#undef CMP
        CHECK_MSG(!cj_error(ctx), "%s: %s", name, cj_error_message(ctx));
        cj_ctx_free(ctx);
        n_cases++;
    }
    fclose(fp);
    CHECK_EQ_INT(n_cases, 24);
}
