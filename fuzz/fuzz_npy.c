/* fuzz_npy.c — libFuzzer harness: every input is a .npy file for
 * cj_load_npy (body and checks in npy_body.c). Built with CJAX_LIBFUZZER=ON;
 * run with `make fuzz-inputs`. */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_inputs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_outcome outcome;
    const char *problem = fuzz_npy_one(data, size, &outcome);
    if (problem) {
        fprintf(stderr, "fuzz_npy: %s\n", problem);
        abort(); /* libFuzzer keeps the input as a crash */
    }
    return 0;
}
