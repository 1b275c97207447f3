/* test_core.c — contexts, scopes, sticky errors, tracing, the IR text, jit
 * caching and its explanations, concretization and leaked-tracer errors,
 * and allocation-failure injection. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "harness.h"
#include "test_util.h"

/* ---- contexts and scopes ---- */
TEST(core_ctx_free_releases_everything) {
    tu_alloc st = {0};
    cj_allocator a = tu_allocator(&st);
    cj_ctx *ctx = cj_ctx_new(&a);
    CHECK(ctx);
    int64_t d[2] = {3, 4};
    for (int i = 0; i < 100; i++) cj_zeros(ctx, CJ_F32, 2, d);
    CHECK(cj_error(ctx) == CJ_OK);
    cj_ctx_free(ctx);
    CHECK_EQ_INT(st.live, 0);
    CHECK_EQ_INT(st.live_bytes, 0);
}

TEST(core_scope_end_frees_all_but_kept) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_mem_stats before, after;
    cj_mem_stats_get(ctx, &before);
    cj_scope_begin(ctx);
    cj_val a = tu_ramp(ctx, 1000, 1, 0);
    cj_val b = tu_ramp(ctx, 1000, 2, 0);
    cj_scope_end(ctx, 1, &b);
    cj_mem_stats_get(ctx, &after);
    /* only b's data is still in use */
    CHECK(after.bytes_in_arrays - before.bytes_in_arrays >= 4000);
    CHECK(after.bytes_in_arrays - before.bytes_in_arrays < 8000);
    float buf[1000];
    CHECK(cj_read(b, buf, sizeof buf) == CJ_OK);
    CHECK_NEAR(buf[999], 1998.0, 0, 0);
    /* a is gone: using it is a clear error, not a crash */
    CHECK(cj_val_rank(a) == -1);
    CHECK(cj_error(ctx) == CJ_ERR_LEAKED);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "used after it was freed");
    cj_error_clear(ctx);
    CHECK(cj_error(ctx) == CJ_OK);
    cj_ctx_free(ctx);
}

TEST(core_scope_end_without_begin_is_an_error) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_scope_end(ctx, 0, NULL);
    CHECK(cj_error(ctx) == CJ_ERR_ARG);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_scope_end");
    cj_ctx_free(ctx);
}

TEST(core_val_free_then_use_is_leaked_error) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val a = tu_ramp(ctx, 4, 1, 0);
    cj_val_free(a);
    cj_val b = cj_add(a, a);
    CHECK(cj_is_error(b));
    CHECK(cj_error(ctx) == CJ_ERR_LEAKED);
    cj_ctx_free(ctx);
}

TEST(core_pool_reuses_freed_buffers) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val x = tu_ramp(ctx, 4096, 0.001f, 0);
    cj_mem_stats s1, s2;
    for (int it = 0; it < 50; it++) {
        cj_scope_begin(ctx);
        cj_val y = cj_add(cj_mul(x, x), x);
        (void)y;
        cj_scope_end(ctx, 0, NULL);
        if (it == 4) cj_mem_stats_get(ctx, &s1);
    }
    cj_mem_stats_get(ctx, &s2);
    CHECK(cj_error(ctx) == CJ_OK);
    /* steady state: no new data buffers from the allocator after warm-up
     * (value pages are allocated once too) */
    CHECK_EQ_INT(s2.n_allocs, s1.n_allocs);
    CHECK(s2.n_pool_hits > s1.n_pool_hits);
    cj_ctx_free(ctx);
}

/* ---- sticky errors ---- */
TEST(core_error_is_sticky_and_names_the_op) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t d3 = 3, d4 = 4;
    cj_val a = cj_zeros(ctx, CJ_F32, 1, &d3);
    cj_val b = cj_zeros(ctx, CJ_F32, 1, &d4);
    cj_val c = cj_add(a, b);
    CHECK(cj_is_error(c));
    CHECK(cj_error(ctx) == CJ_ERR_SHAPE);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "add");
    CHECK_STR_CONTAINS(cj_error_message(ctx), "f32[3]");
    CHECK_STR_CONTAINS(cj_error_message(ctx), "f32[4]");
    /* later operations return errors without replacing the first message */
    cj_val d = cj_sin(a);
    CHECK(cj_is_error(d));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "f32[4]");
    cj_error_clear(ctx);
    cj_val e = cj_sin(a);
    CHECK(!cj_is_error(e));
    /* an old error value used after clearing is reported as such */
    cj_val f = cj_neg(c);
    CHECK(cj_is_error(f));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "error value");
    cj_ctx_free(ctx);
}

