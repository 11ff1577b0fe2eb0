#!/usr/bin/env python3
"""The Python module on the host against NumPy (and Numba): per-call cost and large arrays.

    python bench/python_bench.py [--quick] [--log2n K] [--samples N]

(a) per call: float32 arrays of 1024 elements, add, multiply, sin, sqrt, add with a Python scalar and
    add with out=; the time of one call is the minimum over 15 repeats of timeit's mean over a batch of
    5000 (NumPy's, ufunc's and the general path's batches interleaved)
    (ufunc on target 'cpu', set with ufunc.set_target, so the calls carry NumPy's arguments alone: the
    module's dense path; ufunc_cpu_general adds casting='same_kind', which takes the general path).
(b) large arrays: add and sin, float32, 2**26 elements (--log2n), out= preallocated; NumPy, ufunc on
    'cpu' and 'parallel' (when this module has it), and Numba's
    @vectorize(['float32(float32, float32)'], target='parallel') (and its sin) when numba imports
    ('absent' otherwise); the median of --samples calls after a warm-up.

stdout is CSV, `part,case,n,impl,time_us,ratio_to_numpy` (ratio: this implementation's time over
NumPy's, below 1 is faster than NumPy), after '#' lines with the date, the machine and the versions;
a '#' summary of the ratios ends it. --quick: fewer repeats and samples (the same sizes).
The GPU counterpart, on CuPy arrays, is bench/python_gpu_bench.py.
"""

import argparse
import datetime
import math
import os
import platform
import statistics
import sys
import time
import timeit

import numpy as np

import ufunc

try:
    import numba
except ImportError:
    numba = None


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats and samples")
    parser.add_argument("--log2n", type=int, default=26, help="log2 of part (b)'s element count (26)")
    parser.add_argument("--samples", type=int, help="timed calls per case in part (b) (9; --quick 3)")
    args = parser.parse_args()
    args.repeat, args.number = (3, 300) if args.quick else (15, 5000)
    if args.samples is None:
        args.samples = 3 if args.quick else 9
    return args


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


rows = []  # (part, case, n, impl, seconds or None)


def emit(part, case, n, impl, seconds, numpy_seconds):
    if seconds is None:
        print(f"{part},{case},{n},{impl},absent,", flush=True)
        return
    rows.append((part, case, impl, seconds / numpy_seconds))
    print(f"{part},{case},{n},{impl},{seconds * 1e6:.3f},{seconds / numpy_seconds:.3f}", flush=True)


def per_call(args, *fs):
    """Seconds per call of each function: the minimum over repeats of the mean of a batch of calls,
    the functions' batches interleaved (a slow stretch of a shared machine falls on all of them)."""
    best = [math.inf] * len(fs)
    for f in fs:
        f()
    for _ in range(args.repeat):
        for i, f in enumerate(fs):
            best[i] = min(best[i], timeit.timeit(f, number=args.number) / args.number)
    return best


def median_call(args, f):
    f()  # warm-up (Numba's first call compiles; first touches of the output)
    times = []
    for _ in range(args.samples):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def part_a(args):
    n = 1024
    rng = np.random.default_rng(0)
    a = rng.random(n, dtype=np.float32)
    b = rng.random(n, dtype=np.float32)
    out = np.empty(n, np.float32)
    cases = [
        ("add", lambda m, **kw: m.add(a, b, **kw)),
        ("multiply", lambda m, **kw: m.multiply(a, b, **kw)),
        ("sin", lambda m, **kw: m.sin(a, **kw)),
        ("sqrt", lambda m, **kw: m.sqrt(a, **kw)),
        ("add_python_scalar", lambda m, **kw: m.add(a, 2.5, **kw)),
        ("add_out", lambda m, **kw: m.add(a, b, out=out, **kw)),
    ]
    # ufunc_cpu: the call as written, which takes the module's dense path (python/src/dense_call.cpp);
    # ufunc_cpu_general: the same call with a keyword that changes nothing (casting='same_kind'),
    # which takes the general path (the per-call cost before the dense path, and of any other call).
    previous = ufunc.set_target("cpu")
    try:
        for case, call in cases:
            if not np.allclose(call(ufunc), call(np), rtol=1e-6):
                print(f"# CHECK FAILED: ufunc.{case} differs from NumPy's", flush=True)
            t_numpy, t_ufunc, t_general = per_call(
                args, lambda: call(np), lambda: call(ufunc), lambda: call(ufunc, casting="same_kind")
            )
            emit("a_per_call", case, n, "numpy", t_numpy, t_numpy)
            emit("a_per_call", case, n, "ufunc_cpu", t_ufunc, t_numpy)
            emit("a_per_call", case, n, "ufunc_cpu_general", t_general, t_numpy)
    finally:
        ufunc.set_target(previous)


