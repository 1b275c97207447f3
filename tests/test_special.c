/* test_special.c — the special functions (lgamma, digamma, polygamma, erfc,
 * erf_inv, asinh, acosh, atanh) and the rest of jnp's elementwise functions
 * (src/api/special.c): against JAX's results and mpmath's values committed
 * as fixtures (tests/data/gen_special_fixtures.py writes them), jit (both
 * backends) against eager bit for bit, vmap against a loop, jvp against
 * finite differences, promotion and errors. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cjax.h"
#include "harness.h"
#include "test_util.h"

typedef cj_val (*unary_fn)(cj_val);
typedef cj_val (*binary_fn)(cj_val, cj_val);

static cj_val load(cj_ctx *ctx, const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/special/%s.npy", CJAX_TEST_DATA_DIR, name);
    return cj_load_npy(ctx, path);
}

/* The values of v as doubles (malloc'd; NULL on error). */
static double *values(cj_val v, int64_t *n) {
    *n = cj_val_size(v);
    double *d = malloc(sizeof(double) * (size_t)(*n ? *n : 1));
    if (d && cj_read_as(v, CJ_F64, d, sizeof(double) * (size_t)*n) != CJ_OK) {
        free(d);
        return NULL;
    }
    return d;
}

/* Equal, both NaN, or within rtol·|want| + atol; values below `tiny` in
 * magnitude (subnormal results, which XLA flushes) count as equal. */
static int close_to(double got, double want, double rtol, double atol, double tiny) {
    if (isnan(want)) return isnan(got);
    if (isinf(want)) return got == want;
    if (fabs(want) < tiny && fabs(got) < tiny) return 1;
    return fabs(got - want) <= rtol * fabs(want) + atol;
}

/* Distance in ulps at f64 (finite values). */
static double ulps64(double got, double want) {
    if (got == want) return 0;
    double u = nextafter(fabs(want), INFINITY) - fabs(want);
    return fabs(got - want) / u;
}

/* Compares f(x) with a fixture; returns the number of mismatches (and
 * prints the first). */
static int compare_fixture(cj_val got, cj_val want, cj_val x, double rtol, double atol, double tiny,
                           const char *what) {
    int64_t n, m, k;
    double *g = values(got, &n), *w = values(want, &m), *xs = values(x, &k);
    int bad = 0;
    if (!g || !w || !xs || n != m) {
        printf("    %s: could not read results (%lld vs %lld)\n", what, (long long)n, (long long)m);
        bad = 1;
    } else {
        for (int64_t i = 0; i < n; i++) {
            if (close_to(g[i], w[i], rtol, atol, tiny)) continue;
            if (!bad) printf("    %s: at x = %.17g got %.17g, want %.17g\n", what, xs[i % k], g[i], w[i]);
            bad++;
        }
    }
    free(g), free(w), free(xs);
    return bad;
}

static const struct {
    const char *name;
    unary_fn fn;
} specials[] = {
    {"lgamma", cj_lgamma}, {"digamma", cj_digamma}, {"erfc", cj_erfc}, {"erf_inv", cj_erfinv},
    {"asinh", cj_asinh},   {"acosh", cj_acosh},     {"atanh", cj_atanh},
};
#define N_SPECIALS (int)(sizeof specials / sizeof *specials)

/* JAX's results, special values included. The tolerances are loose
 * because XLA's own are: its f32 lgamma(1) is 4.8e-7 (cjax's is 0), its
 * f64 erf_inv(0.9999999) is off by 1.4e-12 relative (mpmath agrees with
 * cjax): cjax's accuracy is checked against mpmath below. */
