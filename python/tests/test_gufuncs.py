"""The built-in gufuncs matmul, vecdot, matvec and vecmat on every loop against NumPy: broadcast
loop dimensions, 1-d operands of matmul, strided and transposed operands, out=, axes=/axis=/keepdims=."""

import numpy as np
import pytest

import ufunc
from numpy_oracle import COMPLEX_CODES, INT_CODES, GUFUNC_NAMES, dtype_of, loop_params, np_ufunc, quiet, ulp

LOOPS = loop_params(GUFUNC_NAMES)

# (shape of operand 1, shape of operand 2) per gufunc: broadcast loop dimensions included.
SHAPES = {
    "matmul": [((3, 4), (4, 5)), ((2, 3, 4), (4, 2)), ((2, 1, 3, 4), (5, 4, 2)), ((4,), (4, 3)), ((3, 4), (4,)),
               ((4,), (4,)), ((3, 0), (0, 2))],
    "vecdot": [((5,), (5,)), ((3, 5), (5,)), ((2, 1, 4), (3, 4)), ((3, 0), (3, 0))],
    "matvec": [((3, 4), (4,)), ((2, 3, 4), (2, 4)), ((1, 3, 4), (5, 1, 4))],
    "vecmat": [((4,), (4, 3)), ((2, 4), (2, 4, 3)), ((5, 1, 4), (1, 4, 3))],
}


def _operand(code, shape, rng):
    if code == "?":
        return rng.integers(0, 2, size=shape).astype(bool)
    if code in INT_CODES:
        info = np.iinfo(dtype_of(code))
        return rng.integers(info.min, info.max, size=shape, dtype=dtype_of(code), endpoint=True)
    x = rng.uniform(-2, 2, size=shape)
    if code in COMPLEX_CODES:
        x = x + 1j * rng.uniform(-2, 2, size=shape)
    return x.astype(dtype_of(code))


def _check(name, code, got, want, a, b, what, **kwargs):
    """Integers (wrapping) and booleans exactly; floats within (k + 2) eps sum|a||b| (NumPy's BLAS
    sums in its own order)."""
    assert isinstance(got, type(want)) or np.ndim(want) == 0, f"{what}: {type(got)} against {type(want)}"
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, f"{what}: {got.dtype}{got.shape} vs {want.dtype}{want.shape}"
    if code == "?" or code in INT_CODES:
        np.testing.assert_array_equal(got, want, err_msg=what)
        return
    k = a.shape[-1] if a.ndim else 1
    with quiet():
        bound_terms = np_ufunc(name)(np.abs(a).astype(np.float64), np.abs(b).astype(np.float64), **kwargs)
    real = {"F": "f", "D": "d"}.get(code, code)
    eps = 2 * ulp(np.float64(1.0), real)
    tol = (k + 2) * eps * np.asarray(bound_terms) * (2 if code in COMPLEX_CODES else 1)
    diff = np.abs(got.astype(np.complex128) - want.astype(np.complex128))
    assert np.all(diff <= tol + 1e-300), f"{what}: max difference {diff.max()} over bound {tol.max()}"


@pytest.mark.parametrize("name,types", LOOPS, ids=[f"{n}-{t}" for n, t in LOOPS])
def test_gufunc_against_numpy(name, types, rng):
    code = types[0]
    f, g = getattr(ufunc, name), np_ufunc(name)
    assert f.signature == g.signature
    for sa, sb in SHAPES[name]:
        a, b = _operand(code, sa, rng), _operand(code, sb, rng)
        got, want = f(a, b), g(a, b)
        _check(name, code, got, want, a, b, f"{name} {types} {sa} {sb}")

    # Transposed and strided operands.
    a = _operand(code, (6, 8), rng)[::2, ::2]  # (3, 4), strided
    b = _operand(code, (5, 4), rng).T  # (4, 5), Fortran order
    if name == "matmul":
        args = (a, b)
    elif name == "vecdot":
        args = (a, b.T[:3])
    elif name == "matvec":
        args = (a, b[:, ::-2][:, 0])
    else:
        args = (a[0], b)
    _check(name, code, f(*args), g(*args), *args, f"{name} {types} strided")

    # out=: the very object, written in place.
    a, b = _operand(code, SHAPES[name][1][0], rng), _operand(code, SHAPES[name][1][1], rng)
    want = g(a, b)
    out = np.zeros_like(want)
    assert f(a, b, out=out) is out
    _check(name, code, out, want, a, b, f"{name} {types} out=")


