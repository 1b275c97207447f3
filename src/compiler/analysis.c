/* analysis.c — memory and cost analysis of a planned program (compiler
 * layer), as JAX's compiled.memory_analysis() and cost_analysis() report
 * them. Available before the program first runs. What an equation costs
 * is its primitive's cost class (prim_lowering.cost); bytes accessed are
 * each kernel's buffers, read and written once.
 *
 * A control-flow construct costs what its bodies do, as XLA's
 * HloCostAnalysis counts a while loop's body and condition and a
 * conditional's branches: each body is compiled here up to this pass (its
 * own fusion and plan, so its bytes are those its kernels move) and
 * analysed, nested constructs included. A scan runs its body `length`
 * times, so it counts that many; a while loop's trip count is not known
 * before it runs, so its condition and body count once (XLA's rule); a
 * cond counts, for each figure, the most any branch costs (XLA's rule).
 * The construct's own kernel adds its operands and results. The record is
 * read as data (control.h, as the backend's runtime loop reads it). */
#include <math.h>

#include "../control/control.h"
#include "program.h"

/* The cost of one equation, from its primitive's cost class. */
static void add_cost(const ir_func *ir, const ir_eqn *e, cost_analysis *cost) {
    const prim_cost *pc = &prim_lower(e->prim)->cost;
    const int *in = ir_eqn_inputs(ir, e);
    if (pc->flops_of) {
        rt_aval avals[PRIM_MAX_OPERANDS];
        for (int i = 0; i < e->n_in && i < PRIM_MAX_OPERANDS; i++) avals[i] = ir->vars[in[i]];
        cost->flops += pc->flops_of(&e->params, avals, &ir->vars[e->out]);
        return;
    }
    if (!pc->flops && !pc->transcendentals) return;
    double n = (double)rt_aval_size(&ir->vars[pc->per_operand && e->n_in ? in[0] : e->out]);
    cost->flops += pc->flops * n;
    cost->transcendentals += pc->transcendentals * n;
}

/* The cost of one run of sub-program `body`: the analysis of its own
 * compiled form. 0, or -1 with the error recorded. */
static int body_cost(cj_ctx *ctx, const ir_func *body, cost_analysis *out) {
    compile_options o = {.dump = "", .no_output_scratch = true};
    compiled *b = compile_ir_until(ctx, body, "analyse", &o);
    if (!b) return -1;
    *out = b->cost;
    compiled_free(ctx, b);
    return 0;
}

/* What a construct equation adds: its bodies' costs, by the rules atop
 * the file. */
static int construct_cost(cj_ctx *ctx, const ir_eqn *e, cost_analysis *cost) {
    const cf_record *rec = cf_of(&e->params);
    cost_analysis sum = {0}, one;
    for (int k = 0; k < rec->n_progs; k++) {
        if (body_cost(ctx, rec->progs[k], &one) != 0) return -1;
        if (rec->kind == CF_COND) {
            sum.flops = fmax(sum.flops, one.flops);
            sum.transcendentals = fmax(sum.transcendentals, one.transcendentals);
            sum.bytes_accessed = fmax(sum.bytes_accessed, one.bytes_accessed);
        } else {
            sum.flops += one.flops;
            sum.transcendentals += one.transcendentals;
            sum.bytes_accessed += one.bytes_accessed;
        }
    }
    double times = rec->kind == CF_SCAN ? (double)rec->length : 1.0;
    cost->flops += times * sum.flops;
    cost->transcendentals += times * sum.transcendentals;
    cost->bytes_accessed += times * sum.bytes_accessed;
    return 0;
}

int analyse_program(cj_ctx *ctx, compiled *c) {
    const ir_func *ir = c->ir;
    memory_analysis *m = &c->mem;
    cost_analysis *cost = &c->cost;
    *m = (memory_analysis){0};
    *cost = (cost_analysis){0};
    for (int i = 0; i < ir->n_in; i++) m->argument_bytes += rt_aval_nbytes(&ir->vars[ir->in[i]]);
    for (int i = 0; i < ir->n_consts; i++) m->constant_bytes += rt_aval_nbytes(&ir->vars[ir->consts[i].var]);
    for (int v = 0; v < ir->n_vars; v++)
        if (c->home[v] == HOME_OUTPUT) m->output_bytes += rt_aval_nbytes(&ir->vars[v]);
    m->temp_bytes = c->arena_bytes;
    m->peak_bytes = m->argument_bytes + m->output_bytes + m->temp_bytes + m->constant_bytes;

    for (int k = 0; k < c->n_kernels; k++) {
        const kernel *K = &c->kernels[k];
        for (int i = 0; i < K->n_in; i++) cost->bytes_accessed += (double)rt_aval_nbytes(&ir->vars[K->in[i]]);
        for (int i = 0; i < K->n_out; i++) cost->bytes_accessed += (double)rt_aval_nbytes(&ir->vars[K->out[i]]);
        for (int j = 0; j < K->n_eqns; j++) {
            const ir_eqn *e = &ir->eqns[K->eqns[j]];
            if (prim_lower(e->prim)->kind == LOWER_CONSTRUCT) {
                if (construct_cost(ctx, e, cost) != 0) return -1;
            } else {
                add_cost(ir, e, cost);
            }
        }
    }
    return 0;
}
