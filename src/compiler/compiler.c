/* compiler.c — the pipeline: one table of named passes, run in order by
 * one loop (compiler layer).
 *
 *   copy → inline → hoist → simplify → fuse → schedule → epilogue → plan → analyse
 *        → donate
 *
 * Every pass has the signature compiler_pass_fn and works on the compiled
 * form; the IR passes (inline, hoist, simplify) replace c->ir, the later ones
 * build kernels and the plan around it. The table records the form each
 * pass leaves (c->stage), which says what the verifier checks and what a
 * dump shows. After each pass the loop verifies the program — the IR
 * always, the kernel form and plan (verify.c) in debug builds, in the tests
 * and under CJAX_VERIFY=1 — and dumps it when CJAX_DUMP names the pass
 * ("all": every pass; "c", the generated source, is printed by the
 * backend). Tests run the pipeline up to a named pass (compile_ir_until).
 * CJAX_DUMP's values svg and dot write pictures of each program jit
 * prepares to files (compiler_dump_pictures, called by jit, which knows
 * the function's name). */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes.h"
#include "picture.h"
#include "program.h"

/* ---- the passes ---- */
static int run_inline(cj_ctx *ctx, compiled *c, const compile_options *o) {
    (void)o;
    return pass_inline_custom(ctx, &c->ir);
}
static int run_hoist(cj_ctx *ctx, compiled *c, const compile_options *o) {
    (void)o; /* a scan's carry-independent work before its loop */
    return pass_hoist(ctx, &c->ir);
}
static int run_simplify(cj_ctx *ctx, compiled *c, const compile_options *o) {
    (void)o; /* folding, identities, CSE and DCE to a fixed point, one pass */
    return pass_simplify(ctx, &c->ir);
}
static int run_fuse(cj_ctx *ctx, compiled *c, const compile_options *o) {
    if (fuse_kernels(ctx, c) != 0) return -1;
    return o->no_recompute ? 0 : fuse_recompute(ctx, c);
}
static int run_schedule(cj_ctx *ctx, compiled *c, const compile_options *o) {
    (void)o;
    return schedule_kernels(ctx, c);
}
static int run_epilogue(cj_ctx *ctx, compiled *c, const compile_options *o) {
    (void)o;
    return fuse_dot_epilogues(ctx, c);
}
/* with the donations it will be asked for: a donated input's buffer holds
 * temporaries only after its last read */
static int run_plan(cj_ctx *ctx, compiled *c, const compile_options *o) {
    return plan_buffers_donated(ctx, c, o->donated);
}
static int run_analyse(cj_ctx *ctx, compiled *c, const compile_options *o) {
    (void)o;
    return analyse_program(ctx, c);
}
/* after the analysis, which it corrects for the outputs that need no array */
static int run_donate(cj_ctx *ctx, compiled *c, const compile_options *o) {
    return plan_donations(ctx, c, o->donated);
}

static const struct {
    const char *name;
    compiler_pass_fn fn;
    compile_stage leaves; /* the form of the program after it */
} passes[] = {
    {"inline", run_inline, STAGE_IR},         {"hoist", run_hoist, STAGE_IR},
    {"simplify", run_simplify, STAGE_IR},
    {"fuse", run_fuse, STAGE_KERNELS},        {"schedule", run_schedule, STAGE_KERNELS},
    {"epilogue", run_epilogue, STAGE_KERNELS}, {"plan", run_plan, STAGE_PLANNED},
    {"analyse", run_analyse, STAGE_ANALYSED}, {"donate", run_donate, STAGE_DONATED},
};
#define N_PASSES ((int)(sizeof passes / sizeof passes[0]))

int compiler_n_passes(void) { return N_PASSES; }
const char *compiler_pass_name(int i) { return i >= 0 && i < N_PASSES ? passes[i].name : NULL; }

static int pass_index(const char *name, size_t len) {
    for (int i = 0; i < N_PASSES; i++)
        if (strlen(passes[i].name) == len && !strncmp(passes[i].name, name, len)) return i;
    return -1;
}

