/* mem.c — a context's allocator: the user's hook, statistics, and the pool
 * of freed data buffers (runtime layer).
 *
 * Every byte a context holds comes through `hook`, so tests can count blocks
 * and fail the N-th allocation. Data buffers are rounded up to size classes
 * (four per power of two) and, when freed, kept on a per-class free list for
 * reuse, so a steady-state eager loop stops calling the allocator. Pooled
 * bytes are capped (CJAX_POOL_MAX_MB); cj_mem_trim returns them. Large
 * buffers from the default allocator are 2 MiB aligned and advised as huge
 * pages: first-touch page faults dominate fresh large buffers. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "runtime.h"

#define N_CLASSES 256
#define HUGE_THRESHOLD ((size_t)4 << 20)

struct rt_mem {
    cj_allocator hook;
    size_t bytes_live, bytes_peak, bytes_in_arrays, bytes_pooled;
    uint64_t n_allocs, n_frees, n_pool_hits;
    void *free_list[N_CLASSES]; /* next pointer stored in each free buffer */
    void *free_headers;         /* freed array headers, same linking */
    size_t n_free_headers;
    size_t bytes_borrowed;
    size_t n_exports; /* DLPack exports not yet dropped */
    bool dying;       /* rt_mem_delete ran with exports outstanding */
};

static void *default_alloc(void *user, size_t size, size_t align) {
    (void)user;
    void *p = NULL;
    if (size >= HUGE_THRESHOLD) {
        if (posix_memalign(&p, (size_t)2 << 20, size) != 0) return NULL;
#ifdef MADV_HUGEPAGE
        madvise(p, size, MADV_HUGEPAGE);
#endif
        return p;
    }
    if (align < sizeof(void *)) align = sizeof(void *);
    if (posix_memalign(&p, align, size ? size : 1) != 0) return NULL;
    return p;
}

static void default_free(void *user, void *p, size_t size) {
    (void)user;
    (void)size;
    free(p);
}

static void *hook_alloc(rt_mem *m, size_t size, size_t align) {
    void *p = m->hook.alloc(m->hook.user, size, align);
    if (!p) return NULL;
    m->n_allocs++;
    m->bytes_live += size;
    if (m->bytes_live > m->bytes_peak) m->bytes_peak = m->bytes_live;
    return p;
}

static void hook_free(rt_mem *m, void *p, size_t size) {
    if (!p) return;
    m->hook.free(m->hook.user, p, size);
    m->n_frees++;
    m->bytes_live -= size;
}

rt_mem *rt_mem_new(const cj_allocator *hook) {
    cj_allocator h = {default_alloc, default_free, NULL};
    if (hook && hook->alloc && hook->free) h = *hook;
    rt_mem *m = h.alloc(h.user, sizeof *m, 64);
    if (!m) return NULL;
    memset(m, 0, sizeof *m);
    m->hook = h;
    m->n_allocs = 1;
    m->bytes_live = m->bytes_peak = sizeof *m;
    return m;
}

static void mem_release(rt_mem *m) {
    rt_mem_trim(m);
    cj_allocator h = m->hook;
    h.free(h.user, m, sizeof *m);
}

void rt_mem_delete(rt_mem *m) {
    if (!m) return;
    if (m->n_exports) { /* the last rt_mem_export_drop deletes it */
        rt_mem_trim(m);
        m->dying = true;
        return;
    }
    mem_release(m);
}

void rt_mem_export_hold(rt_mem *m) { m->n_exports++; }

void rt_mem_export_drop(rt_mem *m) {
    if (--m->n_exports == 0 && m->dying) mem_release(m);
}

void rt_mem_borrowed(rt_mem *m, size_t add, size_t sub) { m->bytes_borrowed += add, m->bytes_borrowed -= sub; }

void rt_mem_stats(rt_mem *m, cj_mem_stats *out) {
    out->bytes_live = m->bytes_live;
    out->bytes_peak = m->bytes_peak;
    out->bytes_in_arrays = m->bytes_in_arrays;
    out->bytes_pooled = m->bytes_pooled;
    out->n_allocs = m->n_allocs;
    out->n_frees = m->n_frees;
    out->n_pool_hits = m->n_pool_hits;
    out->bytes_borrowed = m->bytes_borrowed;
}

void *rt_alloc(rt_mem *m, size_t size) { return hook_alloc(m, size ? size : 1, 16); }

