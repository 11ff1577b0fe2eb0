"""cal_sum: the sum of a 500x500 matrix, from two Python loops to add.reduce.

The Python original (47.8 ms in Python in the tutorial, 236 us with @numba.jit(nopython=True))::

    def cal_sum(a):
        result = 0
        for i in range(a.shape[0]):
            for j in range(a.shape[1]):
                result += a[i, j]
        return result

A sum is add's reduction: ufunc.add.reduce(a, axis=(0, 1)) over every axis, axis=0 for the sums of
the columns, as numpy.add.reduce and np.sum.
"""

import time

import numpy as np

import ufunc


def cal_sum(a):
    result = 0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            result += a[i, j]
    return result


def ms(f):
    start = time.perf_counter()
    value = f()
    return value, (time.perf_counter() - start) * 1e3


a = np.random.default_rng(0).random((500, 500))

loops, loops_ms = ms(lambda: cal_sum(a))
np.sum(a), ufunc.add.reduce(a, axis=(0, 1))  # warm both
numpy_sum, numpy_ms = ms(lambda: np.sum(a))
total, ufunc_ms = ms(lambda: ufunc.add.reduce(a, axis=(0, 1)))
columns = ufunc.add.reduce(a, axis=0)

print(f"cal_sum(a), Python loops: {loops:.6f} ({loops_ms:.1f} ms)")
print(f"np.sum(a):                {numpy_sum:.6f} ({numpy_ms * 1e3:.0f} us)")
print(f"ufunc.add.reduce(a):      {total:.6f} ({ufunc_ms * 1e3:.0f} us)")
ok = np.isclose(total, numpy_sum, rtol=1e-12) and np.isclose(total, loops, rtol=1e-12)
ok = ok and np.allclose(columns, a.sum(axis=0))

if ufunc.cuda_available():
    gpu_total = float(ufunc.add.reduce(a, axis=(0, 1), target="cuda"))  # copied to the GPU and back
    print(f"ufunc.add.reduce(a, target='cuda'): {gpu_total:.6f}")
    ok = ok and np.isclose(gpu_total, numpy_sum, rtol=1e-12)
else:
    print("cuda: skipped (this module has no CUDA target or sees no GPU)")

if not ok:
    raise SystemExit("sum: add.reduce differs from np.sum")
print("sum: OK, add.reduce agrees with np.sum and cal_sum")
