/* hlo_ops.c — one cjax binding per StableHLO op (import layer; called by
 * hlo_import.c's block walker for every op).
 *
 * Each op reads its attributes as the StableHLO spec defines them and
 * binds the public cjax operation of the same meaning; where cjax's public
 * op differs at the edges (dynamic_slice's negative starts, integer
 * divide's rounding, case's out-of-range index) the difference is bridged
 * here so the result is StableHLO's. Reductions, sorts, scatters and
 * windowed reductions read their region: a single binary op on the
 * block's two arguments (add, multiply, maximum, minimum, and, or, xor),
 * or, for a two-operand reduce, JAX's argmax / argmin comparator. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "import/hlo_comparator.h"
#include "import/hlo_import.h"

static int is(const hlo_op *op, const char *name) { return strcmp(op->name, name) == 0; }
#define IN(k) (E->v[op->operands[k]])

/* The operands' values in a block of the context's memory (the caller
 * frees n_operands entries): on the heap, as calls nest in C frames. */
static cj_val *operand_vals(imp_env *E, const hlo_op *op) {
    cj_val *v = rt_alloc(E->ctx->mem, (size_t)(op->n_operands ? op->n_operands : 1) * sizeof *v);
    if (!v) {
        imp_error(E, op, "out of memory");
        return NULL;
    }
    for (int i = 0; i < op->n_operands; i++) v[i] = E->v[op->operands[i]];
    return v;
}

static const hlo_type *rtype(const hlo_op *op, int k) { return &op->res_types[k]; }

/* An elementwise op's operands, where those JAX broadcast from a rank-0
 * value (broadcast_in_dim of a scalar constant, mostly) are that value
 * itself once another operand has the result's shape: NumPy broadcasting
 * gives the same result, and the broadcast is never materialised (under
 * jit a full-size broadcast read by kernels on both sides of a gradient
 * would be stored as a buffer). */
static void elementwise_operands(imp_env *E, const hlo_op *op, cj_val *x) {
    int n = op->n_operands < 3 ? op->n_operands : 3, full = -1;
    const hlo_type *t = op->n_results == 1 ? &op->res_types[0] : NULL;
    for (int i = 0; i < n; i++) {
        x[i] = IN(i);
        if (!t || full >= 0 || E->s[op->operands[i]].ctx || cj_val_rank(x[i]) != t->rank) continue;
        int64_t d[CJ_MAX_RANK];
        if (cj_val_shape(x[i], d) != t->rank || memcmp(d, t->dims, (size_t)t->rank * sizeof *d)) continue;
        full = i;
    }
    if (full < 0) return;
    for (int i = 0; i < n; i++)
        if (i != full && E->s[op->operands[i]].ctx) x[i] = E->s[op->operands[i]];
}

/* array<i64: ...> attribute into out (rank-sized); -1 when missing. */
static int ints_attr(imp_env *E, const hlo_op *op, const char *name, int64_t *out, int max, int required) {
    const hlo_attr *a = hlo_op_attr(op, name);
    if (!a) return required ? imp_error(E, op, "missing attribute %s", name) : 0;
    if (a->kind == HA_ARRAY) {
        if (a->n > max) return imp_error(E, op, "%s has %d entries (at most %d)", name, a->n, max);
        hlo_copy(out, a->ints, (size_t)a->n * sizeof *out);
        return a->n;
    }
    if (a->kind == HA_DENSE && !a->raw) {
        if (a->n > max) return imp_error(E, op, "%s has %d entries (at most %d)", name, a->n, max);
        for (int i = 0; i < a->n; i++) out[i] = (int64_t)a->elems[i].bits;
        return a->n;
    }
    return imp_error(E, op, "attribute %s is not an integer array", name);
}

static int int_attr(const hlo_op *op, const char *name, int64_t *out) {
    const hlo_attr *a = hlo_op_attr(op, name);
    if (!a || a->kind != HA_INT) return -1;
    *out = a->i;
    return 0;
}

/* ---- constants ---- */
static void put_bits(void *dst, size_t sz, uint64_t bits) {
    uint8_t b[8];
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(bits >> (8 * i));
    hlo_copy(dst, b, sz);
}

