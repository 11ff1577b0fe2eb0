#!/usr/bin/env bash
# Run-time kernels against CuPy on the GPU machine (issue 18): compile times cold (empty cache
# folders; three rounds, each side first in turn), warm (the same folders, a new process),
# hot; elementwise_kernel add against the built-in add, cub (bench/cub_peers.cu) and CuPy's
# ElementwiseKernel. Writes $OUT/rtc.csv (or build/gpu/rtc.csv).
#   BUILD_DIR=build/gpu bash bench/run_rtc.sh
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build/gpu}
out=${OUT:-build/gpu}
mkdir -p "$out"
ours=$(mktemp -d) && theirs=$(mktemp -d)
trap 'rm -rf "$ours" "$theirs"' EXIT
ufunc_compile() { "$build/bench/rtc_bench" --cache "$ours" compile | tail -n +2 | sed "s/$/,$1/"; }
cupy_compile() { CUPY_CACHE_DIR="$theirs" python3 bench/rtc_cupy.py compile | tail -n +2 | sed "s/$/,$1/"; }
{
  echo "bench,variant,n,seconds,run"
  # Cold: empty folders, three rounds, the side that runs first alternating (the first to
  # load NVRTC after a build reads its files from disk; the other finds them in memory).
  for round in 1 2 3; do
    rm -rf "$ours" "$theirs" && mkdir -m 700 "$ours" "$theirs"
    if [ $((round % 2)) = 1 ]; then
      ufunc_compile "cold$round" && cupy_compile "cold$round"
    else
      cupy_compile "cold$round" && ufunc_compile "cold$round"
    fi
  done
  # Warm: the last round's folders, a new process each.
  ufunc_compile warm
  cupy_compile warm
  "$build/bench/rtc_bench" add sum | tail -n +2 | sed 's/$/,-/'
  "$build/bench/cub_peers" | sed 's/$/,-/'
  python3 bench/rtc_cupy.py add sum | tail -n +2 | sed 's/$/,-/'
} | tee "$out/rtc.csv"
