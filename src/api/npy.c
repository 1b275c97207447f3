/* npy.c — NumPy's .npy file format, so arrays move between cjax and Python
 * (api layer).
 *
 * Format (versions 1.0, 2.0, 3.0): the magic "\x93NUMPY", a major and minor
 * version byte, a little-endian header length (2 bytes in 1.0, 4 in 2.0/3.0),
 * then an ASCII Python dict literal
 *     {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
 * padded with spaces and a final newline so the data starts on a multiple
 * of 64 bytes, then the raw elements. We write version 1.0 (2.0 when the
 * header would not fit) in C order with little-endian descriptors; we read
 * either byte order and either memory order. Every malformed input is a
 * CJ_ERR_FORMAT naming the file and what is wrong, never a crash, and the
 * sizes a header claims are checked against the file before anything is
 * allocated for them (fuzzed by fuzz/fuzz_npy.c). */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"

static const char MAGIC[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};

size_t npy_header_write(const rt_array *a, unsigned char *head) {
    char dict[512];
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (",
                     rt_dtypes[a->aval.dtype].npy_descr);
    for (int i = 0; i < a->aval.rank; i++)
        n += snprintf(dict + n, sizeof dict - (size_t)n, "%lld,%s", (long long)a->aval.dims[i],
                      i + 1 < a->aval.rank ? " " : "");
    n += snprintf(dict + n, sizeof dict - (size_t)n, "), }");
    /* 1.0 header: magic 6 + version 2 + length 2 = 10 bytes */
    size_t pre = 10, total = pre + (size_t)n + 1;
    size_t padded = (total + 63) / 64 * 64;
    memcpy(head, MAGIC, 6);
    head[6] = 1;
    head[7] = 0;
    size_t hlen = padded - pre;
    head[8] = (unsigned char)(hlen & 0xFF);
    head[9] = (unsigned char)(hlen >> 8);
    memcpy(head + pre, dict, (size_t)n);
    memset(head + pre + n, ' ', padded - pre - (size_t)n - 1);
    head[padded - 1] = '\n';
    return padded;
}

cj_status cj_save_npy(cj_val v, const char *path) {
    if (!v.ctx) return CJ_ERR_ARG;
    cj_ctx *ctx = v.ctx;
    if (ctx->err) return ctx->err;
    core_value *cv = core_get(v, "cj_save_npy");
    if (!cv) return ctx->err;
    if (cv->kind != VALUE_ARRAY) {
        core_error(ctx, CJ_ERR_CONCRETIZATION, "cj_save_npy: cannot save a traced value (it has no contents while tracing)");
        return ctx->err;
    }
    if (!path) {
        core_error(ctx, CJ_ERR_ARG, "cj_save_npy: path is NULL");
        return ctx->err;
    }
    unsigned char head[640];
    size_t padded = npy_header_write(cv->arr, head);
    rt_array *a = cv->arr;
    FILE *f = fopen(path, "wb");
    if (!f) {
        core_error(ctx, CJ_ERR_IO, "cj_save_npy: cannot open '%s' for writing: %s", path, strerror(errno));
        return ctx->err;
    }
    size_t nbytes = rt_aval_nbytes(&a->aval);
    int ok = fwrite(head, 1, padded, f) == padded && (nbytes == 0 || fwrite(a->data, 1, nbytes, f) == nbytes);
    /* cjax only runs on little-endian hosts; bool is one byte 0/1 */
    ok = fclose(f) == 0 && ok;
    if (!ok) {
        core_error(ctx, CJ_ERR_IO, "cj_save_npy: writing '%s' failed: %s", path, strerror(errno));
        remove(path);
        return ctx->err;
    }
    return CJ_OK;
}

