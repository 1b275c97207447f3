"""gen_reduce_bitwise_fixtures.py — writes the fixtures of
tests/test_reduce_bitwise.c (tests/data/reduce_bitwise/*.npy): lax.reduce_and,
reduce_or and reduce_xor on bool and every integer dtype, over several axis
sets of a rank-3 operand and over an empty axis, and jnp.any / jnp.all of the
integer operands (they reduce x != 0), computed by jax.jit on CPU with x64 on
(u64 and i64 operands exist). Not run by `make test` (it needs JAX):
python3 tests/data/gen_reduce_bitwise_fixtures.py

Files: in_<dtype>.npy (the (3, 4, 5) operand: random bits with runs of all
ones and zeros so every reduction meets both), <op>_<dtype>_<axes>.npy for op
in and/or/xor and axes one of AXES (named by their digits), empty_<op>_<dtype>
(a (2, 0) operand reduced over axis 1: the identity), any_/all_<dtype>_<axes>
(bools)."""
import os

import jax
import numpy as np

jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reduce_bitwise")
DTYPES = {"bool": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "u8": np.uint8,
          "u16": np.uint16, "u32": np.uint32, "u64": np.uint64}
AXES = [(0,), (1,), (2,), (0, 2), (1, 2), (0, 1, 2)]
OPS = {"and": lax.reduce_and, "or": lax.reduce_or, "xor": lax.reduce_xor}


def operand(rng, dt):
    if dt == np.bool_:
        x = rng.random((3, 4, 5)) < 0.6
        x[0, 1, :] = True  # a row of all true: reduce_and over axis 2 gives true there
        x[1, 2, :] = False
        return x
    d = np.dtype(dt)
    bits = rng.integers(0, 2**63, size=(3, 4, 5), dtype=np.uint64) * 2 + rng.integers(0, 2, size=(3, 4, 5),
                                                                                    dtype=np.uint64)
    x = bits.astype(np.dtype(f"u{d.itemsize}")).view(d).copy()
    ones = np.array(-1, dtype=np.int64).astype(d) if d.kind == "i" else np.iinfo(d).max
    x[0, 1, :] = ones  # all bits set along a row
    x[1, 2, :] = 0
    x[2, 0, :3] = ones
    x[2, 3, :] = x[2, 3, 0]  # a repeated value: xor of an odd count keeps it
    return x


def main():
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "VERSION"), "w") as f:
        f.write(f"jax {jax.__version__}\n")
    rng = np.random.default_rng(1717)
    for tag, dt in DTYPES.items():
        x = operand(rng, dt)
        np.save(os.path.join(OUT, f"in_{tag}.npy"), x)
        empty = np.zeros((2, 0), dt)
        for name, fn in OPS.items():
            for axes in AXES:
                r = np.asarray(jax.jit(lambda v, a=axes, f=fn: f(v, a))(x))
                assert r.dtype == x.dtype
                np.save(os.path.join(OUT, f"{name}_{tag}_{''.join(map(str, axes))}.npy"), r)
            np.save(os.path.join(OUT, f"empty_{name}_{tag}.npy"), np.asarray(fn(empty, (1,))))
        for name, fn in (("any", jnp.any), ("all", jnp.all)):
            for axes in AXES:
                r = np.asarray(jax.jit(lambda v, a=axes, f=fn: f(v, axis=a))(x))
                np.save(os.path.join(OUT, f"{name}_{tag}_{''.join(map(str, axes))}.npy"), r)


if __name__ == "__main__":
    main()
