/* test_linalg_eigh_blocked.c — the blocked tridiagonalisation
 * (src/runtime/linalg_tridiag_blocked_impl.h: panels of nb reflectors, the
 * trailing matrix updated by GEMM once a panel) against the unblocked one
 * (rt_eigh_set_reduce_block(0)) and against closed forms, f32 and f64, at
 * sizes where the number of panels changes (the panels run while more
 * than nb + 32 columns are left: n = nb + 32 has none, nb + 33 one,
 * 2nb + 33 two).
 *
 * References: A V = V Λ and Vᵀ V = I to C·n·eps, computed in long double
 * with plain loops; the eigenvalues of the two reductions agree to
 * C·n·eps·‖A‖ (Weyl: both are backward stable) and match the closed form
 * where there is one: Q diag(λ) Qᵀ with λ given (Q three random
 * reflections, formed in long double), the second-difference matrix
 * tridiag(-1, 2, -1) with λ_k = 2 - 2cos(kπ/(n+1)) (already tridiagonal:
 * every reflector is the identity, tau = 0 throughout the panels), and a
 * direct sum diag(D) ⊕ B whose first rows are already reduced (tau = 0
 * inside a panel, then ordinary reflectors). That the setting reaches the
 * kernel is seen in the vectors: the two reductions round differently
 * (and give the same bits where the size leaves no panel). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "runtime/linalg_kernels.h"

static double eb_rand(uint64_t *s) {
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) / 9007199254740992.0 * 2 - 1;
}

enum { EB_RANDOM, EB_SPECTRUM, EB_SECOND_DIFF, EB_DIRECT_SUM, EB_KINDS };
static const char *const eb_name[] = {"random", "spectrum", "second-difference", "direct-sum"};

/* a (n × n, symmetric) of the kind; lam: its eigenvalues ascending when
 * known (returns 1), else returns 0. */
static int eb_matrix(double *a, double *lam, int64_t n, int kind, uint64_t *seed) {
    memset(a, 0, sizeof(double) * (size_t)(n * n));
    if (kind == EB_RANDOM) {
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j <= i; j++) a[i * n + j] = a[j * n + i] = eb_rand(seed);
        return 0;
    }
    if (kind == EB_SECOND_DIFF) {
        for (int64_t i = 0; i < n; i++) {
            a[i * n + i] = 2;
            if (i + 1 < n) a[i * n + i + 1] = a[(i + 1) * n + i] = -1;
        }
        for (int64_t k = 0; k < n; k++) lam[k] = 2 - 2 * cos((double)(k + 1) * 3.14159265358979323846 / (double)(n + 1));
        return 1;
    }
    if (kind == EB_DIRECT_SUM) { /* diag(-3 .. -3 + 0.1·(k-1)) ⊕ random, k = 5 */
        int64_t k = 5;
        for (int64_t i = 0; i < k; i++) a[i * n + i] = -3 + 0.1 * (double)i;
        for (int64_t i = k; i < n; i++)
            for (int64_t j = k; j <= i; j++) a[i * n + j] = a[j * n + i] = eb_rand(seed) * 0.5;
        return 0;
    }
    /* Q diag(λ) Qᵀ: λ spread over [-2, 3] with a pair 1e-8 apart */
    long double *q = malloc(sizeof(long double) * (size_t)(n * n));
    double *u = malloc(sizeof(double) * (size_t)n);
    for (int64_t i = 0; i < n; i++) lam[i] = -2 + 5 * (double)i / (double)(n - 1);
    lam[n / 2 + 1] = lam[n / 2] + 1e-8;
    for (int64_t i = 0; i < n * n; i++) q[i] = i / n == i % n;
    for (int r = 0; r < 3; r++) {
        long double uu = 0;
        for (int64_t i = 0; i < n; i++) u[i] = eb_rand(seed), uu += (long double)u[i] * u[i];
        for (int64_t i = 0; i < n; i++) {
            long double s = 0;
            for (int64_t j = 0; j < n; j++) s += q[i * n + j] * u[j];
            for (int64_t j = 0; j < n; j++) q[i * n + j] -= 2 * s * u[j] / uu;
        }
    }
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j <= i; j++) {
            long double s = 0;
            for (int64_t p = 0; p < n; p++) s += q[i * n + p] * lam[p] * q[j * n + p];
            a[i * n + j] = a[j * n + i] = (double)s;
        }
    free(q), free(u);
    return 1;
}

