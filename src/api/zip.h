/* zip.h — the zip container under .npz files (api layer; zip.c).
 *
 * Only what numpy.savez / savez_compressed write and read: one disk,
 * members stored (method 0) or deflated (method 8, with zlib), zip64
 * records when sizes or offsets pass 32 bits. Reading works on the whole
 * archive in memory and trusts nothing in it: every offset and size is
 * checked against the bytes there before it is used (zip.c lists the
 * checks). Failures are a sentence in `why`; the caller names the call
 * and the file. */
#ifndef CJ_ZIP_H
#define CJ_ZIP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../runtime/runtime.h"

uint32_t zip_crc32(uint32_t crc, const void *data, size_t n);
int zip_have_deflate(void);

/* ---- reading ---- */
typedef struct zip_member {
    char *name;          /* NUL-terminated copy (rt_alloc'd, name_len + 1 bytes) */
    size_t name_len;
    uint64_t usize, csize; /* uncompressed and stored sizes */
    uint64_t header;     /* offset of the local header */
    uint64_t data;       /* offset of the member's stored bytes */
    uint32_t crc;
    int method;          /* 0 stored, 8 deflate */
} zip_member;

typedef struct zip_archive {
    const uint8_t *bytes;
    size_t size;
    zip_member *m;
    int n;
} zip_archive;

/* Parses and checks the directory of the archive in bytes[0..size).
 * 0, or -1 with why (and the status to report: CJ_ERR_FORMAT, or
 * CJ_ERR_OOM / CJ_ERR_UNSUPPORTED) set; nothing held on failure. */
int zip_open(rt_mem *mem, const uint8_t *bytes, size_t size, zip_archive *z, cj_status *status, char *why,
             size_t whylen);
void zip_close(rt_mem *mem, zip_archive *z);
/* Member i's uncompressed bytes, its CRC checked. Stored: *out points
 * into the archive and *owned is 0; deflated: a buffer of usize bytes
 * (rt_data_alloc'd, *owned its capacity) the caller frees. */
int zip_extract(rt_mem *mem, const zip_archive *z, int i, const uint8_t **out, size_t *owned, cj_status *status,
                char *why, size_t whylen);

/* ---- writing ---- */
typedef struct zip_writer {
    FILE *f;
    rt_mem *mem;
    uint64_t pos;
    zip_member *m; /* name, sizes, crc, method, header offset */
    int n, cap;
    int force_zip64; /* tests: zip64 records even for small archives */
} zip_writer;

/* Appends a member whose bytes are head[0..hlen) then data[0..dlen),
 * deflated when packs is set. 0 or -1 with why. */
int zip_write_member(zip_writer *w, const char *name, const void *head, size_t hlen, const void *data, size_t dlen,
                     int packs, cj_status *status, char *why, size_t whylen);
/* Writes the central directory and end records; frees the tables (also
 * on failure). The caller closes the file. */
int zip_finish(zip_writer *w, cj_status *status, char *why, size_t whylen);
void zip_writer_drop(zip_writer *w);

#endif
