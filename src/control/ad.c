/* ad.c — autodiff of the control-flow constructs (control layer).
 *
 * As in JAX, a construct's jvp is split at once into the two halves that
 * partial evaluation needs:
 *   known   the construct with each body replaced by its linearization's
 *           known program: it also returns the residuals (scan: stacked
 *           per step, like ys; cond: the union of every branch's
 *           residuals, each branch filling the others' slots with zeros);
 *   linear  the construct over the bodies' linear programs, reading the
 *           residuals and the tangents; linear in the tangents.
 * The transpose of a linear scan is a scan in the other direction over
 * the transposed body, accumulating the cotangents of values the body
 * closed over; the transpose of a linear cond is a cond over the
 * transposed branches. Checkpoint regions inside a body apply when the
 * body is linearized, so scan(checkpoint(step)) saves only the carries.
 * while_loop gets a jvp (a while over primal and tangent carries) and no
 * transpose: its trip count depends on the data, so reverse mode is an
 * error, as in JAX (fori_loop and scan are the differentiable loops).
 * Derived records are kept by the original (a reference each), so the
 * construct differentiated again (another trace, another call) binds the
 * same derived constructs: its programs stay the same, and compiled
 * bodies are reused. Each construct is one equation, so its jvp binds the
 * known construct once and the linear one once, whatever outputs are read. */
#include <stdio.h>
#include <string.h>

#include "../autodiff/ad.h"
#include "control.h"

typedef struct cf_lin_info {
    /* scan: which carries / xs / closure operands / ys are float (carry
     * tangents), as indices among their kind */
    int n_fc, n_fx, n_fclo, n_fy;
    int *fc, *fx, *fclo, *fy;
    int n_carry, n_y; /* of the original scan */
    int n_res;
    /* where each residual of the step's linearization comes from: made by
     * the step (0: stacked by the known scan), one of the xs (1: that x
     * slice — the xs operand itself is the stack) or a loop-invariant
     * closure operand (2: passed once, not stacked); res_src is the index
     * among the known scan's stacked residuals / the xs / the closure */
    int *res_kind, *res_src;
    int n_kres, n_sres, n_ires; /* made by the step; stacked (kinds 0, 1); invariant (2) */
    /* cond: the float arguments and outputs, each branch's float closure
     * operands; the slot of each branch's residual r (slots are shared by
     * type between branches, as JAX's _merge_branch_residuals: only one
     * branch runs) */
    int n_fa, *fa, n_fo, *fo;
    int n_fcl[CF_MAX_BRANCHES], *fcl[CF_MAX_BRANCHES];
    int n_slots, n_res_b[CF_MAX_BRANCHES];
    int *slot_of[CF_MAX_BRANCHES];
    /* every table above is carved from this one block, sized by the
     * construct: no fixed limit on carries, residuals or closure values */
    int *block;
    size_t block_n;
} cf_lin_info;

/* A zeroed lin_info whose tables have room for n ints in all (carved by
 * the caller with lin_take); NULL with the error recorded. */
static cf_lin_info *lin_info_new(cj_ctx *ctx, size_t n, const char *what) {
    cf_lin_info *li = rt_calloc(ctx->mem, sizeof *li);
    int *block = li ? rt_calloc(ctx->mem, sizeof(int) * (n ? n : 1)) : NULL;
    if (!block) {
        if (li) rt_free(ctx->mem, li, sizeof *li);
        core_oom(ctx, what);
        return NULL;
    }
    li->block = block;
    li->block_n = n ? n : 1;
    return li;
}

/* The next n ints of li's block. */
static int *lin_take(cf_lin_info *li, size_t *at, size_t n) {
    int *t = li->block + *at;
    *at += n;
    return t;
}

void cf_lin_info_free(cj_ctx *ctx, cf_lin_info *li) {
    if (!li) return;
    rt_free(ctx->mem, li->block, sizeof(int) * li->block_n);
    rt_free(ctx->mem, li, sizeof *li);
}

static cj_val zeros_or(cj_ctx *ctx, cj_val t, const rt_aval *aval) { return ad_is_zero(t) ? ad_zeros(ctx, aval) : t; }

static rt_aval stacked(const rt_aval *a, int64_t length) {
    rt_aval s = *a;
    memmove(s.dims + 1, s.dims, sizeof(int64_t) * (size_t)s.rank);
    s.dims[0] = length;
    s.rank++;
    return s;
}

static const rt_aval *in_aval(const ir_func *f, int i) { return &f->vars[f->in[i]]; }
static const rt_aval *out_aval(const ir_func *f, int j) { return &f->vars[f->out[j]]; }

