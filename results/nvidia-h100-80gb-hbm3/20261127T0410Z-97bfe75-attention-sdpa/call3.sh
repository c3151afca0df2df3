#!/usr/bin/env bash
# attention sustained in turn beside PyTorch SDPA (cuDNN and flash), torch before and after the
# pair so a drift of the card shows; every figure with its clock and throttle reasons.
set -u
O=$OUT; L=$O/call3.log; W=/tmp/w3; mkdir -p $W
say() { echo "== $(date -u +%T) $*" | tee -a $L; }
say "$(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit,temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader | head -n 1)"
make -j16 ARCH=sm_90 all > $W/build.log 2>&1 || { tail -20 $W/build.log; exit 1; }
say built
B=build/sm_90/roofbench
timeout 150 python3 scripts/torch_sdpa.py 2>&1 | tee -a $L
for i in 1 2; do
  $B run --filter '^attention$' --expect none --json $W/att$i.json > $W/att$i.log 2>&1
  say "attention run $i exit $?"
  python3 - $W/att$i.json <<'PY' | tee -a $L
import json, sys
d = json.load(open(sys.argv[1]))
for p in d['pairs']:
    for v in p.get('variants', []):
        c = v.get("clocks") or {}
        r = v.get("rate")
        print(f"  {p['name']:22s} {v['name']:10s} {v.get('timing')}: {r:.1f} TFLOP/s clock {c.get('sm_mhz_mean', 0):.0f} (min {c.get('sm_mhz_min', 0)}) {'+'.join(c.get('reasons', []))}")
PY
done
timeout 150 python3 scripts/torch_sdpa.py 2>&1 | tee -a $L
say "$(nvidia-smi --query-gpu=temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader | head -n 1)"
tar czf $O/call3.tgz -C $W --exclude=build.log .
say done
# ran as: GIT_REV=97bfe75 OUT=$OUT bash scratch/c14/call3.sh (device call, H100 GPU-f91aa6fe; the hgemm runs after it in the same call named no pair: --filter '^hgemm[.]square$' matches no row group)
