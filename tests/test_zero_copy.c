/* test_zero_copy.c — borrowed arrays and caller output buffers (issue 18):
 * results against plain loops, no copies (pointer equality and the
 * context allocator's byte counts), refused misaligned or mis-sized
 * buffers, release callbacks run exactly once (at the last reference, on
 * error paths, at cj_ctx_free), donations of borrowed arrays refused. */
#include <stdlib.h>

#include "harness.h"
#include "test_util.h"

typedef struct releases {
    int calls;
    const void *last;
} releases;

static void count_release(void *user, void *data) {
    releases *r = user;
    r->calls++;
    r->last = data;
}

static void f_sin_plus(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_add(cj_sin(in[0]), cj_mul(in[0], in[1]));
}

TEST(borrow_reads_in_place_and_releases_once) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    float *buf = aligned_alloc(64, 64 * sizeof(float));
    for (int i = 0; i < 64; i++) buf[i] = 0.25f * (float)i - 3.0f;
    releases r = {0, NULL};
    cj_mem_stats m0, m1;
    cj_mem_stats_get(ctx, &m0);
    int64_t dims[2] = {8, 8};
    cj_val x = cj_array_borrow(ctx, CJ_F32, 2, dims, buf, 64 * sizeof(float), count_release, &r);
    CHECK(!cj_is_error(x));
    cj_mem_stats_get(ctx, &m1);
    CHECK(cj_array_is_borrowed(x));
    CHECK(cj_array_data(x) == buf);                               /* no copy: the caller's pointer */
    CHECK_EQ_INT(m1.bytes_in_arrays, m0.bytes_in_arrays);        /* no data allocated */
    CHECK_EQ_INT(m1.bytes_borrowed - m0.bytes_borrowed, 64 * sizeof(float));
    cj_val y = cj_exp(x);
    float out[64];
    CHECK_EQ_INT(cj_read(y, out, sizeof out), CJ_OK);
    for (int i = 0; i < 64; i++) CHECK_NEAR(out[i], expf(buf[i]), 1e-6, 0);
    cj_val_free(y);
    CHECK_EQ_INT(r.calls, 0);
    cj_val_free(x);
    CHECK_EQ_INT(r.calls, 1); /* the last reference went */
    CHECK(r.last == buf);
    cj_mem_stats_get(ctx, &m1);
    CHECK_EQ_INT(m1.bytes_borrowed, m0.bytes_borrowed);
    cj_ctx_free(ctx);
    CHECK_EQ_INT(r.calls, 1);
    free(buf);
}

TEST(borrow_released_at_ctx_free_and_after_jit_holds_it) {
    releases r = {0, NULL};
    double data[6] = {1, 2, 3, 4, 5, 6};
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t dims[1] = {6};
    cj_val x = cj_array_borrow(ctx, CJ_F64, 1, dims, data, sizeof data, count_release, &r);
    cj_func *jf = cj_jit(cj_func_new(ctx, "f", f_sin_plus, 2, 1, NULL), NULL);
    cj_val y;
    cj_val in[2] = {x, x};
    CHECK_EQ_INT(cj_call(jf, in, &y), CJ_OK);
    double got[6];
    cj_read(y, got, sizeof got);
    for (int i = 0; i < 6; i++) CHECK_NEAR(got[i], sin(data[i]) + data[i] * data[i], 1e-15, 0);
    CHECK_EQ_INT(r.calls, 0);
    cj_ctx_free(ctx); /* the value is still in the outer scope: freed here */
    CHECK_EQ_INT(r.calls, 1);
}

