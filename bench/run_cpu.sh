#!/usr/bin/env bash
# Builds ufunc_cpu_bench (Release), runs it and numpy_bench.py, and prints one table:
# per case, the ufunc time, the NumPy time, their ratio (NumPy / ufunc: above 1 means
# ufunc is faster) and the bandwidth, with the machine it ran on.
#
#   bench/run_cpu.sh [--build-dir DIR] [--runs N] [--wait-idle S] [--quick] [--no-build]
#
#   --build-dir DIR  CMake build directory (default: build/bench under the repository,
#                    or $UFUNC_BENCH_BUILD_DIR)
#   --runs N         run both programs N times, alternating; the table shows each
#                    case's best run and how far apart the runs were (default 1)
#   --quick          fewer samples (a smoke test, not a measurement)
#   --no-build       use the binary already in the build directory
#   --wait-idle S    before each run, wait up to S seconds until nothing else has been
#                    runnable for 5 seconds (other builds on the machine skew timings)
#
# $PYTHON picks the interpreter (default python3). Raw results are kept under
# DIR/bench-results/.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${UFUNC_BENCH_BUILD_DIR:-$repo/build/bench}
runs=1
quick=()
build=1
wait_idle=0
python=${PYTHON:-python3}

while (($#)); do
  case $1 in
    --build-dir) build_dir=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --quick) quick=(--quick); shift ;;
    --no-build) build=0; shift ;;
    --wait-idle) wait_idle=$2; shift 2 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "run_cpu.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "run_cpu.sh: --runs needs a positive integer" >&2; exit 2; }
[[ $wait_idle =~ ^[0-9]+$ ]] || { echo "run_cpu.sh: --wait-idle needs a number of seconds" >&2; exit 2; }

# The 4th field of /proc/loadavg is "runnable/total" right now; 1 runnable is this
# shell's own read. The 1-minute load average lags by minutes, so it is only reported.
wait_until_idle() {
  local waited=0 quiet=0
  while ((waited < wait_idle)); do
    local runnable
    runnable=$(cut -d' ' -f4 /proc/loadavg | cut -d/ -f1)
    if ((runnable <= 1)); then ((++quiet)); else quiet=0; fi
    ((quiet >= 5)) && return 0
    sleep 1
    ((++waited))
  done
  ((wait_idle == 0)) || echo "run_cpu.sh: machine still busy after ${wait_idle}s; running anyway" >&2
}
build_dir=$(mkdir -p "$build_dir" && cd "$build_dir" && pwd)

# NumPy: use it if the interpreter has it; otherwise install it, trying an ordinary
# pip install, then a virtual environment in the build directory (Debian 12's system
# Python refuses plain pip installs, PEP 668), then --break-system-packages.
ensure_numpy() {
  "$python" -c 'import numpy' 2>/dev/null && return 0
  echo "NumPy is missing for $python; installing it" >&2
  if "$python" -m pip install numpy >&2; then return 0; fi
  local venv=$build_dir/numpy-venv
  if [[ -x $venv/bin/python ]] || "$python" -m venv "$venv" >&2; then
    if "$venv/bin/python" -c 'import numpy' 2>/dev/null || "$venv/bin/python" -m pip install numpy >&2; then
      python=$venv/bin/python
      return 0
    fi
  fi
  if "$python" -m pip install --user --break-system-packages numpy >&2; then return 0; fi
  cat >&2 <<EOF
run_cpu.sh: could not install NumPy. Install it and run again, for example:
  $python -m pip install numpy
  $python -m pip install --user --break-system-packages numpy   # Debian 12 system Python
  sudo apt-get install python3-numpy python3-pip python3-venv    # Debian packages
EOF
  exit 1
}
ensure_numpy

bench_bin=$build_dir/bench/ufunc_cpu_bench
if ((build)); then
  # Tests and examples are not needed here, and leaving them out keeps this build
  # independent of their dependencies (doctest). The default target is pinned to
  # cpu: these numbers are for the SIMD serial backend.
  cmake -S "$repo" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DUFUNC_BUILD_BENCHMARKS=ON \
    -DUFUNC_BUILD_TESTS=OFF -DUFUNC_BUILD_EXAMPLES=OFF -DUFUNC_DEFAULT_TARGET=cpu >/dev/null
  cmake --build "$build_dir" -j"$(nproc)" --target ufunc_cpu_bench >&2
fi
[[ -x $bench_bin ]] || { echo "run_cpu.sh: $bench_bin not found (build it, or drop --no-build)" >&2; exit 1; }

out_dir=$build_dir/bench-results
mkdir -p "$out_dir"
rm -f "$out_dir"/cpu_run*.tsv "$out_dir"/numpy_run*.tsv "$out_dir"/load.txt
for ((r = 1; r <= runs; ++r)); do
  wait_until_idle
  echo "run $r/$runs: load average $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out_dir/load.txt" >&2
  # UFUNC_TARGET would move calls that name no target off the serial cpu backend.
  env -u UFUNC_TARGET "$bench_bin" "${quick[@]}" >"$out_dir/cpu_run$r.tsv"
  "$python" "$repo/bench/numpy_bench.py" "${quick[@]}" >"$out_dir/numpy_run$r.tsv"
