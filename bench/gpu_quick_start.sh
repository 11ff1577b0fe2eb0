#!/usr/bin/env bash
# The README's quick start on a GPU machine, as a new user runs it, timed: a clean copy of the
# checkout (no build folder), then `bash examples/run.sh PRESET` and `bash tests/run.sh PRESET`.
# Such a machine has CMake, Ninja, a compiler, the CUDA Toolkit and NumPy, but no package
# registry: xsimd and doctest come from the prefix bench/device_prefix.sh makes, through
# CMAKE_PREFIX_PATH, as the scripts' message says. Logs and times go to $OUT (or build/gpu).
#   bash bench/gpu_quick_start.sh [preset] [--keep DIR]     (default: cuda)
# --keep DIR makes the clean copy in DIR and leaves it there, so that later steps of the same
# session (the CUDA tests alone, under compute-sanitizer) use the build the quick start made. The
# presets build no benchmarks: bench/gpu_session.sh builds those.
set -uo pipefail
cd "$(dirname "$0")/.."
preset=${1:-cuda}
keep=
[ "${2:-}" = --keep ] && keep=${3:?--keep needs a folder}
out=${OUT:-build/gpu}
mkdir -p "$out"
prefix=$(realpath "${UFUNC_DEVICE_PREFIX:-.device/prefix}")
clean=${keep:-$(mktemp -d)/ufunc}
rm -rf "$clean" && mkdir -p "$clean"
tar -C . --exclude=./build --exclude=./.device --exclude=./.git -cf - . | tar -C "$clean" -xf -
cd "$clean"
export CMAKE_PREFIX_PATH=$prefix LD_LIBRARY_PATH=$prefix/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  echo "cores: $(nproc); $(cmake --version | head -1); $(ninja --version 2>/dev/null | sed 's/^/ninja /')"
} | tee "$out/quick_start_machine.txt"
run() {  # name, command...
  local name=$1 start=$SECONDS status
  shift
  "$@" > "$out/$name.log" 2>&1
  status=$?
  echo "$name: exit $status in $((SECONDS - start)) s" | tee -a "$out/quick_start_times.txt"
  return $status
}
run examples_$preset bash examples/run.sh "$preset"; tail -25 "$out/examples_$preset.log"
run tests_$preset bash tests/run.sh "$preset"; grep -E "tests passed|tests failed|Skipped|Failed|Not Run|NOTE" "$out/tests_$preset.log"
sed -i "s|$clean/||g; s|$clean||g; s|$prefix|.device/prefix|g" "$out"/*.log
