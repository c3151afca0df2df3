#!/usr/bin/env bash
# attention's rows recorded again (3 runs), PyTorch SDPA beside the pair, a full run (the reference).
set -u
O=$OUT; L=$O/call13.log; W=/tmp/w13; mkdir -p $W
say() { echo "== $(date -u +%T) $*" | tee -a $L; }
say "$(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -n 1)"
make -j16 ARCH=sm_90 all > $W/build.log 2>&1 || { tail -20 $W/build.log; exit 1; }
say built
B=build/sm_90/roofbench
$B run --filter '^attention$' --update-expectations --repeat 3 --json $W/record.json > $W/record.log 2>&1
say "record exit $?"; grep -E "^verdicts|written" $W/record.log | tee -a $L
grep -E "^ +(optimized|flash_mma|baseline) " $W/record.log | tail -12 | tee -a $L
timeout 150 python3 scripts/torch_sdpa.py 2>&1 | tee -a $L
$B run --json $W/full.json > $W/full.log 2>&1
say "full run exit $?"; grep -E '^(platform|verdicts|regressed|improved)' $W/full.log | tee -a $L
cp expectations/nvidia-h100-80gb-hbm3.json $O/
tar czf $O/call13.tgz -C $W record.json record.log full.json full.log
say done
