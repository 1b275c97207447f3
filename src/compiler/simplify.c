/* simplify.c — the simplify pass and its parts, CSE and DCE (compiler layer).
 *
 * The first passes of the pipeline (compiler.c), run on the IR jit traced,
 * before fusion. Each pass rebuilds the function into a new ir_func through
 * a map from old variables to new ones, so an equation can be dropped, or
 * replaced by a variable that already exists (an input, a constant, an
 * earlier result), without editing the IR in place:
 *
 *   - constant folding: an equation whose operands are all constants and
 *     whose result is small runs now, with the primitive's eager kernel (the
 *     kernel the program would run), and becomes a constant;
 *   - identities: x*1, x+(-0.0), x-(+0.0), x/1, neg(neg x), a convert,
 *     reshape, broadcast, slice, transpose, ... that does nothing, select_n
 *     with a constant predicate. Each is taken only when the replacement is
 *     bit for bit the result for every input and has exactly the result's
 *     type (dtype, weak flag, shape); otherwise the equation stays;
 *   - CSE: an equation with the same primitive, parameters (bytewise: they
 *     are zero-initialised) and operands as an earlier one is that one; equal
 *     constants (the same array, or small arrays of the same type and bytes)
 *     are kept once;
 *   - DCE: equations and constants no output needs are dropped.
 *
 * pass_simplify alternates the rewrite (folding, identities, CSE) and DCE
 * until neither changes anything, for a few rounds at most. Every pass keeps
 * the inputs — number, order and types: the calling convention — and the
 * order of the outputs; an output may become an input or a constant. On out
 * of memory a pass frees what it built and leaves the caller's IR as it was. */
#include <math.h>
#include <string.h>

#include "passes.h"

/* Results with at most this many elements are computed at compile time. */
#define FOLD_MAX_ELEMS 1024
/* Constants with at most this many elements are compared by value. */
#define DEDUP_MAX_ELEMS 64
/* Rounds of rewrite + DCE in pass_simplify. The rewrite runs forward and
 * sees its own results (a fold feeds the next fold, a CSE hit the next
 * identity), so one round usually reaches the fixed point and the next
 * finds nothing; the bound guards against rules that keep finding work. */
#define SIMPLIFY_MAX_ROUNDS 4
/* Operands of one equation the folder passes to a kernel (as ir_verify). */
#define FOLD_MAX_OPERANDS 64

/* What a rewrite does. */
enum { REWRITE_FOLD = 1, REWRITE_IDENTITIES = 2, REWRITE_CSE = 4 };

/* ---- hashing ---- */

#define HASH_SEED 14695981039346656037ull

static uint64_t hash_bytes(uint64_t h, const void *data, size_t n) {
    const unsigned char *b = data;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 1099511628211ull; /* FNV-1a */
    }
    return h;
}

static uint64_t hash_int(uint64_t h, int64_t v) { return hash_bytes(h, &v, sizeof v); }

/* A power of two with room for `n` entries at most half full. */
static size_t set_capacity(int n) {
    size_t cap = 16;
    while (cap < 2 * (size_t)n + 2) cap *= 2;
    return cap;
}

/* ---- the rewriter: src rebuilt into dst ---- */

typedef struct rewriter {
    cj_ctx *ctx;
    const ir_func *src;
    ir_func *dst;
    unsigned what;
    int changed;
    int *remap;          /* src variable -> dst variable */
    int *operands;       /* scratch: one equation's remapped operands */
    /* Indexed by dst variable: dst never has more variables than src, since
     * each src variable becomes at most one. */
    rt_array **const_val; /* the array of a constant (dst holds the reference) */
    int *def_eqn;         /* the dst equation defining the variable, or -1 */
    /* Open-addressing sets of dst variables (-1: empty slot). */
    int *eqn_set, *const_set;
    size_t eqn_cap, const_cap;
} rewriter;

