/* fuzz_gen.c — the random program generator and interpreter behind
 * test_fuzz.c (see fuzz_gen.h for the model).
 *
 * Generation grows a program one operation at a time. Each operation picks
 * its first operand among the nodes made so far (the newest one half of the
 * time, so programs form chains), and makes any further operand it needs
 * of a compatible shape: the first operand itself, an earlier node that
 * broadcasts with it, or a fresh input of a derived shape (dims set to 1 or
 * 0 where broadcasting allows, leading dims dropped). An operation whose
 * constraints cannot be met (rank, sizes, the magnitude bound, no room for
 * another input) is dropped and another is drawn, so every generated
 * program is well typed and its values finite.
 *
 * A construct opens a scope per body, makes the body's parameters, grows a
 * few operations there the same way (operands: what the scope sees — its
 * parameters, its own nodes, the enclosing scopes' nodes, inputs), and
 * picks the body's results, adapting them to the types the construct needs
 * (a branch's outputs the first branch's types, a loop's carries their own
 * types and bound) with astype, tanh and broadcasts. Whether a program is
 * extended (may hold constructs and random numbers) is drawn from a stream
 * of its own, so the other programs are exactly what they were before
 * constructs existed. */
#include "fuzz_gen.h"

#include <math.h>

#include "api/api.h"       /* api_join_types: JAX's promotion, as cjax applies it */
#include "runtime/half.h"  /* f16/bf16 rounding of host copies */
#include <stdlib.h>
#include <string.h>

#define FZ_MAX_BOUND 1e3 /* no node may exceed this magnitude */
#define FZ_PI 3.14159265358979323846

