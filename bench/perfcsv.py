#!/usr/bin/env python3
"""The benchmark CSV of bench/run_all_cpu.sh and bench/run_all_gpu.sh: writing it from the programs' raw outputs,
and reading it back (bench/plot.py, bench/compare.py import this module).

    python3 perfcsv.py merge --out FILE.csv --suite cpu|gpu --reference IMPL --command "..." RAW...
    python3 perfcsv.py table [--size K] FILE.csv      # a markdown summary (largest size per case)

RAW files hold the sweep programs' lines (`case,dtype,size,impl,seconds,bytes` and '#' lines, see
bench/sweep_common.hpp). The CSV has '#' header lines (what ran, where, when, with which versions, the exact
command, the result checks), then

    case,dtype,size,impl,seconds,GB/s,ratio_to_reference

seconds: median time of one call; GB/s: the case's bytes (read + written, bench/README.md lists them per case)
per second, 1 GB = 1e9 bytes; ratio_to_reference: the reference's seconds over this row's (NumPy on the CPU,
CuPy on the GPU), so above 1 means faster than the reference; empty where the reference has no row.
"""

import argparse
import csv
import datetime
import math
import os
import platform
import re
import shutil
import subprocess
import sys

COLUMNS = ["case", "dtype", "size", "impl", "seconds", "GB/s", "ratio_to_reference"]
# Impls that are bounds, not peers: drawn as a line in the plots (rows of the case "copy"), never compared.
BOUNDS = ("copy_bound", "memcpy_bound")
BOUND_CASE = "copy"
# Rows that are no peer either: the GPU's empty kernel launch (call1024), a floor.
NOT_PEERS = set(BOUNDS) | {"empty_kernel"}


# ---------------------------------------------------------------------------------------------------------------
# Reading.

class Table:
    """One CSV: header (ordered list of (key, value) from '# key: value' lines) and rows (dicts, typed)."""

    def __init__(self, path):
        self.path = path
        self.header = []
        self.rows = []
        lines = []
        with open(path, newline="") as f:
            for line in f:
                if line.startswith("#"):
                    m = re.match(r"#\s*([^:]+?):\s?(.*)$", line.rstrip("\n"))
                    if m:
                        self.header.append((m.group(1).strip(), m.group(2)))
                elif line.strip():
                    lines.append(line)
        for r in csv.DictReader(lines):
            try:
                row = {
                    "case": r["case"], "dtype": r["dtype"], "size": int(r["size"]), "impl": r["impl"],
                    "seconds": float(r["seconds"]), "GB/s": float(r["GB/s"]) if r["GB/s"] else math.nan,
                    "ratio_to_reference": float(r["ratio_to_reference"]) if r["ratio_to_reference"] else math.nan,
                }
            except (KeyError, ValueError, TypeError) as e:
                raise SystemExit(f"{path}: not a benchmark CSV ({e}): {r}")
            self.rows.append(row)

    def get(self, key, default=""):
        for k, v in self.header:
            if k == key:
                return v
        return default

    @property
    def suite(self):
        return self.get("suite", "cpu")

    @property
    def label(self):
        return self.get("machine", os.path.splitext(os.path.basename(self.path))[0])

    def index(self):
        """{(case, dtype, size, impl): row}."""
        return {(r["case"], r["dtype"], r["size"], r["impl"]): r for r in self.rows}


# ---------------------------------------------------------------------------------------------------------------
# Writing.

def read_raw(paths):
    rows, meta, checks, notes = [], {}, [0, 0], []
    for path in paths:
        with open(path) as f:
            for line in f:
                line = line.rstrip("\n")
                if not line:
                    continue
                if line.startswith("#"):
                    body = line.lstrip("#").strip()
                    kind, _, rest = body.partition(",")
                    if kind == "meta":
                        key, _, value = rest.partition(",")
                        meta[key] = value
                    elif kind == "check":
                        checks[0 if re.search(r",ok(,|$)", rest) else 1] += 1
                        if not re.search(r",ok(,|$)", rest):
                            notes.append(f"FAILED check: {rest}")
                    elif kind in ("note", "skip", "error", "api"):
                        notes.append(f"{kind}: {rest}")
                    continue
                f6 = line.split(",")
                if len(f6) != 6:
                    continue
                try:
                    rows.append({"case": f6[0], "dtype": f6[1], "size": int(f6[2]), "impl": f6[3],
                                 "seconds": float(f6[4]), "bytes": int(f6[5])})
                except ValueError:
                    continue
    return rows, meta, checks, notes


