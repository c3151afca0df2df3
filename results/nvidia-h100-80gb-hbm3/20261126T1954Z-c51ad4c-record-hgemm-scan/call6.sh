#!/usr/bin/env bash
# The H100 expectation rows of hgemm (step 7, the 6144^3 row) and scan (the fold) from 3 runs, then
# a full run judged against the file. Each phase's files are packed as soon as it ends.
set -u
O=$OUT; W=/tmp/w; L=$O/call6.log
say() { echo "== $(date -u +%T) $*" | tee -a $L; }
say "$(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -n 1)"
make -j16 ARCH=sm_90 all > $O/build.log 2>&1 || { tail -20 $O/build.log; exit 1; }
mkdir -p $W/record $W/bench
say record
build/sm_90/roofbench run --filter '^(hgemm|scan)$' --update-expectations --repeat 3 \
    --json $W/record/record.json > $W/record/record.log 2>&1
say "record exit $?"; grep -E "^verdicts|written|regression thresholds" $W/record/record.log | tee -a $L
cp expectations/nvidia-h100-80gb-hbm3.json $O/
tar czf $O/record.tgz -C $W record
say bench
build/sm_90/roofbench run --json $W/bench/bench.json > $W/bench/bench.log 2>&1
say "bench exit $?"; grep -E "^verdicts|^exit|gating" $W/bench/bench.log | tail -3 | tee -a $L
tar czf $O/bench.tgz -C $W bench
say done
