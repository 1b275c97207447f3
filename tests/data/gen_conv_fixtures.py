"""gen_conv_fixtures.py — writes the JAX fixtures tests/test_conv.c compares
against (tests/data/conv/*.npy and CASES). Not run by `make test`: it needs
JAX. Run it from anywhere: python3 tests/data/gen_conv_fixtures.py

Each case is lax.conv_general_dilated on seeded random inputs: the inputs,
the result, a cotangent w and the gradients of sum(w * conv(lhs, rhs)) with
respect to both operands. CASES lists one case a line: name, the three
dimension-number strings; <name>_params.npy holds feature_group_count,
batch_group_count, then per spatial dimension strides, (lo, hi) pads,
lhs dilation and rhs dilation (each list in spatial order)."""
import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "conv")

# name, dtype, lhs shape, rhs shape, specs, strides, pads, lhs_dil, rhs_dil, G, B
CASES = [
    ("basic_nchw", "f32", (2, 3, 7, 6), (4, 3, 3, 2), ("NCHW", "OIHW", "NCHW"), (1, 1), ((0, 0), (0, 0)), (1, 1), (1, 1), 1, 1),
    ("strides_pads", "f32", (2, 3, 9, 8), (5, 3, 3, 3), ("NCHW", "OIHW", "NCHW"), (2, 3), ((1, 2), (0, 1)), (1, 1), (1, 1), 1, 1),
    ("lhs_dilation", "f32", (1, 2, 5, 5), (3, 2, 3, 3), ("NCHW", "OIHW", "NCHW"), (1, 1), ((2, 2), (1, 1)), (2, 3), (1, 1), 1, 1),
    ("rhs_dilation", "f32", (2, 2, 10, 9), (3, 2, 3, 2), ("NCHW", "OIHW", "NCHW"), (1, 2), ((1, 0), (2, 1)), (1, 1), (2, 3), 1, 1),
    ("groups", "f32", (2, 6, 6, 5), (4, 3, 3, 3), ("NCHW", "OIHW", "NCHW"), (1, 1), ((1, 1), (1, 1)), (1, 1), (1, 1), 2, 1),
    ("depthwise", "f32", (1, 4, 6, 6), (8, 1, 3, 3), ("NCHW", "OIHW", "NCHW"), (2, 2), ((1, 1), (1, 1)), (1, 1), (1, 1), 4, 1),
    ("batch_groups", "f32", (4, 3, 5, 5), (6, 3, 2, 2), ("NCHW", "OIHW", "NCHW"), (1, 1), ((0, 0), (0, 0)), (1, 1), (1, 1), 1, 2),
    ("nhwc_hwio", "f32", (2, 7, 6, 3), (3, 3, 3, 4), ("NHWC", "HWIO", "NHWC"), (2, 2), ((1, 1), (1, 1)), (1, 1), (1, 1), 1, 1),
    ("permuted", "f32", (3, 7, 2, 6), (3, 2, 4, 5), ("CHNW", "IWOH", "WNHC"), (1, 2), ((0, 1), (1, 0)), (1, 1), (1, 1), 1, 1),
    ("conv1d", "f32", (2, 3, 11), (4, 3, 3), ("NCH", "OIH", "NCH"), (2,), ((1, 1),), (1,), (2,), 1, 1),
    ("conv3d", "f32", (1, 2, 5, 4, 6), (3, 2, 2, 3, 2), ("NCDHW", "OIDHW", "NCDHW"), (1, 2, 1), ((1, 0), (0, 1), (1, 1)), (1, 1, 1), (1, 1, 1), 1, 1),
    ("negative_pads", "f32", (1, 2, 8, 8), (2, 2, 3, 3), ("NCHW", "OIHW", "NCHW"), (1, 1), ((-1, 0), (1, -2)), (1, 1), (1, 1), 1, 1),
    ("everything", "f32", (2, 4, 7, 6), (6, 3, 2, 3), ("NHWC", "OIHW", "NCHW"), (2, 1), ((1, 2), (2, 0)), (2, 1), (1, 2), 2, 1),
    ("strides_pads_f64", "f64", (2, 3, 9, 8), (5, 3, 3, 3), ("NCHW", "OIHW", "NCHW"), (2, 3), ((1, 2), (0, 1)), (1, 1), (1, 1), 1, 1),
    ("groups_f64", "f64", (2, 6, 5, 6), (4, 3, 3, 4), ("NHWC", "HWIO", "NHWC"), (2, 1), ((1, 1), (0, 2)), (1, 2), (2, 1), 2, 1),
    ("batch_groups_f64", "f64", (6, 2, 6, 5), (6, 2, 3, 2), ("NCHW", "OIHW", "NCHW"), (2, 1), ((1, 0), (1, 1)), (1, 1), (1, 2), 1, 3),
    ("conv1d_f64", "f64", (3, 9, 2), (4, 2, 4), ("NHC", "HIO", "NHC"), (3,), ((2, 1),), (2,), (1,), 1, 1),
]


def save(name, arr):
    np.save(os.path.join(OUT, name + ".npy"), np.asarray(arr))


def main():
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    from jax import lax

    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "VERSION"), "w") as f:
        f.write(f"jax {jax.__version__}\n")
    rng = np.random.default_rng(17)
    lines = []
    for name, dt, ls, rs, specs, strides, pads, ld, rd, g, b in CASES:
        npdt = np.float32 if dt == "f32" else np.float64
        lhs = rng.standard_normal(ls).astype(npdt)
        rhs = rng.standard_normal(rs).astype(npdt)

        def conv(x, y):
            return lax.conv_general_dilated(x, y, window_strides=strides, padding=pads, lhs_dilation=ld,
                                            rhs_dilation=rd, dimension_numbers=specs, feature_group_count=g,
                                            batch_group_count=b, precision=lax.Precision.HIGHEST)

        out = conv(lhs, rhs)
        assert np.all(np.isfinite(np.asarray(out))), name  # once seen: a NaN from XLA with negative padding
        w = rng.standard_normal(out.shape).astype(npdt)
        gl, gr = jax.grad(lambda x, y: jnp.sum(w * conv(x, y)), argnums=(0, 1))(lhs, rhs)
        params = [g, b] + list(strides) + [p for lh in pads for p in lh] + list(ld) + list(rd)
        for what, arr in (("lhs", lhs), ("rhs", rhs), ("out", out), ("w", w), ("grad_lhs", gl), ("grad_rhs", gr)):
            save(f"{name}_{what}", np.asarray(arr, dtype=npdt))
        save(f"{name}_params", np.asarray(params, dtype=np.int64))
        lines.append(f"{name} {specs[0]} {specs[1]} {specs[2]}\n")
    with open(os.path.join(OUT, "CASES"), "w") as f:
        f.writelines(lines)


if __name__ == "__main__":
    main()
