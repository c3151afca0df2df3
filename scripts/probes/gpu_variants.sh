#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# usage: OUT=DIR [SRC=kernels/hgemm.cu] [FILTER='^hgemm[.]square$'] [SIZES="8192x8192 4096x4096"]
#        [ROUNDS=2] [CHECK="999x1021 4096x4096"]
#        scripts/probes/gpu_variants.sh NAME=FLAGS ...
# One pair's kernels under compile-time options (e.g. hgemm's HGEMM_SM90_GROUP_M), each against
# its library row in its own interleaved loop. One full build, then per NAME only SRC is compiled
# again with FLAGS added and the suite relinked (the commands make would run, from `make -n -W
# SRC`), so a variant costs one object, not a build; each is validated by `check` at the CHECK
# sizes first. The runs go A B C A B C over SIZES, so a drift of the machine shows as A against
# A. Rows in $OUT/summary.log (every variant's rate; optimized and fp8 against their library
# rows, with each one's clock), the runs' files in one archive.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:?OUT=DIR}
SRC=${SRC:-kernels/hgemm.cu}
FILTER=${FILTER:-^hgemm[.]square$}
SIZES=${SIZES:-8192x8192 4096x4096}
CHECK=${CHECK:-999x1021 4096x4096}
obj=build/sm_90/${SRC%.cu}.o
ROUNDS=${ROUNDS:-2}
mkdir -p "$OUT"
LOG=$OUT/summary.log
say() { echo "== $(date -u +%T) $*" | tee -a "$LOG"; }
say "$(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -n 1)"
make -j"$(nproc)" ARCH=sm_90 all > "$OUT/build.log" 2>&1 || { tail -n 20 "$OUT/build.log"; exit 1; }
cmds=$(make -n -W "$SRC" ARCH=sm_90 build/sm_90/roofbench)
compile=$(grep -F " $SRC" <<< "$cmds" | grep -E '^[^ ]*nvcc ')
link=$(grep -E ' -o build/sm_90/roofbench( |$)' <<< "$cmds")
[ -n "$compile" ] && [ -n "$link" ] || { say "cannot find the compile and link commands"; exit 1; }
names=()
for c in "$@"; do
    n=${c%%=*} f=${c#*=}
    names+=("$n")
    d=build/variant-$n
    mkdir -p "$d"
    say "build $n: ${f:-defaults}"
    c1=${compile//$obj/$d/obj.o}
    c1=${c1//${obj%.o}.d/$d/obj.d}
    l1=${link//$obj/$d/obj.o}
    l1=${l1//-o build\/sm_90\/roofbench/-o $d\/roofbench}
    { eval "${c1/ -c / $f -Xptxas -v -c }" && eval "$l1"; } > "$OUT/build-$n.log" 2>&1 ||
        { tail -n 20 "$OUT/build-$n.log" | tee -a "$LOG"; exit 1; }
    grep -A2 'optimized_kernel' "$OUT/build-$n.log" | grep -E 'registers|spill' | tee -a "$LOG"
    for cs in $CHECK; do
        timeout 300 $d/roofbench check --filter "$FILTER" --size $cs > "$OUT/check-$n-$cs.log" 2>&1
        echo "check $cs: exit $?" | tee -a "$LOG"
    done
done
for round in $(seq "$ROUNDS"); do
    for n in "${names[@]}"; do
        for s in $SIZES; do
            say "round $round, $n, $s"
            build/variant-$n/roofbench run --filter "$FILTER" --size "$s" --expect none \
                --json "$OUT/run-$n-$s-$round.json" > "$OUT/run-$n-$s-$round.log" 2>&1
            echo "exit $?" | tee -a "$LOG"
            python3 - "$OUT/run-$n-$s-$round.json" << 'PY' | tee -a "$LOG"
import json, sys
d = json.load(open(sys.argv[1]))
print("  platform dram %.0f GB/s" % ((d.get("platform") or {}).get("dram_gbps") or float("nan")))
for p in d["pairs"]:
    v = {x["name"]: x for x in p["variants"]}
    for x in p["variants"]:
        r = "%.1f %s" % (x["rate"], x["rate_unit"]) if x.get("valid") and x.get("rate") else "invalid"
        print("  %-18s %-12s %s" % (p["name"], x["name"], r))
    def rate(name):
        x = v.get(name) or {}
        return x.get("rate") if x.get("valid") else None
    for top, lib in (("optimized", "library"), ("fp8", "fp8_library")):
        if top not in v:
            continue
        a, b = rate(top), rate(lib)
        if a and b:
            clk = [(v[x].get("clocks") or {}).get("sm_mhz_mean") for x in (top, lib)]
            print("  %-11s %7.1f vs %7.1f TFLOP/s  %.3fx  clocks %s" % (top, a, b, a / b, clk))
        else:
            print("  %-11s invalid or missing" % top)
PY
        done
    done
done
say done
tar czf /tmp/variants.tgz -C "$OUT" --exclude summary.log . &&
    find "$OUT" -mindepth 1 ! -name summary.log -delete && mv /tmp/variants.tgz "$OUT/variants.tgz"
