#!/usr/bin/env python3
"""gen_corpus.py — writes the seed corpus of the input fuzzers (fuzz/).

fuzz/corpus/npy/: .npy files written by NumPy itself (every dtype cjax
reads, 0-d, empty, rank 8, big-endian, Fortran order, format versions 1.0,
2.0 and 3.0) and hand-made malformed ones (truncated, trailing bytes, huge or
overflowing shapes, implausible header lengths, unsupported dtypes, missing
keys). fuzz/corpus/cache/: files of the C backend's disk cache, sealed as
cc_build.c seals them (payload + "CJAXSO1\\n" + u64 size + key + SHA-256 of
the payload) for the key the fuzz body checks against, intact and damaged.

Run from anywhere; it rewrites both folders. Needs NumPy. Files found by
fuzzing are added by hand under a name saying what they found (regression_*)
and are not touched here.
"""
import hashlib
import io
import os
import struct

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
NPY = os.path.join(HERE, "corpus", "npy")
CACHE = os.path.join(HERE, "corpus", "cache")
CACHE_KEY = hashlib.sha256(b"cjax fuzz_cache key").digest()  # FUZZ_CACHE_KEY_TEXT


def put(folder, name, data):
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def numpy_file(arr, version=None):
    buf = io.BytesIO()
    np.lib.format.write_array(buf, arr, version=version)
    return buf.getvalue()


def v1(header, data=b""):
    """A version 1.0 file with this header text, padded as NumPy pads it."""
    body = header.encode("latin1")
    total = 10 + len(body) + 1
    padded = (total + 63) // 64 * 64
    body += b" " * (padded - total) + b"\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(body)) + body + data


def npy_seeds():
    f32 = np.arange(6, dtype=np.float32).reshape(2, 3) * 1.5 - 2
    put(NPY, "f4_2x3.npy", numpy_file(f32))
    put(NPY, "f8_scalar.npy", numpy_file(np.array(3.25)))
    put(NPY, "i4_0x4.npy", numpy_file(np.zeros((0, 4), dtype=np.int32)))
    put(NPY, "i8_5.npy", numpy_file(np.arange(5, dtype=np.int64) - 2))
    put(NPY, "bool_7.npy", numpy_file(np.array([1, 0, 1, 1, 0, 0, 1], dtype=bool)))
    put(NPY, "f8_big_endian_3x2.npy", numpy_file(np.arange(6, dtype=">f8").reshape(3, 2)))
    put(NPY, "i4_big_endian_4.npy", numpy_file(np.arange(4, dtype=">i4")))
    put(NPY, "f4_fortran_3x4.npy", numpy_file(np.asfortranarray(np.arange(12, dtype=np.float32).reshape(3, 4))))
    put(NPY, "i8_fortran_2x2x3.npy", numpy_file(np.asfortranarray(np.arange(12, dtype=np.int64).reshape(2, 2, 3))))
    put(NPY, "i4_version2.npy", numpy_file(np.arange(3, dtype=np.int32), version=(2, 0)))
    put(NPY, "f4_version3.npy", numpy_file(np.arange(3, dtype=np.float32), version=(3, 0)))
    put(NPY, "f4_rank8.npy", numpy_file(np.ones((1, 2, 1, 1, 2, 1, 1, 2), dtype=np.float32)))
    four = struct.pack("<4f", 1, 2, 3, 4)
    put(NPY, "bad_magic.npy", b"\x93NUMPX\x01\x00" + v1("{}")[8:])
    put(NPY, "empty.npy", b"")
    put(NPY, "truncated_header.npy", v1("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", four)[:40])
    put(NPY, "truncated_data.npy", v1("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", four[:12]))
    put(NPY, "trailing_bytes.npy", v1("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", four + b"x"))
    put(NPY, "descr_complex.npy", v1("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", four))
    put(NPY, "descr_unterminated.npy", v1("{'descr': '<f4, 'fortran_order': False, 'shape': (4,), }", four))
    put(NPY, "f4_double_quoted_keys.npy", v1('{"descr": "<f4", "fortran_order": False, "shape": (4,), }', four))
    put(NPY, "no_fortran_order.npy", v1("{'descr': '<f4', 'shape': (4,), }", four))
    put(NPY, "shape_negative.npy", v1("{'descr': '<f4', 'fortran_order': False, 'shape': (-4,), }", four))
    put(NPY, "shape_rank9.npy", v1("{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1), }", four[:4]))
    put(NPY, "shape_huge.npy", v1("{'descr': '<f4', 'fortran_order': False, 'shape': (281474976710656,), }", four))
    put(NPY, "shape_product_overflows.npy",
        v1("{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776, 1099511627776, 1099511627776), }", four))
    put(NPY, "shape_fortran_huge.npy",
        v1("{'descr': '<i8', 'fortran_order': True, 'shape': (4294967296, 4294967296), }", four))
    put(NPY, "header_length_zero.npy", b"\x93NUMPY\x01\x00\x00\x00")
    put(NPY, "header_length_huge_v2.npy", b"\x93NUMPY\x02\x00\xff\xff\xff\xff{'descr': '<f4'}")
    put(NPY, "version_9.npy", b"\x93NUMPY\x09\x00" + v1("{}")[8:])
    put(NPY, "header_not_a_dict.npy", v1("not a dict at all", four))
    # the header is parsed as a dict, not searched: text inside a string is
    # no key, keys come in any order, strings take Python's escapes
    put(NPY, "key_inside_string_value.npy",
        v1('{"descr": "<f4", "fortran_order": False, "shape": (2,), "note": "\'shape\': (4,)"}', four))
    put(NPY, "f4_keys_any_order_escapes.npy",
        v1("{ 'shape' :\t(2,\n 2,) ,\"fortran_order\":False,'descr':'\\x3cf4' , }", four))
    put(NPY, "shape_one_element_without_comma.npy", v1("{'descr': '<f4', 'fortran_order': False, 'shape': (4)}", four))
    put(NPY, "key_twice.npy",
        v1("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), 'shape': (2,)}", four))
    put(NPY, "fortran_order_not_a_name.npy",
        v1("{'descr': '<f4', 'fortran_order': Trueish, 'shape': (4,)}", four))
    put(NPY, "text_after_dict.npy", v1("{'descr': '<f4', 'fortran_order': False, 'shape': (4,)} x", four))