TEST(special_matches_jax_fixtures) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    for (int f = 0; f < N_SPECIALS; f++)
        for (int d = 0; d < 2; d++) {
            const char *dt = d ? "f64" : "f32";
            char nx[64], nj[64], what[64];
            snprintf(nx, sizeof nx, "%s_%s_x", specials[f].name, dt);
            snprintf(nj, sizeof nj, "%s_%s_jax", specials[f].name, dt);
            snprintf(what, sizeof what, "%s %s", specials[f].name, dt);
            cj_val x = load(ctx, nx), want = load(ctx, nj);
            CHECK_MSG(!cj_is_error(want), "%s", cj_error_message(ctx));
            cj_val got = specials[f].fn(x);
            CHECK_EQ_INT(cj_val_dtype(got), d ? CJ_F64 : CJ_F32);
            double rtol = d ? 1e-11 : 2e-6, atol = d ? 1e-13 : 2e-6, tiny = d ? 1e-300 : 1e-37;
            CHECK_MSG(compare_fixture(got, want, x, rtol, atol, tiny, what) == 0, "%s", what);
        }
    cj_ctx_free(ctx);
}

/* Accuracy in f64 against mpmath (the bounds vmath_special.h states):
 * ulps where the reference is finite and nonzero, and for lgamma and
 * digamma at negative arguments an absolute bound relative to
 * max(1, |value|). */
TEST(special_f64_accuracy_against_mpmath) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    const double max_ulps[N_SPECIALS] = {4, 12, 24, 4, 4, 4, 4};
    for (int f = 0; f < N_SPECIALS; f++) {
        char nx[64], nr[64];
        snprintf(nx, sizeof nx, "%s_f64_x", specials[f].name);
        snprintf(nr, sizeof nr, "%s_ref", specials[f].name);
        cj_val x = load(ctx, nx), ref = load(ctx, nr);
        cj_val got = specials[f].fn(x);
        int64_t n, m, k;
        double *g = values(got, &n), *r = values(ref, &m), *xs = values(x, &k);
        CHECK(g && r && xs && n == m);
        double worst = 0, worst_x = 0;
        int bad = 0;
        for (int64_t i = 0; g && r && xs && i < n; i++) {
            if (!isfinite(r[i]) || r[i] == 0 || fabs(r[i]) < 1e-300) continue;
            if (xs[i] < 0 && f <= 1) { /* lgamma, digamma left of 0 */
                double tol = (f == 0 ? 1e-15 : 1e-14) * fmax(1, fabs(r[i]));
                if (!(fabs(g[i] - r[i]) <= tol)) {
                    if (!bad) printf("    %s(%.17g) = %.17g, mpmath %.17g\n", specials[f].name, xs[i], g[i], r[i]);
                    bad++;
                }
                continue;
            }
            double u = ulps64(g[i], r[i]);
            if (!(u <= worst)) worst = u, worst_x = xs[i];
        }
        CHECK_MSG(bad == 0, "%s: %d values off", specials[f].name, bad);
        CHECK_MSG(worst <= max_ulps[f], "%s: %.1f ulps at %.17g", specials[f].name, worst, worst_x);
        free(g), free(r), free(xs);
    }
    cj_ctx_free(ctx);
}

/* polygamma(1, x) (digamma's derivative) against mpmath; and orders that
 * are not non-negative integers give NaN. */
TEST(special_polygamma_against_mpmath) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val x = load(ctx, "polygamma1_f64_x"), ref = load(ctx, "polygamma1_ref");
    cj_val one = cj_scalar_typed(ctx, 1.0, CJ_F64);
    CHECK(compare_fixture(cj_polygamma(one, x), ref, x, 1e-14, 0, 0, "polygamma(1, x)") == 0);
    double m[4] = {0.5, -1, 2, 0}, xv[4] = {1.5, 1.5, 1.5, 1.5}, want2 = -0.8287966442343199; /* ψ''(1.5) */
    int64_t four = 4;
    cj_val y = cj_polygamma(cj_array(ctx, CJ_F64, 1, &four, m), cj_array(ctx, CJ_F64, 1, &four, xv));
    double out[4];
    CHECK(cj_read_as(y, CJ_F64, out, sizeof out) == CJ_OK);
    CHECK(isnan(out[0]) && isnan(out[1]));
    CHECK(fabs(out[2] - want2) < 1e-13);
    CHECK(fabs(out[3] - 0.03648997397857652) < 1e-15); /* ψ(1.5) */
    cj_ctx_free(ctx);
}

