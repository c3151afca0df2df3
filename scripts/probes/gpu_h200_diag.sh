#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# usage: scripts/probes/gpu_h200_diag.sh   (OUT; a prebuilt build/sm_90/roofbench, or it builds)
# Where the memory-bound optimized kernels lose their roof on the GPU present: the card's state,
# the pointer-chase latency (scripts/probes/dram_latency.cu), the memory pairs at full size, the
# histogram at 4x its size (a fixed cost per launch, or the stream itself?), and ncu's speed of
# light, occupancy, launch and warp-stall sections of each optimized kernel (and the library's)
# at full size, one launch each, --clock-control none. Logs under $OUT.
case "${1:-}" in -h | --help) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
B=build/sm_90/roofbench
LOG=$OUT/diag.log
say() { echo "== $(date -u +%T) $*" | tee -a "$LOG"; }
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.limit,pcie.link.gen.current,pcie.link.width.current --format=csv | tee -a "$LOG"
[ -x $B ] || make -j"$(nproc)" ARCH=sm_90 all > "$OUT/build.log" 2>&1
say "pointer chase"
nvcc -O3 -arch=sm_90 -o /tmp/dram_latency scripts/probes/dram_latency.cu && /tmp/dram_latency | tee -a "$LOG"
MEM='^(copy_vectorized|reduction|softmax|transpose|scan|fused_elementwise|histogram|tma_pipeline|rmsnorm|l2_persistence)$'
say "memory pairs, full size"
t0=$SECONDS
$B run --filter "$MEM" --json "$OUT/mem.json" > "$OUT/mem.log" 2>&1
echo "exit $? in $((SECONDS - t0)) s" | tee -a "$LOG"
grep -E '^ *(transpose|scan|fused|histogram|tma|rmsnorm|l2_|copy|reduction|softmax)|optimized|library' "$OUT/mem.log" | head -80 >> "$LOG"
say "histogram at 1 GiB"
$B run --filter '^histogram$' --size 1073741824 --expect none > "$OUT/hist1g.log" 2>&1
grep -E 'optimized|library' "$OUT/hist1g.log" | tee -a "$LOG"
say "ncu"
K='::regex:^(transpose_optimized|fused_elementwise_optimized|histogram_optimized|tma_pipeline_optimized|rmsnorm_optimized|scan_optimized|copy_vectorized_optimized|.*geam|.*DeviceScanKernel|.*DeviceHistogramSweep):1'
t0=$SECONDS
ncu --clock-control none --target-processes all --kernel-id "$K" \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \
    --section LaunchStats --section WarpStateStats --section SchedulerStats \
    -o "$OUT/mem" $B check --size full \
    --filter '^(copy_vectorized|transpose|scan|fused_elementwise|histogram|tma_pipeline|rmsnorm)$' \
    > "$OUT/ncu.log" 2>&1
echo "ncu exit $? in $((SECONDS - t0)) s" | tee -a "$LOG"
ncu -i "$OUT/mem.ncu-rep" --page details > "$OUT/ncu_details.txt" 2>&1
ncu -i "$OUT/mem.ncu-rep" --page raw --csv --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,launch__grid_size,launch__block_size,launch__registers_per_thread > "$OUT/ncu_raw.csv" 2>&1
tail -n 3 "$OUT/ncu.log" | tee -a "$LOG"
say "a clean parallel build, timed (a copy of the sources in /tmp)"
rm -rf /tmp/rb-clean && mkdir -p /tmp/rb-clean && cp -r Makefile harness bench kernels tests scripts /tmp/rb-clean/
t0=$SECONDS
(cd /tmp/rb-clean && make -j"$(nproc)" ARCH=sm_90 GIT_REV=diag all > "$OUT/build_clean.log" 2>&1)
echo "clean build -j$(nproc) exit $? in $((SECONDS - t0)) s" | tee -a "$LOG"
cd "$OUT" && tar czf diag.tgz build_clean.log mem.log hist1g.log ncu.log ncu_details.txt ncu_raw.csv mem.json 2>/dev/null && rm -f build_clean.log mem.log hist1g.log ncu.log ncu_details.txt ncu_raw.csv
