/* hlo_pretty.c — the pretty (custom assembly) form of the ops the
 * importer reads (import layer; called by hlo_parse.c's op reader).
 *
 * The pretty form gives each op its own syntax. Read here: module and
 * func.func headers (public/private, argument and result attributes,
 * `attributes {...}`), return / func.return, call / func.call, and the
 * StableHLO ops whose pretty form is the operands and a type — every
 * elementwise op, `op %a, %b : tensor<..>` or `: (t, t) -> t` —,
 * `stablehlo.constant dense<...> : t`, the ops of keyword items
 * (broadcast_in_dim, transpose, dot_general, compare, iota, concatenate,
 * reverse, dynamic_slice, pad) and `reduce(...) applies OP across dimensions`;
 * hlo_pretty_struct.c reads the ops of a syntax of their own (slice,
 * while, convolution, custom_call, composite, reduce's reducer). Any other op in the pretty form is an
 * error naming it, its line and column, and saying that the generic form
 * (print_generic_op_form=True) is read in full. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/hlo_parse_impl.h"

static int name_is(const hlo_tok *t, const char *a, const char *b) {
    return hlo_tok_is(t, a) || (b && hlo_tok_is(t, b));
}

static int pretty_func(hp *P, hlo_op *op, int depth) {
    op->name = "func.func";
    hp_next(P);
    if (hp_is(P, "public") || hp_is(P, "private") || hp_is(P, "nested")) hp_next(P);
    if (P->cur.kind != TK_AT) return hp_fail(P, P->cur.line, P->cur.col, "expected @name after func.func");
    hlo_attr *name = hp_text_attr(P, P->cur, HA_STR), *ft = hp_alloc(P, sizeof *ft);
    hp_next(P);
    if (!name || !ft) return -1;
    int saved_floor = P->scope_floor, saved_next = P->next_id, saved_names = P->n_names;
    P->scope_floor = P->n_names, P->next_id = 0;
    hlo_block blk;
    memset(&blk, 0, sizeof blk);
    hlo_tok args[256];
    hlo_type types[256];
    int n = 0;
    if (hp_expect(P, "(", "before the arguments")) return -1;
    if (!hp_accept(P, ")")) {
        do {
            if (P->cur.kind != TK_PCT) return hp_fail(P, P->cur.line, P->cur.col, "expected an argument");
            if (n == 256) return hp_fail(P, P->cur.line, P->cur.col, "more than 256 arguments");
            args[n] = P->cur;
            hp_next(P);
            if (hp_expect(P, ":", "after an argument") || hp_type(P, &types[n])) return -1;
            if (hp_is(P, "{") && !hp_attr(P)) return -1;
            if (hp_skip_loc(P)) return -1;
            n++;
        } while (hp_accept(P, ","));
        if (hp_expect(P, ")", "closing the arguments")) return -1;
    }
    hlo_type *outs = NULL;
    int no = 0;
    if (P->cur.kind == TK_ARROW) {
        hp_next(P);
        if (hp_type_list(P, &outs, &no)) return -1; /* result attributes only inside ( ) */
    }
    if (hp_accept(P, "attributes")) {
        hlo_attr *d = hp_attr(P);
        if (!d) return -1;
    }
    blk.n_args = n;
    blk.arg_ids = hp_alloc(P, (size_t)(n ? n : 1) * sizeof *blk.arg_ids);
    blk.arg_types = hp_alloc(P, (size_t)(n ? n : 1) * sizeof *blk.arg_types);
    if (!blk.arg_ids || !blk.arg_types) return -1;
    for (int i = 0; i < n; i++) {
        int id = hp_define(P, &args[i], 1);
        if (id < 0) return -1;
        blk.arg_ids[i] = id, blk.arg_types[i] = types[i];
    }
    if (hp_expect(P, "{", "opening the function body") || hp_block_ops(P, &blk, depth + 1) ||
        hp_expect(P, "}", "closing the function body"))
        return -1;
    op->n_values = P->next_id;
    P->scope_floor = saved_floor, P->next_id = saved_next, P->n_names = saved_names;
    /* the same attributes the generic form has */
    ft->kind = HA_TYPE, ft->n = 2;
    ft->items = hp_alloc(P, 2 * sizeof *ft->items);
    if (!ft->items) return -1;
    for (int s = 0; s < 2; s++) {
        hlo_attr *l = hp_alloc(P, sizeof *l);
        if (!l) return -1;
        int cnt = s ? no : n;
        l->kind = HA_TYPE, l->n = cnt;
        l->items = hp_alloc(P, (size_t)(cnt ? cnt : 1) * sizeof *l->items);
        if (!l->items) return -1;
        for (int k = 0; k < cnt; k++) {
            hlo_attr *ta = hp_alloc(P, sizeof *ta);
            if (!ta) return -1;
            ta->kind = HA_TYPE, ta->has_type = 1, ta->type = s ? outs[k] : types[k];
            l->items[k] = ta;
        }
        ft->items[s] = l;
    }
    op->attrs = hp_alloc(P, 2 * sizeof *op->attrs);
    if (!op->attrs) return -1;
    op->attrs[0].name = "sym_name", op->attrs[0].val = name;
    op->attrs[1].name = "function_type", op->attrs[1].val = ft;
    op->n_attrs = 2;
    op->regions = hp_alloc(P, sizeof *op->regions);
    if (!op->regions) return -1;
    op->regions[0] = blk;
    op->n_regions = 1;
    return 0;
}