TEST(borrow_release_runs_on_every_error_path) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    releases r = {0, NULL};
    char raw[64] __attribute__((aligned(16)));
    memset(raw, 0, sizeof raw);
    int64_t dims[1] = {4};
    /* misaligned for f32 */
    cj_val x = cj_array_borrow(ctx, CJ_F32, 1, dims, raw + 2, 16, count_release, &r);
    CHECK(cj_is_error(x));
    CHECK_EQ_INT(cj_error(ctx), CJ_ERR_ARG);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_array_borrow");
    CHECK_STR_CONTAINS(cj_error_message(ctx), "aligned to 2 bytes");
    CHECK_STR_CONTAINS(cj_error_message(ctx), "f32 elements need 4");
    CHECK_EQ_INT(r.calls, 1);
    CHECK(r.last == raw + 2);
    cj_error_clear(ctx);
    /* too small */
    x = cj_array_borrow(ctx, CJ_F32, 1, dims, raw, 12, count_release, &r);
    CHECK(cj_is_error(x));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "holds 12 bytes, f32[4] needs 16");
    CHECK_EQ_INT(r.calls, 2);
    cj_error_clear(ctx);
    /* a negative dimension, a bad dtype, NULL data */
    int64_t bad[1] = {-1};
    x = cj_array_borrow(ctx, CJ_F32, 1, bad, raw, 16, count_release, &r);
    CHECK(cj_is_error(x) && cj_error(ctx) == CJ_ERR_SHAPE);
    CHECK_EQ_INT(r.calls, 3);
    cj_error_clear(ctx);
    x = cj_array_borrow(ctx, (cj_dtype)99, 1, dims, raw, 16, count_release, &r);
    CHECK(cj_is_error(x) && cj_error(ctx) == CJ_ERR_DTYPE);
    CHECK_EQ_INT(r.calls, 4);
    cj_error_clear(ctx);
    x = cj_array_borrow(ctx, CJ_F32, 1, dims, NULL, 16, count_release, &r);
    CHECK(cj_is_error(x) && cj_error(ctx) == CJ_ERR_ARG);
    CHECK_EQ_INT(r.calls, 5);
    cj_error_clear(ctx);
    /* bools other than 0/1 */
    uint8_t bools[3] = {0, 2, 1};
    int64_t d3[1] = {3};
    x = cj_array_borrow(ctx, CJ_BOOL, 1, d3, bools, 3, count_release, &r);
    CHECK(cj_is_error(x));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "bool element 1 holds 2");
    CHECK_EQ_INT(r.calls, 6);
    cj_error_clear(ctx);
    /* a context already in error: refused, still released */
    cj_val e = cj_add(cj_zeros(ctx, CJ_F32, 1, dims), cj_zeros(ctx, CJ_F32, 1, d3));
    CHECK(cj_is_error(e));
    x = cj_array_borrow(ctx, CJ_F32, 1, dims, raw, 16, count_release, &r);
    CHECK(cj_is_error(x));
    CHECK_EQ_INT(r.calls, 7);
    cj_error_clear(ctx);
    /* no context */
    x = cj_array_borrow(NULL, CJ_F32, 1, dims, raw, 16, count_release, &r);
    CHECK(cj_is_error(x));
    CHECK_EQ_INT(r.calls, 8);
    cj_error_clear(NULL);
    /* an empty array may be NULL */
    int64_t d0[1] = {0};
    x = cj_array_borrow(ctx, CJ_F32, 1, d0, NULL, 0, count_release, &r);
    CHECK(!cj_is_error(x));
    CHECK_EQ_INT(cj_val_size(x), 0);
    cj_ctx_free(ctx);
    CHECK_EQ_INT(r.calls, 9);
}

TEST(borrow_release_on_header_oom) {
    /* every allocation failure point of a borrow: released once, no leak */
    for (long long k = 1; k < 40; k++) {
        tu_alloc st = {0};
        cj_allocator al = tu_allocator(&st);
        cj_ctx *ctx = cj_ctx_new(&al);
        if (!ctx) continue;
        st.fail_at = st.count + k;
        releases r = {0, NULL};
        float data[4] = {1, 2, 3, 4};
        int64_t dims[1] = {4};
        cj_val x = cj_array_borrow(ctx, CJ_F32, 1, dims, data, sizeof data, count_release, &r);
        int failed = cj_is_error(x);
        if (!failed) CHECK_EQ_INT(r.calls, 0);
        else CHECK_EQ_INT(r.calls, 1);
        cj_ctx_free(ctx);
        CHECK_EQ_INT(r.calls, 1);
        CHECK_EQ_INT(st.live, 0);
        if (!failed) break;
    }
}

static void f_scale_in_place(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_mul(in[0], cj_scalar(ctx, 2.0));
}