/* ---- random numbers (splitmix64: any seed, even 0, is a good start) ---- */
uint64_t fz_rand_u64(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double fz_rand_uniform(uint64_t *state, double lo, double hi) {
    return lo + (hi - lo) * ((double)(fz_rand_u64(state) >> 11) * (1.0 / 9007199254740992.0));
}

typedef struct gen {
    fz_program *p;
    uint64_t rng;
    int scope;   /* where new nodes go */
    int only_cf; /* the next operation must be a construct */
    /* the outputs of the construct made last (for its FZ_OUTPUT nodes) */
    int n_out;
    fz_type out_types[FZ_MAX_CF_OUT];
} gen;

static int rnd(gen *g, int n) { return (int)(fz_rand_u64(&g->rng) % (uint64_t)n); }
static int chance(gen *g, double prob) { return fz_rand_uniform(&g->rng, 0, 1) < prob; }

/* Mostly 2..4, sometimes 1 (broadcasts), rarely 0 (empty arrays). */
static int64_t random_dim(gen *g) {
    int r = rnd(g, 20);
    return r == 0 ? 0 : r < 5 ? 1 : 2 + rnd(g, 3);
}

static const cj_dtype int_dtypes[8] = {CJ_I8, CJ_I16, CJ_I32, CJ_I64, CJ_U8, CJ_U16, CJ_U32, CJ_U64};

static int fam_int(const gen *g) { return g->p->family == FZ_FAMILY_INT; }
static int fam_narrow(const gen *g) { return g->p->family == FZ_FAMILY_NARROW; }

static cj_dtype random_dtype(gen *g) {
    if (fam_int(g)) return int_dtypes[rnd(g, 8)];
    if (fam_narrow(g)) {
        int r = rnd(g, 20);
        return r < 6 ? CJ_BF16 : r < 12 ? CJ_F16 : r < 17 ? CJ_F32 : CJ_F64;
    }
    return chance(g, 0.6) ? CJ_F32 : CJ_F64;
}
static int is_narrow(cj_dtype dt) { return dt == CJ_F16 || dt == CJ_BF16; }
static int is_float(cj_dtype dt) { return dt == CJ_F32 || dt == CJ_F64 || is_narrow(dt); }
int fz_is_int_dtype(cj_dtype dt) {
    for (int i = 0; i < 8; i++)
        if (dt == int_dtypes[i]) return 1;
    return 0;
}
/* The dtypes ordinary operations of the program take. */
static int value_dtype(const gen *g, cj_dtype dt) { return fam_int(g) ? fz_is_int_dtype(dt) : is_float(dt); }

int64_t fz_type_size(const fz_type *t) {
    int64_t n = 1;
    for (int i = 0; i < t->rank; i++) n *= t->dims[i];
    return n;
}

/* JAX's promotion (f32 with f64 as before; the new dtypes as cjax's
 * table, which tests/test_promotion.c checks against JAX's). */
static cj_dtype join_dtype(cj_dtype a, cj_dtype b) {
    if ((a == CJ_F32 || a == CJ_F64) && (b == CJ_F32 || b == CJ_F64)) return a == CJ_F64 || b == CJ_F64 ? CJ_F64 : CJ_F32;
    cj_dtype dt;
    int weak;
    api_join_types(a, 0, b, 0, &dt, &weak);
    return dt;
}
/* The dtype jnp.sum and jnp.prod of an integer dtype count in (x64 off):
 * narrower than 32 bits promote to i32 / u32. */
static cj_dtype int_sum_dtype(cj_dtype dt) {
    return dt == CJ_I8 || dt == CJ_I16 ? CJ_I32 : dt == CJ_U8 || dt == CJ_U16 ? CJ_U32 : dt;
}

static double max2(double a, double b) { return a > b ? a : b; }

/* NumPy broadcasting of a and b into *out (dtype joined; bound and err
 * left to the caller). 0 when they do not broadcast. */
static int broadcast_types(const fz_type *a, const fz_type *b, fz_type *out) {
    fz_type r = {join_dtype(a->dtype, b->dtype), a->rank > b->rank ? a->rank : b->rank, {0}, 0, 0};
    for (int i = 0; i < r.rank; i++) {
        int ia = a->rank - r.rank + i, ib = b->rank - r.rank + i;
        int64_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
        if (da != db && da != 1 && db != 1) return 0;
        r.dims[i] = da == 1 ? db : da;
    }
    *out = r;
    return 1;
}

static int same_dims(const fz_type *a, const fz_type *b) {
    if (a->rank != b->rank) return 0;
    for (int i = 0; i < a->rank; i++)
        if (a->dims[i] != b->dims[i]) return 0;
    return 1;
}

/* ---- building nodes ---- */
static const fz_type *type_of(gen *g, int node) { return &g->p->nodes[node].type; }

/* Can the scope being built read the node? Its own nodes and those of the
 * scopes around it (closures), inputs everywhere. */
static int visible(const gen *g, int node) {
    int s = g->p->nodes[node].scope;
    for (int c = g->scope;; c = g->p->scopes[c].parent) {
        if (c == s) return 1;
        if (c == 0) return 0;
    }
}

/* A visible float node: what ordinary operations take (a loop's i32 index
 * or counter only reaches them through FZ_INT_TO_FLOAT). */
static int usable(const gen *g, int node) { return visible(g, node) && value_dtype(g, g->p->nodes[node].type.dtype); }

/* In a narrow-float program, what a predicate reads: a visible input of
 * the program (exact, and its sum is exact in f32), the first broadcasting
 * with `with` when given; -1 if none. */
static int exact_operand(gen *g, const fz_type *with) {
    int n = g->p->n_nodes, start = rnd(g, n);
    for (int k = 0; k < n; k++) {
        int c = (start + k) % n;
        fz_type tmp;
        if (g->p->nodes[c].kind == FZ_INPUT && usable(g, c) && (!with || broadcast_types(with, type_of(g, c), &tmp)))
            return c;
    }
    return -1;
}

static int newest_usable(const gen *g) {
    for (int c = g->p->n_nodes - 1; c > 0; c--)
        if (usable(g, c)) return c;
    return 0; /* the first input */
}

/* Appends a node to the scope being built; -1 when nodes are used up. */
static int append(gen *g, const fz_node *n) {
    fz_program *p = g->p;
    if (p->n_nodes == FZ_MAX_NODES) return -1;
    p->nodes[p->n_nodes] = *n;
    p->nodes[p->n_nodes].scope = g->scope;
    return p->n_nodes++;
}

/* Appends an input of type t; -1 when inputs or nodes are used up. */
static int add_input(gen *g, fz_type t) {
    fz_program *p = g->p;
    if (p->n_inputs == FZ_MAX_INPUTS || p->n_nodes == FZ_MAX_NODES) return -1;
    fz_node *n = &p->nodes[p->n_nodes];
    memset(n, 0, sizeof *n);
    n->kind = FZ_INPUT;
    n->input = p->n_inputs;
    t.bound = FZ_INPUT_BOUND;
    t.err = 0;
    n->type = t;
    p->input_node[p->n_inputs++] = p->n_nodes;
    return p->n_nodes++;
}

static fz_type random_input_type(gen *g) {
    fz_type t = {random_dtype(g), rnd(g, 4), {0}, 0, 0};
    for (int i = 0; i < t.rank; i++) t.dims[i] = random_dim(g);
    return t;
}

/* The first operand: the newest usable node half of the time, else any.
 * (Where every node is usable — a program without constructs — this draws
 * exactly what it drew before scopes existed.) */
static int pick_operand(gen *g) {
    int n = g->p->n_nodes;
    if (chance(g, 0.5)) return newest_usable(g);
    int m = 0;
    for (int c = 0; c < n; c++) m += usable(g, c);
    int k = rnd(g, m);
    for (int c = 0; c < n; c++)
        if (usable(g, c) && k-- == 0) return c;
    return 0;
}

/* A shape that broadcasts against a: trailing dims of a, each kept, set to
 * 1, or (where a has 1) grown to any size, 0 included. */
static fz_type derive_broadcastable(gen *g, const fz_type *a) {
    int drop = a->rank > 0 && chance(g, 0.3) ? 1 + rnd(g, a->rank) : 0;
    fz_type b = {random_dtype(g), a->rank - drop, {0}, 0, 0};
    for (int i = 0; i < b.rank; i++) {
        int64_t d = a->dims[drop + i];
        if (d == 1)
            b.dims[i] = chance(g, 0.5) ? 1 : random_dim(g);
        else
            b.dims[i] = chance(g, 0.25) ? 1 : d;
    }
    return b;
}

/* A second operand broadcasting with node a: a itself, an earlier node
 * that broadcasts, or a new input of a derived shape. */
static int broadcast_partner(gen *g, int a) {
    const fz_type *ta = type_of(g, a);
    int r = rnd(g, 10);
    if (r < 2) return a;
    if (r < 5) {
        int n = g->p->n_nodes, start = rnd(g, n);
        for (int k = 0; k < n; k++) {
            int c = (start + k) % n;
            fz_type tmp;
            if (c != a && usable(g, c) && broadcast_types(ta, type_of(g, c), &tmp)) return c;
        }
    }
    int b = add_input(g, derive_broadcastable(g, ta));
    return b >= 0 ? b : a;
}

/* An operand of exactly type t's dims: an earlier node, else a new input. */
static int operand_with_dims(gen *g, const fz_type *t) {
    int n = g->p->n_nodes, start = rnd(g, n);
    if (chance(g, 0.5))
        for (int k = 0; k < n; k++)
            if (usable(g, (start + k) % n) && same_dims(type_of(g, (start + k) % n), t)) return (start + k) % n;
    fz_type want = *t;
    want.dtype = random_dtype(g);
    return add_input(g, want);
}

/* Random subset of the rank axes into axes (as a mix of positive and
 * negative numbers); returns how many, at least `min`. */
static int random_axes(gen *g, int rank, int min, int64_t *axes) {
    int n = 0;
    for (int i = 0; i < rank; i++)
        if (chance(g, 0.5)) axes[n++] = i;
    if (n < min && rank > 0) axes[n++] = rnd(g, rank); /* min is 0 or 1 */
    for (int i = 0; i < n; i++)
        if (chance(g, 0.3)) axes[i] -= rank;
    /* shuffle: the API takes axes in any order */
    for (int i = n - 1; i > 0; i--) {
        int j = rnd(g, i + 1);
        int64_t t = axes[i];
        axes[i] = axes[j], axes[j] = t;
    }
    return n;
}

static int64_t norm_axis(int64_t ax, int rank) { return ax < 0 ? ax + rank : ax; }

/* Marks the reduced axes of a reduction node (n_axes -1: all). */
static void reduced_mask(const fz_node *n, int rank, int *mask) {
    for (int i = 0; i < rank; i++) mask[i] = n->n_axes < 0;
    for (int i = 0; i < n->n_axes; i++) mask[norm_axis(n->axes[i], rank)] = 1;
}

/* Result type of a reduction of a over n's axes; *count gets the number
 * of elements reduced into each result, *empty whether that is 0. */
static fz_type reduced_type(const fz_node *n, const fz_type *a, int64_t *count) {
    int mask[FZ_MAX_RANK];
    reduced_mask(n, a->rank, mask);
    fz_type r = *a;
    r.rank = 0;
    *count = 1;
    for (int i = 0; i < a->rank; i++) {
        if (mask[i]) {
            *count *= a->dims[i];
            if (n->keepdims) r.dims[r.rank++] = 1;
        } else {
            r.dims[r.rank++] = a->dims[i];
        }
    }
    return r;
}

static void random_reduce_axes(gen *g, fz_node *n, int rank) {
    int r = rnd(g, 10);
    if (r < 2 || rank == 0)
        n->n_axes = -1;
    else if (r < 3)
        n->n_axes = 0;
    else
        n->n_axes = random_axes(g, rank, 1, n->axes);
    n->keepdims = chance(g, 0.4);
}

/* ---- one generator per kind: fill n (args, params, type); 0 to reject ---- */
static int unary_bound(int sub, double b, double c, double *out, double *lip) {
    double e;
    switch (sub) {
    case FZ_NEG: case FZ_ABS: case FZ_RELU: *out = b, *lip = 1; return 1;
    case FZ_SIN: case FZ_COS: case FZ_TANH: case FZ_CLIP: *out = b < 1 ? b : 1, *lip = 1; return 1;
    case FZ_LOGISTIC: *out = 1, *lip = 0.25; return 1;
    case FZ_ERF: *out = 1, *lip = 1.13; return 1;
    case FZ_ATAN: *out = b < FZ_PI / 2 ? b : FZ_PI / 2, *lip = 1; return 1;
    case FZ_EXP: case FZ_EXPM1: if (b > 3) return 0; e = exp(b); *out = e, *lip = e; return 1;
    case FZ_SINH: case FZ_COSH: if (b > 3) return 0; *out = cosh(b), *lip = cosh(b); return 1;
    case FZ_SQUARE: if (b > 30) return 0; *out = b * b, *lip = 2 * b; return 1;
    case FZ_LOG_ABS1: *out = log(b + 1), *lip = 1; return 1;
    case FZ_SQRT_ABS1: *out = sqrt(b + 1), *lip = 0.5; return 1;
    case FZ_RSQRT_ABS1: *out = 1, *lip = 0.5; return 1;
    case FZ_LOG1P_ABS: *out = log1p(b), *lip = 1; return 1;
    case FZ_GELU: *out = max2(b, 0.2), *lip = 1.13; return 1;
    case FZ_CBRT_ABS1: *out = cbrt(b + 1), *lip = 1.0 / 3; return 1;
    case FZ_ASIN_TANH: *out = asin(0.9), *lip = 2.1; return 1;
    case FZ_ACOS_TANH: *out = FZ_PI, *lip = 2.1; return 1;
    case FZ_TAN_HALF_TANH: *out = tan(0.5), *lip = 0.7; return 1;
    case FZ_MUL_CONST: *out = b * fabs(c), *lip = fabs(c); return 1;
    case FZ_ADD_CONST: *out = b + fabs(c), *lip = 1; return 1;
    case FZ_ASINH: *out = asinh(b), *lip = 1; return 1;
    case FZ_ERFC: *out = 2, *lip = 1.13; return 1;
    case FZ_ATANH_TANH: *out = atanh(0.9), *lip = 4.8; return 1;
    /* lgamma(|x| + 1) >= -0.13; its slope digamma(|x| + 1) <= log(|x| + 1) */
    case FZ_LGAMMA_ABS1: if (b > 1e6) return 0; *out = max2(lgamma(b + 1), 0.13), *lip = max2(log(b + 1), 0.58); return 1;
    case FZ_IPOW3: if (b > 10) return 0; *out = b * b * b, *lip = 3 * b * b; return 1;
    default: return 0;
    }
}

static int gen_unary(gen *g, fz_node *n) {
    n->args[0] = pick_operand(g);
    n->n_args = 1;
    if (fam_int(g)) { /* exact: no bound to keep (integers wrap) */
        n->sub = rnd(g, FZ_NUM_INT_UNARY);
        n->constant = rnd(g, 9) - 4;
        n->type = *type_of(g, n->args[0]);
        return 1;
    }
    n->sub = rnd(g, FZ_NUM_UNARY);
    n->constant = round(fz_rand_uniform(&g->rng, -2, 2) * 8) / 8; /* exact in f32 */
    const fz_type *a = type_of(g, n->args[0]);
    double out, lip;
    if (!unary_bound(n->sub, a->bound, n->constant, &out, &lip)) return 0;
    n->type = *a;
    n->type.bound = out;
    n->type.err = lip * a->err + 4 * out; /* a few ulp per transcendental */
    return 1;
}

static int gen_binary(gen *g, fz_node *n) {
    int a = pick_operand(g), b = broadcast_partner(g, a);
    if (chance(g, 0.5)) {
        int t = a;
        a = b, b = t;
    }
    n->args[0] = a, n->args[1] = b, n->n_args = 2;
    const fz_type *ta = type_of(g, a), *tb = type_of(g, b);
    if (fam_int(g)) { /* u64 with a signed type promotes to a float: not drawn */
        n->sub = rnd(g, FZ_NUM_INT_BINARY);
        return broadcast_types(ta, tb, &n->type) && fz_is_int_dtype(n->type.dtype);
    }
    n->sub = rnd(g, FZ_NUM_BINARY);
    if (!broadcast_types(ta, tb, &n->type)) return 0;
    double ba = ta->bound, bb = tb->bound, ea = ta->err, eb = tb->err, out, err;
    switch (n->sub) {
    case FZ_ADD: case FZ_SUB: out = ba + bb, err = ea + eb + out; break;
    case FZ_MUL: out = ba * bb, err = ea * bb + eb * ba + out; break;
    case FZ_DIV_ABS1: out = ba, err = ea + ba * eb + 2 * out; break;
    case FZ_MAX: case FZ_MIN: out = max2(ba, bb), err = max2(ea, eb); break;
    case FZ_POW_ABS1: out = ba + 1, err = ea + eb * log(ba + 1) * (ba + 1) + 4 * out; break;
    default: out = FZ_PI / 2, err = ea + eb + 4; break; /* FZ_ATAN2_ABS1 */
    }
    n->type.bound = out, n->type.err = err;
    return out <= FZ_MAX_BOUND;
}

static int gen_where(gen *g, fz_node *n) {
    int a = pick_operand(g), b = broadcast_partner(g, a);
    fz_type ab, abc;
    if (!broadcast_types(type_of(g, a), type_of(g, b), &ab)) return 0;
    if (fam_int(g) && !fz_is_int_dtype(ab.dtype)) return 0;
    /* the predicate's operand: compatible with the result so far (in a
     * narrow-float program an input, compared exactly) */
    if (fam_narrow(g)) {
        n->args[2] = exact_operand(g, &ab);
        if (n->args[2] < 0) n->args[2] = add_input(g, derive_broadcastable(g, &ab));
        if (n->args[2] < 0) return 0;
    } else {
        n->args[2] = broadcast_partner(g, a);
    }
    if (!broadcast_types(&ab, type_of(g, n->args[2]), &abc)) return 0;
    n->args[0] = a, n->args[1] = b, n->n_args = 3;
    n->constant = round(fz_rand_uniform(&g->rng, -0.5, 0.5) * 8) / 8;
    if (fam_int(g)) n->constant = rnd(g, 9) - 4;
    abc.dtype = ab.dtype; /* the predicate's dtype does not join */
    abc.bound = max2(type_of(g, a)->bound, type_of(g, b)->bound);
    abc.err = max2(type_of(g, a)->err, type_of(g, b)->err);
    n->type = abc;
    return 1;
}

static int gen_reduce(gen *g, fz_node *n) {
    n->args[0] = pick_operand(g), n->n_args = 1;
    const fz_type *a = type_of(g, n->args[0]);
    n->sub = rnd(g, FZ_NUM_REDUCE);
    if (fam_int(g)) n->sub = (int[]){FZ_SUM, FZ_RMAX, FZ_RMIN, FZ_PROD}[rnd(g, 4)]; /* mean and var are floats */
    random_reduce_axes(g, n, a->rank);
    int64_t k;
    n->type = reduced_type(n, a, &k);
    double b = a->bound, e = a->err, kd = (double)k;
    /* a mean, max, min or var of nothing is not finite */
    if (k == 0 && n->sub != FZ_SUM && n->sub != FZ_PROD && fz_type_size(&n->type) > 0) return 0;
    if (fam_int(g) && (n->sub == FZ_SUM || n->sub == FZ_PROD)) { /* jnp.sum counts in the default int */
        n->type.dtype = int_sum_dtype(n->type.dtype);
        return 1;
    }
    switch (n->sub) {
    case FZ_SUM: n->type.bound = kd * b, n->type.err = kd * e + kd * kd * b; break;
    case FZ_MEAN: n->type.bound = b, n->type.err = e + kd * b; break;
    case FZ_RMAX: case FZ_RMIN: n->type.bound = b, n->type.err = e; break;
    case FZ_PROD:
        if (b > 1.25 || k > 8) return 0;
        n->type.bound = max2(1, pow(b, kd)), n->type.err = kd * e * n->type.bound + kd * n->type.bound;
        break;
    default: n->type.bound = b * b, n->type.err = 4 * b * e + 4 * kd * b * b; break; /* FZ_VAR */
    }
    return n->type.bound <= FZ_MAX_BOUND;
}

static int gen_cumulative(gen *g, fz_node *n) {
    n->args[0] = pick_operand(g), n->n_args = 1;
    const fz_type *a = type_of(g, n->args[0]);
    if (a->rank == 0) return 0;
    n->sub = rnd(g, 2);
    n->axis = rnd(g, a->rank) - (chance(g, 0.3) ? a->rank : 0);
    n->keepdims = chance(g, 0.5); /* reverse */
    n->type = *a;
    double k = (double)a->dims[norm_axis(n->axis, a->rank)];
    if (n->sub == 0) n->type.bound = k * a->bound, n->type.err = k * a->err + k * k * a->bound;
    return n->type.bound <= FZ_MAX_BOUND;
}

/* A random shape of the same size: the size's prime factors dealt into
 * 0..4 axes (ones elsewhere); one axis may be given as -1. */
static int gen_reshape(gen *g, fz_node *n) {
    n->args[0] = pick_operand(g), n->n_args = 1;
    const fz_type *a = type_of(g, n->args[0]);
    int64_t size = fz_type_size(a);
    int rank = 1 + rnd(g, FZ_MAX_RANK);
    if (size == 1 && chance(g, 0.3)) rank = 0;
    for (int i = 0; i < rank; i++) n->p0[i] = 1;
    if (size == 0) {
        for (int i = 0; i < rank; i++) n->p0[i] = random_dim(g);
        n->p0[rnd(g, rank)] = 0;
    } else {
        int64_t m = size;
        for (int64_t f = 2; m > 1;) {
            if (m % f == 0) {
                n->p0[rnd(g, rank)] *= f;
                m /= f;
            } else {
                f++;
            }
        }
    }
    n->shape_rank = rank;
    n->type = *a;
    n->type.rank = rank;
    for (int i = 0; i < rank; i++) n->type.dims[i] = n->p0[i];
    if (size > 0 && rank > 0 && chance(g, 0.3)) n->p0[rnd(g, rank)] = -1;
    return 1;
}

static int gen_transpose(gen *g, fz_node *n) {
    n->args[0] = pick_operand(g), n->n_args = 1;
    const fz_type *a = type_of(g, n->args[0]);
    for (int i = 0; i < a->rank; i++) n->p0[i] = i;
    for (int i = a->rank - 1; i > 0; i--) {
        int j = rnd(g, i + 1);
        int64_t t = n->p0[i];
        n->p0[i] = n->p0[j], n->p0[j] = t;
    }
    n->keepdims = chance(g, 0.2); /* perm NULL: reversed axes */
    if (n->keepdims)
        for (int i = 0; i < a->rank; i++) n->p0[i] = a->rank - 1 - i;
    n->type = *a;
    for (int i = 0; i < a->rank; i++) n->type.dims[i] = a->dims[n->p0[i]];
    return 1;
}

static int gen_expand_dims(gen *g, fz_node *n) {
    n->args[0] = pick_operand(g), n->n_args = 1;
    const fz_type *a = type_of(g, n->args[0]);
    if (a->rank >= FZ_MAX_RANK) return 0;
    n->axis = rnd(g, a->rank + 1) - (chance(g, 0.3) ? a->rank + 1 : 0);
    int64_t ax = norm_axis(n->axis, a->rank + 1);
    n->type = *a;
    n->type.rank = a->rank + 1;
    for (int i = 0, j = 0; i < n->type.rank; i++) n->type.dims[i] = i == ax ? 1 : a->dims[j++];
    return 1;
}

static int gen_squeeze(gen *g, fz_node *n) {
    n->args[0] = pick_operand(g), n->n_args = 1;
    const fz_type *a = type_of(g, n->args[0]);
    int ones[FZ_MAX_RANK], n_ones = 0;
    for (int i = 0; i < a->rank; i++)
        if (a->dims[i] == 1) ones[n_ones++] = i;
    if (n_ones == 0) return 0;
    int mask[FZ_MAX_RANK] = {0};
    n->n_axes = 0;
    for (int i = 0; i < n_ones; i++)
        if (chance(g, 0.6) || (i == n_ones - 1 && n->n_axes == 0)) {
            mask[ones[i]] = 1;
            n->axes[n->n_axes++] = ones[i] - (chance(g, 0.3) ? a->rank : 0);
        }
    n->type = *a;
    n->type.rank = 0;
    for (int i = 0; i < a->rank; i++)
        if (!mask[i]) n->type.dims[n->type.rank++] = a->dims[i];
    return 1;
}

static int gen_slice(gen *g, fz_node *n) {
    n->args[0] = pick_operand(g), n->n_args = 1;
    const fz_type *a = type_of(g, n->args[0]);
    n->type = *a;
    for (int i = 0; i < a->rank; i++) {
        int64_t d = a->dims[i];
        n->p0[i] = rnd(g, (int)d + 1);
        n->p1[i] = n->p0[i] + rnd(g, (int)(d - n->p0[i]) + 1);
        n->p2[i] = chance(g, 0.6) ? 1 : 1 + rnd(g, 3);
        int64_t len = n->p1[i] - n->p0[i];
        n->type.dims[i] = len > 0 ? (len + n->p2[i] - 1) / n->p2[i] : 0;
    }
    return 1;
}

static int gen_concatenate(gen *g, fz_node *n) {
    int a = pick_operand(g);
    const fz_type *ta = type_of(g, a);
    if (ta->rank == 0) return 0;
    n->axis = rnd(g, ta->rank) - (chance(g, 0.3) ? ta->rank : 0);
    int64_t ax = norm_axis(n->axis, ta->rank);
    fz_type other = *ta;
    other.dtype = random_dtype(g);
    other.dims[ax] = random_dim(g);
    int b = chance(g, 0.3) ? a : add_input(g, other);
    if (b < 0) b = a;
    n->n_args = chance(g, 0.3) ? 3 : 2;
    n->args[0] = a, n->args[1] = b, n->args[2] = a;
    n->type = *ta;
    n->type.dims[ax] = 0;
    n->type.bound = n->type.err = 0;
    for (int i = 0; i < n->n_args; i++) {
        const fz_type *t = type_of(g, n->args[i]);
        n->type.dims[ax] += t->dims[ax];
        n->type.dtype = join_dtype(n->type.dtype, t->dtype);
        n->type.bound = max2(n->type.bound, t->bound);
        n->type.err = max2(n->type.err, t->err);
    }
    return !fam_int(g) || fz_is_int_dtype(n->type.dtype);
}

static int gen_pad(gen *g, fz_node *n) {
    n->args[0] = pick_operand(g), n->n_args = 1;
    const fz_type *a = type_of(g, n->args[0]);
    n->type = *a;
    for (int i = 0; i < a->rank; i++) {
        int64_t d = a->dims[i];
        n->p2[i] = chance(g, 0.3) ? 1 + rnd(g, 2) : 0;
        n->p0[i] = rnd(g, 4) - 1; /* -1 crops */
        n->p1[i] = rnd(g, 4) - 1;
        int64_t inner = d + (d > 0 ? (d - 1) * n->p2[i] : 0);
        if (inner + n->p0[i] + n->p1[i] < 0) n->p0[i] = n->p1[i] = 0;
        n->type.dims[i] = inner + n->p0[i] + n->p1[i];
    }
    n->constant = round(fz_rand_uniform(&g->rng, -1, 1) * 8) / 8;
    if (fam_int(g)) n->constant = rnd(g, 4);
    n->type.bound = max2(a->bound, fabs(n->constant));
    return 1;
}

static int gen_rev(gen *g, fz_node *n) {
    n->args[0] = pick_operand(g), n->n_args = 1;
    const fz_type *a = type_of(g, n->args[0]);
    if (a->rank == 0) return 0;
    n->n_axes = random_axes(g, a->rank, 1, n->axes);
    n->type = *a;
    return 1;
}

static int gen_broadcast_to(gen *g, fz_node *n) {
    n->args[0] = pick_operand(g), n->n_args = 1;
    const fz_type *a = type_of(g, n->args[0]);
    int lead = rnd(g, FZ_MAX_RANK - a->rank + 1);
    if (lead > 2) lead = 2;
    n->shape_rank = a->rank + lead;
    for (int i = 0; i < lead; i++) n->p0[i] = random_dim(g);
    for (int i = 0; i < a->rank; i++) n->p0[lead + i] = a->dims[i] == 1 && chance(g, 0.6) ? random_dim(g) : a->dims[i];
    n->type = *a;
    n->type.rank = n->shape_rank;
    for (int i = 0; i < n->shape_rank; i++) n->type.dims[i] = n->p0[i];
    return 1;
}

/* Sets the bound and error of a product contracting k terms. */
static void product_type(fz_type *t, const fz_type *a, const fz_type *b, int64_t k) {
    double kd = (double)(k > 1 ? k : 1);
    t->bound = kd * a->bound * b->bound;
    t->err = kd * (a->err * b->bound + b->err * a->bound) + kd * kd * a->bound * b->bound;
}

/* dot_general: up to one batch axis and one or two contracting axes of the
 * first operand; the second operand has those (in a random order) plus at
 * most one free axis. */
static int gen_dot_general(gen *g, fz_node *n) {
    int a = pick_operand(g);
    fz_type ta = *type_of(g, a);
    if (ta.rank == 0) return 0;
    int order[FZ_MAX_RANK];
    for (int i = 0; i < ta.rank; i++) order[i] = i;
    for (int i = ta.rank - 1; i > 0; i--) {
        int j = rnd(g, i + 1), t = order[i];
        order[i] = order[j], order[j] = t;
    }
    n->n_batch = ta.rank >= 2 && chance(g, 0.3) ? 1 : 0;
    int left = ta.rank - n->n_batch;
    n->n_axes = left >= 2 && chance(g, 0.2) ? 2 : chance(g, 0.1) ? 0 : 1;
    if (n->n_axes > left) n->n_axes = left;
    int free_b = rnd(g, 2);
    int rank_b = n->n_batch + n->n_axes + free_b;
    int rank_out = ta.rank - n->n_axes + free_b;
    if (rank_b > 3 || rank_out > FZ_MAX_RANK) return 0;
    int slot[FZ_MAX_RANK]; /* B's axes in a random order */
    for (int i = 0; i < rank_b; i++) slot[i] = i;
    for (int i = rank_b - 1; i > 0; i--) {
        int j = rnd(g, i + 1), t = slot[i];
        slot[i] = slot[j], slot[j] = t;
    }
    fz_type tb = {random_dtype(g), rank_b, {0}, 0, 0};
    int s = 0, is_a_used[FZ_MAX_RANK] = {0};
    int64_t k = 1;
    for (int i = 0; i < n->n_batch; i++, s++) {
        n->p2[i] = order[s], n->p3[i] = slot[s];
        tb.dims[slot[s]] = ta.dims[order[s]];
        is_a_used[order[s]] = 1;
    }
    for (int i = 0; i < n->n_axes; i++, s++) {
        n->p0[i] = order[s], n->p1[i] = slot[s];
        tb.dims[slot[s]] = ta.dims[order[s]];
        k *= ta.dims[order[s]];
        is_a_used[order[s]] = 1;
    }
    int free_slot = free_b ? slot[s] : -1;
    if (free_b) tb.dims[free_slot] = random_dim(g);
    int b = operand_with_dims(g, &tb);
    if (b < 0) return 0;
    n->args[0] = a, n->args[1] = b, n->n_args = 2;
    /* output: batch, free of a (in order), free of b */
    fz_type out = {join_dtype(ta.dtype, type_of(g, b)->dtype), 0, {0}, 0, 0};
    for (int i = 0; i < n->n_batch; i++) out.dims[out.rank++] = ta.dims[n->p2[i]];
    for (int i = 0; i < ta.rank; i++)
        if (!is_a_used[i]) out.dims[out.rank++] = ta.dims[i];
    if (free_b) out.dims[out.rank++] = tb.dims[free_slot];
    product_type(&out, &ta, type_of(g, b), k);
    n->type = out;
    return out.bound <= FZ_MAX_BOUND && (!fam_int(g) || fz_is_int_dtype(out.dtype));
}

/* matmul: the second operand a vector, a matrix, or a stack of matrices
 * whose batch axis broadcasts with the first operand's. */
static int gen_matmul(gen *g, fz_node *n) {
    int a = pick_operand(g);
    fz_type ta = *type_of(g, a);
    if (ta.rank == 0) return 0;
    int64_t k = ta.dims[ta.rank - 1];
    fz_type tb = {random_dtype(g), 1 + rnd(g, 3), {0}, 0, 0};
    if (tb.rank == 1) {
        tb.dims[0] = k;
    } else {
        tb.dims[tb.rank - 2] = k, tb.dims[tb.rank - 1] = random_dim(g);
        if (tb.rank == 3) tb.dims[0] = ta.rank >= 3 && chance(g, 0.7) ? ta.dims[ta.rank - 3] : ta.rank >= 3 ? 1 : random_dim(g);
    }
    fz_type out = {join_dtype(ta.dtype, tb.dtype), 0, {0}, 0, 0};
    if (ta.rank == 1) { /* a vector times a vector is a scalar */
        for (int i = 0; tb.rank > 1 && i < tb.rank; i++)
            if (i != tb.rank - 2) out.dims[out.rank++] = tb.dims[i];
    } else if (tb.rank == 1) {
        out.rank = ta.rank - 1;
        memcpy(out.dims, ta.dims, sizeof(int64_t) * (size_t)out.rank);
    } else {
        fz_type ba = ta, bb = tb; /* batch shapes */
        ba.rank -= 2, bb.rank -= 2;
        fz_type batch;
        if (!broadcast_types(&ba, &bb, &batch)) return 0;
        out.rank = batch.rank + 2;
        memcpy(out.dims, batch.dims, sizeof(int64_t) * (size_t)batch.rank);
        out.dims[batch.rank] = ta.dims[ta.rank - 2];
        out.dims[batch.rank + 1] = tb.dims[tb.rank - 1];
    }
    if (out.rank > FZ_MAX_RANK) return 0;
    int b = operand_with_dims(g, &tb);
    if (b < 0) return 0;
    n->args[0] = a, n->args[1] = b, n->n_args = 2;
    out.dtype = join_dtype(ta.dtype, type_of(g, b)->dtype);
    product_type(&out, &ta, type_of(g, b), k);
    n->type = out;
    return out.bound <= FZ_MAX_BOUND && (!fam_int(g) || fz_is_int_dtype(out.dtype));
}

static int gen_astype(gen *g, fz_node *n) {
    n->args[0] = pick_operand(g), n->n_args = 1;
    const fz_type *a = type_of(g, n->args[0]);
    n->dtype = a->dtype == CJ_F32 ? CJ_F64 : CJ_F32;
    if (g->p->family != FZ_FAMILY_BASE) /* another of the family's dtypes */
        while ((n->dtype = random_dtype(g)) == a->dtype) {}
    n->type = *a;
    n->type.dtype = n->dtype;
    n->type.err = a->err + a->bound; /* one rounding to f32 */
    return 1;
}

static int gen_softmax(gen *g, fz_node *n) {
    if (fam_int(g)) return 0;
    n->args[0] = pick_operand(g), n->n_args = 1;
    const fz_type *a = type_of(g, n->args[0]);
    if (a->rank == 0) return 0;
    n->sub = rnd(g, 2);
    n->axis = rnd(g, a->rank) - (chance(g, 0.3) ? a->rank : 0);
    double k = (double)a->dims[norm_axis(n->axis, a->rank)];
    n->type = *a;
    if (n->sub == 0) {
        n->type.bound = 1, n->type.err = 2 * a->err + 4 * k + 4;
    } else {
        n->type.bound = 2 * a->bound + log(max2(k, 1));
        n->type.err = 2 * a->err + 4 * k * (a->bound + 1);
    }
    return 1;
}

static int gen_logsumexp(gen *g, fz_node *n) {
    if (fam_int(g)) return 0;
    n->args[0] = pick_operand(g), n->n_args = 1;
    const fz_type *a = type_of(g, n->args[0]);
    random_reduce_axes(g, n, a->rank);
    int64_t k;
    n->type = reduced_type(n, a, &k);
    if (k == 0 && fz_type_size(&n->type) > 0) return 0; /* log 0 */
    n->type.bound = a->bound + log(max2((double)k, 1));
    n->type.err = a->err + 4 * (double)k * (a->bound + 1);
    return 1;
}

/* ---- control flow and random numbers (extended programs) ---- */
static int add_random_op(gen *g);

static int is_construct(fz_kind k) {
    return k == FZ_COND || k == FZ_SWITCH || k == FZ_SCAN || k == FZ_FORI || k == FZ_WHILE;
}

/* May the scope being built hold another construct? */
static int cf_allowed(const gen *g) { return g->p->extended && g->p->scopes[g->scope].depth < FZ_MAX_DEPTH; }

/* Opens a body inside the scope being built, with parameters of the given
 * types (new FZ_PARAM nodes); its number, or -1 when scopes or nodes are
 * used up. The caller sets g->scope to it while growing the body. */
static int open_scope(gen *g, int n_params, const fz_type *types) {
    fz_program *p = g->p;
    if (p->n_scopes == FZ_MAX_SCOPES || p->n_nodes + n_params + 4 > FZ_MAX_NODES) return -1;
    int s = p->n_scopes++;
    fz_scope *sc = &p->scopes[s];
    memset(sc, 0, sizeof *sc);
    sc->parent = g->scope;
    sc->depth = p->scopes[g->scope].depth + 1;
    sc->owner = -1;
    sc->n_params = n_params;
    for (int i = 0; i < n_params; i++) {
        fz_node n;
        memset(&n, 0, sizeof n);
        n.kind = FZ_PARAM, n.input = i, n.scope = s, n.type = types[i];
        p->nodes[p->n_nodes] = n;
        sc->params[i] = p->n_nodes++;
    }
    return s;
}

/* Grows up to n_ops operations in the scope being built. */
static void body_ops(gen *g, int n_ops) {
    for (int k = 0; k < n_ops; k++)
        if (!add_random_op(g)) break;
}

/* A visible i32 scalar (a loop's index or counter, or in an integer
 * program any i32 scalar), newest first; -1 if none. */
static int visible_int(const gen *g) {
    for (int c = g->p->n_nodes - 1; c >= 0; c--)
        if (visible(g, c) && g->p->nodes[c].type.dtype == CJ_I32 && g->p->nodes[c].type.rank == 0) return c;
    return -1;
}

/* What a predicate, a switch index or a data-dependent fold_in is made
 * from: a float node (through its sum), sometimes a loop's index. */
static int pick_int_or_float(gen *g) {
    int i = chance(g, 0.3) ? visible_int(g) : -1;
    if (i < 0 && fam_narrow(g)) i = exact_operand(g, NULL);
    return i >= 0 ? i : pick_operand(g);
}

/* A threshold somewhere in the range of sum(node) (or of the integer). */
static double threshold_for(gen *g, int node) {
    const fz_type *t = type_of(g, node);
    double scale = t->bound * (fz_type_size(t) > 1 ? 2 : 1);
    if (fam_int(g)) return rnd(g, 17) - 8; /* integer sums are small more often than not */
    return round(fz_rand_uniform(&g->rng, -0.5, 0.5) * scale * 8) / 8;
}

/* The start indices' source of a dynamic slice or update (its last
 * argument, at `arg`): a visible loop index most often, sometimes data,
 * else constants only. */
static void pick_start_source(gen *g, fz_node *n, int arg) {
    int i = visible_int(g);
    n->sub = FZ_START_CONST;
    if (i >= 0 && chance(g, 0.8)) {
        n->sub = FZ_START_INT, n->args[arg] = i;
    } else if (chance(g, 0.3)) {
        n->sub = FZ_START_DATA, n->args[arg] = fam_narrow(g) ? exact_operand(g, NULL) : pick_operand(g);
        n->consts[0] = threshold_for(g, n->args[arg]);
    }
    n->n_args = arg + (n->sub != FZ_START_CONST);
}

/* Starts for a window of `sizes` in x: from -1 to past the end (clamped). */
static void random_starts(gen *g, fz_node *n, const fz_type *x, const int64_t *sizes) {
    for (int d = 0; d < x->rank; d++) {
        n->p1[d] = n->sub != FZ_START_CONST && chance(g, 0.6);
        n->p2[d] = n->p1[d] ? rnd(g, 3) - 1 : rnd(g, (int)(x->dims[d] - sizes[d]) + 3) - 1;
    }
}

static int gen_dynamic_slice(gen *g, fz_node *n) {
    if (!g->p->extended) return 0;
    n->args[0] = pick_operand(g);
    const fz_type *x = type_of(g, n->args[0]);
    n->type = *x;
    for (int d = 0; d < x->rank; d++) n->type.dims[d] = n->p0[d] = rnd(g, (int)x->dims[d] + 1);
    pick_start_source(g, n, 1);
    random_starts(g, n, x, n->p0);
    return 1;
}

/* dynamic_update_slice(x, u, starts) with u a visible node that fits in x
 * or a new input that does. */
static int make_dynamic_update(gen *g, fz_node *n, int x) {
    const fz_type *tx = type_of(g, x);
    int u = -1, nn = g->p->n_nodes, start = rnd(g, nn), search = chance(g, 0.6);
    for (int k = 0; search && k < nn && u < 0; k++) {
        int c = (start + k) % nn, fits = usable(g, c) && type_of(g, c)->rank == tx->rank;
        for (int d = 0; fits && d < tx->rank; d++) fits = type_of(g, c)->dims[d] <= tx->dims[d];
        if (fits) u = c;
    }
    if (u < 0) {
        fz_type t = {random_dtype(g), tx->rank, {0}, 0, 0};
        for (int d = 0; d < tx->rank; d++) t.dims[d] = rnd(g, (int)tx->dims[d] + 1);
        if ((u = add_input(g, t)) < 0) return 0;
    }
    n->kind = FZ_DYNAMIC_UPDATE;
    n->args[0] = x, n->args[1] = u;
    pick_start_source(g, n, 2);
    random_starts(g, n, tx, type_of(g, u)->dims);
    const fz_type *tu = type_of(g, u);
    n->type = *tx; /* the update takes x's dtype */
    n->type.bound = max2(tx->bound, tu->bound);
    n->type.err = max2(tx->err, tu->err + (tu->dtype != tx->dtype ? tu->bound : 0));
    return 1;
}

static int gen_dynamic_update(gen *g, fz_node *n) {
    return g->p->extended && make_dynamic_update(g, n, pick_operand(g));
}

/* In a loop body: sometimes a dynamic update of a carry first (at the
 * loop's index when there is one), which a step may update in place. */
static void maybe_update_carry(gen *g, int carry) {
    if (!chance(g, 0.35)) return;
    fz_node n;
    memset(&n, 0, sizeof n);
    int n_nodes = g->p->n_nodes, n_inputs = g->p->n_inputs;
    if (!make_dynamic_update(g, &n, carry) || append(g, &n) < 0) g->p->n_nodes = n_nodes, g->p->n_inputs = n_inputs;
}

/* ---- small nodes the constructs add to adapt a body's results ---- */
static int add_unary_node(gen *g, int a, fz_unary sub) {
    fz_node n;
    memset(&n, 0, sizeof n);
    n.kind = FZ_UNARY, n.sub = sub, n.args[0] = a, n.n_args = 1;
    double out, lip;
    unary_bound(sub, type_of(g, a)->bound, 0, &out, &lip);
    n.type = *type_of(g, a);
    n.type.bound = out;
    n.type.err = lip * type_of(g, a)->err + 4 * out;
    return append(g, &n);
}

/* One scalar from all of a: its maximum (exact: no rounding error added),
 * or for an empty a its sum (0). */
static int add_reduce_all(gen *g, int a) {
    fz_node n;
    memset(&n, 0, sizeof n);
    const fz_type *t = type_of(g, a);
    n.kind = FZ_REDUCE, n.sub = fz_type_size(t) > 0 ? FZ_RMAX : FZ_SUM, n.args[0] = a, n.n_args = 1, n.n_axes = -1;
    n.type = *t;
    n.type.rank = 0;
    if (n.sub == FZ_SUM && fz_is_int_dtype(t->dtype)) n.type.dtype = int_sum_dtype(t->dtype);
    return append(g, &n);
}

static int add_astype(gen *g, int a, cj_dtype dt) {
    fz_node n;
    memset(&n, 0, sizeof n);
    n.kind = FZ_ASTYPE, n.args[0] = a, n.n_args = 1, n.dtype = dt;
    n.type = *type_of(g, a);
    n.type.dtype = dt;
    n.type.err += n.type.bound;
    return append(g, &n);
}

static int add_broadcast(gen *g, int a, const fz_type *to) {
    fz_node n;
    memset(&n, 0, sizeof n);
    n.kind = FZ_BROADCAST_TO, n.args[0] = a, n.n_args = 1, n.shape_rank = to->rank;
    memcpy(n.p0, to->dims, sizeof(int64_t) * (size_t)to->rank);
    n.type = *type_of(g, a);
    n.type.rank = to->rank;
    memcpy(n.type.dims, to->dims, sizeof(int64_t) * (size_t)to->rank);
    return append(g, &n);
}

static int add_mul(gen *g, int a, int b) {
    fz_node n;
    memset(&n, 0, sizeof n);
    n.kind = FZ_BINARY, n.sub = FZ_MUL, n.args[0] = a, n.args[1] = b, n.n_args = 2;
    const fz_type *ta = type_of(g, a), *tb = type_of(g, b);
    broadcast_types(ta, tb, &n.type);
    n.type.bound = ta->bound * tb->bound;
    n.type.err = ta->err * tb->bound + tb->err * ta->bound + n.type.bound;
    return append(g, &n);
}

/* astype(i, dtype) * c: a loop's index or counter as a float. */
static int add_int_to_float(gen *g, int i) {
    static const double scales[3] = {0.25, 0.5, -1};
    fz_node n;
    memset(&n, 0, sizeof n);
    n.kind = FZ_INT_TO_FLOAT, n.args[0] = i, n.n_args = 1;
    n.constant = scales[rnd(g, 3)];
    if (fam_int(g)) n.constant = n.constant < 0 ? -1 : 4 * n.constant; /* -1, 1 or 2 */
    n.type = *type_of(g, i);
    n.type.dtype = random_dtype(g);
    n.type.bound = fabs(n.constant) * type_of(g, i)->bound;
    n.type.err = 1;
    return append(g, &n);
}

/* A result of the body being built with want's dims and dtype and
 * |x| <= max_bound: a visible node of those dims (the newest most often),
 * else tanh(max(newest)) broadcast to them (times `base` when given and
 * the dice say so, so a carry's old value flows on); then astype and a
 * squashing tanh or sin where needed. -1 when the nodes are used up. */
static int body_result(gen *g, const fz_type *want, double max_bound, int base) {
    int r = -1;
    for (int c = g->p->n_nodes - 1; c >= 0 && r < 0; c--)
        if (usable(g, c) && same_dims(type_of(g, c), want) && chance(g, 0.7)) r = c;
    if (r < 0) {
        int s = add_reduce_all(g, newest_usable(g));
        int t = s >= 0 && !fam_int(g) ? add_unary_node(g, s, FZ_TANH) : s; /* integers need no bound */
        r = t >= 0 ? add_broadcast(g, t, want) : -1;
        if (r >= 0 && base >= 0 && chance(g, 0.5)) r = add_mul(g, base, r);
    }
    if (r >= 0 && type_of(g, r)->dtype != want->dtype) r = add_astype(g, r, want->dtype);
    if (r >= 0 && !fam_int(g) && type_of(g, r)->bound > max_bound)
        r = add_unary_node(g, r, chance(g, 0.5) ? FZ_TANH : FZ_SIN);
    return r;
}

/* Records a construct's outputs for its FZ_OUTPUT nodes and sets its own
 * value's type (output n->out_index). */
static int set_outputs(gen *g, fz_node *n, int n_out, const fz_type *types) {
    g->n_out = n_out;
    for (int k = 0; k < n_out; k++) {
        g->out_types[k] = types[k];
        if (is_float(types[k].dtype) && types[k].bound > FZ_MAX_BOUND) return 0;
    }
    n->type = types[n->out_index];
    return 1;
}

/* Rounding-error estimate of a loop's results after `trips` steps, from
 * carries entering with error e0 and a step's results having e_step (its
 * parameters had e0): each step adds what the step adds beyond e0. */
static double loop_err(double e0, double e_step, int64_t trips) {
    return max2(e0, e_step) + (double)trips * max2(e_step - e0, 0);
}

/* cond and switch: the branches take the same operands and return values
 * of the first branch's types. */
static int gen_branches(gen *g, fz_node *n) {
    if (!cf_allowed(g)) return 0;
    int nb = n->kind == FZ_COND ? 2 : chance(g, 0.15) ? 1 : 2 + rnd(g, FZ_MAX_BRANCHES - 1);
    n->args[0] = pick_int_or_float(g);
    int n_ops = 1 + rnd(g, 3);
    fz_type params[FZ_MAX_ARGS];
    for (int k = 0; k < n_ops; k++) {
        n->args[1 + k] = pick_operand(g);
        params[k] = *type_of(g, n->args[1 + k]);
    }
    n->n_args = 1 + n_ops;
    if (n->kind == FZ_COND) {
        n->consts[0] = threshold_for(g, n->args[0]);
        n->keepdims = chance(g, 0.3); /* an integer predicate: nonzero is true */
        n->p0[0] = (int64_t[]){-2, 1, 3}[rnd(g, 3)];
    } else {
        for (int k = 0; k < nb; k++) n->consts[k] = threshold_for(g, n->args[0]);
        n->p0[0] = rnd(g, 2) - 1; /* the index runs from -1 or 0: clamping */
    }
    n->n_bodies = nb;
    int n_out = chance(g, 0.3) ? 2 : 1, saved = g->scope;
    fz_type out[FZ_MAX_CF_OUT];
    for (int b = 0; b < nb; b++) {
        int s = open_scope(g, n_ops, params);
        if (s < 0) return 0;
        n->bodies[b] = s;
        g->scope = s;
        body_ops(g, rnd(g, 4));
        for (int j = 0; j < n_out; j++) {
            int r;
            if (b == 0) {
                r = j == 0 ? newest_usable(g) : pick_operand(g);
                out[j] = *type_of(g, r);
            } else {
                r = body_result(g, &out[j], INFINITY, -1);
                if (r < 0) break;
                out[j].bound = max2(out[j].bound, type_of(g, r)->bound);
                out[j].err = max2(out[j].err, type_of(g, r)->err);
            }
            g->p->scopes[s].results[g->p->scopes[s].n_results++] = r;
        }
        g->scope = saved;
        if (g->p->scopes[s].n_results < n_out) return 0;
    }
    n->out_index = rnd(g, n_out);
    return set_outputs(g, n, n_out, out);
}

/* How many steps a loop takes: 0 and 1 often, at most FZ_MAX_TRIPS. */
static int64_t random_trips(gen *g) {
    int r = rnd(g, 10);
    return r == 0 ? 0 : r < 3 ? 1 : 2 + rnd(g, FZ_MAX_TRIPS - 1);
}

/* The carries of a loop: 1 or 2 operands; each carry parameter keeps the
 * bound max(init, 1) (results are squashed to it). */
static int loop_carries(gen *g, fz_node *n, fz_type *params) {
    int nc = chance(g, 0.4) ? 2 : 1;
    for (int k = 0; k < nc; k++) {
        n->args[k] = pick_operand(g);
        params[k] = *type_of(g, n->args[k]);
        params[k].bound = max2(params[k].bound, 1);
    }
    n->n_carry = nc;
    return nc;
}

/* The carries' results of the loop body being built (scope s, carry k
 * its parameter first_carry + k); the largest error among them in *err. */
static int carry_results(gen *g, int s, int first_carry, const fz_type *carries, int nc, double *err) {
    fz_scope *sc = &g->p->scopes[s];
    *err = 0;
    for (int k = 0; k < nc; k++) {
        int r = body_result(g, &carries[k], carries[k].bound, sc->params[first_carry + k]);
        if (r < 0) return 0;
        sc->results[sc->n_results++] = r;
        *err = max2(*err, type_of(g, r)->err);
    }
    return 1;
}

static int gen_scan(gen *g, fz_node *n) {
    if (!cf_allowed(g)) return 0;
    fz_type params[FZ_MAX_ARGS];
    int nc = loop_carries(g, n, params), nx = rnd(g, 3);
    int64_t length = -1;
    for (int k = 0; k < nx; k++) {
        int x = -1, start = rnd(g, g->p->n_nodes), search = chance(g, 0.6);
        for (int c = 0; search && c < g->p->n_nodes && x < 0; c++) {
            int i = (start + c) % g->p->n_nodes;
            const fz_type *t = type_of(g, i);
            if (usable(g, i) && t->rank >= 1 && t->dims[0] <= FZ_MAX_TRIPS && (length < 0 || t->dims[0] == length))
                x = i;
        }
        if (x < 0) { /* a new input of a leading axis of the length */
            if (length < 0) length = random_trips(g);
            fz_type t = {random_dtype(g), 1 + rnd(g, 3), {length}, 0, 0};
            for (int d = 1; d < t.rank; d++) t.dims[d] = random_dim(g);
            if ((x = add_input(g, t)) < 0) return 0;
        }
        length = type_of(g, x)->dims[0];
        n->args[nc + k] = x;
        params[nc + k] = *type_of(g, x); /* the body sees one slice */
        params[nc + k].rank--;
        memmove(params[nc + k].dims, params[nc + k].dims + 1, sizeof(int64_t) * (FZ_MAX_RANK - 1));
    }
    if (nx == 0) length = random_trips(g);
    n->keepdims = nx == 0 || chance(g, 0.2); /* the length given */
    n->lo = length;
    n->axis = chance(g, 0.4); /* reverse */
    n->n_args = nc + nx;
    int saved = g->scope, s = open_scope(g, nc + nx, params);
    if (s < 0) return 0;
    n->n_bodies = 1, n->bodies[0] = s;
    g->scope = s;
    maybe_update_carry(g, g->p->scopes[s].params[rnd(g, nc)]);
    body_ops(g, rnd(g, 5));
    double e_step;
    int ok = carry_results(g, s, 0, params, nc, &e_step);
    fz_type out[FZ_MAX_CF_OUT];
    for (int k = 0; k < nc; k++) {
        out[k] = params[k];
        out[k].err = loop_err(type_of(g, n->args[k])->err, e_step, length);
    }
    int ny = rnd(g, 3);
    fz_scope *sc = &g->p->scopes[s];
    for (int j = 0; ok && j < ny; j++) {
        int y = pick_operand(g);
        const fz_type *t = type_of(g, y);
        if (t->rank == FZ_MAX_RANK) continue;
        fz_type st = *t; /* stacked along a new leading axis */
        memmove(st.dims + 1, st.dims, sizeof(int64_t) * (size_t)t->rank);
        st.dims[0] = length, st.rank++;
        st.err = loop_err(t->err, e_step, length);
        out[sc->n_results] = st;
        sc->results[sc->n_results++] = y;
    }
    g->scope = saved;
    if (!ok) return 0;
    n->out_index = rnd(g, sc->n_results);
    return set_outputs(g, n, sc->n_results, out);
}

/* The i32 index of a fori loop or counter of a while loop, as a body
 * parameter's type. */
static fz_type counter_type(int64_t lo, int64_t hi) {
    fz_type t = {CJ_I32, 0, {0}, 0, 0};
    t.bound = (double)(llabs(lo) > llabs(hi) ? llabs(lo) : llabs(hi));
    return t;
}

/* The body of a loop over (counter, carries...): a scope of 1 + nc
 * parameters, the counter mixed into a float with probability p_counter, a
 * carry sometimes updated in place, random ops, the carries' results.
 * Returns 1 with the step's error estimate, 0 when no body could be made. */
static int counter_loop_body(gen *g, fz_node *n, int nc, fz_type *params, double p_counter, double *e_step) {
    int saved = g->scope, s = open_scope(g, 1 + nc, params);
    if (s < 0) return 0;
    n->n_bodies = 1, n->bodies[0] = s;
    g->scope = s;
    if (chance(g, p_counter)) add_int_to_float(g, g->p->scopes[s].params[0]);
    maybe_update_carry(g, g->p->scopes[s].params[1 + rnd(g, nc)]);
    body_ops(g, rnd(g, 5));
    int ok = carry_results(g, s, 1, params + 1, nc, e_step);
    g->scope = saved;
    return ok;
}

/* fori_loop(lo, hi): the body gets (i, carries). */
static int gen_fori(gen *g, fz_node *n) {
    if (!cf_allowed(g)) return 0;
    fz_type params[FZ_MAX_ARGS];
    n->lo = rnd(g, 5) - 2;
    n->hi = n->lo + rnd(g, FZ_MAX_TRIPS + 2) - 1; /* hi < lo: no steps */
    int nc = loop_carries(g, n, params + 1);
    params[0] = counter_type(n->lo, n->hi);
    n->n_args = nc;
    double e_step;
    if (!counter_loop_body(g, n, nc, params, 0.7, &e_step)) return 0;
    int64_t trips = n->hi > n->lo ? n->hi - n->lo : 0;
    fz_type out[FZ_MAX_CF_OUT];
    for (int k = 0; k < nc; k++) {
        out[k] = params[1 + k];
        out[k].err = loop_err(type_of(g, n->args[k])->err, e_step, trips);
    }
    n->out_index = rnd(g, nc);
    return set_outputs(g, n, nc, out);
}

/* while (counter < hi [&& sum(carry) < c]): the counter starts at 0 or -1
 * and the body adds 1, so it ends after at most FZ_MAX_TRIPS steps. */
static int gen_while(gen *g, fz_node *n) {
    if (!cf_allowed(g)) return 0;
    fz_type params[FZ_MAX_ARGS];
    n->p0[1] = -rnd(g, 2);
    n->hi = rnd(g, FZ_MAX_TRIPS);
    int nc = loop_carries(g, n, params + 1);
    params[0] = counter_type(n->p0[1], n->hi);
    n->keepdims = chance(g, 0.5); /* a data-dependent stop too */
    if (fam_narrow(g)) n->keepdims = 0; /* not on a computed narrow carry: rounding would move the stop */
    n->p0[2] = rnd(g, nc);
    n->consts[0] = threshold_for(g, n->args[n->p0[2]]);
    n->n_args = nc;
    double e_step;
    if (!counter_loop_body(g, n, nc, params, 0.5, &e_step)) return 0;
    fz_type out[FZ_MAX_CF_OUT];
    out[0] = params[0];
    for (int k = 0; k < nc; k++) {
        out[1 + k] = params[1 + k];
        out[1 + k].err = loop_err(type_of(g, n->args[k])->err, e_step, n->hi - n->p0[1]);
    }
    n->out_index = 1 + rnd(g, nc); /* a float carry */
    return set_outputs(g, n, 1 + nc, out);
}

/* A draw from a key made of a generated seed (low 32 bits used, as JAX
 * with x64 off), maybe split, folded with a constant or with traced data. */
static int gen_random(gen *g, fz_node *n) {
    if (!g->p->extended) return 0;
    n->sub = rnd(g, FZ_NUM_RANDOM);
    if (fam_int(g)) n->sub = FZ_BITS; /* the bits in an integer dtype */
    n->p1[0] = (int64_t)(fz_rand_u64(&g->rng) >> 24) - ((int64_t)1 << 39);
    int mask = 0;
    if (chance(g, 0.3)) {
        mask |= FZ_KEY_SPLIT;
        n->p1[2] = 1 + rnd(g, 4);
        n->p1[3] = rnd(g, (int)n->p1[2]);
    }
    if (chance(g, 0.3)) mask |= FZ_KEY_FOLD, n->p2[0] = rnd(g, 1000);
    if (chance(g, 0.3)) {
        mask |= FZ_KEY_FOLD_DATA;
        n->args[0] = pick_int_or_float(g), n->n_args = 1;
        n->consts[0] = threshold_for(g, n->args[0]);
    }
    n->p1[1] = mask;
    fz_type t = random_input_type(g);
    /* cj_random_uniform / normal draw f32 and f64 only (JAX also draws
     * bf16/f16: a gap, docs/API.md) */
    if (is_narrow(t.dtype) && n->sub != FZ_BITS) t.dtype = CJ_F32;
    if (chance(g, 0.5)) { /* the shape of a node it may meet */
        const fz_type *a = type_of(g, pick_operand(g));
        if (a->rank <= 3) t.rank = a->rank, memcpy(t.dims, a->dims, sizeof t.dims);
    }
    n->shape_rank = t.rank;
    memcpy(n->p0, t.dims, sizeof n->p0);
    switch (n->sub) {
    case FZ_UNIFORM:
        n->consts[1] = round(fz_rand_uniform(&g->rng, -2, 0.5) * 8) / 8;
        n->consts[2] = n->consts[1] + round(fz_rand_uniform(&g->rng, 0.25, 2) * 8) / 8;
        t.bound = max2(fabs(n->consts[1]), fabs(n->consts[2])), t.err = 2 * t.bound;
        break;
    case FZ_NORMAL: t.bound = 8.5, t.err = 8 * t.bound; break; /* f64: |x| <= 8.3 */
    default: t.bound = 1, t.err = 1; break;                  /* bits * 2^-31 */
    }
    if (fam_narrow(g) && n->sub == FZ_NORMAL) t.err = 8 * 8 * t.bound; /* f16's log and sqrt: a few ulp more */
    n->type = t;
    return 1;
}

/* ---- kinds of the new dtypes' programs only ---- */
static int gen_sort(gen *g, fz_node *n) {
    n->args[0] = pick_operand(g), n->n_args = 1;
    const fz_type *a = type_of(g, n->args[0]);
    if (a->rank == 0) return 0;
    n->axis = rnd(g, a->rank) - (chance(g, 0.3) ? a->rank : 0);
    n->type = *a; /* sorted values are a continuous function of the values: err kept */
    return 1;
}

/* take(x, indices, axis): the indices an integer node (any values: cj_take
 * clamps), or in a float program astype(2 * input, i32), exact. */
static int gen_take(gen *g, fz_node *n) {
    n->args[0] = pick_operand(g);
    const fz_type *a = type_of(g, n->args[0]);
    if (a->rank == 0) return 0;
    n->args[1] = fam_int(g) ? pick_operand(g) : exact_operand(g, NULL);
    if (n->args[1] < 0) return 0;
    n->n_args = 2;
    const fz_type *ti = type_of(g, n->args[1]);
    if (a->rank - 1 + ti->rank > FZ_MAX_RANK) return 0;
    n->axis = rnd(g, a->rank) - (chance(g, 0.3) ? a->rank : 0);
    int64_t ax = norm_axis(n->axis, a->rank);
    if (a->dims[ax] == 0 && fz_type_size(ti) > 0) return 0; /* JAX refuses a non-empty take from an empty axis */
    n->type = *a;
    n->type.rank = 0;
    for (int d = 0; d < ax; d++) n->type.dims[n->type.rank++] = a->dims[d];
    for (int d = 0; d < ti->rank; d++) n->type.dims[n->type.rank++] = ti->dims[d];
    for (int d = (int)ax + 1; d < a->rank; d++) n->type.dims[n->type.rank++] = a->dims[d];
    return 1;
}

typedef int (*gen_fn)(gen *g, fz_node *n);
/* The kinds after FZ_FIRST_EXTENDED appear in extended programs only (so
 * the draws of the others do not change). */
static const struct {
    fz_kind kind;
    int weight;
    gen_fn fn;
} kinds[] = {
    {FZ_UNARY, 14, gen_unary},        {FZ_BINARY, 12, gen_binary},       {FZ_WHERE, 3, gen_where},
    {FZ_REDUCE, 7, gen_reduce},       {FZ_CUMULATIVE, 2, gen_cumulative}, {FZ_RESHAPE, 4, gen_reshape},
    {FZ_TRANSPOSE, 3, gen_transpose}, {FZ_EXPAND_DIMS, 3, gen_expand_dims}, {FZ_SQUEEZE, 3, gen_squeeze},
    {FZ_SLICE, 3, gen_slice},         {FZ_CONCATENATE, 3, gen_concatenate}, {FZ_PAD, 3, gen_pad},
    {FZ_REV, 2, gen_rev},             {FZ_BROADCAST_TO, 3, gen_broadcast_to}, {FZ_DOT_GENERAL, 4, gen_dot_general},
    {FZ_MATMUL, 4, gen_matmul},       {FZ_ASTYPE, 3, gen_astype},        {FZ_SOFTMAX, 3, gen_softmax},
    {FZ_LOGSUMEXP, 2, gen_logsumexp},
    {FZ_COND, 3, gen_branches},       {FZ_SWITCH, 2, gen_branches},      {FZ_SCAN, 3, gen_scan},
    {FZ_FORI, 2, gen_fori},           {FZ_WHILE, 2, gen_while},          {FZ_RANDOM, 5, gen_random},
    {FZ_DYNAMIC_SLICE, 2, gen_dynamic_slice}, {FZ_DYNAMIC_UPDATE, 2, gen_dynamic_update},
    /* after the extended ones: the new dtypes' programs only */
    {FZ_SORT, 2, gen_sort},           {FZ_TAKE, 3, gen_take},
};
#define N_KINDS ((int)(sizeof kinds / sizeof kinds[0]))

static int first_kind(fz_kind k) {
    int i = 0;
    while (i < N_KINDS && kinds[i].kind != k) i++;
    return i;
}

/* May kind i be drawn? Only the basic ones in a program that is not
 * extended, only constructs when one must be made; the new dtypes' kinds
 * in their programs only (so the base family's draws are unchanged). */
static int kind_allowed(const gen *g, int i, int only_cf) {
    int ext = first_kind(FZ_COND), dt = first_kind(FZ_SORT);
    if (only_cf) return is_construct(kinds[i].kind);
    if (i >= dt) return g->p->family != FZ_FAMILY_BASE;
    return i < ext || g->p->extended;
}

/* Draws a kind (kind_allowed). */
static gen_fn random_generator(gen *g, fz_kind *kind, int only_cf) {
    int total = 0;
    for (int i = 0; i < N_KINDS; i++)
        if (kind_allowed(g, i, only_cf)) total += kinds[i].weight;
    int r = rnd(g, total);
    for (int i = 0; i < N_KINDS; i++) {
        if (!kind_allowed(g, i, only_cf)) continue;
        if (r < kinds[i].weight) {
            *kind = kinds[i].kind;
            return kinds[i].fn;
        }
        r -= kinds[i].weight;
    }
    *kind = kinds[0].kind;
    return kinds[0].fn;
}

/* After a construct: its bodies' owner, and FZ_OUTPUT nodes for some of
 * its other float outputs. */
static void finish_construct(gen *g, int node) {
    fz_program *p = g->p;
    const fz_node *n = &p->nodes[node];
    for (int b = 0; b < n->n_bodies; b++) p->scopes[n->bodies[b]].owner = node;
    for (int k = 0; k < g->n_out; k++) {
        if (k == n->out_index || !value_dtype(g, g->out_types[k].dtype) || !chance(g, 0.5)) continue;
        fz_node o;
        memset(&o, 0, sizeof o);
        o.kind = FZ_OUTPUT, o.sub = k, o.args[0] = node, o.n_args = 1, o.type = g->out_types[k];
        if (append(g, &o) < 0) return;
    }
}

/* Tries kinds until one fits; a rejected attempt's new inputs, body nodes
 * and scopes are undone. */
static int add_random_op(gen *g) {
    fz_program *p = g->p;
    int only_cf = g->only_cf;
    g->only_cf = 0; /* not for the operations of its bodies */
    for (int attempt = 0; attempt < 50; attempt++) {
        int n_nodes = p->n_nodes, n_inputs = p->n_inputs, n_scopes = p->n_scopes;
        if (n_nodes == FZ_MAX_NODES) return 0;
        fz_node n;
        memset(&n, 0, sizeof n);
        gen_fn fn = random_generator(g, &n.kind, only_cf);
        if (fn(g, &n) && p->n_nodes < FZ_MAX_NODES) {
            n.scope = g->scope;
            if (fz_is_int_dtype(n.type.dtype)) n.type.bound = 1, n.type.err = 0; /* exact, wrapping */
            p->nodes[p->n_nodes++] = n;
            if (is_construct(n.kind)) finish_construct(g, p->n_nodes - 1);
            return 1;
        }
        p->n_nodes = n_nodes, p->n_inputs = n_inputs, p->n_scopes = n_scopes;
    }
    return 0;
}

/* The family: a stream of its own too. Its salt is the first (counting up
 * from SHA-512's third initial word) under which the seeds test_fuzz.c
 * pins as regression tests (65557, 2026485320, 3141657170, 8675412976,
 * 8675424110, 7770038254) stay base programs, as they were found. */
int fz_seed_family(uint64_t seed) {
    uint64_t side = seed ^ 0x3c6ef372fe94f82eull;
    double r = fz_rand_uniform(&side, 0, 1);
    return r < FZ_NARROW_SHARE ? FZ_FAMILY_NARROW : r < FZ_NARROW_SHARE + FZ_INT_SHARE ? FZ_FAMILY_INT : FZ_FAMILY_BASE;
}

int fz_seed_is_extended(uint64_t seed) {
    uint64_t side = seed ^ 0x6a09e667f3bcc909ull;
    return fz_rand_uniform(&side, 0, 1) < FZ_EXTENDED_SHARE;
}

/* One draw of the program of `seed`; attempt 0 is the program itself,
 * later attempts (see fz_generate) draw its main stream afresh. */
static void generate(fz_program *p, uint64_t seed, uint64_t attempt) {
    memset(p, 0, sizeof *p);
    p->seed = seed;
    /* extended or not: a stream of its own, so the main one draws the
     * same basic programs as before */
    uint64_t side = seed ^ 0x6a09e667f3bcc909ull;
    p->extended = fz_rand_uniform(&side, 0, 1) < FZ_EXTENDED_SHARE; /* as fz_seed_is_extended */
    p->family = fz_seed_family(seed);
    p->n_scopes = 1;
    p->scopes[0].owner = -1;
    gen g;
    memset(&g, 0, sizeof g);
    g.p = p, g.rng = attempt ? seed ^ (attempt * 0xbb67ae8584caa73bull) : seed;
    add_input(&g, random_input_type(&g));
    int n_ops = 1 + rnd(&g, FZ_MAX_OPS);
    int made = 0, force_at = p->extended ? (int)(fz_rand_u64(&side) % (uint64_t)n_ops) : -1;
    for (; made < n_ops; made++) {
        g.only_cf = made == force_at; /* an extended program has a construct */
        if (!add_random_op(&g)) break;
    }
    if (made == 0) { /* cannot happen (a unary op always fits); keep it well formed */
        fz_node n;
        memset(&n, 0, sizeof n);
        n.kind = FZ_UNARY, n.sub = FZ_TANH, n.n_args = 1, n.type = p->nodes[0].type;
        p->nodes[p->n_nodes++] = n;
    }
}

/* Reverse mode refuses a cond or switch whose known half would return
 * more than 64 outputs and residual slots, and a scan or fori_loop whose
 * step's linearization needs more than 64 outputs: the 64-value limit of a
 * linearized body, a known defect (docs/CONTROL_FLOW.md, "Limits"). Until
 * it is lifted the generator does not draw such a program: whether grad
 * refuses it is asked of cjax itself (tracing the gradient, in a scratch
 * context), so the check is exact and only programs with a large cond,
 * switch or loop pay for it. */
/* Nodes inside the bodies of construct c, nested bodies included. */
static int construct_span(const fz_program *p, int c) {
    int n = 0;
    for (int i = 0; i < p->n_nodes; i++)
        for (int s = p->nodes[i].scope; s > 0; s = p->scopes[s].parent)
            if (p->scopes[s].owner == c) {
                n++;
                break;
            }
    return n;
}

/* Below this many nodes in its bodies a cond is not checked: in 8,000
 * programs such conds needed at most 22 of the 64 values (a node adds a
 * residual or two; that was before branches shared slots, which only
 * lowers it), and checking every program made the suites slower. */
#define FZ_CHECK_SPAN 16

/* Whether cj_grad of the program's sum refuses it for the 64-value limit. */
static int grad_refuses_program(const fz_program *p) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    if (!ctx) return 0;
    int argnums[FZ_MAX_INPUTS];
    cj_spec specs[FZ_MAX_INPUTS];
    for (int i = 0; i < p->n_inputs; i++) {
        const fz_type *t = fz_input_type(p, i);
        argnums[i] = i;
        specs[i] = cj_spec_make(t->dtype, t->rank, t->dims);
    }
    cj_grad_opts go = {p->n_inputs, argnums, 0};
    cj_func *f = cj_func_new(ctx, "fuzz_sum", fz_fn_sum, p->n_inputs, 1, (void *)p);
    char *text = cj_make_jaxpr(cj_grad(f, &go), p->n_inputs, specs);
    const char *why = cj_error_message(ctx);
    int refused = !text && cj_error(ctx) == CJ_ERR_UNSUPPORTED &&
                  (strstr(why, "outputs and residuals") || strstr(why, "a step whose linearization needs more than"));
    if (text) cj_string_free(ctx, text);
    cj_ctx_free(ctx);
    return refused;
}