/* ======================= scan ======================= */
/* Builds the known and linear halves of a scan's jvp. */
static int scan_halves(cj_ctx *ctx, cf_record *rec) {
    if (rec->ad_linear) return 0;
    const ir_func *body = rec->progs[0];
    int nc = rec->n_args, nx = rec->n_xs, ncl = rec->clo_n[0], ny = rec->n_out - nc;
    uint8_t *diff = rt_calloc(ctx->mem, (size_t)body->n_in + 1);
    if (!diff) return core_oom(ctx, "scan (jvp)");
    for (int i = 0; i < body->n_in; i++) diff[i] = rt_is_float(in_aval(body, i)->dtype);
    ad_linear L;
    int st = ad_linearize(ctx, body, diff, &L, "scan (jvp)");
    if (st != 0) {
        rt_free(ctx->mem, diff, (size_t)body->n_in + 1);
        return -1;
    }
    int n_res = L.n_res;
    cf_lin_info *li = lin_info_new(ctx, (size_t)nc + nx + ncl + ny + 2 * (size_t)n_res, "scan (jvp)");
    cf_record *K = li ? cf_record_new(ctx, CF_SCAN) : NULL;
    cf_record *Lr = K ? cf_record_new(ctx, CF_SCAN) : NULL;
    ir_func *perm = Lr ? ir_copy(L.lin) : NULL;
    if (!perm) {
        rt_free(ctx->mem, diff, (size_t)body->n_in + 1);
        cf_lin_info_free(ctx, li);
        cf_record_release(K);
        cf_record_release(Lr);
        ad_linear_free(&L);
        return ctx->err ? -1 : core_oom(ctx, "scan (jvp)");
    }
    size_t at = 0;
    li->fc = lin_take(li, &at, (size_t)nc);
    li->fx = lin_take(li, &at, (size_t)nx);
    li->fclo = lin_take(li, &at, (size_t)ncl);
    li->fy = lin_take(li, &at, (size_t)ny);
    li->res_kind = lin_take(li, &at, (size_t)n_res);
    li->res_src = lin_take(li, &at, (size_t)n_res);
    li->n_carry = nc;
    li->n_y = ny;
    li->n_res = n_res;
    for (int i = 0; i < nc; i++)
        if (diff[i]) li->fc[li->n_fc++] = i;
    for (int i = 0; i < nx; i++)
        if (diff[nc + i]) li->fx[li->n_fx++] = i;
    for (int i = 0; i < ncl; i++)
        if (diff[nc + nx + i]) li->fclo[li->n_fclo++] = i;
    for (int j = 0; j < ny; j++)
        if (rt_is_float(out_aval(body, nc + j)->dtype)) li->fy[li->n_fy++] = j;
    rt_free(ctx->mem, diff, (size_t)body->n_in + 1);

    /* classify the residuals (see cf_lin_info) */
    for (int r = 0; r < n_res; r++) {
        int var = L.known->out[nc + ny + r], input = -1;
        for (int i = 0; i < L.known->n_in && input < 0; i++)
            if (L.known->in[i] == var) input = i;
        if (input >= nc && input < nc + nx) {
            li->res_kind[r] = 1, li->res_src[r] = input - nc;
        } else if (input >= nc + nx) {
            li->res_kind[r] = 2, li->res_src[r] = input - nc - nx;
        } else {
            li->res_kind[r] = 0, li->res_src[r] = li->n_kres++;
        }
        if (li->res_kind[r] == 2) li->n_ires++;
        else li->n_sres++;
    }
    /* known: the scan's operands; the step also returns the residuals it
     * makes (the others are operands already) */
    int kept = nc + ny;
    for (int r = 0; r < n_res; r++)
        if (li->res_kind[r] == 0) L.known->out[kept++] = L.known->out[nc + ny + r];
    L.known->n_out = kept;
    K->progs[0] = L.known;
    K->n_progs = 1;
    K->n_operands = rec->n_operands;
    K->n_args = nc;
    K->n_xs = nx;
    K->clo_start[0] = rec->clo_start[0];
    K->clo_n[0] = ncl;
    K->length = rec->length;
    K->reverse = rec->reverse;
    /* linear: carries = float carries' tangents; xs = stacked residuals,
     * float xs' tangents; closure = invariant residuals, float closure
     * operands' tangents. L.lin reads (residuals, tangents in input
     * order): reorder its inputs, keep its float outputs */
    int k = 0;
    for (int j = 0; j < li->n_fc; j++) perm->in[k++] = L.lin->in[n_res + j];
    for (int r = 0; r < n_res; r++)
        if (li->res_kind[r] != 2) perm->in[k++] = L.lin->in[r];
    for (int j = 0; j < li->n_fx; j++) perm->in[k++] = L.lin->in[n_res + li->n_fc + j];
    for (int r = 0; r < n_res; r++)
        if (li->res_kind[r] == 2) perm->in[k++] = L.lin->in[r];
    for (int j = 0; j < li->n_fclo; j++) perm->in[k++] = L.lin->in[n_res + li->n_fc + li->n_fx + j];
    k = 0;
    for (int j = 0; j < li->n_fc; j++) perm->out[k++] = L.lin->out[li->fc[j]];
    for (int j = 0; j < li->n_fy; j++) perm->out[k++] = L.lin->out[nc + li->fy[j]];
    perm->n_out = k;
    Lr->progs[0] = perm;
    Lr->n_progs = 1;
    Lr->aux[0] = L.lin;
    Lr->n_aux = 1;
    Lr->lin = li;
    Lr->n_args = li->n_fc;
    Lr->n_xs = li->n_sres + li->n_fx;
    Lr->clo_start[0] = li->n_fc + Lr->n_xs;
    Lr->clo_n[0] = li->n_ires + li->n_fclo;
    Lr->n_operands = Lr->clo_start[0] + Lr->clo_n[0];
    Lr->length = rec->length;
    Lr->reverse = rec->reverse;
    /* the records own the programs now: on failure they go with them */
    L.known = L.lin = NULL;
    ad_linear_free(&L);
    if (cf_record_outs(K, kept) != 0 || cf_record_outs(Lr, li->n_fc + li->n_fy) != 0) {
        cf_record_release(K);
        cf_record_release(Lr);
        return -1;
    }
    for (int j = 0; j < nc + ny; j++) K->out[j] = rec->out[j];
    for (int j = nc + ny; j < kept; j++) K->out[j] = stacked(out_aval(K->progs[0], j), rec->length);
    for (int j = 0; j < li->n_fc; j++) Lr->out[j] = rec->out[li->fc[j]];
    for (int j = 0; j < li->n_fy; j++) Lr->out[li->n_fc + j] = rec->out[nc + li->fy[j]];
    rec->ad_known = K;
    rec->ad_linear = Lr;
    return 0;
}

