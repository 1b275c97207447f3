/* zip.c — reading and writing the zip archives .npz files are (api layer).
 *
 * The format (PKWARE's APPNOTE): members, each a local header (signature
 * PK\3\4, sizes, CRC-32, name) and its bytes; then the central directory,
 * one record per member (PK\1\2, the same facts and the local header's
 * offset); then the end record (PK\5\6: member count, directory size and
 * offset), preceded by zip64's end record and locator (PK\6\6, PK\6\7)
 * when a count, size or offset does not fit the end record's fields.
 *
 * Reading trusts the central directory for sizes (as unzip does) and
 * checks, before using any of it: the end record is the last thing in the
 * file (its comment length reaches the end exactly); one disk; the
 * directory lies inside the file before the end records, and holds as
 * many records as announced; every name is nonempty, without NUL, '\\',
 * a leading '/', or a ".." component, and not repeated; no member is
 * encrypted or uses a method other than stored/deflate; each local header
 * lies before the directory, names the same member, and its bytes end
 * before the next member begins (members never overlap: the overlapping
 * "zip bomb" is refused); a stored member's sizes agree; a deflated one
 * claims at most 1032 times its stored bytes (deflate's largest ratio),
 * inflates to exactly its size and ends its stream; the CRC-32 matches. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#ifdef CJAX_HAVE_ZLIB
#include <zlib.h>
#endif

#include "zip.h"

#define SIG_LOCAL 0x04034b50u
#define SIG_CENTRAL 0x02014b50u
#define SIG_END 0x06054b50u
#define SIG_END64 0x06064b50u
#define SIG_LOC64 0x07064b50u
#define DEFLATE_MAX_RATIO 1032

/* ---- CRC-32 (IEEE 802.3, reflected, as zip uses) ---- */
static uint32_t crc_table[256];
static int crc_ready;

static void crc_init(void) {
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
    __atomic_store_n(&crc_ready, 1, __ATOMIC_RELEASE);
}

uint32_t zip_crc32(uint32_t crc, const void *data, size_t n) {
    if (!__atomic_load_n(&crc_ready, __ATOMIC_ACQUIRE)) crc_init(); /* idempotent: a race writes equal values */
    const uint8_t *p = data;
    crc = ~crc;
    for (size_t i = 0; i < n; i++) crc = crc_table[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
    return ~crc;
}

int zip_have_deflate(void) {
#ifdef CJAX_HAVE_ZLIB
    return 1;
#else
    return 0;
#endif
}

static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t rd32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t rd64(const uint8_t *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }

__attribute__((format(printf, 4, 5))) static int fail(cj_status *status, char *why, size_t whylen, const char *fmt,
                                                      ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, whylen, fmt, ap);
    va_end(ap);
    if (*status == CJ_OK) *status = CJ_ERR_FORMAT;
    return -1;
}

/* ---- reading ---- */
void zip_close(rt_mem *mem, zip_archive *z) {
    if (z->m) {
        for (int i = 0; i < z->n; i++)
            if (z->m[i].name) rt_free(mem, z->m[i].name, z->m[i].name_len + 1);
        rt_free(mem, z->m, sizeof *z->m * (size_t)(z->n ? z->n : 1));
    }
    z->m = NULL;
    z->n = 0;
}

static const char *bad_name(const char *s, size_t n) {
    if (n == 0) return "is empty";
    if (memchr(s, 0, n)) return "holds a NUL byte";
    if (memchr(s, '\\', n)) return "holds a backslash";
    if (s[0] == '/') return "is an absolute path";
    for (size_t i = 0; i < n; i++) /* ".." as a whole component */
        if ((i == 0 || s[i - 1] == '/') && i + 1 < n && s[i] == '.' && s[i + 1] == '.' &&
            (i + 2 == n || s[i + 2] == '/'))
            return "has a '..' component";
    return NULL;
}

/* zip64's extended fields of a central record: those whose 32-bit field
 * is 0xFFFFFFFF, in the order usize, csize, offset. */
