/* test_func_free.c — cj_func_free for every kind of function object: a
 * loop that makes, calls and frees one keeps the context's memory flat
 * (what the object and the objects made for it hold is freed, jacobians'
 * internal vmaps and pullbacks included); freeing the wrapped function
 * first leaves it to the wrapper, which still works and frees it with
 * itself; a second cj_func_free is a no-op; custom-derivative functions
 * stay alive for the programs that traced them. Values are checked
 * against closed forms of f(x) = sum(sin(x) * x). */
#include <stdlib.h>

#include "harness.h"
#include "test_util.h"

enum {
    KIND_FN,
    KIND_JIT,
    KIND_VMAP,
    KIND_GRAD,
    KIND_VALUE_AND_GRAD,
    KIND_JACFWD,
    KIND_JACREV,
    KIND_HESSIAN,
    KIND_CHECKPOINT,
    KIND_CUSTOM_JVP,
    KIND_CUSTOM_VJP,
    KIND_VJP,
    KIND_LINEARIZE,
    N_KINDS
};
static const char *const kind_names[N_KINDS] = {"cj_func_new", "cj_jit",     "cj_vmap",    "cj_grad",
                                                "cj_value_and_grad", "cj_jacfwd", "cj_jacrev", "cj_hessian",
                                                "cj_checkpoint", "cj_custom_jvp", "cj_custom_vjp", "cj_vjp",
                                                "cj_linearize"};

/* f(x) = sum(sin(x) * x) */
static void fn_f(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    (void)user;
    out[0] = cj_sum(cj_mul(cj_sin(in[0]), in[0]), 0, NULL, 0);
}

/* its jvp rule: (f(x), sum((sin x + x cos x) t)) */
static void fn_f_jvp(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    (void)user;
    cj_val x = in[0], t = in[1];
    out[0] = cj_sum(cj_mul(cj_sin(x), x), 0, NULL, 0);
    out[1] = cj_sum(cj_mul(cj_add(cj_sin(x), cj_mul(x, cj_cos(x))), t), 0, NULL, 0);
}

/* custom_vjp: fwd keeps x; bwd gives ct * (sin x + x cos x) */
static void fn_f_fwd(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    (void)user;
    out[0] = cj_sum(cj_mul(cj_sin(in[0]), in[0]), 0, NULL, 0);
    out[1] = in[0];
}
static void fn_f_bwd(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    (void)user;
    cj_val x = in[0], ct = in[1];
    out[0] = cj_mul(cj_add(cj_sin(x), cj_mul(x, cj_cos(x))), ct);
}

#define N 4
static float xs[N] = {0.5f, -1.25f, 2.0f, 0.125f};

static double f_ref(void) {
    double s = 0;
    for (int i = 0; i < N; i++) s += sin(xs[i]) * xs[i];
    return s;
}
static double df_ref(int i) { return sin(xs[i]) + xs[i] * cos(xs[i]); }
static double d2f_ref(int i) { return 2 * cos(xs[i]) - xs[i] * sin(xs[i]); }

static int near(double a, double b) { return fabs(a - b) <= 1e-5 + 1e-5 * fabs(b); }

/* Reads v (at most 2*N*N f32 values) and checks it against kind's closed
 * form; 1 when it matches. */
static int matches(int kind, const cj_val *out, int n_out) {
    float a[N * N], b[N * N];
    if (n_out < 1 || cj_read(out[0], a, sizeof(float) * (size_t)cj_val_size(out[0])) != CJ_OK) return 0;
    switch (kind) {
    case KIND_FN:
    case KIND_JIT:
    case KIND_CHECKPOINT:
    case KIND_CUSTOM_JVP:
    case KIND_CUSTOM_VJP: return cj_val_size(out[0]) == 1 && near(a[0], f_ref());
    case KIND_VMAP: /* rows of [2, N]: x and -x give the same sum */
        return cj_val_size(out[0]) == 2 && near(a[0], f_ref()) && near(a[1], f_ref());
    case KIND_GRAD:
    case KIND_JACFWD:
    case KIND_JACREV:
    case KIND_VJP:
        for (int i = 0; i < N; i++)
            if (!near(a[i], df_ref(i))) return 0;
        return cj_val_size(out[0]) == N;
    case KIND_VALUE_AND_GRAD:
        if (n_out < 2 || !near(a[0], f_ref()) || cj_read(out[1], b, sizeof(float) * N) != CJ_OK) return 0;
        for (int i = 0; i < N; i++)
            if (!near(b[i], df_ref(i))) return 0;
        return 1;
    case KIND_HESSIAN:
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++)
                if (!near(a[i * N + j], i == j ? d2f_ref(i) : 0)) return 0;
        return cj_val_size(out[0]) == N * N;
    case KIND_LINEARIZE: { /* J · ones */
        double s = 0;
        for (int i = 0; i < N; i++) s += df_ref(i);
        return cj_val_size(out[0]) == 1 && near(a[0], s);
    }
    }
    return 0;
}

