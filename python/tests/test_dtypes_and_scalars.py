"""Type resolution as NumPy's: result dtypes of every pair of operand dtypes, NEP 50 weak Python
scalars, NumPy scalars, 0-d results as NumPy scalars, dtype=, signature=, casting=, order=, and
operands NumPy converts (lists, byte-swapped and unaligned arrays)."""

import warnings

import numpy as np
import pytest

import ufunc
from numpy_oracle import BFLOAT16, ELEMENTWISE, assert_same, dtype_of, np_ufunc, quiet

CODES = "?bBhHiIlLeEfdFD"


def _outcome(f, args, **kwargs):
    """What a call gives: the result types and dtypes, or the kind of exception (TypeError
    subclasses, such as NumPy's UFuncTypeError and ufunc's UFuncNoLoopError, as TypeError)."""
    try:
        with quiet():
            r = f(*args, **kwargs)
    except TypeError:
        return "TypeError", None
    except (OverflowError, ValueError) as e:
        return type(e).__name__, None
    rs = r if isinstance(r, tuple) else (r,)
    return tuple((type(x).__name__, np.asarray(x).dtype) for x in rs), r


@pytest.mark.parametrize("name", ELEMENTWISE)
def test_result_dtypes_of_every_operand_pair(name):
    """Every operand dtype (every pair for binary ufuncs, bfloat16 included): the same result dtypes
    as NumPy, or a TypeError where NumPy has no loop."""
    f, g = getattr(ufunc, name), np_ufunc(name)
    arrays = {c: np.array([1, 0, 1], dtype=dtype_of(c)) for c in CODES}
    combos = [(c,) for c in CODES] if f.nin == 1 else [(a, b) for a in CODES for b in CODES]
    differ = []
    for combo in combos:
        args = [arrays[c] for c in combo]
        (mine, r), (theirs, w) = _outcome(f, args), _outcome(g, args)
        if mine != theirs:
            differ.append(f"{''.join(combo)}: ufunc {mine}, NumPy {theirs}")
        elif r is not None:
            assert_same(r, w, name, complex_inputs=any(c in "FD" for c in combo), what=f"{name} {combo}")
    assert not differ, "\n".join(differ)


# Python scalars within int64 (larger ones: test_python_ints_beyond_int64) and NumPy scalars.
SCALARS = [True, False, 0, 1, -1, 2, 127, 128, 255, 256, 300, -129, 70000, 2**31, 2**40, -(2**62), 1.5, -0.0,
           1e300, float("nan"), float("inf"), 1j, 2.5 - 1j, np.float64(2.0), np.float32(1.5), np.int8(3),
           np.uint64(7), np.bool_(True), np.complex64(1j)]


@pytest.mark.parametrize("name", [n for n in ELEMENTWISE if getattr(ufunc, n).nin == 2])
def test_weak_python_scalars(name):
    """NEP 50: a Python scalar takes the array's dtype where its kind allows (uint8 + 1 -> uint8,
    float32 + 1.0 -> float32), OverflowError where an int does not fit; NumPy scalars are strong.
    Results' dtypes, types (NumPy scalars for scalar operands) and values as NumPy's."""
    f, g = getattr(ufunc, name), np_ufunc(name)
    differ = []
    for code in CODES:
        a = np.array([1, 2, 0], dtype=dtype_of(code))
        for s in SCALARS:
            for args in ((a, s), (s, a), (a[1], s), (s, a[0])):
                (mine, r), (theirs, w) = _outcome(f, args), _outcome(g, args)
                if mine != theirs:
                    differ.append(f"{code} {args[0]!r}, {args[1]!r}: ufunc {mine}, NumPy {theirs}")
                elif r is not None:
                    assert_same(r, w, name, complex_inputs=True, what=f"{name}{args!r}")
    for s in SCALARS:
        for t in SCALARS[::3]:
            (mine, r), (theirs, w) = _outcome(f, (s, t)), _outcome(g, (s, t))
            if mine != theirs:
                differ.append(f"{s!r}, {t!r}: ufunc {mine}, NumPy {theirs}")
    assert not differ, f"{len(differ)} calls differ:\n" + "\n".join(differ[:20])


