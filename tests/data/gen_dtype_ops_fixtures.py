"""gen_dtype_ops_fixtures.py — writes the JAX fixtures of tests/test_dtypes_ops.c
(tests/data/dtype_ops/*.npy): lax's elementwise primitives on the dtypes added
after f64 (i8, i16, u8, u16, u32, u64, f16, bf16), computed by jax.jit on CPU.
Not run by `make test`: it needs JAX. Run: python3 tests/data/gen_dtype_ops_fixtures.py

For each dtype: a.npy and b.npy (every pair of boundary values, then seeded
random ones; b of integer dtypes has no zeros where lax would trap — it does
not: XLA defines x / 0 and x % 0, so zeros stay) and <dtype>_<op>.npy, one
file per primitive. f16/bf16 arrays are saved as their bits (uint16).
refused.txt lists the (dtype, primitive) pairs lax refuses (abs of an
unsigned type, ...), which cjax must refuse too."""
import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dtype_ops")

INT_OPS = ["add", "sub", "mul", "div", "rem", "max", "min", "neg", "abs", "sign", "eq", "ne", "lt", "le",
           "gt", "ge", "and", "or", "xor", "not", "select", "clamp", "integer_pow3"]
FLOAT_OPS = ["add", "sub", "mul", "div", "rem", "max", "min", "neg", "abs", "sign", "eq", "ne", "lt", "le",
             "gt", "ge", "select", "clamp", "integer_pow3", "pow", "floor", "ceil", "round", "sqrt", "rsqrt",
             "exp", "log", "log1p", "expm1", "sin", "cos", "tanh", "logistic", "atan2", "is_finite", "erf"]


def main():
    import jax
    jax.config.update("jax_enable_x64", True)  # u64/i64 operands exist
    import jax.numpy as jnp
    from jax import lax
    import ml_dtypes

    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(18)
    dts = {"i8": np.int8, "i16": np.int16, "u8": np.uint8, "u16": np.uint16, "u32": np.uint32,
           "u64": np.uint64, "f16": np.float16, "bf16": ml_dtypes.bfloat16}
    fns = {
        "add": lax.add, "sub": lax.sub, "mul": lax.mul, "div": lax.div, "rem": lax.rem, "max": lax.max,
        "min": lax.min, "eq": lax.eq, "ne": lax.ne, "lt": lax.lt, "le": lax.le, "gt": lax.gt, "ge": lax.ge,
        "and": lax.bitwise_and, "or": lax.bitwise_or, "xor": lax.bitwise_xor, "pow": lax.pow,
        "atan2": lax.atan2,
    }
    unary = {
        "neg": lax.neg, "abs": lax.abs, "sign": lax.sign, "not": lax.bitwise_not,
        "integer_pow3": lambda x: lax.integer_pow(x, 3), "floor": lax.floor, "ceil": lax.ceil,
        "round": lambda x: lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN), "sqrt": lax.sqrt,
        "rsqrt": lax.rsqrt, "exp": lax.exp, "log": lax.log, "log1p": lax.log1p, "expm1": lax.expm1,
        "sin": lax.sin, "cos": lax.cos, "tanh": lax.tanh, "logistic": lax.logistic,
        "is_finite": lax.is_finite, "erf": lax.erf,
    }

    refused = []

    def apply(op, ja, jb, pred, lo):
        return apply_op(fns, unary, op, ja, jb, pred, lo)

    def bits(x):
        return x.view(np.uint16) if x.dtype.kind not in "iub" and x.dtype.itemsize == 2 else x

    for name, dt in dts.items():
        is_int = np.dtype(dt).kind in "iu"
        if is_int:
            info = np.iinfo(dt)
            edge = sorted({int(info.min), int(info.min) + 1, -7, -2, -1, 0, 1, 2, 3, 7, 100, int(info.max) - 1,
                           int(info.max)} & set(range(int(info.min), int(info.max) + 1))
                          if info.max < 2**20 else
                          {int(info.min), int(info.min) + 1, -7, -2, -1, 0, 1, 2, 3, 7, 100, 65537,
                           int(info.max) - 1, int(info.max)})
            edge = [v for v in edge if info.min <= v <= info.max]
            ea = np.array([u for u in edge for _ in edge], dtype=object)
            eb = np.array([v for _ in edge for v in edge], dtype=object)
            nb = np.dtype(dt).itemsize * 8
            r = rng.integers(0, 2**63, size=(2, 300), dtype=np.uint64) >> np.uint64(64 - nb if nb < 64 else 0)
            if nb == 64:
                r = r * np.uint64(2) + rng.integers(0, 2, size=(2, 300), dtype=np.uint64)
            ru = r.astype({8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}[nb]).view(dt)
            small = rng.integers(-20, 20, size=(2, 100))
            small = np.clip(small, int(info.min), int(info.max)).astype(dt)
            a = np.concatenate([np.array([int(v) for v in ea]).astype(dt) if info.max < 2**63 else
                                np.array([int(v) for v in ea], dtype=np.uint64).astype(dt), ru[0], small[0]])
            b = np.concatenate([np.array([int(v) for v in eb]).astype(dt) if info.max < 2**63 else
                                np.array([int(v) for v in eb], dtype=np.uint64).astype(dt), ru[1], small[1]])
            ops = INT_OPS
        else:
            sp = np.array([0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -3.5, 1e-3, 100.0, 65504.0, np.inf, -np.inf, np.nan,
                           6e-5, -1e-7], np.float64)
            ea = np.repeat(sp, len(sp))
            eb = np.tile(sp, len(sp))
            rnd = (rng.standard_normal((2, 400)) * 10.0 ** rng.integers(-3, 4, size=(2, 400)))
            pat = rng.integers(0, 65536, size=(2, 200)).astype(np.uint16).view(dt).astype(np.float64)
            a = np.concatenate([ea, rnd[0], pat[0]]).astype(dt)
            b = np.concatenate([eb, rnd[1], pat[1]]).astype(dt)
            ops = FLOAT_OPS
        np.save(os.path.join(OUT, f"{name}_a.npy"), bits(a))
        np.save(os.path.join(OUT, f"{name}_b.npy"), bits(b))
        ja, jb = jnp.asarray(a), jnp.asarray(b)
        pred = jnp.asarray((np.arange(a.size) % 3) == 1)
        lo = jnp.minimum(ja, jb)
        for op in ops:
            try:
                y = apply(op, ja, jb, pred, lo)
            except TypeError:  # lax refuses it (abs of an unsigned type): so must cjax
                refused.append(f"{name} {op}")
                continue
            np.save(os.path.join(OUT, f"{name}_{op}.npy"), bits(np.asarray(y)))
    with open(os.path.join(OUT, "refused.txt"), "w") as f:
        f.write("\n".join(refused) + "\n")
    with open(os.path.join(OUT, "VERSION"), "w") as f:
        f.write(f"jax {jax.__version__} ml_dtypes {ml_dtypes.__version__}\n")


def apply_op(fns, unary, op, ja, jb, pred, lo):
    import jax
    from jax import lax
    import jax.numpy as jnp
    if True:
            if op in fns:
                f = jax.jit(fns[op])
                y = f(ja, jb)
            elif op == "select":
                y = jax.jit(lax.select)(pred, ja, jb)
            elif op == "clamp":
                # clamp(lo, x, hi) with lo = min(a, b), hi = max(a, b), x = a + b
                y = jax.jit(lambda l, x, h: lax.clamp(l, x, h))(lo, jax.jit(lax.add)(ja, jb), jnp.maximum(ja, jb))
            else:
                y = jax.jit(unary[op])(ja)
            return y


if __name__ == "__main__":
    main()
