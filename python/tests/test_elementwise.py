"""Every built-in ufunc's every loop (uf.types) against NumPy on random inputs: contiguous, broadcast
((3, 1) with (4,)), strided and transposed operands, out= (a strided view) with where=, and special
values (NaN, infinities, signed zeros)."""

import numpy as np
import pytest

import ufunc
from numpy_oracle import (
    ELEMENTWISE,
    FLOAT_CODES,
    COMPLEX_CODES,
    assert_same,
    dtype_of,
    fill_value_array,
    loop_params,
    make_inputs,
    np_ufunc,
    quiet,
    split_types,
)

LOOPS = [(n, t) for n, t in loop_params(ELEMENTWISE) if np_ufunc(n) is not None]


def _call_both(name, args, **kwargs):
    f, g = getattr(ufunc, name), np_ufunc(name)
    with quiet():
        return f(*args, **kwargs), g(*args, **kwargs)


@pytest.mark.parametrize("name,types", LOOPS, ids=[f"{n}-{t}" for n, t in LOOPS])
def test_loop_against_numpy(name, types, rng):
    ins, outs = split_types(types)
    nin = len(ins)
    has_complex = any(c in COMPLEX_CODES for c in ins)
    check = lambda got, want, what: assert_same(got, want, name, complex_inputs=has_complex, what=f"{name} {types} {what}")

    # The loop's dtypes: NumPy and the library pick the same loop for these inputs.
    xs = make_inputs(name, ins, [(37,)] * nin, rng)
    got, want = _call_both(name, xs)
    check(got, want, "contiguous")
    results = got if isinstance(got, tuple) else (got,)
    assert tuple(r.dtype for r in results) == tuple(dtype_of(c) for c in outs)

    # Broadcasting: (3, 1) against (4,), and a stride-0 view.
    if nin == 2:
        xs = make_inputs(name, ins, [(3, 1), (4,)], rng)
        check(*_call_both(name, xs), "broadcast (3,1) (4,)")
        xs = make_inputs(name, ins, [(1, 5), (4, 1)], rng)
        check(*_call_both(name, xs), "broadcast (1,5) (4,1)")
        xs = make_inputs(name, ins, [(5,), ()], rng)
        check(*_call_both(name, xs), "0-d second operand")
    else:
        x = make_inputs(name, ins, [(5,)], rng)[0]
        check(*_call_both(name, [np.broadcast_to(x, (3, 5))]), "stride-0 view")

    # Non-contiguous operands: every other element, a transpose, a reversed view.
    bases = make_inputs(name, ins, [(6, 10)] * nin, rng)
    views = [bases[0][:, ::2]] + [b.reshape(10, 6).T[:, 1::2] for b in bases[1:]]
    check(*_call_both(name, views), "strided and transposed")
    views = [b[::-2, ::-3] for b in bases]
    check(*_call_both(name, views), "negative strides")
    check(*_call_both(name, [b.T for b in bases]), "transposed (Fortran order)")

    # out= (strided views of a larger array) and where=: NumPy writes the same out prefilled alike.
    xs = make_inputs(name, ins, [(4, 6)] * nin, rng)
    mask = rng.integers(0, 2, size=(4, 6)).astype(bool)
    mine = tuple(fill_value_array(c, (4, 12), np.random.default_rng(1))[:, ::2] for c in outs)
    theirs = tuple(fill_value_array(c, (4, 12), np.random.default_rng(1))[:, ::2] for c in outs)
    out_arg = mine if len(outs) > 1 else mine[0]
    with quiet():
        r = getattr(ufunc, name)(*xs, out=out_arg, where=mask)
        np_ufunc(name)(*xs, out=theirs if len(outs) > 1 else theirs[0], where=mask)
    if len(outs) > 1:
        assert isinstance(r, tuple) and all(a is b for a, b in zip(r, mine))
    else:
        assert r is mine[0]
    for m, t in zip(mine, theirs):
        check(m, t, "out= with where=")


SPECIAL = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 1e-3, 100.0])
FLOAT_LOOPS = [
    (n, t)
    for n, t in LOOPS
    if all(c in FLOAT_CODES for c in split_types(t)[0])
]


@pytest.mark.parametrize("name,types", FLOAT_LOOPS, ids=[f"{n}-{t}" for n, t in FLOAT_LOOPS])
def test_special_values(name, types):
    """NaN, infinities and signed zeros (every pair of them for binary ufuncs): NaN where NumPy has
    NaN, infinities and zeros' signs as NumPy's."""
    ins, _ = split_types(types)
    dt = dtype_of(ins[0])
    if len(ins) == 1:
        args = [SPECIAL.astype(dt)]
    else:
        a, b = np.meshgrid(SPECIAL, SPECIAL, indexing="ij")
        args = [a.astype(dt), b.astype(dt)]
    if name == "ldexp":
        args[1] = np.tile(np.array([-3, 0, 2, 5], dtype=dtype_of(ins[1])), 3)
        args[0] = SPECIAL.astype(dt)
    got, want = _call_both(name, args)
    assert_same(got, want, name, what=f"{name} {types} special values")


COMPLEX_LOOPS = [(n, t) for n, t in LOOPS if all(c in COMPLEX_CODES for c in split_types(t)[0])]
_CSPECIAL = np.array([0, 1, -1, 1j, -1j, 0.5 - 2j, np.inf, -np.inf, 1j * np.inf, np.nan, np.nan * 1j, 2 + 3j])


@pytest.mark.parametrize("name,types", COMPLEX_LOOPS, ids=[f"{n}-{t}" for n, t in COMPLEX_LOOPS])
def test_complex_edge_values(name, types):
    """Complex zeros, units, infinities and NaN parts: NaN and infinite parts where NumPy has them."""
    ins, _ = split_types(types)
    dt = dtype_of(ins[0])
    if name in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "maximum", "minimum",
                "fmax", "fmin", "logical_and", "logical_or", "logical_xor", "logical_not", "isnan", "isinf",
                "isfinite", "add", "subtract", "negative", "positive", "conjugate"):
        values = _CSPECIAL
    else:
        # Transcendental functions of infinite or NaN parts follow C99 Annex G in NumPy (npymath) and
        # the library alike only where the standard is exact; finite edge values for the others.
        values = _CSPECIAL[[0, 1, 2, 3, 4, 5, 11]]
    if len(ins) == 1:
        args = [values.astype(dt)]
    else:
        a, b = np.meshgrid(values, values, indexing="ij")
        args = [a.astype(dt), b.astype(dt)]
        if name in ("power", "float_power", "divide"):
            # 0 ** negative and x / 0: NumPy's own answers differ between its loops; not compared.
            keep = b != 0
            args = [a[keep].astype(dt), b[keep].astype(dt)]
    got, want = _call_both(name, args)
    assert_same(got, want, name, complex_inputs=True, what=f"{name} {types} edge values")


def test_every_numpy_ufunc_is_there():
    """Every ufunc NumPy has (but isnat, of datetimes, which the library has no dtype for) is here,
    under NumPy's name, aliases included."""
    numpy_names = {n for n in dir(np) if isinstance(getattr(np, n), np.ufunc)}
    missing = sorted(numpy_names - set(ufunc.ufunc_names) - {"isnat"})
    assert missing == []
    assert not set(ufunc.ufunc_names) - numpy_names, "names NumPy does not have"
