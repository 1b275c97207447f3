/* pendulum.c — swings a damped pendulum up by optimising its 100 torques:
 * jit(value_and_grad(loss)) of a scan over the steps, then gradient
 * descent. The JAX original is examples/jax/pendulum.py, the C++ version
 * examples/cpp/pendulum.cpp (docs/CPP.md compares their lengths; make test
 * checks the C++ one prints exactly what this prints). */
#include <stdio.h>

#include <cjax.h>

static cj_val part(cj_val s, int64_t i) {
    int64_t ax = 0;
    return cj_squeeze(cj_slice(s, (int64_t[]){i}, (int64_t[]){i + 1}, NULL), 1, &ax);
}

/* (angle, rate), torque -> next (angle, rate), and the angle as y. */
static void step(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    cj_val th = part(in[0], 0), w = part(in[0], 1), u = in[1];
    cj_val acc = cj_add(cj_sub(cj_mul(cj_scalar(ctx, -9.81), cj_sin(th)), cj_mul(cj_scalar(ctx, 0.1), w)), u);
    cj_val w2 = cj_add(w, cj_mul(cj_scalar(ctx, 0.05), acc));
    cj_val th2 = cj_add(th, cj_mul(cj_scalar(ctx, 0.05), w2));
    cj_val s2[2] = {th2, w2};
    out[0] = cj_stack(2, s2, 0);
    out[1] = th2;
}

/* Distance of the final state from upright at rest, plus effort. */
static void loss(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    cj_val s, ths, init = cj_zeros(ctx, CJ_F32, 1, (int64_t[]){2});
    cj_scan(user, 1, &init, 1, in, NULL, &s, &ths);
    cj_val err = cj_add(cj_square(cj_sub(part(s, 0), cj_scalar(ctx, 3.14159265358979))), cj_square(part(s, 1)));
    out[0] = cj_add(err, cj_mul(cj_scalar(ctx, 1e-3), cj_sum(cj_mul(in[0], in[0]), -1, NULL, 0)));
}

int main(void) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *body = cj_func_new(ctx, "step", step, 2, 2, NULL);
    cj_func *vg = cj_jit(cj_value_and_grad(cj_func_new(ctx, "loss", loss, 1, 1, body), NULL), NULL);
    cj_val u = cj_zeros(ctx, CJ_F32, 1, (int64_t[]){100}), out[2];
    for (int i = 0; i < 300; i++) {
        cj_scope_begin(ctx);
        cj_call(vg, &u, out);
        if (i % 100 == 0) printf("%d %.9g\n", i, cj_item_or_nan(out[0]));
        cj_val next = cj_sub(u, cj_mul(cj_scalar(ctx, 0.5), out[1]));
        cj_scope_end(ctx, 1, &next);
        cj_val_free(u);
        u = next;
    }
    cj_call(vg, &u, out);
    printf("%.9g\n", cj_item_or_nan(out[0]));
    float v[100];
    cj_read(u, v, sizeof v);
    for (int i = 0; i < 100; i++) printf("%.9g%c", v[i], i % 10 == 9 ? '\n' : ' ');
    if (cj_error(ctx)) fprintf(stderr, "%s\n", cj_error_message(ctx));
    int rc = cj_error(ctx) != CJ_OK;
    cj_ctx_free(ctx);
    return rc;
}
