/* test_elementwise.c — the elementwise primitives (src/prim/elementwise.c,
 * elementwise_kernels.c) and the public operations over them
 * (src/api/elementwise.c).
 *
 * Every primitive runs on every dtype it accepts, on shapes rank 0, [0],
 * [7], [3,5] and [100003] (past the threading threshold), with each operand
 * layout (all arrays, a rank-0 operand on either side), and its result is
 * compared with a plain C loop written here: exactly where IEEE arithmetic
 * is exact (+ - * /, sqrt, floor, comparisons, integer ops), within a few
 * ulps against libm in double precision for transcendentals. Integer
 * edge cases (wrap-around, division by zero, INT_MIN / -1) and float
 * special values (NaN, ±inf, -0) have their own tests, as do the dtype and
 * shape errors, jax.numpy's conventions in the public operations, and jit
 * against eager. */
#include <stdlib.h>

#include "api/api.h"
#include "harness.h"
#include "prim/elementwise_kernels.h"
#include "test_util.h"

#define BIT(dt) (1u << (dt))
/* The loops here cover the first five dtypes (bool, i32, i64, f32, f64),
 * whose reference helpers this file has; the dtypes added after them
 * (i8..bf16) are tested in test_dtypes.c against JAX fixtures. */
#define N_BASE_DTYPES (CJ_F64 + 1)
#define FLOATS (BIT(CJ_F32) | BIT(CJ_F64))
#define INTS (BIT(CJ_I32) | BIT(CJ_I64))
#define NUMBERS (INTS | FLOATS)
#define INTEGRAL (BIT(CJ_BOOL) | INTS)
#define ALL (INTEGRAL | FLOATS)

/* ---- native buffers ---- */

static double get_f(cj_dtype dt, const void *p, int64_t i) {
    switch (dt) {
    case CJ_BOOL: return ((const uint8_t *)p)[i];
    case CJ_I32: return ((const int32_t *)p)[i];
    case CJ_I64: return (double)((const int64_t *)p)[i];
    case CJ_F32: return ((const float *)p)[i];
    default: return ((const double *)p)[i];
    }
}

static int64_t get_i(cj_dtype dt, const void *p, int64_t i) {
    switch (dt) {
    case CJ_BOOL: return ((const uint8_t *)p)[i];
    case CJ_I32: return ((const int32_t *)p)[i];
    case CJ_I64: return ((const int64_t *)p)[i];
    default: return (int64_t)get_f(dt, p, i);
    }
}

static void set_f(cj_dtype dt, void *p, int64_t i, double v) {
    switch (dt) {
    case CJ_BOOL: ((uint8_t *)p)[i] = v != 0; break;
    case CJ_I32: ((int32_t *)p)[i] = (int32_t)v; break;
    case CJ_I64: ((int64_t *)p)[i] = (int64_t)v; break;
    case CJ_F32: ((float *)p)[i] = (float)v; break;
    default: ((double *)p)[i] = v; break;
    }
}

static void set_i(cj_dtype dt, void *p, int64_t i, int64_t v) {
    switch (dt) {
    case CJ_BOOL: ((uint8_t *)p)[i] = v != 0; break;
    case CJ_I32: ((int32_t *)p)[i] = (int32_t)v; break;
    case CJ_I64: ((int64_t *)p)[i] = v; break;
    default: set_f(dt, p, i, (double)v); break;
    }
}

static int64_t int_min(cj_dtype dt) { return dt == CJ_I32 ? INT32_MIN : INT64_MIN; }
static int64_t int_max(cj_dtype dt) { return dt == CJ_I32 ? INT32_MAX : INT64_MAX; }

/* Two's-complement wrap of a 64-bit pattern to dt's width. */
static int64_t wrap(cj_dtype dt, uint64_t v) {
    return dt == CJ_I32 ? (int64_t)(int32_t)(uint32_t)v : (int64_t)v;
}

/* n random elements of dt in [lo, hi) (ints: floor of it; bools: 0/1). */
static void *random_data(cj_dtype dt, int64_t n, double lo, double hi, uint64_t *st) {
    void *p = malloc(cj_dtype_size(dt) * (size_t)(n ? n : 1));
    for (int64_t i = 0; i < n; i++) {
        double u = th_rand_uniform(st, lo, hi);
        if (dt == CJ_BOOL) set_i(dt, p, i, (int64_t)(th_rand_u64(st) & 1));
        else if (rt_is_int(dt)) set_i(dt, p, i, (int64_t)floor(u));
        else set_f(dt, p, i, u);
    }
    return p;
}

static cj_val make(cj_ctx *ctx, cj_dtype dt, int rank, const int64_t *dims, const void *data) {
    return cj_array(ctx, dt, rank, dims, data);
}

typedef struct shape {
    int rank;
    int64_t dims[2];
    int64_t n;
} shape;

static const shape shapes[] = {
    {0, {0, 0}, 1}, {1, {0, 0}, 0}, {1, {7, 0}, 7}, {2, {3, 5}, 15}, {1, {100003, 0}, 100003},
};
#define N_SHAPES ((int)(sizeof shapes / sizeof shapes[0]))

static const shape scalar_shape = {0, {0, 0}, 1};

/* Compares y (dtype want_dt, n elements) with the expected native buffer:
 * ints and bools exactly, floats within rtol/atol (NaNs equal, infinities
 * exact). Reports the first mismatch; returns 1 when all agree. */
static int same_values(cj_val y, cj_dtype want_dt, int64_t n, const void *want, double rtol, double atol,
                       const char *what) {
    if (cj_is_error(y)) {
        th_fail(__FILE__, __LINE__, "%s: error %s", what, cj_error_message(y.ctx));
        return 0;
    }
    if (cj_val_dtype(y) != want_dt || cj_val_size(y) != n) {
        char t[64];
        th_fail(__FILE__, __LINE__, "%s: got %s, want %s with %lld elements", what,
                cj_val_type_str(y, t, sizeof t), cj_dtype_name(want_dt), (long long)n);
        return 0;
    }
    size_t bytes = cj_dtype_size(want_dt) * (size_t)(n ? n : 1);
    void *got = malloc(bytes);
    int ok = cj_read(y, got, bytes) == CJ_OK;
    for (int64_t i = 0; ok && i < n; i++) {
        if (!rt_is_float(want_dt)) {
            if (get_i(want_dt, got, i) != get_i(want_dt, want, i)) {
                th_fail(__FILE__, __LINE__, "%s: element %lld is %lld, want %lld", what, (long long)i,
                        (long long)get_i(want_dt, got, i), (long long)get_i(want_dt, want, i));
                ok = 0;
            }
        } else if (!th_close(get_f(want_dt, got, i), get_f(want_dt, want, i), rtol, atol)) {
            th_fail(__FILE__, __LINE__, "%s: element %lld is %.17g, want %.17g", what, (long long)i,
                    get_f(want_dt, got, i), get_f(want_dt, want, i));
            ok = 0;
        }
    }
    free(got);
    return ok;
}

static cj_val bind(prim_id prim, int n, const cj_val *in) {
    prim_params p = prim_params_zero();
    return core_bind(in[0].ctx, prim, &p, n, in);
}

static double tol_for(cj_dtype dt, double rtol32, double rtol64) { return dt == CJ_F32 ? rtol32 : rtol64; }

/* ---- unary primitives ---- */

static double ref_sign(double x) { return x > 0 ? 1 : x < 0 ? -1 : x; }
static double ref_neg(double x) { return -x; }
static double ref_rsqrt(double x) { return 1 / sqrt(x); }
static double ref_logistic(double x) { return 1 / (1 + exp(-x)); }
static double ref_is_finite(double x) { return isfinite(x) ? 1 : 0; }
/* Half to even, written without rint: the nearest integer, ties to the
 * even one, keeping the sign of zero. */
static double ref_round(double x) {
    if (!isfinite(x)) return x;
    double f = floor(x), d = x - f, r;
    if (d > 0.5) r = f + 1;
    else if (d < 0.5) r = f;
    else r = fmod(f, 2) == 0 ? f : f + 1;
    return r == 0 ? copysign(0.0, x) : r;
}

static int64_t iref_neg(int64_t x, cj_dtype dt) { return wrap(dt, 0 - (uint64_t)x); }
static int64_t iref_abs(int64_t x, cj_dtype dt) { return x < 0 ? iref_neg(x, dt) : x; }
static int64_t iref_sign(int64_t x, cj_dtype dt) {
    (void)dt;
    return x > 0 ? 1 : x < 0 ? -1 : 0;
}
static int64_t iref_not(int64_t x, cj_dtype dt) { return dt == CJ_BOOL ? !x : ~x; }

typedef struct unary_case {
    prim_id prim;
    unsigned dtypes;
    double (*fref)(double);
    int64_t (*iref)(int64_t, cj_dtype);
    double lo, hi;       /* input domain */
    double rtol32, rtol64; /* relative tolerance of float results */
    double atol32, atol64;
} unary_case;