static size_t max_operands(const ir_func *f) {
    int m = 1;
    for (int k = 0; k < f->n_eqns; k++)
        if (f->eqns[k].n_in > m) m = f->eqns[k].n_in;
    return (size_t)m;
}

static void rewriter_free(rewriter *rw) {
    rt_mem *m = rw->ctx->mem;
    size_t nv = (size_t)rw->src->n_vars + 1;
    if (rw->remap) rt_free(m, rw->remap, sizeof(int) * nv);
    if (rw->operands) rt_free(m, rw->operands, sizeof(int) * max_operands(rw->src));
    if (rw->const_val) rt_free(m, rw->const_val, sizeof(rt_array *) * nv);
    if (rw->def_eqn) rt_free(m, rw->def_eqn, sizeof(int) * nv);
    if (rw->eqn_set) rt_free(m, rw->eqn_set, sizeof(int) * rw->eqn_cap);
    if (rw->const_set) rt_free(m, rw->const_set, sizeof(int) * rw->const_cap);
    ir_free(rw->dst);
}

static int rewriter_init(rewriter *rw, cj_ctx *ctx, const ir_func *src, unsigned what) {
    memset(rw, 0, sizeof *rw);
    rw->ctx = ctx;
    rw->src = src;
    rw->what = what;
    rt_mem *m = ctx->mem;
    size_t nv = (size_t)src->n_vars + 1;
    rw->eqn_cap = set_capacity(src->n_eqns);
    rw->const_cap = set_capacity(src->n_consts + src->n_vars); /* folded results join */
    rw->dst = ir_new(src->mem);
    rw->remap = rt_alloc(m, sizeof(int) * nv);
    rw->operands = rt_alloc(m, sizeof(int) * max_operands(src));
    rw->const_val = rt_calloc(m, sizeof(rt_array *) * nv);
    rw->def_eqn = rt_alloc(m, sizeof(int) * nv);
    rw->eqn_set = rt_alloc(m, sizeof(int) * rw->eqn_cap);
    rw->const_set = rt_alloc(m, sizeof(int) * rw->const_cap);
    if (!rw->dst || !rw->remap || !rw->operands || !rw->const_val || !rw->def_eqn || !rw->eqn_set ||
        !rw->const_set)
        return -1;
    for (size_t v = 0; v < nv; v++) rw->def_eqn[v] = -1;
    memset(rw->eqn_set, 0xff, sizeof(int) * rw->eqn_cap);
    memset(rw->const_set, 0xff, sizeof(int) * rw->const_cap);
    return 0;
}

/* ---- constants, deduplicated ---- */

static bool compared_by_value(const rt_array *a) { return a->size <= DEDUP_MAX_ELEMS; }

/* Small arrays hash by type and bytes, large ones by identity, so equal
 * constants land in one bucket chain. */
static uint64_t const_hash(const rt_array *a) {
    if (!compared_by_value(a)) {
        uintptr_t p = (uintptr_t)a;
        return hash_bytes(HASH_SEED, &p, sizeof p);
    }
    uint64_t h = hash_int(HASH_SEED, a->aval.dtype);
    h = hash_int(h, a->aval.weak != 0);
    h = hash_int(h, a->aval.rank);
    for (int d = 0; d < a->aval.rank; d++) h = hash_int(h, a->aval.dims[d]);
    return hash_bytes(h, a->data, rt_aval_nbytes(&a->aval));
}

/* Bytes, not values: +0.0 and -0.0 stay apart, a NaN matches its own bits. */
static bool same_constant(const rt_array *a, const rt_array *b) {
    if (a == b) return true;
    if (!compared_by_value(a) || !compared_by_value(b) || !rt_aval_equal(&a->aval, &b->aval)) return false;
    return memcmp(a->data, b->data, rt_aval_nbytes(&a->aval)) == 0;
}

/* The dst variable holding `arr`: an equal constant already there (when
 * deduplicating) or a new one. -1 on out of memory. */
