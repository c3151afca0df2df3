#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What limits hgemm's Hopper steps at 8192^3 (issue 13): ncu's speed-of-light, warp stall and
# tensor-pipe figures of one launch each of steps 3-6 and cuBLASLt's kernel, then the full hgemm
# run again (square only) to see the ladder's order twice. --clock-control none: the harness
# never changes clocks. Also the planted cuBLASLt slowdown's candidate times (PLANT=1).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
ARCH=${ARCH:-sm_90}
B=build/$ARCH/roofbench
make -j"$(nproc)" ARCH="$ARCH" all > "$OUT/build.log" 2>&1 || { tail -n 30 "$OUT/build.log"; exit 1; }
timeout 240 ncu --clock-control none --target-processes all \
    --kernel-name "regex:hgemm_(wgmma|tma|warp_specialized|optimized)_kernel" --launch-count 4 \
    --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis \
    --metrics sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,lts__t_sector_hit_rate.pct \
    --csv $B check --filter '^hgemm.square$' --size 8192x8192 > "$OUT/ncu.csv" 2> "$OUT/ncu.err"
echo "ncu exit $?"
timeout 200 $B run --filter '^hgemm.square$' --expect none --json "$OUT/hgemm2.json" > "$OUT/run2.log" 2>&1
echo "run exit $?"
sed -n '/^pair /,$p' "$OUT/run2.log"
if [ "${PLANT:-1}" = 1 ]; then
    make -j"$(nproc)" ARCH="$ARCH" all CFLAGS=-DRB_PLANT_SLOW10 B=build/plant > "$OUT/build-plant.log" 2>&1 &&
        timeout 100 build/plant/roofbench check --filter '^gemm_precision$' 2>&1 | grep -E "planted|bf16" | tee "$OUT/plant.log"
fi
