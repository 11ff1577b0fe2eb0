#!/usr/bin/env python3
"""Plot of the fused-expression benchmarks on the host (bench/fuse_bench, bench/fuse_peers.py): time per call
relative to the floor a C++ user gets by hand (the expression as one vectorized functor; for the reduction "dot",
add.reduce over an array of the bytes it reads), per expression and dtype, at one size, for ufunc's fused call, its
unfused chain, numexpr and NumPy, on one thread and on all of them.

    python3 bench/plot_fuse_host.py [--n N] [--out FILE] FUSE_BENCH_CSV FUSE_PEERS_CSV

The CSVs have the columns expr,dtype,n,impl,target,seconds (target cpu: one thread, parallel: all). Needs
matplotlib.
"""

import argparse
import csv
import os

EXPRS = {"hyp": "hyp", "bs_call": "BS call", "dot": "dot"}  # sqrt(a*a + b*b); Black-Scholes; add.reduce(a * b)
FLOOR = {"hyp": "vectorized_functor", "bs_call": "vectorized_functor", "dot": "read_floor"}
IMPLS = {
    "fused": "ufunc::fuse",
    "unfused_chain": "ufunc, unfused chain",
    "numexpr": "numexpr",
    "numpy": "NumPy (one thread)",
}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=1 << 24)
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "docs", "perf", "fuse-host.svg"))
    parser.add_argument("csvs", nargs="+")
    args = parser.parse_args()
    rows = {}
    for path in args.csvs:
        with open(path) as f:
            for r in csv.DictReader(f):
                if int(r["n"]) == args.n:
                    rows[(r["expr"], r["dtype"], r["impl"], r["target"])] = float(r["seconds"])

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cases = [(e, d) for e in EXPRS for d in ("f32", "f64")]
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.8), sharey=True)
    width = 0.8 / len(IMPLS)
    for ax, (target, title) in zip(axes, (("cpu", "one thread"), ("parallel", "all threads"))):
        for k, (impl, label) in enumerate(IMPLS.items()):
            xs, ys = [], []
            for c, (expr, dtype) in enumerate(cases):
                # NumPy has no threads: its one-thread time is drawn on both panels.
                t = rows.get((expr, dtype, impl, "cpu" if impl == "numpy" else target))
                floor = rows.get((expr, dtype, FLOOR[expr], target))
                if t is None or floor is None:
                    continue
                xs.append(c + (k - (len(IMPLS) - 1) / 2) * width)
                ys.append(t / floor)
            ax.bar(xs, ys, width, label=label)
        ax.axhline(1.0, color="gray", linestyle="--", linewidth=1)
        ax.axhline(1.25, color="gray", linestyle=":", linewidth=1)
        ax.set_yscale("log")
        ax.set_xticks(range(len(cases)))
        ax.set_xticklabels([f"{EXPRS[e]}\n{d}" for e, d in cases], fontsize=7)
        ax.set_title(title)
        ax.grid(True, axis="y", alpha=0.3)
    axes[0].set_ylabel("time / the functor's (dot: / one read of its bytes)")
    axes[0].legend(fontsize=8)
    fig.suptitle(f"Fused expressions on the host, {args.n} elements: hyp = sqrt(a*a + b*b), BS call = Black-Scholes, "
                 "dot = add.reduce(a * b)\n(lower is faster; dotted: 1.25x)", fontsize=10)
    fig.tight_layout()
    fig.savefig(args.out)
    print(args.out)


if __name__ == "__main__":
    main()
