"""gen_random_narrow_fixtures.py — writes tests/data/random_narrow/random_narrow.npz,
the jax.random draws in float16 / bfloat16 and in 8/16-bit integers that
tests/test_random_narrow.c compares against. Not run by `make test` (it needs
JAX 0.10.2): python3 tests/data/gen_random_narrow_fixtures.py

JAX's defaults (threefry2x32, partitionable, x64 off). Keys from
jax.random.key(seed) for seeds 0, 42, -7 (index 0, 1, 2). Members are named
<sampler>_<dtype>_<shape>_s<seed index>; shapes 5, 3x4, and 1000 (seed 0
only). Stored uncompressed (np.savez), floats as their own dtype (bf16 as
ml_dtypes' <V2, which cjax reads)."""
import os

import jax
import jax.numpy as jnp
import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "random_narrow", "random_narrow.npz")
SEEDS = [0, 42, -7]
SHAPES = {"5": (5,), "3x4": (3, 4), "1000": (1000,)}
FLOATS = {"f16": jnp.float16, "bf16": jnp.bfloat16}
INTS = {"i8": jnp.int8, "u8": jnp.uint8, "i16": jnp.int16, "u16": jnp.uint16, "u32": jnp.uint32}
# (name, minval, maxval) per integer dtype: ordinary, the whole range and
# beyond it (maxval out of range: span + 1), empty (maxval <= minval)
RANGES = {
    "i8": [("a", -5, 17), ("full", -128, 128), ("empty", 10, 3)],
    "u8": [("a", 3, 200), ("full", 0, 256), ("empty", 7, 7)],
    "i16": [("a", -1000, 1000), ("full", -32768, 32768), ("empty", 5, -5)],
    "u16": [("a", 100, 60000), ("full", 0, 65536), ("empty", 9, 1)],
    "u32": [("a", 5, 1000000), ("big", 0, 2**31 - 1), ("empty", 9, 1)],
}


def main():
    r = jax.random
    out = {}
    for si, seed in enumerate(SEEDS):
        key = r.key(seed)
        for sn, shape in SHAPES.items():
            if sn == "1000" and si != 0:
                continue
            for tn, dt in FLOATS.items():
                tag = f"{tn}_{sn}_s{si}"
                out[f"uniform_{tag}"] = r.uniform(key, shape, dt)
                out[f"uniform_ab_{tag}"] = r.uniform(key, shape, dt, -3.1, 0.7)
                out[f"normal_{tag}"] = r.normal(key, shape, dt)
                out[f"exponential_{tag}"] = r.exponential(key, shape, dt)
                out[f"laplace_{tag}"] = r.laplace(key, shape, dt)
                out[f"logistic_{tag}"] = r.logistic(key, shape, dt)
                out[f"gumbel_{tag}"] = r.gumbel(key, shape, dt)
                out[f"gumbel_high_{tag}"] = r.gumbel(key, shape, dt, mode="high")
                out[f"cauchy_{tag}"] = r.cauchy(key, shape, dt)
                out[f"tnormal_{tag}"] = r.truncated_normal(key, -1.5, 2.0, shape, dt)
                out[f"rademacher_{tag}"] = r.rademacher(key, shape, dt)
            for tn, dt in INTS.items():
                for rn, lo, hi in RANGES[tn]:
                    out[f"randint_{rn}_{tn}_{sn}_s{si}"] = r.randint(key, shape, lo, hi, dt)
                out[f"rademacher_{tn}_{sn}_s{si}"] = r.rademacher(key, shape, dt)
    out = {k: np.asarray(v) for k, v in out.items()}
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    np.savez(OUT, **out)
    with open(os.path.join(os.path.dirname(OUT), "VERSION"), "w") as f:
        f.write(f"jax {jax.__version__}, numpy {np.__version__}\n")
    print(f"{len(out)} arrays -> {OUT}")


if __name__ == "__main__":
    main()
