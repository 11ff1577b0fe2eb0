"""DLPack on the host: producers that expose only __dlpack__/__dlpack_device__ (DLPack 1.0 with
max_version, and legacy ones without it) are imported without a copy (out= through DLPack writes the
caller's memory), the consumer's duties are kept (capsule renamed, deleter called once), the read-only
flag is respected, and results go to NumPy through np.from_dlpack without a copy."""

import ctypes
import gc
import sys

import numpy as np
import pytest

import ufunc
from numpy_oracle import BFLOAT16, data_pointer


class Producer:
    """An array library's object known only through the DLPack protocol (versioned)."""

    def __init__(self, array):
        self._array = array
        self.calls = []
        self.capsules = []

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        self.calls.append({"stream": stream, "max_version": max_version, "dl_device": dl_device, "copy": copy})
        capsule = self._array.__dlpack__(stream=stream, max_version=max_version)
        self.capsules.append(capsule)
        return capsule

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


class LegacyProducer:
    """A DLPack 0.x producer: __dlpack__ takes no max_version."""

    def __init__(self, array):
        self._array = array
        self.calls = 0
        self.capsules = []

    def __dlpack__(self, stream=None):
        self.calls += 1
        capsule = self._array.__dlpack__(stream=stream)
        self.capsules.append(capsule)
        return capsule

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


_capsule_is_valid = ctypes.pythonapi.PyCapsule_IsValid
_capsule_is_valid.restype = ctypes.c_int
_capsule_is_valid.argtypes = [ctypes.py_object, ctypes.c_char_p]


def _capsule_name_is(capsule, name):
    return _capsule_is_valid(capsule, name.encode()) == 1


def test_versioned_producer_input():
    x = np.linspace(-2, 2, 101)
    before = sys.getrefcount(x)
    p = Producer(x)
    r = ufunc.sin(p)
    np.testing.assert_array_equal(r, ufunc.sin(x))
    assert len(p.calls) == 1
    assert p.calls[0]["max_version"] is not None and tuple(p.calls[0]["max_version"])[0] >= 1
    assert p.calls[0]["stream"] is None  # host memory: no stream (the specification)
    # The consumer's duties: the capsule renamed, and the tensor released once the call is done
    # (NumPy's export holds a reference to x until its deleter runs).
    assert _capsule_name_is(p.capsules[0], "used_dltensor_versioned")
    del r
    gc.collect()
    assert sys.getrefcount(x) == before + 1  # only the producer's own reference is left
    # Strided and transposed producers.
    m = np.arange(24.0).reshape(4, 6)
    for view in (m[:, ::2], m.T, m[::-1]):
        np.testing.assert_array_equal(ufunc.multiply(Producer(view), 2), view * 2)
        np.testing.assert_array_equal(ufunc.add.reduce(Producer(view), axis=0), np.add.reduce(view, axis=0))


def test_versioned_producer_out_writes_the_callers_memory():
    target = np.zeros(50)
    ptr = data_pointer(target)
    p = Producer(target)
    r = ufunc.add(np.arange(50.0), 1.0, out=p)
    assert r is p  # out= returns the object passed
    np.testing.assert_array_equal(target, np.arange(1.0, 51.0))
    assert data_pointer(target) == ptr
    # A strided view through DLPack: only its elements are written.
    base = np.zeros(20)
    ufunc.negative(np.ones(10), out=Producer(base[::2]))
    np.testing.assert_array_equal(base, np.tile([-1.0, 0.0], 10))
    # Both operands and out the same producer's memory: in place.
    y = np.arange(5.0)
    ufunc.multiply(Producer(y), 3.0, out=Producer(y))
    np.testing.assert_array_equal(y, 3 * np.arange(5.0))
    # Methods take producers as out= too.
    out = np.zeros(3)
    assert ufunc.add.reduce(np.ones((4, 3)), axis=0, out=Producer(out)) is not None
    np.testing.assert_array_equal(out, [4.0, 4.0, 4.0])
    a = np.zeros(4)
    ufunc.add.at(Producer(a), [1, 1, 3], 1.0)
    np.testing.assert_array_equal(a, [0, 2, 0, 1])


