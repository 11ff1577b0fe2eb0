"""CuPy's ElementwiseKernel beside bench/rtc_bench.cpp (issue 18): the hyp kernel's first call
(cold: an empty CUPY_CACHE_DIR; run twice on one folder for warm), a later call, and "z = x + y" on
float32 at 2^10, 2^20, 2^24, 2^28. Prints the same CSV columns: bench,variant,n,seconds.

    CUPY_CACHE_DIR=/tmp/c python3 bench/rtc_cupy.py compile
    python3 bench/rtc_cupy.py add
"""
import sys
import time

import cupy
import numpy


def median_time(f, warm, reps):
    for _ in range(warm):
        f()
    cupy.cuda.Device().synchronize()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        cupy.cuda.Device().synchronize()
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[len(times) // 2]


def compile_figures():
    # Inputs copied from the host: cupy.full would compile a fill kernel first (NVRTC started
    # before the timed call). The first call is then the process's first compile; the same
    # body under another name is compiled with NVRTC running, as rtc_bench measures both.
    x = cupy.asarray(numpy.full(1024, 3.0, dtype=numpy.float32))
    y = cupy.asarray(numpy.full(1024, 4.0, dtype=numpy.float32))
    cupy.cuda.Device().synchronize()
    for name, variant in (("hyp", "cupy_first_call"), ("hyp_second", "cupy_first_call_nvrtc_running")):
        hyp = cupy.ElementwiseKernel("T x, T y", "T z", "z = sqrt(x * x + y * y)", name)
        t0 = time.perf_counter()
        z = hyp(x, y)
        cupy.cuda.Device().synchronize()
        print(f"compile,{variant},1024,{time.perf_counter() - t0:.9g}")
    print(f"compile,cupy_hot_call,1024,{median_time(lambda: hyp(x, y, z), 3, 101):.9g}")


def add_figures():
    add = cupy.ElementwiseKernel("T x, T y", "T z", "z = x + y", "rtc_add")
    for log2 in (10, 20, 24, 28):
        n = 1 << log2
        x = cupy.full(n, 1.5, dtype=cupy.float32)
        y = cupy.full(n, 2.5, dtype=cupy.float32)
        z = cupy.zeros(n, dtype=cupy.float32)
        reps = 21 if log2 >= 28 else 101
        print(f"add,cupy_elementwise_kernel,{n},{median_time(lambda: add(x, y, z), 3, reps):.9g}")


def sum_figures():
    total = cupy.ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "rtc_sum")
    for log2 in (10, 20, 24, 28):
        n = 1 << log2
        x = cupy.full(n, 1.0, dtype=cupy.float32)
        reps = 21 if log2 >= 28 else 101
        print(f"sum,cupy_reduction_kernel,{n},{median_time(lambda: total(x), 3, reps):.9g}")


if __name__ == "__main__":
    print("bench,variant,n,seconds")
    for what in sys.argv[1:] or ["compile", "add", "sum"]:
        {"compile": compile_figures, "add": add_figures, "sum": sum_figures}[what]()