static int scan_jvp(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in, const cj_val *tin,
                    int n_out, cj_val *primal, cj_val *tout) {
    (void)prim, (void)n_in;
    cf_record *rec = cf_of(p);
    if (scan_halves(ctx, rec) != 0) return -1;
    cf_record *K = rec->ad_known, *Lr = rec->ad_linear;
    const cf_lin_info *li = Lr->lin;
    int nc = rec->n_args;
    core_tables T = {.ctx = ctx};
    cj_val *kout = core_tables_get(&T, K->n_out, sizeof *kout, "scan (jvp)");
    cj_val *ops = core_tables_get(&T, Lr->n_operands, sizeof *ops, "scan (jvp)");
    cj_val *lout = core_tables_get(&T, Lr->n_out, sizeof *lout, "scan (jvp)");
    int status = -1;
    if (T.failed || cf_bind(ctx, K, in, kout) != 0) goto done;
    for (int j = 0; j < n_out; j++) primal[j] = kout[j]; /* the known scan makes the primal outputs too */
    int n = 0;
    for (int j = 0; j < li->n_fc; j++) ops[n++] = zeros_or(ctx, tin[li->fc[j]], ad_aval(in[li->fc[j]]));
    for (int r = 0; r < li->n_res; r++) {
        if (li->res_kind[r] == 0) ops[n++] = kout[nc + li->n_y + li->res_src[r]];
        if (li->res_kind[r] == 1) ops[n++] = in[nc + li->res_src[r]];
    }
    for (int j = 0; j < li->n_fx; j++) ops[n++] = zeros_or(ctx, tin[nc + li->fx[j]], ad_aval(in[nc + li->fx[j]]));
    for (int r = 0; r < li->n_res; r++)
        if (li->res_kind[r] == 2) ops[n++] = in[rec->clo_start[0] + li->res_src[r]];
    for (int j = 0; j < li->n_fclo; j++) {
        int o = rec->clo_start[0] + li->fclo[j];
        ops[n++] = zeros_or(ctx, tin[o], ad_aval(in[o]));
    }
    for (int i = 0; i < n; i++)
        if (!ops[i].slot) goto done;
    if (cf_bind(ctx, Lr, ops, lout) != 0) goto done;
    for (int j = 0; j < n_out; j++) tout[j] = ad_zero(ctx);
    for (int j = 0; j < li->n_fc; j++) tout[li->fc[j]] = lout[j];
    for (int j = 0; j < li->n_fy; j++) tout[nc + li->fy[j]] = lout[li->n_fc + j];
    status = 0;
done:
    core_tables_free(&T);
    return status;
}

/* The transposed body: (carry cotangents, closure accumulators, one step's
 * residuals, ys' cotangents) → (carry cotangents, accumulators, xs'
 * cotangents). */
static int scan_t_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    const cf_record *Lr = user;
    const cf_lin_info *li = Lr->lin;
    const ir_func *lin = Lr->aux[0];
    int nfc = li->n_fc, nfl = li->n_fclo;
    /* inputs: carry cotangents, accumulators, stacked residuals (one
     * step), ys' cotangents, invariant residuals */
    const cj_val *sres = in + nfc + nfl, *cty = sres + li->n_sres, *ires = cty + li->n_fy;
    core_tables T = {.ctx = ctx};
    cj_val *ct = core_tables_get(&T, lin->n_out, sizeof *ct, "scan (transpose)");
    cj_val *ct_in = core_tables_get(&T, lin->n_in, sizeof *ct_in, "scan (transpose)");
    cj_val *res = core_tables_get(&T, li->n_res, sizeof *res, "scan (transpose)");
    int status = -1;
    if (T.failed) goto done;
    for (int r = 0, si = 0, ii = 0; r < li->n_res; r++) res[r] = li->res_kind[r] == 2 ? ires[ii++] : sres[si++];
    for (int j = 0; j < lin->n_out; j++) ct[j] = ad_zero(ctx);
    for (int j = 0; j < nfc; j++) ct[li->fc[j]] = in[j];
    for (int j = 0; j < li->n_fy; j++) ct[li->n_carry + li->fy[j]] = cty[j];
    if (ad_transpose_eval(ctx, lin, li->n_res, res, ct, ct_in, "scan (transpose)") != 0) goto done;
    for (int j = 0; j < nfc; j++) out[j] = ct_in[j];
    for (int j = 0; j < nfl; j++) out[nfc + j] = ad_add(ctx, in[nfc + j], ct_in[nfc + li->n_fx + j]);
    for (int j = 0; j < li->n_fx; j++) out[nfc + nfl + j] = ct_in[nfc + j];
    status = ctx->err ? -1 : 0;
done:
    core_tables_free(&T);
    return status;
}

static cf_record *scan_transposed(cj_ctx *ctx, cf_record *Lr) {
    if (Lr->ad_transposed) return Lr->ad_transposed;
    const cf_lin_info *li = Lr->lin;
    const ir_func *lin = Lr->aux[0];
    int nfc = li->n_fc, nfl = li->n_fclo, nr = li->n_res;
    rt_aval *avals = rt_alloc(ctx->mem, sizeof(rt_aval) * (size_t)(lin->n_in + lin->n_out + 1));
    if (!avals) {
        core_oom(ctx, "scan (transpose)");
        return NULL;
    }
    int n = 0;
    for (int j = 0; j < nfc; j++) avals[n++] = *in_aval(lin, nr + j);
    for (int j = 0; j < nfl; j++) avals[n++] = *in_aval(lin, nr + nfc + li->n_fx + j);
    for (int r = 0; r < nr; r++)
        if (li->res_kind[r] != 2) avals[n++] = *in_aval(lin, r);
    for (int j = 0; j < li->n_fy; j++) avals[n++] = *out_aval(lin, li->n_carry + li->fy[j]);
    for (int r = 0; r < nr; r++)
        if (li->res_kind[r] == 2) avals[n++] = *in_aval(lin, r);
    ir_func *body = func_trace_body(ctx, n, avals, NULL, nfc + nfl + li->n_fx, scan_t_body, Lr, "scan", "scan (transpose)",
                                    NULL);
    rt_free(ctx->mem, avals, sizeof(rt_aval) * (size_t)(lin->n_in + lin->n_out + 1));
    if (!body) return NULL;
    cf_record *T = cf_record_new(ctx, CF_SCAN);
    if (!T) {
        ir_free(body);
        return NULL;
    }
    T->progs[0] = body;
    T->n_progs = 1;
    T->n_args = nfc + nfl;
    T->n_xs = li->n_sres + li->n_fy;
    T->clo_start[0] = T->n_args + T->n_xs;
    T->clo_n[0] = li->n_ires;
    T->n_operands = T->clo_start[0] + li->n_ires;
    T->length = Lr->length;
    T->reverse = !Lr->reverse;
    if (cf_record_outs(T, nfc + nfl + li->n_fx) != 0) {
        cf_record_release(T);
        return NULL;
    }
    for (int j = 0; j < nfc + nfl; j++) T->out[j] = *out_aval(body, j);
    for (int j = 0; j < li->n_fx; j++) T->out[nfc + nfl + j] = stacked(out_aval(body, nfc + nfl + j), Lr->length);
    Lr->ad_transposed = T;
    return T;
}