/* ": t" (every operand and the result of type t) or ": (ts) -> ts". */
int hp_trailing_types(hp *P, hlo_op *op) {
    if (hp_expect(P, ":", "before the op's type")) return -1;
    if (hp_is(P, "(")) {
        int nin;
        if (hp_type_list(P, &op->opd_types, &nin)) return -1;
        if (P->cur.kind != TK_ARROW) return hp_fail(P, P->cur.line, P->cur.col, "expected '->'");
        hp_next(P);
        if (hp_type_list(P, &op->res_types, &op->n_results)) return -1;
        if (nin != op->n_operands)
            return hp_fail(P, op->line, op->col, "%s: %d operand types for %d operands", op->name, nin, op->n_operands);
        return 0;
    }
    hlo_type ts[64];
    int nt = 0;
    do {
        if (nt == 64) return hp_fail(P, P->cur.line, P->cur.col, "%s: more than 64 types", op->name);
        if (hp_type(P, &ts[nt++])) return -1;
    } while (hp_accept(P, ","));
    int n = op->n_operands;
    if (nt == 1 && P->cur.kind == TK_ARROW) { /* chlo's ": t -> t" */
        hp_next(P);
        if (hp_type(P, &ts[1])) return -1;
        op->opd_types = hp_alloc(P, (size_t)(n + 1) * sizeof *op->opd_types);
        op->res_types = hp_alloc(P, sizeof *op->res_types);
        if (!op->opd_types || !op->res_types) return -1;
        for (int i = 0; i < n; i++) op->opd_types[i] = ts[0];
        op->res_types[0] = ts[1], op->n_results = 1;
        return 0;
    }
    op->opd_types = hp_alloc(P, (size_t)(n + 1) * sizeof *op->opd_types);
    op->res_types = hp_alloc(P, (size_t)(nt + 1) * sizeof *op->res_types);
    if (!op->opd_types || !op->res_types) return -1;
    if (strcmp(op->name, "stablehlo.optimization_barrier") == 0) {
        /* ": t1, t2, ...": each operand's type is its result's */
        if (nt != n) return hp_fail(P, op->line, op->col, "%s: %d types for %d operands", op->name, nt, n);
        hlo_copy(op->opd_types, ts, (size_t)n * sizeof *ts);
        hlo_copy(op->res_types, ts, (size_t)n * sizeof *ts);
        op->n_results = n;
        return 0;
    }
    /* ": t", or select's ": predicate type, value type" */
    if (nt > 2) return hp_fail(P, op->line, op->col, "%s: %d types after ':'", op->name, nt);
    for (int i = 0; i < n; i++) op->opd_types[i] = ts[nt - 1];
    if (nt == 2 && n) op->opd_types[0] = ts[0];
    op->res_types[0] = ts[nt - 1];
    op->n_results = 1;
    return 0;
}

