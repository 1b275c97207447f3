/* picture_dot.c — the fused program as a Graphviz graph (compiler layer;
 * read-only over program.h, after plan and analyse).
 *
 * Each kernel is a cluster (its kind, iteration space and equation count
 * as the label) holding one node per equation, in schedule order.
 * Arguments, constants and outputs are nodes of their own. Every buffer is
 * an edge from the node that wrote it to the first equation reading it in
 * each consumer kernel, labelled with the variable, its type, its size and
 * where it lives (arena offset, in place, a donated argument's buffer);
 * values that exist only inside a kernel's tiles are thin grey edges
 * between its equations. Render with `dot -Tsvg file.dot -o file.svg`. */
#include <stdio.h>
#include <string.h>

#include "picture.h"

/* Fill colours, as in the SVG timeline's legend. */
#define C_ARGUMENT "#a6c8ea"
#define C_CONSTANT "#d4d4d4"
#define C_TEMPORARY "#e07b1a"
#define C_OUTPUT "#a8d89a"
#define C_DONATED "#dcb8d5"

/* The node that writes variable v: its equation, or its argument or
 * constant node. */
static void producer_id(const compiled *c, const picture_vars *pv, int v, char *buf, size_t n) {
    if (pv->def_eqn[v] >= 0) snprintf(buf, n, "e%d", pv->def_eqn[v]);
    else snprintf(buf, n, "%s%d", c->home[v] == HOME_CONST ? "const" : "arg", v);
}

/* "c:f32[4,3]\n48 B, arena @ 0" */
static void buffer_label(const compiled *c, const picture_vars *pv, int v, strbuf *sb) {
    char name[160], size[32];
    picture_var_str(c, pv, v, name, sizeof name);
    picture_bytes(rt_aval_nbytes(&c->ir->vars[v]), size, sizeof size);
    sb_dot(sb, name);
    sb_printf(sb, "\\n%s", size);
    if (c->home[v] == HOME_ARENA) {
        if (plan_host(c, v) >= 0) {
            picture_var_name(c, pv, plan_host(c, v), name, sizeof name);
            if (plan_shares_read_only(c, v)) sb_printf(sb, ", shares ");
            else sb_printf(sb, ", @ %zu in output ", c->offset[v]);
            sb_dot(sb, name);
            sb_printf(sb, "'s buffer");
        } else {
            sb_printf(sb, ", arena @ %zu", c->offset[v]);
        }
        int u = plan_in_place_of(c, v);
        if (u >= 0) {
            picture_var_name(c, pv, u, name, sizeof name);
            sb_printf(sb, ", in place of ");
            sb_dot(sb, name);
        }
    } else if (c->home[v] == HOME_OUTPUT) {
        sb_printf(sb, ", output");
        if (c->donor && c->donor[v] >= 0) sb_printf(sb, " in argument %d's buffer", c->donor[v]);
    }
}

static void declare_sources(const compiled *c, const picture_vars *pv, strbuf *sb) {
    const ir_func *ir = c->ir;
    char name[160], size[32];
    for (int i = 0; i < ir->n_in; i++) {
        int v = ir->in[i];
        picture_var_str(c, pv, v, name, sizeof name);
        picture_bytes(rt_aval_nbytes(&ir->vars[v]), size, sizeof size);
        sb_printf(sb, "  arg%d [shape=invhouse, fillcolor=\"" C_ARGUMENT "\", label=\"", v);
        sb_dot(sb, name);
        sb_printf(sb, "\\nargument %d, %s\"];\n", i, size);
    }
    for (int i = 0; i < ir->n_consts; i++) {
        int v = ir->consts[i].var;
        picture_var_str(c, pv, v, name, sizeof name);
        picture_bytes(rt_aval_nbytes(&ir->vars[v]), size, sizeof size);
        sb_printf(sb, "  const%d [shape=cylinder, fillcolor=\"" C_CONSTANT "\", label=\"", v);
        sb_dot(sb, name);
        sb_printf(sb, "\\nconstant, %s\"];\n", size);
    }
}

