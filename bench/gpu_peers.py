#!/usr/bin/env python3
"""The cases of cuda_bench.cu, measured with CuPy, PyTorch and Numba CUDA.

    python3 gpu_peers.py [--quick] [--reps N] [--skip cupy,torch,numba]
    python3 gpu_peers.py --sweep [--quick] [--reps N] [--min-log2 K] [--max-log2 K] [--cases ...] [--dtypes ...]

--sweep measures the size sweep of bench/run_all_gpu.sh instead (class Sweep below; bench/README.md).

Same data (the same formulas), same statistic, same output as cuda_bench: '#' lines are notes and result checks,
every measurement is one CSV line

    case,impl,n,bytes_moved,median_us,GBps

with impl cupy, torch or numba (cupy_alloc-style variants are separate cases: add_f32_alloc, bcast_f32_alloc, ...).
Device times: CUDA events around ONE call, median over reps, after warm-up; before each rep the stream is held by a
kernel spinning on a host flag until the call has been enqueued, so the events bracket GPU work, not Python's time
to issue the call (cuda_bench does the same; cupyx.profiler.benchmark would include the issue time for short calls).
percall_*: host time per call (time.perf_counter over back-to-back calls, one synchronization at the end);
percall_f32_enqueue: the same with the launch queue never full (batches of 100 calls, drained between batches).
Sizes that fit in L2 rotate over enough input sets to stream >= 4x the L2 between two uses of a set.
"""

import argparse
import math
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


