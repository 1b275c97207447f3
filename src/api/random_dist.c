/* random_dist.c — jax.random's samplers built on uniform and normal (api
 * layer): exponential, laplace, logistic, gumbel (modes "low" and "high"),
 * cauchy, rademacher,
 * truncated_normal, categorical, choice, multivariate_normal, orthogonal.
 *
 * Each follows its jax/_src/random/core.py definition step for step over
 * the pieces of random.c (random_internal.h), so a draw uses the same bits
 * as JAX's, and every sampler is made of ordinary cjax operations: it
 * works eagerly, under jit and under vmap over keys, and differentiates
 * where JAX's does (multivariate_normal in mean and cov). Where the result
 * goes through XLA's f32 log/log1p (exponential, laplace, logistic,
 * gumbel, categorical, choice) it is bit for bit in f32; f64, tan, erf and
 * the linear algebra use cjax's own functions and are within the ulps
 * docs/API.md lists (measured against the committed fixtures). */
#include <float.h>
#include <math.h>
#include <string.h>

#include "random_internal.h"

static cj_val typed(cj_ctx *ctx, double v, cj_dtype dt) { return cj_scalar_typed(ctx, v, dt); }

/* The common entry of the (key, dtype, shape) samplers. */
static cj_ctx *enter_shaped(cj_val key, const char *op, cj_dtype dtype, int rank, const int64_t *shape) {
    cj_ctx *ctx = random_enter(key, op);
    if (!ctx) return NULL;
    if (random_check_any_float_dtype(ctx, op, dtype) != 0 || random_check_shape(ctx, op, rank, shape) != 0)
        return NULL;
    return ctx;
}

static cj_val uniform_d(cj_val key, cj_dtype dt, int rank, const int64_t *shape, double lo, double hi) {
    return random_uniform_const(key, dt, rank, shape, lo, hi);
}

/* finfo's tiny (the least normal), eps (1 ulp above 1) and epsneg (1 ulp
 * below 1) per float dtype */
static double tiny_of(cj_dtype dt) {
    return dt == CJ_F16 ? ldexp(1, -14) : dt == CJ_BF16 ? (double)FLT_MIN : dt == CJ_F32 ? (double)FLT_MIN : DBL_MIN;
}
static int nmant_of(cj_dtype dt) { return dt == CJ_F16 ? 10 : dt == CJ_BF16 ? 7 : dt == CJ_F32 ? 23 : 52; }
static double eps_of(cj_dtype dt) { return ldexp(1, -nmant_of(dt)); }
static double epsneg_of(cj_dtype dt) { return ldexp(1, -nmant_of(dt) - 1); }

/* ---- one-uniform transforms --------------------------------------------- */

cj_val cj_random_exponential(cj_val key, cj_dtype dtype, int rank, const int64_t *shape) {
    cj_ctx *ctx = enter_shaped(key, "random_exponential", dtype, rank, shape);
    if (!ctx) return api_err(key.ctx);
    /* -log1p(-u): 1 - u moves log's domain to (0, 1] */
    return cj_neg(random_xla_log1p(cj_neg(uniform_d(key, dtype, rank, shape, 0, 1))));
}

cj_val cj_random_laplace(cj_val key, cj_dtype dtype, int rank, const int64_t *shape) {
    cj_ctx *ctx = enter_shaped(key, "random_laplace", dtype, rank, shape);
    if (!ctx) return api_err(key.ctx);
    cj_val u = uniform_d(key, dtype, rank, shape, -1.0 + epsneg_of(dtype), 1.0);
    return cj_mul(cj_sign(u), random_xla_log1p(cj_neg(cj_abs(u))));
}

cj_val cj_random_logistic(cj_val key, cj_dtype dtype, int rank, const int64_t *shape) {
    cj_ctx *ctx = enter_shaped(key, "random_logistic", dtype, rank, shape);
    if (!ctx) return api_err(key.ctx);
    cj_val x = uniform_d(key, dtype, rank, shape, tiny_of(dtype), 1.0);
    return cj_sub(random_xla_log(x), random_xla_log1p(cj_neg(x)));
}

