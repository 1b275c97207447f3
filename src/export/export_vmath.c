/* export_vmath.c — vmath.c's kernels as text for exported C (export
 * layer). The library's vector math is a set of branch-free static inline
 * scalar kernels (src/runtime/vmath.c) that its entry points call in
 * plain loops; an exported unit needs the same kernels, the same
 * polynomials, so its results carry the jit's bits. The build embeds
 * vmath.c's text (cmake/embed_text.cmake → vmath_text.inc); this file
 * hands out the part between its includes and its entry points, which the
 * exporter follows with loops of its own (export_ops.c). */
#include <string.h>

#include "export.h"
#include "vmath_text.inc"

const char *export_vmath_text(size_t *len) {
    const char *s = export_vmath_source;
    const char *inc = strstr(s, "#include <string.h>\n");
    const char *end = strstr(s, "/* Entry points");
    if (!inc || !end || end < inc) return NULL;
    const char *from = inc + strlen("#include <string.h>\n");
    /* back to the start of the ruled line above the heading */
    const char *rule = end;
    while (rule > from && rule[-1] != '\n') rule--;
    if (rule > from) {
        rule--;
        while (rule > from && rule[-1] != '\n') rule--;
    }
    *len = (size_t)(rule - from);
    return from;
}
