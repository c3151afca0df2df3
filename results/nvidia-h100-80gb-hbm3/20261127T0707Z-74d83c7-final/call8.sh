#!/usr/bin/env bash
# The GPU test tier, then the full run: the H100 reference and the suite's time.
set -u
O=$OUT; L=$O/call8.log; W=/tmp/wf; mkdir -p $W
say() { echo "== $(date -u +%T) $*" | tee -a $L; }
say "$(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit,temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader | head -n 1)"
make -j16 ARCH=sm_90 all build/sm_90/rbtest > $W/build.log 2>&1 || { tail -20 $W/build.log | tee -a $L; exit 1; }
say built
B=build/sm_90/roofbench
timeout 200 build/sm_90/rbtest $B gpu > $W/gpu-tests.log 2>&1
say "gpu tests exit $?: $(tail -n 1 $W/gpu-tests.log)"; grep -E "FAIL|not caught" $W/gpu-tests.log | head -20 | tee -a $L
t0=$SECONDS
timeout $((590 - SECONDS)) $B run --json $W/full.json > $W/full.log 2>&1
say "full run exit $?, $((SECONDS - t0)) s"; grep -E '^(platform|verdicts|regressed|improved)' $W/full.log | tee -a $L
grep -E "^extra: hgemm.*speed_vs_library" $W/full.log | tee -a $L
tar czf $O/call8.tgz -C $W gpu-tests.log full.json full.log
say done
