#!/usr/bin/env bash
# Builds parallel_bench (Release, UFUNC_ENABLE_TBB=ON), runs it and numba_parallel.py,
# and prints one markdown table: ufunc's parallel target on 1, 2, 4, 8, 16 threads
# (those up to twice the CPU count) beside NumPy (one thread), Numba
# @vectorize(target='parallel') and a multi-threaded memcpy of the same bytes, with
# the issue's targets checked.
#
#   bench/run_parallel.sh [--quick] [--no-build] [--wait-idle S] [-- ARGS...]
#
#   --quick        fewer samples (a smoke test, not a measurement)
#   --no-build     use the binary already in the build directory
#   --wait-idle S  first wait up to S seconds until nothing else has been runnable for
#                  5 seconds (builds running beside the benchmark skew it)
#   -- ARGS        passed to both programs (--samples N, --log2n K, --threads 1,2,4)
#
# Environment: BUILD_DIR (default build/parallel under the repository), CMAKE_ARGS
# (extra cmake arguments, split on spaces), PYTHON (default python3), OUT (if set,
# the CSV goes to $OUT/parallel_bench.csv, else to the build directory). Numba is
# optional: without it the Numba columns stay empty.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${BUILD_DIR:-$repo/build/parallel}
python=${PYTHON:-python3}
build=1
wait_idle=0
bench_args=()

while (($#)); do
  case $1 in
    --quick) bench_args+=(--quick); shift ;;
    --no-build) build=0; shift ;;
    --wait-idle) wait_idle=$2; shift 2 ;;
    --) shift; bench_args+=("$@"); break ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "run_parallel.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
[[ $wait_idle =~ ^[0-9]+$ ]] || { echo "run_parallel.sh: --wait-idle needs a number of seconds" >&2; exit 2; }

if ((build)); then
  # shellcheck disable=SC2086  # CMAKE_ARGS is a list of arguments on purpose
  cmake -S "$repo" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DUFUNC_ENABLE_TBB=ON -DUFUNC_BUILD_BENCHMARKS=ON \
    -DUFUNC_BUILD_TESTS=OFF -DUFUNC_BUILD_EXAMPLES=OFF ${CMAKE_ARGS:-} >/dev/null
  cmake --build "$build_dir" -j"$(nproc)" --target parallel_bench >&2
fi
bench_bin=$build_dir/bench/parallel_bench
[[ -x $bench_bin ]] || { echo "run_parallel.sh: $bench_bin not found (build it, or drop --no-build)" >&2; exit 1; }
"$python" -c 'import numpy' 2>/dev/null || { echo "run_parallel.sh: $python has no NumPy" >&2; exit 1; }

out_dir=${OUT:-$build_dir}
mkdir -p "$out_dir"
csv=$out_dir/parallel_bench.csv
raw=$(mktemp -d)
trap 'rm -rf "$raw"' EXIT

