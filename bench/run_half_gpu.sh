#!/usr/bin/env bash
# float16 and bfloat16 on the GPU machine (issue 21): builds half_cuda_bench and half_bench, runs half_cuda_bench
# and half_gpu_peers.py (CuPy, PyTorch) at 2^24 and 2^28, half_bench and half_numpy.py (NumPy, ml_dtypes) at 2^24 on
# the host's cores, and prints half_compare.py's ratios against the issue's targets. Writes into $OUT/half (OUT
# defaults to build/gpu): half.csv (the four programs' outputs, one section each, as half_compare.py reads them),
# half.txt (the ratios) and the raw outputs and logs.
#
#   bash bench/run_half_gpu.sh            (bench/gpu_session.sh half runs it)
#
# Environment:
#   BUILD_DIR           build directory (default build/gpu). One configured with UFUNC_ENABLE_CUDA=ON (gpu_session.sh's
#                       build) is reused as it is, with the benchmarks turned on; otherwise it is configured here:
#                       Release, CUDA (sm_90) and TBB, xsimd and oneTBB from the copied prefix.
#   UFUNC_DEVICE_PREFIX the prefix of bench/device_prefix.sh (default .device/prefix)
#   HALF_SIZES          log2 of the GPU sizes (default 24,28)
#   HALF_CPU_LOG2N      log2 of the host size (default 24)
#   PYTHON              the interpreter of the peers (default python3)
#   CMAKE_ARGS          more arguments for a fresh configure
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
prefix=$(realpath -m "${UFUNC_DEVICE_PREFIX:-.device/prefix}")
build=${BUILD_DIR:-build/gpu}
out=${OUT:-build/gpu}/half
python=${PYTHON:-python3}
sizes=${HALF_SIZES:-24,28}
log2n=${HALF_CPU_LOG2N:-24}
mkdir -p "$out"
[[ -d $prefix/lib/x86_64-linux-gnu ]] && export LD_LIBRARY_PATH="$prefix/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"

if [[ -f $build/CMakeCache.txt ]]; then
  grep -q '^UFUNC_ENABLE_CUDA:BOOL=ON' "$build/CMakeCache.txt" || {
    echo "run_half_gpu.sh: $build is configured without UFUNC_ENABLE_CUDA=ON; use another BUILD_DIR" >&2; exit 1; }
  cmake -S . -B "$build" -DUFUNC_BUILD_BENCHMARKS=ON > "$out/configure.log" 2>&1 || {
    tail -30 "$out/configure.log"; exit 1; }
else
  generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  # shellcheck disable=SC2086  # CMAKE_ARGS is a list of arguments
  cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DUFUNC_ENABLE_CUDA=ON -DUFUNC_ENABLE_TBB=ON \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DUFUNC_BUILD_TESTS=OFF -DUFUNC_BUILD_EXAMPLES=OFF -DUFUNC_BUILD_BENCHMARKS=ON \
    -DCMAKE_PREFIX_PATH="$prefix" ${CMAKE_ARGS:-} > "$out/configure.log" 2>&1 || {
    tail -30 "$out/configure.log"; exit 1; }
fi
start=$SECONDS
cmake --build "$build" -j "$(nproc)" --target half_cuda_bench half_bench > "$out/build.log" 2>&1 || {
  grep -E "error" -A5 "$out/build.log" | head -60; exit 1; }
echo "run_half_gpu.sh: built in $((SECONDS - start)) s"

# Each program runs whatever the others did; the exit status says whether every one ran and passed its checks.
status=0
run() {  # run NAME COMMAND...: stdout into NAME.out, stderr into NAME.err
  local name=$1 rc=0
  shift
  local t0=$SECONDS
  PYTHONUNBUFFERED=1 "$@" > "$out/$name.out" 2> "$out/$name.err" || rc=$?
  echo "run_half_gpu.sh: $name exit $rc after $((SECONDS - t0)) s"
  if ((rc != 0)); then
    status=1
    tail -5 "$out/$name.err"
  fi
}
run half_cuda_bench "$build/bench/half_cuda_bench" --sizes "$sizes"
run half_gpu_peers "$python" bench/half_gpu_peers.py --sizes "$sizes"
run half_bench "$build/bench/half_bench" --log2n "$log2n"
run half_numpy "$python" bench/half_numpy.py --log2n "$log2n"
# NumPy's float16 sin is SIMD code where AVX-512 is on: the same without it, as "numpy_x86_v3".
NPY_DISABLE_CPU_FEATURES="AVX512_ICL AVX512_SPR X86_V4" run half_numpy_x86_v3 \
  "$python" bench/half_numpy.py --log2n "$log2n" --impl numpy_x86_v3

cat "$out"/half_cuda_bench.out "$out"/half_gpu_peers.out "$out"/half_bench.out "$out"/half_numpy.out \
  "$out"/half_numpy_x86_v3.out > "$out/half.csv"
"$python" bench/half_compare.py "$out/half.csv" | tee "$out/half.txt"
grep -hE "^# (check|error|skip)" "$out"/*.out | grep -vE ",ok" || true
grep -h "^CHECK" "$out/half_bench.out" | grep -v "CHECK	ok" || true
exit $status
