/* test_npy.c — .npy save/load: round trips for every dtype and shape, files
 * written the way NumPy writes them (big-endian, Fortran order, version 2),
 * and malformed files that must give a clean CJ_ERR_FORMAT. */
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"
#include "test_util.h"

static void tmp_path(char *buf, size_t n, const char *tag) {
    snprintf(buf, n, "/tmp/cjax_test_%d_%s.npy", (int)getpid(), tag);
}

static void write_file(const char *path, const void *data, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f) return;
    fwrite(data, 1, n, f);
    fclose(f);
}

/* Builds a .npy file by hand: version 1.0 header + raw data. */
static size_t make_npy(unsigned char *out, const char *dict, const void *data, size_t nbytes) {
    size_t dl = strlen(dict), total = 10 + dl + 1;
    size_t padded = (total + 63) / 64 * 64;
    memcpy(out, "\x93NUMPY\x01\x00", 8);
    out[8] = (unsigned char)((padded - 10) & 0xFF);
    out[9] = (unsigned char)((padded - 10) >> 8);
    memcpy(out + 10, dict, dl);
    memset(out + 10 + dl, ' ', padded - 10 - dl - 1);
    out[padded - 1] = '\n';
    memcpy(out + padded, data, nbytes);
    return padded + nbytes;
}

TEST(npy_round_trip_every_dtype) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    char path[128];
    tmp_path(path, sizeof path, "rt");
    int64_t shapes[4][3] = {{0}, {5}, {2, 3}, {2, 0, 4}};
    int ranks[4] = {0, 1, 2, 3};
    for (int dt = 0; dt < CJ_NUM_DTYPES; dt++) {
        for (int s = 0; s < 4; s++) {
            int64_t n = 1;
            for (int i = 0; i < ranks[s]; i++) n *= shapes[s][i];
            double *src = malloc(sizeof(double) * (size_t)(n + 1));
            for (int64_t i = 0; i < n; i++) src[i] = dt == CJ_BOOL ? (double)(i % 2) : (double)i * 1.5 - 3;
            unsigned char raw[512];
            for (int64_t i = 0; i < n; i++) {
                switch (dt) {
                case CJ_BOOL: raw[i] = (unsigned char)src[i]; break;
                case CJ_I32: ((int32_t *)raw)[i] = (int32_t)src[i]; break;
                case CJ_I64: ((int64_t *)raw)[i] = (int64_t)src[i]; break;
                case CJ_F32: ((float *)raw)[i] = (float)src[i]; break;
                case CJ_F64: ((double *)raw)[i] = src[i]; break;
                default: /* the later dtypes: bytes (test_dtypes.c checks their values) */
                    for (size_t k = 0; k < cj_dtype_size((cj_dtype)dt); k++)
                        raw[(size_t)i * cj_dtype_size((cj_dtype)dt) + k] = (unsigned char)(i * 7 + (int64_t)k + 1);
                    break;
                }
            }
            cj_val a = cj_array(ctx, (cj_dtype)dt, ranks[s], shapes[s], raw);
            CHECK(cj_save_npy(a, path) == CJ_OK);
            cj_val b = cj_load_npy(ctx, path);
            CHECK_MSG(!cj_is_error(b), "%s", cj_error_message(ctx));
            CHECK(cj_val_dtype(b) == (cj_dtype)dt);
            CHECK(cj_val_rank(b) == ranks[s]);
            for (int i = 0; i < ranks[s]; i++) CHECK(cj_val_dim(b, i) == shapes[s][i]);
            unsigned char back[512];
            CHECK(cj_read(b, back, sizeof back) == CJ_OK);
            CHECK(memcmp(raw, back, (size_t)n * cj_dtype_size((cj_dtype)dt)) == 0);
            free(src);
        }
    }
    /* the header is NumPy's: descr, fortran_order, shape, 64-byte aligned */
    int64_t d[2] = {2, 3};
    cj_val a = cj_zeros(ctx, CJ_F32, 2, d);
    CHECK(cj_save_npy(a, path) == CJ_OK);
    FILE *f = fopen(path, "rb");
    char head[129] = {0};
    CHECK(fread(head, 1, 128, f) == 128);
    fclose(f);
    CHECK(memcmp(head, "\x93NUMPY\x01\x00", 8) == 0);
    CHECK((unsigned char)head[8] + 10 == 128 || (unsigned char)head[8] + 10 == 64);
    CHECK_STR_CONTAINS(head + 10, "'descr': '<f4', 'fortran_order': False, 'shape': (2, 3");
    remove(path);
    cj_ctx_free(ctx);
}