/* The StableHLO ops whose pretty form is "name %operands : types". */
static const char *const plain_ops[] = {
    "abs", "add", "and", "atan2", "cbrt", "ceil", "convert", "cosine", "count_leading_zeros", "divide",
    "exponential", "exponential_minus_one", "floor", "is_finite", "log", "log_plus_one", "logistic", "maximum",
    "minimum", "multiply", "negate", "not", "or", "popcnt", "power", "remainder", "round_nearest_afz",
    "round_nearest_even", "rsqrt", "select", "shift_left", "shift_right_arithmetic", "shift_right_logical", "sign",
    "sine", "sqrt", "subtract", "tan", "tanh", "xor", "clamp", "reshape", "optimization_barrier", "bitcast_convert",
    "erf_inv", "erf", "lgamma", "digamma", "dynamic_update_slice", "square", "erfc", "asin", "acos", "atan", "sinh",
    "cosh", "asinh", "acosh", "atanh", "real", "imag", "complex", NULL};

/* An attribute made here for an op read in the pretty form. */
int hp_add_attr(hp *P, hlo_op *op, const char *name, hlo_attr *v) {
    hlo_named *all = hp_alloc(P, (size_t)(op->n_attrs + 1) * sizeof *all);
    if (!all || !v) return -1;
    if (op->n_attrs) hlo_copy(all, op->attrs, (size_t)op->n_attrs * sizeof *all);
    all[op->n_attrs].name = name, all[op->n_attrs].val = v;
    op->attrs = all;
    op->n_attrs++;
    return 0;
}

hlo_attr *hp_opaque_text(hp *P, const char *text) {
    hlo_attr *a = hp_alloc(P, sizeof *a);
    if (!a) return NULL;
    a->kind = HA_OPAQUE, a->line = P->cur.line, a->col = P->cur.col;
    a->slen = strlen(text);
    a->s = hp_strdup(P, text, a->slen);
    return a->s ? a : NULL;
}

/* [1, 2] as an array<i64> attribute */
hlo_attr *hp_int_list(hp *P, char *text, size_t size, size_t *used) {
    hlo_attr *a = hp_alloc(P, sizeof *a);
    if (!a || hp_expect(P, "[", "opening a dimension list")) return NULL;
    a->kind = HA_ARRAY;
    int64_t v[CJ_MAX_RANK * 2];
    int n = 0;
    if (used) *used += (size_t)snprintf(text + *used, size - *used, "[");
    while (!hp_is(P, "]")) {
        if (P->cur.kind != TK_NUM || n == CJ_MAX_RANK * 2)
            return hp_fail(P, P->cur.line, P->cur.col, "expected a dimension"), NULL;
        v[n] = strtoll(P->cur.p, NULL, 10);
        if (used && *used < size) *used += (size_t)snprintf(text + *used, size - *used, "%s%lld", n ? ", " : "", (long long)v[n]);
        n++;
        hp_next(P);
        if (!hp_accept(P, ",")) break;
    }
    if (hp_expect(P, "]", "closing a dimension list")) return NULL;
    if (used && *used < size) *used += (size_t)snprintf(text + *used, size - *used, "]");
    a->n = n;
    a->ints = hp_alloc(P, (size_t)(n ? n : 1) * sizeof *a->ints);
    if (!a->ints) return NULL;
    hlo_copy(a->ints, v, (size_t)n * sizeof *v);
    return a;
}

/* dynamic_slice's sizes and pad's low/high/interior: the attribute each names. */
static const char *list_key(const hlo_tok *k) {
    if (hlo_tok_is(k, "sizes")) return "slice_sizes";
    if (hlo_tok_is(k, "low")) return "edge_padding_low";
    if (hlo_tok_is(k, "high")) return "edge_padding_high";
    if (hlo_tok_is(k, "interior")) return "interior_padding";
    return NULL;
}

/* The ops whose pretty form is operands and "key = value" items: dims,
 * dim, contracting_dims = [..] x [..], batching_dims, precision, and
 * compare's direction and type words. */
