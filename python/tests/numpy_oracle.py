"""Helpers of the test suite: NumPy (and ml_dtypes for bfloat16) as the oracle.

Inputs are drawn per ufunc and loop (``uf.types``) inside the domains where results are defined, and
results are compared as the library's differential tests do (docs/testing.md, "What is compared"):
integers and booleans exactly, floats within an ulp bound per ufunc (NaN where NumPy has NaN,
infinities exactly), complex numbers per part in ulps of the larger part.
"""

import contextlib

import ml_dtypes
import numpy as np

import ufunc

_NUMPY_VERSION = tuple(int(v) for v in np.__version__.split(".")[:2])

BFLOAT16 = np.dtype(ml_dtypes.bfloat16)

#: The canonical built-in ufuncs (aliases left out: ufunc.abs is ufunc.absolute).
GUFUNC_NAMES = ("matmul", "matvec", "vecdot", "vecmat")
CANONICAL = sorted(n for n in ufunc.ufunc_names if getattr(ufunc, n).__name__ == n)
ELEMENTWISE = [n for n in CANONICAL if n not in GUFUNC_NAMES]

INT_CODES = "bBhHiIlL"
FLOAT_CODES = "eEfd"
COMPLEX_CODES = "FD"

# (mantissa bits, smallest normal exponent) of each float type.
_FLOAT_FORMAT = {"e": (10, -14), "E": (7, -126), "f": (23, -126), "d": (52, -1022)}
_REAL_OF = {"F": "f", "D": "d"}


def dtype_of(code):
    """The NumPy dtype of a type character of ``uf.types`` ('E': ml_dtypes' bfloat16)."""
    return BFLOAT16 if code == "E" else np.dtype(code)


def code_of(dtype):
    dtype = np.dtype(dtype)
    return "E" if dtype == BFLOAT16 else dtype.char if dtype.char not in "qQ" else {"q": "l", "Q": "L"}[dtype.char]


def split_types(t):
    """'ff->f' -> ('ff', 'f')."""
    ins, outs = t.split("->")
    return ins, outs


def np_ufunc(name):
    """NumPy's ufunc of this name, or None where NumPy has none."""
    f = getattr(np, name, None)
    return f if isinstance(f, np.ufunc) else None


@contextlib.contextmanager
def quiet():
    """Both sides' floating-point errors ignored (the comparisons look at values)."""
    with np.errstate(all="ignore"), ufunc.errstate(all="ignore"):
        yield


# ---------------------------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------------------------

# Integer ufuncs whose results wrap: the whole range of the type is drawn.
_WRAPPING = {
    "add", "subtract", "multiply", "negative", "positive", "square", "absolute", "sign",
    "bitwise_and", "bitwise_or", "bitwise_xor", "invert", "bitwise_count", "maximum", "minimum",
    "fmax", "fmin", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "logical_and", "logical_or", "logical_xor", "logical_not", "isnan", "isinf", "isfinite",
    "conjugate", "floor", "ceil", "trunc",
}
_DIVISIONS = {"floor_divide", "remainder", "fmod", "divmod", "reciprocal"}


def _ints(rng, dtype, shape, lo, hi):
    info = np.iinfo(dtype)
    return rng.integers(max(lo, int(info.min)), min(hi, int(info.max)), size=shape, dtype=dtype, endpoint=True)


def _floats(rng, code, shape, lo, hi):
    x = rng.uniform(lo, hi, size=shape)
    if code in COMPLEX_CODES:
        x = x + 1j * rng.uniform(lo, hi, size=shape)
    return x.astype(dtype_of(code))


