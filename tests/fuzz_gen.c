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
 * program is well typed and its values finite. */
#include "fuzz_gen.h"

#include <math.h>
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
} gen;

static int rnd(gen *g, int n) { return (int)(fz_rand_u64(&g->rng) % (uint64_t)n); }
static int chance(gen *g, double prob) { return fz_rand_uniform(&g->rng, 0, 1) < prob; }

/* Mostly 2..4, sometimes 1 (broadcasts), rarely 0 (empty arrays). */
static int64_t random_dim(gen *g) {
    int r = rnd(g, 20);
    return r == 0 ? 0 : r < 5 ? 1 : 2 + rnd(g, 3);
}

static cj_dtype random_dtype(gen *g) { return chance(g, 0.6) ? CJ_F32 : CJ_F64; }

int64_t fz_type_size(const fz_type *t) {
    int64_t n = 1;
    for (int i = 0; i < t->rank; i++) n *= t->dims[i];
    return n;
}

static cj_dtype join_dtype(cj_dtype a, cj_dtype b) { return a == CJ_F64 || b == CJ_F64 ? CJ_F64 : CJ_F32; }
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

/* The first operand: the newest node half of the time, else any. */
static int pick_operand(gen *g) {
    int n = g->p->n_nodes;
    return chance(g, 0.5) ? n - 1 : rnd(g, n);
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
            if (c != a && broadcast_types(ta, type_of(g, c), &tmp)) return c;
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
            if (same_dims(type_of(g, (start + k) % n), t)) return (start + k) % n;
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
    default: return 0;
    }
}

static int gen_unary(gen *g, fz_node *n) {
    n->args[0] = pick_operand(g);
    n->n_args = 1;
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
    n->sub = rnd(g, FZ_NUM_BINARY);
    const fz_type *ta = type_of(g, a), *tb = type_of(g, b);
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
    /* the predicate's operand: compatible with the result so far */
    n->args[2] = broadcast_partner(g, a);
    if (!broadcast_types(&ab, type_of(g, n->args[2]), &abc)) return 0;
    n->args[0] = a, n->args[1] = b, n->n_args = 3;
    n->constant = round(fz_rand_uniform(&g->rng, -0.5, 0.5) * 8) / 8;
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
    random_reduce_axes(g, n, a->rank);
    int64_t k;
    n->type = reduced_type(n, a, &k);
    double b = a->bound, e = a->err, kd = (double)k;
    /* a mean, max, min or var of nothing is not finite */
    if (k == 0 && n->sub != FZ_SUM && n->sub != FZ_PROD && fz_type_size(&n->type) > 0) return 0;
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
    return 1;
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
    return out.bound <= FZ_MAX_BOUND;
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
    return out.bound <= FZ_MAX_BOUND;
}

static int gen_astype(gen *g, fz_node *n) {
    n->args[0] = pick_operand(g), n->n_args = 1;
    const fz_type *a = type_of(g, n->args[0]);
    n->dtype = a->dtype == CJ_F32 ? CJ_F64 : CJ_F32;
    n->type = *a;
    n->type.dtype = n->dtype;
    n->type.err = a->err + a->bound; /* one rounding to f32 */
    return 1;
}

static int gen_softmax(gen *g, fz_node *n) {
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

typedef int (*gen_fn)(gen *g, fz_node *n);
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
};
#define N_KINDS ((int)(sizeof kinds / sizeof kinds[0]))

static gen_fn random_generator(gen *g, fz_kind *kind) {
    int total = 0;
    for (int i = 0; i < N_KINDS; i++) total += kinds[i].weight;
    int r = rnd(g, total);
    for (int i = 0; i < N_KINDS; i++) {
        if (r < kinds[i].weight) {
            *kind = kinds[i].kind;
            return kinds[i].fn;
        }
        r -= kinds[i].weight;
    }
    *kind = kinds[0].kind;
    return kinds[0].fn;
}