/* The program as drawn and its f64 form (which the finite-difference
 * check runs: its residuals share slots differently, so seed 7770038254
 * was refused in f64 only) are both asked. */
static int grad_refuses(const fz_program *p) {
    int big = 0;
    for (int i = 0; i < p->n_nodes && !big; i++)
        big = (p->nodes[i].kind == FZ_COND || p->nodes[i].kind == FZ_SWITCH || p->nodes[i].kind == FZ_SCAN ||
               p->nodes[i].kind == FZ_FORI) &&
              construct_span(p, i) > FZ_CHECK_SPAN;
    if (!big) return 0;
    if (grad_refuses_program(p)) return 1;
    fz_program *p64 = malloc(sizeof *p64);
    if (!p64) return 0;
    fz_to_f64(p, p64);
    int refused = grad_refuses_program(p64);
    free(p64);
    return refused;
}

/* The program of a seed is its first draw, unless reverse mode refuses it
 * (above): then the next draw of the same seed, so every other seed keeps
 * its program. */
void fz_generate(fz_program *p, uint64_t seed) {
    /* every fuzz suite draws the same seeds: the verdict is kept (per
     * thread, direct mapped), so each program is checked once */
    enum { CACHE = 4096 };
    static _Thread_local struct {
        uint64_t seed;
        uint8_t valid, attempt;
    } cache[CACHE];
    int slot = (int)((seed * 0x9E3779B97F4A7C15ull) >> 52) % CACHE;
    if (cache[slot].valid && cache[slot].seed == seed) {
        generate(p, seed, cache[slot].attempt);
        return;
    }
    uint64_t attempt = 0;
    for (;; attempt++) {
        generate(p, seed, attempt);
        if (attempt == 16 || !grad_refuses(p)) break;
    }
    cache[slot].seed = seed, cache[slot].valid = 1, cache[slot].attempt = (uint8_t)attempt;
}

