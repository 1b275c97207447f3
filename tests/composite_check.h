/* composite_check.h — checks shared by the tests of the composite
 * operations (test_composites_shape.c, test_composites_reduce.c,
 * test_composites_nn.c): JAX fixtures from tests/data/numpy/ (written by
 * tests/data/gen_numpy_fixtures.py), comparison within tolerances, and
 * one function run every way — eagerly, jitted on the interpreter and on
 * generated C, vmapped against a loop of single calls — its jvp against
 * central finite differences, and its vjp against its jvp. */
#ifndef CJ_TEST_COMPOSITE_CHECK_H
#define CJ_TEST_COMPOSITE_CHECK_H
#include "cjax.h"

/* tests/data/numpy/<name>.npy; an error value (and a test failure) if
 * it cannot be read. */
cj_val cc_fixture(cj_ctx *ctx, const char *name);
/* got against want: the same type string ("f32[2,3]"), and every element
 * within |got - want| <= atol + rtol·|want| (NaNs equal, infinities exact).
 * 1, or 0 after recording a test failure naming `what` and the element. */
int cc_close(cj_val got, cj_val want, double rtol, double atol, const char *what);
/* f (n_in inputs, n_out outputs) run eagerly, by cj_jit on the interpreter
 * and on generated C: every output the same type and within tol of the
 * eager one. Then cj_vmap(f) over inputs stacked from in[i] and a second
 * value (in[i]·0.75 - 0.125 for floats, in[i] itself otherwise) against
 * the two single calls. 1, or 0 after recording a failure. */
int cc_modes(cj_ctx *ctx, const char *what, cj_fn fn, void *user, int n_in, int n_out, const cj_val *in,
             double tol);
/* cj_jvp of f (one f64 input x, outputs read as f64) with a random
 * tangent against (f(x + h t) - f(x - h t)) / 2h: the largest error
 * |jvp - fd| / (1 + |fd|) over the outputs is at most tol. 1 or 0. */
int cc_jvp_fd(cj_ctx *ctx, const char *what, cj_fn fn, void *user, int n_out, cj_val x, double tol);
/* Reverse mode against forward mode: <u, J v> from cj_jvp and <Jᵀu, v>
 * from cj_vjp agree for random v and u (f64 x; one input): their
 * difference relative to 1 + |<u, J v>| is at most tol. 1 or 0. */
int cc_vjp_jvp(cj_ctx *ctx, const char *what, cj_fn fn, void *user, int n_out, cj_val x, double tol);

#endif
