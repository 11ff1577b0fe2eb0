#!/usr/bin/env python3
"""Peers of bench/half_cuda_bench.cu (issue 21): CuPy float16 and PyTorch float16 and bfloat16, c = a + b and
c = sin(a) into a preallocated output (out=), at 2^24 and 2^28 elements (--sizes). CuPy has no bfloat16 dtype:
its bfloat16 rows are skipped with a '# skip' line.

    python3 bench/half_gpu_peers.py [--sizes 20,24,28] [--reps N]

Same data as half_cuda_bench (bench_common's a[i] = float32(i % 1000) * 0.01 - 5, b[i] = float32(i % 777) * 0.02,
each step a float32 operation, rounded to the dtype) and the same statistic: CUDA events around one call with the
stream held until the call is enqueued (gpu_peers.py's Timer, which half_cuda_bench's bench::gpu_timer mirrors),
median of --reps (30; 20 at 2^28) after 5 warm-up calls, input sets rotated below 4x the L2. Without CuPy (which
the held stream and the events come from), PyTorch's rows are timed with gpu_timing.py's median_time instead
(each call synchronized, wall clock; a '# timing' line says so). Every result is checked on the host against a
float32 computation rounded once: add bit for bit, sin within one unit of the dtype's last place.

Output: '#' notes and checks, then CSV op,dtype,impl,n,seconds,GBps (bytes = (inputs + output) x 2 x n).
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_timing import median_time  # noqa: E402

failures = 0


def note(text):
    print(f"# {text}", flush=True)


def round_to(x32, dtype):
    """float32 -> float16 or bfloat16 (to nearest, ties to even), returned as float32 values."""
    if dtype == "float16":
        return x32.astype(np.float16).astype(np.float32)
    u = x32.view(np.uint32).astype(np.uint64)
    u = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) << 16  # finite inputs only (no NaN here)
    return u.astype(np.uint32).view(np.float32)


def ulp_below_one(dtype):
    return 2.0**-11 if dtype == "float16" else 2.0**-8


def check(op, dtype, impl, n, got32, want32, tolerance):
    global failures
    err = np.abs(got32.astype(np.float64) - want32)
    worst = float(np.nanmax(err)) if not np.isnan(err).any() else float("nan")
    differ = int((got32 != want32).sum())
    ok = worst <= tolerance
    failures += 0 if ok else 1
    note(f"check,{op},{dtype},{impl},{n},{'ok' if ok else 'FAILED'}: {differ} of {n} elements differ from the "
         f"reference, max abs error {worst:g}")


def main():
    global failures
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="24,28", help="log2 of the sizes (24,28)")
    p.add_argument("--reps", type=int, default=0, help="timed reps (default 30; 20 at 2^28)")
    args = p.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    warmup = 5

    try:
        import cupy as cp
    except ImportError as e:
        cp = None
        note(f"skip,cupy: {e}")
    try:
        import torch

        if not torch.cuda.is_available():
            raise RuntimeError("torch.cuda.is_available() is False")
        note(f"versions,torch {torch.__version__} (CUDA {torch.version.cuda})")
    except Exception as e:  # noqa: BLE001 - any import or CUDA failure skips torch, with the reason
        torch = None
        note(f"skip,torch: {type(e).__name__}: {e}")
    if cp is None and torch is None:
        note("skip,no GPU peer could run")
        return 0

    if cp is not None:
        from gpu_peers import Timer, input_sets

        stream = cp.cuda.Stream(non_blocking=True)
        timer = Timer(cp, stream)
        props = cp.cuda.runtime.getDeviceProperties(0)
        l2 = int(props["l2CacheSize"])
        name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
        note(f"device,{name},sm_{props['major']}{props['minor']},L2 {l2 >> 20} MiB")
        note(f"versions,numpy {np.__version__},cupy {cp.__version__}")
        note("timing,CUDA events around one call, stream held until enqueued (gpu_peers.Timer)")
        torch_stream = torch.cuda.ExternalStream(stream.ptr) if torch is not None else None
    else:
        l2 = 50 << 20
        torch_stream = None
        note("timing,each call synchronized, wall clock (gpu_timing.median_time): CuPy is not installed")

        def input_sets(set_bytes, l2_bytes):
            return 1

    def measure(what, reps, enqueue):
        if cp is None:
            count = iter(range(1 << 30))
            return median_time(lambda: enqueue(next(count)), torch.cuda.synchronize, reps)
        if torch is not None:
            with torch.cuda.stream(torch_stream):
                return timer.measure(what, warmup, reps, enqueue) * 1e-6
        return timer.measure(what, warmup, reps, enqueue) * 1e-6

    def sync_all():  # the default streams and ours
        if cp is not None:
            cp.cuda.Device().synchronize()
        if torch is not None:
            torch.cuda.synchronize()

    def emit(op, dtype, impl, n, seconds):
        moved = (3 if op == "add" else 2) * 2 * n
        print(f"{op},{dtype},{impl},{n},{seconds:.9g},{moved / seconds / 1e9:.1f}", flush=True)

    print("op,dtype,impl,n,seconds,GBps", flush=True)
    note("skip,cupy bfloat16: CuPy has no bfloat16 dtype")
    for log2n in sizes:
        n = 1 << log2n
        reps = args.reps or (20 if log2n >= 28 else 30)
        i = np.arange(n, dtype=np.int64)
        a32 = (i % 1000).astype(np.float32) * np.float32(0.01) - np.float32(5.0)
        b32 = (i % 777).astype(np.float32) * np.float32(0.02)
        del i
        for dtype in ("float16", "bfloat16"):
            ar, br = round_to(a32, dtype), round_to(b32, dtype)
            want = {"add": round_to(ar + br, dtype), "sin": round_to(np.sin(ar), dtype)}
            tol = {"add": 0.0, "sin": ulp_below_one(dtype)}
            nsets = input_sets(3 * n * 2, l2)
            impls = []
            if cp is not None and dtype == "float16":
                with stream:
                    sets = [(cp.asarray(ar).astype(cp.float16), cp.asarray(br).astype(cp.float16),
                             cp.zeros(n, cp.float16)) for _ in range(nsets)]
                stream.synchronize()
                calls = {"add": lambda k: cp.add(sets[k % nsets][0], sets[k % nsets][1], out=sets[k % nsets][2]),
                         "sin": lambda k: cp.sin(sets[k % nsets][0], out=sets[k % nsets][2])}

                def cupy_call(call):
                    def run(k):
                        with stream:
                            call(k)
                    return run

                impls.append(("cupy", sets, {op: cupy_call(c) for op, c in calls.items()},
                              lambda x: cp.asnumpy(x).astype(np.float32)))
            if torch is not None:
                tdt = getattr(torch, dtype)
                tsets = [(torch.from_numpy(ar).cuda().to(tdt), torch.from_numpy(br).cuda().to(tdt),
                          torch.zeros(n, dtype=tdt, device="cuda")) for _ in range(nsets)]
                torch.cuda.synchronize()
                tcalls = {"add": lambda k: torch.add(tsets[k % nsets][0], tsets[k % nsets][1], out=tsets[k % nsets][2]),
                          "sin": lambda k: torch.sin(tsets[k % nsets][0], out=tsets[k % nsets][2])}

                def torch_call(call):
                    if torch_stream is None:
                        return call

                    def run(k):
                        with torch.cuda.stream(torch_stream):
                            call(k)
                    return run

                impls.append(("torch", tsets, {op: torch_call(c) for op, c in tcalls.items()},
                              lambda x: x.float().cpu().numpy()))
            for impl, sets_, calls_, to_host in impls:
                for op in ("add", "sin"):
                    what = f"{op} {dtype} {impl} n={n}"
                    try:
                        out = sets_[0][2]
                        out.fill_(123.0) if impl == "torch" else out.fill(123.0)  # a call that writes nothing fails
                        sync_all()
                        calls_[op](0)
                        sync_all()
                        check(op, dtype, impl, n, to_host(out), want[op], tol[op])
                        emit(op, dtype, impl, n, measure(what, reps, calls_[op]))
                    except Exception as e:  # noqa: BLE001 - report and go on with the other rows
                        failures += 1
                        note(f"error,{what}: {type(e).__name__}: {e}")
            del impls
            if cp is not None:
                stream.synchronize()
                cp.get_default_memory_pool().free_all_blocks()
            if torch is not None:
                torch.cuda.synchronize()
                torch.cuda.empty_cache()
    note("all checks passed" if failures == 0 else f"{failures} check(s) or case(s) FAILED")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