/* Tries kinds until one fits; a rejected attempt's new inputs are undone. */
static int add_random_op(gen *g) {
    fz_program *p = g->p;
    for (int attempt = 0; attempt < 50; attempt++) {
        int n_nodes = p->n_nodes, n_inputs = p->n_inputs;
        if (n_nodes == FZ_MAX_NODES) return 0;
        fz_node n;
        memset(&n, 0, sizeof n);
        gen_fn fn = random_generator(g, &n.kind);
        if (fn(g, &n) && p->n_nodes < FZ_MAX_NODES) {
            p->nodes[p->n_nodes++] = n;
            return 1;
        }
        p->n_nodes = n_nodes, p->n_inputs = n_inputs;
    }
    return 0;
}

void fz_generate(fz_program *p, uint64_t seed) {
    memset(p, 0, sizeof *p);
    p->seed = seed;
    gen g = {p, seed};
    add_input(&g, random_input_type(&g));
    int n_ops = 1 + rnd(&g, FZ_MAX_OPS);
    int made = 0;
    while (made < n_ops && add_random_op(&g)) made++;
    if (made == 0) { /* cannot happen (a unary op always fits); keep it well formed */
        fz_node n;
        memset(&n, 0, sizeof n);
        n.kind = FZ_UNARY, n.sub = FZ_TANH, n.n_args = 1, n.type = p->nodes[0].type;
        p->nodes[p->n_nodes++] = n;
    }
}

void fz_to_f64(const fz_program *p, fz_program *out) {
    *out = *p;
    for (int i = 0; i < out->n_nodes; i++) {
        out->nodes[i].type.dtype = CJ_F64;
        if (out->nodes[i].kind == FZ_ASTYPE) out->nodes[i].dtype = CJ_F64;
    }
}

int fz_uses_f32(const fz_program *p) {
    for (int i = 0; i < p->n_nodes; i++)
        if (p->nodes[i].type.dtype == CJ_F32) return 1;
    return 0;
}

/* ---- interpretation ---- */
static cj_val abs1(cj_ctx *ctx, cj_val x) { return cj_add(cj_abs(x), cj_scalar(ctx, 1.0)); }

static cj_val run_unary(cj_ctx *ctx, const fz_node *n, cj_val x) {
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
    default: return cj_neg(x);
    }
}

static cj_val run_binary(cj_ctx *ctx, const fz_node *n, cj_val a, cj_val b) {
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

static cj_val run_node(cj_ctx *ctx, const fz_node *n, const cj_val *v) {
    cj_val a = v[n->args[0]];
    switch (n->kind) {
    case FZ_UNARY: return run_unary(ctx, n, a);
    case FZ_BINARY: return run_binary(ctx, n, a, v[n->args[1]]);
    case FZ_WHERE: return cj_where(cj_gt(v[n->args[2]], cj_scalar(ctx, n->constant)), a, v[n->args[1]]);
    case FZ_REDUCE: return run_reduce(n, a);
    case FZ_CUMULATIVE: return n->sub == 0 ? cj_cumsum(a, n->axis, n->keepdims) : cj_cummax(a, n->axis, n->keepdims);
    case FZ_RESHAPE: return cj_reshape(a, n->shape_rank, n->p0);
    case FZ_TRANSPOSE: return cj_transpose(a, n->keepdims ? NULL : n->p0);
    case FZ_EXPAND_DIMS: return cj_expand_dims(a, n->axis);
    case FZ_SQUEEZE: return cj_squeeze(a, n->n_axes, n->axes);
    case FZ_SLICE: return cj_slice(a, n->p0, n->p1, n->p2);
    case FZ_CONCATENATE: {
        cj_val xs[3];
        for (int i = 0; i < n->n_args; i++) xs[i] = v[n->args[i]];
        return cj_concatenate(n->n_args, xs, n->axis);
    }
    case FZ_PAD: return cj_pad(a, cj_scalar(ctx, n->constant), n->p0, n->p1, n->p2);
    case FZ_REV: return cj_rev(a, n->n_axes, n->axes);
    case FZ_BROADCAST_TO: return cj_broadcast_to(a, n->shape_rank, n->p0);
    case FZ_DOT_GENERAL:
        return cj_dot_general(a, v[n->args[1]], n->n_axes, n->p0, n->p1, n->n_batch, n->p2, n->p3);
    case FZ_MATMUL: return cj_matmul(a, v[n->args[1]]);
    case FZ_ASTYPE: return cj_astype(a, n->dtype);
    case FZ_SOFTMAX: return n->sub == 0 ? cj_softmax(a, n->axis) : cj_log_softmax(a, n->axis);
    case FZ_LOGSUMEXP: return cj_logsumexp(a, n->n_axes, n->n_axes < 0 ? NULL : n->axes, n->keepdims);
    default: return a;
    }
}

static cj_val run_program(cj_ctx *ctx, const fz_program *p, const cj_val *in) {
    cj_val v[FZ_MAX_NODES] = {{0}};
    for (int i = 0; i < p->n_nodes; i++) {
        const fz_node *n = &p->nodes[i];
        v[i] = n->kind == FZ_INPUT ? in[n->input] : run_node(ctx, n, v);
    }
    return v[p->n_nodes - 1];
}

void fz_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    out[0] = run_program(ctx, (const fz_program *)user, in);
}

