/* picture_svg.c — the memory timeline of a compiled program as SVG
 * (compiler layer; read-only over program.h, after plan and analyse).
 *
 * The x axis is the kernel schedule, one column per kernel. Three panels
 * share it:
 *   - the arena: each temporary as a bar at its planned offset (y) over
 *     the steps it is live, so a block taken again by a later buffer shows
 *     as two bars in one band;
 *   - every buffer on a row of its own (arguments, constants, then what
 *     the kernels write, in schedule order), labelled with the operation
 *     that made it, its type, its size and where it lives;
 *   - memory in use per step, with its peak marked, and the memory the
 *     program reserves (the whole arena, kept across calls), which reaches
 *     the memory analysis's peak when the last output is written.
 * In use at step k counts the arguments and constants (held by the caller
 * and the program throughout), the outputs written so far (an output
 * written into a donated argument costs nothing new), and the arena
 * temporaries live at k (one block once, when a result took its
 * operand's block in place). Hover text (<title>) gives each buffer's and
 * kernel's details. */
#include <stdio.h>
#include <string.h>

#include "picture.h"

typedef struct role_style {
    const char *name, *fill, *stroke;
} role_style;

enum { ROLE_ARGUMENT, ROLE_CONSTANT, ROLE_TEMPORARY, ROLE_OUTPUT, ROLE_DONATED, N_ROLES };
static const role_style roles[N_ROLES] = {
    {"argument", "#a6c8ea", "#4e79a7"},
    {"constant", "#d4d4d4", "#8c8c8c"},
    {"temporary (arena)", "#fbc58e", "#e07b1a"},
    {"output", "#a8d89a", "#4f9a3f"},
    {"output in a donated argument", "#dcb8d5", "#9c5f91"},
};

/* Layout, in pixels. */
#define LEFT 104.0    /* row roles and axis figures */
#define ROW_H 18.0
#define HEADER_H 36.0 /* step numbers and kernel kinds */
#define MEM_H 150.0
#define CHAR_W 6.0    /* a rough width of one character at 11px */

typedef struct timeline {
    const compiled *c;
    picture_vars pv;
    int n_steps;             /* columns: one per kernel, at least one */
    int n_rows, *rows;       /* variables with a buffer, in row order */
    int *start, *end;        /* per variable: its solid bar's first and last step (end -1: never read) */
    size_t *used, *reserved; /* per step */
    size_t base_bytes;       /* arguments and constants */
    int peak_step;
    int max_live_temps;
    double colw;
} timeline;

static int role_of(const compiled *c, int v) {
    switch (c->home[v]) {
    case HOME_INPUT: return ROLE_ARGUMENT;
    case HOME_CONST: return ROLE_CONSTANT;
    case HOME_ARENA: return ROLE_TEMPORARY;
    default: return c->donor && c->donor[v] >= 0 ? ROLE_DONATED : ROLE_OUTPUT;
    }
}

static size_t nbytes(const compiled *c, int v) { return rt_aval_nbytes(&c->ir->vars[v]); }

static int output_index(const compiled *c, int v) {
    for (int i = 0; i < c->ir->n_out; i++)
        if (c->ir->out[i] == v) return i;
    return -1;
}

static int input_index(const compiled *c, int v) {
    for (int i = 0; i < c->ir->n_in; i++)
        if (c->ir->in[i] == v) return i;
    return -1;
}

static void timeline_free(rt_mem *mem, timeline *t) {
    size_t nv = t->pv.n_vars, ns = (size_t)t->n_steps;
    if (t->rows) rt_free(mem, t->rows, sizeof(int) * nv);
    if (t->start) rt_free(mem, t->start, sizeof(int) * nv);
    if (t->end) rt_free(mem, t->end, sizeof(int) * nv);
    if (t->used) rt_free(mem, t->used, sizeof(size_t) * ns);
    if (t->reserved) rt_free(mem, t->reserved, sizeof(size_t) * ns);
    picture_vars_free(mem, &t->pv);
}