void *rt_calloc(rt_mem *m, size_t size) {
    void *p = rt_alloc(m, size);
    if (p) memset(p, 0, size ? size : 1);
    return p;
}

void rt_free(rt_mem *m, void *p, size_t size) { hook_free(m, p, size ? size : 1); }

void *rt_realloc(rt_mem *m, void *p, size_t old_size, size_t new_size) {
    void *q = rt_alloc(m, new_size);
    if (!q) return NULL;
    if (p) {
        memcpy(q, p, old_size < new_size ? old_size : new_size);
        rt_free(m, p, old_size);
    }
    return q;
}

char *rt_strdup(rt_mem *m, const char *s) {
    size_t n = strlen(s) + 1;
    char *d = rt_alloc(m, n);
    if (d) memcpy(d, s, n);
    return d;
}

void rt_strfree(rt_mem *m, char *s) {
    if (s) rt_free(m, s, strlen(s) + 1);
}

/* Size classes: 64 bytes, then m·2^e for m in {5,6,7,8}·2^(e-3)... i.e. four
 * steps per doubling. Returns the class index and its capacity. */
static int size_class(size_t size, size_t *cap) {
    if (size <= 64) {
        *cap = 64;
        return 0;
    }
    int e = 63 - __builtin_clzll((unsigned long long)(size - 1)); /* 2^e < size <= 2^(e+1) */
    size_t base = (size_t)1 << e, step = base / 4;
    size_t k = (size - base + step - 1) / step; /* 1..4 */
    *cap = base + k * step;
    int idx = 1 + (e - 6) * 4 + (int)(k - 1);
    return idx < N_CLASSES ? idx : -1;
}

void *rt_data_alloc(rt_mem *m, size_t size, size_t *cap) {
    int c = size_class(size, cap);
    if (c >= 0 && m->free_list[c]) {
        void *p = m->free_list[c];
        memcpy(&m->free_list[c], p, sizeof(void *));
        m->bytes_pooled -= *cap;
        m->bytes_in_arrays += *cap;
        m->n_pool_hits++;
        return p;
    }
    void *p = hook_alloc(m, *cap, 64);
    if (!p && m->bytes_pooled) { /* give the pool back and retry once */
        rt_mem_trim(m);
        p = hook_alloc(m, *cap, 64);
    }
    if (p) m->bytes_in_arrays += *cap;
    return p;
}

void rt_data_free(rt_mem *m, void *p, size_t cap) {
    if (!p) return;
    m->bytes_in_arrays -= cap;
    size_t c2;
    int c = size_class(cap, &c2);
    if (c >= 0 && c2 == cap && m->bytes_pooled + cap <= rt_config_get()->pool_max_bytes) {
        memcpy(p, &m->free_list[c], sizeof(void *));
        m->free_list[c] = p;
        m->bytes_pooled += cap;
        return;
    }
    hook_free(m, p, cap);
}

/* Array headers are recycled too, so an eager op in steady state makes no
 * allocator call at all. */
void *rt_header_alloc(rt_mem *m, size_t size) {
    if (m->free_headers) {
        void *p = m->free_headers;
        memcpy(&m->free_headers, p, sizeof(void *));
        m->n_free_headers--;
        return p;
    }
    return rt_alloc(m, size);
}

void rt_header_free(rt_mem *m, void *p, size_t size) {
    if (m->n_free_headers >= 4096) {
        rt_free(m, p, size);
        return;
    }
    memcpy(p, &m->free_headers, sizeof(void *));
    m->free_headers = p;
    m->n_free_headers++;
}

void rt_mem_trim(rt_mem *m) {
    while (m->free_headers) {
        void *p = m->free_headers;
        memcpy(&m->free_headers, p, sizeof(void *));
        rt_free(m, p, sizeof(rt_array));
    }
    m->n_free_headers = 0;
    for (int c = 0; c < N_CLASSES; c++) {
        while (m->free_list[c]) {
            void *p = m->free_list[c];
            memcpy(&m->free_list[c], p, sizeof(void *));
            size_t cap;
            if (c == 0) cap = 64;
            else {
                int e = (c - 1) / 4 + 6, k = (c - 1) % 4 + 1;
                cap = ((size_t)1 << e) + (size_t)k * ((size_t)1 << e) / 4;
            }
            m->bytes_pooled -= cap;
            hook_free(m, p, cap);
        }
    }
}
