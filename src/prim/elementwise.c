/* elementwise.c — the rules of the elementwise primitives (prim layer).
 *
 * Every row of prims.def in family ELEMENTWISE — unary math, convert,
 * binary arithmetic and comparisons, select_n and clamp — shares one
 * abstract_eval and one impl, registered here. The primitives are strict
 * as in lax: the data operands have one dtype (the public operations in
 * src/api/elementwise.c promote first), and shapes are equal except that
 * a rank-0 operand stands for every element (stride 0), so `x * 2.0` needs
 * no broadcast. The output takes the shape of the operands that are not
 * rank 0; it is bool for comparisons and is_finite, weakly typed when every
 * data operand is (convert_element_type: as its params say).
 *
 * Which dtypes a primitive accepts is read from its kernel table
 * (elementwise_kernels.c), so validation and kernels cannot disagree.
 * impl runs the kernel over [0, n), split across the thread pool above
 * RT_PARALLEL_MIN_ELEMS elements.
 *
 * Each primitive's lowering record (the `lowerings` table at the end) says
 * how generated C computes it — an expression, through the shared helpers
 * of lower.c, or a call of its kernel through the runtime table — and its
 * cost class; the compiler and both backends read nothing else. */
#include <stdio.h>
#include <string.h>

#include "../runtime/threads.h"
#include "batching.h"
#include "elementwise_kernels.h"

/* ---- validation ---- */

static unsigned accepted_dtypes(prim_id prim) {
    unsigned mask = 0;
    for (int dt = 0; dt < CJ_NUM_DTYPES; dt++)
        if (ew_kernel(prim, (cj_dtype)dt)) mask |= 1u << dt;
    return mask;
}

/* How an error message names a set of accepted dtypes: by the kinds in
 * it (bool, integer, floating point). */
static const char *dtype_class_name(unsigned mask) {
    bool b = false, i = false, f = false;
    for (int dt = 0; dt < CJ_NUM_DTYPES; dt++) {
        if (!(mask & 1u << dt)) continue;
        b |= dt == CJ_BOOL;
        i |= rt_is_int((cj_dtype)dt);
        f |= rt_is_float((cj_dtype)dt);
    }
    if (f && !i && !b) return "floating point";
    if (f && i && !b) return "integer or floating point";
    if (b && i && !f) return "boolean or integer";
    if (b && i && f) return "of any dtype";
    return "of another dtype";
}

/* Whether `dt` is of a kind the mask names (so only this dtype is missing). */
static bool kind_accepted(unsigned mask, cj_dtype dt) {
    for (int k = 0; k < CJ_NUM_DTYPES; k++) {
        if (!(mask & 1u << k)) continue;
        if ((rt_is_float((cj_dtype)k) && rt_is_float(dt)) || (rt_is_int((cj_dtype)k) && rt_is_int(dt))) return true;
    }
    return false;
}

/* "f32, f64" */
static void dtype_list(unsigned mask, char *buf, size_t size) {
    size_t len = 0;
    buf[0] = '\0';
    for (int dt = 0; dt < CJ_NUM_DTYPES && len < size; dt++) {
        if (!(mask & 1u << dt)) continue;
        int w = snprintf(buf + len, size - len, "%s%s", len ? ", " : "", rt_dtypes[dt].name);
        if (w > 0) len += (size_t)w;
    }
}

/* "f32[3] and i32[3]" / "bool[3], f32[3] and f32[]". */
static void avals_str(int n, const rt_aval *in, char *buf, size_t size) {
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && len < size; i++) {
        const char *sep = i == 0 ? "" : i == n - 1 ? " and " : ", ";
        int w = snprintf(buf + len, size - len, "%s", sep);
        if (w > 0) len += (size_t)w;
        if (len < size) len += (size_t)rt_aval_str(&in[i], buf + len, size - len);
    }
}

static bool result_is_bool(prim_id prim) {
    switch (prim) {
    case PRIM_EQ: case PRIM_NE: case PRIM_LT: case PRIM_LE: case PRIM_GT: case PRIM_GE:
    case PRIM_IS_FINITE: case PRIM_SIGNBIT:
        return true;
    default:
        return false;
    }
}

