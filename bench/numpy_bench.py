#!/usr/bin/env python3
"""The cases of ufunc_cpu_bench, measured with NumPy.

    python3 numpy_bench.py [--quick] [--large-samples N] [--small-samples N] [--small-calls N]

Same data, same statistic as cpu_bench.cpp: per-call time as the median and the
minimum over samples; a large case (2**24 float32) times one call per sample, a
1024-element case times a batch of calls (timeit's `number`) and divides. Each
RESULT line is tab-separated: group, variant, elements, bytes read+written, median
ns per call, min ns per call, samples, calls per sample.
"""

import argparse
import platform
import statistics
import sys
import timeit

import numpy as np


def make_data(n):
    # Bit for bit the values of cpu_bench.cpp's make_data: every step is a float32
    # operation, as the C++ expression float(i % 1000) * 0.01f - 5.0f.
    i = np.arange(n, dtype=np.int64)
    a = (i % 1000).astype(np.float32) * np.float32(0.01) - np.float32(5.0)
    b = (i % 777).astype(np.float32) * np.float32(0.02)
    c = np.zeros(n, dtype=np.float32)  # touched, as the C++ out= arrays
    return a, b, c


def measure(stmt, samples, calls, warmup):
    timer = timeit.Timer(stmt)
    if warmup:
        timer.timeit(number=warmup)
    per_call = [t / calls * 1e9 for t in timer.repeat(repeat=samples, number=calls)]
    return statistics.median(per_call), min(per_call), samples, calls


def emit(group, variant, elements, nbytes, timing):
    median, best, samples, calls = timing
    print(f"RESULT\t{group}\t{variant}\t{elements}\t{nbytes}\t{median:.1f}\t{best:.1f}\t{samples}\t{calls}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--large-samples", type=int, default=25)
    parser.add_argument("--small-samples", type=int, default=200)
    parser.add_argument("--small-calls", type=int, default=1000)
    args = parser.parse_args()
    large_samples, large_warmup = args.large_samples, 3
    small_samples, small_calls, small_warmup = args.small_samples, args.small_calls, 20000
    if args.quick:
        large_samples, large_warmup, small_samples, small_calls, small_warmup = 5, 1, 20, 1000, 2000

    print(f"INFO\tnumpy\t{np.__version__}")
    print(f"INFO\tpython\t{platform.python_version()}")
    print(f"INFO\tplan\tlarge: {large_samples} samples x 1 call; small: {small_samples} samples x {small_calls} calls")

    n = 1 << 24
    a, b, c = make_data(n)
    sa, sb, sc = make_data(1024)
    f4 = np.dtype(np.float32).itemsize
    add = "np.add(a, b)"
    add_out = "np.add(a, b, out=c)"
    sin = "np.sin(a)"
    sin_out = "np.sin(a, out=c)"

    # One call per sample: a lambda's own call (~0.1 us) is noise at these sizes.
    emit("add_f32_16M_alloc", add, n, 3 * n * f4, measure(lambda: np.add(a, b), large_samples, 1, large_warmup))
    emit("add_f32_16M_out", add_out, n, 3 * n * f4,
         measure(lambda: np.add(a, b, out=c), large_samples, 1, large_warmup))
    emit("sin_f32_16M_alloc", sin, n, 2 * n * f4, measure(lambda: np.sin(a), large_samples, 1, large_warmup))
    emit("sin_f32_16M_out", sin_out, n, 2 * n * f4, measure(lambda: np.sin(a, out=c), large_samples, 1, large_warmup))

    # Per call: timeit compiles the statement into its own loop, so no Python-level
    # wrapper call is added to each np.add call.
    ns = {"np": np, "a": sa, "b": sb, "c": sc}
    for group, stmt in (("add_f32_1024_alloc", add), ("add_f32_1024_out", add_out)):
        timer = timeit.Timer(stmt, globals=ns)
        timer.timeit(number=small_warmup)
        per_call = [t / small_calls * 1e9 for t in timer.repeat(repeat=small_samples, number=small_calls)]
        emit(group, stmt, 1024, 3 * 1024 * f4, (statistics.median(per_call), min(per_call), small_samples, small_calls))

    # The results the C++ side checks against, checked here too, so that both
    # programs are known to compute the same thing.
    if not np.array_equal(np.add(a, b), a + b) or np.max(np.abs(np.sin(a) - np.sin(a.astype(np.float64)))) > 1e-6:
        print("CHECK\tFAIL\tnumpy results", flush=True)
        return 1
    print("CHECK\tok\tnumpy results", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
