/* sink.c — moves a transpose, or a reshape that keeps the element order,
 * from the result of elementwise equations (and pads) to their operands
 * (compiler layer; one step of pass_simplify, simplify.c).
 *
 * Fusion reads data movement through index maps only when its operand is
 * a buffer (or another leaf): a transpose of a value computed in a loop
 * kernel is a kernel of its own, which writes the value out only to read
 * it back in another order (vmap of a hessian ends in one: the jacobian's
 * axes swapped). Elementwise work commutes with moving elements, so
 *     M(f(a, b))  ==  f(M(a), M(b))          (rank-0 operands stay)
 *     transpose(pad(x, v))  ==  pad(transpose(x), v)   (the padding permuted)
 *     R(pad(x, v))  ==  pad(R'(x), v)        (R only adds or drops size-1
 *                                             axes, which are not padded)
 * bit for bit, for M a transpose, a reshape, or a broadcast_in_dim, squeeze
 * or expand_dims that only adds or drops size-1 axes (a reshape in all but
 * name). Taken when the moved value has no other reader (its only readers
 * are one equation's operands, and it is no output), the movement has more
 * than SINK_MIN_ELEMS elements and the chain does not come from a reduction
 * a few steps up (near_reduction), and repeated down the chain, so the
 * movement lands on buffers and leaves, where fusion reads it through the
 * composed maps, and the chain joins its consumer's kernel. A value read
 * twice by one equation (r + r) is moved once (the memo). The equations it
 * replaces are left for DCE. */
#include <string.h>

#include "passes.h"

enum { SINK_MIN_ELEMS = 64, SINK_MAX_DEPTH = 48, SINK_MAX_OPERANDS = 8, NEAR_REDUCTION_STEPS = 5 };

typedef struct sinker {
    cj_ctx *ctx;
    const ir_func *src;
    ir_func *dst;
    int *remap;   /* src variable -> dst variable */
    int *def;     /* src variable -> its defining equation, -1 */
    int *readers; /* src variable -> equations reading it (each once), outputs counted too */
    int *memo;    /* src variable -> dst variable of the movement sunk into it, in this sinking; -1 */
    int *touched; /* memo entries to reset */
    int n_touched;
    int changed;
} sinker;

static bool is_elementwise(prim_id p) { return prim_lower(p)->kind == LOWER_ELEMENTWISE; }

static bool same_shape(const rt_aval *a, const rt_aval *b) {
    if (a->rank != b->rank) return false;
    for (int d = 0; d < a->rank; d++)
        if (a->dims[d] != b->dims[d]) return false;
    return true;
}

/* A movement that keeps the row-major element order (only size-1 axes
 * added or dropped): a reshape in all but name. */
static bool keeps_order(const ir_func *f, const ir_eqn *e) {
    const rt_aval *x = &f->vars[ir_eqn_inputs(f, e)[0]], *y = &f->vars[e->out];
    switch (e->prim) {
    case PRIM_RESHAPE: return true;
    case PRIM_SQUEEZE:
    case PRIM_EXPAND_DIMS: return true;
    case PRIM_BROADCAST_IN_DIM: return rt_aval_size(x) == rt_aval_size(y) && rt_aval_size(y) > 0;
    default: return false;
    }
}

/* A movement this file sinks: a transpose or an order-keeping reshape,
 * of more than SINK_MIN_ELEMS elements. (A small value is straight-line
 * code wherever it is, every index a constant, so nothing is gained; and
 * moving a scan body's scalars into [1]-shaped ones, as a stack of them
 * would, reorders the body's kernels for the worse: RK4's step, 11%.) */
static bool sinkable_movement(const ir_func *f, const ir_eqn *e) {
    return e->n_in == 1 && e->n_out == 1 && rt_aval_size(&f->vars[e->out]) > SINK_MIN_ELEMS &&
           (e->prim == PRIM_TRANSPOSE || keeps_order(f, e));
}

