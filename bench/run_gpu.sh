#!/usr/bin/env bash
# Builds cuda_bench (Release, sm_90), runs it and gpu_peers.py (CuPy, PyTorch, Numba), writes every CSV line
# (case,impl,n,bytes_moved,median_us,GBps) to gpu_bench.csv and prints one table: per case, GB/s of ufunc, its
# vectorize path, cub::DeviceTransform, CuPy, PyTorch, Numba and the copy reference, with ufunc/cub and ufunc/cupy.
#
#   bench/run_gpu.sh [--quick] [--no-build]
#
#   --quick     fewer reps, no 2^28 cases (a smoke test, not a measurement)
#   --no-build  use the cuda_bench already built in the build directory
#
# Environment:
#   BUILD_DIR           build directory (default build/gpu). If it is already configured (bench/gpu_session.sh's
#                       build, say), it is reused as it is and only cuda_bench is built in it.
#   OUT                 where gpu_bench.csv and the raw outputs go (default: the build directory)
#   UFUNC_EXTRA_INCLUDE an include directory holding xsimd/xsimd.hpp, added to the C++ and CUDA flags
#   XSIMD_CMAKE_DIR     the directory of xsimdConfig.cmake (passed as -Dxsimd_DIR). Without it, and with
#                       UFUNC_EXTRA_INCLUDE set, a config next to that include directory is used, or else a minimal
#                       one (an INTERFACE target 'xsimd' over the headers) is written into the build directory.
#   CMAKE_ARGS          more arguments for a fresh configure
#   PYTHON              the interpreter for gpu_peers.py (default python3)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
build_dir=${BUILD_DIR:-build/gpu}
python=${PYTHON:-python3}
quick=()
build=1
while (($#)); do
  case $1 in
    --quick) quick=(--quick); shift ;;
    --no-build) build=0; shift ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "run_gpu.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
mkdir -p "$build_dir"
build_dir=$(cd "$build_dir" && pwd)
out_dir=${OUT:-$build_dir}
mkdir -p "$out_dir"
csv=$out_dir/gpu_bench.csv

# xsimd: find_package(xsimd REQUIRED) needs a CMake config, not just headers.
xsimd_args=()
if [[ -n ${XSIMD_CMAKE_DIR:-} ]]; then
  xsimd_args=(-Dxsimd_DIR="$XSIMD_CMAKE_DIR")
elif [[ -n ${UFUNC_EXTRA_INCLUDE:-} && -f $UFUNC_EXTRA_INCLUDE/xsimd/xsimd.hpp ]]; then
  found=""
  for d in lib/cmake/xsimd lib64/cmake/xsimd lib/x86_64-linux-gnu/cmake/xsimd share/cmake/xsimd; do
    if [[ -f $UFUNC_EXTRA_INCLUDE/../$d/xsimdConfig.cmake ]]; then
      found=$(cd "$UFUNC_EXTRA_INCLUDE/../$d" && pwd)
      break
    fi
  done
  if [[ -z $found ]]; then
    # Headers only: ufunc uses xsimd's headers and links the target 'xsimd' for its include directory.
    found=$build_dir/xsimd-config
    mkdir -p "$found"
    include=$(cd "$UFUNC_EXTRA_INCLUDE" && pwd)
    cat >"$found/xsimdConfig.cmake" <<EOF
# Written by bench/run_gpu.sh: xsimd's headers from $include, without an installed CMake config.
if(NOT TARGET xsimd)
  add_library(xsimd INTERFACE IMPORTED)
  set_target_properties(xsimd PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "$include")
endif()
set(xsimd_FOUND TRUE)
EOF
  fi
  xsimd_args=(-Dxsimd_DIR="$found")
fi

bench_bin=$build_dir/bench/cuda_bench
if ((build)); then
  if [[ -f $build_dir/CMakeCache.txt ]]; then
    # Reuse the build as configured (its tests and options stay); benchmarks must be on and CUDA enabled.
    grep -q '^UFUNC_ENABLE_CUDA:BOOL=ON' "$build_dir/CMakeCache.txt" || {
      echo "run_gpu.sh: $build_dir is configured without UFUNC_ENABLE_CUDA=ON; use another BUILD_DIR" >&2; exit 1; }
    cmake -S "$repo" -B "$build_dir" -DUFUNC_BUILD_BENCHMARKS=ON "${xsimd_args[@]}" \
      >"$out_dir/gpu_configure.log" 2>&1 || { tail -30 "$out_dir/gpu_configure.log"; exit 1; }
  else
    flags=()
    if [[ -n ${UFUNC_EXTRA_INCLUDE:-} ]]; then
      flags=(-DCMAKE_CXX_FLAGS="-I$UFUNC_EXTRA_INCLUDE" -DCMAKE_CUDA_FLAGS="-I$UFUNC_EXTRA_INCLUDE")
    fi
    generator=()
    command -v ninja >/dev/null && generator=(-G Ninja)
    # shellcheck disable=SC2086  # CMAKE_ARGS is a list of arguments
    cmake -S "$repo" -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DUFUNC_ENABLE_CUDA=ON \
      -DCMAKE_CUDA_ARCHITECTURES=90 -DUFUNC_BUILD_TESTS=OFF -DUFUNC_BUILD_EXAMPLES=OFF -DUFUNC_BUILD_BENCHMARKS=ON \
      "${flags[@]}" "${xsimd_args[@]}" ${CMAKE_ARGS:-} >"$out_dir/gpu_configure.log" 2>&1 ||
      { tail -30 "$out_dir/gpu_configure.log"; exit 1; }
  fi
  echo "run_gpu.sh: building cuda_bench in $build_dir" >&2
  start=$SECONDS
  cmake --build "$build_dir" -j"$(nproc)" --target cuda_bench >"$out_dir/gpu_build.log" 2>&1 ||
    { grep -E "error" -A5 "$out_dir/gpu_build.log" | head -60; exit 1; }
  echo "run_gpu.sh: built in $((SECONDS - start)) s" >&2
