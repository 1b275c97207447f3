/* nn.c — jax.nn's activation functions and helpers (api layer): cj_silu
 * (cj_swish), cj_softplus, cj_log_sigmoid, cj_elu, cj_leaky_relu,
 * cj_celu, cj_selu, cj_gelu_exact, cj_glu, cj_relu6, cj_hard_sigmoid,
 * cj_hard_silu, cj_hard_tanh, cj_sparse_plus, cj_sparse_sigmoid,
 * cj_soft_sign, cj_squareplus, cj_mish, cj_log1mexp, cj_standardize,
 * cj_standardize_with, cj_one_hot_axis.
 *
 * Each is jax.nn's formula in cjax operations, so jit, vmap and grad come
 * from the primitives. Where JAX attaches a custom derivative, the
 * composite is arranged to give the same one: relu6's derivative is 1
 * strictly inside (0, 6) and 0 elsewhere (the select-with-stop_gradient
 * form cj_relu uses); softplus is written as pos + log1p(exp(neg - pos))
 * with pos/neg the parts of x selected by x > 0, whose derivative is
 * sigmoid(x) everywhere (JAX's logaddexp jvp) with no NaN from the branch
 * not taken, and a smooth second derivative at 0. Constants are weakly
 * typed in x's dtype, so f32 stays f32 and f64 keeps its digits. */
#include <math.h>
#include <string.h>

#include "compose.h"

/* x as jnp's promote_args_inexact: floats as they are, integers and bools
 * to the default float. *dt gets the dtype; an error value on failure. */
static cj_val inexact(cj_val x, const char *op, cj_dtype *dt) {
    rt_aval a;
    *dt = CJ_F32;
    if (compose_operand(x, op, &a) != 0) return api_err(x.ctx);
    x = compose_inexact(x, &a);
    *dt = a.dtype;
    return x;
}

#define K(v) compose_const(x.ctx, (v), dt)

cj_val cj_silu(cj_val x) {
    cj_dtype dt;
    x = inexact(x, "cj_silu", &dt);
    return cj_mul(x, cj_logistic(x));
}

cj_val cj_swish(cj_val x) { return cj_silu(x); }

/* softplus(x) = log(1 + e^x) = logaddexp(x, 0). */
static cj_val softplus(cj_val x, cj_dtype dt) {
    cj_val positive = cj_gt(x, K(0));
    cj_val pos = cj_where(positive, x, K(0)), neg = cj_where(positive, K(0), x);
    return cj_add(pos, cj_log1p(cj_exp(cj_sub(neg, pos))));
}

cj_val cj_softplus(cj_val x) {
    cj_dtype dt;
    x = inexact(x, "cj_softplus", &dt);
    return softplus(x, dt);
}

cj_val cj_log_sigmoid(cj_val x) {
    cj_dtype dt;
    x = inexact(x, "cj_log_sigmoid", &dt);
    return cj_neg(softplus(cj_neg(x), dt));
}

cj_val cj_mish(cj_val x) {
    cj_dtype dt;
    x = inexact(x, "cj_mish", &dt);
    return cj_mul(x, cj_tanh(softplus(x, dt)));
}

/* elu: x for x > 0, alpha·expm1(x) otherwise; the expm1 sees 0 where
 * x > 0 so it never overflows on the branch not taken. */
static cj_val elu(cj_val x, double alpha, cj_dtype dt) {
    cj_val positive = cj_gt(x, K(0));
    return cj_where(positive, x, cj_mul(K(alpha), cj_expm1(cj_where(positive, K(0), x))));
}

cj_val cj_elu(cj_val x, double alpha) {
    cj_dtype dt;
    x = inexact(x, "cj_elu", &dt);
    return elu(x, alpha, dt);
}

cj_val cj_selu(cj_val x) {
    cj_dtype dt;
    x = inexact(x, "cj_selu", &dt);
    return cj_mul(K(1.0507009873554804934193349852946), elu(x, 1.6732632423543772848170429916717, dt));
}

/* celu: max(x, 0) + alpha·expm1(min(x, 0)/alpha); at 0 the two ties
 * share the derivative (½ + ½·1 = 1), as JAX's max/min rules do. */
cj_val cj_celu(cj_val x, double alpha) {
    cj_dtype dt;
    x = inexact(x, "cj_celu", &dt);
    cj_val lo = cj_div(cj_min(x, K(0)), K(alpha));
    return cj_add(cj_max(x, K(0)), cj_mul(K(alpha), cj_expm1(lo)));
}

