/* test_sincos_fused.c — sin(x) and cos(x) of one value in one tiled
 * kernel are one vm_sincos call (codegen.c: codegen_sincos_partner;
 * interp.c: sincos_partner): the generated source makes one such call and
 * no separate sin or cos call, the values are within float rounding of
 * libm's sin and cos, and the interpreter and generated C agree bit for
 * bit — in a LOOP kernel (with a materialised cos) and in a long row's
 * tiles (a sum of sin(x)*cos(x) over 200,003 elements). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "test_util.h"

static void f_loop(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    cj_val c = cj_cos(in[0]);
    out[0] = cj_add(cj_mul(cj_sin(in[0]), c), cj_mul(in[0], in[0]));
    out[1] = c;
}

static void f_long(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_sum(cj_mul(cj_sin(in[0]), cj_cos(in[0])), 0, NULL, 0);
}

static int count(const char *hay, const char *needle) {
    int n = 0;
    for (const char *p = hay; hay && (p = strstr(p, needle)); p += strlen(needle)) n++;
    return n;
}

TEST(sincos_fused_one_call_same_bits) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_dtype dts[2] = {CJ_F32, CJ_F64};
    int64_t sizes[2] = {5000, 200003};
    for (int d = 0; d < 2; d++) {
        for (int w = 0; w < 2; w++) {
            int64_t n = sizes[w];
            size_t es = dts[d] == CJ_F64 ? 8 : 4;
            void *xb = malloc(es * (size_t)n);
            double *x = malloc(sizeof(double) * (size_t)n);
            for (int64_t i = 0; i < n; i++) {
                double v = (double)((i * 7919) % 20011) * 0.01 - 100.0; /* [-100, 100) */
                if (dts[d] == CJ_F64) ((double *)xb)[i] = x[i] = v;
                else ((float *)xb)[i] = (float)v, x[i] = (float)v;
            }
            cj_val in = cj_array(ctx, dts[d], 1, &n, xb);
            cj_val out[2][2];
            for (int b = 0; b < 2; b++) {
                cj_jit_opts o = {0, NULL, 0, NULL, b ? CJ_BACKEND_CC : CJ_BACKEND_INTERP};
                cj_func *jf = cj_jit(cj_func_new(ctx, "sc", w ? f_long : f_loop, 1, w ? 1 : 2, NULL), &o);
                CHECK(cj_call(jf, &in, out[b]) == CJ_OK);
                if (b) {
                    char *src = cj_jit_dump(jf, &in, "c");
                    CHECK(src != NULL);
                    if (src && !strstr(src, "no generated C")) {
                        CHECK_EQ_INT(count(src, "/* sin, cos */"), 1);
                        CHECK_EQ_INT(count(src, "cjk_ew)rt->ew"), 0); /* nothing else through the table */
                    }
                    cj_string_free(ctx, src);
                }
            }
            double tol = dts[d] == CJ_F32 ? 2e-6 : 1e-14;
            if (w == 0) {
                double *y = malloc(sizeof(double) * (size_t)n), *c = malloc(sizeof(double) * (size_t)n);
                CHECK(cj_read_as(out[0][0], CJ_F64, y, sizeof(double) * (size_t)n) == CJ_OK);
                CHECK(cj_read_as(out[0][1], CJ_F64, c, sizeof(double) * (size_t)n) == CJ_OK);
                double worst = 0;
                for (int64_t i = 0; i < n; i++) {
                    double ref = sin(x[i]) * cos(x[i]) + x[i] * x[i];
                    worst = fmax(worst, fabs(y[i] - ref) / (1.0 + fabs(ref)));
                    worst = fmax(worst, fabs(c[i] - cos(x[i])));
                }
                CHECK(worst <= tol);
                free(y);
                free(c);
                CHECK(tu_same_bits(out[0][1], out[1][1]));
            } else {
                double ref = 0, got = 0;
                for (int64_t i = 0; i < n; i++) ref += sin(x[i]) * cos(x[i]);
                CHECK(cj_read_as(out[0][0], CJ_F64, &got, sizeof got) == CJ_OK);
                CHECK(fabs(got - ref) <= (dts[d] == CJ_F32 ? 1e-2 : 1e-9));
            }
            CHECK(tu_same_bits(out[0][0], out[1][0]));
            free(xb);
            free(x);
        }
    }
    cj_ctx_free(ctx);
}