static cj_val constant(imp_env *E, const hlo_op *op) {
    const hlo_attr *a = hlo_op_attr(op, "value");
    const hlo_type *t = rtype(op, 0);
    if (!a || a->kind != HA_DENSE) return imp_error(E, op, "value is not a dense<...> literal"), cj_scalar(E->ctx, 0);
    int64_t n = 1;
    for (int i = 0; i < t->rank; i++) n *= t->dims[i];
    size_t sz = cj_dtype_size(t->dt);
    if (n > (INT64_C(1) << 32)) return imp_error(E, op, "constant too large"), cj_scalar(E->ctx, 0);
    if (a->raw) {
        if (a->raw_len != (size_t)n * sz && a->raw_len != sz)
            return imp_error(E, op, "hex data of %zu bytes for %lld elements", a->raw_len, (long long)n), cj_scalar(E->ctx, 0);
        if (a->raw_len == (size_t)n * sz) return cj_array(E->ctx, t->dt, t->rank, t->dims, a->raw);
    } else if (a->n != n && !(a->splat && a->n == 1)) {
        return imp_error(E, op, "%d elements for a %lld-element tensor", a->n, (long long)n), cj_scalar(E->ctx, 0);
    }
    int halfdt = t->dt == CJ_F16 || t->dt == CJ_BF16;
    int isf = t->dt == CJ_F32 || t->dt == CJ_F64 || halfdt;
    /* f16/bf16 written as decimal go through f32 (rounded by cjax's conversion) */
    int via_f32 = 0;
    if (halfdt && !a->raw)
        for (int i = 0; i < a->n; i++) via_f32 |= !a->elems[i].is_hex;
    cj_dtype bdt = via_f32 ? CJ_F32 : t->dt;
    size_t bsz = cj_dtype_size(bdt);
    size_t bytes = (size_t)(n ? n : 1) * bsz;
    uint8_t *buf = rt_alloc(E->ctx->mem, bytes);
    if (!buf) return imp_error(E, op, "out of memory for a constant"), cj_scalar(E->ctx, 0);
    for (int64_t i = 0; i < n; i++) {
        uint8_t *d = buf + (size_t)i * bsz;
        if (a->raw) {
            hlo_copy(d, a->raw, sz);
            continue;
        }
        const hlo_elem *e = &a->elems[a->splat ? 0 : i];
        if (isf && e->is_hex && !via_f32) put_bits(d, bsz, e->bits);
        else if (isf && e->is_hex) { /* a hex f16 among decimals: decode it to f32 */
            float f = 0;
            if (t->dt == CJ_BF16) {
                uint32_t u = (uint32_t)e->bits << 16;
                memcpy(&f, &u, 4);
            } else {
                uint16_t h = (uint16_t)e->bits;
                int ex = (h >> 10) & 31, m = h & 1023;
                f = ex == 31 ? (m ? NAN : INFINITY) : ex ? ldexpf((float)(m | 1024), ex - 25) : ldexpf((float)m, -24);
                if (h & 0x8000) f = -f;
            }
            memcpy(d, &f, 4);
        } else if (bdt == CJ_F32) {
            float f = (float)e->f;
            memcpy(d, &f, 4);
        } else if (bdt == CJ_F64) {
            memcpy(d, &e->f, 8);
        } else if (bdt == CJ_BOOL) {
            d[0] = e->bits != 0;
        } else {
            put_bits(d, bsz, e->is_float ? (uint64_t)(int64_t)e->f : e->bits);
        }
    }
    cj_val v = cj_array(E->ctx, bdt, t->rank, t->dims, buf);
    rt_free(E->ctx->mem, buf, bytes);
    return via_f32 ? cj_astype(v, t->dt) : v;
}

/* ---- elementwise ---- */
typedef cj_val (*un_fn)(cj_val);
typedef cj_val (*bin_fn)(cj_val, cj_val);
static const struct {
    const char *name;
    un_fn f;
} unary[] = {{"stablehlo.abs", cj_abs},
             {"stablehlo.negate", cj_neg},
             {"stablehlo.sign", cj_sign},
             {"stablehlo.floor", cj_floor},
             {"stablehlo.ceil", cj_ceil},
             {"stablehlo.round_nearest_even", cj_round},
             {"stablehlo.exponential", cj_exp},
             {"stablehlo.exponential_minus_one", cj_expm1},
             {"stablehlo.log", cj_log},
             {"stablehlo.log_plus_one", cj_log1p},
             {"stablehlo.sqrt", cj_sqrt},
             {"stablehlo.rsqrt", cj_rsqrt},
             {"stablehlo.cbrt", cj_cbrt},
             {"stablehlo.sine", cj_sin},
             {"stablehlo.cosine", cj_cos},
             {"stablehlo.tan", cj_tan},
             {"stablehlo.tanh", cj_tanh},
             {"stablehlo.logistic", cj_logistic},
             {"stablehlo.not", cj_not},
             {"stablehlo.is_finite", cj_is_finite},
             {"stablehlo.popcnt", cj_population_count},
             {"chlo.erf_inv", cj_erfinv},
             {"chlo.erf", cj_erf},
             {"chlo.erfc", cj_erfc},
             {"chlo.lgamma", cj_lgamma},
             {"chlo.digamma", cj_digamma},
             {"chlo.asin", cj_asin},
             {"chlo.acos", cj_acos},
             {"chlo.atan", cj_atan},
             {"chlo.sinh", cj_sinh},
             {"chlo.cosh", cj_cosh},
             {"chlo.asinh", cj_asinh},
             {"chlo.acosh", cj_acosh},
             {"chlo.atanh", cj_atanh},
             {"chlo.tan", cj_tan},
             {"chlo.square", cj_square}};
static const struct {
    const char *name;
    bin_fn f;
} binary[] = {{"stablehlo.add", cj_add},
              {"stablehlo.subtract", cj_sub},
              {"stablehlo.multiply", cj_mul},
              {"stablehlo.remainder", cj_rem},
              {"stablehlo.maximum", cj_max},
              {"stablehlo.minimum", cj_min},
              {"stablehlo.power", cj_pow},
              {"stablehlo.atan2", cj_atan2},
              {"stablehlo.and", cj_and},
              {"stablehlo.or", cj_or},
              {"stablehlo.xor", cj_xor},
              {"stablehlo.shift_left", cj_shift_left},
              {"stablehlo.shift_right_logical", cj_shift_right_logical},
              {"stablehlo.shift_right_arithmetic", cj_shift_right_arithmetic},
              {"chlo.next_after", cj_nextafter}};

static int is_int_dt(cj_dtype d) { return d != CJ_F32 && d != CJ_F64 && d != CJ_F16 && d != CJ_BF16 && d != CJ_BOOL; }

/* StableHLO's integer divide truncates toward zero (cjax's floor_divide
 * rounds down): the quotient is corrected where the remainder is nonzero
 * and the signs differ. */
static cj_val divide(cj_val a, cj_val b) {
    if (!is_int_dt(cj_val_dtype(a))) return cj_div(a, b);
    cj_val q = cj_floor_divide(a, b);
    cj_dtype d = cj_val_dtype(a);
    if (d == CJ_U8 || d == CJ_U16 || d == CJ_U32 || d == CJ_U64) return q;
    cj_val zero = cj_zeros_like(a);
    cj_val fix = cj_and(cj_ne(cj_rem(a, b), zero), cj_ne(cj_lt(a, zero), cj_lt(b, zero)));
    return cj_where(fix, cj_add(q, cj_ones_like(q)), q);
}

