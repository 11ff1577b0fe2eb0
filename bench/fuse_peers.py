"""NumPy and numexpr on the expression of bench/fuse_bench.cpp, sqrt(a*a + b*b), same sizes
and CSV columns (expr,dtype,n,impl,target,seconds). numexpr runs with as many threads as the
machine has (its target 'parallel') and with one (its target 'cpu').

    python3 bench/fuse_peers.py [log2 sizes...]
"""
import os
import sys
import time

import numpy as np

try:
    import numexpr
except ImportError:
    numexpr = None


def median_seconds(f, min_total=0.2):
    f()
    times = []
    while sum(times) < min_total or len(times) < 5:
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[len(times) // 2]


def main():
    sizes = [int(s) for s in sys.argv[1:]] or [16, 20, 22, 24]
    print("expr,dtype,n,impl,target,seconds")
    for log2 in sizes:
        n = 1 << log2
        for dtype, name in ((np.float32, "f32"), (np.float64, "f64")):
            a = np.full(n, 1.25, dtype=dtype)
            b = np.full(n, 2.5, dtype=dtype)
            out = np.empty(n, dtype=dtype)
            t = median_seconds(lambda: np.sqrt(a * a + b * b, out=out))
            print(f"hyp,{name},{n},numpy,cpu,{t:.9g}")
            if numexpr is not None:
                for threads, target in ((1, "cpu"), (os.cpu_count(), "parallel")):
                    numexpr.set_num_threads(threads)
                    t = median_seconds(lambda: numexpr.evaluate("sqrt(a*a + b*b)", local_dict={"a": a, "b": b}, out=out))
                    print(f"hyp,{name},{n},numexpr,{target},{t:.9g}")


if __name__ == "__main__":
    main()
