/* fuzz_inputs.h — the bodies of the input fuzzers (fuzz/).
 *
 * cjax parses three kinds of input it did not write in the same process:
 * .npy files (cj_load_npy), .npz archives (cj_load_npz) and the files of
 * the C backend's disk cache
 * (cc_build.c checks each before dlopen). It does not parse IR text: the IR
 * is only printed. Each body takes one input as bytes, hands it to its
 * parser through the parser's own entry point (written to a temporary file
 * first, since both parsers read files), and checks the outcome against what
 * the format allows. The libFuzzer harnesses (fuzz_npy.c, fuzz_cache.c) call
 * them on every generated input and abort on a problem so libFuzzer keeps
 * the input; tests/test_fuzz_inputs.c replays the committed corpus
 * (fuzz/corpus/<harness>/) through the same bodies in every `make test`.
 * Crashes, reads out of bounds and undefined behaviour are the sanitizers'
 * to catch; the bodies check what sanitizers cannot see: the status, the
 * message, leaks through the context's allocator, and agreement with an
 * independent reading of the input. */
#ifndef CJ_FUZZ_INPUTS_H
#define CJ_FUZZ_INPUTS_H
#include <stddef.h>
#include <stdint.h>

typedef enum fuzz_outcome {
    FUZZ_ACCEPTED, /* the parser took the input (an array, a valid cache file) */
    FUZZ_REJECTED  /* it refused the input cleanly */
} fuzz_outcome;

/* Loads `data` as a .npy file. Clean: an array that saves and loads back
 * identically, or CJ_ERR_FORMAT with a message naming cj_load_npy and the
 * file; either way nothing left allocated. Returns NULL when clean, else a
 * sentence saying what went wrong (static storage). *outcome says which. */
const char *fuzz_npy_one(const uint8_t *data, size_t size, fuzz_outcome *outcome);

/* Checks `data` as a cache file sealed for FUZZ_CACHE_KEY_TEXT's key
 * (cc_cache_file_check). Clean: accepted exactly when an independent
 * reading of the trailer (magic, payload size, key, SHA-256 of the payload)
 * says the file is intact, with the payload's size. Never dlopens: in a
 * build only a file the compiler wrote passes (whoever could forge one can
 * write the user's cache directory anyway; cc_build.h), while the fuzzer
 * does forge trailers (it learns the digest from the comparison) around
 * payloads that are not shared objects. */
const char *fuzz_cache_one(const uint8_t *data, size_t size, fuzz_outcome *outcome);

/* Loads `data` as an .npz archive (cj_load_npz). Clean: arrays that load
 * the same by name and survive cj_save_npz + cj_load_npz, or
 * CJ_ERR_FORMAT with a message naming cj_load_npz and the file; nothing
 * left allocated (npz_body.c). */
const char *fuzz_npz_one(const uint8_t *data, size_t size, fuzz_outcome *outcome);

/* Imports `data` as StableHLO text (cj_import_stablehlo) and traces an
 * imported module for its entry's argument types. Clean: a refusal names
 * cj_import_stablehlo (and a line and column for a parse error), a trace
 * gives IR or an error; nothing left allocated (hlo_body.c). */
const char *fuzz_hlo_one(const uint8_t *data, size_t size, fuzz_outcome *outcome);

/* The cache key the cache body checks against: SHA-256 of this text (the
 * corpus generator, fuzz/corpus/generate.py, seals files with it). */
#define FUZZ_CACHE_KEY_TEXT "cjax fuzz_cache key"

#endif