/* The cotangent of a result: as given, or zeros of its type. */
static cj_val ct_or_zeros(cj_ctx *ctx, cj_val ct, const rt_aval *aval) { return ad_is_zero(ct) ? ad_zeros(ctx, aval) : ct; }

static int scan_transpose(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                          const int *linear, const rt_aval *in_avals, int n_out, const cj_val *ct, cj_val *ct_in) {
    (void)prim, (void)n_in, (void)linear, (void)n_out;
    cf_record *Lr = cf_of(p);
    if (!Lr->lin)
        return core_error(ctx, CJ_ERR_UNSUPPORTED, "scan: transposing a scan that is not the linear part of a jvp");
    const cf_lin_info *li = Lr->lin;
    cf_record *T = scan_transposed(ctx, Lr);
    if (!T) return -1;
    int nfc = li->n_fc, nfl = li->n_fclo;
    /* the linear scan's operands: t carries, stacked residuals, t xs,
     * invariant residuals, t closure */
    int at_sres = nfc, at_tx = nfc + li->n_sres, at_ires = Lr->clo_start[0], at_tclo = at_ires + li->n_ires;
    core_tables Tb = {.ctx = ctx};
    cj_val *ops = core_tables_get(&Tb, T->n_operands, sizeof *ops, "scan (transpose)");
    cj_val *res = core_tables_get(&Tb, T->n_out, sizeof *res, "scan (transpose)");
    int status = -1;
    if (Tb.failed) goto done;
    int n = 0;
    for (int j = 0; j < nfc; j++) ops[n++] = ct_or_zeros(ctx, ct[j], &Lr->out[j]);
    for (int j = 0; j < nfl; j++) ops[n++] = ad_zeros(ctx, &in_avals[at_tclo + j]);
    for (int r = 0; r < li->n_sres; r++) ops[n++] = in[at_sres + r];
    for (int j = 0; j < li->n_fy; j++) ops[n++] = ct_or_zeros(ctx, ct[nfc + j], &Lr->out[nfc + j]);
    for (int r = 0; r < li->n_ires; r++) ops[n++] = in[at_ires + r];
    for (int i = 0; i < n; i++)
        if (!ops[i].slot) goto done;
    if (cf_bind(ctx, T, ops, res) != 0) goto done;
    for (int j = 0; j < nfc; j++) ct_in[j] = res[j];
    for (int j = 0; j < li->n_fx; j++) ct_in[at_tx + j] = res[nfc + nfl + j];
    for (int j = 0; j < nfl; j++) ct_in[at_tclo + j] = res[nfc + j];
    status = 0;
done:
    core_tables_free(&Tb);
    return status;
}

/* ======================= cond ======================= */
typedef struct cond_job {
    const cf_record *rec;
    const ir_func *prog; /* the branch's known or linear program */
    int branch;
    const cf_lin_info *li;
    const rt_aval *slots; /* the residual slots' types */
} cond_job;

/* known branch b: (args, its closure) → (outputs, every slot; the other
 * branches' slots zero) */
static int cond_known_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    const cond_job *job = user;
    const cf_lin_info *li = job->li;
    int n_out = job->rec->n_out, b = job->branch;
    core_tables T = {.ctx = ctx};
    cj_val *res = core_tables_get(&T, job->prog->n_out, sizeof *res, "cond (jvp)");
    uint8_t *mine = core_tables_get(&T, li->n_slots, 1, "cond (jvp)");
    int status = -1;
    if (!T.failed && ir_eval_values(ctx, job->prog, in, res) == 0) {
        for (int j = 0; j < n_out; j++) out[j] = res[j];
        for (int r = 0; r < li->n_res_b[b]; r++) {
            out[n_out + li->slot_of[b][r]] = res[n_out + r];
            mine[li->slot_of[b][r]] = 1;
        }
        for (int slot = 0; slot < li->n_slots; slot++)
            if (!mine[slot]) out[n_out + slot] = ad_zeros(ctx, &job->slots[slot]);
        status = 0;
    }
    core_tables_free(&T);
    return status;
}

/* linear branch b: (all slots, float args' tangents, its float closure
 * tangents) → float outputs' tangents */
static int cond_lin_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    const cond_job *job = user;
    const cf_lin_info *li = job->li;
    int b = job->branch;
    core_tables T = {.ctx = ctx};
    cj_val *args = core_tables_get(&T, job->prog->n_in, sizeof *args, "cond (jvp)");
    cj_val *res = core_tables_get(&T, job->prog->n_out, sizeof *res, "cond (jvp)");
    int status = -1;
    if (!T.failed) {
        int n = 0;
        for (int r = 0; r < li->n_res_b[b]; r++) args[n++] = in[li->slot_of[b][r]];
        for (int j = 0; j < li->n_fa + li->n_fcl[b]; j++) args[n++] = in[li->n_slots + j];
        if (ir_eval_values(ctx, job->prog, args, res) == 0) {
            for (int j = 0; j < li->n_fo; j++) out[j] = res[li->fo[j]];
            status = 0;
        }
    }
    core_tables_free(&T);
    return status;
}