/* clamp(lo, x, hi), as lax.clamp: x gives the shape; lo and hi are rank 0
 * or x's shape. */
static int check_clamp_shapes(struct cj_ctx *ctx, const rt_aval *in) {
    static const char *const names[3] = {"lo", "x", "hi"};
    for (int i = 0; i < 3; i += 2) {
        if (in[i].rank == 0 || rt_aval_same_shape(&in[i], &in[1])) continue;
        char a[96], x[96];
        rt_aval_str(&in[i], a, sizeof a);
        rt_aval_str(&in[1], x, sizeof x);
        return prim_error(ctx, CJ_ERR_SHAPE, PRIM_CLAMP,
                          "%s %s must be rank 0 or have the shape of x %s", names[i], a, x);
    }
    return 0;
}

/* Shapes equal, except rank-0 operands. Writes the index of an operand
 * with the result's shape. */
static int check_shapes(struct cj_ctx *ctx, prim_id prim, int n, const rt_aval *in, int *shaped) {
    *shaped = 0;
    if (prim == PRIM_CLAMP) {
        *shaped = 1;
        return check_clamp_shapes(ctx, in);
    }
    for (int i = 0; i < n; i++) {
        if (in[i].rank == 0) continue;
        if (in[*shaped].rank == 0) {
            *shaped = i;
            continue;
        }
        if (!rt_aval_same_shape(&in[i], &in[*shaped])) {
            char t[512];
            avals_str(n, in, t, sizeof t);
            return prim_error(ctx, CJ_ERR_SHAPE, prim, "shapes %s must be equal or rank 0", t);
        }
    }
    return 0;
}

/* The data operands (all but select_n's predicate) share one dtype that
 * the primitive accepts. */
static int check_dtypes(struct cj_ctx *ctx, prim_id prim, int n_data, const rt_aval *data) {
    char t[512];
    for (int i = 1; i < n_data; i++) {
        if (data[i].dtype != data[0].dtype) {
            avals_str(n_data, data, t, sizeof t);
            return prim_error(ctx, CJ_ERR_DTYPE, prim, "operands must have equal dtypes, got %s", t);
        }
    }
    if (!ew_kernel(prim, data[0].dtype)) {
        unsigned mask = accepted_dtypes(prim);
        avals_str(n_data, data, t, sizeof t);
        if (kind_accepted(mask, data[0].dtype)) {
            char names[160];
            dtype_list(mask, names, sizeof names);
            return prim_error(ctx, CJ_ERR_DTYPE, prim, "dtype %s is not supported (it takes %s), got %s",
                              rt_dtypes[data[0].dtype].name, names, t);
        }
        return prim_error(ctx, CJ_ERR_DTYPE, prim, "%s must be %s, got %s",
                          n_data == 1 ? "operand" : "operands", dtype_class_name(mask), t);
    }
    return 0;
}