def host_enqueue(sync, call, calls, samples, batch=100):
    """Per-call host time with the launch queue never full: batches of `batch` calls timed from the first call to
    the return of the last, the GPU drained between batches outside the timing; median over batches."""
    for _ in range(batch):
        call()
    sync()
    per_call = []
    for _ in range(max(20, calls * samples // batch // 4)):
        t0 = time.perf_counter()
        for _ in range(batch):
            call()
        t1 = time.perf_counter()
        sync()
        per_call.append((t1 - t0) / batch * 1e6)
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
        self.outer(a.reshape(rows), b.reshape(cols), out)
        del a, b, out
        self.release()

    def outer(self, a, b, out):
        """multiply.outer of two 8192-vectors into (8192, 8192) float32; GB/s of the output."""
        rows, cols = a.size, b.size
        note("case,outer_f32,multiply.outer of two 8192-vectors,GB/s of output bytes")
        want = lambda idx: value_a(idx // cols, np.float32) * value_b(idx % cols, np.float32)  # noqa: E731
        torch_outer = None if self.torch is None else self.torch.outer
        self._out_and_alloc("outer_f32", rows * cols, rows * cols * 4, a, b, out, want,
                            cupy_op=self.cp.multiply.outer, torch_op=torch_outer)

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

    def _out_and_alloc(self, case, n, nbytes, a, b, out, want, cupy_op=None, torch_op=None):
        """Times op(a, b, out=out) and the allocating op(a, b) for CuPy and PyTorch (default: add)."""
        cp = self.cp
        cupy_op = cupy_op or cp.add
        if self.use_cupy:
            def cupy_cases():
                with self.stream:
                    out.fill(np.nan)
                    cupy_op(a, b, out=out)
                self.checked(case, "cupy", n, out, want)
                with self.stream:
                    emit(case, "cupy", n, nbytes,
                         self.measure(f"{case} cupy", self.reps, lambda r: cupy_op(a, b, out=out)))
                    r0 = cupy_op(a, b)
                self.checked(case + "_alloc", "cupy", n, r0, want)
                del r0
                with self.stream:
                    emit(case + "_alloc", "cupy", n, nbytes,
                         self.measure(f"{case}_alloc cupy", self.reps, lambda r: cupy_op(a, b)))
            self.run_guarded(f"{case} cupy", cupy_cases)
        if self.torch is not None:
            torch = self.torch
            torch_op = torch_op or torch.add
            ta, tb, tout = self.torch_of(a), self.torch_of(b), self.torch_of(out)

            def torch_cases():
                with torch.cuda.stream(self.torch_stream):
                    tout.fill_(float("nan"))
                    torch_op(ta, tb, out=tout)
                self.checked(case, "torch", n, tout, want)
                emit(case, "torch", n, nbytes,
                     self.measure(f"{case} torch", self.reps, lambda r: torch_op(ta, tb, out=tout)))
                with torch.cuda.stream(self.torch_stream):
                    r0 = torch_op(ta, tb)
                self.checked(case + "_alloc", "torch", n, r0, want)
                del r0
                emit(case + "_alloc", "torch", n, nbytes,
                     self.measure(f"{case}_alloc torch", self.reps, lambda r: torch_op(ta, tb)))
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
                    emit("percall_f32_enqueue", "cupy", n, nbytes,
                         host_enqueue(sync, lambda: cp.add(a, b, out=out), calls, samples))
                    emit("percall_f32_alloc", "cupy", n, nbytes, host_per_call(sync, lambda: a + b, calls, samples))
            self.run_guarded("percall cupy", cupy_cases)
        if self.torch is not None:
            torch = self.torch
            ta, tb, tout = self.torch_of(a), self.torch_of(b), self.torch_of(out)

            def torch_cases():
                with torch.cuda.stream(self.torch_stream):
                    emit("percall_f32", "torch", n, nbytes,
                         host_per_call(sync, lambda: torch.add(ta, tb, out=tout), calls, samples))
                    emit("percall_f32_enqueue", "torch", n, nbytes,
                         host_enqueue(sync, lambda: torch.add(ta, tb, out=tout), calls, samples))
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


# ---------------------------------------------------------------------------------------------------------------------
# The size sweep (--sweep): the cases of bench/sweep_common.hpp with CuPy and PyTorch, float32 and float64,
# 2^10..2^28 elements in steps of x4, in the sweep's raw format (case,dtype,size,impl,seconds,bytes), as
# cuda_bench --sweep does for ufunc and cub. Impls: cupy, torch. Timing as above (CUDA events around one call,
# stream held until enqueued, input sets rotated below 4x the L2); call1024 is host time per allocating call.

SWEEP_CASES = ["add", "square", "sin", "exp", "bcast", "strided", "sum", "call1024"]
SWEEP_DTYPES = {"f32": np.float32, "f64": np.float64}


def sweep_bytes(case, n, itemsize):
    if case in ("add", "strided", "call1024"):
        return 3 * n * itemsize
    if case in ("square", "sin", "exp", "copy"):
        return 2 * n * itemsize
    if case == "bcast":
        return (n + 2 * round(n ** 0.5)) * itemsize
    if case == "sum":
        return n * itemsize
    return 0


def sweep_value_a(i, t):
    # sweep_common.hpp's value_a: each step correctly rounded in t (CuPy runs them as separate kernels).
    return (i % 1000).astype(t) * t(0.01) - t(5)


def sweep_value_b(i, t):
    return (i % 777).astype(t) * t(0.02)


def sweep_tolerance(case, t):
    f32 = t == np.float32
    if case in ("sin", "exp"):
        return 4e-6 if f32 else 1e-13
    if case == "sum":
        return 1e-3 if f32 else 1e-9
    return 0.0


class Sweep(Cases):
    def __init__(self, args):
        super().__init__(args)
        self.progress_start = time.perf_counter()
        note(f"meta,python,{sys.version.split()[0]}")
        note(f"meta,numpy,{np.__version__}")
        note(f"meta,cupy,{self.cp.__version__}")
        if self.torch is not None:
            note(f"meta,torch,{self.torch.__version__} (CUDA {self.torch.version.cuda})")
        note(f"meta,peers_timing,CUDA events around one call; median of {self.reps} reps ({self.reps_large} at "
             f"2^28) after {self.warmup} warm-up; stream held until enqueued")

    def progress(self, dt, n, what):
        if self.args.progress:
            print(f"[gpu_peers --sweep {time.perf_counter() - self.progress_start:5.0f}s] {dt} "
                  f"2^{n.bit_length() - 1} {what}", file=sys.stderr, flush=True)

    def check_rel(self, what, got_dev, want_fn, n, tol):
        """Relative error of got (device, n elements) against want_fn(indices) (host): all of it up to 2^22
        elements, else the first and the last 2^21."""
        global failures
        cp = self.cp
        self.stream.synchronize()
        if self.torch is not None and isinstance(got_dev, self.torch.Tensor):
            self.torch.cuda.synchronize()
            got_dev = cp.asarray(got_dev)
        flat = got_dev.reshape(-1)
        part = 1 << 21
        ranges = [(0, n)] if n <= 2 * part else [(0, part), (n - part, part)]
        worst = 0.0
        for first, length in ranges:
            idx = np.arange(first, first + length, dtype=np.int64)
            got = cp.asnumpy(flat[first:first + length]).astype(np.float64)
            want = np.asarray(want_fn(idx), dtype=np.float64)
            with np.errstate(invalid="ignore"):
                err = np.abs(got - want) / np.maximum(1.0, np.abs(want))
            worst = max(worst, math.inf if np.isnan(err).any() else float(err.max()))
        ok = worst <= tol
        note(f"check,{what},{'ok' if ok else 'FAIL'},max_rel_err={worst:g}")
        if not ok:
            failures += 1

    def run(self):
        a = self.args
        sizes = [1 << k for k in range(a.min_log2, a.max_log2 + 1, 2)]
        for dt in a.dtypes:
            t = SWEEP_DTYPES[dt]
            for n in sizes:
                self.run_size(dt, t, n)
            if "call1024" in a.cases:
                self.progress(dt, 1024, "call1024")
                self.run_call1024(dt, t)

    def run_size(self, dt, t, n):
        cp = self.cp
        itemsize = np.dtype(t).itemsize
        r = round(n ** 0.5)
        nsets = input_sets(4 * n * itemsize, self.l2)
        reps = self.reps_large if n >= 1 << 28 else self.reps
        sets = []
        with self.stream:
            for _ in range(nsets):
                a2 = sweep_value_a(cp.arange(2 * n, dtype=cp.int64), t)
                b = sweep_value_b(cp.arange(n, dtype=cp.int64), t)
                c = cp.empty(n, dtype=t)
                s = cp.empty((), dtype=t)
                sets.append(dict(a=a2[:n], a2s=a2[::2], b=b, c=c, s=s, col=a2[:r].reshape(r, 1),
                                 row=b[:r].reshape(1, r), c2d=c.reshape(r, r)))
        self.stream.synchronize()
        va = lambda i: sweep_value_a(i, t)  # noqa: E731
        vb = lambda i: sweep_value_b(i, t)  # noqa: E731
        wants = {
            "add": lambda i: va(i).astype(t) + vb(i),
            "square": lambda i: va(i) * va(i),
            "sin": lambda i: np.sin(va(i).astype(np.float64)) if t == np.float32 else np.sin(va(i)),
            "exp": lambda i: np.exp(va(i).astype(np.float64)) if t == np.float32 else np.exp(va(i)),
            "bcast": lambda i: va(i // r) + vb(i % r),
            "strided": lambda i: va(2 * i) + vb(i),
        }
        libs = []
        if self.use_cupy:
            libs.append(("cupy", {
                "add": lambda x: cp.add(x["a"], x["b"], out=x["c"]),
                "square": lambda x: cp.square(x["a"], out=x["c"]),
                "sin": lambda x: cp.sin(x["a"], out=x["c"]),
                "exp": lambda x: cp.exp(x["a"], out=x["c"]),
                "bcast": lambda x: cp.add(x["col"], x["row"], out=x["c2d"]),
                "strided": lambda x: cp.add(x["a2s"], x["b"], out=x["c"]),
                "sum": lambda x: cp.sum(x["a"], out=x["s"]),
            }, lambda x: x))
        if self.torch is not None:
            torch = self.torch
            tsets = [{k: self.torch_of(v) for k, v in x.items()} for x in sets]
            libs.append(("torch", {
                "add": lambda x: torch.add(x["a"], x["b"], out=x["c"]),
                "square": lambda x: torch.square(x["a"], out=x["c"]),
                "sin": lambda x: torch.sin(x["a"], out=x["c"]),
                "exp": lambda x: torch.exp(x["a"], out=x["c"]),
                "bcast": lambda x: torch.add(x["col"], x["row"], out=x["c2d"]),
                "strided": lambda x: torch.add(x["a2s"], x["b"], out=x["c"]),
                "sum": lambda x: torch.sum(x["a"], dim=0, out=x["s"]),
            }, None))
        for case in self.args.cases:
            if case == "call1024" or (case == "bcast" and r * r != n):
                continue
            self.progress(dt, n, case)
            if case == "sum":
                a0 = sets[0]["a"]
                want_sum = float(cp.sum(a0, dtype=cp.float64))
                abs_sum = float(cp.sum(cp.abs(a0.astype(cp.float64))))
            for impl, ops, _ in libs:
                if case not in ops:
                    continue
                xs = tsets if impl == "torch" else sets
                op = ops[case]
                what = f"{case} {dt} n={n} {impl}"

                def body():
                    with self.stream:
                        sets[0]["c"].fill(np.nan)
                        sets[0]["s"].fill(np.nan)
                    self.stream.synchronize()
                    if impl == "torch":
                        with torch.cuda.stream(self.torch_stream):
                            op(xs[0])
                    else:
                        with self.stream:
                            op(xs[0])
                    if case == "sum":
                        self.stream.synchronize()
                        if impl == "torch":
                            torch.cuda.synchronize()
                        got = float(cp.asnumpy(sets[0]["s"]))
                        err = abs(got - want_sum) / max(1.0, abs_sum)
                        ok = err <= sweep_tolerance(case, t)
                        note(f"check,{what},{'ok' if ok else 'FAIL'},rel_err_vs_sum_abs={err:g}")
                        if not ok:
                            global failures
                            failures += 1
                    else:
                        self.check_rel(what, sets[0]["c"], wants[case], n, sweep_tolerance(case, t))
                    if impl == "torch":
                        us = self.measure(what, reps, lambda rep: op(xs[rep % nsets]))
                    else:
                        with self.stream:
                            us = self.measure(what, reps, lambda rep: op(xs[rep % nsets]))
                    print(f"{case},{dt},{n},{impl},{us * 1e-6:.9g},{sweep_bytes(case, n, np.dtype(t).itemsize)}",
                          flush=True)
                self.run_guarded(what, body)
        del sets
        if self.torch is not None:
            del tsets
        self.release()

    def run_call1024(self, dt, t):
        cp = self.cp
        n = 1024
        with self.stream:
            a = sweep_value_a(cp.arange(n, dtype=cp.int64), t)
            b = sweep_value_b(cp.arange(n, dtype=cp.int64), t)
        self.stream.synchronize()
        sync = self.stream.synchronize
        nbytes = sweep_bytes("call1024", n, np.dtype(t).itemsize)
        if self.use_cupy:
            def cupy_call():
                with self.stream:
                    us = host_per_call(sync, lambda: a + b, self.percall_calls, self.percall_samples)
                print(f"call1024,{dt},{n},cupy,{us * 1e-6:.9g},{nbytes}", flush=True)
            self.run_guarded("call1024 cupy", cupy_call)
        if self.torch is not None:
            torch = self.torch
            ta, tb = self.torch_of(a), self.torch_of(b)

            def torch_call():
                with torch.cuda.stream(self.torch_stream):
                    us = host_per_call(sync, lambda: ta + tb, self.percall_calls, self.percall_samples)
                print(f"call1024,{dt},{n},torch,{us * 1e-6:.9g},{nbytes}", flush=True)
            self.run_guarded("call1024 torch", torch_call)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer reps and no 2^28 cases (a smoke test)")
    parser.add_argument("--reps", type=int, default=0, help="timed reps per case (default 30, 20 at 2^28)")
    parser.add_argument("--skip", default="", help="comma-separated peers to leave out: cupy,torch,numba")
    parser.add_argument("--sweep", action="store_true", help="the size sweep of bench/run_all_gpu.sh instead")
    parser.add_argument("--min-log2", type=int, default=10, help="--sweep: smallest size 2^K (10)")
    parser.add_argument("--max-log2", type=int, default=28, help="--sweep: largest size 2^K (28)")
    parser.add_argument("--cases", default=",".join(SWEEP_CASES), help="--sweep: cases to run")
    parser.add_argument("--dtypes", default="f32,f64", help="--sweep: f32,f64")
    parser.add_argument("--no-progress", dest="progress", action="store_false", help="--sweep: no stderr lines")
    args = parser.parse_args()
    args.skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    args.cases = [c for c in args.cases.split(",") if c]
    args.dtypes = [d for d in args.dtypes.split(",") if d in SWEEP_DTYPES]
    if args.sweep:
        args.skip.add("numba")  # Numba CUDA is not a peer of the sweep

    try:
        import cupy  # noqa: F401
    except Exception as e:  # noqa: BLE001
        # CuPy provides the streams, events and the stream-holding kernel for every peer.
        note(f"skip,all peers: CuPy is needed for timing and could not be imported: {type(e).__name__}: {e}")
        return 1
    if args.sweep:
        sw = Sweep(args)
        sw.run()
        note("all checks passed" if failures == 0 else f"{failures} check(s) or case(s) FAILED")
        return 0 if failures == 0 else 1
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
