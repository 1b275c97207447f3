/* test_npz.c — .npz read and write (issue 18): files numpy.savez and
 * savez_compressed wrote (tests/data/npz/, tools/gen_dlpack_npz_fixtures.py)
 * load to the arrays of the matching .npy files; cjax's own archives
 * (stored, deflated, zip64 records) load back unchanged; corrupt and
 * hostile archives (made here by altering a valid one) are CJ_ERR_FORMAT
 * naming the call and the file, with nothing leaked; allocation failures
 * at every point end cleanly. */
#include <stdlib.h>
#include <unistd.h>

#include "api/api.h"
#include "harness.h"
#include "test_util.h"

#define NPZ_DIR CJAX_TEST_DATA_DIR "/npz"

static const char *const k_names[] = {"w", "b", "idx", "mask", "small", "u16", "h", "scalar", "empty", "fortran", "big"};
enum { K_N = sizeof k_names / sizeof k_names[0] };

static void tmp_path(char *buf, size_t n, const char *tag) {
    snprintf(buf, n, "/tmp/cjax_test_npz_%d_%s.npz", (int)getpid(), tag);
}

static uint8_t *slurp(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc((size_t)n + 1);
    if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
        free(p);
        p = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return p;
}

static void spit(const char *path, const uint8_t *p, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f) return;
    fwrite(p, 1, n, f);
    fclose(f);
}

/* Same dtype, shape and bytes. */
static int same_array(cj_val a, cj_val b) {
    if (cj_is_error(a) || cj_is_error(b) || cj_val_dtype(a) != cj_val_dtype(b) || cj_val_rank(a) != cj_val_rank(b))
        return 0;
    for (int i = 0; i < cj_val_rank(a); i++)
        if (cj_val_dim(a, i) != cj_val_dim(b, i)) return 0;
    size_t n = (size_t)cj_val_size(a) * cj_dtype_size(cj_val_dtype(a));
    return n == 0 || memcmp(cj_array_data(a), cj_array_data(b), n) == 0;
}

static void check_numpy_file(const char *file) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    char path[512];
    snprintf(path, sizeof path, "%s/%s", NPZ_DIR, file);
    cj_npz_entry e[16];
    int n = cj_load_npz(ctx, path, e, 16);
    CHECK_MSG(n == K_N, "%s: %d members: %s", file, n, cj_error_message(ctx));
    for (int i = 0; i < K_N; i++) {
        CHECK_MSG(!strcmp(e[i].name, k_names[i]), "member %d is '%s'", i, e[i].name);
        char npy[512];
        snprintf(npy, sizeof npy, "%s/%s.npy", NPZ_DIR, k_names[i]);
        cj_val want = cj_load_npy(ctx, npy);
        CHECK_MSG(same_array(e[i].val, want), "%s: member '%s' differs from %s.npy", file, k_names[i], k_names[i]);
    }
    cj_val w = cj_load_npz_member(ctx, path, "fortran");
    float f[6];
    CHECK_EQ_INT(cj_read(w, f, sizeof f), CJ_OK);
    for (int i = 0; i < 6; i++) CHECK_EQ_INT((int)f[i], i); /* a Fortran-ordered member, as C order */
    CHECK(cj_is_error(cj_load_npz_member(ctx, path, "nope")));
    CHECK_EQ_INT(cj_error(ctx), CJ_ERR_ARG);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "has no member 'nope.npy'");
    cj_ctx_free(ctx);
}

TEST(npz_reads_numpy_savez) { check_numpy_file("savez.npz"); }

TEST(npz_reads_numpy_savez_compressed) {
    if (cj_npz_deflate_available()) {
        check_numpy_file("savez_compressed.npz");
        return;
    }
    cj_ctx *ctx = cj_ctx_new(NULL);
    CHECK_EQ_INT(cj_load_npz(ctx, NPZ_DIR "/savez_compressed.npz", NULL, 0), -1);
    CHECK_EQ_INT(cj_error(ctx), CJ_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "without zlib");
    cj_ctx_free(ctx);
}

