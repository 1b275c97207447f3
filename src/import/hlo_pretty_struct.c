/* hlo_pretty_struct.c — the pretty form of the StableHLO ops with a
 * syntax of their own (import layer; called by hlo_pretty.c's op reader).
 *
 * Read here, each into the same op tree the generic form gives (the same
 * attribute names, so hlo_ops.c binds both forms alike):
 *   slice %x [0:2, 1:4:2]                       start/limit/stride ranges
 *   while(%iterArg = %x, ...) : types cond {..} do {..}
 *                                               the iter names are both regions' arguments
 *   convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
 *     window = {stride = [..], pad = [[..]], lhs_dilate = [..], rhs_dilate = [..],
 *     reverse = [..]} {attrs} : types
 *   custom_call @target(%a, ...) {attrs} : types
 *   composite "name" %a, ... {decomposition = @f, ...} : types
 *   reduce(%x init: %c), ... across dimensions = [..] : types
 *     reducer(%acc: t, %x: t) ... { ... }          (hlo_pretty.c reads the operands)
 * A malformed item is an error at its line and column. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/hlo_parse_impl.h"

/* A dense attribute of n integers (convolution's padding pairs). */
static hlo_attr *dense_ints(hp *P, const int64_t *v, int n) {
    hlo_attr *a = hp_alloc(P, sizeof *a);
    if (!a) return NULL;
    a->kind = HA_DENSE, a->n = n;
    a->elems = hp_alloc(P, (size_t)(n ? n : 1) * sizeof *a->elems);
    if (!a->elems) return NULL;
    for (int i = 0; i < n; i++) a->elems[i].bits = (uint64_t)v[i], a->elems[i].f = (double)v[i];
    return a;
}

static hlo_attr *array_ints(hp *P, const int64_t *v, int n) {
    hlo_attr *a = hp_alloc(P, sizeof *a);
    if (!a) return NULL;
    a->kind = HA_ARRAY, a->n = n;
    a->ints = hp_alloc(P, (size_t)(n ? n : 1) * sizeof *a->ints);
    if (!a->ints) return NULL;
    hlo_copy(a->ints, v, (size_t)n * sizeof *v);
    return a;
}

static int number_tok(hp *P, int64_t *out) {
    if (P->cur.kind != TK_NUM) return hp_fail(P, P->cur.line, P->cur.col, "expected an integer");
    char *end;
    *out = strtoll(P->cur.p, &end, 10);
    if (end != P->cur.p + P->cur.n) return hp_fail(P, P->cur.line, P->cur.col, "expected an integer");
    hp_next(P);
    return 0;
}

/* slice %x [a:b(:s), ...] : (t) -> t */
static int pretty_slice(hp *P, hlo_op *op) {
    hp_next(P);
    if (P->cur.kind != TK_PCT) return hp_fail(P, P->cur.line, P->cur.col, "stablehlo.slice: expected the operand");
    int id = hp_lookup(P, &P->cur);
    if (id < 0) return -1;
    hp_next(P);
    op->operands = hp_alloc(P, sizeof *op->operands);
    if (!op->operands) return -1;
    op->operands[0] = id, op->n_operands = 1;
    int64_t lo[CJ_MAX_RANK], hi[CJ_MAX_RANK], st[CJ_MAX_RANK];
    int n = 0;
    if (hp_expect(P, "[", "opening stablehlo.slice's ranges")) return -1;
    while (!hp_is(P, "]")) {
        if (n == CJ_MAX_RANK) return hp_fail(P, P->cur.line, P->cur.col, "stablehlo.slice: more than %d ranges", CJ_MAX_RANK);
        st[n] = 1;
        if (number_tok(P, &lo[n]) || hp_expect(P, ":", "in a slice range") || number_tok(P, &hi[n])) return -1;
        if (hp_accept(P, ":") && number_tok(P, &st[n])) return -1;
        n++;
        if (!hp_accept(P, ",")) break;
    }
    if (hp_expect(P, "]", "closing stablehlo.slice's ranges")) return -1;
    if (hp_add_attr(P, op, "start_indices", array_ints(P, lo, n)) ||
        hp_add_attr(P, op, "limit_indices", array_ints(P, hi, n)) || hp_add_attr(P, op, "strides", array_ints(P, st, n)))
        return -1;
    if (hp_is(P, "{") && hp_add_attrs(P, op, hp_attr(P))) return -1;
    return P->failed ? -1 : hp_trailing_types(P, op);
}

