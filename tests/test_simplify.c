/* test_simplify.c — the simplify pass and its parts, CSE and DCE.
 *
 * Programs come from tracing small C functions with the public API (as jit
 * does) or from the IR builder, for shapes the API never emits (a reshape to
 * the same shape, a weakly typed input). Every test runs a pass, reads the
 * printed IR for the equations it expects gone or kept, verifies the IR, and
 * runs the original and the simplified program on the same random inputs —
 * signed zeros, infinities and NaNs among them — requiring bit-identical
 * outputs: simplification must never change what a program computes. */
#include <stdlib.h>

#include "compiler/passes.h"
#include "core/func.h"
#include "harness.h"
#include "test_util.h"

/* ---- helpers ---- */

/* Traces fn for inputs of the given types into a new IR. */
static ir_func *trace(cj_ctx *ctx, cj_fn fn, int n_in, int n_out, const rt_aval *avals) {
    cj_func *f = cj_func_new(ctx, "f", fn, n_in, n_out, NULL);
    return f ? func_trace_to_ir(f, avals, NULL, "test_simplify") : NULL;
}

static rt_aval f32v(int64_t n) { return rt_aval_make(CJ_F32, 1, &n); }

/* The IR as text (malloc'd). */
static char *ir_text(cj_ctx *ctx, const ir_func *f) {
    strbuf sb;
    sb_init(&sb, ctx->mem);
    ir_print(f, &sb);
    char *s = strdup(sb.data && !sb.failed ? sb.data : "(print failed)");
    sb_free(&sb);
    return s;
}