/* Makes an object of `kind` over a new f, calls it, checks the result and
 * frees what it made (the wrapped functions first when inner_first).
 * Returns 1 when all went right. */
static int make_call_free(cj_ctx *ctx, int kind, int inner_first) {
    int64_t n = N;
    cj_val x = cj_array(ctx, CJ_F32, 1, &n, xs);
    cj_func *f = cj_func_new(ctx, "f", fn_f, 1, 1, NULL);
    cj_func *helpers[2] = {NULL, NULL}, *g = NULL;
    cj_val in[1] = {x}, out[2], y;
    switch (kind) {
    case KIND_FN: g = f, f = NULL; break;
    case KIND_JIT: g = cj_jit(f, NULL); break;
    case KIND_VMAP: {
        int64_t dims[2] = {2, N};
        in[0] = cj_reshape(cj_concatenate(2, (cj_val[]){x, cj_neg(x)}, 0), 2, dims);
        g = cj_vmap(f, NULL);
        break;
    }
    case KIND_GRAD: g = cj_grad(f, NULL); break;
    case KIND_VALUE_AND_GRAD: g = cj_value_and_grad(f, NULL); break;
    case KIND_JACFWD: g = cj_jacfwd(f, NULL); break;
    case KIND_JACREV: g = cj_jacrev(f, NULL); break;
    case KIND_HESSIAN: g = cj_hessian(f, NULL); break;
    case KIND_CHECKPOINT: g = cj_checkpoint(f, NULL); break;
    case KIND_CUSTOM_JVP:
        helpers[0] = cj_func_new(ctx, "f_jvp", fn_f_jvp, 2, 2, NULL);
        g = cj_custom_jvp(f, helpers[0]);
        break;
    case KIND_CUSTOM_VJP:
        helpers[0] = cj_func_new(ctx, "f_fwd", fn_f_fwd, 1, 2, NULL);
        helpers[1] = cj_func_new(ctx, "f_bwd", fn_f_bwd, 2, 1, NULL);
        g = cj_custom_vjp(f, helpers[0], helpers[1]);
        break;
    case KIND_VJP:
        g = cj_vjp(f, in, &y);
        in[0] = cj_scalar_typed(ctx, 1.0, CJ_F32);
        break;
    case KIND_LINEARIZE:
        g = cj_linearize(f, in, &y);
        in[0] = cj_ones_like(x);
        break;
    }
    if (!g) return 0;
    if (inner_first) {
        cj_func_free(f);
        cj_func_free(helpers[0]);
        cj_func_free(helpers[1]);
    }
    int ok = cj_call(g, in, out) == CJ_OK && matches(kind, out, cj_func_n_out(g));
    cj_func_free(g);
    if (!inner_first) {
        cj_func_free(f);
        cj_func_free(helpers[0]);
        cj_func_free(helpers[1]);
    }
    return ok;
}

/* 1,000 rounds of make, call, free, for each kind and both orders: the
 * context's live bytes after round 1,000 are those after round 100. */
TEST(func_free_every_kind_keeps_memory_flat) {
    for (int kind = 0; kind < N_KINDS; kind++) {
        for (int inner_first = 0; inner_first < 2; inner_first++) {
            tu_alloc al_state = {0};
            cj_allocator al = tu_allocator(&al_state);
            cj_ctx *ctx = cj_ctx_new(&al);
            cj_mem_stats early = {0}, late = {0};
            for (int round = 1; round <= 1000; round++) {
                CHECK(cj_scope_begin(ctx) >= 0);
                int ok = make_call_free(ctx, kind, inner_first);
                cj_scope_end(ctx, 0, NULL);
                CHECK_MSG(ok && cj_error(ctx) == CJ_OK, "%s (inner first %d), round %d: %s", kind_names[kind],
                          inner_first, round, cj_error_message(ctx));
                if (round == 100 || round == 1000) {
                    cj_mem_trim(ctx);
                    cj_mem_stats_get(ctx, round == 100 ? &early : &late);
                }
            }
            CHECK_MSG(late.bytes_live <= early.bytes_live, "%s (inner first %d): live bytes grew from %zu to %zu",
                      kind_names[kind], inner_first, early.bytes_live, late.bytes_live);
            cj_ctx_free(ctx);
            CHECK_EQ_INT(al_state.live, 0);
        }
    }
}

