"""gen_numpy_fixtures.py — writes the JAX fixtures that tests/test_composites_*.c
compare against (tests/data/numpy/*.npy): jax.numpy's shape functions and
reductions, lax's cumulative ops and associative_scan, and jax.nn's
activations with their gradients. Not run by `make test`: it needs JAX. Run it
from anywhere: python3 tests/data/gen_numpy_fixtures.py

Inputs are fixed arrays (seeded NumPy, with NaNs, infinities, ties and the
activations' kinks placed on purpose) saved beside what JAX computes from them,
so the tests read both. JAX runs with its defaults (x64 off): every array is
f32 / i32 / bool."""
import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "numpy")


def save(name, arr):
    np.save(os.path.join(OUT, name + ".npy"), np.asarray(arr))


def shapes(jnp, rng):
    z = rng.normal(size=(2, 3, 4)).astype(np.float32)
    save("z", z)
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = -np.arange(6, dtype=np.float32).reshape(2, 3)
    v = np.array([1.5, -2, 3], np.float32)
    save("a", a)
    save("b", b)
    save("v", v)
    save("stack_0", jnp.stack([a, b]))
    save("stack_m1", jnp.stack([a, b, a], axis=-1))
    save("hstack", jnp.hstack([a, b]))
    save("hstack_1d", jnp.hstack([v, v]))
    save("vstack", jnp.vstack([a, v]))
    save("dstack", jnp.dstack([a, b]))
    save("column_stack", jnp.column_stack([v, a.T]))
    save("tile_212", jnp.tile(z, (2, 1, 2)))
    save("tile_3", jnp.tile(z, (3,)))
    save("tile_2113", jnp.tile(v, (2, 1, 1, 3)))
    save("repeat_2_ax1", jnp.repeat(z, 2, axis=1))
    save("repeat_3_none", jnp.repeat(z, 3))
    r = np.array([1, 0, 2], np.int32)
    save("reps", r)
    save("repeat_each_ax1", jnp.repeat(a, r, axis=1))
    save("repeat_each_total5", jnp.repeat(a, r, axis=1, total_repeat_length=5))
    save("repeat_each_total2", jnp.repeat(a, r, axis=1, total_repeat_length=2))
    x4 = np.array([1, 2, 3, 4], np.float32)
    y3 = np.array([10, 20, 30], np.float32)
    save("mg_x", x4)
    save("mg_y", y3)
    for idx in ("xy", "ij"):
        g = jnp.meshgrid(x4, y3, indexing=idx)
        save(f"meshgrid_{idx}_0", g[0])
        save(f"meshgrid_{idx}_1", g[1])
    g = jnp.meshgrid(x4, y3, v, indexing="xy", sparse=True)
    for i in range(3):
        save(f"meshgrid_xy_sparse_{i}", g[i])
    save("tri_4_5_1", jnp.tri(4, 5, 1))
    save("tri_3_m1", jnp.tri(3, k=-1, dtype=jnp.int32))
    save("roll_1_m2", jnp.roll(z, (1, -2), axis=(0, 2)))
    save("roll_5_none", jnp.roll(z, 5))
    save("roll_repeat", jnp.roll(z, (1, 2), axis=(1, 1)))
    save("flip_all", jnp.flip(z))
    save("flip_m1", jnp.flip(z, -1))
    p = jnp.array_split(np.arange(7, dtype=np.float32), 3)
    for i in range(3):
        save(f"array_split_{i}", p[i])
    p = jnp.split(z, [1, 3], axis=2)
    for i in range(3):
        save(f"split_idx_{i}", p[i])
    save("moveaxis", jnp.moveaxis(z, (0, 1), (-1, 0)))
    save("swapaxes", jnp.swapaxes(z, 0, -1))
    c = np.array([[1], [2]], np.float32)
    save("c", c)
    o = jnp.broadcast_arrays(c, v, np.float32(7))
    for i in range(3):
        save(f"broadcast_arrays_{i}", o[i])