static int count_of(const char *hay, const char *needle) {
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

/* A copy of f with its own variable numbering (constants shared). */
static ir_func *clone_ir(const ir_func *f) {
    ir_func *c = ir_new(f->mem);
    int *map = calloc((size_t)f->n_vars + 1, sizeof(int));
    int ops[64];
    for (int i = 0; i < f->n_in; i++) map[f->in[i]] = ir_add_input(c, &f->vars[f->in[i]]);
    for (int i = 0; i < f->n_consts; i++) map[f->consts[i].var] = ir_add_const(c, f->consts[i].val);
    for (int k = 0; k < f->n_eqns; k++) {
        const ir_eqn *e = &f->eqns[k];
        for (int i = 0; i < e->n_in; i++) ops[i] = map[ir_eqn_inputs(f, e)[i]];
        map[e->out] = ir_add_eqn(c, e->prim, &e->params, e->n_in, ops, &f->vars[e->out]);
    }
    for (int i = 0; i < f->n_out; i++) ir_add_output(c, map[f->out[i]]);
    free(map);
    return c;
}

/* Random data with the awkward values mixed in. */
static void fill_random(rt_array *a, uint64_t *seed) {
    static const double special[] = {0.0, -0.0, 1.0, -1.0, INFINITY, -INFINITY, NAN};
    cj_dtype dt = a->aval.dtype;
    for (int64_t i = 0; i < a->size; i++) {
        uint64_t r = th_rand_u64(seed);
        if (dt == CJ_BOOL) ((uint8_t *)a->data)[i] = r & 1;
        else if (dt == CJ_I32) ((int32_t *)a->data)[i] = (int32_t)(r >> 32);
        else if (dt == CJ_I64) ((int64_t *)a->data)[i] = (int64_t)r;
        else if (r % 4 == 0) rt_set_f64(dt, a->data, i, special[(r >> 8) % 7]);
        else rt_set_f64(dt, a->data, i, th_rand_uniform(seed, -3, 3));
    }
}

/* Runs both programs on the same random inputs; 1 when every output has
 * the same type and the same bytes. */
static int same_results(cj_ctx *ctx, const ir_func *a, const ir_func *b, uint64_t seed) {
    rt_array *in[16] = {0}, *out_a[16] = {0}, *out_b[16] = {0};
    int ok = a->n_in == b->n_in && a->n_out == b->n_out && a->n_in <= 16 && a->n_out <= 16;
    for (int i = 0; ok && i < a->n_in; i++) {
        ok = rt_aval_equal(&a->vars[a->in[i]], &b->vars[b->in[i]]);
        in[i] = rt_array_new(ctx->mem, &a->vars[a->in[i]]);
        if (in[i]) fill_random(in[i], &seed);
        ok = ok && in[i];
    }
    ok = ok && ir_eval_arrays(ctx, a, in, out_a) == 0 && ir_eval_arrays(ctx, b, in, out_b) == 0;
    for (int i = 0; ok && i < a->n_out; i++)
        ok = rt_aval_equal(&out_a[i]->aval, &out_b[i]->aval) &&
             memcmp(out_a[i]->data, out_b[i]->data, rt_aval_nbytes(&out_a[i]->aval)) == 0;
    for (int i = 0; i < 16; i++) {
        rt_array_unref(in[i]);
        rt_array_unref(out_a[i]);
        rt_array_unref(out_b[i]);
    }
    return ok;
}

/* Runs `pass` on *ir and checks the result is a valid IR computing what the
 * original did. Returns the printed result (malloc'd) or NULL. */
typedef int (*pass_fn)(cj_ctx *ctx, ir_func **ir);
static char *run_pass(cj_ctx *ctx, pass_fn pass, ir_func **ir) {
    ir_func *orig = clone_ir(*ir);
    int ok = pass(ctx, ir) == 0 && ir_verify(ctx, *ir) == 0 && same_results(ctx, orig, *ir, 12345) &&
             same_results(ctx, orig, *ir, 777);
    if (!ok) {
        char *t = ir_text(ctx, *ir);
        fprintf(stderr, "simplify test: %s\n%s", cj_error_message(ctx), t);
        free(t);
    }
    ir_free(orig);
    return ok ? ir_text(ctx, *ir) : NULL;
}

/* Builder helpers: the output type comes from the primitive's shape rule. */
static int eqn(cj_ctx *ctx, ir_func *f, prim_id prim, const prim_params *p, int n, const int *in) {
    rt_aval avals[8], out;
    for (int i = 0; i < n; i++) avals[i] = f->vars[in[i]];
    if (core_abstract_eval(ctx, prim, p, n, avals, &out) != 0) return -1;
    return ir_add_eqn(f, prim, p, n, in, &out);
}

static int unary(cj_ctx *ctx, ir_func *f, prim_id prim, int x) {
    prim_params p = prim_params_zero();
    return eqn(ctx, f, prim, &p, 1, &x);
}

static int binary(cj_ctx *ctx, ir_func *f, prim_id prim, int a, int b) {
    prim_params p = prim_params_zero();
    int in[2] = {a, b};
    return eqn(ctx, f, prim, &p, 2, in);
}

/* A constant of `n` elements (rank 0 when n is 0) all equal to v. */
static int constant(cj_ctx *ctx, ir_func *f, cj_dtype dt, int weak, int64_t n, double v) {
    rt_aval a = rt_aval_make(dt, n ? 1 : 0, &n);
    a.weak = weak;
    rt_array *arr = rt_array_new(ctx->mem, &a);
    if (!arr) return -1;
    for (int64_t i = 0; i < rt_aval_size(&a); i++) rt_set_f64(dt, arr->data, i, v);
    int var = ir_add_const(f, arr);
    rt_array_unref(arr);
    return var;
}

static bool is_input(const ir_func *f, int var) {
    for (int i = 0; i < f->n_in; i++)
        if (f->in[i] == var) return true;
    return false;
}

static const rt_array *const_array(const ir_func *f, int var) {
    for (int i = 0; i < f->n_consts; i++)
        if (f->consts[i].var == var) return f->consts[i].val;
    return NULL;
}

/* ---- dead code ---- */

static void fn_dead_code(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    cj_val unused = cj_exp(cj_mul(cj_cos(in[0]), cj_scalar(ctx, 3.0)));
    (void)unused;
    out[0] = cj_sin(in[1]);
}

TEST(simplify_dce_drops_dead_code_keeps_inputs) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    rt_aval avals[2] = {f32v(5), f32v(3)};
    ir_func *ir = trace(ctx, fn_dead_code, 2, 1, avals);
    CHECK(ir);
    CHECK_EQ_INT(ir->n_eqns, 4);
    char *t = run_pass(ctx, pass_dce, &ir);
    CHECK(t);
    CHECK_MSG(!strstr(t, "cos") && !strstr(t, "exp") && !strstr(t, "mul") && strstr(t, "sin"), "%s", t);
    CHECK_EQ_INT(ir->n_eqns, 1);
    CHECK_EQ_INT(ir->n_consts, 0); /* the 3.0 only fed dead code */
    /* the unused input stays: the calling convention does not change */
    CHECK_STR_CONTAINS(t, "{ lambda ; a:f32[5] b:f32[3]. let");
    free(t);
    ir_free(ir);
    cj_ctx_free(ctx);
}

TEST(simplify_dce_leaves_live_ir_alone) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    rt_aval avals[2] = {f32v(5), f32v(3)};
    ir_func *ir = trace(ctx, fn_dead_code, 2, 1, avals);
    CHECK(ir);
    CHECK(pass_dce(ctx, &ir) == 0);
    ir_func *before = ir;
    char *t1 = ir_text(ctx, ir);
    CHECK(pass_dce(ctx, &ir) == 0 && pass_cse(ctx, &ir) == 0 && pass_simplify(ctx, &ir) == 0);
    char *t2 = ir_text(ctx, ir);
    CHECK(ir == before); /* nothing to do: the same IR, not a copy */
    CHECK_MSG(strcmp(t1, t2) == 0, "%s\nvs\n%s", t1, t2);
    free(t1);
    free(t2);
    ir_free(ir);
    cj_ctx_free(ctx);
}

/* ---- common subexpressions ---- */

static void fn_repeats(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    cj_val x = in[0];
    cj_val s1 = cj_sin(x), s2 = cj_sin(x);
    cj_val c1 = cj_cos(s1), c2 = cj_cos(s2); /* equal once s1 and s2 are */
    cj_val a = cj_mul(c1, cj_scalar(ctx, 2.0)), b = cj_mul(c2, cj_scalar(ctx, 2.0)); /* two 2.0 constants */
    cj_val e1 = cj_exp(x);
    cj_val p = cj_add(a, b), q = cj_sub(a, b); /* different primitives: both stay */
    out[0] = cj_add(cj_mul(p, q), e1);
    out[1] = cj_sum(s2, 1, (const int64_t[]){0}, 0);
}

