#!/usr/bin/env python3
"""NumPy (one thread) and Numba @vectorize(target='parallel') on parallel_bench's cases.

    python3 numba_parallel.py [--quick] [--samples N] [--log2n K] [--threads 1,2,4,8,16]

Same data and statistic as parallel_bench.cpp: float32 2**K elements, the median
of --samples single calls after a warm-up. stdout is CSV,
`case,impl,threads,n,median_ms,GBps_or_Gelem_s` (GB/s read + written for add,
Gelem/s for sin), with '#' lines of information. Thread counts above twice the
CPU count are skipped, as in parallel_bench. Without Numba only NumPy runs.
"""

import argparse
import os
import statistics
import sys
import time


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--samples", type=int, default=9)
    parser.add_argument("--log2n", type=int, default=26)
    parser.add_argument("--threads", default="1,2,4,8,16")
    args = parser.parse_args()
    args.warmup = 2
    if args.quick:
        args.samples, args.warmup = 3, 1
    args.threads = [int(t) for t in args.threads.split(",")]
    return args


args = parse_args()
hw = os.cpu_count() or 1
threads = [t for t in args.threads if t <= 2 * hw]
skipped = [t for t in args.threads if t > 2 * hw]
# Numba sizes its pool once, from NUMBA_NUM_THREADS (default: the CPU count), and
# set_num_threads cannot go above it; asking for the largest count we run makes 4
# threads on a 2-core machine possible, as parallel_bench's arena of 4 is. Must be
# set before numba is imported.
if threads and "NUMBA_NUM_THREADS" not in os.environ:
    os.environ["NUMBA_NUM_THREADS"] = str(max(threads))

import numpy as np  # noqa: E402

try:
    import numba  # noqa: E402
except ImportError:
    numba = None


def median_ms(f):
    for _ in range(args.warmup):
        f()
    ms = []
    for _ in range(args.samples):
        t0 = time.perf_counter()
        f()
        ms.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(ms)


def emit(case, impl, t, n, ms, units):
    print(f"{case},{impl},{t},{n},{ms:.6f},{units / (ms * 1e-3) / 1e9:.3f}", flush=True)


def main():
    n = 1 << args.log2n
    f4 = np.dtype(np.float32).itemsize
    add_bytes = 3 * n * f4
    # Bit for bit parallel_bench's values: every step is a float32 operation.
    i = np.arange(n, dtype=np.int64)
    a = (i % 1000).astype(np.float32) * np.float32(0.01) - np.float32(5.0)
    b = (i % 777).astype(np.float32) * np.float32(0.02)
    del i
    c = np.zeros(n, dtype=np.float32)  # touched, as parallel_bench's out= array

    print(f"# numpy={np.__version__} numba={numba.__version__ if numba else 'missing'} "
          f"python={sys.version.split()[0]} cpus={hw} samples={args.samples} warmup={args.warmup}")
    print(f"# threads run: {' '.join(map(str, threads))}; skipped (more than 2x cpus={hw}): "
          f"{' '.join(map(str, skipped)) or 'none'}")
    print("case,impl,threads,n,median_ms,GBps_or_Gelem_s")

    # NumPy's ufuncs run on the calling thread only.
    emit("add_f32", "numpy_out", 1, n, median_ms(lambda: np.add(a, b, out=c)), add_bytes)
    emit("add_f32", "numpy_alloc", 1, n, median_ms(lambda: np.add(a, b)), add_bytes)
    emit("sin_f32", "numpy_out", 1, n, median_ms(lambda: np.sin(a, out=c)), n)
    emit("sin_f32", "numpy_alloc", 1, n, median_ms(lambda: np.sin(a)), n)
    ref_add, ref_sin = np.add(a, b), np.sin(a)

    if numba is None:
        print("# numba is not installed: Numba rows skipped (pip install numba)")
        return

    @numba.vectorize(["float32(float32, float32)"], target="parallel")
    def nb_add(x, y):
        return x + y

    @numba.vectorize(["float32(float32)"], target="parallel")
    def nb_sin(x):
        return np.sin(x)

    nb_add(a[:1024], b[:1024])  # starts the thread pool, so threading_layer() is known
    print(f"# numba threading layer: {numba.threading_layer()}, pool of {numba.config.NUMBA_NUM_THREADS} threads")
    for t in threads:
        if t > numba.config.NUMBA_NUM_THREADS:
            print(f"# threads {t}: above NUMBA_NUM_THREADS={numba.config.NUMBA_NUM_THREADS}, skipped")
            continue
        numba.set_num_threads(t)
        print(f"# threads {t}")
        c[:] = 0
        emit("add_f32", "numba_parallel_out", t, n, median_ms(lambda: nb_add(a, b, out=c)), add_bytes)
        add_err = float(np.max(np.abs(c - ref_add)))
        emit("add_f32", "numba_parallel_alloc", t, n, median_ms(lambda: nb_add(a, b)), add_bytes)
        c[:] = 0
        emit("sin_f32", "numba_parallel_out", t, n, median_ms(lambda: nb_sin(a, out=c)), n)
        sin_err = float(np.max(np.abs(c - ref_sin)))
        emit("sin_f32", "numba_parallel_alloc", t, n, median_ms(lambda: nb_sin(a)), n)
        print(f"# check numba t={t}: add max_abs_err={add_err:g}, sin max_abs_err vs numpy={sin_err:g}")


if __name__ == "__main__":
    main()
