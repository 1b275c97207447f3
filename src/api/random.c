/* random.c — random numbers compatible with jax.random (api layer).
 *
 * Everything here is built from cjax operations and one primitive,
 * threefry2x32 (src/prim/random.c), so every sampler works eagerly, under
 * jit and under vmap (a batch of keys gives each key's own stream), and
 * the same seed gives the same bits as JAX with its default settings:
 * the threefry2x32 implementation, jax_threefry_partitionable on (JAX's
 * default since 0.5), jax_enable_x64 off for keys and the 32-bit samplers.
 *
 * A key is u32[2], JAX's key data (cj_random_key, split and fold_in make
 * u32 keys; an i32[2] key holding the same bit patterns, what cjax made
 * before it had unsigned types, is still taken, and split/fold_in give back
 * keys of the key's own dtype). Inside, the hash runs on i32 bit patterns
 * (the samplers' fixed arithmetic below was written for them and is bit
 * for bit JAX's), and cj_random_bits hands the user u32 (or u8/u16/u64,
 * derived from the 32-bit stream as JAX's _threefry_random_bits does).
 * Unsigned 32-bit arithmetic that the samplers need is
 * done on i64 values in [0, 2^32) (JAX's uint32 masked with 0xFFFFFFFF),
 * and the bits-to-float conversions are done with exact float arithmetic
 * instead of bit casts: JAX's bitcast of
 * (bits >> (nbits - nmant)) | bits(1.0), minus 1.0, is exactly
 * (bits with the low nbits - nmant bits cleared) * 2^-nbits.
 *
 * The algorithms follow jax/_src/random/{threefry2x32,prng,core}.py:
 *   random_bits(key, shape): threefry2x32(key, hi, lo) over the 64-bit
 *     iota of the shape split into two words; 32 bits = word0 ^ word1,
 *     64 bits = word0 << 32 | word1.
 *   split(key, n): the same hash over iota(n); key i = (word0[i], word1[i]).
 *   fold_in(key, d): threefry2x32(key, 0, uint32(d)).
 *   uniform: max(minval, u * (maxval - minval) + minval), u from the bits.
 *   normal: sqrt(2) * erf_inv(uniform(nextafter(-1, 0), 1)), erf_inv as
 *     XLA's (Giles' polynomials; float32 and float64 versions) over XLA's
 *     CPU log1p (and, in f32, its log), so f32 normals are bit for bit.
 *   randint: two draws from split(key) and JAX's modulus arithmetic.
 *   permutation: rounds of a stable sort (the sort primitive, O(n log n))
 *     of the values by fresh random 32-bit keys, as _shuffle's
 *     lax.sort_key_val.
 * The pieces the other samplers (random_dist.c) need are exported at the
 * end of this file, declared in random_internal.h. */
#include <math.h>
#include <string.h>

#include "../runtime/half.h"
#include "random_internal.h"

#define U32_MASK 4294967295.0 /* 0xFFFFFFFF as a double for cj_scalar_typed */

/* ---- argument checks ---------------------------------------------------- */

/* 0 when key is a live u32[2] or i32[2], else -1 with the error recorded. */
static int check_key(cj_val key, const char *op) {
    cj_ctx *ctx = key.ctx;
    const rt_aval *a = api_aval(key, op);
    if (!a) return -1;
    int dtype_ok = a->dtype == CJ_U32 || a->dtype == CJ_I32;
    if (!dtype_ok || a->rank != 1 || a->dims[0] != 2) {
        char t[96];
        rt_aval_str(a, t, sizeof t);
        core_error(ctx, !dtype_ok ? CJ_ERR_DTYPE : CJ_ERR_SHAPE,
                   "%s: a key must be u32[2] (from cj_random_key, split or fold_in; or i32[2] bits), got %s "
                   "(under vmap, each example's key)",
                   op, t);
        return -1;
    }
    return 0;
}

/* 0 when (rank, shape) is a valid result shape of fewer than 2^31
 * elements, else -1 with the error recorded. */
static int check_shape(cj_ctx *ctx, const char *op, int rank, const int64_t *shape) {
    if (rank > 0 && rank <= CJ_MAX_RANK && !shape)
        return core_error(ctx, CJ_ERR_ARG, "%s: shape is NULL for rank %d", op, rank);
    if (rank < 0 || rank > CJ_MAX_RANK || (rank > 0 && !shape))
        return core_error(ctx, CJ_ERR_SHAPE, "%s: rank %d is not in [0, %d]%s", op, rank, CJ_MAX_RANK,
                          rank > 0 && !shape ? " with a shape" : "");
    int64_t n = 1;
    for (int d = 0; d < rank; d++) {
        if (shape[d] < 0)
            return core_error(ctx, CJ_ERR_SHAPE, "%s: dimension %d is negative (%lld)", op, d,
                              (long long)shape[d]);
        if (shape[d] > 0 && n > INT32_MAX / shape[d])
            return core_error(ctx, CJ_ERR_UNSUPPORTED, "%s: more than 2^31 - 1 values in one draw", op);
        n *= shape[d];
    }
    return 0;
}

/* The usual entry of every public function: the context of key, or NULL
 * (then return api_err) when it is in error or the key is bad. */
static cj_ctx *enter(cj_val key, const char *op) {
    cj_ctx *ctx = key.ctx;
    if (!ctx || ctx->err) return NULL;
    return check_key(key, op) == 0 ? ctx : NULL;
}

/* ---- the hash over counters --------------------------------------------- */

static int64_t shape_size(int rank, const int64_t *shape) {
    int64_t n = 1;
    for (int d = 0; d < rank; d++) n *= shape[d];
    return n;
}

/* Word i (0 or 1) of a key, as an i32 scalar (the bits of a u32 key). */
static cj_val key_word(cj_val key, int64_t i) {
    int64_t lo = i, hi = i + 1;
    cj_val w = cj_reshape(cj_slice(key, &lo, &hi, NULL), 0, NULL);
    return cj_val_dtype(w) == CJ_U32 ? cj_bitcast_convert_type(w, CJ_I32) : w;
}

