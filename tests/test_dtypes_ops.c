/* test_dtypes_ops.c — lax's elementwise primitives on the dtypes added after
 * f64 (i8, i16, u8, u16, u32, u64, f16, bf16) against JAX on CPU, eagerly
 * and under jit (interpreter and generated C), and the pairs lax refuses.
 *
 * Fixtures: tests/data/dtype_ops/ (tests/data/gen_dtype_ops_fixtures.py):
 * operands a and b hold every pair of boundary values, then seeded random
 * ones. Integers and the exactly rounded float operations (add, sub, mul,
 * div, rem, sqrt, comparisons, min/max, rounding, integer_pow's multiplies)
 * must match bit for bit; transcendental functions within one unit in the
 * last place of f16/bf16 (cjax's f32 kernels and XLA's differ by an f32 ulp
 * or so, which moves a rounding now and then), expm1 within two: XLA's f16
 * expm1 is up to 2 ulps from the correctly rounded value, where cjax's (in
 * f32, then rounded) is within one. */
#include <math.h>
#include <stdlib.h>

#include "api/api.h"
#include "harness.h"
#include "runtime/runtime.h"
#include "test_util.h"

typedef struct op_case {
    const char *name;
    prim_id prim;
    int arity; /* 1, 2; 0: select_n, 3: clamp (built from a and b) */
    bool ints, floats;
    int ulps; /* f16/bf16: units in the last place allowed (0: bit for bit) */
} op_case;

static const op_case ops[] = {
    {"add", PRIM_ADD, 2, 1, 1, 0},       {"sub", PRIM_SUB, 2, 1, 1, 0},
    {"mul", PRIM_MUL, 2, 1, 1, 0},       {"div", PRIM_DIV, 2, 1, 1, 0},
    {"rem", PRIM_REM, 2, 1, 1, 0},       {"max", PRIM_MAX, 2, 1, 1, 0},
    {"min", PRIM_MIN, 2, 1, 1, 0},       {"neg", PRIM_NEG, 1, 1, 1, 0},
    {"abs", PRIM_ABS, 1, 1, 1, 0},       {"sign", PRIM_SIGN, 1, 1, 1, 0},
    {"eq", PRIM_EQ, 2, 1, 1, 0},         {"ne", PRIM_NE, 2, 1, 1, 0},
    {"lt", PRIM_LT, 2, 1, 1, 0},         {"le", PRIM_LE, 2, 1, 1, 0},
    {"gt", PRIM_GT, 2, 1, 1, 0},         {"ge", PRIM_GE, 2, 1, 1, 0},
    {"and", PRIM_AND, 2, 1, 0, 0},       {"or", PRIM_OR, 2, 1, 0, 0},
    {"xor", PRIM_XOR, 2, 1, 0, 0},       {"not", PRIM_NOT, 1, 1, 0, 0},
    {"select", PRIM_SELECT, 0, 1, 1, 0}, {"clamp", PRIM_CLAMP, 3, 1, 1, 0},
    {"integer_pow3", PRIM_INTEGER_POW, 1, 1, 1, 0},
    {"pow", PRIM_POW, 2, 0, 1, 1},       {"floor", PRIM_FLOOR, 1, 0, 1, 0},
    {"ceil", PRIM_CEIL, 1, 0, 1, 0},     {"round", PRIM_ROUND, 1, 0, 1, 0},
    {"sqrt", PRIM_SQRT, 1, 0, 1, 0},     {"rsqrt", PRIM_RSQRT, 1, 0, 1, 1},
    {"exp", PRIM_EXP, 1, 0, 1, 1},       {"log", PRIM_LOG, 1, 0, 1, 1},
    {"log1p", PRIM_LOG1P, 1, 0, 1, 1},   {"expm1", PRIM_EXPM1, 1, 0, 1, 2},
    {"sin", PRIM_SIN, 1, 0, 1, 1},       {"cos", PRIM_COS, 1, 0, 1, 1},
    {"tanh", PRIM_TANH, 1, 0, 1, 1},     {"logistic", PRIM_LOGISTIC, 1, 0, 1, 1},
    {"atan2", PRIM_ATAN2, 2, 0, 1, 1},   {"is_finite", PRIM_IS_FINITE, 1, 0, 1, 0},
    {"erf", PRIM_ERF, 1, 0, 1, 1},
};
#define N_OPS ((int)(sizeof ops / sizeof ops[0]))

