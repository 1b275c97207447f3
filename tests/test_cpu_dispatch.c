/* test_cpu_dispatch.c — the library's run-time choice of instruction set
 * (src/runtime/cpu_features.c, vmath_dispatch.c): the vm_* functions run
 * the highest compilation of vmath.c this CPU runs; the compilations with
 * FMA give the same bits as each other on every function (the vector width
 * never changes an elementwise result); CJAX_ISA caps the choice, for
 * vmath and the small-product kernels alike; and the whole vmath suite
 * (accuracy against libm, special values, the generated C's inline tanh
 * against the table's) passes again on each lower level this CPU runs, as
 * a child process with CJAX_ISA set, so the baseline x86-64 code that
 * other CPUs run is tested here too. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "runtime/cpu_features.h"
#include "runtime/gemm.h"
#include "runtime/vmath_dispatch.h"
#include "test_util.h"

static int self_path(char *buf, size_t size) {
    ssize_t len = readlink("/proc/self/exe", buf, size - 1);
    if (len <= 0) return 0;
    buf[len] = 0;
    return 1;
}

TEST(cpu_dispatch_runs_the_highest_level) {
    if (getenv("CJAX_ISA")) return; /* a capped child checks itself below */
    int best = 0;
    for (int isa = RT_ISA_BASE; isa <= RT_ISA_AVX512; isa++)
        if (vm_table_for(isa)) best = isa;
    CHECK(vm_table_for(RT_ISA_BASE) != NULL);
    CHECK_EQ_INT(rt_cpu_isa(), best);
    CHECK(vm_active() == vm_table_for(best));
    CHECK_EQ_INT(vm_active()->isa, best);
    /* a level above the base exists only where the CPU runs it */
    for (int isa = RT_ISA_AVX2; isa <= RT_ISA_AVX512; isa++)
        if (vm_table_for(isa)) CHECK(rt_cpu_runs(isa));
    if (best > RT_ISA_BASE) CHECK(vm_active()->fma);
}

/* Inputs: a sweep of magnitudes and signs, and the special values. */
enum { NX = 4096 };
static void inputs_f32(float *x) {
    static const float sp[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-40f, -1e-40f, 1e30f, -1e30f, 88.7f, -103.9f,
                               0.5f, 1.0f, -1.0f, 3.1415927f, 1e6f, 7e5f, 1.5e7f};
    int ns = (int)(sizeof sp / sizeof sp[0]);
    for (int i = 0; i < NX; i++) x[i] = i < ns ? sp[i] : (float)(sin(i * 0.37) * pow(10.0, (i % 37) / 6.0 - 3.0));
}
static void inputs_f64(double *x) {
    float f[NX];
    inputs_f32(f);
    for (int i = 0; i < NX; i++) x[i] = (double)f[i] * (1.0 + 1e-9 * i);
}

static int same_f32(const float *a, const float *b) {
    for (int i = 0; i < NX; i++)
        if (memcmp(a + i, b + i, 4) && !(isnan(a[i]) && isnan(b[i]))) return 0;
    return 1;
}
static int same_f64(const double *a, const double *b) {
    for (int i = 0; i < NX; i++)
        if (memcmp(a + i, b + i, 8) && !(isnan(a[i]) && isnan(b[i]))) return 0;
    return 1;
}