/* Keys made from key come back in its dtype (u32, or i32 for an i32 key). */
static cj_val like_key(cj_val key, cj_val keys) {
    return cj_val_dtype(key) == CJ_U32 ? cj_bitcast_convert_type(keys, CJ_U32) : keys;
}

/* threefry2x32(key, c0, c1): i32[2, shape of c0]. */
static cj_val hash(cj_val key, cj_val c0, cj_val c1) {
    cj_val in[4] = {key_word(key, 0), key_word(key, 1), c0, c1};
    prim_params p = prim_params_zero();
    return core_bind(key.ctx, PRIM_THREEFRY2X32, &p, 4, in);
}

/* The hash over JAX's iota_2x32_shape(shape): the row-major index of every
 * element as a 64-bit count split into (hi, lo) words. Sizes are below
 * 2^31 (check_shape), so hi is 0 and lo the index. */
static cj_val hash_counts(cj_val key, int rank, const int64_t *shape) {
    cj_ctx *ctx = key.ctx;
    int64_t n = shape_size(rank, shape);
    cj_val lo = cj_reshape(cj_iota(ctx, CJ_I32, 1, &n, 0), rank, shape);
    cj_val hi = cj_zeros(ctx, CJ_I32, rank, shape);
    return hash(key, hi, lo);
}

/* Word i of a hash result i32[2, shape], shaped like the counts. */
static cj_val word(cj_val words, int64_t i) {
    int64_t start[CJ_MAX_RANK + 1] = {0}, limit[CJ_MAX_RANK + 1];
    int64_t dims[CJ_MAX_RANK + 1];
    int r = cj_val_shape(words, dims);
    if (r < 1) return words; /* an error value */
    for (int d = 0; d < r; d++) limit[d] = dims[d];
    start[0] = i;
    limit[0] = i + 1;
    return cj_reshape(cj_slice(words, start, limit, NULL), r - 1, dims + 1);
}

/* JAX's 32-bit random_bits: word0 ^ word1. */
static cj_val bits32(cj_val key, int rank, const int64_t *shape) {
    cj_val w = hash_counts(key, rank, shape);
    return cj_xor(word(w, 0), word(w, 1));
}

/* split(key, 2)[i], one of the two keys samplers split off. */
static cj_val split2(cj_val key, int64_t i) {
    int64_t two = 2;
    cj_val w = hash_counts(key, 1, &two); /* [2 words, 2 keys] */
    int64_t start[2] = {0, i}, limit[2] = {2, i + 1};
    return like_key(key, cj_reshape(cj_slice(w, start, limit, NULL), 1, &two));
}

/* i32 bit patterns as their unsigned values, i64 in [0, 2^32). */
static cj_val as_unsigned(cj_val bits) {
    return cj_and(cj_astype(bits, CJ_I64), cj_scalar_typed(bits.ctx, U32_MASK, CJ_I64));
}

/* ---- keys --------------------------------------------------------------- */

cj_val cj_random_key(cj_ctx *ctx, int64_t seed) {
    if (!ctx) return api_no_ctx("cj_random_key", "ctx is NULL");
    if (ctx->err) return api_err(ctx);
    /* JAX (x64 off) makes the seed an int32 first, so the high word is 0
     * and the low word the seed's low 32 bits. */
    uint32_t data[2] = {0, (uint32_t)((uint64_t)seed & 0xFFFFFFFFu)};
    int64_t two = 2;
    return cj_array(ctx, CJ_U32, 1, &two, data);
}

cj_val cj_random_split(cj_val key, int64_t n) {
    cj_ctx *ctx = enter(key, "random_split");
    if (!ctx) return api_err(key.ctx);
    if (check_shape(ctx, "random_split", 1, &n) != 0) return api_err(ctx);
    int64_t perm[2] = {1, 0};
    return like_key(key, cj_transpose(hash_counts(key, 1, &n), perm)); /* [2, n] → [n, 2] */
}

cj_val cj_random_fold_in(cj_val key, cj_val data) {
    cj_ctx *ctx = enter(key, "random_fold_in");
    if (!ctx) return api_err(key.ctx);
    const rt_aval *d = api_aval(data, "random_fold_in");
    if (!d) return api_err(ctx);
    if (d->rank != 0 || !rt_is_int(d->dtype)) {
        char t[96];
        rt_aval_str(d, t, sizeof t);
        core_error(ctx, d->rank != 0 ? CJ_ERR_SHAPE : CJ_ERR_DTYPE,
                   "random_fold_in: data must be an integer scalar (i8 ... i64, u8 ... u64), got %s", t);
        return api_err(ctx);
    }
    /* jnp.asarray(data, uint32): the low 32 bits */
    cj_val low = cj_astype(data, CJ_I32);
    cj_val zero = cj_scalar_typed(ctx, 0, CJ_I32);
    return like_key(key, cj_reshape(hash(key, zero, low), 1, (const int64_t[]){2}));
}

cj_val cj_random_bits(cj_val key, int rank, const int64_t *shape) {
    return cj_random_bits_typed(key, CJ_U32, rank, shape);
}

/* JAX's _threefry_random_bits (partitionable): 32 bits are word0 ^ word1,
 * 8 and 16 bits that value converted down (its low bits), 64 bits
 * word0 << 32 | word1. */
cj_val cj_random_bits_typed(cj_val key, cj_dtype dtype, int rank, const int64_t *shape) {
    cj_ctx *ctx = enter(key, "random_bits");
    if (!ctx) return api_err(key.ctx);
    if (dtype != CJ_U8 && dtype != CJ_U16 && dtype != CJ_U32 && dtype != CJ_U64)
    {
        core_error(ctx, CJ_ERR_DTYPE, "random_bits: dtype must be u8, u16, u32 or u64 (as jax.random.bits), got %s",
                   rt_dtype_valid((int)dtype) ? cj_dtype_name(dtype) : "an unknown dtype");
        return api_err(ctx);
    }
    if (check_shape(ctx, "random_bits", rank, shape) != 0) return api_err(ctx);
    if (dtype != CJ_U64) return cj_astype(cj_bitcast_convert_type(bits32(key, rank, shape), CJ_U32), dtype);
    cj_val w = hash_counts(key, rank, shape);
    cj_val hi = cj_astype(cj_bitcast_convert_type(word(w, 0), CJ_U32), CJ_U64);
    cj_val lo = cj_astype(cj_bitcast_convert_type(word(w, 1), CJ_U32), CJ_U64);
    return cj_or(cj_shift_left(hi, cj_scalar_typed(ctx, 32, CJ_U64)), lo);
}

