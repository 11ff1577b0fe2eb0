#!/usr/bin/env bash
# Builds parallel_bench (Release, UFUNC_ENABLE_TBB=ON), runs it and numba_parallel.py,
# and prints one markdown table: ufunc's parallel target on 1, 2, 4, 8, 16 threads
# (those up to twice the CPU count) beside NumPy (one thread), Numba
# @vectorize(target='parallel') and a multi-threaded memcpy of the same bytes, with
# the issue's targets checked.
#
#   bench/run_parallel.sh [--runs N] [--quick] [--no-build] [--wait-idle S] [-- ARGS...]
#
#   --runs N       run both programs N times, alternating (default 2); the table and
#                  parallel_bench.csv show, per program, the run least disturbed by
#                  other jobs, and the table says how far apart the runs were
#   --quick        fewer samples (a smoke test, not a measurement)
#   --no-build     use the binary already in the build directory
#   --report N     run nothing: print the table again from the N runs' raw outputs
#                  already in the output directory
#   --wait-idle S  before each run, wait up to S seconds until nothing else has been
#                  runnable for 5 seconds (builds running beside the benchmark skew it)
#   -- ARGS        passed to both programs (--samples N, --log2n K, --threads 1,2,4)
#
# Environment: BUILD_DIR (default build/parallel under the repository), CMAKE_ARGS
# (extra cmake arguments, split on spaces), PYTHON (default python3), OUT (if set,
# the CSV goes to $OUT/parallel_bench.csv, else to the build directory; the table
# is also written beside it as parallel_report.md, and each run's raw output as
# parallel_run<R>_{ufunc,numba}.{txt,err}). Numba is optional: without it the Numba
# columns stay empty.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${BUILD_DIR:-$repo/build/parallel}
python=${PYTHON:-python3}
build=1
runs=2
report_only=0
wait_idle=0
bench_args=()

while (($#)); do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --quick) bench_args+=(--quick); shift ;;
    --no-build) build=0; shift ;;
    --report) runs=$2; report_only=1; build=0; shift 2 ;;
    --wait-idle) wait_idle=$2; shift 2 ;;
    --) shift; bench_args+=("$@"); break ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "run_parallel.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
[[ $wait_idle =~ ^[0-9]+$ ]] || { echo "run_parallel.sh: --wait-idle needs a number of seconds" >&2; exit 2; }
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "run_parallel.sh: --runs needs a positive integer" >&2; exit 2; }

if ((build)); then
  # shellcheck disable=SC2086  # CMAKE_ARGS is a list of arguments on purpose
  cmake -S "$repo" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DUFUNC_ENABLE_TBB=ON -DUFUNC_BUILD_BENCHMARKS=ON \
    -DUFUNC_BUILD_TESTS=OFF -DUFUNC_BUILD_EXAMPLES=OFF ${CMAKE_ARGS:-} >/dev/null
  cmake --build "$build_dir" -j"$(nproc)" --target parallel_bench >&2
fi
bench_bin=$build_dir/bench/parallel_bench
if ((!report_only)) && [[ ! -x $bench_bin ]]; then
  echo "run_parallel.sh: $bench_bin not found (build it, or drop --no-build)" >&2
  exit 1
fi
"$python" -c 'import numpy' 2>/dev/null || { echo "run_parallel.sh: $python has no NumPy" >&2; exit 1; }

out_dir=${OUT:-$build_dir}
mkdir -p "$out_dir"
csv=$out_dir/parallel_bench.csv
loads=$out_dir/parallel_loads.txt
((report_only)) || rm -f "$out_dir"/parallel_run*_{ufunc,numba}.{txt,err} "$loads"
checks_failed=0

