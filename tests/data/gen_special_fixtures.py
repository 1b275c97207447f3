"""gen_special_fixtures.py — writes the fixtures tests/test_special.c compares
cjax's special and jnp elementwise functions against (tests/data/special/*.npy).
Not run by `make test`: it needs JAX and mpmath. Run it from anywhere:
    python3 tests/data/gen_special_fixtures.py

For each function and dtype: the input(s) `<fn>_<dt>_x.npy` (and `_y.npy`
for binary ones) and JAX's result `<fn>_<dt>_jax.npy` (jax_enable_x64 on, so
f64 is f64; f32 inputs are computed at f32). For the special functions also
`<fn>_ref.npy`: mpmath's value at 50 digits of each f64 input, rounded to
f64, for the accuracy (ulp) checks."""
import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "special")


def save(name, arr):
    np.save(os.path.join(OUT, name + ".npy"), np.asarray(arr))


def main():
    import jax
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    import jax.scipy.special as jss
    import mpmath as mp
    mp.mp.dps = 50
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "VERSION"), "w") as f:
        f.write(f"jax {jax.__version__} mpmath {mp.__version__}\n")
    rng = np.random.default_rng(17)
    specials = [0.0, -0.0, np.inf, -np.inf, np.nan]

    def grid(lo, hi, n, extra):
        return np.concatenate([np.linspace(lo, hi, n), rng.uniform(lo, hi, n), np.array(extra, np.float64)])

    inputs = {
        "lgamma": grid(-20, 40, 400, specials + [1, 2, -1, -2, -2.5, 1e-30, -1e-30, 0.999, 1.001, 2.001, 1e300,
                                                  3.5e-5, -0.5, 0.5, 12.0, 11.99, 1.4616321449683622]),
        "digamma": grid(-20, 40, 400, specials + [1, 2, -1, -3, -2.5, 1e-30, -1e-30, 1.4616321449683622, 1.46,
                                                   1.47, 1e300, 0.5]),
        "erfc": grid(-6, 27, 500, specials + [0.5, -0.5, 1e-20, 26.0, 10.0, 5.0, 3.0]),
        "erf_inv": grid(-1, 1, 500, specials + [1, -1, 1.5, -1.5, 0.5, 1 - 2**-52, -(1 - 2**-40), 1e-300,
                                                0.9999999, 0.75]),
        "asinh": grid(-50, 50, 400, specials + [1e-300, -1e-20, 1e10, -1e200, 3e8, 0.5]),
        "acosh": grid(1, 60, 400, specials + [1.0, 0.5, -2.0, 1 + 1e-12, 1e10, 1e200, 3e8]),
        "atanh": grid(-1, 1, 400, specials + [1, -1, 2, -1.5, 1e-300, 0.999999999, 0.5]),
    }
    lax_fns = {"lgamma": jax.lax.lgamma, "digamma": jax.lax.digamma, "erfc": jax.lax.erfc,
               "erf_inv": jax.lax.erf_inv, "asinh": jnp.arcsinh, "acosh": jnp.arccosh, "atanh": jnp.arctanh}
    mp_fns = {"lgamma": lambda x: mp.log(abs(mp.gamma(x))), "digamma": mp.digamma, "erfc": mp.erfc,
              "erf_inv": mp.erfinv, "asinh": mp.asinh, "acosh": mp.acosh, "atanh": mp.atanh}
    for name, x in inputs.items():
        for dt, npdt in (("f32", np.float32), ("f64", np.float64)):
            xs = x.astype(npdt)
            save(f"{name}_{dt}_x", xs)
            save(f"{name}_{dt}_jax", np.asarray(lax_fns[name](jnp.asarray(xs))))
        ref = []
        for v in x:
            try:
                if not np.isfinite(v):
                    raise ValueError
                r = mp_fns[name](mp.mpf(float(v)))
                ref.append(float(r) if r.imag == 0 else np.nan) if isinstance(r, mp.mpc) else ref.append(float(r))
            except (ValueError, ZeroDivisionError):
                ref.append(np.nan)  # the special values are checked against JAX
        save(f"{name}_ref", np.array(ref, np.float64))

    # polygamma(1, x) (digamma's derivative)
    x = grid(0.05, 40, 200, [1.0, 2.0, 0.5, 12.0])
    save("polygamma1_f64_x", x)
    save("polygamma1_ref", np.array([float(mp.polygamma(1, mp.mpf(float(v)))) for v in x]))

    # composites: JAX's own results
    a = grid(-30, 30, 200, specials + [1, 2, 3, -3])
    b = grid(-30, 30, 200, [0.0, -0.0, np.inf, np.nan, -np.inf] + [1, 2, -3, 3])
    for dt, npdt in (("f32", np.float32), ("f64", np.float64)):
        aa, bb = a.astype(npdt), b.astype(npdt)
        save(f"bin_{dt}_x", aa)
        save(f"bin_{dt}_y", bb)
        ja, jb = jnp.asarray(aa), jnp.asarray(bb)
        for name, fn in (("logaddexp", jnp.logaddexp), ("logaddexp2", jnp.logaddexp2), ("hypot", jnp.hypot),
                         ("remainder", jnp.remainder), ("floor_divide", jnp.floor_divide),
                         ("nextafter", jnp.nextafter), ("copysign", jnp.copysign), ("heaviside", jnp.heaviside),
                         ("xlogy", jss.xlogy), ("xlog1py", jss.xlog1py)):
            save(f"{name}_{dt}_jax", np.asarray(fn(ja, jb)))
        for name, fn in (("log2", jnp.log2), ("log10", jnp.log10), ("sinc", jnp.sinc), ("trunc", jnp.trunc),
                         ("deg2rad", jnp.deg2rad), ("rad2deg", jnp.rad2deg), ("reciprocal", jnp.reciprocal),
                         ("isnan", jnp.isnan), ("isinf", jnp.isinf), ("isposinf", jnp.isposinf),
                         ("isneginf", jnp.isneginf), ("signbit", jnp.signbit)):
            save(f"{name}_{dt}_jax", np.asarray(fn(ja)))
    ia = np.array([7, -7, 7, -7, 0, 5, -5, 0, 2**31 - 1, -2**31, -2**31, 13, -13, 6, -6], np.int32)
    ib = np.array([2, 2, -2, -2, 2, 0, 0, 0, -1, -1, 1, 5, 5, -4, -4], np.int32)
    save("int_i32_x", ia)
    save("int_i32_y", ib)
    save("remainder_i32_jax", np.asarray(jnp.remainder(ia, ib)))
    save("floor_divide_i32_jax", np.asarray(jnp.floor_divide(ia, ib)))
    # integer_pow over exponents -3..9 (f64, and i32 for y >= 0)
    xp = np.array([1.5, -2.0, 0.0, -0.0, 3.0, 0.7, np.inf, -np.inf, np.nan, 1e-3], np.float64)
    save("ipow_f64_x", xp)
    save("ipow_f64_jax", np.stack([np.asarray(jax.lax.integer_pow(jnp.asarray(xp), y)) for y in range(-3, 10)]))
    xi = np.array([3, -2, 0, 1, -1, 7, 46341, -50000], np.int32)
    save("ipow_i32_x", xi)
    save("ipow_i32_jax", np.stack([np.asarray(jax.lax.integer_pow(jnp.asarray(xi), y)) for y in range(0, 10)]))


if __name__ == "__main__":
    main()
