#!/usr/bin/env bash
# The Python module as a user installs it: a wheel built with pip (scikit-build-core) and installed
# into a new virtual environment, whose pytest suite then runs from outside the source tree (so that
# `import ufunc` is the installed package). Run after the quick start, whose build/cpu it installs
# and builds the wheel against (UFUNC_PYTHON_ONLY), so that the library is not compiled twice; a
# user's `pip install .` compiles both (docs/python.md).
set -euo pipefail
cd "$(dirname "$0")/.."
source cmake/ensure_dependencies.sh
ufunc_ensure_numpy
# The build backend itself, for a build without isolation (isolation would fetch it per build).
"$UFUNC_PYTHON" -m pip install -q "scikit-build-core>=0.10"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install build/cpu --prefix "$work/prefix" >/dev/null
CMAKE_PREFIX_PATH=$work/prefix "$UFUNC_PYTHON" -m pip wheel . --no-deps --no-build-isolation -q -w "$work/wheels" \
  -C cmake.define.UFUNC_PYTHON_ONLY=ON -C build-dir="$work/build"
wheel=$(ls "$work"/wheels/ufunc-*.whl)
echo "built $(basename "$wheel")"
python3 -m venv "$work/venv"
"$work/venv/bin/python" -m pip install -q "$wheel" ml_dtypes pytest
cp -r python/tests "$work/tests"
cd "$work"
"$work/venv/bin/python" -c "import ufunc, os; assert not ufunc.__file__.startswith(os.environ['OLDPWD']); print('installed ufunc', ufunc.__version__, ufunc.available_targets())"
"$work/venv/bin/python" -m pytest -q -p no:cacheprovider tests
