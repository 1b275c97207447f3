/* ir.c — building, verifying and printing the IR (core layer). */
#include <string.h>

#include "ir.h"

ir_func *ir_new(rt_mem *mem) {
    ir_func *f = rt_calloc(mem, sizeof *f);
    if (f) f->mem = mem;
    return f;
}

void ir_free(ir_func *f) {
    if (!f) return;
    rt_mem *m = f->mem;
    for (int i = 0; i < f->n_consts; i++) rt_array_unref(f->consts[i].val);
    for (int k = 0; k < f->n_eqns; k++) prim_ref_release(f->eqns[k].params.ref);
    if (f->vars) rt_free(m, f->vars, sizeof(rt_aval) * (size_t)f->cap_vars);
    if (f->in) rt_free(m, f->in, sizeof(int) * (size_t)f->cap_in);
    if (f->consts) rt_free(m, f->consts, sizeof(ir_const) * (size_t)f->cap_consts);
    if (f->eqns) rt_free(m, f->eqns, sizeof(ir_eqn) * (size_t)f->cap_eqns);
    if (f->operands) rt_free(m, f->operands, sizeof(int) * (size_t)f->cap_operands);
    if (f->out) rt_free(m, f->out, sizeof(int) * (size_t)f->cap_out);
    if (f->regions) rt_free(m, f->regions, sizeof(ir_region) * (size_t)f->cap_regions);
    rt_free(m, f, sizeof *f);
}

/* Makes room for `extra` more items in an array of `elem` bytes. */
static int grow(rt_mem *m, void **arr, int *cap, int n, int extra, size_t elem) {
    if (n + extra <= *cap) return 0;
    int nc = *cap ? *cap : 8;
    while (nc < n + extra) nc *= 2;
    void *d = rt_realloc(m, *arr, elem * (size_t)*cap, elem * (size_t)nc);
    if (!d) return -1;
    *arr = d;
    *cap = nc;
    return 0;
}

int ir_add_var(ir_func *f, const rt_aval *aval) {
    if (grow(f->mem, (void **)&f->vars, &f->cap_vars, f->n_vars, 1, sizeof(rt_aval))) return -1;
    f->vars[f->n_vars] = *aval;
    return f->n_vars++;
}

int ir_add_input(ir_func *f, const rt_aval *aval) {
    if (grow(f->mem, (void **)&f->in, &f->cap_in, f->n_in, 1, sizeof(int))) return -1;
    int v = ir_add_var(f, aval);
    if (v >= 0) f->in[f->n_in++] = v;
    return v;
}

int ir_add_const(ir_func *f, rt_array *arr) {
    if (grow(f->mem, (void **)&f->consts, &f->cap_consts, f->n_consts, 1, sizeof(ir_const))) return -1;
    int v = ir_add_var(f, &arr->aval);
    if (v < 0) return -1;
    f->consts[f->n_consts].var = v;
    f->consts[f->n_consts].val = rt_array_ref(arr);
    f->n_consts++;
    return v;
}

int ir_add_eqn(ir_func *f, prim_id prim, const prim_params *p, int n_in, const int *in,
               const rt_aval *out_aval) {
    return ir_add_eqn_multi(f, prim, p, n_in, in, 1, out_aval);
}

int ir_add_eqn_multi(ir_func *f, prim_id prim, const prim_params *p, int n_in, const int *in, int n_out,
                     const rt_aval *out_avals) {
    if (n_out < 1) return -1;
    if (grow(f->mem, (void **)&f->eqns, &f->cap_eqns, f->n_eqns, 1, sizeof(ir_eqn))) return -1;
    if (grow(f->mem, (void **)&f->operands, &f->cap_operands, f->n_operands, n_in, sizeof(int)))
        return -1;
    if (grow(f->mem, (void **)&f->vars, &f->cap_vars, f->n_vars, n_out, sizeof(rt_aval))) return -1;
    int v = f->n_vars; /* the outputs are consecutive: room was made for all */
    for (int j = 0; j < n_out; j++) ir_add_var(f, &out_avals[j]);
    ir_eqn *e = &f->eqns[f->n_eqns++];
    e->n_out = n_out;
    prim_ref_retain(p->ref);
    e->prim = prim;
    e->params = *p;
    e->n_in = n_in;
    e->in_start = f->n_operands;
    if (n_in) memcpy(f->operands + f->n_operands, in, sizeof(int) * (size_t)n_in);
    f->n_operands += n_in;
    e->out = v;
    e->region = f->cur_region;
    return v;
}

