/* print.c — the text form of control-flow constructs (control layer).
 *
 * A construct's equation shows its bodies inline, as a jaxpr does, after
 * its other parameters:
 *
 *   c:f32[4] d:f32[6,4] = scan[length=6 reverse=False carries=1 xs=1 closure=1
 *       body={ lambda ; a:f32[4] b:f32[4] e:f32[4,4]. let
 *           ...
 *         in (f, g) }
 *     ] a b e
 *
 * Each body is printed with its own variable names, indented one level
 * deeper than the equation holding it. */
#include "control.h"

static void print_bodies(const prim_params *p, strbuf *sb, int indent) {
    const cf_record *rec = cf_of(p);
    for (int k = 0; k < rec->n_progs; k++) {
        sb_printf(sb, "\n");
        for (int i = 0; i < indent; i++) sb_printf(sb, "  ");
        sb_printf(sb, "    ");
        if (rec->kind == CF_COND) sb_printf(sb, "branch%d=", k);
        else if (rec->kind == CF_WHILE) sb_printf(sb, "%s=", k ? "body" : "cond");
        else sb_printf(sb, "body=");
        ir_print_indented(rec->progs[k], sb, indent + 2);
    }
    sb_printf(sb, "\n");
    for (int i = 0; i < indent; i++) sb_printf(sb, "  ");
}

void cf_register_print(void) {
    for (int id = PRIM_COND; id <= PRIM_SCAN; id++) prim_rules[id].print_params_long = print_bodies;
}
