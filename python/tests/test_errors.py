"""NumPy's exception types (and the key phrases of its messages) for bad calls, and floating-point
error handling: errstate/seterr/geterr/seterrcall with NumPy's policies."""

import warnings

import numpy as np
import pytest
from numpy.exceptions import AxisError

import ufunc


def _read_only(a):
    a.setflags(write=False)
    return a


def _both_raise(exc, match, call):
    """`call(module)` raises `exc` for NumPy and for ufunc, both messages matching `match`."""
    with pytest.raises(exc, match=match):
        call(np)
    with pytest.raises(exc, match=match) as e:
        call(ufunc)
    return e.value


BAD_CALLS = [
    ("broadcast", ValueError, "could not be broadcast", lambda m: m.add(np.ones(3), np.ones(4))),
    ("broadcast-2d", ValueError, "could not be broadcast", lambda m: m.multiply(np.ones((2, 3)), np.ones((3, 2)))),
    ("broadcast-out", ValueError, "could not be broadcast|non-broadcastable",
     lambda m: m.add(np.ones(3), np.ones(3), out=np.ones(4))),
    ("broadcast-where", ValueError, "could not be broadcast",
     lambda m: m.sin(np.ones(3), out=np.ones(3), where=np.ones(4, bool))),
    ("no-loop", TypeError, "bitwise_and", lambda m: m.bitwise_and(np.ones(3), np.ones(3))),
    ("no-loop-unary", TypeError, "invert", lambda m: m.invert(np.ones(3))),
    ("no-loop-complex", TypeError, "floor", lambda m: m.floor(np.ones(3, complex))),
    ("cast-out", TypeError, "Cannot cast ufunc 'add' output", lambda m: m.add(np.ones(3), 1, out=np.ones(3, int))),
    ("cast-no", TypeError, "Cannot cast ufunc 'add' input",
     lambda m: m.add(np.ones(3, np.float32), np.ones(3), casting="no")),
    ("cast-signature", TypeError, "Cannot cast ufunc 'add' input", lambda m: m.add(np.ones(3), 1, signature="ii->i")),
    ("axis", AxisError, "out of bounds", lambda m: m.add.reduce(np.ones((3, 4)), axis=2)),
    ("axis-negative", AxisError, "out of bounds", lambda m: m.add.accumulate(np.ones((3, 4)), axis=-3)),
    ("axis-reduceat", AxisError, "out of bounds", lambda m: m.add.reduceat(np.ones((3, 4)), [0], axis=5)),
    ("axis-duplicate", ValueError, "duplicate value in 'axis'", lambda m: m.add.reduce(np.ones((3, 4)), axis=(0, 0))),
    ("too-few", TypeError, "positional argument", lambda m: m.add(np.ones(3))),
    ("too-many", TypeError, "takes from 2 to 3 positional arguments but 4 were given",
     lambda m: m.add(np.ones(3), 1, np.ones(3), 4)),
    ("unknown-keyword", TypeError, "'foo'", lambda m: m.add(np.ones(3), 1, foo=3)),
    ("out-twice", TypeError, "cannot specify 'out' as both a positional and keyword argument",
     lambda m: m.add(np.ones(3), 1, np.ones(3), out=np.ones(3))),
    ("out-not-tuple", TypeError, "'out' must be a tuple", lambda m: m.divmod(np.ones(3), 1, out=np.ones(3))),
    ("out-tuple-length", ValueError, "'out' tuple must have exactly",
     lambda m: m.add(np.ones(3), 1, out=(np.ones(3), np.ones(3)))),
    ("overflow-int8", OverflowError, "Python integer 300 out of bounds for int8",
     lambda m: m.add(np.ones(3, np.int8), 300)),
    ("overflow-uint8", OverflowError, "Python integer -1 out of bounds for uint8",
     lambda m: m.subtract(np.ones(3, np.uint8), -1)),
    ("overflow-huge", OverflowError, "too large", lambda m: m.add(np.ones(3, np.int64), 2**70)),
    ("negative-power", ValueError, "Integers to negative integer powers are not allowed",
     lambda m: m.power(np.arange(3), -1)),
    ("order", ValueError, "order must be one of", lambda m: m.add(np.ones(3), 1, order="X")),
    ("casting", ValueError, "casting must be one of", lambda m: m.add(np.ones(3), 1, casting="bogus")),
    ("dtype", TypeError, "data type 'foo' not understood", lambda m: m.add(np.ones(3), 1, dtype="foo")),
    ("read-only-out", ValueError, "read-only", lambda m: m.add(np.ones(3), 1, out=_read_only(np.ones(3)))),
    ("read-only-reduce-out", ValueError, "read-only",
     lambda m: m.add.reduce(np.ones((2, 3)), out=_read_only(np.ones(3)))),
    ("outer-unary", ValueError, "outer product only supported for binary functions", lambda m: m.sin.outer([1], [2])),
    ("reduce-unary", ValueError, "reduce only supported for binary functions", lambda m: m.sin.reduce([1.0, 2.0])),
    ("reduce-empty", ValueError, "zero-size array to reduction operation maximum which has no identity",
     lambda m: m.maximum.reduce(np.empty((0, 3)))),
    ("reduce-where-no-identity", ValueError, "does not have an identity",
     lambda m: m.maximum.reduce(np.ones(3), where=np.array([True, False, True]))),
    ("not-reorderable", ValueError, "reorderable", lambda m: m.subtract.reduce(np.ones((2, 2)), axis=(0, 1))),
    ("reduceat-index", IndexError, "out-of-bounds", lambda m: m.add.reduceat(np.ones(3), [5])),
    ("at-index", IndexError, "out of bounds", lambda m: m.add.at(np.ones(3), [5], 1.0)),
    ("at-second-operand", ValueError, "second operand needed for ufunc", lambda m: m.add.at(np.ones(3), [0])),
    ("core-dimension", ValueError, "mismatch in its core dimension", lambda m: m.matmul(np.ones((2, 3)), np.ones((4, 2)))),
    ("string-dtype", TypeError, "loop", lambda m: m.add(np.array(["a"]), 1)),
    ("object-operand", TypeError, "loops for dtype object|unsupported operand", lambda m: m.add(np.ones(3), object())),
]


