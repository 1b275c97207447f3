/* scan_hoist.c — the scan's hoist rule: the work of a step that reads no
 * carry, done for every step at once before the loop (control layer; the
 * compiler's hoist pass, src/compiler/hoist.c, calls it through the rule
 * record, so the compiler stays below control flow).
 *
 * In `h' = tanh(W h + U x_t + b)` the product U x_t reads only the step's
 * x slice and a closed-over weight: it does not depend on the carry, so
 * all T of them are one product [T,64]·[64,256] before the loop, instead
 * of T matrix-vector products inside it. The rule finds, in the body, the
 * equations whose operands are x slices, closed-over values, constants or
 * results of such equations (never a carry); keeps those around a product,
 * reduction or other whole-array kernel (elementwise and data-movement
 * work alone gains nothing outside the loop, and a reshape or transpose
 * read only by the loop stays there as an index map); and makes
 *   - S, those equations as a program of one step's x slices and closure,
 *     returning the values the rest of the step reads (the boundary);
 *   - P, S under vmap over the stacked xs (the primitives' own batching
 *     rules, which turn a matrix-vector product into one matrix product),
 *     the closure unmapped: the boundary values stacked like xs;
 *   - a new scan whose body reads each boundary value as an extra x slice
 *     instead of computing it; the body loses the hoisted equations.
 * The program returned computes P, then the new scan, with the operands
 * and results of the old one. The values are the same; a product's sums
 * may run in another order (GEMM blocks instead of a matrix-vector
 * kernel's rows), so results agree to rounding, not bit for bit. Reverse
 * scans index the stacked values as they index xs, so nothing changes for
 * them. A body's own constructs are not hoisted whole (vmap of a cond or
 * while on batched values runs every branch or until every example
 * finishes: more work, not less); they and the scans nested in them are
 * hoisted when their bodies are compiled, by the same pass.
 *
 * Memory: the stacked values are T times a step's boundary, temporaries
 * of the enclosing program (its memory analysis counts them). The rule
 * hoists only when they, and everything P makes on the way, are at most
 * CJAX_SCAN_HOIST_MAX_MB (64 MiB; 0 turns the rule off) and at most
 * HOIST_XS_FACTOR times the bytes of the xs the hoisted work reads (an
 * outer product of each x slice with itself would grow T·n into T·n²,
 * even when only its sum is returned).
 *
 * The program made is kept by the record (with its new record, whose body
 * is marked as holding nothing more to hoist), so compiling the construct
 * again reuses it and its compiled body. */
#include <string.h>

#include "control.h"

/* The stacked values may be at most this many times the xs they are made
 * from. */
#define HOIST_XS_FACTOR 8

static long long limit_for_testing = -1;

void cf_hoist_set_limit_for_testing(long long max_bytes) { limit_for_testing = max_bytes; }

static size_t hoist_limit(void) {
    return limit_for_testing >= 0 ? (size_t)limit_for_testing : rt_config_get()->scan_hoist_max_bytes;
}

/* What a body variable depends on. */
enum { DEP_LOOP, DEP_INV, DEP_XS };

/* The analysis of one body, tables sized by it. */
typedef struct hoist_plan {
    const ir_func *body;
    int nc, nx, ncl;
    int64_t T;
    uint8_t *dep;      /* per variable: DEP_* */
    uint8_t *hoist;    /* per equation: moved before the loop */
    uint8_t *in_s;     /* per equation: in S (hoisted, or invariant work they read) */
    uint8_t *keep;     /* per equation: left in the body */
    uint8_t *boundary; /* per variable: hoisted, read by what stays */
    int *const_of;     /* per variable: its index in body->consts, or -1 */
    int n_bound;
    size_t bytes, xs_bytes; /* the stacked boundary; the xs S reads */
} hoist_plan;

/* Whether vmap can batch the primitive into whole-array work: a rule, and
 * not a construct (vmap of a cond or while on batched values does more
 * work, not less) or a call. */
static int batchable(prim_id p) {
    const prim_rule *r = &prim_rules[p];
    prim_lower_kind k = prim_lower(p)->kind;
    return (r->batch || r->batch_multi) && k != LOWER_CONSTRUCT && k != LOWER_CALL;
}

