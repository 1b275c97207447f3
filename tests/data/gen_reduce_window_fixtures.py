"""gen_reduce_window_fixtures.py — writes the JAX fixtures
tests/test_reduce_window.c compares against (tests/data/reduce_window/*.npy,
CASES and POOLS). Not run by `make test`: it needs JAX. Run it from
anywhere: python3 tests/data/gen_reduce_window_fixtures.py

Each CASES line is one lax.reduce_window (sum, max or min) on seeded random
inputs — some of small integers, so windows hold ties — with: the input x,
the result, a tangent t and the jvp's tangent, a cotangent w and the
gradient of sum(w * reduce_window(x)) (absent, has_grad 0, where JAX has no
VJP: max/min with window dilation). <name>_params.npy holds, per axis, the
window, strides, (lo, hi) pads, base dilation and window dilation (each
list in axis order).

Each POOLS line is one of flax.linen's pooling functions (pool() of
flax/linen/pooling.py written out below over lax.reduce_window, so flax
need not be installed): max_pool, min_pool, avg_pool (count_include_pad
True) and avg_pool_excl (False), on NHWC input, with the result and the
gradient of sum(w * pool(x)). <name>_params.npy: the window, the strides,
padding (0 VALID, 1 SAME)."""
import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reduce_window")

# name, kind, dtype, shape, window, strides, pads, base_dil, win_dil, ties
CASES = [
    ("max_pool_nhwc", "max", "f32", (2, 6, 6, 3), (1, 2, 2, 1), (1, 2, 2, 1), ((0, 0),) * 4, (1,) * 4, (1,) * 4, 0),
    ("max_overlap_ties", "max", "f32", (2, 5, 7, 2), (1, 3, 3, 1), (1, 1, 2, 1), ((0, 0),) * 4, (1,) * 4, (1,) * 4, 1),
    ("max_padded", "max", "f32", (2, 3, 5, 5), (1, 1, 3, 3), (1, 1, 2, 2), ((0, 0), (0, 0), (1, 1), (1, 2)), (1,) * 4, (1,) * 4, 0),
    ("max_nchw_last", "max", "f32", (2, 3, 6, 7), (1, 1, 2, 3), (1, 1, 2, 2), ((0, 0), (0, 0), (0, 0), (1, 0)), (1,) * 4, (1,) * 4, 1),
    ("max_base_dil", "max", "f32", (3, 4, 5), (2, 2, 3), (1, 2, 2), ((0, 0), (1, 0), (0, 1)), (2, 1, 2), (1, 1, 1), 0),
    ("max_win_dil", "max", "f32", (2, 9, 8), (1, 3, 2), (1, 2, 1), ((0, 0), (1, 1), (0, 0)), (1, 1, 1), (1, 2, 3), 0),
    ("min_ties", "min", "f32", (4, 6, 5), (2, 2, 2), (2, 1, 1), ((0, 0), (0, 1), (1, 0)), (1,) * 3, (1,) * 3, 1),
    ("min_1d", "min", "f32", (13,), (4,), (3,), ((2, 1),), (1,), (1,), 0),
    ("sum_basic", "sum", "f32", (2, 6, 6, 3), (1, 3, 3, 1), (1, 1, 1, 1), ((0, 0),) * 4, (1,) * 4, (1,) * 4, 0),
    ("sum_strides_pads", "sum", "f32", (2, 7, 8, 2), (1, 3, 2, 1), (1, 2, 3, 1), ((0, 0), (1, 2), (0, 1), (0, 0)), (1,) * 4, (1,) * 4, 0),
    ("sum_negative_pads", "sum", "f32", (3, 9, 6), (1, 2, 2), (1, 1, 2), ((0, 0), (-1, 0), (1, -2)), (1,) * 3, (1,) * 3, 0),
    ("sum_dilations", "sum", "f32", (2, 5, 6), (1, 3, 2), (1, 2, 1), ((0, 0), (1, 1), (2, 0)), (1, 2, 3), (1, 2, 2), 0),
    ("sum_rank5", "sum", "f32", (2, 3, 4, 3, 2), (1, 2, 2, 2, 1), (1, 1, 2, 1, 1), ((0, 0), (1, 0), (0, 0), (0, 1), (0, 0)), (1,) * 5, (1,) * 5, 0),
    ("max_f64", "max", "f64", (2, 7, 6, 3), (1, 3, 2, 1), (1, 2, 2, 1), ((0, 0), (1, 1), (0, 1), (0, 0)), (1,) * 4, (1,) * 4, 0),
    ("min_f64_dil", "min", "f64", (3, 8, 7), (1, 2, 3), (1, 1, 2), ((0, 0), (1, 0), (0, 2)), (1, 2, 1), (1, 1, 1), 0),
    ("sum_f64_dil", "sum", "f64", (2, 7, 5), (2, 3, 2), (1, 2, 1), ((1, 0), (0, 2), (1, 1)), (1, 1, 2), (1, 2, 1), 0),
]

