/* test_prim_rules.c — every primitive has every rule it needs.
 *
 * A primitive is a row of src/prim/prims.def plus its rule record; the
 * layers above read the record and keep no list of primitives of their
 * own, so a row with a rule missing would fail only when a program first
 * needs it. This test reads every record: the rules every primitive needs
 * (abstract_eval, impl, a vmap rule, a jvp rule, a printer when it has
 * parameters, a transpose when it is linear) and its lowering record (a
 * kind; for an elementwise primitive a C expression or an explicit table
 * call for every dtype it accepts, and a cost; for a row reduction its
 * fold for every dtype it accepts; for a contraction its flop count).
 * docs/CONTRIBUTING-PRIMS.md says the same in prose. The checker is also
 * run on copies of the table with one rule taken out, to show that it
 * notices. */
#include <stdlib.h>

#include "cjax.h"
#include "harness.h"
#include "test_util.h"
#include "prim/elementwise_kernels.h"
#include "prim/prim.h"

/* The primitives that are linear in some operands: reverse mode needs
 * their transpose (as JAX's ad.primitive_transposes). Written here as an
 * independent reference, from lax's definitions. */
static bool is_linear(prim_id p) {
    switch (p) {
    case PRIM_NEG: case PRIM_ADD: case PRIM_SUB: case PRIM_MUL: case PRIM_DIV: case PRIM_CONVERT:
    case PRIM_SELECT: case PRIM_REDUCE_SUM: case PRIM_CUMSUM: case PRIM_DOT_GENERAL: case PRIM_GATHER:
    case PRIM_SCATTER_ADD: case PRIM_OPT_BARRIER: case PRIM_CUSTOM_VJP_LIN: case PRIM_COND: case PRIM_WHILE:
    case PRIM_SCAN:
    case PRIM_TRIANGULAR_SOLVE: case PRIM_LINEAR_SOLVE: /* in b */
    case PRIM_CONV_GENERAL_DILATED:
        return true;
    default:
        /* data movement moves elements: linear, except iota (no operand) */
        return prim_families[p] == FAMILY_SHAPE && p != PRIM_IOTA;
    }
}

/* Primitives outside the elementwise family whose equations carry no
 * parameters, so print nothing inside brackets. */
static bool prints_no_parameters(prim_id p) {
    if (prim_families[p] == FAMILY_ELEMENTWISE) return p != PRIM_CONVERT && p != PRIM_INTEGER_POW && p != PRIM_BITCAST_CONVERT_TYPE;
    return p == PRIM_DYNAMIC_UPDATE_SLICE || p == PRIM_STOP_GRADIENT || p == PRIM_OPT_BARRIER ||
           p == PRIM_THREEFRY2X32 || p == PRIM_LU;
}

#define PROBLEM(...)                                                     \
    do {                                                                 \
        snprintf(msg, size, __VA_ARGS__);                                \
        return 1;                                                        \
    } while (0)

/* The output dtype of elementwise p on operands of dtype dt (rank 1), or
 * -1 when p does not accept dt. */
static int ew_out_dtype(const prim_rule *r, prim_id p, cj_dtype dt) {
    int64_t three = 3;
    rt_aval in[3], out;
    for (int i = 0; i < 3; i++) in[i] = rt_aval_make(dt, 1, &three);
    if (r->lower.dtype_operand > 0) in[0].dtype = CJ_BOOL; /* select_n's predicate */
    prim_params q = prim_params_zero();
    q.dtype = CJ_F32; /* convert_element_type's target */
    if (r->abstract_eval(NULL, p, &q, prim_arity[p], in, &out) != 0) return -1;
    return (int)out.dtype;
}