static int emit_const(rewriter *rw, rt_array *arr) {
    size_t slot = 0;
    if (rw->what & REWRITE_CSE) {
        size_t mask = rw->const_cap - 1;
        for (slot = const_hash(arr) & mask; rw->const_set[slot] >= 0; slot = (slot + 1) & mask) {
            int v = rw->const_set[slot];
            if (same_constant(rw->const_val[v], arr)) {
                rw->changed = 1;
                return v;
            }
        }
    }
    int v = ir_add_const(rw->dst, arr);
    if (v < 0) return -1;
    rw->const_val[v] = arr;
    if (rw->what & REWRITE_CSE) rw->const_set[slot] = v;
    return v;
}

/* ---- equations, deduplicated ---- */

static uint64_t eqn_hash(const ir_eqn *e, const int *in) {
    uint64_t h = hash_int(HASH_SEED, e->prim);
    h = hash_bytes(h, &e->params, sizeof e->params);
    h = hash_int(h, e->n_in);
    return hash_bytes(h, in, sizeof(int) * (size_t)e->n_in);
}

/* Does dst variable v compute prim[params](in) with type out? */
static bool same_eqn(const rewriter *rw, int v, const ir_eqn *e, const int *in, const rt_aval *out) {
    const ir_eqn *d = &rw->dst->eqns[rw->def_eqn[v]];
    if (d->out != v || d->n_out != e->n_out) return false;
    for (int j = 1; j < e->n_out; j++)
        if (!rt_aval_equal(&rw->dst->vars[v + j], &out[j])) return false;
    return d->prim == e->prim && d->n_in == e->n_in &&
           memcmp(&d->params, &e->params, sizeof d->params) == 0 &&
           (e->n_in == 0 || memcmp(ir_eqn_inputs(rw->dst, d), in, sizeof(int) * (size_t)e->n_in) == 0) &&
           rt_aval_equal(&rw->dst->vars[v], out);
}

/* The dst variable computing e on the remapped operands `in`: an earlier
 * identical equation (when eliminating common subexpressions) or a new one.
 * -1 on out of memory. */
static int emit_eqn(rewriter *rw, const ir_eqn *e, const int *in) {
    const rt_aval *out = &rw->src->vars[e->out];
    size_t slot = 0;
    if (rw->what & REWRITE_CSE) {
        size_t mask = rw->eqn_cap - 1;
        for (slot = eqn_hash(e, in) & mask; rw->eqn_set[slot] >= 0; slot = (slot + 1) & mask) {
            if (same_eqn(rw, rw->eqn_set[slot], e, in, out)) {
                rw->changed = 1;
                return rw->eqn_set[slot];
            }
        }
    }
    int v = ir_add_eqn_multi(rw->dst, e->prim, &e->params, e->n_in, in, e->n_out, out);
    if (v < 0) return -1;
    for (int j = 0; j < e->n_out; j++) rw->def_eqn[v + j] = rw->dst->n_eqns - 1;
    if (rw->what & REWRITE_CSE) rw->eqn_set[slot] = v;
    return v;
}

/* ---- constant folding ---- */

static bool worth_folding(const rewriter *rw, const ir_eqn *e, const int *in) {
    int64_t out_elems = 0, in_elems = 0;
    for (int j = 0; j < e->n_out; j++) out_elems += rt_aval_size(&rw->src->vars[e->out + j]);
    /* fold's result table is PRIM_MAX_RESULTS long; constructs may have more */
    if (out_elems > FOLD_MAX_ELEMS || e->n_in > FOLD_MAX_OPERANDS || e->n_out > PRIM_MAX_RESULTS ||
        !(prim_rules[e->prim].impl || prim_rules[e->prim].impl_multi))
        return false;
    for (int i = 0; i < e->n_in; i++) {
        if (!rw->const_val[in[i]]) return false;
        in_elems += rw->const_val[in[i]]->size;
    }
    /* Data movement that only replicates its operands (broadcast, iota, pad)
     * costs nothing inside a fused kernel but a buffer as a constant. */
    return !(prim_lower(e->prim)->kind == LOWER_DATA_MOVEMENT && out_elems > in_elems);
}