TEST(core_values_from_another_context_are_rejected) {
    cj_ctx *c1 = cj_ctx_new(NULL), *c2 = cj_ctx_new(NULL);
    cj_val a = tu_ramp(c1, 3, 1, 0), b = tu_ramp(c2, 3, 1, 0);
    cj_val c = cj_add(a, b);
    CHECK(cj_is_error(c));
    CHECK_STR_CONTAINS(cj_error_message(c1), "another context");
    cj_ctx_free(c1);
    cj_ctx_free(c2);
}

/* ---- tracing and jit ---- */
typedef struct counter {
    int calls;
    cj_val leaked;
} counter;

static void fn_sincos(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    if (user) ((counter *)user)->calls++;
    cj_val x = in[0];
    cj_val s = cj_sin(x), c = cj_cos(x); /* statements: C leaves argument order open */
    cj_val sc = cj_mul(s, c), xx = cj_mul(x, x);
    out[0] = cj_add(sc, xx);
}

TEST(core_make_jaxpr_prints_the_ir) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *f = cj_func_new(ctx, "f", fn_sincos, 1, 1, NULL);
    int64_t d = 3;
    cj_spec s = cj_spec_make(CJ_F32, 1, &d);
    char *text = cj_make_jaxpr(f, 1, &s);
    CHECK(text);
    const char *expect =
        "{ lambda ; a:f32[3]. let\n"
        "    b:f32[3] = sin a\n"
        "    c:f32[3] = cos a\n"
        "    d:f32[3] = mul b c\n"
        "    e:f32[3] = mul a a\n"
        "    f:f32[3] = add d e\n"
        "  in (f,) }\n";
    CHECK_MSG(strcmp(text, expect) == 0, "got:\n%s", text);
    cj_string_free(ctx, text);
    cj_ctx_free(ctx);
}

static void fn_scale(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    out[0] = cj_mul(in[0], cj_scalar(ctx, 2.0));
}

TEST(core_make_jaxpr_weak_scalar_literal) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *f = cj_func_new(ctx, "scale", fn_scale, 1, 1, NULL);
    int64_t d = 4;
    cj_spec s = cj_spec_make(CJ_F32, 1, &d);
    char *text = cj_make_jaxpr(f, 1, &s);
    CHECK(text);
    /* the weak constant stays f32 and prints inline */
    CHECK_STR_CONTAINS(text, "b:f32[4] = mul a 2:f32[]");
    cj_string_free(ctx, text);
    cj_ctx_free(ctx);
}

TEST(core_jit_matches_eager_and_caches) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    counter cnt = {0};
    cj_func *f = cj_func_new(ctx, "f", fn_sincos, 1, 1, &cnt);
    cj_func *jf = cj_jit(f, NULL);
    cj_val x = tu_ramp(ctx, 1000, 0.01f, -3);
    cj_val y_eager, y_jit, y_jit2;
    CHECK(cj_call(f, &x, &y_eager) == CJ_OK);
    CHECK(cj_call(jf, &x, &y_jit) == CJ_OK);
    CHECK(cj_call(jf, &x, &y_jit2) == CJ_OK);
    float a[1000], b[1000], c[1000];
    CHECK(cj_read(y_eager, a, sizeof a) == CJ_OK);
    CHECK(cj_read(y_jit, b, sizeof b) == CJ_OK);
    CHECK(cj_read(y_jit2, c, sizeof c) == CJ_OK);
    for (int i = 0; i < 1000; i++) {
        double xi = i * 0.01f - 3;
        CHECK_NEAR(a[i], sin(xi) * cos(xi) + xi * xi, 1e-5, 1e-5);
        CHECK(a[i] == b[i] && b[i] == c[i]);
    }
    cj_jit_stats st;
    cj_jit_stats_get(jf, &st);
    CHECK_EQ_INT(st.traces, 1);
    CHECK_EQ_INT(st.misses, 1);
    CHECK_EQ_INT(st.hits, 1);
    CHECK_EQ_INT(cnt.calls, 2); /* once eager, once traced */
    cj_ctx_free(ctx);
}

