"""gen_dtype_reduce_fixtures.py — writes the JAX fixtures of
tests/test_dtypes_reduce.c (tests/data/dtype_reduce/*.npy): lax's reductions,
arg-reductions and cumulative ops, and jnp's sum/prod/mean/cumsum, on the
dtypes added after f64 (i8, i16, u8, u16, u32, u64, f16, bf16), computed by
jax.jit on CPU. Not run by `make test`: it needs JAX.
Run: python3 tests/data/gen_dtype_reduce_fixtures.py

For each dtype <d>: <d>_x.npy (3×5: boundary values and seeded random ones,
so integer sums and products wrap; f16/bf16 hold ±0, ±inf, a NaN in row 2,
and values whose sums round), <d>_<op>.npy for each case below, and for
f16/bf16 <d>_long.npy (1000 values) with <d>_long_sum.npy (lax.reduce_sum)
and <d>_long_jnp_sum.npy, whose order of summation XLA chooses (the test
compares those within a bound, not bit for bit). f16/bf16 arrays are saved
as their bits (uint16). <d>_w.npy (4×6) with <d>_rw_{sum,max,min}.npy
(lax.reduce_window: window (2, 2), strides (1, 2), padding ((0, 1), (1, 0)))
and <d>_max_pool.npy (flax's max_pool of w[..., None], window (2, 2)).
x64 is on only for u64's cases (jnp's x64-off
promotion is what cjax follows; u64 does not exist there)."""
import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dtype_reduce")


def cases(jnp, lax, narrow):
    c = {
        "sum1": lambda x: lax.reduce_sum_p.bind(x, axes=(1,), out_sharding=None),
        "sum0": lambda x: lax.reduce_sum_p.bind(x, axes=(0,), out_sharding=None),
        "sum01": lambda x: lax.reduce_sum_p.bind(x, axes=(0, 1), out_sharding=None),
        "prod1": lambda x: lax.reduce_prod_p.bind(x, axes=(1,)),
        "prod0": lambda x: lax.reduce_prod_p.bind(x, axes=(0,)),
        "max1": lambda x: lax.reduce_max_p.bind(x, axes=(1,), out_sharding=None),
        "max0": lambda x: lax.reduce_max_p.bind(x, axes=(0,), out_sharding=None),
        "min1": lambda x: lax.reduce_min_p.bind(x, axes=(1,), out_sharding=None),
        "min0": lambda x: lax.reduce_min_p.bind(x, axes=(0,), out_sharding=None),
        "argmax1": lambda x: lax.argmax(x, 1, np.int32),
        "argmax0": lambda x: lax.argmax(x, 0, np.int32),
        "argmin1": lambda x: lax.argmin(x, 1, np.int32),
        "argmin0": lambda x: lax.argmin(x, 0, np.int32),
        "cumsum1": lambda x: lax.cumsum(x, 1),
        "cumsum1r": lambda x: lax.cumsum(x, 1, reverse=True),
        "cumsum0": lambda x: lax.cumsum(x, 0),
        "cumprod1": lambda x: lax.cumprod(x, 1),
        "cummax1": lambda x: lax.cummax(x, 1),
        "cummax0r": lambda x: lax.cummax(x, 0, reverse=True),
        "cummin1": lambda x: lax.cummin(x, 1),
        "jnp_sum1": lambda x: jnp.sum(x, axis=1),
        "jnp_prod1": lambda x: jnp.prod(x, axis=1),
        "jnp_mean1": lambda x: jnp.mean(x, axis=1),
        "jnp_cumsum1": lambda x: jnp.cumsum(x, axis=1),
        "iota": None,
    }
    if narrow:
        c["cumlogsumexp1"] = lambda x: lax.cumlogsumexp(x, 1)
        c["jnp_var1"] = lambda x: jnp.var(x, axis=1)
        c["jnp_std1"] = lambda x: jnp.std(x, axis=1, ddof=1)
    return c