TEST(borrow_donation_refused_caller_memory_untouched) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    float data[16];
    for (int i = 0; i < 16; i++) data[i] = (float)i;
    releases r = {0, NULL};
    int64_t dims[1] = {16};
    cj_val x = cj_array_borrow(ctx, CJ_F32, 1, dims, data, sizeof data, count_release, &r);
    int donate[1] = {0};
    cj_jit_opts o = {0, NULL, 1, donate, CJ_BACKEND_INTERP};
    cj_func *jf = cj_jit(cj_func_new(ctx, "scale", f_scale_in_place, 1, 1, NULL), &o);
    cj_val y;
    CHECK_EQ_INT(cj_call(jf, &x, &y), CJ_OK);
    CHECK_STR_CONTAINS(cj_jit_last_donation(jf), "borrowed");
    CHECK(cj_array_data(y) != data);
    for (int i = 0; i < 16; i++) CHECK_EQ_INT((int)data[i], i); /* never written */
    float got[16];
    cj_read(y, got, sizeof got);
    for (int i = 0; i < 16; i++) CHECK_EQ_INT((int)got[i], 2 * i);
    /* the borrowed value is still usable (not consumed) */
    cj_val z = cj_sum(x, 0, NULL, 0);
    CHECK(!cj_is_error(z));
    CHECK_NEAR(cj_item_or_nan(z), 120.0, 0, 0);
    cj_ctx_free(ctx);
    CHECK_EQ_INT(r.calls, 1);
}

/* ---- cj_call_into ---- */
static void f_mlp(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    cj_val h = cj_tanh(cj_add(cj_matmul(in[0], in[1]), in[2]));
    out[0] = h;
    out[1] = cj_sum(cj_mul(h, h), 0, NULL, 0);
}

static void mlp_ref(const float *x, const float *w, const float *b, int n, int k, int m, float *h, float *s) {
    double acc = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            double t = b[j];
            for (int q = 0; q < k; q++) t += (double)x[i * k + q] * w[q * m + j];
            h[i * m + j] = (float)tanh(t);
            acc += (double)h[i * m + j] * h[i * m + j];
        }
    *s = (float)acc;
}

static void run_call_into(cj_backend backend) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    enum { N = 32, K = 16, M = 24 };
    static float x[N * K], w[K * M], b[M];
    uint64_t seed = 18;
    for (int i = 0; i < N * K; i++) x[i] = (float)th_rand_uniform(&seed, -1, 1);
    for (int i = 0; i < K * M; i++) w[i] = (float)th_rand_uniform(&seed, -0.5, 0.5);
    for (int i = 0; i < M; i++) b[i] = (float)th_rand_uniform(&seed, -0.1, 0.1);
    int64_t dx[2] = {N, K}, dw[2] = {K, M}, db[1] = {M}, dh[2] = {N, M};
    cj_val in[3] = {cj_array_borrow(ctx, CJ_F32, 2, dx, x, sizeof x, NULL, NULL),
                    cj_array_borrow(ctx, CJ_F32, 2, dw, w, sizeof w, NULL, NULL),
                    cj_array_borrow(ctx, CJ_F32, 1, db, b, sizeof b, NULL, NULL)};
    cj_jit_opts o = {0, NULL, 0, NULL, backend};
    cj_func *jf = cj_jit(cj_func_new(ctx, "mlp", f_mlp, 3, 2, NULL), &o);
    float *h = aligned_alloc(64, sizeof(float) * N * M);
    float s __attribute__((aligned(64))) = 0;
    float href[N * M], sref;
    mlp_ref(x, w, b, N, K, M, href, &sref);
    cj_out_buffer out[2] = {{h, sizeof(float) * N * M, CJ_F32, 2, dh}, {&s, sizeof s, CJ_F32, 0, NULL}};
    CHECK_EQ_INT(cj_call_into(jf, in, out), CJ_OK); /* compiles; warms the pool */
    CHECK_EQ_INT(cj_call_into(jf, in, out), CJ_OK);
    memset(h, 0, sizeof(float) * N * M);
    s = 0;
    cj_mem_stats m0, m1;
    cj_jit_stats j0, j1;
    cj_mem_stats_get(ctx, &m0);
    cj_jit_stats_get(jf, &j0);
    CHECK_EQ_INT(cj_call_into(jf, in, out), CJ_OK);
    cj_mem_stats_get(ctx, &m1);
    cj_jit_stats_get(jf, &j1);
    CHECK_MSG(!cj_error(ctx), "%s", cj_error_message(ctx));
    for (int i = 0; i < N * M; i++) CHECK_NEAR(h[i], href[i], 1e-5, 1e-6);
    CHECK_NEAR(s, sref, 1e-4, 0);
    /* both outputs written by the kernels themselves, nothing allocated */
    CHECK_EQ_INT(j1.into_direct - j0.into_direct, 2);
    CHECK_EQ_INT(j1.into_copied - j0.into_copied, 0);
    CHECK_EQ_INT(m1.n_allocs - m0.n_allocs, 0);
    CHECK_EQ_INT(m1.bytes_in_arrays, m0.bytes_in_arrays);
    free(h);
    cj_ctx_free(ctx);
}

