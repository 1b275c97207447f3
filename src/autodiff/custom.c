/* custom.c — user-written derivatives: custom_jvp and custom_vjp
 * (autodiff layer).
 *
 * Calling such a function while a program is staged traces f for the
 * call's input types, keeps the result in a call record (core.h) and binds
 * one primitive, custom_jvp_call or custom_vjp_call, whose params.ref is
 * the record. Everything but autodiff sees f: eager evaluation runs
 * the recorded program, vmap re-binds it batched, and the compiler inlines
 * it before fusion. Autodiff sees the rule instead:
 *   custom_jvp_call's jvp calls the user's jvp rule;
 *   custom_vjp_call's jvp calls fwd (output and residuals) and makes the
 *   tangent a custom_lin primitive of the residuals and input tangents,
 *   whose transpose calls bwd. As in JAX, forward mode through a
 *   custom_vjp function is an error (custom_lin has no evaluation).
 * Called with nothing staged, the function is simply f. */
#include <stdio.h>
#include <string.h>

#include "ad.h"

/* ---- the function objects ---- */
typedef struct custom_state {
    core_custom_kind kind;
    cj_func *jvp_rule, *fwd, *bwd;
} custom_state;

static int custom_call(cj_func *c, const cj_val *in, cj_val *out) {
    cj_ctx *ctx = c->ctx;
    custom_state *st = c->state;
    if (ctx->dynamic_level == 0) return cj_call(c->inner, in, out) == CJ_OK ? 0 : -1;
    rt_aval avals[64];
    for (int i = 0; i < c->n_in; i++) avals[i] = core_peek(in[i])->aval;
    core_custom init = {{0, NULL}, ctx, st->kind, c->inner, st->jvp_rule, st->fwd, st->bwd, NULL, {0}};
    init.primal = func_trace_to_ir(c->inner, avals, NULL, c->name);
    if (!init.primal) return -1;
    init.out = init.primal->vars[init.primal->out[0]];
    /* programs that mention the record call f and the rules: it holds
     * them, and lives as long as those programs */
    core_custom *rec = core_custom_new(ctx, &init);
    if (!rec) return -1;
    prim_params p = prim_params_zero();
    p.ref = &rec->ref;
    out[0] = core_bind(ctx, st->kind == CUSTOM_JVP ? PRIM_CUSTOM_JVP_CALL : PRIM_CUSTOM_VJP_CALL, &p, c->n_in, in);
    prim_ref_release(&rec->ref); /* the staged equation holds its own */
    return out[0].slot ? 0 : -1;
}

static void custom_free_state(cj_func *c) {
    custom_state *st = c->state;
    if (!st) return;
    func_release(st->jvp_rule);
    func_release(st->fwd);
    func_release(st->bwd);
    rt_free(c->ctx->mem, st, sizeof *st);
    c->state = NULL;
}
static const func_ops custom_ops = {"custom", custom_call, custom_free_state};

static cj_func *make_custom(cj_func *f, core_custom_kind kind, cj_func *rule, cj_func *fwd, cj_func *bwd) {
    cj_ctx *ctx = f->ctx;
    const char *api = kind == CUSTOM_JVP ? "cj_custom_jvp" : "cj_custom_vjp";
    int bad = f->n_out != 1;
    if (kind == CUSTOM_JVP)
        bad |= !rule || rule->n_in != 2 * f->n_in || rule->n_out != 2;
    else
        bad |= !fwd || !bwd || fwd->n_in != f->n_in || fwd->n_out < 1 || bwd->n_in != fwd->n_out ||
               bwd->n_out != f->n_in;
    if (bad) {
        core_error(ctx, CJ_ERR_ARG,
                   kind == CUSTOM_JVP
                       ? "%s(%s): f needs one output and the rule 2*n_in inputs (primals, tangents) and 2 outputs"
                       : "%s(%s): f needs one output; fwd f's inputs and 1 + n_res outputs; bwd n_res + 1 inputs and "
                         "f's number of inputs as outputs",
                   api, f->name);
        return NULL;
    }
    custom_state *st = rt_calloc(ctx->mem, sizeof *st);
    if (!st) {
        core_oom(ctx, api);
        return NULL;
    }
    *st = (custom_state){kind, rule, fwd, bwd};
    char name[256];
    snprintf(name, sizeof name, "%s(%s)", kind == CUSTOM_JVP ? "custom_jvp" : "custom_vjp", f->name);
    cj_func *c = func_new(ctx, name, &custom_ops, f->n_in, 1);
    if (!c) {
        rt_free(ctx->mem, st, sizeof *st);
        return NULL;
    }
    c->inner = func_retain(f);
    c->state = st;
    func_retain(rule); /* released in custom_free_state */
    func_retain(fwd);
    func_retain(bwd);
    return c;
}