int ir_add_region(ir_func *f, int parent, const void *policy) {
    /* regions[0] is unused so that 0 can mean "none" */
    if (grow(f->mem, (void **)&f->regions, &f->cap_regions, f->n_regions + 1, 1, sizeof(ir_region))) return -1;
    int r = ++f->n_regions;
    f->regions[r].parent = parent;
    f->regions[r].policy = policy;
    return r;
}

int ir_add_output(ir_func *f, int var) {
    if (grow(f->mem, (void **)&f->out, &f->cap_out, f->n_out, 1, sizeof(int))) return -1;
    f->out[f->n_out++] = var;
    return 0;
}

ir_func *ir_copy(const ir_func *f) {
    ir_func *g = ir_new(f->mem);
    if (!g) return NULL;
    /* rebuild in definition order so variable ids stay the same */
    int ok = 1;
    for (int v = 0; v < f->n_vars && ok; v++) ok = ir_add_var(g, &f->vars[v]) == v;
    if (ok && grow(g->mem, (void **)&g->in, &g->cap_in, 0, f->n_in ? f->n_in : 1, sizeof(int))) ok = 0;
    if (ok) {
        if (f->n_in) memcpy(g->in, f->in, sizeof(int) * (size_t)f->n_in); /* f->in is NULL without inputs */
        g->n_in = f->n_in;
    }
    if (ok && f->n_consts &&
        grow(g->mem, (void **)&g->consts, &g->cap_consts, 0, f->n_consts, sizeof(ir_const)))
        ok = 0;
    for (int i = 0; ok && i < f->n_consts; i++) {
        g->consts[i].var = f->consts[i].var;
        g->consts[i].val = rt_array_ref(f->consts[i].val);
        g->n_consts++;
    }
    if (ok && f->n_eqns && grow(g->mem, (void **)&g->eqns, &g->cap_eqns, 0, f->n_eqns, sizeof(ir_eqn)))
        ok = 0;
    if (ok && f->n_operands &&
        grow(g->mem, (void **)&g->operands, &g->cap_operands, 0, f->n_operands, sizeof(int)))
        ok = 0;
    if (ok && f->n_out && grow(g->mem, (void **)&g->out, &g->cap_out, 0, f->n_out, sizeof(int))) ok = 0;
    if (!ok) {
        ir_free(g);
        return NULL;
    }
    if (f->n_eqns) memcpy(g->eqns, f->eqns, sizeof(ir_eqn) * (size_t)f->n_eqns);
    for (int k = 0; k < f->n_eqns; k++) prim_ref_retain(f->eqns[k].params.ref);
    if (f->n_operands) memcpy(g->operands, f->operands, sizeof(int) * (size_t)f->n_operands);
    if (f->n_out) memcpy(g->out, f->out, sizeof(int) * (size_t)f->n_out);
    g->n_eqns = f->n_eqns;
    g->n_operands = f->n_operands;
    g->n_out = f->n_out;
    for (int r = 1; r <= f->n_regions; r++)
        if (ir_add_region(g, f->regions[r].parent, f->regions[r].policy) != r) {
            ir_free(g);
            return NULL;
        }
    g->cur_region = f->cur_region;
    return g;
}