static int ew_abstract_eval(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in,
                            const rt_aval *in, rt_aval *out) {
    const rt_aval *data = in;
    int n_data = n_in;
    if (prim == PRIM_SELECT) {
        if (in[0].dtype != CJ_BOOL) {
            char t[96];
            rt_aval_str(&in[0], t, sizeof t);
            return prim_error(ctx, CJ_ERR_DTYPE, prim, "predicate must be bool, got %s", t);
        }
        data = in + 1;
        n_data = n_in - 1;
    }
    if (check_dtypes(ctx, prim, n_data, data) != 0) return -1;
    int shaped;
    if (check_shapes(ctx, prim, n_in, in, &shaped) != 0) return -1;

    *out = in[shaped];
    out->dtype = data[0].dtype;
    out->weak = 1;
    for (int i = 0; i < n_data; i++) out->weak &= data[i].weak != 0;
    if (prim == PRIM_INTEGER_POW && p->count < 0 && !rt_is_float(data[0].dtype)) {
        char t[96];
        rt_aval_str(&in[0], t, sizeof t);
        return prim_error(ctx, CJ_ERR_DTYPE, prim, "integers cannot be raised to negative powers, got %s ** %lld",
                          t, (long long)p->count);
    }
    if (prim == PRIM_CONVERT) {
        if (!rt_dtype_valid((int)p->dtype))
            return prim_error(ctx, CJ_ERR_DTYPE, prim, "new_dtype %d is not a dtype", (int)p->dtype);
        out->dtype = p->dtype;
        out->weak = p->weak != 0;
    } else if (prim == PRIM_BITCAST_CONVERT_TYPE) {
        if (!rt_dtype_valid((int)p->dtype))
            return prim_error(ctx, CJ_ERR_DTYPE, prim, "new_dtype %d is not a dtype", (int)p->dtype);
        if ((p->dtype == CJ_BOOL) != (data[0].dtype == CJ_BOOL)) { /* a u8 of 2 is no bool: as lax */
            char t[96];
            rt_aval_str(&in[0], t, sizeof t);
            return prim_error(ctx, CJ_ERR_DTYPE, prim, "bool converts only to bool, got %s to %s", t,
                              cj_dtype_name(p->dtype));
        }
        if (rt_dtypes[p->dtype].size != rt_dtypes[data[0].dtype].size) {
            char t[96];
            rt_aval_str(&in[0], t, sizeof t);
            return prim_error(ctx, CJ_ERR_UNSUPPORTED, prim,
                              "from %s to %s: only dtypes of the same width (%d bits, got %d) are supported yet", t,
                              cj_dtype_name(p->dtype), 8 * (int)rt_dtypes[data[0].dtype].size,
                              8 * (int)rt_dtypes[p->dtype].size);
        }
        out->dtype = p->dtype;
        out->weak = 0; /* as JAX: the result of a bitcast is never weak */
    } else if (result_is_bool(prim)) {
        out->dtype = CJ_BOOL; /* weak when the operands are, as in JAX */
    }
    return 0;
}

/* ---- eager kernel ---- */

typedef struct ew_job {
    ew_kernel_fn fn;
    ew_operands ops;
} ew_job;

static void run_range(void *arg, int64_t begin, int64_t end) {
    const ew_job *job = arg;
    job->fn(&job->ops, begin, end);
}

/* Chunks of a few per thread so uneven progress balances, in multiples of
 * 64 elements so no two threads write one cache line. */
static int64_t grain_for(int64_t n) {
    int64_t g = n / ((int64_t)rt_num_threads() * 4);
    if (g < 8192) g = 8192;
    return (g + 63) & ~(int64_t)63;
}

static int ew_impl(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in,
                   rt_array *const *in, rt_array *out) {
    ew_job job;
    memset(&job, 0, sizeof job);
    job.ops.in_dtype = in[prim_lower(prim)->dtype_operand]->aval.dtype;
    job.ops.out_dtype = prim == PRIM_CONVERT || prim == PRIM_BITCAST_CONVERT_TYPE ? p->dtype : out->aval.dtype;
    job.fn = ew_kernel(prim, job.ops.in_dtype);
    if (!job.fn)
        return prim_error(ctx, CJ_ERR_INTERNAL, prim, "no kernel for %s",
                          cj_dtype_name(job.ops.in_dtype));
    for (int i = 0; i < n_in && i < 3; i++) {
        job.ops.in[i] = in[i]->data;
        job.ops.scalar[i] = in[i]->aval.rank == 0;
    }
    job.ops.out = out->data;
    job.ops.param = p->count;
    int64_t n = out->size;
    if (n < RT_PARALLEL_MIN_ELEMS) {
        if (n > 0) job.fn(&job.ops, 0, n);
    } else {
        rt_parallel_for(n, grain_for(n), run_range, &job);
    }
    return 0;
}

/* ---- printing ---- */

/* As JAX prints it: convert_element_type[new_dtype=f32 weak_type=False]. */
static int convert_print_params(const prim_params *p, char *buf, size_t size) {
    return snprintf(buf, size, "new_dtype=%s weak_type=%s", cj_dtype_name(p->dtype),
                    p->weak ? "True" : "False");
}

/* As JAX prints it: bitcast_convert_type[new_dtype=i32]. */
static int bitcast_print_params(const prim_params *p, char *buf, size_t size) {
    return snprintf(buf, size, "new_dtype=%s", cj_dtype_name(p->dtype));
}