/* Work worth taking out of the loop: a product, a reduction, a whole-array
 * kernel. (Elementwise work is fused into the step's loop anyway.) */
static int heavy(prim_id p) {
    prim_lower_kind k = prim_lower(p)->kind;
    return k == LOWER_DOT || k == LOWER_REDUCTION || k == LOWER_OPAQUE;
}

static void plan_free(cj_ctx *ctx, hoist_plan *pl) {
    const ir_func *b = pl->body;
    size_t nv = (size_t)b->n_vars + 1, ne = (size_t)b->n_eqns + 1;
    if (pl->dep) rt_free(ctx->mem, pl->dep, nv);
    if (pl->boundary) rt_free(ctx->mem, pl->boundary, nv);
    if (pl->const_of) rt_free(ctx->mem, pl->const_of, sizeof(int) * nv);
    if (pl->hoist) rt_free(ctx->mem, pl->hoist, ne);
    if (pl->in_s) rt_free(ctx->mem, pl->in_s, ne);
    if (pl->keep) rt_free(ctx->mem, pl->keep, ne);
}

/* Whether any of e's results is marked (per-variable marks). */
static int any_out(const uint8_t *marks, const ir_eqn *e) {
    for (int j = 0; j < e->n_out; j++)
        if (marks[e->out + j]) return 1;
    return 0;
}

/* Finds what to hoist. 0 with pl->n_bound = 0 when nothing is; -1 on out
 * of memory (recorded). */