TEST(core_jit_explains_cache_misses) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    counter cnt = {0};
    cj_func *jf = cj_jit(cj_func_new(ctx, "f", fn_sincos, 1, 1, &cnt), NULL);
    cj_val y;
    cj_val x8 = tu_ramp(ctx, 8, 1, 0), x16 = tu_ramp(ctx, 16, 1, 0);
    CHECK(cj_call(jf, &x8, &y) == CJ_OK);
    CHECK_STR_CONTAINS(cj_jit_last_miss(jf), "first call");
    CHECK(cj_call(jf, &x16, &y) == CJ_OK);
    CHECK_STR_CONTAINS(cj_jit_last_miss(jf), "argument 0 shape f32[8] → f32[16]");
    cj_val x8d = cj_astype(x8, CJ_F64);
    CHECK(cj_call(jf, &x8d, &y) == CJ_OK);
    CHECK_STR_CONTAINS(cj_jit_last_miss(jf), "argument 0 dtype f32[8] → f64[8]");
    /* a weak scalar and a strong one are different keys */
    cj_val w = cj_scalar(ctx, 1.0), s = cj_scalar_typed(ctx, 1.0, CJ_F32);
    CHECK(cj_call(jf, &w, &y) == CJ_OK);
    CHECK(cj_call(jf, &s, &y) == CJ_OK);
    CHECK_STR_CONTAINS(cj_jit_last_miss(jf), "weak type");
    CHECK(cj_val_weak(y) == 0);
    cj_jit_stats st;
    cj_jit_stats_get(jf, &st);
    CHECK_EQ_INT(st.misses, 5);
    CHECK_EQ_INT(st.entries, 5);
    CHECK_EQ_INT(st.hits, 0);
    CHECK(cj_call(jf, &x16, &y) == CJ_OK);
    cj_jit_stats_get(jf, &st);
    CHECK_EQ_INT(st.hits, 1);
    cj_jit_clear(jf);
    cj_jit_stats_get(jf, &st);
    CHECK_EQ_INT(st.entries, 0);
    CHECK(cj_call(jf, &x16, &y) == CJ_OK);
    CHECK_EQ_INT(cnt.calls, 6);
    cj_ctx_free(ctx);
}

/* Static argument: a power read as a C integer picks the program. */
static void fn_power(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    if (user) ((counter *)user)->calls++;
    int64_t n = 0;
    cj_item_int(in[1], &n);
    cj_val r = cj_ones_like(in[0]);
    for (int64_t i = 0; i < n; i++) r = cj_mul(r, in[0]);
    out[0] = r;
}

TEST(core_jit_static_argument_values_key_the_cache) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    counter cnt = {0};
    int statics[1] = {1};
    cj_jit_opts o = {1, statics, 0, NULL, CJ_BACKEND_DEFAULT};
    cj_func *jf = cj_jit(cj_func_new(ctx, "power", fn_power, 2, 1, &cnt), &o);
    cj_val x = tu_ramp(ctx, 5, 1, 1), y;
    cj_val in3[2] = {x, cj_scalar_int(ctx, 3)};
    cj_val in2[2] = {x, cj_scalar_int(ctx, 2)};
    CHECK(cj_call(jf, in3, &y) == CJ_OK);
    float b[5];
    cj_read(y, b, sizeof b);
    for (int i = 0; i < 5; i++) CHECK_NEAR(b[i], pow(i + 1, 3), 0, 0);
    CHECK(cj_call(jf, in2, &y) == CJ_OK);
    cj_read(y, b, sizeof b);
    for (int i = 0; i < 5; i++) CHECK_NEAR(b[i], pow(i + 1, 2), 0, 0);
    CHECK_STR_CONTAINS(cj_jit_last_miss(jf), "static argument 1 has a new value (2)");
    cj_val in3b[2] = {x, cj_scalar_int(ctx, 3)};
    CHECK(cj_call(jf, in3b, &y) == CJ_OK);
    cj_jit_stats st;
    cj_jit_stats_get(jf, &st);
    CHECK_EQ_INT(st.traces, 2);
    CHECK_EQ_INT(st.hits, 1);
    CHECK_EQ_INT(cnt.calls, 2);
    cj_ctx_free(ctx);
}

TEST(core_jit_reading_a_traced_value_is_a_concretization_error) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *jf = cj_jit(cj_func_new(ctx, "power", fn_power, 2, 1, NULL), NULL);
    cj_val in[2] = {tu_ramp(ctx, 5, 1, 1), cj_scalar_int(ctx, 3)}, y;
    CHECK(cj_call(jf, in, &y) == CJ_ERR_CONCRETIZATION);
    CHECK(cj_is_error(y));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_item_int");
    CHECK_STR_CONTAINS(cj_error_message(ctx), "static_argnums");
    CHECK_STR_CONTAINS(cj_error_message(ctx), "i32[]");
    cj_error_clear(ctx);
    /* the context is usable afterwards, and nothing was cached */
    cj_jit_stats st;
    cj_jit_stats_get(jf, &st);
    CHECK_EQ_INT(st.entries, 0);
    cj_val z = cj_add(in[0], in[0]);
    CHECK(!cj_is_error(z));
    cj_ctx_free(ctx);
}