static void declare_kernels(const compiled *c, const picture_vars *pv, strbuf *sb) {
    const ir_func *ir = c->ir;
    char out[512], rhs[512], space[96];
    for (int k = 0; k < c->n_kernels; k++) {
        const kernel *K = &c->kernels[k];
        rt_aval_str(&K->space, space, sizeof space);
        sb_printf(sb, "  subgraph cluster_%d {\n", k);
        sb_printf(sb, "    label=\"kernel %d: %s %s, %d equation%s\";\n", k, kernel_kind_name(K->kind), space,
                  K->n_eqns, K->n_eqns == 1 ? "" : "s");
        sb_printf(sb, "    style=\"rounded,filled\"; fillcolor=\"%s\"; color=\"#999999\";\n",
                  K->kind == KERNEL_SINGLE ? "#f4f4f4" : "#fff4e6");
        for (int j = 0; j < K->n_eqns; j++) {
            int e = K->eqns[j];
            picture_eqn_lhs(c, pv, e, out, sizeof out);
            picture_eqn_rhs(c, pv, e, rhs, sizeof rhs);
            sb_printf(sb, "    e%d [label=\"", e);
            sb_dot(sb, out);
            sb_printf(sb, " = ");
            sb_dot(sb, rhs);
            sb_printf(sb, "\"];\n");
        }
        sb_printf(sb, "  }\n");
    }
    /* equations in no kernel (none after fusion, but never an undeclared
     * endpoint) */
    for (int e = 0; e < ir->n_eqns; e++) {
        if (pv->eqn_kernel[e] >= 0) continue;
        picture_eqn_lhs(c, pv, e, out, sizeof out);
        picture_eqn_rhs(c, pv, e, rhs, sizeof rhs);
        sb_printf(sb, "  e%d [label=\"", e);
        sb_dot(sb, out);
        sb_printf(sb, " = ");
        sb_dot(sb, rhs);
        sb_printf(sb, "\"];\n");
    }
}

static const char *edge_colour(const compiled *c, int v) {
    switch (c->home[v]) {
    case HOME_INPUT: return "#4e79a7";
    case HOME_CONST: return "#8c8c8c";
    case HOME_ARENA: return C_TEMPORARY;
    default: return c->donor && c->donor[v] >= 0 ? "#9c5f91" : "#4f9a3f";
    }
}

/* One reading of variable v by equation e (in kernel k, -1 for none):
 * inside its writer's kernel a thin edge (a value per tile, or the kernel
 * reading a buffer it wrote); otherwise a buffer edge, once per consumer
 * kernel (seen[v] remembers the last kernel given one). */
static void edge_for_read(const compiled *c, const picture_vars *pv, int v, int e, int k, int *seen, strbuf *sb) {
    char from[32], name[40];
    int pe = pv->def_eqn[v], pk = pe >= 0 ? pv->eqn_kernel[pe] : -1;
    producer_id(c, pv, v, from, sizeof from);
    if (c->home[v] == HOME_NONE || (k >= 0 && k == pk)) {
        picture_var_name(c, pv, v, name, sizeof name);
        sb_printf(sb, "  %s -> e%d [color=\"#aaaaaa\", fontcolor=\"#888888\", label=\"", from, e);
        sb_dot(sb, name);
        sb_printf(sb, "\"];\n");
        return;
    }
    if (k >= 0 && seen[v] == k) return;
    seen[v] = k;
    sb_printf(sb, "  %s -> e%d [color=\"%s\", penwidth=1.6, label=\"", from, e, edge_colour(c, v));
    buffer_label(c, pv, v, sb);
    sb_printf(sb, "\"");
    if (pk >= 0) sb_printf(sb, ", ltail=cluster_%d", pk);
    if (k >= 0) sb_printf(sb, ", lhead=cluster_%d", k);
    sb_printf(sb, "];\n");
}