static const struct {
    const char *name;
    binary_fn fn;
    int exact; /* 1: bit for bit with JAX */
} binaries[] = {
    {"logaddexp", cj_logaddexp, 0}, {"logaddexp2", cj_logaddexp2, 0}, {"hypot", cj_hypot, 0},
    {"remainder", cj_remainder, 1}, {"floor_divide", cj_floor_divide, 1}, {"nextafter", cj_nextafter, 1},
    {"copysign", cj_copysign, 1},   {"heaviside", cj_heaviside, 1},       {"xlogy", cj_xlogy, 0},
    {"xlog1py", cj_xlog1py, 0},
};
static const struct {
    const char *name;
    unary_fn fn;
    int exact;
} unaries[] = {
    {"log2", cj_log2, 0},       {"log10", cj_log10, 0},       {"sinc", cj_sinc, 0},
    {"trunc", cj_trunc, 1},     {"deg2rad", cj_deg2rad, 1},   {"rad2deg", cj_rad2deg, 1},
    {"reciprocal", cj_reciprocal, 1}, {"isnan", cj_isnan, 1}, {"isinf", cj_isinf, 1},
    {"isposinf", cj_isposinf, 1}, {"isneginf", cj_isneginf, 1}, {"signbit", cj_signbit, 1},
};

/* The composites against JAX on a grid with the special values. -0.0 and
 * +0.0 compare equal here; signbit and copysign pin the sign bit. */
TEST(special_composites_match_jax_fixtures) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    for (int d = 0; d < 2; d++) {
        const char *dt = d ? "f64" : "f32";
        char name[64], what[64];
        snprintf(name, sizeof name, "bin_%s_x", dt);
        cj_val x = load(ctx, name);
        snprintf(name, sizeof name, "bin_%s_y", dt);
        cj_val y = load(ctx, name);
        double ulp = d ? 2.3e-16 : 1.2e-7;
        for (size_t i = 0; i < sizeof binaries / sizeof *binaries; i++) {
            snprintf(name, sizeof name, "%s_%s_jax", binaries[i].name, dt);
            snprintf(what, sizeof what, "%s %s", binaries[i].name, dt);
            double r = binaries[i].exact ? 0 : 4 * ulp;
            CHECK_MSG(compare_fixture(binaries[i].fn(x, y), load(ctx, name), x, r, 0, 0, what) == 0, "%s", what);
        }
        for (size_t i = 0; i < sizeof unaries / sizeof *unaries; i++) {
            snprintf(name, sizeof name, "%s_%s_jax", unaries[i].name, dt);
            snprintf(what, sizeof what, "%s %s", unaries[i].name, dt);
            double r = unaries[i].exact ? 0 : 4 * ulp;
            CHECK_MSG(compare_fixture(unaries[i].fn(x), load(ctx, name), x, r, 0, 0, what) == 0, "%s", what);
        }
        /* the sign bit itself: copysign(1, -0.0) = -1, signbit(-0.0) */
        cj_val mz = cj_scalar_typed(ctx, -0.0, d ? CJ_F64 : CJ_F32);
        CHECK(cj_item_or_nan(cj_copysign(cj_scalar_typed(ctx, 1.0, d ? CJ_F64 : CJ_F32), mz)) == -1.0);
        CHECK(cj_item_or_nan(cj_astype(cj_signbit(mz), CJ_I32)) == 1.0);
    }
    cj_ctx_free(ctx);
}

/* NumPy signs and JAX's integer division by zero: x % 0 = 0, x // 0 is
 * lax.div's -1, floored when x != 0; INT_MIN // -1 wraps. */
TEST(special_integer_remainder_floor_divide_match_jax) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val a = load(ctx, "int_i32_x"), b = load(ctx, "int_i32_y");
    cj_val r = cj_remainder(a, b), q = cj_floor_divide(a, b);
    CHECK_EQ_INT(cj_val_dtype(r), CJ_I32);
    CHECK_EQ_INT(cj_val_dtype(q), CJ_I32);
    CHECK(tu_same_bits(r, load(ctx, "remainder_i32_jax")));
    CHECK(tu_same_bits(q, load(ctx, "floor_divide_i32_jax")));
    CHECK(tu_same_bits(cj_mod(a, b), r));
    cj_ctx_free(ctx);
}