static int check_elementwise(const prim_rule *r, prim_id p, char *msg, size_t size) {
    const prim_lowering *l = &r->lower;
    if (!l->c_expr) PROBLEM("%s: no C expression (c_expr; prim_c_table_call when always a table call)", prim_names[p]);
    if (l->dtype_operand < 0 || l->dtype_operand >= prim_arity[p])
        PROBLEM("%s: dtype_operand %d is not an operand", prim_names[p], l->dtype_operand);
    if (!(l->cost.flops > 0 || l->cost.transcendentals > 0 || l->noop_operand))
        PROBLEM("%s: no cost class (flops or transcendentals per element)", prim_names[p]);
    /* fusion weighs it before recomputing the primitive in a consumer (recompute.c) */
    if (!(l->cost.work > 0)) PROBLEM("%s: no declared work per element (cost.work)", prim_names[p]);
    if (l->cost.transcendentals > 0 && l->cost.work < 2)
        PROBLEM("%s: a transcendental declared as cheap as an add (cost.work %g)", prim_names[p], l->cost.work);
    prim_c_expr_fn e = l->c_expr;
    bool reads_op = e == prim_c_arith || e == prim_c_float_op || e == prim_c_compare || e == prim_c_order ||
                    e == prim_c_bitwise || e == prim_c_float_call;
    if (reads_op && !l->c_op) PROBLEM("%s: its C expression helper writes c_op, which is not set", prim_names[p]);
    int accepted = 0;
    for (int dt = 0; dt < CJ_NUM_DTYPES; dt++) {
        int ot = ew_out_dtype(r, p, (cj_dtype)dt);
        if (ot < 0) continue;
        accepted++;
        /* a table call runs the eager kernel for the dtype */
        if (!ew_kernel(p, (cj_dtype)dt)) PROBLEM("%s: accepts %s but has no kernel", prim_names[p], cj_dtype_name(dt));
        prim_c_args a = {{"x0", "x1", "x2"}, (cj_dtype)dt, (cj_dtype)ot, 2};
        char text[256] = "";
        if (!l->c_expr(p, &a, text, sizeof text)) continue; /* through the table */
        if (!text[0] || !strstr(text, "x0"))
            PROBLEM("%s: C expression for %s is '%s'", prim_names[p], cj_dtype_name(dt), text);
    }
    if (!accepted) PROBLEM("%s: accepts no dtype", prim_names[p]);
    return 0;
}

/* Does reduction p accept operands of dtype dt (f32[4], axes (0,))? */
static bool reduction_accepts(const prim_rule *r, prim_id p, cj_dtype dt) {
    /* core refuses the dtypes after f64 before the rule runs, unless the
     * rule takes them (prim_rule.extra_dtypes) */
    if (rt_dtype_is_extra(dt) && !r->extra_dtypes) return false;
    int64_t four = 4;
    rt_aval in = rt_aval_make(dt, 1, &four), out;
    prim_params q = prim_params_zero();
    q.axes.n = 1;
    q.dtype = CJ_I32; /* an arg-reduction's index dtype */
    return r->abstract_eval(NULL, p, &q, 1, &in, &out) == 0;
}

