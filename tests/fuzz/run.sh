#!/usr/bin/env bash
# Runs the libFuzzer harnesses for a while each, starting from the committed corpus. They
# are built by the asan preset (clang, ASan + UBSan, the library coverage-instrumented for
# libFuzzer), beside the tests: after `bash tests/run.sh asan` there is nothing left to build.
# Exits non-zero if any harness reports a finding (crash, sanitizer report, an
# exception outside ufunc::error, a timeout or running out of memory).
#
#   bash tests/fuzz/run.sh                    # 60 s per harness
#   bash tests/fuzz/run.sh 30                 # the CI setting
#   bash tests/fuzz/run.sh 900 fuzz_view      # one harness, 15 minutes
#
# Environment: FUZZ_JOBS (harnesses run at the same time, default 2), FUZZ_BUILD_DIR
# (default build/asan, the preset's). New inputs go to $FUZZ_BUILD_DIR/corpus/<harness>, findings to
# $FUZZ_BUILD_DIR/artifacts/; the committed corpus (tests/fuzz/corpus) is only read.
# docs/fuzzing.md explains how to add a finding to the corpus.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
shift || true
harnesses=("$@")
[ ${#harnesses[@]} -eq 0 ] && harnesses=(fuzz_view fuzz_signature fuzz_methods fuzz_broadcast fuzz_kernel_params fuzz_gufunc_signature)
build=${FUZZ_BUILD_DIR:-build/asan}
jobs=${FUZZ_JOBS:-2}

source cmake/ensure_dependencies.sh
ufunc_ensure_dependencies asan
cmake --preset asan -B "$build" >/dev/null
cmake --build "$build" --target "${harnesses[@]}"

mkdir -p "$build/artifacts"
run_one() {
  local name=$1 dict=()
  [ "$name" = fuzz_signature ] && dict=(-dict=tests/fuzz/signature.dict)
  mkdir -p "$build/corpus/$name"
  "$build/tests/fuzz/$name" "$build/corpus/$name" "tests/fuzz/corpus/$name" "${dict[@]}" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$build/artifacts/$name-" >"$build/$name.log" 2>&1
}
failed=0
pids=()
names=()
for name in "${harnesses[@]}"; do
  run_one "$name" &
  pids+=($!)
  names+=("$name")
  if [ ${#pids[@]} -ge "$jobs" ]; then
    if ! wait "${pids[0]}"; then failed=1; echo "FINDING in ${names[0]}: see $build/${names[0]}.log"; fi
    pids=("${pids[@]:1}")
    names=("${names[@]:1}")
  fi
done
for i in "${!pids[@]}"; do
  if ! wait "${pids[$i]}"; then failed=1; echo "FINDING in ${names[$i]}: see $build/${names[$i]}.log"; fi
done
for name in "${harnesses[@]}"; do
  echo "$name: $(grep -E '^#[0-9]+' "$build/$name.log" | tail -1 | cut -c1-100)"
  grep -E 'stat::number_of_executed_units' "$build/$name.log" | sed "s/^/  /" || true
done
if [ "$failed" -ne 0 ]; then
  echo "run.sh: findings; reproducers in $build/artifacts (replay: $build/tests/fuzz/<harness> <file>)" >&2
  grep -h -A3 -E 'FUZZ FAILURE|ERROR: |runtime error' "$build"/*.log | head -40 >&2 || true
  exit 1
fi
echo "run.sh: no findings (${seconds} s per harness)"
