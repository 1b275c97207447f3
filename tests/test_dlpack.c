/* test_dlpack.c — DLPack import and export (issue 18) against what NumPy
 * (JAX for bfloat16) hands out: tests/data/dlpack/ holds each tensor's
 * metadata and bytes as NumPy's __dlpack__ gave them
 * (tools/gen_dlpack_npz_fixtures.py); the tests rebuild the
 * DLManagedTensor(Versioned) by hand over those bytes and check: the
 * values, zero copy for compact tensors (pointer equality, no array bytes
 * allocated) and a copy for strided ones, the deleter called exactly once
 * (at the last reference, right after a copy, on every refusal), and that
 * cjax's export describes an array as NumPy describes the same one. */
#include <stdlib.h>

#include "cjax_dlpack.h"
#include "harness.h"
#include "test_util.h"

#define DL_DIR CJAX_TEST_DATA_DIR "/dlpack"

typedef struct dl_case {
    char name[64];
    int versioned;
    int code, bits, lanes, device, ndim;
    int64_t shape[8], strides[8];
    int has_strides;
    uint64_t byte_offset, flags;
    size_t span;
} dl_case;

static int read_manifest(dl_case *cases, int cap) {
    FILE *f = fopen(DL_DIR "/manifest.txt", "r");
    if (!f) return -1;
    int n = 0;
    char kind[4];
    while (n < cap && fscanf(f, "%63s %3s %d %d %d %d %d", cases[n].name, kind, &cases[n].code, &cases[n].bits,
                             &cases[n].lanes, &cases[n].device, &cases[n].ndim) == 7) {
        dl_case *c = &cases[n];
        c->versioned = kind[0] == 'v';
        for (int i = 0; i < c->ndim; i++)
            if (fscanf(f, "%lld", (long long *)&c->shape[i]) != 1) goto bad;
        c->has_strides = 1;
        for (int i = 0; i < c->ndim; i++) {
            char tok[32];
            if (fscanf(f, "%31s", tok) != 1) goto bad;
            if (tok[0] == '-' && tok[1] == 0) c->has_strides = 0;
            else c->strides[i] = strtoll(tok, NULL, 10);
        }
        unsigned long long bo, fl, sp;
        if (fscanf(f, "%llu %llu %llu", &bo, &fl, &sp) != 3) goto bad;
        c->byte_offset = bo, c->flags = fl, c->span = (size_t)sp;
        n++;
    }
    fclose(f);
    return n;
bad:
    fclose(f);
    return -1;
}

static void *read_bin(const char *name, const char *suffix, size_t *size) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s%s", DL_DIR, name, suffix);
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *p = aligned_alloc(64, ((size_t)n + 64) / 64 * 64);
    if (p && n && fread(p, 1, (size_t)n, f) != (size_t)n) {
        free(p);
        p = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return p;
}

/* A hand-built tensor whose deleter counts. */
typedef struct held {
    DLManagedTensor plain;
    DLManagedTensorVersioned versioned;
    int64_t shape[8], strides[8];
    int deletes;
} held;

static void del_plain(DLManagedTensor *t) { ((held *)t->manager_ctx)->deletes++; }
static void del_versioned(DLManagedTensorVersioned *t) { ((held *)t->manager_ctx)->deletes++; }

static void build(held *h, const dl_case *c, void *data) {
    memset(h, 0, sizeof *h);
    memcpy(h->shape, c->shape, sizeof h->shape);
    memcpy(h->strides, c->strides, sizeof h->strides);
    DLTensor t;
    memset(&t, 0, sizeof t);
    t.data = data;
    t.device.device_type = (DLDeviceType)c->device;
    t.ndim = c->ndim;
    t.dtype.code = (uint8_t)c->code;
    t.dtype.bits = (uint8_t)c->bits;
    t.dtype.lanes = (uint16_t)c->lanes;
    t.shape = h->shape;
    t.strides = c->has_strides ? h->strides : NULL;
    t.byte_offset = c->byte_offset;
    h->plain.dl_tensor = t;
    h->plain.manager_ctx = h;
    h->plain.deleter = del_plain;
    h->versioned.version.major = 1;
    h->versioned.dl_tensor = t;
    h->versioned.manager_ctx = h;
    h->versioned.deleter = del_versioned;
    h->versioned.flags = c->flags;
}