/* Runs e on its constant operands now; each result becomes a constant
 * (written to remap). 0 or -1. */
static int fold(rewriter *rw, const ir_eqn *e, const int *in) {
    rt_array *args[FOLD_MAX_OPERANDS], *r[PRIM_MAX_RESULTS];
    for (int i = 0; i < e->n_in; i++) args[i] = rw->const_val[in[i]];
    if (core_apply_impl_multi(rw->ctx, e->prim, &e->params, e->n_in, args, e->n_out, &rw->src->vars[e->out], r) != 0)
        return -1;
    int status = 0;
    for (int j = 0; j < e->n_out; j++) {
        int v = status == 0 ? emit_const(rw, r[j]) : -1;
        rt_array_unref(r[j]); /* dst holds its own reference */
        if (v < 0) status = -1;
        else rw->remap[e->out + j] = v;
    }
    rw->changed = 1;
    return status;
}

/* ---- identities ---- */

/* Is every element of constant `a` exactly `f` (floats: sign of zero
 * included) or `i` (integers and bool)? */
static bool all_elements_are(const rt_array *a, double f, int64_t i) {
    if (!a) return false;
    cj_dtype dt = a->aval.dtype;
    for (int64_t k = 0; k < a->size; k++) {
        if (rt_is_float(dt)) {
            double x = rt_get_f64(dt, a->data, k);
            if (!(x == f) || signbit(x) != signbit(f)) return false;
        } else if (rt_get_i64(dt, a->data, k) != i) {
            return false;
        }
    }
    return true;
}

/* The constant whose elements are all of `var`'s: var itself when it is a
 * constant, or the constant it broadcasts (what cj_ones and cj_full stage
 * under a trace: broadcasts are not folded, see worth_folding). NULL when
 * var is not known at compile time. */
static const rt_array *splat_source(const rewriter *rw, int var) {
    if (rw->const_val[var]) return rw->const_val[var];
    int k = rw->def_eqn[var];
    if (k < 0 || rw->dst->eqns[k].prim != PRIM_BROADCAST_IN_DIM) return NULL;
    return rw->const_val[ir_eqn_inputs(rw->dst, &rw->dst->eqns[k])[0]];
}

/* x op c == x for every x, with c the constant on either side of a binary
 * operation. Float addition's identity is -0.0: x + (+0.0) turns -0.0 into
 * +0.0, while x + (-0.0) and x - (+0.0) return x itself, signed zeros and
 * NaNs included. */
static int binary_identity(const rewriter *rw, prim_id prim, const int *in) {
    const rt_array *lhs = splat_source(rw, in[0]), *rhs = splat_source(rw, in[1]);
    cj_dtype dt = rw->dst->vars[in[0]].dtype;
    switch (prim) {
    case PRIM_ADD:
        if (all_elements_are(rhs, -0.0, 0)) return in[0];
        if (all_elements_are(lhs, -0.0, 0)) return in[1];
        return -1;
    case PRIM_SUB:
        return all_elements_are(rhs, 0.0, 0) ? in[0] : -1;
    case PRIM_MUL:
        if (all_elements_are(rhs, 1.0, 1)) return in[0];
        if (all_elements_are(lhs, 1.0, 1)) return in[1];
        return -1;
    case PRIM_DIV:
        return all_elements_are(rhs, 1.0, 1) ? in[0] : -1;
    case PRIM_AND: { /* bool: True; integers: all bits set */
        int64_t ones = dt == CJ_BOOL ? 1 : -1;
        if (all_elements_are(rhs, 0.0, ones)) return in[0];
        if (all_elements_are(lhs, 0.0, ones)) return in[1];
        return -1;
    }
    case PRIM_OR:
    case PRIM_XOR:
        if (all_elements_are(rhs, 0.0, 0)) return in[0];
        if (all_elements_are(lhs, 0.0, 0)) return in[1];
        return -1;
    default:
        return -1;
    }
}

