#!/usr/bin/env bash
# Every CPU benchmark in one command: ufunc's cpu and parallel targets beside NumPy, Numba @vectorize (cpu and
# parallel), xtensor, a plain C++ loop and a multi-thread copy (the memory-bandwidth bound), over the cases
# add, square, sin, exp, bcast (row + column), strided (every second element), sum and call1024 (per-call
# overhead), float32 and float64, 2^10..2^26 elements in steps of x4. Writes one CSV into
# bench/results/<machine>-<date>/cpu.csv, plots into docs/perf/ and prints a short table. bench/README.md has
# the details (columns, cases, what each impl is).
#
#   bench/run_all_cpu.sh [--quick] [--max-log2 K] [--min-time S] [--cases a,b] [--dtypes f32,f64]
#                        [--machine NAME] [--out DIR] [--plots DIR | --no-plots] [--build-dir DIR] [--no-build]
#                        [--no-install] [--wait-idle S]
#
#   --quick        2^10..2^16 and 10 ms per measurement: checks the pipeline in about a minute (not a measurement)
#   --max-log2 K   largest size 2^K (default 26); --min-log2 K likewise (default 10)
#   --min-time S   seconds of timed calls per measurement, at least 3 samples (default 0.1; the whole run then
#                  takes about 6 to 10 minutes on 2 cores, most of it in the 2^24 and 2^26 sizes)
#   --cases LIST   a subset of add,square,sin,exp,bcast,strided,sum,call1024
#   --machine NAME the results folder's name (default: the host name); --out DIR overrides the folder
#   --plots DIR    where bench/plot.py writes the SVGs (default docs/perf under the repository)
#   --no-install   do not install anything; run what is there (a missing peer is skipped with a note)
#   --wait-idle S  before each program, wait up to S seconds until nothing else has been runnable for 5 s
#
# Installs what it lacks: Debian packages (cmake g++ make libxsimd-dev libtbb-dev libxtensor-dev) with apt-get
# when run as root, else it prints the apt-get command and goes on without them where it can; Python packages
# (numpy, numba, matplotlib) with pip (Debian 12's system Python refuses plain pip installs: then a virtual
# environment in the build directory). Numba is installed pinned to the NumPy already there, so installing it
# never changes the NumPy being measured; when no Numba fits that NumPy, the Numba rows are skipped with a note.
#
# Environment: PYTHON (default python3), CMAKE_ARGS (extra configure arguments), UFUNC_BENCH_BUILD_DIR.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${UFUNC_BENCH_BUILD_DIR:-$repo/build/bench-all}
python=${PYTHON:-python3}
machine=$(hostname -s 2>/dev/null || echo local)
out_dir=""
plots_dir=$repo/docs/perf
plots=1
build=1
install=1
wait_idle=0
sweep_args=()
command_line="bench/run_all_cpu.sh${*:+ $*}"

while (($#)); do
  case $1 in
    --quick) sweep_args+=(--max-log2 16 --min-time 0.01); shift ;;
    --max-log2|--min-log2|--min-time|--min-samples|--max-samples|--max-call-time|--cases|--dtypes)
      sweep_args+=("$1" "$2"); shift 2 ;;
    --machine) machine=$2; shift 2 ;;
    --out) out_dir=$2; shift 2 ;;
    --plots) plots_dir=$2; shift 2 ;;
    --no-plots) plots=0; shift ;;
    --build-dir) build_dir=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    --no-install) install=0; shift ;;
    --wait-idle) wait_idle=$2; shift 2 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "run_all_cpu.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
[[ $wait_idle =~ ^[0-9]+$ ]] || { echo "run_all_cpu.sh: --wait-idle needs a number of seconds" >&2; exit 2; }
out_dir=${out_dir:-$repo/bench/results/$machine-$(date -u +%Y-%m-%d)}
mkdir -p "$out_dir/raw" "$build_dir"
build_dir=$(cd "$build_dir" && pwd)
out_dir=$(cd "$out_dir" && pwd)
say() { echo "run_all_cpu.sh: $*" >&2; }