TEST(cpu_dispatch_fma_levels_agree_bit_for_bit) {
    const vm_table *a = vm_table_for(RT_ISA_AVX2), *b = vm_table_for(RT_ISA_AVX512);
    if (!a || !b) return; /* this CPU (or build) has at most one level with FMA: nothing to compare */
    static float x[NX], y[NX], ya[NX], yb[NX], sa[NX], sb[NX];
    static double xd[NX], yd[NX], yad[NX], ybd[NX], sad[NX], sbd[NX];
    inputs_f32(x), inputs_f64(xd);
    for (int i = 0; i < NX; i++) y[i] = x[(i * 7 + 3) % NX], yd[i] = xd[(i * 7 + 3) % NX];
    int checked = 0;
#define CMP_UNARY(f)                                                                   \
    a->f##_f32(x, ya, NX), b->f##_f32(x, yb, NX);                                      \
    CHECK_MSG(same_f32(ya, yb), #f "_f32: AVX2 and AVX-512 differ");                   \
    a->f##_f64(xd, yad, NX), b->f##_f64(xd, ybd, NX);                                  \
    CHECK_MSG(same_f64(yad, ybd), #f "_f64: AVX2 and AVX-512 differ");                 \
    checked++;
#define CMP_BINARY(f)                                                                  \
    a->f##_f32(x, y, ya, NX), b->f##_f32(x, y, yb, NX);                                \
    CHECK_MSG(same_f32(ya, yb), #f "_f32: AVX2 and AVX-512 differ");                   \
    a->f##_f64(xd, yd, yad, NX), b->f##_f64(xd, yd, ybd, NX);                          \
    CHECK_MSG(same_f64(yad, ybd), #f "_f64: AVX2 and AVX-512 differ");                 \
    checked++;
    VM_UNARY_FNS(CMP_UNARY)
    VM_BINARY_FNS(CMP_BINARY)
    a->sincos_f32(x, ya, sa, NX), b->sincos_f32(x, yb, sb, NX);
    CHECK(same_f32(ya, yb) && same_f32(sa, sb));
    a->sincos_f64(xd, yad, sad, NX), b->sincos_f64(xd, ybd, sbd, NX);
    CHECK(same_f64(yad, ybd) && same_f64(sad, sbd));
    CHECK_EQ_INT(checked, 19);
    CHECK(strcmp(a->tanhf_text(), b->tanhf_text()) == 0);
}

/* The baseline and an FMA level compute tanh's text differently (the
 * generated C gets the one the running level uses). */
TEST(cpu_dispatch_tanh_text_follows_the_level) {
    const vm_table *base = vm_table_for(RT_ISA_BASE);
    CHECK(strstr(vm_tanhf_text(), "cjk_tanhf") != NULL);
    CHECK(strcmp(vm_tanhf_text(), vm_active()->tanhf_text()) == 0);
    CHECK_MSG((strstr(base->tanhf_text(), "__builtin_fmaf") != NULL) == (base->fma != 0), "%s", base->tanhf_text());
    if (vm_active()->fma) CHECK(strstr(vm_tanhf_text(), "__builtin_fmaf") != NULL);
}

/* Checks the cap when the suite runs with CJAX_ISA set (as the child
 * below, or by hand): it holds for vmath and the small-product kernels. */
TEST(cpu_dispatch_cap_holds) {
    const char *cap = getenv("CJAX_ISA");
    if (!cap) return;
    int want = !strcmp(cap, "baseline") ? RT_ISA_BASE : !strcmp(cap, "avx2") ? RT_ISA_AVX2 : RT_ISA_AVX512;
    if (!vm_table_for(want)) return; /* a level this CPU or build lacks: the best one below it runs */
    CHECK_EQ_INT(rt_cpu_isa(), want);
    CHECK_EQ_INT(vm_active()->isa, want);
    CHECK_STR_CONTAINS(rt_gemm_small_isa_name(),
                       want == RT_ISA_BASE ? "plain C" : want == RT_ISA_AVX2 ? "AVX2" : "AVX-512");
}

/* Every level below the one in use, in a child capped to it: the cap,
 * then the vmath suites (tests named vmath_*). */
TEST(cpu_dispatch_vmath_suite_passes_on_every_level) {
    if (getenv("CJAX_ISA")) return;
    char self[4096];
    CHECK(self_path(self, sizeof self));
    static const char *names[] = {"", "baseline", "avx2", "avx512"};
    for (int isa = RT_ISA_BASE; isa < rt_cpu_isa(); isa++) {
        if (!vm_table_for(isa)) continue;
        CHECK_MSG(tu_run_child(self, "cpu_dispatch_cap_holds", "CJAX_ISA", names[isa], 1) == 0, "CJAX_ISA=%s: the cap",
                  names[isa]);
        CHECK_MSG(tu_run_child(self, "vmath_", "CJAX_ISA", names[isa], 1) == 0, "CJAX_ISA=%s: the vmath tests",
                  names[isa]);
    }
}