#define EXACT 0, 0, 0, 0
#define TRANSCENDENTAL 1e-6, 4e-15, 1e-7, 1e-16
static const unary_case unary_cases[] = {
    {PRIM_NEG, NUMBERS, ref_neg, iref_neg, -1e3, 1e3, EXACT},
    {PRIM_ABS, NUMBERS, fabs, iref_abs, -1e3, 1e3, EXACT},
    {PRIM_SIGN, NUMBERS, ref_sign, iref_sign, -3, 3, EXACT},
    {PRIM_FLOOR, FLOATS, floor, NULL, -1e3, 1e3, EXACT},
    {PRIM_CEIL, FLOATS, ceil, NULL, -1e3, 1e3, EXACT},
    {PRIM_ROUND, FLOATS, ref_round, NULL, -8, 8, EXACT},
    {PRIM_EXP, FLOATS, exp, NULL, -30, 30, TRANSCENDENTAL},
    {PRIM_EXP2, FLOATS, exp2, NULL, -30, 30, TRANSCENDENTAL},
    {PRIM_LOG, FLOATS, log, NULL, 1e-3, 1e3, TRANSCENDENTAL},
    {PRIM_LOG1P, FLOATS, log1p, NULL, -0.999, 1e3, TRANSCENDENTAL},
    {PRIM_EXPM1, FLOATS, expm1, NULL, -10, 10, TRANSCENDENTAL},
    {PRIM_SQRT, FLOATS, sqrt, NULL, 0, 1e4, EXACT},
    {PRIM_RSQRT, FLOATS, ref_rsqrt, NULL, 1e-3, 1e4, 2.5e-7, 3e-16, 0, 0},
    {PRIM_CBRT, FLOATS, cbrt, NULL, -1e3, 1e3, TRANSCENDENTAL},
    {PRIM_SIN, FLOATS, sin, NULL, -10, 10, TRANSCENDENTAL},
    {PRIM_COS, FLOATS, cos, NULL, -10, 10, TRANSCENDENTAL},
    {PRIM_TAN, FLOATS, tan, NULL, -1.5, 1.5, TRANSCENDENTAL},
    {PRIM_ASIN, FLOATS, asin, NULL, -1, 1, TRANSCENDENTAL},
    {PRIM_ACOS, FLOATS, acos, NULL, -1, 1, TRANSCENDENTAL},
    {PRIM_ATAN, FLOATS, atan, NULL, -50, 50, TRANSCENDENTAL},
    {PRIM_SINH, FLOATS, sinh, NULL, -10, 10, TRANSCENDENTAL},
    {PRIM_COSH, FLOATS, cosh, NULL, -10, 10, TRANSCENDENTAL},
    {PRIM_TANH, FLOATS, tanh, NULL, -10, 10, TRANSCENDENTAL},
    {PRIM_LOGISTIC, FLOATS, ref_logistic, NULL, -20, 20, TRANSCENDENTAL},
    {PRIM_ERF, FLOATS, erf, NULL, -4, 4, TRANSCENDENTAL},
    {PRIM_NOT, INTEGRAL, NULL, iref_not, -1e3, 1e3, EXACT},
    {PRIM_IS_FINITE, FLOATS, ref_is_finite, NULL, -1e3, 1e3, EXACT},
};
#define N_UNARY ((int)(sizeof unary_cases / sizeof unary_cases[0]))

static cj_dtype unary_out_dtype(prim_id prim, cj_dtype dt) { return prim == PRIM_IS_FINITE ? CJ_BOOL : dt; }

/* Expected result of a unary case on element i of x. */
static void unary_expect(const unary_case *c, cj_dtype dt, const void *x, int64_t i, void *want) {
    cj_dtype odt = unary_out_dtype(c->prim, dt);
    if (rt_is_float(dt)) set_f(odt, want, i, c->fref(get_f(dt, x, i)));
    else set_i(odt, want, i, c->iref(get_i(dt, x, i), dt));
}

/* Integer edges first: wrap-around of neg/abs at INT_MIN. */
static void put_int_edges(cj_dtype dt, void *x, int64_t n) {
    const int64_t edges[] = {int_min(dt), int_max(dt), 0, -1, 1};
    for (int64_t i = 0; i < n && i < 5 && rt_is_int(dt); i++) set_i(dt, x, i, edges[i]);
}

static int run_unary(const unary_case *c, cj_dtype dt, const shape *s, uint64_t *st) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    void *x = random_data(dt, s->n, c->lo, c->hi, st);
    put_int_edges(dt, x, s->n);
    cj_dtype odt = unary_out_dtype(c->prim, dt);
    void *want = malloc(cj_dtype_size(odt) * (size_t)(s->n ? s->n : 1));
    for (int64_t i = 0; i < s->n; i++) unary_expect(c, dt, x, i, want);
    cj_val in = make(ctx, dt, s->rank, s->dims, x);
    cj_val y = bind(c->prim, 1, &in);
    char what[96];
    snprintf(what, sizeof what, "%s %s[n=%lld]", prim_names[c->prim], cj_dtype_name(dt), (long long)s->n);
    int ok = same_values(y, odt, s->n, want, tol_for(dt, c->rtol32, c->rtol64),
                         tol_for(dt, c->atol32, c->atol64), what);
    if (ok && cj_val_rank(y) != s->rank) {
        th_fail(__FILE__, __LINE__, "%s: result rank %d", what, cj_val_rank(y));
        ok = 0;
    }
    free(x);
    free(want);
    cj_ctx_free(ctx);
    return ok;
}

TEST(elementwise_unary_every_dtype_and_shape) {
    uint64_t st = 1;
    for (int k = 0; k < N_UNARY; k++)
        for (int dt = 0; dt < N_BASE_DTYPES; dt++) {
            if (!(unary_cases[k].dtypes & BIT(dt))) continue;
            for (int s = 0; s < N_SHAPES; s++)
                CHECK(run_unary(&unary_cases[k], (cj_dtype)dt, &shapes[s], &st));
        }
}

/* Accuracy where cancellation would ruin a naive formula. */
TEST(elementwise_log1p_expm1_near_zero_are_relative_accurate) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    const double xs[] = {1e-5, -1e-6, 3e-8, 1e-20};
    for (int dt = CJ_F32; dt <= CJ_F64; dt++) {
        for (int i = 0; i < 4; i++) {
            cj_val x = cj_scalar_typed(ctx, xs[i], (cj_dtype)dt);
            double xv = cj_item_or_nan(x);
            double tol = dt == CJ_F32 ? 1e-6 : 1e-14;
            CHECK_NEAR(cj_item_or_nan(cj_log1p(x)), log1p(xv), tol, 0);
            CHECK_NEAR(cj_item_or_nan(cj_expm1(x)), expm1(xv), tol, 0);
        }
    }
    CHECK(cj_error(ctx) == CJ_OK);
    cj_ctx_free(ctx);
}

/* NaN, ±inf, ±0 and a few exact cases through every float unary case:
 * the libm value in double precision, and the sign of zero where C99
 * Annex F defines it (sin(-0) = -0, expm1(-0) = -0, ...). Every mismatch
 * is reported, not only the first. */
TEST(elementwise_unary_special_values) {
    const double specials[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 1.0, -1.0};
    const int n = (int)(sizeof specials / sizeof specials[0]);
    cj_ctx *ctx = cj_ctx_new(NULL);
    int bad = 0;
    for (int k = 0; k < N_UNARY; k++) {
        const unary_case *c = &unary_cases[k];
        if (!(c->dtypes & FLOATS)) continue;
        for (int dt = CJ_F32; dt <= CJ_F64; dt++) {
            double x[16], y[16];
            for (int i = 0; i < n; i++) x[i] = specials[i];
            int64_t dims = n;
            cj_val in = cj_astype(make(ctx, CJ_F64, 1, &dims, x), (cj_dtype)dt);
            if (cj_read_as(bind(c->prim, 1, &in), CJ_F64, y, sizeof y) != CJ_OK) {
                bad++;
                break;
            }
            for (int i = 0; i < n; i++) {
                double want = c->fref(x[i]);
                if (dt == CJ_F32) want = (float)want;
                double tol = dt == CJ_F32 ? c->rtol32 : c->rtol64;
                int zero_sign_ok = !(want == 0 && y[i] == 0) || !signbit(y[i]) == !signbit(want);
                if (!th_close(y[i], want, tol, 0) || !zero_sign_ok) {
                    th_fail(__FILE__, __LINE__, "%s %s(%g) = %g, want %g", prim_names[c->prim],
                            cj_dtype_name((cj_dtype)dt), x[i], y[i], want);
                    bad++;
                }
            }
        }
    }
    CHECK(cj_error(ctx) == CJ_OK);
    cj_ctx_free(ctx);
    CHECK_EQ_INT(bad, 0);
}

/* ---- convert_element_type ---- */

/* NumPy/XLA casting written out: float → int truncates toward zero, NaN is
 * 0, out of range saturates; → bool is != 0; i64 → i32 wraps. */
