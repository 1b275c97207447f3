/* fuzz_npz.c — libFuzzer harness: every input is an .npz archive for
 * cj_load_npz (body and checks in npz_body.c). Built with CJAX_LIBFUZZER=ON;
 * run with `make fuzz-inputs`. */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_inputs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_outcome outcome;
    const char *problem = fuzz_npz_one(data, size, &outcome);
    if (problem) {
        fprintf(stderr, "fuzz_npz: %s\n", problem);
        abort(); /* libFuzzer keeps the input as a crash */
    }
    return 0;
}
