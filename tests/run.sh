#!/usr/bin/env bash
# Quick start, part 2: builds the library and its tests and runs them with ctest.
#   bash tests/run.sh [preset]        (default preset: cpu; asan, tbb, cuda, all, debug, tsan)
#
# The differential tests compare every ufunc with NumPy 2: the python3 with NumPy >= 2 that
# cmake/ensure_dependencies.sh finds or installs is passed to every configure, so a Python
# cached by an earlier configure (say, by examples/run.sh, before NumPy was there) is replaced.
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-cpu}
source cmake/ensure_dependencies.sh
ufunc_ensure_dependencies "$preset"
ufunc_ensure_numpy
configure=(cmake --preset "$preset")
[ -n "${UFUNC_PYTHON:-}" ] && configure+=("-DPython3_EXECUTABLE=$UFUNC_PYTHON" "-DPython_EXECUTABLE=$UFUNC_PYTHON")
"${configure[@]}"
cmake --build --preset "$preset"
status=0
ctest --preset "$preset" || status=$?
# ctest lists skipped tests among many lines; the oracle's absence gets a line of its own, last.
log=build/$preset/Testing/Temporary/LastTest.log
if [ -f "$log" ] && grep -q "^SKIPPED: the NumPy oracle" "$log"; then
  echo "NOTE: the NumPy differential tests did not run: $(grep -m1 '^SKIPPED: the NumPy oracle' "$log" | cut -d: -f3- | sed 's/^ *//')" >&2
fi
if [ -f "$log" ] && grep -q "^SKIPPED: ufunc::dist" "$log"; then
  echo "NOTE: the distributed tests did not run: $(grep -m1 '^SKIPPED: ufunc::dist' "$log" | cut -d: -f3- | sed 's/^ *//')" >&2
fi
exit $status