/* ---- reading: a parser for the header dict ----
 * The header is a Python literal that NumPy reads with ast.literal_eval
 * and then requires to be a dict of exactly the keys 'descr' (a string),
 * 'fortran_order' (True or False) and 'shape' (a tuple of non-negative
 * ints). It is parsed here as that grammar, token by token over its exact
 * length, so that text inside a string is never taken for a key:
 *     dict  := '{' [entry (',' entry)* [',']] '}'
 *     entry := string ':' value
 *     tuple := '(' ')' | '(' int ',' ')' | '(' int (',' int)+ [','] ')'
 * with Python's whitespace between tokens, strings in single or double
 * quotes with Python's escapes, and ints in decimal (with Python 2's L
 * suffix, which NumPy still reads in version 1.0 and 2.0 files). Anything
 * else — another key, a key twice, a one-element tuple without its comma,
 * a comment, a NUL — is refused, as NumPy refuses it (or, for what NumPy
 * never writes, such as comments and repeated keys, more strictly). */
typedef struct npy_header {
    cj_dtype dtype;
    int big_endian;
    int fortran;
    int rank;
    int64_t dims[CJ_MAX_RANK];
} npy_header;

typedef struct cursor {
    const char *p, *end;
    char *why;
    size_t whylen;
} cursor;

__attribute__((format(printf, 2, 3))) static int refuse(cursor *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why, c->whylen, fmt, ap);
    va_end(ap);
    return -1;
}

/* Whitespace as Python's tokenizer sees it inside brackets. */
static void skip_ws(cursor *c) {
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r' || *c->p == '\f'))
        c->p++;
}

static int at(cursor *c, char ch) { return c->p < c->end && *c->p == ch; }