/* Is src variable x read by exactly one equation and no output? */
static bool single_reader(const sinker *s, int x) { return s->readers[x] == 1; }

/* Is x computed from a reduction's result within a few elementwise or
 * movement steps? Such a value belongs to a ROWS kernel (a row reduction
 * broadcast back across its rows, as softmax and layer norm are), which
 * reads its rows once and writes the result: moving a transpose into it
 * would only make that kernel write a broadcast instead. */
static bool near_reduction(const sinker *s, int x, int depth) {
    if (s->def[x] < 0 || depth == 0) return false;
    const ir_eqn *e = &s->src->eqns[s->def[x]];
    prim_lower_kind k = prim_lower(e->prim)->kind;
    if (k == LOWER_REDUCTION) return true;
    if (k != LOWER_ELEMENTWISE && k != LOWER_DATA_MOVEMENT) return false;
    const int *in = ir_eqn_inputs(s->src, e);
    for (int i = 0; i < e->n_in && i < 3; i++) /* (a concatenate's first few: the walk stays small) */
        if (s->src->vars[in[i]].rank > 0 && near_reduction(s, in[i], depth - 1)) return true;
    return false;
}

/* The elementwise equation defining x whose operands are x's shape or
 * rank 0, none of them near a reduction, or NULL. */
static const ir_eqn *elementwise_def(const sinker *s, int x) {
    if (s->def[x] < 0) return NULL;
    const ir_eqn *e = &s->src->eqns[s->def[x]];
    if (!is_elementwise(e->prim) || e->n_out != 1 || e->n_in < 1 || e->n_in > SINK_MAX_OPERANDS) return NULL;
    const int *in = ir_eqn_inputs(s->src, e);
    for (int i = 0; i < e->n_in; i++) {
        const rt_aval *a = &s->src->vars[in[i]];
        if (a->rank != 0 && !same_shape(a, &s->src->vars[x])) return NULL;
        if (a->rank != 0 && near_reduction(s, in[i], NEAR_REDUCTION_STEPS)) return NULL;
    }
    return e;
}

static const ir_eqn *pad_def(const sinker *s, int x) {
    if (s->def[x] < 0) return NULL;
    const ir_eqn *e = &s->src->eqns[s->def[x]];
    return e->prim == PRIM_PAD ? e : NULL;
}

/* The movement (prim, params) taking x (of src) to `shape`. */
typedef struct movement {
    prim_id prim;
    prim_params p;
    const rt_aval *shape; /* the result's dims (its dtype is the operand's) */
} movement;

/* pad(x) moved by m, as a pad of x moved: the movement of pad's operand
 * and the pad's parameters, or false when it does not commute. */
static bool through_pad(const sinker *s, const movement *m, const ir_eqn *pad, movement *inner, rt_aval *inner_shape,
                        prim_params *pad_p) {
    const rt_aval *x = &s->src->vars[ir_eqn_inputs(s->src, pad)[0]], *padded = &s->src->vars[pad->out];
    const prim_params *q = &pad->params;
    *pad_p = prim_params_zero();
    *inner_shape = *x;
    inner->shape = inner_shape;
    if (m->prim == PRIM_TRANSPOSE) {
        inner->prim = PRIM_TRANSPOSE, inner->p = m->p;
        int r = padded->rank;
        pad_p->lo.n = pad_p->hi.n = pad_p->step.n = r;
        inner_shape->rank = r;
        for (int d = 0; d < r; d++) {
            int a = (int)m->p.axes.v[d];
            pad_p->lo.v[d] = q->lo.v[a], pad_p->hi.v[d] = q->hi.v[a], pad_p->step.v[d] = q->step.v[a];
            inner_shape->dims[d] = x->dims[a];
        }
        return true;
    }
    /* an order-keeping reshape: the padded value's axes longer than 1 are
     * the result's, in order; its size-1 axes must be unpadded */
    int from[CJ_MAX_RANK], n = 0;
    for (int d = 0; d < padded->rank; d++) {
        if (padded->dims[d] != 1) {
            from[n++] = d;
            continue;
        }
        if (q->lo.v[d] || q->hi.v[d] || q->step.v[d] || x->dims[d] != 1) return false;
    }
    int r = m->shape->rank, k = 0;
    pad_p->lo.n = pad_p->hi.n = pad_p->step.n = r;
    inner_shape->rank = r;
    for (int d = 0; d < r; d++) {
        if (m->shape->dims[d] == 1) {
            inner_shape->dims[d] = 1;
            continue;
        }
        if (k >= n || m->shape->dims[d] != padded->dims[from[k]]) return false;
        int a = from[k++];
        pad_p->lo.v[d] = q->lo.v[a], pad_p->hi.v[d] = q->hi.v[a], pad_p->step.v[d] = q->step.v[a];
        inner_shape->dims[d] = x->dims[a];
    }
    if (k != n) return false;
    inner->prim = PRIM_RESHAPE;
    inner->p = prim_params_zero();
    inner->p.shape.n = r;
    for (int d = 0; d < r; d++) inner->p.shape.v[d] = inner_shape->dims[d];
    return true;
}

