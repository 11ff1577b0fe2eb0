#!/usr/bin/env bash
# Sourced by examples/run.sh and tests/run.sh: makes sure a preset's build can run.
#
#   ufunc_ensure_dependencies PRESET   tools and libraries, checked by what they provide
#   ufunc_ensure_numpy                 a python3 with NumPy >= 2, ml_dtypes, nanobind and pytest for the
#                                      differential tests and the Python module
#
# Each requirement is looked for as CMake will look for it (a cmake of the required version
# on PATH, a package's CMake config anywhere find_package searches, CMAKE_PREFIX_PATH
# included), so copies that did not come from Debian count. Only what is really missing is
# installed, from Debian, and only as root; when that is impossible (another user, no
# package registry) it says exactly what is missing and how to point the build at a copy.

ufunc__cmake_minimum=3.25

# The prefixes find_package searches: CMAKE_PREFIX_PATH, the parents of PATH's folders, the
# system's. Printed one per line.
ufunc__prefixes() {
  local IFS=:
  local p
  for p in ${CMAKE_PREFIX_PATH:-}; do [ -n "$p" ] && echo "$p"; done
  for p in $PATH; do
    case "$p" in */bin | */sbin) echo "${p%/*}" ;; esac
  done
  echo /usr/local
  echo /usr
}

