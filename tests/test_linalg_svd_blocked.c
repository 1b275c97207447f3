/* test_linalg_svd_blocked.c — the blocked bidiagonalisation
 * (src/runtime/linalg_bidiag_blocked_impl.h: panels of nb columns, the
 * trailing matrix updated by GEMM) against the unblocked one
 * (rt_linalg_set_reduce_block(0)) and against LAPACK's gesdd when the build
 * has one, f32 and f64, at sizes where the number of panels changes (the
 * panels run while more than nb + 32 columns are left: r = nb + 32 has
 * none, nb + 33 one, 2nb + 33 two), tall and wide, full and reduced,
 * random and rank-deficient (A = B C of rank r/2).
 *
 * References: singular values of the two reductions (and of gesdd) agree
 * to C·r·eps·σ_max (Weyl: both are backward stable); A = U S Vᵀ and
 * UᵀU = I, V Vᵀ = I to C·r·eps computed in long double; the rank-deficient
 * matrices' trailing r/2 values below C·r·eps·σ_max. That the setting
 * reaches the kernel is seen in the vectors: the two reductions round
 * differently, so their U are not bit for bit the same. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjax.h"
#include "harness.h"
#include "runtime/linalg_kernels.h"
#include "test_util.h"

static double bl_rand(uint64_t *s) {
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) / 9007199254740992.0 * 2 - 1;
}

typedef struct {
    double *u, *s, *vt; /* as double whatever the type */
    int bits_u;         /* a checksum of u's bits as computed */
} bl_out;

/* svd of a (m × n, double) in f32 or f64 with panel width nb. */
static bl_out bl_run(const double *a, int64_t m, int64_t n, int full, int f64, int64_t nb) {
    int64_t r = m < n ? m : n, uc = full ? m : r, vr = full ? n : r;
    bl_out o = {malloc(sizeof(double) * (size_t)(m * uc)), malloc(sizeof(double) * (size_t)r),
                malloc(sizeof(double) * (size_t)(vr * n)), 0};
    size_t es = f64 ? sizeof(double) : sizeof(float);
    void *ax = malloc(es * (size_t)(m * n)), *ux = malloc(es * (size_t)(m * uc)), *sx = malloc(es * (size_t)r);
    void *vx = malloc(es * (size_t)(vr * n)), *wx = malloc(es * (size_t)rt_svd_work(m, n));
    for (int64_t i = 0; i < m * n; i++)
        if (f64) ((double *)ax)[i] = a[i];
        else ((float *)ax)[i] = (float)a[i];
    rt_linalg_set_reduce_block(nb);
    if (f64) rt_svd_f64(1, m, n, full, ax, sx, ux, vx, wx);
    else rt_svd_f32(1, m, n, full, ax, sx, ux, vx, wx);
    rt_linalg_set_reduce_block(-1);
    uint32_t h = 2166136261u;
    const unsigned char *ub = ux;
    for (size_t i = 0; i < es * (size_t)(m * uc); i++) h = (h ^ ub[i]) * 16777619u;
    o.bits_u = (int)(h & 0x7fffffff);
    for (int64_t i = 0; i < m * uc; i++) o.u[i] = f64 ? ((double *)ux)[i] : ((float *)ux)[i];
    for (int64_t i = 0; i < r; i++) o.s[i] = f64 ? ((double *)sx)[i] : ((float *)sx)[i];
    for (int64_t i = 0; i < vr * n; i++) o.vt[i] = f64 ? ((double *)vx)[i] : ((float *)vx)[i];
    free(ax), free(ux), free(sx), free(vx), free(wx);
    return o;
}
static void bl_free(bl_out o) { free(o.u), free(o.s), free(o.vt); }

/* max |A - U S Vᵀ| / max|A| and max |UᵀU - I|, |V Vᵀ - I| (long double). */
static void bl_errors(const double *a, int64_t m, int64_t n, int full, bl_out o, double *rec, double *orth) {
    int64_t r = m < n ? m : n, uc = full ? m : r, vr = full ? n : r;
    double norm = 1e-300;
    for (int64_t i = 0; i < m * n; i++) norm = fmax(norm, fabs(a[i]));
    *rec = *orth = 0;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            long double x = 0;
            for (int64_t t = 0; t < r; t++) x += (long double)o.u[i * uc + t] * o.s[t] * o.vt[t * n + j];
            *rec = fmax(*rec, (double)fabsl(x - a[i * n + j]) / norm);
        }
    for (int64_t i = 0; i < uc; i++)
        for (int64_t j = i; j < uc; j++) {
            long double x = 0;
            for (int64_t p = 0; p < m; p++) x += (long double)o.u[p * uc + i] * o.u[p * uc + j];
            *orth = fmax(*orth, (double)fabsl(x - (i == j)));
        }
    for (int64_t i = 0; i < vr; i++)
        for (int64_t j = i; j < vr; j++) {
            long double x = 0;
            for (int64_t p = 0; p < n; p++) x += (long double)o.vt[i * n + p] * o.vt[j * n + p];
            *orth = fmax(*orth, (double)fabsl(x - (i == j)));
        }
}

