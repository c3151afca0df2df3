#!/usr/bin/env bash
# PHASE=a: build; the GPU test tier; the rows of the pairs whose defaults changed recorded from 3
#   runs (H100: attention; H200: hgemm, attention, rmsnorm, scan); PyTorch SDPA beside.
# NEED=H200: stop at once on any other GPU.
# PHASE=b: a full run judged against the file (the reference run), suite time.
set -u
O=$OUT; L=$O/final-$PHASE.log; W=/tmp/wf; mkdir -p $W
say() { echo "== $(date -u +%T) $*" | tee -a $L; }
export NCCL_NVLS_ENABLE=0
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
say "$(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit,temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader | head -n 1)"
if [ -n "${NEED:-}" ] && [[ $name != *$NEED* ]]; then say "not an $NEED: $name"; exit 0; fi
make -j16 ARCH=sm_90 all build/sm_90/rbtest > $W/build.log 2>&1 || { tail -20 $W/build.log; exit 1; }
say built
B=build/sm_90/roofbench
if [[ $name == *H200* ]]; then F='^(hgemm|attention|rmsnorm|scan)$'; E=nvidia-h200; else F='^attention$'; E=nvidia-h100-80gb-hbm3; fi
if [ "$PHASE" != b ]; then
  timeout 240 build/sm_90/rbtest $B gpu > $W/gpu-tests.log 2>&1
  say "gpu tests exit $?: $(tail -n 1 $W/gpu-tests.log)"; grep -E "FAIL|not caught" $W/gpu-tests.log | head -20 | tee -a $L
  $B run --filter "$F" --update-expectations --repeat 3 --json $W/record.json > $W/record.log 2>&1
  say "record $F exit $?"; grep -E "^verdicts|written|regression thresholds" $W/record.log | tee -a $L
  grep -E "^ +(optimized|flash_mma|baseline|library|fp8|fp8_library) " $W/record.log | tail -30 | tee -a $L
  cp expectations/$E.json $O/
  timeout 150 python3 scripts/torch_sdpa.py 2>&1 | tee -a $L
  tar czf $O/final-a.tgz -C $W gpu-tests.log record.json record.log
fi
if [ "$PHASE" != a ]; then
  t0=$SECONDS
  timeout $((585 - SECONDS)) $B run --json $W/full.json > $W/full.log 2>&1
  say "full run exit $?, $((SECONDS - t0)) s"; grep -E '^(platform|verdicts|regressed|improved|suite)' $W/full.log | tee -a $L
  tar czf $O/final-b.tgz -C $W full.json full.log
fi
say done
# ran as: GIT_REV=6b7eaa0 PHASE=ab OUT=$OUT bash scratch/c15/final.sh (device call, H100 GPU-fe627997)