/* ---- uniform ------------------------------------------------------------- */

static int is_narrow(cj_dtype dt) { return dt == CJ_F16 || dt == CJ_BF16; }

/* Floats in [0, 1) from the key's bits, as JAX's uniform before scaling:
 * f16 / bf16 (below), f32 keeps the top 23 bits of the 32-bit draw, f64 the top 52 of the
 * 64-bit one (word0 high, word1 low). Every step is exact. */
static cj_val unit_floats(cj_val key, cj_dtype dtype, int rank, const int64_t *shape) {
    cj_ctx *ctx = key.ctx;
    if (is_narrow(dtype)) {
        /* JAX draws the dtype's width: 16 bits (the low half of the 32-bit
         * draw) for f16, whose top 10 make the mantissa; 8 bits for bf16
         * (nmant 7 < 8), whose top 7 do. (bits >> shift) * 2^-nmant is the
         * low bits masked, times 2^-width; exact in f32 and in the dtype. */
        double mask = dtype == CJ_F16 ? 65472.0 /* 0xFFC0 */ : 254.0 /* 0xFE */;
        double scale = dtype == CJ_F16 ? ldexp(1, -16) : ldexp(1, -8);
        cj_val m = cj_and(as_unsigned(bits32(key, rank, shape)), cj_scalar_typed(ctx, mask, CJ_I64));
        return cj_astype(cj_mul(cj_astype(m, CJ_F32), cj_scalar_typed(ctx, scale, CJ_F32)), dtype);
    }
    if (dtype == CJ_F32) {
        cj_val top23 = cj_and(as_unsigned(bits32(key, rank, shape)),
                              cj_scalar_typed(ctx, 4294966784.0 /* 0xFFFFFE00 */, CJ_I64));
        return cj_mul(cj_astype(top23, CJ_F32), cj_scalar_typed(ctx, ldexp(1, -32), CJ_F32));
    }
    cj_val w = hash_counts(key, rank, shape);
    cj_val hi = cj_astype(as_unsigned(word(w, 0)), CJ_F64);
    cj_val lo20 = cj_astype(cj_and(as_unsigned(word(w, 1)), cj_scalar_typed(ctx, 4294963200.0 /* 0xFFFFF000 */, CJ_I64)),
                            CJ_F64);
    return cj_add(cj_mul(hi, cj_scalar_typed(ctx, ldexp(1, -32), CJ_F64)),
                  cj_mul(lo20, cj_scalar_typed(ctx, ldexp(1, -64), CJ_F64)));
}

static int check_float_dtype(cj_ctx *ctx, const char *op, cj_dtype dtype) {
    if (dtype == CJ_F32 || dtype == CJ_F64) return 0;
    return core_error(ctx, CJ_ERR_DTYPE, "%s: dtype must be f32 or f64%s, got %s", op,
                      is_narrow(dtype) ? " (f16/bf16 are not supported by this sampler yet)" : "",
                      rt_dtype_valid((int)dtype) ? cj_dtype_name(dtype) : "an unknown dtype");
}

/* The samplers that take the narrow floats too (as their JAX versions do). */
static int check_any_float_dtype(cj_ctx *ctx, const char *op, cj_dtype dtype) {
    if (dtype == CJ_F32 || dtype == CJ_F64 || is_narrow(dtype)) return 0;
    return core_error(ctx, CJ_ERR_DTYPE, "%s: dtype must be f16, bf16, f32 or f64, got %s", op,
                      rt_dtype_valid((int)dtype) ? cj_dtype_name(dtype) : "an unknown dtype");
}

/* a * b + c with one rounding for f32 operands, as XLA's CPU backend
 * computes it (LLVM contracts the multiply and add into a fused
 * multiply-add): the f32 product is exact in f64, so only the f64 sum
 * rounds before the final rounding to f32 (a double rounding that can
 * differ from a true fma only when the sum lands exactly on a float
 * midpoint: about one draw in 2^28). */
static cj_val fma_f32(cj_val a, cj_val b, cj_val c) {
    cj_val p = cj_mul(cj_astype(a, CJ_F64), cj_astype(b, CJ_F64));
    return cj_astype(cj_add(p, cj_astype(c, CJ_F64)), CJ_F32);
}

/* a * b + c with one rounding for f64 (nearly: see below), from f64
 * operations: the product split exactly into ph + pl (Dekker's
 * TwoProduct with Veltkamp's splitting), ph + c exactly into s + e
 * (Knuth's TwoSum), then s + (e + pl). Only when the exact result lies
 * within about 2^-53 of its last place's rounding boundary can the
 * rounding of e + pl change the answer, far rarer than one draw in 2^40. */
static cj_val split_hi(cj_val x) {
    cj_val t = cj_mul(x, cj_scalar_typed(x.ctx, 134217729.0 /* 2^27 + 1 */, CJ_F64));
    return cj_sub(t, cj_sub(t, x));
}

static cj_val fma_f64(cj_val a, cj_val b, cj_val c) {
    cj_val ah = split_hi(a), bh = split_hi(b);
    cj_val al = cj_sub(a, ah), bl = cj_sub(b, bh);
    cj_val ph = cj_mul(a, b);
    cj_val pl = cj_add(cj_add(cj_add(cj_sub(cj_mul(ah, bh), ph), cj_mul(ah, bl)), cj_mul(al, bh)), cj_mul(al, bl));
    cj_val s = cj_add(ph, c);
    cj_val bb = cj_sub(s, ph);
    cj_val e = cj_add(cj_sub(ph, cj_sub(s, bb)), cj_sub(c, bb));
    return cj_add(s, cj_add(e, pl));
}