/* integer_pow multiplies in JAX's order: bit for bit with XLA, exponents
 * -3..9 on f64, 0..9 on i32 (wrapping). */
TEST(special_integer_pow_matches_jax_bits) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val x = load(ctx, "ipow_f64_x"), want = load(ctx, "ipow_f64_jax");
    cj_val xi = load(ctx, "ipow_i32_x"), wanti = load(ctx, "ipow_i32_jax");
    for (int y = -3; y <= 9; y++) {
        int64_t s[2] = {y + 3, 0}, l[2] = {y + 4, 10};
        cj_val row = cj_reshape(cj_slice(want, s, l, NULL), 1, (int64_t[]){10});
        CHECK_MSG(tu_same_bits(cj_integer_pow(x, y), row), "f64 y=%d", y);
        if (y < 0) continue;
        int64_t si[2] = {y, 0}, li[2] = {y + 1, 8};
        cj_val rowi = cj_reshape(cj_slice(wanti, si, li, NULL), 1, (int64_t[]){8});
        CHECK_MSG(tu_same_bits(cj_integer_pow(xi, y), rowi), "i32 y=%d", y);
    }
    cj_val e = cj_integer_pow(xi, -1);
    CHECK(cj_is_error(e));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "integer_pow: integers cannot be raised to negative powers");
    cj_ctx_free(ctx);
}

/* ---- transformations ---- */

static void apply_unary(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    out[0] = ((unary_fn)user)(in[0]);
}
static void apply_binary(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    out[0] = ((binary_fn)user)(in[0], in[1]);
}
static cj_val pow3(cj_val x) { return cj_integer_pow(x, 3); }
static cj_val pow20(cj_val x) { return cj_integer_pow(x, 20); }
static cj_val pow_m2(cj_val x) { return cj_integer_pow(x, -2); }
static cj_val polygamma1(cj_val x) { return cj_polygamma(cj_scalar(x.ctx, 1.0), x); }

static unary_fn all_unary[] = {cj_lgamma, cj_digamma, cj_erfc, cj_erfinv, cj_asinh, cj_acosh, cj_atanh,
                               cj_log2, cj_log10, cj_sinc, cj_trunc, cj_reciprocal, cj_signbit, cj_isinf,
                               pow3, pow20, pow_m2, polygamma1, cj_deg2rad};
static binary_fn all_binary[] = {cj_logaddexp, cj_logaddexp2, cj_hypot, cj_remainder, cj_floor_divide,
                                 cj_nextafter, cj_copysign, cj_heaviside, cj_xlogy, cj_xlog1py};

/* jit through the interpreter and through generated C computes exactly
 * what eager does, in f32 and f64. */
TEST(special_jit_both_backends_match_eager_bits) {
    for (int d = 0; d < 2; d++) {
        cj_ctx *ctx = cj_ctx_new(NULL);
        cj_dtype dt = d ? CJ_F64 : CJ_F32;
        cj_val x = cj_astype(load(ctx, "bin_f64_x"), dt), y = cj_astype(load(ctx, "bin_f64_y"), dt);
        cj_val xa = cj_astype(load(ctx, "atanh_f64_x"), dt);
        for (int b = 0; b < 2; b++) {
            cj_jit_opts o = {0};
            o.backend = b ? CJ_BACKEND_CC : CJ_BACKEND_INTERP;
            for (size_t i = 0; i < sizeof all_unary / sizeof *all_unary; i++) {
                cj_func *f = cj_jit(cj_func_new(ctx, "u", apply_unary, 1, 1, (void *)all_unary[i]), &o);
                cj_val in = i == 3 || i == 6 ? xa : x, got;
                CHECK(cj_call(f, &in, &got) == CJ_OK);
                CHECK_MSG(tu_same_bits(got, all_unary[i](in)), "unary %zu backend %d %s", i, b, cj_dtype_name(dt));
            }
            for (size_t i = 0; i < sizeof all_binary / sizeof *all_binary; i++) {
                cj_func *f = cj_jit(cj_func_new(ctx, "b", apply_binary, 2, 1, (void *)all_binary[i]), &o);
                cj_val in[2] = {x, y}, got;
                CHECK(cj_call(f, in, &got) == CJ_OK);
                CHECK_MSG(tu_same_bits(got, all_binary[i](x, y)), "binary %zu backend %d %s", i, b, cj_dtype_name(dt));
            }
        }
        CHECK_MSG(!cj_error(ctx), "%s", cj_error_message(ctx));
        cj_ctx_free(ctx);
    }
}