static void fn_leak(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    counter *c = user;
    c->leaked = cj_sin(in[0]);
    out[0] = cj_cos(in[0]);
}

TEST(core_leaked_tracer_is_an_error_not_a_crash) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    counter cnt = {0};
    cj_func *jf = cj_jit(cj_func_new(ctx, "leaky", fn_leak, 1, 1, &cnt), NULL);
    cj_val x = tu_ramp(ctx, 3, 1, 0), y;
    CHECK(cj_call(jf, &x, &y) == CJ_OK);
    cj_val bad = cj_add(cnt.leaked, x);
    CHECK(cj_is_error(bad));
    CHECK(cj_error(ctx) == CJ_ERR_LEAKED);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "leaked tracer");
    cj_error_clear(ctx);
    CHECK(cj_read(cnt.leaked, NULL, 0) == CJ_ERR_LEAKED);
    cj_ctx_free(ctx);
}

static void fn_outer(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    cj_func *inner = user;
    cj_val t;
    cj_call(inner, in, &t);
    out[0] = cj_exp(t);
}

TEST(core_jit_inside_jit_inlines_the_cached_ir) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    counter cnt = {0};
    cj_func *inner = cj_jit(cj_func_new(ctx, "inner", fn_sincos, 1, 1, &cnt), NULL);
    cj_func *outer = cj_jit(cj_func_new(ctx, "outer", fn_outer, 1, 1, inner), NULL);
    cj_val x = tu_ramp(ctx, 4, 0.5f, 0), y, z;
    CHECK(cj_call(outer, &x, &y) == CJ_OK);
    CHECK(cj_call(inner, &x, &z) == CJ_OK); /* cached by the traced call */
    CHECK_EQ_INT(cnt.calls, 1);
    float a[4], b[4];
    cj_read(y, a, sizeof a);
    cj_read(z, b, sizeof b);
    for (int i = 0; i < 4; i++) CHECK_NEAR(a[i], exp(b[i]), 1e-5, 0);
    int64_t d = 4;
    cj_spec s = cj_spec_make(CJ_F32, 1, &d);
    char *text = cj_make_jaxpr(outer, 1, &s);
    CHECK(text);
    CHECK_STR_CONTAINS(text, "= sin a");
    CHECK_STR_CONTAINS(text, "= exp f");
    cj_string_free(ctx, text);
    cj_ctx_free(ctx);
}

static void fn_identity_and_const(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    out[0] = in[0];
    int64_t d = 2;
    float v[2] = {7, 8};
    out[1] = cj_array(ctx, CJ_F32, 1, &d, v);
}

TEST(core_jit_outputs_may_be_inputs_or_constants) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *jf = cj_jit(cj_func_new(ctx, "idc", fn_identity_and_const, 1, 2, NULL), NULL);
    cj_val x = tu_ramp(ctx, 3, 1, 5), y[2];
    CHECK(cj_call(jf, &x, y) == CJ_OK);
    CHECK(cj_call(jf, &x, y) == CJ_OK);
    float a[3], b[2];
    cj_read(y[0], a, sizeof a);
    cj_read(y[1], b, sizeof b);
    CHECK(a[0] == 5 && a[2] == 7 && b[0] == 7 && b[1] == 8);
    cj_ctx_free(ctx);
}

static void fn_forgets_output(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    (void)user;
    out[0] = in[0];
}

TEST(core_unset_output_is_reported) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *f = cj_func_new(ctx, "forgetful", fn_forgets_output, 1, 2, NULL);
    cj_val x = tu_ramp(ctx, 3, 1, 0), y[2];
    CHECK(cj_call(f, &x, y) == CJ_ERR_ARG);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "forgetful: output 1 was not set");
    cj_ctx_free(ctx);
}

