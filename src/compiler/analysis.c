/* analysis.c — memory and cost analysis of a planned program (compiler
 * layer), as JAX's compiled.memory_analysis() and cost_analysis() report
 * them. Available before the program first runs. What an equation costs
 * is its primitive's cost class (prim_lowering.cost); bytes accessed are
 * each kernel's buffers, read and written once. */
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

void analyse_program(compiled *c) {
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
        for (int j = 0; j < K->n_eqns; j++) add_cost(ir, &ir->eqns[K->eqns[j]], cost);
    }
}