void fz_fn_sum(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    out[0] = cj_sum(run_program(ctx, (const fz_program *)user, in), -1, NULL, 0);
}

cj_val fz_random_input(cj_ctx *ctx, const fz_type *t, uint64_t *state) {
    int64_t n = fz_type_size(t);
    size_t esz = t->dtype == CJ_F32 ? sizeof(float) : sizeof(double);
    void *buf = malloc(esz * (size_t)(n > 0 ? n : 1));
    if (!buf) return cj_zeros(ctx, t->dtype, t->rank, t->dims);
    for (int64_t i = 0; i < n; i++) {
        double x = fz_rand_uniform(state, -FZ_INPUT_BOUND, FZ_INPUT_BOUND);
        if (t->dtype == CJ_F32)
            ((float *)buf)[i] = (float)x;
        else
            ((double *)buf)[i] = x;
    }
    cj_val v = cj_array(ctx, t->dtype, t->rank, t->dims, buf);
    free(buf);
    return v;
}

/* ---- printing ---- */
static const char *const unary_names[FZ_NUM_UNARY] = {
    "neg", "abs", "sin", "cos", "tanh", "logistic", "erf", "atan", "exp", "square", "log(abs(x)+1)",
    "sqrt(abs(x)+1)", "rsqrt(abs(x)+1)", "log1p(abs(x))", "expm1", "relu", "gelu", "clip(x,-1,1)",
    "cbrt(abs(x)+1)", "sinh", "cosh", "asin(0.9*tanh(x))", "acos(0.9*tanh(x))", "tan(0.5*tanh(x))",
    "mul_const", "add_const"};
static const char *const binary_names[FZ_NUM_BINARY] = {"add", "sub", "mul", "div(a,abs(b)+1)",
                                                        "max", "min", "pow(abs(a)+1,tanh(b))",
                                                        "atan2(a,abs(b)+1)"};
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

static void print_node(FILE *out, const fz_program *p, int i) {
    const fz_node *n = &p->nodes[i];
    const fz_type *a = n->n_args ? &p->nodes[n->args[0]].type : NULL;
    int r = a ? a->rank : 0;
    fprintf(out, "  v%d = ", i);
    switch (n->kind) {
    case FZ_INPUT: fprintf(out, "input %d", n->input); break;
    case FZ_UNARY:
        fprintf(out, "%s(v%d)", unary_names[n->sub], n->args[0]);
        if (n->sub == FZ_MUL_CONST || n->sub == FZ_ADD_CONST) fprintf(out, " c=%g", n->constant);
        break;
    case FZ_BINARY: fprintf(out, "%s(v%d, v%d)", binary_names[n->sub], n->args[0], n->args[1]); break;
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

void fz_print(const fz_program *p, FILE *out) {
    fprintf(out, "program seed %llu (%d inputs, %d nodes; output v%d):\n", (unsigned long long)p->seed, p->n_inputs,
            p->n_nodes, p->n_nodes - 1);
    for (int i = 0; i < p->n_nodes; i++) print_node(out, p, i);
}