static bool is_identity_permutation(const prim_ivec *perm) {
    for (int i = 0; i < perm->n; i++)
        if (perm->v[i] != i) return false;
    return true;
}

/* Reversing axes of size 0 or 1 moves nothing. */
static bool reverses_nothing(const prim_ivec *axes, const rt_aval *x) {
    for (int i = 0; i < axes->n; i++)
        if (x->dims[axes->v[i]] > 1) return false;
    return true;
}

static bool pads_nothing(const prim_params *p, const rt_aval *x) {
    for (int d = 0; d < x->rank; d++) {
        int64_t interior = p->step.n ? p->step.v[d] : 0;
        if (p->lo.v[d] != 0 || p->hi.v[d] != 0 || (interior != 0 && x->dims[d] > 1)) return false;
    }
    return true;
}

/* The operand (a dst variable) that e's result equals bit for bit, or -1.
 * The caller also requires that operand to have exactly e's result type,
 * which for several primitives is what makes them a no-op: their lowering
 * record names that operand (noop_operand: a convert to the same dtype and
 * weak flag, a reshape or broadcast to the same shape, a slice taking every
 * element, stop_gradient, ...), so no list of them is kept here.
 *
 * The algebraic identities below (x*1, x+(-0.0), neg(neg x), select_n with
 * a constant predicate, an identity permutation, ...) stay in this pass
 * rather than in the records: each needs the rewriter's view of the
 * operands (their constant values through a broadcast, the equation that
 * defined them), some span two primitives (neg of neg), and all are
 * optional — a primitive without one is still compiled correctly, as in
 * XLA, whose algebraic simplifier is likewise a pass over opcodes. */
static int identity_operand(const rewriter *rw, const ir_eqn *e, const int *in) {
    const rt_aval *x = e->n_in > 0 ? &rw->dst->vars[in[0]] : NULL;
    int noop = prim_lower(e->prim)->noop_operand;
    if (noop > 0 && noop <= e->n_in) return in[noop - 1];
    switch (e->prim) {
    case PRIM_NEG: {
        int k = rw->def_eqn[in[0]];
        if (k >= 0 && rw->dst->eqns[k].prim == PRIM_NEG) return ir_eqn_inputs(rw->dst, &rw->dst->eqns[k])[0];
        return -1;
    }
    case PRIM_TRANSPOSE:
        return is_identity_permutation(&e->params.axes) ? in[0] : -1;
    case PRIM_REV:
        return reverses_nothing(&e->params.axes, x) ? in[0] : -1;
    case PRIM_PAD:
        return pads_nothing(&e->params, x) ? in[0] : -1;
    case PRIM_CONCATENATE:
        return e->n_in == 1 ? in[0] : -1;
    case PRIM_SELECT: /* select_n(pred, on_false, on_true) */
        if (in[1] == in[2]) return in[1];
        if (all_elements_are(splat_source(rw, in[0]), 0.0, 0)) return in[1];
        if (all_elements_are(splat_source(rw, in[0]), 0.0, 1)) return in[2];
        return -1;
    case PRIM_ADD:
    case PRIM_SUB:
    case PRIM_MUL:
    case PRIM_DIV:
    case PRIM_AND:
    case PRIM_OR:
    case PRIM_XOR:
        return binary_identity(rw, e->prim, in);
    default:
        return -1;
    }
}

/* e's result as an existing dst variable of exactly its type, or -1. */
static int identity_of(const rewriter *rw, const ir_eqn *e, const int *in) {
    int v = identity_operand(rw, e, in);
    if (v < 0 || !rt_aval_equal(&rw->dst->vars[v], &rw->src->vars[e->out])) return -1;
    return v;
}