def lscpu():
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    return {k.strip(): v.strip() for k, _, v in (l.partition(":") for l in out.splitlines())}


def gpu_name():
    if not shutil.which("nvidia-smi"):
        return "none"
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "none"
    return "; ".join(l.strip() for l in out.splitlines() if l.strip()) or "none"


def machine_lines():
    info = lscpu()
    model = info.get("Model name", platform.processor() or "?")
    logical = os.cpu_count() or 0
    cores = "?"
    try:
        cores = int(info.get("Core(s) per socket", "0")) * int(info.get("Socket(s)", "1")) or "?"
    except ValueError:
        pass
    try:
        mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
        mem = f"{mem:.0f} GiB RAM"
    except (ValueError, OSError):
        mem = "? RAM"
    thp = "?"
    try:
        thp = open("/sys/kernel/mm/transparent_hugepage/enabled").read().strip()
    except OSError:
        pass
    load = "?"
    try:
        load = " ".join(open("/proc/loadavg").read().split()[:3])
    except OSError:
        pass
    return [
        ("cpu", f"{model}; {cores} cores, {logical} logical CPUs; L3 {info.get('L3 cache', '?')}; {mem}"),
        ("gpu", gpu_name()),
        ("os", f"{platform.system()} {platform.release()}; transparent huge pages {thp}"),
        ("load average at the end", load),
    ]