static int zip64_fields(const uint8_t *x, size_t len, zip_member *m, uint32_t u32, uint32_t c32, uint32_t o32,
                        cj_status *st, char *why, size_t wl) {
    int need = (u32 == 0xFFFFFFFFu) + (c32 == 0xFFFFFFFFu) + (o32 == 0xFFFFFFFFu);
    if (!need) return 0;
    for (size_t p = 0; p + 4 <= len;) {
        uint16_t id = rd16(x + p), sz = rd16(x + p + 2);
        if (p + 4 + sz > len) break;
        if (id == 1) {
            const uint8_t *f = x + p + 4;
            size_t at = 0;
            if ((size_t)need * 8 > sz) return fail(st, why, wl, "member '%s' has a short zip64 field", m->name);
            if (u32 == 0xFFFFFFFFu) m->usize = rd64(f + at), at += 8;
            if (c32 == 0xFFFFFFFFu) m->csize = rd64(f + at), at += 8;
            if (o32 == 0xFFFFFFFFu) m->header = rd64(f + at);
            return 0;
        }
        p += 4 + (size_t)sz;
    }
    return fail(st, why, wl, "member '%s' has 32-bit fields set to 0xFFFFFFFF and no zip64 field", m->name);
}

static int by_header(const void *a, const void *b) {
    const zip_member *x = a, *y = b;
    return x->header < y->header ? -1 : x->header > y->header;
}