static void ref_convert(cj_dtype from, const void *src, int64_t i, cj_dtype to, void *dst) {
    if (to == CJ_BOOL) {
        set_i(to, dst, i, rt_is_float(from) ? get_f(from, src, i) != 0 : get_i(from, src, i) != 0);
    } else if (rt_is_float(to)) {
        if (rt_is_float(from)) set_f(to, dst, i, get_f(from, src, i));
        else set_f(to, dst, i, (double)get_i(from, src, i));
        if (to == CJ_F32 && from == CJ_I64) ((float *)dst)[i] = (float)get_i(from, src, i);
    } else if (rt_is_float(from)) {
        double v = get_f(from, src, i);
        double lo = (double)int_min(to), hi = -(double)int_min(to); /* 2^31 or 2^63 */
        int64_t r = isnan(v) ? 0 : v <= lo ? int_min(to) : v >= hi ? int_max(to) : (int64_t)trunc(v);
        set_i(to, dst, i, r);
    } else {
        set_i(to, dst, i, wrap(to, (uint64_t)get_i(from, src, i)));
    }
}

TEST(elementwise_convert_every_pair) {
    uint64_t st = 7;
    for (int from = 0; from < N_BASE_DTYPES; from++)
        for (int to = 0; to < N_BASE_DTYPES; to++)
            for (int s = 0; s < N_SHAPES; s++) {
                cj_ctx *ctx = cj_ctx_new(NULL);
                const shape *sh = &shapes[s];
                void *x = random_data((cj_dtype)from, sh->n, -1e4, 1e4, &st);
                put_int_edges((cj_dtype)from, x, sh->n);
                if (rt_is_float((cj_dtype)from)) {
                    const double sp[] = {NAN, INFINITY, -INFINITY, -2.7, 2.7, 3e9, -3e9, 1e19, -0.0, 0.5};
                    for (int64_t i = 0; i < sh->n && i < 10; i++) set_f((cj_dtype)from, x, i, sp[i]);
                }
                void *want = malloc(cj_dtype_size((cj_dtype)to) * (size_t)(sh->n ? sh->n : 1));
                for (int64_t i = 0; i < sh->n; i++) ref_convert((cj_dtype)from, x, i, (cj_dtype)to, want);
                cj_val y = cj_astype(make(ctx, (cj_dtype)from, sh->rank, sh->dims, x), (cj_dtype)to);
                char what[64];
                snprintf(what, sizeof what, "convert %s -> %s", cj_dtype_name((cj_dtype)from),
                         cj_dtype_name((cj_dtype)to));
                int ok = same_values(y, (cj_dtype)to, sh->n, want, 0, 0, what);
                free(x);
                free(want);
                cj_ctx_free(ctx);
                CHECK(ok);
            }
}

TEST(elementwise_convert_weak_flag_and_params_print) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val w = cj_scalar(ctx, 2.5);
    prim_params p = prim_params_zero();
    p.dtype = CJ_F64;
    p.weak = 1;
    cj_val y = core_bind(ctx, PRIM_CONVERT, &p, 1, &w);
    CHECK(cj_val_dtype(y) == CJ_F64 && cj_val_weak(y));
    CHECK(!cj_val_weak(cj_astype(w, CJ_F32))); /* astype makes a strong type */
    char buf[64];
    prim_rules[PRIM_CONVERT].print_params(&p, buf, sizeof buf);
    CHECK_STR_CONTAINS(buf, "new_dtype=f64 weak_type=True");
    p.dtype = (cj_dtype)99;
    core_bind(ctx, PRIM_CONVERT, &p, 1, &w);
    CHECK(cj_error(ctx) == CJ_ERR_DTYPE);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "convert_element_type: new_dtype 99 is not a dtype");
    cj_error_clear(ctx);
    cj_astype(w, (cj_dtype)-1);
    CHECK(cj_error(ctx) == CJ_ERR_DTYPE);
    cj_ctx_free(ctx);
}

/* ---- binary primitives ---- */

static double fref_add(double a, double b) { return a + b; }
static double fref_sub(double a, double b) { return a - b; }
static double fref_mul(double a, double b) { return a * b; }
static double fref_div(double a, double b) { return a / b; }
static double fref_max(double a, double b) { return isnan(a) || isnan(b) ? NAN : a > b ? a : b; }
static double fref_min(double a, double b) { return isnan(a) || isnan(b) ? NAN : a < b ? a : b; }
static double fref_eq(double a, double b) { return a == b; }
static double fref_ne(double a, double b) { return a != b; }
static double fref_lt(double a, double b) { return a < b; }
static double fref_le(double a, double b) { return a <= b; }
static double fref_gt(double a, double b) { return a > b; }
static double fref_ge(double a, double b) { return a >= b; }

static int64_t iref_add(int64_t a, int64_t b, cj_dtype dt) { return wrap(dt, (uint64_t)a + (uint64_t)b); }
static int64_t iref_sub(int64_t a, int64_t b, cj_dtype dt) { return wrap(dt, (uint64_t)a - (uint64_t)b); }
static int64_t iref_mul(int64_t a, int64_t b, cj_dtype dt) { return wrap(dt, (uint64_t)a * (uint64_t)b); }
/* XLA's integer division: x / 0 = -1, INT_MIN / -1 = INT_MIN. */
static int64_t iref_div(int64_t a, int64_t b, cj_dtype dt) {
    if (b == 0) return -1;
    if (a == int_min(dt) && b == -1) return a;
    return a / b;
}
/* XLA's remainder: x % 0 = x, INT_MIN % -1 = 0; sign of the dividend. */
static int64_t iref_rem(int64_t a, int64_t b, cj_dtype dt) {
    if (b == 0) return a;
    if (a == int_min(dt) && b == -1) return 0;
    return a % b;
}
/* Repeated multiplication (the kernel squares); negative exponents give
 * 0 except for bases ±1. */
static int64_t iref_pow(int64_t a, int64_t b, cj_dtype dt) {
    if (b < 0) return a == 1 ? 1 : a == -1 ? (b % 2 ? -1 : 1) : 0;
    uint64_t r = 1;
    for (int64_t k = 0; k < b; k++) r = (uint64_t)wrap(dt, r * (uint64_t)a);
    return wrap(dt, r);
}
static int64_t iref_max(int64_t a, int64_t b, cj_dtype dt) {
    (void)dt;
    return a > b ? a : b;
}
static int64_t iref_min(int64_t a, int64_t b, cj_dtype dt) {
    (void)dt;
    return a < b ? a : b;
}
static int64_t iref_and(int64_t a, int64_t b, cj_dtype dt) {
    (void)dt;
    return a & b;
}
static int64_t iref_or(int64_t a, int64_t b, cj_dtype dt) {
    (void)dt;
    return a | b;
}
static int64_t iref_xor(int64_t a, int64_t b, cj_dtype dt) {
    (void)dt;
    return a ^ b;
}
static int64_t iref_eq(int64_t a, int64_t b, cj_dtype dt) {
    (void)dt;
    return a == b;
}
static int64_t iref_ne(int64_t a, int64_t b, cj_dtype dt) {
    (void)dt;
    return a != b;
}
static int64_t iref_lt(int64_t a, int64_t b, cj_dtype dt) {
    (void)dt;
    return a < b;
}
static int64_t iref_le(int64_t a, int64_t b, cj_dtype dt) {
    (void)dt;
    return a <= b;
}
static int64_t iref_gt(int64_t a, int64_t b, cj_dtype dt) {
    (void)dt;
    return a > b;
}
static int64_t iref_ge(int64_t a, int64_t b, cj_dtype dt) {
    (void)dt;
    return a >= b;
}

typedef struct binary_case {
    prim_id prim;
    unsigned dtypes;
    double (*fref)(double, double);
    int64_t (*iref)(int64_t, int64_t, cj_dtype);
    int result_bool;
    double alo, ahi, blo, bhi; /* operand domains */
    int int_edges;             /* put INT_MIN/INT_MAX/0/-1 pairs first */
    double rtol32, rtol64;
} binary_case;