/* ---- allocation failure at every allocation site ---- */
static int scenario(cj_ctx *ctx) {
    counter cnt = {0};
    cj_func *jf = cj_jit(cj_func_new(ctx, "f", fn_sincos, 1, 1, &cnt), NULL);
    cj_val x = tu_ramp(ctx, 300, 0.1f, 0), y = {0};
    cj_scope_begin(ctx);
    cj_val z = cj_add(cj_exp(x), cj_scalar(ctx, 1.0));
    cj_scope_end(ctx, 1, &z);
    cj_call(jf, &x, &y);
    cj_call(jf, &z, &y);
    int64_t d = 300;
    cj_spec s = cj_spec_make(CJ_F32, 1, &d);
    char *t = cj_make_jaxpr(jf, 1, &s);
    cj_string_free(ctx, t);
    float out[300];
    cj_read(y, out, sizeof out);
    return cj_error(ctx);
}

TEST(core_allocation_failure_at_every_site_is_clean) {
    /* Fail allocation 1, 2, 3, ... until a run where no allocation failed:
     * every run must end in success (a failure the pool recovered from) or
     * a clean CJ_ERR_OOM, and leak nothing. */
    int covered = 0;
    for (long long n = 1; n < 20000 && !covered; n++) {
        tu_alloc st = {0};
        st.fail_at = n;
        cj_allocator a = tu_allocator(&st);
        cj_ctx *ctx = cj_ctx_new(&a);
        if (ctx) {
            int rc = scenario(ctx);
            CHECK_MSG(rc == CJ_OK || rc == CJ_ERR_OOM, "allocation %lld: expected CJ_ERR_OOM, got %s: %s", n,
                      cj_status_name((cj_status)rc), cj_error_message(ctx));
            if (!st.failed) {
                CHECK(rc == CJ_OK);
                covered = 1;
            }
            cj_ctx_free(ctx);
        }
        CHECK_MSG(st.live == 0, "allocation %lld failing leaked %lld blocks", n, st.live);
    }
    CHECK(covered);
}

/* ---- error values without a context, and messages that name the
 * argument (issue 13) ---- */

static void fn_return_orphan(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)in, (void)u;
    out[0] = cj_concatenate(0, NULL, 0); /* an error value without a context */
}

static void fn_other_ctx(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)in;
    out[0] = *(const cj_val *)u; /* a live value of another context */
}

/* cj_concatenate of no values, and any value without a context, used to
 * leave no sticky error anywhere (cj_call even returned CJ_OK with error
 * outputs). Now: the thread's record of context-less errors says what
 * happened, and a context that meets such a value records that. */
TEST(core_error_value_without_context_is_reported) {
    cj_error_clear(NULL);
    cj_val none = cj_concatenate(0, NULL, 0);
    CHECK(cj_is_error(none) && none.ctx == NULL);
    CHECK(cj_error(NULL) == CJ_ERR_ARG);
    CHECK_STR_CONTAINS(cj_error_message(NULL), "cj_concatenate: needs at least one value (n = 0)");
    /* the first such error is kept until cleared */
    cj_exp(none);
    CHECK_STR_CONTAINS(cj_error_message(NULL), "cj_concatenate");
    cj_error_clear(NULL);
    CHECK(strcmp(cj_error_message(NULL), "no context (NULL)") == 0);
    cj_exp(none);
    CHECK_STR_CONTAINS(cj_error_message(NULL), "exp: no context");
    cj_error_clear(NULL);

    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val x = tu_ramp(ctx, 3, 1, 0);
    CHECK(cj_is_error(cj_add(x, none)));
    CHECK(cj_error(ctx) == CJ_ERR_ARG);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "operand 1 is an error value without a context");
    cj_error_clear(ctx);

    cj_func *f = cj_func_new(ctx, "square", fn_return_orphan, 1, 1, NULL);
    cj_val y;
    CHECK(cj_call(f, &none, &y) == CJ_ERR_ARG);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "square (input 0): is an error value without a context");
    cj_error_clear(ctx);
    CHECK(cj_call(f, &x, &y) == CJ_ERR_ARG);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "square: output 0 is an error value without a context");
    cj_error_clear(ctx);
    cj_error_clear(NULL);

    /* a live value of another context returned as an output */
    cj_ctx *other = cj_ctx_new(NULL);
    cj_val ox = tu_ramp(other, 3, 1, 0);
    cj_func *g = cj_func_new(ctx, "leak", fn_other_ctx, 1, 1, &ox);
    CHECK(cj_call(g, &x, &y) == CJ_ERR_ARG);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "leak: output 0 belongs to another context");
    cj_error_clear(ctx);
    CHECK(cj_val_size(ox) == 3 && cj_error(other) == CJ_OK);
    cj_ctx_free(other);
    cj_ctx_free(ctx);
}

