"""The dense path of a call (python/src/dense_call.cpp): f(a, b) and f(a, b, out=c) on small C-contiguous
NumPy arrays of one shape, with Python floats beside them, skip the general machinery. Every loop's result
must be the general path's bit for bit (the same call with a keyword, which takes the general path), and
its errors, warnings, overlaps and casts must be the general path's and NumPy's."""

import warnings

import numpy as np
import pytest

import ufunc
from numpy_oracle import ELEMENTWISE, dtype_of, loop_params, make_inputs, np_ufunc, quiet, split_types

SINGLE_OUTPUT = [(n, t) for n, t in loop_params(ELEMENTWISE) if len(split_types(t)[1]) == 1 and len(split_types(t)[0]) <= 3]


def _same_bits(a, b):
    assert type(a) is type(b) is np.ndarray
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.tobytes() == b.tobytes()


@pytest.mark.parametrize("name,types", SINGLE_OUTPUT, ids=[f"{n}-{t}" for n, t in SINGLE_OUTPUT])
def test_dense_equals_general(name, types, rng):
    f = getattr(ufunc, name)
    ins, outs = split_types(types)
    xs = make_inputs(name, ins, [(3, 41)] * len(ins), rng)
    with quiet():
        dense = f(*xs)
        general = f(*xs, casting="same_kind")  # any keyword but out=: the general path
        out = np.empty_like(general)
        assert f(*xs, out=out) is out
    _same_bits(dense, general)
    _same_bits(out, general)
    # The dense path ran (NumPy allocated its result); the general one wrote the library's buffer.
    assert dense.base is None and type(general.base).__name__ == "PyCapsule"
    if len(ins) == 2 and ins[0] == ins[1] and ins[0] in "efdE" and outs == ins[0]:
        with quiet():
            _same_bits(f(xs[0], 0.75), f(xs[0], 0.75, casting="same_kind"))
            _same_bits(f(1.5, xs[1]), f(1.5, xs[1], casting="same_kind"))


def test_python_floats_are_weak():
    for dt in (np.float16, np.float32, np.float64, dtype_of("E")):
        x = np.linspace(-2, 2, 9).astype(dt)
        r, want = ufunc.multiply(x, 0.1), np.multiply(x, 0.1)
        # The array's dtype; bfloat16 with a Python float is float32 (ml_dtypes' promotion).
        assert r.dtype == want.dtype == (np.float32 if dt == dtype_of("E") else dt)
        np.testing.assert_array_equal(r, want)
    # Beside integer or bool arrays a float promotes (the general path's casts), as NumPy.
    for x in (np.arange(5, dtype=np.int32), np.ones(5, bool)):
        r = ufunc.add(x, 0.5)
        assert r.dtype == np.add(x, 0.5).dtype
        np.testing.assert_array_equal(r, np.add(x, 0.5))
    # Alone, a float is cast as an array would be.
    assert ufunc.sin(0.5) == np.sin(0.5)


def test_errstate_in_dense_calls():
    x = np.array([1.0, 0.0, -1.0], np.float32)
    with ufunc.errstate(divide="raise"):
        with pytest.raises(FloatingPointError, match="divide by zero"):
            ufunc.divide(x, np.zeros(3, np.float32))
    with ufunc.errstate(all="warn"), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = ufunc.divide(x, np.zeros(3, np.float32))
    assert [str(w.message) for w in caught] == ["divide by zero encountered in divide", "invalid value encountered in divide"]
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(r, np.divide(x, np.zeros(3, np.float32)))
    # A Python float that overflows the array's dtype: NumPy's "overflow encountered in cast", the result inf.
    with ufunc.errstate(over="warn"), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = ufunc.add(np.ones(4, np.float32), 1e300)
    assert [str(w.message) for w in caught] == ["overflow encountered in cast"]
    assert np.isinf(r).all() and r.dtype == np.float32
    with ufunc.errstate(over="raise"), pytest.raises(FloatingPointError, match="overflow encountered in cast"):
        ufunc.add(np.ones(4, np.float32), 1e300)


def test_outputs_in_dense_calls():
    x = np.arange(8.0)
    y = np.arange(8.0)
    assert ufunc.multiply(x, 2.0, out=x) is x  # in place
    np.testing.assert_array_equal(x, 2 * y)
    assert ufunc.add(x, y, out=None).base is None  # out=None: a new array
    # out= of another dtype: cast as NumPy casts it (same_kind), or refused.
    out32 = np.empty(8, np.float32)
    np.testing.assert_array_equal(ufunc.add(x, y, out=out32), np.add(x, y, out=np.empty(8, np.float32)))
    with pytest.raises(TypeError):
        ufunc.add(x, y, out=np.empty(8, np.int32))
    # Partial overlap, a read-only out=, a strided out=: the general path's answers.
    buf = np.arange(9.0)
    with pytest.raises(ValueError, match="overlap"):
        ufunc.add(buf[:8], buf[:8], out=buf[1:])
    ro = np.empty(8)
    ro.setflags(write=False)
    with pytest.raises(ValueError, match="read-only"):
        ufunc.add(x, y, out=ro)
    wide = np.zeros(16)
    ufunc.add(x, y, out=wide[::2])
    np.testing.assert_array_equal(wide[::2], x + y)
    # An out= at an input's address with another item size (the general path's case): NumPy's answer.
    a, b = np.linspace(-1, 1, 8), np.linspace(1, -1, 8)
    want = np.greater(a, b)
    assert ufunc.greater(a, b, out=a.view(np.bool_)[:8]) is not None
    np.testing.assert_array_equal(a.view(np.bool_)[:8], want)
    z = np.arange(4)
    with pytest.raises(ValueError, match="overlap"):
        ufunc.negative(z[1:], out=z[:3])


def test_other_operands_take_the_general_path():
    class sub(np.ndarray):
        pass

    x = np.arange(6.0)
    s = x.view(sub)
    np.testing.assert_array_equal(ufunc.add(s, x), x + x)
    swapped = x.astype(x.dtype.newbyteorder())
    np.testing.assert_array_equal(ufunc.add(swapped, x), x + x)
    np.testing.assert_array_equal(ufunc.add(x.reshape(2, 3), x[:3]), x.reshape(2, 3) + x[:3])  # broadcast
    assert ufunc.add(np.float64(1.0), np.float64(2.0)) == 3.0  # 0-d: a NumPy scalar
    assert ufunc.add(np.ones(0), np.ones(0)).shape == (0,)
    big = np.ones(1 << 14)
    np.testing.assert_array_equal(ufunc.add(big, big), 2 * big)


def test_dense_calls_follow_the_default_target():
    x = np.linspace(0, 1, 100)
    before = ufunc.get_target()
    try:
        ufunc.set_target("parallel" if "parallel" in ufunc.available_targets() else "cpu")
        np.testing.assert_array_equal(ufunc.sin(x), np.sin(x))
    finally:
        ufunc.set_target(before)
