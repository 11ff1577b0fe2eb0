#!/usr/bin/env bash
# Quick start, part 1: builds the library and runs every example, the Python ones included.
#   bash examples/run.sh [preset]     (default preset: cpu; see CMakePresets.json)
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-cpu}
source cmake/ensure_dependencies.sh
ufunc_ensure_dependencies "$preset"
# The Python examples need NumPy and nanobind (the module is built against them).
ufunc_ensure_numpy
configure=(cmake --preset "$preset")
[ -n "${UFUNC_PYTHON:-}" ] && configure+=("-DPython3_EXECUTABLE=$UFUNC_PYTHON" "-DPython_EXECUTABLE=$UFUNC_PYTHON")
"${configure[@]}" >/dev/null
# One build command for all ten, so that Ninja compiles them side by side.
cmake --build --preset "$preset" --target vectorize_add vectorize_square broadcasting sin doublify mandelbrot \
  fuse elementwise_kernel source_module gufunc
cmake --build --preset "$preset" --target run_examples
# The same programs from Python (python/examples), through the module built beside the library
# (the sanitizer presets build no Python module).
if ! grep -q "^UFUNC_BUILD_PYTHON:STRING=OFF" "build/$preset/CMakeCache.txt"; then
  cmake --build --preset "$preset" --target run_python_examples
fi
# The distributed example (ufunc::dist) under mpirun -np 2, where the build found MPI.
targets=$(cmake --build --preset "$preset" --target help 2>/dev/null || true)
if grep -q run_distributed_example <<<"$targets"; then
  cmake --build --preset "$preset" --target run_distributed_example
fi