/* Rows, bars and the in-use figures. 0, or -1 when out of memory. */
static int timeline_init(rt_mem *mem, const compiled *c, timeline *t) {
    memset(t, 0, sizeof *t);
    t->c = c;
    t->n_steps = c->n_kernels > 0 ? c->n_kernels : 1;
    if (picture_vars_init(mem, c, &t->pv) != 0) return -1;
    size_t nv = t->pv.n_vars, ns = (size_t)t->n_steps;
    t->rows = rt_alloc(mem, sizeof(int) * nv);
    t->start = rt_alloc(mem, sizeof(int) * nv);
    t->end = rt_alloc(mem, sizeof(int) * nv);
    t->used = rt_calloc(mem, sizeof(size_t) * ns);
    t->reserved = rt_calloc(mem, sizeof(size_t) * ns);
    if (!t->rows || !t->start || !t->end || !t->used || !t->reserved) {
        timeline_free(mem, t);
        return -1;
    }
    const ir_func *ir = c->ir;
    int last = t->n_steps - 1;
    for (int i = 0; i < ir->n_in; i++) t->rows[t->n_rows++] = ir->in[i];
    for (int i = 0; i < ir->n_consts; i++) t->rows[t->n_rows++] = ir->consts[i].var;
    for (int k = 0; k < c->n_kernels; k++) /* what each kernel writes, in schedule order */
        for (int v = 0; v < ir->n_vars; v++)
            if ((c->home[v] == HOME_ARENA || c->home[v] == HOME_OUTPUT) && c->first_use[v] == k)
                t->rows[t->n_rows++] = v;
    for (int r = 0; r < t->n_rows; r++) {
        int v = t->rows[r];
        bool held = c->home[v] == HOME_INPUT || c->home[v] == HOME_CONST;
        t->start[v] = held ? 0 : c->first_use[v];
        t->end[v] = c->home[v] == HOME_OUTPUT ? last : c->last_use[v];
        if (held) t->base_bytes += nbytes(c, v);
    }
    for (int k = 0; k < t->n_steps; k++) {
        size_t outs = 0, temps = 0;
        int live = 0;
        for (int r = 0; r < t->n_rows; r++) {
            int v = t->rows[r];
            if (c->home[v] == HOME_OUTPUT && t->start[v] <= k && role_of(c, v) == ROLE_OUTPUT) outs += nbytes(c, v);
            if (c->home[v] != HOME_ARENA || t->start[v] > k || t->end[v] < k) continue;
            live++;
            temps += nbytes(c, v);
            /* a result that took its dying operand's block: one block */
            int u = t->start[v] == k ? plan_in_place_of(c, v) : -1;
            if (u >= 0) temps -= nbytes(c, u), live--;
        }
        t->used[k] = t->base_bytes + outs + temps;
        t->reserved[k] = t->base_bytes + outs + c->arena_bytes;
        if (t->used[k] > t->used[t->peak_step]) t->peak_step = k;
        if (live > t->max_live_temps) t->max_live_temps = live;
    }
    t->colw = t->n_steps <= 24 ? 96 : t->n_steps <= 60 ? 48 : t->n_steps <= 150 ? 24 : 12;
    return 0;
}

/* The visible label of a buffer's row: the operation that made it, its
 * type and size, and where it lives. */