def main():
    import jax
    import ml_dtypes

    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(17)
    dts = {"i8": np.int8, "i16": np.int16, "u8": np.uint8, "u16": np.uint16, "u32": np.uint32,
           "u64": np.uint64, "f16": np.float16, "bf16": ml_dtypes.bfloat16}

    def bits(x):
        x = np.asarray(x)
        return x.view(np.uint16) if x.dtype.kind not in "iub" and x.dtype.itemsize == 2 else x

    for name, dt in dts.items():
        jax.config.update("jax_enable_x64", name == "u64")
        import jax.numpy as jnp
        from jax import lax
        narrow = np.dtype(dt).kind not in "iu"
        if narrow:
            x = rng.standard_normal(15).astype(np.float32) * 3
            x[:4] = [0.0, -0.0, np.inf, -np.inf]
            x[4] = 1000.0
            x[[5, 6]] = [-0.0, -0.0]  # a row whose max/min meet signed zeros
            x = x.reshape(3, 5)
            x[0, :] = [0.0, -0.0, 1.5, 2.25, -3.0]
            x[1, :] = [-0.0, -0.0, 0.1, 0.2, 0.3]
            x[2, 1] = np.nan
            x = x.astype(dt)
        else:
            info = np.iinfo(dt)
            nb = np.dtype(dt).itemsize * 8
            r = rng.integers(0, 2**63, size=15, dtype=np.uint64)
            r = (r * np.uint64(2) + rng.integers(0, 2, size=15, dtype=np.uint64)) >> np.uint64(64 - nb)
            x = r.astype({8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}[nb]).view(dt).copy()
            x[0], x[1], x[2] = info.max, info.min, info.max  # wrapping sums
            x[5], x[6] = 3, 3  # a tie for argmax/argmin in row 1
            x[7] = 3
            x = x.reshape(3, 5)
        np.save(os.path.join(OUT, f"{name}_x.npy"), bits(x))
        jx = jnp.asarray(x)
        for op, f in cases(jnp, lax, narrow).items():
            if f is None:
                y = lax.iota(dt, 40)
            else:
                y = jax.jit(f)(jx)
            np.save(os.path.join(OUT, f"{name}_{op}.npy"), bits(y))
        # reduce_window on 4×6: window (2, 2), strides (1, 2), padding ((0, 1), (1, 0)); max_pool
        w = (x.reshape(-1)[np.arange(24) % 15]).reshape(4, 6)
        np.save(os.path.join(OUT, f"{name}_w.npy"), bits(w))
        jw = jnp.asarray(w)
        if narrow:
            lo, hi = -np.inf, np.inf
        else:
            lo, hi = np.iinfo(dt).min, np.iinfo(dt).max
        for op, init, fn in [("sum", 0, lax.add), ("max", lo, lax.max), ("min", hi, lax.min)]:
            y = jax.jit(lambda v: lax.reduce_window(v, np.array(init, dt), fn, (2, 2), (1, 2),
                                                    ((0, 1), (1, 0))))(jw)
            np.save(os.path.join(OUT, f"{name}_rw_{op}.npy"), bits(y))
        y = jax.jit(lambda v: lax.reduce_window(v[..., None], np.array(lo, dt), lax.max, (2, 2, 1), (1, 1, 1),
                                                "VALID"))(jw)
        np.save(os.path.join(OUT, f"{name}_max_pool.npy"), bits(y))
        if narrow:
            long = (rng.standard_normal(1000).astype(np.float32) + 0.25).astype(dt)
            np.save(os.path.join(OUT, f"{name}_long.npy"), bits(long))
            jl = jnp.asarray(long)
            np.save(os.path.join(OUT, f"{name}_long_sum.npy"),
                    bits(jax.jit(lambda v: lax.reduce_sum_p.bind(v, axes=(0,), out_sharding=None))(jl)))
            np.save(os.path.join(OUT, f"{name}_long_jnp_sum.npy"), bits(jax.jit(jnp.sum)(jl)))
            np.save(os.path.join(OUT, f"{name}_long_cumsum.npy"), bits(jax.jit(lax.cumsum)(jl)))


if __name__ == "__main__":
    main()
