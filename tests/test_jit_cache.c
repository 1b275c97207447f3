/* test_jit_cache.c — jit's trace cache as a bounded LRU: which entry a
 * new one evicts, the miss explanation for an evicted signature, the
 * statistics, memory that stays flat over many distinct shapes, the
 * per-function size; and the argument checks of the analysis entry points
 * (cj_jit_memory_analysis, cj_jit_program_info, cj_jit_dump, the
 * pictures), which read a cache entry. */
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"
#include "test_util.h"

typedef struct traced {
    int calls;
} traced;

/* y = 2 x + 1, counting traces */
static void fn_affine(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    if (user) ((traced *)user)->calls++;
    out[0] = cj_add(cj_mul(in[0], cj_scalar(ctx, 2.0)), cj_scalar(ctx, 1.0));
}

static cj_func *interp_jit(cj_ctx *ctx, traced *t) {
    cj_jit_opts o = {0, NULL, 0, NULL, CJ_BACKEND_INTERP};
    return cj_jit(cj_func_new(ctx, "affine", fn_affine, 1, 1, t), &o);
}

/* Calls jf on a ramp of n and checks every element against 2 x + 1. */
static int call_checked(cj_ctx *ctx, cj_func *jf, int64_t n) {
    cj_val x = tu_ramp(ctx, n, 0.5f, -1), y;
    if (cj_call(jf, &x, &y) != CJ_OK) return 0;
    float buf[64];
    int64_t m = n < 64 ? n : 64;
    if (cj_val_size(y) != n || cj_read(cj_slice(y, (int64_t[]){0}, (int64_t[]){m}, NULL), buf, sizeof(float) * (size_t)m) != CJ_OK)
        return 0;
    for (int64_t i = 0; i < m; i++)
        if (buf[i] != 2 * (i * 0.5f - 1) + 1) return 0;
    return 1;
}

TEST(jit_cache_evicts_the_least_recently_used_entry) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    traced t = {0};
    cj_func *jf = interp_jit(ctx, &t);
    CHECK(cj_jit_set_cache_size(jf, 3) == CJ_OK);
    for (int64_t n = 1; n <= 3; n++) CHECK(call_checked(ctx, jf, n));
    CHECK(call_checked(ctx, jf, 1)); /* 1 is now the most recent; 2 the least */
    CHECK(call_checked(ctx, jf, 4)); /* evicts 2 */
    cj_jit_stats st;
    cj_jit_stats_get(jf, &st);
    CHECK_EQ_INT(st.entries, 3);
    CHECK_EQ_INT(st.evictions, 1);
    CHECK_EQ_INT(st.hits, 1);
    CHECK_EQ_INT(st.misses, 4);
    CHECK_EQ_INT(t.calls, 4);
    /* 1, 3 and 4 are still cached */
    CHECK(call_checked(ctx, jf, 3));
    CHECK(call_checked(ctx, jf, 1));
    CHECK(call_checked(ctx, jf, 4));
    CHECK_EQ_INT(t.calls, 4);
    /* 2 was evicted: traced again, and the miss says why */
    CHECK(call_checked(ctx, jf, 2));
    CHECK_EQ_INT(t.calls, 5);
    CHECK_STR_CONTAINS(cj_jit_last_miss(jf), "jit(affine): an entry for these types was evicted (cache size 3)");
    cj_jit_stats_get(jf, &st);
    CHECK_EQ_INT(st.entries, 3);
    CHECK_EQ_INT(st.evictions, 2); /* 3 went to make room: the least recent after 1 and 4 */
    CHECK_EQ_INT(st.hits, 4);
    /* a signature never seen is explained against the closest entry, not as an eviction */
    CHECK(call_checked(ctx, jf, 9));
    CHECK_STR_CONTAINS(cj_jit_last_miss(jf), "argument 0 shape");
    /* cj_jit_clear forgets the evictions too */
    cj_jit_clear(jf);
    CHECK(call_checked(ctx, jf, 2));
    CHECK_STR_CONTAINS(cj_jit_last_miss(jf), "first call");
    CHECK(cj_error(ctx) == CJ_OK);
    cj_ctx_free(ctx);
}

TEST(jit_cache_lowering_the_size_evicts_at_once) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    traced t = {0};
    cj_func *jf = interp_jit(ctx, &t);
    for (int64_t n = 1; n <= 10; n++) CHECK(call_checked(ctx, jf, n));
    cj_jit_stats st;
    cj_jit_stats_get(jf, &st);
    CHECK_EQ_INT(st.entries, 10); /* the default size (1024) keeps all */
    CHECK_EQ_INT(st.evictions, 0);
    CHECK(cj_jit_set_cache_size(jf, 4) == CJ_OK);
    cj_jit_stats_get(jf, &st);
    CHECK_EQ_INT(st.entries, 4);
    CHECK_EQ_INT(st.evictions, 6);
    for (int64_t n = 7; n <= 10; n++) CHECK(call_checked(ctx, jf, n)); /* the four most recent stayed */
    CHECK_EQ_INT(t.calls, 10);
    CHECK(call_checked(ctx, jf, 1));
    CHECK_EQ_INT(t.calls, 11);
    /* 0 restores the knob's size; a negative size and a function that is not jitted are refused */
    CHECK(cj_jit_set_cache_size(jf, 0) == CJ_OK);
    CHECK(cj_jit_set_cache_size(jf, -1) == CJ_ERR_ARG);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_jit_set_cache_size(jit(affine)): the size must be >= 0");
    cj_error_clear(ctx);
    cj_func *plain = cj_func_new(ctx, "plain", fn_affine, 1, 1, NULL);
    CHECK(cj_jit_set_cache_size(plain, 4) == CJ_ERR_ARG);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "not a jitted function");
    cj_error_clear(ctx);
    CHECK(cj_jit_set_cache_size(NULL, 4) == CJ_ERR_ARG);
    cj_ctx_free(ctx);
}