/* Could m be sunk into x (one step)? */
static bool sinks_into(const sinker *s, const movement *m, int x) {
    if (!single_reader(s, x)) return false;
    if (elementwise_def(s, x)) return true;
    const ir_eqn *pad = pad_def(s, x);
    movement inner;
    rt_aval shape;
    prim_params pp;
    return pad && through_pad(s, m, pad, &inner, &shape, &pp);
}

/* The dst variable holding m applied to src variable x: sunk through x's
 * definition where it may, else the movement itself. -1 on failure. */
static int sink(sinker *s, const movement *m, int x, int depth) {
    const ir_func *src = s->src;
    if (s->memo[x] >= 0 && same_shape(&s->dst->vars[s->memo[x]], m->shape)) return s->memo[x];
    rt_aval out = src->vars[x]; /* x's dtype and weak type, m's shape */
    out.rank = m->shape->rank;
    memcpy(out.dims, m->shape->dims, sizeof out.dims);
    int v = -1;
    if (depth < SINK_MAX_DEPTH && sinks_into(s, m, x)) {
        const ir_eqn *e = elementwise_def(s, x);
        const int *in = ir_eqn_inputs(src, e ? e : pad_def(s, x));
        int ops[SINK_MAX_OPERANDS];
        if (e) {
            for (int i = 0; i < e->n_in; i++) {
                /* a rank-0 operand of a larger result is broadcast: it stays */
                bool stays = src->vars[in[i]].rank == 0 && src->vars[x].rank > 0;
                ops[i] = stays ? s->remap[in[i]] : sink(s, m, in[i], depth + 1);
                if (ops[i] < 0) return -1;
            }
            v = ir_add_eqn(s->dst, e->prim, &e->params, e->n_in, ops, &out);
        } else {
            const ir_eqn *pad = pad_def(s, x);
            movement inner;
            rt_aval shape;
            prim_params pp;
            through_pad(s, m, pad, &inner, &shape, &pp);
            ops[0] = sink(s, &inner, in[0], depth + 1);
            ops[1] = s->remap[in[1]];
            if (ops[0] < 0) return -1;
            v = ir_add_eqn(s->dst, PRIM_PAD, &pp, 2, ops, &out);
        }
        s->changed = 1;
    } else {
        v = ir_add_eqn(s->dst, m->prim, &m->p, 1, &s->remap[x], &out);
    }
    if (v < 0) return -1;
    if (s->memo[x] < 0) s->touched[s->n_touched++] = x;
    s->memo[x] = v;
    return v;
}

