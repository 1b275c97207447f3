/* readme_example.c — the example in README.md, built so it stays true. */
#include <cjax.h>

static void f(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    cj_val x = in[0];                        /* sin(x)*cos(x) + x*x */
    out[0] = cj_add(cj_mul(cj_sin(x), cj_cos(x)), cj_mul(x, x));
}

int main(void) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val x = cj_linspace(ctx, 0.0, 1.0, 5, CJ_F32);  /* an eager array    */
    cj_print(cj_exp(x), stdout);                       /* an eager op       */
    cj_func *jf = cj_jit(cj_func_new(ctx, "f", f, 1, 1, NULL), NULL);
    cj_val y;
    cj_call(jf, &x, &y);                /* traces once, caches, runs        */
    cj_print_ir(jf, 1, &x, stdout);     /* { lambda ; a:f32[5]. let ...     */
    cj_print(y, stdout);                /* f32[5] [0, 0.3022128, ...]       */
    if (cj_error(ctx)) fprintf(stderr, "%s\n", cj_error_message(ctx));
    cj_ctx_free(ctx);                   /* frees everything                 */
}
