/* test_linalg_workspace.c — the decompositions' working memory under jit
 * (the primitives' lower.workspace_of rule, src/prim/linalg_eigh.c and
 * linalg_svd.c; its block in the arena, src/compiler/plan.c; handed to
 * the kernel by src/backend/interp.c and core_workspace).
 *
 * What is pinned: cj_jit_memory_analysis counts the working memory the
 * kernel declares (temp_bytes at least rt_eigh_work / rt_svd_work elements
 * per matrix, where the program has no other temporary); a jitted call
 * takes it from the plan and allocates none (the context's count of
 * fallback allocations stays put), while an eager call allocates it; two
 * factorisations in a row share one block (each is live only during its
 * kernel); and the results are eager's bit for bit on both backends. */
#include <string.h>

#include "ad_check.h"
#include "core/core.h"
#include "harness.h"
#include "runtime/linalg_kernels.h"
#include "test_util.h"

static void f_eigh(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    cj_linalg_eigh(in[0], &out[0], &out[1]);
}

static void f_svd(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    cj_linalg_svd(in[0], 0, &out[0], &out[1], &out[2]);
}

/* eigh of a, then eigh of its eigenvector matrix's symmetric part: two
 * kernels with a workspace each, the first's results temporaries. */
static void f_two(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    cj_val v, w, v2;
    cj_linalg_eigh(in[0], &v, &w);
    cj_linalg_eigh(cj_add(v, cj_transpose(v, NULL)), &v2, &out[0]);
}

static void check_case(cj_ctx *ctx, cj_fn fn, int n_out, cj_val a, size_t ws) {
    cj_func *f = cj_func_new(ctx, "f", fn, 1, n_out, NULL);
    cj_val want[3];
    uint64_t before = ctx->workspace_allocs;
    CHECK(cj_call(f, &a, want) == CJ_OK);
    CHECK_MSG(ctx->workspace_allocs == before + 1, "eager: %llu workspace allocations",
              (unsigned long long)(ctx->workspace_allocs - before));
    cj_backend backends[] = {CJ_BACKEND_INTERP, CJ_BACKEND_CC};
    for (int b = 0; b < 2; b++) {
        cj_func *j = cj_jit(f, &(cj_jit_opts){.backend = backends[b]});
        cj_memory_analysis m;
        CHECK(cj_jit_memory_analysis(j, &a, &m) == CJ_OK);
        CHECK_MSG(m.temp_bytes >= ws && m.peak_bytes >= m.argument_bytes + m.output_bytes + ws,
                  "backend %d: temp %zu, workspace %zu", b, m.temp_bytes, ws);
        cj_val got[3];
        CHECK(cj_call(j, &a, got) == CJ_OK); /* the first call compiles */
        before = ctx->workspace_allocs;
        CHECK(cj_call(j, &a, got) == CJ_OK);
        CHECK_MSG(ctx->workspace_allocs == before, "backend %d: %llu workspace allocations under jit", b,
                  (unsigned long long)(ctx->workspace_allocs - before));
        for (int o = 0; o < n_out; o++) CHECK(tu_same_bits(got[o], want[o]));
    }
}

TEST(linalg_workspace_planned_and_counted) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 3;
    cj_val m = adc_uniform(ctx, DIMS(64, 64), -1, 1, &seed);
    cj_val a = cj_astype(cj_add(m, cj_transpose(m, NULL)), CJ_F32);
    check_case(ctx, f_eigh, 2, a, (size_t)rt_eigh_work(64) * sizeof(float));
    cj_val b = adc_uniform(ctx, DIMS(3, 20, 12), -1, 1, &seed);
    check_case(ctx, f_svd, 3, b, 3 * (size_t)rt_svd_work_for(20, 12, 1) * sizeof(double));
    cj_val s = adc_uniform(ctx, DIMS(2, 5, 5), -1, 1, &seed); /* Jacobi's size: still declared */
    check_case(ctx, f_eigh, 2, s, 2 * (size_t)rt_eigh_work(5) * sizeof(double));
    CHECK_MSG(!cj_error(ctx), "%s", cj_error_message(ctx));
    cj_ctx_free(ctx);
}

TEST(linalg_workspace_shared_by_consecutive_kernels) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 4;
    cj_val m = adc_uniform(ctx, DIMS(48, 48), -1, 1, &seed);
    cj_val a = cj_add(m, cj_transpose(m, NULL));
    size_t ws = (size_t)rt_eigh_work(48) * sizeof(double), vbytes = 48 * 48 * sizeof(double);
    cj_func *j = cj_jit(cj_func_new(ctx, "two", f_two, 1, 1, NULL), NULL);
    cj_memory_analysis mem;
    CHECK(cj_jit_memory_analysis(j, &a, &mem) == CJ_OK);
    /* both workspaces, but never both at once: one block and the
     * temporaries between the kernels (v, w, v + vᵀ, v2) */
    CHECK_MSG(mem.temp_bytes >= ws && mem.temp_bytes < 2 * ws, "temp %zu for workspaces of %zu", mem.temp_bytes, ws);
    CHECK(mem.temp_bytes <= ws + 4 * vbytes + 4096);
    cj_val got, want;
    CHECK(cj_call(j, &a, &got) == CJ_OK);
    CHECK(cj_call(cj_func_new(ctx, "two", f_two, 1, 1, NULL), &a, &want) == CJ_OK);
    CHECK(tu_same_bits(got, want));
    CHECK_MSG(!cj_error(ctx), "%s", cj_error_message(ctx));
    cj_ctx_free(ctx);
}

/* The declared size follows the path taken now (LAPACK's syevd wants
 * more than the tridiagonal path at n = 300): a program planned for the built-in path
 * and then run with LAPACK forced still works, its kernel allocating what
 * the plan lacks. Without LAPACK both paths are the built-in one. */
TEST(linalg_workspace_survives_a_path_change) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 6;
    cj_val m = adc_uniform(ctx, DIMS(300, 300), -1, 1, &seed); /* syevd: 2n² + 11n + 4, built-in n² + 221n + 4104 */
    cj_val a = cj_add(m, cj_transpose(m, NULL)), want[2], got[2];
    cj_func *f = cj_func_new(ctx, "eigh", f_eigh, 1, 2, NULL), *j = cj_jit(f, NULL);
    rt_eigh_set_dc_min(1 << 30); /* the QL path's smaller work (divide and conquer's, 3n² + ..., exceeds syevd's) */
    rt_linalg_set_path(RT_LINALG_BUILTIN);
    CHECK(cj_call(j, &a, got) == CJ_OK); /* planned now */
    rt_linalg_set_path(RT_LINALG_LAPACK);
    CHECK(cj_call(f, &a, want) == CJ_OK);
    uint64_t before = ctx->workspace_allocs;
    CHECK(cj_call(j, &a, got) == CJ_OK);
    CHECK_MSG(ctx->workspace_allocs == before + (rt_linalg_have_lapack() ? 1 : 0), "%llu allocations", (unsigned long long)(ctx->workspace_allocs - before));
    for (int o = 0; o < 2; o++) CHECK(tu_same_bits(got[o], want[o]));
    rt_linalg_set_path(RT_LINALG_AUTO);
    rt_eigh_set_dc_min(-1);
    CHECK_MSG(!cj_error(ctx), "%s", cj_error_message(ctx));
    cj_ctx_free(ctx);
}