static cj_val compare(imp_env *E, const hlo_op *op, cj_val a, cj_val b) {
    char w[16];
    if (hlo_opaque_word(hlo_op_attr(op, "comparison_direction"), w, sizeof w))
        return imp_error(E, op, "missing comparison_direction"), cj_scalar(E->ctx, 0);
    if (!strcmp(w, "EQ")) return cj_eq(a, b);
    if (!strcmp(w, "NE")) return cj_ne(a, b);
    if (!strcmp(w, "LT")) return cj_lt(a, b);
    if (!strcmp(w, "LE")) return cj_le(a, b);
    if (!strcmp(w, "GT")) return cj_gt(a, b);
    if (!strcmp(w, "GE")) return cj_ge(a, b);
    return imp_error(E, op, "comparison_direction %s", w), cj_scalar(E->ctx, 0);
}

/* ---- regions ---- */
typedef struct region_fn {
    imp_env *E;
    const hlo_block *b;
    int n_out;
} region_fn;

static void run_region(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    region_fn *r = user;
    (void)ctx;
    int n = imp_run_block(r->E, r->b, in, out, r->n_out);
    if (n >= 0 && n != r->n_out) imp_error(r->E, NULL, "a region returns %d values for %d", n, r->n_out);
}

/* The single binary op a reduction region applies to its two arguments:
 * its name, or NULL. */
static const char *region_combiner(const hlo_block *b) {
    if (b->n_args != 2 || b->n_ops != 2) return NULL;
    const hlo_op *x = b->ops[0], *ret = b->ops[1];
    if (x->n_operands != 2 || x->n_results != 1 || ret->n_operands != 1 || ret->operands[0] != x->first_result) return NULL;
    int a0 = x->operands[0], a1 = x->operands[1];
    if (!((a0 == b->arg_ids[0] && a1 == b->arg_ids[1]) || (a0 == b->arg_ids[1] && a1 == b->arg_ids[0]))) return NULL;
    return x->name;
}

static bin_fn combiner_fn(const char *name) {
    if (!name) return NULL;
    if (!strcmp(name, "stablehlo.add")) return cj_add;
    if (!strcmp(name, "stablehlo.multiply")) return cj_mul;
    if (!strcmp(name, "stablehlo.maximum")) return cj_max;
    if (!strcmp(name, "stablehlo.minimum")) return cj_min;
    if (!strcmp(name, "stablehlo.and")) return cj_and;
    if (!strcmp(name, "stablehlo.or")) return cj_or;
    if (!strcmp(name, "stablehlo.xor")) return cj_xor;
    return NULL;
}

/* Of a region of 2k arguments (a_0..a_k-1, b_0..b_k-1) returning k
 * values: the op that makes result j from a_j and b_j alone ("stablehlo.add",
 * ...), "set" when result j is b_j itself, or NULL. Several operands then
 * reduce (or scatter) independently, each by its own op. */
static const char *pair_combiner(const hlo_block *b, int j, int k) {
    if (b->n_args != 2 * k || b->n_ops < 1) return NULL;
    const hlo_op *ret = b->ops[b->n_ops - 1];
    if (ret->n_operands != k || strcmp(ret->name, "stablehlo.return")) return NULL;
    int r = ret->operands[j], aj = b->arg_ids[j], bj = b->arg_ids[k + j];
    if (r == bj) return "set";
    for (int i = 0; i < b->n_ops - 1; i++) {
        const hlo_op *x = b->ops[i];
        if (x->n_results != 1 || x->first_result != r) continue;
        if (x->n_operands != 2 || x->n_regions) return NULL;
        int o0 = x->operands[0], o1 = x->operands[1];
        return (o0 == aj && o1 == bj) || (o0 == bj && o1 == aj) ? x->name : NULL;
    }
    return NULL;
}

/* The first comparison direction in a comparator region ("GT", ...). */
static int region_direction(const hlo_block *b, char *w, size_t n) {
    for (int i = 0; i < b->n_ops; i++)
        if (is(b->ops[i], "stablehlo.compare"))
            return hlo_opaque_word(hlo_op_attr(b->ops[i], "comparison_direction"), w, n);
    return -1;
}

static int reduce(imp_env *E, const hlo_op *op, cj_val *res) {
    int64_t dims[CJ_MAX_RANK];
    int nd = ints_attr(E, op, "dimensions", dims, CJ_MAX_RANK, 1);
    if (nd < 0 || op->n_regions != 1) return -1;
    int k = op->n_operands / 2;
    const hlo_block *b = &op->regions[0];
    if (k == 1) {
        const char *c = region_combiner(b);
        bin_fn comb = combiner_fn(c);
        if (!comb) return imp_error(E, op, "the region is not a single add/multiply/maximum/minimum/and/or/xor");
        cj_val x = IN(0), r;
        if (comb == cj_add) r = cj_sum(x, nd, dims, 0);
        else if (comb == cj_mul) r = cj_prod(x, nd, dims, 0);
        else if (comb == cj_max) r = cj_reduce_max(x, nd, dims, 0);
        else if (comb == cj_min) r = cj_reduce_min(x, nd, dims, 0);
        else if (comb == cj_and) r = cj_reduce_and(x, nd, dims, 0);
        else if (comb == cj_or) r = cj_reduce_or(x, nd, dims, 0);
        else r = cj_reduce_xor(x, nd, dims, 0);
        /* the init value joins the fold, as XLA's reduce starts from it */
        res[0] = comb(r, IN(1));
        return 0;
    }
    /* each operand by its own combiner: reduce((x, y), (0, 1), (add, mul)) */
    int independent = k > 1 && k <= 16;
    bin_fn combs[16];
    for (int j = 0; independent && j < k; j++) independent = (combs[j] = combiner_fn(pair_combiner(b, j, k))) != NULL;
    if (independent) {
        for (int j = 0; j < k; j++) {
            cj_val x = IN(j), r;
            if (combs[j] == cj_add) r = cj_sum(x, nd, dims, 0);
            else if (combs[j] == cj_mul) r = cj_prod(x, nd, dims, 0);
            else if (combs[j] == cj_max) r = cj_reduce_max(x, nd, dims, 0);
            else if (combs[j] == cj_min) r = cj_reduce_min(x, nd, dims, 0);
            else if (combs[j] == cj_and) r = cj_reduce_and(x, nd, dims, 0);
            else if (combs[j] == cj_or) r = cj_reduce_or(x, nd, dims, 0);
            else r = cj_reduce_xor(x, nd, dims, 0);
            res[j] = combs[j](r, IN(k + j));
        }
        return 0;
    }
    char w[16];
    if (k == 2 && nd == 1 && region_direction(b, w, sizeof w) == 0) {
        int max = !strcmp(w, "GT") || !strcmp(w, "GE");
        int min = !strcmp(w, "LT") || !strcmp(w, "LE");
        if (max || min) {
            /* JAX's argmax / argmin: (values, iota) pairs */
            cj_val x = IN(0);
            res[0] = max ? cj_reduce_max(x, 1, dims, 0) : cj_reduce_min(x, 1, dims, 0);
            res[1] = cj_astype(max ? cj_argmax(x, dims[0], 0) : cj_argmin(x, dims[0], 0), rtype(op, 1)->dt);
            return 0;
        }
    }
    return imp_error(E, op, "a reduce of %d operands with this region is not supported", k);
}