/* leaky_relu: x where x >= 0 (so the derivative at 0 is 1), else slope·x. */
cj_val cj_leaky_relu(cj_val x, double negative_slope) {
    cj_dtype dt;
    x = inexact(x, "cj_leaky_relu", &dt);
    return cj_where(cj_ge(x, K(0)), x, cj_mul(K(negative_slope), x));
}

cj_val cj_gelu_exact(cj_val x) {
    cj_dtype dt;
    x = inexact(x, "cj_gelu_exact", &dt);
    /* jax.nn.gelu(approximate=False): ½·x·erfc(-x/√2), which keeps its
     * relative accuracy far below 0 where 1 + erf(x/√2) cancels */
    cj_val cdf = cj_erfc(cj_mul(cj_neg(x), K(0.70710678118654752440 /* √½ */)));
    return cj_mul(cj_mul(K(0.5), x), cdf);
}

/* jax.nn.glu: the first half along axis times the sigmoid of the second. */
cj_val cj_glu(cj_val x, int64_t axis) {
    rt_aval a;
    int64_t ax;
    if (compose_operand(x, "cj_glu", &a) != 0 || compose_axis(x.ctx, "cj_glu", axis, a.rank, &a, &ax) != 0)
        return api_err(x.ctx);
    if (a.dims[ax] % 2 != 0) {
        char t[96];
        rt_aval_str(&a, t, sizeof t);
        return compose_fail(x.ctx, CJ_ERR_SHAPE, "cj_glu: axis %lld of %s must have an even size", (long long)axis, t);
    }
    cj_val halves[2];
    if (cj_split(x, 2, ax, halves) != CJ_OK) return api_err(x.ctx);
    return cj_mul(halves[0], cj_sigmoid(halves[1]));
}

/* relu6 = min(max(x, 0), 6) with JAX's custom derivative: the gradient
 * flows only where 0 < x < 6. */
static cj_val relu6(cj_val x, cj_dtype dt) {
    cj_val clipped = cj_min(cj_max(x, K(0)), K(6));
    cj_val inside = cj_and(cj_gt(x, K(0)), cj_lt(x, K(6)));
    return cj_where(inside, x, compose_stop_gradient(clipped));
}

cj_val cj_relu6(cj_val x) {
    cj_dtype dt;
    x = inexact(x, "cj_relu6", &dt);
    return relu6(x, dt);
}

cj_val cj_hard_sigmoid(cj_val x) {
    cj_dtype dt;
    x = inexact(x, "cj_hard_sigmoid", &dt);
    return cj_div(relu6(cj_add(x, K(3)), dt), K(6));
}

cj_val cj_hard_silu(cj_val x) {
    cj_dtype dt;
    x = inexact(x, "cj_hard_silu", &dt);
    return cj_mul(x, cj_div(relu6(cj_add(x, K(3)), dt), K(6)));
}

/* hard_tanh: 1 above 1, -1 below -1, x between (derivative 1 at ±1). */
cj_val cj_hard_tanh(cj_val x) {
    cj_dtype dt;
    x = inexact(x, "cj_hard_tanh", &dt);
    return cj_where(cj_gt(x, K(1)), K(1), cj_where(cj_lt(x, K(-1)), K(-1), x));
}

/* sparse_plus: 0 for x <= -1, x for x >= 1, (x + 1)²/4 between. */
cj_val cj_sparse_plus(cj_val x) {
    cj_dtype dt;
    x = inexact(x, "cj_sparse_plus", &dt);
    cj_val y = cj_add(x, K(1));
    cj_val mid = cj_div(cj_mul(y, y), K(4));
    return cj_where(cj_le(x, K(-1)), K(0), cj_where(cj_ge(x, K(1)), x, mid));
}

/* sparse_sigmoid: ½·clip(x + 1, 0, 2). */
cj_val cj_sparse_sigmoid(cj_val x) {
    cj_dtype dt;
    x = inexact(x, "cj_sparse_sigmoid", &dt);
    return cj_mul(K(0.5), cj_min(cj_max(cj_add(x, K(1)), K(0)), K(2)));
}

cj_val cj_soft_sign(cj_val x) {
    cj_dtype dt;
    x = inexact(x, "cj_soft_sign", &dt);
    return cj_div(x, cj_add(cj_abs(x), K(1)));
}

/* squareplus(x, b) = (x + √(x² + b))/2. */
cj_val cj_squareplus(cj_val x, double b) {
    cj_dtype dt;
    x = inexact(x, "cj_squareplus", &dt);
    return cj_div(cj_add(x, cj_sqrt(cj_add(cj_mul(x, x), K(b)))), K(2));
}

/* jax.nn.standardize(x, axes, mean, variance, epsilon, algorithm):
 * (x - mean)·rsqrt(var + epsilon). The mean and variance given (NULL:
 * computed over the axes, keeping them); algorithm "fast" var =
 * max(mean(x²) - mean², 0), "stable" mean((x - mean)²). */