/* vmap over rows equals the loop of single calls. */
TEST(special_vmap_matches_loop) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t dims[2] = {4, 6};
    double xv[24], yv[24];
    for (int i = 0; i < 24; i++) xv[i] = 0.37 * i - 3.1, yv[i] = 1.3 - 0.21 * i;
    cj_val x = cj_array(ctx, CJ_F64, 2, dims, xv), y = cj_array(ctx, CJ_F64, 2, dims, yv);
    for (size_t i = 0; i < sizeof all_binary / sizeof *all_binary; i++) {
        cj_func *f = cj_vmap(cj_func_new(ctx, "b", apply_binary, 2, 1, (void *)all_binary[i]), NULL);
        cj_val in[2] = {x, y}, got;
        CHECK(cj_call(f, in, &got) == CJ_OK);
        for (int64_t r = 0; r < 4; r++) {
            int64_t s[2] = {r, 0}, l[2] = {r + 1, 6};
            cj_val xr = cj_reshape(cj_slice(x, s, l, NULL), 1, &dims[1]);
            cj_val yr = cj_reshape(cj_slice(y, s, l, NULL), 1, &dims[1]);
            cj_val gr = cj_reshape(cj_slice(got, s, l, NULL), 1, &dims[1]);
            CHECK_MSG(tu_same_bits(gr, all_binary[i](xr, yr)), "binary %zu row %lld", i, (long long)r);
        }
    }
    for (size_t i = 0; i < sizeof all_unary / sizeof *all_unary; i++) {
        cj_val in = i == 3 || i == 6 ? cj_tanh(x) : x, got;
        cj_func *f = cj_vmap(cj_func_new(ctx, "u", apply_unary, 1, 1, (void *)all_unary[i]), NULL);
        CHECK(cj_call(f, &in, &got) == CJ_OK);
        for (int64_t r = 0; r < 4; r++) {
            int64_t s[2] = {r, 0}, l[2] = {r + 1, 6};
            cj_val xr = cj_reshape(cj_slice(in, s, l, NULL), 1, &dims[1]);
            cj_val gr = cj_reshape(cj_slice(got, s, l, NULL), 1, &dims[1]);
            CHECK_MSG(tu_same_bits(gr, all_unary[i](xr)), "unary %zu row %lld", i, (long long)r);
        }
    }
    CHECK_MSG(!cj_error(ctx), "%s", cj_error_message(ctx));
    cj_ctx_free(ctx);
}

/* jvp of f at x with tangent 1, against a central difference, f64. */
static double jvp_at(cj_ctx *ctx, cj_func *f, int n, const double *x, int which) {
    cj_val p[2], t[2], po, to;
    for (int i = 0; i < n; i++) {
        p[i] = cj_scalar_typed(ctx, x[i], CJ_F64);
        t[i] = cj_scalar_typed(ctx, i == which ? 1.0 : 0.0, CJ_F64);
    }
    if (cj_jvp(f, p, t, &po, &to) != CJ_OK) return NAN;
    return cj_item_or_nan(to);
}
static double fd_at(cj_ctx *ctx, cj_func *f, int n, const double *x, int which) {
    double h = 1e-6 * fmax(1, fabs(x[which])), v[2];
    cj_val in[2], out;
    for (int s = 0; s < 2; s++) {
        for (int i = 0; i < n; i++) in[i] = cj_scalar_typed(ctx, x[i] + (i == which ? (s ? h : -h) : 0), CJ_F64);
        if (cj_call(f, in, &out) != CJ_OK) return NAN;
        v[s] = cj_item_or_nan(out);
    }
    return (v[1] - v[0]) / (2 * h);
}

