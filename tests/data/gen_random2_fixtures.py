"""gen_random2_fixtures.py — writes the fixtures of the jax.random samplers
beyond uniform/normal (tests/test_random_dist.c compares against them):
exponential, laplace, logistic, gumbel, cauchy, rademacher, truncated_normal,
categorical, choice, multivariate_normal, orthogonal. Not run by `make test`
(it needs JAX): python3 tests/data/gen_random2_fixtures.py

Same conventions as gen_random_fixtures.py: JAX's defaults (threefry2x32,
partitionable, x64 off) for f32 and integer results; f64 results from a
second pass with JAX_ENABLE_X64=1 on the same raw keys (wrap_key_data of the
first pass's key_s*.npy). Integer results are stored as int32. Files are
named d_<sampler>_<case>_s<seed index>_<dtype>.npy."""
import os
import subprocess
import sys

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "random")
SEED_IDX = [0, 2, 4]  # seeds 0, 42, -7 of gen_random_fixtures.py
SHAPES = {"5": (5,), "3x4": (3, 4), "1000": (1000,)}
LOGITS = np.array([[0.5, -1.0, 2.0, 0.0, 1.5],
                   [3.0, 3.0, -2.0, 0.25, -0.5],
                   [-1.0, 0.0, 1.0, 2.0, -3.0]])
COV = np.array([[2.0, 0.6, -0.4], [0.6, 1.5, 0.3], [-0.4, 0.3, 1.0]])
MEAN = np.array([1.0, -2.0, 0.5])
P = np.array([0.1, 0.4, 0.05, 0.25, 0.2])


def save(name, arr):
    arr = np.asarray(arr)
    if arr.dtype == np.uint32:
        arr = arr.view(np.int32)
    if arr.dtype == np.int64:
        arr = arr.astype(np.int32)
    np.save(os.path.join(OUT, "d_" + name + ".npy"), arr)


def floats(jax, jnp, key, si, dt, tag):
    r = jax.random
    for sn, shape in SHAPES.items():
        if sn == "1000" and si != 0:
            continue
        save(f"exponential_{sn}_s{si}_{tag}", r.exponential(key, shape, dt))
        save(f"laplace_{sn}_s{si}_{tag}", r.laplace(key, shape, dt))
        save(f"logistic_{sn}_s{si}_{tag}", r.logistic(key, shape, dt))
        save(f"gumbel_{sn}_s{si}_{tag}", r.gumbel(key, shape, dt))
        save(f"cauchy_{sn}_s{si}_{tag}", r.cauchy(key, shape, dt))
        save(f"rademacher_{sn}_s{si}_{tag}", r.rademacher(key, shape, dt))
        save(f"tnormal_{sn}_s{si}_{tag}", r.truncated_normal(key, -1.5, 2.0, shape, dt))
    lower = jnp.asarray([-2.0, -0.5, 0.0, 1.0], dt)
    save(f"tnormal_bcast_s{si}_{tag}", r.truncated_normal(key, lower, 2.5, (3, 4), dt))
    save(f"tnormal_none_s{si}_{tag}", r.truncated_normal(key, lower, jnp.asarray([0.0, 0.5, 3.0, 1.5], dt), None, dt))
    logits = jnp.asarray(LOGITS, dt)
    save(f"categorical_last_s{si}_{tag}", r.categorical(key, logits))
    save(f"categorical_axis0_s{si}_{tag}", r.categorical(key, logits, axis=0))
    save(f"categorical_shape_s{si}_{tag}", r.categorical(key, logits, axis=-1, shape=(4, 3)))
    save(f"categorical_norep_s{si}_{tag}", r.categorical(key, logits, axis=-1, shape=(2, 3), replace=False))
    for m in ("cholesky", "eigh", "svd"):
        save(f"mvn_{m}_s{si}_{tag}", r.multivariate_normal(key, jnp.asarray(MEAN, dt), jnp.asarray(COV, dt), (6,), dt, m))
    save(f"orthogonal_4_s{si}_{tag}", r.orthogonal(key, 4, (), dt))
    save(f"orthogonal_3b2_s{si}_{tag}", r.orthogonal(key, 3, (2,), dt))


def first_pass():
    import jax
    import jax.numpy as jnp

    assert not jax.config.jax_enable_x64
    assert jax.config.jax_threefry_partitionable
    r = jax.random
    for si in SEED_IDX:
        raw = np.load(os.path.join(OUT, f"key_s{si}.npy")).view(np.uint32)
        key = jax.random.wrap_key_data(jnp.asarray(raw, dtype=jnp.uint32))
        floats(jax, jnp, key, si, jnp.float32, "f32")
        save(f"rademacher_i32_s{si}", r.rademacher(key, (3, 4), jnp.int32))
        a = jnp.arange(15, dtype=jnp.int32).reshape(5, 3)
        save(f"choice_n_rep_s{si}", r.choice(key, 10, (4,)))
        save(f"choice_n_norep_s{si}", r.choice(key, 10, (2, 3), replace=False))
        save(f"choice_p_rep_s{si}", r.choice(key, 5, (8,), p=jnp.asarray(P, jnp.float32)))
        save(f"choice_p_norep_s{si}", r.choice(key, 5, (3,), replace=False, p=jnp.asarray(P, jnp.float32)))
        save(f"choice_arr_axis0_s{si}", r.choice(key, a, (2,), axis=0))
        save(f"choice_arr_axis1_norep_s{si}", r.choice(key, a, (2,), replace=False, axis=1))


def second_pass():
    import jax
    import jax.numpy as jnp

    assert jax.config.jax_enable_x64
    for si in SEED_IDX:
        raw = np.load(os.path.join(OUT, f"key_s{si}.npy")).view(np.uint32)
        key = jax.random.wrap_key_data(jnp.asarray(raw, dtype=jnp.uint32))
        floats(jax, jnp, key, si, jnp.float64, "f64")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--x64":
        second_pass()
    else:
        first_pass()
        env = dict(os.environ, JAX_ENABLE_X64="1")
        subprocess.run([sys.executable, os.path.abspath(__file__), "--x64"], env=env, check=True)
