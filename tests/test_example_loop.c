/* test_example_loop.c — the README's loop idiom (examples/loop/loop_steps.h,
 * run by examples/loop.c) keeps memory flat: 1,000 steps of x = x - 0.1
 * sin(x) on 10,000 floats end with the array bytes and the bytes held from
 * the allocator they had after the first steps, and the result is a plain
 * C loop's. The same loop without the scope and the free grows by a state
 * and its intermediates per step, which is why the README shows it. */
#include <math.h>
#include <stdlib.h>

#include "../examples/loop/loop_steps.h"
#include "harness.h"
#include "test_util.h"

enum { N = 10000, STEPS = 1000, WARM = 10 };

TEST(example_loop_idiom_memory_stays_flat) {
    tu_alloc st = {0};
    cj_allocator al = tu_allocator(&st);
    cj_ctx *ctx = cj_ctx_new(&al);
    cj_val x = cj_linspace(ctx, -10.0, 10.0, N, CJ_F32);
    cj_mem_stats m0, m1, m2;
    cj_mem_stats_get(ctx, &m0);
    x = loop_run(ctx, x, WARM, 0);
    cj_mem_stats_get(ctx, &m1);
    long long live_warm = st.live_bytes;
    x = loop_run(ctx, x, STEPS - WARM, 0);
    cj_mem_stats_get(ctx, &m2);
    CHECK_EQ_INT(cj_error(ctx), CJ_OK);
    /* the array bytes of before the loop (x, and what linspace made in this
     * scope), after the first steps and at the end */
    CHECK_EQ_INT((long long)m0.bytes_in_arrays, (long long)m2.bytes_in_arrays);
    CHECK_EQ_INT((long long)m1.bytes_in_arrays, (long long)m2.bytes_in_arrays);
    /* and nothing more held from the allocator than after the first steps */
    CHECK_EQ_INT((long long)m1.bytes_live, (long long)m2.bytes_live);
    CHECK_EQ_INT(live_warm, st.live_bytes);

    float *got = malloc(N * sizeof *got);
    CHECK(cj_read(x, got, N * sizeof *got) == CJ_OK);
    double worst = 0;
    for (int i = 0; i < N; i++) {
        float r = (float)(-10.0 + 20.0 * i / (N - 1)); /* linspace's points */
        for (int k = 0; k < STEPS; k++) r = r - 0.1f * (float)sin((double)r);
        double d = fabs((double)got[i] - (double)r);
        if (d > worst) worst = d;
    }
    free(got);
    CHECK_MSG(worst < 1e-4, "largest difference from a plain loop %g", worst);
    cj_ctx_free(ctx);
    CHECK_EQ_INT(st.live, 0);
}

TEST(example_loop_without_scope_and_free_grows) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val x = cj_linspace(ctx, -10.0, 10.0, N, CJ_F32);
    cj_mem_stats m0, m1;
    cj_mem_stats_get(ctx, &m0);
    x = loop_run(ctx, x, 100, 1);
    cj_mem_stats_get(ctx, &m1);
    CHECK_EQ_INT(cj_error(ctx), CJ_OK);
    /* every step leaves its new state and two array intermediates behind */
    CHECK_MSG(m1.bytes_in_arrays >= m0.bytes_in_arrays + 100 * 3 * (size_t)N * sizeof(float),
              "%zu -> %zu array bytes", m0.bytes_in_arrays, m1.bytes_in_arrays);
    cj_ctx_free(ctx);
}