TEST(simplify_cse_computes_duplicates_once) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    rt_aval av = f32v(7);
    ir_func *ir = trace(ctx, fn_repeats, 1, 2, &av);
    CHECK(ir);
    char *before = ir_text(ctx, ir);
    CHECK_EQ_INT(count_of(before, "= sin"), 2);
    CHECK_EQ_INT(ir->n_consts, 2);
    free(before);
    char *t = run_pass(ctx, pass_cse, &ir);
    CHECK(t);
    CHECK_MSG(count_of(t, "= sin") == 1 && count_of(t, "= cos") == 1, "%s", t);
    CHECK_MSG(count_of(t, "= mul") == 2 && count_of(t, "= add") == 2 && count_of(t, "= sub") == 1, "%s", t);
    CHECK_EQ_INT(ir->n_consts, 1); /* the equal constants are one now */
    /* p = a + a: the add reads one variable twice */
    CHECK_STR_CONTAINS(t, "f:f32[7] = add d d");
    free(t);
    ir_free(ir);
    cj_ctx_free(ctx);
}

TEST(simplify_cse_respects_params_and_constant_bytes) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    ir_func *ir = ir_new(ctx->mem);
    int64_t d[2] = {3, 4};
    rt_aval av = rt_aval_make(CJ_F32, 2, d);
    int x = ir_add_input(ir, &av);
    prim_params p0 = prim_params_zero(), p1 = prim_params_zero();
    p0.axes.n = p1.axes.n = 1;
    p1.axes.v[0] = 1;
    int r0 = eqn(ctx, ir, PRIM_REDUCE_SUM, &p0, 1, &x), r1 = eqn(ctx, ir, PRIM_REDUCE_SUM, &p1, 1, &x);
    int r0b = eqn(ctx, ir, PRIM_REDUCE_SUM, &p0, 1, &x); /* same axes as r0 */
    /* +0.0 and -0.0 compare equal as numbers but are different constants */
    int pz = constant(ctx, ir, CJ_F32, 0, 0, 0.0), nz = constant(ctx, ir, CJ_F32, 0, 0, -0.0);
    int pz2 = constant(ctx, ir, CJ_F32, 0, 0, 0.0);
    int wz = constant(ctx, ir, CJ_F32, 1, 0, 0.0); /* weak: another type */
    int m1 = binary(ctx, ir, PRIM_MAX, x, pz), m2 = binary(ctx, ir, PRIM_MAX, x, nz);
    int m3 = binary(ctx, ir, PRIM_MAX, x, pz2), m4 = binary(ctx, ir, PRIM_MAX, x, wz);
    int outs[] = {r0, r1, r0b, m1, m2, m3, m4};
    for (int i = 0; i < 7; i++) ir_add_output(ir, outs[i]);
    CHECK(ir_verify(ctx, ir) == 0);
    char *t = run_pass(ctx, pass_cse, &ir);
    CHECK(t);
    CHECK_MSG(count_of(t, "= reduce_sum") == 2 && count_of(t, "= max") == 3, "%s", t);
    CHECK_EQ_INT(ir->n_consts, 3);
    CHECK(ir->out[0] == ir->out[2] && ir->out[0] != ir->out[1]);
    CHECK(ir->out[3] == ir->out[5] && ir->out[3] != ir->out[4] && ir->out[3] != ir->out[6]);
    free(t);
    ir_free(ir);
    cj_ctx_free(ctx);
}

/* ---- identities ---- */

static void fn_scales(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    int64_t n = 4;
    out[0] = cj_mul(in[0], cj_scalar(ctx, 1.0));
    out[1] = cj_mul(in[0], cj_scalar(ctx, 2.0));
    out[2] = cj_mul(cj_ones(ctx, CJ_F32, 1, &n), in[0]);
    out[3] = cj_div(in[0], cj_scalar(ctx, 1.0));
}

TEST(simplify_mul_by_one_folds_mul_by_two_does_not) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    rt_aval av = f32v(4);
    ir_func *ir = trace(ctx, fn_scales, 1, 4, &av);
    CHECK(ir);
    char *t = run_pass(ctx, pass_simplify, &ir);
    CHECK(t);
    CHECK_MSG(count_of(t, "= mul") == 1 && !strstr(t, "= div"), "%s", t);
    CHECK_STR_CONTAINS(t, "mul a 2:f32[]");
    CHECK(ir->out[0] == ir->in[0] && ir->out[2] == ir->in[0] && ir->out[3] == ir->in[0]);
    CHECK_EQ_INT(ir->n_consts, 1);
    free(t);
    ir_free(ir);
    cj_ctx_free(ctx);
}

static void fn_zeros(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    cj_val x = in[0];
    out[0] = cj_add(x, cj_scalar(ctx, -0.0)); /* exact: folds */
    out[1] = cj_add(cj_scalar(ctx, -0.0), x); /* exact: folds */
    out[2] = cj_sub(x, cj_scalar(ctx, 0.0));  /* exact: folds */
    out[3] = cj_add(x, cj_scalar(ctx, 0.0));  /* -0.0 + 0.0 is +0.0: stays */
    out[4] = cj_sub(x, cj_scalar(ctx, -0.0)); /* likewise: stays */
}