TEST(special_jvp_matches_finite_differences) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    const double pts[] = {-2.7, -0.3, 0.2, 0.9, 1.7, 3.4, 7.5};
    for (size_t i = 0; i < sizeof all_unary / sizeof *all_unary; i++) {
        if (all_unary[i] == cj_trunc || all_unary[i] == cj_signbit || all_unary[i] == cj_isinf) continue;
        cj_func *f = cj_func_new(ctx, "u", apply_unary, 1, 1, (void *)all_unary[i]);
        for (size_t k = 0; k < sizeof pts / sizeof *pts; k++) {
            double x = pts[k];
            if ((all_unary[i] == cj_erfinv || all_unary[i] == cj_atanh) && fabs(x) >= 1) x = x / 10;
            if (all_unary[i] == cj_acosh) x = fabs(x) + 1.1;
            double j = jvp_at(ctx, f, 1, &x, 0), fd = fd_at(ctx, f, 1, &x, 0);
            if (isnan(fd)) continue; /* outside the domain (log2 of a negative) */
            CHECK_MSG(fabs(j - fd) <= 1e-6 * fmax(1, fabs(fd)), "unary %zu at %g: jvp %.12g fd %.12g", i, x, j, fd);
        }
    }
    const double pairs[][2] = {{0.3, 1.7}, {-1.2, 0.4}, {2.5, -3.5}, {1.1, 2.9}};
    for (size_t i = 0; i < sizeof all_binary / sizeof *all_binary; i++) {
        binary_fn g = all_binary[i];
        if (g == cj_remainder || g == cj_floor_divide || g == cj_nextafter || g == cj_copysign || g == cj_heaviside)
            continue;
        cj_func *f = cj_func_new(ctx, "b", apply_binary, 2, 1, (void *)g);
        for (size_t k = 0; k < 4; k++)
            for (int w = 0; w < 2; w++) {
                double x[2] = {pairs[k][0], fabs(pairs[k][1])};
                double j = jvp_at(ctx, f, 2, x, w), fd = fd_at(ctx, f, 2, x, w);
                CHECK_MSG(fabs(j - fd) <= 1e-6 * fmax(1, fabs(fd)), "binary %zu at (%g, %g) arg %d: jvp %.12g fd %.12g",
                          i, x[0], x[1], w, j, fd);
            }
    }
    CHECK_MSG(!cj_error(ctx), "%s", cj_error_message(ctx));
    cj_ctx_free(ctx);
}

/* The points where JAX's custom rules decide: logaddexp at a tie (½, ½),
 * xlogy at x = 0 (∂x = log y), sinc at 0 (0, then -π²/3 by grad∘grad). */
static void sinc_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_sinc(in[0]);
}
TEST(special_derivatives_at_jax_custom_rule_points) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *lae = cj_func_new(ctx, "lae", apply_binary, 2, 1, (void *)cj_logaddexp);
    double tie[2] = {1.0, 1.0};
    CHECK(jvp_at(ctx, lae, 2, tie, 0) == 0.5);
    CHECK(jvp_at(ctx, lae, 2, tie, 1) == 0.5);
    cj_func *xl = cj_func_new(ctx, "xlogy", apply_binary, 2, 1, (void *)cj_xlogy);
    double z[2] = {0.0, 3.0};
    CHECK(fabs(jvp_at(ctx, xl, 2, z, 0) - log(3.0)) < 1e-15);
    CHECK(jvp_at(ctx, xl, 2, z, 1) == 0.0);
    cj_func *s = cj_func_new(ctx, "sinc", sinc_fn, 1, 1, NULL);
    cj_func *g1 = cj_grad(s, NULL), *g2 = cj_grad(g1, NULL);
    cj_val x0 = cj_scalar_typed(ctx, 0.0, CJ_F64), d1, d2;
    CHECK(cj_call(g1, &x0, &d1) == CJ_OK && cj_call(g2, &x0, &d2) == CJ_OK);
    CHECK(cj_item_or_nan(d1) == 0.0);
    CHECK(fabs(cj_item_or_nan(d2) + 3.2898681336964524) < 1e-14);
    cj_ctx_free(ctx);
}

/* jnp's promotion: float functions of ints become f32 (i32) / f64 (i64);
 * remainder, floor_divide and trunc keep integers; integer_pow keeps its
 * operand's dtype. */
