/* npy_body.c — the .npy fuzz body: one input through cj_load_npy, checked
 * (see fuzz_inputs.h; shared by fuzz_npy.c and tests/test_fuzz_inputs.c).
 *
 * What is checked beyond "no crash": a rejection is CJ_ERR_FORMAT naming
 * cj_load_npy and the file (a parser that ran out of memory on a small file,
 * or said nothing, is a finding); an accepted array holds no more data than
 * the file did and survives cj_save_npy + cj_load_npy unchanged; and the
 * context's allocator ends with nothing live. The allocator also refuses
 * any single block larger than the input plus a few MiB, so a header that
 * claims a huge shape must be refused by the parser before it allocates,
 * not by the machine's memory (deterministically, with or without ASan). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cjax.h"
#include "fuzz_body_util.h"
#include "fuzz_inputs.h"

static void temp_path(char *buf, size_t size, const char *tag) {
    const char *dir = getenv("TMPDIR");
    snprintf(buf, size, "%s/cjax-fuzz-npy-%ld-%s.npy", dir && *dir ? dir : "/tmp", (long)getpid(), tag);
}

static int write_file(const char *path, const uint8_t *data, size_t size) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    int ok = size == 0 || fwrite(data, 1, size, f) == size;
    return fclose(f) == 0 && ok ? 0 : -1;
}

/* An accepted array: no more data than the file, bools 0/1, and a save +
 * load round trip that changes nothing. NULL when it holds. */
static const char *check_array(cj_ctx *ctx, cj_val v, size_t file_size, const char *out_path) {
    cj_dtype dt = cj_val_dtype(v);
    int64_t dims[CJ_MAX_RANK], dims2[CJ_MAX_RANK];
    int rank = cj_val_rank(v);
    if (rank < 0 || rank > CJ_MAX_RANK) return fail("loaded an array of rank %d", rank);
    cj_val_shape(v, dims);
    size_t nbytes = (size_t)cj_val_size(v) * cj_dtype_size(dt);
    if (nbytes > file_size)
        return fail("loaded %zu bytes of data from a file of %zu bytes", nbytes, file_size);
    uint8_t *a = malloc(nbytes ? nbytes : 1), *b = malloc(nbytes ? nbytes : 1);
    const char *why = NULL;
    if (!a || !b) {
        why = fail("out of memory in the fuzz body");
        goto done;
    }
    if (cj_read(v, a, nbytes) != CJ_OK) {
        why = fail("cj_read of the loaded array failed: %s", cj_error_message(ctx));
        goto done;
    }
    if (dt == CJ_BOOL)
        for (size_t i = 0; i < nbytes; i++)
            if (a[i] > 1) {
                why = fail("a loaded bool holds %d at element %zu", a[i], i);
                goto done;
            }
    if (cj_save_npy(v, out_path) != CJ_OK) {
        why = fail("cj_save_npy of the loaded array failed: %s", cj_error_message(ctx));
        goto done;
    }
    cj_val w = cj_load_npy(ctx, out_path);
    if (cj_is_error(w)) {
        why = fail("cj_load_npy of a file cj_save_npy wrote failed: %s", cj_error_message(ctx));
        goto done;
    }
    if (cj_val_dtype(w) != dt || cj_val_shape(w, dims2) != rank ||
        memcmp(dims, dims2, sizeof(int64_t) * (size_t)rank) != 0) {
        why = fail("the round trip changed the type (rank %d -> %d)", rank, cj_val_rank(w));
        goto done;
    }
    if (cj_read(w, b, nbytes) != CJ_OK || memcmp(a, b, nbytes) != 0)
        why = fail("the round trip changed the data (%zu bytes)", nbytes);
done:
    free(a);
    free(b);
    remove(out_path);
    return why;
}

const char *fuzz_npy_one(const uint8_t *data, size_t size, fuzz_outcome *outcome) {
    char in_path[256], out_path[256];
    temp_path(in_path, sizeof in_path, "in");
    temp_path(out_path, sizeof out_path, "out");
    *outcome = FUZZ_REJECTED;
    if (write_file(in_path, data, size) != 0) return fail("cannot write the input to '%s'", in_path);

    counting c = {0, size + ((size_t)4 << 20), 0};
    cj_allocator al = {counted_alloc, counted_free, &c};
    cj_ctx *ctx = cj_ctx_new(&al);
    if (!ctx) {
        remove(in_path);
        return fail("cj_ctx_new failed");
    }
    const char *why = NULL;
    cj_val v = cj_load_npy(ctx, in_path);
    if (!cj_is_error(v)) {
        *outcome = FUZZ_ACCEPTED;
        why = check_array(ctx, v, size, out_path);
    } else if (c.refused) {
        why = fail("a file of %zu bytes asked for a block of %zu bytes", size, c.refused);
    } else if (cj_error(ctx) != CJ_ERR_FORMAT) {
        why = fail("rejected with %s, not CJ_ERR_FORMAT: %s", cj_status_name(cj_error(ctx)), cj_error_message(ctx));
    } else if (strncmp(cj_error_message(ctx), "cj_load_npy: '", 14) != 0 ||
               !strstr(cj_error_message(ctx), in_path)) {
        why = fail("the message does not name cj_load_npy and the file: %s", cj_error_message(ctx));
    }
    cj_ctx_free(ctx);
    remove(in_path);
    if (!why && c.live != 0) why = fail("%zu bytes left allocated after cj_ctx_free", c.live);
    return why;
}