fi
[[ -x $bench_bin ]] || { echo "run_gpu.sh: $bench_bin not found (build it, or drop --no-build)" >&2; exit 1; }

{
  echo "# date,$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader \
    2>/dev/null | sed 's/^/# nvidia-smi,/' || true
} >"$out_dir/gpu_machine.txt"

# Each program's exit status says whether its result checks passed; both run whatever the other did.
status=0
echo "run_gpu.sh: running cuda_bench" >&2
start=$SECONDS
"$bench_bin" "${quick[@]}" >"$out_dir/cuda_bench.out" 2>"$out_dir/cuda_bench.err" || status=$?
echo "run_gpu.sh: cuda_bench exit $status after $((SECONDS - start)) s" >&2
peers_status=0
echo "run_gpu.sh: running gpu_peers.py" >&2
start=$SECONDS
"$python" "$repo/bench/gpu_peers.py" "${quick[@]}" >"$out_dir/gpu_peers.out" 2>"$out_dir/gpu_peers.err" ||
  peers_status=$?
echo "run_gpu.sh: gpu_peers.py exit $peers_status after $((SECONDS - start)) s" >&2
[[ -s $out_dir/cuda_bench.err ]] && { echo "--- cuda_bench stderr:" >&2; tail -20 "$out_dir/cuda_bench.err" >&2; }
[[ -s $out_dir/gpu_peers.err ]] && { echo "--- gpu_peers.py stderr:" >&2; tail -20 "$out_dir/gpu_peers.err" >&2; }

# The CSV: a header, then every measurement line of both programs (notes and checks stay in the raw outputs).
{
  echo "case,impl,n,bytes_moved,median_us,GBps"
  measurement='^[a-z0-9_]+,[a-z0-9_]+,[0-9]+,[0-9]+,[0-9.]+,[0-9.]+$'
  grep -hE "$measurement" "$out_dir/cuda_bench.out" "$out_dir/gpu_peers.out" || true
} >"$csv"

"$python" - "$csv" "$out_dir" <<'EOF'
import csv, os, sys

path, out_dir = sys.argv[1], sys.argv[2]
rows, cells = [], {}
for r in csv.DictReader(open(path)):
    key = (r["case"], int(r["n"]))
    if key not in cells:
        rows.append(key)
        cells[key] = {}
    cells[key][r["impl"]] = (float(r["median_us"]), float(r["GBps"]))

def lines_starting(name, prefixes):
    try:
        return [l.rstrip("\n") for l in open(os.path.join(out_dir, name)) if l.startswith(prefixes)]
    except OSError:
        return []

for l in lines_starting("gpu_machine.txt", "#"):
    print(l)
for name in ("cuda_bench.out", "gpu_peers.out"):
    for l in lines_starting(name, ("# device", "# versions", "# api", "# note", "# error", "# skip", "# timing")):
        print(f"{l}   [{name}]")
print()
cols = ["ufunc", "vectorize", "cub", "cupy", "torch", "numba", "memcpy"]
print("GB/s (median); percall_* rows: microseconds per call. memcpy column: cudaMemcpyAsync of the output's bytes "
      "(read + write) for add_*, cudaMemsetAsync of the output for bcast_*, an empty kernel launch for percall_*.")
print("Ratios are of throughput (per-call rows: calls per second): above 1, ufunc is faster.")
print()
head = f"{'case':<18} {'n':>10}" + "".join(f" {c:>9}" for c in cols) + f" {'ufunc/cub':>9} {'ufunc/cupy':>10}"
print(head)
print("-" * len(head))
for key in rows:
    c = cells[key]
    per_call = key[0].startswith("percall")
    ref = c.get("memcpy") or c.get("memset") or c.get("empty_kernel")

    def show(impl):
        v = ref if impl == "memcpy" else c.get(impl)
        if v is None:
            return "-"
        return f"{v[0]:.2f}" if per_call else f"{v[1]:.0f}"

    def ratio(other):
        if "ufunc" not in c or other not in c:
            return "-"
        return f"{c[other][0] / c['ufunc'][0]:.2f}"  # time ratio = throughput ratio ufunc / other

    print(f"{key[0]:<18} {key[1]:>10}" + "".join(f" {show(i):>9}" for i in cols) +
          f" {ratio('cub'):>9} {ratio('cupy'):>10}")
print()
for name in ("cuda_bench.out", "gpu_peers.out"):
    checks = lines_starting(name, "# check")
    bad = [l for l in checks if not l.endswith(",ok")]
    print(f"{name}: {len(checks) - len(bad)} result checks ok, {len(bad)} failed" + "".join(f"\n  {l}" for l in bad))
print(f"CSV: {path}")
EOF
exit $((status != 0 || peers_status != 0))
