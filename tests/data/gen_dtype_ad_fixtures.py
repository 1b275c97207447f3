"""gen_dtype_ad_fixtures.py — writes the fixtures tests/test_dtypes_ad_control.c
compares against (tests/data/dtype_ad/*.npy): jvp and vjp of elementwise
programs in f16 and bf16, grad through a scan with an f16 carry, and control
flow (while with a u8 counter, fori, cond) carrying the new dtypes. Not run by
`make test` (it needs JAX): python3 tests/data/gen_dtype_ad_fixtures.py

JAX's defaults (x64 off) on CPU, run op by op (jax.disable_jit): every
primitive rounds its result to the narrow type, which is what cjax does. Under
jax.jit XLA's fusion keeps f32 between fused elementwise ops (it drops the
convert pairs), so jitted JAX can differ from these by a few narrow ulps
(measured: x * 1.5 - 0.25 iterated 9 times in f16, 4 ulp in one of 8). Files are <case>_<dtype>_<what>.npy;
bf16 arrays are stored as numpy.save writes ml_dtypes.bfloat16 (<V2)."""
import os

import jax
import jax.numpy as jnp
import ml_dtypes  # noqa: F401  (registers bfloat16 with numpy)
import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dtype_ad")
X = np.array([-2.5, -1.25, -0.3, 0.0, 0.2, 0.7, 1.5, 3.0])
Y = np.array([0.5, -1.0, 2.0, 1.5, -0.25, 0.9, -2.0, 0.1])
T = np.array([1.0, -0.5, 0.25, 2.0, -1.0, 0.75, 0.5, -1.5])  # tangents / cotangents
XS = np.array([0.3, -0.8, 1.1, 0.05, -0.4, 0.9])


def save(name, a):
    np.save(os.path.join(OUT, name + ".npy"), np.asarray(a))


def f_ew(x, y):
    # arithmetic, transcendentals, a select and a division
    return jnp.sin(x) * y + jnp.exp(x / 2) - jnp.tanh(y) + jnp.where(x > y, x * x, y / (1 + x * x))


def f_ew2(x):
    return jnp.sqrt(x * x + 1) * jnp.log1p(x * x) + jax.nn.sigmoid(x) - jnp.maximum(x, 0.5)


def scan_f(c0, xs):
    def body(c, x):
        c = c * 0.9 + jnp.sin(x) * c + x
        return c, c * x
    c, ys = jax.lax.scan(body, c0, xs)
    return c


def main():
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "VERSION"), "w") as f:
        f.write(f"jax {jax.__version__}\n")
    for tag, dt in (("f16", jnp.float16), ("bf16", jnp.bfloat16)):
        x, y, t = (jnp.asarray(a, dt) for a in (X, Y, T))
        save(f"in_x_{tag}", x), save(f"in_y_{tag}", y), save(f"in_t_{tag}", t)
        out, tan = jax.jit(lambda x, y, tx, ty: jax.jvp(f_ew, (x, y), (tx, ty)))(x, y, t, t[::-1])
        save(f"ew_{tag}_out", out), save(f"ew_{tag}_jvp", tan)
        gx, gy = jax.jit(lambda x, y, ct: jax.vjp(f_ew, x, y)[1](ct))(x, y, t)
        save(f"ew_{tag}_vjp_x", gx), save(f"ew_{tag}_vjp_y", gy)
        out2, tan2 = jax.jit(lambda x, tx: jax.jvp(f_ew2, (x,), (tx,)))(x, t)
        save(f"ew2_{tag}_out", out2), save(f"ew2_{tag}_jvp", tan2)
        (g2,) = jax.jit(lambda x, ct: jax.vjp(f_ew2, x)[1](ct))(x, t)
        save(f"ew2_{tag}_vjp", g2)
        # grad through a scan with a narrow scalar carry
        xs = jnp.asarray(XS, dt)
        c0 = jnp.asarray(0.5, dt)
        save(f"in_xs_{tag}", xs)
        save(f"scan_{tag}_out", jax.jit(scan_f)(c0, xs))
        gc, gxs = jax.jit(jax.grad(scan_f, argnums=(0, 1)))(c0, xs)
        save(f"scan_{tag}_grad_c", gc), save(f"scan_{tag}_grad_xs", gxs)
        # while with a u8 counter doubling a narrow carry
        def wl(x):
            return jax.lax.while_loop(lambda c: c[0] < jnp.uint8(200), lambda c: (c[0] + jnp.uint8(23), c[1] * 1.5 - 0.25),
                                      (jnp.uint8(3), x))
        i, v = jax.jit(wl)(x)
        save(f"while_{tag}_i", i), save(f"while_{tag}_v", v)
        # fori: a u8 accumulator that wraps, and a narrow carry
        def fl(x):
            return jax.lax.fori_loop(0, 9, lambda k, c: (c[0] * jnp.uint8(3) + jnp.asarray(k).astype(jnp.uint8), jnp.cos(c[1]) + c[1]),
                                     (jnp.uint8(7), x))
        a, v = jax.jit(fl)(x)
        save(f"fori_{tag}_a", a), save(f"fori_{tag}_v", v)
        # cond on a narrow operand, both branches
        for p in (0, 1):
            r = jax.jit(lambda x, y: jax.lax.cond(p == 1, lambda a, b: a * b + 1, lambda a, b: a - jnp.exp(b), x, y))(x, y)
            save(f"cond{p}_{tag}", r)


def bits_and_int_division():
    # bitcast_convert_type across widths (lax on CPU: little-endian pieces)
    f = jnp.asarray([1.0, -2.5, 3.0e-39, np.inf, np.nan, 65504.0], jnp.float32)
    save("bitcast_f32_u8", jax.lax.bitcast_convert_type(f, jnp.uint8))
    save("bitcast_f32_i16", jax.lax.bitcast_convert_type(f, jnp.int16))
    save("bitcast_f32_bf16", jax.lax.bitcast_convert_type(f, jnp.bfloat16))
    b = jnp.asarray(np.arange(24) * 37 % 256, jnp.uint8).reshape(2, 3, 4)
    save("bitcast_in_u8", b)
    save("bitcast_u8_f32", jax.lax.bitcast_convert_type(b, jnp.float32))
    save("bitcast_u8_i32", jax.lax.bitcast_convert_type(b, jnp.int32))
    save("bitcast_u8x2_f16", jax.lax.bitcast_convert_type(b.reshape(2, 6, 2), jnp.float16))
    h = jnp.asarray([0.5, -1.0, 3.25, 1000.0], jnp.float16)
    save("bitcast_f16_i8", jax.lax.bitcast_convert_type(h, jnp.int8))
    # jnp.floor_divide / remainder (NumPy signs) on the new integer types
    a = np.array([7, -7, 7, -7, 0, 5, -128, 127, 100, -1, 3, -3])
    d = np.array([2, 2, -2, -2, 3, 0, -1, 5, -7, 3, -4, 0])
    for tag, dt in (("i8", jnp.int8), ("i16", jnp.int16), ("u8", jnp.uint8), ("u16", jnp.uint16),
                    ("u32", jnp.uint32)):
        if tag.startswith("u"):
            aa, dd = np.abs(a) % 200, np.abs(d)
        else:
            aa, dd = a, d
        x, y = jnp.asarray(aa).astype(dt), jnp.asarray(dd).astype(dt)
        save(f"intdiv_{tag}_a", x), save(f"intdiv_{tag}_b", y)
        save(f"floordiv_{tag}", jnp.floor_divide(x, y))
        save(f"remainder_{tag}", jnp.remainder(x, y))


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    bits_and_int_division()
    with jax.disable_jit():
        main()