typedef struct {
    double *v, *w;
    uint32_t bits; /* a hash of v's bits as computed */
} eb_out;

/* eigh of a in f32 or f64 with panel width nb (0: unblocked). */
static eb_out eb_run(const double *a, int64_t n, int f64, int64_t nb) {
    size_t nn = (size_t)(n * n), es = f64 ? sizeof(double) : sizeof(float);
    eb_out o = {malloc(sizeof(double) * nn), malloc(sizeof(double) * (size_t)n), 2166136261u};
    void *ax = malloc(es * nn), *vx = malloc(es * nn), *wx = malloc(es * (size_t)n);
    void *work = malloc(es * (size_t)rt_eigh_work(n));
    for (size_t i = 0; i < nn; i++)
        if (f64) ((double *)ax)[i] = a[i];
        else ((float *)ax)[i] = (float)a[i];
    rt_eigh_set_reduce_block(nb);
    if (f64) rt_eigh_f64(1, n, ax, vx, wx, work);
    else rt_eigh_f32(1, n, ax, vx, wx, work);
    rt_eigh_set_reduce_block(-1);
    const unsigned char *b = vx;
    for (size_t i = 0; i < es * nn; i++) o.bits = (o.bits ^ b[i]) * 16777619u;
    for (size_t i = 0; i < nn; i++) o.v[i] = f64 ? ((double *)vx)[i] : ((float *)vx)[i];
    for (int64_t i = 0; i < n; i++) o.w[i] = f64 ? ((double *)wx)[i] : ((float *)wx)[i];
    free(ax), free(vx), free(wx), free(work);
    return o;
}

/* max |A V - V Λ| / ‖A‖, max |Vᵀ V - I| (long double); a as the kernel saw it. */
static void eb_errors(const double *a, int64_t n, eb_out o, double *rec, double *orth) {
    double norm = 1e-300;
    for (int64_t i = 0; i < n * n; i++) norm = fmax(norm, fabs(a[i]));
    *rec = *orth = 0;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) {
            long double av = 0, vv = 0;
            for (int64_t p = 0; p < n; p++)
                av += (long double)a[i * n + p] * o.v[p * n + j], vv += (long double)o.v[p * n + i] * o.v[p * n + j];
            *rec = fmax(*rec, (double)fabsl(av - (long double)o.v[i * n + j] * o.w[j]) / norm);
            *orth = fmax(*orth, (double)fabsl(vv - (i == j)));
        }
}

static void eb_case(int64_t n, int kind, int f64, int64_t nb, uint64_t *seed) {
    double *a = malloc(sizeof(double) * (size_t)(n * n)), *lam = malloc(sizeof(double) * (size_t)n);
    int known = eb_matrix(a, lam, n, kind, seed);
    if (!f64) /* the f32 kernel sees a rounded to f32: check against that matrix */
        for (int64_t i = 0; i < n * n; i++) a[i] = (float)a[i];
    double eps = f64 ? 2.220446049250313e-16 : 1.1920929e-07, tol = 16 * (double)n * eps, norm = 0;
    for (int64_t i = 0; i < n * n; i++) norm = fmax(norm, fabs(a[i]));
    eb_out b = eb_run(a, n, f64, nb), u = eb_run(a, n, f64, 0);
    double rec_b, orth_b, rec_u, orth_u, dw = 0, dl = 0;
    eb_errors(a, n, b, &rec_b, &orth_b);
    eb_errors(a, n, u, &rec_u, &orth_u);
    int asc = 1;
    for (int64_t i = 0; i < n; i++) {
        dw = fmax(dw, fabs(b.w[i] - u.w[i]));
        if (known) dl = fmax(dl, fabs(b.w[i] - lam[i]));
        if (i > 0) asc &= b.w[i] >= b.w[i - 1];
    }
    /* a closed form's λ are exact; the f32 run's matrix is a rounded by up to eps‖A‖ per entry */
    /* with no panel (n <= nb + 32) both runs are the same code: the same bits, the control */
    int panels = n > nb + 32;
    int ok = asc && rec_b <= tol && orth_b <= tol && rec_u <= tol && orth_u <= tol && dw <= tol * norm &&
             dl <= tol * norm && (b.bits != u.bits) == panels;
    CHECK_MSG(ok,
              "eigh blocked %s n=%lld nb=%lld %s: |AV-VΛ| %.2g/%.2g |VᵀV-I| %.2g/%.2g |Δw| %.2g |w-λ| %.2g (tol %.2g) "
              "ascending %d same bits %d",
              f64 ? "f64" : "f32", (long long)n, (long long)nb, eb_name[kind], rec_b, rec_u, orth_b, orth_u,
              dw / norm, dl / norm, tol, asc, b.bits == u.bits);
    free(b.v), free(b.w), free(u.v), free(u.w);
    free(a), free(lam);
}

