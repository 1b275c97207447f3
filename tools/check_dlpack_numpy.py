#!/usr/bin/env python3
"""check_dlpack_numpy.py — by hand, not in `make test`: NumPy consumes
cjax's DLPack exports and cjax consumes NumPy's, through the shared library
(build/libcjax.so, or the path given), with ctypes. Checks values, zero
copy (the addresses NumPy and cjax see are equal), the read-only flag, and
that each side's deleter runs (NumPy's capsule is released; cjax's array
buffer is returned, seen in cj_mem_stats). Prints one line per check and
"all ok" at the end; exits 1 on a failure.

    python3 tools/check_dlpack_numpy.py [build/libcjax.so]
"""
import ctypes
import sys

import numpy as np

lib = ctypes.CDLL(sys.argv[1] if len(sys.argv) > 1 else "build/libcjax.so")


class Val(ctypes.Structure):
    _fields_ = [("ctx", ctypes.c_void_p), ("slot", ctypes.c_uint32), ("gen", ctypes.c_uint32)]


class MemStats(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in ("live", "peak", "in_arrays", "pooled")] + \
               [(n, ctypes.c_uint64) for n in ("allocs", "frees", "hits")] + [("borrowed", ctypes.c_size_t)]


lib.cj_ctx_new.restype = ctypes.c_void_p
lib.cj_ctx_new.argtypes = [ctypes.c_void_p]
lib.cj_ctx_free.argtypes = [ctypes.c_void_p]
lib.cj_linspace.restype = Val
lib.cj_linspace.argtypes = [ctypes.c_void_p, ctypes.c_double, ctypes.c_double, ctypes.c_int64, ctypes.c_int]
lib.cj_to_dlpack_versioned.restype = ctypes.c_void_p
lib.cj_to_dlpack_versioned.argtypes = [Val]
lib.cj_to_dlpack.restype = ctypes.c_void_p
lib.cj_to_dlpack.argtypes = [Val]
lib.cj_from_dlpack_versioned.restype = Val
lib.cj_from_dlpack_versioned.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
lib.cj_array_data.restype = ctypes.c_void_p
lib.cj_array_data.argtypes = [Val]
lib.cj_array_is_borrowed.argtypes = [Val]
lib.cj_val_free.argtypes = [Val]
lib.cj_mem_stats_get.argtypes = [ctypes.c_void_p, ctypes.POINTER(MemStats)]
lib.cj_item_or_nan.restype = ctypes.c_double
lib.cj_item_or_nan.argtypes = [Val]
lib.cj_sum.restype = Val
lib.cj_sum.argtypes = [Val, ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
lib.cj_error_message.restype = ctypes.c_char_p
lib.cj_error_message.argtypes = [ctypes.c_void_p]

PyCapsule_New = ctypes.pythonapi.PyCapsule_New
PyCapsule_New.restype = ctypes.py_object
PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
PyCapsule_GetPointer = ctypes.pythonapi.PyCapsule_GetPointer
PyCapsule_GetPointer.restype = ctypes.c_void_p
PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
PyCapsule_SetName = ctypes.pythonapi.PyCapsule_SetName
PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]

F32 = 3
failed = False


def check(what, ok):
    global failed
    print(("ok   " if ok else "FAIL ") + what)
    failed |= not ok


class Exported:
    """What np.from_dlpack wants: __dlpack__ returning a capsule."""

    def __init__(self, ptr, versioned):
        self.ptr, self.versioned = ptr, versioned

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        # No capsule destructor: NumPy renames a consumed capsule and calls
        # the tensor's deleter itself when its array dies.
        return PyCapsule_New(self.ptr, b"dltensor_versioned" if self.versioned else b"dltensor", None)

    def __dlpack_device__(self):
        return (1, 0)


ctx = lib.cj_ctx_new(None)
x = lib.cj_linspace(ctx, 0.0, 1.0, 1 << 16, F32)
st0 = MemStats()
lib.cj_mem_stats_get(ctx, ctypes.byref(st0))
addr = lib.cj_array_data(x)
for versioned in (True, False):
    t = lib.cj_to_dlpack_versioned(x) if versioned else lib.cj_to_dlpack(x)
    a = np.from_dlpack(Exported(t, versioned))
    check(f"{'versioned' if versioned else 'unversioned'}: NumPy sees cjax's buffer (zero copy)",
          a.ctypes.data == addr)
    check("values", np.allclose(a, np.linspace(0, 1, 1 << 16, dtype=np.float32)))
    if versioned:
        check("read-only flag honoured by NumPy", not a.flags.writeable)
    del a
lib.cj_val_free(x)
st1 = MemStats()
lib.cj_mem_stats_get(ctx, ctypes.byref(st1))
check("deleters ran: the array's buffer went back to the pool when NumPy let go",
      st0.in_arrays - st1.in_arrays == 4 << 16)

# NumPy -> cjax
b = np.arange(12, dtype=np.float32).reshape(3, 4) * 0.5
cap = b.__dlpack__(max_version=(1, 0))
ptr = PyCapsule_GetPointer(cap, b"dltensor_versioned")
PyCapsule_SetName(cap, b"used_dltensor_versioned")  # the consumer owns it now
v = lib.cj_from_dlpack_versioned(ctx, ptr)
check("cjax views NumPy's buffer (zero copy)", lib.cj_array_is_borrowed(v) == 1 and lib.cj_array_data(v) == b.ctypes.data)
check("sum through cjax", lib.cj_item_or_nan(lib.cj_sum(v, -1, None, 0)) == float(b.sum()))
lib.cj_ctx_free(ctx)  # runs NumPy's deleter
del cap
print("all ok" if not failed else "FAILED")
sys.exit(1 if failed else 0)