static const cj_dtype ext[] = {CJ_I8, CJ_I16, CJ_U8, CJ_U16, CJ_U32, CJ_U64, CJ_F16, CJ_BF16};

static bool refused(cj_dtype dt, const op_case *c) { return c->prim == PRIM_ABS && rt_is_unsigned(dt); }

static bool applies(cj_dtype dt, const op_case *c) { return rt_is_float(dt) ? c->floats : c->ints; }

static cj_val load(cj_ctx *ctx, const char *name, cj_dtype dt) {
    char path[512];
    snprintf(path, sizeof path, "%s/dtype_ops/%s.npy", CJAX_TEST_DATA_DIR, name);
    cj_val v = cj_load_npy(ctx, path);
    if (cj_is_error(v) || !rt_is_narrow_float(dt)) return v;
    int64_t n = cj_val_size(v);
    uint16_t *bits = malloc(sizeof(uint16_t) * (size_t)(n ? n : 1));
    cj_read(v, bits, sizeof(uint16_t) * (size_t)n);
    cj_val r = cj_array(ctx, dt, 1, &n, bits);
    free(bits);
    return r;
}

static cj_val bind1(prim_id p, int n, cj_val *in, int64_t count) {
    prim_params q = prim_params_zero();
    q.count = count;
    return core_bind(in[0].ctx, p, &q, n, in);
}

/* The case on a, b (and the predicate i % 3 == 1), through the primitives. */
static cj_val apply(const op_case *c, cj_val a, cj_val b, cj_val pred) {
    cj_val ab[2] = {a, b};
    switch (c->arity) {
    case 0: {
        cj_val s[3] = {pred, b, a}; /* lax.select(pred, a, b) = select_n(pred, b, a) */
        return bind1(PRIM_SELECT, 3, s, 0);
    }
    case 3: {
        cj_val t[3] = {bind1(PRIM_MIN, 2, ab, 0), bind1(PRIM_ADD, 2, ab, 0), bind1(PRIM_MAX, 2, ab, 0)};
        return bind1(PRIM_CLAMP, 3, t, 0);
    }
    case 1: return bind1(c->prim, 1, &a, c->prim == PRIM_INTEGER_POW ? 3 : 0);
    default: return bind1(c->prim, 2, ab, 0);
    }
}

/* Ordered position of a narrow float's bits (so neighbours differ by 1). */
static int32_t ordered16(uint16_t h) { return h & 0x8000u ? -(int32_t)(h & 0x7fffu) : (int32_t)h; }

static bool narrow_nan(cj_dtype dt, uint16_t h) {
    return dt == CJ_BF16 ? (h & 0x7fffu) > 0x7f80u : (h & 0x7fffu) > 0x7c00u;
}

/* A bf16 subnormal: f32's too, once widened. */
static bool bf16_subnormal(uint16_t h) { return (h & 0x7f80u) == 0 && (h & 0x7fu) != 0; }

static int n_flushed;

/* got vs want (bytes of dtype dt, n elements); the first few differences
 * reported. ab: the bf16 operands' bits (NULL for other dtypes). XLA's CPU
 * backend computes with subnormals flushed to zero (FTZ/DAZ), and a bf16
 * subnormal is an f32 subnormal once widened: where an operand or cjax's
 * result is one, XLA's answer is that of zero, and cjax (IEEE) differs
 * (the difference docs/API.md names); those elements are counted, not
 * compared. */