static int keyword_op(hp *P, hlo_op *op, const char *base) {
    hp_next(P);
    int ops[64], n = 0;
    char dot[400];
    size_t used = 0;
    dot[0] = 0;
    for (;;) {
        if (P->cur.kind == TK_PCT) {
            if (n == 64) return hp_fail(P, P->cur.line, P->cur.col, "too many operands");
            int id = hp_lookup(P, &P->cur);
            if (id < 0) return -1;
            ops[n++] = id;
            hp_next(P);
        } else if (P->cur.kind == TK_ID) {
            hlo_tok k = P->cur;
            hp_next(P);
            if (!hp_accept(P, "=")) { /* compare's GT ... FLOAT */
                if (strcmp(base, "compare") == 0 && n == 0) {
                    char t[64];
                    snprintf(t, sizeof t, "comparison_direction %.*s", (int)(k.n > 20 ? 20 : k.n), k.p);
                    if (hp_add_attr(P, op, "comparison_direction", hp_opaque_text(P, t))) return -1;
                } else if (strcmp(base, "compare") != 0) {
                    return hp_fail(P, k.line, k.col, "unexpected '%.*s'", (int)(k.n > 40 ? 40 : k.n), k.p);
                }
            } else if (hlo_tok_is(&k, "contracting_dims") || hlo_tok_is(&k, "batching_dims")) {
                const char *side = hlo_tok_is(&k, "contracting_dims") ? "contracting" : "batching";
                used += (size_t)snprintf(dot + used, sizeof dot - used, "%slhs_%s_dimensions = ", used ? ", " : "", side);
                if (!hp_int_list(P, dot, sizeof dot, &used)) return -1;
                if (!hp_accept(P, "x")) return hp_fail(P, P->cur.line, P->cur.col, "expected 'x' between the sides");
                if (used < sizeof dot) used += (size_t)snprintf(dot + used, sizeof dot - used, ", rhs_%s_dimensions = ", side);
                if (!hp_int_list(P, dot, sizeof dot, &used)) return -1;
                if (used >= sizeof dot) return hp_fail(P, k.line, k.col, "dimension lists too long");
            } else if (list_key(&k)) {
                hlo_attr *v = hp_int_list(P, NULL, 0, NULL);
                if (!v || hp_add_attr(P, op, list_key(&k), v)) return -1;
            } else if (hlo_tok_is(&k, "dims") || hlo_tok_is(&k, "dim")) {
                const char *name = !strcmp(base, "broadcast_in_dim") ? "broadcast_dimensions"
                                   : !strcmp(base, "transpose")      ? "permutation"
                                   : !strcmp(base, "iota")           ? "iota_dimension"
                                                                     : "dimension";
                if (!strcmp(base, "reverse")) name = "dimensions";
                hlo_attr *v;
                if (hlo_tok_is(&k, "dims")) {
                    v = hp_int_list(P, NULL, 0, NULL);
                } else { /* a bare integer: "dim = 0 : tensor<...>" is the op's type after it */
                    if (P->cur.kind != TK_NUM) return hp_fail(P, P->cur.line, P->cur.col, "expected a dimension");
                    v = hp_alloc(P, sizeof *v);
                    if (!v) return -1;
                    v->kind = HA_INT, v->i = strtoll(P->cur.p, NULL, 10);
                    hp_next(P);
                }
                if (!v || hp_add_attr(P, op, name, v)) return -1;
            } else {
                hlo_attr *v = hp_attr(P); /* precision = [...], algorithm, ...: read, not used */
                if (!v) return -1;
            }
        } else {
            break;
        }
        if (!hp_accept(P, ",")) break;
    }
    if (used && hp_add_attr(P, op, "dot_dimension_numbers", hp_opaque_text(P, dot))) return -1;
    op->n_operands = n;
    op->operands = hp_alloc(P, (size_t)(n ? n : 1) * sizeof *op->operands);
    if (!op->operands) return -1;
    hlo_copy(op->operands, ops, (size_t)n * sizeof *ops);
    if (hp_is(P, "{") && !hp_attr(P)) return -1;
    return hp_trailing_types(P, op);
}

/* stablehlo.reduce(%x init: %c), (%y init: %d) ... then either
 * "applies stablehlo.add across dimensions = [1] : types" (one operand:
 * the region is made here, one op of its two arguments) or "across
 * dimensions = [1] : types reducer(%a: t, %b: t) (%c: u, %d: u) { ... }"
 * (hlo_pretty_struct.c reads the reducer). */
