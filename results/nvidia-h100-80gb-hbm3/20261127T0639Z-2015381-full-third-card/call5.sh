#!/usr/bin/env bash
# H200: GPU test tier, the rows of hgemm, attention, rmsnorm and scan recorded from 3 runs,
#   PyTorch SDPA beside, a full run if time is left.
# H100: a full run (the suite's time and hgemm's ratios on another card).
set -u
O=$OUT; L=$O/call5.log; W=/tmp/wf; mkdir -p $W
say() { echo "== $(date -u +%T) $*" | tee -a $L; }
export NCCL_NVLS_ENABLE=0
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
say "$(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit,temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader | head -n 1)"
make -j16 ARCH=sm_90 all build/sm_90/rbtest > $W/build.log 2>&1 || { tail -20 $W/build.log | tee -a $L; exit 1; }
say built
B=build/sm_90/roofbench
record() {
  $B run --filter "$1" --update-expectations --repeat 3 --json $W/record.json > $W/record.log 2>&1
  say "record $1 exit $?"; grep -E "^verdicts|written|regression thresholds|^note: hgemm" $W/record.log | head -20 | tee -a $L
  grep -E "^ +(optimized|flash_mma|baseline|library|fp8|fp8_library) " $W/record.log | tail -40 | tee -a $L
  grep -E "^extra: hgemm.*speed_vs_library" $W/record.log | tee -a $L
}
full() {
  t0=$SECONDS
  timeout $((590 - SECONDS)) $B run --json $W/full.json > $W/full.log 2>&1
  say "full run exit $?, $((SECONDS - t0)) s"; grep -E '^(platform|verdicts|regressed|improved|suite)' $W/full.log | tee -a $L
  grep -E "^extra: hgemm.*speed_vs_library|^note: hgemm" $W/full.log | tee -a $L
}
if [[ $name == *H200* ]]; then
  E=nvidia-h200
  timeout 200 build/sm_90/rbtest $B gpu > $W/gpu-tests.log 2>&1
  say "gpu tests exit $?: $(tail -n 1 $W/gpu-tests.log)"; grep -E "FAIL|not caught" $W/gpu-tests.log | head -20 | tee -a $L
  record '^(hgemm|attention|rmsnorm|scan)$'
  cp expectations/$E.json $O/
  timeout 150 python3 scripts/torch_sdpa.py 2>&1 | tee -a $L
  if [ $SECONDS -lt 400 ]; then full; fi
  tar czf $O/call5.tgz -C $W gpu-tests.log record.json record.log $(ls $W | grep -x 'full.json\|full.log')
else
  E=nvidia-h100-80gb-hbm3
  full
  tar czf $O/call5.tgz -C $W full.json full.log
fi
say done