void fz_to_f64(const fz_program *p, fz_program *out) {
    *out = *p;
    for (int i = 0; i < out->n_nodes; i++) {
        if (is_float(out->nodes[i].type.dtype)) out->nodes[i].type.dtype = CJ_F64; /* loop counters stay i32 */
        if (out->nodes[i].kind == FZ_ASTYPE) out->nodes[i].dtype = CJ_F64;
    }
}

double fz_program_eps(const fz_program *p) {
    double eps = 0;
    for (int i = 0; i < p->n_nodes; i++) {
        cj_dtype dt = p->nodes[i].type.dtype;
        eps = max2(eps, dt == CJ_BF16 ? 0x1p-8 : dt == CJ_F16 ? 0x1p-11 : dt == CJ_F32 ? 0x1p-24 : dt == CJ_F64 ? 0x1p-53 : 0);
    }
    return eps;
}

int fz_uses_f32(const fz_program *p) {
    for (int i = 0; i < p->n_nodes; i++)
        if (p->nodes[i].type.dtype == CJ_F32) return 1;
    return 0;
}

int fz_count_kind(const fz_program *p, fz_kind kind) {
    int n = 0;
    for (int i = 0; i < p->n_nodes; i++) n += p->nodes[i].kind == kind;
    return n;
}