/* XLA's a * b + c: its CPU backend lets LLVM contract the multiply and
 * add into a fused multiply-add, so it rounds once. cjax has no fma
 * operation; these compute the same from exact pieces. */
static cj_val mul_add(cj_val a, cj_val b, cj_val c) {
    return cj_val_dtype(a) == CJ_F32 ? fma_f32(a, b, c) : fma_f64(a, b, c);
}

/* u * (hi - lo) + lo, then max with lo. In the narrow floats XLA on CPU
 * rounds differently per type (measured against jax 0.10.2 over 200,000
 * draws with bounds 0.3, 2.7 and -3.1, 0.7): bf16 rounds every step (XLA
 * widens each bf16 operation to f32 alone); f16 rounds hi - lo, but the
 * multiply and add become one f16 fused multiply-add that LLVM computes
 * in f32 (the product of two f16 values is exact there) and rounds once. */
static cj_val uniform_v(cj_val key, cj_dtype dtype, int rank, const int64_t *shape, cj_val lo, cj_val hi) {
    cj_val u = unit_floats(key, dtype, rank, shape);
    if (dtype == CJ_F16) {
        cj_val d = cj_astype(cj_sub(hi, lo), CJ_F32);
        cj_val r = cj_add(cj_mul(cj_astype(u, CJ_F32), d), cj_astype(lo, CJ_F32));
        return cj_max(lo, cj_astype(r, CJ_F16));
    }
    if (dtype == CJ_BF16) return cj_max(lo, cj_add(cj_mul(u, cj_sub(hi, lo)), lo));
    return cj_max(lo, mul_add(u, cj_sub(hi, lo), lo));
}

/* A C double bound as JAX passes a Python float: a weak f32 first, then
 * converted to the dtype (f64 directly: JAX with x64 on). */
static cj_val bound(cj_ctx *ctx, double v, cj_dtype dtype) {
    if (is_narrow(dtype)) return cj_astype(cj_scalar_typed(ctx, (double)(float)v, CJ_F32), dtype);
    return cj_scalar_typed(ctx, v, dtype);
}

static cj_val uniform(cj_val key, cj_dtype dtype, int rank, const int64_t *shape, double minval, double maxval) {
    cj_ctx *ctx = key.ctx;
    return uniform_v(key, dtype, rank, shape, bound(ctx, minval, dtype), bound(ctx, maxval, dtype));
}

cj_val cj_random_uniform(cj_val key, cj_dtype dtype, int rank, const int64_t *shape, double minval,
                         double maxval) {
    cj_ctx *ctx = enter(key, "random_uniform");
    if (!ctx) return api_err(key.ctx);
    if (check_any_float_dtype(ctx, "random_uniform", dtype) != 0 || check_shape(ctx, "random_uniform", rank, shape) != 0)
        return api_err(ctx);
    return uniform(key, dtype, rank, shape, minval, maxval);
}

/* ---- normal --------------------------------------------------------------- */

/* Coefficients of XLA's ErfInv32 (Giles, "Approximating the erfinv
 * function"), highest degree first, for w < 5 and w >= 5. */
static const double ERFINV32_LT5[9] = {2.81022636e-08,  3.43273939e-07, -3.5233877e-06,
                                       -4.39150654e-06, 0.00021858087,  -0.00125372503,
                                       -0.00417768164,  0.246640727,    1.50140941};
static const double ERFINV32_GE5[9] = {-0.000200214257, 0.000100950558, 0.00134934322,
                                       -0.00367342844,  0.00573950773,  -0.0076224613,
                                       0.00943887047,   1.00167406,     2.83297682};
/* XLA's ErfInv64: w < 6.25 (23 terms), w < 16 (19), w >= 16 (17). */
static const double ERFINV64_LT625[23] = {
    -3.6444120640178196996e-21, -1.685059138182016589e-19,  1.2858480715256400167e-18,
    1.115787767802518096e-17,   -1.333171662854620906e-16,  2.0972767875968561637e-17,
    6.6376381343583238325e-15,  -4.0545662729752068639e-14, -8.1519341976054721522e-14,
    2.6335093153082322977e-12,  -1.2975133253453532498e-11, -5.4154120542946279317e-11,
    1.051212273321532285e-09,   -4.1126339803469836976e-09, -2.9070369957882005086e-08,
    4.2347877827932403518e-07,  -1.3654692000834678645e-06, -1.3882523362786468719e-05,
    0.0001867342080340571352,   -0.00074070253416626697512, -0.0060336708714301490533,
    0.24015818242558961693,     1.6536545626831027356};
static const double ERFINV64_LT16[19] = {
    2.2137376921775787049e-09,  9.0756561938885390979e-08,  -2.7517406297064545428e-07,
    1.8239629214389227755e-08,  1.5027403968909827627e-06,  -4.013867526981545969e-06,
    2.9234449089955446044e-06,  1.2475304481671778723e-05,  -4.7318229009055733981e-05,
    6.8284851459573175448e-05,  2.4031110387097893999e-05,  -0.0003550375203628474796,
    0.00095328937973738049703,  -0.0016882755560235047313, 0.0024914420961078508066,
    -0.0037512085075692412107,  0.005370914553590063617,    1.0052589676941592334,
    3.0838856104922207635};
static const double ERFINV64_GE16[17] = {
    -2.7109920616438573243e-11, -2.5556418169965252055e-10, 1.5076572693500548083e-09,
    -3.7894654401267369937e-09, 7.6157012080783393804e-09,  -1.4960026627149240478e-08,
    2.9147953450901080826e-08,  -6.7711997758452339498e-08, 2.2900482228026654717e-07,
    -9.9298272942317002539e-07, 4.5260625972231537039e-06,  -1.9681778105531670567e-05,
    7.5995277030017761139e-05,  -0.00021503011930044477347, -0.00013871931833623122026,
    1.0103004648645343977,      4.8499064014085844221};

