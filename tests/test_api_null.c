/* test_api_null.c — every public function of include/cjax.h called with
 * NULL for each of its pointer arguments (issue 13): none may crash, and
 * each reports CJ_ERR_ARG naming the function and the argument, in the
 * context when it has one, else in the calling thread's record of errors
 * without a context (cj_error(NULL) / cj_error_message(NULL)). The
 * documented no-ops (freeing NULL, clearing a NULL cache) are called too.
 * The cj_jit_* introspection calls have their own tests in test_core.c. */
#include <stdlib.h>

#include "harness.h"
#include "test_util.h"

/* The call failed (flag), the error is CJ_ERR_ARG and its message holds
 * `needle`; both records are cleared for the next case. A failed case
 * does not end the test, so one run lists every function that is wrong. */
static int null_case(cj_ctx *ctx, int failed, const char *needle, int line) {
    cj_status st = cj_error(ctx);
    const char *msg = cj_error_message(ctx);
    int ok = failed && st == CJ_ERR_ARG && strstr(msg, needle);
    if (!ok)
        th_fail(__FILE__, line, "%s: want a failure with CJ_ERR_ARG containing \"%s\", got %s%s: \"%s\"", needle, needle,
                failed ? "" : "no failure, ", cj_status_name(st), msg);
    cj_error_clear(ctx);
    cj_error_clear(NULL);
    return ok;
}
#define EXPECT(ctx, failed, needle) null_case((ctx), (failed), (needle), __LINE__)

static void fn_id(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_mul(in[0], in[0]);
}
static void fn_sum(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_sum(cj_mul(in[0], in[0]), -1, NULL, 0);
}
static void fn_pred(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    out[0] = cj_lt(in[0], cj_scalar(ctx, 0));
}
static void fn_body2(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) { /* (i, c) -> c */
    (void)ctx, (void)u;
    out[0] = in[1];
}

typedef struct env {
    cj_ctx *ctx;
    cj_val x, one, key;
    cj_func *f, *g, *pred, *body2;
} env;

static void env_init(env *e) {
    cj_error_clear(NULL); /* earlier tests may have left a context-less error */
    e->ctx = cj_ctx_new(NULL);
    e->x = tu_ramp(e->ctx, 3, 1, 0);
    e->one = cj_scalar(e->ctx, 2);
    e->key = cj_random_key(e->ctx, 0);
    e->f = cj_func_new(e->ctx, "f", fn_id, 1, 1, NULL);
    e->g = cj_func_new(e->ctx, "g", fn_sum, 1, 1, NULL);
    e->pred = cj_func_new(e->ctx, "p", fn_pred, 1, 1, NULL);
    e->body2 = cj_func_new(e->ctx, "b", fn_body2, 2, 1, NULL);
}

TEST(api_null_context_and_values) {
    env e;
    env_init(&e);
    cj_ctx *ctx = e.ctx;
    CHECK(cj_error(ctx) == CJ_OK);
    cj_mem_stats ms;
    memset(&ms, 0xff, sizeof ms);
    cj_mem_stats_get(NULL, &ms);
    CHECK(ms.bytes_live == 0 && ms.n_allocs == 0);
    EXPECT(NULL, 1, "cj_mem_stats_get: ctx is NULL");
    cj_mem_stats_get(ctx, NULL);
    EXPECT(ctx, 1, "cj_mem_stats_get: out is NULL");
    cj_ctx_free(NULL);
    cj_mem_trim(NULL);
    cj_error_clear(NULL);
    CHECK(cj_error(NULL) == CJ_ERR_ARG);
    CHECK(cj_error_message(NULL) != NULL);
    EXPECT(NULL, cj_scope_begin(NULL) < 0, "cj_scope_begin: ctx is NULL");
    cj_scope_end(NULL, 0, NULL);
    EXPECT(NULL, 1, "cj_scope_end: ctx is NULL");
    cj_scope_begin(ctx);
    cj_scope_end(ctx, 1, NULL);
    EXPECT(ctx, 1, "cj_scope_end: keep is NULL");
    cj_val_free((cj_val){0});
    EXPECT(ctx, cj_val_shape(e.x, NULL) < 0, "cj_val_shape: dims is NULL");
    EXPECT(ctx, cj_val_type_str(e.x, NULL, 16) == NULL, "cj_val_type_str: buf is NULL");
    cj_ctx_free(ctx);
}

