#!/usr/bin/env python3
"""Plot of the fused-expression benchmarks on the GPU (bench/fuse_cuda_bench, bench/fuse_gpu_peers.py): effective
bandwidth (the arrays' bytes read and written once, over the time per call) against size, per expression and dtype,
for ufunc's fused call, its unfused chain and the peers, with one pass at the copy rate drawn dashed.

    python3 bench/plot_fuse.py [--out FILE] CSV...

The CSVs have the columns expr,dtype,n,impl,seconds; where several give the same expr, dtype, n and impl, the last
one named wins (so an older run can fill sizes a newer one left out). Needs matplotlib.
"""

import argparse
import csv
import os

ARRAYS = {"hyp": 3, "black_scholes": 5}  # inputs and outputs that are arrays
TITLES = {"hyp": "sqrt(a*a + b*b)", "black_scholes": "Black-Scholes (call, put)"}
LABELS = {
    "fused": "ufunc::fuse",
    "unfused_chain": "ufunc, unfused chain",
    "cupy_fuse": "cupy.fuse",
    "cupy_elementwise_kernel": "CuPy ElementwiseKernel",
    "torch_eager": "PyTorch eager",
    "one_pass_floor": "one pass at the copy rate",
}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "docs", "perf", "fuse-gpu.svg"))
    parser.add_argument("csvs", nargs="+")
    args = parser.parse_args()
    rows = {}
    for path in args.csvs:
        with open(path) as f:
            for r in csv.DictReader(f):
                if r.get("expr") in ARRAYS:
                    rows[(r["expr"], r["dtype"], int(r["n"]), r["impl"])] = float(r["seconds"])

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [(e, d) for e in ARRAYS for d in ("f32", "f64")]
    fig, axes = plt.subplots(2, 2, figsize=(11, 8), sharex=True)
    for ax, (expr, dtype) in zip(axes.flat, panels):
        itemsize = 4 if dtype == "f32" else 8
        for impl, label in LABELS.items():
            points = sorted((n, s) for (e, d, n, i), s in rows.items() if (e, d, i) == (expr, dtype, impl))
            if not points:
                continue
            xs = [n for n, _ in points]
            ys = [ARRAYS[expr] * n * itemsize / s / 1e9 for n, s in points]
            style = dict(linestyle="--", color="gray") if impl == "one_pass_floor" else dict(marker="o")
            ax.plot(xs, ys, label=label, **style)
        ax.set_xscale("log", base=2)
        ax.set_title(f"{TITLES[expr]}, {dtype}")
        ax.set_ylabel("GB/s (arrays once)")
        ax.grid(True, alpha=0.3)
    for ax in axes[-1]:
        ax.set_xlabel("elements")
    axes[0][0].legend(fontsize=8)
    fig.suptitle("Fused expressions on the GPU, wall per synchronized call (higher is faster)")
    fig.tight_layout()
    fig.savefig(args.out)
    print(args.out)


if __name__ == "__main__":
    main()