/* f live, and each rule given a live function object of f's context */
cj_func *cj_custom_jvp(cj_func *f, cj_func *jvp_rule) {
    if (!func_check(NULL, f, "cj_custom_jvp", "f")) return NULL;
    if (!jvp_rule) return core_error(f->ctx, CJ_ERR_ARG, "cj_custom_jvp(%s): jvp_rule is NULL", f->name), NULL;
    if (!func_check(f->ctx, jvp_rule, "cj_custom_jvp", "the jvp rule")) return NULL;
    return make_custom(f, CUSTOM_JVP, jvp_rule, NULL, NULL);
}
cj_func *cj_custom_vjp(cj_func *f, cj_func *fwd, cj_func *bwd) {
    if (!func_check(NULL, f, "cj_custom_vjp", "f")) return NULL;
    if (!fwd || !bwd) return core_error(f->ctx, CJ_ERR_ARG, "cj_custom_vjp(%s): %s is NULL", f->name, !fwd ? "fwd" : "bwd"), NULL;
    if (!func_check(f->ctx, fwd, "cj_custom_vjp", "fwd") || !func_check(f->ctx, bwd, "cj_custom_vjp", "bwd")) return NULL;
    return make_custom(f, CUSTOM_VJP, NULL, fwd, bwd);
}

/* ---- the call primitives ---- */
static int call_abstract_eval(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const rt_aval *in,
                              rt_aval *out) {
    const core_custom *rec = core_custom_of(p);
    if (!rec) return prim_error(ctx, CJ_ERR_ARG, prim, "the parameters hold no call record");
    if (rec->ctx != ctx) return prim_error(ctx, CJ_ERR_ARG, prim, "the call belongs to another context");
    if (prim == PRIM_CUSTOM_VJP_LIN) { /* residuals and tangents: checked by the rule that binds it */
        *out = rec->out;
        return 0;
    }
    if (n_in != rec->primal->n_in) return prim_error(ctx, CJ_ERR_ARG, prim, "%d operands for %d inputs", n_in, rec->primal->n_in);
    for (int i = 0; i < n_in; i++)
        if (!rt_aval_same_type(&in[i], &rec->primal->vars[rec->primal->in[i]])) {
            char a[96], b[96];
            rt_aval_str(&in[i], a, sizeof a);
            rt_aval_str(&rec->primal->vars[rec->primal->in[i]], b, sizeof b);
            return prim_error(ctx, CJ_ERR_SHAPE, prim, "operand %d has type %s, the call was traced for %s", i, a, b);
        }
    *out = rec->out;
    return 0;
}

static int call_impl(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, rt_array *const *in, rt_array *out) {
    (void)n_in;
    const core_custom *rec = core_custom_of(p);
    if (prim == PRIM_CUSTOM_VJP_LIN)
        return core_error(ctx, CJ_ERR_UNSUPPORTED,
                          "%s: forward-mode differentiation (jvp, jacfwd, hessian) of a custom_vjp function is not "
                          "supported; use reverse mode or custom_jvp",
                          rec->f->name);
    rt_array *res = NULL;
    if (ir_eval_arrays(ctx, rec->primal, in, &res) != 0) return -1;
    size_t n = rt_aval_nbytes(&out->aval);
    if (n) memcpy(out->data, res->data, n);
    rt_array_unref(res);
    return 0;
}

/* vmap: the recorded program, vmapped (re-bound through a batch trace of
 * its own); the rule is not batched, so a custom derivative survives
 * vmap(grad(f)) — the call is then differentiated per example — but
 * grad(vmap(f)) differentiates f's own primitives. */
typedef struct primal_state {
    const core_custom *rec; /* held by the equation being batched, which outlives the runner */
} primal_state;

static int primal_call(cj_func *r, const cj_val *in, cj_val *out) {
    const primal_state *st = r->state;
    return ir_eval_values(r->ctx, st->rec->primal, in, out);
}
static void primal_free_state(cj_func *r) {
    if (r->state) rt_free(r->ctx->mem, r->state, sizeof(primal_state));
    r->state = NULL;
}
static const func_ops primal_ops = {"custom_primal", primal_call, primal_free_state};

static int call_batch(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                      const int64_t *bdim, int64_t size, cj_val *out, int64_t *out_bdim) {
    (void)size;
    const core_custom *rec = core_custom_of(p);
    if (prim == PRIM_CUSTOM_VJP_LIN)
        return core_error(ctx, CJ_ERR_UNSUPPORTED, "custom_vjp(%s): vmap of its linearized form is not supported",
                          rec->f->name);
    primal_state *st = rt_calloc(ctx->mem, sizeof *st);
    if (!st) return core_oom(ctx, prim_names[prim]);
    st->rec = rec;
    cj_func *runner = func_new(ctx, rec->f->name, &primal_ops, n_in, 1);
    if (!runner) {
        rt_free(ctx->mem, st, sizeof *st);
        return -1;
    }
    runner->state = st;
    int64_t in_axes[64], out_axes[1] = {0};
    for (int i = 0; i < n_in; i++) in_axes[i] = bdim[i] == BDIM_NONE ? CJ_NOT_MAPPED : bdim[i];
    cj_vmap_opts vo = {in_axes, out_axes, 0, 0, 0};
    cj_func *mapped = cj_vmap(runner, &vo);
    int status = mapped && cj_call(mapped, in, out) == CJ_OK ? 0 : -1;
    /* one-use function objects: released now rather than with the context */
    if (mapped) cj_func_free(mapped);
    cj_func_free(runner);
    *out_bdim = 0;
    return status;
}

