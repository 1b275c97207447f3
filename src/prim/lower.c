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
#include <string.h>

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

/* The unsigned C type of dt's width (prim_c_utype is at least 32 bits). */
static const char *c_same_width_utype(cj_dtype dt) {
    switch (rt_dtypes[dt].size) {
    case 1: return "unsigned char";
    case 2: return "unsigned short";
    case 4: return "unsigned int";
    default: return "unsigned long long";
    }
}

/* The C signed type of dt's width. */
static const char *c_same_width_stype(cj_dtype dt) {
    switch (rt_dtypes[dt].size) {
    case 1: return "signed char";
    case 2: return "short";
    case 4: return "int";
    default: return "long long";
    }
}

/* "(W)(U)x", or "(W)x" when U is W: x's bits as an unsigned value at
 * least 32 bits wide. */
static bool c_widened(cj_dtype dt, const char *x, char *out, size_t size) {
    const char *U = c_same_width_utype(dt), *W = prim_c_utype(dt);
    if (!strcmp(U, W)) return written(snprintf(out, size, "(%s)%s", W, x), size);
    return written(snprintf(out, size, "(%s)(%s)%s", W, U, x), size);
}

/* As the kernels (elementwise_kernels_bits.c): the amount is the unsigned
 * value of b's bits; out of range gives 0, or for the arithmetic shift the
 * sign fill (a shift by width - 1). Left and logical shifts run on the
 * unsigned type, at least 32 bits wide, so no C shift is undefined; the
 * arithmetic one shifts the signed value of x's width, which C leaves to
 * the compiler and GCC and Clang define as the arithmetic shift (the
 * kernels avoid it; tests compare the two bit for bit). Kept short: the
 * text must fit codegen's 256-byte right-hand sides. */
bool prim_c_shift(prim_id prim, const prim_c_args *a, char *out, size_t size) {
    cj_dtype dt = a->in_dtype;
    if (!rt_is_int(dt)) return false;
    const char *T = prim_c_type(dt), *W = prim_c_utype(dt);
    int bits = 8 * (int)rt_dtypes[dt].size;
    char x[96], y[96];
    if (!c_widened(dt, a->x[0], x, sizeof x) || !c_widened(dt, a->x[1], y, sizeof y)) return false;
    if (prim == PRIM_SHIFT_LEFT || prim == PRIM_SHIFT_RIGHT_LOGICAL)
        return written(snprintf(out, size, "(%s < %d ? (%s)(%s %s %s) : (%s)0)", y, bits, T, x,
                                prim == PRIM_SHIFT_LEFT ? "<<" : ">>", y, T),
                       size);
    if (prim != PRIM_SHIFT_RIGHT_ARITHMETIC) return false;
    return written(snprintf(out, size, "(%s)((%s)%s >> (%s < %d ? %s : (%s)%d))", T, c_same_width_stype(dt), a->x[0], y,
                            bits, y, W, bits - 1),
                   size);
}

bool prim_c_popcount(prim_id prim, const prim_c_args *a, char *out, size_t size) {
    (void)prim;
    if (!rt_is_int(a->in_dtype)) return false;
    return written(snprintf(out, size, "(%s)__builtin_popcountll((unsigned long long)(%s)%s)", prim_c_type(a->in_dtype),
                            c_same_width_utype(a->in_dtype), a->x[0]),
                   size);
}

bool prim_c_float_call(prim_id prim, const prim_c_args *a, char *out, size_t size) {
    if (!prim_c_is_float(a->in_dtype) || !prim_lower(prim)->c_op) return false;
    const char *f = a->in_dtype == CJ_F32 ? "f" : "";
    return written(snprintf(out, size, "%s%s(%s)", prim_lower(prim)->c_op, f, a->x[0]), size);
}
