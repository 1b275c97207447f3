"""gen_dtype_dot_fixtures.py — writes the JAX fixtures of tests/test_dtypes_dot.c
(tests/data/dtype_dot/*.npy): lax.dot_general, jnp.matmul and
lax.conv_general_dilated on the dtypes added after f64, and the gradient of a
bf16 matmul loss, computed by jax.jit on CPU.
Not run by `make test`: it needs JAX. Run: python3 tests/data/gen_dtype_dot_fixtures.py

Operands are NAME_a.npy / NAME_b.npy, results NAME_out.npy (and NAME_f32.npy
for preferred_element_type=float32 / NAME_i32.npy for int32). bf16 arrays are
saved as numpy saves ml_dtypes.bfloat16 (descriptor <V2), which cjax reads as
bf16. Float operands are small multiples of 1/8 plus noise, so sums do not
cancel to nothing. Cases:
  mm_<dt>      [37, 53] @ [53, 29]   (small-product path)
  big_<dt>     [96, 300] @ [300, 80] (the packed, widening GEMM)
  bt_<dt>      dot_general [4, 16, 24] x [4, 20, 24], batch 0/0, contract 2/2
  int_<dt>     [19, 33] @ [33, 17] for i8 i16 u8 u16 u32 u64 (wrapping; i8 also
               with preferred_element_type=int32: int_i8_i32)
  conv_<dt>    NCHW [2, 3, 9, 9] * OIHW [4, 3, 3, 3], stride (1, 2), SAME
  grad_bf16    x bf16[8, 24], w bf16[24, 12]: the gradients w.r.t. x and w of
               sum(f32(x @ w) ** 2) (grad_bf16_dx / _dw) and of
               sum(dot(x, w, preferred=f32) ** 2) (gradp_bf16_dx / _dw)."""
import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dtype_dot")


def main():
    import jax
    jax.config.update("jax_enable_x64", True)  # u64 operands exist
    import jax.numpy as jnp
    from jax import lax
    import ml_dtypes

    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(17)
    floats = {"bf16": ml_dtypes.bfloat16, "f16": np.float16}
    ints = {"i8": np.int8, "i16": np.int16, "u8": np.uint8, "u16": np.uint16, "u32": np.uint32,
            "u64": np.uint64}

    def save(name, x):
        np.save(os.path.join(OUT, name + ".npy"), np.asarray(x))

    def fvals(shape, dt):
        v = rng.integers(-12, 13, size=shape) / 8.0 + rng.normal(0, 0.05, size=shape)
        return np.asarray(v, np.float32).astype(dt)

    dn_mm = (((1,), (0,)), ((), ()))
    for name, dt in floats.items():
        for case, (m, k, n) in {"mm": (37, 53, 29), "big": (96, 300, 80)}.items():
            a, b = fvals((m, k), dt), fvals((k, n), dt)
            save(f"{case}_{name}_a", a)
            save(f"{case}_{name}_b", b)
            save(f"{case}_{name}_out", jax.jit(jnp.matmul)(a, b))
            save(f"{case}_{name}_f32", jax.jit(lambda x, y: lax.dot_general(
                x, y, dn_mm, preferred_element_type=jnp.float32))(a, b))
        a, b = fvals((4, 16, 24), dt), fvals((4, 20, 24), dt)
        save(f"bt_{name}_a", a)
        save(f"bt_{name}_b", b)
        save(f"bt_{name}_out", jax.jit(lambda x, y: lax.dot_general(x, y, (((2,), (2,)), ((0,), (0,)))))(a, b))
        lhs, rhs = fvals((2, 3, 9, 9), dt), fvals((4, 3, 3, 3), dt)
        save(f"conv_{name}_a", lhs)
        save(f"conv_{name}_b", rhs)
        save(f"conv_{name}_out", jax.jit(lambda x, y: lax.conv_general_dilated(x, y, (1, 2), "SAME"))(lhs, rhs))

    for name, dt in ints.items():
        info = np.iinfo(dt)
        a = rng.integers(info.min, info.max, size=(19, 33), dtype=dt, endpoint=True)
        b = rng.integers(info.min, info.max, size=(33, 17), dtype=dt, endpoint=True)
        save(f"int_{name}_a", a)
        save(f"int_{name}_b", b)
        save(f"int_{name}_out", jax.jit(jnp.matmul)(a, b))
        if name == "i8":
            save("int_i8_i32", jax.jit(lambda x, y: lax.dot_general(
                x, y, dn_mm, preferred_element_type=jnp.int32))(a, b))

    x, w = fvals((8, 24), ml_dtypes.bfloat16), fvals((24, 12), ml_dtypes.bfloat16)
    save("grad_bf16_x", x)
    save("grad_bf16_w", w)

    def loss(x, w):
        return jnp.sum(jnp.matmul(x, w).astype(jnp.float32) ** 2)

    def lossp(x, w):
        return jnp.sum(lax.dot_general(x, w, dn_mm, preferred_element_type=jnp.float32) ** 2)

    dx, dw = jax.jit(jax.grad(loss, argnums=(0, 1)))(x, w)
    save("grad_bf16_dx", dx)
    save("grad_bf16_dw", dw)
    dx, dw = jax.jit(jax.grad(lossp, argnums=(0, 1)))(x, w)
    save("gradp_bf16_dx", dx)
    save("gradp_bf16_dw", dw)


if __name__ == "__main__":
    main()