static const binary_case binary_cases[] = {
    {PRIM_ADD, NUMBERS, fref_add, iref_add, 0, -1e3, 1e3, -1e3, 1e3, 1, 0, 0},
    {PRIM_SUB, NUMBERS, fref_sub, iref_sub, 0, -1e3, 1e3, -1e3, 1e3, 1, 0, 0},
    {PRIM_MUL, NUMBERS, fref_mul, iref_mul, 0, -1e3, 1e3, -1e3, 1e3, 1, 0, 0},
    {PRIM_DIV, NUMBERS, fref_div, iref_div, 0, -1e3, 1e3, -9, 9, 1, 0, 0},
    {PRIM_REM, NUMBERS, fmod, iref_rem, 0, -1e3, 1e3, -9, 9, 1, 0, 0},
    {PRIM_POW, NUMBERS, pow, iref_pow, 0, 0.1, 8, -3, 12, 0, 2e-6, 1e-14},
    {PRIM_MAX, ALL, fref_max, iref_max, 0, -9, 9, -9, 9, 1, 0, 0},
    {PRIM_MIN, ALL, fref_min, iref_min, 0, -9, 9, -9, 9, 1, 0, 0},
    {PRIM_ATAN2, FLOATS, atan2, NULL, 0, -5, 5, -5, 5, 0, 1e-6, 4e-15},
    {PRIM_EQ, ALL, fref_eq, iref_eq, 1, -3, 3, -3, 3, 1, 0, 0},
    {PRIM_NE, ALL, fref_ne, iref_ne, 1, -3, 3, -3, 3, 1, 0, 0},
    {PRIM_LT, ALL, fref_lt, iref_lt, 1, -3, 3, -3, 3, 1, 0, 0},
    {PRIM_LE, ALL, fref_le, iref_le, 1, -3, 3, -3, 3, 1, 0, 0},
    {PRIM_GT, ALL, fref_gt, iref_gt, 1, -3, 3, -3, 3, 1, 0, 0},
    {PRIM_GE, ALL, fref_ge, iref_ge, 1, -3, 3, -3, 3, 1, 0, 0},
    {PRIM_AND, INTEGRAL, NULL, iref_and, 0, -1e4, 1e4, -1e4, 1e4, 1, 0, 0},
    {PRIM_OR, INTEGRAL, NULL, iref_or, 0, -1e4, 1e4, -1e4, 1e4, 1, 0, 0},
    {PRIM_XOR, INTEGRAL, NULL, iref_xor, 0, -1e4, 1e4, -1e4, 1e4, 1, 0, 0},
};
#define N_BINARY ((int)(sizeof binary_cases / sizeof binary_cases[0]))

/* Operand layouts: which of (a, b) is a rank-0 scalar. */
enum { BOTH_ARRAYS, A_SCALAR, B_SCALAR };

static int run_binary(const binary_case *c, cj_dtype dt, const shape *s, int layout, uint64_t *st) {
    const shape *sa = layout == A_SCALAR ? &scalar_shape : s, *sb = layout == B_SCALAR ? &scalar_shape : s;
    cj_ctx *ctx = cj_ctx_new(NULL);
    void *a = random_data(dt, sa->n, c->alo, c->ahi, st), *b = random_data(dt, sb->n, c->blo, c->bhi, st);
    if (c->int_edges && rt_is_int(dt)) {
        /* (MIN, -1), (MAX, 0), (MIN, 0), (MAX, MAX), (MIN, MIN), (0, MIN) */
        const int64_t ea[] = {int_min(dt), int_max(dt), int_min(dt), int_max(dt), int_min(dt), 0};
        const int64_t eb[] = {-1, 0, 0, int_max(dt), int_min(dt), int_min(dt)};
        for (int64_t i = 0; i < 6 && i < sa->n && i < sb->n; i++) {
            set_i(dt, a, i, ea[i]);
            set_i(dt, b, i, eb[i]);
        }
    }
    cj_dtype odt = c->result_bool ? CJ_BOOL : dt;
    void *want = malloc(cj_dtype_size(odt) * (size_t)(s->n ? s->n : 1));
    for (int64_t i = 0; i < s->n; i++) {
        int64_t ia = layout == A_SCALAR ? 0 : i, ib = layout == B_SCALAR ? 0 : i;
        if (rt_is_float(dt)) set_f(odt, want, i, c->fref(get_f(dt, a, ia), get_f(dt, b, ib)));
        else set_i(odt, want, i, c->iref(get_i(dt, a, ia), get_i(dt, b, ib), dt));
    }
    cj_val in[2] = {make(ctx, dt, sa->rank, sa->dims, a), make(ctx, dt, sb->rank, sb->dims, b)};
    cj_val y = bind(c->prim, 2, in);
    char what[96];
    snprintf(what, sizeof what, "%s %s[n=%lld] layout %d", prim_names[c->prim], cj_dtype_name(dt),
             (long long)s->n, layout);
    int ok = same_values(y, odt, s->n, want, tol_for(dt, c->rtol32, c->rtol64), 0, what);
    if (ok && cj_val_rank(y) != s->rank) {
        th_fail(__FILE__, __LINE__, "%s: result rank %d", what, cj_val_rank(y));
        ok = 0;
    }
    free(a);
    free(b);
    free(want);
    cj_ctx_free(ctx);
    return ok;
}

TEST(elementwise_binary_every_dtype_shape_and_layout) {
    uint64_t st = 3;
    for (int k = 0; k < N_BINARY; k++)
        for (int dt = 0; dt < N_BASE_DTYPES; dt++) {
            if (!(binary_cases[k].dtypes & BIT(dt))) continue;
            for (int s = 0; s < N_SHAPES; s++)
                for (int layout = BOTH_ARRAYS; layout <= B_SCALAR; layout++)
                    CHECK(run_binary(&binary_cases[k], (cj_dtype)dt, &shapes[s], layout, &st));
        }
}

TEST(elementwise_integer_division_and_remainder_known_values) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    const int32_t a[] = {7, -7, 7, -7, 5, INT32_MIN, INT32_MIN, 3};
    const int32_t b[] = {2, 2, -2, -2, 0, -1, 1, 5};
    const int32_t q[] = {3, -3, -3, 3, -1, INT32_MIN, INT32_MIN, 0};
    const int32_t r[] = {1, -1, 1, -1, 5, 0, 0, 3};
    int64_t n = 8;
    cj_val in[2] = {make(ctx, CJ_I32, 1, &n, a), make(ctx, CJ_I32, 1, &n, b)};
    int32_t got_q[8], got_r[8];
    CHECK(cj_read(bind(PRIM_DIV, 2, in), got_q, sizeof got_q) == CJ_OK);
    CHECK(cj_read(bind(PRIM_REM, 2, in), got_r, sizeof got_r) == CJ_OK);
    for (int i = 0; i < 8; i++) {
        CHECK_EQ_INT(got_q[i], q[i]);
        CHECK_EQ_INT(got_r[i], r[i]);
    }
    /* integer pow: negative exponents, negative bases, wrap-around */
    const int32_t pb[] = {-2, -1, -1, 1, 2, 0, 3, -3};
    const int32_t pe[] = {3, -3, -2, -5, -1, 0, 40, 5};
    cj_val pin[2] = {make(ctx, CJ_I32, 1, &n, pb), make(ctx, CJ_I32, 1, &n, pe)};
    int32_t got_p[8];
    CHECK(cj_read(cj_pow(pin[0], pin[1]), got_p, sizeof got_p) == CJ_OK);
    const int32_t want_p[] = {-8, -1, 1, 1, 0, 1, (int32_t)iref_pow(3, 40, CJ_I32), -243};
    for (int i = 0; i < 8; i++) CHECK_EQ_INT(got_p[i], want_p[i]);
    /* floats: fmod keeps the dividend's sign */
    cj_val fr = cj_rem(cj_scalar_typed(ctx, -7.5, CJ_F32), cj_scalar_typed(ctx, 2, CJ_F32));
    CHECK_NEAR(cj_item_or_nan(fr), -1.5, 0, 0);
    cj_ctx_free(ctx);
}

TEST(elementwise_max_min_propagate_nan_and_compare_with_nan_is_false) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    const float a[] = {NAN, 1, NAN, -INFINITY, 2};
    const float b[] = {1, NAN, NAN, 3, INFINITY};
    int64_t n = 5;
    cj_val x = make(ctx, CJ_F32, 1, &n, a), y = make(ctx, CJ_F32, 1, &n, b);
    float mx[5], mn[5];
    uint8_t lt[5], ne[5];
    CHECK(cj_read(cj_max(x, y), mx, sizeof mx) == CJ_OK);
    CHECK(cj_read(cj_min(x, y), mn, sizeof mn) == CJ_OK);
    CHECK(cj_read(cj_lt(x, y), lt, sizeof lt) == CJ_OK);
    CHECK(cj_read(cj_ne(x, y), ne, sizeof ne) == CJ_OK);
    for (int i = 0; i < 5; i++) {
        CHECK_NEAR(mx[i], fref_max(a[i], b[i]), 0, 0);
        CHECK_NEAR(mn[i], fref_min(a[i], b[i]), 0, 0);
        CHECK_EQ_INT(lt[i], a[i] < b[i]);
        CHECK_EQ_INT(ne[i], a[i] != b[i]);
    }
    cj_ctx_free(ctx);
}

/* max/min as IEEE 754-2019 maximum/minimum (and XLA, checked against jax
 * 0.10.2 jnp.maximum/minimum eagerly and under jit): +0 > -0 whatever the
 * argument order, NaN wins. Checked eagerly (dense and scalar operand
 * layouts, f32 and f64), under jit with the interpreter and with
 * generated C (fused with a neg so it runs inside a loop kernel), under
 * vmap and for clamp. */
static const double sz_a[] = {0.0, -0.0, -0.0, 0.0, NAN, 1.0, -0.0, -3.0};
static const double sz_b[] = {-0.0, 0.0, -0.0, 0.0, -0.0, 0.0, NAN, -0.0};
#define SZ_N 8

/* Does y (dtype dt) hold, bit for bit up to NaN payloads, op(sz_a, sz_b)
 * (is_max) — or op(-sz_a, -sz_b) with `negated`? */
