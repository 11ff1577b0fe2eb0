#!/usr/bin/env python3
"""The ratios issue 21 sets targets for, from the CSVs of the float16 / bfloat16 benchmarks.

    python3 bench/half_compare.py half_bench.csv half_numpy.csv [half_cuda_bench.csv half_gpu_peers.csv]

Host (half_bench, half_numpy.py: op,dtype,target,n,threads,seconds,GBps):
  add at the memory bound   ufunc float16 / bfloat16 add GB/s over ufunc float32 add GB/s, same target   (>= 0.9)
  sin on one thread         NumPy float16 (ml_dtypes bfloat16) sin seconds over ufunc's, target cpu        (>= 10)
  add against NumPy         NumPy seconds over ufunc's, per dtype, target cpu (no target; for the record)
  (against every NumPy run in the files: numpy, and numpy_x86_v3 where run_half_gpu.sh capped NumPy's SIMD)
GPU (half_cuda_bench, half_gpu_peers.py: op,dtype,impl,n,seconds,GBps):
  ufunc over cub            cub seconds over ufunc's, per cub variant; the target is against the faster of
                            cub_ufunc_t and cub_intrinsics, for add at 2^28                               (>= 0.97)
  ufunc over the peers      CuPy's and PyTorch's seconds over ufunc's; GB/s against the memcpy bound
Every ratio is a throughput ratio: above 1, ufunc is faster. Files may hold '#' notes and CHECK lines (skipped,
but the SIMD lines are echoed); several runs of one row keep the best time.
"""
import sys

TARGET_ADD_BOUND = 0.9
TARGET_SIN_NUMPY = 10.0
TARGET_GPU_CUB = 0.97


def read(paths):
    host, gpu, notes = {}, {}, []
    for path in paths:
        header = None
        for line in open(path):
            line = line.strip()
            if line.startswith("# simd") or line.startswith("# numpy_simd") or line.startswith("# device"):
                notes.append(f"{line[2:]}   [{path}]")
            if not line or line.startswith("#") or line.startswith("CHECK"):
                continue
            if line.startswith("op,"):
                header = line.split(",")
                continue
            if header is None:
                continue
            r = dict(zip(header, line.split(",")))
            if len(r) != len(header):
                continue
            if "target" in r:
                key, table = (r["op"], r["dtype"], r["target"], int(r["n"])), host
            else:
                key, table = (r["op"], r["dtype"], r["impl"], int(r["n"])), gpu
            s = float(r["seconds"])
            if key not in table or s < table[key]["seconds"]:
                table[key] = {"seconds": s, "GBps": float(r["GBps"]), "threads": r.get("threads", "")}
    return host, gpu, notes


def size_label(n):
    k = n.bit_length() - 1
    return f"2^{k}" if n == 1 << k else str(n)


def verdict(ratio, target):
    return "meets" if ratio >= target else "MISSES"


def host_report(host):
    sizes = sorted({k[3] for k in host})
    for n in sizes:
        print(f"== host, n = {size_label(n)}")
        for target in ("cpu", "parallel"):
            f32 = host.get(("add", "float32", target, n))
            if f32 is None:
                continue
            threads = f32["threads"]
            for dt in ("float16", "bfloat16"):
                h = host.get(("add", dt, target, n))
                if h is None:
                    continue
                r = h["GBps"] / f32["GBps"]
                print(f"add {dt:<8} {target:<8} ({threads} thr): {h['GBps']:7.2f} GB/s vs float32 {f32['GBps']:7.2f} "
                      f"GB/s = {r:5.2f}x  (target >= {TARGET_ADD_BOUND}: {verdict(r, TARGET_ADD_BOUND)})")
        peers = sorted({k[2] for k in host if k[2].startswith("numpy") and k[3] == n})
        for peer in peers:
            for dt, lib in (("float16", "NumPy"), ("bfloat16", "ml_dtypes")):
                u, p = host.get(("sin", dt, "cpu", n)), host.get(("sin", dt, peer, n))
                if u and p:
                    r = p["seconds"] / u["seconds"]
                    print(f"sin {dt:<8} 1 thread: ufunc {u['seconds'] * 1e3:8.2f} ms, {lib} [{peer}] "
                          f"{p['seconds'] * 1e3:8.2f} ms = {r:6.2f}x  (target >= {TARGET_SIN_NUMPY:g}: "
                          f"{verdict(r, TARGET_SIN_NUMPY)})")
        for peer in peers:
            for dt in ("float32", "float16", "bfloat16"):
                u, p = host.get(("add", dt, "cpu", n)), host.get(("add", dt, peer, n))
                if u and p:
                    print(f"add {dt:<8} 1 thread: ufunc {u['seconds'] * 1e3:8.2f} ms, [{peer}] "
                          f"{p['seconds'] * 1e3:8.2f} ms = {p['seconds'] / u['seconds']:6.2f}x")
        for peer in peers:
            for dt in ("float32", "float16", "bfloat16"):
                u, p = host.get(("sin", dt, "parallel", n)), host.get(("sin", dt, peer, n))
                if u and p:
                    print(f"sin {dt:<8} parallel ({u['threads']} thr) vs [{peer}] 1 thread: "
                          f"{p['seconds'] / u['seconds']:6.2f}x")
        print()


def gpu_report(gpu):
    sizes = sorted({k[3] for k in gpu})
    for n in sizes:
        print(f"== GPU, n = {size_label(n)}")
        for dt in ("float16", "bfloat16"):
            bound = gpu.get(("copy", dt, "memcpy", n))
            for op in ("add", "sin"):
                u = gpu.get((op, dt, "ufunc", n))
                if u is None:
                    continue
                line = f"{op} {dt:<8}: ufunc {u['GBps']:7.1f} GB/s"
                if bound:
                    line += f" ({u['GBps'] / bound['GBps']:.2f} of memcpy's {bound['GBps']:.0f})"
                q = gpu.get((op, dt, "ufunc_noflags", n))
                if q:
                    line += f"; without flags {q['GBps']:.1f} GB/s"
                print(line)
                cubs = {}
                for impl in ("cub_ufunc_t", "cub_intrinsics", "cub_hsin"):
                    c = gpu.get((op, dt, impl, n))
                    if c:
                        cubs[impl] = c["seconds"] / u["seconds"]
                        print(f"    vs {impl:<15} {c['GBps']:7.1f} GB/s: {cubs[impl]:5.3f}x")
                fair = [cubs[k] for k in ("cub_ufunc_t", "cub_intrinsics") if k in cubs]
                if fair and op == "add":
                    r = min(fair)
                    tail = f"target >= {TARGET_GPU_CUB}: {verdict(r, TARGET_GPU_CUB)}" if n >= 1 << 28 else \
                        "the target is set at 2^28"
                    print(f"    against the faster cub: {r:5.3f}x  ({tail})")
                for impl in ("cupy", "torch"):
                    c = gpu.get((op, dt, impl, n))
                    if c:
                        print(f"    vs {impl:<15} {c['GBps']:7.1f} GB/s: {c['seconds'] / u['seconds']:5.3f}x")
        print()


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(sys.argv) >= 2 else 2
    host, gpu, notes = read(sys.argv[1:])
    for line in notes:
        print(line)
    if notes:
        print()
    host_report(host)
    gpu_report(gpu)
    return 0


if __name__ == "__main__":
    sys.exit(main())
