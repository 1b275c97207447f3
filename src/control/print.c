/* print.c — the text form of control-flow constructs (control layer).
 *
 * A construct's equation shows its bodies inline, as a jaxpr does, after
 * its other parameters:
 *
 *   c:f32[4] d:f32[6,4] = scan[length=6 reverse=False carries=1 xs=1 closure=1
 *       jaxpr={ lambda ; a:f32[4] b:f32[4] e:f32[4,4]. let
 *           ...
 *         in (f, g) }
 *     ] a b e
 *
 * (cond: branches=( {...} {...} ), one per line; while: cond_jaxpr= and
 * body_jaxpr=, as jax.make_jaxpr names them).
 *
 * Each body is printed with its own variable names, indented one level
 * deeper than the equation holding it. */
#include "control.h"

static void newline(strbuf *sb, int indent, int extra) {
    sb_printf(sb, "\n");
    for (int i = 0; i < indent; i++) sb_printf(sb, "  ");
    for (int i = 0; i < extra; i++) sb_printf(sb, " ");
}

/* As jax.make_jaxpr names them: cond's branches=( ... ), while's
 * cond_jaxpr= and body_jaxpr=, scan's jaxpr=. */
static void print_bodies(const prim_params *p, strbuf *sb, int indent) {
    const cf_record *rec = cf_of(p);
    if (rec->kind == CF_COND) {
        newline(sb, indent, 4);
        sb_printf(sb, "branches=(");
        for (int k = 0; k < rec->n_progs; k++) {
            newline(sb, indent, 6);
            ir_print_indented(rec->progs[k], sb, indent + 3);
        }
        newline(sb, indent, 4);
        sb_printf(sb, ")");
    } else {
        for (int k = 0; k < rec->n_progs; k++) {
            newline(sb, indent, 4);
            sb_printf(sb, "%s=", rec->kind == CF_SCAN ? "jaxpr" : k ? "body_jaxpr" : "cond_jaxpr");
            ir_print_indented(rec->progs[k], sb, indent + 2);
        }
    }
    newline(sb, indent, 0);
}

void cf_register_print(void) {
    for (int id = PRIM_COND; id <= PRIM_SCAN; id++) prim_rules[id].print_params_long = print_bodies;
}
