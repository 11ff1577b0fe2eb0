#!/usr/bin/env bash
# Quick start, part 1: builds the library and runs every example.
#   bash examples/run.sh [preset]     (default preset: cpu; see CMakePresets.json)
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-cpu}
source cmake/ensure_dependencies.sh
ufunc_ensure_dependencies "$preset"
cmake --preset "$preset" >/dev/null
# One build command for all ten, so that Ninja compiles them side by side.
cmake --build --preset "$preset" --target vectorize_add vectorize_square broadcasting sin doublify mandelbrot \
  fuse elementwise_kernel source_module gufunc
cmake --build --preset "$preset" --target run_examples