/* ---- the rewrite ---- */

/* The dst variables for src equation e's results, written to remap. 0, or
 * -1 on failure. */
static int rewrite_eqn(rewriter *rw, const ir_eqn *e) {
    const int *src_in = ir_eqn_inputs(rw->src, e);
    int *in = rw->operands;
    for (int i = 0; i < e->n_in; i++) in[i] = rw->remap[src_in[i]];
    if ((rw->what & REWRITE_FOLD) && worth_folding(rw, e, in)) return fold(rw, e, in);
    if ((rw->what & REWRITE_IDENTITIES) && e->n_out == 1) {
        int v = identity_of(rw, e, in);
        if (v >= 0) {
            rw->changed = 1;
            rw->remap[e->out] = v;
            return 0;
        }
    }
    int v = emit_eqn(rw, e, in);
    if (v < 0) return -1;
    for (int j = 0; j < e->n_out; j++) rw->remap[e->out + j] = v + j;
    return 0;
}

static int rewrite_all(rewriter *rw) {
    const ir_func *src = rw->src;
    for (int i = 0; i < src->n_in; i++) {
        int v = ir_add_input(rw->dst, &src->vars[src->in[i]]);
        if (v < 0) return -1;
        rw->remap[src->in[i]] = v;
    }
    for (int i = 0; i < src->n_consts; i++) {
        int v = emit_const(rw, src->consts[i].val);
        if (v < 0) return -1;
        rw->remap[src->consts[i].var] = v;
    }
    for (int k = 0; k < src->n_eqns; k++)
        if (rewrite_eqn(rw, &src->eqns[k]) != 0) return -1;
    for (int i = 0; i < src->n_out; i++)
        if (ir_add_output(rw->dst, rw->remap[src->out[i]]) != 0) return -1;
    return 0;
}

/* Rebuilds src doing `what` into *out (src is not modified). Returns 0, or
 * -1 with the error recorded (the folder's kernel may have recorded it). */
static int rewrite(cj_ctx *ctx, const ir_func *src, unsigned what, const char *pass, ir_func **out,
                   int *changed) {
    rewriter rw;
    if (rewriter_init(&rw, ctx, src, what) != 0 || rewrite_all(&rw) != 0) {
        rewriter_free(&rw);
        return core_oom(ctx, pass); /* dropped if the kernel said why first */
    }
    *out = rw.dst;
    *changed = rw.changed;
    rw.dst = NULL;
    rewriter_free(&rw);
    return 0;
}

/* ---- dead code elimination ---- */

/* live[v]: an output needs variable v (transitively). */
static void mark_live(const ir_func *f, char *live) {
    for (int i = 0; i < f->n_out; i++) live[f->out[i]] = 1;
    for (int k = f->n_eqns - 1; k >= 0; k--) {
        const ir_eqn *e = &f->eqns[k];
        int any = 0;
        for (int j = 0; j < e->n_out; j++) any |= live[e->out + j];
        if (!any) continue;
        for (int j = 0; j < e->n_out; j++) live[e->out + j] = 1; /* a live equation keeps every result */
        const int *in = ir_eqn_inputs(f, e);
        for (int i = 0; i < e->n_in; i++) live[in[i]] = 1;
    }
}

