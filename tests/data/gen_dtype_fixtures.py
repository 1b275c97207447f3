"""gen_dtype_fixtures.py — writes the JAX fixtures tests/test_dtypes.c compares
against (tests/data/dtypes/*.npy). Not run by `make test`: it needs JAX and
ml_dtypes. Run it from anywhere: python3 tests/data/gen_dtype_fixtures.py

promotion.npy: the dtype and weak flag of jnp.maximum(a, b) for every pair
of operand types (dtype, weak) over cjax's 13 dtypes, weak variants of every integer and
float dtype included. One int32 row per pair: a dtype, a weak, b dtype,
b weak, result dtype, result weak, x64, the dtypes as cjax's enum numbers
(CODES below). Pairs without a 64-bit operand come from jax with x64
disabled (cjax's mode); pairs with an i64, u64 or f64 operand from jax with
x64 enabled, since cjax keeps explicit 64-bit types (with x64 off JAX would
have none). The two modes' lattices agree on every pair with a 64-bit
operand; they differ only in the default dtype of a weak result when one
operand is strong (JAX's x64 default is i64/f64; the test compares its kind).

conv_src_<a>.npy, conv_<a>_<b>.npy: inputs of each dtype (boundaries,
specials, NaN payloads, rounding ties, seeded random bit patterns) and what
jax.jit(lambda x: x.astype(b)) gives on CPU. f16/bf16 files hold the
16-bit patterns as uint16 (numpy.save writes bfloat16 as a void).

numpy_bf16.npy, numpy_f16.npy, numpy_u8.npy: arrays as numpy.save writes
them (bfloat16 as '<V2'), for the .npy reader."""
import os
import subprocess
import sys

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dtypes")

# cjax's enum order (include/cjax.h)
NAMES = ["bool", "i32", "i64", "f32", "f64", "i8", "i16", "u8", "u16", "u32", "u64", "f16", "bf16"]


def np_dtype(name):
    import ml_dtypes
    return {
        "bool": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
        "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
        "f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32, "f64": np.float64,
    }[name]


def code_of(dt):
    for i, n in enumerate(NAMES):
        if np.dtype(np_dtype(n)) == np.dtype(dt):
            return i
    raise ValueError(dt)


def promotion_rows(x64):
    import jax
    jax.config.update("jax_enable_x64", x64)
    import jax.numpy as jnp
    from jax._src.lax import lax as lax_internal

    def make(name, weak):
        dt = np.dtype(np_dtype(name))
        z = jnp.zeros((), dt)
        return lax_internal._convert_element_type(z, dt, weak_type=True) if weak else z

    types = [(n, 0) for n in NAMES] + [(n, 1) for n in NAMES if n != "bool"]
    rows = []
    for a, aw in types:
        for b, bw in types:
            wide = any(n in ("i64", "u64", "f64") for n in (a, b))
            if wide != x64:
                continue
            xa, xb = make(a, aw), make(b, bw)
            assert xa.dtype == np.dtype(np_dtype(a)) and bool(xa.weak_type) == bool(aw), (a, aw)
            # what an operation does (jnp's promote_dtypes: the lattice join,
            # canonicalised), not jax.dtypes.result_type, which gives every
            # weak result the default dtype even when all operands are weak
            r = jnp.maximum(xa, xb)
            dt, weak = r.dtype, bool(r.weak_type)
            rows.append([NAMES.index(a), aw, NAMES.index(b), bw, code_of(dt), int(weak), int(x64)])
    return rows


def int_inputs(name, rng):
    info = np.iinfo(np_dtype(name))
    lo, hi = int(info.min), int(info.max)
    vals = {lo, lo + 1, hi, hi - 1, 0, 1, 2, 3, 7, 100, 127, 128, 255, 256, 1000, 32767, 32768, 65504,
            65519, 65520, 65535, 65536, 2**24 - 1, 2**24, 2**24 + 1, 2**24 + 2**16 + 1, 2**24 + 2**16,
            2**24 + 3 * 2**16, 2**25 + 2**17 + 1, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**53 + 1,
            2**62 + 2**38 + 1, 2**63 - 2**39, 2**63 - 1}
    vals |= {-v for v in list(vals)}
    vals = [v for v in vals if lo <= v <= hi]
    bits = rng.integers(0, 2**63, size=300, dtype=np.uint64) * np.uint64(2) + rng.integers(0, 2, size=300, dtype=np.uint64)
    nbits = np.dtype(np_dtype(name)).itemsize * 8
    rnd = (bits >> np.uint64(64 - nbits)).astype(np.uint64)
    # also small values, where rounding to f16/bf16 is exact or near
    small = rng.integers(-70000, 70000, size=100)
    out = np.concatenate([np.array(vals, dtype=object).astype(np.float64).astype(np.int64).astype(np.dtype(np_dtype(name)))
                          if False else np.array([np.array(v).astype(np_dtype(name)) if lo <= v <= hi else 0 for v in vals], dtype=np_dtype(name)),
                          rnd.view(np.uint64).astype({8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}[nbits]).view(np_dtype(name)),
                          np.clip(small, lo, hi).astype(np_dtype(name))])
    return out


