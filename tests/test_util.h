/* test_util.h — helpers shared by test files: a counting allocator that can
 * fail the N-th allocation (fault injection), and small array builders. */
#ifndef CJ_TEST_UTIL_H
#define CJ_TEST_UTIL_H
#include "cjax.h"

typedef struct tu_alloc {
    long long fail_at;  /* fail the allocation with this number (1-based); 0 never */
    long long count;    /* allocations attempted */
    long long live;     /* blocks not yet freed */
    long long live_bytes;
    int failed;         /* an allocation was refused */
} tu_alloc;

/* An allocator hook over malloc that counts and can fail. */
cj_allocator tu_allocator(tu_alloc *state);

/* f32 array from a list of values: tu_f32(ctx, rank, dims, values). */
cj_val tu_f32(cj_ctx *ctx, int rank, const int64_t *dims, const float *values);
/* A vector 0, 1, ..., n-1 scaled by `scale` plus `offset`, as f32. */
cj_val tu_ramp(cj_ctx *ctx, int64_t n, float scale, float offset);
/* A value's elements read as f64 into a malloc'd buffer (the caller frees
 * it), NULL when it cannot be read. */
double *tu_read_f64(cj_val v);
/* The committed linear-algebra fixture tests/data/linalg/CASE_WHAT.npy. */
cj_val tu_load_linalg(cj_ctx *ctx, const char *case_name, const char *what);

/* Allocator calls made by one steady-state call of jf (after two warm-up
 * calls: compiling, first-use buffers, the pool filled); jf has at most 8
 * outputs. */
uint64_t tu_allocs_per_call(cj_ctx *ctx, cj_func *jf, const cj_val *in);

/* A float's bits as an integer that orders like the float (f32 from 4
 * bytes, f16/bf16 from 2, else f64 from 8): the difference of two is their distance in ulp. */
int64_t tu_ordered_bits(const void *p, cj_dtype dt);
/* Whether got has want's type and matches it within max_ulp (f32/f64/f16/bf16;
 * other dtypes exactly); `why` says how they differ. The largest distance
 * seen is raised into *worst_out when that is not NULL. */
int tu_match_ulp(cj_val got, cj_val want, int64_t max_ulp, char *why, size_t size, int64_t *worst_out);

/* Runs the test binary `self` again as a child with only the test named
 * `test`, CJAX_NUM_THREADS=threads, CJAX_VERIFY=1 and env_name=env_value
 * in its environment; its exit status, -1 when it did not exit. */
int tu_run_child(const char *self, const char *test, const char *env_name, const char *env_value, int threads);

/* Same dtype, shape and bytes. */
int tu_same_bits(cj_val a, cj_val b);
/* Fills the primitives' rule table through the one top-level init
 * (src/init.c), which creating a context runs: for tests that read
 * prim_rules without a context of their own. */
void tu_fill_rule_table(void);

#endif
