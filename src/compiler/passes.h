/* passes.h — the compiler's IR-to-IR passes (compiler layer).
 *
 * Every pass has one signature: it takes the program's IR and replaces it
 * with an improved one (or leaves it), returning 0, or -1 with the error
 * recorded in ctx (the old IR is then left untouched and still owned by the
 * caller). Passes never change what a program computes. The pipeline's
 * table in compiler.c wraps them (and the passes over the compiled form,
 * program.h) in one signature, runs them in order, verifies the IR after
 * each, and dumps it when CJAX_DUMP names the pass. */
#ifndef CJ_COMPILER_PASSES_H
#define CJ_COMPILER_PASSES_H

#include "../core/ir.h"

typedef int (*ir_pass_fn)(cj_ctx *ctx, ir_func **ir);

/* simplify: constant folding of small constants, algebraic identities
 * (x*1, x+0, x-0, x/1, neg(neg x), ...), removal of no-op reshape /
 * broadcast_in_dim / convert_element_type / transpose, common
 * subexpression elimination, dead code elimination. */
int pass_simplify(cj_ctx *ctx, ir_func **ir);

/* One step of simplify (sink.c): a transpose or an order-keeping reshape
 * of an elementwise result (or of a pad) read nowhere else moved onto the
 * operands, so fusion reads it through index maps. Builds *out (src is not
 * modified); *changed says whether anything moved. 0, or -1 on out of
 * memory (recorded). */
int pass_sink_movement(cj_ctx *ctx, const ir_func *src, ir_func **out, int *changed);

/* Replaces custom-derivative calls by the functions they call (inline.c). */
int pass_inline_custom(cj_ctx *ctx, ir_func **ir);

/* Constructs whose rule offers a program without per-step work that needs
 * no loop (prim_rule.hoist: a scan's carry-independent work over the
 * stacked xs) replaced by it (hoist.c). */
int pass_hoist(cj_ctx *ctx, ir_func **ir);

/* The parts of simplify, usable (and tested) alone. */
int pass_dce(cj_ctx *ctx, ir_func **ir);
int pass_cse(cj_ctx *ctx, ir_func **ir);

#endif