int zip_open(rt_mem *mem, const uint8_t *b, size_t size, zip_archive *z, cj_status *st, char *why, size_t wl) {
    memset(z, 0, sizeof *z);
    z->bytes = b, z->size = size;
    *st = CJ_OK;
    if (size < 22) return fail(st, why, wl, "not a zip archive (%zu bytes, an end record alone is 22)", size);
    /* the end record: the last PK\5\6 whose comment reaches the end */
    size_t end = SIZE_MAX;
    size_t lo = size - 22 > 65535 ? size - 22 - 65535 : 0;
    for (size_t p = size - 22 + 1; p-- > lo;)
        if (rd32(b + p) == SIG_END && (size_t)rd16(b + p + 20) == size - p - 22) {
            end = p;
            break;
        }
    if (end == SIZE_MAX) return fail(st, why, wl, "not a zip archive (no end-of-directory record at its end)");
    const uint8_t *e = b + end;
    uint64_t n = rd16(e + 10), n_disk = rd16(e + 8), cd_size = rd32(e + 12), cd_off = rd32(e + 16);
    if (rd16(e + 4) != 0 || rd16(e + 6) != 0) return fail(st, why, wl, "spans several disks");
    size_t limit = end; /* the directory ends before the end records */
    if (n == 0xFFFF || n_disk == 0xFFFF || cd_size == 0xFFFFFFFFu || cd_off == 0xFFFFFFFFu) {
        if (end < 20 || rd32(b + end - 20) != SIG_LOC64)
            return fail(st, why, wl, "end record asks for zip64 and no zip64 locator precedes it");
        const uint8_t *l = b + end - 20;
        uint64_t at = rd64(l + 8);
        if (rd32(l + 4) != 0 || rd32(l + 16) > 1) return fail(st, why, wl, "spans several disks (zip64)");
        if (at > end - 20 || end - 20 - at < 56 || rd32(b + at) != SIG_END64)
            return fail(st, why, wl, "zip64 end record is missing or out of place (offset %llu)",
                        (unsigned long long)at);
        const uint8_t *e64 = b + at;
        if (rd32(e64 + 16) != 0 || rd32(e64 + 20) != 0) return fail(st, why, wl, "spans several disks (zip64)");
        n_disk = rd64(e64 + 24), n = rd64(e64 + 32), cd_size = rd64(e64 + 40), cd_off = rd64(e64 + 48);
        limit = (size_t)at;
    }
    if (n != n_disk) return fail(st, why, wl, "spans several disks (%llu of %llu members on this one)",
                                 (unsigned long long)n_disk, (unsigned long long)n);
    if (cd_off > limit || cd_size > limit - cd_off)
        return fail(st, why, wl, "central directory (offset %llu, %llu bytes) lies outside the file (%zu bytes)",
                    (unsigned long long)cd_off, (unsigned long long)cd_size, size);
    if (n > cd_size / 46)
        return fail(st, why, wl, "claims %llu members in a directory of %llu bytes", (unsigned long long)n,
                    (unsigned long long)cd_size);
    if (n > 1000000) return fail(st, why, wl, "claims %llu members (more than a million)", (unsigned long long)n);
    z->m = rt_calloc(mem, sizeof *z->m * (size_t)(n ? n : 1));
    if (!z->m) {
        *st = CJ_ERR_OOM;
        snprintf(why, wl, "out of memory for the directory of %llu members", (unsigned long long)n);
        return -1;
    }
    size_t p = (size_t)cd_off, cd_end = (size_t)(cd_off + cd_size);
    for (uint64_t i = 0; i < n; i++) {
        if (cd_end - p < 46 || rd32(b + p) != SIG_CENTRAL) {
            fail(st, why, wl, "central directory record %llu is %s", (unsigned long long)i,
                 cd_end - p < 46 ? "truncated" : "not a directory record (bad signature)");
            goto bad;
        }
        const uint8_t *c = b + p;
        size_t nl = rd16(c + 28), xl = rd16(c + 30), cl = rd16(c + 32);
        if (cd_end - p - 46 < nl + xl + cl) {
            fail(st, why, wl, "central directory record %llu runs past the directory", (unsigned long long)i);
            goto bad;
        }
        zip_member *m = &z->m[z->n];
        m->name = rt_alloc(mem, nl + 1);
        if (!m->name) {
            *st = CJ_ERR_OOM;
            snprintf(why, wl, "out of memory for the directory's names");
            goto bad;
        }
        m->name_len = nl;
        memcpy(m->name, c + 46, nl);
        m->name[nl] = 0;
        z->n++;
        const char *nb = bad_name((const char *)c + 46, nl);
        if (nb) {
            fail(st, why, wl, "member %llu's name %s (names with paths are refused)", (unsigned long long)i, nb);
            goto bad;
        }
        uint16_t flags = rd16(c + 8);
        m->method = rd16(c + 10);
        m->crc = rd32(c + 16);
        uint32_t c32 = rd32(c + 20), u32 = rd32(c + 24), o32 = rd32(c + 42);
        m->csize = c32, m->usize = u32, m->header = o32;
        if (flags & 1) {
            fail(st, why, wl, "member '%s' is encrypted", m->name);
            goto bad;
        }
        if (m->method != 0 && m->method != 8) {
            fail(st, why, wl, "member '%s' uses compression method %d (stored 0 and deflate 8 are read)", m->name,
                 m->method);
            goto bad;
        }
        if (m->method == 8 && !zip_have_deflate()) {
            *st = CJ_ERR_UNSUPPORTED;
            snprintf(why, wl, "member '%s' is deflated and cjax was built without zlib", m->name);
            goto bad;
        }
        if (rd16(c + 34) != 0) {
            fail(st, why, wl, "member '%s' starts on another disk", m->name);
            goto bad;
        }
        if (zip64_fields(c + 46 + nl, xl, m, u32, c32, o32, st, why, wl) != 0) goto bad;
        for (int j = 0; j < z->n - 1; j++)
            if (z->m[j].name_len == nl && !memcmp(z->m[j].name, m->name, nl)) {
                fail(st, why, wl, "member '%s' appears twice", m->name);
                goto bad;
            }
        p += 46 + nl + xl + cl;
        /* its local header and bytes, before the directory */
        if (m->header > cd_off || cd_off - m->header < 30 || rd32(b + m->header) != SIG_LOCAL) {
            fail(st, why, wl, "member '%s' has no local header at offset %llu", m->name,
                 (unsigned long long)m->header);
            goto bad;
        }
        const uint8_t *h = b + m->header;
        size_t lnl = rd16(h + 26), lxl = rd16(h + 28);
        if (cd_off - m->header - 30 < lnl + lxl) {
            fail(st, why, wl, "member '%s''s local header runs into the directory", m->name);
            goto bad;
        }
        if (lnl != nl || memcmp(h + 30, m->name, nl) != 0) {
            fail(st, why, wl, "member '%s''s local header names another member", m->name);
            goto bad;
        }
        m->data = m->header + 30 + lnl + lxl;
        if (m->csize > cd_off - m->data) {
            fail(st, why, wl, "member '%s''s %llu bytes run past the directory", m->name,
                 (unsigned long long)m->csize);
            goto bad;
        }
        if (m->method == 0 && m->csize != m->usize) {
            fail(st, why, wl, "stored member '%s' has sizes %llu and %llu", m->name, (unsigned long long)m->csize,
                 (unsigned long long)m->usize);
            goto bad;
        }
        if (m->method == 8 && m->usize / DEFLATE_MAX_RATIO > m->csize + 1) {
            fail(st, why, wl,
                 "deflated member '%s' claims %llu bytes from %llu (more than deflate can expand to: a zip bomb?)",
                 m->name, (unsigned long long)m->usize, (unsigned long long)m->csize);
            goto bad;
        }
    }
    { /* no two members share bytes */
        zip_member *s = rt_alloc(mem, sizeof *s * (size_t)(z->n ? z->n : 1));
        if (!s) {
            *st = CJ_ERR_OOM;
            snprintf(why, wl, "out of memory checking the members");
            goto bad;
        }
        memcpy(s, z->m, sizeof *s * (size_t)z->n);
        qsort(s, (size_t)z->n, sizeof *s, by_header);
        int overlap = -1;
        for (int i = 0; i + 1 < z->n && overlap < 0; i++)
            if (s[i].data + s[i].csize > s[i + 1].header) overlap = i;
        if (overlap >= 0) {
            /* the names belong to z->m; the message copies them */
            fail(st, why, wl, "members '%s' and '%s' overlap", s[overlap].name, s[overlap + 1].name);
            rt_free(mem, s, sizeof *s * (size_t)(z->n ? z->n : 1));
            goto bad;
        }
        rt_free(mem, s, sizeof *s * (size_t)(z->n ? z->n : 1));
    }
    return 0;
bad:
    {
        /* free with the allocation's count: n entries were calloc'd */
        for (int i = 0; i < z->n; i++)
            if (z->m[i].name) rt_free(mem, z->m[i].name, z->m[i].name_len + 1);
        rt_free(mem, z->m, sizeof *z->m * (size_t)(n ? n : 1));
        z->m = NULL;
        z->n = 0;
    }
    return -1;
}