static int hex_digit(char ch) {
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

/* A quoted string into out (NUL-terminated, at most cap - 1 characters;
 * longer is refused, naming `what`). */
static int parse_string(cursor *c, char *out, size_t cap, const char *what) {
    if (!at(c, '\'') && !at(c, '"')) return refuse(c, "%s is not a string", what);
    char q = *c->p++;
    if (c->end - c->p >= 2 && c->p[0] == q && c->p[1] == q)
        return refuse(c, "%s is a triple-quoted string", what);
    size_t n = 0;
    for (;;) {
        if (c->p >= c->end || *c->p == '\n' || *c->p == '\0') return refuse(c, "%s is an unterminated string", what);
        char ch = *c->p++;
        if (ch == q) break;
        if (ch == '\\') {
            if (c->p >= c->end) return refuse(c, "%s is an unterminated string", what);
            char e = *c->p++;
            switch (e) {
            case '\\': case '\'': case '"': ch = e; break;
            case 'a': ch = '\a'; break;
            case 'b': ch = '\b'; break;
            case 'f': ch = '\f'; break;
            case 'n': ch = '\n'; break;
            case 'r': ch = '\r'; break;
            case 't': ch = '\t'; break;
            case 'v': ch = '\v'; break;
            case 'x': {
                int hi = c->end - c->p >= 2 ? hex_digit(c->p[0]) : -1, lo = hi >= 0 ? hex_digit(c->p[1]) : -1;
                if (lo < 0) return refuse(c, "%s has a malformed \\x escape", what);
                ch = (char)(hi * 16 + lo);
                c->p += 2;
                break;
            }
            default:
                if (e >= '0' && e <= '7') { /* up to three octal digits */
                    int v = e - '0';
                    for (int k = 0; k < 2 && c->p < c->end && *c->p >= '0' && *c->p <= '7'; k++) v = v * 8 + *c->p++ - '0';
                    if (v > 255) return refuse(c, "%s has an octal escape above \\377", what);
                    ch = (char)v;
                    break;
                }
                return refuse(c, "%s has an escape '\\%c' this reader does not take", what,
                              isprint((unsigned char)e) ? e : '?');
            }
        }
        if (ch == '\0') return refuse(c, "%s holds a NUL character", what);
        if (n + 1 >= cap) return refuse(c, "%s is longer than %zu characters", what, cap - 1);
        out[n++] = ch;
    }
    out[n] = 0;
    return 0;
}

static int parse_descr(cursor *c, npy_header *h) {
    char d[32];
    if (parse_string(c, d, sizeof d, "'descr'") != 0) return -1;
    char order = d[0];
    const char *t = d + 1;
    if (order != '<' && order != '>' && order != '|' && order != '=') {
        order = '=';
        t = d;
    }
    h->big_endian = order == '>';
    static const struct {
        const char *code;
        cj_dtype dtype;
    } codes[] = {{"b1", CJ_BOOL}, {"?", CJ_BOOL}, {"i1", CJ_I8},  {"i2", CJ_I16}, {"i4", CJ_I32},
                 {"i8", CJ_I64},  {"u1", CJ_U8},  {"u2", CJ_U16}, {"u4", CJ_U32}, {"u8", CJ_U64},
                 {"f2", CJ_F16},  {"f4", CJ_F32}, {"f8", CJ_F64}, {"V2", CJ_BF16}};
    for (size_t k = 0; k < sizeof codes / sizeof codes[0]; k++) {
        if (strcmp(t, codes[k].code) != 0) continue;
        /* a 2-byte void is how numpy.save writes ml_dtypes.bfloat16 ('<V2');
         * its bytes are the little-endian bf16 bits, so '>' has no meaning */
        if (codes[k].dtype == CJ_BF16 && order == '>')
            return refuse(c, "dtype '%s' is not supported (a 2-byte void is read as little-endian bfloat16)", d);
        h->dtype = codes[k].dtype;
        return 0;
    }
    return refuse(c,
                  "dtype '%s' is not supported (b1, i1, i2, i4, i8, u1, u2, u4, u8, f2, f4, f8 and V2 as bfloat16 "
                  "are)",
                  d);
}

static int parse_bool(cursor *c, int *out) {
    size_t left = (size_t)(c->end - c->p);
    if (left >= 4 && !memcmp(c->p, "True", 4)) *out = 1, c->p += 4;
    else if (left >= 5 && !memcmp(c->p, "False", 5)) *out = 0, c->p += 5;
    else return refuse(c, "'fortran_order' is not True or False");
    /* a longer name such as Trueish is not the constant */
    if (c->p < c->end && (isalnum((unsigned char)*c->p) || *c->p == '_'))
        return refuse(c, "'fortran_order' is not True or False");
    return 0;
}

static int parse_shape(cursor *c, npy_header *h) {
    if (!at(c, '(')) return refuse(c, "'shape' is not a tuple");
    c->p++;
    skip_ws(c);
    h->rank = 0;
    int commas = 0;
    while (!at(c, ')')) {
        if (c->p >= c->end) return refuse(c, "'shape' is an unterminated tuple");
        if (!isdigit((unsigned char)*c->p)) return refuse(c, "'shape' has a non-integer entry");
        if (h->rank == CJ_MAX_RANK) return refuse(c, "'shape' has rank above %d", CJ_MAX_RANK);
        if (*c->p == '0' && c->end - c->p > 1 && isdigit((unsigned char)c->p[1]))
            return refuse(c, "'shape' has an integer with a leading zero");
        int64_t d = 0;
        while (c->p < c->end && isdigit((unsigned char)*c->p)) {
            if (d > ((int64_t)1 << 48)) return refuse(c, "'shape' entry out of range");
            d = d * 10 + (*c->p++ - '0');
        }
        if (d > ((int64_t)1 << 48)) return refuse(c, "'shape' entry out of range");
        if (at(c, 'L') || at(c, 'l')) c->p++; /* Python 2's long */
        h->dims[h->rank++] = d;
        skip_ws(c);
        if (at(c, ',')) {
            c->p++;
            commas++;
            skip_ws(c);
        } else if (!at(c, ')')) {
            return refuse(c, "'shape' is malformed");
        }
    }
    c->p++;
    /* (3) is the integer 3 in Python, not a tuple */
    if (h->rank == 1 && commas == 0)
        return refuse(c, "'shape' (%lld) is not a tuple (one element is written (%lld,))", (long long)h->dims[0],
                      (long long)h->dims[0]);
    /* the shape check every array passes (entries are at most 2^48 here) */
    rt_shape_status st = rt_shape_check(h->rank, h->dims);
    if (st != RT_SHAPE_OK) return refuse(c, "'shape' %s", rt_shape_status_text(st));
    return 0;
}

static int parse_header(const char *dict, size_t len, npy_header *h, char *why, size_t whylen) {
    cursor c = {dict, dict + len, why, whylen};
    static const char *const keys[3] = {"descr", "fortran_order", "shape"};
    int seen[3] = {0, 0, 0};
    skip_ws(&c);
    if (!at(&c, '{')) return refuse(&c, "header is not a dict");
    c.p++;
    skip_ws(&c);
    while (!at(&c, '}')) {
        if (c.p >= c.end) return refuse(&c, "header is an unterminated dict");
        char key[32];
        if (parse_string(&c, key, sizeof key, "a key") != 0) return -1;
        int k = 0;
        while (k < 3 && strcmp(key, keys[k])) k++;
        if (k == 3)
            return refuse(&c, "header has a key '%s' (a .npy header holds exactly 'descr', 'fortran_order' and 'shape')",
                          key);
        if (seen[k]) return refuse(&c, "header has the key '%s' twice", key);
        seen[k] = 1;
        skip_ws(&c);
        if (!at(&c, ':')) return refuse(&c, "header has no ':' after the key '%s'", key);
        c.p++;
        skip_ws(&c);
        int rc = k == 0 ? parse_descr(&c, h) : k == 1 ? parse_bool(&c, &h->fortran) : parse_shape(&c, h);
        if (rc != 0) return -1;
        skip_ws(&c);
        if (at(&c, ',')) {
            c.p++;
            skip_ws(&c);
        } else if (!at(&c, '}')) {
            return refuse(&c, "header has no ',' or '}' after the value of '%s'", key);
        }
    }
    c.p++;
    skip_ws(&c);
    if (c.p != c.end) return refuse(&c, "header has text after its dict");
    for (int k = 0; k < 3; k++)
        if (!seen[k]) return refuse(&c, "header has no '%s'", keys[k]);
    return 0;
}

static void byteswap(void *data, int64_t n, size_t size) {
    unsigned char *b = data;
    for (int64_t i = 0; i < n; i++, b += size)
        for (size_t j = 0; j < size / 2; j++) {
            unsigned char t = b[j];
            b[j] = b[size - 1 - j];
            b[size - 1 - j] = t;
        }
}

/* Fortran (column-major) data → row-major: element (i0..ik) sits at the
 * column-major offset. */
static void from_fortran(const void *src, void *dst, const rt_aval *a) {
    size_t es = rt_dtypes[a->dtype].size;
    int64_t n = rt_aval_size(a), idx[CJ_MAX_RANK] = {0};
    int64_t fstride[CJ_MAX_RANK];
    int64_t s = 1;
    for (int i = 0; i < a->rank; i++) {
        fstride[i] = s;
        s *= a->dims[i];
    }
    for (int64_t k = 0; k < n; k++) {
        int64_t off = 0;
        for (int i = 0; i < a->rank; i++) off += idx[i] * fstride[i];
        memcpy((char *)dst + (size_t)k * es, (const char *)src + (size_t)off * es, es);
        for (int i = a->rank - 1; i >= 0; i--) {
            if (++idx[i] < a->dims[i]) break;
            idx[i] = 0;
        }
    }
}

/* Bytes from the read position to the end of the file; -1 when the stream
 * cannot tell (a pipe). Sizes claimed by the header are checked against it
 * before anything is allocated for them. */
static long long bytes_left(FILE *f) {
    long here = ftell(f);
    if (here < 0 || fseek(f, 0, SEEK_END) != 0) return -1;
    long end = ftell(f);
    if (fseek(f, here, SEEK_SET) != 0 || end < here) return -1;
    return (long long)end - here;
}

cj_val cj_load_npy(cj_ctx *ctx, const char *path) {
    if (!ctx) return api_no_ctx("cj_load_npy", "ctx is NULL");
    if (ctx->err) return api_err(ctx);
    if (!path) {
        core_error(ctx, CJ_ERR_ARG, "cj_load_npy: path is NULL");
        return api_err(ctx);
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        core_error(ctx, CJ_ERR_IO, "cj_load_npy: cannot open '%s': %s", path, strerror(errno));
        return api_err(ctx);
    }
    char where[1200];
    snprintf(where, sizeof where, "cj_load_npy: '%s'", path);
    cj_val v = npy_read_stream(ctx, f, where);
    fclose(f);
    return v;
}

cj_val npy_read_stream(cj_ctx *ctx, FILE *f, const char *where) {
    char why[200] = "";
    unsigned char pre[12];
    char *dict = NULL;
    size_t hlen = 0;
    rt_array *arr = NULL, *tmp = NULL;
    npy_header h;
    memset(&h, 0, sizeof h);
    if (fread(pre, 1, 10, f) != 10 || memcmp(pre, MAGIC, 6) != 0) {
        snprintf(why, sizeof why, "not a .npy file (bad magic)");
        goto fail;
    }
    if (pre[6] == 1) {
        hlen = (size_t)pre[8] | (size_t)pre[9] << 8;
    } else if (pre[6] == 2 || pre[6] == 3) {
        if (fread(pre + 10, 1, 2, f) != 2) {
            snprintf(why, sizeof why, "truncated header");
            goto fail;
        }
        hlen = (size_t)pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
    } else {
        snprintf(why, sizeof why, "unknown format version %d.%d", pre[6], pre[7]);
        goto fail;
    }
    if (hlen == 0 || hlen > (1u << 20)) {
        snprintf(why, sizeof why, "header length %zu is implausible", hlen);
        goto fail;
    }
    long long left = bytes_left(f);
    if (left >= 0 && (unsigned long long)left < hlen) {
        snprintf(why, sizeof why, "truncated header (%zu bytes announced, %lld in the file)", hlen, left);
        goto fail;
    }
    dict = rt_alloc(ctx->mem, hlen + 1);
    if (!dict) {
        core_oom(ctx, where);
        return api_err(ctx);
    }
    if (fread(dict, 1, hlen, f) != hlen) {
        snprintf(why, sizeof why, "truncated header");
        goto fail;
    }
    dict[hlen] = 0;
    if (parse_header(dict, hlen, &h, why, sizeof why) != 0) goto fail;
    rt_aval a = rt_aval_make(h.dtype, h.rank, h.dims);
    size_t nbytes = rt_aval_nbytes(&a);
    if (left >= 0) { /* a data size that cannot match the file allocates nothing */
        unsigned long long data_left = (unsigned long long)left - hlen;
        if (data_left < nbytes) {
            snprintf(why, sizeof why, "data is truncated (expected %zu bytes, the file holds %llu)", nbytes,
                     data_left);
            goto fail;
        }
        if (data_left > nbytes) {
            snprintf(why, sizeof why, "trailing bytes after the data (%llu bytes, %zu expected)", data_left,
                     nbytes);
            goto fail;
        }
    }
    arr = rt_array_new(ctx->mem, &a);
    if (!arr) {
        rt_free(ctx->mem, dict, hlen + 1);
        char t[96];
        rt_aval_str(&a, t, sizeof t);
        core_error(ctx, CJ_ERR_OOM, "%s: out of memory for %s", where, t);
        return api_err(ctx);
    }
    void *dst = arr->data;
    if (h.fortran && h.rank > 1) {
        tmp = rt_array_new(ctx->mem, &a);
        if (!tmp) {
            rt_array_unref(arr);
            rt_free(ctx->mem, dict, hlen + 1);
            core_oom(ctx, where);
            return api_err(ctx);
        }
        dst = tmp->data;
    }
    if (nbytes && fread(dst, 1, nbytes, f) != nbytes) {
        snprintf(why, sizeof why, "data is truncated (expected %zu bytes)", nbytes);
        goto fail;
    }
    if (fgetc(f) != EOF) {
        snprintf(why, sizeof why, "trailing bytes after the data");
        goto fail;
    }
    if (h.big_endian) byteswap(dst, arr->size, rt_dtypes[h.dtype].size);
    if (h.dtype == CJ_BOOL) {
        uint8_t *b = dst;
        for (int64_t i = 0; i < arr->size; i++) b[i] = b[i] != 0;
    }
    if (tmp) {
        from_fortran(tmp->data, arr->data, &a);
        rt_array_unref(tmp);
    }
    rt_free(ctx->mem, dict, hlen + 1);
    return core_wrap_array(ctx, arr);
fail:
    rt_array_unref(arr);
    rt_array_unref(tmp);
    if (dict) rt_free(ctx->mem, dict, hlen + 1);
    core_error(ctx, CJ_ERR_FORMAT, "%s: %s", where, why);
    return api_err(ctx);
}