static cj_val typed(cj_ctx *ctx, double v, cj_dtype dt) { return cj_scalar_typed(ctx, v, dt); }

/* c + p * w, the Horner step, in the order XLA evaluates it. */
static cj_val horner_step(cj_val c, cj_val p, cj_val w) { return mul_add(p, w, c); }

/* ---- XLA's CPU log1p, which erf_inv calls ----
 * cjax's vectorised log1p and log round differently from XLA's, and
 * erf_inv magnifies a last-bit difference of log1p(-x^2) near |x| = 1, so
 * normal draws XLA's own: its elemental log1p (measured bit for bit
 * against jax 0.10.2 on millions of inputs): for |x| < sqrt(2) - 1
 *   x + (-x^2/2 + x * x^2 * P(x) / Q(x))   (Cephes' rational function)
 * and log(x + 1) elsewhere. Every multiply feeding an add once is a fused
 * multiply-add, as LLVM contracts them (XLA allows FP op fusion). */
static const double LOG1P_P[7] = {4.5270000862445199635215E-5, 4.9854102823193375972212E-1,
                                  6.5787325942061044846969E0,  2.9911919328553073277375E1,
                                  6.0949667980987787057556E1,  5.7112963590585538103336E1,
                                  2.0039553499201281259648E1};
static const double LOG1P_Q[7] = {1.0,
                                  1.5062909083469192043167E1,  8.3047565967967209469434E1,
                                  2.2176239823732856465394E2,  3.0909872225312059774938E2,
                                  2.1642788614495947685003E2,  6.0118660497603843919306E1};

/* y = m * 2^e with m in [0.5, 1), for y in [2^-31, 1) (exact: scaling by
 * powers of two), e as a float of y's dtype. cjax has no bit casts, so the
 * exponent is found by five halving steps of a binary search. */
static void frexp_unit(cj_val y, cj_val *m, cj_val *e) {
    cj_ctx *ctx = y.ctx;
    cj_dtype dt = cj_val_dtype(y);
    *m = y;
    *e = cj_zeros_like(y);
    for (int k = 16; k >= 1; k /= 2) {
        cj_val below = cj_lt(*m, typed(ctx, ldexp(1, -k), dt));
        *m = cj_where(below, cj_mul(*m, typed(ctx, ldexp(1, k), dt)), *m);
        *e = cj_where(below, cj_sub(*e, typed(ctx, k, dt)), *e);
    }
}

/* frexp_unit for every positive normal f32 (2^-126 <= y < 2^128): the
 * same halving search, first down from above 1, then up from below 1/2. */
static void frexp_wide(cj_val y, cj_val *m, cj_val *e) {
    cj_ctx *ctx = y.ctx;
    cj_dtype dt = cj_val_dtype(y);
    *m = y;
    *e = cj_zeros_like(y);
    for (int k = 64; k >= 1; k /= 2) {
        cj_val above = cj_ge(*m, typed(ctx, ldexp(1, k), dt));
        *m = cj_where(above, cj_mul(*m, typed(ctx, ldexp(1, -k), dt)), *m);
        *e = cj_where(above, cj_add(*e, typed(ctx, k, dt)), *e);
    }
    cj_val above = cj_ge(*m, typed(ctx, 1, dt));
    *m = cj_where(above, cj_mul(*m, typed(ctx, 0.5, dt)), *m);
    *e = cj_where(above, cj_add(*e, typed(ctx, 1, dt)), *e);
    for (int k = 64; k >= 1; k /= 2) {
        cj_val below = cj_lt(*m, typed(ctx, ldexp(1, -k), dt));
        *m = cj_where(below, cj_mul(*m, typed(ctx, ldexp(1, k), dt)), *m);
        *e = cj_where(below, cj_sub(*e, typed(ctx, k, dt)), *e);
    }
}

/* XLA's f32 log on CPU (Cephes' logf as Eigen vectorises it: the
 * polynomial in three interleaved parts, constants rounded to f32), for
 * y in [2^-31, 1); in f64 XLA calls the C library's log, for which cjax's
 * log stands in (it agrees to the last bit in most values, see
 * docs/API.md). */
static cj_val xla_log_f32(cj_val y, int wide) {
    cj_ctx *ctx = y.ctx;
    if (cj_val_dtype(y) != CJ_F32) return cj_log(y);
    cj_val m, e;
    if (wide) frexp_wide(y, &m, &e);
    else frexp_unit(y, &m, &e);
    cj_val small = cj_lt(m, typed(ctx, 0x1.6a09e6p-1 /* f32 sqrt(0.5) */, CJ_F32));
    cj_val x = cj_add(cj_sub(m, typed(ctx, 1, CJ_F32)), cj_where(small, m, typed(ctx, 0, CJ_F32)));
    e = cj_sub(e, cj_where(small, typed(ctx, 1, CJ_F32), typed(ctx, 0, CJ_F32)));
    cj_val x2 = cj_mul(x, x), x3 = cj_mul(x2, x);
    cj_val a = mul_add(x, typed(ctx, 0x1.204376p-4, CJ_F32), typed(ctx, -0x1.d7a37p-4, CJ_F32));
    cj_val b = mul_add(x, typed(ctx, -0x1.fcba9ep-4, CJ_F32), typed(ctx, 0x1.23d37ep-3, CJ_F32));
    cj_val c = mul_add(x, typed(ctx, 0x1.999d58p-3, CJ_F32), typed(ctx, -0x1.fffff8p-3, CJ_F32));
    a = mul_add(a, x, typed(ctx, 0x1.de4a34p-4, CJ_F32));
    b = mul_add(b, x, typed(ctx, -0x1.555ca0p-3, CJ_F32));
    c = mul_add(c, x, typed(ctx, 0x1.555554p-2, CJ_F32));
    a = mul_add(a, x3, b);
    a = mul_add(a, x3, c);
    cj_val t = mul_add(a, x3, cj_mul(typed(ctx, -0x1.bd0106p-13, CJ_F32), e));
    cj_val r = cj_add(mul_add(typed(ctx, -0.5, CJ_F32), x2, x), t);
    return mul_add(typed(ctx, 0x1.63p-1 /* 0.693359375 */, CJ_F32), e, r);
}