static int compare(const char *what, cj_dtype dt, int ulps, const unsigned char *got, const unsigned char *want,
                   int64_t n, const uint16_t *const ab[2]) {
    size_t es = cj_dtype_size(dt);
    int bad = 0;
    for (int64_t i = 0; i < n; i++) {
        const unsigned char *g = got + (size_t)i * es, *w = want + (size_t)i * es;
        if (!memcmp(g, w, es)) continue;
        if (ab[0]) {
            uint16_t gh = 0;
            if (dt == CJ_BF16) memcpy(&gh, g, 2);
            if (bf16_subnormal(ab[0][i]) || bf16_subnormal(ab[1][i]) || bf16_subnormal(gh)) {
                n_flushed++;
                continue;
            }
        }
        if (rt_is_narrow_float(dt)) {
            uint16_t gh, wh;
            memcpy(&gh, g, 2);
            memcpy(&wh, w, 2);
            if (narrow_nan(dt, gh) && narrow_nan(dt, wh)) continue;
            if (ulps && !narrow_nan(dt, gh) && !narrow_nan(dt, wh) && abs(ordered16(gh) - ordered16(wh)) <= ulps)
                continue;
        }
        if (bad++ < 3) {
            unsigned long long gb = 0, wb = 0;
            memcpy(&gb, g, es);
            memcpy(&wb, w, es);
            th_fail(__FILE__, __LINE__, "%s element %lld: %#llx, JAX %#llx", what, (long long)i, gb, wb);
        }
    }
    return bad;
}

static int check_against(cj_val y, const char *what, cj_dtype a_dt, const op_case *c, cj_val want,
                         const cj_val ab[2]) {
    if (cj_is_error(y) || cj_is_error(want)) {
        th_fail(__FILE__, __LINE__, "%s: %s", what, cj_error_message(y.ctx));
        return 1;
    }
    cj_dtype dt = cj_val_dtype(want);
    int64_t n = cj_val_size(want);
    if (cj_val_dtype(y) != dt || cj_val_size(y) != n) {
        th_fail(__FILE__, __LINE__, "%s: dtype %s size %lld, JAX %s %lld", what, cj_dtype_name(cj_val_dtype(y)),
                (long long)cj_val_size(y), cj_dtype_name(dt), (long long)n);
        return 1;
    }
    size_t bytes = cj_dtype_size(dt) * (size_t)n;
    unsigned char *g = malloc(bytes + 1), *w = malloc(bytes + 1);
    cj_read(y, g, bytes);
    cj_read(want, w, bytes);
    uint16_t *abits[2] = {NULL, NULL};
    if (a_dt == CJ_BF16)
        for (int j = 0; j < 2; j++) {
            abits[j] = malloc(sizeof(uint16_t) * (size_t)(n ? n : 1));
            cj_read(ab[j], abits[j], sizeof(uint16_t) * (size_t)n);
        }
    const uint16_t *const abc[2] = {abits[0], abits[1]};
    int bad = compare(what, dt, rt_is_narrow_float(a_dt) ? c->ulps : 0, g, w, n, abc);
    free(abits[0]);
    free(abits[1]);
    free(g);
    free(w);
    return bad;
}

/* A fixture's result dtype: bool for comparisons and is_finite. */
static cj_dtype result_dtype(const op_case *c, cj_dtype dt) {
    switch (c->prim) {
    case PRIM_EQ: case PRIM_NE: case PRIM_LT: case PRIM_LE: case PRIM_GT: case PRIM_GE: case PRIM_IS_FINITE:
        return CJ_BOOL;
    default:
        return dt;
    }
}

