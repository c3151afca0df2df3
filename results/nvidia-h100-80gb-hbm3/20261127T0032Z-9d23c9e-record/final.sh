#!/usr/bin/env bash
# Final calls. PHASE=test: build; the GPU test suite; ncu of attention's default at d128.
# PHASE=record: the rows of FILTER's pairs recorded again from 3 runs; a full run judged.
# usage: OUT=... PHASE=test|record scratch/c6/final.sh FILTER
set -u
O=$OUT; L=$O/final-$PHASE.log; W=/tmp/w; mkdir -p $W/ncu
say() { echo "== $(date -u +%T) $*" | tee -a $L; }
export NCCL_NVLS_ENABLE=0
say "$(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -n 1)"
make -j16 ARCH=sm_90 all build/sm_90/rbtest > $W/build.log 2>&1 || { tail -20 $W/build.log; exit 1; }
say built
B=build/sm_90/roofbench
if [ "$PHASE" = test ]; then
  timeout 300 build/sm_90/rbtest $B gpu > $W/gpu-tests.log 2>&1
  say "gpu tests exit $?: $(tail -n 1 $W/gpu-tests.log)"; grep -E "FAIL|not caught" $W/gpu-tests.log | head -20 | tee -a $L
  grep -E "attention|scan|rmsnorm" $W/gpu-tests.log | grep -E "caught" | tee -a $L
  timeout 120 ncu --clock-control none --csv --page raw --section SpeedOfLight --section WarpStateStats \
    --metrics sm__pipe_tensor_op_hmma_type_hmma_hgmma_qgmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__thread_inst_executed.sum,smsp__thread_inst_executed_pred_on.sum \
    --kernel-name 'regex:^attention_optimized_kernel$' --launch-skip 2 --launch-count 1 \
    $B run --filter '^attention[.]d128$' --samples 3 --expect none > $W/ncu/att128_lean.csv 2> $W/ncu/att128_lean.err
  say "ncu attention exit $?"
  tar czf $O/final-test.tgz -C $W gpu-tests.log ncu build.log
else
  say "record: $1"
  $B run --filter "$1" --update-expectations --repeat 3 --json $W/record.json > $W/record.log 2>&1
  say "record exit $?"; grep -E "^verdicts|written|regression thresholds" $W/record.log | tee -a $L
  cp expectations/$(ls -t expectations | head -1) $O/
  say "full run judged against the file"
  t0=$SECONDS
  $B run --json $W/full.json > $W/full.log 2>&1
  say "full run exit $?, $((SECONDS - t0)) s"; grep -E '^(platform|verdicts|regressed|improved|suite)' $W/full.log | tee -a $L
  tar czf $O/final-record.tgz -C $W record.json record.log full.json full.log
fi
say done