/* JAX's _gumbel in its default ("low") mode. */
static cj_val gumbel(cj_val key, cj_dtype dtype, int rank, const int64_t *shape) {
    cj_val u = uniform_d(key, dtype, rank, shape, tiny_of(dtype), 1.0);
    return cj_neg(random_xla_log(cj_neg(random_xla_log(u))));
}

cj_val cj_random_gumbel(cj_val key, cj_dtype dtype, int rank, const int64_t *shape) {
    cj_ctx *ctx = enter_shaped(key, "random_gumbel", dtype, rank, shape);
    if (!ctx) return api_err(key.ctx);
    return gumbel(key, dtype, rank, shape);
}

/* JAX's _gumbel in mode "high": two uniforms (high, low) of shape
 * [2, shape]; below 0.5 the low one fills the bits under high's last
 * place, so small uniforms keep their precision through log1p. */
static cj_val gumbel_high(cj_val key, cj_dtype dtype, int rank, const int64_t *shape) {
    cj_ctx *ctx = key.ctx;
    int64_t hs[CJ_MAX_RANK], lo[CJ_MAX_RANK] = {0}, hi[CJ_MAX_RANK];
    hs[0] = 2;
    if (rank > 0) memcpy(hs + 1, shape, sizeof(int64_t) * (size_t)rank); /* shape may be NULL at rank 0 */
    cj_val hl = uniform_d(key, dtype, rank + 1, hs, 0, 1);
    for (int d = 0; d <= rank; d++) hi[d] = hs[d];
    hi[0] = 1;
    cj_val high = cj_reshape(cj_slice(hl, lo, hi, NULL), rank, shape);
    lo[0] = 1;
    hi[0] = 2;
    cj_val low = cj_reshape(cj_slice(hl, lo, hi, NULL), rank, shape);
    double ulp = eps_of(dtype);
    cj_val filled = cj_add(cj_add(high, cj_mul(typed(ctx, ulp, dtype), low)), typed(ctx, tiny_of(dtype), dtype));
    cj_val x = cj_where(cj_ge(high, typed(ctx, 0.5, dtype)), high, filled);
    return cj_neg(random_xla_log(cj_neg(random_xla_log1p(cj_neg(x)))));
}

/* Count of leading zero bits of u32 x (lax.clz): smear the top set bit
 * down, then 32 minus the population count. */
static cj_val clz32(cj_val x) {
    cj_ctx *ctx = x.ctx;
    for (int s = 1; s <= 16; s *= 2) x = cj_or(x, cj_shift_right_logical(x, typed(ctx, s, CJ_U32)));
    return cj_sub(typed(ctx, 32, CJ_U32), cj_population_count(x));
}

/* Row i of a [2, shape] value. */
static cj_val row2(cj_val v, int64_t i, int rank, const int64_t *shape) {
    int64_t lo[CJ_MAX_RANK] = {0}, hi[CJ_MAX_RANK];
    hi[0] = i + 1;
    lo[0] = i;
    for (int d = 0; d < rank; d++) hi[d + 1] = shape[d];
    return cj_reshape(cj_slice(v, lo, hi, NULL), rank, shape);
}

/* JAX's _safe_int_to_float: the 64-bit fixed-point fraction hi:lo (u32
 * words) as an f32 in (0, 1), built from its bits: the top 24 significant
 * bits after the leading zeros, the exponent from their count. */
static cj_val safe_int_to_float(cj_val hi, cj_val lo) {
    cj_ctx *ctx = hi.ctx;
    cj_val hiclz = clz32(hi), loclz = clz32(lo);
    cj_val hi_empty = cj_eq(hiclz, typed(ctx, 32, CJ_U32));
    cj_val m = cj_or(cj_shift_left(hi, hiclz),
                     cj_where(hi_empty, cj_shift_left(lo, loclz),
                              cj_shift_right_logical(lo, cj_sub(typed(ctx, 32, CJ_U32), hiclz))));
    m = cj_and(cj_shift_right_logical(m, typed(ctx, 8, CJ_U32)), typed(ctx, (1 << 23) - 1, CJ_U32));
    cj_val zeros = cj_where(hi_empty, cj_add(typed(ctx, 32, CJ_U32), loclz), hiclz);
    cj_val e = cj_shift_left(cj_sub(typed(ctx, 126, CJ_U32), zeros), typed(ctx, 23, CJ_U32));
    e = cj_and(e, typed(ctx, (1 << 30) - (1 << 22), CJ_U32));
    return cj_bitcast_convert_type(cj_or(e, m), CJ_F32);
}