TEST(api_null_creation_and_reading) {
    env e;
    env_init(&e);
    cj_ctx *ctx = e.ctx;
    int64_t d = 3;
    float data[3] = {1, 2, 3};
    EXPECT(NULL, cj_is_error(cj_array(NULL, CJ_F32, 1, &d, data)), "cj_array: ctx is NULL");
    EXPECT(ctx, cj_is_error(cj_array(ctx, CJ_F32, 1, NULL, data)), "cj_array: dims is NULL");
    EXPECT(ctx, cj_is_error(cj_array(ctx, CJ_F32, 1, &d, NULL)), "cj_array: data is NULL");
    EXPECT(NULL, cj_is_error(cj_scalar(NULL, 1)), "cj_scalar: ctx is NULL");
    EXPECT(NULL, cj_is_error(cj_scalar_int(NULL, 1)), "cj_scalar_int: ctx is NULL");
    EXPECT(NULL, cj_is_error(cj_scalar_typed(NULL, 1, CJ_F64)), "cj_scalar_typed: ctx is NULL");
    EXPECT(NULL, cj_is_error(cj_zeros(NULL, CJ_F32, 1, &d)), "cj_zeros: ctx is NULL");
    EXPECT(NULL, cj_is_error(cj_ones(NULL, CJ_F32, 1, &d)), "cj_ones: ctx is NULL");
    EXPECT(NULL, cj_is_error(cj_full(NULL, 1, CJ_F32, 1, &d)), "cj_full: ctx is NULL");
    EXPECT(ctx, cj_is_error(cj_zeros(ctx, CJ_F32, 1, NULL)), "cj_zeros: dims is NULL");
    EXPECT(ctx, cj_is_error(cj_ones(ctx, CJ_F32, 1, NULL)), "cj_ones: dims is NULL");
    EXPECT(ctx, cj_is_error(cj_full(ctx, 1, CJ_F32, 1, NULL)), "cj_full: dims is NULL");
    EXPECT(NULL, cj_is_error(cj_arange(NULL, 0, 3, 1, CJ_F32)), "cj_arange: ctx is NULL");
    EXPECT(NULL, cj_is_error(cj_linspace(NULL, 0, 1, 3, CJ_F32)), "cj_linspace: ctx is NULL");
    EXPECT(NULL, cj_is_error(cj_eye(NULL, 2, 2, 0, CJ_F32)), "cj_eye: ctx is NULL");
    EXPECT(NULL, cj_is_error(cj_iota(NULL, CJ_I32, 1, &d, 0)), "cj_iota: ctx is NULL");
    EXPECT(ctx, cj_is_error(cj_iota(ctx, CJ_I32, 1, NULL, 0)), "cj_iota: dims is NULL");
    EXPECT(NULL, cj_is_error(cj_random_key(NULL, 0)), "cj_random_key: ctx is NULL");
    EXPECT(NULL, cj_is_error(cj_load_npy(NULL, "x.npy")), "cj_load_npy: ctx is NULL");
    EXPECT(ctx, cj_is_error(cj_load_npy(ctx, NULL)), "cj_load_npy: path is NULL");

    EXPECT(ctx, cj_read(e.x, NULL, 12) != CJ_OK, "cj_read: buf is NULL");
    EXPECT(ctx, cj_read_as(e.x, CJ_F64, NULL, 24) != CJ_OK, "cj_read: buf is NULL");
    EXPECT(ctx, cj_item(e.one, NULL) != CJ_OK, "cj_item: out is NULL");
    EXPECT(ctx, cj_item_int(e.one, NULL) != CJ_OK, "cj_item_int: out is NULL");
    cj_print(e.x, NULL);
    EXPECT(ctx, 1, "cj_print: out is NULL");
    EXPECT(ctx, cj_save_npy(e.x, NULL) != CJ_OK, "cj_save_npy: path is NULL");
    /* the buffers themselves still read */
    float back[3];
    CHECK(cj_read(e.x, back, sizeof back) == CJ_OK && back[2] == 2);
    cj_ctx_free(ctx);
}