static int signed_zero_result_ok(cj_val y, cj_dtype dt, int is_max, int negated, char *why, size_t n) {
    double got[SZ_N];
    if (cj_is_error(y) || cj_val_size(y) != SZ_N || cj_read_as(y, CJ_F64, got, sizeof got) != CJ_OK) {
        snprintf(why, n, "no result");
        return 0;
    }
    (void)dt;
    for (int i = 0; i < SZ_N; i++) {
        double a = negated ? -sz_a[i] : sz_a[i], b = negated ? -sz_b[i] : sz_b[i];
        double want;
        if (isnan(a) || isnan(b)) want = NAN;
        else if (a == b && a == 0) want = is_max ? (signbit(a) && signbit(b) ? -0.0 : 0.0)
                                                 : (signbit(a) || signbit(b) ? -0.0 : 0.0);
        else want = is_max ? (a > b ? a : b) : (a < b ? a : b);
        int ok = isnan(want) ? isnan(got[i]) : got[i] == want && !signbit(got[i]) == !signbit(want);
        if (!ok) {
            snprintf(why, n, "%s(%g, %g) = %g, want %g", is_max ? "max" : "min", a, b, got[i], want);
            return 0;
        }
    }
    return 1;
}

static void fn_max_min_neg(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    (void)user;
    out[0] = cj_max(in[0], in[1]);
    out[1] = cj_min(in[0], in[1]);
    out[2] = cj_max(cj_neg(in[0]), cj_neg(in[1]));
    out[3] = cj_min(cj_neg(in[0]), cj_neg(in[1]));
}

TEST(max_min_order_signed_zeros_as_ieee_in_every_backend) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    char why[128];
    int64_t n = SZ_N;
    for (int d = 0; d < 2; d++) {
        cj_dtype dt = d ? CJ_F64 : CJ_F32;
        cj_val a = cj_astype(cj_array(ctx, CJ_F64, 1, &n, sz_a), dt);
        cj_val b = cj_astype(cj_array(ctx, CJ_F64, 1, &n, sz_b), dt);
        CHECK_MSG(signed_zero_result_ok(cj_max(a, b), dt, 1, 0, why, sizeof why), "eager %s", why);
        CHECK_MSG(signed_zero_result_ok(cj_min(a, b), dt, 0, 0, why, sizeof why), "eager %s", why);
        /* a rank-0 operand on either side */
        for (int side = 0; side < 2; side++) {
            cj_val z = cj_scalar_typed(ctx, side ? 0.0 : -0.0, dt), zeros = cj_zeros(ctx, dt, 1, &n);
            cj_val mx = side ? cj_max(cj_neg(zeros), z) : cj_max(z, zeros);
            cj_val mn = side ? cj_min(zeros, cj_neg(z)) : cj_min(cj_neg(zeros), cj_neg(z));
            double got[SZ_N];
            CHECK(cj_read_as(mx, CJ_F64, got, sizeof got) == CJ_OK);
            for (int i = 0; i < SZ_N; i++) CHECK_MSG(got[i] == 0 && !signbit(got[i]), "scalar max side %d", side);
            CHECK(cj_read_as(mn, CJ_F64, got, sizeof got) == CJ_OK);
            for (int i = 0; i < SZ_N; i++) CHECK_MSG(got[i] == 0 && signbit(got[i]), "scalar min side %d", side);
        }
        /* clamp(lo=+0, x=-0, hi) is +0 and clamp(lo, x=+0, hi=-0) is -0 */
        double c;
        CHECK(cj_read_as(cj_clamp(cj_scalar_typed(ctx, 0.0, dt), cj_scalar_typed(ctx, -0.0, dt),
                                  cj_scalar_typed(ctx, 1.0, dt)), CJ_F64, &c, sizeof c) == CJ_OK);
        CHECK(c == 0 && !signbit(c));
        CHECK(cj_read_as(cj_clamp(cj_scalar_typed(ctx, -1.0, dt), cj_scalar_typed(ctx, 0.0, dt),
                                  cj_scalar_typed(ctx, -0.0, dt)), CJ_F64, &c, sizeof c) == CJ_OK);
        CHECK(c == 0 && signbit(c));
        cj_func *f = cj_func_new(ctx, "max_min", fn_max_min_neg, 2, 4, NULL);
        const cj_backend backends[2] = {CJ_BACKEND_INTERP, CJ_BACKEND_CC};
        for (int k = 0; k < 3; k++) {
            cj_jit_opts o = {0};
            if (k < 2) o.backend = backends[k];
            /* k == 2: vmap over the 8 elements */
            cj_func *g = k < 2 ? cj_jit(f, &o) : cj_vmap(f, NULL);
            const char *mode = k == 0 ? "jit interp" : k == 1 ? "jit cc" : "vmap";
            cj_val out[4];
            CHECK_MSG(cj_call(g, (cj_val[]){a, b}, out) == CJ_OK, "%s: %s", mode, cj_error_message(ctx));
            for (int o2 = 0; o2 < 4; o2++)
                CHECK_MSG(signed_zero_result_ok(out[o2], dt, o2 % 2 == 0, o2 >= 2, why, sizeof why),
                          "%s %s output %d: %s", mode, cj_dtype_name(dt), o2, why);
        }
    }
    CHECK_MSG(cj_error(ctx) == CJ_OK, "%s", cj_error_message(ctx));
    cj_ctx_free(ctx);
}

TEST(elementwise_pow_and_atan2_special_values) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    const double a[] = {NAN, 2, -8, 0, 0, INFINITY, 1, -1, 0, -0.0, 1, -2};
    const double b[] = {0, -1, 1.0 / 3, 0, -1, 0.5, NAN, INFINITY, -0.0, -1, 0, 3};
    int64_t n = 12;
    for (int dt = CJ_F32; dt <= CJ_F64; dt++) {
        cj_val x = cj_astype(make(ctx, CJ_F64, 1, &n, a), (cj_dtype)dt);
        cj_val y = cj_astype(make(ctx, CJ_F64, 1, &n, b), (cj_dtype)dt);
        double p[12], t[12], xa[12], ya[12];
        CHECK(cj_read_as(x, CJ_F64, xa, sizeof xa) == CJ_OK);
        CHECK(cj_read_as(y, CJ_F64, ya, sizeof ya) == CJ_OK);
        CHECK(cj_read_as(cj_pow(x, y), CJ_F64, p, sizeof p) == CJ_OK);
        CHECK(cj_read_as(cj_atan2(x, y), CJ_F64, t, sizeof t) == CJ_OK);
        double tol = dt == CJ_F32 ? 1e-6 : 1e-14;
        for (int i = 0; i < 12; i++) {
            CHECK_MSG(th_close(p[i], pow(xa[i], ya[i]), tol, 0), "pow(%g, %g) = %g", xa[i], ya[i], p[i]);
            CHECK_MSG(th_close(t[i], atan2(xa[i], ya[i]), tol, 0), "atan2(%g, %g) = %g", xa[i], ya[i], t[i]);
        }
    }
    cj_ctx_free(ctx);
}

/* ---- select_n and clamp ---- */

TEST(elementwise_select_every_dtype_shape_and_layout) {
    uint64_t st = 11;
    for (int dt = 0; dt < N_BASE_DTYPES; dt++)
        for (int s = 0; s < N_SHAPES; s++)
            for (int layout = 0; layout < 8; layout++) { /* bit i: operand i is rank 0 */
                const shape *sh = &shapes[s];
                const shape *sp[3];
                for (int i = 0; i < 3; i++) sp[i] = layout & (1 << i) ? &scalar_shape : sh;
                if (layout == 7 && sh->rank != 0) continue; /* would be rank 0 */
                cj_ctx *ctx = cj_ctx_new(NULL);
                void *p = random_data(CJ_BOOL, sp[0]->n, 0, 1, &st);
                void *f = random_data((cj_dtype)dt, sp[1]->n, -100, 100, &st);
                void *t = random_data((cj_dtype)dt, sp[2]->n, -100, 100, &st);
                void *want = malloc(cj_dtype_size((cj_dtype)dt) * (size_t)(sh->n ? sh->n : 1));
                size_t es = cj_dtype_size((cj_dtype)dt);
                for (int64_t i = 0; i < sh->n; i++) {
                    int64_t ip = sp[0]->rank ? i : 0, iff = sp[1]->rank ? i : 0, it = sp[2]->rank ? i : 0;
                    const uint8_t *pick = get_i(CJ_BOOL, p, ip) ? (uint8_t *)t + it * (int64_t)es
                                                                : (uint8_t *)f + iff * (int64_t)es;
                    memcpy((uint8_t *)want + i * (int64_t)es, pick, es);
                }
                cj_val in[3] = {make(ctx, CJ_BOOL, sp[0]->rank, sp[0]->dims, p),
                                make(ctx, (cj_dtype)dt, sp[1]->rank, sp[1]->dims, f),
                                make(ctx, (cj_dtype)dt, sp[2]->rank, sp[2]->dims, t)};
                cj_val y = bind(PRIM_SELECT, 3, in);
                int64_t want_n = layout == 7 ? 1 : sh->n;
                int ok = same_values(y, (cj_dtype)dt, want_n, want, 0, 0, "select_n");
                ok = ok && cj_val_rank(y) == (layout == 7 ? 0 : sh->rank);
                free(p);
                free(f);
                free(t);
                free(want);
                cj_ctx_free(ctx);
                CHECK_MSG(ok, "select_n %s shape %d layout %d", cj_dtype_name((cj_dtype)dt), s, layout);
            }
}

