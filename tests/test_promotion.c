/* test_promotion.c — JAX's type promotion with weak types, as the public
 * elementwise operations apply it (src/api/promote.c's lattice, used by
 * src/api/elementwise.c).
 *
 * The expected table is written out here from JAX's documented lattice
 * (bool → i* → i32 → i64 → f* → f32 → f64, i* and f* the weak types of
 * Python scalars, a weak result taking its kind's default dtype as with
 * x64 off); individual rows were checked against jax 0.10 (jnp on CPU):
 * f32·2.0 is f32, i32+f32 is f32, True+1 is a weak i32, i32+0.5 is a weak
 * f32, 2.0+3.0 stays weak, and `x * 2.0` traces to one mul with a literal.
 * Results are checked for values too, not only types. */
#include "harness.h"
#include "test_util.h"

/* The kinds of operand a user can make, in lattice order. */
enum { K_BOOL, K_IWEAK, K_I32, K_I64, K_FWEAK, K_F32, K_F64, K_COUNT };
static const char *const kind_names[K_COUNT] = {"bool", "weak int", "i32", "i64", "weak float", "f32", "f64"};

static cj_val make_kind(cj_ctx *ctx, int kind) {
    switch (kind) {
    case K_BOOL: return cj_scalar_typed(ctx, 1, CJ_BOOL);
    case K_IWEAK: return cj_scalar_int(ctx, 3);
    case K_I32: return cj_scalar_typed(ctx, 3, CJ_I32);
    case K_I64: return cj_scalar_typed(ctx, 3, CJ_I64);
    case K_FWEAK: return cj_scalar(ctx, 0.5);
    case K_F32: return cj_scalar_typed(ctx, 0.5, CJ_F32);
    default: return cj_scalar_typed(ctx, 0.5, CJ_F64);
    }
}

typedef struct {
    cj_dtype dtype;
    int weak;
} type;

#define B {CJ_BOOL, 0}
#define IW {CJ_I32, 1}
#define I32 {CJ_I32, 0}
#define I64 {CJ_I64, 0}
#define FW {CJ_F32, 1}
#define F32 {CJ_F32, 0}
#define F64 {CJ_F64, 0}
/* join[a][b]: the least upper bound in the lattice. */
static const type join[K_COUNT][K_COUNT] = {
    /*            bool  i*   i32  i64  f*   f32  f64 */
    /* bool */ {B, IW, I32, I64, FW, F32, F64},
    /* i*   */ {IW, IW, I32, I64, FW, F32, F64},
    /* i32  */ {I32, I32, I32, I64, FW, F32, F64},
    /* i64  */ {I64, I64, I64, I64, FW, F32, F64},
    /* f*   */ {FW, FW, FW, FW, FW, F32, F64},
    /* f32  */ {F32, F32, F32, F32, F32, F32, F64},
    /* f64  */ {F64, F64, F64, F64, F64, F64, F64},
};

TEST(promotion_table_of_every_pair) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    for (int a = 0; a < K_COUNT; a++)
        for (int b = 0; b < K_COUNT; b++) {
            /* max accepts every dtype and has no jnp special case */
            cj_val r = cj_max(make_kind(ctx, a), make_kind(ctx, b));
            type want = join[a][b];
            CHECK_MSG(cj_val_dtype(r) == want.dtype && cj_val_weak(r) == want.weak,
                      "%s with %s: got %s%s, want %s%s", kind_names[a], kind_names[b],
                      cj_dtype_name(cj_val_dtype(r)), cj_val_weak(r) ? " (weak)" : "",
                      cj_dtype_name(want.dtype), want.weak ? " (weak)" : "");
            /* the value is max of the operands' values, in the joined type */
            double va = a == K_BOOL ? 1 : a <= K_I64 ? 3 : 0.5;
            double vb = b == K_BOOL ? 1 : b <= K_I64 ? 3 : 0.5;
            CHECK_NEAR(cj_item_or_nan(r), va > vb ? va : vb, 0, 0);
        }
    CHECK(cj_error(ctx) == CJ_OK);
    cj_ctx_free(ctx);
}