/* "inline, simplify, ..., donate" for messages. */
static void pass_list(char *buf, size_t n) {
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; i < N_PASSES && len < n; i++) {
        int w = snprintf(buf + len, n - len, "%s%s", i ? ", " : "", passes[i].name);
        if (w > 0) len += (size_t)w;
    }
}

bool compiler_verify_default(void) {
#ifndef NDEBUG
    return true;
#else
    return rt_config_get()->verify;
#endif
}

/* Does the comma list name `what` (or `all`, when it counts)? */
static bool list_names(const char *list, const char *what, bool all_counts) {
    size_t n = strlen(what);
    for (const char *p = list; p && *p;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if ((len == n && !strncmp(p, what, n)) || (all_counts && len == 3 && !strncmp(p, "all", 3))) return true;
        p = comma ? comma + 1 : NULL;
    }
    return false;
}

static bool dump_list_names(const char *what, bool all_counts) {
    return list_names(rt_config_get()->dump, what, all_counts);
}

bool compiler_dump_wants(const char *what) { return dump_list_names(what, true); }

/* The first item of a dump list that is neither a pass nor c, svg, dot or
 * all (its length in *len), or NULL. */
static const char *unknown_dump_item(const char *list, size_t *len) {
    static const char *const others[] = {"all", "c", "svg", "dot"};
    for (const char *p = list; p && *p;) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        bool known = n == 0 || pass_index(p, n) >= 0;
        for (size_t i = 0; i < sizeof others / sizeof others[0] && !known; i++)
            known = strlen(others[i]) == n && !strncmp(p, others[i], n);
        if (!known) {
            *len = n;
            return p;
        }
        p = comma ? comma + 1 : NULL;
    }
    return NULL;
}

/* A misspelt CJAX_DUMP item would silently dump nothing: say so, once per
 * process. */
static void warn_unknown_env_dump_item(void) {
    static atomic_int warned;
    size_t n;
    const char *bad = unknown_dump_item(rt_config_get()->dump, &n);
    if (!bad || atomic_exchange(&warned, 1)) return;
    char known[160];
    pass_list(known, sizeof known);
    fprintf(stderr, "cjax: CJAX_DUMP: no pass named '%.*s' (the passes are %s; also c, svg, dot, all)\n",
            (int)(n < 64 ? n : 64), bad, known);
}

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

/* The program as the last pass left it: the IR before fusion, then the
 * kernels, then the buffers too. */
static void dump_after(const compiled *c, const char *pass, strbuf *sb) {
    sb_printf(sb, "cjax: after %s:\n", pass);
    if (c->stage <= STAGE_IR) ir_print(c->ir, sb);
    else compiled_dump(c, c->stage >= STAGE_PLANNED ? "fuse,plan" : "fuse", sb);
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
    if (c->ws_offset) rt_free(ctx->mem, c->ws_offset, sizeof(size_t) * (size_t)c->ws_kernels);
    if (c->ws_bytes) rt_free(ctx->mem, c->ws_bytes, sizeof(size_t) * (size_t)c->ws_kernels);
    for (int e = 0; c->composed && e < c->ir->n_eqns; e++)
        if (c->composed[e]) rt_free(ctx->mem, c->composed[e], sizeof(prim_index_map) * (size_t)c->ir->eqns[e].n_in);
    if (c->composed)
        rt_free(ctx->mem, c->composed, sizeof(prim_index_map *) * (size_t)(c->ir->n_eqns ? c->ir->n_eqns : 1));
    if (c->home) rt_free(ctx->mem, c->home, sizeof(var_home) * nv);
    if (c->offset) rt_free(ctx->mem, c->offset, sizeof(size_t) * nv);
    if (c->first_use) rt_free(ctx->mem, c->first_use, sizeof(int) * nv);
    if (c->last_use) rt_free(ctx->mem, c->last_use, sizeof(int) * nv);
    if (c->donor) rt_free(ctx->mem, c->donor, sizeof(int) * nv);
    if (c->host) rt_free(ctx->mem, c->host, sizeof(int) * nv);
    ir_free(c->ir);
    rt_free(ctx->mem, c, sizeof *c);
}