TEST(simplify_float_zero_identities_keep_signed_zeros) {
    /* why x + 0.0 must stay: it is not x for x = -0.0 */
    volatile float nz = -0.0f, pz = 0.0f;
    CHECK(signbit(nz + nz) && !signbit(nz + pz) && !signbit(nz - nz) && signbit(nz - pz));
    cj_ctx *ctx = cj_ctx_new(NULL);
    rt_aval av = f32v(64); /* random inputs: a quarter special, -0.0 among them */
    ir_func *ir = trace(ctx, fn_zeros, 1, 5, &av);
    CHECK(ir);
    char *t = run_pass(ctx, pass_simplify, &ir);
    CHECK(t);
    CHECK(ir->out[0] == ir->in[0] && ir->out[1] == ir->in[0] && ir->out[2] == ir->in[0]);
    CHECK(ir->out[3] != ir->in[0] && ir->out[4] != ir->in[0]);
    CHECK_MSG(count_of(t, "= add") == 1 && count_of(t, "= sub") == 1, "%s", t);
    free(t);
    ir_free(ir);
    cj_ctx_free(ctx);
}

TEST(simplify_integer_and_bool_identities) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    ir_func *ir = ir_new(ctx->mem);
    int64_t n = 16;
    rt_aval ai = rt_aval_make(CJ_I32, 1, &n), ab = rt_aval_make(CJ_BOOL, 1, &n);
    int x = ir_add_input(ir, &ai), b = ir_add_input(ir, &ab);
    int zero = constant(ctx, ir, CJ_I32, 0, 0, 0), one = constant(ctx, ir, CJ_I32, 0, 0, 1);
    int all_bits = constant(ctx, ir, CJ_I32, 0, 0, -1), two = constant(ctx, ir, CJ_I32, 0, 0, 2);
    int yes = constant(ctx, ir, CJ_BOOL, 0, 0, 1), no = constant(ctx, ir, CJ_BOOL, 0, 0, 0);
    int folds[] = {
        binary(ctx, ir, PRIM_ADD, x, zero), binary(ctx, ir, PRIM_ADD, zero, x),
        binary(ctx, ir, PRIM_SUB, x, zero), binary(ctx, ir, PRIM_MUL, one, x),
        binary(ctx, ir, PRIM_DIV, x, one),  binary(ctx, ir, PRIM_AND, x, all_bits),
        binary(ctx, ir, PRIM_OR, zero, x),  binary(ctx, ir, PRIM_XOR, x, zero),
    };
    int bool_folds[] = {binary(ctx, ir, PRIM_AND, b, yes), binary(ctx, ir, PRIM_OR, no, b),
                        binary(ctx, ir, PRIM_XOR, b, no)};
    int stays[] = {
        binary(ctx, ir, PRIM_SUB, zero, x), binary(ctx, ir, PRIM_MUL, x, two), binary(ctx, ir, PRIM_DIV, one, x),
        binary(ctx, ir, PRIM_AND, x, one),  binary(ctx, ir, PRIM_OR, b, yes),
    };
    for (int i = 0; i < 8; i++) ir_add_output(ir, folds[i]);
    for (int i = 0; i < 3; i++) ir_add_output(ir, bool_folds[i]);
    for (int i = 0; i < 5; i++) ir_add_output(ir, stays[i]);
    CHECK(ir_verify(ctx, ir) == 0);
    char *t = run_pass(ctx, pass_simplify, &ir);
    CHECK(t);
    for (int i = 0; i < 8; i++) CHECK_MSG(ir->out[i] == ir->in[0], "output %d\n%s", i, t);
    for (int i = 8; i < 11; i++) CHECK_MSG(ir->out[i] == ir->in[1], "output %d\n%s", i, t);
    CHECK_EQ_INT(ir->n_eqns, 5);
    free(t);
    ir_free(ir);
    cj_ctx_free(ctx);
}

static void fn_negations(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_neg(cj_neg(in[0]));
    out[1] = cj_neg(cj_neg(cj_neg(in[0])));
}

TEST(simplify_double_negation_cancels) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    rt_aval av = f32v(32);
    ir_func *ir = trace(ctx, fn_negations, 1, 2, &av);
    CHECK(ir);
    CHECK_EQ_INT(ir->n_eqns, 5);
    char *t = run_pass(ctx, pass_simplify, &ir);
    CHECK(t);
    CHECK(ir->out[0] == ir->in[0]);
    CHECK_MSG(ir->n_eqns == 1 && strstr(t, "b:f32[32] = neg a") && strstr(t, "in (a, b)"), "%s", t);
    free(t);
    ir_free(ir);
    cj_ctx_free(ctx);
}

/* The API never emits a no-op reshape, transpose or convert (it returns the
 * operand, as JAX does), but other passes and transformations may: build
 * them by hand. */
