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

from gufunc_data import median_seconds, operands

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
        o = operands(dt)
        w = np.int64(8)
        for case, call in (("matmul_3x3", lambda: f["matmul"](o.a, o.b, o.c)),
                           ("vecdot_16", lambda: f["vecdot"](o.x, o.y, o.d)),
                           ("move_mean_256", lambda: f["move_mean"](o.m, w, o.mm))):
            print(f"{case},{name},numba_guvectorize,{target},{median_seconds(call):.9g}")
        # The results agree with NumPy's (a check of the peer, not a test of the library).
        assert np.allclose(o.c[:5], np.matmul(o.a[:5], o.b[:5]), rtol=1e-4)
        assert np.allclose(o.d[:5], np.vecdot(o.x[:5], o.y[:5]), rtol=1e-4)