/* Reads one region whose arguments are the names given (while's
 * iterArgs), defined for the region only. */
static int region_with_args(hp *P, hlo_block *blk, int n, const hlo_tok *names, const hlo_type *types, int depth) {
    int mark = P->n_names;
    int *ids = hp_alloc(P, (size_t)(n ? n : 1) * sizeof *ids);
    hlo_type *ts = hp_alloc(P, (size_t)(n ? n : 1) * sizeof *ts);
    if (!ids || !ts) return -1;
    for (int i = 0; i < n; i++) {
        if ((ids[i] = hp_define(P, &names[i], 1)) < 0) return -1;
        ts[i] = types[i];
    }
    if (hp_region(P, blk, depth)) return -1;
    if (blk->n_args) return hp_fail(P, P->cur.line, P->cur.col, "a region with arguments of its own");
    blk->n_args = n, blk->arg_ids = ids, blk->arg_types = ts;
    P->n_names = mark;
    return 0;
}

/* while(%iterArg = %x, ...) : t1, t2 ... cond { } do { } */
static int pretty_while(hp *P, hlo_op *op, int depth) {
    hp_next(P);
    if (hp_expect(P, "(", "after stablehlo.while")) return -1;
    hlo_tok names[64];
    int ids[64], n = 0;
    while (P->cur.kind == TK_PCT) {
        if (n == 64) return hp_fail(P, P->cur.line, P->cur.col, "stablehlo.while: more than 64 carries");
        names[n] = P->cur;
        hp_next(P);
        if (hp_expect(P, "=", "after an iteration argument")) return -1;
        if (P->cur.kind != TK_PCT) return hp_fail(P, P->cur.line, P->cur.col, "stablehlo.while: expected an initial value");
        if ((ids[n] = hp_lookup(P, &P->cur)) < 0) return -1;
        hp_next(P);
        n++;
        if (!hp_accept(P, ",")) break;
    }
    if (hp_expect(P, ")", "closing stablehlo.while's carries")) return -1;
    if (n == 0) return hp_fail(P, op->line, op->col, "stablehlo.while without carries");
    hlo_type ts[64];
    int nt = 0;
    if (hp_expect(P, ":", "before stablehlo.while's types")) return -1;
    do {
        if (nt == 64) return hp_fail(P, P->cur.line, P->cur.col, "stablehlo.while: more than 64 types");
        if (hp_type(P, &ts[nt++])) return -1;
    } while (hp_accept(P, ","));
    if (nt != n) return hp_fail(P, op->line, op->col, "stablehlo.while: %d types for %d carries", nt, n);
    if (hp_accept(P, "attributes") && hp_add_attrs(P, op, hp_attr(P))) return -1;
    op->n_operands = n, op->n_results = n;
    op->operands = hp_alloc(P, (size_t)n * sizeof *op->operands);
    op->opd_types = hp_alloc(P, (size_t)n * sizeof *op->opd_types);
    op->res_types = hp_alloc(P, (size_t)n * sizeof *op->res_types);
    op->regions = hp_alloc(P, 2 * sizeof *op->regions);
    if (!op->operands || !op->opd_types || !op->res_types || !op->regions) return -1;
    hlo_copy(op->operands, ids, (size_t)n * sizeof *ids);
    hlo_copy(op->opd_types, ts, (size_t)n * sizeof *ts);
    hlo_copy(op->res_types, ts, (size_t)n * sizeof *ts);
    op->n_regions = 2;
    if (hp_expect(P, "cond", "in stablehlo.while") || region_with_args(P, &op->regions[0], n, names, ts, depth + 1) ||
        hp_expect(P, "do", "in stablehlo.while") || region_with_args(P, &op->regions[1], n, names, ts, depth + 1))
        return -1;
    return 0;
}

/* The text of "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]" as the generic
 * form's #stablehlo.conv<...> holds it. */