static int analyse(cj_ctx *ctx, const cf_record *rec, hoist_plan *pl) {
    const ir_func *b = rec->progs[0];
    memset(pl, 0, sizeof *pl);
    pl->body = b;
    pl->nc = rec->n_args, pl->nx = rec->n_xs, pl->ncl = rec->clo_n[0], pl->T = rec->length;
    int nv = b->n_vars + 1, ne = b->n_eqns + 1;
    pl->dep = rt_calloc(ctx->mem, (size_t)nv);
    pl->boundary = rt_calloc(ctx->mem, (size_t)nv);
    pl->const_of = rt_alloc(ctx->mem, sizeof(int) * (size_t)nv);
    pl->hoist = rt_calloc(ctx->mem, (size_t)ne);
    pl->in_s = rt_calloc(ctx->mem, (size_t)ne);
    pl->keep = rt_calloc(ctx->mem, (size_t)ne);
    core_tables tab = {.ctx = ctx};
    uint8_t *need = core_tables_get(&tab, nv, 1, "jit: scan hoisting");     /* per variable: the outputs need it */
    uint8_t *live = core_tables_get(&tab, ne, 1, "jit: scan hoisting");     /* per equation: they need it */
    uint8_t *free_eqn = core_tables_get(&tab, ne, 1, "jit: scan hoisting"); /* carry-independent, batchable */
    uint8_t *hv = core_tables_get(&tab, nv, 1, "jit: scan hoisting");       /* defined by a hoisted equation */
    uint8_t *want = core_tables_get(&tab, nv, 1, "jit: scan hoisting");     /* read by S */
    uint8_t *stay = core_tables_get(&tab, nv, 1, "jit: scan hoisting");     /* read by what stays */
    if (!pl->dep || !pl->boundary || !pl->const_of || !pl->hoist || !pl->in_s || !pl->keep || tab.failed) {
        if (!tab.failed) core_oom(ctx, "jit: scan hoisting");
        core_tables_free(&tab);
        return -1;
    }
    /* the equations the outputs need (a traced body may hold dead ones) */
    for (int j = 0; j < b->n_out; j++) need[b->out[j]] = 1;
    for (int e = b->n_eqns - 1; e >= 0; e--) {
        const ir_eqn *q = &b->eqns[e];
        if (!any_out(need, q)) continue;
        live[e] = 1;
        for (int i = 0; i < q->n_in; i++) need[ir_eqn_inputs(b, q)[i]] = 1;
    }
    /* what each value depends on: a carry, x slices only, or neither */
    for (int v = 0; v < nv; v++) pl->dep[v] = DEP_LOOP, pl->const_of[v] = -1;
    for (int i = 0; i < b->n_in; i++)
        pl->dep[b->in[i]] = i < pl->nc ? DEP_LOOP : i < pl->nc + pl->nx ? DEP_XS : DEP_INV;
    for (int c = 0; c < b->n_consts; c++) pl->dep[b->consts[c].var] = DEP_INV, pl->const_of[b->consts[c].var] = c;
    for (int e = 0; e < b->n_eqns; e++) {
        const ir_eqn *q = &b->eqns[e];
        if (!live[e]) continue;
        const int *ins = ir_eqn_inputs(b, q);
        int loop = 0, xs = 0;
        for (int i = 0; i < q->n_in; i++) loop |= pl->dep[ins[i]] == DEP_LOOP, xs |= pl->dep[ins[i]] == DEP_XS;
        int d = loop ? DEP_LOOP : !xs ? DEP_INV : batchable(q->prim) ? DEP_XS : DEP_LOOP;
        for (int j = 0; j < q->n_out; j++) pl->dep[q->out + j] = (uint8_t)d;
        free_eqn[e] = d == DEP_XS;
    }
    /* the hoisted equations: the heavy ones and what follows them (a bias
     * added to a product)... */
    int any_heavy = 0;
    for (int e = 0; e < b->n_eqns; e++) {
        const ir_eqn *q = &b->eqns[e];
        if (!free_eqn[e]) continue;
        int h = heavy(q->prim);
        any_heavy |= h;
        for (int i = 0; i < q->n_in && !h; i++) h = hv[ir_eqn_inputs(b, q)[i]];
        if (!h) continue;
        pl->hoist[e] = 1;
        for (int j = 0; j < q->n_out; j++) hv[q->out + j] = 1;
    }
    if (!any_heavy) goto done;
    /* ... and what they read; data movement no hoisted equation reads
     * stays in the loop, where it is an index map, not a stacked copy */
    for (int e = b->n_eqns - 1; e >= 0; e--) {
        const ir_eqn *q = &b->eqns[e];
        if (free_eqn[e] && any_out(want, q)) pl->hoist[e] = 1;
        if (!pl->hoist[e]) continue;
        if (prim_lower(q->prim)->kind == LOWER_DATA_MOVEMENT && !any_out(want, q)) {
            pl->hoist[e] = 0;
            continue;
        }
        for (int i = 0; i < q->n_in; i++) want[ir_eqn_inputs(b, q)[i]] = 1;
    }
    /* what stays: the equations the outputs need through what stays; the
     * hoisted values they read are the boundary */
    for (int j = 0; j < b->n_out; j++) stay[b->out[j]] = 1;
    for (int e = b->n_eqns - 1; e >= 0; e--) {
        const ir_eqn *q = &b->eqns[e];
        if (!any_out(stay, q)) continue;
        if (pl->hoist[e]) {
            for (int j = 0; j < q->n_out; j++) pl->boundary[q->out + j] = stay[q->out + j];
            continue;
        }
        pl->keep[e] = 1;
        for (int i = 0; i < q->n_in; i++) stay[ir_eqn_inputs(b, q)[i]] = 1;
    }
    /* S: the hoisted equations and the invariant ones they read (which P
     * computes once: vmap leaves them unbatched) */
    for (int e = b->n_eqns - 1; e >= 0; e--) {
        const ir_eqn *q = &b->eqns[e];
        if (!pl->hoist[e] && !(pl->dep[q->out] == DEP_INV && live[e] && any_out(want, q))) continue;
        pl->in_s[e] = 1;
        for (int i = 0; i < q->n_in; i++) want[ir_eqn_inputs(b, q)[i]] = 1;
    }
    for (int v = 0; v < b->n_vars; v++) {
        if (!pl->boundary[v]) continue;
        if (b->vars[v].rank >= CJ_MAX_RANK) { /* no room for the stacking axis */
            pl->n_bound = 0;
            goto done;
        }
        pl->n_bound++;
        pl->bytes += rt_aval_nbytes(&b->vars[v]) * (size_t)pl->T;
    }
    for (int i = 0; i < pl->nx; i++)
        if (want[b->in[pl->nc + i]]) pl->xs_bytes += rt_aval_nbytes(&b->vars[b->in[pl->nc + i]]) * (size_t)pl->T;
done:
    core_tables_free(&tab);
    return 0;
}