TEST(npy_reads_big_endian_fortran_and_version_2) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    char path[128];
    tmp_path(path, sizeof path, "be");
    unsigned char file[512];
    /* big-endian f8, values 1.0 and -2.5 */
    unsigned char be[16] = {0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0xc0, 0x04, 0, 0, 0, 0, 0, 0};
    size_t n = make_npy(file, "{'descr': '>f8', 'fortran_order': False, 'shape': (2,), }", be, 16);
    write_file(path, file, n);
    cj_val a = cj_load_npy(ctx, path);
    CHECK_MSG(!cj_is_error(a), "%s", cj_error_message(ctx));
    double v[2];
    cj_read(a, v, sizeof v);
    CHECK(v[0] == 1.0 && v[1] == -2.5);
    /* Fortran order: 2x3 stored column-major */
    int32_t col[6] = {0, 3, 1, 4, 2, 5};
    n = make_npy(file, "{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }", col, sizeof col);
    write_file(path, file, n);
    cj_val b = cj_load_npy(ctx, path);
    CHECK_MSG(!cj_is_error(b), "%s", cj_error_message(ctx));
    int32_t r[6];
    cj_read(b, r, sizeof r);
    for (int i = 0; i < 6; i++) CHECK_EQ_INT(r[i], i);
    /* version 2.0: 4-byte header length */
    const char *dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (), }";
    size_t dl = strlen(dict), padded = (12 + dl + 1 + 63) / 64 * 64;
    memcpy(file, "\x93NUMPY\x02\x00", 8);
    uint32_t hl = (uint32_t)(padded - 12);
    memcpy(file + 8, &hl, 4);
    memcpy(file + 12, dict, dl);
    memset(file + 12 + dl, ' ', padded - 12 - dl - 1);
    file[padded - 1] = '\n';
    float one = 4.25f;
    memcpy(file + padded, &one, 4);
    write_file(path, file, padded + 4);
    cj_val c = cj_load_npy(ctx, path);
    CHECK_MSG(!cj_is_error(c), "%s", cj_error_message(ctx));
    CHECK(cj_item_or_nan(c) == 4.25);
    remove(path);
    cj_ctx_free(ctx);
}

TEST(npy_malformed_files_are_format_errors) {
    char path[128];
    tmp_path(path, sizeof path, "bad");
    float data[4] = {1, 2, 3, 4};
    unsigned char file[512];
    struct {
        const char *dict;
        size_t data_bytes;
        const char *why;
    } cases[] = {
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", 12, "truncated"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", 16, "trailing"},
        {"{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", 16, "not supported"},
        {"{'descr': '<f4', 'shape': (4,), }", 16, "fortran_order"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (a,), }", 16, "non-integer"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1), }", 4, "rank"},
        {"{'fortran_order': False, 'shape': (4,), }", 16, "descr"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tu_alloc st = {0};
        cj_allocator al = tu_allocator(&st);
        cj_ctx *ctx = cj_ctx_new(&al);
        size_t n = make_npy(file, cases[k].dict, data, cases[k].data_bytes);
        write_file(path, file, n);
        cj_val a = cj_load_npy(ctx, path);
        CHECK(cj_is_error(a));
        CHECK_MSG(cj_error(ctx) == CJ_ERR_FORMAT, "case %zu: %s", k, cj_error_message(ctx));
        CHECK_STR_CONTAINS(cj_error_message(ctx), cases[k].why);
        cj_ctx_free(ctx);
        CHECK_EQ_INT(st.live, 0);
    }
    /* bad magic, empty file, missing file */
    cj_ctx *ctx = cj_ctx_new(NULL);
    write_file(path, "hello world, not numpy", 22);
    CHECK(cj_is_error(cj_load_npy(ctx, path)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "bad magic");
    cj_error_clear(ctx);
    write_file(path, "", 0);
    CHECK(cj_is_error(cj_load_npy(ctx, path)));
    CHECK(cj_error(ctx) == CJ_ERR_FORMAT);
    cj_error_clear(ctx);
    remove(path);
    CHECK(cj_is_error(cj_load_npy(ctx, path)));
    CHECK(cj_error(ctx) == CJ_ERR_IO);
    cj_ctx_free(ctx);
}