def test_nep50_examples():
    assert ufunc.add(np.arange(3, dtype=np.uint8), 1).dtype == np.uint8
    assert ufunc.add(np.arange(3, dtype=np.float32), 1.0).dtype == np.float32
    assert ufunc.multiply(np.arange(3, dtype=np.float16), 2).dtype == np.float16
    assert ufunc.add(np.arange(3, dtype=np.int8), 1.5).dtype == np.float64
    assert ufunc.add(np.arange(3, dtype=np.float32), 1j).dtype == np.complex64
    assert ufunc.add(np.arange(3, dtype=np.float32), np.float64(1)).dtype == np.float64  # strong
    assert ufunc.add(np.arange(3, dtype=BFLOAT16), 1).dtype == BFLOAT16
    # ml_dtypes' bfloat16 with a Python float: NumPy promotes to float32 (ml_dtypes registers no weak
    # float promotion), and so does ufunc.
    assert ufunc.add(np.arange(3, dtype=BFLOAT16), 1.0).dtype == np.add(np.arange(3, dtype=BFLOAT16), 1.0).dtype
    np.testing.assert_array_equal(ufunc.add(np.array([250], dtype=np.uint8), 10), np.array([4], dtype=np.uint8))
    for array, value in ((np.arange(3, dtype=np.int8), 300), (np.arange(3, dtype=np.uint8), -1),
                         (np.arange(3, dtype=np.int16), 2**15), (np.arange(3, dtype=np.uint32), 2**32)):
        with pytest.raises(OverflowError, match="out of bounds") as theirs:
            np.add(array, value)
        with pytest.raises(OverflowError, match="out of bounds") as mine:
            ufunc.add(array, value)
        assert str(theirs.value) in str(mine.value)
    # A float too large for float32 becomes inf, with NumPy's warning for the cast.
    with pytest.warns(RuntimeWarning, match="overflow"):
        r = ufunc.add(np.ones(2, dtype=np.float32), 1e300)
    assert r.dtype == np.float32 and np.isinf(r).all()


def test_scalar_results_are_numpy_scalars():
    for args in ((1, 2), (1.5, 2), (np.float32(1), 2.0), (np.int8(1), 1), (True, False), (1j, 1)):
        mine, theirs = ufunc.add(*args), np.add(*args)
        assert type(mine) is type(theirs), args
        assert mine == theirs
    assert type(ufunc.sin(0.5)) is np.float64
    assert type(ufunc.sin(np.float32(0.5))) is np.float32
    assert type(ufunc.sin(np.array(0.5, dtype=np.float32))) is np.float32
    assert isinstance(ufunc.sin(np.array([0.5])), np.ndarray)
    assert type(ufunc.add(np.array(1), np.array(2))) is np.int64
    r = ufunc.divmod(7, 2)
    assert r == (3, 1) and all(type(x) is np.int64 for x in r)
    # out= given: the array itself, also 0-d.
    out = np.zeros(())
    assert ufunc.add(1.0, 2.0, out=out) is out and out == 3.0


@pytest.mark.parametrize("operand", [[1, 2, 3], (1.5, -2.0), [[1, 2], [3, 4]], [True, False], [1j, 2], 7, [],
                                     np.float32(2.5)])
def test_sequences_and_scalars_as_numpy_converts_them(operand):
    for name in ("negative", "sqrt", "absolute"):
        (mine, r), (theirs, w) = _outcome(getattr(ufunc, name), (operand,)), _outcome(np_ufunc(name), (operand,))
        assert mine == theirs, (name, operand)
        if r is not None:
            assert_same(r, w, name, complex_inputs=True)
    (mine, r), (theirs, w) = _outcome(ufunc.add, (operand, np.float32(1))), _outcome(np.add, (operand, np.float32(1)))
    assert mine == theirs
    if r is not None:
        assert_same(r, w, "add")


