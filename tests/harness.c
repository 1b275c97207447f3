/* harness.c — the runner behind tests/harness.h: registry, filter, report. */
#include "harness.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TESTS 4096
static struct { const char *name; th_test_fn fn; } tests[MAX_TESTS];
static int n_tests;
static int current_failed;

void th_register(const char *name, th_test_fn fn) {
    if (n_tests < MAX_TESTS) {
        tests[n_tests].name = name;
        tests[n_tests].fn = fn;
        n_tests++;
    }
}

void th_fail(const char *file, int line, const char *fmt, ...) {
    va_list ap;
    fprintf(stdout, "    %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stdout, fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
    current_failed = 1;
}

int th_failed_now(void) { return current_failed; }

int th_close(double a, double b, double rtol, double atol) {
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
    if (isinf(a) || isinf(b)) return a == b;
    return fabs(a - b) <= atol + rtol * fabs(b);
}

uint64_t th_rand_u64(uint64_t *s) {
    uint64_t x = *s ? *s : 0x9E3779B97F4A7C15ull;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

double th_rand_uniform(uint64_t *s, double lo, double hi) {
    double u = (double)(th_rand_u64(s) >> 11) * (1.0 / 9007199254740992.0);
    return lo + (hi - lo) * u;
}

static int cmp_tests(const void *a, const void *b) {
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    return strcmp(x, y);
}

int main(int argc, char **argv) {
    /* the tests run with the compiled form verified after every pass
     * (src/compiler/verify.c), whatever the build; CJAX_VERIFY=0 opts out */
    setenv("CJAX_VERIFY", "1", 0);
    qsort(tests, (size_t)n_tests, sizeof tests[0], cmp_tests);
    int passed = 0, failed = 0;
    for (int i = 0; i < n_tests; i++) {
        int selected = argc <= 1;
        for (int a = 1; a < argc && !selected; a++)
            if (strstr(tests[i].name, argv[a])) selected = 1;
        if (!selected) continue;
        current_failed = 0;
        tests[i].fn();
        if (current_failed) {
            printf("FAIL %s\n", tests[i].name);
            failed++;
        } else {
            passed++;
        }
        fflush(stdout);
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
