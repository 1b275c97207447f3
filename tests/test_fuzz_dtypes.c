/* test_fuzz_dtypes.c — a differential fuzzer over the bits of the dtypes
 * of issue 17 (u8 … u64, i8, i16, f16, bf16), beside the main one.
 *
 * The main fuzzer (test_fuzz.c, fuzz_gen.h's FZ_FAMILY_NARROW and
 * FZ_FAMILY_INT programs) now draws these dtypes too, across all its
 * operations, constructs, vmap and grad. This one stays for what the main
 * one cannot do exactly: bitcasts (same and cross width), float → integer
 * conversions (saturation, NaN → 0) and full-range random-bit inputs, NaN
 * and infinity patterns included, whose results only an exact program can
 * compare (the main one's float programs are compared within rounding, so
 * they never read float bits as integers).
 *
 * Each program is a random chain of elementwise operations (wrapping
 * arithmetic, bitwise ops and shifts with any amount, population_count,
 * min/max, negation), conversions between any two of the new dtypes
 * (saturating, NaN → 0, narrow float rounding), same-width and cross-width
 * bitcasts, and rev along the last axis, over two random-bit inputs of
 * shape [3, 4]. Every operation is defined for every input (no division),
 * so the reference is exact: eager evaluation, and jit with the interpreter,
 * jit with generated C (every CC_EVERY-th program) and vmap over the
 * leading axis must give the same bits (a signalling NaN made by a bitcast
 * of bf16 may come back quiet in one of them: same_bits_up_to_quieting). By
 * default 150 programs from seed 1; CJAX_FUZZ_COUNT / CJAX_FUZZ_SEED (as test_fuzz.c) run more. */
#include <stdlib.h>
#include <string.h>

#include "cjax.h"
#include "fuzz_gen.h"
#include "harness.h"
#include "test_util.h"

#define MAX_OPS 10
#define CC_EVERY 25

static const cj_dtype INTS[6] = {CJ_I8, CJ_I16, CJ_U8, CJ_U16, CJ_U32, CJ_U64};
static const cj_dtype ALL[8] = {CJ_I8, CJ_I16, CJ_U8, CJ_U16, CJ_U32, CJ_U64, CJ_F16, CJ_BF16};

typedef enum { OP_ADD, OP_MUL, OP_XOR, OP_AND, OP_SHL, OP_SHR, OP_SAR, OP_POPCNT, OP_MAX, OP_NEG, OP_ASTYPE,
               OP_BITCAST, OP_SPLIT, OP_REV, OP_FLOAT_ROUND, N_OPS } op_kind;

typedef struct op {
    op_kind k;
    int a, b;       /* operand values (indices into the value list) */
    cj_dtype dtype; /* astype / bitcast target */
} op;

typedef struct prog {
    uint64_t seed;
    cj_dtype in_dtype[2];
    int n_ops;
    op ops[MAX_OPS];
} prog;

static int rnd(uint64_t *s, int n) { return (int)(fz_rand_u64(s) % (uint64_t)n); }
static int is_int(cj_dtype d) { return d != CJ_F16 && d != CJ_BF16; }

/* The same-width integer partner of d (signedness flipped; f16/bf16 ↔ i16). */
static cj_dtype same_width(cj_dtype d) {
    switch (d) {
    case CJ_I8: return CJ_U8;
    case CJ_U8: return CJ_I8;
    case CJ_I16: return CJ_F16;
    case CJ_U16: return CJ_BF16;
    case CJ_F16: return CJ_U16;
    case CJ_BF16: return CJ_I16;
    case CJ_U32: return CJ_F32;
    default: return CJ_I64; /* u64 */
    }
}

static void gen(prog *p, uint64_t seed) {
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
    memset(p, 0, sizeof *p);
    p->seed = seed;
    p->in_dtype[0] = ALL[rnd(&s, 8)];
    p->in_dtype[1] = INTS[rnd(&s, 6)];
    p->n_ops = 1 + rnd(&s, MAX_OPS);
    for (int i = 0; i < p->n_ops; i++) {
        int n_vals = 2 + i;
        op o = {(op_kind)rnd(&s, N_OPS), rnd(&s, 2) ? n_vals - 1 : rnd(&s, n_vals), rnd(&s, n_vals), ALL[rnd(&s, 8)]};
        p->ops[i] = o;
    }
}

