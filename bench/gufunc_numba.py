#!/usr/bin/env python3
"""Numba's @guvectorize beside bench/gufunc_bench.cpp (issue 20): the same three gufuncs as
Numba's users write them (a stack of 10^6 (3x3)@(3x3) products, vecdot of (10^6, 16) rows,
the moving average of Numba's documentation over (10^5, 256) rows with a window of 8), on the
same data, with targets 'cpu' and 'parallel' (Numba's threads: all cores unless
NUMBA_NUM_THREADS says otherwise), each call writing into an existing output. Prints CSV:
case,dtype,impl,target,seconds (median of repeated calls, after a call that compiles).

    python3 bench/gufunc_numba.py
"""
import sys

import numpy as np

from gufunc_data import filled, median_seconds

try:
    import numba
    from numba import guvectorize
except ImportError:
    print("# Numba is not installed: nothing to compare", file=sys.stderr)
    sys.exit(0)

SIGS = {
    "matmul": (["void(f4[:,:], f4[:,:], f4[:,:])", "void(f8[:,:], f8[:,:], f8[:,:])"], "(m,n),(n,p)->(m,p)"),
    "vecdot": (["void(f4[:], f4[:], f4[:])", "void(f8[:], f8[:], f8[:])"], "(n),(n)->()"),
    "move_mean": (["void(f4[:], i8[:], f4[:])", "void(f8[:], i8[:], f8[:])"], "(n),()->(n)"),
}


def matmul(a, b, c):
    for i in range(c.shape[0]):
        for j in range(c.shape[1]):
            s = a.dtype.type(0)
            for k in range(a.shape[1]):
                s += a[i, k] * b[k, j]
            c[i, j] = s


def vecdot(x, y, out):
    s = x.dtype.type(0)
    for i in range(x.shape[0]):
        s += x[i] * y[i]
    out[0] = s


def move_mean(a, window_arr, out):
    # Numba's documentation's example.
    window_width = window_arr[0]
    asum = 0.0
    count = 0
    for i in range(window_width):
        asum += a[i]
        count += 1
        out[i] = asum / count
    for i in range(window_width, len(a)):
        asum += a[i] - a[i - window_width]
        out[i] = asum / count


print("case,dtype,impl,target,seconds")
print(f"# Numba {numba.__version__}, {numba.config.NUMBA_NUM_THREADS} threads for target 'parallel'", file=sys.stderr)
for target in ("cpu", "parallel"):
    f = {name: guvectorize(sigs, layout, target=target)(globals()[name]) for name, (sigs, layout) in SIGS.items()}
    for name, dt in (("f32", np.float32), ("f64", np.float64)):
        a, b = filled((1000000, 3, 3), dt), filled((1000000, 3, 3), dt)
        c = np.empty_like(a)
        x, y = filled((1000000, 16), dt), filled((1000000, 16), dt)
        d = np.empty(1000000, dt)
        m = filled((100000, 256), dt)
        mm = np.empty_like(m)
        w = np.int64(8)
        print(f"matmul_3x3,{name},numba_guvectorize,{target},{median_seconds(lambda: f['matmul'](a, b, c)):.9g}")
        print(f"vecdot_16,{name},numba_guvectorize,{target},{median_seconds(lambda: f['vecdot'](x, y, d)):.9g}")
        print(f"move_mean_256,{name},numba_guvectorize,{target},"
              f"{median_seconds(lambda: f['move_mean'](m, w, mm)):.9g}")
        # The results agree with NumPy's (a check of the peer, not a test of the library).
        assert np.allclose(c[:5], np.matmul(a[:5], b[:5]), rtol=1e-4)
        assert np.allclose(d[:5], np.vecdot(x[:5], y[:5]), rtol=1e-4)