int fz_has_control_flow(const fz_program *p) { return p->n_scopes > 1; }

/* ---- interpretation ---- */
static cj_val abs1(cj_ctx *ctx, cj_val x) { return cj_add(cj_abs(x), cj_scalar(ctx, 1.0)); }

static cj_val run_int_unary(cj_ctx *ctx, const fz_node *n, cj_val x) {
    switch ((fz_int_unary)n->sub) {
    case FZ_I_NEG: return cj_neg(x);
    case FZ_I_ABS: return cj_abs(x);
    case FZ_I_SQUARE: return cj_square(x);
    case FZ_I_MUL_CONST: return cj_mul(x, cj_scalar_int(ctx, (int64_t)n->constant));
    case FZ_I_ADD_CONST: return cj_add(cj_scalar_int(ctx, (int64_t)n->constant), x);
    case FZ_I_IPOW3: return cj_integer_pow(x, 3);
    case FZ_I_POPCNT: return cj_population_count(x);
    case FZ_I_NOT: return cj_not(x);
    case FZ_I_SIGN: return cj_sign(x);
    default: return cj_neg(x);
    }
}

static cj_val run_int_binary(const fz_node *n, cj_val a, cj_val b) {
    switch ((fz_int_binary)n->sub) {
    case FZ_I_ADD: return cj_add(a, b);
    case FZ_I_SUB: return cj_sub(a, b);
    case FZ_I_MUL: return cj_mul(a, b);
    case FZ_I_MAX: return cj_max(a, b);
    case FZ_I_MIN: return cj_min(a, b);
    case FZ_I_FLOOR_DIVIDE: return cj_floor_divide(a, b);
    case FZ_I_REMAINDER: return cj_remainder(a, b);
    case FZ_I_REM: return cj_rem(a, b);
    case FZ_I_AND: return cj_and(a, b);
    case FZ_I_OR: return cj_or(a, b);
    case FZ_I_XOR: return cj_xor(a, b);
    case FZ_I_SHL: return cj_shift_left(a, b);
    case FZ_I_SHR_LOGICAL: return cj_shift_right_logical(a, b);
    default: return cj_shift_right_arithmetic(a, b);
    }
}

