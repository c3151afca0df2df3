#!/usr/bin/env bash
# host_transfer's rows recorded from 3 runs at its new size; ncu of attention's kernel at d128;
# the full run (the H100 reference, suite time).
set -u
O=$OUT; L=$O/call7.log; W=/tmp/wf; mkdir -p $W
say() { echo "== $(date -u +%T) $*" | tee -a $L; }
say "$(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit,temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader | head -n 1)"
make -j16 ARCH=sm_90 all > $W/build.log 2>&1 || { tail -20 $W/build.log | tee -a $L; exit 1; }
say built
B=build/sm_90/roofbench
$B run --filter '^host_transfer$' --update-expectations --repeat 3 --json $W/record.json > $W/record.log 2>&1
say "record host_transfer exit $?"; grep -E "^verdicts|updated from" $W/record.log | tee -a $L
grep -E "^ +(baseline|optimized) " $W/record.log | tail -4 | tee -a $L
cp expectations/nvidia-h100-80gb-hbm3.json $O/
timeout 150 ncu --clock-control none --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
  --section ComputeWorkloadAnalysis \
  --metrics sm__pipe_tensor_op_hmma_type_hmma_hgmma_qgmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__cycles_active.avg,smsp__issue_active.avg.pct_of_peak_sustained_active \
  --kernel-name 'regex:^attention_optimized_kernel' --launch-skip 2 --launch-count 1 \
  $B run --filter '^attention[.]d128$' --samples 3 --expect none > $W/ncu-att128.txt 2> $W/ncu-att128.err
say "ncu attention d128 exit $?"
grep -E "tensor_op|pipe_xu|pipe_fma|inst_executed.sum|cycles_active|issue_active|Duration|SM Frequency|Compute \(SM\) Throughput|Issued Warp|No Eligible|Warp Cycles Per Issued" $W/ncu-att128.txt | tee -a $L
t0=$SECONDS
timeout $((590 - SECONDS)) $B run --json $W/full.json > $W/full.log 2>&1
say "full run exit $?, $((SECONDS - t0)) s"; grep -E '^(platform|verdicts|regressed|improved)' $W/full.log | tee -a $L
tar czf $O/call7.tgz -C $W record.json record.log ncu-att128.txt ncu-att128.err full.json full.log
say done