static cj_val import(cj_ctx *ctx, held *h, int versioned) {
    return versioned ? cj_from_dlpack_versioned(ctx, &h->versioned) : cj_from_dlpack(ctx, &h->plain);
}

static int is_compact_case(const dl_case *c) {
    if (!c->has_strides) return 1;
    int64_t e = 1, n = 1;
    for (int i = 0; i < c->ndim; i++) n *= c->shape[i];
    if (n == 0) return 1;
    for (int i = c->ndim - 1; i >= 0; i--) {
        if (c->shape[i] != 1 && c->strides[i] != e) return 0;
        e *= c->shape[i];
    }
    return 1;
}

TEST(dlpack_import_numpy_tensors) {
    dl_case cases[64];
    int n = read_manifest(cases, 64);
    CHECK_MSG(n >= 19, "manifest: %d cases", n);
    int saw_bf16 = 0, saw_copy = 0, saw_zero_copy = 0;
    for (int k = 0; k < n; k++) {
        const dl_case *c = &cases[k];
        size_t size, esize;
        void *data = read_bin(c->name, ".bin", &size);
        void *expect = read_bin(c->name, ".expect.bin", &esize);
        CHECK_MSG(data && expect && size == c->span, "%s: fixture files", c->name);
        cj_ctx *ctx = cj_ctx_new(NULL);
        cj_mem_stats m0, m1;
        cj_mem_stats_get(ctx, &m0);
        held h;
        build(&h, c, data);
        cj_val v = import(ctx, &h, c->versioned);
        CHECK_MSG(!cj_is_error(v), "%s: %s", c->name, cj_error_message(ctx));
        cj_mem_stats_get(ctx, &m1);
        CHECK_EQ_INT(cj_val_rank(v), c->ndim);
        for (int i = 0; i < c->ndim; i++) CHECK_EQ_INT(cj_val_dim(v, i), c->shape[i]);
        CHECK_EQ_INT(cj_dtype_size(cj_val_dtype(v)) * 8, c->bits);
        saw_bf16 |= cj_val_dtype(v) == CJ_BF16;
        size_t nbytes = (size_t)cj_val_size(v) * cj_dtype_size(cj_val_dtype(v));
        CHECK_EQ_INT(nbytes, esize);
        if (is_compact_case(c)) {
            CHECK_MSG(cj_array_is_borrowed(v), "%s: compact but copied", c->name);
            if (nbytes) CHECK(cj_array_data(v) == (char *)data + c->byte_offset); /* zero copy */
            CHECK_EQ_INT(m1.bytes_in_arrays, m0.bytes_in_arrays);
            CHECK_EQ_INT(h.deletes, 0);
            saw_zero_copy++;
        } else {
            CHECK_MSG(!cj_array_is_borrowed(v), "%s: strided but borrowed", c->name);
            CHECK_EQ_INT(h.deletes, 1); /* copied: handed back at once */
            saw_copy++;
        }
        void *got = malloc(nbytes + 1);
        CHECK_EQ_INT(cj_read(v, got, nbytes), CJ_OK);
        CHECK_MSG(nbytes == 0 || memcmp(got, expect, nbytes) == 0, "%s: values differ", c->name);
        free(got);
        cj_val_free(v);
        CHECK_EQ_INT(h.deletes, 1); /* exactly once */
        cj_ctx_free(ctx);
        CHECK_EQ_INT(h.deletes, 1);
        free(data);
        free(expect);
    }
    CHECK_MSG(saw_bf16, "the bfloat16 case (from JAX) is missing from the fixtures");
    CHECK(saw_copy >= 4 && saw_zero_copy >= 14);
}

