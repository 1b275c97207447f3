/* hlo_comparator.c — what a sort's comparator region orders by (import
 * layer; hlo_ops.c's sort asks before binding cj_sort_multi).
 *
 * cjax's sort orders by the lexicographic ascending order of its first
 * num_keys operands, so a comparator is accepted when it computes exactly
 * that, whatever ops spell it. The region is read abstractly: for m
 * operands, each of the 3^m cases "x_i < y_i, = or >" per operand is a bit
 * of a truth table; block arguments 2i and 2i+1 are operand i's two sides;
 * selects and converts whose values are one side of one operand (JAX's
 * canonicalisation of -0.0 and NaN: select(x == 0, 0, x), select(x != x,
 * nan, x)) stand for that side; a compare of the two sides of one operand
 * is the truth table of its direction; and/or/xor/not and selects of
 * tables combine tables. The result's table is then matched against the
 * lexicographic order on the first k operands for k = 1..m. Anything the
 * reading does not cover (nested regions, arithmetic on the keys, compares
 * across operands) is "not understood", and the importer names the op. */
#include <string.h>

#include "import/hlo_comparator.h"

#define MAX_OPS 6 /* 3^6 = 729 cases */
#define MAX_CASES 729

enum { AV_NONE, AV_SIDE, AV_CONST, AV_PRED, AV_TABLE };
typedef struct av {
    int kind;
    int operand, side; /* AV_SIDE */
    uint8_t *t;        /* AV_TABLE: one byte per case */
} av;

/* case c's relation for operand i: 0 <, 1 =, 2 > */
static int rel(int c, int i) {
    for (int k = 0; k < i; k++) c /= 3;
    return c % 3;
}

static int dir_holds(const char *w, int r) {
    if (!strcmp(w, "LT")) return r == 0;
    if (!strcmp(w, "LE")) return r != 2;
    if (!strcmp(w, "GT")) return r == 2;
    if (!strcmp(w, "GE")) return r != 0;
    if (!strcmp(w, "EQ")) return r == 1;
    if (!strcmp(w, "NE")) return r != 1;
    return -1;
}

