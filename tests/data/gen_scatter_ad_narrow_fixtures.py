"""gen_scatter_ad_narrow_fixtures.py — writes the fixtures of
tests/test_scatter_ad_narrow.c (tests/data/scatter_ad_narrow/*.npy): the
derivative rules of lax.gather and the scatter family (scatter (set),
scatter_add, scatter_mul, scatter_min, scatter_max) on f16 and bf16 — jvp,
vjp (the transposes), and vmap of both over a batch of tangents /
cotangents — computed by jax.jit on CPU (x64 off). Not run by `make test`
(it needs JAX): python3 tests/data/gen_scatter_ad_narrow_fixtures.py

One layout for every case: operand x (5, 3), indices (4, 1) with a
duplicate (rows 2, 0, 2, 4; mul uses unique rows 3, 0, 2, 4, as JAX
differentiates mul in the updates only then), updates u (4, 3), dimension
numbers update_window_dims=(1,), inserted_window_dims=(0,),
scatter_dims_to_operand_dims=(0,) (the gather: offset_dims=(1,),
collapsed_slice_dims=(0,), start_index_map=(0,), slice_sizes=(1, 3)), mode
FILL_OR_DROP (lax.scatter's default; the gather passes it explicitly). x and
u hold ties for min/max (equal values in x and u, and between duplicate
updates). Files: in_<dt>_{x,u,tx,tu,ct,btx,btu,bct}.npy (b*: a batch of 2
tangents / cotangents), <kind>_<dt>_{out,jvp,vjp_x,vjp_u,vjvp,vvjp_x,vvjp_u}.npy."""
import os

import jax
import jax.numpy as jnp
import ml_dtypes  # noqa: F401
import numpy as np
from jax import lax

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scatter_ad_narrow")
SDN = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                  scatter_dims_to_operand_dims=(0,))
GDN = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
IDX = np.array([[2], [0], [2], [4]], np.int32)
IDX_UNIQUE = np.array([[3], [0], [2], [4]], np.int32)
X = np.array([[0.5, -1.25, 2.0], [1.5, 0.75, -0.5], [3.0, 1.0, -2.25], [0.25, -0.75, 1.25], [-1.5, 2.5, 0.125]])
U = np.array([[3.0, 0.5, -2.25], [1.5, -1.0, 1.0], [-0.5, 1.0, 4.0], [0.75, 2.5, 0.5]])  # ties with X and within
TX = np.array([[1.0, -0.5, 0.25], [2.0, 0.75, -1.5], [0.5, 1.25, -0.25], [-1.0, 0.125, 3.0], [0.375, -2.0, 1.0]])
TU = np.array([[0.5, 1.5, -1.0], [-0.25, 2.0, 0.75], [1.0, -1.5, 0.5], [2.5, 0.25, -0.125]])
CT = np.array([[0.3, -1.1, 0.7], [1.9, 0.45, -0.6], [-0.35, 0.8, 1.3], [0.2, -0.9, 2.1], [1.7, 0.65, -0.15]])


def case(kind):
    idx = IDX_UNIQUE if kind == "mul" else IDX
    if kind == "gather":
        return lambda x, u: lax.gather(x, idx, GDN, (1, 3), mode="fill")
    fn = {"set": lax.scatter, "add": lax.scatter_add, "mul": lax.scatter_mul, "min": lax.scatter_min,
          "max": lax.scatter_max}[kind]
    return lambda x, u: fn(x, idx, u, SDN, unique_indices=kind == "mul")


def save(name, a):
    np.save(os.path.join(OUT, name + ".npy"), np.asarray(a))


def main():
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "VERSION"), "w") as f:
        f.write(f"jax {jax.__version__}\n")
    for tag, dt in (("f16", jnp.float16), ("bf16", jnp.bfloat16)):
        x, u, tx, tu = (jnp.asarray(a, dt) for a in (X, U, TX, TU))
        btx, btu = jnp.stack([tx, tx[::-1] * 2]), jnp.stack([tu, -tu])
        for n, a in (("x", x), ("u", u), ("tx", tx), ("tu", tu), ("btx", btx), ("btu", btu)):
            save(f"in_{tag}_{n}", a)
        for kind in ("gather", "set", "add", "mul", "min", "max"):
            f = case(kind)
            out, tan = jax.jit(lambda x, u, tx, tu: jax.jvp(f, (x, u), (tx, tu)))(x, u, tx, tu)
            ct = jnp.asarray(CT[: out.shape[0]], dt)
            bct = jnp.stack([ct, ct[::-1] * -1.5])
            save(f"in_{tag}_ct_{kind}", ct), save(f"in_{tag}_bct_{kind}", bct)
            gx, gu = jax.jit(lambda x, u, ct: jax.vjp(f, x, u)[1](ct))(x, u, ct)
            vt = jax.jit(jax.vmap(lambda tx, tu: jax.jvp(f, (x, u), (tx, tu))[1]))(btx, btu)
            vgx, vgu = jax.jit(jax.vmap(lambda ct: jax.vjp(f, x, u)[1](ct)))(bct)
            for n, a in (("out", out), ("jvp", tan), ("vjp_x", gx), ("vjp_u", gu), ("vjvp", vt), ("vvjp_x", vgx),
                         ("vvjp_u", vgu)):
                assert a.dtype == dt, (kind, n, a.dtype)
                save(f"{kind}_{tag}_{n}", a)


if __name__ == "__main__":
    main()
