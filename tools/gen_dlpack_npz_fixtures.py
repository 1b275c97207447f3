#!/usr/bin/env python3
"""Fixtures for tests/test_dlpack.c and tests/test_npz.c (issue 18).

DLPack: what NumPy's (JAX's, for bfloat16) __dlpack__ hands out, read from
the capsule with ctypes: device, dtype (code, bits, lanes), shape, strides,
byte_offset, flags, and the bytes the tensor spans, written to
tests/data/dlpack/<case>.bin; <case>.expect.bin holds the array in C order,
the values a consumer must see. manifest.txt has one line per case:
  name kind code bits lanes device ndim shape.. strides.. byte_offset flags span_bytes
(kind: "v" versioned capsule, "u" unversioned). The C test rebuilds each
DLManagedTensor by hand over the .bin bytes.

.npz: numpy.savez and savez_compressed of a few arrays (every dtype NumPy
has, a 0-d, an empty and a Fortran-ordered one), with their members also
as .npy files for comparison.

Run from the repository root: python3 tools/gen_dlpack_npz_fixtures.py
"""
import ctypes
import os

import numpy as np

OUT_DL = "tests/data/dlpack"
OUT_NPZ = "tests/data/npz"


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p),
                ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


get_ptr = ctypes.pythonapi.PyCapsule_GetPointer
get_ptr.restype = ctypes.c_void_p
get_ptr.argtypes = [ctypes.py_object, ctypes.c_char_p]


def capsule_tensor(x, versioned):
    if versioned:
        cap = x.__dlpack__(max_version=(1, 0))
        m = DLManagedTensorVersioned.from_address(get_ptr(cap, b"dltensor_versioned"))
        return cap, m.dl_tensor, m.flags, (m.version.major, m.version.minor)
    cap = x.__dlpack__()
    m = DLManagedTensor.from_address(get_ptr(cap, b"dltensor"))
    return cap, m.dl_tensor, 0, None


def dump_case(lines, name, x, versioned=True):
    cap, t, flags, _ = capsule_tensor(x, versioned)
    nd = t.ndim
    shape = [t.shape[i] for i in range(nd)]
    strides = [t.strides[i] for i in range(nd)] if t.strides else None
    es = t.dtype.bits // 8
    # the bytes the tensor spans, from its lowest to its highest element
    lo = hi = 0
    if strides is not None and all(s > 0 for s in shape):
        for n, s in zip(shape, strides):
            if s < 0:
                lo += (n - 1) * s
            else:
                hi += (n - 1) * s
        span = (hi - lo + 1) * es if int(np.prod(shape)) else 0
    else:
        span = int(np.prod(shape)) * es
    start = t.data + t.byte_offset + lo * es
    raw = ctypes.string_at(start, span) if span else b""
    with open(f"{OUT_DL}/{name}.bin", "wb") as f:
        f.write(raw)
    with open(f"{OUT_DL}/{name}.expect.bin", "wb") as f:
        f.write(np.ascontiguousarray(x).tobytes())
    st = strides if strides is not None else ["-"] * nd
    # byte_offset as the C test must set it: the span starts at the lowest element
    lines.append(" ".join(str(v) for v in [name, "v" if versioned else "u", t.dtype.code, t.dtype.bits,
                                           t.dtype.lanes, t.device.device_type, nd, *shape, *st,
                                           -lo * es, flags, span]))
    del cap


def main():
    os.makedirs(OUT_DL, exist_ok=True)
    os.makedirs(OUT_NPZ, exist_ok=True)
    rng = np.random.default_rng(18)
    lines = []
    base = rng.standard_normal((2, 3)) * 100
    for dt in ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
               "float16", "float32", "float64"]:
        x = (base > 0) if dt == "bool" else base.astype(dt)
        dump_case(lines, f"compact_{dt}", x)
    try:
        import jax.numpy as jnp
        xb = jnp.asarray(base, dtype=jnp.bfloat16)
        cap = xb.__dlpack__()
        m = DLManagedTensor.from_address(get_ptr(cap, b"dltensor"))
        t = m.dl_tensor
        raw = ctypes.string_at(t.data + t.byte_offset, 6 * 2)
        with open(f"{OUT_DL}/compact_bfloat16.bin", "wb") as f:
            f.write(raw)
        with open(f"{OUT_DL}/compact_bfloat16.expect.bin", "wb") as f:
            f.write(np.asarray(xb).tobytes())
        st = [t.strides[i] for i in range(t.ndim)] if t.strides else ["-"] * t.ndim
        lines.append(" ".join(str(v) for v in ["compact_bfloat16", "u", t.dtype.code, t.dtype.bits, t.dtype.lanes,
                                               t.device.device_type, t.ndim, *[t.shape[i] for i in range(t.ndim)],
                                               *st, 0, 0, 12]))
        del cap
    except Exception as e:  # no JAX: the case is left out, the test says so
        print("bfloat16 skipped:", e)
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    dump_case(lines, "transposed_float32", a.T)
    dump_case(lines, "sliced_float64", np.arange(20, dtype=np.float64).reshape(4, 5)[::2, 1::2])
    dump_case(lines, "reversed_int32", np.arange(6, dtype=np.int32)[::-1])
    dump_case(lines, "scalar_float64", np.array(3.25))
    dump_case(lines, "empty_float32", np.zeros((0, 3), np.float32))
    dump_case(lines, "unversioned_int64", np.arange(5, dtype=np.int64) * 7, versioned=False)
    dump_case(lines, "readonly_float32", np.broadcast_to(np.float32(1.5), (2, 3)))
    with open(f"{OUT_DL}/manifest.txt", "w") as f:
        f.write("\n".join(lines) + "\n")

    arrays = {
        "w": rng.standard_normal((3, 4)).astype(np.float32),
        "b": np.arange(4, dtype=np.float64),
        "idx": np.array([1, -2, 3], dtype=np.int64),
        "mask": np.array([True, False, True]),
        "small": np.arange(6, dtype=np.int8).reshape(2, 3),
        "u16": np.array([1, 65535], dtype=np.uint16),
        "h": np.array([0.5, -2.0], dtype=np.float16),
        "scalar": np.array(7, dtype=np.int32),
        "empty": np.zeros((0, 2), dtype=np.float32),
        "fortran": np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)),
        "big": np.zeros(5000, dtype=np.float32),
    }
    np.savez(f"{OUT_NPZ}/savez.npz", **arrays)
    np.savez_compressed(f"{OUT_NPZ}/savez_compressed.npz", **arrays)
    np.savez(f"{OUT_NPZ}/positional.npz", np.arange(3, dtype=np.int32), np.ones(2))
    for k, v in arrays.items():
        np.save(f"{OUT_NPZ}/{k}.npy", v)


if __name__ == "__main__":
    main()