TEST(dlpack_export_matches_numpy_description) {
    dl_case cases[64];
    int n = read_manifest(cases, 64);
    CHECK(n > 0);
    int checked = 0;
    for (int k = 0; k < n; k++) {
        const dl_case *c = &cases[k];
        if (strncmp(c->name, "compact_", 8) != 0 || !c->has_strides) continue;
        size_t esize;
        void *expect = read_bin(c->name, ".expect.bin", &esize);
        CHECK(expect);
        cj_ctx *ctx = cj_ctx_new(NULL);
        held h;
        build(&h, c, expect);
        h.versioned.dl_tensor.byte_offset = 0;
        cj_val v = cj_from_dlpack_versioned(ctx, &h.versioned); /* a borrowed array of the dtype */
        CHECK(!cj_is_error(v));
        cj_val own = cj_array(ctx, cj_val_dtype(v), c->ndim, c->shape, expect); /* cjax-owned, same values */
        CHECK_MSG(!cj_is_error(own), "%s: %s", c->name, cj_error_message(ctx));
        for (int versioned = 0; versioned < 2; versioned++) {
            DLManagedTensorVersioned *tv = versioned ? cj_to_dlpack_versioned(own) : NULL;
            DLManagedTensor *tp = versioned ? NULL : cj_to_dlpack(own);
            CHECK(tv || tp);
            const DLTensor *t = tv ? &tv->dl_tensor : &tp->dl_tensor;
            CHECK_EQ_INT(t->device.device_type, c->device);
            CHECK_EQ_INT(t->dtype.code, c->code);
            CHECK_EQ_INT(t->dtype.bits, c->bits);
            CHECK_EQ_INT(t->dtype.lanes, c->lanes);
            CHECK_EQ_INT(t->ndim, c->ndim);
            for (int i = 0; i < c->ndim; i++) {
                CHECK_EQ_INT(t->shape[i], c->shape[i]);
                CHECK_EQ_INT(t->strides[i], c->strides[i]);
            }
            CHECK_EQ_INT(t->byte_offset, 0);
            CHECK(t->data == cj_array_data(own)); /* the array's own buffer */
            CHECK_MSG(memcmp(t->data, expect, esize) == 0, "%s: exported values", c->name);
            if (tv) {
                CHECK_EQ_INT(tv->version.major, 1);
                CHECK(tv->flags & DLPACK_FLAG_BITMASK_READ_ONLY);
                tv->deleter(tv);
            } else {
                tp->deleter(tp);
            }
        }
        cj_ctx_free(ctx);
        CHECK_EQ_INT(h.deletes, 1);
        free(expect);
        checked++;
    }
    CHECK(checked >= 12);
}

TEST(dlpack_round_trip_between_contexts_zero_copy) {
    tu_alloc st = {0};
    cj_allocator al = tu_allocator(&st);
    cj_ctx *a = cj_ctx_new(&al), *b = cj_ctx_new(NULL);
    cj_val x = cj_linspace(a, -1, 1, 1000, CJ_F64);
    const void *px = cj_array_data(x);
    DLManagedTensor *t = cj_to_dlpack(x);
    CHECK(t);
    cj_val y = cj_from_dlpack(b, t); /* b reads a's buffer */
    CHECK(cj_array_is_borrowed(y));
    CHECK(cj_array_data(y) == px);
    cj_val s = cj_sum(cj_mul(y, y), -1, NULL, 0);
    double want = 0;
    for (int i = 0; i < 1000; i++) {
        double v = -1 + 2.0 * i / 999;
        want += v * v;
    }
    CHECK_NEAR(cj_item_or_nan(s), want, 1e-12, 0);
    /* a goes first: its allocator stays until b lets go of the tensor */
    cj_ctx_free(a);
    CHECK(st.live > 0);
    CHECK_NEAR(cj_item_or_nan(cj_sum(y, -1, NULL, 0)), 0.0, 0, 1e-9);
    cj_ctx_free(b); /* drops y: the deleter frees a's buffer and allocator */
    CHECK_EQ_INT(st.live, 0);
}