/* 20,000 distinct shapes through a cache of 16: the context's memory
 * after the first 2,000 and after all 20,000 is the same (pooled data
 * buffers trimmed), and the statistics count every eviction. Before the
 * cache was bounded every entry's program and IR stayed. */
TEST(jit_cache_memory_stays_flat_over_20000_shapes) {
    tu_alloc al_state = {0};
    cj_allocator al = tu_allocator(&al_state);
    cj_ctx *ctx = cj_ctx_new(&al);
    traced t = {0};
    cj_func *jf = interp_jit(ctx, &t);
    CHECK(cj_jit_set_cache_size(jf, 16) == CJ_OK);
    cj_mem_stats early = {0}, late = {0};
    for (int64_t n = 1; n <= 20000; n++) {
        CHECK(cj_scope_begin(ctx) >= 0);
        int ok = n % 997 == 1 ? call_checked(ctx, jf, n) : 1;
        if (n % 997 != 1) {
            cj_val x = cj_zeros(ctx, CJ_F32, 1, &n), y;
            ok = cj_call(jf, &x, &y) == CJ_OK;
        }
        cj_scope_end(ctx, 0, NULL);
        CHECK_MSG(ok, "shape %lld: %s", (long long)n, cj_error_message(ctx));
        if (n == 2000 || n == 20000) {
            cj_mem_trim(ctx);
            cj_mem_stats_get(ctx, n == 2000 ? &early : &late);
        }
    }
    /* flat: within a few KiB (the largest shapes' headers, a slot page) */
    CHECK_MSG(late.bytes_live <= early.bytes_live + 16384, "live bytes grew from %zu to %zu", early.bytes_live,
              late.bytes_live);
    cj_jit_stats st;
    cj_jit_stats_get(jf, &st);
    CHECK_EQ_INT(st.entries, 16);
    CHECK_EQ_INT(st.misses, 20000);
    CHECK_EQ_INT(st.evictions, 20000 - 16);
    CHECK_EQ_INT(t.calls, 20000);
    cj_ctx_free(ctx);
    CHECK_EQ_INT(al_state.live, 0);
}

/* A failing allocation anywhere in a run that evicts (making the ring of
 * evicted hashes, growing the table) is a clean error and leaks nothing. */
TEST(jit_cache_eviction_survives_allocation_failure) {
    for (long long fail_at = 1;; fail_at++) {
        tu_alloc al_state = {fail_at, 0, 0, 0, 0};
        cj_allocator al = tu_allocator(&al_state);
        cj_ctx *ctx = cj_ctx_new(&al);
        if (!ctx) continue;
        cj_func *jf = interp_jit(ctx, NULL);
        if (jf) cj_jit_set_cache_size(jf, 2);
        int ok = jf != NULL;
        for (int64_t n = 1; n <= 20 && ok; n++) {
            cj_val x = cj_zeros(ctx, CJ_F32, 1, &n), y;
            ok = cj_call(jf, &x, &y) == CJ_OK;
        }
        if (!ok) CHECK_MSG(cj_error(ctx) == CJ_ERR_OOM, "fail_at %lld: %s", fail_at, cj_error_message(ctx));
        cj_ctx_free(ctx);
        CHECK_MSG(al_state.live == 0, "fail_at %lld: %lld blocks leaked", fail_at, al_state.live);
        if (!al_state.failed) break;
    }
}