static int while_op(imp_env *E, const hlo_op *op, cj_val *res) {
    if (op->n_regions != 2) return imp_error(E, op, "expected cond and body regions");
    int n = op->n_operands;
    if (n < 1 || n > 64) return imp_error(E, op, "%d carries (1..64)", n);
    region_fn rc = {E, &op->regions[0], 1}, rb = {E, &op->regions[1], n};
    cj_func *c = cj_func_new(E->ctx, "while_cond", run_region, n, 1, &rc);
    cj_func *b = cj_func_new(E->ctx, "while_body", run_region, n, n, &rb);
    cj_val init[64];
    for (int i = 0; i < n; i++) init[i] = IN(i);
    if (c && b) cj_while_loop(c, b, n, init, res);
    cj_func_free(c), cj_func_free(b);
    return cj_error(E->ctx) ? -1 : 0;
}

static int case_op(imp_env *E, const hlo_op *op, cj_val *res, int is_if) {
    int nb = op->n_regions;
    if (nb < 1 || op->n_results < 1) return imp_error(E, op, "needs branches and results");
    region_fn rf[16];
    cj_func *br[16];
    for (int i = 0; i < nb; i++) {
        rf[i] = (region_fn){E, &op->regions[i], op->n_results};
        br[i] = cj_func_new(E->ctx, "branch", run_region, 0, op->n_results, &rf[i]);
    }
    if (is_if) {
        if (nb != 2) return imp_error(E, op, "expected two regions");
        if (br[0] && br[1]) cj_cond(IN(0), br[0], br[1], 0, NULL, res);
    } else {
        /* an index outside [0, n) runs the last branch (cj_switch clamps) */
        cj_val idx = IN(0);
        cj_val last = cj_full(E->ctx, nb - 1, cj_val_dtype(idx), 0, NULL);
        cj_val out_of_range = cj_or(cj_lt(idx, cj_zeros_like(idx)), cj_gt(idx, last));
        idx = cj_where(out_of_range, last, idx);
        cj_switch(idx, nb, br, 0, NULL, res);
    }
    for (int i = 0; i < nb; i++) cj_func_free(br[i]);
    return cj_error(E->ctx) ? -1 : 0;
}

/* starts clamped below at 0, as StableHLO (cjax counts negatives from the end) */
static void clamp_starts(const hlo_op *op, imp_env *E, int first, int n, cj_val *starts) {
    for (int i = 0; i < n; i++) {
        cj_val s = IN(first + i);
        starts[i] = cj_max(s, cj_zeros_like(s));
    }
}

static int dot_general(imp_env *E, const hlo_op *op, cj_val *res) {
    const hlo_attr *d = hlo_op_attr(op, "dot_dimension_numbers");
    int64_t lb[CJ_MAX_RANK], rb[CJ_MAX_RANK], lc[CJ_MAX_RANK], rc[CJ_MAX_RANK];
    int nlb = hlo_opaque_ints(d, "lhs_batching_dimensions", lb, CJ_MAX_RANK);
    int nrb = hlo_opaque_ints(d, "rhs_batching_dimensions", rb, CJ_MAX_RANK);
    int nlc = hlo_opaque_ints(d, "lhs_contracting_dimensions", lc, CJ_MAX_RANK);
    int nrc = hlo_opaque_ints(d, "rhs_contracting_dimensions", rc, CJ_MAX_RANK);
    if (!d || nlb < 0 || nrb < 0 || nlc < 0 || nrc < 0 || nlb != nrb || nlc != nrc)
        return imp_error(E, op, "bad dot_dimension_numbers");
    cj_dtype out = rtype(op, 0)->dt;
    res[0] = out == cj_val_dtype(IN(0)) ? cj_dot_general(IN(0), IN(1), nlc, lc, rc, nlb, lb, rb)
                                        : cj_dot_general_preferred(IN(0), IN(1), nlc, lc, rc, nlb, lb, rb, out);
    return 0;
}

static int axis_list(const hlo_attr *a, const char *key, cj_axis_list *l) {
    int n = hlo_opaque_ints(a, key, l->v, CJ_MAX_RANK);
    if (n < 0) return -1;
    l->n = n;
    return 0;
}

