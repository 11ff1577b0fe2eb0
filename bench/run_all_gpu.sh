#!/usr/bin/env bash
# Every GPU benchmark of the size sweep in one command: ufunc's cuda target beside CuPy, PyTorch,
# cub::DeviceTransform / cub::DeviceReduce and the cudaMemcpy bound, over the cases add, square, sin, exp, bcast,
# strided, sum and call1024, float32 and float64, 2^10..2^28 elements in steps of x4 (cuda_bench --sweep and
# gpu_peers.py --sweep). Writes bench/results/<machine>-<date>/gpu.csv (same columns as run_all_cpu.sh's CSV,
# bench/README.md), plots into docs/perf/ when matplotlib is there, and prints a short table.
#
#   bench/run_all_gpu.sh [--quick] [--max-log2 K] [--cases a,b] [--dtypes f32,f64] [--reps N] [--machine NAME]
#                        [--out DIR] [--plots DIR | --no-plots] [--build-dir DIR] [--no-build]
#
#   --quick        2^10..2^20, 10 repetitions (checks the pipeline; not a measurement)
#   --max-log2 K   largest size 2^K (default 28; 2^28 float64 needs about 8 GiB of device memory per program)
#   --reps N       timed repetitions per case (default 30, 20 at 2^28)
#   --out DIR      results folder (default bench/results/<machine>-<date>); --machine NAME names it
#   --plots DIR    where bench/plot.py writes the SVGs (default docs/perf); plots need matplotlib, which a GPU
#                  machine without a package registry may lack: then plot later with bench/plot.py CSV
#   --build-dir    CMake build directory (default $BUILD_DIR, else build/gpu-all). An existing configured build
#                  (bench/gpu_session.sh's build/gpu, say) is reused as it is; it must have UFUNC_ENABLE_CUDA=ON
#
# CuPy is needed for the peers (it also provides their timing); PyTorch is optional. Neither is installed by this
# script (their wheels are specific to the CUDA version): without them the CSV has the ufunc, cub and memcpy rows
# only, and says why. Environment: PYTHON (default python3), CMAKE_ARGS (extra configure arguments for a fresh
# build, e.g. -DCMAKE_PREFIX_PATH=... for xsimd), CUDA_ARCHS (default 90).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${BUILD_DIR:-$repo/build/gpu-all}
python=${PYTHON:-python3}
machine=$(hostname -s 2>/dev/null || echo gpu)
out_dir=""
plots_dir=$repo/docs/perf
plots=1
build=1
sweep_args=()
command_line="bench/run_all_gpu.sh${*:+ $*}"

while (($#)); do
  case $1 in
    --quick) sweep_args+=(--quick --max-log2 20); shift ;;
    --max-log2|--min-log2|--cases|--dtypes|--reps) sweep_args+=("$1" "$2"); shift 2 ;;
    --machine) machine=$2; shift 2 ;;
    --out) out_dir=$2; shift 2 ;;
    --plots) plots_dir=$2; shift 2 ;;
    --no-plots) plots=0; shift ;;
    --build-dir) build_dir=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "run_all_gpu.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
out_dir=${out_dir:-$repo/bench/results/$machine-$(date -u +%Y-%m-%d)}
mkdir -p "$out_dir/raw" "$build_dir"
build_dir=$(cd "$build_dir" && pwd)
out_dir=$(cd "$out_dir" && pwd)
say() { echo "run_all_gpu.sh: $*" >&2; }

"$python" -c 'import numpy' 2>/dev/null || { say "$python has no NumPy (pip install numpy)"; exit 1; }
"$python" -c 'import cupy' 2>/dev/null ||
  say "CuPy is missing: no CuPy / PyTorch rows (pip install cupy-cuda13x, or the wheel for this CUDA version)"

bench_bin=$build_dir/bench/cuda_bench
if ((build)); then
  if [[ -f $build_dir/CMakeCache.txt ]]; then
    grep -q '^UFUNC_ENABLE_CUDA:BOOL=ON' "$build_dir/CMakeCache.txt" ||
      { say "$build_dir is configured without UFUNC_ENABLE_CUDA=ON; use another --build-dir"; exit 1; }
    cmake -S "$repo" -B "$build_dir" -DUFUNC_BUILD_BENCHMARKS=ON >"$out_dir/raw/configure.log" 2>&1 ||
      { tail -30 "$out_dir/raw/configure.log" >&2; exit 1; }
  else
    generator=()
    command -v ninja >/dev/null && generator=(-G Ninja)
    # shellcheck disable=SC2086  # CMAKE_ARGS is a list of arguments
    cmake -S "$repo" -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DUFUNC_ENABLE_CUDA=ON \
      -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90}" -DUFUNC_BUILD_TESTS=OFF -DUFUNC_BUILD_EXAMPLES=OFF \
      -DUFUNC_BUILD_BENCHMARKS=ON ${CMAKE_ARGS:-} >"$out_dir/raw/configure.log" 2>&1 ||
      { tail -30 "$out_dir/raw/configure.log" >&2; exit 1; }
  fi
  say "building cuda_bench in $build_dir"
  start=$SECONDS
  cmake --build "$build_dir" -j"$(nproc)" --target cuda_bench >"$out_dir/raw/build.log" 2>&1 ||
    { grep -E "error" -A5 "$out_dir/raw/build.log" | head -60 >&2; exit 1; }
  say "built in $((SECONDS - start)) s"
fi
[[ -x $bench_bin ]] || { say "$bench_bin not found (build it, or drop --no-build)"; exit 1; }

status=0
start=$SECONDS
say "[1/2] cuda_bench --sweep"
rc=0
"$bench_bin" --sweep "${sweep_args[@]}" >"$out_dir/raw/ufunc_cuda.txt" || rc=$?
((rc == 0)) || { status=1; say "cuda_bench: exit status $rc (a failed check or an error; see raw/ufunc_cuda.txt)"; }
say "[2/2] gpu_peers.py --sweep"
rc=0
"$python" "$repo/bench/gpu_peers.py" --sweep "${sweep_args[@]}" >"$out_dir/raw/gpu_peers.txt" || rc=$?
((rc == 0)) || { status=1; say "gpu_peers.py: exit status $rc (see raw/gpu_peers.txt)"; }
say "both programs ran in $((SECONDS - start)) s"

csv=$out_dir/gpu.csv
"$python" "$repo/bench/perfcsv.py" merge --out "$csv" --suite gpu --reference cupy --machine "$machine" \
  --command "$command_line" "$out_dir/raw/ufunc_cuda.txt" "$out_dir/raw/gpu_peers.txt" || status=1
if ((plots)); then
  if "$python" -c 'import matplotlib' 2>/dev/null; then
    "$python" "$repo/bench/plot.py" --out "$plots_dir" "$csv" || status=1
  else
    say "matplotlib missing: no plots here (elsewhere: python3 bench/plot.py $csv)"
  fi
fi
"$python" "$repo/bench/perfcsv.py" table "$csv" || true
say "CSV: $csv"
exit $status