/* The first problem in the table, into msg; 0 when there is none. */
static int rule_problems(const prim_rule *rules, char *msg, size_t size) {
    for (int i = 0; i < PRIM_COUNT; i++) {
        prim_id p = (prim_id)i;
        const prim_rule *r = &rules[p];
        const prim_lowering *l = &r->lower;
        if (r->multiple_results) { /* several results: the _multi forms instead (control flow) */
            if (!r->abstract_eval_multi) PROBLEM("%s: no abstract_eval_multi", prim_names[p]);
            if (!r->impl_multi) PROBLEM("%s: no impl_multi", prim_names[p]);
            if (!r->batch_multi) PROBLEM("%s: no batch_multi (vmap) rule", prim_names[p]);
            if (!r->jvp_multi) PROBLEM("%s: no jvp_multi rule", prim_names[p]);
            if (r->abstract_eval || r->impl || r->batch || r->jvp || r->transpose)
                PROBLEM("%s: single-result rules beside multiple_results", prim_names[p]);
        } else {
            if (!r->abstract_eval) PROBLEM("%s: no abstract_eval", prim_names[p]);
            if (!r->impl) PROBLEM("%s: no impl", prim_names[p]);
            if (!r->batch && prim_arity[p] != 0) PROBLEM("%s: no batch (vmap) rule", prim_names[p]);
            /* custom_lin is only ever in a linear program, which is transposed, never differentiated */
            if (!r->jvp && p != PRIM_CUSTOM_VJP_LIN) PROBLEM("%s: no jvp rule", prim_names[p]);
            if (is_linear(p) && !r->transpose) PROBLEM("%s: linear but no transpose rule", prim_names[p]);
        }
        if (!r->print_params && !prints_no_parameters(p)) PROBLEM("%s: no print_params", prim_names[p]);
        if (l->kind == LOWER_NONE) PROBLEM("%s: no lowering kind", prim_names[p]);
        if ((l->kind == LOWER_ELEMENTWISE) != (prim_families[p] == FAMILY_ELEMENTWISE))
            PROBLEM("%s: lowering kind %d does not match its family", prim_names[p], (int)l->kind);
        if (l->noop_operand < 0 || (prim_arity[p] >= 0 && l->noop_operand > prim_arity[p]))
            PROBLEM("%s: noop_operand %d is not an operand", prim_names[p], l->noop_operand);
        switch (l->kind) {
        case LOWER_ELEMENTWISE:
            if (check_elementwise(r, p, msg, size)) return 1;
            break;
        case LOWER_REDUCTION:
            if (!l->cost.per_operand || !(l->cost.flops > 0))
                PROBLEM("%s: a reduction costs a flop per operand element", prim_names[p]);
            for (int dt = 0; dt < CJ_NUM_DTYPES && l->row_fold; dt++)
                if (reduction_accepts(r, p, (cj_dtype)dt) && !l->row_fold(p, (cj_dtype)dt))
                    PROBLEM("%s: accepts %s but has no row fold for it", prim_names[p], cj_dtype_name(dt));
            break;
        case LOWER_DOT:
            if (!l->cost.flops_of) PROBLEM("%s: a contraction needs its flop count (cost.flops_of)", prim_names[p]);
            break;
        default:
            if (l->c_expr || l->row_fold) PROBLEM("%s: lowering members of another kind", prim_names[p]);
            break;
        }
    }
    return 0;
}

TEST(prim_rules_every_primitive_has_every_rule) {
    tu_fill_rule_table();
    char msg[256] = "";
    CHECK_MSG(rule_problems(prim_rules, msg, sizeof msg) == 0, "%s", msg);
}

/* The row reductions are exactly the seven lax reductions ROWS kernels run
 * (sum, prod, max, min and the bitwise and, or, xor): the fusion pass finds
 * them by their row fold, not by a list. */
TEST(prim_rules_row_folds_belong_to_the_seven_reductions) {
    tu_fill_rule_table();
    for (int p = 0; p < PRIM_COUNT; p++) {
        bool row = p == PRIM_REDUCE_SUM || p == PRIM_REDUCE_PROD || p == PRIM_REDUCE_MAX || p == PRIM_REDUCE_MIN ||
                   p == PRIM_REDUCE_AND || p == PRIM_REDUCE_OR || p == PRIM_REDUCE_XOR;
        CHECK_MSG((prim_rules[p].lower.row_fold != NULL) == row, "%s", prim_names[p]);
    }
    /* and a fold computes the reduction: sum of 1..100, max of a run */
    float x[100], s = -1, m = 0;
    for (int i = 0; i < 100; i++) x[i] = (float)(i + 1);
    prim_rules[PRIM_REDUCE_SUM].lower.row_fold(PRIM_REDUCE_SUM, CJ_F32)(x, 100, &s);
    prim_rules[PRIM_REDUCE_MAX].lower.row_fold(PRIM_REDUCE_MAX, CJ_F32)(x, 100, &m);
    CHECK(s == 5050.0f);
    CHECK(m == 100.0f);
    /* and of 0xff, 0xf0, 0x3c is 0x30; or 0xff; xor 0x33; and of no elements is all ones */
    uint8_t b[3] = {0xff, 0xf0, 0x3c}, r = 0;
    prim_rules[PRIM_REDUCE_AND].lower.row_fold(PRIM_REDUCE_AND, CJ_U8)(b, 3, &r);
    CHECK(r == 0x30);
    prim_rules[PRIM_REDUCE_OR].lower.row_fold(PRIM_REDUCE_OR, CJ_U8)(b, 3, &r);
    CHECK(r == 0xff);
    prim_rules[PRIM_REDUCE_XOR].lower.row_fold(PRIM_REDUCE_XOR, CJ_U8)(b, 3, &r);
    CHECK(r == 0x33);
    prim_rules[PRIM_REDUCE_AND].lower.row_fold(PRIM_REDUCE_AND, CJ_U8)(b, 0, &r);
    CHECK(r == 0xff);
}