TEST(promotion_named_cases_with_values) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t n = 3;
    const float xf[] = {1.5f, -2, 4};
    const int32_t xi[] = {3, -4, 7};
    cj_val f = cj_array(ctx, CJ_F32, 1, &n, xf), i = cj_array(ctx, CJ_I32, 1, &n, xi);
    float out[3];

    /* cj_scalar is a weak f32, cj_scalar_int a weak i32 */
    CHECK(cj_val_dtype(cj_scalar(ctx, 2.0)) == CJ_F32 && cj_val_weak(cj_scalar(ctx, 2.0)));
    CHECK(cj_val_dtype(cj_scalar_int(ctx, 2)) == CJ_I32 && cj_val_weak(cj_scalar_int(ctx, 2)));

    /* f32 * weak float stays f32 */
    cj_val y = cj_mul(f, cj_scalar(ctx, 2.0));
    CHECK(cj_val_dtype(y) == CJ_F32 && !cj_val_weak(y));
    CHECK(cj_read(y, out, sizeof out) == CJ_OK);
    for (int k = 0; k < 3; k++) CHECK_NEAR(out[k], xf[k] * 2, 0, 0);

    /* i32 + f32 → f32; i64 + f32 → f32 */
    y = cj_add(i, f);
    CHECK(cj_val_dtype(y) == CJ_F32 && !cj_val_weak(y));
    CHECK(cj_read(y, out, sizeof out) == CJ_OK);
    for (int k = 0; k < 3; k++) CHECK_NEAR(out[k], xi[k] + xf[k], 0, 0);
    CHECK(cj_val_dtype(cj_add(cj_astype(i, CJ_I64), f)) == CJ_F32);

    /* i32 + i64 → i64, exactly */
    cj_val big = cj_scalar_typed(ctx, 3e10, CJ_I64);
    y = cj_add(cj_scalar_typed(ctx, 5, CJ_I32), big);
    int64_t iv = 0;
    CHECK(cj_val_dtype(y) == CJ_I64 && cj_item_int(y, &iv) == CJ_OK && iv == 30000000005LL);

    /* bool + weak int → weak i32 */
    y = cj_add(cj_scalar_typed(ctx, 1, CJ_BOOL), cj_scalar_int(ctx, 1));
    CHECK(cj_val_dtype(y) == CJ_I32 && cj_val_weak(y));
    CHECK(cj_item_int(y, &iv) == CJ_OK && iv == 2);

    /* i32 + weak float → weak f32 */
    y = cj_add(i, cj_scalar(ctx, 0.5));
    CHECK(cj_val_dtype(y) == CJ_F32 && cj_val_weak(y));
    CHECK(cj_read(y, out, sizeof out) == CJ_OK);
    for (int k = 0; k < 3; k++) CHECK_NEAR(out[k], xi[k] + 0.5, 0, 0);

    /* f32 + f64 → f64 */
    y = cj_add(f, cj_scalar_typed(ctx, 0.1, CJ_F64));
    double od[3];
    CHECK(cj_val_dtype(y) == CJ_F64 && !cj_val_weak(y));
    CHECK(cj_read(y, od, sizeof od) == CJ_OK);
    for (int k = 0; k < 3; k++) CHECK_NEAR(od[k], (double)xf[k] + 0.1, 0, 0);

    /* weak + weak stays weak */
    y = cj_add(cj_scalar(ctx, 2), cj_scalar(ctx, 3));
    CHECK(cj_val_dtype(y) == CJ_F32 && cj_val_weak(y) && cj_item_or_nan(y) == 5);
    y = cj_mul(cj_scalar_int(ctx, 4), cj_scalar_int(ctx, 5));
    CHECK(cj_val_dtype(y) == CJ_I32 && cj_val_weak(y) && cj_item_or_nan(y) == 20);
    y = cj_sub(cj_scalar_int(ctx, 4), cj_scalar(ctx, 0.25));
    CHECK(cj_val_dtype(y) == CJ_F32 && cj_val_weak(y) && cj_item_or_nan(y) == 3.75);

    CHECK(cj_error(ctx) == CJ_OK);
    cj_ctx_free(ctx);
}

