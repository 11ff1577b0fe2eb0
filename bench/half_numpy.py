#!/usr/bin/env python3
"""NumPy float16 and ml_dtypes bfloat16 beside bench/half_bench.cpp (issue 21): c = a + b and c = sin(a),
contiguous, into a preallocated output (out=), on one thread, with float32 as the reference row. Same data as
half_bench (bench_common's a[i] = float32(i % 1000) * 0.01 - 5, b[i] = float32(i % 777) * 0.02, every step a
float32 operation, then rounded to the dtype with astype) and the same statistic (best of --reps calls after
one untimed call). Prints CSV: op,dtype,target,n,threads,seconds,GBps (target "numpy"; GBps = (inputs +
output) itemsizes * n / seconds, 1 GB = 1e9 bytes).

    python3 bench/half_numpy.py [--log2n K | --n N] [--reps K] [--impl NAME]

NumPy's float16 sin is SIMD code where AVX-512 is on; run_half_gpu.sh also runs this with it off
(NPY_DISABLE_CPU_FEATURES, --impl numpy_x86_v3).
"""
import argparse
import os

# One thread, as the cpu rows of half_bench: NumPy's ufunc loops are serial, but a BLAS or OpenMP runtime that
# NumPy or ml_dtypes loads must not spin threads on the cores being measured.
for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")

import timeit  # noqa: E402

import numpy as np  # noqa: E402

try:
    import ml_dtypes
except ImportError:
    ml_dtypes = None


def make_data(n):
    # Bit for bit bench_common.cpp's make_data (as numpy_bench.py).
    i = np.arange(n, dtype=np.int64)
    a = (i % 1000).astype(np.float32) * np.float32(0.01) - np.float32(5.0)
    b = (i % 777).astype(np.float32) * np.float32(0.02)
    return a, b


def best_of(f, reps):
    f()
    return min(timeit.repeat(f, number=1, repeat=reps))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--log2n", type=int, default=24)
    p.add_argument("--n", type=int, default=0, help="elements (overrides --log2n)")
    p.add_argument("--reps", type=int, default=10)
    p.add_argument("--impl", default="numpy", help="the target column's value (numpy; numpy_x86_v3 for a capped run)")
    args = p.parse_args()
    n = args.n or 1 << args.log2n

    dtypes = [("float32", np.dtype(np.float32)), ("float16", np.dtype(np.float16))]
    if ml_dtypes is None:
        print("# skip,bfloat16: ml_dtypes is not installed (pip install ml_dtypes)")
    else:
        dtypes.append(("bfloat16", np.dtype(ml_dtypes.bfloat16)))
        print(f"# versions,numpy {np.__version__},ml_dtypes {ml_dtypes.__version__}")
    # NumPy's float16 sin is SIMD code on AVX-512 machines (its dispatch targets name the level in use);
    # NPY_DISABLE_CPU_FEATURES caps them, as bench/run_trig.sh does.
    umath = np._core._multiarray_umath
    dispatch = [t for t in umath.__cpu_dispatch__ if umath.__cpu_features__.get(t)]
    disabled = os.environ.get("NPY_DISABLE_CPU_FEATURES", "")
    print(f"# numpy_simd,baseline {' '.join(umath.__cpu_baseline__)}; dispatch targets on: {' '.join(dispatch) or 'none'}"
          f"; NPY_DISABLE_CPU_FEATURES='{disabled}'")
    print(f"# timing,best of {args.reps} calls after one untimed call, out= preallocated")
    a32, b32 = make_data(n)
    print("op,dtype,target,n,threads,seconds,GBps")
    for name, dt in dtypes:
        a, b = a32.astype(dt), b32.astype(dt)
        c = np.zeros(n, dtype=dt)  # touched, as the C++ outputs
        for op, moved, call in (("add", 3, lambda: np.add(a, b, out=c)), ("sin", 2, lambda: np.sin(a, out=c))):
            s = best_of(call, args.reps)
            print(f"{op},{name},{args.impl},{n},1,{s:.9g},{moved * dt.itemsize * n / s / 1e9:.3f}", flush=True)


if __name__ == "__main__":
    main()