/* The checker is not vacuous: each rule taken out of a copy of the table
 * is reported, naming the primitive and what is missing. */
static prim_rule table_copy[PRIM_COUNT];

static int problems_without(char *msg, size_t size) {
    int n = rule_problems(table_copy, msg, size);
    memcpy(table_copy, prim_rules, sizeof table_copy); /* restored for the next case */
    return n;
}

TEST(prim_rules_check_reports_a_missing_rule) {
    tu_fill_rule_table();
    char msg[256];
    memcpy(table_copy, prim_rules, sizeof table_copy);
    CHECK(problems_without(msg, sizeof msg) == 0);

    table_copy[PRIM_ADD].lower.c_expr = NULL;
    CHECK(problems_without(msg, sizeof msg) == 1);
    CHECK_STR_CONTAINS(msg, "add: no C expression");

    table_copy[PRIM_MUL].lower.c_op = NULL;
    CHECK(problems_without(msg, sizeof msg) == 1);
    CHECK_STR_CONTAINS(msg, "mul: its C expression helper writes c_op");

    table_copy[PRIM_TANH].lower.cost = PRIM_COST_FREE;
    CHECK(problems_without(msg, sizeof msg) == 1);
    CHECK_STR_CONTAINS(msg, "tanh: no cost class");

    table_copy[PRIM_SUB].lower.cost.work = 0;
    CHECK(problems_without(msg, sizeof msg) == 1);
    CHECK_STR_CONTAINS(msg, "sub: no declared work per element");

    table_copy[PRIM_EXP].lower.cost.work = 1;
    CHECK(problems_without(msg, sizeof msg) == 1);
    CHECK_STR_CONTAINS(msg, "exp: a transcendental declared as cheap as an add");

    table_copy[PRIM_REDUCE_MAX].lower.row_fold = NULL;
    CHECK(problems_without(msg, sizeof msg) == 0); /* allowed: it then never runs by rows */

    table_copy[PRIM_CUMSUM].lower.kind = LOWER_NONE;
    CHECK(problems_without(msg, sizeof msg) == 1);
    CHECK_STR_CONTAINS(msg, "cumsum: no lowering kind");

    table_copy[PRIM_DOT_GENERAL].lower.cost.flops_of = NULL;
    CHECK(problems_without(msg, sizeof msg) == 1);
    CHECK_STR_CONTAINS(msg, "dot_general: a contraction needs its flop count");

    table_copy[PRIM_NEG].transpose = NULL;
    CHECK(problems_without(msg, sizeof msg) == 1);
    CHECK_STR_CONTAINS(msg, "neg: linear but no transpose rule");

    table_copy[PRIM_SIN].jvp = NULL;
    CHECK(problems_without(msg, sizeof msg) == 1);
    CHECK_STR_CONTAINS(msg, "sin: no jvp rule");

    table_copy[PRIM_EXP].batch = NULL;
    CHECK(problems_without(msg, sizeof msg) == 1);
    CHECK_STR_CONTAINS(msg, "exp: no batch (vmap) rule");

    table_copy[PRIM_PAD].print_params = NULL;
    CHECK(problems_without(msg, sizeof msg) == 1);
    CHECK_STR_CONTAINS(msg, "pad: no print_params");

    table_copy[PRIM_GATHER].abstract_eval = NULL;
    CHECK(problems_without(msg, sizeof msg) == 1);
    CHECK_STR_CONTAINS(msg, "gather: no abstract_eval");

    table_copy[PRIM_THREEFRY2X32].impl = NULL;
    CHECK(problems_without(msg, sizeof msg) == 1);
    CHECK_STR_CONTAINS(msg, "threefry2x32: no impl");
}

/* Generated C for every elementwise primitive and dtype it writes inline
 * is the expression its lowering record gives: spot checks of the text. */