def make_input(name, position, code, shape, rng, nin=1):
    """A random operand `position` of ufunc `name` for a loop whose input there is `code`."""
    dtype = dtype_of(code)
    if code == "?":
        return rng.integers(0, 2, size=shape).astype(bool)
    if code in INT_CODES:
        info = np.iinfo(dtype)
        if name in ("left_shift", "right_shift") and position == 1:
            return _ints(rng, dtype, shape, 0, info.bits - 1)
        if name in ("left_shift", "right_shift"):
            return _ints(rng, dtype, shape, -1000, 1000)
        if name == "ldexp":
            return _ints(rng, dtype, shape, -12, 12)
        if name == "power":
            return _ints(rng, dtype, shape, 0, 5) if position == 1 else _ints(rng, dtype, shape, -4, 6)
        if name in _DIVISIONS:
            x = _ints(rng, dtype, shape, -120, 120)
            if position == 1 or name == "reciprocal":
                x[x == 0] = 1
                if info.min < 0:
                    x[x == -1] = 3  # int_min // -1 overflows (a NumPy warning, not a value to compare)
            return x
        if name in ("gcd", "lcm"):
            return _ints(rng, dtype, shape, -60, 60)
        if name in _WRAPPING:
            return _ints(rng, dtype, shape, info.min, info.max)
        return _ints(rng, dtype, shape, -100, 100)
    # Floats and complex numbers.
    if code in COMPLEX_CODES:
        if name in ("power", "float_power") and position == 1:
            return _floats(rng, code, shape, -2, 2)
        return _floats(rng, code, shape, -3, 3)
    if name in ("arccos", "arcsin", "arctanh"):
        return _floats(rng, code, shape, -1.1, 1.1)
    if name == "arccosh":
        return _floats(rng, code, shape, 0.8, 10)
    if name in ("log", "log2", "log10", "sqrt"):
        return _floats(rng, code, shape, -0.5, 20)
    if name == "log1p":
        return _floats(rng, code, shape, -1.2, 20)
    if name in ("power", "float_power"):
        return _floats(rng, code, shape, -3, 3) if position == 1 else _floats(rng, code, shape, -2, 5)
    if name in ("exp", "exp2", "expm1", "sinh", "cosh"):
        return _floats(rng, code, shape, -9, 9)
    if name in ("rint", "floor", "ceil", "trunc", "floor_divide", "remainder", "fmod", "divmod", "modf"):
        # Halves (rint's ties) and whole numbers among the others.
        x = rng.uniform(-20, 20, size=shape)
        k = rng.integers(0, 3, size=shape)
        x = np.where(k == 0, np.round(x * 2) / 2, np.where(k == 1, np.round(x), x))
        if position == 1:
            x[np.abs(x) < 0.25] = 1.5
        return x.astype(dtype)
    if name == "heaviside" and position == 0:
        x = _floats(rng, code, shape, -3, 3)
        x.flat[::3] = 0
        return x
    if name == "ldexp":
        return _floats(rng, code, shape, -10, 10)
    return _floats(rng, code, shape, -10, 10)


def make_inputs(name, ins, shapes, rng):
    return [make_input(name, i, c, s, rng, len(ins)) for i, (c, s) in enumerate(zip(ins, shapes))]


def fill_value_array(code, shape, rng):
    """An output array of `code` filled with values that no loop writes by chance."""
    dtype = dtype_of(code)
    if code == "?":
        return rng.integers(0, 2, size=shape).astype(bool)
    if code in INT_CODES:
        return _ints(rng, dtype, shape, -77, 77)
    return np.full(shape, -77.25 if code not in COMPLEX_CODES else -77.25 + 3j).astype(dtype)


# ---------------------------------------------------------------------------------------------
# Comparison
# ---------------------------------------------------------------------------------------------

EXACT = {
    "add", "subtract", "negative", "positive", "conjugate", "absolute", "fabs", "sign", "floor",
    "ceil", "trunc", "rint", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_and", "bitwise_or",
    "bitwise_xor", "invert", "left_shift", "right_shift", "bitwise_count", "maximum", "minimum",
    "fmax", "fmin", "copysign", "nextafter", "spacing", "ldexp", "frexp", "modf", "floor_divide",
    "remainder", "fmod", "divmod", "heaviside", "gcd", "lcm", "isnan", "isinf", "isfinite",
    "signbit", "multiply", "square", "divide", "reciprocal", "sqrt",
}
ONE_ULP = {"deg2rad", "rad2deg", "radians", "degrees"}
COMPLEX_ULPS = {"multiply": 2, "square": 2, "divide": 4, "reciprocal": 4, "sqrt": 4, "absolute": 4, "sign": 4}
# Which of two equal zeros comes back is unspecified.
ZERO_SIGN_FREE = {"maximum", "minimum", "fmax", "fmin"}


