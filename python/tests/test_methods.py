"""The methods reduce, accumulate, reduceat, outer and at of every built-in binary ufunc's every
loop of one dtype (T, T -> T), against NumPy; outer on every binary loop; at of the unary ufuncs."""

import numpy as np
import pytest

import ufunc
from numpy_oracle import (
    COMPLEX_CODES,
    ELEMENTWISE,
    EXACT,
    INT_CODES,
    assert_reduction_close,
    assert_same,
    dtype_of,
    loop_params,
    make_input,
    make_inputs,
    np_ufunc,
    quiet,
    split_types,
)

BINARY = [n for n in ELEMENTWISE if getattr(ufunc, n).nin == 2 and np_ufunc(n) is not None]
UNARY = [n for n in ELEMENTWISE if getattr(ufunc, n).nin == 1 and getattr(ufunc, n).nout == 1]

# Loops that reduce: two inputs and the output of one dtype.
FOLD_LOOPS = loop_params(BINARY, lambda ins, outs: len(outs) == 1 and ins[0] == ins[1] == outs)
# NumPy reduces these in any order (and over several axes): its own reduce is the oracle. The others
# are left folds, computed here element by element with NumPy's elementwise ufunc.
ASSOCIATIVE = {
    "add", "multiply", "maximum", "minimum", "fmax", "fmin", "bitwise_and", "bitwise_or",
    "bitwise_xor", "logical_and", "logical_or", "logical_xor", "gcd", "lcm", "logaddexp",
    "logaddexp2", "hypot",
}
# Float folds whose order changes the rounding (NumPy sums pairwise).
SUMS = {"add", "subtract"}
# NumPy's float reduce and reduceat of these get chains of three or more elements wrong (its SIMD
# loops, docs/testing.md): the oracle is the left fold of NumPy's elementwise results.
NUMPY_WRONG_CHAINS = {"power", "float_power", "arctan2"}


def _ids(params):
    return [f"{n}-{t}" for n, t in params]


def _fold_operand(name, code, shape, rng):
    """Values every element of a chain may take: the second operand's domain (nonzero divisors,
    shift counts in range, small exponents), powers of floats near 1."""
    if name in ("power", "float_power") and code not in INT_CODES and code != "?":
        x = rng.uniform(0.5, 1.5, size=shape)
        if code in COMPLEX_CODES:
            x = x + 1j * rng.uniform(-0.3, 0.3, size=shape)
        return x.astype(dtype_of(code))
    return make_input(name, 1, code, shape, rng, 2)


def _left_fold(name, x, axis, code, initial=None, where=None):
    """NumPy's reduce of a non-reorderable ufunc along one axis: ((x0 op x1) op x2) ..., element by
    element with NumPy's elementwise loop of dtype `code`."""
    f = np_ufunc(name)
    x = np.moveaxis(np.asarray(x), axis, -1)
    mask = None if where is None else np.moveaxis(np.broadcast_to(where, np.moveaxis(x, -1, axis).shape), axis, -1)
    dt = dtype_of(code)
    out = np.empty(x.shape[:-1], dtype=dt)
    for idx in np.ndindex(*x.shape[:-1]):
        acc = None if initial is None else np.array(initial).astype(dt)
        for j in range(x.shape[-1]):
            if mask is not None and not mask[idx + (j,)]:
                continue
            v = np.asarray(x[idx + (j,)], dtype=dt)
            acc = v if acc is None else f(acc, v, dtype=dt)
        out[idx] = acc
    return out


def _check_fold(name, code, got, want, x, axis, what):
    """A reduction's result against NumPy's: exactly, or for float folds within their bound."""
    if code == "?" or code in INT_CODES:
        assert_same(got, want, name, what=what)
        return
    n = x.size if axis is None else np.prod([x.shape[a] for a in np.atleast_1d(axis)]) if axis != () else 1
    if name in SUMS:
        absolute = np.add.reduce(np.abs(x.astype(np.complex128 if code in COMPLEX_CODES else np.float64)),
                                 axis=axis)
        if np.ndim(got) != np.ndim(absolute):
            absolute = np.reshape(absolute, np.shape(got))
        assert_reduction_close(got, want, code, int(n), absolute, what)
    elif name in EXACT and name != "multiply":
        assert_same(got, want, name, what=what)
    else:
        assert_same(got, want, name, ulps=4 * (int(n) + 1), complex_inputs=code in COMPLEX_CODES, what=what)