static cj_val run_unary(cj_ctx *ctx, const fz_node *n, cj_val x) {
    if (fz_is_int_dtype(n->type.dtype)) return run_int_unary(ctx, n, x);
    switch ((fz_unary)n->sub) {
    case FZ_NEG: return cj_neg(x);
    case FZ_ABS: return cj_abs(x);
    case FZ_SIN: return cj_sin(x);
    case FZ_COS: return cj_cos(x);
    case FZ_TANH: return cj_tanh(x);
    case FZ_LOGISTIC: return cj_logistic(x);
    case FZ_ERF: return cj_erf(x);
    case FZ_ATAN: return cj_atan(x);
    case FZ_EXP: return cj_exp(x);
    case FZ_SQUARE: return cj_square(x);
    case FZ_LOG_ABS1: return cj_log(abs1(ctx, x));
    case FZ_SQRT_ABS1: return cj_sqrt(abs1(ctx, x));
    case FZ_RSQRT_ABS1: return cj_rsqrt(abs1(ctx, x));
    case FZ_LOG1P_ABS: return cj_log1p(cj_abs(x));
    case FZ_EXPM1: return cj_expm1(x);
    case FZ_RELU: return cj_relu(x);
    case FZ_GELU: return cj_gelu(x);
    case FZ_CLIP: return cj_clip(x, -1.0, 1.0);
    case FZ_CBRT_ABS1: return cj_cbrt(abs1(ctx, x));
    case FZ_SINH: return cj_sinh(x);
    case FZ_COSH: return cj_cosh(x);
    case FZ_ASIN_TANH: return cj_asin(cj_mul(cj_scalar(ctx, 0.9), cj_tanh(x)));
    case FZ_ACOS_TANH: return cj_acos(cj_mul(cj_scalar(ctx, 0.9), cj_tanh(x)));
    case FZ_TAN_HALF_TANH: return cj_tan(cj_mul(cj_scalar(ctx, 0.5), cj_tanh(x)));
    case FZ_MUL_CONST: return cj_mul(x, cj_scalar(ctx, n->constant));
    case FZ_ADD_CONST: return cj_add(cj_scalar(ctx, n->constant), x);
    case FZ_ASINH: return cj_asinh(x);
    case FZ_ERFC: return cj_erfc(x);
    case FZ_ATANH_TANH: return cj_atanh(cj_mul(cj_scalar(ctx, 0.9), cj_tanh(x)));
    case FZ_LGAMMA_ABS1: return cj_lgamma(abs1(ctx, x));
    case FZ_IPOW3: return cj_integer_pow(x, 3);
    default: return cj_neg(x);
    }
}

static cj_val run_binary(cj_ctx *ctx, const fz_node *n, cj_val a, cj_val b) {
    if (fz_is_int_dtype(n->type.dtype)) return run_int_binary(n, a, b);
    switch ((fz_binary)n->sub) {
    case FZ_ADD: return cj_add(a, b);
    case FZ_SUB: return cj_sub(a, b);
    case FZ_MUL: return cj_mul(a, b);
    case FZ_DIV_ABS1: return cj_div(a, abs1(ctx, b));
    case FZ_MAX: return cj_max(a, b);
    case FZ_MIN: return cj_min(a, b);
    case FZ_POW_ABS1: return cj_pow(abs1(ctx, a), cj_tanh(b));
    default: return cj_atan2(a, abs1(ctx, b));
    }
}

static cj_val run_reduce(const fz_node *n, cj_val x) {
    const int64_t *axes = n->n_axes < 0 ? NULL : n->axes;
    switch ((fz_reduce)n->sub) {
    case FZ_SUM: return cj_sum(x, n->n_axes, axes, n->keepdims);
    case FZ_MEAN: return cj_mean(x, n->n_axes, axes, n->keepdims);
    case FZ_RMAX: return cj_reduce_max(x, n->n_axes, axes, n->keepdims);
    case FZ_RMIN: return cj_reduce_min(x, n->n_axes, axes, n->keepdims);
    case FZ_PROD: return cj_prod(x, n->n_axes, axes, n->keepdims);
    default: return cj_var(x, n->n_axes, axes, n->keepdims);
    }
}

/* The values of one run of a program: every node's (a body's nodes hold
 * the values of the body's trace while it is traced), and every
 * construct's outputs. */
typedef struct env {
    cj_ctx *ctx;
    const fz_program *p;
    cj_val v[FZ_MAX_NODES];
    cj_val outs[FZ_MAX_NODES][FZ_MAX_CF_OUT];
} env;

/* The user data of a body's cj_func: which construct and which body. */
typedef struct body {
    env *e;
    int node, scope;
} body;