/* The variable in dst of src's constant behind v, added on first use. */
static int const_var(ir_func *dst, const hoist_plan *pl, int *map, int v) {
    if (map[v] < 0 && pl->const_of[v] >= 0) map[v] = ir_add_const(dst, pl->body->consts[pl->const_of[v]].val);
    return map[v];
}

/* Copies the body's equations flagged in `which` into dst, through map. */
static int copy_eqns(cj_ctx *ctx, ir_func *dst, const hoist_plan *pl, const uint8_t *which, int *map) {
    const ir_func *b = pl->body;
    for (int e = 0; e < b->n_eqns; e++) {
        const ir_eqn *q = &b->eqns[e];
        if (!which[e]) continue;
        const int *ins = ir_eqn_inputs(b, q);
        int args_s[PRIM_SMALL_OPERANDS];
        int *args = core_table(ctx, args_s, PRIM_SMALL_OPERANDS, q->n_in, sizeof *args, "jit: scan hoisting");
        if (!args) return -1;
        int ok = 1;
        for (int i = 0; i < q->n_in && ok; i++) ok = (args[i] = const_var(dst, pl, map, ins[i])) >= 0;
        int v = ok ? ir_add_eqn_multi(dst, q->prim, &q->params, q->n_in, args, q->n_out, &b->vars[q->out]) : -1;
        core_table_free(ctx, args, args_s, q->n_in, sizeof *args);
        if (v < 0) return core_oom(ctx, "jit: scan hoisting");
        for (int j = 0; j < q->n_out; j++) map[q->out + j] = v + j;
    }
    return 0;
}

/* S: (x slices..., closure...) → the boundary values, in variable order. */
static ir_func *make_step_part(cj_ctx *ctx, const hoist_plan *pl) {
    const ir_func *b = pl->body;
    ir_func *s = ir_new(ctx->mem);
    int *map = rt_alloc(ctx->mem, sizeof(int) * ((size_t)b->n_vars + 1));
    int ok = s && map;
    for (int v = 0; ok && v < b->n_vars; v++) map[v] = -1;
    for (int i = pl->nc; ok && i < b->n_in; i++) ok = (map[b->in[i]] = ir_add_input(s, &b->vars[b->in[i]])) >= 0;
    if (!ok) core_oom(ctx, "jit: scan hoisting");
    if (ok) ok = copy_eqns(ctx, s, pl, pl->in_s, map) == 0;
    for (int v = 0; ok && v < b->n_vars; v++)
        if (pl->boundary[v] && ir_add_output(s, map[v]) != 0) ok = 0, core_oom(ctx, "jit: scan hoisting");
    if (map) rt_free(ctx->mem, map, sizeof(int) * ((size_t)b->n_vars + 1));
    if (!ok && s) ir_free(s), s = NULL;
    return s;
}

/* ---- P: S vmapped over the stacked xs ---- */
typedef struct runner_state {
    const ir_func *prog;
} runner_state;

static int runner_call(cj_func *r, const cj_val *in, cj_val *out) {
    const runner_state *st = r->state;
    return ir_eval_values(r->ctx, st->prog, in, out);
}
static void runner_free(cj_func *r) {
    if (r->state) rt_free(r->ctx->mem, r->state, sizeof(runner_state));
    r->state = NULL;
}
static const func_ops runner_ops = {"scan_hoist", runner_call, runner_free};

static int call_mapped(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    return cj_call(user, in, out) == CJ_OK ? 0 : -1;
}

/* P traced: (stacked xs..., closure...) → the stacked boundary values;
 * NULL with the error recorded. */
