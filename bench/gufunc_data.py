"""The data and the statistic of bench/gufunc_bench.cpp (bench/gufunc_data.hpp) for its Python
peers (gufunc_numpy.py, gufunc_numba.py)."""
import time

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
