"""gen_gather_fixtures.py — writes the JAX fixtures tests/test_gather_general.c
compares against (tests/data/gather/*.npy and CASES). Not run by `make test`:
it needs JAX. Run it from anywhere: python3 tests/data/gen_gather_fixtures.py

Each case is lax.gather or one lax.scatter_* on fixed indices (with
duplicates and out-of-range starts where the mode says what happens to
them) and seeded random data: <name>_x (operand), _idx, _u (scatter
updates), _out, _w (a cotangent) and the gradients of sum(w * op(x, u))
with respect to x (_gx) and the updates (_gu) where JAX defines them.
CASES lists one case a line:
  name op kind mode unique has_fill fill offset/update_window collapsed/inserted
  start_index_map operand_batching indices_batching slice_sizes grads
each list comma-separated, '-' when empty; grads is x, xu or none."""
import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gather")


def lst(v):
    return ",".join(str(int(a)) for a in v) if len(v) else "-"


def main():
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    from jax import lax

    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "VERSION"), "w") as f:
        f.write(f"jax {jax.__version__}\n")
    rng = np.random.default_rng(17)
    modes = {"clip": lax.GatherScatterMode.CLIP, "fill": lax.GatherScatterMode.FILL_OR_DROP,
             "promise": lax.GatherScatterMode.PROMISE_IN_BOUNDS}
    lines = []

    def save(name, what, arr):
        np.save(os.path.join(OUT, f"{name}_{what}.npy"), np.asarray(arr))

    def data(shape, dt, ties=False):
        if dt == "i32":
            return rng.integers(-9, 10, shape).astype(np.int32)
        a = rng.standard_normal(shape)
        if ties:  # small integers: updates tie with each other and the operand
            a = np.round(a * 1.5)
        return a.astype(np.float32 if dt == "f32" else np.float64)

    # name, dtype, x shape, idx, offset_dims, collapsed, start_map, obd, sibd, slice_sizes, mode, fill
    gathers = [
        ("g_rows_clip", "f32", (5, 4), [[4], [0], [2], [7], [-2], [2]], (1,), (0,), (0,), (), (), (1, 4), "clip", None),
        ("g_rows_fill", "f32", (5, 4), [[4], [0], [2], [7], [-2], [2]], (1,), (0,), (0,), (), (), (1, 4), "fill", None),
        ("g_window_clip", "f64", (6, 7), [[[0, 0], [5, 6], [2, 3]], [[1, 4], [-1, 2], [4, 4]]], (2, 3), (), (0, 1), (),
         (), (2, 3), "clip", None),
        ("g_window_fill", "f64", (6, 7), [[[0, 0], [5, 6], [2, 3]], [[1, 4], [-1, 2], [4, 4]]], (2, 3), (), (0, 1), (),
         (), (2, 3), "fill", -1.5),
        ("g_batching", "f32", (3, 5, 4), [[[1], [4]], [[0], [9]], [[3], [3]]], (2,), (1,), (1,), (0,), (0,), (1, 1, 4),
         "clip", None),
        ("g_batching_inner", "f64", (5, 3, 4), [[[2], [0], [4]], [[1], [1], [3]]], (2,), (0,), (0,), (1,), (1,),
         (1, 1, 4), "fill", None),
        ("g_offset_middle", "f32", (4, 5, 6), [[3], [0], [1]], (0, 2), (1,), (1,), (), (), (4, 1, 2), "promise", None),
        ("g_point_reversed", "f64", (4, 5), [[1, 2], [4, 3], [0, 0], [5, 1], [2, -1], [1, 2]], (), (0, 1), (1, 0), (), (),
         (1, 1), "fill", None),
        ("g_int_fill", "i32", (5, 3), [[1], [6], [0]], (1,), (0,), (0,), (), (), (1, 3), "fill", None),
    ]
    for name, dt, xs, idx, od, cs, sm, obd, sibd, ss, mode, fill in gathers:
        x = data(xs, dt)
        idx = np.asarray(idx, dtype=np.int32)
        dn = lax.GatherDimensionNumbers(offset_dims=od, collapsed_slice_dims=cs, start_index_map=sm,
                                        operand_batching_dims=obd, start_indices_batching_dims=sibd)

        def f(x):
            return lax.gather(x, idx, dn, ss, mode=modes[mode], fill_value=fill)

        out = f(x)
        save(name, "x", x)
        save(name, "idx", idx)
        save(name, "out", out)
        grads = "none"
        if dt != "i32":
            w = data(out.shape, dt)
            save(name, "w", w)
            save(name, "gx", jax.grad(lambda x: jnp.sum(w * f(x)))(x))
            grads = "x"
        lines.append(f"{name} gather set {mode} 0 {0 if fill is None else 1} {0.0 if fill is None else fill} "
                     f"{lst(od)} {lst(cs)} {lst(sm)} {lst(obd)} {lst(sibd)} {lst(ss)} {grads}\n")

    # name, dtype, x shape, idx, u shape, update_window, inserted, sd2od, obd, sibd, mode, unique, kinds, ties
    all_kinds = ("set", "add", "mul", "min", "max")
    scatters = [
        ("s_rows_drop", "f32", (5, 3), [[1], [3], [1], [7], [-1]], (5, 3), (1,), (0,), (0,), (), (), "fill", False,
         all_kinds, False),
        ("s_rows_clip", "f64", (5, 3), [[1], [3], [1], [7], [-1]], (5, 3), (1,), (0,), (0,), (), (), "clip", False,
         all_kinds, False),
        ("s_rows_ties", "f64", (5, 3), [[1], [3], [1], [1], [0]], (5, 3), (1,), (0,), (0,), (), (), "fill", False,
         ("min", "max"), True),
        ("s_window_drop", "f64", (6, 7), [[0, 0], [4, 5], [1, 2], [0, 1]], (4, 2, 3), (1, 2), (), (0, 1), (), (), "fill",
         False, all_kinds, False),
        ("s_window_clip", "f32", (6, 7), [[0, 0], [4, 5], [1, 2], [-3, 1]], (4, 2, 3), (1, 2), (), (0, 1), (), (),
         "clip", False, ("set", "add", "max"), False),
        ("s_batching", "f64", (3, 5, 4), [[[1], [1]], [[0], [4]], [[3], [8]]], (3, 2, 4), (2,), (1,), (1,), (0,), (0,),
         "fill", False, all_kinds, False),
        ("s_point_unique", "f64", (6,), [[0], [4], [2]], (3,), (), (0,), (0,), (), (), "fill", True, ("set", "mul"),
         False),
        ("s_int", "i32", (4, 2), [[1], [1], [3], [0], [1]], (5, 2), (1,), (0,), (0,), (), (), "fill", False,
         ("add", "mul", "min", "max"), False),
    ]
    ops = {"set": lax.scatter, "add": lax.scatter_add, "mul": lax.scatter_mul, "min": lax.scatter_min,
           "max": lax.scatter_max}
    for base, dt, xs, idx, us, uwd, iwd, sdod, obd, sibd, mode, unique, kinds, ties in scatters:
        x = data(xs, dt, ties)
        u = data(us, dt, ties)
        idx = np.asarray(idx, dtype=np.int32)
        dn = lax.ScatterDimensionNumbers(update_window_dims=uwd, inserted_window_dims=iwd,
                                         scatter_dims_to_operand_dims=sdod, operand_batching_dims=obd,
                                         scatter_indices_batching_dims=sibd)
        for kind in kinds:
            name = f"{base}_{kind}"

            def f(x, u, kind=kind):
                return ops[kind](x, idx, u, dn, mode=modes[mode], unique_indices=unique)

            out = f(x, u)
            for what, arr in (("x", x), ("idx", idx), ("u", u), ("out", out)):
                save(name, what, arr)
            grads = "none"
            if dt != "i32" and (kind != "mul" or unique):
                w = data(out.shape, dt)
                gx, gu = jax.grad(lambda x, u: jnp.sum(w * f(x, u)), argnums=(0, 1))(x, u)
                save(name, "w", w)
                save(name, "gx", gx)
                save(name, "gu", gu)
                grads = "xu"
            lines.append(f"{name} scatter {kind} {mode} {int(unique)} 0 0.0 {lst(uwd)} {lst(iwd)} {lst(sdod)} "
                         f"{lst(obd)} {lst(sibd)} - {grads}\n")
    with open(os.path.join(OUT, "CASES"), "w") as f:
        f.writelines(lines)


if __name__ == "__main__":
    main()