static int gather(imp_env *E, const hlo_op *op, cj_val *res) {
    const hlo_attr *a = hlo_op_attr(op, "dimension_numbers");
    cj_gather_dnums g;
    memset(&g, 0, sizeof g);
    int64_t ivd = 0;
    if (!a || axis_list(a, "offset_dims", &g.offset_dims) || axis_list(a, "collapsed_slice_dims", &g.collapsed_slice_dims) ||
        axis_list(a, "start_index_map", &g.start_index_map) || axis_list(a, "operand_batching_dims", &g.operand_batching_dims) ||
        axis_list(a, "start_indices_batching_dims", &g.start_indices_batching_dims) ||
        hlo_opaque_ints(a, "index_vector_dim", &ivd, 1) < 0)
        return imp_error(E, op, "bad dimension_numbers");
    g.has_index_vector_dim = 1, g.index_vector_dim = ivd;
    int64_t sizes[CJ_MAX_RANK];
    if (ints_attr(E, op, "slice_sizes", sizes, CJ_MAX_RANK, 1) < 0) return -1;
    /* XLA's gather clamps starts so each slice fits */
    res[0] = cj_gather(IN(0), IN(1), &g, sizes, CJ_INDEX_CLIP, NULL);
    return 0;
}

static int scatter(imp_env *E, const hlo_op *op, cj_val *res) {
    int k = (op->n_operands - 1) / 2;
    if (op->n_operands != 2 * k + 1 || k < 1 || k > 16 || op->n_regions != 1)
        return imp_error(E, op, "%d operands (inputs, indices, updates)", op->n_operands);
    const hlo_attr *a = hlo_op_attr(op, "scatter_dimension_numbers");
    cj_scatter_dnums s;
    memset(&s, 0, sizeof s);
    int64_t ivd = 0;
    if (!a || axis_list(a, "update_window_dims", &s.update_window_dims) ||
        axis_list(a, "inserted_window_dims", &s.inserted_window_dims) ||
        axis_list(a, "scatter_dims_to_operand_dims", &s.scatter_dims_to_operand_dims) ||
        axis_list(a, "input_batching_dims", &s.operand_batching_dims) ||
        axis_list(a, "scatter_indices_batching_dims", &s.scatter_indices_batching_dims) ||
        hlo_opaque_ints(a, "index_vector_dim", &ivd, 1) < 0)
        return imp_error(E, op, "bad scatter_dimension_numbers");
    s.has_index_vector_dim = 1, s.index_vector_dim = ivd;
    const hlo_block *b = &op->regions[0];
    cj_scatter_kind kinds[16];
    /* each input by its own update op (several inputs scatter independently) */
    for (int j = 0; j < k; j++) {
        const char *c = pair_combiner(b, j, k);
        if (c && !strcmp(c, "stablehlo.add")) kinds[j] = CJ_SCATTER_ADD;
        else if (c && !strcmp(c, "stablehlo.multiply")) kinds[j] = CJ_SCATTER_MUL;
        else if (c && !strcmp(c, "stablehlo.maximum")) kinds[j] = CJ_SCATTER_MAX;
        else if (c && !strcmp(c, "stablehlo.minimum")) kinds[j] = CJ_SCATTER_MIN;
        else if (c && !strcmp(c, "set")) kinds[j] = CJ_SCATTER_SET;
        else return imp_error(E, op, "the region's result %d is not add/multiply/maximum/minimum or a set of input %d", j, j);
    }
    /* XLA's scatter drops updates whose window does not fit */
    for (int j = 0; j < k; j++) res[j] = cj_scatter(IN(j), IN(k), IN(k + 1 + j), &s, kinds[j], CJ_INDEX_FILL_OR_DROP);
    return 0;
}

static int sort(imp_env *E, const hlo_op *op, cj_val *res) {
    int64_t dim = -1;
    if (int_attr(op, "dimension", &dim)) return imp_error(E, op, "missing dimension");
    int m = op->n_operands;
    if (m < 1 || m > 6) return imp_error(E, op, "%d operands (1..6)", m);
    /* the order the comparator computes (JAX's first canonicalises -0.0
     * and NaN, which cjax's sort does): the ascending lexicographic order of
     * the first num_keys operands is what cj_sort_multi sorts by */
    int num_keys = 0;
    if (op->n_regions != 1 || hlo_comparator_keys(E->ctx->mem, &op->regions[0], m, &num_keys))
        return imp_error(E, op, "the comparator is not an ascending lexicographic order of leading operands");
    int stable = 0;
    const hlo_attr *st = hlo_op_attr(op, "is_stable");
    if (st && st->kind == HA_BOOL) stable = (int)st->i;
    cj_val ins[6];
    for (int i = 0; i < m; i++) ins[i] = IN(i);
    cj_sort_multi(m, ins, dim, num_keys, stable, res);
    return 0;
}

static int pairs_attr(imp_env *E, const hlo_op *op, const char *name, int64_t *out, int n) {
    const hlo_attr *a = hlo_op_attr(op, name);
    if (!a) {
        memset(out, 0, (size_t)(2 * n) * sizeof *out);
        return 0;
    }
    if (a->kind != HA_DENSE || a->raw || !(a->n == 2 * n || (a->splat && a->n == 1)))
        return imp_error(E, op, "%s is not %d (lo, hi) pairs", name, n);
    for (int i = 0; i < 2 * n; i++) out[i] = (int64_t)a->elems[a->splat ? 0 : i].bits;
    return 0;
}