@pytest.mark.parametrize("exc,match,call", [c[1:] for c in BAD_CALLS], ids=[c[0] for c in BAD_CALLS])
def test_numpy_exception_types(exc, match, call):
    mine = _both_raise(exc, match, call)
    # The exception is caught by the same built-in classes as NumPy's (its own classes may differ:
    # ufunc.UFuncNoLoopError and NumPy's UFuncTypeError are both TypeErrors).
    with pytest.raises(Exception) as theirs:
        call(np)
    for cls in (ValueError, TypeError, IndexError, OverflowError, RuntimeError, ArithmeticError):
        assert isinstance(mine, cls) == isinstance(theirs.value, cls), (cls, type(mine), type(theirs.value))


def test_at_into_a_read_only_array():
    """(NumPy 2.4's add.at writes into a read-only array: not followed.)"""
    a = _read_only(np.ones(3))
    with pytest.raises(ValueError, match="read-only"):
        ufunc.add.at(a, [0], 1.0)
    with pytest.raises(ValueError, match="read-only"):
        ufunc.negative.at(a, [0])
    np.testing.assert_array_equal(a, np.ones(3))


def test_module_exception_classes():
    assert issubclass(ufunc.UFuncNoLoopError, TypeError)
    assert issubclass(ufunc.UFuncCastingError, TypeError)
    assert issubclass(ufunc.TargetError, ValueError)
    assert issubclass(ufunc.CompileError, RuntimeError)
    assert issubclass(ufunc.CacheError, OSError)
    with pytest.raises(ufunc.UFuncNoLoopError, match="bitwise_and"):
        ufunc.bitwise_and(np.ones(3), 1)
    with pytest.raises(ufunc.UFuncCastingError, match="same_kind"):
        ufunc.add(np.ones(3, np.int32), 1.5, out=np.ones(3, np.int32))
    with pytest.raises(ufunc.TargetError, match="unknown target"):
        ufunc.add(np.ones(3), 1, target="gpu")
    with pytest.raises(ufunc.UFuncNoLoopError):
        ufunc.equal.reduce(np.ones(3))