/* a random m × n matrix, or one of rank r/2 (B C, B m × r/2, C r/2 × n) */
static double *bl_matrix(int64_t m, int64_t n, int rank_def, uint64_t *seed) {
    double *a = malloc(sizeof(double) * (size_t)(m * n));
    int64_t r = m < n ? m : n, k = r / 2;
    if (!rank_def) {
        for (int64_t i = 0; i < m * n; i++) a[i] = bl_rand(seed);
        return a;
    }
    double *b = malloc(sizeof(double) * (size_t)(m * k)), *c = malloc(sizeof(double) * (size_t)(k * n));
    for (int64_t i = 0; i < m * k; i++) b[i] = bl_rand(seed);
    for (int64_t i = 0; i < k * n; i++) c[i] = bl_rand(seed);
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double x = 0;
            for (int64_t t = 0; t < k; t++) x += b[i * k + t] * c[t * n + j];
            a[i * n + j] = x;
        }
    free(b), free(c);
    return a;
}

/* One case: blocked (nb) vs unblocked, each checked on its own. */
static void bl_case(int64_t m, int64_t n, int full, int f64, int rank_def, int64_t nb, uint64_t *seed) {
    int64_t r = m < n ? m : n;
    double eps = f64 ? 2.220446049250313e-16 : 1.1920929e-07, tol = 20 * (double)r * eps;
    double *a = bl_matrix(m, n, rank_def, seed);
    bl_out b = bl_run(a, m, n, full, f64, nb), u = bl_run(a, m, n, full, f64, 0);
    double rec_b, orth_b, rec_u, orth_u, ds = 0;
    bl_errors(a, m, n, full, b, &rec_b, &orth_b);
    bl_errors(a, m, n, full, u, &rec_u, &orth_u);
    for (int64_t t = 0; t < r; t++) ds = fmax(ds, fabs(b.s[t] - u.s[t]));
    int desc = 1;
    for (int64_t t = 1; t < r; t++) desc &= b.s[t] <= b.s[t - 1] && b.s[t] >= 0;
    double tail = 0;
    for (int64_t t = r - r / 2; rank_def && t < r; t++) tail = fmax(tail, b.s[t]);
    int ok = desc && rec_b <= tol && orth_b <= tol && rec_u <= tol && orth_u <= tol && ds <= tol * b.s[0] &&
             tail <= tol * b.s[0] && b.bits_u != u.bits_u;
    if (!ok)
        printf("    svd blocked %s %lldx%lld full=%d rank_def=%d nb=%lld: rec %.2g/%.2g orth %.2g/%.2g |ds| %.2g "
               "tail %.2g (tol %.2g) desc %d same_bits %d\n",
               f64 ? "f64" : "f32", (long long)m, (long long)n, full, rank_def, (long long)nb, rec_b, rec_u, orth_b,
               orth_u, ds / b.s[0], tail / b.s[0], tol, desc, b.bits_u == u.bits_u);
    CHECK(ok);
    bl_free(b), bl_free(u);
    free(a);
}

TEST(linalg_svd_blocked_matches_unblocked_across_panel_boundaries) {
    uint64_t seed = 0x5bd1e995u;
    /* nb = 8: r = 40 has no panel, 41 one, 49 two, 59 three; nb = 32: 97 one, 131 two */
    const int64_t rs8[] = {41, 48, 49, 59};
    for (int f64 = 0; f64 < 2; f64++)
        for (size_t q = 0; q < sizeof rs8 / sizeof rs8[0]; q++) {
            int64_t r = rs8[q];
            bl_case(r, r, 0, f64, 0, 8, &seed);
            bl_case(r + 13, r, q & 1, f64, 0, 8, &seed); /* tall */
            bl_case(r, r + 7, !(q & 1), f64, 0, 8, &seed); /* wide */
            bl_case(r + 5, r, 0, f64, 1, 8, &seed);        /* rank r/2 */
        }
    for (int f64 = 0; f64 < 2; f64++) {
        bl_case(97, 97, 0, f64, 0, 32, &seed);
        bl_case(140, 131, 1, f64, 0, 32, &seed);
        bl_case(131, 150, 0, f64, 1, 32, &seed);
    }
}

