/* picture_common.c — what the two picture writers share (compiler layer):
 * variable names spelled as the plan dump spells them (so a reader can go
 * from a picture to `CJAX_DUMP=plan` and back), XML and Graphviz
 * escaping, and writing the finished text to a file. See picture.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "picture.h"

int picture_vars_init(rt_mem *mem, const compiled *c, picture_vars *pv) {
    const ir_func *ir = c->ir;
    memset(pv, 0, sizeof *pv);
    pv->n_vars = (size_t)ir->n_vars + 1;
    pv->n_eqns = (size_t)ir->n_eqns + 1;
    pv->ordinal = rt_alloc(mem, sizeof(int) * pv->n_vars);
    pv->def_eqn = rt_alloc(mem, sizeof(int) * pv->n_vars);
    pv->eqn_kernel = rt_alloc(mem, sizeof(int) * pv->n_eqns);
    if (!pv->ordinal || !pv->def_eqn || !pv->eqn_kernel) {
        picture_vars_free(mem, pv);
        return -1;
    }
    ir_var_ordinals(ir, pv->ordinal);
    for (int v = 0; v < ir->n_vars; v++) pv->def_eqn[v] = -1;
    for (int j = 0; j < ir->n_eqns; j++) {
        for (int r = 0; r < ir->eqns[j].n_out; r++) pv->def_eqn[ir->eqns[j].out + r] = j;
        pv->eqn_kernel[j] = -1;
    }
    for (int k = 0; k < c->n_kernels; k++)
        for (int j = 0; j < c->kernels[k].n_eqns; j++) pv->eqn_kernel[c->kernels[k].eqns[j]] = k;
    return 0;
}

void picture_vars_free(rt_mem *mem, picture_vars *pv) {
    if (pv->ordinal) rt_free(mem, pv->ordinal, sizeof(int) * pv->n_vars);
    if (pv->def_eqn) rt_free(mem, pv->def_eqn, sizeof(int) * pv->n_vars);
    if (pv->eqn_kernel) rt_free(mem, pv->eqn_kernel, sizeof(int) * pv->n_eqns);
    memset(pv, 0, sizeof *pv);
}

void picture_var_name(const compiled *c, const picture_vars *pv, int v, char *buf, size_t n) {
    const ir_func *ir = c->ir;
    for (int i = 0; i < ir->n_consts; i++) {
        const rt_array *a = ir->consts[i].val;
        if (ir->consts[i].var == v && a->aval.rank == 0) {
            snprintf(buf, n, "%g", rt_get_f64(a->aval.dtype, a->data, 0));
            return;
        }
    }
    char name[16];
    ir_name_str(pv->ordinal[v], name);
    snprintf(buf, n, "%s", name);
}

void picture_var_str(const compiled *c, const picture_vars *pv, int v, char *buf, size_t n) {
    char name[40], t[96];
    picture_var_name(c, pv, v, name, sizeof name);
    rt_aval_str(&c->ir->vars[v], t, sizeof t);
    snprintf(buf, n, "%s:%s", name, t);
}

void picture_bytes(size_t bytes, char *buf, size_t n) {
    if (bytes < 10240) snprintf(buf, n, "%zu B", bytes);
    else if (bytes < ((size_t)10 << 20)) snprintf(buf, n, "%.1f KiB", (double)bytes / 1024.0);
    else if (bytes < ((size_t)10 << 30)) snprintf(buf, n, "%.1f MiB", (double)bytes / 1048576.0);
    else snprintf(buf, n, "%.1f GiB", (double)bytes / 1073741824.0);
}

void picture_eqn_lhs(const compiled *c, const picture_vars *pv, int eqn, char *buf, size_t n) {
    const ir_eqn *e = &c->ir->eqns[eqn];
    size_t len = 0;
    buf[0] = 0;
    for (int r = 0; r < e->n_out && len + 1 < n; r++) {
        if (r) buf[len++] = ' ', buf[len] = 0;
        picture_var_str(c, pv, e->out + r, buf + len, n - len);
        len += strlen(buf + len);
    }
}

void picture_eqn_rhs(const compiled *c, const picture_vars *pv, int eqn, char *buf, size_t n) {
    const ir_func *ir = c->ir;
    const ir_eqn *e = &ir->eqns[eqn];
    size_t len = (size_t)snprintf(buf, n, "%s", prim_names[e->prim]);
    const int *in = ir_eqn_inputs(ir, e);
    for (int i = 0; i < e->n_in && len < n; i++) {
        char nm[40];
        picture_var_name(c, pv, in[i], nm, sizeof nm);
        len += (size_t)snprintf(buf + len, n - len, " %s", nm);
    }
}

void sb_xml(strbuf *sb, const char *s) {
    const char *run = s;
    for (; *s; s++) {
        const char *rep = *s == '&' ? "&amp;" : *s == '<' ? "&lt;" : *s == '>' ? "&gt;" : *s == '"' ? "&quot;"
                          : *s == '\'' ? "&apos;" : NULL;
        /* control characters other than tab and newline are not XML */
        if (!rep && (unsigned char)*s < 0x20 && *s != '\t' && *s != '\n') rep = "?";
        if (!rep) continue;
        sb_printf(sb, "%.*s%s", (int)(s - run), run, rep);
        run = s + 1;
    }
    sb_printf(sb, "%s", run);
}

void sb_dot(strbuf *sb, const char *s) {
    const char *run = s;
    for (; *s; s++) {
        const char *rep = *s == '"' ? "\\\"" : *s == '\\' ? "\\\\" : *s == '\n' ? "\\n" : NULL;
        if (!rep && (unsigned char)*s < 0x20) rep = " ";
        if (!rep) continue;
        sb_printf(sb, "%.*s%s", (int)(s - run), run, rep);
        run = s + 1;
    }
    sb_printf(sb, "%s", run);
}

int picture_save(const char *text, size_t len, const char *path, char *why, size_t why_n) {
    FILE *fp = fopen(path, "wb");
    if (!fp) {
        snprintf(why, why_n, "%s", strerror(errno));
        return -1;
    }
    size_t wrote = fwrite(text, 1, len, fp);
    int err = wrote == len ? 0 : errno ? errno : EIO;
    if (fclose(fp) != 0 && !err) err = errno ? errno : EIO;
    if (!err) return 0;
    remove(path); /* no half-written picture */
    snprintf(why, why_n, "%s", strerror(err));
    return -1;
}

int picture_write(cj_ctx *ctx, picture_fn draw, const compiled *c, const char *title, const char *path,
                  const char *op) {
    if (!path || !*path) return core_error(ctx, CJ_ERR_ARG, "%s: no file path given", op);
    strbuf sb;
    sb_init(&sb, ctx->mem);
    draw(ctx, c, title, &sb);
    if (sb.failed || !sb.data) {
        sb_free(&sb);
        return core_oom(ctx, op);
    }
    /* the text is complete before the file is opened: running out of
     * memory never leaves a truncated file */
    char why[160];
    int rc = picture_save(sb.data, sb.len, path, why, sizeof why);
    sb_free(&sb);
    if (rc != 0) return core_error(ctx, CJ_ERR_IO, "%s: cannot write '%s': %s", op, path, why);
    return 0;
}