TEST(npz_positional_names_and_counting) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    CHECK_EQ_INT(cj_load_npz(ctx, NPZ_DIR "/positional.npz", NULL, 0), 2);
    cj_npz_entry e[1];
    CHECK_EQ_INT(cj_load_npz(ctx, NPZ_DIR "/positional.npz", e, 1), 2); /* the count; one loaded */
    CHECK(!strcmp(e[0].name, "arr_0"));
    int32_t v[3];
    CHECK_EQ_INT(cj_read(e[0].val, v, sizeof v), CJ_OK);
    CHECK(v[0] == 0 && v[1] == 1 && v[2] == 2);
    cj_val one = cj_load_npz_member(ctx, NPZ_DIR "/positional.npz", "arr_1");
    CHECK_EQ_INT(cj_val_dtype(one), CJ_F64);
    CHECK_NEAR(cj_item_or_nan(cj_sum(one, -1, NULL, 0)), 2.0, 0, 0);
    cj_ctx_free(ctx);
}

static void round_trip(int flags, int zip64) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    char src[512], path[256];
    cj_val vals[K_N];
    for (int i = 0; i < K_N; i++) {
        snprintf(src, sizeof src, "%s/%s.npy", NPZ_DIR, k_names[i]);
        vals[i] = cj_load_npy(ctx, src);
        CHECK(!cj_is_error(vals[i]));
    }
    vals[0] = cj_astype(cj_iota(ctx, CJ_F32, 2, (int64_t[]){300, 7}, 1), CJ_BF16); /* bf16 too */
    tmp_path(path, sizeof path, zip64 ? "z64" : flags ? "defl" : "stored");
    npz_force_zip64 = zip64;
    cj_status s = cj_save_npz(path, K_N, k_names, vals, flags);
    npz_force_zip64 = 0;
    CHECK_MSG(s == CJ_OK, "%s", cj_error_message(ctx));
    cj_npz_entry e[K_N];
    CHECK_EQ_INT(cj_load_npz(ctx, path, e, K_N), K_N);
    for (int i = 0; i < K_N; i++) {
        CHECK(!strcmp(e[i].name, k_names[i]));
        CHECK_MSG(same_array(e[i].val, vals[i]), "member '%s' changed", k_names[i]);
    }
    if (flags & CJ_NPZ_DEFLATE) { /* 5000 zeros and a ramp deflate well */
        size_t size;
        uint8_t *p = slurp(path, &size);
        free(p);
        CHECK_MSG(size < 12000, "a deflated archive of %zu bytes", size);
    }
    /* unnamed: numpy's positional names */
    CHECK_EQ_INT(cj_save_npz(path, 2, NULL, vals + 1, flags), CJ_OK);
    CHECK_EQ_INT(cj_load_npz(ctx, path, e, K_N), 2);
    CHECK(!strcmp(e[0].name, "arr_0") && !strcmp(e[1].name, "arr_1"));
    CHECK(same_array(e[1].val, vals[2]));
    /* none: an empty archive */
    CHECK_EQ_INT(cj_save_npz(path, 0, NULL, NULL, 0), CJ_OK);
    CHECK_EQ_INT(cj_load_npz(ctx, path, NULL, 0), 0);
    remove(path);
    cj_ctx_free(ctx);
}

TEST(npz_round_trip_stored) { round_trip(0, 0); }
TEST(npz_round_trip_zip64_records) { round_trip(0, 1); }
TEST(npz_round_trip_deflated) {
    if (!cj_npz_deflate_available()) {
        cj_ctx *ctx = cj_ctx_new(NULL);
        cj_val x = cj_zeros(ctx, CJ_F32, 0, NULL);
        CHECK_EQ_INT(cj_save_npz("/tmp/never.npz", 1, NULL, &x, CJ_NPZ_DEFLATE), CJ_ERR_UNSUPPORTED);
        cj_ctx_free(ctx);
        return;
    }
    round_trip(CJ_NPZ_DEFLATE, 0);
    round_trip(CJ_NPZ_DEFLATE, 1);
}

TEST(npz_save_refuses_bad_arguments) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    char path[256];
    tmp_path(path, sizeof path, "bad");
    remove(path);
    cj_val v[2] = {cj_zeros(ctx, CJ_F32, 0, NULL), cj_ones(ctx, CJ_I32, 0, NULL)};
    const char *cases[][2] = {{"a/b", "x"}, {"..", "x"}, {"", "x"}, {"x", "x"}, {"a\\b", "y"}};
    const char *says[] = {"path separator", "'..'", "is empty", "given twice", "path separator"};
    for (int k = 0; k < 5; k++) {
        CHECK_EQ_INT(cj_save_npz(path, 2, cases[k], v, 0), CJ_ERR_ARG);
        CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_save_npz");
        CHECK_STR_CONTAINS(cj_error_message(ctx), says[k]);
        cj_error_clear(ctx);
        CHECK(access(path, F_OK) != 0); /* nothing written */
    }
    CHECK_EQ_INT(cj_save_npz(path, 1, NULL, v, 8), CJ_ERR_ARG);
    cj_error_clear(ctx);
    CHECK_EQ_INT(cj_save_npz("/nonexistent-dir/x.npz", 1, NULL, v, 0), CJ_ERR_IO);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "/nonexistent-dir/x.npz");
    cj_error_clear(ctx);
    CHECK_EQ_INT(cj_load_npz(ctx, "/nonexistent-dir/x.npz", NULL, 0), -1);
    CHECK_EQ_INT(cj_error(ctx), CJ_ERR_IO);
    cj_ctx_free(ctx);
}