static int convolution(imp_env *E, const hlo_op *op, cj_val *res) {
    const hlo_attr *dn = hlo_op_attr(op, "dimension_numbers");
    if (!dn || dn->kind != HA_OPAQUE || !dn->s) return imp_error(E, op, "missing dimension_numbers");
    int rank = cj_val_rank(IN(0));
    if (rank < 3 || rank > 6) return imp_error(E, op, "operands of rank %d", rank);
    int ns = rank - 2;
    static const char spatial[] = "HWDXYZ";
    char spec[3][8];
    int order[3][6], k = 0;
    const char *p = dn->s, *e = dn->s + dn->slen;
    for (int g = 0; g < 3; g++) {
        while (p < e && *p != '[') p++;
        if (p == e) return imp_error(E, op, "bad dimension_numbers");
        p++;
        int n = 0;
        while (p < e && *p != ']') {
            char c = *p++;
            if (c == ' ' || c == ',') continue;
            if (n >= rank) return imp_error(E, op, "bad dimension_numbers");
            if (c >= '0' && c <= '9') {
                if (c - '0' >= ns) return imp_error(E, op, "bad spatial dimension");
                order[g][k = c - '0'] = n;
                spec[g][n++] = spatial[c - '0'];
            } else if (c == 'b') spec[g][n++] = 'N';
            else if (c == 'f') spec[g][n++] = g == 1 ? '?' : 'C';
            else if (c == 'i') spec[g][n++] = 'I';
            else if (c == 'o') spec[g][n++] = 'O';
            else return imp_error(E, op, "bad dimension_numbers");
        }
        if (n != rank) return imp_error(E, op, "bad dimension_numbers");
        spec[g][n] = 0;
    }
    (void)k;
    /* cjax takes its per-spatial lists in the kernel spec's order */
    int rorder[6], nr = 0;
    for (int i = 0; i < rank; i++)
        for (int s = 0; s < ns; s++)
            if (order[1][s] == i) rorder[nr++] = s;
    int64_t st[6], ld[6], rd[6], pad[12], tmp[12];
    int nrev = ints_attr(E, op, "window_reversal", tmp, ns, 0);
    for (int i = 0; i < nrev; i++)
        if (tmp[i]) return imp_error(E, op, "window_reversal is not supported");
    for (int i = 0; i < ns; i++) st[i] = ld[i] = rd[i] = 1;
    if (ints_attr(E, op, "window_strides", tmp, ns, 0) < 0) return -1;
    if (hlo_op_attr(op, "window_strides")) hlo_copy(st, tmp, (size_t)ns * sizeof *st);
    if (ints_attr(E, op, "lhs_dilation", tmp, ns, 0) < 0) return -1;
    if (hlo_op_attr(op, "lhs_dilation")) hlo_copy(ld, tmp, (size_t)ns * sizeof *ld);
    if (ints_attr(E, op, "rhs_dilation", tmp, ns, 0) < 0) return -1;
    if (hlo_op_attr(op, "rhs_dilation")) hlo_copy(rd, tmp, (size_t)ns * sizeof *rd);
    if (pairs_attr(E, op, "padding", pad, ns)) return -1;
    int64_t pst[6], pld[6], prd[6], ppad[12];
    for (int i = 0; i < ns; i++) {
        int s = rorder[i];
        pst[i] = st[s], pld[i] = ld[s], prd[i] = rd[s], ppad[2 * i] = pad[2 * s], ppad[2 * i + 1] = pad[2 * s + 1];
    }
    cj_conv_opts o;
    memset(&o, 0, sizeof o);
    o.window_strides = pst, o.padding = ppad, o.lhs_dilation = pld, o.rhs_dilation = prd;
    o.lhs_spec = spec[0], o.rhs_spec = spec[1], o.out_spec = spec[2];
    int64_t fg = 1, bg = 1;
    int_attr(op, "feature_group_count", &fg);
    int_attr(op, "batch_group_count", &bg);
    o.feature_group_count = fg, o.batch_group_count = bg;
    res[0] = cj_conv_general_dilated(IN(0), IN(1), &o);
    return 0;
}

static int reduce_window(imp_env *E, const hlo_op *op, cj_val *res) {
    if (op->n_operands != 2 || op->n_regions != 1) return imp_error(E, op, "only one operand is supported");
    const char *c = region_combiner(&op->regions[0]);
    cj_window_reduction kind;
    if (c && !strcmp(c, "stablehlo.add")) kind = CJ_WINDOW_SUM;
    else if (c && !strcmp(c, "stablehlo.maximum")) kind = CJ_WINDOW_MAX;
    else if (c && !strcmp(c, "stablehlo.minimum")) kind = CJ_WINDOW_MIN;
    else return imp_error(E, op, "the region is not add, maximum or minimum");
    int r = cj_val_rank(IN(0));
    if (r < 0 || r > CJ_MAX_RANK) return -1;
    int64_t wd[CJ_MAX_RANK], ws[CJ_MAX_RANK], bd[CJ_MAX_RANK], wdl[CJ_MAX_RANK], pad[2 * CJ_MAX_RANK];
    for (int i = 0; i < r; i++) ws[i] = bd[i] = wdl[i] = 1;
    if (ints_attr(E, op, "window_dimensions", wd, r, 1) != r) return imp_error(E, op, "bad window_dimensions");
    if (ints_attr(E, op, "window_strides", ws, r, 0) < 0 || ints_attr(E, op, "base_dilations", bd, r, 0) < 0 ||
        ints_attr(E, op, "window_dilations", wdl, r, 0) < 0 || pairs_attr(E, op, "padding", pad, r))
        return -1;
    cj_window_opts o = {ws, pad, CJ_PAD_VALID, bd, wdl};
    cj_val y = cj_reduce_window(IN(0), kind, wd, &o);
    /* the init value joins every window's fold, as XLA's */
    res[0] = kind == CJ_WINDOW_SUM ? cj_add(y, IN(1)) : kind == CJ_WINDOW_MAX ? cj_max(y, IN(1)) : cj_min(y, IN(1));
    return 0;
}