/* The panel width's setting: clamped to [0, RT_REDUCE_BLOCK_MAX],
 * negative restoring the default. */
TEST(linalg_svd_blocked_setting) {
    rt_linalg_set_reduce_block(1000);
    CHECK(rt_linalg_reduce_block() == RT_REDUCE_BLOCK_MAX);
    rt_linalg_set_reduce_block(0);
    CHECK(rt_linalg_reduce_block() == 0);
    rt_linalg_set_reduce_block(-1);
    int64_t def = rt_linalg_reduce_block();
    CHECK(def > 0 && def <= RT_REDUCE_BLOCK_MAX);
}

/* Against gesdd (the build's LAPACK): the blocked path's values to
 * C·r·eps·σ_max. Without a LAPACK there is nothing to compare with and
 * the test checks that the path switch says so. */
TEST(linalg_svd_blocked_matches_lapack) {
    if (!rt_linalg_have_lapack()) {
        rt_linalg_set_path(RT_LINALG_LAPACK);
        CHECK(strcmp(rt_linalg_backend(256), "built-in") == 0);
        rt_linalg_set_path(RT_LINALG_AUTO);
        return;
    }
    uint64_t seed = 0x2545f491u;
    const int64_t shapes[][2] = {{97, 97}, {150, 131}, {131, 170}};
    for (int f64 = 0; f64 < 2; f64++)
        for (size_t q = 0; q < sizeof shapes / sizeof shapes[0]; q++) {
            int64_t m = shapes[q][0], n = shapes[q][1], r = m < n ? m : n;
            double eps = f64 ? 2.220446049250313e-16 : 1.1920929e-07, tol = 20 * (double)r * eps;
            double *a = bl_matrix(m, n, 0, &seed);
            rt_linalg_set_path(RT_LINALG_BUILTIN);
            bl_out b = bl_run(a, m, n, 0, f64, 32);
            rt_linalg_set_path(RT_LINALG_LAPACK);
            bl_out l = bl_run(a, m, n, 0, f64, 32);
            rt_linalg_set_path(RT_LINALG_AUTO);
            double ds = 0, rec, orth;
            for (int64_t t = 0; t < r; t++) ds = fmax(ds, fabs(b.s[t] - l.s[t]));
            bl_errors(a, m, n, 0, l, &rec, &orth); /* LAPACK really ran: its own result is an svd too */
            if (!(ds <= tol * b.s[0]) || !(rec <= tol) || b.bits_u == l.bits_u)
                printf("    svd blocked vs gesdd %s %lldx%lld: |ds| %.2g rec %.2g (tol %.2g)\n", f64 ? "f64" : "f32",
                       (long long)m, (long long)n, ds / b.s[0], rec, tol);
            CHECK(ds <= tol * b.s[0] && rec <= tol && b.bits_u != l.bits_u);
            bl_free(b), bl_free(l);
            free(a);
        }
}

/* A tall f32 matrix's Golub–Kahan vectors live in the u and vt outputs
 * (linalg_bidiag_impl.h's F(bd_gk_tall)): at 1024² its working memory is
 * under 2r² (G's r² and the rest: the 2r² of vectors are not in it), and
 * a wide matrix's, which still holds them, exceeds the tall one's by its
 * L² left factor and the r - 1 rows of 2r; the tall path still takes the
 * Golub–Kahan vectors (no implicit-QR fallback) on random matrices whose
 * reconstruction and orthogonality bl_case checks. */
TEST(linalg_svd_tall_f32_vectors_in_outputs) {
    int64_t big = 1024;
    CHECK(rt_svd_work_for(big, big, 0) < 2 * big * big);
    for (int64_t r = 255; r <= 256; r++) {
        int64_t L = r + 40, tall = rt_svd_work_for(L, r, 0), wide = rt_svd_work_for(r, L, 0);
        CHECK_MSG(wide - tall >= L * L + 2 * r * (r - 1), "svd f32 work: tall %lldx%lld %lld, wide %lld",
                  (long long)L, (long long)r, (long long)tall, (long long)wide);
    }
    uint64_t seed = 0xfeedu;
    int64_t before = rt_svd_testing_fallbacks();
    bl_case(101, 75, 1, 0, 0, 32, &seed);
    bl_case(90, 77, 0, 0, 0, 32, &seed);
    CHECK(rt_svd_testing_fallbacks() == before);
}