/* ---- hostile archives, made from a valid stored one ---- */
static size_t find_sig(const uint8_t *p, size_t n, uint32_t sig, int nth) {
    for (size_t i = 0; i + 4 <= n; i++)
        if ((uint32_t)(p[i] | p[i + 1] << 8 | p[i + 2] << 16 | (uint32_t)p[i + 3] << 24) == sig && nth-- == 0) return i;
    return SIZE_MAX;
}
static void w16(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8); }
static void w32(uint8_t *p, uint32_t v) { w16(p, v), w16(p + 2, v >> 16); }

typedef struct mutation {
    const char *what;
    const char *says;
    int deflated; /* start from a deflated archive */
} mutation;

static size_t mutate(int k, uint8_t *p, size_t n) {
    size_t cd0 = find_sig(p, n, 0x02014b50u, 0), cd1 = find_sig(p, n, 0x02014b50u, 1);
    size_t end = find_sig(p, n, 0x06054b50u, 0), loc1 = find_sig(p, n, 0x04034b50u, 1);
    switch (k) {
    case 0: return n - 30;                                     /* truncated: no end record */
    case 1: p[cd0 + 16] ^= 0xFF; return n;                     /* CRC */
    case 2: memcpy(p + cd0 + 46, "../", 3); return n;          /* a name with a path */
    case 3: p[cd0 + 46] = '/'; return n;                       /* absolute */
    case 4: p[cd0 + 47] = 0; return n;                         /* NUL in a name */
    case 5: w32(p + end + 16, (uint32_t)n); return n;          /* directory past the end */
    case 6: w16(p + end + 8, 60000), w16(p + end + 10, 60000); return n; /* too many members */
    case 7: w16(p + cd0 + 8, 1); return n;                     /* encrypted */
    case 8: w16(p + cd0 + 10, 12); return n;                   /* bzip2 */
    case 9: { /* member 0 claims bytes over member 1's header */
        uint32_t grow = (uint32_t)(loc1 - 0) + 10;
        w32(p + cd0 + 20, grow), w32(p + cd0 + 24, grow);
        return n;
    }
    case 10: memcpy(p + cd1 + 46, p + cd0 + 46, 2); return n;   /* "w.npy" twice ("b" -> "w") */
    case 11: w32(p + cd0 + 42, 7); return n;                    /* no local header there */
    case 12: w16(p + end + 20, 5); return n;                    /* comment length past the end */
    case 13: w32(p + cd0 + 24, 0x7FFFFFFF); return n;           /* stored sizes disagree */
    case 14: w32(p + cd0 + 24, 0xF0000000u); return n;         /* deflated: a bomb's size */
    case 15: p[find_sig(p, n, 0x04034b50u, 0) + 30] = 'q'; return n; /* local name differs */
    case 16: p[loc1 + 40] ^= 0x55; return n;                   /* member 1's bytes (CRC) */
    case 17: { /* a member whose name is not .npy */
        memcpy(p + cd0 + 46 + 2, "npz", 3);
        memcpy(p + find_sig(p, n, 0x04034b50u, 0) + 30 + 2, "npz", 3);
        return n;
    }
    default: return 0;
    }
}

static const mutation k_mutations[] = {
    {"truncated", "no end-of-directory record", 0},
    {"crc", "CRC-32", 0},
    {"dotdot", "'..' component", 0},
    {"absolute", "absolute path", 0},
    {"nul", "NUL byte", 0},
    {"cd_outside", "lies outside the file", 0},
    {"too_many", "members in a directory", 0},
    {"encrypted", "encrypted", 0},
    {"method", "compression method 12", 0},
    {"overlap", "overlap", 0},
    {"twice", "appears twice", 0},
    {"no_local", "no local header", 0},
    {"comment", "no end-of-directory record", 0},
    {"stored_sizes", "has sizes", 0},
    {"bomb", "more than deflate can expand to", 1},
    {"local_name", "names another member", 0},
    {"data_crc", "CRC-32", 0},
    {"not_npy", "not a .npy", 0},
};