static void row_label(const timeline *t, int v, char *buf, size_t n) {
    const compiled *c = t->c;
    char name[160], size[32];
    picture_var_str(c, &t->pv, v, name, sizeof name);
    picture_bytes(nbytes(c, v), size, sizeof size);
    int e = t->pv.def_eqn[v];
    switch (c->home[v]) {
    case HOME_INPUT: {
        int i = input_index(c, v);
        size_t len = (size_t)snprintf(buf, n, "%s \xc2\xb7 argument %d \xc2\xb7 %s", name, i, size);
        for (int o = 0; c->donor && o < c->ir->n_out && len < n; o++)
            if (c->donor[c->ir->out[o]] == i) {
                snprintf(buf + len, n - len, " \xc2\xb7 donated: holds output %d", o);
                break;
            }
        break;
    }
    case HOME_CONST: snprintf(buf, n, "%s \xc2\xb7 constant \xc2\xb7 %s", name, size); break;
    case HOME_ARENA: {
        size_t len = (size_t)snprintf(buf, n, "%s = %s \xc2\xb7 %s \xc2\xb7 @ %zu", name,
                                      e >= 0 ? prim_names[c->ir->eqns[e].prim] : "?", size, c->offset[v]);
        int u = plan_in_place_of(c, v);
        if (u >= 0 && len < n) {
            char un[40];
            picture_var_name(c, &t->pv, u, un, sizeof un);
            len += (size_t)snprintf(buf + len, n - len, " \xc2\xb7 in place of %s", un);
        }
        if (plan_host(c, v) >= 0 && len < n) {
            char hn[40];
            picture_var_name(c, &t->pv, plan_host(c, v), hn, sizeof hn);
            snprintf(buf + len, n - len, plan_shares_read_only(c, v) ? " \xc2\xb7 shares %s's buffer" : " \xc2\xb7 in output %s's buffer", hn);
        }
        break;
    }
    default: {
        size_t len = (size_t)snprintf(buf, n, "%s = %s \xc2\xb7 %s \xc2\xb7 output %d", name,
                                      e >= 0 ? prim_names[c->ir->eqns[e].prim] : "?", size, output_index(c, v));
        if (role_of(c, v) == ROLE_DONATED && len < n)
            snprintf(buf + len, n - len, " \xc2\xb7 in argument %d's buffer", c->donor[v]);
    }
    }
}

/* The hover text of a buffer: the full equation and its live range. */
static void row_title(const timeline *t, int v, strbuf *sb) {
    const compiled *c = t->c;
    char name[160], rhs[512];
    picture_var_str(c, &t->pv, v, name, sizeof name);
    int e = t->pv.def_eqn[v];
    if (e >= 0) {
        picture_eqn_rhs(c, &t->pv, e, rhs, sizeof rhs);
        sb_xml(sb, name);
        sb_printf(sb, " = ");
        sb_xml(sb, rhs);
    } else {
        sb_xml(sb, name);
    }
    sb_printf(sb, "\n%s, %zu bytes", roles[role_of(c, v)].name, nbytes(c, v));
    if (c->home[v] == HOME_ARENA && plan_host(c, v) >= 0) {
        char hn[40];
        picture_var_name(c, &t->pv, plan_host(c, v), hn, sizeof hn);
        if (plan_shares_read_only(c, v)) sb_printf(sb, " sharing ");
        else sb_printf(sb, " at offset %zu in output ", c->offset[v]);
        sb_xml(sb, hn);
        sb_printf(sb, "%s", plan_shares_read_only(c, v) ? "'s buffer" : "'s buffer (before it is written)");
    } else if (c->home[v] == HOME_ARENA) {
        sb_printf(sb, " at arena offset %zu", c->offset[v]);
    }
    if (t->end[v] < 0) sb_printf(sb, "\nnever read by a kernel");
    else if (c->home[v] == HOME_INPUT || c->home[v] == HOME_CONST)
        sb_printf(sb, "\nread until step %d; held throughout", t->end[v]);
    else if (c->home[v] == HOME_OUTPUT)
        sb_printf(sb, "\nwritten at step %d, returned to the caller", t->start[v]);
    else sb_printf(sb, "\nwritten at step %d, last read at step %d", t->start[v], t->end[v]);
}

static double step_x(const timeline *t, int k) { return LEFT + t->colw * k; }

static void bar(strbuf *sb, double x, double y, double w, double h, const role_style *st, double opacity) {
    sb_printf(sb, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" rx=\"2\" fill=\"%s\" stroke=\"%s\"",
              x, y, w > 1 ? w : 1, h > 1 ? h : 1, st->fill, st->stroke);
    if (opacity < 1) sb_printf(sb, " fill-opacity=\"%.2f\" stroke-opacity=\"%.2f\"", opacity, opacity);
    sb_printf(sb, "/>\n");
}

