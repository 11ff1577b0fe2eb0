#!/usr/bin/env bash
# The fused Black-Scholes kernel (float32, weak r and v) as the library generates it, before and
# after the change of 2026-11-28 (fma probe, classification outlined), compiled with nvcc and the
# options NVRTC gets for fused kernels (--fmad=false, precise division and square root), timed by
# CUDA events at 2^24 and 2^28 and hashed: both must give the same bits and the same flags.
#   bash bench/results/h100-2026-11-28/fused_bs_harness/run.sh      (on a machine with a GPU)
# generated_before.cu.txt and generated_after.cu.txt are the library's generated source as recorded (data, not
# sources of this tree: the "before" one cannot be generated from the tree any more).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
R=$(cd "$here" && git rev-parse --show-toplevel)
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
# NVRTC sees ufuncs/src/device_fp_rules.hpp as <ufunc/ufuncs/device_fp_rules.hpp> (library_headers.cpp).
mkdir -p "$tmp/incl/ufunc/ufuncs" && cp "$R/ufuncs/src/device_fp_rules.hpp" "$tmp/incl/ufunc/ufuncs/"
inc="-I$tmp/incl -I$R/core/include -I$R/ufuncs/include -I$R/backends/cuda/include -I$R/backends/cpu/include -I$here"
for v in before after; do
  (cat "$here/generated_$v.cu.txt"; echo '#include "main.cuh"') > "$tmp/$v.cu"
  nvcc -std=c++20 --expt-relaxed-constexpr -O3 -arch=sm_90 --fmad=false --ftz=false --prec-div=true --prec-sqrt=true \
    $inc -o "$tmp/$v" "$tmp/$v.cu" &
done
wait
for v in before after; do "$tmp/$v" "$v"; done
