#!/usr/bin/env bash
# Sourced by examples/run.sh and tests/run.sh: makes sure the Debian packages that
# a preset needs are installed. As root it installs what is missing; otherwise it
# prints the exact command and stops.
#
#   ufunc_ensure_dependencies PRESET

ufunc_ensure_dependencies() {
  local preset=$1
  local packages=(cmake g++ make libxsimd-dev doctest-dev)
  case "$preset" in
    tbb | all | tsan) packages+=(libtbb-dev) ;;
  esac
  case "$preset" in
    cuda | all)
      if ! command -v nvcc >/dev/null 2>&1; then
        echo "The '$preset' preset needs the CUDA Toolkit (nvcc on PATH); install it from NVIDIA and retry." >&2
        return 1
      fi
      ;;
  esac
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -eq 0 ]; then
    echo "Installing missing Debian packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null || return 1
  else
    echo "Missing Debian packages: ${missing[*]}. Install them with:" >&2
    echo "  sudo apt-get install -y ${missing[*]}" >&2
    return 1
  fi
}

# The differential tests (tests/differential, ctest -R numpy_differential) need python3
# with NumPy >= 2; without it they report SKIPPED. Best effort, never fatal: when the
# system python3 lacks it, NumPy is installed into a virtual environment under build/
# (pip needs the network; Debian's python3 needs python3-venv) and exported as
# VIRTUAL_ENV, which CMake's FindPython3 prefers. UFUNC_NO_NUMPY=1 skips this.
ufunc_ensure_numpy() {
  local check='import sys, numpy; sys.exit(int(numpy.__version__.split(".")[0]) < 2)'
  [ -n "${UFUNC_NO_NUMPY:-}" ] && return 0
  python3 -c "$check" >/dev/null 2>&1 && return 0
  local venv=${UFUNC_NUMPY_VENV:-$PWD/build/numpy-venv}
  if ! "$venv/bin/python" -c "$check" >/dev/null 2>&1; then
    echo "Installing NumPy >= 2 for the differential tests into $venv"
    if ! { python3 -m venv "$venv" && "$venv/bin/python" -m pip install -q "numpy>=2"; } >/dev/null 2>&1; then
      echo "Could not install NumPy >= 2 (no network, or no python3-venv); numpy_differential will be skipped." >&2
      return 0
    fi
  fi
  export VIRTUAL_ENV=$venv
  export PATH=$venv/bin:$PATH
}
# Only for the test suite (tests/run.sh), not for the examples.
case "$0" in
  *tests/run.sh) ufunc_ensure_numpy ;;
esac

# Use every core for builds and tests unless the caller chose otherwise.
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}
export CTEST_PARALLEL_LEVEL=${CTEST_PARALLEL_LEVEL:-$(nproc)}