/* JAX's CPU LAPACK targets (jax.lax.linalg on CPU). */
static int custom_call(imp_env *E, const hlo_op *op, cj_val *res) {
    const hlo_attr *t = hlo_op_attr(op, "call_target_name");
    if (!t || t->kind != HA_STR) return imp_error(E, op, "missing call_target_name");
    const char *n = t->s;
    if (!strcmp(n, "lapack_sgetrf_ffi") || !strcmp(n, "lapack_dgetrf_ffi")) {
        cj_val lu[3];
        if (cj_linalg_lu(IN(0), lu) != 0) return -1;
        res[0] = lu[0];
        res[1] = cj_add(lu[1], cj_ones_like(lu[1])); /* LAPACK's pivots count from 1 */
        const hlo_type *it = rtype(op, 2);
        res[2] = cj_zeros(E->ctx, it->dt, it->rank, it->dims);
        return 0;
    }
    if (!strcmp(n, "lapack_strsm_ffi") || !strcmp(n, "lapack_dtrsm_ffi")) {
        const hlo_attr *cfg = hlo_op_attr(op, "mhlo.backend_config");
        int64_t side = 'L', uplo = 'L', trans = 'N', diag = 'N';
        for (int i = 0; cfg && cfg->kind == HA_DICT && i < cfg->n; i++) {
            const hlo_named *e = &cfg->entries[i];
            if (e->val->kind != HA_INT) continue;
            if (!strcmp(e->name, "side")) side = e->val->i;
            else if (!strcmp(e->name, "uplo")) uplo = e->val->i;
            else if (!strcmp(e->name, "trans_x")) trans = e->val->i;
            else if (!strcmp(e->name, "diag")) diag = e->val->i;
        }
        if (side != 'L' || (trans != 'N' && trans != 'T'))
            return imp_error(E, op, "%s with side %c, trans %c is not supported", n, (char)side, (char)trans);
        res[0] = cj_linalg_triangular_solve(IN(0), IN(1), uplo == 'L', trans == 'T', diag == 'U');
        return 0;
    }
    if (!strcmp(n, "lapack_spotrf_ffi") || !strcmp(n, "lapack_dpotrf_ffi")) {
        res[0] = cj_linalg_cholesky(IN(0));
        const hlo_type *it = rtype(op, 1);
        res[1] = cj_zeros(E->ctx, it->dt, it->rank, it->dims);
        return 0;
    }
    if (!strcmp(n, "lapack_ssyevd_ffi") || !strcmp(n, "lapack_dsyevd_ffi")) {
        /* (v, w ascending, info); LAPACK reads only the uplo triangle, so
         * the matrix is rebuilt from it */
        const hlo_attr *cfg = hlo_op_attr(op, "mhlo.backend_config");
        int64_t uplo = 'L';
        for (int i = 0; cfg && cfg->kind == HA_DICT && i < cfg->n; i++)
            if (!strcmp(cfg->entries[i].name, "uplo") && cfg->entries[i].val->kind == HA_INT) uplo = cfg->entries[i].val->i;
        if (op->n_results != 3) return imp_error(E, op, "%s with %d results (3: v, w, info)", n, op->n_results);
        cj_val a = IN(0), r = cj_val_rank(a) >= 2 ? cj_swapaxes(a, -1, -2) : a;
        cj_val sym = uplo == 'U' ? cj_add(cj_triu(a, 0), cj_tril(r, -1)) : cj_add(cj_tril(a, 0), cj_triu(r, 1));
        if (cj_linalg_eigh(sym, &res[0], &res[1]) != 0) return -1;
        const hlo_type *it = rtype(op, 2);
        res[2] = cj_zeros(E->ctx, it->dt, it->rank, it->dims);
        return 0;
    }
    return imp_error(E, op, "custom_call target '%s' is not supported", n);
}

