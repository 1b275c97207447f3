/* loop_steps.h — the loop idiom of the README: a JAX-style `x = f(x)`
 * repeated in C (header-only, shared by examples/loop.c and its test,
 * tests/test_example_loop.c).
 *
 * In JAX the old x is garbage once x is rebound; in C every value lives
 * until its scope ends, so a loop that rebinds x must say what dies:
 *   - open a scope per iteration: the step's intermediates (here the
 *     constant, sin(x) and the product) go at its end, the kept new state
 *     moves out to the enclosing scope;
 *   - free the previous state with cj_val_free once the new one exists (it
 *     was made in the enclosing scope, which ends only much later).
 * Without both, 1,000 steps on 10,000 floats keep 1,000 states and 2,000
 * array intermediates alive: about 120 MB. */
#ifndef CJ_EXAMPLE_LOOP_STEPS_H
#define CJ_EXAMPLE_LOOP_STEPS_H
#include <cjax.h>

/* One step, eager as JAX's: x - 0.1 sin(x) (it settles each element on
 * the nearest multiple of 2π). */
static inline cj_val loop_step(cj_ctx *ctx, cj_val x) {
    return cj_sub(x, cj_mul(cj_scalar(ctx, 0.1), cj_sin(x)));
}

/* x = step(x), `steps` times, from x: the idiom. Returns the last state;
 * x itself is freed. keep_garbage = 1 does the same without the scope and
 * the free (what the README warns against; the test shows it grows). */
static inline cj_val loop_run(cj_ctx *ctx, cj_val x, int steps, int keep_garbage) {
    for (int i = 0; i < steps; i++) {
        if (keep_garbage) {
            x = loop_step(ctx, x);
            continue;
        }
        cj_scope_begin(ctx);
        cj_val next = loop_step(ctx, x);
        cj_scope_end(ctx, 1, &next); /* next survives, the step's intermediates go */
        cj_val_free(x);              /* the old state, from the enclosing scope */
        x = next;
    }
    return x;
}

#endif