static int call_print_params(const prim_params *p, char *buf, size_t size) {
    return snprintf(buf, size, "call=%s", core_custom_of(p)->f->name);
}

/* ---- autodiff rules ---- */
static int custom_jvp_rule(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                           const cj_val *tin, cj_val out, cj_val *tout) {
    (void)out, (void)prim;
    const core_custom *rec = core_custom_of(p);
    cj_val args[128], res[2];
    for (int i = 0; i < n_in; i++) {
        args[i] = in[i];
        args[n_in + i] = ad_is_zero(tin[i]) ? ad_zeros(ctx, ad_aval(in[i])) : tin[i];
    }
    if (cj_call(rec->jvp_rule, args, res) != CJ_OK) return -1;
    const rt_aval *t = ad_aval(res[1]);
    if (!t || !rt_aval_same_type(t, &rec->out)) {
        char a[96], b[96];
        if (t) rt_aval_str(t, a, sizeof a);
        rt_aval_str(&rec->out, b, sizeof b);
        return core_error(ctx, CJ_ERR_SHAPE, "custom_jvp(%s): the rule's tangent has type %s, the output %s",
                          rec->f->name, t ? a : "?", b);
    }
    *tout = res[1];
    return 0;
}

static int custom_vjp_rule(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                           const cj_val *tin, cj_val out, cj_val *tout) {
    (void)out, (void)prim;
    const core_custom *rec = core_custom_of(p);
    cj_val fwd_out[64], args[128];
    if (cj_call(rec->fwd, in, fwd_out) != CJ_OK) return -1;
    int n_res = rec->fwd->n_out - 1;
    for (int r = 0; r < n_res; r++) args[r] = fwd_out[1 + r];
    for (int i = 0; i < n_in; i++) args[n_res + i] = ad_is_zero(tin[i]) ? ad_zeros(ctx, ad_aval(in[i])) : tin[i];
    return ad_set(core_bind(ctx, PRIM_CUSTOM_VJP_LIN, p, n_res + n_in, args), tout);
}

static int custom_lin_transpose(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                                const int *linear, const rt_aval *in_avals, cj_val ct, cj_val *ct_in) {
    (void)prim;
    const core_custom *rec = core_custom_of(p);
    int n_res = rec->fwd->n_out - 1;
    cj_val args[64], cts[64];
    for (int r = 0; r < n_res; r++) {
        if (linear[r])
            return core_error(ctx, CJ_ERR_UNSUPPORTED, "custom_vjp(%s): a residual depends on a tangent", rec->f->name);
        args[r] = in[r];
    }
    args[n_res] = ct;
    if (cj_call(rec->bwd, args, cts) != CJ_OK) return -1;
    for (int i = n_res; i < n_in; i++) {
        if (!linear[i]) continue;
        const rt_aval *c = ad_aval(cts[i - n_res]);
        if (!c || !rt_aval_same_type(c, &in_avals[i])) {
            char a[96], b[96];
            if (c) rt_aval_str(c, a, sizeof a);
            rt_aval_str(&in_avals[i], b, sizeof b);
            return core_error(ctx, CJ_ERR_SHAPE, "custom_vjp(%s): bwd's cotangent %d has type %s, the input %s",
                              rec->f->name, i - n_res, c ? a : "?", b);
        }
        ct_in[i] = cts[i - n_res];
    }
    return 0;
}

void ad_register_custom(void) {
    for (int id = PRIM_CUSTOM_JVP_CALL; id <= PRIM_CUSTOM_VJP_LIN; id++)
        prim_rules[id] = (prim_rule){
            .abstract_eval = call_abstract_eval,
            .impl = call_impl,
            .print_params = call_print_params,
            .lower = {.kind = LOWER_OPAQUE},
            .batch = call_batch,
        };
    /* by compile time autodiff has had its chance: the inline pass splices
     * the called function in (custom_lin only lives in linear programs) */
    /* like the control constructs, a call passes its operands through to
     * bodies whose primitives check their own dtypes */
    prim_rules[PRIM_CUSTOM_JVP_CALL].extra_dtypes = true;
    prim_rules[PRIM_CUSTOM_VJP_CALL].extra_dtypes = true;
    prim_rules[PRIM_CUSTOM_VJP_LIN].extra_dtypes = true;
    prim_rules[PRIM_CUSTOM_JVP_CALL].lower.kind = LOWER_CALL;
    prim_rules[PRIM_CUSTOM_VJP_CALL].lower.kind = LOWER_CALL;
    prim_rules[PRIM_CUSTOM_JVP_CALL].jvp = custom_jvp_rule;
    prim_rules[PRIM_CUSTOM_VJP_CALL].jvp = custom_vjp_rule;
    prim_rules[PRIM_CUSTOM_VJP_LIN].transpose = custom_lin_transpose;
}
