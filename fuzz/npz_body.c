/* npz_body.c — the .npz fuzz body: one input through cj_load_npz, checked
 * (see fuzz_inputs.h; shared by fuzz_npz.c and tests/test_fuzz_inputs.c).
 *
 * Beyond "no crash": a rejection is CJ_ERR_FORMAT (CJ_ERR_UNSUPPORTED for
 * a deflated member in a build without zlib) with a message naming
 * cj_load_npz and the file; an accepted archive's count agrees with
 * cj_load_npz(NULL, 0), each member is also what cj_load_npz_member gives
 * by name, and the arrays survive cj_save_npz + cj_load_npz unchanged;
 * nothing is left allocated. The allocator refuses any single block larger
 * than deflate's largest expansion of the input (1032:1) plus a few MiB:
 * a directory claiming more must be refused before anything is allocated. */
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
    snprintf(buf, size, "%s/cjax-fuzz-npz-%ld-%s.npz", dir && *dir ? dir : "/tmp", (long)getpid(), tag);
}

static int same(cj_val a, cj_val b) {
    if (cj_val_dtype(a) != cj_val_dtype(b) || cj_val_rank(a) != cj_val_rank(b)) return 0;
    for (int i = 0; i < cj_val_rank(a); i++)
        if (cj_val_dim(a, i) != cj_val_dim(b, i)) return 0;
    size_t n = (size_t)cj_val_size(a) * cj_dtype_size(cj_val_dtype(a));
    const void *pa = cj_array_data(a), *pb = cj_array_data(b);
    return pa && pb && (n == 0 || memcmp(pa, pb, n) == 0);
}

enum { MAX_MEMBERS = 16 };

static const char *check_archive(cj_ctx *ctx, const char *in_path, const char *out_path, int n,
                                 cj_npz_entry *e) {
    if (cj_load_npz(ctx, in_path, NULL, 0) != n) return fail("counting the members gave another number");
    int k = n < MAX_MEMBERS ? n : MAX_MEMBERS;
    const char *names[MAX_MEMBERS];
    cj_val vals[MAX_MEMBERS];
    for (int i = 0; i < k; i++) {
        if (cj_is_error(e[i].val)) return fail("member %d loaded as an error value", i);
        cj_val by_name = cj_load_npz_member(ctx, in_path, e[i].name);
        if (cj_is_error(by_name) || !same(by_name, e[i].val))
            return fail("member '%s' by name differs: %s", e[i].name, cj_error_message(ctx));
        names[i] = e[i].name;
        vals[i] = e[i].val;
    }
    if (cj_save_npz(out_path, k, names, vals, 0) != CJ_OK)
        return fail("cj_save_npz of the loaded arrays failed: %s", cj_error_message(ctx));
    cj_npz_entry back[MAX_MEMBERS];
    if (cj_load_npz(ctx, out_path, back, MAX_MEMBERS) != k)
        return fail("cj_load_npz of a file cj_save_npz wrote failed: %s", cj_error_message(ctx));
    for (int i = 0; i < k; i++)
        if (strcmp(back[i].name, names[i]) || !same(back[i].val, vals[i]))
            return fail("the round trip changed member %d ('%s')", i, names[i]);
    return NULL;
}

const char *fuzz_npz_one(const uint8_t *data, size_t size, fuzz_outcome *outcome) {
    char in_path[256], out_path[256];
    temp_path(in_path, sizeof in_path, "in");
    temp_path(out_path, sizeof out_path, "out");
    *outcome = FUZZ_REJECTED;
    FILE *f = fopen(in_path, "wb");
    if (!f) return fail("cannot write the input to '%s'", in_path);
    int ok = size == 0 || fwrite(data, 1, size, f) == size;
    if (fclose(f) != 0 || !ok) return fail("cannot write the input to '%s'", in_path);

    counting c = {0, size * 1032 + ((size_t)8 << 20), 0};
    cj_allocator al = {counted_alloc, counted_free, &c};
    cj_ctx *ctx = cj_ctx_new(&al);
    if (!ctx) {
        remove(in_path);
        return fail("cj_ctx_new failed");
    }
    const char *why = NULL;
    cj_npz_entry e[MAX_MEMBERS];
    int n = cj_load_npz(ctx, in_path, e, MAX_MEMBERS);
    cj_status st = cj_error(ctx);
    if (n >= 0) {
        *outcome = FUZZ_ACCEPTED;
        why = check_archive(ctx, in_path, out_path, n, e);
    } else if (c.refused) {
        why = fail("a file of %zu bytes asked for a block of %zu bytes", size, c.refused);
    } else if (st != CJ_ERR_FORMAT && !(st == CJ_ERR_UNSUPPORTED && !cj_npz_deflate_available())) {
        why = fail("rejected with %s, not CJ_ERR_FORMAT: %s", cj_status_name(st), cj_error_message(ctx));
    } else if (strncmp(cj_error_message(ctx), "cj_load_npz: '", 14) != 0 || !strstr(cj_error_message(ctx), in_path)) {
        why = fail("the message does not name cj_load_npz and the file: %s", cj_error_message(ctx));
    }
    cj_ctx_free(ctx);
    remove(in_path);
    remove(out_path);
    if (!why && c.live != 0) why = fail("%zu bytes left allocated after cj_ctx_free", c.live);
    return why;
}
