#!/usr/bin/env python3
"""The report of bench/run_dist.sh: ufunc::dist's weak and strong scaling against the parallel target on one process.

    python3 bench/dist_report.py dist_bench.csv [--machine NAME] [--cores N] [--svg FILE]

Prints a markdown table per scaling and operation (each value the median over the runs of their medians) and, with --svg, draws
the times (weak scaling: ideally flat) and speedups (strong scaling: ideally the rank count) as an SVG of its own
(no plotting library needed).
"""

import argparse
import csv
import math
from collections import defaultdict

OPS = [("add", "add float32 (z = x + y, out=)"), ("add.reduce", "add.reduce float32 (the sum, on every rank)")]
IMPLS = [("dist_cpu", "ufunc::dist, P ranks x 1 thread", "#1f77b4"),
         ("parallel", "parallel target, 1 process x P threads", "#d62728")]


def load(path):
    """Per (scaling, impl, op, P): the median over the runs of each run's median, and the runs' spread."""
    runs = defaultdict(list)
    sizes = {}
    for r in csv.DictReader(open(path)):
        impl = r["impl"]
        p = int(r["ranks"]) if impl.startswith("dist") else int(r["threads"])
        key = (r["scaling"], impl, r["op"], p)
        runs[key].append(float(r["median_ms"]))
        sizes[key] = int(r["n_total"])
    best = {}
    for key, ms in runs.items():
        ms.sort()
        mid = ms[len(ms) // 2] if len(ms) % 2 else (ms[len(ms) // 2 - 1] + ms[len(ms) // 2]) / 2
        best[key] = (mid, sizes[key], (ms[-1] - ms[0]) / mid if mid else 0.0)
    return best


def table(best, cores):
    out = []
    for scaling in ("weak", "strong"):
        for op, title in OPS:
            counts = sorted({k[3] for k in best if k[0] == scaling and k[2] == op})
            if not counts:
                continue
            per = "elements per rank fixed" if scaling == "weak" else "elements in all fixed"
            out.append(f"\n**{scaling} scaling, {title}** ({per}; ms: the median over the runs of each run's "
                       f"median; in brackets the runs' spread, (max - min) / median)\n")
            eff = "efficiency t1/tP" if scaling == "weak" else "speedup t1/tP"
            out.append(f"| P | elements | ufunc::dist (ms) | parallel (ms) | dist / parallel | dist {eff} | "
                       f"parallel {eff} |")
            out.append("| --- | --- | --- | --- | --- | --- | --- |")
            base = {impl: best.get((scaling, impl, op, counts[0]), (None, 0))[0] for impl, _, _ in IMPLS}
            for p in counts:
                d = best.get((scaling, "dist_cpu", op, p))
                q = best.get((scaling, "parallel", op, p))
                n = (d or q)[1]
                cell = lambda v: f"{v[0]:.3f} ({100 * v[2]:.0f}%)" if v else "-"  # noqa: E731
                ratio = f"{d[0] / q[0]:.2f}" if d and q else "-"
                de = f"{base['dist_cpu'] / d[0]:.2f}" if d and base["dist_cpu"] else "-"
                pe = f"{base['parallel'] / q[0]:.2f}" if q and base["parallel"] else "-"
                mark = " (oversubscribed)" if cores and p > cores else ""
                out.append(f"| {p}{mark} | {n:,} | {cell(d)} | {cell(q)} | {ratio} | {de} | {pe} |")
    return "\n".join(out)


def svg(best, path, machine):
    w, h, pad = 380, 250, 50
    panels = [(s, op) for op, _ in OPS for s in ("weak", "strong")]
    width, height = 2 * w, 2 * h + 40
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" '
             f'font-size="11"><rect width="100%" height="100%" fill="white"/>',
             f'<text x="{width / 2}" y="18" text-anchor="middle" font-size="14">ufunc::dist scaling on {machine}: '
             f'P ranks (MPI) against P threads (parallel target)</text>']
    for i, (scaling, op) in enumerate(panels):
        x0, y0 = (i % 2) * w, 30 + (i // 2) * h
        counts = sorted({k[3] for k in best if k[0] == scaling and k[2] == op})
        if not counts:
            continue
        series = {}
        for impl, _, _ in IMPLS:
            pts = [(p, best[(scaling, impl, op, p)][0]) for p in counts if (scaling, impl, op, p) in best]
            if scaling == "strong" and pts:
                pts = [(p, pts[0][1] / t) for p, t in pts]  # speedup over one rank / thread
            series[impl] = pts
        ys = [v for pts in series.values() for _, v in pts] + ([max(counts)] if scaling == "strong" else [])
        ymax = max(ys) * 1.1 if ys else 1
        xmax = max(math.log2(max(counts)), 1)
        sx = lambda p: x0 + pad + (w - 1.6 * pad) * math.log2(p) / xmax  # noqa: E731
        sy = lambda v: y0 + h - pad + (-(h - 1.6 * pad) * v / ymax)  # noqa: E731
        ylabel = "ms (lower is better; flat is ideal)" if scaling == "weak" else "speedup over 1 (ideal: P)"
        parts.append(f'<text x="{x0 + w / 2}" y="{y0 + 16}" text-anchor="middle">{scaling} scaling, {op}</text>')
        parts.append(f'<line x1="{x0 + pad}" y1="{y0 + h - pad}" x2="{x0 + w - 0.6 * pad}" y2="{y0 + h - pad}" '
                     f'stroke="black"/><line x1="{x0 + pad}" y1="{y0 + h - pad}" x2="{x0 + pad}" y2="{y0 + 0.6 * pad}" '
                     f'stroke="black"/>')
        parts.append(f'<text x="{x0 + 12}" y="{y0 + h / 2}" transform="rotate(-90 {x0 + 12} {y0 + h / 2})" '
                     f'text-anchor="middle">{ylabel}</text>')
        for p in counts:
            parts.append(f'<text x="{sx(p)}" y="{y0 + h - pad + 14}" text-anchor="middle">{p}</text>')
        parts.append(f'<text x="{x0 + w / 2}" y="{y0 + h - pad + 28}" text-anchor="middle">P (ranks or threads)</text>')
        for k in range(5):
            v = ymax * k / 4
            parts.append(f'<text x="{x0 + pad - 4}" y="{sy(v) + 4}" text-anchor="end">{v:.3g}</text>')
        if scaling == "strong":
            parts.append(f'<polyline fill="none" stroke="#999" stroke-dasharray="4 3" points="'
                         + " ".join(f"{sx(p)},{sy(p)}" for p in counts) + '"/>')
        for impl, label, color in IMPLS:
            pts = series.get(impl, [])
            if pts:
                parts.append(f'<polyline fill="none" stroke="{color}" stroke-width="2" points="'
                             + " ".join(f"{sx(p)},{sy(v)}" for p, v in pts) + '"/>')
                parts += [f'<circle cx="{sx(p)}" cy="{sy(v)}" r="3" fill="{color}"/>' for p, v in pts]
    for j, (impl, label, color) in enumerate(IMPLS):
        parts.append(f'<rect x="{60 + j * 330}" y="{height - 16}" width="12" height="4" fill="{color}"/>'
                     f'<text x="{78 + j * 330}" y="{height - 11}">{label}</text>')
    parts.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(parts) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--machine", default="this machine")
    ap.add_argument("--cores", type=int, default=0)
    ap.add_argument("--svg")
    a = ap.parse_args()
    best = load(a.csv)
    print(f"ufunc::dist scaling on {a.machine} ({a.cores} cores): P ranks of one thread (target cpu, mpirun) "
          f"against one process with the parallel target on P threads.")
    print(table(best, a.cores))
    if a.svg:
        svg(best, a.svg, a.machine)


if __name__ == "__main__":
    main()