TEST(call_into_writes_caller_buffers_interp) { run_call_into(CJ_BACKEND_INTERP); }
TEST(call_into_writes_caller_buffers_cc) { run_call_into(CJ_BACKEND_CC); }

static void f_pass(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = in[0];                   /* an input returned as it is */
    out[1] = cj_neg(in[0]);
    out[2] = out[1];                  /* the same result twice */
}

TEST(call_into_copies_what_no_kernel_writes_and_counts) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    float xs[5] = {1, -2, 3, -4, 5};
    int64_t d[1] = {5};
    cj_val x = cj_array(ctx, CJ_F32, 1, d, xs);
    cj_func *jf = cj_jit(cj_func_new(ctx, "pass", f_pass, 1, 3, NULL), NULL);
    float a[5], b[5], c[5];
    cj_out_buffer out[3] = {{a, sizeof a, CJ_F32, 1, d}, {b, sizeof b, CJ_F32, 1, d}, {c, sizeof c, CJ_F32, 1, d}};
    CHECK_EQ_INT(cj_call_into(jf, &x, out), CJ_OK);
    for (int i = 0; i < 5; i++) {
        CHECK_EQ_INT((int)a[i], (int)xs[i]);
        CHECK_EQ_INT((int)b[i], -(int)xs[i]);
        CHECK_EQ_INT((int)c[i], -(int)xs[i]);
    }
    cj_jit_stats js;
    cj_jit_stats_get(jf, &js);
    CHECK_EQ_INT(js.into_direct, 1); /* out[1] */
    CHECK_EQ_INT(js.into_copied, 2); /* the input, and the repeat */
    cj_ctx_free(ctx);
}

TEST(call_into_refuses_wrong_buffers_before_running) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    float xs[4] = {1, 2, 3, 4};
    int64_t d[1] = {4}, d2[2] = {2, 2}, d5[1] = {5};
    cj_val x = cj_array(ctx, CJ_F32, 1, d, xs);
    cj_func *jf = cj_jit(cj_func_new(ctx, "scale", f_scale_in_place, 1, 1, NULL), NULL);
    char raw[64] __attribute__((aligned(16)));
    float sentinel = 12345.0f;
    for (int i = 0; i < 16; i++) memcpy(raw + 4 * i, &sentinel, 4);
    struct {
        cj_out_buffer b;
        cj_status want;
        const char *says;
    } cases[] = {
        {{raw, 16, CJ_F64, 1, d}, CJ_ERR_DTYPE, "output 0 is f32[4], its buffer is described as f64[4]"},
        {{raw, 16, CJ_F32, 2, d2}, CJ_ERR_SHAPE, "output 0 is f32[4], its buffer is described as f32[2,2]"},
        {{raw, 20, CJ_F32, 1, d5}, CJ_ERR_SHAPE, "described as f32[5]"},
        {{raw, 15, CJ_F32, 1, d}, CJ_ERR_ARG, "output 0's buffer holds 15 bytes, f32[4] needs 16"},
        {{raw + 2, 16, CJ_F32, 1, d}, CJ_ERR_ARG, "is aligned to 2 bytes; f32 elements need 4"},
        {{NULL, 16, CJ_F32, 1, d}, CJ_ERR_ARG, "output 0's buffer is NULL"},
        {{raw, 16, CJ_F32, 1, NULL}, CJ_ERR_ARG, "dims NULL"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        CHECK_EQ_INT(cj_call_into(jf, &x, &cases[k].b), cases[k].want);
        CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_call_into(jit(scale))");
        CHECK_STR_CONTAINS(cj_error_message(ctx), cases[k].says);
        cj_error_clear(ctx);
        for (int i = 0; i < 16; i++) { /* nothing ran: the buffer is untouched */
            float v;
            memcpy(&v, raw + 4 * i, 4);
            CHECK(v == sentinel);
        }
    }
    /* not jitted; a traced input */
    cj_func *plain = cj_func_new(ctx, "plain", f_scale_in_place, 1, 1, NULL);
    cj_out_buffer ok = {raw, 16, CJ_F32, 1, d};
    CHECK_EQ_INT(cj_call_into(plain, &x, &ok), CJ_ERR_ARG);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "not a jitted function");
    cj_error_clear(ctx);
    CHECK_EQ_INT(cj_call_into(jf, &x, &ok), CJ_OK);
    float got[4];
    memcpy(got, raw, 16);
    for (int i = 0; i < 4; i++) CHECK_EQ_INT((int)got[i], 2 * (i + 1));
    cj_ctx_free(ctx);
}