/* JAX's _gumbel in mode "highest" for f32: a 64-bit uniform u as two
 * u32 words; below 1/2 it is used as is (log1p(-u) keeps its precision),
 * above it is replaced by 1 - u (the 64-bit two's complement of the
 * words), so both logs see a number of full relative precision. */
static cj_val gumbel_highest_f32(cj_val key, int rank, const int64_t *shape) {
    cj_ctx *ctx = key.ctx;
    int64_t hs[CJ_MAX_RANK];
    hs[0] = 2;
    if (rank > 0) memcpy(hs + 1, shape, sizeof(int64_t) * (size_t)rank);
    cj_val bits = cj_random_bits_typed(key, CJ_U32, rank + 1, hs);
    cj_val b0 = row2(bits, 0, rank, shape), b1 = row2(bits, 1, rank, shape);
    cj_val n0 = cj_not(b0), n1 = cj_not(b1);
    cj_val carry = cj_astype(cj_eq(n1, typed(ctx, 4294967295.0, CJ_U32)), CJ_U32);
    n0 = cj_add(n0, carry);
    n1 = cj_add(n1, typed(ctx, 1, CJ_U32));
    cj_val flip = cj_lt(b0, typed(ctx, 2147483648.0, CJ_U32));
    cj_val x = safe_int_to_float(cj_where(flip, b0, n0), cj_where(flip, b1, n1));
    cj_val small = cj_neg(random_xla_log(cj_neg(random_xla_log1p(cj_neg(x)))));
    cj_val large = cj_neg(random_xla_log(cj_neg(random_xla_log(x))));
    return cj_where(flip, small, large);
}

cj_val cj_random_gumbel_mode(cj_val key, cj_dtype dtype, int rank, const int64_t *shape, const char *mode) {
    cj_ctx *ctx = enter_shaped(key, "random_gumbel", dtype, rank, shape);
    if (!ctx) return api_err(key.ctx);
    if (!mode || !strcmp(mode, "low")) return gumbel(key, dtype, rank, shape);
    int highest = !strcmp(mode, "highest");
    if (highest || !strcmp(mode, "high")) {
        if (rank + 1 > CJ_MAX_RANK) {
            core_error(ctx, CJ_ERR_SHAPE, "random_gumbel: mode \"%s\" needs rank + 1 <= %d", mode, CJ_MAX_RANK);
            return api_err(ctx);
        }
        /* as JAX, "highest" differs from "high" only in f32 */
        return highest && dtype == CJ_F32 ? gumbel_highest_f32(key, rank, shape) : gumbel_high(key, dtype, rank, shape);
    }
    core_error(ctx, CJ_ERR_ARG, "random_gumbel: mode must be \"low\", \"high\" or \"highest\", got '%s'", mode);
    return api_err(ctx);
}

cj_val cj_random_cauchy(cj_val key, cj_dtype dtype, int rank, const int64_t *shape) {
    cj_ctx *ctx = enter_shaped(key, "random_cauchy", dtype, rank, shape);
    if (!ctx) return api_err(key.ctx);
    cj_val u = uniform_d(key, dtype, rank, shape, eps_of(dtype), 1.0);
    return cj_tan(cj_mul(typed(ctx, 3.14159265358979323846, dtype), cj_sub(u, typed(ctx, 0.5, dtype))));
}