# The 4th field of /proc/loadavg is "runnable/total" now. Read with builtins only, so
# that the one runnable task is this shell (a pipeline of cut would count itself).
waited=0 quiet=0
while ((waited < wait_idle && quiet < 5)); do
  read -r _ _ _ tasks _ </proc/loadavg
  if ((${tasks%/*} <= 1)); then ((++quiet)); else quiet=0; fi
  sleep 1
  ((++waited))
done
((wait_idle == 0 || quiet >= 5)) || echo "run_parallel.sh: still busy after ${wait_idle}s; running anyway" >&2

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
# stderr of parallel_bench is its own table (and TBB's warning when an arena asks
# for more threads than there are cores): shown, not kept in the CSV.
"$bench_bin" "${bench_args[@]}" >"$raw/ufunc.csv"
"$python" "$repo/bench/numba_parallel.py" "${bench_args[@]}" >"$raw/numba.csv"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# One CSV: a header, then every data row of both programs ('#' lines are kept in
# the raw outputs only, and echoed below).
{
  echo "case,impl,threads,n,median_ms,GBps_or_Gelem_s"
  grep -hv -e '^#' -e '^case,' "$raw/ufunc.csv" "$raw/numba.csv"
} >"$csv"
grep -h '^#' "$raw/ufunc.csv" "$raw/numba.csv" >&2

"$python" - "$csv" "$raw" "$load_before" "$load_after" "$bench_bin" "${bench_args[*]}" <<'EOF'
import csv, datetime, os, platform, re, subprocess, sys

path, raw, load_before, load_after, bench_bin, bench_args = sys.argv[1:7]
rows = {}
for r in csv.DictReader(open(path)):
    rows[(r["case"], r["impl"], int(r["threads"]), int(r["n"]))] = (float(r["median_ms"]), float(r["GBps_or_Gelem_s"]))

def lscpu(field):
    try:
        for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
            if line.startswith(field + ":"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "?"

def comment(name, key):
    for line in open(os.path.join(raw, name)):
        m = re.search(key + r"=(\S+)", line)
        if m:
            return m.group(1)
    return "?"

def layer():
    for line in open(os.path.join(raw, "numba.csv")):
        if "threading layer" in line:
            return line.lstrip("# ").strip()
    return "numba not run"

def get(case, impl, t, n=None):
    for (c, i, tt, nn), v in rows.items():
        if c == case and i == impl and tt == t and (n is None or nn == n):
            return v
    return None

big_n = max((k[3] for k in rows if k[0] == "add_f32"), default=0)
threads = sorted({k[2] for k in rows if k[1] == "ufunc_parallel_out" and k[0] == "add_f32"})
sockets, cores = lscpu("Socket(s)"), lscpu("Core(s) per socket")
print("## Machine")
print()
print(f"- date: {datetime.datetime.now().astimezone().strftime('%Y-%m-%d %H:%M %Z')}")
print(f"- CPU: {lscpu('Model name')}; {sockets} socket(s) x {cores} core(s), {lscpu('Thread(s) per core')} "
      f"thread(s) per core, {os.cpu_count()} logical CPUs; L3 {lscpu('L3 cache')}; NUMA nodes {lscpu('NUMA node(s)')}")
print(f"- kernel {platform.release()}; ufunc::simd_arch() {comment('ufunc.csv', 'simd_arch')}; "
      f"parallel grain {comment('ufunc.csv', 'grain')} elements")
print(f"- NumPy {comment('numba.csv', 'numpy')}, Numba {comment('numba.csv', 'numba')} "
      f"({layer()}), Python {comment('numba.csv', 'python')}")
print(f"- command: {bench_bin} {bench_args}".rstrip() + f"; numba_parallel.py {bench_args}".rstrip())
print(f"- load average before {load_before}, after {load_after}")
print()

def fmt(v, digits=2):
    return "-" if v is None else f"{v:.{digits}f}"

def ratio(x, y):
    return None if x is None or y is None or y == 0 else x / y

npy_add, npy_sin = get("add_f32", "numpy_out", 1), get("sin_f32", "numpy_out", 1)
cpu_add, cpu_sin = get("add_f32", "ufunc_cpu_out", 1), get("sin_f32", "ufunc_cpu_out", 1)
copies = [get("copy_f32", "memcpy_tbb", t) for t in threads]
best_copy = max((c[1] for c in copies if c), default=None)
print(f"### float32, n = 2^{big_n.bit_length() - 1}, out= preallocated (median of samples)")
print()
print("add: GB/s counts 12 bytes per element (2 read + 1 written); copy: memcpy of the same bytes, split over "
      "the same threads. sin: Gelem/s.")
print()
print("| threads | copy GB/s | ufunc add GB/s | % of copy | % of best copy | Numba add GB/s | ufunc/Numba add "
      "| ufunc sin Gelem/s | Numba sin Gelem/s | ufunc/Numba sin | ufunc sin / NumPy 1-thread |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
if npy_add and npy_sin:
    print(f"| NumPy (1) | | {fmt(npy_add[1])} | | | | | {fmt(npy_sin[1], 3)} | | | 1.00 |")
if cpu_add and cpu_sin:
    print(f"| ufunc cpu (1) | | {fmt(cpu_add[1])} | | | | | {fmt(cpu_sin[1], 3)} | | | "
          f"{fmt(ratio(cpu_sin[1], npy_sin[1]) if npy_sin else None)} |")
for t in threads:
    cp, ua, us = get("copy_f32", "memcpy_tbb", t), get("add_f32", "ufunc_parallel_out", t), get(
        "sin_f32", "ufunc_parallel_out", t)
    na, ns = get("add_f32", "numba_parallel_out", t), get("sin_f32", "numba_parallel_out", t)
    v = lambda x: x[1] if x else None
    print(f"| {t} | {fmt(v(cp))} | {fmt(v(ua))} | {fmt(100 * ratio(v(ua), v(cp)), 0) if cp and ua else '-'}% | "
          f"{fmt(100 * ratio(v(ua), best_copy), 0) if ua and best_copy else '-'}% | {fmt(v(na))} | "
          f"{fmt(ratio(v(ua), v(na)))} | {fmt(v(us), 3)} | {fmt(v(ns), 3)} | {fmt(ratio(v(us), v(ns)))} | "
          f"{fmt(ratio(v(us), v(npy_sin)))} |")
print()

print("### The same, allocating the output (as `np.add(a, b)`), and a plain loop with add's access pattern")
print()
print("| threads | ufunc add alloc GB/s | Numba add alloc GB/s | NumPy add alloc GB/s | plain loop add GB/s "
      "| ufunc sin alloc Gelem/s | Numba sin alloc Gelem/s | NumPy sin alloc Gelem/s |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|")
na1, ns1 = get("add_f32", "numpy_alloc", 1), get("sin_f32", "numpy_alloc", 1)
for t in threads:
    v = lambda x: x[1] if x else None
    print(f"| {t} | {fmt(v(get('add_f32', 'ufunc_parallel_alloc', t)))} | "
          f"{fmt(v(get('add_f32', 'numba_parallel_alloc', t)))} | {fmt(v(na1))} | "
          f"{fmt(v(get('add_f32', 'plain_loop_tbb_out', t)))} | {fmt(v(get('sin_f32', 'ufunc_parallel_alloc', t)), 3)} | "
          f"{fmt(v(get('sin_f32', 'numba_parallel_alloc', t)), 3)} | {fmt(v(ns1), 3)} |")
print()

print("### Small arrays: add float32 out=, ns per call (median), default thread setting")
print()
print("| n | cpu | parallel | automatic | parallel / cpu | automatic / cpu |")
print("|---:|---:|---:|---:|---:|---:|")
small = sorted({k[3] for k in rows if k[0] == "add_f32_small"})
small_ok = True
for n in small:
    c, p, a = (next((v for k, v in rows.items() if k[0] == "add_f32_small" and k[1] == i and k[3] == n), None)
               for i in ("ufunc_cpu_out", "ufunc_parallel_out", "ufunc_automatic_out"))
    if not (c and p and a):
        continue
    if n <= 4096:
        small_ok &= max(p[0], a[0]) <= c[0] * 1.03
    print(f"| {n} | {c[0] * 1e6:.0f} | {p[0] * 1e6:.0f} | {a[0] * 1e6:.0f} | {p[0] / c[0]:.3f} | {a[0] / c[0]:.3f} |")
print()

print("### Targets")
print()
best_add = max(((get("add_f32", "ufunc_parallel_out", t) or (0, 0))[1], t) for t in threads) if threads else (0, 0)
if best_copy:
    print(f"- add f32 >= 90% of the copy bound: best ufunc add {best_add[0]:.2f} GB/s ({best_add[1]} threads) is "
          f"{100 * best_add[0] / best_copy:.0f}% of the best copy {best_copy:.2f} GB/s: "
          f"{'met' if best_add[0] >= 0.9 * best_copy else 'NOT met'}")
s16 = get("sin_f32", "ufunc_parallel_out", 16)
if s16 and npy_sin:
    x = s16[1] / npy_sin[1]
    print(f"- sin f32 on 16 threads >= 12x NumPy single-thread: {x:.1f}x: {'met' if x >= 12 else 'NOT met'}")
else:
    print("- sin f32 on 16 threads >= 12x NumPy single-thread: not judged (16 threads not run here)")
print(f"- parallel and automatic never slower than cpu at <= 4096 elements (3% noise allowance): "
      f"{'met' if small_ok else 'NOT met'}")
EOF
echo "CSV: $csv" >&2
