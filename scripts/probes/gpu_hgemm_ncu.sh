#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What limits hgemm's steps at 8192^3: ncu's speed-of-light, warp-stall and
# tensor-pipe figures of each step's launches in `check` (two each). cuBLASLt's kernels are left
# out: in `check` its candidates are tuned and the fp64 reference runs through cuBLAS, so a name
# filter would catch those. The tensor-pipe metric names differ between ncu versions and chips
# (sm__pipe_tensor_op_gmma_cycles_active came back n/a once), so they are taken from this ncu's
# own list (--query-metrics for the GPU's chip) and written beside the figures.
# --clock-control none: the harness never changes clocks.
case "${1:-}" in -h | --help) # the comment above is the usage
    sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0" | grep -qi '^usage' || echo "usage: $0"
    sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"
    exit 0 ;;
esac
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
ARCH=${ARCH:-sm_90}
B=build/$ARCH/roofbench
make -j"$(nproc)" ARCH="$ARCH" all > "$OUT/ncu-build.log" 2>&1 || { tail -n 30 "$OUT/ncu-build.log"; exit 1; }
chip=${NCU_CHIP:-gh100}
ncu --query-metrics --chip "$chip" > "$OUT/ncu-metrics-all.txt" 2>&1
echo "ncu --query-metrics --chip $chip exit $?: $(wc -l < "$OUT/ncu-metrics-all.txt") lines"
# Base names with "tensor" in them, each with the roll-up that reads as a figure: a share of the
# active cycles for a pipe's busy cycles, a count for instructions.
metrics=$(grep -oE '^(sm|smsp)__[a-z0-9_]*tensor[a-z0-9_]*' "$OUT/ncu-metrics-all.txt" | sort -u |
    awk '/cycles_active/ {print $0 ".avg.pct_of_peak_sustained_active"; next} {print $0 ".sum"}' |
    paste -sd, -)
echo "tensor metrics: ${metrics:-none found}" | tee "$OUT/ncu-tensor-metrics.txt"
timeout "${NCU_TIMEOUT:-300}" ncu --clock-control none --target-processes all \
    --kernel-name "regex:^hgemm_(mma_sync|cp_async|wgmma|tma|warp_specialized|optimized|fp8_optimized)_kernel" \
    --launch-count 14 \
    --section SpeedOfLight --section WarpStateStats --section ComputeWorkloadAnalysis \
    --metrics "${metrics:+$metrics,}l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,lts__t_sector_hit_rate.pct" \
    --csv $B check --filter '^hgemm.square$' --size 8192x8192 > "$OUT/ncu-hgemm.csv" 2> "$OUT/ncu-hgemm.err"
echo "ncu exit $?: $(grep -c '"hgemm_' "$OUT/ncu-hgemm.csv") metric rows"
# The figures that say what limited each step, one line per kernel and metric.
grep -E 'tensor|SM Busy|Issue Slots|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|Duration|SM Frequency' \
    "$OUT/ncu-hgemm.csv" | awk -F'","' '{k = $5; sub(/\(.*/, "", k); print substr(k, 1, 40), "|", $(NF-2), "|", $(NF-1), "|", $NF}' |
    sed 's/"$//' | tee "$OUT/ncu-hgemm-summary.txt"