# Whether find_package(NAME CONFIG) can succeed: a NAMEConfig.cmake or name-config.cmake in
# one of the layouts CMake documents for each prefix.
ufunc__has_cmake_package() {
  local name=$1 lower
  lower=$(echo "$1" | tr '[:upper:]' '[:lower:]')
  local prefix dir
  while read -r prefix; do
    for dir in "$prefix" "$prefix"/{lib,lib64,lib/*-linux-gnu,share}/cmake/"$name"* \
      "$prefix"/{lib,lib64,lib/*-linux-gnu,share}/"$name"*/{cmake,CMake} "$prefix/$name"*/{cmake,CMake}; do
      [ -f "$dir/${name}Config.cmake" ] || [ -f "$dir/${lower}-config.cmake" ] && return 0
    done
  done < <(ufunc__prefixes)
  return 1
}

ufunc__has_cmake() {
  command -v cmake >/dev/null 2>&1 || return 1
  local version
  version=$(cmake --version 2>/dev/null | head -1 | grep -oE '[0-9]+\.[0-9]+(\.[0-9]+)?')
  [ -n "$version" ] && [ "$(printf '%s\n%s\n' "$ufunc__cmake_minimum" "$version" | sort -V | head -1)" = "$ufunc__cmake_minimum" ]
}

ufunc__has_cxx20() {
  local cxx=${CXX:-}
  if [ -z "$cxx" ]; then
    for c in g++ c++ clang++; do command -v "$c" >/dev/null 2>&1 && cxx=$c && break; done
  fi
  [ -n "$cxx" ] && echo 'int main() { return 0; }' | "$cxx" -std=c++20 -x c++ -fsyntax-only - >/dev/null 2>&1
}

ufunc__has_nvcc() {
  command -v nvcc >/dev/null 2>&1 && return 0
  # The toolkit's usual place, not always on PATH.
  if [ -x /usr/local/cuda/bin/nvcc ]; then
    export PATH=$PATH:/usr/local/cuda/bin
    return 0
  fi
  return 1
}

ufunc__has_clang() {
  command -v clang++ >/dev/null 2>&1 && command -v clang >/dev/null 2>&1
}

ufunc__has_clang_runtimes() {
  ufunc__has_clang && compgen -G "$(clang++ -print-runtime-dir 2>/dev/null)/libclang_rt.fuzzer*.a" >/dev/null
}

# Open MPI for ufunc::dist (dist/, its tests under mpirun and its example): the compiler
# wrapper FindMPI reads and the launcher.
ufunc__has_mpi() {
  command -v mpicxx >/dev/null 2>&1 && command -v mpiexec >/dev/null 2>&1
}

ufunc_ensure_dependencies() {
  local preset=$1
  # Requirement, the check that proves it, the Debian package that provides it.
  local -a needs=("cmake >= $ufunc__cmake_minimum|ufunc__has_cmake|cmake"
    "a C++20 compiler|ufunc__has_cxx20|g++"
    "xsimd (CMake package xsimd)|ufunc__has_cmake_package xsimd|libxsimd-dev")
  case "$preset" in
    tbb | all | tsan) needs+=("oneTBB (CMake package TBB)|ufunc__has_cmake_package TBB|libtbb-dev") ;;
    # clang, with its sanitizer and libFuzzer runtimes (the asan preset builds the fuzz harnesses).
    asan) needs+=("clang|ufunc__has_clang|clang" "clang's sanitizer and libFuzzer runtimes|ufunc__has_clang_runtimes|libclang-rt-14-dev") ;;
  esac
  # doctest builds the tests; the examples alone need it too, since tests are part of every preset.
  needs+=("doctest (CMake package doctest)|ufunc__has_cmake_package doctest|doctest-dev")
  case "$preset" in
    cuda | all)
      if ! ufunc__has_nvcc; then
        echo "The '$preset' preset needs the CUDA Toolkit (nvcc on PATH or in /usr/local/cuda/bin); install it from NVIDIA and retry." >&2
        return 1
      fi
      ;;
  esac

  local -a missing=() packages=()
  local need what check package
  for need in "${needs[@]}"; do
    IFS='|' read -r what check package <<<"$need"
    if ! $check; then
      missing+=("$what")
      packages+=("$package")
    fi
  done
  # A build tool: Ninja builds independent targets in parallel (the examples of the cuda
  # preset are CUDA translation units); make is the fallback.
  if ! command -v ninja >/dev/null 2>&1; then
    if [ "$(id -u)" -eq 0 ] && ufunc__apt_install ninja-build >/dev/null 2>&1; then
      :
    elif ! command -v make >/dev/null 2>&1; then
      missing+=("a build tool (ninja or make)")
      packages+=(ninja-build)
    fi
  fi

  # MPI: the presets that build the tests want it (the sanitizer presets build no ufunc::dist,
  # the cuda preset's GPU hosts have no package registry). Installed as root where missing; a
  # build without it skips ufunc::dist, whose tests then report SKIPPED.
  case "$preset" in
    cpu | tbb | all | debug)
      if ! ufunc__has_mpi; then
        if [ "$(id -u)" -eq 0 ] && echo "Installing Open MPI (libopenmpi-dev openmpi-bin) for ufunc::dist" &&
          ufunc__apt_install libopenmpi-dev openmpi-bin; then
          :
        else
          echo "No MPI (mpicxx, mpiexec): ufunc::dist is not built and its tests report SKIPPED;" \
            "install it with:  sudo apt-get install -y libopenmpi-dev openmpi-bin" >&2
        fi
      fi
      ;;
  esac

  if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" -ne 0 ]; then
      ufunc__explain_missing "${missing[@]}"
      echo "Install them with:  sudo apt-get install -y ${packages[*]}" >&2
      return 1
    fi
    echo "Installing missing Debian packages: ${packages[*]} (for: $(IFS=,; echo "${missing[*]}"))"
    if ! ufunc__apt_install "${packages[@]}"; then
      ufunc__explain_missing "${missing[@]}"
      echo "apt-get could not install ${packages[*]} (no package registry reachable?)." >&2
      return 1
    fi
  fi
  ufunc__choose_generator "$preset"
}