/* ---- structural equality ---- */
int ir_same(const ir_func *a, const ir_func *b) {
    if (a->n_vars != b->n_vars || a->n_in != b->n_in || a->n_out != b->n_out || a->n_eqns != b->n_eqns ||
        a->n_consts != b->n_consts || a->n_operands != b->n_operands || a->n_regions != b->n_regions)
        return 0;
    if (memcmp(a->vars, b->vars, sizeof(rt_aval) * (size_t)a->n_vars) ||
        memcmp(a->in, b->in, sizeof(int) * (size_t)a->n_in) || memcmp(a->out, b->out, sizeof(int) * (size_t)a->n_out) ||
        (a->n_operands && memcmp(a->operands, b->operands, sizeof(int) * (size_t)a->n_operands)))
        return 0;
    for (int k = 0; k < a->n_eqns; k++) {
        const ir_eqn *x = &a->eqns[k], *y = &b->eqns[k];
        if (x->prim != y->prim || x->n_in != y->n_in || x->in_start != y->in_start || x->out != y->out ||
            x->n_out != y->n_out ||
            x->region != y->region || memcmp(&x->params, &y->params, sizeof x->params))
            return 0;
    }
    for (int c = 0; c < a->n_consts; c++) {
        const rt_array *x = a->consts[c].val, *y = b->consts[c].val;
        if (a->consts[c].var != b->consts[c].var) return 0;
        if (x != y && (!rt_aval_equal(&x->aval, &y->aval) || memcmp(x->data, y->data, rt_aval_nbytes(&x->aval))))
            return 0;
    }
    for (int r = 1; r <= a->n_regions; r++)
        if (a->regions[r].parent != b->regions[r].parent || a->regions[r].policy != b->regions[r].policy) return 0;
    return 1;
}

/* ---- verifier ---- */
int ir_verify(cj_ctx *ctx, const ir_func *f) {
    int ok = 0;
    /* one pair of type tables, sized by the widest equation (a construct
     * may have hundreds of operands and results) */
    int max_in = 1, max_out = 1;
    for (int k = 0; k < f->n_eqns; k++) {
        if (f->eqns[k].n_in > max_in) max_in = f->eqns[k].n_in;
        if (f->eqns[k].n_out > max_out) max_out = f->eqns[k].n_out;
    }
    size_t table_bytes = sizeof(rt_aval) * (size_t)(max_in + max_out);
    rt_aval *avals = rt_alloc(ctx->mem, table_bytes), *outs = avals ? avals + max_in : NULL;
    char *defined = avals ? rt_calloc(ctx->mem, (size_t)f->n_vars + 1) : NULL;
    if (!defined) {
        if (avals) rt_free(ctx->mem, avals, table_bytes);
        return core_oom(ctx, "ir verify");
    }
#define FAIL(...)                                     \
    do {                                              \
        core_error(ctx, CJ_ERR_INTERNAL, __VA_ARGS__); \
        goto done;                                    \
    } while (0)
    for (int i = 0; i < f->n_in; i++) {
        int v = f->in[i];
        if (v < 0 || v >= f->n_vars || defined[v]) FAIL("ir verify: input %d defines variable %d twice or out of range", i, v);
        rt_shape_status st = rt_shape_check(f->vars[v].rank, f->vars[v].dims);
        if (st != RT_SHAPE_OK) FAIL("ir verify: input %d's type %s", i, rt_shape_status_text(st));
        defined[v] = 1;
    }
    for (int i = 0; i < f->n_consts; i++) {
        int v = f->consts[i].var;
        if (v < 0 || v >= f->n_vars || defined[v]) FAIL("ir verify: constant %d defines variable %d twice or out of range", i, v);
        if (!rt_aval_equal(&f->consts[i].val->aval, &f->vars[v]))
            FAIL("ir verify: constant %d's array does not match its type", i);
        defined[v] = 1;
    }
    for (int k = 0; k < f->n_eqns; k++) {
        const ir_eqn *e = &f->eqns[k];
        const int *in = ir_eqn_inputs(f, e);
        int n_out = 1;
        if (e->n_in > PRIM_MAX_OPERANDS && !prim_rules[e->prim].multiple_results)
            FAIL("ir verify: equation %d (%s) has %d operands", k, prim_names[e->prim], e->n_in);
        if (e->n_out < 1) FAIL("ir verify: equation %d (%s) has %d results", k, prim_names[e->prim], e->n_out);
        for (int i = 0; i < e->n_in; i++) {
            if (in[i] < 0 || in[i] >= f->n_vars || !defined[in[i]])
                FAIL("ir verify: equation %d (%s) uses variable %d before it is defined", k, prim_names[e->prim], in[i]);
            avals[i] = f->vars[in[i]];
        }
        if (core_abstract_eval_multi(ctx, e->prim, &e->params, e->n_in, avals, e->n_out, &n_out, outs) != 0) {
            char msg[900];
            snprintf(msg, sizeof msg, "%.800s", ctx->msg);
            cj_error_clear(ctx);
            FAIL("ir verify: equation %d (%s) does not type-check: %.700s", k, prim_names[e->prim], msg);
        }
        if (n_out != e->n_out)
            FAIL("ir verify: equation %d (%s) has %d results, its primitive computes %d", k, prim_names[e->prim],
                 e->n_out, n_out);
        for (int j = 0; j < n_out; j++) {
            int v = e->out + j;
            if (v < 0 || v >= f->n_vars || defined[v])
                FAIL("ir verify: equation %d (%s) defines variable %d twice or out of range", k, prim_names[e->prim], v);
            if (!rt_aval_equal(&outs[j], &f->vars[v])) {
                char a[96], b[96];
                rt_aval_str(&outs[j], a, sizeof a);
                rt_aval_str(&f->vars[v], b, sizeof b);
                FAIL("ir verify: equation %d (%s) computes %s for result %d but its variable says %s", k,
                     prim_names[e->prim], a, j, b);
            }
            defined[v] = 1;
        }
    }
    for (int i = 0; i < f->n_out; i++)
        if (f->out[i] < 0 || f->out[i] >= f->n_vars || !defined[f->out[i]])
            FAIL("ir verify: output %d is variable %d, never defined", i, f->out[i]);
    ok = 1;
done:
#undef FAIL
    rt_free(ctx->mem, defined, (size_t)f->n_vars + 1);
    rt_free(ctx->mem, avals, table_bytes);
    return ok ? 0 : -1;
}