def test_legacy_producer():
    x = np.arange(12.0).reshape(3, 4)
    p = LegacyProducer(x)
    np.testing.assert_array_equal(ufunc.sqrt(p), np.sqrt(x))
    assert p.calls == 1  # its TypeError for max_version was answered by a call without it
    assert _capsule_name_is(p.capsules[0], "used_dltensor")
    out = np.zeros((3, 4))
    q = LegacyProducer(out)
    assert ufunc.add(x, x, out=q) is q
    np.testing.assert_array_equal(out, 2 * x)
    np.testing.assert_array_equal(ufunc.add(LegacyProducer(x.T), 0.0), x.T)


def test_read_only_flag_respected():
    x = np.arange(6.0)
    x.setflags(write=False)
    # As an input: fine.
    np.testing.assert_array_equal(ufunc.add(Producer(x), 1.0), x + 1.0)
    # As out=: the DLPack 1.0 read-only flag makes it a read-only array.
    with pytest.raises(ValueError, match="read-only"):
        ufunc.add(np.ones(6), 1.0, out=Producer(x))
    np.testing.assert_array_equal(x, np.arange(6.0))


def test_producer_errors_propagate():
    class Broken:
        def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
            raise BufferError("cannot export")

        def __dlpack_device__(self):
            return (1, 0)

    with pytest.raises(BufferError, match="cannot export"):
        ufunc.sin(Broken())


def test_numpy_from_dlpack_of_results():
    r = ufunc.exp(np.linspace(0, 1, 64))
    expected = r.copy()
    v = np.from_dlpack(r)
    assert data_pointer(v) == data_pointer(r) and np.shares_memory(v, r)
    del r
    gc.collect()
    _churn()
    np.testing.assert_array_equal(v, expected)  # v keeps the buffer alive


def _churn():
    """Allocations of the library's size classes, which would reuse a freed buffer."""
    for _ in range(20):
        ufunc.add(np.zeros(64), 1.0)
        ufunc.add(np.zeros(1000), 2.0)


# ---------------------------------------------------------------------------------------------
# Hand-made capsules: every field of the tensor as the specification has it
# ---------------------------------------------------------------------------------------------