def test_index_error_of_at_is_not_a_value_error():
    """NumPy raises IndexError (not AxisError, which is also a ValueError) for an index out of bounds."""
    with pytest.raises(IndexError) as e:
        ufunc.add.at(np.ones(3), [5], 1.0)
    assert not isinstance(e.value, ValueError)
    with pytest.raises(IndexError) as e:
        ufunc.negative.at(np.ones(3), [-4])
    assert not isinstance(e.value, ValueError)


def test_argument_count_message_singular():
    with pytest.raises(TypeError) as theirs:
        np.add(np.ones(3))
    with pytest.raises(TypeError) as mine:
        ufunc.add(np.ones(3))
    assert str(mine.value) == str(theirs.value)


def test_dtype_and_signature_together():
    with pytest.raises(TypeError, match="cannot specify both 'signature' and 'dtype'"):
        np.add(np.ones(3), 1, dtype=np.float64, signature="dd->d")
    with pytest.raises(TypeError, match="cannot specify both 'signature' and 'dtype'"):
        ufunc.add(np.ones(3), 1, dtype=np.float64, signature="dd->d")


def test_out_list_is_a_type_error():
    with pytest.raises(TypeError):
        np.add(np.ones(3), 1, out=[np.ones(3)])
    with pytest.raises(TypeError):
        ufunc.add(np.ones(3), 1, out=[np.ones(3)])


def test_unary_at_with_operand_message():
    with pytest.raises(ValueError, match="second operand provided when ufunc is unary"):
        np.negative.at(np.ones(3), [0], 1)
    with pytest.raises(ValueError, match="second operand provided when ufunc is unary"):
        ufunc.negative.at(np.ones(3), [0], 1)


def test_accumulate_axis_none():
    with pytest.raises(ValueError, match="does not allow multiple axes"):
        np.add.accumulate(np.ones((2, 2)), axis=None)
    with pytest.raises(ValueError, match="does not allow multiple axes"):
        ufunc.add.accumulate(np.ones((2, 2)), axis=None)


def test_partial_outputs_are_refused_as_documented():
    """docs/python.md: outputs left None among given ones are not supported (NumPy allocates them)."""
    q = np.empty(3)
    with pytest.raises(ValueError, match="give every output in out= or none"):
        ufunc.divmod(np.arange(3.0), 2.0, out=(q, None))
    # None for every output: allocated, as NumPy.
    got, want = ufunc.divmod(np.arange(3.0), 2.0, out=(None, None)), np.divmod(np.arange(3.0), 2.0)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])


def test_overlapping_out_is_refused_as_documented():
    b = np.arange(10.0)
    with pytest.raises(ValueError, match="overlap"):
        ufunc.add(b[0:5], 1, out=b[1:6])
    np.testing.assert_array_equal(b, np.arange(10.0))
    # The exact same array as input and output is fine.
    assert ufunc.add(b, 1, out=b) is b
    np.testing.assert_array_equal(b, np.arange(1.0, 11.0))


def test_target_keyword_of_wrong_type():
    with pytest.raises(TypeError):
        ufunc.add(np.ones(3), 1, target=3)


# ---------------------------------------------------------------------------------------------
# Floating-point errors
# ---------------------------------------------------------------------------------------------