TEST(promotion_float_functions_and_true_division) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val i = cj_scalar_typed(ctx, 4, CJ_I32), w = cj_scalar_int(ctx, 4);
    struct {
        cj_val v;
        cj_dtype dtype;
        int weak;
        double value;
    } cases[] = {
        {cj_sqrt(i), CJ_F32, 0, 2},
        {cj_sqrt(w), CJ_F32, 1, 2},
        {cj_sqrt(cj_scalar_typed(ctx, 4, CJ_I64)), CJ_F64, 0, 2},
        {cj_sqrt(cj_scalar_typed(ctx, 1, CJ_BOOL)), CJ_F32, 0, 1},
        {cj_sqrt(cj_scalar_typed(ctx, 4, CJ_F64)), CJ_F64, 0, 2},
        {cj_div(i, cj_scalar_typed(ctx, 8, CJ_I32)), CJ_F32, 0, 0.5},
        {cj_div(w, cj_scalar_int(ctx, 8)), CJ_F32, 1, 0.5},
        {cj_div(cj_scalar_typed(ctx, 1, CJ_I64), cj_scalar_typed(ctx, 4, CJ_I64)), CJ_F64, 0, 0.25},
        {cj_div(cj_scalar_typed(ctx, 1, CJ_F64), w), CJ_F64, 0, 0.25},
        {cj_div(cj_scalar_typed(ctx, 1, CJ_F32), w), CJ_F32, 0, 0.25},
        {cj_atan2(i, cj_scalar_typed(ctx, 0, CJ_F64)), CJ_F64, 0, 1.5707963267948966},
        {cj_atan2(w, w), CJ_F32, 1, 0.78539816339744831},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        CHECK_MSG(cj_val_dtype(cases[k].v) == cases[k].dtype && cj_val_weak(cases[k].v) == cases[k].weak,
                  "case %zu: got %s weak %d", k, cj_dtype_name(cj_val_dtype(cases[k].v)),
                  cj_val_weak(cases[k].v));
        double tol = cases[k].dtype == CJ_F32 ? 1e-7 : 1e-15;
        CHECK_NEAR(cj_item_or_nan(cases[k].v), cases[k].value, tol, 0);
    }
    CHECK(cj_error(ctx) == CJ_OK);
    cj_ctx_free(ctx);
}

/* jnp.true_divide is promote_args_inexact: the lattice's join, then
 * to_inexact_dtype (i64 → f64, i32 and bool → f32, weakness kept). The
 * strong rows were printed by jax 0.10.2 with x64 on (i64/i64 is f64,
 * i32/i64 f64, bool/bool f32, i64/f32 f32); weak operands join as cjax's
 * weak types (a weak int is i32 and a weak float f32, as with x64 off). */
static const type true_div[K_COUNT][K_COUNT] = {
    /*            bool  i*   i32  i64  f*   f32  f64 */
    /* bool */ {F32, FW, F32, F64, FW, F32, F64},
    /* i*   */ {FW, FW, F32, F64, FW, F32, F64},
    /* i32  */ {F32, F32, F32, F64, FW, F32, F64},
    /* i64  */ {F64, F64, F64, F64, FW, F32, F64},
    /* f*   */ {FW, FW, FW, FW, FW, F32, F64},
    /* f32  */ {F32, F32, F32, F32, F32, F32, F64},
    /* f64  */ {F64, F64, F64, F64, F64, F64, F64},
};

TEST(true_division_of_int64_gives_f64_as_jax) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    for (int a = 0; a < K_COUNT; a++)
        for (int b = 0; b < K_COUNT; b++) {
            cj_val r = cj_div(make_kind(ctx, a), make_kind(ctx, b));
            type want = true_div[a][b];
            CHECK_MSG(cj_val_dtype(r) == want.dtype && cj_val_weak(r) == want.weak,
                      "%s / %s: got %s%s, want %s%s", kind_names[a], kind_names[b],
                      cj_dtype_name(cj_val_dtype(r)), cj_val_weak(r) ? " (weak)" : "",
                      cj_dtype_name(want.dtype), want.weak ? " (weak)" : "");
        }
    /* (2^40 + 1) / 1 keeps its last bit in f64 (f32 would round it away) */
    double big = 1099511627777.0;
    cj_val q = cj_div(cj_scalar_typed(ctx, big, CJ_I64), cj_scalar_typed(ctx, 1, CJ_I64));
    CHECK(cj_val_dtype(q) == CJ_F64 && cj_item_or_nan(q) == big);
    q = cj_div(cj_scalar_typed(ctx, big, CJ_I64), cj_scalar_int(ctx, 1));
    CHECK(cj_val_dtype(q) == CJ_F64 && cj_item_or_nan(q) == big);
    /* the other to_inexact users: float functions, arctan2, mean */
    cj_val v = cj_full(ctx, big, CJ_I64, 1, (const int64_t[]){2});
    CHECK(cj_val_dtype(cj_exp(cj_scalar_typed(ctx, 0, CJ_I64))) == CJ_F64);
    CHECK(cj_val_dtype(cj_atan2(cj_scalar_typed(ctx, 1, CJ_I64), cj_scalar_typed(ctx, 1, CJ_BOOL))) == CJ_F64);
    cj_val m = cj_mean(v, -1, NULL, 0);
    CHECK(cj_val_dtype(m) == CJ_F64 && cj_item_or_nan(m) == big);
    CHECK(cj_error(ctx) == CJ_OK);
    cj_ctx_free(ctx);
}

