/* picture.h — pictures of a compiled program (compiler layer).
 *
 *   ... → plan → analyse → pictures (on request: cj_jit_memory_svg,
 *   cj_jit_program_dot, CJAX_DUMP=svg,dot)
 *
 * Two writers read the compiled form (program.h) and never change it:
 * picture_svg.c draws the memory timeline (every buffer as a bar over the
 * kernel schedule, the arena by offset, memory in use with its peak), and
 * picture_dot.c the fused program as Graphviz (kernels as clusters,
 * buffers as edges). Each builds its text in memory first, so a failed
 * allocation leaves no file behind; picture_common.c holds what both
 * share: variable names spelled as the plan dump spells them, escaping,
 * and writing the file. */
#ifndef CJ_COMPILER_PICTURE_H
#define CJ_COMPILER_PICTURE_H

#include "program.h"

/* Appends the picture's text to sb (sb->failed set when an allocation
 * failed; nothing is recorded in ctx). `title` names the function. */
void picture_svg_text(cj_ctx *ctx, const compiled *c, const char *title, strbuf *sb);
void picture_dot_text(cj_ctx *ctx, const compiled *c, const char *title, strbuf *sb);

/* Builds a picture and writes it to `path`: 0, or -1 with the error
 * recorded in ctx (CJ_ERR_OOM; CJ_ERR_IO naming `op` and the path). */
typedef void (*picture_fn)(cj_ctx *ctx, const compiled *c, const char *title, strbuf *sb);
int picture_write(cj_ctx *ctx, picture_fn draw, const compiled *c, const char *title, const char *path,
                  const char *op);

/* Writes len bytes of text to path: 0, or -1 with the reason in why
 * (nothing is left at path after a failed write). */
int picture_save(const char *text, size_t len, const char *path, char *why, size_t why_n);

/* CJAX_DUMP=svg / dot: called when jit has prepared a program for the
 * function named `title`; writes <dir>/cjax-<name>-<n>.svg / .dot (dir:
 * CJAX_DUMP_DIR, else the current directory; n counts pictures in this
 * process) and prints the path to stderr. A picture that cannot be
 * written is reported on stderr; the program is not affected. */
void compiler_dump_pictures(cj_ctx *ctx, const compiled *c, const char *title);

/* ---- shared by the writers (picture_common.c) ---- */

/* Per-program tables the writers read: the printer's ordinals (for
 * names) and each variable's defining equation (-1 for inputs and
 * constants). */
typedef struct picture_vars {
    int *ordinal;
    int *def_eqn;
    int *eqn_kernel; /* per equation: the kernel holding it (-1: none) */
    size_t n_vars, n_eqns;
} picture_vars;
int picture_vars_init(rt_mem *mem, const compiled *c, picture_vars *pv); /* 0 or -1 (out of memory) */
void picture_vars_free(rt_mem *mem, picture_vars *pv);

/* A variable as the plan dump spells it: "c" / "c:f32[4,3]"; a rank-0
 * constant is spelled as its value ("0.5:f32[]"). */
void picture_var_name(const compiled *c, const picture_vars *pv, int v, char *buf, size_t n);
void picture_var_str(const compiled *c, const picture_vars *pv, int v, char *buf, size_t n);
/* "48 B", "12.5 KiB", "3.0 MiB" (exact below 10 KiB). */
void picture_bytes(size_t bytes, char *buf, size_t n);
/* The equation's right-hand side: "add b 0.5". */
/* The results of equation `eqn`, each as picture_var_str spells it,
 * separated by spaces. */
void picture_eqn_lhs(const compiled *c, const picture_vars *pv, int eqn, char *buf, size_t n);
void picture_eqn_rhs(const compiled *c, const picture_vars *pv, int eqn, char *buf, size_t n);

/* Appends s escaped for XML text and attribute values (& < > " '). */
void sb_xml(strbuf *sb, const char *s);
/* Appends s escaped for the inside of a Graphviz "..." string. */
void sb_dot(strbuf *sb, const char *s);

#endif