static void fn_mul3(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_sum(cj_mul(cj_mul(in[0], in[1]), cj_mul(in[2], in[2])), -1, NULL, 0);
}

/* Messages that were wrong: a NULL buffer is not "too small"; a spec rank
 * of 12 is refused, not turned into 8; argnums -1 means the last input, as
 * jax.grad (api_util._ensure_inbounds) resolves it, and -4 of 3 is out of
 * range. */
TEST(core_wrong_messages_name_what_is_wrong) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val x = tu_ramp(ctx, 3, 1, 1); /* 1, 2, 3 */
    CHECK(cj_read(x, NULL, 12) == CJ_ERR_ARG);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_read: buf is NULL (12 bytes needed)");
    cj_error_clear(ctx);
    float small[2];
    CHECK(cj_read(x, small, sizeof small) == CJ_ERR_ARG);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "buffer of 8 bytes is too small");
    cj_error_clear(ctx);

    int64_t d[12] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    cj_spec s = cj_spec_make(CJ_F32, 12, d);
    CHECK_EQ_INT(s.rank, -1);
    cj_func *f = cj_func_new(ctx, "f", fn_mul3, 3, 1, NULL);
    cj_spec specs[3] = {s, s, s};
    CHECK(cj_make_jaxpr(f, 3, specs) == NULL);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_make_jaxpr(f): spec 0 has rank -1, outside 0..8");
    cj_error_clear(ctx);
    cj_spec ok = cj_spec_make(CJ_F32, 8, d);
    CHECK_EQ_INT(ok.rank, 8);

    /* d/dz sum(x*y*z^2) = 2*x*y*z */
    int last = -1;
    cj_grad_opts go = {1, &last, 0};
    cj_func *gz = cj_grad(f, &go);
    CHECK(gz);
    cj_val a = tu_ramp(ctx, 3, 1, 1), b = tu_ramp(ctx, 3, 2, 0), c = tu_ramp(ctx, 3, -1, 5);
    cj_val in[3] = {a, b, c}, g;
    CHECK(cj_call(gz, in, &g) == CJ_OK);
    float gv[3];
    CHECK(cj_read(g, gv, sizeof gv) == CJ_OK);
    for (int i = 0; i < 3; i++) CHECK_NEAR(gv[i], 2.0 * (1 + i) * (2 * i) * (5 - i), 1e-6, 0);
    int bad = -4;
    cj_grad_opts gb = {1, &bad, 0};
    CHECK(cj_grad(f, &gb) == NULL);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_grad(f): argnums[0] = -4 is out of range");
    cj_ctx_free(ctx);
}

/* ---- one context, two threads (issue 13) ---- */

typedef struct two_threads {
    cj_ctx *ctx;
    cj_val x;
    atomic_int inside, tried; /* A is inside cj_call; B has tried everything */
    int refused_ok;           /* B: every call refused with the message */
    char problem[300];
} two_threads;

static two_threads *g_tt;

static void fn_hold(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    two_threads *t = g_tt;
    atomic_store(&t->inside, 1);
    for (long spin = 0; !atomic_load(&t->tried) && spin < 200000000L; spin++) sched_yield();
    out[0] = cj_add(in[0], cj_scalar(ctx, 1)); /* the holder's own work goes on */
}

static void *thread_b(void *arg) {
    two_threads *t = arg;
    while (!atomic_load(&t->inside)) sched_yield();
    cj_ctx *ctx = t->ctx;
    int64_t d = 3;
    float buf[3];
    double v;
    cj_val y = cj_add(t->x, t->x);
    int ok = cj_is_error(y);
    ok = ok && cj_is_error(cj_array(ctx, CJ_F32, 1, &d, buf));
    ok = ok && cj_is_error(cj_scalar(ctx, 1));
    ok = ok && cj_scope_begin(ctx) < 0;
    ok = ok && cj_read(t->x, buf, sizeof buf) == CJ_ERR_ARG;
    ok = ok && cj_item(t->x, &v) == CJ_ERR_ARG;
    ok = ok && cj_error(ctx) == CJ_ERR_ARG;
    ok = ok && strstr(cj_error_message(ctx), "add: the context is in use by another thread at the same time");
    if (!ok) snprintf(t->problem, sizeof t->problem, "thread B: %s", cj_error_message(ctx));
    t->refused_ok = ok;
    atomic_store(&t->tried, 1);
    return NULL;
}