static cj_func *g_inner;
static void f_calls_into_under_trace(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    float buf[4];
    int64_t d[1] = {4};
    cj_out_buffer b = {buf, sizeof buf, CJ_F32, 1, d};
    cj_call_into(g_inner, in, &b); /* in[0] is a tracer here */
    out[0] = cj_zeros(ctx, CJ_F32, 1, d);
}

TEST(call_into_under_a_trace_is_a_concretization_error) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t d[1] = {4};
    g_inner = cj_jit(cj_func_new(ctx, "scale", f_scale_in_place, 1, 1, NULL), NULL);
    cj_func *outer = cj_jit(cj_func_new(ctx, "outer", f_calls_into_under_trace, 1, 1, NULL), NULL);
    cj_val x = cj_zeros(ctx, CJ_F32, 1, d), y;
    CHECK(cj_call(outer, &x, &y) != CJ_OK);
    CHECK_EQ_INT(cj_error(ctx), CJ_ERR_CONCRETIZATION);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_call_into(jit(scale)): input 0 is a traced value");
    cj_ctx_free(ctx);
}

/* An output hosting temporaries (the plan placed earlier values in its
 * buffer) and a buffer aligned to 4 bytes only: copied, and counted; with
 * a 64-byte aligned buffer the same output is written directly. */
static void f_chain(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    cj_val s = cj_sum(cj_exp(in[0]), 1, (int64_t[]){1}, 0);            /* f32[n] */
    cj_val t = cj_astype(cj_mul(in[0], in[0]), CJ_F64);            /* f64 temp */
    out[0] = cj_add(cj_astype(cj_sum(t, 1, (int64_t[]){1}, 0), CJ_F32), s);
    (void)ctx;
}

TEST(call_into_any_alignment_gives_the_same_result) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    enum { R = 64, C = 33 };
    static float xs[R * C];
    for (int i = 0; i < R * C; i++) xs[i] = 0.001f * (float)(i % 97);
    int64_t d[2] = {R, C}, dr[1] = {R};
    cj_val x = cj_array(ctx, CJ_F32, 2, d, xs);
    cj_func *jf = cj_jit(cj_func_new(ctx, "chain", f_chain, 1, 1, NULL), NULL);
    cj_val y;
    CHECK_EQ_INT(cj_call(jf, &x, &y), CJ_OK);
    float want[R];
    cj_read(y, want, sizeof want);
    char *raw = aligned_alloc(64, sizeof(float) * R + 64);
    for (int off = 0; off <= 8; off += 4) {
        float *buf = (float *)(raw + off);
        cj_out_buffer b = {buf, sizeof(float) * R, CJ_F32, 1, dr};
        CHECK_EQ_INT(cj_call_into(jf, &x, &b), CJ_OK);
        for (int i = 0; i < R; i++) CHECK(buf[i] == want[i]);
    }
    cj_jit_stats js;
    cj_jit_stats_get(jf, &js);
    CHECK_EQ_INT(js.into_direct + js.into_copied, 3);
    CHECK(js.into_direct >= 1); /* the 64-byte aligned buffer */
    free(raw);
    cj_ctx_free(ctx);
}

/* NULL for each pointer argument of the issue-18 entry points: CJ_ERR_ARG
 * naming the function, never a crash (as test_api_null.c for the rest). */
