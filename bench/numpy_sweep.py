#!/usr/bin/env python3
"""The size sweep of bench/run_all_cpu.sh, Python side: NumPy and Numba @vectorize (target 'cpu' and 'parallel').

    python3 numpy_sweep.py [--min-log2 K] [--max-log2 K] [--min-time S] [--min-samples N] [--max-samples N]
                           [--max-call-time S] [--cases add,sin,...] [--dtypes f32,f64] [--skip numba]
                           [--no-progress]

Same cases, data, adaptive timing and output as sweep_bench.cpp (see sweep_common.hpp): one line per measurement,
`case,dtype,size,impl,seconds,bytes`, with '#' lines of information (meta, check, note, skip). Impl names: numpy,
numba_cpu, numba_parallel. Every case writes into a preallocated output (out=) except call1024 (np.add(a, b) on
1024 elements, allocating: the per-call overhead). The sum is np.add.reduce(a) (what np.sum calls, without its
Python wrapper) and nb_add.reduce(a) for the Numba ufuncs. Without Numba only NumPy runs, and a '# skip' line says
why.
"""

import argparse
import math
import platform
import statistics
import sys
import time
import timeit

import numpy as np

CASES = ["add", "square", "sin", "exp", "bcast", "strided", "sum", "call1024"]
DTYPES = {"f32": np.float32, "f64": np.float64}


def bytes_moved(case, n, itemsize):
    if case in ("add", "strided", "call1024"):
        return 3 * n * itemsize
    if case in ("square", "sin", "exp", "copy"):
        return 2 * n * itemsize
    if case == "bcast":
        return (n + 2 * round(math.sqrt(n))) * itemsize
    if case == "sum":
        return n * itemsize
    return 0


def value_a(i, t):
    # Bit for bit sweep_common.hpp's value_a: every step is an operation in t.
    return (i % 1000).astype(t) * t(0.01) - t(5)


def value_b(i, t):
    return (i % 777).astype(t) * t(0.02)


def periodic(fn, period, n, t):
    """fn(arange(n), t) for an fn of i % period only: one period computed, then repeated (np.resize)."""
    return np.resize(fn(np.arange(period, dtype=np.int64), t), n)


def tolerance(case, t):
    f32 = t == np.float32
    if case in ("sin", "exp"):
        return 4e-6 if f32 else 1e-13
    if case == "sum":
        return 1e-3 if f32 else 1e-9
    return 0.0


failures = 0


def out(line):
    print(line, flush=True)


def emit(case, dt, n, impl, seconds):
    out(f"{case},{dt},{n},{impl},{seconds:.9g},{bytes_moved(case, n, np.dtype(DTYPES[dt]).itemsize)}")


def sample(n):
    """The indices a check compares: all of them up to 2^22, else the first and the last 2^21 (full float64 copies
    of 2^26-element results would take longer than the measurements)."""
    part = 1 << 21
    if n <= 2 * part:
        return np.arange(n, dtype=np.int64)
    return np.concatenate([np.arange(part, dtype=np.int64), np.arange(n - part, n, dtype=np.int64)])


def check(what, got, want, tol):
    global failures
    got = np.asarray(got, dtype=np.float64).reshape(-1)
    want = np.asarray(want, dtype=np.float64).reshape(-1)
    with np.errstate(invalid="ignore"):
        err = np.abs(got - want) / np.maximum(1.0, np.abs(want))
    worst = float(np.nanmax(err)) if err.size else 0.0
    if np.isnan(err).any():
        worst = math.inf
    ok = worst <= tol
    out(f"# check,{what},{'ok' if ok else 'FAIL'},max_rel_err={worst:g}")
    if not ok:
        failures += 1
        print(f"CHECK FAILED: {what}: max relative error {worst:g}", file=sys.stderr, flush=True)


def seconds_per_call(args, stmt, glb):
    """Median seconds per call of `stmt`, timed as sweep_common.hpp's seconds_per_call does. timeit compiles the
    statement into its own loop, so no Python function call is added to each call being timed."""
    timer = timeit.Timer(stmt, globals=glb)
    est = timer.timeit(1)
    if est < 1e-2:
        est = max(timer.timeit(1), 1e-9)
    calls = 1 if est >= args.min_sample_time else int(min(1e6, math.ceil(args.min_sample_time / est)))
    if calls > 1:
        timer.timeit(calls)
    samples = 1 if est > args.max_call_time else \
        min(max(int(args.min_time / (est * calls)), args.min_samples), args.max_samples)
    return statistics.median(t / calls for t in timer.repeat(repeat=samples, number=calls))


