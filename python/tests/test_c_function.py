"""ufunc.from_c_function: ufuncs over C functions of scalars (libm's through ctypes here; a Numba
@cfunc goes the same way through ufunc.from_cfunc), against NumPy's own ufuncs."""

import ctypes
import ctypes.util

import numpy as np
import pytest

import ufunc

LIBM = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")


def address(name):
    return ctypes.cast(getattr(LIBM, name), ctypes.c_void_p).value


def test_binary_float64_broadcasts_as_numpy():
    hypot = ufunc.from_c_function(address("hypot"), "float64(float64, float64)", "hypot", owner=LIBM)
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal(7), rng.standard_normal((3, 1))
    np.testing.assert_array_equal(hypot(x, y), np.hypot(x, y))
    assert hypot.types == ["dd->d"] and hypot.nin == 2 and hypot.__name__ == "hypot"
    out = np.empty((3, 7))
    assert hypot(x, y, out=out) is out
    np.testing.assert_array_equal(out, np.hypot(x, y))


def test_float32_unary_and_numpy_signature_form():
    sinf = ufunc.from_c_function(address("sinf"), "f->f", "sinf", owner=LIBM)
    x = np.linspace(-3, 3, 101, dtype=np.float32)
    r = sinf(x)
    assert r.dtype == np.float32
    np.testing.assert_allclose(r, np.sin(x), rtol=4 * np.finfo(np.float32).eps, atol=1e-7)


def test_casting_and_weak_scalars_follow_the_loop():
    atan2 = ufunc.from_c_function(address("atan2"), "float64(float64, float64)", "atan2", owner=LIBM)
    ints = np.arange(1, 6)
    np.testing.assert_array_equal(atan2(ints, 2), np.arctan2(ints.astype(np.float64), 2.0))
    with pytest.raises(TypeError):
        atan2(ints.astype(np.complex128), 1.0)


def test_methods_and_identity():
    fmax = ufunc.from_c_function(address("fmax"), "float64(float64, float64)", "fmax", owner=LIBM)
    a = np.random.default_rng(2).standard_normal((4, 5))
    np.testing.assert_array_equal(fmax.reduce(a, axis=1), np.fmax.reduce(a, axis=1))
    np.testing.assert_array_equal(fmax.accumulate(a), np.fmax.accumulate(a))
    np.testing.assert_array_equal(fmax.outer(a[0], a[1]), np.fmax.outer(a[0], a[1]))
    with pytest.raises(ValueError):
        fmax.reduce(np.empty((0,)))  # no identity given: an empty reduction has no value
    copysign = ufunc.from_c_function(address("copysign"), "dd->d", "copysign", identity=1.0, owner=LIBM)
    assert copysign.identity == 1.0


def test_parallel_target():
    hypot = ufunc.from_c_function(address("hypot"), "float64(float64, float64)", "hypot", owner=LIBM)
    x = np.random.default_rng(3).standard_normal(1 << 16)
    if "parallel" in ufunc.available_targets():
        np.testing.assert_array_equal(hypot(x, x[::-1], target="parallel"), np.hypot(x, x[::-1]))
    else:
        with pytest.raises(ufunc.TargetError):
            hypot(x, x, target="parallel")


def test_bad_signatures_and_addresses():
    with pytest.raises(ValueError, match="not supported"):
        ufunc.from_c_function(address("hypot"), "float64(float32, float64)")
    with pytest.raises(ValueError, match="null"):
        ufunc.from_c_function(0, "float64(float64)")
    with pytest.raises(ValueError, match="signature"):
        ufunc.from_c_function(address("hypot"), "float64 float64")
    with pytest.raises(TypeError):
        ufunc.from_c_function(address("hypot"), "float64(notatype)")


def test_signature_parser_fuzz():
    """Random signature strings (pieces of valid ones, junk, unbalanced brackets): the parser raises ValueError
    or TypeError naming the problem, or accepts a supported signature; never anything else, never a crash. The
    loop is never run, so the function's real signature does not matter."""
    import random

    rnd = random.Random(20261127)
    pieces = ["float64", "float32", "int32", "int64", "bool", "boolean", "f", "d", "->", "(", ")", ",", " ", "x",
              "complex128", "uint8", "", "((", "))", ",,", "float64(", "ff->f", "dd", "-", ">", "\x00", "é"]
    accepted = 0
    for _ in range(3000):
        text = "".join(rnd.choice(pieces) for _ in range(rnd.randint(0, 8)))
        try:
            f = ufunc.from_c_function(address("hypot"), text, "fuzz", owner=LIBM)
        except (ValueError, TypeError) as e:
            assert str(e)
        else:
            accepted += 1
            assert f.nout == 1 and 1 <= f.nin <= 3
    assert accepted > 0