TEST(promotion_comparisons_where_and_clamp) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val i3 = cj_scalar_typed(ctx, 3, CJ_I32);
    /* comparisons compare in the promoted type and give bool */
    cj_val lt = cj_lt(i3, cj_scalar(ctx, 3.5));
    CHECK(cj_val_dtype(lt) == CJ_BOOL && cj_item_or_nan(lt) == 1);
    CHECK(cj_item_or_nan(cj_eq(i3, cj_scalar(ctx, 3.0))) == 1);
    CHECK(cj_item_or_nan(cj_eq(cj_scalar_typed(ctx, 1, CJ_BOOL), cj_scalar_int(ctx, 1))) == 1);
    /* a comparison of weak operands is weak, as in JAX */
    CHECK(cj_val_weak(cj_lt(cj_scalar(ctx, 1), cj_scalar(ctx, 2))));
    CHECK(cj_val_weak(lt)); /* i32 ⊔ f* is f*: both sides compare as weak f32 */
    CHECK(!cj_val_weak(cj_lt(cj_scalar_typed(ctx, 1, CJ_F32), cj_scalar(ctx, 2))));
    /* where promotes its cases (not the condition) */
    cj_val c = cj_scalar_typed(ctx, 0, CJ_BOOL);
    cj_val y = cj_where(c, i3, cj_scalar(ctx, 0.5));
    CHECK(cj_val_dtype(y) == CJ_F32 && cj_val_weak(y) && cj_item_or_nan(y) == 0.5);
    y = cj_where(c, cj_scalar_typed(ctx, 1, CJ_F32), cj_scalar_typed(ctx, 2, CJ_F64));
    CHECK(cj_val_dtype(y) == CJ_F64 && cj_item_or_nan(y) == 2);
    /* clamp promotes all three */
    y = cj_clamp(cj_scalar_int(ctx, 0), cj_scalar_typed(ctx, 7, CJ_F32), cj_scalar(ctx, 2.5));
    CHECK(cj_val_dtype(y) == CJ_F32 && !cj_val_weak(y) && cj_item_or_nan(y) == 2.5);
    y = cj_clamp(cj_scalar_int(ctx, 0), cj_scalar_typed(ctx, -7, CJ_I64), cj_scalar_int(ctx, 9));
    CHECK(cj_val_dtype(y) == CJ_I64 && cj_item_or_nan(y) == 0);
    CHECK(cj_error(ctx) == CJ_OK);
    cj_ctx_free(ctx);
}

static void fn_scale(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    out[0] = cj_mul(in[0], cj_scalar(ctx, 2.0));
}

static void fn_add_half(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    out[0] = cj_add(in[0], cj_scalar(ctx, 0.5));
}

/* As jax.make_jaxpr shows: a weak constant joins a strong operand of its
 * dtype without a convert; an int array meeting a weak float converts to
 * a weak f32. */
TEST(promotion_traced_ir_converts_only_what_changes_dtype) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t d = 4;
    cj_spec sf = cj_spec_make(CJ_F32, 1, &d), si = cj_spec_make(CJ_I32, 1, &d);
    char *t1 = cj_make_jaxpr(cj_func_new(ctx, "scale", fn_scale, 1, 1, NULL), 1, &sf);
    char *t2 = cj_make_jaxpr(cj_func_new(ctx, "add_half", fn_add_half, 1, 1, NULL), 1, &si);
    CHECK_MSG(t1 && t2, "%s", cj_error_message(ctx));
    const char *e1 =
        "{ lambda ; a:f32[4]. let\n"
        "    b:f32[4] = mul a 2:f32[]\n"
        "  in (b,) }\n";
    const char *e2 =
        "{ lambda ; a:i32[4]. let\n"
        "    b:f32[4] = convert_element_type[new_dtype=f32 weak_type=True] a\n"
        "    c:f32[4] = add b 0.5:f32[]\n"
        "  in (c,) }\n";
    CHECK_MSG(strcmp(t1, e1) == 0, "got:\n%s", t1);
    CHECK_MSG(strcmp(t2, e2) == 0, "got:\n%s", t2);
    cj_string_free(ctx, t1);
    cj_string_free(ctx, t2);
    cj_ctx_free(ctx);
}
