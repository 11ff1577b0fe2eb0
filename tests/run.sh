#!/usr/bin/env bash
# Quick start, part 2: builds the library and its tests and runs them with ctest.
#   bash tests/run.sh [preset]        (default preset: cpu; asan, tbb, cuda, all, debug)
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-cpu}
source cmake/ensure_dependencies.sh
ufunc_ensure_dependencies "$preset"
cmake --workflow --preset "$preset"