/* Runs passes 0..last over c, verifying and dumping after each. */
static int run_passes(cj_ctx *ctx, compiled *c, int last, const compile_options *o) {
    bool verify = o->verify || compiler_verify_default();
    const char *dump = o->dump ? o->dump : rt_config_get()->dump;
    for (int i = 0; i <= last; i++) {
        if (passes[i].fn(ctx, c, o) != 0) return -1;
        c->stage = passes[i].leaves;
        if (o->after_pass && o->after_pass(ctx, c, passes[i].name, o->arg) != 0) return -1;
        /* the IR is always verified, as it was before the kernel form existed */
        if ((verify || c->stage == STAGE_IR) && compiled_verify(ctx, c, passes[i].name) != 0) return -1;
        if (!list_names(dump, passes[i].name, true)) continue;
        strbuf sb, *to = o->dump_to ? o->dump_to : &sb;
        if (!o->dump_to) sb_init(&sb, ctx->mem);
        dump_after(c, passes[i].name, to);
        if (!o->dump_to) {
            if (sb.data) fputs(sb.data, stderr);
            sb_free(&sb);
        }
    }
    return 0;
}

compiled *compile_ir_until(cj_ctx *ctx, const ir_func *ir, const char *last, const compile_options *opts) {
    const compile_options none = {0};
    const compile_options *o = opts ? opts : &none;
    int upto = last ? pass_index(last, strlen(last)) : N_PASSES - 1;
    if (upto < 0) {
        char known[160];
        pass_list(known, sizeof known);
        core_error(ctx, CJ_ERR_ARG, "compile: no pass named '%.64s' (the passes are %s)", last, known);
        return NULL;
    }
    size_t bad_len;
    const char *bad = o->dump ? unknown_dump_item(o->dump, &bad_len) : NULL;
    if (bad) {
        char known[160];
        pass_list(known, sizeof known);
        core_error(ctx, CJ_ERR_ARG, "compile: no pass named '%.*s' to dump after (the passes are %s; also c, all)",
                   (int)(bad_len < 64 ? bad_len : 64), bad, known);
        return NULL;
    }
    if (!o->dump) warn_unknown_env_dump_item();
    compiled *c = rt_calloc(ctx->mem, sizeof *c);
    if (!c) {
        core_oom(ctx, "jit: compile");
        return NULL;
    }
    c->no_output_scratch = o->no_output_scratch;
    c->no_cols = o->no_cols;
    c->ir = ir_copy(ir);
    if (!c->ir) {
        rt_free(ctx->mem, c, sizeof *c);
        core_oom(ctx, "jit: compile");
        return NULL;
    }
    if (run_passes(ctx, c, upto, o) != 0) {
        compiled_free(ctx, c);
        return NULL;
    }
    return c;
}

compiled *compile_ir(cj_ctx *ctx, const ir_func *ir) { return compile_ir_until(ctx, ir, NULL, NULL); }

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
            if (c->home[v] == HOME_ARENA && plan_host(c, v) >= 0) {
                var_name(c, names, plan_host(c, v), nm, sizeof nm);
                sb_printf(sb, plan_shares_read_only(c, v) ? " (shares %s's buffer)" : " (in output %s's buffer)", nm);
            }
            if (plan_in_place_of(c, v) >= 0) {
                var_name(c, names, plan_in_place_of(c, v), nm, sizeof nm);
                sb_printf(sb, " (in place of %s)", nm);
            }
            if (c->donor && c->donor[v] >= 0) sb_printf(sb, " (in argument %d's buffer)", c->donor[v]);
            if (c->first_use[v] >= 0) sb_printf(sb, "  live kernels %d..%d", c->first_use[v], c->last_use[v]);
            sb_printf(sb, "\n");
        }
        /* before the analysis pass the figures are not there yet */
        const memory_analysis *m = &c->mem;
        if (c->stage == STAGE_NONE || c->stage >= STAGE_ANALYSED)
            sb_printf(sb, "memory: arguments %zu, outputs %zu, temporaries %zu, constants %zu, peak %zu bytes\n",
                      m->argument_bytes, m->output_bytes, m->temp_bytes, m->constant_bytes, m->peak_bytes);
    }
    rt_free(ir->mem, names, sizeof(int) * ((size_t)ir->n_vars + 1));
}