NUMPY_DEFAULTS = {"divide": "warn", "over": "warn", "under": "ignore", "invalid": "warn"}

FP_CASES = [
    ("divide", "divide by zero encountered in divide", lambda m: m.divide(np.ones(3), 0.0)),
    ("divide", "divide by zero encountered in log", lambda m: m.log(np.zeros(2, np.float32))),
    ("divide", "divide by zero encountered in floor_divide", lambda m: m.floor_divide(np.ones(3, np.int32), 0)),
    ("over", "overflow encountered in exp", lambda m: m.exp(np.array([1000.0]))),
    ("over", "overflow encountered in multiply", lambda m: m.multiply(np.float16([300]), np.float16(300))),
    ("under", "underflow encountered in exp", lambda m: m.exp(np.array([-1000.0]))),
    ("invalid", "invalid value encountered in sqrt", lambda m: m.sqrt(-np.ones(2))),
    ("invalid", "invalid value encountered in divide", lambda m: m.divide(np.zeros(2), 0.0)),
    ("invalid", "invalid value encountered in arccos", lambda m: m.arccos(np.array([2.0], np.float32))),
    ("invalid", "invalid value encountered in remainder", lambda m: m.remainder(np.ones(2), 0.0)),
]


@pytest.mark.parametrize("kind,message,call", FP_CASES, ids=[c[1] for c in FP_CASES])
def test_errstate_raise_warn_ignore(kind, message, call):
    # raise: FloatingPointError with NumPy's message.
    with np.errstate(**{kind: "raise"}), pytest.raises(FloatingPointError, match=message):
        call(np)
    with ufunc.errstate(**{kind: "raise"}), pytest.raises(FloatingPointError, match=message):
        call(ufunc)
    # warn: a RuntimeWarning.
    with ufunc.errstate(**{kind: "warn"}), pytest.warns(RuntimeWarning, match=message):
        call(ufunc)
    # ignore: nothing at all (warnings made errors).
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with ufunc.errstate(**{kind: "ignore"}):
            r = call(ufunc)
        with np.errstate(**{kind: "ignore"}):
            w = call(np)
    np.testing.assert_array_equal(r, w)
    # Other kinds' policies do not apply.
    others = {k: "raise" for k in NUMPY_DEFAULTS if k != kind}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with ufunc.errstate(**others, **{kind: "ignore"}):
            call(ufunc)


def test_errstate_all_and_restore():
    assert ufunc.geterr() == np.geterr() == NUMPY_DEFAULTS
    with ufunc.errstate(all="raise"):
        assert ufunc.geterr() == dict.fromkeys(NUMPY_DEFAULTS, "raise")
        with ufunc.errstate(divide="ignore"):
            assert ufunc.geterr()["divide"] == "ignore"
            assert ufunc.geterr()["over"] == "raise"
            ufunc.divide(np.ones(1), 0.0)
        with pytest.raises(FloatingPointError):
            ufunc.divide(np.ones(1), 0.0)
    assert ufunc.geterr() == NUMPY_DEFAULTS
    # Restored after an exception too.
    with pytest.raises(FloatingPointError):
        with ufunc.errstate(invalid="raise"):
            ufunc.sqrt(-np.ones(1))
    assert ufunc.geterr() == NUMPY_DEFAULTS


def test_seterr_returns_the_old_settings():
    old = ufunc.seterr(divide="raise", over="ignore")
    assert old == NUMPY_DEFAULTS and set(old) == set(np.geterr())
    assert ufunc.geterr() == {"divide": "raise", "over": "ignore", "under": "ignore", "invalid": "warn"}
    older = ufunc.seterr(**old)
    assert older == {"divide": "raise", "over": "ignore", "under": "ignore", "invalid": "warn"}
    assert ufunc.geterr() == NUMPY_DEFAULTS
    assert ufunc.seterr(all="ignore") == NUMPY_DEFAULTS
    assert ufunc.seterr(all="warn") == dict.fromkeys(NUMPY_DEFAULTS, "ignore")
    with pytest.raises(ValueError):
        ufunc.seterr(divide="bogus")