TEST(elementwise_clamp_every_dtype_shape_and_layout) {
    uint64_t st = 13;
    for (int dt = 0; dt < N_BASE_DTYPES; dt++)
        for (int s = 0; s < N_SHAPES; s++)
            for (int layout = 0; layout < 4; layout++) { /* bit 0: lo rank 0, bit 1: hi rank 0 */
                const shape *sh = &shapes[s];
                const shape *sl = layout & 1 ? &scalar_shape : sh, *shi = layout & 2 ? &scalar_shape : sh;
                cj_ctx *ctx = cj_ctx_new(NULL);
                void *lo = random_data((cj_dtype)dt, sl->n, -60, 10, &st);
                void *x = random_data((cj_dtype)dt, sh->n, -100, 100, &st);
                void *hi = random_data((cj_dtype)dt, shi->n, -10, 60, &st);
                if (rt_is_float((cj_dtype)dt) && sh->n > 2) { /* NaN in x, and in an array lo */
                    set_f((cj_dtype)dt, x, 0, NAN);
                    if (sl->rank) set_f((cj_dtype)dt, lo, sl->n - 1, NAN);
                }
                void *want = malloc(cj_dtype_size((cj_dtype)dt) * (size_t)(sh->n ? sh->n : 1));
                for (int64_t i = 0; i < sh->n; i++) {
                    int64_t il = sl->rank ? i : 0, ih = shi->rank ? i : 0;
                    if (rt_is_float((cj_dtype)dt))
                        set_f((cj_dtype)dt, want, i,
                              fref_min(fref_max(get_f((cj_dtype)dt, x, i), get_f((cj_dtype)dt, lo, il)),
                                       get_f((cj_dtype)dt, hi, ih)));
                    else {
                        int64_t m = iref_max(get_i((cj_dtype)dt, x, i), get_i((cj_dtype)dt, lo, il), CJ_I64);
                        set_i((cj_dtype)dt, want, i, iref_min(m, get_i((cj_dtype)dt, hi, ih), CJ_I64));
                    }
                }
                cj_val in[3] = {make(ctx, (cj_dtype)dt, sl->rank, sl->dims, lo),
                                make(ctx, (cj_dtype)dt, sh->rank, sh->dims, x),
                                make(ctx, (cj_dtype)dt, shi->rank, shi->dims, hi)};
                cj_val y = bind(PRIM_CLAMP, 3, in);
                int ok = same_values(y, (cj_dtype)dt, sh->n, want, 0, 0, "clamp");
                free(lo);
                free(x);
                free(hi);
                free(want);
                cj_ctx_free(ctx);
                CHECK_MSG(ok, "clamp %s shape %d layout %d", cj_dtype_name((cj_dtype)dt), s, layout);
            }
}

/* ---- validation ---- */

/* The dtypes each primitive accepts, as JAX's lax does (written out here
 * independently of the kernel table). */
static unsigned expected_dtypes(prim_id prim) {
    switch (prim) {
    case PRIM_NEG: case PRIM_ABS: case PRIM_SIGN: case PRIM_ADD: case PRIM_SUB: case PRIM_MUL:
    case PRIM_DIV: case PRIM_REM: case PRIM_POW: case PRIM_INTEGER_POW:
        return NUMBERS;
    case PRIM_NOT: case PRIM_AND: case PRIM_OR: case PRIM_XOR:
        return INTEGRAL;
    case PRIM_SHIFT_LEFT: case PRIM_SHIFT_RIGHT_LOGICAL: case PRIM_SHIFT_RIGHT_ARITHMETIC:
    case PRIM_POPULATION_COUNT: /* integers, not bool */
        return BIT(CJ_I32) | BIT(CJ_I64);
    case PRIM_BITCAST_CONVERT_TYPE: /* to f32 (params.dtype below): from the 32-bit dtypes */
        return BIT(CJ_I32) | BIT(CJ_F32);
    case PRIM_CONVERT: case PRIM_MAX: case PRIM_MIN: case PRIM_EQ: case PRIM_NE: case PRIM_LT:
    case PRIM_LE: case PRIM_GT: case PRIM_GE: case PRIM_SELECT: case PRIM_CLAMP:
        return ALL;
    default:
        return FLOATS;
    }
}

TEST(elementwise_every_primitive_accepts_exactly_its_dtypes) {
    int64_t three = 3;
    int n_elementwise = 0;
    for (int p = 0; p < PRIM_COUNT; p++) {
        if (prim_families[p] != FAMILY_ELEMENTWISE) continue;
        n_elementwise++;
        CHECK(prim_rules[p].lower.kind == LOWER_ELEMENTWISE);
        for (int dt = 0; dt < N_BASE_DTYPES; dt++) {
            cj_ctx *ctx = cj_ctx_new(NULL);
            cj_val in[3];
            for (int i = 0; i < prim_arity[p]; i++) in[i] = cj_zeros(ctx, (cj_dtype)dt, 1, &three);
            if (p == PRIM_SELECT) in[0] = cj_zeros(ctx, CJ_BOOL, 1, &three);
            prim_params par = prim_params_zero();
            par.dtype = CJ_F32;
            cj_val y = core_bind(ctx, (prim_id)p, &par, prim_arity[p], in);
            int accepted = !cj_is_error(y);
            int want = (expected_dtypes((prim_id)p) & BIT(dt)) != 0;
            CHECK_MSG(accepted == want, "%s on %s: accepted %d, want %d (%s)", prim_names[p],
                      cj_dtype_name((cj_dtype)dt), accepted, want, cj_error_message(ctx));
            if (p == PRIM_BITCAST_CONVERT_TYPE) { /* a kernel for every dtype; other widths unsupported */
                if (!accepted) CHECK(cj_error(ctx) == (dt == CJ_BOOL ? CJ_ERR_DTYPE : CJ_ERR_UNSUPPORTED));
                cj_ctx_free(ctx);
                continue;
            }
            CHECK(accepted == (ew_kernel((prim_id)p, (cj_dtype)dt) != NULL));
            if (!accepted) CHECK(cj_error(ctx) == CJ_ERR_DTYPE);
            cj_ctx_free(ctx);
        }
    }
    CHECK_EQ_INT(n_elementwise, 64);
}

TEST(elementwise_errors_name_the_operation_and_types) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t d3 = 3, d4 = 4;
    cj_val i3 = cj_zeros(ctx, CJ_I32, 1, &d3), f3 = cj_zeros(ctx, CJ_F32, 1, &d3),
           f4 = cj_zeros(ctx, CJ_F32, 1, &d4), b3 = cj_zeros(ctx, CJ_BOOL, 1, &d3);
    struct {
        prim_id prim;
        int n;
        cj_val in[3];
        cj_status code;
        const char *msg;
    } cases[] = {
        {PRIM_SIN, 1, {i3}, CJ_ERR_DTYPE, "sin: operand must be floating point, got i32[3]"},
        {PRIM_NEG, 1, {b3}, CJ_ERR_DTYPE, "neg: operand must be integer or floating point, got bool[3]"},
        {PRIM_NOT, 1, {f3}, CJ_ERR_DTYPE, "not: operand must be boolean or integer, got f32[3]"},
        {PRIM_ADD, 2, {b3, b3}, CJ_ERR_DTYPE,
         "add: operands must be integer or floating point, got bool[3] and bool[3]"},
        {PRIM_ATAN2, 2, {i3, i3}, CJ_ERR_DTYPE,
         "atan2: operands must be floating point, got i32[3] and i32[3]"},
        {PRIM_ADD, 2, {f3, i3}, CJ_ERR_DTYPE, "add: operands must have equal dtypes, got f32[3] and i32[3]"},
        {PRIM_ADD, 2, {f3, f4}, CJ_ERR_SHAPE, "add: shapes f32[3] and f32[4] must be equal or rank 0"},
        {PRIM_SELECT, 3, {i3, f3, f3}, CJ_ERR_DTYPE, "select_n: predicate must be bool, got i32[3]"},
        {PRIM_SELECT, 3, {b3, f3, i3}, CJ_ERR_DTYPE,
         "select_n: operands must have equal dtypes, got f32[3] and i32[3]"},
        {PRIM_SELECT, 3, {b3, f4, f4}, CJ_ERR_SHAPE,
         "select_n: shapes bool[3], f32[4] and f32[4] must be equal or rank 0"},
        {PRIM_CLAMP, 3, {f3, f4, f4}, CJ_ERR_SHAPE,
         "clamp: lo f32[3] must be rank 0 or have the shape of x f32[4]"},
        {PRIM_ADD, 1, {f3}, CJ_ERR_ARG, "add: takes 2 operands, got 1"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        cj_val y = bind(cases[k].prim, cases[k].n, cases[k].in);
        CHECK(cj_is_error(y));
        CHECK_MSG(cj_error(ctx) == cases[k].code, "%s: status %s", cases[k].msg,
                  cj_status_name(cj_error(ctx)));
        CHECK_STR_CONTAINS(cj_error_message(ctx), cases[k].msg);
        cj_error_clear(ctx);
    }
    /* clamp wants x at the result's shape: a rank-0 x with array bounds is
     * lax's error too */
    cj_val s = cj_scalar_typed(ctx, 1, CJ_F32);
    CHECK(cj_is_error(bind(PRIM_CLAMP, 3, (cj_val[]){f3, s, f3})));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "clamp: lo f32[3] must be rank 0 or have the shape of x f32[]");
    cj_error_clear(ctx);
    /* the public operations report through the same rules */
    cj_sin(cj_zeros(ctx, CJ_BOOL, 0, NULL));
    CHECK(cj_error(ctx) == CJ_OK); /* bool promotes to f32 first */
    cj_sub(b3, b3);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "sub: operands must be integer or floating point, got bool[3]");
    cj_error_clear(ctx);
    cj_and(f3, f3);
    CHECK_STR_CONTAINS(cj_error_message(ctx),
                       "and: operands must be boolean or integer, got f32[3] and f32[3]");
    cj_error_clear(ctx);
    cj_add(f3, f4);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "add: shapes f32[3] and f32[4] do not broadcast");
    cj_error_clear(ctx);
    cj_ctx_free(ctx);
}