typedef struct traced {
    int calls;
} traced;

static void fn_counted(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    ((traced *)user)->calls++;
    fn_f(ctx, in, out, NULL);
}

/* jit(f) with f freed first: f stays for jit(f), which still traces it
 * for new shapes; a second cj_func_free(f) changes nothing; freeing jit(f)
 * frees both (the memory returns to what it was before either). */
TEST(func_free_inner_first_leaves_it_to_the_wrapper) {
    tu_alloc al_state = {0};
    cj_allocator al = tu_allocator(&al_state);
    cj_ctx *ctx = cj_ctx_new(&al);
    int64_t n = N;
    cj_val x = cj_array(ctx, CJ_F32, 1, &n, xs), y;
    cj_mem_trim(ctx);
    cj_mem_stats before;
    cj_mem_stats_get(ctx, &before);
    CHECK(cj_scope_begin(ctx) >= 0);
    traced t = {0};
    cj_func *f = cj_func_new(ctx, "f", fn_counted, 1, 1, &t);
    cj_jit_opts o = {0, NULL, 0, NULL, CJ_BACKEND_INTERP};
    cj_func *jf = cj_jit(f, &o);
    cj_func *gf = cj_grad(jf, NULL);
    CHECK(cj_call(jf, &x, &y) == CJ_OK);
    cj_func_free(f);
    cj_func_free(f); /* no-op: jit(f) still holds it */
    CHECK(cj_call(jf, &x, &y) == CJ_OK && matches(KIND_JIT, &y, 1));
    CHECK_EQ_INT(t.calls, 1);
    cj_val x2 = cj_concatenate(2, (cj_val[]){x, x}, 0);
    CHECK(cj_call(jf, &x2, &y) == CJ_OK); /* a new shape: f traced again */
    CHECK_EQ_INT(t.calls, 2);
    CHECK_NEAR(cj_item_or_nan(y), 2 * f_ref(), 1e-5, 1e-5);
    cj_func_free(jf); /* grad(jit(f)) holds jit(f), which holds f */
    CHECK(cj_call(gf, &x, &y) == CJ_OK && matches(KIND_GRAD, &y, 1));
    CHECK_EQ_INT(cj_func_n_in(gf), 1);
    cj_func_free(gf);
    cj_scope_end(ctx, 0, NULL);
    CHECK(cj_error(ctx) == CJ_OK);
    cj_mem_stats after;
    cj_mem_trim(ctx);
    cj_mem_stats_get(ctx, &after);
    CHECK_MSG(after.bytes_live <= before.bytes_live + 8192, "live bytes %zu before, %zu after", before.bytes_live,
              after.bytes_live);
    cj_ctx_free(ctx);
    CHECK_EQ_INT(al_state.live, 0);
}

/* A custom_jvp function traced into a jitted gradient: freeing it, its
 * rule and f leaves the program able to run the rule (the context's
 * record of the call holds them). */
TEST(func_free_custom_rule_stays_for_traced_programs) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t n = N;
    cj_val x = cj_array(ctx, CJ_F32, 1, &n, xs), g;
    cj_func *f = cj_func_new(ctx, "f", fn_f, 1, 1, NULL);
    cj_func *rule = cj_func_new(ctx, "f_jvp", fn_f_jvp, 2, 2, NULL);
    cj_func *c = cj_custom_jvp(f, rule);
    cj_func *gc = cj_grad(c, NULL);
    CHECK(cj_call(gc, &x, &g) == CJ_OK && matches(KIND_GRAD, &g, 1));
    cj_func_free(c);
    cj_func_free(rule);
    cj_func_free(f);
    /* grad's cached linearization mentions the call; a new shape traces c again */
    CHECK(cj_call(gc, &x, &g) == CJ_OK && matches(KIND_GRAD, &g, 1));
    cj_val x2 = cj_concatenate(2, (cj_val[]){x, x}, 0);
    CHECK_MSG(cj_call(gc, &x2, &g) == CJ_OK, "%s", cj_error_message(ctx));
    float d[2 * N];
    CHECK(cj_read(g, d, sizeof d) == CJ_OK);
    for (int i = 0; i < 2 * N; i++) CHECK_NEAR(d[i], df_ref(i % N), 1e-5, 1e-5);
    cj_func_free(gc);
    cj_ctx_free(ctx);
}