def reductions(jax, jnp, rng):
    from jax import lax
    x = rng.normal(size=(3, 5)).astype(np.float32)
    x[0, 1] = np.nan
    x[1, :] = np.nan
    x[2, 3] = np.nan
    save("xn", x)
    for name, f in (("nansum", jnp.nansum), ("nanprod", jnp.nanprod), ("nanmax", jnp.nanmax),
                    ("nanmin", jnp.nanmin), ("nanmean", jnp.nanmean)):
        save(f"{name}_ax1", f(x, axis=1))
        save(f"{name}_ax0", f(x, axis=0))
    save("nanvar_ax1", jnp.nanvar(x, axis=1))
    save("nanstd_ddof1_ax0", jnp.nanstd(x, axis=0, ddof=1))
    save("nanargmax_ax1", jnp.nanargmax(x, axis=1))
    save("nanargmin_ax0", jnp.nanargmin(x, axis=0))
    y = rng.normal(size=(3, 5)).astype(np.float32)
    y[1, 2] = 0
    y[2, :] = 0
    save("y", y)
    save("std_ax1", jnp.std(y, axis=1))
    save("std_ddof1_all", jnp.std(y, ddof=1))
    save("var_ddof1_ax0", jnp.var(y, axis=0, ddof=1))
    save("any_ax1", jnp.any(y, axis=1))
    save("all_ax1", jnp.all(y, axis=1))
    save("any_nan_ax1", jnp.any(x, axis=1))
    save("all_ax0", jnp.all(y, axis=0))
    save("ptp_ax1", jnp.ptp(y, axis=1))
    save("count_nonzero_ax1", jnp.count_nonzero(y, axis=1))
    save("count_nonzero_all", jnp.count_nonzero(y))
    w = np.array([1, 2, 0.5, 0, 3], np.float32)
    save("w", w)
    avg, ws = jnp.average(y, axis=1, weights=w, returned=True)
    save("average_w_ax1", avg)
    save("average_w_ax1_sum", ws)
    w2 = rng.uniform(0.5, 2, size=(3, 5)).astype(np.float32)
    save("w2", w2)
    save("average_w2_all", jnp.average(y, weights=w2))
    save("average_ax0", jnp.average(y, axis=0))
    for ax in (0, 1):
        for rev in (False, True):
            tag = f"ax{ax}{'_rev' if rev else ''}"
            save(f"cumsum_{tag}", lax.cumsum(y, ax, rev))
            save(f"cumprod_{tag}", lax.cumprod(y, ax, rev))
            save(f"cummax_{tag}", lax.cummax(y, ax, rev))
            save(f"cummin_{tag}", lax.cummin(y, ax, rev))
    q = rng.normal(size=(4, 7)).astype(np.float32) * 3
    q[0, 0] = -np.inf
    q[1, 2] = -np.inf
    q[1, 3] = -np.inf
    q[2, 4] = 80.0  # exp overflows in f32 without the shift
    save("q", q)
    save("cumlogsumexp_ax1", lax.cumlogsumexp(q, 1))
    save("cumlogsumexp_ax0_rev", lax.cumlogsumexp(q, 0, reverse=True))
    qf = rng.normal(size=(4, 7)).astype(np.float32)
    save("qf", qf)
    save("grad_cumlogsumexp", jax.grad(lambda t: jnp.sum(lax.cumlogsumexp(t, 1) * qf))(q.clip(-5, 5)))
    qm = np.where(q.clip(-5, 5) < -1, -np.inf, q.clip(-5, 5)).astype(np.float32)
    save("grad_cumlogsumexp_masked", jax.grad(lambda t: jnp.sum(lax.cumlogsumexp(t, 1) * qf))(qm))
    # affine recurrences h_t = m_t h_{t-1} + c_t as an associative scan of (m, c)
    m = rng.uniform(0.5, 1.5, size=(9, 2)).astype(np.float32)
    cc = rng.normal(size=(9, 2)).astype(np.float32)
    save("as_m", m)
    save("as_c", cc)

    def affine(e1, e2):
        m1, c1 = e1
        m2, c2 = e2
        return m1 * m2, c1 * m2 + c2

    for rev in (False, True):
        om, oc = lax.associative_scan(affine, (m, cc), reverse=rev, axis=0)
        save(f"as_m_out{'_rev' if rev else ''}", om)
        save(f"as_c_out{'_rev' if rev else ''}", oc)
    save("as_cumsum_ax1", lax.associative_scan(jnp.add, q.clip(-5, 5), axis=1))