def zero_sign_compared(name, code):
    """Whether the sign of a zero result is compared. Not for maximum/minimum/fmax/fmin, nor for
    float16 nextafter against a NumPy before 2.5: its nextafter(x, y) of float16 returned x where
    x == y (numpy#31472); 2.5's returns y, as C's nextafter and the library do."""
    old_half_nextafter = name == "nextafter" and code == "e" and _NUMPY_VERSION < (2, 5)
    return name not in ZERO_SIGN_FREE and not old_half_nextafter


def ulps_for(name, complex_inputs):
    """The ulp bound of ufunc `name`'s float results (docs/testing.md, "What is compared")."""
    if complex_inputs:
        if name in COMPLEX_ULPS:
            return COMPLEX_ULPS[name]
        if name in EXACT:
            return 0
        return 1 if name in ONE_ULP else 4
    if name in EXACT:
        return 0
    return 1 if name in ONE_ULP else 4


def ulp(x, code):
    """One unit in the last place of float values `x` (float64) in the format of type `code`."""
    bits, emin = _FLOAT_FORMAT[code]
    ax = np.abs(x)
    _, e = np.frexp(ax)
    exponent = np.where(ax == 0, emin, e - 1)
    return np.ldexp(1.0, np.maximum(exponent, emin) - bits)


def _as_float64(a):
    a = np.asarray(a)
    if a.dtype == BFLOAT16 or a.dtype == np.float16:
        return a.astype(np.float32).astype(np.float64)
    return a.astype(np.float64)


def _compare_real(got, want, code, ulps, zero_sign, what):
    with np.errstate(invalid="ignore"):
        _compare_real_values(got, want, code, ulps, zero_sign, what)


def _compare_real_values(got, want, code, ulps, zero_sign, what):
    g = _as_float64(got)
    w = _as_float64(want)
    nan_g, nan_w = np.isnan(g), np.isnan(w)
    bad = nan_g != nan_w
    inf_w = np.isinf(w)
    bad |= inf_w & (g != w)
    bad |= np.isinf(g) & ~inf_w & ~nan_w
    finite = ~nan_w & ~inf_w & ~nan_g & ~np.isinf(g)
    if ulps == 0:
        bad |= finite & (g != w)
        if zero_sign:
            bad |= finite & (w == 0) & (np.signbit(g) != np.signbit(w))
    else:
        bound = ulps * ulp(w, code)
        bad |= finite & ~(np.abs(g - w) <= bound)
    if bad.any():
        idx = np.argwhere(bad)[:5]
        rows = [f"  at {tuple(int(v) for v in i)}: got {g[tuple(i)]!r}, NumPy {w[tuple(i)]!r}" for i in idx]
        raise AssertionError(
            f"{what}: {int(bad.sum())} of {bad.size} elements differ from NumPy by more than {ulps} ulp(s)\n"
            + "\n".join(rows)
        )


def _compare_complex(got, want, code, ulps, what):
    with np.errstate(invalid="ignore"):
        _compare_complex_values(got, want, code, ulps, what)


def _compare_complex_values(got, want, code, ulps, what):
    g = np.asarray(got).astype(np.complex128)
    w = np.asarray(want).astype(np.complex128)
    real = _REAL_OF[code]
    scale = np.maximum(np.abs(w.real), np.abs(w.imag))
    scale = np.where(np.isfinite(scale), scale, 0.0)
    bound = ulps * ulp(scale, real)
    for part, gp, wp in (("real", g.real, w.real), ("imag", g.imag, w.imag)):
        nan_g, nan_w = np.isnan(gp), np.isnan(wp)
        bad = nan_g != nan_w
        inf_w = np.isinf(wp)
        bad |= inf_w & (gp != wp)
        bad |= np.isinf(gp) & ~inf_w & ~nan_w
        finite = ~nan_w & ~inf_w & ~nan_g & ~np.isinf(gp)
        if ulps == 0:
            bad |= finite & (gp != wp)
        else:
            bad |= finite & ~(np.abs(gp - wp) <= bound)
        if bad.any():
            idx = np.argwhere(bad)[:5]
            rows = [f"  at {tuple(int(v) for v in i)}: got {g[tuple(i)]!r}, NumPy {w[tuple(i)]!r}" for i in idx]
            raise AssertionError(
                f"{what} ({part} parts): {int(bad.sum())} of {bad.size} elements differ from NumPy by more "
                f"than {ulps} ulp(s)\n" + "\n".join(rows)
            )