TEST(elementwise_error_values_propagate_without_work) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t d = 3;
    cj_val x = cj_zeros(ctx, CJ_F32, 1, &d);
    cj_val bad = cj_not(x); /* rejected */
    CHECK(cj_is_error(bad));
    CHECK(cj_is_error(cj_add(bad, x)));
    CHECK(cj_is_error(cj_where(bad, x, x)));
    CHECK(cj_is_error(cj_clamp(x, bad, x)));
    CHECK(cj_is_error(cj_gelu(bad)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "not:"); /* the first error is kept */
    cj_ctx_free(ctx);
    cj_val none = {0};
    CHECK(cj_is_error(cj_add(none, none)));
    CHECK(cj_is_error(cj_relu(none)));
    CHECK(cj_is_error(cj_clip(none, 0, 1)));
    CHECK(cj_is_error(cj_astype(none, CJ_F32)));
}

/* ---- the public operations: jax.numpy's conventions ---- */

static int64_t read_i64(cj_val v) {
    int64_t r = -999;
    cj_item_int(v, &r);
    return r;
}

TEST(elementwise_api_jnp_conventions) {
    tu_alloc st = {0};
    cj_allocator al = tu_allocator(&st);
    cj_ctx *ctx = cj_ctx_new(&al);
    cj_val t = cj_scalar_typed(ctx, 1, CJ_BOOL), f = cj_scalar_typed(ctx, 0, CJ_BOOL);
    cj_val i7 = cj_scalar_typed(ctx, 7, CJ_I32), i2 = cj_scalar_typed(ctx, 2, CJ_I32);
    /* + and * of bools are or / and */
    CHECK(cj_val_dtype(cj_add(t, f)) == CJ_BOOL && read_i64(cj_add(t, f)) == 1);
    CHECK(cj_val_dtype(cj_mul(t, f)) == CJ_BOOL && read_i64(cj_mul(t, f)) == 0);
    /* true division of ints is float */
    cj_val q = cj_div(i7, i2);
    CHECK(cj_val_dtype(q) == CJ_F32 && !cj_val_weak(q));
    CHECK_NEAR(cj_item_or_nan(q), 3.5, 0, 0);
    CHECK(cj_val_dtype(cj_atan2(i7, i2)) == CJ_F32);
    /* rounding of ints and bools is the identity */
    CHECK(cj_val_dtype(cj_floor(i7)) == CJ_I32 && read_i64(cj_round(i7)) == 7);
    CHECK(cj_val_dtype(cj_ceil(t)) == CJ_BOOL && read_i64(cj_ceil(t)) == 1);
    /* abs of bool is itself; is_finite of ints is true */
    CHECK(cj_val_dtype(cj_abs(t)) == CJ_BOOL);
    CHECK(cj_val_dtype(cj_is_finite(i7)) == CJ_BOOL && read_i64(cj_is_finite(i7)) == 1);
    /* float-only functions of ints compute in f32, of i64 in f64
     * (to_inexact_dtype) */
    cj_val s = cj_sqrt(cj_scalar_typed(ctx, 16, CJ_I64));
    CHECK(cj_val_dtype(s) == CJ_F64);
    CHECK_NEAR(cj_item_or_nan(s), 4, 0, 0);
    s = cj_sqrt(cj_scalar_typed(ctx, 16, CJ_I32));
    CHECK(cj_val_dtype(s) == CJ_F32);
    CHECK_NEAR(cj_item_or_nan(s), 4, 0, 0);
    /* round is half to even */
    const float halves[] = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 2.4f, -2.6f};
    const float evens[] = {0, 2, 2, -0.0f, -2, -2, 2, -3};
    int64_t n = 8;
    float r[8];
    CHECK(cj_read(cj_round(make(ctx, CJ_F32, 1, &n, halves)), r, sizeof r) == CJ_OK);
    for (int i = 0; i < 8; i++) CHECK(r[i] == evens[i] && !signbit(r[i]) == !signbit(evens[i]));
    CHECK(cj_error(ctx) == CJ_OK);
    cj_ctx_free(ctx);
    CHECK_EQ_INT(st.live, 0);
}

TEST(elementwise_where_with_scalars_and_non_bool_condition) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    const float c[] = {0, 2, -1, NAN, 0};
    const float a[] = {1, 2, 3, 4, 5};
    int64_t n = 5;
    cj_val cond = make(ctx, CJ_F32, 1, &n, c), x = make(ctx, CJ_F32, 1, &n, a);
    float out[5];
    CHECK(cj_read(cj_where(cond, x, cj_scalar(ctx, -1)), out, sizeof out) == CJ_OK);
    for (int i = 0; i < 5; i++) CHECK_NEAR(out[i], c[i] != 0 ? a[i] : -1, 0, 0);
    /* a rank-0 condition picks a whole operand; promotion of the cases */
    cj_val y = cj_where(cj_scalar_typed(ctx, 1, CJ_BOOL), cj_scalar_int(ctx, 3), x);
    CHECK(cj_val_dtype(y) == CJ_F32 && !cj_val_weak(y));
    CHECK(cj_read(y, out, sizeof out) == CJ_OK);
    for (int i = 0; i < 5; i++) CHECK_NEAR(out[i], 3, 0, 0);
    CHECK(cj_error(ctx) == CJ_OK);
    cj_ctx_free(ctx);
}

static double gelu_ref(double x) {
    return 0.5 * x * (1 + tanh(sqrt(2 / 3.14159265358979323846) * (x + 0.044715 * x * x * x)));
}

TEST(elementwise_composites_relu_sigmoid_gelu_clip_square) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t n = 201;
    for (int dt = CJ_F32; dt <= CJ_F64; dt++) {
        cj_val x = cj_astype(cj_arange(ctx, -10, 10.05, 0.1, CJ_F64), (cj_dtype)dt);
        CHECK_EQ_INT(cj_val_size(x), n);
        double xs[201], relu[201], sig[201], gelu[201], clip[201], sq[201];
        CHECK(cj_read_as(x, CJ_F64, xs, sizeof xs) == CJ_OK);
        CHECK(cj_read_as(cj_relu(x), CJ_F64, relu, sizeof relu) == CJ_OK);
        CHECK(cj_read_as(cj_sigmoid(x), CJ_F64, sig, sizeof sig) == CJ_OK);
        CHECK(cj_read_as(cj_gelu(x), CJ_F64, gelu, sizeof gelu) == CJ_OK);
        CHECK(cj_read_as(cj_clip(x, -2.5, 3), CJ_F64, clip, sizeof clip) == CJ_OK);
        CHECK(cj_read_as(cj_square(x), CJ_F64, sq, sizeof sq) == CJ_OK);
        CHECK(cj_val_dtype(cj_gelu(x)) == (cj_dtype)dt && cj_val_dtype(cj_clip(x, 0, 1)) == (cj_dtype)dt);
        double tol = dt == CJ_F32 ? 2e-6 : 1e-14;
        for (int i = 0; i < n; i++) {
            CHECK_NEAR(relu[i], xs[i] > 0 ? xs[i] : 0, 0, 0);
            CHECK_NEAR(sig[i], 1 / (1 + exp(-xs[i])), tol, 1e-7);
            CHECK_NEAR(gelu[i], gelu_ref(xs[i]), tol, dt == CJ_F32 ? 1e-6 : 1e-15);
            CHECK_NEAR(clip[i], xs[i] < -2.5 ? -2.5 : xs[i] > 3 ? 3 : xs[i], 0, 0);
            CHECK_NEAR(sq[i], dt == CJ_F32 ? (double)(float)(xs[i] * xs[i]) : xs[i] * xs[i], 0, 0);
        }
    }
    /* integer x with integral bounds stays integer; other bounds promote */
    int64_t m = 5;
    const int32_t iv[] = {-7, -1, 0, 4, 9};
    cj_val xi = make(ctx, CJ_I32, 1, &m, iv);
    int32_t ci[5];
    CHECK(cj_val_dtype(cj_clip(xi, -2, 5)) == CJ_I32);
    CHECK(cj_read(cj_clip(xi, -2, 5), ci, sizeof ci) == CJ_OK);
    for (int i = 0; i < 5; i++) CHECK_EQ_INT(ci[i], iv[i] < -2 ? -2 : iv[i] > 5 ? 5 : iv[i]);
    CHECK(cj_val_dtype(cj_clip(xi, 0.5, 2)) == CJ_F32);
    CHECK(cj_val_dtype(cj_clip(xi, -1e30, 1e30)) == CJ_I32); /* saturated bounds */
    CHECK(cj_read(cj_clip(xi, -1e30, 1e30), ci, sizeof ci) == CJ_OK);
    for (int i = 0; i < 5; i++) CHECK_EQ_INT(ci[i], iv[i]);
    CHECK(cj_val_dtype(cj_relu(xi)) == CJ_I32);
    CHECK(cj_val_dtype(cj_gelu(xi)) == CJ_F32);
    CHECK(cj_error(ctx) == CJ_OK);
    cj_ctx_free(ctx);
}

