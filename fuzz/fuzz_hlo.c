/* fuzz_hlo.c — libFuzzer harness: every input is StableHLO MLIR text for
 * cj_import_stablehlo (body and checks in hlo_body.c). Built with
 * CJAX_LIBFUZZER=ON; run with `make fuzz-inputs`. */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_inputs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_outcome outcome;
    const char *problem = fuzz_hlo_one(data, size, &outcome);
    if (problem) {
        fprintf(stderr, "fuzz_hlo: %s\n", problem);
        abort(); /* libFuzzer keeps the input as a crash */
    }
    return 0;
}
