#!/usr/bin/env python3
"""The cases of cuda_bench.cu, measured with CuPy, PyTorch and Numba CUDA.

    python3 gpu_peers.py [--quick] [--reps N] [--skip cupy,torch,numba]

Same data (the same formulas), same statistic, same output as cuda_bench: '#' lines are notes and result checks,
every measurement is one CSV line

    case,impl,n,bytes_moved,median_us,GBps

with impl cupy, torch or numba (cupy_alloc-style variants are separate cases: add_f32_alloc, bcast_f32_alloc, ...).
Device times: CUDA events around ONE call, median over reps, after warm-up; before each rep the stream is held by a
kernel spinning on a host flag until the call has been enqueued, so the events bracket GPU work, not Python's time
to issue the call (cuda_bench does the same; cupyx.profiler.benchmark would include the issue time for short calls).
percall_*: host time per call (time.perf_counter over back-to-back calls, one synchronization at the end).
Sizes that fit in L2 rotate over enough input sets to stream >= 4x the L2 between two uses of a set.
"""

import argparse
import statistics
import sys
import time

import numpy as np

HOLD_SOURCE = r"""
extern "C" __global__ void hold_stream(const volatile int* flag, volatile int* timed_out,
                                       unsigned long long timeout_ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  while (*flag == 0) {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (now - start > timeout_ns) { *timed_out = 1; return; }
    __nanosleep(500);
  }
}
"""

failures = 0


def emit(case, impl, n, nbytes, median_us):
    print(f"{case},{impl},{n},{nbytes},{median_us:.3f},{nbytes / median_us / 1e3:.1f}", flush=True)


def note(text):
    print(f"# {text}", flush=True)


def value_a(i, dtype):
    # cuda_bench.cu's value_a: float(i % 1000) * 0.5 - 3.3 in `dtype`; the product is exact, so every library
    # (and a fused multiply-add) gives the same bits.
    return (i % 1000).astype(dtype) * dtype(0.5) - dtype(3.3)


def value_b(i, dtype):
    return (i % 777).astype(dtype) * dtype(0.125) + dtype(0.1)


