#!/usr/bin/env bash
# nvcc builds of generated Black-Scholes kernels, timed by events; SASS counts of those and of the NVRTC cubin.
cd "$(dirname "$0")"  # gen_bs32.cu, gen_bsw32.cu, new_bsw32.cu (generate.cpp), incl/ and new_bsw32.cubin beside it
R=$(git rev-parse --show-toplevel)
flags="-std=c++20 --expt-relaxed-constexpr -O3 -arch=sm_90 --fmad=false -DELEM=float -DITEMS=4 -Iincl -I$R/core/include -I$R/ufuncs/include -I$R/backends/cuda/include"
build() { { cat $1.cu; echo "#include \"$R/bench/results/h200-2026-11-28-read-once/items_harness/main.cuh\""; } > m_$1.cu; nvcc $flags $2 m_$1.cu -o x_$1 -lcuda 2>&1 | grep -v warning | head -5; }
build gen_bs32 "" &
build new_bsw32 "-DNONCE=2" &
build gen_bsw32 "-DNONCE=2" &
wait
for v in gen_bs32 new_bsw32 gen_bsw32; do ./x_$v $v; done | tee $OUT/harness.csv
for v in gen_bs32 new_bsw32 gen_bsw32; do cuobjdump -sass x_$v > $OUT/sass_$v.txt 2>&1; done
cuobjdump -sass new_bsw32.cubin > $OUT/sass_nvrtc_new_bsw32.txt 2>&1
for f in $OUT/sass_*.txt; do echo "$(basename $f): $(grep -c '^ */\*[0-9a-f]*\*/' $f) instr, FFMA $(grep -c 'FFMA' $f), FMUL $(grep -c 'FMUL' $f), FADD $(grep -c 'FADD' $f), MUFU $(grep -c MUFU $f), DADD/DMUL/DFMA $(grep -cE 'DADD|DMUL|DFMA' $f)"; done
