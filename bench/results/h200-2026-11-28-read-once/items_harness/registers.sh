#!/bin/bash
# The items-per-thread edits of a generated kernel's source and ptxas's register counts (no GPU needed):
#   bash registers.sh GENERATED.cu OPERANDS     (OPERANDS: the kernel's broadcast operands, inputs and outputs)
# Writes v_<variant>.cu beside the working folder's; prints registers and spills per variant (ND 1, then ND 0).
set -euo pipefail
src=$1; ops=$2
R=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
inc=$(mktemp -d) && trap 'rm -rf "$inc"' EXIT
mkdir -p "$inc/ufunc/ufuncs" && cp "$R/ufuncs/src/device_fp_rules.hpp" "$inc/ufunc/ufuncs/"
variant() {  # name, items, minimum blocks per SM (empty: none)
  local name=$1 items=$2 minb=$3
  sed -e "s/__launch_bounds__(256)/__launch_bounds__(256${minb:+, $minb})/" \
      -e "s/blockIdx.x \* 1024/blockIdx.x * $((256 * items))/" \
      -e "s/_off\[4\]/_off[$items]/; s/_on\[4\]/_on[$items]/; s/_in\([0-9]\)\[4\]/_in\1[$items]/g; s/_u < 4/_u < $items/g" \
      "$src" > "v_$name.cu"
  {
    echo "#include \"v_$name.cu\""
    echo "template __global__ void _ufunc_elementwise<0, false>(const _ufunc::call<1, $ops>, const _ufunc::fp_sink);"
    echo "template __global__ void _ufunc_elementwise<1, false>(const _ufunc::call<1, $ops>, const _ufunc::fp_sink);"
  } > "i_$name.cu"
  echo "$name: $(nvcc -std=c++20 --expt-relaxed-constexpr --fmad=false -I"$inc" -I"$R/core/include" -I"$R/ufuncs/include" \
    -I"$R/backends/cuda/include" -arch=sm_90 -cubin -Xptxas -v "i_$name.cu" -o "i_$name.cubin" 2>&1 |
    grep -E "registers|spill" | grep -v "0 bytes spill stores, 0 bytes spill loads" | sed 's/ptxas info *: //' | tr '\n' ' ')"
}
variant items4 4 ""; variant items4_lb8 4 8; variant items2 2 ""; variant items1 1 ""