cj_val cj_random_rademacher(cj_val key, cj_dtype dtype, int rank, const int64_t *shape) {
    cj_ctx *ctx = random_enter(key, "random_rademacher");
    if (!ctx) return api_err(key.ctx);
    if (!rt_dtype_valid((int)dtype) || dtype == CJ_BOOL) {
        core_error(ctx, CJ_ERR_DTYPE, "random_rademacher: dtype must be a number type (i8 ... u64, f16 ... f64), got %s",
                   rt_dtype_valid((int)dtype) ? cj_dtype_name(dtype) : "an unknown dtype");
        return api_err(ctx);
    }
    if (random_check_shape(ctx, "random_rademacher", rank, shape) != 0) return api_err(ctx);
    /* 2 * bernoulli(key, 0.5) - 1; p = 0.5 is a weak float, f32 in JAX's
     * default mode, f64 with x64 on (which cjax's f64 and i64 stand for) */
    cj_dtype pdt = dtype == CJ_F64 || dtype == CJ_I64 || dtype == CJ_U64 ? CJ_F64 : CJ_F32;
    cj_val b = cj_astype(cj_lt(uniform_d(key, pdt, rank, shape, 0, 1), typed(ctx, 0.5, pdt)), dtype);
    return cj_sub(cj_mul(typed(ctx, 2, dtype), b), typed(ctx, 1, dtype));
}

/* ---- truncated normal ----------------------------------------------------- */

/* nextafter(x, +inf) (up) or (x, -inf) for finite and infinite x: x plus
 * 0.6 ulp of x's binade rounds to the neighbour (half an ulp at a power of
 * two approached from above in magnitude, whose neighbour is that close). */
static cj_val next_toward(cj_val x, int up) {
    cj_ctx *ctx = x.ctx;
    cj_dtype dt = cj_val_dtype(x);
    double step = 0.6 * eps_of(dt);
    double big = dt == CJ_F16 ? 65504.0 : dt == CJ_BF16 ? 0x1.fep127 : dt == CJ_F32 ? (double)FLT_MAX : DBL_MAX;
    /* cjax flushes f32/f64/bf16 subnormals (as XLA on CPU); f16 keeps them */
    double least = dt == CJ_F16 ? ldexp(1, -24) : tiny_of(dt);
    cj_val inc = cj_mul(cj_abs(x), typed(ctx, up ? step : -step, dt));
    cj_val r = cj_add(x, inc);
    r = cj_where(cj_eq(x, typed(ctx, 0, dt)), typed(ctx, up ? least : -least, dt), r);
    r = cj_where(cj_eq(x, typed(ctx, up ? -INFINITY : INFINITY, dt)), typed(ctx, up ? -big : big, dt), r);
    return cj_where(cj_eq(x, typed(ctx, up ? INFINITY : -INFINITY, dt)), x, r);
}

/* The broadcast of the parameters' shapes, or shape itself when given
 * (then the parameters must broadcast to it, as JAX's _check_shape). */
int random_shape_of(cj_ctx *ctx, const char *op, int n, const rt_aval *av, int rank, const int64_t *shape,
                    int *out_rank, int64_t *out_dims) {
    int br;
    int64_t bd[CJ_MAX_RANK];
    if (api_broadcast_shapes(ctx, op, n, av, &br, bd) != 0) return -1;
    if (rank < 0) {
        *out_rank = br;
        memcpy(out_dims, bd, sizeof bd);
        return 0;
    }
    if (random_check_shape(ctx, op, rank, shape) != 0) return -1;
    /* every parameter must broadcast to exactly shape */
    for (int i = 0; i < n; i++) {
        int bad = av[i].rank > rank;
        for (int d = 0; !bad && d < av[i].rank; d++) {
            int64_t pd = av[i].dims[av[i].rank - 1 - d], sd = shape[rank - 1 - d];
            bad = pd != 1 && pd != sd;
        }
        if (bad) {
            char t[96];
            rt_aval_str(&av[i], t, sizeof t);
            return core_error(ctx, CJ_ERR_SHAPE, "%s: parameter %s does not broadcast to the shape given (rank %d)",
                              op, t, rank);
        }
    }
    *out_rank = rank;
    for (int d = 0; d < rank; d++) out_dims[d] = shape[d];
    return 0;
}