def assert_same(got, want, name, *, ulps=None, complex_inputs=False, what=None, check_dtype=True):
    """`got` (the library's result: an array, a scalar or a tuple of them) equals NumPy's `want`:
    the same type of object, dtype and shape; integers and booleans exactly, floats within the ulp
    bound of ufunc `name`."""
    what = what or name
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), f"{what}: got {type(got)}, NumPy a tuple"
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same(g, w, name, ulps=ulps, complex_inputs=complex_inputs, what=f"{what}[{i}]",
                        check_dtype=check_dtype)
        return
    if isinstance(want, np.ndarray):
        assert isinstance(got, np.ndarray), f"{what}: got {type(got).__name__}, NumPy an ndarray"
    else:
        assert not isinstance(got, np.ndarray) or got.ndim == 0, f"{what}: got an array, NumPy a scalar"
    got_a, want_a = np.asarray(got), np.asarray(want)
    if check_dtype:
        assert got_a.dtype == want_a.dtype, f"{what}: dtype {got_a.dtype}, NumPy {want_a.dtype}"
    assert got_a.shape == want_a.shape, f"{what}: shape {got_a.shape}, NumPy {want_a.shape}"
    code = code_of(want_a.dtype)
    if code == "?" or code in INT_CODES:
        if not np.array_equal(got_a, want_a):
            bad = np.argwhere(got_a != want_a)[:5]
            rows = [f"  at {tuple(int(v) for v in i)}: got {got_a[tuple(i)]!r}, NumPy {want_a[tuple(i)]!r}"
                    for i in bad]
            raise AssertionError(f"{what}: integer results differ from NumPy\n" + "\n".join(rows))
        return
    bound = ulps_for(name, complex_inputs) if ulps is None else ulps
    if code in COMPLEX_CODES:
        _compare_complex(got_a, want_a, code, bound, what)
    else:
        _compare_real(got_a, want_a, code, bound, zero_sign_compared(name, code), what)


def assert_reduction_close(got, want, code, n, absolute, what):
    """A float reduction of `n` elements per result: NumPy sums pairwise, the library in its own order,
    so each result may differ by (n + 2) eps sum|x| (`absolute`, per result)."""
    got_a, want_a = np.asarray(got), np.asarray(want)
    assert got_a.dtype == want_a.dtype, f"{what}: dtype {got_a.dtype}, NumPy {want_a.dtype}"
    assert got_a.shape == want_a.shape, f"{what}: shape {got_a.shape}, NumPy {want_a.shape}"
    if code in COMPLEX_CODES:
        real = _REAL_OF[code]
        eps = ulp(np.float64(1.0), real) * 2
        g, w = got_a.astype(np.complex128), want_a.astype(np.complex128)
        tol = (n + 2) * eps * np.asarray(absolute, dtype=np.float64) + ulp(np.abs(w), real)
        assert np.all(np.abs(g.real - w.real) <= tol) and np.all(np.abs(g.imag - w.imag) <= tol), (
            f"{what}: got {g}, NumPy {w}")
        return
    eps = ulp(np.float64(1.0), code) * 2
    g, w = _as_float64(got_a), _as_float64(want_a)
    np.testing.assert_array_equal(np.isnan(g), np.isnan(w), err_msg=what)
    ok = np.isnan(w) | (g == w) | (np.abs(g - w) <= (n + 2) * eps * np.asarray(absolute, np.float64) + ulp(w, code))
    assert ok.all(), f"{what}: got {g[~ok][:5]}, NumPy {w[~ok][:5]}"


def loops(name, *, want=None):
    """The loops (type strings) of built-in `name`, optionally filtered by a predicate on (ins, outs)."""
    types = getattr(ufunc, name).types
    if want is None:
        return list(types)
    return [t for t in types if want(*split_types(t))]


def loop_params(names, want=None):
    """pytest parameters (name, type string) for every loop of the ufuncs `names`."""
    return [(n, t) for n in names for t in loops(n, want=want)]


def data_pointer(a):
    return a.__array_interface__["data"][0]
