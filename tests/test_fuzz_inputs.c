/* test_fuzz_inputs.c — the input fuzzers' corpus, replayed in every test
 * run: each file under fuzz/corpus/npy/ and fuzz/corpus/cache/ goes through
 * the same body the libFuzzer harness runs (fuzz/npy_body.c,
 * fuzz/cache_body.c), so seeds and every crash libFuzzer ever found (kept
 * as regression_* files) stay fixed without libFuzzer. A seed's name says
 * what the parser must do with it: a .npy seed named after a dtype (f4_...,
 * i8_..., bool_...) loads, a cache seed named valid... passes its check,
 * every other seed is refused; regression files only have to be clean. */
#include <dirent.h>
#include <stdlib.h>

#include "cjax.h"
#include "fuzz_inputs.h"
#include "harness.h"

#ifndef CJAX_FUZZ_CORPUS_DIR
#define CJAX_FUZZ_CORPUS_DIR CJAX_TEST_DATA_DIR "/../../fuzz/corpus"
#endif

typedef const char *(*fuzz_body)(const uint8_t *data, size_t size, fuzz_outcome *outcome);

static uint8_t *read_all(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            uint8_t *bigger = realloc(buf, cap *= 2);
            if (!bigger) free(buf);
            buf = bigger;
        }
    }
    fclose(f);
    *size = n;
    return buf;
}

static int starts_with(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

/* -1: no expectation (regression files), else 1 accepted / 0 refused. */
static int expected_npy(const char *name) {
    if (starts_with(name, "regression_")) return -1;
    static const char *const dtypes[] = {"bool_", "i4_", "i8_", "f4_", "f8_"};
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
        if (starts_with(name, dtypes[i])) return 1;
    return 0;
}

static int expected_cache(const char *name) {
    if (starts_with(name, "regression_")) return -1;
    return starts_with(name, "valid");
}

/* Replays every file of corpus/<harness>; counts what was accepted. */
static void replay(const char *harness, fuzz_body body, int (*expected)(const char *), int *files,
                   int *accepted) {
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/%s", CJAX_FUZZ_CORPUS_DIR, harness);
    *files = *accepted = 0;
    DIR *d = opendir(dir);
    CHECK_MSG(d, "cannot open the corpus '%s'", dir);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char path[1400];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t size = 0;
        uint8_t *data = read_all(path, &size);
        if (!data) {
            closedir(d);
            CHECK_MSG(0, "cannot read '%s'", path);
        }
        fuzz_outcome outcome;
        const char *problem = body(data, size, &outcome);
        free(data);
        int want = expected(e->d_name);
        (*files)++;
        *accepted += outcome == FUZZ_ACCEPTED;
        if (problem || (want >= 0 && want != (outcome == FUZZ_ACCEPTED))) {
            closedir(d);
            CHECK_MSG(0, "%s/%s: %s", harness, e->d_name,
                      problem ? problem : want ? "refused, but it is valid" : "accepted, but it is malformed");
        }
    }
    closedir(d);
}

TEST(fuzz_inputs_npy_corpus_replays_clean) {
    int files, accepted;
    replay("npy", fuzz_npy_one, expected_npy, &files, &accepted);
    if (th_failed_now()) return;
    CHECK(files >= 30);
    CHECK(accepted >= 12);
}

TEST(fuzz_inputs_cache_corpus_replays_clean) {
    int files, accepted;
    replay("cache", fuzz_cache_one, expected_cache, &files, &accepted);
    if (th_failed_now()) return;
    CHECK(files >= 12);
    CHECK(accepted >= 2);
}

/* The plainest inputs: an empty file and junk are refused cleanly. */
TEST(fuzz_inputs_bodies_classify_simple_inputs) {
    fuzz_outcome o;
    CHECK(fuzz_npy_one((const uint8_t *)"", 0, &o) == NULL && o == FUZZ_REJECTED);
    CHECK(fuzz_cache_one((const uint8_t *)"", 0, &o) == NULL && o == FUZZ_REJECTED);
    static const uint8_t junk[100] = {1, 2, 3};
    CHECK(fuzz_cache_one(junk, sizeof junk, &o) == NULL && o == FUZZ_REJECTED);
}

/* .npz (issue 18): seeds named valid... load, every other seed is refused. */
static int expected_npz(const char *name) {
    if (starts_with(name, "regression_")) return -1;
    if (starts_with(name, "valid_deflate") && !cj_npz_deflate_available()) return 0;
    return starts_with(name, "valid");
}

TEST(fuzz_inputs_npz_corpus_replays_clean) {
    int files, accepted;
    replay("npz", fuzz_npz_one, expected_npz, &files, &accepted);
    if (th_failed_now()) return;
    CHECK(files >= 20);
    CHECK(accepted >= 4);
}

/* StableHLO text (issue 19): seeds named valid... import, the rest are
 * refused; regression_ files have no expectation. */
static int expected_hlo(const char *name) {
    if (starts_with(name, "regression_")) return -1;
    return starts_with(name, "valid");
}

TEST(fuzz_inputs_hlo_corpus_replays_clean) {
    int files, accepted;
    replay("hlo", fuzz_hlo_one, expected_hlo, &files, &accepted);
    if (th_failed_now()) return;
    CHECK(files >= 10);
    CHECK(accepted >= 4);
}