int random_param_shape(cj_ctx *ctx, const char *op, int n, const cj_val *params, int rank, const int64_t *shape,
                       int *out_rank, int64_t *out_dims) {
    rt_aval av[2];
    if (n > 2) return core_error(ctx, CJ_ERR_ARG, "%s: at most 2 parameters", op);
    for (int i = 0; i < n; i++) {
        const rt_aval *a = api_aval(params[i], op);
        if (!a) return -1;
        av[i] = *a;
    }
    return random_shape_of(ctx, op, n, av, rank, shape, out_rank, out_dims);
}

cj_val cj_random_truncated_normal(cj_val key, cj_val lower, cj_val upper, cj_dtype dtype, int rank,
                                  const int64_t *shape) {
    const char *op = "random_truncated_normal";
    cj_ctx *ctx = random_enter(key, op);
    if (!ctx) return api_err(key.ctx);
    if (random_check_any_float_dtype(ctx, op, dtype) != 0) return api_err(ctx);
    int r = 0;
    int64_t dims[CJ_MAX_RANK];
    cj_val params[2] = {lower, upper};
    if (random_param_shape(ctx, op, 2, params, rank, shape, &r, dims) != 0) return api_err(ctx);
    cj_val sqrt2 = typed(ctx, sqrt(2.0), dtype);
    cj_val lo = cj_astype(lower, dtype), hi = cj_astype(upper, dtype);
    cj_val a = cj_erf(cj_div(lo, sqrt2)), b = cj_erf(cj_div(hi, sqrt2));
    cj_val u = random_uniform_v(key, dtype, r, dims, a, b);
    cj_val out = cj_mul(sqrt2, random_erf_inv(u));
    /* clamp into the open interval, as JAX: rounding may reach a bound */
    cj_val lo_in = next_toward(cj_stop_gradient(lo), 1), hi_in = next_toward(cj_stop_gradient(hi), 0);
    return cj_min(cj_max(out, lo_in), hi_in);
}

/* ---- categorical and choice ------------------------------------------------ */

/* JAX's _categorical: with replacement, argmax of gumbel noise of shape
 * prefix + logits' shape (the batch part taken from shape) plus the logits;
 * without, top_k of logits + noise along axis, k = the prefix's size, and
 * the k draws moved to the front. rank < 0: shape is the batch shape. */