ufunc__apt_install() {
  command -v apt-get >/dev/null 2>&1 || return 1
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null 2>&1 &&
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

ufunc__explain_missing() {
  echo "Missing for this build:" >&2
  local m
  for m in "$@"; do echo "  - $m" >&2; done
  cat >&2 <<'EOF'
A copy installed elsewhere (a prefix with include/ and lib/cmake/ or share/cmake/) is found when its
prefix is on CMAKE_PREFIX_PATH, e.g.  CMAKE_PREFIX_PATH=/opt/deps bash tests/run.sh
(a cmake or a compiler elsewhere: put its bin/ folder on PATH).
EOF
}

# Ninja where present (targets build in parallel), unless the build folder was configured with
# another generator, which CMake cannot switch in place.
ufunc__choose_generator() {
  local cache=build/$1/CMakeCache.txt
  [ -n "${CMAKE_GENERATOR:-}" ] && return 0
  if [ -f "$cache" ]; then
    CMAKE_GENERATOR=$(sed -n 's/^CMAKE_GENERATOR:INTERNAL=//p' "$cache")
    export CMAKE_GENERATOR
  elif command -v ninja >/dev/null 2>&1; then
    export CMAKE_GENERATOR=Ninja
  fi
}

# The differential tests (tests/differential) replay NumPy's results: they need a python3 with
# NumPy >= 2. Sets UFUNC_PYTHON to such an interpreter's real path (never a shim, so a later
# change of the shell's python3 does not change the build's), and UFUNC_NUMPY_MISSING to the
# reason when there is none. Looks at UFUNC_PYTHON, then python3, then a virtual environment
# under build/ into which it installs NumPy with pip (Debian's python3 needs python3-venv,
# installed as root when missing).
ufunc_ensure_numpy() {
  # ml_dtypes: the bfloat16 oracle (tests/half), from PyPI beside NumPy; nanobind builds the Python
  # module (python/) and pytest runs its tests, whose C headers come with Python (python3-dev).
  local check='import sys, numpy, ml_dtypes, nanobind, pytest; sys.exit(int(numpy.__version__.split(".")[0]) < 2)'
  ufunc__ensure_python_headers
  local where='import sys; print(sys.executable)'
  local venv=${UFUNC_NUMPY_VENV:-$PWD/build/numpy-venv}
  UFUNC_NUMPY_MISSING=
  local candidate
  for candidate in "${UFUNC_PYTHON:-}" python3 "$venv/bin/python"; do
    [ -n "$candidate" ] || continue
    if "$candidate" -c "$check" >/dev/null 2>&1; then
      UFUNC_PYTHON=$("$candidate" -c "$where")
      export UFUNC_PYTHON
      return 0
    fi
  done
  if ! command -v python3 >/dev/null 2>&1; then
    UFUNC_NUMPY_MISSING="no python3 on PATH"
    UFUNC_PYTHON=
    return 0
  fi
  echo "Installing NumPy >= 2, ml_dtypes, nanobind and pytest for the differential and Python tests into $venv"
  if ! python3 -m venv "$venv" >/dev/null 2>&1; then
    rm -rf "$venv"
    [ "$(id -u)" -eq 0 ] && ufunc__apt_install python3-venv >/dev/null 2>&1
    python3 -m venv "$venv" >/dev/null 2>&1 || rm -rf "$venv"
  fi
  if [ -x "$venv/bin/python" ] && "$venv/bin/python" -m pip install -q "numpy>=2" ml_dtypes nanobind pytest >/dev/null 2>&1 &&
    "$venv/bin/python" -c "$check" >/dev/null 2>&1; then
    UFUNC_PYTHON=$venv/bin/python
    export UFUNC_PYTHON
    return 0
  fi
  UFUNC_NUMPY_MISSING="$(python3 -c "$where" 2>/dev/null || echo python3) has no NumPy >= 2 and installing it into $venv failed (no network, or no python3-venv)"
  UFUNC_PYTHON=$(python3 -c "$where" 2>/dev/null)
  export UFUNC_PYTHON
}

# Python's C headers (Python.h), which the Python module is compiled against: Debian's python3-dev
# where python3 has none, installed as root; otherwise the module's tests say what is missing.
ufunc__ensure_python_headers() {
  command -v python3 >/dev/null 2>&1 || return 0
  local has='import os, sys, sysconfig; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))'
  python3 -c "$has" 2>/dev/null && return 0
  if [ "$(id -u)" -eq 0 ]; then
    echo "Installing Python's C headers (python3-dev) for the Python module"
    ufunc__apt_install python3-dev || echo "apt-get could not install python3-dev; the Python module will not build" >&2
  else
    echo "The Python module needs Python's C headers: sudo apt-get install -y python3-dev" >&2
  fi
}

# Use every core for builds and tests unless the caller chose otherwise.
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}
export CTEST_PARALLEL_LEVEL=${CTEST_PARALLEL_LEVEL:-$(nproc)}
