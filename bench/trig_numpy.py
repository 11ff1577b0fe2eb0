#!/usr/bin/env python3
"""NumPy's float32 np.sin and np.cos with out=, the input of trig_bench and trig_call_bench.

    python3 trig_numpy.py [--rounds N] [--log2n K]

Each round times np.sin(a, out=c) and np.cos(a, out=c) once each (interleaved); prints the
median and the best Gelem/s, and which SIMD extensions NumPy dispatches to: run_trig.sh caps
them with NPY_DISABLE_CPU_FEATURES to match each instruction set of the library.
"""

import argparse
import os
import statistics
import time

import numpy as np


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--log2n", type=int, default=24)
    args = parser.parse_args()
    n = 1 << args.log2n
    # Bit for bit the C++ expression float(i % 1000) * 0.01f - 5.0f.
    i = np.arange(n, dtype=np.int64)
    a = (i % 1000).astype(np.float32) * np.float32(0.01) - np.float32(5.0)
    c = np.zeros(n, dtype=np.float32)
    reps = max(1, (1 << 19) // n)
    rates = {"sin": [], "cos": []}
    funcs = {"sin": np.sin, "cos": np.cos}
    for f in funcs.values():
        f(a, out=c)
    for _ in range(args.rounds):
        for name, f in funcs.items():
            t0 = time.perf_counter()
            for _ in range(reps):
                f(a, out=c)
            rates[name].append(n * reps / (time.perf_counter() - t0) / 1e9)
    umath = np._core._multiarray_umath
    dispatch = [t for t in umath.__cpu_dispatch__ if umath.__cpu_features__.get(t)]
    disabled = os.environ.get("NPY_DISABLE_CPU_FEATURES", "")
    print(f"NumPy {np.__version__}, NPY_DISABLE_CPU_FEATURES='{disabled}': baseline {' '.join(umath.__cpu_baseline__)}, "
          f"dispatch targets on: {' '.join(dispatch) or 'none'}")
    for name in funcs:
        print(f"np.{name} 2^{args.log2n} out=: {statistics.median(rates[name]):.3f} (best {max(rates[name]):.3f}) Gelem/s")


if __name__ == "__main__":
    main()