def _oracle_reduce(name, code, x, axis, keepdims=False, initial=None, where=None):
    """NumPy's reduce, or for NumPy's wrong chains the left fold element by element."""
    g = np_ufunc(name)
    kwargs = {} if initial is None else {"initial": initial}
    if where is not None:
        kwargs["where"] = where
    want = g.reduce(x, axis=axis, keepdims=keepdims, **kwargs)
    if name in NUMPY_WRONG_CHAINS and code not in INT_CODES and code != "?":
        fold = _left_fold(name, x, axis, code, initial=initial, where=where).astype(np.asarray(want).dtype)
        want = np.expand_dims(fold, axis) if keepdims else fold
        if want.ndim == 0:
            want = want[()]
    return want


def _oracle_reduceat(name, code, x, indices, axis):
    g = np_ufunc(name)
    want = g.reduceat(x, indices, axis=axis)
    if name in NUMPY_WRONG_CHAINS and code not in INT_CODES and code != "?":
        n = x.shape[axis]
        pieces = []
        for i, start in enumerate(indices):
            stop = indices[i + 1] if i + 1 < len(indices) else n
            stop = stop if stop > start else start + 1
            piece = np.take(x, range(start, stop), axis=axis)
            pieces.append(_left_fold(name, piece, axis, code))
        want = np.stack(pieces, axis=axis).astype(want.dtype)
    return want


@pytest.mark.parametrize("name,types", FOLD_LOOPS, ids=_ids(FOLD_LOOPS))
def test_reduce(name, types, rng):
    code = types[0]
    f, g = getattr(ufunc, name), np_ufunc(name)
    x = _fold_operand(name, code, (4, 5), rng)
    xt = _fold_operand(name, code, (5, 6), rng).T[::-1, ::2]  # (3, 5): transposed, reversed, strided
    with quiet():
        for arr, axis in ((x, 0), (x, 1), (x, -1), (xt, 0), (xt, 1)):
            got, want = f.reduce(arr, axis=axis), _oracle_reduce(name, code, arr, axis)
            _check_fold(name, code, got, want, arr, axis, f"{name}.reduce {types} axis={axis}")

        # keepdims=True, and a 1-d reduction to a scalar (a NumPy scalar, as NumPy returns).
        got, want = f.reduce(x, axis=1, keepdims=True), _oracle_reduce(name, code, x, 1, keepdims=True)
        assert got.shape == want.shape == (4, 1)
        _check_fold(name, code, got, want, x, 1, f"{name}.reduce keepdims")
        got, want = f.reduce(x[0]), _oracle_reduce(name, code, x[0], 0)
        assert type(got) is type(want), "a 0-d result is a NumPy scalar"
        _check_fold(name, code, got, want, x[0], 0, f"{name}.reduce 1-d")

        # Several axes and None: NumPy reorders only where it may; the others raise ValueError.
        for axis in ((0, 1), (1, 0), None):
            try:
                want = g.reduce(x, axis=axis)
            except ValueError as e:
                assert "reorderable" in str(e)
                with pytest.raises(ValueError, match="reorderable|axis"):
                    f.reduce(x, axis=axis)
                continue
            _check_fold(name, code, f.reduce(x, axis=axis), want, x, axis, f"{name}.reduce axis={axis}")

        # initial= and where= (where needs an initial where the ufunc has no identity).
        initial = x[0, 0].item()
        mask = rng.integers(0, 2, size=(4, 5)).astype(bool)
        got = f.reduce(x, axis=1, initial=initial, where=mask)
        want = _oracle_reduce(name, code, x, 1, initial=initial, where=mask)
        _check_fold(name, code, got, want, x, 1, f"{name}.reduce initial= where=")
        got, want = f.reduce(x, axis=0, initial=initial), _oracle_reduce(name, code, x, 0, initial=initial)
        _check_fold(name, code, got, want, x, 0, f"{name}.reduce initial=")

        # Empty axis: the identity where the ufunc has one, NumPy's ValueError where not.
        empty = np.empty((0, 3), dtype=x.dtype)
        try:
            want = g.reduce(empty, axis=0)
        except ValueError:
            with pytest.raises(ValueError, match="identity"):
                f.reduce(empty, axis=0)
        else:
            assert_same(f.reduce(empty, axis=0), want, name, what=f"{name}.reduce of an empty axis")

        # out=: the result is the object passed, written in place.
        want = _oracle_reduce(name, code, x, 0)
        out = np.empty(5, dtype=want.dtype)
        assert f.reduce(x, axis=0, out=out) is out
        _check_fold(name, code, out, want, x, 0, f"{name}.reduce out=")