def nn(jax, jnp):
    # a grid through every kink: 0, ±1, ±3, 6; and far tails
    g = np.concatenate([np.linspace(-8, 8, 33), [-1, 1, -3, 3, 6, 0, -30, 30, 90, -90]]).astype(np.float32)
    save("g", g)
    gp = np.concatenate([np.linspace(0.01, 6, 25), [np.log(2.0), 40.0]]).astype(np.float32)
    save("gp", gp)
    save("nn_log1mexp", jax.nn.log1mexp(gp))
    save("nn_grad_log1mexp", jax.vmap(jax.grad(jax.nn.log1mexp))(gp))
    fns = {
        "silu": jax.nn.silu, "softplus": jax.nn.softplus, "log_sigmoid": jax.nn.log_sigmoid,
        "mish": jax.nn.mish, "elu": jax.nn.elu, "elu_a2": lambda t: jax.nn.elu(t, 2.0),
        "celu": jax.nn.celu, "celu_a05": lambda t: jax.nn.celu(t, 0.5), "selu": jax.nn.selu,
        "leaky_relu": jax.nn.leaky_relu, "leaky_relu_02": lambda t: jax.nn.leaky_relu(t, 0.2),
        "gelu_exact": lambda t: jax.nn.gelu(t, approximate=False), "relu6": jax.nn.relu6,
        "hard_sigmoid": jax.nn.hard_sigmoid, "hard_silu": jax.nn.hard_silu,
        "hard_tanh": jax.nn.hard_tanh, "sparse_plus": jax.nn.sparse_plus,
        "sparse_sigmoid": jax.nn.sparse_sigmoid, "soft_sign": jax.nn.soft_sign,
        "squareplus": jax.nn.squareplus,
    }
    for name, f in fns.items():
        save(f"nn_{name}", f(g))
        save(f"nn_grad_{name}", jax.vmap(jax.grad(f))(g))
    h = np.random.default_rng(5).normal(size=(3, 6)).astype(np.float32)
    save("h", h)
    save("nn_glu", jax.nn.glu(h))
    save("nn_glu_ax0", jax.nn.glu(h[:2], axis=0))
    save("nn_standardize", jax.nn.standardize(h))
    save("nn_standardize_ax0", jax.nn.standardize(h, axis=0, epsilon=1e-3))
    save("nn_standardize_stable", jax.nn.standardize(h * 100 + 1000, algorithm="stable"))
    save("nn_standardize_given", jax.nn.standardize(h, axis=0, mean=np.float32(0.5), variance=h.var(0)))
    idx = np.array([[0, 2, 1], [3, -1, 2]], np.int32)
    save("oh_idx", idx)
    save("nn_one_hot_ax0", jax.nn.one_hot(idx, 4, axis=0))
    save("nn_one_hot_ax1", jax.nn.one_hot(idx, 4, axis=1))
    save("nn_one_hot_m1", jax.nn.one_hot(idx, 4))


def main():
    import jax
    import jax.numpy as jnp

    assert not jax.config.jax_enable_x64
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "VERSION"), "w") as f:
        f.write(f"jax {jax.__version__}\n")
    rng = np.random.default_rng(17)
    shapes(jnp, rng)
    reductions(jax, jnp, rng)
    nn(jax, jnp)


if __name__ == "__main__":
    main()