int hlo_comparator_keys(rt_mem *mem, const hlo_block *b, int m, int *num_keys) {
    if (m < 1 || m > MAX_OPS || b->n_args != 2 * m || b->n_ops < 1) return -1;
    int n_cases = 1;
    for (int i = 0; i < m; i++) n_cases *= 3;
    int max_id = 0;
    for (int i = 0; i < b->n_args; i++) max_id = b->arg_ids[i] > max_id ? b->arg_ids[i] : max_id;
    for (int i = 0; i < b->n_ops; i++) {
        const hlo_op *op = b->ops[i];
        if (op->n_results && op->first_result + op->n_results - 1 > max_id) max_id = op->first_result + op->n_results - 1;
    }
    size_t nv = (size_t)max_id + 1;
    av *v = rt_alloc(mem, nv * sizeof *v);
    uint8_t *tables = rt_alloc(mem, (size_t)(b->n_ops + 1) * (size_t)n_cases);
    int rc = -1;
    if (!v || !tables) goto done;
    memset(v, 0, nv * sizeof *v);
    for (int i = 0; i < b->n_args; i++) v[b->arg_ids[i]] = (av){AV_SIDE, i / 2, i % 2, NULL};
    for (int i = 0; i < b->n_ops; i++) {
        const hlo_op *op = b->ops[i];
        const char *nm = op->name;
        if (!strcmp(nm, "stablehlo.return")) {
            if (i != b->n_ops - 1 || op->n_operands != 1) goto done;
            const av *r = &v[op->operands[0]];
            if (r->kind != AV_TABLE) goto done;
            for (int k = 1; k <= m; k++) {
                int ok = 1;
                for (int c = 0; c < n_cases && ok; c++) {
                    int want = 0;
                    for (int j = 0; j < k; j++) {
                        int q = rel(c, j);
                        if (q != 1) {
                            want = q == 0;
                            break;
                        }
                    }
                    ok = r->t[c] == want;
                }
                if (ok) {
                    *num_keys = k;
                    rc = 0;
                    goto done;
                }
            }
            goto done;
        }
        if (op->n_regions || op->n_results != 1 || op->n_operands > 3) goto done;
        for (int k = 0; k < op->n_operands; k++)
            if (op->operands[k] < 0 || (size_t)op->operands[k] >= nv) goto done;
        av *out = &v[op->first_result];
        const av *a = op->n_operands > 0 ? &v[op->operands[0]] : NULL, *c2 = op->n_operands > 1 ? &v[op->operands[1]] : NULL;
        uint8_t *t = tables + (size_t)i * (size_t)n_cases;
        if (!strcmp(nm, "stablehlo.constant")) {
            *out = (av){AV_CONST, 0, 0, NULL};
        } else if (!strcmp(nm, "stablehlo.convert") || !strcmp(nm, "stablehlo.bitcast_convert")) {
            if (a->kind == AV_TABLE || a->kind == AV_NONE) goto done;
            *out = *a;
        } else if (!strcmp(nm, "stablehlo.compare")) {
            char w[16];
            if (op->n_operands != 2 || hlo_opaque_word(hlo_op_attr(op, "comparison_direction"), w, sizeof w)) goto done;
            if (a->kind == AV_SIDE && c2->kind == AV_SIDE && a->operand == c2->operand && a->side != c2->side) {
                for (int c = 0; c < n_cases; c++) {
                    int r = rel(c, a->operand);
                    if (a->side == 1) r = 2 - r; /* y vs x */
                    int h = dir_holds(w, r);
                    if (h < 0) goto done;
                    t[c] = (uint8_t)h;
                }
                *out = (av){AV_TABLE, 0, 0, t};
            } else if (a->kind == AV_SIDE || c2->kind == AV_SIDE) {
                *out = (av){AV_PRED, 0, 0, NULL}; /* x == 0, x != x: only a select's predicate */
            } else {
                goto done;
            }
        } else if (!strcmp(nm, "stablehlo.select")) {
            if (op->n_operands != 3) goto done;
            const av *x = c2, *y = &v[op->operands[2]];
            if (a->kind == AV_PRED) {
                /* canonicalisation: the value is one side of one operand */
                const av *s = x->kind == AV_SIDE ? x : y;
                const av *o = s == x ? y : x;
                if (s->kind != AV_SIDE || !(o->kind == AV_CONST || (o->kind == AV_SIDE && o->operand == s->operand &&
                                                                     o->side == s->side)))
                    goto done;
                *out = *s;
            } else if (a->kind == AV_TABLE && x->kind == AV_TABLE && y->kind == AV_TABLE) {
                for (int c = 0; c < n_cases; c++) t[c] = a->t[c] ? x->t[c] : y->t[c];
                *out = (av){AV_TABLE, 0, 0, t};
            } else {
                goto done;
            }
        } else if (!strcmp(nm, "stablehlo.and") || !strcmp(nm, "stablehlo.or") || !strcmp(nm, "stablehlo.xor")) {
            if (op->n_operands != 2 || a->kind != AV_TABLE || c2->kind != AV_TABLE) goto done;
            for (int c = 0; c < n_cases; c++)
                t[c] = nm[10] == 'a' ? (a->t[c] & c2->t[c]) : nm[10] == 'o' ? (a->t[c] | c2->t[c]) : (a->t[c] ^ c2->t[c]);
            *out = (av){AV_TABLE, 0, 0, t};
        } else if (!strcmp(nm, "stablehlo.not")) {
            if (op->n_operands != 1 || a->kind != AV_TABLE) goto done;
            for (int c = 0; c < n_cases; c++) t[c] = (uint8_t)!a->t[c];
            *out = (av){AV_TABLE, 0, 0, t};
        } else {
            goto done;
        }
    }
done:
    if (v) rt_free(mem, v, nv * sizeof *v);
    if (tables) rt_free(mem, tables, (size_t)(b->n_ops + 1) * (size_t)n_cases);
    return rc;
}
