"""The data and the statistic of bench/gufunc_bench.cpp (bench/gufunc_data.hpp) for its Python
peers (gufunc_numpy.py, gufunc_numba.py)."""
import time
from types import SimpleNamespace

import numpy as np


def median_seconds(f, min_total=0.3):
    f()
    t = []
    while sum(t) < min_total or len(t) < 5:
        t0 = time.perf_counter()
        f()
        t.append(time.perf_counter() - t0)
    return sorted(t)[len(t) // 2]

def filled(shape, dt):
    n = int(np.prod(shape))
    return ((np.arange(n, dtype=np.int64) * 7919) % 1000).astype(dt).reshape(shape) / dt(1000)


def operands(dt):
    """The benchmark's arrays of one dtype: 10^6 (3x3) pairs (a, b) and their products' output c;
    (10^6, 16) rows (x, y) and their dot products' output d; (10^5, 256) rows m and their
    moving averages' output mm."""
    a, b = filled((1000000, 3, 3), dt), filled((1000000, 3, 3), dt)
    x, y = filled((1000000, 16), dt), filled((1000000, 16), dt)
    m = filled((100000, 256), dt)
    return SimpleNamespace(a=a, b=b, c=np.empty_like(a), x=x, y=y, d=np.empty(1000000, dt), m=m,
                           mm=np.empty_like(m))