static int cond_halves(cj_ctx *ctx, cf_record *rec) {
    if (rec->ad_linear) return 0;
    int nb = rec->n_progs, na = rec->n_args;
    ad_linear L[CF_MAX_BRANCHES];
    memset(L, 0, sizeof L);
    core_tables T = {.ctx = ctx};
    cf_lin_info *li = NULL;
    cf_record *K = NULL, *Lr = NULL;
    int status = 0, max_in = 1, total_res = 0;
    for (int b = 0; b < nb && status == 0; b++) {
        const ir_func *pb = rec->progs[b];
        uint8_t *diff = core_tables_get(&T, pb->n_in, 1, "cond (jvp)");
        if (!diff) status = -1;
        for (int i = 0; status == 0 && i < pb->n_in; i++) diff[i] = rt_is_float(in_aval(pb, i)->dtype);
        if (status == 0) status = ad_linearize(ctx, pb, diff, &L[b], "cond (jvp)");
        if (status == 0) total_res += L[b].n_res;
        if (pb->n_in > max_in) max_in = pb->n_in;
    }
    /* the tables, sized by the construct: float args, float outputs, each
     * branch's float closure operands and its residuals' slots */
    size_t n_ints = (size_t)na + (size_t)rec->n_out + (size_t)total_res;
    for (int b = 0; b < nb; b++) n_ints += (size_t)rec->clo_n[b];
    if (status == 0 && !(li = lin_info_new(ctx, n_ints, "cond (jvp)"))) status = -1;
    rt_aval *slot_aval = status == 0 ? core_tables_get(&T, total_res, sizeof *slot_aval, "cond (jvp)") : NULL;
    uint8_t *taken = status == 0 ? core_tables_get(&T, total_res, 1, "cond (jvp)") : NULL;
    rt_aval *avals = status == 0 ? core_tables_get(&T, max_in + total_res, sizeof *avals, "cond (jvp)") : NULL;
    if (status == 0 && T.failed) status = -1;
    if (status == 0) {
        size_t at = 0;
        li->fa = lin_take(li, &at, (size_t)na);
        li->fo = lin_take(li, &at, (size_t)rec->n_out);
        for (int b = 0; b < nb; b++) {
            li->fcl[b] = lin_take(li, &at, (size_t)rec->clo_n[b]);
            li->slot_of[b] = lin_take(li, &at, (size_t)L[b].n_res);
            li->n_res_b[b] = L[b].n_res;
            for (int i = 0; i < rec->clo_n[b]; i++)
                if (rt_is_float(in_aval(rec->progs[b], na + i)->dtype)) li->fcl[b][li->n_fcl[b]++] = i;
        }
        /* the slots: a branch's residual takes the first slot of its type
         * the branch does not fill yet, else a new one */
        for (int b = 0; b < nb; b++) {
            memset(taken, 0, (size_t)(total_res ? total_res : 1));
            for (int r = 0; r < L[b].n_res; r++) {
                const rt_aval *a = out_aval(L[b].known, rec->n_out + r);
                int slot = 0;
                while (slot < li->n_slots && (taken[slot] || !rt_aval_equal(&slot_aval[slot], a))) slot++;
                if (slot == li->n_slots) slot_aval[li->n_slots++] = *a;
                taken[slot] = 1;
                li->slot_of[b][r] = slot;
            }
        }
        for (int i = 0; i < na; i++)
            if (rt_is_float(in_aval(rec->progs[0], i)->dtype)) li->fa[li->n_fa++] = i;
        for (int j = 0; j < rec->n_out; j++)
            if (rt_is_float(rec->out[j].dtype)) li->fo[li->n_fo++] = j;
        K = cf_record_new(ctx, CF_COND);
        Lr = K ? cf_record_new(ctx, CF_COND) : NULL;
        if (!Lr || cf_record_outs(K, rec->n_out + li->n_slots) != 0 || cf_record_outs(Lr, li->n_fo) != 0) status = -1;
    }
    for (int b = 0; b < nb && status == 0; b++) {
        /* known branch: trace it with the zero slots of the others */
        for (int i = 0; i < rec->progs[b]->n_in; i++) avals[i] = *in_aval(rec->progs[b], i);
        cond_job job = {rec, L[b].known, b, li, slot_aval};
        K->progs[b] = func_trace_body(ctx, rec->progs[b]->n_in, avals, NULL, rec->n_out + li->n_slots, cond_known_body,
                                      &job, "cond", "cond (jvp, known branch)", NULL);
        if (!K->progs[b]) status = -1;
        K->n_progs = b + 1;
        /* linear branch */
        int n = 0;
        for (int s = 0; s < li->n_slots; s++) avals[n++] = slot_aval[s];
        for (int j = 0; j < li->n_fa; j++) avals[n++] = *in_aval(rec->progs[b], li->fa[j]);
        for (int j = 0; j < li->n_fcl[b]; j++) avals[n++] = *in_aval(rec->progs[b], na + li->fcl[b][j]);
        cond_job lj = {rec, L[b].lin, b, li, slot_aval};
        if (status == 0)
            Lr->progs[b] = func_trace_body(ctx, n, avals, NULL, li->n_fo, cond_lin_body, &lj, "cond",
                                           "cond (jvp, linear branch)", NULL);
        if (status == 0 && !Lr->progs[b]) status = -1;
        Lr->n_progs = b + 1;
    }
    if (status != 0) {
        for (int b = 0; b < nb; b++) ad_linear_free(&L[b]);
        cf_lin_info_free(ctx, li); /* Lr->lin is set only on success */
        cf_record_release(K);
        cf_record_release(Lr);
        core_tables_free(&T);
        return -1;
    }
    K->n_operands = rec->n_operands;
    K->n_args = na;
    memcpy(K->clo_start, rec->clo_start, sizeof K->clo_start);
    memcpy(K->clo_n, rec->clo_n, sizeof K->clo_n);
    for (int j = 0; j < rec->n_out; j++) K->out[j] = rec->out[j];
    for (int s = 0; s < li->n_slots; s++) K->out[rec->n_out + s] = slot_aval[s];
    Lr->n_args = li->n_slots + li->n_fa;
    int at = 1 + Lr->n_args;
    for (int b = 0; b < nb; b++) {
        Lr->clo_start[b] = at;
        Lr->clo_n[b] = li->n_fcl[b];
        at += li->n_fcl[b];
        Lr->aux[b] = L[b].lin;
        L[b].lin = NULL;
        ad_linear_free(&L[b]);
    }
    Lr->n_aux = nb;
    Lr->n_operands = at;
    for (int j = 0; j < li->n_fo; j++) Lr->out[j] = rec->out[li->fo[j]];
    Lr->lin = li;
    rec->ad_known = K;
    rec->ad_linear = Lr;
    core_tables_free(&T);
    return 0;
}