int imp_run_op(imp_env *E, const hlo_op *op, cj_val *res) {
    const char *nm = op->name;
    for (size_t i = 0; i < sizeof unary / sizeof unary[0]; i++)
        if (!strcmp(nm, unary[i].name)) {
            if (op->n_operands != 1) break;
            res[0] = unary[i].f(IN(0));
            return 0;
        }
    for (size_t i = 0; i < sizeof binary / sizeof binary[0]; i++)
        if (!strcmp(nm, binary[i].name)) {
            if (op->n_operands != 2) break;
            cj_val x[3];
            elementwise_operands(E, op, x);
            res[0] = binary[i].f(x[0], x[1]);
            return 0;
        }
    const hlo_type *t = op->n_results ? rtype(op, 0) : NULL;
    if (t && (t->kind != HT_TENSOR || !t->known_dt)) return imp_error(E, op, "a result type cjax does not have");
    int64_t a[CJ_MAX_RANK], b[CJ_MAX_RANK], c[CJ_MAX_RANK];
    if (is(op, "stablehlo.constant")) res[0] = constant(E, op);
    else if (is(op, "stablehlo.divide") || is(op, "stablehlo.compare") || is(op, "stablehlo.select")) {
        if (op->n_operands != (is(op, "stablehlo.select") ? 3 : 2)) return imp_error(E, op, "%d operands", op->n_operands);
        cj_val x[3];
        elementwise_operands(E, op, x);
        res[0] = is(op, "stablehlo.divide")    ? divide(x[0], x[1])
                 : is(op, "stablehlo.compare") ? compare(E, op, x[0], x[1])
                                               : cj_where(x[0], x[1], x[2]);
    } else if (is(op, "stablehlo.clamp")) res[0] = cj_clamp(IN(0), IN(1), IN(2));
    else if (is(op, "stablehlo.convert")) res[0] = cj_astype(IN(0), t->dt);
    else if (is(op, "stablehlo.bitcast_convert")) res[0] = cj_bitcast_convert_type(IN(0), t->dt);
    else if (is(op, "stablehlo.reshape")) res[0] = cj_reshape(IN(0), t->rank, t->dims);
    else if (is(op, "stablehlo.broadcast_in_dim")) {
        int n = ints_attr(E, op, "broadcast_dimensions", a, CJ_MAX_RANK, 1);
        if (n < 0) return -1;
        res[0] = cj_broadcast_in_dim(IN(0), t->rank, t->dims, a);
        /* a scalar's broadcast (or a broadcast of one): elementwise_operands' */
        cj_val from = E->s[op->operands[0]].ctx ? E->s[op->operands[0]] : IN(0);
        E->s[op->first_result] = cj_val_rank(from) == 0 ? from : (cj_val){0};
    } else if (is(op, "stablehlo.transpose")) {
        if (ints_attr(E, op, "permutation", a, CJ_MAX_RANK, 1) < 0) return -1;
        res[0] = cj_transpose(IN(0), a);
    } else if (is(op, "stablehlo.iota")) {
        int64_t d;
        if (int_attr(op, "iota_dimension", &d)) return imp_error(E, op, "missing iota_dimension");
        res[0] = cj_iota(E->ctx, t->dt, t->rank, t->dims, d);
    } else if (is(op, "stablehlo.slice")) {
        if (ints_attr(E, op, "start_indices", a, CJ_MAX_RANK, 1) < 0 || ints_attr(E, op, "limit_indices", b, CJ_MAX_RANK, 1) < 0)
            return -1;
        int ns = ints_attr(E, op, "strides", c, CJ_MAX_RANK, 0);
        if (ns < 0) return -1;
        res[0] = cj_slice(IN(0), a, b, ns ? c : NULL);
    } else if (is(op, "stablehlo.concatenate")) {
        int64_t d;
        if (int_attr(op, "dimension", &d)) return imp_error(E, op, "missing dimension");
        cj_val *xs = operand_vals(E, op);
        if (!xs) return -1;
        res[0] = cj_concatenate(op->n_operands, xs, d);
        rt_free(E->ctx->mem, xs, (size_t)(op->n_operands ? op->n_operands : 1) * sizeof *xs);
    } else if (is(op, "stablehlo.pad")) {
        if (ints_attr(E, op, "edge_padding_low", a, CJ_MAX_RANK, 1) < 0 ||
            ints_attr(E, op, "edge_padding_high", b, CJ_MAX_RANK, 1) < 0 ||
            ints_attr(E, op, "interior_padding", c, CJ_MAX_RANK, 1) < 0)
            return -1;
        res[0] = cj_pad(IN(0), IN(1), a, b, c);
    } else if (is(op, "stablehlo.reverse")) {
        int n = ints_attr(E, op, "dimensions", a, CJ_MAX_RANK, 1);
        if (n < 0) return -1;
        res[0] = cj_rev(IN(0), n, a);
    } else if (is(op, "stablehlo.dynamic_slice")) {
        int r = op->n_operands - 1;
        if (r < 0 || r > CJ_MAX_RANK || ints_attr(E, op, "slice_sizes", a, CJ_MAX_RANK, 1) != r)
            return imp_error(E, op, "bad operands or slice_sizes");
        cj_val st[CJ_MAX_RANK];
        clamp_starts(op, E, 1, r, st);
        res[0] = cj_dynamic_slice(IN(0), st, a);
    } else if (is(op, "stablehlo.dynamic_update_slice")) {
        int r = op->n_operands - 2;
        if (r < 0 || r > CJ_MAX_RANK) return imp_error(E, op, "bad operands");
        cj_val st[CJ_MAX_RANK];
        clamp_starts(op, E, 2, r, st);
        res[0] = cj_dynamic_update_slice(IN(0), IN(1), st);
    } else if (is(op, "stablehlo.dot_general")) return dot_general(E, op, res);
    else if (is(op, "stablehlo.dot")) {
        int64_t l = cj_val_rank(IN(0)) - 1, r0 = 0;
        res[0] = cj_dot_general(IN(0), IN(1), 1, &l, &r0, 0, NULL, NULL);
    } else if (is(op, "stablehlo.reduce")) return reduce(E, op, res);
    else if (is(op, "stablehlo.while")) return while_op(E, op, res);
    else if (is(op, "stablehlo.case")) return case_op(E, op, res, 0);
    else if (is(op, "stablehlo.if")) return case_op(E, op, res, 1);
    else if (is(op, "stablehlo.optimization_barrier")) {
        /* an identity to cjax's compiler, which has no CSE across it to stop */
        for (int i = 0; i < op->n_operands; i++) res[i] = IN(i);
    } else if (is(op, "func.call")) {
        const hlo_attr *callee = hlo_op_attr(op, "callee");
        if (!callee || callee->kind != HA_SYM) return imp_error(E, op, "missing callee");
        const hlo_func *f = hlo_find_func(E->m, callee->s, callee->slen);
        if (!f) return imp_error(E, op, "no func.func @%s", callee->s);
        if (f->n_args != op->n_operands || f->n_results != op->n_results)
            return imp_error(E, op, "@%s takes %d arguments and returns %d", f->name, f->n_args, f->n_results);
        cj_val *args = operand_vals(E, op);
        if (!args) return -1;
        int rc = imp_call_func(E, f, args, res);
        rt_free(E->ctx->mem, args, (size_t)(op->n_operands ? op->n_operands : 1) * sizeof *args);
        return rc;
    } else if (is(op, "stablehlo.composite")) {
        const hlo_attr *d = hlo_op_attr(op, "decomposition");
        if (!d || d->kind != HA_SYM) return imp_error(E, op, "missing decomposition");
        const hlo_func *f = hlo_find_func(E->m, d->s, d->slen);
        if (!f || f->n_args != op->n_operands || f->n_results != op->n_results) return imp_error(E, op, "bad decomposition");
        cj_val *args = operand_vals(E, op);
        if (!args) return -1;
        int rc = imp_call_func(E, f, args, res);
        rt_free(E->ctx->mem, args, (size_t)(op->n_operands ? op->n_operands : 1) * sizeof *args);
        return rc;
    } else if (is(op, "stablehlo.gather")) return gather(E, op, res);
    else if (is(op, "stablehlo.scatter")) return scatter(E, op, res);
    else if (is(op, "stablehlo.sort")) return sort(E, op, res);
    else if (is(op, "stablehlo.convolution")) return convolution(E, op, res);
    else if (is(op, "stablehlo.reduce_window")) return reduce_window(E, op, res);
    else if (is(op, "stablehlo.custom_call")) return custom_call(E, op, res);
    else return imp_error(E, op, "op not supported by cjax's importer");
    return 0;
}