cj_val cj_random_categorical(cj_val key, cj_val logits, int64_t axis, int rank, const int64_t *shape, int replace) {
    const char *op = "random_categorical";
    cj_ctx *ctx = random_enter(key, op);
    if (!ctx) return api_err(key.ctx);
    const rt_aval *la = api_aval(logits, op);
    if (!la) return api_err(ctx);
    if (la->dtype != CJ_F32 && la->dtype != CJ_F64) {
        core_error(ctx, CJ_ERR_DTYPE, "random_categorical: logits must be f32 or f64, got %s", cj_dtype_name(la->dtype));
        return api_err(ctx);
    }
    int64_t ax;
    if (la->rank == 0) {
        core_error(ctx, CJ_ERR_SHAPE, "random_categorical: logits must be at least 1-D");
        return api_err(ctx);
    }
    if (api_axis(ctx, op, axis, la->rank, &ax) != 0) return api_err(ctx);
    int br = 0;
    int64_t batch[CJ_MAX_RANK];
    for (int d = 0; d < la->rank; d++)
        if (d != ax) batch[br++] = la->dims[d];
    if (rank < 0) {
        rank = br;
        shape = batch;
    }
    if (random_check_shape(ctx, op, rank, shape) != 0) return api_err(ctx);
    int bad = rank < br;
    for (int d = 0; !bad && d < br; d++) bad = shape[rank - br + d] != batch[d] && batch[d] != 1;
    if (bad) {
        char t[96];
        rt_aval_str(la, t, sizeof t);
        core_error(ctx, CJ_ERR_SHAPE, "random_categorical: shape (rank %d) must end in the batch shape of logits %s "
                   "without axis %lld", rank, t, (long long)ax);
        return api_err(ctx);
    }
    int np = rank - br;
    int64_t prefix = 1;
    for (int d = 0; d < np; d++) prefix *= shape[d];
    if (replace) {
        int64_t gs[CJ_MAX_RANK];
        int gr = 0;
        for (int d = 0; d < np; d++) gs[gr++] = shape[d];
        for (int d = 0, b = np; d < la->rank; d++) gs[gr++] = d == ax ? la->dims[ax] : shape[b++];
        if (gr > CJ_MAX_RANK) {
            core_error(ctx, CJ_ERR_SHAPE, "random_categorical: the draw needs rank %d (at most %d)", gr, CJ_MAX_RANK);
            return api_err(ctx);
        }
        cj_val g = gumbel(key, la->dtype, gr, gs);
        return cj_argmax(cj_add(g, logits), np + ax, 0);
    }
    if (prefix > la->dims[ax]) {
        core_error(ctx, CJ_ERR_ARG, "random_categorical: %lld samples without replacement exceed %lld categories",
                   (long long)prefix, (long long)la->dims[ax]);
        return api_err(ctx);
    }
    cj_val noisy = cj_add(logits, gumbel(key, la->dtype, la->rank, la->dims));
    int64_t perm[CJ_MAX_RANK];
    for (int d = 0, j = 0; d < la->rank; d++)
        if (d != ax) perm[j++] = d;
    perm[la->rank - 1] = ax;
    cj_val vals, idx;
    cj_top_k(cj_transpose(noisy, perm), prefix, &vals, &idx); /* batch + [k] */
    int64_t back[CJ_MAX_RANK];
    back[0] = br;
    for (int d = 0; d < br; d++) back[d + 1] = d;
    return cj_reshape(cj_transpose(idx, back), rank, shape);
}

static int has_value(cj_val v) { return v.ctx != NULL; }

/* Indices into a population of n by JAX's choice: randint with
 * replacement, a permutation's head without; with weights p the inverse
 * of p's running sum at cumsum[-1] * (1 - u), or gumbel top-k. */
static cj_val choice_indices(cj_val key, int64_t n, int64_t draws, int replace, cj_val p) {
    cj_ctx *ctx = key.ctx;
    if (!has_value(p)) {
        if (replace) return cj_random_randint(key, 1, &draws, 0, n, CJ_I32);
        int64_t lo = 0;
        return cj_slice(cj_random_permutation(key, n), &lo, &draws, NULL);
    }
    cj_dtype dt = cj_val_dtype(p);
    if (replace) {
        cj_val c = cj_cumsum(p, 0, 0);
        int64_t lo = n - 1, hi = n;
        cj_val total = cj_reshape(cj_slice(c, &lo, &hi, NULL), 0, NULL);
        cj_val r = cj_mul(total, cj_sub(typed(ctx, 1, dt), uniform_d(key, dt, 1, &draws, 0, 1)));
        return cj_searchsorted(c, r, "left");
    }
    cj_val g = cj_add(gumbel(key, dt, 1, &n), random_xla_log(p));
    cj_val vals, idx;
    cj_top_k(g, draws, &vals, &idx);
    return idx;
}

static int choice_check(cj_ctx *ctx, int64_t n, int rank, const int64_t *shape, int replace, cj_val p,
                        int64_t *draws) {
    const char *op = "random_choice";
    if (random_check_shape(ctx, op, rank, shape) != 0) return -1;
    *draws = 1;
    for (int d = 0; d < rank; d++) *draws *= shape[d];
    if (n <= 0 && *draws > 0)
        return core_error(ctx, CJ_ERR_ARG, "random_choice: the population must be > 0 unless no samples are taken, got %lld",
                          (long long)n);
    if (!replace && *draws > n)
        return core_error(ctx, CJ_ERR_ARG,
                          "random_choice: cannot take a larger sample (%lld) than the population (%lld) without replacement",
                          (long long)*draws, (long long)n);
    if (has_value(p)) {
        const rt_aval *pa = api_aval(p, op);
        if (!pa) return -1;
        if (pa->rank != 1 || pa->dims[0] != n || (pa->dtype != CJ_F32 && pa->dtype != CJ_F64)) {
            char t[96];
            rt_aval_str(pa, t, sizeof t);
            return core_error(ctx, pa->rank != 1 || pa->dims[0] != n ? CJ_ERR_SHAPE : CJ_ERR_DTYPE,
                              "random_choice: p must be f32 or f64 of shape [%lld] (the population), got %s",
                              (long long)n, t);
        }
    }
    return 0;
}

