"""gen_collective_fixtures.py — writes the JAX fixtures tests/test_collective.c
compares against (tests/data/collective/*.npy). Not run by `make test`: it
needs JAX. Run it from anywhere: python3 tests/data/gen_collective_fixtures.py

Each case is a function of one per-member value x, run as
jax.vmap(f, axis_name='i') over the leading axis of a seeded input X (the
nested cases: jax.vmap(jax.vmap(f, axis_name='i'), axis_name='j') over the
two leading axes). <case>_x.npy is X, <case>_out.npy the result; for the
differentiable cases, with a seeded cotangent W of the result's shape
(<case>_w.npy), <case>_vg.npy is vmap(grad(x -> sum(w * f(x)))) and
<case>_gv.npy is grad(X -> sum(W * vmap(f)(X))). Everything is f64 but
where a case says otherwise."""
import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "collective")


def cases(lax, jnp):
    shift = [(k, (k + 1) % 4) for k in range(4)]
    return [
        # name, X shape, f, differentiable, nested
        ("psum", (4, 3), lambda x: lax.psum(x, "i"), True, False),
        ("psum_sq", (4, 3), lambda x: lax.psum(x, "i") ** 2 * x, True, False),
        ("pmean", (4, 2, 3), lambda x: lax.pmean(x, "i"), True, False),
        ("pmax", (5, 2, 3), lambda x: lax.pmax(x, "i"), False, False),
        ("pmin", (5, 2, 3), lambda x: lax.pmin(x, "i"), False, False),
        ("psum_const", (4, 3), lambda x: x * lax.psum(2.0, "i"), True, False),
        ("all_gather0", (4, 3, 2), lambda x: lax.all_gather(x, "i", axis=0), True, False),
        ("all_gather2", (4, 3, 2), lambda x: lax.all_gather(x, "i", axis=2), True, False),
        ("all_gather_tiled1", (4, 3, 2), lambda x: lax.all_gather(x, "i", axis=1, tiled=True), True, False),
        ("psum_scatter0", (4, 4, 3), lambda x: lax.psum_scatter(x, "i", scatter_dimension=0), True, False),
        ("psum_scatter1", (3, 2, 3), lambda x: lax.psum_scatter(x, "i", scatter_dimension=1), True, False),
        ("psum_scatter_tiled", (2, 6, 3), lambda x: lax.psum_scatter(x, "i", scatter_dimension=0, tiled=True), True, False),
        ("ppermute_shift", (4, 3), lambda x: lax.ppermute(x, "i", shift) * x, True, False),
        ("ppermute_swap", (4, 2), lambda x: lax.ppermute(x, "i", [(0, 3), (3, 0), (1, 2), (2, 1)]), True, False),
        ("all_to_all", (4, 4, 3), lambda x: lax.all_to_all(x, "i", 0, 1), False, False),
        ("all_to_all_same", (3, 3, 2), lambda x: lax.all_to_all(x, "i", 0, 0), True, False),
        ("all_to_all_back", (3, 2, 3), lambda x: lax.all_to_all(x, "i", 1, 0), False, False),
        ("all_to_all_tiled", (2, 4, 6), lambda x: lax.all_to_all(x, "i", 1, 0, tiled=True), True, False),
        ("axis_index", (5, 3), lambda x: x * lax.axis_index("i"), True, False),
        ("nested_psum_j", (3, 4, 2), lambda x: lax.psum(x, "j") * x, True, True),
        ("nested_psum_ij", (3, 4, 2), lambda x: lax.psum(x, ("i", "j")), True, True),
        ("nested_gather", (3, 4, 2), lambda x: lax.all_gather(x, "j", axis=1) + lax.axis_index("i"), True, True),
        ("nested_index", (3, 4, 2), lambda x: x * (10 * lax.axis_index("j") + lax.axis_index("i")), True, True),
        ("nested_pmean_i", (3, 4, 2), lambda x: lax.pmean(x, "i") - lax.pmax(x, "j"), False, True),
    ]


def save(name, arr):
    np.save(os.path.join(OUT, name + ".npy"), np.asarray(arr))


def main():
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    from jax import lax

    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(20)
    names = []
    for name, shape, f, diff, nested in cases(lax, jnp):
        X = rng.standard_normal(shape)
        if nested:
            vf = jax.vmap(jax.vmap(f, axis_name="i"), axis_name="j")
        else:
            vf = jax.vmap(f, axis_name="i")
        out = vf(X)
        save(name + "_x", X)
        save(name + "_out", out)
        names.append(name)
        if not diff:
            continue
        W = rng.standard_normal(out.shape)
        save(name + "_w", W)

        def member_loss(x, w):
            return jnp.sum(w * f(x))

        g = jax.grad(member_loss)
        if nested:
            vg = jax.vmap(jax.vmap(g, axis_name="i"), axis_name="j")(X, W)
        else:
            vg = jax.vmap(g, axis_name="i")(X, W)
        gv = jax.grad(lambda X: jnp.sum(W * vf(X)))(X)
        save(name + "_vg", vg)
        save(name + "_gv", gv)
    # pmean of an integer is a true division (f32 from i32, as jnp)
    Xi = np.arange(12, dtype=np.int32).reshape(4, 3)
    save("pmean_int_x", Xi)
    save("pmean_int_out", jax.vmap(lambda x: lax.pmean(x, "i"), axis_name="i")(Xi))
    with open(os.path.join(OUT, "VERSION"), "w") as fh:
        fh.write("jax %s\n%s\n" % (jax.__version__, "\n".join(names)))


if __name__ == "__main__":
    main()
