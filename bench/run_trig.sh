#!/usr/bin/env bash
# float32 sin/cos on every instruction set: the kernels against xsimd (trig_bench), the
# library's calls (trig_call_bench, capped by UFUNC_SIMD_ARCH) and NumPy (trig_numpy.py,
# capped by NPY_DISABLE_CPU_FEATURES to the same level), at 2^24 elements with out=.
#
#   bash bench/run_trig.sh [--build DIR] [--compare DIR2] [--python PY] [--passes N] [--rounds N] [--log2n K]
#
# DIR is a configured build directory with trig_bench and trig_call_bench built (default
# build/cpu); DIR2 another one (an older commit, say), whose two programs then run right
# after DIR's in every pass; PY a python with NumPy >= 2 (default python3). Each pass runs
# the programs once per instruction set, one after the other, so that the load of a shared
# machine hits them alike; compare medians, not single runs. NumPy has no SSE2-only build:
# its x86-64 baseline is X86_V2 (SSE4.2), which it keeps for the baseline row.
set -euo pipefail

build=build/cpu
compare=
python=python3
passes=3
rounds=11
log2n=24
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --compare) compare=$2; shift 2 ;;
    --python) python=$2; shift 2 ;;
    --passes) passes=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --log2n) log2n=$2; shift 2 ;;
    *) echo "usage: $0 [--build DIR] [--compare DIR2] [--python PY] [--passes N] [--rounds N] [--log2n K]" >&2; exit 2 ;;
  esac
done
here=$(cd "$(dirname "$0")" && pwd)

# Library instruction set, and the NumPy dispatch groups to turn off for the same level.
declare -A numpy_off=(
  [baseline]="X86_V3 X86_V4 AVX512_ICL AVX512_SPR"
  [sse4_2]="X86_V3 X86_V4 AVX512_ICL AVX512_SPR"
  [avx2]="X86_V4 AVX512_ICL AVX512_SPR"
  [avx512bw]=""
)

echo "# $(date -u +%FT%TZ), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)," \
  "$(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# trig_bench: all instruction sets; trig_call_bench and NumPy: per set below"
for pass in $(seq "$passes"); do
  echo "## pass $pass"
  for dir in "$build" $compare; do
    echo "trig_bench of $dir:"
    "$dir/bench/trig_bench" --rounds "$rounds" --log2n "$log2n"
  done
  for isa in baseline sse4_2 avx2 avx512bw; do
    echo "### $isa"
    for dir in "$build" $compare; do
      echo -n "$dir: "
      UFUNC_SIMD_ARCH=$isa "$dir/bench/trig_call_bench" --rounds "$rounds" --log2n "$log2n" | paste -sd' '
    done
    NPY_DISABLE_CPU_FEATURES="${numpy_off[$isa]}" "$python" "$here/trig_numpy.py" --rounds "$rounds" --log2n "$log2n"
  done
done