TEST(prim_rules_c_expressions_of_ordinary_ops) {
    tu_fill_rule_table();
    char t[256];
    prim_c_args f = {{"a", "b", "c"}, CJ_F32, CJ_F32, 0}, i = {{"a", "b", "c"}, CJ_I32, CJ_I32, 0};
    prim_c_args cmp = {{"a", "b", "c"}, CJ_F64, CJ_BOOL, 0}, cvt = {{"a", "", ""}, CJ_I64, CJ_F32, 0};
    CHECK(prim_lower(PRIM_ADD)->c_expr(PRIM_ADD, &f, t, sizeof t));
    CHECK(!strcmp(t, "a + b"));
    CHECK(prim_lower(PRIM_MUL)->c_expr(PRIM_MUL, &i, t, sizeof t));
    CHECK(!strcmp(t, "(int)((unsigned int)a * (unsigned int)b)"));
    CHECK(prim_lower(PRIM_LT)->c_expr(PRIM_LT, &cmp, t, sizeof t));
    CHECK(!strcmp(t, "(unsigned char)(a < b)"));
    CHECK(prim_lower(PRIM_SQRT)->c_expr(PRIM_SQRT, &f, t, sizeof t));
    CHECK(!strcmp(t, "__builtin_sqrtf(a)"));
    CHECK(prim_lower(PRIM_SELECT)->c_expr(PRIM_SELECT, &f, t, sizeof t));
    CHECK(!strcmp(t, "a ? c : b")); /* select_n(pred, on_false, on_true) */
    CHECK(prim_lower(PRIM_CONVERT)->c_expr(PRIM_CONVERT, &cvt, t, sizeof t));
    CHECK(!strcmp(t, "(float)a"));
    /* table calls: integer division, transcendentals, float to integer */
    CHECK(!prim_lower(PRIM_DIV)->c_expr(PRIM_DIV, &i, t, sizeof t));
    CHECK(!prim_lower(PRIM_EXP)->c_expr(PRIM_EXP, &f, t, sizeof t));
    prim_c_args f2i = {{"a", "", ""}, CJ_F32, CJ_I32, 0};
    CHECK(!prim_lower(PRIM_CONVERT)->c_expr(PRIM_CONVERT, &f2i, t, sizeof t));
    CHECK(prim_c_inline(PRIM_NEG, CJ_I64, CJ_I64, 0));
    /* float32 tanh is inline (cjk_tanhf, runtime/vmath_tanhf.h), float64 through the table */
    CHECK(prim_c_inline(PRIM_TANH, CJ_F32, CJ_F32, 0));
    CHECK(prim_lower(PRIM_TANH)->c_expr(PRIM_TANH, &f, t, sizeof t));
    CHECK(!strcmp(t, "cjk_tanhf(a)"));
    CHECK(!prim_c_inline(PRIM_TANH, CJ_F64, CJ_F64, 0));
    CHECK(!prim_c_inline(PRIM_REDUCE_SUM, CJ_F32, CJ_F32, 0)); /* not elementwise */
}

/* cost_analysis reads each equation's cost class: a contraction's 2·K per
 * result element, a transcendental per exp, a flop per element folded by a
 * reduction and per product, nothing for a convert or a reshape. */
static void f_costs(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    cj_val y = cj_matmul(in[0], in[1]);                 /* f32[8,4]: 2·16·32 = 1024 flops */
    cj_val s = cj_sum(cj_exp(y), 1, (int64_t[]){1}, 0); /* 32 transcendentals, 32 flops */
    cj_val t = cj_astype(cj_mul(s, s), CJ_F64);         /* 8 flops, the convert free */
    out[0] = cj_reshape(t, 2, (int64_t[]){2, 4});      /* free */
}

TEST(prim_rules_cost_analysis_reads_the_cost_classes) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *jf = cj_jit(cj_func_new(ctx, "costs", f_costs, 2, 1, NULL), NULL);
    cj_val in[2] = {cj_zeros(ctx, CJ_F32, 2, (int64_t[]){8, 16}), cj_zeros(ctx, CJ_F32, 2, (int64_t[]){16, 4})};
    cj_cost_analysis cost;
    CHECK(cj_jit_cost_analysis(jf, in, &cost) == CJ_OK);
    CHECK_NEAR(cost.flops, 1024 + 32 + 8, 0, 0);
    CHECK_NEAR(cost.transcendentals, 32, 0, 0);
    cj_ctx_free(ctx);
}