static ir_func *make_batched_part(cj_ctx *ctx, const hoist_plan *pl, const ir_func *s) {
    int n_in = s->n_in, n_out = s->n_out;
    runner_state *st = rt_calloc(ctx->mem, sizeof *st);
    cj_func *runner = st ? func_new(ctx, "scan step (hoisted part)", &runner_ops, n_in, n_out) : NULL;
    if (!runner) {
        if (st) rt_free(ctx->mem, st, sizeof *st);
        else core_oom(ctx, "jit: scan hoisting");
        return NULL;
    }
    st->prog = s;
    runner->state = st;
    int64_t in_axes[64], out_axes[64]; /* the caller checked: at most 64 each */
    rt_aval avals[64];
    for (int i = 0; i < n_in; i++) {
        avals[i] = s->vars[s->in[i]];
        in_axes[i] = i < pl->nx ? 0 : CJ_NOT_MAPPED;
        if (i < pl->nx) { /* stacked along a leading axis, as xs are */
            memmove(avals[i].dims + 1, avals[i].dims, sizeof(int64_t) * (size_t)avals[i].rank);
            avals[i].dims[0] = pl->T;
            avals[i].rank++;
        }
    }
    for (int j = 0; j < n_out; j++) out_axes[j] = 0;
    cj_vmap_opts vo = {in_axes, out_axes, pl->T, 1, 0};
    cj_func *mapped = cj_vmap(runner, &vo);
    ir_func *p = NULL;
    if (mapped) {
        func_closure clo;
        p = func_trace_body(ctx, n_in, avals, NULL, n_out, call_mapped, mapped, "scan step (hoisted part)",
                            "jit: scan hoisting", &clo);
        if (p && clo.n) { /* S reads only its inputs: never expected */
            ir_free(p);
            p = NULL;
            core_error(ctx, CJ_ERR_INTERNAL, "jit: scan hoisting: the batched step read an outer value");
        }
        cj_func_free(mapped);
    }
    cj_func_free(runner);
    return p;
}

/* vmap of a product whose right operand is the x slice (U x) puts the
 * steps last, [256,T], and moving them first costs a transpose of the
 * whole result. dot_general(a, b) transposed to (b's free axes, a's free
 * axes) is dot_general(b, a) — the same sums, as one product that writes
 * [T,256] directly. Rewrites p so (its other equations unchanged). 0, or
 * -1 on out of memory (recorded). */
static int swap_product(const ir_func *p, const ir_eqn *t, int *use_count) {
    if (t->prim != PRIM_TRANSPOSE) return -1;
    int v = ir_eqn_inputs(p, t)[0];
    if (use_count[v] != 1) return -1;
    for (int e = 0; e < p->n_eqns; e++) {
        const ir_eqn *d = &p->eqns[e];
        if (d->prim != PRIM_DOT_GENERAL || d->out != v || d->params.lhs_batch.n) continue;
        const int *ab = ir_eqn_inputs(p, d);
        int nl = p->vars[ab[0]].rank - d->params.lhs_contract.n, nr = p->vars[ab[1]].rank - d->params.rhs_contract.n;
        const prim_ivec *perm = &t->params.axes;
        if (perm->n != nl + nr) return -1;
        for (int i = 0; i < nr; i++)
            if (perm->v[i] != nl + i) return -1;
        for (int j = 0; j < nl; j++)
            if (perm->v[nr + j] != j) return -1;
        return e;
    }
    return -1;
}