static int sink_all(sinker *s) {
    const ir_func *src = s->src;
    for (int i = 0; i < src->n_in; i++) {
        int v = ir_add_input(s->dst, &src->vars[src->in[i]]);
        if (v < 0) return -1;
        s->remap[src->in[i]] = v;
    }
    for (int i = 0; i < src->n_consts; i++) {
        int v = ir_add_const(s->dst, src->consts[i].val);
        if (v < 0) return -1;
        s->remap[src->consts[i].var] = v;
    }
    for (int k = 0; k < src->n_eqns; k++) {
        const ir_eqn *e = &src->eqns[k];
        const int *in = ir_eqn_inputs(src, e);
        if (sinkable_movement(src, e)) {
            movement m = {e->prim, e->params, &src->vars[e->out]};
            if (sinks_into(s, &m, in[0])) {
                /* the memo holds this sinking's results only: the same
                 * value moved another way elsewhere is another value */
                int v = sink(s, &m, in[0], 0);
                for (int t = 0; t < s->n_touched; t++) s->memo[s->touched[t]] = -1;
                s->n_touched = 0;
                if (v < 0) return -1;
                s->remap[e->out] = v;
                continue;
            }
        }
        int ops_local[16], *ops = e->n_in <= 16 ? ops_local : rt_alloc(s->ctx->mem, sizeof(int) * (size_t)e->n_in);
        if (!ops) return -1;
        for (int i = 0; i < e->n_in; i++) ops[i] = s->remap[in[i]];
        int v = ir_add_eqn_multi(s->dst, e->prim, &e->params, e->n_in, ops, e->n_out, &src->vars[e->out]);
        if (ops != ops_local) rt_free(s->ctx->mem, ops, sizeof(int) * (size_t)e->n_in);
        if (v < 0) return -1;
        for (int j = 0; j < e->n_out; j++) s->remap[e->out + j] = v + j;
    }
    for (int i = 0; i < src->n_out; i++)
        if (ir_add_output(s->dst, s->remap[src->out[i]]) != 0) return -1;
    return 0;
}

int pass_sink_movement(cj_ctx *ctx, const ir_func *src, ir_func **out, int *changed) {
    rt_mem *mem = ctx->mem;
    size_t nv = (size_t)src->n_vars + 1;
    sinker s = {.ctx = ctx, .src = src};
    s.dst = ir_new(src->mem);
    s.remap = rt_alloc(mem, sizeof(int) * nv);
    s.def = rt_alloc(mem, sizeof(int) * nv);
    s.readers = rt_calloc(mem, sizeof(int) * nv);
    s.memo = rt_alloc(mem, sizeof(int) * nv);
    s.touched = rt_alloc(mem, sizeof(int) * nv);
    int status = -1;
    if (s.dst && s.remap && s.def && s.readers && s.memo && s.touched) {
        for (size_t v = 0; v < nv; v++) s.def[v] = -1, s.memo[v] = -1;
        for (int k = 0; k < src->n_eqns; k++) {
            const ir_eqn *e = &src->eqns[k];
            const int *in = ir_eqn_inputs(src, e);
            for (int j = 0; j < e->n_out; j++) s.def[e->out + j] = k;
            for (int i = 0; i < e->n_in; i++) {
                bool seen = false; /* each reading equation counts once */
                for (int h = 0; h < i && !seen; h++) seen = in[h] == in[i];
                if (!seen) s.readers[in[i]]++;
            }
        }
        for (int i = 0; i < src->n_out; i++) s.readers[src->out[i]] += 2; /* an output is never sunk into */
        status = sink_all(&s);
    }
    if (s.remap) rt_free(mem, s.remap, sizeof(int) * nv);
    if (s.def) rt_free(mem, s.def, sizeof(int) * nv);
    if (s.readers) rt_free(mem, s.readers, sizeof(int) * nv);
    if (s.memo) rt_free(mem, s.memo, sizeof(int) * nv);
    if (s.touched) rt_free(mem, s.touched, sizeof(int) * nv);
    if (status != 0) {
        ir_free(s.dst);
        return core_oom(ctx, "simplify");
    }
    *out = s.dst;
    *changed = s.changed;
    return 0;
}
