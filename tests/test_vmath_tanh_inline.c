/* test_vmath_tanh_inline.c — float32 tanh is written inline in generated C
 * (cjk_tanhf, from runtime/vmath_tanhf.h, the source vm_tanh_f32 is built
 * from) and its values in the fused loop's registers (codegen.c: loop
 * locals) equal the table kernel's bit for bit: eager (vm_tanh_f32), jit
 * on the interpreter and jit with generated C agree exactly on special
 * values (NaN, ±inf, ±0, huge, tiny, subnormal, around the clamp at 9.02)
 * and a sweep, and are within the bound test_vmath_tanh_accuracy.c holds
 * vm_tanh_f32 to (5 ulp with FMA) of long double tanh. (A long row's
 * sum(tanh(a*x+b)*c+d), bit for bit across backends and thread counts:
 * test_long_reduce.c.) */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "runtime/vmath.h"
#include "runtime/vmath_dispatch.h"
#include "test_util.h"

#define TANH_BOUND (vm_active()->fma ? 5.0 : 8.0) /* the compilation of vmath.c this CPU runs */

static void f_tanh(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_mul(cj_tanh(in[0]), cj_scalar(ctx, 1.0)); /* a fused chain (x*1 keeps -0, NaN) */
}

static const float SPECIAL[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, FLT_MIN, -FLT_MIN,
                                FLT_TRUE_MIN, -FLT_TRUE_MIN, 0x1p-140f, 1e-30f, 0x1p-13f, -0x1p-13f,
                                0.5f, -0.5f, 1.0f, -1.0f, 9.0199995f, 9.02f, 9.0200005f,
                                9.9999990f, 10.0f, 10.000001f, -10.0f,
                                20.0f, 1e6f, -1e6f, 1e30f, FLT_MAX, -FLT_MAX};
#define N_SPECIAL ((int)(sizeof SPECIAL / sizeof SPECIAL[0]))

/* ulps of float at the reference (never below the smallest subnormal) */
static double ulps(float y, long double ref) {
    if (isnan(ref)) return isnan(y) ? 0 : INFINITY;
    if ((long double)y == ref) return 0;
    int e;
    frexpl(ref, &e);
    double u = ldexp(1.0, (e - 24 < -149 ? -149 : e - 24));
    return (double)(fabsl((long double)y - ref) / u);
}

TEST(vmath_tanh_inline_same_bits_as_table) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t n = 20000 + N_SPECIAL;
    float *x = malloc(sizeof(float) * (size_t)n), *ref = malloc(sizeof(float) * (size_t)n);
    float *y[2] = {malloc(sizeof(float) * (size_t)n), malloc(sizeof(float) * (size_t)n)};
    for (int64_t i = 0; i < 20000; i++) x[i] = (float)(((i * 7919) % 20011) * 0.0015 - 15.0); /* [-15, 15) */
    memcpy(x + 20000, SPECIAL, sizeof SPECIAL);
    vm_tanh_f32(x, ref, n);
    cj_val in = cj_array(ctx, CJ_F32, 1, &n, x);
    for (int b = 0; b < 2; b++) {
        cj_jit_opts o = {0, NULL, 0, NULL, b ? CJ_BACKEND_CC : CJ_BACKEND_INTERP};
        cj_func *jf = cj_jit(cj_func_new(ctx, "tanh", f_tanh, 1, 1, NULL), &o);
        cj_val out;
        CHECK(cj_call(jf, &in, &out) == CJ_OK);
        CHECK(cj_read(out, y[b], sizeof(float) * (size_t)n) == CJ_OK);
        if (b) {
            char *src = cj_jit_dump(jf, &in, "c");
            CHECK(src != NULL);
            if (src && !strstr(src, "no generated C")) {
                CHECK(strstr(src, "cjk_tanhf(") != NULL);
                CHECK(strstr(src, "cjk_ew)rt->ew") == NULL); /* tanh not through the table */
            }
            cj_string_free(ctx, src);
        }
    }
    double worst = 0;
    int same = 1;
    for (int64_t i = 0; i < n; i++) {
        for (int b = 0; b < 2; b++)
            if (memcmp(&y[b][i], &ref[i], sizeof(float)) != 0 && !(isnan(y[b][i]) && isnan(ref[i]))) same = 0;
        worst = fmax(worst, ulps(ref[i], tanhl((long double)x[i])));
    }
    CHECK_MSG(same, "tanh: generated C or interpreter differs from vm_tanh_f32");
    CHECK_MSG(worst <= TANH_BOUND, "tanh: %.3g ulp", worst);
    /* the contract's special values */
    CHECK(y[1][20000] == 0 && !signbit(y[1][20000]) && y[1][20001] == 0 && signbit(y[1][20001]));
    CHECK(y[1][20002] == 1 && y[1][20003] == -1 && isnan(y[1][20004]) && isnan(y[1][20005]));
    CHECK(y[1][20008] == FLT_TRUE_MIN && y[1][n - 1] == -1);
    free(x), free(ref), free(y[0]), free(y[1]);
    cj_ctx_free(ctx);
}
