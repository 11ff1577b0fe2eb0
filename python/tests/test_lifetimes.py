"""Reference counts and lifetimes: calls keep no references to their operands; results outlive their
inputs; NumPy views of a result outlive the result; no memory grows over 10^5 calls (resident memory
and tracemalloc, measured and printed)."""

import gc
import os
import sys
import tracemalloc
import weakref

import numpy as np

import ufunc


def _churn():
    """Allocations of the library's sizes, which would reuse a buffer freed too early."""
    for _ in range(20):
        ufunc.add(np.zeros(1000), 3.0)
        ufunc.multiply(np.zeros((10, 10)), 7.0)


def test_refcounts_of_operands_unchanged():
    x = np.linspace(0, 1, 100)
    y = np.linspace(1, 2, 100)
    out = np.empty(100)
    mask = np.arange(100) % 3 == 0
    dtype = np.dtype(np.float32)
    scalar = np.float64(2.5)
    idx = np.array([0, 5, 5, 9])
    objects = [x, y, out, mask, dtype, scalar, idx]
    gc.collect()  # other tests' garbage holds references to the dtype too
    before = [sys.getrefcount(o) for o in objects]
    for _ in range(1000):
        ufunc.add(x, y)
        ufunc.add(x, scalar, out=out)
        ufunc.multiply(x, y, out=out, where=mask)
        ufunc.sin(x, dtype=dtype)
        ufunc.add.reduce(x, where=mask)
        ufunc.add.reduce(x, out=np.empty(()))
        ufunc.add.accumulate(y)
        ufunc.add.reduceat(x, idx)
        ufunc.multiply.outer(x[:5], y[:5])
        ufunc.add.at(out, idx, scalar)
        ufunc.divmod(x, scalar)
        ufunc.matmul(x, y)
        try:
            ufunc.add(x, y[:3])
        except ValueError:
            pass
        try:
            ufunc.add(x, y, out=out[:3])
        except ValueError:
            pass
    gc.collect()
    after = [sys.getrefcount(o) for o in objects]
    assert after == before
    # out= returned: one reference more while the result is held, none after.
    held = sys.getrefcount(out)
    r = ufunc.add(x, y, out=out)
    assert sys.getrefcount(out) == held + 1
    del r
    assert sys.getrefcount(out) == held


def test_result_outlives_its_inputs():
    x = np.linspace(0, 10, 1000)
    expected = np.sqrt(x)
    r = ufunc.sqrt(x)
    q, m = ufunc.divmod(x, 3.0)
    del x
    gc.collect()
    _churn()
    np.testing.assert_array_max_ulp(r, expected, maxulp=0)
    np.testing.assert_array_equal(q * 3.0 + m, np.linspace(0, 10, 1000))


def test_numpy_views_outlive_the_result():
    r = ufunc.add(np.arange(1000.0), 0.5)
    views = [r[::3], r.reshape(10, 100).T, r[500:], np.asarray(r), r.view(np.int64)]
    alive = weakref.ref(r)
    del r
    gc.collect()
    _churn()
    np.testing.assert_array_equal(views[0], np.arange(0, 1000, 3) + 0.5)
    np.testing.assert_array_equal(views[1], (np.arange(1000.0) + 0.5).reshape(10, 100).T)
    np.testing.assert_array_equal(views[2], np.arange(500.0, 1000.0) + 0.5)
    np.testing.assert_array_equal(views[4].view(np.float64), np.arange(1000.0) + 0.5)
    # The result lives on in its views, and goes with the last of them.
    assert alive() is not None
    del views
    gc.collect()
    assert alive() is None


def test_reduction_results_and_scalars_outlive_inputs():
    x = np.arange(24.0).reshape(4, 6)
    r = ufunc.add.reduce(x, axis=0)
    s = ufunc.add.reduce(x[0])
    a = ufunc.multiply.accumulate(x, axis=1)
    expected = np.multiply.accumulate(np.arange(24.0).reshape(4, 6), axis=1)
    del x
    gc.collect()
    _churn()
    np.testing.assert_array_equal(r, np.arange(24.0).reshape(4, 6).sum(axis=0))
    assert s == 15.0
    np.testing.assert_array_equal(a, expected)


def _rss_bytes():
    """This process's resident memory (Linux /proc), or its peak where /proc is missing."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _calls(n, x, out, idx):
    for _ in range(n):
        ufunc.add(x, 1.5)  # a new result over the library's buffer (512 bytes)
        ufunc.multiply(x, x, out=out)
        ufunc.add.reduce(x)
        ufunc.add.at(out, idx, 1.0)


def test_no_leak_over_100000_calls():
    x = np.linspace(0, 1, 64)
    out = np.empty(64)
    idx = np.array([1, 2, 2])
    _calls(10_000, x, out, idx)  # warm up: caches and allocator pools
    gc.collect()
    rss0 = _rss_bytes()
    tracemalloc.start()
    try:
        traced0 = tracemalloc.get_traced_memory()[0]
        _calls(100_000, x, out, idx)
        gc.collect()
        traced = tracemalloc.get_traced_memory()[0] - traced0
    finally:
        tracemalloc.stop()
    rss = _rss_bytes() - rss0
    print(f"\n10^5 iterations of 4 calls: resident memory grew {rss} bytes, Python/NumPy allocations "
          f"{traced} bytes")
    # A leak of one 512-byte result per call would be 51 MB; of one Python object, 5 MB or more.
    assert traced < 256 * 1024, f"Python/NumPy allocations grew {traced} bytes over 10^5 iterations"
    assert rss < 8 * 1024 * 1024, f"resident memory grew {rss} bytes over 10^5 iterations"


def test_no_leak_on_error_paths_and_dlpack():
    class Producer:
        def __init__(self, a):
            self.a = a

        def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
            return self.a.__dlpack__(stream=stream, max_version=max_version)

        def __dlpack_device__(self):
            return self.a.__dlpack_device__()

    x = np.linspace(0, 1, 64)
    p = Producer(x)

    def calls(n):
        for _ in range(n):
            try:
                ufunc.add(x, x[:3])
            except ValueError:
                pass
            try:
                ufunc.bitwise_and(x, x)
            except TypeError:
                pass
            ufunc.sin(p)
            ufunc.add(x, 1.0, out=p)

    calls(2_000)
    gc.collect()
    rss0 = _rss_bytes()
    tracemalloc.start()
    try:
        traced0 = tracemalloc.get_traced_memory()[0]
        calls(20_000)
        gc.collect()
        traced = tracemalloc.get_traced_memory()[0] - traced0
    finally:
        tracemalloc.stop()
    rss = _rss_bytes() - rss0
    print(f"\n2*10^4 iterations of errors and DLPack imports: resident memory grew {rss} bytes, "
          f"Python/NumPy allocations {traced} bytes")
    assert traced < 256 * 1024, f"Python/NumPy allocations grew {traced} bytes"
    assert rss < 8 * 1024 * 1024, f"resident memory grew {rss} bytes"
    assert sys.getrefcount(x) == 3  # x, p.a and getrefcount's argument: every DLPack export released
