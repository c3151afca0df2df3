#!/usr/bin/env bash
# attention's pair and PyTorch SDPA (flash, cuDNN) on the same GPU in one call: pair, torch, pair.
set -u
O=$OUT; L=$O/sdpa.log; W=/tmp/w; mkdir -p $W
say() { echo "== $(date -u +%T) $*" | tee -a $L; }
say "$(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -n 1)"
make -j16 ARCH=sm_90 all > $W/build.log 2>&1 || { tail -20 $W/build.log; exit 1; }
say built
att() {
  build/sm_90/roofbench run --filter '^attention' --expect none --json $W/att$1.json > $W/att$1.log 2>&1
  say "attention run $1 exit $?"
  python3 - $W/att$1.json << 'PY' | tee -a $L
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["pairs"]:
    for x in p["variants"]:
        print("  %-22s %-10s %7.1f %s  timing %s clock %s" % (p["name"], x["name"], x.get("rate") or float("nan"), x.get("rate_unit"), x.get("timing"), x.get("sm_clock_mhz")))
PY
}
att 1
timeout 200 python3 scripts/torch_sdpa.py 2>&1 | tee -a $L
att 2
tar czf $O/sdpa.tgz -C $W att1.json att1.log att2.json att2.log
say done