cj_val cj_random_choice(cj_val key, int64_t n, int rank, const int64_t *shape, int replace, cj_val p) {
    cj_ctx *ctx = random_enter(key, "random_choice");
    if (!ctx) return api_err(key.ctx);
    int64_t draws;
    if (choice_check(ctx, n, rank, shape, replace, p, &draws) != 0) return api_err(ctx);
    if (draws == 0) return cj_zeros(ctx, CJ_I32, rank, shape);
    return cj_reshape(choice_indices(key, n, draws, replace, p), rank, shape);
}

cj_val cj_random_choice_array(cj_val key, cj_val a, int64_t axis, int rank, const int64_t *shape, int replace,
                              cj_val p) {
    const char *op = "random_choice";
    cj_ctx *ctx = random_enter(key, op);
    if (!ctx) return api_err(key.ctx);
    const rt_aval *aa = api_aval(a, op);
    if (!aa) return api_err(ctx);
    if (aa->rank == 0) {
        core_error(ctx, CJ_ERR_SHAPE, "random_choice: a must be at least 1-D (cj_random_choice draws from a range)");
        return api_err(ctx);
    }
    int64_t ax, draws;
    if (api_axis(ctx, op, axis, aa->rank, &ax) != 0) return api_err(ctx);
    if (choice_check(ctx, aa->dims[ax], rank, shape, replace, p, &draws) != 0) return api_err(ctx);
    int64_t out[CJ_MAX_RANK];
    int orank = 0;
    for (int d = 0; d < ax; d++) out[orank++] = aa->dims[d];
    for (int d = 0; d < rank; d++) out[orank++] = shape[d];
    for (int d = (int)ax + 1; d < aa->rank; d++) out[orank++] = aa->dims[d];
    if (orank > CJ_MAX_RANK) {
        core_error(ctx, CJ_ERR_SHAPE, "random_choice: the result needs rank %d (at most %d)", orank, CJ_MAX_RANK);
        return api_err(ctx);
    }
    if (draws == 0) return cj_zeros(ctx, aa->dtype, orank, out);
    cj_val picked;
    if (!has_value(p) && !replace) {
        /* JAX permutes a itself along axis, then keeps the first draws */
        cj_val perm = cj_random_permutation_array(key, a, ax);
        int64_t lo[CJ_MAX_RANK] = {0}, hi[CJ_MAX_RANK];
        for (int d = 0; d < aa->rank; d++) hi[d] = aa->dims[d];
        hi[ax] = draws;
        picked = cj_slice(perm, lo, hi, NULL);
    } else {
        picked = cj_take(a, choice_indices(key, aa->dims[ax], draws, replace, p), ax);
    }
    return cj_reshape(picked, orank, out);
}

/* ---- multivariate normal and orthogonal ---------------------------------- */

