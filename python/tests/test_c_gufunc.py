"""ufunc.from_c_gufunc: generalized ufuncs over C functions of NumPy's gufunc loop type (ctypes callbacks
here; a loop written for NumPy's C API or a Numba @cfunc goes the same way), against NumPy's gufuncs."""

import ctypes

import numpy as np
import pytest

import ufunc

# void loop(char** args, npy_intp* dimensions, npy_intp* steps, void* data)
LOOP = ctypes.CFUNCTYPE(None, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_int64),
                        ctypes.POINTER(ctypes.c_int64), ctypes.c_void_p)


def _get(address):
    return ctypes.c_double.from_address(address).value


def _set(address, value):
    ctypes.c_double.from_address(address).value = value


def _matvec(args, dims, steps, data):
    """(m,n),(n)->(m): dimensions {N, m, n}; steps {3 outer, a's m and n, b's n, c's m}."""
    count, m, n = dims[0], dims[1], dims[2]
    a, b, c = args[0] or 0, args[1] or 0, args[2] or 0
    for i in range(count):
        for r in range(m):
            acc = 0.0
            for k in range(n):
                acc += _get(a + i * steps[0] + r * steps[3] + k * steps[4]) * _get(b + i * steps[1] + k * steps[5])
            _set(c + i * steps[2] + r * steps[6], acc)


def _cross(args, dims, steps, data):
    """(3),(3)->(3): the frozen size is a dimension of the loop like any other (dimensions {N, 3})."""
    count = dims[0]
    assert dims[1] == 3
    for i in range(count):
        x = [_get(args[0] + i * steps[0] + k * steps[3]) for k in range(3)]
        y = [_get(args[1] + i * steps[1] + k * steps[4]) for k in range(3)]
        z = (x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2], x[0] * y[1] - x[1] * y[0])
        for k in range(3):
            _set(args[2] + i * steps[2] + k * steps[5], z[k])


MATVEC_LOOP, CROSS_LOOP = LOOP(_matvec), LOOP(_cross)


def _address(loop):
    return ctypes.cast(loop, ctypes.c_void_p).value


@pytest.fixture(scope="module")
def matvec():
    return ufunc.from_c_gufunc(_address(MATVEC_LOOP), "(m,n),(n)->(m)", "dd->d", "matvec", owner=MATVEC_LOOP)


def test_attributes(matvec):
    assert matvec.signature == "(m,n),(n)->(m)"
    assert (matvec.nin, matvec.nout, matvec.nargs, matvec.types) == (2, 1, 3, ["dd->d"])
    assert matvec.__name__ == "matvec" and "(m,n),(n)->(m)" in matvec.__doc__


def test_broadcast_strided_and_out_as_numpy(matvec, rng):
    a = rng.standard_normal((2, 1, 3, 4))
    b = rng.standard_normal((5, 4))
    np.testing.assert_allclose(matvec(a, b), np.matvec(a, b), rtol=1e-13)
    # Transposed and reversed operands are read through their strides, never copied.
    at = rng.standard_normal((4, 3)).T
    b_rev = rng.standard_normal(8)[::-2]
    np.testing.assert_allclose(matvec(at, b_rev), np.matvec(at, b_rev), rtol=1e-13)
    out = np.full((2, 5, 3), np.nan)
    assert matvec(a, b, out=out) is out
    np.testing.assert_allclose(out, np.matvec(a, b), rtol=1e-13)
    # Integer inputs are cast to the loop's float64, as NumPy's type resolution does.
    ai, bi = np.arange(12).reshape(3, 4), np.arange(4)
    r = matvec(ai, bi)
    assert r.dtype == np.float64
    np.testing.assert_array_equal(r, np.matvec(ai, bi).astype(np.float64))


def test_axes_keyword(matvec, rng):
    a = rng.standard_normal((4, 3, 2))  # the core (m, n) = (3, 4) on axes (1, 0)
    b = rng.standard_normal((2, 4))
    got = matvec(a, b, axes=[(1, 0), (1,), (0,)])
    want = np.matvec(a, b, axes=[(1, 0), (1,), (0,)])
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-13)


def test_every_host_target(matvec, rng):
    a = rng.standard_normal((300, 2, 3))
    b = rng.standard_normal(3)
    for target in set(ufunc.available_targets()) & {"cpu", "parallel"}:
        np.testing.assert_allclose(matvec(a, b, target=target), np.matvec(a, b), rtol=1e-13, err_msg=target)


def test_frozen_sizes():
    cross = ufunc.from_c_gufunc(_address(CROSS_LOOP), "(3),(3)->(3)", "dd->d", "cross", owner=CROSS_LOOP)
    x = np.random.default_rng(3).standard_normal((6, 3))
    y = np.random.default_rng(4).standard_normal(3)
    np.testing.assert_allclose(cross(x, y), np.cross(x, y), rtol=1e-13)
    with pytest.raises(ValueError, match="core dimension 0"):
        cross(np.ones(4), np.ones(3))


def test_errors_name_what_was_wrong(matvec):
    with pytest.raises(ValueError) as numpy_error:
        np.matvec(np.ones((2, 4)), np.ones(3))
    with pytest.raises(ValueError) as error:
        matvec(np.ones((2, 4)), np.ones(3))
    # NumPy's message: "matvec: Input operand 1 has a mismatch in its core dimension 0, ..."
    assert str(error.value) == str(numpy_error.value)
    with pytest.raises(ValueError, match="types 'd->d' have 1 inputs and 1 outputs; signature"):
        ufunc.from_c_gufunc(_address(MATVEC_LOOP), "(m,n),(n)->(m)", "d->d")
    with pytest.raises(ValueError, match="expect"):
        ufunc.from_c_gufunc(_address(MATVEC_LOOP), "(m,n),(n->(m)", "dd->d")
    with pytest.raises(ValueError, match="address is null"):
        ufunc.from_c_gufunc(0, "(n)->()", "d->d")
    with pytest.raises(TypeError):
        matvec(np.ones((2, 3), dtype=np.complex128), np.ones(3))  # no complex loop; complex -> float64 is unsafe
    with pytest.raises(RuntimeError, match="not defined on ufunc with signature"):
        matvec.reduce(np.ones((2, 2)))