/* Two threads in one context aborted with a double free. A thread that
 * arrives while another is inside the context is refused before touching
 * anything (error values and statuses, the message readable from either
 * thread), and the holder's next entry makes it the sticky error. */
TEST(core_context_used_from_two_threads_is_refused) {
    two_threads t;
    memset(&t, 0, sizeof t);
    t.ctx = cj_ctx_new(NULL);
    t.x = tu_ramp(t.ctx, 3, 1, 0);
    g_tt = &t;
    cj_func *f = cj_func_new(t.ctx, "hold", fn_hold, 1, 1, NULL);
    pthread_t b;
    CHECK(pthread_create(&b, NULL, thread_b, &t) == 0);
    cj_val y;
    cj_status st = cj_call(f, &t.x, &y);
    pthread_join(b, NULL);
    CHECK_MSG(t.refused_ok, "%s", t.problem);
    /* the holder's call finished its own work, then met the refusal */
    CHECK(st == CJ_OK || st == CJ_ERR_ARG);
    CHECK(cj_error(t.ctx) == CJ_ERR_ARG);
    CHECK_STR_CONTAINS(cj_error_message(t.ctx), "in use by another thread");
    CHECK(cj_is_error(cj_exp(t.x)));
    cj_error_clear(t.ctx);
    double v = 0;
    CHECK(cj_item(cj_sum(cj_add(t.x, t.x), -1, NULL, 0), &v) == CJ_OK && v == 6);
    cj_ctx_free(t.ctx);
}

typedef struct hammer {
    cj_ctx *ctx;
    cj_val x;
    pthread_barrier_t *start;
    int done, failed;
    char problem[300];
} hammer;

static void *hammer_thread(void *arg) {
    hammer *h = arg;
    pthread_barrier_wait(h->start);
    for (int i = 0; i < 5000 && !h->problem[0]; i++) {
        double v = -1;
        int64_t d = 3;
        float data[3] = {0, 1, 2};
        cj_scope_begin(h->ctx);
        cj_val y = cj_array(h->ctx, CJ_F32, 1, &d, data);
        cj_status st = cj_item(cj_sum(cj_mul(y, cj_scalar(h->ctx, 2)), -1, NULL, 0), &v);
        cj_scope_end(h->ctx, 0, NULL);
        if (st == CJ_OK) {
            if (v != 6) snprintf(h->problem, sizeof h->problem, "iteration %d: %g instead of 6", i, v);
            h->done++;
        } else {
            /* the refusal, or what interleaved scopes did before it (the
             * other thread's scope_end freed this one's values): always
             * recorded, never a crash */
            if (cj_error(h->ctx) == CJ_OK || !cj_error_message(h->ctx)[0])
                snprintf(h->problem, sizeof h->problem, "iteration %d: %s without a recorded error", i,
                         cj_status_name(st));
            h->failed++;
        }
    }
    return NULL;
}

/* Two threads hammering one context with scopes, creation and operations
 * (before, this hung or died of SIGSEGV / a double free): each operation
 * either runs whole (a right result) or fails with a recorded error;
 * nothing crashes, corrupts or leaks, whatever the interleaving (under
 * ASan in `make sanitize`). */
TEST(core_context_hammered_by_two_threads_never_crashes) {
    tu_alloc st = {0};
    cj_allocator a = tu_allocator(&st);
    cj_ctx *ctx = cj_ctx_new(&a);
    cj_val x = tu_ramp(ctx, 3, 1, 0);
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, 2);
    hammer h[2];
    memset(h, 0, sizeof h);
    pthread_t th[2];
    for (int i = 0; i < 2; i++) {
        h[i].ctx = ctx;
        h[i].x = x;
        h[i].start = &start;
        CHECK(pthread_create(&th[i], NULL, hammer_thread, &h[i]) == 0);
    }
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
    pthread_barrier_destroy(&start);
    for (int i = 0; i < 2; i++) CHECK_MSG(!h[i].problem[0], "thread %d: %s", i, h[i].problem);
    CHECK(h[0].done + h[0].failed > 0 && h[1].done + h[1].failed > 0);
    if (getenv("CJAX_TEST_VERBOSE")) printf("hammer: %d+%d done, %d+%d refused\n", h[0].done, h[1].done, h[0].failed, h[1].failed);
    cj_error_clear(ctx);
    double v = 0;
    CHECK(cj_item(cj_sum(x, -1, NULL, 0), &v) == CJ_OK && v == 3);
    cj_ctx_free(ctx);
    CHECK_EQ_INT(st.live, 0);
}
/* ---- function objects of freed contexts ----
 * Every entry point taking a cj_func consults the registry of live
 * function objects before reading one: a function of a freed context (or
 * one freed by cj_func_free) is CJ_ERR_ARG or NULL, never a read of freed
 * memory (ASan: heap-use-after-free before the registry). */