int zip_extract(rt_mem *mem, const zip_archive *z, int i, const uint8_t **out, size_t *owned, cj_status *st,
                char *why, size_t wl) {
    const zip_member *m = &z->m[i];
    *st = CJ_OK;
    *owned = 0;
    const uint8_t *src = z->bytes + m->data;
    if (m->method == 0) {
        *out = src;
    } else {
#ifdef CJAX_HAVE_ZLIB
        size_t cap = 0;
        uint8_t *dst = rt_data_alloc(mem, (size_t)m->usize ? (size_t)m->usize : 1, &cap);
        if (!dst) {
            *st = CJ_ERR_OOM;
            snprintf(why, wl, "out of memory inflating member '%s' (%llu bytes)", m->name,
                     (unsigned long long)m->usize);
            return -1;
        }
        z_stream s;
        memset(&s, 0, sizeof s);
        int rc = inflateInit2(&s, -15); /* raw deflate, as zip stores it */
        if (rc != Z_OK) {
            rt_data_free(mem, dst, cap);
            *st = CJ_ERR_OOM;
            snprintf(why, wl, "zlib could not start inflating member '%s'", m->name);
            return -1;
        }
        uint64_t in_left = m->csize, out_left = m->usize;
        s.next_in = (Bytef *)src;
        s.next_out = dst;
        do { /* in pieces: zlib counts in 32 bits */
            if (s.avail_in == 0 && in_left) {
                s.avail_in = (uInt)(in_left < (1u << 30) ? in_left : (1u << 30));
                in_left -= s.avail_in;
            }
            if (s.avail_out == 0 && out_left) {
                s.avail_out = (uInt)(out_left < (1u << 30) ? out_left : (1u << 30));
                out_left -= s.avail_out;
            }
            uInt ai = s.avail_in, ao = s.avail_out;
            rc = inflate(&s, Z_NO_FLUSH);
            if (rc == Z_OK && s.avail_in == ai && s.avail_out == ao) rc = Z_BUF_ERROR; /* no progress */
        } while (rc == Z_OK);
        uint64_t produced = m->usize - out_left - s.avail_out;
        inflateEnd(&s);
        if (rc != Z_STREAM_END || produced != m->usize) {
            rt_data_free(mem, dst, cap);
            return fail(st, why, wl, "deflated member '%s' is corrupt (%s after %llu of %llu bytes)", m->name,
                        rc == Z_STREAM_END ? "ends early"
                        : rc == Z_BUF_ERROR ? "runs past its sizes"
                                            : "bad deflate data",
                        (unsigned long long)produced, (unsigned long long)m->usize);
        }
        *out = dst;
        *owned = cap;
#else
        (void)mem;
        *st = CJ_ERR_UNSUPPORTED;
        snprintf(why, wl, "member '%s' is deflated and cjax was built without zlib", m->name);
        return -1;
#endif
    }
    uint32_t crc = zip_crc32(0, *out, (size_t)m->usize);
    if (crc != m->crc) {
        if (*owned) rt_data_free(mem, (void *)*out, *owned);
        *owned = 0;
        return fail(st, why, wl, "member '%s' fails its CRC-32 check (0x%08x stored, 0x%08x computed)", m->name,
                    m->crc, crc);
    }
    return 0;
}