TEST(special_promotion_of_integers) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t three = 3;
    int32_t iv[3] = {1, 2, 5};
    int64_t lv[3] = {1, 2, 5};
    cj_val i = cj_array(ctx, CJ_I32, 1, &three, iv), l = cj_array(ctx, CJ_I64, 1, &three, lv);
    for (size_t k = 0; k < 7; k++) {
        CHECK_EQ_INT(cj_val_dtype(all_unary[k](i)), CJ_F32);
        CHECK_EQ_INT(cj_val_dtype(all_unary[k](l)), CJ_F64);
    }
    CHECK_EQ_INT(cj_val_dtype(cj_log2(i)), CJ_F32);
    CHECK(fabs(cj_item_or_nan(cj_log2(cj_scalar_int(ctx, 8))) - 3.0) < 1e-6);
    CHECK_EQ_INT(cj_val_dtype(cj_hypot(i, i)), CJ_F32);
    CHECK_EQ_INT(cj_val_dtype(cj_heaviside(i, i)), CJ_F32);
    CHECK_EQ_INT(cj_val_dtype(cj_copysign(i, i)), CJ_F32);
    CHECK_EQ_INT(cj_val_dtype(cj_floor_divide(i, cj_scalar_int(ctx, 2))), CJ_I32);
    CHECK_EQ_INT(cj_val_dtype(cj_remainder(l, cj_scalar_int(ctx, 2))), CJ_I64);
    CHECK_EQ_INT(cj_val_dtype(cj_trunc(i)), CJ_I32);
    CHECK_EQ_INT(cj_val_dtype(cj_integer_pow(l, 3)), CJ_I64);
    CHECK_EQ_INT(cj_val_dtype(cj_reciprocal(i)), CJ_F32);
    CHECK_EQ_INT(cj_val_dtype(cj_signbit(i)), CJ_BOOL);
    CHECK_EQ_INT(cj_val_dtype(cj_isnan(i)), CJ_BOOL);
    CHECK(cj_item_or_nan(cj_sum(cj_astype(cj_isnan(i), CJ_I32), -1, NULL, 0)) == 0);
    /* a weak scalar stays weak */
    CHECK(cj_val_weak(cj_lgamma(cj_scalar(ctx, 2.5))));
    CHECK_MSG(!cj_error(ctx), "%s", cj_error_message(ctx));
    cj_ctx_free(ctx);
}

/* The primitives print as JAX's, and their errors name them. */
TEST(special_printing_and_errors) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *f = cj_func_new(ctx, "p3", apply_unary, 1, 1, (void *)pow3);
    cj_spec spec = {CJ_F32, 0, {0}, 0};
    char *text = cj_make_jaxpr(f, 1, &spec);
    CHECK(text && strstr(text, "integer_pow[y=3]"));
    cj_string_free(ctx, text);
    int64_t three = 3, four = 4;
    cj_val a = cj_zeros(ctx, CJ_F32, 1, &three), b = cj_zeros(ctx, CJ_F32, 1, &four);
    CHECK(cj_is_error(cj_nextafter(a, b)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "nextafter");
    cj_error_clear(ctx);
    /* nextafter has no derivative (none in lax either) */
    cj_func *na = cj_func_new(ctx, "na", apply_binary, 2, 1, (void *)cj_nextafter);
    double x[2] = {1.0, 2.0};
    CHECK(isnan(jvp_at(ctx, na, 2, x, 0)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "nextafter: jvp: not differentiable");
    cj_error_clear(ctx);
    /* polygamma's order carries no derivative */
    cj_func *pg = cj_func_new(ctx, "pg", apply_binary, 2, 1, (void *)cj_polygamma);
    double mx[2] = {1.0, 2.0};
    CHECK(isnan(jvp_at(ctx, pg, 2, mx, 0)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "polygamma: jvp: no derivative with respect to the order");
    cj_error_clear(ctx);
    CHECK(cj_is_error(cj_integer_pow(cj_zeros(ctx, CJ_BOOL, 1, &three), 2)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "integer_pow");
    cj_ctx_free(ctx);
}
