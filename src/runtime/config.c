/* config.c — the one place CJAX_* environment variables are read (runtime
 * layer). Read once, on first use; the README lists every knob. */
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_features.h"
#include "runtime.h"

static rt_config config;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static const char *env_or(const char *name, const char *fallback) {
    const char *v = getenv(name);
    return v && *v ? v : fallback;
}

static void load(void) {
    config.num_threads = atoi(env_or("CJAX_NUM_THREADS", "0"));
    if (config.num_threads < 0) config.num_threads = 0;
    long pool_mb = atol(env_or("CJAX_POOL_MAX_MB", "1024"));
    config.pool_max_bytes = pool_mb > 0 ? (size_t)pool_mb << 20 : 0;
    config.explain_cache_misses = atoi(env_or("CJAX_EXPLAIN_CACHE_MISSES", "0")) != 0;
    long jit_cache = atol(env_or("CJAX_JIT_CACHE_SIZE", "1024")); /* not a positive int: the default */
    config.jit_cache_size = jit_cache > 0 && jit_cache <= INT_MAX ? (int)jit_cache : 1024;
    config.dump = env_or("CJAX_DUMP", "");
    config.verify = atoi(env_or("CJAX_VERIFY", "0")) != 0;
    config.dump_dir = env_or("CJAX_DUMP_DIR", "");
    if (!*config.dump_dir) config.dump_dir = ".";
    config.cc = env_or("CJAX_CC", "cc");
    config.cflags = env_or("CJAX_CFLAGS", "");
    config.cache_dir = env_or("CJAX_CACHE_DIR", "");
    long cache_mb = atol(env_or("CJAX_CACHE_MAX_MB", "1024"));
    config.cache_max_bytes = cache_mb > 0 ? (int64_t)cache_mb << 20 : 0;
    long hoist_mb = atol(env_or("CJAX_SCAN_HOIST_MAX_MB", "64")); /* 0 (or not a number): never hoist */
    config.scan_hoist_max_bytes = hoist_mb > 0 ? (size_t)hoist_mb << 20 : 0;
    const char *isa = env_or("CJAX_ISA", ""); /* anything else: no cap */
    config.isa_cap = !strcmp(isa, "baseline") ? RT_ISA_BASE : !strcmp(isa, "avx2") ? RT_ISA_AVX2
                     : !strcmp(isa, "avx512")  ? RT_ISA_AVX512 : 0;
    config.verbose = atoi(env_or("CJAX_VERBOSE", "0")) != 0;
    const char *b = env_or("CJAX_BACKEND", "tiered");
    config.backend = !strcmp(b, "interp") ? CJ_BACKEND_INTERP : !strcmp(b, "cc") ? CJ_BACKEND_CC : CJ_BACKEND_TIERED;
}

const rt_config *rt_config_get(void) {
    pthread_once(&once, load);
    return &config;
}