DTYPE_CASES = [
    ("add", (np.arange(4, dtype=np.int8), np.int8(3)), np.float32),
    ("add", (np.arange(4, dtype=np.int8), 3), np.int64),
    ("add", (np.arange(4.0), 1.5), np.float32),
    ("multiply", (np.arange(4, dtype=np.uint8), 100), np.uint16),
    ("sin", (np.arange(4),), np.float32),
    ("sqrt", (np.arange(4, dtype=np.int16),), np.float16),
    ("sqrt", (np.arange(4.0),), np.complex128),
    ("exp", (np.arange(4, dtype=np.float32),), np.float64),
    ("divide", (np.arange(4), 3), np.float32),
    ("less", (np.arange(4), 2.5), np.float64),
    ("negative", (np.arange(4, dtype=np.uint8),), np.int16),
    ("absolute", (np.array([3 + 4j]),), np.float64),
    ("maximum", (np.arange(4, dtype=np.float16), np.float16(1)), BFLOAT16),
    ("add", (np.arange(4, dtype=BFLOAT16), 1), np.float32),
]


@pytest.mark.parametrize("name,args,dtype", DTYPE_CASES, ids=[f"{c[0]}-{np.dtype(c[2])}" for c in DTYPE_CASES])
def test_dtype_keyword(name, args, dtype):
    (mine, r), (theirs, w) = (_outcome(getattr(ufunc, name), args, dtype=dtype),
                              _outcome(np_ufunc(name), args, dtype=dtype))
    assert mine == theirs
    if r is not None:
        assert_same(r, w, name, complex_inputs=True)


SIGNATURES = [
    ("add", (np.arange(4, dtype=np.int8), np.arange(4, dtype=np.int8)), "ll->l"),
    ("add", (np.arange(4, dtype=np.int8), np.arange(4, dtype=np.int8)), "dd->d"),
    ("add", (np.arange(4, dtype=np.int8), 3), ("f4", "f4", "f4")),
    ("add", (np.arange(4, dtype=np.int8), 3), (None, None, "f8")),
    ("multiply", (np.arange(4.0), 2), "ff->f"),
    ("sin", (np.arange(4),), "f->f"),
    ("ldexp", (np.arange(4.0), np.arange(4, dtype=np.int8)), "dl->d"),
    ("divmod", (np.arange(4), 3), "dd->dd"),
]


@pytest.mark.parametrize("name,args,signature", SIGNATURES, ids=[f"{c[0]}-{c[2]}" for c in SIGNATURES])
def test_signature_keyword(name, args, signature):
    (mine, r), (theirs, w) = (_outcome(getattr(ufunc, name), args, signature=signature),
                              _outcome(np_ufunc(name), args, signature=signature))
    assert mine == theirs
    if r is not None:
        assert_same(r, w, name)


def test_casting_keyword():
    a = np.arange(5.0)
    for casting in ("no", "equiv", "safe", "same_kind", "unsafe"):
        for args, kwargs in (((a, 1), {"out": np.empty(5, dtype=np.int64)}),
                             ((a, 1), {"out": np.empty(5, dtype=np.float32)}),
                             ((a.astype(np.float32), 1.0), {"out": np.empty(5)}),
                             ((a, 1), {"dtype": np.float32}),
                             ((np.arange(5, dtype=np.int16), 1), {"out": np.empty(5, dtype=np.int8)})):
            mine = _outcome(ufunc.add, args, casting=casting, **{k: v.copy() if isinstance(v, np.ndarray) else v
                                                                 for k, v in kwargs.items()})
            theirs = _outcome(np.add, args, casting=casting, **{k: v.copy() if isinstance(v, np.ndarray) else v
                                                                for k, v in kwargs.items()})
            assert mine[0] == theirs[0], (casting, kwargs)
            if mine[1] is not None:
                np.testing.assert_array_equal(mine[1], theirs[1])
    with pytest.raises(TypeError, match="Cannot cast ufunc 'add' output") as e:
        ufunc.add(a, 1, out=np.empty(5, dtype=np.int64))
    assert isinstance(e.value, ufunc.UFuncCastingError)
    assert "same_kind" in str(e.value)
    # unsafe: NumPy's cast of the float results into the integer out.
    out = np.empty(5, dtype=np.int64)
    ufunc.add(a + 0.75, 1, out=out, casting="unsafe")
    np.testing.assert_array_equal(out, (a + 1.75).astype(np.int64))