static cj_val xla_log(cj_val y) { return xla_log_f32(y, 0); }

/* XLA's log1p for x in (-1, 0] (what erf_inv passes it). */
static cj_val xla_log1p(cj_val x) {
    cj_ctx *ctx = x.ctx;
    cj_dtype dt = cj_val_dtype(x);
    cj_val x2 = cj_mul(x, x);
    cj_val num = typed(ctx, LOG1P_P[0], dt), den = typed(ctx, LOG1P_Q[0], dt);
    for (int i = 1; i < 7; i++) {
        num = mul_add(num, x, typed(ctx, LOG1P_P[i], dt));
        den = mul_add(den, x, typed(ctx, LOG1P_Q[i], dt));
    }
    cj_val t = cj_mul(cj_mul(x, x2), cj_div(num, den));
    cj_val small = cj_add(x, mul_add(x2, typed(ctx, -0.5, dt), t));
    cj_val large = xla_log(cj_add(x, typed(ctx, 1, dt)));
    cj_val is_small = cj_lt(cj_abs(x), typed(ctx, 0.41421356237309504880 /* sqrt(2) - 1 */, dt));
    return cj_where(is_small, small, large);
}

static cj_val erf_inv32(cj_val x) {
    cj_ctx *ctx = x.ctx;
    cj_val w = cj_neg(xla_log1p(cj_neg(cj_mul(x, x))));
    cj_val lt = cj_lt(w, typed(ctx, 5, CJ_F32));
    cj_val t = cj_where(lt, cj_sub(w, typed(ctx, 2.5, CJ_F32)), cj_sub(cj_sqrt(w), typed(ctx, 3, CJ_F32)));
    cj_val p = cj_where(lt, typed(ctx, ERFINV32_LT5[0], CJ_F32), typed(ctx, ERFINV32_GE5[0], CJ_F32));
    for (int i = 1; i < 9; i++)
        p = horner_step(cj_where(lt, typed(ctx, ERFINV32_LT5[i], CJ_F32), typed(ctx, ERFINV32_GE5[i], CJ_F32)), p, t);
    return cj_mul(p, x); /* |x| < 1 here, so XLA's |x| == 1 case never arises */
}

static cj_val erf_inv64(cj_val x) {
    cj_ctx *ctx = x.ctx;
    cj_val w = cj_neg(xla_log1p(cj_neg(cj_mul(x, x))));
    cj_val lt625 = cj_lt(w, typed(ctx, 6.25, CJ_F64)), lt16 = cj_lt(w, typed(ctx, 16, CJ_F64));
    cj_val sqrt_w = cj_sqrt(w);
    cj_val t = cj_where(lt625, cj_sub(w, typed(ctx, 3.125, CJ_F64)),
                        cj_sub(sqrt_w, cj_where(lt16, typed(ctx, 3.25, CJ_F64), typed(ctx, 5, CJ_F64))));
    cj_val c[23];
    for (int i = 0; i < 23; i++) {
        c[i] = typed(ctx, ERFINV64_LT625[i], CJ_F64);
        if (i < 19) c[i] = cj_where(lt625, c[i], typed(ctx, ERFINV64_LT16[i], CJ_F64));
        if (i < 17) c[i] = cj_where(lt16, c[i], typed(ctx, ERFINV64_GE16[i], CJ_F64));
    }
    cj_val p = c[0];
    for (int i = 1; i < 17; i++) p = horner_step(c[i], p, t);
    for (int i = 17; i < 19; i++) p = cj_where(lt16, horner_step(c[i], p, t), p);
    for (int i = 19; i < 23; i++) p = cj_where(lt625, horner_step(c[i], p, t), p);
    return cj_mul(p, x);
}

cj_val cj_random_normal(cj_val key, cj_dtype dtype, int rank, const int64_t *shape) {
    cj_ctx *ctx = enter(key, "random_normal");
    if (!ctx) return api_err(key.ctx);
    if (check_any_float_dtype(ctx, "random_normal", dtype) != 0 || check_shape(ctx, "random_normal", rank, shape) != 0)
        return api_err(ctx);
    /* nextafter(-1, 0) in the dtype: -(1 - 2^-(nmant + 1)) */
    double lo = dtype == CJ_F16    ? -1.0 + ldexp(1, -11)
                : dtype == CJ_BF16 ? -1.0 + ldexp(1, -8)
                : dtype == CJ_F32  ? (double)nextafterf(-1.0f, 0.0f)
                                   : nextafter(-1.0, 0.0);
    cj_val u = uniform(key, dtype, rank, shape, lo, 1.0);
    /* XLA's erf_inv of f16/bf16 is its f32 one on the widened value, rounded;
     * the product with sqrt(2) (rounded to the dtype) rounds once more */
    cj_val e = is_narrow(dtype)  ? cj_astype(erf_inv32(cj_astype(u, CJ_F32)), dtype)
                : dtype == CJ_F32 ? erf_inv32(u)
                                  : erf_inv64(u);
    return cj_mul(typed(ctx, sqrt(2.0), dtype), e);
}

/* ---- bernoulli ------------------------------------------------------------- */

cj_val cj_random_bernoulli(cj_val key, double p, int rank, const int64_t *shape) {
    cj_ctx *ctx = enter(key, "random_bernoulli");
    if (!ctx) return api_err(key.ctx);
    if (check_shape(ctx, "random_bernoulli", rank, shape) != 0) return api_err(ctx);
    /* JAX: uniform(key, shape, dtype of p) < p, p a weak float32 */
    return cj_lt(uniform(key, CJ_F32, rank, shape, 0.0, 1.0), typed(ctx, p, CJ_F32));
}

/* ---- randint ------------------------------------------------------------- */

/* x % span on unsigned values held in i64 (XLA: x % 0 = x). */
static cj_val rem_u(cj_val x, uint64_t span) {
    return span ? cj_rem(x, typed(x.ctx, (double)span, CJ_I64)) : x;
}