@pytest.mark.parametrize("name,types", FOLD_LOOPS, ids=_ids(FOLD_LOOPS))
def test_accumulate_and_reduceat(name, types, rng):
    code = types[0]
    f, g = getattr(ufunc, name), np_ufunc(name)
    x = _fold_operand(name, code, (4, 5), rng)
    with quiet():
        for arr, axis in ((x, 0), (x, 1), (x, -1), (x.T[::-1], 0)):
            got, want = f.accumulate(arr, axis=axis), g.accumulate(arr, axis=axis)
            _check_accumulated(name, code, got, want, arr, axis, f"{name}.accumulate {types} axis={axis}")
        out = np.zeros_like(g.accumulate(x, axis=1))
        assert f.accumulate(x, axis=1, out=out) is out
        _check_accumulated(name, code, out, g.accumulate(x, axis=1), x, 1, f"{name}.accumulate out=")

        # reduceat: increasing indices, a decreasing pair (a single element), a last index.
        for indices, axis in (([0, 2, 1, 4], 1), ([0, 3], 0), ([1, 1, 3], 1)):
            got, want = f.reduceat(x, indices, axis=axis), _oracle_reduceat(name, code, x, indices, axis)
            _check_accumulated(name, code, got, want, x, axis, f"{name}.reduceat {indices} axis={axis}")
        out = np.zeros_like(want)
        assert f.reduceat(x, [1, 1, 3], axis=1, out=out) is out
        _check_accumulated(name, code, out, want, x, 1, f"{name}.reduceat out=")


def _check_accumulated(name, code, got, want, x, axis, what):
    if code == "?" or code in INT_CODES:
        assert_same(got, want, name, what=what)
        return
    n = x.shape[axis]
    if name in SUMS:
        absolute = np.add.accumulate(np.abs(x.astype(np.complex128 if code in COMPLEX_CODES else np.float64)),
                                     axis=axis)
        absolute = np.max(absolute, axis=axis, keepdims=True)
        assert_reduction_close(got, want, code, n, absolute, what)
    elif name in EXACT and name != "multiply":
        assert_same(got, want, name, what=what)
    else:
        assert_same(got, want, name, ulps=4 * (n + 1), complex_inputs=code in COMPLEX_CODES, what=what)


def test_float16_reduceat_keeps_float32_running_values():
    # NumPy's float16 add reduce and reduceat sum each run in float32 and round once; its reduce over an
    # outer axis rounds at every step (an elementwise inner loop), its reduceat does not (the inner loop
    # runs along each segment). ufunc does the same.
    h = np.array([0.54, 2.64, 2.9], dtype=np.float16)
    assert ufunc.add.reduce(h) == np.add.reduce(h)  # 6.082
    np.testing.assert_array_equal(ufunc.add.reduceat(h, [0]), np.add.reduceat(h, [0]))
    rows = np.array([[0.54, 2.64, 2.9]] * 3, dtype=np.float16)
    cols = np.ascontiguousarray(rows.T)
    np.testing.assert_array_equal(ufunc.add.reduceat(rows, [0], axis=1), np.add.reduceat(rows, [0], axis=1))
    np.testing.assert_array_equal(ufunc.add.reduceat(cols, [0], axis=0), np.add.reduceat(cols, [0], axis=0))
    np.testing.assert_array_equal(ufunc.add.reduce(cols, axis=0), np.add.reduce(cols, axis=0))  # 6.08 both
    for name in ("add", "multiply", "subtract", "divide"):
        x = np.random.default_rng(7).uniform(0.5, 2.0, (5, 37)).astype(np.float16)
        for axis in (0, 1):
            idx = [0, 2, 3, 4] if axis == 0 else [0, 5, 6, 20, 36]
            np.testing.assert_array_equal(getattr(ufunc, name).reduceat(x, idx, axis=axis),
                                          getattr(np, name).reduceat(x, idx, axis=axis), err_msg=f"{name} {axis}")


