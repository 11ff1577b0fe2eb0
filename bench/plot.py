#!/usr/bin/env python3
"""Plots of benchmark CSVs (bench/run_all_cpu.sh, bench/run_all_gpu.sh): throughput against size per backend and
peer, with the memory-bandwidth bound (the multi-thread copy on the CPU, cudaMemcpy on the GPU) drawn as a line.

    python3 bench/plot.py [--out DIR] [--format svg|png] CSV...

Writes into DIR (default docs/perf under the repository), per CSV suite (cpu, gpu):
  <suite>-<case>-<dtype>.svg   GB/s against n for every impl, one file per case and dtype
  <suite>-call1024.svg         microseconds per 1024-element call (the per-call overhead), per impl and dtype
  <suite>-summary.svg          every case and dtype in one figure (the README shows this one)
Several CSVs of one suite (two machines, or before/after) share the plots; their lines are labelled
"impl (machine)". Needs matplotlib.
"""

import argparse
import math
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perfcsv  # noqa: E402

CASE_TITLES = {
    "add": "add: c = a + b",
    "square": "square: c = a * a",
    "sin": "sin: c = sin(a)",
    "exp": "exp: c = exp(a)",
    "bcast": "broadcast: (r, 1) + (1, r) -> (r, r)",
    "strided": "strided: c = a[::2] + b",
    "sum": "sum: s = add.reduce(a)",
    "call1024": "1024-element call, allocating (per-call overhead)",
}
COLORS = {
    "ufunc_cpu": "#1f77b4", "ufunc_parallel": "#d62728", "ufunc_default": "#1f77b4", "ufunc_cuda": "#d62728",
    "ufunc_vectorize": "#ff7f0e", "plain_loop": "#7f7f7f", "xtensor": "#9467bd", "numpy": "#2ca02c",
    "numba_cpu": "#8c564b", "numba_parallel": "#e377c2", "cub": "#17becf", "cupy": "#2ca02c", "torch": "#bcbd22",
    "numba_cuda": "#8c564b",
}
# call1024 rows that do not allocate their output.
CALL1024_LABELS = {"cub": "cub (out=, no allocation)", "empty_kernel": "empty kernel launch (floor)"}
BOUND_LABEL = {"copy_bound": "bound: multi-thread memcpy", "memcpy_bound": "bound: cudaMemcpy device to device"}
COLORS["empty_kernel"] = "#000000"


def style(impl, k):
    """Colour and line style of an impl; k numbers the CSVs (dashed, dotted for the second and third)."""
    ls = ["-", "--", ":", "-."][k % 4]
    color = COLORS.get(impl, None)
    ours = impl.startswith("ufunc")
    # ufunc's lines on top: peers at the same throughput (cub, say) would hide them otherwise.
    return dict(color=color, linestyle=ls, linewidth=2.2 if ours else 1.4, marker="o" if ours else ".",
                markersize=4, zorder=3 if ours else 2)


