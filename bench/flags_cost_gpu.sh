#!/usr/bin/env bash
# What gathering floating-point flags (errstate's default policies) costs each GPU kernel: the same
# cases with the default policies and with every policy ignore, interleaved in one run, beside cub.
# Builds the cuda backend's bench and tests (xsimd and doctest from .device/prefix), runs the CUDA
# tests, then cuda_bench's sweep (sum, bcast, add; f32 and f64; 2^20..2^28) and its fixed cases
# (broadcast, outer, strided, per call), twice each way. Writes $OUT (or build/gpu): flags_cost.txt.
#   bash bench/flags_cost_gpu.sh
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-build/gpu}
mkdir -p "$out"
prefix=$(realpath "${UFUNC_DEVICE_PREFIX:-.device/prefix}")
build=build/flags
cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DUFUNC_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DCMAKE_PREFIX_PATH="$prefix" > "$out/configure.log" 2>&1 || { tail -20 "$out/configure.log"; exit 1; }
start=$SECONDS
cmake --build $build --target cuda_bench ufunc_cuda_tests > "$out/build.log" 2>&1 || {
  grep -E "error" -A3 "$out/build.log" | head -40; exit 1; }
echo "build: $((SECONDS - start)) s"
$build/tests/ufunc_cuda_tests --no-intro > "$out/cuda_tests.log" 2>&1
echo "cuda tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' "$out/cuda_tests.log" | tr '\n' ' ')"
sweep=(--sweep --no-progress --cases sum,bcast,add --dtypes f32,f64 --min-log2 20 --max-log2 28)
for round in 1 2; do
  $build/bench/cuda_bench "${sweep[@]}" > "$out/sweep_default_$round.csv" 2>&1
  $build/bench/cuda_bench "${sweep[@]}" --errstate-ignore > "$out/sweep_ignore_$round.csv" 2>&1
  $build/bench/cuda_bench --quick > "$out/fixed_default_$round.txt" 2>&1
  $build/bench/cuda_bench --quick --errstate-ignore > "$out/fixed_ignore_$round.txt" 2>&1
done
python3 bench/flags_cost.py "$out" | tee "$out/flags_cost.txt"