class Progress:
    """One stderr line per case and size: "[numpy_sweep 12s] 37/130 f32 2^22 exp" (steps done of all)."""

    def __init__(self, args):
        self.on = args.progress
        self.start = time.perf_counter()
        per_size = sum(c != "call1024" for c in args.cases)
        self.total = len(args.dtypes) * (len(args.sizes) * per_size + ("call1024" in args.cases))
        self.done = 0

    def step(self, dt, n, what):
        self.done += 1
        if self.on:
            print(f"[numpy_sweep {time.perf_counter() - self.start:4.0f}s] {self.done}/{self.total} {dt} "
                  f"2^{int(round(math.log2(n)))} {what}", file=sys.stderr, flush=True)

    def finish(self):
        if self.on:
            print(f"[numpy_sweep] done in {time.perf_counter() - self.start:.0f} s", file=sys.stderr, flush=True)


class SlowGuard:
    """Once a call of some (case, dtype, impl) takes more than --max-call-time, larger sizes of it are skipped
    (Numba's parallel broadcast takes about a minute per call at 2^26)."""

    def __init__(self, limit):
        self.limit = limit
        self.stopped = set()

    def skip(self, case, dt, impl):
        return (case, dt, impl) in self.stopped

    def record(self, case, dt, impl, n, seconds):
        if seconds > self.limit and (case, dt, impl) not in self.stopped:
            self.stopped.add((case, dt, impl))
            out(f"# skip,{case} {dt} {impl}: {seconds:.2f} s per call at n={n} (over --max-call-time "
                f"{self.limit:g} s): timed once, larger sizes not run")


def make_numba(skip):
    """{impl: {op: ufunc}} for the Numba targets that load; notes why any did not."""
    if "numba" in skip:
        out("# skip,numba: --skip numba")
        return {}
    try:
        import numba
    except Exception as e:  # noqa: BLE001 - any import failure (a NumPy too new for it, say) skips Numba
        out(f"# skip,numba: cannot import numba: {type(e).__name__}: {e}")
        return {}
    out(f"# meta,numba,{numba.__version__}")
    sig2 = ["float32(float32, float32)", "float64(float64, float64)"]
    sig1 = ["float32(float32)", "float64(float64)"]
    impls = {}
    for impl, target in (("numba_cpu", "cpu"), ("numba_parallel", "parallel")):
        try:
            ops = {
                "add": numba.vectorize(sig2, target=target)(lambda x, y: x + y),
                "square": numba.vectorize(sig1, target=target)(lambda x: x * x),
                "sin": numba.vectorize(sig1, target=target)(lambda x: math.sin(x)),
                "exp": numba.vectorize(sig1, target=target)(lambda x: math.exp(x)),
            }
            ops["add"](np.ones(4, np.float32), np.ones(4, np.float32))  # compiles / starts the thread pool
            impls[impl] = ops
        except Exception as e:  # noqa: BLE001
            out(f"# skip,{impl}: {type(e).__name__}: {e}")
    if "numba_parallel" in impls:
        out(f"# meta,numba_threading_layer,{numba.threading_layer()}")
        out(f"# meta,numba_threads,{numba.config.NUMBA_NUM_THREADS}")
    return impls