static void text(strbuf *sb, double x, double y, const char *attrs, const char *s) {
    sb_printf(sb, "<text x=\"%.1f\" y=\"%.1f\" %s>", x, y, attrs);
    sb_xml(sb, s);
    sb_printf(sb, "</text>\n");
}

/* The heading: the function, the analysis's totals, where in use peaks. */
typedef struct heading {
    int n;
    char line[5][400];
} heading;

static void make_heading(const timeline *t, const char *title, heading *h) {
    const compiled *c = t->c;
    const memory_analysis *m = &c->mem;
    char a[32], o[32], tmp[32], k[32], al[32], pk[32], use[32];
    picture_bytes(m->argument_bytes, a, sizeof a);
    picture_bytes(m->output_bytes, o, sizeof o);
    picture_bytes(m->temp_bytes, tmp, sizeof tmp);
    picture_bytes(m->constant_bytes, k, sizeof k);
    picture_bytes(m->alias_bytes, al, sizeof al);
    picture_bytes(m->peak_bytes, pk, sizeof pk);
    picture_bytes(t->used[t->peak_step], use, sizeof use);
    h->n = 0;
    snprintf(h->line[h->n++], sizeof h->line[0], "%s \xe2\x80\x94 memory timeline", title);
    snprintf(h->line[h->n++], sizeof h->line[0], "%d kernel%s, %d buffers \xc2\xb7 memory analysis: peak %s (%zu bytes)",
             c->n_kernels, c->n_kernels == 1 ? "" : "s", t->n_rows, pk, m->peak_bytes);
    snprintf(h->line[h->n++], sizeof h->line[0],
             "arguments %s, outputs %s, temporaries (arena) %s, constants %s, aliased (outputs in donated "
             "arguments) %s",
             a, o, tmp, k, al);
    snprintf(h->line[h->n++], sizeof h->line[0],
             "in use peaks at step %d with %s (%zu bytes); the program keeps its whole arena, so it holds %s "
             "once the last output is written",
             t->peak_step, use, t->used[t->peak_step], pk);
    if (c->dot_block_bytes) {
        picture_bytes(c->dot_block_bytes, tmp, sizeof tmp);
        snprintf(h->line[h->n++], sizeof h->line[0],
                 "plus up to %s of block scratch per call for matrix products with epilogues (outside the "
                 "analysis)",
                 tmp);
    }
}

static double heading_width(const heading *h) {
    double w = 0;
    for (int i = 0; i < h->n; i++) {
        double each = 16 + (i == 0 ? 10.5 : 6.6) * (double)strlen(h->line[i]) + 16;
        if (each > w) w = each;
    }
    return w;
}

static void draw_heading(const heading *h, strbuf *sb, double *y) {
    text(sb, 16, 28, "font-size=\"18\" font-weight=\"bold\"", h->line[0]);
    *y = 28;
    for (int i = 1; i < h->n; i++) {
        *y += 18;
        text(sb, 16, *y, i == 1 ? "font-size=\"12\"" : "font-size=\"12\" fill=\"#444\"", h->line[i]);
    }
    *y += 8;
}

#define RESERVED_NOTE "reserved (arguments, constants, whole arena, outputs so far)"

static double legend_width(void) {
    double x = 16;
    for (int r = 0; r < N_ROLES; r++) x += 28 + CHAR_W * (double)strlen(roles[r].name);
    return x + 23 + 7 * CHAR_W + 23 + CHAR_W * (double)strlen(RESERVED_NOTE) + 16;
}

