"""gen_sort_fixtures.py — writes the JAX fixtures tests/test_sort.c compares
against (tests/data/sort/*.npy). Not run by `make test`: it needs JAX. Run it
from anywhere: python3 tests/data/gen_sort_fixtures.py

Inputs are fixed arrays (built with NumPy from a seeded generator, with ties,
NaNs of both signs, -0.0 and infinities placed on purpose) saved beside what
JAX computes from them, so the test reads both. Integer indices are int32, as
JAX makes them with jax_enable_x64 off (its default)."""
import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sort")


def save(name, arr):
    np.save(os.path.join(OUT, name + ".npy"), np.asarray(arr))


def main():
    import jax
    import jax.numpy as jnp
    from jax import lax

    assert not jax.config.jax_enable_x64
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "VERSION"), "w") as f:
        f.write(f"jax {jax.__version__}\n")
    rng = np.random.default_rng(16)
    # 5 x 8 floats: small integers (many ties) and the special values
    x = rng.integers(-3, 4, size=(5, 8)).astype(np.float32)
    special = [np.nan, -np.nan, -0.0, 0.0, np.inf, -np.inf, -0.0, np.nan]
    for i, v in enumerate(special):
        x[i % 5, (3 * i) % 8] = v
    x[2, 5] = -np.float32(np.nan)  # a NaN with its sign bit set
    save("x", x)
    save("sort_axis0", lax.sort(x, dimension=0))
    save("sort_axis1", lax.sort(x, dimension=1))
    save("argsort_axis1", jnp.argsort(x, axis=1))
    save("argsort_axis0_desc", jnp.argsort(x, axis=0, descending=True))
    v, i = lax.top_k(x, 3)
    save("top_k3_values", v)
    save("top_k3_indices", i)
    # lexicographic: two keys (i32, f32) and an i32 payload
    k1 = rng.integers(0, 3, size=(4, 10)).astype(np.int32)
    k2 = rng.integers(-2, 3, size=(4, 10)).astype(np.float32)
    pay = np.arange(40, dtype=np.int32).reshape(4, 10)
    save("lex_k1", k1)
    save("lex_k2", k2)
    o1, o2, o3 = lax.sort((k1, k2, pay), dimension=1, num_keys=2)
    save("lex_out0", o1)
    save("lex_out1", o2)
    save("lex_out2", o3)
    # quantiles of NaN-free data
    y = rng.normal(size=(6, 7)).astype(np.float32)
    save("y", y)
    q = np.array([0.0, 0.1, 0.25, 0.5, 0.9, 1.0], np.float32)
    save("q", q)
    save("quantile_axis1", jnp.quantile(y, q, axis=1))
    save("quantile_all_0p3", jnp.quantile(y, 0.3))
    save("median_axis0", jnp.median(y, axis=0))
    save("median_all", jnp.median(y))
    # searchsorted
    a = np.sort(rng.integers(0, 10, size=20)).astype(np.float32)
    vq = np.array([[-1, 0, 3.5], [4, 9, 10]], np.float32)
    save("ss_a", a)
    save("ss_v", vq)
    save("ss_left", jnp.searchsorted(a, vq))
    save("ss_right", jnp.searchsorted(a, vq, side="right"))
    # gradients: of sum(sort(z) * w) along axis 1 and of sum(top_k(z, 2)[0] * u)
    z = rng.normal(size=(3, 6)).astype(np.float32)
    w = rng.normal(size=(3, 6)).astype(np.float32)
    u = rng.normal(size=(3, 2)).astype(np.float32)
    save("g_z", z)
    save("g_w", w)
    save("g_u", u)
    save("grad_sort", jax.grad(lambda z: jnp.sum(lax.sort(z, dimension=1) * w))(z))
    save("grad_top_k", jax.grad(lambda z: jnp.sum(lax.top_k(z, 2)[0] * u))(z))


if __name__ == "__main__":
    main()
