/* loop.c — the README's loop idiom: x = x - 0.1 sin(x) repeated 1,000 times
 * on 10,000 floats, with the memory the context holds before and after
 * (flat: one state's worth). The step and the loop are in
 * examples/loop/loop_steps.h, which tests/test_example_loop.c also runs. */
#include <stdio.h>

#include "loop/loop_steps.h"

int main(void) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val x = cj_linspace(ctx, -10.0, 10.0, 10000, CJ_F32);
    cj_mem_stats before, after;
    cj_mem_stats_get(ctx, &before);
    x = loop_run(ctx, x, 1000, 0);
    cj_mem_stats_get(ctx, &after);
    static float v[10000];
    cj_read(x, v, sizeof v);
    printf("x[0] after 1000 steps: %.7g (it settles on -4 pi = %.7g)\n", v[0], -4 * 3.14159265358979);
    printf("array bytes in use: %zu before the loop, %zu after\n", before.bytes_in_arrays, after.bytes_in_arrays);
    if (cj_error(ctx)) fprintf(stderr, "%s\n", cj_error_message(ctx));
    int rc = cj_error(ctx) != CJ_OK;
    cj_ctx_free(ctx);
    return rc;
}
