/* array.c — refcounted dense arrays (runtime layer). An array header and
 * its data both come from the context's allocator; the data from the pool.
 * A borrowed array's data is the caller's: only its header is ours, and
 * the caller's release callback runs when its last reference goes. */
#include <string.h>

#include "runtime.h"

rt_array *rt_array_new(rt_mem *m, const rt_aval *aval) {
    rt_array *a = rt_header_alloc(m, sizeof *a);
    if (!a) return NULL;
    memset(a, 0, sizeof *a);
    a->refcount = 1;
    a->aval = *aval;
    a->size = rt_aval_size(aval);
    a->mem = m;
    a->data = rt_data_alloc(m, rt_aval_nbytes(aval), &a->cap);
    if (!a->data) {
        rt_header_free(m, a, sizeof *a);
        return NULL;
    }
    return a;
}

rt_array *rt_array_ref(rt_array *a) {
    if (a) a->refcount++;
    return a;
}

rt_array *rt_array_borrow(rt_mem *m, const rt_aval *aval, void *data, rt_release_fn release, void *user) {
    rt_array *a = rt_header_alloc(m, sizeof *a);
    if (!a) return NULL;
    memset(a, 0, sizeof *a);
    a->refcount = 1;
    a->aval = *aval;
    a->size = rt_aval_size(aval);
    a->mem = m;
    a->data = data;
    a->borrowed = true;
    a->release = release;
    a->release_user = user;
    rt_mem_borrowed(m, rt_aval_nbytes(aval), 0);
    return a;
}

void rt_array_unref(rt_array *a) {
    if (!a || --a->refcount > 0) return;
    rt_mem *m = a->mem;
    if (a->borrowed) {
        rt_release_fn release = a->release;
        void *user = a->release_user;
        void *data = a->data == (void *)&a->borrowed ? NULL : a->data; /* an empty view's stand-in (borrow.c) */
        rt_mem_borrowed(m, 0, rt_aval_nbytes(&a->aval));
        rt_header_free(m, a, sizeof *a);
        if (release) release(user, data); /* last: it may free what the header pointed at */
        return;
    }
    rt_data_free(m, a->data, a->cap);
    rt_header_free(m, a, sizeof *a);
}