TEST(api_null_operations) {
    env e;
    env_init(&e);
    cj_ctx *ctx = e.ctx;
    cj_val m = cj_reshape(tu_ramp(ctx, 6, 1, 0), 2, (int64_t[]){2, 3});
    int64_t s2[2] = {2, 3}, dims1[1] = {1}, one[1] = {1}, zero[1] = {0};
    EXPECT(ctx, cj_is_error(cj_broadcast_in_dim(e.x, 2, NULL, dims1)), "cj_broadcast_in_dim: shape is NULL");
    EXPECT(ctx, cj_is_error(cj_broadcast_in_dim(e.x, 2, s2, NULL)), "cj_broadcast_in_dim: dims is NULL");
    EXPECT(ctx, cj_is_error(cj_broadcast_to(e.x, 2, NULL)), "cj_broadcast_to: shape is NULL");
    EXPECT(ctx, cj_is_error(cj_reshape(e.x, 1, NULL)), "cj_reshape: shape is NULL");
    EXPECT(ctx, cj_is_error(cj_slice(e.x, NULL, one, NULL)), "cj_slice: start is NULL");
    EXPECT(ctx, cj_is_error(cj_slice(e.x, zero, NULL, NULL)), "cj_slice: limit is NULL");
    cj_val i0 = cj_scalar_int(ctx, 0);
    EXPECT(ctx, cj_is_error(cj_dynamic_slice(e.x, NULL, one)), "cj_dynamic_slice: start is NULL");
    EXPECT(ctx, cj_is_error(cj_dynamic_slice(e.x, &i0, NULL)), "cj_dynamic_slice: sizes is NULL");
    EXPECT(ctx, cj_is_error(cj_dynamic_update_slice(e.x, e.x, NULL)), "cj_dynamic_update_slice: start is NULL");
    EXPECT(NULL, cj_is_error(cj_concatenate(2, NULL, 0)), "cj_concatenate: xs is NULL");
    EXPECT(ctx, cj_is_error(cj_pad(e.x, e.one, NULL, one, NULL)), "cj_pad: lo is NULL");
    EXPECT(ctx, cj_is_error(cj_pad(e.x, e.one, one, NULL, NULL)), "cj_pad: hi is NULL");
    EXPECT(ctx, cj_is_error(cj_dot_general(e.x, e.x, 1, NULL, zero, 0, NULL, NULL)), "dot_general: lhs contracting dimension list is NULL");
    EXPECT(ctx, cj_is_error(cj_dot_general(e.x, e.x, 1, zero, NULL, 0, NULL, NULL)), "dot_general: rhs contracting dimension list is NULL");
    EXPECT(ctx, cj_is_error(cj_dot_general(m, m, 0, NULL, NULL, 1, NULL, zero)), "dot_general: lhs batch dimension list is NULL");
    EXPECT(ctx, cj_is_error(cj_dot_general(m, m, 0, NULL, NULL, 1, zero, NULL)), "dot_general: rhs batch dimension list is NULL");
    EXPECT(ctx, cj_is_error(cj_random_bits(e.key, 1, NULL)), "random_bits: shape is NULL");
    EXPECT(ctx, cj_is_error(cj_random_uniform(e.key, CJ_F32, 1, NULL, 0, 1)), "random_uniform: shape is NULL");
    EXPECT(ctx, cj_is_error(cj_random_normal(e.key, CJ_F32, 1, NULL)), "random_normal: shape is NULL");
    EXPECT(ctx, cj_is_error(cj_random_bernoulli(e.key, 0.5, 1, NULL)), "random_bernoulli: shape is NULL");
    EXPECT(ctx, cj_is_error(cj_random_randint(e.key, 1, NULL, 0, 9, CJ_I32)), "random_randint: shape is NULL");
    EXPECT(ctx, cj_is_error(cj_checkpoint_name(e.x, NULL)), "checkpoint_name: a name of 1..63 characters is needed (got NULL)");
    /* NULL axes are documented: every axis (reductions), every size-1 axis
     * (squeeze), every axis (rev) */
    double total = 0;
    CHECK(cj_item(cj_sum(e.x, 1, NULL, 0), &total) == CJ_OK && total == 3);
    CHECK(cj_item(cj_reduce_max(e.x, 1, NULL, 0), &total) == CJ_OK && total == 2);
    CHECK(cj_val_rank(cj_squeeze(cj_reshape(e.x, 2, (int64_t[]){1, 3}), 1, NULL)) == 1);
    CHECK(cj_item(cj_sum(cj_mul(cj_rev(e.x, 1, NULL), e.x), -1, NULL, 0), &total) == CJ_OK && total == 1);
    cj_ctx_free(ctx);
}