TEST(simplify_removes_noop_shape_ops_and_converts) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    ir_func *ir = ir_new(ctx->mem);
    int64_t d[3] = {3, 1, 3};
    rt_aval av = rt_aval_make(CJ_F32, 3, d);
    int x = ir_add_input(ir, &av);
    prim_params p = prim_params_zero();
    int outs[16], n_noop = 0, n = 0;
    /* no-ops */
    p.shape.n = 3, memcpy(p.shape.v, d, sizeof d);
    outs[n++] = eqn(ctx, ir, PRIM_RESHAPE, &p, 1, &x);
    p.axes.n = 3, p.axes.v[0] = 0, p.axes.v[1] = 1, p.axes.v[2] = 2;
    outs[n++] = eqn(ctx, ir, PRIM_BROADCAST_IN_DIM, &p, 1, &x);
    p = prim_params_zero(), p.axes.n = 3, p.axes.v[0] = 0, p.axes.v[1] = 1, p.axes.v[2] = 2;
    outs[n++] = eqn(ctx, ir, PRIM_TRANSPOSE, &p, 1, &x);
    p = prim_params_zero(), p.dtype = CJ_F32;
    outs[n++] = eqn(ctx, ir, PRIM_CONVERT, &p, 1, &x);
    p = prim_params_zero();
    outs[n++] = eqn(ctx, ir, PRIM_SQUEEZE, &p, 1, &x);
    p.axes.n = 1, p.axes.v[0] = 1; /* reversing the size-1 axis */
    outs[n++] = eqn(ctx, ir, PRIM_REV, &p, 1, &x);
    p = prim_params_zero(), p.lo.n = p.hi.n = 3, memcpy(p.hi.v, d, sizeof d);
    outs[n++] = eqn(ctx, ir, PRIM_SLICE, &p, 1, &x);
    /* ...chained: reshape(transpose(x)) with identities is still x */
    p = prim_params_zero(), p.axes.n = 3, p.axes.v[0] = 0, p.axes.v[1] = 1, p.axes.v[2] = 2;
    int tr = eqn(ctx, ir, PRIM_TRANSPOSE, &p, 1, &x);
    p = prim_params_zero(), p.shape.n = 3, memcpy(p.shape.v, d, sizeof d);
    outs[n++] = eqn(ctx, ir, PRIM_RESHAPE, &p, 1, &tr);
    n_noop = n;
    /* not no-ops */
    p = prim_params_zero(), p.axes.n = 3, p.axes.v[0] = 2, p.axes.v[1] = 1, p.axes.v[2] = 0;
    outs[n++] = eqn(ctx, ir, PRIM_TRANSPOSE, &p, 1, &x); /* same type, different order */
    p = prim_params_zero(), p.dtype = CJ_F32, p.weak = 1;
    outs[n++] = eqn(ctx, ir, PRIM_CONVERT, &p, 1, &x); /* becomes weak */
    p = prim_params_zero(), p.dtype = CJ_F64;
    outs[n++] = eqn(ctx, ir, PRIM_CONVERT, &p, 1, &x);
    p = prim_params_zero(), p.axes.n = 1, p.axes.v[0] = 2;
    outs[n++] = eqn(ctx, ir, PRIM_REV, &p, 1, &x);
    p = prim_params_zero(), p.shape.n = 2, p.shape.v[0] = 3, p.shape.v[1] = 3;
    outs[n++] = eqn(ctx, ir, PRIM_RESHAPE, &p, 1, &x);
    p = prim_params_zero(), p.lo.n = p.hi.n = 3, memcpy(p.hi.v, d, sizeof d), p.lo.v[2] = 1;
    outs[n++] = eqn(ctx, ir, PRIM_SLICE, &p, 1, &x);
    for (int i = 0; i < n; i++) ir_add_output(ir, outs[i]);
    CHECK(ir_verify(ctx, ir) == 0);
    char *t = run_pass(ctx, pass_simplify, &ir);
    CHECK(t);
    for (int i = 0; i < n_noop; i++) CHECK_MSG(ir->out[i] == ir->in[0], "output %d\n%s", i, t);
    for (int i = n_noop; i < n; i++) CHECK_MSG(ir->out[i] != ir->in[0], "output %d\n%s", i, t);
    CHECK_EQ_INT(ir->n_eqns, n - n_noop);
    CHECK_STR_CONTAINS(t, "convert_element_type[new_dtype=f32 weak_type=True]");
    free(t);
    ir_free(ir);
    cj_ctx_free(ctx);
}