def run_size(args, dt, n, numba_impls, prog, guard):
    global failures
    t = DTYPES[dt]
    r = round(math.sqrt(n))
    a2 = periodic(value_a, 1000, 2 * n, t)
    a = a2[:n]
    b = periodic(value_b, 777, n, t)
    idx = sample(n)
    c = np.zeros(n, dtype=t)  # touched: no timed call pays for first page faults
    sa = a2[::2]
    col, row, c2d = a[:r].reshape(r, 1), b[:r].reshape(1, r), c.reshape(r, r)
    glb = {"np": np, "a": a, "b": b, "c": c, "sa": sa, "col": col, "row": row, "c2d": c2d}
    statements = {
        "add": ("{f}(a, b, out=c)", "add"),
        "square": ("{f}(a, out=c)", "square"),
        "sin": ("{f}(a, out=c)", "sin"),
        "exp": ("{f}(a, out=c)", "exp"),
        "bcast": ("{f}(col, row, out=c2d)", "add"),
        "strided": ("{f}(sa, b, out=c)", "add"),
        "sum": ("{f}.reduce(a)", "add"),
    }
    for case in args.cases:
        if case == "call1024":
            continue
        if case not in statements:
            out(f"# skip,unknown case '{case}'")
            continue
        if case == "bcast" and r * r != n:
            out(f"# skip,bcast {dt} n={n}: not a square size")
            continue
        prog.step(dt, n, case)
        stmt, op = statements[case]
        # The reference the checks use: NumPy itself where the result is exact, float64 (or NumPy's float64) for
        # sin and exp, a float64 pairwise sum for the sum.
        if case == "sin":
            want = np.sin(a[idx].astype(np.float64)) if t == np.float32 else np.sin(a[idx])
        elif case == "exp":
            want = np.exp(a[idx].astype(np.float64)) if t == np.float32 else np.exp(a[idx])
        elif case == "sum":
            want, abs_sum = float(np.sum(a, dtype=np.float64)), float(np.sum(np.abs(a), dtype=np.float64))
        else:
            want = None
        impls = [("numpy", getattr(np, op))] + [(name, ops[op]) for name, ops in numba_impls.items()]
        for impl, f in impls:
            what = f"{case} {dt} n={n} {impl}"
            if case == "sum" and impl == "numba_parallel":
                # A parallel @vectorize ufunc splits its inner loop over threads; NumPy's reduce calls that loop
                # with one accumulator for the whole range, so the threads would race on it.
                if n == args.sizes[0]:
                    out("# skip,sum numba_parallel: reduce of a target='parallel' ufunc would race on its "
                        "accumulator; no rows")
                continue
            if guard.skip(case, dt, impl):
                continue
            glb["f"] = f
            try:
                c.fill(np.nan)
                seconds = seconds_per_call(args, stmt.format(f="f"), glb)
                emit(case, dt, n, impl, seconds)
                guard.record(case, dt, impl, n, seconds)
                if case == "sum":
                    got = float(f.reduce(a))
                    err = abs(got - want) / max(1.0, abs_sum)
                    ok = err <= tolerance(case, t)
                    out(f"# check,{what},{'ok' if ok else 'FAIL'},rel_err_vs_sum_abs={err:g}")
                    if not ok:
                        failures += 1
                        print(f"CHECK FAILED: {what}: {err:g}", file=sys.stderr, flush=True)
                else:
                    if want is None and impl == "numpy":
                        ref = c[idx]  # exact cases: NumPy's result is the reference (the C++ side checks it)
                    check(what, c[idx], want if want is not None else ref, tolerance(case, t))
            except Exception as e:  # noqa: BLE001 - report and go on with the other rows
                failures += 1
                out(f"# error,{what}: {type(e).__name__}: {e}")


def run_call1024(args, dt, numba_impls):
    t = DTYPES[dt]
    n = 1024
    i = np.arange(n, dtype=np.int64)
    glb = {"np": np, "a": value_a(i, t), "b": value_b(i, t)}
    for impl, f in [("numpy", np.add)] + [(name, ops["add"]) for name, ops in numba_impls.items()]:
        glb["f"] = f
        emit("call1024", dt, n, impl, seconds_per_call(args, "f(a, b)", glb))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--min-log2", type=int, default=10)
    parser.add_argument("--max-log2", type=int, default=26)
    parser.add_argument("--min-time", type=float, default=0.1)
    parser.add_argument("--min-samples", type=int, default=3)
    parser.add_argument("--max-samples", type=int, default=100)
    parser.add_argument("--min-sample-time", type=float, default=2e-4)
    parser.add_argument("--max-call-time", type=float, default=1.0)
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--dtypes", default="f32,f64")
    parser.add_argument("--skip", default="", help="comma-separated: numba")
    parser.add_argument("--no-progress", dest="progress", action="store_false")
    args = parser.parse_args()
    args.cases = [c for c in args.cases.split(",") if c]
    args.dtypes = [d for d in args.dtypes.split(",") if d]
    args.max_samples = max(args.max_samples, args.min_samples)
    args.sizes = [1 << k for k in range(args.min_log2, args.max_log2 + 1, 2)]
    skip = {s for s in args.skip.split(",") if s}

    out(f"# meta,numpy,{np.__version__}")
    out(f"# meta,python,{platform.python_version()}")
    numba_impls = make_numba(skip)
    prog = Progress(args)
    guard = SlowGuard(args.max_call_time)
    for dt in args.dtypes:
        if dt not in DTYPES:
            out(f"# skip,unknown dtype '{dt}'")
            continue
        for n in args.sizes:
            run_size(args, dt, n, numba_impls, prog, guard)
        if "call1024" in args.cases:
            prog.step(dt, 1024, "call1024")
            run_call1024(args, dt, numba_impls)
    prog.finish()
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