static int products_steps_first(cj_ctx *ctx, ir_func **pp) {
    const ir_func *p = *pp;
    /* (sizes kept: p is replaced, and freed, below) */
    size_t use_bytes = sizeof(int) * ((size_t)p->n_vars + 1), dot_bytes = sizeof(int) * ((size_t)p->n_eqns + 1);
    int *use = rt_calloc(ctx->mem, use_bytes);
    int *dot_of = rt_alloc(ctx->mem, dot_bytes); /* per transpose: its product */
    if (!use || !dot_of) {
        if (use) rt_free(ctx->mem, use, use_bytes);
        if (dot_of) rt_free(ctx->mem, dot_of, dot_bytes);
        return core_oom(ctx, "jit: scan hoisting");
    }
    for (int e = 0; e < p->n_eqns; e++)
        for (int i = 0; i < p->eqns[e].n_in; i++) use[ir_eqn_inputs(p, &p->eqns[e])[i]]++;
    for (int j = 0; j < p->n_out; j++) use[p->out[j]] += 2; /* an output is not the transpose's alone */
    int any = 0;
    for (int e = 0; e < p->n_eqns; e++) any |= (dot_of[e] = swap_product(p, &p->eqns[e], use)) >= 0;
    int status = 0;
    if (any) {
        uint8_t *skip = rt_calloc(ctx->mem, (size_t)p->n_eqns + 1);
        int *map = rt_alloc(ctx->mem, sizeof(int) * ((size_t)p->n_vars + 1));
        ir_func *q = ir_new(ctx->mem);
        int ok = skip && map && q;
        for (int e = 0; ok && e < p->n_eqns; e++)
            if (dot_of[e] >= 0) skip[dot_of[e]] = 1;
        for (int i = 0; ok && i < p->n_in; i++) ok = (map[p->in[i]] = ir_add_input(q, &p->vars[p->in[i]])) >= 0;
        for (int c = 0; ok && c < p->n_consts; c++) ok = (map[p->consts[c].var] = ir_add_const(q, p->consts[c].val)) >= 0;
        for (int e = 0; ok && e < p->n_eqns; e++) {
            const ir_eqn *d = &p->eqns[e];
            if (skip[e]) continue;
            int a_s[PRIM_SMALL_OPERANDS];
            int *a = core_table(ctx, a_s, PRIM_SMALL_OPERANDS, d->n_in, sizeof *a, "jit: scan hoisting");
            if (!a) {
                ok = 0;
                break;
            }
            int v;
            if (dot_of[e] >= 0) { /* the transpose becomes the swapped product */
                const ir_eqn *g = &p->eqns[dot_of[e]];
                const int *ab = ir_eqn_inputs(p, g);
                prim_params gp = g->params;
                gp.lhs_contract = g->params.rhs_contract, gp.rhs_contract = g->params.lhs_contract;
                int ba[2] = {map[ab[1]], map[ab[0]]};
                v = ir_add_eqn(q, PRIM_DOT_GENERAL, &gp, 2, ba, &p->vars[d->out]);
            } else {
                for (int i = 0; i < d->n_in; i++) a[i] = map[ir_eqn_inputs(p, d)[i]];
                v = ir_add_eqn_multi(q, d->prim, &d->params, d->n_in, a, d->n_out, &p->vars[d->out]);
            }
            core_table_free(ctx, a, a_s, d->n_in, sizeof *a);
            ok = v >= 0;
            for (int j = 0; ok && j < d->n_out; j++) map[d->out + j] = v + j;
        }
        for (int j = 0; ok && j < p->n_out; j++) ok = ir_add_output(q, map[p->out[j]]) == 0;
        if (!ok) status = ctx->err ? -1 : core_oom(ctx, "jit: scan hoisting");
        if (skip) rt_free(ctx->mem, skip, (size_t)p->n_eqns + 1);
        if (map) rt_free(ctx->mem, map, sizeof(int) * ((size_t)p->n_vars + 1));
        if (ok) {
            ir_free(*pp);
            *pp = q;
        } else if (q) {
            ir_free(q);
        }
    }
    rt_free(ctx->mem, use, use_bytes);
    rt_free(ctx->mem, dot_of, dot_bytes);
    return status;
}

/* ---- the new scan and the program in the old one's place ---- */
/* The new body: (carries, xs, boundary slices, closure) → the old outputs. */
static ir_func *make_body(cj_ctx *ctx, const hoist_plan *pl) {
    const ir_func *b = pl->body;
    ir_func *nb = ir_new(ctx->mem);
    int *map = rt_alloc(ctx->mem, sizeof(int) * ((size_t)b->n_vars + 1));
    int ok = nb && map;
    for (int v = 0; ok && v < b->n_vars; v++) map[v] = -1;
    for (int i = 0; ok && i < pl->nc + pl->nx; i++) ok = (map[b->in[i]] = ir_add_input(nb, &b->vars[b->in[i]])) >= 0;
    for (int v = 0; ok && v < b->n_vars; v++)
        if (pl->boundary[v]) ok = (map[v] = ir_add_input(nb, &b->vars[v])) >= 0;
    for (int i = pl->nc + pl->nx; ok && i < b->n_in; i++) ok = (map[b->in[i]] = ir_add_input(nb, &b->vars[b->in[i]])) >= 0;
    if (!ok) core_oom(ctx, "jit: scan hoisting");
    if (ok) ok = copy_eqns(ctx, nb, pl, pl->keep, map) == 0;
    for (int j = 0; ok && j < b->n_out; j++) {
        int v = const_var(nb, pl, map, b->out[j]);
        if (v < 0 || ir_add_output(nb, v) != 0) ok = 0, core_oom(ctx, "jit: scan hoisting");
    }
    if (map) rt_free(ctx->mem, map, sizeof(int) * ((size_t)b->n_vars + 1));
    if (!ok && nb) ir_free(nb), nb = NULL;
    return nb;
}