def ufunc_version(repo):
    """The library's commit, and whether the working tree had changes (read-only git commands)."""
    if not repo:
        return "?"
    try:
        rev = subprocess.run(["git", "-C", repo, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                             timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", repo, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "?"
    if not rev:
        return "? (not a git checkout)"
    return f"commit {rev}" + (" with uncommitted changes" if dirty else "")


def fmt(x, digits=4):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    return f"{x:.{digits}g}"


def merge(args):
    rows, meta, checks, notes = read_raw(args.raw)
    if not rows:
        raise SystemExit(f"perfcsv.py merge: no measurement lines in {' '.join(args.raw)}")
    ref = {(r["case"], r["dtype"], r["size"]): r["seconds"] for r in rows if r["impl"] == args.reference}
    versions = []
    for key, label in (("compiler", ""), ("nvcc", "nvcc"), ("cuda_runtime", "CUDA runtime"), ("python", "Python"),
                       ("numpy", "NumPy"), ("numba", "Numba"), ("xtensor", "xtensor"), ("cupy", "CuPy"),
                       ("torch", "PyTorch"), ("tbb", "oneTBB")):
        if key in meta:
            versions.append(f"{label} {meta[key]}".strip())
    date = args.date or datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    header = [("ufunc benchmark", f"{args.suite} suite; columns: bench/README.md"), ("suite", args.suite),
              ("machine", args.machine or platform.node()), ("date", date)]
    header += machine_lines()
    header += [("ufunc", ufunc_version(args.repo)), ("versions", "; ".join(versions) or "?"),
               ("command", args.command or "?"),
               ("reference", args.reference),
               ("checks", f"{checks[0]} ok, {checks[1]} failed")]
    if args.note:
        header += [("note", n) for n in args.note]
    header += [(f"meta {k}", v) for k, v in sorted(meta.items())]
    header += [("program", n) for n in dict.fromkeys(notes)]
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w", newline="") as f:
        for k, v in header:
            f.write(f"# {k}: {v}\n")
        w = csv.writer(f, lineterminator="\n")
        w.writerow(COLUMNS)
        for r in rows:
            gbps = r["bytes"] / r["seconds"] / 1e9 if r["seconds"] > 0 else math.nan
            t_ref = ref.get((r["case"], r["dtype"], r["size"]))
            ratio = t_ref / r["seconds"] if t_ref and r["seconds"] > 0 else math.nan
            w.writerow([r["case"], r["dtype"], r["size"], r["impl"], f"{r['seconds']:.6g}", fmt(gbps),
                        fmt(ratio)])
    print(f"perfcsv.py: {len(rows)} rows, checks {checks[0]} ok / {checks[1]} failed -> {args.out}",
          file=sys.stderr)
    return 1 if checks[1] else 0


IMPL_ORDER = ["ufunc_cpu", "ufunc_parallel", "ufunc_default", "ufunc_cuda", "ufunc_vectorize", "plain_loop",
              "xtensor", "numpy", "numba_cpu", "numba_parallel", "cub", "cupy", "torch", "numba_cuda"]


def impl_order(impls):
    known = [i for i in IMPL_ORDER if i in impls]
    return known + sorted(i for i in impls if i not in IMPL_ORDER and i not in BOUNDS) + \
        sorted(i for i in impls if i in BOUNDS)


def table(args):
    """A markdown table: per case and dtype, the largest size (and --size K too, if given), GB/s of every impl with
    its ratio to the reference; call1024 in microseconds per call."""
    t = Table(args.csv)
    idx = t.index()
    impls = impl_order({r["impl"] for r in t.rows if r["case"] != BOUND_CASE})
    bound = next((i for i in BOUNDS if any(r["impl"] == i and r["case"] == BOUND_CASE for r in t.rows)), None)
    cols = impls + ([bound] if bound else [])
    print(f"{t.get('suite')} suite, {t.get('machine')}, {t.get('date')}; reference: {t.get('reference')}. "
          "Cells: GB/s (ratio to the reference: its time / this time); call1024: microseconds per call.")
    print()
    print("| case | dtype | n | " + " | ".join(cols) + " |")
    print("|---|---|---:|" + "---:|" * len(cols))
    cases = list(dict.fromkeys(r["case"] for r in t.rows if r["case"] != BOUND_CASE))
    for case in cases:
        for dtype in list(dict.fromkeys(r["dtype"] for r in t.rows)):
            sizes = sorted({r["size"] for r in t.rows if r["case"] == case and r["dtype"] == dtype})
            if not sizes:
                continue
            shown = sorted({sizes[-1]} | ({1 << args.size} if args.size and (1 << args.size) in sizes else set()))
            for n in shown:
                cells = []
                for impl in cols:
                    key = (BOUND_CASE if impl == bound else case, dtype, n, impl)
                    r = idx.get(key) if not (impl == bound and case == "call1024") else None
                    if r is None:
                        cells.append("-")
                    elif case == "call1024":
                        cells.append(f"{r['seconds'] * 1e6:.3g} us")
                    else:
                        ratio = "" if math.isnan(r["ratio_to_reference"]) else f" ({r['ratio_to_reference']:.2f}x)"
                        gbps = r["GB/s"]
                        cells.append((f"{gbps:.0f}" if gbps >= 100 else f"{gbps:.3g}") + ratio)
                print(f"| {case} | {dtype} | 2^{n.bit_length() - 1} | " + " | ".join(cells) + " |")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("merge", help="raw outputs -> one CSV")
    m.add_argument("--out", required=True)
    m.add_argument("--suite", choices=["cpu", "gpu"], required=True)
    m.add_argument("--reference", required=True, help="the impl whose time the ratio column divides by")
    m.add_argument("--command", default="")
    m.add_argument("--machine", default="")
    m.add_argument("--date", default="")
    m.add_argument("--repo", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."),
                   help="the ufunc checkout measured (its commit goes into the header)")
    m.add_argument("--note", action="append", default=[], help="a header note (repeatable)")
    m.add_argument("raw", nargs="+")
    tb = sub.add_parser("table", help="a markdown summary table of one CSV")
    tb.add_argument("--size", type=int, default=0, help="also show size 2^K")
    tb.add_argument("csv")
    args = p.parse_args()
    if args.cmd == "merge":
        return merge(args)
    if args.cmd == "table":
        table(args)
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
