#!/usr/bin/env bash
# Run-time kernels against CuPy on the GPU machine (issue 18): compile times cold (empty cache
# folders), warm (the same folders, a new process), hot; elementwise_kernel add against the
# built-in add, cub (bench/cub_peers.cu) and CuPy's ElementwiseKernel. Writes $OUT/rtc.csv (or build/gpu/rtc.csv).
#   BUILD_DIR=build/gpu bash bench/run_rtc.sh
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build/gpu}
out=${OUT:-build/gpu}
mkdir -p "$out"
ours=$(mktemp -d) && theirs=$(mktemp -d)
trap 'rm -rf "$ours" "$theirs"' EXIT
{
  echo "bench,variant,n,seconds,run"
  for run in cold warm; do
    "$build/bench/rtc_bench" --cache "$ours" compile | tail -n +2 | sed "s/$/,$run/"
    CUPY_CACHE_DIR="$theirs" python3 bench/rtc_cupy.py compile | tail -n +2 | sed "s/$/,$run/"
  done
  "$build/bench/rtc_bench" add sum | tail -n +2 | sed 's/$/,-/'
  "$build/bench/cub_peers" | sed 's/$/,-/'
  python3 bench/rtc_cupy.py add sum | tail -n +2 | sed 's/$/,-/'
} | tee "$out/rtc.csv"