TEST(simplify_select_with_constant_predicate) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    ir_func *ir = ir_new(ctx->mem);
    rt_aval av = f32v(8), scalar = rt_aval_make(CJ_F32, 0, NULL);
    int a = ir_add_input(ir, &av), b = ir_add_input(ir, &av), s = ir_add_input(ir, &scalar);
    int yes = constant(ctx, ir, CJ_BOOL, 0, 0, 1), no = constant(ctx, ir, CJ_BOOL, 0, 0, 0);
    int all_yes = constant(ctx, ir, CJ_BOOL, 0, 8, 1);
    rt_aval pv = rt_aval_make(CJ_BOOL, 1, (int64_t[]){8});
    rt_array *mixed = rt_array_new(ctx->mem, &pv);
    CHECK(mixed);
    for (int i = 0; i < 8; i++) ((uint8_t *)mixed->data)[i] = i % 2;
    int mix = ir_add_const(ir, mixed);
    rt_array_unref(mixed);
    prim_params p = prim_params_zero();
    int outs[] = {
        eqn(ctx, ir, PRIM_SELECT, &p, 3, (int[]){yes, a, b}),     /* b */
        eqn(ctx, ir, PRIM_SELECT, &p, 3, (int[]){no, a, b}),      /* a */
        eqn(ctx, ir, PRIM_SELECT, &p, 3, (int[]){all_yes, a, b}), /* b */
        eqn(ctx, ir, PRIM_SELECT, &p, 3, (int[]){mix, a, b}),     /* stays */
        eqn(ctx, ir, PRIM_SELECT, &p, 3, (int[]){all_yes, s, s}), /* f32[8], not s: stays */
    };
    for (int i = 0; i < 5; i++) ir_add_output(ir, outs[i]);
    CHECK(ir_verify(ctx, ir) == 0);
    char *t = run_pass(ctx, pass_simplify, &ir);
    CHECK(t);
    CHECK(ir->out[0] == ir->in[1] && ir->out[1] == ir->in[0] && ir->out[2] == ir->in[1]);
    CHECK(!is_input(ir, ir->out[3]) && !is_input(ir, ir->out[4]));
    CHECK_EQ_INT(ir->n_eqns, 2);
    free(t);
    ir_free(ir);
    cj_ctx_free(ctx);
}

/* A fold must give the result exactly the equation's type: weak stays
 * weak, strong stays strong, and a rank-0 operand does not stand for an
 * array. */
TEST(simplify_refuses_type_changing_identities) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    ir_func *ir = ir_new(ctx->mem);
    rt_aval weak_scalar = rt_aval_make(CJ_F32, 0, NULL), strong_scalar = weak_scalar, vec = f32v(5);
    weak_scalar.weak = 1;
    int w = ir_add_input(ir, &weak_scalar), s = ir_add_input(ir, &strong_scalar), v = ir_add_input(ir, &vec);
    int strong_one = constant(ctx, ir, CJ_F32, 0, 0, 1.0), weak_one = constant(ctx, ir, CJ_F32, 1, 0, 1.0);
    int ones = constant(ctx, ir, CJ_F32, 0, 5, 1.0);
    int outs[] = {
        binary(ctx, ir, PRIM_MUL, w, strong_one), /* f32[] strong, w is weak: stays */
        binary(ctx, ir, PRIM_MUL, s, ones),       /* f32[5], s is f32[]: stays */
        binary(ctx, ir, PRIM_MUL, w, weak_one),   /* weak * weak: w */
        binary(ctx, ir, PRIM_MUL, s, weak_one),   /* strong * weak: s */
        binary(ctx, ir, PRIM_MUL, v, weak_one),   /* v */
    };
    for (int i = 0; i < 5; i++) ir_add_output(ir, outs[i]);
    CHECK(ir_verify(ctx, ir) == 0);
    char *t = run_pass(ctx, pass_simplify, &ir);
    CHECK(t);
    CHECK(!is_input(ir, ir->out[0]) && !is_input(ir, ir->out[1]));
    CHECK(ir->out[2] == ir->in[0] && ir->out[3] == ir->in[1] && ir->out[4] == ir->in[2]);
    CHECK_MSG(count_of(t, "= mul") == 2, "%s", t);
    CHECK(!ir->vars[ir->out[0]].weak && ir->vars[ir->out[1]].rank == 1);
    free(t);
    ir_free(ir);
    cj_ctx_free(ctx);
}

/* ---- constant folding ---- */

static void fn_const_subexpressions(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    cj_val x = in[0];
    out[0] = cj_mul(cj_sin(cj_scalar(ctx, 2.0)), x);
    cj_val twenty = cj_mul(cj_add(cj_scalar(ctx, 2.0), cj_scalar(ctx, 3.0)), cj_scalar(ctx, 4.0));
    out[1] = cj_add(x, twenty);
}

TEST(simplify_folds_constant_subexpressions) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    rt_aval av = f32v(6);
    /* built by hand first, then traced (under jit everything is staged,
     * operations on constants included) */
    ir_func *ir = ir_new(ctx->mem);
    int x = ir_add_input(ir, &av);
    int two = constant(ctx, ir, CJ_F32, 1, 0, 2.0), three = constant(ctx, ir, CJ_F32, 1, 0, 3.0);
    int four = constant(ctx, ir, CJ_F32, 1, 0, 4.0);
    int s = unary(ctx, ir, PRIM_SIN, two);
    ir_add_output(ir, binary(ctx, ir, PRIM_MUL, s, x));
    int c = binary(ctx, ir, PRIM_MUL, binary(ctx, ir, PRIM_ADD, two, three), four);
    ir_add_output(ir, binary(ctx, ir, PRIM_ADD, x, c));
    CHECK(ir_verify(ctx, ir) == 0);
    char *t = run_pass(ctx, pass_simplify, &ir);
    CHECK(t);
    CHECK_MSG(!strstr(t, "sin") && count_of(t, "= mul") == 1 && count_of(t, "= add") == 1, "%s", t);
    CHECK_STR_CONTAINS(t, "add a 20:f32[]");
    CHECK_EQ_INT(ir->n_consts, 2); /* the inputs of the folds are gone */
    const ir_eqn *mul = &ir->eqns[0];
    const rt_array *sin2 = const_array(ir, ir_eqn_inputs(ir, mul)[0]);
    CHECK(mul->prim == PRIM_MUL && sin2 && sin2->aval.weak && sin2->aval.rank == 0);
    CHECK_NEAR(((float *)sin2->data)[0], sin(2.0), 1e-6, 0);
    free(t);
    ir_free(ir);

    /* the traced program folds the same way */
    ir = trace(ctx, fn_const_subexpressions, 1, 2, &av);
    CHECK(ir);
    t = run_pass(ctx, pass_simplify, &ir);
    CHECK(t);
    CHECK_STR_CONTAINS(t, "add a 20:f32[]");
    free(t);
    ir_free(ir);
    cj_ctx_free(ctx);
}

