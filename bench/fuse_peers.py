"""NumPy and numexpr on the expressions of bench/fuse_bench.cpp, sqrt(a*a + b*b), the
Black-Scholes call price (r = 0.02, v = 0.30) and the reduction add.reduce(a * b) ("dot":
NumPy's chain and np.dot, numexpr's sum()), same sizes and CSV columns
(expr,dtype,n,impl,target,seconds). numexpr runs with as many threads as the
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

            tm = median_seconds(lambda: np.add.reduce(a * b))
            print(f"dot,{name},{n},numpy,cpu,{tm:.9g}")
            tm = median_seconds(lambda: np.dot(a, b))
            print(f"dot,{name},{n},numpy_dot,cpu,{tm:.9g}")
            if numexpr is not None:
                for threads, target in ((1, "cpu"), (os.cpu_count(), "parallel")):
                    numexpr.set_num_threads(threads)
                    tm = median_seconds(lambda: numexpr.evaluate("sum(a*b)", local_dict={"a": a, "b": b}))
                    print(f"dot,{name},{n},numexpr,{target},{tm:.9g}")

            s, x, t = (np.full(n, v, dtype=dtype) for v in (42.0, 40.0, 0.5))
            tm = median_seconds(lambda: np.copyto(out, bs_call_numpy(s, x, t, dtype)))
            print(f"bs_call,{name},{n},numpy,cpu,{tm:.9g}")
            if numexpr is not None:
                for threads, target in ((1, "cpu"), (os.cpu_count(), "parallel")):
                    numexpr.set_num_threads(threads)
                    tm = median_seconds(lambda: numexpr.evaluate(BS_CALL, local_dict={"s": s, "x": x, "t": t},
                                                                 out=out, casting="unsafe"))
                    print(f"bs_call,{name},{n},numexpr,{target},{tm:.9g}")


def cnd_text(d):
    k = f"(1.0 / (1.0 + 0.2316419 * abs({d})))"
    poly = f"({k} * (0.31938153 + {k} * (-0.356563782 + {k} * (1.781477937 + {k} * (-1.821255978 + {k} * 1.330274429)))))"
    ret = f"(0.39894228040143267794 * exp(-0.5 * {d} * {d}) * {poly})"
    return f"where({d} > 0, 1.0 - {ret}, {ret})"


D1 = "((log(s / x) + (0.02 + 0.5 * 0.30 * 0.30) * t) / (0.30 * sqrt(t)))"
D2 = f"({D1} - 0.30 * sqrt(t))"
# numexpr: the call price as one string (its own common subexpressions are not shared).
BS_CALL = f"s * {cnd_text(D1)} - x * exp(-0.02 * t) * {cnd_text(D2)}"


def bs_call_numpy(s, x, t, dtype):
    r, v = dtype(0.02), dtype(0.30)

    def cnd(d):
        k = 1.0 / (1.0 + 0.2316419 * np.abs(d))
        ret = 0.39894228040143267794 * np.exp(-0.5 * d * d) * (
            k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429)))))
        return np.where(d > 0, 1.0 - ret, ret)

    sqrt_t = np.sqrt(t)
    d1 = (np.log(s / x) + (r + 0.5 * v * v) * t) / (v * sqrt_t)
    d2 = d1 - v * sqrt_t
    return s * cnd(d1) - x * np.exp(-r * t) * cnd(d2)


if __name__ == "__main__":
    main()