/* The value of one op; dtype-dependent choices are made on the operands'
 * dtypes, so every mode builds the same program. Integer-only ops on a
 * float operand first convert it to i16. */
static cj_val as_int(cj_val v) { return is_int(cj_val_dtype(v)) ? v : cj_astype(v, CJ_I16); }

static cj_val apply(const op *o, cj_val *vals) {
    cj_val a = vals[o->a], b = vals[o->b];
    cj_ctx *ctx = a.ctx;
    if (o->k >= OP_XOR && o->k <= OP_SAR) { /* integer-only: b in a's integer dtype */
        a = as_int(a);
        b = cj_astype(as_int(b), cj_val_dtype(a));
    }
    switch (o->k) {
    case OP_ADD: return cj_add(a, b);
    case OP_MUL: return cj_mul(a, b);
    case OP_XOR: return cj_xor(as_int(a), as_int(b));
    case OP_AND: return cj_and(as_int(a), as_int(b));
    case OP_SHL: return cj_shift_left(as_int(a), as_int(b));
    case OP_SHR: return cj_shift_right_logical(as_int(a), as_int(b));
    case OP_SAR: return cj_shift_right_arithmetic(as_int(a), as_int(b));
    case OP_POPCNT: return cj_population_count(as_int(a));
    case OP_MAX: return cj_max(a, b);
    case OP_NEG: return cj_neg(a);
    case OP_ASTYPE: return cj_astype(a, o->dtype);
    case OP_BITCAST: {
        cj_dtype d = cj_val_dtype(a);
        cj_val r = cj_bitcast_convert_type(a, same_width(d));
        /* f32 / i64 partners are not in this fuzzer's set: back to a new dtype */
        return cj_val_dtype(r) == CJ_F32 ? cj_bitcast_convert_type(r, CJ_U32)
               : cj_val_dtype(r) == CJ_I64 ? cj_bitcast_convert_type(r, CJ_U64) : r;
    }
    case OP_SPLIT: { /* cross-width: to u8 pieces and back */
        cj_dtype d = cj_val_dtype(a);
        if (d == CJ_U8 || d == CJ_I8) return cj_bitcast_convert_type(a, CJ_I8 == d ? CJ_U8 : CJ_I8);
        return cj_bitcast_convert_type(cj_add(cj_bitcast_convert_type(a, CJ_U8), cj_scalar_typed(ctx, 1, CJ_U8)), d);
    }
    case OP_REV: {
        int r = cj_val_rank(a);
        if (r < 1) return a;
        int64_t ax = r - 1;
        return cj_rev(a, 1, &ax);
    }
    case OP_FLOAT_ROUND: /* narrow float arithmetic, then back to the operand's dtype */
        return cj_astype(cj_sin(cj_mul(cj_astype(a, CJ_BF16), cj_astype(b, CJ_F16))), cj_val_dtype(a));
    case N_OPS: break;
    }
    return a;
}

/* Promotion can leave the set (u32 + i8 is i32, f16 + u64 is f32): such a
 * result is brought back to a new dtype, wrapping (i32 → u32, i64 → u64,
 * bool → u8) or rounding (f32 → bf16, f64 → f16). */
static cj_val normalise(cj_val v) {
    switch (cj_val_dtype(v)) {
    case CJ_I32: return cj_astype(v, CJ_U32);
    case CJ_I64: return cj_astype(v, CJ_U64);
    case CJ_BOOL: return cj_astype(v, CJ_U8);
    case CJ_F32: return cj_astype(v, CJ_BF16);
    case CJ_F64: return cj_astype(v, CJ_F16);
    default: return v;
    }
}

static void body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    const prog *p = user;
    cj_val vals[2 + MAX_OPS];
    vals[0] = in[0], vals[1] = in[1];
    for (int i = 0; i < p->n_ops; i++) vals[2 + i] = normalise(apply(&p->ops[i], vals));
    out[0] = vals[1 + p->n_ops];
}

static cj_val random_input(cj_ctx *ctx, cj_dtype dt, uint64_t *s) {
    int64_t dims[2] = {3, 4};
    uint64_t buf[12];
    for (int i = 0; i < 12; i++) buf[i] = fz_rand_u64(s);
    if (dt == CJ_F16 || dt == CJ_BF16) { /* finite values: random floats in (-8, 8) */
        float f[12];
        for (int i = 0; i < 12; i++) f[i] = (float)((double)(buf[i] >> 11) * 0x1p-53 * 16 - 8);
        return cj_astype(cj_array(ctx, CJ_F32, 2, dims, f), dt);
    }
    return cj_array(ctx, dt, 2, dims, buf); /* the low bytes of random words */
}