TEST(elementwise_clamp_api_promotes_and_broadcasts_scalars) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    const float xv[] = {-3, 0.5f, 7};
    int64_t n = 3;
    cj_val x = make(ctx, CJ_F32, 1, &n, xv);
    cj_val y = cj_clamp(cj_scalar_int(ctx, 0), x, cj_scalar(ctx, 1));
    CHECK(cj_val_dtype(y) == CJ_F32 && !cj_val_weak(y));
    float out[3];
    CHECK(cj_read(y, out, sizeof out) == CJ_OK);
    CHECK(out[0] == 0 && out[1] == 0.5f && out[2] == 1);
    /* a rank-0 x with array bounds takes the bounds' shape (jnp.clip) */
    cj_val z = cj_clamp(x, cj_scalar(ctx, 2), cj_scalar_typed(ctx, 5, CJ_F32));
    CHECK_EQ_INT(cj_val_rank(z), 1);
    CHECK(cj_read(z, out, sizeof out) == CJ_OK);
    for (int i = 0; i < 3; i++) CHECK_NEAR(out[i], xv[i] > 2 ? (xv[i] < 5 ? xv[i] : 5) : 2, 0, 0);
    CHECK(cj_error(ctx) == CJ_OK);
    cj_ctx_free(ctx);
}

/* Broadcasting of non-scalar shapes binds broadcast_in_dim (shape family). */
TEST(elementwise_api_broadcasts_numpy_style) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t dc[2] = {3, 1}, dr[2] = {1, 4};
    const int32_t col[] = {0, 10, 20};
    const int32_t row[] = {1, 2, 3, 4};
    cj_val y = cj_add(make(ctx, CJ_I32, 2, dc, col), make(ctx, CJ_I32, 2, dr, row));
    CHECK_MSG(!cj_is_error(y), "%s", cj_error_message(ctx));
    CHECK(cj_val_rank(y) == 2 && cj_val_dim(y, 0) == 3 && cj_val_dim(y, 1) == 4);
    int32_t out[12];
    CHECK(cj_read(y, out, sizeof out) == CJ_OK);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) CHECK_EQ_INT(out[i * 4 + j], col[i] + row[j]);
    /* a rank-1 operand against rank 2 aligns trailing axes */
    int64_t d4 = 4;
    cj_val above = cj_gt(make(ctx, CJ_I32, 1, &d4, row), cj_scalar_int(ctx, 2));
    cj_val w = cj_where(above, make(ctx, CJ_I32, 2, dc, col), cj_scalar_int(ctx, -1));
    CHECK(cj_read(w, out, sizeof out) == CJ_OK);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) CHECK_EQ_INT(out[i * 4 + j], row[j] > 2 ? col[i] : -1);
    cj_ctx_free(ctx);
}

/* ---- jit equals eager ---- */

static void chain_float(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    cj_val x = in[0], y = in[1];
    cj_val a = cj_add(cj_mul(cj_sin(x), cj_cos(y)), cj_div(cj_tanh(x), cj_add(cj_abs(y), cj_scalar(ctx, 1))));
    cj_val b = cj_where(cj_gt(x, y), cj_sqrt(cj_abs(a)), cj_neg(cj_exp(cj_min(a, cj_scalar(ctx, 3)))));
    out[0] = cj_clamp(cj_scalar(ctx, -2), cj_add(b, cj_gelu(a)), cj_scalar(ctx, 2));
    out[1] = cj_astype(cj_ge(b, cj_round(a)), CJ_I32);
}

static void chain_int(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    cj_val a = in[0], b = in[1];
    cj_val s = cj_rem(cj_mul(cj_add(a, b), cj_scalar_int(ctx, 3)), cj_scalar_int(ctx, 7));
    cj_val p = cj_pow(cj_sub(a, b), cj_scalar_int(ctx, 3));
    cj_val m = cj_xor(cj_and(s, p), cj_not(cj_max(a, b)));
    out[0] = cj_where(cj_lt(a, b), m, cj_sign(p));
    out[1] = cj_div(s, cj_add(cj_abs(b), cj_scalar_int(ctx, 1)));
}

static int same_bits(cj_val a, cj_val b) {
    if (cj_is_error(a) || cj_is_error(b)) return 0;
    if (cj_val_dtype(a) != cj_val_dtype(b) || cj_val_size(a) != cj_val_size(b)) return 0;
    size_t bytes = cj_dtype_size(cj_val_dtype(a)) * (size_t)cj_val_size(a);
    unsigned char *x = malloc(bytes + 1), *y = malloc(bytes + 1);
    int ok = cj_read(a, x, bytes) == CJ_OK && cj_read(b, y, bytes) == CJ_OK && memcmp(x, y, bytes) == 0;
    free(x);
    free(y);
    return ok;
}

TEST(elementwise_jit_matches_eager) {
    tu_alloc st = {0};
    cj_allocator al = tu_allocator(&st);
    cj_ctx *ctx = cj_ctx_new(&al);
    uint64_t rs = 5;
    const int64_t sizes[] = {0, 1, 9, 100003};
    for (int k = 0; k < 4; k++) {
        int64_t n = sizes[k];
        void *xf = random_data(CJ_F32, n, -4, 4, &rs), *yf = random_data(CJ_F32, n, -4, 4, &rs);
        void *xi = random_data(CJ_I32, n, -50, 50, &rs), *yi = random_data(CJ_I32, n, -50, 50, &rs);
        struct {
            cj_fn fn;
            cj_val in[2];
        } runs[] = {
            {chain_float, {make(ctx, CJ_F32, 1, &n, xf), make(ctx, CJ_F32, 1, &n, yf)}},
            {chain_int, {make(ctx, CJ_I32, 1, &n, xi), make(ctx, CJ_I32, 1, &n, yi)}},
        };
        for (int r = 0; r < 2; r++) {
            cj_func *f = cj_func_new(ctx, "chain", runs[r].fn, 2, 2, NULL);
            cj_func *jf = cj_jit(f, NULL);
            cj_val eager[2], jitted[2];
            CHECK(cj_call(f, runs[r].in, eager) == CJ_OK);
            CHECK_MSG(cj_call(jf, runs[r].in, jitted) == CJ_OK, "%s", cj_error_message(ctx));
            for (int o = 0; o < 2; o++)
                CHECK_MSG(same_bits(eager[o], jitted[o]), "run %d output %d n %lld", r, o, (long long)n);
        }
        free(xf);
        free(yf);
        free(xi);
        free(yi);
    }
    CHECK(cj_error(ctx) == CJ_OK);
    cj_ctx_free(ctx);
    CHECK_EQ_INT(st.live, 0);
}

static void fn_astype(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    (void)user;
    out[0] = cj_astype(cj_sin(in[0]), CJ_F64);
}

TEST(elementwise_jaxpr_shows_promotion_and_convert_params) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *f = cj_func_new(ctx, "f", fn_astype, 1, 1, NULL);
    int64_t d = 3;
    cj_spec s = cj_spec_make(CJ_I32, 1, &d);
    char *text = cj_make_jaxpr(f, 1, &s);
    CHECK_MSG(text, "%s", cj_error_message(ctx));
    const char *expect =
        "{ lambda ; a:i32[3]. let\n"
        "    b:f32[3] = convert_element_type[new_dtype=f32 weak_type=False] a\n"
        "    c:f32[3] = sin b\n"
        "    d:f64[3] = convert_element_type[new_dtype=f64 weak_type=False] c\n"
        "  in (d,) }\n";
    CHECK_MSG(strcmp(text, expect) == 0, "got:\n%s", text);
    cj_string_free(ctx, text);
    cj_ctx_free(ctx);
}
