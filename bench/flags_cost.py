#!/usr/bin/env python3
"""Summarizes bench/flags_cost_gpu.sh: per case, ufunc's time with the default errstate policies
against every policy ignore (best of the rounds each way), and ufunc against cub where cub ran."""
import collections
import glob
import os
import sys


def best_times(paths, sweep):
    """(case, dtype, n, impl) -> the smallest time in microseconds over the files."""
    best = {}
    for path in paths:
        for line in open(path):
            if line.startswith("#") or "," not in line:
                continue
            f = line.strip().split(",")
            try:
                if sweep:  # case,dtype,n,impl,seconds,bytes
                    key, us = (f[0], f[1], int(f[2]), f[3]), float(f[4]) * 1e6
                else:  # case,impl,n,bytes_moved,median_us,GBps
                    key, us = (f[0], "", int(f[2]), f[1]), float(f[4])
            except (ValueError, IndexError):
                continue
            best[key] = min(us, best.get(key, us))
    return best


def main(out):
    rows = []
    for sweep, pattern in ((True, "sweep_%s_*.csv"), (False, "fixed_%s_*.txt")):
        default = best_times(glob.glob(os.path.join(out, pattern % "default")), sweep)
        ignore = best_times(glob.glob(os.path.join(out, pattern % "ignore")), sweep)
        for key in sorted(default):
            case, dtype, n, impl = key
            if impl in ("cub", "memcpy", "memset", "empty_kernel") or key not in ignore:
                continue
            cub = [v for (c, d, m, i), v in default.items() if (c, d, m) == (case, dtype, n) and i == "cub"]
            rows.append((case, dtype, n, impl, default[key], ignore[key], cub[0] if cub else None))
    print("%-22s %-4s %10s %-16s %11s %11s %9s %9s" % ("case", "dt", "n", "impl", "default us", "ignore us",
                                                      "cost", "cub/def"))
    worst = 0.0
    for case, dtype, n, impl, d, i, cub in rows:
        cost = d / i - 1
        worst = max(worst, cost)
        print("%-22s %-4s %10d %-16s %11.2f %11.2f %8.1f%% %9s" % (case, dtype, n, impl, d, i, 100 * cost,
                                                                    "%.3f" % (cub / d) if cub else "-"))
    print("worst cost of gathering flags: %.1f%%" % (100 * worst))


main(sys.argv[1] if len(sys.argv) > 1 else "build/gpu")