def log2_ticks(ax, sizes):
    ks = sorted({int(round(math.log2(n))) for n in sizes})
    if not ks:
        return
    step = 2 if len(ks) <= 10 else 4
    ax.set_xscale("log", base=2)
    ax.set_xticks([1 << k for k in ks[::max(1, step // 2)]])
    ax.set_xticklabels([f"$2^{{{k}}}$" for k in ks[::max(1, step // 2)]])
    ax.minorticks_off()


def draw_case(ax, tables, case, dtype, legend=True, small=False):
    """Lines of every impl of `case`/`dtype` in every table, and each table's bound. Returns whether it drew."""
    drew = False
    sizes = set()
    for k, t in enumerate(tables):
        tag = f" ({t.label})" if len(tables) > 1 else ""
        series = defaultdict(list)
        for r in t.rows:
            if r["dtype"] != dtype:
                continue
            if r["case"] == case and r["impl"] not in perfcsv.BOUNDS:
                series[r["impl"]].append((r["size"], r["GB/s"]))
        if not series:
            continue
        case_sizes = {n for pts in series.values() for n, _ in pts}
        sizes |= case_sizes
        for impl in perfcsv.impl_order(set(series)):
            pts = sorted(p for p in series[impl] if not math.isnan(p[1]))
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], label=impl + tag, **style(impl, k))
                drew = True
        for bound in perfcsv.BOUNDS:
            pts = sorted((r["size"], r["GB/s"]) for r in t.rows if r["case"] == perfcsv.BOUND_CASE
                         and r["impl"] == bound and r["dtype"] == dtype and r["size"] in case_sizes)
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], color="black", linestyle=["--", ":"][k % 2],
                        linewidth=1.6, label=BOUND_LABEL.get(bound, bound) + tag)
    if not drew:
        return False
    log2_ticks(ax, sizes)
    ax.set_yscale("log")
    ax.grid(True, which="major", alpha=0.3)
    ax.set_xlabel("n (elements)", fontsize=8 if small else 10)
    ax.set_ylabel("GB/s (bytes read + written)", fontsize=8 if small else 10)
    ax.set_title(f"{CASE_TITLES.get(case, case)}, {dtype}", fontsize=9 if small else 11)
    if small:
        ax.tick_params(labelsize=7)
    if legend:
        ax.legend(fontsize=7 if small else 8, loc="best")
    return True


def draw_call1024(ax, tables, small=False):
    bars = []  # (label, dtype, microseconds)
    for t in tables:
        tag = f" ({t.label})" if len(tables) > 1 else ""
        rows = [r for r in t.rows if r["case"] == "call1024"]
        for impl in perfcsv.impl_order({r["impl"] for r in rows}):
            for r in rows:
                if r["impl"] == impl:
                    bars.append((CALL1024_LABELS.get(impl, impl) + tag, r["dtype"], r["seconds"] * 1e6, impl))
    if not bars:
        return False
    labels = list(dict.fromkeys(b[0] for b in bars))
    dtypes = list(dict.fromkeys(b[1] for b in bars))
    height = 0.8 / max(1, len(dtypes))
    # A linear axis, cut at 8x the median bar: one slow peer (Numba's thread pool, 1000x the others) would
    # otherwise flatten every other bar. Cut bars end in an arrow and keep their value as the label.
    values = sorted(b[2] for b in bars)
    xmax = min(values[-1], 8 * values[len(values) // 2]) * 1.25
    for j, dt in enumerate(dtypes):
        ys, xs, colors = [], [], []
        for i, label in enumerate(labels):
            for b in bars:
                if b[0] == label and b[1] == dt:
                    ys.append(i + j * height)
                    xs.append(b[2])
                    colors.append(COLORS.get(b[3], "#444444"))
        shown = [min(x, xmax / 1.25 * 1.1) for x in xs]
        ax.barh(ys, shown, height=height * 0.9, color=colors, alpha=1.0 if j == 0 else 0.55, label=dt)
        for y, x, w in zip(ys, xs, shown):
            ax.text(w, y, f" {x:.3g}" + (" (cut) " if w < x else ""), va="center", fontsize=6 if small else 8)
    ax.set_xlim(0, xmax)
    ax.set_yticks([i + height * (len(dtypes) - 1) / 2 for i in range(len(labels))])
    ax.set_yticklabels(labels, fontsize=7 if small else 9)
    ax.invert_yaxis()
    ax.set_xlabel("microseconds per call (lower is better); dark: " + ", light: ".join(dtypes),
                  fontsize=8 if small else 10)
    ax.set_title(CASE_TITLES["call1024"], fontsize=9 if small else 11)
    ax.grid(True, axis="x", alpha=0.3)
    if small:
        ax.tick_params(labelsize=7)
    return True


def caption(tables):
    parts = []
    for t in tables:
        cpu = t.get("cpu").split(";")[0]
        gpu = t.get("gpu")
        where = cpu if t.suite == "cpu" or not gpu or gpu == "none" else gpu.split(",")[0]
        parts.append(f"{t.label}: {where}, {t.get('date')[:10]}")
    return "; ".join(parts)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "perf"))
    p.add_argument("--format", default="svg", choices=["svg", "png"])
    p.add_argument("csv", nargs="+")
    args = p.parse_args()

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams["svg.hashsalt"] = "ufunc-bench"  # stable ids: a re-plot of the same data gives the same file
    plt.rcParams["svg.fonttype"] = "none"  # text as text: smaller files, searchable labels
    save_kw = {"metadata": {"Date": None}} if args.format == "svg" else {}

    os.makedirs(args.out, exist_ok=True)
    by_suite = defaultdict(list)
    for path in args.csv:
        t = perfcsv.Table(path)
        by_suite[t.suite].append(t)
    written = []
    for suite, tables in by_suite.items():
        cases = list(dict.fromkeys(r["case"] for t in tables for r in t.rows if r["case"] != perfcsv.BOUND_CASE))
        dtypes = list(dict.fromkeys(r["dtype"] for t in tables for r in t.rows))
        note = caption(tables)
        for case in cases:
            if case == "call1024":
                fig, ax = plt.subplots(figsize=(8, 4.5))
                if draw_call1024(ax, tables):
                    fig.text(0.01, 0.005, note, fontsize=7, color="#555555")
                    fig.tight_layout(rect=(0, 0.03, 1, 1))
                    name = os.path.join(args.out, f"{suite}-call1024.{args.format}")
                    fig.savefig(name, **save_kw)
                    written.append(name)
                plt.close(fig)
                continue
            for dt in dtypes:
                fig, ax = plt.subplots(figsize=(8, 5))
                if draw_case(ax, tables, case, dt):
                    fig.text(0.01, 0.005, note, fontsize=7, color="#555555")
                    fig.tight_layout(rect=(0, 0.03, 1, 1))
                    name = os.path.join(args.out, f"{suite}-{case}-{dt}.{args.format}")
                    fig.savefig(name, **save_kw)
                    written.append(name)
                plt.close(fig)

        # The summary: one panel per (case, dtype), then the per-call bars; one legend for all.
        panels = [(c, d) for c in cases if c != "call1024" for d in dtypes]
        extra = 1 if "call1024" in cases else 0
        ncols = 4
        nrows = max(1, math.ceil((len(panels) + extra) / ncols))
        fig, axes = plt.subplots(nrows, ncols, figsize=(4.6 * ncols, 3.4 * nrows + 1.2), squeeze=False)
        handles = {}
        for ax, (c, d) in zip(axes.flat, panels):
            if draw_case(ax, tables, c, d, legend=False, small=True):
                for h, l in zip(*ax.get_legend_handles_labels()):
                    handles.setdefault(l, h)
            else:
                ax.set_visible(False)
        rest = list(axes.flat)[len(panels):]
        if extra and rest:
            if not draw_call1024(rest[0], tables, small=True):
                rest[0].set_visible(False)
            rest = rest[1:]
        for ax in rest:
            ax.set_visible(False)
        fig.legend(list(handles.values()), list(handles.keys()), loc="lower center",
                   ncol=min(6, max(1, len(handles))), fontsize=9, frameon=False)
        fig.suptitle(f"ufunc {suite} benchmarks: throughput against size ({note})", fontsize=12)
        fig.tight_layout(rect=(0, 0.025 + 0.012 * math.ceil(len(handles) / 6), 1, 0.97))
        name = os.path.join(args.out, f"{suite}-summary.{args.format}")
        fig.savefig(name, **save_kw)
        plt.close(fig)
        written.append(name)
    print(f"plot.py: {len(written)} plots in {os.path.normpath(args.out)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