OUTER_LOOPS = loop_params(BINARY)


@pytest.mark.parametrize("name,types", OUTER_LOOPS, ids=_ids(OUTER_LOOPS))
def test_outer(name, types, rng):
    ins, outs = split_types(types)
    f, g = getattr(ufunc, name), np_ufunc(name)
    a, b = make_inputs(name, ins, [(3,), (2, 4)], rng)
    with quiet():
        got, want = f.outer(a, b), g.outer(a, b)
        complex_inputs = any(c in COMPLEX_CODES for c in ins)
        assert_same(got, want, name, complex_inputs=complex_inputs, what=f"{name}.outer {types}")
        # Strided operands and out=.
        a2, b2 = make_inputs(name, ins, [(6,), (5,)], rng)
        outs_mine = tuple(np.empty((3, 3), dtype=dtype_of(c)) for c in outs)
        r = f.outer(a2[::2], b2[::-2], out=outs_mine if len(outs) > 1 else outs_mine[0])
        if len(outs) > 1:
            assert all(x is y for x, y in zip(r, outs_mine))
        else:
            assert r is outs_mine[0]
        want = g.outer(a2[::2], b2[::-2])
        assert_same(outs_mine if len(outs) > 1 else outs_mine[0], want, name, complex_inputs=complex_inputs,
                    what=f"{name}.outer out=")


@pytest.mark.parametrize("name,types", FOLD_LOOPS, ids=_ids(FOLD_LOOPS))
def test_at(name, types, rng):
    code = types[0]
    f, g = getattr(ufunc, name), np_ufunc(name)
    ulps = None if (code in INT_CODES or code == "?" or name in EXACT) else 16
    complex_inputs = code in COMPLEX_CODES
    a = make_input(name, 0, code, (8,), rng, 2)
    b = _fold_operand(name, code, (6,), rng)
    idx = np.array([0, 3, 3, 7, 0, 3])
    mine, theirs = a.copy(), a.copy()
    pointer = mine.__array_interface__["data"][0]
    with quiet():
        assert f.at(mine, idx, b) is None
        g.at(theirs, idx, b)
    assert mine.__array_interface__["data"][0] == pointer
    assert_same(mine, theirs, name, ulps=ulps, complex_inputs=complex_inputs, what=f"{name}.at {types} repeated")

    # A scalar operand, boolean... and a 2-d array indexed by a tuple of index arrays.
    s = _fold_operand(name, code, (1,), rng)[0]
    mine, theirs = a.copy(), a.copy()
    with quiet():
        f.at(mine, [1, 1, 2], s)
        g.at(theirs, [1, 1, 2], s)
    assert_same(mine, theirs, name, ulps=ulps, complex_inputs=complex_inputs, what=f"{name}.at scalar")

    a2 = make_input(name, 0, code, (3, 4), rng, 2)
    mine, theirs = a2.copy(), a2.copy()
    rows, cols = np.array([0, 2, 2, 0]), np.array([1, 3, 3, 1])
    b2 = _fold_operand(name, code, (4,), rng)
    with quiet():
        f.at(mine, (rows, cols), b2)
        g.at(theirs, (rows, cols), b2)
    assert_same(mine, theirs, name, ulps=ulps, complex_inputs=complex_inputs, what=f"{name}.at 2-d")


UNARY_AT = loop_params(UNARY, lambda ins, outs: ins == outs)


@pytest.mark.parametrize("name,types", UNARY_AT, ids=_ids(UNARY_AT))
def test_unary_at(name, types, rng):
    f, g = getattr(ufunc, name), np_ufunc(name)
    a = make_input(name, 0, types[0], (7,), rng)
    mine, theirs = a.copy(), a.copy()
    # A repeated index applies f twice; for functions computed to within some ulps (sinh) the second application
    # multiplies the first one's last-bit difference from NumPy by |x f'(x) / f(x)| (hundreds of ulps for sinh of
    # large values), so repeats are checked on the exact functions only.
    idx = [0, 2, 2, 6] if name in EXACT else [0, 2, 6]
    with quiet():
        f.at(mine, idx)
        g.at(theirs, idx)
    ulps = None if name in EXACT else 8
    assert_same(mine, theirs, name, ulps=ulps, complex_inputs=types[0] in COMPLEX_CODES, what=f"{name}.at {types}")