TEST(linalg_eigh_blocked_matches_unblocked_across_panel_boundaries) {
    uint64_t seed = 0x9e3779b9u;
    /* nb = 8: n = 40 has no panel, 41 one, 49 two, 57 three; nb = 32: 65 one, 97 two */
    const int64_t ns8[] = {40, 41, 49, 57};
    for (int f64 = 0; f64 < 2; f64++) {
        for (size_t q = 0; q < sizeof ns8 / sizeof ns8[0]; q++)
            for (int kind = 0; kind < EB_KINDS; kind++) {
                if (kind == EB_SECOND_DIFF) continue; /* the next test's: the same bits by design */
                eb_case(ns8[q], kind, f64, 8, &seed);
                if (th_failed_now()) return;
            }
        eb_case(65, EB_RANDOM, f64, 32, &seed);
        eb_case(97, EB_SPECTRUM, f64, 32, &seed);
        eb_case(97, EB_DIRECT_SUM, f64, 32, &seed);
        if (th_failed_now()) return;
    }
}

/* Already tridiagonal: every reflector is the identity (tau = 0), in the
 * panels as in the unblocked loop, so both give the same bits, and the
 * eigenvalues are the closed form's. */
TEST(linalg_eigh_blocked_tridiagonal_input_closed_form) {
    uint64_t seed = 1;
    for (int f64 = 0; f64 < 2; f64++) {
        int64_t n = 57;
        double *a = malloc(sizeof(double) * (size_t)(n * n)), *lam = malloc(sizeof(double) * (size_t)n);
        eb_matrix(a, lam, n, EB_SECOND_DIFF, &seed);
        double eps = f64 ? 2.220446049250313e-16 : 1.1920929e-07, tol = 16 * (double)n * eps, rec, orth, dl = 0;
        eb_out b = eb_run(a, n, f64, 8), u = eb_run(a, n, f64, 0);
        eb_errors(a, n, b, &rec, &orth);
        for (int64_t i = 0; i < n; i++) dl = fmax(dl, fabs(b.w[i] - lam[i]));
        CHECK_MSG(rec <= tol && orth <= tol && dl <= 4 * tol && b.bits == u.bits,
                  "eigh blocked %s second difference n=57: |AV-VΛ| %.2g |VᵀV-I| %.2g |w-λ| %.2g (tol %.2g) same %d",
                  f64 ? "f64" : "f32", rec, orth, dl, tol, b.bits == u.bits);
        free(b.v), free(b.w), free(u.v), free(u.w), free(a), free(lam);
    }
}

/* The panel width's setting: clamped to [0, RT_REDUCE_BLOCK_MAX],
 * negative restoring the default; independent of the bidiagonal one. */
TEST(linalg_eigh_blocked_setting) {
    rt_eigh_set_reduce_block(1000);
    CHECK(rt_eigh_reduce_block() == RT_REDUCE_BLOCK_MAX);
    rt_eigh_set_reduce_block(0);
    CHECK(rt_eigh_reduce_block() == 0);
    CHECK(rt_linalg_reduce_block() > 0);
    rt_eigh_set_reduce_block(-1);
    int64_t def = rt_eigh_reduce_block();
    CHECK(def > 0 && def <= RT_REDUCE_BLOCK_MAX);
}