/* Every prefix of a valid file must be rejected cleanly (no crash/leak). */
TEST(npy_every_truncation_is_rejected) {
    char path[128];
    tmp_path(path, sizeof path, "trunc");
    unsigned char file[512];
    int64_t vals[3] = {1, 2, 3};
    size_t n = make_npy(file, "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }", vals, sizeof vals);
    for (size_t cut = 0; cut < n; cut++) {
        tu_alloc st = {0};
        cj_allocator al = tu_allocator(&st);
        cj_ctx *ctx = cj_ctx_new(&al);
        write_file(path, file, cut);
        CHECK_MSG(cj_is_error(cj_load_npy(ctx, path)), "prefix of %zu bytes accepted", cut);
        cj_ctx_free(ctx);
        CHECK_EQ_INT(st.live, 0);
    }
    remove(path);
}

/* The header is parsed as the Python dict it is, not searched for its
 * keys: text inside a string value is no key (a searched header took the
 * 'shape' inside "note"'s value for the shape), keys come in any order
 * with any of Python's whitespace, strings in either quote with escapes,
 * tuples with or without a trailing comma. Each accepted case is what
 * NumPy 2.4 reads from the same bytes; each refused one NumPy refuses
 * too, except the repeated key (NumPy keeps the last; refused here). */
