#!/usr/bin/env bash
# hgemm step 7: validation, planted defects, three runs of the pair with the library in each.
set -u
cd "$(dirname "$0")"
O=$OUT; L=$O/call4a.log
say() { echo "== $(date -u +%T) $*" | tee -a $L; }
say "$(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -n 1)"
make -j16 ARCH=sm_90 all build/sm_90/rbtest > $O/build.log 2>&1 || { tail -20 $O/build.log; exit 1; }
for s in 999x1021 256x256 1x8 4096x4096; do
    timeout 120 build/sm_90/roofbench check --filter '^hgemm' --size $s > $O/check-$s.log 2>&1
    say "check $s exit $? $(grep -c 'padding' $O/check-$s.log) padding lines"
done
RBTEST_PAIR=hgemm RBTEST_CASE=planted_defects_fail_their_check timeout 200 build/sm_90/rbtest build/sm_90/roofbench gpu > $O/defects.log 2>&1
say "defects exit $?"; grep -E "caught|missed|FAIL|passed" $O/defects.log | tee -a $L
for r in 1 2 3; do
    timeout 170 build/sm_90/roofbench run --filter '^hgemm' --expect none --json $O/hgemm-$r.json > $O/hgemm-$r.log 2>&1
    say "run $r exit $?"
    python3 - $O/hgemm-$r.json << 'PY' | tee -a $L
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["pairs"]:
    v = {x["name"]: x for x in p["variants"]}
    def r(n):
        x = v.get(n) or {}
        return x.get("rate") if x.get("valid") else None
    out = []
    for a, b in (("clusters", "library"), ("optimized", "library"), ("fp8", "fp8_library")):
        if r(a) and r(b):
            out.append("%s %.1f/%.1f=%.3f" % (a, r(a), r(b), r(a) / r(b)))
    print("  %-18s %s" % (p["name"], "  ".join(out)))
PY
done
say done
