/* codegen.h — C source for a compiled program's loop kernels (backend
 * layer). The source is self-contained: no #include (headers cost compile
 * time), no libm: cheap operations are written inline, everything else
 * (transcendentals through the vectorised math kernels, integer division,
 * gathers of data-movement leaves) calls back into cjax through a table
 * the loader fills, so both backends compute bit-identical results. */
#ifndef CJ_BACKEND_CODEGEN_H
#define CJ_BACKEND_CODEGEN_H

#include "../compiler/program.h"

/* Tile length of generated loops (elements). */
#define CODEGEN_TILE 1024

/* The table generated code receives (mirrored in the generated source). */
typedef struct cjk_rt {
    void *const *ew;  /* per equation: an ew_kernel_fn, or NULL */
    void (*gather)(const void *prog, int eqn, char *const *buf, int64_t t0, int64_t n, void *dst);
    const void *prog;
} cjk_rt;

/* Generated kernel k is `void cjk_kernel_<k>(const cjk_rt *, char *const *buf,
 * int64_t begin, int64_t end)` over the kernel's flat iteration space. */
typedef void (*cjk_kernel_fn)(const cjk_rt *rt, char *const *buf, int64_t begin, int64_t end);

/* Appends the translation unit for every LOOP kernel of c to sb. */
void codegen_program(const compiled *c, strbuf *sb);
/* Does equation e of c need rt->ew[e] (not written inline)? */
bool codegen_needs_kernel(const compiled *c, int eqn);

#endif
