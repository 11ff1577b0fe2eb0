#!/usr/bin/env bash
# ufunc::dist's weak and strong scaling (issue 23): add float32 and add.reduce on
# distributed arrays under mpirun with 1, 2, 4, 8, 16 ranks (one thread each, target
# cpu), against the same calls on one process with the parallel target on as many
# threads: what the ranks' MPI costs over threads. Writes dist_bench.csv (every run's
# rows), dist_report.md (the table, the best of the runs) and dist_scaling.svg.
#
#   bench/run_dist.sh [--ranks 1,2,4,8,16] [--weak-n N] [--strong-n N] [--reps R] [--runs K]
#                     [--no-build] [--machine NAME]
#
#   --ranks      rank (and thread) counts; default 1,2,4,8,16. Counts above the cores run
#                oversubscribed (--oversubscribe), which the report says
#   --weak-n     float32 elements per rank for weak scaling (default 2^24: 64 MiB a block)
#   --strong-n   float32 elements in all for strong scaling (default 2^26)
#   --reps       timed calls per measurement (default 20; the median is kept)
#   --runs       the whole sweep K times, alternating implementations (default 2); the
#                report keeps the median of the runs and their spread
#   --machine    the name the report gives the machine (default: hostname)
#
# Environment: BUILD_DIR (default build/dist-bench: Release, TBB, every instruction set),
# CMAKE_ARGS (extra cmake arguments), OUT (default $BUILD_DIR/dist-results). Open MPI as
# root needs OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1, which this sets.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${BUILD_DIR:-$repo/build/dist-bench}
ranks=1,2,4,8,16
weak_n=$((1 << 24))
strong_n=$((1 << 26))
reps=20
runs=2
build=1
machine=$(hostname)
while (($#)); do
  case $1 in
    --ranks) ranks=$2; shift 2 ;;
    --weak-n) weak_n=$2; shift 2 ;;
    --strong-n) strong_n=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --machine) machine=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    *) sed -n '2,25p' "$0" >&2; exit 2 ;;
  esac
done
out=${OUT:-$build_dir/dist-results}
mkdir -p "$out"

if ((build)); then
  read -r -a extra <<<"${CMAKE_ARGS:-}"
  cmake -S "$repo" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DUFUNC_ENABLE_TBB=ON -DUFUNC_ENABLE_MPI=ON \
    -DUFUNC_BUILD_BENCHMARKS=ON -DUFUNC_BUILD_TESTS=OFF -DUFUNC_BUILD_EXAMPLES=OFF -DUFUNC_BUILD_PYTHON=OFF \
    "${extra[@]}" >/dev/null
  cmake --build "$build_dir" --target ufunc_dist_bench
fi
bench=$build_dir/bench/ufunc_dist_bench
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cores=$(nproc)

csv=$out/dist_bench.csv
echo "run,scaling,impl,op,ranks,threads,n_total,reps,median_ms,min_ms,gelem_s" >"$csv"
IFS=, read -r -a counts <<<"$ranks"
for ((run = 1; run <= runs; ++run)); do
  for p in "${counts[@]}"; do
    # One rank per core where they fit (bound to it: memory-bound loops stay near their
    # pages); beyond the cores, oversubscribed and unbound.
    if ((p <= cores)); then launch=(mpirun -np "$p" --bind-to core --map-by core); else
      launch=(mpirun -np "$p" --oversubscribe --bind-to none); fi
    for scaling in weak strong; do
      n=$weak_n
      [ "$scaling" = strong ] && n=$strong_n
      echo "run $run: $scaling scaling, $p ranks / threads" >&2
      "${launch[@]}" "$bench" --scaling "$scaling" --n "$n" --reps "$reps" --target cpu | sed "s/^/$run,/" >>"$csv"
      "$bench" --baseline --threads "$p" --target parallel --scaling "$scaling" --n "$n" --reps "$reps" |
        sed "s/^/$run,/" >>"$csv"
    done
  done
done

python3 "$repo/bench/dist_report.py" "$csv" --machine "$machine" --cores "$cores" \
  --svg "$out/dist_scaling.svg" >"$out/dist_report.md"
cat "$out/dist_report.md"
echo "raw rows: $csv; plot: $out/dist_scaling.svg" >&2