static void draw_legend(strbuf *sb, double *y) {
    double x = 16, ly = *y + 8;
    sb_printf(sb, "<g id=\"legend\" font-size=\"11\">\n");
    for (int r = 0; r < N_ROLES; r++) {
        bar(sb, x, ly, 14, 12, &roles[r], 1);
        text(sb, x + 19, ly + 10, "", roles[r].name);
        x += 28 + CHAR_W * (double)strlen(roles[r].name);
    }
    sb_printf(sb, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c0392b\" stroke-width=\"2\"/>\n",
              x, ly + 6, x + 18, ly + 6);
    text(sb, x + 23, ly + 10, "", "in use");
    x += 23 + 7 * CHAR_W;
    sb_printf(sb, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#555\" stroke-width=\"1.5\" "
                  "stroke-dasharray=\"5,3\"/>\n",
              x, ly + 6, x + 18, ly + 6);
    text(sb, x + 23, ly + 10, "", RESERVED_NOTE);
    sb_printf(sb, "</g>\n");
    *y = ly + 24;
}

/* Step numbers and kernel kinds, each with its kernel's equations as
 * hover text. */
static void draw_steps(const timeline *t, strbuf *sb, double y) {
    const compiled *c = t->c;
    int every = t->colw >= 24 ? 1 : 5;
    sb_printf(sb, "<g id=\"steps\" font-size=\"10\" text-anchor=\"middle\">\n");
    text(sb, LEFT - 8, y + 14, "text-anchor=\"end\" fill=\"#444\"", "kernel step");
    if (c->n_kernels == 0) text(sb, step_x(t, 0) + t->colw / 2, y + 14, "", "(no kernels)");
    for (int k = 0; k < c->n_kernels; k++) {
        const kernel *K = &c->kernels[k];
        char buf[512], sp[96];
        rt_aval_str(&K->space, sp, sizeof sp);
        sb_printf(sb, "<g><title>kernel %d: %s %s, %d equation%s", k, kernel_kind_name(K->kind), sp, K->n_eqns,
                  K->n_eqns == 1 ? "" : "s");
        for (int j = 0; j < K->n_eqns && j < 40; j++) {
            char rhs[512];
            int e = K->eqns[j];
            picture_eqn_lhs(c, &t->pv, e, buf, sizeof buf);
            picture_eqn_rhs(c, &t->pv, e, rhs, sizeof rhs);
            sb_printf(sb, "\n");
            sb_xml(sb, buf);
            sb_printf(sb, " = ");
            sb_xml(sb, rhs);
        }
        if (K->n_eqns > 40) sb_printf(sb, "\n... %d more", K->n_eqns - 40);
        sb_printf(sb, "</title>\n");
        double cx = step_x(t, k) + t->colw / 2;
        sb_printf(sb, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#fff\" fill-opacity=\"0\"/>\n",
                  step_x(t, k), y, t->colw, HEADER_H);
        const char *colour = k == t->peak_step ? "fill=\"#c0392b\" font-weight=\"bold\"" : "";
        if (k % every == 0 || k == t->peak_step) {
            snprintf(buf, sizeof buf, "%d", k);
            text(sb, cx, y + 14, colour, buf);
        }
        if (t->colw >= 48)
            text(sb, cx, y + 28, "fill=\"#666\"", K->kind == KERNEL_DOT_EPILOGUE ? "dot+ep" : kernel_kind_name(K->kind));
        sb_printf(sb, "</g>\n");
    }
    sb_printf(sb, "</g>\n");
}