done
echo "after: load average $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out_dir/load.txt"

compiler=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build_dir/CMakeCache.txt")
"$python" - "$out_dir" "$runs" "$compiler" <<'EOF'
import collections, datetime, glob, os, platform, re, subprocess, sys

out_dir, runs, compiler = sys.argv[1], int(sys.argv[2]), sys.argv[3]

def read(kind):
    info, rows, checks = {}, collections.defaultdict(list), []
    for r in range(1, runs + 1):
        for line in open(os.path.join(out_dir, f"{kind}_run{r}.tsv")):
            f = line.rstrip("\n").split("\t")
            if f[0] == "INFO":
                info[f[1]] = f[2]
            elif f[0] == "CHECK":
                checks.append(f)
            elif f[0] == "RESULT":
                group, variant, elements, nbytes, median, best = f[1:7]
                rows[(group, variant)].append((float(median), float(best), int(elements), int(nbytes)))
    return info, rows, checks

cinfo, crows, cchecks = read("cpu")
ninfo, nrows, nchecks = read("numpy")

def fmt_time(ns):
    if ns < 1e4:
        return f"{ns / 1e3:.3f} us"
    if ns < 1e6:
        return f"{ns / 1e3:.0f} us"
    return f"{ns / 1e6:.2f} ms"

def summary(samples):
    # Per run: the median and min over that run's samples. Across runs: the best
    # (lowest) median, the lowest min, and the spread of the run medians.
    medians = [s[0] for s in samples]
    return min(medians), min(s[1] for s in samples), max(medians) / min(medians) - 1, samples[0][2], samples[0][3]

def lscpu(field):
    try:
        for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
            if line.startswith(field + ":"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "?"

def first_line(path):
    try:
        return open(path).read().strip()
    except OSError:
        return "?"

print("## Machine")
print()
print(f"- date: {datetime.datetime.now().astimezone().strftime('%Y-%m-%d %H:%M %Z')}")
print(f"- CPU: {lscpu('Model name')}, {os.cpu_count()} logical CPUs, {lscpu('Core(s) per socket')} core(s) per socket")
thp = first_line("/sys/kernel/mm/transparent_hugepage/enabled")
print(f"- kernel: {platform.release()}; transparent huge pages: {thp}")
print(f"- compiler: {compiler} {cinfo.get('compiler', '?')}, flags '{cinfo.get('cxx_flags', '?').strip()}'")
print(f"- ufunc::simd_arch(): {cinfo.get('simd_arch', '?')} (the built-in loops' instruction set)")
print(f"- vectorize in the bench TU (no -m flags): {cinfo.get('vectorize_baseline_simd', '?')}; "
      f"extra TUs: avx2 {cinfo.get('vectorize_avx2_simd', 'not built')}, "
      f"avx512 {cinfo.get('vectorize_avx512_simd', 'not built')}")
print(f"- NumPy {ninfo.get('numpy', '?')} on Python {ninfo.get('python', '?')}")
print(f"- samples: {cinfo.get('plan', '?')}; runs: {runs}")
for line in open(os.path.join(out_dir, "load.txt")):
    print(f"- {line.strip()}")
print()

groups = list(dict.fromkeys(g for g, _ in crows))
print("## Results")
print()
print(f"Times are per call: the median over samples (from the best of {runs} run(s)) and the minimum. "
      "Ratio = NumPy median / this row's median (above 1: faster than NumPy). GB/s counts bytes read + written, "
      "from the median. Runs spread: how far the slowest run's median was above the best's.")
print()
print("| case | implementation | median | min | runs spread | GB/s | Gelem/s | NumPy median | NumPy GB/s | ratio |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for g in groups:
    nkeys = [k for k in nrows if k[0] == g]
    npy = summary(nrows[nkeys[0]]) if nkeys else None
    if npy:
        med, best, spread, elements, nbytes = npy
        print(f"| {g} | **NumPy** `{nkeys[0][1]}` | {fmt_time(med)} | {fmt_time(best)} | {spread * 100:.0f}% | "
              f"{nbytes / med:.1f} | {elements / med:.2f} | | | |")
    for (gg, variant), samples in crows.items():
        if gg != g:
            continue
        med, best, spread, elements, nbytes = summary(samples)
        ratio = f"{npy[0] / med:.2f}" if npy else "-"
        npy_cols = f"{fmt_time(npy[0])} | {npy[4] / npy[0]:.1f}" if npy else "- | -"
        print(f"| {g} | {variant} | {fmt_time(med)} | {fmt_time(best)} | {spread * 100:.0f}% | {nbytes / med:.1f} | "
              f"{elements / med:.2f} | {npy_cols} | {ratio} |")
print()
bad = [c for c in cchecks + nchecks if c[1] != "ok"]
print(f"Result checks: {len(cchecks) + len(nchecks) - len(bad)} ok, {len(bad)} failed" +
      "".join(f"\n- FAILED: {c[2]} {c[3] if len(c) > 3 else ''}" for c in bad))
sys.exit(1 if bad else 0)
EOF