def float_inputs(name, rng):
    dt = np.dtype(np_dtype(name))
    specials = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.5, 127.5, 127.9, 128.0, -128.5, -128.9, -129.0,
                255.5, 256.0, 32767.5, 32768.0, -32768.5, 65504.0, 65519.0, 65520.0, 65535.5, 65536.0,
                2147483520.0, 2147483647.0, 2147483648.0, -2147483649.0, 4294967295.0, 4294967296.0,
                9.2233720368547758e18, -9.2233720368547758e18, 1.8446744073709552e19, 1e30, -1e30,
                np.inf, -np.inf, np.nan, -np.nan, 6.103515625e-05, 6.097555160522461e-05, 5.960464477539063e-08,
                2.9802322387695312e-08, 2.98023224e-08, 1e-40, -1e-40, 1e-310, 3.4028234663852886e38,
                1 + 2**-8, 1 + 2**-8 + 2**-30, 1 + 2**-11, 1 + 2**-11 + 2**-40, 1 + 3 * 2**-9, 1 + 2**-10 + 2**-11]
    with np.errstate(over="ignore"):
        x = np.array(specials, np.float64).astype(dt)
    if name in ("f32", "f64"):
        ui = {4: np.uint32, 8: np.uint64}[dt.itemsize]
        nbits = dt.itemsize * 8
        top = ui(1) << ui(nbits - 1)
        exp_all = {4: 0x7f800000, 8: 0x7ff0000000000000}[dt.itemsize]
        nan_bits = np.array([exp_all | 1, exp_all | (exp_all >> 1 & ~exp_all) | 5, exp_all | 0x3ff, exp_all | (1 << 13),
                             exp_all | (1 << 21), exp_all | (1 << 42)], dtype=np.uint64)
        nan_bits = nan_bits[nan_bits < (1 << nbits)].astype(ui)
        nans = np.concatenate([nan_bits, nan_bits | top]).view(dt)
        rb = rng.integers(0, 2**63, size=400, dtype=np.uint64) * np.uint64(2) + rng.integers(0, 2, size=400, dtype=np.uint64)
        rnd = (rb >> np.uint64(64 - nbits)).astype(ui).view(dt)
        moderate = (rng.standard_normal(200) * 10.0 ** rng.integers(-8, 20, size=200)).astype(dt)
        x = np.concatenate([x, nans, rnd, moderate])
    else:  # f16, bf16: bit patterns
        bits = np.concatenate([rng.integers(0, 65536, size=500),
                               [0x7c01, 0xfc01, 0x7e01, 0x7f81, 0xff81, 0x7fc1, 0x0001, 0x8001, 0x03ff, 0x7bff, 0x7f7f]])
        x = np.concatenate([x, bits.astype(np.uint16).view(dt)])
    return x


def raw(x):
    """bool/ints/f32/f64 as they are; f16/bf16 as their bits."""
    if x.dtype.itemsize == 2 and x.dtype.kind not in "iu":
        return x.view(np.uint16)
    return x


def conversions(rng):
    import jax
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    for a in NAMES:
        if a == "bool":
            x = np.array([False, True, True, False], np.bool_)
        elif np.dtype(np_dtype(a)).kind in "iu":
            x = int_inputs(a, rng)
        else:
            x = float_inputs(a, rng)
        np.save(os.path.join(OUT, f"conv_src_{a}.npy"), raw(x))
        for b in NAMES:
            y = np.asarray(jax.jit(lambda v: v.astype(np_dtype(b)))(jnp.asarray(x)))
            assert y.dtype == np.dtype(np_dtype(b))
            np.save(os.path.join(OUT, f"conv_{a}_{b}.npy"), raw(y))


def numpy_written():
    """Files as numpy.save writes them, for cj_load_npy: bfloat16 (ml_dtypes)
    becomes a '<V2' void, float16 '<f2', uint8 '|u1'."""
    import ml_dtypes
    vals = [1.0, -2.5, 0.0, -0.0, np.inf, np.nan, 3.140625, 1e-3]
    np.save(os.path.join(OUT, "numpy_bf16.npy"), np.array(vals, ml_dtypes.bfloat16).reshape(2, 4))
    np.save(os.path.join(OUT, "numpy_f16.npy"), np.array(vals, np.float16).reshape(2, 4))
    np.save(os.path.join(OUT, "numpy_u8.npy"), np.array([0, 1, 127, 128, 255, 7], np.uint8).reshape(3, 2))


def main():
    os.makedirs(OUT, exist_ok=True)
    if len(sys.argv) > 1 and sys.argv[1] == "--numpy":
        numpy_written()
        return
    if len(sys.argv) > 1 and sys.argv[1] == "--promotion":
        rows = promotion_rows(sys.argv[2] == "1")
        np.save(os.path.join(OUT, f"promotion_x64_{sys.argv[2]}.npy"), np.array(rows, np.int32))
        return
    # x64 is set once per process: one child per mode
    for x64 in ("0", "1"):
        subprocess.check_call([sys.executable, os.path.abspath(__file__), "--promotion", x64])
    a = np.load(os.path.join(OUT, "promotion_x64_0.npy"))
    b = np.load(os.path.join(OUT, "promotion_x64_1.npy"))
    os.remove(os.path.join(OUT, "promotion_x64_0.npy"))
    os.remove(os.path.join(OUT, "promotion_x64_1.npy"))
    np.save(os.path.join(OUT, "promotion.npy"), np.concatenate([a, b]).astype(np.int32))
    numpy_written()
    conversions(np.random.default_rng(17))
    import jax
    import ml_dtypes
    with open(os.path.join(OUT, "VERSION"), "w") as f:
        f.write(f"jax {jax.__version__} ml_dtypes {ml_dtypes.__version__} numpy {np.__version__}\n")


if __name__ == "__main__":
    main()
