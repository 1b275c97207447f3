"""gen_minmax_nan_fixtures.py — writes the fixtures of tests/test_minmax_nan.c
(tests/data/minmax_nan/*.npy): lax.max and lax.min of every pair of a set of
special values — NaNs of both signs, quiet and signalling, with and without a
payload; +-0; +-1; +-inf; a subnormal — on f16, bf16, f32 and f64, as jitted
JAX on CPU computes them (eager JAX gives the same bits; the generator checks
that). Both argument orders are in the table, since XLA's NaN result depends
on them. Not run by `make test` (it needs JAX):
python3 tests/data/gen_minmax_nan_fixtures.py

Files: <dtype>_a.npy, <dtype>_b.npy (the operands, every pair: a repeats each
value, b tiles them) and <dtype>_max.npy / <dtype>_min.npy, all stored as the
unsigned integers of the same width (u16 / u32 / u64) so the bits are exact
whatever a reader does with NaNs."""
import os

import jax
import ml_dtypes
import numpy as np
from jax import lax

jax.config.update("jax_enable_x64", True)
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "minmax_nan")

SPECIAL = {
    # qNaN +-, sNaN +- with payload, qNaN with payload +-, +-0, +-1, +-inf, subnormal, 2.5
    "f16": (np.float16, np.uint16, [0x7E00, 0xFE00, 0x7C01, 0xFD55, 0x7E55, 0xFE01, 0x0000, 0x8000, 0x3C00,
                                    0xBC00, 0x7C00, 0xFC00, 0x0001, 0x4100]),
    "bf16": (ml_dtypes.bfloat16, np.uint16, [0x7FC0, 0xFFC0, 0x7F81, 0xFF95, 0x7FD5, 0xFFC1, 0x0000, 0x8000,
                                             0x3F80, 0xBF80, 0x7F80, 0xFF80, 0x0001, 0x4020]),
    "f32": (np.float32, np.uint32, [0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF812345, 0x7FC12345, 0xFFC00001,
                                    0x00000000, 0x80000000, 0x3F800000, 0xBF800000, 0x7F800000, 0xFF800000,
                                    0x00000001, 0x40200000]),
    "f64": (np.float64, np.uint64, [0x7FF8000000000000, 0xFFF8000000000000, 0x7FF0000000000001,
                                    0xFFF0000000012345, 0x7FF8000000012345, 0xFFF8000000000001, 0, 1 << 63,
                                    0x3FF0000000000000, 0xBFF0000000000000, 0x7FF0000000000000,
                                    0xFFF0000000000000, 1, 0x4004000000000000]),
}


def main():
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "VERSION"), "w") as f:
        f.write(f"jax {jax.__version__}\n")
    for tag, (dt, ut, bits) in SPECIAL.items():
        v = np.array(bits, dtype=ut)
        a, b = np.repeat(v, len(v)), np.tile(v, len(v))
        np.save(os.path.join(OUT, f"{tag}_a.npy"), a)
        np.save(os.path.join(OUT, f"{tag}_b.npy"), b)
        for name, fn in (("max", lax.max), ("min", lax.min)):
            jitted = np.asarray(jax.jit(fn)(a.view(dt), b.view(dt))).view(ut)
            eager = np.asarray(fn(a.view(dt), b.view(dt))).view(ut)
            assert (jitted == eager).all(), (tag, name)
            np.save(os.path.join(OUT, f"{tag}_{name}.npy"), jitted)


if __name__ == "__main__":
    main()