static int cond_jvp(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in, const cj_val *tin,
                    int n_out, cj_val *primal, cj_val *tout) {
    (void)prim, (void)n_in;
    cf_record *rec = cf_of(p);
    if (cond_halves(ctx, rec) != 0) return -1;
    cf_record *K = rec->ad_known, *Lr = rec->ad_linear;
    const cf_lin_info *li = Lr->lin;
    core_tables T = {.ctx = ctx};
    cj_val *kout = core_tables_get(&T, K->n_out, sizeof *kout, "cond (jvp)");
    cj_val *ops = core_tables_get(&T, Lr->n_operands, sizeof *ops, "cond (jvp)");
    cj_val *lout = core_tables_get(&T, Lr->n_out, sizeof *lout, "cond (jvp)");
    int status = -1;
    if (T.failed || cf_bind(ctx, K, in, kout) != 0) goto done;
    for (int j = 0; j < n_out; j++) primal[j] = kout[j];
    int n = 0;
    ops[n++] = in[0];
    for (int s = 0; s < li->n_slots; s++) ops[n++] = kout[rec->n_out + s];
    for (int j = 0; j < li->n_fa; j++) ops[n++] = zeros_or(ctx, tin[1 + li->fa[j]], ad_aval(in[1 + li->fa[j]]));
    for (int b = 0; b < rec->n_progs; b++)
        for (int j = 0; j < li->n_fcl[b]; j++) {
            int o = rec->clo_start[b] + li->fcl[b][j];
            ops[n++] = zeros_or(ctx, tin[o], ad_aval(in[o]));
        }
    for (int i = 0; i < n; i++)
        if (!ops[i].slot) goto done;
    if (cf_bind(ctx, Lr, ops, lout) != 0) goto done;
    for (int j = 0; j < n_out; j++) tout[j] = ad_zero(ctx);
    for (int j = 0; j < li->n_fo; j++) tout[li->fo[j]] = lout[j];
    status = 0;
done:
    core_tables_free(&T);
    return status;
}

/* transposed branch b: (all slots, float outputs' cotangents) → (float
 * args' cotangents, then every branch's float closure cotangents; zeros
 * but for b's own) */
static int cond_t_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    const cond_job *job = user;
    const cf_record *Lr = job->rec;
    const cf_lin_info *li = Lr->lin;
    int b = job->branch;
    const ir_func *lin = Lr->aux[b];
    core_tables T = {.ctx = ctx};
    cj_val *ct = core_tables_get(&T, lin->n_out, sizeof *ct, "cond (transpose)");
    cj_val *ct_in = core_tables_get(&T, lin->n_in, sizeof *ct_in, "cond (transpose)");
    cj_val *resid = core_tables_get(&T, li->n_res_b[b], sizeof *resid, "cond (transpose)");
    int status = -1;
    if (T.failed) goto done;
    for (int j = 0; j < lin->n_out; j++) ct[j] = ad_zero(ctx);
    for (int j = 0; j < li->n_fo; j++) ct[li->fo[j]] = in[li->n_slots + j];
    for (int r = 0; r < li->n_res_b[b]; r++) resid[r] = in[li->slot_of[b][r]];
    if (ad_transpose_eval(ctx, lin, li->n_res_b[b], resid, ct, ct_in, "cond (transpose)") != 0) goto done;
    int n = 0;
    for (int j = 0; j < li->n_fa; j++) out[n++] = ct_in[j];
    for (int c = 0; c < Lr->n_progs; c++)
        for (int j = 0; j < li->n_fcl[c]; j++) {
            out[n] = c == b ? ct_in[li->n_fa + j] : ad_zeros(ctx, &job->slots[n]);
            n++;
        }
    status = ctx->err ? -1 : 0;
done:
    core_tables_free(&T);
    return status;
}

static cf_record *cond_transposed(cj_ctx *ctx, cf_record *Lr) {
    if (Lr->ad_transposed) return Lr->ad_transposed;
    const cf_lin_info *li = Lr->lin;
    int nb = Lr->n_progs;
    /* inputs: slots, float outputs' cotangents; outputs: the linear operands' cotangents */
    core_tables Tb = {.ctx = ctx};
    rt_aval *avals = core_tables_get(&Tb, li->n_slots + li->n_fo, sizeof *avals, "cond (transpose)");
    rt_aval *outs = core_tables_get(&Tb, Lr->n_operands, sizeof *outs, "cond (transpose)");
    cf_record *T = Tb.failed ? NULL : cf_record_new(ctx, CF_COND);
    if (!T) {
        core_tables_free(&Tb);
        return NULL;
    }
    int n = 0, m = 0;
    for (int s = 0; s < li->n_slots; s++) avals[n++] = *in_aval(Lr->progs[0], s);
    for (int j = 0; j < li->n_fo; j++) avals[n++] = Lr->out[j];
    for (int j = 0; j < li->n_fa; j++) outs[m++] = *in_aval(Lr->progs[0], li->n_slots + j);
    for (int b = 0; b < nb; b++)
        for (int j = 0; j < li->n_fcl[b]; j++) outs[m++] = *in_aval(Lr->progs[b], li->n_slots + li->n_fa + j);
    for (int b = 0; b < nb; b++) {
        cond_job job = {Lr, NULL, b, li, outs};
        T->progs[b] = func_trace_body(ctx, n, avals, NULL, m, cond_t_body, &job, "cond", "cond (transpose)", NULL);
        T->n_progs = b + 1;
        if (!T->progs[b]) break;
    }
    if (!T->progs[T->n_progs - 1] || cf_record_outs(T, m) != 0) {
        cf_record_release(T);
        core_tables_free(&Tb);
        return NULL;
    }
    T->n_args = n;
    T->n_operands = 1 + n;
    for (int b = 0; b < nb; b++) T->clo_start[b] = T->n_operands;
    memcpy(T->out, outs, sizeof(rt_aval) * (size_t)m);
    core_tables_free(&Tb);
    Lr->ad_transposed = T;
    return T;
}

