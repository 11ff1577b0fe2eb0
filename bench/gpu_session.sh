#!/usr/bin/env bash
# One session on a GPU machine (H100/H200, 16 cores): configure the 'all' build
# (cuda + tbb), build, run every test (the CUDA tests included), compute-sanitizer,
# then the benchmarks whose scripts exist. Logs go to $OUT (or build/gpu).
# Step "sweep" (part of "all") runs bench/run_all_gpu.sh, the size sweep against CuPy, PyTorch and cub, into
# $OUT/sweep/gpu.csv; step "sweep-cpu" (not part of "all") runs bench/run_all_cpu.sh on this host's CPUs into
# $OUT/sweep/cpu.csv (extra arguments: SWEEP_ARGS, SWEEP_CPU_ARGS). Plot them afterwards on a machine with
# matplotlib: python3 bench/plot.py $OUT/sweep/*.csv
# Step "half" (not part of "all") runs bench/run_half_gpu.sh, float16 and bfloat16 add and sin against cub, CuPy,
# PyTorch, NumPy and ml_dtypes (issue 21), into $OUT/half/half.csv and half.txt; alone it configures its own build
# (bash bench/gpu_session.sh half).
#
# The machine has no package registry: xsimd, doctest and oneTBB come from a prefix
# copied from a Debian 12 machine (UFUNC_DEVICE_PREFIX, default .device/prefix).
#   bash bench/gpu_session.sh [build|test|sanitize|bench|sweep|sweep-cpu|half|all]...
set -uo pipefail
cd "$(dirname "$0")/.."
prefix=$(realpath "${UFUNC_DEVICE_PREFIX:-.device/prefix}")
out=${OUT:-build/gpu}
mkdir -p "$out"
export LD_LIBRARY_PATH="$prefix/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
build=build/gpu
steps=${*:-all}

step() { [[ " $steps " == *" all "* || " $steps " == *" $1 "* ]]; }

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  nvcc --version | tail -1
  g++ --version | head -1
  cmake --version | head -1
  echo "cores: $(nproc)"
} | tee "$out/machine.txt"

if step build; then
  cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DUFUNC_ENABLE_CUDA=ON -DUFUNC_ENABLE_TBB=ON \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH="$prefix" ${CMAKE_ARGS:-} > "$out/configure.log" 2>&1 || {
    tail -30 "$out/configure.log"; exit 1; }
  /usr/bin/time -f "build: %e s" cmake --build $build -j "$(nproc)" > "$out/build.log" 2>&1 || {
    grep -E "error" -A5 "$out/build.log" | head -60; exit 1; }
  tail -1 "$out/build.log"
fi

if step test; then
  ctest --test-dir $build -j 8 --output-on-failure > "$out/ctest.log" 2>&1
  echo "ctest exit: $?"
  grep -E "tests passed|tests failed|Failed|Skipped|\*\*\*" "$out/ctest.log" | head -30
  $build/tests/ufunc_cuda_tests --no-intro > "$out/cuda_tests.log" 2>&1
  tail -4 "$out/cuda_tests.log"
fi

if step sanitize; then
  for tool in memcheck racecheck initcheck synccheck; do
    # The 2^29-element test is too slow under the sanitizers; it runs in the plain test step.
    # API errors are not memory errors: the out-of-memory test provokes some on purpose.
    compute-sanitizer --tool $tool --report-api-errors no --error-exitcode 3 $build/tests/ufunc_cuda_tests --no-intro \
      -tce='*2^31*' > "$out/sanitizer_$tool.log" 2>&1
    echo "compute-sanitizer $tool exit: $? ($(grep -cE '^=+ (ERROR|Invalid|Race)' "$out/sanitizer_$tool.log") reports)"
    tail -2 "$out/sanitizer_$tool.log"
  done
fi

if step bench; then
  if [ -f bench/run_gpu.sh ]; then
    BUILD_DIR=$build bash bench/run_gpu.sh 2>&1 | tee "$out/gpu_bench.log" | tail -40
  fi
  if [ -f bench/run_rtc.sh ]; then
    OUT=$out BUILD_DIR=$build bash bench/run_rtc.sh 2>&1 | tee "$out/rtc_bench.log" | tail -30
  fi
  if [ -f bench/run_parallel.sh ]; then
    BUILD_DIR=$build bash bench/run_parallel.sh 2>&1 | tee "$out/parallel_bench.log" | tail -30
  fi
fi

if step sweep; then
  BUILD_DIR=$build bash bench/run_all_gpu.sh --no-plots --machine "${SWEEP_MACHINE:-gpu}" --out "$out/sweep" \
    ${SWEEP_ARGS:-} 2>&1 | tee "$out/sweep_gpu.log" | grep -v '^\[' | tail -45
fi
if [[ " $steps " == *" sweep-cpu "* ]]; then
  bash bench/run_all_cpu.sh --no-install --no-plots --build-dir $build --machine "${SWEEP_MACHINE:-gpu}" \
    --out "$out/sweep" ${SWEEP_CPU_ARGS:-} 2>&1 | tee "$out/sweep_cpu.log" | grep -v '^\[' | tail -30
fi
if [[ " $steps " == *" half "* ]]; then
  OUT=$out BUILD_DIR=$build bash bench/run_half_gpu.sh 2>&1 | tee "$out/half_gpu.log" | tail -60
fi

# Logs get committed as evidence: they name files relative to the checkout, never the machine's paths
# (doctest and compilers print absolute ones).
find "$out" -type f \( -name '*.log' -o -name '*.txt' -o -name '*.csv' \) -exec sed -i "s|$PWD/||g; s|$PWD||g" {} +

# The device tool returns at most 8 files: keep the summaries, pack every log.
tar -C "$out" -czf "$out/logs.tar.gz" --exclude=logs.tar.gz . 2>/dev/null
find "$out" -maxdepth 2 -type f ! -name logs.tar.gz ! -name machine.txt ! -name gpu_bench.csv ! -name parallel_bench.csv \
  ! -name gpu.csv ! -name cpu.csv ! -name rtc.csv ! -name half.csv ! -name half.txt \
  ! -name ctest.log ! -name cuda_tests.log -delete