/* ---- printer ---- */
/* JAX's variable names: a..z, ba..bz, ca.. (base 26 with a leading digit). */
void ir_name_str(int ordinal, char buf[16]) {
    int id = ordinal;
    char tmp[16];
    int n = 0;
    do {
        tmp[n++] = (char)('a' + id % 26);
        id = id / 26;
    } while (id > 0);
    for (int i = 0; i < n; i++) buf[i] = tmp[n - 1 - i];
    buf[n] = 0;
}

static void print_var(strbuf *sb, const ir_func *f, int v, const int *names, int typed) {
    char name[16], t[128];
    ir_name_str(names[v], name);
    if (typed) {
        rt_aval_str(&f->vars[v], t, sizeof t);
        sb_printf(sb, "%s:%s", name, t);
    } else {
        sb_printf(sb, "%s", name);
    }
}

static void print_literal(strbuf *sb, const rt_array *a) {
    double x = rt_get_f64(a->aval.dtype, a->data, 0);
    if (a->aval.dtype == CJ_BOOL) sb_printf(sb, "%s", x != 0 ? "True" : "False");
    else if (rt_is_float(a->aval.dtype)) sb_printf(sb, "%.9g", x);
    else sb_printf(sb, "%lld", (long long)rt_get_i64(a->aval.dtype, a->data, 0));
    char t[32];
    rt_aval_str(&a->aval, t, sizeof t);
    sb_printf(sb, ":%s", t);
}