/* JAX's _randint over 32 bits, for i32 (signed) or u32 (unsigned) results:
 * the bounds clipped to the dtype, the span as uint32, and the constants
 * it derives from them (all known here, as the bounds are C values).
 * uint32 arithmetic wraps, so it is done in i64 and masked. */
static cj_val randint32(cj_val key, int rank, const int64_t *shape, int64_t minval, int64_t maxval, cj_dtype dtype) {
    cj_ctx *ctx = key.ctx;
    int64_t dmin = dtype == CJ_U32 ? 0 : INT32_MIN, dmax = dtype == CJ_U32 ? (int64_t)UINT32_MAX : INT32_MAX;
    const uint64_t mask = 0xFFFFFFFFu;
    int64_t lo = minval < dmin ? dmin : minval > dmax ? dmax : minval;
    int64_t hi = maxval < dmin ? dmin : maxval > dmax ? dmax : maxval;
    uint64_t span = (uint64_t)(hi - lo) & mask;
    if (hi <= lo) span = 1; /* minval is always returned */
    if (maxval > dmax && hi > lo) span = (span + 1) & mask; /* may wrap to 0: then the whole range */
    uint64_t m = span ? 65536u % span : 65536u;
    m = (m * m) & mask;
    if (span) m %= span;

    cj_val bmask = typed(ctx, (double)mask, CJ_I64);
    cj_val higher = as_unsigned(bits32(split2(key, 0), rank, shape));
    cj_val lower = as_unsigned(bits32(split2(key, 1), rank, shape));
    cj_val offset = rem_u(lower, span);
    if (m != 0) offset = cj_add(cj_mul(rem_u(higher, span), typed(ctx, (double)m, CJ_I64)), offset);
    offset = rem_u(cj_and(offset, bmask), span);
    /* minval + offset, wrapping in the dtype */
    return cj_astype(cj_add(offset, typed(ctx, (double)lo, CJ_I64)), dtype);
}

/* The range of an 8- or 16-bit integer dtype; 0 for any other. */
static int narrow_int_range(cj_dtype dtype, int64_t *dmin, int64_t *dmax) {
    switch (dtype) {
    case CJ_I8: *dmin = INT8_MIN, *dmax = INT8_MAX; return 1;
    case CJ_U8: *dmin = 0, *dmax = UINT8_MAX; return 1;
    case CJ_I16: *dmin = INT16_MIN, *dmax = INT16_MAX; return 1;
    case CJ_U16: *dmin = 0, *dmax = UINT16_MAX; return 1;
    default: return 0;
    }
}

static int64_t clip64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

cj_val cj_random_randint(cj_val key, int rank, const int64_t *shape, int64_t minval, int64_t maxval,
                         cj_dtype dtype) {
    cj_ctx *ctx = enter(key, "random_randint");
    if (!ctx) return api_err(key.ctx);
    int64_t dmin = 0, dmax = 0;
    int narrow = narrow_int_range(dtype, &dmin, &dmax);
    if (!narrow && dtype != CJ_I32 && dtype != CJ_I64 && dtype != CJ_U32) {
        core_error(ctx, CJ_ERR_DTYPE, "random_randint: dtype must be i8, i16, i32, i64, u8, u16 or u32, got %s",
                   rt_dtype_valid((int)dtype) ? cj_dtype_name(dtype) : "an unknown dtype");
        return api_err(ctx);
    }
    if (check_shape(ctx, "random_randint", rank, shape) != 0) return api_err(ctx);
    if (narrow) {
        /* as jax.random.randint: fewer than 32 bits sample int32 between the
         * bounds made int32 and clipped to [min, max] and [min, max + 1] of
         * the dtype (so maxval past the range still reaches max), then
         * convert */
        minval = clip64(clip64(minval, INT32_MIN, INT32_MAX), dmin, dmax);
        maxval = clip64(clip64(maxval, INT32_MIN, INT32_MAX), dmin, dmax + 1);
        return cj_astype(randint32(key, rank, shape, minval, maxval, CJ_I32), dtype);
    }
    /* i64: int32 samples (JAX's dtype with x64 off), widened */
    cj_val r = randint32(key, rank, shape, minval, maxval, dtype == CJ_U32 ? CJ_U32 : CJ_I32);
    return dtype == CJ_I64 ? cj_astype(r, CJ_I64) : r;
}

/* ---- permutation ------------------------------------------------------------ */

/* vals reordered by a stable ascending sort of the uint32 keys (both
 * 1-D, keys as i32 bit patterns), as lax.sort_key_val: O(n log n). */
static cj_val sort_by_keys(cj_val keys, cj_val vals) {
    cj_ctx *ctx = keys.ctx;
    /* flipping the sign bit makes signed order the unsigned order */
    cj_val in[2] = {cj_xor(keys, typed(ctx, (double)INT32_MIN, CJ_I32)), vals}, out[2];
    cj_sort_multi(2, in, 0, 1, 1, out);
    return out[1];
}

/* JAX's _shuffle of arange(n): ceil(3 ln n / ln(2^32 - 1)) rounds, each
 * with a fresh subkey from split(key). */
static cj_val shuffled_range(cj_val key, int64_t n) {
    cj_ctx *ctx = key.ctx;
    cj_val x = cj_iota(ctx, CJ_I32, 1, &n, 0);
    int rounds = (int)ceil(3.0 * log((double)(n > 1 ? n : 1)) / log(4294967295.0));
    for (int r = 0; r < rounds; r++) {
        cj_val sub = split2(key, 1);
        key = split2(key, 0);
        x = sort_by_keys(bits32(sub, 1, &n), x);
    }
    return x;
}

cj_val cj_random_permutation(cj_val key, int64_t n) {
    cj_ctx *ctx = enter(key, "random_permutation");
    if (!ctx) return api_err(key.ctx);
    if (n < 0) {
        core_error(ctx, CJ_ERR_ARG, "random_permutation: n must be >= 0, got %lld", (long long)n);
        return api_err(ctx);
    }
    if (check_shape(ctx, "random_permutation", 1, &n) != 0) return api_err(ctx);
    return shuffled_range(key, n);
}