def test_accumulate_and_reduceat_dtype():
    x = np.arange(1, 13, dtype=np.int8).reshape(3, 4)
    for dtype in (np.float32, np.int64, np.float64):
        for method, args in (("accumulate", ()), ("reduceat", ([0, 2],)), ("reduce", ())):
            got = getattr(ufunc.add, method)(x, *args, axis=1, dtype=dtype)
            want = getattr(np.add, method)(x, *args, axis=1, dtype=dtype)
            assert got.dtype == want.dtype == np.dtype(dtype)
            np.testing.assert_array_equal(got, want)
    # multiply's int8 product overflows in int8, not in the dtype asked for.
    x = np.full(6, 100, dtype=np.int8)
    assert ufunc.multiply.reduce(x, dtype=np.int64) == np.multiply.reduce(x, dtype=np.int64)
    np.testing.assert_array_equal(ufunc.multiply.accumulate(x, dtype=np.int16), np.multiply.accumulate(x, dtype=np.int16))


def test_reduce_of_bool_and_small_ints_upcasts_as_numpy():
    """NumPy's add and multiply reduce bool and integers narrower than int64 in int64 (uint64 for
    unsigned), the other ufuncs in the operand's dtype."""
    for dt in (bool, np.int8, np.uint8, np.int16, np.uint32):
        x = np.ones((3, 4), dtype=dt)
        for name in ("add", "multiply", "maximum", "bitwise_or" if dt is not bool else "logical_or"):
            got, want = getattr(ufunc, name).reduce(x, axis=0), np_ufunc(name).reduce(x, axis=0)
            assert got.dtype == want.dtype, (name, dt)
            np.testing.assert_array_equal(got, want)
            got, want = getattr(ufunc, name).accumulate(x), np_ufunc(name).accumulate(x)
            assert got.dtype == want.dtype, (name, dt)


def test_reduce_axis_none():
    x = np.arange(12.0).reshape(3, 4)
    assert ufunc.add.reduce(x, axis=None) == np.add.reduce(x, axis=None) == 66.0
    assert ufunc.maximum.reduce(x, None) == 11.0
    r = ufunc.add.reduce(x, axis=None, keepdims=True)
    assert r.shape == (1, 1) and r[0, 0] == 66.0


def test_reduce_keepdims_takes_an_int():
    x = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(ufunc.add.reduce(x, axis=1, keepdims=1), np.add.reduce(x, axis=1, keepdims=1))


def test_reduce_axis_forms():
    x = np.arange(24, dtype=np.int64).reshape(2, 3, 4)
    for axis in (0, 1, 2, -1, -3, (0, 2), (2, 0), (0, 1, 2), (), np.int64(1), np.int32(-2)):
        got, want = ufunc.add.reduce(x, axis=axis), np.add.reduce(x, axis=axis)
        np.testing.assert_array_equal(got, want)
        assert np.shape(got) == np.shape(want)
        got = ufunc.add.reduce(x, axis=axis, keepdims=True)
        want = np.add.reduce(x, axis=axis, keepdims=True)
        assert got.shape == want.shape
        np.testing.assert_array_equal(got, want)
    # axis=() reduces nothing: a new array equal to the input, not the input.
    r = ufunc.add.reduce(x, axis=())
    np.testing.assert_array_equal(r, x)
    assert r is not x


def test_at_with_a_slice_and_repeated_indices():
    mine, theirs = np.zeros((2, 3)), np.zeros((2, 3))
    ufunc.add.at(mine, (slice(None), [0, 0, 2]), 1.0)
    np.add.at(theirs, (slice(None), [0, 0, 2]), 1.0)
    np.testing.assert_array_equal(mine, theirs)


def test_at_with_a_slice_alone_and_boolean_mask():
    for index in (slice(1, 5), slice(None, None, 2), np.array([True, False, True, True, False, False])):
        mine, theirs = np.arange(6.0), np.arange(6.0)
        ufunc.multiply.at(mine, index, 3.0)
        np.multiply.at(theirs, index, 3.0)
        np.testing.assert_array_equal(mine, theirs)