TEST(dtypes_ops_eager_against_jax) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int checked = 0, failed = 0;
    for (size_t d = 0; d < sizeof ext / sizeof ext[0]; d++) {
        cj_dtype dt = ext[d];
        char name[64];
        snprintf(name, sizeof name, "%s_a", cj_dtype_name(dt));
        cj_val a = load(ctx, name, dt);
        snprintf(name, sizeof name, "%s_b", cj_dtype_name(dt));
        cj_val b = load(ctx, name, dt);
        CHECK_MSG(!cj_is_error(a) && !cj_is_error(b), "%s", cj_error_message(ctx));
        int64_t n = cj_val_size(a);
        uint8_t *p = malloc((size_t)n);
        for (int64_t i = 0; i < n; i++) p[i] = i % 3 == 1;
        cj_val pred = cj_array(ctx, CJ_BOOL, 1, &n, p);
        free(p);
        for (int k = 0; k < N_OPS; k++) {
            const op_case *c = &ops[k];
            if (!applies(dt, c)) continue;
            char what[64];
            snprintf(what, sizeof what, "%s %s", c->name, cj_dtype_name(dt));
            cj_val y = apply(c, a, b, pred);
            if (refused(dt, c)) {
                CHECK_MSG(cj_is_error(y) && cj_error(ctx) == CJ_ERR_DTYPE, "%s: accepted, lax refuses it", what);
                cj_error_clear(ctx);
                continue;
            }
            snprintf(name, sizeof name, "%s_%s", cj_dtype_name(dt), c->name);
            cj_val want = load(ctx, name, result_dtype(c, dt));
            failed += check_against(y, what, dt, c, want, (cj_val[2]){a, b}) != 0; /* all cases reported, then one CHECK */
            checked++;
        }
    }
    CHECK_MSG(failed == 0, "%d of %d cases differ from JAX", failed, checked);
    CHECK(n_flushed > 0 && n_flushed < 200); /* the bf16 fixtures hold subnormals on purpose */
    CHECK(checked > 200);
    CHECK(cj_error(ctx) == CJ_OK);
    cj_ctx_free(ctx);
}

/* Every case of one dtype as outputs of one function, for jit. */
typedef struct jit_cases {
    cj_dtype dt;
    int idx[N_OPS];
    int n;
} jit_cases;

static void all_cases(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    const jit_cases *jc = user;
    for (int k = 0; k < jc->n; k++) out[k] = apply(&ops[jc->idx[k]], in[0], in[1], in[2]);
}

TEST(dtypes_ops_jit_matches_eager) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    for (size_t d = 0; d < sizeof ext / sizeof ext[0]; d++) {
        jit_cases jc = {ext[d], {0}, 0};
        for (int k = 0; k < N_OPS; k++)
            if (applies(jc.dt, &ops[k]) && !refused(jc.dt, &ops[k])) jc.idx[jc.n++] = k;
        char name[64];
        snprintf(name, sizeof name, "%s_a", cj_dtype_name(jc.dt));
        cj_val in[3];
        in[0] = load(ctx, name, jc.dt);
        snprintf(name, sizeof name, "%s_b", cj_dtype_name(jc.dt));
        in[1] = load(ctx, name, jc.dt);
        int64_t n = cj_val_size(in[0]);
        uint8_t *p = malloc((size_t)n);
        for (int64_t i = 0; i < n; i++) p[i] = i % 3 == 1;
        in[2] = cj_array(ctx, CJ_BOOL, 1, &n, p);
        free(p);
        cj_func *f = cj_func_new(ctx, "all_cases", all_cases, 3, jc.n, &jc);
        cj_jit_opts interp = {0, NULL, 0, NULL, CJ_BACKEND_INTERP}, cc = {0, NULL, 0, NULL, CJ_BACKEND_CC};
        cj_func *ji = cj_jit(f, &interp), *jcc = cj_jit(f, &cc);
        cj_val ye[N_OPS], yi[N_OPS], yc[N_OPS];
        CHECK(cj_call(f, in, ye) == CJ_OK);
        CHECK(cj_call(ji, in, yi) == CJ_OK);
        CHECK(cj_call(jcc, in, yc) == CJ_OK);
        CHECK_MSG(cj_error(ctx) == CJ_OK, "%s: %s", cj_dtype_name(jc.dt), cj_error_message(ctx));
        for (int k = 0; k < jc.n && cj_error(ctx) == CJ_OK; k++) {
            CHECK_MSG(tu_same_bits(ye[k], yi[k]), "%s %s: interpreter differs from eager", ops[jc.idx[k]].name,
                      cj_dtype_name(jc.dt));
            CHECK_MSG(tu_same_bits(ye[k], yc[k]), "%s %s: generated C differs from eager", ops[jc.idx[k]].name,
                      cj_dtype_name(jc.dt));
        }
    }
    cj_ctx_free(ctx);
}

