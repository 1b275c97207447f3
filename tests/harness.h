/* harness.h — the test runner's interface.
 *
 * Every test file defines tests with TEST(name) { ... } and checks with the
 * CHECK macros; all files link into one binary, `cjax_tests`, which runs the
 * tests whose names contain any of its arguments (all when none given) and
 * closes with the line "N passed, N failed". A failing CHECK records the
 * file, line and message and ends that test; other tests still run. */
#ifndef CJ_TEST_HARNESS_H
#define CJ_TEST_HARNESS_H
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef void (*th_test_fn)(void);
void th_register(const char *name, th_test_fn fn);
void th_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int th_failed_now(void); /* has the running test failed already? */

#define TEST(name)                                                        \
    static void test_##name(void);                                        \
    __attribute__((constructor)) static void test_reg_##name(void) {      \
        th_register(#name, test_##name);                                  \
    }                                                                     \
    static void test_##name(void)

/* Each CHECK returns from the test on failure. */
#define CHECK(cond)                                                       \
    do {                                                                  \
        if (!(cond)) {                                                    \
            th_fail(__FILE__, __LINE__, "CHECK(%s)", #cond);              \
            return;                                                       \
        }                                                                 \
    } while (0)

#define CHECK_MSG(cond, ...)                                              \
    do {                                                                  \
        if (!(cond)) {                                                    \
            th_fail(__FILE__, __LINE__, __VA_ARGS__);                     \
            return;                                                       \
        }                                                                 \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                \
    do {                                                                  \
        long long th_a = (long long)(a), th_b = (long long)(b);           \
        if (th_a != th_b) {                                               \
            th_fail(__FILE__, __LINE__, "%s == %s: %lld vs %lld", #a, #b, \
                    th_a, th_b);                                          \
            return;                                                       \
        }                                                                 \
    } while (0)

/* |a-b| <= atol + rtol*|b|, NaNs equal each other, infinities exactly. */
int th_close(double a, double b, double rtol, double atol);
#define CHECK_NEAR(a, b, rtol, atol)                                      \
    do {                                                                  \
        double th_a = (double)(a), th_b = (double)(b);                    \
        if (!th_close(th_a, th_b, rtol, atol)) {                          \
            th_fail(__FILE__, __LINE__, "%s ~= %s: %.17g vs %.17g", #a,   \
                    #b, th_a, th_b);                                      \
            return;                                                       \
        }                                                                 \
    } while (0)

#define CHECK_STR_CONTAINS(hay, needle)                                   \
    do {                                                                  \
        const char *th_h = (hay), *th_n = (needle);                       \
        if (!th_h || !strstr(th_h, th_n)) {                               \
            th_fail(__FILE__, __LINE__, "\"%s\" does not contain \"%s\"", \
                    th_h ? th_h : "(null)", th_n);                        \
            return;                                                       \
        }                                                                 \
    } while (0)

/* Deterministic random numbers for tests (xorshift64*). */
uint64_t th_rand_u64(uint64_t *state);
double th_rand_uniform(uint64_t *state, double lo, double hi);

#endif
