/* test_linalg_decomp_fixtures.c — cjax's decompositions (qr) against JAX's
 * results on the same inputs (tests/data/linalg/decomp_*, listed in
 * DECOMP_CASES, written by JAX 0.10 through
 * tests/data/gen_linalg_fixtures.py --decomp; not regenerated here).
 *
 * Cases: random general matrices, tall, square, wide and a batch, f32 and
 * f64. Q and R are unique once R's diagonal signs are fixed, and both
 * follow LAPACK's convention (beta = -sign(alpha)·‖x‖), so they are
 * compared entry by entry, to C·n·eps·κ of the largest reference entry (κ,
 * the 2-norm condition number, stored with each case); the gradient of a
 * weighted sum of Q and R to C·n·eps·κ². */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjax.h"
#include "harness.h"
#include "test_util.h"

/* max |got - want| / max |want|. */
static double rel_err(cj_val got, cj_val want) {
    int64_t n = cj_val_size(want);
    if (cj_is_error(got) || cj_is_error(want) || cj_val_size(got) != n) return INFINITY;
    double *g = malloc(sizeof(double) * (size_t)(n + 1)), *w = malloc(sizeof(double) * (size_t)(n + 1));
    cj_read_as(got, CJ_F64, g, sizeof(double) * (size_t)n);
    cj_read_as(want, CJ_F64, w, sizeof(double) * (size_t)n);
    double num = 0, den = 1e-300;
    for (int64_t i = 0; i < n; i++) {
        double e = fabs(g[i] - w[i]);
        if (!(e <= num)) num = e;
        if (fabs(w[i]) > den) den = fabs(w[i]);
    }
    free(g), free(w);
    return num / den;
}

typedef struct {
    cj_val wq, wr;
} qr_weights;

static void f_qr_loss(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    qr_weights *w = user;
    cj_val q, r;
    cj_linalg_qr(in[0], "reduced", &q, &r);
    out[0] = cj_add(cj_sum(cj_mul(w->wq, q), -1, NULL, 0), cj_sum(cj_mul(w->wr, r), -1, NULL, 0));
}

TEST(linalg_decomp_fixtures_match_jax) {
    char path[512];
    snprintf(path, sizeof path, "%s/linalg/DECOMP_CASES", CJAX_TEST_DATA_DIR);
    FILE *fp = fopen(path, "r");
    CHECK_MSG(fp, "cannot open %s", path);
    char name[128];
    int n_cases = 0;
    while (fscanf(fp, "%127s", name) == 1) {
        cj_ctx *ctx = cj_ctx_new(NULL);
        cj_val a = tu_load_linalg(ctx, name, "a"), condv = tu_load_linalg(ctx, name, "cond");
        CHECK_MSG(!cj_is_error(a) && !cj_is_error(condv), "%s: %s", name, cj_error_message(ctx));
        double cond = 0, *cb = malloc(sizeof(double) * (size_t)cj_val_size(condv));
        cj_read(condv, cb, sizeof(double) * (size_t)cj_val_size(condv));
        for (int64_t i = 0; i < cj_val_size(condv); i++) cond = cb[i] > cond ? cb[i] : cond;
        free(cb);
        int f32 = cj_val_dtype(a) == CJ_F32;
        int64_t m = cj_val_dim(a, -2), n = cj_val_dim(a, -1);
        double size = (double)(m > n ? m : n), eps = f32 ? 1.2e-7 : 2.3e-16;
        double tol = 20 * size * eps * cond, gtol = 20 * size * eps * cond * cond;
#define CMP(got, what, t)                                                                                    \
    do {                                                                                                     \
        double e_ = rel_err(got, tu_load_linalg(ctx, name, what));                                                     \
        CHECK_MSG(e_ <= (t), "%s %s: relative error %g > %g (cond %g)", name, what, e_, (double)(t), cond); \
    } while (0)
        cj_val q, r;
        CHECK(cj_linalg_qr(a, "reduced", &q, &r) == 0);
        CMP(q, "qr_q", tol);
        CMP(r, "qr_r", tol);
        CHECK(cj_linalg_qr(a, "complete", &q, &r) == 0);
        CMP(r, "qrc_r", tol);
        /* complete Q's last m - n columns are any orthonormal completion;
         * LAPACK's orgqr and cjax's form them the same way (H_0 ⋯ H_{k-1}
         * applied to the identity's columns), so they agree too */
        CMP(q, "qrc_q", tol);
        if (m >= n) {
            qr_weights w = {tu_load_linalg(ctx, name, "wq"), tu_load_linalg(ctx, name, "wr")};
            cj_val g;
            CHECK(cj_call(cj_grad(cj_func_new(ctx, "qr", f_qr_loss, 1, 1, &w), NULL), &a, &g) == CJ_OK);
            CMP(g, "grad_qr", gtol);
        }
#undef CMP
        CHECK_MSG(!cj_error(ctx), "%s: %s", name, cj_error_message(ctx));
        cj_ctx_free(ctx);
        n_cases++;
    }
    fclose(fp);
    CHECK_EQ_INT(n_cases, 10);
}
