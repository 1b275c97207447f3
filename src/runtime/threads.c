/* threads.c — a small fork-join pool over pthreads (runtime layer).
 *
 * One loop runs at a time: the caller publishes (fn, arg, n, grain), wakes the
 * workers, takes chunks itself, and waits until every chunk is finished.
 * Chunks are claimed with an atomic counter, so uneven chunks balance out.
 * Worker state is static: the pool outlives contexts and is never freed
 * (threads end with the process). */
#include "threads.h"

#include "runtime.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#define MAX_THREADS 64

static pthread_once_t pool_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t call_lock = PTHREAD_MUTEX_INITIALIZER; /* one loop at a time */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static pthread_cond_t done = PTHREAD_COND_INITIALIZER;
static int n_threads = 1;        /* including the calling thread */
static int n_started;            /* workers actually running */
static uint64_t epoch;           /* bumped once per loop */
static int busy_workers;

static rt_range_fn job_fn;
static void *job_arg;
static int64_t job_n, job_grain, job_chunks;
static atomic_llong next_chunk;
static _Thread_local int in_worker;

static void run_chunks(void) {
    for (;;) {
        long long c = atomic_fetch_add(&next_chunk, 1);
        if (c >= job_chunks) return;
        int64_t b = (int64_t)c * job_grain;
        int64_t e = b + job_grain < job_n ? b + job_grain : job_n;
        job_fn(job_arg, b, e);
    }
}

static void *worker_main(void *unused) {
    (void)unused;
    in_worker = 1;
    uint64_t seen = 0;
    pthread_mutex_lock(&lock);
    for (;;) {
        while (epoch == seen) pthread_cond_wait(&wake, &lock);
        seen = epoch;
        pthread_mutex_unlock(&lock);
        run_chunks();
        pthread_mutex_lock(&lock);
        if (--busy_workers == 0) pthread_cond_signal(&done);
    }
    return NULL;
}

static void pool_start(void) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int want = cores > 0 ? (int)cores : 1;
    if (rt_config_get()->num_threads >= 1) want = rt_config_get()->num_threads;
    if (want > MAX_THREADS) want = MAX_THREADS;
    static pthread_t workers[MAX_THREADS];
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    for (int i = 0; i < want - 1; i++) {
        if (pthread_create(&workers[i], &attr, worker_main, NULL) != 0) break;
        n_started++;
    }
    pthread_attr_destroy(&attr);
    n_threads = n_started + 1;
}

int rt_num_threads(void) {
    pthread_once(&pool_once, pool_start);
    return n_threads;
}

void rt_parallel_for(int64_t n, int64_t grain, rt_range_fn fn, void *arg) {
    if (n <= 0) return;
    if (grain < 1) grain = 1;
    int64_t chunks = (n + grain - 1) / grain;
    if (chunks == 1 || in_worker || rt_num_threads() == 1) {
        fn(arg, 0, n);
        return;
    }
    pthread_mutex_lock(&call_lock);
    in_worker = 1; /* nested calls from fn run serially */
    pthread_mutex_lock(&lock);
    job_fn = fn;
    job_arg = arg;
    job_n = n;
    job_grain = grain;
    job_chunks = chunks;
    atomic_store(&next_chunk, 0);
    busy_workers = n_started;
    epoch++;
    pthread_cond_broadcast(&wake);
    pthread_mutex_unlock(&lock);
    run_chunks();
    pthread_mutex_lock(&lock);
    while (busy_workers > 0) pthread_cond_wait(&done, &lock);
    pthread_mutex_unlock(&lock);
    in_worker = 0;
    pthread_mutex_unlock(&call_lock);
}