class _Device(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _Device), ("ndim", ctypes.c_int32), ("dtype", _DataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


_DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class _Version(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class _ManagedVersioned(ctypes.Structure):
    _fields_ = [("version", _Version), ("manager_ctx", ctypes.c_void_p), ("deleter", _DELETER),
                ("flags", ctypes.c_uint64), ("dl_tensor", _Tensor)]


class _ManagedLegacy(ctypes.Structure):
    _fields_ = [("dl_tensor", _Tensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _DELETER)]


_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_NAMES = {True: b"dltensor_versioned", False: b"dltensor"}
_TYPE_CODES = {"i": 0, "u": 1, "f": 2, "c": 5, "b": 6}


class HandMadeProducer:
    """A producer of capsules made here field by field (ctypes), with a deleter that counts its calls:
    byte_offset, NULL strides (C order), the read-only flag and the DLPack version under the test's
    control."""

    def __init__(self, array, *, byte_offset=0, c_strides=False, read_only=False, versioned=True, major=1,
                 device_type=1):
        self.array, self.byte_offset, self.c_strides = array, byte_offset, c_strides
        self.read_only, self.versioned, self.major, self.device_type = read_only, versioned, major, device_type
        self.deleted = 0
        self._keep = []

    def __dlpack_device__(self):
        return (self.device_type, 0)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        a = self.array
        itemsize = a.dtype.itemsize
        shape = (ctypes.c_int64 * max(a.ndim, 1))(*a.shape)
        strides = (ctypes.c_int64 * max(a.ndim, 1))(*[s // itemsize for s in a.strides])
        code = 4 if a.dtype == BFLOAT16 else _TYPE_CODES[a.dtype.kind]
        tensor = _Tensor(data_pointer(a) - self.byte_offset, _Device(self.device_type, 0), a.ndim,
                         _DataType(code, itemsize * 8, 1), shape, None if self.c_strides else strides,
                         self.byte_offset)

        def deleter(_):
            self.deleted += 1

        callback = _DELETER(deleter)
        if self.versioned:
            managed = _ManagedVersioned(_Version(self.major, 0), None, callback, 1 if self.read_only else 0, tensor)
        else:
            managed = _ManagedLegacy(tensor, None, callback)
        self._keep += [shape, strides, callback, managed]
        return _capsule_new(ctypes.addressof(managed), _NAMES[self.versioned], None)


@pytest.mark.parametrize("versioned", [True, False], ids=["versioned", "legacy"])
def test_hand_made_capsules(versioned):
    base = np.arange(40.0)
    # byte_offset: the data pointer is 16 bytes before the first element.
    p = HandMadeProducer(base[2:12], byte_offset=16, versioned=versioned)
    np.testing.assert_array_equal(ufunc.add(p, 0.0), base[2:12])
    gc.collect()
    assert p.deleted == 1, "the consumer calls the deleter exactly once"
    # NULL strides: a C-ordered tensor.
    m = np.arange(12.0).reshape(3, 4)
    p = HandMadeProducer(m, c_strides=True, versioned=versioned)
    np.testing.assert_array_equal(ufunc.add.reduce(p, axis=1), m.sum(axis=1))
    # Strides in elements (a transposed, strided view).
    v = np.arange(60.0).reshape(6, 10)[::2, ::3].T
    np.testing.assert_array_equal(ufunc.negative(HandMadeProducer(v, versioned=versioned)), -v)
    # out= through a hand-made capsule writes the memory behind it.
    out = np.zeros(8)
    p = HandMadeProducer(out, versioned=versioned)
    assert ufunc.add(np.arange(8.0), 1.0, out=p) is p
    np.testing.assert_array_equal(out, np.arange(1.0, 9.0))
    gc.collect()
    assert p.deleted == 1
    # Every dtype of DLPack the library has, bfloat16 and bool included.
    for dtype in (np.bool_, np.int8, np.uint16, np.int32, np.uint64, np.float16, BFLOAT16, np.float32,
                  np.complex64, np.complex128):
        a = np.array([0, 1, 1, 0, 1]).astype(dtype)
        r = ufunc.logical_not(HandMadeProducer(a, versioned=versioned))
        np.testing.assert_array_equal(r, np.logical_not(a))
        r = ufunc.positive(HandMadeProducer(a, versioned=versioned)) if dtype is not np.bool_ else a
        assert r.dtype == a.dtype


def test_hand_made_capsule_flags_and_versions():
    x = np.arange(5.0)
    with pytest.raises(ValueError, match="read-only"):
        ufunc.add(np.ones(5), 1.0, out=HandMadeProducer(x, read_only=True))
    np.testing.assert_array_equal(x, np.arange(5.0))
    np.testing.assert_array_equal(ufunc.add(HandMadeProducer(x, read_only=True), 1.0), x + 1)
    # A DLPack major version newer than the consumer's: refused.
    with pytest.raises(ValueError, match="version"):
        ufunc.add(HandMadeProducer(x, major=2), 1.0)
    # A device the library has no memory of (OpenCL: 4).
    with pytest.raises(ValueError, match="device type"):
        ufunc.add(HandMadeProducer(x, device_type=4), 1.0)
    # Pinned host memory (CUDA host, 3) is host memory.
    np.testing.assert_array_equal(ufunc.add(HandMadeProducer(x, device_type=3), 1.0), x + 1)


def test_cuda_array_interface_operand():
    """An object known only by __cuda_array_interface__ is a device operand: imported (a call then
    runs on cuda), or, in a build without CUDA, refused with TargetError, never a TypeError."""
    x = np.arange(4.0)
    memory = ufunc.to_device(x) if ufunc.cuda_available() else x

    class OnlyCudaArrayInterface:
        def __init__(self):
            pointer = memory.__cuda_array_interface__["data"][0] if ufunc.cuda_available() else data_pointer(x)
            self.__cuda_array_interface__ = {"shape": (4,), "typestr": "<f8", "data": (pointer, False),
                                             "strides": None, "version": 3}

    if ufunc.cuda_available():
        r = ufunc.add(OnlyCudaArrayInterface(), 1.0)
        np.testing.assert_array_equal(ufunc.to_host(r), x + 1.0)
    else:
        with pytest.raises(ufunc.TargetError):
            ufunc.add(OnlyCudaArrayInterface(), 1.0)