# name, pool, dtype, shape (NHWC), window, strides, padding (0 VALID, 1 SAME)
POOLS = [
    ("maxpool_valid", "max_pool", "f32", (2, 8, 8, 3), (2, 2), (2, 2), 0),
    ("maxpool_same_s1", "max_pool", "f32", (2, 5, 6, 2), (3, 3), (1, 1), 1),
    ("minpool_same", "min_pool", "f32", (1, 7, 5, 2), (2, 3), (2, 2), 1),
    ("avgpool_valid", "avg_pool", "f32", (2, 8, 6, 3), (2, 3), (2, 1), 0),
    ("avgpool_same", "avg_pool", "f32", (2, 7, 7, 2), (3, 3), (2, 2), 1),
    ("avgpool_same_excl", "avg_pool_excl", "f32", (2, 7, 7, 2), (3, 3), (2, 2), 1),
    ("avgpool_excl_f64", "avg_pool_excl", "f64", (1, 5, 6, 2), (2, 2), (1, 2), 1),
]


def save(name, arr):
    np.save(os.path.join(OUT, name + ".npy"), np.asarray(arr))


def main():
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    from jax import lax

    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "VERSION"), "w") as f:
        f.write(f"jax {jax.__version__}\n")
    rng = np.random.default_rng(17)
    lines = []
    for name, kind, dt, shape, win, strides, pads, bd, wd, ties in CASES:
        npdt = np.float32 if dt == "f32" else np.float64
        if ties:
            x = rng.integers(-2, 3, shape).astype(npdt)
        else:
            x = rng.standard_normal(shape).astype(npdt)
        init, op = {"sum": (0.0, lax.add), "max": (-np.inf, lax.max), "min": (np.inf, lax.min)}[kind]

        def rw(v):
            return lax.reduce_window(v, npdt(init), op, win, strides, pads, base_dilation=bd, window_dilation=wd)

        out = rw(x)
        t = rng.standard_normal(shape).astype(npdt)
        _, jt = jax.jvp(rw, (x,), (t,))
        w = rng.standard_normal(out.shape).astype(npdt)
        has_grad = 1
        try:
            g = jax.grad(lambda v: jnp.sum(w * rw(v)))(x)
        except NotImplementedError:
            has_grad, g = 0, None
        for what, arr in (("x", x), ("out", out), ("t", t), ("jvp", jt), ("w", w)):
            save(f"{name}_{what}", np.asarray(arr, dtype=npdt))
        if has_grad:
            save(f"{name}_grad", np.asarray(g, dtype=npdt))
        params = list(win) + list(strides) + [p for lh in pads for p in lh] + list(bd) + list(wd)
        save(f"{name}_params", np.asarray(params, dtype=np.int64))
        lines.append(f"{name} {kind} {has_grad}\n")
    with open(os.path.join(OUT, "CASES"), "w") as f:
        f.writelines(lines)

    # flax.linen.pooling.pool, avg_pool, max_pool, min_pool
    def pool(v, init, op, window, strides, padding):
        dims = (1,) + window + (1,)
        st = (1,) + strides + (1,)
        return lax.reduce_window(v, init, op, dims, st, padding)

    def apply(kind, v, window, strides, padding):
        if kind == "max_pool":
            return pool(v, -jnp.inf, lax.max, window, strides, padding)
        if kind == "min_pool":
            return pool(v, jnp.inf, lax.min, window, strides, padding)
        y = pool(v, 0.0, lax.add, window, strides, padding)
        if kind == "avg_pool":
            return y / np.prod(window)
        div_shape = (1,) + v.shape[1:-1] + (1,)
        return y / pool(jnp.ones(div_shape, v.dtype), 0.0, lax.add, window, strides, padding)

    lines = []
    for name, kind, dt, shape, window, strides, padding in POOLS:
        npdt = np.float32 if dt == "f32" else np.float64
        x = rng.standard_normal(shape).astype(npdt)
        pad = "SAME" if padding else "VALID"
        out = apply(kind, x, window, strides, pad)
        w = rng.standard_normal(out.shape).astype(npdt)
        g = jax.grad(lambda v: jnp.sum(w * apply(kind, v, window, strides, pad)))(x)
        for what, arr in (("x", x), ("out", out), ("w", w), ("grad", g)):
            save(f"{name}_{what}", np.asarray(arr, dtype=npdt))
        save(f"{name}_params", np.asarray(list(window) + list(strides) + [padding], dtype=np.int64))
        lines.append(f"{name} {kind}\n")
    with open(os.path.join(OUT, "POOLS"), "w") as f:
        f.writelines(lines)


if __name__ == "__main__":
    main()