static int reduce_pretty(hp *P, hlo_op *op, int depth) {
    hp_next(P);
    int ops[32], n = 0;
    do {
        if (hp_expect(P, "(", "before a reduce operand")) return -1;
        if (n == 16) return hp_fail(P, P->cur.line, P->cur.col, "stablehlo.reduce: more than 16 operands");
        if (P->cur.kind != TK_PCT) return hp_fail(P, P->cur.line, P->cur.col, "stablehlo.reduce: expected an operand");
        int id = hp_lookup(P, &P->cur);
        if (id < 0) return -1;
        ops[n] = id;
        hp_next(P);
        if (hp_expect(P, "init", "in reduce's operands") || hp_expect(P, ":", "after init")) return -1;
        if (P->cur.kind != TK_PCT) return hp_fail(P, P->cur.line, P->cur.col, "expected the init value");
        if ((id = hp_lookup(P, &P->cur)) < 0) return -1;
        ops[16 + n++] = id;
        hp_next(P);
        if (hp_expect(P, ")", "after reduce's init value")) return -1;
    } while (hp_accept(P, ","));
    op->n_operands = 2 * n;
    op->operands = hp_alloc(P, (size_t)(2 * n) * sizeof *op->operands);
    if (!op->operands) return -1;
    for (int i = 0; i < n; i++) op->operands[i] = ops[i], op->operands[n + i] = ops[16 + i];
    if (!hp_accept(P, "applies")) return hp_reduce_reducer(P, op, n, depth);
    if (n != 1) return hp_fail(P, op->line, op->col, "stablehlo.reduce: 'applies' with %d operands", n);
    if (P->cur.kind != TK_ID) return hp_fail(P, P->cur.line, P->cur.col, "expected the reduction's op");
    const char *body = hp_strdup(P, P->cur.p, P->cur.n);
    hp_next(P);
    if (!body || hp_expect(P, "across", "in stablehlo.reduce") || hp_expect(P, "dimensions", "in stablehlo.reduce") ||
        hp_expect(P, "=", "after dimensions"))
        return -1;
    hlo_attr *dims = hp_int_list(P, NULL, 0, NULL);
    if (!dims || hp_add_attr(P, op, "dimensions", dims)) return -1;
    op->regions = hp_alloc(P, sizeof *op->regions);
    hlo_op *x = hp_alloc(P, sizeof *x), *ret = hp_alloc(P, sizeof *ret);
    hlo_block *b = op->regions;
    if (!b || !x || !ret) return -1;
    op->n_regions = 1;
    b->n_args = 2;
    b->arg_ids = hp_alloc(P, 2 * sizeof *b->arg_ids);
    b->ops = hp_alloc(P, 2 * sizeof *b->ops);
    x->operands = hp_alloc(P, 2 * sizeof *x->operands);
    ret->operands = hp_alloc(P, sizeof *ret->operands);
    if (!b->arg_ids || !b->ops || !x->operands || !ret->operands) return -1;
    b->arg_ids[0] = P->next_id, b->arg_ids[1] = P->next_id + 1;
    x->name = body, x->line = op->line, x->col = op->col;
    x->n_operands = 2, x->operands[0] = b->arg_ids[0], x->operands[1] = b->arg_ids[1];
    x->n_results = 1, x->first_result = P->next_id + 2;
    ret->name = "stablehlo.return", ret->n_operands = 1, ret->operands[0] = x->first_result;
    P->next_id += 3;
    b->n_ops = 2, b->ops[0] = x, b->ops[1] = ret;
    if (hp_trailing_types(P, op)) return -1;
    /* the region's types: the init's */
    b->arg_types = hp_alloc(P, 2 * sizeof *b->arg_types);
    x->res_types = hp_alloc(P, sizeof *x->res_types);
    if (!b->arg_types || !x->res_types) return -1;
    b->arg_types[0] = b->arg_types[1] = x->res_types[0] = op->opd_types[1];
    return 0;
}