/* The public operations on the new dtypes: promotion first (a weak C
 * constant takes the array's dtype), broadcasting, then the primitive. */
TEST(dtypes_ops_public_operations_promote) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t n = 4;
    const uint8_t u[4] = {250, 3, 0, 128};
    const int8_t s[4] = {-128, 127, -1, 5};
    cj_val x = cj_array(ctx, CJ_U8, 1, &n, u), y = cj_array(ctx, CJ_I8, 1, &n, s);
    cj_val a = cj_add(x, cj_scalar_int(ctx, 10)); /* u8 + weak int: u8, wrapping */
    uint8_t ga[4];
    CHECK(cj_val_dtype(a) == CJ_U8 && !cj_val_weak(a) && cj_read(a, ga, sizeof ga) == CJ_OK);
    CHECK(ga[0] == 4 && ga[1] == 13 && ga[2] == 10 && ga[3] == 138);
    cj_val b = cj_add(x, y); /* u8 + i8: i16 */
    int16_t gb[4];
    CHECK(cj_val_dtype(b) == CJ_I16 && cj_read(b, gb, sizeof gb) == CJ_OK);
    CHECK(gb[0] == 122 && gb[1] == 130 && gb[2] == -1 && gb[3] == 133);
    cj_val h = cj_mul(cj_astype(x, CJ_BF16), cj_scalar(ctx, 0.5)); /* bf16 * weak float: bf16 */
    float gh[4];
    CHECK(cj_val_dtype(h) == CJ_BF16 && cj_read_as(h, CJ_F32, gh, sizeof gh) == CJ_OK);
    CHECK(gh[0] == 125 && gh[1] == 1.5f && gh[2] == 0 && gh[3] == 64);
    cj_val m = cj_max(cj_astype(y, CJ_F16), cj_astype(x, CJ_BF16)); /* f16 ⊔ bf16: f32 */
    float gm[4];
    CHECK(cj_val_dtype(m) == CJ_F32 && cj_read(m, gm, sizeof gm) == CJ_OK);
    CHECK(gm[0] == 250 && gm[1] == 127 && gm[2] == 0 && gm[3] == 128);
    CHECK_MSG(cj_error(ctx) == CJ_OK, "%s", cj_error_message(ctx));
    /* broadcasting: u8[2,4] + u8[4] */
    int64_t d2[2] = {2, 4};
    cj_val big = cj_add(cj_ones(ctx, CJ_U8, 2, d2), x);
    uint8_t gg[8];
    CHECK(cj_val_dtype(big) == CJ_U8 && cj_read(big, gg, sizeof gg) == CJ_OK);
    CHECK(gg[0] == 251 && gg[4] == 251 && gg[5] == 4 && gg[7] == 129);
    CHECK_MSG(cj_error(ctx) == CJ_OK, "%s", cj_error_message(ctx));
    cj_ctx_free(ctx);
}

/* ---- data movement ----
 * A chain of every data-movement primitive on x of a new dtype against the
 * same chain on x widened to i64 or f32 (exact: no NaNs in x), narrowed
 * back; eager, then under jit on both backends, where the moves fuse into
 * loops over index maps of the element's C type. */