@pytest.mark.parametrize("order", ["C", "F", "A", "K", None])
def test_order_keyword(order):
    """Result layouts as NumPy's for C, F, transposed and reversed operands."""
    base = np.arange(24.0).reshape(4, 6)
    for x in (base, np.asfortranarray(base), base.T, base[::-1, ::2], base.T[::2]):
        mine, theirs = ufunc.add(x, 1, order=order), np.add(x, 1, order=order)
        np.testing.assert_array_equal(mine, theirs)
        assert mine.flags.c_contiguous == theirs.flags.c_contiguous, (order, x.strides)
        assert mine.flags.f_contiguous == theirs.flags.f_contiguous, (order, x.strides)
        if order in ("K", None):
            assert mine.strides == theirs.strides, (x.strides, mine.strides, theirs.strides)


def test_byteswapped_and_unaligned_operands():
    """Non-native byte order and unaligned inputs are NumPy's to buffer: values as NumPy's."""
    x = np.linspace(-3, 3, 11)
    swapped = x.astype(">f8" if np.little_endian else "<f8")
    buf = bytearray(8 * 11 + 1)
    unaligned = np.frombuffer(buf, dtype=np.float64, offset=1, count=11)
    unaligned[...] = x
    assert not unaligned.flags.aligned
    for operand in (swapped, unaligned):
        np.testing.assert_array_equal(ufunc.sin(operand), np.sin(x))
        np.testing.assert_array_equal(ufunc.add(operand, x), 2 * x)
        assert ufunc.add.reduce(operand) == ufunc.add.reduce(x)
    # An output must be written in place: a byte-swapped out is refused, never silently copied.
    out = np.empty(11, dtype=swapped.dtype)
    with pytest.raises((ValueError, TypeError)):
        ufunc.sin(x, out=out)


def test_unsupported_dtypes_raise_typeerror():
    for operand in (np.array(["a"]), np.array([1.0], dtype=np.longdouble), np.array([object()]),
                    np.array([1], dtype="m8[s]"), np.array([1], dtype="M8[s]")):
        with pytest.raises(TypeError):
            np.sin(operand) if operand.dtype.kind in "UOmM" else (_ for _ in ()).throw(TypeError())
        with pytest.raises(TypeError, match="dtype"):
            ufunc.sin(operand)


def test_python_ints_beyond_int64():
    """NumPy's rule for Python ints outside int64: they join float, complex (and, up to 2**64 - 1, unsigned)
    operands, and are an OverflowError anywhere else."""
    r = ufunc.add(np.ones(2), 2**64)
    np.testing.assert_array_equal(r, np.add(np.ones(2), 2**64))
    r = ufunc.multiply(np.ones(2, dtype=np.float32), -(2**63) - 1)
    assert r.dtype == np.float32
    with pytest.raises(OverflowError):
        np.add(np.ones(2, dtype=bool), 2**63)
    with pytest.raises(OverflowError):
        ufunc.add(np.ones(2, dtype=bool), 2**63)
    with pytest.raises(OverflowError):
        ufunc.add(1, 2**63)


def test_uint64_python_ints_as_numpy():
    """2**63 <= v < 2**64 with uint64 and float arrays: NumPy's results."""
    for a in (np.ones(2, dtype=np.uint64), np.ones(2, dtype=np.float64), np.ones(2, dtype=np.float32)):
        mine, theirs = ufunc.add(a, 2**63), np.add(a, 2**63)
        assert mine.dtype == theirs.dtype
        np.testing.assert_array_equal(mine, theirs)
    for a in (np.ones(2, dtype=np.int64), np.ones(2, dtype=np.int8)):
        with pytest.raises(OverflowError):
            ufunc.add(a, 2**63)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ufunc.equal(np.array([2**63], dtype=np.uint64), 2**63)[0]
