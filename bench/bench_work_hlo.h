/* bench_work_hlo.h — `make bench`'s imported-StableHLO rows (issue 19):
 *
 *   hlo_transformer_fwd  bench/peers.py's transformer block forward as JAX
 *                        lowered it (bench/data/hlo_transformer_fwd.mlir,
 *                        written by tools/gen_bench_stablehlo.py), imported
 *                        with cj_import_stablehlo_file;
 *   hlo_transformer_vg   its value_and_grad as JAX lowered it.
 * The inputs are bench_work_deep.h's tb_inputs (the same formulas peers.py
 * gives JAX), so the JAX column runs the very function that was exported
 * and the cjax columns run the imported program: eagerly, and under jit.
 * Header-only: CMake makes one program per .c file in bench/. */
#ifndef CJ_BENCH_WORK_HLO_H
#define CJ_BENCH_WORK_HLO_H
#include <stdio.h>

#include <cjax.h>

#include "bench_work_deep.h"

static cj_func *hlo_import(cj_ctx *ctx, const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", CJAX_BENCH_DATA_DIR, name);
    cj_func *f = cj_import_stablehlo_file(ctx, path, NULL);
    if (!f) fprintf(stderr, "bench: %s: %s\n", path, cj_error_message(ctx));
    return f;
}
static cj_func *make_hlo_transformer_fwd(cj_ctx *ctx, cj_val *in) {
    tb_inputs(ctx, in);
    return hlo_import(ctx, "hlo_transformer_fwd.mlir");
}
/* JAX's value_and_grad(block_loss)(params, x) takes the parameters first;
 * the row's inputs (tb_inputs) put x first */
static void hlo_vg_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx;
    cj_val args[1 + TB_PARAMS];
    for (int i = 0; i < TB_PARAMS; i++) args[i] = in[1 + i];
    args[TB_PARAMS] = in[0];
    cj_call((cj_func *)u, args, out);
}
static cj_func *make_hlo_transformer_vg(cj_ctx *ctx, cj_val *in) {
    tb_inputs(ctx, in);
    cj_func *g = hlo_import(ctx, "hlo_transformer_vg.mlir");
    return g ? cj_func_new(ctx, "hlo_transformer_vg", hlo_vg_fn, 1 + TB_PARAMS, 1 + TB_PARAMS, g) : NULL;
}
#endif