static hlo_attr *conv_dims(hp *P) {
    char text[160];
    size_t used = 0;
    for (int g = 0; g < 3; g++) {
        if (g == 1 && !hp_accept(P, "x")) return hp_fail(P, P->cur.line, P->cur.col, "expected 'x' in dim_numbers"), NULL;
        if (g == 2) {
            if (P->cur.kind != TK_ARROW) return hp_fail(P, P->cur.line, P->cur.col, "expected '->' in dim_numbers"), NULL;
            hp_next(P);
        }
        if (hp_expect(P, "[", "in dim_numbers")) return NULL;
        used += (size_t)snprintf(text + used, sizeof text - used, "%s[", g == 1 ? "x" : g == 2 ? "->" : "");
        while (!hp_is(P, "]") && !P->failed) {
            if ((P->cur.kind != TK_NUM && P->cur.kind != TK_ID) || P->cur.n > 2 || used + 8 > sizeof text)
                return hp_fail(P, P->cur.line, P->cur.col, "bad dimension in dim_numbers"), NULL;
            used += (size_t)snprintf(text + used, sizeof text - used, "%.*s,", (int)P->cur.n, P->cur.p);
            hp_next(P);
            if (!hp_accept(P, ",")) break;
        }
        if (hp_expect(P, "]", "in dim_numbers")) return NULL;
        used += (size_t)snprintf(text + used, sizeof text - used, "]");
    }
    return hp_opaque_text(P, text);
}

/* One list of window = {...}: integers, booleans, or [lo, hi] pairs. */
static int window_list(hp *P, int64_t *v, int max, int pairs) {
    int n = 0;
    if (hp_expect(P, "[", "opening a window list")) return -1;
    while (!hp_is(P, "]") && !P->failed) {
        if (n + 2 > max) return hp_fail(P, P->cur.line, P->cur.col, "window list too long");
        if (pairs) {
            if (hp_expect(P, "[", "opening a padding pair") || number_tok(P, &v[n]) ||
                hp_expect(P, ",", "in a padding pair") || number_tok(P, &v[n + 1]) ||
                hp_expect(P, "]", "closing a padding pair"))
                return -1;
            n += 2;
        } else if (hp_is(P, "true") || hp_is(P, "false")) {
            v[n++] = hp_is(P, "true");
            hp_next(P);
        } else if (number_tok(P, &v[n++])) {
            return -1;
        }
        if (!hp_accept(P, ",")) break;
    }
    if (hp_expect(P, "]", "closing a window list")) return -1;
    return n;
}

static int pretty_convolution(hp *P, hlo_op *op) {
    hp_next(P);
    if (hp_expect(P, "(", "after stablehlo.convolution") || hp_operand_list(P, op, ")") ||
        hp_expect(P, ")", "after the convolution's operands"))
        return -1;
    if (op->n_operands != 2) return hp_fail(P, op->line, op->col, "stablehlo.convolution of %d operands", op->n_operands);
    for (;;) {
        if (hp_accept(P, "dim_numbers")) {
            if (hp_expect(P, "=", "after dim_numbers")) return -1;
            if (hp_add_attr(P, op, "dimension_numbers", conv_dims(P))) return -1;
        } else if (hp_accept(P, "window")) {
            if (hp_expect(P, "=", "after window") || hp_expect(P, "{", "opening the window")) return -1;
            while (P->cur.kind == TK_ID && !P->failed) {
                hlo_tok k = P->cur;
                const char *name = hlo_tok_is(&k, "stride")       ? "window_strides"
                                   : hlo_tok_is(&k, "pad")        ? "padding"
                                   : hlo_tok_is(&k, "lhs_dilate") ? "lhs_dilation"
                                   : hlo_tok_is(&k, "rhs_dilate") ? "rhs_dilation"
                                   : hlo_tok_is(&k, "reverse")    ? "window_reversal"
                                                                  : NULL;
                if (!name)
                    return hp_fail(P, k.line, k.col, "stablehlo.convolution: unknown window item '%.*s'",
                                   (int)(k.n > 30 ? 30 : k.n), k.p);
                hp_next(P);
                if (hp_expect(P, "=", "after a window item")) return -1;
                int64_t v[2 * CJ_MAX_RANK];
                int pairs = !strcmp(name, "padding");
                int n = window_list(P, v, 2 * CJ_MAX_RANK, pairs);
                if (n < 0 || hp_add_attr(P, op, name, pairs ? dense_ints(P, v, n) : array_ints(P, v, n))) return -1;
                if (!hp_accept(P, ",")) break;
            }
            if (hp_expect(P, "}", "closing the window")) return -1;
        } else {
            break;
        }
        if (!hp_accept(P, ",")) break;
    }
    if (hp_is(P, "{") && hp_add_attrs(P, op, hp_attr(P))) return -1;
    return P->failed ? -1 : hp_trailing_types(P, op);
}