static cj_val moves(cj_val x) {
    cj_ctx *ctx = x.ctx;
    int64_t s3[3] = {2, 3, 4}, s2[2] = {4, 3}, st[2] = {0, 1}, lim[2] = {3, 4}, lo[2] = {1, 0}, hi[2] = {0, 2},
            in[2] = {1, 0}, ax = 1, sz[2] = {2, 2};
    cj_val b = cj_broadcast_to(x, 3, s3);                    /* [3,4] → [2,3,4] */
    cj_val r = cj_reshape(cj_transpose(x, NULL), 2, s2);     /* [4,3] */
    cj_val sl = cj_slice(cj_transpose(r, NULL), st, lim, NULL); /* [3,3] */
    cj_val pv = cj_astype(cj_scalar_int(ctx, 7), cj_val_dtype(x));
    cj_val p = cj_pad(sl, pv, lo, hi, in);                   /* [6,5] */
    cj_val parts[2] = {cj_rev(p, 1, &ax), cj_slice(cj_reshape(b, 2, (int64_t[]){6, 4}), st, (int64_t[]){6, 4}, NULL)};
    cj_val c = cj_concatenate(2, parts, 1);                  /* [6,8] */
    cj_val i1 = cj_scalar_int(ctx, 1), st2[2] = {i1, i1};
    cj_val d = cj_dynamic_slice(c, st2, sz);                 /* [2,2] */
    cj_val u = cj_dynamic_update_slice(c, d, (cj_val[2]){cj_scalar_int(ctx, 4), cj_scalar_int(ctx, 7)});
    return cj_squeeze(cj_expand_dims(u, 0), 1, (int64_t[]){0});
}

static void moves_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = moves(in[0]);
}

TEST(dtypes_ops_data_movement_every_dtype) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t st = 5;
    for (size_t d = 0; d < sizeof ext / sizeof ext[0]; d++) {
        cj_dtype dt = ext[d];
        uint64_t raw[12];
        for (int i = 0; i < 12; i++) {
            raw[i] = th_rand_u64(&st);
            if (rt_is_narrow_float(dt)) raw[i] &= 0xbfffu; /* exponent below all ones: no NaN or inf */
        }
        /* 12 elements of dt from the random bytes (little-endian) */
        unsigned char bytes[12 * 8];
        size_t es = cj_dtype_size(dt);
        for (int i = 0; i < 12; i++) memcpy(bytes + (size_t)i * es, &raw[i], es);
        int64_t shp[2] = {3, 4};
        cj_val x = cj_array(ctx, dt, 2, shp, bytes);
        cj_dtype wide = rt_is_float(dt) ? CJ_F32 : CJ_I64;
        cj_val want = cj_astype(moves(cj_astype(x, wide)), dt);
        cj_val got = moves(x);
        CHECK_MSG(cj_error(ctx) == CJ_OK, "%s: %s", cj_dtype_name(dt), cj_error_message(ctx));
        CHECK_MSG(cj_val_rank(got) == 2 && cj_val_dim(got, 0) == 6 && cj_val_dim(got, 1) == 8, "%s",
                  cj_dtype_name(dt));
        CHECK_MSG(tu_same_bits(got, want), "%s: eager moves differ from the widened ones", cj_dtype_name(dt));
        cj_func *f = cj_func_new(ctx, "moves", moves_fn, 1, 1, NULL);
        cj_jit_opts interp = {0, NULL, 0, NULL, CJ_BACKEND_INTERP}, cc = {0, NULL, 0, NULL, CJ_BACKEND_CC};
        cj_val yi, yc;
        CHECK(cj_call(cj_jit(f, &interp), &x, &yi) == CJ_OK);
        CHECK(cj_call(cj_jit(f, &cc), &x, &yc) == CJ_OK);
        CHECK_MSG(tu_same_bits(yi, want) && tu_same_bits(yc, want), "%s: jit differs", cj_dtype_name(dt));
    }
    cj_ctx_free(ctx);
}