def test_gufunc_axes_and_keepdims(rng):
    a, b = rng.standard_normal((4, 3, 5)), rng.standard_normal((3, 5))
    # vecdot over an axis other than the last.
    for axis in (0, -1, 1):
        x, y = rng.standard_normal((3, 4, 5)), rng.standard_normal((3, 4, 5))
        np.testing.assert_allclose(ufunc.vecdot(x, y, axis=axis), np.vecdot(x, y, axis=axis), rtol=1e-13)
    np.testing.assert_allclose(ufunc.vecdot(a, b, keepdims=True), np.vecdot(a, b, keepdims=True), rtol=1e-13)
    assert ufunc.vecdot(a, b, keepdims=True).shape == (4, 3, 1)
    # matmul with its core axes elsewhere.
    x, y = rng.standard_normal((3, 2, 4)), rng.standard_normal((4, 5))
    axes = [(0, 2), (0, 1), (0, 1)]
    np.testing.assert_allclose(ufunc.matmul(x, y, axes=axes), np.matmul(x, y, axes=axes), rtol=1e-13)


def test_gufunc_methods_raise():
    """The gufuncs have no reduce, accumulate, reduceat, outer or at (NumPy: not defined for a
    signature)."""
    x = np.ones((2, 2))
    for method in ("reduce", "accumulate", "reduceat", "outer", "at"):
        with pytest.raises((ValueError, TypeError, RuntimeError)):
            getattr(ufunc.matmul, method)(x, x)
        with pytest.raises((ValueError, TypeError, RuntimeError)):
            getattr(np.matmul, method)(x, x)


def test_gufunc_reduce_raises_numpys_type():
    with pytest.raises(RuntimeError, match="signature"):
        np.matmul.reduce(np.ones((2, 2)))
    with pytest.raises(RuntimeError, match="signature"):
        ufunc.matmul.reduce(np.ones((2, 2)))


def test_gufunc_core_dimension_mismatch():
    for name, a, b in (("matmul", (2, 3), (4, 2)), ("vecdot", (3,), (4,)), ("matvec", (2, 3), (4,)),
                       ("vecmat", (3,), (4, 2))):
        with pytest.raises(ValueError, match="mismatch in its core dimension") as theirs:
            np_ufunc(name)(np.ones(a), np.ones(b))
        with pytest.raises(ValueError, match="mismatch in its core dimension") as mine:
            getattr(ufunc, name)(np.ones(a), np.ones(b))
        assert str(mine.value) == str(theirs.value)


@pytest.mark.parametrize("name", GUFUNC_NAMES)
def test_gufunc_float16_as_numpy(name, rng):
    """NumPy's float16 loops ('ee->e'): float32 products summed in float32, rounded once; equal bit for bit."""
    shapes = {"matmul": ((3, 7, 9), (9, 5)), "vecdot": ((4, 200), (200,)), "matvec": ((6, 50), (50,)),
              "vecmat": ((50,), (50, 6))}[name]
    a, b = ((rng.standard_normal(s) * 3).astype(np.float16) for s in shapes)
    got, want = getattr(ufunc, name)(a, b), np_ufunc(name)(a, b)
    assert got.dtype == want.dtype == np.float16
    np.testing.assert_array_equal(got, want)
    assert "ee->e" in getattr(ufunc, name).types


def test_gufunc_bfloat16_operands_as_numpy():
    """ml_dtypes has no matmul loop: NumPy casts bfloat16 operands to float32, as ufunc does."""
    from numpy_oracle import BFLOAT16

    a = (np.arange(6).reshape(2, 3) / 3).astype(BFLOAT16)
    b = a.T.copy()
    got, want = ufunc.matmul(a, b), np.matmul(a, b)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-6)
