/* donate.c — donated inputs become outputs (compiler layer).
 *
 * jax.jit's donate_argnums: the caller gives up an input, so an output of
 * the same dtype and shape may be written into its buffer instead of a
 * fresh one. That is safe when nothing reads the input after the output's
 * kernel starts writing: the output's kernel is the input's last reader, it
 * is a LOOP or ROWS kernel reading the input only elementwise at the output's
 * own index, and the equation defining the output comes after every
 * equation of the kernel that reads the input — or a dynamic_update_slice
 * of the input (a loop carry updated in one slice: only the slice is
 * written). Whether the donated array is
 * really unshared is checked at each call (interp.c); here only the plan is
 * made. A donation that cannot be used says why in c->donation_note. The
 * planner asks for the same pairs first (donation_pairs): a donated
 * input's buffer may hold temporaries between its last read and the
 * output's write (plan.c). */
#include <string.h>

#include "program.h"

/* A SINGLE kernel may write over its operand u when its result is u with a
 * part replaced: dynamic_update_slice (the kernel then writes only the
 * update) or optimization_barrier (nothing to write), with u its first
 * operand and no other. */
bool single_updates_in_place(const ir_func *ir, const kernel *K, int u) {
    const ir_eqn *e = &ir->eqns[K->eqns[0]];
    if (K->n_eqns != 1 || !prim_lower(e->prim)->updates_operand0) return false;
    const int *in = ir_eqn_inputs(ir, e);
    if (in[0] != u) return false;
    for (int i = 1; i < e->n_in; i++)
        if (in[i] == u) return false;
    return true;
}

/* Does kernel k read variable u only at the iteration index, with every
 * read before equation position `upto`? */
static bool reads_only_elementwise_before(const compiled *c, int k, int u, int upto) {
    const ir_func *ir = c->ir;
    const kernel *K = &c->kernels[k];
    if (K->kind == KERNEL_SINGLE) return single_updates_in_place(ir, K, u);
    for (int j = 0; j < K->n_eqns; j++) {
        const ir_eqn *e = &ir->eqns[K->eqns[j]];
        const int *in = ir_eqn_inputs(ir, e);
        for (int i = 0; i < e->n_in; i++) {
            if (in[i] != u) continue;
            if (j > upto) return false;
            bool elementwise = fuse_is_elementwise(e->prim) ||
                               (K->kind == KERNEL_ROWS && prim_lower(e->prim)->kind == LOWER_REDUCTION);
            if (!elementwise) return false;
            if (!rt_aval_same_shape(&ir->vars[u], &K->space)) return false;
        }
    }
    return true;
}

/* Does kernel k read a result that shares input u's buffer (plan.c:
 * an optimization_barrier of u)? Then k's reads of u are not all in its
 * in list under u's name. */
static bool shared_by_a_reader_of(const compiled *c, int u, int k) {
    const kernel *K = &c->kernels[k];
    for (int i = 0; i < K->n_in; i++)
        if (plan_host(c, K->in[i]) == u) return true;
    return false;
}

static int position_in_kernel(const kernel *K, const ir_func *ir, int v) {
    for (int j = 0; j < K->n_eqns; j++)
        if (ir_eqn_defines(&ir->eqns[K->eqns[j]], v)) return j;
    return -1;
}

/* Pairs each donated input with the first output it may be written into
 * (the rule atop this file): donor[v] = the input's position for output v,
 * -1 elsewhere; why a donation cannot be used goes into note (may be
 * NULL). Reads only the homes, live ranges and kernels, so the planner can
 * ask before it places anything and the donate pass gets the same pairs. */
void donation_pairs(const compiled *c, const uint8_t *donated, int *donor, char *note, size_t note_cap) {
    const ir_func *ir = c->ir;
    for (int v = 0; v <= ir->n_vars; v++) donor[v] = -1;
    if (note && note_cap) note[0] = 0;
    if (!donated) return;
    size_t note_len = 0;
    for (int i = 0; i < ir->n_in; i++) {
        if (!donated[i]) continue;
        int u = ir->in[i];
        const char *why = "no output has its dtype and shape";
        bool is_output = false;
        for (int o = 0; o < ir->n_out; o++) is_output |= ir->out[o] == u;
        if (is_output) why = "it is itself an output";
        int chosen = -1;
        for (int o = 0; o < ir->n_out && !is_output && chosen < 0; o++) {
            int v = ir->out[o];
            if (c->home[v] != HOME_OUTPUT || donor[v] >= 0) continue;
            if (ir->vars[v].dtype != ir->vars[u].dtype || !rt_aval_same_shape(&ir->vars[v], &ir->vars[u])) continue;
            int k = c->kernel_of[v];
            if (c->last_use[u] > k) {
                why = "a later kernel still reads it";
                continue;
            }
            int pos = position_in_kernel(&c->kernels[k], ir, v);
            if (c->last_use[u] == k && shared_by_a_reader_of(c, u, k)) {
                why = "the kernel writing the output reads a barrier's result that shares its buffer";
                continue;
            }
            if (c->last_use[u] == k && !reads_only_elementwise_before(c, k, u, pos)) {
                why = "the kernel writing the output reads it at other indices or afterwards";
                continue;
            }
            chosen = v;
        }
        if (chosen >= 0) {
            donor[chosen] = i;
        } else if (note && note_len < note_cap) {
            int w = snprintf(note + note_len, note_cap - note_len, "%sinput %d is donated but not reused: %s",
                             note_len ? "; " : "", i, why);
            if (w > 0) note_len += (size_t)w;
        }
    }
}

int plan_donations(cj_ctx *ctx, compiled *c, const uint8_t *donated) {
    const ir_func *ir = c->ir;
    size_t nv = (size_t)ir->n_vars + 1;
    c->donor = rt_alloc(ctx->mem, sizeof(int) * nv);
    if (!c->donor) return core_oom(ctx, "jit: donation planning");
    donation_pairs(c, donated, c->donor, c->donation_note, sizeof c->donation_note);
    for (int v = 0; v < ir->n_vars; v++) {
        if (c->donor[v] < 0) continue;
        size_t b = rt_aval_nbytes(&ir->vars[v]);
        c->mem.alias_bytes += b;
        c->mem.output_bytes -= b;
        c->mem.peak_bytes -= b;
    }
    return 0;
}