static cj_val standardize(const char *op, cj_val x, int n_axes, const int64_t *axes, const cj_val *mean_in,
                          const cj_val *var_in, double epsilon, int stable) {
    rt_aval a;
    int64_t ax[CJ_MAX_RANK];
    if (compose_operand(x, op, &a) != 0) return api_err(x.ctx);
    int n = compose_axes(x.ctx, op, n_axes, axes, &a, ax);
    if (n < 0) return api_err(x.ctx);
    x = compose_inexact(x, &a);
    cj_dtype dt = a.dtype;
    cj_val mean = mean_in ? *mean_in : cj_mean(x, n, ax, 1), var;
    if (var_in) {
        var = *var_in;
    } else if (stable) {
        cj_val c = cj_sub(x, mean);
        var = cj_mean(cj_mul(c, c), n, ax, 1);
    } else {
        var = cj_max(cj_sub(cj_mean(cj_mul(x, x), n, ax, 1), cj_mul(mean, mean)), K(0));
    }
    return cj_mul(cj_sub(x, mean), cj_rsqrt(cj_add(var, K(epsilon))));
}

cj_val cj_standardize(cj_val x, int n_axes, const int64_t *axes, double epsilon) {
    return standardize("cj_standardize", x, n_axes, axes, NULL, NULL, epsilon, 0);
}

cj_val cj_standardize_with(cj_val x, int n_axes, const int64_t *axes, const cj_val *mean, const cj_val *variance,
                           double epsilon, const char *algorithm) {
    int stable = algorithm && strcmp(algorithm, "stable") == 0;
    if (algorithm && !stable && strcmp(algorithm, "fast") != 0)
        return compose_fail(x.ctx, CJ_ERR_ARG, "cj_standardize_with: algorithm must be \"fast\" or \"stable\", got \"%s\"",
                            algorithm);
    return standardize("cj_standardize_with", x, n_axes, axes, mean, variance, epsilon, stable);
}

/* jax.nn.one_hot(x, num_classes, dtype, axis): the class axis at `axis`
 * of the result (rank x + 1; -1 is last, as cj_one_hot). */
cj_val cj_one_hot_axis(cj_val indices, int64_t num_classes, cj_dtype dtype, int64_t axis) {
    rt_aval a;
    if (compose_operand(indices, "cj_one_hot_axis", &a) != 0) return api_err(indices.ctx);
    cj_ctx *ctx = indices.ctx;
    if (num_classes < 0)
        return compose_fail(ctx, CJ_ERR_ARG, "cj_one_hot_axis: num_classes must be >= 0, got %lld", (long long)num_classes);
    if (!rt_dtype_valid((int)dtype)) return compose_fail(ctx, CJ_ERR_DTYPE, "cj_one_hot_axis: %d is not a dtype", (int)dtype);
    if (a.rank == CJ_MAX_RANK)
        return compose_fail(ctx, CJ_ERR_SHAPE, "cj_one_hot_axis: the indices already have the maximum rank %d", CJ_MAX_RANK);
    int64_t ax;
    if (compose_axis(ctx, "cj_one_hot_axis", axis, a.rank + 1, &a, &ax) != 0) return api_err(ctx);
    int64_t shape[CJ_MAX_RANK];
    for (int d = 0; d <= a.rank; d++) shape[d] = d == ax ? num_classes : 1;
    cj_dtype class_dt = a.dtype == CJ_BOOL ? CJ_I32 : a.dtype;
    cj_val classes = cj_iota(ctx, class_dt, a.rank + 1, shape, ax);
    return cj_astype(cj_eq(cj_expand_dims(indices, ax), classes), dtype);
}

/* jax.nn.log1mexp: log(1 - e^-x) for x >= 0, by log(-expm1(-x)) below
 * log 2 and log1p(-e^-x) above (Mächler's split). Each branch reads a
 * value inside its own range where it is not taken (the double where),
 * so its derivative 1/expm1(x), as JAX's custom jvp, carries no NaN from
 * the other branch. */
cj_val cj_log1mexp(cj_val x) {
    cj_dtype dt;
    x = inexact(x, "cj_log1mexp", &dt);
    cj_val c = K(0.69314718055994530942 /* log 2 */), low = cj_lt(x, c);
    cj_val xl = cj_where(low, x, c), xh = cj_where(low, c, x);
    cj_val below = cj_log(cj_neg(cj_expm1(cj_neg(xl))));
    cj_val above = cj_log1p(cj_neg(cj_exp(cj_neg(xh))));
    return cj_where(low, below, above);
}
