/* fuzz_body_util.h — what the fuzz bodies (npy_body.c, npz_body.c,
 * cache_body.c) share: an allocator that counts live bytes and refuses
 * blocks over a limit (so a hostile size is seen as a refusal, not as an
 * out-of-memory of the process, and a leak as bytes still live), and the
 * one message buffer a body's checks return their problem in. Included by
 * the bodies only; every function is static inline, so a body that does
 * not use one pays nothing. */
#ifndef CJ_FUZZ_BODY_UTIL_H
#define CJ_FUZZ_BODY_UTIL_H
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct counting {
    size_t live, limit, refused;
} counting;

static inline void *counted_alloc(void *user, size_t size, size_t align) {
    counting *c = user;
    if (size > c->limit) {
        c->refused = size;
        return NULL;
    }
    void *p = NULL;
    if (align < sizeof(void *)) align = sizeof(void *);
    if (posix_memalign(&p, align, size ? size : 1) != 0) return NULL;
    c->live += size;
    return p;
}

static inline void counted_free(void *user, void *p, size_t size) {
    counting *c = user;
    if (!p) return;
    c->live -= size;
    free(p);
}

/* The body's answer when a check fails: the message, formatted into a
 * buffer of the body's own (one input at a time, so one buffer). */
static inline char *fuzz_problem_buffer(size_t *size) {
    static char problem[1400];
    *size = sizeof problem;
    return problem;
}

__attribute__((format(printf, 1, 2))) static inline const char *fail(const char *fmt, ...) {
    size_t size;
    char *problem = fuzz_problem_buffer(&size);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(problem, size, fmt, ap);
    va_end(ap);
    return problem;
}
#endif