/* Same bits, except that a signalling NaN of bf16 may come back quiet in
 * one mode and not in another: such NaNs arise here only from bitcasts,
 * and whether one is quieted depends on whether an operation on it is
 * computed (through f32, which quiets it) or removed (jit's simplifier
 * turns neg(neg(x)) into x, as XLA's algebraic simplifier does). Sign and
 * payload must still agree. f16 needs no exception: its neg and abs are
 * sign-bit operations (as XLA's), max/min pick operand bits, and the
 * fuzzer's other f16 operations on a NaN give the same NaN in every mode. */
static int same_bits_up_to_quieting(cj_val got, cj_val want) {
    if (tu_same_bits(got, want)) return 1;
    cj_dtype dt = cj_val_dtype(want);
    if (cj_val_dtype(got) != dt || dt != CJ_BF16 || cj_val_size(got) != cj_val_size(want) ||
        cj_val_size(want) > 64)
        return 0;
    uint16_t g[64], w[64];
    size_t bytes = sizeof(uint16_t) * (size_t)cj_val_size(want);
    if (cj_read(got, g, bytes) != CJ_OK || cj_read(want, w, bytes) != CJ_OK) return 0;
    const uint16_t exp = 0x7F80, quiet = 0x0040;
    for (int64_t i = 0; i < cj_val_size(want); i++) {
        int nan = (w[i] & exp) == exp && (w[i] & (uint16_t)~(exp | 0x8000)) != 0;
        if (g[i] != w[i] && !(nan && (g[i] | quiet) == (w[i] | quiet))) return 0;
    }
    return 1;
}

static int run_one(uint64_t seed, int use_cc) {
    prog p;
    gen(&p, seed);
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t s = seed ^ 0xD1B54A32D192ED03ull;
    cj_val in[2] = {random_input(ctx, p.in_dtype[0], &s), random_input(ctx, p.in_dtype[1], &s)};
    cj_val want, got;
    int ok = 1;
    cj_status st = cj_call(cj_func_new(ctx, "dtfuzz", body, 2, 1, &p), in, &want);
    if (st != CJ_OK) {
        fprintf(stderr, "seed %llu eager: %s\n", (unsigned long long)seed, cj_error_message(ctx));
        cj_ctx_free(ctx);
        return 0;
    }
    for (int mode = 0; mode < 3 && ok; mode++) {
        if (mode == 1 && !use_cc) continue;
        cj_func *f = cj_func_new(ctx, "dtfuzz", body, 2, 1, &p);
        if (mode == 2) f = cj_vmap(f, NULL);
        if (mode < 2) {
            cj_jit_opts o = {.backend = mode == 0 ? CJ_BACKEND_INTERP : CJ_BACKEND_CC};
            f = cj_jit(f, &o);
        }
        st = cj_call(f, in, &got);
        ok = st == CJ_OK && same_bits_up_to_quieting(got, want);
        if (!ok)
            fprintf(stderr, "seed %llu mode %s: %s (rerun: CJAX_FUZZ_SEED=%llu CJAX_FUZZ_COUNT=1)\n",
                    (unsigned long long)seed, mode == 0 ? "jit interp" : mode == 1 ? "jit cc" : "vmap",
                    st == CJ_OK ? "not eager's bits" : cj_error_message(ctx), (unsigned long long)seed);
    }
    cj_ctx_free(ctx);
    return ok;
}

TEST(fuzz_new_dtypes_differential) {
    const char *n = getenv("CJAX_FUZZ_COUNT"), *s = getenv("CJAX_FUZZ_SEED");
    long long count = n ? atoll(n) : 150;
    uint64_t seed = s ? strtoull(s, NULL, 10) : 1;
    long long failed = 0;
    for (long long i = 0; i < count; i++)
        if (!run_one(seed + (uint64_t)i, (seed + (uint64_t)i) % CC_EVERY == 0)) failed++;
    fprintf(stderr, "fuzz_new_dtypes_differential: %lld programs from seed %llu, %lld failed\n", count,
            (unsigned long long)seed, failed);
    CHECK_MSG(failed == 0, "%lld of %lld programs failed (above)", failed, count);
}