static void fn_square(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_mul(in[0], in[0]);
}

TEST(core_function_of_a_freed_context_is_refused) {
    cj_ctx *gone = cj_ctx_new(NULL);
    cj_func *f = cj_func_new(gone, "square", fn_square, 1, 1, NULL);
    cj_func *jf = cj_jit(f, NULL);
    CHECK(f && jf);
    cj_ctx_free(gone);
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val x = cj_scalar_typed(ctx, 3, CJ_F32), y = cj_scalar(ctx, 7);
    CHECK(cj_call(f, &x, &y) == CJ_ERR_ARG);
    CHECK(cj_call(jf, &x, &y) == CJ_ERR_ARG);
    CHECK_NEAR(cj_item_or_nan(y), 7, 0, 0); /* untouched: nothing was run */
    CHECK(cj_jit(f, NULL) == NULL);
    CHECK(cj_vmap(f, NULL) == NULL);
    CHECK(cj_grad(f, NULL) == NULL);
    CHECK(cj_value_and_grad(f, NULL) == NULL);
    CHECK(cj_jacfwd(f, NULL) == NULL);
    CHECK(cj_jacrev(f, NULL) == NULL);
    CHECK(cj_hessian(f, NULL) == NULL);
    CHECK(cj_checkpoint(f, NULL) == NULL);
    CHECK(cj_custom_jvp(f, NULL) == NULL);
    CHECK(cj_custom_vjp(f, NULL, NULL) == NULL);
    cj_val t = cj_scalar_typed(ctx, 1, CJ_F32), p, tan;
    CHECK(cj_jvp(f, &x, &t, &p, &tan) == CJ_ERR_ARG);
    CHECK(cj_vjp(f, &x, &p) == NULL);
    CHECK(cj_linearize(f, &x, &p) == NULL);
    cj_spec s = cj_spec_make(CJ_F32, 0, NULL);
    CHECK(cj_make_jaxpr(f, 1, &s) == NULL);
    CHECK(cj_saved_residuals(f, NULL, 1, &s, NULL) == NULL);
    CHECK(cj_print_ir(f, 1, &x, stderr) == CJ_ERR_ARG);
    CHECK_EQ_INT(cj_func_n_in(f), -1);
    CHECK_EQ_INT(cj_func_n_out(f), -1);
    CHECK_STR_CONTAINS(cj_func_name(f), "");
    CHECK(cj_func_name(f)[0] == 0);
    cj_func_free(f); /* freed with its context: nothing to do */
    /* the context in use is untouched by all of it */
    CHECK(cj_error(ctx) == CJ_OK);
    /* one freed by cj_func_free the same */
    cj_func *g = cj_func_new(ctx, "square", fn_square, 1, 1, NULL);
    CHECK(cj_call(g, &x, &y) == CJ_OK);
    CHECK_NEAR(cj_item_or_nan(y), 9, 0, 0);
    cj_func_free(g);
    cj_func_free(g);
    CHECK(cj_grad(g, NULL) == NULL);
    CHECK(cj_error(ctx) == CJ_OK);
    cj_ctx_free(ctx);
}

TEST(core_custom_rule_of_another_context_is_refused) {
    cj_ctx *ctx = cj_ctx_new(NULL), *other = cj_ctx_new(NULL);
    cj_func *f = cj_func_new(ctx, "square", fn_square, 1, 1, NULL);
    cj_func *rule = cj_func_new(other, "rule", fn_square, 2, 2, NULL);
    CHECK(cj_custom_jvp(f, rule) == NULL);
    CHECK_EQ_INT(cj_error(ctx), CJ_ERR_ARG);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_custom_jvp: the jvp rule ('rule') belongs to another context");
    CHECK(cj_error(other) == CJ_OK);
    cj_error_clear(ctx);
    CHECK(cj_custom_vjp(f, rule, rule) == NULL);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_custom_vjp: fwd ('rule') belongs to another context");
    cj_error_clear(ctx);
    cj_ctx_free(other);
    CHECK(cj_custom_jvp(f, rule) == NULL); /* its context is gone now */
    CHECK_STR_CONTAINS(cj_error_message(ctx), "the jvp rule is not a live function object");
    cj_ctx_free(ctx);
}
