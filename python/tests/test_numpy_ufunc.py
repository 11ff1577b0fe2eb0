"""ufunc.as_numpy_ufunc: real numpy.ufunc objects over the library's host loops. NumPy's machinery does the
rest (type resolution, casting, broadcasting, out=, where=, the methods, np.errstate), so every loop must give
NumPy's own ufunc's results through it, and NumPy's reduce and accumulate (which call a loop with overlapping
operands) must be right."""

import ctypes
import ctypes.util
import gc

import numpy as np
import pytest

import ufunc
from numpy_oracle import (
    COMPLEX_CODES,
    ELEMENTWISE,
    assert_reduction_close,
    assert_same,
    dtype_of,
    loop_params,
    make_inputs,
    np_ufunc,
    quiet,
    split_types,
)

LOOPS = [(n, t) for n, t in loop_params(ELEMENTWISE) if np_ufunc(n) is not None and "E" not in t]
_CACHE = {}


def numpy_version_of(name):
    if name not in _CACHE:
        _CACHE[name] = ufunc.as_numpy_ufunc(getattr(ufunc, name))
    return _CACHE[name]


@pytest.mark.parametrize("name,types", LOOPS, ids=[f"{n}-{t}" for n, t in LOOPS])
def test_every_loop_through_numpy(name, types, rng):
    g, want_f = numpy_version_of(name), np_ufunc(name)
    ins, outs = split_types(types)
    has_complex = any(c in COMPLEX_CODES for c in ins)
    xs = make_inputs(name, ins, [(3, 37)] * len(ins), rng)
    views = [x[:, ::2] for x in xs]  # strided: NumPy passes the steps to the library's loop
    for args, what in ((xs, "contiguous"), (views, "strided")):
        with quiet():
            got, want = g(*args), want_f(*args)
        assert_same(got, want, name, complex_inputs=has_complex, what=f"{name} {types} {what}")
    results = got if isinstance(got, tuple) else (got,)
    assert tuple(r.dtype for r in results) == tuple(dtype_of(c) for c in outs)


def test_a_numpy_ufunc_with_the_library_attributes():
    add = ufunc.as_numpy_ufunc(ufunc.add)
    assert isinstance(add, np.ufunc)
    assert (add.__name__, add.nin, add.nout, add.identity) == ("add", 2, 1, 0)
    assert add.types == [t for t in ufunc.add.types if "E" not in t]  # bfloat16 is no NumPy type number
    assert ufunc.as_numpy_ufunc(ufunc.maximum).identity is None
    assert ufunc.as_numpy_ufunc(ufunc.logical_and).identity is True
    with pytest.raises(TypeError, match="as_numpy_ufunc"):
        ufunc.as_numpy_ufunc(np.add)


def test_numpy_machinery_around_the_loops(rng):
    add, sub = ufunc.as_numpy_ufunc(ufunc.add), ufunc.as_numpy_ufunc(ufunc.subtract)
    x = rng.random((4, 5)).astype(np.float32)
    assert add(x, 2.0).dtype == np.float32  # NEP 50: NumPy's promotion
    np.testing.assert_array_equal(add(x, x[0]), np.add(x, x[0]))  # broadcasting
    out = np.zeros((4, 5))
    assert add(x, x, out=out) is out  # a cast into out=
    np.testing.assert_array_equal(out, np.add(x, x, dtype=np.float64))
    mask = x > 0.5
    w = np.full((4, 5), -1.0, np.float32)
    add(x, 1.0, out=w, where=mask)
    np.testing.assert_array_equal(w, np.where(mask, x + np.float32(1), -1))
    np.testing.assert_array_equal(add(np.arange(5, dtype=np.int8), np.arange(5.0)), np.arange(5) * 2.0)
    np.testing.assert_array_equal(sub.outer(np.arange(3), np.arange(4)), np.subtract.outer(np.arange(3), np.arange(4)))
    a = np.zeros(5, np.int64)
    add.at(a, [0, 0, 3], 1)  # unbuffered: repeated indices count
    np.testing.assert_array_equal(a, [2, 0, 0, 1, 0])
    # In place, and an output overlapping its input one element over (NumPy copies; the loop must not care).
    y = np.arange(10.0)
    add(y, 1.0, out=y)
    np.testing.assert_array_equal(y, np.arange(1.0, 11.0))
    z, want = np.arange(10.0), np.arange(10.0)
    want[1:] = want[:-1] + want[1:]
    add(z[:-1], z[1:], out=z[1:])
    np.testing.assert_array_equal(z, want)


def test_reduce_and_accumulate(rng):
    # NumPy calls the loop with the accumulator as input and output (step 0), and accumulate with the output
    # one element behind: exact for integers, NumPy's bits for float accumulate (in order), close for sums.
    for name in ("add", "multiply", "maximum", "minimum", "bitwise_xor"):
        g, f = numpy_version_of(name), np_ufunc(name)
        ints = rng.integers(-3, 4, size=(6, 50)).astype(np.int32)
        np.testing.assert_array_equal(g.reduce(ints, axis=1), f.reduce(ints, axis=1))
        np.testing.assert_array_equal(g.reduce(ints, axis=0), f.reduce(ints, axis=0))
        np.testing.assert_array_equal(g.accumulate(ints, axis=1), f.accumulate(ints, axis=1))
        np.testing.assert_array_equal(g.reduceat(ints[0], [0, 10, 30]), f.reduceat(ints[0], [0, 10, 30]))
    bools = rng.random((4, 30)) > 0.7
    np.testing.assert_array_equal(numpy_version_of("logical_or").reduce(bools, axis=1), np.logical_or.reduce(bools, axis=1))
    add = numpy_version_of("add")
    for dt in (np.float16, np.float32, np.float64):
        x = rng.random(1000).astype(dt)
        np.testing.assert_array_equal(add.accumulate(x), np.add.accumulate(x))
        magnitude = np.abs(x.astype(np.float64)).sum()  # NumPy sums pairwise, the loop's fold in its own order
        assert_reduction_close(add.reduce(x), np.add.reduce(x), np.dtype(dt).char, x.size, magnitude, f"add.reduce {dt}")
    m = rng.random((3, 4, 5))
    assert numpy_version_of("maximum").reduce(m, axis=(0, 2)).tolist() == np.maximum.reduce(m, axis=(0, 2)).tolist()


def test_np_errstate_applies():
    divide = numpy_version_of("divide")
    with np.errstate(divide="raise"), pytest.raises(FloatingPointError, match="divide by zero"):
        divide(np.ones(3), np.zeros(3))
    with np.errstate(all="ignore"):
        assert np.isinf(divide(np.ones(3), np.zeros(3))).all()
    with np.errstate(invalid="raise"), pytest.raises(FloatingPointError, match="invalid value"):
        numpy_version_of("sqrt")(np.array([-1.0]))


def test_a_ufunc_made_from_python_outlives_its_python_object():
    libm = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
    address = ctypes.cast(libm.hypot, ctypes.c_void_p).value
    f = ufunc.from_c_function(address, "dd->d", "c_hypot", owner=libm)
    g = ufunc.as_numpy_ufunc(f)
    del f, libm
    gc.collect()
    assert g.__name__ == "c_hypot" and g.types == ["dd->d"]
    np.testing.assert_array_equal(g(np.array([3.0, 5.0]), np.array([4.0, 12.0])), [5.0, 13.0])
    np.testing.assert_array_equal(g(np.float32(3), 4), 5.0)  # NumPy casts float32 into the dd->d loop