static cf_record *make_record(cj_ctx *ctx, const cf_record *rec, const hoist_plan *pl, ir_func *body) {
    cf_record *n = cf_record_new(ctx, CF_SCAN);
    if (!n) {
        ir_free(body);
        return NULL;
    }
    n->n_progs = 1;
    n->progs[0] = body;
    n->n_args = rec->n_args;
    n->n_xs = rec->n_xs + pl->n_bound;
    n->clo_start[0] = n->n_args + n->n_xs;
    n->clo_n[0] = rec->clo_n[0];
    n->n_operands = n->clo_start[0] + n->clo_n[0];
    n->length = rec->length;
    n->reverse = rec->reverse;
    n->hoist_none = 1; /* what could move has moved */
    if (cf_record_outs(n, rec->n_out) != 0) {
        cf_record_release(n);
        return NULL;
    }
    memcpy(n->out, rec->out, sizeof(rt_aval) * (size_t)rec->n_out);
    return n;
}

/* (the old scan's operands) → P, then the new scan → its results. */
static ir_func *make_replacement(cj_ctx *ctx, const cf_record *rec, const hoist_plan *pl, const rt_aval *in,
                                 const ir_func *p, cf_record *nrec) {
    int nc = pl->nc, nx = pl->nx, ncl = pl->ncl, nb = pl->n_bound;
    ir_func *r = ir_new(ctx->mem);
    int *map = rt_alloc(ctx->mem, sizeof(int) * ((size_t)p->n_vars + 1));
    int *ops = rt_alloc(ctx->mem, sizeof(int) * (size_t)(nrec->n_operands + 1));
    int ok = r && map && ops;
    for (int i = 0; ok && i < rec->n_operands; i++) ok = (ops[i < nc + nx ? i : i + nb] = ir_add_input(r, &in[i])) >= 0;
    for (int i = 0; ok && i < nx + ncl; i++) map[p->in[i]] = ops[nc + (i < nx ? i : i + nb)];
    for (int c = 0; ok && c < p->n_consts; c++) ok = (map[p->consts[c].var] = ir_add_const(r, p->consts[c].val)) >= 0;
    if (!ok) core_oom(ctx, "jit: scan hoisting");
    for (int e = 0; ok && e < p->n_eqns; e++) {
        const ir_eqn *q = &p->eqns[e];
        const int *ins = ir_eqn_inputs(p, q);
        int args_s[PRIM_SMALL_OPERANDS];
        int *args = core_table(ctx, args_s, PRIM_SMALL_OPERANDS, q->n_in, sizeof *args, "jit: scan hoisting");
        if (!args) {
            ok = 0;
            break;
        }
        for (int i = 0; i < q->n_in; i++) args[i] = map[ins[i]];
        int v = ir_add_eqn_multi(r, q->prim, &q->params, q->n_in, args, q->n_out, &p->vars[q->out]);
        core_table_free(ctx, args, args_s, q->n_in, sizeof *args);
        if (v < 0) ok = 0, core_oom(ctx, "jit: scan hoisting");
        for (int j = 0; ok && j < q->n_out; j++) map[q->out + j] = v + j;
    }
    for (int j = 0; ok && j < nb; j++) ops[nc + nx + j] = map[p->out[j]];
    if (ok) {
        prim_params sp = prim_params_zero();
        sp.ref = &nrec->ref; /* the equation takes its own reference */
        int v = ir_add_eqn_multi(r, PRIM_SCAN, &sp, nrec->n_operands, ops, nrec->n_out, nrec->out);
        if (v < 0) ok = 0, core_oom(ctx, "jit: scan hoisting");
        for (int j = 0; ok && j < nrec->n_out; j++)
            if (ir_add_output(r, v + j) != 0) ok = 0, core_oom(ctx, "jit: scan hoisting");
    }
    if (map) rt_free(ctx->mem, map, sizeof(int) * ((size_t)p->n_vars + 1));
    if (ops) rt_free(ctx->mem, ops, sizeof(int) * (size_t)(nrec->n_operands + 1));
    if (!ok && r) ir_free(r), r = NULL;
    return r;
}

