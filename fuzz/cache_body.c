/* cache_body.c — the cache-file fuzz body: one input as a file of the C
 * backend's disk cache, through the check every build makes before dlopen
 * (see fuzz_inputs.h; shared by fuzz_cache.c and tests/test_fuzz_inputs.c).
 *
 * A cache file is the compiler's shared object followed by an 80-byte
 * trailer: 8 bytes of magic "CJAXSO1\n", the payload's size (u64, little
 * endian), the 32-byte key, the SHA-256 of the payload (cc_build.h). The
 * body reads the trailer itself, decides whether the file is intact, and
 * requires cc_cache_file_check to agree, payload size included. The file is
 * made 0600, as the cache's own entries are (a file others may write is
 * refused whatever it holds). The input also goes through cc_elf_check, the
 * ELF bounds check a build makes before dlopen: any answer is fine, a crash
 * or a read outside the input is not. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/cc_build.h"
#include "fuzz_body_util.h"
#include "fuzz_inputs.h"

#define TRAILER 80

static uint64_t le64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* The independent reading: is `data` a payload sealed for `key`? */
static int intact(const uint8_t *data, size_t size, const uint8_t key[32]) {
    if (size <= TRAILER) return 0;
    const uint8_t *t = data + size - TRAILER;
    uint8_t digest[32];
    if (memcmp(t, "CJAXSO1\n", 8) != 0 || le64(t + 8) != size - TRAILER || memcmp(t + 16, key, 32) != 0)
        return 0;
    cc_sha256(data, size - TRAILER, digest);
    return memcmp(t + 48, digest, 32) == 0;
}

const char *fuzz_cache_one(const uint8_t *data, size_t size, fuzz_outcome *outcome) {
    *outcome = FUZZ_REJECTED;
    uint8_t key[32];
    cc_sha256(FUZZ_CACHE_KEY_TEXT, strlen(FUZZ_CACHE_KEY_TEXT), key);
    const char *tmp = getenv("TMPDIR");
    char path[256];
    snprintf(path, sizeof path, "%s/cjax-fuzz-cache-%ld.so", tmp && *tmp ? tmp : "/tmp", (long)getpid());
    FILE *f = fopen(path, "wb");
    if (!f) return fail("cannot write the input to '%s'", path);
    int written = size == 0 || fwrite(data, 1, size, f) == size;
    if (fclose(f) != 0 || !written) {
        remove(path);
        return fail("cannot write the input to '%s'", path);
    }
    chmod(path, 0600);
    size_t payload = 12345;
    int rc = cc_cache_file_check(path, key, &payload);
    int fd = open(path, O_RDONLY | O_CLOEXEC), empty_reason = 0;
    if (fd >= 0) {
        const char *why = cc_elf_check(fd, size);
        empty_reason = why && !*why;
        close(fd);
    }
    remove(path);
    if (empty_reason) return fail("cc_elf_check gave an empty reason (%zu bytes)", size);
    int expect = intact(data, size, key);
    if (rc == 1) *outcome = FUZZ_ACCEPTED;
    if (rc == 0) return fail("a file that exists was reported missing (%zu bytes)", size);
    if (rc != (expect ? 1 : -1))
        return fail("cc_cache_file_check says %s, the trailer says %s (%zu bytes)",
                    rc == 1 ? "valid" : "corrupt", expect ? "valid" : "corrupt", size);
    if (payload != (rc == 1 ? size - TRAILER : 0))
        return fail("payload size %zu for a %s file of %zu bytes", payload, rc == 1 ? "valid" : "corrupt", size);
    return NULL;
}