/* custom_call @target(%a, ...) {attrs} : (ts) -> ts */
static int pretty_custom_call(hp *P, hlo_op *op) {
    hp_next(P);
    if (P->cur.kind != TK_AT) return hp_fail(P, P->cur.line, P->cur.col, "stablehlo.custom_call: expected @target");
    hlo_attr *t = hp_text_attr(P, P->cur, HA_STR);
    hp_next(P);
    if (!t || hp_add_attr(P, op, "call_target_name", t)) return -1;
    if (hp_expect(P, "(", "before the custom_call's operands") || hp_operand_list(P, op, ")") ||
        hp_expect(P, ")", "after the custom_call's operands"))
        return -1;
    if (hp_is(P, "{") && hp_add_attrs(P, op, hp_attr(P))) return -1;
    return P->failed ? -1 : hp_trailing_types(P, op);
}

/* composite "name" %a, ... {decomposition = @f, ...} : types */
static int pretty_composite(hp *P, hlo_op *op) {
    hp_next(P);
    if (P->cur.kind != TK_STR) return hp_fail(P, P->cur.line, P->cur.col, "stablehlo.composite: expected its name");
    hlo_attr *nm = hp_text_attr(P, P->cur, HA_STR);
    hp_next(P);
    if (!nm || hp_add_attr(P, op, "name", nm) || hp_operand_list(P, op, "{")) return -1;
    if (hp_is(P, "{") && hp_add_attrs(P, op, hp_attr(P))) return -1;
    return P->failed ? -1 : hp_trailing_types(P, op);
}

int hp_reduce_reducer(hp *P, hlo_op *op, int n, int depth) {
    if (hp_expect(P, "across", "in stablehlo.reduce") || hp_expect(P, "dimensions", "in stablehlo.reduce") ||
        hp_expect(P, "=", "after dimensions"))
        return -1;
    hlo_attr *dims = hp_int_list(P, NULL, 0, NULL);
    if (!dims || hp_add_attr(P, op, "dimensions", dims) || hp_trailing_types(P, op)) return -1;
    /* reducer(%acc_i: t, %x_i: t) per operand: the block's arguments are
     * every accumulator, then every element */
    hlo_tok names[32];
    hlo_type types[32];
    if (hp_expect(P, "reducer", "in stablehlo.reduce")) return -1;
    for (int i = 0; i < n; i++) {
        if (hp_expect(P, "(", "before a reducer argument pair")) return -1;
        for (int k = 0; k < 2; k++) {
            if (k && hp_expect(P, ",", "between reducer arguments")) return -1;
            if (P->cur.kind != TK_PCT) return hp_fail(P, P->cur.line, P->cur.col, "stablehlo.reduce: expected a reducer argument");
            names[k * n + i] = P->cur;
            hp_next(P);
            if (hp_expect(P, ":", "after a reducer argument") || hp_type(P, &types[k * n + i])) return -1;
        }
        if (hp_expect(P, ")", "after a reducer argument pair")) return -1;
    }
    op->regions = hp_alloc(P, sizeof *op->regions);
    if (!op->regions) return -1;
    op->n_regions = 1;
    return region_with_args(P, &op->regions[0], 2 * n, names, types, depth + 1);
}

int hp_pretty_struct(hp *P, hlo_op *op, const char *base, int depth) {
    if (!strcmp(base, "slice")) return pretty_slice(P, op) ? -1 : 0;
    if (!strcmp(base, "while")) return pretty_while(P, op, depth) ? -1 : 0;
    if (!strcmp(base, "convolution")) return pretty_convolution(P, op) ? -1 : 0;
    if (!strcmp(base, "custom_call")) return pretty_custom_call(P, op) ? -1 : 0;
    if (!strcmp(base, "composite")) return pretty_composite(P, op) ? -1 : 0;
    return 1;
}