def test_seterrcall_call_policy_as_numpy():
    """'call': the callback gets NumPy's arguments (the kind of error and its flag bit)."""
    seen = {np: [], ufunc: []}
    for m in (np, ufunc):
        calls = seen[m]
        old = m.seterrcall(lambda kind, flag: calls.append((kind, flag)))
        try:
            with m.errstate(all="call"):
                m.divide(np.ones(2), 0.0)
                m.sqrt(-np.ones(2))
                m.exp(np.array([1000.0]))
                m.exp(np.array([-1000.0]))
                m.add(np.ones(2), 1.0)
        finally:
            m.seterrcall(old)
    assert seen[ufunc] == seen[np] == [("divide by zero", 1), ("invalid value", 8), ("overflow", 2),
                                       ("underflow", 4)]


def test_errstate_call_keyword_and_geterrcall():
    calls = []

    def record(kind, flag):
        calls.append(kind)

    assert ufunc.geterrcall() is None
    with ufunc.errstate(divide="call", call=record):
        assert ufunc.geterrcall() is record
        ufunc.divide(np.ones(2), 0.0)
    assert ufunc.geterrcall() is None
    assert calls == ["divide by zero"]
    assert ufunc.seterrcall(record) is None
    assert ufunc.seterrcall(None) is record
    with pytest.raises(TypeError):
        ufunc.seterrcall(3)


def test_log_and_print_policies(capfd):
    class Log:
        def __init__(self):
            self.lines = []

        def write(self, text):
            self.lines.append(text)

    logs = {np: Log(), ufunc: Log()}
    for m in (np, ufunc):
        old = m.seterrcall(logs[m])
        try:
            with m.errstate(divide="log"):
                m.divide(np.ones(2), 0.0)
        finally:
            m.seterrcall(old)
    assert logs[ufunc].lines == logs[np].lines == ["Warning: divide by zero encountered in divide\n"]
    with np.errstate(divide="print"):
        np.divide(np.ones(2), 0.0)
    theirs = capfd.readouterr()
    with ufunc.errstate(divide="print"):
        ufunc.divide(np.ones(2), 0.0)
    mine = capfd.readouterr()
    assert mine.out + mine.err == theirs.out + theirs.err
    assert "divide by zero" in mine.out + mine.err


def test_warning_made_an_error_leaves_the_call():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(RuntimeWarning, match="divide by zero"):
            ufunc.divide(np.ones(3), 0.0)


def test_errors_of_methods_and_targets():
    with ufunc.errstate(divide="raise"):
        with pytest.raises(FloatingPointError):
            ufunc.divide.reduce(np.array([1.0, 0.0]))
        with pytest.raises(FloatingPointError):
            ufunc.divide.accumulate(np.array([1.0, 0.0]))
        with pytest.raises(FloatingPointError):
            ufunc.divide.outer(np.ones(2), np.zeros(2))
        with pytest.raises(FloatingPointError):
            ufunc.divide.at(np.ones(3), [0, 1], 0.0)
        for target in ufunc.available_targets():
            if target == "cuda" and not ufunc.cuda_available():
                continue
            with pytest.raises(FloatingPointError):
                ufunc.divide(np.ones(1 << 16), 0.0, target=target)


def test_numpy_and_ufunc_error_states_are_separate():
    """docs/python.md: np.errstate does not reach ufunc's calls, nor ufunc.errstate NumPy's."""
    with np.errstate(divide="raise"), pytest.warns(RuntimeWarning, match="divide by zero"):
        ufunc.divide(np.ones(1), 0.0)
    with ufunc.errstate(divide="raise"), pytest.warns(RuntimeWarning, match="divide by zero"):
        np.divide(np.ones(1), 0.0)