def input_sets(set_bytes, l2_bytes):
    if set_bytes >= 4 * l2_bytes:
        return 1
    return int(min(64, max(2, -(-4 * l2_bytes // set_bytes))))


class Timer:
    """CUDA-event timing of one call per rep, with the stream held until the call is enqueued (see the module doc)."""

    def __init__(self, cp, stream):
        self.cp = cp
        self.stream = stream
        self.kernel = cp.RawKernel(HOLD_SOURCE, "hold_stream")
        # Pinned host memory; with unified addressing (every 64-bit Linux CUDA system) the same pointer is valid in
        # kernels.
        self.flags_mem = cp.cuda.alloc_pinned_memory(8)
        self.flags = np.frombuffer(self.flags_mem, dtype=np.int32, count=2)
        self.start = cp.cuda.Event()
        self.stop = cp.cuda.Event()

    def measure(self, what, warmup, reps, enqueue):
        for w in range(warmup):
            enqueue(w)
        self.stream.synchronize()
        t = self._run(warmup, reps, enqueue, hold=True)
        if t is None:
            note(f"note,{what}: the call waited for the GPU while the stream was held (it synchronizes); timed "
                 "without holding the stream, so host issue time is included")
            t = self._run(warmup, reps, enqueue, hold=False)
        return t

    def _run(self, first, reps, enqueue, hold):
        cp = self.cp
        us = []
        for r in range(reps):
            if hold:
                self.flags[:] = 0
                self.kernel((1,), (1,), (self.flags_mem.ptr, self.flags_mem.ptr + 4, np.uint64(200_000_000)),
                            stream=self.stream)
            self.start.record(self.stream)
            try:
                enqueue(first + r)
            finally:
                self.flags[0] = 1  # never leave the stream held behind an exception
            self.stop.record(self.stream)
            self.stop.synchronize()
            if hold and self.flags[1] != 0:
                return None
            us.append(cp.cuda.get_elapsed_time(self.start, self.stop) * 1e3)
        return statistics.median(us)


def host_per_call(sync, call, calls, samples):
    for _ in range(max(1, calls // 5)):
        call()
    sync()
    per_call = []
    for _ in range(samples):
        t0 = time.perf_counter()
        for _ in range(calls):
            call()
        sync()
        per_call.append((time.perf_counter() - t0) / calls * 1e6)
    return statistics.median(per_call)


def check(case, impl, n, got_host, want_host):
    """Bitwise comparison of host copies (the sums are correctly rounded everywhere)."""
    global failures
    got = np.ascontiguousarray(got_host).reshape(-1)
    want = np.ascontiguousarray(want_host).reshape(-1)
    diff = got.view(f"u{got.itemsize}") != want.view(f"u{want.itemsize}")
    count = int(diff.sum())
    if count == 0:
        note(f"check,{case},{impl},{n},ok")
    else:
        failures += 1
        i = int(np.flatnonzero(diff)[0])
        note(f"check,{case},{impl},{n},FAILED: {count} of {got.size} checked elements differ; first at checked "
             f"position {i}: got {got[i]!r}, want {want[i]!r}")


class Cases:
    def __init__(self, args):
        import cupy as cp

        self.cp = cp
        self.args = args
        self.warmup = 2 if args.quick else 5
        self.reps = args.reps or (10 if args.quick else 30)
        self.reps_large = args.reps or (5 if args.quick else 20)
        self.percall_calls = 2000 if args.quick else 10000
        self.percall_samples = 3 if args.quick else 7
        self.stream = cp.cuda.Stream(non_blocking=True)
        self.timer = Timer(cp, self.stream)
        props = cp.cuda.runtime.getDeviceProperties(0)
        self.l2 = int(props["l2CacheSize"])
        name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
        note(f"device,{name},sm_{props['major']}{props['minor']},L2 {self.l2 >> 20} MiB")
        note(f"versions,python {sys.version.split()[0]},numpy {np.__version__},cupy {cp.__version__}")
        self.torch = None
        if "torch" not in args.skip:
            try:
                import torch

                if not torch.cuda.is_available():
                    raise RuntimeError("torch.cuda.is_available() is False")
                self.torch = torch
                # torch issues on the same stream as CuPy, so one held stream serves both.
                self.torch_stream = torch.cuda.ExternalStream(self.stream.ptr)
                note(f"versions,torch {torch.__version__} (CUDA {torch.version.cuda})")
            except Exception as e:  # noqa: BLE001 - any import or CUDA failure skips torch, with the reason
                note(f"skip,torch: {type(e).__name__}: {e}")
        self.numba = None
        if "numba" not in args.skip:
            try:
                from numba import cuda as nb_cuda
                from numba import vectorize
                import numba

                @vectorize(["float32(float32, float32)"], target="cuda")
                def nb_add(x, y):
                    return x + y

                self.numba = (nb_cuda, nb_add)
                self.numba_stream = nb_cuda.external_stream(self.stream.ptr)
                note(f"versions,numba {numba.__version__}")
            except Exception as e:  # noqa: BLE001
                note(f"skip,numba: {type(e).__name__}: {e}")
        self.use_cupy = "cupy" not in args.skip

    # -- helpers ---------------------------------------------------------------------------------------------------

    def device_inputs(self, n, dtype, shape=None):
        cp = self.cp
        with self.stream:
            i = cp.arange(n, dtype=cp.int64)
            a, b = value_a(i, dtype), value_b(i, dtype)
            if shape is not None:
                a, b = a.reshape(shape), b.reshape(shape)
        self.stream.synchronize()
        return a, b

    def torch_of(self, x):
        return self.torch.as_tensor(x, device="cuda")  # zero-copy through __cuda_array_interface__

    def measure(self, what, reps, enqueue):
        if self.torch is not None:
            with self.torch.cuda.stream(self.torch_stream):
                return self.timer.measure(what, self.warmup, reps, enqueue)
        return self.timer.measure(what, self.warmup, reps, enqueue)

    def run_guarded(self, what, body):
        global failures
        try:
            body()
        except Exception as e:  # noqa: BLE001 - report and continue with the other cases
            failures += 1
            note(f"error,{what}: {type(e).__name__}: {e}")

    def release(self):
        self.stream.synchronize()
        self.cp.get_default_memory_pool().free_all_blocks()
        if self.torch is not None:
            self.torch.cuda.synchronize()
            self.torch.cuda.empty_cache()

    def checked(self, case, impl, n, got, want_fn, sample=None):
        """Compares `got` (device) with want_fn(flat indices) computed on the host; above 2^24 elements, on a
        sample of 2^20 indices spread over the array plus the last one (a full host copy would dominate the run)."""
        cp = self.cp
        self.stream.synchronize()
        if self.torch is not None and isinstance(got, self.torch.Tensor):
            self.torch.cuda.synchronize()
            got = cp.asarray(got)
        flat = got.reshape(-1)
        if flat.size > (1 << 24):
            idx = np.unique(np.concatenate([np.linspace(0, flat.size - 1, 1 << 20).astype(np.int64),
                                            [flat.size - 1]]))
            got_host = cp.asnumpy(flat[cp.asarray(idx)])
        else:
            idx = np.arange(flat.size, dtype=np.int64)
            got_host = cp.asnumpy(flat)
        check(case, impl, n, got_host, want_fn(idx))

    # -- cases -----------------------------------------------------------------------------------------------------

    def add(self, dtype, type_name, n, with_alloc, with_numba):
        cp = self.cp
        case = f"add_{type_name}"
        itemsize = np.dtype(dtype).itemsize
        nbytes = 3 * n * itemsize
        nsets = input_sets(nbytes, self.l2)
        reps = self.reps_large if n >= 1 << 28 else self.reps
        note(f"case,{case},n={n},input sets={nsets}")
        sets = [self.device_inputs(n, dtype) for _ in range(nsets)]
        outs = [cp.empty(n, dtype=dtype) for _ in range(nsets)]
        want = lambda idx: value_a(idx, dtype) + value_b(idx, dtype)  # noqa: E731

        if self.use_cupy:
            def cupy_out():
                with self.stream:
                    outs[0].fill(np.nan)
                    cp.add(sets[0][0], sets[0][1], out=outs[0])
                self.checked(case, "cupy", n, outs[0], want)

                def call(r):
                    k = r % nsets
                    cp.add(sets[k][0], sets[k][1], out=outs[k])
                with self.stream:
                    emit(case, "cupy", n, nbytes, self.measure(f"{case} n={n} cupy", reps, call))
            self.run_guarded(f"{case} n={n} cupy", cupy_out)

            if with_alloc:
                def cupy_alloc():
                    with self.stream:
                        r0 = cp.add(sets[0][0], sets[0][1])
                    self.checked(case + "_alloc", "cupy", n, r0, want)
                    del r0

                    def call(r):
                        k = r % nsets
                        cp.add(sets[k][0], sets[k][1])
                    with self.stream:
                        emit(case + "_alloc", "cupy", n, nbytes, self.measure(f"{case}_alloc n={n} cupy", reps, call))
                self.run_guarded(f"{case}_alloc n={n} cupy", cupy_alloc)

        if self.torch is not None:
            torch = self.torch
            ta = [(self.torch_of(a), self.torch_of(b)) for a, b in sets]
            tc = [self.torch_of(c) for c in outs]

            def torch_out():
                with torch.cuda.stream(self.torch_stream):
                    tc[0].fill_(float("nan"))
                    torch.add(ta[0][0], ta[0][1], out=tc[0])
                self.checked(case, "torch", n, tc[0], want)

                def call(r):
                    k = r % nsets
                    torch.add(ta[k][0], ta[k][1], out=tc[k])
                emit(case, "torch", n, nbytes, self.measure(f"{case} n={n} torch", reps, call))
            self.run_guarded(f"{case} n={n} torch", torch_out)

            if with_alloc:
                def torch_alloc():
                    with torch.cuda.stream(self.torch_stream):
                        r0 = torch.add(ta[0][0], ta[0][1])
                    self.checked(case + "_alloc", "torch", n, r0, want)
                    del r0

                    def call(r):
                        k = r % nsets
                        torch.add(ta[k][0], ta[k][1])
                    emit(case + "_alloc", "torch", n, nbytes, self.measure(f"{case}_alloc n={n} torch", reps, call))
                self.run_guarded(f"{case}_alloc n={n} torch", torch_alloc)

        if with_numba and self.numba is not None:
            nb_cuda, nb_add = self.numba
            na = [(nb_cuda.as_cuda_array(a), nb_cuda.as_cuda_array(b)) for a, b in sets]
            nc = [nb_cuda.as_cuda_array(c) for c in outs]

            def numba_out():
                with self.stream:
                    outs[0].fill(np.nan)
                self.stream.synchronize()
                nb_add(na[0][0], na[0][1], out=nc[0], stream=self.numba_stream)
                self.checked(case, "numba", n, outs[0], want)

                def call(r):
                    k = r % nsets
                    nb_add(na[k][0], na[k][1], out=nc[k], stream=self.numba_stream)
                emit(case, "numba", n, nbytes, self.measure(f"{case} n={n} numba", reps, call))
            self.run_guarded(f"{case} n={n} numba", numba_out)

        del sets, outs
        self.release()

    def broadcast(self):
        cp = self.cp
        rows = cols = 8192
        n = rows * cols
        nbytes = n * 4
        note("case,bcast_f32,(8192,1)+(1,8192),GB/s of output bytes")
        a, b = self.device_inputs(rows, np.float32)
        a, b = a.reshape(rows, 1), b.reshape(1, cols)
        out = cp.empty((rows, cols), dtype=np.float32)
        want = lambda idx: value_a(idx // cols, np.float32) + value_b(idx % cols, np.float32)  # noqa: E731
        self._out_and_alloc("bcast_f32", n, nbytes, a, b, out, want)
        del a, b, out
        self.release()

    def strided(self):
        cp = self.cp
        rows, cols = 8192, 16384
        out_cols = cols // 2
        n = rows * out_cols
        nbytes = 3 * n * 4
        note("case,strided_f32,a[:, ::2] + b[:, ::2] of (8192,16384),GB/s of needed bytes")
        a, b = self.device_inputs(rows * cols, np.float32, (rows, cols))
        out = cp.empty((rows, out_cols), dtype=np.float32)

        def want(idx):
            src = (idx // out_cols) * cols + 2 * (idx % out_cols)
            return value_a(src, np.float32) + value_b(src, np.float32)
        self._out_and_alloc("strided_f32", n, nbytes, a[:, ::2], b[:, ::2], out, want)
        del a, b, out
        self.release()

    def _out_and_alloc(self, case, n, nbytes, a, b, out, want):
        cp = self.cp
        if self.use_cupy:
            def cupy_cases():
                with self.stream:
                    out.fill(np.nan)
                    cp.add(a, b, out=out)
                self.checked(case, "cupy", n, out, want)
                with self.stream:
                    emit(case, "cupy", n, nbytes,
                         self.measure(f"{case} cupy", self.reps, lambda r: cp.add(a, b, out=out)))
                    r0 = a + b
                self.checked(case + "_alloc", "cupy", n, r0, want)
                del r0
                with self.stream:
                    emit(case + "_alloc", "cupy", n, nbytes,
                         self.measure(f"{case}_alloc cupy", self.reps, lambda r: a + b))
            self.run_guarded(f"{case} cupy", cupy_cases)
        if self.torch is not None:
            torch = self.torch
            ta, tb, tout = self.torch_of(a), self.torch_of(b), self.torch_of(out)

            def torch_cases():
                with torch.cuda.stream(self.torch_stream):
                    tout.fill_(float("nan"))
                    torch.add(ta, tb, out=tout)
                self.checked(case, "torch", n, tout, want)
                emit(case, "torch", n, nbytes,
                     self.measure(f"{case} torch", self.reps, lambda r: torch.add(ta, tb, out=tout)))
                with torch.cuda.stream(self.torch_stream):
                    r0 = ta + tb
                self.checked(case + "_alloc", "torch", n, r0, want)
                del r0
                emit(case + "_alloc", "torch", n, nbytes,
                     self.measure(f"{case}_alloc torch", self.reps, lambda r: ta + tb))
            self.run_guarded(f"{case} torch", torch_cases)

    def percall(self):
        cp = self.cp
        n = 1024
        nbytes = 3 * n * 4
        calls, samples = self.percall_calls, self.percall_samples
        note(f"case,percall_f32,n=1024,host time per call over {calls} back-to-back calls "
             f"(median of {samples} samples)")
        a, b = self.device_inputs(n, np.float32)
        out = cp.empty(n, dtype=np.float32)
        sync = self.stream.synchronize
        if self.use_cupy:
            def cupy_cases():
                with self.stream:
                    emit("percall_f32", "cupy", n, nbytes,
                         host_per_call(sync, lambda: cp.add(a, b, out=out), calls, samples))
                    emit("percall_f32_alloc", "cupy", n, nbytes, host_per_call(sync, lambda: a + b, calls, samples))
            self.run_guarded("percall cupy", cupy_cases)
        if self.torch is not None:
            torch = self.torch
            ta, tb, tout = self.torch_of(a), self.torch_of(b), self.torch_of(out)

            def torch_cases():
                with torch.cuda.stream(self.torch_stream):
                    emit("percall_f32", "torch", n, nbytes,
                         host_per_call(sync, lambda: torch.add(ta, tb, out=tout), calls, samples))
                    emit("percall_f32_alloc", "torch", n, nbytes, host_per_call(sync, lambda: ta + tb, calls, samples))
            self.run_guarded("percall torch", torch_cases)
        if self.numba is not None:
            nb_cuda, nb_add = self.numba
            na, nb, nc = nb_cuda.as_cuda_array(a), nb_cuda.as_cuda_array(b), nb_cuda.as_cuda_array(out)
            # Numba's dispatch costs tens of microseconds per call: fewer calls keep the run short.
            self.run_guarded("percall numba", lambda: emit(
                "percall_f32", "numba", n, nbytes,
                host_per_call(sync, lambda: nb_add(na, nb, out=nc, stream=self.numba_stream), max(100, calls // 10),
                              samples)))
        del a, b, out
        self.release()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer reps and no 2^28 cases (a smoke test)")
    parser.add_argument("--reps", type=int, default=0, help="timed reps per case (default 30, 20 at 2^28)")
    parser.add_argument("--skip", default="", help="comma-separated peers to leave out: cupy,torch,numba")
    args = parser.parse_args()
    args.skip = {s.strip() for s in args.skip.split(",") if s.strip()}

    try:
        import cupy  # noqa: F401
    except Exception as e:  # noqa: BLE001
        # CuPy provides the streams, events and the stream-holding kernel for every peer.
        note(f"skip,all peers: CuPy is needed for timing and could not be imported: {type(e).__name__}: {e}")
        return 1
    note("columns,case,impl,n,bytes_moved,median_us,GBps")
    c = Cases(args)
    note(f"timing,device cases: median of {c.reps} reps ({c.reps_large} at 2^28) after {c.warmup} warm-up, one call "
         "per rep between CUDA events, stream held until enqueued")
    f32_exps = [20, 24] if args.quick else [20, 24, 28]
    for e in f32_exps:
        c.add(np.float32, "f32", 1 << e, with_alloc=True, with_numba=(e == 24))
    for e in ([24] if args.quick else [24, 28]):
        c.add(np.float64, "f64", 1 << e, with_alloc=False, with_numba=False)
    c.broadcast()
    c.strided()
    c.percall()
    note("all checks passed" if failures == 0 else f"{failures} check(s) or case(s) FAILED")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
