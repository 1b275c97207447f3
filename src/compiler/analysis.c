/* analysis.c — memory and cost analysis of a planned program (compiler
 * layer), as JAX's compiled.memory_analysis() and cost_analysis() report
 * them. Available before the program first runs. */
#include "program.h"

static bool is_transcendental(prim_id p) {
    switch (p) {
    case PRIM_EXP: case PRIM_EXP2: case PRIM_LOG: case PRIM_LOG1P: case PRIM_EXPM1:
    case PRIM_SIN: case PRIM_COS: case PRIM_TAN: case PRIM_ASIN: case PRIM_ACOS: case PRIM_ATAN:
    case PRIM_SINH: case PRIM_COSH: case PRIM_TANH: case PRIM_LOGISTIC: case PRIM_ERF:
    case PRIM_POW: case PRIM_ATAN2: case PRIM_CBRT: case PRIM_RSQRT: case PRIM_SQRT: return true;
    default: return false;
    }
}

static double dot_flops(const ir_func *ir, const ir_eqn *e) {
    const rt_aval *lhs = &ir->vars[ir_eqn_inputs(ir, e)[0]];
    double k = 1;
    for (int i = 0; i < e->params.lhs_contract.n; i++) k *= (double)lhs->dims[e->params.lhs_contract.v[i]];
    return 2.0 * k * (double)rt_aval_size(&ir->vars[e->out]);
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
        for (int j = 0; j < K->n_eqns; j++) {
            const ir_eqn *e = &ir->eqns[K->eqns[j]];
            double n = (double)rt_aval_size(&ir->vars[e->out]);
            if (e->prim == PRIM_DOT_GENERAL) cost->flops += dot_flops(ir, e);
            else if (is_transcendental(e->prim)) cost->transcendentals += n;
            else if (fuse_is_elementwise(e->prim) && e->prim != PRIM_CONVERT) cost->flops += n;
            else if (prim_families[e->prim] == FAMILY_REDUCE)
                cost->flops += (double)rt_aval_size(&ir->vars[ir_eqn_inputs(ir, e)[0]]);
        }
    }
}