cj_val cj_random_multivariate_normal(cj_val key, cj_val mean, cj_val cov, cj_dtype dtype, int rank,
                                     const int64_t *shape, const char *method) {
    const char *op = "random_multivariate_normal";
    cj_ctx *ctx = random_enter(key, op);
    if (!ctx) return api_err(key.ctx);
    if (random_check_float_dtype(ctx, op, dtype) != 0) return api_err(ctx);
    const rt_aval *ma = api_aval(mean, op), *ca = api_aval(cov, op);
    if (!ma || !ca) return api_err(ctx);
    if (!method) method = "cholesky";
    if (strcmp(method, "cholesky") && strcmp(method, "eigh") && strcmp(method, "svd")) {
        core_error(ctx, CJ_ERR_ARG, "random_multivariate_normal: method must be cholesky, eigh or svd, got '%s'", method);
        return api_err(ctx);
    }
    char mt[96], ct[96];
    rt_aval_str(ma, mt, sizeof mt);
    rt_aval_str(ca, ct, sizeof ct);
    if (ma->rank < 1 || ca->rank < 2 || ca->dims[ca->rank - 1] != ma->dims[ma->rank - 1] ||
        ca->dims[ca->rank - 2] != ma->dims[ma->rank - 1]) {
        core_error(ctx, CJ_ERR_SHAPE, "random_multivariate_normal: needs mean [..., n] and cov [..., n, n], got %s and %s",
                   mt, ct);
        return api_err(ctx);
    }
    int64_t n = ma->dims[ma->rank - 1];
    /* the batch shape: given, or the broadcast of mean's and cov's batches */
    rt_aval bm = *ma, bc = *ca;
    bm.rank -= 1;
    bc.rank -= 2;
    int br;
    int64_t bd[CJ_MAX_RANK];
    if (api_broadcast_shapes(ctx, op, 2, (rt_aval[]){bm, bc}, &br, bd) != 0) return api_err(ctx);
    if (rank < 0) {
        rank = br;
        shape = bd;
    }
    if (random_check_shape(ctx, op, rank, shape) != 0 || rank + 1 > CJ_MAX_RANK) {
        if (!ctx->err) core_error(ctx, CJ_ERR_SHAPE, "random_multivariate_normal: rank %d too large", rank);
        return api_err(ctx);
    }
    cj_val m = cj_astype(mean, dtype), c = cj_astype(cov, dtype);
    cj_val factor;
    if (method[0] == 'c') {
        factor = cj_linalg_cholesky(c);
    } else if (method[0] == 'e') {
        cj_val v, w;
        cj_linalg_eigh(c, &v, &w);
        factor = cj_mul(v, cj_expand_dims(cj_sqrt(w), -2));
    } else {
        cj_val u, s, vt;
        cj_linalg_svd(c, 0, &u, &s, &vt);
        factor = cj_mul(u, cj_expand_dims(cj_sqrt(s), -2));
    }
    int64_t zs[CJ_MAX_RANK];
    if (rank > 0) memcpy(zs, shape, sizeof(int64_t) * (size_t)rank); /* shape may be NULL at rank 0 */
    zs[rank] = n;
    cj_val z = cj_random_normal(key, dtype, rank + 1, zs);
    /* einsum('...ij,...j->...i', factor, z) */
    cj_val fz = cj_sum(cj_mul(factor, cj_expand_dims(z, -2)), 1, (const int64_t[]){-1}, 0);
    return cj_add(m, fz);
}

cj_val cj_random_orthogonal(cj_val key, int64_t n, cj_dtype dtype, int rank, const int64_t *shape) {
    const char *op = "random_orthogonal";
    cj_ctx *ctx = enter_shaped(key, op, dtype, rank, shape);
    if (!ctx) return api_err(key.ctx);
    if (n < 0 || rank + 2 > CJ_MAX_RANK) {
        core_error(ctx, n < 0 ? CJ_ERR_ARG : CJ_ERR_SHAPE, "random_orthogonal: n must be >= 0 (got %lld) and rank + 2 <= %d",
                   (long long)n, CJ_MAX_RANK);
        return api_err(ctx);
    }
    int64_t zs[CJ_MAX_RANK];
    if (rank > 0) memcpy(zs, shape, sizeof(int64_t) * (size_t)rank); /* shape may be NULL at rank 0 */
    zs[rank] = zs[rank + 1] = n;
    cj_val q, r;
    cj_linalg_qr(cj_random_normal(key, dtype, rank + 2, zs), NULL, &q, &r);
    cj_val d = cj_diagonal(r, 0, -2, -1);
    return cj_mul(q, cj_expand_dims(cj_sign(d), -2));
}