static int is_float_val(cj_val x) { return is_float(cj_val_dtype(x)); }

/* A scalar to compare with thresholds: sum(x) of a float node (of x
 * widened to f32 when narrow: exact), the value of a loop's index, the
 * sum of an integer array. */
static cj_val scalar_of(cj_val x) {
    if (is_narrow(cj_val_dtype(x))) return cj_sum(cj_astype(x, CJ_F32), -1, NULL, 0);
    if (is_float_val(x) || cj_val_rank(x) > 0) return cj_sum(x, -1, NULL, 0);
    return cj_astype(x, CJ_F32);
}

/* A constant of node n's kind: a weak int in an integer program, so the
 * dtype stays. */
static cj_val constant_for(cj_ctx *ctx, cj_val like, double c) {
    return fz_is_int_dtype(cj_val_dtype(like)) ? cj_scalar_int(ctx, (int64_t)c) : cj_scalar(ctx, c);
}

static cj_val run_random(env *e, const fz_node *n) {
    cj_ctx *ctx = e->ctx;
    cj_val key = cj_random_key(ctx, n->p1[0]);
    int mask = (int)n->p1[1];
    if (mask & FZ_KEY_SPLIT) {
        int64_t start[2] = {n->p1[3], 0}, limit[2] = {n->p1[3] + 1, 2}, two = 2;
        key = cj_reshape(cj_slice(cj_random_split(key, n->p1[2]), start, limit, NULL), 1, &two);
    }
    if (mask & FZ_KEY_FOLD) key = cj_random_fold_in(key, cj_scalar_int(ctx, n->p2[0]));
    if (mask & FZ_KEY_FOLD_DATA) {
        cj_val x = e->v[n->args[0]];
        int index = cj_val_dtype(x) == CJ_I32 && cj_val_rank(x) == 0; /* a loop's */
        cj_val data = index ? x : cj_astype(cj_gt(scalar_of(x), cj_scalar(ctx, n->consts[0])), CJ_I32);
        key = cj_random_fold_in(key, data);
    }
    const fz_type *t = &n->type;
    switch ((fz_random)n->sub) {
    case FZ_UNIFORM: return cj_random_uniform(key, t->dtype, t->rank, t->dims, n->consts[1], n->consts[2]);
    case FZ_NORMAL: return cj_random_normal(key, t->dtype, t->rank, t->dims);
    default: /* the u32 bits read as i32, so the values lie in [-1, 1) */
        if (fz_is_int_dtype(t->dtype)) return cj_astype(cj_random_bits(key, t->rank, t->dims), t->dtype);
        if (is_narrow(t->dtype)) /* f16 cannot hold 2^31: scaled in f32, then rounded */
            return cj_astype(cj_mul(cj_astype(cj_bitcast_convert_type(cj_random_bits(key, t->rank, t->dims), CJ_I32),
                                              CJ_F32),
                                    cj_scalar(ctx, 0x1p-31)),
                             t->dtype);
        return cj_mul(cj_astype(cj_bitcast_convert_type(cj_random_bits(key, t->rank, t->dims), CJ_I32), t->dtype),
                      cj_scalar(ctx, 0x1p-31));
    }
}

/* The start indices of a dynamic slice or update (see fuzz_gen.h). */
static void run_starts(env *e, const fz_node *n, cj_val *start) {
    cj_ctx *ctx = e->ctx;
    cj_val src = {0};
    if (n->sub == FZ_START_INT) src = e->v[n->args[n->n_args - 1]];
    if (n->sub == FZ_START_DATA)
        src = cj_astype(cj_gt(scalar_of(e->v[n->args[n->n_args - 1]]), cj_scalar(ctx, n->consts[0])), CJ_I32);
    const fz_type *x = &e->p->nodes[n->args[0]].type;
    for (int d = 0; d < x->rank; d++)
        start[d] = n->p1[d] ? cj_add(src, cj_scalar_int(ctx, n->p2[d]))
                            : cj_scalar_typed(ctx, (double)n->p2[d], CJ_I32);
}

static cj_val run_node(env *e, const fz_node *n) {
    cj_ctx *ctx = e->ctx;
    const cj_val *v = e->v;
    cj_val a = v[n->args[0]];
    switch (n->kind) {
    case FZ_UNARY: return run_unary(ctx, n, a);
    case FZ_BINARY: return run_binary(ctx, n, a, v[n->args[1]]);
    case FZ_WHERE: return cj_where(cj_gt(v[n->args[2]], constant_for(ctx, v[n->args[2]], n->constant)), a, v[n->args[1]]);
    case FZ_REDUCE: return run_reduce(n, a);
    case FZ_CUMULATIVE: return n->sub == 0 ? cj_cumsum(a, n->axis, n->keepdims) : cj_cummax(a, n->axis, n->keepdims);
    case FZ_RESHAPE: return cj_reshape(a, n->shape_rank, n->p0);
    case FZ_TRANSPOSE: return cj_transpose(a, n->keepdims ? NULL : n->p0);
    case FZ_EXPAND_DIMS: return cj_expand_dims(a, n->axis);
    case FZ_SQUEEZE: return cj_squeeze(a, n->n_axes, n->axes);
    case FZ_SLICE: return cj_slice(a, n->p0, n->p1, n->p2);
    case FZ_CONCATENATE: {
        cj_val xs[FZ_MAX_ARGS];
        for (int i = 0; i < n->n_args; i++) xs[i] = v[n->args[i]];
        return cj_concatenate(n->n_args, xs, n->axis);
    }
    case FZ_PAD: return cj_pad(a, constant_for(ctx, a, n->constant), n->p0, n->p1, n->p2);
    case FZ_REV: return cj_rev(a, n->n_axes, n->axes);
    case FZ_BROADCAST_TO: return cj_broadcast_to(a, n->shape_rank, n->p0);
    case FZ_DOT_GENERAL:
        return cj_dot_general(a, v[n->args[1]], n->n_axes, n->p0, n->p1, n->n_batch, n->p2, n->p3);
    case FZ_MATMUL: return cj_matmul(a, v[n->args[1]]);
    case FZ_ASTYPE: return cj_astype(a, n->dtype);
    case FZ_SOFTMAX: return n->sub == 0 ? cj_softmax(a, n->axis) : cj_log_softmax(a, n->axis);
    case FZ_LOGSUMEXP: return cj_logsumexp(a, n->n_axes, n->n_axes < 0 ? NULL : n->axes, n->keepdims);
    case FZ_INT_TO_FLOAT: {
        cj_val x = cj_astype(a, n->type.dtype);
        return cj_mul(x, constant_for(ctx, x, n->constant));
    }
    case FZ_SORT: return cj_sort(a, n->axis);
    case FZ_TAKE: {
        cj_val idx = v[n->args[1]];
        if (!fz_is_int_dtype(cj_val_dtype(idx))) idx = cj_astype(cj_mul(idx, cj_scalar(ctx, 2)), CJ_I32);
        return cj_take(a, idx, n->axis);
    }
    case FZ_OUTPUT: return e->outs[n->args[0]][n->sub];
    case FZ_RANDOM: return run_random(e, n);
    case FZ_DYNAMIC_SLICE: {
        cj_val start[FZ_MAX_RANK];
        run_starts(e, n, start);
        return cj_dynamic_slice(a, start, n->p0);
    }
    case FZ_DYNAMIC_UPDATE: {
        cj_val start[FZ_MAX_RANK];
        run_starts(e, n, start);
        return cj_dynamic_update_slice(a, v[n->args[1]], start);
    }
    default: return a;
    }
}

static void run_scope(env *e, int scope, int end);

/* A body: its parameters from `in`, its nodes, its results to `out` (a
 * while body's counter + 1 first). */
static void body_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    const body *b = user;
    env *e = b->e;
    const fz_scope *sc = &e->p->scopes[b->scope];
    for (int k = 0; k < sc->n_params; k++) e->v[sc->params[k]] = in[k];
    run_scope(e, b->scope, b->node);
    int off = 0;
    if (e->p->nodes[b->node].kind == FZ_WHILE) out[off++] = cj_add(in[0], cj_scalar_int(ctx, 1));
    for (int k = 0; k < sc->n_results; k++) out[off + k] = e->v[sc->results[k]];
}

/* A while loop's predicate over (counter, carries...). */
static void while_cond_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    const body *b = user;
    const fz_node *n = &b->e->p->nodes[b->node];
    cj_val go = cj_lt(in[0], cj_scalar_int(ctx, n->hi));
    if (n->keepdims) go = cj_and(go, cj_lt(scalar_of(in[1 + n->p0[2]]), cj_scalar(ctx, n->consts[0])));
    out[0] = go;
}

/* Runs construct node i through the public API; its outputs go to
 * e->outs[i]. The bodies are new cj_funcs each run, their user data on
 * this stack frame: they are traced during the call and never called
 * after it. */
static void run_construct(env *e, int i) {
    const fz_node *n = &e->p->nodes[i];
    cj_ctx *ctx = e->ctx;
    body bodies[FZ_MAX_BRANCHES];
    cj_func *fs[FZ_MAX_BRANCHES];
    cj_val ops[FZ_MAX_ARGS + 1], *out = e->outs[i];
    char name[48];
    for (int b = 0; b < n->n_bodies; b++) {
        const fz_scope *sc = &e->p->scopes[n->bodies[b]];
        bodies[b] = (body){e, i, n->bodies[b]};
        snprintf(name, sizeof name, "v%d_body%d", i, b);
        fs[b] = cj_func_new(ctx, name, body_fn, sc->n_params, sc->n_results + (n->kind == FZ_WHILE), &bodies[b]);
    }
    for (int k = 0; k < n->n_args; k++) ops[k] = e->v[n->args[k]];
    int nc = n->n_carry;
    switch (n->kind) {
    case FZ_COND: {
        cj_val pred = cj_gt(scalar_of(ops[0]), cj_scalar(ctx, n->consts[0]));
        if (n->keepdims) pred = cj_mul(cj_astype(pred, CJ_I32), cj_scalar_int(ctx, n->p0[0]));
        cj_cond(pred, fs[1], fs[0], n->n_args - 1, ops + 1, out);
        break;
    }
    case FZ_SWITCH: {
        cj_val s = scalar_of(ops[0]), index = cj_scalar_typed(ctx, (double)n->p0[0], CJ_I32);
        for (int k = 0; k < n->n_bodies; k++)
            index = cj_add(index, cj_astype(cj_gt(s, cj_scalar(ctx, n->consts[k])), CJ_I32));
        cj_switch(index, n->n_bodies, fs, n->n_args - 1, ops + 1, out);
        break;
    }
    case FZ_SCAN: {
        cj_scan_opts o = {n->lo, n->keepdims, (int)n->axis};
        cj_scan(fs[0], nc, ops, n->n_args - nc, ops + nc, &o, out, out + nc);
        break;
    }
    case FZ_FORI: cj_fori_loop(n->lo, n->hi, fs[0], nc, ops, out); break;
    default: { /* FZ_WHILE */
        snprintf(name, sizeof name, "v%d_cond", i);
        cj_func *cond = cj_func_new(ctx, name, while_cond_fn, 1 + nc, 1, &bodies[0]);
        cj_val init[FZ_MAX_ARGS + 1];
        init[0] = cj_scalar_typed(ctx, (double)n->p0[1], CJ_I32);
        for (int k = 0; k < nc; k++) init[1 + k] = ops[k];
        cj_while_loop(cond, fs[0], 1 + nc, init, out);
        break;
    }
    }
    e->v[i] = out[n->out_index];
}

/* The nodes of one scope, in order, up to `end` (a body: its construct). */
static void run_scope(env *e, int scope, int end) {
    int start = scope ? e->p->scopes[scope].params[0] : 0;
    for (int i = start; i < end; i++) {
        const fz_node *n = &e->p->nodes[i];
        if (n->scope != scope || n->kind == FZ_INPUT || n->kind == FZ_PARAM) continue;
        if (is_construct(n->kind))
            run_construct(e, i);
        else
            e->v[i] = run_node(e, n);
    }
}

static cj_val run_program(cj_ctx *ctx, const fz_program *p, const cj_val *in) {
    env e; /* every value is written before it is read */
    e.ctx = ctx, e.p = p;
    for (int i = 0; i < p->n_inputs; i++) e.v[p->input_node[i]] = in[i];
    run_scope(&e, 0, p->n_nodes);
    return e.v[p->n_nodes - 1];
}

void fz_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    out[0] = run_program(ctx, (const fz_program *)user, in);
}

void fz_fn_sum(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    out[0] = cj_sum(run_program(ctx, (const fz_program *)user, in), -1, NULL, 0);
}

/* Rounds x to the nearest value of a narrow float dtype (f16/bf16), by
 * the same conversion cjax uses (src/runtime/half.h's, through f32: x is
 * an f32 value already). */
static double round_narrow(double x, cj_dtype dt) {
    float f = (float)x;
    return dt == CJ_BF16 ? rt_bf16_to_f32(rt_f32_to_bf16(f)) : rt_f16_to_f32(rt_f32_to_f16(f));
}

double fz_random_element(cj_dtype dt, uint64_t *state) {
    if (fz_is_int_dtype(dt)) {
        int bits = (int)cj_dtype_size(dt) * 8, sign = dt == CJ_I8 || dt == CJ_I16 || dt == CJ_I32 || dt == CJ_I64;
        uint64_t u = fz_rand_u64(state);
        if (u % 5) return (double)(int64_t)(u / 5 % 21) - (sign ? 10 : 0);
        if (bits > 52) bits = 52;
        double x = (double)(fz_rand_u64(state) >> (64 - bits));
        return sign ? x - ldexp(1, bits - 1) : x;
    }
    double x = fz_rand_uniform(state, -FZ_INPUT_BOUND, FZ_INPUT_BOUND);
    if (dt == CJ_F32) return (float)x;
    return is_narrow(dt) ? round_narrow((float)x, dt) : x;
}

cj_val fz_array_from(cj_ctx *ctx, cj_dtype dt, int rank, const int64_t *dims, const double *data, int64_t n) {
    if (dt == CJ_F64) return cj_array(ctx, dt, rank, dims, data);
    if (dt != CJ_F32 && !is_narrow(dt)) /* integers: exact in f64, converted exactly */
        return cj_astype(cj_array(ctx, CJ_F64, rank, dims, data), dt);
    float *f = malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
    if (!f) return cj_zeros(ctx, dt, rank, dims);
    for (int64_t i = 0; i < n; i++) f[i] = (float)data[i];
    cj_val v = cj_array(ctx, CJ_F32, rank, dims, f);
    free(f);
    return dt == CJ_F32 ? v : cj_astype(v, dt); /* narrow data: exact */
}