/* Temporaries at their arena offsets. */
static void draw_arena(const timeline *t, strbuf *sb, double *y) {
    const compiled *c = t->c;
    char line[200], sz[32];
    picture_bytes(c->arena_bytes, sz, sizeof sz);
    snprintf(line, sizeof line, "arena: %s (%zu bytes), temporaries at their offsets", sz, c->arena_bytes);
    text(sb, 16, *y + 13, "font-size=\"12\" font-weight=\"bold\"", line);
    *y += 20;
    if (c->arena_bytes == 0) {
        text(sb, LEFT, *y + 12, "font-size=\"11\" fill=\"#666\"", "no temporaries: every value between kernels is "
                                                               "an argument, a constant or an output");
        *y += 22;
        return;
    }
    double h = 14.0 * t->max_live_temps;
    h = h < 160 ? 160 : h > 900 ? 900 : h;
    double scale = h / (double)c->arena_bytes;
    sb_printf(sb, "<g id=\"arena\" font-size=\"10\">\n");
    sb_printf(sb, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#bbb\"/>\n", LEFT,
              *y, t->colw * t->n_steps, h);
    text(sb, LEFT - 6, *y + 9, "text-anchor=\"end\" fill=\"#444\"", "offset 0");
    text(sb, LEFT - 6, *y + h, "text-anchor=\"end\" fill=\"#444\"", sz);
    for (int r = 0; r < t->n_rows; r++) {
        int v = t->rows[r];
        if (c->home[v] != HOME_ARENA || plan_host(c, v) >= 0) continue; /* (one in an output's buffer is not here) */
        double x = step_x(t, t->start[v]) + 1, w = t->colw * (t->end[v] - t->start[v] + 1) - 2;
        double by = *y + scale * (double)c->offset[v], bh = scale * (double)nbytes(c, v);
        sb_printf(sb, "<g><title>");
        row_title(t, v, sb);
        sb_printf(sb, "</title>\n");
        bar(sb, x, by, w, bh < 2 ? 2 : bh, &roles[ROLE_TEMPORARY], 1);
        char name[160], op[200];
        picture_var_name(c, &t->pv, v, name, sizeof name);
        int e = t->pv.def_eqn[v];
        snprintf(op, sizeof op, "%s = %s", name, e >= 0 ? prim_names[c->ir->eqns[e].prim] : "?");
        const char *label = CHAR_W * (double)strlen(op) + 6 <= w ? op : CHAR_W * (double)strlen(name) + 6 <= w ? name : NULL;
        if (label && bh >= 7) {
            char font[32];
            snprintf(font, sizeof font, "font-size=\"%d\"", bh >= 12 ? 10 : (int)bh - 2);
            text(sb, x + 3, by + (bh >= 12 ? 11 : bh - 1.5), font, label);
        }
        sb_printf(sb, "</g>\n");
    }
    sb_printf(sb, "</g>\n");
    *y += h + 8;
}

/* One row per buffer, labelled. */
static void draw_rows(const timeline *t, strbuf *sb, double *y) {
    const compiled *c = t->c;
    text(sb, 16, *y + 13, "font-size=\"12\" font-weight=\"bold\"", "buffers over their live ranges");
    *y += 20;
    sb_printf(sb, "<g id=\"buffers\" font-size=\"11\">\n");
    for (int r = 0; r < t->n_rows; r++) {
        int v = t->rows[r];
        double ry = *y + ROW_H * r;
        const role_style *st = &roles[role_of(c, v)];
        char label[400], role[40];
        sb_printf(sb, "<g><title>");
        row_title(t, v, sb);
        sb_printf(sb, "</title>\n");
        if (c->home[v] == HOME_INPUT || c->home[v] == HOME_CONST) {
            /* held for the whole call; solid while kernels still read it */
            bar(sb, LEFT + 1, ry + 2, t->colw * t->n_steps - 2, ROW_H - 4, st, 0.35);
            if (t->end[v] >= 0) bar(sb, LEFT + 1, ry + 2, t->colw * (t->end[v] + 1) - 2, ROW_H - 4, st, 1);
        } else {
            bar(sb, step_x(t, t->start[v]) + 1, ry + 2, t->colw * (t->end[v] - t->start[v] + 1) - 2, ROW_H - 4, st, 1);
        }
        row_label(t, v, label, sizeof label);
        text(sb, step_x(t, t->start[v] >= 0 ? t->start[v] : 0) + 4, ry + 13, "", label);
        if (c->home[v] == HOME_INPUT) snprintf(role, sizeof role, "argument %d", input_index(c, v));
        else if (c->home[v] == HOME_OUTPUT) snprintf(role, sizeof role, "output %d", output_index(c, v));
        else snprintf(role, sizeof role, "%s", c->home[v] == HOME_CONST ? "constant" : "temporary");
        text(sb, LEFT - 6, ry + 13, "text-anchor=\"end\" fill=\"#666\"", role);
        sb_printf(sb, "</g>\n");
    }
    sb_printf(sb, "</g>\n");
    *y += ROW_H * t->n_rows + 8;
}

