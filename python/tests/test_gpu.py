"""The cuda target (skipped without a GPU, or without CuPy/PyTorch for their tests): device arrays in
and out without copies (DLPack, __cuda_array_interface__), the DLPack stream handshake, every built-in
ufunc on the device for float32 and float64 against NumPy, the methods, elementwise_kernel and
reduction_kernel with CuPy's argument strings, floating-point errors on the device."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ufunc
from numpy_oracle import ELEMENTWISE, assert_same, dtype_of, loop_params, make_inputs, np_ufunc, quiet, split_types

pytestmark = pytest.mark.skipif(not ufunc.cuda_available(), reason="needs a CUDA GPU and a CUDA build of ufunc")


@pytest.fixture(scope="module")
def cp():
    return pytest.importorskip("cupy", reason="CuPy is not installed")


@pytest.fixture(scope="module")
def torch():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no GPU")
    return torch


def _host(r):
    """A device result (or a tuple of them) as NumPy arrays."""
    if isinstance(r, tuple):
        return tuple(_host(x) for x in r)
    assert isinstance(r, ufunc.device_array), type(r)
    return ufunc.to_host(r)


def _pointer(r):
    return r.__cuda_array_interface__["data"][0]


# ---------------------------------------------------------------------------------------------
# ufunc's own device arrays
# ---------------------------------------------------------------------------------------------


def test_device_array_round_trip():
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    d = ufunc.to_device(x)
    assert isinstance(d, ufunc.device_array)
    assert (d.shape, d.ndim, d.size, d.nbytes, d.dtype) == (x.shape, 2, 24, x.nbytes, x.dtype)
    assert d.strides == x.strides and d.device == 0
    assert d.__dlpack_device__() == (2, 0)
    np.testing.assert_array_equal(d.get(), x)
    np.testing.assert_array_equal(ufunc.to_host(d), x)
    np.testing.assert_array_equal(np.asarray(d), x)
    with pytest.raises(ValueError):
        np.asarray(d, copy=False)
    cai = d.__cuda_array_interface__
    assert cai["shape"] == (4, 6) and cai["typestr"] == "<f4" and cai["version"] == 3 and cai["data"][1] is False
    # Calls on device arrays run there and give device arrays; out= a device array in place.
    r = ufunc.multiply(d, 2)
    assert isinstance(r, ufunc.device_array)
    np.testing.assert_array_equal(r.get(), 2 * x)
    p = _pointer(r)
    assert ufunc.add(r, 1, out=r) is r and _pointer(r) == p
    np.testing.assert_array_equal(r.get(), 2 * x + 1)


def test_host_arrays_on_the_cuda_target():
    x = np.linspace(-3, 3, 1000)
    r = ufunc.sin(x, target="cuda")
    assert isinstance(r, np.ndarray)  # host in, host out
    np.testing.assert_array_max_ulp(r, np.sin(x), maxulp=4)
    out = np.empty(1000)
    assert ufunc.add(x, x, out=out, target="cuda") is out
    np.testing.assert_array_equal(out, 2 * x)


DEVICE_LOOPS = [
    (n, t)
    for n, t in loop_params(ELEMENTWISE)
    if np_ufunc(n) is not None and all(c in "fd" for c in split_types(t)[0])
]


@pytest.mark.parametrize("name,types", DEVICE_LOOPS, ids=[f"{n}-{t}" for n, t in DEVICE_LOOPS])
def test_every_ufunc_on_the_device(name, types, rng):
    ins, outs = split_types(types)
    xs = make_inputs(name, ins, [(3, 37)] * len(ins), rng)
    with quiet():
        want = np_ufunc(name)(*xs)
        got = getattr(ufunc, name)(*[ufunc.to_device(x) for x in xs])
        assert_same(_host(got), want, name, what=f"{name} {types} on cuda")
        # Strided device views (through a broadcast (3, 1) x (37,)), out= and where=.
        if len(ins) == 2:
            a, b = make_inputs(name, ins, [(3, 1), (37,)], rng)
            got = getattr(ufunc, name)(ufunc.to_device(a), ufunc.to_device(b))
            assert_same(_host(got), np_ufunc(name)(a, b), name, what=f"{name} {types} broadcast on cuda")
        mask = rng.integers(0, 2, size=(3, 37)).astype(bool)
        outs_d = tuple(ufunc.to_device(np.full((3, 37), 7, dtype=dtype_of(c))) for c in outs)
        outs_h = tuple(np.full((3, 37), 7, dtype=dtype_of(c)) for c in outs)
        r = getattr(ufunc, name)(*[ufunc.to_device(x) for x in xs], out=outs_d if len(outs) > 1 else outs_d[0],
                                 where=ufunc.to_device(mask))
        np_ufunc(name)(*xs, out=outs_h if len(outs) > 1 else outs_h[0], where=mask)
        assert r is (outs_d if len(outs) > 1 else outs_d[0]) or all(a is b for a, b in zip(r, outs_d))
        for d, h in zip(outs_d, outs_h):
            assert_same(d.get(), h, name, what=f"{name} {types} out= where= on cuda")


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_methods_on_the_device(dtype, rng):
    x = (rng.uniform(0.5, 2, (8, 33)) * (10 if dtype == np.int32 else 1)).astype(dtype)
    d = ufunc.to_device(x)
    for name in ("add", "multiply", "maximum", "minimum"):
        f, g = getattr(ufunc, name), np_ufunc(name)
        for axis in (0, 1, None):
            r = f.reduce(d, axis=axis)
            got = r.get() if isinstance(r, ufunc.device_array) else np.asarray(r)
            want = g.reduce(x, axis=axis)
            np.testing.assert_allclose(got, want, rtol=40 * np.finfo(np.float32).eps if dtype != np.int32 else 0)
        np.testing.assert_allclose(_host(f.accumulate(d, axis=1)), g.accumulate(x, axis=1),
                                   rtol=40 * np.finfo(np.float32).eps if dtype != np.int32 else 0)
        np.testing.assert_array_equal(_host(f.outer(ufunc.to_device(x[0, :5]), ufunc.to_device(x[1, :4]))),
                                      g.outer(x[0, :5], x[1, :4]))
    a = ufunc.to_device(np.zeros(5, dtype=dtype))
    ufunc.add.at(a, ufunc.to_device(np.array([0, 0, 4])), 1)
    np.testing.assert_array_equal(a.get(), np.array([2, 0, 0, 0, 1], dtype=dtype))


def test_errstate_on_the_device():
    d = ufunc.to_device(np.ones(1 << 16))
    with ufunc.errstate(divide="raise"), pytest.raises(FloatingPointError, match="divide by zero"):
        ufunc.divide(d, 0.0)
    with ufunc.errstate(over="raise"), pytest.raises(FloatingPointError, match="overflow encountered in exp"):
        ufunc.exp(ufunc.multiply(d, 1000.0))
    with ufunc.errstate(invalid="ignore"):
        r = ufunc.sqrt(ufunc.multiply(d, -1.0))
    assert np.isnan(r.get()).all()
    # 'warn': device calls return without waiting, so the warning comes once the flags are known, at
    # the latest when the result is brought to the host (NumPy's comes during the call).
    with pytest.warns(RuntimeWarning, match="overflow encountered in exp"):
        r = ufunc.exp(ufunc.multiply(d, 1000.0))
        assert np.isinf(r.get()).all()


def test_cuda_array_interface_import(cp):
    """An object with only __cuda_array_interface__ (Numba's device arrays): imported without a copy."""

    class Numbaish:
        def __init__(self, a):
            self._a = a
            self.__cuda_array_interface__ = a.__cuda_array_interface__

    x = cp.arange(100, dtype=cp.float32)
    out = cp.zeros(100, dtype=cp.float32)
    holder = Numbaish(out)
    r = ufunc.add(Numbaish(x), 1, out=holder)
    assert r is holder
    cp.cuda.get_current_stream().synchronize()
    cp.cuda.Device().synchronize()
    np.testing.assert_array_equal(cp.asnumpy(out), np.arange(100, dtype=np.float32) + 1)


# ---------------------------------------------------------------------------------------------
# CuPy and PyTorch
# ---------------------------------------------------------------------------------------------


def test_cupy_arrays_in_and_out(cp):
    x = cp.linspace(-3, 3, 4096, dtype=cp.float32)
    r = ufunc.sin(x)
    assert isinstance(r, ufunc.device_array)
    c = cp.from_dlpack(r)
    assert c.data.ptr == _pointer(r)  # shares the result's memory
    np.testing.assert_array_max_ulp(cp.asnumpy(c), cp.asnumpy(cp.sin(x)), maxulp=4)
    # out= a CuPy array: the very object, its memory written.
    y = cp.empty_like(x)
    ptr = y.data.ptr
    assert ufunc.multiply(x, 2, out=y) is y and y.data.ptr == ptr
    np.testing.assert_array_equal(cp.asnumpy(y), cp.asnumpy(x * 2))
    # Strided and transposed CuPy views.
    m = cp.arange(60, dtype=cp.float64).reshape(6, 10)
    np.testing.assert_array_equal(_host(ufunc.add(m[::2, ::3], m.T[::3, ::2].T)),
                                  cp.asnumpy(m[::2, ::3] + m.T[::3, ::2].T))
    # Results written through CuPy are seen by ufunc (same memory).
    c[:] = 1
    np.testing.assert_array_equal(r.get(), np.ones(4096, np.float32))


def test_torch_tensors_in_and_out(torch):
    t = torch.linspace(-2, 2, 4096, device="cuda", dtype=torch.float32)
    r = ufunc.exp(t)
    assert isinstance(r, ufunc.device_array)
    u = torch.from_dlpack(r)
    assert u.data_ptr() == _pointer(r)
    np.testing.assert_array_max_ulp(u.cpu().numpy(), torch.exp(t).cpu().numpy(), maxulp=4)
    out = torch.empty_like(t)
    ptr = out.data_ptr()
    assert ufunc.add(t, t, out=out) is out and out.data_ptr() == ptr
    torch.testing.assert_close(out, 2 * t, rtol=0, atol=0)
    # A transposed tensor.
    m = torch.arange(12, device="cuda", dtype=torch.float64).reshape(3, 4)
    np.testing.assert_array_equal(_host(ufunc.negative(m.T)), -m.T.cpu().numpy())
    # A CPU tensor is a host array: the result is a NumPy array.
    cpu = torch.arange(5, dtype=torch.float64)
    h = ufunc.sqrt(cpu)
    assert isinstance(h, np.ndarray)
    np.testing.assert_array_equal(h, np.sqrt(np.arange(5.0)))


def test_stream_handshake(cp):
    """A call on a non-default CuPy stream after CuPy's own work on it, consumed on another stream:
    the DLPack handshake orders each consumer after its producer."""
    n = 1 << 24
    s1 = cp.cuda.Stream(non_blocking=True)
    s2 = cp.cuda.Stream(non_blocking=True)
    with s1:
        x = cp.arange(n, dtype=cp.float32) / n  # pending work on s1
        x = cp.sqrt(x * x + 1.0)
        r = ufunc.sin(x, stream=s1)  # after x is filled, on s1
        expected = cp.sin(x)
    with s2:
        c = cp.from_dlpack(r)  # CuPy passes s2: s2 waits for ufunc's work
        doubled = c * 2
    s2.synchronize()
    s1.synchronize()
    np.testing.assert_array_max_ulp(cp.asnumpy(doubled), cp.asnumpy(expected * 2), maxulp=4)
    # The device result goes before its stream (test_result_outlives_its_stream: the other order).
    del r, c
    cp.cuda.Device().synchronize()


def _isolated(code):
    """Runs `code` in a new interpreter (a crash there fails the test instead of ending the suite)."""
    return subprocess.run([sys.executable, "-X", "faulthandler", "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=300, env=dict(os.environ))


def test_result_outlives_its_stream(cp):
    run = _isolated("""
        import gc, numpy as np, cupy as cp, ufunc
        s = cp.cuda.Stream(non_blocking=True)
        with s:
            x = cp.arange(1 << 20, dtype=cp.float32)
            r = ufunc.sin(x, stream=s)
        s.synchronize()
        del s
        gc.collect()
        assert np.allclose(r.get(), np.sin(np.arange(1 << 20, dtype=np.float32)), rtol=1e-6, atol=1e-6)
        del r
        print("done")
    """)
    assert run.returncode == 0 and "done" in run.stdout, run.stderr[-3000:]


def test_default_stream_results_for_torch(torch):
    a = torch.rand(1 << 22, device="cuda")
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        b = a * 3  # on s
        r = ufunc.add(b, 1, stream=s)
        c = torch.from_dlpack(r) * 2
    torch.cuda.synchronize()
    torch.testing.assert_close(c, (a * 3 + 1) * 2)


# ---------------------------------------------------------------------------------------------
# Run-time kernels
# ---------------------------------------------------------------------------------------------


def test_elementwise_kernel_as_cupys(cp):
    run = _isolated("""
        import numpy as np, cupy as cp, ufunc
        args = ("T x, T y", "T z", "z = (x - y) * (x - y)", "squared_diff")
        mine, theirs = ufunc.elementwise_kernel(*args), cp.ElementwiseKernel(*args)
        assert "(x - y) * (x - y)" in mine.source([np.float32, np.float32])
        for dtype in (cp.float32, cp.float64, cp.int32):
            x = cp.arange(100, dtype=dtype).reshape(10, 10)
            y = cp.arange(10, dtype=dtype)
            got = mine(x, y)
            assert isinstance(got, ufunc.device_array)
            np.testing.assert_array_equal(got.get(), cp.asnumpy(theirs(x, y)))
            out = cp.empty((10, 10), dtype=dtype)
            assert mine(x, y, out) is out
            np.testing.assert_array_equal(cp.asnumpy(out), cp.asnumpy(theirs(x, y)))
            # Host operands: copied to the device and back, as target='cuda'.
            h = mine(cp.asnumpy(x), cp.asnumpy(y))
            np.testing.assert_array_equal(np.asarray(h.get() if hasattr(h, "get") else h), cp.asnumpy(theirs(x, y)))
        # Fixed types, in place (PyCUDA's doublify).
        doublify = ufunc.elementwise_kernel("float32 a", "float32 b", "b = a * 2", "doublify")
        a = cp.arange(16, dtype=cp.float32).reshape(4, 4)
        doublify(a, a)
        np.testing.assert_array_equal(cp.asnumpy(a), 2 * np.arange(16, dtype=np.float32).reshape(4, 4))
        # Raw parameters, as CuPy's docs write them: a raw input read backwards, a raw output scattered.
        args = ("T x, raw T y", "T z", "z = x + y[_ind.size() - i - 1]", "add_reverse")
        mine, theirs = ufunc.elementwise_kernel(*args), cp.ElementwiseKernel(*args)
        x, y = cp.arange(8, dtype=cp.float32), cp.arange(8, dtype=cp.float32) * 10
        np.testing.assert_array_equal(mine(x, y).get(), cp.asnumpy(theirs(x, y)))
        args = ("T x", "raw int32 bins", "atomicAdd(&bins[(int)x], 1)", "histogram")
        mine, theirs = ufunc.elementwise_kernel(*args), cp.ElementwiseKernel(*args)
        x = cp.asarray([0, 1, 1, 3, 3, 3], dtype=cp.int64)
        b1, b2 = cp.zeros(4, dtype=cp.int32), cp.zeros(4, dtype=cp.int32)
        assert mine(x, b1) is b1
        theirs(x, b2)
        np.testing.assert_array_equal(cp.asnumpy(b1), cp.asnumpy(b2))
        np.testing.assert_array_equal(cp.asnumpy(b1), [1, 2, 0, 3])
        print("done")
    """)
    assert run.returncode == 0 and "done" in run.stdout, run.stderr[-3000:]


def test_reduction_kernel_as_cupys(cp):
    run = _isolated("""
        import numpy as np, cupy as cp, ufunc

        def host(r):
            return r.get() if isinstance(r, ufunc.device_array) else cp.asnumpy(cp.asarray(r))

        args = ("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2")
        mine, theirs = ufunc.reduction_kernel(*args), cp.ReductionKernel(*args)
        x = cp.arange(60, dtype=cp.float64).reshape(6, 10) / 7
        np.testing.assert_allclose(host(mine(x)), cp.asnumpy(theirs(x)), rtol=1e-13)
        np.testing.assert_allclose(host(mine(x, axis=1)), cp.asnumpy(theirs(x, axis=1)), rtol=1e-13)
        got = host(mine(x, axis=0, keepdims=True))
        assert got.shape == (1, 10)
        np.testing.assert_allclose(got, cp.asnumpy(theirs(x, axis=0, keepdims=True)), rtol=1e-13)
        print("done")
    """)
    assert run.returncode == 0 and "done" in run.stdout, run.stderr[-3000:]