TEST(zero_copy_entry_points_null_arguments) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    float buf[4] = {0};
    int64_t d[1] = {4};
    CHECK(cj_is_error(cj_array_borrow(ctx, CJ_F32, 1, NULL, buf, 16, NULL, NULL)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_array_borrow: dims is NULL");
    cj_error_clear(ctx);
    CHECK(cj_array_data((cj_val){0}) == NULL);
    CHECK_EQ_INT(cj_error(NULL), CJ_ERR_ARG);
    cj_error_clear(NULL);
    CHECK(!cj_array_is_borrowed((cj_val){0}));
    cj_func *jf = cj_jit(cj_func_new(ctx, "scale", f_scale_in_place, 1, 1, NULL), NULL);
    cj_out_buffer ob = {buf, 16, CJ_F32, 1, d};
    CHECK_EQ_INT(cj_call_into(NULL, NULL, &ob), CJ_ERR_ARG);
    cj_error_clear(NULL);
    CHECK_EQ_INT(cj_call_into(jf, NULL, &ob), CJ_ERR_ARG);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_call_into(jit(scale)): in is NULL");
    cj_error_clear(ctx);
    cj_val x = cj_zeros(ctx, CJ_F32, 1, d);
    CHECK_EQ_INT(cj_call_into(jf, &x, NULL), CJ_ERR_ARG);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_call_into(jit(scale)): out is NULL");
    cj_error_clear(ctx);
    CHECK(cj_is_error(cj_from_dlpack(ctx, NULL)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_from_dlpack: the tensor is NULL");
    cj_error_clear(ctx);
    CHECK(cj_is_error(cj_from_dlpack_versioned(ctx, NULL)));
    cj_error_clear(ctx);
    CHECK(cj_to_dlpack((cj_val){0}) == NULL);
    CHECK(cj_to_dlpack_versioned((cj_val){0}) == NULL);
    CHECK_EQ_INT(cj_error(NULL), CJ_ERR_ARG);
    cj_error_clear(NULL);
    CHECK_EQ_INT(cj_save_npz(NULL, 1, NULL, &x, 0), CJ_ERR_ARG);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_save_npz: path is NULL");
    cj_error_clear(ctx);
    CHECK_EQ_INT(cj_save_npz("/tmp/x.npz", 1, NULL, NULL, 0), CJ_ERR_ARG);
    cj_error_clear(NULL);
    CHECK_EQ_INT(cj_load_npz(NULL, "/tmp/x.npz", NULL, 0), -1);
    CHECK_EQ_INT(cj_error(NULL), CJ_ERR_ARG);
    cj_error_clear(NULL);
    CHECK_EQ_INT(cj_load_npz(ctx, NULL, NULL, 0), -1);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_load_npz: path is NULL");
    cj_error_clear(ctx);
    CHECK_EQ_INT(cj_load_npz(ctx, "/tmp/x.npz", NULL, 2), -1);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "entries is NULL for cap 2");
    cj_error_clear(ctx);
    CHECK(cj_is_error(cj_load_npz_member(ctx, "/tmp/x.npz", NULL)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_load_npz_member: name is NULL");
    cj_error_clear(ctx);
    cj_ctx_free(ctx);
}

/* A donated argument whose output has a caller's buffer: the buffer wins,
 * the donation is reported unused and the argument stays valid. */
TEST(call_into_prefers_the_buffer_to_a_donation) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t d[1] = {8};
    cj_val x = cj_arange(ctx, 0, 8, 1, CJ_F32);
    const void *px = cj_array_data(x);
    int donate[1] = {0};
    cj_jit_opts o = {0, NULL, 1, donate, CJ_BACKEND_INTERP};
    cj_func *jf = cj_jit(cj_func_new(ctx, "scale", f_scale_in_place, 1, 1, NULL), &o);
    float out[8] __attribute__((aligned(64)));
    cj_out_buffer b = {out, sizeof out, CJ_F32, 1, d};
    CHECK_EQ_INT(cj_call_into(jf, &x, &b), CJ_OK);
    CHECK_STR_CONTAINS(cj_jit_last_donation(jf), "argument 0 donated but not used (cj_call_into writes every output");
    for (int i = 0; i < 8; i++) CHECK_EQ_INT((int)out[i], 2 * i);
    CHECK(!cj_is_error(cj_neg(x))); /* not consumed */
    CHECK(cj_array_data(x) == px);
    float xs[8];
    cj_read(x, xs, sizeof xs);
    for (int i = 0; i < 8; i++) CHECK_EQ_INT((int)xs[i], i); /* not written */
    cj_jit_stats js;
    cj_jit_stats_get(jf, &js);
    CHECK_EQ_INT(js.into_direct, 1);
    cj_ctx_free(ctx);
}