cj_val cj_random_permutation_array(cj_val key, cj_val x, int64_t axis) {
    cj_ctx *ctx = enter(key, "random_permutation");
    if (!ctx) return api_err(key.ctx);
    const rt_aval *xa = api_aval(x, "random_permutation");
    if (!xa) return api_err(ctx);
    if (xa->rank == 0) {
        core_error(ctx, CJ_ERR_SHAPE,
                   "random_permutation: x must be at least 1-D (use cj_random_permutation for a range)");
        return api_err(ctx);
    }
    int64_t ax;
    if (api_axis(ctx, "random_permutation", axis, xa->rank, &ax) != 0) return api_err(ctx);
    /* JAX shuffles a 1-D x itself and takes the shuffled range along the
     * axis otherwise; both reorder by the same sort keys, so one way does. */
    return cj_take(x, shuffled_range(key, xa->dims[ax]), ax);
}

/* ---- the pieces random_dist.c builds on (random_internal.h) ------------- */

cj_ctx *random_enter(cj_val key, const char *op) { return enter(key, op); }
int random_check_shape(cj_ctx *ctx, const char *op, int rank, const int64_t *shape) {
    return check_shape(ctx, op, rank, shape);
}
int random_check_float_dtype(cj_ctx *ctx, const char *op, cj_dtype dtype) {
    return check_float_dtype(ctx, op, dtype);
}
int random_check_any_float_dtype(cj_ctx *ctx, const char *op, cj_dtype dtype) {
    return check_any_float_dtype(ctx, op, dtype);
}
int random_is_narrow(cj_dtype dtype) { return is_narrow(dtype); }
cj_val random_bound(cj_ctx *ctx, double v, cj_dtype dtype) { return bound(ctx, v, dtype); }
cj_val random_bits32(cj_val key, int rank, const int64_t *shape) { return bits32(key, rank, shape); }
cj_val random_split2(cj_val key, int64_t i) { return split2(key, i); }
cj_val random_split_at(cj_val key, int64_t n, int64_t i) {
    cj_val w = hash_counts(key, 1, &n); /* [2 words, n keys] */
    int64_t start[2] = {0, i}, limit[2] = {2, i + 1}, two = 2;
    return like_key(key, cj_reshape(cj_slice(w, start, limit, NULL), 1, &two));
}
/* uniform with bounds that are constants inside JAX's sampler (logistic's
 * and gumbel's tiny and 1): in f16, when hi - lo rounds to 1, XLA's
 * simplifier drops the multiply and reassociates (x - 1) + lo into
 * x + (lo - 1) with the constant folded in f16 (x = 1 + u, the bit-built
 * float), so u + tiny becomes u: reproduced here. Elsewhere uniform's. */
cj_val random_uniform_const(cj_val key, cj_dtype dtype, int rank, const int64_t *shape, double lo, double hi) {
    cj_ctx *ctx = key.ctx;
    if (dtype == CJ_F16) {
        float lo16 = rt_f16_to_f32(rt_f32_to_f16((float)lo)), hi16 = rt_f16_to_f32(rt_f32_to_f16((float)hi));
        if (rt_f16_to_f32(rt_f32_to_f16(hi16 - lo16)) == 1.0f) {
            cj_val x = cj_add(unit_floats(key, dtype, rank, shape), typed(ctx, 1, dtype)); /* exact */
            cj_val c = typed(ctx, rt_f16_to_f32(rt_f32_to_f16(lo16 - 1.0f)), dtype);
            return cj_max(typed(ctx, lo16, dtype), cj_add(x, c));
        }
    }
    return uniform(key, dtype, rank, shape, lo, hi);
}
cj_val random_uniform_v(cj_val key, cj_dtype dtype, int rank, const int64_t *shape, cj_val lo, cj_val hi) {
    return uniform_v(key, dtype, rank, shape, lo, hi);
}
/* log over every float: 0 gives -inf, +inf gives +inf, below 0 NaN (the
 * polynomial itself is only for positive normal floats). */
/* f16 / bf16: XLA's f32 function of the widened value, rounded (what XLA
 * on CPU computes for the narrow types: measured over all 65,536 inputs of
 * each, for log, log1p, erf_inv, tan and erf). */
static cj_val narrow_via_f32(cj_val x, cj_val (*f)(cj_val)) {
    return cj_astype(f(cj_astype(x, CJ_F32)), cj_val_dtype(x));
}

cj_val random_xla_log(cj_val y) {
    cj_ctx *ctx = y.ctx;
    cj_dtype dt = cj_val_dtype(y);
    if (is_narrow(dt)) return narrow_via_f32(y, random_xla_log);
    if (dt != CJ_F32) return cj_log(y);
    cj_val safe = cj_where(cj_gt(y, typed(ctx, 0, dt)), y, typed(ctx, 1, dt));
    safe = cj_where(cj_is_finite(safe), safe, typed(ctx, 1, dt));
    cj_val r = xla_log_f32(safe, 1);
    r = cj_where(cj_eq(y, typed(ctx, 0, dt)), typed(ctx, -INFINITY, dt), r);
    r = cj_where(cj_eq(y, typed(ctx, INFINITY, dt)), typed(ctx, INFINITY, dt), r);
    return cj_where(cj_lt(y, typed(ctx, 0, dt)), typed(ctx, NAN, dt), cj_where(cj_ne(y, y), y, r));
}
cj_val random_xla_log1p(cj_val x) {
    return is_narrow(cj_val_dtype(x)) ? narrow_via_f32(x, xla_log1p) : xla_log1p(x);
}
cj_val random_erf_inv(cj_val x) {
    cj_dtype dt = cj_val_dtype(x);
    if (is_narrow(dt)) return narrow_via_f32(x, erf_inv32);
    return dt == CJ_F32 ? erf_inv32(x) : erf_inv64(x);
}
cj_val random_mul_add(cj_val a, cj_val b, cj_val c) { return mul_add(a, b, c); }