TEST(npy_header_is_parsed_as_a_dict_not_searched) {
    char path[128];
    tmp_path(path, sizeof path, "dict");
    float data[4] = {1, 2, 3, 4};
    unsigned char file[512];
    struct {
        const char *dict;
        cj_dtype dtype;
        int rank;
        int64_t dims[2];
    } good[] = {
        {"{'shape': (4,), 'fortran_order': False, 'descr': '<f4'}", CJ_F32, 1, {4}},
        {"{ 'shape' :\t(2,\n 2,) ,\"fortran_order\":False,'descr':'\\x3cf4' , }", CJ_F32, 2, {2, 2}},
        {"{'descr': \"<i4\", 'fortran_order': False, 'shape': (2, 2)}", CJ_I32, 2, {2, 2}},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (4L,), }", CJ_F32, 1, {4}},
        {"{'descr': '\\74f8', 'fortran_order': False, 'shape': (2,)}", CJ_F64, 1, {2}},
        {"{'descr': '|b1', 'fortran_order': False, 'shape': (16, 1, 1)}", CJ_BOOL, 3, {16, 1}},
        {"  {'descr': '<f4', 'fortran_order': True, 'shape': (1, 4)}  ", CJ_F32, 2, {1, 4}},
    };
    for (size_t k = 0; k < sizeof good / sizeof good[0]; k++) {
        tu_alloc st = {0};
        cj_allocator al = tu_allocator(&st);
        cj_ctx *ctx = cj_ctx_new(&al);
        size_t n = make_npy(file, good[k].dict, data, sizeof data);
        write_file(path, file, n);
        cj_val a = cj_load_npy(ctx, path);
        CHECK_MSG(!cj_is_error(a), "case %zu: %s", k, cj_error_message(ctx));
        CHECK_EQ_INT(cj_val_dtype(a), good[k].dtype);
        CHECK_EQ_INT(cj_val_rank(a), good[k].rank);
        for (int d = 0; d < good[k].rank && d < 2; d++) CHECK_EQ_INT(cj_val_dim(a, d), good[k].dims[d]);
        unsigned char back[16];
        CHECK(cj_read(a, back, sizeof back) == CJ_OK);
        CHECK(good[k].dtype == CJ_BOOL || memcmp(back, data, sizeof back) == 0);
        cj_ctx_free(ctx);
        CHECK_EQ_INT(st.live, 0);
    }
    struct {
        const char *dict;
        const char *why;
    } bad[] = {
        {"{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (2,), \"note\": \"'shape': (4,)\"}",
         "header has a key 'note'"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (4)}", "'shape' (4) is not a tuple"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (4,), 'shape': (4,)}", "the key 'shape' twice"},
        {"{'descr': '<f4', 'fortran_order': Trueish, 'shape': (4,)}", "not True or False"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (4,)} x", "text after its dict"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (4,)", "no ',' or '}' after the value of 'shape'"},
        {"{'descr': '<f4', 'fortran_order': False 'shape': (4,)}", "no ',' or '}' after the value of 'fortran_order'"},
        {"{'descr' '<f4', 'fortran_order': False, 'shape': (4,)}", "no ':' after the key 'descr'"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (04,)}", "leading zero"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,, 2)}", "non-integer"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (,)}", "non-integer"},
        {"{'descr': '<f\\q4', 'fortran_order': False, 'shape': (4,)}", "escape"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (4,), # a comment\n}", "is not a string"},
        {"{descr: '<f4', 'fortran_order': False, 'shape': (4,)}", "a key is not a string"},
        {"{'descr': '''<f4''', 'fortran_order': False, 'shape': (4,)}", "triple-quoted"},
        {"{'descr': '<f4\n', 'fortran_order': False, 'shape': (4,)}", "unterminated string"},
        {"['descr', '<f4']", "not a dict"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        tu_alloc st = {0};
        cj_allocator al = tu_allocator(&st);
        cj_ctx *ctx = cj_ctx_new(&al);
        size_t n = make_npy(file, bad[k].dict, data, sizeof data);
        write_file(path, file, n);
        cj_val a = cj_load_npy(ctx, path);
        CHECK_MSG(cj_is_error(a), "case %zu accepted: %s", k, bad[k].dict);
        CHECK_MSG(cj_error(ctx) == CJ_ERR_FORMAT, "case %zu: %s", k, cj_error_message(ctx));
        CHECK_STR_CONTAINS(cj_error_message(ctx), bad[k].why);
        cj_ctx_free(ctx);
        CHECK_EQ_INT(st.live, 0);
    }
    remove(path);
}

/* A NUL inside the header ends no string early: the header is read over
 * its announced length, so a NUL is refused wherever it stands. */
TEST(npy_header_with_a_nul_is_refused) {
    char path[128];
    tmp_path(path, sizeof path, "nul");
    float data[4] = {1, 2, 3, 4};
    unsigned char file[512];
    const char *dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (4,)}";
    size_t n = make_npy(file, dict, data, sizeof data);
    size_t where[] = {10 + 12 /* inside '<f4' */, 10 + 3 /* inside 'descr' */,
                      10 + strlen(dict) /* after the dict, in the padding */};
    for (size_t k = 0; k < sizeof where / sizeof where[0]; k++) {
        unsigned char copy[512];
        memcpy(copy, file, n);
        copy[where[k]] = 0;
        write_file(path, copy, n);
        cj_ctx *ctx = cj_ctx_new(NULL);
        CHECK_MSG(cj_is_error(cj_load_npy(ctx, path)), "NUL at %zu accepted", where[k]);
        CHECK_EQ_INT(cj_error(ctx), CJ_ERR_FORMAT);
        cj_ctx_free(ctx);
    }
    remove(path);
}