/* As JAX prints it: integer_pow[y=3]. */
static int integer_pow_print_params(const prim_params *p, char *buf, size_t size) {
    return snprintf(buf, size, "y=%lld", (long long)p->count);
}

/* ---- lowering: the C expression and cost of each primitive ---- */

static bool written(int n, size_t size) { return n >= 0 && (size_t)n < size; }

static bool c_neg(prim_id prim, const prim_c_args *a, char *out, size_t size) {
    (void)prim;
    cj_dtype dt = a->in_dtype;
    if (prim_c_is_float(dt)) return written(snprintf(out, size, "-%s", a->x[0]), size);
    /* f16: the sign bit, as the eager kernel (XLA's fneg on half) */
    if (dt == CJ_F16) return written(snprintf(out, size, "(unsigned short)(%s ^ 0x8000u)", a->x[0]), size);
    if (!rt_is_int(dt)) return false;
    const char *U = prim_c_utype(dt);
    return written(snprintf(out, size, "(%s)((%s)0 - (%s)%s)", prim_c_type(dt), U, U, a->x[0]), size);
}

/* fabs for f32/f64; f16 clears the sign bit, as its eager kernel does */
static bool c_abs(prim_id prim, const prim_c_args *a, char *out, size_t size) {
    if (a->in_dtype == CJ_F16) return written(snprintf(out, size, "(unsigned short)(%s & 0x7fffu)", a->x[0]), size);
    return prim_c_float_call(prim, a, out, size);
}

static bool c_not(prim_id prim, const prim_c_args *a, char *out, size_t size) {
    (void)prim;
    if (a->in_dtype == CJ_BOOL) return written(snprintf(out, size, "(unsigned char)(%s ^ 1)", a->x[0]), size);
    if (!rt_is_int(a->in_dtype)) return false;
    return written(snprintf(out, size, "(%s)~%s", prim_c_type(a->in_dtype), a->x[0]), size);
}

/* float32 tanh inline: cjk_tanhf, which every generated unit defines from
 * runtime/vmath_tanhf.h (the source vm_tanh_f32 is built from, so the
 * bits equal the table kernel's); float64 goes through the table. */
static bool c_tanh(prim_id prim, const prim_c_args *a, char *out, size_t size) {
    (void)prim;
    if (a->in_dtype != CJ_F32 || a->out_dtype != CJ_F32) return false;
    return written(snprintf(out, size, "cjk_tanhf(%s)", a->x[0]), size);
}

/* select_n(pred, on_false, on_true) */
static bool c_select(prim_id prim, const prim_c_args *a, char *out, size_t size) {
    (void)prim;
    return written(snprintf(out, size, "%s ? %s : %s", a->x[0], a->x[2], a->x[1]), size);
}

/* Only the casts C defines exactly as the runtime's converter does: to a
 * float from anything; float to integer or bool is the converter's. */
static bool c_convert(prim_id prim, const prim_c_args *a, char *out, size_t size) {
    (void)prim;
    if (!prim_c_is_float(a->out_dtype) || rt_is_narrow_float(a->in_dtype)) return false;
    return written(snprintf(out, size, "(%s)%s", prim_c_type(a->out_dtype), a->x[0]), size);
}

/* integer_pow for exponents 0..8: the products of the kernel's binary
 * powering written out, in its order (so generated code matches the
 * kernel bit for bit); other exponents go through the table. Integers
 * multiply through the unsigned type, wrapping as the kernel does. */
static bool c_integer_pow(prim_id prim, const prim_c_args *a, char *out, size_t size) {
    (void)prim;
    cj_dtype dt = a->in_dtype;
    if (a->param < 0 || a->param > 8 || !(prim_c_is_float(dt) || rt_is_int(dt))) return false;
    const char *T = prim_c_type(dt), *U = rt_is_int(dt) ? prim_c_utype(dt) : T;
    if (a->param == 0) return written(snprintf(out, size, "(%s)1", T), size);
    char x[512], acc[512] = "", t[512];
    if (!written(snprintf(x, sizeof x, "%s", a->x[0]), sizeof x)) return false;
    for (int64_t k = a->param; k > 0;) {
        if (k & 1) {
            if (!acc[0]) snprintf(acc, sizeof acc, "%s", x);
            else if (!written(snprintf(t, sizeof t, "(%s)((%s)%s * (%s)%s)", T, U, acc, U, x), sizeof t)) return false;
            else memcpy(acc, t, sizeof t);
        }
        k >>= 1;
        if (k > 0) {
            if (!written(snprintf(t, sizeof t, "(%s)((%s)%s * (%s)%s)", T, U, x, U, x), sizeof t)) return false;
            memcpy(x, t, sizeof t);
        }
    }
    return written(snprintf(out, size, "%s", acc), size);
}

