"""gen_random_fixtures.py — writes the jax.random fixtures tests/test_random.c
compares against bit for bit (tests/data/random/*.npy). Not run by `make test`:
it needs JAX. Run it from anywhere: python3 tests/data/gen_random_fixtures.py

Keys and bits are stored as JAX gives them: uint32 (bits also uint8,
uint16, and uint64 from the x64 pass; gumbel "highest" in f32 and, from
the x64 pass, f64). JAX runs with its default settings
(jax_enable_x64 off, threefry2x32, jax_threefry_partitionable on) except for
the float64 samples: float64 needs x64 mode, so a second pass in a child
process with JAX_ENABLE_X64=1 draws them from the SAME raw keys (rebuilt
with wrap_key_data from the first pass's key data, because x64 mode splits
negative and 64-bit seeds differently)."""
import os
import subprocess
import sys

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "random")
SEEDS = [0, 1, 42, 2**31 - 1, -7, 2**40 + 3]
SHAPES = {"scalar": (), "5": (5,), "3x4": (3, 4), "2x3x4": (2, 3, 4)}
PERM_SIZES = [0, 1, 5, 10, 100, 2000]


def save(name, arr):
    arr = np.asarray(arr)
    np.save(os.path.join(OUT, name + ".npy"), arr)


def first_pass():
    import jax
    import jax.numpy as jnp

    assert not jax.config.jax_enable_x64
    assert jax.config.jax_default_prng_impl == "threefry2x32"
    assert jax.config.jax_threefry_partitionable
    with open(os.path.join(OUT, "VERSION"), "w") as f:
        f.write(f"jax {jax.__version__}\n")
    for si, seed in enumerate(SEEDS):
        key = jax.random.key(seed)
        save(f"key_s{si}", jax.random.key_data(key))
        save(f"split2_s{si}", jax.random.key_data(jax.random.split(key)))
        save(f"split3_s{si}", jax.random.key_data(jax.random.split(key, 3)))
        for d in (0, 7, 123456789, -1):
            save(f"fold_in_s{si}_d{d}", jax.random.key_data(jax.random.fold_in(key, np.uint32(d & 0xFFFFFFFF))))
        for sn, shape in SHAPES.items():
            save(f"bits_s{si}_{sn}", jax.random.bits(key, shape, jnp.uint32))
            save(f"bits_u8_s{si}_{sn}", jax.random.bits(key, shape, jnp.uint8))
            save(f"bits_u16_s{si}_{sn}", jax.random.bits(key, shape, jnp.uint16))
            save(f"gumbel_highest_s{si}_{sn}_f32", jax.random.gumbel(key, shape, jnp.float32, mode="highest"))
            save(f"uniform_s{si}_{sn}_f32", jax.random.uniform(key, shape, jnp.float32))
            save(f"uniform_range_s{si}_{sn}_f32", jax.random.uniform(key, shape, jnp.float32, -2.5, 3.7))
            save(f"normal_s{si}_{sn}_f32", jax.random.normal(key, shape, jnp.float32))
            save(f"bernoulli_s{si}_{sn}", jax.random.bernoulli(key, 0.3, shape))
            save(f"randint_s{si}_{sn}", jax.random.randint(key, shape, -5, 17, jnp.int32))
            save(f"randint_wide_s{si}_{sn}", jax.random.randint(key, shape, -1000000000, 2000000000, jnp.int32))
        for n in PERM_SIZES:
            save(f"permutation_s{si}_n{n}", jax.random.permutation(key, n))
        x = jnp.arange(12, dtype=jnp.int32).reshape(3, 4)
        save(f"permutation_arr_s{si}_axis1", jax.random.permutation(key, x, axis=1))
        save(f"permutation_arr_s{si}_axis0", jax.random.permutation(key, x, axis=0))
    # edge cases of the C API's documented behaviour
    key = jax.random.key(3)
    save("randint_empty_range", jax.random.randint(key, (6,), 5, 5))
    save("randint_reversed_range", jax.random.randint(key, (6,), 9, 2))
    save("bernoulli_p0", jax.random.bernoulli(key, 0.0, (8,)))
    save("bernoulli_p1", jax.random.bernoulli(key, 1.0, (8,)))
    save("bernoulli_p_above1", jax.random.bernoulli(key, 1.5, (8,)))
    save("bernoulli_p_negative", jax.random.bernoulli(key, -0.5, (8,)))
    save("uniform_reversed_range", jax.random.uniform(key, (8,), jnp.float32, 2.0, -1.0))
    # a longer normal stream (issue 13's case: key 3), f64 in the second pass
    save("key_3", jax.random.key_data(key))
    save("normal_key3_1000_f32", jax.random.normal(key, (1000,), jnp.float32))
    # gumbel "highest" over many draws: both halves of the fold, deep tails
    save("gumbel_highest_key3_4096_f32", jax.random.gumbel(key, (4096,), jnp.float32, mode="highest"))


def second_pass():
    import jax
    import jax.numpy as jnp

    assert jax.config.jax_enable_x64
    for si in range(len(SEEDS)):
        raw = np.load(os.path.join(OUT, f"key_s{si}.npy")).view(np.uint32)
        key = jax.random.wrap_key_data(jnp.asarray(raw, dtype=jnp.uint32))
        for sn, shape in SHAPES.items():
            save(f"uniform_s{si}_{sn}_f64", jax.random.uniform(key, shape, jnp.float64))
            save(f"uniform_range_s{si}_{sn}_f64", jax.random.uniform(key, shape, jnp.float64, -2.5, 3.7))
            save(f"normal_s{si}_{sn}_f64", jax.random.normal(key, shape, jnp.float64))
            save(f"bits_u64_s{si}_{sn}", jax.random.bits(key, shape, jnp.uint64))
            save(f"gumbel_highest_s{si}_{sn}_f64", jax.random.gumbel(key, shape, jnp.float64, mode="highest"))
    raw = np.load(os.path.join(OUT, "key_3.npy")).view(np.uint32)
    key = jax.random.wrap_key_data(jnp.asarray(raw, dtype=jnp.uint32))
    save("normal_key3_500_f64", jax.random.normal(key, (500,), jnp.float64))


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    if len(sys.argv) > 1 and sys.argv[1] == "--x64":
        second_pass()
    else:
        first_pass()
        env = dict(os.environ, JAX_ENABLE_X64="1")
        subprocess.run([sys.executable, os.path.abspath(__file__), "--x64"], env=env, check=True)
