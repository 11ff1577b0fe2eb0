"""Zero copy: out= results are the very objects passed and keep the caller's data pointer; inputs are
used where they are (no copy: measured with tracemalloc, which sees NumPy's allocations); new results
are NumPy arrays over the library's buffer (their base a capsule, not a copy of an input); read-only
inputs are accepted and read-only outputs refused."""

import tracemalloc

import numpy as np
import pytest

import ufunc
from numpy_oracle import data_pointer


def test_out_is_the_object_passed_and_keeps_its_pointer():
    x = np.linspace(0, 1, 1000)
    for out in (np.empty(1000), np.empty(2000)[::2], np.empty((10, 100)).T.ravel(order="K")[:1000]):
        if out.size != 1000:
            continue
        ptr, strides = data_pointer(out), out.strides
        r = ufunc.sin(x, out=out)
        assert r is out
        assert data_pointer(r) == ptr and r.strides == strides
        np.testing.assert_array_equal(out, ufunc.sin(x))
    # In place: out= an input.
    y = x.copy()
    ptr = data_pointer(y)
    assert ufunc.multiply(y, 2.0, out=y) is y and data_pointer(y) == ptr
    np.testing.assert_array_equal(y, 2 * x)
    # Positional out and a tuple.
    o = np.empty(1000)
    po = data_pointer(o)
    assert ufunc.add(x, x, o) is o and data_pointer(o) == po
    assert ufunc.add(x, x, out=(o,)) is o
    # Several outputs: the tuple of the objects passed.
    q, r = np.empty(1000), np.empty(1000)
    pq, pr = data_pointer(q), data_pointer(r)
    res = ufunc.divmod(x * 10, 3.0, out=(q, r))
    assert res[0] is q and res[1] is r and data_pointer(q) == pq and data_pointer(r) == pr
    res = ufunc.modf(x, q, r)
    assert res[0] is q and res[1] is r
    # 2-d, Fortran and strided outs.
    m = np.empty((30, 40), order="F")
    pm = data_pointer(m)
    assert ufunc.add(np.ones((30, 1)), np.arange(40.0), out=m) is m and data_pointer(m) == pm
    np.testing.assert_array_equal(m, np.ones((30, 1)) + np.arange(40.0))


def test_methods_out_is_the_object_passed():
    x = np.arange(12.0).reshape(3, 4)
    for method, args, shape in (("reduce", (), (4,)), ("accumulate", (), (3, 4)), ("reduceat", ([0, 2],), (2, 4))):
        out = np.empty(shape)
        ptr = data_pointer(out)
        r = getattr(ufunc.add, method)(x, *args, axis=0, out=out)
        assert r is out and data_pointer(out) == ptr
        np.testing.assert_array_equal(out, getattr(np.add, method)(x, *args, axis=0))
    out = np.empty((3, 4, 2))
    assert ufunc.multiply.outer(x, [1.0, 2.0], out=out) is out
    # at: in place, the same buffer.
    a = np.zeros(5)
    ptr = data_pointer(a)
    assert ufunc.add.at(a, [0, 0, 4], 1.0) is None
    assert data_pointer(a) == ptr and a.tolist() == [2, 0, 0, 0, 1]
    # A gufunc's out.
    o = np.empty((3, 3))
    assert ufunc.matmul(x, x.T, out=o) is o
    np.testing.assert_allclose(o, x @ x.T)


def _peak_numpy_bytes(call):
    """Bytes NumPy allocated at the peak of `call()` (tracemalloc traces NumPy's data allocations)."""
    call()  # warm up (first-call caches)
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        call()
        return tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()


