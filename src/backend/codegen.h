/* codegen.h — C source for a compiled program's fused kernels, LOOP and
 * ROWS, and for its control-flow constructs (backend layer). The source is self-contained: no #include (headers
 * cost compile time), no libm: cheap operations are written inline,
 * data movement is index arithmetic (codegen_leaf.c), everything else
 * (transcendentals through the vectorised math kernels, integer division,
 * row reductions) calls back into cjax through a table the loader fills,
 * so both backends compute bit-identical results. */
#ifndef CJ_BACKEND_CODEGEN_H
#define CJ_BACKEND_CODEGEN_H

#include "../compiler/program.h"

/* Tile length of generated loops (elements). */
#define CODEGEN_TILE 1024

/* Row arrays of a generated ROWS kernel live on its stack up to this many
 * bytes in all; beyond, in a per-thread block of the program's scratch
 * claimed through the table (rows may hold up to 65536 elements). */
#define CODEGEN_ROWS_STACK_BYTES 32768

/* The table generated code receives (mirrored in the generated source). */
typedef struct cjk_rt {
    void *const *ew;  /* per equation: an ew_kernel_fn, for a row reduction its
                         cjk_fold_fn, or NULL (written inline) */
    const void *prog;
    /* A per-thread scratch block (at least one slot of row_len * 8 bytes
     * per value of the kernel that lives only inside it), held until
     * release; ROWS kernels whose row arrays exceed the stack budget. */
    char *(*claim)(const void *prog, int *slot);
    void (*release)(const void *prog, int slot);
} cjk_rt;

/* A row reduction: *out = the fold of x[0..n) from the identity, in the
 * reduce primitive's order for one contiguous run (native.c). */
typedef void (*cjk_fold_fn)(const void *x, int64_t n, void *out);
/* The fold of reduce_sum/prod/max/min/and/or/xor over dtype dt, NULL when the
 * primitive has no kernel for dt (native.c). */
cjk_fold_fn native_row_fold(prim_id prim, cj_dtype dt);

/* Generated kernel k is `void cjk_kernel_<k>(const cjk_rt *, char *const *buf,
 * int64_t begin, int64_t end)`: for a LOOP kernel over its flat iteration
 * space, for a ROWS kernel over rows [begin, end) of its outer shape. */
typedef void (*cjk_kernel_fn)(const cjk_rt *rt, char *const *buf, int64_t begin, int64_t end);

/* ---- codegen_leaf.c: data-movement leaves as index arithmetic ---- */
/* How leaf eqn lies over axes [from, rank) of space (the whole space for a
 * LOOP kernel, a row for ROWS): one contiguous run in row-major order from
 * an offset, one value repeated, or gathered. */
typedef enum cg_leaf { CG_LEAF_GATHER, CG_LEAF_CONTIGUOUS, CG_LEAF_SCALAR } cg_leaf;
cg_leaf codegen_leaf_layout(const compiled *c, int eqn, const rt_aval *space, int from);
/* Declares d<eqn>_<i>, the clamped dynamic offset of each operand whose
 * map has one (dynamic_slice), before any loop of the kernel. */
void codegen_leaf_prologue(const compiled *c, int eqn, strbuf *sb);
/* The element offset of operand i at output index 0 ("12", "12 + d5_0"). */
void codegen_leaf_base(const compiled *c, int eqn, int i, char *out, size_t n);
/* C that fills dst[0, len) with the leaf's elements from flat index start
 * of space (expressions); buf in scope. */
void codegen_leaf_gather(const compiled *c, int eqn, const rt_aval *space, const char *start, const char *len,
                         const char *dst, strbuf *sb);
/* The C expression of the leaf's element at constant flat index `flat`. */
void codegen_leaf_element(const compiled *c, int eqn, const rt_aval *space, int64_t flat, char *out, size_t n);

/* ---- codegen_nested.c: LOOP kernels with gathered leaves as nested loops ---- */
/* Is LOOP kernel k written as nested loops over its multi-index (only
 * inline equations and affine leaves, at least one gathered)? */
bool codegen_nested_applies(const compiled *c, int k);
void codegen_nested_kernel(const compiled *c, int k, const char *prefix, bool exported, strbuf *sb);
/* What codegen.c's loop kernels and the nested form share: is elementwise
 * e written inline, and its C expression over operand expressions a, b, p. */
bool codegen_is_inline(const ir_func *ir, const ir_eqn *e);
void codegen_inline_rhs(const ir_func *ir, const ir_eqn *e, const char *a, const char *b, const char *p, char *out,
                        size_t n);

struct cf_native;

/* Appends the translation unit for every LOOP kernel of c, and every ROWS
 * kernel codegen_generates, to sb, and for each construct kernel k with
 * cf[k] (cf may be NULL) the construct itself (codegen_control.c). */
void codegen_program(const compiled *c, struct cf_native *const *cf, strbuf *sb);
/* The kernels codegen_generates of c as functions named
 * <prefix>kernel_<k>: exported (an enclosing program's, found by dlsym) or
 * static (a construct's sub-program, called from the generated loop). */
void codegen_kernels(const compiled *c, const char *prefix, bool exported, strbuf *sb);
/* The declarations generated constructs need, and each construct kernel
 * k of c with cf[k] as `int cjk_construct_<k>(cjk_cf *, char *const *)`
 * with its sub-programs' kernels before it (codegen_control.c). */
void codegen_construct_types(strbuf *sb);
void codegen_constructs(const compiled *c, struct cf_native *const *cf, strbuf *sb);
/* The types and helpers every unit's kernels use (cjk_ops, cjk_rt,
 * cjk_fold, i64, TILE, cjk_clamp), with the pragmas kernels are built
 * under; codegen_program starts with them, and so does an export. */
void codegen_unit_types(strbuf *sb);
/* The exporter's (src/export/): kernel k as codegen_kernels writes it, as
 * static <prefix>kernel_<k>, and ROWS kernels of rows too short for the
 * jit to generate (it keeps them on the interpreter for speed; the code
 * computes the same bits). False, writing nothing, when k has no
 * generated form: a SINGLE kernel, a long-rows kernel (its partials are
 * combined by the interpreter), rows the generator cannot write. */
bool codegen_kernel_for_export(const compiled *c, int k, const char *prefix, strbuf *sb);
/* Is kernel k written as C (LOOP kernels always; ROWS kernels whose
 * reductions have a generated form)? */
bool codegen_generates(const compiled *c, int k);
/* Does the unit define cjk_kernel_<k>? What codegen_generates, and the
 * tiles of a long-rows kernel, which interp.c's run_long_rows calls over
 * elements (the construct code leaves such a kernel to the interpreter). */
bool codegen_exports(const compiled *c, int k);
/* The position in kernel k of the cos (sin) of the same operand as the sin
 * (cos) at position j, when generated code computes the two with one
 * vm_sincos call (both table slots then hold it); -1 otherwise. */
int codegen_sincos_partner(const compiled *c, int k, int j);
/* Test hook: ROWS kernels with rows shorter than n stay on the interpreter
 * (n < 0: the default, 64), so tests can generate small rows. */
void codegen_set_short_row_for_testing(int64_t n);
/* A fold's combining expression (prim_fold_c.combine) with CJK_A and
 * CJK_B replaced by acc and x, into out (codegen.c, the exporter). */
void codegen_fold_combine(const char *combine, const char *acc, const char *x, char *out, size_t n);
/* Does equation e of c need rt->ew[e] (not written inline)? */
bool codegen_needs_kernel(const compiled *c, int eqn);

#endif