/* Every reading of a variable, in schedule order, then the outputs. */
static void declare_edges(const compiled *c, const picture_vars *pv, int *seen, strbuf *sb) {
    const ir_func *ir = c->ir;
    char from[32];
    for (int v = 0; v < ir->n_vars; v++) seen[v] = -2;
    for (int k = -1; k < c->n_kernels; k++) { /* k = -1: equations in no kernel */
        int n = k >= 0 ? c->kernels[k].n_eqns : ir->n_eqns;
        for (int j = 0; j < n; j++) {
            int e = k >= 0 ? c->kernels[k].eqns[j] : j;
            if (k < 0 && pv->eqn_kernel[e] >= 0) continue;
            const int *in = ir_eqn_inputs(ir, &ir->eqns[e]);
            for (int i = 0; i < ir->eqns[e].n_in; i++) {
                bool again = false; /* an operand read twice by one equation: one edge */
                for (int i2 = 0; i2 < i; i2++) again |= in[i2] == in[i];
                if (!again) edge_for_read(c, pv, in[i], e, k, seen, sb);
            }
        }
    }
    /* the program's outputs */
    for (int i = 0; i < ir->n_out; i++) {
        int v = ir->out[i], pe = pv->def_eqn[v], pk = pe >= 0 ? pv->eqn_kernel[pe] : -1;
        bool donated = c->donor && c->donor[v] >= 0;
        producer_id(c, pv, v, from, sizeof from);
        sb_printf(sb, "  out%d [shape=house, fillcolor=\"%s\", label=\"output %d", i, donated ? C_DONATED : C_OUTPUT,
                  i);
        if (donated) sb_printf(sb, "\\nin argument %d's buffer", c->donor[v]);
        sb_printf(sb, "\"];\n");
        sb_printf(sb, "  %s -> out%d [color=\"%s\", penwidth=1.6, label=\"", from, i, edge_colour(c, v));
        buffer_label(c, pv, v, sb);
        sb_printf(sb, "\"");
        if (pk >= 0) sb_printf(sb, ", ltail=cluster_%d", pk);
        sb_printf(sb, "];\n");
    }
}

void picture_dot_text(cj_ctx *ctx, const compiled *c, const char *title, strbuf *sb) {
    picture_vars pv;
    if (picture_vars_init(ctx->mem, c, &pv) != 0) {
        sb->failed = 1;
        return;
    }
    int *seen = rt_alloc(ctx->mem, sizeof(int) * pv.n_vars); /* per variable: the last kernel given its edge */
    if (!seen) {
        picture_vars_free(ctx->mem, &pv);
        sb->failed = 1;
        return;
    }
    const memory_analysis *m = &c->mem;
    char arena[32], peak[32];
    picture_bytes(c->arena_bytes, arena, sizeof arena);
    picture_bytes(m->peak_bytes, peak, sizeof peak);
    sb_printf(sb, "digraph \"");
    sb_dot(sb, title);
    sb_printf(sb, "\" {\n  graph [label=\"");
    sb_dot(sb, title);
    sb_printf(sb, ": %d kernel%s, arena %s, peak %s (memory analysis)\", labelloc=t, fontsize=16, "
                  "fontname=\"Helvetica\", compound=true, rankdir=TB];\n",
              c->n_kernels, c->n_kernels == 1 ? "" : "s", arena, peak);
    sb_printf(sb, "  node [shape=box, style=\"rounded,filled\", fillcolor=\"#ffffff\", fontname=\"Helvetica\", "
                  "fontsize=10];\n  edge [fontname=\"Helvetica\", fontsize=9];\n");
    declare_sources(c, &pv, sb);
    declare_kernels(c, &pv, sb);
    declare_edges(c, &pv, seen, sb);
    sb_printf(sb, "}\n");
    rt_free(ctx->mem, seen, sizeof(int) * pv.n_vars);
    picture_vars_free(ctx->mem, &pv);
}