static int cond_transpose(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                          const int *linear, const rt_aval *in_avals, int n_out, const cj_val *ct, cj_val *ct_in) {
    (void)prim, (void)n_in, (void)linear, (void)in_avals, (void)n_out;
    cf_record *Lr = cf_of(p);
    if (!Lr->lin)
        return core_error(ctx, CJ_ERR_UNSUPPORTED, "cond: transposing a cond that is not the linear part of a jvp");
    const cf_lin_info *li = Lr->lin;
    cf_record *T = cond_transposed(ctx, Lr);
    if (!T) return -1;
    core_tables Tb = {.ctx = ctx};
    cj_val *ops = core_tables_get(&Tb, T->n_operands, sizeof *ops, "cond (transpose)");
    cj_val *res = core_tables_get(&Tb, T->n_out, sizeof *res, "cond (transpose)");
    int status = -1;
    if (Tb.failed) goto done;
    int n = 0;
    ops[n++] = in[0];
    for (int s = 0; s < li->n_slots; s++) ops[n++] = in[1 + s];
    for (int j = 0; j < li->n_fo; j++) ops[n++] = ct_or_zeros(ctx, ct[j], &Lr->out[j]);
    for (int i = 0; i < n; i++)
        if (!ops[i].slot) goto done;
    if (cf_bind(ctx, T, ops, res) != 0) goto done;
    int m = 0;
    for (int j = 0; j < li->n_fa; j++) ct_in[1 + li->n_slots + j] = res[m++];
    for (int b = 0; b < Lr->n_progs; b++)
        for (int j = 0; j < li->n_fcl[b]; j++) ct_in[Lr->clo_start[b] + j] = res[m++];
    status = 0;
done:
    core_tables_free(&Tb);
    return status;
}

/* ======================= while ======================= */
typedef struct while_job {
    const cf_record *rec;
    int n_fc, *fc, n_fbc, *fbc; /* float carries; float body closure operands */
} while_job;

/* cond of the jvp loop: the primal cond on the primal carries */
static int while_jvp_cond(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    const while_job *job = user;
    const cf_record *rec = job->rec;
    int nc = rec->n_args;
    core_tables T = {.ctx = ctx};
    cj_val *args = core_tables_get(&T, nc + rec->clo_n[0], sizeof *args, "while_loop (jvp)");
    int status = -1;
    if (args) {
        for (int i = 0; i < nc; i++) args[i] = in[i];
        for (int i = 0; i < rec->clo_n[0]; i++) args[nc + i] = in[nc + job->n_fc + i];
        status = ir_eval_values(ctx, rec->progs[0], args, out);
    }
    core_tables_free(&T);
    return status;
}

/* body of the jvp loop: (carries, float carries' tangents, closure,
 * float closure tangents) → (carries, tangents) */
static int while_jvp_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    const while_job *job = user;
    const cf_record *rec = job->rec;
    const ir_func *body = rec->progs[1];
    int nc = rec->n_args, nbc = rec->clo_n[1];
    core_tables T = {.ctx = ctx};
    cj_val *args = core_tables_get(&T, nc + nbc, sizeof *args, "while_loop (jvp)");
    cj_val *t = core_tables_get(&T, nc + nbc, sizeof *t, "while_loop (jvp)");
    cj_val *res = core_tables_get(&T, body->n_out, sizeof *res, "while_loop (jvp)");
    cj_val *tres = core_tables_get(&T, body->n_out, sizeof *tres, "while_loop (jvp)");
    int status = -1;
    if (T.failed) goto done;
    for (int i = 0; i < nc + nbc; i++) t[i] = ad_zero(ctx);
    for (int i = 0; i < nc; i++) args[i] = in[i];
    for (int j = 0; j < job->n_fc; j++) t[job->fc[j]] = in[nc + j];
    for (int i = 0; i < nbc; i++) args[nc + i] = in[nc + job->n_fc + i];
    for (int j = 0; j < job->n_fbc; j++) t[nc + job->fbc[j]] = in[nc + job->n_fc + nbc + j];
    if (ad_jvp_eval(ctx, body, args, t, res, tres, "while_loop (jvp)") != 0) goto done;
    for (int i = 0; i < nc; i++) out[i] = res[i];
    for (int j = 0; j < job->n_fc; j++) out[nc + j] = zeros_or(ctx, tres[job->fc[j]], out_aval(body, job->fc[j]));
    status = ctx->err ? -1 : 0;
done:
    core_tables_free(&T);
    return status;
}

/* The level of the trace an equation of these operands (and tangents,
 * slot 0: zero) is bound at: the innermost among them and the dynamic one,
 * as core_bind chooses. */
static int bind_level(cj_ctx *ctx, int n, const cj_val *in, const cj_val *tin) {
    int level = ctx->dynamic_level;
    for (int i = 0; i < 2 * n; i++) {
        cj_val v = i < n ? in[i] : tin[i - n];
        core_value *cv = v.slot ? core_peek(v) : NULL;
        if (cv && cv->kind == VALUE_TRACER && cv->level > level) level = cv->level;
    }
    return level;
}

/* The jvp loop's record: (carries, float carries' tangents, cond closure,
 * body closure, float body closure tangents) → (carries, tangents); NULL
 * with the error recorded. */
