/* fuzz_cache.c — libFuzzer harness: every input is a file of the C
 * backend's disk cache, checked as a build checks it before dlopen (body and
 * checks in cache_body.c). Built with CJAX_LIBFUZZER=ON; run with
 * `make fuzz-inputs`. */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_inputs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_outcome outcome;
    const char *problem = fuzz_cache_one(data, size, &outcome);
    if (problem) {
        fprintf(stderr, "fuzz_cache: %s\n", problem);
        abort(); /* libFuzzer keeps the input as a crash */
    }
    return 0;
}
