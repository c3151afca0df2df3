#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# usage: OUT=DIR [FASTCU=scratch/fastcu/repo] [ROUNDS=3] scripts/probes/gpu_fastcu.sh
# hgemm's step 7 against cuBLASLt (the suite's run), bracketing fast.cu's kernel 12 against
# cuBLAS (scripts/probes/fastcu_bench.cu) on the same GPU in the same call, at 8192^3, 6144^3 and
# 4096^3. FASTCU is a copy of github.com/pranjalssh/fast.cu in a folder git ignores (the GPU
# machine cannot fetch it: carry it). Rows in $OUT/fastcu.log; the runs' JSON in hgemm.tgz.
case "${1:-}" in -h | --help) # the comment above is the usage
    sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0" | grep -qi '^usage' || echo "usage: $0"
    sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"
    exit 0 ;;
esac
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:?OUT=DIR}
FASTCU=${FASTCU:-scratch/fastcu/repo}
ROUNDS=${ROUNDS:-3}
W=$(mktemp -d)
L=$OUT/fastcu.log
mkdir -p "$OUT" "$W/hg"
say() { echo "== $(date -u +%T) $*" | tee -a "$L"; }
say "$(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -n 1)"
nvcc -std=c++17 -O3 -DNDEBUG -gencode arch=compute_90a,code=sm_90a --expt-relaxed-constexpr -w \
    -I"$FASTCU" scripts/probes/fastcu_bench.cu -o "$W/fastcu_bench" -lcublas -lcuda -ldl \
    > "$OUT/fastcu-build.log" 2>&1 || { say "fastcu_bench did not build"; exit 1; }
make -j"$(nproc)" ARCH=sm_90 all > "$OUT/build.log" 2>&1 || { tail -n 20 "$OUT/build.log"; exit 1; }
hgemm_run() {
    build/sm_90/roofbench run --filter '^hgemm[.]square' --expect none --json "$W/hg/hg$1.json" \
        > "$W/hg/hg$1.log" 2>&1
    say "hgemm run $1 exit $?"
    python3 - "$W/hg/hg$1.json" << 'PY' | tee -a "$L"
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["pairs"]:
    v = {x["name"]: x for x in p["variants"]}
    r = lambda n: (v.get(n) or {}).get("rate") or float("nan")
    c = lambda n: (v.get(n) or {}).get("sm_clock_mhz")
    print("  %-18s optimized %.1f / library %.1f = %.3f (clk %s / %s)  fp8 %.1f / %.1f = %.3f" % (
        p["name"], r("optimized"), r("library"), r("optimized") / r("library"), c("optimized"),
        c("library"), r("fp8"), r("fp8_library"), r("fp8") / r("fp8_library")))
PY
}
for r in $(seq "$ROUNDS"); do
    hgemm_run "$r"
    for s in 8192 6144 4096; do
        timeout 120 "$W/fastcu_bench" "$s" 4 2>&1 | grep -E "err|burst|sustained|median" | tee -a "$L"
    done
done
hgemm_run $((ROUNDS + 1))
tar czf "$OUT/hgemm.tgz" -C "$W" hg
say done
