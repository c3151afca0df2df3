#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# usage: OUT=DIR scripts/probes/gpu_energy_ncu.sh
# One GPU call's checks of the energy windows and the ncu capture the profile parser is tested on:
#   1. build (-j from the cores);
#   2. the energy check: `run` of reduction, copy_vectorized, softmax and fused_elementwise at
#      full size (every row's mean power between nine tenths of the probe's idle power and the
#      board's limit, uncertainty <= 5%, the counter's update period recorded): energy.json and
#      energy.txt, the per-row figures (the GPU test energy_recorded_per_row's bounds);
#   3. ncu's raw CSV of a few pairs' kernels (scripts/probes/gpu_ncu_capture.sh), and whether
#      this ncu accepts --print-units base.
# Everything lands in $OUT and is packed into $OUT/energy_ncu.tgz. Never changes clocks.
case "${1:-}" in -h | --help) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:?OUT=DIR}
mkdir -p "$OUT/w"
W=$OUT/w
B=build/sm_90/roofbench
export PATH=${CUDA_HOME:-/usr/local/cuda}/bin:$PATH
t0=$SECONDS
make -j"$(nproc)" ARCH=sm_90 all > "$W/build.log" 2>&1; echo "build exit $? in $((SECONDS - t0)) s"
t0=$SECONDS
$B run --filter '^(reduction|copy_vectorized|softmax|fused_elementwise)$' --json "$W/energy.json" \
    > "$W/energy.log" 2>&1
echo "energy run exit $? in $((SECONDS - t0)) s"
python3 - "$W/energy.json" > "$W/energy.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
env = d["environment"]["start"]
lim = env.get("power_limit_w"); ec = env.get("energy_counter", {})
idle = ec.get("idle_w")
print("power_limit_w", lim, "energy_counter", json.dumps(ec))
bad = 0
for p in d["pairs"]:
    for v in p["variants"]:
        e = v.get("energy")
        if isinstance(e, dict):
            w = e["mean_power_w"]; u = e.get("uncertainty")
            ok = (idle is None or w >= 0.9 * idle) and (lim is None or w <= lim) and u is not None and u <= 0.05
            bad += not ok
            print("%-40s %7.1f W  unc %.4f  %.4g J/launch  %s" % (p["name"] + "/" + v["name"], w, u, e["joules_per_launch"], "ok" if ok else "BAD"))
        else:
            print("%-40s null %s %s" % (p["name"] + "/" + v["name"], v.get("energy_why"), v.get("energy_rejected_w")))
print("rows out of bounds:", bad)
PY
cat "$W/energy.txt"
t0=$SECONDS
OUT=$W FILTER='^(copy_coalescing|copy_vectorized|histogram|reduction|hgemm)$' \
    scripts/probes/gpu_ncu_capture.sh
echo "ncu capture in $((SECONDS - t0)) s"
ncu --clock-control none --print-units base --metrics dram__bytes_read.sum -k regex:copy_vectorized \
    --target-processes all $B check --size smoke --filter '^copy_vectorized$' > "$W/units.txt" 2>&1
echo "print-units base: exit $?"; tail -5 "$W/units.txt"
gzip -k "$W/ncu_raw.csv"
tar czf "$OUT/energy_ncu.tgz" -C "$W" .
ls -la "$OUT"