TEST(npz_refuses_hostile_archives) {
    char good[256], defl[256], bad[256];
    tmp_path(good, sizeof good, "good");
    tmp_path(defl, sizeof defl, "gooddefl");
    tmp_path(bad, sizeof bad, "hostile");
    {
        cj_ctx *ctx = cj_ctx_new(NULL);
        cj_val v[2] = {cj_linspace(ctx, 0, 1, 40, CJ_F32), cj_arange(ctx, 0, 30, 1, CJ_I64)};
        const char *names[2] = {"w", "b"};
        CHECK_EQ_INT(cj_save_npz(good, 2, names, v, 0), CJ_OK);
        if (cj_npz_deflate_available()) CHECK_EQ_INT(cj_save_npz(defl, 2, names, v, CJ_NPZ_DEFLATE), CJ_OK);
        cj_ctx_free(ctx);
    }
    for (size_t k = 0; k < sizeof k_mutations / sizeof k_mutations[0]; k++) {
        const mutation *m = &k_mutations[k];
        if (m->deflated && !cj_npz_deflate_available()) continue;
        size_t n;
        uint8_t *p = slurp(m->deflated ? defl : good, &n);
        CHECK(p);
        size_t len = mutate((int)k, p, n);
        spit(bad, p, len);
        free(p);
        tu_alloc st = {0};
        cj_allocator al = tu_allocator(&st);
        cj_ctx *ctx = cj_ctx_new(&al);
        cj_npz_entry e[4];
        int got = cj_load_npz(ctx, bad, e, 4);
        CHECK_MSG(got == -1, "%s: accepted (%d members)", m->what, got);
        CHECK_MSG(cj_error(ctx) == CJ_ERR_FORMAT, "%s: %s %s", m->what, cj_status_name(cj_error(ctx)),
                  cj_error_message(ctx));
        CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_load_npz: '");
        CHECK_STR_CONTAINS(cj_error_message(ctx), bad);
        CHECK_STR_CONTAINS(cj_error_message(ctx), m->says);
        cj_error_clear(ctx);
        /* by name too (the damaged member: 'b' for the data CRC case) */
        CHECK_MSG(cj_is_error(cj_load_npz_member(ctx, bad, k == 16 ? "b" : "w")), "%s: member loaded", m->what);
        cj_ctx_free(ctx);
        CHECK_MSG(st.live == 0, "%s: %lld blocks leaked", m->what, st.live);
    }
    remove(good);
    remove(defl);
    remove(bad);
}

TEST(npz_allocation_failures_end_cleanly) {
    char path[256];
    tmp_path(path, sizeof path, "oom");
    for (int flags = 0; flags <= (cj_npz_deflate_available() ? 1 : 0); flags++) {
        int saved = 0, loaded = 0;
        for (long long k = 1; k < 400 && !(saved && loaded); k++) {
            tu_alloc st = {0};
            cj_allocator al = tu_allocator(&st);
            cj_ctx *ctx = cj_ctx_new(&al);
            if (!ctx) continue;
            cj_val v[2] = {cj_linspace(ctx, 0, 1, 4000, CJ_F32), cj_arange(ctx, 0, 30, 1, CJ_I64)};
            CHECK(!cj_is_error(v[0]) && !cj_is_error(v[1]));
            st.fail_at = st.count + k;
            if (!saved) {
                cj_status s = cj_save_npz(path, 2, NULL, v, flags);
                CHECK_MSG(s == CJ_OK || s == CJ_ERR_OOM, "save failing allocation %lld: %s", k, cj_error_message(ctx));
                saved = s == CJ_OK && !st.failed;
            } else {
                cj_npz_entry e[2];
                int n = cj_load_npz(ctx, path, e, 2);
                CHECK_MSG(n == 2 || cj_error(ctx) == CJ_ERR_OOM, "load failing allocation %lld: %s", k,
                          cj_error_message(ctx));
                if (n == 2) CHECK(same_array(e[0].val, v[0]) && same_array(e[1].val, v[1]));
                loaded = n == 2 && !st.failed;
            }
            cj_ctx_free(ctx);
            CHECK_MSG(st.live == 0, "failing allocation %lld: %lld blocks leaked", k, st.live);
        }
        CHECK(saved && loaded);
    }
    remove(path);
}
