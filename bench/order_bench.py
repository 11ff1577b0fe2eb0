"""NumPy on the cases of order_bench.cpp: np.add on transposed operands (order='K'
allocates the result in their order) against C-ordered ones.

    python3 bench/order_bench.py [samples] [rows cols]
"""
import sys
import time

import numpy as np


def time_case(name, samples, f):
    r = f()
    ms = []
    for _ in range(samples):
        t0 = time.perf_counter()
        r = f()
        ms.append((time.perf_counter() - t0) * 1e3)
    ms.sort()
    print(f"{name:<26} median {ms[len(ms) // 2]:8.2f} ms  min {ms[0]:8.2f} ms  strides {r.strides}")


def main():
    samples = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    rows, cols = (int(sys.argv[2]), int(sys.argv[3])) if len(sys.argv) > 3 else (4096, 4096)
    i = np.arange(rows * cols)
    a = ((i % 1000) * np.float32(0.01) - np.float32(5)).astype(np.float32).reshape(rows, cols)
    b = ((i % 777) * np.float32(0.02)).astype(np.float32).reshape(rows, cols)
    print(f"NumPy {np.__version__}, float32 {rows} x {cols}, {samples} samples")
    time_case("add(a, b)", samples, lambda: np.add(a, b))
    time_case("add(a.T, b.T)", samples, lambda: np.add(a.T, b.T))
    time_case("add(a.T, b)   [square]", samples, lambda: np.add(a.T, b) if rows == cols else np.add(a, b))


if __name__ == "__main__":
    main()