/* ---- writing ---- */
static void put16(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v) { put16(p, v & 0xFFFF), put16(p + 2, v >> 16); }
static void put64(uint8_t *p, uint64_t v) { put32(p, (uint32_t)v), put32(p + 4, (uint32_t)(v >> 32)); }

static int emit(zip_writer *w, const void *p, size_t n, cj_status *st, char *why, size_t wl) {
    if (n && fwrite(p, 1, n, w->f) != n) {
        *st = CJ_ERR_IO;
        snprintf(why, wl, "writing failed");
        return -1;
    }
    w->pos += n;
    return 0;
}

void zip_writer_drop(zip_writer *w) {
    if (w->m) {
        for (int i = 0; i < w->n; i++) rt_free(w->mem, w->m[i].name, w->m[i].name_len + 1);
        rt_free(w->mem, w->m, sizeof *w->m * (size_t)w->cap);
    }
    w->m = NULL;
    w->n = w->cap = 0;
}

#define DOS_DATE 0x21 /* 1980-01-01, as numpy's zipfile writes for its fixed time */

int zip_write_member(zip_writer *w, const char *name, const void *head, size_t hlen, const void *data, size_t dlen,
                     int packs, cj_status *st, char *why, size_t wl) {
    *st = CJ_OK;
    if (w->n == w->cap) {
        int cap = w->cap ? w->cap * 2 : 8;
        zip_member *m = rt_realloc(w->mem, w->m, sizeof *m * (size_t)w->cap, sizeof *m * (size_t)cap);
        if (!m) {
            *st = CJ_ERR_OOM;
            snprintf(why, wl, "out of memory");
            return -1;
        }
        w->m = m, w->cap = cap;
    }
    zip_member *m = &w->m[w->n];
    memset(m, 0, sizeof *m);
    m->name_len = strlen(name);
    m->name = rt_strdup(w->mem, name);
    if (!m->name) {
        *st = CJ_ERR_OOM;
        snprintf(why, wl, "out of memory");
        return -1;
    }
    w->n++;
    m->usize = (uint64_t)hlen + dlen;
    m->crc = zip_crc32(zip_crc32(0, head, hlen), data, dlen);
    m->header = w->pos;
    m->method = packs ? 8 : 0;
    uint8_t *packed = NULL;
    size_t packed_cap = 0;
    if (packs) {
#ifdef CJAX_HAVE_ZLIB
        z_stream s;
        memset(&s, 0, sizeof s);
        if (deflateInit2(&s, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
            *st = CJ_ERR_OOM;
            snprintf(why, wl, "zlib could not start deflating");
            return -1;
        }
        size_t bound = (size_t)deflateBound(&s, (uLong)(m->usize < (1u << 30) ? m->usize : (1u << 30)));
        bound = bound + (size_t)(m->usize / 1000) + (size_t)(m->usize >> 30) * 64 + 64;
        packed = rt_data_alloc(w->mem, bound, &packed_cap);
        if (!packed) {
            deflateEnd(&s);
            *st = CJ_ERR_OOM;
            snprintf(why, wl, "out of memory deflating %llu bytes", (unsigned long long)m->usize);
            return -1;
        }
        const uint8_t *parts[2] = {head, data};
        size_t lens[2] = {hlen, dlen};
        s.next_out = packed;
        size_t out_left = packed_cap;
        int rc = Z_OK;
        for (int k = 0; k < 2 && rc == Z_OK; k++) { /* in pieces: zlib counts in 32 bits */
            size_t left = lens[k];
            s.next_in = (Bytef *)parts[k];
            while ((left || s.avail_in) && rc == Z_OK) {
                if (!s.avail_in) {
                    s.avail_in = (uInt)(left < (1u << 30) ? left : (1u << 30));
                    left -= s.avail_in;
                }
                s.avail_out = (uInt)(out_left < (1u << 30) ? out_left : (1u << 30));
                uInt before = s.avail_out;
                rc = deflate(&s, Z_NO_FLUSH);
                out_left -= before - s.avail_out;
                if (rc == Z_OK && out_left == 0) rc = Z_BUF_ERROR;
            }
        }
        while (rc == Z_OK) {
            s.avail_out = (uInt)(out_left < (1u << 30) ? out_left : (1u << 30));
            uInt before = s.avail_out;
            rc = deflate(&s, Z_FINISH);
            out_left -= before - s.avail_out;
            if (rc == Z_OK && out_left == 0) rc = Z_BUF_ERROR;
        }
        deflateEnd(&s);
        if (rc != Z_STREAM_END) {
            rt_data_free(w->mem, packed, packed_cap);
            *st = CJ_ERR_INTERNAL;
            snprintf(why, wl, "deflate failed (zlib status %d)", rc);
            return -1;
        }
        m->csize = packed_cap - out_left;
#else
        *st = CJ_ERR_UNSUPPORTED;
        snprintf(why, wl, "deflate asked for and cjax was built without zlib");
        return -1;
#endif
    } else {
        m->csize = m->usize;
    }
    int big = w->force_zip64 || m->usize >= 0xFFFFFFFFu || m->csize >= 0xFFFFFFFFu;
    uint8_t h[30 + 20];
    put32(h, SIG_LOCAL);
    put16(h + 4, big ? 45 : 20);
    put16(h + 6, 0);
    put16(h + 8, (uint32_t)m->method);
    put16(h + 10, 0);
    put16(h + 12, DOS_DATE);
    put32(h + 14, m->crc);
    put32(h + 18, big ? 0xFFFFFFFFu : (uint32_t)m->csize);
    put32(h + 22, big ? 0xFFFFFFFFu : (uint32_t)m->usize);
    put16(h + 26, (uint32_t)m->name_len);
    put16(h + 28, big ? 20 : 0);
    uint8_t x[20];
    put16(x, 1), put16(x + 2, 16), put64(x + 4, m->usize), put64(x + 12, m->csize);
    int rc = emit(w, h, 30, st, why, wl) || emit(w, name, m->name_len, st, why, wl) ||
             (big && emit(w, x, 20, st, why, wl));
    if (!rc) {
        if (packs) rc = emit(w, packed, (size_t)m->csize, st, why, wl);
        else rc = emit(w, head, hlen, st, why, wl) || emit(w, data, dlen, st, why, wl);
    }
    if (packed) rt_data_free(w->mem, packed, packed_cap);
    return rc ? -1 : 0;
}

int zip_finish(zip_writer *w, cj_status *st, char *why, size_t wl) {
    *st = CJ_OK;
    uint64_t cd_off = w->pos;
    int rc = 0;
    for (int i = 0; i < w->n && !rc; i++) {
        zip_member *m = &w->m[i];
        int big = w->force_zip64 || m->usize >= 0xFFFFFFFFu || m->csize >= 0xFFFFFFFFu || m->header >= 0xFFFFFFFFu;
        uint8_t c[46], x[28];
        put32(c, SIG_CENTRAL);
        put16(c + 4, 45 | 3 << 8); /* made by: Unix, 4.5 */
        put16(c + 6, big ? 45 : 20);
        put16(c + 8, 0);
        put16(c + 10, (uint32_t)m->method);
        put16(c + 12, 0);
        put16(c + 14, DOS_DATE);
        put32(c + 16, m->crc);
        put32(c + 20, big ? 0xFFFFFFFFu : (uint32_t)m->csize);
        put32(c + 24, big ? 0xFFFFFFFFu : (uint32_t)m->usize);
        put16(c + 28, (uint32_t)m->name_len);
        put16(c + 30, big ? 28 : 0);
        put16(c + 32, 0);
        put16(c + 34, 0);
        put16(c + 36, 0);
        put32(c + 38, 0600u << 16); /* rw------- as numpy's zipfile gives */
        put32(c + 42, big ? 0xFFFFFFFFu : (uint32_t)m->header);
        put16(x, 1), put16(x + 2, 24), put64(x + 4, m->usize), put64(x + 12, m->csize), put64(x + 20, m->header);
        rc = emit(w, c, 46, st, why, wl) || emit(w, m->name, m->name_len, st, why, wl) ||
             (big && emit(w, x, 28, st, why, wl));
    }
    uint64_t cd_size = w->pos - cd_off, n = (uint64_t)w->n;
    int big = w->force_zip64 || n >= 0xFFFF || cd_size >= 0xFFFFFFFFu || cd_off >= 0xFFFFFFFFu;
    if (!rc && big) {
        uint8_t r[56], l[20];
        uint64_t at = w->pos;
        put32(r, SIG_END64);
        put64(r + 4, 44);
        put16(r + 12, 45 | 3 << 8);
        put16(r + 14, 45);
        put32(r + 16, 0);
        put32(r + 20, 0);
        put64(r + 24, n);
        put64(r + 32, n);
        put64(r + 40, cd_size);
        put64(r + 48, cd_off);
        put32(l, SIG_LOC64);
        put32(l + 4, 0);
        put64(l + 8, at);
        put32(l + 16, 1);
        rc = emit(w, r, 56, st, why, wl) || emit(w, l, 20, st, why, wl);
    }
    if (!rc) {
        uint8_t e[22];
        put32(e, SIG_END);
        put16(e + 4, 0);
        put16(e + 6, 0);
        put16(e + 8, big ? 0xFFFF : (uint32_t)n);
        put16(e + 10, big ? 0xFFFF : (uint32_t)n);
        put32(e + 12, big ? 0xFFFFFFFFu : (uint32_t)cd_size);
        put32(e + 16, big ? 0xFFFFFFFFu : (uint32_t)cd_off);
        put16(e + 20, 0);
        rc = emit(w, e, 22, st, why, wl);
    }
    zip_writer_drop(w);
    return rc ? -1 : 0;
}