cj_val fz_random_input(cj_ctx *ctx, const fz_type *t, uint64_t *state) {
    int64_t n = fz_type_size(t);
    double *buf = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    if (!buf) return cj_zeros(ctx, t->dtype, t->rank, t->dims);
    for (int64_t i = 0; i < n; i++) buf[i] = fz_random_element(t->dtype, state);
    cj_val v = fz_array_from(ctx, t->dtype, t->rank, t->dims, buf, n);
    free(buf);
    return v;
}

/* ---- printing ---- */
static const char *const unary_names[FZ_NUM_UNARY] = {
    "neg", "abs", "sin", "cos", "tanh", "logistic", "erf", "atan", "exp", "square", "log(abs(x)+1)",
    "sqrt(abs(x)+1)", "rsqrt(abs(x)+1)", "log1p(abs(x))", "expm1", "relu", "gelu", "clip(x,-1,1)",
    "cbrt(abs(x)+1)", "sinh", "cosh", "asin(0.9*tanh(x))", "acos(0.9*tanh(x))", "tan(0.5*tanh(x))",
    "mul_const", "add_const", "asinh", "erfc", "atanh(0.9*tanh(x))", "lgamma(abs(x)+1)", "integer_pow(x,3)"};
static const char *const binary_names[FZ_NUM_BINARY] = {"add", "sub", "mul", "div(a,abs(b)+1)",
                                                        "max", "min", "pow(abs(a)+1,tanh(b))",
                                                        "atan2(a,abs(b)+1)"};
static const char *const int_unary_names[FZ_NUM_INT_UNARY] = {"neg", "abs", "square", "mul_const", "add_const",
                                                              "integer_pow(x,3)", "population_count", "not", "sign"};
static const char *const int_binary_names[FZ_NUM_INT_BINARY] = {
    "add", "sub", "mul", "max", "min", "floor_divide", "remainder", "rem", "and", "or", "xor", "shift_left",
    "shift_right_logical", "shift_right_arithmetic"};
static const char *const reduce_names[FZ_NUM_REDUCE] = {"sum", "mean", "reduce_max", "reduce_min", "prod", "var"};

static void print_ints(FILE *out, const char *name, int n, const int64_t *v) {
    fprintf(out, " %s=(", name);
    for (int i = 0; i < n; i++) fprintf(out, "%s%lld", i ? "," : "", (long long)v[i]);
    fprintf(out, ")");
}

static void print_type(FILE *out, const fz_type *t) {
    fprintf(out, "%s[", cj_dtype_name(t->dtype));
    for (int i = 0; i < t->rank; i++) fprintf(out, "%s%lld", i ? "," : "", (long long)t->dims[i]);
    fprintf(out, "]");
}

static void print_args(FILE *out, const fz_node *n, int from, int to) {
    for (int k = from; k < to; k++) fprintf(out, "%sv%d", k > from ? ", " : "", n->args[k]);
}

static const char *const random_names[FZ_NUM_RANDOM] = {"uniform", "normal", "bits*2^-31"};

static void print_random(FILE *out, const fz_node *n) {
    fprintf(out, "random_%s(key(%lld)", random_names[n->sub], (long long)n->p1[0]);
    int mask = (int)n->p1[1];
    if (mask & FZ_KEY_SPLIT) fprintf(out, " split %lld row %lld", (long long)n->p1[2], (long long)n->p1[3]);
    if (mask & FZ_KEY_FOLD) fprintf(out, " fold_in %lld", (long long)n->p2[0]);
    if (mask & FZ_KEY_FOLD_DATA) fprintf(out, " fold_in (sum(v%d) > %g)", n->args[0], n->consts[0]);
    fprintf(out, ")");
    if (n->sub == FZ_UNIFORM) fprintf(out, " in [%g, %g)", n->consts[1], n->consts[2]);
}

/* A construct's own line: what it runs on, and which output it is. */
static void print_construct(FILE *out, const fz_node *n) {
    switch (n->kind) {
    case FZ_COND:
        fprintf(out, "cond(sum(v%d) > %g", n->args[0], n->consts[0]);
        if (n->keepdims) fprintf(out, " as i32 * %lld", (long long)n->p0[0]);
        fprintf(out, "; operands "), print_args(out, n, 1, n->n_args), fprintf(out, ") bodies: false, true");
        break;
    case FZ_SWITCH:
        fprintf(out, "switch(index %lld + #{k: sum(v%d) > c_k}, c =", (long long)n->p0[0], n->args[0]);
        for (int k = 0; k < n->n_bodies; k++) fprintf(out, " %g", n->consts[k]);
        fprintf(out, "; operands "), print_args(out, n, 1, n->n_args), fprintf(out, ")");
        break;
    case FZ_SCAN:
        fprintf(out, "scan(carries "), print_args(out, n, 0, n->n_carry);
        if (n->n_args > n->n_carry) fprintf(out, "; xs "), print_args(out, n, n->n_carry, n->n_args);
        fprintf(out, ") length=%lld%s reverse=%d", (long long)n->lo, n->keepdims ? " (given)" : "", (int)n->axis);
        break;
    case FZ_FORI:
        fprintf(out, "fori_loop(%lld, %lld; carries ", (long long)n->lo, (long long)n->hi);
        print_args(out, n, 0, n->n_carry), fprintf(out, ")");
        break;
    default:
        fprintf(out, "while_loop(counter from %lld while < %lld", (long long)n->p0[1], (long long)n->hi);
        if (n->keepdims) fprintf(out, " and sum(carry %lld) < %g", (long long)n->p0[2], n->consts[0]);
        fprintf(out, "; carries "), print_args(out, n, 0, n->n_carry), fprintf(out, ")");
        break;
    }
    fprintf(out, " -> output %d", n->out_index);
}

static void print_node(FILE *out, const fz_program *p, int i, int indent) {
    const fz_node *n = &p->nodes[i];
    const fz_type *a = n->n_args ? &p->nodes[n->args[0]].type : NULL;
    int r = a ? a->rank : 0;
    fprintf(out, "%*sv%d = ", 2 + indent, "", i);
    switch (n->kind) {
    case FZ_INPUT: fprintf(out, "input %d", n->input); break;
    case FZ_PARAM: fprintf(out, "param %d", n->input); break;
    case FZ_INT_TO_FLOAT:
        fprintf(out, "astype(v%d, %s) * %g", n->args[0], cj_dtype_name(n->type.dtype), n->constant);
        break;
    case FZ_OUTPUT: fprintf(out, "output %d of v%d", n->sub, n->args[0]); break;
    case FZ_RANDOM: print_random(out, n); break;
    case FZ_DYNAMIC_SLICE:
    case FZ_DYNAMIC_UPDATE:
        if (n->kind == FZ_DYNAMIC_SLICE)
            fprintf(out, "dynamic_slice(v%d)", n->args[0]), print_ints(out, "sizes", r, n->p0);
        else
            fprintf(out, "dynamic_update_slice(v%d, v%d)", n->args[0], n->args[1]);
        fprintf(out, " start=(");
        for (int d = 0; d < r; d++) {
            int src = n->args[n->n_args - 1];
            long long c = (long long)n->p2[d];
            fprintf(out, "%s", d ? "," : "");
            if (n->p1[d] && n->sub == FZ_START_INT)
                fprintf(out, "v%d%+lld", src, c);
            else if (n->p1[d])
                fprintf(out, "[sum(v%d)>%g]%+lld", src, n->consts[0], c);
            else
                fprintf(out, "%lld", c);
        }
        fprintf(out, ")");
        break;
    case FZ_COND: case FZ_SWITCH: case FZ_SCAN: case FZ_FORI: case FZ_WHILE: print_construct(out, n); break;
    case FZ_UNARY:
        if (fz_is_int_dtype(n->type.dtype)) {
            fprintf(out, "%s(v%d)", int_unary_names[n->sub], n->args[0]);
            if (n->sub == FZ_I_MUL_CONST || n->sub == FZ_I_ADD_CONST) fprintf(out, " c=%g", n->constant);
            break;
        }
        fprintf(out, "%s(v%d)", unary_names[n->sub], n->args[0]);
        if (n->sub == FZ_MUL_CONST || n->sub == FZ_ADD_CONST) fprintf(out, " c=%g", n->constant);
        break;
    case FZ_BINARY:
        fprintf(out, "%s(v%d, v%d)", fz_is_int_dtype(n->type.dtype) ? int_binary_names[n->sub] : binary_names[n->sub],
                n->args[0], n->args[1]);
        break;
    case FZ_SORT: fprintf(out, "sort(v%d) axis=%lld", n->args[0], (long long)n->axis); break;
    case FZ_TAKE:
    {
        int int_idx = fz_is_int_dtype(p->nodes[n->args[1]].type.dtype);
        fprintf(out, "take(v%d, %sv%d%s) axis=%lld", n->args[0], int_idx ? "" : "astype(2*", n->args[1],
                int_idx ? "" : ", i32)", (long long)n->axis);
    }
        break;
    case FZ_WHERE: fprintf(out, "where(v%d > %g, v%d, v%d)", n->args[2], n->constant, n->args[0], n->args[1]); break;
    case FZ_REDUCE:
    case FZ_LOGSUMEXP:
        fprintf(out, "%s(v%d)", n->kind == FZ_LOGSUMEXP ? "logsumexp" : reduce_names[n->sub], n->args[0]);
        if (n->n_axes < 0)
            fprintf(out, " axes=all");
        else
            print_ints(out, "axes", n->n_axes, n->axes);
        fprintf(out, " keepdims=%d", n->keepdims);
        break;
    case FZ_CUMULATIVE:
        fprintf(out, "%s(v%d) axis=%lld reverse=%d", n->sub ? "cummax" : "cumsum", n->args[0], (long long)n->axis,
                n->keepdims);
        break;
    case FZ_RESHAPE: fprintf(out, "reshape(v%d)", n->args[0]), print_ints(out, "shape", n->shape_rank, n->p0); break;
    case FZ_TRANSPOSE:
        fprintf(out, "transpose(v%d)", n->args[0]);
        if (n->keepdims)
            fprintf(out, " perm=NULL");
        else
            print_ints(out, "perm", r, n->p0);
        break;
    case FZ_EXPAND_DIMS: fprintf(out, "expand_dims(v%d) axis=%lld", n->args[0], (long long)n->axis); break;
    case FZ_SQUEEZE: fprintf(out, "squeeze(v%d)", n->args[0]), print_ints(out, "axes", n->n_axes, n->axes); break;
    case FZ_SLICE:
        fprintf(out, "slice(v%d)", n->args[0]);
        print_ints(out, "start", r, n->p0), print_ints(out, "limit", r, n->p1), print_ints(out, "strides", r, n->p2);
        break;
    case FZ_CONCATENATE:
        fprintf(out, "concatenate(");
        for (int k = 0; k < n->n_args; k++) fprintf(out, "%sv%d", k ? ", " : "", n->args[k]);
        fprintf(out, ") axis=%lld", (long long)n->axis);
        break;
    case FZ_PAD:
        fprintf(out, "pad(v%d, %g)", n->args[0], n->constant);
        print_ints(out, "lo", r, n->p0), print_ints(out, "hi", r, n->p1), print_ints(out, "interior", r, n->p2);
        break;
    case FZ_REV: fprintf(out, "rev(v%d)", n->args[0]), print_ints(out, "axes", n->n_axes, n->axes); break;
    case FZ_BROADCAST_TO:
        fprintf(out, "broadcast_to(v%d)", n->args[0]), print_ints(out, "shape", n->shape_rank, n->p0);
        break;
    case FZ_DOT_GENERAL:
        fprintf(out, "dot_general(v%d, v%d)", n->args[0], n->args[1]);
        print_ints(out, "contract", n->n_axes, n->p0), print_ints(out, "/", n->n_axes, n->p1);
        print_ints(out, "batch", n->n_batch, n->p2), print_ints(out, "/", n->n_batch, n->p3);
        break;
    case FZ_MATMUL: fprintf(out, "matmul(v%d, v%d)", n->args[0], n->args[1]); break;
    case FZ_ASTYPE: fprintf(out, "astype(v%d, %s)", n->args[0], cj_dtype_name(n->dtype)); break;
    case FZ_SOFTMAX:
        fprintf(out, "%s(v%d) axis=%lld", n->sub ? "log_softmax" : "softmax", n->args[0], (long long)n->axis);
        break;
    default: fprintf(out, "?"); break;
    }
    fprintf(out, "   : ");
    print_type(out, &n->type);
    fprintf(out, "  |x|<=%g\n", n->type.bound);
}

/* The nodes of one scope before `end`, each construct followed by its
 * bodies (indented) and their results. */
static void print_scope(FILE *out, const fz_program *p, int scope, int end, int indent) {
    for (int i = 0; i < end; i++) {
        const fz_node *n = &p->nodes[i];
        if (n->scope != scope || (n->kind == FZ_INPUT && scope != 0)) continue;
        print_node(out, p, i, indent);
        for (int b = 0; b < n->n_bodies && is_construct(n->kind); b++) {
            const fz_scope *sc = &p->scopes[n->bodies[b]];
            fprintf(out, "%*sbody %d of v%d {\n", 4 + indent, "", b, i);
            print_scope(out, p, n->bodies[b], i, indent + 4);
            fprintf(out, "%*s} -> (", 4 + indent, "");
            if (n->kind == FZ_WHILE) fprintf(out, "counter + 1, ");
            for (int k = 0; k < sc->n_results; k++) fprintf(out, "%sv%d", k ? ", " : "", sc->results[k]);
            fprintf(out, ")\n");
        }
    }
}

void fz_print(const fz_program *p, FILE *out) {
    fprintf(out, "program seed %llu (%d inputs, %d nodes; output v%d):\n", (unsigned long long)p->seed, p->n_inputs,
            p->n_nodes, p->n_nodes - 1);
    print_scope(out, p, 0, p->n_nodes, 0);
}
