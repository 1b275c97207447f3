/* lower.c — helpers for the primitives' lowering records (prim layer).
 *
 * A primitive's lowering record (prim.h) is what the compiler and both
 * backends know of it. This file holds what the family files share to
 * fill one in: the C type names generated code uses, and the C
 * expressions of the ordinary shapes of elementwise operation (a binary
 * operator over floats and wrapping integers, a comparison, a bitwise
 * operator, a float builtin), so an ordinary elementwise primitive names
 * its operator and one helper. Each helper writes exactly what the eager
 * kernel computes (elementwise_kernels.c) for the dtypes it accepts and
 * declines the others (and every dtype when the record names no c_op),
 * which generated code then calls through the runtime table. */
#include <stdio.h>

#include "prim.h"

const char *prim_c_type(cj_dtype dt) {
    switch (dt) {
    case CJ_BOOL: return "unsigned char";
    case CJ_I8: return "signed char";
    case CJ_I16: return "short";
    case CJ_I32: return "int";
    case CJ_I64: return "long long";
    case CJ_U8: return "unsigned char";
    case CJ_U16: return "unsigned short";
    case CJ_U32: return "unsigned int";
    case CJ_U64: return "unsigned long long";
    case CJ_F32: return "float";
    case CJ_F16:
    case CJ_BF16: return "unsigned short"; /* the bits: no C arithmetic on them (prim_c_is_float) */
    default: return "double";
    }
}

/* Wrapping arithmetic goes through an unsigned type at least as wide as
 * int, so 8- and 16-bit operands do not promote to a signed int that
 * could overflow (u16 * u16). */
const char *prim_c_utype(cj_dtype dt) {
    return dt == CJ_I64 || dt == CJ_U64 ? "unsigned long long" : "unsigned int";
}

bool prim_c_is_float(cj_dtype dt) { return dt == CJ_F32 || dt == CJ_F64; }

static bool written(int n, size_t size) { return n >= 0 && (size_t)n < size; }

bool prim_c_inline(prim_id prim, cj_dtype in_dtype, cj_dtype out_dtype, int64_t param) {
    const prim_lowering *l = prim_lower(prim);
    if (l->kind != LOWER_ELEMENTWISE || !l->c_expr) return false;
    prim_c_args a = {{"a", "b", "c"}, in_dtype, out_dtype, param};
    char buf[256];
    return l->c_expr(prim, &a, buf, sizeof buf);
}

bool prim_c_table_call(prim_id prim, const prim_c_args *a, char *out, size_t size) {
    (void)prim, (void)a, (void)out, (void)size;
    return false;
}

/* Integer +, - and * wrap (two's complement), as the eager kernels do
 * through the unsigned type: signed overflow would be undefined in C. */
bool prim_c_arith(prim_id prim, const prim_c_args *a, char *out, size_t size) {
    cj_dtype dt = a->in_dtype;
    const char *op = prim_lower(prim)->c_op;
    if (!op) return false;
    if (prim_c_is_float(dt)) return written(snprintf(out, size, "%s %s %s", a->x[0], op, a->x[1]), size);
    if (!rt_is_int(dt)) return false;
    const char *U = prim_c_utype(dt);
    return written(snprintf(out, size, "(%s)((%s)%s %s (%s)%s)", prim_c_type(dt), U, a->x[0], op, U, a->x[1]), size);
}

bool prim_c_float_op(prim_id prim, const prim_c_args *a, char *out, size_t size) {
    if (!prim_c_is_float(a->in_dtype) || !prim_lower(prim)->c_op) return false;
    return written(snprintf(out, size, "%s %s %s", a->x[0], prim_lower(prim)->c_op, a->x[1]), size);
}

bool prim_c_compare(prim_id prim, const prim_c_args *a, char *out, size_t size) {
    if (!prim_lower(prim)->c_op || rt_is_narrow_float(a->in_dtype)) return false;
    return written(snprintf(out, size, "(unsigned char)(%s %s %s)", a->x[0], prim_lower(prim)->c_op, a->x[1]), size);
}

bool prim_c_order(prim_id prim, const prim_c_args *a, char *out, size_t size) {
    if (!prim_c_is_float(a->in_dtype) && !rt_is_int(a->in_dtype)) return false;
    return prim_c_compare(prim, a, out, size);
}

bool prim_c_bitwise(prim_id prim, const prim_c_args *a, char *out, size_t size) {
    const char *op = prim_lower(prim)->c_op;
    if (!op) return false;
    if (a->in_dtype == CJ_BOOL)
        return written(snprintf(out, size, "(unsigned char)(%s %s %s)", a->x[0], op, a->x[1]), size);
    if (!rt_is_int(a->in_dtype)) return false;
    return written(snprintf(out, size, "%s %s %s", a->x[0], op, a->x[1]), size);
}

bool prim_c_float_call(prim_id prim, const prim_c_args *a, char *out, size_t size) {
    if (!prim_c_is_float(a->in_dtype) || !prim_lower(prim)->c_op) return false;
    const char *f = a->in_dtype == CJ_F32 ? "f" : "";
    return written(snprintf(out, size, "%s%s(%s)", prim_lower(prim)->c_op, f, a->x[0]), size);
}