/* Memory in use and reserved per step, the peak marked. */
static void draw_memory(const timeline *t, strbuf *sb, double *y) {
    const compiled *c = t->c;
    text(sb, 16, *y + 13, "font-size=\"12\" font-weight=\"bold\"", "memory per step");
    *y += 20;
    size_t top = c->mem.peak_bytes;
    for (int k = 0; k < t->n_steps; k++) {
        if (t->reserved[k] > top) top = t->reserved[k];
        if (t->used[k] > top) top = t->used[k];
    }
    if (!top) top = 1;
    double y0 = *y + MEM_H, scale = MEM_H / (double)top, right = step_x(t, t->n_steps);
    char sz[32], line[200];
    sb_printf(sb, "<g id=\"memory\" font-size=\"10\">\n");
    sb_printf(sb, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>\n", LEFT, y0, right, y0);
    text(sb, LEFT - 6, y0, "text-anchor=\"end\" fill=\"#444\"", "0");
    picture_bytes(top, sz, sizeof sz);
    text(sb, LEFT - 6, *y + 9, "text-anchor=\"end\" fill=\"#444\"", sz);
    /* in use: a filled step curve */
    sb_printf(sb, "<polygon fill=\"#c0392b\" fill-opacity=\"0.12\" stroke=\"#c0392b\" stroke-width=\"2\" points=\"");
    sb_printf(sb, "%.1f,%.1f", LEFT, y0);
    for (int k = 0; k < t->n_steps; k++) {
        double yy = y0 - scale * (double)t->used[k];
        sb_printf(sb, " %.1f,%.1f %.1f,%.1f", step_x(t, k), yy, step_x(t, k + 1), yy);
    }
    sb_printf(sb, " %.1f,%.1f\"/>\n", right, y0);
    /* reserved */
    sb_printf(sb, "<g id=\"reserved\" data-peak-bytes=\"%zu\"><title>reserved: arguments, constants, the whole arena "
                  "and the outputs written so far</title>\n<polyline fill=\"none\" stroke=\"#555\" "
                  "stroke-width=\"1.5\" stroke-dasharray=\"5,3\" points=\"",
              t->reserved[t->n_steps - 1]);
    for (int k = 0; k < t->n_steps; k++) {
        double yy = y0 - scale * (double)t->reserved[k];
        sb_printf(sb, "%s%.1f,%.1f %.1f,%.1f", k ? " " : "", step_x(t, k), yy, step_x(t, k + 1), yy);
    }
    sb_printf(sb, "\"/>\n</g>\n");
    /* the analysis's figure, for comparison */
    double ay = y0 - scale * (double)c->mem.peak_bytes;
    picture_bytes(c->mem.peak_bytes, sz, sizeof sz);
    snprintf(line, sizeof line, "memory analysis peak %s", sz);
    sb_printf(sb, "<g id=\"analysis-peak\" data-bytes=\"%zu\">\n", c->mem.peak_bytes);
    sb_printf(sb, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#555\" stroke-width=\"0.8\"/>\n",
              LEFT, ay, right + 6, ay);
    text(sb, right + 10, ay + 4, "fill=\"#444\"", line);
    sb_printf(sb, "</g>\n");
    /* hover per step */
    for (int k = 0; k < t->n_steps; k++) {
        sb_printf(sb, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#fff\" fill-opacity=\"0\">"
                      "<title>step %d: in use %zu bytes, reserved %zu bytes</title></rect>\n",
                  step_x(t, k), *y, t->colw, MEM_H, k, t->used[k], t->reserved[k]);
    }
    /* the peak */
    int pk = t->peak_step;
    double px = step_x(t, pk) + t->colw / 2, py = y0 - scale * (double)t->used[pk];
    picture_bytes(t->used[pk], sz, sizeof sz);
    snprintf(line, sizeof line, "peak in use: %s (%zu bytes) at step %d", sz, t->used[pk], pk);
    sb_printf(sb, "<g id=\"peak-in-use\" data-step=\"%d\" data-bytes=\"%zu\">\n", pk, t->used[pk]);
    sb_printf(sb, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\" fill=\"#c0392b\"/>\n", px, py);
    /* below the point, inside the curve's light fill, clear of the lines
     * along the top */
    /* left of the point when it fits there, keeping the label over the curve */
    bool left = pk > t->n_steps / 2 && px - 8 - 6.6 * (double)strlen(line) >= LEFT;
    text(sb, left ? px - 8 : px + 8, py + 16 < y0 - 4 ? py + 16 : y0 - 4,
         left ? "text-anchor=\"end\" font-size=\"11\" font-weight=\"bold\" fill=\"#c0392b\""
              : "font-size=\"11\" font-weight=\"bold\" fill=\"#c0392b\"",
         line);
    sb_printf(sb, "</g>\n</g>\n");
    *y = y0 + 8;
}

void picture_svg_text(cj_ctx *ctx, const compiled *c, const char *title, strbuf *sb) {
    timeline t;
    if (timeline_init(ctx->mem, c, &t) != 0) {
        sb->failed = 1;
        return;
    }
    /* the size first: the widest label decides the width */
    double width = LEFT + t.colw * t.n_steps + 260;
    char label[400];
    for (int r = 0; r < t.n_rows; r++) {
        int v = t.rows[r];
        row_label(&t, v, label, sizeof label);
        double end = step_x(&t, t.start[v] >= 0 ? t.start[v] : 0) + 4 + CHAR_W * (double)strlen(label) + 16;
        if (end > width) width = end;
    }
    heading head;
    make_heading(&t, title, &head);
    if (heading_width(&head) > width) width = heading_width(&head);
    if (legend_width() > width) width = legend_width();
    if (width < 980) width = 980;
    double arena_h = c->arena_bytes ? 14.0 * t.max_live_temps : 0;
    arena_h = c->arena_bytes ? (arena_h < 160 ? 160 : arena_h > 900 ? 900 : arena_h) + 8 : 22;
    double height = 36 + 18.0 * head.n + 32 + HEADER_H + 20 + arena_h + 20 + ROW_H * t.n_rows + 8 + 20 + MEM_H + 8 + 30;

    sb_printf(sb, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    sb_printf(sb, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
                  "font-family=\"Helvetica, Arial, sans-serif\">\n",
              width, height, width, height);
    sb_printf(sb, "<title>");
    sb_xml(sb, title);
    sb_printf(sb, " \xe2\x80\x94 memory timeline</title>\n");
    sb_printf(sb, "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n");
    double y;
    draw_heading(&head, sb, &y);
    draw_legend(sb, &y);
    /* column stripes and the peak's column behind everything below */
    double top = y;
    sb_printf(sb, "<g id=\"columns\">\n");
    for (int k = 0; k < t.n_steps; k++) {
        const char *fill = k == t.peak_step ? "#c0392b\" fill-opacity=\"0.08" : k % 2 ? "#f3f3f3" : "#fafafa";
        sb_printf(sb, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n", step_x(&t, k),
                  top, t.colw, height - top - 30, fill);
    }
    sb_printf(sb, "</g>\n");
    draw_steps(&t, sb, y);
    y += HEADER_H;
    draw_arena(&t, sb, &y);
    draw_rows(&t, sb, &y);
    draw_memory(&t, sb, &y);
    text(sb, LEFT, y + 16, "font-size=\"11\" fill=\"#444\"",
         "x: kernels in schedule order (hover a step, bar or curve for details)");
    sb_printf(sb, "</svg>\n");
    timeline_free(ctx->mem, &t);
}