TEST(simplify_folds_only_small_results) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    ir_func *ir = ir_new(ctx->mem);
    rt_aval av = f32v(2000);
    int x = ir_add_input(ir, &av);
    int big = constant(ctx, ir, CJ_F32, 0, 2000, 0.5), small = constant(ctx, ir, CJ_F32, 0, 1000, 0.5);
    int half = constant(ctx, ir, CJ_F32, 0, 0, 0.5);
    prim_params p = prim_params_zero();
    p.shape.n = 1, p.shape.v[0] = 2000;
    int bcast = eqn(ctx, ir, PRIM_BROADCAST_IN_DIM, &p, 1, &half); /* replicates: stays */
    p.shape.v[0] = 10;
    int bcast_small = eqn(ctx, ir, PRIM_BROADCAST_IN_DIM, &p, 1, &half); /* also stays */
    ir_add_output(ir, binary(ctx, ir, PRIM_MUL, x, unary(ctx, ir, PRIM_EXP, big))); /* 2000 > 1024 */
    ir_add_output(ir, unary(ctx, ir, PRIM_EXP, small));                              /* folded */
    ir_add_output(ir, binary(ctx, ir, PRIM_ADD, x, bcast));
    ir_add_output(ir, bcast_small);
    CHECK(ir_verify(ctx, ir) == 0);
    char *t = run_pass(ctx, pass_simplify, &ir);
    CHECK(t);
    CHECK_MSG(count_of(t, "= exp") == 1 && count_of(t, "= broadcast_in_dim") == 2, "%s", t);
    const rt_array *e = const_array(ir, ir->out[1]);
    CHECK(e && e->size == 1000);
    for (int i = 0; i < 1000; i++) CHECK_NEAR(((float *)e->data)[i], exp(0.5), 1e-6, 0);
    free(t);
    ir_free(ir);
    cj_ctx_free(ctx);
}

static void fn_trivial_outputs(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    out[0] = cj_mul(in[0], cj_scalar(ctx, 1.0));
    out[1] = cj_neg(in[1]);
    out[2] = in[0];
}

TEST(simplify_outputs_become_inputs_and_constants) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    rt_aval av[2] = {f32v(3), rt_aval_make(CJ_F32, 0, NULL)};
    /* the second input is static: neg of a constant, folded */
    ir_func *ir = ir_new(ctx->mem);
    int x = ir_add_input(ir, &av[0]);
    int one = constant(ctx, ir, CJ_F32, 1, 0, 1.0), c = constant(ctx, ir, CJ_F32, 0, 0, 2.5);
    ir_add_output(ir, binary(ctx, ir, PRIM_MUL, x, one));
    ir_add_output(ir, unary(ctx, ir, PRIM_NEG, c));
    ir_add_output(ir, x);
    char *t = run_pass(ctx, pass_simplify, &ir);
    CHECK(t);
    CHECK_EQ_INT(ir->n_eqns, 0);
    CHECK(ir->out[0] == ir->in[0] && ir->out[2] == ir->in[0]);
    const rt_array *neg = const_array(ir, ir->out[1]);
    CHECK(neg && ((float *)neg->data)[0] == -2.5f && !neg->aval.weak);
    CHECK_EQ_INT(ir->n_consts, 1);
    CHECK_MSG(strstr(t, "in (a, -2.5:f32[], a) }"), "%s", t);
    free(t);
    ir_free(ir);

    /* traced with both inputs as tracers: only the identity applies */
    ir = trace(ctx, fn_trivial_outputs, 2, 3, av);
    CHECK(ir);
    t = run_pass(ctx, pass_simplify, &ir);
    CHECK(t);
    CHECK_MSG(strstr(t, "in (a, c, a) }") && ir->n_eqns == 1, "%s", t);
    free(t);
    ir_free(ir);
    cj_ctx_free(ctx);
}

/* ---- random programs ---- */

/* Random elementwise programs over two inputs and a pool of awkward
 * constants (1, -0, +0, 2, small arrays, duplicates): whatever simplify
 * does, the results must not change by a bit. */
