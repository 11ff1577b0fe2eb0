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
    tbb | all) packages+=(libtbb-dev) ;;
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

# Use every core for builds and tests unless the caller chose otherwise.
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}
export CTEST_PARALLEL_LEVEL=${CTEST_PARALLEL_LEVEL:-$(nproc)}