def test_inputs_are_not_copied():
    """Views of every kind are read where they are: the call allocates no NumPy memory near the
    operands' size (8 MB each), while a byte-swapped operand (which NumPy, too, must buffer) shows
    the copy: the measurement sees copies."""
    n = 1 << 20
    big = np.arange(2 * n, dtype=np.float64)
    out = np.empty(n)
    read_only = big[:n].copy()
    read_only.setflags(write=False)
    operands = {
        "contiguous": big[:n],
        "strided": big[::2],
        "reversed": big[::-2],
        "read-only": read_only,
        "offset view": big[n:],
        "2-d transposed": big[:n].reshape(1024, 1024).T,
    }
    for what, x in operands.items():
        o = out.reshape(x.shape) if x.ndim == 2 else out
        peak = _peak_numpy_bytes(lambda: ufunc.add(x, 1.0, out=o))
        assert peak < 64 * 1024, f"{what}: {peak} bytes allocated by NumPy during the call"
        np.testing.assert_array_equal(o, x + 1.0)
    # A stride-0 broadcast operand, a where= mask and a reduction.
    b = np.broadcast_to(big[:1024], (1024, 1024))
    o = out.reshape(1024, 1024)
    assert _peak_numpy_bytes(lambda: ufunc.multiply(b, 2.0, out=o)) < 64 * 1024
    mask = np.ones(n, dtype=bool)
    assert _peak_numpy_bytes(lambda: ufunc.add(big[:n], 1.0, out=out, where=mask)) < 64 * 1024
    assert _peak_numpy_bytes(lambda: ufunc.add.reduce(big[::2])) < 64 * 1024
    # The control: a byte-swapped operand is copied once, and the measurement sees it.
    swapped = big[:n].astype(big.dtype.newbyteorder())
    assert _peak_numpy_bytes(lambda: ufunc.add(swapped, 1.0, out=out)) >= 8 * n


def test_new_results_own_their_memory():
    # A small dense call writes into an array NumPy allocates (as NumPy's own call); the others into
    # the library's buffer, which a capsule (the array's base) keeps alive. Neither copies.
    x = np.arange(10.0)
    r = ufunc.sin(x)
    assert type(r) is np.ndarray
    assert r.base is None and r.flags.owndata
    big = np.arange(float(1 << 14))  # past the dense path's size
    for res in (ufunc.sin(big), ufunc.sin(x[::2]), ufunc.sin(x, where=True)) + ufunc.divmod(x, 3.0) + (
        ufunc.add.outer(x, x),
        ufunc.add.accumulate(x),
        ufunc.matmul(x, x[:, None]),
    ):
        assert type(res.base).__name__ == "PyCapsule", type(res.base)  # the library's buffer, not an ndarray
        assert not np.shares_memory(res, x) and not np.shares_memory(res, big)
    for res in (r, ufunc.sin(big)):
        assert res.flags.writeable and res.flags.c_contiguous and res.flags.aligned
        res[0] = 5.0  # a normal, writeable array
        assert res[0] == 5.0 and x[0] == 0.0 and big[0] == 0.0


def test_read_only_inputs_accepted_read_only_outputs_refused():
    x = np.linspace(-1, 1, 50)
    x.setflags(write=False)
    np.testing.assert_array_max_ulp(ufunc.arcsin(x), np.arcsin(x), maxulp=4)
    mask = np.arange(50) % 2 == 0
    mask.setflags(write=False)
    out = np.zeros(50)
    ufunc.negative(x, out=out, where=mask)
    np.testing.assert_array_equal(out, np.where(mask, -x, 0.0))
    assert ufunc.add.reduce(x) == pytest.approx(np.add.reduce(x), abs=1e-12)
    with pytest.raises(ValueError, match="read-only"):
        ufunc.sin(np.ones(50), out=x)
    with pytest.raises(ValueError, match="read-only"):
        ufunc.sin(x, out=x)
    with pytest.raises(ValueError, match="read-only"):
        ufunc.add.accumulate(np.ones(50), out=x)
    with pytest.raises(ValueError, match="read-only"):
        ufunc.modf(np.ones(50), out=(np.empty(50), x))
    # A read-only view of a writeable array is refused too; the array is unchanged.
    base = np.zeros(5)
    view = base.view()
    view.setflags(write=False)
    with pytest.raises(ValueError, match="read-only"):
        ufunc.add(np.ones(5), 1, out=view)
    assert (base == 0).all()


def test_out_of_other_dtype_is_written_in_place():
    """out= of another dtype than the loop's (NumPy casts into it): still the caller's memory."""
    x = np.arange(10, dtype=np.float32)
    out = np.zeros(10, dtype=np.float64)
    ptr = data_pointer(out)
    assert ufunc.sqrt(x, out=out) is out and data_pointer(out) == ptr
    np.testing.assert_array_equal(out, np.sqrt(x).astype(np.float64))
    out = np.zeros(10, dtype=np.int16)
    assert ufunc.add(np.arange(10, dtype=np.int8), 1, out=out) is out
    np.testing.assert_array_equal(out, np.arange(1, 11))
