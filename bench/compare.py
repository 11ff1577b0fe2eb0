#!/usr/bin/env python3
"""Regression check between two benchmark CSVs (bench/run_all_cpu.sh or bench/run_all_gpu.sh).

    python3 bench/compare.py [--threshold 0.10] [--impl PREFIX] [--min-size N] [--all] OLD.csv NEW.csv

For every ufunc row (impl starting with --impl, default "ufunc") of every (case, dtype, size) in both files, its
ratio to each peer of the same (case, dtype, size) is peer seconds / ufunc seconds (above 1: ufunc is faster).
The change of a row is the median, over the peers present in both files, of NEW ratio / OLD ratio (the median, so
that one noisy peer, Numba's thread pool at small sizes say, does not decide it). Ratios
to peers measured in the same run cancel the machine's speed, so OLD and NEW may come from different machines or
days; the bounds (copy_bound, memcpy_bound) and the GPU's empty kernel launch are not peers.

Prints every row whose ratio to its peers got more than --threshold worse (change < 1 - threshold), worst first,
with the per-peer changes, and exits 1 if there is any; exits 0 otherwise. Rows, peers or cases present in only
one file are listed (as added / removed) and never fail the check. --all prints every compared row.
"""

import argparse
import math
import os
import statistics
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perfcsv  # noqa: E402


def fmt_time(s):
    return f"{s * 1e6:.3g} us" if s < 1e-3 else f"{s * 1e3:.3g} ms" if s < 1 else f"{s:.3g} s"


def size_label(n):
    k = n.bit_length() - 1
    return f"2^{k}" if n == 1 << k else str(n)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("old")
    p.add_argument("new")
    p.add_argument("--threshold", type=float, default=0.10, help="worse by more than this fraction fails (0.10)")
    p.add_argument("--impl", default="ufunc", help="prefix of the impls being checked (default: ufunc)")
    p.add_argument("--min-size", type=int, default=0, help="ignore sizes below this many elements")
    p.add_argument("--all", action="store_true", help="print every compared row, not only regressions")
    args = p.parse_args()

    old, new = perfcsv.Table(args.old), perfcsv.Table(args.new)

    def groups(t):
        g = defaultdict(dict)  # (case, dtype, size) -> {impl: seconds}
        for r in t.rows:
            if r["impl"] in perfcsv.NOT_PEERS or r["size"] < args.min_size or not r["seconds"] > 0:
                continue
            g[(r["case"], r["dtype"], r["size"])][r["impl"]] = r["seconds"]
        return g

    go, gn = groups(old), groups(new)
    only_old = sorted(k for k in go if k not in gn)
    only_new = sorted(k for k in gn if k not in go)
    regressions, compared, no_peer, rows_only = [], [], [], []
    for key in sorted(set(go) & set(gn)):
        o, n = go[key], gn[key]
        for impl in sorted(set(o) | set(n)):
            if not impl.startswith(args.impl):
                continue
            if impl not in o or impl not in n:
                rows_only.append((key, impl, "OLD" if impl in o else "NEW"))
                continue
            peers = sorted(q for q in set(o) & set(n) if not q.startswith(args.impl))
            if not peers:
                no_peer.append((key, impl))
                continue
            changes = {q: (n[q] / n[impl]) / (o[q] / o[impl]) for q in peers}
            change = math.exp(statistics.median(math.log(c) for c in changes.values()))
            entry = (change, key, impl, changes, o[impl], n[impl])
            compared.append(entry)
            if change < 1 - args.threshold:
                regressions.append(entry)

    def show(entry):
        change, (case, dtype, size), impl, changes, t_old, t_new = entry
        per_peer = ", ".join(f"{q} {c:.2f}" for q, c in sorted(changes.items(), key=lambda x: x[1]))
        return (f"  {case} {dtype} n={size_label(size)} {impl}: ratio to peers x{change:.2f} "
                f"({(1 - change) * 100:.0f}% worse; time {fmt_time(t_old)} -> {fmt_time(t_new)}; "
                f"per peer: {per_peer})" if change < 1 else
                f"  {case} {dtype} n={size_label(size)} {impl}: ratio to peers x{change:.2f} "
                f"(time {fmt_time(t_old)} -> {fmt_time(t_new)}; per peer: {per_peer})")

    print(f"OLD: {args.old} ({old.get('machine', '?')}, {old.get('date', '?')})")
    print(f"NEW: {args.new} ({new.get('machine', '?')}, {new.get('date', '?')})")
    print(f"compared {len(compared)} {args.impl}* rows against their peers; threshold {args.threshold:.0%}")
    if args.all:
        print("every compared row (change of the ratio to peers, NEW / OLD; below 1 is worse):")
        for e in sorted(compared, key=lambda e: e[1:3]):
            print(show(e))
    if only_old:
        print(f"only in OLD ({len(only_old)} case/dtype/size groups, not compared): " +
              ", ".join(f"{c} {d} {size_label(s)}" for c, d, s in only_old[:20]) + (" ..." if len(only_old) > 20
                                                                                    else ""))
    if only_new:
        print(f"only in NEW ({len(only_new)} case/dtype/size groups, not compared): " +
              ", ".join(f"{c} {d} {size_label(s)}" for c, d, s in only_new[:20]) + (" ..." if len(only_new) > 20
                                                                                    else ""))
    for key, impl, where in rows_only:
        print(f"  {impl} on {key[0]} {key[1]} {size_label(key[2])}: only in {where}")
    for key, impl in no_peer:
        print(f"  {impl} on {key[0]} {key[1]} {size_label(key[2])}: no peer in both files, not compared")
    if regressions:
        print(f"REGRESSIONS ({len(regressions)}): ratio to peers more than {args.threshold:.0%} worse")
        for e in sorted(regressions, key=lambda e: e[0]):
            print(show(e))
        return 1
    print("no regressions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
