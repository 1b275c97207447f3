/* compiler.c — the pipeline: one function calling named passes in order
 * (compiler layer).
 *
 *   copy → simplify → fuse → schedule (fusion order or greedy, the lower
 *   peak) → plan → analyse
 *
 * The IR is verified after each IR-to-IR pass. CJAX_DUMP (a comma list of
 * simplify, fuse, schedule, plan, c) prints the program after those passes
 * to stderr; its values svg and dot write pictures of each program jit
 * prepares to files (compiler_dump_pictures, called by jit, which knows
 * the function's name and has planned its donations). */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes.h"
#include "picture.h"
#include "program.h"

/* Does the CJAX_DUMP list name `what` (or `all`, when it counts)? */
static bool dump_list_names(const char *what, bool all_counts) {
    const char *d = rt_config_get()->dump;
    size_t n = strlen(what);
    for (const char *p = d; p && *p;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if ((len == n && !strncmp(p, what, n)) || (all_counts && len == 3 && !strncmp(p, "all", 3))) return true;
        p = comma ? comma + 1 : NULL;
    }
    return false;
}

bool compiler_dump_wants(const char *what) { return dump_list_names(what, true); }

void compiler_dump_pictures(cj_ctx *ctx, const compiled *c, const char *title) {
    static const struct {
        const char *ext;
        picture_fn draw;
    } kinds[] = {{"svg", picture_svg_text}, {"dot", picture_dot_text}};
    static atomic_int pictures; /* numbers the programs pictured in this process */
    /* pictures are files, so `all` (which prints text) does not write
     * them: only svg and dot named in the list do */
    bool svg = dump_list_names("svg", false), dot = dump_list_names("dot", false);
    if (!svg && !dot) return;
    int n = atomic_fetch_add(&pictures, 1) + 1;
    /* the function's name as a file name: jit(loss) → jit_loss */
    char name[96];
    size_t len = 0;
    for (const char *p = title; *p && len + 1 < sizeof name; p++) {
        bool plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '-' ||
                     *p == '.';
        if (plain) name[len++] = *p;
        else if (len && name[len - 1] != '_') name[len++] = '_';
    }
    while (len && name[len - 1] == '_') len--;
    name[len] = 0;
    const char *dir = rt_config_get()->dump_dir;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        if (!(i == 0 ? svg : dot)) continue;
        char path[4096], why[160];
        snprintf(path, sizeof path, "%s/cjax-%s-%d.%s", dir, len ? name : "program", n, kinds[i].ext);
        strbuf sb;
        sb_init(&sb, ctx->mem);
        kinds[i].draw(ctx, c, title, &sb);
        if (sb.failed || !sb.data) fprintf(stderr, "cjax: CJAX_DUMP=%s: out of memory drawing %s\n", kinds[i].ext, title);
        else if (picture_save(sb.data, sb.len, path, why, sizeof why) != 0)
            fprintf(stderr, "cjax: CJAX_DUMP=%s: cannot write '%s': %s\n", kinds[i].ext, path, why);
        else fprintf(stderr, "cjax: %s of %s written to %s\n", i == 0 ? "memory timeline" : "program graph", title, path);
        sb_free(&sb);
    }
}

static void dump_ir(const ir_func *ir, const char *after) {
    strbuf sb;
    sb_init(&sb, ir->mem);
    ir_print(ir, &sb);
    if (sb.data) fprintf(stderr, "cjax: IR after %s:\n%s", after, sb.data);
    sb_free(&sb);
}

void compiled_free(cj_ctx *ctx, compiled *c) {
    if (!c) return;
    size_t nv = c->ir ? (size_t)c->ir->n_vars + 1 : 0;
    for (int k = 0; k < c->n_kernels; k++) {
        kernel *K = &c->kernels[k];
        if (K->eqns) rt_free(ctx->mem, K->eqns, sizeof(int) * (size_t)K->cap_eqns);
        if (K->in) rt_free(ctx->mem, K->in, sizeof(int) * (size_t)K->n_in);
        if (K->out) rt_free(ctx->mem, K->out, sizeof(int) * (size_t)K->n_out);
    }
    if (c->kernels) rt_free(ctx->mem, c->kernels, sizeof(kernel) * (size_t)(c->ir->n_eqns ? c->ir->n_eqns : 1));
    if (c->kernel_of) rt_free(ctx->mem, c->kernel_of, sizeof(int) * nv);
    if (c->home) rt_free(ctx->mem, c->home, sizeof(var_home) * nv);
    if (c->offset) rt_free(ctx->mem, c->offset, sizeof(size_t) * nv);
    if (c->first_use) rt_free(ctx->mem, c->first_use, sizeof(int) * nv);
    if (c->last_use) rt_free(ctx->mem, c->last_use, sizeof(int) * nv);
    if (c->donor) rt_free(ctx->mem, c->donor, sizeof(int) * nv);
    ir_free(c->ir);
    rt_free(ctx->mem, c, sizeof *c);
}