static int copy_live(const ir_func *src, const char *live, int *remap, int *operands, ir_func *dst) {
    for (int i = 0; i < src->n_in; i++) /* every input stays: the calling convention */
        if ((remap[src->in[i]] = ir_add_input(dst, &src->vars[src->in[i]])) < 0) return -1;
    for (int i = 0; i < src->n_consts; i++)
        if (live[src->consts[i].var] && (remap[src->consts[i].var] = ir_add_const(dst, src->consts[i].val)) < 0)
            return -1;
    for (int k = 0; k < src->n_eqns; k++) {
        const ir_eqn *e = &src->eqns[k];
        if (!live[e->out]) continue;
        const int *in = ir_eqn_inputs(src, e);
        for (int i = 0; i < e->n_in; i++) operands[i] = remap[in[i]];
        int v = ir_add_eqn_multi(dst, e->prim, &e->params, e->n_in, operands, e->n_out, &src->vars[e->out]);
        if (v < 0) return -1;
        for (int j = 0; j < e->n_out; j++) remap[e->out + j] = v + j;
    }
    for (int i = 0; i < src->n_out; i++)
        if (ir_add_output(dst, remap[src->out[i]]) != 0) return -1;
    return 0;
}

static int dce(cj_ctx *ctx, const ir_func *src, const char *pass, ir_func **out, int *changed) {
    rt_mem *m = ctx->mem;
    size_t nv = (size_t)src->n_vars + 1, nops = max_operands(src);
    char *live = rt_calloc(m, nv);
    int *remap = rt_alloc(m, sizeof(int) * nv);
    int *operands = rt_alloc(m, sizeof(int) * nops);
    ir_func *dst = ir_new(src->mem);
    int status = -1;
    if (live && remap && operands && dst) {
        mark_live(src, live);
        status = copy_live(src, live, remap, operands, dst);
    }
    if (live) rt_free(m, live, nv);
    if (remap) rt_free(m, remap, sizeof(int) * nv);
    if (operands) rt_free(m, operands, sizeof(int) * nops);
    if (status != 0) {
        ir_free(dst);
        return core_oom(ctx, pass);
    }
    *changed = dst->n_eqns != src->n_eqns || dst->n_consts != src->n_consts;
    *out = dst;
    return 0;
}

/* ---- the passes ---- */

/* Makes `next` the current IR when it changed something, freeing the IR it
 * replaces unless that is the caller's (freed only once the pass succeeds). */
static void adopt(ir_func **cur, ir_func *next, const ir_func *callers, int changed) {
    if (!changed) {
        ir_free(next);
        return;
    }
    if (*cur != callers) ir_free(*cur);
    *cur = next;
}

int pass_dce(cj_ctx *ctx, ir_func **ir) {
    ir_func *next;
    int changed;
    if (dce(ctx, *ir, "dce", &next, &changed) != 0) return -1;
    ir_func *cur = *ir;
    adopt(&cur, next, NULL, changed);
    *ir = cur;
    return 0;
}

int pass_cse(cj_ctx *ctx, ir_func **ir) {
    ir_func *next;
    int changed;
    if (rewrite(ctx, *ir, REWRITE_CSE, "cse", &next, &changed) != 0) return -1;
    ir_func *cur = *ir;
    adopt(&cur, next, NULL, changed);
    *ir = cur;
    return 0;
}

int pass_simplify(cj_ctx *ctx, ir_func **ir) {
    ir_func *cur = *ir, *next;
    for (int round = 0; round < SIMPLIFY_MAX_ROUNDS; round++) {
        int rewritten, dropped, sunk;
        if (pass_sink_movement(ctx, cur, &next, &sunk) != 0) goto fail;
        adopt(&cur, next, *ir, sunk);
        if (rewrite(ctx, cur, REWRITE_FOLD | REWRITE_IDENTITIES | REWRITE_CSE, "simplify", &next, &rewritten) != 0)
            goto fail;
        adopt(&cur, next, *ir, rewritten);
        if (dce(ctx, cur, "simplify", &next, &dropped) != 0) goto fail;
        adopt(&cur, next, *ir, dropped);
        if (!sunk && !rewritten && !dropped) break;
    }
    if (cur != *ir) {
        ir_free(*ir);
        *ir = cur;
    }
    return 0;
fail:
    if (cur != *ir) ir_free(cur);
    return -1;
}