TEST(simplify_random_programs_compute_the_same) {
    static const prim_id unaries[] = {PRIM_NEG, PRIM_SIN, PRIM_EXP, PRIM_ABS, PRIM_FLOOR};
    static const prim_id binaries[] = {PRIM_ADD, PRIM_SUB, PRIM_MUL, PRIM_DIV, PRIM_MAX};
    static const double values[] = {1.0, -0.0, 0.0, 2.0, -1.0};
    uint64_t seed = 2024;
    cj_ctx *ctx = cj_ctx_new(NULL);
    for (int prog = 0; prog < 60; prog++) {
        ir_func *ir = ir_new(ctx->mem);
        rt_aval av = f32v(16);
        int vars[64], n = 0;
        vars[n++] = ir_add_input(ir, &av);
        vars[n++] = ir_add_input(ir, &av);
        for (int i = 0; i < 4; i++) {
            uint64_t r = th_rand_u64(&seed);
            vars[n++] = constant(ctx, ir, CJ_F32, (int)(r & 1), (r >> 1) % 3 == 0 ? 16 : 0, values[(r >> 4) % 5]);
        }
        for (int k = 0; k < 14; k++) {
            uint64_t r = th_rand_u64(&seed);
            int a = vars[(r >> 8) % (uint64_t)n], b = vars[(r >> 20) % (uint64_t)n];
            int v = r % 3 == 0 ? unary(ctx, ir, unaries[(r >> 32) % 5], a)
                               : binary(ctx, ir, binaries[(r >> 32) % 5], a, b);
            if (v < 0) { /* weak/strong mixes are fine; shapes always match */
                cj_error_clear(ctx);
                continue;
            }
            vars[n++] = v;
        }
        ir_add_output(ir, vars[n - 1]);
        ir_add_output(ir, vars[n - 2]);
        ir_add_output(ir, vars[n / 2]);
        CHECK(ir_verify(ctx, ir) == 0);
        char *t = run_pass(ctx, pass_simplify, &ir);
        CHECK_MSG(t, "program %d", prog);
        free(t);
        ir_free(ir);
    }
    cj_ctx_free(ctx);
}

/* ---- allocation failure ---- */

/* Fails each allocation of a pass in turn: the pass reports out of memory,
 * the caller's IR is untouched and still runs, and nothing leaks. */
static void check_pass_survives_oom(pass_fn pass, int max_fails) {
    int completed = 0, failures = 0;
    for (long long k = 1; k <= max_fails && !completed; k++) {
        tu_alloc st;
        memset(&st, 0, sizeof st);
        cj_allocator al = tu_allocator(&st);
        cj_ctx *ctx = cj_ctx_new(&al);
        CHECK(ctx);
        rt_aval av = f32v(5);
        ir_func *ir = ir_new(ctx->mem);
        int x = ir_add_input(ir, &av);
        int two = constant(ctx, ir, CJ_F32, 1, 0, 2.0), one = constant(ctx, ir, CJ_F32, 1, 0, 1.0);
        int two_again = constant(ctx, ir, CJ_F32, 1, 0, 2.0);
        int s = unary(ctx, ir, PRIM_SIN, two), s2 = unary(ctx, ir, PRIM_SIN, two_again); /* folds */
        int y = binary(ctx, ir, PRIM_MUL, binary(ctx, ir, PRIM_MUL, x, s), one);
        int z = binary(ctx, ir, PRIM_MUL, binary(ctx, ir, PRIM_MUL, x, s2), one); /* same as y */
        unary(ctx, ir, PRIM_COS, x);                                                /* dead */
        ir_add_output(ir, binary(ctx, ir, PRIM_ADD, y, z));
        CHECK(ir_verify(ctx, ir) == 0);
        ir_func *orig = clone_ir(ir), *given = ir;
        char *before = ir_text(ctx, ir);

        st.fail_at = st.count + k;
        int rc = pass(ctx, &ir);
        st.fail_at = 0;
        if (rc != 0) {
            failures++;
            CHECK(st.failed);
            CHECK_EQ_INT(cj_error(ctx), CJ_ERR_OOM);
            CHECK(ir == given);
            cj_error_clear(ctx);
            char *after = ir_text(ctx, ir);
            CHECK_MSG(strcmp(before, after) == 0, "%s\nvs\n%s", before, after);
            free(after);
        } else {
            completed = 1;
            CHECK(cj_error(ctx) == CJ_OK);
        }
        CHECK(ir_verify(ctx, ir) == 0);
        CHECK(same_results(ctx, orig, ir, (uint64_t)k));
        free(before);
        ir_free(orig);
        ir_free(ir);
        cj_ctx_free(ctx);
        CHECK_EQ_INT(st.live, 0);
        CHECK_EQ_INT(st.live_bytes, 0);
    }
    CHECK_MSG(completed, "the pass never succeeded within %d failures", max_fails);
    CHECK(failures >= 3); /* every allocation site of the pass was failed once */
}

TEST(simplify_out_of_memory_is_clean) { check_pass_survives_oom(pass_simplify, 400); }
TEST(simplify_cse_out_of_memory_is_clean) { check_pass_survives_oom(pass_cse, 200); }
TEST(simplify_dce_out_of_memory_is_clean) { check_pass_survives_oom(pass_dce, 200); }