compiled *compile_ir(cj_ctx *ctx, const ir_func *ir) {
    compiled *c = rt_calloc(ctx->mem, sizeof *c);
    if (!c) {
        core_oom(ctx, "jit: compile");
        return NULL;
    }
    c->ir = ir_copy(ir);
    if (!c->ir) {
        rt_free(ctx->mem, c, sizeof *c);
        core_oom(ctx, "jit: compile");
        return NULL;
    }
    static const struct {
        const char *name;
        ir_pass_fn fn;
    } ir_passes[] = {{"inline", pass_inline_custom}, {"simplify", pass_simplify}};
    for (size_t i = 0; i < sizeof ir_passes / sizeof ir_passes[0]; i++) {
        if (ir_passes[i].fn(ctx, &c->ir) != 0 || ir_verify(ctx, c->ir) != 0) goto fail;
        if (compiler_dump_wants(ir_passes[i].name)) dump_ir(c->ir, ir_passes[i].name);
    }
    if (fuse_kernels(ctx, c) != 0) goto fail;
    if (schedule_kernels(ctx, c) != 0) goto fail;
    if (fuse_dot_epilogues(ctx, c) != 0) goto fail;
    if (plan_buffers(ctx, c) != 0) goto fail;
    analyse_program(c);
    if (compiler_dump_wants("fuse") || compiler_dump_wants("schedule") || compiler_dump_wants("plan")) {
        strbuf sb;
        sb_init(&sb, ctx->mem);
        compiled_dump(c, compiler_dump_wants("plan") ? "fuse,plan" : "fuse", &sb);
        if (sb.data) fputs(sb.data, stderr);
        sb_free(&sb);
    }
    return c;
fail:
    compiled_free(ctx, c);
    return NULL;
}

/* ---- dump ---- */
/* A variable's name as the IR printer spells it; rank-0 constants, which
 * the printer shows inline, are spelled as their value. */
static void var_name(const compiled *c, const int *names, int v, char *buf, size_t n) {
    for (int i = 0; i < c->ir->n_consts; i++) {
        const rt_array *a = c->ir->consts[i].val;
        if (c->ir->consts[i].var == v && a->aval.rank == 0) {
            snprintf(buf, n, "%g", rt_get_f64(a->aval.dtype, a->data, 0));
            return;
        }
    }
    char name[16];
    ir_name_str(names[v], name);
    snprintf(buf, n, "%s", name);
}

static void var_str(const compiled *c, const int *names, int v, char *buf, size_t n) {
    char name[40], t[96];
    var_name(c, names, v, name, sizeof name);
    rt_aval_str(&c->ir->vars[v], t, sizeof t);
    snprintf(buf, n, "%s:%s", name, t);
}

void compiled_dump(const compiled *c, const char *what, strbuf *sb) {
    const ir_func *ir = c->ir;
    int *names = rt_alloc(ir->mem, sizeof(int) * ((size_t)ir->n_vars + 1));
    if (!names) {
        sb->failed = 1;
        return;
    }
    ir_var_ordinals(ir, names);
    char buf[160], nm[40];
    if (strstr(what, "fuse") || strstr(what, "schedule")) {
        sb_printf(sb, "kernels (%d), schedule: %s:\n", c->n_kernels, schedule_heuristic(c));
        for (int k = 0; k < c->n_kernels; k++) {
            const kernel *K = &c->kernels[k];
            rt_aval_str(&K->space, buf, sizeof buf);
            sb_printf(sb, "  kernel %d %s %s, %d equation%s\n", k, kernel_kind_name(K->kind), buf,
                      K->n_eqns, K->n_eqns == 1 ? "" : "s");
            sb_printf(sb, "    reads:");
            for (int i = 0; i < K->n_in; i++) {
                var_name(c, names, K->in[i], nm, sizeof nm);
                sb_printf(sb, " %s", nm);
            }
            sb_printf(sb, "\n    writes:");
            for (int i = 0; i < K->n_out; i++) {
                var_name(c, names, K->out[i], nm, sizeof nm);
                sb_printf(sb, " %s", nm);
            }
            sb_printf(sb, "\n");
            for (int j = 0; j < K->n_eqns; j++) {
                const ir_eqn *e = &ir->eqns[K->eqns[j]];
                sb_printf(sb, "   ");
                for (int r = 0; r < e->n_out; r++) {
                    var_str(c, names, e->out + r, buf, sizeof buf);
                    sb_printf(sb, " %s", buf);
                }
                sb_printf(sb, " = %s", prim_names[e->prim]);
                const int *in = ir_eqn_inputs(ir, e);
                for (int i = 0; i < e->n_in; i++) {
                    var_name(c, names, in[i], nm, sizeof nm);
                    sb_printf(sb, " %s", nm);
                }
                sb_printf(sb, "\n");
            }
        }
    }
    if (strstr(what, "plan")) {
        sb_printf(sb, "buffers (arena %zu bytes):\n", c->arena_bytes);
        static const char *home_names[] = {"none", "argument", "constant", "temporary", "output"};
        for (int v = 0; v < ir->n_vars; v++) {
            if (c->home[v] == HOME_NONE) continue;
            var_str(c, names, v, buf, sizeof buf);
            sb_printf(sb, "  %-24s %-9s %10zu bytes", buf, home_names[c->home[v]], rt_aval_nbytes(&ir->vars[v]));
            if (c->home[v] == HOME_ARENA) sb_printf(sb, " @ %zu", c->offset[v]);
            if (plan_in_place_of(c, v) >= 0) {
                var_name(c, names, plan_in_place_of(c, v), nm, sizeof nm);
                sb_printf(sb, " (in place of %s)", nm);
            }
            if (c->first_use[v] >= 0) sb_printf(sb, "  live kernels %d..%d", c->first_use[v], c->last_use[v]);
            sb_printf(sb, "\n");
        }
        const memory_analysis *m = &c->mem;
        sb_printf(sb, "memory: arguments %zu, outputs %zu, temporaries %zu, constants %zu, peak %zu bytes\n",
                  m->argument_bytes, m->output_bytes, m->temp_bytes, m->constant_bytes, m->peak_bytes);
    }
    rt_free(ir->mem, names, sizeof(int) * ((size_t)ir->n_vars + 1));
}