def sealed(payload, key=CACHE_KEY):
    digest = hashlib.sha256(payload).digest()
    return payload + b"CJAXSO1\n" + struct.pack("<Q", len(payload)) + key + digest


def cache_seeds():
    payload = b"\x7fELF but not really: the fuzz body never dlopens" * 3
    good = sealed(payload)
    put(CACHE, "valid.bin", good)
    put(CACHE, "valid_one_byte.bin", sealed(b"x"))
    put(CACHE, "empty.bin", b"")
    put(CACHE, "trailer_only.bin", good[len(payload):])
    put(CACHE, "short_79_bytes.bin", good[-79:])
    put(CACHE, "truncated_by_one.bin", good[:-1])
    put(CACHE, "byte_appended.bin", good + b"\n")
    put(CACHE, "payload_altered.bin", b"\x7fELG" + good[4:])
    put(CACHE, "other_key.bin", sealed(payload, hashlib.sha256(b"another program").digest()))
    bad_magic = bytearray(good)
    bad_magic[len(payload) + 6] ^= 1
    put(CACHE, "bad_magic.bin", bytes(bad_magic))
    huge = bytearray(good)
    huge[len(payload) + 8:len(payload) + 16] = struct.pack("<Q", 2**63 + 5)
    put(CACHE, "size_field_huge.bin", bytes(huge))
    put(CACHE, "unsealed_payload.bin", payload)


if __name__ == "__main__":
    for d in (NPY, CACHE):
        os.makedirs(d, exist_ok=True)
        for name in os.listdir(d):
            if not name.startswith("regression_"):
                os.remove(os.path.join(d, name))
    npy_seeds()
    cache_seeds()