/* Whether P's results are the boundary values stacked, type for type. */
static int stacked_as_expected(const hoist_plan *pl, const ir_func *p) {
    const ir_func *b = pl->body;
    int j = 0;
    for (int v = 0; v < b->n_vars; v++) {
        if (!pl->boundary[v]) continue;
        rt_aval want = b->vars[v], got = p->vars[p->out[j++]];
        if (got.rank != want.rank + 1 || got.dims[0] != pl->T || got.dtype != want.dtype) return 0;
        memmove(got.dims, got.dims + 1, sizeof(int64_t) * (size_t)want.rank);
        got.rank--;
        if (!rt_aval_same_type(&got, &want)) return 0;
    }
    return 1;
}

/* Builds rec->hoisted (or marks rec->hoist_none). 0, or -1 with the error
 * recorded. */
static int build(cj_ctx *ctx, cf_record *rec, const rt_aval *in, size_t limit) {
    hoist_plan pl;
    if (analyse(ctx, rec, &pl) != 0) {
        plan_free(ctx, &pl);
        return -1;
    }
    int status = 0;
    /* the limits cjax's vmap and tracing put on a function's inputs and
     * outputs; and no growth beyond the factor */
    if (pl.n_bound == 0 || pl.nx + pl.ncl > 64 || pl.n_bound > 64 ||
        pl.bytes > (size_t)HOIST_XS_FACTOR * pl.xs_bytes) {
        rec->hoist_none = 1;
        goto done;
    }
    if (pl.bytes > limit) goto done; /* a larger limit may take it */
    ir_func *s = make_step_part(ctx, &pl);
    ir_func *p = s ? make_batched_part(ctx, &pl, s) : NULL;
    if (s) ir_free(s);
    if (!p) {
        /* out of memory is the compile's failure; anything else (a
         * batching rule refusing) only means this scan is not hoisted */
        if (ctx->err == CJ_ERR_OOM) status = -1;
        else cj_error_clear(ctx), rec->hoist_none = 1;
        goto done;
    }
    if (products_steps_first(ctx, &p) != 0) {
        ir_free(p);
        status = -1;
        goto done;
    }
    /* what P makes on the way may be larger than what it returns (x xᵀ
     * summed): the limits hold for all of it, fusion aside */
    size_t p_bytes = 0;
    for (int e = 0; e < p->n_eqns; e++)
        for (int j = 0; j < p->eqns[e].n_out; j++) p_bytes += rt_aval_nbytes(&p->vars[p->eqns[e].out + j]);
    if (!stacked_as_expected(&pl, p) || p_bytes > (size_t)HOIST_XS_FACTOR * pl.xs_bytes || p_bytes > limit) {
        ir_free(p);
        if (p_bytes <= limit) rec->hoist_none = 1; /* else a larger limit may take it */
        goto done;
    }
    pl.bytes = p_bytes;
    ir_func *body = make_body(ctx, &pl);
    cf_record *nrec = body ? make_record(ctx, rec, &pl, body) : NULL;
    ir_func *r = nrec ? make_replacement(ctx, rec, &pl, in, p, nrec) : NULL;
    cf_record_release(nrec); /* r's equation holds it */
    ir_free(p);
    if (!r) {
        status = -1;
        goto done;
    }
    rec->hoisted = r;
    rec->hoisted_bytes = pl.bytes;
done:
    plan_free(ctx, &pl);
    return status;
}

static int scan_hoist(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const rt_aval *in,
                      const ir_func **out) {
    (void)prim;
    *out = NULL;
    cf_record *rec = cf_of(p);
    size_t limit = hoist_limit();
    /* one step or none: nothing to gain */
    if (!rec || rec->kind != CF_SCAN || n_in != rec->n_operands || limit == 0 || rec->hoist_none ||
        rec->length < 2 || rec->n_xs == 0 || ctx->err)
        return 0;
    if (!rec->hoisted && build(ctx, rec, in, limit) != 0) return -1;
    if (rec->hoisted && rec->hoisted_bytes <= limit) *out = rec->hoisted;
    return 0;
}

void cf_register_hoist(void) { prim_rules[PRIM_SCAN].hoist = scan_hoist; }
