/* bench_util.h — what the bench programs share: a monotonic clock in
 * milliseconds and a comparison for sorting timings (medians). */
#ifndef CJ_BENCH_UTIL_H
#define CJ_BENCH_UTIL_H
#include <time.h>

static inline double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static inline int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif
