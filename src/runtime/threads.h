/* threads.h — the process-wide worker pool (runtime layer).
 *
 * Kernels split large loops into chunks and hand them to rt_parallel_for.
 * The pool is started lazily on first use with CJAX_NUM_THREADS workers
 * (default: the number of online cores). It never allocates through a
 * context's allocator: worker storage is static, so a context's statistics
 * and fault injection are unaffected by it.
 *
 * Contract: fn(arg, begin, end) is called on disjoint ranges covering
 * [0, n); ranges are multiples of `grain` except the last. A call made from
 * inside a worker (nested parallelism) runs serially on the caller. Calls
 * from several user threads at once are serialised (one loop at a time). */
#ifndef CJ_RUNTIME_THREADS_H
#define CJ_RUNTIME_THREADS_H
#include <stdint.h>

typedef void (*rt_range_fn)(void *arg, int64_t begin, int64_t end);

/* Runs fn over [0, n) on the pool; returns when every range is done. */
void rt_parallel_for(int64_t n, int64_t grain, rt_range_fn fn, void *arg);

/* Threads the pool uses (>= 1). */
int rt_num_threads(void);

/* Elements below which an elementwise loop should stay serial. */
#define RT_PARALLEL_MIN_ELEMS ((int64_t)1 << 15)

#endif