/* One row per primitive of the family: how generated C computes it (an
 * expression, or prim_c_table_call: the kernel through the runtime table)
 * and what cost_analysis counts for it. */
typedef struct ew_lowering {
    prim_id id;
    prim_c_expr_fn c_expr;
    const char *c_op;
    prim_cost cost;
} ew_lowering;

#define FLOP PRIM_COST_FLOP
#define TRANS PRIM_COST_TRANSCENDENTAL
/* a flop through the runtime table (a call per tile in generated code), a
 * division (several multiplies' throughput), a square root (one
 * instruction, slower than a division) */
#define CALL ((prim_cost){.flops = 1, .work = 2})
#define DIV ((prim_cost){.flops = 1, .work = 3})
#define SQRT ((prim_cost){.transcendentals = 1, .work = 4})
static const ew_lowering lowerings[] = {
    {PRIM_NEG, c_neg, NULL, FLOP},
    {PRIM_ABS, c_abs, "__builtin_fabs", FLOP},
    {PRIM_SIGN, prim_c_table_call, NULL, CALL},
    {PRIM_FLOOR, prim_c_table_call, NULL, CALL},
    {PRIM_CEIL, prim_c_table_call, NULL, CALL},
    {PRIM_ROUND, prim_c_table_call, NULL, CALL},
    {PRIM_EXP, prim_c_table_call, NULL, TRANS},
    {PRIM_EXP2, prim_c_table_call, NULL, TRANS},
    {PRIM_LOG, prim_c_table_call, NULL, TRANS},
    {PRIM_LOG1P, prim_c_table_call, NULL, TRANS},
    {PRIM_EXPM1, prim_c_table_call, NULL, TRANS},
    {PRIM_SQRT, prim_c_float_call, "__builtin_sqrt", SQRT},
    {PRIM_RSQRT, prim_c_table_call, NULL, TRANS},
    {PRIM_CBRT, prim_c_table_call, NULL, TRANS},
    {PRIM_SIN, prim_c_table_call, NULL, TRANS},
    {PRIM_COS, prim_c_table_call, NULL, TRANS},
    {PRIM_TAN, prim_c_table_call, NULL, TRANS},
    {PRIM_ASIN, prim_c_table_call, NULL, TRANS},
    {PRIM_ACOS, prim_c_table_call, NULL, TRANS},
    {PRIM_ATAN, prim_c_table_call, NULL, TRANS},
    {PRIM_SINH, prim_c_table_call, NULL, TRANS},
    {PRIM_COSH, prim_c_table_call, NULL, TRANS},
    {PRIM_TANH, c_tanh, NULL, TRANS},
    {PRIM_LOGISTIC, prim_c_table_call, NULL, TRANS},
    {PRIM_ERF, prim_c_table_call, NULL, TRANS},
    {PRIM_NOT, c_not, NULL, FLOP},
    {PRIM_IS_FINITE, prim_c_table_call, NULL, CALL},
    {PRIM_CONVERT, c_convert, NULL, ((prim_cost){.work = 1})},
    {PRIM_ADD, prim_c_arith, "+", FLOP},
    {PRIM_SUB, prim_c_arith, "-", FLOP},
    {PRIM_MUL, prim_c_arith, "*", FLOP},
    {PRIM_DIV, prim_c_float_op, "/", DIV}, /* integer division: the kernel's rounding and x/0 rules */
    {PRIM_REM, prim_c_table_call, NULL, ((prim_cost){.flops = 1, .work = 8})},
    {PRIM_POW, prim_c_table_call, NULL, TRANS},
    {PRIM_MAX, prim_c_table_call, NULL, CALL}, /* NaN propagation, -0.0 < +0.0 */
    {PRIM_MIN, prim_c_table_call, NULL, CALL},
    {PRIM_ATAN2, prim_c_table_call, NULL, TRANS},
    {PRIM_EQ, prim_c_compare, "==", FLOP},
    {PRIM_NE, prim_c_compare, "!=", FLOP},
    {PRIM_LT, prim_c_order, "<", FLOP},
    {PRIM_LE, prim_c_order, "<=", FLOP},
    {PRIM_GT, prim_c_order, ">", FLOP},
    {PRIM_GE, prim_c_order, ">=", FLOP},
    {PRIM_AND, prim_c_bitwise, "&", FLOP},
    {PRIM_OR, prim_c_bitwise, "|", FLOP},
    {PRIM_XOR, prim_c_bitwise, "^", FLOP},
    {PRIM_SELECT, c_select, NULL, FLOP},
    {PRIM_CLAMP, prim_c_table_call, NULL, CALL},
    {PRIM_LGAMMA, prim_c_table_call, NULL, TRANS},
    {PRIM_DIGAMMA, prim_c_table_call, NULL, TRANS},
    {PRIM_ERFC, prim_c_table_call, NULL, TRANS},
    {PRIM_ERF_INV, prim_c_table_call, NULL, TRANS},
    {PRIM_ASINH, prim_c_table_call, NULL, TRANS},
    {PRIM_ACOSH, prim_c_table_call, NULL, TRANS},
    {PRIM_ATANH, prim_c_table_call, NULL, TRANS},
    {PRIM_SIGNBIT, prim_c_table_call, NULL, CALL},
    {PRIM_INTEGER_POW, c_integer_pow, NULL, ((prim_cost){.flops = 1, .work = 3})}, /* up to a few multiplies */
    {PRIM_NEXTAFTER, prim_c_table_call, NULL, CALL},
    {PRIM_POLYGAMMA, prim_c_table_call, NULL, TRANS},
    {PRIM_SHIFT_LEFT, prim_c_shift, NULL, FLOP},
    {PRIM_SHIFT_RIGHT_LOGICAL, prim_c_shift, NULL, FLOP},
    {PRIM_SHIFT_RIGHT_ARITHMETIC, prim_c_shift, NULL, FLOP},
    {PRIM_POPULATION_COUNT, prim_c_popcount, NULL, FLOP},
    {PRIM_BITCAST_CONVERT_TYPE, prim_c_table_call, NULL, FLOP}, /* a copy of the bits */
};
#undef FLOP
#undef TRANS
#undef CALL
#undef DIV
#undef SQRT

