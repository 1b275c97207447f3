"""gen_bits_fixtures.py — writes the JAX fixtures of tests/test_bits.c
(tests/data/bits/*.npy): lax.shift_left, shift_right_logical,
shift_right_arithmetic and population_count on the eight integer dtypes,
computed by jax.jit on CPU. Not run by `make test`: it needs JAX.
Run: python3 tests/data/gen_bits_fixtures.py

For each dtype: <dt>_a.npy and <dt>_b.npy hold every pair of boundary
values (a) and shift amounts (b), the amounts including out-of-range ones
(negative, the width, more than the width, the type's extremes); then
<dt>_shift_left.npy, <dt>_shift_right_logical.npy,
<dt>_shift_right_arithmetic.npy and <dt>_population_count.npy (of a)."""
import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bits")


def main():
    import jax
    jax.config.update("jax_enable_x64", True)  # 64-bit operands
    from jax import lax

    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(17)
    dts = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
           "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64}
    for name, dt in dts.items():
        info = np.iinfo(dt)
        bits = info.bits
        # values by their bit patterns, so unsigned and signed see the same ones
        ut = np.dtype(f"u{bits // 8}")
        patterns = [0, 1, 2, 3, (1 << (bits - 1)), (1 << (bits - 1)) - 1, (1 << bits) - 1,
                    int("55" * (bits // 8), 16), int("a5" * (bits // 8), 16), (1 << bits) - 2]
        patterns += [int(v) for v in rng.integers(0, 1 << bits, size=4, dtype=np.uint64 if bits == 64 else np.int64)]
        vals = np.array(patterns, dtype=np.uint64).astype(ut).view(dt)
        amounts = [0, 1, 3, bits - 1, bits, bits + 1, 2 * bits]
        if info.min < 0:
            amounts += [-1, -bits, int(info.min)]
        amounts += [int(info.max)]
        shifts = np.array([v & ((1 << bits) - 1) for v in amounts], dtype=np.uint64).astype(ut).view(dt)
        a = np.repeat(vals, len(shifts))
        b = np.tile(shifts, len(vals))
        np.save(os.path.join(OUT, f"{name}_a.npy"), a)
        np.save(os.path.join(OUT, f"{name}_b.npy"), b)
        for op, fn in [("shift_left", lax.shift_left), ("shift_right_logical", lax.shift_right_logical),
                       ("shift_right_arithmetic", lax.shift_right_arithmetic)]:
            y = np.asarray(jax.jit(fn)(a, b))
            assert y.dtype == a.dtype
            np.save(os.path.join(OUT, f"{name}_{op}.npy"), y)
        y = np.asarray(jax.jit(lax.population_count)(a))
        assert y.dtype == a.dtype
        np.save(os.path.join(OUT, f"{name}_population_count.npy"), y)


if __name__ == "__main__":
    main()
