#!/usr/bin/env bash
# The README's two quick-start commands, in order, as a new user runs them on a fresh machine whose
# python3 has no NumPy: `bash examples/run.sh` (which configures the build first), then
# `bash tests/run.sh`. Passes only if every NumPy differential test ran and passed (a build that
# cached a Python without NumPy, or a generator that skipped, fails here), and every distributed
# test under mpirun (dist.np1 to dist.np4).
set -euo pipefail
cd "$(dirname "$0")/.."

# A python3 that sees no site-packages, so no NumPy, first on PATH.
plain=$(mktemp -d)/python
if ! python3 -m venv "$plain" >/dev/null 2>&1; then
  [ "$(id -u)" -eq 0 ] && DEBIAN_FRONTEND=noninteractive apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
  rm -rf "$plain"
  python3 -m venv "$plain"
fi
export PATH=$plain/bin:$PATH
if python3 -c "import numpy" 2>/dev/null; then
  echo "quick start test: the python3 on PATH has NumPy; this test needs one without" >&2
  exit 1
fi
echo "python3 for the quick start: $(command -v python3) (no NumPy)"

bash examples/run.sh
log=$(mktemp)
bash tests/run.sh 2>&1 | tee "$log"

# Every registered differential test, and each of them passed (not skipped, not missing).
registered=$(ctest --test-dir build/cpu -N -R '^numpy_differential' | grep -cE 'Test +#')
passed=$(grep -cE 'Test +#[0-9]+: numpy_differential[^ ]* \.+ +Passed' "$log" || true)
# A test pinned to an instruction set (unit.avx512bw, numpy_differential.avx512bw) needs a CPU that has it, as a
# GPU test needs a GPU: it may report SKIPPED only where /proc/cpuinfo, read here and not taken from the test,
# lacks that flag. Every other differential test must pass; on a CPU with AVX-512 all of them run.
cpu_lacks() { ! grep -qw "$1" /proc/cpuinfo; }
lacking=0
for isa in sse4_2 avx2 avx512bw; do
  if grep -qE "Test +#[0-9]+: numpy_differential\.$isa \.+\*+Skipped" "$log"; then
    if ! cpu_lacks "$isa"; then
      echo "quick start test: FAILED: numpy_differential.$isa skipped on a CPU that has $isa" >&2
      exit 1
    fi
    echo "quick start test: numpy_differential.$isa not run: this CPU has no $isa (its loops run where it has)"
    lacking=$((lacking + 1))
  fi
done
echo "quick start test: $passed of $registered NumPy differential tests passed"
if [ "$registered" -lt 5 ] || [ "$((passed + lacking))" -ne "$registered" ] || [ "$passed" -lt 4 ]; then
  echo "quick start test: FAILED (the NumPy oracle must run after the README's two commands)" >&2
  exit 1
fi

# Only tests that need hardware this machine lacks may skip: a GPU, or the instruction set a test is pinned to
# (checked against /proc/cpuinfo above and here). A skip for any other reason (a build without the Python module,
# a missing dependency) fails this check.
skipped=$(grep -oE 'Test +#[0-9]+: [^ ]+ \.+\*+Skipped' "$log" | sed -E 's/Test +#[0-9]+: ([^ ]+) .*/\1/' || true)
for name in $skipped; do
  isa=${name##*.}
  if [[ $name =~ ^(unit|numpy_differential)\.(sse4_2|avx2|avx512bw)$ ]] && cpu_lacks "$isa"; then
    continue
  fi
  reason=$(ctest --test-dir build/cpu -R "^${name//./\\.}\$" -V 2>&1 | grep -m1 -iE 'SKIPPED|CUDA device' || true)
  if ! grep -qiE 'CUDA device|GPU' <<<"$reason"; then
    echo "quick start test: FAILED: $name skipped for a reason other than a missing GPU: $reason" >&2
    exit 1
  fi
done

# The distributed tests (ufunc::dist under mpirun -np 1 to 4, tests/dist): every one registered
# and passed. A build that found no MPI registers dist.mpi, SKIPPED, instead: a failure here.
dist_registered=$(ctest --test-dir build/cpu -N -R '^dist\.np' | grep -cE 'Test +#' || true)
dist_passed=$(grep -cE 'Test +#[0-9]+: dist\.np[0-9]+ \.+ +Passed' "$log" || true)
echo "quick start test: $dist_passed of $dist_registered distributed (MPI) tests passed"
if [ "$dist_registered" -lt 4 ] || [ "$dist_passed" -ne "$dist_registered" ]; then
  echo "quick start test: FAILED (the distributed tests must run under mpirun after the README's two commands)" >&2
  exit 1
fi
