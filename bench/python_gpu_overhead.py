#!/usr/bin/env python3
"""Where a small GPU call's host time goes, from Python: back-to-back calls on 1024 float32 elements
(perf_counter over 3000 calls, median of 5), CuPy's add and sin beside ufunc's on the same CuPy arrays
and stream, the DLPack and CUDA array interface steps of importing one CuPy operand, and ufunc's call on
its own device arrays (no import) and on mixes of both kinds of operand.

    python bench/python_gpu_overhead.py

Needs CuPy and a ufunc module built with the cuda target; bench/python_gpu_bench.py has the sizes.
"""
import statistics
import time

import cupy as cp
import numpy as np

import ufunc

stream = cp.cuda.Stream(non_blocking=True)


def per_call_us(f, calls=3000, rounds=5):
    times = []
    with stream:
        f()
        stream.synchronize()
        for _ in range(rounds):
            t0 = time.perf_counter()
            for _ in range(calls):
                f()
            stream.synchronize()
            times.append((time.perf_counter() - t0) / calls * 1e6)
    return statistics.median(times)


def main():
    print(f"# cupy {cp.__version__}, numpy {np.__version__}, ufunc {ufunc.__version__}")
    with stream:
        a = cp.arange(1024, dtype=cp.float32)
        b = a + 1
        out = cp.empty_like(a)
        d, d2, dout = (ufunc.add(a, b, stream=stream) for _ in range(3))
    rows = {
        "cupy add, out=": lambda: cp.add(a, b, out=out),
        "cupy add": lambda: cp.add(a, b),
        "cupy sin, out=": lambda: cp.sin(a, out=out),
        "ufunc add, cupy in, cupy out=": lambda: ufunc.add(a, b, out=out, stream=stream),
        "ufunc add, cupy in": lambda: ufunc.add(a, b, stream=stream),
        "ufunc sin, cupy in, cupy out=": lambda: ufunc.sin(a, out=out, stream=stream),
        "ufunc add, device arrays in, device out=": lambda: ufunc.add(d, d2, out=dout, stream=stream),
        "ufunc add, 1 cupy in, device out=": lambda: ufunc.add(a, d2, out=dout, stream=stream),
        "ufunc add, 2 cupy in, device out=": lambda: ufunc.add(a, b, out=dout, stream=stream),
        "ufunc add, device arrays in, cupy out=": lambda: ufunc.add(d, d2, out=out, stream=stream),
        "ufunc add, cupy in and out=, stream as int": lambda: ufunc.add(a, b, out=out, stream=stream.ptr),
        "a.__dlpack_device__()": lambda: a.__dlpack_device__(),
        "a.__dlpack__(stream=, max_version=)": lambda: a.__dlpack__(stream=stream.ptr, max_version=(1, 0)),
        "a.__cuda_array_interface__": lambda: a.__cuda_array_interface__,
    }
    print("case,us_per_call")
    for name, f in rows.items():
        print(f"{name},{per_call_us(f):.2f}", flush=True)


if __name__ == "__main__":
    main()