int hp_pretty_op(hp *P, hlo_op *op, int depth) {
    hlo_tok t = P->cur;
    if (hlo_tok_is(&t, "module")) {
        op->name = "builtin.module";
        hp_next(P);
        if (P->cur.kind == TK_AT) hp_next(P);
        if (hp_accept(P, "attributes") && !hp_attr(P)) return -1;
        op->regions = hp_alloc(P, sizeof *op->regions);
        if (!op->regions) return -1;
        op->n_regions = 1;
        if (hp_region(P, &op->regions[0], depth + 1)) return -1;
        return hp_skip_loc(P);
    }
    if (name_is(&t, "func.func", NULL)) return pretty_func(P, op, depth) || hp_skip_loc(P);
    if (name_is(&t, "return", "func.return") || name_is(&t, "stablehlo.return", NULL)) {
        op->name = hlo_tok_is(&t, "stablehlo.return") ? "stablehlo.return" : "func.return";
        hp_next(P);
        if (hp_operand_list(P, op, ":")) return -1;
        if (op->n_operands) {
            int nt;
            if (hp_expect(P, ":", "before the returned types") || hp_type_list(P, &op->opd_types, &nt)) return -1;
            while (hp_accept(P, ",")) {
                hlo_type x;
                if (hp_type(P, &x)) return -1;
            }
        }
        return hp_skip_loc(P);
    }
    if (name_is(&t, "call", "func.call")) {
        op->name = "func.call";
        hp_next(P);
        if (P->cur.kind != TK_AT) return hp_fail(P, P->cur.line, P->cur.col, "expected @callee");
        hlo_attr *callee = hp_alloc(P, sizeof *callee);
        if (!callee) return -1;
        int q = P->cur.p[1] == '"';
        callee->kind = HA_SYM, callee->s = hp_strdup(P, P->cur.p + 1 + q, P->cur.n - 1 - 2 * q);
        callee->slen = P->cur.n - 1 - 2 * q;
        hp_next(P);
        if (hp_expect(P, "(", "before the call's operands") || hp_operand_list(P, op, ")") ||
            hp_expect(P, ")", "after the call's operands"))
            return -1;
        if (hp_is(P, "{") && !hp_attr(P)) return -1;
        op->attrs = hp_alloc(P, sizeof *op->attrs);
        if (!op->attrs) return -1;
        op->attrs[0].name = "callee", op->attrs[0].val = callee;
        op->n_attrs = 1;
        if (hp_trailing_types(P, op)) return -1;
        return hp_skip_loc(P);
    }
    const char *nm = hp_strdup(P, t.p, t.n);
    if (!nm) return -1;
    op->name = nm;
    P->op_name = nm;
    const char *base = strncmp(nm, "stablehlo.", 10) == 0 ? nm + 10 : strncmp(nm, "chlo.", 5) == 0 ? nm + 5 : NULL;
    if (base && strcmp(base, "constant") == 0) {
        hp_next(P);
        hlo_attr *v = hp_attr(P);
        if (!v) return -1;
        if (!v->has_type) return hp_fail(P, op->line, op->col, "stablehlo.constant without a type");
        op->attrs = hp_alloc(P, sizeof *op->attrs);
        op->res_types = hp_alloc(P, sizeof *op->res_types);
        op->operands = hp_alloc(P, sizeof *op->operands);
        if (!op->attrs || !op->res_types || !op->operands) return -1;
        op->attrs[0].name = "value", op->attrs[0].val = v;
        op->n_attrs = 1;
        op->res_types[0] = v->type;
        op->n_results = 1;
        return hp_skip_loc(P);
    }
    static const char *const keyword_ops[] = {"broadcast_in_dim", "transpose", "dot_general", "compare", "iota",
                                              "concatenate", "reverse", "dynamic_slice", "pad", NULL};
    for (int i = 0; base && keyword_ops[i]; i++)
        if (strcmp(base, keyword_ops[i]) == 0) return keyword_op(P, op, base) || hp_skip_loc(P);
    if (base && strcmp(base, "reduce") == 0 && P->lx.s < P->lx.end && *P->lx.s == '(')
        return reduce_pretty(P, op, depth) || hp_skip_loc(P);
    if (base) {
        int r = hp_pretty_struct(P, op, base, depth);
        if (r <= 0) return r || hp_skip_loc(P);
    }
    for (int i = 0; base && plain_ops[i]; i++) {
        if (strcmp(base, plain_ops[i]) != 0) continue;
        hp_next(P);
        if (hp_operand_list(P, op, ":")) return -1;
        if (hp_is(P, "{") && !hp_attr(P)) return -1;
        if (hp_trailing_types(P, op)) return -1;
        return hp_skip_loc(P);
    }
    return hp_fail(P, t.line, t.col,
                   "'%.*s' in the pretty form is not read; the generic form (print_generic_op_form=True) is read for "
                   "every supported op",
                   (int)(t.n > 60 ? 60 : t.n), t.p);
}
