/* random_internal.h — the pieces of the jax.random core (random.c) that the
 * other samplers (random_dist.c) are built from (api layer, private).
 *
 * Each is one of JAX's internal steps, reproduced bit for bit as random.c
 * describes: the key check, shape check, 32-bit bits, the split of a key in
 * two, uniform floats (with bounds as values, broadcast against the
 * shape), XLA's CPU log (f32: Eigen's, over every positive float) and
 * log1p, and XLA's erf_inv. */
#ifndef CJ_RANDOM_INTERNAL_H
#define CJ_RANDOM_INTERNAL_H

#include "api.h"

/* The key's context, or NULL with the error recorded (bad key, or the
 * context already in error). */
cj_ctx *random_enter(cj_val key, const char *op);
/* 0, or -1 with the error recorded. */
int random_check_shape(cj_ctx *ctx, const char *op, int rank, const int64_t *shape);
int random_check_float_dtype(cj_ctx *ctx, const char *op, cj_dtype dtype);
/* f16 and bf16 too, for the samplers that take them (uniform, normal and
 * the one-uniform transforms of random_dist.c); random_is_narrow says which
 * those are; random_bound is a C double bound in dtype as JAX converts a
 * Python float (a weak f32 first for the narrow floats). */
int random_check_any_float_dtype(cj_ctx *ctx, const char *op, cj_dtype dtype);
int random_is_narrow(cj_dtype dtype);
cj_val random_bound(cj_ctx *ctx, double v, cj_dtype dtype);
/* jax.random.bits (uint32 as i32) and split(key)[i] for i in {0, 1}. */
cj_val random_bits32(cj_val key, int rank, const int64_t *shape);
cj_val random_split2(cj_val key, int64_t i);
/* split(key, n)[i], the i-th of n keys (i32[2]). */
cj_val random_split_at(cj_val key, int64_t n, int64_t i);
/* JAX's _uniform with bounds lo and hi (values of dtype, scalars or
 * broadcast against shape): max(lo, u * (hi - lo) + lo), fused as XLA. */
cj_val random_uniform_v(cj_val key, cj_dtype dtype, int rank, const int64_t *shape, cj_val lo, cj_val hi);
/* The same with bounds that are constants of JAX's sampler (C doubles
 * converted as random_bound does): XLA folds them into the program, which
 * in f16 can round differently (random.c says where). */
cj_val random_uniform_const(cj_val key, cj_dtype dtype, int rank, const int64_t *shape, double lo, double hi);
/* XLA's CPU log (f32: bit for bit; f64: cjax's log) and log1p (for
 * arguments in (-1, 0]), erf_inv (|x| < 1), a * b + c rounded once. On
 * f16/bf16 the first three are their f32 forms of the widened value,
 * rounded, as XLA computes them; random_mul_add takes f32/f64 only. */
cj_val random_xla_log(cj_val y);
cj_val random_xla_log1p(cj_val x);
cj_val random_erf_inv(cj_val x);
cj_val random_mul_add(cj_val a, cj_val b, cj_val c);
/* The shape a parameterised sampler draws (random_dist.c): the broadcast
 * of the parameters' shapes when rank < 0 (JAX's shape=None), else shape,
 * to which every parameter must broadcast (JAX's _check_shape). 0, or -1
 * with the error recorded naming op. The _of form takes the parameters'
 * types (n of them); random_param_shape takes up to 2 values. */
int random_shape_of(cj_ctx *ctx, const char *op, int n, const rt_aval *av, int rank, const int64_t *shape,
                    int *out_rank, int64_t *out_dims);
int random_param_shape(cj_ctx *ctx, const char *op, int n, const cj_val *params, int rank, const int64_t *shape,
                       int *out_rank, int64_t *out_dims);

#endif