# The 4th field of /proc/loadavg is "runnable/total" now. Read with builtins only, so
# that the one runnable task is this shell (a pipeline of cut would count itself).
wait_until_idle() {
  local waited=0 quiet=0 tasks
  while ((waited < wait_idle && quiet < 5)); do
    read -r _ _ _ tasks _ </proc/loadavg
    if ((${tasks%/*} <= 1)); then ((++quiet)); else quiet=0; fi
    sleep 1
    ((++waited))
  done
  ((wait_idle == 0 || quiet >= 5)) || echo "run_parallel.sh: still busy after ${wait_idle}s; running anyway" >&2
}

for ((r = 1; r <= runs && !report_only; ++r)); do
  wait_until_idle
  before=$(cut -d' ' -f1-3 /proc/loadavg)
  echo "run $r/$runs: load average $before" >&2
  # stderr (parallel_bench's own table, TBB's warning when an arena asks for more
  # threads than there are cores) goes to a file: what this script prints stays
  # short enough that a tool returning only the tail of the output still has it all.
  # parallel_bench exits 1 when a result check fails; the table is still printed.
  "$bench_bin" "${bench_args[@]}" >"$out_dir/parallel_run${r}_ufunc.txt" 2>"$out_dir/parallel_run${r}_ufunc.err" ||
    checks_failed=1
  "$python" "$repo/bench/numba_parallel.py" "${bench_args[@]}" >"$out_dir/parallel_run${r}_numba.txt" \
    2>"$out_dir/parallel_run${r}_numba.err"
  echo "run $r: load average before $before, after $(cut -d' ' -f1-3 /proc/loadavg)" >>"$loads"
done
# Failed result checks, if any, before the table.
grep -h 'FAIL' "$out_dir"/parallel_run*_ufunc.txt >&2 || true
grep -q 'FAIL' "$out_dir"/parallel_run*_ufunc.txt && checks_failed=1

"$python" - "$csv" "$out_dir" "$runs" "$bench_bin" "${bench_args[*]}" "$loads" <<'EOF' | tee "$out_dir/parallel_report.md"
import collections, csv, datetime, os, platform, re, subprocess, sys

path, raw, runs, bench_bin, bench_args, loads = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5], \
    sys.argv[6]
loads = open(loads).read().splitlines() if os.path.exists(loads) else []
HEADER = "case,impl,threads,n,median_ms,GBps_or_Gelem_s"

# Every run's rows. The table shows, per program, the one run that other jobs on the
# machine disturbed least, whole: its rows were timed side by side (interleaved), so
# their ratios hold, which a mix of rows from different runs would not promise. For
# parallel_bench that is the run with the fastest streaming copy on the most threads
# (memory traffic from neighbours shows there first); for numba_parallel.py the one
# with the fastest Numba sin on the most threads (a busy core shows there first).
def read_run(r, kind):
    out = {}
    for line in open(os.path.join(raw, f"parallel_run{r}_{kind}.txt")):
        if line.startswith("#") or line.startswith("case,") or not line.strip():
            continue
        c, i, t, n, ms, rate = line.strip().split(",")
        out[(c, i, int(t), int(n))] = (float(ms), float(rate))
    return out

def least_disturbed(kind, case, impls):
    runs_rows = [read_run(r, kind) for r in range(1, runs + 1)]
    def score(rr):
        keys = [k for k in rr if k[0] == case and k[1] in impls]
        return max(rr[k][1] for k in keys if k[2] == max(kk[2] for kk in keys)) if keys else 0
    best = max(range(runs), key=lambda i: score(runs_rows[i]))
    return best + 1, runs_rows

ufunc_run, ufunc_rows = least_disturbed("ufunc", "copy_f32", ("stream_copy_tbb", "memcpy_tbb"))
numba_run, numba_rows = least_disturbed("numba", "sin_f32", ("numba_parallel_out", "numpy_out"))
rows = {**ufunc_rows[ufunc_run - 1], **numba_rows[numba_run - 1]}
spread = {}  # how far the slowest run's median was above the fastest, per row
for all_rows in (ufunc_rows, numba_rows):
    for k in all_rows[0]:
        ms = [rr[k][0] for rr in all_rows if k in rr]
        spread[k] = max(ms) / min(ms) - 1
with open(path, "w") as f:
    f.write(HEADER + "\n")
    for (c, i, t, n), (ms, rate) in rows.items():
        f.write(f"{c},{i},{t},{n},{ms:.6f},{rate:.3f}\n")

def lscpu(field):
    try:
        for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
            if line.startswith(field + ":"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "?"

def comment(name, key):
    for line in open(os.path.join(raw, f"parallel_run1_{name}.txt")):
        m = re.search(key + r"=(\S+)", line)
        if m:
            return m.group(1)
    return "?"

def layer():
    for line in open(os.path.join(raw, "parallel_run1_numba.txt")):
        if "threading layer" in line:
            return line.lstrip("# ").strip()
    return "numba not run"

def get(case, impl, t, n=None):
    for (c, i, tt, nn), v in rows.items():
        if c == case and i == impl and (t is None or tt == t) and (n is None or nn == n):
            return v
    return None

big_n = max((k[3] for k in rows if k[0] == "add_f32"), default=0)
threads = sorted({k[2] for k in rows if k[1] == "ufunc_parallel_out" and k[0] == "add_f32"})
sockets, cores = lscpu("Socket(s)"), lscpu("Core(s) per socket")
print("## Machine")
print()
ran = datetime.datetime.fromtimestamp(os.path.getmtime(os.path.join(raw, "parallel_run1_ufunc.txt"))).astimezone()
print(f"- date: {ran.strftime('%Y-%m-%d %H:%M %Z')} (run 1)")
print(f"- CPU: {lscpu('Model name')}; {sockets} socket(s) x {cores} core(s), {lscpu('Thread(s) per core')} "
      f"thread(s) per core, {os.cpu_count()} logical CPUs; L3 {lscpu('L3 cache')}; NUMA nodes {lscpu('NUMA node(s)')}")
print(f"- kernel {platform.release()}; ufunc::simd_arch() {comment('ufunc', 'simd_arch')}; "
      f"parallel grain {comment('ufunc', 'grain')} elements")
print(f"- NumPy {comment('numba', 'numpy')}, Numba {comment('numba', 'numba')} "
      f"({layer()}), Python {comment('numba', 'python')}")
print(f"- command: {bench_bin} {bench_args}".rstrip() + f"; numba_parallel.py {bench_args}".rstrip())
print(f"- {runs} run(s), alternating; shown: parallel_bench run {ufunc_run} and numba_parallel.py run {numba_run}, "
      "the ones least disturbed by other jobs (fastest streaming copy / Numba sin on the most threads)")
for line in loads:
    print(f"- {line}")
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
print("add: GB/s counts 12 bytes per element (2 read + 1 written). memcpy: a copy of the same bytes (1.5 n floats "
      "read, 1.5 n written) in 1 MiB memcpy calls over the same threads; like ufunc's loops it writes through the "
      "cache, so each written line is also read first. stream copy: the same copy with non-temporal stores, the "
      "machine's real bandwidth (an ordinary-store add can reach about 75% of it: 16 bytes move for 12 counted). "
      "sin: Gelem/s; its 8 bytes per element as % of the memcpy rate show when sin is limited by memory. Spread: "
      "how far the slowest run's median of ufunc add / ufunc sin was above the best.")
print()
print("| threads | memcpy GB/s | stream copy GB/s | ufunc add GB/s | % of memcpy | % of stream copy | Numba add GB/s "
      "| ufunc/Numba add | ufunc sin Gelem/s | sin bytes % of memcpy | Numba sin Gelem/s | ufunc/Numba sin "
      "| ufunc sin / NumPy 1-thread | spread add / sin |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
v = lambda x: x[1] if x else None
pct = lambda x, y: "-" if x is None or y is None else f"{100 * x / y:.0f}%"

def spread_of(case, impl, t):
    k = next((k for k in spread if k[:3] == (case, impl, t)), None)
    return "-" if k is None else f"{100 * spread[k]:.0f}%"

if npy_add and npy_sin:
    print(f"| NumPy (1) | | | {fmt(npy_add[1])} | | | | | {fmt(npy_sin[1], 3)} | | | | 1.00 | "
          f"{spread_of('add_f32', 'numpy_out', 1)} / {spread_of('sin_f32', 'numpy_out', 1)} |")
if cpu_add and cpu_sin:
    print(f"| ufunc cpu (1) | | | {fmt(cpu_add[1])} | | | | | {fmt(cpu_sin[1], 3)} | | | | "
          f"{fmt(ratio(cpu_sin[1], npy_sin[1]) if npy_sin else None)} | "
          f"{spread_of('add_f32', 'ufunc_cpu_out', 1)} / {spread_of('sin_f32', 'ufunc_cpu_out', 1)} |")
for t in threads:
    cp, st = get("copy_f32", "memcpy_tbb", t), get("copy_f32", "stream_copy_tbb", t)
    ua, us = get("add_f32", "ufunc_parallel_out", t), get("sin_f32", "ufunc_parallel_out", t)
    na, ns = get("add_f32", "numba_parallel_out", t), get("sin_f32", "numba_parallel_out", t)
    print(f"| {t} | {fmt(v(cp))} | {fmt(v(st))} | {fmt(v(ua))} | {pct(v(ua), v(cp))} | {pct(v(ua), v(st))} | "
          f"{fmt(v(na))} | {fmt(ratio(v(ua), v(na)))} | {fmt(v(us), 3)} | {pct(8 * v(us) if us else None, v(cp))} | "
          f"{fmt(v(ns), 3)} | {fmt(ratio(v(us), v(ns)))} | {fmt(ratio(v(us), v(npy_sin)))} | "
          f"{spread_of('add_f32', 'ufunc_parallel_out', t)} / {spread_of('sin_f32', 'ufunc_parallel_out', t)} |")
print()

print("### The same, allocating the output (as `np.add(a, b)`), and a plain loop with add's access pattern")
print()
print("| threads | ufunc add alloc GB/s | Numba add alloc GB/s | NumPy add alloc GB/s | plain loop add GB/s "
      "| ufunc sin alloc Gelem/s | Numba sin alloc Gelem/s | NumPy sin alloc Gelem/s |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|")
na1, ns1 = get("add_f32", "numpy_alloc", 1), get("sin_f32", "numpy_alloc", 1)
for t in threads:
    print(f"| {t} | {fmt(v(get('add_f32', 'ufunc_parallel_alloc', t)))} | "
          f"{fmt(v(get('add_f32', 'numba_parallel_alloc', t)))} | {fmt(v(na1))} | "
          f"{fmt(v(get('add_f32', 'plain_loop_tbb_out', t)))} | "
          f"{fmt(v(get('sin_f32', 'ufunc_parallel_alloc', t)), 3)} | "
          f"{fmt(v(get('sin_f32', 'numba_parallel_alloc', t)), 3)} | {fmt(v(ns1), 3)} |")
print()

print("### Small arrays: add float32 out=, ns per call (median), default thread setting")
print()
print("Per size, the run whose three medians add up least (the least disturbed); the three were timed in "
      "rotation in that run. The last column gives parallel / cpu in every run.")
print()
print("| n | run | cpu | parallel | automatic | parallel / cpu | automatic / cpu | parallel / cpu, each run |")
print("|---:|---:|---:|---:|---:|---:|---:|---|")
small = sorted({k[3] for k in rows if k[0] == "add_f32_small"})
small_ok = True
for n in small:
    def trio(rr):
        return [next((v for k, v in rr.items() if k[0] == "add_f32_small" and k[1] == i and k[3] == n), None)
                for i in ("ufunc_cpu_out", "ufunc_parallel_out", "ufunc_automatic_out")]
    candidates = [(trio(rr), r + 1) for r, rr in enumerate(ufunc_rows) if all(trio(rr))]
    if not candidates:
        continue
    (c, p, a), r = min(candidates, key=lambda x: sum(v[0] for v in x[0]))
    if n <= 4096:
        small_ok &= max(p[0], a[0]) <= c[0] * 1.03
    each = ", ".join(f"{x[0][1][0] / x[0][0][0]:.3f}" for x in candidates)
    print(f"| {n} | {r} | {c[0] * 1e6:.0f} | {p[0] * 1e6:.0f} | {a[0] * 1e6:.0f} | {p[0] / c[0]:.3f} | "
          f"{a[0] / c[0]:.3f} | {each} |")
print()

print("### Streaming stores: the same calls with ordinary stores (A/B timed interleaved)")
print()
print("ufunc writes outputs of 16 MiB and more with non-temporal stores; the `_nostream` rows time the same "
      "calls with them off, sample by sample beside the streaming ones. The split-at-one-grain column is the "
      "parallel target splitting every call above one grain (the behaviour before the 4-grain inline threshold).")
print()
print("| threads | add GB/s streaming | add GB/s ordinary | streaming / ordinary | sin Gelem/s streaming "
      "| sin Gelem/s ordinary | streaming / ordinary | sin streaming / NumPy | sin ordinary / NumPy |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for t, impl_s, impl_o in [("cpu (1)", "ufunc_cpu_out", "ufunc_cpu_out_nostream")] + \
        [(t, "ufunc_parallel_out", "ufunc_parallel_out_nostream") for t in threads]:
    tt = 1 if isinstance(t, str) else t
    a_s, a_o = get("add_f32", impl_s, tt), get("add_f32", impl_o, tt)
    s_s, s_o = get("sin_f32", impl_s, tt), get("sin_f32", impl_o, tt)
    print(f"| {t} | {fmt(v(a_s))} | {fmt(v(a_o))} | {fmt(ratio(v(a_s), v(a_o)))} | {fmt(v(s_s), 3)} | "
          f"{fmt(v(s_o), 3)} | {fmt(ratio(v(s_s), v(s_o)))} | {fmt(ratio(v(s_s), v(npy_sin)))} | "
          f"{fmt(ratio(v(s_o), v(npy_sin)))} |")
print()
print("| n | cpu ns | parallel ns (inline up to 4 grains) | split at one grain ns | parallel / cpu | split / cpu |")
print("|---:|---:|---:|---:|---:|---:|")
for n in small:
    c, p, s1 = (get("add_f32_small", i, None, n) for i in ("ufunc_cpu_out", "ufunc_parallel_out",
                                                            "ufunc_parallel_split1_out"))
    if not (c and p and s1):
        continue
    print(f"| {n} | {c[0] * 1e6:.0f} | {p[0] * 1e6:.0f} | {s1[0] * 1e6:.0f} | {p[0] / c[0]:.3f} | "
          f"{s1[0] / c[0]:.3f} |")
print()

print("### Targets")
print()
best_add = max(((get("add_f32", "ufunc_parallel_out", t) or (0, 0))[1], t) for t in threads) if threads else (0, 0)
if best_copy:
    print(f"- add f32 >= 90% of the copy bound: best ufunc add {best_add[0]:.2f} GB/s ({best_add[1]} threads) is "
          f"{100 * best_add[0] / best_copy:.0f}% of the best memcpy {best_copy:.2f} GB/s: "
          f"{'met' if best_add[0] >= 0.9 * best_copy else 'NOT met'}")
    tmax = max(threads)
    cp, ua = get("copy_f32", "memcpy_tbb", tmax), get("add_f32", "ufunc_parallel_out", tmax)
    if cp and ua:
        print(f"  (at the most threads run, {tmax}: {ua[1]:.2f} GB/s against the memcpy's {cp[1]:.2f}, "
              f"{100 * ua[1] / cp[1]:.0f}%)")
    streams = [x[1] for x in (get("copy_f32", "stream_copy_tbb", t) for t in threads) if x]
    if streams:
        print(f"  Against the streaming-store copy ({max(streams):.2f} GB/s at best) it is "
              f"{100 * best_add[0] / max(streams):.0f}%: "
              f"{'met' if best_add[0] >= 0.9 * max(streams) else 'NOT met'} by that stricter reading")
s16 = get("sin_f32", "ufunc_parallel_out", 16)
if s16 and npy_sin:
    x = s16[1] / npy_sin[1]
    print(f"- sin f32 on 16 threads >= 12x NumPy single-thread: {x:.1f}x: {'met' if x >= 12 else 'NOT met'}")
else:
    print("- sin f32 on 16 threads >= 12x NumPy single-thread: not judged (16 threads not run here)")
print(f"- parallel and automatic never slower than cpu at <= 4096 elements (3% noise allowance): "
      f"{'met' if small_ok else 'NOT met'}")
EOF
echo "CSV: $csv; table: $out_dir/parallel_report.md; raw outputs: $out_dir/parallel_run*" >&2
((!checks_failed)) || { echo "run_parallel.sh: a result check failed (see the FAIL lines above)" >&2; exit 1; }