TEST(dlpack_refusals_call_the_deleter_once) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    float data[6] __attribute__((aligned(64))) = {1, 2, 3, 4, 5, 6};
    dl_case c;
    memset(&c, 0, sizeof c);
    c.code = 2, c.bits = 32, c.lanes = 1, c.device = 1, c.ndim = 1, c.shape[0] = 6;
    struct {
        const char *what;
        int device, code, bits, lanes, major;
        cj_status want;
        const char *says;
    } cases[] = {
        {"cuda", 2, 2, 32, 1, 1, CJ_ERR_UNSUPPORTED, "device type 2 is not the CPU"},
        {"lanes", 1, 2, 32, 4, 1, CJ_ERR_UNSUPPORTED, "4 lanes"},
        {"complex", 1, 5, 64, 1, 1, CJ_ERR_UNSUPPORTED, "dtype code 5 with 64 bits"},
        {"float8", 1, 2, 8, 1, 1, CJ_ERR_UNSUPPORTED, "dtype code 2 with 8 bits"},
        {"major2", 1, 2, 32, 1, 2, CJ_ERR_UNSUPPORTED, "DLPack version 2.0"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        for (int versioned = 0; versioned < 2; versioned++) {
            if (cases[k].major != 1 && !versioned) continue;
            c.device = cases[k].device, c.code = cases[k].code, c.bits = cases[k].bits, c.lanes = cases[k].lanes;
            held h;
            build(&h, &c, data);
            h.versioned.version.major = (uint32_t)cases[k].major;
            cj_val v = import(ctx, &h, versioned);
            CHECK_MSG(cj_is_error(v), "%s accepted", cases[k].what);
            CHECK_EQ_INT(cj_error(ctx), cases[k].want);
            CHECK_STR_CONTAINS(cj_error_message(ctx), versioned ? "cj_from_dlpack_versioned" : "cj_from_dlpack");
            CHECK_STR_CONTAINS(cj_error_message(ctx), cases[k].says);
            CHECK_EQ_INT(h.deletes, 1);
            cj_error_clear(ctx);
        }
    }
    /* ndim out of range, negative size */
    c.device = 1, c.code = 2, c.bits = 32, c.lanes = 1;
    held h;
    build(&h, &c, data);
    h.plain.dl_tensor.ndim = 9;
    CHECK(cj_is_error(cj_from_dlpack(ctx, &h.plain)));
    CHECK_EQ_INT(cj_error(ctx), CJ_ERR_SHAPE);
    CHECK_EQ_INT(h.deletes, 1);
    cj_error_clear(ctx);
    build(&h, &c, data);
    h.shape[0] = -3;
    CHECK(cj_is_error(cj_from_dlpack(ctx, &h.plain)));
    CHECK_EQ_INT(h.deletes, 1);
    cj_error_clear(ctx);
    /* a context in error, and no context at all */
    cj_val bad = cj_reshape(cj_zeros(ctx, CJ_F32, 1, (int64_t[]){6}), 1, (int64_t[]){5});
    CHECK(cj_is_error(bad));
    build(&h, &c, data);
    CHECK(cj_is_error(cj_from_dlpack(ctx, &h.plain)));
    CHECK_EQ_INT(h.deletes, 1);
    cj_error_clear(ctx);
    build(&h, &c, data);
    CHECK(cj_is_error(cj_from_dlpack_versioned(NULL, &h.versioned)));
    CHECK_EQ_INT(h.deletes, 1);
    cj_error_clear(NULL);
    cj_ctx_free(ctx);
}

TEST(dlpack_misaligned_or_odd_bools_are_copied) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    char raw[64] __attribute__((aligned(64)));
    float vals[4] = {1.5f, -2.5f, 3.5f, 8.0f};
    memcpy(raw + 2, vals, sizeof vals);
    dl_case c;
    memset(&c, 0, sizeof c);
    c.code = 2, c.bits = 32, c.lanes = 1, c.device = 1, c.ndim = 1, c.shape[0] = 4;
    held h;
    build(&h, &c, raw);
    h.plain.dl_tensor.byte_offset = 2; /* the first element at an odd address for f32 */
    cj_val v = cj_from_dlpack(ctx, &h.plain);
    CHECK_MSG(!cj_is_error(v), "%s", cj_error_message(ctx));
    CHECK(!cj_array_is_borrowed(v));
    CHECK_EQ_INT(h.deletes, 1);
    float got[4];
    cj_read(v, got, sizeof got);
    for (int i = 0; i < 4; i++) CHECK(got[i] == vals[i]);
    uint8_t bools[3] = {0, 7, 1};
    c.code = 6, c.bits = 8, c.shape[0] = 3;
    build(&h, &c, bools);
    v = cj_from_dlpack(ctx, &h.plain);
    CHECK(!cj_is_error(v) && !cj_array_is_borrowed(v));
    uint8_t gb[3];
    cj_read(v, gb, 3);
    CHECK(gb[0] == 0 && gb[1] == 1 && gb[2] == 1);
    CHECK_EQ_INT(h.deletes, 1);
    cj_ctx_free(ctx);
}
