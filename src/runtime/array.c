/* array.c — refcounted dense arrays (runtime layer). An array header and
 * its data both come from the context's allocator; the data from the pool. */
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

void rt_array_unref(rt_array *a) {
    if (!a || --a->refcount > 0) return;
    rt_data_free(a->mem, a->data, a->cap);
    rt_header_free(a->mem, a, sizeof *a);
}