TEST(jit_analysis_null_pointers_are_argument_errors) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *jf = interp_jit(ctx, NULL);
    cj_val x = tu_ramp(ctx, 4, 1, 0);
    cj_memory_analysis ma;
    cj_program_info pi;
    const char *const messages[] = {
        "cj_jit_memory_analysis(jit(affine)): in is NULL, the function has 1 input",
        "cj_jit_memory_analysis(jit(affine)): out is NULL",
        "cj_jit_program_info(jit(affine)): in is NULL",
        "cj_jit_program_info(jit(affine)): out is NULL",
        "cj_jit_cost_analysis(jit(affine)): out is NULL",
        "cj_jit_memory_svg(jit(affine)): in is NULL",
        "cj_jit_memory_svg(jit(affine)): path is NULL",
        "cj_jit_program_dot(jit(affine)): in is NULL",
        "cj_jit_program_dot(jit(affine)): path is NULL",
    };
    for (size_t k = 0; k < sizeof messages / sizeof messages[0]; k++) {
        cj_status s = CJ_OK;
        switch (k) {
        case 0: s = cj_jit_memory_analysis(jf, NULL, &ma); break;
        case 1: s = cj_jit_memory_analysis(jf, &x, NULL); break;
        case 2: s = cj_jit_program_info(jf, NULL, &pi); break;
        case 3: s = cj_jit_program_info(jf, &x, NULL); break;
        case 4: s = cj_jit_cost_analysis(jf, &x, NULL); break;
        case 5: s = cj_jit_memory_svg(jf, NULL, "/tmp/never.svg"); break;
        case 6: s = cj_jit_memory_svg(jf, &x, NULL); break;
        case 7: s = cj_jit_program_dot(jf, NULL, "/tmp/never.dot"); break;
        case 8: s = cj_jit_program_dot(jf, &x, NULL); break;
        }
        CHECK_EQ_INT(s, CJ_ERR_ARG);
        CHECK_STR_CONTAINS(cj_error_message(ctx), messages[k]);
        cj_error_clear(ctx);
    }
    CHECK(cj_jit_dump(jf, NULL, NULL) == NULL);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_jit_dump(jit(affine)): in is NULL");
    cj_error_clear(ctx);
    /* NULL function: no context to record in, CJ_ERR_ARG */
    CHECK(cj_jit_memory_analysis(NULL, &x, &ma) == CJ_ERR_ARG);
    CHECK(cj_jit_program_info(NULL, &x, &pi) == CJ_ERR_ARG);
    CHECK(cj_jit_memory_svg(NULL, &x, "/tmp/never.svg") == CJ_ERR_ARG);
    CHECK(cj_jit_program_dot(NULL, &x, "/tmp/never.dot") == CJ_ERR_ARG);
    CHECK(cj_jit_dump(NULL, &x, NULL) == NULL);
    CHECK(cj_error(ctx) == CJ_OK);
    /* and the calls work with their pointers given */
    CHECK(cj_jit_memory_analysis(jf, &x, &ma) == CJ_OK);
    CHECK_EQ_INT(ma.argument_bytes, 16);
    CHECK(cj_jit_program_info(jf, &x, &pi) == CJ_OK);
    CHECK(pi.n_kernels >= 1);
    cj_ctx_free(ctx);
}

static void fn_constant(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)in;
    (void)user;
    out[0] = cj_mul(tu_ramp(ctx, 3, 1, 0), cj_scalar(ctx, 3.0));
}

/* A function of no inputs may pass NULL in. */
TEST(jit_analysis_of_a_function_without_inputs_takes_null_in) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_jit_opts o = {0, NULL, 0, NULL, CJ_BACKEND_INTERP};
    cj_func *jf = cj_jit(cj_func_new(ctx, "constant", fn_constant, 0, 1, NULL), &o);
    cj_memory_analysis ma;
    CHECK_MSG(cj_jit_memory_analysis(jf, NULL, &ma) == CJ_OK, "%s", cj_error_message(ctx));
    CHECK_EQ_INT(ma.argument_bytes, 0);
    CHECK_EQ_INT(ma.output_bytes + ma.constant_bytes, 12); /* f32[3], folded to a constant or computed */
    cj_program_info pi;
    CHECK(cj_jit_program_info(jf, NULL, &pi) == CJ_OK);
    char *text = cj_jit_dump(jf, NULL, "simplify");
    CHECK_MSG(text, "%s", cj_error_message(ctx));
    CHECK_STR_CONTAINS(text, "f32[3]");
    cj_string_free(ctx, text);
    cj_ctx_free(ctx);
}

TEST(jit_dump_unknown_name_lists_the_valid_ones) {
    tu_alloc al_state = {0};
    cj_allocator al = tu_allocator(&al_state);
    cj_ctx *ctx = cj_ctx_new(&al);
    cj_func *jf = interp_jit(ctx, NULL);
    cj_val x = tu_ramp(ctx, 4, 1, 0);
    const char *bad[] = {"bogus", "fuse,bogus", "", "fuse,", "plan,,c"};
    const char *named[] = {"'bogus'", "'bogus'", "''", "''", "''"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        CHECK(cj_jit_dump(jf, &x, bad[k]) == NULL);
        CHECK_EQ_INT(cj_error(ctx), CJ_ERR_ARG);
        CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_jit_dump(jit(affine)): no dump named");
        CHECK_STR_CONTAINS(cj_error_message(ctx), named[k]);
        CHECK_STR_CONTAINS(cj_error_message(ctx), "simplify, fuse, schedule, plan, c");
        cj_error_clear(ctx);
    }
    /* every valid name, alone and together, gives text */
    const char *good[] = {"simplify", "fuse", "schedule", "plan", "c", "simplify,fuse,plan,c"};
    for (size_t k = 0; k < sizeof good / sizeof good[0]; k++) {
        char *text = cj_jit_dump(jf, &x, good[k]);
        CHECK_MSG(text && *text, "%s: %s", good[k], cj_error_message(ctx));
        cj_string_free(ctx, text);
    }
    cj_ctx_free(ctx);
    CHECK_EQ_INT(al_state.live, 0);
}