void ir_var_ordinals(const ir_func *f, int *names) {
    /* non-scalar constvars, then inputs, then results: definition order */
    int next = 0;
    for (int v = 0; v < f->n_vars; v++) names[v] = 0;
    for (int i = 0; i < f->n_consts; i++)
        if (f->consts[i].val->aval.rank != 0) names[f->consts[i].var] = next++;
    for (int i = 0; i < f->n_in; i++) names[f->in[i]] = next++;
    for (int k = 0; k < f->n_eqns; k++)
        for (int j = 0; j < f->eqns[k].n_out; j++) names[f->eqns[k].out + j] = next++;
}

void ir_print(const ir_func *f, strbuf *sb) { ir_print_indented(f, sb, 0); }

static void print_indent(strbuf *sb, int indent) {
    for (int i = 0; i < indent; i++) sb_printf(sb, "  ");
}

void ir_print_indented(const ir_func *f, strbuf *sb, int indent) {
    int *names = rt_alloc(f->mem, sizeof(int) * ((size_t)f->n_vars + 1));
    const rt_array **literal = rt_calloc(f->mem, sizeof(rt_array *) * ((size_t)f->n_vars + 1));
    if (!names || !literal) {
        sb->failed = 1;
        goto done;
    }
    /* Rank-0 constants print inline as literals (as JAX does). */
    for (int i = 0; i < f->n_consts; i++)
        if (f->consts[i].val->aval.rank == 0) literal[f->consts[i].var] = f->consts[i].val;
    ir_var_ordinals(f, names);

    sb_printf(sb, "{ lambda ");
    int first = 1;
    for (int i = 0; i < f->n_consts; i++) {
        if (literal[f->consts[i].var]) continue;
        sb_printf(sb, first ? "" : " ");
        print_var(sb, f, f->consts[i].var, names, 1);
        first = 0;
    }
    sb_printf(sb, "; ");
    for (int i = 0; i < f->n_in; i++) {
        if (i) sb_printf(sb, " ");
        print_var(sb, f, f->in[i], names, 1);
    }
    sb_printf(sb, ". let\n");
    for (int k = 0; k < f->n_eqns; k++) {
        const ir_eqn *e = &f->eqns[k];
        print_indent(sb, indent);
        sb_printf(sb, "    ");
        for (int j = 0; j < e->n_out; j++) {
            if (j) sb_printf(sb, " ");
            print_var(sb, f, e->out + j, names, 1);
        }
        sb_printf(sb, " = %s", prim_names[e->prim]);
        if (prim_rules[e->prim].print_params_long) {
            sb_printf(sb, "[");
            if (prim_rules[e->prim].print_params) {
                char p[1024];
                prim_rules[e->prim].print_params(&e->params, p, sizeof p);
                sb_printf(sb, "%s", p);
            }
            prim_rules[e->prim].print_params_long(&e->params, sb, indent + 2);
            sb_printf(sb, "]");
        } else if (prim_rules[e->prim].print_params) {
            char p[1024];
            prim_rules[e->prim].print_params(&e->params, p, sizeof p);
            if (p[0]) sb_printf(sb, "[%s]", p);
        }
        const int *in = ir_eqn_inputs(f, e);
        for (int i = 0; i < e->n_in; i++) {
            sb_printf(sb, " ");
            if (literal[in[i]]) print_literal(sb, literal[in[i]]);
            else print_var(sb, f, in[i], names, 0);
        }
        sb_printf(sb, "\n");
    }
    print_indent(sb, indent);
    sb_printf(sb, "  in (");
    for (int i = 0; i < f->n_out; i++) {
        if (literal[f->out[i]]) print_literal(sb, literal[f->out[i]]);
        else print_var(sb, f, f->out[i], names, 0);
        sb_printf(sb, f->n_out == 1 ? "," : (i + 1 < f->n_out ? ", " : ""));
    }
    sb_printf(sb, indent ? ") }" : ") }\n");
done:
    if (names) rt_free(f->mem, names, sizeof(int) * ((size_t)f->n_vars + 1));
    if (literal) rt_free(f->mem, literal, sizeof(rt_array *) * ((size_t)f->n_vars + 1));
}