# --- what is missing -------------------------------------------------------------------------------------------
if ((install)); then
  missing=()
  for pkg in cmake g++ make libxsimd-dev libtbb-dev libxtensor-dev; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  if ((${#missing[@]})); then
    if ((EUID == 0)) && command -v apt-get >/dev/null; then
      say "installing ${missing[*]}"
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >&2 ||
        { apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >&2; } ||
        say "apt-get could not install ${missing[*]}; going on without them"
    else
      say "missing Debian packages: ${missing[*]}. Install them with:"
      echo "  sudo apt-get install ${missing[*]}" >&2
      say "going on without them (no xtensor rows without libxtensor-dev)"
    fi
  fi

  # pip into the interpreter, else a virtual environment in the build directory (PEP 668 on Debian 12).
  pip_install() {
    "$python" -m pip install -q "$@" >&2 2>/dev/null && return 0
    local venv=$build_dir/venv
    if [[ $python != "$venv/bin/python" ]]; then
      if [[ -x $venv/bin/python ]] || "$python" -m venv --system-site-packages "$venv" >&2; then
        python=$venv/bin/python
        "$python" -m pip install -q "$@" >&2 && return 0
      fi
    fi
    return 1
  }
  if ! "$python" -c 'import numpy' 2>/dev/null; then
    say "installing numpy"
    pip_install numpy || { say "could not install NumPy (try: $python -m pip install numpy)"; exit 1; }
  fi
  if ! "$python" -c 'import numba' 2>/dev/null; then
    np_version=$("$python" -c 'import numpy; print(numpy.__version__)')
    say "installing numba (with numpy pinned at $np_version)"
    pip_install numba "numpy==$np_version" || say "no Numba installs beside NumPy $np_version: Numba rows skipped"
  fi
  if ! "$python" -c 'import matplotlib' 2>/dev/null; then
    say "installing matplotlib"
    pip_install matplotlib || say "could not install matplotlib: no plots"
  fi
fi
"$python" -c 'import numpy' 2>/dev/null || { say "$python has no NumPy"; exit 1; }

# --- build ------------------------------------------------------------------------------------------------------
sweep_bin=$build_dir/bench/ufunc_sweep_bench
xtensor_bin=$build_dir/bench/xtensor_bench
if ((build)); then
  if [[ ! -f $build_dir/CMakeCache.txt ]]; then
    # Release, cpu + TBB, every SIMD instruction set the library has; tests and examples are not needed. The
    # default target is pinned to cpu: calls that name none must not move to another backend.
    # shellcheck disable=SC2086  # CMAKE_ARGS is a list of arguments
    cmake -S "$repo" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DUFUNC_ENABLE_TBB=ON -DUFUNC_BUILD_BENCHMARKS=ON \
      -DUFUNC_BUILD_TESTS=OFF -DUFUNC_BUILD_EXAMPLES=OFF -DUFUNC_DEFAULT_TARGET=cpu ${CMAKE_ARGS:-} \
      >"$out_dir/raw/configure.log" 2>&1 || { tail -30 "$out_dir/raw/configure.log" >&2; exit 1; }
  else
    cmake -S "$repo" -B "$build_dir" -DUFUNC_BUILD_BENCHMARKS=ON >"$out_dir/raw/configure.log" 2>&1 ||
      { tail -30 "$out_dir/raw/configure.log" >&2; exit 1; }
  fi
  targets=(ufunc_sweep_bench)
  grep -q "building xtensor_bench" "$out_dir/raw/configure.log" && targets+=(xtensor_bench)
  say "building ${targets[*]} in $build_dir"
  start=$SECONDS
  cmake --build "$build_dir" -j"$(nproc)" --target "${targets[@]}" >"$out_dir/raw/build.log" 2>&1 ||
    { grep -E "error" -A5 "$out_dir/raw/build.log" | head -60 >&2; exit 1; }
  say "built in $((SECONDS - start)) s"
fi
[[ -x $sweep_bin ]] || { say "$sweep_bin not found (build it, or drop --no-build)"; exit 1; }

# --- run --------------------------------------------------------------------------------------------------------
wait_until_idle() {
  local waited=0 quiet=0 tasks
  while ((waited < wait_idle && quiet < 5)); do
    read -r _ _ _ tasks _ </proc/loadavg
    if ((${tasks%/*} <= 1)); then ((++quiet)); else quiet=0; fi
    sleep 1
    ((++waited))
  done
  ((wait_idle == 0 || quiet >= 5)) || say "still busy after ${wait_idle}s; running anyway"
}

rm -f "$out_dir"/raw/{ufunc,xtensor,numpy}.txt  # only this script's: run_all_gpu.sh may share the folder
status=0
programs=("ufunc_sweep_bench" "xtensor_bench" "numpy_sweep.py")
step=0
start_all=$SECONDS
for prog in "${programs[@]}"; do
  ((++step))
  case $prog in
    ufunc_sweep_bench) cmd=(env -u UFUNC_TARGET "$sweep_bin") ;;
    xtensor_bench)
      if [[ ! -x $xtensor_bin ]]; then
        echo "# skip,xtensor: xtensor_bench not built (Debian package libxtensor-dev missing at configure time)" \
          >"$out_dir/raw/xtensor.txt"
        say "[$step/${#programs[@]}] xtensor_bench not built: no xtensor rows"
        continue
      fi
      cmd=("$xtensor_bin") ;;
    numpy_sweep.py) cmd=("$python" "$repo/bench/numpy_sweep.py") ;;
  esac
  wait_until_idle
  say "[$step/${#programs[@]}] $prog (load average $(cut -d' ' -f1-3 /proc/loadavg))"
  raw=$out_dir/raw/${prog%%[._]*}.txt   # ufunc.txt, xtensor.txt, numpy.txt
  rc=0
  "${cmd[@]}" "${sweep_args[@]}" >"$raw" || rc=$?
  ((rc == 0)) || { status=1; say "$prog: exit status $rc (a failed check or an error; see $raw)"; }
done
say "all programs ran in $((SECONDS - start_all)) s"

csv=$out_dir/cpu.csv
"$python" "$repo/bench/perfcsv.py" merge --out "$csv" --suite cpu --reference numpy --machine "$machine" \
  --command "$command_line" "$out_dir"/raw/ufunc.txt "$out_dir"/raw/xtensor.txt "$out_dir"/raw/numpy.txt || status=1
if ((plots)); then
  if "$python" -c 'import matplotlib' 2>/dev/null; then
    "$python" "$repo/bench/plot.py" --out "$plots_dir" "$csv" || status=1
  else
    say "matplotlib missing: no plots (pip install matplotlib, then: $python bench/plot.py $csv)"
  fi
fi
"$python" "$repo/bench/perfcsv.py" table "$csv" || true
say "CSV: $csv"
exit $status