TEST(api_null_functions_and_transformations) {
    env e;
    env_init(&e);
    cj_ctx *ctx = e.ctx;
    cj_val out[2];
    EXPECT(NULL, cj_func_new(NULL, "f", fn_id, 1, 1, NULL) == NULL, "cj_func_new: ctx is NULL");
    EXPECT(ctx, cj_func_new(ctx, "f", NULL, 1, 1, NULL) == NULL, "cj_func_new: fn is NULL");
    CHECK(cj_func_new(ctx, NULL, fn_id, 1, 1, NULL) != NULL); /* a NULL name is "f" */
    CHECK(cj_func_n_in(NULL) == -1 && cj_func_n_out(NULL) == -1 && strcmp(cj_func_name(NULL), "") == 0);
    EXPECT(NULL, cj_call(NULL, &e.x, out) != CJ_OK, "cj_call: f is NULL");
    EXPECT(ctx, cj_call(e.f, NULL, out) != CJ_OK, "cj_call(f): in is NULL");
    EXPECT(ctx, cj_call(e.f, &e.x, NULL) != CJ_OK, "cj_call(f): out is NULL");

    EXPECT(NULL, cj_jit(NULL, NULL) == NULL, "cj_jit: f is NULL");
    cj_jit_opts jo = {0};
    jo.n_static = 1;
    EXPECT(ctx, cj_jit(e.f, &jo) == NULL, "cj_jit(f): static_argnums is NULL");
    jo.n_static = 0;
    jo.n_donate = 1;
    EXPECT(ctx, cj_jit(e.f, &jo) == NULL, "cj_jit(f): donate_argnums is NULL");
    cj_func *jf = cj_jit(e.f, NULL);
    cj_jit_stats js;
    memset(&js, 0xff, sizeof js);
    cj_jit_stats_get(NULL, &js);
    CHECK(js.hits == 0 && js.entries == 0);
    EXPECT(NULL, 1, "cj_jit_stats_get: jitted is NULL");
    cj_jit_stats_get(jf, NULL);
    EXPECT(ctx, 1, "cj_jit_stats_get: out is NULL");
    CHECK(strcmp(cj_jit_last_miss(NULL), "") == 0 && strcmp(cj_jit_last_donation(NULL), "") == 0);
    cj_jit_clear(NULL);
    cj_clear_caches(NULL);
    EXPECT(NULL, cj_vmap(NULL, NULL) == NULL, "cj_vmap: f is NULL");

    cj_spec bad = cj_spec_make(CJ_F32, 1, NULL);
    CHECK(bad.rank == -1);
    CHECK(cj_spec_of((cj_val){0}).rank == -1);
    cj_error_clear(NULL);
    EXPECT(NULL, cj_make_jaxpr(NULL, 0, NULL) == NULL, "cj_make_jaxpr: f is NULL");
    EXPECT(ctx, cj_make_jaxpr(e.f, 1, NULL) == NULL, "cj_make_jaxpr(f): in is NULL");
    CHECK(cj_make_jaxpr(e.f, 1, &bad) == NULL && cj_error(ctx) == CJ_ERR_SHAPE);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_make_jaxpr(f): spec 0 has rank -1");
    cj_error_clear(ctx);
    cj_string_free(ctx, NULL);
    cj_string_free(NULL, NULL);
    EXPECT(NULL, cj_print_ir(NULL, 1, &e.x, NULL) != CJ_OK, "cj_print_ir: f is NULL");
    EXPECT(ctx, cj_print_ir(e.f, 1, NULL, NULL) != CJ_OK, "cj_print_ir(f): example is NULL");

    cj_func *bs[2] = {e.f, NULL};
    cj_val i0 = cj_scalar_int(ctx, 0);
    EXPECT(ctx, cj_cond(e.one, NULL, e.f, 1, &e.x, out) != CJ_OK, "cj_cond: true_f is NULL");
    EXPECT(ctx, cj_cond(e.one, e.f, NULL, 1, &e.x, out) != CJ_OK, "cj_cond: false_f is NULL");
    EXPECT(ctx, cj_cond(e.one, e.f, e.f, 1, NULL, out) != CJ_OK, "cj_cond: operands is NULL");
    EXPECT(ctx, cj_cond(e.one, e.f, e.f, 1, &e.x, NULL) != CJ_OK, "cj_cond: out is NULL");
    EXPECT(ctx, cj_switch(i0, 2, NULL, 1, &e.x, out) != CJ_OK, "cj_switch: branches is NULL");
    EXPECT(ctx, cj_switch(i0, 2, bs, 1, &e.x, out) != CJ_OK, "cj_switch: branches[1] is NULL");
    EXPECT(ctx, cj_switch(i0, 1, bs, 1, NULL, out) != CJ_OK, "cj_switch: operands is NULL");
    EXPECT(ctx, cj_switch(i0, 1, bs, 1, &e.x, NULL) != CJ_OK, "cj_switch: out is NULL");
    EXPECT(ctx, cj_while_loop(NULL, e.f, 1, &e.one, out) != CJ_OK, "cj_while_loop: cond_f is NULL");
    EXPECT(ctx, cj_while_loop(e.pred, NULL, 1, &e.one, out) != CJ_OK, "cj_while_loop: body_f is NULL");
    EXPECT(ctx, cj_while_loop(e.pred, e.f, 1, NULL, out) != CJ_OK, "cj_while_loop: init is NULL");
    EXPECT(ctx, cj_while_loop(e.pred, e.f, 1, &e.one, NULL) != CJ_OK, "cj_while_loop: out is NULL");
    EXPECT(ctx, cj_fori_loop(0, 2, NULL, 1, &e.one, out) != CJ_OK, "cj_fori_loop: body is NULL");
    EXPECT(ctx, cj_fori_loop(0, 2, e.body2, 1, NULL, out) != CJ_OK, "cj_fori_loop: init is NULL");
    EXPECT(ctx, cj_fori_loop(0, 2, e.body2, 1, &e.one, NULL) != CJ_OK, "cj_fori_loop: out is NULL");
    cj_scan_opts so = {0};
    so.length = 2;
    so.has_length = 1;
    EXPECT(ctx, cj_scan(NULL, 1, &e.one, 0, NULL, &so, out, NULL) != CJ_OK, "cj_scan: body is NULL");
    EXPECT(ctx, cj_scan(e.f, 1, NULL, 0, NULL, &so, out, NULL) != CJ_OK, "cj_scan: init is NULL");
    EXPECT(ctx, cj_scan(e.body2, 1, &e.one, 1, NULL, NULL, out, NULL) != CJ_OK, "cj_scan: xs is NULL");
    EXPECT(ctx, cj_scan(e.f, 1, &e.one, 0, NULL, &so, NULL, NULL) != CJ_OK, "cj_scan: carry_out is NULL");
    /* ys may be NULL when the body returns no y slices */
    CHECK(cj_scan(e.body2, 1, &e.one, 1, &e.x, NULL, out, NULL) == CJ_OK);

    EXPECT(NULL, cj_jvp(NULL, &e.x, &e.x, out, out + 1) != CJ_OK, "cj_jvp: f is NULL");
    EXPECT(ctx, cj_jvp(e.f, NULL, &e.x, out, out + 1) != CJ_OK, "cj_jvp(f): primals is NULL");
    EXPECT(ctx, cj_jvp(e.f, &e.x, NULL, out, out + 1) != CJ_OK, "cj_jvp(f): tangents is NULL");
    EXPECT(ctx, cj_jvp(e.f, &e.x, &e.x, NULL, out + 1) != CJ_OK, "cj_jvp(f): primals_out is NULL");
    EXPECT(ctx, cj_jvp(e.f, &e.x, &e.x, out, NULL) != CJ_OK, "cj_jvp(f): tangents_out is NULL");
    EXPECT(NULL, cj_vjp(NULL, &e.x, out) == NULL, "cj_vjp: f is NULL");
    EXPECT(ctx, cj_vjp(e.f, NULL, out) == NULL, "cj_vjp(f): primals is NULL");
    EXPECT(ctx, cj_vjp(e.f, &e.x, NULL) == NULL, "cj_vjp(f): primals_out is NULL");
    EXPECT(NULL, cj_linearize(NULL, &e.x, out) == NULL, "cj_linearize: f is NULL");
    EXPECT(ctx, cj_linearize(e.f, NULL, out) == NULL, "cj_linearize(f): primals is NULL");
    EXPECT(ctx, cj_linearize(e.f, &e.x, NULL) == NULL, "cj_linearize(f): primals_out is NULL");
    cj_grad_opts go = {0};
    go.n_argnums = 1;
    EXPECT(NULL, cj_grad(NULL, NULL) == NULL, "cj_grad: f is NULL");
    EXPECT(ctx, cj_grad(e.g, &go) == NULL, "cj_grad(g): argnums is NULL");
    EXPECT(NULL, cj_value_and_grad(NULL, NULL) == NULL, "cj_value_and_grad: f is NULL");
    EXPECT(ctx, cj_value_and_grad(e.g, &go) == NULL, "cj_value_and_grad(g): argnums is NULL");
    EXPECT(NULL, cj_jacfwd(NULL, NULL) == NULL, "cj_jacfwd: f is NULL");
    EXPECT(ctx, cj_jacfwd(e.f, &go) == NULL, "cj_jacfwd(f): argnums is NULL");
    EXPECT(NULL, cj_jacrev(NULL, NULL) == NULL, "cj_jacrev: f is NULL");
    EXPECT(ctx, cj_jacrev(e.f, &go) == NULL, "cj_jacrev(f): argnums is NULL");
    EXPECT(NULL, cj_hessian(NULL, NULL) == NULL, "cj_hessian: f is NULL");
    EXPECT(ctx, cj_hessian(e.g, &go) == NULL, "cj_hessian(g): argnums is NULL");
    EXPECT(NULL, cj_checkpoint(NULL, NULL) == NULL, "cj_checkpoint: f is NULL");
    cj_checkpoint_opts co = {0};
    co.policy = CJ_SAVE_NAMED;
    co.n_names = 1;
    EXPECT(ctx, cj_checkpoint(e.f, &co) == NULL, "cj_checkpoint(f): names is NULL");
    int64_t d3 = 3;
    cj_spec sp = cj_spec_make(CJ_F32, 1, &d3);
    EXPECT(NULL, cj_saved_residuals(NULL, NULL, 1, &sp, NULL) == NULL, "cj_saved_residuals: f is NULL");
    EXPECT(ctx, cj_saved_residuals(e.g, NULL, 1, NULL, NULL) == NULL, "cj_saved_residuals(g): in is NULL");
    EXPECT(ctx, cj_saved_residuals(e.g, &go, 1, &sp, NULL) == NULL, "cj_saved_residuals(g): argnums is NULL");
    EXPECT(NULL, cj_custom_jvp(NULL, e.f) == NULL, "cj_custom_jvp: f is NULL");
    EXPECT(ctx, cj_custom_jvp(e.f, NULL) == NULL, "cj_custom_jvp(f): jvp_rule is NULL");
    EXPECT(NULL, cj_custom_vjp(NULL, e.f, e.f) == NULL, "cj_custom_vjp: f is NULL");
    EXPECT(ctx, cj_custom_vjp(e.f, NULL, e.f) == NULL, "cj_custom_vjp(f): fwd is NULL");
    EXPECT(ctx, cj_custom_vjp(e.f, e.f, NULL) == NULL, "cj_custom_vjp(f): bwd is NULL");
    cj_func_free(NULL);
    /* the context still works after all of that */
    CHECK(cj_call(e.g, &e.x, out) == CJ_OK);
    double v = 0;
    CHECK(cj_item(out[0], &v) == CJ_OK && v == 5);
    cj_ctx_free(ctx);
}
