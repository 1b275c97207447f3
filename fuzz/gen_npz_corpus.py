#!/usr/bin/env python3
"""gen_npz_corpus.py — the seed corpus of the .npz fuzzer (fuzz/corpus/npz/).

valid_*: archives numpy.savez / savez_compressed wrote (valid_deflate_*
need zlib in cjax), an empty archive, one with zip64 records and a comment.
Every other seed is malformed and must be refused: truncations, a bad
CRC, names with paths, a name twice, members overlapping, a deflate size
no stream can reach, encryption, an unknown method, a member that is not
.npy or not a valid .npy, junk. Run from anywhere; it rewrites the folder
(regression_* files, added by hand, are kept). Needs NumPy.
"""
import io
import os
import struct
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "corpus", "npz")


def put(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


def savez(compressed=False, **arrays):
    buf = io.BytesIO()
    (np.savez_compressed if compressed else np.savez)(buf, **arrays)
    return buf.getvalue()


def find(data, sig, nth=0):
    at = -1
    for _ in range(nth + 1):
        at = data.index(sig, at + 1)
    return at


def patch(data, at, fmt, value):
    b = bytearray(data)
    struct.pack_into(fmt, b, at, value)
    return bytes(b)


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        if not f.startswith("regression_"):
            os.remove(os.path.join(OUT, f))
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.array([1, -2, 3], dtype=np.int64)
    two = savez(w=a, b=b)
    put("valid_savez_two.npz", two)
    put("valid_savez_dtypes.npz", savez(m=np.array([True, False]), i1=np.int8([-3, 4]), u2=np.uint16([9]),
                                        h=np.float16([0.5]), s=np.array(2.5), e=np.zeros((0, 4), np.float32)))
    put("valid_savez_empty.npz", savez())
    put("valid_deflate_two.npz", savez(True, w=a, b=b))
    put("valid_deflate_zeros.npz", savez(True, z=np.zeros(3000, np.float32)))
    # zip64 records and an archive comment
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", allowZip64=True) as z:
        with z.open("w.npy", "w", force_zip64=True) as f:
            np.lib.format.write_array(f, a)
        z.comment = b"made by gen_npz_corpus.py"
    put("valid_zip64_comment.npz", buf.getvalue())

    cd0, cd1 = find(two, b"PK\x01\x02"), find(two, b"PK\x01\x02", 1)
    end = find(two, b"PK\x05\x06")
    loc1 = find(two, b"PK\x03\x04", 1)
    put("truncated_end.npz", two[:-10])
    put("truncated_half.npz", two[: len(two) // 2])
    put("crc.npz", patch(two, cd0 + 16, "<I", 0x12345678))
    bad_name = bytearray(two)
    bad_name[cd0 + 46: cd0 + 49] = b"../"
    put("name_dotdot.npz", bytes(bad_name))
    abs_name = bytearray(two)
    abs_name[cd0 + 46] = ord("/")
    put("name_absolute.npz", bytes(abs_name))
    dup = bytearray(two)
    dup[cd1 + 46] = dup[cd0 + 46]
    put("name_twice.npz", bytes(dup))
    grow = loc1 + 8
    put("overlap.npz", patch(patch(two, cd0 + 20, "<I", grow), cd0 + 24, "<I", grow))
    put("encrypted.npz", patch(two, cd0 + 8, "<H", 1))
    put("method_bzip2.npz", patch(two, cd0 + 10, "<H", 12))
    put("cd_outside.npz", patch(two, end + 16, "<I", len(two) + 100))
    put("too_many.npz", patch(patch(two, end + 8, "<H", 999), end + 10, "<H", 999))
    put("comment_length.npz", patch(two, end + 20, "<H", 9))
    put("local_offset.npz", patch(two, cd0 + 42, "<I", 3))
    d = savez(True, z=np.zeros(3000, np.float32))
    dcd = find(d, b"PK\x01\x02")
    put("deflate_bomb_size.npz", patch(d, dcd + 24, "<I", 0xF0000000))
    put("deflate_short_size.npz", patch(d, dcd + 24, "<I", 100))
    dl = find(d, b"PK\x03\x04")
    data_at = dl + 30 + struct.unpack_from("<H", d, dl + 26)[0] + struct.unpack_from("<H", d, dl + 28)[0]
    corrupt = bytearray(d)
    corrupt[data_at + 3] ^= 0xFF
    put("deflate_corrupt_stream.npz", bytes(corrupt))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("notes.txt", "not an array")
    put("member_not_npy.npz", buf.getvalue())
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("x.npy", b"\x93NUMPY\x01\x00garbage")
    put("member_bad_npy.npz", buf.getvalue())
    put("junk.npz", bytes(range(256)) * 2)
    put("empty_file.npz", b"")


if __name__ == "__main__":
    main()
