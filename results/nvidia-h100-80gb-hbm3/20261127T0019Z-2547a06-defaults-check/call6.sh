#!/usr/bin/env bash
# Call 6: the new defaults validated (make test with its GPU tier), scan's 20-row default against
# 16 rows, the awkward hgemm row with the padded library, rmsnorm and attention timed, ncu of
# attention's ping-pong default at d128.
set -u
O=$OUT; L=$O/call6.log; W=/tmp/w; mkdir -p $W/ncu $W/runs
say() { echo "== $(date -u +%T) $*" | tee -a $L; }
say "$(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -n 1)"
make -j16 ARCH=sm_90 all > $W/build.log 2>&1 || { tail -20 $W/build.log; exit 1; }
say built
timeout 300 make test ARCH=sm_90 > $W/test.log 2>&1
say "test exit $?: $(tail -n 1 $W/test.log)"; grep -E "FAIL|not caught|caught" $W/test.log | head -40 | tee -a $L
B=build/sm_90/roofbench
for f in '^hgemm[.]awkward' '^rmsnorm' '^attention'; do
  n=$(echo "$f" | tr -dc 'a-z'); timeout 150 $B run --filter "$f" --expect none --json $W/runs/$n.json > $W/runs/$n.log 2>&1
  say "run $f exit $?"
  python3 - $W/runs/$n.json << 'PY' | tee -a $L
import json, sys
d = json.load(open(sys.argv[1])); copy = (d.get("platform") or {}).get("dram_gbps")
for p in d["pairs"]:
    for x in p["variants"]:
        r = "%.1f %s" % (x["rate"], x["rate_unit"]) if x.get("valid") and x.get("rate") else "invalid/skipped"
        g = (x.get("vs_ceiling") or {}).get("gbps")
        if x.get("roof") == "dram_gbps" and g and copy: r += "  %.1f%% of the copy" % (100 * g / copy)
        print("  %-20s %-16s %s %s" % (p["name"], x["name"], r, (x.get("note") or "")[:90]))
PY
done
timeout 120 ncu --clock-control none --csv --page raw --section SpeedOfLight --section WarpStateStats \
  --metrics sm__pipe_tensor_op_hmma_type_hmma_hgmma_qgmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__thread_inst_executed.sum,smsp__thread_inst_executed_pred_on.sum \
  --kernel-name 'regex:^attention_optimized_kernel$' --launch-skip 2 --launch-count 1 \
  $B run --filter '^attention[.]d128$' --samples 3 --expect none > $W/ncu/att128_pp.csv 2> $W/ncu/att128_pp.err
say "ncu attention exit $?"
FILTER='^scan' SRC=kernels/scan.cu SIZES="1073741824" CHECK="smoke 1000003" ROUNDS=2 DEFECTS=scan \
  CHECK_TIMEOUT=90 RUN_TIMEOUT=120 OUT=$O/scan scripts/probes/gpu_variants.sh base= r16='-DSCAN_OPT_ROWS=16'
say "scan variants exit $?"
grep -E "^== round|optimized|check|defects" $O/scan/summary.log | tee -a $L
tar czf $O/call6.tgz -C $W .
say done