def part_b(args):
    n = 1 << args.log2n
    i = np.arange(n, dtype=np.int64)
    a = (i % 1000).astype(np.float32) * np.float32(0.01) - np.float32(5.0)
    b = (i % 777).astype(np.float32) * np.float32(0.02)
    del i
    out = np.zeros(n, np.float32)
    numba_add = numba_sin = None
    if numba is not None:

        @numba.vectorize(["float32(float32, float32)"], target="parallel")
        def numba_add(x, y):
            return x + y

        @numba.vectorize(["float32(float32)"], target="parallel")
        def numba_sin(x):
            return math.sin(x)

    targets = ["cpu"] + (["parallel"] if "parallel" in ufunc.available_targets() else [])
    cases = [
        ("add", lambda: np.add(a, b, out=out), lambda t: ufunc.add(a, b, out=out, target=t),
         numba_add and (lambda: numba_add(a, b, out=out))),
        ("sin", lambda: np.sin(a, out=out), lambda t: ufunc.sin(a, out=out, target=t),
         numba_sin and (lambda: numba_sin(a, out=out))),
    ]
    for case, with_numpy, with_ufunc, with_numba in cases:
        expected = with_numpy().copy()
        t_numpy = median_call(args, with_numpy)
        emit("b_large", case, n, "numpy", t_numpy, t_numpy)
        for t in targets:
            seconds = median_call(args, lambda: with_ufunc(t))
            if not np.allclose(out, expected, rtol=1e-6, atol=1e-6):
                print(f"# CHECK FAILED: ufunc.{case} on target {t} differs from NumPy's", flush=True)
            emit("b_large", case, n, f"ufunc_{t}", seconds, t_numpy)
        if with_numba is None:
            emit("b_large", case, n, "numba_parallel", None, t_numpy)
        else:
            seconds = median_call(args, with_numba)
            if not np.allclose(out, expected, rtol=1e-6, atol=1e-6):
                print(f"# CHECK FAILED: numba {case} differs from NumPy's", flush=True)
            emit("b_large", case, n, "numba_parallel", seconds, t_numpy)


def main():
    args = parse_args()
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    print(f"# python_bench.py{' --quick' if args.quick else ''}: {now}")
    print(f"# machine: {cpu_model()}, {os.cpu_count()} logical CPUs, {platform.system()} {platform.machine()}")
    print(f"# versions: python {platform.python_version()}, numpy {np.__version__}, ufunc {ufunc.__version__} "
          f"(simd {ufunc.simd_arch()}, targets {', '.join(ufunc.available_targets())}), "
          f"numba {numba.__version__ if numba else 'absent'}")
    print(f"# part a: min of {args.repeat} repeats of {args.number} calls; "
          f"part b: median of {args.samples} calls, 2^{args.log2n} elements")
    print("part,case,n,impl,time_us,ratio_to_numpy", flush=True)
    part_a(args)
    part_b(args)
    print("# ratios (time / NumPy's time; < 1: faster than NumPy):")
    for part, case, impl, ratio in rows:
        if impl != "numpy":
            print(f"#   {part:11} {case:18} {impl:17} {ratio:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
