#!/usr/bin/env python3
"""The Python module on CuPy arrays against CuPy itself: add and sin, float32, 2^10 to 2^26 elements.

    python bench/python_gpu_bench.py [--quick] [--reps N]

Both libraries take the same CuPy arrays and run on one CUDA stream (CuPy's calls inside
`with stream:`, ufunc's with stream=stream), so the CUDA events recorded on that stream bracket
each call. Cases, each with a new result (`alloc`: ufunc's result is a ufunc.device_array, CuPy's
a cupy.ndarray) and into a preallocated CuPy array (`out`):

    device: the time between two events around one call, synchronized after each, median of --reps
    percall: host time per call at 2^10, back-to-back calls (perf_counter, one synchronization
             at the end): what a Python caller pays per call for small arrays

stdout is CSV, `case,impl,variant,n,time_us,ratio_to_cupy` (ratio: ufunc's time over CuPy's),
after '#' lines with the date, the GPU and the versions. It needs CuPy and a ufunc module built
with the cuda target (pip install . -C cmake.define.UFUNC_ENABLE_CUDA=ON), and stops with a message
otherwise. The host counterpart is bench/python_bench.py.
"""

import argparse
import datetime
import platform
import statistics
import sys
import time

import numpy as np

import ufunc


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--reps", type=int, help="timed calls per case (51; --quick 11)")
    args = parser.parse_args()
    if args.reps is None:
        args.reps = 11 if args.quick else 51
    args.percall_calls = 200 if args.quick else 2000
    return args


def require_gpu():
    try:
        import cupy
    except ImportError:
        sys.exit("python_gpu_bench.py needs CuPy (pip install cupy-cuda12x or cupy-cuda13x) and a GPU; "
                 "bench/python_bench.py measures the host targets")
    if not ufunc.cuda_available():
        sys.exit("python_gpu_bench.py: this ufunc module has no cuda target or sees no GPU (build it with "
                 "pip install . -C cmake.define.UFUNC_ENABLE_CUDA=ON, on a machine with a GPU)")
    try:
        if cupy.cuda.runtime.getDeviceCount() == 0:
            raise RuntimeError("no device")
    except Exception as e:  # CuPy raises its own CUDARuntimeError without a driver
        sys.exit(f"python_gpu_bench.py: CuPy sees no GPU ({e})")
    return cupy


def main():
    args = parse_args()
    cp = require_gpu()
    stream = cp.cuda.Stream(non_blocking=True)
    props = cp.cuda.runtime.getDeviceProperties(0)
    runtime = cp.cuda.runtime.runtimeGetVersion()
    driver = cp.cuda.runtime.driverGetVersion()
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    print(f"# python_gpu_bench.py{' --quick' if args.quick else ''}: {now}")
    print(f"# gpu: {props['name'].decode()}, {props['multiProcessorCount']} SMs, "
          f"{props['totalGlobalMem'] / 2**30:.0f} GiB")
    print(f"# versions: python {platform.python_version()}, numpy {np.__version__}, cupy {cp.__version__}, "
          f"CUDA runtime {runtime // 1000}.{runtime % 1000 // 10}, driver {driver // 1000}.{driver % 1000 // 10}, "
          f"ufunc {ufunc.__version__}")
    print(f"# device: median of {args.reps} calls between CUDA events; percall: {args.percall_calls} calls")
    print("case,impl,variant,n,time_us,ratio_to_cupy", flush=True)

    start, end = cp.cuda.Event(), cp.cuda.Event()
    failures = 0
    ratios = []

    def device_us(f):
        with stream:
            f()  # warm-up: kernels loaded, memory pools filled
            stream.synchronize()
            times = []
            for _ in range(args.reps):
                start.record(stream)
                f()
                end.record(stream)
                end.synchronize()
                times.append(cp.cuda.get_elapsed_time(start, end) * 1e3)
        return statistics.median(times)

    def percall_us(f):
        with stream:
            f()
            stream.synchronize()
            t0 = time.perf_counter()
            for _ in range(args.percall_calls):
                f()
            stream.synchronize()
            return (time.perf_counter() - t0) / args.percall_calls * 1e6

    def emit(case, variant, n, t_ufunc, t_cupy):
        print(f"{case},cupy,{variant},{n},{t_cupy:.3f},1.000")
        print(f"{case},ufunc,{variant},{n},{t_ufunc:.3f},{t_ufunc / t_cupy:.3f}", flush=True)
        ratios.append((case, variant, n, t_ufunc / t_cupy))

    for log2n in (10, 14, 18, 22, 26):
        n = 1 << log2n
        with stream:
            i = cp.arange(n, dtype=cp.int64)
            a = (i % 1000).astype(cp.float32) * cp.float32(0.01) - cp.float32(5.0)
            b = (i % 777).astype(cp.float32) * cp.float32(0.02)
            out = cp.empty(n, cp.float32)
            del i
        cases = {
            "add_f32": (lambda: ufunc.add(a, b, stream=stream), lambda: cp.add(a, b),
                        lambda: ufunc.add(a, b, out=out, stream=stream), lambda: cp.add(a, b, out=out)),
            "sin_f32": (lambda: ufunc.sin(a, stream=stream), lambda: cp.sin(a),
                        lambda: ufunc.sin(a, out=out, stream=stream), lambda: cp.sin(a, out=out)),
        }
        for case, (u_alloc, c_alloc, u_out, c_out) in cases.items():
            with stream:
                got = cp.from_dlpack(u_alloc())
                if not cp.allclose(got, c_alloc(), rtol=1e-6, atol=1e-6):
                    print(f"# CHECK FAILED: ufunc {case} at n={n} differs from CuPy's", flush=True)
                    failures += 1
            emit(case, "alloc", n, device_us(u_alloc), device_us(c_alloc))
            emit(case, "out", n, device_us(u_out), device_us(c_out))
            if log2n == 10:
                emit(case, "percall_alloc", n, percall_us(u_alloc), percall_us(c_alloc))
                emit(case, "percall_out", n, percall_us(u_out), percall_us(c_out))

    print("# ratios (ufunc time / CuPy time; < 1: faster than CuPy):")
    for case, variant, n, ratio in ratios:
        print(f"#   {case} {variant:13} 2^{n.bit_length() - 1:<2} {ratio:6.2f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