void prim_register_elementwise(void) {
    for (int i = 0; i < PRIM_COUNT; i++) {
        if (prim_families[i] != FAMILY_ELEMENTWISE) continue;
        prim_rules[i].abstract_eval = ew_abstract_eval;
        prim_rules[i].impl = ew_impl;
        prim_rules[i].batch = batch_elementwise;
        prim_rules[i].extra_dtypes = true; /* the kernel table says which: check_dtypes */
    }
    for (size_t i = 0; i < sizeof lowerings / sizeof *lowerings; i++) {
        const ew_lowering *l = &lowerings[i];
        prim_rules[l->id].lower = (prim_lowering){
            .kind = LOWER_ELEMENTWISE, .c_expr = l->c_expr, .c_op = l->c_op, .cost = l->cost};
    }
    prim_rules[PRIM_CONVERT].print_params = convert_print_params;
    prim_rules[PRIM_INTEGER_POW].print_params = integer_pow_print_params;
    prim_rules[PRIM_BITCAST_CONVERT_TYPE].print_params = bitcast_print_params;
    prim_rules[PRIM_CONVERT].lower.noop_operand = 1; /* to its own dtype and weak flag */
    prim_rules[PRIM_SELECT].lower.dtype_operand = 1; /* the cases' dtype, not the predicate's */
    prim_rules[PRIM_SELECT].lower.copies_whole_operand = true;
}
