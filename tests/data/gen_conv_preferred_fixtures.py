"""gen_conv_preferred_fixtures.py — writes tests/data/conv_preferred/conv_preferred.npz,
lax.conv_general_dilated of f16 / bf16 operands with preferred_element_type
float32, which tests/test_conv_preferred.c compares against. Not run by
`make test` (it needs JAX 0.10.2): python3 tests/data/gen_conv_preferred_fixtures.py

Per case and dtype: the operands (lhs, rhs, in the narrow dtype), the f32
result, an f32 cotangent w, and the gradients of sum(w * conv(lhs, rhs))
with respect to both operands (narrow, as JAX's transpose converts them
back). Members <case>_<dtype>_<what>."""
import os

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "conv_preferred", "conv_preferred.npz")
# name, lhs shape, rhs shape, specs, strides, padding, feature groups
CASES = [
    ("nchw_same", (2, 3, 6, 5), (4, 3, 3, 3), ("NCHW", "OIHW", "NCHW"), (1, 1), "SAME", 1),
    ("nhwc_stride2", (2, 7, 6, 4), (3, 3, 4, 6), ("NHWC", "HWIO", "NHWC"), (2, 2), "VALID", 1),
    ("groups", (1, 4, 5, 5), (6, 2, 2, 3), ("NCHW", "OIHW", "NCHW"), (1, 2), "SAME", 2),
]
DTYPES = {"f16": jnp.float16, "bf16": jnp.bfloat16}


def main():
    rng = np.random.default_rng(17)
    out = {}
    for name, ls, rs, specs, strides, pad, groups in CASES:
        for tn, dt in DTYPES.items():
            lhs = jnp.asarray(rng.standard_normal(ls), dt)
            rhs = jnp.asarray(rng.standard_normal(rs), dt)

            def f(a, b):
                return lax.conv_general_dilated(a, b, strides, pad, dimension_numbers=specs,
                                                feature_group_count=groups, preferred_element_type=jnp.float32)

            y = f(lhs, rhs)
            w = jnp.asarray(rng.standard_normal(y.shape), jnp.float32)
            gl, gr = jax.grad(lambda a, b: jnp.sum(w * f(a, b)), argnums=(0, 1))(lhs, rhs)
            tag = f"{name}_{tn}"
            out.update({f"{tag}_lhs": lhs, f"{tag}_rhs": rhs, f"{tag}_out": y, f"{tag}_w": w,
                        f"{tag}_grad_lhs": gl, f"{tag}_grad_rhs": gr})
    out = {k: np.asarray(v) for k, v in out.items()}
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    np.savez(OUT, **out)
    with open(os.path.join(os.path.dirname(OUT), "VERSION"), "w") as fh:
        fh.write(f"jax {jax.__version__}, numpy {np.__version__}\n")
    print(f"{len(out)} arrays -> {OUT}")


if __name__ == "__main__":
    main()