static cf_record *while_jvp_record(cj_ctx *ctx, cf_record *rec, while_job *job, const cj_val *in) {
    int nc = rec->n_args, ncc = rec->clo_n[0], nbc = rec->clo_n[1];
    core_tables T = {.ctx = ctx};
    rt_aval *avals = core_tables_get(&T, 2 * nc + ncc + 2 * nbc, sizeof *avals, "while_loop (jvp)");
    if (!avals) return NULL;
    int n = 0;
    for (int i = 0; i < nc; i++) avals[n++] = rec->out[i];
    for (int j = 0; j < job->n_fc; j++) avals[n++] = rec->out[job->fc[j]];
    int n_cond = n;
    for (int i = 0; i < ncc; i++) avals[n_cond + i] = *ad_aval(in[rec->clo_start[0] + i]);
    ir_func *cond = func_trace_body(ctx, n_cond + ncc, avals, NULL, 1, while_jvp_cond, job, "while_loop",
                                    "while_loop (jvp cond)", NULL);
    n = n_cond;
    for (int i = 0; i < nbc; i++) avals[n++] = *ad_aval(in[rec->clo_start[1] + i]);
    for (int j = 0; j < job->n_fbc; j++) avals[n++] = *ad_aval(in[rec->clo_start[1] + job->fbc[j]]);
    ir_func *body = cond ? func_trace_body(ctx, n, avals, NULL, n_cond, while_jvp_body, job, "while_loop",
                                           "while_loop (jvp body)", NULL)
                         : NULL;
    cf_record *J = body ? cf_record_new(ctx, CF_WHILE) : NULL;
    if (!J) {
        if (cond) ir_free(cond);
        if (body) ir_free(body);
        core_tables_free(&T);
        return NULL;
    }
    J->progs[0] = cond;
    J->progs[1] = body;
    J->n_progs = 2;
    J->n_args = n_cond;
    J->clo_start[0] = n_cond;
    J->clo_n[0] = ncc;
    J->clo_start[1] = n_cond + ncc;
    J->clo_n[1] = nbc + job->n_fbc;
    J->n_operands = n_cond + ncc + nbc + job->n_fbc;
    if (cf_record_outs(J, n_cond) != 0) {
        cf_record_release(J);
        J = NULL;
    } else {
        for (int i = 0; i < n_cond; i++) J->out[i] = avals[i];
    }
    core_tables_free(&T);
    return J;
}

static int while_jvp(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in, const cj_val *tin,
                     int n_out, cj_val *primal, cj_val *tout) {
    (void)prim;
    cf_record *rec = cf_of(p);
    /* One loop over (primal, tangent) carries gives both, as JAX's jvp of
     * while does. Only when the equation lands in a program that
     * ad_linearize will split is the primal loop bound beside it: the jvp
     * loop reads tangents, so its primal outputs would be unknown to
     * partial evaluation, and the known side needs them (JAX's partial
     * evaluation of while runs a known loop beside the whole one too). */
    int split_later = ctx->linearize_level > 0 && bind_level(ctx, n_in, in, tin) >= ctx->linearize_level;
    if (split_later && core_bind_multi(ctx, PRIM_WHILE, p, n_in, in, n_out, primal) != 0) return -1;
    int nc = rec->n_args, ncc = rec->clo_n[0], nbc = rec->clo_n[1];
    core_tables T = {.ctx = ctx};
    while_job job = {rec, 0, NULL, 0, NULL};
    job.fc = core_tables_get(&T, nc, sizeof(int), "while_loop (jvp)");
    job.fbc = core_tables_get(&T, nbc, sizeof(int), "while_loop (jvp)");
    cj_val *ops = core_tables_get(&T, 2 * nc + ncc + 2 * nbc, sizeof *ops, "while_loop (jvp)");
    cj_val *res = core_tables_get(&T, 2 * nc, sizeof *res, "while_loop (jvp)");
    int status = -1;
    if (T.failed) goto done;
    for (int i = 0; i < nc; i++)
        if (rt_is_float(rec->out[i].dtype)) job.fc[job.n_fc++] = i;
    for (int i = 0; i < nbc; i++)
        if (rt_is_float(ad_aval(in[rec->clo_start[1] + i])->dtype)) job.fbc[job.n_fbc++] = i;
    if (!rec->ad_linear && !(rec->ad_linear = while_jvp_record(ctx, rec, &job, in))) goto done;
    cf_record *J = rec->ad_linear;
    int n = 0;
    for (int i = 0; i < nc; i++) ops[n++] = in[i];
    for (int j = 0; j < job.n_fc; j++) ops[n++] = zeros_or(ctx, tin[job.fc[j]], &rec->out[job.fc[j]]);
    for (int i = 0; i < ncc; i++) ops[n++] = in[rec->clo_start[0] + i];
    for (int i = 0; i < nbc; i++) ops[n++] = in[rec->clo_start[1] + i];
    for (int j = 0; j < job.n_fbc; j++) {
        int o = rec->clo_start[1] + job.fbc[j];
        ops[n++] = zeros_or(ctx, tin[o], ad_aval(in[o]));
    }
    for (int i = 0; i < n; i++)
        if (!ops[i].slot) goto done;
    if (cf_bind(ctx, J, ops, res) != 0) goto done;
    if (!split_later)
        for (int j = 0; j < n_out; j++) primal[j] = res[j];
    for (int j = 0; j < n_out; j++) tout[j] = ad_zero(ctx);
    for (int j = 0; j < job.n_fc; j++) tout[job.fc[j]] = res[nc + j];
    status = 0;
done:
    core_tables_free(&T);
    return status;
}

static int while_transpose(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                           const int *linear, const rt_aval *in_avals, int n_out, const cj_val *ct, cj_val *ct_in) {
    (void)prim, (void)p, (void)n_in, (void)in, (void)linear, (void)in_avals, (void)n_out, (void)ct, (void)ct_in;
    return core_error(ctx, CJ_ERR_UNSUPPORTED,
                      "while_loop: reverse-mode differentiation (grad, vjp, jacrev) of a loop whose trip count depends "
                      "on the data is not supported; use fori_loop with fixed bounds or scan (forward mode, jvp and "
                      "jacfwd, works)");
}

void cf_register_ad(void) {
    cf_register_print(); /* registered with the other rules at start-up */
    /* scan and cond: the known construct makes the primal outputs too, so
     * the original construct is not run beside it */
    prim_rules[PRIM_SCAN].jvp_multi = scan_jvp;
    prim_rules[PRIM_SCAN].transpose_multi = scan_transpose;
    prim_rules[PRIM_COND].jvp_multi = cond_jvp;
    prim_rules[PRIM_COND].transpose_multi = cond_transpose;
    prim_rules[PRIM_WHILE].jvp_multi = while_jvp;
    prim_rules[PRIM_WHILE].transpose_multi = while_transpose;
}
